//! NumPy's everyday helpers, built from views, elementwise ops, reductions and
//! `concatenate` (no kernel of their own): `*_like` and `empty` constructors, `from_vec`,
//! `flip`, `roll`, `tile`, `repeat`, `diff`, `tril`/`triu`, `outer`, `allclose`,
//! `array_equal` and `to_host_shaped`.

use super::{concatenate, where_, DeviceArray};
use crate::element::{Element, FloatElement, NumElement};
use crate::shape::{new_shape, normalize_axis, IntoAxes, IntoShape, SliceElem};
use crate::{Device, Error, Result};

/// The whole axis, as a slice entry.
const ALL: SliceElem = SliceElem::Range {
    start: None,
    end: None,
    step: 1,
};

impl<T: Element> DeviceArray<T> {
    /// A new array of `shape` whose contents are **unspecified** (NumPy's `empty`): the
    /// memory comes from the pool as it is, with whatever an earlier array left there.
    /// Cheaper than [`zeros`](Self::zeros) when every element is written before it is
    /// read (by [`assign`](Self::assign) or an `*_assign` method). Reading an element
    /// before writing it gives an arbitrary value of `T` (never undefined behaviour: a
    /// `bool` array is zeroed, every bit pattern is a valid number).
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let out = cuarray::DeviceArray::<f32>::empty(&dev, &[2, 3])?;
    /// out.assign(&cuarray::DeviceArray::full(&dev, &[3], 1.5f32)?)?;
    /// assert_eq!(out.to_host()?, vec![1.5; 6]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::TooLarge`] when the shape overflows, [`Error::OutOfMemory`] when the device
    /// is full.
    pub fn empty(device: &Device, shape: impl IntoShape) -> Result<Self> {
        let shape = new_shape("empty", shape)?;
        if T::DTYPE == crate::DType::Bool {
            return Self::zeros(device, &shape);
        }
        Self::alloc_for("empty", device, &shape)
    }

    /// Moves `data` (row-major) to a new array of `shape`, as
    /// [`from_host`](Self::from_host) does with a slice.
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let a = cuarray::DeviceArray::from_vec(&dev, vec![1u8, 2, 3, 4], &[2, 2])?;
    /// assert_eq!(a.shape(), &[2, 2]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`from_host`](Self::from_host): [`Error::HostLength`] when `data.len()` is not
    /// the product of `shape`.
    pub fn from_vec(device: &Device, data: Vec<T>, shape: impl IntoShape) -> Result<Self> {
        Self::from_host(device, &data, shape)
    }

    /// The values in logical row-major order with their shape: what
    /// `ndarray::ArrayD::from_shape_vec` takes.
    ///
    /// # Errors
    /// As [`to_host`](Self::to_host).
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let a = cuarray::DeviceArray::from_host(&dev, &[1, 2, 3, 4, 5, 6], &[2, 3])?;
    /// let (values, shape) = a.t().to_host_shaped()?;
    /// assert_eq!((values, shape), (vec![1, 4, 2, 5, 3, 6], vec![3, 2]));
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Transfers and synchronization
    /// As [`to_host`](Self::to_host).
    pub fn to_host_shaped(&self) -> Result<(Vec<T>, Vec<usize>)> {
        Ok((self.to_host()?, self.shape().to_vec()))
    }

    /// A view with the order of elements reversed along each of `axes` ([`IntoAxes`]:
    /// `0`, `-1`, `&[0, 1]`), NumPy's `flip`; no copy.
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let a = cuarray::DeviceArray::from_host(&dev, &[1, 2, 3, 4], &[2, 2])?;
    /// assert_eq!(a.flip(-1)?.to_host()?, vec![2, 1, 4, 3]);
    /// assert_eq!(a.flip(&[0, 1])?.to_host()?, vec![4, 3, 2, 1]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`] for an axis outside `-ndim..ndim`.
    pub fn flip(&self, axes: impl IntoAxes) -> Result<Self> {
        let mut spec = vec![ALL; self.ndim()];
        for a in axes.axes() {
            let k = normalize_axis("flip", a, self.ndim())?;
            spec[k] = ALL.with_step(-1);
        }
        self.slice(&spec)
    }

    /// The elements shifted by `shift` positions along `axis`, those that fall off the
    /// end coming back at the start (NumPy's `roll` with an axis). A new array.
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let a = cuarray::DeviceArray::from_slice(&dev, &[1, 2, 3, 4, 5])?;
    /// assert_eq!(a.roll(2, 0)?.to_host()?, vec![4, 5, 1, 2, 3]);
    /// assert_eq!(a.roll(-1, 0)?.to_host()?, vec![2, 3, 4, 5, 1]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`] for an axis outside `-ndim..ndim` (a 0-d array has none).
    pub fn roll(&self, shift: isize, axis: isize) -> Result<Self> {
        let k = normalize_axis("roll", axis, self.ndim())?;
        let n = self.shape()[k];
        let s = if n == 0 {
            0
        } else {
            shift.rem_euclid(n as isize)
        };
        if s == 0 {
            return self.copy();
        }
        let cut = n as isize - s;
        let mut tail = vec![ALL; k + 1];
        tail[k] = SliceElem::Range {
            start: Some(cut),
            end: None,
            step: 1,
        };
        let mut head = vec![ALL; k + 1];
        head[k] = SliceElem::Range {
            start: None,
            end: Some(cut),
            step: 1,
        };
        concatenate(&[&self.slice(&tail)?, &self.slice(&head)?], axis)
    }

    /// The array repeated `reps` times along each axis (NumPy's `tile`): `reps` is an
    /// [`IntoShape`]; when it has fewer entries than the array has axes, it is padded
    /// with leading 1s, when it has more, the array gets leading axes of extent 1.
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let a = cuarray::DeviceArray::from_slice(&dev, &[1, 2])?;
    /// assert_eq!(a.tile(3)?.to_host()?, vec![1, 2, 1, 2, 1, 2]);
    /// let t = a.tile(&[2, 2])?;
    /// assert_eq!((t.shape(), t.to_host()?), (&[2, 4][..], vec![1, 2, 1, 2, 1, 2, 1, 2]));
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a negative repeat count, [`Error::TooLarge`] when the
    /// result's shape overflows.
    pub fn tile(&self, reps: impl IntoShape) -> Result<Self> {
        let reps = new_shape("tile", reps)?;
        let d = reps.len().max(self.ndim());
        let mut r = vec![1usize; d - reps.len()];
        r.extend_from_slice(&reps);
        let mut s = vec![1usize; d - self.ndim()];
        s.extend_from_slice(self.shape());
        // (1, s0, 1, s1, ...) broadcast to (r0, s0, r1, s1, ...), then merged pairwise.
        let spread: Vec<usize> = s.iter().flat_map(|&e| [1, e]).collect();
        let wide: Vec<usize> = r.iter().zip(&s).flat_map(|(&a, &b)| [a, b]).collect();
        let out: Vec<usize> = r
            .iter()
            .zip(&s)
            .map(|(&a, &b)| a.checked_mul(b))
            .collect::<Option<_>>()
            .ok_or_else(|| Error::TooLarge {
                op: "tile",
                shape: wide.clone(),
                elem_bytes: None,
            })?;
        self.reshape(&spread)?
            .broadcast_to(&wide)?
            .copy()?
            .reshape(&out)
    }

    /// Each element repeated `repeats` times along `axis` (NumPy's `repeat` with one
    /// count and an axis). A new array.
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let a = cuarray::DeviceArray::from_host(&dev, &[1, 2, 3, 4], &[2, 2])?;
    /// assert_eq!(a.repeat(2, 0)?.to_host()?, vec![1, 2, 1, 2, 3, 4, 3, 4]);
    /// assert_eq!(a.repeat(2, -1)?.to_host()?, vec![1, 1, 2, 2, 3, 3, 4, 4]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`] for an axis outside `-ndim..ndim`, [`Error::TooLarge`]
    /// when the result's shape overflows.
    pub fn repeat(&self, repeats: usize, axis: isize) -> Result<Self> {
        let k = normalize_axis("repeat", axis, self.ndim())?;
        let mut wide = self.shape().to_vec();
        wide.insert(k + 1, repeats);
        let mut out = self.shape().to_vec();
        out[k] = out[k].checked_mul(repeats).ok_or_else(|| Error::TooLarge {
            op: "repeat",
            shape: wide.clone(),
            elem_bytes: None,
        })?;
        self.expand_dims(k as isize + 1)?
            .broadcast_to(&wide)?
            .copy()?
            .reshape(&out)
    }
}

impl<T: NumElement> DeviceArray<T> {
    /// The `n`-th discrete difference along `axis` (NumPy's `diff(a, n, axis)`):
    /// `out[i] = a[i + 1] - a[i]`, applied `n` times; the axis shrinks by `n` (to 0 at
    /// least). Integers wrap, as their subtraction does.
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let a = cuarray::DeviceArray::from_slice(&dev, &[1, 4, 9, 16])?;
    /// assert_eq!(a.diff(1, -1)?.to_host()?, vec![3, 5, 7]);
    /// assert_eq!(a.diff(2, 0)?.to_host()?, vec![2, 2]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`] for an axis outside `-ndim..ndim`.
    pub fn diff(&self, n: usize, axis: isize) -> Result<Self> {
        let k = normalize_axis("diff", axis, self.ndim())?;
        let mut a = self.clone();
        for _ in 0..n {
            let mut hi = vec![ALL; k + 1];
            let mut lo = vec![ALL; k + 1];
            hi[k] = SliceElem::Range {
                start: Some(1),
                end: None,
                step: 1,
            };
            lo[k] = SliceElem::Range {
                start: None,
                end: Some(-1),
                step: 1,
            };
            if a.shape()[k] == 0 {
                break;
            }
            a = a.slice(&hi)?.sub(&a.slice(&lo)?)?;
        }
        if n == 0 {
            return a.copy();
        }
        Ok(a)
    }

    /// The lower triangle of the last two axes (NumPy's `tril`): elements above the
    /// `k`-th diagonal become zero (`k = 0` the main diagonal, `k > 0` above it, `k < 0`
    /// below it). Leading axes are a batch.
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let a = cuarray::DeviceArray::<i32>::ones(&dev, &[3, 3])?;
    /// assert_eq!(a.tril(0)?.to_host()?, vec![1, 0, 0, 1, 1, 0, 1, 1, 1]);
    /// assert_eq!(a.triu(1)?.to_host()?, vec![0, 1, 1, 0, 0, 1, 0, 0, 0]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for an array of fewer than two dimensions.
    pub fn tril(&self, k: isize) -> Result<Self> {
        where_(self.triangle("tril", k, true)?, self, T::ZERO)
    }

    /// The upper triangle of the last two axes (NumPy's `triu`): elements below the
    /// `k`-th diagonal become zero. See [`tril`](Self::tril).
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_host(&dev, &[1, 2, 3, 4, 5, 6, 7, 8, 9], &[3, 3])?;
    /// assert_eq!(a.triu(0)?.to_host()?, vec![1, 2, 3, 0, 5, 6, 0, 0, 9]);
    /// assert_eq!(a.triu(-1)?.to_host()?, vec![1, 2, 3, 4, 5, 6, 0, 8, 9]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for an array of fewer than two dimensions.
    pub fn triu(&self, k: isize) -> Result<Self> {
        where_(self.triangle("triu", k, false)?, self, T::ZERO)
    }

    /// The (rows, cols) mask of `col - row <= k` (`lower`) or `col - row >= k`.
    fn triangle(&self, op: &'static str, k: isize, lower: bool) -> Result<DeviceArray<bool>> {
        if self.ndim() < 2 {
            return Err(Error::invalid(
                op,
                format!(
                    "needs at least two dimensions, got shape {:?}",
                    self.shape()
                ),
            ));
        }
        let (r, c) = (self.shape()[self.ndim() - 2], self.shape()[self.ndim() - 1]);
        let dev = self.device();
        let rows = DeviceArray::<i64>::arange(dev, 0, r as i64, 1)?.reshape(&[-1, 1])?;
        let cols = DeviceArray::<i64>::arange(dev, 0, c as i64, 1)?;
        let d = (&cols - &rows)?;
        if lower {
            d.le(k as i64)
        } else {
            d.ge(k as i64)
        }
    }
}

/// A new array of `like`'s shape and element type, filled with zeros, on its device
/// (NumPy's `zeros_like`; always C-contiguous).
///
/// ```no_run
/// let dev = cuarray::Device::new(0)?;
/// let x = cuarray::DeviceArray::<f32>::ones(&dev, &[2, 3])?;
/// let g = cuarray::zeros_like(&x)?;
/// assert_eq!(g.shape(), x.shape());
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::OutOfMemory`] when the device is full.
pub fn zeros_like<T: Element>(like: &DeviceArray<T>) -> Result<DeviceArray<T>> {
    DeviceArray::zeros(like.device(), like.shape())
}

/// A new array of `like`'s shape and element type, filled with ones (NumPy's
/// `ones_like`).
///
/// ```no_run
/// use cuarray::{Device, DeviceArray};
/// let dev = Device::new(0)?;
/// let x = DeviceArray::<f32>::zeros(&dev, &[2, 2])?;
/// assert_eq!(cuarray::ones_like(&x)?.to_host()?, vec![1.0; 4]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::OutOfMemory`] when the device is full.
pub fn ones_like<T: Element>(like: &DeviceArray<T>) -> Result<DeviceArray<T>> {
    DeviceArray::ones(like.device(), like.shape())
}

/// A new array of `like`'s shape and element type, filled with `value` (NumPy's
/// `full_like`).
///
/// ```no_run
/// use cuarray::{Device, DeviceArray};
/// let dev = Device::new(0)?;
/// let x = DeviceArray::<i32>::zeros(&dev, &[3])?;
/// assert_eq!(cuarray::full_like(&x, 7)?.to_host()?, vec![7, 7, 7]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::OutOfMemory`] when the device is full.
pub fn full_like<T: Element>(like: &DeviceArray<T>, value: T) -> Result<DeviceArray<T>> {
    DeviceArray::full(like.device(), like.shape(), value)
}

/// A new array of `like`'s shape and element type with unspecified contents (NumPy's
/// `empty_like`; see [`DeviceArray::empty`]).
///
/// ```no_run
/// use cuarray::{Device, DeviceArray};
/// let dev = Device::new(0)?;
/// let x = DeviceArray::<f32>::zeros(&dev, &[2, 3])?;
/// let y = cuarray::empty_like(&x)?; // contents unspecified until written
/// y.assign(&x)?;
/// assert_eq!(y.shape(), &[2, 3]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::OutOfMemory`] when the device is full.
pub fn empty_like<T: Element>(like: &DeviceArray<T>) -> Result<DeviceArray<T>> {
    DeviceArray::empty(like.device(), like.shape())
}

/// The outer product of two arrays, flattened first (NumPy's `outer`):
/// `out[i, j] = a[i] * b[j]`, of shape `(a.size(), b.size())`.
///
/// ```no_run
/// let dev = cuarray::Device::new(0)?;
/// let a = cuarray::DeviceArray::from_slice(&dev, &[1, 2])?;
/// let b = cuarray::DeviceArray::from_slice(&dev, &[1, 10, 100])?;
/// assert_eq!(cuarray::outer(&a, &b)?.to_host()?, vec![1, 10, 100, 2, 20, 200]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::DeviceMismatch`] across devices.
pub fn outer<T: NumElement>(a: &DeviceArray<T>, b: &DeviceArray<T>) -> Result<DeviceArray<T>> {
    a.reshape(&[-1, 1])?.mul(b.reshape(&[1, -1])?)
}

/// True when every element of `a` is close to the one of `b` (NumPy's `allclose`, shapes
/// broadcast): `|a - b| <= atol + rtol * |b|`, or equal (so equal infinities are close).
/// NaN is close to nothing. Computed on the device; one `bool` comes back.
///
/// ```no_run
/// let dev = cuarray::Device::new(0)?;
/// let a = cuarray::DeviceArray::from_slice(&dev, &[1.0f32, 2.0])?;
/// let b = (&a + 1e-7)?;
/// assert!(cuarray::allclose(&a, &b, 1e-5, 1e-8)?);
/// assert!(!cuarray::allclose(&a, &(&a * 2.0)?, 1e-5, 1e-8)?);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::Broadcast`] when the shapes do not broadcast.
///
/// # Transfers and synchronization
/// One scalar back to the host; waits for the array's stream.
pub fn allclose<T: FloatElement + NumElement>(
    a: &DeviceArray<T>,
    b: &DeviceArray<T>,
    rtol: f64,
    atol: f64,
) -> Result<bool> {
    let err = a.sub(b)?.abs()?;
    let tol = (&b.abs()? * T::from_f64(rtol))?.add(T::from_f64(atol))?;
    err.le(&tol)?.logical_or(&a.eq(b)?)?.all()?.to_scalar()
}

/// True when `a` and `b` have the same shape and the same elements (NumPy's
/// `array_equal`; NaN is not equal to itself). Different shapes give `false`, not an
/// error. Computed on the device; one `bool` comes back.
///
/// ```no_run
/// let dev = cuarray::Device::new(0)?;
/// let a = cuarray::DeviceArray::from_slice(&dev, &[1, 2, 3])?;
/// assert!(cuarray::array_equal(&a, &a.copy()?)?);
/// assert!(!cuarray::array_equal(&a, &a.reshape(&[3, 1])?)?);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::DeviceMismatch`] across devices.
///
/// # Transfers and synchronization
/// One scalar back to the host (none for different shapes).
pub fn array_equal<T: Element>(a: &DeviceArray<T>, b: &DeviceArray<T>) -> Result<bool> {
    if a.shape() != b.shape() {
        return Ok(false);
    }
    a.eq(b)?.all()?.to_scalar()
}
