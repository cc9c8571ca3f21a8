//! The built-in redaction rules. Each is narrow enough to leave ordinary device output alone
//! (`password="false"` in a uiautomator dump, `token=0xb400006f…` and `mToken=` in dumpsys,
//! `token` in a log tag) and is anchored on a shape that only a credential has. All are
//! `agent_only`: the person owns these secrets.
//!
//! Passwords, tokens and API keys are each covered in the shapes they are written in: `key=v`
//! and `key: v` (`PASSWORD=…`, `db_password=…`, YAML, headers), JSON `"key": "v"` (any key
//! ending in the word: `"newPassword"`, `"accessToken"`), `--key v` on a command line, and
//! `KEY="v"` as a shell or `.env` file quotes it. A bare token or key value must look like
//! one (8+ characters of a token alphabet, not a `0x` pointer) because dumpsys is full of
//! `token=` handles; a password value is hidden whatever it is.
use super::{RedactionRule, Scope};

const RULES: &[(&str, &str)] = &[
    // `Authorization: Bearer <token>`; the token alone is hidden.
    (
        "bearer",
        r"(?i)\bbearer\s+(?P<secret>[A-Za-z0-9\-._~+/]{8,}=*)",
    ),
    // `password=…` anywhere (query strings, logged form bodies, key=value dumps) and
    // `password: …`. A value that starts with a double quote (`password="false"` in XML) is
    // left to the JSON shape below, which needs `:`. `{P}` is [`KEY`] on the password keys.
    //
    // Spaces (NBSP included) may stand around `=`, `=>` or `:`; a double-quoted value is taken
    // whole, spaces and escapes included (a bare `true`/`false`, as uiautomator writes
    // `password="false"`, is never a secret: see `redact::trivial`); a bare value runs to a
    // space, `&`, a quote, `<`, `>`, `,` or `;`, through shell-escaped spaces.
    (
        "password",
        r#"(?i){P}(?:[ \t\u{a0}]*=>?[ \t\u{a0}]*|['"]?[ \t\u{a0}]*:[ \t\u{a0}]*)(?P<secret>'[^'\n]*'|(?:[^\s&"'<>,;\\]|\\.)+)"#,
    ),
    // `password="v"`, `password => "v"`: the value inside the quotes.
    (
        "password",
        r#"(?i){P}[ \t\u{a0}]*=>?[ \t\u{a0}]*"(?P<secret>(?:[^"\\\n]|\\.)+)""#,
    ),
    // JSON inside a string, as logs print it: `{\"password\":\"v\"}`.
    (
        "password",
        r#"(?i)\\"[a-z0-9_.\-]*(?:password|passwd|passphrase|pwd)\\"[ \t]*:[ \t]*\\"(?P<secret>(?:[^"\\\n]|\\[^"\n])+)\\""#,
    ),
    // `<password>v</password>`, `<db_password>v</db_password>`.
    (
        "password",
        r#"(?i)<[a-z0-9_:\-]*(?:password|passwd|passphrase)>(?P<secret>[^<\n]+)</"#,
    ),
    // URL-encoded: `password%3Dv`, `%22password%22%3A%22v%22`.
    (
        "password",
        r#"(?i)(?:password|passwd|pwd)(?:%3D|%22%3A%22|%22%3A%20%22)(?P<secret>[^&\s"'<>%]+(?:%[0-9a-f]{2}[^&\s"'<>%]*)*?)(?:%22|&|\s|$)"#,
    ),
    // A `Cookie:` or `Set-Cookie:` header's value: session cookies are credentials.
    (
        "cookie",
        r#"(?i)\b(?:set-)?cookie[ \t]*:[ \t]*(?P<secret>[^\r\n]+)"#,
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
    // `Authorization: Basic …` (or `Token …`, or a bare value); `Bearer` is hidden above.
    (
        "authorization",
        r#"(?i)\bauthorization["']?[ \t]*[:=][ \t]*["']?(?:(?:basic|token|digest|bearer)[ \t]+)?(?P<secret>[A-Za-z0-9\-._~+/]{8,}=*)"#,
    ),
];

/// One kind of credential: its marker name, the keys it is written under (`{K}`: bare, as in
/// `key=v`; `{J}`: how a JSON key ends; `{F}`: a command-line flag; `{E}`: an upper-case
/// environment variable ends) and the value a bare `key=v` must have (`{V}`).
struct Kind {
    name: &'static str,
    bare: &'static str,
    json: &'static str,
    flag: &'static str,
    env: &'static str,
    value: &'static str,
}

/// Where a key starts: a whole name that is the key or ends in `_key`/`-key` (`password`,
/// `DB_PASSWORD`, `x-api-key`, `--token`), or a dotted lower-case name ending in it
/// (`spring.datasource.password`). Not a key inside a longer word (`mToken`,
/// `ConsecutiveWrongPassword`), nor an upper-case name after a dot
/// (`android.permission.GET_PASSWORD`, `RETRIEVE_WINDOW_TOKEN` in dumpsys package).
const KEY: &str = r"(?:^|[^A-Za-z0-9_.\-])(?:(?-i:(?:[a-z][a-z0-9_\-]*\.)+[a-z0-9_\-]*?(?:{K}))|(?:[A-Za-z0-9_\-]*[_\-])?(?:{K}))";

const PASSWORD_KEYS: &str = "password|passwd|passphrase|pwd";

/// A token or key value: 8+ characters of a token alphabet, not a `0x…` pointer.
const TOKEN_VALUE: &str =
    r"'[^'\n]{8,}'|(?:0[a-wyz0-9._~+/\-]|[a-z1-9._~+/\-])[a-z0-9._~+/\-]{6,}=*";

const KINDS: &[Kind] = &[
    Kind {
        name: "password",
        bare: PASSWORD_KEYS,
        json: PASSWORD_KEYS,
        flag: "password|passwd|passphrase|pass",
        env: "PASSWORD|PASSWD|PASSPHRASE",
        // Covered, in its `=` and `:` shapes, by the `password` rule above.
        value: "",
    },
    Kind {
        name: "token",
        bare: r"(?:access|refresh|id|auth|session|bearer|csrf|xsrf|oauth|private|api)[_\-]?token|token|client[_\-]?secret|secret",
        json: "token|secret",
        flag: r"(?:access|refresh|id|auth|session|api)[_\-]?token|token|client[_\-]?secret|secret",
        env: "TOKEN|SECRET",
        value: TOKEN_VALUE,
    },
    Kind {
        name: "api-key",
        bare: r"api[_\-]?key|apikey|secret[_\-]?(?:access[_\-]?)?key|private[_\-]?key",
        json: r"api[_\-]?key|apikey|secret[_\-]?(?:access[_\-]?)?key|private[_\-]?key",
        flag: r"api[_\-]?key|apikey|secret[_\-]?key|private[_\-]?key",
        env: "API_?KEY|APIKEY|SECRET_KEY|SECRET_ACCESS_KEY|PRIVATE_KEY",
        value: TOKEN_VALUE,
    },
];

/// A value in double quotes (JSON escapes kept inside), single quotes, or bare.
const QUOTED_OR_BARE: &str = r#""(?:[^"\\\n]|\\.)*"|'[^'\n]*'|[^\s"']+"#;

/// The shapes each [`Kind`] is written in (`{P}`: [`KEY`] on its bare keys). A bare token
/// value ends where a value ends, not inside a handle (`token=android.os.BinderProxy@1`). The JSON shape also takes a bare key before a
/// double-quoted value (`password: "x y"` in YAML).
const SHAPES: &[&str] = &[
    // `token=v`, `token = v`, `token: v`, `'api_key': 'v'`, `token="v"`.
    r#"(?i){P}(?:[ \t\u{a0}]*=>?[ \t\u{a0}]*|['"]?[ \t\u{a0}]*:[ \t\u{a0}]*)(?P<secret>{V})(?:[\s"',;&)\]}>]|$)"#,
    // `token="v"`, `api_key => "v"`: the value inside the quotes, spaces included.
    r#"(?i){P}[ \t\u{a0}]*=>?[ \t\u{a0}]*"(?P<secret>(?:[^"\\\n]|\\.){8,})""#,
    // JSON inside a string, as logs print it: `{\"access_token\":\"v\"}`.
    r#"(?i)\\"[a-z0-9_.\-]*(?:{J})\\"[ \t]*:[ \t]*\\"(?P<secret>(?:[^"\\\n]|\\[^"\n])+)\\""#,
    // URL-encoded: `token%3Dv`, `%22access_token%22%3A%22v%22`.
    r#"(?i)(?:{J})(?:%3D|%22%3A%22|%22%3A%20%22)(?P<secret>[^&\s"'<>%]{8,}(?:%[0-9a-f]{2}[^&\s"'<>%]*)*?)(?:%22|&|\s|$)"#,
    // `<token>v</token>`, `<api_key>v</api_key>`.
    r#"(?i)<[a-z0-9_:\-]*(?:{J})>(?P<secret>[^<\n]+)</"#,
    // `"password": "v"`, `"accessToken": "v"`.
    r#"(?i)(?:"[a-z0-9_.\-]*(?:{J})"|{P})[ \t]*:[ \t]*"(?P<secret>(?:[^"\\\n]|\\.)+)""#,
    // `--password v`, `--api-key=v`.
    r#"(?im)(?:^|[\s"'])--?(?:{F})(?:[ \t]+|=)(?P<secret>{Q})"#,
    // `DB_PASSWORD="v"`, `export GITHUB_TOKEN=v`: upper case only, as variables are named.
    r#"\b[A-Z0-9_]*(?:{E})=(?P<secret>{Q})"#,
];

pub fn default_rules() -> Vec<RedactionRule> {
    let rule = |name: &str, pattern: String| RedactionRule {
        name: name.to_string(),
        pattern,
        scope: Scope::AgentOnly,
    };
    let mut out: Vec<RedactionRule> = RULES
        .iter()
        .map(|(name, pattern)| {
            rule(
                name,
                pattern.replace("{P}", &KEY.replace("{K}", PASSWORD_KEYS)),
            )
        })
        .collect();
    for k in KINDS {
        for (i, shape) in SHAPES.iter().enumerate() {
            if i == 0 && k.value.is_empty() {
                continue;
            }
            let p = shape
                .replace("{P}", KEY)
                .replace("{K}", k.bare)
                .replace("{J}", k.json)
                .replace("{F}", k.flag)
                .replace("{E}", k.env)
                .replace("{V}", k.value)
                .replace("{Q}", QUOTED_OR_BARE);
            out.push(rule(k.name, p));
        }
    }
    out
}

#[cfg(test)]
mod tests;
