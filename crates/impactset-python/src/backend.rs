//! The backend a Python call runs on: the core's rule
//! ([`Backend::open_with`]) in Python's words, on one GPU context per
//! process.

use std::sync::{Arc, Mutex};

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;

use impactset::gpu::{GpuContext, GpuError, Precision};
use impactset::run::{Backend, BackendChoice, OpenError, RunError};
use impactset::{ImpactProblem, Selection};

/// The process's GPU context, opened on first use and shared by every call
/// (a failed open is tried again next time).
fn gpu_context() -> Result<Arc<GpuContext>, GpuError> {
    static CONTEXT: Mutex<Option<Arc<GpuContext>>> = Mutex::new(None);
    let mut slot = CONTEXT.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(context) = slot.as_ref() {
        return Ok(context.clone());
    }
    let context = Arc::new(GpuContext::new()?);
    *slot = Some(context.clone());
    Ok(context)
}

/// An option as Python spells it (`backend='cpu'`), for the core's typed
/// reasons ([`impactset::run::BackendReason::describe`]).
fn keyword(name: &str, value: &str) -> String {
    format!("{name}='{value}'")
}

/// The backend for `backend` and why, by the core's rule
/// ([`Backend::open_with`]: `auto` takes the GPU when there is one and it
/// runs the selection rule here), in Python's words; the GPU context is
/// shared by every call in the process.
pub(crate) fn open_backend(
    problem: &ImpactProblem,
    choice: BackendChoice,
    precision: Option<Precision>,
    selection: Selection,
    threads: Option<usize>,
) -> PyResult<(Backend, String)> {
    match Backend::open_with(choice, precision, problem, selection, threads, gpu_context) {
        Ok((backend, reason)) => Ok((backend, reason.describe(&keyword))),
        Err(OpenError::CpuIsF64) => Err(PyValueError::new_err(
            "precision: 'f32' runs on the GPU only (backend='gpu' or 'auto'); the CPU runs in f64",
        )),
        Err(OpenError::Run(e @ RunError::ThreadPool { .. })) => Err(PyRuntimeError::new_err(format!("threads: {e}"))),
        Err(e) => Err(PyRuntimeError::new_err(format!("{}: {e}", keyword("backend", choice.name())))),
    }
}
