//! Every finite f64 survives a problem file (JSON and TOML) and an NPY
//! output bit for bit, so that a seed and a problem fix every sample however
//! the problem travels.

use impactset::SampleSet;
use impactset::io::{ContactFile, ProblemFile, read_npy, write_npy};
use impactset::sampling::Sample;
use proptest::prelude::*;

/// Any finite f64: normal, subnormal, ±0, the extremes.
fn finite() -> impl Strategy<Value = f64> {
    prop_oneof![
        any::<f64>().prop_filter("finite", |x| x.is_finite()),
        (any::<u64>()).prop_map(f64::from_bits).prop_filter("finite", |x| x.is_finite()),
        Just(f64::MIN_POSITIVE),
        Just(f64::MAX),
        Just(-0.0),
        Just(5e-324),
    ]
}

fn file(values: &[f64]) -> ProblemFile {
    let v = |k: usize| values[k % values.len()];
    ProblemFile {
        name: Some("roundtrip".into()),
        mass_matrix: vec![vec![v(0), v(1)], vec![v(2), v(3)]],
        velocity: vec![v(4), v(5)],
        contacts: vec![ContactFile {
            name: Some("A".into()),
            normal: vec![v(6), v(7)],
            tangent: Some(vec![v(8), v(9)]),
            tangents: None,
            friction: v(10),
            restitution: 0.25,
        }],
        friction_directions: None,
        bilateral: Some(vec![vec![v(12), v(13)], vec![v(14), v(15)]]),
        step_size: Some(v(11)),
        steps: Some(10),
        samples: Some(64),
        schedule: Some(impactset::Schedule::Held),
    }
}

/// Bitwise equality of every float of two problem files (`-0.0 ≠ 0.0`).
fn bits(file: &ProblemFile) -> Vec<u64> {
    let mut out: Vec<f64> = file.mass_matrix.concat();
    out.extend(&file.velocity);
    for c in &file.contacts {
        out.extend(&c.normal);
        out.extend(c.tangent.iter().flatten());
        out.push(c.friction);
    }
    out.extend(file.step_size);
    out.extend(file.bilateral.iter().flatten().flatten());
    out.into_iter().map(f64::to_bits).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn problem_files_read_back_every_finite_float(values in prop::collection::vec(finite(), 16)) {
        let original = file(&values);
        let json = serde_json::to_string_pretty(&original).unwrap();
        let from_json: ProblemFile = serde_json::from_str(&json).unwrap();
        prop_assert_eq!(bits(&from_json), bits(&original), "JSON: {}", json);
        let toml_text = toml::to_string(&original).unwrap();
        let from_toml: ProblemFile = toml::from_str(&toml_text).unwrap();
        prop_assert_eq!(bits(&from_toml), bits(&original), "TOML: {}", toml_text);
    }

    /// A constrained problem whose `v⁻` was projected onto `null(J_eq)` is
    /// saved with the projected `v⁻`, which loads back unprojected: the
    /// problem survives export and load bit for bit.
    #[test]
    fn constrained_problems_survive_export_and_load(
        l in prop::collection::vec(-1.0f64..1.0, 6),
        v in prop::collection::vec(-2.0f64..2.0, 3),
        row in prop::collection::vec(-1.0f64..1.0, 3),
        normal in prop::collection::vec(-1.0f64..1.0, 3),
    ) {
        // M = L Lᵀ + I, symmetric positive definite.
        let lower = [[l[0], 0.0, 0.0], [l[1], l[2], 0.0], [l[3], l[4], l[5]]];
        let mass: Vec<Vec<f64>> = (0..3)
            .map(|i| (0..3).map(|j| (0..3).map(|k| lower[i][k] * lower[j][k]).sum::<f64>() + f64::from(u8::from(i == j))).collect())
            .collect();
        let mass: Vec<Vec<f64>> = (0..3).map(|i| (0..3).map(|j| if j < i { mass[j][i] } else { mass[i][j] }).collect()).collect();
        let original = ProblemFile {
            name: Some("constrained".into()),
            mass_matrix: mass,
            velocity: v,
            contacts: vec![ContactFile { name: None, normal, tangent: Some(vec![0.0, 0.0, 1.0]), tangents: None, friction: 0.5, restitution: 0.0 }],
            friction_directions: None,
            bilateral: Some(vec![row]),
            step_size: None,
            steps: None,
            samples: None,
            schedule: None,
        };
        let Ok(spec) = original.into_spec("x".into()) else { return Ok(()) };
        let saved = ProblemFile::from_spec(&spec);
        let json = serde_json::to_string(&saved).unwrap();
        let again = serde_json::from_str::<ProblemFile>(&json).unwrap().into_spec("x".into()).unwrap();
        prop_assert_eq!(bits(&ProblemFile::from_spec(&again)), bits(&saved));
        let projected_again =
            again.problem.warnings().iter().any(|w| matches!(w, impactset::ProblemWarning::ProjectedVelocity { .. }));
        prop_assert!(!projected_again, "projected again");
        prop_assert_eq!(&again.problem.operators().delassus, &spec.problem.operators().delassus);
    }

    #[test]
    fn npy_outputs_read_back_every_finite_float(values in prop::collection::vec(finite(), 1..40)) {
        let n = 2;
        let rows = values.len() / n;
        let samples = (0..rows)
            .map(|i| Sample {
                index: i as u64,
                v_plus: values[i * n..(i + 1) * n].to_vec(),
                steps: 1,
                terminated: true,
                accepted: true,
                max_residual: 0.0,
                energy_before: 1.0,
                energy_after: 0.5,
                fallback_steps: 0,
                certified_steps: 0,
                energy_guard: false,
                lcp_failure: None,
            })
            .collect();
        let set = SampleSet { n, samples };
        let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("impactset-roundtrip-{}-{rows}.npy", std::process::id()));
        write_npy(&path, &set).unwrap();
        let back = read_npy(&path).unwrap();
        std::fs::remove_file(&path).ok();
        let expected: Vec<Vec<u64>> = set.samples.iter().map(|s| s.v_plus.iter().map(|x| x.to_bits()).collect()).collect();
        let got: Vec<Vec<u64>> = back.iter().map(|r| r.iter().map(|x| x.to_bits()).collect()).collect();
        prop_assert_eq!(got, expected);
    }
}
