//! File tools over the in-memory filesystem, with toybox's messages: `ls`, `stat`,
//! `realpath`, `readlink`, `ln -s`, `rm`, `mkdir`, `cat`, `touch`.
use bytes::Bytes;
use chrono::{Local, TimeZone};

use super::Ctx;
use crate::{FileStat, FsError};

fn split_flags(args: &[String]) -> (String, Vec<String>) {
    let mut flags = String::new();
    let mut paths = Vec::new();
    for a in args.iter().skip(1) {
        match a.strip_prefix('-') {
            Some(f) if !f.is_empty() => flags.push_str(f),
            _ => paths.push(a.clone()),
        }
    }
    (flags, paths)
}

fn mode_string(st: &FileStat) -> String {
    let ty = match st.mode & 0o170000 {
        0o040000 => 'd',
        0o120000 => 'l',
        _ => '-',
    };
    let mut s = String::from(ty);
    for shift in [6, 3, 0] {
        let bits = (st.mode >> shift) & 7;
        s.push(if bits & 4 != 0 { 'r' } else { '-' });
        s.push(if bits & 2 != 0 { 'w' } else { '-' });
        s.push(if bits & 1 != 0 { 'x' } else { '-' });
    }
    s
}

fn time_of(t: u32) -> chrono::DateTime<Local> {
    Local
        .timestamp_opt(i64::from(t), 0)
        .single()
        .unwrap_or_else(Local::now)
}

fn is_link(st: &FileStat) -> bool {
    st.mode & 0o170000 == 0o120000
}

/// One `ls -l` line; a symlink ends in ` -> TARGET` (its target as stored), as toybox shows it.
fn long_line(name: &str, st: &FileStat, target: Option<String>) -> String {
    let mut line = format!(
        "{} 1 shell everybody {:>8} {} {}",
        mode_string(st),
        st.size,
        time_of(st.mtime).format("%Y-%m-%d %H:%M"),
        name
    );
    if let Some(t) = target.filter(|_| is_link(st)) {
        line.push_str(" -> ");
        line.push_str(&t);
    }
    line
}

pub fn ls(ctx: &mut Ctx, args: &[String]) -> i32 {
    let (flags, mut paths) = split_flags(args);
    if paths.is_empty() {
        paths.push("/".into());
    }
    let long = flags.contains('l');
    let all = flags.contains('a');
    let dir_only = flags.contains('d');
    let mut code = 0;
    let many = paths.len() > 1;
    for p in &paths {
        // An operand that is a symlink: -l and -d show the link itself, otherwise (or with a
        // trailing slash) what it leads to is listed, as toybox and GNU ls do.
        let st = if (long || dir_only) && !p.ends_with('/') {
            ctx.st.fs.lstat(p)
        } else {
            ctx.st.fs.stat(p)
        };
        let st = match st {
            Ok(s) => s,
            Err(e) => {
                ctx.errln(&format!("ls: {p}: {e}"));
                code = 1;
                continue;
            }
        };
        if dir_only || st.mode & 0o170000 != 0o040000 {
            let line = if long {
                long_line(p, &st, ctx.st.fs.readlink(p).ok())
            } else {
                p.clone()
            };
            ctx.outln(&line);
            continue;
        }
        let entries = match ctx.st.fs.list(p) {
            Ok(e) => e,
            Err(e) => {
                ctx.errln(&format!("ls: {p}: {e}"));
                code = 1;
                continue;
            }
        };
        if many {
            ctx.outln(&format!("{p}:"));
        }
        if long {
            ctx.outln(&format!("total {}", entries.len() * 8));
        }
        if all {
            for dot in [".", ".."] {
                let line = if long {
                    long_line(dot, &st, None)
                } else {
                    dot.to_string()
                };
                ctx.outln(&line);
            }
        }
        for (name, est) in entries {
            if name.starts_with('.') && !all {
                continue;
            }
            let line = if long {
                let target = is_link(&est)
                    .then(|| {
                        let full = format!("{}/{name}", p.trim_end_matches('/'));
                        ctx.st.fs.readlink(&full).ok()
                    })
                    .flatten();
                long_line(&name, &est, target)
            } else {
                name
            };
            ctx.outln(&line);
        }
    }
    code
}

pub fn stat(ctx: &mut Ctx, args: &[String]) -> i32 {
    let mut format: Option<String> = None;
    let mut follow = false;
    let mut paths = Vec::new();
    let mut it = args.iter().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "-c" => format = it.next().cloned(),
            s if s.starts_with("--format=") || s.starts_with("--printf=") => {
                format = s.split_once('=').map(|(_, f)| f.to_string())
            }
            s if s.starts_with('-') && !s.starts_with("--") => follow |= s.contains('L'),
            s if s.starts_with('-') => {}
            _ => paths.push(a.clone()),
        }
    }
    if paths.is_empty() {
        ctx.errln("stat: Needs 1 argument");
        return 1;
    }
    let mut code = 0;
    for p in paths {
        // toybox: `(L ? stat : lstat)(file)`.
        let st = if follow {
            ctx.st.fs.stat(&p)
        } else {
            ctx.st.fs.lstat(&p)
        };
        let st = match st {
            Ok(s) => s,
            Err(e) => {
                ctx.errln(&format!("stat: '{p}': {e}"));
                code = 1;
                continue;
            }
        };
        // toybox's `%N`: the name quoted, and for a link ` -> `target'`.
        let long_name = match ctx.st.fs.readlink(&p).ok().filter(|_| is_link(&st)) {
            Some(t) => format!("`{p}' -> `{t}'"),
            None => format!("`{p}'"),
        };
        let kind = match st.mode & 0o170000 {
            0o040000 => "directory",
            0o120000 => "symbolic link",
            _ if st.size == 0 => "regular empty file",
            _ => "regular file",
        };
        match &format {
            Some(f) => {
                let mut out = String::new();
                let mut chars = f.chars();
                while let Some(c) = chars.next() {
                    if c != '%' {
                        out.push(c);
                        continue;
                    }
                    match chars.next() {
                        Some('s') => out.push_str(&st.size.to_string()),
                        Some('n') => out.push_str(&p),
                        Some('N') => out.push_str(&long_name),
                        Some('a') => out.push_str(&format!("{:o}", st.mode & 0o7777)),
                        Some('A') => out.push_str(&mode_string(&st)),
                        Some('Y') => out.push_str(&st.mtime.to_string()),
                        Some('F') => out.push_str(kind),
                        Some('f') => out.push_str(&format!("{:x}", st.mode)),
                        Some('U') => out.push_str("shell"),
                        Some('%') => out.push('%'),
                        Some(o) => {
                            out.push('%');
                            out.push(o);
                        }
                        None => out.push('%'),
                    }
                }
                ctx.outln(&out);
            }
            None => {
                let t = time_of(st.mtime)
                    .format("%Y-%m-%d %H:%M:%S%.9f %z")
                    .to_string();
                ctx.outln(&format!("  File: {long_name}"));
                ctx.outln(&format!(
                    "  Size: {}\t Blocks: {}\t IO Blocks: 4096\t{kind}",
                    st.size,
                    st.size.div_ceil(512)
                ));
                ctx.outln("Device: fd05h/64773d\t Inode: 131074\t Links: 1");
                ctx.outln(&format!(
                    "Access: (0{:o}/{})\tUid: ( 2000/   shell)\tGid: ( 9997/everybody)",
                    st.mode & 0o7777,
                    mode_string(&st)
                ));
                ctx.outln(&format!("Access: {t}"));
                ctx.outln(&format!("Modify: {t}"));
                ctx.outln(&format!("Change: {t}"));
            }
        }
    }
    code
}

pub fn realpath(ctx: &mut Ctx, args: &[String]) -> i32 {
    let (_, paths) = split_flags(args);
    let mut code = 0;
    for p in paths {
        match ctx
            .st
            .fs
            .resolve(&p)
            .and_then(|r| ctx.st.fs.stat(&r).map(|_| r))
        {
            Ok(r) => ctx.outln(&r),
            Err(e) => {
                ctx.errln(&format!("realpath: {p}: {e}"));
                code = 1;
            }
        }
    }
    code
}

/// toybox `readlink`: without options the link's target as stored, exit 1 (silently) for
/// anything that is not a link; `-f` resolves every link, the last component may be missing
/// but its directory may not; `-e` needs all of it; `-m` none of it. `-n` drops the newline,
/// `-q` prints nothing.
pub fn readlink(ctx: &mut Ctx, args: &[String]) -> i32 {
    let (flags, paths) = split_flags(args);
    let Some(p) = paths.first() else {
        ctx.errln("readlink: Needs 1 argument");
        return 1;
    };
    let shown = if flags.contains(['f', 'e', 'm']) {
        let fs = &ctx.st.fs;
        fs.resolve(p).ok().filter(|r| {
            if flags.contains('m') {
                true
            } else if flags.contains('e') {
                fs.stat(r).is_ok()
            } else {
                let parent = r
                    .rsplit_once('/')
                    .map_or("/", |(d, _)| if d.is_empty() { "/" } else { d });
                fs.is_dir(parent)
            }
        })
    } else {
        ctx.st.fs.readlink(p).ok()
    };
    match shown {
        Some(s) => {
            if !flags.contains('q') {
                ctx.out(&s);
                if !flags.contains('n') {
                    ctx.out("\n");
                }
            }
            0
        }
        None => 1,
    }
}

/// toybox `ln [-sfnv] [FROM...] TO` (symbolic links only: the virtual device has no hard
/// links). TO that is a directory (followed unless `-n`) gets links named after each FROM;
/// `-f` replaces an existing TO; FROM is stored as written. Errors read as toybox's
/// `cannot create symbolic link from 'FROM' to 'TO': …`.
pub fn ln(ctx: &mut Ctx, args: &[String]) -> i32 {
    let (flags, mut paths) = split_flags(args);
    let Some(dest) = paths.pop() else {
        ctx.errln("ln: Needs 1 argument");
        return 1;
    };
    if paths.is_empty() {
        // With one argument toybox links into the current directory, which is `/` here.
        paths.push(dest.clone());
        return ln_into(ctx, &flags, &paths, "/");
    }
    if !flags.contains('s') {
        ctx.errln(&format!(
            "ln: cannot create hard link from '{}' to '{dest}': Operation not permitted",
            paths[0]
        ));
        return 1;
    }
    let dest_is_dir = if flags.contains('n') {
        ctx.st
            .fs
            .lstat(&dest)
            .is_ok_and(|s| s.mode & 0o170000 == 0o040000)
    } else {
        ctx.st.fs.is_dir(&dest)
    };
    if dest_is_dir {
        return ln_into(ctx, &flags, &paths, &dest);
    }
    if paths.len() > 1 {
        ctx.errln(&format!("ln: '{dest}' not a directory"));
        return 1;
    }
    ln_one(ctx, &flags, &paths[0], &dest)
}

fn ln_into(ctx: &mut Ctx, flags: &str, from: &[String], dir: &str) -> i32 {
    let mut code = 0;
    for f in from {
        let base = f.trim_end_matches('/').rsplit('/').next().unwrap_or(f);
        let new = format!("{}/{base}", dir.trim_end_matches('/'));
        code |= ln_one(ctx, flags, f, &new);
    }
    code
}

fn ln_one(ctx: &mut Ctx, flags: &str, from: &str, to: &str) -> i32 {
    if !flags.contains('s') {
        ctx.errln(&format!(
            "ln: cannot create hard link from '{from}' to '{to}': Operation not permitted"
        ));
        return 1;
    }
    // -f: toybox makes the link under a temporary name and renames it over TO, so a link that
    // cannot be made leaves TO as it was.
    let fs = &mut ctx.st.fs;
    let result = match fs.symlink(from, to) {
        Err(FsError::Exists) if flags.contains('f') => {
            let mut trial = fs.clone();
            match trial
                .remove(to, false)
                .and_then(|()| trial.symlink(from, to))
            {
                Ok(()) => {
                    *fs = trial;
                    Ok(())
                }
                Err(e) => Err(e),
            }
        }
        other => other,
    };
    match result {
        Ok(()) => {
            if flags.contains('v') {
                ctx.errln(&format!("'{to}' -> '{from}'"));
            }
            0
        }
        Err(e) => {
            ctx.errln(&format!(
                "ln: cannot create symbolic link from '{from}' to '{to}': {e}"
            ));
            1
        }
    }
}

pub fn rm(ctx: &mut Ctx, args: &[String]) -> i32 {
    let (flags, paths) = split_flags(args);
    let force = flags.contains('f');
    let recursive = flags.contains('r') || flags.contains('R');
    if paths.is_empty() && !force {
        ctx.errln("rm: Needs 1 argument");
        return 1;
    }
    let mut code = 0;
    for p in paths {
        match ctx.st.fs.remove(&p, recursive) {
            Ok(()) => {}
            Err(FsError::NotFound) if force => {}
            Err(FsError::IsDirectory) => {
                ctx.errln(&format!("rm: {p}: Is a directory"));
                code = 1;
            }
            Err(e) => {
                ctx.errln(&format!("rm: {p}: {e}"));
                code = 1;
            }
        }
    }
    code
}

pub fn mkdir(ctx: &mut Ctx, args: &[String]) -> i32 {
    let (flags, paths) = split_flags(args);
    let parents = flags.contains('p');
    let mut code = 0;
    for p in paths {
        match ctx.st.fs.mkdir(&p, parents) {
            Ok(()) => {}
            Err(FsError::IsDirectory) => {
                ctx.errln(&format!("mkdir: '{p}': File exists"));
                code = 1;
            }
            Err(e) => {
                ctx.errln(&format!("mkdir: '{p}': {e}"));
                code = 1;
            }
        }
    }
    code
}

pub fn cat(ctx: &mut Ctx, args: &[String]) -> i32 {
    let (_, paths) = split_flags(args);
    if paths.is_empty() {
        let input = ctx.stdin.to_vec();
        ctx.out.extend_from_slice(&input);
        return 0;
    }
    let mut code = 0;
    for p in paths {
        match ctx.st.fs.read(&p) {
            Ok(b) => ctx.out.extend_from_slice(&b),
            Err(e) => {
                ctx.errln(&format!("cat: {p}: {e}"));
                code = 1;
            }
        }
    }
    code
}

pub fn touch(ctx: &mut Ctx, args: &[String]) -> i32 {
    let (_, paths) = split_flags(args);
    let mut code = 0;
    for p in paths {
        let data = ctx.st.fs.read(&p).unwrap_or_else(|_| Bytes::new());
        if let Err(e) = ctx.st.fs.write(&p, 0o660, 0, data) {
            ctx.errln(&format!("touch: '{p}': {e}"));
            code = 1;
        }
    }
    code
}
