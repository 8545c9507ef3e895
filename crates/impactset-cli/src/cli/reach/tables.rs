//! The table of a batch on disk: Parquet (arrow types, one row group per
//! few thousand states) or CSV, written as the states finish, and merged
//! from shards.

use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use arrow_array::builder::{Float64Builder, ListBuilder, StringBuilder, UInt64Builder};
use arrow_array::{Array, ArrayRef, RecordBatch, RecordBatchReader, UInt64Array};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use parquet::arrow::ArrowWriter;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;

use impactset::reach::{ColumnKind, ReachRow, ReachSchema, Value};

/// Rows per Parquet row group (and per flush).
const ROW_GROUP: usize = 4096;

/// Whether `path` names a Parquet file (`.parquet`, `.pq`); else CSV.
pub fn is_parquet(path: &Path) -> bool {
    path.extension().and_then(|e| e.to_str()).is_some_and(|e| e.eq_ignore_ascii_case("parquet") || e == "pq")
}

/// Streams rows into a Parquet or CSV file.
pub enum TableWriter {
    /// Parquet: rows buffered in column builders, a row group per [`ROW_GROUP`].
    Parquet { path: PathBuf, schema: SchemaRef, writer: Box<ArrowWriter<File>>, builders: Vec<Builder>, rows: usize },
    /// CSV with a header line.
    Csv { path: PathBuf, out: BufWriter<File> },
}

/// A column being built.
pub enum Builder {
    U64(UInt64Builder),
    F64(Float64Builder),
    Text(StringBuilder),
    F64List(ListBuilder<Float64Builder>),
}

/// The arrow schema of a table.
pub fn arrow_schema(schema: &ReachSchema) -> SchemaRef {
    let fields: Vec<Field> = schema
        .columns()
        .iter()
        .map(|c| {
            let kind = match c.kind {
                ColumnKind::U64 => DataType::UInt64,
                ColumnKind::F64 => DataType::Float64,
                ColumnKind::Text => DataType::Utf8,
                ColumnKind::F64List => DataType::List(Arc::new(Field::new("item", DataType::Float64, true))),
            };
            Field::new(&c.name, kind, false)
        })
        .collect();
    Arc::new(Schema::new(fields))
}

impl TableWriter {
    /// Creates `path` (Parquet or CSV by extension) for rows of `schema`.
    pub fn create(path: &Path, schema: &ReachSchema) -> Result<Self> {
        let file = File::create(path).with_context(|| format!("{}: cannot create", path.display()))?;
        if is_parquet(path) {
            let arrow = arrow_schema(schema);
            let writer = parquet_writer(file, path, &arrow)?;
            let builders = schema.columns().iter().map(|c| builder(c.kind)).collect();
            Ok(TableWriter::Parquet { path: path.into(), schema: arrow, writer: Box::new(writer), builders, rows: 0 })
        } else {
            let mut out = BufWriter::new(file);
            let names: Vec<String> = schema.columns().iter().map(|c| csv_field(&c.name)).collect();
            writeln!(out, "{}", names.join(",")).with_context(|| format!("{}: cannot write", path.display()))?;
            Ok(TableWriter::Csv { path: path.into(), out })
        }
    }

    /// Appends one row.
    pub fn write(&mut self, schema: &ReachSchema, row: &ReachRow) -> Result<()> {
        match self {
            TableWriter::Parquet { builders, rows, .. } => {
                for (b, v) in builders.iter_mut().zip(schema.values(row)) {
                    append(b, v);
                }
                *rows += 1;
                if *rows == ROW_GROUP {
                    self.flush()?;
                }
            }
            TableWriter::Csv { path, out } => {
                let cells: Vec<String> = schema.values(row).into_iter().map(csv_cell).collect();
                writeln!(out, "{}", cells.join(",")).with_context(|| format!("{}: cannot write", path.display()))?;
            }
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        if let TableWriter::Parquet { path, schema, writer, builders, rows } = self {
            if *rows == 0 {
                return Ok(());
            }
            let columns: Vec<ArrayRef> = builders.iter_mut().map(finish).collect();
            let batch = RecordBatch::try_new(schema.clone(), columns)?;
            writer.write(&batch).with_context(|| format!("{}: cannot write", path.display()))?;
            writer.flush().with_context(|| format!("{}: cannot write", path.display()))?;
            *rows = 0;
        }
        Ok(())
    }

    /// Completes the file.
    pub fn finish(mut self) -> Result<()> {
        self.flush()?;
        match self {
            TableWriter::Parquet { path, writer, .. } => {
                writer.close().with_context(|| format!("{}: cannot write", path.display()))?;
            }
            TableWriter::Csv { path, mut out } => {
                out.flush().with_context(|| format!("{}: cannot write", path.display()))?
            }
        }
        Ok(())
    }
}

fn parquet_writer(file: File, path: &Path, schema: &SchemaRef) -> Result<ArrowWriter<File>> {
    let props = WriterProperties::builder().set_compression(Compression::SNAPPY).build();
    ArrowWriter::try_new(file, schema.clone(), Some(props)).with_context(|| format!("{}: cannot write", path.display()))
}

fn builder(kind: ColumnKind) -> Builder {
    match kind {
        ColumnKind::U64 => Builder::U64(UInt64Builder::new()),
        ColumnKind::F64 => Builder::F64(Float64Builder::new()),
        ColumnKind::Text => Builder::Text(StringBuilder::new()),
        ColumnKind::F64List => Builder::F64List(ListBuilder::new(Float64Builder::new())),
    }
}

fn append(b: &mut Builder, v: Value) {
    match (b, v) {
        (Builder::U64(b), Value::U64(x)) => b.append_value(x),
        (Builder::F64(b), Value::F64(x)) => b.append_value(x),
        (Builder::Text(b), Value::Text(x)) => b.append_value(x),
        (Builder::F64List(b), Value::F64List(xs)) => {
            b.values().append_slice(xs);
            b.append(true);
        }
        _ => unreachable!("ReachSchema::values follows ReachSchema::columns"),
    }
}

fn finish(b: &mut Builder) -> ArrayRef {
    match b {
        Builder::U64(b) => Arc::new(b.finish()),
        Builder::F64(b) => Arc::new(b.finish()),
        Builder::Text(b) => Arc::new(b.finish()),
        Builder::F64List(b) => Arc::new(b.finish()),
    }
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

/// A CSV field, quoted when it holds a comma, a quote or a line break.
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) { format!("\"{}\"", s.replace('"', "\"\"")) } else { s.to_string() }
}

/// Merges shard tables (all Parquet or all CSV, same columns) into `out`,
/// ordered by their first state; the states must not overlap. Returns the
/// order of the inputs used (for their sets).
pub fn merge(inputs: &[PathBuf], out: &Path) -> Result<Vec<usize>> {
    if inputs.iter().any(|p| is_parquet(p) != is_parquet(out)) {
        bail!("{}: the merged table and the shards must all be Parquet or all CSV", out.display());
    }
    if is_parquet(out) { merge_parquet(inputs, out) } else { merge_csv(inputs, out) }
}

/// Orders shards by first state and checks that their state ranges do not
/// overlap: `ranges[i]` is shard `i`'s (first, last) state, `None` if empty.
fn order(inputs: &[PathBuf], ranges: &[Option<(u64, u64)>]) -> Result<Vec<usize>> {
    let mut order: Vec<usize> = (0..inputs.len()).collect();
    order.sort_by_key(|&i| ranges[i].map_or(0, |r| r.0));
    let mut last: Option<(usize, u64)> = None;
    for &i in &order {
        if let Some((first, end)) = ranges[i] {
            if let Some((j, prev)) = last
                && first <= prev
            {
                bail!("{} and {}: the shards' states overlap", inputs[j].display(), inputs[i].display());
            }
            last = Some((i, end));
        }
    }
    Ok(order)
}

fn merge_parquet(inputs: &[PathBuf], out: &Path) -> Result<Vec<usize>> {
    let mut tables = Vec::new();
    let mut ranges = Vec::new();
    for path in inputs {
        let file = File::open(path).with_context(|| format!("{}: cannot read", path.display()))?;
        let reader = ParquetRecordBatchReaderBuilder::try_new(file)
            .with_context(|| format!("{}: not a Parquet file", path.display()))?
            .build()?;
        let schema = reader.schema();
        let batches: Vec<RecordBatch> =
            reader.collect::<Result<_, _>>().with_context(|| format!("{}: cannot read", path.display()))?;
        let states: Vec<u64> = batches
            .iter()
            .filter_map(|b| b.column_by_name("state")?.as_any().downcast_ref::<UInt64Array>().cloned())
            .flat_map(|a| a.values().to_vec())
            .collect();
        if schema.column_with_name("state").is_none() {
            bail!("{}: no `state` column (not a reach table)", path.display());
        }
        ranges.push(states.first().map(|f| (*f, *states.last().expect("non-empty"))));
        tables.push((path, schema, batches));
    }
    let order = order(inputs, &ranges)?;
    let schema = tables[order[0]].1.clone();
    for (path, other, _) in &tables {
        if other.fields() != schema.fields() {
            bail!("{}: other columns than {}", path.display(), tables[order[0]].0.display());
        }
    }
    let file = File::create(out).with_context(|| format!("{}: cannot create", out.display()))?;
    let mut writer = parquet_writer(file, out, &schema)?;
    for &i in &order {
        for batch in &tables[i].2 {
            writer.write(batch).with_context(|| format!("{}: cannot write", out.display()))?;
        }
    }
    writer.close().with_context(|| format!("{}: cannot write", out.display()))?;
    Ok(order)
}

fn merge_csv(inputs: &[PathBuf], out: &Path) -> Result<Vec<usize>> {
    let mut tables = Vec::new();
    let mut ranges = Vec::new();
    for path in inputs {
        let file = File::open(path).with_context(|| format!("{}: cannot read", path.display()))?;
        let mut lines = BufReader::new(file).lines();
        let header = lines.next().transpose()?.unwrap_or_default();
        if !header.starts_with("state,") {
            bail!("{}: the first column is not `state` (not a reach table)", path.display());
        }
        let rows: Vec<String> =
            lines.collect::<Result<_, _>>().with_context(|| format!("{}: cannot read", path.display()))?;
        let state = |line: &String| -> Result<u64> {
            let cell = line.split(',').next().unwrap_or("");
            cell.parse().with_context(|| format!("{}: state {cell:?} is not an integer", path.display()))
        };
        ranges.push(match (rows.first(), rows.last()) {
            (Some(a), Some(b)) => Some((state(a)?, state(b)?)),
            _ => None,
        });
        tables.push((path, header, rows));
    }
    let order = order(inputs, &ranges)?;
    let header = &tables[order[0]].1;
    let mut w = BufWriter::new(File::create(out).with_context(|| format!("{}: cannot create", out.display()))?);
    let context = || format!("{}: cannot write", out.display());
    writeln!(w, "{header}").with_context(context)?;
    for &i in &order {
        let (path, other, rows) = &tables[i];
        if other != header {
            bail!("{}: other columns than {}", path.display(), tables[order[0]].0.display());
        }
        for row in rows {
            writeln!(w, "{row}").with_context(context)?;
        }
    }
    w.flush().with_context(context)?;
    Ok(order)
}
