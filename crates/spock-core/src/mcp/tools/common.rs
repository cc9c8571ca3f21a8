//! What device tools share: resolving which device a call addresses, running commands under
//! the configured timeout and the call's cancellation, and turning device failures into tool
//! errors an agent can act on.
use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::device::{Device, DeviceEntry, DeviceError, DeviceState, ShellOutput};
use crate::mcp::result::{ErrorKind, ToolError};
use crate::mcp::server::Ctx;

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

/// A listed device, ready for a call: its state must be `device`.
fn usable(e: &DeviceEntry) -> Result<DeviceEntry, DeviceError> {
    match &e.state {
        DeviceState::Device => Ok(e.clone()),
        DeviceState::Offline => Err(DeviceError::Offline {
            serial: e.id.clone(),
        }),
        DeviceState::Unauthorized => Err(DeviceError::Unauthorized {
            serial: e.id.clone(),
        }),
        other => Err(DeviceError::NotReady {
            serial: e.id.clone(),
            state: other.to_string(),
        }),
    }
}

/// The selected device could not be used because it is gone: say so, and name it.
fn selected_gone(id: &str, e: DeviceError) -> ToolError {
    let why = match &e {
        DeviceError::DeviceUnreachable { server, detail, .. } => {
            format!("its adb server {server} is down: {detail}")
        }
        DeviceError::Detached {
            server, elsewhere, ..
        } if elsewhere.is_empty() => format!("it disconnected from adb server {server}"),
        DeviceError::Detached {
            server, elsewhere, ..
        } => format!(
            "it disconnected from adb server {server}; a different device with the same serial is attached as {}",
            crate::device::name_list(elsewhere)
        ),
        _ => return e.into(),
    };
    let kind = ToolError::from(e).kind;
    ToolError::new(
        kind,
        format!(
            "the selected device {id} is not attached ({why}): pass `serial`, or select another with android_select_device"
        ),
    )
    .with_details(serde_json::json!({ "selected": id }))
}

impl Ctx {
    /// Who reads this call's answer: the person for the control centre's own calls, an agent
    /// for everything else (MCP clients and batch runs, whose records agents can read).
    /// Whatever matches a caller's argument against hidden text uses this audience's view.
    pub fn audience(&self) -> crate::redact::Audience {
        if self.origin.transport == crate::mcp::events::Transport::Tui {
            crate::redact::Audience::Person
        } else {
            crate::redact::Audience::Agent
        }
    }

    /// The default timeout for one device command.
    pub fn timeout(&self) -> Duration {
        Duration::from_millis(self.core.config().device.command_timeout_ms.max(100))
    }

    /// The device this call addresses: `serial` if given, else the selected one, else the only
    /// one attached. With several attached and none selected, refuses and names them. The
    /// handle carries the device's full name, so the whole call stays on that device.
    ///
    /// A call pinned by the pipeline before it asked a person ([`Self::pin_device`]) gets the
    /// pinned device: exactly the connection shown when it was approved, whatever the selection
    /// or the serial's owner is now.
    pub async fn device(&self, serial: Option<&str>) -> Result<Device, ToolError> {
        if let Some(dev) = &self.pinned {
            return Ok(dev.clone());
        }
        let e = self.resolve_device(serial).await?;
        let dev = self.core.devices.device(&e.id);
        if let Ok(mut slot) = self.resolved_device.lock() {
            *slot = Some(dev.serial().to_string());
        }
        Ok(dev)
    }

    /// Resolves the device now (as [`Self::device`] would) and pins the rest of the call to it,
    /// down to its adb `transport_id`. The pipeline does this before asking a person, so what
    /// the person is shown is what runs; the entry is returned for showing it.
    pub async fn pin_device(&mut self, serial: Option<&str>) -> Result<DeviceEntry, ToolError> {
        let e = self.resolve_device(serial).await?;
        if let Ok(mut slot) = self.resolved_device.lock() {
            *slot = Some(e.id.clone());
        }
        self.pinned = Some(self.core.devices.pinned(&e));
        Ok(e)
    }

    /// Which device `serial` resolves to now, pinned or not (its full name): a call approved
    /// on a later request checks it is still the one shown.
    pub async fn resolution(&self, serial: Option<&str>) -> Result<String, ToolError> {
        self.resolve_device(serial).await.map(|e| e.id)
    }

    async fn resolve_device(&self, serial: Option<&str>) -> Result<DeviceEntry, ToolError> {
        let devices = &self.core.devices;
        if let Some(s) = serial.filter(|s| !s.is_empty()) {
            let e = devices.find(s).await?;
            return Ok(usable(&e)?);
        }
        let selected = self.core.selections.get(&self.origin);
        if let Some(id) = selected {
            // Pinned: the selected device or an error naming it, never another device.
            return match devices.find(&id).await {
                Ok(e) => Ok(usable(&e)?),
                Err(e) => Err(selected_gone(&id, e)),
            };
        }
        let listed = devices.list().await?;
        match listed.as_slice() {
            [] => Err(ToolError::new(
                ErrorKind::NotFound,
                "no device is attached: connect one (check `adb devices`), or start spock-tui with --demo",
            )),
            [only] => Ok(usable(only)?),
            several => {
                let names: Vec<String> = several.iter().map(|d| d.serial.clone()).collect();
                let stateless = self
                    .origin
                    .session
                    .as_ref()
                    .is_some_and(|s| s.is_stateless());
                let or = if stateless {
                    " (a stateless request keeps no selection, so each call names its device)"
                } else {
                    " or call android_select_device"
                };
                Err(ToolError::new(
                    ErrorKind::InvalidArguments,
                    format!(
                        "{} devices are attached and none is selected: pass `serial` (one of {}){or}",
                        several.len(),
                        crate::device::name_list(&names)
                    ),
                )
                .with_details(serde_json::json!({ "candidates": names })))
            }
        }
    }

    /// Run a shell command under the configured timeout and this call's cancellation.
    pub async fn sh(&self, dev: &Device, cmd: &str) -> Result<ShellOutput, ToolError> {
        self.sh_timeout(dev, cmd, self.timeout()).await
    }

    pub async fn sh_timeout(
        &self,
        dev: &Device,
        cmd: &str,
        timeout: Duration,
    ) -> Result<ShellOutput, ToolError> {
        dev.shell_with_cancel(cmd, timeout, self.cancel.clone())
            .await
            .map_err(ToolError::from)
    }

    /// Run and require exit code 0; the error carries what the device printed.
    pub async fn sh_ok(&self, dev: &Device, cmd: &str) -> Result<String, ToolError> {
        let out = self.sh(dev, cmd).await?;
        if out.success() {
            return Ok(out.stdout_text());
        }
        let first = |s: String| s.trim().lines().next().unwrap_or("").to_string();
        let msg = first(out.stderr_text());
        let msg = if msg.is_empty() {
            first(out.stdout_text())
        } else {
            msg
        };
        Err(ToolError::device(format!(
            "`{cmd}` failed on {} (exit {}): {msg}",
            dev.serial(),
            out.exit_code
        )))
    }
}
