//! What the selected project's `AndroidManifest.xml` declares that completions offer: its
//! activities (full class names) and the deep links its intent filters accept
//! (`scheme://host/path`, one per scheme × host × path). Read fresh on each request, bounded.
use std::path::{Path, PathBuf};

use super::Project;

const ANDROID: &str = "http://schemas.android.com/apk/res/android";
/// A manifest bigger than this is not read.
const MAX_BYTES: u64 = 2 << 20;

#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Declared {
    pub activities: Vec<String>,
    pub deep_links: Vec<String>,
}

/// The app module's main manifest: beside its build file, else `app/`.
fn manifest_path(p: &Project) -> Option<PathBuf> {
    let module = p
        .build_file
        .as_deref()
        .and_then(Path::parent)
        .map(Path::to_path_buf)
        .unwrap_or_else(|| p.dir.join("app"));
    let path = module.join("src").join("main").join("AndroidManifest.xml");
    path.is_file().then_some(path)
}

/// Reads the project's manifest; an absent or unreadable one declares nothing.
pub fn declared(p: &Project) -> Declared {
    let Some(path) = manifest_path(p) else {
        return Declared::default();
    };
    if std::fs::metadata(&path).map_or(true, |m| m.len() > MAX_BYTES) {
        return Declared::default();
    }
    std::fs::read_to_string(&path)
        .map(|text| parse(&text, p.application_id.as_deref()))
        .unwrap_or_default()
}

/// The activities and deep links a manifest declares; `.Main` is completed with the
/// manifest's `package` or else `app_id`.
pub fn parse(text: &str, app_id: Option<&str>) -> Declared {
    let Ok(doc) = roxmltree::Document::parse(text) else {
        return Declared::default();
    };
    let root = doc.root_element();
    let package = root.attribute("package").or(app_id).unwrap_or("");
    let mut out = Declared::default();
    for activity in root
        .descendants()
        .filter(|n| matches!(n.tag_name().name(), "activity" | "activity-alias"))
    {
        if let Some(name) = activity.attribute((ANDROID, "name")) {
            let full = if name.starts_with('.') {
                format!("{package}{name}")
            } else if !name.contains('.') && !package.is_empty() {
                format!("{package}.{name}")
            } else {
                name.to_string()
            };
            if !out.activities.contains(&full) {
                out.activities.push(full);
            }
        }
        for filter in activity
            .children()
            .filter(|n| n.tag_name().name() == "intent-filter")
        {
            let data: Vec<_> = filter
                .children()
                .filter(|n| n.tag_name().name() == "data")
                .collect();
            let attr = |k: &str| -> Vec<String> {
                data.iter()
                    .filter_map(|d| d.attribute((ANDROID, k)))
                    .map(str::to_string)
                    .collect()
            };
            let schemes = attr("scheme");
            let mut hosts = attr("host");
            if hosts.is_empty() {
                hosts.push(String::new());
            }
            let mut paths = attr("path");
            paths.extend(attr("pathPrefix"));
            if paths.is_empty() {
                paths.push(String::new());
            }
            for s in &schemes {
                for h in &hosts {
                    for p in &paths {
                        let link = format!("{s}://{h}{p}");
                        if !out.deep_links.contains(&link) {
                            out.deep_links.push(link);
                        }
                    }
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn activities_and_deep_links() {
        let xml = r#"<manifest xmlns:android="http://schemas.android.com/apk/res/android" package="com.example.shop">
  <application>
    <activity android:name=".MainActivity"/>
    <activity android:name="com.example.shop.ProductActivity">
      <intent-filter>
        <action android:name="android.intent.action.VIEW"/>
        <data android:scheme="shop" android:host="product"/>
        <data android:scheme="https" android:host="shop.example.com" android:pathPrefix="/p/"/>
      </intent-filter>
    </activity>
  </application>
</manifest>"#;
        let d = parse(xml, None);
        assert_eq!(
            d.activities,
            [
                "com.example.shop.MainActivity",
                "com.example.shop.ProductActivity"
            ]
        );
        // The data elements of one filter merge: every scheme with every host and path.
        assert_eq!(
            d.deep_links,
            [
                "shop://product/p/",
                "shop://shop.example.com/p/",
                "https://product/p/",
                "https://shop.example.com/p/"
            ]
        );
        let bare = r#"<manifest xmlns:android="http://schemas.android.com/apk/res/android" package="a.b">
  <application><activity android:name=".X"><intent-filter>
    <data android:scheme="app" android:host="home"/>
  </intent-filter></activity></application></manifest>"#;
        assert_eq!(parse(bare, None).deep_links, ["app://home"]);
        assert_eq!(parse("not xml", None), Declared::default());
    }
}
