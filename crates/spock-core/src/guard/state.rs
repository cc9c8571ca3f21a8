//! What the abstract shell knows at one point of a command: each variable, the positional
//! parameters, the working directory, aliases, functions, and what the command has already
//! done to the filesystem (links, moves, bind mounts, block device nodes, files it wrote).
//!
//! A value is a small set of candidates ([`Val`]); a candidate may hold [`UNKNOWN`], "text the
//! guard cannot know", which the place rules read as a wildcard. Joining two states (after an
//! `if`, an `&&`, a loop) unions the candidates; past [`MAX_CANDS`] a value becomes unknown.
//! Unknown is never empty: it carries why it is unknown, for the refusal message.
use std::collections::BTreeMap;
use std::rc::Rc;

use super::parse::Node;

/// Stands for text the guard cannot know. NUL cannot occur in a real shell argument.
pub(super) const UNKNOWN: char = '\0';
pub(super) const UNKNOWN_S: &str = "\0";
pub(super) const MAX_CANDS: usize = 16;
/// Longest value the guard keeps; a longer one (`X=$X$X` in a loop) is unknown.
pub(super) const MAX_VALUE: usize = 64 * 1024;

/// The environment `adb shell` starts with on Android; `HOME` is `/` for the shell user.
/// Kept out of [`Env::vars`] so that the state the guard clones holds only what the
/// command itself set.
const ANDROID_ENV: &[(&str, &str)] = &[
    ("HOME", "/"),
    ("ANDROID_ROOT", "/system"),
    ("ANDROID_DATA", "/data"),
    ("ANDROID_STORAGE", "/storage"),
    ("EXTERNAL_STORAGE", "/sdcard"),
    ("ANDROID_ART_ROOT", "/apex/com.android.art"),
    ("ANDROID_ASSETS", "/system/app"),
    ("ASEC_MOUNTPOINT", "/mnt/asec"),
    ("TMPDIR", "/data/local/tmp"),
    (
        "PATH",
        "/product/bin:/apex/com.android.runtime/bin:/apex/com.android.art/bin:/system_ext/bin:/system/bin:/system/xbin:/odm/bin:/vendor/bin:/vendor/xbin",
    ),
    ("IFS", " \t\n"),
    ("OLDPWD", "/"),
    ("SHELL", "/system/bin/sh"),
    ("USER", "shell"),
    ("LOGNAME", "shell"),
    ("HOSTNAME", "localhost"),
    ("0", "sh"),
    ("?", "0"),
    ("$", "4242"),
];

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Val {
    pub(super) cands: Vec<String>,
    /// Why some candidate holds [`UNKNOWN`] (`` `$X` after `read` ``).
    pub(super) why: Option<Rc<str>>,
}

impl Val {
    pub(super) fn known(s: impl Into<String>) -> Self {
        Self {
            cands: vec![s.into()],
            why: None,
        }
    }

    pub(super) fn unknown(why: impl Into<String>) -> Self {
        Self {
            cands: vec![UNKNOWN_S.into()],
            why: Some(Rc::from(why.into())),
        }
    }

    pub(super) fn single(&self) -> Option<&str> {
        match self.cands.as_slice() {
            [one] if !one.contains(UNKNOWN) => Some(one),
            _ => None,
        }
    }

    pub(super) fn is_unknown(&self) -> bool {
        self.cands.iter().any(|c| c.contains(UNKNOWN))
    }

    pub(super) fn join(&self, other: &Val) -> Val {
        if self
            .cands
            .iter()
            .chain(&other.cands)
            .any(|c| c.len() > MAX_VALUE)
        {
            return Val::unknown("what a value too long to follow holds");
        }
        let mut cands = self.cands.clone();
        for c in &other.cands {
            if !cands.contains(c) {
                cands.push(c.clone());
            }
        }
        let why = self.why.clone().or_else(|| other.why.clone());
        if cands.len() > MAX_CANDS {
            return Val {
                cands: vec![UNKNOWN_S.into()],
                why: why
                    .or_else(|| Some(Rc::from("what a value with too many possibilities holds"))),
            };
        }
        Val { cands, why }
    }

    pub(super) fn from_cands(cands: Vec<String>, why: Option<Rc<str>>) -> Val {
        let mut v = Val {
            cands: Vec::new(),
            why,
        };
        for c in cands {
            v = v.join(&Val::known(c));
        }
        if v.cands.is_empty() {
            v.cands.push(String::new());
        }
        v
    }
}

/// The positional parameters: a known list, or unknown (after `set -- $(…)`, `shift $N`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Params {
    Known(Vec<Val>),
    Unknown(Rc<str>),
}

/// What the command has done to the filesystem so far. It survives subshells and child shells.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Fs {
    /// `(alias, real)`: a symlink, a move or a bind mount made earlier; `alias` now reaches
    /// what `real` named.
    pub(super) links: Vec<(String, String)>,
    /// Files written earlier in the command and what they hold.
    pub(super) files: BTreeMap<String, Val>,
    /// Block device nodes made with `mknod`.
    pub(super) blockdevs: Vec<String>,
    /// A program the guard does not follow ran earlier and may have written files it cannot
    /// name (`uudecode`, `tar -x`): running a script that is not in [`Fs::files`] is then
    /// refused. Holds the program, for the message.
    pub(super) unread_writes: Option<String>,
    /// `(dir, by)`: folders filled with entries the guard cannot see (`tar -x`, `cp -a`,
    /// `cp -rs`): any of them may be a link anywhere, so going through them is not read.
    pub(super) filled: Vec<(String, String)>,
    /// Files and folders the command made whose names hold blanks or newlines: a listing
    /// that prints them (`find`) splits into other paths when read word by word or by line.
    pub(super) odd_names: Vec<String>,
    /// `PATH` was set: programs then find helpers (tar's `xzcat`, `sh`) among the files the
    /// command wrote, so those files are read back ([`super::eval::Eval::files_left`]).
    pub(super) path_set: bool,
}

impl Fs {
    /// The fill that `r` (canonical) goes through at least `depth` entries below, if any.
    pub(super) fn filled_under(&self, r: &str, depth: usize) -> Option<&(String, String)> {
        self.filled.iter().find(|(d, _)| {
            let rest = if d == "/" {
                Some(r)
            } else {
                r.strip_prefix(d.as_str())
            };
            rest.is_some_and(|rest| {
                (rest.is_empty() || rest.starts_with('/'))
                    && rest.split('/').filter(|c| !c.is_empty()).count() >= depth
            })
        })
    }
}

impl Fs {
    fn join(&self, o: &Fs) -> Fs {
        let mut links = self.links.clone();
        links.extend(o.links.iter().filter(|l| !self.links.contains(l)).cloned());
        let mut blockdevs = self.blockdevs.clone();
        blockdevs.extend(
            o.blockdevs
                .iter()
                .filter(|b| !self.blockdevs.contains(b))
                .cloned(),
        );
        let mut files = self.files.clone();
        for (k, v) in &o.files {
            let j = files.get(k).map_or_else(|| v.clone(), |a| a.join(v));
            files.insert(k.clone(), j);
        }
        let mut odd_names = self.odd_names.clone();
        odd_names.extend(
            o.odd_names
                .iter()
                .filter(|f| !self.odd_names.contains(f))
                .cloned(),
        );
        let mut filled = self.filled.clone();
        filled.extend(
            o.filled
                .iter()
                .filter(|f| !self.filled.contains(f))
                .cloned(),
        );
        Fs {
            links,
            files,
            blockdevs,
            filled,
            odd_names,
            unread_writes: self
                .unread_writes
                .clone()
                .or_else(|| o.unread_writes.clone()),
            path_set: self.path_set || o.path_set,
        }
    }
}

/// Cloned at every branch, subshell and loop turn, so the maps are shared until written
/// (`Rc::make_mut`).
#[derive(Debug, Clone)]
pub(super) struct Env {
    pub(super) vars: Rc<BTreeMap<String, Val>>,
    pub(super) params: Params,
    pub(super) cwd: Val,
    pub(super) aliases: Rc<BTreeMap<String, String>>,
    pub(super) funcs: Rc<BTreeMap<String, Rc<Node>>>,
    pub(super) fs: Rc<Fs>,
    /// The shell's own standard input after `exec <<EOF` or `exec < FILE`: what a later
    /// `sh`, `xargs` or `read` with no input of its own reads.
    pub(super) stdin: Option<Val>,
}

impl Env {
    /// The state `adb shell` starts in on Android: the shell user's environment
    /// ([`ANDROID_ENV`]), cwd `/`, no positional parameters.
    pub(super) fn android() -> Self {
        Self {
            vars: Rc::default(),
            params: Params::Known(Vec::new()),
            cwd: Val::known("/"),
            aliases: Rc::default(),
            funcs: Rc::default(),
            fs: Rc::default(),
            stdin: None,
        }
    }

    /// Whether `name` has a value here (set by the command or by the Android environment).
    pub(super) fn is_set(&self, name: &str) -> bool {
        self.vars.contains_key(name) || ANDROID_ENV.iter().any(|(k, _)| *k == name)
    }

    pub(super) fn get(&self, name: &str) -> Val {
        if let Ok(n) = name.parse::<usize>()
            && n > 0
        {
            return match &self.params {
                Params::Known(p) => p.get(n - 1).cloned().unwrap_or_else(|| Val::known("")),
                Params::Unknown(w) => Val::unknown(format!("what `${n}` holds {w}")),
            };
        }
        match name {
            "#" => match &self.params {
                Params::Known(p) => Val::known(p.len().to_string()),
                Params::Unknown(w) => Val::unknown(format!("what `$#` holds {w}")),
            },
            "PWD" => self.cwd.clone(),
            _ => self.vars.get(name).cloned().unwrap_or_else(|| {
                if let Some((_, v)) = ANDROID_ENV.iter().find(|(k, _)| *k == name) {
                    return Val::known(*v);
                }
                Val::unknown(format!(
                    "what `${name}` holds where the command has not set it"
                ))
            }),
        }
    }

    pub(super) fn set(&mut self, name: &str, v: Val) {
        if name == "PWD" {
            self.cwd = v.clone();
        }
        if name == "PATH" && !self.fs.path_set {
            self.fs_mut().path_set = true;
        }
        Rc::make_mut(&mut self.vars).insert(name.to_string(), v);
    }

    pub(super) fn fs_mut(&mut self) -> &mut Fs {
        Rc::make_mut(&mut self.fs)
    }

    /// A child shell (`sh -c`, `su -c`): variables are inherited (the guard assumes exported),
    /// aliases and functions are not, the filesystem is shared.
    pub(super) fn child(&self) -> Env {
        let mut e = self.clone();
        e.aliases = Rc::default();
        e.funcs = Rc::default();
        e.params = Params::Known(Vec::new());
        e
    }

    /// The state after either `self` or `o` happened.
    pub(super) fn join(&self, o: &Env) -> Env {
        if self.same(o) {
            return self.clone();
        }
        let vars = if Rc::ptr_eq(&self.vars, &o.vars) || self.vars == o.vars {
            self.vars.clone()
        } else {
            let mut vars = (*self.vars).clone();
            // A name set on one side only has, on the other, what `get` says there.
            for (k, v) in o.vars.iter() {
                match vars.get_mut(k) {
                    Some(a) if a == v => {}
                    Some(a) => *a = a.join(v),
                    None => {
                        vars.insert(k.clone(), self.get(k).join(v));
                    }
                }
            }
            for (k, v) in vars.iter_mut() {
                if !o.vars.contains_key(k) {
                    *v = v.join(&o.get(k));
                }
            }
            Rc::new(vars)
        };
        let params = match (&self.params, &o.params) {
            (a, b) if a == b => a.clone(),
            (Params::Known(a), Params::Known(b)) if a.len() == b.len() => {
                Params::Known(a.iter().zip(b).map(|(x, y)| x.join(y)).collect())
            }
            _ => Params::Unknown(Rc::from("after `set --`/`shift` on some paths only")),
        };
        let merge = |a: &Rc<BTreeMap<String, String>>, b: &Rc<BTreeMap<String, String>>| {
            if Rc::ptr_eq(a, b) || b.is_empty() {
                a.clone()
            } else {
                let mut m = (**a).clone();
                m.extend(b.iter().map(|(k, v)| (k.clone(), v.clone())));
                Rc::new(m)
            }
        };
        let funcs = if Rc::ptr_eq(&self.funcs, &o.funcs) || o.funcs.is_empty() {
            self.funcs.clone()
        } else {
            let mut m = (*self.funcs).clone();
            m.extend(o.funcs.iter().map(|(k, v)| (k.clone(), v.clone())));
            Rc::new(m)
        };
        let fs = if Rc::ptr_eq(&self.fs, &o.fs) || self.fs == o.fs {
            self.fs.clone()
        } else {
            Rc::new(self.fs.join(&o.fs))
        };
        Env {
            vars,
            params,
            cwd: self.cwd.join(&o.cwd),
            aliases: merge(&self.aliases, &o.aliases),
            funcs,
            fs,
            stdin: match (&self.stdin, &o.stdin) {
                (Some(a), Some(b)) => Some(a.join(b)),
                (a, b) => a.clone().or_else(|| b.clone()),
            },
        }
    }

    /// Whether two states say the same thing (for loop fixed points).
    pub(super) fn same(&self, o: &Env) -> bool {
        (Rc::ptr_eq(&self.vars, &o.vars) || self.vars == o.vars)
            && self.params == o.params
            && self.cwd == o.cwd
            && self.stdin == o.stdin
            && (Rc::ptr_eq(&self.fs, &o.fs) || self.fs == o.fs)
            && (Rc::ptr_eq(&self.aliases, &o.aliases) || self.aliases == o.aliases)
            && (Rc::ptr_eq(&self.funcs, &o.funcs) || self.funcs.len() == o.funcs.len())
    }

    /// Forgets what keeps changing between `before` and `self` (a loop that does not settle).
    pub(super) fn widen(&mut self, before: &Env) {
        for (k, v) in Rc::make_mut(&mut self.vars).iter_mut() {
            if before.vars.get(k) != Some(v) {
                let was_number = before.vars.get(k).is_none_or(super::arith::is_numeric);
                *v = if was_number && super::arith::is_numeric(v) {
                    // A counter stays a number.
                    super::arith::numeric()
                } else {
                    Val::unknown(format!(
                        "what `${k}` holds after a loop that keeps changing it"
                    ))
                };
            }
        }
        if self.params != before.params {
            self.params = Params::Unknown(Rc::from("after `shift`/`set --` in a loop"));
        }
        if self.cwd != before.cwd {
            self.cwd = Val::unknown("which directory `cd` in a loop leads to");
        }
    }
}
