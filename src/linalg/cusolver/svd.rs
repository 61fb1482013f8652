//! The SVD: the Jacobi method (`gesvdj`, `gesvdjBatched`), the QR method (`Xgesvd`) and the
//! polar decomposition (`Xgesvdp`).

use super::{check, eig_mode, elements, i64_of, int, Dn, SolverElement};
use crate::libs::Workspace;
use crate::Result;
use cudarc::cusolver::sys;
use cudarc::driver::sys::CUdeviceptr;
use std::ffi::{c_int, c_void};

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

impl Dn<'_> {
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
}
