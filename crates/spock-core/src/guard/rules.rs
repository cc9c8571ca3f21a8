//! The deleting, overwriting and moving verbs, applied to each argv after [`super::runners`]
//! has unwrapped it, and the one rule they share: when the target of such a verb (or the verb
//! itself) cannot be determined, the command is refused as "cannot tell", naming what could
//! not be read, so an honest author can write it plainly.
//!
//! Decisions, so they are not re-litigated per call site:
//! - A recursive delete (`rm -r`, `find … -delete`, `find -exec rm`) is catastrophic when a
//!   reading of its target is a protected place ([`super::places::protected`]) or a pattern
//!   that can match one; a non-recursive `rm` deletes files, not the device.
//! - Overwriting is catastrophic when the target is a block device (by any path: `/dev/block`,
//!   `by-name`, a node made with `mknod`, a symlink to one) or the recovery command file.
//! - Moving a protected place away is as bad as deleting it; a move, symlink or bind mount
//!   is also remembered, so a later delete of the new name is a delete of the old place.
use super::Refusal;
use super::eval::{Eval, R};
use super::known::{fill, through_filled};
use super::places::{canonical, glob_match, protected, protected_match, resolve};
use super::state::{Env, UNKNOWN, Val};

/// Concrete places a pattern is tested against when a write target is not fully known.
const DANGEROUS_WRITES: &[&str] = &[
    "/dev/block/sda",
    "/dev/block/mmcblk0",
    "/dev/block/mmcblk0p1",
    "/dev/block/by-name/userdata",
    "/dev/block/bootdevice/by-name/userdata",
    "/dev/block/platform/soc/by-name/userdata",
    "/dev/block/dm-0",
    "/dev/sda",
    "/dev/mmcblk0",
    "/dev/nvme0n1",
    "/dev/mtd0",
    "/dev/dm-0",
    "/dev/mapper/userdata",
    "/cache/recovery/command",
    "/data/cache/recovery/command",
];

/// Shows a path or pattern with unknown text as `…`.
pub(super) fn shown(p: &str) -> String {
    p.replace(UNKNOWN, "…")
}

/// The "cannot tell" refusal: names the first reason a value was unknown.
pub(super) fn cannot_tell(ev: &Eval, what: &str) -> Refusal {
    let why = ev
        .why
        .first()
        .map(|w| w.to_string())
        .unwrap_or_else(|| "what part of the command holds".to_string());
    Refusal::new(
        "cannot-tell",
        format!("cannot tell {why}, so cannot tell whether {what}; write it as plain commands"),
    )
}

/// Refuses a recursive delete of `op` if any reading of it reaches a protected place.
pub(super) fn delete(op: &str, env: &Env, ev: &Eval, verb: &str, rule: &'static str) -> R<()> {
    for r in resolve(op, env) {
        // Deleting an entry of a filled folder removes the entry (a link, not what it
        // leads to); going through one does not.
        through_filled(op, &r, env, if op.ends_with('/') { 1 } else { 2 })?;
        if every_app(&r) {
            return Err(every_app_refused(op, &r, &format!("`{verb}` of")));
        }
        // `DIR/*`: everything in a protected folder is as much as the folder.
        if let Some((parent, last)) = r.rsplit_once('/')
            && !last.is_empty()
            && last.chars().all(|c| matches!(c, '*' | '?' | '.'))
            && last.contains('*')
            && protected(if parent.is_empty() { "/" } else { parent })
            && !parent.contains(UNKNOWN)
        {
            return Err(Refusal::new(
                rule,
                format!(
                    "a recursive delete of everything in `{}` ({verb}) would wipe the device",
                    if parent.is_empty() { "/" } else { parent }
                ),
            ));
        }
        if let Some(hit) = protected_match(&r) {
            if r.contains(UNKNOWN) || op.contains(UNKNOWN) {
                return Err(cannot_tell(
                    ev,
                    &format!("`{verb}` of `{}` reaches `{}`", shown(op), shown(&hit)),
                ));
            }
            return Err(Refusal::new(
                rule,
                format!(
                    "a recursive delete of `{}` ({verb}) would wipe the device",
                    shown(&hit)
                ),
            ));
        }
    }
    // What deleting one file refuses, a recursive delete refuses too: a folder or a pattern
    // in the OS image or system state (`/data/app/~~…/com.example-1`, `/data/system/users/0*`).
    one_file(op, env, verb)
}

/// Refuses making a file whose name reads as an option (`: > ./-delete`, `touch -- -rf`):
/// a later pattern in the same folder (`find DIR *`, `rm *`, `tar cf a.tar *`) passes it to
/// a program as an option the guard never saw.
pub(super) fn option_named(op: &str, env: &Env, via: &str) -> R<()> {
    for r in resolve(op, env) {
        let base = r.rsplit('/').next().unwrap_or(&r);
        if base.len() > 1 && base.starts_with('-') {
            return Err(super::eval::cannot_read(&format!(
                "{via} making `{}`, a file named like an option (a pattern would pass it to a program as one),",
                shown(base)
            )));
        }
    }
    Ok(())
}

/// Refuses writing to `path` when it is, or could be, a block device or the recovery
/// command file.
pub(super) fn written(path: &Val, env: &Env, ev: &Eval, via: &str) -> R<()> {
    for cand in &path.cands {
        option_named(cand, env, via)?;
        for r in resolve(cand, env) {
            through_filled(cand, &r, env, 1)?;
            if every_app(&r) {
                return Err(every_app_refused(cand, &r, &format!("{via} to")));
            }
            if let Some(dir) = guarded_prefix(&r) {
                return Err(Refusal::new(
                    "system-write",
                    format!(
                        "{via} to `{}` writes into `{dir}`, the OS image or system state, whatever the rest of the name turns out to be; that is never done from here",
                        shown(cand)
                    ),
                ));
            }
            if let Some(hit) = guarded_glob(&r) {
                return Err(Refusal::new(
                    "system-write",
                    format!(
                        "{via} to `{}` can reach `{hit}`, in the OS image or system state; that is never done from here",
                        shown(cand)
                    ),
                ));
            }
            // A device node named by a pattern or by text computed on the device (`$(find
            // /dev -name 'm?sc')`) may be any partition.
            if (r.contains(UNKNOWN) || r.contains(['*', '?', '['])) && r.starts_with("/dev/") {
                return Err(Refusal::new(
                    "raw-block-write",
                    format!(
                        "{via} to `{}`: a device named by a pattern or computed text may be a partition",
                        shown(cand)
                    ),
                ));
            }
            let blocks: Vec<&str> = env.fs.blockdevs.iter().map(String::as_str).collect();
            let hit = if r.contains(UNKNOWN) || r.contains(['*', '?', '[']) {
                DANGEROUS_WRITES
                    .iter()
                    .chain(blocks.iter())
                    .find(|d| glob_match(&r, d))
                    .map(|d| d.to_string())
            } else if is_block_device(&r)
                || blocks.contains(&r.as_str())
                || r.ends_with("/recovery/command")
            {
                Some(r.clone())
            } else if super::known::guarded(&r)
                && !r.starts_with("/dev/")
                && !r.starts_with("/proc/")
                && !r.starts_with("/storage/")
                && !r.starts_with("/mnt/")
            {
                return Err(Refusal::new(
                    "system-write",
                    format!(
                        "{via} to `{}` changes the OS image, system state or a protected folder (`{}`); that is never done from here",
                        shown(cand),
                        shown(&r)
                    ),
                ));
            } else {
                None
            };
            let Some(hit) = hit else { continue };
            if r.contains(UNKNOWN) {
                return Err(cannot_tell(
                    ev,
                    &format!("{via} to `{}` reaches `{hit}`", shown(cand)),
                ));
            }
            if hit.ends_with("/recovery/command") {
                return Err(Refusal::new(
                    "recovery-command",
                    "writing the recovery command file schedules a wipe or an update at the next boot",
                ));
            }
            return Err(Refusal::new(
                "raw-block-write",
                format!("writing to the block device `{hit}` ({via}) destroys a partition"),
            ));
        }
    }
    Ok(())
}

pub(super) fn is_block_device(p: &str) -> bool {
    let Some(d) = p.strip_prefix("/dev/") else {
        return false;
    };
    let starts_with_letter = |pre: &str| {
        d.strip_prefix(pre)
            .is_some_and(|r| r.chars().next().is_some_and(|c| c.is_ascii_alphanumeric()))
    };
    (d.starts_with("block/") && d != "block/")
        || d.starts_with("mapper/")
        || d.starts_with("dm-")
        || [
            "sd", "mmcblk", "nvme", "mtd", "vd", "hd", "ufs", "loop", "ram",
        ]
        .iter()
        .any(|pre| starts_with_letter(pre))
}

/// The deleting, overwriting and moving verbs, and what they leave behind in [`Env::fs`].
pub(super) fn check(name: &str, args: &[String], env: &mut Env, ev: &mut Eval) -> R<()> {
    let moved;
    let args = if matches!(name, "cp" | "mv" | "ln" | "link" | "install") {
        let mut m = target_last(args);
        // `ln TARGET` alone makes `./BASENAME` in the current folder.
        if name == "ln" && m.iter().filter(|a| !a.starts_with('-')).count() == 1 {
            m.push(".".into());
        }
        moved = m;
        &moved[..]
    } else {
        args
    };
    let operands: Vec<&String> = args.iter().filter(|a| !a.starts_with('-')).collect();
    if matches!(name, "cp" | "mv" | "ln" | "link" | "install")
        && let Some(dest) = operands.last()
    {
        option_named(dest, env, name)?;
    }
    match name {
        // `rmdir -p a/b/c` also removes each parent it leaves empty, up to an entry of `/`.
        "rmdir"
            if args.iter().any(|a| {
                a == "--parents" || (a.starts_with('-') && !a.starts_with("--") && a.contains('p'))
            }) =>
        {
            for op in &operands {
                for r in resolve(op, env) {
                    let mut p = r.as_str();
                    while let Some((parent, _)) = p.rsplit_once('/') {
                        if !parent.is_empty() && super::known::guarded(parent) {
                            return Err(Refusal::new(
                                "system-write",
                                format!(
                                    "`rmdir -p {}` may remove `{}`, part of the OS image or system state",
                                    shown(op),
                                    shown(parent)
                                ),
                            ));
                        }
                        p = parent;
                    }
                }
                delete(op, env, ev, "rmdir", "rm-root")?;
            }
        }
        // Only empty folders go, but an entry of `/` or a storage folder is no less gone.
        "rmdir" => {
            for op in &operands {
                delete(op, env, ev, "rmdir", "rm-root")?;
            }
        }
        "mkdir" | "touch" => {
            for op in &operands {
                option_named(op, env, name)?;
            }
            for op in operands.iter().filter(|o| o.contains(char::is_whitespace)) {
                for r in resolve(op, env) {
                    if env.fs.odd_names.len() < 32 {
                        env.fs_mut().odd_names.push(r);
                    }
                }
            }
        }
        "rm" => rm(args, env, ev)?,
        "unlink" => {
            for op in &operands {
                one_file(op, env, "unlink")?;
            }
        }
        "dd" => {
            for a in args {
                if let Some(of) = a.strip_prefix("of=") {
                    written(&Val::known(of), env, ev, "`dd of=`")?;
                }
            }
        }
        "tee" | "truncate" | "shred" | "fallocate" => {
            // Option values (`-s 0`, `-r REF`, `-n 3`) are not files.
            let mut files: Vec<&String> = Vec::new();
            let mut skip = false;
            for a in args {
                if skip {
                    skip = false;
                } else if matches!(
                    a.as_str(),
                    "-s" | "-r"
                        | "-o"
                        | "-l"
                        | "-n"
                        | "--size"
                        | "--reference"
                        | "--offset"
                        | "--length"
                        | "--iterations"
                ) {
                    skip = true;
                } else if !a.starts_with('-') {
                    files.push(a);
                }
            }
            for a in &files {
                written(&Val::known(a.as_str()), env, ev, &format!("`{name}`"))?;
            }
        }
        "cp" | "install" if operands.len() >= 2 => {
            let dest = operands[operands.len() - 1];
            no_follow_dest(name, args, dest, env)?;
            written(&Val::known(dest.as_str()), env, ev, &format!("`{name}`"))?;
            // Into a directory: the file keeps its name there.
            for src in &operands[..operands.len() - 1] {
                let base = src.trim_end_matches('/').rsplit('/').next().unwrap_or(src);
                let inside = format!("{}/{base}", dest.trim_end_matches('/'));
                written(&Val::known(inside), env, ev, &format!("`{name}`"))?;
            }
            // What the copy holds: the source's text when this command wrote it, else text
            // the guard does not know (a script run from it later is refused).
            let v = resolve(operands[0], env)
                .iter()
                .find_map(|s| env.fs.files.get(s).cloned());
            link(env, dest, operands[0], true);
            // A recursive copy, or one that keeps or makes links (`-a`, `-d`, `-P`, `-l`,
            // `-s`), leaves entries the guard cannot see: any may lead back to the source.
            let keeps_links = args.iter().any(|a| {
                if let Some(l) = a.strip_prefix("--") {
                    [
                        "recursive",
                        "archive",
                        "link",
                        "symbolic-link",
                        "no-dereference",
                    ]
                    .iter()
                    .any(|x| l.starts_with(x))
                } else {
                    a.starts_with('-') && a[1..].contains(['r', 'R', 'a', 'd', 'P', 'l', 's'])
                }
            });
            if name == "cp" && keeps_links {
                fill(env, dest, "`cp`")?;
            }
            for d in resolve(dest, env) {
                let v = v.clone().unwrap_or_else(|| {
                    Val::unknown(format!("what `{name}` copied to `{}`", shown(dest)))
                });
                env.fs_mut().files.insert(d, v);
            }
        }
        "mv" if operands.len() >= 2 => {
            let dest = operands[operands.len() - 1];
            // `mv FILE DIR/*`: the pattern's last match is the destination and every other
            // match is moved into it.
            if dest.contains(['*', '?', '[']) {
                delete(dest, env, ev, "mv", "move-protected")?;
            }
            no_follow_dest(name, args, dest, env)?;
            written(&Val::known(dest.as_str()), env, ev, "`mv`")?;
            for src in &operands[..operands.len() - 1] {
                let base = src.trim_end_matches('/').rsplit('/').next().unwrap_or(src);
                let inside = format!("{}/{base}", dest.trim_end_matches('/'));
                written(&Val::known(inside), env, ev, "`mv`")?;
                delete(src, env, ev, "mv", "move-protected")?;
                one_file(src, env, "mv")?;
                link(env, dest, src, true);
            }
        }
        "ln" | "link" if operands.len() >= 2 => {
            let dest = operands[operands.len() - 1];
            no_follow_dest(name, args, dest, env)?;
            written(&Val::known(dest.as_str()), env, ev, &format!("`{name}`"))?;
            for src in &operands[..operands.len() - 1] {
                // A link to a partition lets any program that writes a fixed path (a pid
                // file, a daemon's control file) write the partition.
                for r in resolve(src, env) {
                    if is_block_device(&r) || env.fs.blockdevs.contains(&r) {
                        return Err(Refusal::new(
                            "raw-block-write",
                            format!(
                                "`{name}` makes a link to the block device `{}`; anything that writes the link writes the partition",
                                shown(&r)
                            ),
                        ));
                    }
                }
                link(env, dest, src, true);
            }
        }
        "mount" => {
            let bind = args
                .iter()
                .any(|a| a.contains("bind") || a.contains("move"));
            if bind && operands.len() >= 2 {
                let n = operands.len();
                link(env, operands[n - 1], operands[n - 2], false);
            }
        }
        "mknod" | "mkfifo"
            if operands.len() >= 2
                && (operands[1].starts_with('b') || operands[1].contains(UNKNOWN)) =>
        {
            for p in resolve(operands[0], env) {
                env.fs_mut().blockdevs.push(canonical(&p));
            }
        }
        _ => {}
    }
    Ok(())
}

/// With `-n`/`-T` (`ln -sfn`, `mv -T`, `cp -T`) the destination is replaced itself, not
/// followed: `/sdcard` then names the link at `/`, not the storage it leads to.
fn no_follow_dest(name: &str, args: &[String], dest: &str, env: &Env) -> R<()> {
    let flag = args.iter().any(|a| {
        a.starts_with("--no-target-directory")
            || a.starts_with("--no-dereference")
            || (a.starts_with('-')
                && !a.starts_with("--")
                && a[1..].contains(if name == "ln" { ['n', 'T'] } else { ['T', 'T'] }))
    });
    if !flag {
        return Ok(());
    }
    let bases: Vec<String> = if dest.starts_with('/') {
        vec!["/".into()]
    } else {
        env.cwd.cands.clone()
    };
    for b in bases.iter().filter(|b| !b.contains(UNKNOWN)) {
        let p = super::places::join_path(b, dest);
        if super::known::guarded(&p) || protected(&p) {
            return Err(Refusal::new(
                "system-write",
                format!(
                    "`{name}` replaces `{}` itself, which is part of the OS image, system state or storage; that is never done from here",
                    shown(&p)
                ),
            ));
        }
    }
    Ok(())
}

/// `cp`/`mv`/`ln`/`install` with `-t DIR` (`--target-directory`): DIR moved to the end, where
/// the destination usually is, so `cp -t /system/framework x.jar` reads as `cp x.jar
/// /system/framework`.
fn target_last(args: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut dir = None;
    let mut i = 0;
    while let Some(a) = args.get(i) {
        i += 1;
        // Any unambiguous prefix of `--target-directory` (`--targ=DIR`).
        let long = a
            .strip_prefix("--")
            .map(|l| l.split_once('=').map_or((l, None), |(k, v)| (k, Some(v))));
        if let Some((k, v)) = long
            && k.len() >= 2
            && "target-directory".starts_with(k)
        {
            match v {
                Some(d) => dir = Some(d.to_string()),
                None => {
                    dir = args.get(i).cloned();
                    i += 1;
                }
            }
        } else if a.starts_with('-') && !a.starts_with("--") && a.len() > 1 {
            if let Some(p) = a[1..].find('t') {
                let attached = &a[1 + p + 1..];
                if attached.is_empty() {
                    dir = args.get(i).cloned();
                    i += 1;
                } else {
                    dir = Some(attached.to_string());
                }
                if p > 0 {
                    out.push(format!("-{}", &a[1..1 + p]));
                }
                continue;
            }
            out.push(a.clone());
        } else {
            out.push(a.clone());
        }
    }
    out.extend(dir);
    out
}

/// Remembers that `new` now reaches what `old` named (into `new/` when `new` is a directory
/// the guard cannot rule out).
fn link(env: &mut Env, new: &str, old: &str, may_be_dir: bool) {
    let olds = resolve(old, env);
    let base = old
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or(old)
        .to_string();
    for n in resolve(new, env) {
        for o in &olds {
            env.fs_mut().links.push((n.clone(), o.clone()));
            if may_be_dir {
                env.fs_mut().links.push((format!("{n}/{base}"), o.clone()));
            }
        }
    }
    if env.fs.links.len() > 64 {
        let n = env.fs.links.len() - 64;
        env.fs_mut().links.drain(..n);
    }
}

/// Deleting one named file: refused in the OS image and system state.
/// For a path with a pattern in it: a place in the OS image or system state it can match
/// (`/*/etc/build.prop` is `/system/etc/build.prop`, `/vendor/etc/build.prop`, …).
pub(super) fn guarded_glob(r: &str) -> Option<String> {
    if !r.contains(['*', '?', '[']) || r.contains(UNKNOWN) {
        return None;
    }
    protected_match(r).filter(|h| {
        !h.starts_with("everything in")
            && super::known::guarded(h)
            && !h.starts_with("/storage/")
            && !h.starts_with("/mnt/")
    })
}

/// For a path with unknown text or a pattern in it: the fixed folder before that part, when
/// the folder is in the OS image or system state (`/data/system/users/$(…)*.xml`).
fn guarded_prefix(r: &str) -> Option<String> {
    let c: Vec<&str> = r.split('/').filter(|c| !c.is_empty()).collect();
    let at = c
        .iter()
        .position(|p| p.contains(UNKNOWN) || p.contains(['*', '?', '[']))?;
    let dir = format!("/{}", c[..at].join("/"));
    (at >= 2
        && super::known::guarded(&dir)
        && !["/dev/", "/proc/", "/storage/", "/mnt/", "/sys/"]
            .iter()
            .any(|p| dir.starts_with(p)))
    .then_some(dir)
}

/// Whether `r` (canonical) reaches into the data of every app: a pattern in the package's
/// place (`/data/data/*/databases`, `/data/user_de/0/*/…`, `Android/data/*`).
pub(super) fn every_app(r: &str) -> bool {
    let c: Vec<&str> = r.split('/').filter(|c| !c.is_empty()).collect();
    let pkg = match c.as_slice() {
        ["data", "data" | "app", p, ..] => Some(*p),
        ["data", "user" | "user_de" | "misc_ce" | "misc_de", _, p, ..] => Some(*p),
        [
            "storage",
            "emulated",
            _,
            "Android",
            "data" | "obb" | "media",
            p,
            ..,
        ] => Some(*p),
        _ => None,
    };
    pkg.is_some_and(|p| p.contains(['*', '?', '[']))
}

/// The refusal for a change that reaches every app's data.
fn every_app_refused(op: &str, r: &str, verb: &str) -> Refusal {
    Refusal::new(
        "app-data",
        format!(
            "{verb} `{}` reaches the data of every app (`{}`); that is never done from here",
            shown(op),
            shown(r)
        ),
    )
}

fn one_file(op: &str, env: &Env, verb: &str) -> R<()> {
    for r in resolve(op, env) {
        if every_app(&r) {
            return Err(every_app_refused(op, &r, &format!("`{verb}` of")));
        }
        if let Some(dir) = guarded_prefix(&r) {
            return Err(Refusal::new(
                "system-write",
                format!(
                    "`{verb} {}` deletes from `{dir}`, the OS image or system state, whatever the rest of the name turns out to be; that is never done from here",
                    shown(op)
                ),
            ));
        }
        if super::known::guarded(&r) && !r.starts_with("/dev/") && !r.contains(UNKNOWN) {
            return Err(Refusal::new(
                "system-write",
                format!(
                    "`{verb} {}` deletes `{}` from the OS image or system state; that is never done from here",
                    shown(op),
                    shown(&r)
                ),
            ));
        }
    }
    Ok(())
}

fn rm(args: &[String], env: &Env, ev: &Eval) -> R<()> {
    let mut recursive = false;
    let mut no_preserve = false;
    let mut operands = Vec::new();
    let mut opts_done = false;
    for a in args {
        // A pattern may match a file named `-rf` (`: > -rf; rm *`).
        if !opts_done && a.contains(['*', '?', '[']) {
            recursive = true;
        }
        if opts_done || !a.starts_with('-') || a == "-" {
            operands.push(a);
        } else if a == "--" {
            opts_done = true;
        } else if let Some(long) = a.strip_prefix("--") {
            // GNU accepts any unambiguous prefix (`--rec`).
            if !long.is_empty() && "recursive".starts_with(long) {
                recursive = true;
            }
            if long.len() >= 3 && "no-preserve-root".starts_with(long) {
                no_preserve = true;
            }
            recursive |= long.contains(UNKNOWN);
        } else if a[1..].contains(['r', 'R', UNKNOWN]) {
            recursive = true;
        }
    }
    if no_preserve {
        return Err(Refusal::new(
            "rm-root",
            "`rm --no-preserve-root` exists only to delete `/`",
        ));
    }
    if !recursive {
        // Files the guard cannot name (`find /sdcard -type f | xargs rm`) may be all of them.
        for op in operands.iter().filter(|o| o.contains(UNKNOWN)) {
            delete(op, env, ev, "rm", "rm-root")?;
        }
        for op in operands {
            one_file(op, env, "rm")?;
        }
        return Ok(());
    }
    for op in operands {
        delete(op, env, ev, "rm -r", "rm-root")?;
    }
    Ok(())
}
