//! One call at a time per thing a call creates on a device. A push to a path that does not
//! exist yet, and the install of a package the device does not have, are safe actions: nobody
//! is asked, because nothing is replaced. That holds only if nothing else creates the same
//! file or package between the check and the write: two agents pushing to one new path at once
//! (or installing one new package) would each find it absent, and the second would replace the
//! first's without anyone being asked. A call holds the claim on its target (the device, by its
//! identity when known, so every name of one phone is one target, and the path or package) from
//! its last check to the end of its write; a second call waits, then checks again and finds it.
//!
//! The same holds for the screen of a device whose Interact is limited to some apps: an element
//! action checks its node's app on the dump it taps from, and another call moving the screen
//! between that dump and the tap (stopping the allowed app, a key) would land the tap in an app
//! the list leaves out. Agents' actions on such a device take the screen's claim, one at a time.
use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};

use tokio::sync::{Mutex as AsyncMutex, OwnedMutexGuard};

/// What a call creates: a file at a path, or a package.
#[derive(Debug, Clone, Copy)]
pub enum Target<'a> {
    File(&'a str),
    Package(&'a str),
    /// The screen: actions on a device whose Interact is limited to some apps.
    Screen,
}

#[derive(Debug, Default)]
pub struct Claims {
    held: Mutex<HashMap<String, Weak<AsyncMutex<()>>>>,
}

/// A held claim; released when dropped.
pub struct Claim(#[allow(dead_code)] OwnedMutexGuard<()>);

impl Claims {
    /// Waits for and takes the claim on `target` of `device` (its identity or full name).
    pub async fn claim(&self, device: &str, target: Target<'_>) -> Claim {
        let key = match target {
            Target::File(p) => format!("{device}\u{0}file\u{0}{p}"),
            Target::Package(p) => format!("{device}\u{0}package\u{0}{p}"),
            Target::Screen => format!("{device}\u{0}screen"),
        };
        let lock = {
            let mut held = self.held.lock().unwrap_or_else(|p| p.into_inner());
            held.retain(|_, w| w.strong_count() > 0);
            match held.get(&key).and_then(Weak::upgrade) {
                Some(l) => l,
                None => {
                    let l = Arc::new(AsyncMutex::new(()));
                    held.insert(key, Arc::downgrade(&l));
                    l
                }
            }
        };
        Claim(lock.lock_owned().await)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn a_second_claim_on_the_same_target_waits_for_the_first() {
        let c = Arc::new(Claims::default());
        let first = c.claim("phone", Target::File("/sdcard/a")).await;
        // Another path, another package, another phone: not held up.
        let _other = c.claim("phone", Target::File("/sdcard/b")).await;
        let _pkg = c.claim("phone", Target::Package("/sdcard/a")).await;
        let _elsewhere = c.claim("tablet", Target::File("/sdcard/a")).await;
        let c2 = c.clone();
        let second =
            tokio::spawn(async move { c2.claim("phone", Target::File("/sdcard/a")).await });
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(!second.is_finished(), "waits while the first holds it");
        drop(first);
        let _second = tokio::time::timeout(Duration::from_secs(5), second)
            .await
            .expect("taken once released")
            .unwrap();
    }
}
