//! Copies between two devices: peer access (asked once per pair, enabled once per ordered
//! pair) and the stream-ordered peer copy.
//!
//! # Ordering invariant of [`copy_peer`]
//! The copy runs on the **source** handle's stream. Before it, that stream waits for an
//! event recorded on the destination handle's stream (so the destination block, which the
//! destination's pool may have handed out again after work still queued there, is free);
//! after it, the destination stream waits for an event recorded on the source stream
//! after the copy. So, without the host waiting:
//! - the copy reads the source after all work queued on the source stream before it;
//! - all work queued on the destination stream afterwards sees the copied bytes;
//! - the source buffer is only ever used on its own stream (its lifetime needs nothing
//!   more), and the destination buffer is used on another stream only between two events
//!   its own stream is ordered around.

use super::{Device, Inner};
use crate::{Error, Result};
use cudarc::driver::sys::{self, CUdeviceptr};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};

/// `cuDeviceCanAccessPeer` answers, by (device, peer) ordinal.
static CAN_ACCESS: Mutex<Option<HashMap<(usize, usize), bool>>> = Mutex::new(None);
/// The devices whose memory a device's context was given access to (a device
/// extension, so it goes with the context; a peer that was dropped, whose context may
/// have been destroyed and made anew, no longer counts).
#[derive(Default)]
struct Enabled(Mutex<Vec<Weak<Inner>>>);

/// Whether `dev` can access `peer`'s memory directly (NVLink or PCIe peer-to-peer), as
/// `cuDeviceCanAccessPeer` says; asked once per ordered pair. False for a device and
/// itself.
pub(crate) fn can_access_peer(dev: &Device, peer: &Device) -> Result<bool> {
    let key = (dev.ordinal(), peer.ordinal());
    if key.0 == key.1 {
        return Ok(false);
    }
    let mut map = CAN_ACCESS.lock().unwrap_or_else(|p| p.into_inner());
    let map = map.get_or_insert_with(HashMap::new);
    if let Some(&yes) = map.get(&key) {
        return Ok(yes);
    }
    let mut can: std::ffi::c_int = 0;
    // SAFETY: an out parameter and two device handles the driver gave these contexts.
    let r = unsafe {
        sys::cuDeviceCanAccessPeer(
            &mut can,
            dev.context().cu_device(),
            peer.context().cu_device(),
        )
    };
    r.result().map_err(Error::cuda("cuDeviceCanAccessPeer"))?;
    map.insert(key, can != 0);
    Ok(can != 0)
}

/// Enables `from`'s context to access `to`'s memory, once per ordered pair of live
/// devices (a pair enabled elsewhere in the process counts as done).
pub(crate) fn enable_peer_access(from: &Device, to: &Device) -> Result<()> {
    let enabled = from.extension::<Enabled>();
    let mut done = enabled.0.lock().unwrap_or_else(|p| p.into_inner());
    done.retain(|w| w.strong_count() > 0);
    if done
        .iter()
        .any(|w| std::ptr::eq(w.as_ptr(), Arc::as_ptr(&to.inner)))
    {
        return Ok(());
    }
    from.bind()?;
    // SAFETY: `from`'s context is current and `to`'s context is alive (held by `to`);
    // flags must be 0.
    let r = unsafe { sys::cuCtxEnablePeerAccess(to.context().cu_ctx(), 0) };
    match r {
        sys::CUresult::CUDA_SUCCESS | sys::CUresult::CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED => {}
        e => {
            return Err(Error::cuda("cuCtxEnablePeerAccess")(
                cudarc::driver::DriverError(e),
            ))
        }
    }
    // cuarray's memory comes from the stream-ordered allocator, whose pools ignore the
    // context-level setting above: `to`'s pool must also grant `from` access, or the
    // driver stages peer copies through the host.
    let mut pool: sys::CUmemoryPool = std::ptr::null_mut();
    // SAFETY: an out parameter and a device handle the driver gave `to`'s context.
    unsafe { sys::cuDeviceGetMemPool(&mut pool, to.context().cu_device()) }
        .result()
        .map_err(Error::cuda("cuDeviceGetMemPool"))?;
    let desc = sys::CUmemAccessDesc {
        location: sys::CUmemLocation {
            type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE,
            id: from.ordinal() as std::ffi::c_int,
        },
        flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
    };
    // SAFETY: `pool` is `to`'s current pool; one descriptor, for another device.
    unsafe { sys::cuMemPoolSetAccess(pool, &desc, 1) }
        .result()
        .map_err(Error::cuda("cuMemPoolSetAccess"))?;
    done.push(Arc::downgrade(&to.inner));
    Ok(())
}

/// Queues a copy of `bytes` bytes from `src_ptr` on `src`'s device to `dst_ptr` on
/// `dst`'s device, ordered as the module docs say (`cuMemcpyPeerAsync`). Works for any
/// two contexts, the same one included; with peer access enabled it is a direct copy,
/// otherwise the driver stages it.
///
/// # Safety
/// `src_ptr` must hold `bytes` readable bytes of memory of `src`'s device, kept alive by
/// the caller until the work queued on `src`'s stream so far is done (a buffer dropped
/// after this call is, when it belongs to that stream); `dst_ptr` must hold `bytes`
/// writable bytes of `dst`'s device, allocated on `dst`'s stream.
pub(crate) unsafe fn copy_peer(
    dst: &Device,
    dst_ptr: CUdeviceptr,
    src: &Device,
    src_ptr: CUdeviceptr,
    bytes: usize,
) -> Result<()> {
    if bytes == 0 {
        return Ok(());
    }
    let same_stream = dst == src && dst.stream_id() == src.stream_id();
    if !same_stream {
        let free = dst
            .cuda_stream()
            .record_event(None)
            .map_err(Error::cuda("recording an event"))?;
        src.cuda_stream()
            .wait(&free)
            .map_err(Error::cuda("stream wait"))?;
    }
    src.bind()?;
    // SAFETY: the caller guarantees both ranges; the stream belongs to `src`'s context,
    // and the two events above and below order the destination's use (module docs).
    unsafe {
        cudarc::driver::result::memcpy_peer_async(
            dst.context().cu_ctx(),
            dst_ptr,
            src.context().cu_ctx(),
            src_ptr,
            bytes,
            src.cu_stream(),
        )
    }
    .map_err(Error::cuda("cuMemcpyPeerAsync"))?;
    if !same_stream {
        let copied = src
            .cuda_stream()
            .record_event(None)
            .map_err(Error::cuda("recording an event"))?;
        dst.cuda_stream()
            .wait(&copied)
            .map_err(Error::cuda("stream wait"))?;
    }
    Ok(())
}
