"""The demo device as a new user tries it (issue 41): the tasks docs/demo.md suggests asking an
agent, done the way an agent does them, through a real MCP client (the Python SDK over the
stdio relay) against `serve --demo`, and the answers it would read checked to the cent.

The shop keeps state: the cart starts empty and holds what was added, a checkout places an
order and empties it, and a wrong or missing password is refused on the login screen."""
import json

import pytest
from conftest import call, start_instance
from mcp import Client

pytestmark = pytest.mark.anyio

SHOP = "com.example.shop"
ACCOUNT = ("me@example.com", "hunter2")
PRODUCTS = {
    "Espresso Machine": "$249.00",
    "Coffee Grinder": "$89.00",
    "Milk Frother": "$39.00",
    "Travel Mug": "$19.00",
}


@pytest.fixture
def demo(tmp_path):
    inst = start_instance(tmp_path, "--demo")
    yield inst
    inst.stop()


def session(inst):
    return Client(inst.relay_params(), mode="legacy")


async def ok(c, tool, args=None):
    err, r = await call(c, tool, args)
    assert not err, (tool, args, r)
    # Whatever the agent types as the password never comes back to it.
    assert ACCOUNT[1] not in json.dumps(r), (tool, r)
    return r


async def texts(c, view_id):
    """The texts of every element with that resource id (test tag or view id), top to bottom."""
    r = await ok(c, "android_find_ui_element", {"selector": {"viewId": view_id}, "limit": 50})
    return [m.get("text", "") for m in r["matches"]]


async def text_of(c, view_id):
    found = await texts(c, view_id)
    assert len(found) == 1, (view_id, found)
    return found[0]


async def visible(c, element):
    return (await ok(c, "android_assert_visible", {"element": element}))["passed"]


async def sign_in(c, email, password):
    """Fills the login form in one call and taps Sign in; the settled screen comes back."""
    await ok(c, "android_input_text_into_element", {
        "element": "login_email", "text": email, "clear": True,
        "fields": [{"element": "login_password", "text": password, "clear": True}]})
    return (await ok(c, "android_tap_element", {"element": "Sign in", "returnScreen": "tree"}))["screen"]


async def signed_in(c):
    await ok(c, "android_launch_app", {"packageName": SHOP})
    screen = await sign_in(c, *ACCOUNT)
    assert "Espresso Machine" in screen, screen


async def add_to_cart(c, name, times):
    """Opens the product's page from home, adds it `times` times, and goes back home."""
    await ok(c, "android_tap_element", {"element": name})
    await ok(c, "android_tap_element", {"element": "Add to cart"})
    for _ in range(times - 1):
        await ok(c, "android_tap_element", {"element": "Add another"})
    assert await visible(c, f"{times} in your cart")
    await ok(c, "android_tap_element", {"element": "Back"})


async def cart(c):
    """The cart's lines (name, quantity, line price) and its total, as the screen shows them."""
    names, qty, prices = (await texts(c, "line_name"), await texts(c, "line_quantity"),
                          await texts(c, "line_price"))
    assert len(names) == len(qty) == len(prices), (names, qty, prices)
    return list(zip(names, qty, prices)), await text_of(c, "cart_total")


async def test_a_wrong_password_is_refused_with_a_message_and_the_account_signs_in(demo):
    async with session(demo) as c:
        await ok(c, "android_launch_app", {"packageName": SHOP})
        assert await visible(c, "Welcome back")
        screen = await sign_in(c, ACCOUNT[0], "hunter3")
        assert "Wrong email or password" in screen, screen
        assert await text_of(c, "login_error") == "Wrong email or password"
        assert await visible(c, "Welcome back"), "still on the login screen"
        # The e-mail stays as typed (the password never comes back: `ok` checks every answer).
        assert await text_of(c, "login_email") == ACCOUNT[0]
        # An empty password is refused too.
        await ok(c, "android_perform_action", {"element": "login_password", "action": "clear"})
        await ok(c, "android_tap_element", {"element": "Sign in"})
        assert await text_of(c, "login_error") == "Enter your email and password"

        screen = await sign_in(c, *ACCOUNT)
        assert "Espresso Machine" in screen and "Welcome back" not in screen, screen
        assert not await visible(c, "Wrong email or password")
        act = await ok(c, "android_get_current_activity")
        assert act["activity"] == "com.example.shop/.MainActivity", act
        logs = await ok(c, "android_get_logcat", {"tag": "ShopApp"})
        said = [l["message"] for l in logs["lines"]]
        assert said.count("login ok") == 1 and any("wrong email or password" in m for m in said), said


async def test_each_product_on_home_opens_its_own_page_with_its_price(demo):
    async with session(demo) as c:
        await signed_in(c)
        # Home lists each product as a card: its photo, its name and its price.
        home = await ok(c, "android_get_ui_tree", {"compact": True})
        cards = [n["in"].split(" | ") for n in home["tree"]["n"] if " photo | " in n.get("in", "")]
        assert {name: price for _, name, price in cards} == PRODUCTS, cards
        for name, price in PRODUCTS.items():
            await ok(c, "android_tap_element", {"element": name})
            act = await ok(c, "android_get_current_activity")
            assert act["activity"] == "com.example.shop/.ProductActivity", act
            page = await ok(c, "android_get_ui_tree", {"compact": True})
            shown = [n.get("t") or n.get("in") for n in page["tree"]["n"]]
            assert name in shown and price in shown and "Add to cart" in shown, (name, shown)
            assert not [p for p in PRODUCTS if p != name and p in shown], (name, shown)
            await ok(c, "android_tap_element", {"element": "Back"})
            assert await visible(c, "Cart"), "back home"
        # A link to a product opens that product's page.
        await ok(c, "android_open_deep_link", {"uri": "shop://product/23"})
        assert await visible(c, "Milk Frother") and await visible(c, "$39.00")


async def test_the_cart_holds_what_was_added_and_checkout_places_the_order(demo):
    async with session(demo) as c:
        await signed_in(c)
        await ok(c, "android_tap_element", {"element": "Cart"})
        assert await cart(c) == ([], "Total: $0.00")
        assert await visible(c, "Your cart is empty")
        await ok(c, "android_press_key", {"key": "BACK"})

        await add_to_cart(c, "Espresso Machine", 2)
        await add_to_cart(c, "Travel Mug", 1)
        await ok(c, "android_tap_element", {"element": "Cart"})
        lines, total = await cart(c)
        assert lines == [
            ("Espresso Machine", "2 × $249.00", "$498.00"),
            ("Travel Mug", "1 × $19.00", "$19.00"),
        ], lines
        assert total == "Total: $517.00"
        shot = await c.call_tool("android_take_screenshot", {"format": "png"})
        assert not shot.is_error and [x for x in shot.content if x.type == "image"], shot.content

        screen = (await ok(c, "android_tap_element", {"element": "CHECKOUT", "returnScreen": "tree"}))["screen"]
        assert "Order placed" in screen, screen
        assert await text_of(c, "order_number") == "Order #1042"
        assert await text_of(c, "order_total") == "Total paid: $517.00"
        logs = await ok(c, "android_get_logcat", {"contains": "order #1042"})
        assert [l["message"] for l in logs["lines"]] == ["order #1042 placed, $517.00 paid"], logs

        # The cart is empty afterwards, and the next order has the next number.
        await ok(c, "android_tap_element", {"element": "Continue shopping"})
        await ok(c, "android_tap_element", {"element": "Cart"})
        assert await cart(c) == ([], "Total: $0.00")
        await ok(c, "android_press_key", {"key": "BACK"})
        await add_to_cart(c, "Milk Frother", 1)
        await ok(c, "android_tap_element", {"element": "Cart"})
        await ok(c, "android_tap_element", {"element": "CHECKOUT"})
        assert await text_of(c, "order_number") == "Order #1043"
        assert await text_of(c, "order_total") == "Total paid: $39.00"


async def test_an_empty_cart_is_refused_and_each_line_can_be_changed(demo):
    async with session(demo) as c:
        await signed_in(c)
        await ok(c, "android_tap_element", {"element": "Cart"})
        await ok(c, "android_tap_element", {"element": "CHECKOUT"})
        msg = "Your cart is empty: add a product before you check out"
        assert await text_of(c, "checkout_error") == msg
        act = await ok(c, "android_get_current_activity")
        assert act["activity"] == "com.example.shop/.CartActivity", "no order was placed"
        await ok(c, "android_press_key", {"key": "BACK"})

        await add_to_cart(c, "Coffee Grinder", 1)
        await add_to_cart(c, "Milk Frother", 1)
        await ok(c, "android_tap_element", {"element": "Cart"})
        assert not await visible(c, msg), "the message went with the empty cart"
        # Each line's buttons are named after its product, so an agent can tell them apart.
        await ok(c, "android_tap_element", {"element": "One more Coffee Grinder"})
        assert await cart(c) == ([("Coffee Grinder", "2 × $89.00", "$178.00"),
                                  ("Milk Frother", "1 × $39.00", "$39.00")], "Total: $217.00")
        await ok(c, "android_tap_element", {"element": "Remove Milk Frother"})
        assert await cart(c) == ([("Coffee Grinder", "2 × $89.00", "$178.00")], "Total: $178.00")
        await ok(c, "android_tap_element", {"element": "One less Coffee Grinder"})
        assert await cart(c) == ([("Coffee Grinder", "1 × $89.00", "$89.00")], "Total: $89.00")


async def test_the_notes_app_functions_and_an_uninstall_that_needs_the_person(demo):
    async with session(demo) as c:
        listed = await ok(c, "android_list_app_functions", {"packageNames": ["com.example.notes"]})
        assert {f["functionId"] for f in listed["functions"]} == {"createNote", "searchNotes", "deleteNote"}
        r = await ok(c, "android_call_app_function", {
            "packageName": "com.example.notes", "functionId": "createNote",
            "arguments": {"title": "Beans", "body": "Buy espresso beans"}})
        assert r["result"] == 'Created note "Beans"', r
        # Uninstalling is destructive: with no person at a control centre to approve it, it is
        # refused, and Notes stays.
        err, r = await call(c, "android_uninstall_app", {"packageName": "com.example.notes"})
        assert err and r["kind"] == "denied", r
        pkgs = await ok(c, "android_list_packages", {})
        assert "com.example.notes" in json.dumps(pkgs), pkgs
