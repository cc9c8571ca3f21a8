//! `spock-tui relay`: the process an MCP client spawns for stdio. A byte relay and nothing
//! else — it never parses JSON-RPC. It claims stdout before anything else can write to it
//! (everything else goes to stderr), presents the token from the endpoint descriptor as one
//! line, then copies bytes both ways until either side closes.
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Shutdown, TcpStream};
use std::os::fd::FromRawFd;
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use super::socket::Descriptor;

/// Take the real stdout for the protocol and point fd 1 at stderr, so a stray print anywhere
/// in this process cannot corrupt the session. Call first thing in `main`.
pub fn claim_stdout() -> std::io::Result<File> {
    // SAFETY: dup/dup2 on the process's own standard descriptors; the duplicate is owned by
    // the returned File and nothing else closes it.
    unsafe {
        let fd = libc::dup(1);
        if fd < 0 {
            return Err(std::io::Error::last_os_error());
        }
        if libc::dup2(2, 1) < 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(File::from_raw_fd(fd))
    }
}

enum Stream {
    Unix(UnixStream),
    Tcp(TcpStream),
}

impl Stream {
    fn try_clone(&self) -> std::io::Result<Stream> {
        Ok(match self {
            Stream::Unix(s) => Stream::Unix(s.try_clone()?),
            Stream::Tcp(s) => Stream::Tcp(s.try_clone()?),
        })
    }
    fn shutdown_write(&self) {
        let _ = match self {
            Stream::Unix(s) => s.shutdown(Shutdown::Write),
            Stream::Tcp(s) => s.shutdown(Shutdown::Write),
        };
    }
}

impl Read for Stream {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self {
            Stream::Unix(s) => s.read(buf),
            Stream::Tcp(s) => s.read(buf),
        }
    }
}

impl Write for Stream {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Stream::Unix(s) => s.write(buf),
            Stream::Tcp(s) => s.write(buf),
        }
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Run the relay. Returns the process exit code; diagnostics go to stderr.
pub fn run(descriptor: &Path, mut out: File) -> i32 {
    let text = match crate::config::private::read_to_string(descriptor) {
        Ok(t) => t,
        Err(e) => {
            eprintln!(
                "spock-tui relay: cannot read {}: {e}. Is spock-tui running (`spock-tui` or `spock-tui serve`)?",
                descriptor.display()
            );
            return 2;
        }
    };
    let d: Descriptor = match serde_json::from_str(&text) {
        Ok(d) => d,
        Err(e) => {
            eprintln!(
                "spock-tui relay: {} is not an endpoint descriptor: {e}",
                descriptor.display()
            );
            return 2;
        }
    };
    let conn = match (&d.unix, &d.tcp) {
        (Some(p), _) => UnixStream::connect(p).map(Stream::Unix),
        (None, Some(a)) => TcpStream::connect(a).map(|s| {
            let _ = s.set_nodelay(true);
            Stream::Tcp(s)
        }),
        _ => Err(std::io::Error::other("the descriptor names no endpoint")),
    };
    let mut conn = match conn {
        Ok(c) => c,
        Err(e) => {
            eprintln!(
                "spock-tui relay: cannot reach {}: {e}. Is spock-tui still running?",
                d.endpoint_label()
            );
            return 3;
        }
    };
    // Under sshd, say where the client came from: the person sees it in the approval modal.
    let via = std::env::var("SSH_CONNECTION")
        .ok()
        .map(|c| c.split_whitespace().take(2).collect::<Vec<_>>().join(" "))
        .filter(|c| !c.is_empty() && !c.contains(['\n', '\t']))
        .map(|c| format!("\tssh={c}"))
        .unwrap_or_default();
    if conn
        .write_all(format!("{}{via}\n", d.token).as_bytes())
        .is_err()
    {
        eprintln!("spock-tui relay: the server closed the connection during the handshake");
        return 3;
    }
    let Ok(reader_side) = conn.try_clone() else {
        eprintln!("spock-tui relay: cannot duplicate the connection");
        return 3;
    };
    let mut from_server = BufReader::new(reader_side);
    let mut hello = String::new();
    match from_server.read_line(&mut hello) {
        Ok(n) if n > 0 && hello.starts_with("OK") => {}
        Ok(n) if n > 0 => {
            eprintln!(
                "spock-tui relay: refused by the server: {}",
                hello.trim_end().trim_start_matches("ERROR ")
            );
            return 4;
        }
        _ => {
            eprintln!("spock-tui relay: the server closed the connection during the handshake");
            return 3;
        }
    }
    // Server → stdout on its own thread; stdin → server here. Either side closing ends us.
    // When the server ends the session we exit at once, even while stdin is blocked in read.
    // Only a server leaving while our client still talks is news: after the client closed
    // stdin the server closing too is the normal end, and says nothing.
    let client_done = Arc::new(AtomicBool::new(false));
    let done = client_done.clone();
    let pump = std::thread::spawn(move || {
        let _ = std::io::copy(&mut from_server, &mut out);
        let _ = out.flush();
        if !done.load(Ordering::SeqCst) {
            eprintln!("spock-tui relay: the server closed the session");
        }
        std::process::exit(0);
    });
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut buf = [0u8; 64 * 1024];
    loop {
        match input.read(&mut buf) {
            Ok(0) | Err(_) => {
                client_done.store(true, Ordering::SeqCst);
                break;
            }
            Ok(n) => {
                if conn.write_all(&buf[..n]).is_err() {
                    break;
                }
            }
        }
    }
    conn.shutdown_write();
    // Our client closed stdin: it is done. Give the server a moment to flush, then leave.
    let deadline = std::time::Instant::now() + std::time::Duration::from_millis(500);
    while !pump.is_finished() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    0
}
