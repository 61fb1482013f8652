//! The per-device state of the layers above the device: extensions by type (the kernel
//! cache, library handles) and scratch blocks by stream and name.

use super::{Device, DeviceBuffer, Extension};
use crate::{Error, Result};
use cudarc::driver::sys::CUdeviceptr;
use std::any::TypeId;
use std::sync::Arc;

impl Device {
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
}
