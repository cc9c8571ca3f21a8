//! The confirmer: defaults to "no", per-client limits, several responders.
use super::*;

fn ask() -> Ask {
    Ask {
        call_id: 1,
        tool: "android_uninstall_app",
        title: "Uninstall app",
        level: Level::Destructive,
        client: None,
        transport: Transport::Http,
        via: None,
        verified: Verified::client(Transport::Http, None, Default::default()),
        device: None,
        device_model: None,
        arguments: Value::Null,
        reason: None,
    }
}

#[tokio::test]
async fn no_responder_denies() {
    let c = Confirmer::new(Duration::from_secs(5));
    assert_eq!(c.ask(ask()).await, Decision::deny(DecidedBy::NoResponder));
}

#[tokio::test]
async fn dropped_request_denies() {
    let c = Confirmer::new(Duration::from_secs(5));
    let mut rx = c.attach();
    let t = tokio::spawn(async move { drop(rx.recv().await) });
    assert_eq!(c.ask(ask()).await, Decision::deny(DecidedBy::Dropped));
    t.await.unwrap();
}

#[tokio::test(start_paused = true)]
async fn silence_times_out_to_denied() {
    let c = Confirmer::new(Duration::from_secs(60));
    let mut rx = c.attach();
    let keep = tokio::spawn(async move { rx.recv().await });
    assert_eq!(c.ask(ask()).await, Decision::deny(DecidedBy::Timeout));
    drop(keep);
}

#[tokio::test]
async fn key_answer_is_returned() {
    let c = Confirmer::new(Duration::from_secs(5));
    let mut rx = c.attach();
    tokio::spawn(async move {
        if let Some(req) = rx.recv().await {
            req.answer(true)
        }
    });
    assert_eq!(
        c.ask(ask()).await,
        Decision {
            approved: true,
            by: DecidedBy::Key
        }
    );
}

#[tokio::test]
async fn a_fourth_waiting_call_from_one_client_is_refused_before_asking() {
    let c = std::sync::Arc::new(Confirmer::new(Duration::from_secs(60)));
    let mut rx = c.attach();
    let from = |name: &str, transport| Ask {
        client: Some(ClientId {
            name: name.into(),
            version: "1".into(),
        }),
        transport,
        ..ask()
    };
    let (mut asked, mut shown) = (Vec::new(), Vec::new());
    for _ in 0..MAX_WAITING_PER_CLIENT {
        let (c, a) = (c.clone(), from("agent", Transport::Http));
        asked.push(tokio::spawn(async move { c.ask_for_client(a).await }));
        shown.push(rx.recv().await.expect("shown"));
    }
    let refused = c.ask_for_client(from("agent", Transport::Http)).await;
    assert_eq!(
        refused,
        Err(TooManyWaiting {
            client: "agent/1".into(),
            waiting: MAX_WAITING_PER_CLIENT
        })
    );
    assert!(rx.try_recv().is_err(), "the refused call was shown");
    // The person's own calls and other clients are not held back by it.
    for a in [
        from("agent", Transport::Tui),
        from("other", Transport::Stdio),
    ] {
        let c2 = c.clone();
        let t = tokio::spawn(async move { c2.ask_for_client(a).await });
        rx.recv().await.expect("shown").answer(false);
        assert!(t.await.unwrap().is_ok());
    }
    // An answer frees the place.
    shown.pop().expect("one").answer(false);
    assert!(asked.pop().expect("one").await.unwrap().is_ok());
    let (c2, a) = (c.clone(), from("agent", Transport::Http));
    let again = tokio::spawn(async move { c2.ask_for_client(a).await });
    rx.recv().await.expect("shown again").answer(false);
    assert!(again.await.unwrap().is_ok());
}

#[tokio::test]
async fn every_responder_is_asked_the_first_answer_wins_and_the_others_learn_who() {
    let c = std::sync::Arc::new(Confirmer::new(Duration::from_secs(30)));
    let mut local = c.attach();
    let (_a, mut one) = c.attach_remote("pid 11 on /dev/pts/1".into(), DecidedBy::Attached);
    let (_b, mut two) = c.attach_remote("pid 22 on /dev/pts/2".into(), DecidedBy::Attached);
    let mut notices = c.notices();
    let c2 = c.clone();
    let asked = tokio::spawn(async move { c2.ask_answered(ask()).await });
    let (l, o, t) = (
        local.recv().await.expect("local"),
        one.recv().await.expect("one"),
        two.recv().await.expect("two"),
    );
    assert_eq!((l.ask.call_id, o.ask.call_id, t.ask.call_id), (1, 1, 1));
    t.answer(true);
    let got = asked.await.unwrap();
    // A key at an attached terminal is recorded as such, never as the serving keyboard's.
    assert_eq!(
        got.decision,
        Decision {
            approved: true,
            by: DecidedBy::Attached
        }
    );
    assert_eq!(got.decider.as_deref(), Some("pid 22 on /dev/pts/2"));
    // A later answer from another terminal changes nothing; their copies say who decided.
    assert!(l.is_abandoned() && o.is_abandoned());
    assert_eq!(
        o.decided_elsewhere(),
        Some((true, "pid 22 on /dev/pts/2".to_string()))
    );
    o.answer(false);
    assert_eq!(
        notices.recv().await.unwrap(),
        Notice::Decided {
            call_id: 1,
            approved: true,
            by: "pid 22 on /dev/pts/2".into()
        }
    );
}

#[tokio::test]
async fn a_control_centre_attaching_while_a_call_waits_is_shown_it() {
    let c = std::sync::Arc::new(Confirmer::new(Duration::from_secs(30)));
    let mut local = c.attach();
    let c2 = c.clone();
    let asked = tokio::spawn(async move { c2.ask_answered(ask()).await });
    let _held = local.recv().await.expect("local");
    let (_id, mut late) = c.attach_remote("late".into(), DecidedBy::Attached);
    late.recv()
        .await
        .expect("shown to the newcomer")
        .answer(false);
    let got = asked.await.unwrap();
    assert!(!got.decision.approved);
    assert_eq!(got.decider.as_deref(), Some("late"));
}

#[tokio::test]
async fn waiting_for_attach_holds_the_call_until_someone_attaches() {
    let c = std::sync::Arc::new(Confirmer::new(Duration::from_secs(30)));
    c.set_wait_for_attach(true);
    let c2 = c.clone();
    let asked = tokio::spawn(async move { c2.ask(ask()).await });
    tokio::task::yield_now().await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert!(!asked.is_finished(), "denied with nobody attached");
    let (_id, mut rx) = c.attach_remote("pid 1".into(), DecidedBy::Attached);
    rx.recv().await.expect("shown").answer(true);
    assert!(asked.await.unwrap().approved);
}

#[tokio::test(start_paused = true)]
async fn waiting_for_attach_still_ends_at_the_timeout() {
    let c = Confirmer::new(Duration::from_secs(5));
    c.set_wait_for_attach(true);
    assert_eq!(c.ask(ask()).await, Decision::deny(DecidedBy::Timeout));
}

#[tokio::test]
async fn a_detached_remote_leaves_the_call_to_the_others() {
    let c = std::sync::Arc::new(Confirmer::new(Duration::from_secs(30)));
    let mut local = c.attach();
    let (id, mut remote) = c.attach_remote("r".into(), DecidedBy::Attached);
    let c2 = c.clone();
    let asked = tokio::spawn(async move { c2.ask(ask()).await });
    let l = local.recv().await.expect("local");
    drop(remote.recv().await.expect("remote"));
    c.detach_responder(id);
    drop(remote);
    assert!(
        !l.is_abandoned(),
        "one terminal leaving withdrew it from another"
    );
    l.answer(true);
    assert!(asked.await.unwrap().approved);
}

async fn client_answers(approved: bool, when: oneshot::Receiver<()>) -> Answered {
    let _ = when.await;
    Answered {
        decision: Decision {
            approved,
            by: DecidedBy::Client,
        },
        decider: Some("MCP client agent/1".into()),
    }
}

#[tokio::test]
async fn a_person_who_attaches_while_the_client_is_asked_gets_it_and_alone_approves() {
    let c = std::sync::Arc::new(Confirmer::new(Duration::from_secs(60)));
    let (say, when) = oneshot::channel();
    let asker = {
        let c = c.clone();
        tokio::spawn(async move {
            c.ask_for_client_via(&ask(), client_answers(true, when))
                .await
        })
    };
    let mut rx = c.attach();
    let req = rx.recv().await.expect("offered to the person who attached");
    let mut notices = c.notices();
    say.send(()).expect("asking");
    match notices.recv().await.expect("a notice") {
        Notice::ClientSaid { approved, by, .. } => assert!(approved && by.contains("MCP client")),
        n => panic!("{n:?}"),
    }
    assert_eq!(req.client_says().map(|s| s.0), Some(true));
    assert!(
        !asker.is_finished(),
        "the client's yes decided with a person attached"
    );
    req.answer(false);
    let a = asker.await.expect("joined").expect("a place");
    assert_eq!(
        a.decision,
        Decision {
            approved: false,
            by: DecidedBy::Key
        }
    );
}

#[tokio::test]
async fn a_clients_no_denies_even_with_a_person_attached_and_its_yes_alone_approves() {
    let c = std::sync::Arc::new(Confirmer::new(Duration::from_secs(60)));
    let mut rx = c.attach();
    let (say, when) = oneshot::channel();
    let asker = {
        let c = c.clone();
        tokio::spawn(async move {
            c.ask_for_client_via(&ask(), client_answers(false, when))
                .await
        })
    };
    let req = rx.recv().await.expect("shown");
    say.send(()).expect("asking");
    let a = asker.await.expect("joined").expect("a place");
    assert_eq!(a.decision, Decision::deny(DecidedBy::Client));
    assert!(req.is_abandoned());
    c.detach();
    // Nobody attached: the client's yes is the answer, as with `via_client` before.
    let (say, when) = oneshot::channel();
    say.send(()).expect("asking");
    let a = c
        .ask_for_client_via(&ask(), client_answers(true, when))
        .await
        .expect("a place");
    assert_eq!(
        a.decision,
        Decision {
            approved: true,
            by: DecidedBy::Client
        }
    );
}
