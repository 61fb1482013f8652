//! Pure host-side shape logic: layouts, broadcasting, slicing, axis collapsing.
//!
//! Nothing in this module touches CUDA; everything here is tested on any machine.
//!
//! ```
//! use cuarray::shape::{broadcast_shapes, Layout};
//! assert_eq!(broadcast_shapes("add", &[3, 1], &[4])?, vec![3, 4]);
//! let row = Layout::contiguous(&[3]).expand_dims(0)?.broadcast_to(&[2, 3])?;
//! assert_eq!(row.iter_offsets().collect::<Vec<_>>(), vec![0, 1, 2, 0, 1, 2]);
//! # Ok::<(), cuarray::Error>(())
//! ```

mod broadcast;
mod collapse;
pub mod einsum;
mod into;
mod ix;
mod layout;
mod slice;

pub use broadcast::broadcast_shapes;
pub use collapse::{collapse, Collapsed};
pub use into::{new_shape, reshape_target, Dim, IntoAxes, IntoShape};
pub use ix::{plan_index, IxAxis, IxEntry, IxPlan};
pub use layout::Layout;
pub use slice::{SaturatingIsize, SliceArg, SliceElem};

use crate::{Error, Result};

/// Normalises a possibly negative axis (NumPy style) against `ndim`.
///
/// # Errors
/// [`Error::AxisOutOfRange`] naming `op` when `axis` is outside `-ndim..ndim`.
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
///
/// ```
/// assert_eq!(cuarray::shape::size_of(&[2, 3, 4]), 24);
/// assert_eq!(cuarray::shape::size_of(&[]), 1);
/// # Ok::<(), cuarray::Error>(())
/// ```
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
///
/// ```
/// assert_eq!(cuarray::shape::c_strides(&[2, 3, 4]), vec![12, 4, 1]);
/// # Ok::<(), cuarray::Error>(())
/// ```
pub fn c_strides(shape: &[usize]) -> Vec<isize> {
    let mut strides = vec![0isize; shape.len()];
    let mut acc = 1isize;
    for (s, &d) in strides.iter_mut().zip(shape).rev() {
        *s = acc;
        acc *= d.max(1) as isize;
    }
    strides
}

#[cfg(test)]
mod tests {
    use super::*;

    const HUGE: usize = 1 << 32;

    fn too_large<T: std::fmt::Debug>(op: &str, r: Result<T>) {
        match r {
            Err(Error::TooLarge { op: o, .. }) if o == op => {}
            other => panic!("expected TooLarge from {op}, got {other:?}"),
        }
    }

    #[test]
    fn element_counts() {
        assert_eq!(checked_size("t", &[]).unwrap(), 1);
        assert_eq!(checked_size("t", &[0]).unwrap(), 0);
        assert_eq!(checked_size("t", &[3, 0, 5]).unwrap(), 0);
        assert_eq!(checked_size("t", &[1 << 31, 1 << 31]).unwrap(), 1 << 62);
        assert_eq!(
            checked_size("t", &[isize::MAX as usize]).unwrap(),
            isize::MAX as usize
        );
        too_large("t", checked_size("t", &[isize::MAX as usize + 1]));
        too_large("t", checked_size("t", &[usize::MAX]));
        too_large("t", checked_size("t", &[HUGE, HUGE]));
        // Wraps to 16 in unchecked arithmetic.
        too_large("t", checked_size("t", &[(1 << 60) + 1, 16]));
        // Zeros do not hide an overflowing product of the other extents.
        too_large("t", checked_size("t", &[0, HUGE, HUGE]));
        too_large("t", checked_size("t", &[HUGE, HUGE, 0]));
        let e = checked_size("zeros", &[HUGE, HUGE])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("zeros") && e.contains("[4294967296, 4294967296]"),
            "{e}"
        );
    }

    #[test]
    fn byte_sizes() {
        assert_eq!(byte_size::<f64>("t", &[2, 3]).unwrap(), 48);
        assert_eq!(byte_size::<u8>("t", &[0, 7]).unwrap(), 0);
        assert_eq!(byte_size::<f32>("t", &[1 << 60]).unwrap(), 1 << 62);
        too_large("t", byte_size::<f64>("t", &[1 << 61]));
        too_large("t", byte_size::<u8>("t", &[usize::MAX]));
        too_large("to_host", byte_size::<f32>("to_host", &[1 << 31, 1 << 31]));
        let e = byte_size::<f32>("to_host", &[1 << 62])
            .unwrap_err()
            .to_string();
        assert!(e.contains("to_host") && e.contains("4 per element"), "{e}");
    }

    #[test]
    fn overflowing_views() {
        let l = Layout::contiguous(&[16]);
        too_large("reshape", Layout::infer_shape(16, &[(1 << 60) + 1, 16]));
        too_large("reshape", Layout::infer_shape(16, &[-1, 1 << 62, 1 << 62]));
        too_large("reshape", Layout::infer_shape(0, &[0, 1 << 62, 1 << 62]));
        assert_eq!(
            Layout::infer_shape(0, &[0, 1 << 40]).unwrap(),
            vec![0, 1 << 40]
        );
        assert!(Layout::infer_shape(16, &[isize::MIN, -1]).is_err());
        too_large("broadcast_to", l.broadcast_to(&[HUGE, HUGE, 16]));
        too_large("broadcast_to", l.broadcast_to(&[usize::MAX, 16]));
        let b = l.broadcast_to(&[1 << 31, 1 << 27, 16]).unwrap();
        assert_eq!(b.size(), 1 << 62);
        assert_eq!(b.span(), (0, 16));
        too_large("add", broadcast_shapes("add", &[HUGE, 1], &[1, HUGE]));
        assert_eq!(
            broadcast_shapes("add", &[1 << 31, 1], &[1, 1 << 31]).unwrap(),
            vec![1 << 31, 1 << 31]
        );
        // Views that only shrink or add extents of 1 stay valid.
        let e = b
            .expand_dims(0)
            .unwrap()
            .slice(&crate::s![.., ..;-1, 5])
            .unwrap();
        assert_eq!(e.shape(), &[1, 1 << 31, 16]);
        assert!(e.iter_offsets().take(100).all(|o| o < 16));
    }
}
