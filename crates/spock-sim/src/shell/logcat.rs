//! `logcat`: dump (`-d`, `-t N`), clear (`-c`), filter (`TAG:LEVEL`, `*:S`, `-s`, `--pid`,
//! `-b`), format (`-v threadtime` default, `brief`, `time`, `raw`), and follow mode (no `-d`),
//! which streams new lines until the client hangs up.
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc;

use super::{Ctx, Output};
use crate::ShellChunk;
use crate::device::Inner;
use crate::device::logcat::{Buffer, Filter, LogEntry};

struct Opts {
    dump: bool,
    clear: bool,
    tail: Option<usize>,
    pid: Option<u32>,
    buffers: Vec<Buffer>,
    filter: Filter,
    fmt: fn(&LogEntry) -> String,
}

fn parse(args: &[String]) -> Result<Opts, String> {
    let mut o = Opts {
        dump: false,
        clear: false,
        tail: None,
        pid: None,
        buffers: Vec::new(),
        filter: Filter::default(),
        fmt: LogEntry::threadtime,
    };
    let mut silent_rest = false;
    let mut it = args.iter().skip(1);
    while let Some(a) = it.next() {
        let mut value = |name: &str| -> Result<String, String> {
            match a.split_once('=') {
                Some((_, v)) => Ok(v.to_string()),
                None => it
                    .next()
                    .cloned()
                    .ok_or(format!("option requires an argument -- {name}")),
            }
        };
        match a.as_str() {
            "-d" => o.dump = true,
            "-c" => o.clear = true,
            "-t" | "-T" => {
                let v = value("t")?;
                o.tail = Some(v.parse().map_err(|_| format!("Invalid count: {v}"))?);
                if a == "-t" {
                    o.dump = true;
                }
            }
            s if s.starts_with("--pid") => {
                let v = value("pid")?;
                o.pid = Some(
                    v.parse()
                        .map_err(|_| format!("pid '{v}' is not a number"))?,
                );
            }
            "-v" | "--format" => {
                let v = value("v")?;
                o.fmt = match v.as_str() {
                    "threadtime" | "long" | "color" | "printable" | "uid" | "usec" | "year" => {
                        LogEntry::threadtime
                    }
                    "brief" | "process" | "tag" => LogEntry::brief,
                    "time" => LogEntry::time,
                    "raw" => LogEntry::raw,
                    _ => return Err(format!("Invalid format '{v}'")),
                };
            }
            "-b" | "--buffer" => {
                for b in value("b")?.split(',') {
                    match b {
                        "main" => o.buffers.push(Buffer::Main),
                        "system" => o.buffers.push(Buffer::System),
                        "crash" => o.buffers.push(Buffer::Crash),
                        "all" | "default" => {
                            o.buffers
                                .extend([Buffer::Main, Buffer::System, Buffer::Crash])
                        }
                        "events" | "radio" | "kernel" | "security" | "stats" => {}
                        _ => return Err(format!("Unknown buffer '{b}'")),
                    }
                }
            }
            "-s" => silent_rest = true,
            s if s.starts_with('-') => {}
            spec => {
                o.filter
                    .add(spec)
                    .ok_or_else(|| format!("Invalid filter expression '{spec}'"))?;
            }
        }
    }
    if silent_rest {
        o.filter.add("*:S");
    }
    if o.buffers.is_empty() {
        o.buffers = vec![Buffer::Main, Buffer::System, Buffer::Crash];
    }
    Ok(o)
}

/// Whether this invocation keeps running (no `-d`, `-c` or `-t`).
pub fn follows(args: &[String]) -> bool {
    parse(args).is_ok_and(|o| !o.dump && !o.clear)
}

pub fn logcat(ctx: &mut Ctx, args: &[String]) -> i32 {
    let o = match parse(args) {
        Ok(o) => o,
        Err(e) => {
            ctx.errln(&format!("logcat: {e}"));
            return 1;
        }
    };
    if o.clear {
        ctx.st.log.clear();
        return 0;
    }
    let text = ctx
        .st
        .log
        .render(0, &o.buffers, &o.filter, o.pid, o.tail, o.fmt);
    ctx.out(&text);
    0
}

pub async fn follow(
    inner: &Arc<Inner>,
    args: &[String],
    stream: Option<&mpsc::Sender<ShellChunk>>,
) -> Output {
    let Ok(o) = parse(args) else {
        return Output::default();
    };
    let mut collected = Vec::new();
    let mut from = 0;
    loop {
        let (text, len) = {
            let st = inner.lock();
            let len = st.log.len();
            let from_now = from.min(len);
            (
                st.log.render(
                    from_now,
                    &o.buffers,
                    &o.filter,
                    o.pid,
                    if from == 0 { o.tail } else { None },
                    o.fmt,
                ),
                len,
            )
        };
        from = len;
        if !text.is_empty() {
            match stream {
                Some(tx) => {
                    if tx
                        .send(ShellChunk::Stdout(text.into_bytes().into()))
                        .await
                        .is_err()
                    {
                        break;
                    }
                }
                None => collected.extend_from_slice(text.as_bytes()),
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    Output {
        stdout: collected,
        ..Output::default()
    }
}
