//! Who asks, in two parts that are never mixed: what the server verified itself (the door a
//! call came through; for the stdio socket the relay's pid and uid from `SO_PEERCRED` and its
//! parent process from `/proc`; for HTTP the peer address; for the person's own acts the
//! terminal the server assigned) and what the asker claims (its `clientInfo` name and
//! version, the `ssh from …` its relay reports from `SSH_CONNECTION`, which the agent's side
//! sets). A claim is shown as a claim everywhere (the modal, the client's approval form, the
//! audit record); a client name never passes for the person's own control centre, whatever it
//! says, because only [`Verified::person`] marks the person and only the server sets it.
use serde::{Deserialize, Serialize};

use super::{ClientId, Transport};

/// What a transport established about the other end, never read from the client's words.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Peer {
    /// The peer process (the relay, for stdio), from the socket's peer credentials.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uid: Option<u32>,
    /// Its parent process (the agent that started the relay), from `/proc/<pid>/stat` and
    /// its executable's path (`/proc/<ppid>/exe`: the kernel's, not the name a process gives
    /// itself), read when the connection was accepted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_pid: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_name: Option<String>,
    /// The peer's address (HTTP, SSE, a TCP stdio socket).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub addr: Option<String>,
}

impl Peer {
    pub fn is_empty(&self) -> bool {
        *self == Peer::default()
    }
}

/// What the server verified about who asks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Verified {
    /// The door the call came through (`batch` for a step of a run).
    pub transport: Transport,
    /// The person's own act (a call or a batch run started at a control centre): the terminal
    /// as the server named it. `None` for every MCP client, whatever it calls itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub person: Option<String>,
    /// The MCP connection (`stdio#3`, `http session 1a2b3c4d`, `stateless http`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    #[serde(default, skip_serializing_if = "Peer::is_empty")]
    pub peer: Peer,
}

impl Verified {
    /// An MCP client, as far as the server knows it.
    pub fn client(transport: Transport, session: Option<String>, peer: Peer) -> Verified {
        Verified {
            transport,
            person: None,
            session,
            peer,
        }
    }

    /// The person at `terminal`.
    pub fn person(transport: Transport, terminal: String) -> Verified {
        Verified {
            transport,
            person: Some(terminal),
            session: None,
            peer: Peer::default(),
        }
    }

    pub fn is_person(&self) -> bool {
        self.person.is_some()
    }

    /// One line for the person: `the person at attach pid 42 on /dev/pts/3 (tui)`, or
    /// `an MCP client over stdio (stdio#3): relay pid 4242, uid 1000, its parent 4200 running "/usr/bin/node"`.
    pub fn describe(&self) -> String {
        if let Some(t) = &self.person {
            return match self.transport {
                Transport::Batch => format!("a batch run the person started at {t}"),
                _ => format!("the person at {t}"),
            };
        }
        let mut s = match self.transport {
            Transport::Batch => "a batch run an MCP client started".to_string(),
            t => format!("an MCP client over {}", t.label()),
        };
        if let Some(sess) = &self.session {
            s.push_str(&format!(" ({sess})"));
        }
        let p = &self.peer;
        let mut parts = Vec::new();
        if let Some(a) = &p.addr {
            parts.push(format!("from {a}"));
        }
        if let Some(pid) = p.pid {
            let who = if self.transport == Transport::Stdio {
                "relay pid"
            } else {
                "pid"
            };
            parts.push(format!("{who} {pid}"));
        }
        if let Some(uid) = p.uid {
            parts.push(format!("uid {uid}"));
        }
        if let Some(pp) = p.parent_pid {
            let name = p
                .parent_name
                .as_deref()
                .map(|n| format!(" running {n:?}"))
                .unwrap_or_default();
            parts.push(format!("its parent {pp}{name}"));
        }
        if !parts.is_empty() {
            s.push_str(": ");
            s.push_str(&parts.join(", "));
        }
        s
    }
}

/// What an MCP client says about itself, each marked as a claim: `claims "claude-code 1.0";
/// claims ssh from 10.9.8.7:22`. Empty for the person's own acts (nothing is claimed there).
pub fn claims(verified: &Verified, client: &Option<ClientId>, via: Option<&str>) -> String {
    if verified.is_person() {
        return String::new();
    }
    let mut out = vec![match client {
        Some(c) => format!("claims \"{} {}\"", c.name, c.version),
        None => "gave no name".to_string(),
    }];
    if let Some(v) = via {
        out.push(format!("claims {v}"));
    }
    out.join("; ")
}

/// Whether a client's name reads like the person's own control centre (or this program), so
/// the person is warned that it is not: case, spacing, punctuation and common look-alike
/// letters (Cyrillic, Greek, digits for letters) do not hide it.
pub fn looks_like_control_centre(name: &str) -> bool {
    let folded: String = name
        .chars()
        .filter_map(|c| {
            let c = match c {
                'а' | 'А' | 'α' | 'Α' | '@' | '4' => 'a',
                'с' | 'С' | 'ϲ' => 'c',
                'е' | 'Е' | 'ε' | 'Ε' | '3' => 'e',
                'і' | 'І' | 'ι' | 'Ι' | 'l' | '1' | '!' | '|' => 'l',
                'о' | 'О' | 'ο' | 'Ο' | '0' => 'o',
                'р' | 'Р' | 'ρ' | 'Ρ' => 'p',
                'т' | 'Т' | 'τ' | 'Τ' | '7' => 't',
                'к' | 'К' | 'κ' | 'Κ' => 'k',
                'н' | 'Н' | 'η' | 'Ν' | 'ν' => 'n',
                'ѕ' | 'Ѕ' | '5' | '$' => 's',
                'г' => 'r',
                c => c.to_ascii_lowercase(),
            };
            c.is_ascii_alphabetic().then_some(c)
        })
        // `I` and `l` read alike: fold both to `l`.
        .map(|c| if c == 'i' { 'l' } else { c })
        .collect();
    [
        "control", "centre", "center", "spock", "person", "terminal", "attach",
    ]
    .iter()
    .any(|w| folded.contains(&w.replace('i', "l")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_client_named_like_the_control_centre_is_flagged() {
        for n in [
            "control centre",
            "Control Center",
            "CONTROL_CENTRE",
            "cоntrоl centre",
            "c0ntr0l-c3ntre",
            "spock-tui",
            "the person",
            "attach pid 42 on /dev/pts/3",
        ] {
            assert!(looks_like_control_centre(n), "{n}");
        }
        for n in ["claude-code", "mcp", "inspector", "codex"] {
            assert!(!looks_like_control_centre(n), "{n}");
        }
    }

    #[test]
    fn claims_are_marked_and_the_person_claims_nothing() {
        let c = Some(ClientId {
            name: "control centre".into(),
            version: "0.1.0".into(),
        });
        let v = Verified::client(Transport::Stdio, Some("stdio#1".into()), Peer::default());
        assert_eq!(
            claims(&v, &c, Some("ssh from 10.9.8.7:22")),
            "claims \"control centre 0.1.0\"; claims ssh from 10.9.8.7:22"
        );
        let p = Verified::person(Transport::Batch, "attach pid 4 on /dev/pts/1".into());
        assert_eq!(claims(&p, &c, None), "");
        assert!(p.describe().contains("the person started at attach pid 4"));
        assert!(!v.describe().contains("person"));
    }

    #[test]
    fn a_record_without_the_new_fields_still_reads() {
        let v: Verified = serde_json::from_str(r#"{"transport":"stdio"}"#).unwrap();
        assert_eq!(v, Verified::client(Transport::Stdio, None, Peer::default()));
        let full = Verified::client(
            Transport::Stdio,
            Some("stdio#2".into()),
            Peer {
                pid: Some(7),
                uid: Some(1000),
                parent_pid: Some(6),
                parent_name: Some("/usr/bin/node".into()),
                addr: None,
            },
        );
        let s = serde_json::to_string(&full).unwrap();
        assert_eq!(serde_json::from_str::<Verified>(&s).unwrap(), full);
        assert_eq!(
            full.describe(),
            "an MCP client over stdio (stdio#2): relay pid 7, uid 1000, its parent 6 running \"/usr/bin/node\""
        );
    }
}
