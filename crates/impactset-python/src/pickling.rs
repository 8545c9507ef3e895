//! Pickling `Problem`s and `SampleSet`s (for `copy`, `multiprocessing` and
//! Ray): a problem travels as the JSON text of its problem file, which reads
//! back bit for bit (every float in its shortest round-trip form); a sample
//! set as its problem, its run's options and its arrays.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use impactset::io::ProblemFile;

use crate::problem::Problem;
use crate::sampling::SampleSet;

/// The JSON text of `problem`'s problem file.
pub(crate) fn problem_json(problem: &Problem) -> PyResult<String> {
    serde_json::to_string(&ProblemFile::from_spec(&problem.spec)).map_err(|e| PyValueError::new_err(e.to_string()))
}

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

/// A `SampleSet` from the state `SampleSet.__reduce__` pickles.
#[pyfunction]
#[pyo3(name = "_sample_set_from_state")]
pub fn sample_set_from_state(py: Python<'_>, state: &Bound<'_, PyDict>) -> PyResult<SampleSet> {
    SampleSet::from_state(py, state)
}
