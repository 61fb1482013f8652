//! Weighted averages, binning and the small difference/integration helpers.

use crate::array::DeviceArray;
use crate::element::{Element, FloatElement};
use crate::shape::{normalize_axis, SliceElem};
use crate::{Error, Result};

/// `start..end` along one axis of an `nd`-dimensional array, whole ranges elsewhere.
fn along(nd: usize, axis: usize, start: Option<isize>, end: Option<isize>) -> Vec<SliceElem> {
    (0..nd)
        .map(|k| SliceElem::Range {
            start: if k == axis { start } else { None },
            end: if k == axis { end } else { None },
            step: 1,
        })
        .collect()
}

/// Weighted average of `a` over `axis` (all elements when `None`), NumPy's `average`:
/// `sum(a * w) / sum(w)`. `weights` has `a`'s shape, or is 1-D with the extent of `axis`;
/// without weights this is the mean. A zero weight sum gives NaN or ±inf where NumPy
/// raises.
///
/// ```no_run
/// let dev = cuarray::Device::new(0)?;
/// let a = cuarray::DeviceArray::from_host(&dev, &[1.0f64, 2.0, 3.0, 4.0], &[2, 2])?;
/// let w = cuarray::DeviceArray::from_slice(&dev, &[3.0f64, 1.0])?;
/// assert_eq!(cuarray::average(&a, Some(&w), Some(1))?.to_host()?, vec![1.25, 3.25]);
/// assert_eq!(cuarray::average(&a, None, None)?.to_scalar()?, 2.5);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] when `weights` has neither `a`'s shape nor (with an axis)
/// the axis's extent; [`Error::AxisOutOfRange`]; [`Error::DeviceMismatch`].
pub fn average<T: FloatElement>(
    a: &DeviceArray<T>,
    weights: Option<&DeviceArray<T>>,
    axis: Option<isize>,
) -> Result<DeviceArray<T>> {
    let Some(w) = weights else {
        return match axis {
            None => a.mean(),
            Some(ax) => a.mean_axis(ax),
        };
    };
    let w = if w.shape() == a.shape() {
        w.clone()
    } else {
        match axis {
            Some(ax) if w.ndim() == 1 => {
                let k = normalize_axis("average", ax, a.ndim())?;
                if w.shape()[0] != a.shape()[k] {
                    return Err(Error::invalid(
                        "average",
                        format!(
                            "1-D weights of length {} along an axis of extent {}",
                            w.shape()[0],
                            a.shape()[k]
                        ),
                    ));
                }
                let mut shape = vec![1usize; a.ndim()];
                shape[k] = a.shape()[k];
                w.reshape(shape)?.broadcast_to(a.shape())?
            }
            _ => {
                return Err(Error::invalid(
                    "average",
                    format!(
                        "weights of shape {:?} for an array of shape {:?} (give the array's shape, or a 1-D array along the axis)",
                        w.shape(),
                        a.shape()
                    ),
                ))
            }
        }
    };
    let aw = (a * &w)?;
    match axis {
        None => &aw.sum()? / &w.sum()?,
        Some(ax) => &aw.sum_axis(ax)? / &w.sum_axis(ax)?,
    }
}

/// Indices of the bins each value of `x` falls in (NumPy's `digitize`) for increasing
/// `bins`: `i` with `bins[i-1] <= x < bins[i]` (or `bins[i-1] < x <= bins[i]` with
/// `right`), 0 below the first edge and `bins.len()` above the last. One binary search per
/// value ([`searchsorted`](crate::searchsorted)). Decreasing bins are not supported yet
/// (they are not detected either: the result is then meaningless).
///
/// ```no_run
/// let dev = cuarray::Device::new(0)?;
/// let x = cuarray::DeviceArray::from_slice(&dev, &[0.2f64, 6.4, 3.0, 1.6])?;
/// let bins = cuarray::DeviceArray::from_slice(&dev, &[0.0f64, 1.0, 2.5, 4.0, 10.0])?;
/// assert_eq!(cuarray::digitize(&x, &bins, false)?.to_host()?, vec![1, 4, 3, 2]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] when `bins` is not 1-D; [`Error::DeviceMismatch`].
pub fn digitize<T: Element>(
    x: &DeviceArray<T>,
    bins: &DeviceArray<T>,
    right: bool,
) -> Result<DeviceArray<i64>> {
    // NumPy: side='left' when right, else side='right'.
    crate::searchsorted(bins, x, !right)
}

/// The differences of consecutive elements of the flattened array (NumPy's `ediff1d`
/// without `to_begin`/`to_end`).
///
/// ```no_run
/// let dev = cuarray::Device::new(0)?;
/// let a = cuarray::DeviceArray::from_host(&dev, &[1, 2, 4, 7], &[2, 2])?;
/// assert_eq!(cuarray::ediff1d(&a)?.to_host()?, vec![1, 2, 3]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// Only the device's.
pub fn ediff1d<T: crate::NumElement>(a: &DeviceArray<T>) -> Result<DeviceArray<T>> {
    let flat = a.reshape([a.size()])?;
    if a.size() == 0 {
        return Ok(flat);
    }
    flat.diff(1, 0)
}

/// Integral of `y` along `axis` by the trapezoidal rule with sample spacing `dx`
/// (NumPy's `trapezoid` with `dx`): `sum((y[1:] + y[:-1]) * dx / 2)`; 0 for fewer than
/// two samples.
///
/// ```no_run
/// let dev = cuarray::Device::new(0)?;
/// let y = cuarray::DeviceArray::from_host(&dev, &[1.0f64, 2.0, 3.0, 4.0, 6.0, 8.0], &[2, 3])?;
/// assert_eq!(cuarray::trapezoid(&y, 1.0, -1)?.to_host()?, vec![4.0, 12.0]);
/// assert_eq!(cuarray::trapezoid(&y, 0.5, 0)?.to_host()?, vec![1.25, 2.0, 2.75]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::AxisOutOfRange`] for an axis outside `-ndim..ndim`.
pub fn trapezoid<T: FloatElement>(
    y: &DeviceArray<T>,
    dx: f64,
    axis: isize,
) -> Result<DeviceArray<T>> {
    let nd = y.ndim();
    let k = normalize_axis("trapezoid", axis, nd)?;
    if y.shape()[k] < 2 {
        let mut shape = y.shape().to_vec();
        shape.remove(k);
        return DeviceArray::full(y.device(), shape, T::from_f64(0.0));
    }
    let hi = y.slice(along(nd, k, Some(1), None))?;
    let lo = y.slice(along(nd, k, None, Some(-1)))?;
    ((&hi + &lo)? * T::from_f64(dx / 2.0))?.sum_axis(axis)
}
