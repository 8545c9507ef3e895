//! Figures, SVG or PNG by file extension: the post-impact set projected onto
//! contact-frame velocities or chosen velocity coordinates, and the
//! convergence of the covering radius.
//!
//! SVG needs no font. PNG text needs a TrueType font found at run time
//! (`$IMPACTSET_FONT`, else e.g. Debian's `fonts-dejavu-core`; see
//! [`FONT_CANDIDATES`]); without one, PNG output fails with
//! [`PlotError::NoFont`].

mod convergence_figure;
mod panels;
mod render;
mod set_figure;

pub use convergence_figure::{ConvergencePlotOptions, plot_convergence};
pub use panels::{Axis, Component, ContactAxis, MAX_DEFAULT_PANELS, Panel, coordinate_panels, default_panels};
pub use render::{FONT_CANDIDATES, Format, PlotError, figure_font};
pub use set_figure::{DEFAULT_MAX_POINTS, Marker, SetPlotOptions, baseline_markers, plot_post_impact_set};
