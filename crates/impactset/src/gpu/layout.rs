//! Where each invocation's Lemke tableau lives in the scratch buffer.

use super::context::GpuContext;

/// Where each invocation's Lemke tableau lives in the shared scratch buffer
/// (the results do not depend on it; `shaders/lemke.wgsl`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TableauLayout {
    /// Entry `x` of invocation `i` (of `count`) at `x · count + i`:
    /// neighbouring invocations touch neighbouring words, so a GPU's memory
    /// accesses coalesce. The default on GPUs.
    Interleaved,
    /// Entry `x` of invocation `i` at `i · N · stride + x`. The default on CPU
    /// adapters: on lavapipe it measured ~20 % faster than interleaved
    /// (compass-gait and disk-stack, f32, 4096 samples).
    Contiguous,
}

impl TableauLayout {
    /// Both layouts.
    pub const ALL: [TableauLayout; 2] = [TableauLayout::Interleaved, TableauLayout::Contiguous];

    /// The default for `ctx`'s adapter: contiguous on CPU adapters, else interleaved.
    pub fn for_adapter(ctx: &GpuContext) -> TableauLayout {
        if ctx.is_software() { TableauLayout::Contiguous } else { TableauLayout::Interleaved }
    }
}
