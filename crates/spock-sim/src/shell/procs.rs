//! Processes: `ps -A` in toybox's layout (`fixtures/misc/ps-A-android13-mtk.txt`), `pidof`,
//! and `kill`/`pkill`, which reach only the shell user's own jobs (`screenrecord`), as on a
//! phone where app processes belong to other uids.
use super::Ctx;
use crate::device::state::{SYSTEM_SERVER_PID, ZYGOTE_PID};

struct Row {
    user: String,
    pid: u32,
    ppid: u32,
    vsz: u64,
    rss: u64,
    wchan: &'static str,
    state: char,
    name: String,
}

const HEADER: &str =
    "USER           PID  PPID     VSZ    RSS WCHAN            ADDR S NAME                       ";

/// Lays one row out as toybox does: each column aims at a fixed end position and a value
/// that overflows pushes the rest of the line right.
fn layout(r: &Row) -> String {
    let mut line = String::new();
    let left = |line: &mut String, v: &str, end: usize| {
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(v);
        while line.len() < end {
            line.push(' ');
        }
    };
    let right = |line: &mut String, v: &str, end: usize| {
        let start = line.len() + 1;
        let pad = end.saturating_sub(start + v.len());
        line.push(' ');
        line.push_str(&" ".repeat(pad));
        line.push_str(v);
    };
    left(&mut line, &r.user, 12);
    right(&mut line, &r.pid.to_string(), 18);
    right(&mut line, &r.ppid.to_string(), 24);
    right(&mut line, &r.vsz.to_string(), 32);
    right(&mut line, &r.rss.to_string(), 39);
    left(&mut line, r.wchan, 56);
    right(&mut line, "0", 61);
    right(&mut line, &r.state.to_string(), 63);
    line.push(' ');
    line.push_str(&r.name);
    line
}

fn rows(ctx: &Ctx) -> Vec<Row> {
    let sys = |user: &str, pid, ppid, vsz, rss, wchan, name: &str| Row {
        user: user.into(),
        pid,
        ppid,
        vsz,
        rss,
        wchan,
        state: 'S',
        name: name.into(),
    };
    let mut v = vec![
        sys("root", 1, 0, 10937576, 14648, "do_epoll_wait", "init"),
        sys("root", 2, 0, 0, 0, "kthreadd", "[kthreadd]"),
        sys("root", 341, 1, 10796416, 3924, "do_epoll_wait", "ueventd"),
        sys(
            "logd",
            402,
            1,
            10853744,
            8424,
            "__do_sys_rt_sigtimedwait",
            "logd",
        ),
        sys(
            "system",
            405,
            1,
            10867184,
            5180,
            "do_epoll_wait",
            "servicemanager",
        ),
        sys(
            "system",
            690,
            1,
            11395232,
            39672,
            "do_epoll_wait",
            "surfaceflinger",
        ),
        sys(
            "root",
            ZYGOTE_PID,
            1,
            15146216,
            173620,
            "do_sys_poll",
            "zygote64",
        ),
        sys(
            "system",
            SYSTEM_SERVER_PID,
            ZYGOTE_PID,
            18945760,
            412604,
            "do_epoll_wait",
            "system_server",
        ),
        sys(
            "u0_a186",
            1820,
            ZYGOTE_PID,
            16079648,
            284236,
            "do_epoll_wait",
            "com.android.systemui",
        ),
        sys(
            "u0_a131",
            2344,
            ZYGOTE_PID,
            14664824,
            129168,
            "do_epoll_wait",
            "com.google.android.inputmethod.latin",
        ),
        sys(
            "u0_a152",
            2571,
            ZYGOTE_PID,
            15380212,
            190332,
            "do_epoll_wait",
            "com.google.android.gms.persistent",
        ),
        sys("shell", 3310, 1, 10956904, 6720, "do_epoll_wait", "adbd"),
    ];
    let mut apps: Vec<(&String, &crate::device::state::Process)> =
        ctx.st.processes.iter().collect();
    apps.sort_by_key(|(_, p)| p.pid);
    for (pkg, p) in apps {
        v.push(Row {
            user: format!("u0_a{}", p.uid.saturating_sub(10000)),
            pid: p.pid,
            ppid: ZYGOTE_PID,
            vsz: 14_608_972 + u64::from(p.pid % 977) * 1024,
            rss: 122_020 + u64::from(p.pid % 613) * 64,
            wchan: "do_epoll_wait",
            state: 'S',
            name: pkg.clone(),
        });
    }
    for (pid, j) in &ctx.st.jobs {
        v.push(Row {
            user: "shell".into(),
            pid: *pid,
            ppid: 3310,
            vsz: 10_842_328,
            rss: 5_412,
            wchan: "do_sys_poll",
            state: 'S',
            name: j.name.clone(),
        });
    }
    v
}

pub fn ps(ctx: &mut Ctx, args: &[String]) -> i32 {
    let wanted: Vec<&String> = args
        .iter()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let mut all = rows(ctx);
    let ps_pid = ctx.st.next_pid;
    ctx.st.next_pid += 1;
    all.push(Row {
        user: "shell".into(),
        pid: ps_pid,
        ppid: 3310,
        vsz: 10_790_584,
        rss: 3_728,
        wchan: "0",
        state: 'R',
        name: "ps".into(),
    });
    ctx.outln(HEADER);
    for r in all {
        if wanted.is_empty()
            || wanted
                .iter()
                .any(|w| **w == r.name || **w == r.pid.to_string())
        {
            ctx.outln(&layout(&r));
        }
    }
    0
}

fn pids_named(ctx: &Ctx, name: &str) -> Vec<u32> {
    rows(ctx)
        .into_iter()
        .filter(|r| r.name == name)
        .map(|r| r.pid)
        .collect()
}

pub fn pidof(ctx: &mut Ctx, args: &[String]) -> i32 {
    let mut pids = Vec::new();
    for n in args.iter().skip(1).filter(|a| !a.starts_with('-')) {
        pids.extend(pids_named(ctx, n));
    }
    if pids.is_empty() {
        return 1;
    }
    let s: Vec<String> = pids.iter().map(u32::to_string).collect();
    ctx.outln(&s.join(" "));
    0
}

/// Signal number from `-2`, `-INT`, `-SIGINT`, `-s INT`.
fn signal(s: &str) -> Option<u32> {
    let s = s.trim_start_matches("SIG");
    s.parse().ok().or(match s {
        "HUP" => Some(1),
        "INT" => Some(2),
        "QUIT" => Some(3),
        "KILL" => Some(9),
        "TERM" => Some(15),
        _ => None,
    })
}

fn deliver(ctx: &mut Ctx, pid: u32, sig: u32) -> Result<(), String> {
    if let Some(j) = ctx.st.jobs.get(&pid) {
        // Any terminating signal stops screenrecord; INT is what makes it finish the file.
        if sig != 0 {
            j.stop.notify_one();
        }
        return Ok(());
    }
    if rows(ctx).iter().any(|r| r.pid == pid) {
        return Err(format!("kill: pid {pid}: Operation not permitted"));
    }
    Err(format!("kill: {pid}: No such process"))
}

pub fn kill(ctx: &mut Ctx, args: &[String]) -> i32 {
    let mut sig = 15;
    let mut pids = Vec::new();
    let mut it = args.iter().skip(1);
    while let Some(a) = it.next() {
        if a == "-s" {
            match it.next().and_then(|s| signal(s)) {
                Some(s) => sig = s,
                None => {
                    ctx.errln("kill: unknown signal");
                    return 1;
                }
            }
        } else if a == "-l" {
            ctx.outln("HUP INT QUIT ILL TRAP ABRT BUS FPE KILL USR1 SEGV USR2 PIPE ALRM TERM");
            return 0;
        } else if let Some(s) = a.strip_prefix('-') {
            match signal(s) {
                Some(s) => sig = s,
                None => {
                    ctx.errln(&format!("kill: unknown signal '{s}'"));
                    return 1;
                }
            }
        } else {
            pids.push(a.clone());
        }
    }
    if pids.is_empty() {
        ctx.errln("usage: kill [-s SIGNAL|-SIGNAL] PID...");
        return 1;
    }
    let mut code = 0;
    for p in pids {
        let res = match p.parse::<u32>() {
            Ok(pid) => deliver(ctx, pid, sig),
            Err(_) => Err(format!("kill: {p}: No such process")),
        };
        if let Err(e) = res {
            ctx.errln(&e);
            code = 1;
        }
    }
    code
}

pub fn pkill(ctx: &mut Ctx, args: &[String]) -> i32 {
    let mut sig = 15;
    let mut names = Vec::new();
    for a in args.iter().skip(1) {
        match a.strip_prefix('-') {
            Some(s) => sig = signal(s).unwrap_or(15),
            None => names.push(a.clone()),
        }
    }
    let targets: Vec<u32> = ctx
        .st
        .jobs
        .iter()
        .filter(|(_, j)| names.iter().any(|n| j.name.contains(n.as_str())))
        .map(|(p, _)| *p)
        .collect();
    for p in &targets {
        let _ = deliver(ctx, *p, sig);
    }
    if targets.is_empty() { 1 } else { 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_matches_fixture_rows() {
        // Rows from fixtures/misc/ps-A-android13-mtk.txt.
        let r = Row {
            user: "root".into(),
            pid: 1,
            ppid: 0,
            vsz: 10937576,
            rss: 14648,
            wchan: "do_epoll_wait",
            state: 'S',
            name: "init".into(),
        };
        assert_eq!(
            layout(&r),
            "root             1     0 10937576 14648 do_epoll_wait       0 S init"
        );
        let r = Row {
            user: "u0_a86".into(),
            pid: 2420,
            ppid: 428,
            vsz: 16079648,
            rss: 284236,
            wchan: "do_epoll_wait",
            state: 'S',
            name: "com.android.systemui".into(),
        };
        assert_eq!(
            layout(&r),
            "u0_a86        2420   428 16079648 284236 do_epoll_wait      0 S com.android.systemui"
        );
        let r = Row {
            user: "webview_zygote".into(),
            pid: 2649,
            ppid: 429,
            vsz: 1764360,
            rss: 78408,
            wchan: "do_sys_poll",
            state: 'S',
            name: "webview_zygote".into(),
        };
        assert_eq!(
            layout(&r),
            "webview_zygote 2649  429 1764360  78408 do_sys_poll         0 S webview_zygote"
        );
    }
}
