//! Running a batch: every (state, sample) pair on the CPU pool, or states of
//! equal sizes packed into shared dispatches on the GPU, in windows of states
//! so memory stays bounded.

use std::borrow::Cow;
use std::ops::Range;
use std::sync::atomic::Ordering;
use std::time::Instant;

use rayon::prelude::*;

use super::analyse::{StateInfo, state_row};
use super::input::StateProblem;
use super::{Direction, ReachError, ReachInput, ReachOptions, ReachRow, ReachSchema, state_seed};
use crate::run::{Backend, RunControl, RunError};
use crate::sampling::SampleWorkspace;
use crate::sampling::run_sample;
use crate::sampling::stream::stream_key;
use crate::{Sample, SamplerOptions};

/// Largest number of samples of one work item (and per progress report).
const MAX_ITEM: usize = 1024;

/// One state's outcome: its row and, with
/// [`keep_sets`](ReachOptions::keep_sets), its accepted `v⁺` (row-major,
/// `accepted × n`, in sample index order).
#[derive(Clone, Debug, PartialEq)]
pub struct StateResult {
    /// The table row.
    pub row: ReachRow,
    /// The set, when kept.
    pub set: Option<Vec<f64>>,
}

/// What a batch run did.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ReachRun {
    /// States run.
    pub states: usize,
    /// Samples run.
    pub samples: u64,
    /// Wall time of sampling and analysis (without the sink's time).
    pub elapsed_s: f64,
}

/// A whole batch held in memory ([`reach`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Reach {
    /// The columns.
    pub schema: ReachSchema,
    /// One row per state, in state order.
    pub rows: Vec<ReachRow>,
    /// The sets, in state order, when kept.
    pub sets: Option<Vec<Vec<f64>>>,
    /// What the run did.
    pub run: ReachRun,
}

/// The directions of a batch, checked against its sizes.
pub fn directions(input: &ReachInput, options: &ReachOptions) -> Result<Vec<Direction>, ReachError> {
    let template = &input.template().ok_or(ReachError::Empty)?.problem;
    // Contacts whose column stems coincide would share every column.
    let mut stems = std::collections::HashMap::new();
    for c in template.contacts() {
        if let Some(other) = stems.insert(super::column_name(&c.name), &c.name) {
            return Err(ReachError::Contact {
                name: c.name.clone(),
                why: format!("its columns would be those of contact {other:?} (stem {})", super::column_name(other)),
            });
        }
    }
    let directions = options.directions.clone().unwrap_or_else(|| Direction::defaults(template));
    crate::sampling::check_direction_names(directions.iter().map(|d| d.name.as_str()))
        .map_err(|e| ReachError::Direction { name: e.name().to_string(), why: e.why().into() })?;
    if options.extremes.is_some() {
        crate::sampling::check_direction_count(directions.len())
            .map_err(|e| ReachError::Options(format!("{} directions with extremes: {}", e.value, e.why)))?;
    }
    for d in &directions {
        d.check(template)?;
    }
    Ok(directions)
}

/// The columns of the batch's table.
pub fn schema(input: &ReachInput, options: &ReachOptions) -> Result<ReachSchema, ReachError> {
    let template = &input.template().ok_or(ReachError::Empty)?.problem;
    ReachSchema::new(template, &directions(input, options)?, options.baselines, options.extremes.is_some())
}

/// Every state of `input` on `backend`, collected ([`reach_stream`] with a
/// sink that keeps the rows and sets).
pub fn reach(
    backend: &Backend,
    input: &ReachInput,
    options: &ReachOptions,
    control: &RunControl,
) -> Result<Reach, ReachError> {
    let schema = schema(input, options)?;
    let mut rows = Vec::with_capacity(input.len());
    let mut sets = options.keep_sets.then(Vec::new);
    let run = reach_stream(backend, input, options, 0..input.len(), control, &mut |result: StateResult| {
        rows.push(result.row);
        if let (Some(sets), Some(set)) = (&mut sets, result.set) {
            sets.push(set);
        }
        Ok::<_, ReachError>(())
    })?;
    Ok(Reach { schema, rows, sets, run })
}

/// The states `states` of `input` on `backend`: `sink` receives each state's
/// [`StateResult`] in state order, so the table can stream to disk. Rows and
/// sets are the same bit for bit for any thread count, window size or split
/// of the states into ranges (shards); state `k` always uses
/// [`state_seed`]`(seed, k)`.
///
/// On the CPU every (state, sample range) pair is a work item of the pool,
/// so a few states with many samples and many states with few samples both
/// keep every core busy; rows are computed in parallel over the states of a
/// window. On the GPU consecutive states of equal sizes share one plan and
/// run packed, whole states per dispatch; the rows are computed in parallel
/// on the CPU.
pub fn reach_stream<E: From<ReachError>>(
    backend: &Backend,
    input: &ReachInput,
    options: &ReachOptions,
    states: Range<usize>,
    control: &RunControl,
    sink: &mut dyn FnMut(StateResult) -> Result<(), E>,
) -> Result<ReachRun, E> {
    let schema = schema(input, options)?;
    let directions = directions(input, options)?;
    super::validate(input, options, states.clone())?;
    let options = &if states.is_empty() { Cow::Borrowed(options) } else { super::steps::with_steps(input, options)? };
    let start = Instant::now();
    let mut sink_time = 0.0;
    let per_state = options.sampler.samples;
    let window = super::validate::window_states(options);
    let mut first = states.start;
    while first < states.end {
        let ks = first..(first + window).min(states.end);
        first = ks.end;
        let compute = || window_results(backend, input, options, &directions, &schema, ks, control);
        let results = match backend {
            Backend::Cpu { pool: Some(pool), .. } => pool.install(compute),
            _ => compute(),
        }?;
        let sinking = Instant::now();
        for result in results {
            sink(result)?;
        }
        sink_time += sinking.elapsed().as_secs_f64();
    }
    Ok(ReachRun {
        states: states.len(),
        samples: (states.len() as u64).saturating_mul(per_state as u64),
        elapsed_s: start.elapsed().as_secs_f64() - sink_time,
    })
}

/// The results of the states `ks`, in state order (on the current pool).
fn window_results(
    backend: &Backend,
    input: &ReachInput,
    options: &ReachOptions,
    directions: &[Direction],
    schema: &ReachSchema,
    ks: Range<usize>,
    control: &RunControl,
) -> Result<Vec<StateResult>, ReachError> {
    let prepared: Vec<Prepared> =
        ks.into_par_iter().map(|k| Prepared::new(input, options, directions, k)).collect::<Result<_, _>>()?;
    let template = &input.template().ok_or(ReachError::Empty)?.problem;
    let samples = match backend {
        Backend::Cpu { .. } => sample_cpu(&prepared, input.shares_operators(), control)?,
        #[cfg(feature = "gpu")]
        Backend::Gpu { .. } => sample_gpu(backend, &prepared, control)?,
    };
    Ok(prepared
        .par_iter()
        .zip(samples.into_par_iter())
        .map(|(p, samples)| {
            let info = StateInfo {
                state: p.k as u64,
                seed: p.options.seed,
                name: &p.state.name,
                step_size: p.options.step_size.unwrap_or(f64::NAN),
                template,
                contact_order: input.contact_order(p.k),
                sampler: &p.options,
            };
            let (row, set) = state_row(info, &p.state.problem, samples, &p.directions, schema, options);
            StateResult { row, set }
        })
        .collect())
}

/// A state ready to sample: its problem, options (with its seed and step
/// size) and directions.
struct Prepared<'a> {
    k: usize,
    state: Cow<'a, StateProblem>,
    options: SamplerOptions,
    key: [u8; 32],
    directions: Vec<Vec<f64>>,
}

impl<'a> Prepared<'a> {
    fn new(
        input: &'a ReachInput,
        options: &ReachOptions,
        directions: &[Direction],
        k: usize,
    ) -> Result<Self, ReachError> {
        let state = input.state(k)?;
        let problem = &state.problem;
        let seed = state_seed(options.sampler.seed, k as u64);
        let step_size = super::validate::step_size_of(options, &state);
        let options = SamplerOptions {
            seed,
            step_size: Some(step_size),
            first_index: 0,
            threads: None,
            ..options.sampler.clone()
        };
        let order = input.contact_order(k);
        let directions = directions.iter().map(|d| d.vector_in(problem, order)).collect();
        Ok(Prepared { k, key: stream_key(seed), state, options, directions })
    }
}

/// Every sample of every prepared state on the current pool, as work items
/// of at most [`MAX_ITEM`] samples of one state; per state in index order.
fn sample_cpu(prepared: &[Prepared], shared: bool, control: &RunControl) -> Result<Vec<Vec<Sample>>, ReachError> {
    let per_state = prepared.first().map_or(0, |p| p.options.samples);
    let total = per_state * prepared.len();
    let item = (total / (8 * rayon::current_num_threads())).clamp(1, MAX_ITEM);
    let items: Vec<(usize, usize, usize)> = (0..prepared.len())
        .flat_map(|j| (0..per_state).step_by(item).map(move |i| (j, i, item.min(per_state - i))))
        .collect();
    let cancelled = || control.cancel.is_some_and(|flag| flag.load(Ordering::Relaxed));
    let parts: Option<Vec<Vec<Sample>>> = items
        .par_iter()
        .map_init(
            || None,
            |cache: &mut Option<(usize, SampleWorkspace)>, &(j, first, len)| {
                let p = &prepared[j];
                let problem = &p.state.problem;
                // States of one configuration share the workspace.
                let family = if shared { 0 } else { j };
                if cache.as_ref().is_none_or(|(f, _)| *f != family) {
                    *cache = Some((family, SampleWorkspace::new(problem)));
                }
                let ws = &mut cache.as_mut().expect("just set").1;
                let mut out = Vec::with_capacity(len);
                for i in first..first + len {
                    if cancelled() {
                        return None;
                    }
                    out.push(run_sample(problem, &p.options, &p.key, i as u64, ws, None));
                }
                (control.progress)(len);
                Some(out)
            },
        )
        .collect();
    let parts = parts.ok_or(RunError::Cancelled)?;
    let mut per: Vec<Vec<Sample>> = (0..prepared.len()).map(|_| Vec::with_capacity(per_state)).collect();
    for (&(j, _, _), part) in items.iter().zip(parts) {
        per[j].extend(part);
    }
    Ok(per)
}

/// The prepared states on the GPU: runs of consecutive states of equal
/// sizes packed into one plan each (as many whole states per dispatch as a
/// batch holds), every sample as it would run alone.
#[cfg(feature = "gpu")]
fn sample_gpu(backend: &Backend, prepared: &[Prepared], control: &RunControl) -> Result<Vec<Vec<Sample>>, ReachError> {
    use crate::gpu::{GpuPlan, StateBlock};
    let Backend::Gpu { context, precision, options: run } = backend else {
        unreachable!("sample_gpu runs on the GPU backend")
    };
    let blocks = prepared
        .iter()
        .map(|p| StateBlock::new(context, &p.state.problem, &p.options, *precision, run))
        .collect::<Result<Vec<_>, _>>()
        .map_err(RunError::from)?;
    let per_state = prepared.first().map_or(0, |p| p.options.samples);
    let cancelled = || control.cancelled();
    let mut samples = Vec::with_capacity(prepared.len());
    let mut start = 0;
    while start < blocks.len() {
        let fit = GpuPlan::states_per_plan(context, blocks[start].constants.len(), *precision);
        let len = blocks[start..].iter().take(fit).take_while(|b| blocks[start].packs_with(b)).count();
        let group = &blocks[start..start + len];
        let mut plan = GpuPlan::from_blocks(context, group, *precision, run).map_err(RunError::from)?;
        let flats = plan
            .sample_states(0, per_state, control.progress, &cancelled)
            .map_err(RunError::from)?
            .ok_or(RunError::Cancelled)?;
        samples.extend(flats.into_iter().map(|flat| flat.into_sample_set().samples));
        start += len;
    }
    Ok(samples)
}
