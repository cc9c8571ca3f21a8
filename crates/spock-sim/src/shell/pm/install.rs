//! `pm install PATH` (also `cmd package install`): the APK is read first, as
//! `PackageManagerShellCommand.setParamsSize` reads it (`super::apk`, the phone's lite parse),
//! then installed or replaced with the shell command's answers: `Success`, or
//! `Failure [INSTALL_FAILED_VERSION_DOWNGRADE: …]` for an older version without `-d`.
//! A file that cannot be opened or parsed fails there, before any session, as an
//! `IllegalArgumentException` out of the shell command (exit status 255):
//! `Error: Can't open file: PATH`, or `Error: Failed to parse APK file: PATH: REASON` with the
//! parse's own reason (yaap/frameworks_base `services/core/java/com/android/server/pm/
//! PackageManagerShellCommand.java` @3ddcaa00537ad17c17a59c73990d12441d689aaf). The
//! `Failure [INSTALL_PARSE_FAILED_…: Failed to parse /data/app/vmdl….tmp/base.apk: …]` lines
//! are what a streamed `adb install` sees; `pm install PATH` never gets that far.
use super::Ctx;
use super::apk::{self, ParseFailure};
use crate::device::state::InstalledApp;
use crate::scenario::AppSpec;

/// `pm install [-r] [-d] [-t] [-g] [-i PKG] PATH` (also `cmd package install`).
pub fn install(ctx: &mut Ctx, args: &[&str]) -> i32 {
    let mut downgrade = false;
    let mut path = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match *a {
            "-d" => downgrade = true,
            "-i" | "--user" | "--install-location" | "-S" => {
                it.next();
            }
            s if s.starts_with('-') => {}
            p => path = Some(p.to_string()),
        }
    }
    let Some(path) = path else {
        ctx.errln("Error: must either specify a package size or an APK file");
        return 1;
    };
    let data = match ctx.st.fs.read(&path) {
        Ok(d) => d,
        Err(_) => {
            let msg = format!("Error: Can't open file: {path}");
            ctx.errln(&msg);
            return refused(ctx, &msg);
        }
    };
    let info = match apk::parse(&data) {
        Ok(i) => i,
        Err(f) => return unparsable(ctx, &path, &f),
    };
    if let Some(old) = ctx.st.installed.get(&info.package)
        && old.spec.version_code > info.long_version_code
        && !downgrade
    {
        ctx.outln(&format!(
            "Failure [INSTALL_FAILED_VERSION_DOWNGRADE: Downgrade detected: Update version code {} is older than current {}]",
            info.long_version_code, old.spec.version_code
        ));
        return 1;
    }
    let uid = ctx
        .st
        .installed
        .get(&info.package)
        .map_or_else(|| 10150 + ctx.st.installed.len() as u32 + 50, |a| a.uid);
    let previous = ctx.st.installed.get(&info.package).map(|a| a.spec.clone());
    let spec = AppSpec {
        package: info.package.clone(),
        label: previous
            .as_ref()
            .map_or_else(|| info.package.clone(), |p| p.label.clone()),
        version_name: info.version_name.clone().unwrap_or_default(),
        version_code: info.long_version_code,
        ..previous.unwrap_or(AppSpec {
            package: String::new(),
            label: String::new(),
            launcher: None,
            version_name: String::new(),
            version_code: 0,
            debuggable: false,
            system: false,
            permissions: Default::default(),
            first_screen: None,
            functions: Vec::new(),
            data: Default::default(),
        })
    };
    ctx.st.force_stop(&info.package);
    let permissions = spec.permissions.clone();
    let code_hash = crate::device::state::code_hash(&info.package);
    ctx.st.installed.insert(
        info.package.clone(),
        InstalledApp {
            spec,
            uid,
            permissions,
            code_hash,
        },
    );
    ctx.outln("Success");
    0
}

/// What `setParamsSize` throws, as `ShellCommand.exec` prints it.
fn refused(ctx: &mut Ctx, msg: &str) -> i32 {
    super::exception(
        ctx,
        "install",
        &format!("java.lang.IllegalArgumentException: {msg}"),
    )
}

fn unparsable(ctx: &mut Ctx, path: &str, f: &ParseFailure) -> i32 {
    let msg = format!(
        "Error: Failed to parse APK file: {path}: {}",
        f.message(path)
    );
    refused(ctx, &msg)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use bytes::Bytes;
    use tokio::sync::mpsc;

    use crate::device::SimDevice;
    use crate::{ShellChunk, ShellIo, Target};

    const TODO: &[u8] = include_bytes!("../../../../../tests/fixtures/apk/aapt2-todo.apk");
    const SHOP: &[u8] = include_bytes!("../../../../../tests/fixtures/apk/aapt2-shop.apk");

    /// Exit status, stdout, stderr.
    async fn sh(dev: &SimDevice, cmd: &str) -> (i32, String, String) {
        let (_stdin_tx, stdin) = mpsc::channel(1);
        let (tx, mut rx) = mpsc::channel(64);
        let run = dev.shell(cmd.to_string(), ShellIo { stdin, out: tx });
        let code = tokio::time::timeout(Duration::from_secs(20), run)
            .await
            .expect("shell command timed out");
        let (mut out, mut err) = (Vec::new(), Vec::new());
        while let Ok(chunk) = rx.try_recv() {
            match chunk {
                ShellChunk::Stdout(b) => out.extend_from_slice(&b),
                ShellChunk::Stderr(b) => err.extend_from_slice(&b),
            }
        }
        let text = |b: Vec<u8>| String::from_utf8(b).unwrap();
        (code, text(out), text(err))
    }

    #[tokio::test]
    async fn pm_install_takes_an_aapt_build_and_answers_as_android_does() {
        let dev = SimDevice::demo();
        dev.with_state(|st| {
            for (path, data) in [
                ("/data/local/tmp/todo.apk", TODO),
                ("/data/local/tmp/shop.apk", SHOP),
                ("/data/local/tmp/bad.apk", b"not a zip".as_slice()),
            ] {
                st.fs
                    .write(path, 0o644, 0, Bytes::from_static(data))
                    .unwrap();
            }
        });
        let r = sh(&dev, "pm install -r /data/local/tmp/todo.apk").await;
        assert_eq!(r, (0, "Success\n".into(), String::new()));
        let (_, out, _) = sh(&dev, "pm list packages --show-versioncode todo").await;
        assert_eq!(out, "package:com.example.todo versionCode:42\n");

        // The demo's shop is versionCode 142; the APK's is 7.
        let r = sh(&dev, "pm install -r /data/local/tmp/shop.apk").await;
        assert_eq!(
            r,
            (
                1,
                "Failure [INSTALL_FAILED_VERSION_DOWNGRADE: Downgrade detected: Update version \
                 code 7 is older than current 142]\n"
                    .into(),
                String::new()
            )
        );

        let r = sh(&dev, "pm install /data/local/tmp/bad.apk").await;
        assert_eq!(
            r,
            (
                255,
                String::new(),
                "Exception occurred while executing 'install':\n\
                 java.lang.IllegalArgumentException: Error: Failed to parse APK file: \
                 /data/local/tmp/bad.apk: Failed to parse /data/local/tmp/bad.apk\n"
                    .into()
            )
        );
        let r = sh(&dev, "pm install /data/local/tmp/gone.apk").await;
        assert_eq!(
            r,
            (
                255,
                String::new(),
                "Error: Can't open file: /data/local/tmp/gone.apk\n\
                 Exception occurred while executing 'install':\n\
                 java.lang.IllegalArgumentException: Error: Can't open file: \
                 /data/local/tmp/gone.apk\n"
                    .into()
            )
        );
    }
}
