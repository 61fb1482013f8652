//! Pure host-side shape logic: layouts, broadcasting, slicing, axis collapsing.
//!
//! Nothing in this module touches CUDA; everything here is tested on any machine.

mod broadcast;
mod collapse;
mod layout;
mod slice;

pub use broadcast::broadcast_shapes;
pub use collapse::{collapse, Collapsed};
pub use layout::Layout;
pub use slice::{SliceArg, SliceElem};

use crate::{Error, Result};

/// Normalises a possibly negative axis (NumPy style) against `ndim`.
///
/// ```
/// assert_eq!(cuarray::shape::normalize_axis("op", -1, 3).unwrap(), 2);
/// assert!(cuarray::shape::normalize_axis("op", 3, 3).is_err());
/// ```
pub fn normalize_axis(op: &'static str, axis: isize, ndim: usize) -> Result<usize> {
    let n = ndim as isize;
    if axis < -n || axis >= n {
        return Err(Error::AxisOutOfRange { op, axis, ndim });
    }
    Ok(if axis < 0 { axis + n } else { axis } as usize)
}

/// Number of elements of a shape (1 for the 0-d shape), unchecked: for shapes already
/// validated by [`checked_size`] (every shape of a [`Layout`] that cuarray built).
pub fn size_of(shape: &[usize]) -> usize {
    shape.iter().product()
}

/// Number of elements of `shape`, checked: every shape cuarray accepts has a product of its
/// non-zero extents of at most `isize::MAX`, so that element counts, strides and offsets of
/// any of its views fit in `isize`.
///
/// # Errors
/// [`Error::TooLarge`] naming `op` and `shape` otherwise.
///
/// ```
/// use cuarray::shape::checked_size;
/// assert_eq!(checked_size("op", &[2, 3]).unwrap(), 6);
/// assert_eq!(checked_size("op", &[0, 1 << 40]).unwrap(), 0);
/// assert!(checked_size("op", &[1 << 32, 1 << 32]).is_err());
/// ```
pub fn checked_size(op: &'static str, shape: &[usize]) -> Result<usize> {
    let mut nonzero = 1usize;
    for &d in shape {
        nonzero = nonzero
            .checked_mul(d.max(1))
            .filter(|&n| n <= isize::MAX as usize)
            .ok_or_else(|| Error::TooLarge {
                op,
                shape: shape.to_vec(),
                elem_bytes: None,
            })?;
    }
    Ok(if shape.contains(&0) { 0 } else { nonzero })
}

/// Byte size of the elements of `shape` for elements of `T`, checked: the element count
/// ([`checked_size`]) times `size_of::<T>()` must stay at most `isize::MAX` (the limit of
/// every Rust allocation).
///
/// # Errors
/// [`Error::TooLarge`] naming `op` and `shape` otherwise.
///
/// ```
/// use cuarray::shape::byte_size;
/// assert_eq!(byte_size::<f32>("op", &[2, 3]).unwrap(), 24);
/// assert!(byte_size::<f64>("op", &[1 << 61]).is_err());
/// ```
pub fn byte_size<T>(op: &'static str, shape: &[usize]) -> Result<usize> {
    let n = checked_size(op, shape)?;
    let elem = std::mem::size_of::<T>();
    n.checked_mul(elem)
        .filter(|&b| b <= isize::MAX as usize)
        .ok_or_else(|| Error::TooLarge {
            op,
            shape: shape.to_vec(),
            elem_bytes: Some(elem),
        })
}

/// Row-major (C order) strides in elements for `shape`, which must be valid
/// ([`checked_size`]); debug builds panic on overflow otherwise.
pub fn c_strides(shape: &[usize]) -> Vec<isize> {
    let mut strides = vec![0isize; shape.len()];
    let mut acc = 1isize;
    for (s, &d) in strides.iter_mut().zip(shape).rev() {
        *s = acc;
        acc *= d.max(1) as isize;
    }
    strides
}
