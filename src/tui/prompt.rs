//! Our own small yes/no questions, asked before the control centre does something it should
//! not do on one key: delete a batch task, widen what agents may do (Enable all, a host group
//! on; narrowing asks nothing), or break another client's device lease. Each has the keyboard
//! (below a destructive-call confirmation); y goes ahead, n or Esc does not.
use super::action::Action;
use super::effect::Effect;
use super::escape;
use super::state::State;
use crate::mcp::registry::HostGroup;
use crate::protocol::AccessChange;
use crate::protocol::BatchCmd;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Prompt {
    DeleteTask {
        id: String,
        name: String,
    },
    /// Enable all would turn on `tools` tools that are off and allow these host groups.
    EnableAll {
        tools: usize,
        groups: Vec<HostGroup>,
    },
    /// A host group on (Settings).
    Group {
        group: HostGroup,
    },
    /// Settings' `K`.
    RotateCredential,
    /// `q` while MCP clients are connected: quitting stops the server under them.
    Quit {
        connected: Vec<String>,
    },
    /// From Status (`super::leases`).
    BreakLease {
        id: u64,
        device: String,
        holder: String,
    },
}

impl Prompt {
    pub fn question(&self) -> String {
        match self {
            Prompt::DeleteTask { name, .. } => {
                format!("delete task {:?}? y/n", escape::line(name))
            }
            Prompt::EnableAll { tools, groups } => {
                let mut what = Vec::new();
                if *tools > 0 {
                    what.push(format!(
                        "{tools} tool{} that {} off",
                        if *tools == 1 { "" } else { "s" },
                        if *tools == 1 { "is" } else { "are" }
                    ));
                }
                if !groups.is_empty() {
                    let keys: Vec<&str> = groups.iter().map(|g| g.key()).collect();
                    what.push(format!(
                        "the host group{} {} (off until allowed)",
                        if groups.len() == 1 { "" } else { "s" },
                        keys.join(" and ")
                    ));
                }
                format!(
                    "Enable all turns on {} for every agent. Go ahead? y/n",
                    what.join(" and ")
                )
            }
            Prompt::Group { group } => format!(
                "allow the host group {} ({}) for every agent? y/n",
                group.key(),
                group.label()
            ),
            Prompt::Quit { connected } => format!(
                "quit? It stops the server: {} connected ({}) lose it, their next call fails. y/n",
                connected
                    .iter()
                    .map(|c| c
                        .split(' ')
                        .next()
                        .and_then(|n| n.parse::<usize>().ok())
                        .unwrap_or(1))
                    .sum::<usize>(),
                connected.join(", ")
            ),
            Prompt::RotateCredential => "rotate the control credential? Every other attached \
                 terminal is detached and attaches again only with the new one; this one stays. \
                 y/n"
            .to_string(),
            Prompt::BreakLease { device, holder, .. } => format!(
                "break the lease on {} held by {}? y/n",
                escape::line(device),
                escape::line(holder)
            ),
        }
    }
}

impl State {
    /// A `q` that quit without asking, because the view had no client yet (it follows the
    /// server by a short settle): with clients connected `now`, it asks after all.
    pub fn quit_unless(&mut self, now: Vec<String>) {
        if !(self.quit && self.quit_unasked) {
            return;
        }
        self.quit_unasked = false;
        if !now.is_empty() {
            self.quit = false;
            self.core.connected = now.clone();
            self.prompt = Some(Prompt::Quit { connected: now });
        }
    }

    /// Enable all widens access: it asks first, naming what it would turn on; with
    /// everything already on there is nothing to do.
    pub(super) fn enable_all(&mut self) {
        let groups: Vec<HostGroup> = HostGroup::ALL
            .into_iter()
            .filter(|g| !super::settings::group_on(self, *g))
            .collect();
        let tools = self.tools.iter().filter(|t| !self.enabled(t.name)).count();
        if groups.is_empty() && tools == 0 {
            self.notify("every tool and host group is already on");
        } else {
            self.prompt = Some(Prompt::EnableAll { tools, groups });
        }
    }

    /// A host group on asks first (it widens what agents may do); off is at once.
    pub(super) fn set_group(&mut self, group: HostGroup, on: bool, fx: &mut Vec<Effect>) {
        if on {
            self.prompt = Some(Prompt::Group { group });
        } else {
            fx.push(Effect::Access(AccessChange::SetGroup { group, on }));
        }
    }

    /// y goes ahead, n or Esc does not; any other key leaves the question up.
    pub(super) fn act_prompt(&mut self, action: Action, fx: &mut Vec<Effect>) {
        let Some(prompt) = self.prompt.take() else {
            return;
        };
        match (action, prompt) {
            (Action::Approve, Prompt::DeleteTask { id, .. }) => {
                fx.push(Effect::Batch(BatchCmd::Delete { task_id: id }))
            }
            (Action::Deny, Prompt::DeleteTask { name, .. }) => {
                self.notify(format!("kept task {:?}", escape::line(&name)))
            }
            (Action::Approve, Prompt::EnableAll { .. }) => {
                fx.push(Effect::Access(AccessChange::EnableAll))
            }
            (Action::Deny, Prompt::EnableAll { .. }) => {
                self.notify("nothing changed: the tools and host groups stay as they were")
            }
            (Action::Approve, Prompt::Group { group }) => {
                fx.push(Effect::Access(AccessChange::SetGroup { group, on: true }))
            }
            (Action::Deny, Prompt::Group { group }) => self.notify(format!(
                "nothing changed: the host group {} stays off",
                group.key()
            )),
            (Action::Approve, Prompt::Quit { .. }) => self.quit = true,
            (Action::Deny, Prompt::Quit { .. }) => self.notify("still serving"),
            (Action::Approve, Prompt::RotateCredential) => fx.push(Effect::RotateCredential),
            (Action::Deny, Prompt::RotateCredential) => {
                self.notify("nothing changed: the control credential stays as it was")
            }
            (a @ (Action::Approve | Action::Deny), Prompt::BreakLease { id, device, .. }) => {
                self.answer_break(a == Action::Approve, id, device, fx)
            }
            (_, p) => self.prompt = Some(p),
        }
    }
}
