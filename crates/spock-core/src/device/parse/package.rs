//! `dumpsys package <pkg>` (or the system-wide `dumpsys package`, filtered to one package):
//! versions, paths, install times, flags, requested / install / runtime permissions, and the
//! package's components with their intent filters from the resolver tables.
//!
//! Only the `Package [pkg]` block under `Packages:` is read; the one under `Hidden system
//! packages:` describes the factory image an update replaced, not what runs.
use serde::Serialize;

use super::indent;

mod resolver;

pub use resolver::{ComponentInfo, IntentFilter};

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PackageInfo {
    pub package: String,
    pub uid: Option<u32>,
    pub version_code: Option<i64>,
    pub version_name: Option<String>,
    pub min_sdk: Option<u32>,
    pub target_sdk: Option<u32>,
    pub code_path: Option<String>,
    pub resource_path: Option<String>,
    pub data_dir: Option<String>,
    pub first_install_time: Option<String>,
    pub last_update_time: Option<String>,
    pub installer: Option<String>,
    /// `flags=[ ... ]` as printed (SYSTEM, DEBUGGABLE, ALLOW_BACKUP, ...).
    pub flags: Vec<String>,
    pub debuggable: bool,
    pub requested_permissions: Vec<String>,
    pub install_permissions: Vec<PermissionGrant>,
    /// Runtime permissions of the first user listed (normally user 0).
    pub runtime_permissions: Vec<PermissionGrant>,
    pub activities: Vec<ComponentInfo>,
    pub services: Vec<ComponentInfo>,
    pub receivers: Vec<ComponentInfo>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PermissionGrant {
    pub name: String,
    pub granted: Option<bool>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub flags: Vec<String>,
}

fn grant(line: &str) -> Option<PermissionGrant> {
    let (name, rest) = line.split_once(':')?;
    let granted = rest
        .split_once("granted=")
        .and_then(|(_, v)| v.split([',', ' ']).next())
        .and_then(|v| v.parse().ok());
    let flags = rest
        .split_once("flags=[")
        .and_then(|(_, f)| f.split_once(']'))
        .map(|(f, _)| {
            f.split(['|', ' '])
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    Some(PermissionGrant {
        name: name.trim().to_string(),
        granted,
        flags,
    })
}

fn bracket_list(v: &str) -> Vec<String> {
    v.trim()
        .trim_start_matches('[')
        .trim_end_matches(']')
        .split_whitespace()
        .map(str::to_string)
        .collect()
}

/// `None` when the package is not in the dump (`Unable to find package: ...`).
pub fn parse(text: &str, pkg: &str) -> Option<PackageInfo> {
    let lines: Vec<&str> = text.lines().collect();
    let mut in_packages = false;
    let mut start = None;
    for (i, line) in lines.iter().enumerate() {
        if indent(line) == 0 && !line.trim().is_empty() {
            in_packages = line.trim_end() == "Packages:";
            continue;
        }
        let header = line
            .trim()
            .strip_prefix("Package [")
            .and_then(|r| r.split_once(']'));
        if in_packages && header.is_some_and(|(name, _)| name == pkg) {
            start = Some(i);
            break;
        }
    }
    let start = start?;
    let block_indent = indent(lines[start]);
    let mut info = PackageInfo {
        package: pkg.to_string(),
        ..Default::default()
    };
    // (section name, indentation of its header line)
    let mut section: Option<(&str, usize)> = None;
    let mut users_seen = 0;
    for line in lines.iter().skip(start + 1) {
        let ind = indent(line);
        let t = line.trim();
        if t.is_empty() {
            continue;
        }
        if ind <= block_indent {
            break;
        }
        if section.is_some_and(|(_, si)| ind <= si) {
            section = None;
        }
        if t.starts_with("User ") && t.contains(':') {
            users_seen += 1;
            section = None;
            continue;
        }
        if let Some(name) = t.strip_suffix(':').filter(|n| !n.contains(['=', ':'])) {
            section = Some((name, ind));
            continue;
        }
        match section {
            Some(("requested permissions", _)) => {
                let name = t.split(':').next().unwrap_or(t).trim();
                info.requested_permissions.push(name.to_string());
                continue;
            }
            Some(("install permissions", _)) => {
                info.install_permissions.extend(grant(t));
                continue;
            }
            Some(("runtime permissions", _)) if users_seen <= 1 => {
                info.runtime_permissions.extend(grant(t));
                continue;
            }
            Some(_) => continue,
            None => {}
        }
        for pair in t.split(' ') {
            let Some((k, v)) = pair.split_once('=') else {
                continue;
            };
            match k {
                "userId" | "appId" if info.uid.is_none() => info.uid = v.parse().ok(),
                "versionCode" => info.version_code = v.parse().ok(),
                "minSdk" => info.min_sdk = v.parse().ok(),
                "targetSdk" => info.target_sdk = v.parse().ok(),
                "codePath" => info.code_path = Some(v.to_string()),
                "resourcePath" => info.resource_path = Some(v.to_string()),
                "dataDir" => info.data_dir = Some(v.to_string()),
                "installerPackageName" => info.installer = Some(v.to_string()),
                _ => {}
            }
        }
        // Values with spaces: take the whole rest of the line.
        if let Some(v) = t.strip_prefix("versionName=") {
            info.version_name = Some(v.to_string());
        } else if let Some(v) = t.strip_prefix("firstInstallTime=") {
            info.first_install_time = Some(v.to_string());
        } else if let Some(v) = t.strip_prefix("lastUpdateTime=") {
            info.last_update_time = Some(v.to_string());
        } else if let Some(v) = t.strip_prefix("flags=") {
            info.flags = bracket_list(v);
        }
    }
    info.debuggable = info.flags.iter().any(|f| f == "DEBUGGABLE");
    let tables = resolver::parse_tables(text, pkg);
    info.activities = tables.activities;
    info.services = tables.services;
    info.receivers = tables.receivers;
    Some(info)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::parse::fixture;

    #[test]
    fn wearos_single_package() {
        let p = parse(
            &fixture("dumpsys/package-single-wearos.txt"),
            "com.tekartik.package1",
        )
        .unwrap();
        assert_eq!(p.uid, Some(10057));
        assert_eq!(
            p.version_code,
            Some(20),
            "not the hidden system package's 15"
        );
        assert_eq!(p.version_name.as_deref(), Some("1.0.16"));
        assert_eq!((p.min_sdk, p.target_sdk), (Some(27), Some(36)));
        assert!(
            p.code_path
                .as_deref()
                .unwrap()
                .starts_with("/data/app/~~GSfSdCYUCkDXHTY6qu0DAw==")
        );
        assert_eq!(p.code_path, p.resource_path);
        assert_eq!(
            p.data_dir.as_deref(),
            Some("/data/user/0/com.tekartik.package1")
        );
        assert_eq!(p.first_install_time.as_deref(), Some("2009-01-01 01:00:00"));
        assert_eq!(p.last_update_time.as_deref(), Some("2025-07-04 01:16:34"));
        assert_eq!(p.installer.as_deref(), Some("com.android.vending"));
        assert!(p.flags.contains(&"UPDATED_SYSTEM_APP".to_string()));
        assert!(!p.debuggable);
        assert_eq!(p.requested_permissions.len(), 4);
        assert_eq!(p.requested_permissions[0], "android.permission.WAKE_LOCK");
        assert_eq!(p.install_permissions.len(), 3);
        assert!(
            p.install_permissions
                .iter()
                .all(|g| g.granted == Some(true))
        );
        assert_eq!(p.runtime_permissions.len(), 1);
        let rt = &p.runtime_permissions[0];
        assert_eq!(
            rt.name,
            "com.google.android.wearable.permission.RECEIVE_COMPLICATION_DATA"
        );
        assert_eq!(
            (rt.granted, rt.flags.clone()),
            (Some(true), vec!["GRANTED_BY_DEFAULT".to_string()])
        );
        assert!(p.activities.is_empty());
        assert_eq!(p.services.len(), 12);
        let beige = p
            .services
            .iter()
            .find(|s| s.name.ends_with("PowerGaugeServiceBeige"))
            .unwrap();
        assert_eq!(beige.filters.len(), 1);
        assert_eq!(
            beige.filters[0].actions,
            vec!["android.service.wallpaper.WallpaperService"]
        );
        assert_eq!(
            beige.filters[0].categories,
            vec!["com.google.android.wearable.watchface.category.WATCH_FACE"]
        );
        assert_eq!(
            beige.permission.as_deref(),
            Some("android.permission.BIND_WALLPAPER")
        );
        let recv = &p.receivers[0];
        assert_eq!(
            recv.name,
            "androidx.profileinstaller.ProfileInstallReceiver"
        );
        assert_eq!(recv.filters.len(), 4, "one receiver, four filters");
    }

    #[test]
    fn samsung_system_dump_runtime_denied() {
        let text = fixture("dumpsys/package-all-samsung-excerpt.txt");
        let p = parse(&text, "com.sec.android.app.DataCreate").unwrap();
        assert_eq!((p.version_code, p.uid), (Some(1), Some(10143)));
        assert_eq!(p.requested_permissions.len(), 11);
        assert_eq!(p.install_permissions.len(), 20);
        assert_eq!(p.runtime_permissions.len(), 13);
        let cam = p
            .runtime_permissions
            .iter()
            .find(|g| g.name == "android.permission.CAMERA")
            .unwrap();
        assert_eq!(cam.granted, Some(false));
        assert_eq!(cam.flags, vec!["USER_SENSITIVE_WHEN_GRANTED"]);
        let sms = &p.runtime_permissions[0];
        assert_eq!(
            sms.flags,
            vec!["USER_SENSITIVE_WHEN_GRANTED", "RESTRICTION_UPGRADE_EXEMPT"]
        );

        let f = parse(&text, "com.samsung.android.provider.filterprovider").unwrap();
        assert_eq!(f.version_code, Some(500700000));
        assert_eq!(f.uid, Some(1000));
        assert!(f.requested_permissions.is_empty() && f.runtime_permissions.is_empty());
        // Listed in the resolver tables but with no Package block: not an answer.
        assert!(parse(&text, "com.android.settings").is_none());
    }

    #[test]
    fn not_found_and_debuggable() {
        assert!(
            parse(
                &fixture("dumpsys/package-not-found.txt"),
                "com.funnyenglish.app"
            )
            .is_none()
        );
        let text = "Packages:\n  Package [a.b] (1):\n    userId=10200\n    flags=[ DEBUGGABLE HAS_CODE ]\n";
        let p = parse(text, "a.b").unwrap();
        assert!(p.debuggable);
        assert_eq!(p.version_code, None);
    }
}
