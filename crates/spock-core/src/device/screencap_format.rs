//! Which `screencap` a device answers sooner: the raw frame or the PNG.
//!
//! A phone spends most of `screencap -p` encoding the PNG (published medians ~1.5–2.1 s against
//! 675 ms raw, BENCHMARKS.md §10), so raw is asked first. Where the device is fast (an emulator
//! or virtual device on the same host) the raw frame's megabytes through adb cost more than the
//! device's PNG encoding (10 MB raw in ~60 ms against a 130 KB PNG in ~10 ms on the virtual
//! device), so a device whose raw frame came back quickly is tried once with `-p`, and from then
//! on each capture takes whichever answered sooner last time.
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use super::Device;

/// Below this a raw frame came from a fast device, where the PNG may well be quicker: try it.
const FAST_RAW: Duration = Duration::from_millis(300);

#[derive(Debug, Default, Clone, Copy)]
struct Last {
    raw: Option<Duration>,
    png: Option<Duration>,
}

/// The last time of each kind of capture, per device (shared by every handle).
#[derive(Debug, Default)]
pub(crate) struct ShotSpeed {
    by_device: Mutex<HashMap<String, Last>>,
}

impl ShotSpeed {
    fn with<T>(&self, serial: &str, f: impl FnOnce(&mut Last) -> T) -> T {
        // Plain data: a panic elsewhere while holding it leaves nothing half-done.
        let mut g = self.by_device.lock().unwrap_or_else(|p| p.into_inner());
        f(g.entry(serial.to_string()).or_default())
    }
}

fn prefers_png(last: Last) -> bool {
    match (last.raw, last.png) {
        (None, _) => false,
        (Some(raw), None) => raw < FAST_RAW,
        (Some(raw), Some(png)) => png < raw,
    }
}

impl Device {
    /// Whether the next screenshot should ask for `screencap -p` rather than a raw frame.
    pub fn screencap_prefers_png(&self) -> bool {
        self.inner
            .shot_speed
            .with(self.serial(), |l| prefers_png(*l))
    }

    /// Records how long a successful `screencap` (`png`: with `-p`) took, transfer included.
    pub fn note_screencap(&self, png: bool, took: Duration) {
        self.inner.shot_speed.with(self.serial(), |l| {
            if png {
                l.png = Some(took);
            } else {
                l.raw = Some(took);
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Option<Duration> {
        Some(Duration::from_millis(n))
    }

    #[test]
    fn raw_first_png_tried_only_on_a_fast_device_then_the_quicker_wins() {
        assert!(!prefers_png(Last::default()), "first capture: raw");
        // A phone: raw 675 ms is not fast; the PNG is never tried.
        assert!(!prefers_png(Last {
            raw: ms(675),
            png: None
        }));
        // The virtual device: raw in 70 ms, so the PNG is tried...
        assert!(prefers_png(Last {
            raw: ms(70),
            png: None
        }));
        // ...and kept when it was quicker (15 ms), dropped when it was slower (an emulator
        // encoding a large PNG in 2 s).
        assert!(prefers_png(Last {
            raw: ms(70),
            png: ms(15)
        }));
        assert!(!prefers_png(Last {
            raw: ms(120),
            png: ms(2000)
        }));
    }
}
