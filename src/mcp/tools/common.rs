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
            DeviceError::NoDevice { .. } => ErrorKind::NotFound,
            _ => ErrorKind::Device,
        };
        ToolError::new(kind, e.to_string())
    }
}

/// The `serial` every device tool takes.
#[derive(Debug, Default, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SerialOnly {
    /// Device serial; default: the selected device, or the only one attached.
    pub serial: Option<String>,
}

/// A device as tools report it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DeviceRef {
    pub serial: String,
    pub state: String,
    pub model: Option<String>,
    pub server: String,
}

impl From<&DeviceEntry> for DeviceRef {
    fn from(e: &DeviceEntry) -> Self {
        DeviceRef {
            serial: e.serial.clone(),
            state: e.state.to_string(),
            model: e.model.clone(),
            server: e.server.to_string(),
        }
    }
}

impl Ctx {
    /// The default timeout for one device command.
    pub fn timeout(&self) -> Duration {
        Duration::from_millis(self.core.config().device.command_timeout_ms.max(100))
    }

    /// The device this call addresses: `serial` if given, else the selected one, else the only
    /// one attached. With several attached and none selected, refuses and names them.
    pub async fn device(&self, serial: Option<&str>) -> Result<Device, ToolError> {
        let dev = self.resolve_device(serial).await?;
        if let Ok(mut slot) = self.resolved_device.lock() {
            *slot = Some(dev.serial().to_string());
        }
        Ok(dev)
    }

    async fn resolve_device(&self, serial: Option<&str>) -> Result<Device, ToolError> {
        let devices = self.core.devices.current().await.map_err(ToolError::from)?;
        let known: Vec<String> = devices.iter().map(|d| d.serial.clone()).collect();
        let pick = |serial: &str| -> Result<Device, ToolError> {
            let entry = devices
                .iter()
                .find(|d| d.serial == serial || d.raw_serial == serial);
            match entry {
                None => Err(DeviceError::NoDevice {
                    serial: serial.to_string(),
                    known: known.clone(),
                }
                .into()),
                Some(e) => match &e.state {
                    DeviceState::Device => Ok(self.core.devices.device(&e.serial)),
                    DeviceState::Offline => Err(DeviceError::Offline {
                        serial: e.serial.clone(),
                    }
                    .into()),
                    DeviceState::Unauthorized => Err(DeviceError::Unauthorized {
                        serial: e.serial.clone(),
                    }
                    .into()),
                    other => Err(DeviceError::NotReady {
                        serial: e.serial.clone(),
                        state: other.to_string(),
                    }
                    .into()),
                },
            }
        };
        if let Some(s) = serial.filter(|s| !s.is_empty()) {
            return pick(s);
        }
        let selected = self
            .core
            .selected_device
            .read()
            .ok()
            .and_then(|s| s.clone());
        if let Some(s) = selected
            && known.contains(&s)
        {
            return pick(&s);
        }
        match devices.as_slice() {
            [] => Err(ToolError::new(
                ErrorKind::NotFound,
                "no device is attached: connect one (check `adb devices`), or start spock-tui with --demo",
            )),
            [only] => pick(&only.serial),
            several => Err(ToolError::new(
                ErrorKind::InvalidArguments,
                format!(
                    "{} devices are attached and none is selected: pass `serial` (one of {}) or call android_select_device",
                    several.len(),
                    known.join(", ")
                ),
            )
            .with_details(serde_json::json!({ "candidates": known }))),
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
