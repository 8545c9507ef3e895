//! `impactset.reach`'s native part: the states `start..end` of a batch
//! (docs/model.md §12) off the interpreter, as the table's columns.
//!
//! The Python side (`impactset.reach`, `impactset.ray.reach`) calls this for
//! the whole batch or for shards and joins the shards' columns; state `k`
//! always samples with the state seed of `(seed, k)`, so any split gives the
//! same rows bit for bit.

use numpy::PyArray1;
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyMapping, PyString, PyTuple};

use impactset::SamplerOptions;
use impactset::io::ProblemSpec;
use impactset::reach::{
    ColumnKind, Direction, DirectionKind, MAX_EXTREMES_BUDGET, ReachError, ReachExtremes, ReachInput, ReachOptions,
    ReachRow, ReachRun, ReachSchema, StateProblem, StateResult, reach_stream, schema,
};
use impactset::run::{Backend, RunControl, RunError};

use crate::args::{self, some};
use crate::backend::open_backend;
use crate::convert::{matrix, vector};
use crate::detached;
use crate::problem::Problem;

/// The states of the batch: `problem` with `velocities` (one state per
/// row), or `problem` alone (one state), or a list of problems.
fn input_of(problem: &Bound<'_, PyAny>, velocities: Option<&Bound<'_, PyAny>>) -> PyResult<(ReachInput, ProblemSpec)> {
    let spec_of = |obj: &Bound<'_, PyAny>, name: &str| -> PyResult<ProblemSpec> {
        let p = obj.cast::<Problem>().map_err(|_| {
            PyTypeError::new_err(format!(
                "{name}: expected an impactset.Problem or a list of them, got {}",
                args::type_name(obj)
            ))
        })?;
        Ok(p.get().spec.clone())
    };
    if problem.cast::<Problem>().is_ok() {
        let spec = spec_of(problem, "problem")?;
        let base = StateProblem::from(spec.clone());
        let input = match velocities.filter(|v| !v.is_none()) {
            Some(v) => {
                let n = spec.problem.n();
                let array = args::float_array("velocities", v)?;
                let shape = args::shape_of(&array);
                if !matches!(shape[..], [_, c] if c == n) {
                    return Err(PyValueError::new_err(format!(
                        "velocities: expected shape (K, {n}) (one pre-impact velocity per row), got {}",
                        args::shape_str(&shape)
                    )));
                }
                args::check_finite("velocities", &array)?;
                let flat: Vec<f64> = array.as_array().iter().copied().collect();
                ReachInput::velocities(base, flat).map_err(|e| PyValueError::new_err(e.to_string()))?
            }
            None => ReachInput::problems(vec![base]).map_err(|e| PyValueError::new_err(e.to_string()))?,
        };
        return Ok((input, spec));
    }
    if problem.is_instance_of::<PyString>() || problem.is_instance_of::<PyDict>() {
        return Err(PyTypeError::new_err(format!(
            "problem: expected an impactset.Problem or a list of them, got {}",
            args::type_name(problem)
        )));
    }
    let items: Vec<Bound<'_, PyAny>> = problem
        .try_iter()
        .map_err(|_| {
            PyTypeError::new_err(format!(
                "problem: expected an impactset.Problem or a list of them, got {}",
                args::type_name(problem)
            ))
        })?
        .collect::<PyResult<_>>()?;
    if velocities.is_some_and(|v| !v.is_none()) {
        return Err(PyValueError::new_err(
            "velocities: give one Problem (the configuration) with velocities, not a list of problems",
        ));
    }
    if items.is_empty() {
        return Err(PyValueError::new_err("problem: an empty list of problems (its columns are unknown)"));
    }
    let specs: Vec<ProblemSpec> =
        items.iter().enumerate().map(|(k, p)| spec_of(p, &format!("problem[{k}]"))).collect::<PyResult<_>>()?;
    let first = specs[0].clone();
    let input = ReachInput::problems(specs.into_iter().map(StateProblem::from).collect()).map_err(|e| match e {
        ReachError::Shape { state, name, found, expected } => {
            PyValueError::new_err(format!("problem[{state}] ('{name}'): {found}, the first problem has {expected}"))
        }
        other => PyValueError::new_err(format!("problem: {other}")),
    })?;
    Ok((input, first))
}

/// `directions`: None (the defaults) or a mapping name → vector `c`.
fn directions_of(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Vec<Direction>>> {
    let Some(obj) = obj.filter(|o| !o.is_none()) else {
        return Ok(None);
    };
    let mapping = obj.cast::<PyMapping>().map_err(|_| {
        PyTypeError::new_err(format!(
            "directions: expected None or a mapping of names to vectors c (length n), got {}",
            args::type_name(obj)
        ))
    })?;
    let mut out = Vec::new();
    for item in mapping.items()?.iter() {
        let (key, value) = item.extract::<(Bound<'_, PyAny>, Bound<'_, PyAny>)>()?;
        let name = key
            .cast::<PyString>()
            .map_err(|_| PyTypeError::new_err(format!("directions: names must be str, got {}", args::type_name(&key))))?
            .to_str()?
            .to_string();
        let label = format!("directions['{name}']");
        let c = args::float_array(&label, &value)?;
        let shape = args::shape_of(&c);
        if shape.len() != 1 {
            return Err(PyValueError::new_err(format!(
                "{label}: expected a vector (n,), got shape {}",
                args::shape_str(&shape)
            )));
        }
        out.push(Direction { name, kind: DirectionKind::Vector(c.as_array().iter().copied().collect()) });
    }
    if out.is_empty() {
        return Err(PyValueError::new_err("directions: an empty mapping (give None for the default directions)"));
    }
    Ok(Some(out))
}

/// A library error in the arguments' names.
fn reach_error(e: ReachError, backend: &str) -> PyErr {
    match e {
        ReachError::Direction { name, why } => PyValueError::new_err(format!("directions['{name}']: {why}")),
        ReachError::Velocities(why) => PyValueError::new_err(format!("velocities: {why}")),
        ReachError::Problem { state, source } => PyValueError::new_err(format!("state {state}: {source}")),
        ReachError::Sampler { state, source } => {
            let name = if source.field == "samples" { "n" } else { source.field };
            let own = state.map_or(String::new(), |k| format!("state {k}'s own or default "));
            PyValueError::new_err(format!("{own}{name} {}: {}", source.value, source.why))
        }
        ReachError::Run(RunError::Cancelled) => PyRuntimeError::new_err("the batch was cancelled"),
        ReachError::Run(e) => PyRuntimeError::new_err(format!("backend='{backend}': {e}")),
        other => PyValueError::new_err(other.to_string()),
    }
}

/// The native `reach`: the states `start .. end` (default: all) of the
/// batch. Returns `(names, kinds, columns, sets, run)`: the column names
/// and kinds (`"u64"`, `"f64"`, `"str"`, `"f64 list"`) in table order, one
/// ndarray per column (uint64, float64, or object arrays of str / of
/// float64 vectors), the accepted `v⁺` per state (or None) and a dict of
/// what ran. `impactset.reach` and `impactset.ray.reach` wrap it.
#[pyfunction]
#[pyo3(signature = (problem, n, *, velocities=None, seed=None, selection=None, schedule=None, steps=None, step_size=None, directions=None, baselines=true, extremes=false, extremes_budget=None, keep_sets=false, heldout_every=None, delta=None, backend=None, precision=None, threads=None, progress=None, start=None, end=None, mode_tolerance=None))]
#[allow(clippy::too_many_arguments)]
pub fn reach_native<'py>(
    py: Python<'py>,
    problem: &Bound<'py, PyAny>,
    n: &Bound<'py, PyAny>,
    velocities: Option<&Bound<'py, PyAny>>,
    seed: Option<&Bound<'py, PyAny>>,
    selection: Option<&Bound<'py, PyAny>>,
    schedule: Option<&Bound<'py, PyAny>>,
    steps: Option<&Bound<'py, PyAny>>,
    step_size: Option<&Bound<'py, PyAny>>,
    directions: Option<&Bound<'py, PyAny>>,
    baselines: bool,
    extremes: bool,
    extremes_budget: Option<&Bound<'py, PyAny>>,
    keep_sets: bool,
    heldout_every: Option<&Bound<'py, PyAny>>,
    delta: Option<&Bound<'py, PyAny>>,
    backend: Option<&Bound<'py, PyAny>>,
    precision: Option<&Bound<'py, PyAny>>,
    threads: Option<&Bound<'py, PyAny>>,
    progress: Option<&Bound<'py, PyAny>>,
    start: Option<&Bound<'py, PyAny>>,
    end: Option<&Bound<'py, PyAny>>,
    mode_tolerance: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyTuple>> {
    let (input, first) = input_of(problem, velocities)?;
    let samples = args::integer("n", n, 1, u32::MAX as i128)? as usize;
    let seed = args::run::seed(seed)?;
    let selection = args::run::selection(selection)?;
    let schedule = args::run::schedule(schedule)?.or(first.schedule).unwrap_or_default();
    // `None`: the pilot run's of state 0, resolved by the core below as
    // for the command line (docs/model.md §11–§12), the same for every shard.
    let steps = args::run::steps(steps)?.or(first.steps);
    let step_size = some(step_size).map(|h| args::positive_float("step_size", &h)).transpose()?;
    let heldout_every = match some(heldout_every) {
        Some(e) => args::integer("heldout_every", &e, 2, u64::MAX as i128)? as u64,
        None => ReachOptions::default().heldout_every,
    };
    let delta = match some(delta) {
        Some(d) => args::float_in("delta", &d, 0.0, 1.0)?,
        None => ReachOptions::default().delta,
    };
    let extremes = extremes_of(extremes, extremes_budget)?;
    let choice = args::run::backend(backend)?;
    let backend_name = choice.name();
    let precision = args::run::precision(precision)?;
    let threads = args::optional_count("threads", threads, 1)?;
    let len = input.len();
    let (start, end) = state_range(start, end, len)?;
    let progress = some(progress);
    if let Some(p) = &progress
        && !p.is_callable()
    {
        return Err(PyTypeError::new_err(format!(
            "progress: expected a callable taking the number of samples newly done, got {}",
            args::type_name(p)
        )));
    }
    let mut options = ReachOptions {
        sampler: SamplerOptions {
            samples,
            steps,
            step_size,
            seed,
            selection,
            schedule,
            threads,
            ..SamplerOptions::default()
        },
        directions: directions_of(directions)?,
        baselines,
        extremes,
        keep_sets,
        heldout_every,
        delta,
        modes: crate::sampling::mode_options(mode_tolerance)?,
        ..ReachOptions::default()
    };
    let schema = schema(&input, &options).map_err(|e| reach_error(e, backend_name))?;
    if start < end {
        let pilot = detached::run(py, None, |control| {
            impactset::reach::resolve_steps(&input, &mut options, &|_| {}, Some(control.flag()))
        })?
        .map_err(|e| reach_error(e, backend_name))?;
        if let Some(warning) = pilot.and_then(|cap| cap.warning(&crate::sampling::keyword_name)) {
            let message = format!("state 0: {warning}");
            py.import("warnings")?.call_method1("warn", (message,))?;
        }
    }
    // The same checks as `sample`, for every state, before a thread starts.
    py.detach(|| impactset::reach::validate(&input, &options, start..end)).map_err(|e| reach_error(e, backend_name))?;
    if let Some(warning) = input.resting_warning(start..end) {
        py.import("warnings")?.call_method1("warn", (warning,))?;
    }
    let (backend, _reason) = py.detach(|| open_backend(&first.problem, choice, precision, selection, threads))?;

    let mut results: Vec<StateResult> = Vec::with_capacity(end - start);
    let run = detached::run(py, progress.as_ref(), |control| {
        let run = RunControl { progress: &|k| control.advance(k), cancel: Some(control.flag()) };
        reach_stream::<ReachError>(&backend, &input, &options, start..end, &run, &mut |r| {
            results.push(r);
            Ok(())
        })
    })?
    .map_err(|e| reach_error(e, &backend.name()))?;

    let (names, kinds, columns) = columns(py, &schema, results.iter().map(|r| &r.row))?;
    let sets = if keep_sets {
        let list = PyList::empty(py);
        for r in &mut results {
            list.append(matrix(py, r.set.take().unwrap_or_default(), first.problem.n())?)?;
        }
        list.into_any()
    } else {
        py.None().into_bound(py)
    };
    let info = run_info(py, &options, &backend, &run, (start, end, len))?;
    PyTuple::new(py, [names.into_any(), kinds.into_any(), columns.into_any(), sets, info.into_any()])
}

/// `extremes` and `extremes_budget` as the batch's extremes query.
fn extremes_of(extremes: bool, budget: Option<&Bound<'_, PyAny>>) -> PyResult<Option<ReachExtremes>> {
    Ok(match (extremes, some(budget)) {
        (false, Some(_)) => return Err(PyValueError::new_err("extremes_budget: give extremes=True with it")),
        (false, None) => None,
        (true, budget) => Some(ReachExtremes {
            budget: match budget {
                Some(b) => args::integer("extremes_budget", &b, 0, MAX_EXTREMES_BUDGET as i128)? as usize,
                None => ReachExtremes::default().budget,
            },
            ..ReachExtremes::default()
        }),
    })
}

/// `start` and `end` (default: every state of `len`), checked.
fn state_range(
    start: Option<&Bound<'_, PyAny>>,
    end: Option<&Bound<'_, PyAny>>,
    len: usize,
) -> PyResult<(usize, usize)> {
    let start = match some(start) {
        Some(s) => args::integer("start", &s, 0, len as i128)? as usize,
        None => 0,
    };
    let end = match some(end) {
        Some(e) => args::integer("end", &e, start as i128, len as i128)? as usize,
        None => len,
    };
    if start > end {
        return Err(PyValueError::new_err(format!("start: {start} is after end = {end}")));
    }
    Ok((start, end))
}

/// What ran: the states `start .. end` of `len`, the batch's settings (its
/// step cap as resolved; None when no state ran and none was given) and
/// the backend's.
fn run_info<'py>(
    py: Python<'py>,
    options: &ReachOptions,
    backend: &Backend,
    run: &ReachRun,
    (start, end, len): (usize, usize, usize),
) -> PyResult<Bound<'py, PyDict>> {
    let sampler = &options.sampler;
    let info = PyDict::new(py);
    info.set_item("states", run.states)?;
    info.set_item("start", start)?;
    info.set_item("end", end)?;
    info.set_item("batch_states", len)?;
    info.set_item("samples_per_state", sampler.samples)?;
    info.set_item("samples", run.samples)?;
    info.set_item("seed", sampler.seed)?;
    info.set_item("selection", sampler.selection.to_string())?;
    info.set_item("schedule", sampler.schedule.to_string())?;
    info.set_item("steps", sampler.steps)?;
    info.set_item("extremes_budget", options.extremes.as_ref().map(|e| e.budget))?;
    info.set_item("step_size", sampler.step_size)?;
    info.set_item("backend", backend.name())?;
    info.set_item("precision", backend.precision_name())?;
    info.set_item("threads", backend.threads())?;
    info.set_item("compute_s", run.elapsed_s)?;
    Ok(info)
}

/// The rows as columns, in schema order: names, kinds and one ndarray each.
fn columns<'py, 'a>(
    py: Python<'py>,
    schema: &ReachSchema,
    rows: impl Iterator<Item = &'a ReachRow> + Clone,
) -> PyResult<(Bound<'py, PyList>, Bound<'py, PyList>, Bound<'py, PyList>)> {
    use impactset::reach::Value;
    let cells: Vec<Vec<Value<'a>>> = rows.map(|r| schema.values(r)).collect();
    let (names, kinds, arrays) = (PyList::empty(py), PyList::empty(py), PyList::empty(py));
    for (j, column) in schema.columns().iter().enumerate() {
        names.append(&column.name)?;
        let values = cells.iter().map(|row| row[j]);
        let array = match column.kind {
            ColumnKind::U64 => {
                kinds.append("u64")?;
                let v: Vec<u64> = values.map(|c| if let Value::U64(x) = c { x } else { 0 }).collect();
                vector(py, v)?.into_any()
            }
            ColumnKind::F64 => {
                kinds.append("f64")?;
                let v: Vec<f64> = values.map(|c| if let Value::F64(x) = c { x } else { f64::NAN }).collect();
                vector(py, v)?.into_any()
            }
            ColumnKind::Text => {
                kinds.append("str")?;
                let v: Vec<Py<PyAny>> = values
                    .map(|c| {
                        let s = if let Value::Text(s) = c { s } else { "" };
                        PyString::new(py, s).into_any().unbind()
                    })
                    .collect();
                PyArray1::from_vec(py, v).into_any()
            }
            ColumnKind::F64List => {
                kinds.append("f64 list")?;
                let v: Vec<Py<PyAny>> = values
                    .map(|c| {
                        let xs = if let Value::F64List(xs) = c { xs.to_vec() } else { Vec::new() };
                        vector(py, xs).map(|a| a.into_any().unbind())
                    })
                    .collect::<PyResult<_>>()?;
                PyArray1::from_vec(py, v).into_any()
            }
        };
        arrays.append(array)?;
    }
    Ok((names, kinds, arrays))
}
