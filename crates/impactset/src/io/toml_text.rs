//! A problem file as TOML people can read: one line per matrix row.

use super::ProblemFile;

/// `file` as TOML: every value on one line (`velocity = [..]`), except the
/// matrices (`mass_matrix`, `bilateral`, a spatial contact's `tangents`),
/// written one row per line. The numbers are `toml`'s own text, so
/// [`load_problem`](super::load_problem) reads back the same bits.
pub fn problem_toml(file: &ProblemFile) -> Result<String, toml::ser::Error> {
    let compact = toml::to_string(file)?;
    let mut text = String::with_capacity(compact.len() + 64);
    for line in compact.lines() {
        match matrix_rows(line) {
            Some((key, rows)) => {
                text.push_str(key);
                text.push_str(" = [\n");
                for row in rows {
                    text.push_str("    ");
                    text.push_str(row);
                    text.push_str(",\n");
                }
                text.push_str("]\n");
            }
            None => {
                text.push_str(line);
                text.push('\n');
            }
        }
    }
    Ok(text)
}

/// The key and the rows (`[a, b]` each) of a line `key = [[a, b], [c, d]]`
/// whose value is an array of arrays of numbers; `None` for any other line.
fn matrix_rows(line: &str) -> Option<(&str, Vec<&str>)> {
    let (key, value) = line.split_once(" = ")?;
    let inner = value.strip_prefix("[[")?.strip_suffix("]]")?;
    // Numbers only: no string, table or deeper array can hide a separator.
    if !inner.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '+' | ',' | ' ' | '[' | ']')) {
        return None;
    }
    let rows: Vec<&str> = inner.split("], [").collect();
    if rows.iter().any(|r| r.contains('[') || r.contains(']')) {
        return None;
    }
    // The rows with their brackets: slices of `value` around each row.
    let start = value.as_ptr() as usize;
    let mut out = Vec::with_capacity(rows.len());
    for row in rows {
        let at = row.as_ptr() as usize - start;
        out.push(&value[at - 1..at + row.len() + 1]);
    }
    Some((key, out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::ContactFile;

    fn file() -> ProblemFile {
        ProblemFile {
            name: Some("two rows".into()),
            mass_matrix: vec![vec![1.0, 0.1 + 0.2], vec![0.1 + 0.2, 2.0]],
            velocity: vec![-1.0, 0.1 + 0.7],
            contacts: vec![ContactFile {
                name: Some("A, [x], y".into()),
                normal: vec![0.0, 1.0],
                tangent: Some(vec![1.0, 0.0]),
                tangents: None,
                friction: 0.5,
                restitution: 0.0,
            }],
            friction_directions: None,
            bilateral: None,
            step_size: Some(1.0 / 3.0),
            steps: None,
            samples: None,
            schedule: None,
        }
    }

    #[test]
    fn matrices_are_written_one_row_per_line_and_read_back_exactly() {
        let file = file();
        let text = problem_toml(&file).unwrap();
        assert!(
            text.contains("mass_matrix = [\n    [1.0, 0.30000000000000004],\n    [0.30000000000000004, 2.0],\n]\n")
        );
        assert!(text.contains("velocity = [-1.0, 0.7999999999999999]\n"), "{text}");
        let again: ProblemFile = toml::from_str(&text).unwrap();
        assert_eq!(again, file);
    }

    #[test]
    fn only_numeric_matrices_are_split() {
        assert_eq!(matrix_rows("x = [[1, 2], [3, 4]]"), Some(("x", vec!["[1, 2]", "[3, 4]"])));
        assert_eq!(matrix_rows("name = \"[[a], [b]]\""), None);
        assert_eq!(matrix_rows("x = [[[1], [2]]]"), None);
        assert_eq!(matrix_rows("x = [1, 2]"), None);
    }
}
