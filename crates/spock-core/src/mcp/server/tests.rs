//! The pipeline reads a call's arguments once: the declaration's checks, the escalation and
//! the handler get the one value parsed at the check stage, never a decoding of their own.
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer};
use serde_json::json;

use super::CallRequest;
use crate::mcp::Core;
use crate::mcp::ctx::Origin;
use crate::mcp::events::{ClientId, Outcome, Transport};
use crate::mcp::registry::{Level, Meta, Registry};
use crate::mcp::result::{ErrorKind, ToolError};
use crate::mcp::toolsets::Toolset;

/// How many times `n` was decoded.
static DECODED: AtomicUsize = AtomicUsize::new(0);

fn counted<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
    DECODED.fetch_add(1, Ordering::SeqCst);
    u32::deserialize(d)
}

#[derive(Debug, Clone, Deserialize, JsonSchema)]
struct Args {
    #[serde(deserialize_with = "counted")]
    n: u32,
}

fn counting_tool() -> Registry {
    let tool = Meta {
        name: "test_counted",
        title: "Counted",
        level: Level::SafeAction,
        toolset: Toolset::Core,
        description: "Decodes its arguments with a counter.",
    }
    .def(|_ctx, a: Args| async move { Ok(json!({ "n": a.n })) })
    .precheck(|a: &Args| {
        if a.n == 13 {
            Err(ToolError::invalid_args("thirteen is refused"))
        } else {
            Ok(())
        }
    })
    .escalates("over 100", |_ctx, a: Args| async move {
        Ok((a.n > 100).then(|| format!("{} is over 100", a.n)))
    });
    Registry::new(vec![tool])
}

fn agent() -> Origin {
    Origin {
        transport: Transport::Stdio,
        client: Some(ClientId {
            name: "t".into(),
            version: "1".into(),
        }),
        session: None,
    }
}

async fn call(core: &Arc<Core>, n: u32) -> crate::mcp::ctx::CallOutcome {
    CallRequest::new(agent(), "test_counted", json!({ "n": n }))
        .run(core)
        .await
        .expect("the tool is known")
}

#[tokio::test]
async fn a_calls_arguments_are_decoded_once_for_its_checks_escalation_and_handler() {
    let dir = tempfile::tempdir().unwrap();
    let core = Arc::new(Core::for_tests(counting_tool(), dir.path(), true));

    DECODED.store(0, Ordering::SeqCst);
    let ran = call(&core, 5).await;
    let out = ran.result.expect("a safe call runs");
    assert_eq!(out.json["n"], 5);
    assert_eq!(
        DECODED.load(Ordering::SeqCst),
        1,
        "precheck, escalation and handler"
    );

    DECODED.store(0, Ordering::SeqCst);
    let refused = call(&core, 13).await;
    assert!(refused.result.is_err(), "the precheck refuses 13");
    assert_eq!(DECODED.load(Ordering::SeqCst), 1);

    // Over 100 the escalation makes the call destructive; headless, nobody can approve it.
    DECODED.store(0, Ordering::SeqCst);
    let asked = call(&core, 500).await;
    assert_eq!(asked.outcome, Outcome::Denied, "{:?}", asked.result);
    let e = asked.result.expect_err("denied headless");
    assert_ne!(e.kind, ErrorKind::InvalidArguments, "{e:?}");
    assert_eq!(DECODED.load(Ordering::SeqCst), 1);
}

/// What the person is shown of a call's images.
mod image {
    use crate::mcp::result::Image;
    use crate::mcp::server::*;

    fn image(data: &[u8], whole: Option<Image>) -> Image {
        Image {
            mime: "image/png",
            data: data.to_vec(),
            width: 1,
            height: 1,
            whole: whole.map(Box::new),
        }
    }

    /// The person gets the whole copy of a blacked-out image and the agent's own otherwise; the
    /// JSON is left alone (no image inside it).
    #[test]
    fn the_person_gets_the_whole_image_beside_the_json() {
        let out = ToolOutput {
            json: serde_json::json!({"bytes": 3}),
            images: vec![
                image(b"black", Some(image(b"whole", None))),
                image(b"plain", None),
            ],
        };
        let shown = person_images(&out);
        let data: Vec<&[u8]> = shown.iter().map(|i| &*i.data).collect();
        assert_eq!(data, [&b"whole"[..], &b"plain"[..]]);
        assert!(shown.iter().all(|i| i.mime == "image/png"));
        assert_eq!(out.json, serde_json::json!({"bytes": 3}));
    }
}
