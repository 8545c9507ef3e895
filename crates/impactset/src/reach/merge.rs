//! Joining the tables and sets of shards (docs/model.md §12, "Files"): only
//! shards of one batch ([`BatchIdentity`]) whose state ranges cover it
//! exactly once, each table complete and in state order, each sets array
//! the one written with its table.

use super::identity::{META_FORMAT, SetsDigest, ShardMeta, TableEnd};

/// Why shards cannot be merged; `file` names the table or sets file.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{file}: {why}")]
pub struct MergeError {
    /// The file at fault.
    pub file: String,
    /// What is wrong.
    pub why: String,
}

/// One shard's table as read back: its metadata and the columns the merge
/// checks.
#[derive(Clone, Debug, PartialEq)]
pub struct ShardTable {
    /// The file, for messages.
    pub file: String,
    /// Its [`ShardMeta`].
    pub meta: ShardMeta,
    /// Its [`TableEnd`].
    pub end: TableEnd,
    /// The `state` column.
    pub states: Vec<u64>,
    /// The `accepted` column.
    pub accepted: Vec<u64>,
}

impl ShardTable {
    /// Checks the table against its own metadata: as many rows as states,
    /// the states `first, first + 1, …` in order.
    pub fn check(&self) -> Result<(), MergeError> {
        let bad = |why: String| Err(MergeError { file: self.file.clone(), why });
        let m = &self.meta;
        if m.format != META_FORMAT {
            return bad(format!("metadata format {}, this version reads {META_FORMAT}", m.format));
        }
        if m.first > m.end || m.end > m.batch.states {
            return bad(format!("states {}..{} of a batch of {}", m.first, m.end, m.batch.states));
        }
        let expected = m.end - m.first;
        let rows = self.states.len() as u64;
        if rows != expected || self.end.rows != expected || self.accepted.len() as u64 != rows {
            return bad(format!(
                "{rows} rows, its states {}..{} need {expected} (a cut or edited table)",
                m.first, m.end
            ));
        }
        for (i, &k) in self.states.iter().enumerate() {
            if k != m.first + i as u64 {
                return bad(format!("row {i}: state {k}, expected {} (rows out of order)", m.first + i as u64));
            }
        }
        Ok(())
    }

    /// Checks that a sets array of `rows` rows with `digest` is this
    /// table's: the table's sets had that count and digest, and its
    /// `accepted` column adds up to `rows`.
    pub fn check_sets(&self, file: &str, sets: &SetsDigest) -> Result<(), MergeError> {
        let bad = |why: String| Err(MergeError { file: file.to_string(), why });
        let accepted: u64 = self.accepted.iter().fold(0u64, |a, b| a.saturating_add(*b));
        let Some(own) = &self.end.sets else {
            return bad(format!("{} was written without sets", self.file));
        };
        if sets.rows != accepted || own != sets {
            return bad(format!(
                "{} rows (digest {}), {} accepted {accepted} (digest {}): not its sets (give --sets in the order of the tables)",
                sets.rows, sets.digest, self.file, own.digest
            ));
        }
        Ok(())
    }
}

/// How shards merge: the order of the tables (by first state) and the
/// metadata of the merged table.
#[derive(Clone, Debug, PartialEq)]
pub struct MergePlan {
    /// Indices of the tables, in state order.
    pub order: Vec<usize>,
    /// The merged table's metadata (the whole batch, no shard).
    pub meta: ShardMeta,
}

/// Checks every table ([`ShardTable::check`]), that all are of one batch
/// (naming the first setting that differs), and that their states cover
/// the batch exactly once (naming overlaps and missing states).
pub fn merge_plan(tables: &[ShardTable]) -> Result<MergePlan, MergeError> {
    let Some(first) = tables.first() else {
        return Err(MergeError { file: "reach-merge".into(), why: "no tables".into() });
    };
    for t in tables {
        t.check()?;
        if t.meta.batch != first.meta.batch {
            let why = difference(&t.meta, &first.meta).unwrap_or_else(|| "another batch".into());
            return Err(MergeError { file: t.file.clone(), why: format!("{why}, {}: not one batch", first.file) });
        }
    }
    let mut order: Vec<usize> = (0..tables.len()).collect();
    order.sort_by_key(|&i| (tables[i].meta.first, tables[i].meta.end));
    let mut next = 0u64;
    let mut previous: Option<usize> = None;
    for &i in &order {
        let t = &tables[i];
        if t.meta.first < next {
            let other = previous.map_or(String::new(), |j| format!(" and {}", tables[j].file));
            return Err(MergeError {
                file: t.file.clone(),
                why: format!("states {}..{}{other}: the shards' states overlap", t.meta.first, t.meta.end),
            });
        }
        if t.meta.first > next {
            return Err(MergeError {
                file: t.file.clone(),
                why: format!("states {next}..{} are in no table (a missing shard?)", t.meta.first),
            });
        }
        if t.meta.end > t.meta.first {
            next = t.meta.end;
            previous = Some(i);
        }
    }
    let states = first.meta.batch.states;
    if next != states {
        let last = previous.map_or_else(|| first.file.clone(), |j| tables[j].file.clone());
        return Err(MergeError {
            file: last,
            why: format!("states {next}..{states} of the batch of {states} are in no table (a missing shard?)"),
        });
    }
    let meta = ShardMeta { shard: None, first: 0, end: states, ..first.meta.clone() };
    Ok(MergePlan { order, meta })
}

/// `"<field> <theirs>, <ours>"` for the first field of the batch identity
/// that differs.
fn difference(theirs: &ShardMeta, ours: &ShardMeta) -> Option<String> {
    let a = serde_json::to_value(&theirs.batch).ok()?;
    let b = serde_json::to_value(&ours.batch).ok()?;
    let (a, b) = (a.as_object()?, b.as_object()?);
    // In the order of the fields; the digests last.
    let keys = [
        "states",
        "seed",
        "samples",
        "steps",
        "step_size",
        "selection",
        "schedule",
        "baselines",
        "heldout_every",
        "delta",
        "extremes",
    ];
    let keys = keys.into_iter().chain(["input", "settings"]);
    keys.map(String::from).chain(a.keys().cloned()).find(|k| a.get(k) != b.get(k)).map(|k| {
        let name = match k.as_str() {
            "input" => "problems or velocities: digest",
            "settings" => "directions or tolerances: digest",
            other => other,
        };
        let show = |x: Option<&serde_json::Value>| x.map_or("-".into(), |x| x.to_string());
        format!("{name} {}, not {}", show(a.get(&k)), show(b.get(&k)))
    })
}

#[cfg(test)]
mod tests {
    use super::super::identity::BatchIdentity;
    use super::*;

    fn table(file: &str, first: u64, end: u64, seed: u64) -> ShardTable {
        let batch = BatchIdentity {
            states: 6,
            seed,
            samples: 8,
            steps: 10,
            step_size: None,
            selection: "all".into(),
            schedule: "mixed".into(),
            baselines: true,
            heldout_every: 4,
            delta: 0.05,
            extremes: None,
            input: "0".into(),
            settings: "0".into(),
        };
        let meta = ShardMeta { format: META_FORMAT, batch, shard: None, first, end };
        ShardTable {
            file: file.into(),
            meta,
            end: TableEnd { rows: end - first, sets: None },
            states: (first..end).collect(),
            accepted: vec![1; (end - first) as usize],
        }
    }

    #[test]
    fn shards_of_one_batch_merge_in_state_order() {
        let plan = merge_plan(&[table("b", 3, 6, 1), table("a", 0, 3, 1), table("e", 3, 3, 1)]).unwrap();
        assert_eq!(plan.order, [1, 2, 0]);
        assert_eq!((plan.meta.first, plan.meta.end), (0, 6));
    }

    #[test]
    fn a_missing_shard_an_overlap_or_another_seed_is_refused() {
        let e = merge_plan(&[table("a", 0, 2, 1), table("c", 4, 6, 1)]).unwrap_err();
        assert!(e.to_string().contains("states 2..4 are in no table"), "{e}");
        let e = merge_plan(&[table("a", 0, 4, 1)]).unwrap_err();
        assert!(e.to_string().contains("states 4..6"), "{e}");
        let e = merge_plan(&[table("a", 0, 4, 1), table("b", 3, 6, 1)]).unwrap_err();
        assert!(e.to_string().contains("overlap"), "{e}");
        let e = merge_plan(&[table("a", 0, 3, 1), table("b", 3, 6, 2)]).unwrap_err();
        assert!(e.to_string().starts_with("b: seed 2, not 1"), "{e}");
    }

    #[test]
    fn rows_out_of_order_or_missing_are_refused() {
        let mut t = table("a", 0, 3, 1);
        t.states.swap(1, 2);
        assert!(t.check().unwrap_err().to_string().contains("row 1: state 2, expected 1"));
        let mut t = table("a", 0, 3, 1);
        t.states.pop();
        t.accepted.pop();
        assert!(t.check().unwrap_err().to_string().contains("2 rows"));
    }
}
