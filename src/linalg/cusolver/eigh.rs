//! Symmetric eigenvalues: divide and conquer (`Xsyevd`) and the batched Jacobi method
//! (`syevjBatched`).

use super::{check, eig_mode, elements, fill, i64_of, int, Dn, SolverElement};
use crate::libs::Workspace;
use crate::Result;
use cudarc::cusolver::sys;
use cudarc::driver::sys::CUdeviceptr;
use std::ffi::{c_int, c_void};

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

impl Dn<'_> {
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
