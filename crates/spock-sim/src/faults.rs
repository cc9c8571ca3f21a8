//! Failure switches for one virtual device, so reliability tests can make the wire misbehave.
//!
//! The switches live here as plain state; the front doors consult them at the points where a
//! real phone or cable would fail: a service OPEN (refuse, offline), every outgoing write
//! (delay, drop after N bytes), the first word of a shell command line (hang). They can be set
//! at start (CLI flags, [`FaultCommand::parse_flag`]) and at run time through the JSON-lines
//! control endpoint in [`control`].
use std::sync::Mutex;

use serde::{Deserialize, Serialize};
use tokio::sync::watch;

use crate::latency::{Pacer, Profile};

pub mod control;

/// The switches currently set on one device.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct FaultState {
    /// Every service OPEN fails as if the device closed it.
    pub refuse_open: bool,
    /// Close each TCP connection once it has sent this many bytes (counted from when the switch
    /// was set or the connection opened, whichever is later).
    pub drop_after: Option<u64>,
    /// Sleep this long before every reply.
    pub delay_ms: u64,
    /// Shell commands (first word of the command line) that are opened but never answered.
    pub hang: Vec<String>,
    /// The device is listed as `offline` and serves nothing.
    pub offline: bool,
    /// Bumped whenever `drop_after` is (re)set, so connections restart their byte count.
    #[serde(skip)]
    pub drop_generation: u64,
}

impl FaultState {
    /// Whether a shell command line should hang, judged like the device would: by the first
    /// shell word (adb quotes arguments, so parse words rather than split on spaces).
    pub fn hangs(&self, command_line: &str) -> bool {
        if self.hang.is_empty() {
            return false;
        }
        let first = match shell_words::split(command_line) {
            Ok(words) => words.into_iter().next(),
            Err(_) => command_line.split_whitespace().next().map(str::to_owned),
        };
        first.is_some_and(|word| self.hang.contains(&word))
    }
}

/// One runtime change, as sent to the control endpoint or given with `--fault`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(tag = "fault", rename_all = "snake_case")]
pub enum FaultCommand {
    #[serde(alias = "refuse_open")]
    Refuse,
    #[serde(alias = "drop_after")]
    Drop {
        bytes: u64,
    },
    Delay {
        ms: u64,
    },
    Hang {
        command: String,
    },
    Offline,
    #[serde(alias = "come_back")]
    Online,
    /// Remove every switch, including `offline`.
    Clear,
    /// Change nothing; report the current state.
    Status,
    /// Per-command latency profile (`instant`, `phone` or `phone-median`), with an optional seed
    /// for its spread.
    Latency {
        profile: String,
        #[serde(default)]
        seed: Option<u64>,
    },
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum FaultParseError {
    #[error(
        "unknown fault kind `{0}` (expected refuse, drop=N, delay=MS, hang=CMD, offline, online, clear)"
    )]
    UnknownKind(String),
    #[error("fault `{0}` needs a value, e.g. `{0}=300`")]
    MissingValue(String),
    #[error("fault `{kind}`: `{value}` is not a number")]
    BadNumber { kind: String, value: String },
    #[error(
        "unknown latency profile `{0}` (expected instant, phone or phone-median, optionally `phone:SEED`)"
    )]
    BadProfile(String),
}

impl FaultCommand {
    /// Parse a CLI flag value `[SERIAL:]KIND[=VALUE]`; the serial is `None` for "every device".
    pub fn parse_flag(spec: &str) -> Result<(Option<String>, FaultCommand), FaultParseError> {
        // A serial never contains '=', so the last ':' before any '=' separates it.
        let head_end = spec.find('=').unwrap_or(spec.len());
        let (serial, rest) = match spec[..head_end].rfind(':') {
            Some(i) => (Some(spec[..i].to_owned()), &spec[i + 1..]),
            None => (None, spec),
        };
        let (kind, value) = match rest.split_once('=') {
            Some((k, v)) => (k, Some(v)),
            None => (rest, None),
        };
        let need = |kind: &str| value.ok_or_else(|| FaultParseError::MissingValue(kind.to_owned()));
        let number = |kind: &str| -> Result<u64, FaultParseError> {
            let v = need(kind)?;
            v.parse().map_err(|_| FaultParseError::BadNumber {
                kind: kind.to_owned(),
                value: v.to_owned(),
            })
        };
        let command = match kind {
            "refuse" | "refuse_open" => FaultCommand::Refuse,
            "drop" | "drop_after" => FaultCommand::Drop {
                bytes: number(kind)?,
            },
            "delay" => FaultCommand::Delay { ms: number(kind)? },
            "hang" => FaultCommand::Hang {
                command: need(kind)?.to_owned(),
            },
            "offline" => FaultCommand::Offline,
            "online" => FaultCommand::Online,
            "clear" => FaultCommand::Clear,
            "latency" => FaultCommand::parse_latency(need(kind)?)?,
            other => return Err(FaultParseError::UnknownKind(other.to_owned())),
        };
        Ok((serial, command))
    }

    /// `PROFILE[:SEED]`, as `--latency` and `SPOCK_SIM_LATENCY` take it.
    pub fn parse_latency(spec: &str) -> Result<FaultCommand, FaultParseError> {
        let (name, seed) = match spec.split_once(':') {
            Some((n, s)) => (n, Some(s)),
            None => (spec, None),
        };
        if Profile::parse(name).is_none() {
            return Err(FaultParseError::BadProfile(spec.to_owned()));
        }
        let seed = match seed {
            Some(s) => Some(s.parse().map_err(|_| FaultParseError::BadNumber {
                kind: "latency seed".into(),
                value: s.to_owned(),
            })?),
            None => None,
        };
        Ok(FaultCommand::Latency {
            profile: name.to_owned(),
            seed,
        })
    }
}

/// The switches of one device, shared by every connection serving it.
#[derive(Debug)]
pub struct Faults {
    state: Mutex<FaultState>,
    /// Notifies watchers (device lists, open adbd connections) that something changed.
    changed: watch::Sender<u64>,
    /// Per-command latency and the command meter (see [`crate::latency`]).
    pub pace: Pacer,
}

impl Default for Faults {
    fn default() -> Self {
        Faults {
            state: Mutex::new(FaultState::default()),
            changed: watch::channel(0).0,
            pace: Pacer::default(),
        }
    }
}

impl Faults {
    pub fn snapshot(&self) -> FaultState {
        match self.state.lock() {
            Ok(s) => s.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    pub fn is_offline(&self) -> bool {
        self.snapshot().offline
    }

    /// Apply one change and return the resulting state.
    pub fn apply(&self, command: &FaultCommand) -> FaultState {
        let after = {
            let mut s = match self.state.lock() {
                Ok(s) => s,
                Err(poisoned) => poisoned.into_inner(),
            };
            match command {
                FaultCommand::Refuse => s.refuse_open = true,
                FaultCommand::Drop { bytes } => {
                    s.drop_after = Some(*bytes);
                    s.drop_generation += 1;
                }
                FaultCommand::Delay { ms } => s.delay_ms = *ms,
                FaultCommand::Hang { command } => {
                    if !s.hang.contains(command) {
                        s.hang.push(command.clone());
                    }
                }
                FaultCommand::Offline => s.offline = true,
                FaultCommand::Online => s.offline = false,
                FaultCommand::Clear => {
                    let generation = s.drop_generation + 1;
                    *s = FaultState {
                        drop_generation: generation,
                        ..FaultState::default()
                    };
                }
                FaultCommand::Status => {}
                FaultCommand::Latency { profile, seed } => {
                    // Unknown names were refused when parsed; a JSON request may still carry one.
                    self.pace
                        .set(Profile::parse(profile).unwrap_or_default(), *seed);
                }
            }
            s.clone()
        };
        if *command != FaultCommand::Status {
            self.changed.send_modify(|n| *n += 1);
        }
        after
    }

    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.changed.subscribe()
    }
}

/// Byte budget of one connection under the `drop_after` switch.
#[derive(Debug, Default)]
pub struct DropBudget {
    generation: u64,
    sent: u64,
}

impl DropBudget {
    /// How many of the next `len` bytes may still be written; fewer than `len` means the
    /// connection must be cut after writing that many.
    pub fn allow(&mut self, state: &FaultState, len: usize) -> usize {
        if state.drop_generation != self.generation {
            self.generation = state.drop_generation;
            self.sent = 0;
        }
        let len64 = len as u64;
        let allowed = match state.drop_after {
            None => len64,
            Some(limit) => limit.saturating_sub(self.sent).min(len64),
        };
        self.sent += allowed;
        // `allowed <= len`, so the conversion back cannot truncate.
        usize::try_from(allowed).unwrap_or(len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flag_specs_parse_with_and_without_serial() {
        assert_eq!(
            FaultCommand::parse_flag("delay=300"),
            Ok((None, FaultCommand::Delay { ms: 300 }))
        );
        assert_eq!(
            FaultCommand::parse_flag("emulator-5554:hang=screenrecord"),
            Ok((
                Some("emulator-5554".into()),
                FaultCommand::Hang {
                    command: "screenrecord".into()
                }
            ))
        );
        assert_eq!(
            FaultCommand::parse_flag("sim-1:offline"),
            Ok((Some("sim-1".into()), FaultCommand::Offline))
        );
        assert!(matches!(
            FaultCommand::parse_flag("drop=lots"),
            Err(FaultParseError::BadNumber { .. })
        ));
        assert!(matches!(
            FaultCommand::parse_flag("delay"),
            Err(FaultParseError::MissingValue(_))
        ));
        assert!(matches!(
            FaultCommand::parse_flag("explode"),
            Err(FaultParseError::UnknownKind(_))
        ));
    }

    #[test]
    fn json_commands_deserialize() {
        let c: FaultCommand = serde_json::from_str(r#"{"fault":"delay","ms":300}"#).unwrap();
        assert_eq!(c, FaultCommand::Delay { ms: 300 });
        let c: FaultCommand = serde_json::from_str(r#"{"fault":"drop_after","bytes":10}"#).unwrap();
        assert_eq!(c, FaultCommand::Drop { bytes: 10 });
        assert!(serde_json::from_str::<FaultCommand>(r#"{"fault":"delay"}"#).is_err());
    }

    #[test]
    fn hang_matches_first_shell_word_even_when_quoted() {
        let f = Faults::default();
        f.apply(&FaultCommand::Hang {
            command: "screenrecord".into(),
        });
        let s = f.snapshot();
        assert!(s.hangs("screenrecord --time-limit 3 /sdcard/a.mp4"));
        assert!(s.hangs("'screenrecord' '/sdcard/a.mp4'"));
        assert!(!s.hangs("echo screenrecord"));
        assert!(!s.hangs(""));
    }

    #[test]
    fn drop_budget_counts_from_when_the_switch_is_set() {
        let f = Faults::default();
        let mut budget = DropBudget::default();
        assert_eq!(budget.allow(&f.snapshot(), 100), 100);
        f.apply(&FaultCommand::Drop { bytes: 150 });
        assert_eq!(budget.allow(&f.snapshot(), 100), 100);
        assert_eq!(budget.allow(&f.snapshot(), 100), 50);
        assert_eq!(budget.allow(&f.snapshot(), 100), 0);
        f.apply(&FaultCommand::Clear);
        assert_eq!(budget.allow(&f.snapshot(), 100), 100);
    }

    #[test]
    fn clear_removes_everything_and_notifies() {
        let f = Faults::default();
        let mut rx = f.subscribe();
        f.apply(&FaultCommand::Offline);
        f.apply(&FaultCommand::Refuse);
        assert!(rx.has_changed().unwrap());
        rx.mark_unchanged();
        let s = f.apply(&FaultCommand::Clear);
        assert!(!s.offline && !s.refuse_open);
        assert!(rx.has_changed().unwrap());
    }
}
