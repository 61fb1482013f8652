//! One step of the Arnoldi process, which gmres and the Lanczos method of eigsh share:
//! the new direction `w = A M⁻¹ v_j`, made orthogonal to `v_0..v_j` by two passes of
//! classical Gram-Schmidt, its coefficients and norm written into the Hessenberg rows, and
//! `v_{j+1} = w / ‖w‖`. Eight launches besides the operator's (four cuBLAS `gemv` that
//! write the coefficients in place, `nrm2` into the Hessenberg row, the second pass's
//! coefficients added, `w` scaled into `v_{j+1}`), no allocation but the operator's, no
//! host synchronisation.

use super::common::precondition;
use super::LinearOperator;
use crate::libs::blas::with_blas;
use crate::ops::catalogue::BinaryOp;
use crate::{s, ContractElement, DeviceArray, Result};
use cudarc::cublas::sys::cublasOperation_t as Op;

/// The basis and Hessenberg storage of an Arnoldi run: `v` holds `v_0..v_rows` as rows
/// (`(rows + 1, n)`), `h` row `j` holds the coefficients of `A v_j` along `v_0..v_{j+1}`
/// (`(rows, rows + 1)`), `t` is scratch of `rows + 1` elements. All C-contiguous.
pub(crate) struct Arnoldi<T: crate::Element> {
    pub(crate) v: DeviceArray<T>,
    pub(crate) h: DeviceArray<T>,
    t: DeviceArray<T>,
}

impl<T: ContractElement> Arnoldi<T> {
    /// Zeroed storage for `rows` steps on vectors of `n` elements.
    pub(crate) fn new(dev: &crate::Device, rows: usize, n: usize) -> Result<Self> {
        Ok(Arnoldi {
            v: DeviceArray::zeros(dev, &[rows + 1, n])?,
            h: DeviceArray::zeros(dev, &[rows, rows + 1])?,
            t: DeviceArray::zeros(dev, &[rows + 1])?,
        })
    }

    /// Step `j`: `w = A M⁻¹ v_j` (`M⁻¹` the identity without `m`); `h[j, i] = v_iᴴ w`
    /// over both Gram-Schmidt passes for `i <= j`; `h[j, j + 1] = ‖w‖` after them (a real
    /// number, its imaginary part left 0 for complex types); `v_{j+1} = w / ‖w‖`.
    pub(crate) fn step(
        &self,
        a: &dyn LinearOperator<T>,
        m: Option<&dyn LinearOperator<T>>,
        j: usize,
    ) -> Result<()> {
        const OP: &str = "sparse::linalg::arnoldi";
        let dev = self.v.device();
        let (rows, n) = (self.h.shape()[0], self.v.shape()[1]);
        debug_assert!(j < rows);
        let z = precondition(m, &self.v.slice(s![j, ..])?)?;
        let w = a.matvec(&z)?;
        // `w` is overwritten below: a fresh contiguous copy when the operator handed back
        // memory it shares with the basis (or is not contiguous).
        let w = if !w.is_contiguous() || w.shares_memory_with(&self.v) {
            w.contiguous()?.copy()?
        } else {
            w
        };
        let size = std::mem::size_of::<T>() as u64;
        let (vp, _vb) = self.v.library_ptr(OP, dev)?;
        let (hp, _hb) = self.h.library_ptr(OP, dev)?;
        let (tp, _tb) = self.t.library_ptr(OP, dev)?;
        let (wp, _wb) = w.library_ptr(OP, dev)?;
        let hrow = hp + (j * (rows + 1)) as u64 * size;
        let norm = hrow + (j + 1) as u64 * size;
        // The basis v_0..v_j, column-major: n x (j + 1), leading dimension n.
        let basis = ((n, j + 1), (vp, n));
        with_blas(dev, |blas| {
            // SAFETY: `v` holds (rows + 1) x n elements, of which the first j + 1 rows are
            // read; `w` holds n, `h`'s row j holds rows + 1 (j + 2 written), `t` rows + 1
            // (j + 1 written); all contiguous on `dev`, alive until the calls are queued
            // (the buffers are held above).
            unsafe {
                // Two passes: the coefficients c = Vᴴ w (into the Hessenberg row, then
                // into `t`), and w -= V c.
                for c in [hrow, tp] {
                    blas.gemv::<T>(
                        Op::CUBLAS_OP_C,
                        basis.0,
                        basis.1,
                        (wp, 1),
                        (c, 1),
                        (1.0, 0.0),
                    )?;
                    blas.gemv::<T>(
                        Op::CUBLAS_OP_N,
                        basis.0,
                        basis.1,
                        (c, 1),
                        (wp, 1),
                        (-1.0, 1.0),
                    )?;
                }
                blas.nrm2_to_device::<T>(n, wp, norm)
            }
        })?;
        let row = self.h.slice(s![j, ..])?;
        row.slice(s![0..j + 1])?
            .add_assign(&self.t.slice(s![0..j + 1])?)?;
        let nv = row.slice(s![j + 1..j + 2])?;
        let next = self.v.slice(s![j + 1, ..])?;
        crate::ops::elementwise::run(
            dev,
            BinaryOp::Div.name(),
            BinaryOp::Div.body(),
            &[next.operand()?],
            &[w.operand()?, nv.operand_as(&[n])?],
            &[],
        )
    }
}
