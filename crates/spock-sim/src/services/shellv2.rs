//! Shell protocol v2 packets (`shell,v2:`): one id byte, a u32 LE length, the payload.
//!
//! Ids as in adb's `shell_protocol.h`: kIdStdin=0, kIdStdout=1, kIdStderr=2, kIdExit=3,
//! kIdCloseStdin=4, kIdWindowSizeChange=5, kIdInvalid=255.
use bytes::{Buf, BufMut, Bytes, BytesMut};

pub const ID_STDIN: u8 = 0;
pub const ID_STDOUT: u8 = 1;
pub const ID_STDERR: u8 = 2;
pub const ID_EXIT: u8 = 3;
pub const ID_CLOSE_STDIN: u8 = 4;
pub const ID_WINDOW_SIZE_CHANGE: u8 = 5;

/// adbd's shell buffer is ~ MAX_PAYLOAD; a bigger client packet is a protocol error.
pub const MAX_PACKET: u32 = 1024 * 1024;

pub fn encode(id: u8, data: &[u8]) -> Bytes {
    let mut out = BytesMut::with_capacity(5 + data.len());
    out.put_u8(id);
    out.put_u32_le(u32::try_from(data.len()).unwrap_or(u32::MAX));
    out.extend_from_slice(data);
    out.freeze()
}

/// The exit packet carries the status as one byte, as adbd sends `exit_code & 0xff`.
pub fn exit_packet(code: i32) -> Bytes {
    encode(ID_EXIT, &[(code & 0xff) as u8])
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShellPacket {
    pub id: u8,
    pub data: Bytes,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("shell v2 packet of {0} bytes is too large")]
pub struct PacketTooLarge(pub u32);

/// Reassembles packets from arbitrary byte chunks (transport writes split them anywhere).
#[derive(Debug, Default)]
pub struct Decoder {
    buf: BytesMut,
}

impl Decoder {
    pub fn push(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
    }

    /// The next complete packet, if one has arrived.
    pub fn next_packet(&mut self) -> Result<Option<ShellPacket>, PacketTooLarge> {
        let Some(header) = self.buf.get(..5) else {
            return Ok(None);
        };
        let id = header[0];
        let len = u32::from_le_bytes([header[1], header[2], header[3], header[4]]);
        if len > MAX_PACKET {
            return Err(PacketTooLarge(len));
        }
        let total = 5 + len as usize;
        if self.buf.len() < total {
            return Ok(None);
        }
        self.buf.advance(5);
        let data = self.buf.split_to(len as usize).freeze();
        Ok(Some(ShellPacket { id, data }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_like_adbd() {
        assert_eq!(&encode(ID_STDOUT, b"hi\n")[..], b"\x01\x03\x00\x00\x00hi\n");
        assert_eq!(&exit_packet(42)[..], b"\x03\x01\x00\x00\x00\x2a");
        assert_eq!(&exit_packet(-1)[..], b"\x03\x01\x00\x00\x00\xff");
        assert_eq!(&exit_packet(256 + 7)[..], b"\x03\x01\x00\x00\x00\x07");
    }

    #[test]
    fn decodes_across_arbitrary_splits() {
        let mut wire = encode(ID_STDIN, b"abc").to_vec();
        wire.extend_from_slice(&encode(ID_CLOSE_STDIN, b""));
        wire.extend_from_slice(&encode(ID_WINDOW_SIZE_CHANGE, b"24x80,0x0\0"));
        for split in 0..wire.len() {
            let mut d = Decoder::default();
            let mut got = Vec::new();
            for part in [&wire[..split], &wire[split..]] {
                d.push(part);
                while let Some(p) = d.next_packet().unwrap() {
                    got.push(p.id);
                }
            }
            assert_eq!(
                got,
                vec![ID_STDIN, ID_CLOSE_STDIN, ID_WINDOW_SIZE_CHANGE],
                "split at {split}"
            );
        }
    }

    #[test]
    fn refuses_absurd_lengths() {
        let mut d = Decoder::default();
        d.push(b"\x00\xff\xff\xff\xff");
        assert_eq!(d.next_packet(), Err(PacketTooLarge(u32::MAX)));
    }
}
