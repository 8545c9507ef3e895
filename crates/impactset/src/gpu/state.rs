//! One state's constants for `shaders/routh.wgsl`: the problem and sampler
//! options checked for the device, the tolerances of the precision resolved,
//! and `A_R`, `J`, `M⁻¹Jᵀ`, `M`, `v⁻`, the scalars and (selection `all`) the
//! enumerator's tables laid out in one block. States whose blocks have the
//! same layout share a plan and a dispatch (packed states, [`super::GpuPlan`]).

use std::sync::Arc;

use super::GpuError;
use super::context::GpuContext;
use super::enumerate::{self, AllWidth};
use super::options::{GpuRunOptions, MAX_F32_PIVOT_TOLERANCE, MAX_GPU_STEPS};
use super::precision::{Precision, pivot_tolerance, relative_pivot_tolerance, tie_tolerance};
use super::types::{
    ModuleSizes, RouthParams, SELECTION_ALL, SELECTION_LEMKE, SELECTION_RANDOM_LEMKE, key_words, schedule_code,
};
use crate::impact::{LemkeUnits, Selection};
use crate::lcp::{LemkeOptions, norms};
use crate::sampling::stream;
use crate::{ImpactProblem, SamplerOptions};

/// One state ready for the shader.
#[derive(Clone, Debug)]
pub(crate) struct StateBlock {
    /// The block, in f64 (converted to the shader's scalar on upload).
    pub constants: Vec<f64>,
    /// Sizes, rule, step cap, pivot cap and the offsets of the block's parts
    /// (relative to the block's start); the batch fields are zero.
    pub params: RouthParams,
    /// The ChaCha8 key of the state's seed, as little-endian words.
    pub key: [u32; 8],
    /// Restitution, `all` or f32: the problem and options, for the samples
    /// the host runs again on the CPU (`FLAG_HOST`, shaders/restitution.wgsl;
    /// `all`'s `FLAG_TOO_MANY_SOLUTIONS`; f32 samples that end unaccepted,
    /// docs/gpu.md).
    pub cpu: Option<Arc<(ImpactProblem, SamplerOptions)>>,
    /// The arrays `enumerate.wgsl` needs for this state's enumerations
    /// (its steps', and its twinned steps' with restitution).
    pub width: AllWidth,
    /// The size class of its module: its step LCP and velocities.
    pub sizes: ModuleSizes,
}

/// The step LCP's matrix as the shaders pivot on it, and its pivot
/// tolerances.
struct ScaledStep {
    scaled_a: Vec<f64>,
    row_scale: Vec<f64>,
    col_scale: Vec<f64>,
    cover_scale: Vec<f64>,
    tolerance: f64,
    relative_tolerance: f64,
}

impl ScaledStep {
    fn of(problem: &ImpactProblem, precision: Precision, equilibrated: bool) -> ScaledStep {
        let ops = problem.operators();
        let size = ops.step_size_n();
        // f32 with `equilibrate` (the default): Lemke runs on the equilibrated
        // step LCP diag(r) A_R diag(c) (powers of two, exact; the shader maps q,
        // the covering vector and z, norms::equilibrate), and an entry of the
        // entering column is a pivot when it exceeds N·ε_f32 times its row's
        // running bound (lemke.wgsl `row_bound`; the absolute tolerance is 0).
        // Otherwise the scales are the Lemke units alone (1 for ordinary
        // problems, so A_R is uploaded as it is) and the pivot tolerance is
        // absolute (`pivot_tolerance`); f32 then refuses badly scaled problems.
        // The step LCP in the CPU's Lemke units (all 1 for a problem of
        // ordinary units), then, in f32, equilibrated. The covering vector is
        // drawn in the Lemke units, as on the CPU (routh_step.rs), and follows
        // the equilibration only, so Lemke pivots as on the unequilibrated LCP.
        let (unit_rows, unit_cols) = unit_scales(problem);
        let (row_scale, col_scale, cover_scale) = if equilibrated {
            let in_units: Vec<f64> =
                (0..size * size).map(|k| unit_rows[k / size] * ops.step_matrix[k] * unit_cols[k % size]).collect();
            let (rows, cols) = norms::equilibrate(&in_units, size);
            let row_scale = rows.iter().zip(&unit_rows).map(|(e, u)| e * u).collect();
            let col_scale = cols.iter().zip(&unit_cols).map(|(e, u)| e * u).collect();
            (row_scale, col_scale, rows)
        } else {
            (unit_rows, unit_cols, vec![1.0; size])
        };
        let scaled_a: Vec<f64> =
            (0..size * size).map(|k| row_scale[k / size] * ops.step_matrix[k] * col_scale[k % size]).collect();
        let (tolerance, relative_tolerance) = if equilibrated {
            (0.0, relative_pivot_tolerance(size))
        } else {
            (pivot_tolerance(&scaled_a, size, precision), 0.0)
        };
        ScaledStep { scaled_a, row_scale, col_scale, cover_scale, tolerance, relative_tolerance }
    }
}

/// The residual tolerance of a step on the device: the options' in f64; in
/// f32 at least the round-off floor.
fn residual_tolerance(problem: &ImpactProblem, residual_tol: f64, precision: Precision, scaled_a: &[f64]) -> f64 {
    let ops = problem.operators();
    let size = ops.step_size_n();
    match precision {
        Precision::F64 => residual_tol,
        Precision::F32 => {
            // The step residual is evaluated in the problem's units, so f32
            // round-off bounds it by a multiple of ε_f32 ‖A_R‖∞. Where that
            // bound says nothing (a problem the absolute pivot tolerance
            // would refuse: RAMone's ‖A_R‖∞ = 1e5 would allow a violation
            // of 12), the norm of the equilibrated matrix Lemke pivots on.
            let well_scaled = pivot_tolerance(&ops.step_matrix, size, precision) <= MAX_F32_PIVOT_TOLERANCE;
            let a_norm: &[f64] = if well_scaled { &ops.step_matrix } else { scaled_a };
            let floor = 1024.0 * f32::EPSILON as f64 * norms::infinity_norm(a_norm, size).max(1.0);
            residual_tol.max(floor)
        }
    }
}

impl StateBlock {
    /// `problem` under `options` in `precision` on `ctx`'s adapter.
    ///
    /// Errors: as [`super::sample_set_gpu`].
    pub fn new(
        ctx: &GpuContext,
        problem: &ImpactProblem,
        options: &SamplerOptions,
        precision: Precision,
        run: &GpuRunOptions,
    ) -> Result<Self, GpuError> {
        // The step cap resolved: the host's re-runs take these options too.
        let options: &SamplerOptions = &options.with_steps(problem);
        let steps = options.cap();
        let ops = problem.operators();
        let (n, m, d) = (ops.n, ops.m, ops.d);
        let size = ops.step_size_n();
        let impulses = m + m * d;
        let selection = match options.selection {
            Selection::Lemke => SELECTION_LEMKE,
            Selection::RandomLemke => SELECTION_RANDOM_LEMKE,
            Selection::All => {
                enumerate::check_all(problem)?;
                SELECTION_ALL
            }
        };
        let equilibrated = precision == Precision::F32 && run.equilibrate;
        let ScaledStep { scaled_a, row_scale, col_scale, cover_scale, tolerance, relative_tolerance } =
            ScaledStep::of(problem, precision, equilibrated);
        if precision == Precision::F32 && !equilibrated && tolerance > MAX_F32_PIVOT_TOLERANCE {
            let norm = tolerance / (100.0 * size as f64 * f32::EPSILON as f64);
            return Err(GpuError::PoorlyScaled { norm, tolerance });
        }
        if steps > MAX_GPU_STEPS {
            return Err(GpuError::Unsupported(format!("a step cap above {MAX_GPU_STEPS}")));
        }

        let h = options.step_size_for(problem);
        let s = problem.velocity_scale();
        // The termination tolerance and the works' slack at the precision's
        // floors (`Precision::model_options`), the residual tolerance below.
        let model = precision.model_options(options);
        let residual_tol = residual_tolerance(problem, options.residual_tol, precision, &scaled_a);
        let termination_tol = model.termination_tol;
        let mut constants: Vec<f64> = Vec::new();
        let mut push = |values: &mut dyn Iterator<Item = f64>| {
            let offset = constants.len() as u32;
            constants.extend(values);
            offset
        };
        let off_a = push(&mut scaled_a.iter().copied());
        let off_scale = push(&mut row_scale.iter().chain(&col_scale).chain(&cover_scale).copied());
        let off_j = push(&mut ops.j.transpose().iter().copied()); // row-major J
        let off_minv_jt = push(&mut ops.minv_jt.transpose().iter().copied()); // row-major M⁻¹Jᵀ
        let off_mass = push(&mut problem.mass().transpose().iter().copied());
        let off_v = push(&mut problem.velocity().iter().copied());
        let off_scalars = push(
            &mut [h, -termination_tol * s, tolerance, residual_tol, tie_tolerance(precision), s, relative_tolerance]
                .into_iter(),
        );
        // Restitution (shaders/restitution.wgsl): E⁻, the works' slack, e_i²,
        // W_nn.
        let elastic = problem.has_restitution();
        let off_restitution = if elastic {
            let energy = problem.kinetic_energy(problem.velocity());
            let e2 = problem.contacts().iter().map(|c| c.restitution * c.restitution);
            let w_nn = (0..m * m).map(|k| ops.delassus[(k / m, k % m)]);
            let slack = model.work_tol * energy;
            push(&mut [energy, slack].into_iter().chain(e2).chain(w_nn))
        } else {
            0
        };
        // The fields of `all` (zero for the other rules, except with
        // restitution where the shaders can retry a step by the enumerator,
        // as the CPU does: `enumerate::retries_on_device`).
        let mut params = RouthParams::default();
        // The twinned steps' tables: under `all`, and for the Lemke rules'
        // rare retries only where they fit the module the problem needs
        // anyway (a retry of a widened step without them runs on the host,
        // and the wider arrays would weigh on every step).
        let all = options.selection.enumerates();
        let (own_width, full_width) = (AllWidth::of(m), enumerate::all_width(problem));
        let twinned = all || full_width == own_width;
        let widenable = if twinned { enumerate::widenable(problem) } else { 0 };
        if all || (elastic && enumerate::retries_on_device(problem)) {
            let cpu_adapter = ctx.is_software();
            enumerate::push_constants(ops, widenable, precision, residual_tol, &mut constants, &mut params);
            let tuples = params.tuples as usize;
            let planned = enumerate::tuples_per_dispatch(ops, tuples, cpu_adapter);
            params.tuples_per_dispatch = run.tuples_per_dispatch.unwrap_or(planned).clamp(1, tuples) as u32;
            if let Some(kept) = run.kept_solutions {
                params.kept_cap = kept.clamp(1, super::MAX_GPU_ALL_SOLUTIONS) as u32;
            }
            // On CPU adapters the root filter takes dispatches of its own.
            params.filter_chunk = if cpu_adapter { enumerate::CPU_ADAPTER_FILTER_CHUNK as u32 } else { 0 };
        }
        let params = RouthParams {
            n: n as u32,
            m: m as u32,
            d: d as u32,
            size: size as u32,
            impulses: impulses as u32,
            max_steps: steps as u32,
            selection,
            schedule: schedule_code(options.schedule),
            pivot_cap: LemkeOptions::default().pivot_cap(size) as u32,
            v_stride: n as u32,
            off_a,
            off_j,
            off_minv_jt,
            off_mass,
            off_v,
            off_scalars,
            off_scale,
            elastic: elastic as u32,
            off_restitution,
            ..params
        };
        let cpu = (elastic || all || precision == Precision::F32).then(|| Arc::new((problem.clone(), options.clone())));
        let width = if twinned { full_width } else { own_width };
        let sizes = ModuleSizes::of(size, n);
        Ok(StateBlock { constants, params, key: key_words(&stream::stream_key(options.seed)), cpu, width, sizes })
    }

    /// Whether `other` can run in the same dispatch as this state: the same
    /// sizes, rule, cap law, step cap and block layout (for `all` also the same mode
    /// table sizes and tuple budget).
    pub fn packs_with(&self, other: &StateBlock) -> bool {
        self.constants.len() == other.constants.len()
            && bytemuck::bytes_of(&self.params) == bytemuck::bytes_of(&other.params)
            && self.width == other.width
            && self.sizes == other.sizes
    }
}

/// The row and column scales that put the step LCP in the CPU's Lemke units
/// ([`LemkeUnits`]): `diag(1/row unit) A_R diag(column unit)`, all 1 for a
/// problem of ordinary units.
fn unit_scales(problem: &ImpactProblem) -> (Vec<f64>, Vec<f64>) {
    let ops = problem.operators();
    let units = LemkeUnits::new(ops, problem.velocity_scale());
    let rows = units.row_units(ops.layout()).into_iter().map(|u| 1.0 / u).collect();
    (rows, units.column_units(ops.layout()))
}
