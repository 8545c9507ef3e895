//! Sample outputs: NPY (accepted `v⁺`), CSV (every sample) and the summary
//! JSON. Every output is atomic ([`super::atomic`]): it appears complete, or
//! not at all and the previous file is left as it was.

use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::atomic::AtomicFile;
use crate::SampleSet;

/// Why an output could not be written or an NPY file not be read; the
/// message names the file.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// The file system refused (`action`: create, write, read).
    #[error("{}: cannot {action}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What was being done.
        action: &'static str,
        /// The system's error.
        #[source]
        source: std::io::Error,
    },
    /// The file's content is not what was expected.
    #[error("{}: {reason}", path.display())]
    Format {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// A value could not be written as JSON.
    #[error("{}: cannot write JSON: {source}", path.display())]
    Json {
        /// The file.
        path: PathBuf,
        /// The serializer's error.
        source: serde_json::Error,
    },
}

/// Result of the output functions.
type OutResult<T> = Result<T, OutputError>;

/// `OutputError::Io` for `path`.
fn io_error<'p>(path: &'p Path, action: &'static str) -> impl FnOnce(std::io::Error) -> OutputError + 'p {
    move |source| OutputError::Io { path: path.to_path_buf(), action, source }
}

/// Writes the accepted `v⁺` as an `accepted × n` float64 NPY array.
pub fn write_npy(path: &Path, set: &SampleSet) -> OutResult<()> {
    let mut writer = SampleWriter::create(path, set.n)?;
    writer.write(set)?;
    writer.finish()
}

/// Writes samples to `.npy` (accepted `v⁺`) or `.csv` (every sample) chunk by
/// chunk, holding none of them: the output of a run of any size
/// ([`crate::sampling::sample_set_chunks`]).
///
/// The file is written beside the target under a temporary name and renamed
/// over it by [`finish`](Self::finish); dropping the writer unfinished (an
/// error) removes it. An NPY header states the row count, unknown until the
/// run ends: the header is written with room for any count (NPY headers are
/// padded to 64 bytes; this one is 128 whatever the count) and rewritten in
/// place at the end.
pub struct SampleWriter {
    path: PathBuf,
    n: usize,
    file: AtomicFile,
    /// NPY: rows written so far; `None` for CSV.
    rows: Option<u64>,
}

/// The NPY (version 1.0) header of a C-order `rows × n` float64 array, as
/// numpy and npyz write it: the dict, spaces to a multiple of 64 bytes, `\n`.
fn npy_header(rows: u64, n: usize) -> Vec<u8> {
    let dict = format!("{{'descr': '<f8', 'fortran_order': False, 'shape': ({rows}, {n}, ), }}");
    let before_text = 10;
    let pad = 63 - (dict.len() + before_text) % 64;
    let mut text = dict.into_bytes();
    text.extend(std::iter::repeat_n(b' ', pad));
    text.push(b'\n');
    let mut header = b"\x93NUMPY\x01\x00".to_vec();
    header.extend((text.len() as u16).to_le_bytes());
    header.extend(text);
    header
}

impl SampleWriter {
    /// Creates the output for samples with `n` velocities; the format follows
    /// the extension (`.npy`, anything else CSV).
    pub fn create(path: &Path, n: usize) -> OutResult<Self> {
        let mut file = AtomicFile::create(path).map_err(io_error(path, "create"))?;
        let npy = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("npy"));
        let written = if npy {
            file.write_all(&npy_header(u64::MAX, n))
        } else {
            let columns: Vec<String> = (0..n).map(|j| format!("v{j}")).collect();
            writeln!(file, "index,steps,terminated,accepted,residual,energy_before,energy_after,{}", columns.join(","))
        };
        written.map_err(io_error(path, "write"))?;
        Ok(SampleWriter { path: path.to_path_buf(), n, file, rows: npy.then_some(0) })
    }

    /// Appends the samples of `set` (the next chunk, in index order).
    pub fn write(&mut self, set: &SampleSet) -> OutResult<()> {
        let path = self.path.clone();
        let context = || io_error(&path, "write");
        match &mut self.rows {
            Some(rows) => {
                for s in set.accepted() {
                    for x in &s.v_plus {
                        self.file.write_all(&x.to_le_bytes()).map_err(context())?;
                    }
                    *rows += 1;
                }
            }
            None => write_csv_rows(&mut self.file, set).map_err(context())?,
        }
        Ok(())
    }

    /// Completes the file and renames it over the target.
    pub fn finish(mut self) -> OutResult<()> {
        let path = self.path.clone();
        let context = || io_error(&path, "write");
        if let Some(rows) = self.rows {
            let header = npy_header(rows, self.n);
            if header.len() != npy_header(u64::MAX, self.n).len() {
                return Err(OutputError::Format { path, reason: "the NPY header changed length".into() });
            }
            let out = self.file.writer();
            out.flush().map_err(context())?;
            out.seek(SeekFrom::Start(0)).map_err(context())?;
            out.write_all(&header).map_err(context())?;
        }
        self.file.commit().map_err(context())
    }
}

/// Reads an `N × n` float64 NPY array as rows (C or Fortran order, little-
/// or big-endian `f8`, format versions 1 to 3). The header is checked against
/// the file's length before anything is allocated.
pub fn read_npy(path: &Path) -> OutResult<Vec<Vec<f64>>> {
    let bytes = std::fs::read(path).map_err(io_error(path, "read"))?;
    parse_npy(&bytes).map_err(|reason| OutputError::Format { path: path.to_path_buf(), reason })
}

/// [`read_npy`] on the bytes of a file; the error says what is wrong.
pub fn parse_npy(bytes: &[u8]) -> Result<Vec<Vec<f64>>, String> {
    if bytes.len() < 10 || &bytes[..6] != b"\x93NUMPY" {
        return Err("not an NPY file (no \\x93NUMPY magic)".into());
    }
    let (header_len, start) = match bytes[6] {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10),
        2 | 3 if bytes.len() >= 12 => (u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize, 12),
        v => return Err(format!("unsupported NPY format version {v}")),
    };
    let data_start = start + header_len;
    if data_start > bytes.len() {
        return Err(format!("the NPY header claims {header_len} bytes, the file holds {}", bytes.len() - start));
    }
    let header = std::str::from_utf8(&bytes[start..data_start]).map_err(|_| "the NPY header is not text")?;
    let (descr, fortran, shape) = parse_npy_header(header)?;
    let big_endian = match descr.as_str() {
        "<f8" => false,
        ">f8" => true,
        other => return Err(format!("expected a float64 array (descr '<f8'), found descr '{other}'")),
    };
    let (rows, cols) = match shape[..] {
        [r, c] => (r, c),
        [r] => (r, 1),
        _ => return Err(format!("expected a 2-D array, found shape {shape:?}")),
    };
    let data = &bytes[data_start..];
    let needed = rows.checked_mul(cols).and_then(|k| k.checked_mul(8));
    if needed != Some(data.len() as u64) {
        return Err(format!(
            "the header's shape ({rows}, {cols}) needs {rows}·{cols}·8 bytes of data, the file holds {}",
            data.len()
        ));
    }
    if cols == 0 && rows > 0 {
        return Err(format!("shape ({rows}, 0): rows without entries"));
    }
    let (rows, cols) = (rows as usize, cols as usize);
    let value = |k: usize| {
        let b: [u8; 8] = data[8 * k..8 * k + 8].try_into().expect("8 bytes");
        if big_endian { f64::from_be_bytes(b) } else { f64::from_le_bytes(b) }
    };
    Ok((0..rows)
        .map(|r| (0..cols).map(|c| value(if fortran { c * rows + r } else { r * cols + c })).collect())
        .collect())
}

/// `descr`, `fortran_order` and `shape` of an NPY header dict
/// (`{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }`).
fn parse_npy_header(header: &str) -> Result<(String, bool, Vec<u64>), String> {
    let value_of = |key: &str| -> Result<&str, String> {
        let at = ["'", "\""]
            .iter()
            .find_map(|q| header.find(&format!("{q}{key}{q}")).map(|i| i + key.len() + 2))
            .ok_or_else(|| format!("the NPY header has no '{key}'"))?;
        let rest = header[at..].trim_start();
        rest.strip_prefix(':').map(str::trim_start).ok_or_else(|| format!("the NPY header's '{key}' has no value"))
    };
    let descr = value_of("descr")?;
    let quote =
        descr.chars().next().filter(|c| *c == '\'' || *c == '"').ok_or("the NPY header's descr is not a string")?;
    let descr = descr[1..].split(quote).next().unwrap_or_default().to_string();
    let fortran = match value_of("fortran_order")? {
        v if v.starts_with("True") => true,
        v if v.starts_with("False") => false,
        _ => return Err("the NPY header's fortran_order is neither True nor False".into()),
    };
    let shape = value_of("shape")?;
    let inner =
        shape.strip_prefix('(').and_then(|s| s.split(')').next()).ok_or("the NPY header's shape is not a tuple")?;
    let shape = inner
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| s.parse::<u64>().map_err(|_| format!("the NPY header's shape holds '{s}', not a count")))
        .collect::<Result<Vec<_>, _>>()?;
    Ok((descr, fortran, shape))
}

/// Writes every sample as CSV: `index, steps, terminated, accepted, residual,
/// energy_before, energy_after, v0 … v(n−1)`. Floats are written in Rust's
/// shortest round-trip form, so they read back bit-exactly.
pub fn write_csv(path: &Path, set: &SampleSet) -> OutResult<()> {
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

/// Writes any serializable value as pretty JSON (atomically).
pub fn write_json(path: &Path, value: &impl Serialize) -> OutResult<()> {
    let text =
        serde_json::to_string_pretty(value).map_err(|source| OutputError::Json { path: path.to_path_buf(), source })?;
    let mut file = AtomicFile::create(path).map_err(io_error(path, "write"))?;
    file.write_all(text.as_bytes()).map_err(io_error(path, "write"))?;
    file.write_all(b"\n").map_err(io_error(path, "write"))?;
    file.commit().map_err(io_error(path, "write"))
}
