//! Reading a batch's outputs back from the device into the columns of
//! [`FlatSamples`], in f32 or f64.

use super::GpuError;
use super::context::GpuContext;
use super::plan::{GpuPlan, Rows};
use super::precision::Precision;
use super::types::{
    FLAG_ACCEPTED, FLAG_DONE, FLAG_GUARDED, FLAG_HOST, FLAG_LCP_FAILED, FLAG_LOOP_LIMIT, FLAG_TERMINATED,
};
use crate::sampling::FlatSamples;

impl GpuPlan<'_> {
    /// The samples of the batch `rows` in `slot` (submitted as
    /// `submission`), as columns.
    pub(super) fn read_back(
        &self,
        slot: usize,
        rows: &Rows,
        submission: &wgpu::SubmissionIndex,
    ) -> Result<FlatSamples, GpuError> {
        let (ctx, n, precision) = (self.ctx, self.n, self.precision);
        let count = rows.count();
        let mut out = FlatSamples::with_capacity(n, rows.first, count);
        let read = &self.slots[slot];
        let scalar = precision.bytes() as u64;
        let c = count as u64;
        if let Some(timing) = &read.timing {
            ctx.record_kernel_time(timing, submission)?;
        }
        let mut buffers = vec![(&read.words, c * 8), (&read.stats, c * 3 * scalar)];
        if self.read_velocities {
            buffers.push((&read.v, c * n as u64 * scalar));
        }
        if let Some(enum_read) = &read.enum_words {
            buffers.push((enum_read, c * self.word_stride as u64 * 4));
        }
        let mapped = Mapped::new(ctx, &buffers, submission)?;
        let words: &[u32] = bytemuck::cast_slice(&mapped.views[0]);
        let flags = |i: usize| words[2 * i + 1];
        if let Some(i) = (0..count).find(|&i| flags(i) & FLAG_DONE == 0) {
            if flags(i) & FLAG_LOOP_LIMIT != 0 {
                return Err(GpuError::LoopLimit { adapter: ctx.describe() });
            }
            return Err(GpuError::Device("a sample did not finish in the planned dispatches".into()));
        }
        // With `all` the tuple budget per dispatch is planned to fit the
        // loop limiter: a cut there is an error, not a failed sample, except
        // in a step with restitution (which enumerates each of its solves
        // whole): the host runs that sample again (FLAG_HOST).
        if self.all && (0..count).any(|i| flags(i) & FLAG_LOOP_LIMIT != 0 && flags(i) & FLAG_HOST == 0) {
            return Err(GpuError::LoopLimit { adapter: ctx.describe() });
        }
        out.steps.extend((0..count).map(|i| words[2 * i]));
        // A sample whose loops the driver cut short failed like an LCP
        // over its pivot cap (lavapipe's loop limiter, docs/gpu-lavapipe.md).
        let ok = |f: u32, bit: u32| f & bit != 0 && f & FLAG_LOOP_LIMIT == 0;
        out.terminated.extend((0..count).map(|i| ok(flags(i), FLAG_TERMINATED)));
        out.accepted.extend((0..count).map(|i| ok(flags(i), FLAG_ACCEPTED)));
        let failed = |i: usize| flags(i) & (FLAG_LCP_FAILED | FLAG_LOOP_LIMIT) != 0;
        let stats = Scalars::new(&mapped.views[1], precision);
        out.max_residual.extend((0..count).map(|i| if failed(i) { f64::INFINITY } else { stats.get(3 * i) }));
        out.energy_before.extend((0..count).map(|i| stats.get(3 * i + 1)));
        out.energy_after.extend((0..count).map(|i| stats.get(3 * i + 2)));
        let mut next = 2;
        if self.read_velocities {
            Scalars::new(&mapped.views[next], precision).extend_into(&mut out.v_plus);
            next += 1;
        }
        if read.enum_words.is_some() {
            let stride = self.word_stride;
            let enum_words: &[u32] = bytemuck::cast_slice(&mapped.views[next]);
            out.fallback_steps.extend((0..count).map(|i| enum_words[i * stride + 3]));
        }
        if (0..count).any(|i| flags(i) & FLAG_GUARDED != 0) {
            out.energy_guard.extend((0..count).map(|i| flags(i) & FLAG_GUARDED != 0));
        }
        // The samples flagged FLAG_HOST (restitution) or
        // FLAG_TOO_MANY_SOLUTIONS (`all`) and, in f32, the unaccepted ones
        // run again on the CPU.
        self.rerun_on_host(rows, &flags, &mut out);
        Ok(out)
    }
}

/// Read-back buffers mapped for reading until dropped.
pub(super) struct Mapped<'a> {
    buffers: Vec<&'a wgpu::Buffer>,
    pub(super) views: Vec<wgpu::BufferView>,
}

impl<'a> Mapped<'a> {
    /// Maps the first `size` bytes of each buffer once `submission` (which
    /// wrote them) is done.
    pub(super) fn new(
        ctx: &GpuContext,
        buffers: &[(&'a wgpu::Buffer, u64)],
        submission: &wgpu::SubmissionIndex,
    ) -> Result<Self, GpuError> {
        let (tx, rx) = std::sync::mpsc::channel();
        for &(buffer, size) in buffers {
            let tx = tx.clone();
            buffer.slice(..size.max(8).next_multiple_of(8)).map_async(wgpu::MapMode::Read, move |r| {
                let _ = tx.send(r);
            });
        }
        drop(tx);
        ctx.wait(submission)?;
        let mut mapped = Mapped { buffers: Vec::new(), views: Vec::new() };
        for r in rx.iter() {
            r.map_err(|e| ctx.readback_error(e))?;
        }
        for &(buffer, size) in buffers {
            mapped.buffers.push(buffer);
            mapped.views.push(buffer.slice(..size.max(8).next_multiple_of(8)).get_mapped_range());
        }
        Ok(mapped)
    }
}

impl Drop for Mapped<'_> {
    fn drop(&mut self) {
        self.views.clear();
        for buffer in &self.buffers {
            buffer.unmap();
        }
    }
}

/// Scalars of the shader's type in mapped bytes.
enum Scalars<'a> {
    F32(&'a [f32]),
    F64(&'a [f64]),
}

impl<'a> Scalars<'a> {
    fn new(bytes: &'a [u8], precision: Precision) -> Self {
        match precision {
            Precision::F32 => Scalars::F32(bytemuck::cast_slice(bytes)),
            Precision::F64 => Scalars::F64(bytemuck::cast_slice(bytes)),
        }
    }

    fn get(&self, i: usize) -> f64 {
        match self {
            Scalars::F32(x) => x[i] as f64,
            Scalars::F64(x) => x[i],
        }
    }

    fn extend_into(&self, out: &mut Vec<f64>) {
        match self {
            Scalars::F32(x) => out.extend(x.iter().map(|&v| v as f64)),
            Scalars::F64(x) => out.extend_from_slice(x),
        }
    }
}
