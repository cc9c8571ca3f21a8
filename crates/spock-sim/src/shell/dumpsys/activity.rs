//! `dumpsys activity activities` (task stack in the shape of
//! activity-activities-android13-mtk.txt, with `mResumedActivity`, `ResumedActivity`,
//! `topResumedActivity`, `mCurrentFocus`, `mFocusedApp`) and `dumpsys activity top` with the
//! `Added Fragments:` section AndroidX FragmentManager prints.
use super::super::Ctx;
use super::activity_record;
use crate::device::state::{Task, short_component};

fn task_line(ctx: &Ctx, t: &Task, top: bool) -> String {
    let uid = ctx.st.installed.get(&t.package).map_or(10000, |a| a.uid);
    let home = t.package == ctx.st.home.package;
    let root = t
        .stack
        .first()
        .and_then(|e| ctx.st.screen_spec(&e.screen))
        .map(|s| s.activity.clone())
        .unwrap_or_default();
    let kind = if home {
        format!("type=home I={}", short_component(&t.package, &root))
    } else {
        format!("type=standard A={uid}:{}", t.package)
    };
    format!(
        "Task{{{:x} #{} {kind} U=0 visible={top} visibleRequested={top} mode=fullscreen translucent=false sz={}}}",
        0x157c3a8u32.wrapping_add(t.id * 0x1111),
        t.id,
        t.stack.len()
    )
}

fn component_of(ctx: &Ctx, screen: &str) -> (String, String) {
    ctx.st
        .screen_spec(screen)
        .map(|s| (s.package.clone(), s.activity.clone()))
        .unwrap_or_default()
}

pub fn resumed_record(ctx: &Ctx) -> Option<String> {
    let t = ctx.st.tasks.last()?;
    let e = t.stack.last()?;
    let (p, a) = component_of(ctx, &e.screen);
    Some(activity_record(e.hash, &short_component(&p, &a), t.id))
}

fn activities(ctx: &mut Ctx) -> i32 {
    let mut o = String::from("ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)\n");
    o.push_str("Display #0 (activities from top to bottom):\n");
    let tasks: Vec<Task> = ctx.st.tasks.iter().rev().cloned().collect();
    for (ti, t) in tasks.iter().enumerate() {
        let top = ti == 0;
        o.push_str(&format!("  * {}\n", task_line(ctx, t, top)));
        if let Some(e) = t.stack.last() {
            let (p, a) = component_of(ctx, &e.screen);
            let rec = activity_record(e.hash, &short_component(&p, &a), t.id);
            let label = if top {
                "mResumedActivity"
            } else {
                "mLastPausedActivity"
            };
            o.push_str(&format!("    {label}: {rec}\n"));
        }
        for (i, e) in t.stack.iter().enumerate().rev() {
            let (p, a) = component_of(ctx, &e.screen);
            let comp = short_component(&p, &a);
            let resumed = top && i + 1 == t.stack.len();
            let app = ctx.st.installed.get(&p);
            let uid = app.map_or(10000, |a| a.uid);
            let proc = ctx
                .st
                .processes
                .get(&p)
                .map(|pr| {
                    format!(
                        "ProcessRecord{{{:x} {}:{p}/u0a{}}}",
                        e.hash ^ 0x5a5a5a,
                        pr.pid,
                        uid - 10000
                    )
                })
                .unwrap_or_else(|| "null".into());
            let base = app.map(crate::shell::pm::apk_path).unwrap_or_default();
            o.push_str(&format!(
                "    * Hist  #{i}: {}\n",
                activity_record(e.hash, &comp, t.id)
            ));
            o.push_str(&format!("      packageName={p} processName={p}\n"));
            o.push_str("      launchedFromUid=2000 launchedFromPackage=com.android.shell launchedFromFeature=null userId=0\n");
            o.push_str(&format!("      app={proc}\n"));
            if i == 0 {
                o.push_str(&format!("      Intent {{ act=android.intent.action.MAIN cat=[android.intent.category.LAUNCHER] flg=0x10200000 cmp={comp} }}\n"));
            } else {
                o.push_str(&format!("      Intent {{ cmp={comp} }}\n"));
            }
            o.push_str(&format!(
                "      rootOfTask={} task={}\n",
                i == 0,
                task_line(ctx, t, top)
            ));
            o.push_str(&format!("      taskAffinity={uid}:{p}\n"));
            o.push_str(&format!("      mActivityComponent={comp}\n"));
            o.push_str(&format!("      baseDir={base}\n"));
            o.push_str(&format!("      dataDir=/data/user/0/{p}\n"));
            let state = if resumed { "RESUMED" } else { "STOPPED" };
            o.push_str(&format!(
                "      state={state} stopped={} delayedResume=false finishing=false\n",
                !resumed
            ));
            o.push_str("      keysPaused=false inHistory=true idle=true\n");
            o.push_str(&format!(
                "      windows=[Window{{{:x} u0 {p}/{a}}}]\n",
                e.hash ^ 0x333
            ));
            o.push_str(&format!("      mVisibleRequested={resumed} mVisible={resumed} mClientVisible={resumed} reportedDrawn={resumed} reportedVisible={resumed}\n"));
            o.push_str(&format!(
                "      nowVisible={resumed} lastVisibleTime=-1m2s300ms\n"
            ));
        }
        o.push('\n');
    }
    let rec = resumed_record(ctx).unwrap_or_default();
    o.push_str("  Resumed activities in task display areas (from top to bottom):\n");
    o.push_str(&format!("    Resumed: {rec}\n\n"));
    o.push_str(&format!("  ResumedActivity: {rec}\n\n"));
    o.push_str("ActivityTaskSupervisor state:\n");
    if let Some(t) = tasks.first() {
        o.push_str(&format!(
            "  topDisplayFocusedRootTask={}\n",
            task_line(ctx, t, true)
        ));
    }
    o.push_str(&format!("  topResumedActivity={rec}\n"));
    display_lines(ctx, &mut o);
    o.push('\n');
    o.push_str(&format!("  mCurrentFocus={}\n", focus_window(ctx)));
    o.push_str(&format!("  mFocusedApp={rec}\n\n"));
    o.push_str("  isHomeRecentsComponent=true\n");
    ctx.out(&o);
    0
}

/// `Window{hash u0 pkg/full.Activity}` of the resumed activity.
/// The display's two lines, as both `dumpsys activity` and `dumpsys window displays` print them.
pub fn display_lines(ctx: &Ctx, o: &mut String) {
    let d = &ctx.st.scenario.device;
    o.push_str(&format!(
        "  Display: mDisplayId=0 rootTasks={}\n",
        ctx.st.tasks.len()
    ));
    // `init` is the natural size; `cur` and `app` turn with the display.
    let (cw, ch) = ctx.st.display().size();
    o.push_str(&format!(
        "    init={w}x{h} {dpi}dpi mMinSizeOfResizeableTaskDp=220 cur={cw}x{ch} app={cw}x{ah} rng={w}x{rw}-{h}x{rh}\n",
        w = d.width,
        h = d.height,
        dpi = d.density,
        ah = ch.saturating_sub(63),
        rw = d.width.saturating_sub(63),
        rh = d.height.saturating_sub(63)
    ));
}

pub fn focus_window(ctx: &Ctx) -> String {
    match ctx.st.top() {
        Some(e) => {
            let (p, a) = component_of(ctx, &e.screen);
            format!("Window{{{:x} u0 {p}/{a}}}", e.hash ^ 0x333)
        }
        None => "null".into(),
    }
}

fn top(ctx: &mut Ctx) -> i32 {
    let Some(t) = ctx.st.tasks.last().cloned() else {
        return 0;
    };
    let Some(e) = t.stack.last().cloned() else {
        return 0;
    };
    let spec = ctx.st.screen_spec(&e.screen).cloned();
    let Some(spec) = spec else { return 0 };
    let uid = ctx.st.installed.get(&t.package).map_or(10000, |a| a.uid);
    let pid = ctx.st.processes.get(&t.package).map_or(0, |p| p.pid);
    let comp = short_component(&spec.package, &spec.activity);
    let simple = spec.activity.rsplit('.').next().unwrap_or("").to_string();
    let mut o = format!("TASK {uid}:{} id={} userId=0\n", t.package, t.id);
    o.push_str(&format!("  ACTIVITY {comp} {:x} pid={pid}\n", e.hash));
    let local = if spec.fragments.is_empty() {
        "Activity"
    } else {
        "FragmentActivity"
    };
    o.push_str(&format!("    Local {local} {:x} State:\n", e.hash ^ 0x77));
    o.push_str("      mResumed=true mStopped=false mFinished=false\n");
    o.push_str("      mIsInMultiWindowMode=false\n");
    o.push_str("      mIsInPictureInPictureMode=false\n");
    o.push_str("      mChangingConfigurations=false\n");
    if !spec.fragments.is_empty() {
        o.push_str("      FragmentManager misc state:\n");
        o.push_str(&format!(
            "        mHost=androidx.fragment.app.FragmentActivity$HostCallbacks@{:x}\n",
            e.hash ^ 0x99
        ));
        o.push_str("        mCurState=7 mStateSaved=false mStopped=false mDestroyed=false\n");
        o.push_str("      Active Fragments:\n");
        let frags: Vec<(String, String)> = spec
            .fragments
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let h = e.hash.wrapping_mul(31).wrapping_add(i as u32) & 0x0fff_ffff;
                let who = format!("{h:08x}-9a1c-4e2b-8f3d-{:012x}", u64::from(h) * 7919);
                (
                    format!("{f}{{{h:x}}} ({who} id=0x7f0a{:04x})", 0x100 + i),
                    who,
                )
            })
            .collect();
        for (f, who) in &frags {
            o.push_str(&format!("        {f}\n"));
            o.push_str(&format!(
                "          mState=7 mWho={who} mBackStackNesting=0\n"
            ));
            o.push_str("          mAdded=true mRemoving=false mFromLayout=false mInLayout=false\n");
        }
        o.push_str("      Added Fragments:\n");
        for (i, (f, _)) in frags.iter().enumerate() {
            o.push_str(&format!("        #{i}: {f}\n"));
        }
    }
    o.push_str("    ViewRoot:\n");
    o.push_str("      mAdded=true mRemoved=false mStopped=false mPausedForTransition=false\n");
    o.push_str("    View Hierarchy:\n");
    o.push_str(&format!(
        "      DecorView@{:x}[{simple}]\n",
        e.hash ^ 0x1234
    ));
    ctx.out(&o);
    0
}

pub fn activity(ctx: &mut Ctx, args: &[String]) -> i32 {
    match args.first().map(String::as_str) {
        Some("activities" | "a") => activities(ctx),
        Some("top") => top(ctx),
        None => {
            activities(ctx);
            0
        }
        Some(other) => {
            // Same two lines as fixtures/dumpsys/activity-bad-command.txt.
            ctx.outln(&format!(
                "Bad activity command, or no activities match: {other}"
            ));
            ctx.outln("Use -h for help.");
            0
        }
    }
}
