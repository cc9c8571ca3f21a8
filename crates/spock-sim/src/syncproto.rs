//! The `sync:` service: file transfer as adbd's `file_sync_service` speaks it.
//!
//! Requests are `id(4) len(u32 LE) path`; STAT/STA2/LST2, LIST/LIS2, SEND (`path,mode`, then
//! DATA chunks of at most 64 KiB and DONE carrying the mtime), RECV, QUIT. Replies and FAIL
//! wording follow adbd, so `adb push`/`pull` print what they print against a phone. A FAIL ends
//! the session, as on a phone.
use std::sync::Arc;
use std::time::Duration;

use bytes::{BufMut, Bytes, BytesMut};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;

use super::{FileStat, FsError, ShellIo, Target};

/// adbd's `SYNC_DATA_MAX`.
pub const SYNC_DATA_MAX: u32 = 64 * 1024;
/// Longest path adbd accepts in a request.
const MAX_PATH: u32 = 1024;
/// Pushed files are held in memory; refuse anything larger like a full disk would.
const MAX_FILE: usize = 512 * 1024 * 1024;
const MKDIR_TIMEOUT: Duration = Duration::from_secs(10);

const S_IFDIR: u32 = 0o040000;

/// Parse a SEND mode the way adbd does, with `strtoul(s, nullptr, 0)`: `0x` prefix is hex,
/// a leading `0` is octal, otherwise decimal; parsing stops at the first invalid digit.
pub fn parse_mode(s: &str) -> u32 {
    let s = s.trim_start();
    let (negative, s) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let (radix, digits) = if let Some(hex) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        (16, hex)
    } else if s.starts_with('0') {
        (8, s)
    } else {
        (10, s)
    };
    let mut value: u64 = 0;
    for c in digits.chars() {
        let Some(d) = c.to_digit(radix) else { break };
        value = value
            .saturating_mul(u64::from(radix))
            .saturating_add(u64::from(d));
    }
    // strtoul's result is truncated to mode_t (32 bits); a minus sign negates it modulo 2^64.
    let value = if negative {
        value.wrapping_neg()
    } else {
        value
    };
    value as u32
}

fn request_id_hex(id: [u8; 4]) -> String {
    format!("{:08x}", u32::from_le_bytes(id))
}

async fn send_fail<W: AsyncWrite + Unpin>(w: &mut W, message: &str) -> std::io::Result<()> {
    let mut out = BytesMut::with_capacity(8 + message.len());
    out.put_slice(b"FAIL");
    out.put_u32_le(u32::try_from(message.len()).unwrap_or(0));
    out.put_slice(message.as_bytes());
    w.write_all(&out).await
}

/// Serve one sync session until QUIT, EOF or a FAIL.
pub async fn serve<S>(target: Arc<dyn Target>, mut stream: S) -> std::io::Result<()>
where
    S: AsyncRead + AsyncWrite + Unpin,
{
    let mut after_send = false;
    loop {
        let mut id = [0u8; 4];
        match stream.read_exact(&mut id).await {
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(()),
            Err(e) => return Err(e),
        }
        // adb_client ends SEND with `DONE` + a u64 mtime where adb sends a u32: the extra
        // high half (zero until 2106) arrives where the next request id would.
        if after_send && id == [0; 4] {
            after_send = false;
            continue;
        }
        after_send = false;
        let len = stream.read_u32_le().await?;
        if &id == b"QUIT" {
            return stream.shutdown().await;
        }
        if ![
            b"STAT", b"STA2", b"LST2", b"LIST", b"LIS2", b"SEND", b"RECV",
        ]
        .contains(&&id)
        {
            send_fail(
                &mut stream,
                &format!("unknown command {}", request_id_hex(id)),
            )
            .await?;
            return Ok(());
        }
        if len > MAX_PATH {
            send_fail(&mut stream, "path too long").await?;
            return Ok(());
        }
        let mut raw_path = vec![0u8; len as usize];
        stream.read_exact(&mut raw_path).await?;
        let path = String::from_utf8_lossy(&raw_path).into_owned();
        let keep_going = match &id {
            b"STAT" => stat_v1(&*target, &path, &mut stream).await?,
            b"STA2" | b"LST2" => stat_v2(&*target, &path, id, &mut stream).await?,
            b"LIST" => list(&*target, &path, false, &mut stream).await?,
            b"LIS2" => list(&*target, &path, true, &mut stream).await?,
            b"SEND" => {
                after_send = true;
                send(&target, &path, &mut stream).await?
            }
            _ => recv(&*target, &path, &mut stream).await?,
        };
        if !keep_going {
            return Ok(());
        }
    }
}

async fn stat_v1<W: AsyncWrite + Unpin>(
    target: &dyn Target,
    path: &str,
    w: &mut W,
) -> std::io::Result<bool> {
    // v1 has no error field: a missing file is all zeros. adbd answers it from `lstat`
    // (`do_lstat_v1`), so a symlink is reported as one.
    let st = target.lstat(path).unwrap_or(FileStat {
        mode: 0,
        size: 0,
        mtime: 0,
    });
    let mut out = BytesMut::with_capacity(16);
    out.put_slice(b"STAT");
    out.put_u32_le(st.mode);
    out.put_u32_le(st.size as u32);
    out.put_u32_le(st.mtime);
    w.write_all(&out).await?;
    Ok(true)
}

/// A stable inode number so tools that compare inodes see the same file as the same file.
fn inode(path: &str) -> u64 {
    path.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

/// The body shared by STA2/LST2 replies and DNT2 entries (everything after the id).
fn put_stat_v2(out: &mut BytesMut, path: &str, st: Result<FileStat, FsError>) {
    match st {
        Ok(st) => {
            out.put_u32_le(0); // error
            out.put_u64_le(0xfd00); // dev
            out.put_u64_le(inode(path));
            out.put_u32_le(st.mode);
            out.put_u32_le(if st.mode & 0o170000 == S_IFDIR { 2 } else { 1 }); // nlink
            out.put_u32_le(0); // uid
            out.put_u32_le(0); // gid
            out.put_u64_le(st.size);
            for _ in 0..3 {
                out.put_i64_le(i64::from(st.mtime)); // atime, mtime, ctime
            }
        }
        Err(e) => {
            out.put_u32_le(e.errno());
            out.put_bytes(0, 8 + 8 + 4 * 4 + 8 + 3 * 8);
        }
    }
}

async fn stat_v2<W: AsyncWrite + Unpin>(
    target: &dyn Target,
    path: &str,
    id: [u8; 4],
    w: &mut W,
) -> std::io::Result<bool> {
    let mut out = BytesMut::with_capacity(72);
    out.put_slice(&id);
    // adbd's `do_stat_v2`: STA2 follows a final symlink (`stat`), LST2 does not (`lstat`).
    let st = if &id == b"LST2" {
        target.lstat(path)
    } else {
        target.stat(path)
    };
    put_stat_v2(&mut out, path, st);
    w.write_all(&out).await?;
    Ok(true)
}

fn parent_of(path: &str) -> &str {
    match path.trim_end_matches('/').rfind('/') {
        Some(0) | None => "/",
        Some(i) => &path[..i],
    }
}

async fn list<W: AsyncWrite + Unpin>(
    target: &dyn Target,
    path: &str,
    v2: bool,
    w: &mut W,
) -> std::io::Result<bool> {
    let mut out = BytesMut::new();
    // readdir on a phone yields "." and ".." too; adb filters them where it needs to.
    if let (Ok(entries), Ok(own)) = (target.list(path), target.stat(path)) {
        let up = target.stat(parent_of(path)).unwrap_or(own);
        let all = [(".".to_owned(), own), ("..".to_owned(), up)]
            .into_iter()
            .chain(entries);
        for (name, st) in all {
            let name_len = u32::try_from(name.len()).unwrap_or(0);
            if v2 {
                out.put_slice(b"DNT2");
                put_stat_v2(
                    &mut out,
                    &format!("{}/{name}", path.trim_end_matches('/')),
                    Ok(st),
                );
            } else {
                out.put_slice(b"DENT");
                out.put_u32_le(st.mode);
                out.put_u32_le(st.size as u32);
                out.put_u32_le(st.mtime);
            }
            out.put_u32_le(name_len);
            out.put_slice(name.as_bytes());
        }
    }
    out.put_slice(b"DONE");
    out.put_bytes(0, if v2 { 72 } else { 16 });
    w.write_all(&out).await?;
    Ok(true)
}

async fn send<S: AsyncRead + AsyncWrite + Unpin>(
    target: &Arc<dyn Target>,
    spec: &str,
    s: &mut S,
) -> std::io::Result<bool> {
    let Some((path, mode)) = spec.rsplit_once(',') else {
        send_fail(s, "missing , in ID_SEND").await?;
        return Ok(false);
    };
    let mode = parse_mode(mode) & 0o7777;
    let mut data = BytesMut::new();
    let mut too_big = false;
    let mtime = loop {
        let mut id = [0u8; 4];
        s.read_exact(&mut id).await?;
        let len = s.read_u32_le().await?;
        match &id {
            b"DONE" => break len,
            b"DATA" if len <= SYNC_DATA_MAX => {
                let mut chunk = vec![0u8; len as usize];
                s.read_exact(&mut chunk).await?;
                if data.len() + chunk.len() > MAX_FILE {
                    too_big = true;
                } else if !too_big {
                    data.extend_from_slice(&chunk);
                }
            }
            b"DATA" => {
                send_fail(s, "oversize data message").await?;
                return Ok(false);
            }
            _ => {
                send_fail(s, "invalid data message").await?;
                return Ok(false);
            }
        }
    };
    if too_big {
        send_fail(s, "couldn't write file: No space left on device").await?;
        return Ok(false);
    }
    match write_with_parents(target, path, mode, mtime, data.freeze()).await {
        Ok(()) => {
            s.write_all(b"OKAY\0\0\0\0").await?;
            Ok(true)
        }
        Err(e) => {
            send_fail(s, &format!("couldn't create file: {e}")).await?;
            Ok(false)
        }
    }
}

/// `fixed_push_mkdir`: a phone creates missing parent directories on SEND. The [`Target`] has
/// no mkdir call, so ask its shell, as adbd's `secure_mkdirs` would do with syscalls.
async fn write_with_parents(
    target: &Arc<dyn Target>,
    path: &str,
    mode: u32,
    mtime: u32,
    data: Bytes,
) -> Result<(), FsError> {
    match target.push_file(path, mode, mtime, data.clone()) {
        Err(FsError::NotFound) => {}
        other => return other,
    }
    let dir = parent_of(path);
    let (_stdin_tx, stdin) = mpsc::channel(1);
    let (out, mut sink) = mpsc::channel(16);
    let drain = tokio::spawn(async move { while sink.recv().await.is_some() {} });
    let command = format!("mkdir -p {}", shell_words::quote(dir));
    let made =
        tokio::time::timeout(MKDIR_TIMEOUT, target.shell(command, ShellIo { stdin, out })).await;
    drain.abort();
    if !matches!(made, Ok(0)) {
        return Err(FsError::NotFound);
    }
    target.push_file(path, mode, mtime, data)
}

async fn recv<W: AsyncWrite + Unpin>(
    target: &dyn Target,
    path: &str,
    w: &mut W,
) -> std::io::Result<bool> {
    let data = match target.read(path) {
        Ok(d) => d,
        Err(e @ FsError::IsDirectory) => {
            send_fail(w, &format!("read failed: {e}")).await?;
            return Ok(false);
        }
        Err(e) => {
            send_fail(w, &format!("open failed: {e}")).await?;
            return Ok(false);
        }
    };
    for chunk in data.chunks(SYNC_DATA_MAX as usize) {
        let mut out = BytesMut::with_capacity(8 + chunk.len());
        out.put_slice(b"DATA");
        out.put_u32_le(chunk.len() as u32);
        out.put_slice(chunk);
        w.write_all(&out).await?;
    }
    w.write_all(b"DONE\0\0\0\0").await?;
    Ok(true)
}

#[cfg(test)]
mod tests;
