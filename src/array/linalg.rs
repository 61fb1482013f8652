//! Matrix products through cuBLAS.

use super::DeviceArray;
use crate::blas::GemmElement;
use crate::ops::matmul::{batch_loop, mat_operand, plan_gemm, run_small, small_gemm_limit};
use crate::Result;

impl<T: GemmElement> DeviceArray<T> {
    /// NumPy's `matmul`: 1-D x 1-D (inner product, 0-d result), 1-D x 2-D, 2-D x 1-D,
    /// 2-D x 2-D and N-D batched with broadcast batch dimensions, through cuBLAS.
    ///
    /// `f32` and `f64` use cuBLAS's single- and double-precision kernels (TF32 for `f32`
    /// only after [`Device::set_tf32`](crate::Device::set_tf32)); `f16` and `bf16` use
    /// tensor cores and accumulate in `f32`. Matrix-vector products of `f32` and `f64` use
    /// cuBLAS's gemv.
    ///
    /// Small products (up to 64 x 64 x 64 multiply-adds in all) run as one kernel of
    /// cuarray's instead, at any strides: there a cuBLAS call costs more host time than
    /// the arithmetic. It accumulates in `f32` (`f64` for `f64`) in order along the inner
    /// dimension, and ignores TF32.
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
        let (m, n, k) = (p.m, p.n, p.k);
        let nb = p.batch.len();
        if k == 0 {
            return DeviceArray::zeros(device, &p.out_shape);
        }
        let out = DeviceArray::<T>::alloc_uninit(device, &p.out_shape)?;
        if out.size() == 0 {
            return Ok(out);
        }
        let size = std::mem::size_of::<T>() as isize;
        let base = |arr: &DeviceArray<T>, l: &crate::shape::Layout| {
            arr.first_ptr() as isize + (l.offset() as isize - arr.layout().offset() as isize) * size
        };
        let products: usize = p.batch.iter().product();
        if products.saturating_mul(m * n).saturating_mul(k) <= small_gemm_limit() {
            let bl = batch_loop(&p);
            if bl.outer.is_empty() {
                let ptrs = (
                    base(self, &p.a) as u64,
                    base(rhs, &p.b) as u64,
                    out.first_ptr(),
                );
                run_small(device, T::DTYPE, &p, &bl, ptrs)?;
                return Ok(out);
            }
        }
        // Operands cuBLAS cannot read in place are made contiguous (an explicit device
        // copy), then re-planned.
        let view = |l: &crate::shape::Layout, r, c| {
            mat_operand(r, c, l.strides()[nb], l.strides()[nb + 1])
        };
        let (a_arr, b_arr);
        let (mut pa, mut pb) = (p.a.clone(), p.b.clone());
        let (mut a, mut b) = (self.clone(), rhs.clone());
        if view(&pa, m, k).is_none() {
            a_arr = self.copy()?;
            a = a_arr;
            pa = plan_gemm(a.layout(), rhs.layout())?.a;
        }
        if view(&pb, k, n).is_none() {
            b_arr = rhs.copy()?;
            b = b_arr;
            pb = plan_gemm(self.layout(), b.layout())?.b;
        }
        let (oa, ob) = match (view(&pa, m, k), view(&pb, k, n)) {
            (Some(x), Some(y)) => (x, y),
            _ => unreachable!("contiguous operands are always readable in place"),
        };
        let bl = batch_loop(&crate::ops::matmul::GemmPlan {
            a: pa.clone(),
            b: pb.clone(),
            ..p.clone()
        });
        let (a0, b0, c0) = (base(&a, &pa), base(&b, &pb), out.first_ptr() as isize);
        let tf32 = device.tf32();
        let outer_total: usize = bl.outer.iter().map(|o| o.0).product();
        device.with_blas(|blas| {
            for flat in 0..outer_total {
                let (mut da, mut db, mut dc) = (0isize, 0isize, 0isize);
                let mut rem = flat;
                for &(ext, sa, sb, sc) in bl.outer.iter().rev() {
                    let i = (rem % ext) as isize;
                    rem /= ext;
                    da += i * sa;
                    db += i * sb;
                    dc += i * sc;
                }
                // Cᵀ (n x m, ld n) = op(B) op(A) in cuBLAS's column-major view.
                // SAFETY: the plan checked every dimension, leading dimension and batch
                // stride against the operands' layouts, which stay inside their buffers
                // (Layout invariants); `out` holds batch * m * n elements.
                unsafe {
                    blas.gemm::<T>(
                        tf32,
                        (ob.trans, oa.trans),
                        (n, m, k),
                        ((b0 + db * size) as u64, ob.ld, bl.stride.1),
                        ((a0 + da * size) as u64, oa.ld, bl.stride.0),
                        ((c0 + dc * size) as u64, n, bl.stride.2),
                        bl.count,
                    )?;
                }
            }
            Ok(())
        })?;
        Ok(out)
    }

    /// NumPy's `dot`: the inner product of two 1-D arrays as a 0-d array; otherwise the
    /// same as [`matmul`](DeviceArray::matmul).
    pub fn dot(&self, rhs: &DeviceArray<T>) -> Result<DeviceArray<T>> {
        self.matmul(rhs)
    }
}
