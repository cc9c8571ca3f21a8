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
