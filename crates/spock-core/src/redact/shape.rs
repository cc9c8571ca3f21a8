//! The shape of a rule's matches, to tell a fragment of a hidden value in an editable field: a
//! key the person typed that the server never read whole, then shortened, lengthened or cut in
//! the middle by an agent's keys (DEL, FORWARD_DEL after MOVE_HOME, one character typed), no
//! longer matches its rule and would show the rest.
//!
//! The question is "how far is this text from some match?", answered as an edit distance
//! between the text and the rule's language, in bits rather than characters: walking the
//! rule's Thompson NFA along the text, a character a match needs and the text lacks costs the
//! information of the place it would go, against ordinary text (`log2(95 / printable
//! characters allowed there)`: 6.6 bits for a literal, 2.6 for a hex digit, half a bit for a
//! letter or digit of a token alphabet, almost none for "anything but a space"; bytes outside
//! printable ASCII are weighed among themselves), a character of the text no match has costs
//! 6.6 bits, and a character the text keeps from the secret (the `secret` group, else the whole
//! match) earns the information of its place. The text is a fragment when some stretch of it
//! keeps more of the secret than it lacks or adds (a negative total) and it is at least half as
//! long as the shortest match. So `fn-0123456789a` (one hex digit lacking, 2.6 bits, against
//! 48 kept) is a fragment of `fn-[0-9a-f]{12}`, `fn-01234` is (33 against 18), `12345678` is not
//! (`fn-` and four digits lacking, 30 bits, against 21), an e-mail address is no fragment of
//! `password=(?P<secret>[^\s&]+)` (its secret keeps almost no information), and
//! `bob@example.com` is none of a JWT (its dots do not make up for two `eyJ`s).
//!
//! Limits: look-around assertions (`\b`, `^`, `$`) are dropped, so the shape is judged without
//! its context; information is per NFA state, which overrates a byte where alternatives meet
//! (`AKIA|ASIA`); a secret with no shape of its own (a password after `password=`) is not
//! recognised without its context; texts over [`MAX_TEXT`] bytes are not judged (a fragment is
//! a field's whole text, or most of it).
use std::cmp::Reverse;
use std::collections::BinaryHeap;

use regex_automata::PatternID;
use regex_automata::nfa::thompson::{self, NFA, State};
use regex_automata::util::primitives::StateID;
use regex_syntax::hir::{Hir, HirKind};

/// Longer field texts are not judged: the walk costs text length × NFA size per rule.
pub const MAX_TEXT: usize = 1024;

/// A byte of the text no match has, in millibits: a printable character's worth.
const EXTRA: i64 = 6570;

/// Printable ASCII, the alphabet ordinary text is weighed against (95 characters); every other
/// byte is weighed among the other 161.
fn printable(b: u8) -> bool {
    (0x20..=0x7e).contains(&b)
}

const INF: i64 = i64::MAX / 4;

pub struct Shape {
    nfa: NFA,
    /// Per state: millibits a printable byte read there carries, and any other byte (`INF`
    /// when the state reads none of that kind; 0 for states that read nothing).
    info: Vec<(i64, i64)>,
    /// Per state: whether a byte read there belongs to the secret.
    secret: Vec<bool>,
    /// The shortest match, in bytes.
    min_len: usize,
}

impl Shape {
    /// The shape of `pattern` (as `regex` parses it), or `None` when it has none to judge by
    /// (it matches nothing, matches the empty string, or does not compile here).
    pub fn new(pattern: &str) -> Option<Shape> {
        let hir = regex_syntax::ParserBuilder::new()
            .build()
            .parse(pattern)
            .ok()?;
        let min_len = hir.properties().minimum_len().filter(|&n| n > 0)?;
        let nfa = thompson::Compiler::new()
            .build_from_hir(&without_looks(hir))
            .ok()?;
        let weigh = |allowed: usize, of: f64| match allowed {
            0 => INF,
            k => (1000.0 * (of / k as f64).log2()).round() as i64,
        };
        let info = nfa
            .states()
            .iter()
            .map(|s| {
                let (p, o) = allowed(s);
                if p + o == 0 {
                    (0, 0)
                } else {
                    (weigh(p, 95.0), weigh(o, 161.0))
                }
            })
            .collect();
        let group = nfa
            .group_info()
            .to_index(PatternID::ZERO, "secret")
            .unwrap_or(0);
        let secret = inside_group(&nfa, group);
        Some(Shape {
            nfa,
            info,
            secret,
            min_len,
        })
    }

    /// When `text` (an editable field's whole text, matching no rule) is a fragment of a
    /// value of this shape (see the module docs), how closely (lower: closer).
    pub fn fragment(&self, text: &str) -> Option<i64> {
        let b = text.as_bytes();
        if b.len() * 2 < self.min_len || b.len() > MAX_TEXT {
            return None;
        }
        Some(self.score(b)).filter(|s| *s < 0)
    }

    /// The lowest total, over every stretch of `text` and every match, of what the stretch
    /// lacks or adds minus what it keeps of the secret (millibits).
    fn score(&self, text: &[u8]) -> i64 {
        let n = self.nfa.states().len();
        let start = self.nfa.start_anchored().as_usize();
        let mut cur = vec![INF; n];
        let mut best = INF;
        for i in 0..=text.len() {
            // A match may begin anywhere in the text, and the text before it is not judged.
            cur[start] = cur[start].min(0);
            self.close(&mut cur);
            for (s, &c) in cur.iter().enumerate() {
                if matches!(self.state(s), State::Match { .. }) {
                    best = best.min(c);
                }
            }
            let Some(&byte) = text.get(i) else { break };
            let mut next = vec![INF; n];
            for (s, &c) in cur.iter().enumerate() {
                if c >= INF {
                    continue;
                }
                // The text has a byte here that no match has.
                next[s] = next[s].min(c + EXTRA);
                if let Some(t) = step(self.state(s), byte) {
                    let (p, o) = self.info[s];
                    let info = if printable(byte) { p } else { o };
                    let kept = if self.secret[s] { info } else { 0 };
                    let t = t.as_usize();
                    next[t] = next[t].min(c - kept);
                }
            }
            cur = next;
        }
        best
    }

    /// Within one position of the text: moves that read nothing of it (the NFA's empty moves,
    /// free; a byte the text lacks, at its information). Dijkstra: these weights are never
    /// negative, whatever the starting costs.
    fn close(&self, cost: &mut [i64]) {
        let mut heap: BinaryHeap<Reverse<(i64, usize)>> = cost
            .iter()
            .enumerate()
            .filter(|(_, c)| **c < INF)
            .map(|(s, c)| Reverse((*c, s)))
            .collect();
        while let Some(Reverse((c, s))) = heap.pop() {
            if c > cost[s] {
                continue;
            }
            let lacking = self.info[s].0.min(self.info[s].1);
            let mut relax = |t: StateID, w: i64| {
                let t = t.as_usize();
                if c + w < cost[t] {
                    cost[t] = c + w;
                    heap.push(Reverse((c + w, t)));
                }
            };
            match self.state(s) {
                State::ByteRange { trans } => relax(trans.next, lacking),
                State::Sparse(sp) => sp.transitions.iter().for_each(|t| relax(t.next, lacking)),
                State::Dense(d) => d
                    .transitions
                    .iter()
                    .filter(|t| **t != StateID::ZERO)
                    .for_each(|t| relax(*t, lacking)),
                State::Look { next, .. } | State::Capture { next, .. } => relax(*next, 0),
                State::Union { alternates } => alternates.iter().for_each(|t| relax(*t, 0)),
                State::BinaryUnion { alt1, alt2 } => {
                    relax(*alt1, 0);
                    relax(*alt2, 0);
                }
                State::Fail | State::Match { .. } => {}
            }
        }
    }

    fn state(&self, s: usize) -> &State {
        self.nfa.states().get(s).unwrap_or(&State::Fail)
    }
}

/// How many printable ASCII bytes the state reads, and how many others.
fn allowed(s: &State) -> (usize, usize) {
    let bytes: Vec<u8> = match s {
        State::ByteRange { trans } => (trans.start..=trans.end).collect(),
        State::Sparse(sp) => sp
            .transitions
            .iter()
            .flat_map(|t| t.start..=t.end)
            .collect(),
        State::Dense(d) => (0..=255u8)
            .filter(|b| d.transitions.get(usize::from(*b)) != Some(&StateID::ZERO))
            .collect(),
        _ => Vec::new(),
    };
    let p = bytes.iter().filter(|b| printable(**b)).count();
    (p, bytes.len() - p)
}

/// Where reading `b` in state `s` leads.
fn step(s: &State, b: u8) -> Option<StateID> {
    match s {
        State::ByteRange { trans } => (trans.start..=trans.end).contains(&b).then_some(trans.next),
        State::Sparse(sp) => sp
            .transitions
            .iter()
            .find(|t| (t.start..=t.end).contains(&b))
            .map(|t| t.next),
        State::Dense(d) => d
            .transitions
            .get(usize::from(b))
            .copied()
            .filter(|t| *t != StateID::ZERO),
        _ => None,
    }
}

/// The states between group `g`'s opening and closing (Thompson's construction enters a
/// group only through its opening).
fn inside_group(nfa: &NFA, g: usize) -> Vec<bool> {
    let mut inside = vec![false; nfa.states().len()];
    let is = |s: &State, open: bool| {
        matches!(s, State::Capture { group_index, slot, .. }
            if group_index.as_usize() == g && (slot.as_usize() % 2 == 0) == open)
    };
    let mut todo: Vec<StateID> = nfa
        .states()
        .iter()
        .filter_map(|s| match s {
            State::Capture { next, .. } if is(s, true) => Some(*next),
            _ => None,
        })
        .collect();
    while let Some(id) = todo.pop() {
        let s = nfa.state(id);
        if inside[id.as_usize()] || is(s, false) {
            continue;
        }
        inside[id.as_usize()] = true;
        match s {
            State::ByteRange { trans } => todo.push(trans.next),
            State::Sparse(sp) => todo.extend(sp.transitions.iter().map(|t| t.next)),
            State::Dense(d) => todo.extend(d.transitions.iter().filter(|t| **t != StateID::ZERO)),
            State::Look { next, .. } | State::Capture { next, .. } => todo.push(*next),
            State::Union { alternates } => todo.extend(alternates.iter()),
            State::BinaryUnion { alt1, alt2 } => todo.extend([*alt1, *alt2]),
            State::Fail | State::Match { .. } => {}
        }
    }
    inside
}

/// `h` with every look-around assertion (`\b`, `^`, `$`) taken out: the shape alone.
fn without_looks(h: Hir) -> Hir {
    match h.into_kind() {
        HirKind::Look(_) | HirKind::Empty => Hir::empty(),
        HirKind::Literal(l) => Hir::literal(l.0),
        HirKind::Class(c) => Hir::class(c),
        HirKind::Repetition(mut r) => {
            r.sub = Box::new(without_looks(*r.sub));
            Hir::repetition(r)
        }
        HirKind::Capture(mut c) => {
            c.sub = Box::new(without_looks(*c.sub));
            Hir::capture(c)
        }
        HirKind::Concat(v) => Hir::concat(v.into_iter().map(without_looks).collect()),
        HirKind::Alternation(v) => Hir::alternation(v.into_iter().map(without_looks).collect()),
    }
}
