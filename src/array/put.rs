//! NumPy's index helpers over the gather family and elementwise ops:
//! [`put`](DeviceArray::put), [`place`](DeviceArray::place),
//! [`compress`](DeviceArray::compress), [`choose`], [`one_hot`], [`unravel_index`] and
//! [`ravel_multi_index`].
//!
//! # Indices out of range
//! As [`take`](DeviceArray::take): checked on the device, never used to touch memory, and
//! reported as [`Error::IndexOutOfRange`] by the next call that waits for the GPU. `put`
//! wraps negative indices once (NumPy's `mode="raise"`); `choose`, `one_hot`,
//! `unravel_index` and `ravel_multi_index` do not (NumPy raises for a negative entry).

use super::indexing::nonzero;
use super::{DeviceArray, IndexElem};
use crate::element::Element;
use crate::kernels::abi::Scalar;
use crate::ops::catalogue::{BinaryOp, WHERE_BODY};
use crate::ops::{elementwise, gather};
use crate::shape::{broadcast_shapes, normalize_axis, SliceElem};
use crate::{Error, Result};

/// Body of one coordinate of `unravel_index`: `s0` the axis' C stride, `s1` its extent.
pub(crate) const UNRAVEL_BODY: &str = "out0 = (in0 / s0) % s1;";
/// Body of one step of `ravel_multi_index`: `s0` the next axis' extent.
pub(crate) const RAVEL_BODY: &str = "out0 = in0 * s0 + in1;";

/// Records, for the next wait, the first element of `idx` outside `[0, extent)` (no wrap
/// of negative values) as [`Error::IndexOutOfRange`] of `op`: a scatter of one byte with
/// stride 0, so no memory is reached through the indices.
pub(crate) fn check_indices(op: &'static str, idx: &DeviceArray<i64>, extent: usize) -> Result<()> {
    let device = idx.device();
    let scratch = DeviceArray::<u8>::alloc_for(op, device, &[2])?;
    let dst = scratch.with_layout(scratch.layout().index_axis(0, 0));
    let src = scratch.with_layout(scratch.layout().index_axis(0, 1));
    let zero = vec![0isize; idx.ndim()];
    gather::scatter(
        device,
        op,
        &dst.operand()?,
        &idx.operand()?,
        &src.operand()?,
        idx.shape(),
        [&zero, idx.strides(), &zero],
        (extent, false),
        0,
        false,
    )
}

/// [`Error::InvalidArgument`] naming `op` for a complex `T` (the gather family moves real
/// types and bool).
fn real_only<T: Element>(op: &'static str) -> Result<()> {
    if T::DTYPE.is_complex() {
        return Err(Error::invalid(
            op,
            format!("takes real arrays and bool, not {}", T::DTYPE.name()),
        ));
    }
    Ok(())
}

/// The product of `shape`, or [`Error::TooLarge`] naming `op`.
pub(super) fn checked_size(op: &'static str, shape: &[usize]) -> Result<usize> {
    shape
        .iter()
        .try_fold(1usize, |a, &e| a.checked_mul(e))
        .filter(|&n| n <= isize::MAX as usize)
        .ok_or_else(|| Error::TooLarge {
            op,
            shape: shape.to_vec(),
            elem_bytes: None,
        })
}

impl<T: Element> DeviceArray<T> {
    /// The slices at `idx` (negative from the end) along axis `k`, through advanced
    /// indexing, which moves every element type (complex included): `a[:, ..., idx]`.
    pub(super) fn take_index(&self, idx: &DeviceArray<i64>, k: usize) -> Result<Self> {
        const FULL: SliceElem = SliceElem::Range {
            start: None,
            end: None,
            step: 1,
        };
        let mut ix = vec![IndexElem::Basic(FULL); k];
        ix.push(IndexElem::Int(idx));
        self.index(&ix)
    }

    /// Writes `values` at the flat (C-order) positions `indices`, in place (NumPy's
    /// `np.put(a, indices, values)`): `values` is flattened and repeated when it is shorter
    /// than `indices`. Negative indices count from the end. With duplicate indices one of
    /// the values lands (which one is not specified).
    ///
    /// A non-contiguous array is written through a contiguous copy (one more copy each
    /// way).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `values` is empty but `indices` is not, or the array
    /// is a broadcast view (stride 0); [`Error::DeviceMismatch`] across devices. An index
    /// out of range is skipped and reported as [`Error::IndexOutOfRange`] at the next wait.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::<i32>::zeros(&dev, &[2, 3])?;
    /// let i = DeviceArray::from_slice(&dev, &[0i64, 4, -1])?;
    /// a.put(&i, &DeviceArray::from_slice(&dev, &[7, 8])?)?; // values repeat: 7, 8, 7
    /// assert_eq!(a.to_host()?, vec![7, 0, 0, 0, 8, 7]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn put(&self, indices: &DeviceArray<i64>, values: &DeviceArray<T>) -> Result<()> {
        const OP: &str = "put";
        self.check_writable(OP)?;
        indices.used_by(OP, self.device())?;
        values.used_by(OP, self.device())?;
        let n = indices.size();
        if n == 0 {
            return Ok(());
        }
        if values.size() == 0 {
            return Err(Error::invalid(
                OP,
                format!("no values to put at {n} indices (values is empty)"),
            ));
        }
        let vals = values.reshape([values.size()])?;
        let vals = if vals.size() == n {
            vals
        } else {
            vals.resize([n])?
        };
        let vals = vals.reshape(indices.shape())?;
        match self.layout().reshape_view(&[self.size()]) {
            Some(flat) => {
                self.with_layout(flat)
                    .scatter_index(OP, &crate::ix![indices], &vals, false)
            }
            None => {
                let c = self.copy()?;
                c.put(indices, &vals)?;
                self.assign(&c)
            }
        }
    }

    /// Writes `values` into the elements where `mask` is true, in C order, repeating
    /// `values` when there are more such elements (NumPy's `np.place(a, mask, values)`).
    /// `mask` has the array's size (any shape of that size). In place.
    ///
    /// Nothing waits for the GPU: each true element finds its value through a running
    /// count of the mask.
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] when `mask` has another size; [`Error::InvalidArgument`]
    /// when `values` is empty while `mask` holds a true element (this case reads the count
    /// back), or the array is a broadcast view; [`Error::DeviceMismatch`] across devices.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::<i32>::arange(&dev, 0, 6, 1)?;
    /// a.place(&a.gt(1)?, &DeviceArray::from_slice(&dev, &[40, 50])?)?;
    /// assert_eq!(a.to_host()?, vec![0, 1, 40, 50, 40, 50]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn place(&self, mask: &DeviceArray<bool>, values: &DeviceArray<T>) -> Result<()> {
        const OP: &str = "place";
        self.check_writable(OP)?;
        if mask.size() != self.size() {
            return Err(Error::ShapeMismatch {
                op: OP,
                msg: "the mask must have the array's size".into(),
                lhs: self.shape().to_vec(),
                rhs: mask.shape().to_vec(),
            });
        }
        let mask = mask.source_for_other(OP, self)?;
        let values = values.source_for_other(OP, self)?;
        let nv = values.size();
        if nv == 0 {
            if super::count_nonzero(&mask)?.to_scalar()? > 0 {
                return Err(Error::invalid(
                    OP,
                    "cannot insert from an empty array of values (the mask holds true elements)",
                ));
            }
            return Ok(());
        }
        if self.size() == 0 {
            return Ok(());
        }
        // The k-th true element (k counted from 1) takes values[(k - 1) % nv].
        let count = mask.reshape([mask.size()])?.astype::<i64>()?.cumsum(0)?;
        let which = count
            .scalar_op(BinaryOp::Add, nv as i64 - 1)?
            .scalar_op(BinaryOp::Rem, nv as i64)?;
        let picked = values
            .reshape([nv])?
            .take_index(&which, 0)?
            .reshape(self.shape())?;
        let mask = mask.reshape(self.shape())?;
        elementwise::run(
            self.device(),
            OP,
            WHERE_BODY,
            &[self.operand()?],
            &[mask.operand()?, picked.operand()?, self.operand()?],
            &[],
        )
    }

    /// The slices along `axis` where `condition` (1-D) is true, or the elements of the
    /// flattened array when `axis` is `None` (NumPy's `compress`). A condition shorter
    /// than the axis counts as false beyond its end; a true entry beyond the axis is an
    /// index out of range.
    ///
    /// # Synchronization
    /// The result's length depends on `condition`: its count is read back (one wait).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `condition` is not 1-D; [`Error::AxisOutOfRange`]
    /// for an axis outside `-ndim..ndim`; a true entry past the axis' end is reported as
    /// [`Error::IndexOutOfRange`] at the next wait.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::<i32>::arange(&dev, 0, 6, 1)?.reshape([2, 3])?;
    /// let c = DeviceArray::from_slice(&dev, &[false, true, true])?;
    /// assert_eq!(a.compress(&c, Some(1))?.to_host()?, vec![1, 2, 4, 5]);
    /// assert_eq!(a.compress(&c, None)?.to_host()?, vec![1, 2]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn compress(&self, condition: &DeviceArray<bool>, axis: Option<isize>) -> Result<Self> {
        const OP: &str = "compress";
        if condition.ndim() != 1 {
            return Err(Error::invalid(
                OP,
                format!(
                    "the condition must be 1-D, not of shape {:?}",
                    condition.shape()
                ),
            ));
        }
        condition.used_by(OP, self.device())?;
        let (a, k) = match axis {
            None => (self.reshape([self.size()])?, 0),
            Some(axis) => (self.clone(), normalize_axis(OP, axis, self.ndim())?),
        };
        let idx = nonzero(condition)?.remove(0);
        a.take_index(&idx, k)
    }
}

/// `choices[selector[i]][i]` for every position `i` of the broadcast shape of `selector`
/// and the choices (NumPy's `choose` with `mode="raise"`): an entry outside
/// `[0, choices.len())`, negative ones included, is an index out of range.
///
/// The choices are stacked into one array first (a copy of each, broadcast to the
/// result's shape), then one gather picks the elements.
///
/// # Errors
/// [`Error::InvalidArgument`] for no choices or complex arrays; [`Error::Broadcast`] when the shapes do
/// not broadcast together; [`Error::DeviceMismatch`] across devices. An entry out of range
/// gives 0 and is reported as [`Error::IndexOutOfRange`] at the next wait.
///
/// ```no_run
/// use cuarray::{Device, DeviceArray};
/// let dev = Device::new(0)?;
/// let s = DeviceArray::from_slice(&dev, &[0i64, 2, 1])?;
/// let c0 = DeviceArray::from_slice(&dev, &[1, 2, 3])?;
/// let c1 = DeviceArray::from_slice(&dev, &[10, 20, 30])?;
/// let c2 = DeviceArray::full(&dev, &[1], 100)?;
/// assert_eq!(cuarray::choose(&s, &[&c0, &c1, &c2])?.to_host()?, vec![1, 100, 30]);
/// # Ok::<(), cuarray::Error>(())
/// ```
pub fn choose<T: Element>(
    selector: &DeviceArray<i64>,
    choices: &[&DeviceArray<T>],
) -> Result<DeviceArray<T>> {
    const OP: &str = "choose";
    real_only::<T>(OP)?;
    let Some(first) = choices.first() else {
        return Err(Error::invalid(OP, "needs at least one choice"));
    };
    let device = first.device();
    selector.used_by(OP, device)?;
    let mut shape = selector.shape().to_vec();
    for c in choices {
        c.used_by(OP, device)?;
        shape = broadcast_shapes(OP, &shape, c.shape())?;
    }
    let wide = choices
        .iter()
        .map(|c| c.broadcast_to(&shape))
        .collect::<Result<Vec<_>>>()?;
    let refs: Vec<&DeviceArray<T>> = wide.iter().collect();
    let stacked = super::stack(&refs, 0)?;
    let sel = selector.layout().broadcast_to(&shape)?;
    let out = DeviceArray::<T>::alloc_for(OP, device, &shape)?;
    gather::gather(
        device,
        OP,
        &out.operand()?,
        &stacked.operand()?,
        &selector.operand()?,
        &stacked.strides()[1..],
        sel.strides(),
        (choices.len(), false),
        stacked.strides()[0],
    )?;
    Ok(out)
}

/// The one-hot encoding of `labels`: an array of shape `labels.shape() + (num_classes,)`
/// with `T::ONE` at each label's class and zeros elsewhere (PyTorch's `one_hot`, NumPy's
/// `np.eye(num_classes)[labels]`).
///
/// # Errors
/// [`Error::InvalidArgument`] for a complex `T`; [`Error::TooLarge`] when the result's
/// shape overflows. A label outside
/// `[0, num_classes)`, negative ones included, leaves its row zero and is reported as
/// [`Error::IndexOutOfRange`] at the next wait.
///
/// ```no_run
/// use cuarray::{Device, DeviceArray};
/// let dev = Device::new(0)?;
/// let y = DeviceArray::from_slice(&dev, &[2i64, 0])?;
/// let h = cuarray::one_hot::<f32>(&y, 3)?;
/// assert_eq!((h.shape(), h.to_host()?), (&[2, 3][..], vec![0., 0., 1., 1., 0., 0.]));
/// # Ok::<(), cuarray::Error>(())
/// ```
pub fn one_hot<T: Element>(
    labels: &DeviceArray<i64>,
    num_classes: usize,
) -> Result<DeviceArray<T>> {
    const OP: &str = "one_hot";
    real_only::<T>(OP)?;
    let device = labels.device();
    let mut shape = labels.shape().to_vec();
    shape.push(num_classes);
    checked_size(OP, &shape)?;
    let out = DeviceArray::<T>::zeros(device, &shape)?;
    if labels.size() == 0 {
        return Ok(out);
    }
    if num_classes == 0 {
        return check_indices(OP, labels, 0).map(|()| out);
    }
    let one = DeviceArray::<T>::ones(device, [1usize])?;
    let nd = labels.ndim();
    let zero = vec![0isize; nd];
    gather::scatter(
        device,
        OP,
        &out.operand()?,
        &labels.operand()?,
        &one.operand()?,
        labels.shape(),
        [&out.strides()[..nd], labels.strides(), &zero],
        (num_classes, false),
        1,
        false,
    )?;
    Ok(out)
}

/// The coordinates in an array of `shape` of the flat (C-order) positions `flat`, one
/// i64 array of `flat`'s shape per axis (NumPy's `unravel_index`).
///
/// # Errors
/// [`Error::TooLarge`] when `shape`'s size overflows. A position outside
/// `[0, size)`, negative ones included, is reported as [`Error::IndexOutOfRange`] at the
/// next wait.
///
/// ```no_run
/// use cuarray::{Device, DeviceArray};
/// let dev = Device::new(0)?;
/// let flat = DeviceArray::from_slice(&dev, &[0i64, 5, 7])?;
/// let c = cuarray::unravel_index(&flat, &[3, 4])?;
/// assert_eq!((c[0].to_host()?, c[1].to_host()?), (vec![0, 1, 1], vec![0, 1, 3]));
/// # Ok::<(), cuarray::Error>(())
/// ```
pub fn unravel_index(flat: &DeviceArray<i64>, shape: &[usize]) -> Result<Vec<DeviceArray<i64>>> {
    const OP: &str = "unravel_index";
    let size = checked_size(OP, shape)?;
    check_indices(OP, flat, size)?;
    let device = flat.device();
    let mut stride = size;
    let mut out = Vec::with_capacity(shape.len());
    for &e in shape {
        stride /= e.max(1);
        let c = DeviceArray::<i64>::alloc_for(OP, device, flat.shape())?;
        if c.size() > 0 {
            elementwise::run(
                device,
                OP,
                UNRAVEL_BODY,
                &[c.operand()?],
                &[flat.operand()?],
                &[
                    Scalar::of(stride.max(1) as i64),
                    Scalar::of(e.max(1) as i64),
                ],
            )?;
        }
        out.push(c);
    }
    Ok(out)
}

/// The flat (C-order) positions in an array of `shape` of the coordinates `multi_index`
/// (one i64 array per axis, broadcast together; NumPy's `ravel_multi_index` with
/// `mode="raise"`).
///
/// # Errors
/// [`Error::InvalidArgument`] when there is not one coordinate array per axis of `shape`;
/// [`Error::Broadcast`] when they do not broadcast; [`Error::TooLarge`] when `shape`'s size
/// overflows; [`Error::DeviceMismatch`] across devices. A coordinate outside its axis,
/// negative ones included, is reported as [`Error::IndexOutOfRange`] at the next wait.
///
/// ```no_run
/// use cuarray::{Device, DeviceArray};
/// let dev = Device::new(0)?;
/// let i = DeviceArray::from_slice(&dev, &[0i64, 1, 2])?;
/// let j = DeviceArray::from_slice(&dev, &[3i64, 0, 1])?;
/// assert_eq!(cuarray::ravel_multi_index(&[&i, &j], &[3, 4])?.to_host()?, vec![3, 4, 9]);
/// # Ok::<(), cuarray::Error>(())
/// ```
pub fn ravel_multi_index(
    multi_index: &[&DeviceArray<i64>],
    shape: &[usize],
) -> Result<DeviceArray<i64>> {
    const OP: &str = "ravel_multi_index";
    if multi_index.len() != shape.len() || shape.is_empty() {
        return Err(Error::invalid(
            OP,
            format!(
                "{} coordinate arrays for shape {shape:?} (one per axis is needed)",
                multi_index.len()
            ),
        ));
    }
    checked_size(OP, shape)?;
    let device = multi_index[0].device();
    let mut bshape: Vec<usize> = Vec::new();
    for (m, &e) in multi_index.iter().zip(shape) {
        m.used_by(OP, device)?;
        bshape = broadcast_shapes(OP, &bshape, m.shape())?;
        check_indices(OP, m, e)?;
    }
    let acc = multi_index[0].broadcast_to(&bshape)?.copy()?;
    if acc.size() == 0 {
        return Ok(acc);
    }
    for (m, &e) in multi_index.iter().zip(shape).skip(1) {
        elementwise::run(
            device,
            OP,
            RAVEL_BODY,
            &[acc.operand()?],
            &[acc.operand()?, m.operand_as(&bshape)?],
            &[Scalar::of(e as i64)],
        )?;
    }
    Ok(acc)
}

/// The elementwise kernels of this file, for the NVRTC tier.
pub(crate) fn kernel_specs() -> Vec<crate::kernels::KernelSpec> {
    use crate::kernels::family::elementwise::{ElementwiseSpec, Variant};
    use crate::kernels::{IndexWidth, Text, TypeList};
    use crate::DType;
    let mut v = Vec::new();
    for variant in [Variant::Contiguous, Variant::Strided { ndim: 2 }] {
        for (op, body, ins, scalars) in [
            ("unravel_index", UNRAVEL_BODY, 1, 2),
            ("ravel_multi_index", RAVEL_BODY, 2, 1),
        ] {
            v.push(crate::kernels::KernelSpec::from(ElementwiseSpec {
                op: op.into(),
                body: body.into(),
                preamble: Text::EMPTY,
                inputs: TypeList::new(&vec![DType::I64; ins]),
                outputs: TypeList::new(&[DType::I64]),
                scalars: TypeList::new(&vec![DType::I64; scalars]),
                variant,
                index: IndexWidth::I32,
            }));
        }
    }
    v
}
