//! Cholesky: `Xpotrf` and `potrfBatched`.

use super::{check, fill, i64_of, int, Dn, SolverElement};
use crate::libs::Workspace;
use crate::Result;
use cudarc::cusolver::sys;
use cudarc::driver::sys::CUdeviceptr;
use std::ffi::{c_int, c_void};

impl Dn<'_> {
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
}
