//! Status as a [`Screen`]: its keys (copy the client configuration, stdio or HTTP, the client
//! format, leases) and what they do; the moving keys scroll the configuration, as Status has
//! no list of its own. Drawn by `draw`; device leases (listing, breaking one) are `leases`.
pub mod draw;
pub mod leases;

use ratatui::Frame;
use ratatui::layout::Rect;

use super::kit::Screen;
use crate::clientconfig::{self, Client};
use crate::protocol::ServerStatus;
use crate::tui::action::Action;
use crate::tui::effect::Effect;
use crate::tui::state::State;
use crate::tui::tab::ScreenId;

pub struct Status;

impl Screen for Status {
    fn id(&self) -> ScreenId {
        ScreenId::STATUS
    }
    fn draw(&self, f: &mut Frame, body: Rect, s: &State) {
        draw::draw(f, body, s)
    }
    fn act(&self, s: &mut State, action: Action, fx: &mut Vec<Effect>) -> bool {
        match action {
            Action::CopyConfig => match s.config_text() {
                Ok(text) => fx.push(Effect::Copy {
                    what: s.config_title(),
                    text,
                }),
                Err(e) => s.notify(e),
            },
            Action::ToggleConfigKind => {
                s.status.http = !s.status.http;
                s.status.scroll = 0;
            }
            Action::NextClient => {
                s.status.client = (s.status.client + 1) % Client::ALL.len();
                s.status.scroll = 0;
            }
            Action::PrevClient => {
                s.status.client = (s.status.client + Client::ALL.len() - 1) % Client::ALL.len();
                s.status.scroll = 0;
            }
            a @ (Action::NextLease | Action::BreakLease) => return s.act_lease(a),
            // Status has no list: the moving keys scroll the client configuration.
            a => {
                let max = draw::config_max_scroll(s);
                let pos = usize::from(s.status.scroll.min(max));
                let Some(p) = s.moved(a, pos, usize::from(max) + 1) else {
                    return false;
                };
                s.status.scroll = p as u16;
            }
        }
        true
    }
    fn select(&self, s: &mut State, serial: &str) -> Result<(), String> {
        match &s.devices {
            None => Err(format!(
                "cannot select device {serial:?}: there is no device layer yet"
            )),
            Some(d) if d.iter().any(|d| d.serial == serial) => Ok(()),
            Some(_) => Err(format!("no device {serial:?} is connected")),
        }
    }
}

impl State {
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
