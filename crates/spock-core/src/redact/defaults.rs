//! The built-in redaction rules. Each is narrow enough to leave ordinary device output alone
//! (`password="false"` in a uiautomator dump, `token` in a log tag) and is anchored on a
//! shape that only a credential has. All are `agent_only`: the person owns these secrets.
use super::{RedactionRule, Scope};

const RULES: &[(&str, &str)] = &[
    // `Authorization: Bearer <token>`; the token alone is hidden.
    (
        "bearer",
        r"(?i)\bbearer\s+(?P<secret>[A-Za-z0-9\-._~+/]{8,}=*)",
    ),
    // `password=…` anywhere (query strings, logged form bodies, key=value dumps). A value that
    // starts with a quote (`password="false"` in XML) is not matched.
    (
        "password",
        r#"(?i)\b(?:password|passwd|passphrase|pwd)=(?P<secret>[^\s&"'<>,;]+)"#,
    ),
    // Token-like query parameters; only after `?`, `&` or `;` so prose is left alone.
    (
        "query-secret",
        r#"(?i)[?&;](?:access_token|refresh_token|id_token|token|api_key|apikey|client_secret|secret|sig|signature|auth)=(?P<secret>[^&\s"'#<>]+)"#,
    ),
    // `scheme://user:password@host`.
    (
        "url-credentials",
        r"\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^\s/:@]+:(?P<secret>[^\s/@]+)@",
    ),
    (
        "aws-access-key-id",
        r"\b(?P<secret>(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[0-9A-Z]{16})\b",
    ),
    (
        "aws-secret-key",
        r#"(?i)aws_?secret_?access_?key["']?\s*[=:]\s*["']?(?P<secret>[A-Za-z0-9/+=]{40})"#,
    ),
    ("google-api-key", r"\b(?P<secret>AIza[0-9A-Za-z_\-]{35})"),
    (
        "github-token",
        r"\b(?P<secret>gh[pousr]_[A-Za-z0-9]{36,})\b",
    ),
    (
        "jwt",
        r"\b(?P<secret>eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,})",
    ),
    (
        "private-key",
        r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----",
    ),
];

pub fn default_rules() -> Vec<RedactionRule> {
    RULES
        .iter()
        .map(|(name, pattern)| RedactionRule {
            name: name.to_string(),
            pattern: pattern.to_string(),
            scope: Scope::AgentOnly,
        })
        .collect()
}
