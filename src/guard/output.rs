//! Standard output of the few commands whose output the catastrophic-command guard can
//! compute, so that `echo cm0gLXJmIC8= | base64 -d | sh`, `echo '/ fr- mr' | rev | sh`,
//! `tr`, `sed s///` and `sh -c "$(printf …)"` are read as the command they decode to.
//! Anything else has unknown output (`None`).
use super::escape::{ansi_c, sed, tr};
use super::state::Env;

const MAX_OUTPUT: usize = 256 * 1024;

/// Standard output of the few commands whose output the guard can compute.
pub(super) fn output_of(name: &str, args: &[String], stdin: &str, env: &Env) -> Option<String> {
    let stdin = Some(stdin.to_string());
    let out = match name {
        "echo" => {
            let mut newline = true;
            let mut i = 0;
            while let Some(a) = args.get(i).filter(|a| a.len() > 1 && a.starts_with('-')) {
                if !a[1..].chars().all(|c| "neE".contains(c)) {
                    break;
                }
                if a.contains('n') {
                    newline = false;
                }
                i += 1;
            }
            // mksh's echo interprets escapes, toybox's needs -e; assume the worse.
            let mut s = ansi_c(&args[i.min(args.len())..].join(" "));
            if newline {
                s.push('\n');
            }
            s
        }
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
        "basename" => format!("{}\n", args.first()?.trim_end_matches('/').rsplit('/').next()?),
        "dirname" => {
            let a = args.first()?.trim_end_matches('/');
            match a.rsplit_once('/') {
                Some(("", _)) => "/\n".into(),
                Some((d, _)) => format!("{d}\n"),
                None => ".\n".into(),
            }
        }
        "realpath" | "readlink" => {
            let p = args.iter().rfind(|a| !a.starts_with('-'))?;
            let r = super::places::resolve(p, env);
            format!("{}\n", r.first()?)
        }
        "true" | ":" | "cd" | "false" | "test" | "[" | "[[" | "sleep" | "chmod" | "mkdir"
        | "touch" | "rm" | "ln" | "mv" | "cp" | "export" | "setprop" => String::new(),
        _ => return None,
    };
    (out.len() <= MAX_OUTPUT).then_some(out)
}

fn printf(args: &[String]) -> Option<String> {
    let fmt = ansi_c(args.first()?);
    let mut rest = args[1..].iter();
    let mut out = String::new();
    loop {
        let mut it = fmt.chars().peekable();
        let mut consumed = false;
        while let Some(c) = it.next() {
            if c != '%' {
                out.push(c);
                continue;
            }
            while it
                .peek()
                .is_some_and(|c| c.is_ascii_digit() || "-+ #.".contains(*c))
            {
                it.next();
            }
            match it.next() {
                Some('%') => out.push('%'),
                Some('b') => {
                    consumed = true;
                    out.push_str(&ansi_c(rest.next().map(String::as_str).unwrap_or("")));
                }
                Some(_) => {
                    consumed = true;
                    out.push_str(rest.next().map(String::as_str).unwrap_or(""));
                }
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
