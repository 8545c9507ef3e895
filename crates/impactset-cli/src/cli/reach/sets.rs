//! The sets of a batch as one NPY array: every state's accepted `v⁺`, state
//! after state (`Σ accepted × n` float64), written as the states finish into
//! a temporary file that replaces the target only when the whole run (table
//! included) is complete.

use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use impactset::io::AtomicFile;
use impactset::reach::{SetsDigest, SetsDigester};

/// Bytes of the NPY preamble and header reserved up front: the row count is
/// known only at the end, so the header is written again then, padded to
/// the same length.
const HEADER_BYTES: usize = 128;

/// Streams rows of `n` float64 into an NPY file.
pub struct SetsWriter {
    path: PathBuf,
    out: AtomicFile,
    n: usize,
    rows: u64,
    digest: SetsDigester,
}

impl SetsWriter {
    /// Starts the temporary file of `path` for rows of `n` entries.
    pub fn create(path: &Path, n: usize) -> Result<Self> {
        let out = AtomicFile::create(path).with_context(|| format!("{}: cannot create", path.display()))?;
        let mut writer = SetsWriter { path: path.to_path_buf(), out, n, rows: 0, digest: SetsDigester::default() };
        let header = writer.header()?;
        writer.out.write_all(&header).with_context(|| format!("{}: cannot write", path.display()))?;
        Ok(writer)
    }

    /// Appends rows (a row-major array of a multiple of `n` entries).
    pub fn write(&mut self, rows: &[f64]) -> Result<()> {
        debug_assert_eq!(rows.len() % self.n.max(1), 0);
        for x in rows {
            self.out.write_all(&x.to_le_bytes()).with_context(|| format!("{}: cannot write", self.path.display()))?;
        }
        self.digest.add(rows);
        self.rows += (rows.len() / self.n.max(1)) as u64;
        Ok(())
    }

    /// Writes the final header: the file is complete, still under its
    /// temporary name until [`AtomicFile::commit`].
    pub fn finish(mut self) -> Result<(SetsDigest, AtomicFile)> {
        let context = || format!("{}: cannot write", self.path.display());
        let header = self.header()?;
        let file = self.out.writer();
        file.seek(SeekFrom::Start(0)).with_context(context)?;
        file.write_all(&header).with_context(context)?;
        file.flush().with_context(context)?;
        Ok((self.digest.finish(self.n), self.out))
    }

    /// NPY 1.0: magic, version, header length, the dict padded with spaces
    /// and ending in a newline, [`HEADER_BYTES`] in all.
    fn header(&self) -> Result<Vec<u8>> {
        let dict = format!("{{'descr': '<f8', 'fortran_order': False, 'shape': ({}, {}), }}", self.rows, self.n);
        let len = HEADER_BYTES - 10;
        if dict.len() + 1 > len {
            bail!("{}: NPY header too long", self.path.display());
        }
        let mut header = b"\x93NUMPY\x01\x00".to_vec();
        header.extend((len as u16).to_le_bytes());
        header.extend(format!("{dict:<width$}\n", width = len - 1).bytes());
        Ok(header)
    }
}

/// The rows of one sets file and their digest (`n` its row length, `None`
/// for no rows).
pub fn read(path: &Path) -> Result<(Vec<Vec<f64>>, Option<usize>, SetsDigest)> {
    let rows = impactset::io::read_npy(path)?;
    let n = rows.first().map(Vec::len);
    let mut digest = SetsDigester::default();
    for row in &rows {
        if Some(row.len()) != n {
            bail!("{}: rows of {} and {} entries", path.display(), row.len(), n.unwrap_or(0));
        }
        digest.add(row);
    }
    let digest = digest.finish(n.unwrap_or(1));
    Ok((rows, n, digest))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_streamed_array_reads_back() {
        let dir = std::env::temp_dir().join(format!("impactset-sets-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("a.npy");
        let mut w = SetsWriter::create(&path, 3).unwrap();
        w.write(&[1.0, 2.0, 3.0]).unwrap();
        w.write(&[4.0, 5.0, 6.0, -0.5, f64::MAX, 1e-300]).unwrap();
        let (digest, file) = w.finish().unwrap();
        assert!(!path.exists(), "complete only when committed");
        file.commit().unwrap();
        let rows = impactset::io::read_npy(&path).unwrap();
        assert_eq!(rows, vec![vec![1.0, 2.0, 3.0], vec![4.0, 5.0, 6.0], vec![-0.5, f64::MAX, 1e-300]]);
        assert_eq!(std::fs::read(&path).unwrap().len(), HEADER_BYTES + 9 * 8);
        let (again, n, read_digest) = read(&path).unwrap();
        assert_eq!((again.len(), n), (3, Some(3)));
        assert_eq!(read_digest, digest);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
