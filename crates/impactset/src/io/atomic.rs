//! Outputs that appear whole or not at all: each is written to a temporary
//! file beside its target and renamed over it when complete, so an
//! interrupted or failed run leaves the previous file (if any) intact and no
//! partial one.
//!
//! Temporary files are removed when their [`PendingFile`] is dropped without
//! [`commit`](PendingFile::commit) (an error unwinding the writer), and by
//! [`remove_pending_files`], which a program calls from its signal handling
//! (the `impactset` command does on Ctrl-C and SIGTERM).

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// Temporary files not yet committed or removed.
static PENDING: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
/// Distinguishes the temporaries of one process.
static COUNTER: AtomicU64 = AtomicU64::new(0);

/// Removes every temporary file of this process not yet committed: for a
/// signal handler's thread, just before the process exits.
pub fn remove_pending_files() {
    let pending = PENDING.lock().unwrap_or_else(|e| e.into_inner());
    for path in pending.iter() {
        let _ = std::fs::remove_file(path);
    }
}

/// A temporary path beside `target`, to be renamed over it.
///
/// The name is hidden and keeps the target's extension (a figure writer may
/// choose its format by it): `dir/.stem.tmp-<pid>-<k>.ext`.
#[derive(Debug)]
pub struct PendingFile {
    target: PathBuf,
    temp: PathBuf,
    committed: bool,
}

impl PendingFile {
    /// Reserves a temporary path for `target` (creates nothing).
    pub fn new(target: &Path) -> Self {
        let stem = target.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let k = COUNTER.fetch_add(1, Ordering::Relaxed);
        let mut name = format!(".{stem}.tmp-{}-{k}", std::process::id());
        if let Some(ext) = target.extension() {
            name.push('.');
            name.push_str(&ext.to_string_lossy());
        }
        let temp = target.with_file_name(name);
        PENDING.lock().unwrap_or_else(|e| e.into_inner()).push(temp.clone());
        PendingFile { target: target.to_path_buf(), temp, committed: false }
    }

    /// Where to write.
    pub fn path(&self) -> &Path {
        &self.temp
    }

    /// The file it will become.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Renames the written temporary file over the target.
    pub fn commit(mut self) -> std::io::Result<()> {
        std::fs::rename(&self.temp, &self.target)?;
        self.committed = true;
        Ok(())
    }
}

impl Drop for PendingFile {
    fn drop(&mut self) {
        if !self.committed {
            let _ = std::fs::remove_file(&self.temp);
        }
        let mut pending = PENDING.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(i) = pending.iter().position(|p| *p == self.temp) {
            pending.swap_remove(i);
        }
    }
}

/// A file written through a [`PendingFile`]: buffered, synced to disk and
/// renamed over the target by [`commit`](Self::commit).
#[derive(Debug)]
pub struct AtomicFile {
    pending: PendingFile,
    out: BufWriter<File>,
}

impl AtomicFile {
    /// Creates the temporary file for `target`.
    pub fn create(target: &Path) -> std::io::Result<Self> {
        let pending = PendingFile::new(target);
        let out = BufWriter::new(File::create(pending.path())?);
        Ok(AtomicFile { pending, out })
    }

    /// The buffered writer.
    pub fn writer(&mut self) -> &mut BufWriter<File> {
        &mut self.out
    }

    /// Flushes, syncs and renames the file over the target.
    pub fn commit(self) -> std::io::Result<()> {
        let AtomicFile { pending, out } = self;
        let file = out.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        drop(file);
        pending.commit()
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.out.write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("impactset-atomic-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn listing(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> =
            std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
        names.sort();
        names
    }

    #[test]
    fn a_dropped_file_leaves_the_old_target_and_nothing_else() {
        let dir = dir("drop");
        let target = dir.join("set.csv");
        std::fs::write(&target, "old\n").unwrap();
        {
            let mut f = AtomicFile::create(&target).unwrap();
            writeln!(f, "half a rec").unwrap();
        }
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "old\n");
        assert_eq!(listing(&dir), ["set.csv"]);
        let mut f = AtomicFile::create(&target).unwrap();
        writeln!(f, "new").unwrap();
        f.commit().unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "new\n");
        assert_eq!(listing(&dir), ["set.csv"]);
        std::fs::remove_dir_all(dir).ok();
    }

    #[test]
    fn the_temporary_sits_beside_the_target_with_its_extension() {
        let target = Path::new("out/fig.png");
        let p = PendingFile::new(target);
        assert_eq!(p.path().parent(), target.parent());
        assert_eq!(p.path().extension().unwrap(), "png");
        assert!(p.path().file_name().unwrap().to_string_lossy().starts_with(".fig.tmp-"));
    }
}
