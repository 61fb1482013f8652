//! [`Device`]: one CUDA context, one stream, a memory pool and a kernel cache.

pub(crate) mod memory;
pub(crate) mod probe;
mod timing;

use crate::kernels::cache::{CacheStats, KernelCache};
use crate::kernels::KernelSpec;
use crate::{Error, Result};
use cudarc::driver::sys::{CUdevice_attribute, CUdeviceptr, CUstream};
use cudarc::driver::{CudaContext, CudaStream};
pub use memory::{DeviceBuffer, MemoryPool, MemoryStats};
use probe::Lib;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
pub use timing::Timings;

pub(crate) struct Inner {
    ordinal: usize,
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    arch: (u32, u32),
    sm_count: u32,
    pool: memory::Pool,
    kernels: KernelCache,
    transfers: TransferCounters,
    blas: Mutex<Option<crate::blas::Blas>>,
    tf32: AtomicBool,
}

impl Drop for Inner {
    fn drop(&mut self) {
        // Return cached blocks to the driver; errors at teardown have nowhere to go.
        let _ = self.ctx.bind_to_thread();
        let blas = self.blas.get_mut().map(|b| b.take()).unwrap_or(None);
        let workspace = blas.as_ref().map(|b| b.workspace);
        drop(blas);
        let cached = self.pool.take_cached().into_iter().map(|(_, p)| p);
        for ptr in cached.chain(workspace) {
            // SAFETY: cached blocks are referenced by no live buffer (every buffer holds a
            // reference to this `Inner`, so none is left), and the free is ordered on the
            // stream after all work that used the block.
            let _ = unsafe { cudarc::driver::result::free_async(ptr, self.stream.cu_stream()) };
        }
        let _ = self.stream.synchronize();
    }
}

/// A CUDA device: a context, the stream all of its work runs on, a caching memory pool
/// and a cache of compiled kernels.
///
/// `Device` is cheap to clone (a reference count); `Device::new(0)` called twice returns
/// the same device, so arrays made from either work together.
///
/// ```no_run
/// let dev = cuarray::Device::new(0)?;
/// println!("{} (sm_{}{})", dev.name()?, dev.compute_capability()?.0, dev.compute_capability()?.1);
/// # Ok::<(), cuarray::Error>(())
/// ```
#[derive(Clone)]
pub struct Device(pub(crate) Arc<Inner>);

impl PartialEq for Device {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}
impl Eq for Device {}

impl std::fmt::Debug for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cuda:{}", self.0.ordinal)
    }
}

impl std::fmt::Display for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cuda:{}", self.0.ordinal)
    }
}

static DEVICES: Mutex<Vec<Weak<Inner>>> = Mutex::new(Vec::new());

/// Host-device traffic of one device, from [`Device::transfer_stats`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TransferStats {
    /// Host-to-device copies.
    pub h2d_calls: u64,
    /// Bytes copied host to device.
    pub h2d_bytes: u64,
    /// Device-to-host copies.
    pub d2h_calls: u64,
    /// Bytes copied device to host.
    pub d2h_bytes: u64,
    /// Times the host waited for the device.
    pub syncs: u64,
}

#[derive(Default)]
pub(crate) struct TransferCounters {
    h2d_calls: AtomicU64,
    h2d_bytes: AtomicU64,
    d2h_calls: AtomicU64,
    d2h_bytes: AtomicU64,
    syncs: AtomicU64,
}

impl TransferCounters {
    pub(crate) fn h2d(&self, bytes: usize) {
        self.h2d_calls.fetch_add(1, Ordering::Relaxed);
        self.h2d_bytes.fetch_add(bytes as u64, Ordering::Relaxed);
    }
    pub(crate) fn d2h(&self, bytes: usize) {
        self.d2h_calls.fetch_add(1, Ordering::Relaxed);
        self.d2h_bytes.fetch_add(bytes as u64, Ordering::Relaxed);
    }
    fn snapshot(&self) -> TransferStats {
        TransferStats {
            h2d_calls: self.h2d_calls.load(Ordering::Relaxed),
            h2d_bytes: self.h2d_bytes.load(Ordering::Relaxed),
            d2h_calls: self.d2h_calls.load(Ordering::Relaxed),
            d2h_bytes: self.d2h_bytes.load(Ordering::Relaxed),
            syncs: self.syncs.load(Ordering::Relaxed),
        }
    }
}

/// Number of CUDA devices.
///
/// # Errors
/// [`Error::LibraryNotFound`] without a CUDA driver, [`Error::NoDevice`] when the driver
/// fails to initialise.
pub fn device_count() -> Result<usize> {
    probe::device_count()
}

impl Device {
    /// Opens device `ordinal` (its primary context) and creates the stream all cuarray work
    /// on it runs on. Returns the already-open device when there is one.
    ///
    /// # Errors
    /// [`Error::LibraryNotFound`] without a driver, [`Error::DeviceOutOfRange`] for a bad
    /// ordinal, [`Error::Cuda`] when the context cannot be created.
    pub fn new(ordinal: usize) -> Result<Device> {
        let count = probe::device_count()?;
        if ordinal >= count {
            return Err(Error::DeviceOutOfRange { ordinal, count });
        }
        let mut reg = DEVICES.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(inner) = reg.get(ordinal).and_then(Weak::upgrade) {
            return Ok(Device(inner));
        }
        let ctx = CudaContext::new(ordinal).map_err(Error::cuda("creating the CUDA context"))?;
        let stream = ctx
            .new_stream()
            .map_err(Error::cuda("creating the stream"))?;
        // SAFETY: cuarray never hands cudarc's `CudaSlice` to kernels; all of its memory is
        // raw device pointers used on this one stream, so cudarc's per-allocation events
        // would order nothing.
        unsafe { ctx.disable_event_tracking() };
        let (major, minor) = ctx
            .compute_capability()
            .map_err(Error::cuda("reading the compute capability"))?;
        let sm_count = ctx
            .attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
            .map_err(Error::cuda("reading the multiprocessor count"))?;
        let inner = Arc::new(Inner {
            ordinal,
            ctx,
            stream,
            arch: (major as u32, minor as u32),
            sm_count: sm_count.max(1) as u32,
            pool: Default::default(),
            kernels: KernelCache::new(),
            transfers: Default::default(),
            blas: Mutex::new(None),
            tf32: AtomicBool::new(false),
        });
        if reg.len() <= ordinal {
            reg.resize_with(ordinal + 1, Weak::new);
        }
        reg[ordinal] = Arc::downgrade(&inner);
        Ok(Device(inner))
    }

    /// The device's ordinal.
    pub fn ordinal(&self) -> usize {
        self.0.ordinal
    }

    /// The device's name, e.g. `"NVIDIA H200"`.
    pub fn name(&self) -> Result<String> {
        self.0
            .ctx
            .name()
            .map_err(Error::cuda("reading the device name"))
    }

    /// Compute capability `(major, minor)`, e.g. `(9, 0)` for Hopper.
    pub fn compute_capability(&self) -> Result<(u32, u32)> {
        Ok(self.0.arch)
    }

    /// Number of streaming multiprocessors.
    pub fn multiprocessor_count(&self) -> u32 {
        self.0.sm_count
    }

    /// `(free, total)` device memory in bytes, as the driver reports it.
    pub fn memory_info(&self) -> Result<(usize, usize)> {
        self.bind()?;
        self.0
            .ctx
            .mem_get_info()
            .map_err(Error::cuda("reading memory info"))
    }

    /// Blocks the host until all work queued on this device has finished.
    ///
    /// # Synchronization
    /// This is one of the two calls that wait for the GPU (the other is a transfer to the
    /// host).
    pub fn synchronize(&self) -> Result<()> {
        self.0.transfers.syncs.fetch_add(1, Ordering::Relaxed);
        self.0
            .stream
            .synchronize()
            .map_err(Error::cuda("synchronize"))
    }

    /// Counters of the memory pool (bytes in use, reserved, peak).
    pub fn memory_stats(&self) -> MemoryStats {
        self.0.pool.stats()
    }

    /// The device's caching memory pool: counters, a limit, trimming.
    pub fn memory_pool(&self) -> MemoryPool<'_> {
        MemoryPool::new(self)
    }

    /// Counters of host-device traffic: every transfer (calls and bytes, each way) and
    /// every time the host waited for the device. Only the explicit transfer calls and
    /// [`synchronize`](Device::synchronize) move them.
    pub fn transfer_stats(&self) -> TransferStats {
        self.0.transfers.snapshot()
    }

    /// Counters of the kernel cache: memory hits, disk hits, compiles and compile time.
    pub fn kernel_cache_stats(&self) -> CacheStats {
        self.0.kernels.stats()
    }

    /// Compiles (or loads from the disk cache) each kernel of `specs` now, so that their
    /// first use later costs nothing. See [`crate::kernels::common_specs`] for a ready set.
    pub fn prewarm(&self, specs: &[KernelSpec]) -> Result<()> {
        for spec in specs {
            self.function(spec)?;
        }
        Ok(())
    }

    /// Allows TF32 tensor cores for `f32` matrix products (about 8x the f32 rate, with a
    /// 10-bit mantissa for the products). Off by default, as in CuPy and PyTorch.
    pub fn set_tf32(&self, enabled: bool) {
        self.0.tf32.store(enabled, Ordering::Relaxed)
    }

    /// Whether TF32 is allowed for `f32` matrix products.
    pub fn tf32(&self) -> bool {
        self.0.tf32.load(Ordering::Relaxed)
    }

    // ---- crate-internal plumbing -------------------------------------------------------

    pub(crate) fn function(&self, spec: &KernelSpec) -> Result<Arc<crate::kernels::cache::Kernel>> {
        self.0.kernels.get(self, spec)
    }

    /// Runs `f` with the device's cuBLAS handle (created on first use), holding its lock.
    pub(crate) fn with_blas<R>(
        &self,
        f: impl FnOnce(&crate::blas::Blas) -> Result<R>,
    ) -> Result<R> {
        let mut guard = self.0.blas.lock().unwrap_or_else(|p| p.into_inner());
        if guard.is_none() {
            *guard = Some(crate::blas::Blas::new(self)?);
        }
        match guard.as_ref() {
            Some(b) => f(b),
            None => unreachable!("initialised above"),
        }
    }

    pub(crate) fn counters(&self) -> &TransferCounters {
        &self.0.transfers
    }

    pub(crate) fn pool(&self) -> &memory::Pool {
        &self.0.pool
    }

    pub(crate) fn context(&self) -> &Arc<CudaContext> {
        &self.0.ctx
    }

    pub(crate) fn arch(&self) -> (u32, u32) {
        self.0.arch
    }

    pub(crate) fn stream(&self) -> &Arc<CudaStream> {
        &self.0.stream
    }

    pub(crate) fn cu_stream(&self) -> CUstream {
        self.0.stream.cu_stream()
    }

    /// Makes this device's context current on the calling thread.
    pub(crate) fn bind(&self) -> Result<()> {
        self.0
            .ctx
            .bind_to_thread()
            .map_err(Error::cuda("binding the context"))
    }

    /// Allocates `bytes` from the driver's stream-ordered allocator on the device stream.
    pub(crate) fn driver_alloc(&self, bytes: usize) -> Result<CUdeviceptr> {
        self.bind()?;
        // SAFETY: the stream belongs to this context; the memory is uninitialised and is
        // only used on this stream (the invariant of `DeviceBuffer`).
        unsafe { cudarc::driver::result::malloc_async(self.cu_stream(), bytes) }
            .map_err(Error::cuda("allocate"))
    }
}

pub(crate) fn require_nvrtc() -> Result<()> {
    probe::require(Lib::Nvrtc)
}
