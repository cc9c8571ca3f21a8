//! `State::update`: one event in, the state changed, and the effects the loop must carry out
//! (I/O the state may not do itself) out. No terminal, no locks, no clock: testable as data.
use crossterm::event::{KeyEvent, MouseButton, MouseEvent, MouseEventKind};

use super::action::Action;
use super::event::Event;
use super::history::Finished;
use super::state::{Button, Layer, State, Withdrawn};
use super::tab::ScreenId;
use crate::mcp::ServerEvent;
use crate::mcp::events::DecidedBy;
use crate::protocol::CoreView;

pub use super::effect::Effect;

impl State {
    pub fn update(&mut self, event: Event) -> Vec<Effect> {
        let mut fx = Vec::new();
        // A request that went away since the last event is noticed before any key is read,
        // so a key never lands on the request that took its place.
        self.expire_withdrawn();
        self.drop_abandoned();
        match event {
            Event::Key(key) => self.on_key(key, self.now, &mut fx),
            Event::KeyAt(key, at) => self.on_key(key, at, &mut fx),
            Event::Mouse(m) => self.on_mouse(m, &mut fx),
            Event::Resize(w, h) => self.resized(w, h),
            Event::Fence(at) => self.fence_answered(at),
            Event::Server(ev) => self.on_server(ev),
            Event::Lagged(n) => {
                self.lost_events += n;
                self.notify(format!(
                    "{n} server events were missed (the display fell behind)"
                ));
            }
            Event::Sync(view) => self.sync(*view),
            Event::Confirm(req) => {
                let first = self.confirms.is_empty() && self.gate.withdrawn.is_none();
                fx.push(Effect::Alert {
                    title: "spock-tui: approval needed".into(),
                    body: format!(
                        "{} from {}",
                        req.ask.tool,
                        crate::mcp::events::ClientId::label(&req.ask.client)
                    ),
                });
                self.confirms.push_back(req);
                if first {
                    self.front_changed();
                }
            }
            Event::ConfirmGone { id, gone } => {
                if let Some(r) = self.confirms.iter_mut().find(|r| r.id == id) {
                    r.gone = Some(gone);
                }
            }
            Event::ClientSaid { id, approved, by } => {
                if let Some(r) = self.confirms.iter_mut().find(|r| r.id == id) {
                    r.client_says = Some((approved, by));
                }
            }
            Event::Navigate(req) => fx.push(self.navigate(req)),
            Event::ServerStatus(s) => self.server = s,
            Event::History(preload) => {
                let done = self.history.reload(&preload);
                for tool in done.added {
                    self.stats.entry(tool).or_default().calls += 1;
                }
                for tool in done.ended {
                    if let Some(st) = self.stats.get_mut(&tool) {
                        st.running = st.running.saturating_sub(1);
                    }
                }
                self.refresh_matches_if_narrowed();
            }
            Event::Devices(d, problems) => {
                self.device_problems = problems;
                self.set_devices(d)
            }
            Event::Batch(data) => self.on_batch_data(data),
            Event::BatchReply(reply) => self.on_batch_reply(reply),
            Event::Notice(n) => self.notify(n),
            Event::Tick => self.fence_overdue(),
            Event::Quit => self.quit = true,
        }
        self.drop_abandoned();
        fx
    }

    /// The device section's feed: call with every device the device layer knows about.
    pub fn set_devices(&mut self, devices: Vec<super::event::DeviceRow>) {
        self.devices = Some(devices);
    }

    /// A request whose asker stopped waiting (timeout, cancel) leaves the queue. When it was
    /// the one on screen, the modal says so for `gate.hold` before the next one shows, and
    /// keys do nothing meanwhile: nothing takes its place under the person's finger.
    fn drop_abandoned(&mut self) {
        let front = self.confirms.front().map(|r| r.id);
        if let Some(r) = self.confirms.front()
            && r.gone.is_some()
            && self.gate.withdrawn.is_none()
            && self.drawn(r.id)
        {
            let w = Withdrawn {
                tool: r.ask.tool.to_string(),
                client: super::escape::full(&crate::mcp::events::ClientId::label(&r.ask.client)),
                timed_out: self.now >= r.deadline,
                decided: r.gone.as_ref().and_then(|g| g.decided.clone()),
                why: r.gone.as_ref().and_then(|g| g.why.clone()),
                until: self.now + self.gate.hold,
            };
            // Also in the footer after the notice goes, and in the message log for good.
            let place = if w.decided.is_some() {
                "decided in another terminal: "
            } else {
                ""
            };
            let said = format!("{place}{} ({} from {})", w.outcome(), w.tool, w.client);
            self.gate.withdrawn = Some(w);
            self.notify(said);
        }
        self.confirms.retain(|r| r.gone.is_none());
        if self.confirms.front().map(|r| r.id) != front {
            self.front_changed();
        }
    }

    /// The withdrawn notice's time is up: the next request, if any, shows (and arms) afresh.
    fn expire_withdrawn(&mut self) {
        if self
            .gate
            .withdrawn
            .as_ref()
            .is_some_and(|w| self.now >= w.until)
        {
            self.gate.withdrawn = None;
            self.front_changed();
        }
    }

    /// Another request is in front (or none): the safe default, the top, not yet seen.
    pub(super) fn front_changed(&mut self) {
        if self.confirms.front().is_some() && self.gate.withdrawn.is_none() {
            self.notice_floor = self.notices_given + 1;
        }
        self.focus = Button::Deny;
        self.confirm_scroll = 0;
        self.gate.seen.clear();
        self.gate.shown = None;
    }

    fn sync(&mut self, view: CoreView) {
        // `q` asked because clients were connected, and they have all gone since: nothing is
        // left to cut off, so it quits as asked.
        if view.connected.is_empty()
            && matches!(self.prompt, Some(super::prompt::Prompt::Quit { .. }))
        {
            self.prompt = None;
            self.quit = true;
        }
        if view.history_size != self.history.capacity() {
            self.history.set_capacity(view.history_size);
            self.refresh_matches();
        }
        // `spock-tui token rotate` from another terminal: Status shows and copies the new
        // token from now on, and a configuration copied before no longer works.
        if view.token != self.core.token && !self.core.token.is_empty() {
            self.notify(
                "the token was rotated: the old one is refused; HTTP configurations need the \
                 new one (t on Status shows it)",
            );
        }
        // Own tools loaded, changed or gone: the catalogue follows (Tools, Settings' leaves).
        if view.own_tools != self.core.own_tools {
            self.tools = super::catalogue::with_own(&self.registry, &view.own_tools);
        }
        self.core = view;
    }

    fn on_server(&mut self, ev: ServerEvent) {
        match ev {
            ServerEvent::CallStarted {
                call_id,
                at,
                tool,
                level,
                transport,
                client,
                device,
                arguments,
                person,
            } => {
                let st = self.stats.entry(tool.clone()).or_default();
                st.calls += 1;
                st.running += 1;
                self.history.started(
                    call_id, at, &tool, level, transport, client, device, arguments,
                );
                if person {
                    self.history.set_person(call_id);
                }
                self.refresh_matches_if_narrowed();
            }
            // Text withheld at the start, now known to go into no password field.
            ServerEvent::CallArguments { call_id, arguments } => {
                self.history.set_arguments(call_id, arguments);
                self.refresh_matches_if_narrowed();
            }
            ServerEvent::CallFinished {
                call_id,
                tool,
                outcome,
                duration,
                decision,
                device,
                result,
                images,
                record,
            } => {
                if device.is_some() {
                    self.history.set_device(call_id, device);
                }
                if let Some(st) = self.stats.get_mut(&tool) {
                    st.running = st.running.saturating_sub(1);
                }
                // The modal went away by itself: say why, or a person looking up wonders.
                if decision.is_some_and(|d| !d.approved && d.by == DecidedBy::Timeout) {
                    self.notify(format!(
                        "confirmation for {} timed out: denied",
                        super::escape::line(&tool)
                    ));
                }
                self.history.finished(
                    call_id,
                    Finished {
                        outcome,
                        duration,
                        decision,
                        result: result.into(),
                        images,
                    },
                    record,
                );
                self.refresh_matches_if_narrowed();
            }
            // Clients, endpoints and devices are re-read by the loop after server events.
            ServerEvent::ClientIdentified { .. }
            | ServerEvent::ServerStateChanged { .. }
            | ServerEvent::DevicesChanged
            | ServerEvent::Device { .. }
            | ServerEvent::LeasesChanged => {}
        }
    }

    fn refresh_matches_if_narrowed(&mut self) {
        if self.history_view.matches.is_some() {
            self.refresh_matches();
        }
    }

    /// Recompute History's matches after the search, the filters or the records changed.
    pub fn refresh_matches(&mut self) {
        let v = &self.history_view;
        if v.query.is_empty() && v.filters.is_empty() {
            self.history_view.matches = None;
            return;
        }
        let q = v.query.to_lowercase();
        let f = &v.filters;
        let m = self
            .history
            .newest_first()
            .filter(|r| r.matches_lower(&q))
            .filter(|r| f.tools.is_empty() || f.tools.contains(&r.tool))
            .filter(|r| f.outcomes.is_empty() || r.outcome_in(&f.outcomes))
            .filter(|r| f.devices.is_empty() || f.devices.contains(r.device_label()))
            .filter(|r| f.clients.is_empty() || f.clients.contains(&r.client_label()))
            .map(|r| r.seq)
            .collect();
        self.history_view.matches = Some(m);
    }

    pub fn go(&mut self, screen: ScreenId) {
        self.screen = screen;
        self.details = None;
        self.picker = None;
        self.input = None;
        self.help = false;
        self.messages = None;
    }

    fn on_key(&mut self, key: KeyEvent, at: tokio::time::Instant, fx: &mut Vec<Effect>) {
        if key.kind != crossterm::event::KeyEventKind::Press {
            return;
        }
        self.nav.last_key = Some(self.nav.last_key.map_or(at, |k| k.max(at)));
        let layer = self.layer();
        // Letters typed for the screen an agent just replaced do nothing on the new one. (A
        // confirmation has its own, stricter gate.)
        if layer != Layer::Confirm && self.nav.holds(at) {
            return;
        }
        if layer == Layer::Confirm {
            if let Some(a) = self.keymap.lookup(layer, &key) {
                self.act_confirm(a, at, fx);
            }
            return;
        }
        if layer == Layer::Input {
            match self.keymap.lookup(layer, &key) {
                Some(a) => self.act(a, fx),
                None => self.edit_input(&key),
            }
            return;
        }
        if layer == Layer::Editor {
            match self.keymap.lookup(layer, &key) {
                Some(a) => self.act(a, fx),
                None => self.edit_editor(key),
            }
            return;
        }
        if let Some(a) = self.keymap.lookup(layer, &key) {
            self.act(a, fx);
        }
    }

    fn on_mouse(&mut self, m: MouseEvent, fx: &mut Vec<Effect>) {
        if self.layer() != Layer::Confirm && self.nav.holds(self.now) {
            return;
        }
        match m.kind {
            MouseEventKind::ScrollUp => self.act(Action::Up, fx),
            MouseEventKind::ScrollDown => self.act(Action::Down, fx),
            MouseEventKind::Down(MouseButton::Left) => {
                let layer = self.layer();
                if layer == Layer::Confirm {
                    // A click moves focus to its button and decides nothing: the click that
                    // brings a window forward after the bell lands wherever the pointer is.
                    // Focus moves only once approval could count, as with Tab.
                    if let Some(b) = super::ui::modal::button_at(self.size, m.column, m.row) {
                        self.click_button(b);
                    }
                    return;
                }
                if !matches!(layer, Layer::Screen(_) | Layer::Details) {
                    return;
                }
                if let Some(s) = super::ui::tab_at(self.size.0, m.column, m.row) {
                    self.go(s);
                } else if let Layer::Screen(s) = layer
                    && let Some(pos) = super::frame::row_at(self, s, m.column, m.row)
                {
                    super::screen::of(s).click(self, pos, fx);
                }
            }
            _ => {}
        }
    }
}
