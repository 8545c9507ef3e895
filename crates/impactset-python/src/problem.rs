//! `impactset.Problem`: an impact problem (`M`, `v⁻`, `Jn`, `Jt`, `μ`)
//! with its sampling defaults, from arrays, a built-in scene or a problem
//! file.

use numpy::ndarray::{Array1, Array2, Array3};
use numpy::{PyArray1, PyArray2, PyArray3};
use pyo3::exceptions::{PyFileNotFoundError, PyOSError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};

use impactset::io::{FileError, ProblemFile, ProblemSpec, load_problem};
use impactset::sampling::MAX_STEPS;
use impactset::{Dimension, ImpactProblem, scene};

use crate::args::{self, float_array, some};
use crate::convert::read_only;
use crate::problem_arrays::{problem_from_arrays, warn_projected, with_bilateral, with_restitution};

/// An impact problem: mass matrix `M` (n, n), pre-impact velocity `v` (n,),
/// contact Jacobians `Jn` (k, n) and `Jt` ((k, n) planar, (k, 2, n) spatial)
/// friction coefficients `mu` (k,) and coefficients of restitution
/// `restitution` (k,), with the sampling defaults of its scene or file
/// (`step_size`, `steps`, `samples`).
///
/// Build one with :meth:`Problem.from_arrays`, :meth:`Problem.scene` or
/// :meth:`Problem.load`. Its parts are read-only float64 ndarrays.
///
/// >>> import numpy as np, impactset
/// >>> p = impactset.Problem.from_arrays(np.eye(2), [0.0, -1.0], [[0.0, 1.0]], [[1.0, 0.0]], [0.5])
/// >>> p.n, p.m, p.dimension, p.names
/// (2, 1, 'planar', ['A'])
/// >>> p.M.flags.writeable
/// False
#[pyclass(module = "impactset", frozen, name = "Problem")]
pub struct Problem {
    pub(crate) spec: ProblemSpec,
    m_array: Py<PyArray2<f64>>,
    v_array: Py<PyArray1<f64>>,
    jn_array: Py<PyArray2<f64>>,
    jt_array: Py<PyAny>,
    mu_array: Py<PyArray1<f64>>,
    restitution_array: Py<PyArray1<f64>>,
    bilateral_array: Py<PyArray2<f64>>,
}

impl Problem {
    /// Wraps a validated problem, building its read-only arrays once.
    pub(crate) fn new(py: Python<'_>, spec: ProblemSpec) -> PyResult<Self> {
        let p = &spec.problem;
        let (n, k) = (p.n(), p.m());
        let mass = Array2::from_shape_fn((n, n), |(i, j)| p.mass()[(i, j)]);
        let v = Array1::from_iter(p.velocity().iter().copied());
        let jn = Array2::from_shape_fn((k, n), |(i, j)| p.contacts()[i].normal[j]);
        let mu = Array1::from_iter(p.contacts().iter().map(|c| c.friction));
        let restitution = Array1::from_iter(p.contacts().iter().map(|c| c.restitution));
        let eq = p.bilateral();
        let bilateral = Array2::from_shape_fn((eq.nrows(), n), |(i, j)| eq[(i, j)]);
        let jt: Py<PyAny> = match p.dimension() {
            Dimension::Planar => {
                let jt = Array2::from_shape_fn((k, n), |(i, j)| p.contacts()[i].tangents[0][j]);
                read_only(PyArray2::from_owned_array(py, jt))?.into_any().unbind()
            }
            Dimension::Spatial => {
                let jt = Array3::from_shape_fn((k, 2, n), |(i, t, j)| p.contacts()[i].tangents[t][j]);
                read_only(PyArray3::from_owned_array(py, jt))?.into_any().unbind()
            }
        };
        Ok(Problem {
            m_array: read_only(PyArray2::from_owned_array(py, mass))?.unbind(),
            v_array: read_only(PyArray1::from_owned_array(py, v))?.unbind(),
            jn_array: read_only(PyArray2::from_owned_array(py, jn))?.unbind(),
            jt_array: jt,
            mu_array: read_only(PyArray1::from_owned_array(py, mu))?.unbind(),
            restitution_array: read_only(PyArray1::from_owned_array(py, restitution))?.unbind(),
            bilateral_array: read_only(PyArray2::from_owned_array(py, bilateral))?.unbind(),
            spec,
        })
    }

    /// The JSON text of the problem's problem file (what `__reduce__`
    /// pickles; `pickling::problem_from_json` reads it back bit for bit).
    pub(crate) fn to_json(&self) -> PyResult<String> {
        serde_json::to_string(&impactset::io::ProblemFile::from_spec(&self.spec))
            .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))
    }

    /// The validated problem.
    pub(crate) fn problem(&self) -> &ImpactProblem {
        &self.spec.problem
    }

    /// The step size `sample` uses by default: the problem's, else
    /// [`impactset::sampling::default_step_size`] (as the command line).
    pub(crate) fn resolved_step_size(&self) -> f64 {
        self.spec.sampler_options().step_size_for(&self.spec.problem)
    }
}

#[pymethods]
impl Problem {
    /// A problem from arrays (any real dtype and memory order; float64
    /// arrays are read in place).
    ///
    /// ``M`` (n, n) symmetric positive definite; ``v`` (n,) the pre-impact
    /// velocity; ``Jn`` (k, n) one normal row per contact; ``Jt`` (k, n) for
    /// planar contacts or (k, 2, n) for spatial ones; ``mu`` (k,) friction
    /// coefficients ≥ 0; ``names`` k contact names (default ``A``, ``B``, …).
    /// Keyword-only: ``bilateral`` (r, n) equality-constraint rows ``J_eq``
    /// that hold through the impact, ``J_eq v = 0`` (default none; a ``v``
    /// that violates them is replaced by its M-orthogonal projection onto
    /// their null space, with a ``UserWarning``; docs/model.md §1),
    /// ``restitution`` (Stronge's energetic coefficient of restitution
    /// ``0 ≤ e ≤ 1``, docs/model.md §4b: a number for every contact or one
    /// per contact (k,); default 0, inelastic),
    /// ``name`` (default ``"problem"``), ``friction_directions``
    /// (spatial only: even, ≥ 4, default 8), and the sampling defaults
    /// ``step_size``, ``steps``, ``samples`` that :func:`impactset.sample`
    /// and problem files use, checked as a problem file's are (``step_size``
    /// within [1e-150, 1e150], ``1 ≤ steps ≤ 10⁶``, ``samples ≥ 1``), so
    /// that every problem can be saved, pickled and read back. Contact
    /// names must be unique (tables name columns after them).
    ///
    /// Raises ``ValueError``/``TypeError`` naming the argument and entry,
    /// e.g. ``Jn: expected shape (2, 7), got (2, 6)``, ``M[0, 0]: entry
    /// 1e200 exceeds 1e150 …``, ``restitution[1]: 1.5 is not a coefficient
    /// of restitution …``.
    ///
    /// >>> import numpy as np, impactset
    /// >>> M = np.diag([1.0, 1.0, 0.2])
    /// >>> p = impactset.Problem.from_arrays(
    /// ...     M, [0.5, -1.0, 0.3],
    /// ...     Jn=[[0, 1, 0.3], [0, 1, -0.4]], Jt=[[1, 0, 0.2], [1, 0, -0.1]],
    /// ...     mu=[0.6, 0.6], names=["left", "right"])
    /// >>> p.Jn.shape, p.Jt.shape, p.names
    /// ((2, 3), (2, 3), ['left', 'right'])
    /// >>> impactset.Problem.from_arrays(M, [0.5, -1.0, 0.3], [[0, 1]], [[1, 0]], [0.6])
    /// Traceback (most recent call last):
    /// ...
    /// ValueError: Jn: expected shape (1, 3), got (1, 2)
    ///
    /// A ball dropped on the floor at 1 m/s that bounces back at half its
    /// landing speed (frictionless, so every sample agrees):
    ///
    /// >>> ball = impactset.Problem.from_arrays(
    /// ...     np.eye(2), [0.0, -1.0], [[0.0, 1.0]], [[1.0, 0.0]], [0.0], restitution=0.5)
    /// >>> ball.restitution
    /// array([0.5])
    /// >>> bool(np.allclose(impactset.sample(ball, 64).v_plus, [0.0, 0.5]))
    /// True
    /// >>> impactset.Problem.from_arrays(M, [0.5, -1.0, 0.3], Jn=[[0, 1, 0.3], [0, 1, -0.4]],
    /// ...     Jt=[[1, 0, 0.2], [1, 0, -0.1]], mu=[0.6, 0.6], restitution=[0.2, 1.5])
    /// Traceback (most recent call last):
    /// ...
    /// ValueError: restitution[1]: 1.5 is not a coefficient of restitution (0 ≤ e ≤ 1: 0 inelastic, 1 elastic)
    #[staticmethod]
    #[allow(non_snake_case)]
    #[pyo3(signature = (M, v, Jn, Jt, mu, names=None, *, bilateral=None, restitution=None, name=None, friction_directions=None, step_size=None, steps=None, samples=None))]
    #[allow(clippy::too_many_arguments)]
    fn from_arrays(
        py: Python<'_>,
        M: &Bound<'_, PyAny>,
        v: &Bound<'_, PyAny>,
        Jn: &Bound<'_, PyAny>,
        Jt: &Bound<'_, PyAny>,
        mu: &Bound<'_, PyAny>,
        names: Option<&Bound<'_, PyAny>>,
        bilateral: Option<&Bound<'_, PyAny>>,
        restitution: Option<&Bound<'_, PyAny>>,
        name: Option<&Bound<'_, PyAny>>,
        friction_directions: Option<&Bound<'_, PyAny>>,
        step_size: Option<&Bound<'_, PyAny>>,
        steps: Option<&Bound<'_, PyAny>>,
        samples: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Self> {
        let mass = float_array("M", M)?;
        let velocity = float_array("v", v)?;
        let jn = float_array("Jn", Jn)?;
        let jt = float_array("Jt", Jt)?;
        let friction = float_array("mu", mu)?;
        let bilateral = bilateral.filter(|b| !b.is_none()).map(|b| float_array("bilateral", b)).transpose()?;
        let problem = problem_from_arrays(&mass, &velocity, &jn, &jt, &friction, names, friction_directions)?;
        let problem = match bilateral {
            Some(rows) => with_bilateral(problem, &rows)?,
            None => problem,
        };
        // Left out (or None), the core's default stands.
        let problem = match some(restitution) {
            Some(e) => with_restitution(problem, "restitution", &e)?,
            None => problem,
        };
        warn_projected(py, &problem)?;
        let name = match name {
            Some(n) if !n.is_none() => n
                .cast::<PyString>()
                .map_err(|_| PyTypeError::new_err(format!("name: expected a str, got {}", args::type_name(n))))?
                .to_str()?
                .to_string(),
            _ => "problem".into(),
        };
        let step_size = match step_size {
            Some(h) if !h.is_none() => Some(args::positive_float("step_size", h)?),
            _ => None,
        };
        let steps = args::optional_count_in("steps", steps, 1, MAX_STEPS)?;
        let samples = args::optional_count("samples", samples, 1)?;
        let spec = ProblemSpec { name, problem, step_size, steps, samples, schedule: None };
        // The problem files' own check, so that every problem built here
        // can be saved, pickled and read back.
        spec.check_defaults().map_err(|(field, why)| PyValueError::new_err(format!("{field}: {why}")))?;
        Problem::new(py, spec)
    }

    /// The built-in scene ``name`` (see :func:`impactset.scenes`), with its
    /// step size, step cap and sample count as defaults, so that
    /// ``sample(Problem.scene(name), n)`` matches ``impactset sample name -n n``.
    ///
    /// >>> import impactset
    /// >>> p = impactset.Problem.scene("rocking-block")
    /// >>> p.n, p.m, p.step_size, p.steps, p.samples
    /// (3, 2, 0.3, 10, 16384)
    #[staticmethod]
    fn scene(py: Python<'_>, name: &Bound<'_, PyAny>) -> PyResult<Self> {
        let id = name
            .cast::<PyString>()
            .map_err(|_| PyTypeError::new_err(format!("name: expected a str, got {}", args::type_name(name))))?
            .to_str()?;
        let scene = scene::builtin(id).ok_or_else(|| {
            PyValueError::new_err(format!("name: no built-in scene '{id}' (scenes: {})", scene::ids().join(", ")))
        })?;
        Problem::new(py, ProblemSpec::from_scene(scene))
    }

    /// Reads a problem file (JSON, or TOML for ``.toml``), as the command
    /// line does. A missing file raises ``FileNotFoundError``; a malformed
    /// one ``ValueError`` naming the file and field.
    #[staticmethod]
    fn load(py: Python<'_>, path: &Bound<'_, PyAny>) -> PyResult<Self> {
        let path = args::path("path", path)?;
        let spec = py.detach(|| load_problem(&path)).map_err(|e| match e {
            FileError::Io { ref source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
                PyFileNotFoundError::new_err(e.to_string())
            }
            FileError::Io { .. } => PyOSError::new_err(e.to_string()),
            other => PyValueError::new_err(other.to_string()),
        })?;
        warn_projected(py, &spec.problem)?;
        Problem::new(py, spec)
    }

    /// Writes the problem and its sampling defaults as a problem file (JSON,
    /// or TOML for ``.toml``) that :meth:`load` and the command line read
    /// back bit for bit. The file is written whole or not at all; a
    /// symbolic link stays a link (the file it points at is written), a
    /// special file such as ``/dev/null`` or a FIFO is written into, never
    /// replaced.
    ///
    /// >>> import impactset, tempfile, os, numpy as np
    /// >>> p = impactset.Problem.scene("compass-gait")
    /// >>> path = os.path.join(tempfile.mkdtemp(), "gait.json")
    /// >>> p.save(path)
    /// >>> q = impactset.Problem.load(path)
    /// >>> np.array_equal(p.M, q.M) and q.name == "compass-gait"
    /// True
    fn save(&self, py: Python<'_>, path: &Bound<'_, PyAny>) -> PyResult<()> {
        let path = args::path("path", path)?;
        let file = ProblemFile::from_spec(&self.spec);
        let toml = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("toml"));
        let text = if toml {
            impactset::io::problem_toml(&file).map_err(|e| PyValueError::new_err(format!("{}: {e}", path.display())))?
        } else {
            let mut text = serde_json::to_string_pretty(&file)
                .map_err(|e| PyValueError::new_err(format!("{}: {e}", path.display())))?;
            text.push('\n');
            text
        };
        py.detach(|| crate::convert::write_atomically(&path, text.as_bytes()))
            .map_err(|e| PyOSError::new_err(format!("{}: {e}", path.display())))
    }

    /// The mass matrix (n, n), read-only.
    #[getter(M)]
    fn mass(&self, py: Python<'_>) -> Py<PyArray2<f64>> {
        self.m_array.clone_ref(py)
    }

    /// The pre-impact velocity (n,), read-only.
    #[getter]
    fn v(&self, py: Python<'_>) -> Py<PyArray1<f64>> {
        self.v_array.clone_ref(py)
    }

    /// The normal Jacobian (k, n), read-only.
    #[getter(Jn)]
    fn jn(&self, py: Python<'_>) -> Py<PyArray2<f64>> {
        self.jn_array.clone_ref(py)
    }

    /// The tangent Jacobian, (k, n) planar or (k, 2, n) spatial, read-only.
    #[getter(Jt)]
    fn jt(&self, py: Python<'_>) -> Py<PyAny> {
        self.jt_array.clone_ref(py)
    }

    /// The friction coefficients (k,), read-only.
    #[getter]
    fn mu(&self, py: Python<'_>) -> Py<PyArray1<f64>> {
        self.mu_array.clone_ref(py)
    }

    /// The coefficients of restitution (k,), read-only: Stronge's energetic
    /// coefficient ``e`` of each contact (docs/model.md §4b), 0 where the
    /// contact is inelastic.
    ///
    /// >>> import impactset
    /// >>> impactset.Problem.scene("rocking-block").restitution
    /// array([0., 0.])
    #[getter]
    fn restitution(&self, py: Python<'_>) -> Py<PyArray1<f64>> {
        self.restitution_array.clone_ref(py)
    }

    /// This problem with new coefficients of restitution ``e``: a number for
    /// every contact or one per contact (k,), each in ``[0, 1]``
    /// (Stronge's energetic coefficient, docs/model.md §4b). Everything else
    /// (the name, the sampling defaults) is kept, so any scene, problem file
    /// or imported model can be made to bounce. Raises ``ValueError`` naming
    /// ``e`` (``e[1]: 1.5 is not a coefficient of restitution …``).
    ///
    /// >>> import impactset
    /// >>> block = impactset.Problem.scene("rocking-block").with_restitution(0.5)
    /// >>> block.restitution, block.name, block.step_size
    /// (array([0.5, 0.5]), 'rocking-block', 0.3)
    /// >>> block.with_restitution([0.0, 0.8]).restitution
    /// array([0. , 0.8])
    fn with_restitution(&self, py: Python<'_>, e: &Bound<'_, PyAny>) -> PyResult<Self> {
        let problem = with_restitution(self.spec.problem.clone(), "e", e)?;
        Problem::new(py, ProblemSpec { problem, ..self.spec.clone() })
    }

    /// The bilateral constraint rows ``J_eq`` (r, n), read-only; shape
    /// (0, n) when there are none.
    ///
    /// >>> import numpy as np, impactset
    /// >>> p = impactset.Problem.from_arrays(
    /// ...     np.eye(2), [-1.0, -1.0], [[1.0, 0.0]], [[0.0, 0.0]], [0.0], bilateral=[[1.0, -1.0]])
    /// >>> p.bilateral
    /// array([[ 1., -1.]])
    /// >>> impactset.Problem.scene("rocking-block").bilateral.shape
    /// (0, 3)
    #[getter]
    fn bilateral(&self, py: Python<'_>) -> Py<PyArray2<f64>> {
        self.bilateral_array.clone_ref(py)
    }

    /// The contact names.
    #[getter]
    fn names(&self) -> Vec<String> {
        self.spec.problem.contacts().iter().map(|c| c.name.clone()).collect()
    }

    /// The problem's name (the scene id, the file's ``name`` or stem).
    #[getter]
    fn name(&self) -> &str {
        &self.spec.name
    }

    /// Number of generalized velocities.
    #[getter]
    fn n(&self) -> usize {
        self.spec.problem.n()
    }

    /// Number of contacts.
    #[getter]
    fn m(&self) -> usize {
        self.spec.problem.m()
    }

    /// ``"planar"`` or ``"spatial"``.
    #[getter]
    fn dimension(&self) -> &'static str {
        match self.spec.problem.dimension() {
            Dimension::Planar => "planar",
            Dimension::Spatial => "spatial",
        }
    }

    /// Friction directions per contact (2 planar; spatial: even, ≥ 4).
    #[getter]
    fn friction_directions(&self) -> usize {
        self.spec.problem.friction_directions()
    }

    /// The impulse step ``h`` of the problem's scene or file, or None.
    #[getter]
    fn step_size(&self) -> Option<f64> {
        self.spec.step_size
    }

    /// The step cap ``K`` of the problem's scene or file, or None.
    #[getter]
    fn steps(&self) -> Option<usize> {
        self.spec.steps
    }

    /// The sample count of the problem's scene or file, or None.
    #[getter]
    fn samples(&self) -> Option<usize> {
        self.spec.samples
    }

    /// The impulse step :func:`impactset.sample` uses when none is given:
    /// :attr:`step_size`, else half the largest single-contact plastic
    /// impulse, with restitution at most the expansion's step size
    /// (``docs/model.md`` §4b).
    #[getter]
    fn default_step_size(&self) -> f64 {
        self.resolved_step_size()
    }

    /// The problem as the dict of a JSON problem file.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let value = serde_json::to_value(ProblemFile::from_spec(&self.spec))
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        crate::convert::json_to_py(py, &value)
    }

    /// Pickling (``pickle``, ``copy``, Ray): the problem file's JSON text,
    /// read back bit for bit.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        let rebuild = py.import("impactset._impactset")?.getattr("_problem_from_json")?;
        Ok((rebuild, (self.to_json()?,)))
    }

    /// ``Problem('name', n=…, m=…, planar)``, with ``restitution=…`` (one
    /// number when every contact has it) when some contact bounces.
    ///
    /// >>> import impactset
    /// >>> impactset.Problem.scene("rocking-block").with_restitution([0.5, 0.25])
    /// Problem('rocking-block', n=3, m=2, planar, restitution=[0.5, 0.25])
    fn __repr__(&self) -> String {
        let p = &self.spec.problem;
        let base = format!("Problem('{}', n={}, m={}, {}", self.spec.name, p.n(), p.m(), self.dimension());
        if !p.has_restitution() {
            return base + ")";
        }
        // As Python writes floats: 0.0, 0.5, 1.0.
        let float = |x: f64| if x.fract() == 0.0 { format!("{x:.1}") } else { format!("{x}") };
        let e: Vec<f64> = p.contacts().iter().map(|c| c.restitution).collect();
        if e.iter().all(|&x| x == e[0]) {
            format!("{base}, restitution={})", float(e[0]))
        } else {
            let e: Vec<String> = e.iter().map(|&x| float(x)).collect();
            format!("{base}, restitution=[{}])", e.join(", "))
        }
    }
}

/// The built-in scenes: a list of dicts with ``id``, ``description``,
/// ``n``, ``m`` and ``dimension``.
///
/// >>> import impactset
/// >>> ids = [s["id"] for s in impactset.scenes()]
/// >>> ids[0], "compass-gait" in ids
/// ('rocking-block', True)
#[pyfunction]
pub fn scenes<'py>(py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for info in scene::catalog() {
        let d = PyDict::new(py);
        d.set_item("id", info.id)?;
        d.set_item("description", info.description)?;
        d.set_item("n", info.n)?;
        d.set_item("m", info.m)?;
        d.set_item("dimension", if info.dimension == Dimension::Planar { "planar" } else { "spatial" })?;
        list.append(d)?;
    }
    Ok(list)
}
