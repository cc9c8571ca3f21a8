//! The adb transport message: a 24-byte little-endian header and a payload.
//!
//! `command, arg0, arg1, data_length, data_check, magic` where `magic = command ^ 0xffffffff`
//! and `data_check` is the byte sum of the payload. Hosts at version 0x01000001 never check the
//! sum, but old ones do, so it is always filled; incoming sums are never checked.
use bytes::{BufMut, Bytes, BytesMut};
use tokio::io::{AsyncRead, AsyncReadExt};

pub const A_SYNC: u32 = 0x434e_5953;
pub const A_CNXN: u32 = 0x4e58_4e43;
pub const A_OPEN: u32 = 0x4e45_504f;
pub const A_OKAY: u32 = 0x5941_4b4f;
pub const A_CLSE: u32 = 0x4553_4c43;
pub const A_WRTE: u32 = 0x4554_5257;
pub const A_AUTH: u32 = 0x4854_5541;
pub const A_STLS: u32 = 0x534c_5453;

/// The version this device speaks (skips checksums on the host side).
pub const A_VERSION: u32 = 0x0100_0001;
/// Largest payload this device accepts and sends, as adbd's `MAX_PAYLOAD` on modern builds.
pub const MAX_PAYLOAD: u32 = 256 * 1024;
/// Header size on the wire.
pub const HEADER_LEN: usize = 24;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Packet {
    pub command: u32,
    pub arg0: u32,
    pub arg1: u32,
    pub data: Bytes,
}

#[derive(Debug, thiserror::Error)]
pub enum PacketError {
    #[error("connection closed")]
    Eof,
    #[error("i/o: {0}")]
    Io(#[from] std::io::Error),
    #[error("bad magic {magic:#010x} for command {command:#010x}")]
    BadMagic { command: u32, magic: u32 },
    #[error("unknown command {0:#010x}")]
    UnknownCommand(u32),
    #[error("payload of {len} bytes exceeds the {max}-byte limit")]
    TooLong { len: u32, max: u32 },
}

pub fn checksum(data: &[u8]) -> u32 {
    data.iter()
        .fold(0u32, |sum, b| sum.wrapping_add(u32::from(*b)))
}

pub fn command_name(command: u32) -> String {
    String::from_utf8_lossy(&command.to_le_bytes()).into_owned()
}

impl Packet {
    pub fn new(command: u32, arg0: u32, arg1: u32, data: impl Into<Bytes>) -> Packet {
        Packet {
            command,
            arg0,
            arg1,
            data: data.into(),
        }
    }

    pub fn encode(&self) -> Bytes {
        let mut out = BytesMut::with_capacity(HEADER_LEN + self.data.len());
        out.put_u32_le(self.command);
        out.put_u32_le(self.arg0);
        out.put_u32_le(self.arg1);
        // Payloads are bounded by MAX_PAYLOAD when built, so the length fits in u32.
        out.put_u32_le(u32::try_from(self.data.len()).unwrap_or(u32::MAX));
        out.put_u32_le(checksum(&self.data));
        out.put_u32_le(self.command ^ 0xffff_ffff);
        out.extend_from_slice(&self.data);
        out.freeze()
    }

    /// Parse a header, validating what a malicious or confused peer could get wrong.
    pub fn parse_header(
        h: &[u8; HEADER_LEN],
        max_payload: u32,
    ) -> Result<(u32, u32, u32, u32), PacketError> {
        let word = |i: usize| u32::from_le_bytes([h[i], h[i + 1], h[i + 2], h[i + 3]]);
        let (command, arg0, arg1, len, magic) = (word(0), word(4), word(8), word(12), word(20));
        if magic != command ^ 0xffff_ffff {
            return Err(PacketError::BadMagic { command, magic });
        }
        if ![
            A_SYNC, A_CNXN, A_OPEN, A_OKAY, A_CLSE, A_WRTE, A_AUTH, A_STLS,
        ]
        .contains(&command)
        {
            return Err(PacketError::UnknownCommand(command));
        }
        if len > max_payload {
            return Err(PacketError::TooLong {
                len,
                max: max_payload,
            });
        }
        Ok((command, arg0, arg1, len))
    }

    /// Read one message. A clean EOF before the first header byte is [`PacketError::Eof`].
    pub async fn read<R: AsyncRead + Unpin>(
        r: &mut R,
        max_payload: u32,
    ) -> Result<Packet, PacketError> {
        let mut header = [0u8; HEADER_LEN];
        let first = r.read(&mut header).await?;
        if first == 0 {
            return Err(PacketError::Eof);
        }
        if first < HEADER_LEN {
            r.read_exact(&mut header[first..]).await?;
        }
        let (command, arg0, arg1, len) = Packet::parse_header(&header, max_payload)?;
        let mut data = vec![0u8; len as usize];
        r.read_exact(&mut data).await?;
        Ok(Packet {
            command,
            arg0,
            arg1,
            data: data.into(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_header_like_adb() {
        let p = Packet::new(A_OKAY, 7, 9, Bytes::from_static(b"ab"));
        let wire = p.encode();
        assert_eq!(&wire[0..4], b"OKAY");
        assert_eq!(&wire[4..8], &7u32.to_le_bytes());
        assert_eq!(&wire[8..12], &9u32.to_le_bytes());
        assert_eq!(&wire[12..16], &2u32.to_le_bytes());
        assert_eq!(
            &wire[16..20],
            &(u32::from(b'a') + u32::from(b'b')).to_le_bytes()
        );
        assert_eq!(&wire[20..24], &(A_OKAY ^ 0xffff_ffff).to_le_bytes());
        assert_eq!(&wire[24..], b"ab");
        assert_eq!(command_name(A_CNXN), "CNXN");
    }

    #[tokio::test]
    async fn round_trips_and_ignores_wrong_checksums() {
        let mut wire = Packet::new(A_WRTE, 1, 2, Bytes::from_static(b"hello"))
            .encode()
            .to_vec();
        wire[16] ^= 0xff; // hosts never check it, and neither do we
        let p = Packet::read(&mut &wire[..], MAX_PAYLOAD).await.unwrap();
        assert_eq!(
            (p.command, p.arg0, p.arg1, &p.data[..]),
            (A_WRTE, 1, 2, &b"hello"[..])
        );
    }

    #[tokio::test]
    async fn rejects_malformed_headers() {
        let mut wire = Packet::new(A_OPEN, 1, 0, Bytes::from_static(b"shell:\0"))
            .encode()
            .to_vec();
        wire[20] ^= 1;
        assert!(matches!(
            Packet::read(&mut &wire[..], MAX_PAYLOAD).await,
            Err(PacketError::BadMagic { .. })
        ));

        let garbage = *b"GET / HTTP/1.1\r\nHost: x\r\n";
        assert!(Packet::read(&mut &garbage[..], MAX_PAYLOAD).await.is_err());

        let mut huge = Packet::new(A_WRTE, 1, 2, Bytes::new()).encode().to_vec();
        huge[12..16].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(matches!(
            Packet::read(&mut &huge[..], MAX_PAYLOAD).await,
            Err(PacketError::TooLong { .. })
        ));

        let truncated = &Packet::new(A_WRTE, 1, 2, Bytes::from_static(b"abcdef")).encode()[..27];
        assert!(matches!(
            Packet::read(&mut &truncated[..], MAX_PAYLOAD).await,
            Err(PacketError::Io(_))
        ));
        assert!(matches!(
            Packet::read(&mut &b""[..], MAX_PAYLOAD).await,
            Err(PacketError::Eof)
        ));
    }
}
