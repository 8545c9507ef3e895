//! Problem files: an [`ImpactProblem`] with its sampling defaults as JSON or TOML.
//!
//! ```json
//! {"name": "my-heel-toe",
//!  "mass_matrix": [[1, 0], [0, 1]], "velocity": [0, -1],
//!  "contacts": [{"name": "A", "normal": [0, 1], "tangent": [1, 0], "friction": 1.0}],
//!  "step_size": 0.3, "steps": 10, "samples": 4096}
//! ```
//!
//! Spatial contacts give `"tangents": [[...], [...]]` instead of `"tangent"`,
//! and the problem may set `"friction_directions"` (even, ≥ 4; default 8).
//! A contact may set `"restitution"` (Stronge's energetic coefficient,
//! `0 ≤ e ≤ 1`, default 0: inelastic; docs/model.md §4b).
//! `"bilateral": [[...], ...]` (optional) lists equality-constraint rows
//! `J_eq` (each of length n) that hold through the impact, `J_eq v = 0`
//! (docs/model.md §1, "Bilateral constraints").
//! `name` (default: the file stem), contact `name`s (default `A`, `B`, …),
//! `step_size`, `steps`, `samples` and `schedule` (the law of the caps,
//! docs/model.md §5c) are optional.

use std::path::{Path, PathBuf};

use nalgebra::{DMatrix, DVector};
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::problem::{Contact, Dimension, ImpactProblem, RANGE, default_contact_name};
use crate::sampling::{MAX_STEPS, SamplerOptions, Schedule};

/// A problem with the sampling defaults a file or scene gives it.
#[derive(Clone, Debug)]
pub struct ProblemSpec {
    /// Name used in outputs.
    pub name: String,
    /// The validated problem.
    pub problem: ImpactProblem,
    /// Impulse step `h`, if given.
    pub step_size: Option<f64>,
    /// Step cap `K`, if given.
    pub steps: Option<usize>,
    /// Sample count, if given.
    pub samples: Option<usize>,
    /// The law of the caps, if given (docs/model.md §5c).
    pub schedule: Option<Schedule>,
}

impl ProblemSpec {
    /// A built-in scene with its own step size, step cap and sample count.
    pub fn from_scene(scene: crate::scene::Scene) -> Self {
        ProblemSpec {
            name: scene.id.to_string(),
            problem: scene.problem,
            step_size: Some(scene.step_size),
            steps: Some(scene.steps),
            samples: Some(scene.samples),
            schedule: None,
        }
    }

    /// Whether this is a built-in scene, unchanged, run under `options`
    /// with its own documented step size and step cap: then its documented
    /// acceptance (compass gait's `K = 5` keeps about 99 %, docs/scenes.md)
    /// is what a run gets, and front ends say so instead of advising to
    /// change `K` or `h` ([`crate::run::RunSummary::advice`]).
    pub fn runs_as_documented(&self, options: &SamplerOptions) -> bool {
        let Some(scene) = crate::scene::builtin(&self.name) else { return false };
        let own = ProblemSpec::from_scene(scene);
        // The problems themselves, whatever sample count each asks for.
        let file = |s: &ProblemSpec| ProblemFile { samples: None, schedule: None, ..ProblemFile::from_spec(s) };
        options.step_size == own.step_size && options.steps == own.steps && file(self) == file(&own)
    }

    /// Checks the sampling defaults, as every way of building a spec must
    /// (problem files, the Python package's arrays and importers), so that
    /// the spec can be written and read back: `h` finite within
    /// `[1/RANGE, RANGE]` ([`RANGE`]), `1 ≤ K ≤` [`MAX_STEPS`],
    /// `samples ≥ 1`. An error names the field (`step_size`, `steps`,
    /// `samples`) and says why.
    pub fn check_defaults(&self) -> Result<(), (String, String)> {
        check_defaults(self.step_size, self.steps, self.samples)
    }

    /// The sampler options this problem asks for: its sample count (else
    /// [`DEFAULT_SAMPLES`](crate::sampling::DEFAULT_SAMPLES)), step cap `K`
    /// (else unset: the pilot's, resolved when a run starts), impulse step `h` (else
    /// [`default_step_size`](crate::sampling::default_step_size)) and schedule (else
    /// [`Schedule::Mixed`]), every other field at its default. Callers
    /// override what the user sets.
    pub fn sampler_options(&self) -> SamplerOptions {
        let defaults = SamplerOptions::default();
        SamplerOptions {
            samples: self.samples.unwrap_or(defaults.samples),
            steps: self.steps.or(defaults.steps),
            step_size: Some(self.step_size.unwrap_or_else(|| crate::sampling::default_step_size(&self.problem))),
            schedule: self.schedule.unwrap_or(defaults.schedule),
            ..defaults
        }
    }
}

/// The domain of a problem's sampling defaults (see
/// [`ProblemSpec::check_defaults`]).
fn check_defaults(
    step_size: Option<f64>,
    steps: Option<usize>,
    samples: Option<usize>,
) -> Result<(), (String, String)> {
    if let Some(h) = step_size
        && !(h.is_finite() && h > 0.0)
    {
        return Err(("step_size".into(), format!("{} is not a positive number", crate::number::readable(h))));
    }
    if let Some(h) = step_size
        && !(1.0 / RANGE..=RANGE).contains(&h)
    {
        return Err((
            "step_size".into(),
            format!("{h:e} is outside [{:e}, {RANGE:e}]; rescale the units", 1.0 / RANGE),
        ));
    }
    if let Some(k) = steps
        && !(1..=MAX_STEPS).contains(&k)
    {
        return Err(("steps".into(), format!("{k} is outside 1 … {MAX_STEPS}")));
    }
    if samples == Some(0) {
        return Err(("samples".into(), "must be at least 1".into()));
    }
    Ok(())
}

/// The serialized form of a problem file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProblemFile {
    /// Name used in outputs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `M`, as rows.
    pub mass_matrix: Vec<Vec<f64>>,
    /// `v⁻`.
    pub velocity: Vec<f64>,
    /// The contacts.
    pub contacts: Vec<ContactFile>,
    /// Friction directions per spatial contact.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub friction_directions: Option<usize>,
    /// Bilateral constraint rows `J_eq`, as rows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bilateral: Option<Vec<Vec<f64>>>,
    /// Impulse step `h`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step_size: Option<f64>,
    /// Step cap `K`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steps: Option<usize>,
    /// Sample count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub samples: Option<usize>,
    /// The law of the caps (`"mixed"`, `"uniform"`, …; docs/model.md §5c).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule: Option<Schedule>,
}

/// One contact of a problem file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContactFile {
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Row of `Jn`.
    pub normal: Vec<f64>,
    /// Row of `Jt` (planar).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tangent: Option<Vec<f64>>,
    /// Rows of `Jt` (spatial).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tangents: Option<Vec<Vec<f64>>>,
    /// Friction coefficient `μ`.
    pub friction: f64,
    /// Energetic coefficient of restitution `e ∈ [0, 1]` (default 0,
    /// inelastic; docs/model.md §4b).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub restitution: f64,
}

fn is_zero(x: &f64) -> bool {
    *x == 0.0
}

/// Why a problem file could not be read.
#[derive(Debug, Error)]
pub enum FileError {
    /// The file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The file is not valid JSON/TOML or does not match the schema.
    #[error("{path}: {message}")]
    Syntax {
        /// The file.
        path: PathBuf,
        /// What is wrong, with the field path.
        message: String,
    },
    /// The values are not a valid impact problem.
    #[error("{path}: {field}: {message}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// The offending field.
        field: String,
        /// What is wrong.
        message: String,
    },
}

/// Reads a problem file (`.toml` as TOML, anything else as JSON).
pub fn load_problem(path: &Path) -> Result<ProblemSpec, FileError> {
    let text = std::fs::read_to_string(path).map_err(|source| FileError::Io { path: path.to_owned(), source })?;
    let syntax = |message: String| FileError::Syntax { path: path.to_owned(), message };
    let file: ProblemFile = if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("toml")) {
        let de = toml::Deserializer::parse(&text).map_err(|e| syntax(one_line(&e.to_string())))?;
        serde_path_to_error::deserialize(de).map_err(|e| syntax(describe(e.path(), &toml_message(e.inner(), &text))))?
    } else {
        let mut de = serde_json::Deserializer::from_str(&text);
        let file = serde_path_to_error::deserialize(&mut de)
            .map_err(|e| syntax(describe(e.path(), &json_message(e.inner()))))?;
        // Only whitespace may follow the object.
        de.end().map_err(|e| syntax(format!("text after the problem object ({e})")))?;
        file
    };
    let default_name = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    file.into_spec(default_name).map_err(|(field, message)| FileError::Invalid {
        path: path.to_owned(),
        field,
        message,
    })
}

/// A JSON error with its place as `(line L, column C)` after the message
/// rather than run into it.
fn json_message(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let place = format!(" at line {} column {}", e.line(), e.column());
    match text.strip_suffix(&place) {
        Some(message) if e.line() > 0 => format!("{message} (line {}, column {})", e.line(), e.column()),
        _ => text,
    }
}

/// A TOML error as [`json_message`] writes a JSON one: the message, then
/// `(line L, column C)`, without the quoted excerpt.
fn toml_message(e: &toml::de::Error, text: &str) -> String {
    match e.span() {
        Some(span) if span.start <= text.len() && text.is_char_boundary(span.start) => {
            let before = &text[..span.start];
            let line_start = before.rfind('\n').map_or(0, |i| i + 1);
            let (line, column) = (before.matches('\n').count() + 1, before[line_start..].chars().count() + 1);
            format!("{} (line {line}, column {column})", e.message().trim())
        }
        _ => e.to_string(),
    }
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn describe(path: &serde_path_to_error::Path, message: &str) -> String {
    let field = path.to_string();
    if field == "." || field.is_empty() { one_line(message) } else { format!("{field}: {}", one_line(message)) }
}

impl ProblemFile {
    /// Validates the file's values into a [`ProblemSpec`]; an error names the field.
    pub fn into_spec(self, default_name: String) -> Result<ProblemSpec, (String, String)> {
        let n = self.velocity.len();
        for (i, row) in self.mass_matrix.iter().enumerate() {
            if row.len() != n {
                return Err((
                    format!("mass_matrix[{i}]"),
                    format!("has {} entries, expected {n} (the length of velocity)", row.len()),
                ));
            }
        }
        let rows = self.mass_matrix.len();
        let mass = DMatrix::from_fn(rows, n, |i, j| self.mass_matrix[i][j]);
        let mut contacts = Vec::with_capacity(self.contacts.len());
        for (i, c) in self.contacts.into_iter().enumerate() {
            let tangents = match (c.tangent, c.tangents) {
                (Some(t), None) => vec![t],
                (None, Some(ts)) if ts.len() == 2 => ts,
                (None, Some(ts)) => {
                    return Err((format!("contacts[{i}].tangents"), format!("has {} rows, expected 2", ts.len())));
                }
                (Some(_), Some(_)) => {
                    return Err((
                        format!("contacts[{i}]"),
                        "give either tangent (planar) or tangents (spatial)".into(),
                    ));
                }
                (None, None) => {
                    return Err((format!("contacts[{i}]"), "missing tangent (planar) or tangents (spatial)".into()));
                }
            };
            contacts.push(Contact {
                name: c.name.unwrap_or_else(|| default_contact_name(i)),
                normal: DVector::from_vec(c.normal),
                tangents: tangents.into_iter().map(DVector::from_vec).collect(),
                friction: c.friction,
                restitution: c.restitution,
            });
        }
        check_defaults(self.step_size, self.steps, self.samples)?;
        let bilateral = self.bilateral.unwrap_or_default();
        for (k, row) in bilateral.iter().enumerate() {
            if row.len() != n {
                return Err((
                    format!("bilateral[{k}]"),
                    format!("has {} entries, expected {n} (the length of velocity)", row.len()),
                ));
            }
        }
        let bilateral = DMatrix::from_fn(bilateral.len(), n, |k, j| bilateral[k][j]);
        let problem = ImpactProblem::with_friction_directions(
            mass,
            DVector::from_vec(self.velocity),
            contacts,
            self.friction_directions,
        )
        .and_then(|p| p.with_bilateral(bilateral))
        .map_err(|e| (e.field(), e.detail()))?;
        Ok(ProblemSpec {
            name: self.name.unwrap_or(default_name),
            problem,
            step_size: self.step_size,
            steps: self.steps,
            samples: self.samples,
            schedule: self.schedule,
        })
    }

    /// The file form of a problem and its defaults (for `impactset export`).
    pub fn from_spec(spec: &ProblemSpec) -> Self {
        let p = &spec.problem;
        let spatial = p.dimension() == Dimension::Spatial;
        ProblemFile {
            name: Some(spec.name.clone()),
            mass_matrix: p.mass().row_iter().map(|r| r.iter().copied().collect()).collect(),
            velocity: p.velocity().as_slice().to_vec(),
            contacts: p
                .contacts()
                .iter()
                .map(|c| ContactFile {
                    name: Some(c.name.clone()),
                    normal: c.normal.as_slice().to_vec(),
                    tangent: (!spatial).then(|| c.tangents[0].as_slice().to_vec()),
                    tangents: spatial.then(|| c.tangents.iter().map(|t| t.as_slice().to_vec()).collect()),
                    friction: c.friction,
                    restitution: c.restitution,
                })
                .collect(),
            friction_directions: spatial.then_some(p.friction_directions()),
            bilateral: (p.bilateral().nrows() > 0)
                .then(|| p.bilateral().row_iter().map(|r| r.iter().copied().collect()).collect()),
            step_size: spec.step_size,
            steps: spec.steps,
            samples: spec.samples,
            schedule: spec.schedule,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(name: &str, text: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("impactset-io-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    const POINT: &str = r#"{"mass_matrix": [[1, 0], [0, 1]], "velocity": [0, -1],
        "contacts": [{"normal": [0, 1], "tangent": [1, 0], "friction": 0.5}], "step_size": 0.3}"#;

    #[test]
    fn reads_json_and_round_trips_through_toml() {
        let spec = load_problem(&write("point.json", POINT)).unwrap();
        assert_eq!(spec.name, "point");
        assert_eq!(spec.problem.contacts()[0].name, "A");
        assert_eq!(spec.step_size, Some(0.3));
        let file = ProblemFile::from_spec(&spec);
        let toml_text = toml::to_string(&file).unwrap();
        let again = load_problem(&write("again.toml", &toml_text)).unwrap();
        assert_eq!(again.problem.mass(), spec.problem.mass());
        assert_eq!(again.problem.contacts(), spec.problem.contacts());
    }

    const ROD: &str = r#"{"mass_matrix": [[1, 0], [0, 1]], "velocity": [-1, -1],
        "contacts": [{"normal": [1, 0], "tangent": [0, 0], "friction": 0}], "bilateral": [[1, -1]]}"#;

    #[test]
    fn bilateral_rows_round_trip_and_bad_ones_are_named() {
        let spec = load_problem(&write("rod.json", ROD)).unwrap();
        assert_eq!(spec.problem.bilateral().as_slice(), &[1.0, -1.0]);
        let file = ProblemFile::from_spec(&spec);
        assert_eq!(file.bilateral, Some(vec![vec![1.0, -1.0]]));
        let again = load_problem(&write("rod.toml", &toml::to_string(&file).unwrap())).unwrap();
        assert_eq!(again.problem.bilateral(), spec.problem.bilateral());
        let cases = [
            (ROD.replace("[[1, -1]]", "[[1, -1], [1, 0, 0]]"), "bilateral[1]: has 3 entries, expected 2"),
            (ROD.replace("[[1, -1]]", "[[1, -1], \"x\"]"), "bilateral[1]: invalid type: string \"x\""),
            (ROD.replace("[[1, -1]]", "3"), "bilateral: invalid type: integer `3`, expected a sequence"),
            (ROD.replace("[[1, -1]]", "[[1, -1], [1, 1]]"), "bilateral: the constraint rows have rank 2"),
        ];
        for (k, (text, expected)) in cases.iter().enumerate() {
            let path = write(&format!("bad-bilateral-{k}.json"), text);
            let e = load_problem(&path).unwrap_err().to_string();
            assert!(e.starts_with(&format!("{}: {expected}", path.display())), "{e}");
        }
        let toml_nan = "mass_matrix = [[1.0, 0.0], [0.0, 1.0]]\nvelocity = [-1.0, -1.0]\nbilateral = [[1.0, nan]]\n\
                        [[contacts]]\nnormal = [1.0, 0.0]\ntangent = [0.0, 0.0]\nfriction = 0.0\n";
        let e = load_problem(&write("nan.toml", toml_nan)).unwrap_err().to_string();
        assert!(e.contains("bilateral[0][1]: NaN is not a finite number"), "{e}");
    }

    #[test]
    fn errors_name_the_field() {
        let bad = POINT.replace("\"friction\": 0.5", "\"friction\": \"high\"");
        let e = load_problem(&write("bad.json", &bad)).unwrap_err().to_string();
        assert!(e.contains("contacts[0].friction"), "{e}");
        let ragged = POINT.replace("[[1, 0], [0, 1]]", "[[1, 0], [0]]");
        let e = load_problem(&write("ragged.json", &ragged)).unwrap_err().to_string();
        assert!(e.contains("mass_matrix[1]"), "{e}");
        let neg = POINT.replace("0.5", "-1");
        let e = load_problem(&write("neg.json", &neg)).unwrap_err().to_string();
        assert!(e.contains("contacts[0].friction") && e.contains("negative"), "{e}");
    }
}
