//! Settings: tool access (per tool, by level, Enable all, Read-only only, host groups),
//! history size, confirmation timeout and port. Changes apply at once and are saved.
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use crate::tui::escape;
use crate::tui::settings::{
    Row, apps_seen, device_apps, device_on, field_value, group_on, next_seen_app, rows,
};
use crate::tui::state::{InputTarget, State, page_offset};
use crate::tui::ui::{ACCENT, block, bold, dim, level_style, selected};

fn split(body: Rect) -> [Rect; 2] {
    if body.width >= 120 {
        Layout::horizontal([Constraint::Percentage(55), Constraint::Min(20)]).areas(body)
    } else {
        [body, Rect { width: 0, ..body }]
    }
}

pub fn list_rows(body: Rect) -> Rect {
    let [left, _] = split(body);
    crate::tui::ui::rows_below(left, 0)
}

fn check(on: bool) -> &'static str {
    if on { "[x]" } else { "[ ]" }
}

fn line(s: &State, row: &Row) -> Line<'static> {
    match row {
        Row::Heading(h) => Line::styled(h.clone(), bold().fg(ACCENT)),
        Row::EnableAll => Line::raw("  ▸ Enable all (every tool, every host group)"),
        Row::ReadOnlyOnly => Line::raw("  ▸ Read-only only (everything else off)"),
        Row::Group(g) => Line::raw(format!(
            "  {} {} — {}",
            check(group_on(s, *g)),
            g.key(),
            g.label()
        )),
        Row::Field(fld) => {
            let value = match &s.input {
                Some((InputTarget::Setting(f), i)) if f == fld => {
                    format!("{}▏", escape::line(&i.text))
                }
                _ => field_value(s, *fld),
            };
            let mut spans = vec![
                Span::raw(format!("  {:<34}", fld.label())),
                Span::styled(value, bold()),
            ];
            // The configured port is the next start's; say where HTTP serves now.
            if *fld == crate::protocol::SettingField::Port
                && let Some(now) = s.core.endpoints.http_port().filter(|p| *p != s.core.port)
            {
                spans.push(Span::styled(format!("  (serving on {now} now)"), dim()));
            }
            Line::from(spans)
        }
        Row::Device {
            key,
            label,
            interact,
        } => {
            let what = if *interact { "Interact" } else { "Inspect " };
            let apps = match s.core.access.devices.get(key).and_then(|d| d.apps.as_ref()) {
                Some(a) if *interact => format!(
                    "  only {}",
                    a.iter().cloned().collect::<Vec<_>>().join(", ")
                ),
                _ => String::new(),
            };
            Line::from(vec![
                Span::raw(format!("  {} {what} ", check(device_on(s, key, *interact)))),
                Span::raw(escape::line(label)),
                Span::styled(escape::line(&apps), dim()),
            ])
        }
        Row::DeviceHead { key, label } => {
            let open = s.settings_expanded.contains(key);
            let mark = |on: bool| if on { "✓" } else { "✗" };
            let apps = device_apps(s, key).unwrap_or_else(|| "any app".into());
            Line::from(vec![
                Span::raw(format!("  {} ", if open { "▾" } else { "▸" })),
                Span::styled(escape::line(label), bold()),
                Span::styled(
                    escape::line(&format!(
                        "  Inspect {}  Interact {}  ({apps})",
                        mark(device_on(s, key, false)),
                        mark(device_on(s, key, true)),
                    )),
                    dim(),
                ),
            ])
        }
        Row::DeviceApps { key, .. } => {
            let (value, hint) = match &s.input {
                Some((InputTarget::DeviceApps, i))
                    if s.editing_apps.as_ref().is_some_and(|(k, _)| k == key) =>
                {
                    // What Tab adds, in the row itself: narrow terminals have no explanation.
                    let hint = next_seen_app(s, key, &i.text)
                        .map(|a| format!("  Tab adds {}", escape::line(&a)))
                        .unwrap_or_default();
                    (format!("{}▏", escape::line(&i.text)), hint)
                }
                _ => (
                    device_apps(s, key)
                        .map(|a| escape::line(&a))
                        .unwrap_or_else(|| "any app".into()),
                    String::new(),
                ),
            };
            Line::from(vec![
                Span::styled("      Interact with: ", dim()),
                Span::raw(value),
                Span::styled(hint, dim()),
            ])
        }
        Row::Tool(i) => match s.tools.get(*i) {
            Some(t) => Line::from(vec![
                Span::raw(format!("  {} ", check(s.enabled(t.name)))),
                Span::styled(t.level.marker(), level_style(t.level)),
                Span::raw(format!(" {}", t.name)),
                Span::styled(
                    t.group
                        .map(|g| format!("  (group {})", g.key()))
                        .unwrap_or_default(),
                    dim(),
                ),
            ]),
            None => Line::raw(""),
        },
    }
}

fn explain(s: &State, row: Option<&Row>) -> Vec<Line<'static>> {
    let text: String = match row {
        Some(Row::EnableAll) => "Turns every tool on and allows every host group. Destructive calls still ask you, per call.".into(),
        Some(Row::ReadOnlyOnly) => "Leaves only read-only tools on: an agent can look but not touch.".into(),
        Some(Row::Group(g)) => format!("{}: stored as what you allowed, so a group added later starts off.", g.label()),
        Some(Row::Field(f)) => format!("{} — Enter to edit, Enter again to apply and save.", f.label()),
        Some(Row::Tool(i)) => s.tools.get(*i).map(|t| t.description.to_string()).unwrap_or_default(),
        Some(Row::DeviceHead { key, .. }) => format!("Enter opens or closes this device's switches: Inspect, Interact and the apps Interact may touch. Its identity: {key}. / filters devices and tools by name."),
        Some(Row::DeviceApps { key, .. }) => {
            let seen = apps_seen(s, key);
            let seen = if seen.is_empty() {
                "No app seen on its screens yet.".to_string()
            } else {
                format!("Seen on it: {} (Tab adds the next one while editing).", seen.join(", "))
            };
            format!("The apps agents may act on there: package names separated by commas; empty for any app. Enter to edit, Enter again to apply and save. While a list is set, what cannot name its app (raw taps, keys, shell, pushes, installs) is refused unless the config file says raw = true. {seen}")
        }
        Some(Row::Device { key, interact, .. }) => format!(
            "{} on {}: {}. Checked on every call as it arrives; the device is known by its identity ({key}), whatever name reaches it. Which apps Interact may touch is the row below.",
            if *interact { "Interact" } else { "Inspect" },
            if key == crate::mcp::access::DEFAULT_DEVICE { "devices without an entry of their own" } else { "this device" },
            if *interact { "taps, typing, keys, gestures, launches, intents, pushes, installs, shell" } else { "screenshots, the UI tree, finds and waits, logcat, package and activity reads, pulls" }
        ),
        _ => String::new(),
    };
    let mut lines = vec![Line::raw(escape::line(&text))];
    lines.push(Line::raw(""));
    lines.push(Line::styled(
        "Access decides what may be attempted; confirmation decides what actually runs. A disabled tool stays listed and refuses when called.",
        dim(),
    ));
    lines.push(Line::raw(""));
    lines.push(Line::styled(
        format!("Saved to {}", s.core.config_file.display()),
        dim(),
    ));
    if s.core.allow_all {
        lines.push(Line::styled(
            "--allow-all is lifting every switch and the device tree for this run (nothing written by it).",
            Style::new().fg(Color::Yellow),
        ));
    }
    lines
}

pub fn draw(f: &mut Frame, body: Rect, s: &State) {
    let [left, right] = split(body);
    let all = rows(s);
    let inner = list_rows(body);
    f.render_widget(
        block("Settings — Space/Enter toggle or edit · a enable all · r read-only only"),
        left,
    );
    let off = page_offset(s.settings_cursor, inner.height as usize);
    let lines: Vec<Line> = all
        .iter()
        .enumerate()
        .skip(off)
        .take(inner.height as usize)
        .map(|(i, r)| {
            let l = line(s, r);
            if i == s.settings_cursor {
                l.style(selected())
            } else {
                l
            }
        })
        .collect();
    f.render_widget(Paragraph::new(lines), inner);
    if right.width > 0 {
        f.render_widget(
            Paragraph::new(explain(s, all.get(s.settings_cursor)))
                .wrap(Wrap { trim: true })
                .block(block("About")),
            right,
        );
    }
}
