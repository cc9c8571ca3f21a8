//! Activity manager: `am start` (components, deep links, extras, `-W` timing lines),
//! `am force-stop`, `am kill`, and `monkey -p PKG … 1`, with the messages real `am` prints.
//!
//! Follows aosp-mirror/platform_frameworks_base
//! `services/core/java/com/android/server/am/ActivityManagerShellCommand.java`
//! @c014fb5ca964ed67963ccd05b4ade7dddca65a83 (`runStartActivity`: with `-W` the warnings and
//! errors go to stdout, without it to stderr; the command exits 0 whether or not the activity
//! started) and `core/java/android/content/Intent.java`
//! @426c31323cb86f86149e99a23262004dfd58891f (`parseCommandArgs`: the one argument after the
//! options is a URI when it holds `:`, a component when it holds `/`, else a package).
use super::Ctx;
use crate::device::state::short_component;
use crate::scenario::qualify;

#[derive(Default)]
struct Intent {
    action: Option<String>,
    data: Option<String>,
    categories: Vec<String>,
    mime: Option<String>,
    component: Option<(String, String)>,
    package: Option<String>,
    extras: bool,
    wait: bool,
}

impl Intent {
    /// A bare component or package is a launcher intent (action MAIN, category LAUNCHER),
    /// filled in where the options left them unset; an action from the options drops the
    /// base's category (`Intent.parseCommandArgs`, then `fillIn`).
    fn launcher_base(&mut self) {
        if self.action.is_none() {
            self.action = Some("android.intent.action.MAIN".into());
            if self.categories.is_empty() {
                self.categories
                    .push("android.intent.category.LAUNCHER".into());
            }
        }
    }

    /// `Intent.toShortString` order: act, cat, dat, typ, flg, pkg, cmp, extras.
    fn describe(&self, with_flags: bool) -> String {
        let mut parts = Vec::new();
        if let Some(a) = &self.action {
            parts.push(format!("act={a}"));
        }
        if !self.categories.is_empty() {
            parts.push(format!("cat=[{}]", self.categories.join(",")));
        }
        if let Some(d) = &self.data {
            parts.push(format!("dat={d}"));
        }
        if let Some(t) = &self.mime {
            parts.push(format!("typ={t}"));
        }
        if with_flags {
            parts.push("flg=0x10000000".into());
        }
        if let Some(p) = &self.package {
            parts.push(format!("pkg={p}"));
        }
        if let Some((p, c)) = &self.component {
            parts.push(format!("cmp={}", short_component(p, c)));
        }
        if self.extras {
            parts.push("(has extras)".into());
        }
        format!("Intent {{ {} }}", parts.join(" "))
    }
}

fn parse_intent(args: &[String]) -> Result<Intent, String> {
    let mut i = Intent::default();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut next = || {
            it.next()
                .cloned()
                .ok_or(format!("Error: No argument supplied for '{a}'"))
        };
        match a.as_str() {
            "-W" => i.wait = true,
            "-S"
            | "-R"
            | "-D"
            | "-N"
            | "--activity-clear-task"
            | "--activity-new-task"
            | "--activity-clear-top"
            | "--activity-single-top"
            | "--activity-no-history" => {}
            "-n" => {
                let c = next()?;
                let (p, cls) = c
                    .split_once('/')
                    .ok_or(format!("Error: Bad component name: {c}"))?;
                i.component = Some((p.to_string(), qualify(p, cls)));
            }
            "-a" => i.action = Some(next()?),
            "-d" => i.data = Some(next()?),
            "-c" => i.categories.push(next()?),
            "-t" => i.mime = Some(next()?),
            "-p" => i.package = Some(next()?),
            "-f" | "--user" | "--display" | "--windowingMode" | "--activityType" => {
                next()?;
            }
            "--es" | "--ei" | "--ez" | "--el" | "--ef" | "--eu" | "--ecn" | "--eia" | "--ela"
            | "--efa" | "--esa" | "--ed" => {
                let k = next()?;
                let v = next()?;
                let ok = match a.as_str() {
                    "--ei" => v.parse::<i32>().is_ok(),
                    "--el" => v.parse::<i64>().is_ok(),
                    "--ef" | "--ed" => v.parse::<f64>().is_ok(),
                    "--ez" => ["true", "false", "t", "f", "1", "0"]
                        .contains(&v.to_ascii_lowercase().as_str()),
                    _ => true,
                };
                if !ok {
                    return Err(format!(
                        "Exception occurred while executing 'start':\njava.lang.NumberFormatException: For input string: \"{v}\" (extra {k})"
                    ));
                }
                i.extras = true;
            }
            "--esn" => {
                next()?;
                i.extras = true;
            }
            s if s.starts_with('-') => return Err(format!("Error: Unknown option: {s}")),
            // `Intent.parseCommandArgs`: the base intent fills in only what the options left
            // unset (`Intent.fillIn`).
            arg if arg.contains(':') => {
                i.data.get_or_insert_with(|| arg.to_string());
            }
            arg if arg.contains('/') => {
                let (p, cls) = arg.split_once('/').unwrap_or((arg, ""));
                i.launcher_base();
                if i.component.is_none() {
                    i.component = Some((p.to_string(), qualify(p, cls)));
                }
            }
            pkg => {
                i.launcher_base();
                i.package.get_or_insert_with(|| pkg.to_string());
            }
        }
    }
    Ok(i)
}

/// Finds the screen to show and the component it belongs to.
enum Target {
    Screen(String),
    Launch(String),
}

fn resolve(ctx: &Ctx, i: &Intent) -> Option<(Target, String, String)> {
    let sc = &ctx.st.scenario;
    if let Some((pkg, cls)) = &i.component {
        let app = ctx.st.installed.get(pkg)?;
        if app.spec.launcher.as_deref() == Some(cls.as_str()) {
            return Some((Target::Launch(pkg.clone()), pkg.clone(), cls.clone()));
        }
        let s = sc
            .screens
            .iter()
            .find(|s| &s.package == pkg && &s.activity == cls)?;
        return Some((Target::Screen(s.id.clone()), pkg.clone(), cls.clone()));
    }
    if let Some(d) = &i.data {
        let s = sc.screens.iter().find(|s| {
            s.deep_link
                .as_ref()
                .is_some_and(|p| d.starts_with(p.as_str()))
                && ctx.st.installed.contains_key(&s.package)
                && i.package.as_ref().is_none_or(|p| *p == s.package)
        })?;
        return Some((
            Target::Screen(s.id.clone()),
            s.package.clone(),
            s.activity.clone(),
        ));
    }
    let pkg = i.package.as_ref()?;
    let app = ctx.st.installed.get(pkg)?;
    let l = app.spec.launcher.clone()?;
    Some((Target::Launch(pkg.clone()), pkg.clone(), l))
}

fn start(ctx: &mut Ctx, args: &[String]) -> i32 {
    let intent = match parse_intent(args) {
        Ok(i) => i,
        Err(e) => {
            ctx.errln(&e);
            return 255;
        }
    };
    ctx.outln(&format!("Starting: {}", intent.describe(false)));
    // `PrintWriter out = mWaitOption ? pw : getErrPrintWriter();`
    let say = |ctx: &mut Ctx, line: &str| {
        if intent.wait {
            ctx.outln(line);
        } else {
            ctx.errln(line);
        }
    };
    let Some((target, pkg, cls)) = resolve(ctx, &intent) else {
        if let Some((p, c)) = &intent.component {
            say(ctx, "Error type 3");
            say(
                ctx,
                &format!("Error: Activity class {{{p}/{c}}} does not exist."),
            );
        } else {
            say(
                ctx,
                &format!(
                    "Error: Activity not started, unable to resolve {}",
                    intent.describe(true)
                ),
            );
        }
        return 0;
    };
    let already_top = ctx.st.foreground() == (pkg.clone(), cls.clone());
    let cold = !ctx.st.processes.contains_key(&pkg);
    // A link that names something (`shop://product/7`) sets the screen's variable first.
    let bound = match (&target, &intent.data) {
        (Target::Screen(s), Some(d)) => ctx.st.bind_deep_link(s, d),
        _ => false,
    };
    if already_top {
        say(
            ctx,
            "Warning: Activity not started, intent has been delivered to currently running top-most instance.",
        );
        // Delivered to the activity in front (`onNewIntent`): it shows what the link names.
        if let Target::Screen(s) = &target
            && bound
            && ctx.st.top().is_some_and(|e| &e.screen != s)
        {
            ctx.st.show_screen(s);
        }
    } else {
        match target {
            Target::Launch(p) => {
                ctx.st.launch(&p);
            }
            Target::Screen(s) => {
                ctx.st.show_screen(&s);
            }
        }
    }
    if intent.wait {
        let (fpkg, fact) = ctx.st.foreground();
        ctx.outln("Status: ok");
        if already_top {
            ctx.outln("LaunchState: UNKNOWN (0)");
        } else {
            ctx.outln(if cold {
                "LaunchState: COLD"
            } else {
                "LaunchState: WARM"
            });
        }
        ctx.outln(&format!("Activity: {}", short_component(&fpkg, &fact)));
        if !already_top {
            let total = if cold { 412 } else { 138 };
            ctx.outln(&format!("TotalTime: {total}"));
            ctx.outln(&format!("WaitTime: {}", total + 4));
        } else {
            ctx.outln("WaitTime: 3");
        }
        ctx.outln("Complete");
    }
    0
}

pub fn am(ctx: &mut Ctx, args: &[String]) -> i32 {
    match args.get(1).map(String::as_str) {
        Some("start" | "start-activity") => start(ctx, &args[2..]),
        Some("force-stop" | "kill") => match args.iter().skip(2).find(|a| !a.starts_with('-')) {
            Some(p) => {
                let p = p.clone();
                ctx.st.force_stop(&p);
                0
            }
            None => {
                ctx.errln(&format!("Exception occurred while executing '{}':\njava.lang.IllegalArgumentException: Argument expected after \"{}\"", args[1], args[1]));
                255
            }
        },
        Some(other) => {
            ctx.errln(&format!("Unknown command: {other}"));
            255
        }
        None => {
            ctx.outln("Activity manager (activity) commands:\n  help\n      Print this help text.\n  start-activity [-D] [-N] [-W] [-P <FILE>] [--start-profiler <FILE>]\n          [--sampling INTERVAL] [--streaming] [-R COUNT] [-S]\n          [--track-allocation] [--user <USER_ID> | current] <INTENT>\n      Start an Activity.\n  force-stop [--user <USER_ID> | all | current] <PACKAGE>\n      Completely stop the given application package.");
            0
        }
    }
}

pub fn monkey(ctx: &mut Ctx, args: &[String]) -> i32 {
    let rest = &args[1.min(args.len())..];
    let mut pkgs = Vec::new();
    let mut cats = Vec::new();
    let mut count: Option<u32> = None;
    let mut it = rest.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "-p" => pkgs.extend(it.next().cloned()),
            "-c" => cats.extend(it.next().cloned()),
            "-v" | "--pct-syskeys" | "--throttle" | "-s" => {
                if a != "-v" {
                    it.next();
                }
            }
            n => count = n.parse().ok().or(count),
        }
    }
    for a in rest {
        ctx.outln(&format!("  bash arg: {a}"));
    }
    ctx.outln(&format!("args: [{}]", rest.join(", ")));
    for a in rest {
        ctx.outln(&format!(" arg: \"{a}\""));
    }
    for d in pkgs.iter().chain(cats.iter()) {
        ctx.outln(&format!("data=\"{d}\""));
    }
    let Some(count) = count else {
        ctx.errln("** Error: Count not specified");
        return 1;
    };
    let target = pkgs
        .iter()
        .find(|p| {
            ctx.st
                .installed
                .get(*p)
                .is_some_and(|a| a.spec.launcher.is_some())
        })
        .cloned();
    let Some(pkg) = target else {
        ctx.errln("** No activities found to run, monkey aborted.");
        return 252;
    };
    if count > 0 {
        ctx.st.launch(&pkg);
    }
    ctx.outln(&format!("Events injected: {count}"));
    ctx.outln("## Network stats: elapsed time=16ms (0ms mobile, 0ms wifi, 16ms not connected)");
    0
}
