//! Arithmetic of sparse matrices: the sparse product (cuSPARSE's `SpGEMM`), sums and
//! differences, the elementwise product, products with a scalar, elementwise powers of
//! the stored values, sums along an axis and the diagonal.
//!
//! CSR is the working form. A [`CscMatrix`] computes on the CSR form of its transpose and
//! stays CSC; a [`CooMatrix`] gives CSR results for what changes the structure (as
//! SciPy's `coo_matrix` does) and stays COO for what only changes values.

use super::coo::CooMatrix;
use super::csr::{CscMatrix, CsrMatrix};
use super::cusparse::{self, SparseElement, SparseIndex};
use super::structure::Triplets;
use crate::array::same_device;
use crate::{concatenate, s, DeviceArray, Error, NumElement, Result};

fn shapes_agree(
    op: &'static str,
    a: (usize, usize),
    b: (usize, usize),
    needs: &str,
    ok: bool,
) -> Result<()> {
    if ok {
        Ok(())
    } else {
        Err(Error::ShapeMismatch {
            op,
            msg: format!("a {a:?} and a {b:?} matrix: {needs}"),
            lhs: vec![a.0, a.1],
            rhs: vec![b.0, b.1],
        })
    }
}

/// The triplets of `a` followed by those of `b`.
fn joined<T: SparseElement, I: SparseIndex>(
    a: &Triplets<T, I>,
    b: &Triplets<T, I>,
) -> Result<Triplets<T, I>> {
    Ok(Triplets {
        row: concatenate(&[&a.row, &b.row], 0)?,
        col: concatenate(&[&a.col, &b.col], 0)?,
        data: concatenate(&[&a.data, &b.data], 0)?,
    })
}

impl<T: SparseElement, I: SparseIndex> CsrMatrix<T, I> {
    /// The `(m, n)` matrix without entries.
    pub(super) fn empty(dev: &crate::Device, (m, n): (usize, usize)) -> Result<Self> {
        Ok(CsrMatrix {
            indptr: DeviceArray::zeros(dev, &[m + 1])?,
            indices: DeviceArray::zeros(dev, &[0])?,
            data: DeviceArray::zeros(dev, &[0])?,
            shape: (m, n),
            canonical: true,
        })
    }

    /// A matrix of this structure with other values (same `indptr` and `indices`).
    fn with_data(&self, data: DeviceArray<T>) -> Self {
        CsrMatrix {
            data,
            ..self.clone()
        }
    }

    /// The canonical CSR matrix of `t` (sorted, duplicates summed).
    fn from_triplets_device(t: &Triplets<T, I>, shape: (usize, usize)) -> Result<Self> {
        CooMatrix::from_triplets_unchecked(t.clone(), shape, false).to_csr()
    }

    /// The sparse product `A B` (cuSPARSE's `SpGEMM`; SciPy's `a @ b` of two sparse
    /// matrices). Reading the product's number of entries back waits for the device.
    ///
    /// ```no_run
    /// use cuarray::{sparse, Device};
    /// let dev = Device::new(0)?;
    /// let a = sparse::CsrMatrix::from_triplets(&dev, &[0, 1], &[1, 0], &[2.0f64, 3.0], (2, 2))?;
    /// let b = a.matmul_sparse(&a)?; // [[6, 0], [0, 6]]
    /// assert_eq!(b.to_dense()?.to_host()?, vec![6.0, 0.0, 0.0, 6.0]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] when `A`'s columns are not `B`'s rows;
    /// [`Error::DeviceMismatch`] across devices; cuSPARSE's error.
    pub fn matmul_sparse(&self, other: &CsrMatrix<T, I>) -> Result<CsrMatrix<T, I>> {
        const OP: &str = "CsrMatrix::matmul_sparse";
        let (m, k) = self.shape;
        let (k2, n) = other.shape;
        shapes_agree(
            OP,
            self.shape,
            other.shape,
            "needs A's columns = B's rows",
            k == k2,
        )?;
        same_device(OP, self.device(), other.device())?;
        let dev = self.device();
        if self.nnz() == 0 || other.nnz() == 0 || m == 0 || n == 0 {
            return Self::empty(dev, (m, n));
        }
        let indptr = DeviceArray::<I>::alloc_for(OP, dev, &[m + 1])?;
        let (a, _ka) = self.library_ref(OP)?;
        let (b, _kb) = other.library_ref(OP)?;
        let (pp, _pb) = indptr.library_ptr(OP, dev)?;
        let mut parts = None;
        // SAFETY: `a` and `b` were checked at construction and agree in the inner
        // dimension; `indptr` holds m + 1 indices; the arrays `alloc` makes are kept in
        // `parts` (and their buffers until the calls are queued).
        unsafe {
            cusparse::spgemm::<T, I>(dev, &a, &b, pp, |nnz| {
                super::assemble::check_lengths(OP, (m, n), m + 1, nnz, nnz, I::MAX)?;
                let indices = DeviceArray::<I>::alloc_for(OP, dev, &[nnz])?;
                let data = DeviceArray::<T>::alloc_for(OP, dev, &[nnz])?;
                let (ip, ib) = indices.library_ptr(OP, dev)?;
                let (dp, db) = data.library_ptr(OP, dev)?;
                parts = Some((indices, data, ib, db));
                Ok((ip, dp))
            })?;
        }
        let (indices, data, _ib, _db) =
            parts.ok_or_else(|| Error::invalid(OP, "cuSPARSE returned no product"))?;
        let mut c = CsrMatrix {
            indptr,
            indices,
            data,
            shape: (m, n),
            canonical: false,
        };
        // The product's columns come unsorted within rows; sorting keeps the result
        // canonical like every other constructor's.
        c.sort_indices()?;
        c.canonical = true;
        Ok(c)
    }

    /// `A + B` or `A - B` (`negate`), duplicates summed.
    fn add_sub(&self, other: &Self, negate: bool, op: &'static str) -> Result<Self> {
        shapes_agree(
            op,
            self.shape,
            other.shape,
            "needs one shape",
            self.shape == other.shape,
        )?;
        same_device(op, self.device(), other.device())?;
        let mut b = other.triplets()?;
        if negate {
            b.data = b.data.neg()?;
        }
        Self::from_triplets_device(&joined(&self.triplets()?, &b)?, self.shape)
    }

    /// The elementwise product `A .* B` (SciPy's `a.multiply(b)` of two sparse
    /// matrices): an entry where both have one.
    ///
    /// ```no_run
    /// use cuarray::{sparse::CsrMatrix, Device};
    /// let dev = Device::new(0)?;
    /// let a = CsrMatrix::from_triplets(&dev, &[0, 1], &[0, 1], &[2.0f32, 3.0], (2, 2))?;
    /// let b = CsrMatrix::from_triplets(&dev, &[0, 0], &[0, 1], &[5.0f32, 7.0], (2, 2))?;
    /// assert_eq!(a.multiply(&b)?.to_dense()?.to_host()?, vec![10.0, 0.0, 0.0, 0.0]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] when the shapes differ; [`Error::DeviceMismatch`] across
    /// devices.
    pub fn multiply(&self, other: &Self) -> Result<Self> {
        const OP: &str = "CsrMatrix::multiply";
        shapes_agree(
            OP,
            self.shape,
            other.shape,
            "needs one shape",
            self.shape == other.shape,
        )?;
        same_device(OP, self.device(), other.device())?;
        let canon = |a: &Self| -> Result<Triplets<T, I>> {
            let mut a = a.clone();
            a.sum_duplicates()?;
            a.triplets()
        };
        // Both canonical, joined and stably sorted: a shared position is two adjacent
        // entries, A's first.
        let t = joined(&canon(self)?, &canon(other)?)?.sorted()?;
        let n = t.len();
        if n < 2 {
            return Self::empty(self.device(), self.shape);
        }
        let (lo, hi) = (s![0..n - 1], s![1..n]);
        let same = t
            .row
            .slice(lo)?
            .eq(&t.row.slice(hi)?)?
            .logical_and(&t.col.slice(lo)?.eq(&t.col.slice(hi)?)?)?;
        let pairs = Triplets {
            row: t.row.slice(lo)?.compress(&same, None)?,
            col: t.col.slice(lo)?.compress(&same, None)?,
            data: t
                .data
                .slice(lo)?
                .mul(&t.data.slice(hi)?)?
                .compress(&same, None)?,
        };
        let indptr = pairs.indptr(self.shape.0)?;
        Ok(CsrMatrix {
            indptr,
            indices: pairs.col,
            data: pairs.data,
            shape: self.shape,
            canonical: true,
        })
    }

    /// Every stored value times `s` (SciPy's `a * s`; the structure is shared).
    ///
    /// # Errors
    /// A failed launch.
    pub fn mul_scalar(&self, s: T) -> Result<Self> {
        Ok(self.with_data(self.data.mul(s)?))
    }

    /// Every stored value raised to `p` (SciPy's `a.power(p)`: entries not stored stay
    /// zero; the structure is shared). Real element types (`f32`, `f64`).
    ///
    /// ```no_run
    /// use cuarray::{sparse::CsrMatrix, Device};
    /// let dev = Device::new(0)?;
    /// let a = CsrMatrix::from_triplets(&dev, &[0, 1], &[1, 0], &[2.0f64, 3.0], (2, 2))?;
    /// assert_eq!(a.power(2.0)?.data().to_host()?, vec![4.0, 9.0]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// A failed launch.
    pub fn power(&self, p: T) -> Result<Self>
    where
        T: NumElement,
    {
        Ok(self.with_data(self.data.pow_scalar(p)?))
    }

    /// The sums along `axis` (0: one per column, `n` values; 1: one per row, `m`
    /// values; negative axes count from the end), as a 1-D array (SciPy's `a.sum(axis)`
    /// flattened). A product with a vector of ones (cuSPARSE's `SpMV`).
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`] for an axis outside `-2..2`.
    pub fn sum_axis(&self, axis: isize) -> Result<DeviceArray<T>> {
        const OP: &str = "CsrMatrix::sum_axis";
        let transpose = match axis {
            0 | -2 => true,
            1 | -1 => false,
            _ => {
                return Err(Error::AxisOutOfRange {
                    op: OP,
                    axis,
                    ndim: 2,
                })
            }
        };
        let len = if transpose {
            self.shape.0
        } else {
            self.shape.1
        };
        let ones = DeviceArray::<T>::ones(self.device(), &[len])?;
        self.product(OP, transpose, &ones)
    }

    /// The main diagonal, `min(m, n)` values (SciPy's `a.diagonal()`; duplicates summed).
    ///
    /// # Errors
    /// A failed launch.
    pub fn diagonal(&self) -> Result<DeviceArray<T>> {
        let len = self.shape.0.min(self.shape.1);
        let out = DeviceArray::<T>::zeros(self.device(), &[len])?;
        if self.nnz() == 0 || len == 0 {
            return Ok(out);
        }
        let t = self.triplets()?;
        let on = t.select(&t.row.eq(&t.col)?)?;
        if on.len() > 0 {
            out.index_add(0, &on.row.astype::<i64>()?, &on.data)?;
        }
        Ok(out)
    }
}

impl<T: SparseElement, I: SparseIndex> CscMatrix<T, I> {
    /// The sparse product `A B` (SpGEMM of the transposes' CSR forms, `(B^T A^T)^T`).
    ///
    /// # Errors
    /// As [`CsrMatrix::matmul_sparse`].
    pub fn matmul_sparse(&self, other: &Self) -> Result<Self> {
        let (a, b) = (self.shape(), other.shape());
        shapes_agree(
            "CscMatrix::matmul_sparse",
            a,
            b,
            "needs A's columns = B's rows",
            a.1 == b.0,
        )?;
        Ok(other.inner.matmul_sparse(&self.inner)?.t())
    }

    /// The elementwise product.
    ///
    /// # Errors
    /// As [`CsrMatrix::multiply`].
    pub fn multiply(&self, other: &Self) -> Result<Self> {
        Ok(self.inner.multiply(&other.inner)?.t())
    }

    /// Every stored value times `s`.
    ///
    /// # Errors
    /// A failed launch.
    pub fn mul_scalar(&self, s: T) -> Result<Self> {
        Ok(self.inner.mul_scalar(s)?.t())
    }

    /// Every stored value raised to `p`.
    ///
    /// # Errors
    /// A failed launch.
    pub fn power(&self, p: T) -> Result<Self>
    where
        T: NumElement,
    {
        Ok(self.inner.power(p)?.t())
    }

    /// The sums along `axis`, as [`CsrMatrix::sum_axis`].
    ///
    /// # Errors
    /// As [`CsrMatrix::sum_axis`].
    pub fn sum_axis(&self, axis: isize) -> Result<DeviceArray<T>> {
        let flipped = match axis {
            0 | -2 => 1,
            1 | -1 => 0,
            _ => {
                return Err(Error::AxisOutOfRange {
                    op: "CscMatrix::sum_axis",
                    axis,
                    ndim: 2,
                })
            }
        };
        self.inner.sum_axis(flipped)
    }

    /// The main diagonal.
    ///
    /// # Errors
    /// A failed launch.
    pub fn diagonal(&self) -> Result<DeviceArray<T>> {
        self.inner.diagonal()
    }

    fn add_sub(&self, other: &Self, negate: bool, op: &'static str) -> Result<Self> {
        shapes_agree(
            op,
            self.shape(),
            other.shape(),
            "needs one shape",
            self.shape() == other.shape(),
        )?;
        Ok(self.inner.add_sub(&other.inner, negate, op)?.t())
    }
}

impl<T: SparseElement, I: SparseIndex> CooMatrix<T, I> {
    /// The sparse product `A B`, in CSR form.
    ///
    /// # Errors
    /// As [`CsrMatrix::matmul_sparse`].
    pub fn matmul_sparse(&self, other: &Self) -> Result<CsrMatrix<T, I>> {
        self.to_csr()?.matmul_sparse(&other.to_csr()?)
    }

    /// The elementwise product, in CSR form.
    ///
    /// # Errors
    /// As [`CsrMatrix::multiply`].
    pub fn multiply(&self, other: &Self) -> Result<CsrMatrix<T, I>> {
        self.to_csr()?.multiply(&other.to_csr()?)
    }

    /// Every stored value times `s` (the coordinates are shared).
    ///
    /// # Errors
    /// A failed launch.
    pub fn mul_scalar(&self, s: T) -> Result<Self> {
        let mut t = self.triplets().clone();
        t.data = t.data.mul(s)?;
        Ok(CooMatrix::from_triplets_unchecked(
            t,
            self.shape(),
            self.has_canonical_format(),
        ))
    }

    /// Every stored value raised to `p` (the coordinates are shared; duplicates are
    /// raised one by one, as SciPy's `coo_matrix.power`).
    ///
    /// # Errors
    /// A failed launch.
    pub fn power(&self, p: T) -> Result<Self>
    where
        T: NumElement,
    {
        let mut t = self.triplets().clone();
        t.data = t.data.pow_scalar(p)?;
        Ok(CooMatrix::from_triplets_unchecked(
            t,
            self.shape(),
            self.has_canonical_format(),
        ))
    }

    /// The sums along `axis`, as [`CsrMatrix::sum_axis`].
    ///
    /// # Errors
    /// As [`CsrMatrix::sum_axis`].
    pub fn sum_axis(&self, axis: isize) -> Result<DeviceArray<T>> {
        self.to_csr()?.sum_axis(axis)
    }

    /// The main diagonal.
    ///
    /// # Errors
    /// A failed launch.
    pub fn diagonal(&self) -> Result<DeviceArray<T>> {
        self.to_csr()?.diagonal()
    }

    fn add_sub(&self, other: &Self, negate: bool, op: &'static str) -> Result<CsrMatrix<T, I>> {
        self.to_csr()?.add_sub(&other.to_csr()?, negate, op)
    }
}

macro_rules! arithmetic_operators {
    ($($m:ident => $out:ident),*) => {$(
        /// `(&a + &b)?`: the sum, duplicates summed (SciPy's `a + b`).
        impl<T: SparseElement, I: SparseIndex> std::ops::Add<&$m<T, I>> for &$m<T, I> {
            type Output = Result<$out<T, I>>;
            fn add(self, other: &$m<T, I>) -> Result<$out<T, I>> {
                self.add_sub(other, false, concat!(stringify!($m), " + "))
            }
        }

        /// `(&a - &b)?`: the difference (SciPy's `a - b`).
        impl<T: SparseElement, I: SparseIndex> std::ops::Sub<&$m<T, I>> for &$m<T, I> {
            type Output = Result<$out<T, I>>;
            fn sub(self, other: &$m<T, I>) -> Result<$out<T, I>> {
                self.add_sub(other, true, concat!(stringify!($m), " - "))
            }
        }

        /// `(&a * s)?`: every stored value times the scalar `s` (SciPy's `a * s`).
        impl<T: SparseElement, I: SparseIndex> std::ops::Mul<T> for &$m<T, I> {
            type Output = Result<$m<T, I>>;
            fn mul(self, s: T) -> Result<$m<T, I>> {
                self.mul_scalar(s)
            }
        }
    )*};
}
arithmetic_operators!(CsrMatrix => CsrMatrix, CscMatrix => CscMatrix, CooMatrix => CsrMatrix);
