//! The native module of the `impactset` Python package (`impactset._impactset`).
//!
//! The package (`python/impactset`) re-exports everything here and adds the
//! pure-Python parts (the progress bar). Each file is one concept:
//!
//! * [`args`]: Python arguments to checked Rust values, with errors that name
//!   the argument, what was expected and what was found;
//! * [`problem`]: `Problem` (arrays, scenes, problem files);
//! * [`sampling`]: `sample`; [`sample_set`]: `SampleSet`; [`backend`]: the
//!   backend a call runs on;
//! * [`reach`]: batch reachability (`reach`), the states of a range;
//! * [`analysis`]: baselines, contact modes, covering radius, Hausdorff
//!   distance, held-out certificates;
//! * [`detached`]: long calls run off the interpreter, with Ctrl-C and
//!   progress reports;
//! * [`convert`]: results to ndarrays and Python objects, files written
//!   whole or not at all;
//! * [`memory`]: sample counts bounded by the memory their results need;
//! * [`pickling`]: `Problem` and `SampleSet` through `pickle`.

mod analysis;
mod args;
mod backend;
mod convert;
mod detached;
mod extremes;
mod figure;
mod memory;
mod pickling;
mod problem;
mod problem_arrays;
mod reach;
mod sample_set;
mod sampling;

use pyo3::prelude::*;
use pyo3::types::PyTuple;

/// The library's defaults for what a call leaves unset, written once in the
/// core: `samples`, `selection`, `schedule`, `seed`, `trajectories` (of a
/// figure), `max_points` (of a figure) and `delta` (of a held-out
/// certificate).
fn defaults(py: Python<'_>) -> PyResult<Bound<'_, pyo3::types::PyDict>> {
    let options = impactset::SamplerOptions::default();
    let d = pyo3::types::PyDict::new(py);
    d.set_item("samples", options.samples)?;
    d.set_item("selection", options.selection.name())?;
    d.set_item("schedule", options.schedule.name())?;
    d.set_item("seed", options.seed)?;
    d.set_item("trajectories", impactset::sampling::DEFAULT_TRAJECTORIES)?;
    d.set_item("max_points", impactset::plot::DEFAULT_MAX_POINTS)?;
    d.set_item("delta", impactset::analysis::DEFAULT_DELTA)?;
    Ok(d)
}

/// The native part of `impactset`: use the `impactset` package instead.
#[pymodule]
fn _impactset(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<problem::Problem>()?;
    m.add_class::<sample_set::SampleSet>()?;
    m.add_function(wrap_pyfunction!(sampling::sample_native, m)?)?;
    m.add_function(wrap_pyfunction!(problem::scenes, m)?)?;
    m.add_function(wrap_pyfunction!(pickling::problem_from_json, m)?)?;
    m.add_function(wrap_pyfunction!(pickling::sample_set_from_state, m)?)?;
    m.add_function(wrap_pyfunction!(reach::reach_native, m)?)?;
    m.add_function(wrap_pyfunction!(analysis::baseline, m)?)?;
    m.add_function(wrap_pyfunction!(extremes::extremes_native, m)?)?;
    m.add_function(wrap_pyfunction!(analysis::contact_modes, m)?)?;
    m.add_function(wrap_pyfunction!(analysis::covering_radius, m)?)?;
    m.add_function(wrap_pyfunction!(analysis::hausdorff, m)?)?;
    m.add_function(wrap_pyfunction!(analysis::held_out_certificate, m)?)?;
    // The words of each choice, declared once in the core (the stubs'
    // Literal types are checked against them).
    m.add("SELECTIONS", PyTuple::new(m.py(), impactset::Selection::NAMES)?)?;
    m.add("SCHEDULES", PyTuple::new(m.py(), impactset::Schedule::NAMES)?)?;
    m.add("BACKENDS", PyTuple::new(m.py(), impactset::run::BackendChoice::NAMES)?)?;
    m.add("PRECISIONS", PyTuple::new(m.py(), impactset::gpu::Precision::NAMES)?)?;
    m.add("DEFAULTS", defaults(m.py())?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
