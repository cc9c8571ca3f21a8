//! `completion/complete` for prompt arguments and resource-template variables (both eras
//! define it alike): package names installed on the device (prefix match), device serials,
//! deep links and activities declared in the selected project's manifest, the permissions a
//! package requests, logcat levels. What the device is asked goes through the same access
//! switches as the tool that would ask it (`android_list_packages`,
//! `android_get_package_info`): a switched-off tool's answers are not offered. Completions
//! are neither audited nor shown as calls (they run on each keystroke); every value offered
//! is redacted as an agent sees it.
use std::sync::Arc;

use rmcp::model::{CompleteRequestParams, CompleteResult, CompletionInfo, Reference};
use tokio_util::sync::CancellationToken;

use super::core::Core;
use super::ctx::{Ctx, Origin};
use crate::redact::Audience;

/// What an argument or variable is completed from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Source {
    Packages,
    Serials,
    DeepLinks,
    Activities,
    Permissions,
    LogLevels,
    Nothing,
}

fn source(reference: &Reference, argument: &str) -> Source {
    match reference {
        Reference::Prompt(p) => match (p.name.as_str(), argument) {
            (_, "packageName") => Source::Packages,
            ("test_deep_link", "uri") => Source::DeepLinks,
            ("test_deep_link", "activity") => Source::Activities,
            ("investigate_permission", "permission") => Source::Permissions,
            _ => Source::Nothing,
        },
        Reference::Resource(r) => {
            let known = super::templates::variables(&r.uri).is_some_and(|v| v.contains(&argument));
            match argument {
                "serial" if known => Source::Serials,
                "minLevel" if known => Source::LogLevels,
                _ => Source::Nothing,
            }
        }
        _ => Source::Nothing,
    }
}

/// A context for asking the device on a client's behalf, outside any call.
fn ctx(core: &Arc<Core>, origin: Origin, tool: &'static str) -> Ctx {
    Ctx {
        core: core.clone(),
        call_id: 0,
        tool,
        origin,
        cancel: CancellationToken::new(),
        resolved_device: Arc::default(),
        pinned: None,
        batch_run: None,
        approved: false,
        typed: Arc::new(super::typed_text::TypedText::none()),
        staged: Default::default(),
    }
}

/// Whether an agent may have what `tool` would answer.
fn allowed(core: &Core, tool: &str) -> bool {
    core.registry
        .get(tool)
        .is_some_and(|t| core.access.check(t).is_ok())
}

/// The values for one request, unfiltered (empty when there is nothing to offer).
async fn candidates(core: &Arc<Core>, origin: Origin, req: &CompleteRequestParams) -> Vec<String> {
    let arg = |k: &str| -> Option<String> {
        req.context
            .as_ref()
            .and_then(|c| c.arguments.as_ref())
            .and_then(|a| a.get(k))
            .cloned()
    };
    match source(&req.r#ref, &req.argument.name) {
        Source::Nothing => Vec::new(),
        Source::LogLevels => ["V", "D", "I", "W", "E", "F"].map(String::from).to_vec(),
        Source::Serials => match core.devices.list().await {
            Ok(list) => list.iter().map(|e| e.raw_serial.clone()).collect(),
            Err(_) => Vec::new(),
        },
        wanted @ (Source::DeepLinks | Source::Activities) => {
            let Ok(project) = core.projects.current().cloned() else {
                return Vec::new();
            };
            // Reading and parsing the manifest is file I/O: off the async workers.
            let d =
                tokio::task::spawn_blocking(move || crate::project::manifest::declared(&project))
                    .await
                    .unwrap_or_default();
            if wanted == Source::DeepLinks {
                d.deep_links
            } else {
                d.activities
            }
        }
        Source::Packages => {
            if !allowed(core, "android_list_packages") {
                return Vec::new();
            }
            let c = ctx(core, origin, "android_list_packages");
            let serial = arg("serial");
            let Ok(dev) = c.device(serial.as_deref()).await else {
                return Vec::new();
            };
            match c.sh_ok(&dev, "pm list packages").await {
                Ok(text) => crate::device::parse::packages::parse_list(&text)
                    .into_iter()
                    .map(|p| p.package)
                    .collect(),
                Err(_) => Vec::new(),
            }
        }
        Source::Permissions => {
            if !allowed(core, "android_get_package_info") {
                return Vec::new();
            }
            let Some(pkg) = arg("packageName").filter(|p| !p.is_empty()) else {
                return Vec::new();
            };
            let c = ctx(core, origin, "android_get_package_info");
            let serial = arg("serial");
            match super::tools::inspect::package_info(&c, serial.as_deref(), &pkg).await {
                Ok(info) => info.requested_permissions,
                Err(_) => Vec::new(),
            }
        }
    }
}

/// Answers `completion/complete`: the candidates that start with what was typed (sorted,
/// at most 100, `hasMore` when there were more), redacted for the agent.
pub async fn complete(
    core: &Arc<Core>,
    origin: Origin,
    req: &CompleteRequestParams,
) -> CompleteResult {
    let typed = req.argument.value.as_str();
    let mut values: Vec<String> = candidates(core, origin, req)
        .await
        .into_iter()
        .map(|v| core.redactor.redact_str(&v, Audience::Agent).into_owned())
        .filter(|v| v.starts_with(typed))
        .collect();
    values.sort();
    values.dedup();
    let total = values.len();
    values.truncate(CompletionInfo::MAX_VALUES);
    let Ok(mut info) = CompletionInfo::new(values) else {
        return CompleteResult::default();
    };
    info.total = Some(total as u32);
    info.has_more = Some(total > CompletionInfo::MAX_VALUES);
    CompleteResult::new(info)
}

/// A prompt's argument names, for tests and the README.
pub fn completes(prompt: &str, argument: &str) -> bool {
    let r = Reference::for_prompt(prompt);
    source(&r, argument) != Source::Nothing
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompt_arguments_and_template_variables_have_sources() {
        assert!(completes("debug_crash", "packageName"));
        assert!(completes("test_deep_link", "uri"));
        assert!(completes("test_deep_link", "activity"));
        assert!(completes("investigate_permission", "permission"));
        assert!(!completes("debug_crash", "nonsense"));
        let r = Reference::for_resource("android://device/{serial}/logcat{?lines,minLevel}");
        assert_eq!(source(&r, "serial"), Source::Serials);
        assert_eq!(source(&r, "minLevel"), Source::LogLevels);
        let r = Reference::for_resource("android://device/{serial}/info");
        assert_eq!(source(&r, "minLevel"), Source::Nothing);
        let r = Reference::for_resource("file:///{path}");
        assert_eq!(source(&r, "serial"), Source::Nothing);
    }
}
