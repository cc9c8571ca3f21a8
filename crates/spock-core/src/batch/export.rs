//! A run as one ZIP: `run.json` plus every image its steps took, deflated. Built in memory
//! (run images are screenshots, a few hundred KB each) and capped so a huge run fails with a
//! message instead of exhausting memory.
use std::io::{Cursor, Write};

use zip::CompressionMethod;
use zip::write::SimpleFileOptions;

use super::BatchError;
use super::store::{RUN_FILE, Store};

/// The most image bytes one export carries.
pub const MAX_EXPORT_BYTES: usize = 64 * 1024 * 1024;

/// `view` rewrites `run.json` for its reader before it is packed: an agent's export is
/// redacted exactly as every other answer it gets (the ZIP is opaque to the answer's own
/// redaction, so it must happen here).
pub fn zip_run(
    store: &Store,
    run_id: &str,
    view: impl FnOnce(&mut serde_json::Value),
) -> Result<Vec<u8>, BatchError> {
    let run = store.get_run(run_id)?;
    let mut value =
        serde_json::to_value(&run).map_err(|e| BatchError::Io(format!("encoding the run: {e}")))?;
    view(&mut value);
    let record = serde_json::to_vec_pretty(&value)
        .map_err(|e| BatchError::Io(format!("encoding the run: {e}")))?;
    let zerr = |e: zip::result::ZipError| BatchError::Io(format!("building the ZIP: {e}"));
    let ioerr = |e: std::io::Error| BatchError::Io(format!("building the ZIP: {e}"));
    let opts = SimpleFileOptions::default()
        .compression_method(CompressionMethod::Deflated)
        .unix_permissions(0o600);
    let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
    zip.start_file(RUN_FILE, opts).map_err(zerr)?;
    zip.write_all(&record).map_err(ioerr)?;
    let mut total = 0usize;
    for name in run.steps.iter().flat_map(|s| s.images.iter()) {
        let bytes = store.read_run_file(run_id, name)?;
        total += bytes.len();
        if total > MAX_EXPORT_BYTES {
            return Err(BatchError::Io(format!(
                "the run's images exceed {} MB; copy {} instead",
                MAX_EXPORT_BYTES / (1024 * 1024),
                store.run_dir(run_id)?.display()
            )));
        }
        // Images are already compressed: storing them again deflated only costs time.
        zip.start_file(
            name.as_str(),
            opts.compression_method(CompressionMethod::Stored),
        )
        .map_err(zerr)?;
        zip.write_all(&bytes).map_err(ioerr)?;
    }
    Ok(zip.finish().map_err(zerr)?.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::batch::runlog::{RunLog, RunState, StepLog, StepOutcome};
    use std::io::Read;

    #[test]
    fn zip_holds_the_record_and_the_images() {
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::new(tmp.path().to_path_buf());
        let png = b"\x89PNG\r\n\x1a\nnot really".to_vec();
        store.put_image("r1", "step-01-1.png", &png).unwrap();
        let run = RunLog {
            run_id: "r1".into(),
            task_id: None,
            task_name: "inline".into(),
            state: RunState::Succeeded,
            started_at: "2025-01-01T00:00:00.000Z".into(),
            finished_at: None,
            total_steps: 1,
            keep_screen_on: false,
            client: "unknown".into(),
            transport: "stdio".into(),
            time_limit_secs: 600,
            stopped_reason: None,
            stopped_at_step: None,
            failed_steps: vec![],
            warnings: vec![],
            steps: vec![StepLog {
                index: 0,
                tool: "android_take_screenshot".into(),
                arguments: serde_json::json!({}),
                outcome: StepOutcome::Ok,
                result: None,
                error: None,
                duration_ms: 1,
                started_at: "2025-01-01T00:00:00.000Z".into(),
                images: vec!["step-01-1.png".into()],
                call_id: None,
            }],
        };
        store.put_run(&run).unwrap();
        let bytes = zip_run(&store, "r1", |_| {}).unwrap();
        let mut z = zip::ZipArchive::new(Cursor::new(bytes)).unwrap();
        let mut text = String::new();
        z.by_name(RUN_FILE)
            .unwrap()
            .read_to_string(&mut text)
            .unwrap();
        let back: RunLog = serde_json::from_str(&text).unwrap();
        assert_eq!(back, run);
        let mut img = Vec::new();
        z.by_name("step-01-1.png")
            .unwrap()
            .read_to_end(&mut img)
            .unwrap();
        assert_eq!(img, png);
        assert!(matches!(
            zip_run(&store, "nope", |_| {}),
            Err(BatchError::RunNotFound(_))
        ));
    }

    #[test]
    fn an_agents_export_is_redacted() {
        let tmp = tempfile::tempdir().unwrap();
        let store = Store::new(tmp.path().to_path_buf());
        let mut run: RunLog = serde_json::from_value(serde_json::json!({
            "runId": "r2", "taskId": null, "taskName": "t", "state": "succeeded",
            "startedAt": "2025-01-01T00:00:00.000Z", "finishedAt": null, "totalSteps": 1,
            "keepScreenOn": false, "client": "c", "transport": "stdio", "warnings": [],
            "steps": [],
        }))
        .unwrap();
        run.steps.push(StepLog {
            index: 0,
            tool: "android_get_logcat".into(),
            arguments: serde_json::json!({"contains": "password=hunter2xyz"}),
            outcome: StepOutcome::Ok,
            result: Some(serde_json::json!({"lines": ["Bearer abcdefgh12345678"]})),
            error: None,
            duration_ms: 1,
            started_at: "2025-01-01T00:00:00.000Z".into(),
            images: vec![],
            call_id: None,
        });
        store.put_run(&run).unwrap();
        let r = crate::redact::Redactor::with_defaults();
        let bytes = zip_run(&store, "r2", |v| {
            r.redact_json(v, crate::redact::Audience::Agent);
        })
        .unwrap();
        let mut z = zip::ZipArchive::new(Cursor::new(bytes)).unwrap();
        let mut text = String::new();
        z.by_name(RUN_FILE)
            .unwrap()
            .read_to_string(&mut text)
            .unwrap();
        assert!(
            !text.contains("hunter2xyz") && !text.contains("abcdefgh12345678"),
            "{text}"
        );
        assert!(text.contains("«redacted:password»") && text.contains("«redacted:bearer»"));
    }
}
