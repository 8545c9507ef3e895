//! Figures render as SVG (no font needed) and PNG (when a font is found).
//! Set IMPACTSET_FIGURE_DIR to keep the files for a look.

use std::path::PathBuf;

use impactset::analysis::{Metric, convergence};
use impactset::plot::{
    ConvergencePlotOptions, Marker, PlotError, SetPlotOptions, figure_font, plot_convergence, plot_post_impact_set,
};
use impactset::sampling::first_trajectories;
use impactset::{Contact, ImpactProblem, SamplerOptions, sample_set};
use nalgebra::{dmatrix, dvector};

/// The rocking block of docs/scenes.md, built by hand: a 1 × 2 block of mass 1 on
/// both bottom corners, falling at √(2·9.81·0.01).
fn rocking_block() -> ImpactProblem {
    let a = Contact::planar("A", dvector![0.0, 1.0, -0.5], dvector![1.0, 0.0, 1.0], 1.0);
    let b = Contact::planar("B", dvector![0.0, 1.0, 0.5], dvector![1.0, 0.0, 1.0], 1.0);
    let m = dmatrix![1.0, 0.0, 0.0; 0.0, 1.0, 0.0; 0.0, 0.0, 5.0 / 12.0];
    let v0 = (2.0f64 * 9.81 * 0.01).sqrt();
    ImpactProblem::new(m, dvector![0.0, -v0, 0.0], vec![a, b]).unwrap()
}

fn out_dir() -> PathBuf {
    let dir = std::env::var_os("IMPACTSET_FIGURE_DIR").map(PathBuf::from).unwrap_or_else(|| {
        std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("impactset-figures-{}", std::process::id()))
    });
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn post_impact_set_and_convergence_figures_render() {
    let problem = rocking_block();
    let sampler = SamplerOptions { samples: 2048, step_size: Some(0.3), steps: Some(10), ..Default::default() };
    let set = sample_set(&problem, &sampler);
    let trajectories = first_trajectories(&problem, &sampler, 12);
    let markers = vec![
        Marker { label: "simultaneous (Anitescu–Potra)".into(), v: vec![0.0, 0.0, 0.0] },
        Marker { label: "sample 0".into(), v: set.samples[0].v_plus.clone() },
    ];
    let options = SetPlotOptions { title: "rocking-block".into(), ..Default::default() };
    let dir = out_dir();

    let svg = dir.join("rocking-block.svg");
    plot_post_impact_set(&svg, &problem, &set, &trajectories, &markers, &options).unwrap();
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg"));
    assert!(text.contains("A normal velocity [m/s]"));
    assert!(text.contains("rocking-block: 2048 post-impact velocities"));
    assert!(text.contains("simultaneous (Anitescu–Potra)"));

    let embed = Metric::Energy.embedding(&problem);
    let net = embed.points(&set.accepted_velocities());
    let reference_set =
        sample_set(&problem, &SamplerOptions { samples: 8192, first_index: 1 << 20, ..sampler.clone() });
    let reference = embed.points(&reference_set.accepted_velocities());
    let curve = convergence(&net, &reference, 16);
    let conv_svg = dir.join("rocking-block-convergence.svg");
    let conv_options = ConvergencePlotOptions { title: "rocking-block".into(), ..Default::default() };
    plot_convergence(&conv_svg, &curve, &conv_options).unwrap();
    assert!(std::fs::read_to_string(&conv_svg).unwrap().contains("samples M"));

    if figure_font().is_some() {
        plot_post_impact_set(&dir.join("rocking-block.png"), &problem, &set, &trajectories, &markers, &options)
            .unwrap();
        plot_convergence(&dir.join("rocking-block-convergence.png"), &curve, &conv_options).unwrap();
        assert!(std::fs::metadata(dir.join("rocking-block.png")).unwrap().len() > 10_000);
    }
    let bad = plot_post_impact_set(&dir.join("x.pdf"), &problem, &set, &[], &[], &options);
    assert!(matches!(bad, Err(PlotError::UnknownFormat(_))));
}

#[test]
fn spatial_contact_gets_normal_tangent_and_tangent_tangent_panels() {
    let a = Contact::spatial("A", dvector![0.0, 0.0, 1.0], [dvector![1.0, 0.0, 0.0], dvector![0.0, 1.0, 0.0]], 0.5);
    let m = nalgebra::DMatrix::identity(3, 3);
    // Tangential speed 1.3 > μ·1: the point keeps sliding.
    let problem = ImpactProblem::new(m, dvector![1.2, 0.5, -1.0], vec![a]).unwrap();
    assert_eq!(impactset::plot::default_panels(&problem).len(), 2);
    let set = sample_set(&problem, &SamplerOptions { samples: 64, ..Default::default() });
    let svg = out_dir().join("spatial-point.svg");
    let options = SetPlotOptions { title: "spatial-point".into(), ..Default::default() };
    plot_post_impact_set(&svg, &problem, &set, &[], &[], &options).unwrap();
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.contains("A tangent 2 velocity [m/s]"));
    assert!(text.contains("A slides: 100.0%"));
}

/// The circles of one fill colour in an SVG written by plotters: `(cx, cy)`.
fn circles(svg: &str, fill: &str) -> Vec<(f64, f64)> {
    let attr = |tag: &str, name: &str| -> f64 {
        let start = tag.find(&format!(" {name}=\"")).expect("attribute") + name.len() + 3;
        tag[start..].split('"').next().unwrap().parse().unwrap()
    };
    svg.split("<circle")
        .skip(1)
        .map(|rest| &rest[..rest.find('>').unwrap()])
        .filter(|tag| tag.contains(&format!("fill=\"{fill}\"")))
        .map(|tag| (attr(tag, "cx"), attr(tag, "cy")))
        .collect()
}

/// The figure draws the set itself: one dot per accepted outcome, at the
/// outcome's contact velocities (an increasing affine map per axis, x to the
/// right and y upwards, to within the pixel grid).
#[test]
fn the_plotted_points_are_the_sets_contact_velocities() {
    let problem = rocking_block();
    let set = sample_set(&problem, &SamplerOptions { samples: 300, step_size: Some(0.3), ..Default::default() });
    let panel = impactset::plot::default_panels(&problem)[0];
    let options = SetPlotOptions {
        title: "points".into(),
        panels: Some(vec![panel]),
        color_by_mode: false,
        max_points: 100_000,
        ..Default::default()
    };
    let svg = out_dir().join("points.svg");
    plot_post_impact_set(&svg, &problem, &set, &[], &[], &options).unwrap();
    let drawn = circles(&std::fs::read_to_string(&svg).unwrap(), "#1F77B4");
    // The panel is the figure's left part; the legend's sample dot lies to its right.
    let (width, _) = options.panel_size;
    let drawn: Vec<(f64, f64)> = drawn.into_iter().filter(|&(x, _)| x < width as f64).collect();
    let (x_row, y_row) = (panel.x.row(&problem), panel.y.row(&problem));
    let embed = Metric::Contact.embedding(&problem);
    let expected: Vec<(f64, f64)> = set
        .accepted()
        .map(|s| {
            let c = embed.apply(&s.v_plus);
            (c[x_row], c[y_row])
        })
        .collect();
    assert_eq!(drawn.len(), expected.len(), "one dot per accepted outcome");
    // Fit each axis' map on the extreme outcomes, then check every outcome.
    let fit = |values: &[f64], pixels: &[f64]| {
        let (lo, hi) = (
            values.iter().copied().fold(f64::INFINITY, f64::min),
            values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        );
        let (plo, phi) = (
            pixels.iter().copied().fold(f64::INFINITY, f64::min),
            pixels.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        );
        move |v: f64| plo + (v - lo) / (hi - lo) * (phi - plo)
    };
    let (ex, ey): (Vec<f64>, Vec<f64>) = expected.iter().copied().unzip();
    let (dx, dy): (Vec<f64>, Vec<f64>) = drawn.iter().copied().unzip();
    let (fx, fy_up) = (fit(&ex, &dx), fit(&ey, &dy.iter().map(|y| -y).collect::<Vec<_>>()));
    // Every outcome has a dot within the pixel grid, and every dot an
    // outcome: the drawn set is the set (with the count checked above).
    // Matching without removal: outcomes closer than a pixel share dots.
    let expected_px: Vec<(f64, f64)> = expected.iter().map(|&(x, y)| (fx(x), -fy_up(y))).collect();
    let gap = |p: (f64, f64), q: (f64, f64)| (p.0 - q.0).abs().max((p.1 - q.1).abs());
    let nearest = |p: (f64, f64), among: &[(f64, f64)]| among.iter().map(|&q| gap(p, q)).fold(f64::INFINITY, f64::min);
    for (&(x, y), &px) in expected.iter().zip(&expected_px) {
        let d = nearest(px, &drawn);
        assert!(d <= 1.5, "outcome ({x}, {y}) drawn nowhere near ({:.1}, {:.1}): {d:.1} px", px.0, px.1);
    }
    for &dot in &drawn {
        let d = nearest(dot, &expected_px);
        assert!(d <= 1.5, "a dot at ({:.1}, {:.1}) is no outcome: {d:.1} px from the nearest", dot.0, dot.1);
    }
}
