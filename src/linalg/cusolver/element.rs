//! [`SolverElement`]: the element types cuSOLVER factorises, each mapped to the typed
//! (`S`/`D`) entry points of the routines that have no 64-bit form, and to cuBLAS's batched
//! LU, triangular solve and matrix product.

use crate::element::{ArithElement, ComplexElement, Element, FloatElement, InexactElement};
use crate::libs::blas::GemmElement;
use crate::{Complex32, Complex64};
use cudarc::cublas::sys as cb;
use cudarc::cusolver::sys;
use std::ffi::c_int;

mod sealed {
    pub trait Sealed {}
}

/// Element types of the linear algebra functions ([`crate::linalg`]): `f32`, `f64`,
/// [`Complex32`] and [`Complex64`], through cuSOLVER's single- and double-precision real
/// and complex routines.
///
/// `Spectral` is the type of singular values and of the eigenvalues of symmetric or
/// Hermitian matrices (the type itself for real types, the part type for complex ones);
/// `Complex` is the type of the eigenvalues and eigenvectors of general matrices
/// ([`eig`](crate::linalg::eig)): the complex type of the same precision.
pub trait SolverElement:
    GemmElement
    + InexactElement
    + ArithElement<Real = <Self as SolverElement>::Spectral>
    + Element<Sum = Self, Mean = Self>
    + sealed::Sealed
{
    /// The real type of singular values and eigenvalues.
    type Spectral: SolverElement<Spectral = Self::Spectral> + FloatElement;
    /// The complex type of the same precision (the type itself for complex types).
    type Complex: SolverElement<Spectral = Self::Spectral> + ComplexElement<Real = Self::Spectral>;
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
    ($t:ty, $s:ty, $c:ty, $cuda:ident, orgqr: $orgqr:ident, $orgqr_bs:ident, gesvdj: $gesvdj:ident,
     $gesvdj_bs:ident, gesvdj_batched: $gesvdjb:ident, $gesvdjb_bs:ident,
     syevj_batched: $syevjb:ident, $syevjb_bs:ident, potrf_batched: $potrfb:ident,
     getrf_batched: $getrfb:ident, getrs_batched: $getrsb:ident,
     trsm_batched: $trsmb:ident, gemm: $gemm:ident) => {
        impl sealed::Sealed for $t {}
        impl SolverElement for $t {
            type Spectral = $s;
            type Complex = $c;
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
                unsafe { sys::$orgqr_bs(h, m, n, k, a.cast(), lda, tau.cast(), lwork) }
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
                unsafe {
                    sys::$orgqr(
                        h,
                        m,
                        n,
                        k,
                        a.cast(),
                        lda,
                        tau.cast(),
                        work.cast(),
                        lwork,
                        info,
                    )
                }
            }
            unsafe fn gesvdj_buffer_size(
                h: sys::cusolverDnHandle_t,
                jobz: sys::cusolverEigMode_t,
                econ: c_int,
                m: c_int,
                n: c_int,
                a: *const $t,
                lda: c_int,
                s: *const $s,
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
                        h,
                        jobz,
                        econ,
                        m,
                        n,
                        a.cast(),
                        lda,
                        s,
                        u.cast(),
                        ldu,
                        v.cast(),
                        ldv,
                        lwork,
                        params,
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
                s: *mut $s,
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
                        h,
                        jobz,
                        econ,
                        m,
                        n,
                        a.cast(),
                        lda,
                        s,
                        u.cast(),
                        ldu,
                        v.cast(),
                        ldv,
                        work.cast(),
                        lwork,
                        info,
                        params,
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
                s: *const $s,
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
                        h,
                        jobz,
                        m,
                        n,
                        a.cast(),
                        lda,
                        s,
                        u.cast(),
                        ldu,
                        v.cast(),
                        ldv,
                        lwork,
                        params,
                        batch,
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
                s: *mut $s,
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
                        h,
                        jobz,
                        m,
                        n,
                        a.cast(),
                        lda,
                        s,
                        u.cast(),
                        ldu,
                        v.cast(),
                        ldv,
                        work.cast(),
                        lwork,
                        info,
                        params,
                        batch,
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
                w: *const $s,
                lwork: *mut c_int,
                params: sys::syevjInfo_t,
                batch: c_int,
            ) -> sys::cusolverStatus_t {
                // SAFETY: the caller's contract.
                unsafe { sys::$syevjb_bs(h, jobz, uplo, n, a.cast(), lda, w, lwork, params, batch) }
            }
            unsafe fn syevj_batched(
                h: sys::cusolverDnHandle_t,
                jobz: sys::cusolverEigMode_t,
                uplo: sys::cublasFillMode_t,
                n: c_int,
                a: *mut $t,
                lda: c_int,
                w: *mut $s,
                work: *mut $t,
                lwork: c_int,
                info: *mut c_int,
                params: sys::syevjInfo_t,
                batch: c_int,
            ) -> sys::cusolverStatus_t {
                // SAFETY: the caller's contract.
                unsafe {
                    sys::$syevjb(
                        h,
                        jobz,
                        uplo,
                        n,
                        a.cast(),
                        lda,
                        w,
                        work.cast(),
                        lwork,
                        info,
                        params,
                        batch,
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
                unsafe { sys::$potrfb(h, uplo, n, a.cast(), lda, info, batch) }
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
                unsafe { cb::$getrfb(h, n, a.cast(), lda, piv, info, batch) }
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
                unsafe {
                    cb::$getrsb(
                        h,
                        trans,
                        n,
                        nrhs,
                        a.cast(),
                        lda,
                        piv,
                        b.cast(),
                        ldb,
                        info,
                        batch,
                    )
                }
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
                let one = <$t as Element>::ONE;
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
                        (&one as *const $t).cast(),
                        a.cast(),
                        lda,
                        b.cast(),
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
                let (alpha, beta) = (
                    <$t as Element>::from_f64(alpha),
                    <$t as Element>::from_f64(beta),
                );
                let nn = cb::cublasOperation_t::CUBLAS_OP_N;
                // SAFETY: the caller's contract; alpha and beta outlive the call.
                unsafe {
                    cb::$gemm(
                        h,
                        nn,
                        nn,
                        m,
                        n,
                        k,
                        (&alpha as *const $t).cast(),
                        a.0.cast(),
                        a.1,
                        b.0.cast(),
                        b.1,
                        (&beta as *const $t).cast(),
                        c.0.cast(),
                        c.1,
                    )
                }
            }
        }
    };
}

solver_element!(f32, f32, Complex32, CUDA_R_32F, orgqr: cusolverDnSorgqr, cusolverDnSorgqr_bufferSize,
    gesvdj: cusolverDnSgesvdj, cusolverDnSgesvdj_bufferSize,
    gesvdj_batched: cusolverDnSgesvdjBatched, cusolverDnSgesvdjBatched_bufferSize,
    syevj_batched: cusolverDnSsyevjBatched, cusolverDnSsyevjBatched_bufferSize,
    potrf_batched: cusolverDnSpotrfBatched,
    getrf_batched: cublasSgetrfBatched, getrs_batched: cublasSgetrsBatched,
    trsm_batched: cublasStrsmBatched, gemm: cublasSgemm_v2);
solver_element!(f64, f64, Complex64, CUDA_R_64F, orgqr: cusolverDnDorgqr, cusolverDnDorgqr_bufferSize,
    gesvdj: cusolverDnDgesvdj, cusolverDnDgesvdj_bufferSize,
    gesvdj_batched: cusolverDnDgesvdjBatched, cusolverDnDgesvdjBatched_bufferSize,
    syevj_batched: cusolverDnDsyevjBatched, cusolverDnDsyevjBatched_bufferSize,
    potrf_batched: cusolverDnDpotrfBatched,
    getrf_batched: cublasDgetrfBatched, getrs_batched: cublasDgetrsBatched,
    trsm_batched: cublasDtrsmBatched, gemm: cublasDgemm_v2);
solver_element!(Complex32, f32, Complex32, CUDA_C_32F, orgqr: cusolverDnCungqr, cusolverDnCungqr_bufferSize,
    gesvdj: cusolverDnCgesvdj, cusolverDnCgesvdj_bufferSize,
    gesvdj_batched: cusolverDnCgesvdjBatched, cusolverDnCgesvdjBatched_bufferSize,
    syevj_batched: cusolverDnCheevjBatched, cusolverDnCheevjBatched_bufferSize,
    potrf_batched: cusolverDnCpotrfBatched,
    getrf_batched: cublasCgetrfBatched, getrs_batched: cublasCgetrsBatched,
    trsm_batched: cublasCtrsmBatched, gemm: cublasCgemm_v2);
solver_element!(Complex64, f64, Complex64, CUDA_C_64F, orgqr: cusolverDnZungqr, cusolverDnZungqr_bufferSize,
    gesvdj: cusolverDnZgesvdj, cusolverDnZgesvdj_bufferSize,
    gesvdj_batched: cusolverDnZgesvdjBatched, cusolverDnZgesvdjBatched_bufferSize,
    syevj_batched: cusolverDnZheevjBatched, cusolverDnZheevjBatched_bufferSize,
    potrf_batched: cusolverDnZpotrfBatched,
    getrf_batched: cublasZgetrfBatched, getrs_batched: cublasZgetrsBatched,
    trsm_batched: cublasZtrsmBatched, gemm: cublasZgemm_v2);
