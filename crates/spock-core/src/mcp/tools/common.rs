//! What device tools share: resolving which device a call addresses, running commands under
//! the configured timeout and the call's cancellation, and turning device failures into tool
//! errors an agent can act on.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::device::{DeviceEntry, DeviceError, DeviceState};
use crate::mcp::result::{ErrorKind, ToolError};

impl From<DeviceError> for ToolError {
    fn from(e: DeviceError) -> Self {
        let kind = match e {
            DeviceError::Timeout { .. } => ErrorKind::Timeout,
            DeviceError::Cancelled => ErrorKind::Cancelled,
            DeviceError::NoDevice { .. } | DeviceError::Detached { .. } => ErrorKind::NotFound,
            DeviceError::Ambiguous { .. } => ErrorKind::InvalidArguments,
            _ => ErrorKind::Device,
        };
        let details = match &e {
            DeviceError::Ambiguous { candidates, .. } => {
                Some(serde_json::json!({ "candidates": candidates }))
            }
            _ => None,
        };
        let err = ToolError::new(kind, e.to_string());
        match details {
            Some(d) => err.with_details(d),
            None => err,
        }
    }
}

/// The `serial` every device tool takes.
#[derive(Debug, Default, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SerialOnly {
    /// Device serial (or serial@host:port); default: the selected device, or the only one attached.
    pub serial: Option<String>,
}

/// A device as tools report it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DeviceRef {
    /// The shortest name that is unique now: the serial, or `serial@host:port` while another
    /// adb server has the same serial.
    pub serial: String,
    /// `serial@host:port`: always accepted, always this device.
    pub id: String,
    /// adb's state word, or "unreachable" when its adb server is not answering.
    pub state: String,
    pub model: Option<String>,
    pub server: String,
    /// Why its adb server is not answering (with state "unreachable").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_error: Option<String>,
}

impl From<&DeviceEntry> for DeviceRef {
    fn from(e: &DeviceEntry) -> Self {
        DeviceRef {
            serial: e.serial.clone(),
            id: e.id.clone(),
            state: e.state.to_string(),
            model: e.model.clone(),
            server: e.server.to_string(),
            server_error: None,
        }
    }
}

impl DeviceRef {
    /// Every listed device, with the error of its server when that server is down.
    pub fn all(devices: &crate::device::Devices, entries: &[DeviceEntry]) -> Vec<DeviceRef> {
        let errors = devices.server_errors();
        entries
            .iter()
            .map(|e| {
                let mut r = DeviceRef::from(e);
                if e.state == DeviceState::Unreachable {
                    r.server_error = errors
                        .iter()
                        .find(|(s, _)| s == &e.server)
                        .map(|(_, m)| m.clone());
                }
                r
            })
            .collect()
    }
}
