//! CPU-heavy image work (decoding, downscaling, encoding screenshots), bounded to the cores and
//! kept off the async runtime.
//!
//! Unbounded, every concurrent screenshot call got a blocking thread of its own: 16 clients
//! raised a cheap call's p50 from 2.5 to 38.7 ms and memory to 494 MB, 303 MB of it still held
//! when idle (glibc keeps freed memory in per-thread arenas). Here at most one job per core runs
//! at a time, later ones wait their turn without holding a thread, and once the pool has been
//! idle for a moment after a burst the allocator is asked to hand free memory back.
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use tokio::sync::Semaphore;

struct Pool {
    slots: Arc<Semaphore>,
    running: AtomicUsize,
    /// Jobs ever started: a trim scheduled when the pool went idle runs only if none started
    /// since.
    started: AtomicUsize,
}

/// How long the pool must stay idle before free memory is handed back: long enough for the
/// replies of the burst's last calls (encoded after the conversion) to be freed too.
pub const TRIM_AFTER: Duration = Duration::from_secs(2);

fn pool() -> &'static Pool {
    static POOL: OnceLock<Pool> = OnceLock::new();
    POOL.get_or_init(|| Pool {
        slots: Arc::new(Semaphore::new(limit())),
        running: AtomicUsize::new(0),
        started: AtomicUsize::new(0),
    })
}

/// How many image jobs may run at once: one per core.
pub fn limit() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get())
}

/// Jobs running right now (for tests and status).
pub fn running() -> usize {
    pool().running.load(Ordering::SeqCst)
}

/// Runs `job` on a blocking thread once a slot is free. An error means the job panicked.
pub async fn run<T, F>(job: F) -> Result<T, String>
where
    F: FnOnce() -> T + Send + 'static,
    T: Send + 'static,
{
    let p = pool();
    let permit = p
        .slots
        .clone()
        .acquire_owned()
        .await
        .map_err(|_| "the image pool is closed".to_string())?;
    p.running.fetch_add(1, Ordering::SeqCst);
    let _running = Running {
        started: p.started.fetch_add(1, Ordering::SeqCst) + 1,
    };
    tokio::task::spawn_blocking(move || {
        let out = job();
        drop(permit);
        out
    })
    .await
    .map_err(|e| format!("image worker failed: {e}"))
}

/// One job counted as running until it ends, however it ends (done, panicked, or the caller
/// gave up waiting).
struct Running {
    started: usize,
}

impl Drop for Running {
    /// The last job of a burst schedules handing back what the burst freed, once the pool has
    /// stayed idle for [`TRIM_AFTER`] (the replies are freed after the conversions end).
    fn drop(&mut self) {
        if pool().running.fetch_sub(1, Ordering::SeqCst) != 1 {
            return;
        }
        let Ok(rt) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let started = self.started;
        rt.spawn(async move {
            tokio::time::sleep(TRIM_AFTER).await;
            let p = pool();
            if p.running.load(Ordering::SeqCst) == 0 && p.started.load(Ordering::SeqCst) == started
            {
                let _ = tokio::task::spawn_blocking(release_free_memory).await;
            }
        });
    }
}

/// Called once at start: buffers of a megabyte or more (a decoded screen is 10 MB) are mapped
/// on their own and unmapped when freed. glibc otherwise raises its mmap threshold after the
/// first such free and serves later ones from per-thread heaps, where a burst of screenshots
/// left ~100 MB that no trim could return.
pub fn tune_allocator() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets an allocator parameter; called before any thread starts.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 1 << 20);
    }
}

/// Hands memory the allocator holds but does not use back to the system.
fn release_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only walks the allocator's own free lists; 0 keeps no extra pad.
    unsafe {
        libc::malloc_trim(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn never_more_jobs_at_once_than_cores_and_a_panic_frees_its_slot() {
        static PEAK: AtomicUsize = AtomicUsize::new(0);
        static NOW: AtomicUsize = AtomicUsize::new(0);
        let jobs = (0..limit() * 4).map(|_| {
            tokio::spawn(run(|| {
                let n = NOW.fetch_add(1, Ordering::SeqCst) + 1;
                PEAK.fetch_max(n, Ordering::SeqCst);
                std::thread::sleep(Duration::from_millis(20));
                NOW.fetch_sub(1, Ordering::SeqCst);
            }))
        });
        for j in futures::future::join_all(jobs).await {
            j.unwrap().unwrap();
        }
        let peak = PEAK.load(Ordering::SeqCst);
        assert!(
            peak >= 1 && peak <= limit(),
            "peak {peak} with {} slots",
            limit()
        );
        let err = run(|| -> u8 { panic!("bad image") }).await.unwrap_err();
        assert!(err.contains("image worker failed"), "{err}");
        // The panicked job gave its slot back: a full round still runs.
        let all = futures::future::join_all((0..limit()).map(|_| run(|| 1u8))).await;
        assert!(all.into_iter().all(|r| r == Ok(1)));
    }
}
