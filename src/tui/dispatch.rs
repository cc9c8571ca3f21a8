//! What an [`Action`] does, given to the layer that has the keyboard: the confirmation, help,
//! the message log, request details and the keys that work everywhere are here; each screen's
//! own actions are its `Screen::act` (`screen/`), the batch editor's are in `batch`, the yes/no
//! questions' in `prompt`. Reached only through `update()`.
use serde_json::json;

use super::action::Action;
use super::images;
use crate::protocol::{ServerCtl, ServerStatus};

use super::effect::Effect;
use super::state::{Blocked, Button, Layer, State};
use super::tab::ScreenId;

impl State {
    /// Rows a page key moves by: the body height less the chrome around a list.
    pub(super) fn page(&self) -> usize {
        usize::from(self.size.1.saturating_sub(7)).max(1)
    }

    pub(super) fn act(&mut self, action: Action, fx: &mut Vec<Effect>) {
        match self.layer() {
            Layer::Confirm => self.act_confirm(action, self.now, fx),
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
                if !super::screen::of(s).act(self, action, fx) {
                    self.act_global(action, fx);
                }
            }
        }
    }

    /// A click on a confirmation button: focus moves there (when a Tab could move it), and
    /// the footer says which key decides.
    pub(super) fn click_button(&mut self, b: Button) {
        if self.gate.withdrawn.is_some() || self.focus == b {
            return;
        }
        if matches!(
            self.approve_blocked(self.now),
            Some(Blocked::NotShown | Blocked::Arming(_))
        ) {
            return;
        }
        self.focus = b;
        self.notify(match b {
            Button::Approve => "a click only moves focus: Enter or y approves",
            Button::Deny => "a click only moves focus: Enter or n denies",
        });
    }

    /// A key (read at `at`) on the confirmation. Nothing answers a request no frame
    /// has shown yet, nothing answers anything while a withdrawn request is on screen, and
    /// approval also waits for the arming time and for the arguments' last line.
    pub(super) fn act_confirm(
        &mut self,
        action: Action,
        at: tokio::time::Instant,
        fx: &mut Vec<Effect>,
    ) {
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
            // Enter presses whichever button has focus, so a typed-ahead Enter decides
            // nothing before the request could have been read.
            Action::Press
                if matches!(
                    self.approve_blocked(at),
                    Some(Blocked::NotShown | Blocked::Arming(_))
                ) =>
            {
                None
            }
            Action::Press => Some(self.focus == Button::Approve),
            // Focus moves only once approval could count: a Tab or arrow typed ahead (Tab
            // is "next screen" elsewhere) must not leave Approve focused under a later Enter.
            Action::SwitchButton => {
                if !seen
                    || matches!(
                        self.approve_blocked(at),
                        Some(Blocked::NotShown | Blocked::Arming(_) | Blocked::Withdrawn)
                    )
                {
                    return;
                }
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
                // Scrolling typed before the request was on the person's screen would draw
                // (and count as read) rows nobody looked at.
                if !seen {
                    return;
                }
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
            fx.push(Effect::Decide {
                call_id: req.id,
                approve: approved,
            });
            // The next request starts from the safe default again, and arms afresh.
            self.front_changed();
        }
    }

    fn act_global(&mut self, action: Action, fx: &mut Vec<Effect>) {
        let n = ScreenId::ALL.len();
        match action {
            // Quitting stops the server: with clients connected, it asks first.
            Action::Quit if !self.attached && !self.core.connected.is_empty() => {
                self.prompt = Some(super::prompt::Prompt::Quit {
                    connected: self.core.connected.clone(),
                })
            }
            Action::Quit => {
                self.quit = true;
                self.quit_unasked = !self.attached;
            }
            Action::Help => {
                self.help = true;
                self.help_scroll = 0;
            }
            Action::Messages => self.messages = Some(0),
            Action::NextScreen => self.go(ScreenId::ALL[(self.screen.index() + 1) % n]),
            Action::PrevScreen => self.go(ScreenId::ALL[(self.screen.index() + n - 1) % n]),
            Action::Go(s) => self.go(s),
            Action::FollowNav => self.follow_offer(self.nav.last_key.unwrap_or(self.now)),
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
                            .map(|f| images::of_call(&f.images, &f.result.value()))
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
}
