//! The convergence curve: covering radius against sample count, log-log.

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

use super::render::{FAMILY, Figure, PlotError, render};
use crate::analysis::Convergence;

/// How [`plot_convergence`] draws.
#[derive(Clone, Debug, PartialEq)]
pub struct ConvergencePlotOptions {
    /// Scene name for the title (default `"impact"`).
    pub title: String,
    /// Name of the metric for the axis label (default `"energy norm"`).
    pub metric: String,
    /// Pixel size (default 800 × 600).
    pub size: (u32, u32),
}

impl Default for ConvergencePlotOptions {
    fn default() -> Self {
        ConvergencePlotOptions { title: "impact".into(), metric: "energy norm".into(), size: (800, 600) }
    }
}

/// Draws `ε(S_M; R)` against `M` on log-log axes, with the least-squares
/// power law `ε ∝ M^slope` dashed, into `path` (`.svg` or `.png`).
/// Points with `ε = 0` (the prefix already covers the reference) cannot be
/// shown on a log axis and are listed in the legend instead.
pub fn plot_convergence(
    path: &Path,
    convergence: &Convergence,
    options: &ConvergencePlotOptions,
) -> Result<(), PlotError> {
    let points: Vec<(f64, f64)> = convergence
        .points
        .iter()
        .filter(|p| p.epsilon > 0.0 && p.epsilon.is_finite())
        .map(|p| (p.samples as f64, p.epsilon))
        .collect();
    if points.is_empty() {
        return Err(PlotError::Empty("every covering radius is 0 or infinite: no log-log curve".into()));
    }
    let zero = convergence.points.iter().filter(|p| p.epsilon == 0.0).map(|p| p.samples).collect();
    render(path, &ConvergenceFigure { convergence, points, zero, options })
}

struct ConvergenceFigure<'a> {
    convergence: &'a Convergence,
    points: Vec<(f64, f64)>,
    zero: Vec<usize>,
    options: &'a ConvergencePlotOptions,
}

impl ConvergenceFigure<'_> {
    /// The fitted line `ε = exp(b) M^slope` over the drawn points.
    fn fit(&self) -> Option<(f64, f64)> {
        let slope = self.convergence.slope?;
        let k = self.points.len() as f64;
        let b = self.points.iter().map(|(m, e)| e.ln() - slope * m.ln()).sum::<f64>() / k;
        Some((slope, b))
    }
}

fn log_bounds(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| (lo.min(x), hi.max(x)));
    let (lo, hi) = (lo / 1.6, hi * 1.6);
    // A log axis inside one decade gets no labelled tick: stretch it just
    // below the decade's power of ten, which plotters then labels along with
    // its multiples.
    if lo.log10().floor() == hi.log10().floor() { (0.8 * 10f64.powf(lo.log10().floor()), hi) } else { (lo, hi) }
}

impl Figure for ConvergenceFigure<'_> {
    fn size(&self) -> (u32, u32) {
        self.options.size
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String> {
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let (x0, x1) = log_bounds(self.points.iter().map(|p| p.0));
        let (y0, y1) = log_bounds(self.points.iter().map(|p| p.1));
        let title = format!(
            "{}: covering radius vs samples (reference set of {})",
            self.options.title, self.convergence.reference_size
        );
        // Long titles (long scene names) shrink instead of being clipped.
        let caption_size =
            if title.chars().count() <= 64 { 22.0 } else { (22.0 * 64.0 / title.chars().count() as f64).max(12.0) };
        let mut chart = ChartBuilder::on(root)
            .caption(title, (FAMILY, caption_size))
            .margin(16)
            .x_label_area_size(52)
            .y_label_area_size(80)
            .build_cartesian_2d((x0..x1).log_scale(), (y0..y1).log_scale())
            .map_err(|e| e.to_string())?;
        chart
            .configure_mesh()
            .x_desc("samples M")
            .y_desc(format!("covering radius ε ({})", self.options.metric))
            .label_style((FAMILY, 15))
            .axis_desc_style((FAMILY, 17))
            .bold_line_style(RGBColor(220, 220, 220))
            .light_line_style(RGBColor(242, 242, 242))
            .x_label_formatter(&|m| format_count(*m))
            .y_label_formatter(&|e| format_value(*e))
            .draw()
            .map_err(|e| e.to_string())?;
        let blue = RGBColor(31, 119, 180);
        chart
            .draw_series(LineSeries::new(self.points.iter().copied(), blue.stroke_width(2)))
            .map_err(|e| e.to_string())?
            .label("ε(first M samples; reference)")
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 24, y)], blue.stroke_width(2)));
        chart.draw_series(self.points.iter().map(|&p| Circle::new(p, 5, blue.filled()))).map_err(|e| e.to_string())?;
        if let Some((slope, b)) = self.fit() {
            let red = RGBColor(214, 39, 40);
            let line = [x0 * 1.3, x1 / 1.3].map(|m| (m, (b + slope * m.ln()).exp()));
            chart
                .draw_series(DashedLineSeries::new(line, 8, 6, red.stroke_width(2)))
                .map_err(|e| e.to_string())?
                .label(format!("fit: ε ∝ M^{}", format!("{slope:.2}").replace('-', "−")))
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 24, y)], red.stroke_width(2)));
        }
        if !self.zero.is_empty() {
            let list = self.zero.iter().map(|m| format_count(*m as f64)).collect::<Vec<_>>().join(", ");
            chart
                .draw_series(std::iter::empty::<Circle<(f64, f64), i32>>())
                .map_err(|e| e.to_string())?
                .label(format!("ε = 0 at M = {list}"))
                .legend(|(x, y)| Circle::new((x + 12, y), 4, BLACK));
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .label_font((FAMILY, 16))
            .background_style(WHITE.mix(0.9))
            .border_style(RGBColor(160, 160, 160))
            .draw()
            .map_err(|e| e.to_string())
    }
}

/// A tick value with three significant digits, plain between 10⁻³ and 10⁴.
fn format_value(x: f64) -> String {
    if x == 0.0 || (1e-3..1e4).contains(&x.abs()) {
        let digits = (2 - x.abs().log10().floor() as i32).max(0) as usize;
        format!("{x:.digits$}")
    } else {
        format!("{x:.2e}")
    }
}

/// `1024` as `1024`, `1048576` as `2^20`, other large counts in scientific notation.
fn format_count(m: f64) -> String {
    let r = m.round();
    if r >= 1.0 && (r as u64).is_power_of_two() && r >= 4096.0 {
        format!("2^{}", (r as u64).trailing_zeros())
    } else if r < 1e5 {
        format!("{r}")
    } else {
        format!("{r:.1e}")
    }
}

#[cfg(test)]
mod tests {
    use super::{format_count, format_value};

    #[test]
    fn counts_read_well() {
        assert_eq!(format_count(1024.0), "1024");
        assert_eq!(format_count(1048576.0), "2^20");
        assert_eq!(format_count(300.0), "300");
        assert_eq!(format_count(3e6), "3.0e6");
        assert_eq!(format_value(0.0312), "0.0312");
        assert_eq!(format_value(0.5), "0.500");
        assert_eq!(format_value(2e-5), "2.00e-5");
    }

    #[test]
    fn an_axis_inside_one_decade_is_widened_to_it() {
        let (lo, hi) = super::log_bounds([0.2, 0.5].into_iter());
        assert!((lo - 0.08).abs() < 1e-15 && hi == 0.5 * 1.6, "{lo} {hi}");
        let (lo, hi) = super::log_bounds([0.005, 0.05].into_iter());
        assert_eq!((lo, hi), (0.005 / 1.6, 0.05 * 1.6));
    }
}
