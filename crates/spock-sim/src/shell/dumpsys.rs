//! `dumpsys SERVICE …`: activity, window, input, package, battery, connectivity, wifi, power, each
//! shaped like the real captures in `fixtures/dumpsys/`, and gfxinfo (each app's frame counts,
//! shaped as AOSP's source writes them: `dumpsys/gfxinfo.rs`).
use super::Ctx;

mod activity;
mod gfxinfo;
mod input;
mod net;
pub mod package;
mod window;

/// `ActivityRecord{hash u0 pkg/.Act} tN}`, exactly as Android 13 prints it (the stray `}`
/// is real: see activity-activities-android13-mtk.txt).
pub fn activity_record(hash: u32, component: &str, task: u32) -> String {
    format!("ActivityRecord{{{hash:x} u0 {component}}} t{task}}}")
}

pub fn dumpsys(ctx: &mut Ctx, args: &[String]) -> i32 {
    let rest = &args[2.min(args.len())..];
    match args.get(1).map(String::as_str) {
        Some("activity") => activity::activity(ctx, rest),
        Some("window") => window::window(ctx, rest),
        Some("input") => input::input(ctx),
        Some("package") => package::package(ctx, rest),
        Some("gfxinfo") => gfxinfo::gfxinfo(ctx, rest),
        Some("battery") => {
            ctx.out(BATTERY);
            0
        }
        Some("connectivity") => net::connectivity(ctx),
        Some("wifi") => net::wifi(ctx),
        Some("power") => {
            let awake = ctx.st.awake;
            ctx.outln("POWER MANAGER (dumpsys power)\n");
            ctx.outln("Power Manager State:");
            ctx.outln(&format!(
                "  mWakefulness={}",
                if awake { "Awake" } else { "Asleep" }
            ));
            ctx.outln(&format!(
                "  mWakefulnessChanging=false\n  mIsPowered=true\n  mPlugType=2\n  mStayOn={}",
                ctx.st.stay_on != "false"
            ));
            ctx.outln(&format!(
                "  Display Power: state={}",
                if awake { "ON" } else { "OFF" }
            ));
            0
        }
        Some("-l") | None => {
            ctx.outln("Currently running services:");
            for s in [
                "activity",
                "battery",
                "connectivity",
                "gfxinfo",
                "input",
                "package",
                "power",
                "wifi",
                "window",
            ] {
                ctx.outln(&format!("  {s}"));
            }
            0
        }
        Some(s) => {
            ctx.errln(&format!("Can't find service: {s}"));
            0
        }
    }
}

/// Same fields and layout as fixtures/dumpsys/battery.txt (a plugged-in, full device).
const BATTERY: &str = "Current Battery Service state:
  AC powered: false
  USB powered: true
  Wireless powered: false
  Dock powered: false
  Max charging current: 500000
 Time when the latest updated value of the Max charging current was sent via battery changed broadcast: +21s560ms
  Max charging voltage: 5000000
  Charge counter: 4120000
  status: 2
  health: 2
  present: true
  level: 87
  scale: 100
  voltage: 4312
 Time when the latest updated value of the voltage was sent via battery changed broadcast: +21s560ms
 The last voltage value sent via the battery changed broadcast: 4312
  temperature: 284
  technology: Li-ion
  Charging state: 0
  Charging policy: 0
  Capacity level: -1
";
