//! Spaced values and coordinate grids: [`logspace`](DeviceArray::logspace),
//! [`geomspace`](DeviceArray::geomspace), [`meshgrid`] and [`indices`].

use super::DeviceArray;
use crate::element::{Element, FloatElement};
use crate::kernels::abi::Scalar;
use crate::ops::elementwise;
use crate::shape::{new_shape, IntoShape};
use crate::{Device, Error, Result};

/// Body of `logspace` and `geomspace`, in double: `s0` the first exponent, `s1` the
/// exponent step, `s2` the last index (-1 when there is one value or none), `s3` the base,
/// `s4` the sign, `s5` and `s6` the exact first and last values.
pub(crate) const LOGSPACE_BODY: &str =
    "out0 = out0_t(i == 0 ? s5 : (i == s2 ? s6 : s4 * pow(s3, s0 + (double)i * s1)));";

/// How [`meshgrid`] orders the axes of its grids (NumPy's `indexing`).
///
/// ```no_run
/// use cuarray::{Device, DeviceArray, Indexing};
/// let dev = Device::new(0)?;
/// let x = DeviceArray::from_slice(&dev, &[1, 2, 3])?;
/// let y = DeviceArray::from_slice(&dev, &[10, 20])?;
/// assert_eq!(cuarray::meshgrid(&[&x, &y], Indexing::Xy)?[0].shape(), &[2, 3]);
/// assert_eq!(cuarray::meshgrid(&[&x, &y], Indexing::Ij)?[0].shape(), &[3, 2]);
/// # Ok::<(), cuarray::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Indexing {
    /// Cartesian (NumPy's default `"xy"`): the first two axes are swapped, so that for
    /// `x` of length `m` and `y` of length `n` the grids have shape `(n, m)`.
    Xy,
    /// Matrix (`"ij"`): the grids have shape `(len(x0), len(x1), ...)`.
    Ij,
}

impl<T: FloatElement> DeviceArray<T> {
    /// `num` values spaced evenly on a log scale, `base^start` to `base^stop` (NumPy's
    /// `logspace` with `endpoint=True`), computed in `f64` and rounded to `T`.
    ///
    /// # Errors
    /// [`Error::TooLarge`] when `num` elements pass `isize::MAX`.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::logspace(&dev, 0.0f64, 3.0, 4, 10.0)?;
    /// assert_eq!(a.to_host()?, vec![1.0, 10.0, 100.0, 1000.0]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn logspace(device: &Device, start: T, stop: T, num: usize, base: T) -> Result<Self> {
        let (a, b, base) = (start.to_f64(), stop.to_f64(), base.to_f64());
        Self::spaced(
            "logspace",
            device,
            (a, b),
            num,
            base,
            1.0,
            (base.powf(a), base.powf(b)),
        )
    }

    /// `num` values spaced evenly on a log scale from `start` to `stop`, both included and
    /// exact (NumPy's `geomspace`): each value is the previous one times a constant
    /// ratio. Both ends negative gives negative values.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `start` or `stop` is zero or they differ in sign
    /// (a geometric sequence cannot reach across 0); [`Error::TooLarge`] when `num`
    /// elements pass `isize::MAX`.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::geomspace(&dev, 1.0f64, 1000.0, 4)?;
    /// let h = a.to_host()?;
    /// assert!((h[1] - 10.0).abs() < 1e-12 && h[3] == 1000.0);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn geomspace(device: &Device, start: T, stop: T, num: usize) -> Result<Self> {
        const OP: &str = "geomspace";
        let (a, b) = (start.to_f64(), stop.to_f64());
        if a == 0.0 || b == 0.0 {
            return Err(Error::invalid(
                OP,
                format!("start ({a}) and stop ({b}) must not be zero"),
            ));
        }
        if (a < 0.0) != (b < 0.0) {
            return Err(Error::invalid(
                OP,
                format!("start ({a}) and stop ({b}) must have the same sign"),
            ));
        }
        let sign = a.signum();
        let (la, lb) = ((a * sign).log10(), (b * sign).log10());
        Self::spaced(OP, device, (la, lb), num, 10.0, sign, (a, b))
    }

    /// `sign * base^e` for `num` exponents `e` from `exps.0` to `exps.1`, the ends exactly
    /// `ends`.
    fn spaced(
        op: &'static str,
        device: &Device,
        (a, b): (f64, f64),
        num: usize,
        base: f64,
        sign: f64,
        ends: (f64, f64),
    ) -> Result<Self> {
        let step = if num > 1 {
            (b - a) / (num - 1) as f64
        } else {
            0.0
        };
        let last = if num > 1 { (num - 1) as i64 } else { -1 };
        let out = Self::alloc_for(op, device, &[num])?;
        if num == 0 {
            return Ok(out);
        }
        elementwise::run(
            device,
            op,
            LOGSPACE_BODY,
            &[out.operand()?],
            &[],
            &[
                Scalar::of(a),
                Scalar::of(step),
                Scalar::of(last),
                Scalar::of(base),
                Scalar::of(sign),
                Scalar::of(ends.0),
                Scalar::of(ends.1),
            ],
        )?;
        Ok(out)
    }
}

/// Coordinate grids from coordinate vectors (NumPy's `meshgrid` with its default
/// `copy=True`): one new array per input, each input flattened and repeated along the other
/// axes. With [`Indexing::Xy`] the first two axes of the grids are swapped.
///
/// For read-only grids without the copies, [`broadcast_to`](DeviceArray::broadcast_to) a
/// reshaped input instead.
///
/// # Errors
/// [`Error::DeviceMismatch`] across devices; [`Error::TooLarge`] when the grids' shape
/// overflows.
///
/// ```no_run
/// use cuarray::{Device, DeviceArray, Indexing};
/// let dev = Device::new(0)?;
/// let x = DeviceArray::from_slice(&dev, &[1, 2, 3])?;
/// let y = DeviceArray::from_slice(&dev, &[10, 20])?;
/// let g = cuarray::meshgrid(&[&x, &y], Indexing::Xy)?;
/// assert_eq!(g[0].to_host()?, vec![1, 2, 3, 1, 2, 3]);
/// assert_eq!(g[1].to_host()?, vec![10, 10, 10, 20, 20, 20]);
/// # Ok::<(), cuarray::Error>(())
/// ```
pub fn meshgrid<T: Element>(
    xs: &[&DeviceArray<T>],
    indexing: Indexing,
) -> Result<Vec<DeviceArray<T>>> {
    const OP: &str = "meshgrid";
    let n = xs.len();
    let axis_of = |k: usize| match (indexing, k) {
        (Indexing::Xy, 0) if n > 1 => 1,
        (Indexing::Xy, 1) => 0,
        _ => k,
    };
    let mut shape = vec![0usize; n];
    for (k, x) in xs.iter().enumerate() {
        x.used_by(OP, xs[0].device())?;
        shape[axis_of(k)] = x.size();
    }
    super::put::checked_size(OP, &shape)?;
    xs.iter()
        .enumerate()
        .map(|(k, x)| {
            let mut sh = vec![1usize; n];
            sh[axis_of(k)] = x.size();
            x.reshape(&sh)?.broadcast_to(&shape)?.copy()
        })
        .collect()
}

/// The index grid of `shape` (NumPy's `indices`): an i64 array of shape
/// `(ndim, *shape)` whose `k`-th sub-array holds each position's coordinate along axis
/// `k`.
///
/// # Errors
/// [`Error::InvalidArgument`] for a negative extent; [`Error::TooLarge`] when the result's
/// shape overflows.
///
/// ```no_run
/// let dev = cuarray::Device::new(0)?;
/// let g = cuarray::indices(&dev, &[2, 3])?;
/// assert_eq!(g.shape(), &[2, 2, 3]);
/// assert_eq!(g.to_host()?, vec![0, 0, 0, 1, 1, 1, 0, 1, 2, 0, 1, 2]);
/// # Ok::<(), cuarray::Error>(())
/// ```
pub fn indices(device: &Device, shape: impl IntoShape) -> Result<DeviceArray<i64>> {
    const OP: &str = "indices";
    let shape = new_shape(OP, shape)?;
    let nd = shape.len();
    let mut full = vec![nd];
    full.extend_from_slice(&shape);
    super::put::checked_size(OP, &full)?;
    let out = DeviceArray::<i64>::alloc_for(OP, device, &full)?;
    if out.size() == 0 {
        return Ok(out);
    }
    for (k, &e) in shape.iter().enumerate() {
        let mut sh = vec![1usize; nd];
        sh[k] = e;
        let r = DeviceArray::<i64>::arange(device, 0, e as i64, 1)?.reshape(&sh)?;
        out.with_layout(out.layout().index_axis(0, k)).assign(&r)?;
    }
    Ok(out)
}

/// The elementwise kernels of this file, for the NVRTC tier.
pub(crate) fn kernel_specs() -> Vec<crate::kernels::KernelSpec> {
    use crate::kernels::family::elementwise::{ElementwiseSpec, Variant};
    use crate::kernels::{IndexWidth, Text, TypeList};
    use crate::DType;
    [DType::F32, DType::F64, DType::F16, DType::BF16]
        .into_iter()
        .map(|d| {
            crate::kernels::KernelSpec::from(ElementwiseSpec {
                op: "logspace".into(),
                body: LOGSPACE_BODY.into(),
                preamble: Text::EMPTY,
                inputs: TypeList::new(&[]),
                outputs: TypeList::new(&[d]),
                scalars: TypeList::new(&[
                    DType::F64,
                    DType::F64,
                    DType::I64,
                    DType::F64,
                    DType::F64,
                    DType::F64,
                    DType::F64,
                ]),
                variant: Variant::Contiguous,
                index: IndexWidth::I32,
            })
        })
        .collect()
}
