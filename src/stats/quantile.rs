//! Order statistics: median, quantiles and percentiles (and their NaN-skipping forms).
//!
//! The plan of one call: the reduced axis moved last, one sort of every row (the sort
//! family: a group per row in shared memory for rows up to 4096, else the radix sort), for
//! the NaN-skipping forms the count of non-NaN elements of each row (one reduction; NaN
//! sorts last, so the first `count` elements are the row's numbers), an elementwise kernel
//! computing NumPy's two neighbouring indices and weight for every (row, q), two gathers
//! along the rows, and an elementwise interpolation. A radix *select* (only the digits'
//! histograms of the wanted ranks, no full sort) is the later faster path.

use crate::array::DeviceArray;
use crate::element::{DType, FloatElement, NumElement};
use crate::kernels::abi::Scalar;
use crate::kernels::Text;
use crate::ops::elementwise::{run_code, Code};
use crate::shape::{normalize_axis, SliceElem};
use crate::{Error, Result};

/// How a quantile between two order statistics is chosen (NumPy's `method` argument of
/// `quantile`; the nine of Hyndman and Fan and NumPy's four older ones).
///
/// With `n` elements sorted as `x[0..n]` and a quantile `q`, NumPy's *virtual index* `v`
/// is `(n - 1) q` for [`Linear`](Self::Linear), `n q + α + q (1 - α - β) - 1` for the
/// continuous methods of Hyndman and Fan, and the result interpolates `x[floor(v)]` and
/// `x[floor(v) + 1]` (indices clipped to the array).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum QuantileMethod {
    /// `v = (n - 1) q`, linear interpolation (NumPy's default; Hyndman and Fan 7).
    Linear,
    /// `x[floor((n - 1) q)]`.
    Lower,
    /// `x[ceil((n - 1) q)]`.
    Higher,
    /// `x[round((n - 1) q)]`, halves to even (as NumPy's `around`).
    Nearest,
    /// The mean of `Lower` and `Higher`.
    Midpoint,
    /// The smallest `x` whose empirical CDF reaches `q` (Hyndman and Fan 1).
    InvertedCdf,
    /// As `InvertedCdf`, averaging at the jumps (Hyndman and Fan 2).
    AveragedInvertedCdf,
    /// The nearest order statistic, ties to the even one (Hyndman and Fan 3).
    ClosestObservation,
    /// Linear interpolation of the empirical CDF, `α = 0, β = 1` (Hyndman and Fan 4).
    InterpolatedInvertedCdf,
    /// `α = β = 1/2` (Hyndman and Fan 5).
    Hazen,
    /// `α = β = 0` (Hyndman and Fan 6).
    Weibull,
    /// `α = β = 1/3`: median-unbiased whatever the distribution (Hyndman and Fan 8).
    MedianUnbiased,
    /// `α = β = 3/8`: unbiased for normal data (Hyndman and Fan 9).
    NormalUnbiased,
}

impl QuantileMethod {
    /// Every method.
    pub const ALL: [QuantileMethod; 13] = [
        QuantileMethod::Linear,
        QuantileMethod::Lower,
        QuantileMethod::Higher,
        QuantileMethod::Nearest,
        QuantileMethod::Midpoint,
        QuantileMethod::InvertedCdf,
        QuantileMethod::AveragedInvertedCdf,
        QuantileMethod::ClosestObservation,
        QuantileMethod::InterpolatedInvertedCdf,
        QuantileMethod::Hazen,
        QuantileMethod::Weibull,
        QuantileMethod::MedianUnbiased,
        QuantileMethod::NormalUnbiased,
    ];

    /// The code the index kernel switches on (`cuarray_qindex` in [`QINDEX_PREAMBLE`]).
    const fn code(self) -> i32 {
        self as i32
    }

    /// True for the methods that pick one order statistic (no interpolation).
    pub const fn is_discrete(self) -> bool {
        matches!(
            self,
            QuantileMethod::Lower
                | QuantileMethod::Higher
                | QuantileMethod::Nearest
                | QuantileMethod::InvertedCdf
                | QuantileMethod::ClosestObservation
        )
    }
}

/// NumPy's neighbouring indices and weight of quantile `q` among `n >= 1` sorted
/// elements: `(previous, next, gamma)`, the result being `lerp(x[previous], x[next],
/// gamma)` (or `x[previous]` for the discrete methods). The host twin of the device
/// function `cuarray_qindex`; both follow `numpy.lib._function_base_impl._quantile`.
///
/// ```
/// use cuarray::stats::{quantile_index, QuantileMethod};
/// assert_eq!(quantile_index(QuantileMethod::Linear, 5, 0.3), (1, 2, 0.19999999999999996));
/// assert_eq!(quantile_index(QuantileMethod::Nearest, 4, 0.5).0, 2); // 1.5 rounds to 2
/// ```
pub fn quantile_index(method: QuantileMethod, n: usize, q: f64) -> (usize, usize, f64) {
    use QuantileMethod as M;
    let nf = n as f64;
    let last = n.saturating_sub(1);
    let clip = |i: f64| -> usize {
        if i < 0.0 {
            0
        } else {
            (i as usize).min(last)
        }
    };
    // The discrete methods of Hyndman and Fan: one side of the jump.
    let boundary = |index: f64, odd_rule: bool| -> usize {
        let prev = index.floor();
        let gamma = index - prev;
        let cond = gamma == 0.0 && (!odd_rule || prev.rem_euclid(2.0) == 1.0);
        clip(if cond { prev } else { prev + 1.0 })
    };
    let alpha_beta = |alpha: f64, beta: f64| nf * q + (alpha + q * (1.0 - alpha - beta)) - 1.0;
    let v = match method {
        M::Lower => return same(clip(((nf - 1.0) * q).floor())),
        M::Higher => return same(clip(((nf - 1.0) * q).ceil())),
        M::Nearest => return same(clip(((nf - 1.0) * q).round_ties_even())),
        M::InvertedCdf => return same(boundary(nf * q - 1.0, false)),
        M::ClosestObservation => return same(boundary(nf * q - 1.5, true)),
        M::Linear => (nf - 1.0) * q,
        M::Midpoint => 0.5 * (((nf - 1.0) * q).floor() + ((nf - 1.0) * q).ceil()),
        M::AveragedInvertedCdf => nf * q - 1.0,
        M::InterpolatedInvertedCdf => alpha_beta(0.0, 1.0),
        M::Hazen => alpha_beta(0.5, 0.5),
        M::Weibull => alpha_beta(0.0, 0.0),
        M::MedianUnbiased => alpha_beta(1.0 / 3.0, 1.0 / 3.0),
        M::NormalUnbiased => alpha_beta(3.0 / 8.0, 3.0 / 8.0),
    };
    let (prev, next) = if v >= nf - 1.0 {
        (last, last)
    } else if v < 0.0 {
        (0, 0)
    } else {
        let p = v.floor();
        (p as usize, p as usize + 1)
    };
    let gamma = v - prev as f64;
    let gamma = match method {
        M::AveragedInvertedCdf => {
            if gamma == 0.0 {
                0.5
            } else {
                1.0
            }
        }
        M::Midpoint => {
            if v == v.floor() {
                0.0
            } else {
                0.5
            }
        }
        _ => gamma,
    };
    (prev, next, gamma)
}

fn same(i: usize) -> (usize, usize, f64) {
    (i, i, 0.0)
}

/// NumPy's `_lerp`: `a + (b - a) t`, or `b - (b - a)(1 - t)` from `t >= 0.5` on.
pub fn lerp(a: f64, b: f64, t: f64) -> f64 {
    let d = b - a;
    if t >= 0.5 {
        b - d * (1.0 - t)
    } else {
        a + d * t
    }
}

/// The device twin of [`quantile_index`] (method codes: [`QuantileMethod`]'s order).
pub(crate) const QINDEX_PREAMBLE: &str = r#"
__device__ __forceinline__ void cuarray_qindex(int m, long long n, double q, long long* lo, long long* hi, double* g) {
    const double nf = (double)n;
    const long long last = n - 1;
    double v;
    bool disc = true;
    long long pick = 0;
    #define CUARRAY_QCLIP(x) ((x) < 0.0 ? 0LL : ((long long)(x) > last ? last : (long long)(x)))
    switch (m) {
    case 1: pick = CUARRAY_QCLIP(floor((nf - 1.0) * q)); break;
    case 2: pick = CUARRAY_QCLIP(ceil((nf - 1.0) * q)); break;
    case 3: pick = CUARRAY_QCLIP(rint((nf - 1.0) * q)); break;
    case 5: case 7: {
        const double index = m == 5 ? nf * q - 1.0 : nf * q - 1.5;
        const double prev = floor(index);
        const double gamma = index - prev;
        const double r = prev - 2.0 * floor(prev * 0.5);
        const bool cond = gamma == 0.0 && (m == 5 || r == 1.0);
        pick = CUARRAY_QCLIP(cond ? prev : prev + 1.0);
        break;
    }
    default: disc = false;
    }
    #undef CUARRAY_QCLIP
    if (disc) { *lo = pick; *hi = pick; *g = 0.0; return; }
    double alpha = 1.0, beta = 1.0;
    switch (m) {
    case 0: v = (nf - 1.0) * q; break;
    case 4: v = 0.5 * (floor((nf - 1.0) * q) + ceil((nf - 1.0) * q)); break;
    case 6: v = nf * q - 1.0; break;
    default:
        if (m == 8) { alpha = 0.0; beta = 1.0; }
        else if (m == 9) { alpha = 0.5; beta = 0.5; }
        else if (m == 10) { alpha = 0.0; beta = 0.0; }
        else if (m == 11) { alpha = 1.0 / 3.0; beta = 1.0 / 3.0; }
        else { alpha = 3.0 / 8.0; beta = 3.0 / 8.0; }
        v = nf * q + (alpha + q * (1.0 - alpha - beta)) - 1.0;
    }
    long long p, nx;
    if (v >= nf - 1.0) { p = last; nx = last; }
    else if (v < 0.0) { p = 0; nx = 0; }
    else { p = (long long)floor(v); nx = p + 1; }
    double gamma = v - (double)p;
    if (m == 6) gamma = gamma == 0.0 ? 0.5 : 1.0;
    else if (m == 4) gamma = v == floor(v) ? 0.0 : 0.5;
    *lo = p; *hi = nx; *g = gamma;
}
"#;

/// The index kernel: `in0` the row's count (`i64`), `in1` q (`f64`), `in2` the row's last
/// sorted element; `s0` the method, `s1` whether a NaN last element makes the result NaN
/// (the plain forms) . Out: the two indices and the weight (NaN: the result is NaN).
pub(crate) const QINDEX_BODY: &str = "long long lo, hi; double g; \
if (in0 == 0) { lo = 0; hi = 0; g = __longlong_as_double(0x7ff8000000000000LL); } \
else { cuarray_qindex(s0, in0, in1, &lo, &hi, &g); \
if (s1 && cuarray_isnan(in2)) g = __longlong_as_double(0x7ff8000000000000LL); } \
out0 = lo; out1 = hi; out2 = g;";

/// The interpolation: `in0`, `in1` the two order statistics, `in2` the weight (NaN: a NaN
/// result); `s0` true for the discrete methods (the first statistic as is).
pub(crate) const QLERP_BODY: &str = "typedef decltype(cuarray_up(in0)) R; \
const R a = R(cuarray_up(in0)); const R b = R(cuarray_up(in1)); const R t = R(in2); \
R r; if (in2 != in2) { r = R(in2); } else if (s0) { r = a; } \
else { const R d = b - a; r = (t >= R(0.5)) ? b - d * (R(1) - t) : a + d * t; } \
out0 = out0_t(r);";

/// The kernels of the quantile path for element type `d` (the NVRTC tier compiles them).
pub fn kernel_specs(d: DType) -> Vec<crate::kernels::KernelSpec> {
    use crate::kernels::family::elementwise::{ElementwiseSpec, Variant};
    use crate::kernels::{IndexWidth, TypeList};
    let mut v = Vec::new();
    for variant in [Variant::Contiguous, Variant::Strided { ndim: 2 }] {
        v.push(crate::kernels::KernelSpec::from(ElementwiseSpec {
            op: "qindex".into(),
            body: QINDEX_BODY.into(),
            preamble: QINDEX_PREAMBLE.into(),
            inputs: TypeList::new(&[DType::I64, DType::F64, d]),
            outputs: TypeList::new(&[DType::I64, DType::I64, DType::F64]),
            scalars: TypeList::new(&[DType::I32, DType::I32]),
            variant,
            index: IndexWidth::I32,
        }));
        v.push(crate::kernels::KernelSpec::from(ElementwiseSpec {
            op: "qlerp".into(),
            body: QLERP_BODY.into(),
            preamble: Text::EMPTY,
            inputs: TypeList::new(&[d, d, DType::F64]),
            outputs: TypeList::new(&[d]),
            scalars: TypeList::new(&[DType::I32]),
            variant,
            index: IndexWidth::I32,
        }));
    }
    v
}

/// The quantiles `qs` (each in `[0, 1]`) of `a` over `axis` (all elements when `None`):
/// shape `(qs.len(), ...)`, the rest being `a`'s shape without `axis` (kept as 1 with
/// `keepdims`; every axis as 1 for `axis == None`).
fn quantile_impl<T: FloatElement + NumElement>(
    op: &'static str,
    a: &DeviceArray<T>,
    qs: &[f64],
    axis: Option<isize>,
    keepdims: bool,
    method: QuantileMethod,
    skip_nan: bool,
) -> Result<DeviceArray<T>> {
    if qs.is_empty() {
        return Err(Error::invalid(op, "no quantile asked for"));
    }
    if let Some(q) = qs.iter().find(|q| !(0.0..=1.0).contains(*q)) {
        return Err(Error::invalid(
            op,
            format!("quantiles must be in [0, 1] (percentiles in [0, 100]), not {q}"),
        ));
    }
    let nd = a.ndim();
    let (moved, rest, kept) = match axis {
        None => (a.reshape([a.size()])?, vec![], vec![1usize; nd]),
        Some(ax) => {
            let k = normalize_axis(op, ax, nd)?;
            let mut perm: Vec<isize> = (0..nd as isize).filter(|&i| i != k as isize).collect();
            perm.push(k as isize);
            let rest: Vec<usize> = (0..nd).filter(|&i| i != k).map(|i| a.shape()[i]).collect();
            let mut kept = a.shape().to_vec();
            kept[k] = 1;
            (a.permute(&perm[..])?, rest, kept)
        }
    };
    let n = *moved.shape().last().unwrap_or(&1);
    if n == 0 {
        return Err(Error::EmptyReduction {
            op,
            shape: a.shape().to_vec(),
        });
    }
    let rows: usize = rest.iter().product();
    let nq = qs.len();
    let mut out_shape = vec![nq];
    out_shape.extend(if keepdims { &kept } else { &rest });
    let device = a.device();
    if rows == 0 {
        return DeviceArray::<T>::alloc_for(op, device, &out_shape);
    }
    let sorted = moved.sort(-1)?.reshape([rows, n])?;
    let counts = if skip_nan {
        not_nan_counts(&sorted)?
    } else {
        DeviceArray::<i64>::full(device, [rows, 1], n as i64)?
    };
    let last = sorted.slice([
        SliceElem::Range {
            start: None,
            end: None,
            step: 1,
        },
        SliceElem::Range {
            start: Some(n as isize - 1),
            end: None,
            step: 1,
        },
    ])?;
    let q = DeviceArray::<f64>::from_host(device, qs, [1, nq])?;
    let shape = [rows, nq];
    let lo = DeviceArray::<i64>::alloc_for(op, device, &shape)?;
    let hi = DeviceArray::<i64>::alloc_for(op, device, &shape)?;
    let g = DeviceArray::<f64>::alloc_for(op, device, &shape)?;
    let code = Code {
        op: Text::Static("qindex"),
        body: Text::Static(QINDEX_BODY),
        preamble: Text::Static(QINDEX_PREAMBLE),
    };
    run_code(
        device,
        &code,
        &[lo.operand()?, hi.operand()?, g.operand()?],
        &[
            counts.operand_as(&shape)?,
            q.operand_as(&shape)?,
            last.operand_as(&shape)?,
        ],
        &[Scalar::of(method.code()), Scalar::of(i32::from(!skip_nan))],
    )?;
    let vlo = sorted.take_along_axis(&lo, 1)?;
    let vhi = sorted.take_along_axis(&hi, 1)?;
    let out = DeviceArray::<T>::alloc_for(op, device, &shape)?;
    crate::ops::elementwise::run(
        device,
        "qlerp",
        QLERP_BODY,
        &[out.operand()?],
        &[vlo.operand()?, vhi.operand()?, g.operand()?],
        &[Scalar::of(i32::from(method.is_discrete()))],
    )?;
    out.t().contiguous()?.reshape(out_shape)
}

/// The number of non-NaN elements of each row of the 2-D `x`, shape `(rows, 1)`.
fn not_nan_counts<T: FloatElement + NumElement>(x: &DeviceArray<T>) -> Result<DeviceArray<i64>> {
    let device = x.device();
    let p = crate::ops::reduce::plan_reduce(
        x.layout(),
        Some(&[1]),
        true,
        false,
        device.multiprocessor_count(),
    )?;
    let out = DeviceArray::<i64>::alloc_for("nanquantile", device, &p.out_shape)?;
    crate::ops::reduce::run_def(
        device,
        &Text::Static("notnan_count"),
        &crate::ops::catalogue::not_nan_count_def(),
        &p,
        &x.operand()?,
        &out.operand()?,
        None,
        &[],
    )?;
    Ok(out)
}

/// Quantiles of `a` (NumPy's `quantile`): for each `q` in `q` (each in `[0, 1]`), over
/// `axis` (the whole array when `None`), by `method`. The result has shape
/// `(q.len(), ...)`: the quantile axis first, then `a`'s shape without `axis` (with
/// `keepdims`, `axis` kept with extent 1; every axis for `None`). A slice holding NaN
/// gives NaN (see [`nanquantile`]).
///
/// One sort per row, then NumPy's indices and interpolation (see the module's notes);
/// the interpolation runs in the element type's precision (`f32` for `f16`/`bf16`/`f32`),
/// as NumPy with a scalar `q`.
///
/// ```no_run
/// use cuarray::{stats::QuantileMethod, DeviceArray};
/// let dev = cuarray::Device::new(0)?;
/// let a = DeviceArray::from_host(&dev, &[1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3])?;
/// let q = cuarray::quantile(&a, &[0.5], None, false, QuantileMethod::Linear)?;
/// assert_eq!(q.to_host()?, vec![3.5]);
/// let q = cuarray::quantile(&a, &[0.0, 1.0], Some(-1), false, QuantileMethod::Linear)?;
/// assert_eq!((q.shape(), q.to_host()?), (&[2usize, 2][..], vec![1.0, 4.0, 3.0, 6.0]));
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::EmptyReduction`] for an empty `a` (or an empty `axis`);
/// [`Error::InvalidArgument`] for an empty `q` or a `q` outside `[0, 1]` (NaN included);
/// [`Error::AxisOutOfRange`] for an axis outside `-ndim..ndim`.
pub fn quantile<T: FloatElement + NumElement>(
    a: &DeviceArray<T>,
    q: &[f64],
    axis: Option<isize>,
    keepdims: bool,
    method: QuantileMethod,
) -> Result<DeviceArray<T>> {
    quantile_impl("quantile", a, q, axis, keepdims, method, false)
}

/// [`quantile`] ignoring NaN (NumPy's `nanquantile`): each slice's quantiles among its
/// non-NaN elements; NaN for an all-NaN slice.
///
/// ```no_run
/// use cuarray::{stats::QuantileMethod, DeviceArray};
/// let dev = cuarray::Device::new(0)?;
/// let a = DeviceArray::from_slice(&dev, &[1.0f32, f32::NAN, 3.0])?;
/// let q = cuarray::nanquantile(&a, &[0.5], None, false, QuantileMethod::Linear)?;
/// assert_eq!(q.to_host()?, vec![2.0]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// As [`quantile`].
pub fn nanquantile<T: FloatElement + NumElement>(
    a: &DeviceArray<T>,
    q: &[f64],
    axis: Option<isize>,
    keepdims: bool,
    method: QuantileMethod,
) -> Result<DeviceArray<T>> {
    quantile_impl("nanquantile", a, q, axis, keepdims, method, true)
}

fn percent(op: &'static str, p: &[f64]) -> Result<Vec<f64>> {
    if let Some(x) = p.iter().find(|x| !(0.0..=100.0).contains(*x)) {
        return Err(Error::invalid(
            op,
            format!("percentiles must be in [0, 100], not {x}"),
        ));
    }
    Ok(p.iter().map(|x| x / 100.0).collect())
}

/// [`quantile`] with `q` in percent, each in `[0, 100]` (NumPy's `percentile`).
///
/// ```no_run
/// use cuarray::{stats::QuantileMethod, DeviceArray};
/// let dev = cuarray::Device::new(0)?;
/// let a = DeviceArray::from_slice(&dev, &[1.0f64, 2.0, 3.0, 4.0, 5.0])?;
/// let p = cuarray::percentile(&a, &[25.0, 50.0], None, false, QuantileMethod::Lower)?;
/// assert_eq!(p.to_host()?, vec![2.0, 3.0]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// As [`quantile`] (a `q` outside `[0, 100]`).
pub fn percentile<T: FloatElement + NumElement>(
    a: &DeviceArray<T>,
    q: &[f64],
    axis: Option<isize>,
    keepdims: bool,
    method: QuantileMethod,
) -> Result<DeviceArray<T>> {
    let q = percent("percentile", q)?;
    quantile_impl("percentile", a, &q, axis, keepdims, method, false)
}

/// [`nanquantile`] with `q` in percent (NumPy's `nanpercentile`).
///
/// ```no_run
/// use cuarray::{stats::QuantileMethod, DeviceArray};
/// let dev = cuarray::Device::new(0)?;
/// let a = DeviceArray::from_slice(&dev, &[f64::NAN, 2.0, 4.0])?;
/// let p = cuarray::nanpercentile(&a, &[50.0], None, false, QuantileMethod::Linear)?;
/// assert_eq!(p.to_host()?, vec![3.0]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// As [`percentile`].
pub fn nanpercentile<T: FloatElement + NumElement>(
    a: &DeviceArray<T>,
    q: &[f64],
    axis: Option<isize>,
    keepdims: bool,
    method: QuantileMethod,
) -> Result<DeviceArray<T>> {
    let q = percent("nanpercentile", q)?;
    quantile_impl("nanpercentile", a, &q, axis, keepdims, method, true)
}

impl<T: FloatElement + NumElement> DeviceArray<T> {
    fn median_of(
        &self,
        op: &'static str,
        axis: Option<isize>,
        keepdims: bool,
        nan: bool,
    ) -> Result<Self> {
        let q = quantile_impl(
            op,
            self,
            &[0.5],
            axis,
            keepdims,
            QuantileMethod::Linear,
            nan,
        )?;
        let shape = q.shape()[1..].to_vec();
        q.reshape(shape)
    }

    /// Median of all elements, a 0-d array (NumPy's `median`; NaN when any element is
    /// NaN). One sort and a pick (see [`quantile`]).
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let a = cuarray::DeviceArray::from_slice(&dev, &[3.0f32, 1.0, 4.0, 1.5])?;
    /// assert_eq!(a.median()?.to_scalar()?, 2.25);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::EmptyReduction`] for an empty array.
    pub fn median(&self) -> Result<Self> {
        self.median_of("median", None, false, false)
    }
    /// Median along `axis` (negative counts from the end).
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let a = cuarray::DeviceArray::from_host(&dev, &[3.0f32, 1.0, 2.0, 8.0, 6.0, 7.0], &[2, 3])?;
    /// assert_eq!(a.median_axis(1)?.to_host()?, vec![2.0, 7.0]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::EmptyReduction`] when the axis is empty; [`Error::AxisOutOfRange`].
    pub fn median_axis(&self, axis: isize) -> Result<Self> {
        self.median_of("median", Some(axis), false, false)
    }
    /// Median along `axis`, kept with extent 1.
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let a = cuarray::DeviceArray::from_host(&dev, &[3.0f32, 1.0, 2.0, 8.0, 6.0, 7.0], &[2, 3])?;
    /// assert_eq!(a.median_keepdim(1)?.shape(), &[2, 1]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`median_axis`](Self::median_axis).
    pub fn median_keepdim(&self, axis: isize) -> Result<Self> {
        self.median_of("median", Some(axis), true, false)
    }
    /// Median of the non-NaN elements (NumPy's `nanmedian`; NaN when all are NaN).
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let a = cuarray::DeviceArray::from_slice(&dev, &[3.0f32, f32::NAN, 1.0])?;
    /// assert_eq!(a.nanmedian()?.to_scalar()?, 2.0);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::EmptyReduction`] for an empty array.
    pub fn nanmedian(&self) -> Result<Self> {
        self.median_of("nanmedian", None, false, true)
    }
    /// [`nanmedian`](Self::nanmedian) along `axis`.
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let a = cuarray::DeviceArray::from_host(&dev, &[3.0f32, f32::NAN, 2.0, 8.0, 6.0, 7.0], &[2, 3])?;
    /// assert_eq!(a.nanmedian_axis(1)?.to_host()?, vec![2.5, 7.0]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::EmptyReduction`] when the axis is empty; [`Error::AxisOutOfRange`].
    pub fn nanmedian_axis(&self, axis: isize) -> Result<Self> {
        self.median_of("nanmedian", Some(axis), false, true)
    }
    /// [`nanmedian`](Self::nanmedian) along `axis`, kept with extent 1.
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let a = cuarray::DeviceArray::from_host(&dev, &[3.0f32, f32::NAN, 2.0, 8.0, 6.0, 7.0], &[2, 3])?;
    /// assert_eq!(a.nanmedian_keepdim(0)?.shape(), &[1, 3]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`nanmedian_axis`](Self::nanmedian_axis).
    pub fn nanmedian_keepdim(&self, axis: isize) -> Result<Self> {
        self.median_of("nanmedian", Some(axis), true, true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use QuantileMethod as M;

    fn numpy_quantile(x: &[f64], q: f64, m: QuantileMethod) -> f64 {
        let mut s = x.to_vec();
        s.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let (p, n, g) = quantile_index(m, s.len(), q);
        if m.is_discrete() {
            s[p]
        } else {
            lerp(s[p], s[n], g)
        }
    }

    #[test]
    fn indices_follow_numpy() {
        // Values from NumPy 2.4: np.quantile(np.arange(5.), q, method=m) and of [0..4).
        let five = [0.0, 1.0, 2.0, 3.0, 4.0];
        let four = [0.0, 1.0, 2.0, 3.0];
        let cases: &[(QuantileMethod, &[f64], f64, f64)] = &[
            (M::Linear, &five, 0.3, 1.2),
            (M::Linear, &four, 0.5, 1.5),
            (M::Lower, &four, 0.5, 1.0),
            (M::Higher, &four, 0.5, 2.0),
            (M::Nearest, &four, 0.5, 2.0),
            (M::Nearest, &five, 0.375, 2.0),
            (M::Nearest, &five, 0.125, 0.0),
            (M::Midpoint, &four, 0.5, 1.5),
            (M::Midpoint, &five, 0.5, 2.0),
            (M::InvertedCdf, &four, 0.5, 1.0),
            (M::InvertedCdf, &four, 0.6, 2.0),
            (M::InvertedCdf, &four, 0.0, 0.0),
            (M::AveragedInvertedCdf, &four, 0.5, 1.5),
            (M::AveragedInvertedCdf, &four, 0.6, 2.0),
            (M::ClosestObservation, &four, 0.5, 1.0),
            (M::ClosestObservation, &five, 0.5, 1.0),
            (M::ClosestObservation, &four, 0.375, 1.0),
            (M::InterpolatedInvertedCdf, &four, 0.5, 1.0),
            (M::Hazen, &four, 0.5, 1.5),
            (M::Hazen, &four, 0.1, 0.0),
            (M::Weibull, &four, 0.3, 0.5),
            (M::MedianUnbiased, &four, 0.3, 0.6333333333333333),
            (M::NormalUnbiased, &four, 0.3, 0.6499999999999999),
            (M::Linear, &five, 1.0, 4.0),
            (M::MedianUnbiased, &five, 1.0, 4.0),
            (M::Weibull, &five, 0.0, 0.0),
        ];
        for &(m, x, q, want) in cases {
            let got = numpy_quantile(x, q, m);
            assert!(
                (got - want).abs() < 1e-12,
                "{m:?} q={q} of {x:?}: {got} != {want}"
            );
        }
    }

    #[test]
    fn lerp_matches_numpy() {
        assert_eq!(lerp(1.0, 3.0, 0.25), 1.5);
        assert_eq!(lerp(1.0, 3.0, 0.75), 2.5);
        assert!(lerp(f64::INFINITY, f64::INFINITY, 0.0).is_nan());
    }
}
