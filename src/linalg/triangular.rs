//! Triangular systems: [`solve_triangular`] on cuBLAS's `?trsm`.

use super::RealElement;
use crate::array::DeviceArray;
use crate::libs::blas::{with_blas, Trsm};
use crate::{Error, Result};
use cudarc::cublas::sys;

/// Which system [`solve_triangular`] solves: `a x = b` ([`Trans::N`]), `aᵀ x = b`
/// ([`Trans::T`]) or `aᴴ x = b` ([`Trans::C`], the same as `T` for real matrices).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Trans {
    /// `a x = b`.
    N,
    /// `aᵀ x = b`.
    T,
    /// `aᴴ x = b`.
    C,
}

/// SciPy's `linalg.solve_triangular`: `x` with `a x = b` (or `aᵀ x = b`, `aᴴ x = b`) for a
/// triangular `a` (n x n): only its `lower` (or upper) triangle is read, and with
/// `unit_diagonal` not its diagonal either (taken as ones). `b` is `(n,)` or `(n, k)`; the
/// result has its shape. One cuBLAS `?trsm` on a copy of `b` (and a C-order copy of `a`
/// when `a` is another view). No check for a zero on the diagonal: it gives inf or NaN,
/// as LAPACK's `trtrs` would report and SciPy raise.
///
/// ```no_run
/// use cuarray::linalg::{solve_triangular, Trans};
/// use cuarray::{Device, DeviceArray};
/// let dev = Device::new(0)?;
/// let a = DeviceArray::from_host(&dev, &[2.0f64, 0.0, 1.0, 4.0], &[2, 2])?;
/// let b = DeviceArray::from_slice(&dev, &[2.0f64, 9.0])?;
/// let x = solve_triangular(&a, &b, true, Trans::N, false)?;
/// assert_eq!(x.to_host()?, vec![1.0, 2.0]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] when `a` is not one square matrix, `b` not 1-D or 2-D, or a
/// dimension is past cuBLAS's 32-bit limit; [`Error::ShapeMismatch`] when `b`'s first
/// extent is not `n`.
pub fn solve_triangular<T: RealElement>(
    a: &DeviceArray<T>,
    b: &DeviceArray<T>,
    lower: bool,
    trans: Trans,
    unit_diagonal: bool,
) -> Result<DeviceArray<T>> {
    const OP: &str = "solve_triangular";
    let device = a.device();
    b.used_by(OP, device)?;
    if a.ndim() != 2 || a.shape()[0] != a.shape()[1] {
        return Err(Error::invalid(
            OP,
            format!("a must be one square matrix, not shape {:?}", a.shape()),
        ));
    }
    if b.ndim() == 0 || b.ndim() > 2 {
        return Err(Error::invalid(
            OP,
            format!("b must be (n,) or (n, k), not shape {:?}", b.shape()),
        ));
    }
    let n = a.shape()[0];
    if b.shape()[0] != n {
        return Err(Error::ShapeMismatch {
            op: OP,
            msg: "b's rows differ from a's order".into(),
            lhs: a.shape().to_vec(),
            rhs: b.shape().to_vec(),
        });
    }
    let k = if b.ndim() == 2 { b.shape()[1] } else { 1 };
    // The right-hand sides as columns, column-major (n x k, leading dimension n): a copy
    // of bᵀ, C-contiguous (k, n). cuBLAS's left-side solve with many rows runs faster than
    // the right-side solve of the row-major layout (4096 x 64 f64 on an H100: 1.55 ms).
    let xt = if b.ndim() == 2 {
        b.t().copy()?
    } else {
        b.copy()?
    };
    let back = |xt: DeviceArray<T>| -> Result<DeviceArray<T>> {
        if b.ndim() == 2 {
            xt.t().contiguous()
        } else {
            Ok(xt)
        }
    };
    if n == 0 || k == 0 {
        return back(xt);
    }
    let a = if a.layout().is_c_contiguous() {
        a.clone()
    } else {
        a.contiguous()?
    };
    let int = |v: usize| {
        i32::try_from(v)
            .map_err(|_| Error::invalid(OP, format!("dimension {v} exceeds cuBLAS's 32-bit limit")))
    };
    // The row-major a is aᵀ to column-major cuBLAS, its stored triangle the other one:
    // a x = b is op(aᵀ) X = B with op the transpose, aᵀ x = b (and aᴴ x = b, real) with
    // op none.
    let t = Trsm {
        side: sys::cublasSideMode_t::CUBLAS_SIDE_LEFT,
        uplo: if lower {
            sys::cublasFillMode_t::CUBLAS_FILL_MODE_UPPER
        } else {
            sys::cublasFillMode_t::CUBLAS_FILL_MODE_LOWER
        },
        trans: match trans {
            Trans::N => sys::cublasOperation_t::CUBLAS_OP_T,
            Trans::T | Trans::C => sys::cublasOperation_t::CUBLAS_OP_N,
        },
        diag: if unit_diagonal {
            sys::cublasDiagType_t::CUBLAS_DIAG_UNIT
        } else {
            sys::cublasDiagType_t::CUBLAS_DIAG_NON_UNIT
        },
        mn: (int(n)?, int(k)?),
        a: (a.library_ptr(OP, device)?.0, int(n)?),
        b: (xt.library_ptr(OP, device)?.0, int(n)?),
    };
    with_blas(device, |blas| {
        // SAFETY: `a` is the C-contiguous n x n matrix at t.a (lda n: aᵀ column-major),
        // `xt` the C-contiguous (k, n) copy of bᵀ at t.b (ldb n: b column-major, n x k),
        // both on the handle's device; both arrays live until the call is queued.
        unsafe { blas.trsm::<T>(&t) }
    })?;
    back(xt)
}
