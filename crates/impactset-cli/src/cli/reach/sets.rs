//! The sets of a batch as one NPY array: every state's accepted `v⁺`, state
//! after state (`Σ accepted × n` float64), written as the states finish.

use std::fs::File;
use std::io::{BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

/// Bytes of the NPY preamble and header reserved up front: the row count is
/// known only at the end, so the header is written again then, padded to
/// the same length.
const HEADER_BYTES: usize = 128;

/// Streams rows of `n` float64 into an NPY file.
pub struct SetsWriter {
    path: PathBuf,
    out: BufWriter<File>,
    n: usize,
    rows: u64,
}

impl SetsWriter {
    /// Creates `path` for rows of `n` entries.
    pub fn create(path: &Path, n: usize) -> Result<Self> {
        let file = File::create(path).with_context(|| format!("{}: cannot create", path.display()))?;
        let mut writer = SetsWriter { path: path.to_path_buf(), out: BufWriter::new(file), n, rows: 0 };
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
        self.rows += (rows.len() / self.n.max(1)) as u64;
        Ok(())
    }

    /// Writes the final header and closes the file.
    pub fn finish(self) -> Result<()> {
        let context = || format!("{}: cannot write", self.path.display());
        let header = self.header()?;
        let mut file = self.out.into_inner().map_err(|e| e.into_error()).with_context(context)?;
        file.seek(SeekFrom::Start(0)).with_context(context)?;
        file.write_all(&header).with_context(context)?;
        file.flush().with_context(context)
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

/// Concatenates NPY arrays of `n` columns (shards' sets, in state order).
pub fn concatenate(inputs: &[PathBuf], out: &Path) -> Result<()> {
    let mut writer: Option<SetsWriter> = None;
    for path in inputs {
        let rows = impactset::io::read_npy(path)?;
        let n = match (&writer, rows.first()) {
            (Some(w), _) => w.n,
            (None, Some(row)) => row.len(),
            (None, None) => continue,
        };
        let writer = match &mut writer {
            Some(w) => w,
            None => writer.insert(SetsWriter::create(out, n)?),
        };
        for row in &rows {
            if row.len() != n {
                bail!("{}: rows of {} entries, the other sets have {n}", path.display(), row.len());
            }
            writer.write(row)?;
        }
    }
    match writer {
        Some(w) => w.finish(),
        None => SetsWriter::create(out, 0)?.finish(),
    }
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
        w.finish().unwrap();
        let rows = impactset::io::read_npy(&path).unwrap();
        assert_eq!(rows, vec![vec![1.0, 2.0, 3.0], vec![4.0, 5.0, 6.0], vec![-0.5, f64::MAX, 1e-300]]);
        assert_eq!(std::fs::read(&path).unwrap().len(), HEADER_BYTES + 9 * 8);
        let both = dir.join("b.npy");
        concatenate(&[path.clone(), path], &both).unwrap();
        assert_eq!(impactset::io::read_npy(&both).unwrap().len(), 6);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
