//! Views (metadata only) and the explicit device copies: `copy`, `contiguous`, `astype`,
//! `concatenate`, `stack`.

use super::DeviceArray;
use crate::element::Element;
use crate::ops::catalogue::{CAST_BODY, COPY_BODY};
use crate::ops::elementwise;
use crate::shape::{new_shape, normalize_axis, reshape_target, IntoAxes, IntoShape, SliceElem};
use crate::{Error, Result};

impl<T: Element> DeviceArray<T> {
    /// The same data with another shape ([`IntoShape`]: `&[3, -1]`, `&[n, d]` of `usize`,
    /// `other.shape()`, `(3, 4)`, ...); one entry may be `-1` (inferred). A view when the
    /// strides allow it (NumPy's rule), otherwise a contiguous copy.
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let a = cuarray::DeviceArray::<f32>::arange(&dev, 0.0, 12.0, 1.0)?;
    /// let b = a.reshape(&[3, -1])?;
    /// assert_eq!(b.shape(), &[3, 4]);
    /// let (n, d) = (4usize, 3usize);
    /// assert_eq!(a.reshape(&[n, d])?.reshape(b.shape())?.shape(), &[3, 4]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] when the sizes differ, [`Error::TooLarge`] when the new
    /// shape's element count overflows, [`Error::InvalidArgument`] for a bad `-1`.
    pub fn reshape(&self, shape: impl IntoShape) -> Result<Self> {
        let new_shape = reshape_target(self.size(), shape)?;
        match self.layout.reshape_view(&new_shape) {
            Some(l) => Ok(self.with_layout(l)),
            None => self.contiguous()?.reshape(&new_shape),
        }
    }

    /// The transpose: axes reversed (a view).
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_host(&dev, &[1, 2, 3, 4, 5, 6], &[2, 3])?;
    /// let at = a.t(); // NumPy's a.T
    /// assert_eq!(at.shape(), &[3, 2]);
    /// assert_eq!(at.to_host()?, vec![1, 4, 2, 5, 3, 6]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn t(&self) -> Self {
        self.with_layout(self.layout.t())
    }

    /// Axes reordered: axis `i` of the result is axis `axes[i]` of `self` (a view).
    /// Axes are [`IntoAxes`]: negative ones count from the end (`&[-1, 0]`), `usize` ones
    /// are accepted too.
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let a = cuarray::DeviceArray::<f32>::zeros(&dev, &[2, 3, 4])?;
    /// assert_eq!(a.permute(&[2, 0, 1])?.shape(), &[4, 2, 3]);
    /// assert_eq!(a.permute(&[-1, -3, -2])?.shape(), &[4, 2, 3]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`] for an axis outside `-ndim..ndim`,
    /// [`Error::InvalidArgument`] when `axes` is not a permutation of the axes.
    pub fn permute(&self, axes: impl IntoAxes) -> Result<Self> {
        let axes = axes.axes();
        let n = self.ndim();
        let perm = axes
            .iter()
            .map(|&a| normalize_axis("permute", a, n))
            .collect::<Result<Vec<usize>>>()?;
        Ok(self.with_layout(self.layout.permute(&perm)?))
    }

    /// A view selected by a Python-style slice, built with [`s!`](crate::s).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for more indices than dimensions, an index out of bounds,
    /// a zero step, or a stride that overflows.
    ///
    /// ```no_run
    /// use cuarray::s;
    /// let dev = cuarray::Device::new(0)?;
    /// let a = cuarray::DeviceArray::<i32>::arange(&dev, 0, 12, 1)?.reshape(&[3, 4])?;
    /// let v = a.slice(s![1.., ..;-2])?;
    /// assert_eq!(v.to_host()?, vec![7, 5, 11, 9]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn slice(&self, spec: impl AsRef<[SliceElem]>) -> Result<Self> {
        Ok(self.with_layout(self.layout.slice(spec.as_ref())?))
    }

    /// A view broadcast to `shape` (stride 0 along repeated axes), NumPy's rules.
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let row = cuarray::DeviceArray::from_slice(&dev, &[1, 2, 3])?;
    /// assert_eq!(row.broadcast_to(&[2, 3])?.to_host()?, vec![1, 2, 3, 1, 2, 3]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Broadcast`] when the shapes do not broadcast, [`Error::TooLarge`] when
    /// `shape` overflows.
    pub fn broadcast_to(&self, shape: impl IntoShape) -> Result<Self> {
        let shape = new_shape("broadcast_to", shape)?;
        Ok(self.with_layout(self.layout.broadcast_to(&shape)?))
    }

    /// A view without the axes of extent 1.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::<f32>::zeros(&dev, &[1, 3, 1])?;
    /// assert_eq!(a.squeeze().shape(), &[3]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn squeeze(&self) -> Self {
        self.with_layout(self.layout.squeeze())
    }

    /// A view without `axis`, which must have extent 1.
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`] for an axis outside `-ndim..ndim`;
    /// [`Error::InvalidArgument`] when the axis's extent is not 1.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::<f32>::zeros(&dev, &[1, 3, 1])?;
    /// assert_eq!(a.squeeze_axis(-1)?.shape(), &[1, 3]);
    /// assert!(a.squeeze_axis(1).is_err()); // extent 3
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn squeeze_axis(&self, axis: isize) -> Result<Self> {
        Ok(self.with_layout(self.layout.squeeze_axis(axis)?))
    }

    /// A view with a new axis of extent 1 at `axis` (`-ndim-1..=ndim`).
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`] for an axis outside `-ndim-1..=ndim`.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::<f32>::zeros(&dev, &[2, 3])?;
    /// assert_eq!(a.expand_dims(0)?.shape(), &[1, 2, 3]);
    /// assert_eq!(a.expand_dims(-1)?.shape(), &[2, 3, 1]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn expand_dims(&self, axis: isize) -> Result<Self> {
        Ok(self.with_layout(self.layout.expand_dims(axis)?))
    }

    /// An independent, C-contiguous copy on the device.
    ///
    /// # Errors
    /// [`Error::TooLarge`] when the copy's byte size passes `isize::MAX` (a broadcast view
    /// can); [`Error::OutOfMemory`] when the device is full.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_slice(&dev, &[1.0f32, 2.0])?;
    /// let b = a.copy()?;
    /// b.add_assign(1.0)?; // `a` is unchanged
    /// assert_eq!(a.to_host()?, vec![1.0, 2.0]);
    /// assert!(!b.shares_memory_with(&a));
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn copy(&self) -> Result<Self> {
        let out = Self::alloc_for("copy", self.device(), self.shape())?;
        copy_into(&out, self)?;
        Ok(out)
    }

    /// `self` when it is already C-contiguous (no copy, shared memory), else a
    /// C-contiguous copy made on the device by the strided-copy kernel.
    ///
    /// # Errors
    /// As [`copy`](Self::copy), when a copy is made.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_host(&dev, &[1, 2, 3, 4], &[2, 2])?;
    /// let c = a.t().contiguous()?; // NumPy's np.ascontiguousarray(a.T)
    /// assert!(c.is_contiguous());
    /// assert_eq!(c.strides(), &[2, 1]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn contiguous(&self) -> Result<Self> {
        if self.is_contiguous() {
            Ok(self.clone())
        } else {
            self.copy()
        }
    }

    /// Converts every element to `U`, as NumPy's `astype` (C casts: floats truncate
    /// toward zero into integers, `x != 0` into bool). Always a new array.
    ///
    /// Floats outside an integer type's range: NaN gives 0; `i32`, `u32`, `i64` and `u64`
    /// saturate (±inf and out-of-range values give the type's maximum or minimum, 0 for
    /// unsigned); `i8`, `i16`, `u8` and `u16` saturate to the 32-bit range, then wrap (see
    /// [Integer semantics](DeviceArray#integer-semantics)). NaN and ±inf are `true` as
    /// bool. Integers into narrower integers wrap (keep the low bits).
    ///
    /// # Errors
    /// [`Error::TooLarge`] when the result's byte size passes `isize::MAX` (a broadcast
    /// view can); [`Error::OutOfMemory`] when the device is full.
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let a = cuarray::DeviceArray::from_slice(&dev, &[1.7f32, -2.5, 0.0])?;
    /// assert_eq!(a.astype::<i32>()?.to_host()?, vec![1, -2, 0]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn astype<U: Element>(&self) -> Result<DeviceArray<U>> {
        let out = DeviceArray::<U>::alloc_for("astype", self.device(), self.shape())?;
        elementwise::run(
            self.device(),
            "cast",
            CAST_BODY,
            &[out.operand()?],
            &[self.operand()?],
            &[],
        )?;
        Ok(out)
    }
}

/// Copies `src` (broadcast to `dst`'s shape) into `dst`, both any layout.
pub(super) fn copy_into<T: Element>(dst: &DeviceArray<T>, src: &DeviceArray<T>) -> Result<()> {
    dst.check_writable("assign")?;
    let src = src.source_for("assign", dst)?;
    elementwise::run(
        dst.device(),
        "copy",
        COPY_BODY,
        &[dst.operand()?],
        &[src.operand_as(dst.shape())?],
        &[],
    )
}

/// Joins arrays along an existing axis (NumPy's `concatenate`). All arrays need the same
/// shape except along `axis`.
///
/// # Errors
/// [`Error::InvalidArgument`] for an empty list or a 0-d array; [`Error::AxisOutOfRange`]
/// for an axis outside `-ndim..ndim`; [`Error::ShapeMismatch`] when the shapes differ other
/// than along `axis`; [`Error::DeviceMismatch`] when the arrays are on different devices;
/// [`Error::TooLarge`] when the result's shape overflows; [`Error::OutOfMemory`] when the
/// device is full.
///
/// ```no_run
/// let dev = cuarray::Device::new(0)?;
/// let a = cuarray::DeviceArray::from_slice(&dev, &[1, 2])?;
/// let b = cuarray::DeviceArray::from_slice(&dev, &[3])?;
/// assert_eq!(cuarray::concatenate(&[&a, &b], 0)?.to_host()?, vec![1, 2, 3]);
/// # Ok::<(), cuarray::Error>(())
/// ```
pub fn concatenate<T: Element>(arrays: &[&DeviceArray<T>], axis: isize) -> Result<DeviceArray<T>> {
    let first = arrays.first().ok_or_else(|| {
        Error::invalid(
            "concatenate",
            format!("need at least one array, got an empty list (axis {axis})"),
        )
    })?;
    if let Some(i) = arrays.iter().position(|a| a.ndim() == 0) {
        return Err(Error::invalid(
            "concatenate",
            format!(
                "zero-dimensional arrays cannot be concatenated (array {i} has shape [], \
                 axis {axis})"
            ),
        ));
    }
    let ax = normalize_axis("concatenate", axis, first.ndim())?;
    let mut shape = first.shape().to_vec();
    shape[ax] = 0;
    for a in arrays {
        a.used_by("concatenate", first.device())?;
        let ok = a.ndim() == first.ndim()
            && a.shape()
                .iter()
                .zip(first.shape())
                .enumerate()
                .all(|(k, (x, y))| k == ax || x == y);
        if !ok {
            return Err(Error::ShapeMismatch {
                op: "concatenate",
                msg: format!("all dimensions but axis {ax} must match"),
                lhs: first.shape().to_vec(),
                rhs: a.shape().to_vec(),
            });
        }
        shape[ax] = shape[ax]
            .checked_add(a.shape()[ax])
            .ok_or_else(|| Error::TooLarge {
                op: "concatenate",
                shape: a.shape().to_vec(),
                elem_bytes: None,
            })?;
    }
    let out = DeviceArray::<T>::alloc_for("concatenate", first.device(), &shape)?;
    let mut start = 0usize;
    for a in arrays {
        let len = a.shape()[ax];
        if len > 0 {
            let mut spec = vec![
                SliceElem::Range {
                    start: None,
                    end: None,
                    step: 1
                };
                shape.len()
            ];
            spec[ax] = SliceElem::Range {
                start: Some(start as isize),
                end: Some((start + len) as isize),
                step: 1,
            };
            copy_into(&out.slice(&spec)?, a)?;
        }
        start += len;
    }
    Ok(out)
}

/// Joins arrays of one shape along a new axis (NumPy's `stack`).
///
/// # Errors
/// [`Error::InvalidArgument`] for an empty list; [`Error::ShapeMismatch`] when the shapes
/// differ; [`Error::AxisOutOfRange`] for an axis outside `-ndim-1..=ndim`; otherwise as
/// [`concatenate`].
///
/// ```no_run
/// let dev = cuarray::Device::new(0)?;
/// let a = cuarray::DeviceArray::from_slice(&dev, &[1, 2])?;
/// let b = cuarray::DeviceArray::from_slice(&dev, &[3, 4])?;
/// let s = cuarray::stack(&[&a, &b], 1)?;
/// assert_eq!(s.shape(), &[2, 2]);
/// assert_eq!(s.to_host()?, vec![1, 3, 2, 4]);
/// # Ok::<(), cuarray::Error>(())
/// ```
pub fn stack<T: Element>(arrays: &[&DeviceArray<T>], axis: isize) -> Result<DeviceArray<T>> {
    let first = arrays.first().ok_or_else(|| {
        Error::invalid(
            "stack",
            format!("need at least one array, got an empty list (axis {axis})"),
        )
    })?;
    for a in arrays {
        if a.shape() != first.shape() {
            return Err(Error::ShapeMismatch {
                op: "stack",
                msg: "all arrays must have the same shape".into(),
                lhs: first.shape().to_vec(),
                rhs: a.shape().to_vec(),
            });
        }
    }
    let ax = normalize_axis("stack", axis, first.ndim() + 1)? as isize;
    let expanded: Vec<DeviceArray<T>> = arrays
        .iter()
        .map(|a| a.expand_dims(ax))
        .collect::<Result<_>>()?;
    let refs: Vec<&DeviceArray<T>> = expanded.iter().collect();
    concatenate(&refs, ax)
}
