//! Eigenvalues and right eigenvectors of general matrices (`Xgeev`).

use super::{check, eig_mode, i64_of, Dn, SolverElement};
use crate::libs::Workspace;
use crate::Result;
use cudarc::cusolver::sys;
use cudarc::driver::sys::CUdeviceptr;
use std::ffi::{c_int, c_void};

/// The data types of one `Xgeev` call for `T`: `A` and `VR` of `T`, `W` of `T::Complex`
/// (for real `T`, cuSOLVER returns both eigenvalues of a conjugate pair and keeps
/// LAPACK's real eigenvector format), computed in `T`.
fn types<T: SolverElement>() -> (sys::cudaDataType, sys::cudaDataType) {
    (T::SOLVER_TYPE, <T::Complex as SolverElement>::SOLVER_TYPE)
}

impl Dn<'_> {
    /// The workspace of [`geev`](Self::geev).
    pub(crate) fn geev_workspace<T: SolverElement>(
        &self,
        vectors: bool,
        n: usize,
        (a, w, vr): (CUdeviceptr, CUdeviceptr, CUdeviceptr),
    ) -> Result<Workspace> {
        let (t, c) = types::<T>();
        let ld = i64_of(n.max(1));
        let (mut d, mut h) = (0usize, 0usize);
        check(
            // SAFETY: a size query; the pointers are those of the call.
            unsafe {
                sys::cusolverDnXgeev_bufferSize(
                    self.handle,
                    self.params,
                    eig_mode(false),
                    eig_mode(vectors),
                    i64_of(n),
                    t,
                    a as *const c_void,
                    ld,
                    c,
                    w as *const c_void,
                    t,
                    std::ptr::null(),
                    ld,
                    t,
                    vr as *const c_void,
                    ld,
                    t,
                    &mut d,
                    &mut h,
                )
            },
            "cusolverDnXgeev_bufferSize",
        )?;
        self.workspace(d, h)
    }

    /// The eigenvalues (at `w`, `n` values of `T::Complex`) and, with `vectors`, the right
    /// eigenvectors (at `vr`, column-major `n x n` of `T`: for real `T` in LAPACK's format,
    /// a conjugate pair `w[j]`, `w[j + 1]` (positive imaginary part first) stored as the
    /// real and imaginary parts in columns `j` and `j + 1`) of the column-major `n x n`
    /// matrix at `a` (destroyed). `info > 0`: the QR algorithm did not converge.
    ///
    /// # Safety
    /// The pointers address device memory of those sizes on the handle's device (`vr` may
    /// be any address without `vectors`).
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn geev<T: SolverElement>(
        &self,
        vectors: bool,
        n: usize,
        (a, w, vr): (CUdeviceptr, CUdeviceptr, CUdeviceptr),
        ws: &mut Workspace,
        info: CUdeviceptr,
    ) -> Result<()> {
        let (t, c) = types::<T>();
        let ld = i64_of(n.max(1));
        let (dws, dbytes, hws, hbytes) = (
            ws.device_ptr(),
            ws.device_bytes(),
            ws.host_ptr(),
            ws.host_bytes(),
        );
        check(
            // SAFETY: the caller's contract; the workspace holds the sizes queried; no
            // left eigenvectors are asked for, so `VL` is never touched.
            unsafe {
                sys::cusolverDnXgeev(
                    self.handle,
                    self.params,
                    eig_mode(false),
                    eig_mode(vectors),
                    i64_of(n),
                    t,
                    a as *mut c_void,
                    ld,
                    c,
                    w as *mut c_void,
                    t,
                    std::ptr::null_mut(),
                    ld,
                    t,
                    vr as *mut c_void,
                    ld,
                    t,
                    dws,
                    dbytes,
                    hws,
                    hbytes,
                    info as *mut c_int,
                )
            },
            "cusolverDnXgeev",
        )
    }
}
