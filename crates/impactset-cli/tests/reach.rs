//! `impactset reach` and `reach-merge`: Parquet and CSV hold the same table,
//! shards merge into the whole run bit for bit, each state's set is the
//! `impactset sample` run of its state seed, and bad input is one line, exit 2.

mod common;

use std::path::{Path, PathBuf};

use arrow_array::{Array, Float64Array, ListArray, RecordBatch, StringArray, UInt64Array};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

use common::impactset;

fn ok(args: &[&str]) -> String {
    let out = impactset(args);
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

fn dir(test: &str) -> PathBuf {
    common::scratch("reach", test)
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A 6-state grid of compass-gait pre-impact velocities (the scene's,
/// scaled), as CSV with a header.
fn velocities(dir: &Path) -> PathBuf {
    let v = [-0.052_000_941_101_707_46, -0.244_537_071_657_524_2, 0.25, 0.25];
    let mut text = String::from("x,y,lead,trail\n");
    for k in 0..6 {
        let scale = 0.7 + 0.1 * k as f64;
        let row: Vec<String> = v.iter().map(|x| format!("{:?}", x * scale)).collect();
        text += &(row.join(",") + "\n");
    }
    let path = dir.join("v.csv");
    std::fs::write(&path, text).unwrap();
    path
}

/// CSV rows as cells (without the metadata line first and the end line
/// last).
fn csv(path: &Path) -> (Vec<String>, Vec<Vec<String>>) {
    let text = std::fs::read_to_string(path).unwrap();
    let all: Vec<&str> = text.lines().collect();
    assert!(all[0].starts_with("# impactset-reach {"), "{}", all[0]);
    assert!(all[all.len() - 1].starts_with("# impactset-reach-end {"), "{}", all[all.len() - 1]);
    let mut lines = all[1..all.len() - 1].iter().copied();
    let split = |l: &str| -> Vec<String> {
        // Quoted cells (labels with commas) hold no quotes here.
        let mut cells = Vec::new();
        let mut cell = String::new();
        let mut quoted = false;
        for ch in l.chars() {
            match ch {
                '"' => quoted = !quoted,
                ',' if !quoted => cells.push(std::mem::take(&mut cell)),
                _ => cell.push(ch),
            }
        }
        cells.push(cell);
        cells
    };
    let header = split(lines.next().unwrap());
    (header, lines.map(split).collect())
}

fn parquet(path: &Path) -> Vec<RecordBatch> {
    let file = std::fs::File::open(path).unwrap();
    ParquetRecordBatchReaderBuilder::try_new(file).unwrap().build().unwrap().map(|b| b.unwrap()).collect()
}

/// A Parquet cell in the CSV's notation.
fn cell(batch: &RecordBatch, column: usize, row: usize) -> String {
    let a = batch.column(column);
    if let Some(a) = a.as_any().downcast_ref::<UInt64Array>() {
        a.value(row).to_string()
    } else if let Some(a) = a.as_any().downcast_ref::<Float64Array>() {
        format!("{:?}", a.value(row))
    } else if let Some(a) = a.as_any().downcast_ref::<StringArray>() {
        a.value(row).to_string()
    } else if let Some(a) = a.as_any().downcast_ref::<ListArray>() {
        let values = a.value(row);
        let values = values.as_any().downcast_ref::<Float64Array>().unwrap();
        values.values().iter().map(|x| format!("{x:?}")).collect::<Vec<_>>().join(";")
    } else {
        panic!("column {column}: unexpected type {:?}", a.data_type())
    }
}

#[test]
fn parquet_and_csv_hold_the_same_table_for_any_thread_count() {
    let d = dir("formats");
    let v = velocities(&d);
    let (pq, csv1, csv2) = (d.join("t.parquet"), d.join("t1.csv"), d.join("t2.csv"));
    let common = ["reach", "compass-gait", "--velocities", s(&v), "-n", "64", "--seed", "3", "-q"];
    ok(&[&common[..], &["--out", s(&pq)]].concat());
    ok(&[&common[..], &["--out", s(&csv1), "--threads", "1"]].concat());
    ok(&[&common[..], &["--out", s(&csv2), "--threads", "2", "--window", "100"]].concat());
    assert_eq!(std::fs::read(&csv1).unwrap(), std::fs::read(&csv2).unwrap());
    let (header, rows) = csv(&csv1);
    assert_eq!(rows.len(), 6);
    let batches = parquet(&pq);
    let schema = batches[0].schema();
    let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
    assert_eq!(names, header.iter().map(String::as_str).collect::<Vec<_>>());
    for name in
        ["state", "seed", "accepted", "A_sticks", "v0_max", "B_normal_min", "epsilon", "simultaneous", "sequential_A"]
    {
        assert!(names.contains(&name), "no column {name}: {names:?}");
    }
    let mut k = 0;
    for batch in &batches {
        for r in 0..batch.num_rows() {
            let parquet_row: Vec<String> = (0..batch.num_columns()).map(|c| cell(batch, c, r)).collect();
            assert_eq!(parquet_row, rows[k], "row {k}");
            k += 1;
        }
    }
    assert_eq!(k, 6);
}

#[test]
fn shards_merge_into_the_whole_run_and_sets_are_the_single_runs() {
    let d = dir("shards");
    let v = velocities(&d);
    let common = [
        "reach",
        "compass-gait",
        "--velocities",
        s(&v),
        "-n",
        "40",
        "--seed",
        "5",
        "--selection",
        "random-lemke",
        "-q",
    ];
    for ext in ["csv", "parquet"] {
        let (whole, whole_sets) = (d.join(format!("whole.{ext}")), d.join(format!("whole-{ext}.npy")));
        ok(&[&common[..], &["--out", s(&whole), "--sets", s(&whole_sets)]].concat());
        let mut tables = Vec::new();
        let mut sets = Vec::new();
        for i in [2, 0, 1] {
            let (t, n) = (d.join(format!("shard{i}.{ext}")), d.join(format!("shard{i}-{ext}.npy")));
            let shard = format!("{i}/3");
            ok(&[&common[..], &["--out", s(&t), "--sets", s(&n), "--shard", &shard, "--threads", "1"]].concat());
            tables.push(t);
            sets.push(n);
        }
        let (merged, merged_sets) = (d.join(format!("merged.{ext}")), d.join(format!("merged-{ext}.npy")));
        let mut args = vec!["reach-merge", "--out", s(&merged), "--sets-out", s(&merged_sets)];
        args.extend(tables.iter().map(|p| s(p)));
        args.push("--sets");
        args.extend(sets.iter().map(|p| s(p)));
        ok(&args);
        assert_eq!(std::fs::read(&merged_sets).unwrap(), std::fs::read(&whole_sets).unwrap(), "{ext}");
        if ext == "csv" {
            assert_eq!(std::fs::read(&merged).unwrap(), std::fs::read(&whole).unwrap());
        } else {
            let cells = |path: &Path| -> Vec<Vec<String>> {
                parquet(path)
                    .iter()
                    .flat_map(|b| {
                        (0..b.num_rows())
                            .map(|r| (0..b.num_columns()).map(|c| cell(b, c, r)).collect::<Vec<_>>())
                            .collect::<Vec<_>>()
                    })
                    .collect()
            };
            assert_eq!(cells(&merged), cells(&whole));
        }
    }
    // State k's rows of the sets are `impactset sample` with the state seed
    // at v_k (same h, K, rule).
    let (header, rows) = csv(&d.join("whole.csv"));
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let all = impactset::io::read_npy(&d.join("whole-csv.npy")).unwrap();
    let mut offset = 0;
    for row in &rows {
        let accepted: usize = row[col("accepted")].parse().unwrap();
        let v: Vec<String> = (0..4).map(|i| row[col(&format!("v_minus_{i}"))].clone()).collect();
        let mut spec: serde_json::Value = serde_json::from_str(&ok(&["export", "compass-gait"])).unwrap();
        spec["velocity"] = v.iter().map(|x| x.parse::<f64>().unwrap()).collect();
        let problem = d.join(format!("state{}.json", row[0]));
        std::fs::write(&problem, spec.to_string()).unwrap();
        let single = d.join(format!("state{}.npy", row[0]));
        ok(&[
            "sample",
            s(&problem),
            "-n",
            "40",
            "--seed",
            &row[col("seed")],
            "--selection",
            "random-lemke",
            "--out",
            s(&single),
        ]);
        assert_eq!(impactset::io::read_npy(&single).unwrap(), all[offset..offset + accepted], "state {}", row[0]);
        offset += accepted;
    }
    assert_eq!(offset, all.len());
}

#[test]
fn a_folder_of_problems_is_one_state_per_file() {
    let d = dir("folder");
    let problems = d.join("problems");
    std::fs::create_dir_all(&problems).unwrap();
    for name in ["b", "a"] {
        std::fs::write(problems.join(format!("{name}.json")), ok(&["export", "rocking-block"])).unwrap();
    }
    let out = d.join("t.csv");
    ok(&["reach", s(&problems), "rocking-block", "-n", "16", "--out", s(&out), "--direction", "spin=0,0,1", "-q"]);
    let (header, rows) = csv(&out);
    assert_eq!(rows.len(), 3);
    assert!(header.contains(&"spin_max".to_string()) && !header.contains(&"v0_max".to_string()));
    // The same problem in every row: same seed rule, other state seeds, same figures' meaning.
    assert_eq!(rows[0][2], "rocking-block");
    assert_ne!(rows[0][1], rows[1][1]);
}

/// One line on stderr naming `expect`, exit code 2.
fn rejected(args: &[&str], expect: &str) {
    let out = impactset(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{args:?}: not one line: {stderr}");
    assert!(stderr.contains(expect), "{args:?}: `{expect}` not named: {stderr}");
}

#[test]
fn bad_input_is_one_line_and_exit_code_2() {
    let d = dir("errors");
    let out = d.join("t.csv");
    let bad_rows = d.join("bad.csv");
    std::fs::write(&bad_rows, "1,2,3,4\n1,2,3\n").unwrap();
    let not_numbers = d.join("nan.csv");
    std::fs::write(&not_numbers, "1,2,3,4\n1,x,3,4\n").unwrap();
    rejected(&["reach", "compass-gait", "--velocities", s(&bad_rows), "--out", s(&out)], "row 1 has 3 entries");
    rejected(&["reach", "compass-gait", "--velocities", s(&not_numbers), "--out", s(&out)], "line 2");
    rejected(&["reach", "compass-gait", "rocking-block", "--out", s(&out)], "rocking-block");
    rejected(&["reach", "compass-gait", "--out", s(&d.join("t.txt"))], "--out");
    rejected(&["reach", "compass-gait", "--out", s(&out), "--shard", "2/2"], "--shard 2/2");
    rejected(&["reach", "compass-gait", "--out", s(&out), "--direction", "c=1,2"], "direction c");
    rejected(&["reach", "compass-gait", "--out", s(&out), "-n", "0"], "--samples 0");
    rejected(&["reach", "no-such-scene", "--out", s(&out)], "no-such-scene");
    let (a, b) = (d.join("a.csv"), d.join("b.csv"));
    ok(&["reach", "compass-gait", "compass-gait", "-n", "8", "--out", s(&a), "-q"]);
    ok(&["reach", "compass-gait", "compass-gait", "-n", "8", "--out", s(&b), "-q", "--shard", "1/2"]);
    rejected(&["reach-merge", s(&a), s(&b), "--out", s(&d.join("m.csv"))], "overlap");
}
