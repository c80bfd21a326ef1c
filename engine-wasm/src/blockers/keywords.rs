//! Keyword evidence for blocker kinds and button intents, in English,
//! German, French, Spanish, Italian, Dutch and Portuguese. Matching is on
//! text folded by [`fold`] (lower case, Latin-1 accents kept).

/// Lower-cases ASCII and Latin-1 capitals without Unicode tables (they would
/// cost wasm size); other characters pass through unchanged.
pub fn fold(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            'A'..='Z' => ((c as u8) + 32) as char,
            'À'..='Þ' if c != '×' => char::from_u32(c as u32 + 32).unwrap_or(c),
            '\u{2019}' => '\'',
            c => c,
        })
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

pub const CONSENT: &[&str] = &[
    "cookie",
    "cookies",
    "consent",
    "privacy",
    "gdpr",
    "tracking",
    "personal data",
    "we use cookies",
    "your choices",
    // de
    "datenschutz",
    "einwilligung",
    "zustimmung",
    "personenbezogene",
    // fr
    "consentement",
    "confidentialité",
    "vie privée",
    "traceurs",
    "données personnelles",
    // es
    "consentimiento",
    "privacidad",
    "datos personales",
    // it
    "consenso",
    "dati personali",
    // nl
    "toestemming",
    "persoonsgegevens",
    // pt
    "consentimento",
    "privacidade",
    "dados pessoais",
];

pub const LOGIN: &[&str] = &[
    "sign in",
    "log in",
    "login",
    "create an account",
    "create account",
    "register to",
    "sign up to continue",
    "forgot password",
    "forgot your password",
    // de
    "anmelden",
    "einloggen",
    "konto erstellen",
    "passwort vergessen",
    // fr
    "se connecter",
    "connexion",
    "créer un compte",
    "mot de passe oublié",
    // es
    "iniciar sesión",
    "inicia sesión",
    "crear cuenta",
    "olvidaste tu contraseña",
    // it
    "accedi",
    "crea un account",
    "password dimenticata",
    // nl
    "inloggen",
    "account aanmaken",
    "wachtwoord vergeten",
    // pt
    "iniciar sessão",
    "fazer login",
    "criar conta",
    "esqueceu a senha",
];

pub const AGE_GATE: &[&str] = &[
    "are you 18",
    "are you over 18",
    "over 18",
    "18 or older",
    "age verification",
    "verify your age",
    "date of birth",
    "legal drinking age",
    "of legal age",
    "i am 18",
    "i am over",
    // de
    "mindestens 18",
    "über 18",
    "altersverifikation",
    "altersprüfung",
    "geburtsdatum",
    "volljährig",
    // fr
    "avez-vous 18",
    "plus de 18",
    "vérification de l'âge",
    "date de naissance",
    "majeur",
    // es
    "mayor de 18",
    "mayor de edad",
    "verificación de edad",
    "fecha de nacimiento",
    // it
    "maggiorenne",
    "hai 18",
    "verifica dell'età",
    "data di nascita",
    // nl
    "18 jaar of ouder",
    "ouder dan 18",
    "leeftijdscontrole",
    "geboortedatum",
    // pt
    "maior de 18",
    "maior de idade",
    "verificação de idade",
    "data de nascimento",
];

pub const PAYWALL: &[&str] = &[
    "subscribe to continue",
    "to continue reading",
    "continue reading",
    "already a subscriber",
    "free articles",
    "reached your limit",
    "subscription",
    "subscribers only",
    "premium content",
    // de
    "weiterlesen",
    "bereits abonnent",
    "abonnement",
    "nur für abonnenten",
    "jetzt abonnieren",
    // fr
    "déjà abonné",
    "continuer la lecture",
    "réservé aux abonnés",
    "abonnez-vous",
    // es
    "ya eres suscriptor",
    "seguir leyendo",
    "suscripción",
    "solo para suscriptores",
    // it
    "sei già abbonato",
    "continua a leggere",
    "abbonamento",
    "riservato agli abbonati",
    // nl
    "al abonnee",
    "verder lezen",
    "alleen voor abonnees",
    // pt
    "já é assinante",
    "continuar lendo",
    "continuar a ler",
    "assinatura",
    "exclusivo para assinantes",
];

pub const NEWSLETTER_PROMO: &[&str] = &[
    "newsletter",
    "subscribe",
    "% off",
    "discount",
    "coupon",
    "promo code",
    "special offer",
    "free shipping",
    "sign up for",
    "join our",
    "deal",
    "sale",
    "mailing list",
    "e-book",
    "ebook",
    // de
    "rabatt",
    "gutschein",
    "angebot",
    "abonnieren",
    "versandkostenfrei",
    // fr
    "lettre d'information",
    "réduction",
    "code promo",
    "offre",
    "inscrivez-vous",
    "livraison gratuite",
    // es
    "boletín",
    "descuento",
    "cupón",
    "oferta",
    "suscríbete",
    "envío gratis",
    // it
    "sconto",
    "offerta",
    "iscriviti",
    "spedizione gratuita",
    // nl
    "nieuwsbrief",
    "korting",
    "aanbieding",
    "gratis verzending",
    // pt
    "boletim",
    "desconto",
    "cupão",
    "cupom",
    "oferta",
    "frete grátis",
    "portes grátis",
];

/// Accessible labels of close buttons.
pub const CLOSE_LABELS: &[&str] = &[
    "close",
    "dismiss",
    "close dialog",
    "close modal",
    "close popup",
    "close banner",
    "schließen",
    "schliessen",
    "fermer",
    "cerrar",
    "chiudi",
    "sluiten",
    "fechar",
];

/// Glyphs that stand for "close".
pub const CLOSE_GLYPHS: &[&str] = &["×", "✕", "✖", "╳", "✗", "x", "⨯", "🗙", "╳"];

/// Text of buttons that dismiss without committing to anything.
pub const DECLINE_TEXTS: &[&str] = &[
    "no thanks",
    "no, thanks",
    "not now",
    "maybe later",
    "later",
    "continue without",
    "skip",
    "not interested",
    "close",
    "dismiss",
    "i'm not interested",
    // de
    "nein danke",
    "nein, danke",
    "nicht jetzt",
    "später",
    "weiter ohne",
    "überspringen",
    "schließen",
    // fr
    "non merci",
    "pas maintenant",
    "plus tard",
    "continuer sans",
    "ignorer",
    "fermer",
    // es
    "no gracias",
    "ahora no",
    "más tarde",
    "continuar sin",
    "omitir",
    "cerrar",
    // it
    "no grazie",
    "non ora",
    "più tardi",
    "continua senza",
    "salta",
    "chiudi",
    // nl
    "nee bedankt",
    "niet nu",
    "later",
    "doorgaan zonder",
    "overslaan",
    "sluiten",
    // pt
    "não obrigado",
    "não, obrigado",
    "agora não",
    "mais tarde",
    "continuar sem",
    "pular",
    "fechar",
];

/// Buttons that commit the user (subscribe, buy, sign up): never clicked.
pub const COMMIT_TEXTS: &[&str] = &[
    "subscribe",
    "sign up",
    "signup",
    "register",
    "buy",
    "purchase",
    "order",
    "join",
    "get offer",
    "claim",
    "start trial",
    "free trial",
    "checkout",
    "pay",
    "upgrade",
    "get started",
    "log in",
    "sign in",
    "continue",
    "submit",
    "yes",
    // de
    "abonnieren",
    "registrieren",
    "kaufen",
    "bestellen",
    "anmelden",
    "jetzt sichern",
    // fr
    "s'abonner",
    "s'inscrire",
    "acheter",
    "commander",
    "je m'inscris",
    // es
    "suscribirse",
    "suscribirme",
    "registrarse",
    "comprar",
    "pedir",
    // it
    "abbonati",
    "registrati",
    "acquista",
    "ordina",
    // nl
    "abonneren",
    "registreren",
    "kopen",
    "bestellen",
    // pt
    "assinar",
    "inscrever",
    "registar",
    "comprar",
    "encomendar",
];

/// Consent buttons that refuse everything optional.
pub const REJECT_TEXTS: &[&str] = &[
    "reject all",
    "reject",
    "decline all",
    "decline",
    "deny",
    "refuse all",
    "refuse",
    "only necessary",
    "necessary only",
    "necessary cookies only",
    "use necessary cookies only",
    "only essential",
    "essential only",
    "continue without accepting",
    "do not accept",
    "i decline",
    "deny cookies",
    "decline cookies",
    // de
    "alle ablehnen",
    "ablehnen",
    "nur notwendige",
    "nur erforderliche",
    "nur essenzielle",
    "nicht einverstanden",
    // fr
    "tout refuser",
    "refuser",
    "continuer sans accepter",
    "uniquement nécessaires",
    "nécessaires uniquement",
    // es
    "rechazar todo",
    "rechazar todas",
    "rechazar",
    "solo necesarias",
    "sólo necesarias",
    "solo las necesarias",
    // it
    "rifiuta tutto",
    "rifiuta tutti",
    "rifiuta",
    "solo necessari",
    "solo quelli necessari",
    // nl
    "alles weigeren",
    "weigeren",
    "alleen noodzakelijk",
    "alleen noodzakelijke",
    "afwijzen",
    // pt
    "rejeitar tudo",
    "rejeitar todos",
    "rejeitar",
    "recusar",
    "apenas necessários",
    "somente necessários",
];

/// Consent buttons that accept everything.
pub const ACCEPT_TEXTS: &[&str] = &[
    "accept all",
    "accept all cookies",
    "accept",
    "agree",
    "i agree",
    "allow all",
    "allow",
    "ok",
    "got it",
    "accept cookies",
    "that's ok",
    "allow cookies",
    "i accept",
    // de
    "alle akzeptieren",
    "akzeptieren",
    "zustimmen",
    "alle zulassen",
    "einverstanden",
    "verstanden",
    // fr
    "tout accepter",
    "accepter",
    "j'accepte",
    "accepter et fermer",
    "d'accord",
    // es
    "aceptar todo",
    "aceptar todas",
    "aceptar",
    "de acuerdo",
    "acepto",
    // it
    "accetta tutto",
    "accetta tutti",
    "accetta",
    "accetto",
    "va bene",
    // nl
    "alles accepteren",
    "accepteren",
    "akkoord",
    "alle cookies toestaan",
    // pt
    "aceitar tudo",
    "aceitar todos",
    "aceitar",
    "concordo",
    "aceito",
];

/// Whole-phrase match on folded text: `needle` must start and end at word
/// boundaries (so "ok" doesn't match "book", "later" doesn't match "translated").
pub fn contains_phrase(hay: &str, needle: &str) -> bool {
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
            return true;
        }
        start = at + needle.len().max(1);
        while !hay.is_char_boundary(start) {
            start += 1;
        }
    }
    false
}

/// The keywords of `list` found in `text` (folded).
pub fn matches<'a>(text: &str, list: &[&'a str]) -> Vec<&'a str> {
    list.iter().copied().filter(|k| contains_phrase(text, k)).collect()
}

/// True when a button's whole label is one of `list` (or starts with it).
pub fn label_is(label: &str, list: &[&str]) -> bool {
    list.iter()
        .any(|k| label == *k || (label.starts_with(k) && label.len() <= k.len() + 24 && contains_phrase(label, k)))
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
        assert!(label_is("reject all", REJECT_TEXTS));
        assert!(label_is("no thanks, i'll pay full price", DECLINE_TEXTS));
        assert!(!label_is("translated", DECLINE_TEXTS));
    }
}
