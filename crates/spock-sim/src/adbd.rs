//! adbd over TCP: the device end of the adb transport, so a real `adb connect` reaches us.
//!
//! One task reads messages, one writes them (applying the delay / drop switches), and each
//! OPENed stream is its own task pair: a service running over an in-memory pipe, and a pump
//! that turns the pipe into WRTE messages with one WRTE in flight (the next waits for OKAY).
//! No AUTH is sent; the host's checksums are never checked. Malformed input closes the
//! connection and is logged, never panics.
use std::collections::HashMap;

use bytes::Bytes;
use tokio::io::{AsyncReadExt, AsyncWriteExt, DuplexStream};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use self::packet::{
    A_CLSE, A_CNXN, A_OKAY, A_OPEN, A_VERSION, A_WRTE, MAX_PAYLOAD, Packet, PacketError,
};
use super::faults::DropBudget;
use super::services::{self, FEATURES, ServedDevice, Service};

pub mod packet;

/// The host may send up to its own MAX_PAYLOAD before it has read our CNXN.
const MAX_INCOMING: u32 = 1024 * 1024;

/// Accept connections for one device until `stop` fires.
pub async fn serve(listener: TcpListener, device: ServedDevice, stop: CancellationToken) {
    loop {
        let accepted = tokio::select! {
            _ = stop.cancelled() => return,
            a = listener.accept() => a,
        };
        match accepted {
            Ok((stream, peer)) => {
                tracing::debug!(serial = %device.identity.serial, %peer, "adbd connection");
                let device = device.clone();
                let stop = stop.child_token();
                tokio::spawn(async move {
                    if let Err(e) = connection(stream, device, stop).await {
                        tracing::info!("adbd connection from {peer} closed: {e}");
                    }
                });
            }
            Err(e) => tracing::warn!("adbd accept failed: {e}"),
        }
    }
}

/// The CNXN banner a real adbd sends.
pub fn banner(device: &ServedDevice) -> String {
    let id = &device.identity;
    format!(
        "device::ro.product.name={};ro.product.model={};ro.product.device={};features={FEATURES}",
        id.product, id.model, id.device
    )
}

enum StreamEvent {
    Data(Bytes),
    Okay,
}

struct OpenStream {
    remote: u32,
    events: mpsc::UnboundedSender<StreamEvent>,
    pump: JoinHandle<()>,
    service: JoinHandle<()>,
}

async fn connection(
    stream: TcpStream,
    device: ServedDevice,
    stop: CancellationToken,
) -> Result<(), PacketError> {
    let _ = stream.set_nodelay(true);
    let (mut rd, wr) = stream.into_split();
    let dead = stop.child_token();
    let (out, out_rx) = mpsc::channel::<Packet>(256);
    let writer = tokio::spawn(write_packets(wr, out_rx, device.clone(), dead.clone()));
    let (in_tx, mut incoming) = mpsc::channel::<Result<Packet, PacketError>>(16);
    let reader = tokio::spawn(async move {
        loop {
            let p = Packet::read(&mut rd, MAX_INCOMING).await;
            let stop = p.is_err();
            if in_tx.send(p).await.is_err() || stop {
                return;
            }
        }
    });
    let mut fault_changes = device.faults.subscribe();
    let (closed_tx, mut closed_rx) = mpsc::unbounded_channel::<u32>();
    let mut streams: HashMap<u32, OpenStream> = HashMap::new();
    let mut next_id: u32 = 1;
    let mut pending_cnxn: Option<u32> = None;
    let mut max_payload = MAX_PAYLOAD;
    let mut online = false;

    let result = loop {
        tokio::select! {
            _ = dead.cancelled() => break Ok(()),
            changed = fault_changes.changed() => {
                if changed.is_err() {
                    continue;
                }
                let offline = device.faults.is_offline();
                if offline && online {
                    // A phone that drops off the bus: the transport goes away and adb's
                    // reconnect finds a device that never completes the handshake.
                    break Ok(());
                }
                if !offline && let Some(theirs) = pending_cnxn.take() {
                    max_payload = theirs.clamp(4096, MAX_PAYLOAD);
                    online = true;
                    send(&out, Packet::new(A_CNXN, A_VERSION, MAX_PAYLOAD, banner(&device).into_bytes())).await;
                }
            }
            Some(local) = closed_rx.recv() => {
                streams.remove(&local);
            }
            p = incoming.recv() => {
                let p = match p {
                    Some(Ok(p)) => p,
                    Some(Err(PacketError::Eof)) | None => break Ok(()),
                    Some(Err(e)) => break Err(e),
                };
                match p.command {
                    A_CNXN => {
                        if device.faults.is_offline() {
                            pending_cnxn = Some(p.arg1);
                        } else {
                            max_payload = p.arg1.clamp(4096, MAX_PAYLOAD);
                            online = true;
                            send(&out, Packet::new(A_CNXN, A_VERSION, MAX_PAYLOAD, banner(&device).into_bytes())).await;
                        }
                    }
                    _ if !online => tracing::debug!("ignoring {} before CNXN", packet::command_name(p.command)),
                    A_OPEN => {
                        let local = next_id;
                        next_id = next_id.wrapping_add(1).max(1);
                        if let Some(s) = open(&device, local, p.arg0, &p.data, max_payload, &out, &closed_tx).await {
                            streams.insert(local, s);
                        }
                    }
                    A_WRTE => match streams.get(&p.arg1) {
                        Some(s) if s.remote == p.arg0 => {
                            let _ = s.events.send(StreamEvent::Data(p.data));
                        }
                        _ => tracing::debug!("WRTE for unknown stream {}", p.arg1),
                    },
                    A_OKAY => {
                        if let Some(s) = streams.get(&p.arg1) {
                            let _ = s.events.send(StreamEvent::Okay);
                        }
                    }
                    A_CLSE => {
                        // The host closed its end: stop the service (SIGHUP), send nothing back.
                        if let Some(s) = streams.remove(&p.arg1) {
                            s.service.abort();
                            s.pump.abort();
                        }
                    }
                    other => tracing::debug!("ignoring {}", packet::command_name(other)),
                }
            }
        }
    };
    for s in streams.into_values() {
        s.service.abort();
        s.pump.abort();
    }
    reader.abort();
    drop(out);
    dead.cancel();
    let _ = writer.await;
    result
}

async fn send(out: &mpsc::Sender<Packet>, p: Packet) {
    // The writer only goes away when the connection is ending anyway.
    let _ = out.send(p).await;
}

/// Answer an OPEN: OKAY and start the service, or CLSE when it is refused or unknown.
async fn open(
    device: &ServedDevice,
    local: u32,
    remote: u32,
    name: &[u8],
    max_payload: u32,
    out: &mpsc::Sender<Packet>,
    closed: &mpsc::UnboundedSender<u32>,
) -> Option<OpenStream> {
    let name = String::from_utf8_lossy(name);
    let faults = device.faults.snapshot();
    let service = match Service::parse(&name) {
        Ok(s) if !faults.refuse_open => s,
        Ok(_) => {
            tracing::info!(serial = %device.identity.serial, "refusing OPEN {name:?} (fault switch)");
            send(out, Packet::new(A_CLSE, 0, remote, Bytes::new())).await;
            return None;
        }
        Err(e) => {
            tracing::info!(serial = %device.identity.serial, "refusing OPEN: {e}");
            send(out, Packet::new(A_CLSE, 0, remote, Bytes::new())).await;
            return None;
        }
    };
    send(out, Packet::new(A_OKAY, local, remote, Bytes::new())).await;
    let pipe_size = max_payload as usize * 2;
    let (ours, theirs) = tokio::io::duplex(pipe_size);
    let hangs = service.command_line().is_some_and(|c| faults.hangs(c));
    let pause = device.faults.pace.charge(&service);
    let target = device.target.clone();
    let service = tokio::spawn(async move {
        if hangs {
            services::hang(theirs).await;
        } else {
            services::paced(pause).await;
            services::run(service, target, theirs).await;
        }
    });
    let (events, events_rx) = mpsc::unbounded_channel();
    let pump = tokio::spawn(pump(
        local,
        remote,
        ours,
        events_rx,
        out.clone(),
        max_payload,
        closed.clone(),
    ));
    Some(OpenStream {
        remote,
        events,
        pump,
        service,
    })
}

/// Move bytes between a service pipe and WRTE messages, one WRTE in flight at a time.
async fn pump(
    local: u32,
    remote: u32,
    pipe: DuplexStream,
    mut events: mpsc::UnboundedReceiver<StreamEvent>,
    out: mpsc::Sender<Packet>,
    max_payload: u32,
    closed: mpsc::UnboundedSender<u32>,
) {
    let (mut from_service, mut to_service) = tokio::io::split(pipe);
    // Host data is written to the service on its own task so a command that ignores stdin
    // cannot stall its output; the OKAY goes back only once the service took the bytes.
    let (inbound_tx, mut inbound_rx) = mpsc::unbounded_channel::<Bytes>();
    let inbound_out = out.clone();
    let inbound = tokio::spawn(async move {
        while let Some(data) = inbound_rx.recv().await {
            if to_service.write_all(&data).await.is_err() {
                // The service is gone; keep acknowledging so the host is not stuck.
            }
            send(
                &inbound_out,
                Packet::new(A_OKAY, local, remote, Bytes::new()),
            )
            .await;
        }
    });
    let mut buf = vec![0u8; max_payload as usize];
    let mut can_send = true;
    loop {
        tokio::select! {
            ev = events.recv() => match ev {
                Some(StreamEvent::Data(d)) => { let _ = inbound_tx.send(d); }
                Some(StreamEvent::Okay) => can_send = true,
                None => break,
            },
            n = from_service.read(&mut buf), if can_send => match n {
                Ok(0) | Err(_) => {
                    send(&out, Packet::new(A_CLSE, local, remote, Bytes::new())).await;
                    break;
                }
                Ok(n) => {
                    send(&out, Packet::new(A_WRTE, local, remote, Bytes::copy_from_slice(&buf[..n]))).await;
                    can_send = false;
                }
            },
        }
    }
    inbound.abort();
    let _ = closed.send(local);
}

/// Write messages to the socket, applying the delay and drop-after-N-bytes switches.
async fn write_packets(
    mut wr: tokio::net::tcp::OwnedWriteHalf,
    mut packets: mpsc::Receiver<Packet>,
    device: ServedDevice,
    dead: CancellationToken,
) {
    let mut budget = DropBudget::default();
    loop {
        let p = tokio::select! {
            p = packets.recv() => p,
            _ = dead.cancelled() => None,
        };
        let Some(p) = p else { break };
        let faults = device.faults.snapshot();
        if faults.delay_ms > 0 {
            tokio::time::sleep(std::time::Duration::from_millis(faults.delay_ms)).await;
        }
        let wire = p.encode();
        let allowed = budget.allow(&faults, wire.len());
        let wrote = wr.write_all(&wire[..allowed]).await;
        if allowed < wire.len() {
            tracing::info!(serial = %device.identity.serial, "dropping connection (drop-after fault)");
            break;
        }
        if let Err(e) = wrote {
            tracing::debug!("adbd write failed: {e}");
            break;
        }
    }
    let _ = wr.shutdown().await;
    dead.cancel();
}

#[cfg(test)]
mod tests;
