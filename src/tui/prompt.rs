//! Our own small yes/no questions, asked before the control centre does something it should
//! not do on one key: delete a batch task, let "Enable all" turn on the host groups, or break
//! another client's device lease. Each
//! has the keyboard (below a destructive-call confirmation); y goes ahead, n or Esc does not.
use super::action::Action;
use super::batch::BatchCmd;
use super::escape;
use super::state::State;
use super::update::{AccessChange, Effect};
use crate::mcp::registry::HostGroup;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Prompt {
    DeleteTask {
        id: String,
        name: String,
    },
    /// Enable all would also allow these host groups (off until now).
    EnableAll {
        groups: Vec<HostGroup>,
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
            Prompt::EnableAll { groups } => {
                let keys: Vec<&str> = groups.iter().map(|g| g.key()).collect();
                format!(
                    "Enable all also turns on the host group{} {} (off until allowed). \
                     Go ahead? y/n",
                    if groups.len() == 1 { "" } else { "s" },
                    keys.join(" and ")
                )
            }
            Prompt::BreakLease { device, holder, .. } => format!(
                "break the lease on {} held by {}? y/n",
                escape::line(device),
                escape::line(holder)
            ),
        }
    }
}

impl State {
    /// Enable all: at once when it only turns tools on, after a y when it would also allow
    /// host groups that are off.
    pub(super) fn enable_all(&mut self, fx: &mut Vec<Effect>) {
        let groups: Vec<HostGroup> = HostGroup::ALL
            .into_iter()
            .filter(|g| !super::settings::group_on(self, *g))
            .collect();
        if groups.is_empty() {
            fx.push(Effect::Access(AccessChange::EnableAll));
        } else {
            self.prompt = Some(Prompt::EnableAll { groups });
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
                self.notify("nothing changed: the host groups stay as they were")
            }
            (a @ (Action::Approve | Action::Deny), Prompt::BreakLease { id, device, .. }) => {
                self.answer_break(a == Action::Approve, id, device, fx)
            }
            (_, p) => self.prompt = Some(p),
        }
    }
}
