//! Covariance and correlation (centring, then one cuBLAS GEMM through `matmul`), binning
//! with explicit edges, interpolation, gradient and cross products.

use crate::array::DeviceArray;
use crate::element::{DType, FloatElement, IntElement};
use crate::kernels::abi::Scalar;
use crate::libs::blas::GemmElement;
use crate::ops::gather;
use crate::shape::{normalize_axis, SliceElem};
use crate::{Error, Result};

/// `start..end` along one axis of an `nd`-dimensional array, whole ranges elsewhere.
fn along(nd: usize, axis: usize, start: Option<isize>, end: Option<isize>) -> Vec<SliceElem> {
    (0..nd)
        .map(|k| SliceElem::Range {
            start: if k == axis { start } else { None },
            end: if k == axis { end } else { None },
            step: 1,
        })
        .collect()
}

/// One index along one axis (the axis removed), whole ranges elsewhere.
fn at(nd: usize, axis: usize, i: isize) -> Vec<SliceElem> {
    (0..nd)
        .map(|k| {
            if k == axis {
                SliceElem::Index(i)
            } else {
                SliceElem::Range {
                    start: None,
                    end: None,
                    step: 1,
                }
            }
        })
        .collect()
}

/// Centred variables (one per row) and the divisor `n - ddof` of [`cov`].
fn centred<T: FloatElement + GemmElement>(
    m: &DeviceArray<T>,
    rowvar: bool,
    ddof: Option<usize>,
) -> Result<(DeviceArray<T>, f64)> {
    let x = match m.ndim() {
        1 => m.reshape([1, m.size()])?,
        2 if rowvar => m.clone(),
        2 => m.t(),
        _ => {
            return Err(Error::invalid(
                "cov",
                format!("m must be 1-D or 2-D, not of shape {:?}", m.shape()),
            ))
        }
    };
    let n = x.shape()[1];
    let fact = n as f64 - ddof.unwrap_or(1) as f64;
    let xc = (&x - &x.mean_keepdim(1)?)?;
    Ok((xc, fact))
}

/// Covariance matrix of the variables of `m` (NumPy's `cov`): each row a variable and each
/// column an observation (`rowvar`), or the transpose; `ddof` defaults to 1 (the unbiased
/// estimate). A 1-D `m` is one variable (a 0-d result). The variables are centred on the
/// device, then one GEMM (cuBLAS, the centred matrix times its transpose) and a scaling by
/// `1 / (n - ddof)` (±inf or NaN where `n <= ddof`, as NumPy's after its warning).
///
/// ```no_run
/// let dev = cuarray::Device::new(0)?;
/// let m = cuarray::DeviceArray::from_host(&dev, &[0.0f64, 1.0, 2.0, 2.0, 1.0, 0.0], &[2, 3])?;
/// assert_eq!(cuarray::cov(&m, true, None)?.to_host()?, vec![1.0, -1.0, -1.0, 1.0]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] when `m` has more than 2 dimensions.
pub fn cov<T: FloatElement + GemmElement>(
    m: &DeviceArray<T>,
    rowvar: bool,
    ddof: Option<usize>,
) -> Result<DeviceArray<T>> {
    let (xc, fact) = centred(m, rowvar, ddof)?;
    let c = (xc.matmul(&xc.t())? * T::from_f64(1.0 / fact))?;
    if m.ndim() == 1 {
        c.reshape([0usize; 0])
    } else {
        Ok(c)
    }
}

/// Pearson correlation coefficients of the variables of `m` (NumPy's `corrcoef`): the
/// covariance divided by the outer product of the standard deviations, clipped to
/// `[-1, 1]`.
///
/// ```no_run
/// let dev = cuarray::Device::new(0)?;
/// let m = cuarray::DeviceArray::from_host(&dev, &[0.0f64, 1.0, 2.0, 4.0, 2.0, 0.0], &[2, 3])?;
/// assert_eq!(cuarray::corrcoef(&m, true)?.to_host()?, vec![1.0, -1.0, -1.0, 1.0]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// As [`cov`].
pub fn corrcoef<T: FloatElement + GemmElement>(
    m: &DeviceArray<T>,
    rowvar: bool,
) -> Result<DeviceArray<T>> {
    let (xc, fact) = centred(m, rowvar, None)?;
    let s = T::from_f64(1.0 / fact);
    let c = (xc.matmul(&xc.t())? * s)?;
    let v = xc.shape()[0];
    let d = ((&xc * &xc)?.sum_axis(1)? * s)?.sqrt()?;
    let r = ((&c / &d.reshape([v, 1])?)? / &d.reshape([1, v])?)?;
    let r = r.clip(T::from_f64(-1.0), T::from_f64(1.0))?;
    if m.ndim() == 1 {
        r.reshape([0usize; 0])
    } else {
        Ok(r)
    }
}

/// The `bins + 1` equal-width bin edges over `range` (or the data's smallest and largest
/// elements), NumPy's `histogram_bin_edges` with an integer `bins`.
///
/// # Synchronization
/// Without a range, the smallest and largest elements are read back (one wait).
///
/// ```no_run
/// let dev = cuarray::Device::new(0)?;
/// let a = cuarray::DeviceArray::from_slice(&dev, &[1.0f64, 2.0, 5.0])?;
/// assert_eq!(cuarray::histogram_bin_edges(&a, 4, None)?.to_host()?, vec![1.0, 2.0, 3.0, 4.0, 5.0]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// As [`histogram`](crate::histogram).
pub fn histogram_bin_edges<T: FloatElement>(
    a: &DeviceArray<T>,
    bins: usize,
    range: Option<(T, T)>,
) -> Result<DeviceArray<T>> {
    Ok(crate::histogram(a, bins, range)?.1)
}

/// Body of the bin index of `histogram_with`: `in0` the count of edges `<= x`
/// (`searchsorted(edges, x, right)`), `in1` x, `in2` the last edge; `s0` the number of bins
/// (also the index of the bin that collects what is not counted).
pub(crate) const HIST_BIN_BODY: &str = "long long i = in0 - 1; \
if (in1 == in2) i = s0 - 1; \
out0 = (in1 != in1 || i < 0 || i >= s0) ? s0 : i;";

/// A histogram of `a` (flattened) over the increasing bin `edges` (NumPy's `histogram` with
/// an array of edges): bin `i` counts `edges[i] <= x < edges[i + 1]`, the last bin also its
/// right edge; NaN and values outside the edges are not counted. With `weights` (of `a`'s
/// shape) each value adds its weight; with `density` the result is divided by the total
/// and the bin widths, so that it integrates to 1. Counts and sums come back as `f64`.
///
/// One pass over the data: a binary search per value among the edges, counted in shared
/// memory per block when the edges fit (some 4000 edges of `f64`), else with global atomics.
///
/// ```no_run
/// let dev = cuarray::Device::new(0)?;
/// let a = cuarray::DeviceArray::from_slice(&dev, &[0.5f64, 1.5, 1.7, 3.0, 9.0])?;
/// let e = cuarray::DeviceArray::from_slice(&dev, &[0.0f64, 1.0, 2.0, 3.0])?;
/// assert_eq!(cuarray::histogram_with(&a, &e, None, false)?.to_host()?, vec![1.0, 2.0, 1.0]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] when `edges` is not 1-D with at least 2 edges, or `weights`
/// does not have `a`'s shape; [`Error::DeviceMismatch`].
pub fn histogram_with<T: FloatElement>(
    a: &DeviceArray<T>,
    edges: &DeviceArray<T>,
    weights: Option<&DeviceArray<T>>,
    density: bool,
) -> Result<DeviceArray<f64>> {
    const OP: &str = "histogram_with";
    if edges.ndim() != 1 || edges.size() < 2 {
        return Err(Error::invalid(
            OP,
            format!(
                "edges must be 1-D with at least 2 values, not of shape {:?}",
                edges.shape()
            ),
        ));
    }
    if weights.is_some_and(|w| w.shape() != a.shape()) {
        return Err(Error::invalid(OP, "weights must have the array's shape"));
    }
    edges.used_by(OP, a.device())?;
    let device = a.device();
    let nb = edges.size() - 1;
    let e = edges.contiguous()?;
    let hist = match weights {
        Some(w) => {
            w.used_by(OP, device)?;
            let w = w.astype::<f64>()?.contiguous()?;
            let sums = DeviceArray::<f64>::zeros(device, [nb])?;
            gather::count_edges(
                device,
                &a.operand()?,
                Some(&w.operand()?),
                &e.operand()?,
                &sums.operand()?,
            )?;
            sums
        }
        None => {
            let counts = DeviceArray::<i64>::zeros(device, [nb])?;
            gather::count_edges(
                device,
                &a.operand()?,
                None,
                &e.operand()?,
                &counts.operand()?,
            )?;
            counts.astype::<f64>()?
        }
    };
    if !density {
        return Ok(hist);
    }
    let widths = edges.astype::<f64>()?.diff(1, 0)?;
    (&hist / &widths)? / &hist.sum()?
}

/// The bin of each element of the 1-D `x` among the increasing `edges` (`edges.len() - 1`
/// bins, the last one closed), `edges.len() - 1` for what is not counted (NaN, outside).
fn bin_index<T: FloatElement>(
    x: &DeviceArray<T>,
    edges: &DeviceArray<T>,
) -> Result<DeviceArray<i64>> {
    let device = x.device();
    let nb = edges.size() - 1;
    let pos = crate::searchsorted(edges, x, true)?;
    let last = edges.slice([SliceElem::Range {
        start: Some(-1),
        end: None,
        step: 1,
    }])?;
    let bin = DeviceArray::<i64>::alloc_for("histogram", device, x.shape())?;
    crate::ops::elementwise::run(
        device,
        "hist_bin",
        HIST_BIN_BODY,
        &[bin.operand()?],
        &[pos.operand()?, x.operand()?, last.operand_as(x.shape())?],
        &[Scalar::of(nb as i64)],
    )?;
    Ok(bin)
}

/// A 2-D histogram of the points `(x, y)` (NumPy's `histogram2d` with integer bins):
/// `bins.0 x bins.1` equal-width bins over `range` (or each coordinate's smallest and
/// largest values), the last bin of each axis closed. Returns the counts (`f64`, shape
/// `(bins.0, bins.1)`) and the two edge arrays.
///
/// # Synchronization
/// Without a range, the coordinates' extremes are read back (a wait for the GPU).
///
/// ```no_run
/// let dev = cuarray::Device::new(0)?;
/// let x = cuarray::DeviceArray::from_slice(&dev, &[0.0f64, 0.4, 1.0, 1.0])?;
/// let y = cuarray::DeviceArray::from_slice(&dev, &[0.0f64, 1.0, 0.2, 1.0])?;
/// let (h, xe, ye) = cuarray::histogram2d(&x, &y, (2, 2), None)?;
/// assert_eq!(h.to_host()?, vec![1.0, 1.0, 1.0, 1.0]);
/// assert_eq!(xe.to_host()?, vec![0.0, 0.5, 1.0]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] when `x` and `y` are not 1-D of one length, for a zero bin
/// count, or a range that is not finite.
#[allow(clippy::type_complexity)]
pub fn histogram2d<T: FloatElement>(
    x: &DeviceArray<T>,
    y: &DeviceArray<T>,
    bins: (usize, usize),
    range: Option<((T, T), (T, T))>,
) -> Result<(DeviceArray<f64>, DeviceArray<T>, DeviceArray<T>)> {
    const OP: &str = "histogram2d";
    if x.ndim() != 1 || y.shape() != x.shape() {
        return Err(Error::invalid(
            OP,
            format!(
                "x and y must be 1-D of one length (shapes {:?} and {:?})",
                x.shape(),
                y.shape()
            ),
        ));
    }
    let device = x.device();
    let xe = histogram_bin_edges(x, bins.0, range.map(|r| r.0))?;
    let ye = histogram_bin_edges(y, bins.1, range.map(|r| r.1))?;
    let (bx, by) = (bins.0 as i64, bins.1 as i64);
    let ix = bin_index(x, &xe)?;
    let iy = bin_index(y, &ye)?;
    let flat = ((&ix * (by + 1))? + &iy)?;
    let counts = DeviceArray::<f64>::zeros(device, [((bx + 1) * (by + 1)) as usize])?;
    let ones = DeviceArray::<f64>::ones(device, [1])?.broadcast_to([x.size()])?;
    counts.index_add(0, &flat, &ones)?;
    let h = counts
        .reshape([bins.0 + 1, bins.1 + 1])?
        .slice([
            SliceElem::Range {
                start: Some(0),
                end: Some(bx as isize),
                step: 1,
            },
            SliceElem::Range {
                start: Some(0),
                end: Some(by as isize),
                step: 1,
            },
        ])?
        .contiguous()?;
    Ok((h, xe, ye))
}

/// Sums of `weights` per value `0, 1, ..., max(x)` of the 1-D non-negative integers `x`,
/// at least `minlength` of them (NumPy's `bincount` with weights), as `f64`.
///
/// # Synchronization
/// The result's length depends on the data: the smallest and largest values are read back
/// (one wait for the GPU) before the atomic scatter-add.
///
/// ```no_run
/// let dev = cuarray::Device::new(0)?;
/// let x = cuarray::DeviceArray::from_slice(&dev, &[1u8, 3, 1, 0])?;
/// let w = cuarray::DeviceArray::from_slice(&dev, &[0.5f64, 1.0, 2.0, 3.0])?;
/// assert_eq!(cuarray::bincount_weighted(&x, &w, 0)?.to_host()?, vec![3.0, 2.5, 0.0, 1.0]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] when `x` is not 1-D, holds a negative value, or `weights`
/// does not have its shape.
pub fn bincount_weighted<T: IntElement, W: FloatElement>(
    x: &DeviceArray<T>,
    weights: &DeviceArray<W>,
    minlength: usize,
) -> Result<DeviceArray<f64>> {
    const OP: &str = "bincount_weighted";
    if x.ndim() != 1 || weights.shape() != x.shape() {
        return Err(Error::invalid(
            OP,
            format!(
                "x must be 1-D and the weights of its shape (x {:?}, weights {:?})",
                x.shape(),
                weights.shape()
            ),
        ));
    }
    let device = x.device();
    if x.size() == 0 {
        return DeviceArray::<f64>::zeros(device, [minlength]);
    }
    let idx = x.astype::<i64>()?;
    let (lo, hi) = (idx.min()?.to_scalar()?, idx.max()?.to_scalar()?);
    if lo < 0 || (T::DTYPE == DType::U64 && hi < 0) {
        return Err(Error::invalid(OP, "x must hold non-negative values"));
    }
    let n = (hi as usize + 1).max(minlength);
    let out = DeviceArray::<f64>::zeros(device, [n])?;
    out.index_add(0, &idx, &weights.astype::<f64>()?)?;
    Ok(out)
}

/// One-dimensional piecewise-linear interpolation (NumPy's `interp`): the values at `x` of
/// the function through the points `(xp, fp)` (`xp` increasing); `left` / `right` (default
/// `fp[0]` / `fp[-1]`) below and above `xp`. NaN in `x` gives NaN. One kernel: a binary
/// search per value (as `searchsorted`, narrowed by splitters in shared memory), the two
/// neighbouring points, and NumPy's slope rules, in `f64`.
///
/// ```no_run
/// let dev = cuarray::Device::new(0)?;
/// let xp = cuarray::DeviceArray::from_slice(&dev, &[1.0f64, 2.0, 3.0])?;
/// let fp = cuarray::DeviceArray::from_slice(&dev, &[3.0f64, 2.0, 0.0])?;
/// let x = cuarray::DeviceArray::from_slice(&dev, &[0.0f64, 1.0, 1.5, 2.5, 3.14])?;
/// let y = cuarray::interp(&x, &xp, &fp, None, None)?.to_host()?;
/// assert_eq!(y, vec![3.0, 3.0, 2.5, 1.0, 0.0]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] when `xp` and `fp` are not 1-D of one non-zero length.
pub fn interp<T: FloatElement>(
    x: &DeviceArray<T>,
    xp: &DeviceArray<T>,
    fp: &DeviceArray<T>,
    left: Option<T>,
    right: Option<T>,
) -> Result<DeviceArray<T>> {
    const OP: &str = "interp";
    if xp.ndim() != 1 || fp.shape() != xp.shape() || xp.size() == 0 {
        return Err(Error::invalid(
            OP,
            format!(
                "xp and fp must be 1-D of one non-zero length (xp {:?}, fp {:?})",
                xp.shape(),
                fp.shape()
            ),
        ));
    }
    xp.used_by(OP, x.device())?;
    fp.used_by(OP, x.device())?;
    let out = DeviceArray::<T>::alloc_for(OP, x.device(), x.shape())?;
    crate::ops::sort::interp(
        x.device(),
        (&xp.operand()?, &fp.operand()?),
        &x.operand()?,
        &out.operand()?,
        (left.map(|v| v.to_f64()), right.map(|v| v.to_f64())),
    )?;
    Ok(out)
}

/// The gradient of `a` along `axis` with sample spacing `spacing` (NumPy's `gradient` with
/// one axis and `edge_order=1`): central differences inside, one-sided at the two ends.
///
/// ```no_run
/// let dev = cuarray::Device::new(0)?;
/// let a = cuarray::DeviceArray::from_slice(&dev, &[1.0f64, 2.0, 4.0, 7.0, 11.0])?;
/// assert_eq!(cuarray::gradient(&a, 1.0, 0)?.to_host()?, vec![1.0, 1.5, 2.5, 3.5, 4.0]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] when the axis has fewer than 2 elements;
/// [`Error::AxisOutOfRange`].
pub fn gradient<T: FloatElement>(
    a: &DeviceArray<T>,
    spacing: f64,
    axis: isize,
) -> Result<DeviceArray<T>> {
    let nd = a.ndim();
    let k = normalize_axis("gradient", axis, nd)?;
    if a.shape()[k] < 2 {
        return Err(Error::invalid(
            "gradient",
            "the axis must have at least 2 elements (edge_order 1)",
        ));
    }
    let inv = T::from_f64(1.0 / spacing);
    let first = ((&a.slice(along(nd, k, Some(1), Some(2)))?
        - &a.slice(along(nd, k, Some(0), Some(1)))?)?
        * inv)?;
    let last = ((&a.slice(along(nd, k, Some(-1), None))?
        - &a.slice(along(nd, k, Some(-2), Some(-1)))?)?
        * inv)?;
    if a.shape()[k] == 2 {
        return crate::concatenate(&[&first, &last], k as isize);
    }
    let mid = ((&a.slice(along(nd, k, Some(2), None))?
        - &a.slice(along(nd, k, None, Some(-2)))?)?
        * T::from_f64(0.5 / spacing))?;
    crate::concatenate(&[&first, &mid, &last], k as isize)
}

/// The cross product of 3-vectors along `axis` of `a` and `b` (NumPy's `cross` with
/// `axisa = axisb = axisc = axis`; the other axes broadcast). Vectors of 2 components are
/// not supported.
///
/// ```no_run
/// let dev = cuarray::Device::new(0)?;
/// let a = cuarray::DeviceArray::from_slice(&dev, &[1.0f32, 0.0, 0.0])?;
/// let b = cuarray::DeviceArray::from_slice(&dev, &[0.0f32, 1.0, 0.0])?;
/// assert_eq!(cuarray::cross(&a, &b, -1)?.to_host()?, vec![0.0, 0.0, 1.0]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] when `axis` does not have 3 elements in both arrays or they
/// have different numbers of dimensions; [`Error::Broadcast`].
pub fn cross<T: crate::NumElement>(
    a: &DeviceArray<T>,
    b: &DeviceArray<T>,
    axis: isize,
) -> Result<DeviceArray<T>> {
    let nd = a.ndim();
    let k = normalize_axis("cross", axis, nd)?;
    if b.ndim() != nd || a.shape()[k] != 3 || b.shape()[k] != 3 {
        return Err(Error::invalid(
            "cross",
            format!(
                "both arrays need 3 components along axis {axis} (shapes {:?} and {:?})",
                a.shape(),
                b.shape()
            ),
        ));
    }
    let ac: Vec<DeviceArray<T>> = (0..3)
        .map(|i| a.slice(at(nd, k, i)))
        .collect::<Result<_>>()?;
    let bc: Vec<DeviceArray<T>> = (0..3)
        .map(|i| b.slice(at(nd, k, i)))
        .collect::<Result<_>>()?;
    let comp =
        |i: usize, j: usize| -> Result<DeviceArray<T>> { (&ac[i] * &bc[j])? - &(&ac[j] * &bc[i])? };
    let c0 = comp(1, 2)?;
    let c1 = comp(2, 0)?;
    let c2 = comp(0, 1)?;
    crate::stack(&[&c0, &c1, &c2], k as isize)
}

/// The element types' kernels of this file, for the NVRTC tier.
pub(crate) fn kernel_specs(d: DType) -> Vec<crate::kernels::KernelSpec> {
    use crate::kernels::family::elementwise::{ElementwiseSpec, Variant};
    use crate::kernels::{IndexWidth, Text, TypeList};
    let mut v = Vec::new();
    for variant in [Variant::Contiguous, Variant::Strided { ndim: 2 }] {
        v.push(crate::kernels::KernelSpec::from(ElementwiseSpec {
            op: "hist_bin".into(),
            body: HIST_BIN_BODY.into(),
            preamble: Text::EMPTY,
            inputs: TypeList::new(&[DType::I64, d, d]),
            outputs: TypeList::new(&[DType::I64]),
            scalars: TypeList::new(&[DType::I64]),
            variant,
            index: IndexWidth::I32,
        }));
    }
    // interp's one-pass kernel (the sort family's search with its epilogue).
    use crate::kernels::family::sort::{SortKernel, SortSpec};
    for (nd, index) in [(1, IndexWidth::I32), (2, IndexWidth::I64)] {
        v.push(crate::kernels::KernelSpec::from(SortSpec {
            kernel: SortKernel::Interp { nd },
            dtype: d,
            descending: false,
            values: false,
            out_keys: true,
            out_idx: false,
            min_blocks: 0,
            index,
        }));
    }
    v
}
