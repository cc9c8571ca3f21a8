//! The trail against its anchors. Every rule only adds findings, so an anchor anyone could
//! have forged can raise an alarm but never quiet one:
//!
//! - two anchors with different hashes for one seq: that record was rewritten;
//! - an anchored seq beyond the trail's last record: records were removed from its end
//!   (or the file emptied or deleted);
//! - an anchored seq in the file with another hash: that record was rewritten;
//! - an anchored seq missing from the file: deleted (below the oldest record left, that may
//!   be the size cap; it is said, not excused, until cap deletions are checked against the
//!   run's own anchors and sizes);
//! - a record without `prev` after the first anchor: the chain was stripped.
use std::collections::{BTreeMap, HashMap};

use super::Anchor;
use crate::audit::GENESIS;

/// What the walk of the trail found that the anchors are checked against.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileFacts {
    pub first_seq: Option<u64>,
    pub last_seq: Option<u64>,
    /// The hash of each anchored seq that is in the file.
    pub hashes: HashMap<u64, String>,
    /// The highest seq of a record without `prev`.
    pub last_unchained: Option<u64>,
}

/// What the anchors say about the trail.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AnchorReport {
    /// This trail's anchors read (others' in the same log are passed over).
    pub anchors: usize,
    /// Anchors of other trails (other users or homes) in the log.
    pub foreign: usize,
    /// Server runs that anchored this trail.
    pub runs: usize,
    /// The highest anchored seq.
    pub highest: Option<u64>,
    /// Each finding, one sentence; empty when the trail agrees with every anchor.
    pub tampered: Vec<String>,
    /// Anchored records older than the trail's oldest: the size cap's doing, or not.
    pub deleted_below: Option<u64>,
}

/// The seqs whose hashes [`check`] needs from the file.
pub fn wanted(anchors: &[Anchor]) -> std::collections::HashSet<u64> {
    anchors.iter().map(|a| a.seq).filter(|&s| s > 0).collect()
}

/// `anchors` are this trail's (see [`super::trail_id`]).
pub fn check(anchors: &[Anchor], file: &FileFacts) -> AnchorReport {
    let mut r = AnchorReport {
        anchors: anchors.len(),
        runs: anchors
            .iter()
            .map(|a| a.run.as_str())
            .collect::<std::collections::HashSet<_>>()
            .len(),
        highest: anchors.iter().map(|a| a.seq).max(),
        ..AnchorReport::default()
    };
    let mut by_seq: BTreeMap<u64, Vec<&Anchor>> = BTreeMap::new();
    for a in anchors {
        by_seq.entry(a.seq).or_default().push(a);
    }
    let mut beyond: Option<u64> = None;
    let mut missing: Vec<u64> = Vec::new();
    for (&seq, list) in &by_seq {
        let first = list[0];
        if let Some(other) = list.iter().find(|a| a.hash != first.hash) {
            r.tampered.push(format!(
                "seq {seq} was anchored with two different hashes ({} by run {}, {} by run {}): the record was rewritten",
                short(&first.hash),
                first.run,
                short(&other.hash),
                other.run
            ));
            continue;
        }
        if seq == 0 {
            if first.hash != GENESIS {
                r.tampered.push(format!(
                    "an anchor says the trail was empty with hash {} (not the genesis hash)",
                    short(&first.hash)
                ));
            }
            continue;
        }
        match file.hashes.get(&seq) {
            Some(h) if *h == first.hash => {}
            Some(h) => r.tampered.push(format!(
                "seq {seq} was rewritten: anchored with hash {}, the file's record hashes to {}",
                short(&first.hash),
                short(h)
            )),
            None if file.last_seq.is_none_or(|l| seq > l) => {
                beyond = Some(beyond.map_or(seq, |b: u64| b.max(seq)))
            }
            None => missing.push(seq),
        }
    }
    if let Some(b) = beyond {
        r.tampered.push(match file.last_seq {
            Some(l) => format!(
                "records up to seq {b} were anchored but the trail ends at seq {l}: records were removed from its end"
            ),
            None => format!(
                "records up to seq {b} were anchored but the trail holds none: it was emptied or deleted"
            ),
        });
    }
    let first_on_disk = file.first_seq.unwrap_or(u64::MAX);
    let (below, gaps): (Vec<u64>, Vec<u64>) = missing.into_iter().partition(|&s| s < first_on_disk);
    if let Some(&b) = below.last() {
        r.deleted_below = Some(b);
        r.tampered.push(format!(
            "{} anchored record(s) up to seq {b} are no longer in the trail (it starts at seq {first_on_disk}): deleted, by the size cap or by hand (not yet told apart)",
            below.len()
        ));
    }
    for s in gaps {
        r.tampered.push(format!(
            "seq {s} was anchored but is missing from the trail: deleted"
        ));
    }
    let first_anchor = by_seq.keys().next().copied();
    if let (Some(u), Some(a)) = (file.last_unchained, first_anchor)
        && u > a
    {
        r.tampered.push(format!(
            "record seq {u} has no hash of the previous record but comes after the first anchor (seq {a}): the chain was stripped"
        ));
    }
    r
}

fn short(h: &str) -> &str {
    &h[..h.len().min(12)]
}
