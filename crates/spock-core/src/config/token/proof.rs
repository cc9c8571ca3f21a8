//! The attach handshake's proofs: each side shows it holds the control credential without
//! sending it. The client sends a fresh nonce; the server answers with its own nonce and
//! HMAC-SHA256(credential, "server" ‖ both nonces); the client checks that before it shows or
//! sends anything else, then answers HMAC-SHA256(credential, "client" ‖ both nonces), which the
//! server checks in constant time. The two roles are labelled, so neither side's proof can be
//! reflected as the other's, and the nonces are fresh, so no proof can be replayed.
use hmac::{Hmac, Mac};
use sha2::Sha256;

use super::TokenError;

/// Bytes of randomness in a nonce (hex on the wire).
pub const NONCE_BYTES: usize = 32;

/// Which side a proof is from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    Server,
    Client,
}

impl Role {
    fn label(self) -> &'static [u8] {
        match self {
            Role::Server => b"spock-tui attach proof: server\0",
            Role::Client => b"spock-tui attach proof: client\0",
        }
    }
}

/// A fresh nonce, hex.
pub fn nonce() -> Result<String, TokenError> {
    let mut buf = [0u8; NONCE_BYTES];
    getrandom::fill(&mut buf).map_err(|e| TokenError::Random(e.to_string()))?;
    Ok(hex(&buf))
}

fn mac(credential: &str, role: Role, client_nonce: &str, server_nonce: &str) -> Hmac<Sha256> {
    // HMAC takes a key of any length; this cannot fail.
    let mut m = <Hmac<Sha256> as Mac>::new_from_slice(credential.trim().as_bytes())
        .expect("HMAC accepts any key length");
    m.update(role.label());
    m.update(client_nonce.as_bytes());
    m.update(b"\0");
    m.update(server_nonce.as_bytes());
    m
}

/// `role`'s proof for this pair of nonces, hex.
pub fn prove(credential: &str, role: Role, client_nonce: &str, server_nonce: &str) -> String {
    hex(&mac(credential, role, client_nonce, server_nonce)
        .finalize()
        .into_bytes())
}

/// Whether `proof` is `role`'s proof for this pair of nonces under `credential`, compared in
/// constant time. An empty credential proves nothing; nonces must be full length (so a peer
/// cannot pick an empty one to make proofs it has seen reusable).
pub fn verify(
    credential: &str,
    role: Role,
    client_nonce: &str,
    server_nonce: &str,
    proof: &str,
) -> bool {
    let full = |n: &str| n.len() == NONCE_BYTES * 2 && n.bytes().all(|b| b.is_ascii_hexdigit());
    if credential.trim().is_empty() || !full(client_nonce) || !full(server_nonce) {
        return false;
    }
    let Some(bytes) = unhex(proof) else {
        return false;
    };
    mac(credential, role, client_nonce, server_nonce)
        .verify_slice(&bytes)
        .is_ok()
}

/// Lower-case hex, two digits a byte: how tokens, nonces and proofs are written.
pub(super) fn hex(b: &[u8]) -> String {
    b.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) || s.len() > 128 {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const CRED: &str = "5f0c2a…not-a-real-credential";

    #[test]
    fn a_proof_verifies_only_for_its_role_nonces_and_credential() {
        let (c, s) = (nonce().unwrap(), nonce().unwrap());
        let p = prove(CRED, Role::Server, &c, &s);
        assert_eq!(p.len(), 64);
        assert!(verify(CRED, Role::Server, &c, &s, &p));
        // Reflected as the client's proof: refused.
        assert!(!verify(CRED, Role::Client, &c, &s, &p));
        // Another credential, another nonce, nonces swapped: refused.
        assert!(!verify("other", Role::Server, &c, &s, &p));
        let n = nonce().unwrap();
        assert!(!verify(CRED, Role::Server, &c, &n, &p));
        assert!(!verify(CRED, Role::Server, &s, &c, &p));
        // Not hex, truncated, empty: refused without a panic.
        assert!(!verify(CRED, Role::Server, &c, &s, "zz"));
        assert!(!verify(CRED, Role::Server, &c, &s, &p[..62]));
        assert!(!verify(CRED, Role::Server, &c, &s, ""));
    }

    #[test]
    fn short_nonces_and_an_empty_credential_prove_nothing() {
        let s = nonce().unwrap();
        let p = prove(CRED, Role::Client, "", &s);
        assert!(!verify(CRED, Role::Client, "", &s, &p));
        let c = nonce().unwrap();
        let p = prove("", Role::Client, &c, &s);
        assert!(!verify("", Role::Client, &c, &s, &p));
        assert!(!verify(" \n", Role::Client, &c, &s, &p));
    }

    #[test]
    fn the_credential_is_read_as_the_file_holds_it_with_or_without_its_newline() {
        let (c, s) = (nonce().unwrap(), nonce().unwrap());
        let p = prove("abc\n", Role::Client, &c, &s);
        assert!(verify("abc", Role::Client, &c, &s, &p));
    }

    #[test]
    fn nonces_are_fresh() {
        assert_ne!(nonce().unwrap(), nonce().unwrap());
        assert_eq!(nonce().unwrap().len(), NONCE_BYTES * 2);
    }
}
