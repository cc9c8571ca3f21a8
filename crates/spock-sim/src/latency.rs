//! Phone-like latency and a command meter for one virtual device.
//!
//! The virtual device answers in microseconds; a phone takes tens to thousands of milliseconds
//! per command (`uiautomator dump` waits for idle and walks the accessibility tree, `input`
//! starts a JVM, `screencap -p` encodes a PNG). A [`Profile`] gives each kind of command a cost
//! and a spread ([`profile`] holds the table and where each figure comes from); the front doors
//! ask [`Pacer::charge`] how long to hold a service before running it. The same call counts
//! every command by kind and the device time charged, so a benchmark can read how many device
//! round trips a task took (the control endpoint's `{"stats":true}`).
//!
//! Deterministic: the spread is drawn from a seeded generator per device, so a run with the same
//! seed and the same command order is charged the same times. The default is instant.
use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::Duration;

use serde::Serialize;

use crate::services::Service;

pub mod profile;

pub use profile::{Class, Profile};

/// Commands and device time charged for one kind of command.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Tally {
    pub count: u64,
    pub device_ms: u64,
    /// What the same commands cost at the profile's medians: the charge without the random
    /// spread, so two runs that drew differently still compare command for command.
    pub median_ms: u64,
}

/// What one device was asked since start (or the last reset).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Stats {
    pub profile: &'static str,
    /// Services opened: shell and exec command lines, sync sessions, framebuffer grabs.
    pub services: u64,
    /// Simple commands by kind (a line `a && b` counts both).
    pub commands: BTreeMap<&'static str, Tally>,
    pub total_commands: u64,
    pub total_device_ms: u64,
    /// `total_device_ms` at the profile's medians (see [`Tally::median_ms`]).
    pub total_median_ms: u64,
}

#[derive(Debug)]
struct Inner {
    profile: Profile,
    rng: u64,
    stats: Stats,
}

/// The latency switch and the meter of one device.
#[derive(Debug)]
pub struct Pacer {
    inner: Mutex<Inner>,
}

impl Default for Pacer {
    fn default() -> Self {
        Pacer {
            inner: Mutex::new(Inner {
                profile: Profile::Instant,
                rng: DEFAULT_SEED,
                stats: Stats {
                    profile: Profile::Instant.name(),
                    ..Stats::default()
                },
            }),
        }
    }
}

const DEFAULT_SEED: u64 = 0x0005_eed0_fa11;

/// splitmix64: tiny, seedable, good enough to spread costs.
fn next(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl Pacer {
    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Switch the profile; the generator restarts from `seed` (default fixed), the meter stays.
    pub fn set(&self, profile: Profile, seed: Option<u64>) {
        let mut g = self.lock();
        g.profile = profile;
        g.rng = seed.unwrap_or(DEFAULT_SEED);
        g.stats.profile = profile.name();
    }

    pub fn profile(&self) -> Profile {
        self.lock().profile
    }

    pub fn stats(&self) -> Stats {
        self.lock().stats.clone()
    }

    pub fn reset_stats(&self) {
        let mut g = self.lock();
        let profile = g.profile.name();
        g.stats = Stats {
            profile,
            ..Stats::default()
        };
    }

    /// Count the service's commands and return how long the device would take to answer it.
    pub fn charge(&self, service: &Service) -> Duration {
        let commands = profile::commands_of(service);
        let mut g = self.lock();
        let Inner {
            profile,
            rng,
            stats,
        } = &mut *g;
        stats.services += 1;
        let mut total = 0u64;
        for (class, extra_ms) in commands {
            let cost = profile.cost(class);
            let ms = if cost.spread_ms == 0 {
                cost.median_ms
            } else {
                // Uniform in [median - spread, median + spread].
                let span = 2 * cost.spread_ms + 1;
                (cost.median_ms + next(rng) % span).saturating_sub(cost.spread_ms)
            };
            let (ms, median) = if *profile == Profile::Instant {
                (0, 0)
            } else {
                (ms + extra_ms, cost.median_ms + extra_ms)
            };
            let t = stats.commands.entry(class.name()).or_default();
            t.count += 1;
            t.device_ms += ms;
            t.median_ms += median;
            stats.total_commands += 1;
            stats.total_device_ms += ms;
            stats.total_median_ms += median;
            total += ms;
        }
        Duration::from_millis(total)
    }
}

#[cfg(test)]
mod tests;
