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
    #[error(
        "serial {serial} is attached to several adb servers: name one of {}",
        some(candidates)
    )]
    Ambiguous {
        serial: String,
        candidates: Vec<String>,
    },
    /// The device is listed, but its adb server is not answering (stopped, crashed, frozen, or
    /// the network to it is down). The one wording for "its server is gone", whenever it is
    /// noticed: before a call, or in the middle of one.
    #[error(
        "device {device} is unreachable: its adb server {server} is not answering ({detail}); spock-tui keeps retrying that server in the background, retry later"
    )]
    DeviceUnreachable {
        device: String,
        server: String,
        detail: String,
    },
    /// The device was attached to a server that still answers, and is not any more.
    #[error("{}", detached_message(device, server, elsewhere))]
    Detached {
        device: String,
        server: String,
        /// Full names of devices with the same serial on other servers (never used silently).
        elsewhere: Vec<String>,
    },
    #[error(
        "device {serial} went away during {what}: check the cable or `adb devices`, then retry"
    )]
    Lost { serial: String, what: String },
    #[error(
        "adb server at {server} is unreachable ({detail}): check that it runs (`adb -P <port> start-server` on its machine, or `adb -L localfilesystem:<path> start-server`) and --adb / ADB_SERVER_SOCKET / ANDROID_ADB_SERVER_PORT"
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
    /// The call was pinned to one connection of a device (its adb `transport_id`, as shown
    /// when it was approved), and that connection is gone: nothing runs on whatever has the
    /// name now.
    #[error("{}", pinned_gone_message(device, *transport_id, now))]
    PinnedGone {
        device: String,
        transport_id: u64,
        /// What has the name now, when something does (another connection, another phone).
        now: Option<String>,
    },
}

fn pinned_gone_message(device: &str, transport_id: u64, now: &Option<String>) -> String {
    let mut m = format!(
        "the device shown when you approved is gone: {device} (adb transport_id {transport_id}) is no longer attached, so nothing was run"
    );
    if let Some(now) = now {
        m.push_str(&format!(
            "; {now} now has that name (another connection, possibly another phone): call again to be asked about it"
        ));
    }
    m
}

/// How many names an error message lists before "and N more".
pub const NAMES_IN_MESSAGES: usize = 5;

/// `a, b, c, d, e and 3 more`: at most [`NAMES_IN_MESSAGES`] names, so an error on a lab of
/// dozens of devices stays one readable line.
pub fn some(names: &[String]) -> String {
    if names.len() <= NAMES_IN_MESSAGES {
        return names.join(", ");
    }
    format!(
        "{} and {} more",
        names[..NAMES_IN_MESSAGES].join(", "),
        names.len() - NAMES_IN_MESSAGES
    )
}

fn no_device_message(serial: &str, known: &[String]) -> String {
    if known.is_empty() {
        format!("no device {serial}: no devices are attached; connect one and check `adb devices`")
    } else {
        format!(
            "no device {serial}: attached devices are {} (android_list_devices lists them)",
            some(known)
        )
    }
}

fn detached_message(device: &str, server: &str, elsewhere: &[String]) -> String {
    let mut m = format!(
        "device {device} is no longer attached to adb server {server} (it disconnected): reconnect it and retry"
    );
    if !elsewhere.is_empty() {
        m.push_str(&format!(
            "; a different device with the same serial is attached as {}: name it that way to use it",
            some(elsewhere)
        ));
    }
    m
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_in_messages_are_capped() {
        let names: Vec<String> = (1..=8).map(|i| format!("s{i}")).collect();
        assert_eq!(some(&names[..2]), "s1, s2");
        assert_eq!(some(&names), "s1, s2, s3, s4, s5 and 3 more");
        let e = DeviceError::NoDevice {
            serial: "x".into(),
            known: names,
        };
        assert_eq!(
            e.to_string(),
            "no device x: attached devices are s1, s2, s3, s4, s5 and 3 more (android_list_devices lists them)"
        );
    }
}
