//! [`CooMatrix`], and the conversions among the three formats with the structure
//! operations they share (`sort_indices`, `sum_duplicates`, `eliminate_zeros`,
//! `has_canonical_format`). Every conversion runs on the device through the sort-based
//! plans of `structure`.

use super::assemble::{check_lengths, check_parts};
use super::csr::{CscMatrix, CsrMatrix};
use super::cusparse::{SparseElement, SparseIndex};
use super::structure::{expand_indptr, index_of, Triplets};
use crate::{Device, DeviceArray, Error, Result};

/// A sparse matrix in coordinate form (SciPy's `coo_matrix`): entry `k` is `data[k]`
/// at `(row[k], col[k])`. Entries may come in any order and repeat (repeats add up);
/// [`sum_duplicates`](Self::sum_duplicates) gives the canonical form (row-major order,
/// no repeats). Element and index types as [`CsrMatrix`].
///
/// ```no_run
/// use cuarray::{sparse::CooMatrix, Device};
/// let dev = Device::new(0)?;
/// // [[0, 5], [7, 0]] with the 5 given as 2 + 3
/// let a = CooMatrix::from_triplets(&dev, &[1, 0, 0], &[0, 1, 1], &[7.0f64, 2.0, 3.0], (2, 2))?;
/// assert_eq!(a.nnz(), 3);
/// assert_eq!(a.to_csr()?.nnz(), 2);
/// assert_eq!(a.to_dense()?.to_host()?, vec![0.0, 5.0, 7.0, 0.0]);
/// # Ok::<(), cuarray::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct CooMatrix<T: SparseElement, I: SparseIndex = i32> {
    t: Triplets<T, I>,
    shape: (usize, usize),
    canonical: bool,
}

impl<T: SparseElement, I: SparseIndex> CooMatrix<T, I> {
    /// The `(m, n)` matrix with `vals[k]` at `(rows[k], cols[k])`, kept as given
    /// (duplicates stay until [`sum_duplicates`](Self::sum_duplicates)), copied to
    /// `device`.
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
        const OP: &str = "CooMatrix::from_triplets";
        let (m, n) = shape;
        if rows.len() != cols.len() || rows.len() != vals.len() {
            return Err(Error::invalid(
                OP,
                format!(
                    "rows, cols and vals must have one length, got {}, {} and {}",
                    rows.len(),
                    cols.len(),
                    vals.len()
                ),
            ));
        }
        check_lengths(OP, shape, m + 1, vals.len(), vals.len(), I::MAX)?;
        for (name, idx, bound) in [("rows", rows, m), ("cols", cols, n)] {
            if let Some((k, v)) = idx
                .iter()
                .map(|v| v.to_i64_wrapping())
                .enumerate()
                .find(|&(_, v)| v < 0 || v as u64 >= bound as u64)
            {
                return Err(Error::invalid(
                    OP,
                    format!("{name}[{k}] = {v} is outside 0..{bound}"),
                ));
            }
        }
        let t = Triplets {
            row: DeviceArray::from_slice(device, rows)?,
            col: DeviceArray::from_slice(device, cols)?,
            data: DeviceArray::from_slice(device, vals)?,
        };
        let canonical = host_canonical(rows, cols);
        Ok(CooMatrix {
            t,
            shape,
            canonical,
        })
    }

    /// The `(m, n)` matrix of the device arrays `row`, `col` and `data` (1-D, one
    /// length), checked on the device: every row index in `0..m`, every column in `0..n`.
    /// Non-contiguous arrays are copied; contiguous ones are shared.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming what is wrong (a dimension, a length, an index
    /// out of range, a size the index type cannot hold); [`Error::DeviceMismatch`] when
    /// the arrays are on different devices.
    pub fn from_parts(
        row: &DeviceArray<I>,
        col: &DeviceArray<I>,
        data: &DeviceArray<T>,
        shape: (usize, usize),
    ) -> Result<Self> {
        const OP: &str = "CooMatrix::from_parts";
        check_parts(
            OP,
            [
                ("row", row.ndim(), row.device()),
                ("col", col.ndim(), col.device()),
                ("data", data.ndim(), data.device()),
            ],
        )?;
        if row.size() != data.size() || col.size() != data.size() {
            return Err(Error::invalid(
                OP,
                format!(
                    "row, col and data must have one length, got {}, {} and {}",
                    row.size(),
                    col.size(),
                    data.size()
                ),
            ));
        }
        let (m, n) = shape;
        check_lengths(OP, shape, m + 1, data.size(), data.size(), I::MAX)?;
        if data.size() > 0 {
            for (name, idx, bound) in [("row", row, m), ("col", col, n)] {
                let low = idx.lt(I::ZERO)?.any()?;
                let high = idx.ge(index_of::<I>(bound))?.any()?;
                if low.to_scalar()? || high.to_scalar()? {
                    return Err(Error::invalid(
                        OP,
                        format!("an entry of {name} is outside 0..{bound}"),
                    ));
                }
            }
        }
        let t = Triplets {
            row: row.contiguous()?,
            col: col.contiguous()?,
            data: data.contiguous()?,
        };
        let canonical = t.is_canonical()?;
        Ok(CooMatrix {
            t,
            shape,
            canonical,
        })
    }

    /// The nonzero entries of the 2-D array `a`, in row-major order.
    ///
    /// # Errors
    /// As [`CsrMatrix::from_dense`].
    pub fn from_dense(a: &DeviceArray<T>) -> Result<Self> {
        CsrMatrix::<T, I>::from_dense(a)?.to_coo()
    }

    pub(super) fn from_triplets_unchecked(
        t: Triplets<T, I>,
        shape: (usize, usize),
        canonical: bool,
    ) -> Self {
        CooMatrix {
            t,
            shape,
            canonical,
        }
    }

    /// The shape `(m, n)`.
    pub fn shape(&self) -> (usize, usize) {
        self.shape
    }

    /// The number of stored entries (duplicates and explicit zeros included).
    pub fn nnz(&self) -> usize {
        self.t.len()
    }

    /// The row index of each stored entry.
    pub fn row(&self) -> &DeviceArray<I> {
        &self.t.row
    }

    /// The column index of each stored entry.
    pub fn col(&self) -> &DeviceArray<I> {
        &self.t.col
    }

    /// The stored values.
    pub fn data(&self) -> &DeviceArray<T> {
        &self.t.data
    }

    /// The device holding the arrays.
    pub fn device(&self) -> &Device {
        self.t.data.device()
    }

    /// The three arrays copied to the host: `(row, col, data)`.
    ///
    /// # Errors
    /// A failed copy.
    pub fn to_host(&self) -> Result<(Vec<I>, Vec<I>, Vec<T>)> {
        Ok((
            self.t.row.to_host()?,
            self.t.col.to_host()?,
            self.t.data.to_host()?,
        ))
    }

    /// The transpose (rows and columns exchanged; the arrays are shared).
    pub fn t(&self) -> Self {
        CooMatrix {
            t: self.t.clone().swapped(),
            shape: (self.shape.1, self.shape.0),
            canonical: false,
        }
    }

    /// Whether the entries are sorted row-major without duplicates.
    pub fn has_canonical_format(&self) -> bool {
        self.canonical
    }

    /// Sorts the entries row-major in place (duplicates stay, in their order).
    ///
    /// # Errors
    /// A failed sort or gather.
    pub fn sort_indices(&mut self) -> Result<()> {
        if !self.canonical {
            self.t = self.t.sorted()?;
        }
        Ok(())
    }

    /// Sorts the entries row-major and adds up duplicates in place (SciPy's
    /// `sum_duplicates`). Reads the number of distinct positions back.
    ///
    /// # Errors
    /// A failed device operation.
    pub fn sum_duplicates(&mut self) -> Result<()> {
        if !self.canonical {
            self.t = self.t.canonical()?;
            self.canonical = true;
        }
        Ok(())
    }

    /// Removes the stored entries whose value is zero, in place.
    ///
    /// # Errors
    /// A failed device operation.
    pub fn eliminate_zeros(&mut self) -> Result<()> {
        self.t = self.t.nonzero()?;
        Ok(())
    }

    /// The same matrix (a clone sharing the arrays).
    ///
    /// # Errors
    /// Never; `Result` for symmetry with the other formats.
    pub fn to_coo(&self) -> Result<Self> {
        Ok(self.clone())
    }

    /// The CSR form (duplicates summed, columns sorted within rows).
    ///
    /// # Errors
    /// A failed device operation.
    pub fn to_csr(&self) -> Result<CsrMatrix<T, I>> {
        let t = if self.canonical {
            self.t.clone()
        } else {
            self.t.canonical()?
        };
        Ok(CsrMatrix {
            indptr: t.indptr(self.shape.0)?,
            indices: t.col,
            data: t.data,
            shape: self.shape,
            canonical: true,
        })
    }

    /// The CSC form (duplicates summed, rows sorted within columns).
    ///
    /// # Errors
    /// A failed device operation.
    pub fn to_csc(&self) -> Result<CscMatrix<T, I>> {
        Ok(self.t().to_csr()?.t())
    }

    /// The dense `(m, n)` array (duplicates summed).
    ///
    /// # Errors
    /// As [`CsrMatrix::to_dense`].
    pub fn to_dense(&self) -> Result<DeviceArray<T>> {
        self.to_csr()?.to_dense()
    }

    /// `A x` for a 1-D `x` (through the CSR form).
    ///
    /// # Errors
    /// As [`CsrMatrix::matvec`].
    pub fn matvec(&self, x: &DeviceArray<T>) -> Result<DeviceArray<T>> {
        self.to_csr()?.matvec(x)
    }

    /// `A B` for a 2-D `b` (through the CSR form).
    ///
    /// # Errors
    /// As [`CsrMatrix::matmul`].
    pub fn matmul(&self, b: &DeviceArray<T>) -> Result<DeviceArray<T>> {
        self.to_csr()?.matmul(b)
    }

    pub(super) fn triplets(&self) -> &Triplets<T, I> {
        &self.t
    }
}

/// Whether host coordinates are strictly increasing row-major.
fn host_canonical<I: SparseIndex>(rows: &[I], cols: &[I]) -> bool {
    let key = |k: usize| (rows[k].to_i64_wrapping(), cols[k].to_i64_wrapping());
    (1..rows.len()).all(|k| key(k - 1) < key(k))
}

impl<T: SparseElement, I: SparseIndex> CsrMatrix<T, I> {
    /// The stored entries as coordinate triplets (rows expanded from `indptr`).
    pub(super) fn triplets(&self) -> Result<Triplets<T, I>> {
        Ok(Triplets {
            row: expand_indptr(&self.indptr, self.nnz())?,
            col: self.indices.clone(),
            data: self.data.clone(),
        })
    }

    /// The COO form (entries in this matrix's order).
    ///
    /// # Errors
    /// A failed device operation.
    pub fn to_coo(&self) -> Result<CooMatrix<T, I>> {
        Ok(CooMatrix {
            t: self.triplets()?,
            shape: self.shape,
            canonical: self.canonical,
        })
    }

    /// The same matrix (a clone sharing the arrays).
    ///
    /// # Errors
    /// Never; `Result` for symmetry with the other formats.
    pub fn to_csr(&self) -> Result<Self> {
        Ok(self.clone())
    }

    /// The CSC form (duplicates summed, rows sorted within columns).
    ///
    /// # Errors
    /// A failed device operation.
    pub fn to_csc(&self) -> Result<CscMatrix<T, I>> {
        self.to_coo()?.to_csc()
    }

    /// Whether the columns are sorted within each row without duplicates (known from
    /// construction: checked by [`from_parts`](Self::from_parts), true for the other
    /// constructors and after [`sum_duplicates`](Self::sum_duplicates)).
    pub fn has_canonical_format(&self) -> bool {
        self.canonical
    }

    /// Sorts the columns within each row in place (duplicates stay).
    ///
    /// # Errors
    /// A failed sort or gather.
    pub fn sort_indices(&mut self) -> Result<()> {
        if !self.canonical {
            let t = self.triplets()?.sorted()?;
            self.indices = t.col;
            self.data = t.data;
        }
        Ok(())
    }

    /// Sorts the columns within each row and adds up duplicates in place. Reads the
    /// number of distinct positions back.
    ///
    /// # Errors
    /// A failed device operation.
    pub fn sum_duplicates(&mut self) -> Result<()> {
        if !self.canonical {
            *self = self.to_coo()?.to_csr()?;
        }
        Ok(())
    }

    /// Removes the stored entries whose value is zero, in place.
    ///
    /// # Errors
    /// A failed device operation.
    pub fn eliminate_zeros(&mut self) -> Result<()> {
        let t = self.triplets()?.nonzero()?;
        if t.len() != self.nnz() {
            self.indptr = t.indptr(self.shape.0)?;
            self.indices = t.col;
            self.data = t.data;
        }
        Ok(())
    }
}

impl<T: SparseElement, I: SparseIndex> CscMatrix<T, I> {
    /// The `(m, n)` matrix with the nonzero entries of the 2-D array `a`.
    ///
    /// # Errors
    /// As [`CsrMatrix::from_dense`].
    pub fn from_dense(a: &DeviceArray<T>) -> Result<Self> {
        Ok(CsrMatrix::from_dense(&a.t())?.t())
    }

    /// The COO form.
    ///
    /// # Errors
    /// A failed device operation.
    pub fn to_coo(&self) -> Result<CooMatrix<T, I>> {
        Ok(self.inner.to_coo()?.t())
    }

    /// The CSR form (duplicates summed, columns sorted within rows).
    ///
    /// # Errors
    /// A failed device operation.
    pub fn to_csr(&self) -> Result<CsrMatrix<T, I>> {
        self.to_coo()?.to_csr()
    }

    /// The same matrix (a clone sharing the arrays).
    ///
    /// # Errors
    /// Never; `Result` for symmetry with the other formats.
    pub fn to_csc(&self) -> Result<Self> {
        Ok(self.clone())
    }

    /// Whether the rows are sorted within each column without duplicates.
    pub fn has_canonical_format(&self) -> bool {
        self.inner.canonical
    }

    /// Sorts the rows within each column in place (duplicates stay).
    ///
    /// # Errors
    /// As [`CsrMatrix::sort_indices`].
    pub fn sort_indices(&mut self) -> Result<()> {
        self.inner.sort_indices()
    }

    /// Sorts the rows within each column and adds up duplicates in place.
    ///
    /// # Errors
    /// As [`CsrMatrix::sum_duplicates`].
    pub fn sum_duplicates(&mut self) -> Result<()> {
        self.inner.sum_duplicates()
    }

    /// Removes the stored entries whose value is zero, in place.
    ///
    /// # Errors
    /// As [`CsrMatrix::eliminate_zeros`].
    pub fn eliminate_zeros(&mut self) -> Result<()> {
        self.inner.eliminate_zeros()
    }
}
