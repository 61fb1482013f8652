//! Device memory: [`DeviceBuffer`] and the caching pool behind it.
//!
//! Allocation goes through a size-class cache in front of the driver's stream-ordered
//! allocator (`cuMemAllocAsync`): a freed block goes back to its class and the next
//! request of that class takes it without a driver call. Every block is allocated, used
//! and freed on the device's one stream, so reuse is ordered after all earlier work on
//! that block (the same argument as CuPy's and PyTorch's pools).

use super::Device;
use crate::{Error, Result};
use cudarc::driver::sys::CUdeviceptr;
use std::collections::HashMap;
use std::sync::Mutex;

/// Requests are rounded up to a multiple of this (and so every block is aligned to it).
const SMALL_ROUND: usize = 512;
/// Past this size, classes are 1/8 of a power of two apart (at most 12.5% rounding).
const SMALL_LIMIT: usize = 1 << 20;

/// The size class a request of `bytes` is served from.
pub(crate) fn size_class(bytes: usize) -> usize {
    let bytes = bytes.max(1);
    if bytes <= SMALL_LIMIT {
        return bytes.div_ceil(SMALL_ROUND) * SMALL_ROUND;
    }
    let step = (bytes.next_power_of_two() / 16).max(SMALL_ROUND);
    bytes.div_ceil(step) * step
}

/// Counters of the pool, as returned by [`Device::memory_stats`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MemoryStats {
    /// Bytes held by live arrays (after rounding to size classes).
    pub in_use: usize,
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
    free: HashMap<usize, Vec<CUdeviceptr>>,
    stats: MemoryStats,
    limit: Option<usize>,
}

/// The per-device caching allocator.
#[derive(Default)]
pub(crate) struct Pool {
    state: Mutex<PoolState>,
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

    /// Takes the cached blocks out of the pool (the caller frees them).
    pub(crate) fn take_cached(&self) -> Vec<(usize, CUdeviceptr)> {
        let mut s = self.lock();
        let mut out = Vec::new();
        for (class, ptrs) in s.free.drain() {
            out.extend(ptrs.into_iter().map(|p| (class, p)));
        }
        let cached: usize = out.iter().map(|(c, _)| c).sum();
        s.stats.reserved -= cached;
        out
    }
}

/// Raw device memory of one array: `bytes` bytes at `ptr`, owned, returned to the device's
/// pool on drop.
pub struct DeviceBuffer {
    ptr: CUdeviceptr,
    bytes: usize,
    class: usize,
    device: Device,
}

impl std::fmt::Debug for DeviceBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DeviceBuffer({} bytes on {:?})", self.bytes, self.device)
    }
}

impl DeviceBuffer {
    /// Allocates `bytes` bytes of uninitialised device memory.
    ///
    /// The contents are unspecified; callers write every element they later read.
    pub(crate) fn alloc(device: &Device, bytes: usize) -> Result<DeviceBuffer> {
        let class = size_class(bytes);
        let pool = device.pool();
        {
            let mut s = pool.lock();
            if let Some(ptr) = s.free.get_mut(&class).and_then(|v| v.pop()) {
                s.stats.in_use += class;
                s.stats.peak_in_use = s.stats.peak_in_use.max(s.stats.in_use);
                s.stats.cache_hits += 1;
                return Ok(DeviceBuffer {
                    ptr,
                    bytes,
                    class,
                    device: device.clone(),
                });
            }
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
        let over = |s: &PoolState| s.limit.is_some_and(|l| s.stats.reserved + class > l);
        if over(&pool.lock()) {
            device.release_cached()?;
            if over(&pool.lock()) {
                return Err(oom());
            }
        }
        let ptr = match device.driver_alloc(class) {
            Ok(p) => p,
            Err(_) => {
                // Give the cached blocks back to the driver and try once more.
                device.release_cached()?;
                device.driver_alloc(class).map_err(|_| oom())?
            }
        };
        let mut s = pool.lock();
        s.stats.in_use += class;
        s.stats.reserved += class;
        s.stats.peak_in_use = s.stats.peak_in_use.max(s.stats.in_use);
        s.stats.driver_allocs += 1;
        Ok(DeviceBuffer {
            ptr,
            bytes,
            class,
            device: device.clone(),
        })
    }

    /// The device address of the first byte.
    pub fn device_ptr(&self) -> CUdeviceptr {
        self.ptr
    }

    /// The device that owns the memory.
    pub fn device(&self) -> &Device {
        &self.device
    }
}

impl Drop for DeviceBuffer {
    fn drop(&mut self) {
        let mut s = self.device.pool().lock();
        s.stats.in_use -= self.class;
        s.free.entry(self.class).or_default().push(self.ptr);
    }
}

impl Device {
    /// Returns every cached (unused) block to the driver. Arrays still alive are untouched.
    pub(crate) fn release_cached(&self) -> Result<()> {
        let blocks = self.pool().take_cached();
        if blocks.is_empty() {
            return Ok(());
        }
        self.bind()?;
        for (_, ptr) in blocks {
            // SAFETY: the block came from `driver_alloc` on this device's stream and no live
            // buffer refers to it (it was in the free lists); freeing on the same stream
            // orders the free after every kernel that used it.
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
    pub fn stats(&self) -> MemoryStats {
        self.device.pool().stats()
    }
    /// Bytes held by live arrays (rounded up to the pool's size classes).
    pub fn used_bytes(&self) -> usize {
        self.stats().in_use
    }
    /// Bytes obtained from the driver: in use plus cached for reuse.
    pub fn total_bytes(&self) -> usize {
        self.stats().reserved
    }
    /// Highest [`used_bytes`](Self::used_bytes) since the device was opened or the last
    /// [`reset_peak`](Self::reset_peak).
    pub fn peak_bytes(&self) -> usize {
        self.stats().peak_in_use
    }
    /// Starts peak tracking again from the bytes in use now.
    pub fn reset_peak(&self) {
        self.device.pool().reset_peak()
    }
    /// Caps the bytes the pool may hold (`None`: no cap, the default). An allocation that
    /// would pass the cap first returns cached blocks to the driver, then fails with
    /// [`Error::OutOfMemory`].
    pub fn set_limit(&self, bytes: Option<usize>) {
        self.device.pool().lock().limit = bytes;
    }
    /// The cap set by [`set_limit`](Self::set_limit).
    pub fn limit(&self) -> Option<usize> {
        self.device.pool().lock().limit
    }
    /// Returns every cached, unused block to the driver (CuPy's `free_all_blocks`,
    /// PyTorch's `empty_cache`). Live arrays are untouched.
    ///
    /// # Synchronization
    /// Waits for the device, so that the driver can release the memory.
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
        let c = size_class((1 << 20) + 1);
        assert!(c > (1 << 20) && c - (1 << 20) <= (1 << 17));
        for b in [3_000_000usize, 1 << 30, (1 << 30) + 7, 5_000_000_000] {
            let c = size_class(b);
            assert!(c >= b && (c - b) as f64 <= b as f64 * 0.125, "{b} -> {c}");
            assert_eq!(c % 512, 0);
        }
    }
}
