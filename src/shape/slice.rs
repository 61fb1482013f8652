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

macro_rules! impl_slice_arg {
    ($($t:ty),*) => {$(
        impl SliceArg for $t {
            fn into_elem(self) -> SliceElem { SliceElem::Index(self as isize) }
        }
        impl SliceArg for Range<$t> {
            fn into_elem(self) -> SliceElem {
                SliceElem::Range { start: Some(self.start as isize), end: Some(self.end as isize), step: 1 }
            }
        }
        impl SliceArg for RangeInclusive<$t> {
            fn into_elem(self) -> SliceElem {
                let end = *self.end() as isize;
                SliceElem::Range { start: Some(*self.start() as isize), end: if end == -1 { None } else { Some(end + 1) }, step: 1 }
            }
        }
        impl SliceArg for RangeFrom<$t> {
            fn into_elem(self) -> SliceElem {
                SliceElem::Range { start: Some(self.start as isize), end: None, step: 1 }
            }
        }
        impl SliceArg for RangeTo<$t> {
            fn into_elem(self) -> SliceElem {
                SliceElem::Range { start: None, end: Some(self.end as isize), step: 1 }
            }
        }
        impl SliceArg for RangeToInclusive<$t> {
            fn into_elem(self) -> SliceElem {
                let end = self.end as isize;
                SliceElem::Range { start: None, end: if end == -1 { None } else { Some(end + 1) }, step: 1 }
            }
        }
    )*};
}
impl_slice_arg!(isize, usize, i32, i64);

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
/// `;step`, or an integer index (removes the axis). Negative bounds count from the end;
/// a negative step walks backwards (`..;-1` reverses an axis). Axes not named are kept whole.
///
/// ```
/// use cuarray::{s, shape::SliceElem};
/// let spec = s![1..3, .., 0..;2, -1, ..;-1];
/// assert_eq!(spec.len(), 5);
/// assert_eq!(spec[3], SliceElem::Index(-1));
/// ```
#[macro_export]
macro_rules! s {
    ($($e:expr $(; $step:expr)?),* $(,)?) => {
        [$( {
            #[allow(unused_mut, clippy::reversed_empty_ranges)]
            let mut el = $crate::shape::SliceArg::into_elem($e);
            $( el = el.with_step($step as isize); )?
            el
        } ),*]
    };
}

/// Python's `slice.indices`: the (start, count) of `start:end:step` over an axis of `len`.
fn resolve(start: Option<isize>, end: Option<isize>, step: isize, len: usize) -> (isize, usize) {
    let n = len as isize;
    let clamp = |v: isize, lo: isize, hi: isize| v.max(lo).min(hi);
    if step > 0 {
        let s = start.map_or(0, |v| clamp(if v < 0 { v + n } else { v }, 0, n));
        let e = end.map_or(n, |v| clamp(if v < 0 { v + n } else { v }, 0, n));
        let count = if e > s { (e - s + step - 1) / step } else { 0 };
        (s, count as usize)
    } else {
        let s = start.map_or(n - 1, |v| clamp(if v < 0 { v + n } else { v }, -1, n - 1));
        let e = end.map_or(-1, |v| clamp(if v < 0 { v + n } else { v }, -1, n - 1));
        let count = if s > e {
            (s - e + (-step) - 1) / (-step)
        } else {
            0
        };
        (s, count as usize)
    }
}

impl Layout {
    /// Applies a slice argument (as built by [`s!`](crate::s)) and returns the view's layout.
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
                    let j = if i < 0 { i + len as isize } else { i };
                    if j < 0 || j >= len as isize {
                        return Err(Error::invalid(
                            "slice",
                            format!("index {i} is out of bounds for axis {axis} with size {len}"),
                        ));
                    }
                    offset += j * self.strides()[axis];
                    axis += 1;
                }
                SliceElem::Range { start, end, step } => {
                    if step == 0 {
                        return Err(Error::invalid("slice", "slice step cannot be zero"));
                    }
                    let len = self.shape()[axis];
                    let (s, count) = resolve(start, end, step, len);
                    if count > 0 {
                        offset += s * self.strides()[axis];
                    }
                    shape.push(count);
                    strides.push(self.strides()[axis] * step);
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
    }
}
