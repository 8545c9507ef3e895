//! Sampler options shared by the commands that sample on their own
//! (`modes`, `figures`), built the way `impactset sample` builds them.

use anyhow::Result;

use super::InputError;
use impactset::gpu::Precision;
use impactset::io::ProblemSpec;
use impactset::run::BackendChoice;
use impactset::{ImpactProblem, SamplerOptions, Selection};

/// The options for `samples` samples of `spec` from `first_index`, with the
/// problem's step size and step cap (else the sampler's defaults).
pub fn sampler_options(
    spec: &ProblemSpec,
    samples: usize,
    first_index: u64,
    seed: u64,
    selection: Selection,
) -> Result<SamplerOptions> {
    let mut options = SamplerOptions { samples, first_index, seed, selection, ..spec.sampler_options() };
    validate(&options, &spec.problem)?;
    if spec.steps.is_none() {
        derive_steps(&mut options, &spec.problem);
    }
    Ok(options)
}

/// Sets the step cap `K` of validated `options` that neither the command
/// line nor the problem gives: the pilot run's (docs/model.md §11), with a
/// warning on stderr when some pilot impacts did not end.
pub fn derive_steps(options: &mut SamplerOptions, problem: &ImpactProblem) {
    let cap = impactset::sampling::default_steps(problem, options);
    if let Some(warning) = cap.warning() {
        eprintln!("warning: {warning}");
    }
    options.steps = cap.steps;
}

/// [`SamplerOptions::validate`] as an input error naming the flag
/// (`--steps 0: must be at least 1 …`, exit 2).
pub fn validate(options: &SamplerOptions, problem: &ImpactProblem) -> Result<()> {
    options.validate(problem).map_err(|e| {
        let flag = format!("--{}", e.field.replace('_', "-"));
        InputError(format!("{flag} {}: {}", e.value, e.why)).into()
    })
}

/// `--selection`: the library's rule names, with one line of help each.
pub fn selection_parser() -> impl clap::builder::TypedValueParser<Value = Selection> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
    PossibleValuesParser::new(Selection::ALL.map(|rule| PossibleValue::new(rule.name()).help(rule.summary())))
        .map(|name| name.parse::<Selection>().expect("clap admits only the possible values"))
}

/// `--precision`: `f32` or `f64`, with one line of help each.
pub fn precision_parser() -> impl clap::builder::TypedValueParser<Value = Precision> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
    PossibleValuesParser::new(Precision::ALL.map(|p| PossibleValue::new(p.name()).help(p.summary())))
        .map(|name| name.parse::<Precision>().expect("clap admits only the possible values"))
}

/// `--backend`: `cpu`, `gpu` or `auto`, with one line of help each.
pub fn backend_parser() -> impl clap::builder::TypedValueParser<Value = BackendChoice> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
    PossibleValuesParser::new(BackendChoice::ALL.map(|b| PossibleValue::new(b.name()).help(b.summary())))
        .map(|name| name.parse::<BackendChoice>().expect("clap admits only the possible values"))
}
