//! The token proof between the bridge and the extension
//! (js-glue/extension/bridge-client.js): a bridge given a token never
//! sends it, and a proven one is not sent it. Its hello carries a nonce;
//! the extension answers with its own nonce and HMAC-SHA256(token,
//! "extension\n<port>\n<bridge nonce>\n<its nonce>"); only when that holds
//! does the bridge answer with the same over "bridge\n…". A process posing
//! as the extension (any local program can send a `chrome-extension://`
//! Origin) gets neither the token nor a proof; one posing as a bridge on
//! another port cannot pass on a real bridge's nonce: the extension's
//! proof names the port it connected to.

use ring::hmac;

use crate::text::hex;
#[cfg(test)]
use crate::text::random_hex;

fn unhex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

/// What each side's proof covers besides its side: the bridge's port and
/// both nonces.
pub struct Exchange<'a> {
    pub port: u16,
    pub bridge_nonce: &'a str,
    pub extension_nonce: &'a str,
}

impl Exchange<'_> {
    fn message(&self, side: &str) -> String {
        format!("{side}\n{}\n{}\n{}", self.port, self.bridge_nonce, self.extension_nonce)
    }
}

/// Whether the extension's `proof` shows it knows `token` (compared in
/// constant time).
pub fn extension_proof_holds(token: &str, exchange: &Exchange, proof: &str) -> bool {
    let key = hmac::Key::new(hmac::HMAC_SHA256, token.as_bytes());
    let Some(proof) = unhex(proof) else { return false };
    hmac::verify(&key, exchange.message("extension").as_bytes(), &proof).is_ok()
}

/// The bridge's proof, as hex.
pub fn bridge_proof(token: &str, exchange: &Exchange) -> String {
    let key = hmac::Key::new(hmac::HMAC_SHA256, token.as_bytes());
    hex(hmac::sign(&key, exchange.message("bridge").as_bytes()).as_ref())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proofs_are_hmac_sha256_of_the_port_and_both_nonces() {
        // RFC 4231, test case 2: key "Jefe".
        let key = hmac::Key::new(hmac::HMAC_SHA256, b"Jefe");
        assert_eq!(
            hex(hmac::sign(&key, b"what do ya want for nothing?").as_ref()),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
        // The extension's proof (as bridge-client.js computes it).
        let ext = hex(hmac::sign(&hmac::Key::new(hmac::HMAC_SHA256, b"tok"), b"extension\n9224\nb1\ne1").as_ref());
        let at = |port, bridge_nonce| Exchange {
            port,
            bridge_nonce,
            extension_nonce: "e1",
        };
        assert!(extension_proof_holds("tok", &at(9224, "b1"), &ext));
        assert!(!extension_proof_holds("other", &at(9224, "b1"), &ext));
        assert!(
            !extension_proof_holds("tok", &at(9224, "b2"), &ext),
            "bound to the bridge's nonce"
        );
        assert!(!extension_proof_holds("tok", &at(9225, "b1"), &ext), "and to its port");
        assert!(!extension_proof_holds("tok", &at(9224, "b1"), "zz"));
        assert_ne!(bridge_proof("tok", &at(9224, "b1")), ext, "each side its own label");
        assert_eq!(random_hex(16).len(), 32);
        assert_ne!(random_hex(16), random_hex(16));
    }
}
