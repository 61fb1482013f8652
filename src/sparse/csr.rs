//! [`CsrMatrix`] and [`CscMatrix`]: device arrays of a compressed structure, their checked
//! constructors, conversions and products (cuSPARSE's generic API).

use super::assemble::{check_lengths, check_parts, csr_from_triplets};
use super::cusparse::{self, CsrRef, SparseElement, SparseIndex};
use crate::array::same_device;
use crate::{s, Device, DeviceArray, Error, Result};

/// A sparse matrix in compressed sparse row form (SciPy's `csr_matrix`): row `i`'s
/// entries are `data[indptr[i]..indptr[i + 1]]` in columns `indices[..]` of the same
/// range. Element type `T` is `f32`, `f64`, `Complex32` or `Complex64`; index type `I`
/// is `i32` (the default) or `i64`.
///
/// The three arrays live on one device and are shared by clones and by [`t`](Self::t)
/// (no copy).
///
/// ```no_run
/// use cuarray::{sparse::CsrMatrix, Device, DeviceArray};
/// let dev = Device::new(0)?;
/// // [[1, 0, 2], [0, 0, 3]]
/// let a = CsrMatrix::from_triplets(&dev, &[0, 0, 1], &[0, 2, 2], &[1.0f64, 2.0, 3.0], (2, 3))?;
/// let x = DeviceArray::from_slice(&dev, &[1.0, 1.0, 1.0])?;
/// assert_eq!(a.matvec(&x)?.to_host()?, vec![3.0, 3.0]);
/// # Ok::<(), cuarray::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct CsrMatrix<T: SparseElement, I: SparseIndex = i32> {
    pub(super) indptr: DeviceArray<I>,
    pub(super) indices: DeviceArray<I>,
    pub(super) data: DeviceArray<T>,
    pub(super) shape: (usize, usize),
    /// Columns known sorted within each row without duplicates.
    pub(super) canonical: bool,
}

/// A sparse matrix in compressed sparse column form (SciPy's `csc_matrix`): column `j`'s
/// entries are `data[indptr[j]..indptr[j + 1]]` in rows `indices[..]`. It has the
/// arrays of the CSR form of its transpose, and [`t`](Self::t) turns one into the other
/// without a copy.
#[derive(Clone, Debug)]
pub struct CscMatrix<T: SparseElement, I: SparseIndex = i32> {
    /// The CSR form of the transpose (shape reversed).
    pub(super) inner: CsrMatrix<T, I>,
}

fn index_of<I: SparseIndex>(v: usize) -> I {
    I::from_u64_wrapping(v as u64)
}

impl<T: SparseElement, I: SparseIndex> CsrMatrix<T, I> {
    /// The `(m, n)` matrix with `vals[k]` at `(rows[k], cols[k])`, assembled on the host
    /// (indices sorted within each row, duplicates summed, as SciPy's
    /// `coo_matrix((vals, (rows, cols)), shape).tocsr()`), then copied to `device`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the three lengths differ, an index is negative or
    /// out of range, or the matrix does not fit the index type.
    pub fn from_triplets(
        device: &Device,
        rows: &[I],
        cols: &[I],
        vals: &[T],
        shape: (usize, usize),
    ) -> Result<Self> {
        const OP: &str = "CsrMatrix::from_triplets";
        let r: Vec<i64> = rows.iter().map(|v| v.to_i64_wrapping()).collect();
        let c: Vec<i64> = cols.iter().map(|v| v.to_i64_wrapping()).collect();
        let h = csr_from_triplets(OP, shape, &r, &c, vals)?;
        check_lengths(
            OP,
            shape,
            h.indptr.len(),
            h.indices.len(),
            h.data.len(),
            I::MAX,
        )?;
        let indptr: Vec<I> = h.indptr.iter().map(|&v| index_of(v)).collect();
        let indices: Vec<I> = h.indices.iter().map(|&v| index_of(v)).collect();
        Ok(CsrMatrix {
            indptr: DeviceArray::from_slice(device, &indptr)?,
            indices: DeviceArray::from_slice(device, &indices)?,
            data: DeviceArray::from_slice(device, &h.data)?,
            shape,
            canonical: true,
        })
    }

    /// The `(m, n)` matrix of the device arrays `indptr` (`m + 1` row offsets),
    /// `indices` (column of each entry) and `data`, checked on the device: `indptr` starts
    /// at 0, never decreases and ends at `data`'s length, and every column index is in
    /// `0..n`. The structure need not be sorted within rows (SciPy's non-canonical form);
    /// whether it is sorted without duplicates is checked too
    /// ([`has_canonical_format`](Self::has_canonical_format)). Non-contiguous arrays are
    /// copied; contiguous ones are shared.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming what is wrong (a length, the first or last
    /// offset, a decreasing `indptr`, an index out of range);
    /// [`Error::DeviceMismatch`] when the arrays are on different devices.
    pub fn from_parts(
        indptr: &DeviceArray<I>,
        indices: &DeviceArray<I>,
        data: &DeviceArray<T>,
        shape: (usize, usize),
    ) -> Result<Self> {
        const OP: &str = "CsrMatrix::from_parts";
        check_parts(
            OP,
            [
                ("indptr", indptr.ndim(), indptr.device()),
                ("indices", indices.ndim(), indices.device()),
                ("data", data.ndim(), data.device()),
            ],
        )?;
        let (m, n) = shape;
        check_lengths(
            OP,
            shape,
            indptr.size(),
            indices.size(),
            data.size(),
            I::MAX,
        )?;
        let nnz = data.size();
        let ends = indptr.slice(s![0..1])?.to_host()?[0].to_i64_wrapping();
        let last = indptr.slice(s![m..m + 1])?.to_host()?[0].to_i64_wrapping();
        if ends != 0 {
            return Err(Error::invalid(
                OP,
                format!("indptr[0] must be 0, got {ends}"),
            ));
        }
        if last != nnz as i64 {
            return Err(Error::invalid(
                OP,
                format!("indptr[m] = {last} must equal the number of entries {nnz}"),
            ));
        }
        if m > 0 && indptr.diff(1, 0)?.lt(I::ZERO)?.any()?.to_scalar()? {
            return Err(Error::invalid(OP, "indptr must not decrease"));
        }
        if nnz > 0 {
            let low = indices.lt(I::ZERO)?.any()?;
            let high = indices.ge(index_of::<I>(n))?.any()?;
            if low.to_scalar()? || high.to_scalar()? {
                return Err(Error::invalid(
                    OP,
                    format!("an entry of indices is outside 0..{n}"),
                ));
            }
        }
        let mut a = CsrMatrix {
            indptr: indptr.contiguous()?,
            indices: indices.contiguous()?,
            data: data.contiguous()?,
            shape,
            canonical: false,
        };
        a.canonical = a.triplets()?.is_canonical()?;
        Ok(a)
    }

    /// The sparse form of the 2-D array `a`: its nonzero entries, in row order
    /// (cuSPARSE's `DenseToSparse`). Reading the number of nonzeros back waits for the
    /// device once, so this is not for a CUDA graph capture.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `a` is not 2-D or does not fit the index type;
    /// cuSPARSE's error.
    pub fn from_dense(a: &DeviceArray<T>) -> Result<Self> {
        const OP: &str = "CsrMatrix::from_dense";
        if a.ndim() != 2 {
            return Err(Error::invalid(
                OP,
                format!("needs a 2-D array, got shape {:?}", a.shape()),
            ));
        }
        let (m, n) = (a.shape()[0], a.shape()[1]);
        let dev = a.device();
        check_lengths(OP, (m, n), m + 1, 0, 0, I::MAX)?;
        if m == 0 || n == 0 {
            return Ok(CsrMatrix {
                indptr: DeviceArray::zeros(dev, &[m + 1])?,
                indices: DeviceArray::zeros(dev, &[0])?,
                data: DeviceArray::zeros(dev, &[0])?,
                shape: (m, n),
                canonical: true,
            });
        }
        let a = a.contiguous()?;
        let indptr = DeviceArray::<I>::alloc_for(OP, dev, &[m + 1])?;
        let (ap, _ab) = a.library_ptr(OP, dev)?;
        let (pp, _pb) = indptr.library_ptr(OP, dev)?;
        let mut parts = None;
        // SAFETY: `a` holds m * n contiguous elements, `indptr` m + 1 indices; the arrays
        // `alloc` makes are kept in `parts` (and their buffers until the call is queued).
        unsafe {
            cusparse::dense_to_csr::<T, I>(dev, (m, n), ap, pp, |nnz| {
                check_lengths(OP, (m, n), m + 1, nnz, nnz, I::MAX)?;
                let indices = DeviceArray::<I>::alloc_for(OP, dev, &[nnz])?;
                let data = DeviceArray::<T>::alloc_for(OP, dev, &[nnz])?;
                let (ip, ib) = indices.library_ptr(OP, dev)?;
                let (dp, db) = data.library_ptr(OP, dev)?;
                parts = Some((indices, data, ib, db));
                Ok((ip, dp))
            })?;
        }
        let (indices, data, _ib, _db) =
            parts.ok_or_else(|| Error::invalid(OP, "cuSPARSE returned no structure"))?;
        Ok(CsrMatrix {
            indptr,
            indices,
            data,
            shape: (m, n),
            canonical: true,
        })
    }

    /// The dense `(m, n)` array (cuSPARSE's `SparseToDense`; duplicates are summed).
    ///
    /// # Errors
    /// [`Error::LibraryNotFound`] without cuSPARSE, or cuSPARSE's error.
    pub fn to_dense(&self) -> Result<DeviceArray<T>> {
        const OP: &str = "CsrMatrix::to_dense";
        let (m, n) = self.shape;
        if m == 0 || n == 0 || self.nnz() == 0 {
            return DeviceArray::zeros(self.device(), &[m, n]);
        }
        let out = DeviceArray::<T>::alloc_for(OP, self.device(), &[m, n])?;
        let (a, _keep) = self.library_ref(OP)?;
        let (o, _ob) = out.library_ptr(OP, self.device())?;
        // SAFETY: `a` is a structure checked at construction, `out` holds m * n elements;
        // all are kept alive until the call is queued.
        unsafe { cusparse::to_dense::<T, I>(self.device(), &a, o)? };
        Ok(out)
    }

    /// The three arrays copied to the host: `(indptr, indices, data)`.
    ///
    /// # Errors
    /// A failed copy.
    pub fn to_host(&self) -> Result<(Vec<I>, Vec<I>, Vec<T>)> {
        Ok((
            self.indptr.to_host()?,
            self.indices.to_host()?,
            self.data.to_host()?,
        ))
    }

    /// The shape `(m, n)`.
    pub fn shape(&self) -> (usize, usize) {
        self.shape
    }

    /// The number of stored entries (duplicates and explicit zeros included).
    pub fn nnz(&self) -> usize {
        self.data.size()
    }

    /// The row offsets (`m + 1` entries).
    pub fn indptr(&self) -> &DeviceArray<I> {
        &self.indptr
    }

    /// The column index of each stored entry.
    pub fn indices(&self) -> &DeviceArray<I> {
        &self.indices
    }

    /// The stored values.
    pub fn data(&self) -> &DeviceArray<T> {
        &self.data
    }

    /// The device holding the arrays.
    pub fn device(&self) -> &Device {
        self.data.device()
    }

    /// The transpose as a [`CscMatrix`] sharing the arrays (no copy).
    pub fn t(&self) -> CscMatrix<T, I> {
        CscMatrix {
            inner: self.clone(),
        }
    }

    /// `A x` for a 1-D `x` of `n` elements (cuSPARSE's `SpMV`): a new array of `m`.
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] when `x` is not 1-D of length `n`;
    /// [`Error::DeviceMismatch`] across devices; cuSPARSE's error.
    pub fn matvec(&self, x: &DeviceArray<T>) -> Result<DeviceArray<T>> {
        self.product("CsrMatrix::matvec", false, x)
    }

    /// `A B` for a 2-D `b` of `n` rows (cuSPARSE's `SpMM`): a new `(m, k)` array, in
    /// Fortran order as CuPy's (SpMM runs column-major: a C-order `b` is transposed once,
    /// a Fortran-order one is read in place).
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] when `b` is not 2-D with `n` rows;
    /// [`Error::DeviceMismatch`] across devices; cuSPARSE's error.
    pub fn matmul(&self, b: &DeviceArray<T>) -> Result<DeviceArray<T>> {
        self.product("CsrMatrix::matmul", false, b)
    }

    /// The structure as cuSPARSE sees it, and the arrays to keep alive for the call.
    pub(super) fn library_ref(
        &self,
        op: &'static str,
    ) -> Result<(CsrRef, [std::sync::Arc<crate::device::DeviceBuffer>; 3])> {
        let dev = self.device();
        let (p, pb) = self.indptr.library_ptr(op, dev)?;
        let (i, ib) = self.indices.library_ptr(op, dev)?;
        let (d, db) = self.data.library_ptr(op, dev)?;
        let r = CsrRef {
            rows: self.shape.0,
            cols: self.shape.1,
            nnz: self.nnz(),
            indptr: p,
            indices: i,
            data: d,
        };
        Ok((r, [pb, ib, db]))
    }

    /// `op(A) x` (1-D `x`: SpMV) or `op(A) B` (2-D: SpMM), `op` the transpose when
    /// `transpose`.
    pub(crate) fn product(
        &self,
        op: &'static str,
        transpose: bool,
        x: &DeviceArray<T>,
    ) -> Result<DeviceArray<T>> {
        same_device(op, self.device(), x.device())?;
        let (rows, cols) = if transpose {
            (self.shape.1, self.shape.0)
        } else {
            self.shape
        };
        let vector = x.ndim() == 1;
        if !(vector || x.ndim() == 2) || x.shape()[0] != cols {
            return Err(Error::ShapeMismatch {
                op,
                msg: format!(
                    "a ({rows}, {cols}) matrix times an array of shape {:?}: needs {cols} rows",
                    x.shape()
                ),
                lhs: vec![rows, cols],
                rhs: x.shape().to_vec(),
            });
        }
        let k = if vector { 1 } else { x.shape()[1] };
        let out_shape: Vec<usize> = if vector { vec![rows] } else { vec![rows, k] };
        if rows == 0 || k == 0 {
            return DeviceArray::alloc_for(op, self.device(), &out_shape);
        }
        if cols == 0 || self.nnz() == 0 {
            return DeviceArray::zeros(self.device(), out_shape.as_slice());
        }
        // SpMM runs column-major, as CuPy's: `B` in Fortran order (read in place when it
        // is, else transposed once), and the product returned in Fortran order (the
        // transpose of a C-order `(k, rows)` array). On an H100, 2^22 rows of 16 entries
        // times 16 columns in f32: 3.4 ms from a Fortran-order `B`, 3.6 ms from a C-order
        // one, where the row-major product took 6.4 ms.
        if !vector {
            let out = DeviceArray::<T>::alloc_for(op, self.device(), &[k, rows])?;
            let (a, _keep) = self.library_ref(op)?;
            let xt = x.t().contiguous()?;
            let (xp, _xb) = xt.library_ptr(op, self.device())?;
            let (yp, _yb) = out.library_ptr(op, self.device())?;
            // SAFETY: `a` was checked at construction; `xt` and `out` are C-contiguous
            // (k, op(A)'s columns) and (k, op(A)'s rows): column-major B and C; the
            // buffers live until queued.
            unsafe { cusparse::spmm::<T, I>(self.device(), &a, transpose, k, (xp, yp), true)? };
            return Ok(out.t());
        }
        let out = DeviceArray::<T>::alloc_for(op, self.device(), &out_shape)?;
        let x = x.contiguous()?;
        let (a, _keep) = self.library_ref(op)?;
        let (xp, _xb) = x.library_ptr(op, self.device())?;
        let (yp, _yb) = out.library_ptr(op, self.device())?;
        // SAFETY: `a` was checked at construction; `x` and `out` hold op(A)'s column and
        // row counts of elements, contiguous; the buffers live until queued.
        unsafe { cusparse::spmv::<T, I>(self.device(), &a, transpose, xp, yp)? };
        Ok(out)
    }
}

impl<T: SparseElement, I: SparseIndex> CscMatrix<T, I> {
    /// The `(m, n)` matrix of the device arrays `indptr` (`n + 1` column offsets),
    /// `indices` (row of each entry) and `data`, checked on the device as
    /// [`CsrMatrix::from_parts`].
    ///
    /// # Errors
    /// As [`CsrMatrix::from_parts`].
    pub fn from_parts(
        indptr: &DeviceArray<I>,
        indices: &DeviceArray<I>,
        data: &DeviceArray<T>,
        shape: (usize, usize),
    ) -> Result<Self> {
        Ok(CsrMatrix::from_parts(indptr, indices, data, (shape.1, shape.0))?.t())
    }

    /// The `(m, n)` matrix with `vals[k]` at `(rows[k], cols[k])`, duplicates summed.
    ///
    /// # Errors
    /// As [`CsrMatrix::from_triplets`].
    pub fn from_triplets(
        device: &Device,
        rows: &[I],
        cols: &[I],
        vals: &[T],
        shape: (usize, usize),
    ) -> Result<Self> {
        Ok(CsrMatrix::from_triplets(device, cols, rows, vals, (shape.1, shape.0))?.t())
    }

    /// The transpose as a [`CsrMatrix`] sharing the arrays (no copy).
    pub fn t(&self) -> CsrMatrix<T, I> {
        self.inner.clone()
    }

    /// The shape `(m, n)`.
    pub fn shape(&self) -> (usize, usize) {
        (self.inner.shape.1, self.inner.shape.0)
    }

    /// The number of stored entries.
    pub fn nnz(&self) -> usize {
        self.inner.nnz()
    }

    /// The column offsets (`n + 1` entries).
    pub fn indptr(&self) -> &DeviceArray<I> {
        &self.inner.indptr
    }

    /// The row index of each stored entry.
    pub fn indices(&self) -> &DeviceArray<I> {
        &self.inner.indices
    }

    /// The stored values.
    pub fn data(&self) -> &DeviceArray<T> {
        &self.inner.data
    }

    /// The device holding the arrays.
    pub fn device(&self) -> &Device {
        self.inner.device()
    }

    /// The three arrays copied to the host: `(indptr, indices, data)`.
    ///
    /// # Errors
    /// A failed copy.
    pub fn to_host(&self) -> Result<(Vec<I>, Vec<I>, Vec<T>)> {
        self.inner.to_host()
    }

    /// The dense `(m, n)` array.
    ///
    /// # Errors
    /// As [`CsrMatrix::to_dense`].
    pub fn to_dense(&self) -> Result<DeviceArray<T>> {
        self.inner.to_dense()?.t().contiguous()
    }

    /// `A x` for a 1-D `x` of `n` elements (SpMV on the transposed CSR form).
    ///
    /// # Errors
    /// As [`CsrMatrix::matvec`].
    pub fn matvec(&self, x: &DeviceArray<T>) -> Result<DeviceArray<T>> {
        self.inner.product("CscMatrix::matvec", true, x)
    }

    /// `A B` for a 2-D `b` of `n` rows (SpMM on the transposed CSR form).
    ///
    /// # Errors
    /// As [`CsrMatrix::matmul`].
    pub fn matmul(&self, b: &DeviceArray<T>) -> Result<DeviceArray<T>> {
        self.inner.product("CscMatrix::matmul", true, b)
    }
}

macro_rules! product_operator {
    ($($m:ident),*) => {$(
        #[doc = concat!("`(&a * &x)?`: [`matvec`](", stringify!($m), "::matvec) for a 1-D `x`, [`matmul`](", stringify!($m), "::matmul)")]
        /// for a 2-D one (SciPy's `a @ x`).
        impl<T: SparseElement, I: SparseIndex> std::ops::Mul<&DeviceArray<T>> for &$m<T, I> {
            type Output = Result<DeviceArray<T>>;
            fn mul(self, x: &DeviceArray<T>) -> Result<DeviceArray<T>> {
                if x.ndim() == 1 {
                    self.matvec(x)
                } else {
                    self.matmul(x)
                }
            }
        }
    )*};
}
product_operator!(CsrMatrix, CscMatrix);
