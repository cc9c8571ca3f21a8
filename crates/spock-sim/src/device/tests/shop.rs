//! The demo shop as a person would use it: the login that refuses a wrong or missing password,
//! a page per product, a cart that holds what was added (and changes with one less, one more,
//! remove), a checkout that places an order and empties the cart, a state that a new process
//! starts again from, and deep links to each product.
use super::{fill_login, sh, sign_in, tap};
use crate::device::SimDevice;
use crate::device::ui::UiTree;

/// The products on the home screen: name, price, id (as in `shop://product/<id>`).
const PRODUCTS: [(&str, &str, &str); 4] = [
    ("Espresso Machine", "$249.00", "42"),
    ("Coffee Grinder", "$89.00", "17"),
    ("Milk Frother", "$39.00", "23"),
    ("Travel Mug", "$19.00", "7"),
];

fn ui(dev: &SimDevice) -> UiTree {
    UiTree::parse(&dev.ui_xml()).expect("the screen parses")
}

fn texts(dev: &SimDevice) -> Vec<String> {
    ui(dev)
        .nodes()
        .iter()
        .filter(|n| !n.text.is_empty())
        .map(|n| n.text.clone())
        .collect()
}

/// The text of the node with resource id `id` (full, or short as a test tag).
fn text_of(dev: &SimDevice, id: &str) -> Option<String> {
    ui(dev)
        .nodes()
        .iter()
        .find(|n| n.resource_id == id || n.resource_id.ends_with(&format!(":id/{id}")))
        .map(|n| n.text.clone())
}

/// Taps the centre of the node whose content description is `desc`.
async fn tap_desc(dev: &SimDevice, desc: &str) {
    let t = ui(dev);
    let n = t
        .nodes()
        .iter()
        .find(|n| n.content_desc == desc)
        .unwrap_or_else(|| panic!("no {desc:?} on screen: {:?}", texts(dev)));
    let (x, y) = n.bounds.center();
    sh(dev, &format!("input tap {x} {y}")).await;
}

/// The cart's lines as (name, quantity line, line price), top to bottom.
fn cart_lines(dev: &SimDevice) -> Vec<(String, String, String)> {
    let t = ui(dev);
    let n = t.nodes();
    n.iter()
        .enumerate()
        .filter(|(_, x)| x.resource_id == "cart_line")
        .map(|(i, _)| {
            let child = |id: &str| {
                n.iter()
                    .find(|c| c.parent == Some(i) && c.resource_id == id)
                    .map(|c| c.text.clone())
                    .unwrap_or_default()
            };
            (
                child("line_name"),
                child("line_quantity"),
                child("line_price"),
            )
        })
        .collect()
}

fn line(name: &str, qty: &str, price: &str) -> (String, String, String) {
    (name.into(), qty.into(), price.into())
}

/// Every node lies within its parent and `index` counts its siblings: what parsers and
/// hit-testing rely on in a real dump.
fn assert_consistent(xml: &str) {
    let t = UiTree::parse(xml).unwrap();
    let doc = roxmltree::Document::parse(xml).unwrap();
    for n in doc.descendants().filter(|n| n.has_tag_name("node")) {
        let pos = n.prev_siblings().skip(1).filter(|s| s.is_element()).count();
        assert_eq!(
            n.attribute("index"),
            Some(pos.to_string().as_str()),
            "{xml}"
        );
        assert!(
            n.attributes().all(|a| !a.name().starts_with("sim-")),
            "{xml}"
        );
    }
    for x in t.nodes() {
        if let Some(p) = x.parent.and_then(|p| t.node(p)) {
            let (b, pb) = (x.bounds, p.bounds);
            assert!(
                b.left >= pb.left
                    && b.top >= pb.top
                    && b.right <= pb.right
                    && b.bottom <= pb.bottom,
                "{b:?} outside {pb:?} in {xml}"
            );
        }
    }
}

async fn signed_in() -> SimDevice {
    let dev = SimDevice::demo();
    sh(&dev, "am start -W -n com.example.shop/.MainActivity").await;
    sign_in(&dev, "me@example.com", "hunter2").await;
    assert_eq!(dev.screen_id(), "home");
    dev
}

/// From home: opens `name`'s page and taps Add to cart, then Add another `more` times, and
/// goes back home.
async fn add(dev: &SimDevice, name: &str, more: usize) {
    tap(dev, &format!("text=\"{name}\"")).await;
    tap(dev, "text=\"Add to cart\"").await;
    for _ in 0..more {
        tap(dev, "text=\"Add another\"").await;
    }
    tap_desc(dev, "Back").await;
    assert_eq!(dev.screen_id(), "home");
}

#[tokio::test]
async fn a_missing_or_wrong_password_is_refused_on_the_login_screen() {
    let dev = SimDevice::demo();
    sh(&dev, "am start -W -n com.example.shop/.MainActivity").await;
    assert_eq!(
        text_of(&dev, "login_error"),
        None,
        "no message before a try"
    );

    tap(&dev, "text=\"Sign in\"").await;
    assert_eq!(dev.screen_id(), "login");
    assert_eq!(
        text_of(&dev, "login_error").as_deref(),
        Some("Enter your email and password")
    );
    fill_login(&dev, "me@example.com", "").await;
    tap(&dev, "text=\"Sign in\"").await;
    assert_eq!(dev.screen_id(), "login", "a missing password is refused");

    // The fields keep what was typed; the message says what went wrong.
    tap(&dev, "resource-id=\"login_password\"").await;
    sh(&dev, "input text hunter3").await;
    tap(&dev, "text=\"Sign in\"").await;
    assert_eq!(dev.screen_id(), "login");
    assert_eq!(
        text_of(&dev, "login_error").as_deref(),
        Some("Wrong email or password")
    );
    assert_eq!(
        text_of(&dev, "login_email").as_deref(),
        Some("me@example.com")
    );
    assert_eq!(text_of(&dev, "login_password").as_deref(), Some("•••••••"));
    assert_consistent(&dev.ui_xml());
    let log = sh(&dev, "logcat -d").await;
    assert!(
        log.contains("login refused: wrong email or password"),
        "{log}"
    );
    assert!(!log.contains("login ok"));

    // Corrected in place (one DEL, the right last letter): the app reads the real text.
    sh(&dev, "input keyevent DEL").await;
    sh(&dev, "input text 2").await;
    assert!(
        !dev.ui_xml().contains("hunter"),
        "the dump shows bullets only"
    );
    tap(&dev, "text=\"Sign in\"").await;
    assert_eq!(dev.screen_id(), "home");
    assert!(sh(&dev, "logcat -d").await.contains("login ok"));

    // A wrong account with the right password is refused as well.
    sh(&dev, "am force-stop com.example.shop").await;
    sh(&dev, "am start -W -n com.example.shop/.MainActivity").await;
    assert_eq!(
        text_of(&dev, "login_error"),
        None,
        "a new process forgot it"
    );
    sign_in(&dev, "you@example.com", "hunter2").await;
    assert_eq!(
        text_of(&dev, "login_error").as_deref(),
        Some("Wrong email or password")
    );
}

/// Until something is refused, the login template renders exactly the capture it was made from.
#[tokio::test]
async fn the_login_template_renders_its_capture_until_a_refusal() {
    let dev = SimDevice::demo();
    sh(&dev, "am start -W -n com.example.shop/.MainActivity").await;
    let template = super::super::demo_file("screens/login.xml").unwrap();
    let template = String::from_utf8(template).unwrap();
    let start = template
        .find("<node index=\"4\" text=\"{login_error}\"")
        .unwrap();
    let end = start + template[start..].find(" />").unwrap() + 3;
    let capture = format!("{}{}", &template[..start], &template[end..]);
    assert_eq!(dev.ui_xml(), capture);
}

#[tokio::test]
async fn every_product_on_home_opens_its_own_page() {
    let dev = signed_in().await;
    for (name, price, id) in PRODUCTS {
        tap(&dev, &format!("text=\"{name}\"")).await;
        assert_eq!(dev.screen_id(), "product", "{name}");
        let shown = texts(&dev);
        for want in [name, price, &format!("Product #{id}"), "Add to cart"] {
            assert!(
                shown.iter().any(|t| t == want),
                "{want} on {name}'s page: {shown:?}"
            );
        }
        assert!(
            PRODUCTS
                .iter()
                .all(|(other, ..)| *other == name || !shown.iter().any(|t| t == other)),
            "only {name}: {shown:?}"
        );
        assert_consistent(&dev.ui_xml());
        tap_desc(&dev, "Back").await;
        assert_eq!(dev.screen_id(), "home");
    }
}

#[tokio::test]
async fn the_cart_holds_exactly_what_was_added_and_follows_each_change() {
    let dev = signed_in().await;
    tap(&dev, "text=\"Cart\"").await;
    assert_eq!(cart_lines(&dev), vec![]);
    assert_eq!(
        text_of(&dev, "cart_empty").as_deref(),
        Some("Your cart is empty")
    );
    assert_eq!(text_of(&dev, "cart_total").as_deref(), Some("Total: $0.00"));
    sh(&dev, "input keyevent BACK").await;

    add(&dev, "Espresso Machine", 1).await;
    add(&dev, "Travel Mug", 0).await;
    tap(&dev, "text=\"Travel Mug\"").await;
    assert!(texts(&dev).contains(&"1 in your cart".to_string()));
    tap_desc(&dev, "Back").await;
    tap(&dev, "text=\"Cart\"").await;
    assert_eq!(
        cart_lines(&dev),
        vec![
            line("Espresso Machine", "2 × $249.00", "$498.00"),
            line("Travel Mug", "1 × $19.00", "$19.00"),
        ]
    );
    assert_eq!(
        text_of(&dev, "cart_total").as_deref(),
        Some("Total: $517.00")
    );
    assert_eq!(text_of(&dev, "cart_empty"), None);
    let xml = dev.ui_xml();
    assert_consistent(&xml);
    // The second line is the first moved down one step, every node of it.
    let t = ui(&dev);
    let rows: Vec<_> = t
        .nodes()
        .iter()
        .filter(|n| n.resource_id == "cart_line")
        .map(|n| n.bounds)
        .collect();
    assert_eq!(rows[1].top - rows[0].top, 260);

    tap_desc(&dev, "One more Travel Mug").await;
    tap_desc(&dev, "One less Espresso Machine").await;
    assert_eq!(
        cart_lines(&dev),
        vec![
            line("Espresso Machine", "1 × $249.00", "$249.00"),
            line("Travel Mug", "2 × $19.00", "$38.00"),
        ]
    );
    assert_eq!(
        text_of(&dev, "cart_total").as_deref(),
        Some("Total: $287.00")
    );
    assert_eq!(dev.screen_id(), "cart", "the cart changed in place");

    tap_desc(&dev, "Remove Espresso Machine").await;
    assert_eq!(
        cart_lines(&dev),
        vec![line("Travel Mug", "2 × $19.00", "$38.00")]
    );
    assert_eq!(
        text_of(&dev, "cart_total").as_deref(),
        Some("Total: $38.00")
    );
    assert!(
        sh(&dev, "logcat -d")
            .await
            .contains("removed from cart: Espresso Machine")
    );
    // One less of the last one empties the cart.
    tap_desc(&dev, "One less Travel Mug").await;
    tap_desc(&dev, "One less Travel Mug").await;
    assert_eq!(cart_lines(&dev), vec![]);
    assert_eq!(text_of(&dev, "cart_total").as_deref(), Some("Total: $0.00"));
    assert_consistent(&dev.ui_xml());
}

#[tokio::test]
async fn checkout_places_an_order_empties_the_cart_and_refuses_an_empty_one() {
    let dev = signed_in().await;
    tap(&dev, "text=\"Cart\"").await;
    tap(&dev, "text=\"CHECKOUT\"").await;
    assert_eq!(dev.screen_id(), "cart", "an empty cart is not checked out");
    assert_eq!(
        text_of(&dev, "checkout_error").as_deref(),
        Some("Your cart is empty: add a product before you check out")
    );
    sh(&dev, "input keyevent BACK").await;

    add(&dev, "Espresso Machine", 1).await;
    add(&dev, "Milk Frother", 0).await;
    tap(&dev, "text=\"Cart\"").await;
    assert_eq!(text_of(&dev, "checkout_error"), None, "the message is gone");
    assert_eq!(
        text_of(&dev, "cart_total").as_deref(),
        Some("Total: $537.00")
    );
    tap(&dev, "text=\"CHECKOUT\"").await;
    assert_eq!(dev.screen_id(), "order_placed");
    assert_eq!(
        dev.foreground().1,
        "com.example.shop.OrderConfirmationActivity"
    );
    assert_eq!(
        text_of(&dev, "order_number").as_deref(),
        Some("Order #1042")
    );
    assert_eq!(
        text_of(&dev, "order_total").as_deref(),
        Some("Total paid: $537.00")
    );
    let log = sh(&dev, "logcat -d").await;
    assert!(
        log.contains("ShopApp : order #1042 placed, $537.00 paid"),
        "{log}"
    );

    // Back is the cart, now empty; so is every product page.
    sh(&dev, "input keyevent BACK").await;
    assert_eq!(dev.screen_id(), "cart");
    assert_eq!(cart_lines(&dev), vec![]);
    assert_eq!(text_of(&dev, "cart_total").as_deref(), Some("Total: $0.00"));
    sh(&dev, "input keyevent BACK").await;
    tap(&dev, "text=\"Espresso Machine\"").await;
    assert!(!dev.ui_xml().contains("in your cart"));
    tap(&dev, "text=\"Add to cart\"").await;
    tap(&dev, "resource-id=\"view_cart\"").await;
    tap(&dev, "text=\"CHECKOUT\"").await;
    assert_eq!(
        text_of(&dev, "order_number").as_deref(),
        Some("Order #1043")
    );
    tap(&dev, "text=\"Continue shopping\"").await;
    assert_eq!(dev.screen_id(), "home");
}

#[tokio::test]
async fn a_new_process_starts_the_shop_again_empty_and_signed_out() {
    for reset in [
        "am force-stop com.example.shop",
        "pm clear com.example.shop",
    ] {
        let dev = signed_in().await;
        add(&dev, "Coffee Grinder", 2).await;
        // Home and back to the app: the same process, the same cart.
        sh(&dev, "input keyevent HOME").await;
        sh(
            &dev,
            "monkey -p com.example.shop -c android.intent.category.LAUNCHER 1",
        )
        .await;
        assert_eq!(dev.screen_id(), "home");
        tap(&dev, "text=\"Cart\"").await;
        assert_eq!(
            text_of(&dev, "cart_total").as_deref(),
            Some("Total: $267.00")
        );

        sh(&dev, reset).await;
        sh(&dev, "am start -W -n com.example.shop/.MainActivity").await;
        assert_eq!(dev.screen_id(), "login", "{reset}");
        sign_in(&dev, "me@example.com", "hunter2").await;
        tap(&dev, "text=\"Cart\"").await;
        assert_eq!(cart_lines(&dev), vec![], "{reset}");
        assert_eq!(text_of(&dev, "cart_total").as_deref(), Some("Total: $0.00"));
    }
}

#[tokio::test]
async fn a_deep_link_opens_the_product_it_names() {
    let dev = SimDevice::demo();
    let out = sh(
        &dev,
        "am start -W -a android.intent.action.VIEW -d shop://product/17",
    )
    .await;
    assert!(
        out.contains("Activity: com.example.shop/.ProductActivity"),
        "{out}"
    );
    assert!(texts(&dev).contains(&"Coffee Grinder".to_string()));
    assert!(texts(&dev).contains(&"Product #17".to_string()));
    // Delivered to the page in front: it shows the product the new link names.
    sh(
        &dev,
        "am start -a android.intent.action.VIEW -d 'shop://product/7?ref=mail'",
    )
    .await;
    let shown = texts(&dev);
    assert!(shown.contains(&"Travel Mug".to_string()), "{shown:?}");
    assert!(!shown.contains(&"Coffee Grinder".to_string()), "{shown:?}");
    tap(&dev, "text=\"Add to cart\"").await;
    sh(
        &dev,
        "am start -a android.intent.action.VIEW -d shop://product/999",
    )
    .await;
    assert_eq!(dev.screen_id(), "product");
    let shown = texts(&dev);
    assert!(
        shown.contains(&"This product is not available".to_string()),
        "{shown:?}"
    );
    assert!(!shown.contains(&"Add to cart".to_string()), "{shown:?}");
    assert_consistent(&dev.ui_xml());
}

/// `screencap` draws the screen the dump describes, so a screenshot of the cart shows its lines.
#[tokio::test]
async fn the_screenshot_follows_the_cart() {
    let dev = signed_in().await;
    tap(&dev, "text=\"Cart\"").await;
    let empty = dev.with_state(|s| s.glass_image());
    sh(&dev, "input keyevent BACK").await;
    add(&dev, "Espresso Machine", 0).await;
    tap(&dev, "text=\"Cart\"").await;
    let full = dev.with_state(|s| s.glass_image());
    assert!(empty != full);
    let frame = dev.with_state(|s| s.frame_tree()).unwrap();
    assert_eq!(frame.xml(), dev.ui_xml(), "the glass shows the dump");
    let png = dev
        .run_line("screencap -p", std::time::Duration::from_secs(20))
        .await;
    let png = png.unwrap().out;
    let img = image::load_from_memory(&png).unwrap().to_rgba8();
    assert!(img == full, "screencap -p is that image");
}
