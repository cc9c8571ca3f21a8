//! `android_get_debug_context`: the call to reach for first when something is wrong. Activity,
//! UI tree, logcat (and, opt-in, a screenshot) gathered concurrently so they describe one
//! moment; a failing section reports its error in place and the others still come back.
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::inspect::{CurrentActivity, Logcat, LogcatArgs, current_activity, get_logcat};
use super::screen::{DEFAULT_MAX, Format, ShotInfo, capture};
use super::ui::{TreeOut, dump, tree_out};
use crate::mcp::ctx::Ctx;
use crate::mcp::registry::{Level, Meta, ToolDef, WithImages};
use crate::mcp::result::ToolError;
use crate::mcp::toolsets::Toolset;
use crate::uitree::TreeOptions;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Section {
    Activity,
    Ui,
    Logcat,
    Screenshot,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ContextArgs {
    pub serial: Option<String>,
    /// Sections: activity, ui, logcat (the default three) and screenshot (opt-in, the costliest).
    pub include: Option<Vec<Section>>,
    /// Logcat minimum level (default W).
    pub min_level: Option<String>,
    /// Logcat lines (default 100).
    pub lines: Option<usize>,
    /// Only this app's log lines.
    pub package_name: Option<String>,
}

/// One section: its value, or the error that section met.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Part<T> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<T>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl<T> From<Result<T, ToolError>> for Part<T> {
    fn from(r: Result<T, ToolError>) -> Self {
        match r {
            Ok(v) => Part {
                value: Some(v),
                error: None,
            },
            Err(e) => Part {
                value: None,
                error: Some(e.message),
            },
        }
    }
}

#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DebugContext {
    pub serial: String,
    /// When the sections were gathered (all at once).
    pub captured_at: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub activity: Option<Part<CurrentActivity>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ui: Option<Part<TreeOut>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub logcat: Option<Part<Logcat>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub screenshot: Option<Part<ShotInfo>>,
}

async fn gather(ctx: Ctx, a: ContextArgs) -> Result<WithImages<DebugContext>, ToolError> {
    let include = a
        .include
        .clone()
        .unwrap_or_else(|| vec![Section::Activity, Section::Ui, Section::Logcat]);
    let want = |s: Section| include.contains(&s);
    let dev = ctx.device(a.serial.as_deref()).await?;
    let serial = dev.serial().to_string();
    let captured_at = chrono::Utc::now().to_rfc3339();
    let activity = async {
        if want(Section::Activity) {
            Some(current_activity(&ctx, Some(&serial)).await)
        } else {
            None
        }
    };
    let ui = async {
        if want(Section::Ui) {
            let opts = TreeOptions {
                compact: true,
                ..TreeOptions::default()
            };
            Some(dump(&ctx, &dev).await.map(|t| tree_out(&serial, &t, opts)))
        } else {
            None
        }
    };
    let logcat = async {
        if want(Section::Logcat) {
            let (lines, level) = (
                a.lines.unwrap_or(100),
                a.min_level.clone().unwrap_or_else(|| "W".into()),
            );
            let filter = format!(
                "level {level} and above, the last {lines} lines{} (minLevel and lines change it; \
                 android_get_logcat reads every level)",
                a.package_name
                    .as_deref()
                    .map(|p| format!(", from {p}"))
                    .unwrap_or_default()
            );
            let la = LogcatArgs {
                serial: Some(serial.clone()),
                lines: Some(lines),
                min_level: Some(level),
                tag: None,
                package_name: a.package_name.clone(),
                since: None,
                contains: None,
            };
            Some(get_logcat(&ctx, la).await.map(|mut l| {
                l.filter = Some(filter);
                l
            }))
        } else {
            None
        }
    };
    let shot = async {
        if want(Section::Screenshot) {
            Some(capture(&ctx, &dev, DEFAULT_MAX, Format::Jpeg).await)
        } else {
            None
        }
    };
    let (activity, ui, logcat, shot) = tokio::join!(activity, ui, logcat, shot);
    let mut images = Vec::new();
    let screenshot = shot.map(|r| match r {
        Ok((img, info)) => {
            images.push(img);
            Part {
                value: Some(info),
                error: None,
            }
        }
        Err(e) => Part {
            value: None,
            error: Some(e.message),
        },
    });
    Ok(WithImages {
        value: DebugContext {
            serial,
            captured_at,
            activity: activity.map(Part::from),
            ui: ui.map(Part::from),
            logcat: logcat.map(Part::from),
            screenshot,
        },
        images,
    })
}

pub fn tools() -> Vec<ToolDef> {
    vec![Meta {
        name: "android_get_debug_context",
        title: "Debug context",
        level: Level::ReadOnly,
        toolset: Toolset::Debug,
        description: "First call when something is wrong: current activity, UI tree, recent logcat (and opt-in \
                      screenshot) from the same moment. A failing section reports its error in place.",
    }
    .def(gather)]
}
