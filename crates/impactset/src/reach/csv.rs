//! The table as CSV text (docs/model.md §12, "Files"): a metadata line
//! `# impactset-reach <json>` ([`ShardMeta`]), the column names, one line per
//! state (every float in its shortest round-trip form, `NaN`/`inf` spelled
//! so, lists `;`-separated, text quoted when it holds a comma, quote, line
//! break or `#`), and an end line `# impactset-reach-end <json>` ([`TableEnd`]). A
//! cut file lacks its end line; pandas reads the table with `comment="#"`
//! (a `#` elsewhere is inside quotes).

use super::identity::{ShardMeta, TableEnd};
use super::merge::{MergeError, ShardTable};
use super::{ReachRow, ReachSchema, Value};

/// Start of the metadata line.
pub const CSV_META_PREFIX: &str = "# impactset-reach ";
/// Start of the end line.
pub const CSV_END_PREFIX: &str = "# impactset-reach-end ";

/// The first two lines: metadata and column names (each ending in `\n`).
pub fn csv_head(schema: &ReachSchema, meta: &ShardMeta) -> String {
    let names: Vec<String> = schema.columns().iter().map(|c| csv_field(&c.name)).collect();
    format!("{}{}\n", csv_meta(meta), names.join(","))
}

/// The metadata line (ending in `\n`).
pub fn csv_meta(meta: &ShardMeta) -> String {
    format!("{CSV_META_PREFIX}{}\n", serde_json::to_string(meta).expect("metadata serializes"))
}

/// One row's line (ending in `\n`).
pub fn csv_row(schema: &ReachSchema, row: &ReachRow) -> String {
    let cells: Vec<String> = schema.values(row).into_iter().map(csv_cell).collect();
    cells.join(",") + "\n"
}

/// The last line (ending in `\n`).
pub fn csv_end(end: &TableEnd) -> String {
    format!("{CSV_END_PREFIX}{}\n", serde_json::to_string(end).expect("end serializes"))
}

/// A float as Rust's shortest round-trip form (`NaN`, `inf`, `-inf`
/// included): the CSV holds every bit of the table.
fn float(x: f64) -> String {
    format!("{x:?}")
}

fn csv_cell(v: Value) -> String {
    match v {
        Value::U64(x) => x.to_string(),
        Value::F64(x) => float(x),
        Value::Text(s) => csv_field(s),
        Value::F64List(xs) => xs.iter().map(|x| float(*x)).collect::<Vec<_>>().join(";"),
    }
}

/// A CSV field, quoted when it holds a comma, a quote, a line break or a
/// `#` (so that a reader skipping `#` comments keeps the cell whole).
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r', '#']) { format!("\"{}\"", s.replace('"', "\"\"")) } else { s.to_string() }
}

/// A table read back: the column-name line, every row's line as written
/// (without its `\n`), and what the merge checks.
#[derive(Clone, Debug, PartialEq)]
pub struct CsvTable<'a> {
    /// The column names line.
    pub header: &'a str,
    /// The rows' lines.
    pub rows: Vec<&'a str>,
    /// Metadata and the `state` and `accepted` columns.
    pub table: ShardTable,
}

/// Reads a table written by [`csv_head`], [`csv_row`] and [`csv_end`]:
/// metadata line, column names with `state` and `accepted`, rows of as many
/// cells as names, the end line last, every line ended.
///
/// Errors name `file` and the line.
pub fn parse_csv_table<'a>(file: &str, text: &'a str) -> Result<CsvTable<'a>, MergeError> {
    let bad = |why: String| MergeError { file: file.to_string(), why };
    let records = records(text).map_err(bad)?;
    let mut it = records.into_iter();
    let meta_line = it.next().map(|r| r.0).unwrap_or("");
    let Some(json) = meta_line.strip_prefix(CSV_META_PREFIX) else {
        return Err(bad(format!("line 1 is not `{}…` (not a reach table of this version)", CSV_META_PREFIX.trim())));
    };
    let meta: ShardMeta = serde_json::from_str(json).map_err(|e| bad(format!("line 1: {e}")))?;
    let Some((header, names)) = it.next() else { return Err(bad("no column names (line 2)".into())) };
    let column = |name: &str| names.iter().position(|c| c == name);
    let (Some(state_col), Some(accepted_col)) = (column("state"), column("accepted")) else {
        return Err(bad("line 2: no `state` or `accepted` column (not a reach table)".into()));
    };
    let rest: Vec<(&str, Vec<String>)> = it.collect();
    let Some(((last, _), rows)) = rest.split_last() else {
        return Err(bad(format!("no `{}` line: a cut table", CSV_END_PREFIX.trim())));
    };
    let Some(json) = last.strip_prefix(CSV_END_PREFIX) else {
        return Err(bad(format!("no `{}` line: a cut table", CSV_END_PREFIX.trim())));
    };
    let end: TableEnd = serde_json::from_str(json).map_err(|e| bad(format!("end line: {e}")))?;
    let mut states = Vec::with_capacity(rows.len());
    let mut accepted = Vec::with_capacity(rows.len());
    for (i, (_, cells)) in rows.iter().enumerate() {
        let line = i + 3;
        if cells.len() != names.len() {
            return Err(bad(format!("line {line}: {} cells, {} columns", cells.len(), names.len())));
        }
        let int = |col: usize| -> Result<u64, MergeError> {
            cells[col].parse().map_err(|_| bad(format!("line {line}: {} {:?} is not a count", names[col], cells[col])))
        };
        states.push(int(state_col)?);
        accepted.push(int(accepted_col)?);
    }
    let table = ShardTable { file: file.to_string(), meta, end, states, accepted };
    Ok(CsvTable { header, rows: rows.iter().map(|r| r.0).collect(), table })
}

/// The records of `text` (a line break inside quotes belongs to the cell):
/// each record's text and cells. The text must end with a line break.
fn records(text: &str) -> Result<Vec<(&str, Vec<String>)>, String> {
    if !text.is_empty() && !text.ends_with('\n') {
        return Err("the last line is not ended (a cut table)".into());
    }
    let mut out = Vec::new();
    let mut start = 0;
    let mut cells = Vec::new();
    let mut cell = String::new();
    let mut quoted = false;
    let mut chars = text.char_indices().peekable();
    while let Some((i, ch)) = chars.next() {
        match ch {
            '"' if quoted && chars.peek().is_some_and(|(_, c)| *c == '"') => {
                chars.next();
                cell.push('"');
            }
            '"' => quoted = !quoted,
            ',' if !quoted => cells.push(std::mem::take(&mut cell)),
            '\n' if !quoted => {
                cells.push(std::mem::take(&mut cell));
                out.push((&text[start..i], std::mem::take(&mut cells)));
                start = i + 1;
            }
            _ => cell.push(ch),
        }
    }
    if quoted {
        return Err("a quoted cell is not closed (a cut table)".into());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_with_a_hash_is_quoted() {
        assert_eq!(csv_field("robot#2"), "\"robot#2\"");
        assert_eq!(csv_field("A sticks"), "A sticks");
    }

    #[test]
    fn quoted_cells_hold_commas_quotes_and_line_breaks() {
        let r = records("a,\"b,\"\"c\"\"\nd\",e\nx\n").unwrap();
        assert_eq!(r.len(), 2);
        assert_eq!(r[0].1, ["a", "b,\"c\"\nd", "e"]);
        assert_eq!(r[1].0, "x");
        assert!(records("a,b").is_err());
        assert!(records("a,\"b\n").is_err());
    }
}
