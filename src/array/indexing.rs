//! Selection and indexing: boolean masks ([`masked_select`](DeviceArray::masked_select),
//! [`masked_fill`](DeviceArray::masked_fill), [`nonzero`], [`argwhere`],
//! [`count_nonzero`]), integer indices ([`take`](DeviceArray::take),
//! [`take_along_axis`](DeviceArray::take_along_axis),
//! [`put_along_axis`](DeviceArray::put_along_axis), [`index_add`](DeviceArray::index_add)),
//! and counting ([`bincount`], [`histogram`]).
//!
//! # Indices out of range
//! Indices are `i64`; a negative index counts from the end (NumPy's wrap, once). An index
//! still outside the axis is never used to read or write memory: a gather gives 0 for it
//! and a scatter skips it, and the kernel records it on the device. Nothing waits for the
//! GPU at the call: the next call that does ([`Device::synchronize`](crate::Device::synchronize),
//! a transfer to the host such as `to_host`, or [`Device::check`](crate::Device::check))
//! returns [`Error::IndexOutOfRange`] naming the operation, the index and the extent.
//! (PyTorch's device-side assert instead leaves the CUDA context unusable.)
//!
//! # Synchronization
//! The length of `masked_select`, `nonzero`, `argwhere` and `unique`'s results depends on
//! the data: each reads one count (8 bytes) back from the GPU between its two launches,
//! and so waits for the GPU once. `bincount` (the largest value) and `histogram` without a
//! range (the smallest and largest) read two values back the same way.

use super::DeviceArray;
use crate::device::Device;
use crate::element::{Element, FloatElement, IntElement};
use crate::kernels::abi::Scalar;
use crate::kernels::family::reduce::{Acc, Identity};
use crate::kernels::family::select::Flag;
use crate::kernels::Text;
use crate::ops::reduce::{plan_reduce, run_def, ReduceDef};
use crate::ops::select::{plan_select, SelectPlan, Target};
use crate::ops::{gather, Operand};
use crate::shape::{broadcast_shapes, normalize_axis, Layout};
use crate::{Error, Result};

/// Counts the selected elements per tile, sums the counts, reads the total (one wait for
/// the GPU) and hands it with the inclusive sums to `write`.
pub(crate) fn compact<R>(
    op: &'static str,
    device: &Device,
    p: &SelectPlan,
    flag: Flag,
    f: &Operand<'_>,
    write: impl FnOnce(usize, &DeviceArray<u64>) -> Result<R>,
) -> Result<R> {
    let _range = crate::profile::range(op);
    let counts = DeviceArray::<u32>::alloc_for(op, device, &[p.tiles])?;
    crate::ops::select::count(device, p, flag, f, &counts.operand()?)?;
    let incl = counts.cumsum(0)?;
    let total = if p.tiles == 0 {
        0
    } else {
        incl.with_layout(incl.layout().index_axis(0, p.tiles - 1))
            .to_scalar()? as usize
    };
    write(total, &incl)
}

/// Coordinates of the non-zero elements of `a`: result r's coordinate d at
/// `r * sk + d * sd` of an i64 array of `shape(total)`.
fn coords<T: Element>(
    op: &'static str,
    a: &DeviceArray<T>,
    shape: impl Fn(usize) -> Vec<usize>,
    sk: impl Fn(usize) -> usize,
    sd: impl Fn(usize) -> usize,
) -> Result<DeviceArray<i64>> {
    let device = a.device();
    let p = plan_select(op, a.shape(), a.strides(), a.strides())?;
    let f = a.operand()?;
    compact(op, device, &p, Flag::NonZero, &f, |total, incl| {
        let out = DeviceArray::<i64>::alloc_for(op, device, &shape(total))?;
        crate::ops::select::write(
            device,
            &p,
            Flag::NonZero,
            &f,
            &incl.operand()?,
            Target::Coords {
                shape: a.shape(),
                sk: sk(total),
                sd: sd(total),
                out: &out.operand()?,
            },
        )?;
        Ok(out)
    })
}

/// The indices of the non-zero elements of `a`, one i64 array per dimension (NumPy's
/// `nonzero`), in C order. NaN counts as non-zero.
///
/// # Synchronization
/// Reads the count back (8 bytes), so it waits for the GPU once.
///
/// ```no_run
/// let dev = cuarray::Device::new(0)?;
/// let a = cuarray::DeviceArray::from_host(&dev, &[0, 3, 0, 5], &[2, 2])?;
/// let nz = cuarray::nonzero(&a)?;
/// assert_eq!((nz[0].to_host()?, nz[1].to_host()?), (vec![0, 1], vec![1, 1]));
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] for a 0-d array (as NumPy 2).
pub fn nonzero<T: Element>(a: &DeviceArray<T>) -> Result<Vec<DeviceArray<i64>>> {
    let nd = a.ndim();
    if nd == 0 {
        return Err(Error::invalid(
            "nonzero",
            "a 0-d array has no dimension to index (use atleast_1d / reshape first)",
        ));
    }
    let all = coords("nonzero", a, |t| vec![nd, t], |_| 1, |t| t)?;
    Ok((0..nd)
        .map(|d| all.with_layout(all.layout().index_axis(0, d)))
        .collect())
}

/// The coordinates of the non-zero elements of `a` as an `(n, ndim)` i64 array (NumPy's
/// `argwhere`), in C order.
///
/// # Errors
/// [`Error::OutOfMemory`] when the device is full; as [`to_host`](DeviceArray::to_host) for
/// the read of the count ([`Error::Capture`] while a CUDA graph is being captured,
/// [`Error::IndexOutOfRange`] left by an earlier kernel).
///
/// # Synchronization
/// Reads the count back (8 bytes), so it waits for the GPU once.
///
/// ```no_run
/// let dev = cuarray::Device::new(0)?;
/// let a = cuarray::DeviceArray::from_host(&dev, &[0, 3, 0, 5], &[2, 2])?;
/// assert_eq!(cuarray::argwhere(&a)?.to_host()?, vec![0, 1, 1, 1]);
/// # Ok::<(), cuarray::Error>(())
/// ```
pub fn argwhere<T: Element>(a: &DeviceArray<T>) -> Result<DeviceArray<i64>> {
    if a.ndim() == 0 {
        let c = count_nonzero(a)?.to_scalar()? as usize;
        return DeviceArray::<i64>::zeros(a.device(), &[c, 0]);
    }
    let nd = a.ndim();
    coords("argwhere", a, |t| vec![t, nd], |_| nd, |_| 1)
}

/// The count definition: `in0 != 0` summed in i64.
fn count_def() -> ReduceDef {
    ReduceDef {
        acc: Acc::I64,
        identity: Acc::I64.identity(Identity::Zero).into(),
        preamble: Text::EMPTY,
        pre: Text::Static("a = (in0 != in0_t(0)) ? 1 : 0;"),
        combine: Text::Static("a + b"),
        combine_forward: Text::EMPTY,
        post: Text::Static("out0 = out0_t(a);"),
    }
}

fn count_over<T: Element>(a: &DeviceArray<T>, axes: Option<&[isize]>) -> Result<DeviceArray<i64>> {
    let device = a.device();
    let p = plan_reduce(
        a.layout(),
        axes,
        false,
        false,
        device.multiprocessor_count(),
    )?;
    let out = DeviceArray::<i64>::alloc_for("count_nonzero", device, &p.out_shape)?;
    run_def(
        device,
        &Text::Static("count_nonzero"),
        &count_def(),
        &p,
        &a.operand()?,
        &out.operand()?,
        None,
        &[],
    )?;
    Ok(out)
}

/// The number of non-zero elements of `a` as a 0-d i64 array (NaN counts as non-zero).
///
/// # Errors
/// [`Error::OutOfMemory`] when the device is full.
///
/// ```no_run
/// let dev = cuarray::Device::new(0)?;
/// let a = cuarray::DeviceArray::from_slice(&dev, &[0.0f32, 1.0, f32::NAN])?;
/// assert_eq!(cuarray::count_nonzero(&a)?.to_scalar()?, 2);
/// # Ok::<(), cuarray::Error>(())
/// ```
pub fn count_nonzero<T: Element>(a: &DeviceArray<T>) -> Result<DeviceArray<i64>> {
    count_over(a, None)
}

/// The number of non-zero elements of `a` along `axis` (negative counts from the end).
///
/// # Errors
/// [`Error::AxisOutOfRange`] for an axis outside `-ndim..ndim`.
///
/// ```no_run
/// use cuarray::{Device, DeviceArray};
/// let dev = Device::new(0)?;
/// let a = DeviceArray::from_host(&dev, &[0, 1, 2, 3, 0, 0], &[2, 3])?;
/// assert_eq!(cuarray::count_nonzero_axis(&a, 0)?.to_host()?, vec![1, 1, 1]);
/// assert_eq!(cuarray::count_nonzero_axis(&a, -1)?.to_host()?, vec![2, 1]);
/// # Ok::<(), cuarray::Error>(())
/// ```
pub fn count_nonzero_axis<T: Element>(a: &DeviceArray<T>, axis: isize) -> Result<DeviceArray<i64>> {
    count_over(a, Some(&[axis]))
}

/// A layout of `shape` over `layout`'s memory where `axis` has stride 0 (its position comes
/// from an index instead), other axes broadcast as NumPy.
fn without_axis(layout: &Layout, axis: usize, shape: &[usize]) -> Result<Layout> {
    let mut sh = layout.shape().to_vec();
    let mut st = layout.strides().to_vec();
    sh[axis] = 1;
    st[axis] = 0;
    Layout::from_parts(sh, st, layout.offset()).broadcast_to(shape)
}

impl<T: Element> DeviceArray<T> {
    /// The elements where `mask` is true, in C order, as a 1-D array (NumPy's `a[mask]`,
    /// PyTorch's `masked_select`); `mask` broadcasts with the array.
    ///
    /// # Errors
    /// [`Error::Broadcast`] when `mask` does not broadcast with the array;
    /// [`Error::DeviceMismatch`] when `mask` is on another device; as
    /// [`to_host`](DeviceArray::to_host) for the read of the count ([`Error::Capture`]
    /// while a CUDA graph is being captured).
    ///
    /// # Synchronization
    /// The result's length depends on the mask: one small read (8 bytes, the count) waits
    /// for the GPU between the count and the copy of the selected elements.
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let a = cuarray::DeviceArray::from_slice(&dev, &[1.0f32, -2.0, 3.0])?;
    /// let m = a.gt(0.0)?;
    /// assert_eq!(a.masked_select(&m)?.to_host()?, vec![1.0, 3.0]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn masked_select(&self, mask: &DeviceArray<bool>) -> Result<DeviceArray<T>> {
        const OP: &str = "masked_select";
        let device = self.device();
        mask.used_by(OP, device)?;
        let shape = broadcast_shapes(OP, self.shape(), mask.shape())?;
        let a = self.operand_as(&shape)?;
        let m = mask.operand_as(&shape)?;
        let p = plan_select(OP, &shape, m.layout().strides(), a.layout().strides())?;
        compact(OP, device, &p, Flag::NonZero, &m, |total, incl| {
            let out = DeviceArray::<T>::alloc_for(OP, device, &[total])?;
            crate::ops::select::write(
                device,
                &p,
                Flag::NonZero,
                &m,
                &incl.operand()?,
                Target::Values {
                    values: &a,
                    out: &out.operand()?,
                },
            )?;
            Ok(out)
        })
    }

    /// Sets the elements where `mask` (broadcast to the array's shape) is true to `value`,
    /// in place (NumPy's `a[mask] = value`).
    ///
    /// # Errors
    /// [`Error::Broadcast`] when `mask` does not broadcast to the array's shape;
    /// [`Error::InvalidArgument`] when the array is a broadcast view (stride 0), which
    /// cannot be written; [`Error::DeviceMismatch`] when `mask` is on another device.
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let a = cuarray::DeviceArray::from_slice(&dev, &[1.0f32, -2.0, 3.0])?;
    /// a.masked_fill(&a.lt(0.0)?, 0.0)?;
    /// assert_eq!(a.to_host()?, vec![1.0, 0.0, 3.0]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn masked_fill(&self, mask: &DeviceArray<bool>, value: T) -> Result<()> {
        const OP: &str = "masked_fill";
        self.check_writable(OP)?;
        let mask = mask.source_for_other(OP, self)?;
        crate::ops::elementwise::run(
            self.device(),
            OP,
            "out0 = in1 ? s0 : in0;",
            &[self.operand()?],
            &[self.operand()?, mask.operand_as(self.shape())?],
            &[Scalar::of(value)],
        )
    }

    /// Elements at `indices` (i64, negative from the end) along `axis`, or of the
    /// flattened array when `axis` is `None` (NumPy's `take`): the result's shape is the
    /// array's with `axis` replaced by the indices' shape (the indices' shape for `None`).
    /// An index out of range reads 0 and is reported as [`Error::IndexOutOfRange`] by the
    /// next call that waits for the GPU (a transfer to the host,
    /// [`Device::check`](crate::Device::check)).
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`] for an axis outside `-ndim..ndim`;
    /// [`Error::DeviceMismatch`] when `indices` is on another device. An index out of range
    /// is reported later, as above.
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let a = cuarray::DeviceArray::from_host(&dev, &[1, 2, 3, 4, 5, 6], &[2, 3])?;
    /// let i = cuarray::DeviceArray::from_slice(&dev, &[2i64, -3])?;
    /// assert_eq!(a.take(&i, Some(1))?.to_host()?, vec![3, 1, 6, 4]);
    /// assert_eq!(a.take(&i, None)?.to_host()?, vec![3, 4]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn take(&self, indices: &DeviceArray<i64>, axis: Option<isize>) -> Result<DeviceArray<T>> {
        const OP: &str = "take";
        let device = self.device();
        indices.used_by(OP, device)?;
        let Some(axis) = axis else {
            let flat = self.reshape([self.size()])?;
            return flat.take(indices, Some(0));
        };
        let nd = self.ndim();
        let k = normalize_axis(OP, axis, nd)?;
        let (sh, st) = (self.shape(), self.strides());
        let ni = indices.ndim();
        let mut shape = sh[..k].to_vec();
        shape.extend_from_slice(indices.shape());
        shape.extend_from_slice(&sh[k + 1..]);
        let mut a_strides = st[..k].to_vec();
        a_strides.extend(std::iter::repeat_n(0, ni));
        a_strides.extend_from_slice(&st[k + 1..]);
        let mut i_strides = vec![0isize; k];
        i_strides.extend_from_slice(indices.strides());
        i_strides.extend(std::iter::repeat_n(0, nd - k - 1));
        let out = DeviceArray::<T>::alloc_for(OP, device, &shape)?;
        gather::gather(
            device,
            OP,
            &out.operand()?,
            &self.operand()?,
            &indices.operand()?,
            &a_strides,
            &i_strides,
            (sh[k], true),
            st[k],
        )?;
        Ok(out)
    }

    /// `out[..., j, ...] = a[..., indices[..., j, ...], ...]` along `axis` (NumPy's
    /// `take_along_axis`): `indices` has the array's rank and broadcasts with it on the
    /// other axes.
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] when `indices` does not have the array's number of
    /// dimensions; [`Error::Broadcast`] when it does not broadcast with the array on the
    /// other axes; [`Error::AxisOutOfRange`] for an axis outside `-ndim..ndim`;
    /// [`Error::DeviceMismatch`] when `indices` is on another device.
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let a = cuarray::DeviceArray::from_host(&dev, &[10, 30, 20, 60, 40, 50], &[2, 3])?;
    /// let i = a.argsort(1)?;
    /// assert_eq!(a.take_along_axis(&i, 1)?.to_host()?, vec![10, 20, 30, 40, 50, 60]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn take_along_axis(
        &self,
        indices: &DeviceArray<i64>,
        axis: isize,
    ) -> Result<DeviceArray<T>> {
        const OP: &str = "take_along_axis";
        let device = self.device();
        indices.used_by(OP, device)?;
        let (k, shape) = self.along_shape(OP, indices, axis)?;
        let a = without_axis(self.layout(), k, &shape)?;
        let i = indices.layout().broadcast_to(&shape)?;
        let out = DeviceArray::<T>::alloc_for(OP, device, &shape)?;
        gather::gather(
            device,
            OP,
            &out.operand()?,
            &self.operand()?,
            &indices.operand()?,
            a.strides(),
            i.strides(),
            (self.shape()[k], true),
            self.strides()[k],
        )?;
        Ok(out)
    }

    /// The shape of an `_along_axis` op: the array's with `axis` replaced by the indices'
    /// extent, broadcast with the indices.
    fn along_shape(
        &self,
        op: &'static str,
        indices: &DeviceArray<i64>,
        axis: isize,
    ) -> Result<(usize, Vec<usize>)> {
        let nd = self.ndim();
        if indices.ndim() != nd {
            return Err(Error::ShapeMismatch {
                op,
                msg: "the indices must have the array's number of dimensions".into(),
                lhs: self.shape().to_vec(),
                rhs: indices.shape().to_vec(),
            });
        }
        let k = normalize_axis(op, axis, nd)?;
        let mut a = self.shape().to_vec();
        a[k] = 1;
        let mut shape = broadcast_shapes(op, &a, indices.shape())?;
        shape[k] = indices.shape()[k];
        Ok((k, shape))
    }

    /// `a[..., indices[..., j, ...], ...] = values[..., j, ...]` along `axis`, in place
    /// (NumPy's `put_along_axis`); `values` broadcasts to the indices' shape. Duplicate
    /// indices leave one of their values (which one is not defined). Out-of-range indices
    /// are skipped and reported at the next wait.
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] when `indices` does not have the array's number of
    /// dimensions; [`Error::Broadcast`] when it does not broadcast with the array on the
    /// other axes, or `values` does not broadcast to its shape; [`Error::AxisOutOfRange`]
    /// for an axis outside `-ndim..ndim`; [`Error::InvalidArgument`] when the array is a
    /// broadcast view (stride 0), which cannot be written; [`Error::DeviceMismatch`] when
    /// `indices` or `values` is on another device.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::<i32>::zeros(&dev, &[2, 3])?;
    /// let idx = DeviceArray::from_host(&dev, &[2i64, 0], &[2, 1])?;
    /// let v = DeviceArray::from_host(&dev, &[7, 8], &[2, 1])?;
    /// a.put_along_axis(&idx, &v, 1)?;
    /// assert_eq!(a.to_host()?, vec![0, 0, 7, 8, 0, 0]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn put_along_axis(
        &self,
        indices: &DeviceArray<i64>,
        values: &DeviceArray<T>,
        axis: isize,
    ) -> Result<()> {
        self.scatter_along("put_along_axis", indices, values, axis, false)
    }

    fn scatter_along(
        &self,
        op: &'static str,
        indices: &DeviceArray<i64>,
        values: &DeviceArray<T>,
        axis: isize,
        add: bool,
    ) -> Result<()> {
        self.check_writable(op)?;
        let device = self.device();
        let (k, shape) = self.along_shape(op, indices, axis)?;
        let indices = indices.source_for_other(op, self)?;
        let values = values.source_for_other(op, self)?;
        let d = without_axis(self.layout(), k, &shape)?;
        let i = indices.layout().broadcast_to(&shape)?;
        let v = values.layout().broadcast_to(&shape)?;
        gather::scatter(
            device,
            op,
            &self.operand()?,
            &indices.operand()?,
            &values.operand()?,
            &shape,
            [d.strides(), i.strides(), v.strides()],
            (self.shape()[k], true),
            self.strides()[k],
            add,
        )
    }

    /// Adds `values` at `indices` (1-D, i64) along `axis`, in place and atomically:
    /// `a[..., indices[j], ...] += values[..., j, ...]`, every duplicate index adding
    /// (NumPy's `np.add.at`, PyTorch's `index_add_`). `values` broadcasts to the array's
    /// shape with `axis` of the indices' length. Integers wrap; bool adds as logical or;
    /// `f16`/`bf16` round each addition. Out-of-range indices are skipped and reported at
    /// the next wait.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `indices` is not 1-D, or when the array is a
    /// broadcast view (stride 0), which cannot be written; [`Error::AxisOutOfRange`] for an
    /// axis outside `-ndim..ndim`; [`Error::Broadcast`] when `values` does not broadcast;
    /// [`Error::DeviceMismatch`] when `indices` or `values` is on another device.
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let a = cuarray::DeviceArray::<f32>::zeros(&dev, &[3])?;
    /// let i = cuarray::DeviceArray::from_slice(&dev, &[0i64, 2, 0])?;
    /// let v = cuarray::DeviceArray::from_slice(&dev, &[1.0f32, 2.0, 3.0])?;
    /// a.index_add(0, &i, &v)?;
    /// assert_eq!(a.to_host()?, vec![4.0, 0.0, 2.0]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn index_add(
        &self,
        axis: isize,
        indices: &DeviceArray<i64>,
        values: &DeviceArray<T>,
    ) -> Result<()> {
        const OP: &str = "index_add";
        if indices.ndim() != 1 {
            return Err(Error::invalid(
                OP,
                format!(
                    "the indices must be 1-D, not of shape {:?}",
                    indices.shape()
                ),
            ));
        }
        self.check_writable(OP)?;
        let nd = self.ndim();
        let k = normalize_axis(OP, axis, nd)?;
        let mut shape = self.shape().to_vec();
        shape[k] = indices.size();
        let indices = indices.source_for_other(OP, self)?;
        let values = values.source_for_other(OP, self)?;
        let d = without_axis(self.layout(), k, &shape)?;
        let mut i = vec![0isize; nd];
        i[k] = indices.strides()[0];
        let v = values.layout().broadcast_to(&shape)?;
        gather::scatter(
            self.device(),
            OP,
            &self.operand()?,
            &indices.operand()?,
            &values.operand()?,
            &shape,
            [d.strides(), &i, v.strides()],
            (self.shape()[k], true),
            self.strides()[k],
            true,
        )
    }

    /// `self` as an input of `op` writing into `dst` (of any element type): checks the
    /// device, records the stream, and copies `self` first when it shares `dst`'s memory
    /// (a scatter could overwrite it before it is read).
    pub(crate) fn source_for_other<U: Element>(
        &self,
        op: &'static str,
        dst: &DeviceArray<U>,
    ) -> Result<std::borrow::Cow<'_, Self>> {
        self.used_by(op, dst.device())?;
        if self.shares_memory_with(dst) {
            return Ok(std::borrow::Cow::Owned(
                self.on_handle(dst.device()).copy()?,
            ));
        }
        Ok(std::borrow::Cow::Borrowed(self))
    }
}

/// The smallest and largest element of `a` (one read back, so one wait for the GPU).
fn min_max<T: crate::NumElement>(op: &'static str, a: &DeviceArray<T>) -> Result<(T, T)> {
    let both = super::concatenate(
        &[&a.min()?.reshape([1usize])?, &a.max()?.reshape([1usize])?],
        0,
    )?;
    let v = both.to_host()?;
    match v[..] {
        [lo, hi] => Ok((lo, hi)),
        _ => Err(Error::invalid(op, "min and max")),
    }
}

/// The number of occurrences of each value `0, 1, ..., max(x)` of the 1-D non-negative
/// integers `x`, at least `minlength` of them (NumPy's `bincount` without weights).
///
/// # Synchronization
/// The result's length depends on the data: the smallest and largest values are read back
/// (one wait for the GPU) before the counting kernel.
///
/// ```no_run
/// let dev = cuarray::Device::new(0)?;
/// let x = cuarray::DeviceArray::from_slice(&dev, &[1u8, 3, 1, 0])?;
/// assert_eq!(cuarray::bincount(&x, 0)?.to_host()?, vec![1, 2, 0, 1]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] when `x` is not 1-D or holds a negative value.
pub fn bincount<T: IntElement>(x: &DeviceArray<T>, minlength: usize) -> Result<DeviceArray<i64>> {
    const OP: &str = "bincount";
    if x.ndim() != 1 {
        return Err(Error::invalid(
            OP,
            format!("the input must be 1-D, not of shape {:?}", x.shape()),
        ));
    }
    let device = x.device();
    if x.size() == 0 {
        return DeviceArray::<i64>::zeros(device, &[minlength]);
    }
    let (lo, hi) = min_max(OP, x)?;
    if lo.to_i64_wrapping() < 0 && T::DTYPE.is_signed_int() {
        return Err(Error::invalid(
            OP,
            format!(
                "the input holds a negative value ({lo}); bincount counts non-negative integers"
            ),
        ));
    }
    let hi = hi.to_f64();
    if hi >= (isize::MAX / 8) as f64 {
        return Err(Error::invalid(
            OP,
            format!("the largest value ({hi}) asks for too many bins"),
        ));
    }
    let bins = (hi as usize + 1).max(minlength);
    let out = DeviceArray::<i64>::zeros(device, &[bins])?;
    gather::count(device, OP, &x.operand()?, &out.operand()?, bins, None)?;
    Ok(out)
}

/// The counts of `a`'s elements in `bins` equal bins over `range` (default: the smallest
/// and largest element), and the `bins + 1` bin edges (NumPy's `histogram` with an integer
/// `bins`): the last bin includes its right edge; NaN and elements outside the range are
/// not counted. Edges are computed in `f64` and rounded to `T`; bin positions follow
/// NumPy's rule (a division, then a correction against the edges).
///
/// # Synchronization
/// Without a range, the smallest and largest elements are read back (one wait for the
/// GPU).
///
/// ```no_run
/// let dev = cuarray::Device::new(0)?;
/// let a = cuarray::DeviceArray::from_slice(&dev, &[0.0f32, 0.5, 1.0, 2.0])?;
/// let (c, e) = cuarray::histogram(&a, 2, None)?;
/// assert_eq!((c.to_host()?, e.to_host()?), (vec![2, 2], vec![0.0, 1.0, 2.0]));
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] for `bins == 0`, a range with `lo > hi`, or a range (given,
/// or found in the data) that is not finite.
pub fn histogram<T: FloatElement + crate::NumElement>(
    a: &DeviceArray<T>,
    bins: usize,
    range: Option<(T, T)>,
) -> Result<(DeviceArray<i64>, DeviceArray<T>)> {
    const OP: &str = "histogram";
    if bins == 0 {
        return Err(Error::invalid(OP, "bins must be at least 1"));
    }
    let device = a.device();
    let (mut lo, mut hi) = match range {
        Some((lo, hi)) => (lo.to_f64(), hi.to_f64()),
        None if a.size() == 0 => (0.0, 1.0),
        None => {
            let (lo, hi) = min_max(OP, a)?;
            (lo.to_f64(), hi.to_f64())
        }
    };
    if !(lo.is_finite() && hi.is_finite()) {
        return Err(Error::invalid(
            OP,
            format!("the range [{lo}, {hi}] is not finite"),
        ));
    }
    if lo > hi {
        return Err(Error::invalid(
            OP,
            format!("max must be larger than min in range ({lo}, {hi})"),
        ));
    }
    if lo == hi {
        lo -= 0.5;
        hi += 0.5;
    }
    let edges = DeviceArray::<T>::alloc_for(OP, device, &[bins + 1])?;
    gather::edges(device, &edges.operand()?, bins, lo, hi)?;
    let counts = DeviceArray::<i64>::zeros(device, &[bins])?;
    gather::count(
        device,
        OP,
        &a.operand()?,
        &counts.operand()?,
        bins,
        Some((&edges.operand()?, lo, hi)),
    )?;
    Ok((counts, edges))
}
