//! Host <-> device transfers: the only code in the crate that moves data between them.

use super::DeviceArray;
use crate::device::pinned::{par_copy, piece_bytes, Staging, STAGE_MIN};
use crate::element::Element;
use crate::shape::IntoShape;
use crate::{Device, Error, PinnedBuffer, Result};
use cudarc::driver::sys::{self, CUdeviceptr};
use std::cell::Cell;
use std::ffi::c_void;

impl<T: Element> DeviceArray<T> {
    /// Copies `data` (row-major) to a new array of `shape` on `device`.
    ///
    /// # Errors
    /// [`Error::HostLength`] when `data.len()` is not the product of `shape`;
    /// [`Error::TooLarge`] when that product overflows; [`Error::OutOfMemory`] when the
    /// device is full.
    ///
    /// # Transfers
    /// One host-to-device copy. It returns once `data` may be reused; the copy itself is
    /// ordered on the handle's stream before any later operation. Large copies (4 MiB and
    /// up) are pipelined through two page-locked staging buffers of the device: the host
    /// fills one while the copy engine empties the other. [`from_pinned`] skips the
    /// staging and returns before the copy is done.
    ///
    /// [`from_pinned`]: DeviceArray::from_pinned
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_host(&dev, &[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3])?;
    /// assert_eq!(a.shape(), &[2, 3]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn from_host(device: &Device, data: &[T], shape: impl IntoShape) -> Result<Self> {
        let _range = crate::profile::range("from_host");
        let _queuing = device.check_capture("from_host")?;
        let shape = &crate::shape::new_shape("from_host", shape)?;
        let n = crate::shape::checked_size("from_host", shape)?;
        if data.len() != n {
            return Err(Error::HostLength {
                op: "from_host",
                expected: n,
                got: data.len(),
            });
        }
        let out = Self::alloc_for("from_host", device, shape)?;
        let bytes = std::mem::size_of_val(data);
        if n > 0 {
            device.counters().h2d(bytes);
            device.bind()?;
            // SAFETY: `out` owns at least `bytes` bytes, as many as `data` has.
            let staged = bytes >= STAGE_MIN
                && unsafe { stage_in(device, out.first_ptr(), bytemuck::cast_slice(data)) }
                    .transpose()?
                    .is_some();
            if !staged {
                // SAFETY: `out` owns at least `bytes` bytes; the copy is ordered on the
                // stream before any use of `out`. For pageable memory the driver stages
                // `data` before returning, so `data` may be reused afterwards.
                unsafe {
                    cudarc::driver::result::memcpy_htod_async(
                        out.first_ptr(),
                        data,
                        device.cu_stream(),
                    )
                }
                .map_err(Error::cuda("from_host"))?;
            }
        }
        Ok(out)
    }

    /// Copies a page-locked buffer to a new array of `shape`, asynchronously: the call
    /// returns once the copy is queued on the handle's stream, and the copy runs at the
    /// link's full speed while the host goes on. Writing to `data` afterwards waits for
    /// the copy (see [`PinnedBuffer`]).
    ///
    /// # Errors
    /// [`Error::HostLength`] when `data.len()` is not the product of `shape`.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray, PinnedBuffer};
    /// let dev = Device::new(0)?;
    /// let host = PinnedBuffer::from_slice(&dev, &[1.0f32, 2.0, 3.0])?;
    /// let a = DeviceArray::from_pinned(&dev, &host, &[3])?;
    /// assert_eq!(a.to_host()?, vec![1.0, 2.0, 3.0]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn from_pinned(
        device: &Device,
        data: &PinnedBuffer<T>,
        shape: impl IntoShape,
    ) -> Result<Self> {
        let _range = crate::profile::range("from_pinned");
        let _queuing = device.check_capture("from_pinned")?;
        let shape = &crate::shape::new_shape("from_pinned", shape)?;
        let n = crate::shape::checked_size("from_pinned", shape)?;
        if data.len() != n {
            return Err(Error::HostLength {
                op: "from_pinned",
                expected: n,
                got: data.len(),
            });
        }
        let out = Self::alloc_for("from_pinned", device, shape)?;
        if n > 0 {
            let bytes = n * std::mem::size_of::<T>();
            device.counters().h2d(bytes);
            device.bind()?;
            let stream = device.cuda_stream();
            let src = data.begin_transfer(stream)?;
            // SAFETY: `src` holds `n` elements of page-locked memory that stays allocated
            // until the copy is done (the buffer waits for `end_transfer`'s event before
            // it is freed or written); `out` owns `bytes` bytes.
            unsafe {
                sys::cuMemcpyHtoDAsync_v2(
                    out.first_ptr(),
                    src as *const c_void,
                    bytes,
                    stream.cu_stream(),
                )
            }
            .result()
            .map_err(Error::cuda("from_pinned"))?;
            data.end_transfer(stream)?;
        }
        Ok(out)
    }

    /// Copies the array, in logical row-major order, into a page-locked buffer,
    /// asynchronously: the call returns once the copy is queued on the array's stream,
    /// without waiting for the GPU. Reading `dst` afterwards waits for the copy (see
    /// [`PinnedBuffer`]).
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray, PinnedBuffer};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_slice(&dev, &[1.0f32, 2.0, 3.0])?;
    /// let mut host = PinnedBuffer::<f32>::new(&dev, 3)?;
    /// a.to_pinned(&mut host)?; // queued; returns at once
    /// assert_eq!(&host[..], &[1.0, 2.0, 3.0]); // reading waits for the copy
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::HostLength`] when `dst.len() != self.size()`.
    pub fn to_pinned(&self, dst: &mut PinnedBuffer<T>) -> Result<()> {
        let _range = crate::profile::range("to_pinned");
        let _queuing = self.device().check_capture("to_pinned")?;
        let n = self.size();
        if dst.len() != n {
            return Err(Error::HostLength {
                op: "to_pinned",
                expected: n,
                got: dst.len(),
            });
        }
        self.with_dense_source(|device, src, bytes| {
            let stream = device.cuda_stream();
            let host = dst.begin_transfer(stream)?;
            // SAFETY: `host` holds `n` elements of page-locked memory, borrowed mutably
            // here and afterwards only reachable after the copy's event (`end_transfer`);
            // `src` has `bytes` bytes, reused only after this copy (stream order).
            unsafe {
                sys::cuMemcpyDtoHAsync_v2(host as *mut c_void, src, bytes, stream.cu_stream())
            }
            .result()
            .map_err(Error::cuda("to_pinned"))?;
            dst.end_transfer(stream)
        })
    }

    /// Copies a 1-D slice to the device.
    ///
    /// # Errors
    /// As [`from_host`](Self::from_host): [`Error::TooLarge`] when the byte size passes
    /// `isize::MAX`, [`Error::OutOfMemory`] when the device is full.
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let a = cuarray::DeviceArray::from_slice(&dev, &[1i32, 2, 3])?;
    /// assert_eq!(a.to_host()?, vec![1, 2, 3]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn from_slice(device: &Device, data: &[T]) -> Result<Self> {
        Self::from_host(device, data, &[data.len()])
    }

    /// Copies the array to a new `Vec` in logical row-major order (views included).
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_host(&dev, &[1, 2, 3, 4], &[2, 2])?;
    /// assert_eq!(a.to_host()?, vec![1, 2, 3, 4]);
    /// assert_eq!(a.t().to_host()?, vec![1, 3, 2, 4]); // logical order of the view
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Transfers and synchronization
    /// One device-to-host copy (preceded by a device-side gather when the array is not
    /// contiguous); waits for the array's stream to finish. Large copies are pipelined
    /// through page-locked staging buffers, the host copying one piece out while the
    /// next one crosses the link; [`to_pinned`](DeviceArray::to_pinned) skips the staging
    /// and does not wait.
    ///
    /// # Performance
    /// A new `Vec`'s pages are fresh: the operating system zeroes each one as the copy
    /// first writes it, and on large arrays that costs more than the copy itself. To copy
    /// the same size again and again, keep one buffer and use
    /// [`to_host_into`](DeviceArray::to_host_into): 1 GiB runs at about 47 GB/s into a
    /// buffer written before, against about 21 GB/s into a new `Vec`, on an H200 machine.
    ///
    /// # Errors
    /// [`Error::TooLarge`] when the array's byte size passes `isize::MAX` (a broadcast
    /// view can) and [`Error::HostOutOfMemory`] when the host cannot allocate it, both
    /// before anything is allocated on the device; [`Error::IndexOutOfRange`] when a kernel
    /// queued earlier on the device met an index out of range (`take`, `index_add`, ...),
    /// reported here because this call waits for the GPU.
    pub fn to_host(&self) -> Result<Vec<T>> {
        let n = self.size();
        let bytes = crate::shape::byte_size::<T>("to_host", self.shape())?;
        let mut v: Vec<T> = Vec::new();
        v.try_reserve_exact(n).map_err(|e| Error::HostOutOfMemory {
            op: "to_host",
            requested: bytes,
            reason: e.to_string(),
        })?;
        if bytes >= STAGE_MIN {
            advise_huge_pages(v.as_mut_ptr() as *mut u8, bytes);
        }
        // SAFETY: `v` has capacity `n`; copy_out writes all `n` elements before we set the
        // length, and returns an error (leaving the length 0) otherwise.
        unsafe {
            self.copy_out(v.as_mut_ptr())?;
            v.set_len(n);
        }
        Ok(v)
    }

    /// Copies the array into `dst` in logical row-major order.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_slice(&dev, &[1.0f32, 2.0, 3.0])?;
    /// let mut buf = vec![0.0f32; 3];
    /// a.to_host_into(&mut buf)?;
    /// assert_eq!(buf, [1.0, 2.0, 3.0]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::HostLength`] when `dst.len() != self.size()`.
    ///
    /// # Transfers and synchronization
    /// As [`to_host`](DeviceArray::to_host).
    pub fn to_host_into(&self, dst: &mut [T]) -> Result<()> {
        if dst.len() != self.size() {
            return Err(Error::HostLength {
                op: "to_host_into",
                expected: self.size(),
                got: dst.len(),
            });
        }
        // SAFETY: `dst` holds exactly `size()` elements.
        unsafe { self.copy_out(dst.as_mut_ptr()) }
    }

    /// The single element of an array of size 1 (any rank), e.g. a reduction's result.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_slice(&dev, &[1.0f32, 2.0, 3.0])?;
    /// let total: f32 = a.sum()?.to_scalar()?; // NumPy's float(a.sum())
    /// assert_eq!(total, 6.0);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the array does not have exactly one element.
    ///
    /// # Transfers and synchronization
    /// As [`to_host`](DeviceArray::to_host).
    pub fn to_scalar(&self) -> Result<T> {
        if self.size() != 1 {
            return Err(Error::invalid(
                "to_scalar",
                format!(
                    "the array has {} elements (shape {:?}), not 1",
                    self.size(),
                    self.shape()
                ),
            ));
        }
        let mut v = [T::ZERO];
        self.to_host_into(&mut v)?;
        Ok(v[0])
    }

    /// Copies all `size()` elements, in logical order, to `dst` and waits for the copy.
    ///
    /// # Safety
    /// `dst` must be valid for writes of `size()` elements of `T`.
    unsafe fn copy_out(&self, dst: *mut T) -> Result<()> {
        let _range = crate::profile::range("to_host");
        let _queuing = self.device().check_capture("to_host")?;
        self.with_dense_source(|device, src, bytes| {
            if bytes >= STAGE_MIN {
                // SAFETY: `src` has `bytes` bytes; `dst` is valid for them (caller).
                if let Some(done) = unsafe { stage_out(device, dst as *mut u8, src, bytes) } {
                    device.counters().sync();
                    return done.and_then(|()| device.report_device_errors());
                }
            }
            // SAFETY: `src` and `dst` (caller) both hold `bytes` bytes. The stream
            // synchronize below completes the copy before `dst` is used or `src` freed.
            unsafe {
                sys::cuMemcpyDtoHAsync_v2(dst as *mut c_void, src, bytes, device.cu_stream())
            }
            .result()
            .map_err(Error::cuda("to_host"))?;
            device.synchronize()
        })
    }

    /// The common part of every device-to-host copy: does nothing for an empty array;
    /// otherwise gathers a non-contiguous array into a dense temporary, counts the
    /// transfer, makes the device current and calls `f(device, first byte, bytes)` with
    /// a source that stays alive through `f`.
    fn with_dense_source(
        &self,
        f: impl FnOnce(&Device, CUdeviceptr, usize) -> Result<()>,
    ) -> Result<()> {
        let bytes = crate::shape::byte_size::<T>("to_host", self.shape())?;
        if bytes == 0 {
            return Ok(());
        }
        let dense;
        let src = if self.is_contiguous() {
            self
        } else {
            dense = self.contiguous()?;
            &dense
        };
        let device = self.device();
        device.counters().d2h(bytes);
        device.bind()?;
        f(device, src.first_ptr(), bytes)
    }
}

/// Asks Linux for transparent huge pages for a fresh allocation about to be written in
/// full: filling a new 1 GiB `Vec` then takes 512 page faults instead of 262,144, the
/// main cost of a pageable copy into fresh memory. Advice only; elsewhere a no-op.
fn advise_huge_pages(ptr: *mut u8, bytes: usize) {
    #[cfg(target_os = "linux")]
    {
        const HUGE: usize = 2 << 20;
        let start = (ptr as usize).next_multiple_of(HUGE);
        let end = (ptr as usize + bytes) / HUGE * HUGE;
        if end > start {
            // SAFETY: the range lies inside the caller's allocation; MADV_HUGEPAGE changes
            // neither contents nor permissions, and a refusal is harmless.
            unsafe { libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE) };
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (ptr, bytes);
}

thread_local! {
    /// This thread holds a device's staging buffers (it is inside a staged transfer).
    static STAGING_HELD: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` with the device's staging buffers (created on first use), or returns `None`
/// (the caller then copies without staging) when waiting for them could deadlock:
/// - this thread already holds staging buffers: while the host copy's pool threads work,
///   the waiting thread may run other rayon work of the program (work stealing), and a
///   transfer started there must not wait for buffers its own thread holds;
/// - this thread is one of rayon's and another thread holds the buffers: that holder's
///   host copy runs on rayon's pool, so a pool thread must never block waiting for it (with
///   every pool thread blocked so, the holder's pieces would never run).
fn with_staging<R>(
    device: &Device,
    f: impl FnOnce(&mut Staging) -> Result<R>,
) -> Option<Result<R>> {
    if STAGING_HELD.get() {
        return None;
    }
    let mut guard = if rayon::current_thread_index().is_some() {
        match device.staging().try_lock() {
            Ok(g) => g,
            Err(std::sync::TryLockError::Poisoned(p)) => p.into_inner(),
            Err(std::sync::TryLockError::WouldBlock) => return None,
        }
    } else {
        device.staging().lock().unwrap_or_else(|p| p.into_inner())
    };
    struct Held;
    impl Drop for Held {
        fn drop(&mut self) {
            STAGING_HELD.set(false);
        }
    }
    STAGING_HELD.set(true);
    let _held = Held;
    if guard.is_none() {
        match Staging::new(device) {
            Ok(s) => *guard = Some(s),
            Err(e) => return Some(Err(e)),
        }
    }
    guard.as_mut().map(f)
}

/// Host to device through the staging slots: the host copies piece `i` into a slot while
/// the copy engine moves piece `i - 1` out of the other. Returns once every piece is in a
/// slot (the source may then be reused); the slots' events order their next use. `None`:
/// the staging buffers are not available to this thread (see `with_staging`).
///
/// # Safety
/// `dst` must be device memory of at least `src.len()` bytes.
unsafe fn stage_in(device: &Device, dst: CUdeviceptr, src: &[u8]) -> Option<Result<()>> {
    let stream = device.cuda_stream();
    let bytes = src.len();
    with_staging(device, |st| {
        let piece = piece_bytes(bytes);
        for (i, off) in (0..bytes).step_by(piece).enumerate() {
            let len = piece.min(bytes - off);
            let slot = &mut st.slots[i % 2];
            slot.wait()?;
            let host = slot.begin_transfer(stream)?;
            let piece = &src[off..off + len];
            // SAFETY: the slot holds STAGE_BYTES >= piece >= len bytes and no copy uses it
            // (waited above); `piece` has `len` bytes.
            unsafe { par_copy(host, piece.as_ptr(), len, false) };
            // SAFETY: `host` is page-locked and stays untouched until the event recorded
            // by `end_transfer`; `dst + off` has `len` bytes (caller).
            unsafe {
                sys::cuMemcpyHtoDAsync_v2(
                    dst + off as u64,
                    host as *const c_void,
                    len,
                    stream.cu_stream(),
                )
            }
            .result()
            .map_err(Error::cuda("from_host"))?;
            slot.end_transfer(stream)?;
        }
        Ok(())
    })
}

/// Device to host through the staging slots: piece `i` crosses the link into one slot
/// while the host copies piece `i - 1` out of the other. Returns when all of it is in
/// `dst`. `None`: the staging buffers are not available to this thread.
///
/// # Safety
/// `dst` must be valid for writes of `bytes` bytes and `src` device memory of as many.
unsafe fn stage_out(
    device: &Device,
    dst: *mut u8,
    src: CUdeviceptr,
    bytes: usize,
) -> Option<Result<()>> {
    let stream = device.cuda_stream();
    let piece = piece_bytes(bytes);
    let pieces = bytes.div_ceil(piece);
    with_staging(device, |st| {
        for i in 0..=pieces {
            if i < pieces {
                let off = i * piece;
                let len = piece.min(bytes - off);
                let slot = &mut st.slots[i % 2];
                let host = slot.begin_transfer(stream)?;
                // SAFETY: the slot has STAGE_BYTES >= piece >= len bytes, and its earlier contents
                // were already copied out (the previous iteration that used it waited
                // for them); `src + off` has `len` bytes.
                unsafe {
                    sys::cuMemcpyDtoHAsync_v2(
                        host as *mut c_void,
                        src + off as u64,
                        len,
                        stream.cu_stream(),
                    )
                }
                .result()
                .map_err(Error::cuda("to_host"))?;
                slot.end_transfer(stream)?;
            }
            if i > 0 {
                let off = (i - 1) * piece;
                let len = piece.min(bytes - off);
                let slot = &st.slots[(i - 1) % 2];
                // Dereferencing the slot waits for the piece's copy.
                let staged: &[u8] = slot;
                // SAFETY: `staged` has STAGE_BYTES >= len bytes; `dst + off` has `len`
                // writable bytes (caller) and does not overlap page-locked memory we own.
                unsafe { par_copy(dst.add(off), staged.as_ptr(), len, true) };
            }
        }
        Ok(())
    })
}
