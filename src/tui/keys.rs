//! What each [`Action`] does to the state, layer by layer. Reached only through `update()`.
//! The Batch screen's keys and its editor are handled in `batch`, the yes/no questions in
//! `prompt`.
use serde_json::json;

use super::action::Action;
use super::event::ServerStatus;
use super::images;
use super::input::LineInput;

use super::state::{Button, Details, InputTarget, Layer, Screen, State};
use super::update::{AccessChange, Effect, ServerCtl};
use crate::clientconfig::{self, Client};

impl State {
    /// Rows a page key moves by: the body height less the chrome around a list.
    fn page(&self) -> usize {
        usize::from(self.size.1.saturating_sub(7)).max(1)
    }

    pub(super) fn act(&mut self, action: Action, fx: &mut Vec<Effect>) {
        match self.layer() {
            Layer::Confirm => self.act_confirm(action, self.now),
            Layer::Help => {
                let page = self.page() as u16;
                match action {
                    Action::Help => self.help = false,
                    Action::Up => self.help_scroll = self.help_scroll.saturating_sub(1),
                    Action::Down => self.help_scroll = self.help_scroll.saturating_add(1),
                    Action::PageUp => self.help_scroll = self.help_scroll.saturating_sub(page),
                    Action::PageDown => self.help_scroll = self.help_scroll.saturating_add(page),
                    _ => {}
                }
            }
            Layer::Messages => {
                let page = self.page() as u16;
                let scroll = self.messages.get_or_insert(0);
                match action {
                    Action::Messages => self.messages = None,
                    Action::Up => *scroll = scroll.saturating_sub(1),
                    Action::Down => *scroll = scroll.saturating_add(1),
                    Action::PageUp => *scroll = scroll.saturating_sub(page),
                    Action::PageDown => *scroll = scroll.saturating_add(page),
                    _ => {}
                }
            }
            Layer::Prompt => self.act_prompt(action, fx),
            Layer::Input => self.act_input(action, fx),
            Layer::Editor => self.act_editor(action, fx),
            Layer::Picker => self.act_picker(action),
            Layer::Details => {
                if !self.act_details(action, fx) {
                    self.act_global(action, fx);
                }
            }
            Layer::Screen(s) => {
                if !self.act_screen(s, action, fx) {
                    self.act_global(action, fx);
                }
            }
        }
    }

    /// A key (read at `at`) or a click on the confirmation. Nothing answers a request no frame
    /// has shown yet, nothing answers anything while a withdrawn request is on screen, and
    /// approval also waits for the arming time and for the arguments' last line.
    pub(super) fn act_confirm(&mut self, action: Action, at: tokio::time::Instant) {
        if self.gate.withdrawn.is_some() {
            return;
        }
        let seen = match (self.confirms.front(), self.gate.shown) {
            (Some(r), Some((id, shown))) => r.id == id && at >= shown,
            _ => false,
        };
        let answer = match action {
            Action::Approve => Some(true),
            Action::Deny => Some(false),
            Action::Press => Some(self.focus == Button::Approve),
            Action::SwitchButton => {
                self.focus = match self.focus {
                    Button::Deny => Button::Approve,
                    Button::Approve => Button::Deny,
                };
                None
            }
            a @ (Action::Up
            | Action::Down
            | Action::PageUp
            | Action::PageDown
            | Action::Top
            | Action::Bottom) => {
                let max = super::ui::modal::max_scroll(self);
                let page = super::ui::modal::page(self);
                let cur = self.confirm_scroll.min(max);
                self.confirm_scroll = match a {
                    Action::Up => cur.saturating_sub(1),
                    Action::Down => cur.saturating_add(1).min(max),
                    Action::PageUp => cur.saturating_sub(page),
                    Action::PageDown => cur.saturating_add(page).min(max),
                    Action::Top => 0,
                    _ => max,
                };
                if self.confirm_scroll >= max {
                    self.gate.end_seen = true;
                }
                None
            }
            _ => None,
        };
        let Some(approved) = answer else {
            return;
        };
        // A denial needs only to have been seen; an approval needs everything.
        if !seen || (approved && self.approve_blocked(at).is_some()) {
            return;
        }
        if let Some(req) = self.confirms.pop_front() {
            self.notify(format!(
                "{} {}",
                if approved { "approved" } else { "denied" },
                req.ask.tool
            ));
            req.answer(approved);
            // The next request starts from the safe default again, and arms afresh.
            self.front_changed();
        }
    }

    fn act_global(&mut self, action: Action, fx: &mut Vec<Effect>) {
        let n = Screen::ALL.len();
        match action {
            Action::Quit => self.quit = true,
            Action::Help => {
                self.help = true;
                self.help_scroll = 0;
            }
            Action::Messages => self.messages = Some(0),
            Action::NextScreen => self.go(Screen::ALL[(self.screen.index() + 1) % n]),
            Action::PrevScreen => self.go(Screen::ALL[(self.screen.index() + n - 1) % n]),
            Action::Go(s) => self.go(s),
            Action::ServerStartStop => match self.server {
                ServerStatus::Running => fx.push(Effect::Server(ServerCtl::Stop)),
                ServerStatus::Stopped | ServerStatus::Failed(_) => {
                    fx.push(Effect::Server(ServerCtl::Start))
                }
                ServerStatus::Starting | ServerStatus::Stopping => self.notify(format!(
                    "the server is {}; try again in a moment",
                    self.server.label()
                )),
            },
            Action::ServerRestart => match self.server {
                ServerStatus::Starting | ServerStatus::Stopping => self.notify(format!(
                    "the server is {}; try again in a moment",
                    self.server.label()
                )),
                _ => fx.push(Effect::Server(ServerCtl::Restart)),
            },
            _ => {}
        }
    }

    /// Cursor movement shared by every list; returns the new position.
    pub(super) fn moved(&self, action: Action, pos: usize, len: usize) -> Option<usize> {
        let last = len.saturating_sub(1);
        Some(match action {
            Action::Up => pos.saturating_sub(1),
            Action::Down => (pos + 1).min(last),
            Action::PageUp => pos.saturating_sub(self.page()),
            Action::PageDown => (pos + self.page()).min(last),
            Action::Top => 0,
            Action::Bottom => last,
            _ => return None,
        })
    }

    fn act_screen(&mut self, screen: Screen, action: Action, fx: &mut Vec<Effect>) -> bool {
        match screen {
            Screen::Status => match action {
                Action::CopyConfig => match self.config_text() {
                    Ok(text) => fx.push(Effect::Copy {
                        what: self.config_title(),
                        text,
                    }),
                    Err(e) => self.notify(e),
                },
                Action::ToggleConfigKind => {
                    self.status.http = !self.status.http;
                    self.status.scroll = 0;
                }
                Action::NextClient => {
                    self.status.client = (self.status.client + 1) % Client::ALL.len();
                    self.status.scroll = 0;
                }
                Action::PrevClient => {
                    self.status.client =
                        (self.status.client + Client::ALL.len() - 1) % Client::ALL.len();
                    self.status.scroll = 0;
                }
                a @ (Action::NextLease | Action::BreakLease) => return self.act_lease(a),
                // Status has no list: the moving keys scroll the client configuration.
                a => {
                    let max = super::ui::status::config_max_scroll(self);
                    let pos = usize::from(self.status.scroll.min(max));
                    let Some(p) = self.moved(a, pos, usize::from(max) + 1) else {
                        return false;
                    };
                    self.status.scroll = p as u16;
                }
            },
            Screen::Tools => match action {
                Action::Search => {
                    self.input = Some((
                        InputTarget::ToolSearch,
                        LineInput::new(&self.tools_view.query),
                    ))
                }
                Action::ToggleDestructiveOnly => {
                    self.tools_view.destructive_only = !self.tools_view.destructive_only;
                    self.tools_view.cursor = 0;
                }
                Action::ClearFilters => {
                    self.tools_view.query.clear();
                    self.tools_view.destructive_only = false;
                }
                a => {
                    let len = self.visible_tools().len();
                    let Some(p) = self.moved(a, self.tools_view.cursor, len) else {
                        return false;
                    };
                    self.tools_view.cursor = p;
                }
            },
            Screen::Activity => match action {
                Action::Open => {
                    if let Some(seq) = self.activity_seq_at(self.activity_cursor()) {
                        self.details = Some(Details { seq, scroll: 0 });
                    }
                }
                Action::Top => self.activity.selected = None,
                a => {
                    let len = self.history.live_len();
                    let Some(p) = self.moved(a, self.activity_cursor(), len) else {
                        return false;
                    };
                    self.activity.selected = self.activity_seq_at(p);
                }
            },
            Screen::History => match action {
                Action::Open => {
                    if let Some(seq) = self.history_seq_at(self.history_cursor()) {
                        self.details = Some(Details { seq, scroll: 0 });
                    }
                }
                Action::Search => {
                    self.input = Some((
                        InputTarget::HistorySearch,
                        LineInput::new(&self.history_view.query),
                    ))
                }
                Action::Filter => self.open_picker(),
                Action::Mark => self.toggle_mark(),
                Action::TaskFromMarked => self.task_from_marked(),
                Action::ClearFilters => {
                    self.history_view.query.clear();
                    self.history_view.filters = Default::default();
                    self.refresh_matches();
                }
                Action::Top => self.history_view.selected = None,
                a => {
                    let len = self.history_len();
                    let Some(p) = self.moved(a, self.history_cursor(), len) else {
                        return false;
                    };
                    self.history_view.selected = self.history_seq_at(p);
                }
            },
            Screen::Settings => match action {
                Action::Up => self.move_settings(-1),
                Action::Down => self.move_settings(1),
                Action::PageUp => self.move_settings(-(self.page() as isize)),
                Action::PageDown => self.move_settings(self.page() as isize),
                Action::Top => self.move_settings(-10_000),
                Action::Bottom => self.move_settings(10_000),
                Action::EnableAll => self.enable_all(fx),
                Action::ReadOnlyOnly => fx.push(Effect::Access(AccessChange::ReadOnlyOnly)),
                Action::Open | Action::Toggle => self.activate_setting(fx),
                _ => return false,
            },
            Screen::Batch => return self.act_batch(action, fx),
        }
        true
    }

    fn act_details(&mut self, action: Action, fx: &mut Vec<Effect>) -> bool {
        let Some(d) = self.details.as_mut() else {
            return false;
        };
        let page = usize::from(self.size.1.saturating_sub(7)).max(1) as u16;
        match action {
            Action::Back => self.details = None,
            Action::Up => d.scroll = d.scroll.saturating_sub(1),
            Action::Down => d.scroll = d.scroll.saturating_add(1),
            Action::PageUp => d.scroll = d.scroll.saturating_sub(page),
            Action::PageDown => d.scroll = d.scroll.saturating_add(page),
            Action::Top => d.scroll = 0,
            Action::CopyRequest | Action::CopyResponse | Action::SaveImage => {
                let seq = d.seq;
                let Some(r) = self.history.get(seq) else {
                    self.notify("that call has left the history");
                    return true;
                };
                match action {
                    Action::CopyRequest => {
                        let text = serde_json::to_string_pretty(&json!({
                            "tool": r.tool, "arguments": r.arguments, "client": r.client_label(),
                            "transport": r.transport.label(), "device": r.device,
                            "time": r.at.to_rfc3339(),
                        }))
                        .unwrap_or_default();
                        fx.push(Effect::Copy {
                            what: format!("request of {}", r.tool),
                            text,
                        });
                    }
                    Action::CopyResponse => match &r.finished {
                        Some(f) => fx.push(Effect::Copy {
                            what: format!("response of {}", r.tool),
                            text: serde_json::to_string_pretty(&f.result.value())
                                .unwrap_or_default(),
                        }),
                        None => self.notify("the call is still running: no response yet"),
                    },
                    _ => {
                        let found = r
                            .finished
                            .as_ref()
                            .map(|f| images::find(&f.result.value()))
                            .unwrap_or_default();
                        if found.is_empty() {
                            self.notify("this result holds no image");
                        } else {
                            let stem = format!("call-{}-{}", r.call_id.unwrap_or(r.seq), r.tool);
                            fx.push(Effect::SaveImages {
                                stem,
                                images: found,
                            });
                        }
                    }
                }
            }
            _ => return false,
        }
        true
    }

    pub fn config_title(&self) -> String {
        let c = Client::ALL
            .get(self.status.client)
            .copied()
            .unwrap_or(Client::Generic);
        format!(
            "{} configuration for {}",
            if self.status.http { "HTTP" } else { "stdio" },
            c.label()
        )
    }

    /// The client configuration Status shows and copies; an error when it cannot exist yet.
    pub fn config_text(&self) -> Result<String, String> {
        let c = Client::ALL
            .get(self.status.client)
            .copied()
            .unwrap_or(Client::Generic);
        if self.status.http {
            if let Some(why) = clientconfig::http_refusal(c) {
                return Err(why.to_string());
            }
            let url = self
                .core
                .endpoints
                .http
                .as_deref()
                .filter(|_| self.server == ServerStatus::Running)
                .ok_or("the HTTP endpoint is not running: start the server (s) first")?;
            Ok(clientconfig::http(c, url, &self.core.token))
        } else {
            Ok(clientconfig::stdio(
                c,
                &self.core.exe,
                &self.core.descriptor,
                None,
            ))
        }
    }
}
