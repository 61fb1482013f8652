//! Sorting and searching: [`sort`](DeviceArray::sort), [`argsort`](DeviceArray::argsort),
//! [`topk`](DeviceArray::topk), [`unique`] and [`searchsorted`].
//!
//! # Order
//! NumPy's: integers by value, `false < true`, floats by value with every NaN last (first
//! for `topk(.., largest = true)`, where NaN counts as the largest, as in PyTorch).
//! Sorts are stable: equal elements keep their input order. `-0.0` and `+0.0` are equal,
//! as NumPy compares them, so they too keep their input order, and every value keeps its
//! sign: `sort([3, nan, -0., 1, 0., -inf, -0.])` is `[-inf, -0., 0., -0., 1, 3, nan]`, as
//! NumPy's `kind='stable'`. A NaN comes back from `sort` and `topk` as the canonical quiet
//! NaN.
//!
//! # Strategy
//! Rows (the extent of the sorted axis) of up to 4096 elements are sorted one per group of
//! threads in shared memory; longer rows by a one-sweep LSD radix sort over the whole
//! array (8 bits a pass), the row number's bytes sorted last when there are several rows.
//! Any view is read in place (no copy of a strided or transposed input).

use super::DeviceArray;
use crate::element::Element;
use crate::kernels::family::select::Flag;
use crate::kernels::family::sort::ROW_MAX;
use crate::ops::select::{plan_select, Target};
use crate::ops::sort::{
    plan_sort, run, search, topk_hist, topk_select, topk_tiles, Order, SortPlan, SortStrategy,
};
use crate::{Error, Result};

/// The sorted elements and the indices a sort wrote, each when asked for.
type Sorted<T> = (Option<DeviceArray<T>>, Option<DeviceArray<i64>>);

impl<T: Element> DeviceArray<T> {
    fn sorted(
        &self,
        op: &'static str,
        axis: isize,
        kout: Option<usize>,
        order: Order,
        keys: bool,
        idx: bool,
    ) -> Result<Sorted<T>> {
        let p = plan_sort(op, self.layout(), axis, kout, T::DTYPE.size(), idx)?;
        let device = self.device();
        let k = keys
            .then(|| DeviceArray::<T>::alloc_for(op, device, &p.out_shape))
            .transpose()?;
        let i = idx
            .then(|| DeviceArray::<i64>::alloc_for(op, device, &p.out_shape))
            .transpose()?;
        let ko = k.as_ref().map(|a| a.operand()).transpose()?;
        let io = i.as_ref().map(|a| a.operand()).transpose()?;
        run(
            device,
            op,
            &p,
            order,
            &self.operand()?,
            ko.as_ref(),
            io.as_ref(),
        )?;
        drop((ko, io));
        Ok((k, i))
    }

    /// A sorted copy along `axis` (negative counts from the end), in NumPy's order: NaN
    /// last (as the canonical quiet NaN), stable, `-0.0` and `+0.0` equal (each keeps its
    /// sign and its place among the zeros). Any view is read in place.
    ///
    /// Rows (the extent of `axis`) of up to 4096 elements sort in shared memory, one group
    /// of threads per row; longer rows by a one-sweep radix sort over the whole array.
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let a = cuarray::DeviceArray::from_host(&dev, &[3.0f32, f32::NAN, -1.0, 2.0, 0.5, 0.0], &[2, 3])?;
    /// let s = a.sort(-1)?.to_host()?;
    /// assert_eq!(&s[..2], &[-1.0, 3.0]);
    /// assert!(s[2].is_nan());
    /// assert_eq!(&s[3..], &[0.0, 0.5, 2.0]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`] for an axis outside `-ndim..ndim` (a 0-d array has none).
    pub fn sort(&self, axis: isize) -> Result<DeviceArray<T>> {
        let order = Order { descending: false };
        let (k, _) = self.sorted("sort", axis, None, order, true, false)?;
        k.ok_or_else(|| Error::invalid("sort", "no output"))
    }

    /// The indices (`i64`, along `axis`) that sort the array: a stable sort, NaN last,
    /// `-0.0 == +0.0` (NumPy's `argsort(kind='stable')`).
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let a = cuarray::DeviceArray::from_slice(&dev, &[2, 1, 2, 0])?;
    /// assert_eq!(a.argsort(0)?.to_host()?, vec![3, 1, 0, 2]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`] for an axis outside `-ndim..ndim` (a 0-d array has none).
    pub fn argsort(&self, axis: isize) -> Result<DeviceArray<i64>> {
        let order = Order { descending: false };
        let (_, i) = self.sorted("argsort", axis, None, order, false, true)?;
        i.ok_or_else(|| Error::invalid("argsort", "no output"))
    }

    /// The `k` largest (`largest`) or smallest elements along `axis` and their indices,
    /// in order (largest first, or smallest first); ties keep their input order. With
    /// `largest`, NaN counts as the largest value (as PyTorch's `topk`).
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let a = cuarray::DeviceArray::from_slice(&dev, &[1.0f32, 5.0, 3.0, 5.0])?;
    /// let (v, i) = a.topk(2, 0, true)?;
    /// assert_eq!((v.to_host()?, i.to_host()?), (vec![5.0, 5.0], vec![1, 3]));
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `k` exceeds the axis's extent.
    pub fn topk(
        &self,
        k: usize,
        axis: isize,
        largest: bool,
    ) -> Result<(DeviceArray<T>, DeviceArray<i64>)> {
        let order = Order {
            descending: largest,
        };
        let p = plan_sort("topk", self.layout(), axis, Some(k), T::DTYPE.size(), true)?;
        // Selection reads the row once per key byte and sorts only the k candidates: cheaper
        // than sorting the row (with its indices) whenever k is at most an eighth of it.
        // Its write pass sums, per tile holding candidates, the counts of the tiles before
        // it: past ROW_MAX candidates (most tiles hold some) only for up to 16384 tiles.
        if matches!(p.strategy, SortStrategy::Radix { .. })
            && p.n_rows == 1
            && k * 8 <= p.len
            && (k <= ROW_MAX || topk_tiles(&p) <= 16384)
        {
            return self.topk_select(&p, order);
        }
        let (v, i) = self.sorted("topk", axis, Some(k), order, true, true)?;
        match (v, i) {
            (Some(v), Some(i)) => Ok((v, i)),
            _ => Err(Error::invalid("topk", "no output")),
        }
    }
}

impl<T: Element> DeviceArray<T> {
    /// Top-k of one long row by radix selection: the k-th key digit by digit, the k
    /// candidates in index order, then their stable sort.
    fn topk_select(
        &self,
        p: &SortPlan,
        order: Order,
    ) -> Result<(DeviceArray<T>, DeviceArray<i64>)> {
        const OP: &str = "topk";
        let device = self.device();
        let input = self.operand()?;
        let kb = T::DTYPE.size();
        let hist = DeviceArray::<u64>::zeros(device, &[kb * 256])?;
        for pass in 0..kb {
            topk_hist(device, p, order.descending, &input, &hist.operand()?, pass)?;
        }
        let tiles = topk_tiles(p);
        let counts = DeviceArray::<u32>::alloc_for(OP, device, &[2, tiles])?;
        topk_select(
            device,
            p,
            order.descending,
            &input,
            &hist.operand()?,
            &counts.operand()?,
            None,
        )?;
        let k = p.kout;
        let cand = DeviceArray::<T>::alloc_for(OP, device, &[k])?;
        let cand_idx = DeviceArray::<i64>::alloc_for(OP, device, &[k])?;
        topk_select(
            device,
            p,
            order.descending,
            &input,
            &hist.operand()?,
            &counts.operand()?,
            Some((&cand.operand()?, &cand_idx.operand()?)),
        )?;
        let (v, j) = cand.sorted(OP, 0, None, order, true, true)?;
        let (Some(v), Some(j)) = (v, j) else {
            return Err(Error::invalid(OP, "no output"));
        };
        let i = cand_idx.take(&j, Some(0))?;
        Ok((
            v.reshape(p.out_shape.as_slice())?,
            i.reshape(p.out_shape.as_slice())?,
        ))
    }
}

/// The sorted distinct elements of `a`, flattened (NumPy's `unique`); NaNs collapse into
/// one (NumPy 2), and `-0.0` and `+0.0` into one (the first zero in input order).
///
/// # Synchronization
/// The result's length depends on the data: one small read (the count, 8 bytes) waits for
/// the GPU between the two launches that select the elements.
///
/// ```no_run
/// let dev = cuarray::Device::new(0)?;
/// let a = cuarray::DeviceArray::from_slice(&dev, &[3, 1, 3, 2, 1])?;
/// assert_eq!(cuarray::unique(&a)?.to_host()?, vec![1, 2, 3]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::OutOfMemory`] when the device is full; as [`to_host`](DeviceArray::to_host) for
/// the read of the count ([`Error::Capture`] while a CUDA graph is being captured,
/// [`Error::IndexOutOfRange`] left by an earlier kernel).
pub fn unique<T: Element>(a: &DeviceArray<T>) -> Result<DeviceArray<T>> {
    let flat = a.reshape([a.size()])?;
    let sorted = flat.sort(0)?;
    let n = sorted.size();
    let p = plan_select("unique", &[n], &[1], &[1])?;
    super::indexing::compact(
        "unique",
        a.device(),
        &p,
        Flag::Distinct,
        &sorted.operand()?,
        |total, incl| {
            let out = DeviceArray::<T>::alloc_for("unique", a.device(), &[total])?;
            crate::ops::select::write(
                a.device(),
                &p,
                Flag::Distinct,
                &sorted.operand()?,
                &incl.operand()?,
                Target::Values {
                    values: &sorted.operand()?,
                    out: &out.operand()?,
                },
            )?;
            Ok(out)
        },
    )
}

/// Indices where `values` would be inserted into the sorted 1-D `sorted` to keep it sorted
/// (NumPy's `searchsorted`): the first such index (`right == false`, NumPy's
/// `side='left'`) or the last. The order is the sorts' (NaN last, `-0.0 == +0.0`); the
/// result has the shape of `values`.
///
/// ```no_run
/// let dev = cuarray::Device::new(0)?;
/// let s = cuarray::DeviceArray::from_slice(&dev, &[1.0f32, 2.0, 2.0, 3.0])?;
/// let v = cuarray::DeviceArray::from_slice(&dev, &[2.0f32, 0.0, 9.0])?;
/// assert_eq!(cuarray::searchsorted(&s, &v, false)?.to_host()?, vec![1, 0, 4]);
/// assert_eq!(cuarray::searchsorted(&s, &v, true)?.to_host()?, vec![3, 0, 4]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] when `sorted` is not 1-D.
pub fn searchsorted<T: Element>(
    sorted: &DeviceArray<T>,
    values: &DeviceArray<T>,
    right: bool,
) -> Result<DeviceArray<i64>> {
    if sorted.ndim() != 1 {
        return Err(Error::invalid(
            "searchsorted",
            format!(
                "the sorted array must be 1-D, not of shape {:?}",
                sorted.shape()
            ),
        ));
    }
    values.used_by("searchsorted", sorted.device())?;
    let device = sorted.device();
    let out = DeviceArray::<i64>::alloc_for("searchsorted", device, values.shape())?;
    search(
        device,
        &sorted.operand()?,
        &values.operand()?,
        &out.operand()?,
        right,
    )?;
    Ok(out)
}
