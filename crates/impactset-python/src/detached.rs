//! Long calls off the interpreter: the work runs on a worker thread while
//! the calling thread, detached from Python (the GIL released, so other
//! Python threads run), wakes every [`POLL`] to report progress and check
//! for Ctrl-C. On a signal it sets the cancel flag, waits for the worker to
//! notice (the CPU sampler checks it before every sample, the GPU between
//! batches) and raises the signal's exception (`KeyboardInterrupt`).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, mpsc};
use std::time::Duration;

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

/// How often the calling thread checks for signals and reports progress.
pub(crate) const POLL: Duration = Duration::from_millis(50);

/// What the worker sees: a cancel flag to poll and a progress counter to
/// bump.
pub(crate) struct Control {
    cancel: AtomicBool,
    done: AtomicUsize,
}

impl Control {
    /// Whether the caller asked the work to stop.
    pub(crate) fn cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }

    /// The cancel flag, for the library's [`RunControl`](impactset::run::RunControl).
    pub(crate) fn flag(&self) -> &AtomicBool {
        &self.cancel
    }

    /// Reports `k` more units done.
    pub(crate) fn advance(&self, k: usize) {
        self.done.fetch_add(k, Ordering::Relaxed);
    }
}

/// Runs `work` on a worker thread with the GIL released; `progress` (a
/// Python callable taking the number of units newly done) is called from
/// the calling thread, with the GIL, at most every [`POLL`]. Returns the
/// work's result, or the exception of a signal handler (Ctrl-C:
/// `KeyboardInterrupt`) once the worker has stopped.
pub(crate) fn run<T: Send>(
    py: Python<'_>,
    progress: Option<&Bound<'_, PyAny>>,
    work: impl FnOnce(&Control) -> T + Send,
) -> PyResult<T> {
    let control = Control { cancel: AtomicBool::new(false), done: AtomicUsize::new(0) };
    let control = &control;
    std::thread::scope(|scope| {
        let (tx, rx) = mpsc::channel::<()>();
        // The receiver is waited on from detached sections, which need `Sync`.
        let rx = Mutex::new(rx);
        let worker = scope.spawn(move || {
            let result = work(control);
            let _ = tx.send(());
            result
        });
        let mut reported = 0;
        let mut report = || -> PyResult<()> {
            let done = control.done.load(Ordering::Relaxed);
            if let Some(callback) = progress
                && done > reported
            {
                callback.call1((done - reported,))?;
                reported = done;
            }
            Ok(())
        };
        let outcome = loop {
            let finished = py.detach(|| match rx.lock().unwrap_or_else(|e| e.into_inner()).recv_timeout(POLL) {
                Ok(()) | Err(mpsc::RecvTimeoutError::Disconnected) => true,
                Err(mpsc::RecvTimeoutError::Timeout) => false,
            });
            if finished {
                break report();
            }
            if let Err(err) = py.check_signals().and_then(|()| report()) {
                control.cancel.store(true, Ordering::Relaxed);
                break Err(err);
            }
        };
        let joined = py.detach(|| worker.join());
        outcome?;
        joined.map_err(|_| PyRuntimeError::new_err("impactset: the computation failed unexpectedly (a Rust panic)"))
    })
}
