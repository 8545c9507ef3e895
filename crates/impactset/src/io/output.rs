//! Sample outputs: NPY (accepted `v⁺`), CSV (every sample) and the summary JSON.

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use npyz::WriterBuilder;
use serde::Serialize;

use crate::SampleSet;

/// Writes the accepted `v⁺` as an `accepted × n` float64 NPY array.
pub fn write_npy(path: &Path, set: &SampleSet) -> Result<()> {
    let mut writer = SampleWriter::create(path, set.n)?;
    writer.write(set)?;
    writer.finish()
}

/// Writes samples to `.npy` (accepted `v⁺`) or `.csv` (every sample) chunk by
/// chunk, holding none of them: the output of a run of any size
/// ([`crate::sampling::sample_set_chunks`]).
///
/// An NPY header states the row count, unknown until the run ends, so the
/// accepted rows go to `<path>.partial` (raw little-endian f64) and
/// [`finish`](Self::finish) writes the NPY file from it (npyz) and removes it.
pub struct SampleWriter {
    path: PathBuf,
    n: usize,
    format: Format,
}

enum Format {
    Npy { partial: PathBuf, raw: BufWriter<File>, rows: u64 },
    Csv(BufWriter<File>),
}

impl SampleWriter {
    /// Creates the output for samples with `n` velocities; the format follows
    /// the extension (`.npy`, anything else CSV).
    pub fn create(path: &Path, n: usize) -> Result<Self> {
        let create = |p: &Path| File::create(p).with_context(|| format!("{}: cannot create", p.display()));
        let format = if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("npy")) {
            let mut partial = path.as_os_str().to_owned();
            partial.push(".partial");
            let partial = PathBuf::from(partial);
            Format::Npy { raw: BufWriter::new(create(&partial)?), partial, rows: 0 }
        } else {
            let mut out = BufWriter::new(create(path)?);
            let columns: Vec<String> = (0..n).map(|j| format!("v{j}")).collect();
            writeln!(out, "index,steps,terminated,accepted,residual,energy_before,energy_after,{}", columns.join(","))
                .with_context(|| format!("{}: cannot write", path.display()))?;
            Format::Csv(out)
        };
        Ok(SampleWriter { path: path.to_path_buf(), n, format })
    }

    /// Appends the samples of `set` (the next chunk, in index order).
    pub fn write(&mut self, set: &SampleSet) -> Result<()> {
        let context = || format!("{}: cannot write", self.path.display());
        match &mut self.format {
            Format::Npy { raw, rows, .. } => {
                for s in set.accepted() {
                    for x in &s.v_plus {
                        raw.write_all(&x.to_le_bytes()).with_context(context)?;
                    }
                    *rows += 1;
                }
            }
            Format::Csv(out) => write_csv_rows(out, set).with_context(context)?,
        }
        Ok(())
    }

    /// Completes the file.
    pub fn finish(self) -> Result<()> {
        let context = || format!("{}: cannot write", self.path.display());
        match self.format {
            Format::Npy { partial, raw, rows } => {
                raw.into_inner().map_err(|e| e.into_error()).with_context(context)?;
                let file =
                    File::create(&self.path).with_context(|| format!("{}: cannot create", self.path.display()))?;
                let mut writer = npyz::WriteOptions::<f64>::new()
                    .default_dtype()
                    .shape(&[rows, self.n as u64])
                    .writer(BufWriter::new(file))
                    .begin_nd()
                    .with_context(context)?;
                let mut raw = BufReader::new(
                    File::open(&partial).with_context(|| format!("{}: cannot read", partial.display()))?,
                );
                let mut bytes = [0u8; 8];
                for _ in 0..rows * self.n as u64 {
                    raw.read_exact(&mut bytes).with_context(|| format!("{}: cannot read", partial.display()))?;
                    writer.push(&f64::from_le_bytes(bytes)).with_context(context)?;
                }
                writer.finish().with_context(context)?;
                std::fs::remove_file(&partial).with_context(|| format!("{}: cannot remove", partial.display()))?;
            }
            Format::Csv(mut out) => out.flush().with_context(context)?,
        }
        Ok(())
    }
}

/// Reads an `N × n` float64 NPY array as rows.
pub fn read_npy(path: &Path) -> Result<Vec<Vec<f64>>> {
    let bytes = std::fs::read(path).with_context(|| format!("{}: cannot read", path.display()))?;
    let npy = npyz::NpyFile::new(&bytes[..]).with_context(|| format!("{}: not an NPY file", path.display()))?;
    let shape = npy.shape().to_vec();
    let (rows, cols) = match shape[..] {
        [r, c] => (r as usize, c as usize),
        [r] => (r as usize, 1),
        _ => bail!("{}: expected a 2-D array, found shape {shape:?}", path.display()),
    };
    let data: Vec<f64> = npy.into_vec().with_context(|| format!("{}: expected a float64 array", path.display()))?;
    Ok((0..rows).map(|r| data[r * cols..(r + 1) * cols].to_vec()).collect())
}

/// Writes every sample as CSV: `index, steps, terminated, accepted, residual,
/// energy_before, energy_after, v0 … v(n−1)`. Floats are written in Rust's
/// shortest round-trip form, so they read back bit-exactly.
pub fn write_csv(path: &Path, set: &SampleSet) -> Result<()> {
    let mut writer = SampleWriter::create(path, set.n)?;
    writer.write(set)?;
    writer.finish()
}

fn write_csv_rows(out: &mut impl Write, set: &SampleSet) -> std::io::Result<()> {
    for s in &set.samples {
        write!(
            out,
            "{},{},{},{},{:e},{:e},{:e}",
            s.index, s.steps, s.terminated as u8, s.accepted as u8, s.max_residual, s.energy_before, s.energy_after
        )?;
        for x in &s.v_plus {
            write!(out, ",{x:e}")?;
        }
        writeln!(out)?;
    }
    Ok(())
}

/// Writes any serializable value as pretty JSON.
pub fn write_json(path: &Path, value: &impl Serialize) -> Result<()> {
    let text = serde_json::to_string_pretty(value)?;
    std::fs::write(path, text + "\n").with_context(|| format!("{}: cannot write", path.display()))
}
