//! What every NVIDIA library behind cuarray shares: the per-device handle pattern and the
//! workspaces a call takes from the memory pool. cuBLAS (`blas.rs`) lives here because
//! several features use it (matmul, linear algebra); each other library's driver lives in
//! the folder of the feature it serves (`linalg/cusolver/`, `fft/cufft.rs`,
//! `nccl/driver.rs`).
//!
//! A library handle (cuBLAS's, cuSOLVER's, later cuSPARSE's) is one type implementing
//! [`LibraryHandle`]: how to create it and how to point it at a stream. [`with_handle`]
//! keeps one per device (a device extension, created on first use), checks the graph
//! capture state, binds it to the caller's stream (a new stream first waits for the old
//! one, so the library's internal buffers are never in use on two streams at once) and
//! runs the call under the handle's lock. Every library is found at run time by the same
//! search as NVRTC (`device::probe::require`), which names the library and every place
//! looked when it is missing.

pub(crate) mod blas;

use crate::device::DeviceBuffer;
use crate::{Device, Error, Result};
use cudarc::driver::CudaStream;
use std::ffi::c_void;
use std::sync::{Arc, Mutex};

/// A per-device handle of an NVIDIA library, bound to one stream at a time.
pub(crate) trait LibraryHandle: Send + Sized + 'static {
    /// The operation named in errors (e.g. `"matmul (cuBLAS)"`).
    const OP: &'static str;
    /// Whether the library's calls may be captured into a CUDA graph (on the capturing
    /// stream); when not, any capture under way on the device is an error.
    const CAPTURABLE: bool;

    /// A new handle on `device` (its context current), bound to `device`'s stream.
    fn create(device: &Device) -> Result<Self>;

    /// The stream the handle is bound to.
    fn stream(&self) -> &Arc<CudaStream>;

    /// Points the handle at `stream` (which already waits for the old one) and records it.
    fn set_stream(&mut self, stream: &Arc<CudaStream>) -> Result<()>;

    /// Per-call settings applied after binding (none by default).
    fn prepare(&mut self) -> Result<()> {
        Ok(())
    }
}

/// The device's handle of one library, created on first use (a device extension).
struct Slot<H>(Mutex<Option<H>>);

impl<H> Default for Slot<H> {
    fn default() -> Self {
        Slot(Mutex::new(None))
    }
}

/// Runs `f` with `device`'s handle of library `H` (created on first use) bound to the
/// device's stream, holding the handle's lock.
///
/// # Errors
/// [`Error::LibraryNotFound`] when the library is missing, [`Error::Capture`] when a
/// capture under way on the device does not allow the call (or would create the handle),
/// or the library's error.
pub(crate) fn with_handle<H: LibraryHandle, R>(
    device: &Device,
    f: impl FnOnce(&mut H) -> Result<R>,
) -> Result<R> {
    let _queuing = if H::CAPTURABLE {
        device.check_capture_stream(H::OP)?
    } else {
        device.check_capture(H::OP)?
    };
    let slot = device.extension::<Slot<H>>();
    let mut guard = slot.0.lock().unwrap_or_else(|p| p.into_inner());
    let handle = match &mut *guard {
        Some(h) => h,
        // Creating a handle allocates device memory, which a capture does not allow.
        None if device.capturing() => {
            return Err(Error::Capture {
                op: H::OP,
                msg: "the library's first call on this device cannot be captured (it creates \
                      the library's handle): make one such call before the capture"
                    .into(),
            })
        }
        empty => empty.insert(H::create(device)?),
    };
    device.bind()?;
    let stream = device.cuda_stream();
    if !Arc::ptr_eq(stream, handle.stream()) {
        stream
            .join(handle.stream())
            .map_err(Error::cuda("stream wait"))?;
        handle.set_stream(stream)?;
    }
    handle.prepare()?;
    f(handle)
}

/// The workspaces of one library call: device memory from the pool (given back, in
/// stream order, when dropped) and host memory.
pub(crate) struct Workspace {
    device: Option<DeviceBuffer>,
    device_bytes: usize,
    host: Vec<u8>,
}

impl Workspace {
    /// At least `device_bytes` of device memory and `host_bytes` of host memory.
    pub(crate) fn new(device: &Device, device_bytes: usize, host_bytes: usize) -> Result<Self> {
        let buf = if device_bytes > 0 {
            Some(DeviceBuffer::alloc(device, device_bytes)?)
        } else {
            None
        };
        Ok(Workspace {
            device: buf,
            device_bytes,
            host: vec![0u8; host_bytes],
        })
    }

    /// The device workspace's address (null when empty).
    pub(crate) fn device_ptr(&self) -> *mut c_void {
        self.device
            .as_ref()
            .map_or(std::ptr::null_mut(), |b| b.device_ptr() as *mut c_void)
    }

    /// The host workspace's address (null when empty).
    pub(crate) fn host_ptr(&mut self) -> *mut c_void {
        if self.host.is_empty() {
            std::ptr::null_mut()
        } else {
            self.host.as_mut_ptr() as *mut c_void
        }
    }

    /// The host workspace's size in bytes.
    pub(crate) fn host_bytes(&self) -> usize {
        self.host.len()
    }

    /// The device workspace's size in bytes.
    pub(crate) fn device_bytes(&self) -> usize {
        self.device_bytes
    }
}
