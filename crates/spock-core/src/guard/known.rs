//! The inverted default for programs: a program the guard does not model is not assumed
//! harmless. Every argv that reaches [`super::builtins`] is one of:
//!
//! - a program the guard models (the deleting and writing verbs in [`super::rules`], the
//!   wipes in [`super::wipes`], the runners in [`super::runners`], `find`, `awk`, `xargs`);
//! - a **reader**: a program that only reads its operands and prints (`ls`, `cat`, `grep`,
//!   `dumpsys`, …), in the form given (`sed` without `-i`/`w`/`e`, `sort` without `-o`);
//! - a **writer** in the form given (`sed -i`, `sort -o`, `gzip FILE`, `tar -x`): it may
//!   change any file it names, so a place on the catastrophic list among its operands is
//!   refused;
//! - **unknown**: anything else. It may run its arguments or its input, and change any file
//!   it names, so it is refused when it is given a place on the list, a command the guard
//!   would refuse, a script this command wrote, or text the guard cannot know. Files it may
//!   have written are remembered ([`super::state::Fs::unread_writes`]), so a script run later
//!   from a path the guard has no text for is refused too.
use super::eval::{Eval, Input, R, cannot_read};
use super::places::{protected, resolve};
use super::rules::shown;
use super::state::{Env, UNKNOWN};

/// Programs that read their operands and print, whatever the options.
const READERS: &[&str] = &[
    // shell builtins and tiny utilities
    "echo",
    "print",
    "printf",
    "true",
    "false",
    ":",
    "test",
    "[",
    "[[",
    "pwd",
    "type",
    "which",
    "whence",
    "hash",
    "umask",
    "ulimit",
    "wait",
    "jobs",
    "sleep",
    "times",
    "exit",
    "return",
    "break",
    "continue",
    "kill",
    "killall",
    "pkill",
    "let",
    "seq",
    "yes",
    "expr",
    "bc",
    "dc",
    "factor",
    "usleep",
    "nproc",
    "tty",
    "sync",
    "getconf",
    "clear",
    "reset",
    // text and files, read only
    "ls",
    "ll",
    "dir",
    "cat",
    "head",
    "tail",
    "grep",
    "egrep",
    "fgrep",
    "wc",
    "cut",
    "tr",
    "stat",
    "du",
    "df",
    "file",
    "md5sum",
    "sha1sum",
    "sha224sum",
    "sha256sum",
    "sha384sum",
    "sha512sum",
    "cksum",
    "crc32",
    "sum",
    "od",
    "hexdump",
    "hd",
    "strings",
    "diff",
    "cmp",
    "comm",
    "paste",
    "join",
    "nl",
    "fold",
    "fmt",
    "expand",
    "unexpand",
    "tac",
    "rev",
    "base64",
    "base32",
    "uuencode",
    "readlink",
    "realpath",
    "basename",
    "dirname",
    "date",
    "cal",
    "uptime",
    "uname",
    "id",
    "whoami",
    "groups",
    "hostname",
    "printenv",
    "ps",
    "top",
    "pgrep",
    "pidof",
    "pmap",
    "lsof",
    "free",
    "vmstat",
    "iostat",
    "netstat",
    "ss",
    "ifconfig",
    "ip",
    "ping",
    "ping6",
    "traceroute",
    "traceroute6",
    "nslookup",
    "host",
    "arp",
    "route",
    "getprop",
    "getenforce",
    "lsmod",
    "lsusb",
    "lspci",
    "dmesg",
    "zcat",
    "bzcat",
    "xzcat",
    "lsattr",
    "tree",
    "more",
    "less",
    "column",
    "xargs",
    "iftop",
    "nice",
    "renice",
    "ionice",
    "time",
    "mountpoint",
    "blkid",
    "lsblk",
    "findmnt",
    "getevent",
    "sendevent",
    "getfattr",
    "md5",
    "sha1",
    "cmp",
    "test",
    "timeout",
    "watch",
    "tee",
    "env",
    "whereis",
    "locate",
    "numfmt",
    "tsort",
    "microcom",
    "tput",
    "stty",
    "resize",
    "ionice",
    "chrt",
    "taskset",
    "nohup",
    "setsid",
    // busybox and toybox applets that only read and print
    "arch",
    "ascii",
    "count",
    "help",
    "hostid",
    "last",
    "logname",
    "lsscsi",
    "mcookie",
    "mktemp",
    "pwdx",
    "pwgen",
    "readelf",
    "sha3sum",
    "uuidgen",
    "w",
    "who",
    "ipcalc",
    "dnsdomainname",
    "fsync",
    "findfs",
    "fstype",
    "modinfo",
    "getopt",
    "gpiodetect",
    "gpioinfo",
    "gpiofind",
    "i2cdetect",
    "lzcat",
    "logread",
    "iconv",
    "unicode",
    "ts",
    // metadata only: a person judges these
    "touch",
    "chmod",
    "chown",
    "chgrp",
    "chcon",
    "restorecon",
    "setenforce",
    "mkdir",
    "rmdir",
    "mkfifo",
    "ln",
    // Android
    "logcat",
    "dumpsys",
    "dumpstate",
    "bugreport",
    "bugreportz",
    "service",
    "cmd",
    "am",
    "pm",
    "wm",
    "input",
    "settings",
    "content",
    "svc",
    "monkey",
    "uiautomator",
    "screencap",
    "screenrecord",
    "atrace",
    "perfetto",
    "simpleperf",
    "showmap",
    "procrank",
    "librank",
    "iotop",
    "ime",
    "appops",
    "dpm",
    "device_config",
    "setprop",
    "start",
    "stop",
    "reboot",
    "log",
    "logwrapper",
    "run-as",
    "su",
    "vdc",
    "sm",
    "recovery",
    "fastboot",
    "adb",
    "gsi_tool",
    "lshal",
    "dumpsys",
    "media",
    "telecom",
    "stagefright",
    "toolbox",
    "toybox",
    "busybox",
    "wpa_cli",
    "iw",
    "iptables",
    "ip6tables",
    "ndc",
    "tc",
    "netcfg",
    "cmd",
    "bmgr",
    "locksettings",
    "uptime",
    "vmstat",
    "sqlite3",
    "am",
    "pm",
    "rm",
    "dd",
    "cp",
    "mv",
    "install",
    "truncate",
    "shred",
    "fallocate",
    "mount",
    "umount",
    "mknod",
    "unlink",
    "find",
    "awk",
    "gawk",
    "nawk",
    "mawk",
    "sh",
    "bash",
    "mksh",
    "ash",
    "dash",
    "zsh",
    "ksh",
    "hush",
    "msh",
    "lksh",
    "sudo",
    "doas",
    "command",
    "builtin",
    "exec",
    "eval",
    ".",
    "source",
    "trap",
    "alias",
    "unalias",
    "cd",
    "chdir",
    "export",
    "readonly",
    "local",
    "typeset",
    "declare",
    "integer",
    "unset",
    "set",
    "shift",
    "read",
    "getopts",
    "flock",
    "strace",
    "ltrace",
    "stdbuf",
    "chroot",
    "runcon",
    "nsenter",
    "unshare",
    "setpriv",
    "caffeinate",
    "fakeroot",
    "app_process",
    "app_process32",
    "app_process64",
    "mkswap",
    "wipe",
    "uncrypt",
    "update_engine",
    "bcb",
    "sgdisk",
    "sfdisk",
    "fdisk",
    "parted",
    "blkdiscard",
    "nc",
    "netcat",
    "wget",
    "curl",
    "ping",
    "sed",
    "sort",
    "shuf",
    "uniq",
    "tar",
    "cpio",
    "gzip",
    "gunzip",
    "bzip2",
    "bunzip2",
    "xz",
    "unxz",
    "lzma",
    "unlzma",
    "zip",
    "unzip",
    "xxd",
    "patch",
    "split",
    "csplit",
    "dos2unix",
    "unix2dos",
    "zstd",
    "lzop",
    "pigz",
];

/// busybox 1.35 and toybox 0.8.9 applets the guard does not follow: daemons, package and
/// service managers, editors, loaders, partition and device tools. Any of them may be a link
/// to busybox on a device, and each may run, write or wipe in ways of its own, so a command
/// that calls one is refused whatever it is given.
const APPLETS_NOT_FOLLOWED: &[&str] = &[
    "acpi",
    "acpid",
    "adjtimex",
    "ar",
    "arping",
    "blockdev",
    "brctl",
    "chattr",
    "chvt",
    "crond",
    "crontab",
    "cttyhack",
    "deallocvt",
    "depmod",
    "devmem",
    "dpkg",
    "dpkg-deb",
    "dumpkmap",
    "dumpleases",
    "ed",
    "eject",
    "fatattr",
    "freeramdisk",
    "fsfreeze",
    "fstrim",
    "ftpget",
    "ftpput",
    "getty",
    "gpioget",
    "gpioset",
    "halt",
    "hexedit",
    "httpd",
    "hwclock",
    "i2cdump",
    "i2cget",
    "i2cset",
    "i2ctransfer",
    "ifdown",
    "ifup",
    "init",
    "inotifyd",
    "insmod",
    "iorenice",
    "ipneigh",
    "killall5",
    "klogd",
    "link",
    "linux32",
    "linux64",
    "linuxrc",
    "loadfont",
    "loadkmap",
    "logger",
    "login",
    "losetup",
    "makedevs",
    "mdev",
    "mim",
    "mix",
    "mkdosfs",
    "mkpasswd",
    "modprobe",
    "mt",
    "nameif",
    "nbd-client",
    "nbd-server",
    "nologin",
    "nuke",
    "oneit",
    "openvt",
    "partprobe",
    "passwd",
    "pivot_root",
    "poweroff",
    "prlimit",
    "rdate",
    "readahead",
    "resume",
    "rfkill",
    "rmmod",
    "rpm",
    "rpm2cpio",
    "rtcwake",
    "run-init",
    "run-parts",
    "setfattr",
    "setkeycodes",
    "sntp",
    "ssl_client",
    "start-stop-daemon",
    "sulogin",
    "svok",
    "swapoff",
    "swapon",
    "switch_root",
    "sysctl",
    "syslogd",
    "telnet",
    "telnetd",
    "tftp",
    "tunctl",
    "ubirename",
    "uclampset",
    "udhcpc",
    "udhcpd",
    "uevent",
    "uncompress",
    "uudecode",
    "vconfig",
    "vi",
    "watchdog",
];

/// Whether the guard models or knows `name` at all.
pub(super) fn is_known(name: &str) -> bool {
    READERS.contains(&name)
        || name.starts_with("mkfs")
        || name.starts_with("mke2fs")
        || name.starts_with("make_")
}

/// What a known program does with its operands in the form given.
enum Form {
    Reader,
    /// It writes the files it names (`sed -i`), or into a directory (`tar -x`): the reason,
    /// and the arguments it writes to (`None`: any of them).
    Writer(String, Option<Vec<String>>),
    /// It fills a directory with entries it does not name (`tar -x`, `cpio -i`, `unzip`):
    /// the reason and the directory.
    Fills(String, String),
    /// It runs text as commands (`sed e`, `nc -e`): refused outright, naming why.
    Runs(String),
}

fn has_opt(args: &[String], short: char, long: &[&str]) -> bool {
    args.iter().any(|a| {
        if let Some(l) = a.strip_prefix("--") {
            long.iter()
                .any(|x| l == *x || l.starts_with(&format!("{x}=")))
        } else {
            a.starts_with('-') && a.len() > 1 && a[1..].contains(short) && !a.contains(' ')
        }
    })
}

fn form(name: &str, args: &[String]) -> Form {
    let operands = args.iter().filter(|a| !a.starts_with('-')).count();
    match name {
        "sed" => {
            if has_opt(args, 'i', &["in-place"]) {
                return Form::Writer("`sed -i` edits its files in place".into(), None);
            }
            let mut scripts: Vec<&str> = Vec::new();
            let mut i = 0;
            let mut explicit = false;
            while let Some(a) = args.get(i) {
                if a == "-e" || a == "--expression" {
                    scripts.extend(args.get(i + 1).map(String::as_str));
                    explicit = true;
                    i += 2;
                    continue;
                }
                if a == "-f" || a.starts_with("--file") {
                    return Form::Writer(
                        "`sed -f` reads a script the guard does not see".into(),
                        None,
                    );
                }
                if !a.starts_with('-') && !explicit && scripts.is_empty() {
                    scripts.push(a);
                }
                i += 1;
            }
            for s in scripts {
                match sed_script(s) {
                    SedUse::Reads => {}
                    SedUse::Writes => {
                        return Form::Writer("a `sed` script with `w` writes files".into(), None);
                    }
                    SedUse::Runs => {
                        return Form::Runs("`sed`'s `e` runs its text as a command".into());
                    }
                }
            }
            Form::Reader
        }
        "sort" | "shuf" if has_opt(args, 'o', &["output"]) => {
            Form::Writer(format!("`{name} -o` writes its output over a file"), None)
        }
        "uniq" if operands >= 2 => Form::Writer("`uniq IN OUT` writes OUT".into(), None),
        "xxd" if has_opt(args, 'r', &["revert"]) && operands >= 2 => {
            Form::Writer("`xxd -r IN OUT` writes OUT".into(), None)
        }
        "gzip" | "gunzip" | "bzip2" | "bunzip2" | "xz" | "unxz" | "lzma" | "unlzma" | "zstd"
        | "lzop" | "pigz" | "dos2unix" | "unix2dos"
            if !has_opt(args, 'c', &["stdout", "to-stdout"])
                && !has_opt(args, 'l', &["list"])
                && !has_opt(args, 't', &["test"])
                && operands > 0 =>
        {
            Form::Writer(format!("`{name}` replaces the files it is given"), None)
        }
        "tar" => tar_form(args),
        "cpio" if has_opt(args, 'o', &["create"]) => {
            // The archive goes to `-F FILE` (`-O` in GNU cpio), or to standard output.
            let file = args.iter().enumerate().find_map(|(i, a)| {
                if let Some(v) = a.strip_prefix("--file=") {
                    return Some(v.to_string());
                }
                (!a.starts_with("--") && a.starts_with('-') && a.ends_with(['F', 'O']))
                    .then(|| args.get(i + 1).cloned())
                    .flatten()
            });
            match file {
                Some(f) => Form::Writer("`cpio -o` writes its archive".into(), Some(vec![f])),
                None => Form::Reader,
            }
        }
        "cpio" if !has_opt(args, 't', &["list"]) => Form::Runs(
            "`cpio -i`/`-p` writes wherever the names it reads point (`../`, `/`)".into(),
        ),
        "unzip" if !has_opt(args, 'l', &[]) && !has_opt(args, 'p', &[]) => {
            let dir = args
                .iter()
                .position(|a| a == "-d")
                .and_then(|i| args.get(i + 1).cloned())
                .unwrap_or_else(|| ".".into());
            Form::Fills("`unzip` writes what the archive holds".into(), dir)
        }
        "zip" => Form::Writer("`zip` writes its archive file".into(), None),
        "patch" => Form::Writer("`patch` changes the files the patch names".into(), None),
        "split" | "csplit" => {
            // `split [IN [PREFIX]]`: the files are PREFIX and a suffix.
            let ops: Vec<&String> = args
                .iter()
                .filter(|a| !a.starts_with('-') || *a == "-")
                .collect();
            let prefix = if name == "split" && ops.len() >= 2 {
                ops[ops.len() - 1].clone()
            } else {
                "x".into()
            };
            Form::Writer(
                format!("`{name}` writes files named by a prefix"),
                Some(vec![format!("{prefix}*")]),
            )
        }
        "wget" | "curl"
            if has_opt(args, 'O', &["output-document", "remote-name"])
                || has_opt(args, 'o', &["output"])
                || (name == "wget" && !has_opt(args, 'O', &[])) =>
        {
            Form::Writer(format!("`{name}` writes what it downloads"), None)
        }
        "nc" | "netcat" if has_opt(args, 'c', &[]) => {
            Form::Runs(format!("`{name} -c` runs a command for the network"))
        }
        // `nc -f FILE` opens FILE as the connection and writes what it is sent into it.
        "nc" | "netcat" if has_opt(args, 'f', &[]) => Form::Writer(
            format!("`{name} -f` writes into the file it is given"),
            None,
        ),
        // busybox `mount` runs the helper `mount.TYPE` when the mount fails: a type with a
        // `/` (`fuse/../../system/bin/cmd`) or one computed on the device names any program,
        // and so does a type in a table read with `-T`.
        "mount"
            if has_opt(args, 'T', &["fstab"])
                || mount_types(args)
                    .iter()
                    .any(|t| t.contains(['/', UNKNOWN]) || t.is_empty()) =>
        {
            Form::Runs("busybox `mount` runs `mount.TYPE` for the type it is given or reads".into())
        }
        "sqlite3"
            if args
                .iter()
                .any(|a| a.contains(".shell") || a.contains(".system")) =>
        {
            Form::Runs("sqlite3's `.shell`/`.system` runs a command".into())
        }
        _ => Form::Reader,
    }
}

/// The filesystem types `mount` is given (`-t T`, `-tT`, `--types T`, `--types=T`,
/// comma-separated).
fn mount_types(args: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(a) = args.get(i) {
        let v = if a == "--types" {
            i += 1;
            args.get(i).cloned()
        } else if let Some(v) = a.strip_prefix("--types=") {
            Some(v.to_string())
        } else if a.starts_with('-') && !a.starts_with("--") {
            // A short bundle: `t` takes the rest of it, or the next word.
            match a[1..].find('t') {
                Some(at) if at + 2 < a.len() => Some(a[at + 2..].to_string()),
                Some(_) => {
                    i += 1;
                    Some(args.get(i).cloned().unwrap_or_default())
                }
                None => None,
            }
        } else {
            None
        };
        out.extend(v.iter().flat_map(|v| v.split(',').map(str::to_string)));
        i += 1;
    }
    out
}

/// tar's options as tar reads them: an old-style first word (`xCf / a.tar`: each letter
/// that takes a value takes the next word, in order), `-xC DIR` bundles (a value letter takes
/// the rest of the bundle or the next word), `--long=V` and `--long V`.
fn tar_form(args: &[String]) -> Form {
    const TAKES: &str = "fCTXIbKNVgFLH";
    const LONG_TAKES: &[&str] = &[
        "file",
        "directory",
        "files-from",
        "exclude-from",
        "use-compress-program",
        "to-command",
        "transform",
        "xform",
    ];
    let mut letters = String::new();
    let mut values: Vec<(String, String)> = Vec::new();
    let mut i = 0;
    if let Some(first) = args.first()
        && !first.starts_with('-')
    {
        i = 1;
        for l in first.chars() {
            letters.push(l);
            if TAKES.contains(l) {
                values.push((l.to_string(), args.get(i).cloned().unwrap_or_default()));
                i += 1;
            }
        }
    }
    while let Some(a) = args.get(i) {
        i += 1;
        if let Some(long) = a.strip_prefix("--") {
            // GNU and busybox take any unambiguous prefix (`--dir`, `--to-c`).
            let full = |k: &str| -> String {
                LONG_TAKES
                    .iter()
                    .chain(&["extract", "get", "list", "absolute-names"])
                    .find(|f| k.len() >= 2 && f.starts_with(k))
                    .map_or_else(|| k.to_string(), |f| f.to_string())
            };
            match long.split_once('=') {
                Some((k, v)) => values.push((full(k), v.to_string())),
                None if LONG_TAKES.contains(&full(long).as_str()) => {
                    values.push((full(long), args.get(i).cloned().unwrap_or_default()));
                    i += 1;
                }
                None => letters.push_str(match full(long).as_str() {
                    "extract" | "get" => "x",
                    "list" => "t",
                    "absolute-names" => "P",
                    _ => "",
                }),
            }
        } else if let Some(bundle) = a.strip_prefix('-') {
            for (n, l) in bundle.char_indices() {
                letters.push(l);
                if TAKES.contains(l) {
                    let rest = &bundle[n + l.len_utf8()..];
                    let v = if rest.is_empty() {
                        i += 1;
                        args.get(i - 1).cloned().unwrap_or_default()
                    } else {
                        rest.to_string()
                    };
                    values.push((l.to_string(), v));
                    break;
                }
            }
        }
    }
    let of = |keys: &[&str]| -> Vec<String> {
        values
            .iter()
            .filter(|(k, _)| keys.contains(&k.as_str()))
            .map(|(_, v)| v.clone())
            .collect()
    };
    if !of(&[
        "I",
        "use-compress-program",
        "to-command",
        "transform",
        "xform",
    ])
    .is_empty()
    {
        return Form::Runs("`tar -I`/`--to-command`/`--xform`, which run a program".into());
    }
    if letters.contains('x') {
        if letters.contains('P') {
            return Form::Runs("`tar -P`, which extracts to the paths it reads".into());
        }
        let dirs = of(&["C", "directory"]);
        if dirs.len() > 1 {
            return Form::Runs("`tar -x` with more than one `-C`".into());
        }
        let dir = dirs.into_iter().next().unwrap_or_else(|| ".".into());
        return Form::Fills("`tar -x` writes what the archive holds".into(), dir);
    }
    if letters.contains('t') {
        return Form::Reader;
    }
    let file = of(&["f", "file"]).pop().unwrap_or_else(|| "-".into());
    Form::Writer("`tar` writes its archive file".into(), Some(vec![file]))
}

enum SedUse {
    Reads,
    Writes,
    Runs,
}

/// Reads a `sed` script far enough to know whether it writes files (`w`, `W`, `s///w`) or
/// runs commands (`e`, `s///e`). A script it cannot follow counts as both.
fn sed_script(s: &str) -> SedUse {
    let c: Vec<char> = s.chars().collect();
    let mut i = 0;
    let mut writes = false;
    let skip_delimited = |i: &mut usize, d: char| -> bool {
        while *i < c.len() {
            if c[*i] == '\\' {
                *i += 2;
                continue;
            }
            if c[*i] == d {
                *i += 1;
                return true;
            }
            *i += 1;
        }
        false
    };
    while i < c.len() {
        let ch = c[i];
        match ch {
            ' ' | '\t' | '\n' | ';' | '}' | '{' | '!' | ',' => i += 1,
            '0'..='9' | '$' | '+' | '~' => i += 1,
            '/' => {
                i += 1;
                if !skip_delimited(&mut i, '/') {
                    return SedUse::Runs;
                }
                while i < c.len() && matches!(c[i], 'I' | 'M') {
                    i += 1;
                }
            }
            '\\' => {
                let Some(&d) = c.get(i + 1) else {
                    return SedUse::Runs;
                };
                i += 2;
                if !skip_delimited(&mut i, d) {
                    return SedUse::Runs;
                }
            }
            's' | 'y' => {
                let Some(&d) = c.get(i + 1) else {
                    return SedUse::Runs;
                };
                if d == '\n' || d == '\\' {
                    return SedUse::Runs;
                }
                i += 2;
                if !skip_delimited(&mut i, d) || !skip_delimited(&mut i, d) {
                    return SedUse::Runs;
                }
                if ch == 's' {
                    while i < c.len() && !matches!(c[i], ';' | '\n' | '}') {
                        match c[i] {
                            'e' => return SedUse::Runs,
                            'w' | 'W' => writes = true,
                            'g' | 'p' | 'i' | 'I' | 'm' | 'M' | ' ' | '0'..='9' => {}
                            _ => return SedUse::Runs,
                        }
                        if matches!(c[i], 'w' | 'W') {
                            break;
                        }
                        i += 1;
                    }
                    if writes {
                        return SedUse::Writes;
                    }
                }
            }
            'e' => return SedUse::Runs,
            'w' | 'W' => return SedUse::Writes,
            // Commands that take the rest of the line as text, a label or a file to read.
            'a' | 'i' | 'c' | 'b' | 't' | 'T' | ':' | 'r' | 'R' | '#' => {
                while i < c.len() && c[i] != '\n' {
                    if c[i] == ';' && matches!(ch, 'b' | 't' | 'T') {
                        break;
                    }
                    i += 1;
                }
            }
            'p' | 'P' | 'd' | 'D' | 'n' | 'N' | 'g' | 'G' | 'h' | 'H' | 'x' | 'l' | '=' | 'q'
            | 'Q' | 'z' | 'F' => i += 1,
            _ => return SedUse::Runs,
        }
    }
    SedUse::Reads
}

/// Whether writing or deleting `p` (canonical) is on the catastrophic list: the places
/// [`protected`] names, anything in the OS image or system state, a block device, the
/// recovery command file.
pub(super) fn guarded(p: &str) -> bool {
    let c: Vec<&str> = p.split('/').filter(|c| !c.is_empty()).collect();
    if let [one] = c.as_slice() {
        // An entry of `/` Android does not have is a new file there, not the OS image.
        return super::places::root_entry(one);
    }
    protected(p)
        || super::rules::is_block_device(p)
        || p.ends_with("/recovery/command")
        || matches!(
            c.as_slice(),
            [
                "data",
                "system" | "system_ce" | "system_de" | "app" | "vendor" | "property",
                ..
            ]
        )
        || (matches!(c.as_slice(), ["data", "misc", ..])
            && !matches!(
                c.as_slice(),
                ["data", "misc", "perfetto-traces" | "perfetto-configs", ..]
            ))
}

/// The path-like pieces of an argument: the argument itself, the value of `KEY=VALUE`,
/// and every piece between quotes, blanks and redirection signs that holds a `/`.
fn path_tokens(a: &str) -> Vec<&str> {
    let mut out = vec![a];
    if let Some((_, v)) = a.split_once('=') {
        out.push(v);
    }
    // A value glued to its option letter (`-o/data/system/x`).
    if a.starts_with('-')
        && !a.starts_with("--")
        && let Some(v) = a.get(2..).filter(|v| v.starts_with(['/', '.', '~']))
    {
        out.push(v);
    }
    out.extend(
        a.split(|c: char| c.is_whitespace() || "\"'<>|;,()=`".contains(c))
            .filter(|t| t.contains('/') || t.starts_with('~')),
    );
    out
}

/// The command a listening `nc` (`-l`, `-L`) runs: the words after its options.
fn nc_listen_command(args: &[String]) -> Option<Vec<String>> {
    let mut i = 0;
    let mut listens = false;
    while let Some(a) = args.get(i) {
        if a == "--" {
            i += 1;
            break;
        }
        if !a.starts_with('-') || a.len() < 2 {
            break;
        }
        listens |= !a.starts_with("--") && a[1..].contains(['l', 'L']);
        // Options that take a value, alone or at the end of a bundle.
        if !a.starts_with("--") && a.ends_with(['p', 'q', 'W', 'w', 's', 'i', 'f', 'O', 'o']) {
            i += 1;
        }
        i += 1;
    }
    (listens && i < args.len()).then(|| args[i..].to_vec())
}

/// Remembers that `dir` now holds entries the guard cannot see; filling a folder that is
/// already such a place (a second archive over the first) is not read.
pub(super) fn fill(env: &mut Env, dir: &str, by: &str) -> R<()> {
    for r in resolve(dir, env) {
        if let Some((d, first)) = env.fs.filled_under(&r, 0) {
            return Err(Refusal::new(
                "cannot-read",
                format!(
                    "cannot read this: {by} writes into `{}` ({}), which {first} filled with entries the guard cannot see (any may be a link to anywhere); run them as separate commands, or run it yourself",
                    shown(dir),
                    shown(d)
                ),
            ));
        }
        env.fs_mut().filled.push((r, by.to_string()));
    }
    Ok(())
}

/// Refuses going `depth` or more entries into a folder filled with entries the guard
/// cannot see.
pub(super) fn through_filled(op: &str, r: &str, env: &Env, depth: usize) -> R<()> {
    if let Some((d, by)) = env.fs.filled_under(r, depth) {
        return Err(Refusal::new(
            "cannot-read",
            format!(
                "cannot read this: `{}` goes into `{}`, which {by} filled with entries the guard cannot see (any may be a link to anywhere); run them as separate commands, or run it yourself",
                shown(op),
                shown(d)
            ),
        ));
    }
    Ok(())
}

/// How a refusal names a place on the catastrophic list given to a program the guard does
/// not follow.
const GUARDED_PLACE: &str = "a place that must not be changed from here";

/// Whether a refusal is for harm (or a protected place), not only for text the guard could
/// not read.
fn for_harm(r: &Refusal) -> bool {
    !matches!(
        r.rule,
        "cannot-read" | "cannot-tell" | "too-deep" | "too-long"
    ) || r.why.contains(GUARDED_PLACE)
}

/// At most this many files the command wrote are read back as scripts.
const MAX_FILES_READ: usize = 32;

impl Eval {
    /// What the command leaves behind: a file holding a command refused for harm is
    /// refused, whatever may run it later (a Makefile, `.profile`, `FPATH`, a program
    /// reading its own startup file), so no one has to know every program that runs files.
    pub(super) fn files_left(&mut self, env: &Env) -> R<()> {
        // Traps run at the end, with the functions defined by then.
        for body in std::mem::take(&mut self.traps) {
            let mut e = env.clone();
            self.script(&body, &mut e, None)?;
        }
        // Also when `PATH` was set: programs run helpers found through it (tar's `xzcat`).
        if !self.ran_unread && !env.fs.path_set {
            return Ok(());
        }
        let files: Vec<(String, super::state::Val)> = env
            .fs
            .files
            .iter()
            .filter(|(k, _)| !k.starts_with("/proc/self/fd/"))
            .take(MAX_FILES_READ)
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        for (path, v) in files {
            // Also as vi/ex read it (`.exrc`, `EXINIT`): `:!cmd` runs `cmd`.
            let ex: Vec<String> = v
                .cands
                .iter()
                .filter(|c| c.lines().any(|l| l.trim_start().starts_with([':', '!'])))
                .map(|c| {
                    c.lines()
                        .map(|l| l.trim_start().trim_start_matches([':', '!', ' ']))
                        .collect::<Vec<_>>()
                        .join("\n")
                })
                .collect();
            for cand in v.cands.iter().chain(&ex).filter(|c| !c.contains(UNKNOWN)) {
                let mut ev = Eval::new();
                let mut e = Env::android();
                if let Err(r) = ev.script(cand, &mut e, None)
                    && for_harm(&r)
                {
                    return Err(Refusal::new(
                        r.rule,
                        format!(
                            "the command leaves `{}` holding a command that is refused, whatever runs it later: {}",
                            shown(&path),
                            r.why
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    /// The inverted default for a program that is not one of the modelled verbs.
    pub(super) fn unmodelled(
        &mut self,
        name: &str,
        args: &[String],
        env: &mut Env,
        input: &Input,
    ) -> R<()> {
        if !is_known(name) {
            return self.unknown_program(name, args, env, input);
        }
        // `nc -f FILE` uses FILE as the connection: what the program run by `-e` or `-l`
        // prints goes into it.
        if matches!(name, "nc" | "netcat") && has_opt(args, 'f', &[]) {
            let opts: Vec<String> = args
                .iter()
                .take_while(|a| *a != "-e" && *a != "--exec")
                .cloned()
                .collect();
            self.operands_guarded(&opts, env, "`nc -f` writes into the file it is given")?;
        }
        if matches!(name, "nc" | "netcat")
            && let Some(argv) = nc_listen_command(args)
        {
            // toybox `nc -l`/`-L`: the words after the options run for each connection.
            let from_net = Some(super::state::Val::unknown("what the network sends"));
            let mut e = env.clone();
            self.deeper(|ev| ev.run(argv, &mut e, &from_net))?;
            return Ok(());
        }
        if matches!(name, "nc" | "netcat")
            && let Some(p) = args.iter().position(|a| a == "-e" || a == "--exec")
        {
            // `nc -e PROG ARGS…` runs PROG with the network as its input.
            let argv = args[p + 1..].to_vec();
            let from_net = Some(super::state::Val::unknown("what the network sends"));
            let mut e = env.clone();
            self.deeper(|ev| ev.run(argv, &mut e, &from_net))?;
            return Ok(());
        }
        self.compressed_away(name, args, env)?;
        if name == "patch" && !args.iter().any(|a| a == "--dry-run") {
            self.patch(args, env, input)?;
        }
        match form(name, args) {
            Form::Reader => Ok(()),
            Form::Runs(why) => Err(cannot_read(&why)),
            Form::Fills(why, dir) => {
                self.operands_guarded(std::slice::from_ref(&dir), env, &why)?;
                fill(env, &dir, &format!("`{name}`"))?;
                env.fs_mut().unread_writes = Some(format!("`{name}`"));
                Ok(())
            }
            Form::Writer(why, targets) => {
                match targets {
                    Some(t) => {
                        self.operands_guarded(&t, env, &why)?;
                        for f in &t {
                            super::rules::written(
                                &super::state::Val::known(f.as_str()),
                                env,
                                self,
                                &format!("`{name}`"),
                            )?;
                        }
                    }
                    None => {
                        self.operands_guarded(args, env, &why)?;
                        self.ran_unread = true;
                    }
                }
                env.fs_mut().unread_writes = Some(format!("`{name}`"));
                Ok(())
            }
        }
    }

    /// `gzip FILE`, `bzip2 FILE`, `lzop -U FILE` delete FILE once compressed (as `rm FILE`
    /// would), and `gunzip F.gz` writes `F`: read as those.
    fn compressed_away(&mut self, name: &str, args: &[String], env: &mut Env) -> R<()> {
        const TOOLS: &[&str] = &[
            "gzip",
            "gunzip",
            "bzip2",
            "bunzip2",
            "xz",
            "unxz",
            "lzma",
            "unlzma",
            "zstd",
            "unzstd",
            "lzop",
            "pigz",
            "unpigz",
            "uncompress",
            "compress",
        ];
        if !TOOLS.contains(&name)
            || has_opt(args, 'c', &["stdout", "to-stdout"])
            || has_opt(args, 'k', &["keep"])
            || has_opt(args, 'l', &["list"])
            || has_opt(args, 't', &["test"])
        {
            return Ok(());
        }
        // lzop keeps its input unless told `-U`; zstd keeps it unless `--rm`.
        let removes = match name {
            "lzop" => has_opt(args, 'U', &["unlink", "delete"]),
            "zstd" | "unzstd" => args.iter().any(|a| a == "--rm"),
            _ => true,
        };
        let decompress = matches!(
            name,
            "gunzip" | "bunzip2" | "unxz" | "unlzma" | "unzstd" | "unpigz" | "uncompress"
        ) || has_opt(args, 'd', &["decompress", "uncompress"]);
        let files: Vec<String> = args
            .iter()
            .filter(|a| !a.starts_with('-') || a.as_str() == "-")
            .filter(|a| a.as_str() != "-")
            .cloned()
            .collect();
        if removes && !files.is_empty() {
            let mut argv = vec!["-f".to_string()];
            argv.extend(files.iter().cloned());
            super::rules::check("rm", &argv, env, self)?;
        }
        if decompress {
            for f in &files {
                let out = [
                    ".gz", ".bz2", ".xz", ".lzma", ".lz", ".lzo", ".zst", ".Z", ".tgz",
                ]
                .iter()
                .find_map(|s| f.strip_suffix(s))
                .unwrap_or(f);
                super::rules::written(
                    &super::state::Val::known(out),
                    env,
                    self,
                    &format!("`{name}`"),
                )?;
            }
        }
        Ok(())
    }

    /// `patch` creates, changes and deletes the files its diff names: a diff the guard has no
    /// text for (`diff … | patch`) is not read; one this command wrote is checked by name.
    fn patch(&mut self, args: &[String], env: &Env, input: &Input) -> R<()> {
        let file = args.iter().enumerate().find_map(|(i, a)| match a.as_str() {
            "-i" | "--input" => args.get(i + 1).cloned(),
            _ => a
                .strip_prefix("--input=")
                .or_else(|| a.strip_prefix("-i"))
                .filter(|v| !v.is_empty())
                .map(str::to_string),
        });
        let diff = match file {
            Some(f) => super::places::file_contents(&super::state::Val::known(f), env),
            None => input
                .clone()
                .unwrap_or_else(|| super::state::Val::unknown("what `patch` reads")),
        };
        if diff.is_unknown() || diff.cands.iter().any(|c| c.contains(UNKNOWN)) {
            return Err(cannot_read(
                "`patch` applying a diff the guard has no text for (it may create or delete any file it names),",
            ));
        }
        let names: Vec<String> = diff
            .cands
            .iter()
            .flat_map(|c| c.lines())
            .filter_map(|l| l.strip_prefix("+++ ").or_else(|| l.strip_prefix("--- ")))
            .filter_map(|l| l.split_whitespace().next())
            .map(str::to_string)
            .collect();
        // `-pN` strips N leading folders, and with no `-p` only the base name is kept: read
        // every strip (`a/vendor/build.prop` is `vendor/build.prop` in `/` with `-p1`), in the
        // folder `-d DIR` names too.
        let dir = args.iter().enumerate().find_map(|(i, a)| match a.as_str() {
            "-d" | "--directory" => args.get(i + 1).cloned(),
            _ => a
                .strip_prefix("--directory=")
                .or_else(|| a.strip_prefix("-d"))
                .filter(|v| !v.is_empty())
                .map(str::to_string),
        });
        let mut strips = Vec::new();
        for n in &names {
            let parts: Vec<&str> = n.split('/').filter(|p| !p.is_empty()).collect();
            for k in 0..parts.len() {
                let rest = parts[k..].join("/");
                let rest = if k == 0 && n.starts_with('/') {
                    format!("/{rest}")
                } else {
                    rest
                };
                strips.push(match &dir {
                    Some(d) if !rest.starts_with('/') => format!("{d}/{rest}"),
                    _ => rest,
                });
            }
        }
        self.operands_guarded(&strips, env, "`patch` changes the files its diff names")
    }

    /// Refuses when an operand (or a path inside an argument) is on the catastrophic list.
    pub(super) fn operands_guarded(&mut self, args: &[String], env: &Env, why: &str) -> R<()> {
        for a in args {
            for t in path_tokens(a) {
                if t.contains(UNKNOWN) {
                    if t.contains('/') || t == a {
                        return Err(cannot_read(&format!(
                            "{why}, and it is given `{}`, text the guard cannot know,",
                            shown(t)
                        )));
                    }
                    continue;
                }
                if t.starts_with('-') && t == a {
                    continue;
                }
                let whole = t == a;
                let t = if t.len() > 1 {
                    t.trim_end_matches('/')
                } else {
                    t
                };
                let t = if t.is_empty() { "/" } else { t };
                if !(whole || t.contains('/')) {
                    continue;
                }
                for r in resolve(t, env) {
                    through_filled(t, &r, env, 1)?;
                    if let Some(hit) = super::rules::guarded_glob(&r) {
                        return Err(Refusal::new(
                            "cannot-read",
                            format!(
                                "cannot read this: {why}, and it is given `{}`, which can match `{hit}`, {GUARDED_PLACE}; run it yourself",
                                shown(t)
                            ),
                        ));
                    }
                    // A plain word at `/` names an entry of `/` only if Android has one.
                    let depth = r.split('/').filter(|c| !c.is_empty()).count();
                    let plain_root_word = !t.contains('/')
                        && depth == 1
                        && !super::places::root_entry(r.trim_start_matches('/'));
                    if guarded(&r) && !plain_root_word {
                        return Err(Refusal::new(
                            "cannot-read",
                            format!(
                                "cannot read this: {why}, and it is given `{}` ({}), {GUARDED_PLACE}; run it yourself",
                                shown(t),
                                shown(&r)
                            ),
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    fn unknown_program(
        &mut self,
        name: &str,
        args: &[String],
        env: &mut Env,
        input: &Input,
    ) -> R<()> {
        self.ran_unread = true;
        if APPLETS_NOT_FOLLOWED.contains(&name) {
            return Err(cannot_read(&format!(
                "`{name}`, a busybox or toybox applet the guard does not follow (it may run, write or wipe on its own),"
            )));
        }
        let why = format!("`{name}` is a program the guard does not know");
        self.operands_guarded(args, env, &why)?;
        // It may run its arguments: as a command from any position, or as a script.
        for i in 0..args.len() {
            let a = &args[i];
            let head = super::runners::basename(a);
            let runs = is_known(head) && !matches!(head, "echo" | "print" | "printf" | "true");
            let script_like = a.contains([' ', ';', '|', '&', '\n', '$', '`', '>']);
            if !(runs || script_like) {
                continue;
            }
            if runs {
                let mut e = env.clone();
                self.deeper(|ev| ev.run(args[i..].to_vec(), &mut e, &None))
                    .map_err(|r| {
                        Refusal::new(
                            "cannot-read",
                            format!(
                                "cannot read this: {why}, and it may run its arguments: {}",
                                r.why
                            ),
                        )
                    })?;
            } else {
                self.may_run(&why, "its arguments", a, env.clone())?;
            }
        }
        // Scripts this command wrote where it can reach them.
        let written: Vec<(String, super::state::Val)> = env
            .fs
            .files
            .iter()
            .filter(|(k, _)| !k.starts_with("/proc/self/fd/"))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        for a in args.iter().filter(|a| !a.starts_with('-')) {
            for r in resolve(a, env) {
                for (k, v) in &written {
                    if *k == r || k.starts_with(&format!("{}/", r.trim_end_matches('/'))) {
                        self.unknown_reads_script(&why, k, v, env)?;
                    }
                }
            }
        }
        if let Some(text) = input
            && !text.is_unknown()
        {
            for cand in &text.cands {
                self.may_run(&why, "what it reads", cand, env.child())?;
            }
        }
        env.fs_mut().unread_writes = Some(format!("`{name}`"));
        Ok(())
    }

    /// Reads `text` as a script the unknown program may run; a refusal names what it runs.
    fn may_run(&mut self, why: &str, what: &str, text: &str, mut e: Env) -> R<()> {
        self.deeper(|ev| ev.script(text, &mut e, None))
            .map(|_| ())
            .map_err(|r| {
                Refusal::new(
                    "cannot-read",
                    format!("cannot read this: {why}, and it may run {what}: {}", r.why),
                )
            })
    }

    fn unknown_reads_script(
        &mut self,
        why: &str,
        path: &str,
        v: &super::state::Val,
        env: &Env,
    ) -> R<()> {
        for cand in &v.cands {
            if cand.contains(UNKNOWN) {
                return Err(cannot_read(&format!(
                    "{why}, and it is given `{path}`, which this command wrote with text the guard cannot know,"
                )));
            }
            self.may_run(
                why,
                &format!("`{path}`, which this command wrote"),
                cand,
                env.child(),
            )?;
        }
        Ok(())
    }
}

use super::Refusal;
