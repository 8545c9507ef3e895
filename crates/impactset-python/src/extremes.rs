//! `impactset.extremes`: the worst case as a query (docs/model.md §5d).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use impactset::SamplerOptions;
use impactset::sampling::{
    EXTREMES_SELECTION, ExtremesOptions, MAX_THREADS, SearchControl, check_budget, check_direction_count,
    extremes_with, random_directions,
};

use crate::analysis::{problem_arg, velocities};
use crate::args::{self, some};
use crate::convert::{matrix, vector};
use crate::detached;
use crate::sampling::validate_and_cap;

/// The native `extremes`; `impactset.extremes` wraps the result in an
/// `Extremes`. Returns a dict of arrays: `directions` (k, n), `value` (k,),
/// `sampled` (k,), `v_plus` (k, n), `index` (k,), `origin` (list),
/// `schedules` (list of (steps, m) arrays), `evaluations` (k,), `scale`.
#[pyfunction]
#[pyo3(signature = (problem, directions=None, *, random=None, budget=None, n=None, seed=None, selection=None, schedule=None, steps=None, step_size=None, threads=None))]
#[allow(clippy::too_many_arguments)]
pub fn extremes_native<'py>(
    py: Python<'py>,
    problem: &Bound<'py, PyAny>,
    directions: Option<&Bound<'py, PyAny>>,
    random: Option<&Bound<'py, PyAny>>,
    budget: Option<&Bound<'py, PyAny>>,
    n: Option<&Bound<'py, PyAny>>,
    seed: Option<&Bound<'py, PyAny>>,
    selection: Option<&Bound<'py, PyAny>>,
    schedule: Option<&Bound<'py, PyAny>>,
    steps: Option<&Bound<'py, PyAny>>,
    step_size: Option<&Bound<'py, PyAny>>,
    threads: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let pyproblem = problem_arg(problem)?.get();
    let spec = &pyproblem.spec;
    let p = pyproblem.problem();
    let dim = p.n();
    let seed = args::run::seed(seed)?;
    let mut cs: Vec<Vec<f64>> = match some(directions) {
        Some(d) => velocities("directions", &d, dim)?.chunks(dim).map(<[f64]>::to_vec).collect(),
        None => Vec::new(),
    };
    let random = args::optional_count("random", random, 0)?.unwrap_or(0);
    let named = |arg: &str, e: impactset::sampling::OptionsError| {
        PyValueError::new_err(format!("{arg}={}: {}", e.value, e.why))
    };
    cs.extend(random_directions(p, random, seed).map_err(|e| named("random", e))?);
    if cs.is_empty() {
        return Err(PyValueError::new_err("directions: give at least one direction (or random=k)"));
    }
    let defaults = spec.sampler_options();
    let search = ExtremesOptions {
        budget: args::optional_count("budget", budget, 0)?.unwrap_or(ExtremesOptions::default().budget),
        ..ExtremesOptions::default()
    };
    check_budget(search.budget).map_err(|e| named("budget", e))?;
    check_direction_count(cs.len())
        .map_err(|e| PyValueError::new_err(format!("directions: {} directions with random, {}", e.value, e.why)))?;
    let given_steps = args::run::steps(steps)?.or(spec.steps);
    let mut options = SamplerOptions {
        samples: args::optional_count("n", n, 1)?.unwrap_or(defaults.samples),
        seed,
        selection: match some(selection) {
            Some(_) => args::run::selection(selection)?,
            None => EXTREMES_SELECTION,
        },
        schedule: args::run::schedule(schedule)?.unwrap_or(defaults.schedule),
        step_size: match some(step_size) {
            Some(h) => Some(args::positive_float("step_size", &h)?),
            None => defaults.step_size,
        },
        steps: given_steps,
        threads: args::optional_count_in("threads", threads, 1, MAX_THREADS)?,
        ..SamplerOptions::default()
    };
    validate_and_cap(py, p, &mut options)?;
    // Ctrl-C stops the search (before the next sample, between rounds).
    let found = detached::run(py, None, |control| {
        let search_control = SearchControl { progress: &|k| control.advance(k), cancel: Some(control.flag()) };
        extremes_with(p, &options, &cs, &search, &search_control)
    })?
    .map_err(|e| PyValueError::new_err(format!("{}={}: {}", e.field, e.value, e.why)))?
    .ok_or_else(|| pyo3::exceptions::PyRuntimeError::new_err("the search was cancelled"))?;
    let d = PyDict::new(py);
    d.set_item("directions", matrix(py, cs.concat(), dim)?)?;
    d.set_item("value", vector(py, found.iter().map(|e| e.value).collect())?)?;
    d.set_item("sampled", vector(py, found.iter().map(|e| e.sampled).collect())?)?;
    let v: Vec<f64> =
        found.iter().flat_map(|e| if e.v_plus.is_empty() { vec![f64::NAN; dim] } else { e.v_plus.clone() }).collect();
    d.set_item("v_plus", matrix(py, v, dim)?)?;
    d.set_item("index", vector(py, found.iter().map(|e| e.index).collect())?)?;
    d.set_item("evaluations", vector(py, found.iter().map(|e| e.evaluations as u64).collect())?)?;
    let origins: Vec<String> = found.iter().map(|e| e.origin.name().to_string()).collect();
    d.set_item("origin", origins)?;
    let schedules = PyList::empty(py);
    for e in &found {
        schedules.append(matrix(py, e.schedule.concat(), p.m())?)?;
    }
    d.set_item("schedules", schedules)?;
    d.set_item("scale", (2.0 * p.kinetic_energy(p.velocity())).sqrt())?;
    d.set_item("selection", options.selection.to_string())?;
    d.set_item("schedule", options.schedule.to_string())?;
    d.set_item("steps", options.steps.expect("validate_and_cap resolves the step cap"))?;
    Ok(d)
}
