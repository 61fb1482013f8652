//! Norms of vectors and matrices: [`norm`], [`norm_axis`], [`norm_axes`] and their orders
//! ([`NormOrd`]).

use super::cusolver::SolverElement;
use super::svd::svdvals;
use crate::array::DeviceArray;
use crate::element::Element;
use crate::shape::{normalize_axis, IntoAxes};
use crate::{Error, Result};

/// The order of a norm (NumPy's `ord`): `None` in [`norm`] is the 2-norm of a vector and
/// the Frobenius norm of a matrix (of the flattened array, for [`norm`] of any shape).
///
/// ```no_run
/// use cuarray::{Device, DeviceArray};
/// use cuarray::linalg::{norm, NormOrd};
/// let dev = Device::new(0)?;
/// let m = DeviceArray::from_host(&dev, &[1.0f64, -2.0, 3.0, 4.0], &[2, 2])?;
/// assert_eq!(norm(&m, Some(NormOrd::Inf))?.to_scalar()?, 7.0); // the largest row sum of |m|
/// assert_eq!(norm(&m, Some(NormOrd::P(1.0)))?.to_scalar()?, 6.0); // the largest column sum
/// assert_eq!(norm(&m, Some(NormOrd::Fro))?.to_scalar()?, 30.0f64.sqrt());
/// # Ok::<(), cuarray::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum NormOrd {
    /// Frobenius norm (matrices): the square root of the sum of squares.
    Fro,
    /// Nuclear norm (matrices): the sum of the singular values.
    Nuc,
    /// `max |x|` (vectors); the largest absolute row sum (matrices).
    Inf,
    /// `min |x|` (vectors); the smallest absolute row sum (matrices).
    NegInf,
    /// `(sum |x|^p)^(1/p)` for vectors (`0`: the count of non-zeros); for matrices `1` /
    /// `-1` the largest / smallest absolute column sum, `2` / `-2` the largest / smallest
    /// singular value.
    P(f64),
}

impl From<f64> for NormOrd {
    /// `f64::INFINITY` is [`NormOrd::Inf`], `-inf` [`NormOrd::NegInf`], others `P(p)`.
    fn from(p: f64) -> NormOrd {
        if p == f64::INFINITY {
            NormOrd::Inf
        } else if p == f64::NEG_INFINITY {
            NormOrd::NegInf
        } else {
            NormOrd::P(p)
        }
    }
}

/// The magnitudes of `x`'s values: `x` itself (no copy) for real types, `|x|` for complex
/// ones.
fn magnitudes<T: SolverElement>(x: &DeviceArray<T>) -> Result<DeviceArray<T::Spectral>> {
    match x.as_type::<T::Spectral>() {
        Some(real) => Ok(real),
        None => x.abs(),
    }
}

fn vector_norm<T: SolverElement>(
    x: &DeviceArray<T>,
    ord: Option<NormOrd>,
    axis: isize,
    keepdims: bool,
) -> Result<DeviceArray<T::Spectral>> {
    let axes = [axis];
    let real = |v: f64| T::Spectral::from_f64(v);
    match ord.unwrap_or(NormOrd::P(2.0)) {
        NormOrd::P(2.0) => {
            let m = magnitudes(x)?;
            m.mul(&m)?.sum_axes(&axes[..], keepdims)?.sqrt()
        }
        NormOrd::P(1.0) => x.abs()?.sum_axes(&axes[..], keepdims),
        NormOrd::P(0.0) => magnitudes(x)?
            .ne(real(0.0))?
            .astype::<T::Spectral>()?
            .sum_axes(&axes[..], keepdims),
        NormOrd::P(p) if p.is_finite() => x
            .abs()?
            .pow(real(p))?
            .sum_axes(&axes[..], keepdims)?
            .pow(real(1.0 / p)),
        NormOrd::P(p) if p.is_infinite() => vector_norm(x, Some(NormOrd::from(p)), axis, keepdims),
        NormOrd::Inf => x.abs()?.max_axes(&axes[..], keepdims),
        NormOrd::NegInf => x.abs()?.min_axes(&axes[..], keepdims),
        o => Err(Error::invalid(
            "norm",
            format!("invalid norm order {o:?} for vectors"),
        )),
    }
}

fn matrix_norm<T: SolverElement>(
    x: &DeviceArray<T>,
    ord: Option<NormOrd>,
    (r, c): (usize, usize),
    keepdims: bool,
) -> Result<DeviceArray<T::Spectral>> {
    type R<T> = DeviceArray<<T as SolverElement>::Spectral>;
    let both = [r as isize, c as isize];
    let drop_both = |y: R<T>| -> Result<R<T>> {
        if keepdims {
            Ok(y)
        } else {
            y.squeeze_axis(r.max(c) as isize)?
                .squeeze_axis(r.min(c) as isize)
        }
    };
    // Absolute sums along `along`, then the max or min over `over` (both kept).
    let sums = |along: usize, over: usize, largest: bool| -> Result<R<T>> {
        let s = x.abs()?.sum_keepdim(along as isize)?;
        let y = if largest {
            s.max_keepdim(over as isize)?
        } else {
            s.min_keepdim(over as isize)?
        };
        drop_both(y)
    };
    // Singular values of the matrices in axes (r, c), moved last.
    let singular = |f: &dyn Fn(&R<T>) -> Result<R<T>>| -> Result<R<T>> {
        let nd = x.ndim();
        let mut perm: Vec<isize> = (0..nd)
            .filter(|&d| d != r && d != c)
            .map(|d| d as isize)
            .collect();
        perm.extend(both);
        let s = svdvals(&x.permute(&perm[..])?)?;
        let y = f(&s)?;
        if !keepdims {
            return Ok(y);
        }
        let (lo, hi) = (r.min(c), r.max(c));
        y.expand_dims(lo as isize)?.expand_dims(hi as isize)
    };
    match ord.unwrap_or(NormOrd::Fro) {
        NormOrd::Fro => {
            let m = magnitudes(x)?;
            m.mul(&m)?.sum_axes(&both[..], keepdims)?.sqrt()
        }
        NormOrd::Nuc => singular(&|s| s.sum_axis(-1)),
        NormOrd::Inf => sums(c, r, true),
        NormOrd::NegInf => sums(c, r, false),
        NormOrd::P(1.0) => sums(r, c, true),
        NormOrd::P(-1.0) => sums(r, c, false),
        NormOrd::P(2.0) => singular(&|s| s.max_axis(-1)),
        NormOrd::P(-2.0) => singular(&|s| s.min_axis(-1)),
        NormOrd::P(p) if p.is_infinite() => {
            matrix_norm(x, Some(NormOrd::from(p)), (r, c), keepdims)
        }
        o => Err(Error::invalid(
            "norm",
            format!("invalid norm order {o:?} for matrices"),
        )),
    }
}

/// The norm of `a` (NumPy's `linalg.norm` without `axis`): with `ord` `None`, the 2-norm
/// of the flattened array (the Frobenius norm of a matrix), for any shape; with an
/// `ord`, the vector norm of a 1-D `a` or the matrix norm of a 2-D one. A 0-d array on
/// the device; never waits for the GPU (except the `Nuc`, `2` and `-2` matrix norms, which
/// take an SVD). Real for complex input ([`SolverElement::Spectral`]): the norms of the
/// magnitudes, and the singular values of the complex matrix.
///
/// ```no_run
/// use cuarray::linalg::{norm, NormOrd};
/// let dev = cuarray::Device::new(0)?;
/// let v = cuarray::DeviceArray::from_slice(&dev, &[3.0f32, -4.0])?;
/// assert_eq!(norm(&v, None)?.to_scalar()?, 5.0);
/// assert_eq!(norm(&v, Some(NormOrd::Inf))?.to_scalar()?, 4.0);
/// assert_eq!(norm(&v, Some(1.0.into()))?.to_scalar()?, 7.0);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] for an `ord` with an array that is neither 1-D nor 2-D, or
/// an order that does not apply (`Fro` for a vector, `P(3.0)` for a matrix).
pub fn norm<T: SolverElement>(
    a: &DeviceArray<T>,
    ord: Option<NormOrd>,
) -> Result<DeviceArray<T::Spectral>> {
    match (ord, a.ndim()) {
        (None, _) => {
            let m = magnitudes(a)?;
            m.mul(&m)?.sum()?.sqrt()
        }
        (Some(_), 1) => vector_norm(a, ord, 0, false),
        (Some(_), 2) => matrix_norm(a, ord, (0, 1), false),
        (Some(o), d) => Err(Error::invalid(
            "norm",
            format!("norm order {o:?} needs a 1-D or 2-D array, got {d} dimensions"),
        )),
    }
}

/// Vector norms along `axis` (NumPy's `linalg.norm(a, ord, axis=axis)`): `ord` as for a
/// vector in [`norm`] (`None`: the 2-norm).
///
/// ```no_run
/// use cuarray::{Device, DeviceArray};
/// use cuarray::linalg::{norm_axis, NormOrd};
/// let dev = Device::new(0)?;
/// let a = DeviceArray::from_host(&dev, &[3.0f32, 4.0, 6.0, 8.0], &[2, 2])?;
/// assert_eq!(norm_axis(&a, None, -1)?.to_host()?, vec![5.0, 10.0]);
/// assert_eq!(norm_axis(&a, Some(NormOrd::P(1.0)), 0)?.to_host()?, vec![9.0, 12.0]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::AxisOutOfRange`]; [`Error::InvalidArgument`] for a matrix-only order.
pub fn norm_axis<T: SolverElement>(
    a: &DeviceArray<T>,
    ord: Option<NormOrd>,
    axis: isize,
) -> Result<DeviceArray<T::Spectral>> {
    let ax = normalize_axis("norm", axis, a.ndim())?;
    vector_norm(a, ord, ax as isize, false)
}

/// Norms over one axis (vector norms) or two axes (matrix norms of the matrices in those
/// axes), NumPy's `linalg.norm(a, ord, axis=axes, keepdims=keepdims)`.
///
/// ```no_run
/// use cuarray::linalg::{norm_axes, NormOrd};
/// let dev = cuarray::Device::new(0)?;
/// let a = cuarray::DeviceArray::<f64>::ones(&dev, &[5, 3, 4])?;
/// let fro = norm_axes(&a, None, &[-2, -1], false)?;            // shape [5]
/// let ones = norm_axes(&a, Some(NormOrd::P(1.0)), &[1, 2], true)?;   // shape [5, 1, 1]
/// assert_eq!(ones.shape(), &[5, 1, 1]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::AxisOutOfRange`]; [`Error::InvalidArgument`] for other than one or two
/// distinct axes, or an order that does not apply.
pub fn norm_axes<T: SolverElement>(
    a: &DeviceArray<T>,
    ord: Option<NormOrd>,
    axes: impl IntoAxes,
    keepdims: bool,
) -> Result<DeviceArray<T::Spectral>> {
    let axes = axes.axes();
    let ax: Vec<usize> = axes
        .iter()
        .map(|&x| normalize_axis("norm", x, a.ndim()))
        .collect::<Result<_>>()?;
    match ax[..] {
        [x] => vector_norm(a, ord, x as isize, keepdims),
        [r, c] if r != c => matrix_norm(a, ord, (r, c), keepdims),
        _ => Err(Error::invalid(
            "norm",
            format!("needs one or two distinct axes, got {axes:?}"),
        )),
    }
}
