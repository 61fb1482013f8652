//! Set operations and sort-based orders over the sort and select families:
//! [`unique_all`], [`unique_counts`], [`unique_inverse`], [`isin`], [`intersect1d`],
//! [`union1d`], [`setdiff1d`], [`setxor1d`], [`lexsort`],
//! [`partition`](DeviceArray::partition) and [`argpartition`](DeviceArray::argpartition).
//!
//! # Order and equality
//! The sorts' order (NaN last); as [`unique`], NaNs collapse into one distinct value and
//! `-0.0` equals `+0.0` (NumPy's `unique_all` and friends keep NaNs apart). Membership
//! ([`isin`] and the set operations built on it) uses `==`, so NaN is never a member, as
//! in NumPy.
//!
//! # Synchronization
//! Results whose length depends on the data read a count back: each `unique_*` once,
//! `union1d` once, `intersect1d` and `setdiff1d` twice, `setxor1d` four times. `isin`,
//! `lexsort`, `partition` and `argpartition` never wait.

use super::indexing::compact;
use super::{concatenate, searchsorted, unique, DeviceArray};
use crate::element::Element;
use crate::kernels::family::select::Flag;
use crate::ops::select::{plan_select, Target};
use crate::shape::normalize_axis;
use crate::{Error, Result};

/// Every result of [`unique_all`] (NumPy's `unique_all`).
#[derive(Debug, Clone)]
pub struct UniqueAll<T: Element> {
    /// The sorted distinct elements.
    pub values: DeviceArray<T>,
    /// For each distinct element, the flat index of its first occurrence in the input.
    pub indices: DeviceArray<i64>,
    /// For each input element (the input's shape), the index of its value in `values`.
    pub inverse_indices: DeviceArray<i64>,
    /// How often each distinct element occurs.
    pub counts: DeviceArray<i64>,
}

/// A sorted flattened array, the sort's order (when asked for) and where each run of equal
/// elements starts.
type Runs<T> = (DeviceArray<T>, Option<DeviceArray<i64>>, DeviceArray<i64>);

/// The stably sorted flattened `a` (and the order when `order`), and the positions in it
/// where each run of equal elements starts (one wait for the count).
fn runs<T: Element>(op: &'static str, a: &DeviceArray<T>, order: bool) -> Result<Runs<T>> {
    let flat = a.reshape([a.size()])?;
    let (sorted, order) = if order {
        let o = flat.argsort(0)?;
        (flat.take(&o, Some(0))?, Some(o))
    } else {
        (flat.sort(0)?, None)
    };
    let n = sorted.size();
    let device = a.device();
    let p = plan_select(op, &[n], &[1], &[1])?;
    let f = sorted.operand()?;
    let starts = compact(op, device, &p, Flag::Distinct, &f, |total, incl| {
        let out = DeviceArray::<i64>::alloc_for(op, device, &[total])?;
        crate::ops::select::write(
            device,
            &p,
            Flag::Distinct,
            &f,
            &incl.operand()?,
            Target::Coords {
                shape: &[n],
                sk: 1,
                sd: total,
                out: &out.operand()?,
            },
        )?;
        Ok(out)
    })?;
    drop(f);
    Ok((sorted, order, starts))
}

/// The length of each run: the next start (or `n`) minus this one.
fn counts(starts: &DeviceArray<i64>, n: usize) -> Result<DeviceArray<i64>> {
    let k = starts.size();
    if k == 0 {
        return Ok(starts.clone());
    }
    let next = concatenate(
        &[
            &starts.slice(crate::s![1..])?,
            &DeviceArray::<i64>::full(starts.device(), [1usize], n as i64)?,
        ],
        0,
    )?;
    &next - starts
}

/// The sorted distinct elements of `a` (flattened), the index of each one's first
/// occurrence, the index into them of each element of `a`, and their counts (NumPy's
/// `unique_all`; NaNs collapse into one, as [`unique`]).
///
/// # Synchronization
/// Reads the number of distinct elements back (one wait).
///
/// # Errors
/// [`Error::OutOfMemory`] when the device is full.
///
/// ```no_run
/// use cuarray::{Device, DeviceArray};
/// let dev = Device::new(0)?;
/// let a = DeviceArray::from_slice(&dev, &[3, 1, 3, 2, 1, 3])?;
/// let u = cuarray::unique_all(&a)?;
/// assert_eq!(u.values.to_host()?, vec![1, 2, 3]);
/// assert_eq!(u.indices.to_host()?, vec![1, 3, 0]);
/// assert_eq!(u.inverse_indices.to_host()?, vec![2, 0, 2, 1, 0, 2]);
/// assert_eq!(u.counts.to_host()?, vec![2, 1, 3]);
/// # Ok::<(), cuarray::Error>(())
/// ```
pub fn unique_all<T: Element>(a: &DeviceArray<T>) -> Result<UniqueAll<T>> {
    let (sorted, order, starts) = runs("unique_all", a, true)?;
    let values = sorted.take(&starts, Some(0))?;
    let indices = match order {
        Some(o) => o.take(&starts, Some(0))?,
        None => return Err(Error::invalid("unique_all", "the sort order is missing")),
    };
    let inverse_indices = searchsorted(&values, a, false)?;
    let counts = counts(&starts, sorted.size())?;
    Ok(UniqueAll {
        values,
        indices,
        inverse_indices,
        counts,
    })
}

/// The sorted distinct elements of `a` (flattened) and how often each occurs (NumPy's
/// `unique_counts`; NaNs collapse into one).
///
/// # Synchronization
/// Reads the number of distinct elements back (one wait).
///
/// # Errors
/// [`Error::OutOfMemory`] when the device is full.
///
/// ```no_run
/// use cuarray::{Device, DeviceArray};
/// let dev = Device::new(0)?;
/// let a = DeviceArray::from_slice(&dev, &[2.0f32, 1.0, 2.0])?;
/// let (v, c) = cuarray::unique_counts(&a)?;
/// assert_eq!((v.to_host()?, c.to_host()?), (vec![1.0, 2.0], vec![1, 2]));
/// # Ok::<(), cuarray::Error>(())
/// ```
pub fn unique_counts<T: Element>(a: &DeviceArray<T>) -> Result<(DeviceArray<T>, DeviceArray<i64>)> {
    let (sorted, _, starts) = runs("unique_counts", a, false)?;
    let values = sorted.take(&starts, Some(0))?;
    Ok((values, counts(&starts, sorted.size())?))
}

/// The sorted distinct elements of `a` (flattened) and, for each element of `a` (its
/// shape), the index of its value among them (NumPy's `unique_inverse`; NaNs collapse
/// into one): `values.take(&inverse, None)` rebuilds `a`.
///
/// # Synchronization
/// Reads the number of distinct elements back (one wait).
///
/// # Errors
/// [`Error::OutOfMemory`] when the device is full.
///
/// ```no_run
/// use cuarray::{Device, DeviceArray};
/// let dev = Device::new(0)?;
/// let a = DeviceArray::from_host(&dev, &[5, 7, 5, 1], &[2, 2])?;
/// let (v, inv) = cuarray::unique_inverse(&a)?;
/// assert_eq!((v.to_host()?, inv.shape(), inv.to_host()?), (vec![1, 5, 7], &[2, 2][..], vec![1, 2, 1, 0]));
/// # Ok::<(), cuarray::Error>(())
/// ```
pub fn unique_inverse<T: Element>(
    a: &DeviceArray<T>,
) -> Result<(DeviceArray<T>, DeviceArray<i64>)> {
    let values = unique(a)?;
    let inverse = searchsorted(&values, a, false)?;
    Ok((values, inverse))
}

/// Whether each element of `a` is among the elements of `test` (any shape; NumPy's
/// `isin`), or is not, with `invert`. The result has `a`'s shape. Membership is `==`: NaN
/// is never a member.
///
/// `test` is sorted once; each element of `a` is found by binary search. Nothing waits.
///
/// # Errors
/// [`Error::DeviceMismatch`] across devices.
///
/// ```no_run
/// use cuarray::{Device, DeviceArray};
/// let dev = Device::new(0)?;
/// let a = DeviceArray::from_slice(&dev, &[1, 5, 2, 7])?;
/// let t = DeviceArray::from_slice(&dev, &[7, 1, 9])?;
/// assert_eq!(cuarray::isin(&a, &t, false)?.to_host()?, vec![true, false, false, true]);
/// assert_eq!(cuarray::isin(&a, &t, true)?.to_host()?, vec![false, true, true, false]);
/// # Ok::<(), cuarray::Error>(())
/// ```
pub fn isin<T: Element>(
    a: &DeviceArray<T>,
    test: &DeviceArray<T>,
    invert: bool,
) -> Result<DeviceArray<bool>> {
    test.used_by("isin", a.device())?;
    let n = test.size();
    if n == 0 {
        return DeviceArray::<bool>::full(a.device(), a.shape(), invert);
    }
    let sorted = test.reshape([n])?.sort(0)?;
    let pos = searchsorted(&sorted, a, false)?.clip(0, n as i64 - 1)?;
    let found = sorted.take(&pos, Some(0))?;
    if invert {
        found.ne(a)
    } else {
        found.eq(a)
    }
}

/// The sorted distinct elements found in both `a` and `b` (flattened; NumPy's
/// `intersect1d`).
///
/// # Synchronization
/// Two waits (the distinct elements of `a`, then the selection).
///
/// # Errors
/// [`Error::DeviceMismatch`] across devices.
///
/// ```no_run
/// use cuarray::{Device, DeviceArray};
/// let dev = Device::new(0)?;
/// let a = DeviceArray::from_slice(&dev, &[1, 3, 4, 3])?;
/// let b = DeviceArray::from_slice(&dev, &[3, 1, 2, 1])?;
/// assert_eq!(cuarray::intersect1d(&a, &b)?.to_host()?, vec![1, 3]);
/// # Ok::<(), cuarray::Error>(())
/// ```
pub fn intersect1d<T: Element>(a: &DeviceArray<T>, b: &DeviceArray<T>) -> Result<DeviceArray<T>> {
    let ua = unique(a)?;
    ua.masked_select(&isin(&ua, b, false)?)
}

/// The sorted distinct elements found in `a` or `b` (flattened; NumPy's `union1d`).
///
/// # Synchronization
/// One wait (the number of distinct elements).
///
/// # Errors
/// [`Error::DeviceMismatch`] across devices.
///
/// ```no_run
/// use cuarray::{Device, DeviceArray};
/// let dev = Device::new(0)?;
/// let a = DeviceArray::from_slice(&dev, &[-1, 0, 1])?;
/// let b = DeviceArray::from_slice(&dev, &[-2, 0, 2])?;
/// assert_eq!(cuarray::union1d(&a, &b)?.to_host()?, vec![-2, -1, 0, 1, 2]);
/// # Ok::<(), cuarray::Error>(())
/// ```
pub fn union1d<T: Element>(a: &DeviceArray<T>, b: &DeviceArray<T>) -> Result<DeviceArray<T>> {
    b.used_by("union1d", a.device())?;
    unique(&concatenate(
        &[&a.reshape([a.size()])?, &b.reshape([b.size()])?],
        0,
    )?)
}

/// The sorted distinct elements of `a` that are not in `b` (flattened; NumPy's
/// `setdiff1d`).
///
/// # Synchronization
/// Two waits (the distinct elements of `a`, then the selection).
///
/// # Errors
/// [`Error::DeviceMismatch`] across devices.
///
/// ```no_run
/// use cuarray::{Device, DeviceArray};
/// let dev = Device::new(0)?;
/// let a = DeviceArray::from_slice(&dev, &[1, 2, 3, 2, 4, 1])?;
/// let b = DeviceArray::from_slice(&dev, &[3, 4, 5, 6])?;
/// assert_eq!(cuarray::setdiff1d(&a, &b)?.to_host()?, vec![1, 2]);
/// # Ok::<(), cuarray::Error>(())
/// ```
pub fn setdiff1d<T: Element>(a: &DeviceArray<T>, b: &DeviceArray<T>) -> Result<DeviceArray<T>> {
    let ua = unique(a)?;
    ua.masked_select(&isin(&ua, b, true)?)
}

/// The sorted distinct elements found in exactly one of `a` and `b` (flattened; NumPy's
/// `setxor1d`).
///
/// # Synchronization
/// Four waits (the distinct elements of each input, of both, then the selection).
///
/// # Errors
/// [`Error::DeviceMismatch`] across devices.
///
/// ```no_run
/// use cuarray::{Device, DeviceArray};
/// let dev = Device::new(0)?;
/// let a = DeviceArray::from_slice(&dev, &[1, 2, 3, 2, 4])?;
/// let b = DeviceArray::from_slice(&dev, &[2, 3, 5, 7, 5])?;
/// assert_eq!(cuarray::setxor1d(&a, &b)?.to_host()?, vec![1, 4, 5, 7]);
/// # Ok::<(), cuarray::Error>(())
/// ```
pub fn setxor1d<T: Element>(a: &DeviceArray<T>, b: &DeviceArray<T>) -> Result<DeviceArray<T>> {
    b.used_by("setxor1d", a.device())?;
    let both = concatenate(&[&unique(a)?, &unique(b)?], 0)?;
    let (values, counts) = unique_counts(&both)?;
    values.masked_select(&counts.eq(1)?)
}

/// The indirect stable sort by several keys, the last one primary (NumPy's `lexsort`):
/// the indices that order the keys' last axis by `keys[n - 1]`, ties broken by
/// `keys[n - 2]`, and so on. All keys have one shape; the result has it too.
///
/// One stable argsort per key, from the first key to the last, each through the order so
/// far. Nothing waits.
///
/// # Errors
/// [`Error::InvalidArgument`] for no keys or 0-d keys; [`Error::ShapeMismatch`] when the
/// keys' shapes differ; [`Error::DeviceMismatch`] across devices.
///
/// ```no_run
/// use cuarray::{Device, DeviceArray};
/// let dev = Device::new(0)?;
/// let first = DeviceArray::from_slice(&dev, &[1, 5, 1, 4, 3, 4, 4])?; // secondary
/// let last = DeviceArray::from_slice(&dev, &[9, 4, 0, 4, 0, 2, 1])?; // primary
/// assert_eq!(cuarray::lexsort(&[&first, &last])?.to_host()?, vec![2, 4, 6, 5, 3, 1, 0]);
/// # Ok::<(), cuarray::Error>(())
/// ```
pub fn lexsort<T: Element>(keys: &[&DeviceArray<T>]) -> Result<DeviceArray<i64>> {
    const OP: &str = "lexsort";
    let Some(first) = keys.first() else {
        return Err(Error::invalid(OP, "needs at least one key"));
    };
    if first.ndim() == 0 {
        return Err(Error::invalid(
            OP,
            "the keys must have at least one dimension",
        ));
    }
    for k in keys {
        k.used_by(OP, first.device())?;
        if k.shape() != first.shape() {
            return Err(Error::ShapeMismatch {
                op: OP,
                msg: "all keys must have the same shape".into(),
                lhs: first.shape().to_vec(),
                rhs: k.shape().to_vec(),
            });
        }
    }
    let mut order = first.argsort(-1)?;
    for k in &keys[1..] {
        let step = k.take_along_axis(&order, -1)?.argsort(-1)?;
        order = order.take_along_axis(&step, -1)?;
    }
    Ok(order)
}

impl<T: Element> DeviceArray<T> {
    /// Checks `kth` against `axis` of this array.
    fn check_kth(&self, op: &'static str, kth: isize, axis: isize) -> Result<()> {
        let k = normalize_axis(op, axis, self.ndim())?;
        let n = self.shape()[k] as isize;
        if kth < -n || kth >= n {
            return Err(Error::invalid(
                op,
                format!("kth {kth} is out of bounds for axis {k} of extent {n}"),
            ));
        }
        Ok(())
    }

    /// The array with each row along `axis` rearranged so that the element at `kth`
    /// (negative from the end) is the one a sort would put there, the smaller ones before
    /// it and the larger ones after (NumPy's `partition`). NumPy guarantees only that
    /// placement; this implementation returns the fully sorted rows (a stable sort), which
    /// satisfies it.
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`] for an axis outside `-ndim..ndim`;
    /// [`Error::InvalidArgument`] for `kth` outside `-n..n`.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_slice(&dev, &[3, 4, 2, 1])?;
    /// let p = a.partition(2, 0)?.to_host()?;
    /// assert_eq!(p[2], 3);
    /// assert!(p[..2].iter().all(|&x| x <= 3) && p[3] >= 3);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn partition(&self, kth: isize, axis: isize) -> Result<Self> {
        self.check_kth("partition", kth, axis)?;
        self.sort(axis)
    }

    /// The indices that [`partition`](Self::partition) the array along `axis` around
    /// `kth` (NumPy's `argpartition`); as there, the indices of a stable sort, which
    /// satisfy NumPy's guarantee.
    ///
    /// # Errors
    /// As [`partition`](Self::partition).
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_slice(&dev, &[3, 4, 2, 1])?;
    /// let i = a.argpartition(-1, 0)?;
    /// assert_eq!(a.take(&i, None)?.to_host()?[3], 4);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn argpartition(&self, kth: isize, axis: isize) -> Result<DeviceArray<i64>> {
        self.check_kth("argpartition", kth, axis)?;
        self.argsort(axis)
    }
}
