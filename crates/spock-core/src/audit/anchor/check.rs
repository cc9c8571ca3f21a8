//! The trail against its anchors. Every rule only adds findings, so an anchor anyone could
//! have forged can raise an alarm but never quiet one:
//!
//! - two anchors with different hashes for one seq: that record was rewritten;
//! - an anchored seq beyond the trail's last record: records were removed from its end
//!   (or the file emptied or deleted); a torn last line whose seq was anchored was cut, not
//!   torn by a crash (an anchored record is on disk before its anchor leaves);
//! - an anchored seq in the file with another hash: that record was rewritten;
//! - an anchored seq missing in the middle of the file: deleted;
//! - anchored seqs missing below the oldest record: deleted by hand, unless a deletion at the
//!   size cap accounts for them: a `cap` anchor naming the trail's oldest seq, from a run whose
//!   `start` anchor (sent before it) states the same cap, with the trail from its oldest record
//!   to the cap anchor's seq as large as such a deletion leaves it (within two rotation sizes of
//!   the cap). An agent can forge a `cap` anchor, but it cannot make the anchored, hash-fixed
//!   part of the trail larger;
//! - every record anchored as destructive, denied or refused (`record`) and below the oldest
//!   record must be in the kept file with its anchored hash (the kept file's own cap is judged
//!   the same way, by its `kept-cap` anchor and size); a kept line whose hash disagrees with its
//!   anchor, or that was never anchored although anchoring had begun, is forged;
//! - a record without `prev` after the first anchor: the chain was stripped.
use std::collections::{BTreeMap, HashMap};

use super::{Anchor, Reason};
use crate::audit::GENESIS;

/// What the walk of the trail found that the anchors are checked against.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileFacts {
    pub first_seq: Option<u64>,
    pub last_seq: Option<u64>,
    /// The hash of each anchored seq that is in the file.
    pub hashes: HashMap<u64, String>,
    /// For each anchored seq in the file: the bytes of the trail's lines from its oldest
    /// through that record.
    pub bytes_at: HashMap<u64, u64>,
    /// The highest seq of a record without `prev`.
    pub last_unchained: Option<u64>,
    /// The seq of a torn (incomplete, unreadable) last line of the live file.
    pub torn: Option<u64>,
    /// The kept file, when it was read.
    pub kept: Option<KeptFacts>,
}

/// The kept file (`audit.kept.jsonl`) as read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KeptFacts {
    /// Each line's seq and hash, in file order.
    pub lines: Vec<(u64, String)>,
    /// Each line's size with its newline, in the same order.
    pub sizes: Vec<u64>,
    /// Lines that are not records.
    pub unreadable: usize,
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
    /// What was found and is not tampering (a deletion at the cap that the anchors account
    /// for, a crash's torn line), one sentence each.
    pub notes: Vec<String>,
}

/// The kept file's cap for a trail capped at `cap` bytes.
pub fn kept_cap(cap: u64) -> u64 {
    (cap / 4).max(64 * 1024)
}

/// The live file's rotation size for a trail capped at `cap` bytes (as [`crate::audit::Limits`]).
fn rotate_bytes(cap: u64) -> u64 {
    (cap / 8).clamp(64 * 1024, 64 * 1024 * 1024)
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
        match cap_deletion(anchors, file, first_on_disk) {
            Ok(why) => r.notes.push(format!(
                "{} anchored record(s) up to seq {b} were deleted at the size cap ({why})",
                below.len()
            )),
            Err(why) => r.tampered.push(format!(
                "{} anchored record(s) up to seq {b} are no longer in the trail (it starts at seq {first_on_disk}): deleted by hand; {why}",
                below.len()
            )),
        }
    }
    for s in gaps {
        r.tampered.push(format!(
            "seq {s} was anchored but is missing from the trail: deleted"
        ));
    }
    if let Some(t) = file.torn {
        if by_seq.contains_key(&t) {
            r.tampered.push(format!(
                "the last record (seq {t}) is cut mid-record, and it was anchored: truncated by hand (a crash cannot tear an anchored record: it is on disk before its anchor is sent)"
            ));
        } else {
            r.notes.push(format!(
                "the last line (seq {t}) is torn and was never anchored: a crash artefact (a process killed mid-write); the server drops it at its next start"
            ));
        }
    }
    if let Some(k) = &file.kept {
        check_kept(anchors, &by_seq, k, first_on_disk, &mut r);
    }
    unvouched(anchors, file, &mut r);
    interleaved(anchors, &mut r);
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

/// The cap run `run` stated in its start anchor before index `at`, and the cap of the run
/// that started before it (when lower now: the person lowered it between runs).
fn run_cap(anchors: &[Anchor], at: usize, run: &str) -> Result<(u64, Option<u64>), String> {
    let starts: Vec<(usize, &Anchor)> = anchors[..at]
        .iter()
        .enumerate()
        .filter(|(_, a)| a.run == run && a.reason == Reason::Start)
        .collect();
    let caps: std::collections::BTreeSet<u64> = starts.iter().filter_map(|(_, a)| a.cap).collect();
    let [cap] = caps.iter().copied().collect::<Vec<_>>()[..] else {
        return Err(if caps.is_empty() {
            format!("run {run} anchored no start with its cap before")
        } else {
            format!("run {run} anchored two different caps")
        });
    };
    let before = anchors[..starts[0].0]
        .iter()
        .rev()
        .find(|a| a.reason == Reason::Start && a.run != run)
        .and_then(|a| a.cap);
    Ok((cap, before))
}

/// Whether a deletion at the size cap accounts for the trail starting at `first`: `Ok` with
/// why, or `Err` with why not. An honest deletion leaves the trail over the cap less the last
/// file it deleted (a rotation's size, plus at most its last line: half a rotation is allowed
/// for that); a cap lowered between runs may delete more, and is said.
fn cap_deletion(anchors: &[Anchor], file: &FileFacts, first: u64) -> Result<String, String> {
    let caps: Vec<(usize, &Anchor)> = anchors
        .iter()
        .enumerate()
        .filter(|(_, a)| a.reason == Reason::Cap && a.first == Some(first))
        .collect();
    if caps.is_empty() {
        return Err(format!(
            "no deletion at the size cap was anchored that left seq {first} the oldest"
        ));
    }
    let mut why_not = Vec::new();
    for (at, c) in caps {
        let (cap, before) = match run_cap(anchors, at, &c.run) {
            Ok(x) if c.cap == Some(x.0) => x,
            Ok(_) => {
                why_not.push(format!(
                    "run {}'s cap anchor disagrees with its start anchor",
                    c.run
                ));
                continue;
            }
            Err(e) => {
                why_not.push(e);
                continue;
            }
        };
        if let Some(b) = before.filter(|&b| b > cap) {
            return Ok(format!(
                "run {} anchored it after the cap was lowered from {b} to {cap} bytes between runs; believed without a size check, which a forged run could claim too (kept records are checked on their own)",
                c.run
            ));
        }
        // Nothing older left at all (the cap anchor's head was deleted too): 0 bytes left.
        let left = match file.bytes_at.get(&c.seq) {
            Some(&l) => l,
            None if c.seq < first => 0,
            None => {
                why_not.push(format!(
                    "the cap anchor of run {} names seq {}, not in the trail",
                    c.run, c.seq
                ));
                continue;
            }
        };
        let slack = rotate_bytes(cap) + rotate_bytes(cap) / 2;
        if left <= cap && left + slack > cap {
            return Ok(format!(
                "run {} anchored it; the {left} bytes left are what a {cap}-byte cap leaves",
                c.run
            ));
        }
        why_not.push(format!(
            "a cap anchor of run {} claims it, but the {left} bytes left from seq {first} to seq {} are below what that run's {cap}-byte cap leaves (more than {}): no deletion at the cap leaves so little",
            c.run,
            c.seq,
            cap.saturating_sub(slack)
        ));
    }
    Err(why_not.join("; "))
}

/// The kept file against the anchors: its lines are the trail's lines byte for byte, and every
/// record anchored as destructive, denied or refused below the trail's oldest must be there.
fn check_kept(
    anchors: &[Anchor],
    by_seq: &BTreeMap<u64, Vec<&Anchor>>,
    k: &KeptFacts,
    first_on_disk: u64,
    r: &mut AnchorReport,
) {
    let first_anchor = anchors.iter().filter(|a| a.seq > 0).map(|a| a.seq).min();
    let mut held: HashMap<u64, &str> = HashMap::new();
    for (seq, hash) in &k.lines {
        held.insert(*seq, hash);
        match by_seq.get(seq) {
            Some(list) if list.iter().any(|a| a.hash == *hash) => {}
            Some(list) => r.tampered.push(format!(
                "the kept file's record seq {seq} hashes to {}, but seq {seq} was anchored with {}: forged or rewritten",
                short(hash),
                short(&list[0].hash)
            )),
            // Anchoring began at or before it (a start anchor names the head, so any
            // record after the first anchor was written by an anchoring server).
            None if first_anchor.is_some_and(|f| *seq > f)
                || anchors.iter().any(|a| a.seq == 0) =>
            {
                r.tampered.push(format!(
                    "the kept file holds seq {seq}, which was never anchored although its trail was anchored by then: forged (or its anchor never arrived)"
                ))
            }
            None => {}
        }
    }
    if k.unreadable > 0 {
        r.tampered.push(format!(
            "the kept file has {} line(s) that are not records",
            k.unreadable
        ));
    }
    let lost: Vec<u64> = by_seq
        .iter()
        .filter(|(s, list)| {
            **s < first_on_disk
                && list.iter().any(|a| a.reason == Reason::Record)
                && !held.contains_key(s)
        })
        .map(|(s, _)| *s)
        .collect();
    if lost.is_empty() {
        return;
    }
    // Only refused records ever leave the kept file, at its own cap: believed for a trim the
    // writer anchored right after a cap deletion (the only time it trims), from a run whose
    // start states the cap, with the kept file still holding at least half its cap of records
    // gone from the trail. A destructive call that ran, a denied one: never excused.
    let refused = |s: u64| {
        by_seq.get(&s).is_some_and(|l| {
            l.iter()
                .filter(|a| a.reason == Reason::Record)
                .all(|a| a.outcome.as_deref() == Some("refused"))
        })
    };
    let trim = kept_trim(anchors, k, first_on_disk);
    let mut excused = 0;
    let mut why_not = None;
    let mut gone = Vec::new();
    for s in lost {
        match &trim {
            Ok((upto, _)) if refused(s) && s < *upto => excused += 1,
            Err(why) if refused(s) => {
                why_not.get_or_insert_with(|| why.clone());
                gone.push(s);
            }
            _ => gone.push(s),
        }
    }
    if let (Ok((_, run)), true) = (&trim, excused > 0) {
        r.notes.push(format!(
            "{excused} refused record(s) were dropped at the kept file's own cap (anchored by run {run})"
        ));
    }
    if let Some(why) = why_not {
        r.tampered.push(format!(
            "refused records are gone from the kept file and no trim at its cap accounts for it: {why}"
        ));
    }
    let lost = gone;
    for s in lost {
        r.tampered.push(format!(
            "seq {s} was anchored as a destructive, denied or refused record and is gone from both the trail and {}: deleted",
            crate::audit::KEPT_FILE
        ));
    }
}

/// The newest believable trim at the kept file's cap: the seq below which it dropped refused
/// records, and its run; or why there is none.
fn kept_trim(
    anchors: &[Anchor],
    k: &KeptFacts,
    first_on_disk: u64,
) -> Result<(u64, String), String> {
    let mut why_not = vec!["no trim at the kept file's cap was anchored".to_string()];
    let mut best: Option<(u64, String)> = None;
    for (at, t) in anchors.iter().enumerate() {
        let (Reason::KeptCap, Some(upto)) = (t.reason, t.first) else {
            continue;
        };
        if best.is_none() {
            why_not.clear();
        }
        let paired = anchors[..at]
            .iter()
            .rev()
            .find(|a| a.run == t.run)
            .filter(|a| a.reason == Reason::Cap && a.seq == t.seq)
            .and_then(|a| a.first);
        let Some(trail_first) = paired else {
            why_not.push(format!(
                "run {}'s kept-cap anchor does not follow a cap deletion of its own",
                t.run
            ));
            continue;
        };
        let cap = match run_cap(anchors, at, &t.run) {
            Ok((c, _)) if t.cap == Some(kept_cap(c)) => kept_cap(c),
            Ok(_) => {
                why_not.push(format!(
                    "run {}'s kept-cap anchor disagrees with its start",
                    t.run
                ));
                continue;
            }
            Err(e) => {
                why_not.push(e);
                continue;
            }
        };
        // What the kept file held then: records the trail had lost by that deletion (later
        // deletions add newer ones; copies of records still in the trail do not count).
        let left: u64 = k
            .lines
            .iter()
            .zip(&k.sizes)
            .filter(|((s, _), _)| *s < first_on_disk.min(trail_first))
            .map(|(_, n)| *n)
            .sum();
        if left >= cap / 2 {
            if best.as_ref().is_none_or(|(u, _)| upto > *u) {
                best = Some((upto, t.run.clone()));
            }
        } else {
            why_not.push(format!(
                "run {}'s kept-cap anchor claims a trim, but the kept file holds {left} bytes of deleted records, not what a trim at {cap} bytes leaves",
                t.run
            ));
        }
    }
    best.ok_or_else(|| why_not.join("; "))
}

/// One server at a time writes a trail (its lock), so once a run has started, no earlier run
/// anchors a record after that start: an earlier run's anchor beyond a later run's first one
/// means one of them is forged. (An earlier run's last anchors may still arrive after the next
/// run's first, over another connection; they name nothing past where the next run began.)
fn interleaved(anchors: &[Anchor], r: &mut AnchorReport) {
    let mut seen: Vec<(&str, u64)> = Vec::new();
    for a in anchors {
        match seen.iter().position(|&(x, _)| x == a.run) {
            None => seen.push((&a.run, a.seq)),
            Some(i) => {
                if let Some((later, from)) = seen[i + 1..].iter().find(|&&(_, from)| a.seq > from) {
                    r.tampered.push(format!(
                        "run {} anchored seq {} after run {later} had started at seq {from} (one server writes a trail at a time): one of them is forged",
                        a.run, a.seq
                    ));
                    return;
                }
            }
        }
    }
}

/// Records nothing outside the file vouches for: written after a run stopped and before the
/// next one started (by a run that did not anchor, `audit.anchor = "off"`, or added by hand),
/// or after the last anchor (the seconds before a crash, or a run that did not anchor).
fn unvouched(anchors: &[Anchor], file: &FileFacts, r: &mut AnchorReport) {
    let mut stopped: Option<&Anchor> = None;
    for a in anchors {
        match a.reason {
            Reason::Stop => stopped = Some(a),
            Reason::Start => {
                if let Some(s) = stopped.take()
                    && s.run != a.run
                    && a.seq > s.seq
                {
                    r.notes.push(format!(
                        "records seq {}..={} were written after run {} stopped and before run {} started: by a server that did not anchor, or added by hand",
                        s.seq + 1,
                        a.seq,
                        s.run,
                        a.run
                    ));
                }
            }
            _ => {}
        }
    }
    // A run that never sent its stop anchor was killed or crashed: what it wrote after its
    // last anchor may have been cut before the next run anchored the head (the newest run may
    // still be running).
    let mut runs: Vec<&str> = Vec::new();
    for a in anchors {
        if !runs.contains(&a.run.as_str()) {
            runs.push(&a.run);
        }
    }
    for run in runs.iter().take(runs.len().saturating_sub(1)) {
        let mine = anchors.iter().filter(|a| a.run == *run);
        if mine.clone().any(|a| a.reason == Reason::Stop) {
            continue;
        }
        if let Some(last) = mine.map(|a| a.seq).max() {
            r.notes.push(format!(
                "run {run} ended without its stop anchor (killed or crashed) after seq {last}: records it wrote after that, if any, are not vouched for"
            ));
        }
    }
    if let (Some(l), Some(h)) = (file.last_seq, r.highest)
        && l > h
    {
        r.notes.push(format!(
            "records seq {}..={l} were never anchored (written after the last anchor: the seconds before a crash, or by a server that did not anchor): nothing outside the file vouches for them",
            h + 1
        ));
    }
}

fn short(h: &str) -> &str {
    &h[..h.len().min(12)]
}
