//! Results to Python: ndarrays that take over Rust buffers without a copy,
//! JSON-like values to dicts and lists, files written whole or not at all.

use std::io::Write;
use std::path::Path;

use numpy::ndarray::Array2;
use numpy::{Element, PyArray, PyArray1, PyArray2};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

/// Marks `array` read-only (`array.setflags(write=False)`).
pub(crate) fn read_only<'py, T: Element, D: numpy::ndarray::Dimension>(
    array: Bound<'py, PyArray<T, D>>,
) -> PyResult<Bound<'py, PyArray<T, D>>> {
    array.call_method1("setflags", (false,))?;
    Ok(array)
}

/// A read-only 1-D array owning `values` (no copy).
pub(crate) fn vector<'py, T: Element>(py: Python<'py>, values: Vec<T>) -> PyResult<Bound<'py, PyArray1<T>>> {
    read_only(PyArray1::from_vec(py, values))
}

/// A read-only `rows × cols` array owning the row-major `values` (no copy).
pub(crate) fn matrix<'py>(py: Python<'py>, values: Vec<f64>, cols: usize) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let rows = values.len().checked_div(cols).unwrap_or(0);
    let array = Array2::from_shape_vec((rows, cols), values)
        .map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(format!("internal shape error: {e}")))?;
    read_only(PyArray2::from_owned_array(py, array))
}

/// A `serde_json::Value` as Python objects (dict, list, str, int, float,
/// bool, None).
pub(crate) fn json_to_py<'py>(py: Python<'py>, value: &serde_json::Value) -> PyResult<Bound<'py, PyAny>> {
    use serde_json::Value;
    Ok(match value {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => b.into_pyobject(py)?.to_owned().into_any(),
        Value::Number(x) => {
            if let Some(i) = x.as_u64() {
                i.into_pyobject(py)?.into_any()
            } else if let Some(i) = x.as_i64() {
                i.into_pyobject(py)?.into_any()
            } else {
                x.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any()
            }
        }
        Value::String(s) => s.into_pyobject(py)?.into_any(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(json_to_py(py, item)?)?;
            }
            list.into_any()
        }
        Value::Object(map) => {
            let dict = PyDict::new(py);
            for (k, v) in map {
                dict.set_item(k, json_to_py(py, v)?)?;
            }
            dict.into_any()
        }
    })
}

/// Writes `bytes` to `path`, complete or not at all, by the core's rule
/// ([`impactset::io::AtomicFile`]): through a temporary beside the target
/// renamed over it (a symbolic link is followed and stays), straight into a
/// character device or FIFO such as `/dev/null`; a folder, block device or
/// socket is refused.
pub(crate) fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut file = impactset::io::AtomicFile::create(path)?;
    file.write_all(bytes)?;
    file.commit()
}
