//! [`Device`]: one CUDA context, one stream, a memory pool, scratch memory and the
//! per-device state of the layers above (kernel cache, library handles) as extensions.

mod capture;
pub(crate) mod errors;
mod extensions;
pub(crate) mod memory;
pub(crate) mod peer;
pub(crate) mod pinned;
pub(crate) mod probe;
mod stream;
mod timing;
mod transfers;

use crate::{Error, Result};
pub(crate) use capture::{relaxed_capture_mode, CaptureState};
use cudarc::driver::sys::{CUdevice_attribute, CUdeviceptr, CUstream};
use cudarc::driver::{CudaContext, CudaStream};
pub(crate) use memory::GraphPool;
pub use memory::{DeviceBuffer, MemoryPool, MemoryStats};
pub use pinned::PinnedBuffer;
use probe::Lib;
use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock, Weak};
pub use stream::{Event, Stream, Timer};
pub use timing::Timings;
pub(crate) use transfers::TransferCounters;
pub use transfers::TransferStats;

/// Per-device state of a layer above the device (see [`Device::extension`]).
type Extension = Arc<dyn Any + Send + Sync>;

pub(crate) struct Inner {
    ordinal: usize,
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    arch: (u32, u32),
    sm_count: u32,
    pool: memory::Pool,
    transfers: TransferCounters,
    tf32: AtomicBool,
    staging: Mutex<Option<pinned::Staging>>,
    /// Per-device state of the layers above, by type (see `Device::extension`).
    extensions: RwLock<Vec<(TypeId, Extension)>>,
    /// Scratch blocks from the pool, by (stream id, name) (see `Device::scratch`).
    scratch: Mutex<HashMap<(u64, &'static str), memory::RawBlock>>,
    /// The CUDA graph capture under way on one of the device's streams, if any.
    capture: CaptureState,
    /// Out-of-range indices found by kernels (see `errors`).
    errors: errors::DeviceErrors,
}

impl Drop for Inner {
    fn drop(&mut self) {
        // Return cached blocks to the driver; errors at teardown have nowhere to go.
        let _ = self.ctx.bind_to_thread();
        // Blocks cached for other streams may still be in use there.
        let _ = self.ctx.synchronize();
        // Library handles and kernel modules go first: they may use the scratch blocks.
        drop(std::mem::take(
            self.extensions.get_mut().unwrap_or_else(|p| p.into_inner()),
        ));
        let cached = self.pool.take_cached().into_iter().map(|(_, p)| p);
        let scratch = self
            .scratch
            .get_mut()
            .map(|m| m.drain().map(|(_, b)| b.ptr).collect::<Vec<_>>())
            .unwrap_or_default();
        for ptr in cached.chain(scratch) {
            // SAFETY: cached blocks are referenced by no live buffer (every buffer holds a
            // reference to this `Inner`, so none is left), scratch blocks by no extension
            // (dropped above), and the free is ordered on the stream after all work that
            // used the block.
            let _ = unsafe { cudarc::driver::result::free_async(ptr, self.stream.cu_stream()) };
        }
        let _ = self.stream.synchronize();
    }
}

/// A CUDA device: a context, a stream, a caching memory pool and a cache of compiled
/// kernels.
///
/// `Device` is cheap to clone (a reference count); `Device::new(0)` called twice returns
/// the same device, so arrays made from either work together.
///
/// A `Device` handle also names the stream its work runs on: the device's own stream for
/// handles from `Device::new`, another one for handles from [`Stream::device`]. Two
/// handles on the same GPU compare equal whatever their streams.
///
/// ```no_run
/// let dev = cuarray::Device::new(0)?;
/// println!("{} (sm_{}{})", dev.name()?, dev.compute_capability()?.0, dev.compute_capability()?.1);
/// # Ok::<(), cuarray::Error>(())
/// ```
#[derive(Clone)]
pub struct Device {
    pub(crate) inner: Arc<Inner>,
    /// `None`: the device's own stream (the fast, common case: no extra reference count).
    stream: Option<Stream>,
}

impl PartialEq for Device {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }
}
impl Eq for Device {}

impl std::fmt::Debug for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.stream {
            None => write!(f, "cuda:{}", self.inner.ordinal),
            Some(s) => write!(f, "cuda:{} (stream {})", self.inner.ordinal, s.0.id),
        }
    }
}

impl std::fmt::Display for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cuda:{}", self.inner.ordinal)
    }
}

static DEVICES: Mutex<Vec<Weak<Inner>>> = Mutex::new(Vec::new());

/// Number of CUDA devices.
///
/// ```no_run
/// use cuarray::{Device, DeviceArray};
/// match cuarray::device_count() {
///     Ok(n) => println!("{n} CUDA device(s)"),
///     Err(e) => eprintln!("no CUDA driver: {e}"),
/// }
/// # Ok::<(), cuarray::Error>(())
/// ```
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
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// match Device::new(0) {
    ///     Ok(dev) => println!("using {}", dev.name()?),
    ///     Err(e) => eprintln!("no GPU: {e}"), // a readable reason, never a panic
    /// }
    /// # Ok::<(), cuarray::Error>(())
    /// ```
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
            return Ok(Device {
                inner,
                stream: None,
            });
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
            transfers: Default::default(),
            tf32: AtomicBool::new(false),
            staging: Mutex::new(None),
            extensions: RwLock::new(Vec::new()),
            scratch: Mutex::new(HashMap::new()),
            capture: CaptureState::default(),
            errors: Default::default(),
        });
        if reg.len() <= ordinal {
            reg.resize_with(ordinal + 1, Weak::new);
        }
        reg[ordinal] = Arc::downgrade(&inner);
        Ok(Device {
            inner,
            stream: None,
        })
    }

    /// The device's ordinal.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// assert_eq!(dev.ordinal(), 0);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn ordinal(&self) -> usize {
        self.inner.ordinal
    }

    /// The device's name, e.g. `"NVIDIA H200"`.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// println!("{}", dev.name()?); // e.g. "NVIDIA H200"
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Cuda`] when the driver call fails.
    pub fn name(&self) -> Result<String> {
        self.inner
            .ctx
            .name()
            .map_err(Error::cuda("reading the device name"))
    }

    /// Compute capability `(major, minor)`, e.g. `(9, 0)` for Hopper.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let (major, minor) = dev.compute_capability()?;
    /// println!("sm_{major}{minor}");
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// Never fails: the capability is read when the device is opened.
    pub fn compute_capability(&self) -> Result<(u32, u32)> {
        Ok(self.inner.arch)
    }

    /// Number of streaming multiprocessors.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// assert!(dev.multiprocessor_count() > 0);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn multiprocessor_count(&self) -> u32 {
        self.inner.sm_count
    }

    /// `(free, total)` device memory in bytes, as the driver reports it.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let (free, total) = dev.memory_info()?;
    /// assert!(free <= total);
    /// println!("{} of {} MiB free", free >> 20, total >> 20);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Cuda`] when the driver call fails.
    pub fn memory_info(&self) -> Result<(usize, usize)> {
        self.bind()?;
        self.inner
            .ctx
            .mem_get_info()
            .map_err(Error::cuda("reading memory info"))
    }

    /// Blocks the host until the work queued on this handle's stream has finished (see
    /// [`synchronize_all`](Device::synchronize_all) for every stream).
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::<f32>::ones(&dev, &[1 << 20])?;
    /// let b = a.exp()?; // queued; returns at once
    /// dev.synchronize()?; // now `b` is computed
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Synchronization
    /// With [`Stream::synchronize`], [`Event::synchronize`] and the transfers to the host,
    /// one of the few calls that wait for the GPU.
    ///
    /// # Errors
    /// [`Error::IndexOutOfRange`] when a kernel queued earlier (`take`, `index_add`, ...)
    /// met an index out of range (see [`check`](Device::check)).
    pub fn synchronize(&self) -> Result<()> {
        let _queuing = self.check_capture("synchronize")?;
        self.inner.transfers.sync();
        self.cuda_stream()
            .synchronize()
            .map_err(Error::cuda("synchronize"))?;
        self.report_device_errors()
    }

    /// Blocks the host until the work queued on every stream of the device has finished.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let side = dev.new_stream()?;
    /// let a = DeviceArray::<f32>::ones(&side.device(), &[1 << 20])?; // on `side`
    /// let b = DeviceArray::<f32>::ones(&dev, &[1 << 20])?; // on the device's own stream
    /// dev.synchronize_all()?; // waits for both
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::IndexOutOfRange`] when a kernel queued earlier (`take`, `index_add`, ...)
    /// met an index out of range (see [`check`](Device::check)); [`Error::Capture`] while a
    /// CUDA graph is being captured on the device; [`Error::Cuda`] when the wait fails.
    pub fn synchronize_all(&self) -> Result<()> {
        let _queuing = self.check_capture("synchronize_all")?;
        self.inner.transfers.sync();
        self.bind()?;
        self.inner
            .ctx
            .synchronize()
            .map_err(Error::cuda("synchronize"))?;
        self.report_device_errors()
    }

    /// Creates a new stream on this device. Work on it runs concurrently with the other
    /// streams' work; see [`Stream`] for the rules when arrays cross streams.
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let s = dev.new_stream()?;
    /// let on_s = s.device();                    // a handle whose work runs on `s`
    /// let a = cuarray::DeviceArray::<f32>::zeros(&on_s, &[1024])?;
    /// s.synchronize()?;
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Capture`] while a CUDA graph is being captured on the device;
    /// [`Error::Cuda`] when the driver cannot create the stream.
    pub fn new_stream(&self) -> Result<Stream> {
        let _queuing = self.check_capture("new_stream")?;
        self.bind()?;
        Stream::create(self)
    }

    /// The stream this handle's work runs on.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// assert!(dev.stream().is_default());
    /// let s = dev.new_stream()?;
    /// assert!(!s.device().stream().is_default()); // a handle bound to `s`
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn stream(&self) -> Stream {
        match &self.stream {
            Some(s) => s.clone(),
            None => Stream::wrap(self.clone(), self.inner.stream.clone(), 0),
        }
    }

    /// Starts a [`Timer`] on this handle's stream: the device time of the work queued
    /// until [`Timer::stop`].
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::<f32>::ones(&dev, &[1 << 20])?;
    /// let t = dev.timer()?;
    /// let b = a.sqrt()?;
    /// println!("sqrt: {:?}", t.stop()?);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Cuda`] when the start event cannot be created or recorded.
    pub fn timer(&self) -> Result<Timer> {
        Timer::start(self.stream())
    }

    /// Counters of the memory pool (bytes in use, reserved, peak).
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::<f32>::zeros(&dev, &[1 << 20])?;
    /// let s = dev.memory_stats();
    /// assert!(s.in_use >= 4 << 20 && s.reserved >= s.in_use);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn memory_stats(&self) -> MemoryStats {
        self.inner.pool.stats()
    }

    /// The device's caching memory pool: counters, a limit, trimming.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let pool = dev.memory_pool();
    /// pool.set_limit(Some(8 << 30)); // at most 8 GiB for this process's arrays
    /// println!("{} bytes in use", pool.used_bytes());
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn memory_pool(&self) -> MemoryPool<'_> {
        MemoryPool::new(self)
    }

    /// Counters of host-device traffic: every transfer (calls and bytes, each way) and
    /// every time the host waited for the device. Only the explicit transfer calls and
    /// [`synchronize`](Device::synchronize) move them.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let before = dev.transfer_stats();
    /// let a = DeviceArray::from_slice(&dev, &[1.0f32, 2.0, 3.0, 4.0])?; // one copy in
    /// let b = a.exp()?.sum()?; // no copy
    /// a.to_host()?; // one copy out, 16 bytes
    /// let after = dev.transfer_stats();
    /// assert_eq!(after.h2d_calls - before.h2d_calls, 1);
    /// assert_eq!(after.d2h_bytes - before.d2h_bytes, 16);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn transfer_stats(&self) -> TransferStats {
        self.inner.transfers.snapshot()
    }

    /// Allows TF32 tensor cores for `f32` matrix products (about 8x the f32 rate, with a
    /// 10-bit mantissa for the products). Off by default, as in CuPy and PyTorch.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// dev.set_tf32(true); // f32 matmuls may use TF32 tensor cores from now on
    /// assert!(dev.tf32());
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn set_tf32(&self, enabled: bool) {
        self.inner.tf32.store(enabled, Ordering::Relaxed)
    }

    /// Whether TF32 is allowed for `f32` matrix products.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// assert!(!dev.tf32()); // off unless set_tf32(true)
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn tf32(&self) -> bool {
        self.inner.tf32.load(Ordering::Relaxed)
    }

    // ---- crate-internal plumbing -------------------------------------------------------

    pub(crate) fn counters(&self) -> &TransferCounters {
        &self.inner.transfers
    }

    pub(crate) fn pool(&self) -> &memory::Pool {
        &self.inner.pool
    }

    pub(crate) fn context(&self) -> &Arc<CudaContext> {
        &self.inner.ctx
    }

    pub(crate) fn arch(&self) -> (u32, u32) {
        self.inner.arch
    }

    /// The CUDA stream this handle's work runs on.
    pub(crate) fn cuda_stream(&self) -> &Arc<CudaStream> {
        match &self.stream {
            Some(s) => &s.0.cuda,
            None => &self.inner.stream,
        }
    }

    pub(crate) fn cu_stream(&self) -> CUstream {
        self.cuda_stream().cu_stream()
    }

    /// Which stream this handle's work runs on: 0 for the device's own stream.
    pub(crate) fn stream_id(&self) -> u64 {
        self.stream.as_ref().map_or(0, |s| s.0.id)
    }

    /// The same device, bound to its own stream.
    pub(crate) fn on_own_stream(&self) -> Device {
        Device {
            inner: self.inner.clone(),
            stream: None,
        }
    }

    /// The staging buffers for pageable transfers (created on first use).
    pub(crate) fn staging(&self) -> &Mutex<Option<pinned::Staging>> {
        &self.inner.staging
    }

    /// Makes this device's context current on the calling thread.
    pub(crate) fn bind(&self) -> Result<()> {
        self.inner
            .ctx
            .bind_to_thread()
            .map_err(Error::cuda("binding the context"))
    }

    /// Allocates `bytes` from the driver's stream-ordered allocator on the handle's stream.
    pub(crate) fn driver_alloc(&self, bytes: usize) -> Result<CUdeviceptr> {
        self.bind()?;
        // SAFETY: the stream belongs to this context; the memory is uninitialised, and
        // its use on other streams is ordered by `DeviceBuffer` (see its drop).
        unsafe { cudarc::driver::result::malloc_async(self.cu_stream(), bytes) }
            .map_err(Error::cuda("allocate"))
    }
}

pub(crate) fn require_nvrtc() -> Result<()> {
    probe::require(Lib::Nvrtc)
}
