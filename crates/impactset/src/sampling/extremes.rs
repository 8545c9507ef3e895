//! The worst case as a query (docs/model.md §5d): for a direction `c`, a
//! directed search over impulse-rate schedules for the outcome of largest
//! `cᵀv⁺`, and the ordered anchors (every contact order as a schedule).
//!
//! Every outcome returned is a sample of the model under a schedule it
//! states, replayable with [`replay`]: a certified member of the set, so
//! its value is a lower bound on the set's support `max_{v⁺ ∈ V} cᵀv⁺`.

use std::sync::atomic::{AtomicBool, Ordering};

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;

use super::extremes_query::{DIRECTION_BLOCK_BITS, check_budget, check_direction_count};
use super::sample::{CapSource, SampleWorkspace, Trajectory, run_sample_from};
use super::{OptionsError, SamplerOptions, in_pool, sample_range};
use crate::ImpactProblem;
use crate::impact::ImpactOutcome;
use crate::stream;

/// Selection-stream indices of the search's candidates start here (far
/// from any run's samples): candidate `e` of direction `d` is
/// `SEARCH_INDEX + d·2²⁴ + e` (the limits of
/// [`MAX_EXTREMES_DIRECTIONS`](super::MAX_EXTREMES_DIRECTIONS) and
/// [`MAX_EXTREMES_BUDGET`](super::MAX_EXTREMES_BUDGET) keep them distinct).
pub const SEARCH_INDEX: u64 = 1 << 41;

/// Selection-stream indices of the ordered anchors: anchor `j` is
/// `ANCHOR_INDEX + j`.
pub const ANCHOR_INDEX: u64 = 1 << 42;

/// The most anchors: every order when `m! ≤ MAX_ANCHORS`, else this many
/// seeded random orders.
pub const MAX_ANCHORS: usize = 720;

/// The selection rule of an extremes query when none is given: the search
/// evaluates thousands of schedules per direction, one Lemke solve a step
/// keeps that affordable on many contacts (`all` may be given).
pub const EXTREMES_SELECTION: crate::Selection = crate::Selection::RandomLemke;

/// Parameters of the directed search (cross-entropy over schedules).
#[derive(Clone, Debug, PartialEq)]
pub struct ExtremesOptions {
    /// Schedules evaluated per direction (default 2048, at most
    /// [`MAX_EXTREMES_BUDGET`](super::MAX_EXTREMES_BUDGET)).
    pub budget: usize,
    /// Candidates drawn per round (default 32).
    pub population: usize,
    /// Best schedules kept and refit each round (default 8).
    pub elites: usize,
}

impl Default for ExtremesOptions {
    fn default() -> Self {
        ExtremesOptions { budget: 2048, population: 32, elites: 8 }
    }
}

/// Where an extreme outcome was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Origin {
    /// A sample of the run's law.
    Sample,
    /// An ordered anchor (contacts resolved one after the other).
    Anchor,
    /// A schedule of the directed search.
    Search,
}

impl Origin {
    /// The word outputs use (`sample`, `anchor`, `search`), as serialized.
    pub fn name(self) -> &'static str {
        match self {
            Origin::Sample => "sample",
            Origin::Anchor => "anchor",
            Origin::Search => "search",
        }
    }
}

/// The best outcome found in one direction.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Extreme {
    /// The direction `c`.
    pub direction: Vec<f64>,
    /// `cᵀv⁺`: a lower bound on the support of the set in direction `c`.
    pub value: f64,
    /// The best of the run's own samples, `max cᵀv⁺` over the sampled set.
    pub sampled: f64,
    /// The outcome `v⁺`.
    pub v_plus: Vec<f64>,
    /// Its schedule: the caps `p` of every step taken.
    pub schedule: Vec<Vec<f64>>,
    /// The selection-stream index that, with the schedule, replays it.
    pub index: u64,
    /// Where it was found.
    pub origin: Origin,
    /// Schedules evaluated by the search.
    pub evaluations: usize,
}

/// One ordered anchor: the outcome of resolving the contacts one after the
/// other in `order` (the first contact of the order still approaching runs
/// at cap 1, every other at 0).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Anchor {
    /// The contact order.
    pub order: Vec<usize>,
    /// The sample (with its schedule in `steps`).
    pub trajectory: Trajectory,
}

/// Replays a schedule: the sample whose step `k` takes the caps
/// `schedule[k]` (every cap 1 past its end) and whose selection rule reads
/// the selection stream of `index`, with the step cap `K` or the schedule's
/// length if longer (an anchor's).
pub fn replay(problem: &ImpactProblem, options: &SamplerOptions, schedule: &[Vec<f64>], index: u64) -> Trajectory {
    let steps = options.with_steps(problem).cap().max(schedule.len());
    let options = &SamplerOptions { steps: Some(steps), ..options.clone() };
    trajectory(problem, options, index, CapSource::Given(schedule))
}

fn trajectory(problem: &ImpactProblem, options: &SamplerOptions, index: u64, source: CapSource<'_>) -> Trajectory {
    let key = stream::stream_key(options.seed);
    let mut ws = SampleWorkspace::new(problem);
    let mut steps = Vec::new();
    let sample = run_sample_from(problem, options, &key, index, &mut ws, Some(&mut steps), source);
    Trajectory { sample, steps }
}

/// The contact orders of the anchors: all `m!` in lexicographic order when
/// `m! ≤ count`, else `count` orders drawn by seeded Fisher–Yates shuffles.
pub fn anchor_orders(m: usize, count: usize, seed: u64) -> Vec<Vec<usize>> {
    let factorial = (1..=m).try_fold(1usize, |f, k| f.checked_mul(k));
    if factorial.is_some_and(|f| f <= count) {
        let mut orders = Vec::new();
        permutations(&mut (0..m).collect(), 0, &mut orders);
        orders.sort();
        return orders;
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..count)
        .map(|_| {
            let mut order: Vec<usize> = (0..m).collect();
            for i in (1..m).rev() {
                order.swap(i, rng.random_range(0..=i));
            }
            order
        })
        .collect()
}

fn permutations(items: &mut Vec<usize>, k: usize, out: &mut Vec<Vec<usize>>) {
    if k == items.len() {
        out.push(items.clone());
        return;
    }
    for i in k..items.len() {
        items.swap(k, i);
        permutations(items, k + 1, out);
        items.swap(k, i);
    }
}

/// The ordered anchors of `problem` (at most `count`, see [`anchor_orders`]),
/// under the run's selection rule with the step cap `m·K` (each contact
/// resolved in turn gets the run's `K` steps); anchor `j` reads the
/// selection stream of `ANCHOR_INDEX + j`. Runs on the current rayon pool
/// (as [`extremes_from`]; [`extremes`] installs `options.threads`).
pub fn anchors(problem: &ImpactProblem, options: &SamplerOptions, count: usize) -> Vec<Anchor> {
    let orders = anchor_orders(problem.m(), count, options.seed);
    let steps = (options.with_steps(problem).cap() * problem.m()).min(super::MAX_STEPS);
    let options = &SamplerOptions { steps: Some(steps), ..options.clone() };
    orders
        .into_par_iter()
        .enumerate()
        .map(|(j, order)| {
            let trajectory = trajectory(problem, options, ANCHOR_INDEX + j as u64, CapSource::Priority(&order));
            Anchor { order, trajectory }
        })
        .collect()
}

/// The accepted ordered anchors as labelled outcomes (`order A → B → C`,
/// contact names), for summaries and figures (`impactset sample --anchors`).
pub fn anchor_outcomes(problem: &ImpactProblem, options: &SamplerOptions, count: usize) -> Vec<ImpactOutcome> {
    anchors(problem, options, count)
        .into_iter()
        .filter(|a| a.trajectory.sample.accepted)
        .map(|a| {
            let names: Vec<&str> = a.order.iter().map(|&i| problem.contacts()[i].name.as_str()).collect();
            let v = nalgebra::DVector::from_vec(a.trajectory.sample.v_plus);
            ImpactOutcome::new(problem, format!("order {}", names.join(" → ")), v)
        })
        .collect()
}

/// A schedule and its outcome.
#[derive(Clone)]
struct Candidate {
    value: f64,
    index: u64,
    origin: Origin,
    schedule: Vec<Vec<f64>>,
    v_plus: Vec<f64>,
}

impl Candidate {
    fn of(trajectory: Trajectory, c: &[f64], origin: Origin) -> Option<Self> {
        let s = &trajectory.sample;
        s.accepted.then(|| Candidate {
            value: dot(c, &s.v_plus),
            index: s.index,
            origin,
            schedule: trajectory.steps.into_iter().map(|r| r.p).collect(),
            v_plus: s.v_plus.clone(),
        })
    }

    /// Better: larger value, then the smaller index (a total order, so the
    /// result does not depend on evaluation order).
    fn better(&self, other: &Candidate) -> bool {
        self.value > other.value || (self.value == other.value && self.index < other.index)
    }
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// For each direction `c` (length `n`), the best outcome found: the run's
/// samples (`options`: its law, seed and sample count), the ordered anchors,
/// then a cross-entropy search over schedules of `options.steps` steps
/// seeded from the best of those (docs/model.md §5d). Deterministic in the
/// seed, whatever the thread count.
pub fn extremes(
    problem: &ImpactProblem,
    options: &SamplerOptions,
    directions: &[Vec<f64>],
    search: &ExtremesOptions,
) -> Result<Vec<Extreme>, OptionsError> {
    Ok(extremes_with(problem, options, directions, search, &SearchControl::default())?
        .expect("a search without a cancel flag completes"))
}

/// How a caller follows and stops an [`extremes_with`] search.
pub struct SearchControl<'a> {
    /// Called with `k` each time `k` more samples or schedules are done
    /// (`options.samples + directions × budget` in all), possibly from
    /// worker threads.
    pub progress: &'a (dyn Fn(usize) + Sync),
    /// When set, the search stops (before the next sample, between rounds).
    pub cancel: Option<&'a AtomicBool>,
}

impl Default for SearchControl<'_> {
    fn default() -> Self {
        SearchControl { progress: &|_| {}, cancel: None }
    }
}

impl SearchControl<'_> {
    fn cancelled(&self) -> bool {
        self.cancel.is_some_and(|c| c.load(Ordering::Relaxed))
    }
}

/// [`extremes`] with progress and cancellation: `Ok(None)` when cancelled.
pub fn extremes_with(
    problem: &ImpactProblem,
    options: &SamplerOptions,
    directions: &[Vec<f64>],
    search: &ExtremesOptions,
    control: &SearchControl<'_>,
) -> Result<Option<Vec<Extreme>>, OptionsError> {
    options.validate(problem)?;
    check_direction_count(directions.len())?;
    check_budget(search.budget)?;
    let err = |field: &'static str, value: String, why: &str| Err(OptionsError { field, value, why: why.into() });
    for (d, c) in directions.iter().enumerate() {
        if c.len() != problem.n() || c.iter().any(|x| !x.is_finite()) {
            return err("directions", format!("#{d}"), &format!("must be {} finite numbers", problem.n()));
        }
    }
    if search.population == 0 || search.elites == 0 || search.elites > search.population {
        return err("elites", search.elites.to_string(), "must lie within 1 … population (and population ≥ 1)");
    }
    let mut options = options.clone();
    if options.resolve_steps(problem, &|_| {}, control.cancel).is_err() {
        return Ok(None);
    }
    let options = &options;
    // One pool for the whole query (a pool per search round would start
    // threads thousands of times).
    Ok(in_pool(options.threads, || {
        let samples =
            sample_range(problem, options, options.first_index, options.samples, control.progress, control.cancel)?;
        let anchors = anchors(problem, options, MAX_ANCHORS);
        searched(problem, options, directions, search, &samples, &anchors, control)
    }))
}

/// The search of [`extremes`] from given seeds: `samples` (of `options`'s
/// law, seed and step size: the best `elites` are replayed by index) and
/// `anchors` (of [`anchors`] under `options`). Directions and search
/// options are taken as checked (`population ≥ elites ≥ 1`, each `c` of
/// length `n`). Runs on the current rayon pool.
pub fn extremes_from(
    problem: &ImpactProblem,
    options: &SamplerOptions,
    directions: &[Vec<f64>],
    search: &ExtremesOptions,
    samples: &[super::Sample],
    anchors: &[Anchor],
) -> Vec<Extreme> {
    let options = &options.with_steps(problem);
    searched(problem, options, directions, search, samples, anchors, &SearchControl::default())
        .expect("a search without a cancel flag completes")
}

/// [`extremes_from`] under `control`: `None` when cancelled.
fn searched(
    problem: &ImpactProblem,
    options: &SamplerOptions,
    directions: &[Vec<f64>],
    search: &ExtremesOptions,
    samples: &[super::Sample],
    anchors: &[Anchor],
    control: &SearchControl<'_>,
) -> Option<Vec<Extreme>> {
    directions
        .iter()
        .enumerate()
        .map(|(d, c)| {
            let mut seeds: Vec<(f64, u64)> =
                samples.iter().filter(|s| s.accepted).map(|s| (dot(c, &s.v_plus), s.index)).collect();
            seeds.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
            let sampled = seeds.first().map_or(f64::NEG_INFINITY, |s| s.0);
            let mut pool: Vec<Candidate> = seeds
                .iter()
                .take(search.elites)
                .filter_map(|&(_, index)| {
                    Candidate::of(trajectory(problem, options, index, CapSource::Law), c, Origin::Sample)
                })
                .collect();
            pool.extend(anchors.iter().filter_map(|a| Candidate::of(a.trajectory.clone(), c, Origin::Anchor)));
            let (best, evaluations) = cross_entropy(problem, options, c, d as u64, pool, search, control)?;
            Some(match best {
                Some(b) => Extreme {
                    direction: c.clone(),
                    value: b.value,
                    sampled,
                    v_plus: b.v_plus,
                    schedule: b.schedule,
                    index: b.index,
                    origin: b.origin,
                    evaluations,
                },
                None => Extreme {
                    direction: c.clone(),
                    value: f64::NEG_INFINITY,
                    sampled,
                    v_plus: Vec::new(),
                    schedule: Vec::new(),
                    index: 0,
                    origin: Origin::Search,
                    evaluations,
                },
            })
        })
        .collect()
}

/// Keeps the `elites` best of `pool` (in place, best first).
fn keep_best(pool: &mut Vec<Candidate>, elites: usize) {
    pool.sort_by(|a, b| {
        if a.better(b) {
            std::cmp::Ordering::Less
        } else if b.better(a) {
            std::cmp::Ordering::Greater
        } else {
            std::cmp::Ordering::Equal
        }
    });
    pool.truncate(elites);
}

/// Cross-entropy over the caps `p_(k,i)` of `K` steps: each round draws
/// `population` schedules `p = clamp(μ + σ z, 0, 1)`, `z` standard normal
/// (clamping puts mass on the vertices 0 and 1, where the extremes lie),
/// keeps the `elites` best of all seen and refits `μ`, `σ` to them
/// (smoothed 0.7 new + 0.3 old, `σ ≥ 0.02`). Returns the best and the
/// evaluations spent; `None` when `control` cancels (checked every round).
fn cross_entropy(
    problem: &ImpactProblem,
    options: &SamplerOptions,
    c: &[f64],
    direction: u64,
    mut pool: Vec<Candidate>,
    search: &ExtremesOptions,
    control: &SearchControl<'_>,
) -> Option<(Option<Candidate>, usize)> {
    let (k, m) = (options.cap(), problem.m());
    keep_best(&mut pool, search.elites);
    let padded = |s: &[Vec<f64>], step: usize, i: usize| s.get(step).map_or(1.0, |p| p[i]);
    let mut mean = vec![0.5; k * m];
    let mut spread = vec![0.35; k * m];
    let fit = |pool: &[Candidate], mean: &mut [f64], spread: &mut [f64], first: bool| {
        if pool.is_empty() {
            return;
        }
        for step in 0..k {
            for i in 0..m {
                let xs: Vec<f64> = pool.iter().map(|e| padded(&e.schedule, step, i)).collect();
                let mu = xs.iter().sum::<f64>() / xs.len() as f64;
                let sd = (xs.iter().map(|x| (x - mu).powi(2)).sum::<f64>() / xs.len() as f64).sqrt();
                let j = step * m + i;
                if first {
                    (mean[j], spread[j]) = (mu, sd.max(0.25));
                } else {
                    mean[j] = 0.7 * mu + 0.3 * mean[j];
                    spread[j] = (0.7 * sd + 0.3 * spread[j]).max(0.02);
                }
            }
        }
    };
    fit(&pool, &mut mean, &mut spread, true);
    let mut rng = ChaCha8Rng::seed_from_u64(options.seed);
    rng.set_stream(direction);
    let mut evaluations = 0;
    while evaluations < search.budget {
        if control.cancelled() {
            return None;
        }
        let round = search.population.min(search.budget - evaluations);
        let schedules: Vec<(u64, Vec<Vec<f64>>)> = (0..round)
            .map(|e| {
                let schedule = (0..k)
                    .map(|step| {
                        (0..m)
                            .map(|i| (mean[step * m + i] + spread[step * m + i] * normal(&mut rng)).clamp(0.0, 1.0))
                            .collect()
                    })
                    .collect();
                (SEARCH_INDEX + (direction << DIRECTION_BLOCK_BITS) + (evaluations + e) as u64, schedule)
            })
            .collect();
        let found: Vec<Candidate> = schedules
            .par_iter()
            .filter_map(|(index, schedule)| {
                Candidate::of(replay(problem, options, schedule, *index), c, Origin::Search)
            })
            .collect();
        evaluations += round;
        (control.progress)(round);
        pool.extend(found);
        keep_best(&mut pool, search.elites);
        fit(&pool, &mut mean, &mut spread, false);
    }
    Some((pool.into_iter().next(), evaluations))
}

/// `count` directions `c = M d / ‖d‖_M`, `d` standard normal from the
/// seed's own stream: uniform on the unit sphere of the energy norm, with
/// `cᵀv = ⟨d, v⟩_M / ‖d‖_M`, so values and gains are in units of `‖v‖_M`.
///
/// Errors: `count` above [`MAX_EXTREMES_DIRECTIONS`](super::MAX_EXTREMES_DIRECTIONS)
/// (field `directions`).
pub fn random_directions(problem: &ImpactProblem, count: usize, seed: u64) -> Result<Vec<Vec<f64>>, OptionsError> {
    check_direction_count(count)?;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(DIRECTION_STREAM);
    Ok((0..count)
        .map(|_| {
            let d = nalgebra::DVector::from_fn(problem.n(), |_, _| normal(&mut rng));
            let md = problem.mass() * &d;
            let norm = d.dot(&md).sqrt();
            (md / norm).as_slice().to_vec()
        })
        .collect())
}

/// Stream number of [`random_directions`] under the run seed's key.
const DIRECTION_STREAM: u64 = 0x6469_7265_6374;

/// A standard normal number (Box–Muller, one of the pair).
fn normal(rng: &mut ChaCha8Rng) -> f64 {
    let u: f64 = 1.0 - rng.random::<f64>();
    let v: f64 = rng.random::<f64>();
    (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
}
