//! Outputs that appear whole or not at all: each is written to a temporary
//! file beside its target and renamed over it when complete, so an
//! interrupted or failed run leaves the previous file (if any) intact and no
//! partial one.
//!
//! Temporary files are removed when their [`PendingFile`] is dropped without
//! [`commit`](PendingFile::commit) (an error unwinding the writer), and by
//! [`remove_pending_files`], which a program calls from its signal handling
//! (the `impactset` command does on Ctrl-C and SIGTERM).
//!
//! A target that is a symbolic link is written through: the temporary sits
//! beside the file the link points to (followed to the end of the chain) and
//! replaces that file, so the link stays. A character device or a FIFO
//! (`/dev/null`, `/dev/stdout`, a named pipe) is written into, as a shell's
//! `>` would, never renamed over or removed: [`AtomicFile`] streams straight
//! into it; a [`PendingFile`] (for writers that take a path) writes a
//! temporary in the system's temporary folder, with the extension of the
//! name asked for, and copies it in on commit. Any other kind of file (a
//! block device, a socket, a folder) is refused, never replaced.

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

/// Most symbolic links followed from a target (as the kernel's `ELOOP`).
const MAX_LINKS: usize = 40;

/// How a target is written.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Kind {
    /// A regular file or none yet: through a temporary renamed over it.
    Replace,
    /// A character device or a FIFO: straight into it.
    InPlace,
    /// Anything else (a block device, a socket, a folder): refused, with
    /// what it is.
    Refused(&'static str),
}

/// A temporary path beside `target`, to be renamed over it.
///
/// The name is hidden and keeps the target's extension (a figure writer may
/// choose its format by it): `dir/.stem.tmp-<pid>-<k>.ext`. A symbolic
/// link's temporary sits beside the file it points to. For a character
/// device or FIFO ([`writes_in_place`](Self::writes_in_place)) the temporary
/// is `impactset-<pid>-<k>.partial.ext` in the system's temporary folder,
/// `ext` the extension of the name given (a link `fig.svg` to `/dev/null`
/// draws SVG), copied into the target on commit.
#[derive(Debug)]
pub struct PendingFile {
    target: PathBuf,
    temp: PathBuf,
    kind: Kind,
    committed: bool,
}

impl PendingFile {
    /// Reserves a temporary path for `target` (creates nothing).
    pub fn new(target: &Path) -> Self {
        let asked_extension = target.extension().map(|e| e.to_string_lossy().into_owned());
        let target = resolve_links(target);
        let kind = kind_of(&target);
        let k = COUNTER.fetch_add(1, Ordering::Relaxed);
        let dot_extension = |ext: Option<String>| ext.map(|e| format!(".{e}")).unwrap_or_default();
        let temp = match kind {
            Kind::Refused(_) => return PendingFile { temp: target.clone(), target, kind, committed: false },
            Kind::InPlace => std::env::temp_dir().join(format!(
                "impactset-{}-{k}.partial{}",
                std::process::id(),
                dot_extension(asked_extension)
            )),
            Kind::Replace => {
                let stem = target.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
                let ext = target.extension().map(|e| e.to_string_lossy().into_owned());
                target.with_file_name(format!(".{stem}.tmp-{}-{k}{}", std::process::id(), dot_extension(ext)))
            }
        };
        PENDING.lock().unwrap_or_else(|e| e.into_inner()).push(temp.clone());
        PendingFile { target, temp, kind, committed: false }
    }

    /// Where to write.
    pub fn path(&self) -> &Path {
        &self.temp
    }

    /// The file it will become (a symbolic link's final target).
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Whether the target is a character device or FIFO, written into (by
    /// [`commit`](Self::commit), from the temporary) rather than replaced.
    pub fn writes_in_place(&self) -> bool {
        self.kind == Kind::InPlace
    }

    /// Errors when the target is a kind of file that is never written (a
    /// block device, a socket, a folder).
    pub fn check(&self) -> std::io::Result<()> {
        match self.kind {
            Kind::Refused(what) => Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("{} is {what}, not a file to write", self.target.display()),
            )),
            _ => Ok(()),
        }
    }

    /// Renames the written temporary file over the target, or for a device
    /// or FIFO copies it in (and removes the temporary).
    pub fn commit(mut self) -> std::io::Result<()> {
        self.check()?;
        match self.kind {
            Kind::Replace => std::fs::rename(&self.temp, &self.target)?,
            _ => {
                let mut source = File::open(&self.temp)?;
                let mut sink = std::fs::OpenOptions::new().write(true).open(&self.target)?;
                std::io::copy(&mut source, &mut sink)?;
                sink.flush()?;
                drop(source);
                let _ = std::fs::remove_file(&self.temp);
            }
        }
        self.committed = true;
        Ok(())
    }
}

/// `path` with every symbolic link followed (relative links against their
/// folder), up to [`MAX_LINKS`]; a dangling link gives the missing file it
/// names.
fn resolve_links(path: &Path) -> PathBuf {
    let mut path = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        let is_link = std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_symlink());
        if !is_link {
            break;
        }
        let Ok(link) = std::fs::read_link(&path) else { break };
        path = match path.parent() {
            Some(folder) if link.is_relative() => folder.join(link),
            _ => link,
        };
    }
    path
}

/// How the (link-free) `target` is written.
fn kind_of(target: &Path) -> Kind {
    let Ok(meta) = std::fs::metadata(target) else { return Kind::Replace };
    let kind = meta.file_type();
    if kind.is_file() {
        return Kind::Replace;
    }
    if kind.is_dir() {
        return Kind::Refused("a folder");
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if kind.is_char_device() || kind.is_fifo() {
            return Kind::InPlace;
        }
        if kind.is_block_device() {
            return Kind::Refused("a block device");
        }
        if kind.is_socket() {
            return Kind::Refused("a socket");
        }
    }
    Kind::Refused("not a regular file")
}

impl Drop for PendingFile {
    fn drop(&mut self) {
        if matches!(self.kind, Kind::Refused(_)) {
            return;
        }
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
/// renamed over the target by [`commit`](Self::commit); a character device
/// or FIFO target is streamed into directly.
#[derive(Debug)]
pub struct AtomicFile {
    /// The temporary to rename (`None` for a device or FIFO written directly).
    pending: Option<PendingFile>,
    out: BufWriter<File>,
}

impl AtomicFile {
    /// Creates the temporary file for `target` (or opens a device or FIFO
    /// target for writing).
    pub fn create(target: &Path) -> std::io::Result<Self> {
        let pending = PendingFile::new(target);
        pending.check()?;
        if pending.writes_in_place() {
            let out = std::fs::OpenOptions::new().write(true).open(pending.target())?;
            return Ok(AtomicFile { pending: None, out: BufWriter::new(out) });
        }
        let out = BufWriter::new(File::create(pending.path())?);
        Ok(AtomicFile { pending: Some(pending), out })
    }

    /// The buffered writer.
    pub fn writer(&mut self) -> &mut BufWriter<File> {
        &mut self.out
    }

    /// Flushes, syncs and renames the file over the target (a device or FIFO
    /// is flushed only: it has nothing to sync).
    pub fn commit(self) -> std::io::Result<()> {
        let AtomicFile { pending, out } = self;
        let file = out.into_inner().map_err(|e| e.into_error())?;
        let Some(pending) = pending else { return Ok(()) };
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

    #[cfg(unix)]
    #[test]
    fn a_symlink_is_written_through_and_stays_a_link() {
        let dir = dir("link");
        let real = dir.join("real.csv");
        std::fs::write(&real, "old\n").unwrap();
        let link = dir.join("link.csv");
        std::os::unix::fs::symlink("real.csv", &link).unwrap();
        let mut f = AtomicFile::create(&link).unwrap();
        writeln!(f, "new").unwrap();
        f.commit().unwrap();
        assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read_to_string(&real).unwrap(), "new\n");
        assert_eq!(listing(&dir), ["link.csv", "real.csv"]);
        // A dangling link gets its file.
        let dangling = dir.join("dangling.csv");
        std::os::unix::fs::symlink("made.csv", &dangling).unwrap();
        let mut f = AtomicFile::create(&dangling).unwrap();
        writeln!(f, "made").unwrap();
        f.commit().unwrap();
        assert_eq!(std::fs::read_to_string(dir.join("made.csv")).unwrap(), "made\n");
        std::fs::remove_dir_all(dir).ok();
    }

    #[cfg(unix)]
    #[test]
    fn a_character_device_is_written_into_not_replaced() {
        let null = Path::new("/dev/null");
        let p = PendingFile::new(null);
        assert!(p.writes_in_place());
        assert_eq!(p.target(), null);
        assert_ne!(p.path(), null, "a path-taking writer gets a temporary, copied in on commit");
        std::fs::write(p.path(), b"drawn").unwrap();
        let temp = p.path().to_path_buf();
        p.commit().unwrap();
        assert!(!temp.exists(), "the temporary is removed once copied in");
        // A link named .svg to the device: the temporary keeps .svg (a
        // figure writer picks its format by it).
        let dir = dir("null-link");
        let link = dir.join("fig.svg");
        std::os::unix::fs::symlink(null, &link).unwrap();
        let p = PendingFile::new(&link);
        assert_eq!(p.path().extension().unwrap(), "svg");
        drop(p);
        std::fs::remove_dir_all(dir).ok();
        let mut f = AtomicFile::create(null).unwrap();
        writeln!(f, "gone").unwrap();
        f.commit().unwrap();
        use std::os::unix::fs::FileTypeExt;
        assert!(std::fs::metadata(null).unwrap().file_type().is_char_device());
    }

    #[test]
    fn a_folder_is_refused_not_replaced() {
        let dir = dir("folder");
        let err = AtomicFile::create(&dir).unwrap_err();
        assert!(err.to_string().contains("a folder"), "{err}");
        assert!(dir.is_dir());
        std::fs::remove_dir_all(dir).ok();
    }
}
