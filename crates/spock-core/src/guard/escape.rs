//! Backslash escapes and the small text transforms (`tr`, `sed s///`) whose output the guard
//! computes, so that a command spelled through `$'\\x72m'`, `printf`, `tr` or `sed` is read as
//! the command it becomes. Anything outside the simple forms here is "unknown" to the caller.

/// Decodes `$'…'` (and `echo -e`/`printf`) backslash escapes.
pub(super) fn ansi_c(s: &str) -> String {
    let c: Vec<char> = s.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < c.len() {
        if c[i] != '\\' || i + 1 >= c.len() {
            out.push(c[i]);
            i += 1;
            continue;
        }
        i += 1;
        let e = c[i];
        i += 1;
        let radix_digits = |i: &mut usize, radix: u32, max: usize| {
            let mut v = 0u32;
            let mut n = 0;
            while n < max && *i < c.len() && c[*i].is_digit(radix) {
                v = v * radix + c[*i].to_digit(radix).unwrap_or(0);
                *i += 1;
                n += 1;
            }
            (v, n)
        };
        match e {
            'n' => out.push('\n'),
            't' => out.push('\t'),
            'r' => out.push('\r'),
            'a' => out.push('\x07'),
            'b' => out.push('\x08'),
            'e' | 'E' => out.push('\x1b'),
            'f' => out.push('\x0c'),
            'v' => out.push('\x0b'),
            'c' => break,
            'u' | 'U' => {
                let (v, n) = radix_digits(&mut i, 16, if e == 'u' { 4 } else { 8 });
                if n == 0 {
                    out.push('\\');
                    out.push(e);
                } else {
                    out.extend(char::from_u32(v));
                }
            }
            'x' => {
                let (v, n) = radix_digits(&mut i, 16, 2);
                if n == 0 {
                    out.push_str("\\x");
                } else {
                    out.extend(char::from_u32(v));
                }
            }
            '0'..='7' => {
                i -= 1;
                // `\0NNN` (echo) and `\NNN` (printf, $'') both reach here.
                if c[i] == '0' {
                    i += 1;
                }
                let (v, _) = radix_digits(&mut i, 8, 3);
                out.extend(char::from_u32(v));
            }
            other => out.push(other),
        }
    }
    out
}

const MAX_SET: usize = 4096;

/// Expands a `tr` set (`a-z`, escapes, `[:lower:]`, `[:upper:]`, `[:digit:]`, `[:space:]`).
fn tr_set(s: &str) -> Option<Vec<char>> {
    let s = ansi_c(s);
    let mut out = Vec::new();
    let c: Vec<char> = s.chars().collect();
    let mut i = 0;
    while i < c.len() {
        let rest: String = c[i..].iter().take(10).collect();
        let class = [
            ("[:lower:]", ('a'..='z').collect::<Vec<_>>()),
            ("[:upper:]", ('A'..='Z').collect()),
            ("[:digit:]", ('0'..='9').collect()),
            ("[:space:]", vec![' ', '\t', '\n', '\r', '\x0b', '\x0c']),
            ("[:alpha:]", ('a'..='z').chain('A'..='Z').collect()),
        ];
        if let Some((n, set)) = class.iter().find(|(n, _)| rest.starts_with(n)) {
            out.extend(set);
            i += n.chars().count();
            continue;
        }
        if c[i] == '[' || c.get(i + 1) == Some(&'*') {
            // `[x*n]` repeats: not modelled.
            if c[i] == '[' && c[i..].contains(&'*') {
                return None;
            }
        }
        if i + 2 < c.len() && c[i + 1] == '-' {
            let (a, b) = (c[i] as u32, c[i + 2] as u32);
            if b < a || b - a > MAX_SET as u32 {
                return None;
            }
            out.extend((a..=b).filter_map(char::from_u32));
            i += 3;
        } else {
            out.push(c[i]);
            i += 1;
        }
        if out.len() > MAX_SET {
            return None;
        }
    }
    Some(out)
}

/// `tr SET1 SET2`, `tr -d SET`, `tr -s`-free forms; `None` for anything else.
pub(super) fn tr(args: &[String], input: &str) -> Option<String> {
    let (flags, sets): (Vec<&String>, Vec<&String>) =
        args.iter().partition(|a| a.starts_with('-') && a.len() > 1);
    let delete = flags.iter().any(|f| f.contains('d'));
    if flags.iter().any(|f| f.contains(['c', 'C', 's'])) {
        return None;
    }
    let a = tr_set(sets.first()?)?;
    if delete {
        return Some(input.chars().filter(|c| !a.contains(c)).collect());
    }
    let b = tr_set(sets.get(1)?)?;
    let last = *b.last()?;
    Some(
        input
            .chars()
            .map(|c| match a.iter().rposition(|x| *x == c) {
                Some(i) => *b.get(i).unwrap_or(&last),
                None => c,
            })
            .collect(),
    )
}

/// `sed 's/A/B/[g]'` (and `-e` lists of them) with literal `A`; `None` for anything else.
pub(super) fn sed(args: &[String], input: &str) -> Option<String> {
    let mut scripts = Vec::new();
    let mut i = 0;
    while let Some(a) = args.get(i) {
        match a.as_str() {
            "-e" => {
                scripts.push(args.get(i + 1)?.clone());
                i += 2;
            }
            "-n" | "-i" | "-E" | "-r" => return None,
            s if s.starts_with('-') => i += 1,
            s => {
                if scripts.is_empty() {
                    scripts.push(s.to_string());
                } else {
                    // A file operand: not the input we know.
                    return None;
                }
                i += 1;
            }
        }
    }
    let mut text = input.to_string();
    for sc in scripts.iter().flat_map(|s| s.split(';')) {
        let sc = sc.trim();
        let mut ch = sc.chars();
        if ch.next()? != 's' {
            return None;
        }
        let d = ch.next()?;
        let parts: Vec<&str> = sc[1 + d.len_utf8()..].split(d).collect();
        let [from, to, flags] = parts.as_slice() else {
            return None;
        };
        if from.is_empty()
            || from.contains(['.', '*', '[', '^', '$', '\\', '+', '?', '('])
            || to.contains(['&', '\\'])
        {
            return None;
        }
        let global = flags.contains('g');
        text = text
            .lines()
            .map(|l| {
                if global {
                    l.replace(from, to)
                } else {
                    l.replacen(from, to, 1)
                }
            })
            .collect::<Vec<_>>()
            .join("\n")
            + if text.ends_with('\n') { "\n" } else { "" };
    }
    Some(text)
}
