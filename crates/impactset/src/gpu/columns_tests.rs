//! Tests of the parallel column build (`columns.rs`): bit for bit the
//! serial, one-sample-at-a-time reading of the same outputs, for any thread
//! count and any split into batches.

use super::*;
use crate::gpu::types::FLAG_DONE;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A batch's outputs as the device could write them: random steps, every
/// combination of flags, scalars of every magnitude and sign (NaN too).
struct Raw {
    words: Vec<u32>,
    stats32: Vec<f32>,
    stats64: Vec<f64>,
    v32: Vec<f32>,
    v64: Vec<f64>,
    enum_words: Vec<u32>,
}

const STRIDE: usize = 5;

fn raw(count: usize, n: usize, guards: bool, seed: u64) -> Raw {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut flag_bits = [FLAG_TERMINATED, FLAG_ACCEPTED, FLAG_LCP_FAILED, FLAG_LOOP_LIMIT].to_vec();
    if guards {
        flag_bits.push(FLAG_GUARDED);
    }
    let mut words = Vec::with_capacity(2 * count);
    for _ in 0..count {
        words.push(rng.random_range(0..200));
        words.push(flag_bits.iter().filter(|_| rng.random_bool(0.3)).fold(FLAG_DONE, |f, b| f | b));
    }
    let scalar = |rng: &mut ChaCha8Rng| match rng.random_range(0..20) {
        0 => f64::NAN,
        1 => -0.0,
        _ => rng.random_range(-1.0..1.0) * 10f64.powi(rng.random_range(-30..30)),
    };
    let stats64: Vec<f64> = (0..3 * count).map(|_| scalar(&mut rng)).collect();
    let v64: Vec<f64> = (0..n * count).map(|_| scalar(&mut rng)).collect();
    let enum_words = (0..STRIDE * count).map(|_| rng.random()).collect();
    Raw {
        words,
        stats32: stats64.iter().map(|&x| x as f32).collect(),
        v32: v64.iter().map(|&x| x as f32).collect(),
        stats64,
        v64,
        enum_words,
    }
}

impl Raw {
    fn outputs(&self, precision: Precision, n: usize, velocities: bool, all: bool) -> Outputs<'_> {
        let (stats, v) = match precision {
            Precision::F32 => (Scalars::F32(&self.stats32), Scalars::F32(&self.v32)),
            Precision::F64 => (Scalars::F64(&self.stats64), Scalars::F64(&self.v64)),
        };
        Outputs {
            words: &self.words,
            stats,
            v: velocities.then_some(v),
            enum_words: all.then_some((&self.enum_words[..], STRIDE)),
            n,
        }
    }
}

/// The batch read one sample at a time into growing columns, as the host
/// did before the columns were built in parallel.
fn serial(o: &Outputs, count: usize, first_index: u64) -> FlatSamples {
    let mut out = FlatSamples::with_capacity(o.n, first_index, count);
    let flags = |i: usize| o.words[2 * i + 1];
    let ok = |f: u32, bit: u32| f & bit != 0 && f & FLAG_LOOP_LIMIT == 0;
    for i in 0..count {
        out.steps.push(o.words[2 * i]);
        out.terminated.push(ok(flags(i), FLAG_TERMINATED));
        out.accepted.push(ok(flags(i), FLAG_ACCEPTED));
        let failed = flags(i) & (FLAG_LCP_FAILED | FLAG_LOOP_LIMIT) != 0;
        out.max_residual.push(if failed { f64::INFINITY } else { o.stats.get(3 * i) });
        out.energy_before.push(o.stats.get(3 * i + 1));
        out.energy_after.push(o.stats.get(3 * i + 2));
        if let Some(v) = &o.v {
            out.v_plus.extend((0..o.n).map(|j| v.get(i * o.n + j)));
        }
        if let Some((words, stride)) = o.enum_words {
            out.fallback_steps.push(words[i * stride + 3]);
        }
    }
    if (0..count).any(|i| flags(i) & FLAG_GUARDED != 0) {
        out.energy_guard = (0..count).map(|i| flags(i) & FLAG_GUARDED != 0).collect();
    }
    out
}

fn assert_same_bits(a: &FlatSamples, b: &FlatSamples, what: &str) {
    let bits = |x: &[f64]| x.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
    assert_eq!((a.n, a.first_index, a.len()), (b.n, b.first_index, b.len()), "{what}");
    assert_eq!((&a.steps, &a.terminated, &a.accepted), (&b.steps, &b.terminated, &b.accepted), "{what}");
    for (x, y, name) in [
        (&a.v_plus, &b.v_plus, "v+"),
        (&a.max_residual, &b.max_residual, "residual"),
        (&a.energy_before, &b.energy_before, "E-"),
        (&a.energy_after, &b.energy_after, "E+"),
    ] {
        assert_eq!(bits(x), bits(y), "{what}: {name}");
    }
    assert_eq!((&a.fallback_steps, &a.energy_guard), (&b.fallback_steps, &b.energy_guard), "{what}");
    assert_eq!((&a.lcp_failure, &a.certified_steps), (&b.lcp_failure, &b.certified_steps), "{what}");
}

/// Every precision, with and without `v⁺`, `all`'s words and guards, one
/// batch or several of uneven sizes, on pools of 1 to 5 threads: the
/// columns equal the serial reading bit for bit.
#[test]
fn parallel_columns_are_the_serial_ones_bit_for_bit() {
    let count = 3 * CHUNK + 517;
    for (n, velocities, all, guards) in [(4, true, false, false), (7, true, true, true), (3, false, false, true)] {
        let raw = raw(count, n, guards, n as u64);
        for precision in [Precision::F32, Precision::F64] {
            let o = raw.outputs(precision, n, velocities, all);
            let expected = serial(&o, count, 11);
            for threads in 1..=5 {
                let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
                // One batch, then the same outputs in four batches of
                // uneven sizes written into one set of columns.
                for splits in [vec![count], vec![1, CHUNK + 3, 2 * CHUNK, 513]] {
                    let mut out = presized(n, 11, count, velocities, all);
                    let mut at = 0;
                    pool.install(|| {
                        for len in &splits {
                            o.write(at, *len, &mut out, at);
                            at += len;
                        }
                    });
                    let what = format!("n {n} {precision} {threads} threads, batches {splits:?}");
                    assert_same_bits(&out, &expected, &what);
                }
            }
        }
    }
}

/// Packed states: a batch's rows go to their own states' columns, at the
/// same offset; each state's columns are its rows read alone.
#[test]
fn rows_of_a_packed_batch_go_to_their_states() {
    let (n, rows, row_samples) = (3, 5, 300);
    let raw = raw(rows * row_samples, n, true, 9);
    let o = raw.outputs(Precision::F64, n, true, false);
    let expected = serial(&o, rows * row_samples, 0);
    // Each state's run of 400 samples; this batch fills 100 .. 400.
    let mut outs: Vec<FlatSamples> = (0..rows).map(|_| presized(n, 0, 400, true, false)).collect();
    for (r, out) in outs.iter_mut().enumerate() {
        o.write(r * row_samples, row_samples, out, 100);
    }
    for (r, out) in outs.iter().enumerate() {
        let mut alone = expected.clone();
        let mut row = alone.split_off(r * row_samples);
        row.split_off(row_samples);
        let mut written = out.clone();
        let written = written.split_off(100);
        let guards = row.energy_guard.iter().any(|&g| g);
        let mut row = FlatSamples { first_index: written.first_index, ..row };
        if !guards {
            row.energy_guard.clear();
        }
        assert_same_bits(&written, &row, &format!("state {r}"));
    }
}
