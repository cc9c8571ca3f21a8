//! Text a tool types into a field on the device, and who may see it.
//!
//! A call of a tool declared with [`ToolDef::typing_text`](super::registry::ToolDef::typing_text)
//! starts with its typed text withheld from every view: the live Activity row (the
//! `CallStarted` event already carries «password»), the audit trail, History and a recording.
//! A call may type several texts: its `text` (slot 0) and the `text` of each of its further
//! `fields` (slot 1, 2, …; one form filled in one call). The tool's handler says what each
//! text goes into as soon as it knows ([`Ctx::typing_into_field`]); only a text found to go
//! into a field that is no password field is shown, by a `CallArguments` event: before it is
//! typed when the tool reads the screen first (the element tool), or after, once a read of the
//! screen shows it (typing into whatever is focused, [`after_read`]). A text whose call never got that far (refused, failed before it found
//! the field) or whose field could not be read in time stays withheld: the secret is never
//! drawn.
//!
//! The real values go only where a replay needs them, never into a record: a recorded step's
//! private part, and the typed-password store History's `b` reads
//! ([`crate::batch::secrets`]).
use std::sync::Mutex;

use serde_json::{Map, Value};

pub mod after_read;

/// What a password field's typed text is shown as wherever the call is recorded.
pub const PASSWORD_PLACEHOLDER: &str = "«password»";

/// What a typed text is known to go into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// Not known (yet): the text stays withheld.
    Unknown,
    /// A field that is not a password field: the text is shown.
    Plain,
    /// A password field: the text is recorded as «password» for good.
    Password,
}

/// How many typed-text slots `args` has: its `text`, then one per entry of `fields`.
fn slot_count(args: &Value) -> usize {
    1 + args
        .get("fields")
        .and_then(Value::as_array)
        .map_or(0, Vec::len)
}

/// Slot `i` of `args`: `text` for 0, `fields[i-1].text` after.
fn slot(args: &Value, i: usize) -> Option<&Value> {
    match i {
        0 => args.get("text"),
        _ => args.get("fields")?.get(i - 1)?.get("text"),
    }
}

fn slot_mut(args: &mut Value, i: usize) -> Option<&mut Value> {
    match i {
        0 => args.get_mut("text"),
        _ => args.get_mut("fields")?.get_mut(i - 1)?.get_mut("text"),
    }
}

/// Replaces the text in slot `i` (when there is one) with [`PASSWORD_PLACEHOLDER`].
fn hide_slot(args: &mut Value, i: usize) {
    if let Some(t) = slot_mut(args, i) {
        *t = Value::String(PASSWORD_PLACEHOLDER.into());
    }
}

/// One call's typed texts, shared by the pipeline and the tool's handler.
#[derive(Debug)]
pub struct TypedText {
    /// One per slot.
    targets: Mutex<Vec<Target>>,
    /// The person's view of the arguments with the texts in: what is shown of a text once its
    /// field is known to be plain. `None` when the call types nothing.
    revealed: Option<Value>,
    /// Per slot: the text is a kept password (a batch step's private part), which may go into
    /// a password field only, or an agent could have it typed where it can read it back.
    kept: Vec<bool>,
}

impl TypedText {
    /// A call that types nothing.
    pub fn none() -> TypedText {
        TypedText {
            targets: Mutex::new(vec![Target::Unknown]),
            revealed: None,
            kept: Vec::new(),
        }
    }

    /// A call whose tool types text: `person_args` is the person's view with the texts in.
    /// Only a `text` string counts (a call without one is refused by its validation anyway).
    pub fn of(types_text: bool, person_args: &Value) -> TypedText {
        let typed = types_text && person_args.get("text").is_some_and(Value::is_string);
        TypedText {
            targets: Mutex::new(vec![Target::Unknown; slot_count(person_args)]),
            revealed: typed.then(|| person_args.clone()),
            kept: Vec::new(),
        }
    }

    /// The texts in the slots marked true are kept passwords: each is typed into a password
    /// field or not at all.
    pub fn kept_passwords(mut self, kept: Vec<bool>) -> TypedText {
        self.kept = kept;
        self
    }

    /// The text in slot `i` is a kept password (see [`Self::kept_passwords`]).
    pub fn is_kept(&self, i: usize) -> bool {
        self.kept.get(i).copied().unwrap_or(false)
    }

    fn targets(&self) -> Vec<Target> {
        self.targets
            .lock()
            .map(|t| t.clone())
            .unwrap_or_else(|_| vec![Target::Password; self.kept.len().max(1)])
    }

    /// What the text in slot `i` goes into, as far as is known.
    pub fn target(&self, i: usize) -> Target {
        self.targets().get(i).copied().unwrap_or(Target::Unknown)
    }

    /// Some of the call's text is hidden from every view: it types text into a field not known
    /// to be plain.
    pub fn withholds(&self) -> bool {
        self.revealed.is_some() && self.targets().iter().any(|t| *t != Target::Plain)
    }

    /// `args` (the call's arguments, or a view of them) with every text not known to go into
    /// a plain field replaced by [`PASSWORD_PLACEHOLDER`].
    pub fn hide_withheld(&self, args: &mut Value) {
        if self.revealed.is_none() {
            return;
        }
        let targets = self.targets();
        for i in 0..slot_count(args) {
            if targets.get(i).copied().unwrap_or(Target::Unknown) != Target::Plain {
                hide_slot(args, i);
            }
        }
    }

    /// The texts of `args` (the real arguments) not known to go into a plain field: what every
    /// message of the call must hide as well as its arguments ([`super::scrub`]).
    pub fn withheld_texts<'a>(&self, args: &'a Value) -> Vec<&'a str> {
        if self.revealed.is_none() {
            return Vec::new();
        }
        let targets = self.targets();
        (0..slot_count(args))
            .filter(|&i| targets.get(i).copied().unwrap_or(Target::Unknown) != Target::Plain)
            .filter_map(|i| slot(args, i).and_then(Value::as_str))
            .collect()
    }

    /// What a replay needs of `args` (the real arguments) that the record does not hold: the
    /// withheld `text`, and the whole `fields` list when a text in it is withheld. `None`
    /// when nothing is withheld.
    pub fn private_part(&self, args: &Value) -> Option<Value> {
        if !self.withholds() {
            return None;
        }
        let targets = self.targets();
        let withheld =
            |i: usize| targets.get(i).copied().unwrap_or(Target::Unknown) != Target::Plain;
        let mut private = Map::new();
        if withheld(0)
            && let Some(t) = args.get("text")
        {
            private.insert("text".into(), t.clone());
        }
        if (1..slot_count(args)).any(withheld)
            && let Some(f) = args.get("fields")
        {
            private.insert("fields".into(), f.clone());
        }
        (!private.is_empty()).then_some(Value::Object(private))
    }

    /// Records what the text in slot `i` goes into. A password field is final; a plain field
    /// is taken only while nothing was decided. Returns the arguments to show when a text
    /// became visible.
    pub(super) fn settle(&self, i: usize, password: bool) -> Option<Value> {
        let mut t = self.targets.lock().ok()?;
        let slot = t.get_mut(i)?;
        match (*slot, password) {
            (_, true) => {
                *slot = Target::Password;
                None
            }
            (Target::Unknown, false) => {
                *slot = Target::Plain;
                drop(t);
                let mut view = self.revealed.clone()?;
                self.hide_withheld(&mut view);
                Some(view)
            }
            _ => None,
        }
    }
}

/// `args` with every typed text (its `text`, and each of its `fields`' `text`) replaced by
/// [`PASSWORD_PLACEHOLDER`].
pub fn hide_text(args: &mut Value) {
    for i in 0..slot_count(args) {
        hide_slot(args, i);
    }
}

/// The texts of the typing steps in a task anywhere in `v` (`steps: [{tool, arguments}]`,
/// `tool` one for which `types_text` holds) replaced by [`PASSWORD_PLACEHOLDER`]: a call that
/// saves, reads or runs a task is recorded without the texts its steps will type, since which
/// of them go into password fields is known only when each step runs (its own record says).
/// Returns whether any text was hidden.
pub fn hide_step_texts(v: &mut Value, types_text: impl Fn(&str) -> bool + Copy) -> bool {
    let mut hidden = match v {
        Value::Array(a) => a
            .iter_mut()
            .fold(false, |h, x| hide_step_texts(x, types_text) | h),
        Value::Object(o) => o
            .iter_mut()
            .filter(|(k, _)| *k != "steps")
            .fold(false, |h, (_, x)| hide_step_texts(x, types_text) | h),
        _ => false,
    };
    let Some(steps) = v.get_mut("steps").and_then(Value::as_array_mut) else {
        return hidden;
    };
    for step in steps {
        let typing = step
            .get("tool")
            .and_then(Value::as_str)
            .is_some_and(&types_text);
        if let Some(a) = step.get_mut("arguments").filter(|_| typing)
            && slot(a, 0).is_some()
        {
            hide_text(a);
            hidden = true;
        }
    }
    hidden
}

/// Which of a step's or record's typed texts stand for a password they do not hold.
fn placeholder_slots(args: &Value) -> Vec<bool> {
    (0..slot_count(args))
        .map(|i| slot(args, i).and_then(Value::as_str) == Some(PASSWORD_PLACEHOLDER))
        .collect()
}

/// Which typed texts of a step run with a value its private part supplies: those that differ
/// from the step's own (recorded) arguments. Each of them is a kept password, whatever the
/// recorded arguments say in its place.
pub fn kept_slots(recorded: &Value, run: &Value) -> Vec<bool> {
    (0..slot_count(run))
        .map(|i| slot(run, i) != slot(recorded, i))
        .collect()
}

/// A step or record argument that stands for a password it does not hold.
pub fn is_placeholder(args: &Value) -> bool {
    placeholder_slots(args).contains(&true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn withheld_until_a_plain_field_is_found_and_a_password_field_is_final() {
        let args = json!({"text": "hunter2", "element": "x"});
        let t = TypedText::of(true, &args);
        assert!(t.withholds());
        assert_eq!(t.settle(0, false), Some(args.clone()));
        assert!(!t.withholds());
        let t = TypedText::of(true, &args);
        assert_eq!(t.settle(0, true), None);
        assert_eq!(t.settle(0, false), None, "a password field stays one");
        assert!(t.withholds() && t.target(0) == Target::Password);
        // A tool that types nothing, or a call without text, withholds nothing.
        assert!(!TypedText::of(false, &args).withholds());
        assert!(!TypedText::of(true, &json!({"element": "x"})).withholds());
        assert!(!TypedText::none().withholds());
    }

    #[test]
    fn each_field_of_a_form_is_withheld_or_shown_on_its_own() {
        let args = json!({"element": "email", "text": "a@b.c",
                          "fields": [{"element": "pw", "text": "hunter2"}, {"element": "name", "text": "Ann"}]});
        let t = TypedText::of(true, &args);
        assert!(t.withholds());
        // The email is plain: shown, the other two still hidden.
        let shown = t.settle(0, false).expect("a text became visible");
        assert_eq!(shown["text"], "a@b.c");
        assert_eq!(shown["fields"][0]["text"], PASSWORD_PLACEHOLDER);
        assert_eq!(shown["fields"][1]["text"], PASSWORD_PLACEHOLDER);
        assert_eq!(t.settle(1, true), None);
        let shown = t.settle(2, false).expect("the name became visible");
        assert_eq!(shown["fields"][1]["text"], "Ann");
        assert_eq!(
            shown["fields"][0]["text"], PASSWORD_PLACEHOLDER,
            "the password never is"
        );
        assert!(t.withholds(), "one text is a password's");
        // The record hides the password only; the private part holds what a replay needs.
        let mut recorded = args.clone();
        t.hide_withheld(&mut recorded);
        assert_eq!(recorded["text"], "a@b.c");
        assert_eq!(recorded["fields"][0]["text"], PASSWORD_PLACEHOLDER);
        assert_eq!(recorded["fields"][1]["text"], "Ann");
        assert_eq!(
            t.private_part(&args),
            Some(json!({"fields": args["fields"]}))
        );
        assert_eq!(placeholder_slots(&recorded), vec![false, true, false]);
        assert!(is_placeholder(&recorded));
    }

    #[test]
    fn a_form_whose_fields_are_all_plain_withholds_nothing() {
        let args = json!({"element": "a", "text": "x", "fields": [{"element": "b", "text": "y"}]});
        let t = TypedText::of(true, &args);
        t.settle(0, false);
        assert!(t.withholds(), "the second field is not known yet");
        t.settle(1, false);
        assert!(!t.withholds());
        assert_eq!(t.private_part(&args), None);
        // An undecided text stays hidden in the record, with the first field's shown.
        let t = TypedText::of(true, &args);
        t.settle(0, false);
        let mut recorded = args.clone();
        t.hide_withheld(&mut recorded);
        assert_eq!(recorded["text"], "x");
        assert_eq!(recorded["fields"][0]["text"], PASSWORD_PLACEHOLDER);
        assert_eq!(
            t.private_part(&args),
            Some(json!({"fields": args["fields"]}))
        );
    }

    #[test]
    fn a_tasks_typing_steps_are_recorded_without_their_texts() {
        let mut args = json!({"name": "login", "steps": [
            {"tool": "android_tap_element", "arguments": {"element": "pw", "text": "kept"}},
            {"tool": "android_input_text", "arguments": {"text": "Hunt3r"}},
            {"tool": "android_input_text_into_element",
             "arguments": {"element": "e", "text": "a@b.c", "fields": [{"element": "pw", "text": "x1"}]}},
        ]});
        let typing = |t: &str| t.starts_with("android_input_text");
        assert!(hide_step_texts(&mut args, typing));
        assert_eq!(
            args["steps"][0]["arguments"]["text"], "kept",
            "not a typing tool"
        );
        assert_eq!(args["steps"][1]["arguments"]["text"], PASSWORD_PLACEHOLDER);
        assert_eq!(args["steps"][2]["arguments"]["text"], PASSWORD_PLACEHOLDER);
        assert_eq!(
            args["steps"][2]["arguments"]["fields"][0]["text"],
            PASSWORD_PLACEHOLDER
        );
        assert!(!hide_step_texts(&mut json!({"steps": "no list"}), typing));
        assert!(!hide_step_texts(&mut json!({"id": "t1"}), typing));
        // A task inside an answer (a save's, a get's, a list's) too.
        let mut answer = json!({"tasks": [{"task": {"steps": [
            {"tool": "android_input_text", "arguments": {"text": "Hunt3r"}}]}}]});
        assert!(hide_step_texts(&mut answer, typing));
        assert_eq!(
            answer["tasks"][0]["task"]["steps"][0]["arguments"]["text"],
            PASSWORD_PLACEHOLDER
        );
    }

    #[test]
    fn hiding_replaces_only_the_texts() {
        let mut a = json!({"text": "hunter2", "element": "pw"});
        hide_text(&mut a);
        assert_eq!(a, json!({"text": PASSWORD_PLACEHOLDER, "element": "pw"}));
        assert!(is_placeholder(&a));
        let mut b = json!({"element": "pw"});
        hide_text(&mut b);
        assert_eq!(b, json!({"element": "pw"}));
        let mut c =
            json!({"text": "a", "fields": [{"element": "x", "text": "b"}, {"element": "y"}]});
        hide_text(&mut c);
        assert_eq!(
            c,
            json!({"text": PASSWORD_PLACEHOLDER,
                   "fields": [{"element": "x", "text": PASSWORD_PLACEHOLDER}, {"element": "y"}]})
        );
        assert!(!is_placeholder(
            &json!({"text": "a", "fields": "not a list"})
        ));
    }

    #[test]
    fn a_kept_text_is_whatever_the_private_part_changed() {
        let recorded = json!({"element": "e", "text": "bob@x",
                              "fields": [{"element": "pw", "text": PASSWORD_PLACEHOLDER}]});
        let run = json!({"element": "e", "text": "bob@x",
                         "fields": [{"element": "pw", "text": "hunter2"}]});
        assert_eq!(kept_slots(&recorded, &run), vec![false, true]);
        // A record edited to say something else in the password's place is still kept.
        let edited =
            json!({"element": "e", "text": "bob@x", "fields": [{"element": "pw", "text": "x"}]});
        assert_eq!(kept_slots(&edited, &run), vec![false, true]);
        let single = json!({"text": PASSWORD_PLACEHOLDER});
        assert_eq!(kept_slots(&single, &json!({"text": "hunter2"})), vec![true]);
        assert_eq!(kept_slots(&run, &run), vec![false, false]);
    }
}
