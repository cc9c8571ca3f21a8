//! Observers of the call pipeline: what, besides the audit trail and the event channel, learns
//! of every finished call. The pipeline knows only this trait; batch recording (and the store
//! that keeps a typed password for a task made from History) is one, registered by
//! [`super::core::Core::new`], so the pipeline never names the batch module.
use serde_json::Value;

use crate::model::{Outcome, Transport};

/// A call the pipeline has finished and recorded.
#[derive(Debug, Clone, Copy)]
pub struct FinishedCall<'a> {
    pub tool: &'a str,
    /// The arguments as recorded (a password field's text is «password»).
    pub args: &'a Value,
    /// What was kept out of `args` (`{"text": …}` for a password field), never shown.
    pub private: Option<&'a Value>,
    pub transport: Transport,
    pub outcome: Outcome,
    /// Its audit record's `seq`.
    pub record: u64,
    /// Set for a batch run's own steps.
    pub batch_run: Option<&'a str>,
}

pub trait CallObserver: Send + Sync {
    /// Every finished call, on the async runtime: must not block.
    fn finished(&self, call: &FinishedCall<'_>);
    /// What a call withheld from its record (a password typed: the private part a replay
    /// needs, see [`super::typed_text::TypedText::private_part`]), with its audit record and the
    /// History size: called off the runtime, so it may write a file.
    fn withheld(&self, _record: u64, _private: &serde_json::Value, _window: usize) {}
    /// The same, told first, on the async runtime (must not block): what `withheld` will
    /// keep is to be readable from now on, as the call's answer goes back before it is written.
    fn withheld_soon(&self, _record: u64, _private: &serde_json::Value, _window: usize) {}
}
