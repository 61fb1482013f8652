//! [`Device`]: one CUDA context, one stream, a memory pool, scratch memory and the
//! per-device state of the layers above (kernel cache, library handles) as extensions.

pub(crate) mod errors;
pub(crate) mod memory;
pub(crate) mod peer;
pub(crate) mod pinned;
pub(crate) mod probe;
mod stream;
mod timing;

use crate::{Error, Result};
use cudarc::driver::sys::{CUdevice_attribute, CUdeviceptr, CUstream};
use cudarc::driver::{CudaContext, CudaStream};
pub(crate) use memory::GraphPool;
pub use memory::{DeviceBuffer, MemoryPool, MemoryStats};
pub use pinned::PinnedBuffer;
use probe::Lib;
use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock, Weak};
pub use stream::{Event, Stream, Timer};
pub use timing::Timings;

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

/// A capture under way: which stream, which thread, its graph's private pool, and the
/// buffers its work touched (kept alive by the graph).
///
/// A capture belongs to the thread that began it. Other threads' work on the device is
/// refused while it lasts (it would be recorded into the graph instead of running, and
/// the events of their transfers would belong to the graph). To close the gap between
/// such a check and the work it guards, every checked operation holds a [`Queuing`]
/// ticket while it queues its work, and a capture begins only once no ticket taken before
/// it is left (see [`Device::begin_capture_state`]).
#[derive(Default)]
pub(crate) struct CaptureState {
    /// 0 when no capture is under way; else the captured stream's id + 1.
    stream: AtomicU64,
    /// The capturing thread's [`thread_token`]; 0 when none.
    owner: AtomicU64,
    /// Operations of any thread between their capture check and the end of their queuing.
    queuing: AtomicUsize,
    /// Buffers used on several streams and dropped during the capture: returned to the
    /// pool once it ends (see `DeviceBuffer`'s drop).
    deferred: Mutex<Vec<DeviceBuffer>>,
    pool: Mutex<Option<Arc<memory::GraphPool>>>,
    retained: Mutex<Vec<Arc<DeviceBuffer>>>,
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

/// Host-device traffic of one device, from [`Device::transfer_stats`].
///
/// ```no_run
/// use cuarray::{Device, DeviceArray};
/// let dev = Device::new(0)?;
/// let before = dev.transfer_stats();
/// let a = DeviceArray::<f32>::ones(&dev, &[256])?;
/// let total = a.sum()?.to_scalar()?; // one 4-byte copy back
/// let after = dev.transfer_stats();
/// assert_eq!(after.d2h_calls - before.d2h_calls, 1);
/// assert_eq!(after.h2d_calls, before.h2d_calls); // `ones` is made on the device
/// # Ok::<(), cuarray::Error>(())
/// ```
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
    pub(crate) fn sync(&self) {
        self.syncs.fetch_add(1, Ordering::Relaxed);
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

    /// The per-device state of type `T` of a layer above the device (the kernel cache,
    /// a library's handle), created with `T::default()` on first use and dropped with the
    /// device, before its scratch memory is freed.
    pub(crate) fn extension<T: Default + Send + Sync + 'static>(&self) -> Arc<T> {
        let id = TypeId::of::<T>();
        let find = |v: &Vec<(TypeId, Extension)>| {
            v.iter()
                .find(|(t, _)| *t == id)
                .and_then(|(_, e)| e.clone().downcast::<T>().ok())
        };
        if let Some(e) = find(
            &self
                .inner
                .extensions
                .read()
                .unwrap_or_else(|p| p.into_inner()),
        ) {
            return e;
        }
        let mut v = self
            .inner
            .extensions
            .write()
            .unwrap_or_else(|p| p.into_inner());
        if let Some(e) = find(&v) {
            return e;
        }
        let e = Arc::new(T::default());
        v.push((id, e.clone()));
        e
    }

    /// The scratch block `name` of at least `bytes` bytes for work on this handle's stream:
    /// taken from the pool (so counted in [`memory_stats`](Device::memory_stats)) on the
    /// stream's first use, zeroed in stream order when `zeroed`, then kept for the
    /// stream's life (the device's own stream: the device's). Callers that use it must
    /// leave it as they expect to find it (e.g. zero again).
    pub(crate) fn scratch(
        &self,
        name: &'static str,
        bytes: usize,
        zeroed: bool,
    ) -> Result<CUdeviceptr> {
        let mut map = self.inner.scratch.lock().unwrap_or_else(|p| p.into_inner());
        let key = (self.stream_id(), name);
        if let Some(b) = map.get(&key) {
            debug_assert!(b.bytes >= bytes, "scratch {name} asked with two sizes");
            return Ok(b.ptr);
        }
        // Scratch outlives any graph: it cannot come from a capture's pool.
        let _queuing = self.check_capture(name)?;
        let block = DeviceBuffer::alloc(self, bytes)?.into_raw();
        if zeroed {
            self.bind()?;
            // SAFETY: `block` holds at least `bytes` bytes, allocated on this stream just
            // above and seen by nothing else yet.
            let set = unsafe {
                cudarc::driver::result::memset_d8_async(block.ptr, 0, bytes, self.cu_stream())
            };
            if let Err(e) = set {
                self.pool().give_back(0, block);
                return Err(Error::cuda("zeroing scratch memory")(e));
            }
        }
        let ptr = block.ptr;
        map.insert(key, block);
        Ok(ptr)
    }

    /// The scratch block `name` of this handle's stream, if it was made already.
    pub(crate) fn existing_scratch(&self, name: &'static str) -> Option<CUdeviceptr> {
        let map = self.inner.scratch.lock().unwrap_or_else(|p| p.into_inner());
        map.get(&(self.stream_id(), name)).map(|b| b.ptr)
    }

    /// Returns stream `id`'s scratch blocks to the pool under the device's own stream,
    /// which must already be ordered after that stream's work.
    pub(crate) fn release_scratch(&self, id: u64) {
        let mut map = self.inner.scratch.lock().unwrap_or_else(|p| p.into_inner());
        let keys: Vec<_> = map.keys().filter(|k| k.0 == id).copied().collect();
        for k in keys {
            if let Some(b) = map.remove(&k) {
                self.pool().give_back(0, b);
            }
        }
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

// ---- CUDA graph capture ------------------------------------------------------------------

/// A number for the calling thread, unique in the process and never 0.
fn thread_token() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    thread_local!(static TOKEN: u64 = NEXT.fetch_add(1, Ordering::Relaxed));
    TOKEN.with(|t| *t)
}

thread_local! {
    /// How many [`Queuing`] tickets the thread holds, by device (the address of its
    /// `CaptureState`). Checks nest: `to_host` waits through `synchronize`; a copy between
    /// two devices holds a ticket of each.
    static QUEUING_DEPTH: std::cell::RefCell<Vec<(usize, u32)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// A ticket held by an operation from its capture check until its work is queued (and,
/// for an operation that waits, until the wait is over): no capture of the device begins
/// while one is held, so the work the check allowed cannot end up inside a graph.
#[must_use = "hold the ticket while the operation queues its work"]
pub(crate) struct Queuing<'a> {
    state: &'a CaptureState,
    /// Not `Send`: the thread's depth counts it.
    _thread: std::marker::PhantomData<*const ()>,
}

impl Drop for Queuing<'_> {
    fn drop(&mut self) {
        self.state.nest(-1);
        self.state.queuing.fetch_sub(1, Ordering::Release);
    }
}

impl CaptureState {
    /// Adds `by` to the calling thread's ticket count for this device; returns the new
    /// count.
    fn nest(&self, by: i32) -> u32 {
        let key = self as *const CaptureState as usize;
        QUEUING_DEPTH.with(|d| {
            let mut d = d.borrow_mut();
            let i = match d.iter().position(|e| e.0 == key) {
                Some(i) => i,
                None => {
                    d.push((key, 0));
                    d.len() - 1
                }
            };
            let n = d[i].1.saturating_add_signed(by);
            if n == 0 {
                d.swap_remove(i);
            } else {
                d[i].1 = n;
            }
            n
        })
    }

    /// Takes a [`Queuing`] ticket; returns it with the captured stream's key (0 when no
    /// capture is under way) and whether the calling thread is the capture's, or `None`
    /// for a check nested in another of this thread's tickets for the device, taken
    /// outside a capture.
    fn ticket(&self) -> (Queuing<'_>, Option<(u64, bool)>) {
        // SeqCst, paired with `mark`: either this load sees the capture, or the capture
        // sees this ticket and waits for it.
        self.queuing.fetch_add(1, Ordering::SeqCst);
        let outer = self.nest(1) == 1;
        let ticket = Queuing {
            state: self,
            _thread: std::marker::PhantomData,
        };
        let s = self.stream.load(Ordering::SeqCst);
        if s == 0 {
            return (ticket, Some((0, false)));
        }
        let own = self.owner.load(Ordering::SeqCst) == thread_token();
        if !outer && !own {
            // An outer ticket of this thread was taken before the capture, which is waiting
            // for it: the outer operation finishes what it queued (a refusal here could
            // leave a copy running into memory about to be freed).
            return (ticket, None);
        }
        (ticket, Some((s, own)))
    }

    /// Marks a capture of the stream `key` (non-zero) by the calling thread, then waits
    /// until the tickets of other threads taken before the mark are given back. `false`
    /// when a capture is already marked.
    fn mark(&self, key: u64) -> bool {
        if self
            .stream
            .compare_exchange(0, key, Ordering::SeqCst, Ordering::SeqCst)
            .is_err()
        {
            return false;
        }
        self.owner.store(thread_token(), Ordering::SeqCst);
        // Operations of other threads that passed their check before the mark finish
        // queuing first (later ones see the mark and are refused); their work and events
        // then stay outside the graph.
        let own = self.nest(0) as usize;
        while self.queuing.load(Ordering::SeqCst) > own {
            std::thread::yield_now();
        }
        true
    }

    /// Clears the mark.
    fn unmark(&self) {
        self.owner.store(0, Ordering::SeqCst);
        self.stream.store(0, Ordering::SeqCst);
    }
}

/// Restores the thread's capture mode on drop (see [`Device::relaxed_capture_mode`]).
pub(crate) struct CaptureMode(Option<cudarc::driver::sys::CUstreamCaptureMode>);

impl Drop for CaptureMode {
    fn drop(&mut self) {
        if let Some(mut mode) = self.0.take() {
            // SAFETY: an in/out parameter holding a valid mode.
            let _ = unsafe { cudarc::driver::sys::cuThreadExchangeStreamCaptureMode(&mut mode) };
        }
    }
}

/// Why another thread's work is refused during a capture.
const OTHER_THREAD: &str = "another thread is capturing a CUDA graph on this device: until \
    the capture ends, the device takes work only from that thread (work queued now would be \
    recorded into its graph instead of running); retry after the capture";

impl Device {
    /// True while a CUDA graph is being captured on one of this device's streams.
    #[inline]
    pub(crate) fn capturing(&self) -> bool {
        self.inner.capture.stream.load(Ordering::Acquire) != 0
    }

    /// `Err` naming `op` when a capture is under way on this device: `op` would wait for
    /// the GPU, copy between host and device, or otherwise cannot be part of a graph.
    /// Checked before any CUDA call, so that the capture survives the refusal. The ticket
    /// returned is held while `op` queues its work.
    #[inline]
    pub(crate) fn check_capture(&self, op: &'static str) -> Result<Queuing<'_>> {
        match self.inner.capture.ticket() {
            (ticket, None | Some((0, _))) => Ok(ticket),
            (_, Some((_, own))) => Err(Error::Capture {
                op,
                msg: if own {
                    "not allowed while a CUDA graph is being captured on this device: it \
                     waits for the GPU, moves data between host and device, or cannot be \
                     replayed; do it before or after the capture"
                        .into()
                } else {
                    OTHER_THREAD.into()
                },
            }),
        }
    }

    /// `Err` when a capture is under way on this device on another stream than this
    /// handle's (work launched here would run now, not be captured), or by another thread
    /// (its stream takes work from the capturing thread only). The ticket returned is held
    /// while the work is queued.
    #[inline]
    pub(crate) fn check_capture_stream(&self, op: &'static str) -> Result<Queuing<'_>> {
        match self.inner.capture.ticket() {
            (ticket, None | Some((0, _))) => Ok(ticket),
            (_, Some((_, false))) => Err(Error::Capture {
                op,
                msg: OTHER_THREAD.into(),
            }),
            (_, Some((s, true))) if s != self.stream_id() + 1 => Err(Error::Capture {
                op,
                msg: "work on another stream than the one being captured (arrays run their \
                      operations on the stream they were made on; capture on that stream)"
                    .into(),
            }),
            (ticket, _) => Ok(ticket),
        }
    }

    /// The private pool of the capture under way on this handle's stream.
    #[inline]
    pub(crate) fn capture_pool(&self) -> Option<Arc<memory::GraphPool>> {
        let s = self.inner.capture.stream.load(Ordering::Acquire);
        if s == 0
            || s != self.stream_id() + 1
            || self.inner.capture.owner.load(Ordering::Acquire) != thread_token()
        {
            return None;
        }
        self.inner
            .capture
            .pool
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Holds `buf` until the capture under way ends, then drops it.
    pub(crate) fn defer_until_capture_ends(&self, buf: DeviceBuffer) {
        self.inner
            .capture
            .deferred
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(buf);
    }

    /// Keeps `buf` alive for the graph being captured, whose work uses it.
    #[inline]
    pub(crate) fn retain_for_capture(buf: &Arc<DeviceBuffer>) {
        let inner = &buf.device().inner;
        if inner.capture.stream.load(Ordering::Acquire) == 0 {
            return;
        }
        let mut r = inner
            .capture
            .retained
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        if !r.iter().any(|b| Arc::ptr_eq(b, buf)) {
            r.push(buf.clone());
        }
    }

    /// Marks the start of a capture on this handle's stream with `pool` as its memory.
    /// `Err` when a capture is already under way on the device.
    pub(crate) fn begin_capture_state(&self, pool: Arc<memory::GraphPool>) -> Result<()> {
        let c = &self.inner.capture;
        if !c.mark(self.stream_id() + 1) {
            return Err(Error::Capture {
                op: "capture",
                msg: "a capture is already under way on this device (captures do not nest; \
                      launch a finished graph inside a capture instead)"
                    .into(),
            });
        }
        *c.pool.lock().unwrap_or_else(|p| p.into_inner()) = Some(pool);
        Ok(())
    }

    /// Marks the end of the capture; returns its pool and the buffers it retained.
    pub(crate) fn end_capture_state(
        &self,
    ) -> (Option<Arc<memory::GraphPool>>, Vec<Arc<DeviceBuffer>>) {
        self.inner.capture.unmark();
        // Outside the capture now: their drops order their reuse as usual.
        let deferred = std::mem::take(
            &mut *self
                .inner
                .capture
                .deferred
                .lock()
                .unwrap_or_else(|p| p.into_inner()),
        );
        drop(deferred);
        let pool = self
            .inner
            .capture
            .pool
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        let retained = std::mem::take(
            &mut *self
                .inner
                .capture
                .retained
                .lock()
                .unwrap_or_else(|p| p.into_inner()),
        );
        (pool, retained)
    }

    /// While alive, this thread's CUDA calls run in relaxed capture mode (allocations
    /// and module loads are then allowed during a capture); a no-op without a capture.
    pub(crate) fn relaxed_capture_mode(&self) -> CaptureMode {
        if !self.capturing() {
            return CaptureMode(None);
        }
        relaxed_capture_mode()
    }
}

/// While alive, this thread's CUDA calls run in relaxed capture mode, capture or not (a
/// thread-local switch, no work for the GPU).
pub(crate) fn relaxed_capture_mode() -> CaptureMode {
    let mut mode = cudarc::driver::sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_RELAXED;
    // SAFETY: an in/out parameter holding a valid mode.
    let ok = unsafe { cudarc::driver::sys::cuThreadExchangeStreamCaptureMode(&mut mode) };
    CaptureMode((ok == cudarc::driver::sys::CUresult::CUDA_SUCCESS).then_some(mode))
}

pub(crate) fn require_nvrtc() -> Result<()> {
    probe::require(Lib::Nvrtc)
}

#[cfg(test)]
mod tests {
    use super::CaptureState;
    use std::sync::atomic::Ordering;

    /// The kind of answer a check gets: allowed outside a capture, allowed because nested,
    /// or inside a capture (with whether the thread is the capture's).
    fn check(c: &CaptureState) -> &'static str {
        match c.ticket().1 {
            Some((0, _)) => "free",
            None => "nested",
            Some((_, true)) => "own",
            Some((_, false)) => "other",
        }
    }

    #[test]
    fn tickets_outside_and_inside_a_capture() {
        let c = CaptureState::default();
        assert_eq!(check(&c), "free");
        assert_eq!(c.queuing.load(Ordering::SeqCst), 0, "tickets given back");
        assert!(c.mark(5));
        assert!(!c.mark(6), "captures do not nest");
        assert_eq!(check(&c), "own");
        std::thread::scope(|s| {
            s.spawn(|| assert_eq!(check(&c), "other"));
        });
        c.unmark();
        assert_eq!(check(&c), "free");
        assert_eq!(c.queuing.load(Ordering::SeqCst), 0);
    }

    #[test]
    fn a_capture_waits_for_tickets_taken_before_it() {
        let c = CaptureState::default();
        let (taken_tx, taken_rx) = std::sync::mpsc::channel();
        let (go_tx, go_rx) = std::sync::mpsc::channel::<()>();
        let c = &c;
        std::thread::scope(|s| {
            let holder = s.spawn(move || {
                let outer = c.ticket();
                assert!(matches!(outer.1, Some((0, _))));
                taken_tx.send(()).unwrap();
                // The mark is visible while the capture waits for this ticket.
                while c.stream.load(Ordering::SeqCst) == 0 {
                    std::thread::yield_now();
                }
                go_rx.recv().unwrap();
                // Nested in a ticket taken before the mark: allowed, so that the outer
                // operation can finish.
                let nested = check(c);
                drop(outer);
                nested
            });
            taken_rx.recv().unwrap();
            let capturer = s.spawn(move || c.mark(9));
            while c.stream.load(Ordering::SeqCst) == 0 {
                std::thread::yield_now();
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
            assert!(
                !capturer.is_finished(),
                "the capture began before the ticket was back"
            );
            go_tx.send(()).unwrap();
            assert_eq!(holder.join().unwrap(), "nested");
            assert!(capturer.join().unwrap());
            // A new operation of another thread is refused now.
            assert_eq!(check(c), "other");
        });
        c.unmark();
        assert_eq!(c.queuing.load(Ordering::SeqCst), 0);
    }

    #[test]
    fn nesting_counts_per_device() {
        // A ticket held on one device does not let a check on another device through
        // while that one is being captured by another thread.
        let (x, y) = (CaptureState::default(), CaptureState::default());
        std::thread::scope(|s| {
            s.spawn(|| assert!(y.mark(3))).join().unwrap();
        });
        let on_x = x.ticket();
        assert!(matches!(on_x.1, Some((0, _))));
        assert_eq!(check(&y), "other");
        drop(on_x);
        y.unmark();
        assert_eq!(check(&y), "free");
        assert_eq!(x.queuing.load(Ordering::SeqCst), 0);
        assert_eq!(y.queuing.load(Ordering::SeqCst), 0);
    }
}
