//! Diagonals and triangles: [`diag`], [`diagflat`], [`DeviceArray::tri`],
//! [`tril_indices`], [`triu_indices`], [`diag_indices`] and
//! [`fill_diagonal`](DeviceArray::fill_diagonal), built from views, elementwise ops and
//! `nonzero`.

use super::indexing::nonzero;
use super::DeviceArray;
use crate::element::Element;
use crate::shape::Layout;
use crate::{Device, Error, Result};

/// The `(n, m)` mask of `col - row <= k`.
fn lower_mask(device: &Device, n: usize, m: usize, k: isize) -> Result<DeviceArray<bool>> {
    let rows = DeviceArray::<i64>::arange(device, 0, n as i64, 1)?.reshape([n, 1])?;
    let cols = DeviceArray::<i64>::arange(device, 0, m as i64, 1)?.reshape([1, m])?;
    (&cols - &rows)?.le(k as i64)
}

impl<T: Element> DeviceArray<T> {
    /// The `(n, m)` array (`m` defaults to `n`) with ones at and below the `k`-th
    /// diagonal and zeros above it (NumPy's `tri`): `out[i, j] = (j - i <= k)`.
    ///
    /// # Errors
    /// [`Error::OutOfMemory`] when the device is full.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let t = DeviceArray::<f32>::tri(&dev, 2, Some(3), 0)?;
    /// assert_eq!(t.to_host()?, vec![1., 0., 0., 1., 1., 0.]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn tri(device: &Device, n: usize, m: Option<usize>, k: isize) -> Result<Self> {
        lower_mask(device, n, m.unwrap_or(n), k)?.astype::<T>()
    }

    /// Writes `value` on the main diagonal, in place (NumPy's `fill_diagonal` without
    /// `wrap`): `a[i, i, ..., i]` for `i < min(shape)`. A 2-D array may be rectangular;
    /// more dimensions must all have the same extent.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for fewer than 2 dimensions, unequal extents beyond 2-D,
    /// or a broadcast view (stride 0).
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::<i32>::zeros(&dev, &[3, 2])?;
    /// a.fill_diagonal(5)?;
    /// assert_eq!(a.to_host()?, vec![5, 0, 0, 5, 0, 0]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn fill_diagonal(&self, value: T) -> Result<()> {
        const OP: &str = "fill_diagonal";
        let sh = self.shape();
        if sh.len() < 2 {
            return Err(Error::invalid(
                OP,
                format!("needs at least 2 dimensions, not shape {sh:?}"),
            ));
        }
        if sh.len() > 2 && sh.iter().any(|&e| e != sh[0]) {
            return Err(Error::invalid(
                OP,
                format!("all dimensions of an array of more than 2 must be equal, not {sh:?}"),
            ));
        }
        self.check_writable(OP)?;
        let len = sh.iter().copied().min().unwrap_or(0);
        let stride: isize = self.strides().iter().sum();
        let d = self.with_layout(Layout::from_parts(
            vec![len],
            vec![stride],
            self.layout().offset(),
        ));
        if len == 0 {
            return Ok(());
        }
        d.fill_with(OP, value)
    }
}

/// A 1-D `v` as the `k`-th diagonal of a new square array of side `len + |k|`, or the
/// `k`-th diagonal of a 2-D `v` as a new 1-D array (NumPy's `diag`).
///
/// # Errors
/// [`Error::InvalidArgument`] when `v` is neither 1-D nor 2-D.
///
/// ```no_run
/// use cuarray::{Device, DeviceArray};
/// let dev = Device::new(0)?;
/// let v = DeviceArray::from_slice(&dev, &[1, 2])?;
/// let m = cuarray::diag(&v, -1)?;
/// assert_eq!((m.shape(), m.to_host()?), (&[3, 3][..], vec![0, 0, 0, 1, 0, 0, 0, 2, 0]));
/// assert_eq!(cuarray::diag(&m, -1)?.to_host()?, vec![1, 2]);
/// # Ok::<(), cuarray::Error>(())
/// ```
pub fn diag<T: Element>(v: &DeviceArray<T>, k: isize) -> Result<DeviceArray<T>> {
    match v.ndim() {
        1 => {
            let n = v.size() + k.unsigned_abs();
            let out = DeviceArray::<T>::zeros(v.device(), &[n, n])?;
            out.diagonal(k, 0, 1)?.assign(v)?;
            Ok(out)
        }
        2 => v.diagonal(k, 0, 1)?.copy(),
        _ => Err(Error::invalid(
            "diag",
            format!("the input must be 1-D or 2-D, not of shape {:?}", v.shape()),
        )),
    }
}

/// The flattened `v` as the `k`-th diagonal of a new square array (NumPy's `diagflat`).
///
/// # Errors
/// [`Error::OutOfMemory`] when the device is full.
///
/// ```no_run
/// use cuarray::{Device, DeviceArray};
/// let dev = Device::new(0)?;
/// let v = DeviceArray::from_host(&dev, &[1, 2, 3, 4], &[2, 2])?;
/// assert_eq!(cuarray::diagflat(&v, 0)?.shape(), &[4, 4]);
/// # Ok::<(), cuarray::Error>(())
/// ```
pub fn diagflat<T: Element>(v: &DeviceArray<T>, k: isize) -> Result<DeviceArray<T>> {
    diag(&v.reshape([v.size()])?, k)
}

/// The row and column indices of the lower triangle of an `(n, m)` array (`m` defaults
/// to `n`), at and below the `k`-th diagonal, in C order (NumPy's `tril_indices`).
///
/// # Synchronization
/// The number of indices is read back (one wait for the GPU).
///
/// # Errors
/// [`Error::OutOfMemory`] when the device is full.
///
/// ```no_run
/// use cuarray::Device;
/// let dev = Device::new(0)?;
/// let (r, c) = cuarray::tril_indices(&dev, 3, 0, None)?;
/// assert_eq!((r.to_host()?, c.to_host()?), (vec![0, 1, 1, 2, 2, 2], vec![0, 0, 1, 0, 1, 2]));
/// # Ok::<(), cuarray::Error>(())
/// ```
pub fn tril_indices(
    device: &Device,
    n: usize,
    k: isize,
    m: Option<usize>,
) -> Result<(DeviceArray<i64>, DeviceArray<i64>)> {
    pair(nonzero(&lower_mask(device, n, m.unwrap_or(n), k)?)?)
}

/// The row and column indices of the upper triangle of an `(n, m)` array (`m` defaults
/// to `n`), at and above the `k`-th diagonal, in C order (NumPy's `triu_indices`).
///
/// # Synchronization
/// The number of indices is read back (one wait for the GPU).
///
/// # Errors
/// [`Error::OutOfMemory`] when the device is full.
///
/// ```no_run
/// use cuarray::Device;
/// let dev = Device::new(0)?;
/// let (r, c) = cuarray::triu_indices(&dev, 3, 1, None)?;
/// assert_eq!((r.to_host()?, c.to_host()?), (vec![0, 0, 1], vec![1, 2, 2]));
/// # Ok::<(), cuarray::Error>(())
/// ```
pub fn triu_indices(
    device: &Device,
    n: usize,
    k: isize,
    m: Option<usize>,
) -> Result<(DeviceArray<i64>, DeviceArray<i64>)> {
    let upper = lower_mask(device, n, m.unwrap_or(n), k.saturating_sub(1))?.logical_not()?;
    pair(nonzero(&upper)?)
}

fn pair(mut v: Vec<DeviceArray<i64>>) -> Result<(DeviceArray<i64>, DeviceArray<i64>)> {
    match (v.pop(), v.pop()) {
        (Some(c), Some(r)) => Ok((r, c)),
        _ => Err(Error::invalid("tril_indices", "expected two index arrays")),
    }
}

/// The indices of the main diagonal of an array of `ndim` axes of extent `n`: `ndim`
/// times the same array `0..n` (NumPy's `diag_indices`; the arrays share memory, as
/// NumPy's tuple holds one array `ndim` times).
///
/// # Errors
/// [`Error::OutOfMemory`] when the device is full.
///
/// ```no_run
/// use cuarray::{ix, Device, DeviceArray};
/// let dev = Device::new(0)?;
/// let a = DeviceArray::<i32>::zeros(&dev, &[3, 3])?;
/// let d = cuarray::diag_indices(&dev, 3, 2)?;
/// a.index_put(ix![&d[0], &d[1]], 1)?;
/// assert_eq!(a.to_host()?, vec![1, 0, 0, 0, 1, 0, 0, 0, 1]);
/// # Ok::<(), cuarray::Error>(())
/// ```
pub fn diag_indices(device: &Device, n: usize, ndim: usize) -> Result<Vec<DeviceArray<i64>>> {
    let i = DeviceArray::<i64>::arange(device, 0, n as i64, 1)?;
    Ok(vec![i; ndim])
}
