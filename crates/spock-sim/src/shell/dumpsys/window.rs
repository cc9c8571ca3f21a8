//! `dumpsys window [windows|displays]`: window blocks in the layout of
//! window-windows-vivo.txt, then the display section that carries `mCurrentFocus` and
//! `mFocusedApp` (modern Android prints those under `dumpsys window displays`, not `windows`).
use super::super::Ctx;
use super::activity::{display_lines, focus_window, resumed_record};

struct Win<'a> {
    n: usize,
    title: &'a str,
    owner: &'a str,
    uid: u32,
    ty: u32,
    frame: (u32, u32, u32, u32),
    visible: bool,
}

fn window_block(o: &mut String, w: Win) {
    let Win {
        n,
        title,
        owner,
        uid,
        ty,
        frame,
        visible,
    } = w;
    o.push_str(&format!("  Window #{n} {title}:\n"));
    o.push_str(&format!(
        "    mDisplayId=0 mSession=Session{{{:x} {}:u0a{}}} mClient=android.os.BinderProxy@{:x}\n",
        0xddd7669u32 ^ (n as u32 * 0x1f1f),
        1820 + n,
        uid.saturating_sub(10000),
        0x8503fbfu32 ^ (n as u32 * 0x3b3b)
    ));
    o.push_str(&format!(
        "    mOwnerUid={uid} showForAllUsers=false package={owner} appop=NONE\n"
    ));
    o.push_str(&format!(
        "    mAttrs={{(0,0)(fillxfill) sim={{adjust=pan}} ty={} fmt=TRANSLUCENT\n",
        if ty == 1 {
            "BASE_APPLICATION"
        } else {
            "STATUS_BAR"
        }
    ));
    o.push_str("      fl=LAYOUT_IN_SCREEN LAYOUT_INSET_DECOR SPLIT_TOUCH HARDWARE_ACCELERATED DRAWS_SYSTEM_BAR_BACKGROUNDS\n");
    o.push_str("      bhv=DEFAULT}\n");
    o.push_str(&format!(
        "    Requested w={} h={} mLayoutSeq=28926\n",
        frame.2 - frame.0,
        frame.3 - frame.1
    ));
    o.push_str(&format!(
        "    mHasSurface={visible} isReadyForDisplay()={visible} mWindowRemovalAllowed=false\n"
    ));
    o.push_str(&format!(
        "    Frames: parent=[{a},{b}][{c},{d}] display=[{a},{b}][{c},{d}] frame=[{a},{b}][{c},{d}] last=[{a},{b}][{c},{d}] insetsChanged=false\n",
        a = frame.0,
        b = frame.1,
        c = frame.2,
        d = frame.3
    ));
    o.push_str(&format!(
        "    isOnScreen={visible}\n    isVisible={visible}\n"
    ));
}

fn windows(ctx: &Ctx, o: &mut String) {
    let d = ctx.st.scenario.device.clone();
    let disp = ctx.st.display();
    let (dw, dh) = disp.size();
    o.push_str("WINDOW MANAGER WINDOWS (dumpsys window windows)\n");
    window_block(
        o,
        Win {
            n: 0,
            title: "Window{com.android.systemui:29edd63 u0 StatusBar type=2000 }",
            owner: "com.android.systemui",
            uid: 10186,
            ty: 2000,
            frame: (0, 0, dw, 63),
            visible: true,
        },
    );
    let mut n = 1;
    for t in ctx.st.tasks.iter().rev() {
        for (i, e) in t.stack.iter().enumerate().rev() {
            let Some(s) = ctx.st.screen_spec(&e.screen) else {
                continue;
            };
            let uid = ctx.st.installed.get(&s.package).map_or(10000, |a| a.uid);
            let visible = n == 1 && i + 1 == t.stack.len();
            let title = format!(
                "Window{{{:x} u0 {}/{} type=1 }}",
                e.hash ^ 0x333,
                s.package,
                s.activity
            );
            window_block(
                o,
                Win {
                    n,
                    title: &title,
                    owner: &s.package,
                    uid,
                    ty: 1,
                    frame: (0, 0, dw, dh),
                    visible,
                },
            );
            n += 1;
        }
    }
    let dp = |px: u32| px * 160 / d.density.max(1);
    o.push_str(&format!("  mGlobalConfiguration={{1.0 ?mcc?mnc [en_US] ldltr sw{sw}dp w{wd}dp h{hd}dp {dpi}dpi nrml long {orient} finger -keyb/v/h -nav/h}}\n",
        sw = dp(d.width.min(d.height)), wd = dp(dw), hd = dp(dh), dpi = d.density,
        orient = if dw > dh { "land" } else { "port" }));
    o.push_str("  mHasPermanentDpad=false\n  mTopFocusedDisplayId=0\n");
    o.push_str(&format!(
        "  mSystemBooted=true mDisplayEnabled=true\n  mRotation={}\n  mLastOrientation=-1\n",
        disp.rotation
    ));
}

fn displays(ctx: &Ctx, o: &mut String) {
    o.push_str("WINDOW MANAGER DISPLAY CONTENTS (dumpsys window displays)\n");
    display_lines(ctx, o);
    o.push_str(&format!("  mCurrentFocus={}\n", focus_window(ctx)));
    o.push_str(&format!(
        "  mFocusedApp={}\n",
        resumed_record(ctx).unwrap_or_else(|| "null".into())
    ));
}

pub fn window(ctx: &mut Ctx, args: &[String]) -> i32 {
    let mut o = String::new();
    match args.first().map(String::as_str) {
        Some("windows" | "w") => windows(ctx, &mut o),
        Some("displays" | "d") => displays(ctx, &mut o),
        _ => {
            windows(ctx, &mut o);
            o.push_str(
                "-------------------------------------------------------------------------------\n",
            );
            displays(ctx, &mut o);
        }
    }
    ctx.out(&o);
    0
}
