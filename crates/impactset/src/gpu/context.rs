//! [`GpuContext`]: the adapter, device, queue and compiled pipelines, built
//! once and shared by every call.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use wgpu::util::DeviceExt;

use super::shaders::{self, Module};
use super::{GpuError, Precision};

/// Threads per workgroup by default (the `WORKGROUP_SIZE` pipeline override).
pub(crate) const WORKGROUP_SIZE: u32 = 64;

/// Pipelines compiled so far: module, precision, workgroup size.
type KernelCache = Vec<((Module, Precision, u32), Result<Arc<Kernels>, GpuError>)>;

/// Timestamp queries of one submission: the query set, its resolve buffer
/// and a mappable copy.
pub(crate) type Timing = (wgpu::QuerySet, wgpu::Buffer, wgpu::Buffer);

/// The compiled pipelines of one module in one precision.
pub(crate) struct Kernels {
    pipelines: Vec<(&'static str, wgpu::ComputePipeline)>,
}

impl Kernels {
    pub(crate) fn get(&self, entry: &str) -> &wgpu::ComputePipeline {
        &self.pipelines.iter().find(|(name, _)| *name == entry).expect("entry point compiled with its module").1
    }
}

/// A Vulkan device ready for the impact kernels.
///
/// Built once ([`GpuContext::new`]); pipelines are compiled on first use and
/// cached. The adapter is chosen among Vulkan adapters only (a software
/// rasterizer such as lavapipe also appears through OpenGL, without 64-bit
/// floats): discrete before integrated before virtual before CPU, and among
/// equals one with `SHADER_F64`. The device gets the adapter's own limits and
/// `SHADER_F64` and `TIMESTAMP_QUERY` when the adapter has them.
pub struct GpuContext {
    info: wgpu::AdapterInfo,
    pub(crate) device: wgpu::Device,
    pub(crate) queue: wgpu::Queue,
    pub(crate) limits: wgpu::Limits,
    f64: bool,
    /// Nanoseconds per timestamp tick, when the device has timestamp queries.
    timestamp_period: Option<f64>,
    /// Kernel time measured by timestamp queries since the last
    /// [`GpuContext::take_kernel_time`], in nanoseconds.
    kernel_nanos: AtomicU64,
    kernels: Mutex<KernelCache>,
    /// Why the device was lost, once the driver has said so: wgpu drops a
    /// lost device's submission without an error, so waits name it from here.
    lost: Arc<Mutex<Option<String>>>,
}

impl std::fmt::Debug for GpuContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GpuContext").field("adapter", &self.info.name).field("f64", &self.f64).finish()
    }
}

fn rank(info: &wgpu::AdapterInfo) -> u32 {
    match info.device_type {
        wgpu::DeviceType::DiscreteGpu => 0,
        wgpu::DeviceType::IntegratedGpu => 1,
        wgpu::DeviceType::VirtualGpu => 2,
        wgpu::DeviceType::Other => 3,
        wgpu::DeviceType::Cpu => 4,
    }
}

impl GpuContext {
    /// Opens the best Vulkan adapter. Errors: [`GpuError::NoAdapter`] when
    /// there is none, [`GpuError::Device`] when the device cannot be created.
    pub fn new() -> Result<Self, GpuError> {
        let instance =
            wgpu::Instance::new(&wgpu::InstanceDescriptor { backends: wgpu::Backends::VULKAN, ..Default::default() });
        let mut adapters = instance.enumerate_adapters(wgpu::Backends::VULKAN);
        adapters.sort_by_key(|a| (rank(&a.get_info()), !a.features().contains(wgpu::Features::SHADER_F64)));
        let adapter = adapters.into_iter().next().ok_or(GpuError::NoAdapter)?;
        let info = adapter.get_info();
        let f64 = adapter.features().contains(wgpu::Features::SHADER_F64);
        let limits = adapter.limits();
        let wanted = wgpu::Features::SHADER_F64 | wgpu::Features::TIMESTAMP_QUERY;
        let required_features = adapter.features() & wanted;
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("impactset"),
            required_features,
            required_limits: limits.clone(),
            experimental_features: wgpu::ExperimentalFeatures::disabled(),
            memory_hints: wgpu::MemoryHints::Performance,
            trace: wgpu::Trace::Off,
        }))
        .map_err(|e| GpuError::Device(e.to_string()))?;
        let lost = Arc::new(Mutex::new(None));
        let record = Arc::clone(&lost);
        device.set_device_lost_callback(move |reason, message| {
            *record.lock().unwrap_or_else(|e| e.into_inner()) = Some(format!("{reason:?}: {message}"));
        });
        let timestamp_period =
            required_features.contains(wgpu::Features::TIMESTAMP_QUERY).then(|| queue.get_timestamp_period() as f64);
        Ok(GpuContext {
            info,
            device,
            queue,
            limits,
            f64,
            timestamp_period,
            kernel_nanos: AtomicU64::new(0),
            kernels: Default::default(),
            lost,
        })
    }

    /// Whether the adapter is software on the CPU (Mesa's lavapipe): it runs
    /// the shaders, and is slower than the CPU backend on the same cores.
    pub fn is_software(&self) -> bool {
        self.info.device_type == wgpu::DeviceType::Cpu
    }

    /// Whether kernel times are measured with timestamp queries.
    pub fn supports_timestamps(&self) -> bool {
        self.timestamp_period.is_some()
    }

    /// The kernel time (seconds from the first compute pass's start to the
    /// last one's end, summed over submissions) measured by timestamp
    /// queries since the previous call, and resets it; `None` when the
    /// device has no timestamp queries. Transfers and host work are not
    /// included: compare with the wall time of the same calls.
    pub fn take_kernel_time(&self) -> Option<f64> {
        let nanos = self.kernel_nanos.swap(0, Ordering::Relaxed);
        self.timestamp_period.map(|_| nanos as f64 * 1e-9)
    }

    /// The adapter's name and driver, e.g. `llvmpipe (LLVM 15.0.6, 256 bits) (llvmpipe, Vulkan)`.
    pub fn describe(&self) -> String {
        format!("{} ({}, {:?})", self.info.name, self.info.driver, self.info.backend)
    }

    /// The adapter's information.
    pub fn adapter_info(&self) -> &wgpu::AdapterInfo {
        &self.info
    }

    /// Whether double precision is available.
    pub fn supports_f64(&self) -> bool {
        self.f64
    }

    /// The precision a run takes when none is asked: f64 where the adapter
    /// has it (the CPU reference's), else f32.
    pub fn default_precision(&self) -> Precision {
        if self.f64 { Precision::F64 } else { Precision::F32 }
    }

    /// The precisions this device runs: always f32, f64 when supported.
    pub fn precisions(&self) -> Vec<Precision> {
        if self.f64 { vec![Precision::F32, Precision::F64] } else { vec![Precision::F32] }
    }

    pub(crate) fn check_precision(&self, precision: Precision) -> Result<(), GpuError> {
        if precision == Precision::F64 && !self.f64 {
            return Err(GpuError::NoF64 { adapter: self.info.name.clone() });
        }
        Ok(())
    }

    /// The pipelines of `module` in `precision`, compiled on first use.
    pub(crate) fn kernels(&self, module: Module, precision: Precision) -> Result<Arc<Kernels>, GpuError> {
        self.alive()?;
        self.kernels_sized(module, precision, WORKGROUP_SIZE)
    }

    /// [`kernels`](Self::kernels) with `workgroup_size` threads per workgroup.
    pub(crate) fn kernels_sized(
        &self,
        module: Module,
        precision: Precision,
        workgroup_size: u32,
    ) -> Result<Arc<Kernels>, GpuError> {
        self.check_precision(precision)?;
        let key = (module, precision, workgroup_size);
        let mut cache = self.kernels.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, kernels)) = cache.iter().find(|(k, _)| *k == key) {
            return kernels.clone();
        }
        let kernels = self.compile(module, precision, workgroup_size).map(Arc::new);
        cache.push((key, kernels.clone()));
        kernels
    }

    /// Nanoseconds per timestamp tick, when the device has timestamp queries.
    pub(crate) fn timestamp_period(&self) -> Option<f64> {
        self.timestamp_period
    }

    fn compile(&self, module: Module, precision: Precision, workgroup_size: u32) -> Result<Kernels, GpuError> {
        let entries: &[&'static str] = match module {
            Module::Routh(..) => &["routh_sample"],
            Module::RouthCoop(_) => &["routh_sample_coop"],
            Module::TestsCoop(_) => &["lemke_solve_coop"],
            Module::Tests(_) => &["chacha_words", "schedule_caps", "lemke_solve"],
        };
        self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let shader = self.device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("impactset"),
            source: wgpu::ShaderSource::Wgsl(shaders::source(module, precision).into()),
        });
        let constants = [("WORKGROUP_SIZE", workgroup_size as f64)];
        let pipelines = entries
            .iter()
            .map(|&entry| {
                let pipeline = self.device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                    label: Some(entry),
                    layout: None,
                    module: &shader,
                    entry_point: Some(entry),
                    compilation_options: wgpu::PipelineCompilationOptions {
                        constants: &constants,
                        zero_initialize_workgroup_memory: false,
                    },
                    cache: None,
                });
                (entry, pipeline)
            })
            .collect();
        if let Some(error) = pollster::block_on(self.device.pop_error_scope()) {
            return Err(GpuError::Device(error.to_string()));
        }
        Ok(Kernels { pipelines })
    }

    /// A storage buffer holding `bytes` (at least 16 bytes long).
    pub(crate) fn storage_init(&self, label: &str, bytes: &[u8]) -> wgpu::Buffer {
        let mut padded = bytes.to_vec();
        padded.resize(bytes.len().max(16).next_multiple_of(8), 0);
        self.device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some(label),
            contents: &padded,
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
        })
    }

    /// An output storage buffer of `size` bytes (at least 16) that can be copied out.
    pub(crate) fn storage_out(&self, label: &str, size: u64) -> wgpu::Buffer {
        self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: size.max(16).next_multiple_of(8),
            usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
    }

    /// A mappable buffer of `size` bytes (at least 16) that outputs are copied into.
    pub(crate) fn readback(&self, size: u64) -> wgpu::Buffer {
        self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("readback"),
            size: size.max(16).next_multiple_of(8),
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
    }

    /// A query set of two timestamps with its resolve and read-back buffers.
    pub(crate) fn timestamp_queries(&self) -> Timing {
        let queries = self.device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("kernel time"),
            ty: wgpu::QueryType::Timestamp,
            count: 2,
        });
        let buffer = |usage| {
            self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("kernel time"),
                size: 16,
                usage,
                mapped_at_creation: false,
            })
        };
        let resolved = buffer(wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC);
        let stage = buffer(wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST);
        (queries, resolved, stage)
    }

    /// Submits, in one command buffer: zeroing the first bytes of each buffer in `clear`, `passes.0` compute passes
    /// of `groups` workgroups of `pipeline` with `bind_group` (each sees the previous one's writes; the first word of
    /// `passes.1`, persistent workers' counter, zeroed before each), the copies `(from, to, bytes)`, and with
    /// `timing` timestamps of the first pass's start and the last one's end. Returns without waiting ([`wait`](Self::wait)).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn submit_passes(
        &self,
        pipeline: &wgpu::ComputePipeline,
        bind_group: &wgpu::BindGroup,
        groups: u32,
        (passes, each_pass): (u32, Option<&wgpu::Buffer>),
        clear: &[(&wgpu::Buffer, u64)],
        copies: &[(&wgpu::Buffer, &wgpu::Buffer, u64)],
        timing: Option<&Timing>,
    ) -> Result<wgpu::SubmissionIndex, GpuError> {
        self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let mut encoder = self.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None });
        for &(buffer, size) in clear {
            encoder.clear_buffer(buffer, 0, Some(size.max(8).next_multiple_of(8).min(buffer.size())));
        }
        for k in 0..passes {
            let (first, last) = (k == 0, k + 1 == passes);
            let timestamp_writes =
                timing.filter(|_| first || last).map(|(queries, _, _)| wgpu::ComputePassTimestampWrites {
                    query_set: queries,
                    beginning_of_pass_write_index: first.then_some(0),
                    end_of_pass_write_index: last.then_some(1),
                });
            if let Some(counter) = each_pass {
                encoder.clear_buffer(counter, 0, Some(4));
            }
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor { label: None, timestamp_writes });
            pass.set_pipeline(pipeline);
            pass.set_bind_group(0, bind_group, &[]);
            pass.dispatch_workgroups(groups, 1, 1);
        }
        for &(from, to, size) in copies {
            encoder.copy_buffer_to_buffer(from, 0, to, 0, size.max(8).next_multiple_of(8).min(from.size()));
        }
        if let Some((queries, resolved, stage)) = timing {
            encoder.resolve_query_set(queries, 0..2, resolved, 0);
            encoder.copy_buffer_to_buffer(resolved, 0, stage, 0, 16);
        }
        let submission = self.queue.submit(Some(encoder.finish()));
        if let Some(error) = pollster::block_on(self.device.pop_error_scope()) {
            return Err(GpuError::Device(error.to_string()));
        }
        self.alive()?;
        Ok(submission)
    }

    /// Blocks until `submission` has run (and the map callbacks of its buffers have been called).
    pub(crate) fn wait(&self, submission: &wgpu::SubmissionIndex) -> Result<(), GpuError> {
        self.device
            .poll(wgpu::PollType::Wait { submission_index: Some(submission.clone()), timeout: None })
            .map_err(|e| self.readback_error(e))?;
        Ok(())
    }

    /// A failed wait or map as an error: the device's loss when the driver
    /// reported one (the wait's own message then only says the submission
    /// never ran), else `error` itself.
    pub(crate) fn readback_error(&self, error: impl std::fmt::Display) -> GpuError {
        self.alive().err().unwrap_or_else(|| GpuError::Readback(error.to_string()))
    }

    /// `Ok` unless the driver has reported the device lost: then an error
    /// naming the reason, since the device takes no more work.
    pub(crate) fn alive(&self) -> Result<(), GpuError> {
        match self.lost.lock().unwrap_or_else(|e| e.into_inner()).as_ref() {
            Some(reason) => {
                Err(GpuError::Device(format!("the device was lost ({reason}); its runs' results are gone")))
            }
            None => Ok(()),
        }
    }

    /// Adds the kernel time that `timing` measured in `submission` (see
    /// [`take_kernel_time`](Self::take_kernel_time)).
    pub(crate) fn record_kernel_time(
        &self,
        (_, _, stage): &Timing,
        submission: &wgpu::SubmissionIndex,
    ) -> Result<(), GpuError> {
        let Some(period) = self.timestamp_period else { return Ok(()) };
        let (tx, rx) = std::sync::mpsc::channel();
        stage.slice(..).map_async(wgpu::MapMode::Read, move |r| {
            let _ = tx.send(r);
        });
        self.wait(submission)?;
        rx.recv().map_err(|e| self.readback_error(e))?.map_err(|e| self.readback_error(e))?;
        let ticks: [u64; 2] = bytemuck::pod_read_unaligned(&stage.slice(..).get_mapped_range()[..16]);
        stage.unmap();
        let nanos = (ticks[1].saturating_sub(ticks[0]) as f64 * period).round() as u64;
        self.kernel_nanos.fetch_add(nanos, Ordering::Relaxed);
        Ok(())
    }

    /// Runs `groups` workgroups of `pipeline` with `buffers` bound at the
    /// given bindings of group 0, then copies the first `size` bytes of each
    /// buffer in `outputs` back to the host.
    pub(crate) fn dispatch(
        &self,
        pipeline: &wgpu::ComputePipeline,
        buffers: &[(u32, &wgpu::Buffer)],
        groups: u32,
        outputs: &[(&wgpu::Buffer, u64)],
    ) -> Result<Vec<Vec<u8>>, GpuError> {
        self.dispatch_passes(pipeline, buffers, groups, 1, &[], outputs)
    }

    /// [`dispatch`](Self::dispatch) `passes` times in one submission (each
    /// pass sees the previous one's writes), after zeroing `clear`.
    pub(crate) fn dispatch_passes(
        &self,
        pipeline: &wgpu::ComputePipeline,
        buffers: &[(u32, &wgpu::Buffer)],
        groups: u32,
        passes: u32,
        clear: &[&wgpu::Buffer],
        outputs: &[(&wgpu::Buffer, u64)],
    ) -> Result<Vec<Vec<u8>>, GpuError> {
        self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let layout = pipeline.get_bind_group_layout(0);
        let entries: Vec<wgpu::BindGroupEntry> = buffers
            .iter()
            .map(|&(binding, buffer)| wgpu::BindGroupEntry { binding, resource: buffer.as_entire_binding() })
            .collect();
        let bind_group = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout: &layout,
            entries: &entries,
        });
        let staging: Vec<wgpu::Buffer> = outputs
            .iter()
            .map(|&(_, size)| {
                self.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("readback"),
                    size: size.max(8).next_multiple_of(8),
                    usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                })
            })
            .collect();
        // Timestamps: the first pass's start (query 0) and the last pass's end (query 1).
        let timing = self.timestamp_period.map(|_| self.timestamp_queries());
        let mut encoder = self.device.create_command_encoder(&wgpu::CommandEncoderDescriptor { label: None });
        for buffer in clear {
            encoder.clear_buffer(buffer, 0, None);
        }
        for k in 0..passes {
            let (first, last) = (k == 0, k + 1 == passes);
            let timestamp_writes =
                timing.as_ref().filter(|_| first || last).map(|(queries, _, _)| wgpu::ComputePassTimestampWrites {
                    query_set: queries,
                    beginning_of_pass_write_index: first.then_some(0),
                    end_of_pass_write_index: last.then_some(1),
                });
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor { label: None, timestamp_writes });
            pass.set_pipeline(pipeline);
            pass.set_bind_group(0, &bind_group, &[]);
            pass.dispatch_workgroups(groups, 1, 1);
        }
        for (&(buffer, size), stage) in outputs.iter().zip(&staging) {
            encoder.copy_buffer_to_buffer(buffer, 0, stage, 0, size.max(8).next_multiple_of(8));
        }
        if let Some((queries, resolved, stage)) = &timing {
            encoder.resolve_query_set(queries, 0..2, resolved, 0);
            encoder.copy_buffer_to_buffer(resolved, 0, stage, 0, 16);
        }
        self.queue.submit(Some(encoder.finish()));
        if let Some(error) = pollster::block_on(self.device.pop_error_scope()) {
            return Err(GpuError::Device(error.to_string()));
        }
        self.alive()?;
        let (tx, rx) = std::sync::mpsc::channel();
        for (k, stage) in staging.iter().enumerate() {
            let tx = tx.clone();
            stage.slice(..).map_async(wgpu::MapMode::Read, move |r| {
                let _ = tx.send((k, r));
            });
        }
        if let Some((_, _, stage)) = &timing {
            let tx = tx.clone();
            stage.slice(..).map_async(wgpu::MapMode::Read, move |r| {
                let _ = tx.send((usize::MAX, r));
            });
        }
        drop(tx);
        self.device.poll(wgpu::PollType::wait_indefinitely()).map_err(|e| self.readback_error(e))?;
        for (_, r) in rx.iter() {
            r.map_err(|e| self.readback_error(e))?;
        }
        if let (Some((_, _, stage)), Some(period)) = (&timing, self.timestamp_period) {
            let ticks: [u64; 2] = bytemuck::pod_read_unaligned(&stage.slice(..).get_mapped_range()[..16]);
            stage.unmap();
            let nanos = (ticks[1].saturating_sub(ticks[0]) as f64 * period).round() as u64;
            self.kernel_nanos.fetch_add(nanos, Ordering::Relaxed);
        }
        Ok(outputs
            .iter()
            .zip(&staging)
            .map(|(&(_, size), stage)| {
                let bytes = stage.slice(..).get_mapped_range()[..size as usize].to_vec();
                stage.unmap();
                bytes
            })
            .collect())
    }
}

#[cfg(test)]
#[path = "context_tests.rs"]
mod tests;
