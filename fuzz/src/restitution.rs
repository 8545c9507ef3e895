//! Problem files with restitution (docs/model.md §4b): Stronge's
//! coefficient `e` per contact, which must lie in `[0, 1]`.

use impactset::io::ProblemFile;

/// Longest run of digits a message may hold: a coefficient of 1e300 is
/// written `1e300`, not as 301 digits.
const MAX_DIGIT_RUN: usize = 24;

/// A problem file (the first byte picks JSON or TOML, as
/// [`problem_file`](crate::problem_file)): a file is accepted only if every
/// coefficient lies in `[0, 1]`, a refused coefficient is named by its
/// field with the value readable, and an accepted problem samples without
/// gaining energy.
pub fn restitution_file(data: &[u8]) {
    let Some((&kind, text)) = data.split_first() else { return };
    let Ok(text) = std::str::from_utf8(text) else { return };
    let file: Option<ProblemFile> =
        if kind % 2 == 0 { serde_json::from_str(text).ok() } else { toml::from_str(text).ok() };
    let Some(file) = file else { return };
    let coefficients: Vec<f64> = file.contacts.iter().map(|c| c.restitution).collect();
    match file.into_spec("fuzz".into()) {
        Ok(spec) => {
            assert!(coefficients.iter().all(|e| (0.0..=1.0).contains(e)), "{coefficients:?}");
            crate::sample_briefly(&spec.problem, spec.step_size);
        }
        Err((field, message)) => {
            assert!(!field.is_empty() && !message.is_empty());
            if field.ends_with(".restitution") {
                let longest = message.split(|c: char| !c.is_ascii_digit()).map(str::len).max().unwrap_or(0);
                assert!(longest <= MAX_DIGIT_RUN, "{field}: {message}");
                assert!(coefficients.iter().any(|e| !(0.0..=1.0).contains(e)), "{field}: {message}");
            }
        }
    }
}
