//! NumPy's editing helpers that make a new array from an old one:
//! [`delete`](DeviceArray::delete), [`insert`](DeviceArray::insert),
//! [`append`](DeviceArray::append), [`resize`](DeviceArray::resize), [`trim_zeros`] and
//! [`vander`], built from slices, `concatenate`, `compress` and scans.

use super::{argwhere, concatenate, DeviceArray};
use crate::element::Element;
use crate::shape::{new_shape, normalize_axis, IntoShape, SliceElem};
use crate::{Error, Result};

/// `start..end` along one axis (`None`: open).
fn range(start: Option<usize>, end: Option<usize>) -> SliceElem {
    SliceElem::Range {
        start: start.map(|s| s as isize),
        end: end.map(|e| e as isize),
        step: 1,
    }
}

/// The whole axis, as a slice entry.
const ALL: SliceElem = SliceElem::Range {
    start: None,
    end: None,
    step: 1,
};

impl<T: Element> DeviceArray<T> {
    /// The array flattened when `axis` is `None`, and the axis to work on.
    fn flat_or_axis(&self, op: &'static str, axis: Option<isize>) -> Result<(Self, usize)> {
        match axis {
            None => Ok((self.reshape([self.size()])?, 0)),
            Some(ax) => Ok((self.clone(), normalize_axis(op, ax, self.ndim())?)),
        }
    }

    /// A new array without the slices at `indices` along `axis`, or without the elements
    /// at `indices` of the flattened array when `axis` is `None` (NumPy's `delete` with
    /// integer indices). Negative indices count from the end; duplicates delete once.
    ///
    /// # Synchronization
    /// The result's length depends on the duplicates: one count is read back (one wait).
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`] for an axis outside `-ndim..ndim`;
    /// [`Error::DeviceMismatch`] across devices. An index out of range is reported as
    /// [`Error::IndexOutOfRange`] at the next wait.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::<i32>::arange(&dev, 0, 6, 1)?.reshape([2, 3])?;
    /// let i = DeviceArray::from_slice(&dev, &[0i64, -1])?;
    /// assert_eq!(a.delete(&i, Some(1))?.to_host()?, vec![1, 4]);
    /// assert_eq!(a.delete(&i, None)?.to_host()?, vec![1, 2, 3, 4]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn delete(&self, indices: &DeviceArray<i64>, axis: Option<isize>) -> Result<Self> {
        const OP: &str = "delete";
        indices.used_by(OP, self.device())?;
        let (a, k) = self.flat_or_axis(OP, axis)?;
        let keep = DeviceArray::<bool>::ones(self.device(), [a.shape()[k]])?;
        keep.scatter_index(OP, &crate::ix![indices], false, false)?;
        a.compress(&keep, Some(k as isize))
    }

    /// A new array with `values` inserted before position `index` along `axis`, or in the
    /// flattened array when `axis` is `None` (NumPy's `insert` with one integer index):
    /// `index` may be `-n..=n` (negative from the end, `n` appends). `values` gets leading
    /// axes of extent 1 up to the array's rank, its first axis moved to `axis` (as NumPy),
    /// and broadcasts to the inserted block.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for an index outside `-n..=n` or values of higher rank
    /// than the array; [`Error::AxisOutOfRange`] for an axis outside `-ndim..ndim`;
    /// [`Error::Broadcast`] when `values` does not broadcast to the inserted block.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::<i32>::arange(&dev, 0, 6, 1)?.reshape([2, 3])?;
    /// let v = DeviceArray::from_slice(&dev, &[7, 8])?;
    /// assert_eq!(a.insert(1, &v, Some(1))?.to_host()?, vec![0, 7, 1, 2, 3, 8, 4, 5]);
    /// assert_eq!(a.insert(-1, &v, None)?.to_host()?, vec![0, 1, 2, 3, 4, 7, 8, 5]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn insert(
        &self,
        index: isize,
        values: &DeviceArray<T>,
        axis: Option<isize>,
    ) -> Result<Self> {
        const OP: &str = "insert";
        values.used_by(OP, self.device())?;
        let (a, k) = self.flat_or_axis(OP, axis)?;
        let n = a.shape()[k] as isize;
        if index < -n || index > n {
            return Err(Error::invalid(
                OP,
                format!("index {index} is out of bounds for axis {k} with size {n}"),
            ));
        }
        let at = if index < 0 { index + n } else { index } as usize;
        let nd = a.ndim();
        if values.ndim() > nd {
            return Err(Error::invalid(
                OP,
                format!(
                    "values of shape {:?} have more dimensions than the array ({nd})",
                    values.shape()
                ),
            ));
        }
        let mut vshape = vec![1usize; nd - values.ndim()];
        vshape.extend_from_slice(values.shape());
        let v = values.reshape(&vshape)?.moveaxis(&[0], &[k as isize])?;
        let mut block = a.shape().to_vec();
        block[k] = v.shape()[k];
        let v = v.broadcast_to(&block).map_err(|_| Error::Broadcast {
            op: OP,
            lhs: values.shape().to_vec(),
            rhs: block.clone(),
        })?;
        let mut head = vec![ALL; k + 1];
        head[k] = range(None, Some(at));
        let mut tail = vec![ALL; k + 1];
        tail[k] = range(Some(at), None);
        concatenate(&[&a.slice(&head)?, &v, &a.slice(&tail)?], k as isize)
    }

    /// A new array with `values` after the array's elements along `axis` (same rank,
    /// matching extents on the other axes), or both flattened when `axis` is `None`
    /// (NumPy's `append`).
    ///
    /// # Errors
    /// As [`concatenate`]: [`Error::ShapeMismatch`] when the shapes do not fit,
    /// [`Error::AxisOutOfRange`] for an axis outside `-ndim..ndim`.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_host(&dev, &[1, 2, 3, 4], &[2, 2])?;
    /// let b = DeviceArray::from_host(&dev, &[5, 6], &[1, 2])?;
    /// assert_eq!(a.append(&b, Some(0))?.shape(), &[3, 2]);
    /// assert_eq!(a.append(&b, None)?.to_host()?, vec![1, 2, 3, 4, 5, 6]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn append(&self, values: &DeviceArray<T>, axis: Option<isize>) -> Result<Self> {
        match axis {
            None => concatenate(
                &[
                    &self.reshape([self.size()])?,
                    &values.reshape([values.size()])?,
                ],
                0,
            ),
            Some(ax) => concatenate(&[self, values], ax),
        }
    }

    /// A new array of `shape` filled with this array's elements in C order, repeated as
    /// often as needed (NumPy's `np.resize(a, shape)`, not the in-place method): zeros
    /// when this array is empty.
    ///
    /// # Errors
    /// [`Error::TooLarge`] when `shape`'s size overflows.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_slice(&dev, &[1, 2, 3])?;
    /// assert_eq!(a.resize([2, 4])?.to_host()?, vec![1, 2, 3, 1, 2, 3, 1, 2]);
    /// assert_eq!(a.resize([2])?.to_host()?, vec![1, 2]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn resize(&self, shape: impl IntoShape) -> Result<Self> {
        let shape = new_shape("resize", shape)?;
        let n = super::put::checked_size("resize", &shape)?;
        let size = self.size();
        if size == 0 || n == 0 {
            return Self::zeros(self.device(), &shape);
        }
        let tiled = self.reshape([size])?.tile([n.div_ceil(size)])?;
        tiled.slice([range(None, Some(n))])?.reshape(&shape)
    }
}

/// The smallest box of `a` that holds all its non-zero elements (NumPy's `trim_zeros`
/// with `trim="fb"` and `axis=None`: for a 1-D array, without its leading and trailing
/// zeros). NaN counts as non-zero. An array of zeros gives an empty array of its rank.
/// The result is a view of `a`.
///
/// # Synchronization
/// Reads back the number of non-zero elements, then the box (two waits).
///
/// # Errors
/// [`Error::InvalidArgument`] for a 0-d array.
///
/// ```no_run
/// use cuarray::{Device, DeviceArray};
/// let dev = Device::new(0)?;
/// let a = DeviceArray::from_slice(&dev, &[0, 0, 1, 0, 2, 0])?;
/// assert_eq!(cuarray::trim_zeros(&a)?.to_host()?, vec![1, 0, 2]);
/// # Ok::<(), cuarray::Error>(())
/// ```
pub fn trim_zeros<T: Element>(a: &DeviceArray<T>) -> Result<DeviceArray<T>> {
    const OP: &str = "trim_zeros";
    let nd = a.ndim();
    if nd == 0 {
        return Err(Error::invalid(
            OP,
            "needs at least one dimension (a 0-d array)",
        ));
    }
    let coords = argwhere(a)?;
    if coords.shape()[0] == 0 {
        let empty: Vec<SliceElem> = vec![range(Some(0), Some(0)); nd];
        return a.slice(&empty);
    }
    let lo = coords.min_axis(0)?;
    let hi = coords.max_axis(0)?;
    let both = concatenate(&[&lo, &hi], 0)?.to_host()?;
    let spec: Vec<SliceElem> = (0..nd)
        .map(|d| range(Some(both[d] as usize), Some(both[nd + d] as usize + 1)))
        .collect();
    a.slice(&spec)
}

/// The Vandermonde matrix of the 1-D `x` (NumPy's `vander`): `n` columns (default
/// `len(x)`) of powers `x^(n-1), ..., x, 1`, or `1, x, ..., x^(n-1)` when `increasing`.
/// Powers are running products (integers wrap).
///
/// # Errors
/// [`Error::InvalidArgument`] when `x` is not 1-D.
///
/// ```no_run
/// use cuarray::{Device, DeviceArray};
/// let dev = Device::new(0)?;
/// let x = DeviceArray::from_slice(&dev, &[1, 2, 3])?;
/// assert_eq!(cuarray::vander(&x, Some(3), false)?.to_host()?, vec![1, 1, 1, 4, 2, 1, 9, 3, 1]);
/// assert_eq!(cuarray::vander(&x, Some(2), true)?.to_host()?, vec![1, 1, 1, 2, 1, 3]);
/// # Ok::<(), cuarray::Error>(())
/// ```
pub fn vander<T: Element>(
    x: &DeviceArray<T>,
    n: Option<usize>,
    increasing: bool,
) -> Result<DeviceArray<T>> {
    const OP: &str = "vander";
    if x.ndim() != 1 {
        return Err(Error::invalid(
            OP,
            format!("x must be 1-D, not of shape {:?}", x.shape()),
        ));
    }
    let m = x.size();
    let n = n.unwrap_or(m);
    if n == 0 || m == 0 {
        return DeviceArray::<T>::zeros(x.device(), &[m, n]);
    }
    let ones = DeviceArray::<T>::ones(x.device(), &[m, 1])?;
    let xs = x.reshape([m, 1])?.broadcast_to(&[m, n - 1])?;
    let powers = concatenate(&[&ones, &xs], 1)?.cumprod(1)?.astype::<T>()?;
    if increasing {
        Ok(powers)
    } else {
        powers.flip(1)?.copy()
    }
}
