//! QR: `Xgeqrf` and `orgqr` (forming `Q`).

use super::{check, elements, i64_of, int, Dn, SolverElement};
use crate::libs::Workspace;
use crate::Result;
use cudarc::cusolver::sys;
use cudarc::driver::sys::CUdeviceptr;
use std::ffi::{c_int, c_void};

impl Dn<'_> {
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
}
