//! Each shape a password, token or API key is written in, with values as they are seen in
//! the wild; and the shapes' near misses from the real captures, which must stay whole.
use super::super::{Audience, Redactor};

fn agent(s: &str) -> String {
    Redactor::with_defaults()
        .redact_str(s, Audience::Agent)
        .into_owned()
}

fn hides(cases: &[(&str, &str)]) {
    let r = Redactor::with_defaults();
    for (input, want) in cases {
        assert_eq!(r.redact_str(input, Audience::Agent), *want, "{input}");
        // The person at the terminal sees the original.
        assert_eq!(r.redact_str(input, Audience::Person), *input);
    }
}

#[test]
fn passwords_in_every_shape() {
    hides(&[
        (
            r#"D/OkHttp: {"username":"bob@example.com","password":"Tr0ub4dor&3"}"#,
            r#"D/OkHttp: {"username":"bob@example.com","password":"«redacted:password»"}"#,
        ),
        (
            r#"{ "newPassword": "correct horse battery staple", "remember": true }"#,
            r#"{ "newPassword": "«redacted:password»", "remember": true }"#,
        ),
        (
            r#"{"password": "with \"quotes\" inside"}"#,
            r#"{"password": "«redacted:password»"}"#,
        ),
        ("password: hunter2", "password: «redacted:password»"),
        (
            "  db_password: s3cr3t-Pa55 # prod",
            "  db_password: «redacted:password» # prod",
        ),
        (
            r#"spring.datasource.password: "p@ss w0rd""#,
            r#"spring.datasource.password: "«redacted:password»""#,
        ),
        (
            "{'user': 'bob', 'password': 'hunter2'}",
            "{'user': 'bob', 'password': «redacted:password»}",
        ),
        (
            "mysql -u root --password hunter2 shop",
            "mysql -u root --password «redacted:password» shop",
        ),
        (
            r#"cli login --password "two words""#,
            "cli login --password «redacted:password»",
        ),
        ("PASSWORD=hunter2", "PASSWORD=«redacted:password»"),
        (
            "MYSQL_ROOT_PASSWORD=Sup3rS3cret!",
            "MYSQL_ROOT_PASSWORD=«redacted:password»",
        ),
        (
            r#"export DB_PASSWORD="two words""#,
            "export DB_PASSWORD=«redacted:password»",
        ),
        (
            "POST /login user=bob&password=hunter2",
            "POST /login user=bob&password=«redacted:password»",
        ),
    ]);
}

#[test]
fn tokens_in_every_shape() {
    hides(&[
        (
            r#"{"access_token":"ya29.a0AfH6SMBx3Zq","token_type":"Bearer","expires_in":3599}"#,
            r#"{"access_token":"«redacted:token»","token_type":"Bearer","expires_in":3599}"#,
        ),
        (
            r#"{"accessToken": "8f14e45fceea167a5a36dedd4bea2543", "refreshToken": "r1.Qm9i"}"#,
            r#"{"accessToken": "«redacted:token»", "refreshToken": "«redacted:token»"}"#,
        ),
        (
            r#"{"client_secret": "GOCSPX-1a2b3c4d5e6f"}"#,
            r#"{"client_secret": "«redacted:token»"}"#,
        ),
        (
            "I/Auth: refresh ok token=8f14e45fceea167a5a36dedd4bea2543 uid=42",
            "I/Auth: refresh ok token=«redacted:token» uid=42",
        ),
        (
            "X-Auth-Token: 3c6e0b8a9c15224a8228b9a98ca1531d",
            "X-Auth-Token: «redacted:token»",
        ),
        (
            "session_token: Fe26.2.0cdd2b1c4f",
            "session_token: «redacted:token»",
        ),
        (
            "client_secret=GOCSPX-1a2b3c4d5e6f",
            "client_secret=«redacted:token»",
        ),
        (
            "gh auth login --token 0a1b2c3d4e5f6a7b8c9d",
            "gh auth login --token «redacted:token»",
        ),
        (
            "tool --access-token=abc.def.ghi123",
            "tool --access-token=«redacted:token»",
        ),
        ("SLACK_TOKEN=xoxb-1234", "SLACK_TOKEN=«redacted:token»"),
        (
            r#"export CLIENT_SECRET="a b c""#,
            "export CLIENT_SECRET=«redacted:token»",
        ),
        (
            "Authorization: Bearer 3c6e0b8a9c15224a8228b9a98ca1531d",
            "Authorization: Bearer «redacted:bearer»",
        ),
        (
            "Authorization: Basic Ym9iOmh1bnRlcjI=",
            "Authorization: Basic «redacted:authorization»",
        ),
    ]);
}

#[test]
fn api_keys_in_every_shape() {
    hides(&[
        (
            r#"{"apiKey": "sk_live_51H8xYzAbCdEf", "currency": "eur"}"#,
            r#"{"apiKey": "«redacted:api-key»", "currency": "eur"}"#,
        ),
        (
            "GET /v1/weather api_key=9f86d081884c7d65",
            "GET /v1/weather api_key=«redacted:api-key»",
        ),
        (
            "x-api-key: 9f86d081884c7d659a2feaa0",
            "x-api-key: «redacted:api-key»",
        ),
        ("apikey: 'AbCdEf123456'", "apikey: «redacted:api-key»"),
        (
            "curl --api-key 9f86d081884c7d65 https://x",
            "curl --api-key «redacted:api-key» https://x",
        ),
        (
            "OPENWEATHER_API_KEY=9f86d081884c7d65",
            "OPENWEATHER_API_KEY=«redacted:api-key»",
        ),
        ("APIKEY=abc", "APIKEY=«redacted:api-key»"),
    ]);
}

/// The near misses, each as a real capture under `tests/fixtures/` has it: handles, flags and
/// counters named like credentials.
#[test]
fn what_only_looks_like_a_credential_is_left_alone() {
    for s in [
        // uiautomator
        r#"<node password="false" selected="false" bounds="[0,0][10,10]"/>"#,
        // dumpsys window / input / activity / wifi
        "token=0xb400006fdebd3c50, touchOcclusionMode=BLOCK_UNTRUSTED",
        "inputConfig=0x0 token=<null>, touchableRegion=<empty>",
        "appTokens=[AppWindowToken{e1f4f51 token=Token{6733ec7 ActivityRecord{2",
        "mToken=WindowToken{e9df92 type=2000 android.os.BinderProxy@1}",
        "hasToken=<null>, forwardingWindowToken=0x0",
        "token=WCT{android.window.IWindowContainerToken$Stub$Proxy@1}",
        "token=628",
        "ConsecutiveWrongPassword: 0",
        "android.permission.USE_CREDENTIALS: granted=true",
        "AuthAlgorithms: OPEN",
        "mQosRequestDialogToken: 0",
        // prose and log tags
        "D/TokenRefresher: scheduling refresh in 300s",
        "Forgot password?",
        "Enter your password",
    ] {
        assert_eq!(agent(s), s);
    }
}

/// The black-box review of issue 32 (`docs/reviews/issue-32/`): shapes the first rules left
/// whole, each as the agent got it from logcat, a UI tree or a pulled file.
#[test]
fn the_reviewers_shapes_are_hidden() {
    hides(&[
        (
            r#"password="QN1secretA""#,
            r#"password="«redacted:password»""#,
        ),
        (r#"token="QN3secretCC""#, r#"token="«redacted:token»""#),
        (r#"secret="QN4secretD""#, r#"secret="«redacted:token»""#),
        (r#"api_key="QN6secretF""#, r#"api_key="«redacted:api-key»""#),
        (
            r#"client_secret="QA10 partB10""#,
            r#"client_secret="«redacted:token»""#,
        ),
        (
            r#"PASSWORD = "QA15 partB15""#,
            r#"PASSWORD = "«redacted:password»""#,
        ),
        ("password = PW11secretK", "password = «redacted:password»"),
        (
            "password\t=\tPW17secretAG",
            "password\t=\t«redacted:password»",
        ),
        (
            "password:\u{a0}PW47secretAL",
            "password:\u{a0}«redacted:password»",
        ),
        (
            r#"password => "PW05secretE""#,
            r#"password => "«redacted:password»""#,
        ),
        (r"password=QA12\ partB12", r"password=«redacted:password»"),
        (
            r#"{\"password\":\"PW09secretI\"}"#,
            r#"{\"password\":\"«redacted:password»\"}"#,
        ),
        (
            r#"{\"access_token\":\"PW15secretOO\"}"#,
            r#"{\"access_token\":\"«redacted:token»\"}"#,
        ),
        (
            "<password>PW06secretF</password>",
            "<password>«redacted:password»</password>",
        ),
        (
            "login?user=bob&password%3DPW01secretA",
            "login?user=bob&password%3D«redacted:password»",
        ),
        (
            "body=%7B%22access_token%22%3A%22PW15secretO%22%7D",
            "body=%7B%22access_token%22%3A%22«redacted:token»%22%7D",
        ),
        ("Cookie: session=PW13secretM", "Cookie: «redacted:cookie»"),
        (
            "AWS_SECRET_ACCESS_KEY=PW26secretAC",
            "AWS_SECRET_ACCESS_KEY=«redacted:api-key»",
        ),
        ("private_key=PW25secretAE", "private_key=«redacted:api-key»"),
    ]);
}
