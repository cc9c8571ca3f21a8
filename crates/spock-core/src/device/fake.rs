//! A scripted fake adb server for the device layer's tests: a tokio listener on 127.0.0.1 that
//! answers the host smart-socket protocol the way adb 29–35 does (OKAY/FAIL, hex lengths, the
//! same FAIL wording) and plays a device behind `host:transport:`.
//!
//! Device behaviour is keyed by command so each test can provoke one thing: `exit42` (stdout,
//! stderr, exit 42), `getprop` (an Android 14 device), `hang`, `vanish` (output then a dropped connection), `flood` (2 MiB);
//! anything else echoes the command with exit 0. `exec:` sends bytes 0..=255 `N` times for
//! `exec:bytes N`. `sync:` keeps files in memory.
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

use super::endpoint::AdbEndpoint;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostMode {
    Normal,
    /// Accept and never answer.
    Hang,
    /// `host:devices-l` answers `OKAY` and half a length, then closes.
    DropMidReply,
}

pub struct FakeAdb {
    pub ep: AdbEndpoint,
    /// The `devices-l` text; changing it feeds `track-devices` watchers.
    pub devices: watch::Sender<String>,
    pub features: Mutex<HashMap<String, String>>,
    /// Serial → the transport FAIL text adb gives for it (e.g. unauthorized).
    pub refuse: Mutex<HashMap<String, String>>,
    pub mode: Mutex<HostMode>,
    pub files: Mutex<HashMap<String, (u32, Vec<u8>)>>,
    /// Serials whose device accepts services and then never answers (a hung phone).
    pub hung: Mutex<std::collections::HashSet<String>>,
    /// How many times each shell command ran (v2 and legacy), to prove what was not asked.
    pub commands: Mutex<HashMap<String, usize>>,
    task: tokio::task::JoinHandle<()>,
    stop: tokio_util::sync::CancellationToken,
}

impl Drop for FakeAdb {
    fn drop(&mut self) {
        self.kill();
    }
}

pub const V2: &str = "shell_v2,cmd,stat_v2,ls_v2,fixed_push_mkdir";

/// A `devices-l` line in adb's own layout.
pub fn line(serial: &str, state: &str, model: &str, tid: u32) -> String {
    format!(
        "{serial:<22} {state} product:p_{model} model:{model} device:d_{model} transport_id:{tid}\n"
    )
}

impl FakeAdb {
    pub async fn start(devices: &str) -> Arc<FakeAdb> {
        Self::start_on(0, devices).await
    }

    pub async fn start_on(port: u16, devices: &str) -> Arc<FakeAdb> {
        // A killed server's listener closes when its aborted task is next polled; wait for it.
        let mut tries = 0;
        let listener = loop {
            match TcpListener::bind(("127.0.0.1", port)).await {
                Ok(l) => break l,
                Err(e) if tries < 40 => {
                    tries += 1;
                    let _ = e;
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                }
                Err(e) => panic!("bind 127.0.0.1:{port}: {e}"),
            }
        };
        let ep = AdbEndpoint::local(listener.local_addr().unwrap().port());
        let (tx, _) = watch::channel(devices.to_string());
        let features = devices
            .lines()
            .filter_map(|l| l.split_whitespace().next())
            .map(|s| (s.to_string(), V2.to_string()))
            .collect();
        let stop = tokio_util::sync::CancellationToken::new();
        Arc::new_cyclic(|weak: &std::sync::Weak<FakeAdb>| {
            let weak = weak.clone();
            let stop2 = stop.clone();
            let task = tokio::spawn(async move {
                while let Ok((sock, _)) = listener.accept().await {
                    let Some(f) = weak.upgrade() else { return };
                    let stop = stop2.clone();
                    tokio::spawn(async move {
                        tokio::select! {
                            _ = f.serve(sock) => {}
                            _ = stop.cancelled() => {}
                        }
                    });
                }
            });
            FakeAdb {
                ep,
                devices: tx,
                features: Mutex::new(features),
                refuse: Mutex::new(HashMap::new()),
                mode: Mutex::new(HostMode::Normal),
                files: Mutex::new(HashMap::new()),
                commands: Mutex::new(HashMap::new()),
                hung: Mutex::new(Default::default()),
                task,
                stop,
            }
        })
    }

    /// The server dies: listener closed, every open connection dropped.
    pub fn kill(&self) {
        self.task.abort();
        self.stop.cancel();
    }

    pub fn set_mode(&self, m: HostMode) {
        *self.mode.lock().unwrap() = m;
    }

    /// How many times shell command `cmd` ran.
    pub fn ran(&self, cmd: &str) -> usize {
        self.commands.lock().unwrap().get(cmd).copied().unwrap_or(0)
    }

    fn count(&self, cmd: &str) {
        *self
            .commands
            .lock()
            .unwrap()
            .entry(cmd.to_string())
            .or_default() += 1;
    }

    async fn serve(&self, mut s: TcpStream) {
        let mode = *self.mode.lock().unwrap();
        if mode == HostMode::Hang {
            std::future::pending::<()>().await;
        }
        let Some(req) = read_req(&mut s).await else {
            return;
        };
        let devices = self.devices.borrow().clone();
        let known = |serial: &str| {
            devices
                .lines()
                .any(|l| l.split_whitespace().next() == Some(serial))
        };
        if req == "host:version" {
            okay_block(&mut s, b"0029").await;
        } else if req == "host:devices-l" {
            if mode == HostMode::DropMidReply {
                let _ = s.write_all(b"OKAY00").await;
                return;
            }
            okay_block(&mut s, devices.as_bytes()).await;
        } else if req == "host:track-devices-l" {
            let mut rx = self.devices.subscribe();
            let _ = s.write_all(b"OKAY").await;
            loop {
                let cur = rx.borrow_and_update().clone();
                if block(&mut s, cur.as_bytes()).await.is_err() || rx.changed().await.is_err() {
                    return;
                }
            }
        } else if let Some(rest) = req.strip_prefix("host-transport-id:") {
            let id = rest.strip_suffix(":features").unwrap_or(rest);
            let serial = by_tid(&devices, id);
            let f = serial
                .as_ref()
                .and_then(|sr| self.features.lock().unwrap().get(sr).cloned());
            match f {
                Some(f) => okay_block(&mut s, f.as_bytes()).await,
                None => fail(&mut s, &format!("no device with transport id '{id}'")).await,
            }
        } else if let Some(id) = req.strip_prefix("host:transport-id:") {
            let Some(serial) = by_tid(&devices, id) else {
                return fail(&mut s, &format!("no device with transport id '{id}'")).await;
            };
            let _ = s.write_all(b"OKAY").await;
            let Some(svc) = read_req(&mut s).await else {
                return;
            };
            if self.hung.lock().unwrap().contains(&serial) {
                let _ = s.write_all(b"OKAY").await;
                return std::future::pending::<()>().await;
            }
            self.device_service(s, &svc).await;
        } else if let Some(rest) = req.strip_prefix("host-serial:") {
            let serial = rest.strip_suffix(":features").unwrap_or(rest);
            let f = self.features.lock().unwrap().get(serial).cloned();
            match f {
                Some(f) if known(serial) => okay_block(&mut s, f.as_bytes()).await,
                _ => fail(&mut s, &format!("device '{serial}' not found")).await,
            }
        } else if let Some(serial) = req.strip_prefix("host:transport:") {
            let refusal = self.refuse.lock().unwrap().get(serial).cloned();
            if let Some(msg) = refusal {
                return fail(&mut s, &msg).await;
            }
            if !known(serial) {
                return fail(&mut s, &format!("device '{serial}' not found")).await;
            }
            let _ = s.write_all(b"OKAY").await;
            let Some(svc) = read_req(&mut s).await else {
                return;
            };
            if self.hung.lock().unwrap().contains(serial) {
                let _ = s.write_all(b"OKAY").await;
                return std::future::pending::<()>().await;
            }
            self.device_service(s, &svc).await;
        } else {
            fail(&mut s, "unknown host service").await;
        }
    }

    async fn device_service(&self, mut s: TcpStream, svc: &str) {
        if let Some(cmd) = svc.strip_prefix("shell,v2,raw:") {
            let _ = s.write_all(b"OKAY").await;
            let mut close = [0u8; 5];
            if s.read_exact(&mut close).await.is_err() || close[0] != 4 {
                return; // the client must close stdin first
            }
            self.count(cmd);
            match cmd {
                "getprop" => {
                    pkt(
                        &mut s,
                        1,
                        b"[ro.build.version.sdk]: [34]\n[ro.build.version.release]: [14]\n",
                    )
                    .await;
                    pkt(&mut s, 3, &[0]).await;
                }
                "exit42" => {
                    pkt(&mut s, 1, b"out\n").await;
                    pkt(&mut s, 2, b"err\n").await;
                    pkt(&mut s, 3, &[42]).await;
                }
                "hang" => std::future::pending::<()>().await,
                "vanish" => pkt(&mut s, 1, b"partial").await,
                "flood" => {
                    for _ in 0..32 {
                        pkt(&mut s, 1, &[b'x'; 65536]).await;
                    }
                    pkt(&mut s, 3, &[0]).await;
                }
                other => {
                    pkt(&mut s, 1, other.as_bytes()).await;
                    pkt(&mut s, 3, &[0]).await;
                }
            }
        } else if let Some(script) = svc.strip_prefix("shell:") {
            // Legacy shell: the client sent `(CMD\n); echo "SENTINEL$?"`; play it like sh.
            let _ = s.write_all(b"OKAY").await;
            let (Some(open), Some(tail)) =
                (script.strip_prefix('('), script.split_once("\n); echo \""))
            else {
                return;
            };
            let cmd = open.split('\n').next().unwrap_or("");
            self.count(cmd);
            let sentinel = tail.1.trim_end_matches("$?\"");
            let (out, code): (&[u8], u8) = match cmd {
                "exit42" => (b"out\nerr\n", 42),
                "vanish" => return drop(s.write_all(b"partial").await),
                _ => (b"ok", 0),
            };
            let _ = s.write_all(out).await;
            let _ = s.write_all(format!("{sentinel}{code}\n").as_bytes()).await;
        } else if let Some(cmd) = svc.strip_prefix("exec:") {
            let _ = s.write_all(b"OKAY").await;
            let n: usize = cmd
                .strip_prefix("bytes ")
                .and_then(|n| n.parse().ok())
                .unwrap_or(1);
            let all: Vec<u8> = (0..n).flat_map(|_| 0u8..=255).collect();
            let _ = s.write_all(&all).await;
        } else if svc == "sync:" {
            let _ = s.write_all(b"OKAY").await;
            self.sync(s).await;
        } else {
            fail(&mut s, "closed").await;
        }
    }

    async fn sync(&self, mut s: TcpStream) {
        loop {
            let mut h = [0u8; 8];
            if s.read_exact(&mut h).await.is_err() {
                return;
            }
            let len = u32::from_le_bytes(h[4..8].try_into().unwrap()) as usize;
            let mut p = vec![0u8; len];
            s.read_exact(&mut p).await.unwrap();
            let path = String::from_utf8(p).unwrap();
            let file = self.files.lock().unwrap().get(&path).cloned();
            match &h[..4] {
                b"STAT" => {
                    let (mode, size) = file.map(|(m, d)| (m, d.len() as u32)).unwrap_or((0, 0));
                    let mut r = b"STAT".to_vec();
                    for v in [mode, size, 1_700_000_000] {
                        r.extend_from_slice(&v.to_le_bytes());
                    }
                    s.write_all(&r).await.unwrap();
                }
                b"STA2" => {
                    let mut r = b"STA2".to_vec();
                    let (err, mode, size) = match file {
                        Some((m, d)) => (0u32, m, d.len() as u64),
                        None => (2, 0, 0),
                    };
                    r.extend_from_slice(&err.to_le_bytes());
                    r.extend_from_slice(&[0u8; 16]); // dev, ino
                    r.extend_from_slice(&mode.to_le_bytes());
                    r.extend_from_slice(&[0u8; 12]); // nlink, uid, gid
                    r.extend_from_slice(&size.to_le_bytes());
                    r.extend_from_slice(&[0u8; 8]); // atime
                    r.extend_from_slice(&1_700_000_000u64.to_le_bytes());
                    r.extend_from_slice(&[0u8; 8]); // ctime
                    s.write_all(&r).await.unwrap();
                }
                b"SEND" => {
                    let (name, mode) = path.rsplit_once(',').unwrap();
                    // adbd reads the mode with strtoul(s, 0): a leading 0 means octal.
                    let mode = match mode.strip_prefix('0') {
                        Some(oct) if !oct.is_empty() => u32::from_str_radix(oct, 8).unwrap(),
                        _ => mode.parse().unwrap(),
                    };
                    let mut data = Vec::new();
                    loop {
                        let mut h = [0u8; 8];
                        s.read_exact(&mut h).await.unwrap();
                        let n = u32::from_le_bytes(h[4..8].try_into().unwrap()) as usize;
                        if &h[..4] == b"DONE" {
                            break;
                        }
                        assert!(n <= 65536, "DATA chunk over 64 KiB");
                        let mut d = vec![0u8; n];
                        s.read_exact(&mut d).await.unwrap();
                        data.extend_from_slice(&d);
                    }
                    self.files
                        .lock()
                        .unwrap()
                        .insert(name.to_string(), (mode, data));
                    s.write_all(b"OKAY\0\0\0\0").await.unwrap();
                }
                b"RECV" => match file {
                    Some((_, d)) => {
                        for c in d.chunks(65536) {
                            let mut r = b"DATA".to_vec();
                            r.extend_from_slice(&(c.len() as u32).to_le_bytes());
                            r.extend_from_slice(c);
                            if s.write_all(&r).await.is_err() {
                                return;
                            }
                        }
                        s.write_all(b"DONE\0\0\0\0").await.unwrap();
                    }
                    None => {
                        let m = b"open failed: No such file or directory";
                        let mut r = b"FAIL".to_vec();
                        r.extend_from_slice(&(m.len() as u32).to_le_bytes());
                        r.extend_from_slice(m);
                        s.write_all(&r).await.unwrap();
                    }
                },
                _ => return, // QUIT
            }
        }
    }
}

async fn read_req(s: &mut TcpStream) -> Option<String> {
    let mut h = [0u8; 4];
    s.read_exact(&mut h).await.ok()?;
    let n = usize::from_str_radix(std::str::from_utf8(&h).ok()?, 16).ok()?;
    let mut b = vec![0u8; n];
    s.read_exact(&mut b).await.ok()?;
    String::from_utf8(b).ok()
}

async fn block(s: &mut TcpStream, data: &[u8]) -> std::io::Result<()> {
    s.write_all(format!("{:04x}", data.len()).as_bytes())
        .await?;
    s.write_all(data).await
}

async fn okay_block(s: &mut TcpStream, data: &[u8]) {
    let _ = s.write_all(b"OKAY").await;
    let _ = block(s, data).await;
}

async fn fail(s: &mut TcpStream, msg: &str) {
    let _ = s.write_all(b"FAIL").await;
    let _ = block(s, msg.as_bytes()).await;
}

async fn pkt(s: &mut TcpStream, id: u8, data: &[u8]) {
    let mut p = vec![id];
    p.extend_from_slice(&(data.len() as u32).to_le_bytes());
    p.extend_from_slice(data);
    let _ = s.write_all(&p).await;
}

/// The serial listed with `transport_id:ID` in a `devices-l` text, as adb keys transports.
fn by_tid(devices: &str, id: &str) -> Option<String> {
    let want = format!("transport_id:{id}");
    devices
        .lines()
        .find(|l| l.split_whitespace().any(|w| w == want))
        .and_then(|l| l.split_whitespace().next())
        .map(str::to_string)
}
