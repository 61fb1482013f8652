//! Linear algebra on cuSOLVER, with `numpy.linalg`'s names, arguments and errors: solving
//! systems, factorising, decomposing, norms. Every function takes a stack of matrices (the
//! last two axes; the leading ones a batch) and works batch by batch; `solve` broadcasts
//! the batch dimensions of its two arguments as NumPy does.
//!
//! ```no_run
//! use cuarray::{linalg, DeviceArray};
//! let dev = cuarray::Device::new(0)?;
//! let a = DeviceArray::from_host(&dev, &[4.0f64, 1.0, 1.0, 3.0], &[2, 2])?;
//! let b = DeviceArray::from_slice(&dev, &[1.0f64, 2.0])?;
//! let x = linalg::solve(&a, &b)?;                  // a @ x = b
//! let l = linalg::cholesky(&a)?;                   // a = l @ lᵀ, zeros above the diagonal
//! let (w, v) = linalg::eigh(&a)?;                  // ascending eigenvalues
//! let (u, s, vh) = linalg::svd(&a, false)?;
//! let d = linalg::det(&a)?.to_scalar()?;           // 11.0
//! # Ok::<(), cuarray::Error>(())
//! ```
//!
//! # Element types
//! Every function takes `f32` and `f64` ([`RealElement`]); [`solve`], [`inv`], [`det`],
//! [`slogdet`], [`cholesky`] (Hermitian), [`qr`], [`svd`], [`svdvals`], [`eigh`] and
//! [`eigvalsh`] (Hermitian), [`lstsq`], [`pinv`], the norms, [`eig`] and [`eigvals`] take
//! [`Complex32`](crate::Complex32) and [`Complex64`](crate::Complex64) too
//! ([`SolverElement`]), through cuSOLVER's complex routines. Eigenvalues of Hermitian
//! matrices, `slogdet`'s `logabsdet`, singular values, norms and `lstsq`'s residuals are
//! real ([`SolverElement::Spectral`]); `eig`'s results are always complex.
//!
//! # Errors and synchronization
//! A singular matrix given to [`solve`] or [`inv`] is [`Error::Singular`], and a matrix
//! that is not positive definite given to [`cholesky`] is [`Error::NotPositiveDefinite`],
//! each naming the batch index (the flat row-major index over the batch dimensions) and
//! the zero pivot or the failing leading minor. Finding that out costs one read of the
//! factorisation's info array (one `i32` per matrix), so these functions **wait for the
//! GPU** once, as PyTorch's do. The `_ex` variants ([`solve_ex`], [`inv_ex`],
//! [`cholesky_ex`]) return that info array instead and never wait: a zero entry means
//! success, `i > 0` the pivot `U[i-1, i-1]` that is exactly zero (LU) or the leading minor
//! of order `i` that is not positive (Cholesky). (CuPy, by default, checks nothing.) Only
//! exactly zero pivots count: a nearly singular matrix gives a large, inaccurate solution,
//! as in NumPy.
//!
//! [`svd`], [`eigh`] and [`eigvalsh`] read their info arrays too (one wait): [`svd`] to
//! redo with the QR method (`gesvd`) any matrix where its first method failed, as PyTorch
//! does; an eigensolver that does not converge is [`Error::NoConvergence`].
//! [`det`] and [`slogdet`] never wait: the determinant of a singular matrix is 0 and its
//! `slogdet` is `(0, -inf)`, as NumPy's. [`lstsq`] waits once for the rank.
//!
//! # Layouts
//! Inputs may be any view (transposed, sliced, broadcast): each function copies its input
//! into a workspace cuSOLVER may overwrite (it factorises in place), in the order its
//! routine runs fastest on. cuSOLVER is column-major, so several results are column-major
//! views (Fortran order) rather than C-contiguous arrays: the solutions of `solve`, the
//! inverse, the Cholesky factor, `Q`, `U`, the eigenvectors. Every operation reads them in
//! place (matrix products through cuBLAS's transpose flags); `.contiguous()` makes a C-order
//! copy.
//!
//! # Routines
//! Many small matrices (at most 32 x 32) use the batched routines (cuBLAS's batched LU,
//! `potrfBatched`, `gesvdjBatched`, `syevjBatched`); large ones the 64-bit API (`Xgetrf`,
//! `Xpotrf`, `Xgeqrf`, `Xsyevd`) and the Jacobi SVD (`gesvdj`, with the QR method
//! `gesvd` where it does not converge). General eigenproblems ([`eig`], [`eigvals`]) take
//! `Xgeev`, one matrix at a time. Workspaces come from the device's memory pool.

mod cholesky;
mod common;
mod cusolver;
mod eig;
mod eigh;
mod lstsq;
mod lu;
mod matfun;
mod norms;
mod qr;
mod rank;
mod solve;
mod svd;
mod triangular;

pub use crate::einsum::multi_dot;
pub use crate::stats::cross;
pub use cholesky::{cholesky, cholesky_ex};
pub use cusolver::SolverElement;
pub use eig::{eig, eigvals};
pub use eigh::{eigh, eigvalsh};
pub use lstsq::{lstsq, pinv, Lstsq};
pub use lu::{lu, lu_factor, lu_solve};
pub use matfun::{expm, matrix_power};
pub use norms::{norm, norm_axes, norm_axis, NormOrd};
pub use qr::qr;
pub use rank::{cond, matrix_rank};
pub use solve::{det, inv, inv_ex, slogdet, solve, solve_ex};
pub use svd::{svd, svdvals};
pub use triangular::{solve_triangular, Trans};

use crate::element::{Element, FloatElement, NumElement};

/// The kernels of the linear algebra functions, for the NVRTC tier.
#[doc(hidden)]
pub fn kernel_specs() -> Vec<crate::KernelSpec> {
    let mut v = common::kernel_specs();
    v.extend(eig::kernel_specs());
    v
}
#[cfg(doc)]
use crate::Error;

/// The real element types, `f32` and `f64`: those of the functions here that take no
/// complex input (the others take any [`SolverElement`], [`Complex32`](crate::Complex32)
/// and [`Complex64`](crate::Complex64) included).
pub trait RealElement:
    SolverElement<Spectral = Self> + FloatElement + NumElement + Element<Sum = Self, Mean = Self>
{
}
impl<T> RealElement for T where
    T: SolverElement<Spectral = T> + FloatElement + NumElement + Element<Sum = T, Mean = T>
{
}
