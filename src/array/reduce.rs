//! Reductions: whole-array forms return a 0-d array that stays on the GPU
//! ([`to_scalar`](DeviceArray::to_scalar) brings it back); axis forms take one axis or a
//! set of axes (negative axes count from the end) and `keepdims`. Views of any layout are
//! read in place.
//!
//! Result and accumulator types follow NumPy: integer and bool sums in `i64`/`u64`,
//! `f16`/`bf16` accumulate in `f32`, `f32` in `f32` (per-thread partial sums combined as
//! a tree, so the error grows slowly), `f64` in `f64`; means of integers are `f64`. An
//! empty sum is 0, an empty product 1, an empty mean NaN; an empty max, min, argmax or
//! argmin is [`Error::EmptyReduction`]. NaN propagates through max and min, and argmax
//! and argmin return the first NaN's index, as NumPy.

use super::DeviceArray;
use crate::element::{DType, Element, FloatElement, NumElement};
use crate::kernels::abi::Scalar;
use crate::ops::reduce::{mean_acc, plan_reduce, run, ReduceOp};
use crate::ops::Operand;
use crate::shape::IntoAxes;
use crate::{Error, Result};

impl<T: Element> DeviceArray<T> {
    /// Reduces over `axes` (all when `None`) into a new array of `U`.
    pub(crate) fn reduce<U: Element>(
        &self,
        op: ReduceOp,
        axes: Option<&[isize]>,
        keepdims: bool,
        aux: Option<Operand<'_>>,
        scalars: &[Scalar],
    ) -> Result<DeviceArray<U>> {
        let device = self.device();
        let p = plan_reduce(
            self.layout(),
            axes,
            keepdims,
            op.is_arg(),
            device.multiprocessor_count(),
        )?;
        // NumPy raises even when the result is empty too ((0, 0) over axis 0).
        if op.needs_elements() && p.n_red == 0 {
            return Err(Error::EmptyReduction {
                op: op.name(),
                shape: self.shape().to_vec(),
            });
        }
        let out = DeviceArray::<U>::alloc_uninit(device, &p.out_shape)?;
        let count = [Scalar::of(p.n_red as f64)];
        let scalars = if op == ReduceOp::Mean {
            &count[..]
        } else {
            scalars
        };
        run(
            device,
            op,
            &p,
            &self.operand()?,
            &out.operand()?,
            aux.as_ref(),
            scalars,
        )?;
        Ok(out)
    }

    /// Number of elements reduced per output for `axes`.
    fn count(&self, axes: Option<&[isize]>) -> Result<usize> {
        Ok(plan_reduce(self.layout(), axes, false, false, 1)?.n_red)
    }
}

/// Generates `name()`, `name_axis(axis)`, `name_keepdim(axis)` and
/// `name_axes(axes, keepdims)` for a reduction.
macro_rules! reductions {
    ($bound:ident; $($(#[doc = $doc:literal])* $name:ident, $axis:ident, $keep:ident, $axes:ident => $op:ident -> $out:ty;)*) => {
        impl<T: $bound> DeviceArray<T> {
            $(
                $(#[doc = $doc])*
                ///
                /// The whole array reduces to a 0-d array on the device.
                pub fn $name(&self) -> Result<DeviceArray<$out>> {
                    self.reduce(ReduceOp::$op, None, false, None, &[])
                }

                #[doc = concat!("[`", stringify!($name), "`](DeviceArray::", stringify!($name), ") over one axis (negative counts from the end).")]
                ///
                /// ```no_run
                /// use cuarray::{Device, DeviceArray};
                /// let dev = Device::new(0)?;
                /// let x = DeviceArray::<f32>::ones(&dev, &[2, 3])?;
                #[doc = concat!("assert_eq!(x.", stringify!($axis), "(0)?.shape(), &[3]);")]
                #[doc = concat!("assert_eq!(x.", stringify!($axis), "(-1)?.shape(), &[2]);")]
                /// # Ok::<(), cuarray::Error>(())
                /// ```
                ///
                /// # Errors
                /// [`Error::AxisOutOfRange`] for an axis outside `-ndim..ndim`.
                pub fn $axis(&self, axis: isize) -> Result<DeviceArray<$out>> {
                    self.reduce(ReduceOp::$op, Some(&[axis]), false, None, &[])
                }

                #[doc = concat!("[`", stringify!($name), "`](DeviceArray::", stringify!($name), ") over one axis, kept with extent 1 (NumPy's `keepdims=True`), so that the result broadcasts against `self`.")]
                ///
                /// ```no_run
                /// let dev = cuarray::Device::new(0)?;
                /// let x = cuarray::DeviceArray::<f32>::ones(&dev, &[2, 3])?;
                #[doc = concat!("assert_eq!(x.", stringify!($keep), "(-1)?.shape(), &[2, 1]);")]
                /// # Ok::<(), cuarray::Error>(())
                /// ```
                ///
                /// # Errors
                /// [`Error::AxisOutOfRange`] for an axis outside `-ndim..ndim`.
                pub fn $keep(&self, axis: isize) -> Result<DeviceArray<$out>> {
                    self.reduce(ReduceOp::$op, Some(&[axis]), true, None, &[])
                }

                #[doc = concat!("[`", stringify!($name), "`](DeviceArray::", stringify!($name), ") over a set of axes ([`IntoAxes`]: `&[0, -1]`, a single `-1`, ...); `keepdims` keeps them with extent 1.")]
                ///
                /// ```no_run
                /// use cuarray::{Device, DeviceArray};
                /// let dev = Device::new(0)?;
                /// let x = DeviceArray::<f32>::ones(&dev, &[2, 3, 4])?;
                #[doc = concat!("assert_eq!(x.", stringify!($axes), "(&[0, 2], false)?.shape(), &[3]);")]
                #[doc = concat!("assert_eq!(x.", stringify!($axes), "(-1, true)?.shape(), &[2, 3, 1]);")]
                /// # Ok::<(), cuarray::Error>(())
                /// ```
                ///
                /// # Errors
                /// [`Error::AxisOutOfRange`] for an axis outside `-ndim..ndim`;
                /// [`Error::InvalidArgument`] for a repeated axis.
                pub fn $axes(&self, axes: impl IntoAxes, keepdims: bool) -> Result<DeviceArray<$out>> {
                    self.reduce(ReduceOp::$op, Some(&axes.axes()), keepdims, None, &[])
                }
            )*
        }
    };
}

reductions! { Element;
    /// Sum of the elements (`i64`/`u64` for integers and bool).
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let a = cuarray::DeviceArray::<i32>::arange(&dev, 0, 6, 1)?.reshape(&[2, 3])?;
    /// assert_eq!(a.sum()?.to_scalar()?, 15i64);
    /// assert_eq!(a.sum_axis(0)?.to_host()?, vec![3, 5, 7]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    sum, sum_axis, sum_keepdim, sum_axes => Sum -> T::Sum;
    /// Product of the elements (`i64`/`u64` for integers and bool, wrapping).
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::<i32>::arange(&dev, 1, 5, 1)?;
    /// assert_eq!(a.prod()?.to_scalar()?, 24i64);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    prod, prod_axis, prod_keepdim, prod_axes => Prod -> T::Sum;
    /// True when every element is non-zero (`true` for an empty array).
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_host(&dev, &[true, false, true, true], &[2, 2])?;
    /// assert!(!a.all()?.to_scalar()?);
    /// assert_eq!(a.all_axis(1)?.to_host()?, vec![false, true]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    all, all_axis, all_keepdim, all_axes => All -> bool;
    /// True when some element is non-zero (`false` for an empty array).
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_host(&dev, &[true, false, false, false], &[2, 2])?;
    /// assert!(a.any()?.to_scalar()?);
    /// assert_eq!(a.any_axis(1)?.to_host()?, vec![true, false]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    any, any_axis, any_keepdim, any_axes => Any -> bool;
    /// Arithmetic mean (`f64` for integers; NaN for an empty array).
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_host(&dev, &[1i32, 2, 3, 4], &[2, 2])?;
    /// assert_eq!(a.mean()?.to_scalar()?, 2.5f64);
    /// assert_eq!(a.mean_axis(0)?.to_host()?, vec![2.0, 3.0]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    mean, mean_axis, mean_keepdim, mean_axes => Mean -> T::Mean;
}

reductions! { NumElement;
    /// Largest element; NaN propagates. An empty array is an error.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_host(&dev, &[1.0f32, 5.0, 3.0, 2.0], &[2, 2])?;
    /// assert_eq!(a.max()?.to_scalar()?, 5.0);
    /// assert_eq!(a.max_axis(0)?.to_host()?, vec![3.0, 5.0]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    max, max_axis, max_keepdim, max_axes => Max -> T;
    /// Smallest element; NaN propagates. An empty array is an error.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_host(&dev, &[1.0f32, 5.0, 3.0, 2.0], &[2, 2])?;
    /// assert_eq!(a.min()?.to_scalar()?, 1.0);
    /// assert_eq!(a.min_axis(1)?.to_host()?, vec![1.0, 2.0]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    min, min_axis, min_keepdim, min_axes => Min -> T;
}

impl<T: NumElement> DeviceArray<T> {
    /// Index of the largest element in the flattened (C order) array, as a 0-d `i64`
    /// array; the first one on ties, the first NaN if any.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_slice(&dev, &[3.0f32, 7.0, 1.0, 7.0])?;
    /// assert_eq!(a.argmax()?.to_scalar()?, 1); // the first of the ties
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::EmptyReduction`] for an empty array.
    pub fn argmax(&self) -> Result<DeviceArray<i64>> {
        self.reduce(ReduceOp::ArgMax, None, false, None, &[])
    }
    /// Index of the smallest element in the flattened array (see [`argmax`](Self::argmax)).
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_slice(&dev, &[3.0f32, 7.0, 1.0])?;
    /// assert_eq!(a.argmin()?.to_scalar()?, 2);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::EmptyReduction`] for an empty array.
    pub fn argmin(&self) -> Result<DeviceArray<i64>> {
        self.reduce(ReduceOp::ArgMin, None, false, None, &[])
    }
    /// Indices of the largest elements along `axis`.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_host(&dev, &[1, 5, 2, 9, 0, 3], &[2, 3])?;
    /// assert_eq!(a.argmax_axis(1)?.to_host()?, vec![1, 0]);
    /// assert_eq!(a.argmax_axis(0)?.to_host()?, vec![1, 0, 1]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`] for an axis outside `-ndim..ndim`;
    /// [`Error::EmptyReduction`] when the axis is empty.
    pub fn argmax_axis(&self, axis: isize) -> Result<DeviceArray<i64>> {
        self.reduce(ReduceOp::ArgMax, Some(&[axis]), false, None, &[])
    }
    /// Indices of the smallest elements along `axis`.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_host(&dev, &[1, 5, 2, 9, 0, 3], &[2, 3])?;
    /// assert_eq!(a.argmin_axis(-1)?.to_host()?, vec![0, 1]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`] for an axis outside `-ndim..ndim`;
    /// [`Error::EmptyReduction`] when the axis is empty.
    pub fn argmin_axis(&self, axis: isize) -> Result<DeviceArray<i64>> {
        self.reduce(ReduceOp::ArgMin, Some(&[axis]), false, None, &[])
    }
    /// Indices of the largest elements along `axis`, kept with extent 1.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_host(&dev, &[1, 5, 2, 9, 0, 3], &[2, 3])?;
    /// let i = a.argmax_keepdim(1)?;
    /// assert_eq!(i.shape(), &[2, 1]);
    /// assert_eq!(a.take_along_axis(&i, 1)?.to_host()?, vec![5, 9]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`] for an axis outside `-ndim..ndim`;
    /// [`Error::EmptyReduction`] when the axis is empty.
    pub fn argmax_keepdim(&self, axis: isize) -> Result<DeviceArray<i64>> {
        self.reduce(ReduceOp::ArgMax, Some(&[axis]), true, None, &[])
    }
    /// Indices of the smallest elements along `axis`, kept with extent 1.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_host(&dev, &[1, 5, 2, 9, 0, 3], &[2, 3])?;
    /// let i = a.argmin_keepdim(1)?;
    /// assert_eq!(i.to_host()?, vec![0, 1]);
    /// assert_eq!(i.shape(), &[2, 1]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`] for an axis outside `-ndim..ndim`;
    /// [`Error::EmptyReduction`] when the axis is empty.
    pub fn argmin_keepdim(&self, axis: isize) -> Result<DeviceArray<i64>> {
        self.reduce(ReduceOp::ArgMin, Some(&[axis]), true, None, &[])
    }
}

impl<T: Element> DeviceArray<T> {
    /// Variance over `axes` with `ddof` delta degrees of freedom, two passes: the mean
    /// (kept in the accumulator precision), then the mean squared deviation.
    /// Two passes: the mean (NaN-skipping for the nan forms), then the squared deviations
    /// from it, divided in the post-map by `n - ddof` (`var`, `std`) or by each slice's
    /// non-NaN count minus `ddof` (`nanvar`, `nanstd`, which count as they sum).
    fn var_impl<W: FloatElement>(
        &self,
        axes: Option<&[isize]>,
        keepdims: bool,
        ddof: usize,
        op: ReduceOp,
    ) -> Result<DeviceArray<T::Mean>> {
        let nan = matches!(op, ReduceOp::NanVar | ReduceOp::NanStd);
        let (mean_op, scalar) = if nan {
            (ReduceOp::NanMean, ddof as f64)
        } else {
            let denom = self.count(axes)? as f64 - ddof as f64;
            (ReduceOp::Mean, if denom <= 0.0 { 0.0 } else { denom })
        };
        let mean: DeviceArray<W> = self.reduce(mean_op, axes, false, None, &[])?;
        self.reduce(
            op,
            axes,
            keepdims,
            Some(mean.operand()?),
            &[Scalar::of(scalar)],
        )
    }

    fn var_dispatch(
        &self,
        axes: Option<&[isize]>,
        keepdims: bool,
        ddof: usize,
        op: ReduceOp,
    ) -> Result<DeviceArray<T::Mean>> {
        if T::DTYPE.is_complex() {
            // NumPy's variance of complex numbers is real (the mean of |x - mean|²): not a
            // `T::Mean` array.
            return Err(Error::invalid(
                op.name(),
                format!(
                    "the variance of a {} array is not supported yet (take `(&x - &x.mean()?)?.abs()?` and its square's mean)",
                    T::DTYPE
                ),
            ));
        }
        if mean_acc(T::DTYPE) == DType::F32 {
            self.var_impl::<f32>(axes, keepdims, ddof, op)
        } else {
            self.var_impl::<f64>(axes, keepdims, ddof, op)
        }
    }

    /// Variance of all elements, `sum((x - mean)^2) / (n - ddof)` (NumPy's `var`; NaN
    /// when `n <= ddof`).
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let a = cuarray::DeviceArray::from_slice(&dev, &[1.0f64, 2.0, 3.0, 4.0])?;
    /// assert_eq!(a.var(0)?.to_scalar()?, 1.25);
    /// assert_eq!(a.std(1)?.to_scalar()?, (5.0f64 / 3.0).sqrt());
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a complex array (not supported yet).
    pub fn var(&self, ddof: usize) -> Result<DeviceArray<T::Mean>> {
        self.var_dispatch(None, false, ddof, ReduceOp::Var)
    }
    /// Standard deviation of all elements (square root of [`var`](Self::var)).
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_slice(&dev, &[1.0f64, 2.0, 3.0, 4.0])?;
    /// assert_eq!(a.std(0)?.to_scalar()?, 1.25f64.sqrt());
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a complex array (not supported yet).
    pub fn std(&self, ddof: usize) -> Result<DeviceArray<T::Mean>> {
        self.var_dispatch(None, false, ddof, ReduceOp::Std)
    }
    /// Variance along `axis`.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_host(&dev, &[1.0f64, 2.0, 3.0, 4.0], &[2, 2])?;
    /// assert_eq!(a.var_axis(0, 0)?.to_host()?, vec![1.0, 1.0]);
    /// assert_eq!(a.var_axis(1, 0)?.to_host()?, vec![0.25, 0.25]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`] for an axis outside `-ndim..ndim`;
    /// [`Error::InvalidArgument`] for a complex array (not supported yet).
    pub fn var_axis(&self, axis: isize, ddof: usize) -> Result<DeviceArray<T::Mean>> {
        self.var_dispatch(Some(&[axis]), false, ddof, ReduceOp::Var)
    }
    /// Standard deviation along `axis`.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_host(&dev, &[1.0f64, 2.0, 3.0, 5.0], &[2, 2])?;
    /// assert_eq!(a.std_axis(0, 0)?.to_host()?, vec![1.0, 1.5]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`] for an axis outside `-ndim..ndim`;
    /// [`Error::InvalidArgument`] for a complex array (not supported yet).
    pub fn std_axis(&self, axis: isize, ddof: usize) -> Result<DeviceArray<T::Mean>> {
        self.var_dispatch(Some(&[axis]), false, ddof, ReduceOp::Std)
    }
    /// Variance along `axis`, kept with extent 1.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_host(&dev, &[1.0f64, 2.0, 3.0, 4.0], &[2, 2])?;
    /// let v = a.var_keepdim(-1, 0)?;
    /// assert_eq!(v.shape(), &[2, 1]);
    /// assert_eq!(v.to_host()?, vec![0.25, 0.25]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`] for an axis outside `-ndim..ndim`;
    /// [`Error::InvalidArgument`] for a complex array (not supported yet).
    pub fn var_keepdim(&self, axis: isize, ddof: usize) -> Result<DeviceArray<T::Mean>> {
        self.var_dispatch(Some(&[axis]), true, ddof, ReduceOp::Var)
    }
    /// Standard deviation along `axis`, kept with extent 1.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_host(&dev, &[1.0f64, 2.0, 3.0, 4.0], &[2, 2])?;
    /// let s = a.std_keepdim(-1, 0)?;
    /// assert_eq!(s.shape(), &[2, 1]);
    /// assert_eq!(s.to_host()?, vec![0.5, 0.5]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`] for an axis outside `-ndim..ndim`;
    /// [`Error::InvalidArgument`] for a complex array (not supported yet).
    pub fn std_keepdim(&self, axis: isize, ddof: usize) -> Result<DeviceArray<T::Mean>> {
        self.var_dispatch(Some(&[axis]), true, ddof, ReduceOp::Std)
    }
    /// Variance over a set of axes ([`IntoAxes`]).
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_host(&dev, &[1.0f64, 2.0, 3.0, 4.0], &[2, 2])?;
    /// assert_eq!(a.var_axes(&[0, 1], false, 0)?.to_scalar()?, 1.25);
    /// assert_eq!(a.var_axes(-1, true, 0)?.shape(), &[2, 1]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`] for an axis outside `-ndim..ndim`;
    /// [`Error::InvalidArgument`] for a repeated axis or a complex array (not supported
    /// yet).
    pub fn var_axes(
        &self,
        axes: impl IntoAxes,
        keepdims: bool,
        ddof: usize,
    ) -> Result<DeviceArray<T::Mean>> {
        self.var_dispatch(Some(&axes.axes()), keepdims, ddof, ReduceOp::Var)
    }
    /// Standard deviation over a set of axes ([`IntoAxes`]).
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_host(&dev, &[1.0f64, 2.0, 3.0, 4.0], &[2, 2])?;
    /// assert_eq!(a.std_axes(&[0, 1], false, 0)?.to_scalar()?, 1.25f64.sqrt());
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`] for an axis outside `-ndim..ndim`;
    /// [`Error::InvalidArgument`] for a repeated axis or a complex array (not supported
    /// yet).
    pub fn std_axes(
        &self,
        axes: impl IntoAxes,
        keepdims: bool,
        ddof: usize,
    ) -> Result<DeviceArray<T::Mean>> {
        self.var_dispatch(Some(&axes.axes()), keepdims, ddof, ReduceOp::Std)
    }
}

impl<T: Element> DeviceArray<T> {
    fn scan(&self, op: ReduceOp, axis: isize) -> Result<DeviceArray<T::Sum>> {
        if self.ndim() == 0 {
            // NumPy: the scan of a 0-d array has shape (1,).
            crate::shape::normalize_axis(op.scan_name(), axis, 1)?;
            return self.reshape([1usize])?.scan(op, 0);
        }
        let p = crate::ops::scan::plan_scan(self.layout(), axis)?;
        let out = DeviceArray::<T::Sum>::alloc_uninit(self.device(), self.shape())?;
        crate::ops::scan::run(self.device(), op, &p, &self.operand()?, &out.operand()?)?;
        Ok(out)
    }

    /// Cumulative sum along `axis` (NumPy's `cumsum` with an axis), in the sum type
    /// (`i64`/`u64` for integers). One pass over the data: tiles of the axis combine
    /// their totals with a decoupled look-back. A 0-d array gives shape `(1,)`, as NumPy.
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let a = cuarray::DeviceArray::from_host(&dev, &[1, 2, 3, 4, 5, 6], &[2, 3])?;
    /// assert_eq!(a.cumsum(1)?.to_host()?, vec![1i64, 3, 6, 4, 9, 15]);
    /// assert_eq!(a.cumsum(0)?.to_host()?, vec![1i64, 2, 3, 5, 7, 9]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`] for an axis outside `-ndim..ndim` (`-1..1` for a 0-d
    /// array).
    pub fn cumsum(&self, axis: isize) -> Result<DeviceArray<T::Sum>> {
        self.scan(ReduceOp::Sum, axis)
    }

    /// Cumulative product along `axis`, in the sum type (wrapping for integers).
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_slice(&dev, &[1, 2, 3, 4])?;
    /// assert_eq!(a.cumprod(0)?.to_host()?, vec![1i64, 2, 6, 24]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`] for an axis outside `-ndim..ndim` (`-1..1` for a 0-d
    /// array).
    pub fn cumprod(&self, axis: isize) -> Result<DeviceArray<T::Sum>> {
        self.scan(ReduceOp::Prod, axis)
    }
}

reductions! { NumElement;
    /// Sum of the elements skipping NaN (NumPy's `nansum`): NaN loads as 0 inside the
    /// reduction kernel (one pass), so an all-NaN slice sums to 0. Integers: as `sum`.
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let a = cuarray::DeviceArray::from_host(&dev, &[1.0f32, f32::NAN, 3.0, f32::NAN], &[2, 2])?;
    /// assert_eq!(a.nansum()?.to_scalar()?, 4.0);
    /// assert_eq!(a.nansum_axis(0)?.to_host()?, vec![4.0, 0.0]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    nansum, nansum_axis, nansum_keepdim, nansum_axes => NanSum -> T::Sum;
    /// Product of the elements skipping NaN (NumPy's `nanprod`; NaN loads as 1).
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let a = cuarray::DeviceArray::from_slice(&dev, &[2.0f64, f64::NAN, 3.0])?;
    /// assert_eq!(a.nanprod()?.to_scalar()?, 6.0);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    nanprod, nanprod_axis, nanprod_keepdim, nanprod_axes => NanProd -> T::Sum;
    /// Mean of the non-NaN elements (NumPy's `nanmean`; NaN for an all-NaN slice). One
    /// pass: the kernel carries the sum and the count of the non-NaN elements together.
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let a = cuarray::DeviceArray::from_slice(&dev, &[1.0f32, f32::NAN, 2.0])?;
    /// assert_eq!(a.nanmean()?.to_scalar()?, 1.5);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    nanmean, nanmean_axis, nanmean_keepdim, nanmean_axes => NanMean -> T::Mean;
    /// Largest element ignoring NaN (NumPy's `nanmax`): NaN only for an all-NaN slice.
    /// An empty array is an error.
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let a = cuarray::DeviceArray::from_host(&dev, &[1.0f32, f32::NAN, f32::NAN, f32::NAN], &[2, 2])?;
    /// assert_eq!(a.nanmax()?.to_scalar()?, 1.0);
    /// assert!(a.nanmax_axis(1)?.to_host()?[1].is_nan());
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    nanmax, nanmax_axis, nanmax_keepdim, nanmax_axes => NanMax -> T;
    /// Smallest element ignoring NaN (NumPy's `nanmin`): NaN only for an all-NaN slice.
    /// An empty array is an error.
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let a = cuarray::DeviceArray::from_slice(&dev, &[4.0f32, f32::NAN, 2.0])?;
    /// assert_eq!(a.nanmin()?.to_scalar()?, 2.0);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    nanmin, nanmin_axis, nanmin_keepdim, nanmin_axes => NanMin -> T;
}

impl<T: NumElement> DeviceArray<T> {
    /// An arg reduction skipping NaN, then NumPy's check for all-NaN slices: one more
    /// reduction (is every element of a slice NaN?) whose `any` is read back, so these
    /// calls wait for the GPU (integer arrays hold no NaN and skip the check).
    fn nan_arg(
        &self,
        op: ReduceOp,
        axis: Option<isize>,
        keepdims: bool,
    ) -> Result<DeviceArray<i64>> {
        let axes = axis.map(|a| [a]);
        let axes = axes.as_ref().map(|a| &a[..]);
        let out: DeviceArray<i64> = self.reduce(op, axes, keepdims, None, &[])?;
        if T::DTYPE.is_float() {
            let all_nan: DeviceArray<bool> = self.all_nan(axes)?;
            if all_nan.any()?.to_scalar()? {
                return Err(Error::invalid(op.name(), "All-NaN slice encountered"));
            }
        }
        Ok(out)
    }

    /// True for each output whose slice is all NaN (one reduction with a NaN-test pre-map).
    pub(crate) fn all_nan(&self, axes: Option<&[isize]>) -> Result<DeviceArray<bool>> {
        use crate::kernels::Text;
        use crate::ops::reduce::run_def;
        let device = self.device();
        let p = plan_reduce(
            self.layout(),
            axes,
            false,
            false,
            device.multiprocessor_count(),
        )?;
        let out = DeviceArray::<bool>::alloc_uninit(device, &p.out_shape)?;
        let def = crate::ops::catalogue::all_nan_def();
        run_def(
            device,
            &Text::Static("allnan"),
            &def,
            &p,
            &self.operand()?,
            &out.operand()?,
            None,
            &[],
        )?;
        Ok(out)
    }

    /// Index of the largest element ignoring NaN in the flattened array (NumPy's
    /// `nanargmax`: NaN counts as -inf), as a 0-d `i64` array.
    ///
    /// This call waits for the GPU: it checks for an all-NaN array (one more reduction,
    /// read back) and returns an error there, as NumPy raises.
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let a = cuarray::DeviceArray::from_slice(&dev, &[f32::NAN, 3.0, 7.0, f32::NAN])?;
    /// assert_eq!(a.nanargmax()?.to_scalar()?, 2);
    /// let all = cuarray::DeviceArray::from_slice(&dev, &[f32::NAN, f32::NAN])?;
    /// assert!(all.nanargmax().is_err());
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::EmptyReduction`] for an empty array; [`Error::InvalidArgument`] when every
    /// element is NaN.
    pub fn nanargmax(&self) -> Result<DeviceArray<i64>> {
        self.nan_arg(ReduceOp::NanArgMax, None, false)
    }
    /// Index of the smallest element ignoring NaN (see [`nanargmax`](Self::nanargmax)).
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let a = cuarray::DeviceArray::from_slice(&dev, &[f32::NAN, 3.0, 1.0])?;
    /// assert_eq!(a.nanargmin()?.to_scalar()?, 2);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::EmptyReduction`] for an empty array; [`Error::InvalidArgument`] when every
    /// element is NaN.
    pub fn nanargmin(&self) -> Result<DeviceArray<i64>> {
        self.nan_arg(ReduceOp::NanArgMin, None, false)
    }
    /// Indices of the largest non-NaN elements along `axis` (waits for the GPU to check
    /// for all-NaN slices, see [`nanargmax`](Self::nanargmax)).
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let a = cuarray::DeviceArray::from_host(&dev, &[1.0f32, f32::NAN, 0.0, 5.0], &[2, 2])?;
    /// assert_eq!(a.nanargmax_axis(1)?.to_host()?, vec![0, 1]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`]; [`Error::EmptyReduction`] when the axis is empty;
    /// [`Error::InvalidArgument`] when some slice is all NaN.
    pub fn nanargmax_axis(&self, axis: isize) -> Result<DeviceArray<i64>> {
        self.nan_arg(ReduceOp::NanArgMax, Some(axis), false)
    }
    /// Indices of the smallest non-NaN elements along `axis` (see
    /// [`nanargmax_axis`](Self::nanargmax_axis)).
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let a = cuarray::DeviceArray::from_host(&dev, &[1.0f32, f32::NAN, 0.0, 5.0], &[2, 2])?;
    /// assert_eq!(a.nanargmin_axis(0)?.to_host()?, vec![1, 1]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`nanargmax_axis`](Self::nanargmax_axis).
    pub fn nanargmin_axis(&self, axis: isize) -> Result<DeviceArray<i64>> {
        self.nan_arg(ReduceOp::NanArgMin, Some(axis), false)
    }
    /// [`nanargmax_axis`](Self::nanargmax_axis) with the axis kept with extent 1.
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let a = cuarray::DeviceArray::from_host(&dev, &[1.0f32, f32::NAN, 0.0, 5.0], &[2, 2])?;
    /// assert_eq!(a.nanargmax_keepdim(1)?.shape(), &[2, 1]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`nanargmax_axis`](Self::nanargmax_axis).
    pub fn nanargmax_keepdim(&self, axis: isize) -> Result<DeviceArray<i64>> {
        self.nan_arg(ReduceOp::NanArgMax, Some(axis), true)
    }
    /// [`nanargmin_axis`](Self::nanargmin_axis) with the axis kept with extent 1.
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let a = cuarray::DeviceArray::from_host(&dev, &[1.0f32, f32::NAN, 0.0, 5.0], &[2, 2])?;
    /// assert_eq!(a.nanargmin_keepdim(1)?.to_host()?, vec![0, 0]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`nanargmax_axis`](Self::nanargmax_axis).
    pub fn nanargmin_keepdim(&self, axis: isize) -> Result<DeviceArray<i64>> {
        self.nan_arg(ReduceOp::NanArgMin, Some(axis), true)
    }

    /// Variance of the non-NaN elements, `sum((x - mean)^2) / (count - ddof)` (NumPy's
    /// `nanvar`; NaN where `count <= ddof`, an all-NaN slice included).
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let a = cuarray::DeviceArray::from_slice(&dev, &[1.0f64, f64::NAN, 3.0])?;
    /// assert_eq!(a.nanvar(0)?.to_scalar()?, 1.0);
    /// assert_eq!(a.nanstd(1)?.to_scalar()?, 2.0f64.sqrt());
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// None besides the device's.
    pub fn nanvar(&self, ddof: usize) -> Result<DeviceArray<T::Mean>> {
        self.var_dispatch(None, false, ddof, ReduceOp::NanVar)
    }
    /// Standard deviation of the non-NaN elements (square root of [`nanvar`](Self::nanvar)).
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let a = cuarray::DeviceArray::from_slice(&dev, &[1.0f64, f64::NAN, 3.0])?;
    /// assert_eq!(a.nanstd(0)?.to_scalar()?, 1.0);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// None besides the device's.
    pub fn nanstd(&self, ddof: usize) -> Result<DeviceArray<T::Mean>> {
        self.var_dispatch(None, false, ddof, ReduceOp::NanStd)
    }
    /// [`nanvar`](Self::nanvar) along `axis`.
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let a = cuarray::DeviceArray::from_host(&dev, &[1.0f64, f64::NAN, 3.0, 5.0], &[2, 2])?;
    /// assert_eq!(a.nanvar_axis(0, 0)?.to_host()?, vec![1.0, 0.0]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`] for an axis outside `-ndim..ndim`.
    pub fn nanvar_axis(&self, axis: isize, ddof: usize) -> Result<DeviceArray<T::Mean>> {
        self.var_dispatch(Some(&[axis]), false, ddof, ReduceOp::NanVar)
    }
    /// [`nanstd`](Self::nanstd) along `axis`.
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let a = cuarray::DeviceArray::from_host(&dev, &[1.0f64, f64::NAN, 3.0, 5.0], &[2, 2])?;
    /// assert_eq!(a.nanstd_axis(0, 0)?.to_host()?, vec![1.0, 0.0]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`] for an axis outside `-ndim..ndim`.
    pub fn nanstd_axis(&self, axis: isize, ddof: usize) -> Result<DeviceArray<T::Mean>> {
        self.var_dispatch(Some(&[axis]), false, ddof, ReduceOp::NanStd)
    }
    /// [`nanvar`](Self::nanvar) along `axis`, kept with extent 1.
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let a = cuarray::DeviceArray::from_host(&dev, &[1.0f64, f64::NAN, 3.0, 5.0], &[2, 2])?;
    /// assert_eq!(a.nanvar_keepdim(-1, 0)?.shape(), &[2, 1]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`] for an axis outside `-ndim..ndim`.
    pub fn nanvar_keepdim(&self, axis: isize, ddof: usize) -> Result<DeviceArray<T::Mean>> {
        self.var_dispatch(Some(&[axis]), true, ddof, ReduceOp::NanVar)
    }
    /// [`nanstd`](Self::nanstd) along `axis`, kept with extent 1.
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let a = cuarray::DeviceArray::from_host(&dev, &[1.0f64, f64::NAN, 3.0, 5.0], &[2, 2])?;
    /// assert_eq!(a.nanstd_keepdim(-1, 0)?.shape(), &[2, 1]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`] for an axis outside `-ndim..ndim`.
    pub fn nanstd_keepdim(&self, axis: isize, ddof: usize) -> Result<DeviceArray<T::Mean>> {
        self.var_dispatch(Some(&[axis]), true, ddof, ReduceOp::NanStd)
    }
    /// [`nanvar`](Self::nanvar) over a set of axes ([`IntoAxes`]).
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let a = cuarray::DeviceArray::from_host(&dev, &[1.0f64, f64::NAN, 3.0, 5.0], &[2, 2])?;
    /// assert_eq!(a.nanvar_axes(&[0, 1], false, 0)?.to_scalar()?, 8.0 / 3.0);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`]; [`Error::InvalidArgument`] for a repeated axis.
    pub fn nanvar_axes(
        &self,
        axes: impl IntoAxes,
        keepdims: bool,
        ddof: usize,
    ) -> Result<DeviceArray<T::Mean>> {
        self.var_dispatch(Some(&axes.axes()), keepdims, ddof, ReduceOp::NanVar)
    }
    /// [`nanstd`](Self::nanstd) over a set of axes ([`IntoAxes`]).
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let a = cuarray::DeviceArray::from_host(&dev, &[1.0f64, f64::NAN, 3.0, 5.0], &[2, 2])?;
    /// assert_eq!(a.nanstd_axes(-1, true, 0)?.shape(), &[2, 1]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`]; [`Error::InvalidArgument`] for a repeated axis.
    pub fn nanstd_axes(
        &self,
        axes: impl IntoAxes,
        keepdims: bool,
        ddof: usize,
    ) -> Result<DeviceArray<T::Mean>> {
        self.var_dispatch(Some(&axes.axes()), keepdims, ddof, ReduceOp::NanStd)
    }

    /// Peak to peak, `max - min` of all elements (NumPy's `ptp`; NaN propagates;
    /// integers wrap as NumPy's). Two reductions and a subtraction.
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let a = cuarray::DeviceArray::from_host(&dev, &[4.0f32, 9.0, 2.0, 3.0], &[2, 2])?;
    /// assert_eq!(a.ptp()?.to_scalar()?, 7.0);
    /// assert_eq!(a.ptp_axis(1)?.to_host()?, vec![5.0, 1.0]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::EmptyReduction`] for an empty array.
    pub fn ptp(&self) -> Result<DeviceArray<T>> {
        &self.max()? - &self.min()?
    }
    /// [`ptp`](Self::ptp) along `axis`.
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let a = cuarray::DeviceArray::from_host(&dev, &[4, 9, 2, 3], &[2, 2])?;
    /// assert_eq!(a.ptp_axis(0)?.to_host()?, vec![2, 6]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`]; [`Error::EmptyReduction`] when the axis is empty.
    pub fn ptp_axis(&self, axis: isize) -> Result<DeviceArray<T>> {
        &self.max_axis(axis)? - &self.min_axis(axis)?
    }
    /// [`ptp`](Self::ptp) along `axis`, kept with extent 1.
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let a = cuarray::DeviceArray::from_host(&dev, &[4, 9, 2, 3], &[2, 2])?;
    /// assert_eq!(a.ptp_keepdim(1)?.shape(), &[2, 1]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`]; [`Error::EmptyReduction`] when the axis is empty.
    pub fn ptp_keepdim(&self, axis: isize) -> Result<DeviceArray<T>> {
        &self.max_keepdim(axis)? - &self.min_keepdim(axis)?
    }
    /// [`ptp`](Self::ptp) over a set of axes ([`IntoAxes`]).
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let a = cuarray::DeviceArray::from_host(&dev, &[4, 9, 2, 3], &[2, 2])?;
    /// assert_eq!(a.ptp_axes(&[0, 1], false)?.to_scalar()?, 7);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`]; [`Error::InvalidArgument`] for a repeated axis;
    /// [`Error::EmptyReduction`] when the reduced axes are empty.
    pub fn ptp_axes(&self, axes: impl IntoAxes, keepdims: bool) -> Result<DeviceArray<T>> {
        let axes = axes.axes();
        &self.max_axes(&axes[..], keepdims)? - &self.min_axes(&axes[..], keepdims)?
    }

    /// Cumulative sum along `axis` skipping NaN (NumPy's `nancumsum`: NaN loads as 0, so
    /// a leading run of NaN gives zeros). One scan pass, as [`cumsum`](Self::cumsum).
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let a = cuarray::DeviceArray::from_slice(&dev, &[f32::NAN, 1.0, f32::NAN, 2.0])?;
    /// assert_eq!(a.nancumsum(0)?.to_host()?, vec![0.0, 1.0, 1.0, 3.0]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`] for an axis outside `-ndim..ndim`.
    pub fn nancumsum(&self, axis: isize) -> Result<DeviceArray<T::Sum>> {
        self.scan(ReduceOp::NanSum, axis)
    }
    /// Cumulative product along `axis` skipping NaN (NumPy's `nancumprod`: NaN loads as 1).
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let a = cuarray::DeviceArray::from_slice(&dev, &[2.0f32, f32::NAN, 3.0])?;
    /// assert_eq!(a.nancumprod(0)?.to_host()?, vec![2.0, 2.0, 6.0]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::AxisOutOfRange`] for an axis outside `-ndim..ndim`.
    pub fn nancumprod(&self, axis: isize) -> Result<DeviceArray<T::Sum>> {
        self.scan(ReduceOp::NanProd, axis)
    }
}
