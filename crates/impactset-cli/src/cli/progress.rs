//! The progress bar of long commands: position, total and the time left, on
//! standard error when it is a terminal.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};

use indicatif::{ProgressBar, ProgressStyle};

/// `-q/--quiet`, given to every subcommand: no progress bars.
static QUIET: AtomicBool = AtomicBool::new(false);

/// Sets `-q/--quiet` for the run (once, from the parsed arguments).
pub fn set_quiet(quiet: bool) {
    QUIET.store(quiet, Ordering::Relaxed);
}

/// Whether the run is `-q/--quiet`.
pub fn quiet() -> bool {
    QUIET.load(Ordering::Relaxed)
}

/// A bar over `total` `unit`s (`samples`, `LCPs`); hidden when `quiet`, under
/// `-q/--quiet` or when standard error is not a terminal.
pub fn bar(total: u64, unit: &str, quiet: bool) -> ProgressBar {
    if quiet || self::quiet() || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(total);
    let template = format!("{{spinner}} [{{elapsed_precise}}] {{wide_bar}} {{pos}}/{{len}} {unit} ({{eta}} left)");
    if let Ok(style) = ProgressStyle::with_template(&template) {
        bar.set_style(style);
    }
    bar
}

/// The bar over the pilot run's samples, which derives a run's step cap
/// (docs/model.md §11; under `all` on many contacts it takes minutes).
pub fn pilot_bar(quiet: bool) -> ProgressBar {
    bar(impactset::sampling::PILOT_SAMPLES as u64, "pilot samples (the step cap)", quiet)
}
