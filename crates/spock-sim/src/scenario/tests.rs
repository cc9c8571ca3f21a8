use super::*;

const XML: &str = "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\"><node index=\"0\" text=\"Hi\" bounds=\"[0,0][10,10]\" /></hierarchy>";

fn load(name: &str) -> std::io::Result<Vec<u8>> {
    match name {
        "a.xml" => Ok(XML.as_bytes().to_vec()),
        "bad.xml" => Ok(b"<hierarchy>\n  <node>\n</hierarchy>".to_vec()),
        _ => Err(std::io::Error::from(std::io::ErrorKind::NotFound)),
    }
}

fn err(toml: &str) -> String {
    Scenario::parse(toml, "scenario.toml", &load)
        .unwrap_err()
        .to_string()
}

#[test]
fn unknown_screen_is_reported_at_its_position() {
    let t = "[[screen]]\nid = \"home\"\npackage = \"p\"\nactivity = \".A\"\nui = \"a.xml\"\n\n[[transition]]\nfrom = \"hom\"\ntap = { text = \"x\" }\nto = \"home\"\n";
    assert_eq!(err(t), "scenario.toml:8:8: unknown screen \"hom\"");
}

#[test]
fn missing_file_and_bad_xml_name_the_file() {
    let t = "[[screen]]\nid = \"s\"\npackage = \"p\"\nactivity = \".A\"\nui = \"nope.xml\"\n";
    let e = err(t);
    assert!(
        e.starts_with("scenario.toml:5:6: cannot read \"nope.xml\""),
        "{e}"
    );
    let t = "[[screen]]\nid = \"s\"\npackage = \"p\"\nactivity = \".A\"\nui = \"bad.xml\"\n";
    let e = err(t);
    assert!(e.starts_with("bad.xml:3:1: malformed XML"), "{e}");
}

#[test]
fn malformed_toml_and_unknown_keys() {
    let e = err("[device]\nmodel = \n");
    assert!(e.starts_with("scenario.toml:2:"), "{e}");
    let e = err("[device]\ncolour = \"red\"\n");
    assert!(
        e.starts_with("scenario.toml:2:1: unknown field `colour`"),
        "{e}"
    );
    let e = err(
        "[[screen]]\nid = \"s\"\npackage = \"p\"\nactivity = \".A\"\nui = \"a.xml\"\n[[transition]]\nfrom = \"s\"\nto = \"s\"\n",
    );
    assert!(e.contains("exactly one of tap"), "{e}");
}

#[test]
fn defaults_and_qualified_names() {
    let t = "[[app]]\npackage = \"com.x\"\nlauncher = \".Main\"\npermissions = { \"android.permission.CAMERA\" = false }\n";
    let s = Scenario::parse(t, "s.toml", &load).unwrap();
    assert_eq!(s.device.model, "Pixel 7");
    assert_eq!(
        (
            s.device.width,
            s.device.height,
            s.device.density,
            s.device.sdk
        ),
        (1080, 2400, 420, 34)
    );
    let a = s.app("com.x").unwrap();
    assert_eq!(a.launcher.as_deref(), Some("com.x.Main"));
    assert_eq!(a.permissions.get("android.permission.CAMERA"), Some(&false));
    assert_eq!(qualify("com.x", "y.Z"), "y.Z");
}

// --- stateful apps: variables, tables, `when`, `set`, template screens ----------------------

/// A to-do app: a list of tasks (three rows, two fit), each with a Done button, a count, and a
/// title field whose text a transition reads.
const TODO: &str = r#"[[app]]
package = "t.todo"
first_screen = "list"
vars = { title = "", opened = 0 }

[[app.table]]
name = "tasks"
rows = [
  { id = "a", name = "Milk", done = 0 },
  { id = "b", name = "Eggs", done = 0 },
  { id = "c", name = "Bread", done = 0 },
]

[[screen]]
id = "list"
package = "t.todo"
activity = ".Main"
ui = "list.xml"
template = true

[[transition]]
from = "list"
tap = { resource_id = "done" }
set = ["item.done = 1"]
logcat = ["I Todo: done {item.name}, {sum(tasks, item.done)} of 3"]

[[transition]]
from = "list"
tap = { resource_id = "save" }
when = 'field("title") == ""'
set = ["title = 'untitled'"]

[[transition]]
from = "list"
tap = { resource_id = "save" }
set = ["title = field('title')", "opened += 1"]
"#;

const LIST: &str = concat!(
    "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">",
    "<node index=\"0\" text=\"\" resource-id=\"\" class=\"android.widget.FrameLayout\" package=\"t.todo\" content-desc=\"\" clickable=\"false\" focused=\"false\" bounds=\"[0,0][1080,2400]\">",
    "<node index=\"0\" text=\"{sum(tasks, item.done)} done\" resource-id=\"count\" class=\"android.widget.TextView\" package=\"t.todo\" content-desc=\"\" clickable=\"false\" focused=\"false\" bounds=\"[0,0][1080,100]\" />",
    "<node index=\"1\" text=\"\" resource-id=\"list\" class=\"android.view.View\" package=\"t.todo\" content-desc=\"\" clickable=\"false\" focused=\"false\" bounds=\"[0,100][1080,600]\">",
    "<node index=\"0\" text=\"\" resource-id=\"row\" class=\"android.view.View\" package=\"t.todo\" content-desc=\"\" clickable=\"false\" focused=\"false\" bounds=\"[0,100][1080,300]\" sim-each=\"tasks\" sim-where=\"item.done == 0\">",
    "<node index=\"0\" text=\"{item.name}\" resource-id=\"\" class=\"android.widget.TextView\" package=\"t.todo\" content-desc=\"\" clickable=\"false\" focused=\"false\" bounds=\"[0,100][800,300]\" />",
    "<node index=\"1\" text=\"Done\" resource-id=\"done\" class=\"android.widget.Button\" package=\"t.todo\" content-desc=\"Done with {item.name}\" clickable=\"true\" focused=\"false\" bounds=\"[800,100][1080,300]\" />",
    "</node></node>",
    "<node index=\"2\" text=\"All done\" resource-id=\"\" class=\"android.widget.TextView\" package=\"t.todo\" content-desc=\"\" clickable=\"false\" focused=\"false\" bounds=\"[0,600][1080,700]\" sim-if=\"sum(tasks, item.done) == 3\" />",
    "<node index=\"3\" text=\"\" resource-id=\"title\" class=\"android.widget.EditText\" package=\"t.todo\" content-desc=\"\" clickable=\"true\" focused=\"false\" bounds=\"[0,700][800,800]\" />",
    "<node index=\"4\" text=\"Save {title} ({opened})\" resource-id=\"save\" class=\"android.widget.Button\" package=\"t.todo\" content-desc=\"\" clickable=\"true\" focused=\"false\" bounds=\"[800,700][1080,800]\" />",
    "</node></hierarchy>"
);

fn todo_load(name: &str) -> std::io::Result<Vec<u8>> {
    match name {
        "list.xml" => Ok(LIST.as_bytes().to_vec()),
        _ => load(name),
    }
}

fn todo_err(toml: &str) -> String {
    todo_err_with(toml, LIST)
}

fn todo_err_with(toml: &str, list: &str) -> String {
    let load = |name: &str| match name {
        "list.xml" => Ok(list.as_bytes().to_vec()),
        _ => load(name),
    };
    Scenario::parse(toml, "scenario.toml", &load)
        .unwrap_err()
        .to_string()
}

fn texts(dev: &crate::device::SimDevice) -> Vec<String> {
    UiTree::parse(&dev.ui_xml())
        .unwrap()
        .nodes()
        .iter()
        .map(|n| n.text.clone())
        .filter(|t| !t.is_empty())
        .collect()
}

fn tap_id(dev: &crate::device::SimDevice, id: &str, nth: usize) {
    let t = UiTree::parse(&dev.ui_xml()).unwrap();
    let b = t
        .nodes()
        .iter()
        .filter(|n| n.resource_id == id)
        .nth(nth)
        .unwrap_or_else(|| panic!("no {id} #{nth}"))
        .bounds;
    let (x, y) = b.center();
    dev.with_state(|s| s.tap(x, y, false));
}

#[test]
fn a_template_repeats_rows_that_fit_and_transitions_change_them() {
    let s = Scenario::parse(TODO, "scenario.toml", &todo_load).unwrap();
    // Rendered once at load from the initial state: two rows fit the list, no sim-* left.
    let first = s.screen("list").unwrap().ui.clone();
    assert!(!first.xml().contains("sim-") && !first.xml().contains('{'));
    let dev = crate::device::SimDevice::from_scenario(s);
    dev.with_state(|s| s.launch("t.todo"));
    assert_eq!(
        texts(&dev),
        ["0 done", "Milk", "Done", "Eggs", "Done", "Save  (0)"]
    );
    let xml = dev.ui_xml();
    assert!(
        xml.contains(r#"index="1" text="" resource-id="row""#),
        "{xml}"
    );
    assert!(xml.contains(r#"content-desc="Done with Eggs" clickable="true" focused="false" bounds="[800,300][1080,500]""#), "{xml}");

    // The second row's Done: the row it was repeated for (Eggs) is done, Bread moves up.
    tap_id(&dev, "done", 1);
    assert_eq!(
        texts(&dev),
        ["1 done", "Milk", "Done", "Bread", "Done", "Save  (0)"]
    );
    let log = dev.with_state(|s| format!("{:?}", s.log.entries().last()));
    assert!(log.contains("done Eggs, 1 of 3"), "{log}");
    tap_id(&dev, "done", 0);
    tap_id(&dev, "done", 0);
    assert_eq!(texts(&dev), ["3 done", "All done", "Save  (0)"]);
    assert!(!dev.ui_xml().contains("resource-id=\"row\""));

    // `when` reads the field; the field keeps its text through the re-rendering.
    tap_id(&dev, "save", 0);
    assert_eq!(texts(&dev).last().unwrap(), "Save untitled (0)");
    tap_id(&dev, "title", 0);
    dev.with_state(|s| s.type_text("Groceries"));
    tap_id(&dev, "save", 0);
    assert_eq!(texts(&dev)[2..], ["Groceries", "Save Groceries (1)"]);
    assert_eq!(dev.screen_id(), "list");

    // A new process starts from the declared state.
    dev.with_state(|s| {
        s.force_stop("t.todo");
        s.launch("t.todo");
    });
    assert_eq!(texts(&dev)[0], "0 done");
}

#[test]
fn a_stateful_scenario_is_checked_at_load_with_positions() {
    let e = todo_err_with(TODO, &LIST.replace("item.done) == 3", "item.don) == 3"));
    assert!(
        e.starts_with("list.xml:1:") && e.contains("sim-if: no table field `don`"),
        "{e}"
    );
    let e = todo_err_with(
        TODO,
        &LIST.replace("sim-each=\"tasks\"", "sim-each=\"task\""),
    );
    assert!(e.contains("sim-each: unknown table `task`"), "{e}");
    let e = todo_err_with(TODO, &LIST.replace("sim-where=", "sim-filter="));
    assert!(e.contains("unknown attribute `sim-filter`"), "{e}");
    let e = todo_err_with(TODO, &LIST.replace("({opened})", "({opened)"));
    assert!(e.contains("text: a `{` with no `}`"), "{e}");
    let e = todo_err(&TODO.replace(
        "when = 'field(\"title\") == \"\"'",
        "when = 'titel == \"\"'",
    ));
    assert!(
        e.starts_with("scenario.toml:30:8: when: unknown variable `titel`"),
        "{e}"
    );
    let e = todo_err(&TODO.replace("\"item.done = 1\"", "\"item.done = \""));
    assert!(e.contains("set: expected a value"), "{e}");
    let e = todo_err(&TODO.replace(
        "{ id = \"c\", name = \"Bread\", done = 0 }",
        "{ id = \"c\", name = \"Bread\" }",
    ));
    assert!(e.contains("table `tasks`: row 3 has other fields"), "{e}");
    let e = todo_err(&TODO.replace("{ id = \"c\",", "{ id = \"a\","));
    assert!(e.contains("two rows with id \"a\""), "{e}");
    let e = todo_err(&TODO.replace(
        "logcat = [\"I Todo: done {item.name}",
        "logcat = [\"I Todo: done {item.nam}",
    ));
    assert!(e.contains("logcat: no table field `nam`"), "{e}");
    let e = todo_err(&TODO.replace(
        "template = true\n",
        "template = true\ndeep_link = \"todo://\"\ndeep_link_var = \"nope\"\n",
    ));
    assert!(e.contains("unknown variable `nope`"), "{e}");
    let e = todo_err(&TODO.replace(
        "vars = { title = \"\", opened = 0 }",
        "vars = { title = 1.5, opened = 0 }",
    ));
    assert!(
        e.contains("variable `title`: an integer or a string"),
        "{e}"
    );
    // Without `template = true`, the holes are plain text, as in any captured dump.
    let s = Scenario::parse(&TODO.replace("template = true\n", ""), "s.toml", &todo_load).unwrap();
    assert!(s.screen("list").unwrap().ui.xml().contains("{item.name}"));
    // No `to`, no `set`, no crash: nothing for the transition to do.
    let e = todo_err(&TODO.replace("set = [\"item.done = 1\"]\n", ""));
    assert!(e.contains("needs `to` unless"), "{e}");
}
