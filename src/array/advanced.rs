//! NumPy's advanced indexing: the [`ix!`](crate::ix) index expression and
//! [`index`](DeviceArray::index), [`index_put`](DeviceArray::index_put) and
//! [`index_put_add`](DeviceArray::index_put_add).
//!
//! An index expression takes everything [`s!`](crate::s) takes (ranges with steps, integers,
//! `None` for a new axis) plus integer index arrays (`&DeviceArray<i64>`, broadcast together,
//! negative values counted from the end) and boolean masks (`&DeviceArray<bool>`, over as many
//! axes as the mask has, which must match the indexed axes' extents exactly). Where the
//! advanced axes land in the result follows NumPy exactly:
//!
//! - adjacent advanced indices (no slice or new axis between them): their broadcast shape
//!   replaces them in place, `a[:, i, j]` of shape `(5, 6, 7)` with `i, j` of shape `(3,)` is
//!   `(5, 3)`;
//! - separated by a slice or a new axis: their broadcast shape comes first, `a[i, :, j]` is
//!   `(3, 6)`;
//! - once an index array is present, integers count as advanced indices too: `a[0, :, i]` is
//!   `(3, 6)`, as in NumPy.
//!
//! # Indices out of range
//! As [`take`](DeviceArray::take): checked on the device; a gather writes 0 for the element
//! and an assignment skips it, and the next call that waits for the GPU returns
//! [`Error::IndexOutOfRange`] naming the operation, the index and the extent.
//!
//! # Synchronization
//! A mask is turned into the coordinates of its true elements first, whose number decides
//! the result's shape: an expression with a mask reads one count back from the GPU (8 bytes)
//! and so waits for the GPU once. Integer arrays and slices never wait.
//!
//! # Performance
//! One gather/scatter kernel family serves every form (up to 4 index arrays, a mask over
//! `k` axes counting `k`): a kernel reads the index arrays and a strided view of the source
//! made from the slices. When the advanced indices select whole rows (the axes after them
//! are contiguous, as `a[rows]` or `a[rows, ..]`), rows move as 16-byte words.

use super::indexing::nonzero;
use super::{ArrayOrScalar, DeviceArray};
use crate::element::Element;
use crate::kernels::family::gather::word_dtype;
use crate::ops::index;
use crate::shape::{plan_index, IxAxis, IxEntry, IxPlan, Layout, SliceArg, SliceElem};
use crate::{Error, Result};

/// One entry of an advanced index expression, as built by [`ix!`](crate::ix).
#[derive(Debug, Clone, Copy)]
pub enum IndexElem<'a> {
    /// A basic entry: a range with a step, an integer, or a new axis (as in [`s!`](crate::s)).
    Basic(SliceElem),
    /// An integer index array (negative values count from the end of the axis).
    Int(&'a DeviceArray<i64>),
    /// A boolean mask over as many axes as it has dimensions.
    Mask(&'a DeviceArray<bool>),
}

impl IndexElem<'_> {
    /// The same entry with another step (`ix!`'s `;step`; only ranges have one).
    pub fn with_step(self, step: isize) -> Self {
        match self {
            IndexElem::Basic(s) => IndexElem::Basic(s.with_step(step)),
            other => other,
        }
    }
}

/// Conversion into an [`IndexElem`], used by the [`ix!`](crate::ix) macro: everything
/// [`s!`](crate::s) takes, `&DeviceArray<i64>` and `&DeviceArray<bool>`.
pub trait IndexArg<'a> {
    /// The index entry.
    fn into_index(self) -> IndexElem<'a>;
}

impl<'a, S: SliceArg> IndexArg<'a> for S {
    fn into_index(self) -> IndexElem<'a> {
        IndexElem::Basic(self.into_elem())
    }
}

impl<'a> IndexArg<'a> for &'a DeviceArray<i64> {
    fn into_index(self) -> IndexElem<'a> {
        IndexElem::Int(self)
    }
}

impl<'a> IndexArg<'a> for &'a DeviceArray<bool> {
    fn into_index(self) -> IndexElem<'a> {
        IndexElem::Mask(self)
    }
}

impl<'a> IndexArg<'a> for IndexElem<'a> {
    fn into_index(self) -> IndexElem<'a> {
        self
    }
}

/// Builds an advanced index expression for [`DeviceArray::index`],
/// [`index_put`](DeviceArray::index_put) and [`index_put_add`](DeviceArray::index_put_add):
/// all that [`s!`](crate::s) takes (`a..b;step`, integers, `None` for a new axis), plus
/// `&DeviceArray<i64>` index arrays and `&DeviceArray<bool>` masks.
///
/// ```no_run
/// use cuarray::{ix, Device, DeviceArray};
/// let dev = Device::new(0)?;
/// let a = DeviceArray::<f32>::arange(&dev, 0.0, 12.0, 1.0)?.reshape([3, 4])?;
/// let rows = DeviceArray::from_slice(&dev, &[2i64, 0])?;
/// let cols = DeviceArray::from_slice(&dev, &[1i64, -1])?;
/// assert_eq!(a.index(ix![&rows, &cols])?.to_host()?, vec![9.0, 3.0]); // a[[2, 0], [1, -1]]
/// assert_eq!(a.index(ix![&rows, 1..;2])?.shape(), &[2, 2]);             // a[[2, 0], 1::2]
/// let m = a.gt(6.0)?;
/// assert_eq!(a.index(ix![&m])?.to_host()?, vec![7.0, 8.0, 9.0, 10.0, 11.0]); // a[a > 6]
/// # Ok::<(), cuarray::Error>(())
/// ```
#[macro_export]
macro_rules! ix {
    ($($e:expr $(; $step:expr)?),* $(,)?) => {
        [$( {
            #[allow(unused_mut, clippy::reversed_empty_ranges)]
            let mut el = $crate::IndexArg::into_index($e);
            $( el = el.with_step($crate::shape::SaturatingIsize::saturating_isize($step)); )?
            el
        } ),*]
    };
}

/// A resolved expression: the plan and the index arrays in the plan's order.
struct Resolved {
    plan: IxPlan,
    arrays: Vec<DeviceArray<i64>>,
}

impl<T: Element> DeviceArray<T> {
    /// Plans `ix` over this array: masks become their true elements' coordinates (one wait
    /// for the GPU each).
    fn resolve_index(&self, op: &'static str, ix: &[IndexElem<'_>]) -> Result<Resolved> {
        let device = self.device();
        let mut entries = Vec::with_capacity(ix.len());
        let mut arrays = Vec::new();
        for e in ix {
            match e {
                IndexElem::Basic(s) => entries.push(IxEntry::Slice(*s)),
                IndexElem::Int(a) => {
                    a.used_by(op, device)?;
                    entries.push(IxEntry::Array(a.layout().clone()));
                    arrays.push((*a).clone());
                }
                IndexElem::Mask(m) => {
                    m.used_by(op, device)?;
                    if m.ndim() == 0 {
                        return Err(Error::invalid(
                            op,
                            "a 0-d boolean index is not supported (use a mask over one or more axes)",
                        ));
                    }
                    let nz = nonzero(m)?;
                    let count = nz[0].size();
                    entries.push(IxEntry::Mask {
                        shape: m.shape().to_vec(),
                        count,
                    });
                    arrays.extend(nz);
                }
            }
        }
        let plan = plan_index(op, self.layout(), &entries)?;
        Ok(Resolved { plan, arrays })
    }

    /// The elements that the advanced index expression `ix` (built by [`ix!`](crate::ix))
    /// selects, as a new C-contiguous array: NumPy's `a[ix]`, with NumPy's placement of the
    /// advanced axes (see [the module documentation](crate::ix)).
    ///
    /// Without index arrays or masks the result is a copy of [`slice`](Self::slice)'s view.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for more indices than dimensions, an integer out of
    /// bounds, a zero step, or more than 4 index arrays (a mask over `k` axes counts `k`);
    /// [`Error::ShapeMismatch`] when the index arrays do not broadcast together or a mask's
    /// shape is not that of the axes it indexes (both name the shapes);
    /// [`Error::DeviceMismatch`] for an index on another device. An index array's value out
    /// of range is reported as [`Error::IndexOutOfRange`] by the next call that waits for
    /// the GPU.
    ///
    /// # Synchronization
    /// A mask reads its count back (one wait for the GPU); integer arrays never wait.
    ///
    /// ```no_run
    /// use cuarray::{ix, Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::<i32>::arange(&dev, 0, 24, 1)?.reshape([2, 3, 4])?;
    /// let i = DeviceArray::from_slice(&dev, &[0i64, 2])?;
    /// // Adjacent advanced indices stay in place: a[:, [0, 2], 1] has shape (2, 2).
    /// let r = a.index(ix![.., &i, 1])?;
    /// assert_eq!((r.shape(), r.to_host()?), (&[2, 2][..], vec![1, 9, 13, 21]));
    /// // Separated by a slice, they move to the front: a[[0, 1], :, [0, 2]] is (2, 3).
    /// let j = DeviceArray::from_slice(&dev, &[0i64, 1])?;
    /// assert_eq!(a.index(ix![&j, .., &i])?.shape(), &[2, 3]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn index<'s>(&self, ix: impl AsRef<[IndexElem<'s>]>) -> Result<DeviceArray<T>> {
        const OP: &str = "index";
        let Resolved { plan, arrays } = self.resolve_index(OP, ix.as_ref())?;
        if plan.arrays.is_empty() {
            return self.with_layout(plan.src).copy();
        }
        let device = self.device();
        let out = DeviceArray::<T>::alloc_for(OP, device, &plan.shape)?;
        if out.size() == 0 {
            return Ok(out);
        }
        let src = self.with_layout(plan.src.clone());
        let out_layout = Layout::contiguous(&plan.shape);
        self.run_index(
            OP,
            &plan,
            &arrays,
            [(&out, out_layout.strides()), (&src, plan.src.strides())],
            true,
            false,
        )?;
        Ok(out)
    }

    /// Plans and launches one gather (`data` = `[out, src]`) or scatter (`data` =
    /// `[dst, values]`), each data array with its strides over the plan's shape.
    fn run_index(
        &self,
        op: &'static str,
        plan: &IxPlan,
        arrays: &[DeviceArray<i64>],
        data: [(&DeviceArray<T>, &[isize]); 2],
        gather: bool,
        add: bool,
    ) -> Result<()> {
        let size = std::mem::size_of::<T>();
        let idx_strides: Vec<&[isize]> = plan.arrays.iter().map(|a| &a.strides[..]).collect();
        let axes: Vec<(usize, isize)> = plan.arrays.iter().map(|a| (a.extent, a.stride)).collect();
        let offset = |a: &DeviceArray<T>| a.layout().offset();
        let aligned = data
            .iter()
            .all(|(a, _)| (a.first_ptr() - (offset(a) * size) as u64).is_multiple_of(16));
        let run = index::plan(
            op,
            &plan.shape,
            [
                (data[0].1, offset(data[0].0)),
                (data[1].1, offset(data[1].0)),
            ],
            &idx_strides,
            &axes,
            size,
            aligned && !add,
        )?;
        let word = if add {
            T::DTYPE
        } else {
            word_dtype(size * run.vec)
        };
        let ops = |k: usize| {
            let a = data[k].0;
            a.operand_reinterpreted(
                Layout::from_parts(
                    run.dims.clone(),
                    run.strides[k].clone(),
                    offset(a) / run.vec,
                ),
                word,
            )
        };
        let (d0, d1) = (ops(0)?, ops(1)?);
        let idx = arrays
            .iter()
            .zip(&run.strides[2..])
            .map(|(a, st)| {
                a.operand_reinterpreted(
                    Layout::from_parts(run.dims.clone(), st.clone(), a.layout().offset()),
                    crate::DType::I64,
                )
            })
            .collect::<Result<Vec<_>>>()?;
        index::run(
            self.device(),
            op,
            &run,
            [&d0, &d1],
            &idx,
            gather,
            add,
            T::DTYPE,
        )
    }

    /// Plans a scatter: the expression, the index arrays (copied when they share this
    /// array's memory), a dummy index for expressions without arrays, and the values
    /// broadcast to the indexed shape.
    pub(super) fn scatter_index<'s>(
        &self,
        op: &'static str,
        ix: &[IndexElem<'s>],
        values: impl ArrayOrScalar<T>,
        add: bool,
    ) -> Result<()> {
        self.check_writable(op)?;
        let device = self.device();
        let Resolved { mut plan, arrays } = self.resolve_index(op, ix)?;
        let mut arrays = arrays
            .iter()
            .map(|a| a.source_for_other(op, self).map(|c| c.into_owned()))
            .collect::<Result<Vec<_>>>()?;
        if plan.arrays.is_empty() {
            // Basic indices only: one index of 0 along a stride-0 axis of extent 1.
            arrays.push(DeviceArray::<i64>::zeros(device, [1usize])?);
            plan.arrays.push(IxAxis {
                strides: vec![0; plan.shape.len()],
                extent: 1,
                stride: 0,
            });
        }
        let values = values.into_operand()?;
        let values = values.to_array(device)?;
        let values = values.source_for_other(op, self)?;
        let vl = values
            .layout()
            .broadcast_to(&plan.shape)
            .map_err(|_| Error::Broadcast {
                op,
                lhs: values.shape().to_vec(),
                rhs: plan.shape.clone(),
            })?;
        if crate::shape::size_of(&plan.shape) == 0 {
            return Ok(());
        }
        let dst = self.with_layout(plan.src.clone());
        self.run_index(
            op,
            &plan,
            &arrays,
            [(&dst, plan.src.strides()), (&values, vl.strides())],
            false,
            add,
        )
    }

    /// Assigns `values` to the elements that the advanced index expression `ix` selects,
    /// in place: NumPy's `a[ix] = values`. `values` is an array broadcast to the indexed
    /// shape ([`index`](Self::index)'s result shape), or a scalar.
    ///
    /// With duplicate indices, each element receives one of the values assigned to it;
    /// which one is not specified (NumPy's last-write-wins is not guaranteed on a GPU).
    /// Use [`index_put_add`](Self::index_put_add) to accumulate duplicates.
    ///
    /// # Errors
    /// As [`index`](Self::index); [`Error::Broadcast`] when `values` does not broadcast to
    /// the indexed shape (naming both); [`Error::InvalidArgument`] when the array is a
    /// broadcast view (stride 0). An index out of range is skipped and reported at the next
    /// wait.
    ///
    /// # Synchronization
    /// A mask reads its count back (one wait for the GPU).
    ///
    /// ```no_run
    /// use cuarray::{ix, Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::<f32>::zeros(&dev, &[3, 4])?;
    /// let rows = DeviceArray::from_slice(&dev, &[0i64, 2])?;
    /// a.index_put(ix![&rows, 1..3], 5.0)?; // a[[0, 2], 1:3] = 5
    /// let v = DeviceArray::from_slice(&dev, &[1.0f32, 2.0])?;
    /// a.index_put(ix![&rows, 0], &v)?;     // a[[0, 2], 0] = [1, 2]
    /// assert_eq!(a.to_host()?, vec![1., 5., 5., 0., 0., 0., 0., 0., 2., 5., 5., 0.]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn index_put<'s>(
        &self,
        ix: impl AsRef<[IndexElem<'s>]>,
        values: impl ArrayOrScalar<T>,
    ) -> Result<()> {
        self.scatter_index("index_put", ix.as_ref(), values, false)
    }

    /// Adds `values` at the elements that the advanced index expression `ix` selects, in
    /// place and atomically, every duplicate index adding (NumPy's `np.add.at(a, ix,
    /// values)`). `values` broadcasts to the indexed shape. Integers wrap; bool adds as
    /// logical or; `f16`/`bf16` round each addition; the order of floating-point additions
    /// is not specified. Complex arrays are not supported.
    ///
    /// # Errors
    /// As [`index_put`](Self::index_put); [`Error::InvalidArgument`] for complex arrays.
    ///
    /// # Synchronization
    /// A mask reads its count back (one wait for the GPU).
    ///
    /// ```no_run
    /// use cuarray::{ix, Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::<f32>::zeros(&dev, &[3])?;
    /// let i = DeviceArray::from_slice(&dev, &[0i64, 2, 0, 0])?;
    /// a.index_put_add(ix![&i], 1.0)?;
    /// assert_eq!(a.to_host()?, vec![3.0, 0.0, 1.0]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn index_put_add<'s>(
        &self,
        ix: impl AsRef<[IndexElem<'s>]>,
        values: impl ArrayOrScalar<T>,
    ) -> Result<()> {
        self.scatter_index("index_put_add", ix.as_ref(), values, true)
    }
}
