//! Reading a batch's outputs back from the device into the columns of
//! [`FlatSamples`], in f32 or f64, by all host cores (`columns.rs`).

use rayon::prelude::*;

use super::GpuError;
use super::columns::{Outputs, Scalars, presized};
use super::context::GpuContext;
use super::plan::{GpuPlan, Rows};
use super::types::{FLAG_DONE, FLAG_HOST, FLAG_LOOP_LIMIT};
use crate::sampling::FlatSamples;

impl GpuPlan<'_> {
    /// Zeroed columns for samples `first_index .. first_index + samples`
    /// of one state, which [`read_back`](Self::read_back) fills batch by
    /// batch.
    pub(super) fn columns(&self, first_index: u64, samples: usize) -> FlatSamples {
        presized(self.n, first_index, samples, self.read_velocities, self.slots[0].enum_words.is_some())
    }

    /// The samples of the batch `rows` in `slot` (submitted as
    /// `submission`) written into the columns of their states: row `r`
    /// into `outs[r]` (presized, [`columns`](Self::columns)) at samples
    /// `at .. at + rows.row_samples`.
    pub(super) fn read_back(
        &self,
        slot: usize,
        rows: &Rows,
        submission: &wgpu::SubmissionIndex,
        outs: &mut [FlatSamples],
        at: usize,
    ) -> Result<(), GpuError> {
        debug_assert_eq!(outs.len(), rows.rows);
        let (ctx, n, precision) = (self.ctx, self.n, self.precision);
        let count = rows.count();
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
        if let Some(i) = (0..count).into_par_iter().find_first(|&i| flags(i) & FLAG_DONE == 0) {
            if flags(i) & FLAG_LOOP_LIMIT != 0 {
                return Err(GpuError::LoopLimit { adapter: ctx.describe() });
            }
            return Err(GpuError::Device("a sample did not finish in the planned dispatches".into()));
        }
        // With `all` the tuple budget per dispatch is planned to fit the
        // loop limiter: a cut there is an error, not a failed sample, except
        // in a step with restitution (which enumerates each of its solves
        // whole): the host runs that sample again (FLAG_HOST).
        if self.all && (0..count).into_par_iter().any(|i| flags(i) & FLAG_LOOP_LIMIT != 0 && flags(i) & FLAG_HOST == 0)
        {
            return Err(GpuError::LoopLimit { adapter: ctx.describe() });
        }
        let v = self.read_velocities.then(|| Scalars::new(&mapped.views[2], precision));
        let enum_view = 2 + self.read_velocities as usize;
        let enum_words =
            read.enum_words.as_ref().map(|_| (bytemuck::cast_slice(&mapped.views[enum_view]), self.word_stride));
        let outputs = Outputs { words, stats: Scalars::new(&mapped.views[1], precision), v, enum_words, n };
        let row_samples = rows.row_samples;
        outs.par_iter_mut().enumerate().for_each(|(r, out)| outputs.write(r * row_samples, row_samples, out, at));
        // The samples flagged FLAG_HOST (restitution) or
        // FLAG_TOO_MANY_SOLUTIONS (`all`) and, in f32, the unaccepted ones
        // run again on the CPU.
        self.rerun_on_host(rows, words, outs, at);
        Ok(())
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
