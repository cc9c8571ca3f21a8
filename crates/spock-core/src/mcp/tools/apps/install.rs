//! `android_install_app`: an APK from the selected project's build outputs or the pull
//! directory (the push sources, opened the same way: `guard::open_local_source`), pushed to
//! the device over the sync protocol and installed with `pm install`.
//!
//! The APK's own manifest says which package and version it is, read before anything is sent
//! (`device::parse::apk`). A package the device does not have is a new install: a safe action.
//! Replacing an installed app (its data stays, its code does not come back) makes the call
//! destructive, so the person is asked; a downgrade is refused unless `allowDowngrade` is set,
//! and then asked too. The result names the package and version the device now reports.
use std::path::Path;

use bytes::Bytes;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::device::Device;
use crate::device::parse::apk::{ApkInfo, read_apk};
use crate::guard::shell_quote;
use crate::mcp::claims::Target;
use crate::mcp::ctx::Ctx;
use crate::mcp::result::ToolError;
use crate::mcp::tools::files::{
    approved_bytes, device_key, keep_for_approval, stage_source, staged_or_read, transfer_timeout,
};

#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct InstallArgs {
    pub serial: Option<String>,
    /// The .apk, under the project (e.g. app/build/outputs/apk/debug/app-debug.apk) or the pull
    /// directory.
    pub apk_path: String,
    /// Install an older version over a newer one (`pm install -d`); the person is asked.
    #[serde(default)]
    pub allow_downgrade: bool,
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct InstalledOut {
    pub serial: String,
    pub package: String,
    /// The version the device reports now.
    pub version_code: Option<u64>,
    pub version_name: Option<String>,
    /// The version it replaced, when the app was installed already.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replaced_version_code: Option<u64>,
    pub apk_path: String,
    pub bytes: u64,
    pub sha256: String,
}

/// What the manifest of the APK read from `source` says, its package name checked.
fn apk_info(source: &Path, data: &[u8]) -> Result<ApkInfo, ToolError> {
    let info = read_apk(data)
        .map_err(|e| ToolError::invalid_args(format!("{}: {e}", source.display())))?;
    crate::guard::package_name(&info.package)
        .map_err(|r| ToolError::refused(format!("the APK's package name is refused: {r}")))?;
    Ok(info)
}

fn check_apk_path(path: &str) -> Result<(), ToolError> {
    if path.ends_with(".apk") {
        return Ok(());
    }
    Err(ToolError::invalid_args(format!(
        "{path} is not an .apk (android_install_app installs APK files)"
    )))
}

/// The installed version code of `pkg`, or `None` when the device does not have it.
async fn installed_code(ctx: &Ctx, dev: &Device, pkg: &str) -> Result<Option<u64>, ToolError> {
    let out = ctx
        .sh_ok(
            dev,
            &format!("pm list packages --show-versioncode {}", shell_quote(pkg)),
        )
        .await?;
    Ok(out.lines().find_map(|l| {
        let rest = l.trim().strip_prefix("package:")?;
        let (name, code) = rest.split_once(" versionCode:")?;
        (name == pkg).then(|| code.trim().parse().ok()).flatten()
    }))
}

fn downgrade_refusal(info: &ApkInfo, old: u64) -> ToolError {
    ToolError::refused(format!(
        "{} {} (versionCode {}) is older than the installed versionCode {old}: pass \
         allowDowngrade: true to install it anyway (the person is asked)",
        info.package,
        info.version_name.as_deref().unwrap_or("?"),
        info.version_code
    ))
}

/// A new install is safe; replacing what is installed asks, a downgrade only when allowed.
/// The APK is read here, once: the person is shown the package, version, size and digest of
/// exactly the bytes the install then sends.
pub async fn install_escalation(ctx: Ctx, a: InstallArgs) -> Result<Option<String>, ToolError> {
    check_apk_path(&a.apk_path)?;
    let staged = stage_source(&ctx, &a.apk_path).await?;
    let data = staged
        .in_memory()
        .ok_or_else(|| ToolError::internal("the APK was read before its manifest"))?;
    let info = apk_info(&staged.source, data)?;
    let dev = ctx.device(a.serial.as_deref()).await?;
    let Some(old) = installed_code(&ctx, &dev, &info.package).await? else {
        ctx.staged.put(staged);
        return Ok(None);
    };
    if info.version_code < old && !a.allow_downgrade {
        return Err(downgrade_refusal(&info, old));
    }
    let how = if info.version_code < old {
        "downgrades"
    } else {
        "replaces"
    };
    let why = format!(
        "{how} the installed {} (versionCode {old}) on {} with {} versionCode {}{} from {} ({}): \
         the app's code now on the device cannot be brought back",
        info.package,
        dev.serial(),
        info.package,
        info.version_code,
        info.version_name
            .as_deref()
            .map(|n| format!(" (versionName {n})"))
            .unwrap_or_default(),
        staged.source.display(),
        staged.describe()
    );
    ctx.staged.put(keep_for_approval(&ctx, staged).await?);
    Ok(Some(why))
}

pub async fn install(ctx: Ctx, a: InstallArgs) -> Result<InstalledOut, ToolError> {
    check_apk_path(&a.apk_path)?;
    let staged = staged_or_read(&ctx, &a.apk_path).await?;
    let (staged, data) = approved_bytes(staged).await?;
    let info = apk_info(&staged.source, &data)?;
    let dev = ctx.device(a.serial.as_deref()).await?;
    // Nothing else of ours installs this package between the last look and the install: a
    // second install of the same new package waits here, then finds it and asks.
    let _claim = ctx
        .core
        .sessions
        .claims
        .claim(&device_key(&ctx, &dev), Target::Package(&info.package))
        .await;
    let old = installed_code(&ctx, &dev, &info.package).await?;
    if let Some(old) = old {
        if info.version_code < old && !a.allow_downgrade {
            return Err(downgrade_refusal(&info, old));
        }
        if !ctx.approved {
            return Err(ToolError::refused(format!(
                "refused: {} appeared on {} while this call was being checked; nothing was \
                 replaced. Call again to replace it (the person is asked).",
                info.package,
                dev.serial()
            )));
        }
    }
    let (bytes, sha256) = (staged.len, staged.sha256.clone());
    let source = staged.source.clone();
    drop(staged);
    let remote = format!("/data/local/tmp/spock-install-{}.apk", &sha256[..16]);
    // Streamed to the device; a request with a progressToken hears "install of …: n of m bytes".
    let pushing = dev.push(
        Bytes::from(data),
        &remote,
        0o644,
        transfer_timeout(&ctx, bytes),
    );
    crate::progress::transfer(format!("install of {}", info.package), bytes, pushing).await?;
    let flags = if a.allow_downgrade { "-r -d" } else { "-r" };
    let out = ctx
        .sh_timeout(
            &dev,
            &format!("pm install {flags} {}", shell_quote(&remote)),
            transfer_timeout(&ctx, bytes),
        )
        .await;
    // The staged copy goes whatever happened.
    let _ = ctx
        .sh(&dev, &format!("rm -f {}", shell_quote(&remote)))
        .await;
    let out = out?;
    let text = format!("{}\n{}", out.stdout_text(), out.stderr_text());
    if !text.lines().any(|l| l.trim() == "Success") {
        let why = text
            .lines()
            .find(|l| l.contains("Failure") || l.contains("Error"))
            .unwrap_or_else(|| text.trim());
        return Err(ToolError::device(format!(
            "pm install of {} on {} failed: {}",
            info.package,
            dev.serial(),
            why.trim()
        )));
    }
    let now = installed_code(&ctx, &dev, &info.package).await?;
    Ok(InstalledOut {
        serial: dev.serial().to_string(),
        package: info.package,
        version_code: now,
        version_name: info.version_name,
        replaced_version_code: old,
        apk_path: source.display().to_string(),
        bytes,
        sha256,
    })
}
