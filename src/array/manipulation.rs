//! NumPy's array-manipulation vocabulary built from views and existing ops: diagonal and
//! trace, swapaxes and moveaxis, rot90 and the flips, the atleast family, broadcast_arrays
//! and broadcast_shapes, the splits (views) and stacks, sliding windows and `as_strided`.

use super::{concatenate, DeviceArray};
use crate::element::Element;
use crate::shape::{normalize_axis, Layout, SliceElem};
use crate::{Error, Result};

const ALL: SliceElem = SliceElem::Range {
    start: None,
    end: None,
    step: 1,
};

impl<T: Element> DeviceArray<T> {
    /// The diagonal of the 2-D sub-arrays over `axis1` and `axis2` as a view (NumPy's
    /// `diagonal`, but writable: no copy is made): both axes are removed and the diagonal is
    /// the last axis. `offset > 0` takes the diagonal above the main one (`a[i, i + offset]`),
    /// `offset < 0` below it.
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`] for an axis outside `-ndim..ndim`;
    /// [`Error::InvalidArgument`] when both axes are the same or the array has fewer than
    /// 2 dimensions.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::<i32>::arange(&dev, 0, 9, 1)?.reshape([3, 3])?;
    /// assert_eq!(a.diagonal(0, 0, 1)?.to_host()?, vec![0, 4, 8]);
    /// assert_eq!(a.diagonal(1, 0, 1)?.to_host()?, vec![1, 5]);
    /// assert_eq!(a.diagonal(-2, 0, 1)?.to_host()?, vec![6]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn diagonal(&self, offset: isize, axis1: isize, axis2: isize) -> Result<Self> {
        const OP: &str = "diagonal";
        let nd = self.ndim();
        if nd < 2 {
            return Err(Error::invalid(
                OP,
                format!("needs at least 2 dimensions, not shape {:?}", self.shape()),
            ));
        }
        let (a1, a2) = (
            normalize_axis(OP, axis1, nd)?,
            normalize_axis(OP, axis2, nd)?,
        );
        if a1 == a2 {
            return Err(Error::invalid(
                OP,
                format!("axis1 and axis2 cannot be the same ({axis1}, {axis2})"),
            ));
        }
        let (sh, st) = (self.shape(), self.strides());
        let (n1, n2) = (sh[a1] as isize, sh[a2] as isize);
        let len = if offset >= 0 {
            n1.min(n2 - offset).max(0)
        } else {
            (n1 + offset).min(n2).max(0)
        } as usize;
        let mut off = self.layout().offset() as isize;
        if len > 0 {
            off += if offset >= 0 {
                offset * st[a2]
            } else {
                -offset * st[a1]
            };
        }
        let mut shape = Vec::with_capacity(nd - 1);
        let mut strides = Vec::with_capacity(nd - 1);
        for k in (0..nd).filter(|&k| k != a1 && k != a2) {
            shape.push(sh[k]);
            strides.push(st[k]);
        }
        shape.push(len);
        strides.push(st[a1] + st[a2]);
        Ok(self.with_layout(Layout::from_parts(shape, strides, off as usize)))
    }

    /// The sum along the diagonal with `offset` of the first two axes (NumPy's `trace`):
    /// a 0-d array for a matrix, in the sum type of [`sum`](Self::sum).
    ///
    /// # Errors
    /// As [`diagonal`](Self::diagonal).
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::<i32>::arange(&dev, 0, 9, 1)?.reshape([3, 3])?;
    /// assert_eq!(a.trace(0)?.to_scalar()?, 12);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn trace(&self, offset: isize) -> Result<DeviceArray<T::Sum>> {
        self.diagonal(offset, 0, 1)?.sum_axis(-1)
    }

    /// A view with axes `axis1` and `axis2` exchanged (NumPy's `swapaxes`).
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`] for an axis outside `-ndim..ndim`.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::<f32>::zeros(&dev, &[2, 3, 4])?;
    /// assert_eq!(a.swapaxes(0, -1)?.shape(), &[4, 3, 2]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn swapaxes(&self, axis1: isize, axis2: isize) -> Result<Self> {
        let nd = self.ndim();
        let (a1, a2) = (
            normalize_axis("swapaxes", axis1, nd)?,
            normalize_axis("swapaxes", axis2, nd)?,
        );
        let mut perm: Vec<usize> = (0..nd).collect();
        perm.swap(a1, a2);
        Ok(self.with_layout(self.layout().permute(&perm)?))
    }

    /// A view with the axes `source` moved to the positions `destination`, the others
    /// keeping their order (NumPy's `moveaxis`).
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`] for an axis outside `-ndim..ndim`;
    /// [`Error::InvalidArgument`] when the lists differ in length or repeat an axis.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::<f32>::zeros(&dev, &[3, 4, 5])?;
    /// assert_eq!(a.moveaxis(&[0], &[-1])?.shape(), &[4, 5, 3]);
    /// assert_eq!(a.moveaxis(&[0, 1], &[-1, -2])?.shape(), &[5, 4, 3]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn moveaxis(&self, source: &[isize], destination: &[isize]) -> Result<Self> {
        const OP: &str = "moveaxis";
        let nd = self.ndim();
        if source.len() != destination.len() {
            return Err(Error::invalid(
                OP,
                format!(
                    "source {source:?} and destination {destination:?} must have the same number of elements"
                ),
            ));
        }
        let norm = |axes: &[isize]| -> Result<Vec<usize>> {
            let v = axes
                .iter()
                .map(|&a| normalize_axis(OP, a, nd))
                .collect::<Result<Vec<_>>>()?;
            let mut sorted = v.clone();
            sorted.sort_unstable();
            sorted.dedup();
            if sorted.len() != v.len() {
                return Err(Error::invalid(OP, format!("repeated axis in {axes:?}")));
            }
            Ok(v)
        };
        let (src, dst) = (norm(source)?, norm(destination)?);
        let mut order: Vec<usize> = (0..nd).filter(|k| !src.contains(k)).collect();
        let mut pairs: Vec<(usize, usize)> = dst.into_iter().zip(src).collect();
        pairs.sort_unstable();
        for (d, s) in pairs {
            order.insert(d, s);
        }
        Ok(self.with_layout(self.layout().permute(&order)?))
    }

    /// A view reversed along axis 1, left to right (NumPy's `fliplr`).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for fewer than 2 dimensions.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_host(&dev, &[1, 2, 3, 4], &[2, 2])?;
    /// assert_eq!(a.fliplr()?.to_host()?, vec![2, 1, 4, 3]);
    /// assert_eq!(a.flipud()?.to_host()?, vec![3, 4, 1, 2]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn fliplr(&self) -> Result<Self> {
        if self.ndim() < 2 {
            return Err(Error::invalid(
                "fliplr",
                format!("needs at least 2 dimensions, not shape {:?}", self.shape()),
            ));
        }
        self.flip(1)
    }

    /// A view reversed along axis 0, upside down (NumPy's `flipud`).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a 0-d array.
    pub fn flipud(&self) -> Result<Self> {
        if self.ndim() < 1 {
            return Err(Error::invalid(
                "flipud",
                "needs at least 1 dimension, not a 0-d array",
            ));
        }
        self.flip(0)
    }

    /// A view rotated by 90 degrees `k` times in the plane of `axes`, from the first axis
    /// towards the second (NumPy's `rot90`; `k` may be negative).
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`] for an axis outside `-ndim..ndim`;
    /// [`Error::InvalidArgument`] when both axes are the same.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_host(&dev, &[1, 2, 3, 4], &[2, 2])?;
    /// assert_eq!(a.rot90(1, (0, 1))?.to_host()?, vec![2, 4, 1, 3]);
    /// assert_eq!(a.rot90(2, (0, 1))?.to_host()?, vec![4, 3, 2, 1]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn rot90(&self, k: i32, axes: (isize, isize)) -> Result<Self> {
        const OP: &str = "rot90";
        let nd = self.ndim();
        let (a0, a1) = (
            normalize_axis(OP, axes.0, nd)?,
            normalize_axis(OP, axes.1, nd)?,
        );
        if a0 == a1 {
            return Err(Error::invalid(
                OP,
                format!("the axes must differ, not {axes:?}"),
            ));
        }
        let mut perm: Vec<usize> = (0..nd).collect();
        perm.swap(a0, a1);
        match k.rem_euclid(4) {
            0 => Ok(self.clone()),
            2 => self.flip(a0 as isize)?.flip(a1 as isize),
            1 => {
                let f = self.flip(a1 as isize)?;
                Ok(f.with_layout(f.layout().permute(&perm)?))
            }
            _ => {
                let t = self.with_layout(self.layout().permute(&perm)?);
                t.flip(a1 as isize)
            }
        }
    }

    /// A view of every window of `window_shape` sliding over `axes` (every axis when
    /// `None`, one window extent per axis; an axis may repeat): the result has the array's
    /// shape with each windowed extent `n` reduced to `n - w + 1`, followed by the window's
    /// dimensions (NumPy's `sliding_window_view`). No copy: windows overlap in memory, so
    /// write to the view only where that is intended.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `window_shape` and `axes` differ in length, or a
    /// window is larger than its axis; [`Error::AxisOutOfRange`] for a bad axis.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let x = DeviceArray::<i32>::arange(&dev, 0, 5, 1)?;
    /// let w = x.sliding_window_view(&[3], None)?;
    /// assert_eq!((w.shape(), w.to_host()?), (&[3, 3][..], vec![0, 1, 2, 1, 2, 3, 2, 3, 4]));
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn sliding_window_view(
        &self,
        window_shape: &[usize],
        axes: Option<&[isize]>,
    ) -> Result<Self> {
        const OP: &str = "sliding_window_view";
        let nd = self.ndim();
        let all: Vec<isize> = (0..nd as isize).collect();
        let axes = axes.unwrap_or(&all);
        if axes.len() != window_shape.len() {
            return Err(Error::invalid(
                OP,
                format!("window_shape {window_shape:?} needs one entry per axis of {axes:?}"),
            ));
        }
        let mut shape = self.shape().to_vec();
        let mut strides = self.strides().to_vec();
        for (&a, &w) in axes.iter().zip(window_shape) {
            let k = normalize_axis(OP, a, nd)?;
            if w > shape[k] {
                return Err(Error::invalid(
                    OP,
                    format!(
                        "window {w} is larger than axis {k} of extent {} (shape {:?})",
                        shape[k],
                        self.shape()
                    ),
                ));
            }
            shape[k] = shape[k] - w + 1;
            shape.push(w);
            strides.push(self.strides()[k]);
        }
        Ok(self.with_layout(Layout::from_parts(shape, strides, self.layout().offset())))
    }

    /// A view of this array's buffer with any `shape` and `strides` (elements, may be
    /// negative), from the view's first element (NumPy's `as_strided`).
    ///
    /// # Safety
    /// The view is checked to stay inside the buffer, but its elements may overlap:
    /// writing through such a view from one kernel races (several threads write the same
    /// element), and later reads see one of the writes. Use it for reading, or for
    /// writing only with strides whose elements do not overlap.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `shape` and `strides` differ in length or the view
    /// would reach outside the buffer (before its start or past its end).
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let x = DeviceArray::<i32>::arange(&dev, 0, 6, 1)?;
    /// let w = unsafe { x.as_strided(&[4, 3], &[1, 1])? }; // overlapping windows of 3
    /// assert_eq!(w.to_host()?[..6], [0, 1, 2, 1, 2, 3]);
    /// assert!(unsafe { x.as_strided(&[7], &[1]) }.is_err());
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub unsafe fn as_strided(&self, shape: &[usize], strides: &[isize]) -> Result<Self> {
        const OP: &str = "as_strided";
        if shape.len() != strides.len() {
            return Err(Error::invalid(
                OP,
                format!("shape {shape:?} and strides {strides:?} differ in length"),
            ));
        }
        crate::shape::checked_size(OP, shape)?;
        let off = self.layout().offset() as i128;
        let mut lo = off;
        if !shape.contains(&0) {
            for (&d, &s) in shape.iter().zip(strides) {
                let reach = (d as i128 - 1) * s as i128;
                if reach < 0 {
                    lo += reach;
                }
            }
        }
        if lo < 0 {
            return Err(Error::invalid(
                OP,
                format!(
                    "a view of shape {shape:?} and strides {strides:?} from element {off} reaches before the buffer"
                ),
            ));
        }
        let layout = Layout::from_parts(shape.to_vec(), strides.to_vec(), off as usize);
        self.operand_reinterpreted(layout.clone(), T::DTYPE)
            .map_err(|_| {
                Error::invalid(
                    OP,
                    format!(
                        "a view of shape {shape:?} and strides {strides:?} from element {off} reaches past the buffer"
                    ),
                )
            })?;
        Ok(self.with_layout(layout))
    }
}

/// `a` viewed with at least 1 dimension (a 0-d array becomes shape `(1,)`), NumPy's
/// `atleast_1d`.
///
/// ```no_run
/// use cuarray::{Device, DeviceArray};
/// let dev = Device::new(0)?;
/// let s = DeviceArray::full(&dev, [0usize; 0], 2.0f32)?;
/// assert_eq!(cuarray::atleast_1d(&s)?.shape(), &[1]);
/// assert_eq!(cuarray::atleast_2d(&s)?.shape(), &[1, 1]);
/// let v = DeviceArray::<f32>::zeros(&dev, &[4])?;
/// assert_eq!(cuarray::atleast_2d(&v)?.shape(), &[1, 4]);
/// assert_eq!(cuarray::atleast_3d(&v)?.shape(), &[1, 4, 1]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// None in practice (a view); a `Result` as every call.
pub fn atleast_1d<T: Element>(a: &DeviceArray<T>) -> Result<DeviceArray<T>> {
    match a.ndim() {
        0 => a.reshape([1usize]),
        _ => Ok(a.clone()),
    }
}

/// `a` viewed with at least 2 dimensions: a 1-D array of `n` becomes `(1, n)` (NumPy's
/// `atleast_2d`). See [`atleast_1d`].
///
/// # Errors
/// None in practice (a view).
pub fn atleast_2d<T: Element>(a: &DeviceArray<T>) -> Result<DeviceArray<T>> {
    match a.ndim() {
        0 => a.reshape([1usize, 1]),
        1 => a.expand_dims(0),
        _ => Ok(a.clone()),
    }
}

/// `a` viewed with at least 3 dimensions: `(n,)` becomes `(1, n, 1)` and `(m, n)` becomes
/// `(m, n, 1)` (NumPy's `atleast_3d`). See [`atleast_1d`].
///
/// # Errors
/// None in practice (a view).
pub fn atleast_3d<T: Element>(a: &DeviceArray<T>) -> Result<DeviceArray<T>> {
    match a.ndim() {
        0 => a.reshape([1usize, 1, 1]),
        1 => a.expand_dims(0)?.expand_dims(-1),
        2 => a.expand_dims(-1),
        _ => Ok(a.clone()),
    }
}

/// The shape that all `shapes` broadcast to (NumPy's `broadcast_shapes`).
///
/// # Errors
/// [`Error::Broadcast`] naming the first pair that does not broadcast.
///
/// ```
/// assert_eq!(cuarray::broadcast_shapes(&[&[3, 1], &[4], &[2, 1, 1]])?, vec![2, 3, 4]);
/// assert!(cuarray::broadcast_shapes(&[&[3], &[4]]).is_err());
/// # Ok::<(), cuarray::Error>(())
/// ```
pub fn broadcast_shapes(shapes: &[&[usize]]) -> Result<Vec<usize>> {
    let mut out: Vec<usize> = Vec::new();
    for s in shapes {
        out = crate::shape::broadcast_shapes("broadcast_shapes", &out, s)?;
    }
    Ok(out)
}

/// Views of `arrays` broadcast to their common shape (NumPy's `broadcast_arrays`); the
/// broadcast axes have stride 0, so the views are read-only (writing to them is an
/// error).
///
/// # Errors
/// [`Error::Broadcast`] when the shapes do not broadcast together.
///
/// ```no_run
/// use cuarray::{Device, DeviceArray};
/// let dev = Device::new(0)?;
/// let x = DeviceArray::<f32>::zeros(&dev, &[3, 1])?;
/// let y = DeviceArray::<f32>::zeros(&dev, &[4])?;
/// let b = cuarray::broadcast_arrays(&[&x, &y])?;
/// assert_eq!((b[0].shape(), b[1].shape()), (&[3, 4][..], &[3, 4][..]));
/// # Ok::<(), cuarray::Error>(())
/// ```
pub fn broadcast_arrays<T: Element>(arrays: &[&DeviceArray<T>]) -> Result<Vec<DeviceArray<T>>> {
    let shapes: Vec<&[usize]> = arrays.iter().map(|a| a.shape()).collect();
    let shape = broadcast_shapes(&shapes)?;
    arrays.iter().map(|a| a.broadcast_to(&shape[..])).collect()
}

/// Views of `a` cut along `axis` before each of `indices` (NumPy's `split` with a list of
/// indices): `split_at(&a, &[2, 5], 0)` gives `a[..2]`, `a[2..5]`, `a[5..]`. Indices past
/// the extent give empty pieces, as NumPy.
///
/// # Errors
/// [`Error::AxisOutOfRange`] for an axis outside `-ndim..ndim`.
///
/// ```no_run
/// use cuarray::{Device, DeviceArray};
/// let dev = Device::new(0)?;
/// let a = DeviceArray::<i32>::arange(&dev, 0, 6, 1)?;
/// let p = cuarray::split_at(&a, &[2, 5], 0)?;
/// assert_eq!((p[0].to_host()?, p[1].to_host()?, p[2].to_host()?), (vec![0, 1], vec![2, 3, 4], vec![5]));
/// # Ok::<(), cuarray::Error>(())
/// ```
pub fn split_at<T: Element>(
    a: &DeviceArray<T>,
    indices: &[usize],
    axis: isize,
) -> Result<Vec<DeviceArray<T>>> {
    let k = normalize_axis("split", axis, a.ndim())?;
    let n = a.shape()[k];
    let mut out = Vec::with_capacity(indices.len() + 1);
    let mut start = 0usize;
    for &end in indices.iter().chain(std::iter::once(&n)) {
        let (s, e) = (start.min(n), end.min(n).max(start.min(n)));
        let mut spec = vec![ALL; k + 1];
        spec[k] = SliceElem::Range {
            start: Some(s as isize),
            end: Some(e as isize),
            step: 1,
        };
        out.push(a.slice(&spec)?);
        start = end;
    }
    Ok(out)
}

/// `n` equal views of `a` along `axis` (NumPy's `split` with a number of sections).
///
/// # Errors
/// [`Error::InvalidArgument`] when `n` is 0 or does not divide the axis (naming the shape);
/// [`Error::AxisOutOfRange`] for a bad axis.
///
/// ```no_run
/// use cuarray::{Device, DeviceArray};
/// let dev = Device::new(0)?;
/// let a = DeviceArray::<f32>::zeros(&dev, &[6, 4])?;
/// let p = cuarray::split(&a, 3, 0)?;
/// assert_eq!((p.len(), p[0].shape()), (3, &[2, 4][..]));
/// assert!(cuarray::split(&a, 4, 0).is_err());
/// # Ok::<(), cuarray::Error>(())
/// ```
pub fn split<T: Element>(a: &DeviceArray<T>, n: usize, axis: isize) -> Result<Vec<DeviceArray<T>>> {
    let k = normalize_axis("split", axis, a.ndim())?;
    let len = a.shape()[k];
    if n == 0 || !len.is_multiple_of(n) {
        return Err(Error::invalid(
            "split",
            format!(
                "{n} sections do not divide axis {k} of extent {len} equally (shape {:?})",
                a.shape()
            ),
        ));
    }
    let step = len / n;
    let cuts: Vec<usize> = (1..n).map(|i| i * step).collect();
    split_at(a, &cuts, axis)
}

/// `n` views of `a` along `axis`, the first `len % n` one element longer (NumPy's
/// `array_split`).
///
/// # Errors
/// [`Error::InvalidArgument`] when `n` is 0; [`Error::AxisOutOfRange`] for a bad axis.
///
/// ```no_run
/// use cuarray::{Device, DeviceArray};
/// let dev = Device::new(0)?;
/// let a = DeviceArray::<i32>::arange(&dev, 0, 7, 1)?;
/// let p = cuarray::array_split(&a, 3, 0)?;
/// assert_eq!(p.iter().map(|x| x.size()).collect::<Vec<_>>(), vec![3, 2, 2]);
/// # Ok::<(), cuarray::Error>(())
/// ```
pub fn array_split<T: Element>(
    a: &DeviceArray<T>,
    n: usize,
    axis: isize,
) -> Result<Vec<DeviceArray<T>>> {
    let k = normalize_axis("array_split", axis, a.ndim())?;
    if n == 0 {
        return Err(Error::invalid(
            "array_split",
            "the number of sections must be at least 1",
        ));
    }
    let len = a.shape()[k];
    let (q, r) = (len / n, len % n);
    let mut cuts = Vec::with_capacity(n - 1);
    let mut at = 0;
    for i in 0..n - 1 {
        at += q + usize::from(i < r);
        cuts.push(at);
    }
    split_at(a, &cuts, axis)
}

fn need_dims<T: Element>(op: &'static str, a: &DeviceArray<T>, nd: usize) -> Result<()> {
    if a.ndim() < nd {
        return Err(Error::invalid(
            op,
            format!(
                "needs at least {nd} dimension(s), not shape {:?}",
                a.shape()
            ),
        ));
    }
    Ok(())
}

/// [`split`] along axis 1 (axis 0 for 1-D arrays), NumPy's `hsplit`.
///
/// # Errors
/// As [`split`]; [`Error::InvalidArgument`] for a 0-d array.
pub fn hsplit<T: Element>(a: &DeviceArray<T>, n: usize) -> Result<Vec<DeviceArray<T>>> {
    need_dims("hsplit", a, 1)?;
    split(a, n, if a.ndim() == 1 { 0 } else { 1 })
}

/// [`split`] along axis 0 of an array of at least 2 dimensions, NumPy's `vsplit`.
///
/// # Errors
/// As [`split`]; [`Error::InvalidArgument`] for fewer than 2 dimensions.
pub fn vsplit<T: Element>(a: &DeviceArray<T>, n: usize) -> Result<Vec<DeviceArray<T>>> {
    need_dims("vsplit", a, 2)?;
    split(a, n, 0)
}

/// [`split`] along axis 2 of an array of at least 3 dimensions, NumPy's `dsplit`.
///
/// # Errors
/// As [`split`]; [`Error::InvalidArgument`] for fewer than 3 dimensions.
pub fn dsplit<T: Element>(a: &DeviceArray<T>, n: usize) -> Result<Vec<DeviceArray<T>>> {
    need_dims("dsplit", a, 3)?;
    split(a, n, 2)
}

fn stack_with<T: Element>(
    arrays: &[&DeviceArray<T>],
    view: impl Fn(&DeviceArray<T>) -> Result<DeviceArray<T>>,
    axis: impl Fn(usize) -> isize,
) -> Result<DeviceArray<T>> {
    let views = arrays.iter().map(|a| view(a)).collect::<Result<Vec<_>>>()?;
    let refs: Vec<&DeviceArray<T>> = views.iter().collect();
    let nd = refs.first().map_or(1, |a| a.ndim());
    concatenate(&refs, axis(nd))
}

/// The arrays stacked vertically, as rows: 1-D arrays become rows `(1, n)`, then they are
/// joined along axis 0 (NumPy's `vstack`). A new array.
///
/// # Errors
/// As [`concatenate`].
///
/// ```no_run
/// use cuarray::{Device, DeviceArray};
/// let dev = Device::new(0)?;
/// let a = DeviceArray::from_slice(&dev, &[1, 2])?;
/// let b = DeviceArray::from_slice(&dev, &[3, 4])?;
/// assert_eq!(cuarray::vstack(&[&a, &b])?.shape(), &[2, 2]);
/// assert_eq!(cuarray::hstack(&[&a, &b])?.to_host()?, vec![1, 2, 3, 4]);
/// assert_eq!(cuarray::column_stack(&[&a, &b])?.to_host()?, vec![1, 3, 2, 4]);
/// assert_eq!(cuarray::dstack(&[&a, &b])?.shape(), &[1, 2, 2]);
/// # Ok::<(), cuarray::Error>(())
/// ```
pub fn vstack<T: Element>(arrays: &[&DeviceArray<T>]) -> Result<DeviceArray<T>> {
    stack_with(arrays, atleast_2d, |_| 0)
}

/// The arrays joined horizontally: along axis 1, or axis 0 for 1-D arrays (NumPy's
/// `hstack`). See [`vstack`].
///
/// # Errors
/// As [`concatenate`].
pub fn hstack<T: Element>(arrays: &[&DeviceArray<T>]) -> Result<DeviceArray<T>> {
    stack_with(arrays, atleast_1d, |nd| if nd == 1 { 0 } else { 1 })
}

/// The arrays joined along a third axis after [`atleast_3d`] (NumPy's `dstack`). See
/// [`vstack`].
///
/// # Errors
/// As [`concatenate`].
pub fn dstack<T: Element>(arrays: &[&DeviceArray<T>]) -> Result<DeviceArray<T>> {
    stack_with(arrays, atleast_3d, |_| 2)
}

/// 1-D arrays as the columns of a 2-D array (2-D arrays joined as they are, along axis 1),
/// NumPy's `column_stack`. See [`vstack`].
///
/// # Errors
/// As [`concatenate`].
pub fn column_stack<T: Element>(arrays: &[&DeviceArray<T>]) -> Result<DeviceArray<T>> {
    stack_with(
        arrays,
        |a| match a.ndim() {
            0 => a.reshape([1usize, 1]),
            1 => a.expand_dims(1),
            _ => Ok(a.clone()),
        },
        |_| 1,
    )
}
