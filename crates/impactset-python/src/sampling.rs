//! `impactset.sample`: Algorithm 2 run chunk by chunk off the interpreter,
//! each chunk's results appended to flat buffers that become the
//! `SampleSet`'s ndarrays without a further copy.

use std::collections::HashMap;

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use impactset::analysis::{ContactMode, ModeClassifier, ModeOptions};
use impactset::run::{Backend, ChunkedRun, RunControl, RunError, RunSummary, sample_chunks};
use impactset::sampling::MAX_THREADS;
use impactset::sampling::SetTally;
use impactset::{ImpactProblem, SampleSet as RustSampleSet, SamplerOptions};

use crate::args::{self, some};
use crate::backend::open_backend;
use crate::convert::{matrix, vector};
use crate::detached::{self, Control};
use crate::memory;
use crate::problem::Problem;
use crate::sample_set::SampleSet;

/// Samples per chunk of a run: memory holds one chunk of the library's
/// samples besides the result buffers (about 8 MB for a 4-velocity problem);
/// the samples do not depend on it.
const CHUNK: usize = 1 << 16;

/// What a run keeps of each chunk: flat buffers that become the ndarrays.
struct Collected {
    n: usize,
    v_plus: Vec<f64>,
    indices: Vec<u64>,
    accepted: Vec<bool>,
    steps: Vec<u32>,
    energy_ratio: Vec<f64>,
    residual: Vec<f64>,
    energy_guard: Vec<bool>,
    modes: Vec<i32>,
    mode_ids: HashMap<Vec<ContactMode>, i32>,
    mode_list: Vec<Vec<ContactMode>>,
    mode_counts: Vec<usize>,
    tally: SetTally,
    run: ChunkedRun,
}

/// Bytes of the result buffers per sample of a problem with `n`
/// velocities: `v⁺` (8n, when accepted), the index (8), mode (4),
/// acceptance (1), steps (4), energy ratio (8), residual (8) and energy
/// guard (1).
pub(crate) fn bytes_per_sample(n: usize) -> u128 {
    8 * n as u128 + 8 + 4 + 1 + 4 + 8 + 8 + 1
}

impl Collected {
    /// Buffers for `samples` samples, reserved whole; `None` when the
    /// memory cannot be had (checked against the machine's memory before).
    fn new(n: usize, samples: usize) -> Option<Self> {
        fn reserved<T>(len: usize) -> Option<Vec<T>> {
            let mut v = Vec::new();
            v.try_reserve_exact(len).ok()?;
            Some(v)
        }
        Some(Collected {
            n,
            // Room for every sample to be accepted, so that the buffer is
            // never moved while it grows.
            v_plus: reserved(samples.checked_mul(n)?)?,
            indices: reserved(samples)?,
            accepted: reserved(samples)?,
            steps: reserved(samples)?,
            energy_ratio: reserved(samples)?,
            residual: reserved(samples)?,
            energy_guard: reserved(samples)?,
            modes: reserved(samples)?,
            mode_ids: HashMap::new(),
            mode_list: Vec::new(),
            mode_counts: Vec::new(),
            tally: SetTally::default(),
            run: ChunkedRun::default(),
        })
    }

    fn add(&mut self, chunk: &RustSampleSet, classifier: &ModeClassifier<'_>) {
        self.tally.add(chunk);
        for s in &chunk.samples {
            self.accepted.push(s.accepted);
            self.steps.push(s.steps);
            self.residual.push(s.max_residual);
            self.energy_guard.push(s.energy_guard);
            self.energy_ratio.push(if s.energy_before > 0.0 { s.energy_after / s.energy_before } else { 1.0 });
            if s.accepted {
                debug_assert_eq!(s.v_plus.len(), self.n);
                self.v_plus.extend_from_slice(&s.v_plus);
                self.indices.push(s.index);
                let modes = classifier.classify(&s.v_plus);
                let next = self.mode_list.len() as i32;
                let id = *self.mode_ids.entry(modes.clone()).or_insert(next);
                if id == next {
                    self.mode_list.push(modes);
                    self.mode_counts.push(0);
                }
                self.mode_counts[id as usize] += 1;
                self.modes.push(id);
            }
        }
    }

    /// Renumbers the modes most frequent first (ties in mode order), as the
    /// histogram lists them.
    fn sort_modes(&mut self) {
        let mut order: Vec<usize> = (0..self.mode_list.len()).collect();
        order.sort_by(|&a, &b| {
            self.mode_counts[b].cmp(&self.mode_counts[a]).then_with(|| self.mode_list[a].cmp(&self.mode_list[b]))
        });
        let mut new_id = vec![0i32; order.len()];
        for (rank, &old) in order.iter().enumerate() {
            new_id[old] = rank as i32;
        }
        for id in &mut self.modes {
            *id = new_id[*id as usize];
        }
        self.mode_list = order.iter().map(|&i| self.mode_list[i].clone()).collect();
        self.mode_counts = order.iter().map(|&i| self.mode_counts[i]).collect();
    }
}

/// Runs Algorithm 2 on `backend` chunk by chunk (cancelled through
/// `control` between any two samples on the CPU, between batches on the
/// GPU), keeping each chunk in the result buffers `collected`.
fn run_chunks(
    problem: &ImpactProblem,
    options: &SamplerOptions,
    modes: &ModeOptions,
    backend: &Backend,
    control: &Control,
    mut collected: Collected,
) -> Result<Collected, RunError> {
    let classifier = ModeClassifier::new(problem, modes);
    let run = RunControl { progress: &|k| control.advance(k), cancel: Some(control.flag()) };
    collected.run = sample_chunks(backend, problem, options, CHUNK, &run, &mut |chunk| {
        collected.add(&chunk, &classifier);
        Ok::<_, RunError>(())
    })?;
    collected.sort_modes();
    Ok(collected)
}

/// The native `sample`; `impactset.sample` adds the progress bar.
#[pyfunction]
#[pyo3(signature = (problem, n=None, *, seed=None, selection=None, schedule=None, steps=None, step_size=None, backend=None, precision=None, threads=None, progress=None, first_index=None, mode_tolerance=None))]
#[allow(clippy::too_many_arguments)]
pub fn sample_native(
    py: Python<'_>,
    problem: &Bound<'_, PyAny>,
    n: Option<&Bound<'_, PyAny>>,
    seed: Option<&Bound<'_, PyAny>>,
    selection: Option<&Bound<'_, PyAny>>,
    schedule: Option<&Bound<'_, PyAny>>,
    steps: Option<&Bound<'_, PyAny>>,
    step_size: Option<&Bound<'_, PyAny>>,
    backend: Option<&Bound<'_, PyAny>>,
    precision: Option<&Bound<'_, PyAny>>,
    threads: Option<&Bound<'_, PyAny>>,
    progress: Option<&Bound<'_, PyAny>>,
    first_index: Option<&Bound<'_, PyAny>>,
    mode_tolerance: Option<&Bound<'_, PyAny>>,
) -> PyResult<SampleSet> {
    let problem_obj = problem.cast::<Problem>().map_err(|_| {
        pyo3::exceptions::PyTypeError::new_err(format!(
            "problem: expected an impactset.Problem, got {}",
            args::type_name(problem)
        ))
    })?;
    let pyproblem = problem_obj.get();
    let spec = &pyproblem.spec;
    // The problem's defaults, as the command line resolves them.
    let defaults = spec.sampler_options();
    let (samples, n_name) = match some(n) {
        Some(n) => (args::integer("n", &n, 1, usize::MAX as i128)? as usize, "n"),
        None => (defaults.samples, "n (the problem's samples)"),
    };
    // Before anything is allocated or run: results that cannot be held.
    let per_sample = bytes_per_sample(pyproblem.problem().n());
    memory::check_fits(n_name, samples, per_sample, "samples")?;
    let seed = args::run::seed(seed)?;
    let selection = args::run::selection(selection)?;
    let schedule = args::run::schedule(schedule)?.unwrap_or(defaults.schedule);
    // `None`: the problem's own, else the pilot's (resolved by the core in
    // `validate_and_cap`, once h and the rule are known).
    let steps = args::run::steps(steps)?.or(spec.steps);
    let step_size = match some(step_size) {
        Some(h) => args::positive_float("step_size", &h)?,
        None => defaults.step_size_for(pyproblem.problem()),
    };
    let backend = args::run::backend(backend)?;
    let precision = args::run::precision(precision)?;
    let threads = args::optional_count_in("threads", threads, 1, MAX_THREADS)?;
    let first_index = match some(first_index) {
        Some(i) => args::integer("first_index", &i, 0, u64::MAX as i128)? as u64,
        None => 0,
    };
    let progress = some(progress);
    if let Some(p) = &progress
        && !p.is_callable()
    {
        return Err(pyo3::exceptions::PyTypeError::new_err(format!(
            "progress: expected a callable taking the number of samples newly done, got {}",
            args::type_name(p)
        )));
    }
    let mut options = SamplerOptions {
        samples,
        first_index,
        step_size: Some(step_size),
        steps,
        seed,
        selection,
        schedule,
        threads,
        ..SamplerOptions::default()
    };
    let problem = pyproblem.problem();
    let modes = mode_options(mode_tolerance)?;
    if problem.colliding().is_empty() {
        let warning = impactset::ProblemWarning::NothingColliding.to_string();
        py.import("warnings")?.call_method1("warn", (warning,))?;
    }
    validate_and_cap(py, problem, &mut options)?;
    let (backend, backend_reason) = py.detach(|| open_backend(problem, backend, precision, selection, threads))?;
    let collected = Collected::new(problem.n(), samples)
        .ok_or_else(|| memory::reserve_failed(n_name, samples, samples as u128 * per_sample, "samples"))?;
    let collected = detached::run(py, progress.as_ref(), |control| {
        run_chunks(problem, &options, &modes, &backend, control, collected)
    })?
    .map_err(|e| match e {
        // Cancelled runs end in the signal's exception above, so this
        // is only reached if something else set the flag.
        RunError::Cancelled => PyRuntimeError::new_err("sampling was cancelled"),
        other => PyRuntimeError::new_err(format!("backend='{}': {other}", backend.name())),
    })?;
    let summary = RunSummary::new(&spec.name, &collected.tally, &options, &backend, &backend_reason, &collected.run);
    if let Some(advice) = summary.advice(&keyword_name)
        && !spec.runs_as_documented(&options)
    {
        // Pointing at the caller of `impactset.sample`.
        let kwargs = PyDict::new(py);
        kwargs.set_item("stacklevel", 2)?;
        py.import("warnings")?.call_method("warn", (advice,), Some(&kwargs))?;
    }
    finish(py, problem_obj.clone().unbind(), problem, options, collected, &summary)
}

/// Checks `options` (a `ValueError` naming the keyword) and resolves the
/// step cap ([`SamplerOptions::resolve_steps`]: the pilot run's when none
/// was given, docs/model.md §11), warning when some pilot impacts did not
/// end. `sample` and `extremes` share it.
pub(crate) fn validate_and_cap(py: Python<'_>, problem: &ImpactProblem, options: &mut SamplerOptions) -> PyResult<()> {
    options.validate(problem).map_err(|e| PyValueError::new_err(format!("{}={}: {}", e.field, e.value, e.why)))?;
    let pilot = detached::run(py, None, |control| options.resolve_steps(problem, &|_| {}, Some(control.flag())))?
        .map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
    if let Some(warning) = pilot.and_then(|cap| cap.warning(&keyword_name)) {
        py.import("warnings")?.call_method1("warn", (warning,))?;
    }
    Ok(())
}

/// The contact-mode tolerances of ``mode_tolerance`` (both the separation
/// and the slip tolerance, relative to the pre-impact contact speed;
/// docs/model.md §6); None: the library's.
pub(crate) fn mode_options(tolerance: Option<&Bound<'_, PyAny>>) -> PyResult<ModeOptions> {
    Ok(match some(tolerance) {
        Some(t) => {
            let t = args::positive_float("mode_tolerance", &t)?;
            ModeOptions { separation_tol: t, slip_tol: t }
        }
        None => ModeOptions::default(),
    })
}

/// An option as Python names it: the argument itself (`step_size`), for
/// the core's advice ([`RunSummary::advice`]).
pub(crate) fn keyword_name(name: &str) -> String {
    name.to_string()
}

/// The collected buffers as a `SampleSet` (the ndarrays take the buffers
/// over) with its summary.
fn finish(
    py: Python<'_>,
    problem_obj: Py<Problem>,
    problem: &ImpactProblem,
    options: SamplerOptions,
    mut c: Collected,
    run: &RunSummary,
) -> PyResult<SampleSet> {
    let n = problem.n();
    // The buffer was sized for every sample; give back a large unused tail
    // (one copy, only when many samples were rejected).
    if c.v_plus.capacity() > c.v_plus.len() + c.v_plus.len() / 4 + n {
        c.v_plus.shrink_to_fit();
    }
    let accepted_count = c.indices.len();
    let labels: Vec<String> =
        c.mode_list.iter().map(|modes| impactset::analysis::joint_label(problem, modes)).collect();
    let table: Vec<Vec<String>> =
        c.mode_list.iter().map(|modes| modes.iter().map(|m| m.phrase().to_string()).collect()).collect();
    let summary = summary_dict(py, problem, &c, &labels, &table, run)?;
    Ok(SampleSet {
        problem: problem_obj,
        options,
        v_plus: matrix(py, std::mem::take(&mut c.v_plus), n)?.unbind(),
        accepted: vector(py, std::mem::take(&mut c.accepted))?.unbind(),
        indices: vector(py, std::mem::take(&mut c.indices))?.unbind(),
        steps: vector(py, std::mem::take(&mut c.steps))?.unbind(),
        energy_ratio: vector(py, std::mem::take(&mut c.energy_ratio))?.unbind(),
        residual: vector(py, std::mem::take(&mut c.residual))?.unbind(),
        energy_guard: vector(py, std::mem::take(&mut c.energy_guard))?.unbind(),
        modes: vector(py, std::mem::take(&mut c.modes))?.unbind(),
        mode_labels: labels,
        mode_table: table,
        summary: summary.unbind(),
        accepted_count,
    })
}

/// The command line's summary fields and the mode histogram.
fn summary_dict<'py>(
    py: Python<'py>,
    problem: &ImpactProblem,
    c: &Collected,
    labels: &[String],
    table: &[Vec<String>],
    s: &RunSummary,
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("problem", &s.problem)?;
    d.set_item("samples", s.samples)?;
    d.set_item("accepted", s.accepted)?;
    d.set_item("terminated", s.terminated)?;
    d.set_item("rejected_unterminated", s.rejected_unterminated)?;
    d.set_item("rejected_failed", s.rejected_failed)?;
    d.set_item("lcp_rays", s.lcp_rays)?;
    d.set_item("lcp_pivot_caps", s.lcp_pivot_caps)?;
    d.set_item("lcp_inaccurate", s.lcp_inaccurate)?;
    d.set_item("rejected_residual", s.rejected_residual)?;
    d.set_item("mean_steps", s.mean_steps)?;
    d.set_item("max_residual", s.max_residual)?;
    d.set_item("fallback_steps", s.fallback_steps)?;
    d.set_item("certified_steps", s.certified_steps)?;
    d.set_item("energy_guards", s.energy_guards)?;
    d.set_item("max_energy_ratio", s.max_energy_ratio)?;
    d.set_item("seed", s.seed)?;
    d.set_item("selection", &s.selection)?;
    d.set_item("schedule", &s.schedule)?;
    d.set_item("backend", &s.backend)?;
    d.set_item("backend_reason", &s.backend_reason)?;
    d.set_item("precision", &s.precision)?;
    d.set_item("threads", s.threads)?;
    d.set_item("elapsed_s", s.elapsed_s)?;
    d.set_item("host_reruns", s.host_reruns)?;
    d.set_item("step_size", s.step_size)?;
    d.set_item("steps", s.steps)?;
    d.set_item("first_index", s.first_index)?;
    let histogram = PyDict::new(py);
    histogram.set_item("contacts", problem.contacts().iter().map(|c| c.name.clone()).collect::<Vec<_>>())?;
    histogram.set_item("total", c.indices.len())?;
    let entries = PyList::empty(py);
    for (i, label) in labels.iter().enumerate() {
        let e = PyDict::new(py);
        e.set_item("modes", &table[i])?;
        e.set_item("label", label)?;
        e.set_item("count", c.mode_counts[i])?;
        e.set_item("fraction", c.mode_counts[i] as f64 / c.indices.len().max(1) as f64)?;
        entries.append(e)?;
    }
    histogram.set_item("entries", entries)?;
    d.set_item("modes", histogram)?;
    Ok(d)
}
