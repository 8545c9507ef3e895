//! Output files of a run: checked before any work, written atomically, and
//! cleaned up on Ctrl-C or SIGTERM.
//!
//! Every output goes through a temporary file beside its target
//! ([`impactset::io::PendingFile`]); an interrupted run removes those and
//! leaves the previous outputs as they were.

use std::path::{Path, PathBuf};
use std::sync::Once;

use anyhow::Result;

use super::InputError;
use impactset::io::PendingFile;

/// Checks every output path given (`(flag, path)`) before anything runs, so
/// a run never computes for minutes and then fails to write: the folder
/// exists and takes a new file, the path is not a folder, and no two outputs
/// share a path. Then arranges for Ctrl-C and SIGTERM to remove partial
/// outputs. Errors name the flag and the path as given (exit 2).
pub fn preflight(outputs: &[(&str, Option<&Path>)]) -> Result<()> {
    let mut seen: Vec<(&str, PathBuf)> = Vec::new();
    for &(flag, path) in outputs {
        let Some(path) = path else { continue };
        check_output(flag, path)?;
        let key = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
        if let Some((other, _)) = seen.iter().find(|(_, p)| *p == key) {
            return Err(InputError(format!("{flag} {}: the same file as {other}", path.display())).into());
        }
        seen.push((flag, key));
    }
    remove_partial_outputs_on_interrupt();
    Ok(())
}

/// One output path: its folder exists and is writable, and it is not a
/// folder itself.
pub fn check_output(flag: &str, path: &Path) -> Result<()> {
    let bad = |why: String| -> anyhow::Error { InputError(format!("{flag} {}: {why}", path.display())).into() };
    if path.as_os_str().is_empty() {
        return Err(bad("an empty path".into()));
    }
    if path.is_dir() {
        return Err(bad("is a folder; give a file name".into()));
    }
    if path.file_name().is_none() {
        return Err(bad("names no file".into()));
    }
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if !folder.is_dir() {
        return Err(bad(format!("the folder {} does not exist", folder.display())));
    }
    let probe = PendingFile::new(path);
    probe.check().map_err(|e| bad(e.to_string()))?;
    // A device or FIFO is written in place: opening a FIFO would wait for a reader.
    if !probe.writes_in_place() {
        std::fs::File::create(probe.path())
            .map_err(|e| bad(format!("cannot create a file in {}: {e}", folder.display())))?;
    }
    drop(probe);
    Ok(())
}

/// Says (on standard error) when an output of up to `bytes` may not fit on
/// its disk.
pub fn warn_if_disk_short(flag: &str, path: &Path, bytes: f64) {
    if let Some(free) = free_bytes(path)
        && bytes > free as f64
    {
        eprintln!(
            "warning: {flag} {} may need up to {:.3} GB; its disk has {:.3} GB free",
            path.display(),
            bytes / 1e9,
            free as f64 / 1e9
        );
    }
}

/// The most bytes `--out` takes for `samples` samples of `n` velocities:
/// NPY 8 per velocity of an accepted sample; CSV about 25 per number.
pub fn sample_file_bytes(path: &Path, samples: usize, n: usize) -> f64 {
    let npy = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("npy"));
    let per_sample = if npy { 8.0 * n as f64 } else { 25.0 * (n + 7) as f64 };
    128.0 + samples as f64 * per_sample
}

/// Free bytes on the file system that holds `path`'s folder.
#[cfg(unix)]
fn free_bytes(path: &Path) -> Option<u64> {
    use std::os::unix::ffi::OsStrExt;
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let c = std::ffi::CString::new(folder.as_os_str().as_bytes()).ok()?;
    let mut stat: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: `c` is a NUL-terminated path and `stat` a valid out-pointer.
    let rc = unsafe { libc::statvfs(c.as_ptr(), &mut stat) };
    (rc == 0).then(|| stat.f_bavail as u64 * stat.f_frsize as u64)
}

#[cfg(not(unix))]
fn free_bytes(_path: &Path) -> Option<u64> {
    None
}

/// Writes a file whose writer takes a path (a figure) atomically: `write`
/// gets a temporary path beside `target` with its extension, which is
/// renamed over `target` when `write` succeeds and removed otherwise.
pub fn write_atomically<E: std::fmt::Display>(target: &Path, write: impl FnOnce(&Path) -> Result<(), E>) -> Result<()> {
    let pending = PendingFile::new(target);
    write(pending.path()).map_err(|e| anyhow::anyhow!("{}: {e}", target.display()))?;
    pending.commit().map_err(|e| anyhow::anyhow!("{}: cannot write: {e}", target.display()))
}

/// Ctrl-C and SIGTERM remove the temporary outputs, then end the process
/// with status 128 + the signal (130, 143). Unix: the signals are blocked in
/// this thread, so in every thread started after it, and one thread waits
/// for them (`sigwait`): no code runs in a signal handler. Call before any
/// other thread starts.
fn remove_partial_outputs_on_interrupt() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        #[cfg(unix)]
        {
            // SAFETY: plain libc signal-set calls on a set owned here.
            let set = unsafe {
                let mut set: libc::sigset_t = std::mem::zeroed();
                libc::sigemptyset(&mut set);
                libc::sigaddset(&mut set, libc::SIGINT);
                libc::sigaddset(&mut set, libc::SIGTERM);
                if libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) != 0 {
                    return;
                }
                set
            };
            std::thread::spawn(move || {
                let mut signal: libc::c_int = 0;
                // SAFETY: `set` is initialized; `signal` a valid out-pointer.
                if unsafe { libc::sigwait(&set, &mut signal) } == 0 {
                    impactset::io::remove_pending_files();
                    eprintln!("interrupted: partial outputs removed");
                    std::process::exit(128 + signal);
                }
            });
        }
    });
}
