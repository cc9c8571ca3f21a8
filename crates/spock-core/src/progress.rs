//! A call's progress, reported from wherever the work happens (a tool's loop, the device
//! layer's file transfers) to whoever asked for it, without passing a handle down: the sink is
//! task-local to the call ([`scope`]). Outside a scope — no `progressToken`, a batch step, the
//! control centre's own calls — reporting does nothing. The MCP side ([`crate::mcp::progress`])
//! provides the sink that sends `notifications/progress`, at most ~4 a second.
use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Where a call's progress goes.
pub trait Sink: Send + Sync {
    /// Whether an update with this progress would be sent now (rate and order limits), so a
    /// message is only built when it is.
    fn due(&self, progress: f64) -> bool;
    fn send(&self, progress: f64, total: Option<f64>, message: String);
}

/// A transfer under way: its size, what to call it, and whether it counts whole MiB only.
#[derive(Debug, Clone)]
struct Transfer {
    label: String,
    total: u64,
    coarse: bool,
}

const MIB: u64 = 1024 * 1024;

tokio::task_local! {
    static SINK: Arc<dyn Sink>;
    static TRANSFER: Transfer;
}

/// Runs `f` with its progress going to `sink` (none: progress is dropped).
pub async fn scope<F: Future>(sink: Option<Arc<dyn Sink>>, f: F) -> F::Output {
    match sink {
        Some(s) => SINK.scope(s, f).await,
        None => f.await,
    }
}

/// Whether the running call reports progress at all.
pub fn wanted() -> bool {
    SINK.try_with(|_| ()).is_ok()
}

/// Reports the running call's progress (`progress` grows; `total` when known).
pub fn report(progress: f64, total: Option<f64>, message: impl FnOnce() -> String) {
    let _ = SINK.try_with(|s| {
        if s.due(progress) {
            s.send(progress, total, message());
        }
    });
}

/// Runs `f`; once it has taken longer than `after`, reports the seconds elapsed as
/// "`what`: 1.5 s" every quarter second (the sink limits the rate).
pub async fn ticking<F: Future>(what: &str, after: Duration, f: F) -> F::Output {
    if !wanted() {
        return f.await;
    }
    let start = Instant::now();
    let mut f = std::pin::pin!(f);
    let mut tick = tokio::time::interval(Duration::from_millis(250));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            out = &mut f => return out,
            _ = tick.tick() => {
                let elapsed = start.elapsed();
                if elapsed >= after {
                    let secs = elapsed.as_secs_f64();
                    report(secs, None, || format!("{what}: {secs:.1} s"));
                }
            }
        }
    }
}

/// Runs a file transfer of `total` bytes; the device layer's [`bytes`] calls inside it report
/// "`label`: 65536 of 1048576 bytes".
pub async fn transfer<F: Future>(label: String, total: u64, f: F) -> F::Output {
    scoped(label, total, false, f).await
}

/// Runs a file transfer of `total` bytes whose exact size the result may withhold (a pull: a
/// file holding a hidden value comes without its size, which with the rest of the text would
/// tell the hidden part's length): progress counts whole MiB received of the size rounded up
/// to whole MiB ("`label`: 3 of 12 MiB"), never a byte count.
pub async fn transfer_in_mib<F: Future>(label: String, total: u64, f: F) -> F::Output {
    scoped(label, total, true, f).await
}

async fn scoped<F: Future>(label: String, total: u64, coarse: bool, f: F) -> F::Output {
    if !wanted() {
        return f.await;
    }
    TRANSFER
        .scope(
            Transfer {
                label,
                total,
                coarse,
            },
            f,
        )
        .await
}

/// The device layer moved `done` bytes of the transfer under way.
pub fn bytes(done: u64) {
    let _ = TRANSFER.try_with(|t| {
        if t.coarse {
            let (done, total) = (done / MIB, t.total.div_ceil(MIB).max(1));
            report(done as f64, Some(total as f64), || {
                format!("{}: {done} of {total} MiB", t.label)
            })
        } else {
            report(done as f64, Some(t.total as f64), || {
                format!("{}: {done} of {} bytes", t.label, t.total)
            })
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    #[derive(Default)]
    struct Kept(Mutex<Vec<(f64, Option<f64>, String)>>);
    impl Sink for Kept {
        fn due(&self, _: f64) -> bool {
            true
        }
        fn send(&self, p: f64, t: Option<f64>, m: String) {
            self.0.lock().unwrap().push((p, t, m));
        }
    }

    #[tokio::test]
    async fn without_a_scope_reporting_is_a_no_op() {
        assert!(!wanted());
        report(1.0, None, || {
            unreachable!("no message is built without a sink")
        });
        bytes(5);
        assert_eq!(ticking("x", Duration::ZERO, async { 7 }).await, 7);
    }

    #[tokio::test]
    async fn transfers_report_bytes_of_total() {
        let kept = Arc::new(Kept::default());
        let sink: Arc<dyn Sink> = kept.clone();
        scope(
            Some(sink),
            transfer("pull of /sdcard/a".into(), 100, async { bytes(40) }),
        )
        .await;
        let got = kept.0.lock().unwrap().clone();
        assert_eq!(
            got,
            vec![(
                40.0,
                Some(100.0),
                "pull of /sdcard/a: 40 of 100 bytes".to_string()
            )]
        );
    }

    /// A transfer whose size the result may withhold tells whole MiB only: 34 bytes of 34 is
    /// "0 of 1 MiB", 3.5 MiB of 12.2 MiB "3 of 13 MiB".
    #[tokio::test]
    async fn a_coarse_transfer_tells_no_byte_count() {
        let kept = Arc::new(Kept::default());
        let sink: Arc<dyn Sink> = kept.clone();
        scope(
            Some(sink),
            transfer_in_mib("pull of /sdcard/a".into(), 34, async { bytes(34) }),
        )
        .await;
        let kept2 = Arc::new(Kept::default());
        let sink: Arc<dyn Sink> = kept2.clone();
        scope(
            Some(sink),
            transfer_in_mib("pull of /sdcard/b".into(), 12 * MIB + MIB / 5, async {
                bytes(3 * MIB + MIB / 2)
            }),
        )
        .await;
        let got: Vec<_> = [kept, kept2]
            .iter()
            .flat_map(|k| k.0.lock().unwrap().clone())
            .collect();
        assert_eq!(
            got,
            vec![
                (0.0, Some(1.0), "pull of /sdcard/a: 0 of 1 MiB".to_string()),
                (
                    3.0,
                    Some(13.0),
                    "pull of /sdcard/b: 3 of 13 MiB".to_string()
                ),
            ]
        );
    }
}
