//! Tap points, scroll geometry and text-field resolution on real device captures, and the
//! multi-touch script decoded back by the virtual device's touch decoder.
use std::time::Duration;

use super::edit::text_field;
use super::*;
use crate::device::parse::getevent;
use crate::mcp::result::ErrorKind;
use crate::mcp::tools::gestures::{
    TouchScreen, gesture_script, pinch_paths, rotate_paths, two_finger_paths,
};
use crate::uitree;
use crate::uitree::Rect;
use spock_sim::touch::{Gesture, TouchDecoder};

use crate::testdata::fixture;

fn tree(name: &str) -> UiTree {
    uitree::parse(&fixture(&format!("uiautomator/{name}"))).expect("fixture parses")
}

fn one(t: &UiTree, text: &str) -> NodeId {
    let ids = t.resolve_query(text);
    assert_eq!(ids.len(), 1, "{text}: {ids:?}");
    ids[0]
}

fn contains(r: Rect, (x, y): (i32, i32)) -> bool {
    x >= r.left && x < r.right && y >= r.top && y < r.bottom
}

#[test]
fn compose_text_on_a_non_clickable_child_taps_the_clickable_parent() {
    for (file, text, parent_bounds) in [
        (
            "compose-finance-scroll.xml",
            "LOAD MODEL",
            "[84,1742][412,1868]",
        ),
        ("compose-music-library.xml", "Albums", "[270,278][540,380]"),
        (
            "compose-reader-library.xml",
            "Open PDF",
            "[430,473][798,639]",
        ),
    ] {
        let t = tree(file);
        let id = one(&t, text);
        let child = t.node(id).unwrap();
        assert!(
            !child.clickable,
            "{file}: the label itself is not clickable"
        );
        let (target, point) = tap_point(&t, id).unwrap();
        assert_ne!(target, id, "{file}: walked up");
        let parent = t.node(target).unwrap();
        assert!(parent.clickable, "{file}");
        assert_eq!(parent.bounds.unwrap().to_string(), parent_bounds, "{file}");
        assert_eq!(
            Some(target),
            child.parent,
            "{file}: the nearest clickable is the parent"
        );
        assert!(
            contains(parent.bounds.unwrap(), point),
            "{file}: {point:?} inside the parent"
        );
        assert!(
            contains(child.bounds.unwrap(), point),
            "{file}: and on the label"
        );
    }
}

#[test]
fn a_clickable_match_is_tapped_itself_at_its_centre() {
    let t = tree("views-settings-homepage.xml");
    let clickable = t
        .nodes()
        .iter()
        .find(|n| n.clickable && n.is_visible())
        .unwrap();
    let (target, point) = tap_point(&t, clickable.id).unwrap();
    assert_eq!(target, clickable.id);
    assert_eq!(point, visible_rect(&t, clickable.id).unwrap().center());
}

#[test]
fn visible_rect_is_clipped_by_ancestors_and_nothing_off_screen_is_tapped() {
    for (name, xml) in [(
        "compose-finance-scroll.xml",
        fixture("uiautomator/compose-finance-scroll.xml"),
    )] {
        let t = uitree::parse(&xml).unwrap();
        for n in t.nodes() {
            let Some(v) = visible_rect(&t, n.id) else {
                continue;
            };
            for a in t.ancestors(n.id) {
                if let Some(b) = a.bounds {
                    assert!(
                        v.left >= b.left
                            && v.right <= b.right
                            && v.top >= b.top
                            && v.bottom <= b.bottom,
                        "{name} {}",
                        n.id
                    );
                }
            }
        }
    }
    // A node pushed below its scroll container has no visible part.
    let xml = r#"<hierarchy rotation="0"><node index="0" class="android.widget.ScrollView" scrollable="true" bounds="[0,0][100,100]"><node index="0" text="far" class="android.widget.TextView" clickable="true" bounds="[0,150][100,200]"/></node></hierarchy>"#;
    let t = uitree::parse(xml).unwrap();
    let id = NodeId(1);
    assert!(visible_rect(&t, id).is_none());
    assert_eq!(tap_point(&t, id).unwrap_err().kind, ErrorKind::NotFound);
}

#[test]
fn scrolling_picks_the_nearest_scrollable_and_swipes_inside_it() {
    let t = tree("compose-finance-scroll.xml");
    let main = scrollable_for(&t, None).expect("a scrollable");
    let r = visible_rect(&t, main).unwrap();
    let ((x0, y0), (x1, y1)) = scroll_swipe(&t, main, ScrollDir::Forward).unwrap();
    assert!(contains(r, (x0, y0)) && contains(r, (x1, y1)));
    assert!(
        y1 < y0 && x0 == x1,
        "forward moves the finger up a vertical list"
    );
    let (a, b) = scroll_swipe(&t, main, ScrollDir::Backward).unwrap();
    assert_eq!((a, b), ((x1, y1), (x0, y0)));
    // From a node inside the list, the list is found by walking up.
    let inside = t
        .descendants(main)
        .find(|n| n.is_visible() && !n.scrollable)
        .unwrap()
        .id;
    assert_eq!(scrollable_for(&t, Some(inside)), Some(main));
}

#[test]
fn text_field_is_the_field_itself_or_the_one_inside() {
    let t = tree("rn-wdio-login-edittext.xml");
    let field = t
        .nodes()
        .iter()
        .find(|n| n.is_editable() && n.is_visible())
        .unwrap()
        .id;
    assert_eq!(text_field(&t, field).unwrap(), field);
    let parent = t.node(field).unwrap().parent.unwrap();
    assert!(text_field(&t, parent).is_ok());
    let label = t
        .nodes()
        .iter()
        .find(|n| !n.text.is_empty() && !n.is_editable() && t.descendants(n.id).next().is_none())
        .unwrap();
    assert_eq!(
        text_field(&t, label.id).unwrap_err().kind,
        ErrorKind::InvalidArguments
    );
}

fn touchscreen() -> TouchScreen {
    let devs = getevent::parse_devices(&fixture("misc/getevent-pl-mi-mix2-chiron.txt"));
    TouchScreen::find(&devs).expect("the synaptics touchscreen")
}

#[test]
fn touchscreen_from_a_real_getevent_capture() {
    let ts = touchscreen();
    assert_eq!(ts.path, "/dev/input/event1");
    assert_eq!((ts.x, ts.y), ((0, 1079), (0, 2159)));
    assert_eq!(ts.raw((1079.0, 2159.0), (1080, 2160)), (1079, 2159));
    // A screen scaled down (wm size override) maps onto the full panel range.
    assert_eq!(ts.raw((539.5, 0.0), (540, 1080)), (1079, 0));
}

/// Feeds a script's `sendevent` lines into the virtual device's decoder.
fn decode(script: &str, ts: &TouchScreen, size: (u32, u32)) -> Option<Gesture> {
    let mut d = TouchDecoder::new(ts.x.1, ts.y.1, size.0, size.1);
    let mut last = None;
    for cmd in script.split(" ; ") {
        let w: Vec<&str> = cmd.split_whitespace().collect();
        match w.as_slice() {
            ["sendevent", dev, ty, code, v] => {
                assert_eq!(*dev, ts.path);
                let n = |s: &str| spock_sim::touch::parse_value(s).unwrap();
                if let Some(g) = d.feed(n(ty) as u16, n(code) as u16, n(v)) {
                    last = Some(g);
                }
            }
            ["sleep", secs] => assert!(secs.parse::<f64>().unwrap() > 0.0),
            other => panic!("unexpected command {other:?}"),
        }
    }
    last
}

#[test]
fn gesture_scripts_are_recognised_as_the_gesture_asked_for() {
    let ts = touchscreen();
    let size = (1080, 2160);
    let step = Duration::from_millis(16);
    let pinch = gesture_script(
        &ts,
        size,
        &pinch_paths(540.0, 1000.0, 400.0, 100.0, 0.0, 10),
        step,
    );
    assert_eq!(
        decode(&pinch, &ts, size).unwrap().to_string(),
        "pinch spread 400->100"
    );
    let out = gesture_script(
        &ts,
        size,
        &pinch_paths(540.0, 1000.0, 200.0, 600.0, 90.0, 10),
        step,
    );
    assert_eq!(
        decode(&out, &ts, size).unwrap().to_string(),
        "pinch spread 200->600"
    );
    let swipe = gesture_script(
        &ts,
        size,
        &two_finger_paths((540.0, 1800.0), (540.0, 600.0), 200.0, 10),
        step,
    );
    assert!(
        decode(&swipe, &ts, size)
            .unwrap()
            .to_string()
            .starts_with("two_finger_swipe up")
    );
    let rot = gesture_script(
        &ts,
        size,
        &rotate_paths(540.0, 1000.0, 200.0, 0.0, 90.0, 10),
        step,
    );
    assert_eq!(
        decode(&rot, &ts, size),
        Some(Gesture::Rotation { degrees: 90 })
    );
    // Timing lives on the device: one sleep between consecutive frames.
    assert_eq!(pinch.matches("sleep 0.016").count(), 10);
}
