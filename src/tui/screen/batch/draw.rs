//! Batch: the runner (the live run's step and tool, the recording), the saved tasks and the
//! run history (a failed run with its failed step and error); the task editor that replaces
//! them while it is open. Task names and tools come from agents, so they are escaped like any
//! other untrusted text.
use chrono::{DateTime, Utc};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use crate::batch::{RunState, RunnerState, Source};
use crate::protocol::BatchData;
use crate::tui::batch::Editor;
use crate::tui::escape;
use crate::tui::state::{InputTarget, State, page_offset};
use crate::tui::ui::{ACCENT, block, bold, dim, rec_style, selected};

fn state_label(st: RunState) -> (&'static str, Style) {
    match st {
        RunState::Processing => ("processing", Style::new().fg(ACCENT)),
        RunState::Succeeded => ("succeeded", Style::new().fg(Color::Green)),
        RunState::Failed => ("failed", Style::new().fg(Color::Red)),
        RunState::Cancelled => ("cancelled", Style::new().fg(Color::Magenta)),
        RunState::TimedOut => ("timed out", Style::new().fg(Color::Red)),
    }
}

fn source_label(s: Source) -> &'static str {
    match s {
        Source::Manual => "manual",
        Source::Recorded => "recorded",
        Source::History => "history",
        Source::Agent => "agent",
    }
}

/// An RFC 3339 stamp in the display zone; the raw text when it does not parse.
fn when(s: &State, rfc3339: &str) -> String {
    match DateTime::parse_from_rfc3339(rfc3339) {
        Ok(t) => t
            .with_timezone(&Utc)
            .with_timezone(&s.tz)
            .format("%m-%d %H:%M:%S")
            .to_string(),
        Err(_) => escape::cell(rfc3339, 14),
    }
}

fn runner_lines(s: &State, d: Option<&BatchData>) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    let Some(d) = d else {
        return vec![Line::styled("reading the batch store…", dim())];
    };
    if d.status.state == RunnerState::Running {
        let name = d
            .runs
            .iter()
            .find(|r| Some(&r.summary.run_id) == d.status.current_run_id.as_ref())
            .map(|r| r.summary.task_name.clone())
            .unwrap_or_default();
        lines.push(Line::from(vec![
            Span::styled("▶ running ", bold().fg(ACCENT)),
            Span::styled(escape::cell(&name, 40), bold()),
            Span::raw(format!(
                " · step {}/{}",
                (d.status.current_step_index + 1).min(d.status.total_steps.max(1)),
                d.status.total_steps
            )),
            Span::raw(match &d.current_tool {
                Some(t) => format!(" · {}", escape::cell(t, 40)),
                None => String::new(),
            }),
            Span::styled(
                s.keymap
                    .first_key(
                        crate::tui::keymap::Scope::Screen(crate::tui::tab::ScreenId::BATCH),
                        crate::tui::action::Action::CancelRun,
                    )
                    .map(|k| format!("   {k} cancel"))
                    .unwrap_or_default(),
                dim(),
            ),
        ]));
    } else {
        lines.push(Line::from(vec![
            Span::styled("idle", bold()),
            Span::styled("  ·  Enter/r runs the selected task", dim()),
        ]));
    }
    match (&s.input, &d.recording) {
        (Some((InputTarget::RecordingName, i)), _) => lines.push(Line::from(vec![
            Span::styled("Recording name: ", bold()),
            Span::raw(escape::line(&i.text)),
            Span::styled("▏", Style::new().fg(ACCENT)),
            Span::styled("  Enter start · Esc cancel", dim()),
        ])),
        (_, Some(rec)) => lines.push(Line::from(vec![
            Span::styled(" ● REC ", rec_style()),
            Span::raw(format!(
                " {} · {} steps so far",
                escape::cell(&rec.name, 40),
                rec.steps.len()
            )),
            Span::styled("  ·  m stops and saves it as a task", dim()),
        ])),
        (_, None) => lines.push(Line::styled(
            "not recording  ·  m starts a recording: each successful call becomes a step",
            dim(),
        )),
    }
    if let Some(e) = &d.error {
        lines.push(Line::styled(escape::line(e), Style::new().fg(Color::Red)));
    }
    lines
}

fn task_lines(s: &State, d: &BatchData, area: Rect) -> Vec<Line<'static>> {
    let w = area.width as usize;
    let name_w = w.saturating_sub(6 + 10 + 3).clamp(8, 48);
    let mut lines = vec![Line::styled(
        format!("{:<name_w$} {:>5}  {:<10}", "name", "steps", "source"),
        bold(),
    )];
    if d.tasks.is_empty() {
        lines.push(Line::styled(
            "No tasks yet: m records one, n writes one,",
            dim(),
        ));
        lines.push(Line::styled(
            "or mark calls in History (Space) and press b there.",
            dim(),
        ));
        return lines;
    }
    let rows = (area.height as usize).saturating_sub(1).max(1);
    let cursor = s.batch.cursor();
    let off = page_offset(cursor.unwrap_or(0), rows);
    for (i, t) in d.tasks.iter().enumerate().skip(off).take(rows) {
        let l = Line::raw(format!(
            "{:<name_w$} {:>5}  {:<10}",
            escape::cell(&t.name, name_w),
            t.steps.len(),
            source_label(t.source)
        ));
        lines.push(if Some(i) == cursor {
            l.style(selected())
        } else {
            l
        });
    }
    lines
}

fn run_lines(s: &State, d: &BatchData, area: Rect) -> Vec<Line<'static>> {
    let w = area.width as usize;
    let name_w = w.saturating_sub(10 + 1 + 14 + 1 + 7 + 2).max(8);
    let mut lines = vec![Line::styled(
        format!(
            "{:<10} {:<14} {:>7}  {}",
            "state", "started", "ok/all", "task"
        ),
        bold(),
    )];
    if d.runs.is_empty() {
        lines.push(Line::styled("No runs yet.", dim()));
        return lines;
    }
    let rows = area.height as usize;
    for r in &d.runs {
        if lines.len() >= rows {
            break;
        }
        let (label, style) = state_label(r.summary.state);
        lines.push(Line::from(vec![
            Span::styled(format!("{label:<10}"), style),
            Span::raw(format!(
                " {:<14} {:>7}  {}",
                when(s, &r.summary.started_at),
                format!("{}/{}", r.ok, r.summary.total_steps),
                escape::cell(&r.summary.task_name, name_w)
            )),
        ]));
        // A run that did not succeed says where and why under its line: the step and the
        // error, who cancelled it, or its time limit.
        if matches!(
            r.summary.state,
            RunState::Failed | RunState::Cancelled | RunState::TimedOut
        ) && let Some(why) = &r.stopped
            && lines.len() < rows
        {
            lines.push(Line::styled(
                format!("  ↳ {}", escape::cell(why, w.saturating_sub(4))),
                Style::new().fg(Color::Red),
            ));
        }
    }
    lines
}

fn step_lines(t: &crate::batch::Task, area: Rect) -> Vec<Line<'static>> {
    let w = area.width as usize;
    t.steps
        .iter()
        .enumerate()
        .take(area.height as usize)
        .map(|(i, st)| {
            let mut extra = String::new();
            if let Some(ms) = st.wait_ms {
                extra.push_str(&format!("  wait {ms} ms"));
            }
            if !st.stops_on_error() {
                extra.push_str("  (continues on error)");
            }
            let args = st.arguments.to_string();
            let room = w.saturating_sub(6 + st.tool.len() + extra.len()).max(8);
            Line::from(vec![
                Span::styled(format!("{:>3}. ", i + 1), dim()),
                Span::styled(escape::cell(&st.tool, 48), bold()),
                Span::raw(format!(" {}", escape::cell(&args, room))),
                Span::styled(extra, dim()),
            ])
        })
        .collect()
}

pub fn draw(f: &mut Frame, area: Rect, s: &State) {
    let d = s.batch.data.as_ref();
    let runner = runner_lines(s, d);
    let [top, rest] = Layout::vertical([
        Constraint::Length(runner.len() as u16 + 2),
        Constraint::Min(4),
    ])
    .areas(area);
    f.render_widget(Paragraph::new(runner).block(block("Runner")), top);
    let Some(d) = d else {
        return;
    };
    let [tasks, runs] = if rest.width >= 120 {
        Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(rest)
    } else {
        Layout::vertical([Constraint::Percentage(50), Constraint::Percentage(50)]).areas(rest)
    };
    // A tall screen also shows what the selected task would do.
    let (tasks, steps) = if tasks.height >= 16 && !d.tasks.is_empty() {
        let list_h = (d.tasks.len() as u16 + 3).min(tasks.height / 2);
        let [a, b] =
            Layout::vertical([Constraint::Length(list_h), Constraint::Min(3)]).areas(tasks);
        (a, Some(b))
    } else {
        (tasks, None)
    };
    if let (Some(area), Some(t)) = (steps, s.batch.selected()) {
        let sb = block(format!("Steps of {}", escape::cell(&t.name, 60)));
        let inner = sb.inner(area);
        f.render_widget(sb, area);
        f.render_widget(Paragraph::new(step_lines(t, inner)), inner);
    }
    let tb = block(format!(
        "Tasks ({}) — r run · e edit · n new · d delete · m record",
        d.tasks.len()
    ));
    let inner = tb.inner(tasks);
    f.render_widget(tb, tasks);
    f.render_widget(Paragraph::new(task_lines(s, d, inner)), inner);
    let rb = block(format!("Runs ({})", d.runs.len()));
    let inner = rb.inner(runs);
    f.render_widget(rb, runs);
    f.render_widget(Paragraph::new(run_lines(s, d, inner)), inner);
}

/// The editor in place of the screen's body; the error (if any) under the text, never over it.
pub fn draw_editor(f: &mut Frame, area: Rect, ed: &Editor) {
    let what = match &ed.original {
        Some(id) => format!("Edit task {}", escape::cell(id, 64)),
        None => "New task".to_string(),
    };
    let b = block(format!("{what} — Ctrl-S check and save · Esc cancel"));
    let inner = b.inner(area);
    f.render_widget(b, area);
    let [text, msg] = Layout::vertical([Constraint::Min(1), Constraint::Length(2)]).areas(inner);
    f.render_widget(&ed.text, text);
    let line = match (&ed.error, ed.saving) {
        (Some(e), _) => {
            let at =
                e.at.map(|(l, c)| format!("line {l}:{c} — "))
                    .unwrap_or_default();
            Line::styled(
                format!("✗ {at}{}", escape::line(&e.message)),
                Style::new().fg(Color::Red).add_modifier(Modifier::BOLD),
            )
        }
        (None, true) => Line::styled("saving…", Style::new().fg(ACCENT)),
        (None, false) => Line::styled(
            "id (a new id saves a copy), name, description, steps: [{tool, arguments, waitMs, stopOnError}]",
            dim(),
        ),
    };
    f.render_widget(Paragraph::new(line).wrap(Wrap { trim: true }), msg);
}
