//! Matrix products through cuBLAS.

use super::DeviceArray;
use crate::libs::blas::GemmElement;
use crate::ops::matmul::{plan_gemm, run};
use crate::Result;

impl<T: GemmElement> DeviceArray<T> {
    /// NumPy's `matmul`: 1-D x 1-D (inner product, 0-d result), 1-D x 2-D, 2-D x 1-D,
    /// 2-D x 2-D and N-D batched with broadcast batch dimensions, through cuBLAS.
    ///
    /// `f32` and `f64` use cuBLAS's single- and double-precision kernels (TF32 for `f32`
    /// only after [`Device::set_tf32`](crate::Device::set_tf32)); `f16` and `bf16` use
    /// tensor cores and accumulate in `f32`; [`Complex32`](crate::Complex32) and
    /// [`Complex64`](crate::Complex64) use cgemm and zgemm (no conjugation, as NumPy's
    /// `matmul`; TF32 for `Complex32` after `set_tf32` too). Matrix-vector products of
    /// `f32`, `f64` and the complex types use cuBLAS's gemv.
    ///
    /// Small products (up to 64 x 64 x 64 multiply-adds in all) run as one kernel of
    /// cuarray's instead, at any strides: there a cuBLAS call costs more host time than
    /// the arithmetic. It accumulates in `f32` (`f64` for `f64`, the complex type itself
    /// for complex types) in order along the inner dimension, and ignores TF32.
    ///
    /// # Copies
    /// Row-major (C order) and column-major (F order, e.g. a transpose) operands and
    /// broadcast batches are read in place. An operand that is neither (steps on both
    /// axes, negative strides) is first copied to a contiguous array on the device.
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`](crate::Error::ShapeMismatch) naming both shapes when the
    /// inner dimensions differ or the batch dimensions do not broadcast.
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let a = cuarray::DeviceArray::<f32>::arange(&dev, 0.0, 6.0, 1.0)?.reshape(&[2, 3])?;
    /// let c = a.matmul(&a.t())?;          // (2,3) @ (3,2), no copy of the transpose
    /// assert_eq!(c.to_host()?, vec![5.0, 14.0, 14.0, 50.0]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn matmul(&self, rhs: &DeviceArray<T>) -> Result<DeviceArray<T>> {
        let _range = crate::profile::range("matmul");
        rhs.used_by("matmul", self.device())?;
        let p = plan_gemm(self.layout(), rhs.layout())?;
        let device = self.device();
        if p.k == 0 {
            return DeviceArray::zeros(device, &p.out_shape);
        }
        let out = DeviceArray::<T>::alloc_uninit(device, &p.out_shape)?;
        if out.size() > 0 {
            run::<T>(
                device,
                &p,
                &self.operand()?,
                &rhs.operand()?,
                &out.operand()?,
            )?;
        }
        Ok(out)
    }

    /// NumPy's `dot`: the inner product of two 1-D arrays as a 0-d array; otherwise the
    /// same as [`matmul`](DeviceArray::matmul).
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_slice(&dev, &[1.0f32, 2.0, 3.0])?;
    /// let b = DeviceArray::from_slice(&dev, &[4.0f32, 5.0, 6.0])?;
    /// assert_eq!(a.dot(&b)?.to_scalar()?, 32.0);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`matmul`](DeviceArray::matmul).
    pub fn dot(&self, rhs: &DeviceArray<T>) -> Result<DeviceArray<T>> {
        self.matmul(rhs)
    }
}
