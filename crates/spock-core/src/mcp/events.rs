//! `ServerEvent`s: what the control centre and the audit trail learn about, on one broadcast
//! channel. Producers never wait on consumers; a lagging consumer loses old events, not calls.
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::Value;

use crate::model::Level;
pub use crate::model::{ClientId, DecidedBy, Decision, Outcome, Transport};

#[derive(Debug, Clone, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum ServerEvent {
    ClientIdentified {
        transport: Transport,
        client: ClientId,
        protocol: String,
    },
    CallStarted {
        call_id: u64,
        at: DateTime<Utc>,
        tool: String,
        level: Level,
        transport: Transport,
        client: Option<ClientId>,
        device: Option<String>,
        arguments: Value,
    },
    /// A running call's arguments as the person may now see them: text it types, withheld when
    /// the call started, once the field is known to be no password field ([`super::typed`]).
    CallArguments {
        call_id: u64,
        arguments: Value,
    },
    CallFinished {
        call_id: u64,
        tool: String,
        outcome: Outcome,
        #[serde(with = "duration_ms")]
        duration: Duration,
        decision: Option<Decision>,
        /// The device the call resolved to (when it addressed one).
        device: Option<String>,
        result: Value,
        /// The call's audit record (its `seq`): how History finds what the store keeps beside it.
        record: u64,
    },
    ServerStateChanged {
        running: bool,
    },
    /// The selected device changed.
    DevicesChanged,
    /// A device arrived, changed state or left; an adb server went down or came back.
    Device {
        change: crate::device::DeviceEvent,
    },
    /// A device lease was taken, released, expired or broken.
    LeasesChanged,
    /// A control-centre screen change asked for by `spock_navigate`.
    Navigate {
        screen: String,
        select: Option<String>,
    },
}

mod duration_ms {
    use serde::Serializer;
    use std::time::Duration;
    pub fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(d.as_secs_f64() * 1000.0)
    }
}
