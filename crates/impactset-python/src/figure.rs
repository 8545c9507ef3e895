//! `SampleSet.plot`: the set figure of `impactset sample --plot`, drawn off
//! the interpreter into a temporary file renamed into place (copied into a
//! special file such as `/dev/null`; symbolic links are followed).

use std::path::Path;

use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;

use impactset::analysis::baseline_outcomes;
use impactset::plot::{Marker, PlotError, SetPlotOptions, plot_post_impact_set};
use impactset::sampling::first_trajectories;
use impactset::{ImpactProblem, SampleSet, SamplerOptions};

use crate::convert::{commit, output_target, temporary_for};
use crate::detached;

/// What one figure needs.
pub(crate) struct SetFigureJob<'a> {
    pub problem: &'a ImpactProblem,
    pub options: &'a SamplerOptions,
    pub set: &'a SampleSet,
    pub trajectories: usize,
    pub baselines: bool,
    pub title: String,
    pub max_points: usize,
}

impl SetFigureJob<'_> {
    /// Draws into `path`; on Ctrl-C between the phases (baselines,
    /// trajectories, drawing) nothing is left behind.
    pub(crate) fn run(self, py: Python<'_>, path: &Path) -> PyResult<()> {
        impactset::plot::Format::of(path).map_err(|e| PyValueError::new_err(format!("path: {e}")))?;
        let target = output_target(path).map_err(|e| PyOSError::new_err(format!("{}: {e}", path.display())))?;
        let tmp = temporary_for(&target, path);
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
            let options =
                SetPlotOptions { title: self.title, max_points: self.max_points, ..SetPlotOptions::default() };
            plot_post_impact_set(&tmp, self.problem, self.set, &trajectories, &markers, &options)?;
            if control.cancelled() {
                let _ = std::fs::remove_file(&tmp);
                return Ok(false);
            }
            commit(&tmp, &target).map_err(|source| PlotError::Io { path: path.to_path_buf(), source })?;
            Ok(true)
        });
        let result = match result {
            Ok(inner) => inner,
            Err(interrupted) => {
                let _ = std::fs::remove_file(&tmp);
                return Err(interrupted);
            }
        };
        match result {
            Ok(_) => Ok(()),
            Err(e) => {
                let _ = std::fs::remove_file(&tmp);
                Err(match e {
                    PlotError::Io { .. } | PlotError::Draw { .. } => PyOSError::new_err(e.to_string()),
                    other => PyValueError::new_err(other.to_string()),
                })
            }
        }
    }
}
