//! Regressions from hardening: inputs that hung, panicked, aborted on an
//! allocation or gave wrong answers now give a correct result or an error
//! naming the field; outputs are atomic.

use impactset::io::{ProblemFile, SampleWriter, parse_npy, read_npy};
use impactset::problem::{MAX_STEP_LCP_SIZE, RANGE};
use impactset::run::RunSummary as Summary;
use impactset::sampling::SetTally;
use impactset::{Contact, ImpactProblem, ProblemError, ProblemWarning, SampleSet, SamplerOptions, Selection};
use nalgebra::{DMatrix, DVector, dvector};

fn point(normal_y: f64, v_y: f64) -> Result<ImpactProblem, ProblemError> {
    let c = Contact::planar("A", dvector![0.0, normal_y], dvector![1.0, 0.0], 0.5);
    ImpactProblem::new(DMatrix::identity(2, 2), dvector![0.0, v_y], vec![c])
}

/// `m` unit point masses in the plane, each falling onto its own floor at
/// `v_y = −1` and sliding at `v_x`: independent contacts.
fn independent_masses(m: usize, v_x: f64, friction: f64) -> ImpactProblem {
    let n = 2 * m;
    let contacts = (0..m)
        .map(|i| {
            let mut normal = DVector::zeros(n);
            normal[2 * i + 1] = 1.0;
            let mut tangent = DVector::zeros(n);
            tangent[2 * i] = 1.0;
            Contact::planar(format!("C{i}"), normal, tangent, friction)
        })
        .collect();
    let v = DVector::from_fn(n, |k, _| if k % 2 == 0 { v_x } else { -1.0 });
    ImpactProblem::new(DMatrix::identity(n, n), v, contacts).unwrap()
}

#[test]
fn a_normal_entry_beyond_the_range_is_refused_not_hung() {
    // 1e154 overflowed the Delassus matrix and the enumerator's SVD never returned.
    let e = point(1e154, -1.0).unwrap_err();
    assert_eq!(e.field(), "contacts[0].normal[1]", "{e}");
    assert!(matches!(e, ProblemError::OutOfRange { .. }));
    // So is a normal whose J M⁻¹ Jᵀ leaves the range through the mass matrix.
    let c = Contact::planar("A", dvector![0.0, 1e100], dvector![1.0, 0.0], 0.5);
    let e = ImpactProblem::new(DMatrix::identity(2, 2) * 1e-100, dvector![0.0, -1.0], vec![c]).unwrap_err();
    assert!(e.field().starts_with("mass_matrix") || e.field().starts_with("contacts[0]"), "{e}");
}

#[test]
fn a_velocity_beyond_the_range_is_refused_not_accepted() {
    // 1.3e154 overflowed E(v⁻) and s: every sample was "accepted" after 0 steps.
    let e = point(1.0, -1.3e154).unwrap_err();
    assert_eq!(e.field(), "velocity[1]", "{e}");
    // A tiny velocity whose scale underflows the products is refused too.
    let e = point(1.0, -1e-200).unwrap_err();
    assert_eq!(e.field(), "velocity", "{e}");
}

#[test]
fn large_but_representable_scales_give_the_scaled_result() {
    // The model is homogeneous in v⁻ and h: scaling both scales v⁺.
    let base = point(1.0, -1.0).unwrap();
    for scale in [1e-100, 1e100] {
        let big = point(1.0, -scale).unwrap();
        for selection in Selection::ALL {
            let options =
                SamplerOptions { samples: 64, selection, step_size: Some(0.3), steps: Some(40), ..Default::default() };
            let scaled = SamplerOptions { step_size: Some(0.3 * scale), ..options.clone() };
            let a = impactset::sample_set(&base, &options);
            let b = impactset::sample_set(&big, &scaled);
            assert_eq!(a.accepted_count(), 64);
            assert_eq!(b.accepted_count(), 64);
            for (x, y) in a.samples.iter().zip(&b.samples) {
                assert_eq!(x.steps, y.steps);
                for (p, q) in x.v_plus.iter().zip(&y.v_plus) {
                    assert!((p * scale - q).abs() <= 1e-12 * scale, "{selection:?} {scale}: {p} vs {q}");
                }
            }
        }
    }
}

#[test]
fn sixty_five_contacts_run_under_every_rule() {
    // `assert!(m <= 64)` in the enumerator, built for every rule, panicked.
    // Each mass sticks (μ = 1 ≥ |v_t|/|v_n| = 0.5): v⁺ = 0 whatever the order.
    let problem = independent_masses(65, 0.5, 1.0);
    for selection in Selection::ALL {
        let options = SamplerOptions { samples: 2, selection, steps: Some(40), ..Default::default() };
        let set = impactset::sample_set(&problem, &options);
        assert_eq!(set.accepted_count(), 2, "{selection:?}");
        for s in &set.samples {
            assert!(s.v_plus.iter().all(|x| x.abs() < 1e-9), "{selection:?}: {:?}", s.v_plus);
            if selection == Selection::All {
                assert!(s.fallback_steps > 0, "beyond 64 contacts every `all` step is a Lemke fallback");
            }
        }
    }
}

#[test]
fn friction_direction_counts_are_bounded_before_anything_is_allocated() {
    let c = Contact::spatial("A", dvector![0.0, 0.0, 1.0], [dvector![1.0, 0.0, 0.0], dvector![0.0, 1.0, 0.0]], 1.0);
    let (m, v) = (DMatrix::identity(3, 3), dvector![0.0, 0.0, -1.0]);
    let with = |d| ImpactProblem::with_friction_directions(m.clone(), v.clone(), vec![c.clone()], Some(d));
    assert_eq!(with(62).unwrap().friction_directions(), 62);
    // 64 panicked in the mode table; 100 000 asked for a 320 GB matrix.
    for d in [64, 100_000, usize::MAX - 1] {
        assert!(matches!(with(d), Err(ProblemError::FrictionDirections { .. })), "d = {d}");
    }
    let set = impactset::sample_set(&with(62).unwrap(), &SamplerOptions { samples: 4, ..Default::default() });
    assert_eq!(set.accepted_count(), 4);
}

#[test]
fn a_step_lcp_beyond_the_size_limit_is_refused() {
    let m = MAX_STEP_LCP_SIZE / 5 + 1;
    let n = 2 * m;
    let contacts = (0..m)
        .map(|i| Contact::planar("", DVector::from_fn(n, |k, _| (k == 2 * i + 1) as u8 as f64), DVector::zeros(n), 0.0))
        .collect();
    let e = ImpactProblem::new(DMatrix::identity(n, n), DVector::from_element(n, -1.0), contacts).unwrap_err();
    assert!(matches!(e, ProblemError::TooLarge { .. }), "{e}");
}

#[test]
fn errors_name_the_field_once_and_end_on_the_value() {
    let c = Contact::planar("A", dvector![0.0, 1.0], dvector![1.0, 0.0], f64::NAN);
    let e = ImpactProblem::new(DMatrix::identity(2, 2), dvector![0.0, -1.0], vec![c]).unwrap_err().to_string();
    assert_eq!(e, "contacts[0].friction: NaN is not a finite number");
    let e = ImpactProblem::new(DMatrix::identity(2, 2), dvector![0.0, f64::INFINITY], vec![]).unwrap_err();
    assert_eq!(e.field(), "contacts");
}

#[test]
fn text_after_the_json_object_is_refused() {
    let dir =
        std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("impactset-hardening-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("trailing.json");
    let good = r#"{"mass_matrix": [[1, 0], [0, 1]], "velocity": [0, -1],
        "contacts": [{"normal": [0, 1], "tangent": [1, 0], "friction": 0.5}]}"#;
    std::fs::write(&path, format!("{good}}}garbage")).unwrap();
    let e = impactset::io::load_problem(&path).unwrap_err().to_string();
    assert!(e.contains("trailing.json") && e.contains("after the problem object"), "{e}");
    std::fs::write(&path, format!("{good}\n  \n")).unwrap();
    assert!(impactset::io::load_problem(&path).is_ok());
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn problem_file_steps_and_step_size_are_bounded() {
    let base = r#"{"mass_matrix": [[1, 0], [0, 1]], "velocity": [0, -1],
        "contacts": [{"normal": [0, 1], "tangent": [1, 0], "friction": 0.5}]"#;
    for (extra, field) in [(r#", "steps": 0"#, "steps"), (r#", "step_size": 1e200"#, "step_size")] {
        let file: ProblemFile = serde_json::from_str(&format!("{base}{extra}}}")).unwrap();
        let (f, _) = file.into_spec("x".into()).unwrap_err();
        assert_eq!(f, field);
    }
}

/// A v1.0 NPY file of `header` (the dict) and `data`.
fn npy(header: &str, data: &[u8]) -> Vec<u8> {
    let pad = 63 - (header.len() + 10) % 64;
    let text = format!("{header}{}\n", " ".repeat(pad));
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend((text.len() as u16).to_le_bytes());
    bytes.extend(text.as_bytes());
    bytes.extend(data);
    bytes
}

fn f64_bytes(values: impl IntoIterator<Item = f64>) -> Vec<u8> {
    values.into_iter().flat_map(f64::to_le_bytes).collect()
}

#[test]
fn fortran_order_npy_reads_as_the_same_rows() {
    let rows = vec![vec![1.0, 2.0, 3.0], vec![4.0, 5.0, 6.0]];
    let c = npy("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }", &f64_bytes(rows.concat()));
    let by_column = (0..3).flat_map(|j| rows.iter().map(move |r| r[j]));
    let f = npy("{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }", &f64_bytes(by_column));
    assert_eq!(parse_npy(&c).unwrap(), rows);
    assert_eq!(parse_npy(&f).unwrap(), rows);
    let be: Vec<u8> = rows.concat().iter().flat_map(|x| x.to_be_bytes()).collect();
    assert_eq!(parse_npy(&npy("{'descr': '>f8', 'fortran_order': False, 'shape': (2, 3), }", &be)).unwrap(), rows);
}

#[test]
fn crafted_npy_headers_are_errors_not_aborts() {
    let cases = [
        // 129 bytes claiming 96 GB.
        npy("{'descr': '<f8', 'fortran_order': False, 'shape': (4000000000, 3), }", &[0]),
        // The element count overflows u64 ("capacity overflow").
        npy("{'descr': '<f8', 'fortran_order': False, 'shape': (18446744073709551615, 3), }", &[0; 8]),
        npy("{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", &[]),
        // Rows of no entries, billions of them.
        npy("{'descr': '<f8', 'fortran_order': False, 'shape': (10000000000000, 0), }", &[]),
        npy("{'descr': '<i8', 'fortran_order': False, 'shape': (1, 1), }", &[0; 8]),
        npy("{'descr': '<f8', 'fortran_order': Maybe, 'shape': (1, 1), }", &[0; 8]),
        npy("{'descr': '<f8', 'fortran_order': False, 'shape': (1, 1, 1), }", &[0; 8]),
        npy("{'descr': '<f8', 'fortran_order': False, 'shape': (-1, 1), }", &[0; 8]),
        npy("{'descr': '<f8', 'fortran_order': False, 'shape': (1, 1), }", &[0; 9]),
        npy("{'fortran_order': False, 'shape': (1, 1), }", &[0; 8]),
        b"\x93NUMPY\x01\x00\xff\xff{".to_vec(),
        b"\x93NUMPY\x02\x00\xff\xff\xff\xff{".to_vec(),
        b"\x93NUMPY\x09\x00\x00\x00".to_vec(),
        b"not numpy at all".to_vec(),
        Vec::new(),
    ];
    for (k, bytes) in cases.iter().enumerate() {
        assert!(parse_npy(bytes).is_err(), "case {k}");
    }
    assert_eq!(cases[0].len(), 129);
}

fn sample_set(problem: &ImpactProblem, samples: usize) -> SampleSet {
    impactset::sample_set(problem, &SamplerOptions { samples, ..Default::default() })
}

#[test]
fn written_npy_reads_back_and_an_unfinished_writer_leaves_the_previous_file() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("impactset-hardening-npy-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("set.npy");
    let problem = point(1.0, -1.0).unwrap();
    let set = sample_set(&problem, 20);
    impactset::io::write_npy(&path, &set).unwrap();
    let rows = read_npy(&path).unwrap();
    let expected: Vec<Vec<f64>> = set.accepted().map(|s| s.v_plus.clone()).collect();
    assert_eq!(rows, expected);
    let before = std::fs::read(&path).unwrap();
    for ext in ["npy", "csv"] {
        let target = dir.join(format!("set.{ext}"));
        if ext == "csv" {
            impactset::io::write_csv(&target, &set).unwrap();
        }
        let previous = std::fs::read(&target).unwrap();
        let mut writer = SampleWriter::create(&target, problem.n()).unwrap();
        writer.write(&sample_set(&problem, 5)).unwrap();
        drop(writer); // an error or an interrupt before finish
        assert_eq!(std::fs::read(&target).unwrap(), previous, "{ext}");
    }
    assert_eq!(std::fs::read(&path).unwrap(), before);
    let mut names: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
    names.sort();
    assert_eq!(names, ["set.csv", "set.npy"]);
    std::fs::remove_dir_all(dir).ok();
}

#[test]
fn options_out_of_their_domain_are_errors() {
    let problem = point(1.0, -1.0).unwrap();
    let ok = SamplerOptions::default();
    assert!(ok.validate(&problem).is_ok());
    let cases = [
        (SamplerOptions { steps: Some(0), ..ok.clone() }, "steps"),
        (SamplerOptions { threads: Some(100_000), ..ok.clone() }, "threads"),
        (SamplerOptions { threads: Some(0), ..ok.clone() }, "threads"),
        (SamplerOptions { first_index: u64::MAX - 5, samples: 10, ..ok.clone() }, "first_index"),
        (SamplerOptions { step_size: Some(f64::INFINITY), ..ok.clone() }, "step_size"),
        (SamplerOptions { step_size: Some(RANGE * 10.0), ..ok.clone() }, "step_size"),
        (SamplerOptions { samples: 0, ..ok.clone() }, "samples"),
    ];
    for (options, field) in cases {
        assert_eq!(options.validate(&problem).unwrap_err().field, field);
    }
    assert!(SamplerOptions { first_index: u64::MAX - 10, samples: 10, ..ok }.validate(&problem).is_ok());
}

#[test]
fn suspicious_problems_are_warned_about() {
    let flipped = Contact::planar("A", dvector![0.0, -1.0], dvector![1.0, 0.0], 0.5);
    let p = ImpactProblem::new(DMatrix::identity(2, 2), dvector![0.0, -1.0], vec![flipped]).unwrap();
    assert_eq!(p.warnings(), [ProblemWarning::NothingColliding]);
    let dead = Contact::planar("A", dvector![0.0, 1.0], dvector![0.0, 0.0], 0.5);
    let p = ImpactProblem::new(DMatrix::identity(2, 2), dvector![0.0, -1.0], vec![dead]).unwrap();
    assert!(matches!(p.warnings()[..], [ProblemWarning::DeadTangent { contact: 0, .. }]));
    assert!(point(1.0, -1.0).unwrap().warnings().is_empty());
}

#[test]
fn the_energy_ratio_counts_accepted_samples_only() {
    // K = 1 step of h = 0.1 leaves every sample unterminated and rejected.
    let problem = point(1.0, -1.0).unwrap();
    let set = impactset::sample_set(
        &problem,
        &SamplerOptions { samples: 8, steps: Some(1), step_size: Some(0.1), ..Default::default() },
    );
    assert_eq!(set.accepted_count(), 0);
    let tally: SetTally = set.tally();
    assert_eq!(tally.max_energy_ratio, 0.0);
}

#[test]
fn summaries_write_infinite_residuals_as_strings_and_advise_on_rejections() {
    let summary = Summary {
        problem: "p".into(),
        samples: 100,
        accepted: 10,
        terminated: 12,
        rejected_unterminated: 88,
        rejected_failed: 0,
        lcp_rays: 0,
        lcp_pivot_caps: 0,
        lcp_inaccurate: 0,
        rejected_residual: 2,
        mean_steps: 10.0,
        max_residual: f64::INFINITY,
        fallback_steps: 0,
        certified_steps: 0,
        energy_guards: 0,
        max_energy_ratio: 0.5,
        seed: 0,
        selection: "all".into(),
        schedule: "mixed".into(),
        backend: "cpu".into(),
        backend_reason: String::new(),
        precision: "f64".into(),
        threads: 1,
        elapsed_s: 0.0,
        host_reruns: 0,
        step_size: 0.1,
        steps: 10,
        first_index: 0,
    };
    let json = serde_json::to_value(&summary).unwrap();
    assert_eq!(json["max_residual"], "inf");
    assert_eq!(json["max_energy_ratio"], 0.5);
    // Counts that are 0 on most runs are not written then.
    assert!(json.get("host_reruns").is_none() && json.get("certified_steps").is_none(), "{json}");
    let written = serde_json::to_value(Summary { host_reruns: 3, ..summary.clone() }).unwrap();
    assert_eq!(written["host_reruns"], 3);
    let advice = summary.advice(&|name| format!("--{}", name.replace('_', "-"))).unwrap();
    assert!(advice.contains("88") && advice.contains("--steps"), "{advice}");
    assert!(Summary { accepted: 100, ..summary }.advice(&|name| name.to_string()).is_none());
}

#[test]
fn npy_headers_match_npyz() {
    let mut reference = Vec::new();
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("impactset-hardening-hdr-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let problem = point(1.0, -1.0).unwrap();
    for samples in [1, 9, 10, 1000] {
        let set = sample_set(&problem, samples);
        let path = dir.join(format!("s{samples}.npy"));
        impactset::io::write_npy(&path, &set).unwrap();
        reference.clear();
        let rows = set.accepted_count() as u64;
        {
            use npyz::WriterBuilder;
            let mut w = npyz::WriteOptions::<f64>::new()
                .default_dtype()
                .shape(&[rows, 2])
                .writer(&mut reference)
                .begin_nd()
                .unwrap();
            for x in set.accepted_velocities() {
                w.push(&x).unwrap();
            }
            w.finish().unwrap();
        }
        assert_eq!(std::fs::read(&path).unwrap(), reference, "{samples} samples");
    }
    std::fs::remove_dir_all(dir).ok();
}

/// A measured cube toss landing on four corners (0.37 kg, side 0.1048 m,
/// μ = 0.18): its simultaneous LCP (40 unknowns) is degenerate, and Lemke
/// with covering vector 1 ended off a solution, so the baseline came back
/// empty without a word. It is now computed, and each outcome is a
/// possible one: no corner approaching, energy lost.
#[test]
fn a_degenerate_simultaneous_lcp_is_solved_not_dropped() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/cube-four-corner-landing.json");
    let problem = impactset::io::load_problem(&path).unwrap().problem;
    let sim = impactset::impact::simultaneous(&problem);
    assert_ne!(sim.method, impactset::impact::SolutionMethod::Failed, "{:?}", sim.failure);
    assert!(!sim.outcomes.is_empty());
    let scale = problem.velocity_scale();
    for o in &sim.outcomes {
        assert!(o.normal_velocities.iter().all(|&u| u >= -1e-9 * scale), "{:?}", o.normal_velocities);
        assert!(o.energy < problem.kinetic_energy(problem.velocity()));
    }
    assert!(sim.failure.is_none());
}
