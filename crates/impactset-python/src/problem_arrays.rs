//! `Problem.from_arrays`: numpy arrays to a problem the core has checked,
//! with its errors said in the arguments' names (`M[0, 1]`, `Jn[1, 3]`,
//! `mu[1]`), not the problem files' fields.

use nalgebra::{DMatrix, DVector};
use numpy::PyReadonlyArrayDyn;
use numpy::ndarray::ArrayViewD;
use pyo3::exceptions::{PyTypeError, PyUserWarning, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyString;

use impactset::problem::default_contact_name;
use impactset::{Contact, ImpactProblem, ProblemError, ProblemWarning};

use crate::args::{self, shape_str};

/// The problem of `Problem.from_arrays`: the arrays' shapes are checked
/// here, everything else by the core ([`ImpactProblem::new`]), whose errors
/// are said with the arguments' names ([`problem_message`]).
pub(crate) fn problem_from_arrays(
    mass: &PyReadonlyArrayDyn<'_, f64>,
    velocity: &PyReadonlyArrayDyn<'_, f64>,
    jn: &PyReadonlyArrayDyn<'_, f64>,
    jt: &PyReadonlyArrayDyn<'_, f64>,
    friction: &PyReadonlyArrayDyn<'_, f64>,
    names: Option<&Bound<'_, PyAny>>,
    friction_directions: Option<&Bound<'_, PyAny>>,
) -> PyResult<ImpactProblem> {
    let value_error = |s: String| PyValueError::new_err(s);
    let ms = args::shape_of(mass);
    let n = match ms[..] {
        [r, c] if r == c && r > 0 => r,
        _ => {
            return Err(value_error(format!(
                "M: expected a square 2-D array (n, n) with n ≥ 1, got shape {}",
                shape_str(&ms)
            )));
        }
    };
    let vs = args::shape_of(velocity);
    if vs != [n] {
        return Err(value_error(format!("v: expected shape {}, got {}", shape_str(&[n]), shape_str(&vs))));
    }
    let js = args::shape_of(jn);
    let k = match js[..] {
        [0, _] => {
            return Err(value_error(format!("Jn: expected at least one contact, got shape {}", shape_str(&js))));
        }
        [k, c] if c == n => k,
        [k, _] => {
            return Err(value_error(format!("Jn: expected shape {}, got {}", shape_str(&[k, n]), shape_str(&js))));
        }
        _ => {
            return Err(value_error(format!(
                "Jn: expected a 2-D array of shape (k, {n}), got shape {}",
                shape_str(&js)
            )));
        }
    };
    let ts = args::shape_of(jt);
    let spatial = match ts[..] {
        [a, b] if a == k && b == n => false,
        [a, 2, b] if a == k && b == n => true,
        _ => {
            return Err(value_error(format!(
                "Jt: expected shape {} (planar) or {} (spatial), got {}",
                shape_str(&[k, n]),
                shape_str(&[k, 2, n]),
                shape_str(&ts)
            )));
        }
    };
    let fs = args::shape_of(friction);
    if fs != [k] {
        return Err(value_error(format!("mu: expected shape {}, got {}", shape_str(&[k]), shape_str(&fs))));
    }
    let (mass, velocity, jn, jt, friction) =
        (mass.as_array(), velocity.as_array(), jn.as_array(), jt.as_array(), friction.as_array());
    let m = DMatrix::from_fn(n, n, |i, j| mass[[i, j]]);
    let names = contact_names(names, k)?;
    let row = |a: &ArrayViewD<'_, f64>, index: &dyn Fn(usize) -> Vec<usize>| {
        DVector::from_fn(n, |j, _| a[index(j).as_slice()])
    };
    let contacts: Vec<Contact> = (0..k)
        .map(|i| {
            let normal = row(&jn, &|j| vec![i, j]);
            // The core's constructors, so that what the arrays do not give
            // (restitution, set below) keeps the core's default.
            let (name, mu) = (names[i].clone(), friction[[i]]);
            if spatial {
                let tangents = [row(&jt, &|j| vec![i, 0, j]), row(&jt, &|j| vec![i, 1, j])];
                Contact::spatial(name, normal, tangents, mu)
            } else {
                Contact::planar(name, normal, row(&jt, &|j| vec![i, j]), mu)
            }
        })
        .collect();
    let d = args::optional_count("friction_directions", friction_directions, 0)?;
    let v = DVector::from_fn(n, |i, _| velocity[[i]]);
    ImpactProblem::with_friction_directions(m.clone(), v, contacts, d)
        .map_err(|e| value_error(problem_message(&e, Some(&m))))
}

/// `problem` with the constraint rows `bilateral` ((r, n), finite) added.
pub(crate) fn with_bilateral(
    problem: ImpactProblem,
    bilateral: &PyReadonlyArrayDyn<'_, f64>,
) -> PyResult<ImpactProblem> {
    let n = problem.n();
    let shape = args::shape_of(bilateral);
    let r = match shape[..] {
        [r, c] if c == n => r,
        _ => {
            return Err(PyValueError::new_err(format!(
                "bilateral: expected a 2-D array of shape (r, {n}), got shape {}",
                shape_str(&shape)
            )));
        }
    };
    args::check_finite("bilateral", bilateral)?;
    let rows = bilateral.as_array();
    let rows = DMatrix::from_fn(r, n, |i, j| rows[[i, j]]);
    problem.with_bilateral(rows).map_err(|e| PyValueError::new_err(problem_message(&e, None)))
}

/// `problem` with the coefficients of restitution `e`, given as the Python
/// argument `name`: a number for every contact or an array (k,) of one per
/// contact. The values are the core's to check
/// ([`ImpactProblem::with_restitution`]); its error is said with the
/// argument's name: `restitution[2]: 1.5 is not a coefficient of
/// restitution …`, or `restitution: …` for a number.
pub(crate) fn with_restitution(problem: ImpactProblem, name: &str, e: &Bound<'_, PyAny>) -> PyResult<ImpactProblem> {
    let k = problem.m();
    let array = args::float_array(name, e)?;
    let shape = args::shape_of(&array);
    let values: Vec<f64> = array.as_array().iter().copied().collect();
    let values = match shape[..] {
        [] => vec![values[0]; k],
        [len] if len == k => values,
        _ => {
            return Err(PyValueError::new_err(format!(
                "{name}: expected a number or shape {} (one per contact), got shape {}",
                shape_str(&[k]),
                shape_str(&shape)
            )));
        }
    };
    let scalar = shape.is_empty();
    problem.with_restitution(&values).map_err(|err| match err {
        ProblemError::Restitution { .. } if scalar => PyValueError::new_err(format!("{name}: {}", err.detail())),
        ProblemError::Restitution { contact, .. } => {
            PyValueError::new_err(format!("{name}[{contact}]: {}", err.detail()))
        }
        other => PyValueError::new_err(problem_message(&other, None)),
    })
}

/// A `UserWarning` when `v⁻` was projected onto the bilateral constraints.
pub(crate) fn warn_projected(py: Python<'_>, problem: &ImpactProblem) -> PyResult<()> {
    for w in problem.warnings() {
        if matches!(w, ProblemWarning::ProjectedVelocity { .. }) {
            let message = std::ffi::CString::new(w.to_string()).unwrap_or_default();
            PyErr::warn(py, &py.get_type::<PyUserWarning>(), &message, 1)?;
        }
    }
    Ok(())
}

/// `names` (None or a sequence of `k` strings) as contact names.
fn contact_names(names: Option<&Bound<'_, PyAny>>, k: usize) -> PyResult<Vec<String>> {
    let Some(names) = names.filter(|n| !n.is_none()) else {
        return Ok((0..k).map(default_contact_name).collect());
    };
    if names.is_instance_of::<PyString>() {
        return Err(PyTypeError::new_err(format!("names: expected a sequence of {k} str, got str")));
    }
    let items: Vec<Bound<'_, PyAny>> = names
        .try_iter()
        .map_err(|_| {
            PyTypeError::new_err(format!("names: expected a sequence of {k} str, got {}", args::type_name(names)))
        })?
        .collect::<PyResult<_>>()?;
    if items.len() != k {
        return Err(PyValueError::new_err(format!("names: expected {k} names (one per contact), got {}", items.len())));
    }
    let names: Vec<String> = items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            item.cast::<PyString>()
                .map_err(|_| PyTypeError::new_err(format!("names[{i}]: expected a str, got {}", args::type_name(item))))
                .and_then(|s| Ok(s.to_str()?.to_string()))
        })
        .collect::<PyResult<_>>()?;
    // Tables name their columns after the contacts (`A_normal_max`), so a
    // name given twice would collide there.
    for (j, name) in names.iter().enumerate() {
        if let Some(i) = names[..j].iter().position(|other| other == name) {
            return Err(PyValueError::new_err(format!(
                "names: '{name}' is given twice (contacts {i} and {j}); contact names must be unique"
            )));
        }
    }
    Ok(names)
}

/// A core problem error in the Python arguments' names and words; `mass`
/// (when at hand) gives an indefinite `M`'s smallest eigenvalue.
pub(crate) fn problem_message(e: &ProblemError, mass: Option<&DMatrix<f64>>) -> String {
    match e {
        ProblemError::FrictionDirections { d, why } => format!("friction_directions: {d}: {why}"),
        ProblemError::NotPositiveDefinite => match mass {
            Some(m) => format!(
                "M is not symmetric positive definite: smallest eigenvalue {}",
                args::sci(m.clone().symmetric_eigenvalues().min(), 1)
            ),
            None => "M is not symmetric positive definite".into(),
        },
        // The core reads the lower triangle: a = M[i, j], b = M[j, i], j < i.
        ProblemError::NotSymmetric { i, j, a, b } => {
            format!("M is not symmetric: M[{j}, {i}] = {b} but M[{i}, {j}] = {a}")
        }
        ProblemError::NonFinite { field, value } => {
            format!("{} = {}", argument_of_field(field), args::float_str(*value))
        }
        ProblemError::NegativeFriction { contact, value } => {
            format!("mu[{contact}] = {}: friction coefficients must be ≥ 0", args::float_str(*value))
        }
        ProblemError::ZeroNormal { contact } => {
            format!("Jn[{contact}] is all zeros: every contact needs a normal direction")
        }
        other => format!("{}: {}", argument_of_field(&other.field()), other.detail()),
    }
}

/// A problem-file field as the `from_arrays` argument it comes from:
/// `mass_matrix[0][1]` → `M[0, 1]`, `velocity[2]` → `v[2]`,
/// `contacts[1].normal[3]` → `Jn[1, 3]`, `contacts[1].tangents[0][3]` →
/// `Jt[1, 0, 3]`, `contacts[1].friction` → `mu[1]`,
/// `contacts[1].restitution` → `restitution[1]`, `bilateral[0][2]` →
/// `bilateral[0, 2]`; other fields as they are.
fn argument_of_field(field: &str) -> String {
    // The field's names (`contacts`, `tangents`) and, in order, its indices.
    let mut names: Vec<&str> = Vec::new();
    let mut indices: Vec<&str> = Vec::new();
    for part in field.split('.') {
        let mut pieces = part.split('[');
        names.push(pieces.next().unwrap_or(""));
        for piece in pieces {
            match piece.strip_suffix(']') {
                Some(index) => indices.push(index),
                None => return field.to_string(),
            }
        }
    }
    let array = match names[..] {
        ["mass_matrix"] => "M",
        ["velocity"] => "v",
        ["bilateral"] => "bilateral",
        ["contacts"] | ["contacts", "normal"] => "Jn",
        ["contacts", "tangent" | "tangents"] => "Jt",
        ["contacts", "friction"] => "mu",
        ["contacts", "restitution"] => "restitution",
        _ => return field.to_string(),
    };
    if indices.is_empty() { array.to_string() } else { format!("{array}[{}]", indices.join(", ")) }
}
