//! Small system tools: `getprop`/`setprop`, `wm`, `settings`, `svc`, `echo`, `ip addr`, and
//! the toybox text filters tools pipe into (`grep`, `head`, `tail`, `wc`).
use super::Ctx;
use crate::device::props;

pub fn getprop(ctx: &mut Ctx, args: &[String]) -> i32 {
    match args.get(1) {
        None => {
            let all = props::render(&ctx.st.props);
            ctx.out(&all);
        }
        Some(k) => {
            // A missing property prints the default (second argument) or an empty line.
            let v = ctx
                .st
                .props
                .get(k)
                .cloned()
                .or_else(|| args.get(2).cloned())
                .unwrap_or_default();
            ctx.outln(&v);
        }
    }
    0
}

pub fn setprop(ctx: &mut Ctx, args: &[String]) -> i32 {
    let (Some(k), Some(v)) = (args.get(1), args.get(2)) else {
        ctx.errln("usage: setprop NAME VALUE");
        return 1;
    };
    if k.starts_with("ro.") {
        ctx.errln(&format!(
            "Failed to set property '{k}' to '{v}'.\nSee dmesg for error reason."
        ));
        return 1;
    }
    ctx.st.props.insert(k.clone(), v.clone());
    0
}

pub fn wm(ctx: &mut Ctx, args: &[String]) -> i32 {
    let d = ctx.st.scenario.device.clone();
    match args.get(1).map(String::as_str) {
        Some("size") => match args.get(2).map(String::as_str) {
            None => {
                ctx.outln(&format!("Physical size: {}x{}", d.width, d.height));
                if let Some((w, h)) = ctx.st.size_override {
                    ctx.outln(&format!("Override size: {w}x{h}"));
                }
            }
            Some("reset") => ctx.st.size_override = None,
            Some(wh) => {
                let parsed = wh
                    .split_once('x')
                    .and_then(|(w, h)| Some((w.parse::<u32>().ok()?, h.parse::<u32>().ok()?)))
                    .filter(|&(w, h)| w > 0 && h > 0);
                match parsed {
                    Some(size) => ctx.st.size_override = Some(size),
                    None => {
                        ctx.errln(&format!("Error: bad size {wh}"));
                        return 255;
                    }
                }
            }
        },
        Some("density") => ctx.outln(&format!("Physical density: {}", d.density)),
        Some("user-rotation") => return user_rotation(ctx, &args[2..]),
        _ => {
            ctx.errln("Window manager (window) commands:\n  help\n      Print this help text.\n  size [reset|WxH|WdpxHdp] [-d DISPLAY_ID]\n    Return or override display size.\n  density [reset|DENSITY] [-d DISPLAY_ID]\n    Return or override display density.\n  user-rotation [-d DISPLAY_ID] [free|lock] [rotation]\n    Print or set user rotation mode and user rotation.");
            return 255;
        }
    }
    0
}

/// `wm user-rotation [-d ID] [free|lock [N]]`, as WindowManagerShellCommand
/// `runDisplayUserRotation`/`printDisplayUserRotation` do (aosp-mirror/platform_frameworks_base
/// services/core/java/com/android/server/wm/WindowManagerShellCommand.java @6319db42): no
/// argument prints `free` or `lock N`; `lock` without N locks the current rotation. Locking
/// writes the settings `freezeRotation` writes: `accelerometer_rotation` 0, `user_rotation` N.
fn user_rotation(ctx: &mut Ctx, args: &[String]) -> i32 {
    let mut args = args.iter().map(String::as_str);
    let mut arg = args.next();
    if arg == Some("-d") {
        args.next();
        arg = args.next();
    }
    let locked = ctx
        .st
        .settings
        .get("system/accelerometer_rotation")
        .map(String::as_str)
        != Some("1");
    match arg {
        None => {
            if locked {
                let r = ctx.st.rotation();
                ctx.outln(&format!("lock {r}"));
            } else {
                ctx.outln("free");
            }
            0
        }
        Some("free") => {
            ctx.st
                .settings
                .insert("system/accelerometer_rotation".into(), "1".into());
            0
        }
        Some("lock") => {
            let r = match args.next() {
                None => i64::from(ctx.st.rotation()),
                Some(n) => match n.parse::<i64>() {
                    Ok(r) => r,
                    Err(_) => {
                        ctx.errln(&format!("Error: For input string: \"{n}\""));
                        return 255;
                    }
                },
            };
            if !(0..=3).contains(&r) {
                ctx.errln(&format!("Error: Rotation argument, {r} is invalid"));
                return 255;
            }
            ctx.st
                .settings
                .insert("system/accelerometer_rotation".into(), "0".into());
            ctx.st
                .settings
                .insert("system/user_rotation".into(), r.to_string());
            0
        }
        Some(_) => {
            ctx.errln("Error: argument needs to be either -d, free or lock.");
            255
        }
    }
}

pub fn settings(ctx: &mut Ctx, args: &[String]) -> i32 {
    let usage = |ctx: &mut Ctx| {
        ctx.errln("Settings provider (settings) commands:\n  get [--user <USER_ID> | current] NAMESPACE KEY\n      Retrieve the current value of KEY.\n  put [--user <USER_ID> | current] NAMESPACE KEY VALUE [TAG] [default]\n      Change the contents of KEY to VALUE.\n  delete [--user <USER_ID> | current] NAMESPACE KEY\n      Delete the entry for KEY.\n  list [--user <USER_ID> | current] NAMESPACE\n      Print all defined keys.\nNAMESPACE is one of {system, secure, global}, case-insensitive");
        255
    };
    let rest: Vec<&String> = {
        let mut v = Vec::new();
        let mut it = args.iter().skip(2);
        while let Some(a) = it.next() {
            if a == "--user" {
                it.next();
            } else {
                v.push(a);
            }
        }
        v
    };
    let ns_ok = |ns: &str| {
        matches!(
            ns.to_ascii_lowercase().as_str(),
            "system" | "secure" | "global"
        )
    };
    match (args.get(1).map(String::as_str), rest.as_slice()) {
        (Some("get"), [ns, key, ..]) if ns_ok(ns) => {
            let k = format!("{}/{key}", ns.to_ascii_lowercase());
            let v = ctx
                .st
                .settings
                .get(&k)
                .cloned()
                .unwrap_or_else(|| "null".into());
            ctx.outln(&v);
            0
        }
        (Some("put"), [ns, key, val, ..]) if ns_ok(ns) => {
            ctx.st
                .settings
                .insert(format!("{}/{key}", ns.to_ascii_lowercase()), (*val).clone());
            0
        }
        (Some("delete"), [ns, key, ..]) if ns_ok(ns) => {
            let gone = ctx
                .st
                .settings
                .remove(&format!("{}/{key}", ns.to_ascii_lowercase()));
            ctx.outln(&format!("Deleted {} rows", usize::from(gone.is_some())));
            0
        }
        (Some("list"), [ns, ..]) if ns_ok(ns) => {
            let prefix = format!("{}/", ns.to_ascii_lowercase());
            let lines: Vec<String> = ctx
                .st
                .settings
                .iter()
                .filter_map(|(k, v)| k.strip_prefix(&prefix).map(|k| format!("{k}={v}")))
                .collect();
            for l in lines {
                ctx.outln(&l);
            }
            0
        }
        _ => usage(ctx),
    }
}

pub fn svc(ctx: &mut Ctx, args: &[String]) -> i32 {
    match (
        args.get(1).map(String::as_str),
        args.get(2).map(String::as_str),
        args.get(3),
    ) {
        (Some("power"), Some("stayon"), Some(v))
            if ["true", "false", "usb", "ac", "wireless"].contains(&v.as_str()) =>
        {
            ctx.st.stay_on = v.clone();
            let n = match v.as_str() {
                "true" => "7",
                "usb" => "2",
                "ac" => "1",
                "wireless" => "4",
                _ => "0",
            };
            ctx.st
                .settings
                .insert("global/stay_on_while_plugged_in".into(), n.into());
            0
        }
        (Some("power"), Some("stayon"), _) => {
            ctx.errln("usage: svc power stayon [true|false|usb|ac|wireless]");
            255
        }
        (Some("wifi" | "data" | "bluetooth"), Some("enable" | "disable"), _) => 0,
        _ => {
            ctx.errln("Available commands:\n    help     Show information about the subcommands\n    power    Control the power manager\n    data     Control mobile data connectivity\n    wifi     Control the Wi-Fi manager\n    usb      Control Usb state\n    nfc      Control NFC functions\n    bluetooth Control Bluetooth service");
            0
        }
    }
}

pub fn echo(ctx: &mut Ctx, args: &[String]) -> i32 {
    let mut words = &args[1.min(args.len())..];
    let newline = words.first().map(String::as_str) != Some("-n");
    if !newline {
        words = &words[1..];
    }
    ctx.out(&words.join(" "));
    if newline {
        ctx.out("\n");
    }
    0
}

/// `ip addr` in iproute2's layout (see `fixtures/misc/ip-addr-pixel.txt`), for the loopback,
/// the dummy interface and a connected Wi-Fi, as an emulator-like device has.
pub fn ip(ctx: &mut Ctx, args: &[String]) -> i32 {
    match args.get(1).map(String::as_str) {
        Some("addr" | "a" | "address") | Some("-4" | "-6") => {
            ctx.out(IP_ADDR);
            0
        }
        Some("route" | "r") => {
            ctx.outln("10.0.2.0/24 dev wlan0 proto kernel scope link src 10.0.2.16 ");
            0
        }
        _ => {
            ctx.errln("Usage: ip [ OPTIONS ] OBJECT { COMMAND | help }\n       ip [ -force ] -batch filename\nwhere  OBJECT := { link | address | addrlabel | route | rule | neigh | ntable |\n                   tunnel | tuntap | maddress | mroute | mrule | monitor | xfrm |\n                   netns | l2tp | fou | macsec | tcp_metrics | token | netconf | ila |\n                   vrf | sr | nexthop }");
            255
        }
    }
}

const IP_ADDR: &str = "1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN group default qlen 1000
    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00
    inet 127.0.0.1/8 scope host lo
       valid_lft forever preferred_lft forever
    inet6 ::1/128 scope host 
       valid_lft forever preferred_lft forever
2: dummy0: <BROADCAST,NOARP,UP,LOWER_UP> mtu 1500 qdisc noqueue state UNKNOWN group default qlen 1000
    link/ether 5e:1a:7c:3d:92:04 brd ff:ff:ff:ff:ff:ff
    inet6 fe80::5c1a:7cff:fe3d:9204/64 scope link 
       valid_lft forever preferred_lft forever
47: wlan0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc pfifo_fast state UP group default qlen 1000
    link/ether 02:15:b2:00:01:00 brd ff:ff:ff:ff:ff:ff
    inet 10.0.2.16/24 brd 10.0.2.255 scope global wlan0
       valid_lft forever preferred_lft forever
    inet6 fe80::15:b2ff:fe00:100/64 scope link 
       valid_lft forever preferred_lft forever
";

fn input_text(ctx: &Ctx, files: &[&String]) -> Result<String, String> {
    if files.is_empty() {
        return Ok(String::from_utf8_lossy(ctx.stdin).into_owned());
    }
    let mut s = String::new();
    for f in files {
        match ctx.st.fs.read(f) {
            Ok(b) => s.push_str(&String::from_utf8_lossy(&b)),
            Err(e) => return Err(format!("{f}: {e}")),
        }
    }
    Ok(s)
}

/// toybox `grep` with the flags scripts use: -i -v -c -E -F -e PATTERN.
pub fn grep(ctx: &mut Ctx, args: &[String]) -> i32 {
    let (mut icase, mut invert, mut count, mut fixed) = (false, false, false, false);
    let mut pattern: Option<String> = None;
    let mut files = Vec::new();
    let mut it = args.iter().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "-e" => pattern = it.next().cloned(),
            s if s.starts_with('-') && s.len() > 1 => {
                for c in s.chars().skip(1) {
                    match c {
                        'i' => icase = true,
                        'v' => invert = true,
                        'c' => count = true,
                        'F' => fixed = true,
                        'E' | 'w' | 'a' | 's' | 'q' => {}
                        _ => {}
                    }
                }
            }
            _ if pattern.is_none() => pattern = Some(a.clone()),
            _ => files.push(a),
        }
    }
    let Some(p) = pattern else {
        ctx.errln("usage: grep [-EFHIabcdhilnoqrsvwxz] [-e REGEX]... [REGEX] [FILE]...");
        return 2;
    };
    let p = if fixed { regex::escape(&p) } else { p };
    let re = match regex::RegexBuilder::new(&p).case_insensitive(icase).build() {
        Ok(r) => r,
        Err(_) => {
            ctx.errln(&format!("grep: bad regex '{p}'"));
            return 2;
        }
    };
    let text = match input_text(ctx, &files) {
        Ok(t) => t,
        Err(e) => {
            ctx.errln(&format!("grep: {e}"));
            return 2;
        }
    };
    let hits: Vec<&str> = text.lines().filter(|l| re.is_match(l) != invert).collect();
    if count {
        ctx.outln(&hits.len().to_string());
    } else {
        let joined: String = hits.iter().map(|l| format!("{l}\n")).collect();
        ctx.out(&joined);
    }
    if hits.is_empty() { 1 } else { 0 }
}

pub fn head_tail(ctx: &mut Ctx, args: &[String], head: bool) -> i32 {
    let mut n = 10usize;
    let mut files = Vec::new();
    let mut it = args.iter().skip(1);
    while let Some(a) = it.next() {
        if a == "-n" {
            n = it
                .next()
                .and_then(|v| v.trim_start_matches('+').parse().ok())
                .unwrap_or(10);
        } else if let Some(v) = a.strip_prefix("-n").or_else(|| a.strip_prefix('-')) {
            n = v.parse().unwrap_or(10);
        } else {
            files.push(a);
        }
    }
    let text = match input_text(ctx, &files) {
        Ok(t) => t,
        Err(e) => {
            ctx.errln(&format!("{}: {e}", if head { "head" } else { "tail" }));
            return 1;
        }
    };
    let lines: Vec<&str> = text.lines().collect();
    let pick: &[&str] = if head {
        &lines[..n.min(lines.len())]
    } else {
        &lines[lines.len().saturating_sub(n)..]
    };
    let joined: String = pick.iter().map(|l| format!("{l}\n")).collect();
    ctx.out(&joined);
    0
}

pub fn wc(ctx: &mut Ctx, args: &[String]) -> i32 {
    let text = String::from_utf8_lossy(ctx.stdin).into_owned();
    let lines = text.matches('\n').count();
    if args.get(1).map(String::as_str) == Some("-l") {
        ctx.outln(&lines.to_string());
    } else {
        let words = text.split_whitespace().count();
        ctx.outln(&format!("{lines:>7} {words:>7} {:>7}", text.len()));
    }
    0
}
