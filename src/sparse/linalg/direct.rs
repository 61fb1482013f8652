//! Direct solves and norms of sparse matrices: [`spsolve_triangular`] (cuSPARSE's
//! `SpSV`), [`spsolve`] and [`norm`].

use crate::array::same_device;
use crate::linalg::{NormOrd, SolverElement};
use crate::sparse::cusparse::{self, CsrRef};
use crate::sparse::{CsrMatrix, SparseElement, SparseIndex};
use crate::{DeviceArray, Error, FloatElement, Result};
use std::sync::Arc;

/// The largest `n` [`spsolve`] densifies.
pub const SPSOLVE_DENSE_LIMIT: usize = 4096;

/// `a`'s structure with `data` (an array of `nnz` values, of any sparse element type) as
/// its values: the view cuSPARSE reads, and the buffers to keep alive for the call.
fn csr_ref<T: SparseElement, U: SparseElement, I: SparseIndex>(
    op: &'static str,
    a: &CsrMatrix<T, I>,
    data: &DeviceArray<U>,
) -> Result<(CsrRef, [Arc<crate::device::DeviceBuffer>; 3])> {
    let dev = a.device();
    let (p, pb) = a.indptr().library_ptr(op, dev)?;
    let (i, ib) = a.indices().library_ptr(op, dev)?;
    let (d, db) = data.library_ptr(op, dev)?;
    let (rows, cols) = a.shape();
    let r = CsrRef {
        rows,
        cols,
        nnz: a.nnz(),
        indptr: p,
        indices: i,
        data: d,
    };
    Ok((r, [pb, ib, db]))
}

/// Checks that `a` is square and `b` has `n` rows (1-D or 2-D); returns `n`.
fn check_system<T: SparseElement, I: SparseIndex>(
    op: &'static str,
    a: &CsrMatrix<T, I>,
    b: &DeviceArray<T>,
) -> Result<usize> {
    same_device(op, a.device(), b.device())?;
    let (m, n) = a.shape();
    if m != n || !(b.ndim() == 1 || b.ndim() == 2) || b.shape()[0] != n {
        return Err(Error::ShapeMismatch {
            op,
            msg: format!(
                "needs a square matrix and b of shape [{m}] or [{m}, k], got ({m}, {n}) and {:?}",
                b.shape()
            ),
            lhs: vec![m, n],
            rhs: b.shape().to_vec(),
        });
    }
    Ok(n)
}

/// Solves `A x = b` for a triangular CSR matrix `A` (SciPy's `spsolve_triangular`) with
/// cuSPARSE's `SpSV`: `lower` says which triangle holds `A` (entries of the other are not
/// read), `unit_diagonal` that the diagonal is ones (the stored diagonal is not read).
/// `b` is 1-D (`n`) or 2-D (`n x k`, one analysis and solve per column); `x` has its
/// shape. Nothing is read back to the host.
///
/// A zero on the diagonal gives infinities or NaNs (SciPy raises); a matrix with no
/// stored entries and no unit diagonal is an [`Error::Singular`].
///
/// ```no_run
/// use cuarray::sparse::{linalg, CsrMatrix};
/// use cuarray::{Device, DeviceArray};
/// let dev = Device::new(0)?;
/// // [[2, 0], [1, 4]]
/// let l = CsrMatrix::<f64>::from_triplets(&dev, &[0, 1, 1], &[0, 0, 1], &[2.0, 1.0, 4.0], (2, 2))?;
/// let b = DeviceArray::from_slice(&dev, &[2.0, 9.0])?;
/// let x = linalg::spsolve_triangular(&l, &b, true, false)?;
/// assert_eq!(x.to_host()?, vec![1.0, 2.0]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::ShapeMismatch`] when `A` is not square or `b` does not have `n` rows;
/// [`Error::DeviceMismatch`] across devices; cuSPARSE's error.
pub fn spsolve_triangular<T: SparseElement, I: SparseIndex>(
    a: &CsrMatrix<T, I>,
    b: &DeviceArray<T>,
    lower: bool,
    unit_diagonal: bool,
) -> Result<DeviceArray<T>> {
    const OP: &str = "sparse::linalg::spsolve_triangular";
    let n = check_system(OP, a, b)?;
    let k = if b.ndim() == 1 { 1 } else { b.shape()[1] };
    if n == 0 || k == 0 {
        return DeviceArray::zeros(b.device(), b.shape());
    }
    if a.nnz() == 0 {
        return if unit_diagonal {
            b.contiguous()?.copy()
        } else {
            Err(Error::Singular {
                op: OP,
                batch: 0,
                pivot: 0,
            })
        };
    }
    // Right-hand sides as contiguous rows (the columns of b).
    let rhs = if b.ndim() == 1 {
        b.contiguous()?
    } else {
        b.t().contiguous()?
    };
    let out = DeviceArray::<T>::alloc_for(OP, b.device(), rhs.shape())?;
    let (aref, _keep) = csr_ref(OP, a, a.data())?;
    let (xp, _xb) = rhs.library_ptr(OP, b.device())?;
    let (yp, _yb) = out.library_ptr(OP, b.device())?;
    let step = (n * std::mem::size_of::<T>()) as u64;
    let pairs: Vec<(u64, u64)> = (0..k as u64)
        .map(|j| (xp + j * step, yp + j * step))
        .collect();
    // SAFETY: `a`'s structure was checked at construction and is square; every pair
    // addresses `n` elements inside `rhs` and `out`, which live until the calls are queued.
    unsafe { cusparse::spsv::<T, I>(a.device(), &aref, lower, unit_diagonal, false, &pairs)? };
    if b.ndim() == 1 {
        Ok(out)
    } else {
        out.t().contiguous()
    }
}

/// Solves `A x = b` for a square sparse `A` (SciPy's `spsolve`), `b` 1-D or 2-D.
///
/// For `f32`, `f64`, `Complex32` and `Complex64`. Backed by a dense LU factorisation
/// (cuSOLVER's `getrf` / `getrs`, as
/// [`linalg::solve`](crate::linalg::solve)) of `A` made dense, for `n` up to
/// [`SPSOLVE_DENSE_LIMIT`] (4096: 128 MiB of `f64`): cuarray has no sparse direct
/// factorisation. Larger systems are an error pointing to the iterative solvers
/// ([`gmres`](super::gmres), [`cg`](super::cg), ...). Reads the factorisation's info
/// back (one synchronisation) to report a singular matrix.
///
/// ```no_run
/// use cuarray::sparse::{linalg, CsrMatrix};
/// use cuarray::{Device, DeviceArray};
/// let dev = Device::new(0)?;
/// let a = CsrMatrix::<f64>::from_triplets(&dev, &[0, 0, 1, 1], &[0, 1, 0, 1], &[3.0, 1.0, 1.0, 2.0], (2, 2))?;
/// let b = DeviceArray::from_slice(&dev, &[9.0, 8.0])?;
/// assert_eq!(linalg::spsolve(&a, &b)?.to_host()?, vec![2.0, 3.0]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::ShapeMismatch`] when `A` is not square or `b` does not have `n` rows;
/// [`Error::InvalidArgument`] when `n` exceeds [`SPSOLVE_DENSE_LIMIT`]; [`Error::Singular`].
pub fn spsolve<T: SparseElement + SolverElement, I: SparseIndex>(
    a: &CsrMatrix<T, I>,
    b: &DeviceArray<T>,
) -> Result<DeviceArray<T>> {
    const OP: &str = "sparse::linalg::spsolve";
    let n = check_system(OP, a, b)?;
    if n > SPSOLVE_DENSE_LIMIT {
        return Err(Error::invalid(
            OP,
            format!(
                "n = {n} exceeds the dense limit {SPSOLVE_DENSE_LIMIT}: use an iterative \
                 solver (sparse::linalg::gmres, cg, bicgstab)"
            ),
        ));
    }
    if n == 0 {
        return DeviceArray::zeros(b.device(), b.shape());
    }
    crate::linalg::solve(&a.to_dense()?, b)
}

/// A norm of a sparse matrix (SciPy's `scipy.sparse.linalg.norm`), as a 0-d array of the
/// real type: `None` or [`NormOrd::Fro`] the Frobenius norm, [`NormOrd::Inf`] /
/// [`NormOrd::NegInf`] the largest / smallest absolute row sum, `NormOrd::P(1.0)` /
/// `NormOrd::P(-1.0)` the largest / smallest absolute column sum (a [`CscMatrix`]'s norm
/// is that of its [`t`](crate::sparse::CscMatrix::t) with rows and columns exchanged).
/// Entries are taken as stored: sum duplicates first. Nothing is read back.
///
/// [`CscMatrix`]: crate::sparse::CscMatrix
///
/// ```no_run
/// use cuarray::sparse::{linalg, CsrMatrix};
/// use cuarray::linalg::NormOrd;
/// let dev = cuarray::Device::new(0)?;
/// let a = CsrMatrix::<f64>::from_triplets(&dev, &[0, 1, 1], &[0, 0, 1], &[3.0, -4.0, 1.0], (2, 2))?;
/// assert_eq!(linalg::norm(&a, Some(NormOrd::P(1.0)))?.to_scalar()?, 7.0);
/// assert_eq!(linalg::norm(&a, Some(NormOrd::Inf))?.to_scalar()?, 5.0);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] for the orders SciPy does not give sparse matrices (2,
/// -2, nuclear, other `p`); cuSPARSE's error.
pub fn norm<T: SparseElement, I: SparseIndex>(
    a: &CsrMatrix<T, I>,
    ord: Option<NormOrd>,
) -> Result<DeviceArray<T::Real>>
where
    T::Real: SparseElement + FloatElement,
{
    const OP: &str = "sparse::linalg::norm";
    let dev = a.device();
    let (rows, cols) = a.shape();
    let (transpose, largest) = match ord {
        None | Some(NormOrd::Fro) => {
            return a.data().abs()?.square()?.sum()?.sqrt();
        }
        Some(NormOrd::Inf) => (false, true),
        Some(NormOrd::NegInf) => (false, false),
        Some(NormOrd::P(1.0)) => (true, true),
        Some(NormOrd::P(-1.0)) => (true, false),
        Some(other) => {
            return Err(Error::invalid(
                OP,
                format!(
                "ord {other:?} is not a norm of sparse matrices (None, Fro, Inf, NegInf, 1, -1)"
            ),
            ))
        }
    };
    let (len, other) = if transpose {
        (cols, rows)
    } else {
        (rows, cols)
    };
    if len == 0 {
        return DeviceArray::zeros(dev, &[] as &[usize]);
    }
    let sums = if other == 0 || a.nnz() == 0 {
        DeviceArray::<T::Real>::zeros(dev, &[len])?
    } else {
        let abs = a.data().abs()?;
        let ones = DeviceArray::<T::Real>::ones(dev, &[other])?;
        let sums = DeviceArray::<T::Real>::alloc_for(OP, dev, &[len])?;
        let (aref, _keep) = csr_ref(OP, a, &abs)?;
        let (xp, _xb) = ones.library_ptr(OP, dev)?;
        let (yp, _yb) = sums.library_ptr(OP, dev)?;
        // SAFETY: `a`'s structure was checked at construction; `abs` has its `nnz`
        // values; `ones` and `sums` hold op(A)'s column and row counts.
        unsafe { cusparse::spmv::<T::Real, I>(dev, &aref, transpose, xp, yp)? };
        sums
    };
    if largest {
        sums.max()
    } else {
        sums.min()
    }
}
