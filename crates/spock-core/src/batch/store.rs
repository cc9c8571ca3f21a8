//! Tasks and runs on disk under the batch directory: `tasks/<id>.json` and
//! `runs/<runId>/{run.json, step images}`. Directories 0700, files 0600, every write atomic,
//! every id checked before it becomes a path. Blocking file I/O: async callers go through
//! `spawn_blocking`.
use std::path::{Path, PathBuf};

use super::BatchError;
use super::runlog::{RunLog, RunSummary};
use super::task::{Task, check_id};
use crate::config::paths::{private_dir, write_atomic};
use crate::config::private;

pub const RUN_FILE: &str = "run.json";

#[derive(Debug, Clone)]
pub struct Store {
    root: PathBuf,
}

fn io(what: &str, path: &Path, e: std::io::Error) -> BatchError {
    BatchError::Io(format!("{what} {}: {e}", path.display()))
}

fn remove_if_there(path: &Path) -> Result<(), BatchError> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(io("deleting", path, e)),
    }
}

impl Store {
    pub fn new(root: PathBuf) -> Store {
        Store { root }
    }

    pub fn tasks_dir(&self) -> PathBuf {
        self.root.join("tasks")
    }
    pub fn runs_dir(&self) -> PathBuf {
        self.root.join("runs")
    }

    /// Where tasks' private parts live (values kept out of the task records): a directory of
    /// its own, so nothing that lists or reads tasks can pick one up as a task.
    pub fn private_dir(&self) -> PathBuf {
        self.root.join("tasks-private")
    }

    fn private_path(&self, id: &str) -> Result<PathBuf, BatchError> {
        check_id(id)?;
        Ok(self.private_dir().join(format!("{id}.json")))
    }

    fn task_path(&self, id: &str) -> Result<PathBuf, BatchError> {
        check_id(id)?;
        Ok(self.tasks_dir().join(format!("{id}.json")))
    }

    pub fn run_dir(&self, run_id: &str) -> Result<PathBuf, BatchError> {
        check_id(run_id)?;
        Ok(self.runs_dir().join(run_id))
    }

    /// Every readable task, by name. A file that does not parse is skipped with a warning
    /// rather than hiding every other task.
    pub fn list_tasks(&self) -> Result<Vec<Task>, BatchError> {
        let dir = self.tasks_dir();
        let entries = match std::fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(io("reading", &dir, e)),
        };
        let mut tasks = Vec::new();
        for entry in entries.flatten() {
            let path = entry.path();
            let Some(id) = path
                .file_name()
                .and_then(|n| n.to_str())
                .and_then(|n| n.strip_suffix(".json"))
            else {
                continue;
            };
            if check_id(id).is_err() {
                continue;
            }
            match self.get_task(id) {
                Ok(t) => tasks.push(t),
                Err(e) => tracing::warn!(error = %e, "skipping batch task file"),
            }
        }
        tasks.sort_by(|a, b| a.name.cmp(&b.name).then(a.id.cmp(&b.id)));
        Ok(tasks)
    }

    pub fn get_task(&self, id: &str) -> Result<Task, BatchError> {
        let path = self.task_path(id)?;
        let text = match private::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(BatchError::NotFound(id.to_string()));
            }
            Err(e) => return Err(io("reading", &path, e)),
        };
        let mut task: Task = serde_json::from_str(&text)
            .map_err(|e| BatchError::Io(format!("{} is not a task: {e}", path.display())))?;
        // The file name is the id: a hand-edited file cannot claim another task's id.
        task.id = id.to_string();
        let private = self.private_path(id)?;
        match private::read_to_string(&private) {
            Ok(text) => {
                let parts: std::collections::BTreeMap<usize, serde_json::Value> =
                    serde_json::from_str(&text).map_err(|e| {
                        BatchError::Io(format!("{} is not a private part: {e}", private.display()))
                    })?;
                for (i, v) in parts {
                    if let Some(step) = task.steps.get_mut(i) {
                        step.private = Some(v);
                    }
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(io("reading", &private, e)),
        }
        Ok(task)
    }

    pub fn put_task(&self, task: &Task) -> Result<(), BatchError> {
        let path = self.task_path(&task.id)?;
        let dir = self.tasks_dir();
        private_dir(&dir).map_err(|e| io("creating", &dir, e))?;
        let bytes = serde_json::to_vec_pretty(task)
            .map_err(|e| BatchError::Io(format!("encoding the task: {e}")))?;
        // The private part first: a task whose record says «password» is never on disk
        // without the value it replays.
        let parts: std::collections::BTreeMap<usize, &serde_json::Value> = task
            .steps
            .iter()
            .enumerate()
            .filter_map(|(i, s)| s.private.as_ref().map(|v| (i, v)))
            .collect();
        let private = self.private_path(&task.id)?;
        if parts.is_empty() {
            remove_if_there(&private)?;
        } else {
            let pdir = self.private_dir();
            private_dir(&pdir).map_err(|e| io("creating", &pdir, e))?;
            let pbytes = serde_json::to_vec(&parts)
                .map_err(|e| BatchError::Io(format!("encoding the task: {e}")))?;
            write_atomic(&private, &pbytes).map_err(|e| io("writing", &private, e))?;
        }
        write_atomic(&path, &bytes).map_err(|e| io("writing", &path, e))
    }

    pub fn delete_task(&self, id: &str) -> Result<(), BatchError> {
        let path = self.task_path(id)?;
        remove_if_there(&self.private_path(id)?)?;
        match std::fs::remove_file(&path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                Err(BatchError::NotFound(id.to_string()))
            }
            Err(e) => Err(io("deleting", &path, e)),
        }
    }

    pub fn put_run(&self, run: &RunLog) -> Result<(), BatchError> {
        let dir = self.run_dir(&run.run_id)?;
        private_dir(&dir).map_err(|e| io("creating", &dir, e))?;
        let bytes = serde_json::to_vec_pretty(run)
            .map_err(|e| BatchError::Io(format!("encoding the run: {e}")))?;
        let path = dir.join(RUN_FILE);
        write_atomic(&path, &bytes).map_err(|e| io("writing", &path, e))
    }

    /// Store one step image; `name` is generated by the runner, never taken from input.
    pub fn put_image(&self, run_id: &str, name: &str, bytes: &[u8]) -> Result<(), BatchError> {
        let dir = self.run_dir(run_id)?;
        private_dir(&dir).map_err(|e| io("creating", &dir, e))?;
        let path = dir.join(name);
        write_atomic(&path, bytes).map_err(|e| io("writing", &path, e))
    }

    pub fn get_run(&self, run_id: &str) -> Result<RunLog, BatchError> {
        let path = self.run_dir(run_id)?.join(RUN_FILE);
        let text = match private::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(BatchError::RunNotFound(run_id.to_string()));
            }
            Err(e) => return Err(io("reading", &path, e)),
        };
        serde_json::from_str(&text)
            .map_err(|e| BatchError::Io(format!("{} is not a run record: {e}", path.display())))
    }

    /// Read a file the run recorded. Only names the record lists are asked for, and they are
    /// checked again here so a hand-edited run.json cannot point outside the run directory.
    pub fn read_run_file(&self, run_id: &str, name: &str) -> Result<Vec<u8>, BatchError> {
        let plain = !name.is_empty()
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"_-.".contains(&b))
            && !name.starts_with('.');
        if !plain {
            return Err(BatchError::Io(format!("{name:?} is not a run file name")));
        }
        let path = self.run_dir(run_id)?.join(name);
        private::read(&path).map_err(|e| io("reading", &path, e))
    }

    /// Newest first.
    pub fn list_runs(&self) -> Result<Vec<RunSummary>, BatchError> {
        let dir = self.runs_dir();
        let entries = match std::fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(io("reading", &dir, e)),
        };
        let mut runs: Vec<RunSummary> = entries
            .flatten()
            .filter_map(|e| e.file_name().to_str().map(str::to_string))
            .filter(|id| check_id(id).is_ok())
            .filter_map(|id| self.get_run(&id).ok())
            .map(|r| r.summary())
            .collect();
        runs.sort_by(|a, b| {
            b.started_at
                .cmp(&a.started_at)
                .then(b.run_id.cmp(&a.run_id))
        });
        Ok(runs)
    }

    pub fn delete_run(&self, run_id: &str) -> Result<(), BatchError> {
        let dir = self.run_dir(run_id)?;
        if !dir.join(RUN_FILE).exists() {
            return Err(BatchError::RunNotFound(run_id.to_string()));
        }
        std::fs::remove_dir_all(&dir).map_err(|e| io("deleting", &dir, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::batch::task::{Source, Step};
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn tasks_round_trip_privately_and_ids_stay_inside() {
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::new(tmp.path().join("batch"));
        assert!(store.list_tasks().unwrap().is_empty());
        let t = Task::new(
            Some("t1".into()),
            "One",
            vec![Step::new("android_take_screenshot", serde_json::json!({}))],
            Source::Manual,
        );
        store.put_task(&t).unwrap();
        assert_eq!(store.get_task("t1").unwrap(), t);
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&store.tasks_dir()), 0o700);
        assert_eq!(mode(&store.tasks_dir().join("t1.json")), 0o600);
        std::fs::write(store.tasks_dir().join("broken.json"), "{").unwrap();
        assert_eq!(store.list_tasks().unwrap().len(), 1);
        assert!(matches!(
            store.get_task("../t1"),
            Err(BatchError::InvalidId(_))
        ));
        assert!(matches!(
            store.get_task("nope"),
            Err(BatchError::NotFound(_))
        ));
        assert!(store.read_run_file("r1", "../../tasks/t1.json").is_err());
        store.delete_task("t1").unwrap();
        assert!(matches!(
            store.delete_task("t1"),
            Err(BatchError::NotFound(_))
        ));
    }

    #[test]
    fn a_recorded_password_lives_only_in_the_private_part() {
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::new(tmp.path().join("batch"));
        let rec = crate::batch::recorder::Recorder::default();
        assert!(rec.start("login"));
        let private = serde_json::json!({"text": "hunter2xyz"});
        rec.offer(
            "android_input_text_into_element",
            &serde_json::json!({"element": "login_password", "text": "«password»"}),
            Some(&private),
            crate::mcp::events::Outcome::Ok,
        );
        let steps = rec.stop().unwrap().steps;
        let t = Task::new(Some("t2".into()), "Login", steps, Source::Recorded);
        store.put_task(&t).unwrap();
        // The record (what android_batch_get and the Batch screen show) holds the placeholder.
        let record = std::fs::read_to_string(store.tasks_dir().join("t2.json")).unwrap();
        assert!(
            !record.contains("hunter2xyz") && record.contains("«password»"),
            "{record}"
        );
        assert!(!serde_json::to_string(&t).unwrap().contains("hunter2xyz"));
        let p = store.private_dir().join("t2.json");
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&p), 0o600);
        assert_eq!(mode(&store.private_dir()), 0o700);
        // Replay puts the value back.
        let back = store.get_task("t2").unwrap();
        assert_eq!(back, t);
        assert!(!serde_json::to_string(&back).unwrap().contains("hunter2xyz"));
        assert_eq!(back.steps[0].run_arguments()["text"], "hunter2xyz");
        assert_eq!(store.list_tasks().unwrap().len(), 1);
        store.delete_task("t2").unwrap();
        assert!(!p.exists());
    }
}
