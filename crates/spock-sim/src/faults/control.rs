//! The runtime control endpoint: one JSON object per line in, one JSON line out.
//!
//! `{"serial":"sim-1","fault":"delay","ms":300}` → `{"ok":true,"serial":"sim-1","state":{…}}`.
//! A line without `serial` applies to every device. Loopback TCP so tests and scripts can reach
//! it with nothing more than a socket; its address goes into the `spock-tui sim` JSON line.
use std::sync::Arc;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;

use super::{FaultCommand, Faults};

/// Longest accepted request line; anything longer is garbage and closes the connection.
const MAX_LINE: usize = 64 * 1024;

pub type FaultTable = Arc<Vec<(String, Arc<Faults>)>>;

/// Serve the control endpoint until `stop` fires.
pub async fn serve(listener: TcpListener, table: FaultTable, stop: CancellationToken) {
    loop {
        let accepted = tokio::select! {
            _ = stop.cancelled() => return,
            a = listener.accept() => a,
        };
        match accepted {
            Ok((stream, _)) => {
                let table = table.clone();
                let stop = stop.clone();
                tokio::spawn(async move {
                    tokio::select! {
                        _ = stop.cancelled() => {}
                        r = connection(stream, table) => {
                            if let Err(e) = r {
                                tracing::debug!("control connection ended: {e}");
                            }
                        }
                    }
                });
            }
            Err(e) => tracing::warn!("control accept failed: {e}"),
        }
    }
}

async fn connection(stream: TcpStream, table: FaultTable) -> std::io::Result<()> {
    let (read, mut write) = stream.into_split();
    let mut lines = BufReader::new(read);
    let mut line = Vec::new();
    loop {
        line.clear();
        let n = (&mut lines)
            .take(MAX_LINE as u64 + 1)
            .read_until(b'\n', &mut line)
            .await?;
        if n == 0 {
            return Ok(());
        }
        if line.len() > MAX_LINE {
            let reply = json!({"ok": false, "error": "request line too long"});
            write.write_all(format!("{reply}\n").as_bytes()).await?;
            return Ok(());
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let reply = handle_line(&line, &table);
        write.write_all(format!("{reply}\n").as_bytes()).await?;
    }
}

/// Apply one request line and build the reply.
pub fn handle_line(line: &[u8], table: &FaultTable) -> Value {
    let value: Value = match serde_json::from_slice(line) {
        Ok(v) => v,
        Err(e) => return json!({"ok": false, "error": format!("not a JSON object: {e}")}),
    };
    let serial = value
        .get("serial")
        .and_then(Value::as_str)
        .map(str::to_owned);
    if value.get("stats").and_then(Value::as_bool) == Some(true) {
        return stats(&value, serial, table);
    }
    let command: FaultCommand = match serde_json::from_value(value) {
        Ok(c) => c,
        Err(e) => return json!({"ok": false, "error": format!("bad fault request: {e}")}),
    };
    let targets: Vec<&(String, Arc<Faults>)> = match &serial {
        Some(s) => table.iter().filter(|(name, _)| name == s).collect(),
        None => table.iter().collect(),
    };
    if targets.is_empty() {
        let known: Vec<&str> = table.iter().map(|(n, _)| n.as_str()).collect();
        return json!({"ok": false, "error": format!("no device with serial {serial:?}; devices: {known:?}")});
    }
    let states: serde_json::Map<String, Value> = targets
        .into_iter()
        .map(|(name, faults)| {
            (
                name.clone(),
                serde_json::to_value(faults.apply(&command)).unwrap_or(Value::Null),
            )
        })
        .collect();
    match serial {
        Some(s) => {
            json!({"ok": true, "serial": s, "state": states.get(&s).cloned().unwrap_or(Value::Null)})
        }
        None => json!({"ok": true, "states": states}),
    }
}

/// `{"stats":true[,"serial":S][,"reset":true]}`: what each device was asked and the device
/// time charged (see [`crate::latency`]); `reset` zeroes the meter after reading it.
fn stats(value: &Value, serial: Option<String>, table: &FaultTable) -> Value {
    let reset = value.get("reset").and_then(Value::as_bool) == Some(true);
    let stats: serde_json::Map<String, Value> = table
        .iter()
        .filter(|(name, _)| serial.as_ref().is_none_or(|s| s == name))
        .map(|(name, faults)| {
            let s = faults.pace.stats();
            if reset {
                faults.pace.reset_stats();
            }
            (name.clone(), serde_json::to_value(s).unwrap_or(Value::Null))
        })
        .collect();
    if stats.is_empty() {
        return json!({"ok": false, "error": format!("no device with serial {serial:?}")});
    }
    json!({"ok": true, "stats": stats})
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> FaultTable {
        Arc::new(vec![
            ("sim-1".into(), Arc::new(Faults::default())),
            ("sim-2".into(), Arc::new(Faults::default())),
        ])
    }

    #[test]
    fn applies_to_the_named_device_only() {
        let t = table();
        let r = handle_line(br#"{"serial":"sim-1","fault":"delay","ms":300}"#, &t);
        assert_eq!(r["ok"], true);
        assert_eq!(r["state"]["delay_ms"], 300);
        assert_eq!(t[0].1.snapshot().delay_ms, 300);
        assert_eq!(t[1].1.snapshot().delay_ms, 0);
    }

    #[test]
    fn latency_and_stats_are_reachable() {
        let t = table();
        let r = handle_line(
            br#"{"serial":"sim-1","fault":"latency","profile":"phone","seed":3}"#,
            &t,
        );
        assert_eq!(r["ok"], true, "{r}");
        assert_eq!(t[0].1.pace.profile(), crate::latency::Profile::Phone);
        assert_eq!(t[1].1.pace.profile(), crate::latency::Profile::Instant);
        t[0].1.pace.charge(&crate::services::Service::Framebuffer);
        let r = handle_line(br#"{"stats":true,"serial":"sim-1","reset":true}"#, &t);
        assert_eq!(r["stats"]["sim-1"]["total_commands"], 1, "{r}");
        assert_eq!(r["stats"]["sim-1"]["profile"], "phone");
        let r = handle_line(br#"{"stats":true}"#, &t);
        assert_eq!(r["stats"]["sim-1"]["total_commands"], 0, "{r}");
        assert!(r["stats"]["sim-2"].is_object());
    }

    #[test]
    fn without_serial_applies_to_all() {
        let t = table();
        let r = handle_line(br#"{"fault":"offline"}"#, &t);
        assert_eq!(r["ok"], true);
        assert!(t.iter().all(|(_, f)| f.is_offline()));
    }

    #[test]
    fn garbage_and_unknown_serials_are_answered_not_fatal() {
        let t = table();
        assert_eq!(handle_line(b"\x00\xffnot json", &t)["ok"], false);
        assert_eq!(handle_line(br#"{"fault":"melt"}"#, &t)["ok"], false);
        let r = handle_line(br#"{"serial":"nope","fault":"clear"}"#, &t);
        assert_eq!(r["ok"], false);
        assert!(r["error"].as_str().unwrap().contains("sim-1"));
    }
}
