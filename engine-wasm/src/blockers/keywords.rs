//! Keyword evidence for blocker kinds and button intents, in English,
//! German, French, Spanish, Italian, Dutch and Portuguese. Matching is on
//! text folded by [`fold`] (lower case, Latin-1 accents kept).

/// Lower-cases ASCII and Latin-1 capitals without Unicode tables (they would
/// cost wasm size); other characters pass through unchanged.
pub fn fold(s: &str) -> String {
    let folded = s
        .chars()
        .map(|c| match c {
            'A'..='Z' => ((c as u8) + 32) as char,
            'À'..='Þ' if c != '×' => char::from_u32(c as u32 + 32).unwrap_or(c),
            '\u{2019}' => '\'',
            c => c,
        })
        .collect::<String>();
    crate::words::collapse_whitespace(&folded)
}

/// Base letters of U+00C0..=U+017F (Latin-1 and Latin Extended-A), lower
/// case, accents dropped; a space for `×` and `÷`. `ß` is `ss` (see `words`).
const LATIN_BASE: &[u8; 192] = b"aaaaaaaceeeeiiiidnooooo ouuuuytsaaaaaaaceeeeiiiidnooooo ouuuuyty\
aaaaaaccccccccddddeeeeeeeeeegggggggghhhhiiiiiiiiiiiijjkkklllllllllln\
nnnnnnnnoooooooorrrrrrssssssssttttttuuuuuuuuuuuuwwyyyzzzzzzs";

/// A button label as plain words, for matching people's phrasings: case
/// and diacritics folded (`Odrzuć` → `odrzuc`, `schließen` →
/// `schliessen`), every symbol a space (`✗ Deny all cookies →` → `deny all
/// cookies`), apostrophes kept (`don't`). Letters of other scripts stay.
pub fn words(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut space = true;
    for c in s.chars() {
        let u = c as u32;
        let base = match c {
            'a'..='z' | '0'..='9' | '\'' => Some(c),
            'A'..='Z' => Some((u as u8 + 32) as char),
            '\u{2019}' => Some('\''),
            'ß' => {
                out.push('s');
                Some('s')
            }
            _ if (0xC0..0x180).contains(&u) => Some(LATIN_BASE[u as usize - 0xC0] as char).filter(|&b| b != ' '),
            // Letters of other scripts are words; ASCII and Latin-1
            // punctuation, general punctuation, arrows, dingbats and
            // other symbols (U+2000..U+2BFF), and emoji are not.
            _ if u >= 0x180 && !(0x2000..0x2C00).contains(&u) && u < 0x1F000 => Some(c),
            _ => None,
        };
        match base {
            Some(b) => {
                out.push(b);
                space = false;
            }
            None if !space => {
                out.push(' ');
                space = true;
            }
            None => {}
        }
    }
    if out.ends_with(' ') {
        out.pop();
    }
    out
}

/// Which of `phrases` a label (in [`words`] form) says, as its index (the
/// first that fits, so lists go in order of preference): the phrase's
/// words in order, with nothing but words of `objects` around and between
/// them ("deny" + "all cookies"; "only … necessary" in "only accept
/// technically necessary cookies"). Any other word means the button says
/// something else ("decline and manage settings" is not a plain decline).
pub fn decision(label: &str, phrases: Words, objects: &str) -> Option<usize> {
    each(phrases).position(|p| {
        let mut want = p.split(' ').peekable();
        let known = label.split(' ').all(|w| {
            if want.peek() == Some(&w) {
                want.next();
                true
            } else {
                objects.split_whitespace().any(|o| o == w)
            }
        });
        known && want.peek().is_none()
    })
}

/// A keyword list: phrases separated by `|` (one string instead of a
/// slice of them: each slice entry costs 8 bytes of .wasm), in English,
/// then German, French, Spanish, Italian, Dutch, Portuguese (and Polish
/// for the button decisions).
pub type Words = &'static str;

/// The phrases of a keyword list, in order.
pub fn each(list: Words) -> impl Iterator<Item = &'static str> {
    list.split('|')
}

pub const CONSENT: Words = "cookie|cookies|consent|privacy|gdpr|tracking|personal data|we use cookies|your choices|\
    datenschutz|einwilligung|zustimmung|personenbezogene|consentement|confidentialité|\
    vie privée|traceurs|données personnelles|consentimiento|privacidad|datos personales|\
    consenso|dati personali|toestemming|persoonsgegevens|consentimento|privacidade|\
    dados pessoais";

pub const LOGIN: Words = "sign in|log in|login|create an account|create account|register to|sign up to continue|\
    forgot password|forgot your password|anmelden|einloggen|konto erstellen|\
    passwort vergessen|se connecter|connexion|créer un compte|mot de passe oublié|\
    iniciar sesión|inicia sesión|crear cuenta|olvidaste tu contraseña|accedi|\
    crea un account|password dimenticata|inloggen|account aanmaken|wachtwoord vergeten|\
    iniciar sessão|fazer login|criar conta|esqueceu a senha";

pub const AGE_GATE: Words = "are you 18|are you over 18|over 18|18 or older|age verification|verify your age|\
    date of birth|legal drinking age|of legal age|i am 18|i am over|mindestens 18|über 18|\
    altersverifikation|altersprüfung|geburtsdatum|volljährig|avez-vous 18|plus de 18|\
    vérification de l'âge|date de naissance|majeur|mayor de 18|mayor de edad|\
    verificación de edad|fecha de nacimiento|maggiorenne|hai 18|verifica dell'età|\
    data di nascita|18 jaar of ouder|ouder dan 18|leeftijdscontrole|geboortedatum|\
    maior de 18|maior de idade|verificação de idade|data de nascimento";

pub const PAYWALL: Words = "subscribe to continue|to continue reading|continue reading|already a subscriber|\
    free articles|reached your limit|subscription|subscribers only|premium content|\
    weiterlesen|bereits abonnent|abonnement|nur für abonnenten|jetzt abonnieren|déjà abonné|\
    continuer la lecture|réservé aux abonnés|abonnez-vous|ya eres suscriptor|seguir leyendo|\
    suscripción|solo para suscriptores|sei già abbonato|continua a leggere|abbonamento|\
    riservato agli abbonati|al abonnee|verder lezen|alleen voor abonnees|já é assinante|\
    continuar lendo|continuar a ler|assinatura|exclusivo para assinantes";

pub const NEWSLETTER_PROMO: Words =
    "newsletter|subscribe|% off|discount|coupon|promo code|special offer|free shipping|\
    sign up for|join our|deal|sale|mailing list|e-book|ebook|rabatt|gutschein|angebot|\
    abonnieren|versandkostenfrei|lettre d'information|réduction|code promo|offre|\
    inscrivez-vous|livraison gratuite|boletín|descuento|cupón|oferta|suscríbete|\
    envío gratis|sconto|offerta|iscriviti|spedizione gratuita|nieuwsbrief|korting|\
    aanbieding|gratis verzending|boletim|desconto|cupão|cupom|oferta|frete grátis|\
    portes grátis";

/// Close buttons: one of these verbs, then nothing but words of
/// `CLOSE_OBJECTS` ("close dialog", "× Close this window").
pub const CLOSE_LABELS: Words = "close|dismiss|schliessen|fermer|cerrar|chiudi|sluiten|fechar|zamknij";

/// Words that may stand around a close verb.
pub const CLOSE_OBJECTS: &str = "dialog modal popup pop up banner window overlay message notice this the x";

/// Glyphs that stand for "close".
pub const CLOSE_GLYPHS: Words = "×|✕|✖|╳|✗|x|⨯|🗙|╳";

/// Text of buttons that dismiss without committing to anything.
pub const DECLINE_TEXTS: Words =
    "no thanks|not now|maybe later|later|continue without|skip|not interested|close|dismiss|\
    i'm not interested|nein danke|nicht jetzt|spater|weiter ohne|uberspringen|schliessen|\
    non merci|pas maintenant|plus tard|continuer sans|ignorer|fermer|no gracias|ahora no|\
    mas tarde|continuar sin|omitir|cerrar|no grazie|non ora|piu tardi|continua senza|salta|\
    chiudi|nee bedankt|niet nu|doorgaan zonder|overslaan|sluiten|nao obrigado|agora nao|\
    mais tarde|continuar sem|pular|fechar";

/// Buttons that commit the user (subscribe, buy, sign up): never clicked.
pub const COMMIT_TEXTS: Words =
    "subscribe|sign up|signup|register|buy|purchase|order|join|get offer|claim|start trial|\
    free trial|checkout|pay|upgrade|get started|log in|sign in|continue|submit|yes|\
    abonnieren|registrieren|kaufen|bestellen|anmelden|jetzt sichern|s'abonner|s'inscrire|\
    acheter|commander|je m'inscris|suscribirse|suscribirme|registrarse|comprar|pedir|\
    abbonati|registrati|acquista|ordina|abonneren|registreren|kopen|assinar|inscrever|\
    registar|encomendar";

/// Consent buttons that refuse everything optional: one of these phrases
/// (in order of preference), then nothing but words of `REJECT_OBJECTS`
/// ("✗ Deny all cookies", "Decline optional", "Tout refuser", "Odrzuć
/// wszystkie"). A word outside the list ("settings", "manage", "more")
/// means the button does something else.
pub const REJECT_TEXTS: Words = "reject|decline|deny|refuse|disallow|do not accept|don't accept|\
    continue without accepting|only necessary|necessary only|only essential|essential only|\
    only required|required only|ablehnen|nicht einverstanden|nur notwendige|\
    nur erforderliche|nur essenzielle|refuser|continuer sans accepter|\
    uniquement necessaires|necessaires uniquement|rechazar|solo necesarias|\
    solo las necesarias|rifiuta|rifiutare|solo necessari|solo quelli necessari|weigeren|\
    afwijzen|alleen noodzakelijk|alleen noodzakelijke|rejeitar|recusar|apenas necessarios|\
    somente necessarios|odrzuc|tylko niezbedne";

/// Words that may stand around a reject phrase.
pub const REJECT_OBJECTS: &str = "all cookies cookie optional non essential nonessential additional tracking \
    the and close i use accept allow continue with strictly technically necessary essential only required \
    alle optionale und schliessen akzeptieren cookies zulassen technisch \
    tout tous les et fermer accepter \
    todo todas todos las los y cerrar aceptar opcionales \
    tutto tutti i e chiudi accetta opzionali \
    alles en sluiten accepteren optionele \
    tudo os e fechar aceitar opcionais \
    wszystkie i zamknij";

/// Consent buttons that accept everything: one of these phrases (in
/// order of preference), then nothing but words of `ACCEPT_OBJECTS`.
pub const ACCEPT_TEXTS: Words = "accept|agree|i agree|allow|ok|okay|got it|i accept|that's ok|consent|akzeptieren|\
    zustimmen|zulassen|einverstanden|verstanden|accepter|j'accepte|d'accord|aceptar|\
    de acuerdo|acepto|accetta|accetto|accettare|va bene|accepteren|akkoord|toestaan|aceitar|\
    concordo|aceito|akceptuje|zaakceptuj|zgadzam sie";

/// Words that may stand around an accept phrase.
pub const ACCEPT_OBJECTS: &str = "all cookies cookie and close continue the i tracking \
    alle und schliessen cookies \
    tout tous les et fermer \
    todo todas todos las y cerrar \
    tutto tutti i e chiudi \
    alles en sluiten \
    tudo todos os e fechar \
    wszystkie i";

/// Whole-phrase match on folded text: `needle` must start and end at word
/// boundaries (so "ok" doesn't match "book", "later" doesn't match "translated").
pub fn contains_phrase(hay: &str, needle: &str) -> bool {
    find_phrase(hay, needle).is_some()
}

/// Where `needle` first stands in `hay` as a whole phrase (see [`contains_phrase`]).
pub fn find_phrase(hay: &str, needle: &str) -> Option<usize> {
    // ASCII letters and digits, and Latin letters beyond ASCII (no Unicode
    // tables: they cost wasm size).
    let is_word = |c: char| c.is_ascii_alphanumeric() || (c as u32) >= 0xC0;
    let mut start = 0;
    while let Some(pos) = hay[start..].find(needle) {
        let at = start + pos;
        let end = at + needle.len();
        let before_ok = hay[..at].chars().next_back().map(|c| !is_word(c)).unwrap_or(true)
            || !needle.chars().next().map(is_word).unwrap_or(false);
        let after_ok = hay[end..].chars().next().map(|c| !is_word(c)).unwrap_or(true)
            || !needle.chars().next_back().map(is_word).unwrap_or(false);
        if before_ok && after_ok {
            return Some(at);
        }
        start = at + needle.len().max(1);
        while !hay.is_char_boundary(start) {
            start += 1;
        }
    }
    None
}

/// The keywords of `list` found in `text` (folded).
pub fn matches(text: &str, list: Words) -> Vec<&'static str> {
    each(list).filter(|k| contains_phrase(text, k)).collect()
}

/// True when a button's whole label is one of `list` (or starts with it).
pub fn label_is(label: &str, list: Words) -> bool {
    each(list).any(|k| label == k || (label.starts_with(k) && label.len() <= k.len() + 24 && contains_phrase(label, k)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folding_and_phrases() {
        assert_eq!(fold("  Alle  AKZEPTIEREN "), "alle akzeptieren");
        assert_eq!(fold("ÉTÉ Über"), "été über");
        assert_eq!(fold("Don’t"), "don't");
        assert!(!contains_phrase("we use cookies to", "cookie"));
        assert!(contains_phrase("we use cookies to", "we use cookies"));
        assert!(!contains_phrase("book now", "ok"));
        assert!(contains_phrase("ok", "ok"));
        assert!(contains_phrase("20% off today", "% off"));
        assert_eq!(decision("reject all", REJECT_TEXTS, REJECT_OBJECTS), Some(0));
        assert!(label_is("no thanks, i'll pay full price", DECLINE_TEXTS));
        assert!(!label_is("translated", DECLINE_TEXTS));
    }

    #[test]
    fn labels_fold_to_plain_words() {
        assert_eq!(words("✗ Deny all cookies"), "deny all cookies");
        assert_eq!(words("  Tout REFUSER → "), "tout refuser");
        assert_eq!(words("Odrzuć wszystkie"), "odrzuc wszystkie");
        assert_eq!(words("Schließen ×"), "schliessen");
        assert_eq!(words("Don’t accept!"), "don't accept");
        assert_eq!(
            words("Nur notwendige Cookies akzeptieren"),
            "nur notwendige cookies akzeptieren"
        );
        assert_eq!(words("Rechazar todo 🍪"), "rechazar todo");
        assert_eq!(words("Łódź"), "lodz");
    }

    #[test]
    fn decisions_are_a_phrase_plus_known_words() {
        let reject = |l: &str| decision(&words(l), REJECT_TEXTS, REJECT_OBJECTS).is_some();
        let accept = |l: &str| decision(&words(l), ACCEPT_TEXTS, ACCEPT_OBJECTS).is_some();
        for l in [
            "✗ Deny all cookies",
            "Decline optional",
            "Only necessary",
            "Continue without accepting →",
            "Tout refuser",
            "Alle ablehnen",
            "Rechazar todo",
            "Rifiuta tutto",
            "Nur notwendige",
            "Odrzuć wszystkie",
            "Reject all",
            "Use necessary cookies only",
            "Accept only necessary cookies",
            "Nur notwendige Cookies akzeptieren",
            "Only accept technically necessary cookies",
            "Nur technisch notwendige Cookies akzeptieren",
            "Decline",
        ] {
            assert!(reject(l), "{l} should be a reject button");
        }
        for l in [
            "Decline and manage settings",
            "Reject or customise",
            "Decline to see more options",
            "Let me choose",
            "Accept all",
            "Show purposes",
        ] {
            assert!(!reject(l), "{l} is not a plain reject button");
        }
        for l in [
            "Accept all cookies",
            "✓ Accept",
            "Tout accepter",
            "Alle akzeptieren",
            "OK",
            "Got it!",
        ] {
            assert!(accept(l), "{l} should be an accept button");
        }
        for l in [
            "Accept only necessary cookies",
            "Accept selected",
            "Okay, manage settings",
        ] {
            assert!(!accept(l), "{l} is not a plain accept button");
        }
        let close = |l: &str| decision(&words(l), CLOSE_LABELS, CLOSE_OBJECTS).is_some();
        assert!(close("× Close") && close("Close dialog") && close("Schließen") && close("Zamknij"));
        assert!(!close("Close and subscribe"));
    }
}
