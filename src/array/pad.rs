//! [`DeviceArray::pad`] and its [`PadMode`]s (NumPy's `np.pad`), one axis at a time:
//! the index modes (edge, reflect, symmetric, wrap) are one gather through an index map
//! computed on the device, whatever the widths; the value modes (constant, linear ramp,
//! statistics) are concatenations of broadcast slabs.

use super::{concatenate, where_, DeviceArray};
use crate::element::Element;
use crate::kernels::abi::Scalar;
use crate::ops::elementwise;
use crate::shape::SliceElem;
use crate::{Error, Result};

/// Body of the index map of the index modes: the source position along the axis of each
/// padded position `i` (`s0` the width before, `s1` the extent, `s2` the mode: 0 edge,
/// 1 reflect, 2 symmetric, 3 wrap).
pub(crate) const PAD_INDEX_BODY: &str = "long long x = (long long)i - s0; long long n = s1; \
long long m; \
if (s2 == 0) { m = x < 0 ? 0 : (x >= n ? n - 1 : x); } \
else if (s2 == 3) { m = ((x % n) + n) % n; } \
else { const long long p = s2 == 1 ? 2 * n - 2 : 2 * n; \
  if (p == 0) { m = 0; } else { m = ((x % p) + p) % p; if (m >= n) m = p - (s2 == 1 ? 0 : 1) - m; } } \
out0 = m;";

/// How [`DeviceArray::pad`] fills the new elements (NumPy's `mode`).
///
/// ```no_run
/// use cuarray::{Device, DeviceArray, PadMode};
/// let dev = Device::new(0)?;
/// let a = DeviceArray::from_slice(&dev, &[1, 2, 3])?;
/// assert_eq!(a.pad(&[(2, 1)], PadMode::Constant(0))?.to_host()?, vec![0, 0, 1, 2, 3, 0]);
/// assert_eq!(a.pad(&[(2, 1)], PadMode::Edge)?.to_host()?, vec![1, 1, 1, 2, 3, 3]);
/// assert_eq!(a.pad(&[(2, 1)], PadMode::Reflect)?.to_host()?, vec![3, 2, 1, 2, 3, 2]);
/// assert_eq!(a.pad(&[(2, 1)], PadMode::Symmetric)?.to_host()?, vec![2, 1, 1, 2, 3, 3]);
/// assert_eq!(a.pad(&[(2, 1)], PadMode::Wrap)?.to_host()?, vec![2, 3, 1, 2, 3, 1]);
/// assert_eq!(a.pad(&[(2, 1)], PadMode::LinearRamp(7))?.to_host()?, vec![7, 4, 1, 2, 3, 7]);
/// assert_eq!(a.pad(&[(1, 1)], PadMode::Maximum)?.to_host()?, vec![3, 1, 2, 3, 3]);
/// assert_eq!(a.pad(&[(1, 1)], PadMode::Mean)?.to_host()?, vec![2, 1, 2, 3, 2]);
/// # Ok::<(), cuarray::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PadMode<T> {
    /// Every new element is this value (NumPy's `"constant"` with `constant_values`).
    Constant(T),
    /// The nearest edge element (NumPy's `"edge"`).
    Edge,
    /// The mirror image without the edge element (NumPy's `"reflect"`).
    Reflect,
    /// The mirror image with the edge element (NumPy's `"symmetric"`).
    Symmetric,
    /// The other end of the axis, as if the array repeated (NumPy's `"wrap"`).
    Wrap,
    /// A linear ramp from this value at the outer end to the edge element (NumPy's
    /// `"linear_ramp"` with `end_values`); computed in `f64`, floored for integers as
    /// NumPy's `linspace`.
    LinearRamp(T),
    /// The largest element of the axis (NumPy's `"maximum"`; NaN when the axis holds one).
    Maximum,
    /// The smallest element of the axis (NumPy's `"minimum"`; NaN when the axis holds one).
    Minimum,
    /// The mean of the axis, computed in `f64` and rounded half to even for integers
    /// (NumPy's `"mean"`).
    Mean,
    /// The median of the axis, computed in `f64` and rounded half to even for integers
    /// (NumPy's `"median"`).
    Median,
}

/// `start..end` along one axis.
fn range(start: usize, end: usize) -> SliceElem {
    SliceElem::Range {
        start: Some(start as isize),
        end: Some(end as isize),
        step: 1,
    }
}

/// Element `i` of axis `k` of `a`, keeping the axis (a view of extent 1).
fn slab<U: Element>(a: &DeviceArray<U>, k: usize, i: usize) -> Result<DeviceArray<U>> {
    let mut spec = vec![ALL; k + 1];
    spec[k] = range(i, i + 1);
    a.slice(&spec)
}

/// The whole axis, as a slice entry.
const ALL: SliceElem = SliceElem::Range {
    start: None,
    end: None,
    step: 1,
};

impl<T: Element> DeviceArray<T> {
    /// The array with `width[k] = (before, after)` elements added around axis `k`, filled
    /// as `mode` says (NumPy's `pad`; see [`PadMode`]): widths past the extent keep
    /// reflecting or wrapping, as NumPy. One `(before, after)` pair pads every axis. A new
    /// array; axes are padded in order, each seeing the ones padded before it (as NumPy).
    ///
    /// # Performance
    /// Edge, reflect, symmetric and wrap padding gather each padded axis through an
    /// index map (one kernel for the map, one for the gather); maximum, minimum and median
    /// sort the axis (maximum and minimum exact for every type; median in `f64`); mean
    /// goes through `f64`.
    ///
    /// ```no_run
    /// use cuarray::PadMode;
    /// let dev = cuarray::Device::new(0)?;
    /// let a = cuarray::DeviceArray::from_host(&dev, &[1, 2, 3, 4], &[2, 2])?;
    /// let c = a.pad(&[(1, 1), (2, 0)], PadMode::Constant(0))?;
    /// assert_eq!(c.shape(), &[4, 4]);
    /// assert_eq!(c.to_host()?, vec![0, 0, 0, 0, 0, 0, 1, 2, 0, 0, 3, 4, 0, 0, 0, 0]);
    /// let r = cuarray::DeviceArray::from_slice(&dev, &[1, 2, 3])?.pad(&[(2, 2)], PadMode::Reflect)?;
    /// assert_eq!(r.to_host()?, vec![3, 2, 1, 2, 3, 2, 1]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `width` has neither one pair nor one per axis, when
    /// an empty axis is padded by a mode other than `Constant`, or for the value modes
    /// but `Constant` on complex arrays; [`Error::TooLarge`] when the result's shape
    /// overflows.
    pub fn pad(&self, width: &[(usize, usize)], mode: PadMode<T>) -> Result<Self> {
        const OP: &str = "pad";
        let nd = self.ndim();
        let width: Vec<(usize, usize)> = match width.len() {
            1 => vec![width[0]; nd],
            n if n == nd => width.to_vec(),
            n => {
                return Err(Error::InvalidArgument {
                    op: OP,
                    msg: format!("{n} (before, after) pairs for an array of {nd} axes"),
                })
            }
        };
        let too_large = || Error::TooLarge {
            op: OP,
            shape: self.shape().to_vec(),
            elem_bytes: None,
        };
        let mut shape = Vec::with_capacity(nd);
        for (&e, &(b, a)) in self.shape().iter().zip(&width) {
            shape.push(
                e.checked_add(b)
                    .and_then(|x| x.checked_add(a))
                    .ok_or_else(too_large)?,
            );
        }
        super::put::checked_size(OP, &shape)?;
        if let PadMode::Constant(value) = mode {
            let out = Self::full(self.device(), &shape, value)?;
            let inner: Vec<SliceElem> = width
                .iter()
                .zip(self.shape())
                .map(|(&(b, _), &e)| range(b, b + e))
                .collect();
            out.slice(&inner)?.assign(self)?;
            return Ok(out);
        }
        let value_mode = !matches!(
            mode,
            PadMode::Edge | PadMode::Reflect | PadMode::Symmetric | PadMode::Wrap
        );
        if value_mode && T::DTYPE.is_complex() {
            return Err(Error::invalid(
                OP,
                format!(
                    "{mode:?} padding takes real arrays, not {}",
                    T::DTYPE.name()
                ),
            ));
        }
        let mut out = self.clone();
        for (k, &(before, after)) in width.iter().enumerate() {
            if before == 0 && after == 0 {
                continue;
            }
            if out.shape()[k] == 0 {
                return Err(Error::invalid(
                    OP,
                    format!("cannot extend empty axis {k} by {mode:?} padding"),
                ));
            }
            out = out.pad_axis(k, (before, after), mode)?;
        }
        if out.shape() == self.shape() {
            return self.copy();
        }
        Ok(out)
    }

    /// One axis of [`pad`](Self::pad) (a non-empty axis, a mode other than `Constant`).
    fn pad_axis(
        &self,
        k: usize,
        (before, after): (usize, usize),
        mode: PadMode<T>,
    ) -> Result<Self> {
        let device = self.device();
        let n = self.shape()[k];
        let code = match mode {
            PadMode::Edge => Some(0i32),
            PadMode::Reflect => Some(1),
            PadMode::Symmetric => Some(2),
            PadMode::Wrap => Some(3),
            _ => None,
        };
        if let Some(code) = code {
            let idx = DeviceArray::<i64>::alloc_for("pad", device, &[before + n + after])?;
            elementwise::run(
                device,
                "pad",
                PAD_INDEX_BODY,
                &[idx.operand()?],
                &[],
                &[
                    Scalar::of(before as i64),
                    Scalar::of(n as i64),
                    Scalar::of(code),
                ],
            )?;
            return self.take_index(&idx, k);
        }
        let wide = |w: usize| {
            let mut s = self.shape().to_vec();
            s[k] = w;
            s
        };
        let (left, right) = match mode {
            PadMode::LinearRamp(end) => (
                ramp(&slab(self, k, 0)?, end, before, k, false)?,
                ramp(&slab(self, k, n - 1)?, end, after, k, true)?,
            ),
            _ => {
                let s = self.statistic(k, mode)?;
                (s.broadcast_to(wide(before))?, s.broadcast_to(wide(after))?)
            }
        };
        concatenate(&[&left, self, &right], k as isize)
    }

    /// The statistic of `mode` along axis `k`, keeping the axis (extent 1).
    fn statistic(&self, k: usize, mode: PadMode<T>) -> Result<Self> {
        let n = self.shape()[k];
        if mode == PadMode::Mean {
            let mean = self.astype::<f64>()?.mean_keepdim(k as isize)?;
            return round_to::<T>(mean, false);
        }
        // Sorted, NaN last: the maximum is the last element, the minimum the first and the
        // median the mean of the middle two, each NaN when the last is.
        if mode == PadMode::Median {
            let sorted = self.astype::<f64>()?.sort(k as isize)?;
            let last = slab(&sorted, k, n - 1)?;
            let mid = ((&slab(&sorted, k, (n - 1) / 2)? + &slab(&sorted, k, n / 2)?)? * 0.5)?;
            return round_to::<T>(where_(last.ne(&last)?, &last, &mid)?, false);
        }
        let sorted = self.sort(k as isize)?;
        let last = slab(&sorted, k, n - 1)?;
        if mode == PadMode::Maximum {
            return Ok(last);
        }
        where_(last.ne(&last)?, &last, &slab(&sorted, k, 0)?)
    }
}

/// `x` (f64) rounded as NumPy rounds into an integer `T` (half to even, or down with
/// `floor`), then converted to `T`.
fn round_to<T: Element>(x: DeviceArray<f64>, floor: bool) -> Result<DeviceArray<T>> {
    if T::DTYPE.is_float() {
        return x.astype::<T>();
    }
    if floor {
        x.floor()?.astype::<T>()
    } else {
        x.rint()?.astype::<T>()
    }
}

/// The linear ramp of `w` elements along axis `k` from `end` to the edge slab `edge`
/// (extent 1 along `k`), not reaching the edge (NumPy's `linspace(end, edge, w,
/// endpoint=False)`, reversed for the side after the array).
fn ramp<T: Element>(
    edge: &DeviceArray<T>,
    end: T,
    w: usize,
    k: usize,
    after: bool,
) -> Result<DeviceArray<T>> {
    let device = edge.device();
    let end = end.to_f64();
    let mut sh = vec![1usize; edge.ndim()];
    sh[k] = w;
    let j = if after {
        DeviceArray::<f64>::arange(device, w as f64 - 1.0, -1.0, -1.0)?
    } else {
        DeviceArray::<f64>::arange(device, 0.0, w as f64, 1.0)?
    }
    .reshape(&sh)?;
    let step = ((&edge.astype::<f64>()? - end)? / w.max(1) as f64)?;
    let y = ((&step * &j)? + end)?;
    round_to::<T>(y, true)
}

/// The elementwise kernels of this file, for the NVRTC tier.
pub(crate) fn kernel_specs() -> Vec<crate::kernels::KernelSpec> {
    use crate::kernels::family::elementwise::{ElementwiseSpec, Variant};
    use crate::kernels::{IndexWidth, Text, TypeList};
    use crate::DType;
    vec![crate::kernels::KernelSpec::from(ElementwiseSpec {
        op: "pad".into(),
        body: PAD_INDEX_BODY.into(),
        preamble: Text::EMPTY,
        inputs: TypeList::new(&[]),
        outputs: TypeList::new(&[DType::I64]),
        scalars: TypeList::new(&[DType::I64, DType::I64, DType::I32]),
        variant: Variant::Contiguous,
        index: IndexWidth::I32,
    })]
}
