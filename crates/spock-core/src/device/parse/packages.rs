//! `pm list packages` with any of `-f` (APK path), `--show-versioncode`, `-U` (uid) and
//! `-i` (installer). Paths contain `=` (`/data/app/~~hash==/...`), so the package name is
//! what follows the *last* `=` of the first word.
use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PackageLine {
    pub package: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version_code: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uid: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub installer: Option<String>,
}

pub fn parse_list(text: &str) -> Vec<PackageLine> {
    let mut out = Vec::new();
    for line in text.lines() {
        let Some(rest) = line.trim().strip_prefix("package:") else {
            continue;
        };
        let mut words = rest.split_whitespace();
        let Some(first) = words.next() else { continue };
        let (path, package) = match first.rsplit_once('=') {
            Some((p, n)) if p.starts_with('/') => (Some(p.to_string()), n.to_string()),
            _ => (None, first.to_string()),
        };
        if package.is_empty() {
            continue;
        }
        let mut entry = PackageLine {
            package,
            path,
            version_code: None,
            uid: None,
            installer: None,
        };
        for w in words {
            if let Some(v) = w.strip_prefix("versionCode:") {
                entry.version_code = v.parse().ok();
            } else if let Some(v) = w.strip_prefix("uid:") {
                // Shared-uid packages print `uid:1000,1001`; the first is the app id.
                entry.uid = v.split(',').next().and_then(|u| u.parse().ok());
            } else if let Some(v) = w.strip_prefix("installer=") {
                entry.installer = Some(v.to_string()).filter(|s| s != "null");
            }
        }
        out.push(entry);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::parse::fixture;

    #[test]
    fn pixel_list_with_paths() {
        let text = fixture("misc/pm-list-packages-f-pixel-excerpt.txt");
        let list = parse_list(&text);
        assert_eq!(
            list.len(),
            text.lines().filter(|l| l.starts_with("package:")).count()
        );
        assert_eq!(list.len(), 40);
        let first = &list[0];
        assert_eq!(
            first.package,
            "com.google.android.apps.pixel.creativeassistant"
        );
        assert!(
            first
                .path
                .as_deref()
                .unwrap()
                .ends_with("btAkfpkKKvbBZ52jlbow1w==/base.apk")
        );
        let media = list
            .iter()
            .find(|p| p.package == "com.google.android.providers.media.module")
            .unwrap();
        assert_eq!(
            media.path.as_deref(),
            Some(
                "/apex/com.android.mediaprovider/priv-app/MediaProviderGoogle@360845340/MediaProviderGoogle.apk"
            )
        );
        assert!(
            list.iter()
                .all(|p| p.version_code.is_none() && !p.package.contains('/'))
        );
    }

    #[test]
    fn version_uid_installer_variants() {
        let text = "package:com.example.shop versionCode:142 uid:10150\n\
                    package:android versionCode:36 uid:1000,1001\n\
                    package:com.a  installer=com.android.vending\nnoise\npackage:\n";
        let l = parse_list(text);
        assert_eq!(l.len(), 3);
        assert_eq!(
            (l[0].version_code, l[0].uid, l[0].path.clone()),
            (Some(142), Some(10150), None)
        );
        assert_eq!(l[1].uid, Some(1000));
        assert_eq!(l[2].installer.as_deref(), Some("com.android.vending"));
    }
}
