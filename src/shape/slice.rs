//! Python-style slicing: [`SliceElem`], the [`s!`](crate::s) macro and its application to a
//! [`Layout`].

use super::Layout;
use crate::{Error, Result};
use std::ops::{Range, RangeFrom, RangeFull, RangeInclusive, RangeTo, RangeToInclusive};

/// One entry of a slice argument: a range with a step, or a single index.
///
/// Indices and bounds may be negative (counted from the end), and steps may be negative,
/// exactly as in Python: `s![5..1;-1]` is Python's `a[5:1:-1]`, `s![..;-1]` reverses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SliceElem {
    /// `start..end;step`; `None` bounds take Python's defaults for the step's sign.
    Range {
        /// First index (inclusive).
        start: Option<isize>,
        /// Last index (exclusive).
        end: Option<isize>,
        /// Step, non-zero.
        step: isize,
    },
    /// A single index: the axis is removed.
    Index(isize),
    /// A new axis of extent 1 (NumPy's `np.newaxis`).
    NewAxis,
}

/// Conversion into a [`SliceElem`], used by the [`s!`](crate::s) macro.
pub trait SliceArg {
    /// The slice entry.
    fn into_elem(self) -> SliceElem;
}

impl SliceArg for SliceElem {
    fn into_elem(self) -> SliceElem {
        self
    }
}

/// An integer as an `isize`, saturating, for the [`s!`](crate::s) macro: a bound, index
/// or step past `isize::MAX` (or below `isize::MIN`) is past the end of every axis (no
/// extent exceeds `isize::MAX`), so saturation keeps Python's meaning where a wrapping
/// `as` cast would turn `usize::MAX` into `-1`.
pub trait SaturatingIsize: Copy {
    /// The value clamped to `isize`'s range.
    fn saturating_isize(self) -> isize;
}

macro_rules! impl_saturating_isize {
    ($($t:ty),*) => {$(
        impl SaturatingIsize for $t {
            #[allow(clippy::unnecessary_fallible_conversions, clippy::useless_conversion)]
            fn saturating_isize(self) -> isize {
                isize::try_from(self).unwrap_or(if self > 0 { isize::MAX } else { isize::MIN })
            }
        }
    )*};
}
impl_saturating_isize!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);

macro_rules! impl_slice_arg {
    ($($t:ty),*) => {$(
        impl SliceArg for $t {
            fn into_elem(self) -> SliceElem { SliceElem::Index(self.saturating_isize()) }
        }
        impl SliceArg for Range<$t> {
            fn into_elem(self) -> SliceElem {
                SliceElem::Range { start: Some(self.start.saturating_isize()), end: Some(self.end.saturating_isize()), step: 1 }
            }
        }
        impl SliceArg for RangeInclusive<$t> {
            fn into_elem(self) -> SliceElem {
                let end = self.end().saturating_isize();
                SliceElem::Range { start: Some(self.start().saturating_isize()), end: if end == -1 { None } else { Some(end.saturating_add(1)) }, step: 1 }
            }
        }
        impl SliceArg for RangeFrom<$t> {
            fn into_elem(self) -> SliceElem {
                SliceElem::Range { start: Some(self.start.saturating_isize()), end: None, step: 1 }
            }
        }
        impl SliceArg for RangeTo<$t> {
            fn into_elem(self) -> SliceElem {
                SliceElem::Range { start: None, end: Some(self.end.saturating_isize()), step: 1 }
            }
        }
        impl SliceArg for RangeToInclusive<$t> {
            fn into_elem(self) -> SliceElem {
                let end = self.end.saturating_isize();
                SliceElem::Range { start: None, end: if end == -1 { None } else { Some(end.saturating_add(1)) }, step: 1 }
            }
        }
    )*};
}
impl_slice_arg!(isize, usize, i32, i64);

/// `None` is a new axis of extent 1, NumPy's `a[:, None]`: `s![.., None]`.
impl SliceArg for Option<std::convert::Infallible> {
    fn into_elem(self) -> SliceElem {
        SliceElem::NewAxis
    }
}

impl SliceArg for RangeFull {
    fn into_elem(self) -> SliceElem {
        SliceElem::Range {
            start: None,
            end: None,
            step: 1,
        }
    }
}

impl SliceElem {
    /// The same entry with another step (`s!`'s `;step`).
    ///
    /// ```
    /// use cuarray::{s, SliceElem};
    /// let every_other = SliceElem::Range { start: None, end: None, step: 1 }.with_step(2);
    /// assert_eq!(every_other, s![..;2][0]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn with_step(self, step: isize) -> SliceElem {
        match self {
            SliceElem::Range { start, end, .. } => SliceElem::Range { start, end, step },
            other => other,
        }
    }
}

/// Builds a slice argument for [`DeviceArray::slice`](crate::DeviceArray::slice), with
/// Python's semantics.
///
/// Each entry is a range (`a..b`, `a..`, `..b`, `..`, `a..=b`) optionally followed by
/// `;step`, an integer index (removes the axis), or `None` (or `SliceElem::NewAxis`): a new
/// axis of extent 1, as NumPy's `a[:, None]`. Negative bounds count from the end;
/// a negative step walks backwards (`..;-1` reverses an axis). Axes not named are kept whole.
/// Values outside `isize`'s range saturate (`s![usize::MAX]` is out of bounds, never `-1`).
///
/// ```
/// use cuarray::{s, shape::SliceElem};
/// let spec = s![1..3, .., 0..;2, -1, ..;-1];
/// assert_eq!(spec.len(), 5);
/// assert_eq!(spec[3], SliceElem::Index(-1));
/// assert_eq!(s![.., None][1], SliceElem::NewAxis);
/// ```
#[macro_export]
macro_rules! s {
    ($($e:expr $(; $step:expr)?),* $(,)?) => {
        [$( {
            #[allow(unused_mut, clippy::reversed_empty_ranges)]
            let mut el = $crate::shape::SliceArg::into_elem($e);
            $( el = el.with_step($crate::shape::SaturatingIsize::saturating_isize($step)); )?
            el
        } ),*]
    };
}

/// Python's `slice.indices`: the (start, count) of `start:end:step` over an axis of `len`,
/// computed in `i128` so that no bound or step can overflow. `step` is non-zero.
pub(crate) fn resolve(
    start: Option<isize>,
    end: Option<isize>,
    step: isize,
    len: usize,
) -> (isize, usize) {
    let (n, step) = (len as i128, step as i128);
    let norm = |v: isize, lo: i128, hi: i128| {
        let v = v as i128;
        (if v < 0 { v + n } else { v }).clamp(lo, hi)
    };
    let (s, e) = if step > 0 {
        (
            start.map_or(0, |v| norm(v, 0, n)),
            end.map_or(n, |v| norm(v, 0, n)),
        )
    } else {
        (
            start.map_or(n - 1, |v| norm(v, -1, n - 1)),
            end.map_or(-1, |v| norm(v, -1, n - 1)),
        )
    };
    let count = if step > 0 && e > s {
        (e - s + step - 1) / step
    } else if step < 0 && s > e {
        (s - e - step - 1) / -step
    } else {
        0
    };
    // 0 <= count <= len and -1 <= s <= len: both fit.
    (s as isize, count as usize)
}

impl Layout {
    /// Applies a slice argument (as built by [`s!`](crate::s)) and returns the view's layout.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for more indices than dimensions, an index out of bounds,
    /// a zero step, or a stride that overflows.
    ///
    /// ```
    /// use cuarray::{s, shape::Layout};
    /// let v = Layout::contiguous(&[3, 4]).slice(&s![.., ..;-2])?; // NumPy's a[:, ::-2]
    /// assert_eq!((v.shape(), v.strides(), v.offset()), (&[3, 2][..], &[4, -2][..], 3));
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn slice(&self, spec: &[SliceElem]) -> Result<Layout> {
        let consumed = spec
            .iter()
            .filter(|e| !matches!(e, SliceElem::NewAxis))
            .count();
        if consumed > self.ndim() {
            return Err(Error::invalid(
                "slice",
                format!(
                    "{consumed} indices given for an array of {} dimension(s)",
                    self.ndim()
                ),
            ));
        }
        let mut shape = Vec::with_capacity(self.ndim() + spec.len());
        let mut strides = Vec::with_capacity(self.ndim() + spec.len());
        let mut offset = self.offset() as isize;
        let mut axis = 0usize;
        for el in spec {
            match *el {
                SliceElem::NewAxis => {
                    shape.push(1);
                    strides.push(0);
                }
                SliceElem::Index(i) => {
                    let len = self.shape()[axis];
                    let j = if i < 0 {
                        i as i128 + len as i128
                    } else {
                        i as i128
                    };
                    if j < 0 || j >= len as i128 {
                        return Err(Error::invalid(
                            "slice",
                            format!("index {i} is out of bounds for axis {axis} with size {len}"),
                        ));
                    }
                    // 0 <= j < len: the element is inside the view, so this fits.
                    offset += j as isize * self.strides()[axis];
                    axis += 1;
                }
                SliceElem::Range { start, end, step } => {
                    if step == 0 {
                        return Err(Error::invalid(
                            "slice",
                            format!(
                                "slice step cannot be zero (axis {axis}, {}..{};0)",
                                start.map_or(String::new(), |v| v.to_string()),
                                end.map_or(String::new(), |v| v.to_string())
                            ),
                        ));
                    }
                    let len = self.shape()[axis];
                    let (s, count) = resolve(start, end, step, len);
                    let old = self.strides()[axis];
                    if count > 0 {
                        offset += s * old;
                    }
                    // With two elements or more, |step| < len and the product fits; with
                    // fewer the stride is never used.
                    let stride = match old.checked_mul(step) {
                        Some(st) => st,
                        None if count <= 1 => 0,
                        None => {
                            return Err(Error::invalid(
                                "slice",
                                format!("stride {old} times step {step} overflows on axis {axis}"),
                            ))
                        }
                    };
                    shape.push(count);
                    strides.push(stride);
                    axis += 1;
                }
            }
        }
        shape.extend_from_slice(&self.shape()[axis..]);
        strides.extend_from_slice(&self.strides()[axis..]);
        Ok(Layout::from_parts(shape, strides, offset as usize))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn idx(l: &Layout) -> Vec<usize> {
        l.iter_offsets().collect()
    }

    #[test]
    fn python_semantics_1d() {
        let l = Layout::contiguous(&[10]);
        assert_eq!(idx(&l.slice(&s![2..5]).unwrap()), vec![2, 3, 4]);
        assert_eq!(idx(&l.slice(&s![..;3]).unwrap()), vec![0, 3, 6, 9]);
        assert_eq!(
            idx(&l.slice(&s![..;-1]).unwrap()),
            (0..10).rev().collect::<Vec<_>>()
        );
        assert_eq!(idx(&l.slice(&s![5..1;-1]).unwrap()), vec![5, 4, 3, 2]);
        assert_eq!(idx(&l.slice(&s![-3..]).unwrap()), vec![7, 8, 9]);
        assert_eq!(idx(&l.slice(&s![..;-3]).unwrap()), vec![9, 6, 3, 0]);
        assert_eq!(idx(&l.slice(&s![8..2;-2]).unwrap()), vec![8, 6, 4]);
        assert_eq!(idx(&l.slice(&s![3..3]).unwrap()), Vec::<usize>::new());
        assert_eq!(idx(&l.slice(&s![20..]).unwrap()), Vec::<usize>::new());
        assert_eq!(idx(&l.slice(&s![1..=3]).unwrap()), vec![1, 2, 3]);
        assert_eq!(l.slice(&s![-1]).unwrap().offset(), 9);
        assert!(l.slice(&s![10]).is_err());
        assert!(l.slice(&s![..;0]).is_err());
        assert!(l.slice(&s![1, 2]).is_err());
        let e = l.slice(&s![2..;0]).unwrap_err().to_string();
        assert!(
            e.contains("slice") && e.contains("axis 0") && e.contains("2..;0"),
            "{e}"
        );
    }

    #[test]
    fn extreme_bounds_and_steps() {
        let l = Layout::contiguous(&[10]);
        // Indices past isize::MAX are out of bounds, never wrapped to negative ones.
        assert!(l.slice(&s![usize::MAX]).is_err());
        assert!(l.slice(&s![1usize << 63]).is_err());
        assert!(l.slice(&s![isize::MIN]).is_err());
        assert!(l.slice(&s![isize::MAX]).is_err());
        // Bounds clamp as Python's do.
        assert_eq!(
            idx(&l.slice(&s![(1usize << 63)..]).unwrap()),
            Vec::<usize>::new()
        );
        assert_eq!(
            idx(&l.slice(&s![..(1usize << 63)]).unwrap()),
            (0..10).collect::<Vec<_>>()
        );
        assert_eq!(
            idx(&l.slice(&s![usize::MAX..]).unwrap()),
            Vec::<usize>::new()
        );
        assert_eq!(idx(&l.slice(&s![..=usize::MAX]).unwrap()).len(), 10);
        assert_eq!(idx(&l.slice(&s![isize::MIN..]).unwrap()).len(), 10);
        assert_eq!(
            idx(&l.slice(&s![..isize::MIN]).unwrap()),
            Vec::<usize>::new()
        );
        assert_eq!(
            idx(&l.slice(&s![(1usize << 63)..;-1]).unwrap()),
            (0..10).rev().collect::<Vec<_>>()
        );
        assert_eq!(
            idx(&l.slice(&s![isize::MIN..;-1]).unwrap()),
            Vec::<usize>::new()
        );
        // Steps near the extremes give one element.
        for step in [isize::MAX, isize::MAX - 1, 1 << 62] {
            let v = l.slice(&s![..;step]).unwrap();
            assert_eq!((v.shape(), idx(&v)), (&[1usize][..], vec![0]));
            let v = l.slice(&s![3..;step]).unwrap();
            assert_eq!(idx(&v), vec![3]);
        }
        for step in [isize::MIN, isize::MIN + 1, -(1 << 62)] {
            let v = l.slice(&s![..;step]).unwrap();
            assert_eq!((v.shape(), idx(&v)), (&[1usize][..], vec![9]));
            let v = l.slice(&s![isize::MAX..isize::MIN;step]).unwrap();
            assert_eq!(idx(&v), vec![9]);
        }
        // Steps saturate too: usize::MAX is a huge positive step, not -1.
        assert_eq!(idx(&l.slice(&s![..;usize::MAX]).unwrap()), vec![0]);
        assert_eq!(idx(&l.slice(&s![..;i128::MIN]).unwrap()), vec![9]);
        // A huge step on a strided axis: one element, no overflowing stride.
        let t = Layout::contiguous(&[4, 1000]).t();
        let v = t.slice(&s![.., ..;isize::MAX]).unwrap();
        assert_eq!(v.shape(), &[1000, 1]);
        assert_eq!(idx(&v), (0..1000).collect::<Vec<_>>());
    }

    #[test]
    fn multi_axis() {
        let l = Layout::contiguous(&[3, 4]);
        let v = l.slice(&s![1..3, ..;2]).unwrap();
        assert_eq!(v.shape(), &[2, 2]);
        assert_eq!(idx(&v), vec![4, 6, 8, 10]);
        let v = l.slice(&s![.., -1]).unwrap();
        assert_eq!(idx(&v), vec![3, 7, 11]);
        let v = l.slice(&s![..;-1, ..;-1]).unwrap();
        assert_eq!(idx(&v), (0..12).rev().collect::<Vec<_>>());
        let v = l.slice(&s![1]).unwrap();
        assert_eq!(v.shape(), &[4]);
        let v = l.slice(&[SliceElem::NewAxis, SliceElem::Index(0)]).unwrap();
        assert_eq!(v.shape(), &[1, 4]);
        let v = l.slice(&s![.., None, 1..;2]).unwrap();
        assert_eq!(v.shape(), &[3, 1, 2]);
        assert_eq!(idx(&v), vec![1, 3, 5, 7, 9, 11]);
        assert_eq!(l.slice(&s![None]).unwrap().shape(), &[1, 3, 4]);
    }
}
