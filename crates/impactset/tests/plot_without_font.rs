//! SVG figures need no font; PNG ones fail clearly without one.
//! (Its own test binary: the font is looked up once per process.)

use impactset::plot::{PlotError, SetPlotOptions, figure_font, plot_post_impact_set};
use impactset::{Contact, ImpactProblem, SamplerOptions, sample_set};
use nalgebra::{dmatrix, dvector};

#[test]
fn svg_renders_and_png_reports_the_missing_font() {
    // SAFETY: the only test in this binary, run before any other thread reads the environment.
    unsafe { std::env::set_var("IMPACTSET_FONT", "none") };
    assert!(figure_font().is_none());
    let a = Contact::planar("A", dvector![0.0, 1.0], dvector![1.0, 0.0], 0.2);
    let problem = ImpactProblem::new(dmatrix![1.0, 0.0; 0.0, 1.0], dvector![1.0, -1.0], vec![a]).unwrap();
    let set = sample_set(&problem, &SamplerOptions { samples: 16, ..Default::default() });
    let dir =
        std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("impactset-nofont-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let options = SetPlotOptions { title: "floor".into(), ..Default::default() };
    plot_post_impact_set(&dir.join("floor.svg"), &problem, &set, &[], &[], &options).unwrap();
    let svg = std::fs::read_to_string(dir.join("floor.svg")).unwrap();
    assert!(svg.contains("A tangent velocity [m/s]") && svg.contains("A slides +t: 100.0%"));
    let png = plot_post_impact_set(&dir.join("floor.png"), &problem, &set, &[], &[], &options);
    assert!(matches!(png, Err(PlotError::NoFont { .. })), "{png:?}");
    std::fs::remove_dir_all(dir).ok();
}
