//! `SampleSet.plot`: the set figure of `impactset sample --plot`, drawn off
//! the interpreter into a temporary file renamed into place (copied into a
//! special file such as `/dev/null`; symbolic links are followed).

use std::path::Path;

use pyo3::exceptions::{PyOSError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyString;

use impactset::analysis::baseline_outcomes;
use impactset::plot::{Marker, PlotError, SetPlotOptions, coordinate_panels, plot_post_impact_set};
use impactset::sampling::first_trajectories;
use impactset::{ImpactProblem, SampleSet, SamplerOptions};

use crate::detached;
use impactset::io::PendingFile;

/// The chosen coordinates' indices (`None`: the contact-frame panels) and
/// the coordinates' names (`None`: `v<i>`).
pub(crate) type CoordinateAxes = (Option<Vec<usize>>, Option<Vec<String>>);

/// `SampleSet.plot`'s ``coordinates`` (indices, or names in
/// ``coordinate_names``) as indices into `v` (length `n`), and the names;
/// `ValueError` or `TypeError` naming the argument.
pub(crate) fn coordinate_axes(
    coordinates: Option<&Bound<'_, PyAny>>,
    names: Option<&Bound<'_, PyAny>>,
    n: usize,
) -> PyResult<CoordinateAxes> {
    let names: Option<Vec<String>> = match names.filter(|x| !x.is_none()) {
        None => None,
        Some(x) if x.is_instance_of::<PyString>() => {
            return Err(PyTypeError::new_err("coordinate_names: expected a sequence of str, got str"));
        }
        Some(x) => {
            let names: Vec<String> =
                x.extract().map_err(|_| PyTypeError::new_err("coordinate_names: expected a sequence of str"))?;
            if names.len() != n {
                return Err(PyValueError::new_err(format!(
                    "coordinate_names: {} names for the problem's n = {n} coordinates",
                    names.len()
                )));
            }
            Some(names)
        }
    };
    let Some(coordinates) = coordinates.filter(|x| !x.is_none()) else { return Ok((None, names)) };
    if coordinates.is_instance_of::<PyString>() {
        return Err(PyTypeError::new_err("coordinates: expected a sequence of indices or names, got str"));
    }
    let mut chosen = Vec::new();
    for item in coordinates.try_iter()? {
        let item = item?;
        let index = if let Ok(name) = item.extract::<String>() {
            let Some(list) = &names else {
                return Err(PyValueError::new_err(format!(
                    "coordinates: {name:?} is a name: give coordinate_names (one per coordinate) with it"
                )));
            };
            list.iter().position(|x| *x == name).ok_or_else(|| {
                PyValueError::new_err(format!("coordinates: no coordinate named {name:?} in coordinate_names"))
            })?
        } else {
            let i = crate::args::integer("coordinates", &item, 0, n as i128 - 1)?;
            i as usize
        };
        chosen.push(index);
    }
    if chosen.len() < 2 {
        return Err(PyValueError::new_err(format!(
            "coordinates: {} given; a panel plots one coordinate against another, give at least 2",
            chosen.len()
        )));
    }
    Ok((Some(chosen), names))
}

/// What one figure needs.
pub(crate) struct SetFigureJob<'a> {
    pub problem: &'a ImpactProblem,
    pub options: &'a SamplerOptions,
    pub set: &'a SampleSet,
    pub trajectories: usize,
    pub baselines: bool,
    pub title: String,
    pub max_points: usize,
    /// The chosen coordinates (`None`: the contact-frame panels).
    pub coordinates: Option<Vec<usize>>,
    pub coordinate_names: Option<Vec<String>>,
}

impl SetFigureJob<'_> {
    /// Draws into `path`; on Ctrl-C between the phases (baselines,
    /// trajectories, drawing) nothing is left behind.
    pub(crate) fn run(self, py: Python<'_>, path: &Path) -> PyResult<()> {
        impactset::plot::Format::of(path).map_err(|e| PyValueError::new_err(format!("path: {e}")))?;
        // The core's rule for outputs (impactset::io::PendingFile): a
        // temporary beside the target, renamed over it when complete.
        let pending = PendingFile::new(path);
        pending.check().map_err(|e| PyOSError::new_err(format!("{}: {e}", path.display())))?;
        let tmp = pending.path().to_path_buf();
        let result = detached::run(py, None, |control| -> Result<bool, PlotError> {
            let markers: Vec<Marker> = if self.baselines {
                baseline_outcomes(self.problem).into_iter().map(Marker::from).collect()
            } else {
                Vec::new()
            };
            if control.cancelled() {
                return Ok(false);
            }
            let count = self.trajectories.min(self.set.samples.len());
            let trajectories = first_trajectories(self.problem, self.options, count);
            if control.cancelled() {
                return Ok(false);
            }
            let options = SetPlotOptions {
                title: self.title,
                max_points: self.max_points,
                panels: self.coordinates.as_deref().map(coordinate_panels),
                coordinate_names: self.coordinate_names,
                ..SetPlotOptions::default()
            };
            plot_post_impact_set(&tmp, self.problem, self.set, &trajectories, &markers, &options)?;
            if control.cancelled() {
                return Ok(false);
            }
            Ok(true)
        });
        // An interrupted or failed drawing leaves no temporary: `pending`
        // removes it when dropped uncommitted (a device or FIFO written in
        // place is never removed).
        match result? {
            Ok(true) => pending.commit().map_err(|e| PyOSError::new_err(format!("{}: {e}", path.display()))),
            Ok(false) => Ok(()),
            Err(e) => Err(match e {
                PlotError::Io { .. } | PlotError::Draw { .. } => PyOSError::new_err(e.to_string()),
                other => PyValueError::new_err(other.to_string()),
            }),
        }
    }
}
