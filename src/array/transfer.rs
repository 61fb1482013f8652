//! Host <-> device transfers: the only code in the crate that moves data between them.

use super::DeviceArray;
use crate::element::Element;
use crate::{Device, Error, Result};
use cudarc::driver::sys;

impl<T: Element> DeviceArray<T> {
    /// Copies `data` (row-major) to a new array of `shape` on `device`.
    ///
    /// # Errors
    /// [`Error::HostLength`] when `data.len()` is not the product of `shape`;
    /// [`Error::OutOfMemory`] when the device is full.
    ///
    /// # Transfers
    /// One host-to-device copy. It returns once `data` may be reused; the copy itself is
    /// ordered on the device's stream before any later operation.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_host(&dev, &[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3])?;
    /// assert_eq!(a.shape(), &[2, 3]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn from_host(device: &Device, data: &[T], shape: &[usize]) -> Result<Self> {
        let n: usize = shape.iter().product();
        if data.len() != n {
            return Err(Error::HostLength {
                op: "from_host",
                expected: n,
                got: data.len(),
            });
        }
        let out = Self::alloc_uninit(device, shape)?;
        if n > 0 {
            device.counters().h2d(std::mem::size_of_val(data));
            device.bind()?;
            // SAFETY: `out` owns at least size_of_val(data) bytes; the copy is ordered on
            // the device stream before any use of `out`. For pageable memory the driver
            // stages `data` before returning, so `data` may be reused afterwards.
            unsafe {
                cudarc::driver::result::memcpy_htod_async(out.first_ptr(), data, device.cu_stream())
            }
            .map_err(Error::cuda("from_host"))?;
        }
        Ok(out)
    }

    /// Copies a 1-D slice to the device.
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
    /// # Transfers and synchronization
    /// One device-to-host copy (preceded by a device-side gather when the array is not
    /// contiguous); waits for the device's stream to finish.
    pub fn to_host(&self) -> Result<Vec<T>> {
        let n = self.size();
        let mut v: Vec<T> = Vec::with_capacity(n);
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
        let n = self.size();
        if n == 0 {
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
        device.counters().d2h(n * std::mem::size_of::<T>());
        device.bind()?;
        // SAFETY: `src` is contiguous with `n` elements from `first_ptr`; `dst` is valid
        // for `n` elements (caller). The stream synchronize below completes the copy
        // before `dst` is used or `src` can be freed.
        unsafe {
            sys::cuMemcpyDtoHAsync_v2(
                dst as *mut std::ffi::c_void,
                src.first_ptr(),
                n * std::mem::size_of::<T>(),
                device.cu_stream(),
            )
        }
        .result()
        .map_err(Error::cuda("to_host"))?;
        device.synchronize()
    }
}
