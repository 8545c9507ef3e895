//! A file of pre-impact velocities: a `B × n` array as NPY, or as CSV with
//! one state per line (commas; a first line that is not numbers is a
//! header).

use super::ReachError;
use crate::io::parse_npy;

/// How a velocities file is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VelocityFormat {
    /// NPY (`.npy`): a 2-D float array, C or Fortran order.
    Npy,
    /// CSV: numbers separated by commas, one state per line.
    Csv,
}

/// The row-major `B × n` velocities in `bytes`.
///
/// Errors ([`ReachError::Velocities`], naming the line or row): not NPY or
/// not text, a cell that is not a number, a row of another length than `n`,
/// no rows at all (a batch needs a state). Entries are checked further by
/// [`ReachInput::velocities`](super::ReachInput::velocities).
pub fn parse_velocities(bytes: &[u8], format: VelocityFormat, n: usize) -> Result<Vec<f64>, ReachError> {
    let bad = |why: String| Err(ReachError::Velocities(why));
    let mut flat = Vec::new();
    let mut rows = 0usize;
    let mut push = |row: &[f64], flat: &mut Vec<f64>| -> Result<(), ReachError> {
        if row.len() != n {
            return Err(ReachError::Velocities(format!(
                "row {rows} has {} entries, the problem has n = {n}",
                row.len()
            )));
        }
        flat.extend_from_slice(row);
        rows += 1;
        Ok(())
    };
    match format {
        VelocityFormat::Npy => {
            for row in parse_npy(bytes).map_err(ReachError::Velocities)? {
                push(&row, &mut flat)?;
            }
        }
        VelocityFormat::Csv => {
            let Ok(text) = std::str::from_utf8(bytes) else { return bad("not UTF-8 text".into()) };
            let mut row = Vec::with_capacity(n);
            for (line_no, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
                row.clear();
                let parsed: Result<(), std::num::ParseFloatError> =
                    line.split(',').try_for_each(|c| c.trim().parse::<f64>().map(|x| row.push(x)));
                match parsed {
                    Ok(()) => push(&row, &mut flat)?,
                    Err(_) if line_no == 0 => continue,
                    Err(e) => return bad(format!("line {}: {e}", line_no + 1)),
                }
            }
        }
    }
    if rows == 0 {
        return bad("no rows: a batch needs at least one pre-impact velocity".into());
    }
    Ok(flat)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_csv_header_is_skipped_and_rows_are_checked() {
        let v = parse_velocities(b"x,y\n1,2\n\n3,4\n", VelocityFormat::Csv, 2).unwrap();
        assert_eq!(v, [1.0, 2.0, 3.0, 4.0]);
        let e = parse_velocities(b"1,2\n3\n", VelocityFormat::Csv, 2).unwrap_err().to_string();
        assert!(e.contains("row 1 has 1 entries"), "{e}");
        let e = parse_velocities(b"1,2\n3,x\n", VelocityFormat::Csv, 2).unwrap_err().to_string();
        assert!(e.contains("line 2"), "{e}");
    }

    #[test]
    fn empty_velocity_files_are_refused() {
        let dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (0, 2), }";
        let mut npy = b"\x93NUMPY\x01\x00".to_vec();
        npy.extend(((dict.len() + 1) as u16).to_le_bytes());
        npy.extend(dict.bytes().chain([b'\n']));
        for (bytes, format) in [
            (&b""[..], VelocityFormat::Csv),
            (b"x,y\n", VelocityFormat::Csv),
            (b"\n\n", VelocityFormat::Csv),
            (&npy, VelocityFormat::Npy),
        ] {
            let e = parse_velocities(bytes, format, 2).unwrap_err().to_string();
            assert!(e.contains("no rows"), "{e}");
        }
    }
}
