//! Device plans of sparse structure shared by the three formats: sorting coordinate
//! triplets, summing duplicates, compressing sorted rows into offsets and expanding
//! offsets back into rows. Each is a short chain of the array layer's sorts, scans,
//! gathers and scatters (no kernel of its own); the steps that size a result read one
//! count back from the device.

use super::cusparse::{SparseElement, SparseIndex};
use crate::{lexsort, s, searchsorted, DeviceArray, Error, Result};

/// Coordinate triplets on the device: `row`, `col` and `data` of one length.
#[derive(Clone, Debug)]
pub(crate) struct Triplets<T: SparseElement, I: SparseIndex> {
    pub(crate) row: DeviceArray<I>,
    pub(crate) col: DeviceArray<I>,
    pub(crate) data: DeviceArray<T>,
}

impl<T: SparseElement, I: SparseIndex> Triplets<T, I> {
    pub(crate) fn len(&self) -> usize {
        self.data.size()
    }

    /// The same entries with rows and columns exchanged (the transpose).
    pub(crate) fn swapped(self) -> Self {
        Triplets {
            row: self.col,
            col: self.row,
            data: self.data,
        }
    }

    /// The entries in row-major order (stable: duplicates keep their order).
    pub(crate) fn sorted(&self) -> Result<Self> {
        if self.len() < 2 {
            return Ok(self.clone());
        }
        let order = lexsort(&[&self.col, &self.row])?;
        self.take(&order)
    }

    /// The entries at `order` (i64 positions).
    pub(crate) fn take(&self, order: &DeviceArray<i64>) -> Result<Self> {
        Ok(Triplets {
            row: self.row.take(order, None)?,
            col: self.col.take(order, None)?,
            data: self.data.take(order, None)?,
        })
    }

    /// The entries where `keep` is true.
    pub(crate) fn select(&self, keep: &DeviceArray<bool>) -> Result<Self> {
        Ok(Triplets {
            row: self.row.compress(keep, None)?,
            col: self.col.compress(keep, None)?,
            data: self.data.compress(keep, None)?,
        })
    }

    /// Whether each entry starts a new `(row, col)` position: the first entry, and every
    /// entry whose coordinates differ from its predecessor's.
    fn starts(&self) -> Result<DeviceArray<bool>> {
        let n = self.len();
        let first = DeviceArray::<bool>::full(self.data.device(), &[1], true)?;
        let dr = self
            .row
            .slice(s![1..n])?
            .ne(&self.row.slice(s![0..n - 1])?)?;
        let dc = self
            .col
            .slice(s![1..n])?
            .ne(&self.col.slice(s![0..n - 1])?)?;
        crate::concatenate(&[&first, &dr.logical_or(&dc)?], 0)
    }

    /// Row-major sorted entries with duplicates summed (SciPy's canonical form). Reads the
    /// number of distinct positions back.
    pub(crate) fn canonical(&self) -> Result<Self> {
        let sorted = self.sorted()?;
        if sorted.len() < 2 {
            return Ok(sorted);
        }
        let starts = sorted.starts()?;
        let unique = sorted.select(&starts)?;
        if unique.len() == sorted.len() {
            return Ok(sorted);
        }
        let segment = starts.astype::<i64>()?.cumsum(0)?.sub(1i64)?;
        let data = DeviceArray::<T>::zeros(self.data.device(), &[unique.len()])?;
        data.index_add(0, &segment, &sorted.data)?;
        Ok(Triplets { data, ..unique })
    }

    /// Whether the entries are sorted row-major without duplicates (strictly increasing
    /// `(row, col)`). Reads one flag back.
    pub(crate) fn is_canonical(&self) -> Result<bool> {
        let n = self.len();
        if n < 2 {
            return Ok(true);
        }
        let (r0, r1) = (self.row.slice(s![0..n - 1])?, self.row.slice(s![1..n])?);
        let (c0, c1) = (self.col.slice(s![0..n - 1])?, self.col.slice(s![1..n])?);
        let up = r1
            .gt(&r0)?
            .logical_or(&r1.eq(&r0)?.logical_and(&c1.gt(&c0)?)?)?;
        up.all()?.to_scalar()
    }

    /// The entries whose value is not zero.
    pub(crate) fn nonzero(&self) -> Result<Self> {
        if self.len() == 0 {
            return Ok(self.clone());
        }
        self.select(&self.data.ne(T::ZERO)?)
    }

    /// The row offsets (`m + 1`) of entries sorted by row.
    pub(crate) fn indptr(&self, m: usize) -> Result<DeviceArray<I>> {
        let dev = self.data.device();
        let bounds = DeviceArray::<I>::arange(dev, I::ZERO, index_of(m + 1), index_of(1))?;
        if self.len() == 0 {
            return DeviceArray::zeros(dev, &[m + 1]);
        }
        searchsorted(&self.row, &bounds, false)?.astype::<I>()
    }
}

/// The row of each of the `nnz` entries of the row offsets `indptr`: entry `k` is in
/// the row `i` with `indptr[i] <= k < indptr[i + 1]`.
pub(crate) fn expand_indptr<I: SparseIndex>(
    indptr: &DeviceArray<I>,
    nnz: usize,
) -> Result<DeviceArray<I>> {
    let dev = indptr.device();
    if nnz == 0 {
        return DeviceArray::zeros(dev, &[0]);
    }
    let m = indptr.size() - 1;
    let k = DeviceArray::<I>::arange(dev, I::ZERO, index_of(nnz), index_of(1))?;
    searchsorted(&indptr.slice(s![1..m + 1])?, &k, true)?.astype::<I>()
}

/// `v` in the index type (sizes are checked against the type's range beforehand).
pub(crate) fn index_of<I: SparseIndex>(v: usize) -> I {
    I::from_u64_wrapping(v as u64)
}

/// `v` as an index: `Err` naming `op` when `I` cannot hold it.
pub(crate) fn checked_index<I: SparseIndex>(op: &'static str, what: &str, v: usize) -> Result<I> {
    if v > I::MAX {
        return Err(Error::invalid(
            op,
            format!(
                "{what} = {v} does not fit the index type (max {}); use i64 indices",
                I::MAX
            ),
        ));
    }
    Ok(index_of(v))
}
