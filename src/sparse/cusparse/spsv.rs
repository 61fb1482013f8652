//! Sparse triangular solves (cuSPARSE's `SpSV`).

use super::{
    check, op, with_handle, CsrRef, DnVec, SpMat, SparseElement, SparseHandle, SparseIndex,
};
use crate::libs::Workspace;
use crate::{Device, Result};
use cudarc::cusparse::sys;
use std::ffi::c_void;

/// An `SpSV` descriptor, destroyed when dropped.
struct SpsvDescr(sys::cusparseSpSVDescr_t);

impl Drop for SpsvDescr {
    fn drop(&mut self) {
        // SAFETY: created by `cusparseSpSV_createDescr`, destroyed once.
        let _ = unsafe { sys::cusparseSpSV_destroyDescr(self.0) };
    }
}

/// Solves `op(a) y = x` for the triangle of `a` that `lower` names (the other entries are
/// not read), with ones on the diagonal when `unit_diagonal` (the stored diagonal is not
/// read), once for each `(x, y)` pair in `pairs` (each with its own analysis), on
/// `device`'s stream. `op` is the transpose when `transpose`.
///
/// # Safety
/// `a` addresses a valid square CSR structure (offsets monotone from 0 to `nnz`, column
/// indices below `cols`); every `x` and `y` addresses `rows` elements on `device`; all
/// stay alive until the calls are queued.
pub(crate) unsafe fn spsv<T: SparseElement, I: SparseIndex>(
    device: &Device,
    a: &CsrRef,
    lower: bool,
    unit_diagonal: bool,
    transpose: bool,
    pairs: &[(u64, u64)],
) -> Result<()> {
    with_handle::<SparseHandle, _>(device, |h| {
        let sa = SpMat::csr::<T, I>(a)?;
        let mut fill = if lower {
            sys::cusparseFillMode_t::CUSPARSE_FILL_MODE_LOWER
        } else {
            sys::cusparseFillMode_t::CUSPARSE_FILL_MODE_UPPER
        };
        let mut diag = if unit_diagonal {
            sys::cusparseDiagType_t::CUSPARSE_DIAG_TYPE_UNIT
        } else {
            sys::cusparseDiagType_t::CUSPARSE_DIAG_TYPE_NON_UNIT
        };
        check(
            // SAFETY: the attribute's value is a `cusparseFillMode_t` of its size.
            unsafe {
                sys::cusparseSpMatSetAttribute(
                    sa.0,
                    sys::cusparseSpMatAttribute_t::CUSPARSE_SPMAT_FILL_MODE,
                    &mut fill as *mut _ as *mut c_void,
                    std::mem::size_of_val(&fill),
                )
            },
            "cusparseSpMatSetAttribute",
        )?;
        check(
            // SAFETY: the attribute's value is a `cusparseDiagType_t` of its size.
            unsafe {
                sys::cusparseSpMatSetAttribute(
                    sa.0,
                    sys::cusparseSpMatAttribute_t::CUSPARSE_SPMAT_DIAG_TYPE,
                    &mut diag as *mut _ as *mut c_void,
                    std::mem::size_of_val(&diag),
                )
            },
            "cusparseSpMatSetAttribute",
        )?;
        let alpha = T::ONE;
        let alg = sys::cusparseSpSVAlg_t::CUSPARSE_SPSV_ALG_DEFAULT;
        for &(x, y) in pairs {
            let vx = DnVec::new::<T>(a.rows, x)?;
            let vy = DnVec::new::<T>(a.rows, y)?;
            let mut d = std::ptr::null_mut();
            check(
                // SAFETY: writes a new descriptor into `d`.
                unsafe { sys::cusparseSpSV_createDescr(&mut d) },
                "cusparseSpSV_createDescr",
            )?;
            let descr = SpsvDescr(d);
            let mut bytes = 0usize;
            check(
                // SAFETY: a size query over live descriptors; `alpha` is a host scalar of
                // the compute type (the handle's pointer mode is host).
                unsafe {
                    sys::cusparseSpSV_bufferSize(
                        h.handle,
                        op(transpose),
                        &alpha as *const T as *const c_void,
                        sa.0,
                        vx.0,
                        vy.0,
                        T::SPARSE_TYPE,
                        alg,
                        descr.0,
                        &mut bytes,
                    )
                },
                "cusparseSpSV_bufferSize",
            )?;
            let ws = Workspace::new(device, bytes, 0)?;
            check(
                // SAFETY: the caller's contract; the buffer holds the size queried and
                // lives (stream-ordered) past the solve below.
                unsafe {
                    sys::cusparseSpSV_analysis(
                        h.handle,
                        op(transpose),
                        &alpha as *const T as *const c_void,
                        sa.0,
                        vx.0,
                        vy.0,
                        T::SPARSE_TYPE,
                        alg,
                        descr.0,
                        ws.device_ptr(),
                    )
                },
                "cusparseSpSV_analysis",
            )?;
            check(
                // SAFETY: as the analysis, with the same descriptors.
                unsafe {
                    sys::cusparseSpSV_solve(
                        h.handle,
                        op(transpose),
                        &alpha as *const T as *const c_void,
                        sa.0,
                        vx.0,
                        vy.0,
                        T::SPARSE_TYPE,
                        alg,
                        descr.0,
                    )
                },
                "cusparseSpSV_solve",
            )?;
        }
        Ok(())
    })
}
