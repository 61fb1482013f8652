//! cuSOLVER (dense): the per-device handle, the element types it factorises
//! ([`SolverElement`]) and safe wrappers of cuarray's own around the `sys` calls cuarray
//! makes. cudarc 0.19 gives cuSOLVER a handle type only; every solver call is `unsafe` in
//! `cudarc::cusolver::sys`, so each one used is wrapped here once, generic over the
//! element type.
//!
//! - Large single matrices use the 64-bit API (`cusolverDnX*`: `Xgetrf`/`Xgetrs`,
//!   `Xpotrf`, `Xgeqrf`, `Xgesvd`, `Xgesvdp`, `Xsyevd`), whose kernels are the fastest
//!   cuSOLVER has (PyTorch's `Xpotrf` runs twice as fast as CuPy's `Dpotrf`); they take
//!   the element type as a `cudaDataType`, so one generic wrapper serves every type.
//! - Routines without a 64-bit form (`orgqr`, the Jacobi SVD and eigensolvers, the
//!   batched Cholesky) and cuBLAS's batched LU (`getrfBatched`/`getrsBatched`) are typed:
//!   [`SolverElement`] maps each to its `S`/`D` entry point (and later `C`/`Z`).
//!
//! Device workspaces come from the memory pool ([`Workspace`]), host workspaces are a
//! `Vec` (cuSOLVER uses them during the call only). The handle is a device extension,
//! bound to the stream of the call, like cuBLAS's.

use crate::device::probe::{require, Lib};
use crate::element::{FloatElement, NumElement};
use crate::libs::blas::{Blas, GemmElement};
use crate::libs::{with_handle, LibraryHandle, Workspace};
use crate::{Device, Error, Result};
use cudarc::cublas::sys as cb;
use cudarc::cusolver::sys;
use cudarc::driver::sys::CUdeviceptr;
use cudarc::driver::CudaStream;
use std::ffi::{c_int, c_void};
use std::sync::Arc;

mod sealed {
    pub trait Sealed {}
}

/// Element types of the linear algebra functions ([`crate::linalg`]): `f32` and `f64`,
/// through cuSOLVER's single- and double-precision routines.
///
/// `Spectral` is the type of singular values and eigenvalues (the type itself for real
/// types; the complex types will name their real part).
pub trait SolverElement: GemmElement + NumElement + sealed::Sealed {
    /// The real type of singular values and eigenvalues.
    type Spectral: SolverElement + FloatElement;
    /// cuSOLVER's name for the type (the 64-bit API's `dataType` and `computeType`).
    #[doc(hidden)]
    const SOLVER_TYPE: sys::cudaDataType;

    /// `?orgqr_bufferSize` (`?ungqr` for complex types).
    ///
    /// # Safety
    /// As the cuSOLVER routine: the pointers address the matrices the sizes describe.
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    unsafe fn orgqr_buffer_size(
        h: sys::cusolverDnHandle_t,
        m: c_int,
        n: c_int,
        k: c_int,
        a: *const Self,
        lda: c_int,
        tau: *const Self,
        lwork: *mut c_int,
    ) -> sys::cusolverStatus_t;
    /// `?orgqr`.
    ///
    /// # Safety
    /// As the cuSOLVER routine.
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    unsafe fn orgqr(
        h: sys::cusolverDnHandle_t,
        m: c_int,
        n: c_int,
        k: c_int,
        a: *mut Self,
        lda: c_int,
        tau: *const Self,
        work: *mut Self,
        lwork: c_int,
        info: *mut c_int,
    ) -> sys::cusolverStatus_t;
    /// `?gesvdj_bufferSize`.
    ///
    /// # Safety
    /// As the cuSOLVER routine.
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    unsafe fn gesvdj_buffer_size(
        h: sys::cusolverDnHandle_t,
        jobz: sys::cusolverEigMode_t,
        econ: c_int,
        m: c_int,
        n: c_int,
        a: *const Self,
        lda: c_int,
        s: *const Self::Spectral,
        u: *const Self,
        ldu: c_int,
        v: *const Self,
        ldv: c_int,
        lwork: *mut c_int,
        params: sys::gesvdjInfo_t,
    ) -> sys::cusolverStatus_t;
    /// `?gesvdj`.
    ///
    /// # Safety
    /// As the cuSOLVER routine.
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    unsafe fn gesvdj(
        h: sys::cusolverDnHandle_t,
        jobz: sys::cusolverEigMode_t,
        econ: c_int,
        m: c_int,
        n: c_int,
        a: *mut Self,
        lda: c_int,
        s: *mut Self::Spectral,
        u: *mut Self,
        ldu: c_int,
        v: *mut Self,
        ldv: c_int,
        work: *mut Self,
        lwork: c_int,
        info: *mut c_int,
        params: sys::gesvdjInfo_t,
    ) -> sys::cusolverStatus_t;
    /// `?gesvdjBatched_bufferSize`.
    ///
    /// # Safety
    /// As the cuSOLVER routine.
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    unsafe fn gesvdj_batched_buffer_size(
        h: sys::cusolverDnHandle_t,
        jobz: sys::cusolverEigMode_t,
        m: c_int,
        n: c_int,
        a: *const Self,
        lda: c_int,
        s: *const Self::Spectral,
        u: *const Self,
        ldu: c_int,
        v: *const Self,
        ldv: c_int,
        lwork: *mut c_int,
        params: sys::gesvdjInfo_t,
        batch: c_int,
    ) -> sys::cusolverStatus_t;
    /// `?gesvdjBatched`.
    ///
    /// # Safety
    /// As the cuSOLVER routine.
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    unsafe fn gesvdj_batched(
        h: sys::cusolverDnHandle_t,
        jobz: sys::cusolverEigMode_t,
        m: c_int,
        n: c_int,
        a: *mut Self,
        lda: c_int,
        s: *mut Self::Spectral,
        u: *mut Self,
        ldu: c_int,
        v: *mut Self,
        ldv: c_int,
        work: *mut Self,
        lwork: c_int,
        info: *mut c_int,
        params: sys::gesvdjInfo_t,
        batch: c_int,
    ) -> sys::cusolverStatus_t;
    /// `?syevjBatched_bufferSize` (`?heevjBatched` for complex types).
    ///
    /// # Safety
    /// As the cuSOLVER routine.
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    unsafe fn syevj_batched_buffer_size(
        h: sys::cusolverDnHandle_t,
        jobz: sys::cusolverEigMode_t,
        uplo: sys::cublasFillMode_t,
        n: c_int,
        a: *const Self,
        lda: c_int,
        w: *const Self::Spectral,
        lwork: *mut c_int,
        params: sys::syevjInfo_t,
        batch: c_int,
    ) -> sys::cusolverStatus_t;
    /// `?syevjBatched`.
    ///
    /// # Safety
    /// As the cuSOLVER routine.
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    unsafe fn syevj_batched(
        h: sys::cusolverDnHandle_t,
        jobz: sys::cusolverEigMode_t,
        uplo: sys::cublasFillMode_t,
        n: c_int,
        a: *mut Self,
        lda: c_int,
        w: *mut Self::Spectral,
        work: *mut Self,
        lwork: c_int,
        info: *mut c_int,
        params: sys::syevjInfo_t,
        batch: c_int,
    ) -> sys::cusolverStatus_t;
    /// `?potrfBatched` (an array of matrix pointers on the device).
    ///
    /// # Safety
    /// As the cuSOLVER routine.
    #[doc(hidden)]
    unsafe fn potrf_batched(
        h: sys::cusolverDnHandle_t,
        uplo: sys::cublasFillMode_t,
        n: c_int,
        a: *mut *mut Self,
        lda: c_int,
        info: *mut c_int,
        batch: c_int,
    ) -> sys::cusolverStatus_t;
    /// cuBLAS's `?getrfBatched` (LU with partial pivoting of many small matrices).
    ///
    /// # Safety
    /// As the cuBLAS routine.
    #[doc(hidden)]
    unsafe fn getrf_batched(
        h: cb::cublasHandle_t,
        n: c_int,
        a: *const *mut Self,
        lda: c_int,
        piv: *mut c_int,
        info: *mut c_int,
        batch: c_int,
    ) -> cb::cublasStatus_t;
    /// cuBLAS's `?trsmBatched`, on the left, untransposed, `alpha = 1`: `B_i :=
    /// tri(A_i)⁻¹ B_i` (the lower or upper triangle, unit or not).
    ///
    /// # Safety
    /// As the cuBLAS routine.
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    unsafe fn trsm_batched(
        h: cb::cublasHandle_t,
        uplo: cb::cublasFillMode_t,
        diag: cb::cublasDiagType_t,
        m: c_int,
        n: c_int,
        a: *const *const Self,
        lda: c_int,
        b: *const *mut Self,
        ldb: c_int,
        batch: c_int,
    ) -> cb::cublasStatus_t;
    /// cuBLAS's `?gemm`, untransposed: `C := alpha A B + beta C`.
    ///
    /// # Safety
    /// As the cuBLAS routine.
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    unsafe fn gemm_nn(
        h: cb::cublasHandle_t,
        mnk: (c_int, c_int, c_int),
        alpha: f64,
        a: (*const Self, c_int),
        b: (*const Self, c_int),
        beta: f64,
        c: (*mut Self, c_int),
    ) -> cb::cublasStatus_t;
    /// cuBLAS's `?getrsBatched` (`info` is a host pointer: argument errors only).
    ///
    /// # Safety
    /// As the cuBLAS routine.
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    unsafe fn getrs_batched(
        h: cb::cublasHandle_t,
        trans: cb::cublasOperation_t,
        n: c_int,
        nrhs: c_int,
        a: *const *const Self,
        lda: c_int,
        piv: *const c_int,
        b: *const *mut Self,
        ldb: c_int,
        info: *mut c_int,
        batch: c_int,
    ) -> cb::cublasStatus_t;
}

macro_rules! solver_element {
    ($t:ty, $cuda:ident, orgqr: $orgqr:ident, $orgqr_bs:ident, gesvdj: $gesvdj:ident,
     $gesvdj_bs:ident, gesvdj_batched: $gesvdjb:ident, $gesvdjb_bs:ident,
     syevj_batched: $syevjb:ident, $syevjb_bs:ident, potrf_batched: $potrfb:ident,
     getrf_batched: $getrfb:ident, getrs_batched: $getrsb:ident,
     trsm_batched: $trsmb:ident, gemm: $gemm:ident) => {
        impl sealed::Sealed for $t {}
        impl SolverElement for $t {
            type Spectral = $t;
            const SOLVER_TYPE: sys::cudaDataType = sys::cudaDataType::$cuda;
            unsafe fn orgqr_buffer_size(
                h: sys::cusolverDnHandle_t,
                m: c_int,
                n: c_int,
                k: c_int,
                a: *const $t,
                lda: c_int,
                tau: *const $t,
                lwork: *mut c_int,
            ) -> sys::cusolverStatus_t {
                // SAFETY: the caller's contract.
                unsafe { sys::$orgqr_bs(h, m, n, k, a, lda, tau, lwork) }
            }
            unsafe fn orgqr(
                h: sys::cusolverDnHandle_t,
                m: c_int,
                n: c_int,
                k: c_int,
                a: *mut $t,
                lda: c_int,
                tau: *const $t,
                work: *mut $t,
                lwork: c_int,
                info: *mut c_int,
            ) -> sys::cusolverStatus_t {
                // SAFETY: the caller's contract.
                unsafe { sys::$orgqr(h, m, n, k, a, lda, tau, work, lwork, info) }
            }
            unsafe fn gesvdj_buffer_size(
                h: sys::cusolverDnHandle_t,
                jobz: sys::cusolverEigMode_t,
                econ: c_int,
                m: c_int,
                n: c_int,
                a: *const $t,
                lda: c_int,
                s: *const $t,
                u: *const $t,
                ldu: c_int,
                v: *const $t,
                ldv: c_int,
                lwork: *mut c_int,
                params: sys::gesvdjInfo_t,
            ) -> sys::cusolverStatus_t {
                // SAFETY: the caller's contract.
                unsafe {
                    sys::$gesvdj_bs(
                        h, jobz, econ, m, n, a, lda, s, u, ldu, v, ldv, lwork, params,
                    )
                }
            }
            unsafe fn gesvdj(
                h: sys::cusolverDnHandle_t,
                jobz: sys::cusolverEigMode_t,
                econ: c_int,
                m: c_int,
                n: c_int,
                a: *mut $t,
                lda: c_int,
                s: *mut $t,
                u: *mut $t,
                ldu: c_int,
                v: *mut $t,
                ldv: c_int,
                work: *mut $t,
                lwork: c_int,
                info: *mut c_int,
                params: sys::gesvdjInfo_t,
            ) -> sys::cusolverStatus_t {
                // SAFETY: the caller's contract.
                unsafe {
                    sys::$gesvdj(
                        h, jobz, econ, m, n, a, lda, s, u, ldu, v, ldv, work, lwork, info, params,
                    )
                }
            }
            unsafe fn gesvdj_batched_buffer_size(
                h: sys::cusolverDnHandle_t,
                jobz: sys::cusolverEigMode_t,
                m: c_int,
                n: c_int,
                a: *const $t,
                lda: c_int,
                s: *const $t,
                u: *const $t,
                ldu: c_int,
                v: *const $t,
                ldv: c_int,
                lwork: *mut c_int,
                params: sys::gesvdjInfo_t,
                batch: c_int,
            ) -> sys::cusolverStatus_t {
                // SAFETY: the caller's contract.
                unsafe {
                    sys::$gesvdjb_bs(
                        h, jobz, m, n, a, lda, s, u, ldu, v, ldv, lwork, params, batch,
                    )
                }
            }
            unsafe fn gesvdj_batched(
                h: sys::cusolverDnHandle_t,
                jobz: sys::cusolverEigMode_t,
                m: c_int,
                n: c_int,
                a: *mut $t,
                lda: c_int,
                s: *mut $t,
                u: *mut $t,
                ldu: c_int,
                v: *mut $t,
                ldv: c_int,
                work: *mut $t,
                lwork: c_int,
                info: *mut c_int,
                params: sys::gesvdjInfo_t,
                batch: c_int,
            ) -> sys::cusolverStatus_t {
                // SAFETY: the caller's contract.
                unsafe {
                    sys::$gesvdjb(
                        h, jobz, m, n, a, lda, s, u, ldu, v, ldv, work, lwork, info, params, batch,
                    )
                }
            }
            unsafe fn syevj_batched_buffer_size(
                h: sys::cusolverDnHandle_t,
                jobz: sys::cusolverEigMode_t,
                uplo: sys::cublasFillMode_t,
                n: c_int,
                a: *const $t,
                lda: c_int,
                w: *const $t,
                lwork: *mut c_int,
                params: sys::syevjInfo_t,
                batch: c_int,
            ) -> sys::cusolverStatus_t {
                // SAFETY: the caller's contract.
                unsafe { sys::$syevjb_bs(h, jobz, uplo, n, a, lda, w, lwork, params, batch) }
            }
            unsafe fn syevj_batched(
                h: sys::cusolverDnHandle_t,
                jobz: sys::cusolverEigMode_t,
                uplo: sys::cublasFillMode_t,
                n: c_int,
                a: *mut $t,
                lda: c_int,
                w: *mut $t,
                work: *mut $t,
                lwork: c_int,
                info: *mut c_int,
                params: sys::syevjInfo_t,
                batch: c_int,
            ) -> sys::cusolverStatus_t {
                // SAFETY: the caller's contract.
                unsafe {
                    sys::$syevjb(
                        h, jobz, uplo, n, a, lda, w, work, lwork, info, params, batch,
                    )
                }
            }
            unsafe fn potrf_batched(
                h: sys::cusolverDnHandle_t,
                uplo: sys::cublasFillMode_t,
                n: c_int,
                a: *mut *mut $t,
                lda: c_int,
                info: *mut c_int,
                batch: c_int,
            ) -> sys::cusolverStatus_t {
                // SAFETY: the caller's contract.
                unsafe { sys::$potrfb(h, uplo, n, a, lda, info, batch) }
            }
            unsafe fn getrf_batched(
                h: cb::cublasHandle_t,
                n: c_int,
                a: *const *mut $t,
                lda: c_int,
                piv: *mut c_int,
                info: *mut c_int,
                batch: c_int,
            ) -> cb::cublasStatus_t {
                // SAFETY: the caller's contract.
                unsafe { cb::$getrfb(h, n, a, lda, piv, info, batch) }
            }
            unsafe fn getrs_batched(
                h: cb::cublasHandle_t,
                trans: cb::cublasOperation_t,
                n: c_int,
                nrhs: c_int,
                a: *const *const $t,
                lda: c_int,
                piv: *const c_int,
                b: *const *mut $t,
                ldb: c_int,
                info: *mut c_int,
                batch: c_int,
            ) -> cb::cublasStatus_t {
                // SAFETY: the caller's contract.
                unsafe { cb::$getrsb(h, trans, n, nrhs, a, lda, piv, b, ldb, info, batch) }
            }
            unsafe fn trsm_batched(
                h: cb::cublasHandle_t,
                uplo: cb::cublasFillMode_t,
                diag: cb::cublasDiagType_t,
                m: c_int,
                n: c_int,
                a: *const *const $t,
                lda: c_int,
                b: *const *mut $t,
                ldb: c_int,
                batch: c_int,
            ) -> cb::cublasStatus_t {
                let one: $t = 1.0;
                // SAFETY: the caller's contract; `one` outlives the call.
                unsafe {
                    cb::$trsmb(
                        h,
                        cb::cublasSideMode_t::CUBLAS_SIDE_LEFT,
                        uplo,
                        cb::cublasOperation_t::CUBLAS_OP_N,
                        diag,
                        m,
                        n,
                        &one,
                        a,
                        lda,
                        b,
                        ldb,
                        batch,
                    )
                }
            }
            unsafe fn gemm_nn(
                h: cb::cublasHandle_t,
                (m, n, k): (c_int, c_int, c_int),
                alpha: f64,
                a: (*const $t, c_int),
                b: (*const $t, c_int),
                beta: f64,
                c: (*mut $t, c_int),
            ) -> cb::cublasStatus_t {
                let (alpha, beta) = (alpha as $t, beta as $t);
                let nn = cb::cublasOperation_t::CUBLAS_OP_N;
                // SAFETY: the caller's contract; alpha and beta outlive the call.
                unsafe {
                    cb::$gemm(
                        h, nn, nn, m, n, k, &alpha, a.0, a.1, b.0, b.1, &beta, c.0, c.1,
                    )
                }
            }
        }
    };
}

solver_element!(f32, CUDA_R_32F, orgqr: cusolverDnSorgqr, cusolverDnSorgqr_bufferSize,
    gesvdj: cusolverDnSgesvdj, cusolverDnSgesvdj_bufferSize,
    gesvdj_batched: cusolverDnSgesvdjBatched, cusolverDnSgesvdjBatched_bufferSize,
    syevj_batched: cusolverDnSsyevjBatched, cusolverDnSsyevjBatched_bufferSize,
    potrf_batched: cusolverDnSpotrfBatched,
    getrf_batched: cublasSgetrfBatched, getrs_batched: cublasSgetrsBatched,
    trsm_batched: cublasStrsmBatched, gemm: cublasSgemm_v2);
solver_element!(f64, CUDA_R_64F, orgqr: cusolverDnDorgqr, cusolverDnDorgqr_bufferSize,
    gesvdj: cusolverDnDgesvdj, cusolverDnDgesvdj_bufferSize,
    gesvdj_batched: cusolverDnDgesvdjBatched, cusolverDnDgesvdjBatched_bufferSize,
    syevj_batched: cusolverDnDsyevjBatched, cusolverDnDsyevjBatched_bufferSize,
    potrf_batched: cusolverDnDpotrfBatched,
    getrf_batched: cublasDgetrfBatched, getrs_batched: cublasDgetrsBatched,
    trsm_batched: cublasDtrsmBatched, gemm: cublasDgemm_v2);

fn solver_err(op: &'static str) -> impl FnOnce(sys::cusolverStatus_t) -> Error {
    move |status| Error::Cusolver {
        op,
        msg: format!("{status:?}"),
    }
}

/// `Ok` for `CUSOLVER_STATUS_SUCCESS`, else [`Error::Cusolver`] naming `op`.
fn check(status: sys::cusolverStatus_t, op: &'static str) -> Result<()> {
    if status == sys::cusolverStatus_t::CUSOLVER_STATUS_SUCCESS {
        Ok(())
    } else {
        Err(solver_err(op)(status))
    }
}

fn check_blas(status: cb::cublasStatus_t, op: &'static str) -> Result<()> {
    if status == cb::cublasStatus_t::CUBLAS_STATUS_SUCCESS {
        Ok(())
    } else {
        Err(Error::Cublas {
            op,
            msg: format!("{status:?}"),
        })
    }
}

/// `v` as the C `int` of a legacy (32-bit) cuSOLVER or cuBLAS argument.
pub(crate) fn int(op: &'static str, v: usize) -> Result<c_int> {
    c_int::try_from(v).map_err(|_| {
        Error::invalid(
            op,
            format!("dimension {v} exceeds the 32-bit limit of the batched and Jacobi routines"),
        )
    })
}

fn i64_of(v: usize) -> i64 {
    // Sizes of allocated arrays are at most isize::MAX.
    v as i64
}

fn fill(upper: bool) -> sys::cublasFillMode_t {
    if upper {
        sys::cublasFillMode_t::CUBLAS_FILL_MODE_UPPER
    } else {
        sys::cublasFillMode_t::CUBLAS_FILL_MODE_LOWER
    }
}

fn eig_mode(vectors: bool) -> sys::cusolverEigMode_t {
    if vectors {
        sys::cusolverEigMode_t::CUSOLVER_EIG_MODE_VECTOR
    } else {
        sys::cusolverEigMode_t::CUSOLVER_EIG_MODE_NOVECTOR
    }
}

fn op_t(trans: bool) -> sys::cublasOperation_t {
    if trans {
        sys::cublasOperation_t::CUBLAS_OP_T
    } else {
        sys::cublasOperation_t::CUBLAS_OP_N
    }
}

/// A device workspace's size in elements of `T` (the legacy routines count in elements).
fn elements<T>(ws: &Workspace) -> c_int {
    (ws.device_bytes() / std::mem::size_of::<T>()).min(c_int::MAX as usize) as c_int
}

/// The Jacobi SVD's parameters (tolerance, sweeps), destroyed on drop.
struct GesvdjParams(sys::gesvdjInfo_t);

impl GesvdjParams {
    fn new() -> Result<Self> {
        let mut p = std::ptr::null_mut();
        check(
            // SAFETY: writes a new parameter object into `p`.
            unsafe { sys::cusolverDnCreateGesvdjInfo(&mut p) },
            "cusolverDnCreateGesvdjInfo",
        )?;
        Ok(GesvdjParams(p))
    }
}

impl Drop for GesvdjParams {
    fn drop(&mut self) {
        // SAFETY: created by cusolverDnCreateGesvdjInfo, destroyed once; the routines
        // read it on the host while they are called.
        let _ = unsafe { sys::cusolverDnDestroyGesvdjInfo(self.0) };
    }
}

/// The Jacobi eigensolver's parameters, destroyed on drop.
struct SyevjParams(sys::syevjInfo_t);

impl SyevjParams {
    fn new() -> Result<Self> {
        let mut p = std::ptr::null_mut();
        check(
            // SAFETY: writes a new parameter object into `p`.
            unsafe { sys::cusolverDnCreateSyevjInfo(&mut p) },
            "cusolverDnCreateSyevjInfo",
        )?;
        Ok(SyevjParams(p))
    }
}

impl Drop for SyevjParams {
    fn drop(&mut self) {
        // SAFETY: created by cusolverDnCreateSyevjInfo, destroyed once.
        let _ = unsafe { sys::cusolverDnDestroySyevjInfo(self.0) };
    }
}

/// A cuSOLVER dense handle and its 64-bit API parameters, bound to the stream of the last
/// call (kept in a device extension: it holds no `Device`, which would be a cycle).
pub(crate) struct Solver {
    handle: sys::cusolverDnHandle_t,
    params: sys::cusolverDnParams_t,
    stream: Arc<CudaStream>,
    getrf_alg: u32,
}

// SAFETY: the handle is only used under the device's solver mutex (one thread at a time).
unsafe impl Send for Solver {}

impl Drop for Solver {
    fn drop(&mut self) {
        // SAFETY: both were created in `Solver::new` and are destroyed once.
        unsafe {
            let _ = sys::cusolverDnDestroyParams(self.params);
            let _ = sys::cusolverDnDestroy(self.handle);
        }
    }
}

/// Runs `f` with `device`'s cuSOLVER handle (created on first use) bound to the device's
/// stream, holding the handle's lock.
///
/// # Errors
/// [`Error::LibraryNotFound`] when cuSOLVER (or a library it loads) is missing.
pub(crate) fn with_solver<R>(device: &Device, f: impl FnOnce(&Dn<'_>) -> Result<R>) -> Result<R> {
    with_handle::<Solver, R>(device, |solver| {
        f(&Dn {
            handle: solver.handle,
            params: solver.params,
            device,
        })
    })
}

impl LibraryHandle for Solver {
    const OP: &'static str = "linear algebra (cuSOLVER)";
    const CAPTURABLE: bool = true;

    fn create(device: &Device) -> Result<Solver> {
        require(Lib::Cusolver)?;
        device.bind()?;
        let mut handle = std::ptr::null_mut();
        check(
            // SAFETY: writes a new handle into `handle`; the context is current.
            unsafe { sys::cusolverDnCreate(&mut handle) },
            "creating the cuSOLVER handle",
        )?;
        let mut params = std::ptr::null_mut();
        // SAFETY: writes a new parameter object into `params`.
        let made = check(
            unsafe { sys::cusolverDnCreateParams(&mut params) },
            "cusolverDnCreateParams",
        );
        if let Err(e) = made {
            // SAFETY: created just above, destroyed once.
            let _ = unsafe { sys::cusolverDnDestroy(handle) };
            return Err(e);
        }
        let solver = Solver {
            handle,
            params,
            stream: device.cuda_stream().clone(),
            getrf_alg: u32::MAX,
        };
        check(
            // SAFETY: the stream belongs to the device's context, current on this thread.
            unsafe { sys::cusolverDnSetStream(handle, device.cu_stream() as _) },
            "cusolverDnSetStream",
        )?;
        Ok(solver)
    }

    fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    fn set_stream(&mut self, stream: &Arc<CudaStream>) -> Result<()> {
        check(
            // SAFETY: the stream belongs to the handle's context, current on this thread.
            unsafe { sys::cusolverDnSetStream(self.handle, stream.cu_stream() as _) },
            "cusolverDnSetStream",
        )?;
        self.stream = stream.clone();
        Ok(())
    }

    fn prepare(&mut self) -> Result<()> {
        self.set_getrf_algorithm(getrf_algorithm())
    }
}

impl Solver {
    fn set_getrf_algorithm(&mut self, alg: u32) -> Result<()> {
        if alg == self.getrf_alg {
            return Ok(());
        }
        let algo = if alg == 1 {
            sys::cusolverAlgMode_t::CUSOLVER_ALG_1
        } else {
            sys::cusolverAlgMode_t::CUSOLVER_ALG_0
        };
        check(
            // SAFETY: `params` is live.
            unsafe {
                sys::cusolverDnSetAdvOptions(
                    self.params,
                    sys::cusolverDnFunction_t::CUSOLVERDN_GETRF,
                    algo,
                )
            },
            "cusolverDnSetAdvOptions",
        )?;
        self.getrf_alg = alg;
        Ok(())
    }
}

/// The handle during one call of [`with_solver`]: cuSOLVER's handle and 64-bit API
/// parameters, bound to `device`'s stream, whose pool serves the workspaces.
pub(crate) struct Dn<'a> {
    handle: sys::cusolverDnHandle_t,
    params: sys::cusolverDnParams_t,
    device: &'a Device,
}

impl Dn<'_> {
    /// A workspace of the sizes a `*_bufferSize` query returned.
    fn workspace(&self, device_bytes: usize, host_bytes: usize) -> Result<Workspace> {
        Workspace::new(self.device, device_bytes, host_bytes)
    }

    // ---- LU: Xgetrf / Xgetrs -------------------------------------------------------------

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

    // ---- Cholesky: Xpotrf, potrfBatched ----------------------------------------------

    /// The workspace of [`potrf`](Self::potrf).
    pub(crate) fn potrf_workspace<T: SolverElement>(
        &self,
        upper: bool,
        n: usize,
        a: CUdeviceptr,
    ) -> Result<Workspace> {
        let (mut d, mut h) = (0usize, 0usize);
        check(
            // SAFETY: a size query; the pointers are those of the call.
            unsafe {
                sys::cusolverDnXpotrf_bufferSize(
                    self.handle,
                    self.params,
                    fill(upper),
                    i64_of(n),
                    T::SOLVER_TYPE,
                    a as *const c_void,
                    i64_of(n.max(1)),
                    T::SOLVER_TYPE,
                    &mut d,
                    &mut h,
                )
            },
            "cusolverDnXpotrf_bufferSize",
        )?;
        self.workspace(d, h)
    }

    /// Cholesky factorisation in place of the `upper` (else lower) triangle of the
    /// column-major `n x n` matrix at `a`; `info` one `i32` (`i > 0`: the leading minor of
    /// order `i` is not positive).
    ///
    /// # Safety
    /// `a` and `info` address device memory of those sizes on the handle's device.
    pub(crate) unsafe fn potrf<T: SolverElement>(
        &self,
        upper: bool,
        n: usize,
        a: CUdeviceptr,
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
                sys::cusolverDnXpotrf(
                    self.handle,
                    self.params,
                    fill(upper),
                    i64_of(n),
                    T::SOLVER_TYPE,
                    a as *mut c_void,
                    i64_of(n.max(1)),
                    T::SOLVER_TYPE,
                    dws,
                    dbytes,
                    hws,
                    hbytes,
                    info as *mut c_int,
                )
            },
            "cusolverDnXpotrf",
        )
    }

    /// [`potrf`](Self::potrf) of `batch` matrices whose device addresses are the `u64`s
    /// at `ptrs`; `info` one `i32` per matrix.
    ///
    /// # Safety
    /// `ptrs` holds `batch` addresses of `n x n` matrices (leading dimension `n`) on the
    /// handle's device; `info` holds `batch` `i32`s.
    pub(crate) unsafe fn potrf_batched<T: SolverElement>(
        &self,
        upper: bool,
        n: usize,
        ptrs: CUdeviceptr,
        info: CUdeviceptr,
        batch: usize,
    ) -> Result<()> {
        let op = "cusolverDnPotrfBatched";
        check(
            // SAFETY: the caller's contract.
            unsafe {
                T::potrf_batched(
                    self.handle,
                    fill(upper),
                    int(op, n)?,
                    ptrs as *mut *mut T,
                    int(op, n.max(1))?,
                    info as *mut c_int,
                    int(op, batch)?,
                )
            },
            op,
        )
    }

    // ---- QR: Xgeqrf, orgqr ----------------------------------------------------------------

    /// The workspace of [`geqrf`](Self::geqrf) for `m x n` matrices.
    pub(crate) fn geqrf_workspace<T: SolverElement>(
        &self,
        m: usize,
        n: usize,
        a: CUdeviceptr,
        tau: CUdeviceptr,
    ) -> Result<Workspace> {
        let (mut d, mut h) = (0usize, 0usize);
        check(
            // SAFETY: a size query; the pointers are those of the call.
            unsafe {
                sys::cusolverDnXgeqrf_bufferSize(
                    self.handle,
                    self.params,
                    i64_of(m),
                    i64_of(n),
                    T::SOLVER_TYPE,
                    a as *const c_void,
                    i64_of(m.max(1)),
                    T::SOLVER_TYPE,
                    tau as *const c_void,
                    T::SOLVER_TYPE,
                    &mut d,
                    &mut h,
                )
            },
            "cusolverDnXgeqrf_bufferSize",
        )?;
        self.workspace(d, h)
    }

    /// Householder QR in place of the column-major `m x n` matrix at `a` (leading
    /// dimension `m`): R in the upper triangle, the reflectors below it and their
    /// `min(m, n)` scales in `tau`.
    ///
    /// # Safety
    /// The pointers address device memory of those sizes on the handle's device.
    pub(crate) unsafe fn geqrf<T: SolverElement>(
        &self,
        m: usize,
        n: usize,
        a: CUdeviceptr,
        tau: CUdeviceptr,
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
            // SAFETY: the caller's contract.
            unsafe {
                sys::cusolverDnXgeqrf(
                    self.handle,
                    self.params,
                    i64_of(m),
                    i64_of(n),
                    T::SOLVER_TYPE,
                    a as *mut c_void,
                    i64_of(m.max(1)),
                    T::SOLVER_TYPE,
                    tau as *mut c_void,
                    T::SOLVER_TYPE,
                    dws,
                    dbytes,
                    hws,
                    hbytes,
                    info as *mut c_int,
                )
            },
            "cusolverDnXgeqrf",
        )
    }

    /// The workspace of [`orgqr`](Self::orgqr).
    pub(crate) fn orgqr_workspace<T: SolverElement>(
        &self,
        (m, n, k): (usize, usize, usize),
        a: CUdeviceptr,
        tau: CUdeviceptr,
    ) -> Result<Workspace> {
        let op = "cusolverDnOrgqr_bufferSize";
        let mut lwork: c_int = 0;
        check(
            // SAFETY: a size query; the pointers are those of the call.
            unsafe {
                T::orgqr_buffer_size(
                    self.handle,
                    int(op, m)?,
                    int(op, n)?,
                    int(op, k)?,
                    a as *const T,
                    int(op, m.max(1))?,
                    tau as *const T,
                    &mut lwork,
                )
            },
            op,
        )?;
        self.workspace(lwork.max(1) as usize * std::mem::size_of::<T>(), 0)
    }

    /// Forms the first `n` columns of Q from [`geqrf`](Self::geqrf)'s `k` reflectors, in
    /// place at `a` (column-major, leading dimension `m`).
    ///
    /// # Safety
    /// The pointers address device memory of those sizes on the handle's device.
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn orgqr<T: SolverElement>(
        &self,
        m: usize,
        n: usize,
        k: usize,
        a: CUdeviceptr,
        tau: CUdeviceptr,
        ws: &mut Workspace,
        info: CUdeviceptr,
    ) -> Result<()> {
        let op = "cusolverDnOrgqr";
        check(
            // SAFETY: the caller's contract.
            unsafe {
                T::orgqr(
                    self.handle,
                    int(op, m)?,
                    int(op, n)?,
                    int(op, k)?,
                    a as *mut T,
                    int(op, m.max(1))?,
                    tau as *const T,
                    ws.device_ptr() as *mut T,
                    elements::<T>(ws),
                    info as *mut c_int,
                )
            },
            op,
        )
    }

    // ---- SVD: gesvdj (+ batched), Xgesvd, Xgesvdp ----------------------------------------

    /// The Jacobi SVD of the column-major `m x n` matrix at `a` (leading dimension `m`,
    /// destroyed): `min(m, n)` singular values (descending) at `s`, `U` (`m x m`, or
    /// `m x min(m, n)` when `econ`; leading dimension `m`) and `V` (not `Vᵀ`; `n x n` or
    /// `n x min(m, n)`, leading dimension `n`) when `vectors`. `info`: `min(m, n) + 1` when
    /// it did not converge. Queries and allocates its workspace.
    ///
    /// # Safety
    /// The pointers address device memory of those sizes on the handle's device (`u` and
    /// `v` even without `vectors`).
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn gesvdj<T: SolverElement>(
        &self,
        vectors: bool,
        econ: bool,
        (m, n): (usize, usize),
        a: CUdeviceptr,
        s: CUdeviceptr,
        (u, v): (CUdeviceptr, CUdeviceptr),
        info: CUdeviceptr,
        ws: &mut Option<Workspace>,
    ) -> Result<()> {
        let op = "cusolverDnGesvdj";
        let params = GesvdjParams::new()?;
        let (mi, ni) = (int(op, m)?, int(op, n)?);
        let (lda, ldu, ldv) = (int(op, m.max(1))?, int(op, m.max(1))?, int(op, n.max(1))?);
        let (jobz, econ) = (eig_mode(vectors), econ as c_int);
        if ws.is_none() {
            let mut lwork: c_int = 0;
            check(
                // SAFETY: a size query with the same arguments as the call.
                unsafe {
                    T::gesvdj_buffer_size(
                        self.handle,
                        jobz,
                        econ,
                        mi,
                        ni,
                        a as *const T,
                        lda,
                        s as *const T::Spectral,
                        u as *const T,
                        ldu,
                        v as *const T,
                        ldv,
                        &mut lwork,
                        params.0,
                    )
                },
                "cusolverDnGesvdj_bufferSize",
            )?;
            *ws = Some(self.workspace(lwork.max(1) as usize * std::mem::size_of::<T>(), 0)?);
        }
        let ws = ws.as_ref().expect("workspace made above");
        check(
            // SAFETY: the caller's contract; the workspace holds `lwork` elements.
            unsafe {
                T::gesvdj(
                    self.handle,
                    jobz,
                    econ,
                    mi,
                    ni,
                    a as *mut T,
                    lda,
                    s as *mut T::Spectral,
                    u as *mut T,
                    ldu,
                    v as *mut T,
                    ldv,
                    ws.device_ptr() as *mut T,
                    elements::<T>(ws),
                    info as *mut c_int,
                    params.0,
                )
            },
            op,
        )
    }

    /// [`gesvdj`](Self::gesvdj) of `batch` consecutive `m x n` matrices (`m, n <= 32`):
    /// full `U` (`m x m` each) and `V` (`n x n` each), consecutive; `min(m, n)` values
    /// each at `s`; one `info` each.
    ///
    /// # Safety
    /// The pointers address device memory of those sizes on the handle's device.
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn gesvdj_batched<T: SolverElement>(
        &self,
        vectors: bool,
        (m, n): (usize, usize),
        a: CUdeviceptr,
        s: CUdeviceptr,
        (u, v): (CUdeviceptr, CUdeviceptr),
        info: CUdeviceptr,
        batch: usize,
    ) -> Result<()> {
        let op = "cusolverDnGesvdjBatched";
        let params = GesvdjParams::new()?;
        let (mi, ni, bi) = (int(op, m)?, int(op, n)?, int(op, batch)?);
        let (lda, ldv) = (int(op, m.max(1))?, int(op, n.max(1))?);
        let jobz = eig_mode(vectors);
        let mut lwork: c_int = 0;
        check(
            // SAFETY: a size query with the same arguments as the call.
            unsafe {
                T::gesvdj_batched_buffer_size(
                    self.handle,
                    jobz,
                    mi,
                    ni,
                    a as *const T,
                    lda,
                    s as *const T::Spectral,
                    u as *const T,
                    lda,
                    v as *const T,
                    ldv,
                    &mut lwork,
                    params.0,
                    bi,
                )
            },
            "cusolverDnGesvdjBatched_bufferSize",
        )?;
        let ws = self.workspace(lwork.max(1) as usize * std::mem::size_of::<T>(), 0)?;
        check(
            // SAFETY: the caller's contract; the workspace holds `lwork` elements.
            unsafe {
                T::gesvdj_batched(
                    self.handle,
                    jobz,
                    mi,
                    ni,
                    a as *mut T,
                    lda,
                    s as *mut T::Spectral,
                    u as *mut T,
                    lda,
                    v as *mut T,
                    ldv,
                    ws.device_ptr() as *mut T,
                    elements::<T>(&ws),
                    info as *mut c_int,
                    params.0,
                    bi,
                )
            },
            op,
        )
    }

    /// The QR-iteration SVD (`Xgesvd`) of the column-major `m x n` matrix at `a` (`m >= n`,
    /// destroyed): `jobu`/`jobvt` are `b'A'` (all), `b'S'` (the first `n`) or `b'N'`;
    /// `U` has leading dimension `m`, `Vᵀ` leading dimension `ldvt`.
    ///
    /// # Safety
    /// The pointers address device memory of those sizes on the handle's device.
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn gesvd<T: SolverElement>(
        &self,
        (jobu, jobvt): (u8, u8),
        (m, n): (usize, usize),
        a: CUdeviceptr,
        s: CUdeviceptr,
        (u, vt, ldvt): (CUdeviceptr, CUdeviceptr, usize),
        info: CUdeviceptr,
    ) -> Result<()> {
        let (mut d, mut h) = (0usize, 0usize);
        let (ju, jv) = (jobu as std::ffi::c_schar, jobvt as std::ffi::c_schar);
        let (mm, nn, lda, ldvt) = (i64_of(m), i64_of(n), i64_of(m.max(1)), i64_of(ldvt.max(1)));
        let rt = <T::Spectral as SolverElement>::SOLVER_TYPE;
        check(
            // SAFETY: a size query with the same arguments as the call.
            unsafe {
                sys::cusolverDnXgesvd_bufferSize(
                    self.handle,
                    self.params,
                    ju,
                    jv,
                    mm,
                    nn,
                    T::SOLVER_TYPE,
                    a as *const c_void,
                    lda,
                    rt,
                    s as *const c_void,
                    T::SOLVER_TYPE,
                    u as *const c_void,
                    lda,
                    T::SOLVER_TYPE,
                    vt as *const c_void,
                    ldvt,
                    T::SOLVER_TYPE,
                    &mut d,
                    &mut h,
                )
            },
            "cusolverDnXgesvd_bufferSize",
        )?;
        let mut ws = self.workspace(d, h)?;
        let (dws, hws, hbytes) = (ws.device_ptr(), ws.host_ptr(), ws.host_bytes());
        check(
            // SAFETY: the caller's contract; the workspace holds the sizes queried.
            unsafe {
                sys::cusolverDnXgesvd(
                    self.handle,
                    self.params,
                    ju,
                    jv,
                    mm,
                    nn,
                    T::SOLVER_TYPE,
                    a as *mut c_void,
                    lda,
                    rt,
                    s as *mut c_void,
                    T::SOLVER_TYPE,
                    u as *mut c_void,
                    lda,
                    T::SOLVER_TYPE,
                    vt as *mut c_void,
                    ldvt,
                    T::SOLVER_TYPE,
                    dws,
                    d,
                    hws,
                    hbytes,
                    info as *mut c_int,
                )
            },
            "cusolverDnXgesvd",
        )
    }

    /// The polar-decomposition SVD (`Xgesvdp`) of the column-major `m x n` matrix at `a`
    /// (`m >= n`, destroyed), economy size: `U` `m x n` (leading dimension `m`), `V`
    /// `n x n` (leading dimension `n`). Waits for the GPU (it returns an error estimate
    /// on the host).
    ///
    /// # Safety
    /// The pointers address device memory of those sizes on the handle's device.
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn gesvdp<T: SolverElement>(
        &self,
        vectors: bool,
        (m, n): (usize, usize),
        a: CUdeviceptr,
        s: CUdeviceptr,
        (u, v): (CUdeviceptr, CUdeviceptr),
        info: CUdeviceptr,
    ) -> Result<()> {
        let (mut d, mut h) = (0usize, 0usize);
        let (mm, nn, lda, ldv) = (i64_of(m), i64_of(n), i64_of(m.max(1)), i64_of(n.max(1)));
        let rt = <T::Spectral as SolverElement>::SOLVER_TYPE;
        let jobz = eig_mode(vectors);
        check(
            // SAFETY: a size query with the same arguments as the call.
            unsafe {
                sys::cusolverDnXgesvdp_bufferSize(
                    self.handle,
                    self.params,
                    jobz,
                    1,
                    mm,
                    nn,
                    T::SOLVER_TYPE,
                    a as *const c_void,
                    lda,
                    rt,
                    s as *const c_void,
                    T::SOLVER_TYPE,
                    u as *const c_void,
                    lda,
                    T::SOLVER_TYPE,
                    v as *const c_void,
                    ldv,
                    T::SOLVER_TYPE,
                    &mut d,
                    &mut h,
                )
            },
            "cusolverDnXgesvdp_bufferSize",
        )?;
        let mut ws = self.workspace(d, h)?;
        let (dws, hws, hbytes) = (ws.device_ptr(), ws.host_ptr(), ws.host_bytes());
        let mut err_sigma = 0f64;
        check(
            // SAFETY: the caller's contract; the workspace holds the sizes queried;
            // `err_sigma` outlives the call (the routine waits before writing it).
            unsafe {
                sys::cusolverDnXgesvdp(
                    self.handle,
                    self.params,
                    jobz,
                    1,
                    mm,
                    nn,
                    T::SOLVER_TYPE,
                    a as *mut c_void,
                    lda,
                    rt,
                    s as *mut c_void,
                    T::SOLVER_TYPE,
                    u as *mut c_void,
                    lda,
                    T::SOLVER_TYPE,
                    v as *mut c_void,
                    ldv,
                    T::SOLVER_TYPE,
                    dws,
                    d,
                    hws,
                    hbytes,
                    info as *mut c_int,
                    &mut err_sigma,
                )
            },
            "cusolverDnXgesvdp",
        )
    }

    // ---- symmetric eigenvalues: Xsyevd, syevjBatched --------------------------------------

    /// The workspace of [`syevd`](Self::syevd).
    pub(crate) fn syevd_workspace<T: SolverElement>(
        &self,
        (vectors, upper): (bool, bool),
        n: usize,
        a: CUdeviceptr,
        w: CUdeviceptr,
    ) -> Result<Workspace> {
        let (mut d, mut h) = (0usize, 0usize);
        check(
            // SAFETY: a size query; the pointers are those of the call.
            unsafe {
                sys::cusolverDnXsyevd_bufferSize(
                    self.handle,
                    self.params,
                    eig_mode(vectors),
                    fill(upper),
                    i64_of(n),
                    T::SOLVER_TYPE,
                    a as *const c_void,
                    i64_of(n.max(1)),
                    <T::Spectral as SolverElement>::SOLVER_TYPE,
                    w as *const c_void,
                    T::SOLVER_TYPE,
                    &mut d,
                    &mut h,
                )
            },
            "cusolverDnXsyevd_bufferSize",
        )?;
        self.workspace(d, h)
    }

    /// Eigenvalues (ascending, at `w`) and, with `vectors`, eigenvectors (in place, in the
    /// columns) of the symmetric column-major `n x n` matrix at `a`, read from its `upper`
    /// (else lower) triangle (divide and conquer).
    ///
    /// # Safety
    /// The pointers address device memory of those sizes on the handle's device.
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn syevd<T: SolverElement>(
        &self,
        vectors: bool,
        upper: bool,
        n: usize,
        a: CUdeviceptr,
        w: CUdeviceptr,
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
                sys::cusolverDnXsyevd(
                    self.handle,
                    self.params,
                    eig_mode(vectors),
                    fill(upper),
                    i64_of(n),
                    T::SOLVER_TYPE,
                    a as *mut c_void,
                    i64_of(n.max(1)),
                    <T::Spectral as SolverElement>::SOLVER_TYPE,
                    w as *mut c_void,
                    T::SOLVER_TYPE,
                    dws,
                    dbytes,
                    hws,
                    hbytes,
                    info as *mut c_int,
                )
            },
            "cusolverDnXsyevd",
        )
    }

    /// [`syevd`](Self::syevd) of `batch` consecutive `n x n` matrices by Jacobi rotations
    /// (`n <= 32`), one `info` each.
    ///
    /// # Safety
    /// The pointers address device memory of those sizes on the handle's device.
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn syevj_batched<T: SolverElement>(
        &self,
        vectors: bool,
        upper: bool,
        n: usize,
        a: CUdeviceptr,
        w: CUdeviceptr,
        info: CUdeviceptr,
        batch: usize,
    ) -> Result<()> {
        let op = "cusolverDnSyevjBatched";
        let params = SyevjParams::new()?;
        let (ni, ld, bi) = (int(op, n)?, int(op, n.max(1))?, int(op, batch)?);
        let (jobz, uplo) = (eig_mode(vectors), fill(upper));
        let mut lwork: c_int = 0;
        check(
            // SAFETY: a size query with the same arguments as the call.
            unsafe {
                T::syevj_batched_buffer_size(
                    self.handle,
                    jobz,
                    uplo,
                    ni,
                    a as *const T,
                    ld,
                    w as *const T::Spectral,
                    &mut lwork,
                    params.0,
                    bi,
                )
            },
            "cusolverDnSyevjBatched_bufferSize",
        )?;
        let ws = self.workspace(lwork.max(1) as usize * std::mem::size_of::<T>(), 0)?;
        check(
            // SAFETY: the caller's contract; the workspace holds `lwork` elements.
            unsafe {
                T::syevj_batched(
                    self.handle,
                    jobz,
                    uplo,
                    ni,
                    a as *mut T,
                    ld,
                    w as *mut T::Spectral,
                    ws.device_ptr() as *mut T,
                    elements::<T>(&ws),
                    info as *mut c_int,
                    params.0,
                    bi,
                )
            },
            op,
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

// ---- tuning knobs (for benchmarks) ------------------------------------------------------------

use std::sync::atomic::{AtomicU32, Ordering};

static GETRF_ALGORITHM: AtomicU32 = AtomicU32::new(0);

/// `Xgetrf`'s algorithm (`CUSOLVER_ALG_0` or `_1`), set by benchmarks comparing them.
pub(crate) fn getrf_algorithm() -> u32 {
    GETRF_ALGORITHM.load(Ordering::Relaxed)
}

pub(crate) fn set_getrf_algorithm(alg: u32) {
    GETRF_ALGORITHM.store(alg, Ordering::Relaxed)
}
