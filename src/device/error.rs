//! The one error type of the device layer. Every message is a sentence an agent (or the person
//! at the terminal) can act on, because tools hand these straight back as `isError` results.
use std::time::Duration;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DeviceError {
    #[error(
        "{what} timed out after {after:?}: the device or adb server is not answering; retry, or check `adb devices`"
    )]
    Timeout { what: String, after: Duration },
    #[error("{}", no_device_message(serial, known))]
    NoDevice { serial: String, known: Vec<String> },
    #[error("device {serial} is offline: reconnect it (or run `adb reconnect`) and retry")]
    Offline { serial: String },
    #[error(
        "device {serial} is unauthorized: accept the USB debugging prompt on the phone, then retry"
    )]
    Unauthorized { serial: String },
    #[error("device {serial} is {state}: wait until it is ready (state `device`) and retry")]
    NotReady { serial: String, state: String },
    #[error("serial {serial} is attached to several adb servers: name one of {}", candidates.join(", "))]
    Ambiguous {
        serial: String,
        candidates: Vec<String>,
    },
    #[error(
        "device {serial} went away during {what}: check the cable or `adb devices`, then retry"
    )]
    Lost { serial: String, what: String },
    #[error(
        "adb server at {server} is unreachable ({detail}): start it (`adb -P <port> start-server`) or check --adb / ANDROID_ADB_SERVER_PORT"
    )]
    ServerUnreachable { server: String, detail: String },
    #[error("adb refused the request: {0}")]
    Adb(String),
    #[error("unexpected reply from adb: {0}")]
    Protocol(String),
    #[error("output is larger than the {limit}-byte limit; narrow the request")]
    TooLarge { limit: u64 },
    #[error("I/O error talking to adb: {0}")]
    Io(String),
    #[error("the call was cancelled")]
    Cancelled,
}

fn no_device_message(serial: &str, known: &[String]) -> String {
    if known.is_empty() {
        format!("no device {serial}: no devices are attached; connect one and check `adb devices`")
    } else {
        format!(
            "no device {serial}: attached devices are {}",
            known.join(", ")
        )
    }
}

impl DeviceError {
    pub(crate) fn timeout(what: impl Into<String>, after: Duration) -> Self {
        DeviceError::Timeout {
            what: what.into(),
            after,
        }
    }
}

/// Runs `fut` under `after`, turning expiry into [`DeviceError::Timeout`] named `what`.
pub(crate) async fn bounded<T>(
    what: &str,
    after: Duration,
    fut: impl Future<Output = Result<T, DeviceError>>,
) -> Result<T, DeviceError> {
    match tokio::time::timeout(after, fut).await {
        Ok(r) => r,
        Err(_) => Err(DeviceError::timeout(what, after)),
    }
}
