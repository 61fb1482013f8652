//! LU: the 64-bit `Xgetrf`/`Xgetrs` of large matrices, cuBLAS's batched LU of many small
//! ones, and the batched triangular solve and matrix product of the blocked solve.

use super::{check, check_blas, i64_of, int, op_t, Dn, SolverElement};
use crate::libs::blas::Blas;
use crate::libs::Workspace;
use crate::{Error, Result};
use cudarc::cublas::sys as cb;
use cudarc::cusolver::sys;
use cudarc::driver::sys::CUdeviceptr;
use std::ffi::{c_int, c_void};

impl Dn<'_> {
    /// The workspace of [`getrf`](Self::getrf) for `n x n` matrices.
    pub(crate) fn getrf_workspace<T: SolverElement>(
        &self,
        n: usize,
        a: CUdeviceptr,
    ) -> Result<Workspace> {
        let (mut d, mut h) = (0usize, 0usize);
        check(
            // SAFETY: a size query; the pointers are those of the call.
            unsafe {
                sys::cusolverDnXgetrf_bufferSize(
                    self.handle,
                    self.params,
                    i64_of(n),
                    i64_of(n),
                    T::SOLVER_TYPE,
                    a as *const c_void,
                    i64_of(n.max(1)),
                    T::SOLVER_TYPE,
                    &mut d,
                    &mut h,
                )
            },
            "cusolverDnXgetrf_bufferSize",
        )?;
        self.workspace(d, h)
    }

    /// LU with partial pivoting of the column-major `n x n` matrix at `a` (leading
    /// dimension `n`), in place; `ipiv` receives `n` 1-based `i64` pivots, `info` one
    /// `i32` (`i > 0`: `U[i-1, i-1]` is exactly zero).
    ///
    /// # Safety
    /// `a`, `ipiv` and `info` address device memory of those sizes on the handle's device.
    pub(crate) unsafe fn getrf<T: SolverElement>(
        &self,
        n: usize,
        a: CUdeviceptr,
        ipiv: CUdeviceptr,
        ws: &mut Workspace,
        info: CUdeviceptr,
    ) -> Result<()> {
        let (dws, dbytes, hws, hbytes) = (
            ws.device_ptr(),
            ws.device_bytes(),
            ws.host_ptr(),
            ws.host_bytes(),
        );
        check(
            // SAFETY: the caller's contract; the workspace holds the sizes queried.
            unsafe {
                sys::cusolverDnXgetrf(
                    self.handle,
                    self.params,
                    i64_of(n),
                    i64_of(n),
                    T::SOLVER_TYPE,
                    a as *mut c_void,
                    i64_of(n.max(1)),
                    ipiv as *mut i64,
                    T::SOLVER_TYPE,
                    dws,
                    dbytes,
                    hws,
                    hbytes,
                    info as *mut c_int,
                )
            },
            "cusolverDnXgetrf",
        )
    }

    /// Solves `op(A) X = B` with the factors of [`getrf`](Self::getrf) at `a`/`ipiv`; `b`
    /// is column-major `n x nrhs` (leading dimension `n`), overwritten by `X`.
    ///
    /// # Safety
    /// The pointers address device memory of those sizes on the handle's device.
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn getrs<T: SolverElement>(
        &self,
        trans: bool,
        n: usize,
        nrhs: usize,
        a: CUdeviceptr,
        ipiv: CUdeviceptr,
        b: CUdeviceptr,
        info: CUdeviceptr,
    ) -> Result<()> {
        check(
            // SAFETY: the caller's contract.
            unsafe {
                sys::cusolverDnXgetrs(
                    self.handle,
                    self.params,
                    op_t(trans),
                    i64_of(n),
                    i64_of(nrhs),
                    T::SOLVER_TYPE,
                    a as *const c_void,
                    i64_of(n.max(1)),
                    ipiv as *const i64,
                    T::SOLVER_TYPE,
                    b as *mut c_void,
                    i64_of(n.max(1)),
                    info as *mut c_int,
                )
            },
            "cusolverDnXgetrs",
        )
    }
}

// ---- cuBLAS's batched LU ------------------------------------------------------------------

/// LU with partial pivoting of `batch` column-major `n x n` matrices (leading dimension
/// `n`) whose addresses are the `u64`s at `ptrs`, in place: `n` 1-based `i32` pivots per
/// matrix at `piv`, one `i32` info per matrix.
///
/// # Safety
/// The pointers address device memory of those sizes on the handle's device.
pub(crate) unsafe fn getrf_batched<T: SolverElement>(
    blas: &Blas,
    n: usize,
    ptrs: CUdeviceptr,
    piv: CUdeviceptr,
    info: CUdeviceptr,
    batch: usize,
) -> Result<()> {
    let op = "cublasGetrfBatched";
    check_blas(
        // SAFETY: the caller's contract.
        unsafe {
            T::getrf_batched(
                blas.raw(),
                int(op, n)?,
                ptrs as *const *mut T,
                int(op, n.max(1))?,
                piv as *mut c_int,
                info as *mut c_int,
                int(op, batch)?,
            )
        },
        op,
    )
}

/// Solves `op(A_i) X_i = B_i` for the factors of [`getrf_batched`] (addresses at
/// `a_ptrs`, pivots at `piv`) and the column-major `n x nrhs` right-hand sides (leading
/// dimension `n`) at the addresses `b_ptrs`, overwritten by the solutions.
///
/// # Safety
/// The pointers address device memory of those sizes on the handle's device.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn getrs_batched<T: SolverElement>(
    blas: &Blas,
    trans: bool,
    n: usize,
    nrhs: usize,
    a_ptrs: CUdeviceptr,
    piv: CUdeviceptr,
    b_ptrs: CUdeviceptr,
    batch: usize,
) -> Result<()> {
    let op = "cublasGetrsBatched";
    let mut info: c_int = 0;
    let trans = if trans {
        cb::cublasOperation_t::CUBLAS_OP_T
    } else {
        cb::cublasOperation_t::CUBLAS_OP_N
    };
    check_blas(
        // SAFETY: the caller's contract; `info` is the host word the routine asks for.
        unsafe {
            T::getrs_batched(
                blas.raw(),
                trans,
                int(op, n)?,
                int(op, nrhs)?,
                a_ptrs as *const *const T,
                int(op, n.max(1))?,
                piv as *const c_int,
                b_ptrs as *const *mut T,
                int(op, n.max(1))?,
                &mut info,
                int(op, batch)?,
            )
        },
        op,
    )?;
    if info != 0 {
        return Err(Error::Cublas {
            op,
            msg: format!("argument {} is invalid", -info),
        });
    }
    Ok(())
}

/// `B_i := tri(A_i)⁻¹ B_i` for `count` column-major `m x m` triangles (the lower one with
/// a unit diagonal, or the upper one) at the addresses `a_ptrs` (leading dimension `lda`)
/// and `m x nrhs` right-hand sides at the addresses `b_ptrs` (leading dimension `ldb`):
/// cuBLAS's batched triangular solve.
///
/// # Safety
/// The pointers address device memory of those sizes on the handle's device.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn trsm_batched<T: SolverElement>(
    blas: &Blas,
    lower_unit: bool,
    m: usize,
    nrhs: usize,
    (a_ptrs, lda): (CUdeviceptr, usize),
    (b_ptrs, ldb): (CUdeviceptr, usize),
    count: usize,
) -> Result<()> {
    let op = "cublasTrsmBatched";
    let (uplo, diag) = if lower_unit {
        (
            cb::cublasFillMode_t::CUBLAS_FILL_MODE_LOWER,
            cb::cublasDiagType_t::CUBLAS_DIAG_UNIT,
        )
    } else {
        (
            cb::cublasFillMode_t::CUBLAS_FILL_MODE_UPPER,
            cb::cublasDiagType_t::CUBLAS_DIAG_NON_UNIT,
        )
    };
    check_blas(
        // SAFETY: the caller's contract.
        unsafe {
            T::trsm_batched(
                blas.raw(),
                uplo,
                diag,
                int(op, m)?,
                int(op, nrhs)?,
                a_ptrs as *const *const T,
                int(op, lda)?,
                b_ptrs as *const *mut T,
                int(op, ldb)?,
                int(op, count)?,
            )
        },
        op,
    )
}

/// `C := alpha A B + beta C` for column-major `A` (`m x k`), `B` (`k x n`) and `C`
/// (`m x n`) at the given addresses and leading dimensions.
///
/// # Safety
/// The pointers address device memory of those sizes on the handle's device.
pub(crate) unsafe fn gemm_nn<T: SolverElement>(
    blas: &Blas,
    (m, n, k): (usize, usize, usize),
    alpha: f64,
    (a, lda): (CUdeviceptr, usize),
    (b, ldb): (CUdeviceptr, usize),
    beta: f64,
    (c, ldc): (CUdeviceptr, usize),
) -> Result<()> {
    let op = "cublasGemm";
    check_blas(
        // SAFETY: the caller's contract.
        unsafe {
            T::gemm_nn(
                blas.raw(),
                (int(op, m)?, int(op, n)?, int(op, k)?),
                alpha,
                (a as *const T, int(op, lda)?),
                (b as *const T, int(op, ldb)?),
                beta,
                (c as *mut T, int(op, ldc)?),
            )
        },
        op,
    )
}
