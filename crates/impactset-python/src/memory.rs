//! What a result may take: a run's result buffers are reserved whole before
//! it starts, so a sample count whose results cannot be held is refused up
//! front with the memory it would need, instead of aborting the interpreter
//! on a failed allocation part way through.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// This machine's physical memory in bytes (Linux: `MemTotal` of
/// `/proc/meminfo`); `None` where it cannot be read, and then only the
/// reservation itself can fail.
pub(crate) fn physical_memory() -> Option<u128> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u128 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// `bytes` as `36.3 TB`, `512.0 MB` (powers of 1000, one decimal).
pub(crate) fn human(bytes: u128) -> String {
    let units = ["bytes", "kB", "MB", "GB", "TB", "PB", "EB", "ZB", "YB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1000.0 && unit + 1 < units.len() {
        value /= 1000.0;
        unit += 1;
    }
    if unit == 0 { format!("{bytes} bytes") } else { format!("{value:.1} {}", units[unit]) }
}

/// Refuses `count` results of `per_item` bytes each when they would not fit
/// in this machine's memory: `ValueError` naming `name`, with the memory
/// they would need. `what` says what is counted (`samples`).
pub(crate) fn check_fits(name: &str, count: usize, per_item: u128, what: &str) -> PyResult<()> {
    let need = count as u128 * per_item;
    if let Some(total) = physical_memory()
        && need > total
    {
        let most = total / per_item.max(1);
        return Err(PyValueError::new_err(format!(
            "{name}: {count} {what} would need {} of memory for their results ({per_item} bytes each), more than \
             this machine's {}; at most about {most} fit (run several batches with first_index)",
            human(need),
            human(total)
        )));
    }
    Ok(())
}

/// The error for buffers of `need` bytes that could not be reserved.
pub(crate) fn reserve_failed(name: &str, count: usize, need: u128, what: &str) -> PyErr {
    PyValueError::new_err(format!(
        "{name}: {count} {what} need {} of memory for their results, and that much could not be reserved",
        human(need)
    ))
}
