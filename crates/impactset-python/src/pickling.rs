//! Unpickling `Problem`s and `SampleSet`s (for `copy`, `multiprocessing` and
//! Ray): the functions `__reduce__` names. A problem travels as the JSON text
//! of its problem file (`Problem::to_json`), which reads back bit for bit
//! (every float in its shortest round-trip form); a sample set as its
//! problem, its run's options and its arrays (`SampleSet::state`).

use numpy::{Element, PyArray, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use impactset::io::ProblemFile;
use impactset::{SamplerOptions, Schedule, Selection};

use crate::convert::read_only;
use crate::problem::Problem;
use crate::sample_set::SampleSet;

/// A `Problem` from the JSON text of a problem file (what
/// `Problem.__reduce__` pickles).
#[pyfunction]
#[pyo3(name = "_problem_from_json")]
pub fn problem_from_json(py: Python<'_>, text: &str) -> PyResult<Problem> {
    let file: ProblemFile = serde_json::from_str(text).map_err(|e| PyValueError::new_err(format!("problem: {e}")))?;
    let spec = file
        .into_spec("problem".into())
        .map_err(|(field, message)| PyValueError::new_err(format!("problem: {field}: {message}")))?;
    Problem::new(py, spec)
}

/// A `SampleSet` from the state [`SampleSet::state`] pickles: the arrays
/// are checked for their dtypes, dimensions and counts, and made read-only
/// (numpy unpickles arrays writable).
#[pyfunction]
#[pyo3(name = "_sample_set_from_state")]
pub fn sample_set_from_state(py: Python<'_>, state: &Bound<'_, PyDict>) -> PyResult<SampleSet> {
    let options = item(state, "options")?.cast_into::<PyDict>()?;
    let selection: String = item(&options, "selection")?.extract()?;
    let schedule: String = item(&options, "schedule")?.extract()?;
    let set = SampleSet {
        problem: item(state, "problem")?.cast_into::<Problem>()?.unbind(),
        options: SamplerOptions {
            samples: item(&options, "samples")?.extract()?,
            first_index: item(&options, "first_index")?.extract()?,
            step_size: item(&options, "step_size")?.extract()?,
            steps: item(&options, "steps")?.extract()?,
            seed: item(&options, "seed")?.extract()?,
            selection: selection.parse::<Selection>().map_err(|e| PyValueError::new_err(e.to_string()))?,
            schedule: schedule.parse::<Schedule>().map_err(|e| PyValueError::new_err(e.to_string()))?,
            threads: item(&options, "threads")?.extract()?,
            termination_tol: item(&options, "termination_tol")?.extract()?,
            residual_tol: item(&options, "residual_tol")?.extract()?,
            // Sets pickled before `work_tol` existed ran with the default.
            work_tol: match options.get_item("work_tol")? {
                Some(x) => x.extract()?,
                None => SamplerOptions::default().work_tol,
            },
        },
        v_plus: array(state, "v_plus")?,
        accepted: array(state, "accepted")?,
        indices: array(state, "indices")?,
        steps: array(state, "steps")?,
        energy_ratio: array(state, "energy_ratio")?,
        residual: array(state, "residual")?,
        energy_guard: array(state, "energy_guard")?,
        modes: array(state, "modes")?,
        mode_labels: item(state, "mode_labels")?.extract()?,
        mode_table: item(state, "mode_table")?.extract()?,
        summary: item(state, "summary")?.cast_into::<PyDict>()?.unbind(),
        accepted_count: item(state, "accepted_count")?.extract()?,
    };
    let n = set.problem.get().problem().n();
    let (samples, accepted) = (set.accepted.bind(py).len(), set.accepted_count);
    let per_sample = [
        set.steps.bind(py).len(),
        set.energy_ratio.bind(py).len(),
        set.residual.bind(py).len(),
        set.energy_guard.bind(py).len(),
    ];
    let per_accepted = [set.indices.bind(py).len(), set.modes.bind(py).len()];
    if set.v_plus.bind(py).shape() != [accepted, n]
        || per_sample.iter().any(|&k| k != samples)
        || per_accepted.iter().any(|&k| k != accepted)
        || samples != set.options.samples
    {
        return Err(PyValueError::new_err("SampleSet state: the arrays' sizes do not agree"));
    }
    Ok(set)
}

/// `d[key]`, or a `ValueError` naming the missing key.
fn item<'py>(d: &Bound<'py, PyDict>, key: &str) -> PyResult<Bound<'py, PyAny>> {
    d.get_item(key)?.ok_or_else(|| PyValueError::new_err(format!("SampleSet state: no {key:?}")))
}

/// `d[key]` as a read-only array of element `T` and dimension `D`.
fn array<T: Element, D: numpy::ndarray::Dimension>(d: &Bound<'_, PyDict>, key: &str) -> PyResult<Py<PyArray<T, D>>> {
    let a = item(d, key)?
        .cast_into::<PyArray<T, D>>()
        .map_err(|_| PyValueError::new_err(format!("SampleSet state: {key} has the wrong dtype or dimension")))?;
    Ok(read_only(a)?.unbind())
}
