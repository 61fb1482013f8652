//! Creation functions. Every one fills the array on the device: no host buffer.

use super::DeviceArray;
use crate::element::{DType, Element, FloatElement, NumElement};
use crate::kernels::abi::Scalar;
use crate::ops::catalogue::{ARANGE_F_BODY, ARANGE_I_BODY, EYE_BODY, FILL_BODY, LINSPACE_BODY};
use crate::ops::elementwise;
use crate::shape::{new_shape, IntoShape};
use crate::{Device, Error, Result};

impl<T: Element> DeviceArray<T> {
    /// An array of `shape` filled with zeros (`false` for bool). `shape` is any
    /// [`IntoShape`]: `&[2, 3]`, `&[n, d]`, `other.shape()`, `(2, 3)`, `vec![2, 3]`, `5`.
    ///
    /// # Errors
    /// [`Error::TooLarge`] when the shape's element count or byte size passes
    /// `isize::MAX` (so do [`ones`](Self::ones), [`full`](Self::full) and
    /// [`eye`](Self::eye)); [`Error::OutOfMemory`] when the device is full.
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let z = cuarray::DeviceArray::<f32>::zeros(&dev, &[2, 3])?;
    /// assert_eq!(z.to_host()?, vec![0.0; 6]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn zeros(device: &Device, shape: impl IntoShape) -> Result<Self> {
        let out = Self::alloc_for("zeros", device, &new_shape("zeros", shape)?)?;
        let bytes = out.size() * std::mem::size_of::<T>();
        if bytes > 0 {
            let _queuing = device.check_capture_stream("zeros")?;
            device.bind()?;
            // SAFETY: `out` owns `bytes` bytes; all-zero bytes are a valid zero for every
            // Element type; the memset is ordered on the device stream.
            unsafe {
                cudarc::driver::result::memset_d8_async(
                    out.first_ptr(),
                    0,
                    bytes,
                    device.cu_stream(),
                )
            }
            .map_err(Error::cuda("zeros"))?;
        }
        Ok(out)
    }

    /// An array of `shape` filled with ones (`true` for bool).
    ///
    /// # Errors
    /// [`Error::TooLarge`] when the shape's element count or byte size passes `isize::MAX`;
    /// [`Error::OutOfMemory`] when the device is full.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::<f32>::ones(&dev, &[2, 3])?;
    /// assert_eq!(a.to_host()?, vec![1.0; 6]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn ones(device: &Device, shape: impl IntoShape) -> Result<Self> {
        let out = Self::alloc_for("ones", device, &new_shape("ones", shape)?)?;
        out.fill_with("ones", T::ONE)?;
        Ok(out)
    }

    /// An array of `shape` filled with `value`.
    ///
    /// # Errors
    /// [`Error::TooLarge`] when the shape's element count or byte size passes `isize::MAX`;
    /// [`Error::OutOfMemory`] when the device is full.
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let a = cuarray::DeviceArray::full(&dev, &[2, 2], 7u8)?;
    /// assert_eq!(a.to_host()?, vec![7; 4]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn full(device: &Device, shape: impl IntoShape, value: T) -> Result<Self> {
        let out = Self::alloc_for("full", device, &new_shape("full", shape)?)?;
        out.fill_with("full", value)?;
        Ok(out)
    }

    /// Writes `value` into every element of the new array `self`.
    pub(super) fn fill_with(&self, op: &'static str, value: T) -> Result<()> {
        elementwise::run(
            self.device(),
            op,
            FILL_BODY,
            &[self.operand()?],
            &[],
            &[Scalar::of(value)],
        )
    }

    /// The `n x n` identity matrix.
    ///
    /// # Errors
    /// [`Error::TooLarge`] when `n * n` elements pass `isize::MAX`; [`Error::OutOfMemory`]
    /// when the device is full.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::<f32>::eye(&dev, 2)?;
    /// assert_eq!(a.to_host()?, vec![1.0, 0.0, 0.0, 1.0]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn eye(device: &Device, n: usize) -> Result<Self> {
        let out = Self::alloc_for("eye", device, &[n, n])?;
        elementwise::run(
            device,
            "eye",
            EYE_BODY,
            &[out.operand()?],
            &[],
            &[Scalar::of(n.max(1) as i64)],
        )?;
        Ok(out)
    }
}

impl<T: NumElement> DeviceArray<T> {
    /// Values from `start` towards `stop` (excluded) by `step`, NumPy's half-open rule:
    /// `ceil((stop - start) / step)` elements, element `i` being `start + i * step`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `step` is zero or not finite; [`Error::TooLarge`]
    /// when the element count passes `isize::MAX`.
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let a = cuarray::DeviceArray::arange(&dev, 10i32, 0, -3)?;
    /// assert_eq!(a.to_host()?, vec![10, 7, 4, 1]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn arange(device: &Device, start: T, stop: T, step: T) -> Result<Self> {
        if T::DTYPE.is_float() {
            let (a, b, s) = (start.to_f64(), stop.to_f64(), step.to_f64());
            if s == 0.0 || !s.is_finite() || !a.is_finite() || !b.is_finite() {
                return Err(Error::invalid(
                    "arange",
                    format!("bad arguments start={a}, stop={b}, step={s}"),
                ));
            }
            // Saturates: a count past isize::MAX fails in the allocation.
            let n = ((b - a) / s).ceil().max(0.0) as usize;
            let out = Self::alloc_for("arange", device, &[n])?;
            elementwise::run(
                device,
                "arange_f",
                ARANGE_F_BODY,
                &[out.operand()?],
                &[],
                &[Scalar::of(a), Scalar::of(s)],
            )?;
            Ok(out)
        } else {
            let wide = |v: T| -> i128 {
                let w = v.to_i64_wrapping();
                if T::DTYPE == DType::U64 {
                    w as u64 as i128
                } else {
                    w as i128
                }
            };
            let (a, b, s) = (wide(start), wide(stop), wide(step));
            if s == 0 {
                return Err(Error::invalid(
                    "arange",
                    format!("step cannot be zero (start={a}, stop={b}, step=0)"),
                ));
            }
            let n = if (s > 0 && b > a) || (s < 0 && b < a) {
                ((b - a).abs() + s.abs() - 1) / s.abs()
            } else {
                0
            };
            let n = usize::try_from(n).unwrap_or(usize::MAX);
            let out = Self::alloc_for("arange", device, &[n])?;
            elementwise::run(
                device,
                "arange_i",
                ARANGE_I_BODY,
                &[out.operand()?],
                &[],
                &[Scalar::of(a as i64), Scalar::of(s as i64)],
            )?;
            Ok(out)
        }
    }
}

impl<T: FloatElement> DeviceArray<T> {
    /// `num` evenly spaced values from `start` to `stop`, both included (NumPy's
    /// `linspace` with `endpoint=True`); the last value is exactly `stop`.
    ///
    /// # Errors
    /// [`Error::TooLarge`] when `num` elements pass `isize::MAX`; [`Error::OutOfMemory`]
    /// when the device is full.
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let a = cuarray::DeviceArray::linspace(&dev, 0.0f64, 1.0, 5)?;
    /// assert_eq!(a.to_host()?, vec![0.0, 0.25, 0.5, 0.75, 1.0]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn linspace(device: &Device, start: T, stop: T, num: usize) -> Result<Self> {
        let (a, b) = (start.to_f64(), stop.to_f64());
        let step = if num > 1 {
            (b - a) / (num - 1) as f64
        } else {
            0.0
        };
        let last = if num > 1 { (num - 1) as i64 } else { -1 };
        let out = Self::alloc_for("linspace", device, &[num])?;
        elementwise::run(
            device,
            "linspace",
            LINSPACE_BODY,
            &[out.operand()?],
            &[],
            &[
                Scalar::of(a),
                Scalar::of(b),
                Scalar::of(last),
                Scalar::of(step),
            ],
        )?;
        Ok(out)
    }
}
