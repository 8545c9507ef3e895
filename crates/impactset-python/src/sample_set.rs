//! `SampleSet`: the samples of one run as read-only ndarrays, with the
//! run's summary, and what it pickles.

use numpy::{PyArray1, PyArray2, PyArrayMethods, PyUntypedArrayMethods};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use impactset::{SampleSet as RustSampleSet, SamplerOptions};

use crate::args::{self, some};
use crate::problem::Problem;

/// The samples of one run, as ndarrays, with the run's summary.
///
/// * ``v_plus`` (accepted, n) float64: the accepted post-impact velocities,
///   in sample order (the rows of the command line's ``--out x.npy``);
/// * ``accepted`` (samples,) bool, ``steps`` (samples,) uint32,
///   ``energy_ratio`` (samples,) float64 (E⁺/E⁻), ``residual`` (samples,)
///   float64 (largest step-LCP residual; inf where Lemke failed),
///   ``energy_guard`` (samples,) bool (restitution: the energy guard cut
///   the sample's expansion, docs/model.md §4b; its count is the summary's
///   ``energy_guards``): one entry per sample, accepted or not;
/// * ``indices`` (accepted,) uint64: the sample index of each row of
///   ``v_plus``;
/// * ``modes`` (accepted,) int32: each accepted sample's joint contact mode,
///   an index into ``mode_labels`` (most frequent first) and
///   ``mode_table`` (one phrase per contact);
/// * ``summary``: the command line's summary as a dict, with the mode
///   histogram under ``"modes"``.
///
/// The arrays are read-only; ``len(s)`` is the number of accepted samples.
/// A set pickles (``pickle``, ``copy``, Ray) with its problem and options;
/// the copy's arrays are read-only too.
#[pyclass(module = "impactset", frozen, name = "SampleSet")]
pub struct SampleSet {
    pub(crate) problem: Py<Problem>,
    pub(crate) options: SamplerOptions,
    pub(crate) v_plus: Py<PyArray2<f64>>,
    pub(crate) accepted: Py<PyArray1<bool>>,
    pub(crate) indices: Py<PyArray1<u64>>,
    pub(crate) steps: Py<PyArray1<u32>>,
    pub(crate) energy_ratio: Py<PyArray1<f64>>,
    pub(crate) residual: Py<PyArray1<f64>>,
    pub(crate) energy_guard: Py<PyArray1<bool>>,
    pub(crate) modes: Py<PyArray1<i32>>,
    pub(crate) mode_labels: Vec<String>,
    pub(crate) mode_table: Vec<Vec<String>>,
    pub(crate) summary: Py<PyDict>,
    pub(crate) accepted_count: usize,
}

#[pymethods]
impl SampleSet {
    /// The accepted post-impact velocities (accepted, n), read-only.
    #[getter]
    fn v_plus(&self, py: Python<'_>) -> Py<PyArray2<f64>> {
        self.v_plus.clone_ref(py)
    }

    /// Which samples were accepted (samples,).
    #[getter]
    fn accepted(&self, py: Python<'_>) -> Py<PyArray1<bool>> {
        self.accepted.clone_ref(py)
    }

    /// The sample index of each row of ``v_plus`` (accepted,).
    #[getter]
    fn indices(&self, py: Python<'_>) -> Py<PyArray1<u64>> {
        self.indices.clone_ref(py)
    }

    /// LCP steps each sample took (samples,).
    #[getter]
    fn steps(&self, py: Python<'_>) -> Py<PyArray1<u32>> {
        self.steps.clone_ref(py)
    }

    /// ``E⁺/E⁻`` of each sample (samples,); 1 where ``E⁻ = 0``.
    #[getter]
    fn energy_ratio(&self, py: Python<'_>) -> Py<PyArray1<f64>> {
        self.energy_ratio.clone_ref(py)
    }

    /// The largest step-LCP residual violation of each sample (samples,).
    #[getter]
    fn residual(&self, py: Python<'_>) -> Py<PyArray1<f64>> {
        self.residual.clone_ref(py)
    }

    /// Whether the energy guard cut each sample's expansion (samples,):
    /// with restitution, a sample whose expansion would have ended above
    /// the kinetic energy before the impact is brought back to it
    /// (docs/model.md §4b). Always False without restitution.
    #[getter]
    fn energy_guard(&self, py: Python<'_>) -> Py<PyArray1<bool>> {
        self.energy_guard.clone_ref(py)
    }

    /// Each accepted sample's joint contact mode (accepted,), an index into
    /// :attr:`mode_labels`.
    #[getter]
    fn modes(&self, py: Python<'_>) -> Py<PyArray1<i32>> {
        self.modes.clone_ref(py)
    }

    /// Labels of the joint contact modes, most frequent first, e.g.
    /// ``"A sticks, B separates"``.
    #[getter]
    fn mode_labels(&self) -> Vec<String> {
        self.mode_labels.clone()
    }

    /// Per joint mode, what each contact does (``separates``, ``sticks``,
    /// ``slides +t``, ``slides −t``, ``slides``).
    #[getter]
    fn mode_table(&self) -> Vec<Vec<String>> {
        self.mode_table.clone()
    }

    /// The run summary (counts, settings, backend, mode histogram) as a
    /// dict: the command line's ``--summary`` without baselines.
    #[getter]
    fn summary<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        // A copy, so that the set stays as it was sampled.
        self.summary.bind(py).call_method0("copy")
    }

    /// The problem that was sampled.
    #[getter]
    fn problem(&self, py: Python<'_>) -> Py<Problem> {
        self.problem.clone_ref(py)
    }

    /// Draws the accepted outcomes projected on contact-frame velocities
    /// (one panel per pair of contact velocities, coloured by joint contact
    /// mode; at most ``max_points`` of them, default
    /// ``impactset.DEFAULTS["max_points"]``), the intermediate velocities of
    /// the first ``trajectories`` samples (default
    /// ``impactset.DEFAULTS["trajectories"]``) and, with ``baselines``, the simultaneous and sequential
    /// outcomes; ``path`` ends in ``.svg`` or ``.png`` (PNG needs a
    /// TrueType font). The file is written whole or not at all, also on
    /// Ctrl-C; a symbolic link stays a link, a special file (``/dev/null``)
    /// is written into.
    ///
    /// ``coordinates`` draws chosen velocity coordinates instead (a robot's
    /// base velocity, named joints; every pair a panel, at most 9): indices
    /// into ``v``, or names from ``coordinate_names`` (one per coordinate,
    /// e.g. ``impactset.mujoco.coordinate_names(model)``), which also label
    /// the axes.
    ///
    /// >>> import impactset, tempfile, os
    /// >>> s = impactset.sample(impactset.Problem.scene("rocking-block"), 512)
    /// >>> path = os.path.join(tempfile.mkdtemp(), "block.svg")
    /// >>> s.plot(path)
    /// >>> open(path).read().startswith("<svg")
    /// True
    /// >>> s.plot(path, coordinates=[0, 2], coordinate_names=["x", "y", "spin"])
    /// >>> "spin" in [line.strip() for line in open(path)]  # an axis label
    /// True
    #[pyo3(signature = (path, *, trajectories=None, baselines=None, title=None, max_points=None, coordinates=None, coordinate_names=None))]
    #[allow(clippy::too_many_arguments)]
    fn plot(
        &self,
        py: Python<'_>,
        path: &Bound<'_, PyAny>,
        trajectories: Option<&Bound<'_, PyAny>>,
        baselines: Option<&Bound<'_, PyAny>>,
        title: Option<&Bound<'_, PyAny>>,
        max_points: Option<&Bound<'_, PyAny>>,
        coordinates: Option<&Bound<'_, PyAny>>,
        coordinate_names: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let path = args::path("path", path)?;
        let baselines = some(baselines).map_or(Ok(true), |b| args::flag("baselines", &b))?;
        let title = some(title)
            .map(|t| {
                t.cast::<pyo3::types::PyString>()
                    .map_err(|_| {
                        pyo3::exceptions::PyTypeError::new_err(format!(
                            "title: expected a str, got {}",
                            args::type_name(&t)
                        ))
                    })
                    .and_then(|t| Ok(t.to_str()?.to_string()))
            })
            .transpose()?;
        let trajectories =
            args::optional_count("trajectories", trajectories, 0)?.unwrap_or(impactset::sampling::DEFAULT_TRAJECTORIES);
        let max_points =
            args::optional_count("max_points", max_points, 1)?.unwrap_or(impactset::plot::DEFAULT_MAX_POINTS);
        let problem = self.problem.get();
        let (coordinates, coordinate_names) =
            crate::figure::coordinate_axes(coordinates, coordinate_names, problem.problem().n())?;
        let set = self.rust_set(py)?;
        let title = title.unwrap_or_else(|| problem.spec.name.clone());
        let figure = crate::figure::SetFigureJob {
            problem: problem.problem(),
            options: &self.options,
            set: &set,
            trajectories,
            baselines,
            title,
            max_points,
            coordinates,
            coordinate_names,
        };
        figure.run(py, &path)
    }

    fn __len__(&self) -> usize {
        self.accepted_count
    }

    /// Pickling (``pickle``, ``copy``, Ray): the problem, the run's options
    /// and the arrays; the copy's arrays are read-only too.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, (Bound<'py, PyDict>,))> {
        let rebuild = py.import("impactset._impactset")?.getattr("_sample_set_from_state")?;
        Ok((rebuild, (self.state(py)?,)))
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        let samples = self.accepted.bind(py).len();
        format!(
            "SampleSet('{}', accepted {} of {} samples, {} contact modes)",
            self.problem.get().spec.name,
            self.accepted_count,
            samples,
            self.mode_labels.len()
        )
    }
}

impl SampleSet {
    /// What `SampleSet.__reduce__` pickles: the problem, the run's options and
    /// every array and label, as a dict.
    pub(crate) fn state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("problem", self.problem.clone_ref(py))?;
        let o = &self.options;
        let options = PyDict::new(py);
        options.set_item("samples", o.samples)?;
        options.set_item("first_index", o.first_index)?;
        options.set_item("step_size", o.step_size)?;
        options.set_item("steps", o.steps)?;
        options.set_item("seed", o.seed)?;
        options.set_item("selection", o.selection.name())?;
        options.set_item("schedule", o.schedule.name())?;
        options.set_item("threads", o.threads)?;
        options.set_item("termination_tol", o.termination_tol)?;
        options.set_item("residual_tol", o.residual_tol)?;
        options.set_item("work_tol", o.work_tol)?;
        d.set_item("options", options)?;
        d.set_item("v_plus", self.v_plus.clone_ref(py))?;
        d.set_item("accepted", self.accepted.clone_ref(py))?;
        d.set_item("indices", self.indices.clone_ref(py))?;
        d.set_item("steps", self.steps.clone_ref(py))?;
        d.set_item("energy_ratio", self.energy_ratio.clone_ref(py))?;
        d.set_item("residual", self.residual.clone_ref(py))?;
        d.set_item("energy_guard", self.energy_guard.clone_ref(py))?;
        d.set_item("modes", self.modes.clone_ref(py))?;
        d.set_item("mode_labels", &self.mode_labels)?;
        d.set_item("mode_table", &self.mode_table)?;
        d.set_item("summary", self.summary.bind(py).call_method0("copy")?)?;
        d.set_item("accepted_count", self.accepted_count)?;
        Ok(d)
    }

    /// The library's sample set: the accepted samples' `v⁺` and
    /// placeholders for the rejected ones (what the figure needs).
    fn rust_set(&self, py: Python<'_>) -> PyResult<RustSampleSet> {
        let n = self.problem.get().problem().n();
        let v = self.v_plus.bind(py).readonly();
        let v = v.as_array();
        let accepted = self.accepted.bind(py).readonly();
        let accepted = accepted.as_slice().map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
        let mut row = 0;
        let samples = accepted
            .iter()
            .enumerate()
            .map(|(i, &ok)| {
                let v_plus = if ok {
                    row += 1;
                    v.row(row - 1).to_vec()
                } else {
                    Vec::new()
                };
                impactset::Sample {
                    index: self.options.first_index + i as u64,
                    v_plus,
                    steps: 0,
                    terminated: ok,
                    accepted: ok,
                    max_residual: 0.0,
                    energy_before: 0.0,
                    energy_after: 0.0,
                    fallback_steps: 0,
                    certified_steps: 0,
                    energy_guard: false,
                    lcp_failure: None,
                }
            })
            .collect();
        Ok(RustSampleSet { n, samples })
    }
}
