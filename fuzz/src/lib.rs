//! The fuzz targets' bodies: each takes arbitrary bytes and must return
//! without panicking, hanging or aborting on an allocation; where it gets an
//! answer it checks it.

mod extremes;
mod restitution;

pub use extremes::extremes_args;
pub use restitution::restitution_file;

use impactset::io::{ProblemFile, parse_npy};
use impactset::lcp::{LcpResidual, LemkeOptions, LemkeWorkspace};
use impactset::reach::{
    ReachInput, ReachOptions, SetsDigester, StateProblem, VelocityFormat, merge_plan, parse_csv_table, parse_velocities,
};
use impactset::{SamplerOptions, Selection};

/// A problem file: the first byte picks JSON or TOML, the rest is the text.
/// Parsing and validation either fail with a message naming a field or give
/// a problem that samples.
pub fn problem_file(data: &[u8]) {
    let Some((&kind, text)) = data.split_first() else { return };
    let Ok(text) = std::str::from_utf8(text) else { return };
    let file: Option<ProblemFile> =
        if kind % 2 == 0 { serde_json::from_str(text).ok() } else { toml::from_str(text).ok() };
    let Some(file) = file else { return };
    match file.into_spec("fuzz".into()) {
        Ok(spec) => sample_briefly(&spec.problem, spec.step_size),
        Err((field, message)) => assert!(!field.is_empty() && !message.is_empty()),
    }
}

/// Most contacts for which the harness runs the rule `all`: each of its
/// steps tries every mode tuple, `(4d + 3)^m` of them (docs/model.md §5b),
/// so four spatial contacts cost seconds per input with the fuzzer's
/// instrumentation (a 1 KB cube-flat file took 3 s and, on a loaded
/// machine, libFuzzer's 10 s timeout). Slow by design, not a hang: the
/// enumerator is fuzzed on up to three contacts.
const MAX_ALL_CONTACTS: usize = 3;

/// Two samples of every rule, at most 4 steps each: finite outputs, no
/// energy gain beyond round-off in an accepted sample.
pub(crate) fn sample_briefly(problem: &impactset::ImpactProblem, step_size: Option<f64>) {
    if problem.operators().step_size_n() > 64 {
        return;
    }
    for selection in Selection::ALL {
        if selection == Selection::All && problem.contacts().len() > MAX_ALL_CONTACTS {
            continue;
        }
        let options =
            SamplerOptions { samples: 2, steps: Some(4), step_size, selection, threads: Some(1), ..Default::default() };
        if options.validate(problem).is_err() {
            return;
        }
        let set = impactset::sample_set(problem, &options);
        for s in set.accepted() {
            assert!(s.v_plus.iter().all(|x| x.is_finite()), "{s:?}");
            assert!(s.energy_after <= s.energy_before * (1.0 + 1e-9) + 1e-300, "{s:?}");
        }
    }
}

/// An NPY file: an error, or rows of equal length whose count and length
/// the file's size allows.
pub fn npy(data: &[u8]) {
    if let Ok(rows) = parse_npy(data) {
        let cols = rows.first().map_or(0, Vec::len);
        assert!(rows.iter().all(|r| r.len() == cols));
        assert!(rows.len() * cols * 8 <= data.len());
    }
}

/// Reads `f64`s from bytes: 8 bytes each, any bit pattern (NaN, ∞, subnormal).
struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    fn byte(&mut self) -> u8 {
        let Some((&b, rest)) = self.0.split_first() else { return 0 };
        self.0 = rest;
        b
    }
    fn f64(&mut self) -> f64 {
        let mut b = [0u8; 8];
        for x in &mut b {
            *x = self.byte();
        }
        f64::from_le_bytes(b)
    }
    /// A float from a small menu of ordinary values, or raw bits.
    fn value(&mut self) -> f64 {
        match self.byte() % 8 {
            0 => 0.0,
            1 => 1.0,
            2 => -1.0,
            3 => (self.byte() as f64 - 128.0) / 16.0,
            4 => 10f64.powi(self.byte() as i32 - 128),
            _ => self.f64(),
        }
    }
}

/// A problem of 1–3 contacts built from bytes (planar or spatial), validated,
/// then one Routh step of each rule: validation refuses it, or every step
/// returns a finite impulse or an error.
pub fn routh_step(data: &[u8]) {
    use nalgebra::{DMatrix, DVector};
    let mut r = Reader(data);
    let spatial = r.byte() % 2 == 1;
    let n = 1 + r.byte() as usize % 6;
    let m = 1 + r.byte() as usize % 3;
    let l = DMatrix::from_fn(n, n, |i, j| {
        if i == j {
            1.0 + r.value().abs().min(1e3)
        } else if i > j {
            r.value()
        } else {
            0.0
        }
    });
    let mass = &l * l.transpose();
    let velocity = DVector::from_fn(n, |_, _| r.value());
    let contacts = (0..m)
        .map(|_| {
            let mut row = || DVector::from_fn(n, |_, _| r.value());
            let normal = row();
            let tangents = if spatial { vec![row(), row()] } else { vec![row()] };
            impactset::Contact { name: String::new(), normal, tangents, friction: r.value(), restitution: 0.0 }
        })
        .collect::<Vec<_>>();
    let d = spatial.then(|| 4 + 2 * (r.byte() as usize % 4));
    // Restitution last, so the saved corpus decodes as before: each
    // contact's coefficient one of 0, 1/3, 2/3, 1 (0 where the input ends).
    let contacts = contacts
        .into_iter()
        .map(|c| {
            let e = f64::from(r.byte() % 4) / 3.0;
            c.with_restitution(e)
        })
        .collect();
    let Ok(problem) = impactset::ImpactProblem::with_friction_directions(mass, velocity, contacts, d) else { return };
    let h = problem.default_step_size();
    sample_briefly(&problem, Some(h));
}

/// Lemke on an LCP of size 1–8 from bytes (any floats, NaN and ∞ included):
/// an error, or a `z` whose residual, recomputed here, is the one reported.
pub fn lemke(data: &[u8]) {
    let mut r = Reader(data);
    let size = 1 + r.byte() as usize % 8;
    let a: Vec<f64> = (0..size * size).map(|_| r.value()).collect();
    let q: Vec<f64> = (0..size).map(|_| r.value()).collect();
    let mut ws = LemkeWorkspace::new(size);
    let options = LemkeOptions::default();
    if let Ok(sol) = ws.solve(&a, &q, &options) {
        let z = sol.z.to_vec();
        let reported = sol.residual;
        let mut w = vec![0.0; size];
        let again = LcpResidual::compute(&a, &q, &z, &mut w);
        let same = |x: f64, y: f64| x == y || (x.is_nan() && y.is_nan());
        assert!(same(again.violation(), reported.violation()), "{again:?} vs {reported:?}");
    }
}

/// The velocities file of `impactset reach`: the first byte picks CSV or
/// NPY, the rest is the file, for a two-coordinate problem (a point mass on
/// a floor). The reader gives an error, or whole non-empty rows; the batch
/// takes them or refuses an entry out of range; a batch that passes the
/// checks runs its first two states (two samples each) without panicking.
pub fn reach_input(data: &[u8]) {
    let Some((&kind, bytes)) = data.split_first() else { return };
    let format = if kind % 2 == 0 { VelocityFormat::Csv } else { VelocityFormat::Npy };
    let Ok(velocities) = parse_velocities(bytes, format, 2) else { return };
    assert!(!velocities.is_empty() && velocities.len() % 2 == 0);
    let floor = impactset::Contact::planar("A", nalgebra::dvector![0.0, 1.0], nalgebra::dvector![1.0, 0.0], 0.5);
    let problem =
        impactset::ImpactProblem::new(nalgebra::DMatrix::identity(2, 2), nalgebra::dvector![0.0, -1.0], vec![floor])
            .expect("a valid problem");
    let base = StateProblem { name: "fuzz".into(), problem, step_size: None };
    let Ok(input) = ReachInput::velocities(base, velocities.clone()) else { return };
    assert!(velocities.iter().all(|x| x.is_finite() && x.abs() <= impactset::problem::RANGE));
    let options = ReachOptions {
        sampler: SamplerOptions { samples: 2, steps: Some(4), selection: Selection::Lemke, ..Default::default() },
        baselines: false,
        ..Default::default()
    };
    let states = 0..input.len().min(2);
    if impactset::reach::validate(&input, &options, states.clone()).is_err() {
        return;
    }
    let backend = impactset::run::Backend::cpu(Some(1)).expect("one thread");
    let control = impactset::run::RunControl::default();
    let mut rows = 0;
    impactset::reach::reach_stream::<impactset::reach::ReachError>(
        &backend,
        &input,
        &options,
        states.clone(),
        &control,
        &mut |r| {
            assert_eq!(r.row.state, states.start as u64 + rows);
            rows += 1;
            Ok(())
        },
    )
    .expect("a checked batch runs");
    assert_eq!(rows as usize, states.len());
}

/// Splits bytes into `(table, sets)` pairs: a count byte, then for each
/// shard a 16-bit length and that many bytes of CSV table, then a 16-bit
/// length and the bytes of its NPY sets.
fn shards(data: &[u8]) -> Vec<(&[u8], &[u8])> {
    let Some((&count, mut rest)) = data.split_first() else { return Vec::new() };
    let mut take = || -> &[u8] {
        let len = match rest {
            [a, b, tail @ ..] => {
                rest = tail;
                u16::from_le_bytes([*a, *b]) as usize
            }
            _ => std::mem::take(&mut rest).len(),
        };
        let (head, tail) = rest.split_at(len.min(rest.len()));
        rest = tail;
        head
    };
    (0..1 + count as usize % 4).map(|_| (take(), take())).collect()
}

/// `impactset reach-merge` on CSV shard tables and their NPY sets
/// ([`shards`]): each table is read back or refused with a message; when
/// the merge accepts the tables, they hold every state of the batch once in
/// state order; a sets file accepted for its table has as many rows as the
/// table accepts samples. Returns, for a merge, how many sets files were
/// accepted.
pub fn reach_merge(data: &[u8]) -> Option<usize> {
    let pairs = shards(data);
    let mut tables = Vec::new();
    for (k, (table, _)) in pairs.iter().enumerate() {
        let text = std::str::from_utf8(table).ok()?;
        match parse_csv_table(&format!("shard{k}.csv"), text) {
            Ok(t) => {
                assert_eq!(t.rows.len(), t.table.states.len());
                tables.push(t.table);
            }
            Err(e) => {
                assert!(!e.why.is_empty());
                return None;
            }
        }
    }
    let plan = merge_plan(&tables).ok()?;
    let mut accepted = 0;
    let states: Vec<u64> = plan.order.iter().flat_map(|&i| tables[i].states.iter().copied()).collect();
    assert!(states.iter().copied().eq(0..plan.meta.end), "{states:?}");
    assert_eq!(plan.meta.end, tables[0].meta.batch.states);
    for &i in &plan.order {
        let Ok(rows) = parse_npy(pairs[i].1) else { continue };
        let n = rows.first().map_or(1, Vec::len);
        if rows.iter().any(|r| r.len() != n) {
            continue;
        }
        let mut digest = SetsDigester::default();
        rows.iter().for_each(|r| digest.add(r));
        if tables[i].check_sets("sets.npy", &digest.finish(n)).is_ok() {
            assert_eq!(rows.len() as u64, tables[i].accepted.iter().sum::<u64>());
            accepted += 1;
        }
    }
    Some(accepted)
}
