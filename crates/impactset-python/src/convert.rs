//! Results to Python: ndarrays that take over Rust buffers without a copy,
//! JSON-like values to dicts and lists, files written whole or not at all.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

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

/// Where a file written to a path lands.
pub(crate) enum Target {
    /// A regular file (or none yet): written to a temporary sibling renamed
    /// over it, so that it is complete or absent, never partial.
    Replace(PathBuf),
    /// A special file (a FIFO, a device such as `/dev/null`): written in
    /// place, since renaming over it would replace it with a regular file.
    InPlace(PathBuf),
}

/// The target of a write to `path`: symbolic links are followed (a link
/// stays a link and the file it points at, existing or not, is written),
/// a directory is an error.
pub(crate) fn output_target(path: &Path) -> std::io::Result<Target> {
    use std::io::{Error, ErrorKind};
    let mut p = path.to_path_buf();
    // As the system's own limit on links in a path (Linux: 40).
    for _ in 0..40 {
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let link = std::fs::read_link(&p)?;
                // A relative link is relative to the link's directory; an
                // absolute one replaces the path.
                p = p.parent().map_or_else(|| link.clone(), |dir| dir.join(&link));
            }
            Ok(m) if m.is_file() => return Ok(Target::Replace(p)),
            Ok(m) if m.is_dir() => return Err(Error::new(ErrorKind::IsADirectory, "is a directory")),
            Ok(_) => return Ok(Target::InPlace(p)),
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(Target::Replace(p)),
            Err(e) => return Err(e),
        }
    }
    Err(Error::other("too many levels of symbolic links"))
}

/// Writes `bytes` into the special file `path` (opened for writing, never
/// created or replaced).
fn write_in_place(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let mut file = std::fs::OpenOptions::new().write(true).open(path)?;
    file.write_all(bytes)?;
    file.flush()
}

/// A temporary file for a write to `target`, with the extension of
/// `original` (writers that pick a format by extension see the one the
/// caller asked for): a hidden sibling of a regular target, a file in the
/// system's temporary directory for a special one.
pub(crate) fn temporary_for(target: &Target, original: &Path) -> PathBuf {
    // Distinguishes the temporaries of one process (threads may write at once).
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let k = COUNTER.fetch_add(1, Ordering::Relaxed);
    let id = format!("{}-{k}", std::process::id());
    let ext = original.extension().map(|e| format!(".{}", e.to_string_lossy())).unwrap_or_default();
    match target {
        Target::Replace(path) => {
            let name = path.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
            path.with_file_name(format!(".{name}.partial-{id}{ext}"))
        }
        Target::InPlace(_) => std::env::temp_dir().join(format!("impactset-{id}.partial{ext}")),
    }
}

/// Moves the complete temporary file `tmp` to `target`: renamed over a
/// regular file, copied into a special one (and removed).
pub(crate) fn commit(tmp: &Path, target: &Target) -> std::io::Result<()> {
    match target {
        Target::Replace(path) => std::fs::rename(tmp, path),
        Target::InPlace(path) => {
            let result = std::fs::read(tmp).and_then(|bytes| write_in_place(path, &bytes));
            let _ = std::fs::remove_file(tmp);
            result
        }
    }
}

/// Writes `bytes` to `path`, complete or not at all: through a temporary
/// sibling renamed into place (following symbolic links), or in place into
/// a special file such as `/dev/null` or a FIFO.
pub(crate) fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let target = output_target(path)?;
    if let Target::InPlace(special) = &target {
        return write_in_place(special, bytes);
    }
    let tmp = temporary_for(&target, path);
    let result = (|| {
        let mut file = std::fs::File::create(&tmp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        commit(&tmp, &target)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}
