//! Android (Gradle) projects: given with `--project DIR` or found from the working directory.
//! The application id comes from the app module's build file; with several projects and none
//! selected, tools that need one refuse and name the candidates.
use std::path::{Path, PathBuf};
use std::sync::RwLock;

pub mod manifest;

use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Project {
    pub name: String,
    pub dir: PathBuf,
    /// From `applicationId` (or `namespace` when no applicationId is set).
    pub application_id: Option<String>,
    pub build_file: Option<PathBuf>,
}

const BUILD_FILES: [&str; 2] = ["build.gradle.kts", "build.gradle"];
const SETTINGS_FILES: [&str; 2] = ["settings.gradle.kts", "settings.gradle"];

fn is_gradle_root(dir: &Path) -> bool {
    SETTINGS_FILES
        .iter()
        .chain(BUILD_FILES.iter())
        .any(|f| dir.join(f).is_file())
}

/// `applicationId "x"`, `applicationId = "x"`, `applicationId("x")`; then `namespace`.
pub fn application_id(build: &str) -> Option<String> {
    let find = |key: &str| {
        build.lines().find_map(|line| {
            let line = line.trim();
            if line.starts_with("//") {
                return None;
            }
            let at = line.match_indices(key).map(|(i, _)| i).find(|&i| {
                i == 0
                    || !line[..i]
                        .chars()
                        .next_back()
                        .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
            })?;
            let rest = &line[at + key.len()..];
            let rest = rest
                .trim_start()
                .trim_start_matches(['=', '('])
                .trim_start();
            let quote = rest.chars().next().filter(|c| *c == '"' || *c == '\'')?;
            let inner = &rest[1..];
            let end = inner.find(quote)?;
            let id = &inner[..end];
            let ok = !id.is_empty()
                && id
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '_');
            ok.then(|| id.to_string())
        })
    };
    find("applicationId").or_else(|| find("namespace"))
}

/// The app module's build file: `app/`, else any module with `com.android.application`.
fn app_build_file(root: &Path) -> Option<PathBuf> {
    let mut candidates: Vec<PathBuf> = BUILD_FILES
        .iter()
        .map(|f| root.join("app").join(f))
        .collect();
    if let Ok(entries) = std::fs::read_dir(root) {
        let mut dirs: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.is_dir())
            .collect();
        dirs.sort();
        for d in dirs {
            candidates.extend(BUILD_FILES.iter().map(|f| d.join(f)));
        }
    }
    candidates.extend(BUILD_FILES.iter().map(|f| root.join(f)));
    let read = |p: &PathBuf| std::fs::read_to_string(p).ok();
    candidates
        .iter()
        .filter(|p| p.is_file())
        .find(|p| {
            read(p).is_some_and(|t| {
                t.contains("com.android.application") || t.contains("applicationId")
            })
        })
        .cloned()
}

pub fn load(dir: &Path) -> std::io::Result<Project> {
    let dir = dir.canonicalize()?;
    if !is_gradle_root(&dir) {
        return Err(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            format!(
                "{} is not a Gradle project (no settings.gradle(.kts) or build.gradle(.kts))",
                dir.display()
            ),
        ));
    }
    let build_file = app_build_file(&dir);
    let application_id = build_file
        .as_ref()
        .and_then(|p| std::fs::read_to_string(p).ok())
        .and_then(|t| application_id(&t));
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "project".into());
    Ok(Project {
        name,
        dir,
        application_id,
        build_file,
    })
}

/// The nearest Gradle project at or above `start` that has settings.gradle(.kts).
pub fn discover(start: &Path) -> Option<Project> {
    let mut dir = Some(start);
    while let Some(d) = dir {
        if SETTINGS_FILES.iter().any(|f| d.join(f).is_file()) {
            return load(d).ok();
        }
        dir = d.parent();
    }
    None
}

#[derive(Debug, Default)]
pub struct Projects {
    list: Vec<Project>,
    selected: RwLock<Option<usize>>,
}

impl Projects {
    pub fn new(list: Vec<Project>) -> Self {
        let selected = RwLock::new((list.len() == 1).then_some(0));
        Projects { list, selected }
    }
    pub fn all(&self) -> &[Project] {
        &self.list
    }
    pub fn select(&self, name_or_dir: &str) -> Result<&Project, String> {
        let i = self
            .list
            .iter()
            .position(|p| p.name == name_or_dir || p.dir == Path::new(name_or_dir))
            .ok_or_else(|| self.candidates_msg(&format!("no project {name_or_dir:?}")))?;
        if let Ok(mut s) = self.selected.write() {
            *s = Some(i);
        }
        Ok(&self.list[i])
    }
    /// The project tools use: the selected one, or the only one.
    pub fn current(&self) -> Result<&Project, String> {
        let sel = self.selected.read().ok().and_then(|s| *s);
        match (sel, self.list.len()) {
            (Some(i), _) if i < self.list.len() => Ok(&self.list[i]),
            (_, 0) => Err("no Android project is known: start spock-tui with --project DIR or from inside a Gradle project".into()),
            (_, 1) => Ok(&self.list[0]),
            _ => Err(self.candidates_msg("several projects are open and none is selected")),
        }
    }
    fn candidates_msg(&self, head: &str) -> String {
        let names: Vec<String> = self
            .list
            .iter()
            .map(|p| format!("{} ({})", p.name, p.dir.display()))
            .collect();
        format!(
            "{head}: call android_select_project with one of {}",
            names.join(", ")
        )
    }
    /// Directories a pushed file may come from (with the pull directory).
    pub fn dirs(&self) -> Vec<PathBuf> {
        self.list.iter().map(|p| p.dir.clone()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn application_ids() {
        assert_eq!(
            application_id("android {\n  defaultConfig {\n    applicationId = \"com.a.b\"\n"),
            Some("com.a.b".into())
        );
        assert_eq!(
            application_id("applicationId 'com.x'\n"),
            Some("com.x".into())
        );
        assert_eq!(
            application_id("// applicationId \"no\"\nnamespace = \"com.ns\""),
            Some("com.ns".into())
        );
        assert_eq!(application_id("applicationId = \"$(evil)\""), None);
    }

    #[test]
    fn discovers_and_selects() {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().join("shop");
        std::fs::create_dir_all(root.join("app/src")).unwrap();
        std::fs::write(root.join("settings.gradle.kts"), "include(\":app\")").unwrap();
        std::fs::write(root.join("app/build.gradle.kts"), "plugins { id(\"com.android.application\") }\nandroid { defaultConfig { applicationId = \"com.example.shop\" } }").unwrap();
        let p = discover(&root.join("app/src")).unwrap();
        assert_eq!(p.application_id.as_deref(), Some("com.example.shop"));
        let other = Project {
            name: "notes".into(),
            dir: "/tmp/notes".into(),
            application_id: None,
            build_file: None,
        };
        let ps = Projects::new(vec![p, other]);
        assert!(ps.current().unwrap_err().contains("notes"));
        assert_eq!(ps.select("shop").unwrap().name, "shop");
        assert_eq!(ps.current().unwrap().name, "shop");
    }
}
