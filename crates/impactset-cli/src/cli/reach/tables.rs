//! The table of a batch on disk: Parquet (arrow types, one row group per
//! few thousand states, the batch's metadata as key-value pairs) or CSV
//! (the core's text format, [`impactset::reach::csv_head`]), written as the
//! states finish into a temporary file that replaces the target only when
//! complete; and shard tables read back for a merge.

use std::collections::HashMap;
use std::fs::File;
use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, Result};
use arrow_array::builder::{Float64Builder, ListBuilder, StringBuilder, UInt64Builder};
use arrow_array::{Array, ArrayRef, RecordBatch, RecordBatchReader, UInt64Array};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use parquet::arrow::ArrowWriter;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::basic::Compression;
use parquet::file::metadata::KeyValue;
use parquet::file::properties::WriterProperties;

use impactset::io::AtomicFile;
use impactset::reach::{
    ColumnKind, END_KEY, META_KEY, MergeError, ReachRow, ReachSchema, ShardMeta, ShardTable, TableEnd, Value, csv_end,
    csv_head, csv_meta, csv_row, parse_csv_table,
};

/// Rows per Parquet row group (and per flush).
const ROW_GROUP: usize = 4096;

/// Whether `path` names a Parquet file (`.parquet`, `.pq`); else CSV.
pub fn is_parquet(path: &Path) -> bool {
    path.extension().and_then(|e| e.to_str()).is_some_and(|e| e.eq_ignore_ascii_case("parquet") || e == "pq")
}

/// Streams rows into a Parquet or CSV file.
pub enum TableWriter {
    /// Parquet: rows buffered in column builders, a row group per [`ROW_GROUP`].
    Parquet {
        path: Box<Path>,
        schema: SchemaRef,
        writer: Box<ArrowWriter<AtomicFile>>,
        builders: Vec<Builder>,
        rows: usize,
        meta: String,
    },
    /// CSV: metadata line, header line, rows, end line.
    Csv { path: Box<Path>, out: AtomicFile },
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

fn cannot_write(path: &Path) -> impl Fn() -> String + '_ {
    move || format!("{}: cannot write", path.display())
}

impl TableWriter {
    /// Starts the temporary file of `path` (Parquet or CSV by extension)
    /// for rows of `schema`, of the shard `meta`.
    pub fn create(path: &Path, schema: &ReachSchema, meta: &ShardMeta) -> Result<Self> {
        let file = AtomicFile::create(path).with_context(|| format!("{}: cannot create", path.display()))?;
        if is_parquet(path) {
            let arrow = arrow_schema(schema);
            let writer = parquet_writer(file, path, &arrow)?;
            let builders = schema.columns().iter().map(|c| builder(c.kind)).collect();
            let meta = serde_json::to_string(meta)?;
            Ok(TableWriter::Parquet {
                path: path.into(),
                schema: arrow,
                writer: Box::new(writer),
                builders,
                rows: 0,
                meta,
            })
        } else {
            let mut out = file;
            out.write_all(csv_head(schema, meta).as_bytes()).with_context(cannot_write(path))?;
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
                out.write_all(csv_row(schema, row).as_bytes()).with_context(cannot_write(path))?;
            }
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        if let TableWriter::Parquet { path, schema, writer, builders, rows, .. } = self {
            if *rows == 0 {
                return Ok(());
            }
            let columns: Vec<ArrayRef> = builders.iter_mut().map(finish).collect();
            let batch = RecordBatch::try_new(schema.clone(), columns)?;
            writer.write(&batch).with_context(cannot_write(path))?;
            writer.flush().with_context(cannot_write(path))?;
            *rows = 0;
        }
        Ok(())
    }

    /// Completes the file with its `end`: whole, still under its temporary
    /// name until [`AtomicFile::commit`].
    pub fn finish(mut self, end: &TableEnd) -> Result<AtomicFile> {
        self.flush()?;
        let end_json = serde_json::to_string(end)?;
        match self {
            TableWriter::Parquet { path, mut writer, meta, .. } => {
                writer.append_key_value_metadata(KeyValue::new(META_KEY.into(), meta));
                writer.append_key_value_metadata(KeyValue::new(END_KEY.into(), end_json));
                writer.into_inner().with_context(cannot_write(&path))
            }
            TableWriter::Csv { path, mut out } => {
                out.write_all(csv_end(end).as_bytes()).with_context(cannot_write(&path))?;
                Ok(out)
            }
        }
    }
}

fn parquet_writer(file: AtomicFile, path: &Path, schema: &SchemaRef) -> Result<ArrowWriter<AtomicFile>> {
    let props = WriterProperties::builder().set_compression(Compression::SNAPPY).build();
    ArrowWriter::try_new(file, schema.clone(), Some(props)).with_context(cannot_write(path))
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

/// A shard's table read back whole: what the merge checks and the rows.
pub struct ShardFile {
    /// Metadata, states and accepted counts.
    pub table: ShardTable,
    content: Content,
}

impl ShardFile {
    /// The number `n` of velocity coordinates (the `v_minus_<i>` columns).
    pub fn coordinates(&self) -> usize {
        let is_v = |name: &str| name.strip_prefix("v_minus_").is_some_and(|i| i.parse::<usize>().is_ok());
        match &self.content {
            Content::Parquet(schema, _) => schema.fields().iter().filter(|f| is_v(f.name())).count(),
            Content::Csv(header, _) => header.split(',').filter(|c| is_v(c)).count(),
        }
    }
}

enum Content {
    /// The columns (metadata stripped) and the record batches.
    Parquet(SchemaRef, Vec<RecordBatch>),
    /// The column-name line and the rows' lines.
    Csv(String, Vec<String>),
}

fn merge_error(file: &Path, why: impl std::fmt::Display) -> anyhow::Error {
    MergeError { file: file.display().to_string(), why: why.to_string() }.into()
}

/// Reads a shard's table (Parquet or CSV by extension).
pub fn read(path: &Path) -> Result<ShardFile> {
    let file_name = path.display().to_string();
    if !is_parquet(path) {
        let bytes = std::fs::read(path).map_err(|e| merge_error(path, format!("cannot read: {e}")))?;
        let text = std::str::from_utf8(&bytes).map_err(|_| merge_error(path, "not UTF-8 text"))?;
        let parsed = parse_csv_table(&file_name, text)?;
        let rows = parsed.rows.iter().map(|r| r.to_string()).collect();
        return Ok(ShardFile { table: parsed.table, content: Content::Csv(parsed.header.to_string(), rows) });
    }
    let file = File::open(path).map_err(|e| merge_error(path, format!("cannot read: {e}")))?;
    let builder = ParquetRecordBatchReaderBuilder::try_new(file)
        .map_err(|e| merge_error(path, format!("not a Parquet file: {e}")))?;
    let kv: HashMap<&str, &str> = builder
        .metadata()
        .file_metadata()
        .key_value_metadata()
        .map(|kv| kv.iter().filter_map(|p| Some((p.key.as_str(), p.value.as_deref()?))).collect())
        .unwrap_or_default();
    let (Some(meta), Some(end)) = (kv.get(META_KEY), kv.get(END_KEY)) else {
        return Err(merge_error(path, format!("no `{META_KEY}` metadata (not a reach table of this version)")));
    };
    let meta: ShardMeta = serde_json::from_str(meta).map_err(|e| merge_error(path, format!("{META_KEY}: {e}")))?;
    let end: TableEnd = serde_json::from_str(end).map_err(|e| merge_error(path, format!("{END_KEY}: {e}")))?;
    let reader = builder.build().map_err(|e| merge_error(path, e))?;
    let schema = Arc::new(Schema::new(reader.schema().fields().clone()));
    let batches: Vec<RecordBatch> = reader
        .map(|b| b.and_then(|b| RecordBatch::try_new(schema.clone(), b.columns().to_vec())))
        .collect::<Result<_, _>>()
        .map_err(|e| merge_error(path, format!("cannot read: {e}")))?;
    let column = |name: &str| -> Result<Vec<u64>> {
        let mut out = Vec::new();
        for b in &batches {
            let a = b.column_by_name(name).and_then(|a| a.as_any().downcast_ref::<UInt64Array>().cloned());
            let a = a.ok_or_else(|| merge_error(path, format!("no `{name}` column of counts (not a reach table)")))?;
            out.extend(a.values().iter().copied());
        }
        Ok(out)
    };
    let table = ShardTable { file: file_name, meta, end, states: column("state")?, accepted: column("accepted")? };
    Ok(ShardFile { table, content: Content::Parquet(schema, batches) })
}

/// Writes the merged table of `shards` (in `order`) with `meta` and `end`
/// to `out`'s temporary file; the shards must have the same columns.
pub fn write_merged(
    shards: &[ShardFile],
    order: &[usize],
    out: &Path,
    meta: &ShardMeta,
    end: &TableEnd,
) -> Result<AtomicFile> {
    let first = &shards[order[0]];
    let same_columns = |s: &ShardFile| match (&s.content, &first.content) {
        (Content::Parquet(a, _), Content::Parquet(b, _)) => a.fields() == b.fields(),
        (Content::Csv(a, _), Content::Csv(b, _)) => a == b,
        _ => false,
    };
    if let Some(other) = shards.iter().find(|s| !same_columns(s)) {
        return Err(merge_error(Path::new(&other.table.file), format!("other columns than {}", first.table.file)));
    }
    let file = AtomicFile::create(out).with_context(|| format!("{}: cannot create", out.display()))?;
    match &first.content {
        Content::Parquet(schema, _) => {
            let mut writer = parquet_writer(file, out, schema)?;
            for &i in order {
                if let Content::Parquet(_, batches) = &shards[i].content {
                    for batch in batches {
                        writer.write(batch).with_context(cannot_write(out))?;
                    }
                }
            }
            writer.append_key_value_metadata(KeyValue::new(META_KEY.into(), serde_json::to_string(meta)?));
            writer.append_key_value_metadata(KeyValue::new(END_KEY.into(), serde_json::to_string(end)?));
            writer.into_inner().with_context(cannot_write(out))
        }
        Content::Csv(header, _) => {
            let mut file = file;
            let head = csv_meta(meta) + header + "\n";
            file.write_all(head.as_bytes()).with_context(cannot_write(out))?;
            for &i in order {
                if let Content::Csv(_, rows) = &shards[i].content {
                    for row in rows {
                        file.write_all(row.as_bytes()).with_context(cannot_write(out))?;
                        file.write_all(b"\n").with_context(cannot_write(out))?;
                    }
                }
            }
            file.write_all(csv_end(end).as_bytes()).with_context(cannot_write(out))?;
            Ok(file)
        }
    }
}
