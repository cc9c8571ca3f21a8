use std::path::Path;

use serde_json::json;

use super::*;

fn none(_: &str) -> bool {
    false
}

fn parse(text: &str) -> Result<Vec<OwnTool>, FileError> {
    parse_file(text, Path::new("team.toml"), false, &none)
}

const DARK: &str = r#"
[[tool]]
name = "acme_dark_mode"
description = "Dark mode on or off."
level = "safe"
command = "cmd uimode night {mode}"
output = "kv"
separator = ":"
fields = { nightMode = "string" }

[tool.params.mode]
type = "string"
enum = ["yes", "no", "auto"]
default = "yes"
"#;

#[test]
fn a_declaration_becomes_a_typed_schema_and_a_command() {
    let tools = parse(DARK).expect("loads");
    let t = &tools[0];
    assert_eq!(t.name, "acme_dark_mode");
    assert_eq!(t.level, Level::SafeAction);
    assert_eq!(t.line, 2);
    let schema = Value::Object(t.input_schema());
    assert_eq!(
        schema["properties"]["mode"]["enum"],
        json!(["yes", "no", "auto"])
    );
    assert_eq!(schema["properties"]["mode"]["default"], json!("yes"));
    assert!(schema.get("required").is_none(), "{schema}");
    assert_eq!(schema["additionalProperties"], json!(false));
    let args = json!({"mode": "no"});
    assert_eq!(
        t.expand(args.as_object().unwrap()).unwrap(),
        "cmd uimode night no"
    );
    assert_eq!(
        t.expand(&Map::new()).unwrap(),
        "cmd uimode night yes",
        "the default fills in"
    );
    let bad = json!({"mode": "maybe"});
    assert!(
        t.expand(bad.as_object().unwrap())
            .unwrap_err()
            .contains("not one of")
    );
    let out = t.read_output("Night mode: yes\n").unwrap();
    assert_eq!(out, json!({"nightMode": "yes"}));
}

const FREE: &str = r#"
[[tool]]
name = "acme_echo"
description = "Says a word."
level = "read-only"
command = "echo {word}"

[tool.params.word]
type = "string"
"#;

/// Whatever the value, the device shell gets it as one quoted word: the shell's own syntax
/// (`;`, `$(…)`, backquotes, newlines, quotes) is inert inside it.
#[test]
fn a_hostile_value_stays_one_word() {
    let t = &parse(FREE).unwrap()[0];
    for hostile in [
        "; pm uninstall com.example.shop",
        "$(pm uninstall com.example.shop)",
        "`reboot`",
        "a\npm uninstall com.example.shop",
        "it's",
        "'; reboot; '",
        "x && rm -rf /sdcard",
        "*",
        "",
    ] {
        let cmd = t
            .expand(json!({ "word": hostile }).as_object().unwrap())
            .unwrap();
        let rest = cmd.strip_prefix("echo ").unwrap();
        assert_eq!(
            shell_words(rest),
            vec![hostile.to_string()],
            "{hostile:?} became {cmd:?}"
        );
    }
    // An option is not a word the command should read as one.
    let e = t
        .expand(json!({"word": "-rf"}).as_object().unwrap())
        .unwrap_err();
    assert!(e.contains("starts with `-`"), "{e}");
}

/// POSIX sh word splitting of a line made only of single-quoted and plain words (what
/// `shell_quote` produces), enough to prove a value is one word.
fn shell_words(s: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut any = false;
    let mut chars = s.chars();
    let mut single = false;
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                single = !single;
                any = true;
            }
            '\\' if !single => {
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
            }
            ' ' | '\t' | '\n' if !single => {
                if any || !cur.is_empty() {
                    words.push(std::mem::take(&mut cur));
                    any = false;
                }
            }
            ';' | '&' | '|' | '$' | '`' | '(' | ')' | '*' | '<' | '>' if !single => {
                panic!("{c:?} is live in {s:?}")
            }
            c => cur.push(c),
        }
    }
    assert!(!single, "unclosed quote in {s:?}");
    if any || !cur.is_empty() {
        words.push(cur);
    }
    words
}

#[test]
fn a_placeholder_inside_the_templates_quotes_is_refused() {
    for (line, why) in [
        (r#"command = 'echo "{word}"'"#, "inside quotes"),
        (r#"command = "echo '{word}'""#, "inside quotes"),
        (r#"command = 'echo \{word}'"#, "backslash"),
        // `${word}` is the shell's own expansion, not a placeholder.
        (r#"command = 'echo ${word}'"#, "not used"),
        (r#"command = 'echo ${X:-{word}}'"#, "inside"),
        (r#"command = 'echo {word'"#, "not a placeholder"),
        (r#"command = 'echo {nope} {word}'"#, "no parameter"),
    ] {
        let text = FREE.replace(r#"command = "echo {word}""#, line);
        let e = parse(&text).unwrap_err();
        assert!(e.reason.contains(why), "{line}: {e}");
        // An unused parameter is the tool's error (its `[[tool]]` line); the rest the command's.
        let at = if why == "not used" { 2 } else { 6 };
        assert_eq!(e.line, Some(at), "{line}: {e}");
    }
    // Glued to other text is one word still.
    let glued = FREE.replace("echo {word}", "echo --text={word}");
    let t = &parse(&glued).unwrap()[0];
    assert_eq!(
        t.expand(json!({"word": "a b"}).as_object().unwrap())
            .unwrap(),
        "echo --text='a b'"
    );
}

#[test]
fn a_template_the_guard_refuses_is_refused_with_its_line() {
    let text = FREE.replace("echo {word}", "rm -rf /sdcard {word}");
    let e = parse(&text).unwrap_err();
    assert_eq!(e.line, Some(6), "{e}");
    assert!(e.reason.contains("the guard refuses"), "{e}");
    let shown = e.to_string();
    assert!(
        shown.starts_with("team.toml:6: tool `acme_echo`"),
        "{shown}"
    );
}

#[test]
fn names_are_prefixed_and_never_a_built_in() {
    for (name, why) in [
        ("android_tap", "built-in tools'"),
        ("spock_status", "built-in tools'"),
        ("frame", "prefix of yours"),
        ("Acme_x", "prefix of yours"),
        ("acme_", "empty"),
    ] {
        let text = FREE.replace("acme_echo", name);
        let e = parse(&text).unwrap_err();
        assert!(e.reason.contains(why), "{name}: {e}");
    }
    let taken = |n: &str| n == "acme_echo";
    let e = parse_file(FREE, Path::new("t.toml"), false, &taken).unwrap_err();
    assert!(e.reason.contains("taken"), "{e}");
    let twice = format!("{FREE}\n{}", FREE.replace("word", "other"));
    let e = parse(&twice).unwrap_err();
    assert!(e.reason.contains("taken"), "{e}");
    assert_eq!(e.line, Some(12), "{e}");
}

#[test]
fn broken_declarations_name_their_line_and_reason() {
    let cases: &[(&str, &str, usize)] = &[
        ("level = \"read-only\"", "level = \"sometimes\"", 5),
        // A parameter's error names its table.
        ("type = \"string\"", "type = \"float\"", 8),
        ("type = \"string\"", "type = \"string\"\nminimum = 3", 8),
        ("type = \"string\"", "type = \"string\"\npattern = \"(\"", 8),
        (
            "description = \"Says a word.\"",
            "description = \"Says a word.\"\ncolour = 1",
            5,
        ),
        ("type = \"string\"", "type = \"string\"\ndefault = 3", 8),
    ];
    for (from, to, line) in cases {
        let e = parse(&FREE.replace(from, to)).unwrap_err();
        assert_eq!(e.line, Some(*line), "{to}: {e}");
    }
    let unused = FREE.replace("echo {word}", "echo hello");
    assert!(parse(&unused).unwrap_err().reason.contains("not used"));
    let serial = FREE
        .replace("params.word", "params.serial")
        .replace("{word}", "{serial}");
    assert!(parse(&serial).unwrap_err().reason.contains("`serial`"));
}

#[test]
fn integers_keep_their_bounds_and_booleans_their_words() {
    let text = r#"
[[tool]]
name = "acme_trim"
description = "Trim caches."
level = "destructive"
command = "pm trim-caches {gigabytes}G {verbose}"
[tool.params.gigabytes]
type = "integer"
minimum = 1
maximum = 999
[tool.params.verbose]
type = "boolean"
default = false
"#;
    let t = &parse(text).unwrap()[0];
    let schema = Value::Object(t.input_schema());
    assert_eq!(schema["required"], json!(["gigabytes"]));
    assert_eq!(schema["properties"]["gigabytes"]["maximum"], json!(999));
    assert_eq!(
        t.expand(json!({"gigabytes": 5}).as_object().unwrap())
            .unwrap(),
        "pm trim-caches 5G false"
    );
    for bad in [
        json!({"gigabytes": 0}),
        json!({"gigabytes": "5"}),
        json!({}),
    ] {
        assert!(t.expand(bad.as_object().unwrap()).is_err(), "{bad}");
    }
    assert!(
        t.expand(json!({"gigabytes": 5, "extra": 1}).as_object().unwrap())
            .unwrap_err()
            .contains("unknown parameter")
    );
}

#[test]
fn outputs_read_as_declared() {
    let mk = |output: &str| {
        let text = FREE.replace(
            "command = \"echo {word}\"",
            &format!("command = \"echo {{word}}\"\noutput = \"{output}\""),
        );
        parse(&text).unwrap().remove(0)
    };
    assert_eq!(
        mk("lines").read_output("a\n\nb  \n").unwrap(),
        json!({"lines": ["a", "b"]})
    );
    assert_eq!(
        mk("json").read_output("{\"x\": 1}\n").unwrap(),
        json!({"value": {"x": 1}})
    );
    assert!(mk("json").read_output("not json").is_err());
    let text = r#"
[[tool]]
name = "acme_frames"
description = "Frame stats."
level = "read-only"
command = "dumpsys gfxinfo {package}"
output = "kv"
separator = ":"
fields = { totalFramesRendered = "integer", jankyFrames = "string" }
[tool.params.package]
type = "string"
pattern = "[a-zA-Z][a-zA-Z0-9_]*(\\.[a-zA-Z][a-zA-Z0-9_]*)+"
"#;
    let t = &parse(text).unwrap()[0];
    let out = t
        .read_output("\nStats since: 1ns\nTotal frames rendered: 120\nJanky frames: 3 (2.50%)\n")
        .unwrap();
    assert_eq!(out["totalFramesRendered"], json!(120));
    assert_eq!(out["jankyFrames"], json!("3 (2.50%)"));
    assert_eq!(out["statsSince"], json!("1ns"));
    assert!(t.read_output("Total frames rendered: many\n").is_err());
    assert_eq!(
        Value::Object(t.output_schema())["properties"]["totalFramesRendered"]["type"],
        json!("integer")
    );
    // The pattern is matched whole.
    let e = t
        .expand(
            json!({"package": "com.example.shop; reboot"})
                .as_object()
                .unwrap(),
        )
        .unwrap_err();
    assert!(e.contains("pattern"), "{e}");
}

/// A file with an error loads nothing; the others load. config.toml's `[[tool]]` loads beside
/// the settings (which it does not disturb).
#[test]
fn a_broken_file_loads_nothing_and_the_others_load() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.toml");
    std::fs::write(&config, format!("[history]\nsize = 50\n{DARK}")).unwrap();
    let tools = tools_dir(dir.path());
    std::fs::create_dir(&tools).unwrap();
    std::fs::write(tools.join("a.toml"), FREE).unwrap();
    std::fs::write(
        tools.join("b.toml"),
        FREE.replace("acme_echo", "acme_other")
            .replace("level = \"read-only\"", "level = 3"),
    )
    .unwrap();
    std::fs::write(tools.join("notes.txt"), "not read").unwrap();
    let loaded = load(&config, &|n: &str| n.starts_with("android_"));
    let names: Vec<&str> = loaded.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["acme_dark_mode", "acme_echo"]);
    assert_eq!(loaded.errors.len(), 1, "{:?}", loaded.errors);
    let e = loaded.errors[0].to_string();
    assert!(e.contains("b.toml:5:"), "{e}");
    assert_eq!(loaded.files.len(), 2);
    // The settings still load, without the tools.
    let cfg = crate::config::Config::load(&config).unwrap();
    assert_eq!(cfg.history.size, 50);
}

/// A template that hands a value to a shell as code is refused at load, whatever the runner;
/// a value that is only an argument (also of commands that delete, or of a redirect) is not.
#[test]
fn a_placeholder_run_as_shell_code_is_refused() {
    for cmd in [
        "sh -c {word}",
        "eval {word}",
        "su -c {word}",
        "su 0 sh -c {word}",
        "echo hi && sh -c {word}",
        "toybox sh -c {word}",
        "/system/bin/sh -c {word}",
    ] {
        let text = FREE.replace(r#"command = "echo {word}""#, &format!("command = '{cmd}'"));
        match parse(&text) {
            Err(e) => assert!(
                e.reason.contains("run as shell code") || e.reason.contains("guard refuses"),
                "{cmd}: {e}"
            ),
            Ok(_) => panic!("{cmd} was accepted"),
        }
    }
    for cmd in [
        "echo {word}",
        "am broadcast -a com.example.DEBUG --es key {word}",
        "rm -f /sdcard/Download/{word}",
        "settings put global {word} 1",
        "echo {word} > /data/local/tmp/out",
        "pm clear {word}",
    ] {
        let text = FREE.replace(r#"command = "echo {word}""#, &format!("command = '{cmd}'"));
        assert!(parse(&text).is_ok(), "{cmd}: {:?}", parse(&text).err());
    }
}

/// The black-box attacker's templates (docs/reviews/issue-39): every shape in which a value
/// becomes code again is refused at load; the ones where it stays an argument load.
#[test]
fn the_attackers_templates_that_run_a_value_are_refused() {
    let code = [
        "sh -c {word}",
        "toybox sh -c {word}",
        "eval settings put global k {word}",
        "run-as com.example.shop sh -c {word}",
        "echo {word} | sh",
        "echo {word} | xargs -I@ sh -c @",
        "trap {word} EXIT",
        "{word} --help",
        "settings put global k v; {word}",
        "settings put global k v #\n{word}",
        "cat <<EOF\n{word}\nEOF",
        "sh <<EOF\nsettings put global k {word}\nEOF",
        "cat <<EOF | sh\nsettings put global k {word}\nEOF",
        "settings put global k \"$(echo \"{word}\")\"",
        "settings put global k $(echo {word})",
        "settings put global k `echo {word}`",
        "sh {word}",
        ". {word}",
    ];
    for cmd in code {
        assert!(parse(&with_command(cmd)).is_err(), "{cmd:?} was accepted");
    }
    let argument = [
        "am broadcast -a com.team.X --es key {word}",
        "sh -c 'settings put global k \"$1\"' _ {word}",
        "settings list global > /data/local/tmp/{word}",
        "for i in a b; do settings put global {word} $i; done",
    ];
    for cmd in argument {
        let text = with_command(cmd);
        assert!(parse(&text).is_ok(), "{cmd:?}: {:?}", parse(&text).err());
    }
}

/// [`FREE`] running `cmd` (a TOML multi-line literal: quotes and newlines as written).
fn with_command(cmd: &str) -> String {
    FREE.replace(
        r#"command = "echo {word}""#,
        &format!("command = '''{cmd}'''"),
    )
}

/// Findings 5 and 6 of the black-box attack: `kill -9 {pid}` with -1, and `logcat -s {tag}`
/// with `-c` through a pattern that allows a dash. An option needs `options = true` (or, for
/// an integer, a negative minimum); an enum's own words are the author's.
#[test]
fn an_option_needs_the_declaration_to_mean_it() {
    let kill = r#"
[[tool]]
name = "lab_kill"
description = "Stops a process."
level = "safe"
command = "kill -9 {pid}"
[tool.params.pid]
type = "integer"
"#;
    let t = &parse(kill).unwrap()[0];
    let e = t
        .expand(json!({"pid": -1}).as_object().unwrap())
        .unwrap_err();
    assert!(e.contains("negative"), "{e}");
    assert_eq!(
        t.expand(json!({"pid": 4321}).as_object().unwrap()).unwrap(),
        "kill -9 4321"
    );
    let meant =
        &parse(&kill.replace("type = \"integer\"", "type = \"integer\"\nminimum = -1")).unwrap()[0];
    assert!(
        meant
            .expand(json!({"pid": -1}).as_object().unwrap())
            .is_ok()
    );

    let tag = FREE.replace("echo {word}", "logcat -d -s {word}").replace(
        "type = \"string\"",
        "type = \"string\"\npattern = \"[A-Za-z0-9_.-]+\"",
    );
    let t = &parse(&tag).unwrap()[0];
    let e = t
        .expand(json!({"word": "-c"}).as_object().unwrap())
        .unwrap_err();
    assert!(e.contains("options = true"), "{e}");
    let opted =
        &parse(&tag.replace("type = \"string\"", "type = \"string\"\noptions = true")).unwrap()[0];
    assert!(
        opted
            .expand(json!({"word": "-c"}).as_object().unwrap())
            .is_ok()
    );
    let choice = FREE.replace(
        "type = \"string\"",
        "type = \"string\"\nenum = [\"-v\", \"-q\"]",
    );
    let t = &parse(&choice).unwrap()[0];
    assert!(t.expand(json!({"word": "-v"}).as_object().unwrap()).is_ok());
}
