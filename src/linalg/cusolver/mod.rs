//! cuSOLVER (dense): the per-device handle, the element types it factorises
//! ([`SolverElement`]) and safe wrappers of cuarray's own around the `sys` calls cuarray
//! makes. cudarc 0.19 gives cuSOLVER a handle type only; every solver call is `unsafe` in
//! `cudarc::cusolver::sys`, so each one used is wrapped here once, generic over the
//! element type.
//!
//! - Large single matrices use the 64-bit API (`cusolverDnX*`: `Xgetrf`/`Xgetrs`,
//!   `Xpotrf`, `Xgeqrf`, `Xgesvd`, `Xgesvdp`, `Xsyevd`, `Xgeev`), whose kernels are the fastest
//!   cuSOLVER has (PyTorch's `Xpotrf` runs twice as fast as CuPy's `Dpotrf`); they take
//!   the element type as a `cudaDataType`, so one generic wrapper serves every type.
//! - Routines without a 64-bit form (`orgqr`, the Jacobi SVD and eigensolvers, the
//!   batched Cholesky) and cuBLAS's batched LU (`getrfBatched`/`getrsBatched`) are typed:
//!   [`SolverElement`] maps each to its `S`/`D`/`C`/`Z` entry point.
//!
//! Device workspaces come from the memory pool ([`Workspace`]), host workspaces are a
//! `Vec` (cuSOLVER uses them during the call only). The handle is a device extension,
//! bound to the stream of the call, like cuBLAS's.
//!
//! The wrappers are grouped by routine family: `lu` (with cuBLAS's batched LU, triangular
//! solve and matrix product), `cholesky`, `qr`, `svd`, `eigh` and `geev`; `element` maps each type
//! to its typed entry points.

mod cholesky;
mod eigh;
mod element;
mod geev;
mod lu;
mod qr;
mod svd;

pub use element::SolverElement;
pub(crate) use lu::{gemm_nn, getrf_batched, getrs_batched, trsm_batched};

use crate::device::probe::{require, Lib};
use crate::libs::{with_handle, LibraryHandle, Workspace};
use crate::{Device, Error, Result};
use cudarc::cublas::sys as cb;
use cudarc::cusolver::sys;
use cudarc::driver::CudaStream;
use std::ffi::c_int;
use std::sync::Arc;

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
        self.set_getrf_algorithm(crate::tuning::getrf_algorithm())
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
}
