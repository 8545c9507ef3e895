//! Baselines, contact modes and the ε figures of model.md §6, numpy in and
//! out: velocities are (N, n) arrays, distances are measured in a metric
//! (`"energy"` ‖x‖_M, `"euclidean"`, `"contact"` ‖[Jn; Jt] x‖).

use std::collections::HashMap;

use numpy::PyReadonlyArrayDyn;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use impactset::ImpactProblem;
use impactset::analysis::{ContactMode, Metric, ModeClassifier, ModeOptions, PointCloud, joint_label};
use impactset::impact::SolutionMethod;

use crate::args::{self, float_array, shape_str};
use crate::convert::{matrix, vector};
use crate::detached;
use crate::problem::Problem;

pub(crate) fn problem_arg<'a, 'py>(obj: &'a Bound<'py, PyAny>) -> PyResult<&'a Bound<'py, Problem>> {
    obj.cast::<Problem>().map_err(|_| {
        PyTypeError::new_err(format!("problem: expected an impactset.Problem, got {}", args::type_name(obj)))
    })
}

/// Velocities `(N, n)` (or one `(n,)`) as a row-major vector.
pub(crate) fn velocities(name: &str, obj: &Bound<'_, PyAny>, n: usize) -> PyResult<Vec<f64>> {
    let array: PyReadonlyArrayDyn<'_, f64> = float_array(name, obj)?;
    let shape = args::shape_of(&array);
    match shape[..] {
        [rows, cols] if cols == n => {
            let _ = rows;
        }
        [cols] if cols == n => {}
        [rows, _] => {
            return Err(PyValueError::new_err(format!(
                "{name}: expected shape {}, got {}",
                shape_str(&[rows, n]),
                shape_str(&shape)
            )));
        }
        _ => {
            return Err(PyValueError::new_err(format!(
                "{name}: expected a 2-D array of shape (N, {n}), got shape {}",
                shape_str(&shape)
            )));
        }
    }
    args::check_finite(name, &array)?;
    Ok(array.as_array().iter().copied().collect())
}

fn metric_arg(obj: &Bound<'_, PyAny>) -> PyResult<Metric> {
    let name = args::choice("metric", obj, &["energy", "euclidean", "contact"])?;
    name.parse::<Metric>().map_err(|e| PyValueError::new_err(e.to_string()))
}

/// Embedded point clouds of two velocity arrays.
fn clouds(
    problem: &ImpactProblem,
    metric: Metric,
    a: (&str, &Bound<'_, PyAny>),
    b: (&str, &Bound<'_, PyAny>),
) -> PyResult<(PointCloud, PointCloud)> {
    let n = problem.n();
    let va = velocities(a.0, a.1, n)?;
    let vb = velocities(b.0, b.1, n)?;
    let embedding = metric.embedding(problem);
    Ok((embedding.points(&va), embedding.points(&vb)))
}

/// The classic baselines of ``problem``: every simultaneous outcome
/// (Anitescu–Potra LCP, labels ``simultaneous k/N``) and one sequential
/// outcome per starting contact (``sequential from A``, …), as a dict with
/// ``labels`` (list), ``v_plus`` (b, n), ``energy`` (b,) and
/// ``simultaneous_method``: ``"enumerated"`` (every solution),
/// ``"searched"`` (the solutions the contact-mode search found within its
/// budget, possibly not all), ``"lemke"`` (one solution of an LCP too large
/// to enumerate whose contacts cannot all separate), ``"sampled"`` (with
/// restitution, the distinct outcomes of branching runs) or ``"failed"``
/// (none could be computed: a ``UserWarning`` says why).
///
/// >>> import impactset
/// >>> b = impactset.baseline(impactset.Problem.scene("slope-point"))
/// >>> b["labels"][0], b["v_plus"].shape
/// ('simultaneous 1/1', (2, 2))
#[pyfunction]
pub fn baseline<'py>(py: Python<'py>, problem: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyDict>> {
    let p = problem_arg(problem)?.get();
    let (simultaneous, sequential) = detached::run(py, None, |_| {
        (impactset::impact::simultaneous(p.problem()), impactset::impact::sequential(p.problem()))
    })?;
    if let Some(why) = &simultaneous.failure {
        let message =
            std::ffi::CString::new(format!("baseline: the simultaneous outcome could not be computed: {why}"))
                .unwrap_or_default();
        PyErr::warn(py, &py.get_type::<pyo3::exceptions::PyUserWarning>(), &message, 1)?;
    }
    let method = match simultaneous.method {
        SolutionMethod::Enumerated => "enumerated",
        SolutionMethod::Lemke => "lemke",
        SolutionMethod::Searched => "searched",
        SolutionMethod::Sampled => "sampled",
        SolutionMethod::Failed => "failed",
    };
    let outcomes: Vec<_> = simultaneous.outcomes.into_iter().chain(sequential).collect();
    let d = PyDict::new(py);
    d.set_item("simultaneous_method", method)?;
    d.set_item("labels", outcomes.iter().map(|o| o.label.clone()).collect::<Vec<_>>())?;
    let v: Vec<f64> = outcomes.iter().flat_map(|o| o.v_plus.iter().copied()).collect();
    d.set_item("v_plus", matrix(py, v, p.problem().n())?)?;
    d.set_item("energy", vector(py, outcomes.iter().map(|o| o.energy).collect())?)?;
    Ok(d)
}

/// The joint contact mode of each velocity in ``v`` ((N, n) or (n,)): what
/// every contact does (separates, sticks, slides), with tolerances relative
/// to the pre-impact contact speed (``separation_tol``, ``slip_tol``,
/// default 1e-6). Returns ``(ids, labels)``: ``ids`` (N,) int32 indexes
/// ``labels``, most frequent first.
///
/// >>> import impactset
/// >>> p = impactset.Problem.scene("slope-point-stick")
/// >>> ids, labels = impactset.contact_modes(p, [[0.0, 0.0], [0.0, 1.0]])
/// >>> [labels[i] for i in ids]
/// ['A sticks', 'A separates']
#[pyfunction]
#[pyo3(signature = (problem, v, *, separation_tol=None, slip_tol=None))]
pub fn contact_modes<'py>(
    py: Python<'py>,
    problem: &Bound<'py, PyAny>,
    v: &Bound<'py, PyAny>,
    separation_tol: Option<&Bound<'py, PyAny>>,
    slip_tol: Option<&Bound<'py, PyAny>>,
) -> PyResult<(Bound<'py, PyAny>, Vec<String>)> {
    let p = problem_arg(problem)?.get().problem();
    let n = p.n();
    let v = velocities("v", v, n)?;
    let tolerance = |name: &str, obj: Option<&Bound<'py, PyAny>>| match obj.filter(|o| !o.is_none()) {
        Some(o) => args::positive_float(name, o),
        None => Ok(1e-6),
    };
    let options = ModeOptions {
        separation_tol: tolerance("separation_tol", separation_tol)?,
        slip_tol: tolerance("slip_tol", slip_tol)?,
    };
    let (ids, modes) = detached::run(py, None, |_| {
        let classifier = ModeClassifier::new(p, &options);
        let mut seen: HashMap<Vec<ContactMode>, usize> = HashMap::new();
        let mut list: Vec<(Vec<ContactMode>, usize)> = Vec::new();
        let mut ids: Vec<usize> = Vec::with_capacity(v.len() / n);
        for row in v.chunks_exact(n) {
            let modes = classifier.classify(row);
            let id = *seen.entry(modes.clone()).or_insert_with(|| {
                list.push((modes, 0));
                list.len() - 1
            });
            list[id].1 += 1;
            ids.push(id);
        }
        let mut order: Vec<usize> = (0..list.len()).collect();
        order.sort_by(|&a, &b| list[b].1.cmp(&list[a].1).then_with(|| list[a].0.cmp(&list[b].0)));
        let mut rank = vec![0i32; order.len()];
        for (r, &old) in order.iter().enumerate() {
            rank[old] = r as i32;
        }
        let ids: Vec<i32> = ids.into_iter().map(|i| rank[i]).collect();
        let modes: Vec<Vec<ContactMode>> = order.into_iter().map(|i| list[i].0.clone()).collect();
        (ids, modes)
    })?;
    let labels = modes.iter().map(|m| joint_label(p, m)).collect();
    Ok((vector(py, ids)?.into_any(), labels))
}

/// The covering radius ε(net; reference) = max over reference of the
/// distance to the nearest point of ``net`` (both (N, n) velocity arrays),
/// in ``metric``: how far the set ``net`` misses ``reference``.
///
/// >>> import impactset, numpy as np
/// >>> p = impactset.Problem.scene("slope-point-slide")
/// >>> net = np.array([[0.0, 0.0], [1.0, 0.0]])
/// >>> impactset.covering_radius(p, net, [[0.5, 0.0]], metric="euclidean")
/// 0.5
#[pyfunction]
#[pyo3(signature = (problem, net, reference, *, metric=None))]
pub fn covering_radius(
    py: Python<'_>,
    problem: &Bound<'_, PyAny>,
    net: &Bound<'_, PyAny>,
    reference: &Bound<'_, PyAny>,
    metric: Option<&Bound<'_, PyAny>>,
) -> PyResult<f64> {
    let p = problem_arg(problem)?.get().problem();
    let metric = metric.filter(|m| !m.is_none()).map(metric_arg).transpose()?.unwrap_or_default();
    let (a, b) = clouds(p, metric, ("net", net), ("reference", reference))?;
    detached::run(py, None, |_| impactset::analysis::covering_radius(&a, &b))
}

/// The Hausdorff distance max(ε(a; b), ε(b; a)) between two velocity sets
/// (N, n) in ``metric`` (default ``"energy"``).
///
/// >>> import impactset
/// >>> p = impactset.Problem.scene("slope-point-slide")
/// >>> impactset.hausdorff(p, [[0.0, 0.0]], [[0.0, 0.0], [0.0, 2.0]], metric="euclidean")
/// 2.0
#[pyfunction]
#[pyo3(signature = (problem, a, b, *, metric=None))]
pub fn hausdorff(
    py: Python<'_>,
    problem: &Bound<'_, PyAny>,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
    metric: Option<&Bound<'_, PyAny>>,
) -> PyResult<f64> {
    let p = problem_arg(problem)?.get().problem();
    let metric = metric.filter(|m| !m.is_none()).map(metric_arg).transpose()?.unwrap_or_default();
    let (a, b) = clouds(p, metric, ("a", a), ("b", b))?;
    detached::run(py, None, |_| impactset::analysis::hausdorff(&a, &b))
}

/// The held-out certificate of ``net`` from fresh samples ``held_out``
/// (both (N, n)): ``epsilon`` (every held-out sample lies within it of the
/// net), ``median_distance``, and ``miss_probability`` = ln(1/δ)/M_h, the
/// bound, at confidence 1 − ``delta`` (default ``impactset.DEFAULTS["delta"]``), on the chance that one more sample
/// of the same law lands farther than ``epsilon`` from the net. Returns a
/// dict, whose ``certifies`` says what that is: coverage under the
/// sampling law (the sampling measure of what the net misses), not the
/// distance from the net to the set's extremes, which a law may reach with
/// vanishing probability (``impactset.extremes`` and ``impactset analyze``'s
/// extremes check measure that; ``docs/model.md`` §6).
///
/// >>> import impactset
/// >>> p = impactset.Problem.scene("box-wall")
/// >>> net = impactset.sample(p, 2000, seed=1).v_plus
/// >>> fresh = impactset.sample(p, 500, seed=2).v_plus
/// >>> c = impactset.held_out_certificate(p, net, fresh)
/// >>> c["held_out"], c["delta"], c["epsilon"] >= c["median_distance"] >= 0
/// (500, 0.05, True)
#[pyfunction]
#[pyo3(signature = (problem, net, held_out, *, delta=None, metric=None))]
pub fn held_out_certificate<'py>(
    py: Python<'py>,
    problem: &Bound<'py, PyAny>,
    net: &Bound<'py, PyAny>,
    held_out: &Bound<'py, PyAny>,
    delta: Option<&Bound<'py, PyAny>>,
    metric: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let p = problem_arg(problem)?.get().problem();
    let metric = metric.filter(|m| !m.is_none()).map(metric_arg).transpose()?.unwrap_or_default();
    let delta = match delta.filter(|d| !d.is_none()) {
        Some(d) => args::float_in("delta", d, 0.0, 1.0)?,
        None => impactset::analysis::DEFAULT_DELTA,
    };
    let (a, b) = clouds(p, metric, ("net", net), ("held_out", held_out))?;
    let c = detached::run(py, None, |_| impactset::analysis::held_out_certificate(&a, &b, delta))?;
    let d = PyDict::new(py);
    d.set_item("net_size", c.net_size)?;
    d.set_item("held_out", c.held_out)?;
    d.set_item("epsilon", c.epsilon)?;
    d.set_item("median_distance", c.median_distance)?;
    d.set_item("delta", c.delta)?;
    d.set_item("miss_probability", c.miss_probability)?;
    d.set_item("metric", metric.name())?;
    d.set_item("certifies", c.certifies)?;
    Ok(d)
}
