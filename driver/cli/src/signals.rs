//! Ctrl-C and SIGTERM: every command stops cleanly and closes its browser.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};

use sightline::{Error, Result};

/// Whether the signal that stopped the command was SIGTERM (the exit
/// status says which, as shells do: 130 for Ctrl-C, 143 for SIGTERM).
static TERMINATED: AtomicBool = AtomicBool::new(false);

/// The exit status of a command stopped by a signal.
pub fn interrupted_exit_status() -> u8 {
    if TERMINATED.load(Ordering::Relaxed) {
        128 + 15
    } else {
        128 + 2
    }
}

/// Resolves on Ctrl-C (or SIGTERM).
pub async fn shutdown_signal() {
    use tokio::signal::unix::{signal, SignalKind};
    let mut term = match signal(SignalKind::terminate()) {
        Ok(s) => s,
        Err(_) => {
            let _ = tokio::signal::ctrl_c().await;
            return;
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = term.recv() => TERMINATED.store(true, Ordering::Relaxed),
    }
}

/// Runs `fut` unless `signal` (one pinned [`shutdown_signal`] for the whole
/// command, so no Ctrl-C falls between two steps) fires first.
pub async fn interruptible<T>(
    signal: Pin<&mut impl Future<Output = ()>>,
    fut: impl Future<Output = Result<T>>,
) -> Result<T> {
    tokio::select! {
        r = fut => r,
        _ = signal => Err(Error::Interrupted),
    }
}

/// Ctrl-C and SIGTERM as a stream, for commands where a second press means
/// more than the first (`batch`: finish the running tasks, then cancel them).
/// One listener for the whole command, so no press falls between two waits.
pub struct ShutdownSignals {
    interrupt: tokio::signal::unix::Signal,
    terminate: tokio::signal::unix::Signal,
}

impl ShutdownSignals {
    pub fn new() -> Result<ShutdownSignals> {
        use tokio::signal::unix::{signal, SignalKind};
        let listen = |kind| signal(kind).map_err(|e| Error::Io(format!("cannot listen for Ctrl-C: {e}")));
        Ok(ShutdownSignals {
            interrupt: listen(SignalKind::interrupt())?,
            terminate: listen(SignalKind::terminate())?,
        })
    }

    /// Resolves at the next Ctrl-C or SIGTERM.
    pub async fn next(&mut self) {
        tokio::select! {
            _ = self.interrupt.recv() => {}
            _ = self.terminate.recv() => TERMINATED.store(true, Ordering::Relaxed),
        }
    }
}
