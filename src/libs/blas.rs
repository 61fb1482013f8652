//! cuBLAS: the per-device handle and the element types matrix products support.

use super::{with_handle, LibraryHandle};
use crate::device::probe::{require, Lib};
use crate::device::DeviceBuffer;
use crate::element::{Complex32, Complex64, Element};
use crate::{Device, Error, Result};
use cudarc::cublas::{result as cb, sys};
use cudarc::driver::sys::CUdeviceptr;
use cudarc::driver::CudaStream;
use half::{bf16, f16};
use std::sync::Arc;

mod sealed {
    pub trait Sealed {}
}

/// Element types with a cuBLAS matrix product: `f32`, `f64` (sgemm/dgemm kernels),
/// `f16` and `bf16` (tensor cores, accumulating in `f32`), [`Complex32`] and
/// [`Complex64`] (cgemm/zgemm, cgemv/zgemv). Integer matmul does not compile.
pub trait GemmElement: Element + sealed::Sealed {
    /// cuBLAS's name for the type.
    #[doc(hidden)]
    const CUDA_TYPE: sys::cudaDataType;
    /// The type `alpha` and `beta` are passed in.
    #[doc(hidden)]
    type Scale: Copy;
    #[doc(hidden)]
    const SCALE_ONE: Self::Scale;
    #[doc(hidden)]
    const SCALE_ZERO: Self::Scale;
    /// The accumulation (compute) type, given the TF32 setting.
    #[doc(hidden)]
    fn compute_type(tf32: bool) -> sys::cublasComputeType_t;
    /// cuBLAS's typed matrix-vector product (`?gemv`) for this type, if it has one.
    ///
    /// # Safety
    /// As [`Blas::gemm`]'s: the pointers address the matrix and vectors `g` describes.
    #[doc(hidden)]
    unsafe fn gemv(_handle: sys::cublasHandle_t, _g: &Gemv) -> Option<sys::cublasStatus_t> {
        None
    }
    /// cuBLAS's typed single product (`?gemm`, no TF32) for this type, if it has one: a
    /// lighter host path than `cublasGemmEx`.
    ///
    /// # Safety
    /// As [`Blas::gemm`]'s: the pointers address the matrices `g` describes.
    #[doc(hidden)]
    unsafe fn gemm(_handle: sys::cublasHandle_t, _g: &Gemm) -> Option<sys::cublasStatus_t> {
        None
    }
    /// cuBLAS's triangular solve (`?trsm`, α = 1) for this type, if it has one.
    ///
    /// # Safety
    /// As [`Blas::trsm`]'s: the pointers address the matrices `t` describes.
    #[doc(hidden)]
    unsafe fn trsm(_handle: sys::cublasHandle_t, _t: &Trsm) -> Option<sys::cublasStatus_t> {
        None
    }
    /// cuBLAS's Euclidean norm (`?nrm2`) of `n` elements at `x` (stride 1), written as a
    /// real of the type's precision at the device address `out`, if the type has one.
    ///
    /// # Safety
    /// `x` addresses `n` elements and `out` one real on the handle's device; the handle is
    /// in device pointer mode.
    #[doc(hidden)]
    unsafe fn nrm2(
        _handle: sys::cublasHandle_t,
        _n: i32,
        _x: CUdeviceptr,
        _out: CUdeviceptr,
    ) -> Option<sys::cublasStatus_t> {
        None
    }
}

/// The arguments of a typed `?trsm` call (α = 1): `X op(A) = B` (side right) or
/// `op(A) X = B` (side left), `B` overwritten by `X`.
#[doc(hidden)]
pub struct Trsm {
    pub(crate) side: sys::cublasSideMode_t,
    pub(crate) uplo: sys::cublasFillMode_t,
    pub(crate) trans: sys::cublasOperation_t,
    pub(crate) diag: sys::cublasDiagType_t,
    pub(crate) mn: (i32, i32),
    pub(crate) a: (CUdeviceptr, i32),
    pub(crate) b: (CUdeviceptr, i32),
}

/// The arguments of a typed `?gemv` call, `y = α op(A) x + β y` (real α and β).
#[doc(hidden)]
pub struct Gemv {
    trans: sys::cublasOperation_t,
    rows: i32,
    cols: i32,
    a: (CUdeviceptr, i32),
    x: (CUdeviceptr, i32),
    y: (CUdeviceptr, i32),
    scale: (f64, f64),
}

/// The arguments of a typed `?gemm` call (α = 1, β = 0).
#[doc(hidden)]
pub struct Gemm {
    trans: (sys::cublasOperation_t, sys::cublasOperation_t),
    mnk: (i32, i32, i32),
    a: (CUdeviceptr, i32),
    b: (CUdeviceptr, i32),
    c: (CUdeviceptr, i32),
}

macro_rules! gemm_element {
    ($t:ty, $cuda:ident, $scale:ty, $one:expr, $zero:expr, |$tf32:ident| $compute:expr
     $(, typed: $gemv:ident, $gemm:ident, $trsm:ident, $nrm2:ident)?) => {
        impl sealed::Sealed for $t {}
        impl GemmElement for $t {
            const CUDA_TYPE: sys::cudaDataType = sys::cudaDataType::$cuda;
            type Scale = $scale;
            const SCALE_ONE: $scale = $one;
            const SCALE_ZERO: $scale = $zero;
            fn compute_type($tf32: bool) -> sys::cublasComputeType_t {
                $compute
            }
            $(
            unsafe fn gemv(handle: sys::cublasHandle_t, g: &Gemv) -> Option<sys::cublasStatus_t> {
                let of = |v: f64| -> $t { <$t as num_traits::FromPrimitive>::from_f64(v).unwrap_or($zero) };
                let (alpha, beta) = (of(g.scale.0), of(g.scale.1));
                // SAFETY: the caller's contract; alpha and beta outlive the call.
                Some(unsafe {
                    sys::$gemv(
                        handle, g.trans, g.rows, g.cols, &alpha as *const $t as *const _,
                        g.a.0 as *const _, g.a.1, g.x.0 as *const _, g.x.1,
                        &beta as *const $t as *const _, g.y.0 as *mut _, g.y.1,
                    )
                })
            }
            unsafe fn nrm2(
                handle: sys::cublasHandle_t,
                n: i32,
                x: CUdeviceptr,
                out: CUdeviceptr,
            ) -> Option<sys::cublasStatus_t> {
                // SAFETY: the caller's contract (device pointer mode, live buffers).
                Some(unsafe { sys::$nrm2(handle, n, x as *const _, 1, out as *mut _) })
            }
            unsafe fn gemm(handle: sys::cublasHandle_t, g: &Gemm) -> Option<sys::cublasStatus_t> {
                let (one, zero): ($t, $t) = ($one, $zero);
                // SAFETY: the caller's contract; alpha and beta outlive the call.
                Some(unsafe {
                    sys::$gemm(
                        handle, g.trans.0, g.trans.1, g.mnk.0, g.mnk.1, g.mnk.2,
                        &one as *const $t as *const _, g.a.0 as *const _, g.a.1,
                        g.b.0 as *const _, g.b.1, &zero as *const $t as *const _,
                        g.c.0 as *mut _, g.c.1,
                    )
                })
            }
            unsafe fn trsm(handle: sys::cublasHandle_t, t: &Trsm) -> Option<sys::cublasStatus_t> {
                let one: $t = $one;
                // SAFETY: the caller's contract; alpha outlives the call.
                Some(unsafe {
                    sys::$trsm(
                        handle, t.side, t.uplo, t.trans, t.diag, t.mn.0, t.mn.1,
                        &one as *const $t as *const _, t.a.0 as *const _, t.a.1,
                        t.b.0 as *mut _, t.b.1,
                    )
                })
            }
            )?
        }
    };
}
use sys::cublasComputeType_t as Ct;
gemm_element!(f32, CUDA_R_32F, f32, 1.0, 0.0, |tf32| if tf32 {
    Ct::CUBLAS_COMPUTE_32F_FAST_TF32
} else {
    Ct::CUBLAS_COMPUTE_32F
}, typed: cublasSgemv_v2, cublasSgemm_v2, cublasStrsm_v2, cublasSnrm2_v2);
gemm_element!(f64, CUDA_R_64F, f64, 1.0, 0.0, |_tf32| {
    Ct::CUBLAS_COMPUTE_64F
}, typed: cublasDgemv_v2, cublasDgemm_v2, cublasDtrsm_v2, cublasDnrm2_v2);
// Complex: cgemm/zgemm and cgemv/zgemv (num-complex's layout is cuComplex's: two parts,
// real first); no conjugation (NumPy's matmul transposes only).
gemm_element!(Complex32, CUDA_C_32F, Complex32, Complex32::new(1.0, 0.0), Complex32::new(0.0, 0.0), |tf32| if tf32 {
    Ct::CUBLAS_COMPUTE_32F_FAST_TF32
} else {
    Ct::CUBLAS_COMPUTE_32F
}, typed: cublasCgemv_v2, cublasCgemm_v2, cublasCtrsm_v2, cublasScnrm2_v2);
gemm_element!(Complex64, CUDA_C_64F, Complex64, Complex64::new(1.0, 0.0), Complex64::new(0.0, 0.0), |_tf32| {
    Ct::CUBLAS_COMPUTE_64F
}, typed: cublasZgemv_v2, cublasZgemm_v2, cublasZtrsm_v2, cublasDznrm2_v2);
// f16: products accumulated in f32, as `CUBLAS_COMPUTE_32F`, but through
// `CUBLAS_COMPUTE_32F_FAST_16F`, whose "down-conversion" of the inputs is a no-op for f16
// inputs and for which cuBLAS picks other kernels: on an H200, 8192^3 on standard-normal
// inputs 660 -> 730 TFLOP/s with the same error (CuPy's f16 matmul asks for the same
// through `CUBLAS_TENSOR_OP_MATH`). bf16 stays on `CUBLAS_COMPUTE_32F`: `_FAST_16BF` was
// slower there (683-749 against 734-768).
gemm_element!(f16, CUDA_R_16F, f32, 1.0, 0.0, |_tf32| {
    Ct::CUBLAS_COMPUTE_32F_FAST_16F
});
gemm_element!(bf16, CUDA_R_16BF, f32, 1.0, 0.0, |_tf32| {
    Ct::CUBLAS_COMPUTE_32F
});

/// Workspace given to cuBLAS (as PyTorch does on Hopper).
pub(crate) const WORKSPACE: usize = 32 << 20;

/// A cuBLAS handle, bound to the stream of the last call; each call sets a workspace
/// taken from the pool (`with_blas`).
pub(crate) struct Blas {
    handle: sys::cublasHandle_t,
    stream: Arc<CudaStream>,
}

// SAFETY: the handle is only used under the device's mutex (one thread at a time).
unsafe impl Send for Blas {}

impl Drop for Blas {
    fn drop(&mut self) {
        // SAFETY: the handle was created by `create_handle` and is destroyed once.
        let _ = unsafe { cb::destroy_handle(self.handle) };
    }
}

fn blas_err(op: &'static str) -> impl FnOnce(cb::CublasError) -> Error {
    move |e| Error::Cublas {
        op,
        msg: format!("{:?}", e.0),
    }
}

impl LibraryHandle for Blas {
    // Not yet in graphs: the handle's workspace would have to outlive every graph.
    const OP: &'static str = "matmul (cuBLAS)";
    const CAPTURABLE: bool = false;

    fn create(device: &Device) -> Result<Blas> {
        require(Lib::Cublas)?;
        device.bind()?;
        let handle = cb::create_handle().map_err(blas_err("creating the cuBLAS handle"))?;
        let blas = Blas {
            handle,
            stream: device.cuda_stream().clone(),
        };
        // SAFETY: the stream belongs to the device's context, current on this thread.
        unsafe { cb::set_stream(handle, device.cu_stream() as _) }
            .map_err(blas_err("cublasSetStream"))?;
        Ok(blas)
    }

    fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    fn set_stream(&mut self, stream: &Arc<CudaStream>) -> Result<()> {
        // SAFETY: the stream belongs to the handle's context, current on this thread.
        unsafe { cb::set_stream(self.handle, stream.cu_stream() as _) }
            .map_err(blas_err("cublasSetStream"))?;
        self.stream = stream.clone();
        Ok(())
    }
}

/// Runs `f` with `device`'s cuBLAS handle (created on first use) bound to the device's
/// stream, holding the handle's lock.
pub(crate) fn with_blas<R>(device: &Device, f: impl FnOnce(&Blas) -> Result<R>) -> Result<R> {
    with_handle::<Blas, R>(device, |b| {
        // The call's workspace: a pool block on the handle's stream, handed back to the
        // pool after the call in that stream's order (cached for the next call; not in
        // use between calls, so `free_all_blocks` can return it to the driver).
        let workspace = DeviceBuffer::alloc(device, WORKSPACE)?;
        // SAFETY: the workspace is WORKSPACE bytes of device memory on the handle's
        // device that stay allocated until the calls `f` queues on the handle's stream
        // are done (its reuse is ordered after them on that stream); every call sets its
        // own workspace before any cuBLAS routine runs.
        unsafe {
            sys::cublasSetWorkspace_v2(b.handle, workspace.device_ptr() as *mut _, WORKSPACE)
        }
        .result()
        .map_err(blas_err("cublasSetWorkspace"))?;
        f(b)
    })
}

impl Blas {
    /// The triangular solve `t` describes, through the type's `?trsm`.
    ///
    /// # Safety
    /// `t`'s pointers must address device memory on the handle's device holding the
    /// triangular matrix and the right-hand sides its dimensions and leading dimensions
    /// describe.
    pub(crate) unsafe fn trsm<T: GemmElement>(&self, t: &Trsm) -> Result<()> {
        // SAFETY: the caller's guarantee.
        match unsafe { T::trsm(self.handle, t) } {
            Some(status) => status.result().map_err(blas_err("cublasTrsm")),
            None => Err(Error::invalid(
                "solve_triangular",
                format!("no cuBLAS triangular solve for {}", T::DTYPE),
            )),
        }
    }

    /// `y = α op(A) x + β y` for the column-major `rows x cols` matrix `A` (leading
    /// dimension `lda`); `trans` is `A`, its transpose or its conjugate transpose.
    ///
    /// # Safety
    /// `a`, `x` and `y` address device memory holding the matrix and the vectors (at the
    /// strides given) on the handle's device.
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn gemv<T: GemmElement>(
        &self,
        trans: sys::cublasOperation_t,
        (rows, cols): (usize, usize),
        (a, lda): (CUdeviceptr, usize),
        (x, incx): (CUdeviceptr, usize),
        (y, incy): (CUdeviceptr, usize),
        scale: (f64, f64),
    ) -> Result<()> {
        let int = |v: usize| {
            i32::try_from(v)
                .map_err(|_| Error::invalid("gemv", format!("{v} exceeds cuBLAS's 32-bit limit")))
        };
        let g = Gemv {
            trans,
            rows: int(rows)?,
            cols: int(cols)?,
            a: (a, int(lda)?),
            x: (x, int(incx)?),
            y: (y, int(incy)?),
            scale,
        };
        // SAFETY: the caller's guarantee.
        match unsafe { T::gemv(self.handle, &g) } {
            Some(status) => status.result().map_err(blas_err("cublasGemv")),
            None => Err(Error::invalid(
                "gemv",
                format!("no cuBLAS gemv for {:?}", T::DTYPE),
            )),
        }
    }

    /// `‖x‖₂` of `n` contiguous elements at `x`, written (a real of the type's precision)
    /// at the device address `out`, without waiting for the GPU.
    ///
    /// # Safety
    /// `x` addresses `n` elements and `out` one real on the handle's device.
    pub(crate) unsafe fn nrm2_to_device<T: GemmElement>(
        &self,
        n: usize,
        x: CUdeviceptr,
        out: CUdeviceptr,
    ) -> Result<()> {
        let n = i32::try_from(n)
            .map_err(|_| Error::invalid("nrm2", format!("{n} exceeds cuBLAS's 32-bit limit")))?;
        let mode = |m| {
            // SAFETY: a setting of the live handle.
            unsafe { sys::cublasSetPointerMode_v2(self.handle, m) }
                .result()
                .map_err(blas_err("cublasSetPointerMode"))
        };
        mode(sys::cublasPointerMode_t::CUBLAS_POINTER_MODE_DEVICE)?;
        // SAFETY: the caller's guarantee; the handle is in device pointer mode until the
        // line after.
        let status = unsafe { T::nrm2(self.handle, n, x, out) };
        mode(sys::cublasPointerMode_t::CUBLAS_POINTER_MODE_HOST)?;
        match status {
            Some(status) => status.result().map_err(blas_err("cublasNrm2")),
            None => Err(Error::invalid(
                "nrm2",
                format!("no cuBLAS nrm2 for {:?}", T::DTYPE),
            )),
        }
    }

    /// The raw handle, for the typed batched LU calls of `linalg::cusolver` (used under the
    /// same lock and stream binding as every call here).
    pub(crate) fn raw(&self) -> sys::cublasHandle_t {
        self.handle
    }

    /// `C = op(A) op(B)` for `count` products at the given strides (column-major view).
    ///
    /// # Safety
    /// Every pointer must address device memory holding the matrices the dimensions,
    /// leading dimensions and strides describe, on the handle's device.
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn gemm<T: GemmElement>(
        &self,
        tf32: bool,
        (ta, tb): (bool, bool),
        (m, n, k): (usize, usize, usize),
        (a, lda, sa): (CUdeviceptr, usize, isize),
        (b, ldb, sb): (CUdeviceptr, usize, isize),
        (c, ldc, sc): (CUdeviceptr, usize, isize),
        count: usize,
    ) -> Result<()> {
        let int = |v: usize| {
            i32::try_from(v).map_err(|_| {
                Error::invalid(
                    "matmul",
                    format!("dimension {v} exceeds cuBLAS's 32-bit limit"),
                )
            })
        };
        let op = |t: bool| {
            if t {
                sys::cublasOperation_t::CUBLAS_OP_T
            } else {
                sys::cublasOperation_t::CUBLAS_OP_N
            }
        };
        let (one, zero) = (T::SCALE_ONE, T::SCALE_ZERO);
        let alpha = &one as *const T::Scale as *const std::ffi::c_void;
        let beta = &zero as *const T::Scale as *const std::ffi::c_void;
        let algo = sys::cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT;
        if count == 1 && (m == 1 || n == 1) {
            // A matrix-vector product: cuBLAS's gemv where the type has one (memory-bound,
            // no tensor cores).
            // n == 1: c = op(A) b.  m == 1: cᵀ = op(B)ᵀ op(A)ᵀ, the vector being A's row.
            let (trans, shape, (mat, ld), (x, incx), incy) = if n == 1 {
                (
                    op(ta),
                    if ta { (k, m) } else { (m, k) },
                    (a, lda),
                    (b, if tb { ldb } else { 1 }),
                    1,
                )
            } else {
                (
                    op(!tb),
                    if tb { (n, k) } else { (k, n) },
                    (b, ldb),
                    (a, if ta { 1 } else { lda }),
                    ldc,
                )
            };
            let g = Gemv {
                trans,
                rows: int(shape.0)?,
                cols: int(shape.1)?,
                a: (mat, int(ld)?),
                x: (x, int(incx)?),
                y: (c, int(incy)?),
                scale: (1.0, 0.0),
            };
            // SAFETY: as for gemm (the caller's guarantee): the matrix is `shape` with
            // leading dimension `ld`, the vectors are read and written at the strides the
            // gemm operands describe.
            if let Some(status) = unsafe { T::gemv(self.handle, &g) } {
                return status.result().map_err(blas_err("cublasGemv"));
            }
        }
        if count == 1 && !tf32 {
            let g = Gemm {
                trans: (op(ta), op(tb)),
                mnk: (int(m)?, int(n)?, int(k)?),
                a: (a, int(lda)?),
                b: (b, int(ldb)?),
                c: (c, int(ldc)?),
            };
            // SAFETY: the caller's guarantee.
            if let Some(status) = unsafe { T::gemm(self.handle, &g) } {
                return status.result().map_err(blas_err("cublasGemm"));
            }
        }
        // SAFETY: guaranteed by the caller; alpha and beta live on this stack frame
        // through the call (cuBLAS reads host scalars before returning).
        unsafe {
            if count == 1 {
                cb::gemm_ex(
                    self.handle,
                    op(ta),
                    op(tb),
                    int(m)?,
                    int(n)?,
                    int(k)?,
                    alpha,
                    a as *const _,
                    T::CUDA_TYPE,
                    int(lda)?,
                    b as *const _,
                    T::CUDA_TYPE,
                    int(ldb)?,
                    beta,
                    c as *mut _,
                    T::CUDA_TYPE,
                    int(ldc)?,
                    T::compute_type(tf32),
                    algo,
                )
            } else {
                cb::gemm_strided_batched_ex(
                    self.handle,
                    op(ta),
                    op(tb),
                    int(m)?,
                    int(n)?,
                    int(k)?,
                    alpha,
                    a as *const _,
                    T::CUDA_TYPE,
                    int(lda)?,
                    sa as i64,
                    b as *const _,
                    T::CUDA_TYPE,
                    int(ldb)?,
                    sb as i64,
                    beta,
                    c as *mut _,
                    T::CUDA_TYPE,
                    int(ldc)?,
                    sc as i64,
                    int(count)?,
                    T::compute_type(tf32),
                    algo,
                )
            }
        }
        .map_err(blas_err("cublasGemmEx"))
    }
}
