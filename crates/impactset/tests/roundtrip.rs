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
        }],
        friction_directions: None,
        step_size: Some(v(11)),
        steps: Some(10),
        samples: Some(64),
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
    out.into_iter().map(f64::to_bits).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn problem_files_read_back_every_finite_float(values in prop::collection::vec(finite(), 12)) {
        let original = file(&values);
        let json = serde_json::to_string_pretty(&original).unwrap();
        let from_json: ProblemFile = serde_json::from_str(&json).unwrap();
        prop_assert_eq!(bits(&from_json), bits(&original), "JSON: {}", json);
        let toml_text = toml::to_string(&original).unwrap();
        let from_toml: ProblemFile = toml::from_str(&toml_text).unwrap();
        prop_assert_eq!(bits(&from_toml), bits(&original), "TOML: {}", toml_text);
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
                lcp_failure: None,
            })
            .collect();
        let set = SampleSet { n, samples };
        let path = std::env::temp_dir().join(format!("impactset-roundtrip-{}-{rows}.npy", std::process::id()));
        write_npy(&path, &set).unwrap();
        let back = read_npy(&path).unwrap();
        std::fs::remove_file(&path).ok();
        let expected: Vec<Vec<u64>> = set.samples.iter().map(|s| s.v_plus.iter().map(|x| x.to_bits()).collect()).collect();
        let got: Vec<Vec<u64>> = back.iter().map(|r| r.iter().map(|x| x.to_bits()).collect()).collect();
        prop_assert_eq!(got, expected);
    }
}
