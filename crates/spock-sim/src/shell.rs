//! The device shell: runs one command line the way `sh -c` on a phone would, answering each
//! command in the real device's format (children of this module, one per tool family).
//!
//! Most commands are synchronous steps under the device lock ([`Ctx`]); the few that wait
//! (`screenrecord`, `sleep`, `logcat` without `-d`) run here without holding it.
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use tokio::sync::mpsc;

use super::device::Inner;
use super::device::state::State;
use super::{ShellChunk, ShellIo};

mod am;
mod appfn;
mod dumpsys;
mod files;
mod input;
pub mod keycodes;
mod logcat;
mod media;
pub mod parse;
mod pm;
mod procs;
mod system;
mod uimode;

/// One synchronous command's view of the device and its pipes.
pub struct Ctx<'a> {
    pub st: &'a mut State,
    pub stdin: &'a [u8],
    pub out: Vec<u8>,
    pub err: Vec<u8>,
}

impl Ctx<'_> {
    pub fn out(&mut self, s: &str) {
        self.out.extend_from_slice(s.as_bytes());
    }

    pub fn outln(&mut self, s: &str) {
        self.out(s);
        self.out.push(b'\n');
    }

    pub fn errln(&mut self, s: &str) {
        self.err.extend_from_slice(s.as_bytes());
        self.err.push(b'\n');
    }
}

/// What one command produced, once it finished.
#[derive(Debug, Default)]
pub struct Output {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub code: i32,
}

const CHUNK: usize = 64 * 1024;

async fn send(out: &mpsc::Sender<ShellChunk>, data: Vec<u8>, stderr: bool) {
    for piece in data.chunks(CHUNK) {
        let b = Bytes::copy_from_slice(piece);
        let chunk = if stderr {
            ShellChunk::Stderr(b)
        } else {
            ShellChunk::Stdout(b)
        };
        // The client may have gone away; the command still runs to completion, as with SIGPIPE
        // ignored.
        let _ = out.send(chunk).await;
    }
}

/// Runs a command line to completion; resolves to its exit code.
pub(crate) async fn run(inner: Arc<Inner>, command: String, io: ShellIo) -> i32 {
    let ShellIo { stdin: _stdin, out } = io;
    let script = match parse::parse(&command) {
        Ok(s) => s,
        Err(msg) => {
            send(&out, format!("/system/bin/sh: {msg}\n").into_bytes(), true).await;
            return 1;
        }
    };
    let mut last = 0;
    for (sep, pipe) in script {
        match sep {
            parse::Sep::And if last != 0 => continue,
            parse::Sep::Or if last == 0 => continue,
            _ => {}
        }
        if pipe.background {
            let inner = inner.clone();
            tokio::spawn(async move {
                let (tx, mut rx) = mpsc::channel(16);
                let drain = tokio::spawn(async move { while rx.recv().await.is_some() {} });
                run_pipeline(&inner, pipe, &tx).await;
                drop(tx);
                let _ = drain.await;
            });
            last = 0;
            continue;
        }
        last = run_pipeline(&inner, pipe, &out).await;
    }
    last
}

/// Where one of a command's output descriptors ends up after its redirections.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Dest {
    /// The pipeline's stdout: the next command's stdin, or the client.
    Out,
    /// The client's stderr.
    Err,
    File {
        path: String,
        append: bool,
    },
}

/// Applies `n>file` / `n>&m` left to right, as mksh does: `[stdout, stderr]`.
fn destinations(redirs: &[parse::Redir]) -> [Dest; 2] {
    let mut fds = [Dest::Out, Dest::Err];
    for r in redirs {
        match r {
            parse::Redir::File { fd, path, append } => {
                fds[usize::from(*fd - 1)] = Dest::File {
                    path: path.clone(),
                    append: *append,
                }
            }
            parse::Redir::Dup { fd, to } => {
                fds[usize::from(*fd - 1)] = fds[usize::from(*to - 1)].clone();
            }
        }
    }
    fds
}

async fn run_pipeline(
    inner: &Arc<Inner>,
    pipe: parse::Pipeline,
    out: &mpsc::Sender<ShellChunk>,
) -> i32 {
    let mut input = Vec::new();
    let n = pipe.cmds.len();
    let mut code = 0;
    for (i, cmd) in pipe.cmds.into_iter().enumerate() {
        let last = i + 1 == n;
        let [to_out, to_err] = destinations(&cmd.redirs);
        // Only a last command whose stdout is the client's stdout streams as it goes.
        let stream = (last && to_out == Dest::Out).then_some(out);
        let res = run_simple(inner, &cmd.args, &input, stream).await;
        let (mut piped, mut err) = (Vec::new(), Vec::new());
        let mut files: Vec<(String, bool, Vec<u8>)> = Vec::new();
        for (dest, data) in [(to_out, res.stdout), (to_err, res.stderr)] {
            match dest {
                Dest::Out => piped.extend_from_slice(&data),
                Dest::Err => err.extend_from_slice(&data),
                Dest::File { path, append } => {
                    match files.iter_mut().find(|(p, _, _)| *p == path) {
                        Some(f) => f.2.extend_from_slice(&data),
                        None => files.push((path, append, data)),
                    }
                }
            }
        }
        code = res.code;
        for (path, append, data) in files {
            if path != "/dev/null"
                && let Err(msg) = write_redirect(inner, &path, data, append)
            {
                err.extend_from_slice(msg.as_bytes());
                code = 1;
            }
        }
        if !err.is_empty() {
            send(out, err, true).await;
        }
        if last {
            send(out, piped, false).await;
        } else {
            input = piped;
        }
    }
    code
}

fn write_redirect(
    inner: &Arc<Inner>,
    path: &str,
    data: Vec<u8>,
    append: bool,
) -> Result<(), String> {
    let mut st = inner.lock();
    let mut all = if append {
        st.fs.read(path).map(|b| b.to_vec()).unwrap_or_default()
    } else {
        Vec::new()
    };
    all.extend_from_slice(&data);
    st.fs
        .write(path, 0o666, 0, Bytes::from(all))
        .map_err(|e| format!("/system/bin/sh: can't create {path}: {e}\n"))
}

/// What `uiautomator dump` prints first when another UiAutomation client is connected: the
/// `IllegalStateException` AOSP's `UiAutomationManager` throws ("UiAutomationService " +
/// client + "already registered!", no space before "already"), uncaught in `DumpCommand`.
/// (A phone follows it with the stack trace, left out here.)
const ALREADY_REGISTERED: &str = "java.lang.IllegalStateException: UiAutomationService \
android.accessibilityservice.IAccessibilityServiceClient$Stub$Proxy@5b1d1e7already registered!\n";

/// Lets go of the UiAutomation bridge when a dump ends (or is dropped mid-wait).
struct Bridge(Arc<Inner>);

impl Drop for Bridge {
    fn drop(&mut self) {
        self.0.lock().ui_automation = false;
    }
}

async fn run_simple(
    inner: &Arc<Inner>,
    args: &[String],
    stdin: &[u8],
    stream: Option<&mpsc::Sender<ShellChunk>>,
) -> Output {
    let name = args
        .first()
        .map(|a| a.rsplit('/').next().unwrap_or(a).to_string())
        .unwrap_or_default();
    match name.as_str() {
        "screenrecord" => return media::screenrecord(inner, args).await,
        "sleep" => {
            let secs: f64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(0.0);
            tokio::time::sleep(Duration::from_secs_f64(secs.clamp(0.0, 86_400.0))).await;
            return Output::default();
        }
        "logcat" if logcat::follows(args) => return logcat::follow(inner, args, stream).await,
        _ => {}
    }
    // Held while this dump has the UiAutomation bridge (released however the command ends).
    let mut _bridge = None;
    if name == "uiautomator" && args.get(1).map(String::as_str) == Some("dump") {
        // One UiAutomation at a time: a dump started while another holds the bridge fails as
        // AOSP `UiAutomationManager.registerUiTestAutomationServiceLocked` makes it fail.
        let wait = {
            let mut st = inner.lock();
            if st.ui_automation {
                return Output {
                    stdout: Vec::new(),
                    stderr: ALREADY_REGISTERED.as_bytes().to_vec(),
                    code: 1,
                };
            }
            st.ui_automation = true;
            // `DumpCommand` waits for the app to go idle before it walks the tree: a change
            // of screen still animating is waited out; a screen that never stops moving,
            // until `waitForIdle` gives up.
            if st.awake && st.screen_animating() {
                Some(Duration::from_millis(st.scenario.device.idle_timeout_ms))
            } else {
                st.settling_left()
            }
        };
        _bridge = Some(Bridge(inner.clone()));
        if let Some(wait) = wait {
            tokio::time::sleep(wait).await;
        }
    }
    let mut st = inner.lock();
    let animates = st.scenario.device.transition_ms > 0;
    let before = animates.then(|| (st.top().map(|e| e.screen.clone()), st.frame_tree()));
    let top_before = st.top().map(|e| e.hash);
    let mut ctx = Ctx {
        st: &mut st,
        stdin,
        out: Vec::new(),
        err: Vec::new(),
    };
    let code = dispatch(&mut ctx, &name, args);
    let (stdout, stderr) = (ctx.out, ctx.err);
    st.drew_after(top_before);
    if let Some((screen, frame)) = before {
        st.screen_changed_from(screen.as_deref(), frame);
    }
    Output {
        stdout,
        stderr,
        code,
    }
}

/// Runs one synchronous command; `args[0]` is the command as typed.
pub fn dispatch(ctx: &mut Ctx, name: &str, args: &[String]) -> i32 {
    match name {
        "am" => am::am(ctx, args),
        "monkey" => am::monkey(ctx, args),
        "pm" => pm::pm(ctx, args),
        "cmd" => pm::cmd(ctx, args),
        "dumpsys" => dumpsys::dumpsys(ctx, args),
        "input" => input::input(ctx, args),
        "getevent" => input::getevent(ctx, args),
        "sendevent" => input::sendevent(ctx, args),
        "screencap" => media::screencap(ctx, args),
        "uiautomator" => media::uiautomator(ctx, args),
        "logcat" => logcat::logcat(ctx, args),
        "ps" => procs::ps(ctx, args),
        "pidof" => procs::pidof(ctx, args),
        "kill" => procs::kill(ctx, args),
        "pkill" => procs::pkill(ctx, args),
        "ls" => files::ls(ctx, args),
        "stat" => files::stat(ctx, args),
        "realpath" => files::realpath(ctx, args),
        "readlink" => files::readlink(ctx, args),
        "ln" => files::ln(ctx, args),
        "rm" => files::rm(ctx, args),
        "mkdir" => files::mkdir(ctx, args),
        "cat" => files::cat(ctx, args),
        "touch" => files::touch(ctx, args),
        "getprop" => system::getprop(ctx, args),
        "setprop" => system::setprop(ctx, args),
        "wm" => system::wm(ctx, args),
        "settings" => system::settings(ctx, args),
        "svc" => system::svc(ctx, args),
        "echo" => system::echo(ctx, args),
        "true" => 0,
        "false" => 1,
        // `exit N` as the last command of a line: the shell's status is N (mod 256, as sh does).
        "exit" => args
            .get(1)
            .and_then(|a| a.parse::<i64>().ok())
            .map_or(0, |n| n.rem_euclid(256) as i32),
        "id" => {
            ctx.outln("uid=2000(shell) gid=2000(shell) groups=2000(shell),1004(input),1007(log),1011(adb),1015(sdcard_rw),1028(sdcard_r),1078(ext_data_rw),1079(ext_obb_rw),3001(net_bt_admin),3002(net_bt),3003(inet),3006(net_bw_stats),3009(readproc),3011(uhid),3012(readtracefs) context=u:r:shell:s0");
            0
        }
        "whoami" => {
            ctx.outln("shell");
            0
        }
        "ip" => system::ip(ctx, args),
        "grep" => system::grep(ctx, args),
        "head" => system::head_tail(ctx, args, true),
        "tail" => system::head_tail(ctx, args, false),
        "wc" => system::wc(ctx, args),
        _ => {
            let shown = args.first().map(String::as_str).unwrap_or(name);
            ctx.errln(&format!(
                "/system/bin/sh: {shown}: inaccessible or not found"
            ));
            127
        }
    }
}
