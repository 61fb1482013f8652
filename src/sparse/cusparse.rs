//! cuSPARSE: the per-device handle, the element and index types of its generic API
//! ([`SparseElement`], [`SparseIndex`]) and safe wrappers of cuarray's own around the
//! `sys` calls cuarray makes (cudarc 0.19 has no safe layer for cuSPARSE).
//!
//! Every product goes through cuSPARSE's generic API (`cusparseSpMV`, `cusparseSpMM`,
//! `cusparseSparseToDense`): the matrix and vector descriptors are host objects created
//! for the call and destroyed when it is queued (creating one only records pointers and
//! sizes), and the external buffer each call asks for is a [`Workspace`] from the
//! device's memory pool, given back in stream order. The handle is a device extension,
//! bound to the stream of the call, like cuBLAS's and cuSOLVER's.

use crate::device::probe::{require, Lib};
use crate::element::{ArithElement, Complex32, Complex64, IntElement};
use crate::libs::{with_handle, LibraryHandle, Workspace};
use crate::{Device, Error, Result};
use cudarc::cusparse::sys;
use cudarc::driver::CudaStream;
use std::ffi::c_void;
use std::sync::Arc;

/// An element type cuSPARSE's generic API computes with: `f32`, `f64`, [`Complex32`] and
/// [`Complex64`].
pub trait SparseElement: ArithElement + std::ops::Add<Output = Self> {
    #[doc(hidden)]
    const SPARSE_TYPE: sys::cudaDataType;
}

macro_rules! sparse_element {
    ($($t:ty => $c:ident),*) => {$(
        impl SparseElement for $t {
            const SPARSE_TYPE: sys::cudaDataType = sys::cudaDataType::$c;
        }
    )*};
}
sparse_element!(f32 => CUDA_R_32F, f64 => CUDA_R_64F, Complex32 => CUDA_C_32F, Complex64 => CUDA_C_64F);

/// An index type of a sparse matrix's structure: `i32` (the default, half the memory
/// traffic) or `i64` (more than 2^31 - 1 nonzeros or columns).
pub trait SparseIndex: IntElement {
    #[doc(hidden)]
    const INDEX_TYPE: sys::cusparseIndexType_t;
    #[doc(hidden)]
    const MAX: usize;
}

impl SparseIndex for i32 {
    const INDEX_TYPE: sys::cusparseIndexType_t = sys::cusparseIndexType_t::CUSPARSE_INDEX_32I;
    const MAX: usize = i32::MAX as usize;
}

impl SparseIndex for i64 {
    const INDEX_TYPE: sys::cusparseIndexType_t = sys::cusparseIndexType_t::CUSPARSE_INDEX_64I;
    const MAX: usize = i64::MAX as usize;
}

/// `Ok` for `CUSPARSE_STATUS_SUCCESS`, else [`Error::Cusparse`] naming `op`.
fn check(status: sys::cusparseStatus_t, op: &'static str) -> Result<()> {
    if status == sys::cusparseStatus_t::CUSPARSE_STATUS_SUCCESS {
        Ok(())
    } else {
        Err(Error::Cusparse {
            op,
            msg: format!("{status:?}"),
        })
    }
}

fn i64_of(v: usize) -> i64 {
    // Sizes of allocated arrays are at most isize::MAX.
    v as i64
}

/// A cuSPARSE handle bound to the stream of the last call (kept in a device extension).
pub(crate) struct SparseHandle {
    handle: sys::cusparseHandle_t,
    stream: Arc<CudaStream>,
}

// SAFETY: the handle is only used under the device's handle mutex (one thread at a time).
unsafe impl Send for SparseHandle {}

impl Drop for SparseHandle {
    fn drop(&mut self) {
        // SAFETY: created in `create` and destroyed once.
        let _ = unsafe { sys::cusparseDestroy(self.handle) };
    }
}

impl LibraryHandle for SparseHandle {
    const OP: &'static str = "sparse matrices (cuSPARSE)";
    const CAPTURABLE: bool = true;

    fn create(device: &Device) -> Result<Self> {
        require(Lib::Cusparse)?;
        device.bind()?;
        let mut handle = std::ptr::null_mut();
        check(
            // SAFETY: writes a new handle into `handle`; the context is current.
            unsafe { sys::cusparseCreate(&mut handle) },
            "creating the cuSPARSE handle",
        )?;
        let mut h = SparseHandle {
            handle,
            stream: device.cuda_stream().clone(),
        };
        let stream = device.cuda_stream().clone();
        h.set_stream(&stream)?;
        Ok(h)
    }

    fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    fn set_stream(&mut self, stream: &Arc<CudaStream>) -> Result<()> {
        check(
            // SAFETY: the stream belongs to the handle's context, current on this thread.
            unsafe { sys::cusparseSetStream(self.handle, stream.cu_stream() as _) },
            "cusparseSetStream",
        )?;
        self.stream = stream.clone();
        Ok(())
    }
}

/// A CSR matrix as cuSPARSE sees it: `rows x cols` with `nnz` stored entries, the device
/// addresses of its row offsets (`rows + 1`), column indices and values (`nnz` each).
#[derive(Clone, Copy, Debug)]
pub(crate) struct CsrRef {
    pub(crate) rows: usize,
    pub(crate) cols: usize,
    pub(crate) nnz: usize,
    pub(crate) indptr: u64,
    pub(crate) indices: u64,
    pub(crate) data: u64,
}

/// A sparse matrix descriptor, destroyed when dropped.
struct SpMat(sys::cusparseSpMatDescr_t);

impl SpMat {
    fn csr<T: SparseElement, I: SparseIndex>(a: &CsrRef) -> Result<Self> {
        let mut d = std::ptr::null_mut();
        check(
            // SAFETY: records sizes and device addresses that outlive the call (the caller
            // holds the arrays); nothing is read here.
            unsafe {
                sys::cusparseCreateCsr(
                    &mut d,
                    i64_of(a.rows),
                    i64_of(a.cols),
                    i64_of(a.nnz),
                    a.indptr as *mut c_void,
                    a.indices as *mut c_void,
                    a.data as *mut c_void,
                    I::INDEX_TYPE,
                    I::INDEX_TYPE,
                    sys::cusparseIndexBase_t::CUSPARSE_INDEX_BASE_ZERO,
                    T::SPARSE_TYPE,
                )
            },
            "cusparseCreateCsr",
        )?;
        Ok(SpMat(d))
    }
}

impl Drop for SpMat {
    fn drop(&mut self) {
        // SAFETY: created by `cusparseCreateCsr`, destroyed once.
        let _ = unsafe { sys::cusparseDestroySpMat(self.0) };
    }
}

/// A dense vector descriptor, destroyed when dropped.
struct DnVec(sys::cusparseDnVecDescr_t);

impl DnVec {
    fn new<T: SparseElement>(len: usize, ptr: u64) -> Result<Self> {
        let mut d = std::ptr::null_mut();
        check(
            // SAFETY: records a size and a device address; nothing is read here.
            unsafe {
                sys::cusparseCreateDnVec(&mut d, i64_of(len), ptr as *mut c_void, T::SPARSE_TYPE)
            },
            "cusparseCreateDnVec",
        )?;
        Ok(DnVec(d))
    }
}

impl Drop for DnVec {
    fn drop(&mut self) {
        // SAFETY: created by `cusparseCreateDnVec`, destroyed once.
        let _ = unsafe { sys::cusparseDestroyDnVec(self.0) };
    }
}

/// A dense matrix descriptor (row- or column-major), destroyed when dropped.
struct DnMat(sys::cusparseDnMatDescr_t);

impl DnMat {
    fn row_major<T: SparseElement>(rows: usize, cols: usize, ptr: u64) -> Result<Self> {
        Self::new::<T>(rows, cols, ptr, false)
    }

    /// `rows x cols` at `ptr`, rows contiguous (leading dimension `cols`) or, with
    /// `column_major`, columns contiguous (leading dimension `rows`).
    fn new<T: SparseElement>(
        rows: usize,
        cols: usize,
        ptr: u64,
        column_major: bool,
    ) -> Result<Self> {
        let mut d = std::ptr::null_mut();
        let (ld, order) = if column_major {
            (rows, sys::cusparseOrder_t::CUSPARSE_ORDER_COL)
        } else {
            (cols, sys::cusparseOrder_t::CUSPARSE_ORDER_ROW)
        };
        check(
            // SAFETY: records sizes and a device address; nothing is read here.
            unsafe {
                sys::cusparseCreateDnMat(
                    &mut d,
                    i64_of(rows),
                    i64_of(cols),
                    i64_of(ld.max(1)),
                    ptr as *mut c_void,
                    T::SPARSE_TYPE,
                    order,
                )
            },
            "cusparseCreateDnMat",
        )?;
        Ok(DnMat(d))
    }
}

impl Drop for DnMat {
    fn drop(&mut self) {
        // SAFETY: created by `cusparseCreateDnMat`, destroyed once.
        let _ = unsafe { sys::cusparseDestroyDnMat(self.0) };
    }
}

fn op(transpose: bool) -> sys::cusparseOperation_t {
    if transpose {
        sys::cusparseOperation_t::CUSPARSE_OPERATION_TRANSPOSE
    } else {
        sys::cusparseOperation_t::CUSPARSE_OPERATION_NON_TRANSPOSE
    }
}

/// `y = op(a) x` (`op` the transpose when `transpose`) on `device`'s stream.
///
/// # Safety
/// `a` addresses a valid CSR structure of its sizes (offsets monotone from 0 to `nnz`,
/// column indices below `cols`), `x` and `y` device memory of `op(a)`'s column and row
/// counts, all on `device` and alive until the call is queued.
pub(crate) unsafe fn spmv<T: SparseElement, I: SparseIndex>(
    device: &Device,
    a: &CsrRef,
    transpose: bool,
    x: u64,
    y: u64,
) -> Result<()> {
    let (xn, yn) = if transpose {
        (a.rows, a.cols)
    } else {
        (a.cols, a.rows)
    };
    with_handle::<SparseHandle, _>(device, |h| {
        let sa = SpMat::csr::<T, I>(a)?;
        let vx = DnVec::new::<T>(xn, x)?;
        let vy = DnVec::new::<T>(yn, y)?;
        let (alpha, beta) = (T::ONE, T::ZERO);
        let alg = sys::cusparseSpMVAlg_t::CUSPARSE_SPMV_ALG_DEFAULT;
        let mut bytes = 0usize;
        check(
            // SAFETY: a size query over live descriptors; `alpha`/`beta` are host scalars
            // of the compute type (the handle's default pointer mode is host).
            unsafe {
                sys::cusparseSpMV_bufferSize(
                    h.handle,
                    op(transpose),
                    &alpha as *const T as *const c_void,
                    sa.0,
                    vx.0,
                    &beta as *const T as *const c_void,
                    vy.0,
                    T::SPARSE_TYPE,
                    alg,
                    &mut bytes,
                )
            },
            "cusparseSpMV_bufferSize",
        )?;
        let ws = Workspace::new(device, bytes, 0)?;
        check(
            // SAFETY: the caller's contract; the buffer holds the size queried.
            unsafe {
                sys::cusparseSpMV(
                    h.handle,
                    op(transpose),
                    &alpha as *const T as *const c_void,
                    sa.0,
                    vx.0,
                    &beta as *const T as *const c_void,
                    vy.0,
                    T::SPARSE_TYPE,
                    alg,
                    ws.device_ptr(),
                )
            },
            "cusparseSpMV",
        )
    })
}

/// `c = op(a) b` for dense `b` (`op(a)`'s columns x `k`) and `c` (`op(a)`'s rows x `k`),
/// both row-major or, with `column_major`, both column-major, on `device`'s stream.
///
/// # Safety
/// As [`spmv`], with `b` and `c` device memory of those sizes.
pub(crate) unsafe fn spmm<T: SparseElement, I: SparseIndex>(
    device: &Device,
    a: &CsrRef,
    transpose: bool,
    k: usize,
    (b, c): (u64, u64),
    column_major: bool,
) -> Result<()> {
    let (bn, cn) = if transpose {
        (a.rows, a.cols)
    } else {
        (a.cols, a.rows)
    };
    with_handle::<SparseHandle, _>(device, |h| {
        let sa = SpMat::csr::<T, I>(a)?;
        let mb = DnMat::new::<T>(bn, k, b, column_major)?;
        let mc = DnMat::new::<T>(cn, k, c, column_major)?;
        let (alpha, beta) = (T::ONE, T::ZERO);
        let alg = sys::cusparseSpMMAlg_t::CUSPARSE_SPMM_ALG_DEFAULT;
        let opb = sys::cusparseOperation_t::CUSPARSE_OPERATION_NON_TRANSPOSE;
        let mut bytes = 0usize;
        check(
            // SAFETY: a size query over live descriptors; host scalars of the compute type.
            unsafe {
                sys::cusparseSpMM_bufferSize(
                    h.handle,
                    op(transpose),
                    opb,
                    &alpha as *const T as *const c_void,
                    sa.0,
                    mb.0,
                    &beta as *const T as *const c_void,
                    mc.0,
                    T::SPARSE_TYPE,
                    alg,
                    &mut bytes,
                )
            },
            "cusparseSpMM_bufferSize",
        )?;
        let ws = Workspace::new(device, bytes, 0)?;
        check(
            // SAFETY: the caller's contract; the buffer holds the size queried.
            unsafe {
                sys::cusparseSpMM(
                    h.handle,
                    op(transpose),
                    opb,
                    &alpha as *const T as *const c_void,
                    sa.0,
                    mb.0,
                    &beta as *const T as *const c_void,
                    mc.0,
                    T::SPARSE_TYPE,
                    alg,
                    ws.device_ptr(),
                )
            },
            "cusparseSpMM",
        )
    })
}

/// Writes `a` into the row-major dense `rows x cols` matrix at `out` (every element).
///
/// # Safety
/// As [`spmv`], with `out` device memory of `rows * cols` elements.
pub(crate) unsafe fn to_dense<T: SparseElement, I: SparseIndex>(
    device: &Device,
    a: &CsrRef,
    out: u64,
) -> Result<()> {
    with_handle::<SparseHandle, _>(device, |h| {
        let sa = SpMat::csr::<T, I>(a)?;
        let md = DnMat::row_major::<T>(a.rows, a.cols, out)?;
        let alg = sys::cusparseSparseToDenseAlg_t::CUSPARSE_SPARSETODENSE_ALG_DEFAULT;
        let mut bytes = 0usize;
        check(
            // SAFETY: a size query over live descriptors.
            unsafe { sys::cusparseSparseToDense_bufferSize(h.handle, sa.0, md.0, alg, &mut bytes) },
            "cusparseSparseToDense_bufferSize",
        )?;
        let ws = Workspace::new(device, bytes, 0)?;
        check(
            // SAFETY: the caller's contract; the buffer holds the size queried.
            unsafe { sys::cusparseSparseToDense(h.handle, sa.0, md.0, alg, ws.device_ptr()) },
            "cusparseSparseToDense",
        )
    })
}

/// The CSR form of the row-major dense `rows x cols` matrix at `dense` (cuSPARSE's
/// `DenseToSparse`): writes the `rows + 1` offsets at `indptr`, then calls `alloc` with
/// the number of nonzeros for the addresses of the column indices and values (arrays
/// it keeps alive), and fills them. Reading the count back waits for the analysis.
///
/// # Safety
/// `dense` addresses `rows * cols` elements and `indptr` `rows + 1` indices of type `I`
/// on `device`; `alloc` returns addresses of that many entries on `device`.
pub(crate) unsafe fn dense_to_csr<T: SparseElement, I: SparseIndex>(
    device: &Device,
    (rows, cols): (usize, usize),
    dense: u64,
    indptr: u64,
    alloc: impl FnOnce(usize) -> Result<(u64, u64)>,
) -> Result<usize> {
    with_handle::<SparseHandle, _>(device, |h| {
        let a = CsrRef {
            rows,
            cols,
            nnz: 0,
            indptr,
            indices: 0,
            data: 0,
        };
        let sa = SpMat::csr::<T, I>(&a)?;
        let md = DnMat::row_major::<T>(rows, cols, dense)?;
        let alg = sys::cusparseDenseToSparseAlg_t::CUSPARSE_DENSETOSPARSE_ALG_DEFAULT;
        let mut bytes = 0usize;
        check(
            // SAFETY: a size query over live descriptors.
            unsafe { sys::cusparseDenseToSparse_bufferSize(h.handle, md.0, sa.0, alg, &mut bytes) },
            "cusparseDenseToSparse_bufferSize",
        )?;
        let ws = Workspace::new(device, bytes, 0)?;
        check(
            // SAFETY: the caller's contract; writes the row offsets at `indptr`.
            unsafe {
                sys::cusparseDenseToSparse_analysis(h.handle, md.0, sa.0, alg, ws.device_ptr())
            },
            "cusparseDenseToSparse_analysis",
        )?;
        let (mut r, mut c, mut nnz) = (0i64, 0i64, 0i64);
        check(
            // SAFETY: reads the descriptor's sizes into three host integers.
            unsafe { sys::cusparseSpMatGetSize(sa.0, &mut r, &mut c, &mut nnz) },
            "cusparseSpMatGetSize",
        )?;
        let nnz = nnz.max(0) as usize;
        let (indices, data) = alloc(nnz)?;
        check(
            // SAFETY: `alloc`'s arrays hold `nnz` entries each and outlive the call.
            unsafe {
                sys::cusparseCsrSetPointers(
                    sa.0,
                    indptr as *mut c_void,
                    indices as *mut c_void,
                    data as *mut c_void,
                )
            },
            "cusparseCsrSetPointers",
        )?;
        check(
            // SAFETY: as above; the workspace is the one the analysis used.
            unsafe {
                sys::cusparseDenseToSparse_convert(h.handle, md.0, sa.0, alg, ws.device_ptr())
            },
            "cusparseDenseToSparse_convert",
        )?;
        Ok(nnz)
    })
}

/// A SpGEMM descriptor, destroyed when dropped.
struct SpGemmDescr(sys::cusparseSpGEMMDescr_t);

impl SpGemmDescr {
    fn new() -> Result<Self> {
        let mut d = std::ptr::null_mut();
        check(
            // SAFETY: writes a new descriptor into `d`.
            unsafe { sys::cusparseSpGEMM_createDescr(&mut d) },
            "cusparseSpGEMM_createDescr",
        )?;
        Ok(SpGemmDescr(d))
    }
}

impl Drop for SpGemmDescr {
    fn drop(&mut self) {
        // SAFETY: created by `cusparseSpGEMM_createDescr`, destroyed once.
        let _ = unsafe { sys::cusparseSpGEMM_destroyDescr(self.0) };
    }
}

/// `c = a b` for CSR `a` (`rows x k`) and `b` (`k x cols`), both with at least one
/// entry (cuSPARSE's `SpGEMM`, default algorithm): writes the `rows + 1` offsets of `c`
/// at `c_indptr`, then calls `alloc` with the product's number of entries for the
/// addresses of its column indices and values (arrays it keeps alive), and fills them.
/// Reading the count back waits for the device; both workspaces come from the pool.
///
/// # Safety
/// `a` and `b` address valid CSR structures of their sizes on `device` with
/// `a.cols == b.rows`; `c_indptr` addresses `a.rows + 1` indices of type `I`; `alloc`
/// returns addresses of that many entries on `device`.
pub(crate) unsafe fn spgemm<T: SparseElement, I: SparseIndex>(
    device: &Device,
    a: &CsrRef,
    b: &CsrRef,
    c_indptr: u64,
    alloc: impl FnOnce(usize) -> Result<(u64, u64)>,
) -> Result<usize> {
    with_handle::<SparseHandle, _>(device, |h| {
        let sa = SpMat::csr::<T, I>(a)?;
        let sb = SpMat::csr::<T, I>(b)?;
        let c = CsrRef {
            rows: a.rows,
            cols: b.cols,
            nnz: 0,
            indptr: c_indptr,
            indices: 0,
            data: 0,
        };
        let sc = SpMat::csr::<T, I>(&c)?;
        let desc = SpGemmDescr::new()?;
        let (alpha, beta) = (T::ONE, T::ZERO);
        let (pa, pb) = (
            &alpha as *const T as *const c_void,
            &beta as *const T as *const c_void,
        );
        let n = op(false);
        let alg = sys::cusparseSpGEMMAlg_t::CUSPARSE_SPGEMM_DEFAULT;
        let mut bytes1 = 0usize;
        let estimate = |bytes: &mut usize, buf: *mut c_void| {
            check(
                // SAFETY: live descriptors over the caller's arrays; host scalars of the
                // compute type; `buf` is null (a size query) or holds `bytes` and lives
                // until the last call is queued.
                unsafe {
                    sys::cusparseSpGEMM_workEstimation(
                        h.handle,
                        n,
                        n,
                        pa,
                        sa.0,
                        sb.0,
                        pb,
                        sc.0,
                        T::SPARSE_TYPE,
                        alg,
                        desc.0,
                        bytes,
                        buf,
                    )
                },
                "cusparseSpGEMM_workEstimation",
            )
        };
        estimate(&mut bytes1, std::ptr::null_mut())?;
        let ws1 = Workspace::new(device, bytes1, 0)?;
        estimate(&mut bytes1, ws1.device_ptr())?;
        let compute = |bytes: &mut usize, buf: *mut c_void| {
            check(
                // SAFETY: as in `estimate`; the work estimation has run.
                unsafe {
                    sys::cusparseSpGEMM_compute(
                        h.handle,
                        n,
                        n,
                        pa,
                        sa.0,
                        sb.0,
                        pb,
                        sc.0,
                        T::SPARSE_TYPE,
                        alg,
                        desc.0,
                        bytes,
                        buf,
                    )
                },
                "cusparseSpGEMM_compute",
            )
        };
        let mut bytes2 = 0usize;
        compute(&mut bytes2, std::ptr::null_mut())?;
        let ws2 = Workspace::new(device, bytes2, 0)?;
        compute(&mut bytes2, ws2.device_ptr())?;
        let (mut r, mut cc, mut nnz) = (0i64, 0i64, 0i64);
        check(
            // SAFETY: reads the descriptor's sizes into three host integers.
            unsafe { sys::cusparseSpMatGetSize(sc.0, &mut r, &mut cc, &mut nnz) },
            "cusparseSpMatGetSize",
        )?;
        let nnz = nnz.max(0) as usize;
        let (indices, data) = alloc(nnz)?;
        check(
            // SAFETY: `alloc`'s arrays hold `nnz` entries each and outlive the call.
            unsafe {
                sys::cusparseCsrSetPointers(
                    sc.0,
                    c_indptr as *mut c_void,
                    indices as *mut c_void,
                    data as *mut c_void,
                )
            },
            "cusparseCsrSetPointers",
        )?;
        check(
            // SAFETY: as above; the descriptor holds the computed product.
            unsafe {
                sys::cusparseSpGEMM_copy(
                    h.handle,
                    n,
                    n,
                    pa,
                    sa.0,
                    sb.0,
                    pb,
                    sc.0,
                    T::SPARSE_TYPE,
                    alg,
                    desc.0,
                )
            },
            "cusparseSpGEMM_copy",
        )?;
        drop((ws1, ws2));
        Ok(nnz)
    })
}

mod spsv;
pub(crate) use spsv::spsv;
