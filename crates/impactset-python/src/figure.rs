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

use crate::detached;
use impactset::io::PendingFile;

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
            let options =
                SetPlotOptions { title: self.title, max_points: self.max_points, ..SetPlotOptions::default() };
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
