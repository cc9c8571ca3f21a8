//! Text a tool types into a field on the device, and who may see it.
//!
//! A call of a tool declared with [`ToolDef::typing_text`](super::registry::ToolDef::typing_text)
//! starts with its `text` withheld from every view: the live Activity row (the `CallStarted`
//! event already carries «password»), the audit trail, History and a recording. The tool's
//! handler says what the text goes into as soon as it knows ([`Ctx::typing_into`]); only a
//! field found to be no password field has its text shown, by a `CallArguments` event, before
//! anything is typed. A call that never got that far (refused, failed before it found the
//! field) or whose field could not be read in time stays withheld: the secret is never drawn.
//!
//! The real value goes only where a replay needs it, never into a record: a recorded step's
//! private part, and the typed-password store History's `b` reads
//! ([`crate::batch::secrets`]).
use std::sync::Mutex;

use serde_json::Value;

use super::events::ServerEvent;
use super::result::ToolError;
use super::server::Ctx;

/// What a password field's typed text is shown as wherever the call is recorded.
pub const PASSWORD_PLACEHOLDER: &str = "«password»";

/// What a call's typed text is known to go into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// Not known (yet): the text stays withheld.
    Unknown,
    /// A field that is not a password field: the text is shown.
    Plain,
    /// A password field: the text is recorded as «password» for good.
    Password,
}

/// One call's typed text, shared by the pipeline and the tool's handler.
#[derive(Debug)]
pub struct TypedText {
    target: Mutex<Target>,
    /// The person's view of the arguments with the text in: what is shown once the field is
    /// known to be plain. `None` when the call types nothing.
    revealed: Option<Value>,
    /// The text is a kept password (a batch step's private part): it may go into a password
    /// field only, or an agent could have it typed where it can read it back.
    password_only: bool,
}

impl TypedText {
    /// A call that types nothing.
    pub fn none() -> TypedText {
        TypedText {
            target: Mutex::new(Target::Unknown),
            revealed: None,
            password_only: false,
        }
    }

    /// A call whose tool types `text`: `person_args` is the person's view with the text in.
    /// Only a `text` string counts (a call without one is refused by its validation anyway).
    pub fn of(types_text: bool, person_args: &Value) -> TypedText {
        let typed = types_text && person_args.get("text").is_some_and(Value::is_string);
        TypedText {
            target: Mutex::new(Target::Unknown),
            revealed: typed.then(|| person_args.clone()),
            password_only: false,
        }
    }

    /// The text is a kept password: it is typed into a password field or not at all.
    pub fn password_only(mut self) -> TypedText {
        self.password_only = true;
        self
    }

    pub fn target(&self) -> Target {
        self.target.lock().map(|t| *t).unwrap_or(Target::Password)
    }

    /// The call's text is hidden from every view: it types text into a field not known to be
    /// plain.
    pub fn withholds(&self) -> bool {
        self.revealed.is_some() && self.target() != Target::Plain
    }

    /// Records what the text goes into. A password field is final; a plain field is taken only
    /// while nothing was decided. Returns the arguments to show when the text became visible.
    fn settle(&self, password: bool) -> Option<Value> {
        let mut t = self.target.lock().ok()?;
        match (*t, password) {
            (_, true) => {
                *t = Target::Password;
                None
            }
            (Target::Unknown, false) => {
                *t = Target::Plain;
                self.revealed.clone()
            }
            _ => None,
        }
    }
}

/// `args` with its `text` (if any) replaced by [`PASSWORD_PLACEHOLDER`].
pub fn hide_text(args: &mut Value) {
    if let Value::Object(map) = args
        && map.contains_key("text")
    {
        map.insert("text".into(), Value::String(PASSWORD_PLACEHOLDER.into()));
    }
}

/// A step or record argument that stands for a password it does not hold.
pub fn is_placeholder(args: &Value) -> bool {
    args.get("text").and_then(Value::as_str) == Some(PASSWORD_PLACEHOLDER)
}

impl Ctx {
    /// A text-typing tool found what its text goes into, before typing: `Some(true)` a password
    /// field (the text stays hidden everywhere), `Some(false)` any other field (the text is
    /// shown from now on), `None` it could not tell (the text stays hidden). A kept password
    /// (a batch step's private part) is refused anywhere but a password field.
    pub fn typing_into(&self, password: Option<bool>) -> Result<(), ToolError> {
        if self.typed.password_only && password != Some(true) {
            return Err(ToolError::refused(match password {
                Some(_) => {
                    "this step types a kept password, and the field is no password field: \
                            nothing was typed (a password goes only where it is hidden)"
                }
                None => {
                    "this step types a kept password, and whether the focused field is a \
                         password field could not be told: nothing was typed"
                }
            }));
        }
        if let Some(arguments) = password.and_then(|p| self.typed.settle(p)) {
            self.core.emit(ServerEvent::CallArguments {
                call_id: self.call_id,
                arguments,
            });
        }
        Ok(())
    }
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
        assert_eq!(t.settle(false), Some(args.clone()));
        assert!(!t.withholds());
        let t = TypedText::of(true, &args);
        assert_eq!(t.settle(true), None);
        assert_eq!(t.settle(false), None, "a password field stays one");
        assert!(t.withholds() && t.target() == Target::Password);
        // A tool that types nothing, or a call without text, withholds nothing.
        assert!(!TypedText::of(false, &args).withholds());
        assert!(!TypedText::of(true, &json!({"element": "x"})).withholds());
        assert!(!TypedText::none().withholds());
    }

    #[test]
    fn hiding_replaces_only_the_text() {
        let mut a = json!({"text": "hunter2", "element": "pw"});
        hide_text(&mut a);
        assert_eq!(a, json!({"text": PASSWORD_PLACEHOLDER, "element": "pw"}));
        assert!(is_placeholder(&a));
        let mut b = json!({"element": "pw"});
        hide_text(&mut b);
        assert_eq!(b, json!({"element": "pw"}));
    }
}
