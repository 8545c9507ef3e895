//! Python arguments to checked Rust values.
//!
//! Every error names the argument, what was expected and what was found:
//! `Jn: expected shape (2, 7), got (2, 6)`, `mu[1] = nan`,
//! `n: expected an integer in [1, 2**64), got 0`. Wrong kinds of value raise
//! `TypeError`, wrong values `ValueError`.

use numpy::ndarray::Dimension;
use numpy::{PyArrayDyn, PyArrayMethods, PyReadonlyArrayDyn, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyFloat, PyInt, PyString};

/// `(2, 7)`, `(3,)`: a shape as Python prints it.
pub(crate) fn shape_str(shape: &[usize]) -> String {
    match shape {
        [one] => format!("({one},)"),
        _ => format!("({})", shape.iter().map(usize::to_string).collect::<Vec<_>>().join(", ")),
    }
}

/// A float as Python's `repr` writes the cases that matter in messages:
/// `nan`, `inf`, `-inf`, else Rust's shortest round-trip form.
pub(crate) fn float_str(x: f64) -> String {
    if x.is_nan() {
        "nan".into()
    } else if x.is_infinite() {
        if x > 0.0 { "inf".into() } else { "-inf".into() }
    } else {
        format!("{x}")
    }
}

/// `x` in scientific notation with `digits` decimals and a two-digit
/// exponent, as Python's `{:.1e}`: `-3.1e-02`.
pub(crate) fn sci(x: f64, digits: usize) -> String {
    let s = format!("{x:.digits$e}");
    match s.split_once('e') {
        Some((mantissa, exp)) => {
            let e: i32 = exp.parse().unwrap_or(0);
            let sign = if e < 0 { '-' } else { '+' };
            format!("{mantissa}e{sign}{:02}", e.abs())
        }
        None => s,
    }
}

/// The type name of a Python object, for messages.
pub(crate) fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "object".into())
}

/// `obj` as a float64 array of any shape, without a copy when it already is
/// one (any memory order); other real dtypes (ints, float16/32, long
/// double) and nested sequences are converted. Complex, boolean, object and
/// string data raise `TypeError` naming `name`.
pub(crate) fn float_array<'py>(name: &str, obj: &Bound<'py, PyAny>) -> PyResult<PyReadonlyArrayDyn<'py, f64>> {
    if let Ok(array) = obj.cast::<PyArrayDyn<f64>>() {
        return Ok(array.readonly());
    }
    let py = obj.py();
    let numpy = py.import("numpy")?;
    let array = numpy.call_method1("asarray", (obj,)).map_err(|e| {
        PyTypeError::new_err(format!("{name}: expected an array of real numbers, got {}: {e}", type_name(obj)))
    })?;
    let dtype = array.getattr("dtype")?;
    let kind: String = dtype.getattr("kind")?.extract()?;
    if !matches!(kind.as_str(), "f" | "i" | "u") {
        let found = if obj.is_instance_of::<numpy::PyUntypedArray>() {
            format!("an array of dtype {}", dtype.str()?)
        } else {
            format!("{} of dtype {}", type_name(obj), dtype.str()?)
        };
        return Err(PyTypeError::new_err(format!("{name}: expected an array of real numbers, got {found}")));
    }
    let converted = array.call_method1("astype", ("float64",))?;
    Ok(converted.cast_into::<PyArrayDyn<f64>>()?.readonly())
}

/// The first non-finite entry of `array` as `name[i, j] = nan`.
pub(crate) fn check_finite(name: &str, array: &PyReadonlyArrayDyn<'_, f64>) -> PyResult<()> {
    if let Some((index, value)) = array.as_array().indexed_iter().find(|(_, x)| !x.is_finite()) {
        let index: Vec<String> = index.slice().iter().map(usize::to_string).collect();
        return Err(PyValueError::new_err(format!("{name}[{}] = {}", index.join(", "), float_str(*value))));
    }
    Ok(())
}

/// The shape of an array as a vector.
pub(crate) fn shape_of(array: &PyReadonlyArrayDyn<'_, f64>) -> Vec<usize> {
    array.shape().to_vec()
}

/// `obj` as an integer in `[min, max]`: `TypeError` for a non-integer
/// (floats and bools included), `ValueError` out of range.
pub(crate) fn integer(name: &str, obj: &Bound<'_, PyAny>, min: i128, max: i128) -> PyResult<i128> {
    if obj.is_instance_of::<PyBool>() || !(obj.is_instance_of::<PyInt>() || obj.hasattr("__index__")?) {
        return Err(PyTypeError::new_err(format!("{name}: expected an integer, got {}", type_name(obj))));
    }
    let value: i128 = obj.call_method0("__index__")?.extract().map_err(|_| {
        PyValueError::new_err(format!(
            "{name}: {} is out of range",
            obj.str().map(|s| s.to_string()).unwrap_or_default()
        ))
    })?;
    if value < min || value > max {
        return Err(PyValueError::new_err(format!("{name}: expected {}, got {value}", integer_range(min, max))));
    }
    Ok(value)
}

/// `an integer in [1, 1000000]`, `an integer in [0, 2**64)`: both bounds,
/// a bound of the form `2**k − 1` written as Python's `2**k` exclusive.
pub(crate) fn integer_range(min: i128, max: i128) -> String {
    let power = (1..=127).find(|&k| max == (1i128 << k) - 1).filter(|&k| k >= 32);
    match power {
        Some(k) => format!("an integer in [{min}, 2**{k})"),
        None => format!("an integer in [{min}, {max}]"),
    }
}

/// `obj` (None or an integer ≥ `min`) as a `usize`.
pub(crate) fn optional_count(name: &str, obj: Option<&Bound<'_, PyAny>>, min: usize) -> PyResult<Option<usize>> {
    match obj {
        None => Ok(None),
        Some(o) if o.is_none() => Ok(None),
        Some(o) => Ok(Some(integer(name, o, min as i128, usize::MAX as i128)? as usize)),
    }
}

/// `obj` (None or an integer in `[min, max]`) as a `usize`.
pub(crate) fn optional_count_in(
    name: &str,
    obj: Option<&Bound<'_, PyAny>>,
    min: usize,
    max: usize,
) -> PyResult<Option<usize>> {
    some(obj).map(|o| Ok(integer(name, &o, min as i128, max as i128)? as usize)).transpose()
}

/// `obj` as a bool: `True`, `False` or a numpy bool; anything else (a
/// string, a number) raises `TypeError` naming the argument.
pub(crate) fn flag(name: &str, obj: &Bound<'_, PyAny>) -> PyResult<bool> {
    if let Ok(b) = obj.cast::<PyBool>() {
        return Ok(b.is_true());
    }
    let numpy_bool = obj.py().import("numpy")?.getattr("bool_")?;
    if obj.is_instance(&numpy_bool)? {
        return obj.is_truthy();
    }
    Err(PyTypeError::new_err(format!("{name}: expected True or False, got {}", type_name(obj))))
}

/// `obj` as a finite positive float (ints allowed).
pub(crate) fn positive_float(name: &str, obj: &Bound<'_, PyAny>) -> PyResult<f64> {
    if obj.is_instance_of::<PyBool>()
        || !(obj.is_instance_of::<PyFloat>() || obj.is_instance_of::<PyInt>() || obj.hasattr("__float__")?)
    {
        return Err(PyTypeError::new_err(format!("{name}: expected a positive number, got {}", type_name(obj))));
    }
    let x: f64 = obj.call_method0("__float__")?.extract()?;
    if !(x.is_finite() && x > 0.0) {
        return Err(PyValueError::new_err(format!("{name}: expected a positive number, got {}", float_str(x))));
    }
    Ok(x)
}

/// `obj` as a float in the open interval `(lo, hi)`.
pub(crate) fn float_in(name: &str, obj: &Bound<'_, PyAny>, lo: f64, hi: f64) -> PyResult<f64> {
    if obj.is_instance_of::<PyBool>()
        || !(obj.is_instance_of::<PyFloat>() || obj.is_instance_of::<PyInt>() || obj.hasattr("__float__")?)
    {
        return Err(PyTypeError::new_err(format!("{name}: expected a number in ({lo}, {hi}), got {}", type_name(obj))));
    }
    let x: f64 = obj.call_method0("__float__")?.extract()?;
    if !(x > lo && x < hi) {
        return Err(PyValueError::new_err(format!("{name}: expected a number in ({lo}, {hi}), got {}", float_str(x))));
    }
    Ok(x)
}

/// `obj` as one of `choices` (a string): `selection: expected one of 'lemke',
/// 'random-lemke', 'all', got 'fast'`.
pub(crate) fn choice<'a>(name: &str, obj: &Bound<'_, PyAny>, choices: &[&'a str]) -> PyResult<&'a str> {
    let listed = choices.iter().map(|c| format!("'{c}'")).collect::<Vec<_>>().join(", ");
    let Ok(s) = obj.cast::<PyString>() else {
        return Err(PyTypeError::new_err(format!("{name}: expected one of {listed}, got {}", type_name(obj))));
    };
    let s = s.to_str()?;
    choices
        .iter()
        .find(|c| **c == s)
        .copied()
        .ok_or_else(|| PyValueError::new_err(format!("{name}: expected one of {listed}, got '{s}'")))
}

/// A path argument (`str` or `os.PathLike`) as a `PathBuf`.
pub(crate) fn path(name: &str, obj: &Bound<'_, PyAny>) -> PyResult<std::path::PathBuf> {
    obj.extract::<std::path::PathBuf>().map_err(|_| {
        PyTypeError::new_err(format!("{name}: expected a path (str or os.PathLike), got {}", type_name(obj)))
    })
}

/// An argument that was given and is not None.
pub(crate) fn some<'py>(o: Option<&Bound<'py, PyAny>>) -> Option<Bound<'py, PyAny>> {
    o.filter(|x| !x.is_none()).cloned()
}

/// The run arguments `sample` and `reach` share, parsed the same way.
pub(crate) mod run {
    use super::{PyAny, PyResult, PyValueError, choice, integer, some};
    use impactset::gpu::Precision;
    use impactset::run::BackendChoice;
    use impactset::sampling::MAX_STEPS;
    use impactset::{Schedule, Selection};
    use pyo3::Bound;

    /// `seed` (default 0).
    pub(crate) fn seed(o: Option<&Bound<'_, PyAny>>) -> PyResult<u64> {
        some(o).map_or(Ok(0), |s| Ok(integer("seed", &s, 0, u64::MAX as i128)? as u64))
    }

    /// `obj` as one of `T`'s words (`names`, the core's one declaration).
    fn named<T: std::str::FromStr>(name: &str, obj: &Bound<'_, PyAny>, names: &[&str]) -> PyResult<T> {
        let word = choice(name, obj, names)?;
        word.parse::<T>().map_err(|_| PyValueError::new_err(format!("{name}: '{word}' is not a choice")))
    }

    /// `selection` (default: the core's, [`Selection::default`]).
    pub(crate) fn selection(o: Option<&Bound<'_, PyAny>>) -> PyResult<Selection> {
        some(o).map_or(Ok(Selection::default()), |s| named("selection", &s, &Selection::NAMES))
    }

    /// `schedule`, when given (unset: the problem's, else the core's,
    /// [`Schedule::default`]).
    pub(crate) fn schedule(o: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Schedule>> {
        some(o).map(|s| named("schedule", &s, &Schedule::NAMES)).transpose()
    }

    /// `steps`, when given: the step cap `K`, `1 ≤ K ≤` [`MAX_STEPS`].
    pub(crate) fn steps(o: Option<&Bound<'_, PyAny>>) -> PyResult<Option<usize>> {
        some(o).map(|k| Ok(integer("steps", &k, 1, MAX_STEPS as i128)? as usize)).transpose()
    }

    /// `backend` (default: the core's, [`BackendChoice::default`]).
    pub(crate) fn backend(o: Option<&Bound<'_, PyAny>>) -> PyResult<BackendChoice> {
        some(o).map_or(Ok(BackendChoice::default()), |b| named("backend", &b, &BackendChoice::NAMES))
    }

    /// `precision`, when given (unset: the backend's default,
    /// [`impactset::gpu::GpuContext::default_precision`] on a GPU).
    pub(crate) fn precision(o: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Precision>> {
        some(o).map(|p| named("precision", &p, &Precision::NAMES)).transpose()
    }
}
