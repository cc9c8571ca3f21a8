//! The write timeout every client connection is served under (`server.write_timeout_secs`).
//!
//! A client that sends requests and never reads the replies stalls our writes once the socket
//! buffers are full. Without a bound the connection, its task and every reply queued behind
//! the stalled one (rmcp spawns a task per response; hyper holds the body) stay alive for ever.
//! [`WriteTimeout`] wraps the raw stream under each transport: a write (or flush) that makes
//! no progress for the timeout fails with `TimedOut`, and from then on every write fails at
//! once and every read sees end of file, so whatever serves the connection (hyper, rmcp) ends
//! it and drops what it held. The moment is logged and [`WriteTimeout::expired`] fires.
//!
//! "No progress" is per write, as `SO_SNDTIMEO` means it: a client that reads slowly but does
//! read keeps its connection.
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::time::Sleep;
use tokio_util::sync::CancellationToken;

pub struct WriteTimeout<S> {
    inner: S,
    timeout: Duration,
    /// Armed when a write first finds the peer not reading; cleared by any progress.
    stalled: Option<Pin<Box<Sleep>>>,
    expired: CancellationToken,
    /// Who the peer is, for the log line.
    peer: String,
}

impl<S> WriteTimeout<S> {
    pub fn new(inner: S, timeout: Duration, peer: impl Into<String>) -> WriteTimeout<S> {
        WriteTimeout {
            inner,
            timeout,
            stalled: None,
            expired: CancellationToken::new(),
            peer: peer.into(),
        }
    }

    /// Cancelled when the timeout fires: the connection is being dropped.
    pub fn expired(&self) -> CancellationToken {
        self.expired.clone()
    }

    fn timed_out(&self) -> io::Error {
        io::Error::new(
            io::ErrorKind::TimedOut,
            format!(
                "the client read nothing for {}s: connection dropped",
                self.timeout.as_secs_f32()
            ),
        )
    }

    /// The inner write returned Pending: arm or check the deadline. `Ready` means it passed.
    fn poll_stall(&mut self, cx: &mut Context<'_>) -> Poll<io::Error> {
        let timeout = self.timeout;
        let sleep = self
            .stalled
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(timeout)));
        ready!(sleep.as_mut().poll(cx));
        if !self.expired.is_cancelled() {
            tracing::warn!(
                peer = %self.peer,
                timeout_secs = timeout.as_secs_f32(),
                "a client stopped reading its replies: write timeout, connection dropped"
            );
            self.expired.cancel();
        }
        Poll::Ready(self.timed_out())
    }

    /// Maps one inner write-side poll through the timeout.
    fn guard<T>(&mut self, cx: &mut Context<'_>, r: Poll<io::Result<T>>) -> Poll<io::Result<T>> {
        match r {
            Poll::Pending => match self.poll_stall(cx) {
                Poll::Ready(e) => Poll::Ready(Err(e)),
                Poll::Pending => Poll::Pending,
            },
            done => {
                self.stalled = None;
                done
            }
        }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for WriteTimeout<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        if self.expired.is_cancelled() {
            return Poll::Ready(Ok(()));
        }
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for WriteTimeout<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        if self.expired.is_cancelled() {
            return Poll::Ready(Err(self.timed_out()));
        }
        let r = Pin::new(&mut self.inner).poll_write(cx, buf);
        self.guard(cx, r)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        if self.expired.is_cancelled() {
            return Poll::Ready(Err(self.timed_out()));
        }
        let r = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        self.guard(cx, r)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if self.expired.is_cancelled() {
            return Poll::Ready(Err(self.timed_out()));
        }
        let r = Pin::new(&mut self.inner).poll_flush(cx);
        self.guard(cx, r)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if self.expired.is_cancelled() {
            // Nothing more can be sent; the socket closes when it is dropped.
            return Poll::Ready(Ok(()));
        }
        let r = Pin::new(&mut self.inner).poll_shutdown(cx);
        self.guard(cx, r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    #[tokio::test(start_paused = true)]
    async fn a_write_nobody_reads_fails_after_the_timeout_and_stays_failed() {
        let (ours, mut theirs) = tokio::io::duplex(64);
        let mut w = WriteTimeout::new(ours, Duration::from_secs(5), "test");
        let expired = w.expired();
        let e = w.write_all(&[0u8; 4096]).await.unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::TimedOut);
        assert!(expired.is_cancelled());
        // Latched: the next write fails at once, reads see end of file.
        assert!(w.write_all(b"x").await.is_err());
        let mut buf = [0u8; 8];
        assert_eq!(w.read(&mut buf).await.unwrap(), 0);
        // What the peer did get is what fitted before the stall.
        let mut got = vec![0u8; 64];
        theirs.read_exact(&mut got).await.unwrap();
    }

    #[tokio::test(start_paused = true)]
    async fn a_peer_that_keeps_reading_is_never_timed_out() {
        let (ours, mut theirs) = tokio::io::duplex(64);
        let mut w = WriteTimeout::new(ours, Duration::from_secs(5), "test");
        let reader = tokio::spawn(async move {
            let mut total = 0;
            let mut buf = [0u8; 16];
            while total < 4096 {
                // Slower than the buffer fills, each read well within the timeout.
                tokio::time::sleep(Duration::from_secs(1)).await;
                total += theirs.read(&mut buf).await.unwrap();
            }
            total
        });
        w.write_all(&[7u8; 4096])
            .await
            .expect("progress keeps it alive");
        assert_eq!(reader.await.unwrap(), 4096);
        assert!(!w.expired().is_cancelled());
    }
}
