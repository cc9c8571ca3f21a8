//! `ps -A` (toybox): one row per process. Columns are found from the header, so `ps -A -o`
//! variants and vendors that add columns still parse; NAME is last and may contain spaces.
use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Process {
    pub user: String,
    pub pid: u32,
    pub ppid: Option<u32>,
    /// Virtual size, kB.
    pub vsz_kb: Option<u64>,
    /// Resident set size, kB.
    pub rss_kb: Option<u64>,
    pub wchan: Option<String>,
    /// R / S / D / Z / T / I ...
    pub state: Option<String>,
    pub name: String,
    /// Kernel thread (`[kthreadd]`): no user-space memory of its own.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub kernel_thread: bool,
}

pub fn parse(text: &str) -> Vec<Process> {
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let Some(header) = lines.next() else {
        return Vec::new();
    };
    let cols: Vec<&str> = header.split_whitespace().collect();
    let col = |name: &str| cols.iter().position(|c| *c == name);
    let (Some(user), Some(pid)) = (col("USER"), col("PID")) else {
        return Vec::new();
    };
    let name_col = col("NAME")
        .or_else(|| col("CMD"))
        .unwrap_or(cols.len().saturating_sub(1));
    let (ppid, vsz, rss, wchan, state) =
        (col("PPID"), col("VSZ"), col("RSS"), col("WCHAN"), col("S"));
    let mut out = Vec::new();
    for line in lines {
        let f: Vec<&str> = line.split_whitespace().collect();
        // NAME may hold spaces: it is everything from its column on.
        if f.len() < cols.len() {
            continue;
        }
        let Some(pid) = f.get(pid).and_then(|p| p.parse().ok()) else {
            continue;
        };
        let name = f[name_col.min(f.len() - 1)..].join(" ");
        let get = |i: Option<usize>| i.and_then(|i| f.get(i)).map(|s| s.to_string());
        out.push(Process {
            user: f.get(user).map(|s| s.to_string()).unwrap_or_default(),
            pid,
            ppid: get(ppid).and_then(|s| s.parse().ok()),
            vsz_kb: get(vsz).and_then(|s| s.parse().ok()),
            rss_kb: get(rss).and_then(|s| s.parse().ok()),
            wchan: get(wchan).filter(|w| w != "0"),
            state: get(state),
            kernel_thread: name.starts_with('[') && name.ends_with(']'),
            name,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::parse::fixture;

    #[test]
    fn android13_mtk_ps() {
        let text = fixture("misc/ps-A-android13-mtk.txt");
        let ps = parse(&text);
        assert_eq!(
            ps.len(),
            text.lines().count() - 1,
            "every row but the header"
        );
        let init = &ps[0];
        assert_eq!(
            (init.user.as_str(), init.pid, init.ppid),
            ("root", 1, Some(0))
        );
        assert_eq!((init.vsz_kb, init.rss_kb), (Some(10937576), Some(14648)));
        assert_eq!(init.wchan.as_deref(), Some("do_epoll_wait"));
        assert!(ps[1].kernel_thread && ps[1].name == "[kthreadd]");
        let ss = ps.iter().find(|p| p.name == "system_server").unwrap();
        assert_eq!(
            (ss.pid, ss.rss_kb, ss.user.as_str()),
            (832, Some(403712), "system")
        );
        let cam = ps
            .iter()
            .find(|p| p.name == "android.hardware.camera.provider@2.4-external-service");
        assert_eq!(cam.unwrap().wchan.as_deref(), Some("binder_wait_for_work"));
        let me = ps.last().unwrap();
        assert_eq!(
            (me.name.as_str(), me.state.as_deref(), me.wchan.clone()),
            ("ps", Some("R"), None)
        );
        assert!(
            ps.iter()
                .any(|p| p.user == "u0_a86" && p.name == "com.android.systemui")
        );
    }

    #[test]
    fn garbage_and_spaces_in_name() {
        assert!(parse("").is_empty());
        assert!(parse("/system/bin/sh: ps: inaccessible or not found").is_empty());
        let p = parse(
            "USER PID PPID VSZ RSS WCHAN ADDR S NAME\nu0_a5 77 1 10 20 0 0 S my proc name\nbad line\n",
        );
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].name, "my proc name");
    }
}
