//! Standard output of the few commands whose output the catastrophic-command guard can
//! compute, so that `echo cm0gLXJmIC8= | base64 -d | sh`, `echo '/ fr- mr' | rev | sh`,
//! `tr`, `sed s///` and `sh -c "$(printf …)"` are read as the command they decode to.
//! Anything else has unknown output (`None`).
use super::escape::{ansi_c, sed, tr};
use super::state::{Env, UNKNOWN};

const MAX_OUTPUT: usize = 256 * 1024;

/// Standard output of the few commands whose output the guard can compute.
///
/// Some commands print one of several texts depending on the implementation (mksh's `echo`
/// decodes backslash escapes, toybox's does not): every candidate is returned.
pub(super) fn output_of(
    name: &str,
    args: &[String],
    stdin: &str,
    env: &Env,
) -> Option<Vec<String>> {
    let stdin = Some(stdin.to_string());
    let out = match name {
        "echo" => return Some(echo(args)),
        "print" => return print(args),
        "printf" => printf(args)?,
        "base64" | "openssl"
            if args
                .iter()
                .any(|a| matches!(a.as_str(), "-d" | "--decode" | "-D" | "-di" | "-id")) =>
        {
            decode_base64(&stdin?)?
        }
        "xxd" if args.iter().any(|a| a.starts_with("-r")) => decode_hex(&stdin?)?,
        "rev" => stdin?
            .lines()
            .map(|l| l.chars().rev().collect::<String>() + "\n")
            .collect(),
        "cat" if args.iter().all(|a| a.starts_with('-')) => stdin?,
        "tee" => stdin?,
        "tr" => tr(args, &stdin?)?,
        "sed" => sed(args, &stdin?)?,
        // `basename NAME [SUFFIX]`, `dirname NAME`: options (`-a`, `-s`) and patterns make
        // the output a list the guard does not compute.
        "basename" | "dirname"
            if args.len() > if name == "basename" { 2 } else { 1 }
                || args
                    .iter()
                    .any(|a| a.starts_with('-') || a.contains(['*', '?', '[', UNKNOWN])) =>
        {
            return None;
        }
        "basename" => {
            let base = args.first()?.trim_end_matches('/').rsplit('/').next()?;
            let base = match args.get(1) {
                Some(suffix) if base != suffix => {
                    base.strip_suffix(suffix.as_str()).unwrap_or(base)
                }
                _ => base,
            };
            format!("{base}\n")
        }
        "dirname" => {
            let a = args.first()?.trim_end_matches('/');
            match a.rsplit_once('/') {
                Some(("", _)) => "/\n".into(),
                Some((d, _)) => format!("{d}\n"),
                None => ".\n".into(),
            }
        }
        // `readlink LINK` prints where a link points: known only for a link this command
        // made (a device's own links, `/bin`, `/cache`, …, are not all known).
        "readlink"
            if !args
                .iter()
                .any(|a| a.starts_with('-') && a.contains(['f', 'e', 'm'])) =>
        {
            let p = args.iter().rfind(|a| !a.starts_with('-'))?;
            let r = super::places::resolve(p, env);
            let target = env
                .fs
                .links
                .iter()
                .find(|(alias, _)| r.first() == Some(alias))
                .map(|(_, real)| real.clone())?;
            format!("{target}\n")
        }
        "realpath" | "readlink" => {
            let p = args.iter().rfind(|a| !a.starts_with('-'))?;
            let r = super::places::resolve(p, env);
            format!("{}\n", r.first()?)
        }
        // A process id: some number (which one does not matter to the guard).
        "pidof" | "pgrep" => "4242\n".into(),
        "true" | ":" | "cd" | "false" | "test" | "[" | "[[" | "sleep" | "chmod" | "mkdir"
        | "touch" | "rm" | "ln" | "mv" | "cp" | "export" | "setprop" => String::new(),
        _ => return None,
    };
    (out.len() <= MAX_OUTPUT).then(|| vec![out])
}

/// `echo`: mksh's builtin decodes `\n`, `\0nnn`, `\c`, …; toybox's only with `-e`.
fn echo(args: &[String]) -> Vec<String> {
    let mut newline = true;
    let mut escapes = None;
    let mut i = 0;
    while let Some(a) = args.get(i).filter(|a| a.len() > 1 && a.starts_with('-')) {
        if !a[1..].chars().all(|c| "neE".contains(c)) {
            break;
        }
        newline &= !a.contains('n');
        if a.contains('e') {
            escapes = Some(true);
        }
        if a.contains('E') {
            escapes = Some(false);
        }
        i += 1;
    }
    let raw = args[i.min(args.len())..].join(" ");
    let mut outs = match escapes {
        Some(true) => vec![ansi_c(&raw), echo_escapes(&raw)],
        Some(false) => vec![raw],
        None => vec![echo_escapes(&raw), raw],
    };
    outs.dedup();
    for o in &mut outs {
        if newline {
            o.push('\n');
        }
        o.truncate(MAX_OUTPUT);
    }
    outs
}

/// mksh's `print`: `-n` drops the newline, `-r`/`-R` print the words as written; otherwise
/// backslash escapes are decoded (octal with or without a leading 0, `\x41`): every
/// reading is a candidate. Other options (`-p`, `-u`, `-s`) are not followed.
fn print(args: &[String]) -> Option<Vec<String>> {
    let mut newline = true;
    let mut raw_only = false;
    let mut i = 0;
    while let Some(a) = args.get(i).filter(|a| a.len() > 1 && a.starts_with('-')) {
        if a == "--" {
            i += 1;
            break;
        }
        if !a[1..].chars().all(|c| "nrRe".contains(c)) {
            return None;
        }
        newline &= !a.contains('n');
        raw_only |= a.contains(['r', 'R']);
        i += 1;
    }
    let raw = args[i.min(args.len())..].join(" ");
    let mut outs = if raw_only {
        vec![raw]
    } else {
        vec![ansi_c(&raw), echo_escapes(&raw), raw]
    };
    outs.dedup();
    for o in &mut outs {
        if newline {
            o.push('\n');
        }
        o.truncate(MAX_OUTPUT);
    }
    Some(outs)
}

/// The escapes an XSI `echo` (mksh) decodes: `\\0nnn` octal and the single letters;
/// `\x41` and `\101` stay as written.
fn echo_escapes(s: &str) -> String {
    let mut out = String::new();
    let mut it = s.chars().peekable();
    while let Some(c) = it.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match it.peek().copied() {
            Some('0') => {
                it.next();
                let mut v = 0u32;
                for _ in 0..3 {
                    match it.peek().and_then(|d| d.to_digit(8)) {
                        Some(d) => {
                            v = v * 8 + d;
                            it.next();
                        }
                        None => break,
                    }
                }
                out.extend(char::from_u32(v));
            }
            Some(e @ ('a' | 'b' | 'c' | 'e' | 'f' | 'n' | 'r' | 't' | 'v' | '\\')) => {
                it.next();
                if e == 'c' {
                    break;
                }
                out.push_str(&ansi_c(&format!("\\{e}")));
            }
            _ => out.push('\\'),
        }
    }
    out
}

fn printf(args: &[String]) -> Option<String> {
    // toybox and busybox end options at `--`.
    let args = match args.first() {
        Some(a) if a == "--" => &args[1..],
        _ => args,
    };
    // Escapes and directives are read in one pass: `\x25s` prints `%s`, it is no directive.
    let fmt: Vec<char> = args.first()?.chars().collect();
    let mut rest = args[1..].iter();
    let mut out = String::new();
    loop {
        let mut i = 0;
        let mut consumed = false;
        while i < fmt.len() {
            let c = fmt[i];
            i += 1;
            if c == '\\' {
                let start = i - 1;
                let len = match fmt.get(i) {
                    Some('x') => {
                        1 + fmt[i + 1..]
                            .iter()
                            .take(2)
                            .take_while(|c| c.is_ascii_hexdigit())
                            .count()
                    }
                    Some('0'..='7') => fmt[i..]
                        .iter()
                        .take(4)
                        .take_while(|c| c.is_digit(8))
                        .count(),
                    Some(_) => 1,
                    None => 0,
                };
                i += len;
                let esc: String = fmt[start..i].iter().collect();
                if esc == "\\c" {
                    return Some(out);
                }
                out.push_str(&ansi_c(&esc));
                continue;
            }
            if c != '%' {
                out.push(c);
                continue;
            }
            // Only the directives whose output is the argument itself are computed; a width,
            // precision or flag (`%.2s`, `%5s`) or another conversion (`%c`, `%o`, `%x`)
            // makes the output unknown.
            let d = fmt.get(i).copied();
            i += 1;
            match d {
                Some('%') => out.push('%'),
                Some('b') => {
                    consumed = true;
                    out.push_str(&ansi_c(rest.next().map(String::as_str).unwrap_or("")));
                }
                Some('s') => {
                    consumed = true;
                    out.push_str(rest.next().map(String::as_str).unwrap_or(""));
                }
                Some('d' | 'i' | 'u') => {
                    consumed = true;
                    let a = rest.next().map(String::as_str).unwrap_or("0");
                    let n: i64 = a.trim().parse().ok()?;
                    out.push_str(&n.to_string());
                }
                Some(_) => return None,
                None => {}
            }
            if out.len() > MAX_OUTPUT {
                return None;
            }
        }
        if !consumed || rest.len() == 0 {
            return Some(out);
        }
    }
}

fn decode_base64(s: &str) -> Option<String> {
    use base64::Engine;
    use base64::engine::{DecodePaddingMode, GeneralPurpose, GeneralPurposeConfig};
    let cfg = GeneralPurposeConfig::new().with_decode_padding_mode(DecodePaddingMode::Indifferent);
    let compact: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    let bytes = GeneralPurpose::new(&base64::alphabet::STANDARD, cfg)
        .decode(&compact)
        .or_else(|_| GeneralPurpose::new(&base64::alphabet::URL_SAFE, cfg).decode(&compact))
        .ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

fn decode_hex(s: &str) -> Option<String> {
    let digits: Vec<u8> = s.bytes().filter(u8::is_ascii_hexdigit).collect();
    let bytes: Vec<u8> = digits
        .chunks_exact(2)
        .filter_map(|p| u8::from_str_radix(std::str::from_utf8(p).ok()?, 16).ok())
        .collect();
    Some(String::from_utf8_lossy(&bytes).into_owned())
}
