//! [`SimDevice`]: the virtual device core behind both front doors. It owns one [`State`]
//! under a `std::sync::Mutex` that is held only for the duration of a synchronous step (never
//! across an await), built from a scenario file, a scenario string, or the embedded demo.
use std::path::Path;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use bytes::Bytes;

use super::scenario::{Scenario, ScenarioError};
use super::touch::Gesture;
use super::{BoxFuture, DeviceIdentity, FileStat, Framebuffer, FsError, ShellIo, Target};

mod appstate;
pub mod display;
pub mod gfx;
mod interact;
pub mod launcher;
pub mod logcat;
pub mod props;
pub mod run;
pub mod state;
pub mod ui;

#[cfg(test)]
mod tests;

pub use state::State;

static NEXT_SERIAL: AtomicU32 = AtomicU32::new(1);

/// The built-in demo scenario, embedded so the binary needs no files at run time.
const DEMO_TOML: &str = include_str!("../../../assets/demo/demo.toml");
const DEMO_FILES: &[(&str, &str)] = &[
    (
        "screens/launcher.xml",
        include_str!("../../../assets/demo/screens/launcher.xml"),
    ),
    (
        "screens/login.xml",
        include_str!("../../../assets/demo/screens/login.xml"),
    ),
    (
        "screens/home.xml",
        include_str!("../../../assets/demo/screens/home.xml"),
    ),
    (
        "screens/settings.xml",
        include_str!("../../../assets/demo/screens/settings.xml"),
    ),
    (
        "screens/cart.xml",
        include_str!("../../../assets/demo/screens/cart.xml"),
    ),
    (
        "screens/product.xml",
        include_str!("../../../assets/demo/screens/product.xml"),
    ),
    (
        "screens/product_added.xml",
        include_str!("../../../assets/demo/screens/product_added.xml"),
    ),
    (
        "screens/order_placed.xml",
        include_str!("../../../assets/demo/screens/order_placed.xml"),
    ),
    (
        "screens/notes.xml",
        include_str!("../../../assets/demo/screens/notes.xml"),
    ),
];

pub(crate) struct Inner {
    pub state: Mutex<State>,
    pub identity: DeviceIdentity,
}

impl Inner {
    pub fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock leaves plain data behind; keep serving it.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A virtual Android device. Cheap to clone (shared state).
#[derive(Clone)]
pub struct SimDevice {
    pub(crate) inner: Arc<Inner>,
}

impl std::fmt::Debug for SimDevice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SimDevice")
            .field("serial", &self.inner.identity.serial)
            .finish()
    }
}

/// A file the embedded demo scenario names, by its path relative to `demo.toml`.
fn demo_file(rel: &str) -> std::io::Result<Vec<u8>> {
    DEMO_FILES
        .iter()
        .find(|(n, _)| *n == rel)
        .map(|(_, c)| c.as_bytes().to_vec())
        .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::NotFound))
}

impl SimDevice {
    pub fn from_scenario_file(path: &Path) -> Result<SimDevice, ScenarioError> {
        Ok(SimDevice::from_scenario(Scenario::from_file(path)?))
    }

    /// Parses scenario text; files it names are read relative to `base_dir`.
    pub fn from_scenario_str(toml: &str, base_dir: &Path) -> Result<SimDevice, ScenarioError> {
        let base = base_dir.to_path_buf();
        let s = Scenario::parse(toml, "scenario.toml", &|rel| std::fs::read(base.join(rel)))?;
        Ok(SimDevice::from_scenario(s))
    }

    /// The embedded demo scenario: a shop app, a notes app and the Pixel launcher.
    pub fn demo() -> SimDevice {
        match Scenario::parse(DEMO_TOML, "assets/demo/demo.toml", &demo_file) {
            Ok(s) => SimDevice::from_scenario(s),
            // The demo is embedded and covered by tests; an empty device beats no device.
            Err(e) => {
                tracing::error!("embedded demo scenario is invalid: {e}");
                SimDevice::from_scenario(Scenario::empty())
            }
        }
    }

    pub fn from_scenario(scenario: Scenario) -> SimDevice {
        let serial = scenario
            .device
            .serial
            .clone()
            .unwrap_or_else(|| format!("sim-{}", NEXT_SERIAL.fetch_add(1, Ordering::Relaxed)));
        let d = &scenario.device;
        let home = match d.home.as_deref().and_then(|h| scenario.screen(h)) {
            Some(s) => s.clone(),
            None => launcher::generated_home(&scenario.apps, d.width, d.height),
        };
        let identity = DeviceIdentity {
            serial: serial.clone(),
            product: d.device.clone(),
            model: d.model.replace(' ', "_"),
            device: d.device.clone(),
        };
        let state = State::new(Arc::new(scenario), serial, home);
        SimDevice {
            inner: Arc::new(Inner {
                state: Mutex::new(state),
                identity,
            }),
        }
    }

    pub fn serial(&self) -> String {
        self.inner.identity.serial.clone()
    }

    /// (package, fully qualified activity) in the foreground.
    pub fn foreground(&self) -> (String, String) {
        self.inner.lock().foreground()
    }

    /// Id of the scenario screen on top.
    pub fn screen_id(&self) -> String {
        let st = self.inner.lock();
        st.top().map(|e| e.screen.clone()).unwrap_or_default()
    }

    pub fn is_installed(&self, package: &str) -> bool {
        self.inner.lock().installed.contains_key(package)
    }

    pub fn last_gesture(&self) -> Option<Gesture> {
        self.inner.lock().last_gesture.clone()
    }

    /// The current screen's uiautomator XML (with typed text and focus applied).
    pub fn ui_xml(&self) -> String {
        let st = self.inner.lock();
        st.top().map(|e| e.ui.xml().to_string()).unwrap_or_default()
    }

    /// Runs a closure on the state; for tests and tools that need more than the accessors.
    pub fn with_state<R>(&self, f: impl FnOnce(&mut State) -> R) -> R {
        f(&mut self.inner.lock())
    }
}

impl Target for SimDevice {
    fn identity(&self) -> DeviceIdentity {
        self.inner.identity.clone()
    }

    fn shell(&self, command: String, io: ShellIo) -> BoxFuture<i32> {
        let inner = self.inner.clone();
        Box::pin(async move { super::shell::run(inner, command, io).await })
    }

    fn stat(&self, path: &str) -> Result<FileStat, FsError> {
        self.inner.lock().fs.stat(path)
    }

    fn lstat(&self, path: &str) -> Result<FileStat, FsError> {
        self.inner.lock().fs.lstat(path)
    }

    fn list(&self, path: &str) -> Result<Vec<(String, FileStat)>, FsError> {
        self.inner.lock().fs.list(path)
    }

    fn read(&self, path: &str) -> Result<Bytes, FsError> {
        self.inner.lock().fs.read(path)
    }

    fn write(&self, path: &str, mode: u32, mtime: u32, data: Bytes) -> Result<(), FsError> {
        self.inner.lock().fs.write(path, mode, mtime, data)
    }

    fn push_file(&self, path: &str, mode: u32, mtime: u32, data: Bytes) -> Result<(), FsError> {
        self.inner.lock().fs.replace_file(path, mode, mtime, data)
    }

    fn framebuffer(&self) -> Framebuffer {
        let st = self.inner.lock();
        let (w, h) = st.display().size();
        let img = st.glass_image();
        Framebuffer {
            width: w,
            height: h,
            rgba: img.into_raw(),
        }
    }

    fn reboot(&self, _target: &str) {
        let mut st = self.inner.lock();
        let pkgs: Vec<String> = st.processes.keys().cloned().collect();
        for p in pkgs {
            st.force_stop(&p);
        }
        st.go_home();
        st.log.clear();
    }
}
