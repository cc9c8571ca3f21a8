//! The anchor format, reading anchors back from syslog lines, and the rules that check a trail
//! against them.
use super::*;

fn anchor(seq: u64, hash: char, reason: Reason) -> Anchor {
    Anchor {
        trail: "t1".into(),
        run: "r1".into(),
        seq,
        hash: hash.to_string().repeat(64),
        time: "2025-01-02T03:04:05.678Z".into(),
        reason,
        cap: None,
        first: None,
        outcome: None,
    }
}

fn facts(first: u64, last: u64, hashes: &[(u64, char)]) -> FileFacts {
    FileFacts {
        first_seq: Some(first),
        last_seq: Some(last),
        hashes: hashes
            .iter()
            .map(|&(s, c)| (s, c.to_string().repeat(64)))
            .collect(),
        last_unchained: None,
        ..FileFacts::default()
    }
}

#[test]
fn an_anchor_is_an_rfc5424_message_with_structured_data_and_the_same_pairs_as_text() {
    let a = anchor(42, 'a', Reason::Record);
    let m = a.rfc5424("host one", 77);
    assert!(
        m.starts_with("<85>1 2025-01-02T03:04:05.678Z hostone spock-tui 77 anchor [spock@32473 trail=\"t1\" run=\"r1\" seq=\"42\" hash=\"aaaa"),
        "{m}"
    );
    assert!(
        m.contains("reason=\"record\"] audit anchor trail=t1 run=r1 seq=42 hash="),
        "{m}"
    );
    assert_eq!(parse_line(&m), Some(a.clone()));
    // rsyslog's RFC 5424 file format keeps the element; its traditional format keeps the text.
    let sd_only = m.split("] audit anchor").next().unwrap().to_string() + "]";
    assert_eq!(parse_line(&sd_only), Some(a.clone()));
    let text = format!(
        "Jan  2 03:04:05 host spock-tui[77]: {}",
        &m[m.find("audit anchor").unwrap()..]
    );
    assert_eq!(parse_line(&text), Some(a));
}

#[test]
fn structured_data_values_are_escaped_and_read_back() {
    let mut a = anchor(1, 'b', Reason::Start);
    a.run = r#"a"b]c\d"#.into();
    let m = a.rfc5424("h", 1);
    assert!(m.contains(r#"run="a\"b\]c\\d""#), "{m}");
    let sd_only = m.split("] audit anchor").next().unwrap().to_string() + "]";
    assert_eq!(parse_line(&sd_only).map(|p| p.run), Some(a.run));
}

#[test]
fn lines_that_are_not_complete_anchors_are_passed_over() {
    assert_eq!(parse_line("Jan 1 host sshd[1]: Accepted publickey"), None);
    assert_eq!(
        parse_line("audit anchor trail=t run=r seq=1 reason=tick"),
        None
    );
    assert_eq!(
        parse_line("audit anchor trail=t run=r seq=x hash=0000 reason=tick"),
        None
    );
    let good = format!(
        "audit anchor trail=t run=r seq=3 hash={} reason=stop",
        "C".repeat(64)
    );
    let a = parse_line(&good).expect("an anchor");
    assert_eq!((a.seq, a.reason), (3, Reason::Stop));
    assert_eq!(a.hash, "c".repeat(64));
}

#[test]
fn targets_parse_and_bad_ones_are_named() {
    assert_eq!(Target::parse("off"), Ok(Target::Off));
    assert_eq!(
        Target::parse("unix:/dev/log"),
        Ok(Target::Unix("/dev/log".into()))
    );
    assert_eq!(
        Target::parse("tcp:127.0.0.1:6514"),
        Ok(Target::Tcp("127.0.0.1:6514".into()))
    );
    assert_eq!(
        Target::parse("tcp:[::1]:514"),
        Ok(Target::Tcp("[::1]:514".into()))
    );
    for bad in [
        "",
        "syslog",
        "unix:dev/log",
        "tcp:host",
        "tcp::514",
        "tcp:h:0",
        "tcp:h:99999",
    ] {
        let e = Target::parse(bad).expect_err(bad);
        assert!(e.contains("audit.anchor"), "{e}");
    }
    assert!(matches!(
        Target::parse("auto"),
        Ok(Target::Off | Target::Unix(_))
    ));
}

#[test]
fn a_trail_that_holds_every_anchored_record_agrees() {
    let anchors = [
        anchor(0, '0', Reason::Start),
        anchor(3, 'c', Reason::Record),
        anchor(5, 'e', Reason::Stop),
    ];
    let r = check(&anchors, &facts(1, 5, &[(3, 'c'), (5, 'e')]));
    assert!(r.tampered.is_empty(), "{:?}", r.tampered);
    assert_eq!((r.anchors, r.runs, r.highest), (3, 1, Some(5)));
}

#[test]
fn an_anchored_seq_beyond_the_file_is_a_truncation() {
    let anchors = [anchor(3, 'c', Reason::Record), anchor(5, 'e', Reason::Tick)];
    let r = check(&anchors, &facts(1, 4, &[(3, 'c')]));
    assert_eq!(r.tampered.len(), 1, "{:?}", r.tampered);
    assert!(r.tampered[0].contains("up to seq 5") && r.tampered[0].contains("ends at seq 4"));
    // Emptied or deleted.
    let r = check(&anchors, &FileFacts::default());
    assert!(r.tampered[0].contains("holds none"), "{:?}", r.tampered);
}

#[test]
fn an_anchored_record_with_another_hash_was_rewritten() {
    let anchors = [anchor(3, 'c', Reason::Record)];
    let r = check(&anchors, &facts(1, 5, &[(3, 'd')]));
    assert_eq!(r.tampered.len(), 1);
    assert!(
        r.tampered[0].contains("seq 3 was rewritten"),
        "{:?}",
        r.tampered
    );
}

#[test]
fn two_hashes_anchored_for_one_seq_are_a_rewrite_whatever_the_file_holds() {
    let mut second = anchor(3, 'd', Reason::Start);
    second.run = "r2".into();
    let r = check(
        &[anchor(3, 'c', Reason::Stop), second],
        &facts(1, 5, &[(3, 'd')]),
    );
    assert_eq!(r.runs, 2);
    assert!(
        r.tampered[0].contains("two different hashes"),
        "{:?}",
        r.tampered
    );
}

#[test]
fn a_forged_anchor_adds_no_trust() {
    // Records 4 and 5 deleted; the tamperer anchors the new head. The real anchor of 5 stands.
    let anchors = [
        anchor(5, 'e', Reason::Tick),
        Anchor {
            run: "forged".into(),
            ..anchor(3, 'c', Reason::Stop)
        },
    ];
    let r = check(&anchors, &facts(1, 3, &[(3, 'c')]));
    assert_eq!(r.tampered.len(), 1, "{:?}", r.tampered);
    assert!(r.tampered[0].contains("up to seq 5"));
}

#[test]
fn anchored_records_deleted_from_the_start_or_middle_are_named() {
    let anchors = [
        anchor(2, 'b', Reason::Record),
        anchor(4, 'd', Reason::Record),
    ];
    let r = check(&anchors, &facts(3, 6, &[]));
    assert_eq!(r.deleted_below, Some(2));
    assert_eq!(r.tampered.len(), 2, "{:?}", r.tampered);
    assert!(r.tampered[0].contains("starts at seq 3"));
    assert!(r.tampered[1].contains("seq 4 was anchored but is missing"));
}

#[test]
fn records_without_prev_are_accepted_only_before_the_first_anchor() {
    let anchors = [anchor(3, 'c', Reason::Start)];
    let mut f = facts(1, 5, &[(3, 'c')]);
    f.last_unchained = Some(3);
    assert!(check(&anchors, &f).tampered.is_empty());
    f.last_unchained = Some(5);
    let r = check(&anchors, &f);
    assert!(
        r.tampered[0].contains("chain was stripped"),
        "{:?}",
        r.tampered
    );
}

fn with(a: Anchor, cap: Option<u64>, first: Option<u64>) -> Anchor {
    Anchor { cap, first, ..a }
}

const MIB: u64 = 1024 * 1024;

/// A run that started with a 1 MiB cap, then deleted at the cap so that seq 40 is the oldest.
fn capped_run(run: &str) -> Vec<Anchor> {
    let r = |a: Anchor| Anchor {
        run: run.into(),
        ..a
    };
    vec![
        r(with(anchor(0, '0', Reason::Start), Some(MIB), None)), // '0' x 64: the genesis hash
        r(anchor(10, 'a', Reason::Record)),
        r(with(anchor(60, 'f', Reason::Cap), Some(MIB), Some(40))),
    ]
}

fn trail_from_40(bytes_to_60: u64) -> FileFacts {
    let mut f = facts(40, 70, &[(60, 'f')]);
    f.bytes_at.insert(60, bytes_to_60);
    f
}

#[test]
fn a_deletion_at_the_cap_is_believed_when_the_run_anchored_it_and_the_sizes_add_up() {
    let anchors = capped_run("r1");
    let r = check(&anchors, &trail_from_40(MIB - 100 * 1024));
    assert!(r.tampered.is_empty(), "{:?}", r.tampered);
    assert!(
        r.notes[0].contains("deleted at the size cap"),
        "{:?}",
        r.notes
    );
}

#[test]
fn a_cap_anchor_does_not_excuse_a_deletion_that_left_the_trail_far_below_the_cap() {
    let anchors = capped_run("r1");
    // The oldest records deleted by hand, a cap anchor forged under the real run's id: the
    // hash-fixed part of the trail is a few KiB, nothing a 1 MiB cap would cut.
    let r = check(&anchors, &trail_from_40(4 * 1024));
    assert_eq!(r.tampered.len(), 1, "{:?}", r.tampered);
    assert!(
        r.tampered[0].contains("deleted by hand") && r.tampered[0].contains("leaves so little")
    );
}

#[test]
fn a_cap_anchor_of_a_run_that_never_started_or_changed_its_cap_excuses_nothing() {
    let mut anchors = capped_run("r1");
    anchors[2].run = "forged".into();
    let r = check(&anchors, &trail_from_40(MIB - 1024));
    assert!(
        r.tampered[0].contains("anchored no start"),
        "{:?}",
        r.tampered
    );
    let mut anchors = capped_run("r1");
    anchors[2].cap = Some(8 * 1024);
    let r = check(&anchors, &trail_from_40(7 * 1024));
    assert!(r.tampered[0].contains("disagrees"), "{:?}", r.tampered);
    // Its start anchor sent after the cap anchor (a forged pair) does not count either.
    let mut anchors = capped_run("r1");
    anchors.swap(0, 2);
    let r = check(&anchors, &trail_from_40(MIB - 1024));
    assert!(!r.tampered.is_empty(), "{:?}", r.notes);
}

fn kept(lines: &[(u64, char)]) -> KeptFacts {
    KeptFacts {
        lines: lines
            .iter()
            .map(|&(s, c)| (s, c.to_string().repeat(64)))
            .collect(),
        sizes: vec![100; lines.len()],
        unreadable: 0,
    }
}

#[test]
fn kept_lines_must_match_their_anchors_and_anchored_kept_records_must_be_there() {
    let anchors = capped_run("r1");
    let mut f = trail_from_40(MIB - 1024);
    f.kept = Some(kept(&[(10, 'a')]));
    assert!(check(&anchors, &f).tampered.is_empty());
    // A forged line: another hash for an anchored seq, and a seq never anchored.
    f.kept = Some(kept(&[(10, 'a'), (12, 'c')]));
    let r = check(&anchors, &f);
    assert!(
        r.tampered[0].contains("seq 12, which was never anchored"),
        "{:?}",
        r.tampered
    );
    f.kept = Some(kept(&[(10, 'e')]));
    let r = check(&anchors, &f);
    assert!(
        r.tampered[0].contains("forged or rewritten"),
        "{:?}",
        r.tampered
    );
    // The kept record deleted from the kept file.
    f.kept = Some(kept(&[]));
    let r = check(&anchors, &f);
    assert!(
        r.tampered[0].contains("seq 10 was anchored as a destructive"),
        "{:?}",
        r.tampered
    );
}

/// The writer's trim: a cap deletion that left seq 40 the oldest, then at once the kept file's
/// refused records below seq 31 dropped, the kept file holding more than half its cap.
fn trimmed_run() -> (Vec<Anchor>, FileFacts) {
    let mut anchors = capped_run("r1");
    anchors[1].outcome = Some("refused".into());
    anchors.insert(2, anchor(30, 'c', Reason::Record));
    anchors.push(with(
        anchor(60, 'f', Reason::KeptCap),
        Some(kept_cap(MIB)),
        Some(31),
    ));
    let mut f = trail_from_40(MIB - 1024);
    let mut k = kept(&[(30, 'c')]);
    k.sizes = vec![kept_cap(MIB) * 3 / 4 - 10];
    f.kept = Some(k);
    (anchors, f)
}

#[test]
fn only_refused_records_leave_the_kept_file_and_only_as_the_writer_trims() {
    let (anchors, f) = trimmed_run();
    let r = check(&anchors, &f);
    assert!(r.tampered.is_empty(), "{:?}", r.tampered);
    assert!(
        r.notes.iter().any(|n| n.contains("kept file's own cap")),
        "{:?}",
        r.notes
    );

    // A record of a call that ran (or was denied) is never excused by a trim.
    let (mut anchors, f) = trimmed_run();
    anchors[1].outcome = Some("ok".into());
    let r = check(&anchors, &f);
    assert!(
        r.tampered
            .iter()
            .any(|t| t.contains("seq 10 was anchored as a destructive")),
        "{:?}",
        r.tampered
    );

    // Too little left in the kept file for a trim at its cap.
    let (anchors, mut f) = trimmed_run();
    f.kept.as_mut().unwrap().sizes = vec![2000];
    let r = check(&anchors, &f);
    assert!(
        r.tampered
            .iter()
            .any(|t| t.contains("no trim at its cap accounts")),
        "{:?}",
        r.tampered
    );

    // Filled up with copies of records still in the trail (seq 40 and later): they do not count.
    let (anchors, mut f) = trimmed_run();
    let k = f.kept.as_mut().unwrap();
    k.sizes = vec![100];
    k.lines.push((45, "e".repeat(64)));
    k.sizes.push(kept_cap(MIB) * 3 / 4 - 200);
    let r = check(&anchors, &f);
    assert!(
        r.tampered
            .iter()
            .any(|t| t.contains("no trim at its cap accounts")),
        "{:?}",
        r.tampered
    );

    // A kept-cap anchor forged on its own, not right after a cap deletion of its run.
    let (mut anchors, f) = trimmed_run();
    anchors.push(anchor(61, 'g', Reason::Tick));
    let kc = anchors.remove(4);
    anchors.push(Anchor {
        seq: 61,
        hash: "g".repeat(64),
        ..kc
    });
    let r = check(&anchors, &f);
    assert!(
        r.tampered
            .iter()
            .any(|t| t.contains("does not follow a cap deletion")),
        "{:?}",
        r.tampered
    );
}

#[test]
fn one_rotated_file_deleted_by_hand_is_below_what_the_cap_leaves() {
    // The review's A4: 791,688 bytes left of a 1 MiB cap (rotation 128 KiB): an honest
    // deletion leaves more than the cap less one file.
    let anchors = capped_run("r1");
    let r = check(&anchors, &trail_from_40(791_688));
    assert!(
        r.tampered.iter().any(|t| t.contains("deleted by hand")),
        "{:?}",
        r.tampered
    );
    let r = check(&anchors, &trail_from_40(MIB - 100 * 1024));
    assert!(r.tampered.is_empty(), "{:?}", r.tampered);
}

#[test]
fn a_cap_lowered_between_runs_may_delete_everything_older() {
    // The review's A7: run r0 at 1 GiB wrote seq 1..=161; the person set 1 MiB; run r1's first
    // rotation deleted all of it, the cap anchor naming the next seq, 162, the oldest.
    let anchors = vec![
        with(anchor(0, '0', Reason::Start), Some(1024 * MIB), None),
        Anchor {
            run: "r0".into(),
            ..anchor(100, 'a', Reason::Record)
        },
        Anchor {
            run: "r0".into(),
            ..anchor(161, 'b', Reason::Stop)
        },
        Anchor {
            run: "r1".into(),
            ..with(anchor(161, 'b', Reason::Start), Some(MIB), None)
        },
        Anchor {
            run: "r1".into(),
            ..with(anchor(161, 'b', Reason::Cap), Some(MIB), Some(162))
        },
    ];
    let mut anchors = anchors;
    anchors[0].run = "r0".into();
    let mut f = facts(162, 170, &[]);
    f.kept = Some(kept(&[(100, 'a')]));
    let r = check(&anchors, &f);
    assert!(r.tampered.is_empty(), "{:?}", r.tampered);
    assert!(
        r.notes.iter().any(|n| n.contains("lowered")),
        "{:?}",
        r.notes
    );
    // The same run raising its cap is no excuse.
    anchors[0].cap = Some(MIB / 2);
    let r = check(&anchors, &f);
    assert!(!r.tampered.is_empty(), "{:?}", r.notes);
}

#[test]
fn a_torn_last_line_is_a_crash_unless_its_seq_was_anchored() {
    let anchors = [anchor(3, 'c', Reason::Record)];
    let mut f = facts(1, 3, &[(3, 'c')]);
    f.torn = Some(4);
    let r = check(&anchors, &f);
    assert!(r.tampered.is_empty(), "{:?}", r.tampered);
    assert!(r.notes[0].contains("crash artefact"), "{:?}", r.notes);
    let anchors = [
        anchor(3, 'c', Reason::Record),
        anchor(4, 'd', Reason::Record),
    ];
    let r = check(&anchors, &f);
    assert!(
        r.tampered.iter().any(|t| t.contains("cut mid-record")),
        "{:?}",
        r.tampered
    );
}

#[test]
fn records_no_anchor_vouches_for_are_named() {
    // r1 stopped at seq 5; r2 (anchoring) started at seq 9: 6..=9 came from somewhere else.
    let anchors = vec![
        anchor(5, 'e', Reason::Stop),
        Anchor {
            run: "r2".into(),
            ..anchor(9, 'i', Reason::Start)
        },
    ];
    let r = check(&anchors, &facts(1, 12, &[(5, 'e'), (9, 'i')]));
    assert!(r.tampered.is_empty(), "{:?}", r.tampered);
    assert!(
        r.notes
            .iter()
            .any(|n| n.contains("seq 6..=9 were written after run r1 stopped")),
        "{:?}",
        r.notes
    );
    assert!(
        r.notes
            .iter()
            .any(|n| n.contains("seq 10..=12 were never anchored")),
        "{:?}",
        r.notes
    );
}

/// The review's a1: the home moved away and a link left at its old path. The trail at that
/// path is the same trail (its anchors still apply), not a new one.
#[test]
fn a_trail_reached_through_a_link_left_in_its_place_keeps_its_identity() {
    let tmp = tempfile::tempdir().unwrap();
    let home = tmp.path().join("spock");
    let audit = home.join("data/audit");
    std::fs::create_dir_all(&audit).unwrap();
    let before = trail_id(&audit);
    std::fs::rename(&home, tmp.path().join("spock.moved")).unwrap();
    std::os::unix::fs::symlink(tmp.path().join("spock.moved"), &home).unwrap();
    assert_eq!(trail_id(&audit), before);
    assert_eq!(trail_id(&home.join("data/./audit/")), before);
    assert_ne!(trail_id(&tmp.path().join("spock.moved/data/audit")), before);
}

/// A run forged while the real one runs (to claim a lowered cap, say): the real run's next
/// anchor comes after it, which one server at a time never does.
#[test]
fn runs_taking_turns_in_the_log_mean_one_is_forged() {
    let anchors = vec![
        anchor(0, '0', Reason::Start),
        Anchor {
            run: "forged".into(),
            ..anchor(3, 'c', Reason::Start)
        },
        anchor(5, 'e', Reason::Tick),
    ];
    let mut anchors = anchors;
    anchors[0].hash = "0".repeat(64);
    let r = check(&anchors, &facts(1, 5, &[(3, 'c'), (5, 'e')]));
    assert!(
        r.tampered
            .iter()
            .any(|t| t.contains("anchored seq 5 after run forged had started at seq 3")),
        "{:?}",
        r.tampered
    );
    // Runs one after the other: fine; so is an earlier run's stop arriving late, naming no
    // record past the next run's start.
    anchors.swap(1, 2);
    let r = check(&anchors, &facts(1, 5, &[(3, 'c'), (5, 'e')]));
    assert!(r.tampered.is_empty(), "{:?}", r.tampered);
    let late = vec![
        anchor(0, '0', Reason::Start),
        Anchor {
            run: "r2".into(),
            ..anchor(5, 'e', Reason::Start)
        },
        anchor(5, 'e', Reason::Stop),
    ];
    let mut late = late;
    late[0].hash = "0".repeat(64);
    let r = check(&late, &facts(1, 5, &[(5, 'e')]));
    assert!(r.tampered.is_empty(), "{:?}", r.tampered);
}
