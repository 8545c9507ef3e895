//! The post-impact set projected onto contact-frame velocities.

use std::path::Path;

use plotters::coord::Shift;
use plotters::element::{Drawable, PointCollection};
use plotters::prelude::*;
use plotters_backend::{BackendCoord, DrawingErrorKind};

use super::panels::{Axis, Panel, default_panels, figure_point};
use super::render::{FAMILY, Figure, PlotError, render};
use crate::ImpactProblem;
use crate::analysis::ContactMode;
use crate::analysis::baseline_outcomes;
use crate::analysis::{Metric, ModeClassifier, ModeOptions};
use crate::impact::ImpactOutcome;
use crate::sampling::{SampleSet, Trajectory};

/// A labelled point drawn on top of the set, e.g. a baseline's outcome.
#[derive(Clone, Debug, PartialEq)]
pub struct Marker {
    /// Legend text, e.g. `"simultaneous (Anitescu–Potra)"`.
    pub label: String,
    /// The generalized velocity (length `n`).
    pub v: Vec<f64>,
}

impl From<ImpactOutcome> for Marker {
    fn from(outcome: ImpactOutcome) -> Self {
        Marker { label: outcome.label, v: outcome.v_plus }
    }
}

/// The classic baselines of `problem` (simultaneous, then sequential) as
/// labelled markers, in [`baseline_outcomes`] order.
pub fn baseline_markers(problem: &ImpactProblem) -> Vec<Marker> {
    baseline_outcomes(problem).into_iter().map(Marker::from).collect()
}

/// Outcomes a set figure draws at most, unless told otherwise.
pub const DEFAULT_MAX_POINTS: usize = 20_000;

/// How [`plot_post_impact_set`] draws. Every field has a documented default.
#[derive(Clone, Debug, PartialEq)]
pub struct SetPlotOptions {
    /// Scene name for the title (default `"impact"`).
    pub title: String,
    /// The panels (default `None`: [`default_panels`]).
    pub panels: Option<Vec<Panel>>,
    /// At most this many outcomes are drawn, every `k`-th when there are more
    /// (default [`DEFAULT_MAX_POINTS`]; keeps SVG files small, the legend
    /// says when it thinned).
    pub max_points: usize,
    /// Colour outcomes by joint contact mode (default `true`); otherwise one
    /// colour.
    pub color_by_mode: bool,
    /// Tolerances of the mode classification (default [`ModeOptions::default`]).
    pub mode_options: ModeOptions,
    /// The most frequent joint modes get their own colour, the rest are
    /// grey "other modes" (default 6, at most 8).
    pub max_modes: usize,
    /// Size of one panel in pixels (default 560 × 480).
    pub panel_size: (u32, u32),
    /// Names of the velocity coordinates, labelling the
    /// [`Axis::Coordinate`](super::Axis::Coordinate) axes (default `None`:
    /// `v0`, `v1`, …).
    pub coordinate_names: Option<Vec<String>>,
}

impl Default for SetPlotOptions {
    fn default() -> Self {
        SetPlotOptions {
            title: "impact".into(),
            panels: None,
            max_points: DEFAULT_MAX_POINTS,
            color_by_mode: true,
            mode_options: ModeOptions::default(),
            max_modes: 6,
            panel_size: (560, 480),
            coordinate_names: None,
        }
    }
}

/// Draws the accepted outcomes of `set` projected onto pairs of contact-frame
/// velocities, one panel per [`Panel`], into `path` (`.svg` or `.png`).
///
/// Layers, bottom to top: zero lines; the intermediate velocities of
/// `trajectories` (light lines and dots, from `v⁻` to `v⁺`); the outcomes
/// (coloured by joint contact mode); the pre-impact velocity `v⁻` (black
/// cross); the `markers` (outlined shapes). A legend column on the right
/// names the colours and shapes; the title gives the scene and the number
/// of outcomes.
pub fn plot_post_impact_set(
    path: &Path,
    problem: &ImpactProblem,
    set: &SampleSet,
    trajectories: &[Trajectory],
    markers: &[Marker],
    options: &SetPlotOptions,
) -> Result<(), PlotError> {
    let figure = SetFigure::new(problem, set, trajectories, markers, options)?;
    render(path, &figure)
}

const MODE_COLORS: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(23, 190, 207),
];
const OTHER_COLOR: RGBColor = RGBColor(150, 150, 150);
const TRAJECTORY_LINE: RGBColor = RGBColor(205, 205, 220);
const TRAJECTORY_DOT: RGBColor = RGBColor(170, 170, 195);
const MARKER_FILLS: [RGBColor; 6] = [
    RGBColor(255, 215, 0),
    RGBColor(0, 220, 255),
    RGBColor(255, 0, 255),
    RGBColor(140, 255, 0),
    RGBColor(255, 255, 255),
    RGBColor(255, 90, 90),
];
const LEGEND_WIDTH: u32 = 440;
const TITLE_HEIGHT: u32 = 56;

struct Group {
    label: String,
    color: RGBColor,
    points: Vec<Vec<f64>>,
}

struct SetFigure {
    problem: ImpactProblem,
    title: String,
    panels: Vec<Panel>,
    groups: Vec<Group>,
    paths: Vec<Vec<Vec<f64>>>,
    pre: Vec<f64>,
    markers: Vec<(String, Vec<f64>)>,
    notes: Vec<String>,
    panel_size: (u32, u32),
    coordinate_names: Option<Vec<String>>,
    grid: (usize, usize),
}

impl SetFigure {
    fn new(
        problem: &ImpactProblem,
        set: &SampleSet,
        trajectories: &[Trajectory],
        markers: &[Marker],
        options: &SetPlotOptions,
    ) -> Result<Self, PlotError> {
        let n = problem.n();
        let bad = markers.iter().find(|m| m.v.len() != n);
        if let Some(m) = bad {
            return Err(PlotError::Empty(format!(
                "marker `{}` has {} entries, the problem n = {n}",
                m.label,
                m.v.len()
            )));
        }
        let panels = options.panels.clone().unwrap_or_else(|| default_panels(problem));
        if panels.is_empty() {
            return Err(PlotError::Empty("no panels".into()));
        }
        let outside = panels.iter().flat_map(|p| [p.x, p.y]).find(|a| matches!(a, Axis::Coordinate(i) if *i >= n));
        if let Some(Axis::Coordinate(i)) = outside {
            return Err(PlotError::Empty(format!("coordinate {i}: the problem has n = {n} velocity coordinates")));
        }
        let embed = Metric::Contact.embedding(problem);
        let accepted: Vec<&[f64]> = set.accepted().map(|s| s.v_plus.as_slice()).collect();
        let stride = accepted.len().div_ceil(options.max_points.max(1)).max(1);
        let shown: Vec<&[f64]> = accepted.iter().step_by(stride).copied().collect();

        let mut notes = Vec::new();
        let groups = if options.color_by_mode {
            mode_groups(problem, &accepted, &shown, options, &embed)
        } else {
            let points = shown.iter().map(|v| figure_point(&embed, v)).collect();
            vec![Group { label: "post-impact velocities v⁺".into(), color: MODE_COLORS[0], points }]
        };
        if stride > 1 {
            notes.push(format!("showing every {stride}th of {} outcomes", accepted.len()));
        }
        let rejected = set.samples.len() - accepted.len();
        let mut title = format!("{}: {} post-impact velocities", options.title, accepted.len());
        if rejected > 0 {
            title.push_str(&format!(" ({rejected} of {} samples rejected)", set.samples.len()));
        }
        let pre = figure_point(&embed, problem.velocity().as_slice());
        let paths = trajectories
            .iter()
            .map(|t| std::iter::once(pre.clone()).chain(t.steps.iter().map(|s| figure_point(&embed, &s.v))).collect())
            .collect();
        if !trajectories.is_empty() {
            notes.push(format!("light: intermediate velocities of {} samples", trajectories.len()));
        }
        let cols = match panels.len() {
            1 => 1,
            2 | 4 => 2,
            _ => 3,
        };
        let grid = (panels.len().div_ceil(cols), cols);
        Ok(SetFigure {
            problem: problem.clone(),
            title,
            panels,
            groups,
            paths,
            pre,
            markers: markers.iter().map(|m| (m.label.clone(), figure_point(&embed, &m.v))).collect(),
            notes,
            panel_size: options.panel_size,
            coordinate_names: options.coordinate_names.clone(),
            grid,
        })
    }

    fn range(&self, row: usize) -> (f64, f64) {
        let values = self
            .groups
            .iter()
            .flat_map(|g| g.points.iter())
            .chain(self.paths.iter().flatten())
            .chain(std::iter::once(&self.pre))
            .chain(self.markers.iter().map(|m| &m.1))
            .map(|p| p[row])
            .filter(|x| x.is_finite());
        let (lo, hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| (lo.min(x), hi.max(x)));
        let scale = crate::analysis::contact_speed_scale(&self.problem);
        let span = (hi - lo).max(0.05 * scale);
        let mid = 0.5 * (lo + hi);
        (mid - 0.55 * span, mid + 0.55 * span)
    }

    fn draw_panel<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>, panel: &Panel) -> Result<(), String> {
        let (xr, yr) = (panel.x.row(&self.problem), panel.y.row(&self.problem));
        let (x0, x1) = self.range(xr);
        let (y0, y1) = self.range(yr);
        let mut chart = ChartBuilder::on(area)
            .margin(12)
            .x_label_area_size(48)
            .y_label_area_size(64)
            .build_cartesian_2d(x0..x1, y0..y1)
            .map_err(|e| e.to_string())?;
        chart
            .configure_mesh()
            .x_desc(panel.x.label(&self.problem, self.coordinate_names.as_deref()))
            .y_desc(panel.y.label(&self.problem, self.coordinate_names.as_deref()))
            .label_style((FAMILY, 16))
            .axis_desc_style((FAMILY, 19))
            .bold_line_style(RGBColor(225, 225, 225))
            .light_line_style(RGBColor(244, 244, 244))
            .x_labels(6)
            .y_labels(6)
            .draw()
            .map_err(|e| e.to_string())?;
        let axis = ShapeStyle::from(RGBColor(120, 120, 120)).stroke_width(1);
        if x0 < 0.0 && x1 > 0.0 {
            chart.draw_series(LineSeries::new([(0.0, y0), (0.0, y1)], axis)).map_err(|e| e.to_string())?;
        }
        if y0 < 0.0 && y1 > 0.0 {
            chart.draw_series(LineSeries::new([(x0, 0.0), (x1, 0.0)], axis)).map_err(|e| e.to_string())?;
        }
        let xy = |p: &Vec<f64>| (p[xr], p[yr]);
        for path in &self.paths {
            chart.draw_series(LineSeries::new(path.iter().map(xy), TRAJECTORY_LINE)).map_err(|e| e.to_string())?;
            chart
                .draw_series(path.iter().skip(1).map(|p| Circle::new(xy(p), 2, TRAJECTORY_DOT.filled())))
                .map_err(|e| e.to_string())?;
        }
        for g in &self.groups {
            let style = g.color.mix(0.45).filled();
            chart.draw_series(g.points.iter().map(|p| Circle::new(xy(p), 3, style))).map_err(|e| e.to_string())?;
        }
        chart.draw_series(std::iter::once(pre_impact_glyph(xy(&self.pre)))).map_err(|e| e.to_string())?;
        for (k, (_, v)) in self.markers.iter().enumerate() {
            chart.draw_series(std::iter::once(marker_glyph(xy(v), k))).map_err(|e| e.to_string())?;
        }
        Ok(())
    }

    fn draw_legend<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), String> {
        let font = (FAMILY, 18).into_font();
        let mut y = 20;
        let x = 16;
        let text_x = 44;
        let line = |area: &DrawingArea<DB, Shift>, text: &str, y: &mut i32| -> Result<(), String> {
            for chunk in wrap(text, 36) {
                area.draw(&Text::new(chunk, (text_x, *y - 8), font.clone())).map_err(|e| e.to_string())?;
                *y += 23;
            }
            *y += 6;
            Ok(())
        };
        area.draw(&Text::new("Outcomes", (x, y - 8), (FAMILY, 20).into_font())).map_err(|e| e.to_string())?;
        y += 28;
        for g in &self.groups {
            area.draw(&Circle::new((x + 12, y), 6, g.color.mix(0.8).filled())).map_err(|e| e.to_string())?;
            line(area, &g.label, &mut y)?;
        }
        y += 8;
        if !self.paths.is_empty() {
            area.draw(&PathElement::new(vec![(x, y), (x + 24, y)], TRAJECTORY_LINE.stroke_width(2)))
                .map_err(|e| e.to_string())?;
            area.draw(&Circle::new((x + 12, y), 3, TRAJECTORY_DOT.filled())).map_err(|e| e.to_string())?;
            line(area, "intermediate velocities", &mut y)?;
        }
        area.draw(&pre_impact_glyph((x + 12, y))).map_err(|e| e.to_string())?;
        line(area, "pre-impact velocity v⁻", &mut y)?;
        for (k, (label, _)) in self.markers.iter().enumerate() {
            area.draw(&marker_glyph((x + 12, y), k)).map_err(|e| e.to_string())?;
            line(area, label, &mut y)?;
        }
        y += 10;
        let small = (FAMILY, 15).into_font().color(&RGBColor(90, 90, 90));
        for note in &self.notes {
            for chunk in wrap(note, 44) {
                area.draw(&Text::new(chunk, (x, y - 8), small.clone())).map_err(|e| e.to_string())?;
                y += 20;
            }
        }
        Ok(())
    }
}

impl Figure for SetFigure {
    fn size(&self) -> (u32, u32) {
        let (rows, cols) = self.grid;
        let height = (rows as u32 * self.panel_size.1 + TITLE_HEIGHT).max(480);
        (cols as u32 * self.panel_size.0 + LEGEND_WIDTH, height)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String> {
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let body = root.margin(8, 0, 0, 0).titled(&self.title, (FAMILY, 28)).map_err(|e| e.to_string())?;
        let (width, _) = self.size();
        let (plots, legend) = body.split_horizontally(width - LEGEND_WIDTH);
        for (area, panel) in plots.split_evenly(self.grid).iter().zip(&self.panels) {
            self.draw_panel(area, panel)?;
        }
        self.draw_legend(&legend)
    }
}

/// Splits the outcomes into the `max_modes` most frequent joint modes and
/// "other modes", with legend labels carrying each mode's share of *all*
/// accepted outcomes.
fn mode_groups(
    problem: &ImpactProblem,
    accepted: &[&[f64]],
    shown: &[&[f64]],
    options: &SetPlotOptions,
    embed: &crate::analysis::Embedding,
) -> Vec<Group> {
    let histogram = crate::analysis::ModeHistogram::of(problem, accepted.iter().copied(), &options.mode_options);
    let classifier = ModeClassifier::new(problem, &options.mode_options);
    let keep = options.max_modes.min(MODE_COLORS.len());
    let top: Vec<&Vec<ContactMode>> = histogram.entries.iter().take(keep).map(|e| &e.modes).collect();
    let mut groups: Vec<Group> = histogram
        .entries
        .iter()
        .take(keep)
        .zip(MODE_COLORS)
        .map(|(e, color)| Group { label: format!("{}: {:.1}%", e.label, 100.0 * e.fraction), color, points: vec![] })
        .collect();
    let other_share: f64 = histogram.entries.iter().skip(keep).map(|e| e.fraction).sum();
    let mut other = Group {
        label: format!("{} other modes: {:.1}%", histogram.entries.len().saturating_sub(keep), 100.0 * other_share),
        color: OTHER_COLOR,
        points: vec![],
    };
    for v in shown {
        let modes = classifier.classify(v);
        match top.iter().position(|m| **m == modes) {
            Some(k) => groups[k].points.push(figure_point(embed, v)),
            None => other.points.push(figure_point(embed, v)),
        }
    }
    if histogram.entries.len() > keep {
        groups.push(other);
    }
    // Draw the big groups first so that rare modes stay visible on top.
    groups.reverse();
    groups.sort_by_key(|g| std::cmp::Reverse(g.points.len()));
    groups
}

/// A point drawn as a fixed-size shape in pixels, whatever the coordinates.
struct Glyph<C> {
    at: C,
    shape: Shape,
}

#[derive(Clone, Copy)]
enum Shape {
    /// The pre-impact velocity: a black ×.
    Cross,
    /// Baseline `k`: a filled shape with a black outline.
    Marker(usize),
}

fn pre_impact_glyph<C>(at: C) -> Glyph<C> {
    Glyph { at, shape: Shape::Cross }
}

fn marker_glyph<C>(at: C, k: usize) -> Glyph<C> {
    Glyph { at, shape: Shape::Marker(k) }
}

impl<'a, C: 'a> PointCollection<'a, C> for &'a Glyph<C> {
    type Point = &'a C;
    type IntoIter = std::iter::Once<&'a C>;
    fn point_iter(self) -> Self::IntoIter {
        std::iter::once(&self.at)
    }
}

impl<C, DB: DrawingBackend> Drawable<DB> for Glyph<C> {
    fn draw<I: Iterator<Item = BackendCoord>>(
        &self,
        mut points: I,
        backend: &mut DB,
        _: (u32, u32),
    ) -> Result<(), DrawingErrorKind<DB::ErrorType>> {
        let Some((x, y)) = points.next() else { return Ok(()) };
        match self.shape {
            Shape::Cross => {
                let style = BLACK.stroke_width(3);
                backend.draw_line((x - 7, y - 7), (x + 7, y + 7), &style)?;
                backend.draw_line((x - 7, y + 7), (x + 7, y - 7), &style)
            }
            Shape::Marker(k) => {
                let r = 9.0;
                // Triangle, square, diamond, inverted triangle, pentagon, hexagon.
                let (sides, turn) = [(3, 0.0), (4, 0.25), (4, 0.0), (3, 0.5), (5, 0.0), (6, 0.0)][k % 6];
                let verts: Vec<BackendCoord> = (0..sides)
                    .map(|i| {
                        let a = std::f64::consts::TAU * (i as f64 / sides as f64 + turn / sides as f64);
                        (x + (r * a.sin()).round() as i32, y - (r * a.cos()).round() as i32)
                    })
                    .collect();
                backend.fill_polygon(verts.iter().copied(), &MARKER_FILLS[k % MARKER_FILLS.len()].filled())?;
                let outline: Vec<BackendCoord> = verts.iter().copied().chain(std::iter::once(verts[0])).collect();
                backend.draw_path(outline, &BLACK.stroke_width(2))
            }
        }
    }
}

/// Word-wraps `text` at spaces into lines of at most `width` characters.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut current = String::new();
    for word in text.split(' ') {
        if !current.is_empty() && current.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut current));
        }
        if !current.is_empty() {
            current.push(' ');
        }
        current.push_str(word);
    }
    if !current.is_empty() {
        lines.push(current);
    }
    lines
}
