//! What a tool's handler gets besides its arguments ([`Ctx`]), and who is calling
//! ([`Origin`]): the call's id, its origin, its cancellation, the device it resolved to or was
//! pinned to, whether a person approved it, the text it types, the file it sends; and every
//! method a handler calls on it (devices and shells with their timeouts, typed text settling).
//! One place, below the pipeline (`server`) and the tools, which both use it.
use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::core::Core;
use super::events::{ClientId, Decision, Outcome, ServerEvent, Transport};
use super::lease::Session;
use super::result::{ErrorKind, ToolError, ToolOutput};
use super::scrub::Scrub;
use super::typed_text::TypedText;
use crate::device::{Device, DeviceEntry, DeviceError, DeviceState, ShellOutput};

/// Who is calling and how, for one call.
#[derive(Debug, Clone)]
pub struct Origin {
    pub transport: Transport,
    pub client: Option<ClientId>,
    /// The client's connection, which device leases tell holders apart by; `None` for the
    /// control centre's own calls (a person is not held back by a lease).
    pub session: Option<Session>,
}

/// A finished call, as the pipeline reports it.
#[derive(Debug, Clone)]
pub struct CallOutcome {
    pub call_id: u64,
    pub outcome: Outcome,
    pub decision: Option<Decision>,
    pub result: Result<ToolOutput, ToolError>,
    /// The call's typed `text` is withheld (a password field, or one not known to be plain):
    /// records show it as «password».
    pub typed_password: bool,
    /// The call's audit record (its `seq`).
    pub record: u64,
    /// What the call's arguments hide from agents, to hide in the answer's messages too.
    pub for_agent: Scrub,
}

/// What a tool's handler receives besides its arguments.
#[derive(Clone)]
pub struct Ctx {
    pub core: Arc<Core>,
    pub call_id: u64,
    pub tool: &'static str,
    pub origin: Origin,
    pub cancel: CancellationToken,
    /// The device the call resolved to, for the activity view and the audit trail.
    pub resolved_device: Arc<std::sync::Mutex<Option<String>>>,
    /// The device a destructive call was pinned to before the person was asked (see
    /// [`Ctx::pin_device`]); every device use of the call goes to exactly that connection.
    pub pinned: Option<crate::device::Device>,
    /// Set for batch steps: the run they belong to.
    pub batch_run: Option<String>,
    /// A person approved this very call (a destructive tool, or a safe one's call escalated).
    pub approved: bool,
    /// The text this call types, withheld from every view until the tool finds the field is
    /// no password field ([`Ctx::typing_into`]).
    pub typed: Arc<TypedText>,
    /// The local file this call sends, read once by its checks, so what runs after a yes is
    /// exactly what the person was shown ([`super::staged`]).
    pub staged: super::staged::Slot,
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

    /// The device `serial` resolves to, once the device tree allows this call there.
    async fn resolve_device(&self, serial: Option<&str>) -> Result<DeviceEntry, ToolError> {
        let e = self.find_device(serial).await?;
        self.check_device_tree(&e.id).await?;
        Ok(e)
    }

    /// The device tree holds this call back: it is an agent's (the person's own calls are not
    /// held back) and the tree says something.
    fn tree_applies(&self) -> bool {
        self.origin.transport != crate::mcp::events::Transport::Tui
            && self.core.access.has_device_rules()
    }

    /// The person's own calls are not held back by the tree; agents' calls are, on the device
    /// they resolve to (by its identity, read if it is being read).
    async fn check_device_tree(&self, id: &str) -> Result<(), ToolError> {
        let access = &self.core.access;
        if !self.tree_applies() {
            return Ok(());
        }
        let Some(tool) = self.core.tool(self.tool) else {
            return Ok(());
        };
        let identity = crate::mcp::lease::identity(&self.core, id).await;
        access.check_device(&tool, id, identity.as_deref())
    }

    /// The call acts on `package`'s app (a node it found, or what its arguments name) on
    /// `dev`: refused when the device's Interact is limited to other apps.
    pub fn may_act_on_app(&self, dev: &Device, package: Option<&str>) -> Result<(), ToolError> {
        let access = &self.core.access;
        if !self.tree_applies() {
            return Ok(());
        }
        let identity = self.core.devices.identity(dev.serial());
        access.check_app(self.tool, dev.serial(), identity.as_deref(), package)
    }

    /// The device tree again before each device command of a call: a branch switched off while
    /// the call runs (a wait polling the screen, a long action) stops it at its next command.
    pub fn still_allowed_on(&self, dev: &Device) -> Result<(), ToolError> {
        let access = &self.core.access;
        if !self.tree_applies() {
            return Ok(());
        }
        let Some(tool) = self.core.tool(self.tool) else {
            return Ok(());
        };
        let identity = self.core.devices.identity(dev.serial());
        access.check_device(&tool, dev.serial(), identity.as_deref())
    }

    /// The call reads `dev`'s screen besides acting on it (an action's `returnScreen`): refused
    /// when the device's Inspect is off.
    pub fn may_inspect(&self, dev: &Device) -> Result<(), ToolError> {
        let access = &self.core.access;
        if !self.tree_applies() {
            return Ok(());
        }
        let identity = self.core.devices.identity(dev.serial());
        access.check_inspect(self.tool, dev.serial(), identity.as_deref())
    }

    async fn find_device(&self, serial: Option<&str>) -> Result<DeviceEntry, ToolError> {
        let devices = &self.core.devices;
        if let Some(s) = serial.filter(|s| !s.is_empty()) {
            let e = devices.find(s).await?;
            return Ok(usable(&e)?);
        }
        let selected = self.core.sessions.selections.get(&self.origin);
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
        self.still_allowed_on(dev)?;
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

impl Ctx {
    /// A text-typing tool found what its text goes into, before typing: see
    /// [`Self::typing_into_field`] for slot 0.
    pub fn typing_into(&self, password: Option<bool>) -> Result<(), ToolError> {
        self.typing_into_field(0, password)
    }

    /// A text-typing tool found what the text in slot `i` goes into, before typing it:
    /// `Some(true)` a password field (the text stays hidden everywhere), `Some(false)` any
    /// other field (the text is shown from now on), `None` it could not tell (the text stays
    /// hidden). A kept password (a batch step's private part) is refused anywhere but a
    /// password field.
    pub fn typing_into_field(&self, i: usize, password: Option<bool>) -> Result<(), ToolError> {
        if self.typed.is_kept(i) && password != Some(true) {
            return Err(ToolError::refused(match password {
                Some(_) => {
                    "this step types a kept password, and the field is no password field: \
                            nothing was typed (a password goes only where it is hidden)"
                }
                None => {
                    "this step types a kept password, and whether the focused field is a \
                         password field could not be told: nothing was typed"
                }
            }));
        }
        if let Some(arguments) = password.and_then(|p| self.typed.settle(i, p)) {
            self.core.emit(ServerEvent::CallArguments {
                call_id: self.call_id,
                arguments,
            });
        }
        Ok(())
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
