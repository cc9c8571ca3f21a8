//! `dumpsys package PKG` in the layout of package-single-wearos.txt: resolver table entries
//! for the app's activities (launcher, deep links), `Packages:` with versions, flags
//! (`DEBUGGABLE` when the scenario says so), code path, requested / install / runtime
//! permissions with `granted=`; `Unable to find package: PKG` otherwise (package-not-found.txt).
use super::super::Ctx;
use crate::device::state::short_component;
use crate::shell::pm::code_path;

/// Runtime ("dangerous") permissions are granted per user and can be revoked; the rest are
/// install-time and always granted.
pub fn is_runtime(perm: &str) -> bool {
    const RUNTIME: &[&str] = &[
        "CAMERA",
        "RECORD_AUDIO",
        "POST_NOTIFICATIONS",
        "ACCESS_FINE_LOCATION",
        "ACCESS_COARSE_LOCATION",
        "ACCESS_BACKGROUND_LOCATION",
        "READ_CONTACTS",
        "WRITE_CONTACTS",
        "READ_CALENDAR",
        "WRITE_CALENDAR",
        "READ_PHONE_STATE",
        "CALL_PHONE",
        "READ_SMS",
        "SEND_SMS",
        "READ_EXTERNAL_STORAGE",
        "WRITE_EXTERNAL_STORAGE",
        "READ_MEDIA_IMAGES",
        "READ_MEDIA_VIDEO",
        "READ_MEDIA_AUDIO",
        "BODY_SENSORS",
        "ACTIVITY_RECOGNITION",
        "BLUETOOTH_CONNECT",
        "BLUETOOTH_SCAN",
        "NEARBY_WIFI_DEVICES",
    ];
    perm.strip_prefix("android.permission.")
        .is_some_and(|p| RUNTIME.contains(&p))
}

pub fn package(ctx: &mut Ctx, args: &[String]) -> i32 {
    let Some(pkg) = args.iter().find(|a| !a.starts_with('-')).cloned() else {
        ctx.outln("Packages:");
        let names: Vec<String> = ctx.st.installed.keys().cloned().collect();
        for n in names {
            ctx.outln(&format!("  Package [{n}]"));
        }
        return 0;
    };
    let Some(app) = ctx.st.installed.get(&pkg).cloned() else {
        ctx.outln(&format!("Unable to find package: {pkg}"));
        return 0;
    };
    let s = &app.spec;
    let h = |salt: u32| (app.uid.wrapping_mul(0x9e37_79b1) ^ salt) & 0x0fff_ffff;
    let mut o = String::from("Activity Resolver Table:\n");
    if let Some(l) = &s.launcher {
        o.push_str("  Non-Data Actions:\n      android.intent.action.MAIN:\n");
        o.push_str(&format!(
            "        {:x} {} filter {:x}\n",
            h(1),
            short_component(&pkg, l),
            h(2)
        ));
        o.push_str("          Action: \"android.intent.action.MAIN\"\n");
        o.push_str("          Category: \"android.intent.category.LAUNCHER\"\n");
    }
    let links: Vec<(String, String)> = ctx
        .st
        .scenario
        .screens
        .iter()
        .filter(|sc| sc.package == pkg)
        .filter_map(|sc| sc.deep_link.clone().map(|d| (d, sc.activity.clone())))
        .collect();
    if !links.is_empty() {
        o.push_str("  Schemes:\n");
        for (i, (link, act)) in links.iter().enumerate() {
            let (scheme, rest) = link.split_once("://").unwrap_or((link.as_str(), ""));
            let host = rest.split('/').next().unwrap_or("");
            o.push_str(&format!("      {scheme}:\n"));
            o.push_str(&format!(
                "        {:x} {} filter {:x}\n",
                h(10 + i as u32),
                short_component(&pkg, act),
                h(20 + i as u32)
            ));
            o.push_str("          Action: \"android.intent.action.VIEW\"\n");
            o.push_str("          Category: \"android.intent.category.DEFAULT\"\n");
            o.push_str("          Category: \"android.intent.category.BROWSABLE\"\n");
            o.push_str(&format!("          Scheme: \"{scheme}\"\n"));
            if !host.is_empty() {
                o.push_str(&format!("          Authority: \"{host}\": -1\n"));
            }
        }
    }
    o.push_str(&format!(
        "\nKey Set Manager:\n  [{pkg}]\n      Signing KeySets: {}\n\n",
        30 + app.uid % 7
    ));
    let cp = code_path(&app);
    let mut flags = vec!["HAS_CODE", "ALLOW_CLEAR_USER_DATA", "ALLOW_BACKUP"];
    if s.system {
        flags.insert(0, "SYSTEM");
    }
    if s.debuggable {
        flags.push("DEBUGGABLE");
    }
    let flags = format!("[ {} ]", flags.join(" "));
    o.push_str("Packages:\n");
    o.push_str(&format!("  Package [{pkg}] ({:x}):\n", h(3)));
    o.push_str(&format!("    userId={}\n", app.uid));
    o.push_str(&format!("    pkg=Package{{{:x} {pkg}}}\n", h(4)));
    o.push_str(&format!(
        "    codePath={cp}\n    resourcePath={cp}\n    legacyNativeLibraryDir={cp}/lib\n"
    ));
    o.push_str("    primaryCpuAbi=arm64-v8a\n    secondaryCpuAbi=null\n");
    o.push_str(&format!(
        "    versionCode={} minSdk=26 targetSdk={}\n",
        s.version_code, ctx.st.scenario.device.sdk
    ));
    o.push_str(&format!("    versionName={}\n", s.version_name));
    o.push_str("    splits=[base]\n    apkSigningVersion=2\n");
    o.push_str(&format!(
        "    applicationInfo=ApplicationInfo{{{:x} {pkg}}}\n",
        h(4)
    ));
    o.push_str(&format!("    flags={flags}\n"));
    o.push_str("    privateFlags=[ PRIVATE_FLAG_ACTIVITIES_RESIZE_MODE_RESIZEABLE_VIA_SDK_VERSION ALLOW_AUDIO_PLAYBACK_CAPTURE PRIVATE_FLAG_ALLOW_NATIVE_HEAP_POINTER_TAGGING ]\n");
    o.push_str("    forceQueryable=false\n    queriesPackages=[]\n");
    o.push_str(&format!("    dataDir=/data/user/0/{pkg}\n"));
    o.push_str("    supportsScreens=[small, medium, large, xlarge, resizeable, anyDensity]\n");
    o.push_str("    timeStamp=2024-03-01 10:15:42\n    firstInstallTime=2024-03-01 10:15:43\n    lastUpdateTime=2024-03-01 10:15:43\n");
    o.push_str(&format!(
        "    installerPackageName={}\n",
        if s.system {
            "null"
        } else {
            "com.android.shell"
        }
    ));
    o.push_str(&format!("    signatures=PackageSignatures{{{:x} version:2, signatures:[{:x}], past signatures:[]}}\n", h(5), h(6)));
    o.push_str("    installPermissionsFixed=true\n");
    o.push_str(&format!("    pkgFlags={flags}\n"));
    o.push_str("    requested permissions:\n");
    for p in app.permissions.keys() {
        o.push_str(&format!("      {p}\n"));
    }
    let install: Vec<(&String, &bool)> = app
        .permissions
        .iter()
        .filter(|(p, _)| !is_runtime(p))
        .collect();
    if !install.is_empty() {
        o.push_str("    install permissions:\n");
        for (p, _) in install {
            o.push_str(&format!("      {p}: granted=true\n"));
        }
    }
    o.push_str(&format!("    User 0: ceDataInode={} installed=true hidden=false suspended=false distractionFlags=0 stopped=false notLaunched=false enabled=0 instant=false virtual=false\n", 2135 + app.uid % 1000));
    let runtime: Vec<(&String, &bool)> = app
        .permissions
        .iter()
        .filter(|(p, _)| is_runtime(p))
        .collect();
    if !runtime.is_empty() {
        o.push_str("      runtime permissions:\n");
        for (p, g) in runtime {
            let flags = if *g {
                "USER_SET|USER_SENSITIVE_WHEN_GRANTED|USER_SENSITIVE_WHEN_DENIED"
            } else {
                "USER_SENSITIVE_WHEN_GRANTED|USER_SENSITIVE_WHEN_DENIED"
            };
            o.push_str(&format!("        {p}: granted={g}, flags=[ {flags}]\n"));
        }
    }
    o.push_str(&format!("\nDexopt state:\n  [{pkg}]\n    path: {}\n      arm64: [status=speed-profile] [reason=install-dm]\n", crate::shell::pm::apk_path(&app)));
    ctx.out(&o);
    0
}
