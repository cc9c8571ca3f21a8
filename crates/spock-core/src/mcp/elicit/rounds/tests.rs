use super::*;
use serde_json::json;

fn client() -> ClientId {
    ClientId {
        name: "agent".into(),
        version: "1".into(),
    }
}

fn of_t(args: &Value, client: Option<&ClientId>) -> Asked {
    Asked::of("t", args, client, Transport::Http)
}

fn live(call_id: u64, asked: Asked) -> (Live, oneshot::Receiver<Reply>) {
    let (tx, rx) = oneshot::channel();
    let l = Live {
        call_id,
        asked,
        reply: tx,
        join: None,
        cancel: CancellationToken::new(),
    };
    (l, rx)
}

#[test]
fn equal_arguments_hash_the_same_in_any_order_and_others_differ() {
    let a = of_t(&json!({"a": 1, "b": {"x": [1, 2], "y": "z"}}), None);
    let b = of_t(&json!({"b": {"y": "z", "x": [1, 2]}, "a": 1}), None);
    assert_eq!(a, b);
    for other in [
        json!({"a": 2, "b": {"x": [1, 2], "y": "z"}}),
        json!({"a": 1, "b": {"x": [2, 1], "y": "z"}}),
        json!({"a": "1", "b": {"x": [1, 2], "y": "z"}}),
        json!({"a": 1, "b": {"x": [1, 2], "y": "z"}, "c": null}),
    ] {
        assert_eq!(a.differs(&of_t(&other, None)), Some("arguments"));
    }
    assert_eq!(
        a.differs(&Asked::of("u", &json!({}), None, Transport::Http)),
        Some("tool")
    );
    let c = of_t(
        &json!({"a": 1, "b": {"x": [1, 2], "y": "z"}}),
        Some(&client()),
    );
    assert_eq!(a.differs(&c), Some("client"));
    let stdio = Asked::of(
        "t",
        &json!({"a": 1, "b": {"x": [1, 2], "y": "z"}}),
        None,
        Transport::Stdio,
    );
    assert_eq!(a.differs(&stdio), Some("client"));
}

#[test]
fn a_handle_answers_once_and_a_mismatch_voids_it() {
    let rounds = Rounds::default();
    let asked = Asked::of(
        "uninstall",
        &json!({"packageName": "com.a"}),
        Some(&client()),
        Transport::Http,
    );
    let (l, mut rx) = live(7, asked.clone());
    assert!(rounds.insert("h1", l));
    assert!(matches!(
        rounds.take("h1", &asked, Some(json!({"action": "accept"}))),
        Taken::Matched(_)
    ));
    assert!(matches!(rx.try_recv(), Ok(Reply::Answer(Some(_)))));
    assert!(matches!(
        rounds.take("h1", &asked, None),
        Taken::Ended(Ended::Answered { call_id: 7 })
    ));

    let (l, mut rx) = live(8, asked.clone());
    assert!(rounds.insert("h2", l));
    let other = Asked::of(
        "uninstall",
        &json!({"packageName": "com.b"}),
        Some(&client()),
        Transport::Http,
    );
    assert!(matches!(
        rounds.take("h2", &other, Some(json!({"action": "accept"}))),
        Taken::Mismatched {
            call_id: 8,
            what: "arguments"
        }
    ));
    assert!(matches!(rx.try_recv(), Ok(Reply::Mismatch("arguments"))));
    // The right call cannot use it afterwards either.
    assert!(matches!(
        rounds.take("h2", &asked, None),
        Taken::Ended(Ended::Answered { call_id: 8 })
    ));
    assert!(matches!(
        rounds.take("forged", &asked, None),
        Taken::Unknown
    ));
}

#[test]
fn expired_handles_are_named_and_the_pending_are_bounded() {
    let rounds = Rounds::default();
    let asked = of_t(&json!({}), None);
    let (l, _rx) = live(3, asked.clone());
    assert!(rounds.insert("h", l));
    assert!(rounds.expire("h"));
    assert!(!rounds.expire("h"));
    assert!(matches!(
        rounds.take("h", &asked, None),
        Taken::Ended(Ended::Expired { call_id: 3 })
    ));
    let mut keep = Vec::new();
    for n in 0..MAX_PENDING {
        let (l, rx) = live(n as u64, asked.clone());
        assert!(rounds.insert(&format!("p{n}"), l));
        keep.push(rx);
    }
    assert!(rounds.room().is_err());
    let (l, _rx) = live(99, asked.clone());
    assert!(!rounds.insert("over", l));
    rounds.close();
    assert_eq!(rounds.waiting(), 0);
    assert!(keep.iter_mut().all(|rx| rx.try_recv().is_err()));
}

#[test]
fn handles_are_long_and_distinct() {
    let a = new_handle().unwrap_or_default();
    let b = new_handle().unwrap_or_default();
    assert_eq!(a.len(), 32);
    assert_ne!(a, b);
}
