//! Filters: correlations and convolutions, Gaussian, uniform, derivative, minimum,
//! maximum and rank filters (`scipy.ndimage`'s `_filters`).
//!
//! Separable filters run one line pass per axis (`launch::line`); SciPy writes each pass
//! into an array of the input's type, and so do they. Filters with an n-d window
//! (`correlate` with n-d weights, `median_filter`, `rank_filter`) run one window kernel.

use super::launch::{self, Window};
use super::{check_origin, per_axis, Mode};
use crate::array::DeviceArray;
use crate::element::NumElement;
use crate::kernels::family::ndimage::{WindowOp, RANK_MAX};
use crate::shape::normalize_axis;
use crate::{Error, Result};

/// One line pass of a separable filter.
struct Pass {
    axis: usize,
    op: WindowOp,
    taps: Vec<f64>,
    len: usize,
    origin: isize,
}

impl Pass {
    fn taps(axis: usize, taps: Vec<f64>, origin: isize) -> Pass {
        Pass {
            axis,
            op: WindowOp::Sum,
            len: taps.len(),
            taps,
            origin,
        }
    }

    fn boxed(axis: usize, op: WindowOp, len: usize, origin: isize) -> Pass {
        Pass {
            axis,
            op,
            taps: Vec::new(),
            len,
            origin,
        }
    }
}

/// Runs `passes` one after the other, each into a new array of `T` (a copy when there
/// are none, as SciPy returns a new array).
fn separable<T: NumElement>(
    op: &'static str,
    input: &DeviceArray<T>,
    passes: &[Pass],
    mode: Mode,
) -> Result<DeviceArray<T>> {
    if passes.is_empty() {
        return input.copy();
    }
    let mut x = input.contiguous()?;
    for p in passes {
        let out = DeviceArray::<T>::alloc_for(op, input.device(), input.shape())?;
        let start = -p.origin - (p.len / 2) as isize;
        launch::line(op, &x, &out, p.axis, p.op, &p.taps, p.len, start, mode)?;
        x = out;
    }
    Ok(x)
}

/// The 1-d correlation of `input` along `axis` with the host weights `weights` (SciPy's
/// `correlate1d`): `out[i] = sum_j weights[j] * input[i + j - origin - len / 2]` along the
/// axis, the input extended past its edges as `mode` says.
///
/// ```no_run
/// use cuarray::{ndimage::{self, Mode}, DeviceArray};
/// let dev = cuarray::Device::new(0)?;
/// let x = DeviceArray::from_slice(&dev, &[2.0f64, 8.0, 0.0, 4.0, 1.0, 9.0, 9.0, 0.0])?;
/// let y = ndimage::correlate1d(&x, &[1.0, 3.0], 0, Mode::Reflect, 0)?;
/// assert_eq!(y.to_host()?, vec![8.0, 26.0, 8.0, 12.0, 7.0, 28.0, 36.0, 9.0]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] when `weights` is empty or `origin` is outside
/// `-(len / 2)..=(len - 1) / 2`; [`Error::AxisOutOfRange`].
pub fn correlate1d<T: NumElement>(
    input: &DeviceArray<T>,
    weights: &[f64],
    axis: isize,
    mode: Mode,
    origin: isize,
) -> Result<DeviceArray<T>> {
    const OP: &str = "correlate1d";
    line_taps(OP, input, weights.to_vec(), axis, mode, origin)
}

fn line_taps<T: NumElement>(
    op: &'static str,
    input: &DeviceArray<T>,
    taps: Vec<f64>,
    axis: isize,
    mode: Mode,
    origin: isize,
) -> Result<DeviceArray<T>> {
    if taps.is_empty() {
        return Err(Error::invalid(op, "`weights` is empty"));
    }
    let axis = normalize_axis(op, axis, input.ndim())?;
    check_origin(op, origin, taps.len())?;
    separable(op, input, &[Pass::taps(axis, taps, origin)], mode)
}

/// The 1-d convolution of `input` along `axis` with `weights` (SciPy's `convolve1d`):
/// the correlation with the reversed weights and the origin `-origin` (less one for an
/// even count of weights).
///
/// ```no_run
/// use cuarray::{ndimage::{self, Mode}, DeviceArray};
/// let dev = cuarray::Device::new(0)?;
/// let x = DeviceArray::from_slice(&dev, &[2.0f64, 8.0, 0.0, 4.0, 1.0, 9.0, 9.0, 0.0])?;
/// let y = ndimage::convolve1d(&x, &[1.0, 3.0], 0, Mode::Reflect, 0)?;
/// assert_eq!(y.to_host()?, vec![14.0, 24.0, 4.0, 13.0, 12.0, 36.0, 27.0, 0.0]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// As [`correlate1d`].
pub fn convolve1d<T: NumElement>(
    input: &DeviceArray<T>,
    weights: &[f64],
    axis: isize,
    mode: Mode,
    origin: isize,
) -> Result<DeviceArray<T>> {
    const OP: &str = "convolve1d";
    let taps: Vec<f64> = weights.iter().rev().copied().collect();
    let origin = -origin - isize::from(weights.len().is_multiple_of(2));
    line_taps(OP, input, taps, axis, mode, origin)
}

/// The taps of a Gaussian of standard deviation `sigma` (or its `order`-th derivative),
/// `2 radius + 1` of them, as SciPy's `_gaussian_kernel1d`: the sampled Gaussian
/// normalised to sum 1, times the derivative's polynomial. Returned in correlation order
/// (SciPy's kernel reversed), as `gaussian_filter1d` passes it to `correlate1d`.
///
/// ```
/// let w = cuarray::ndimage::filters::gaussian_taps(1.0, 1, 1);
/// assert!((w[0] + 0.274068619061197).abs() < 1e-15 && w[1] == 0.0);
/// ```
pub fn gaussian_taps(sigma: f64, order: usize, radius: usize) -> Vec<f64> {
    let r = radius as isize;
    let sigma2 = sigma * sigma;
    let mut phi: Vec<f64> = (-r..=r)
        .map(|x| (-0.5 / sigma2 * (x * x) as f64).exp())
        .collect();
    let total: f64 = phi.iter().sum();
    phi.iter_mut().for_each(|p| *p /= total);
    if order > 0 {
        // q: the polynomial's coefficients; each step is q' + q p' with p' = -x / sigma^2.
        let mut q = vec![0.0; order + 1];
        q[0] = 1.0;
        for _ in 0..order {
            q = (0..=order)
                .map(|i| {
                    let d = if i < order {
                        (i + 1) as f64 * q[i + 1]
                    } else {
                        0.0
                    };
                    let p = if i > 0 { q[i - 1] / -sigma2 } else { 0.0 };
                    d + p
                })
                .collect();
        }
        for (p, x) in phi.iter_mut().zip(-r..=r) {
            let poly: f64 = q
                .iter()
                .enumerate()
                .map(|(e, c)| (x as f64).powi(e as i32) * c)
                .sum();
            *p *= poly;
        }
    }
    phi.reverse();
    phi
}

fn check_sigma(op: &'static str, sigma: f64, order: usize, truncate: f64) -> Result<()> {
    if sigma < 0.0 || !sigma.is_finite() {
        return Err(Error::invalid(
            op,
            format!("`sigma` {sigma} must be finite and not negative"),
        ));
    }
    if order > 2 {
        return Err(Error::invalid(op, format!("`order` {order} is above 2")));
    }
    if truncate < 0.0 || !truncate.is_finite() {
        return Err(Error::invalid(
            op,
            format!("`truncate` {truncate} must be finite and not negative"),
        ));
    }
    Ok(())
}

/// The pass of a Gaussian along `axis`, `None` when SciPy skips it (sigma below 1e-15).
fn gaussian_pass(axis: usize, sigma: f64, order: usize, truncate: f64) -> Option<Pass> {
    (sigma > 1e-15).then(|| {
        let radius = (truncate * sigma + 0.5) as usize;
        Pass::taps(axis, gaussian_taps(sigma, order, radius), 0)
    })
}

/// A 1-d Gaussian filter (or a derivative of order 1 or 2) along `axis`, SciPy's
/// `gaussian_filter1d`: a correlation with [`gaussian_taps`] of radius
/// `(truncate * sigma + 0.5) as usize`. A `sigma` of 0 returns a copy.
///
/// ```no_run
/// use cuarray::{ndimage::{self, Mode}, DeviceArray};
/// let dev = cuarray::Device::new(0)?;
/// let x = DeviceArray::from_slice(&dev, &[1.0f64, 2.0, 3.0, 4.0, 5.0])?;
/// let y = ndimage::gaussian_filter1d(&x, 1.0, 0, 0, Mode::Reflect, 4.0)?.to_host()?;
/// assert!((y[0] - 1.42704095).abs() < 1e-8); // scipy.ndimage.gaussian_filter1d
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] naming `sigma` (negative or not finite), `order` (above 2)
/// or `truncate`; [`Error::AxisOutOfRange`].
pub fn gaussian_filter1d<T: NumElement>(
    input: &DeviceArray<T>,
    sigma: f64,
    axis: isize,
    order: usize,
    mode: Mode,
    truncate: f64,
) -> Result<DeviceArray<T>> {
    const OP: &str = "gaussian_filter1d";
    check_sigma(OP, sigma, order, truncate)?;
    let axis = normalize_axis(OP, axis, input.ndim())?;
    let passes: Vec<Pass> = gaussian_pass(axis, sigma, order, truncate)
        .into_iter()
        .collect();
    separable(OP, input, &passes, mode)
}

fn gaussian_nd<T: NumElement>(
    op: &'static str,
    input: &DeviceArray<T>,
    sigma: &[f64],
    order: &[usize],
    mode: Mode,
    truncate: f64,
) -> Result<DeviceArray<T>> {
    let nd = input.ndim();
    let sigma = per_axis(op, "sigma", sigma, nd)?;
    let order = per_axis(op, "order", order, nd)?;
    let mut passes = Vec::new();
    for (axis, (&s, &o)) in sigma.iter().zip(&order).enumerate() {
        check_sigma(op, s, o, truncate)?;
        passes.extend(gaussian_pass(axis, s, o, truncate));
    }
    separable(op, input, &passes, mode)
}

/// An n-d Gaussian filter, SciPy's `gaussian_filter`: [`gaussian_filter1d`] along every
/// axis whose sigma passes 1e-15, `sigma` and `order` (0, 1 or 2, a derivative per axis)
/// one value for every axis or one per axis.
///
/// ```no_run
/// use cuarray::{ndimage::{self, Mode}, DeviceArray};
/// let dev = cuarray::Device::new(0)?;
/// let img = DeviceArray::<f32>::ones(&dev, [64, 64])?;
/// let blurred = ndimage::gaussian_filter(&img, &[3.0], &[0], Mode::Reflect, 4.0)?;
/// assert!(blurred.to_host()?.iter().all(|&v| (v - 1.0).abs() < 1e-5));
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// As [`gaussian_filter1d`]; `sigma` or `order` with neither one value nor one per axis.
pub fn gaussian_filter<T: NumElement>(
    input: &DeviceArray<T>,
    sigma: &[f64],
    order: &[usize],
    mode: Mode,
    truncate: f64,
) -> Result<DeviceArray<T>> {
    gaussian_nd("gaussian_filter", input, sigma, order, mode, truncate)
}

/// Sums `derivative(axis)` over the axes in the input's type (SciPy's `generic_laplace`).
fn sum_over_axes<T: NumElement>(
    input: &DeviceArray<T>,
    mut derivative: impl FnMut(usize) -> Result<DeviceArray<T>>,
) -> Result<DeviceArray<T>> {
    if input.ndim() == 0 {
        return input.copy();
    }
    let out = derivative(0)?;
    for axis in 1..input.ndim() {
        out.add_assign(&derivative(axis)?)?;
    }
    Ok(out)
}

/// The Laplace filter from second differences `[1, -2, 1]` along each axis, summed
/// (SciPy's `laplace`).
///
/// ```no_run
/// use cuarray::{ndimage::{self, Mode}, DeviceArray};
/// let dev = cuarray::Device::new(0)?;
/// let x = DeviceArray::from_slice(&dev, &[0.0f64, 1.0, 4.0, 9.0, 16.0])?;
/// assert_eq!(ndimage::laplace(&x, Mode::Nearest)?.to_host()?, vec![1.0, 2.0, 2.0, 2.0, -7.0]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// None beyond the device's.
pub fn laplace<T: NumElement>(input: &DeviceArray<T>, mode: Mode) -> Result<DeviceArray<T>> {
    const OP: &str = "laplace";
    sum_over_axes(input, |axis| {
        separable(
            OP,
            input,
            &[Pass::taps(axis, vec![1.0, -2.0, 1.0], 0)],
            mode,
        )
    })
}

/// The Laplacian of a Gaussian (SciPy's `gaussian_laplace`): the sum over the axes of
/// the Gaussian filter with order 2 along that axis and 0 along the others.
///
/// # Errors
/// As [`gaussian_filter`].
pub fn gaussian_laplace<T: NumElement>(
    input: &DeviceArray<T>,
    sigma: &[f64],
    mode: Mode,
    truncate: f64,
) -> Result<DeviceArray<T>> {
    const OP: &str = "gaussian_laplace";
    let nd = input.ndim();
    let sigma = per_axis(OP, "sigma", sigma, nd)?;
    sum_over_axes(input, |axis| {
        let order: Vec<usize> = (0..nd).map(|d| if d == axis { 2 } else { 0 }).collect();
        gaussian_nd(OP, input, &sigma, &order, mode, truncate)
    })
}

/// The gradient magnitude from Gaussian derivatives (SciPy's
/// `gaussian_gradient_magnitude`): the square root of the sum of the squared first
/// derivatives, each squared and summed in the input's type (integer types wrap, as
/// SciPy), the root then truncated back to it.
///
/// # Errors
/// As [`gaussian_filter`].
pub fn gaussian_gradient_magnitude<T: NumElement>(
    input: &DeviceArray<T>,
    sigma: &[f64],
    mode: Mode,
    truncate: f64,
) -> Result<DeviceArray<T>> {
    const OP: &str = "gaussian_gradient_magnitude";
    let nd = input.ndim();
    let sigma = per_axis(OP, "sigma", sigma, nd)?;
    let sum = sum_over_axes(input, |axis| {
        let order: Vec<usize> = (0..nd).map(|d| usize::from(d == axis)).collect();
        let d = gaussian_nd(OP, input, &sigma, &order, mode, truncate)?;
        &d * &d
    })?;
    sum.astype::<f64>()?.sqrt()?.astype::<T>()
}

/// A 1-d uniform (box mean) filter of `size` along `axis` (SciPy's `uniform_filter1d`):
/// the window's sum divided by `size`.
///
/// ```no_run
/// use cuarray::{ndimage::{self, Mode}, DeviceArray};
/// let dev = cuarray::Device::new(0)?;
/// let x = DeviceArray::from_slice(&dev, &[1u8, 2, 3, 4, 250])?;
/// assert_eq!(ndimage::uniform_filter1d(&x, 4, 0, Mode::Wrap, 0)?.to_host()?, vec![64, 64, 2, 64, 64]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] naming `size` (0) or `origin` (outside the window);
/// [`Error::AxisOutOfRange`].
pub fn uniform_filter1d<T: NumElement>(
    input: &DeviceArray<T>,
    size: usize,
    axis: isize,
    mode: Mode,
    origin: isize,
) -> Result<DeviceArray<T>> {
    box_1d(
        "uniform_filter1d",
        WindowOp::Mean,
        input,
        size,
        axis,
        mode,
        origin,
    )
}

fn box_1d<T: NumElement>(
    op: &'static str,
    kind: WindowOp,
    input: &DeviceArray<T>,
    size: usize,
    axis: isize,
    mode: Mode,
    origin: isize,
) -> Result<DeviceArray<T>> {
    if size == 0 {
        return Err(Error::invalid(op, "`size` is 0"));
    }
    let axis = normalize_axis(op, axis, input.ndim())?;
    check_origin(op, origin, size)?;
    separable(op, input, &[Pass::boxed(axis, kind, size, origin)], mode)
}

/// The separable box filter of `kind` over `size` (one or one per axis), skipping axes of
/// size 1 as SciPy; `origin(len)` the origin of an axis of window length `len`.
pub(super) fn box_nd<T: NumElement>(
    op: &'static str,
    kind: WindowOp,
    input: &DeviceArray<T>,
    size: &[usize],
    mode: Mode,
    origin: impl Fn(usize) -> isize,
) -> Result<DeviceArray<T>> {
    let size = per_axis(op, "size", size, input.ndim())?;
    let mut passes = Vec::new();
    for (axis, &s) in size.iter().enumerate() {
        if s == 0 {
            return Err(Error::invalid(op, format!("`size` is 0 on axis {axis}")));
        }
        let origin = origin(s);
        check_origin(op, origin, s)?;
        if s > 1 {
            passes.push(Pass::boxed(axis, kind, s, origin));
        }
    }
    separable(op, input, &passes, mode)
}

/// An n-d uniform filter (SciPy's `uniform_filter`): [`uniform_filter1d`] along each
/// axis, `size` one value for every axis or one per axis.
///
/// # Errors
/// As [`uniform_filter1d`]; `size` with neither one value nor one per axis.
pub fn uniform_filter<T: NumElement>(
    input: &DeviceArray<T>,
    size: &[usize],
    mode: Mode,
    origin: isize,
) -> Result<DeviceArray<T>> {
    box_nd("uniform_filter", WindowOp::Mean, input, size, mode, |_| {
        origin
    })
}

/// A 1-d minimum filter of `size` along `axis` (SciPy's `minimum_filter1d`, origin 0).
///
/// ```no_run
/// use cuarray::{ndimage::{self, Mode}, DeviceArray};
/// let dev = cuarray::Device::new(0)?;
/// let x = DeviceArray::from_slice(&dev, &[2i32, 8, 0, 4, 1, 9, 9, 0])?;
/// assert_eq!(ndimage::minimum_filter1d(&x, 3, 0, Mode::Reflect)?.to_host()?, vec![2, 0, 0, 0, 1, 1, 0, 0]);
/// assert_eq!(ndimage::maximum_filter1d(&x, 3, 0, Mode::Reflect)?.to_host()?, vec![8, 8, 8, 4, 9, 9, 9, 9]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] naming `size` (0); [`Error::AxisOutOfRange`].
pub fn minimum_filter1d<T: NumElement>(
    input: &DeviceArray<T>,
    size: usize,
    axis: isize,
    mode: Mode,
) -> Result<DeviceArray<T>> {
    box_1d(
        "minimum_filter1d",
        WindowOp::Min,
        input,
        size,
        axis,
        mode,
        0,
    )
}

/// A 1-d maximum filter of `size` along `axis` (SciPy's `maximum_filter1d`, origin 0).
///
/// # Errors
/// As [`minimum_filter1d`].
pub fn maximum_filter1d<T: NumElement>(
    input: &DeviceArray<T>,
    size: usize,
    axis: isize,
    mode: Mode,
) -> Result<DeviceArray<T>> {
    box_1d(
        "maximum_filter1d",
        WindowOp::Max,
        input,
        size,
        axis,
        mode,
        0,
    )
}

/// An n-d minimum filter over a box of `size` (SciPy's `minimum_filter` with `size`):
/// separable, [`minimum_filter1d`] along each axis.
///
/// # Errors
/// As [`uniform_filter`].
pub fn minimum_filter<T: NumElement>(
    input: &DeviceArray<T>,
    size: &[usize],
    mode: Mode,
) -> Result<DeviceArray<T>> {
    box_nd("minimum_filter", WindowOp::Min, input, size, mode, |_| 0)
}

/// An n-d maximum filter over a box of `size` (SciPy's `maximum_filter` with `size`).
///
/// # Errors
/// As [`uniform_filter`].
pub fn maximum_filter<T: NumElement>(
    input: &DeviceArray<T>,
    size: &[usize],
    mode: Mode,
) -> Result<DeviceArray<T>> {
    box_nd("maximum_filter", WindowOp::Max, input, size, mode, |_| 0)
}

/// The Sobel derivative along `axis` (SciPy's `sobel`): `[-1, 0, 1]` along it, then the
/// smoothing `[1, 2, 1]` along every other axis, each pass in the input's type.
///
/// ```no_run
/// use cuarray::{ndimage::{self, Mode}, DeviceArray};
/// let dev = cuarray::Device::new(0)?;
/// let x = DeviceArray::from_host(&dev, &[0.0f64, 1.0, 2.0, 0.0, 1.0, 2.0], &[2, 3])?;
/// let d = ndimage::sobel(&x, 1, Mode::Reflect)?;
/// assert_eq!(d.to_host()?, vec![4.0, 8.0, 4.0, 4.0, 8.0, 4.0]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::AxisOutOfRange`].
pub fn sobel<T: NumElement>(
    input: &DeviceArray<T>,
    axis: isize,
    mode: Mode,
) -> Result<DeviceArray<T>> {
    derivative_filter("sobel", input, axis, mode, [1.0, 2.0, 1.0])
}

/// The Prewitt derivative along `axis` (SciPy's `prewitt`): `[-1, 0, 1]` along it, then
/// `[1, 1, 1]` along every other axis.
///
/// # Errors
/// [`Error::AxisOutOfRange`].
pub fn prewitt<T: NumElement>(
    input: &DeviceArray<T>,
    axis: isize,
    mode: Mode,
) -> Result<DeviceArray<T>> {
    derivative_filter("prewitt", input, axis, mode, [1.0, 1.0, 1.0])
}

fn derivative_filter<T: NumElement>(
    op: &'static str,
    input: &DeviceArray<T>,
    axis: isize,
    mode: Mode,
    smooth: [f64; 3],
) -> Result<DeviceArray<T>> {
    let axis = normalize_axis(op, axis, input.ndim())?;
    let mut passes = vec![Pass::taps(axis, vec![-1.0, 0.0, 1.0], 0)];
    passes.extend(
        (0..input.ndim())
            .filter(|&d| d != axis)
            .map(|d| Pass::taps(d, smooth.to_vec(), 0)),
    );
    separable(op, input, &passes, mode)
}

/// The window filter of `w` over `input` into a new array of `T`.
fn window_filter<T: NumElement>(
    op: &'static str,
    input: &DeviceArray<T>,
    w: &Window<'_>,
    mode: Mode,
) -> Result<DeviceArray<T>> {
    let x = input.contiguous()?;
    let out = DeviceArray::<T>::alloc_for(op, input.device(), input.shape())?;
    launch::window(op, &x, &out, w, mode)?;
    Ok(out)
}

fn correlate_nd<T: NumElement>(
    op: &'static str,
    input: &DeviceArray<T>,
    weights: &DeviceArray<f64>,
    mode: Mode,
    origin: &[isize],
) -> Result<DeviceArray<T>> {
    weights.used_by(op, input.device())?;
    if weights.ndim() != input.ndim() {
        return Err(Error::invalid(
            op,
            format!(
                "`weights` has rank {} for an input of rank {}",
                weights.ndim(),
                input.ndim()
            ),
        ));
    }
    if weights.size() == 0 {
        return Err(Error::invalid(op, "`weights` is empty"));
    }
    for (&o, &len) in origin.iter().zip(weights.shape()) {
        check_origin(op, o, len)?;
    }
    let w = weights.contiguous()?;
    let window = Window {
        shape: w.shape().to_vec(),
        origin: origin.to_vec(),
        op: WindowOp::Sum,
        weights: Some(&w),
        footprint: None,
        kth: 0,
    };
    window_filter(op, input, &window, mode)
}

/// The n-d correlation of `input` with the device array `weights` of the same rank
/// (SciPy's `correlate`), `origin` on every axis: `out[i] = sum_j weights[j] *
/// input[i + j - origin - shape / 2]`, skipping weights within `f64::EPSILON` of 0 as
/// SciPy. Direct: one thread an output, `weights.size()` reads each.
///
/// ```no_run
/// use cuarray::{ndimage::{self, Mode}, DeviceArray};
/// let dev = cuarray::Device::new(0)?;
/// let x = DeviceArray::from_host(&dev, &[1.0f32, 2.0, 3.0, 4.0], &[2, 2])?;
/// let w = DeviceArray::from_host(&dev, &[0.0f64, 1.0, 1.0, 0.0], &[2, 2])?;
/// let y = ndimage::correlate(&x, &w, Mode::Constant(0.0), 0)?;
/// assert_eq!(y.to_host()?, vec![0.0, 1.0, 1.0, 5.0]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] naming `weights` (another rank, or empty) or `origin`;
/// [`Error::DeviceMismatch`].
pub fn correlate<T: NumElement>(
    input: &DeviceArray<T>,
    weights: &DeviceArray<f64>,
    mode: Mode,
    origin: isize,
) -> Result<DeviceArray<T>> {
    correlate_nd(
        "correlate",
        input,
        weights,
        mode,
        &vec![origin; input.ndim()],
    )
}

/// The n-d convolution of `input` with `weights` (SciPy's `convolve`): the correlation
/// with the weights reversed along every axis and the origin `-origin` (less one on each
/// axis of even length).
///
/// # Errors
/// As [`correlate`].
pub fn convolve<T: NumElement>(
    input: &DeviceArray<T>,
    weights: &DeviceArray<f64>,
    mode: Mode,
    origin: isize,
) -> Result<DeviceArray<T>> {
    const OP: &str = "convolve";
    let axes: Vec<usize> = (0..weights.ndim()).collect();
    let flipped = if axes.is_empty() {
        weights.clone()
    } else {
        weights.flip(&axes[..])?
    };
    let origins: Vec<isize> = weights
        .shape()
        .iter()
        .map(|&len| -origin - isize::from(len.is_multiple_of(2)))
        .collect();
    correlate_nd(OP, input, &flipped, mode, &origins)
}

/// The rank filter behind `median_filter`, `rank_filter` and `percentile_filter`: the
/// `kth` smallest of the box `size`, the minimum and maximum through the separable
/// filters.
fn rank_box<T: NumElement>(
    op: &'static str,
    input: &DeviceArray<T>,
    size: &[usize],
    kth: usize,
    mode: Mode,
) -> Result<DeviceArray<T>> {
    let size = per_axis(op, "size", size, input.ndim())?;
    let count: usize = size.iter().product();
    if kth == 0 {
        return box_nd(op, WindowOp::Min, input, &size, mode, |_| 0);
    }
    if kth + 1 == count {
        return box_nd(op, WindowOp::Max, input, &size, mode, |_| 0);
    }
    if count > RANK_MAX {
        return Err(Error::invalid(
            op,
            format!("`size` {size:?} holds {count} elements; rank filters select among at most {RANK_MAX}"),
        ));
    }
    let window = Window {
        shape: size,
        origin: vec![0; input.ndim()],
        op: WindowOp::Rank,
        weights: None,
        footprint: None,
        kth,
    };
    window_filter(op, input, &window, mode)
}

/// The element count of the box `size`, checked (`size` of 0 is an error).
fn box_count(op: &'static str, size: &[usize], ndim: usize) -> Result<usize> {
    let size = per_axis(op, "size", size, ndim)?;
    if let Some(axis) = size.iter().position(|&s| s == 0) {
        return Err(Error::invalid(op, format!("`size` is 0 on axis {axis}")));
    }
    Ok(size.iter().product())
}

/// The `rank`-th smallest value of each box `size` (SciPy's `rank_filter` with `size`):
/// `rank` counts from 0, or from the end when negative (-1 is the maximum).
///
/// ```no_run
/// use cuarray::{ndimage::{self, Mode}, DeviceArray};
/// let dev = cuarray::Device::new(0)?;
/// let x = DeviceArray::from_slice(&dev, &[5u8, 1, 4, 2, 3])?;
/// assert_eq!(ndimage::rank_filter(&x, 1, &[3], Mode::Reflect)?.to_host()?, vec![5, 4, 2, 3, 3]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] naming `rank` (outside the window), `size` (0 on an axis,
/// a wrong count of values, or a window of more than 256 elements).
pub fn rank_filter<T: NumElement>(
    input: &DeviceArray<T>,
    rank: isize,
    size: &[usize],
    mode: Mode,
) -> Result<DeviceArray<T>> {
    const OP: &str = "rank_filter";
    let count = box_count(OP, size, input.ndim())? as isize;
    let kth = if rank < 0 { rank + count } else { rank };
    if kth < 0 || kth >= count {
        return Err(Error::invalid(
            OP,
            format!("`rank` {rank} is outside a window of {count} elements"),
        ));
    }
    rank_box(OP, input, size, kth as usize, mode)
}

/// The median of each box `size` (SciPy's `median_filter` with `size`): the element of
/// rank `count / 2`.
///
/// ```no_run
/// use cuarray::{ndimage::{self, Mode}, DeviceArray};
/// let dev = cuarray::Device::new(0)?;
/// let x = DeviceArray::from_slice(&dev, &[5.0f32, 1.0, 4.0, 2.0, 3.0])?;
/// assert_eq!(ndimage::median_filter(&x, &[3], Mode::Reflect)?.to_host()?, vec![5.0, 4.0, 2.0, 3.0, 3.0]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// As [`rank_filter`].
pub fn median_filter<T: NumElement>(
    input: &DeviceArray<T>,
    size: &[usize],
    mode: Mode,
) -> Result<DeviceArray<T>> {
    const OP: &str = "median_filter";
    let count = box_count(OP, size, input.ndim())?;
    rank_box(OP, input, size, count / 2, mode)
}

/// The `percentile` of each box `size` (SciPy's `percentile_filter` with `size`): the
/// element of rank `(count * percentile / 100) as usize` (the last when that is `count`),
/// a negative percentile counting from 100.
///
/// # Errors
/// [`Error::InvalidArgument`] naming `percentile` (outside -100..=100), or `size` as
/// [`rank_filter`].
pub fn percentile_filter<T: NumElement>(
    input: &DeviceArray<T>,
    percentile: f64,
    size: &[usize],
    mode: Mode,
) -> Result<DeviceArray<T>> {
    const OP: &str = "percentile_filter";
    if !(-100.0..=100.0).contains(&percentile) {
        return Err(Error::invalid(
            OP,
            format!("`percentile` {percentile} is outside -100..=100"),
        ));
    }
    let p = if percentile < 0.0 {
        percentile + 100.0
    } else {
        percentile
    };
    let count = box_count(OP, size, input.ndim())?;
    let kth = ((count as f64 * p / 100.0) as usize).min(count - 1);
    rank_box(OP, input, size, kth, mode)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gaussian_taps_are_scipys() {
        // scipy.ndimage._filters._gaussian_kernel1d(1.5, order, 3)[::-1]
        let close = |a: &[f64], b: &[f64]| {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-15)
        };
        let g0 = gaussian_taps(1.5, 0, 3);
        let g1 = gaussian_taps(1.5, 1, 3);
        let g2 = gaussian_taps(1.5, 2, 3);
        assert!(close(&g0, &REF0), "{g0:?}");
        assert!(close(&g1, &REF1), "{g1:?}");
        assert!(close(&g2, &REF2), "{g2:?}");
    }

    const REF0: [f64; 7] = [
        0.036632845369194034,
        0.11128075847888486,
        0.21674532140370778,
        0.27068214949642655,
        0.21674532140370778,
        0.11128075847888486,
        0.036632845369194034,
    ];
    const REF1: [f64; 7] = [
        -0.04884379382559204,
        -0.09891622975900875,
        -0.09633125395720345,
        0.0,
        0.09633125395720345,
        0.09891622975900875,
        0.04884379382559204,
    ];
    const REF2: [f64; 7] = [
        0.04884379382559204,
        0.03846742268405896,
        -0.053517363309557475,
        -0.12030317755396736,
        -0.053517363309557475,
        0.03846742268405896,
        0.04884379382559204,
    ];
}
