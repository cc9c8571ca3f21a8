//! `ServerEvent`s: what the control centre and the audit trail learn about, on one broadcast
//! channel. Producers never wait on consumers; a lagging consumer loses old events, not calls.
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::Value;

use crate::model::Level;
pub use crate::model::{ClientId, DecidedBy, Decision, Outcome, Transport};

/// An image a call returned, for the control centre: the person's copy, whole where the
/// agent's had parts blacked out (`redact`'s image rules; agents, the audit trail and batch
/// runs only ever get the blacked-out one). The bytes are shared by every subscriber of the
/// event, not copied; on the wire (the attach channel) they are base64.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct CallImage {
    pub mime: String,
    #[serde(with = "base64_bytes")]
    pub data: std::sync::Arc<[u8]>,
}

mod base64_bytes {
    use base64::Engine as _;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(b: &std::sync::Arc<[u8]>, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&base64::engine::general_purpose::STANDARD.encode(b))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<std::sync::Arc<[u8]>, D::Error> {
        let text = String::deserialize(d)?;
        base64::engine::general_purpose::STANDARD
            .decode(text.as_bytes())
            .map(Into::into)
            .map_err(serde::de::Error::custom)
    }
}

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
        /// The person's own act (a call, or a step of a batch run, started at a control
        /// centre); false for every MCP client, whatever it calls itself.
        person: bool,
    },
    /// A running call's arguments as the person may now see them: text it types, withheld when
    /// the call started, once the field is known to be no password field ([`super::typed_text`]).
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
        /// The result's JSON (`structuredContent`), redacted for the person.
        result: Value,
        /// The images the tool returned beside the JSON, as the person may see them.
        images: Vec<CallImage>,
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
}

mod duration_ms {
    use serde::Serializer;
    use std::time::Duration;
    pub fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_f64(d.as_secs_f64() * 1000.0)
    }
}
