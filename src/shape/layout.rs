//! `Layout`: shape, strides (in elements) and offset of an array view.
//!
//! Invariants, for a layout over a buffer of `len` elements:
//! - `shape.len() == strides.len()` (the rank; 0 for a scalar);
//! - strides are counted in elements, may be negative (reversed views) or zero (broadcast);
//! - `offset` is the element index of the logical first element `[0, 0, ...]`;
//! - if the layout has at least one element, every reachable index
//!   `offset + sum(i_k * strides_k)` lies in `0..len`;
//! - an empty layout (some extent 0) reaches no element, whatever its strides.

use super::{c_strides, checked_size, normalize_axis, size_of};
use crate::{Error, Result};

/// Shape, strides (elements) and offset of an array over a flat buffer.
///
/// ```
/// use cuarray::{s, shape::Layout};
/// let l = Layout::contiguous(&[3, 4]); // a C-order 3 x 4 array
/// let v = l.slice(&s![1.., ..;2])?.t(); // NumPy's a[1:, ::2].T
/// assert_eq!((v.shape(), v.strides(), v.offset()), (&[2, 2][..], &[2, 4][..], 4));
/// assert_eq!(v.iter_offsets().collect::<Vec<_>>(), vec![4, 8, 6, 10]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Invariants
/// For a layout over a buffer of `len` elements:
/// - `shape.len() == strides.len()` (the rank; 0 for a scalar);
/// - strides are counted in elements, may be negative (reversed views) or zero (broadcast);
/// - `offset` is the element index of the logical first element `[0, 0, ...]`;
/// - if the layout has at least one element, every reachable index
///   `offset + sum(i_k * strides_k)` lies in `0..len`;
/// - an empty layout (some extent 0) reaches no element, whatever its strides.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Layout {
    shape: Vec<usize>,
    strides: Vec<isize>,
    offset: usize,
}

impl Layout {
    /// A C-contiguous layout of `shape` at offset 0. `shape` must be valid
    /// ([`checked_size`](super::checked_size)): debug builds panic otherwise.
    ///
    /// ```
    /// use cuarray::shape::Layout;
    /// let l = Layout::contiguous(&[2, 3, 4]);
    /// assert_eq!((l.strides(), l.offset()), (&[12, 4, 1][..], 0));
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn contiguous(shape: &[usize]) -> Layout {
        Layout {
            shape: shape.to_vec(),
            strides: c_strides(shape),
            offset: 0,
        }
    }

    /// A layout from raw parts. The caller keeps the [invariants](Layout#invariants).
    ///
    /// ```
    /// use cuarray::shape::Layout;
    /// // Every other column of a 3 x 4 matrix, from column 1: NumPy's a[:, 1::2].
    /// let l = Layout::from_parts(vec![3, 2], vec![4, 2], 1);
    /// assert_eq!(l.iter_offsets().collect::<Vec<_>>(), vec![1, 3, 5, 7, 9, 11]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn from_parts(shape: Vec<usize>, strides: Vec<isize>, offset: usize) -> Layout {
        debug_assert_eq!(shape.len(), strides.len());
        Layout {
            shape,
            strides,
            offset,
        }
    }

    /// The extents.
    ///
    /// ```
    /// use cuarray::shape::Layout;
    /// assert_eq!(Layout::contiguous(&[2, 3]).t().shape(), &[3, 2]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }
    /// The strides in elements.
    ///
    /// ```
    /// use cuarray::shape::Layout;
    /// let l = Layout::contiguous(&[2, 3]);
    /// assert_eq!(l.strides(), &[3, 1]);
    /// assert_eq!(l.t().strides(), &[1, 3]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn strides(&self) -> &[isize] {
        &self.strides
    }
    /// Element offset of the first logical element.
    ///
    /// ```
    /// use cuarray::{s, shape::Layout};
    /// let l = Layout::contiguous(&[3, 4]).slice(&s![1.., 2..])?;
    /// assert_eq!(l.offset(), 6); // element [1, 2]
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn offset(&self) -> usize {
        self.offset
    }
    /// The rank.
    ///
    /// ```
    /// use cuarray::shape::Layout;
    /// assert_eq!(Layout::contiguous(&[2, 3, 4]).ndim(), 3);
    /// assert_eq!(Layout::contiguous(&[]).ndim(), 0);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn ndim(&self) -> usize {
        self.shape.len()
    }
    /// Number of elements.
    ///
    /// ```
    /// use cuarray::shape::Layout;
    /// assert_eq!(Layout::contiguous(&[2, 3, 4]).size(), 24);
    /// assert_eq!(Layout::contiguous(&[]).size(), 1); // a 0-d array holds one element
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn size(&self) -> usize {
        size_of(&self.shape)
    }

    /// True when the elements are laid out in row-major order without gaps
    /// (extents of 1 may carry any stride).
    ///
    /// ```
    /// use cuarray::shape::Layout;
    /// let l = Layout::contiguous(&[2, 3]);
    /// assert!(l.is_c_contiguous());
    /// assert!(!l.t().is_c_contiguous());
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn is_c_contiguous(&self) -> bool {
        if self.size() == 0 {
            return true;
        }
        let mut expected = 1isize;
        for (&d, &s) in self.shape.iter().zip(&self.strides).rev() {
            if d != 1 {
                if s != expected {
                    return false;
                }
                expected *= d as isize;
            }
        }
        true
    }

    /// True when the elements are laid out in column-major order without gaps.
    ///
    /// ```
    /// use cuarray::shape::Layout;
    /// assert!(Layout::contiguous(&[2, 3]).t().is_f_contiguous());
    /// assert!(!Layout::contiguous(&[2, 3]).is_f_contiguous());
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn is_f_contiguous(&self) -> bool {
        if self.size() == 0 {
            return true;
        }
        let mut expected = 1isize;
        for (&d, &s) in self.shape.iter().zip(&self.strides) {
            if d != 1 {
                if s != expected {
                    return false;
                }
                expected *= d as isize;
            }
        }
        true
    }

    /// The lowest and one past the highest element index reached (`(offset, offset)` if empty).
    ///
    /// ```
    /// use cuarray::{s, shape::Layout};
    /// let l = Layout::contiguous(&[3, 4]).slice(&s![1.., 1..3])?;
    /// assert_eq!(l.span(), (5, 11)); // elements 5 ..= 10 of the buffer
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn span(&self) -> (usize, usize) {
        if self.size() == 0 {
            return (self.offset, self.offset);
        }
        let (mut lo, mut hi) = (self.offset as isize, self.offset as isize);
        for (&d, &s) in self.shape.iter().zip(&self.strides) {
            let reach = (d as isize - 1) * s;
            if reach < 0 {
                lo += reach;
            } else {
                hi += reach;
            }
        }
        (lo as usize, hi as usize + 1)
    }

    /// Reversed axes (a transpose view).
    ///
    /// ```
    /// use cuarray::shape::Layout;
    /// let t = Layout::contiguous(&[2, 3, 4]).t();
    /// assert_eq!((t.shape(), t.strides()), (&[4, 3, 2][..], &[1, 4, 12][..]));
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn t(&self) -> Layout {
        Layout {
            shape: self.shape.iter().rev().copied().collect(),
            strides: self.strides.iter().rev().copied().collect(),
            offset: self.offset,
        }
    }

    /// Axes reordered: axis `i` of the result is axis `perm[i]` of `self`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `perm` is not a permutation of `0..ndim`.
    ///
    /// ```
    /// use cuarray::shape::Layout;
    /// let p = Layout::contiguous(&[2, 3, 4]).permute(&[2, 0, 1])?;
    /// assert_eq!((p.shape(), p.strides()), (&[4, 2, 3][..], &[1, 12, 4][..]));
    /// assert!(Layout::contiguous(&[2, 3]).permute(&[0, 0]).is_err());
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn permute(&self, perm: &[usize]) -> Result<Layout> {
        let n = self.ndim();
        let mut seen = vec![false; n];
        if perm.len() != n {
            return Err(Error::invalid(
                "permute",
                format!("{} axes given for an array of {n} dimension(s)", perm.len()),
            ));
        }
        for &p in perm {
            if p >= n || seen[p] {
                return Err(Error::invalid(
                    "permute",
                    format!("{perm:?} is not a permutation of 0..{n}"),
                ));
            }
            seen[p] = true;
        }
        Ok(Layout {
            shape: perm.iter().map(|&p| self.shape[p]).collect(),
            strides: perm.iter().map(|&p| self.strides[p]).collect(),
            offset: self.offset,
        })
    }

    /// Resolves a NumPy-style target shape (one `-1` inferred) against `size`.
    ///
    /// ```
    /// use cuarray::shape::Layout;
    /// assert_eq!(Layout::infer_shape(12, &[3, -1])?, vec![3, 4]);
    /// assert!(Layout::infer_shape(12, &[5, -1]).is_err());
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a second `-1` or another negative extent,
    /// [`Error::TooLarge`] when the extents' product overflows, [`Error::ShapeMismatch`]
    /// when it differs from `size`.
    pub fn infer_shape(size: usize, shape: &[isize]) -> Result<Vec<usize>> {
        let mut infer = None;
        for (i, &d) in shape.iter().enumerate() {
            if d == -1 {
                if infer.replace(i).is_some() {
                    return Err(Error::invalid(
                        "reshape",
                        format!("can only specify one unknown dimension (-1), got {shape:?}"),
                    ));
                }
            } else if d < 0 {
                return Err(Error::invalid(
                    "reshape",
                    format!("negative dimension {d} in {shape:?}"),
                ));
            }
        }
        // The -1 counts as 1 in the product of the known extents.
        let mut out: Vec<usize> = shape.iter().map(|&d| d.unsigned_abs()).collect();
        let known = checked_size("reshape", &out)?;
        if let Some(i) = infer {
            if known == 0 || !size.is_multiple_of(known) {
                out[i] = 0;
                return Err(Error::ShapeMismatch {
                    op: "reshape",
                    msg: format!("cannot infer the -1 in {shape:?} for {size} element(s)"),
                    lhs: vec![size],
                    rhs: out,
                });
            }
            out[i] = size / known;
        } else if known != size {
            return Err(Error::ShapeMismatch {
                op: "reshape",
                msg: format!("cannot reshape {size} element(s) into this shape"),
                lhs: vec![size],
                rhs: out,
            });
        }
        Ok(out)
    }

    /// A view of `self` with shape `new_shape` (same size) when the strides allow one,
    /// following NumPy's no-copy reshape rule; `None` when a copy is needed.
    ///
    /// ```
    /// use cuarray::shape::Layout;
    /// let l = Layout::contiguous(&[2, 6]);
    /// assert_eq!(l.reshape_view(&[3, 4]).unwrap().strides(), &[4, 1]);
    /// assert!(l.t().reshape_view(&[12]).is_none()); // a transpose needs a copy to flatten
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn reshape_view(&self, new_shape: &[usize]) -> Option<Layout> {
        debug_assert_eq!(self.size(), size_of(new_shape));
        if self.size() == 0 || self.is_c_contiguous() {
            return Some(Layout {
                shape: new_shape.to_vec(),
                strides: c_strides(new_shape),
                offset: self.offset,
            });
        }
        // Drop extents of 1, then match groups of old axes to groups of new axes.
        let (old_d, old_s): (Vec<usize>, Vec<isize>) = self
            .shape
            .iter()
            .zip(&self.strides)
            .filter(|(&d, _)| d != 1)
            .map(|(&d, &s)| (d, s))
            .unzip();
        let mut new_s = vec![0isize; new_shape.len()];
        let (mut oi, mut ni) = (0usize, 0usize);
        let (on, nn) = (old_d.len(), new_shape.len());
        while oi < on && ni < nn {
            // Skip new extents of 1: any stride will do.
            if new_shape[ni] == 1 {
                new_s[ni] = 0;
                ni += 1;
                continue;
            }
            let (oj0, nj0) = (oi, ni);
            let (mut np, mut op) = (new_shape[ni], old_d[oi]);
            while np != op {
                if np < op {
                    ni += 1;
                    if ni >= nn {
                        return None;
                    }
                    np *= new_shape[ni];
                } else {
                    oi += 1;
                    if oi >= on {
                        return None;
                    }
                    op *= old_d[oi];
                }
            }
            // The old axes oj0..=oi must be contiguous with one another.
            for k in oj0..oi {
                if old_s[k] != old_s[k + 1] * old_d[k + 1] as isize {
                    return None;
                }
            }
            // Strides for the new axes nj0..=ni, from the innermost old stride.
            new_s[ni] = old_s[oi];
            for k in (nj0..ni).rev() {
                new_s[k] = new_s[k + 1] * new_shape[k + 1] as isize;
            }
            oi += 1;
            ni += 1;
        }
        while ni < nn {
            new_s[ni] = 0; // trailing extents of 1
            ni += 1;
        }
        Some(Layout {
            shape: new_shape.to_vec(),
            strides: new_s,
            offset: self.offset,
        })
    }

    /// Inserts an axis of extent 1 at `axis` (`-ndim-1..=ndim`).
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`] for an axis outside `-ndim-1..=ndim`.
    ///
    /// ```
    /// use cuarray::shape::Layout;
    /// assert_eq!(Layout::contiguous(&[2, 3]).expand_dims(-1)?.shape(), &[2, 3, 1]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn expand_dims(&self, axis: isize) -> Result<Layout> {
        let a = normalize_axis("expand_dims", axis, self.ndim() + 1)?;
        let mut out = self.clone();
        out.shape.insert(a, 1);
        out.strides.insert(a, 0);
        Ok(out)
    }

    /// Removes every axis of extent 1.
    ///
    /// ```
    /// use cuarray::shape::Layout;
    /// assert_eq!(Layout::contiguous(&[1, 3, 1]).squeeze().shape(), &[3]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn squeeze(&self) -> Layout {
        let (shape, strides) = self
            .shape
            .iter()
            .zip(&self.strides)
            .filter(|(&d, _)| d != 1)
            .map(|(&d, &s)| (d, s))
            .unzip();
        Layout {
            shape,
            strides,
            offset: self.offset,
        }
    }

    /// Removes one axis of extent 1.
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`] for an axis outside `-ndim..ndim`;
    /// [`Error::InvalidArgument`] when the axis's extent is not 1.
    ///
    /// ```
    /// use cuarray::shape::Layout;
    /// let l = Layout::contiguous(&[1, 3, 1]);
    /// assert_eq!(l.squeeze_axis(0)?.shape(), &[3, 1]);
    /// assert!(l.squeeze_axis(1).is_err());
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn squeeze_axis(&self, axis: isize) -> Result<Layout> {
        let a = normalize_axis("squeeze", axis, self.ndim())?;
        if self.shape[a] != 1 {
            return Err(Error::invalid(
                "squeeze",
                format!("cannot squeeze axis {axis} of extent {}", self.shape[a]),
            ));
        }
        let mut out = self.clone();
        out.shape.remove(a);
        out.strides.remove(a);
        Ok(out)
    }

    /// Selects index `i` of `axis`, removing that axis.
    ///
    /// ```
    /// use cuarray::shape::Layout;
    /// let row = Layout::contiguous(&[3, 4]).index_axis(0, 2); // NumPy's a[2]
    /// assert_eq!((row.shape(), row.offset()), (&[4][..], 8));
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn index_axis(&self, axis: usize, i: usize) -> Layout {
        debug_assert!(i < self.shape[axis]);
        let mut out = self.clone();
        out.offset = (self.offset as isize + i as isize * self.strides[axis]) as usize;
        out.shape.remove(axis);
        out.strides.remove(axis);
        out
    }

    /// Broadcasts to `shape` (NumPy rules): new leading axes and extents of 1 get stride 0.
    ///
    /// # Errors
    /// [`Error::Broadcast`] when the layout does not broadcast to `shape`;
    /// [`Error::TooLarge`] when `shape`'s element count overflows.
    ///
    /// ```
    /// use cuarray::shape::Layout;
    /// let b = Layout::contiguous(&[3, 1]).broadcast_to(&[2, 3, 4])?;
    /// assert_eq!(b.strides(), &[0, 1, 0]);
    /// assert!(Layout::contiguous(&[3]).broadcast_to(&[4]).is_err());
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn broadcast_to(&self, shape: &[usize]) -> Result<Layout> {
        let err = || Error::Broadcast {
            op: "broadcast_to",
            lhs: self.shape.clone(),
            rhs: shape.to_vec(),
        };
        if shape.len() < self.ndim() {
            return Err(err());
        }
        checked_size("broadcast_to", shape)?;
        let lead = shape.len() - self.ndim();
        let mut strides = vec![0isize; shape.len()];
        for (k, (&d, &s)) in self.shape.iter().zip(&self.strides).enumerate() {
            let target = shape[lead + k];
            if d == target {
                strides[lead + k] = if d == 1 { 0 } else { s };
            } else if d == 1 {
                strides[lead + k] = 0;
            } else {
                return Err(err());
            }
        }
        Ok(Layout {
            shape: shape.to_vec(),
            strides,
            offset: self.offset,
        })
    }

    /// Element index of a multi-index (no bounds check beyond debug builds).
    ///
    /// ```
    /// use cuarray::shape::Layout;
    /// let l = Layout::contiguous(&[3, 4]);
    /// assert_eq!(l.index_of(&[1, 2]), 6);
    /// assert_eq!(l.t().index_of(&[2, 1]), 6); // the same element through the transpose
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn index_of(&self, idx: &[usize]) -> usize {
        debug_assert_eq!(idx.len(), self.ndim());
        let mut off = self.offset as isize;
        for ((&i, &s), &d) in idx.iter().zip(&self.strides).zip(&self.shape) {
            debug_assert!(i < d);
            off += i as isize * s;
        }
        off as usize
    }

    /// Iterates the element indices of the layout in logical row-major order.
    ///
    /// ```
    /// use cuarray::shape::Layout;
    /// let t = Layout::contiguous(&[2, 3]).t();
    /// assert_eq!(t.iter_offsets().collect::<Vec<_>>(), vec![0, 3, 1, 4, 2, 5]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn iter_offsets(&self) -> impl Iterator<Item = usize> + '_ {
        let n = self.size();
        let mut idx = vec![0usize; self.ndim()];
        let mut off = self.offset as isize;
        (0..n).map(move |k| {
            if k > 0 {
                // Only reachable offsets are formed: an axis of extent 1 may carry any
                // stride, even one that would overflow past its end.
                for d in (0..idx.len()).rev() {
                    if idx[d] + 1 < self.shape[d] {
                        idx[d] += 1;
                        off += self.strides[d];
                        break;
                    }
                    off -= self.strides[d] * idx[d] as isize;
                    idx[d] = 0;
                }
            }
            off as usize
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn offsets(l: &Layout) -> Vec<usize> {
        l.iter_offsets().collect()
    }

    #[test]
    fn contiguity() {
        let l = Layout::contiguous(&[2, 3, 4]);
        assert!(l.is_c_contiguous());
        assert!(!l.is_f_contiguous());
        assert!(l.t().is_f_contiguous());
        assert!(!l.t().is_c_contiguous());
        assert!(Layout::contiguous(&[]).is_c_contiguous());
        assert!(Layout::contiguous(&[0, 3]).is_c_contiguous());
        assert_eq!(Layout::contiguous(&[2, 3]).strides(), &[3, 1]);
    }

    #[test]
    fn transpose_offsets() {
        let l = Layout::contiguous(&[2, 3]).t();
        assert_eq!(offsets(&l), vec![0, 3, 1, 4, 2, 5]);
        assert_eq!(l.span(), (0, 6));
    }

    #[test]
    fn reshape_rules() {
        let l = Layout::contiguous(&[4, 6]);
        let r = l.reshape_view(&[2, 2, 3, 2]).unwrap();
        assert_eq!(r.strides(), &[12, 6, 2, 1]);
        // Transposed data cannot be flattened without a copy.
        assert!(l.t().reshape_view(&[24]).is_none());
        // But splitting an axis of a transposed view works.
        let t = l.t(); // (6,4) strides (1,6)
        let r = t.reshape_view(&[3, 2, 4]).unwrap();
        assert_eq!(r.strides(), &[2, 1, 6]);
        assert_eq!(offsets(&r), offsets(&t));
        // Adding extents of 1 anywhere.
        let r = t.reshape_view(&[1, 6, 1, 4, 1]).unwrap();
        assert_eq!(offsets(&r), offsets(&t));
        assert_eq!(Layout::infer_shape(24, &[-1, 4]).unwrap(), vec![6, 4]);
        assert!(Layout::infer_shape(24, &[-1, 5]).is_err());
        assert!(Layout::infer_shape(24, &[-1, -1]).is_err());
        assert!(Layout::infer_shape(24, &[5, 5]).is_err());
        assert!(Layout::infer_shape(0, &[0, -1]).is_err());
        assert_eq!(Layout::infer_shape(1, &[]).unwrap(), Vec::<usize>::new());
    }

    #[test]
    fn broadcast() {
        let l = Layout::contiguous(&[3, 1]);
        let b = l.broadcast_to(&[2, 3, 4]).unwrap();
        assert_eq!(b.strides(), &[0, 1, 0]);
        assert!(l.broadcast_to(&[2, 3, 2]).is_ok());
        assert!(l.broadcast_to(&[3, 2, 2]).is_err());
        assert!(Layout::contiguous(&[3]).broadcast_to(&[4]).is_err());
        assert!(Layout::contiguous(&[2, 3]).broadcast_to(&[3]).is_err());
    }

    #[test]
    fn permute_and_squeeze() {
        let l = Layout::contiguous(&[2, 1, 3]);
        let p = l.permute(&[2, 0, 1]).unwrap();
        assert_eq!(p.shape(), &[3, 2, 1]);
        assert!(l.permute(&[0, 0, 1]).is_err());
        assert!(l.permute(&[0, 1]).is_err());
        assert_eq!(l.squeeze().shape(), &[2, 3]);
        assert_eq!(l.squeeze_axis(1).unwrap().shape(), &[2, 3]);
        assert!(l.squeeze_axis(0).is_err());
        assert_eq!(l.expand_dims(-1).unwrap().shape(), &[2, 1, 3, 1]);
        assert_eq!(l.expand_dims(0).unwrap().shape(), &[1, 2, 1, 3]);
        assert!(l.expand_dims(5).is_err());
    }
}
