//! Special functions of float arrays, with SciPy's names, conventions and values at the
//! domain edges (`scipy.special`): error functions, the gamma family, Bessel functions,
//! the normal distribution, entropies, zeta, polygamma, beta, the incomplete gamma
//! functions, and softmax, log_softmax and logsumexp.
//!
//! Every function takes `f32` or `f64` arrays (`f16` and `bf16` compute in `f32` and round
//! once) and returns an array of the same type. Each one is one device function in
//! `kernels/special.cuh`, from one of two sources, named in its documentation:
//! - **CUDA's math library** (erf, erfinv, lgamma, j0, cyl_bessel_i0, normcdfinv, ...)
//!   where it has the function, in the input's precision (CUDA documents its error
//!   bounds in ulps; its double `j0`, `j1`, `y0`, `y1` bound the absolute error instead,
//!   about 4e-13 at |x| = 50 against SciPy's Cephes, so their relative error grows near
//!   their zeros and for large arguments);
//! - **Cephes** (as SciPy and CuPy use it) where CUDA has not (digamma, i0e, i1e, k0, k1,
//!   zeta, beta, gammainc, ...), evaluated in double and rounded once, as SciPy does for
//!   float32 inputs; `i0e` and `digamma` evaluate `f32` (and narrower) inputs in float,
//!   within a few ulps of SciPy (as PyTorch does), except digamma below -0.8 (double).
//!
//! Edge values are SciPy's: `gammaln(0) = inf`, `gamma(-1) = NaN`, `digamma(0) = -inf`
//! (`+inf` at `-0.0`), `erfinv(±1) = ±inf`, `ndtri(0) = -inf`, `logit(0) = -inf`,
//! `entr(0) = 0`, `entr(x < 0) = -inf`, `xlogy(0, y) = 0` unless `y` is NaN, NaN in
//! gives NaN out. These functions are also callable from the bodies of user
//! [`ElementwiseKernel`](crate::ElementwiseKernel)s as `cuarray_special_<name>(x)`.
//!
//! ```no_run
//! use cuarray::{special, Device, DeviceArray};
//! let dev = Device::new(0)?;
//! let x = DeviceArray::from_slice(&dev, &[0.0f64, 0.5, 1.0])?;
//! let cdf = special::ndtr(&x)?;           // standard normal CDF
//! assert_eq!(special::ndtri(&cdf)?.to_host()?[0], 0.0);
//! let rows = DeviceArray::from_host(&dev, &[1000.0f32, 1000.0, 0.0, 0.0], &[2, 2])?;
//! let p = special::softmax(&rows, -1)?;   // each row sums to 1
//! assert_eq!(p.to_host()?, vec![0.5; 4]);
//! let lse = special::logsumexp(&rows, &[1], false)?;
//! assert!((lse.to_host()?[0] - (1000.0 + std::f32::consts::LN_2)).abs() < 1e-3);
//! # Ok::<(), cuarray::Error>(())
//! ```

mod softmax;
pub(crate) mod table;

pub use table::{Source, SpecialBinaryOp, SpecialOp};

use crate::array::DeviceArray;
use crate::element::FloatElement;
use crate::kernels::abi::Scalar;
use crate::ops::elementwise;
use crate::shape::broadcast_shapes;
use crate::Result;

/// Applies the one-input special function `op` to every element of `x`.
///
/// # Errors
/// [`Error::OutOfMemory`](crate::Error::OutOfMemory) when the device is full.
pub fn apply<T: FloatElement>(op: SpecialOp, x: &DeviceArray<T>) -> Result<DeviceArray<T>> {
    let out = DeviceArray::<T>::alloc_uninit(x.device(), x.shape())?;
    elementwise::run(
        x.device(),
        op.op(),
        op.body(),
        &[out.operand()?],
        &[x.operand()?],
        &[],
    )?;
    Ok(out)
}

/// Applies the two-input special function `op` to `a` and `b`, broadcast together as
/// NumPy broadcasts.
///
/// # Errors
/// [`Error::Broadcast`](crate::Error::Broadcast) naming both shapes when they do not
/// broadcast; [`Error::DeviceMismatch`](crate::Error::DeviceMismatch) across devices.
pub fn apply2<T: FloatElement>(
    op: SpecialBinaryOp,
    a: &DeviceArray<T>,
    b: &DeviceArray<T>,
) -> Result<DeviceArray<T>> {
    b.used_by(op.name(), a.device())?;
    let shape = broadcast_shapes(op.name(), a.shape(), b.shape())?;
    let out = DeviceArray::<T>::alloc_uninit(a.device(), &shape)?;
    elementwise::run(
        a.device(),
        op.op(),
        op.body(),
        &[out.operand()?],
        &[a.operand_as(&shape)?, b.operand_as(&shape)?],
        &[],
    )?;
    Ok(out)
}

macro_rules! unary_fns {
    ($($(#[doc = $doc:literal])* $f:ident => $op:ident),* $(,)?) => {$(
        $(#[doc = $doc])*
        ///
        /// # Errors
        /// [`Error::OutOfMemory`](crate::Error::OutOfMemory) when the device is full.
        pub fn $f<T: FloatElement>(x: &DeviceArray<T>) -> Result<DeviceArray<T>> {
            apply(SpecialOp::$op, x)
        }
    )*};
}

macro_rules! binary_fns {
    ($($(#[doc = $doc:literal])* $f:ident($a:ident, $b:ident) => $op:ident),* $(,)?) => {$(
        $(#[doc = $doc])*
        ///
        /// The operands broadcast together as NumPy broadcasts.
        ///
        /// # Errors
        /// [`Error::Broadcast`](crate::Error::Broadcast) naming both shapes when they do
        /// not broadcast; [`Error::DeviceMismatch`](crate::Error::DeviceMismatch) across
        /// devices.
        pub fn $f<T: FloatElement>($a: &DeviceArray<T>, $b: &DeviceArray<T>) -> Result<DeviceArray<T>> {
            apply2(SpecialBinaryOp::$op, $a, $b)
        }
    )*};
}

unary_fns! {
    /// Error function, SciPy's `erf` (CUDA's math library: `erff`/`erf`).
    erf => Erf,
    /// Complementary error function `1 - erf(x)`, SciPy's `erfc` (CUDA's math library).
    erfc => Erfc,
    /// Scaled complementary error function `exp(x²) erfc(x)`, SciPy's `erfcx` (CUDA's math
    /// library: `erfcxf`/`erfcx`).
    erfcx => Erfcx,
    /// Inverse error function, SciPy's `erfinv`: `±inf` at `±1`, NaN outside `[-1, 1]`
    /// (CUDA's math library).
    erfinv => Erfinv,
    /// Inverse complementary error function, SciPy's `erfcinv`: `inf` at 0, `-inf` at 2
    /// (CUDA's math library).
    erfcinv => Erfcinv,
    /// Gamma function, SciPy's `gamma`: `±inf` at `±0`, NaN at negative integers and
    /// `-inf` (CUDA's math library: `tgamma`).
    gamma => Gamma,
    /// `ln|Γ(x)|`, SciPy's `gammaln`: `inf` at 0 and the negative integers (CUDA's math
    /// library: `lgamma`).
    gammaln => Gammaln,
    /// Digamma `ψ(x)`, SciPy's `digamma`/`psi`: `-inf` at `0.0`, `inf` at `-0.0`, NaN at
    /// negative integers (Cephes `psi`, with SciPy's series around the negative root;
    /// `f32` above -0.8 in float, within a few ulps).
    digamma => Digamma,
    /// Logistic sigmoid `1 / (1 + e^-x)`, SciPy's `expit` (formula).
    expit => Expit,
    /// `ln(x / (1 - x))`, SciPy's `logit`: `-inf` at 0, `inf` at 1, NaN outside `[0, 1]`
    /// (SciPy's formula, with `log1p` near 1/2).
    logit => Logit,
    /// Standard normal CDF, SciPy's `ndtr` (CUDA's math library: `normcdf`).
    ndtr => Ndtr,
    /// Inverse standard normal CDF, SciPy's `ndtri`: `-inf` at 0, `inf` at 1 (CUDA's math
    /// library: `normcdfinv`).
    ndtri => Ndtri,
    /// Log of the standard normal CDF, SciPy's `log_ndtr`, accurate far in the left tail
    /// (SciPy's formula over CUDA's `erfcx` and `erfc`, in double).
    log_ndtr => LogNdtr,
    /// Bessel function of the first kind of order 0, SciPy's `j0` (CUDA's math library;
    /// NaN at `±inf` as SciPy).
    j0 => J0,
    /// Bessel function of the first kind of order 1, SciPy's `j1` (CUDA's math library).
    j1 => J1,
    /// Bessel function of the second kind of order 0, SciPy's `y0`: `-inf` at 0, NaN below
    /// (CUDA's math library).
    y0 => Y0,
    /// Bessel function of the second kind of order 1, SciPy's `y1` (CUDA's math library).
    y1 => Y1,
    /// Modified Bessel function of the first kind of order 0, SciPy's `i0` (CUDA's math
    /// library: `cyl_bessel_i0`).
    i0 => I0,
    /// Exponentially scaled `exp(-|x|) i0(x)`, SciPy's `i0e` (Cephes; `f32` in float,
    /// within 4e-7 relative).
    i0e => I0e,
    /// Modified Bessel function of the first kind of order 1, SciPy's `i1` (CUDA's math
    /// library: `cyl_bessel_i1`).
    i1 => I1,
    /// Exponentially scaled `exp(-|x|) i1(x)`, SciPy's `i1e` (Cephes).
    i1e => I1e,
    /// Modified Bessel function of the second kind of order 0, SciPy's `k0`: `inf` at 0,
    /// NaN below (Cephes).
    k0 => K0,
    /// Exponentially scaled `exp(x) k0(x)`, SciPy's `k0e` (Cephes).
    k0e => K0e,
    /// Modified Bessel function of the second kind of order 1, SciPy's `k1` (Cephes).
    k1 => K1,
    /// Exponentially scaled `exp(x) k1(x)`, SciPy's `k1e` (Cephes).
    k1e => K1e,
    /// Elementwise entropy `-x ln x`, SciPy's `entr`: 0 at 0, `-inf` below (formula).
    entr => Entr,
    /// Normalized sinc `sin(πx) / (πx)`, 1 at 0, NumPy's `sinc` (CUDA's `sinpi`).
    sinc => Sinc,
}

binary_fns! {
    /// Beta function `Γ(a)Γ(b)/Γ(a+b)`, SciPy's `beta` (Cephes).
    beta(a, b) => Beta,
    /// `ln|B(a, b)|`, SciPy's `betaln` (Cephes `lbeta`).
    betaln(a, b) => Betaln,
    /// Regularized lower incomplete gamma `P(a, x)`, SciPy's `gammainc` (Cephes `igam`).
    gammainc(a, x) => Gammainc,
    /// Regularized upper incomplete gamma `Q(a, x) = 1 - P(a, x)`, SciPy's `gammaincc`
    /// (Cephes `igamc`).
    gammaincc(a, x) => Gammaincc,
    /// `x ln y`, 0 where `x == 0` and `y` is not NaN, SciPy's `xlogy` (formula).
    xlogy(x, y) => Xlogy,
    /// `x ln(1 + y)`, 0 where `x == 0` and `y` is not NaN, SciPy's `xlog1py` (formula).
    xlog1py(x, y) => Xlog1py,
    /// Hurwitz zeta `ζ(x, q) = Σ (k + q)^-x`, SciPy's `zeta(x, q)`: `inf` at `x = 1`, NaN
    /// for `x < 1` (Cephes).
    zeta(x, q) => Zeta,
    /// `x ln(x/y) - x + y` (`y` at `x = 0`, `inf` outside the domain), SciPy's `kl_div`
    /// (formula).
    kl_div(x, y) => KlDiv,
    /// `x ln(x/y)` (0 at `x = 0`, `inf` outside the domain), SciPy's `rel_entr` (formula).
    rel_entr(x, y) => RelEntr,
}

/// Polygamma `ψ⁽ⁿ⁾(x)`, SciPy's `polygamma`: `digamma` for `n = 0`, else
/// `(-1)^(n+1) n! ζ(n + 1, x)` as SciPy computes it (Cephes zeta).
///
/// ```no_run
/// let dev = cuarray::Device::new(0)?;
/// let x = cuarray::DeviceArray::from_slice(&dev, &[1.0f64])?;
/// let trigamma = cuarray::special::polygamma(1, &x)?.to_host()?;
/// assert!((trigamma[0] - std::f64::consts::PI.powi(2) / 6.0).abs() < 1e-14);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::OutOfMemory`](crate::Error::OutOfMemory) when the device is full.
pub fn polygamma<T: FloatElement>(n: u32, x: &DeviceArray<T>) -> Result<DeviceArray<T>> {
    let out = DeviceArray::<T>::alloc_uninit(x.device(), x.shape())?;
    elementwise::run(
        x.device(),
        "special_polygamma",
        table::POLYGAMMA_BODY,
        &[out.operand()?],
        &[x.operand()?],
        &[Scalar::of(f64::from(n))],
    )?;
    Ok(out)
}

/// SciPy's `softmax` along `axis`: `exp(x - max) / Σ exp(x - max)`, stable for inputs of
/// any magnitude (computed in f32, or f64 for f64 arrays). A slice holding `+inf` or
/// NaN, or only `-inf`, gives NaN, as SciPy. Along the last axis of a C-contiguous array
/// with at most 4096 elements a row, one kernel holds each row in registers (the data read
/// once); otherwise three passes (the maximum, the sum of exponentials, the division). A
/// 0-d array is a slice of one.
///
/// ```no_run
/// let dev = cuarray::Device::new(0)?;
/// let a = cuarray::DeviceArray::from_slice(&dev, &[1.0f64, 1.0])?;
/// assert_eq!(cuarray::special::softmax(&a, 0)?.to_host()?, vec![0.5, 0.5]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::AxisOutOfRange`](crate::Error::AxisOutOfRange) naming the axis and the
/// array's dimensions.
pub fn softmax<T: FloatElement>(x: &DeviceArray<T>, axis: isize) -> Result<DeviceArray<T>> {
    if softmax::work_is_f64::<T>() {
        softmax::softmax_impl::<T, f64>(x, axis, false)
    } else {
        softmax::softmax_impl::<T, f32>(x, axis, false)
    }
}

/// SciPy's `log_softmax` along `axis`: `(x - m) - ln Σ exp(x - m)`, `m` the slice's
/// maximum (0 where it is not finite, as SciPy), exact for inputs of any magnitude. A
/// slice of only `-inf` gives NaN; with `+inf` the other entries are `-inf`, as SciPy.
///
/// ```no_run
/// let dev = cuarray::Device::new(0)?;
/// let a = cuarray::DeviceArray::from_slice(&dev, &[1000.0f64, 0.0])?;
/// assert_eq!(cuarray::special::log_softmax(&a, 0)?.to_host()?, vec![0.0, -1000.0]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::AxisOutOfRange`](crate::Error::AxisOutOfRange) naming the axis and the
/// array's dimensions.
pub fn log_softmax<T: FloatElement>(x: &DeviceArray<T>, axis: isize) -> Result<DeviceArray<T>> {
    if softmax::work_is_f64::<T>() {
        softmax::softmax_impl::<T, f64>(x, axis, true)
    } else {
        softmax::softmax_impl::<T, f32>(x, axis, true)
    }
}

/// SciPy's `logsumexp` over `axes` (every axis when `axes` is empty, SciPy's
/// `axis=None`): `m + ln Σ exp(x - m)`, `m` the maximum, stable for inputs of any
/// magnitude (`logsumexp([1000, 1000]) = 1000 + ln 2`). A slice holding `+inf` gives
/// `inf`, NaN gives NaN, only `-inf` (or no element) gives `-inf`. Over trailing axes of a
/// C-contiguous array with at most 4096 elements a row, one kernel reads each row once;
/// otherwise two passes (the maximum, then the sum of exponentials reading it).
///
/// ```no_run
/// let dev = cuarray::Device::new(0)?;
/// let a = cuarray::DeviceArray::from_slice(&dev, &[1000.0f64, 1000.0])?;
/// let l = cuarray::special::logsumexp(&a, &[], false)?.to_scalar()?;
/// assert!((l - (1000.0 + std::f64::consts::LN_2)).abs() < 1e-12);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::AxisOutOfRange`](crate::Error::AxisOutOfRange) naming the axis and the
/// array's dimensions; [`Error::InvalidArgument`](crate::Error::InvalidArgument) for a
/// repeated axis.
pub fn logsumexp<T: FloatElement>(
    x: &DeviceArray<T>,
    axes: &[isize],
    keepdims: bool,
) -> Result<DeviceArray<T>> {
    if softmax::work_is_f64::<T>() {
        softmax::logsumexp_impl::<T, f64>(x, axes, keepdims)
    } else {
        softmax::logsumexp_impl::<T, f32>(x, axes, keepdims)
    }
}
