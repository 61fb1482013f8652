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

/// Number of elements of a shape (1 for the 0-d shape).
pub fn size_of(shape: &[usize]) -> usize {
    shape.iter().product()
}

/// Row-major (C order) strides in elements for `shape`.
pub fn c_strides(shape: &[usize]) -> Vec<isize> {
    let mut strides = vec![0isize; shape.len()];
    let mut acc = 1isize;
    for (s, &d) in strides.iter_mut().zip(shape).rev() {
        *s = acc;
        acc *= d.max(1) as isize;
    }
    strides
}
