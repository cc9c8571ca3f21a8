//! The `Activity/Service/Receiver Resolver Table:` sections of `dumpsys package`.
//!
//! Per-package dumps list each filter (`<hash> pkg/.Cls filter <hash>`) followed by its
//! `Action:` / `Category:` / `Scheme:` / `Authority:` / `Path:` / `Type:` lines; the same
//! filter reappears under every key it matches, so filters are counted once by hash. The
//! system-wide dump prints only `<hash> pkg/.Cls (2 filters)` under each key; then the key
//! itself (an action, MIME type or scheme) is all there is, and the filter says so.
use serde::Serialize;

use super::super::{Component, indent};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ComponentInfo {
    /// Fully qualified class name.
    pub name: String,
    /// Permission a caller needs, when the table prints one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub permission: Option<String>,
    pub filters: Vec<IntentFilter>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct IntentFilter {
    pub actions: Vec<String>,
    pub categories: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub schemes: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub authorities: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub paths: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub types: Vec<String>,
    /// Built from table keys only (system-wide dump): lists what matched, not the whole filter.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub summary_only: bool,
    #[serde(skip)]
    hash: String,
}

#[derive(Default)]
pub(super) struct Tables {
    pub activities: Vec<ComponentInfo>,
    pub services: Vec<ComponentInfo>,
    pub receivers: Vec<ComponentInfo>,
}

fn push_unique(v: &mut Vec<String>, s: &str) {
    if !v.iter().any(|x| x == s) {
        v.push(s.to_string());
    }
}

fn unquote(s: &str) -> &str {
    let s = s.trim();
    let s = s.strip_prefix('"').unwrap_or(s);
    s.split('"').next().unwrap_or(s)
}

pub(super) fn parse_tables(text: &str, pkg: &str) -> Tables {
    let mut t = Tables::default();
    // Which list we are filling, the sub-heading and the key being listed.
    let mut table: Option<usize> = None;
    let mut heading = String::new();
    let mut key = String::new();
    // (table, component index, filter index) receiving detail lines.
    let mut current: Option<(usize, usize, usize)> = None;
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.is_empty() {
            continue;
        }
        let ind = indent(line);
        if ind == 0 {
            table = match trimmed {
                "Activity Resolver Table:" => Some(0),
                "Service Resolver Table:" => Some(1),
                "Receiver Resolver Table:" => Some(2),
                _ => None,
            };
            current = None;
            continue;
        }
        let Some(ti) = table else { continue };
        let list = match ti {
            0 => &mut t.activities,
            1 => &mut t.services,
            _ => &mut t.receivers,
        };
        if ind <= 2 {
            heading = trimmed.trim_end_matches(':').to_string();
            current = None;
            continue;
        }
        let words: Vec<&str> = trimmed.split_whitespace().collect();
        let is_entry = words.len() >= 2
            && words[0].chars().all(|c| c.is_ascii_hexdigit())
            && words[1].contains('/');
        if !is_entry {
            if trimmed.ends_with(':') && !trimmed.contains('"') {
                key = trimmed.trim_end_matches(':').to_string();
                current = None;
            } else if let Some((_, ci, fi)) = current
                && let Some(f) = list.get_mut(ci).and_then(|c| c.filters.get_mut(fi))
            {
                detail(f, trimmed);
            }
            continue;
        }
        current = None;
        let Some(comp) = Component::parse(words[1]).filter(|c| c.package == pkg) else {
            continue;
        };
        let ci = match list.iter().position(|c| c.name == comp.class) {
            Some(i) => i,
            None => {
                list.push(ComponentInfo {
                    name: comp.class,
                    permission: None,
                    filters: Vec::new(),
                });
                list.len() - 1
            }
        };
        let Some(c) = list.get_mut(ci) else { continue };
        if let Some(p) = words
            .iter()
            .position(|w| *w == "permission")
            .and_then(|i| words.get(i + 1))
        {
            c.permission = Some(p.to_string());
        }
        if let Some(hash) = words
            .iter()
            .position(|w| *w == "filter")
            .and_then(|i| words.get(i + 1))
        {
            if !c.filters.iter().any(|f| f.hash == *hash) {
                c.filters.push(IntentFilter {
                    hash: hash.to_string(),
                    ..Default::default()
                });
                current = Some((ti, ci, c.filters.len() - 1));
            }
            continue;
        }
        let fi = match c.filters.iter().position(|f| f.summary_only) {
            Some(i) => i,
            None => {
                c.filters.push(IntentFilter {
                    summary_only: true,
                    ..Default::default()
                });
                c.filters.len() - 1
            }
        };
        if let Some(f) = c.filters.get_mut(fi) {
            if heading.contains("MIME Types") {
                push_unique(&mut f.types, &key);
            } else if heading.contains("Schemes") {
                push_unique(&mut f.schemes, &key);
            } else if heading.contains("Actions") {
                push_unique(&mut f.actions, &key);
            }
        }
    }
    t
}

fn detail(f: &mut IntentFilter, line: &str) {
    let Some((label, value)) = line.split_once(':') else {
        return;
    };
    let v = unquote(value);
    match label {
        "Action" => push_unique(&mut f.actions, v),
        "Category" => push_unique(&mut f.categories, v),
        "Scheme" => push_unique(&mut f.schemes, v),
        "Authority" => push_unique(&mut f.authorities, v),
        "Path" => push_unique(&mut f.paths, value.trim().trim_matches('"')),
        "Type" => push_unique(&mut f.types, v),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::parse::fixture;

    #[test]
    fn samsung_summary_tables() {
        let text = fixture("dumpsys/package-all-samsung-excerpt.txt");
        let t = parse_tables(&text, "com.android.settings");
        assert_eq!(t.activities.len(), 1);
        let a = &t.activities[0];
        assert_eq!(
            a.name,
            "com.android.settings.biometrics.fingerprint.SetupFingerprintEnrollIntroduction"
        );
        assert!(a.filters[0].summary_only);
        assert_eq!(
            a.filters[0].actions,
            vec!["android.settings.FINGERPRINT_SETUP"]
        );
        let gms = parse_tables(&text, "com.google.android.gms");
        assert_eq!(gms.activities.len(), 2);
        assert_eq!(
            gms.activities[0].filters[0].types,
            vec!["application/com.google.android.gms.car"]
        );
        let gm = parse_tables(&text, "com.google.android.gm");
        assert_eq!(gm.receivers.len(), 3);
        assert!(gm.activities.is_empty());
    }

    #[test]
    fn deep_link_filter_details() {
        // Per-package layout as PackageManagerService prints it (IntentResolver.dump).
        let text = "Activity Resolver Table:\n  Schemes:\n      https:\n        \
            8b1a0b5 com.example.shop/.DeepLinkActivity filter 2c7c8d3\n          \
            Action: \"android.intent.action.VIEW\"\n          Category: \"android.intent.category.DEFAULT\"\n          \
            Category: \"android.intent.category.BROWSABLE\"\n          Scheme: \"https\"\n          \
            Authority: \"shop.example.com\": -1\n          Path: \"PatternMatcher{PREFIX: /item}\"\n          \
            AutoVerify=true\n";
        let t = parse_tables(text, "com.example.shop");
        let f = &t.activities[0].filters[0];
        assert_eq!(f.authorities, vec!["shop.example.com"]);
        assert_eq!(f.paths, vec!["PatternMatcher{PREFIX: /item}"]);
        assert_eq!(f.categories.len(), 2);
        assert!(!f.summary_only);
    }
}
