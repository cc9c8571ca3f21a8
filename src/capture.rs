//! `spock-tui doctor --capture DIR`: a connected phone's answers to the commands the product
//! relies on, read-only, scrubbed, as a bundle `spock-tui sim --replay DIR` serves back.
//!
//! The capture runs the product's own read tools through its own call pipeline on a private
//! core (its audit and state in a temporary directory, nothing of the person's written), with
//! the device layer recording every command and answer ([`spock_core::device::record`]); then
//! a few reads no read tool makes (the touch panel and `input` state the gestures read, the
//! screen size, screencap's header). Every output and answer is scrubbed ([`scrub`]) and the
//! bundle says what was replaced and what was kept. Nothing is sent to the phone that changes
//! it: every tool is a read (`Level::ReadOnly`), checked before it runs.
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, bail};
use serde_json::{Value, json};
use spock_core::device::record::{Recorded, Recorder};
use spock_core::device::{AdbEndpoint, DeviceState};
use spock_core::mcp::Core;
use spock_core::mcp::events::Transport;
use spock_core::mcp::registry::Level;
use spock_core::mcp::server::{CallRequest, Origin};
use spock_core::redact::Audience;
use spock_sim::replay::{Bundle, BundleDevice, Call, Command, FORMAT};

pub mod scrub;

use scrub::Scrubber;

/// The reads a capture makes besides the tools': what the gestures and the screenshot read.
const RAW_READS: &[&str] = &["getevent -lp", "dumpsys input", "wm size", "wm density"];

/// screencap's header (width, height, pixel format, colour space: four little-endian u32s),
/// all a bundle keeps of the frame.
const SCREENCAP_HEADER: usize = 16;

/// What the capture keeps as captured, in words, for the person who sends it.
const KEPT: &[&str] = &[
    "the current screen as the UI dump shows it (app texts, labels, layout): look at the \
     android_get_ui_tree answer before you send the bundle, and capture on a screen without \
     private content",
    "the model, manufacturer, Android version, build fingerprint and every other property \
     but those replaced",
    "installed package names, running processes, the focused activity and its stack",
    "the last 200 log lines (their messages, with the values above replaced)",
    "battery, screen size and density, the touch panel's description, network state (addresses \
     replaced), and screencap's header (the frame's size and format; never the image)",
    "each command's exit code and how long it took",
];

/// The read tools a capture calls, with their arguments (the device's `serial` is added when
/// the capture had to name it).
fn reads(package: Option<&str>) -> Vec<(&'static str, Value)> {
    let mut v = vec![
        ("android_list_devices", json!({})),
        ("android_get_device_info", json!({})),
        ("android_get_screen_info", json!({})),
        ("android_get_current_activity", json!({})),
        ("android_get_activity_stack", json!({})),
        ("android_get_ui_tree", json!({})),
        ("android_list_packages", json!({})),
        ("android_get_logcat", json!({"lines": 200})),
        ("android_get_processes", json!({})),
        ("android_get_battery_info", json!({})),
        ("android_get_network_info", json!({})),
    ];
    if let Some(p) = package {
        v.push(("android_get_package_info", json!({ "packageName": p })));
    }
    v
}

/// Where the capture came from and where it goes.
pub struct Request<'a> {
    pub dir: &'a Path,
    pub adb: Vec<AdbEndpoint>,
    /// The device to capture; needed when several are connected.
    pub serial: Option<String>,
    pub config: spock_core::config::Config,
}

/// What a capture printed: the summary for the person.
pub struct Captured {
    pub text: String,
}

pub async fn capture(req: Request<'_>) -> anyhow::Result<Captured> {
    if req.dir.join(spock_sim::replay::FILE).exists() {
        bail!(
            "{} already holds a capture: name a new directory",
            req.dir.display()
        );
    }
    let tmp = tempfile::tempdir().context("a temporary directory for the capture's own state")?;
    let core = crate::app::build_core(crate::app::Options {
        paths: spock_core::config::paths::Paths::under(tmp.path()),
        config: req.config.clone(),
        allow_all: true,
        logs: spock_core::mcp::logbuf::LogBuffer::new(200),
        adb: req.adb.clone(),
        projects: vec![],
        autostart_adb: false,
        adb_explicit: true,
    })?;
    let entry = pick_device(&core, req.serial.as_deref()).await?;
    let recorder = Arc::new(Recorder::default());
    core.devices.record_to(recorder.clone());
    let named = req.serial.is_some();
    let with_serial = |mut args: Value| {
        if named && let Some(o) = args.as_object_mut() {
            o.insert("serial".into(), Value::String(entry.id.clone()));
        }
        args
    };
    let mut calls = Vec::new();
    let mut package = None;
    for (tool, args) in reads(None) {
        let call = read(&core, tool, with_serial(args)).await?;
        if tool == "android_get_current_activity" {
            package = call.answer["package"].as_str().map(str::to_string);
        }
        calls.push(call);
    }
    if let Some(p) = package.as_deref() {
        let (tool, args) = reads(Some(p)).pop().expect("the package read");
        calls.push(read(&core, tool, with_serial(args)).await?);
    }
    let dev = core.devices.pinned(&entry);
    for line in RAW_READS {
        // Recorded by the device layer, answered or not.
        let _ = dev.shell(line, Duration::from_secs(20)).await;
    }
    let _ = dev
        .exec_out("screencap", Duration::from_secs(20), 256 << 20)
        .await;
    // What the redaction rules hide from agents (an API key on the screen, a token in the
    // log) is hidden in the raw outputs too, as the answers already hide it.
    let recorded = recorder
        .take()
        .into_iter()
        .map(|mut r| {
            if let Ok(text) = std::str::from_utf8(&r.stdout) {
                let text = if r.command.starts_with("uiautomator dump") {
                    password_fields_masked(text)
                } else {
                    text.to_string()
                };
                r.stdout = core
                    .redactor
                    .redact_str(&text, Audience::Agent)
                    .into_owned()
                    .into_bytes();
            }
            let err = String::from_utf8_lossy(&r.stderr);
            r.stderr = core
                .redactor
                .redact_str(&err, Audience::Agent)
                .into_owned()
                .into_bytes();
            r
        })
        .collect();
    let bundle = scrubbed(&entry, calls, recorded);
    let (dir, written) = (req.dir.to_path_buf(), bundle.clone());
    tokio::task::spawn_blocking(move || -> anyhow::Result<()> {
        written.write(&dir)?;
        std::fs::write(dir.join("README.txt"), readme(&written))?;
        Ok(())
    })
    .await??;
    Ok(Captured {
        text: summary(&bundle, req.dir),
    })
}

async fn pick_device(
    core: &Arc<Core>,
    serial: Option<&str>,
) -> anyhow::Result<spock_core::device::DeviceEntry> {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let listed = core.devices.list().await.unwrap_or_default();
        let ready: Vec<_> = listed
            .into_iter()
            .filter(|e| e.state == DeviceState::Device)
            .collect();
        let chosen: Vec<_> = match serial {
            Some(s) => ready
                .iter()
                .filter(|e| e.id == s || e.serial == s || e.raw_serial == s)
                .cloned()
                .collect(),
            None => ready.clone(),
        };
        match chosen.as_slice() {
            [one] => return Ok(one.clone()),
            [] if tokio::time::Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(200)).await
            }
            [] => bail!(match serial {
                Some(s) => format!("no device {s} is connected and ready"),
                None => "no device is connected and ready (see `spock-tui doctor`)".into(),
            }),
            many => bail!(
                "{} devices are connected: name one with --serial ({})",
                many.len(),
                many.iter()
                    .map(|e| e.id.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
}

/// One read tool's call, answered as an agent reads it.
async fn read(core: &Arc<Core>, tool: &'static str, args: Value) -> anyhow::Result<Call> {
    let def = core
        .tool(tool)
        .with_context(|| format!("{tool} is not in this build"))?;
    // A capture changes nothing on the phone.
    if def.level != Level::ReadOnly {
        bail!("{tool} is not a read");
    }
    let origin = Origin {
        transport: Transport::Stdio,
        client: None,
        session: None,
    };
    let done = CallRequest::new(origin, tool, args.clone())
        .run(core)
        .await
        .with_context(|| format!("{tool} did not run"))?;
    Ok(match done.result {
        Ok(mut out) => {
            done.for_agent.json(&mut out.json);
            core.redactor.redact_json(&mut out.json, Audience::Agent);
            spock_core::redact::redact_password_nodes(&mut out.json, Audience::Agent);
            Call {
                tool: tool.into(),
                arguments: args,
                answer: out.json,
                error: None,
            }
        }
        Err(e) => Call {
            tool: tool.into(),
            arguments: args,
            answer: Value::Null,
            error: Some(e.message),
        },
    })
}

/// A UI dump with the text of every password field shown as bullets, one per character (a
/// phone shows it so; a build that reports the text itself must not put it in a bundle).
fn password_fields_masked(xml: &str) -> String {
    static NODE: std::sync::OnceLock<(regex::Regex, regex::Regex)> = std::sync::OnceLock::new();
    let (node, text) = NODE.get_or_init(|| {
        (
            regex::Regex::new(r#"<node[^>]*password="true"[^>]*>"#).expect("fixed"),
            regex::Regex::new(r#"text="([^"]*)""#).expect("fixed"),
        )
    });
    node.replace_all(xml, |c: &regex::Captures| {
        text.replace(&c[0], |t: &regex::Captures| {
            let n = scrub::decode_entities(&t[1]).chars().count();
            format!("text=\"{}\"", "•".repeat(n))
        })
        .into_owned()
    })
    .into_owned()
}

/// The bundle, every text of it scrubbed of what the texts themselves show to be identifying.
fn scrubbed(
    entry: &spock_core::device::DeviceEntry,
    mut calls: Vec<Call>,
    recorded: Vec<Recorded>,
) -> Bundle {
    let mut s = Scrubber::default();
    s.known("serial", &entry.raw_serial);
    // A device on the network is named by its address and port.
    if let Some((host, _)) = entry.raw_serial.rsplit_once(':') {
        s.known("ip", host);
    }
    for r in &recorded {
        // The boot ID names this boot of this phone; it is a bare UUID nothing else marks.
        if r.command.trim() == "cat /proc/sys/kernel/random/boot_id" {
            s.known("id", String::from_utf8_lossy(&r.stdout).trim());
        }
        s.learn(&r.command);
        s.learn(&String::from_utf8_lossy(&r.stdout));
        s.learn(&String::from_utf8_lossy(&r.stderr));
    }
    for c in &calls {
        s.learn(&c.answer.to_string());
        s.learn(&c.arguments.to_string());
        if let Some(e) = &c.error {
            s.learn(e);
        }
    }
    for c in &mut calls {
        s.apply_json(&mut c.answer);
        s.apply_json(&mut c.arguments);
        c.error = c.error.as_deref().map(|e| s.apply(e));
    }
    let commands = recorded
        .iter()
        .map(|r| {
            let mut c = Command {
                command: s.apply(&r.command),
                exec: r.exec,
                exit: r.exit,
                ms: r.took.as_millis() as u64,
                stdout: String::new(),
                stdout_base64: None,
                stderr: s.apply(&String::from_utf8_lossy(&r.stderr)),
                error: r.error.as_deref().map(|e| s.apply(e)),
            };
            if r.exec && r.command == "screencap" {
                // A frame is not kept, only its header: the image could show anything.
                c.set_stdout(&r.stdout[..r.stdout.len().min(SCREENCAP_HEADER)]);
            } else {
                match std::str::from_utf8(&r.stdout) {
                    Ok(text) => c.set_stdout(s.apply(text).as_bytes()),
                    // Other binary output is not kept either.
                    Err(_) => c.set_stdout(&[]),
                }
            }
            c
        })
        .collect();
    let name = |v: &Option<String>| s.apply(v.as_deref().unwrap_or(""));
    Bundle {
        format: FORMAT,
        captured_by: format!("spock-tui {}", env!("CARGO_PKG_VERSION")),
        captured_at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        device: BundleDevice {
            serial: s.apply(&entry.raw_serial),
            product: name(&entry.product),
            model: name(&entry.model),
            device: name(&entry.device),
        },
        scrubbed: s.report(),
        kept: KEPT.iter().map(|k| k.to_string()).collect(),
        calls,
        commands,
    }
}

/// The list of what was replaced and what was kept, as the person reads it.
fn what(bundle: &Bundle) -> String {
    let mut out = String::from("Replaced (each value by a placeholder of its kind):\n");
    for (kind, words) in scrub::KINDS {
        let n = bundle
            .scrubbed
            .iter()
            .find(|r| r.kind == *kind)
            .map_or(0, |r| r.count);
        out.push_str(&format!("  {words}: {n}\n"));
    }
    out.push_str(
        "  and whatever your redaction rules hide from agents, hidden in every output as in \
         the answers\nKept as captured:\n",
    );
    for k in &bundle.kept {
        out.push_str(&format!("  {k}\n"));
    }
    out
}

fn summary(bundle: &Bundle, dir: &Path) -> String {
    let failed = bundle.calls.iter().filter(|c| c.error.is_some()).count();
    format!(
        "captured {} ({}): {} reads, {} device commands, into {}\n{}{}\
         Look it over, then attach the directory to your report; `spock-tui sim --replay {}` \
         serves it as a device.\n",
        bundle.device.model,
        bundle.device.serial,
        bundle.calls.len(),
        bundle.commands.len(),
        dir.display(),
        if failed > 0 {
            format!("{failed} of the reads failed; their errors are in the bundle.\n")
        } else {
            String::new()
        },
        what(bundle),
        dir.display()
    )
}

fn readme(bundle: &Bundle) -> String {
    format!(
        "A capture of one Android device by {} at {}, for a bug report.\n\n\
         bundle.json holds the read tools called with their arguments and answers, and every \
         command they sent with its output, exit code and time.\n\n{}\n\
         Served back as a virtual device: spock-tui sim --replay <this directory>\n",
        bundle.captured_by,
        bundle.captured_at,
        what(bundle)
    )
}

#[cfg(test)]
mod tests;
