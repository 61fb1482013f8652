//! Device memory: [`DeviceBuffer`] and the caching pool behind it.
//!
//! Allocation goes through a size-class cache in front of the driver's stream-ordered
//! allocator (`cuMemAllocAsync`): a freed block goes back to its class and the next
//! request of that class takes it without a driver call.
//!
//! Blocks are cached per stream (the stream they were allocated on, their home), as in
//! CuPy's and PyTorch's pools: reuse on the home stream is ordered after all earlier work
//! there. A buffer also used on other streams records them; when it is dropped, its home
//! stream is made to wait for each of them (an event) before the block can be reused.
//! When a stream is dropped, its cached blocks become orphans that any stream may take,
//! after waiting for an event recorded at the end of the dead stream's work: short-lived
//! streams reuse one another's memory instead of growing the pool.

use super::Device;
use crate::{Error, Result};
use cudarc::driver::sys::CUdeviceptr;
use cudarc::driver::{CudaEvent, CudaStream};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Requests are rounded up to a multiple of this (and so every block is aligned to it).
const SMALL_ROUND: usize = 512;
/// Past this size, classes are 1/8 of a power of two apart (at most 12.5% rounding).
const SMALL_LIMIT: usize = 1 << 20;

/// The size class a request of `bytes` is served from; `bytes` is at most `isize::MAX`
/// (checked by the caller), so the rounding cannot overflow.
pub(crate) fn size_class(bytes: usize) -> usize {
    debug_assert!(bytes <= isize::MAX as usize);
    let bytes = bytes.max(1);
    if bytes <= SMALL_LIMIT {
        return bytes.div_ceil(SMALL_ROUND) * SMALL_ROUND;
    }
    let step = (bytes.next_power_of_two() / 16).max(SMALL_ROUND);
    bytes.div_ceil(step) * step
}

/// Counters of the pool, as returned by [`Device::memory_stats`].
///
/// ```no_run
/// use cuarray::{Device, DeviceArray};
/// let dev = Device::new(0)?;
/// let a = DeviceArray::<f64>::zeros(&dev, &[1 << 20])?; // 8 MiB
/// let s = dev.memory_stats();
/// assert!(s.in_use >= 8 << 20);
/// println!("{} MiB in use, {} MiB reserved", s.in_use >> 20, s.reserved >> 20);
/// # Ok::<(), cuarray::Error>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MemoryStats {
    /// Bytes held by live arrays (after rounding to size classes). Scratch blocks are
    /// not counted here but in `scratch`.
    pub in_use: usize,
    /// Bytes cuarray holds for itself apart from arrays: small per-stream scratch blocks
    /// of some kernels (a reduction's row counters, the device's error records: a few KiB
    /// a stream), kept for the life of their stream (graphs captured on it may refer to
    /// them) and given back when it is dropped. Libraries' workspaces (cuBLAS, cuSOLVER)
    /// are taken from the pool for each call and handed back after it, so they are never
    /// counted here; between calls they are cached blocks that
    /// [`free_all_blocks`](MemoryPool::free_all_blocks) returns to the driver.
    pub scratch: usize,
    /// Bytes obtained from the driver: in use plus cached for reuse.
    pub reserved: usize,
    /// Highest `in_use` seen.
    pub peak_in_use: usize,
    /// Allocations served from the cache without a driver call.
    pub cache_hits: u64,
    /// Allocations that went to the driver.
    pub driver_allocs: u64,
}

#[derive(Default)]
struct PoolState {
    /// Cached blocks by (home stream id, size class).
    free: HashMap<(u64, usize), Vec<CUdeviceptr>>,
    /// Cached blocks of dropped streams by size class, each with an event recorded after
    /// the last work of its stream: any stream may take one once it waits for the event.
    orphans: HashMap<usize, Vec<(CUdeviceptr, Arc<CudaEvent>)>>,
    stats: MemoryStats,
    limit: Option<usize>,
}

/// The per-device caching allocator.
#[derive(Default)]
pub(crate) struct Pool {
    state: Mutex<PoolState>,
}

impl PoolState {
    /// Counts an allocation of `class` bytes served from the cache.
    fn hit(&mut self, class: usize) {
        self.stats.in_use += class;
        self.stats.peak_in_use = self.stats.peak_in_use.max(self.stats.in_use);
        self.stats.cache_hits += 1;
    }
}

impl Pool {
    fn lock(&self) -> std::sync::MutexGuard<'_, PoolState> {
        // A panic while holding the lock cannot leave the maps inconsistent (every update
        // is a single insert or remove), so a poisoned lock is still usable.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(crate) fn stats(&self) -> MemoryStats {
        self.lock().stats
    }

    pub(crate) fn reset_peak(&self) {
        let mut s = self.lock();
        s.stats.peak_in_use = s.stats.in_use;
    }

    /// Makes the blocks cached for the dropped stream `from` orphans: reusable by any
    /// stream after it waits for `done`, an event recorded after `from`'s last work.
    pub(crate) fn orphan(&self, from: u64, done: CudaEvent) {
        let done = Arc::new(done);
        let mut s = self.lock();
        let keys: Vec<_> = s.free.keys().filter(|k| k.0 == from).copied().collect();
        for k in keys {
            if let Some(v) = s.free.remove(&k) {
                let list = s.orphans.entry(k.1).or_default();
                list.extend(v.into_iter().map(|p| (p, done.clone())));
            }
        }
    }

    /// Takes the cached blocks out of the pool (the caller frees them).
    pub(crate) fn take_cached(&self) -> Vec<(usize, CUdeviceptr)> {
        let mut s = self.lock();
        let mut out = Vec::new();
        for ((_, class), ptrs) in s.free.drain() {
            out.extend(ptrs.into_iter().map(|p| (class, p)));
        }
        for (class, blocks) in s.orphans.drain() {
            out.extend(blocks.into_iter().map(|(p, _)| (class, p)));
        }
        let cached: usize = out.iter().map(|(c, _)| c).sum();
        s.stats.reserved -= cached;
        out
    }
}

/// Raw device memory: `bytes` bytes from the device's pool, returned to it on drop. Every
/// [`DeviceArray`](crate::DeviceArray) holds one.
///
/// ```no_run
/// let dev = cuarray::Device::new(0)?;
/// let block = cuarray::DeviceBuffer::new(&dev, 1 << 20)?;   // from the pool's cache
/// assert_eq!(block.len(), 1 << 20);
/// drop(block);                                               // back to the cache
/// # Ok::<(), cuarray::Error>(())
/// ```
pub struct DeviceBuffer {
    ptr: CUdeviceptr,
    bytes: usize,
    class: usize,
    /// The device, bound to the buffer's home stream (the one it was allocated on).
    device: Device,
    /// Other streams the buffer was used on, by id.
    foreign: Mutex<Vec<(u64, Arc<CudaStream>)>>,
    /// The graph-private pool the block came from (allocated during a capture).
    graph: Option<Arc<GraphPool>>,
    /// Foreign memory (`DeviceArray::from_raw_parts`, DLPack): the value that keeps it
    /// alive, dropped with the buffer. Such a buffer is no pool block: its bytes are not
    /// counted in the pool's statistics and never enter its free lists.
    owner: Option<Box<dyn std::any::Any + Send + Sync>>,
}

impl std::fmt::Debug for DeviceBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DeviceBuffer({} bytes on {:?})", self.bytes, self.device)
    }
}

impl DeviceBuffer {
    /// Allocates `bytes` bytes of device memory on `device`'s stream, from the pool's
    /// cache when it holds a block of the size class (no driver call), otherwise from
    /// the driver. The contents are unspecified.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceBuffer};
    /// let dev = Device::new(0)?;
    /// let buf = DeviceBuffer::new(&dev, 1 << 20)?; // raw device memory from the pool
    /// assert_eq!(buf.len(), 1 << 20);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::TooLarge`] past `isize::MAX` bytes; [`Error::OutOfMemory`] past the pool's
    /// limit or the card's memory.
    pub fn new(device: &Device, bytes: usize) -> Result<DeviceBuffer> {
        Self::alloc(device, bytes)
    }

    /// Allocates `bytes` bytes of uninitialised device memory.
    ///
    /// The contents are unspecified; callers write every element they later read.
    pub(crate) fn alloc(device: &Device, bytes: usize) -> Result<DeviceBuffer> {
        if bytes > isize::MAX as usize {
            return Err(Error::TooLarge {
                op: "allocate",
                shape: vec![bytes],
                elem_bytes: Some(1),
            });
        }
        let class = size_class(bytes);
        if let Some(graph) = device.capture_pool() {
            return graph.alloc(device, bytes, class);
        }
        let pool = device.pool();
        let key = (device.stream_id(), class);
        let orphan = {
            let mut s = pool.lock();
            if let Some(ptr) = s.free.get_mut(&key).and_then(|v| v.pop()) {
                s.hit(class);
                return Ok(DeviceBuffer::wrap(ptr, bytes, class, device));
            }
            s.orphans.get_mut(&class).and_then(|v| v.pop())
        };
        // From here on the stream waits or the driver allocates: not during another
        // thread's capture, whose graph would record the wait or refuse the allocation.
        let _queuing = match device.check_capture_stream("allocate") {
            Ok(q) => q,
            Err(e) => {
                if let Some(o) = orphan {
                    pool.lock().orphans.entry(class).or_default().push(o);
                }
                return Err(e);
            }
        };
        if let Some((ptr, done)) = orphan {
            // Order this stream after the dead stream's last use of the block.
            if device.cuda_stream().wait(&done).is_ok() || done.synchronize().is_ok() {
                pool.lock().hit(class);
                return Ok(DeviceBuffer::wrap(ptr, bytes, class, device));
            }
            pool.lock()
                .orphans
                .entry(class)
                .or_default()
                .push((ptr, done));
        }
        let oom = || {
            let (free, total) = device.memory_info().unwrap_or((0, 0));
            let s = pool.lock();
            Error::OutOfMemory {
                requested: bytes,
                in_use: s.stats.in_use,
                limit: s.limit,
                free,
                total,
            }
        };
        // Under a limit, the cache is emptied before the pool grows past it.
        let over = |s: &PoolState| {
            s.limit
                .is_some_and(|l| s.stats.reserved.saturating_add(class) > l)
        };
        if over(&pool.lock()) {
            device.release_cached()?;
            if over(&pool.lock()) {
                return Err(oom());
            }
        }
        // A null pointer is never a block: no null may enter the pool.
        let ptr = match device.driver_alloc(class) {
            Ok(p) if p != 0 => p,
            _ => {
                // Give the cached blocks back to the driver and try once more.
                device.release_cached()?;
                match device.driver_alloc(class) {
                    Ok(p) if p != 0 => p,
                    _ => return Err(oom()),
                }
            }
        };
        let mut s = pool.lock();
        s.stats.in_use += class;
        s.stats.reserved += class;
        s.stats.peak_in_use = s.stats.peak_in_use.max(s.stats.in_use);
        s.stats.driver_allocs += 1;
        Ok(DeviceBuffer::wrap(ptr, bytes, class, device))
    }

    fn wrap(ptr: CUdeviceptr, bytes: usize, class: usize, device: &Device) -> DeviceBuffer {
        DeviceBuffer {
            ptr,
            bytes,
            class,
            device: device.clone(),
            foreign: Mutex::new(Vec::new()),
            graph: None,
            owner: None,
        }
    }

    /// Foreign memory of `bytes` bytes at `ptr` on `device`, kept alive by `owner`: the
    /// pool neither counts nor recycles it. When the buffer is dropped, the streams that
    /// used it are waited for, then `owner` is dropped (exactly once).
    ///
    /// # Safety
    /// `ptr .. ptr + bytes` is device memory of `device`'s context that stays valid until
    /// `owner` is dropped.
    pub(crate) unsafe fn foreign_memory(
        device: &Device,
        ptr: CUdeviceptr,
        bytes: usize,
        owner: Box<dyn std::any::Any + Send + Sync>,
    ) -> DeviceBuffer {
        DeviceBuffer {
            ptr,
            bytes,
            class: 0,
            device: device.clone(),
            foreign: Mutex::new(Vec::new()),
            graph: None,
            owner: Some(owner),
        }
    }

    /// True for memory cuarray's pool does not own (see `foreign_memory`).
    pub(crate) fn is_foreign_memory(&self) -> bool {
        self.owner.is_some()
    }

    /// The device address of the first byte.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceBuffer};
    /// let dev = Device::new(0)?;
    /// let buf = DeviceBuffer::new(&dev, 256)?;
    /// let ptr = buf.device_ptr(); // a CUdeviceptr, for a raw kernel or another library
    /// assert_ne!(ptr, 0);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn device_ptr(&self) -> CUdeviceptr {
        self.ptr
    }

    /// Size in bytes (as requested; the block may be larger).
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceBuffer};
    /// let dev = Device::new(0)?;
    /// assert_eq!(DeviceBuffer::new(&dev, 100)?.len(), 100);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn len(&self) -> usize {
        self.bytes
    }

    /// True for a zero-byte buffer.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceBuffer};
    /// let dev = Device::new(0)?;
    /// assert!(DeviceBuffer::new(&dev, 0)?.is_empty());
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn is_empty(&self) -> bool {
        self.bytes == 0
    }

    /// The device that owns the memory, bound to the stream the buffer was allocated on.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceBuffer};
    /// let dev = Device::new(0)?;
    /// let buf = DeviceBuffer::new(&dev, 256)?;
    /// assert_eq!(buf.device().ordinal(), 0);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// Notes that work on `user`'s stream uses this buffer, so that its memory is not
    /// reused before that work is done. Free when `user` runs on the home stream.
    pub(crate) fn used_on(&self, user: &Device) {
        let id = user.stream_id();
        if id == self.device.stream_id() {
            return;
        }
        let mut f = self.foreign.lock().unwrap_or_else(|p| p.into_inner());
        if !f.iter().any(|(i, _)| *i == id) {
            f.push((id, user.cuda_stream().clone()));
        }
    }
}

/// A pool block held outside any [`DeviceBuffer`] (scratch memory), counted as scratch
/// until it is given back.
pub(crate) struct RawBlock {
    pub(crate) ptr: CUdeviceptr,
    pub(crate) bytes: usize,
    class: usize,
}

impl DeviceBuffer {
    /// Takes the block out of the buffer without returning it to the pool: it is counted
    /// as scratch (not in use) until [`Pool::give_back`]. Only for buffers used on their home
    /// stream alone.
    pub(crate) fn into_raw(self) -> RawBlock {
        debug_assert!(self.foreign.lock().map(|f| f.is_empty()).unwrap_or(true));
        debug_assert!(self.graph.is_none(), "a graph pool's block kept as scratch");
        debug_assert!(self.owner.is_none(), "foreign memory kept as scratch");
        {
            let mut s = self.device.pool().lock();
            s.stats.in_use -= self.class;
            s.stats.scratch += self.class;
        }
        let this = std::mem::ManuallyDrop::new(self);
        // SAFETY: `this` is never used again and its `Drop` does not run, so the two
        // fields that own resources (a device reference, a list of streams) are moved out
        // exactly once and dropped here.
        drop(unsafe { std::ptr::read(&this.device) });
        // SAFETY: as above.
        drop(unsafe { std::ptr::read(&this.foreign) });
        // SAFETY: as above.
        drop(unsafe { std::ptr::read(&this.graph) });
        // SAFETY: as above.
        drop(unsafe { std::ptr::read(&this.owner) });
        RawBlock {
            ptr: this.ptr,
            bytes: this.bytes,
            class: this.class,
        }
    }
}

impl Pool {
    /// Returns a raw block to the cache of stream `id` (work on that stream that follows
    /// may reuse it).
    pub(crate) fn give_back(&self, id: u64, block: RawBlock) {
        let mut s = self.lock();
        s.stats.scratch -= block.class;
        s.free.entry((id, block.class)).or_default().push(block.ptr);
    }
}

impl Drop for DeviceBuffer {
    fn drop(&mut self) {
        if let Some(graph) = self.graph.take() {
            // Back to the graph's own pool: reused only by later work of the same capture
            // (stream-ordered), freed when the graph and its last buffer are gone.
            graph.give_back(self.ptr, self.class);
            return;
        }
        let foreign = std::mem::take(self.foreign.get_mut().unwrap_or_else(|p| p.into_inner()));
        if (!foreign.is_empty() || self.owner.is_some()) && self.device.capturing() {
            // Ordering the block's reuse makes its home stream wait for the other streams,
            // which cannot happen on a stream being captured (the wait would join the
            // graph, or break it): the block waits for the capture's end. So does foreign
            // memory, whose drop waits for its streams.
            self.device.defer_until_capture_ends(DeviceBuffer {
                ptr: self.ptr,
                bytes: self.bytes,
                class: self.class,
                device: self.device.clone(),
                foreign: Mutex::new(foreign),
                graph: None,
                owner: self.owner.take(),
            });
            return;
        }
        if self.owner.is_some() {
            // Foreign memory: its owner may free it as soon as it is dropped, outside any
            // stream's order, so the work queued on every stream that used it finishes
            // first. Nothing goes back to the pool.
            let synced = std::iter::once(self.device.cuda_stream())
                .chain(foreign.iter().map(|(_, s)| s))
                .all(|s| s.synchronize().is_ok());
            if !synced {
                let _ = self.device.context().synchronize();
            }
            drop(self.owner.take());
            return;
        }
        if !foreign.is_empty() {
            // Order reuse on the home stream after the work queued on the other streams.
            let home = self.device.cuda_stream();
            let ordered = foreign
                .iter()
                .all(|(_, s)| s.record_event(None).and_then(|e| home.wait(&e)).is_ok());
            if !ordered {
                // An event could not be recorded: wait for everything rather than risk
                // handing the block to new work while old work still uses it.
                let _ = self.device.context().synchronize();
            }
        }
        let mut s = self.device.pool().lock();
        s.stats.in_use -= self.class;
        s.free
            .entry((self.device.stream_id(), self.class))
            .or_default()
            .push(self.ptr);
    }
}

/// The memory of one CUDA graph: blocks allocated while its work was captured, owned by
/// the graph for as long as it lives (PyTorch's private pools), so that replays never
/// touch memory handed to anything else.
///
/// Blocks come from `cuMemAlloc` (never `cuMemAllocAsync`, which would record memory
/// nodes in the graph), under a relaxed capture mode. A block freed during the capture
/// returns to this pool and may serve a later allocation of the same capture (their uses
/// are ordered on the captured stream, at every replay too). The blocks go back to the
/// driver when the graph and every array still holding one are gone.
pub(crate) struct GraphPool {
    /// The device, on its own stream.
    device: Device,
    state: Mutex<GraphPoolState>,
}

#[derive(Default)]
struct GraphPoolState {
    free: HashMap<usize, Vec<CUdeviceptr>>,
    /// Every block of the pool: (address, size class).
    owned: Vec<(CUdeviceptr, usize)>,
}

impl std::fmt::Debug for GraphPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        write!(f, "GraphPool({} blocks)", s.owned.len())
    }
}

impl GraphPool {
    pub(crate) fn new(device: &Device) -> GraphPool {
        GraphPool {
            device: device.on_own_stream(),
            state: Mutex::new(GraphPoolState::default()),
        }
    }

    /// Bytes held by the pool.
    pub(crate) fn bytes(&self) -> usize {
        let s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        s.owned.iter().map(|b| b.1).sum()
    }

    fn alloc(
        self: &Arc<Self>,
        device: &Device,
        bytes: usize,
        class: usize,
    ) -> Result<DeviceBuffer> {
        let reused = {
            let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
            s.free.get_mut(&class).and_then(|v| v.pop())
        };
        let ptr = match reused {
            Some(p) => {
                device.pool().lock().hit(class);
                p
            }
            None => {
                {
                    let ps = device.pool().lock();
                    if ps
                        .limit
                        .is_some_and(|l| ps.stats.reserved.saturating_add(class) > l)
                    {
                        return Err(Error::OutOfMemory {
                            requested: bytes,
                            in_use: ps.stats.in_use,
                            limit: ps.limit,
                            free: 0,
                            total: 0,
                        });
                    }
                }
                device.bind()?;
                let _relaxed = device.relaxed_capture_mode();
                // SAFETY: a plain allocation of `class` bytes in the current context.
                let ptr = match unsafe { cudarc::driver::result::malloc_sync(class) } {
                    Ok(p) if p != 0 => p,
                    _ => {
                        let s = device.pool().lock();
                        return Err(Error::OutOfMemory {
                            requested: bytes,
                            in_use: s.stats.in_use,
                            limit: s.limit,
                            free: 0,
                            total: 0,
                        });
                    }
                };
                self.state
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .owned
                    .push((ptr, class));
                let mut s = device.pool().lock();
                s.stats.in_use += class;
                s.stats.reserved += class;
                s.stats.peak_in_use = s.stats.peak_in_use.max(s.stats.in_use);
                s.stats.driver_allocs += 1;
                ptr
            }
        };
        Ok(DeviceBuffer {
            ptr,
            bytes,
            class,
            device: device.clone(),
            foreign: Mutex::new(Vec::new()),
            graph: Some(self.clone()),
            owner: None,
        })
    }

    fn give_back(&self, ptr: CUdeviceptr, class: usize) {
        self.device.pool().lock().stats.in_use -= class;
        let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        s.free.entry(class).or_default().push(ptr);
    }
}

impl Drop for GraphPool {
    fn drop(&mut self) {
        let owned = std::mem::take(
            &mut self
                .state
                .get_mut()
                .unwrap_or_else(|p| p.into_inner())
                .owned,
        );
        if owned.is_empty() {
            return;
        }
        if let Some(active) = self.device.capture_pool() {
            // Dropped inside another capture, where waiting for the device is not
            // allowed: that capture's pool frees the blocks when it goes.
            active
                .state
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .owned
                .extend(owned);
            return;
        }
        // Replays of the graph may still be running: wait for them first.
        let _ = self.device.bind();
        let _ = self.device.context().synchronize();
        let mut freed = 0;
        for (ptr, class) in owned {
            // SAFETY: the block came from `cuMemAlloc`; the graph that used it is gone
            // and no buffer holds it (each holds a reference to this pool); the device
            // has finished all work (above).
            if unsafe { cudarc::driver::result::free_sync(ptr) }.is_ok() {
                freed += class;
            }
        }
        self.device.pool().lock().stats.reserved -= freed;
    }
}

impl Device {
    /// Returns every cached (unused) block to the driver. Arrays still alive are untouched.
    pub(crate) fn release_cached(&self) -> Result<()> {
        let _queuing = self.check_capture("free_all_blocks")?;
        let blocks = self.pool().take_cached();
        if blocks.is_empty() {
            return Ok(());
        }
        self.bind()?;
        // Blocks of every stream are released: wait for all of them first.
        self.context()
            .synchronize()
            .map_err(Error::cuda("synchronize"))?;
        for (_, ptr) in blocks {
            // SAFETY: the block came from `driver_alloc` and no live buffer refers to it
            // (it was in the free lists); all work on every stream has finished (above).
            unsafe { cudarc::driver::result::free_async(ptr, self.cu_stream()) }
                .map_err(Error::cuda("free"))?;
        }
        // Let the driver's pool hand the memory back to the system.
        self.synchronize()?;
        Ok(())
    }
}

/// A device's memory pool, from [`Device::memory_pool`]: counters, a limit and trimming.
///
/// ```no_run
/// let dev = cuarray::Device::new(0)?;
/// let pool = dev.memory_pool();
/// pool.set_limit(Some(1 << 30));               // at most 1 GiB held by cuarray
/// let a = cuarray::DeviceArray::<f32>::zeros(&dev, &[1 << 20])?;
/// assert!(pool.used_bytes() >= 4 << 20);
/// drop(a);
/// pool.free_all_blocks()?;                     // hand cached blocks back to the driver
/// # Ok::<(), cuarray::Error>(())
/// ```
#[derive(Clone, Copy)]
pub struct MemoryPool<'a> {
    device: &'a Device,
}

impl<'a> MemoryPool<'a> {
    pub(crate) fn new(device: &'a Device) -> Self {
        MemoryPool { device }
    }
    /// All counters at once.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let s = dev.memory_pool().stats();
    /// assert!(s.reserved >= s.in_use && s.peak_in_use >= s.in_use);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn stats(&self) -> MemoryStats {
        self.device.pool().stats()
    }
    /// Bytes held by live arrays (rounded up to the pool's size classes).
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let pool = dev.memory_pool();
    /// let before = pool.used_bytes();
    /// let a = DeviceArray::<f32>::zeros(&dev, &[1 << 20])?;
    /// assert!(pool.used_bytes() >= before + (4 << 20));
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn used_bytes(&self) -> usize {
        self.stats().in_use
    }
    /// Bytes obtained from the driver: in use plus cached for reuse.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let pool = dev.memory_pool();
    /// let a = DeviceArray::<f32>::zeros(&dev, &[1 << 20])?;
    /// drop(a); // its block stays cached
    /// assert!(pool.total_bytes() >= pool.used_bytes() + (4 << 20));
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn total_bytes(&self) -> usize {
        self.stats().reserved
    }
    /// Highest [`used_bytes`](Self::used_bytes) since the device was opened or the last
    /// [`reset_peak`](Self::reset_peak).
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let pool = dev.memory_pool();
    /// pool.reset_peak();
    /// let t = DeviceArray::<f32>::zeros(&dev, &[1 << 20])?;
    /// drop(t);
    /// assert!(pool.peak_bytes() >= 4 << 20); // the temporary counted
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn peak_bytes(&self) -> usize {
        self.stats().peak_in_use
    }
    /// Starts peak tracking again from the bytes in use now.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let pool = dev.memory_pool();
    /// let big = DeviceArray::<f32>::zeros(&dev, &[1 << 24])?;
    /// drop(big);
    /// pool.reset_peak(); // measure from here on
    /// assert_eq!(pool.peak_bytes(), pool.used_bytes());
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn reset_peak(&self) {
        self.device.pool().reset_peak()
    }
    /// Caps the bytes the pool may hold (`None`: no cap, the default). An allocation that
    /// would pass the cap first returns cached blocks to the driver, then fails with
    /// [`Error::OutOfMemory`].
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let pool = dev.memory_pool();
    /// pool.set_limit(Some(1 << 30)); // 1 GiB
    /// assert!(DeviceArray::<f32>::zeros(&dev, &[1 << 29]).is_err()); // 2 GiB: OutOfMemory
    /// pool.set_limit(None);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn set_limit(&self, bytes: Option<usize>) {
        self.device.pool().lock().limit = bytes;
    }
    /// The cap set by [`set_limit`](Self::set_limit).
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let pool = dev.memory_pool();
    /// assert_eq!(pool.limit(), None); // no cap by default
    /// pool.set_limit(Some(1 << 30));
    /// assert_eq!(pool.limit(), Some(1 << 30));
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn limit(&self) -> Option<usize> {
        self.device.pool().lock().limit
    }
    /// Returns every cached, unused block to the driver (CuPy's `free_all_blocks`,
    /// PyTorch's `empty_cache`). Live arrays are untouched.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let pool = dev.memory_pool();
    /// drop(DeviceArray::<f32>::zeros(&dev, &[1 << 24])?); // 64 MiB cached
    /// pool.free_all_blocks()?; // given back to the driver
    /// assert_eq!(pool.total_bytes(), pool.used_bytes());
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Synchronization
    /// Waits for the device, so that the driver can release the memory.
    ///
    /// # Errors
    /// [`Error::Capture`](crate::Error::Capture) while a CUDA graph is being captured on
    /// the device; [`Error::Cuda`](crate::Error::Cuda) when the wait for the device fails.
    pub fn free_all_blocks(&self) -> Result<()> {
        self.device.release_cached()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_classes() {
        assert_eq!(size_class(0), 512);
        assert_eq!(size_class(1), 512);
        assert_eq!(size_class(513), 1024);
        assert_eq!(size_class(1 << 20), 1 << 20);
        // The largest request the pool accepts rounds without wrapping.
        let c = size_class(isize::MAX as usize);
        assert!(c >= isize::MAX as usize && c.is_multiple_of(512), "{c}");
        let c = size_class((1 << 20) + 1);
        assert!(c > (1 << 20) && c - (1 << 20) <= (1 << 17));
        for b in [3_000_000usize, 1 << 30, (1 << 30) + 7, 5_000_000_000] {
            let c = size_class(b);
            assert!(c >= b && (c - b) as f64 <= b as f64 * 0.125, "{b} -> {c}");
            assert_eq!(c % 512, 0);
        }
    }
}
