//! Least squares and the pseudo-inverse through the SVD: [`lstsq`], [`pinv`].

use super::common::{ct, full, matrices};
use super::cusolver::SolverElement;
#[cfg(doc)]
use super::svd::svd;
use super::svd::svd_impl;
use super::RealElement;
use crate::array::{where_, DeviceArray};
use crate::element::Element;
use crate::{Error, Result};

/// `1 / s` where `s > cutoff` (broadcast), else 0: the pseudo-inverse of singular values.
fn inverse_above<T: RealElement>(
    s: &DeviceArray<T>,
    cutoff: &DeviceArray<T>,
) -> Result<DeviceArray<T>> {
    let keep = s.gt(cutoff)?;
    let one = DeviceArray::full(s.device(), s.shape(), T::ONE)?;
    where_(&keep, one.div(s)?, T::ZERO)
}

/// What [`lstsq`] returns, NumPy's four results: `(x, residuals, rank, singular_values)`.
pub type Lstsq<T> = (
    DeviceArray<T>,
    DeviceArray<<T as SolverElement>::Spectral>,
    usize,
    DeviceArray<<T as SolverElement>::Spectral>,
);

/// The least-squares solution of `a @ x = b` (NumPy's `linalg.lstsq` with `rcond=None`):
/// `a` is `(m, n)`, `b` `(m,)` or `(m, k)`. Returns NumPy's four results: `x` (`(n,)` or
/// `(n, k)`), the residuals (the squared 2-norm of `b - a @ x` per column, shape `(k,)`
/// or `(1,)`, when the rank is `n` and `m > n`; else an empty array), the rank (singular
/// values above `eps * max(m, n)` times the largest) and the singular values of `a`
/// (residuals and singular values real for complex types).
///
/// Through the SVD: `x = V diag(1/s) Uᴴ b` over the singular values counted in the rank.
/// The rank is read back to the host, so this waits for the GPU.
///
/// ```no_run
/// use cuarray::{Device, DeviceArray, linalg};
/// let dev = Device::new(0)?;
/// // Fit y = 2 t + 1 through (0, 1), (1, 3), (2, 5): columns t and 1.
/// let a = DeviceArray::from_host(&dev, &[0.0f64, 1.0, 1.0, 1.0, 2.0, 1.0], &[3, 2])?;
/// let b = DeviceArray::from_slice(&dev, &[1.0f64, 3.0, 5.0])?;
/// let (x, _residuals, rank, _s) = linalg::lstsq(&a, &b)?;
/// assert_eq!(rank, 2);
/// assert!(x.to_host()?.iter().zip([2.0, 1.0]).all(|(v, w)| (v - w).abs() < 1e-12));
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] when `a` is not 2-D; [`Error::ShapeMismatch`] when `b`'s
/// rows are not `a`'s.
pub fn lstsq<T: SolverElement>(a: &DeviceArray<T>, b: &DeviceArray<T>) -> Result<Lstsq<T>> {
    let _range = crate::profile::range("lstsq");
    let dev = a.device();
    b.used_by("lstsq", dev)?;
    if a.ndim() != 2 || !(1..=2).contains(&b.ndim()) {
        return Err(Error::invalid(
            "lstsq",
            format!(
                "needs a 2-D matrix and a 1-D or 2-D right-hand side, got shapes {:?} and {:?}",
                a.shape(),
                b.shape()
            ),
        ));
    }
    let (m, n) = (a.shape()[0], a.shape()[1]);
    if b.shape()[0] != m {
        return Err(Error::ShapeMismatch {
            op: "lstsq",
            msg: format!("b has {} rows, a has {m}", b.shape()[0]),
            lhs: a.shape().to_vec(),
            rhs: b.shape().to_vec(),
        });
    }
    let vector = b.ndim() == 1;
    let b2 = if vector {
        b.expand_dims(-1)?
    } else {
        b.clone()
    };
    let kk = b2.shape()[1];
    let (u, s, vh) = svd_impl("lstsq", a, false, true)?;
    let k = m.min(n);
    let (x, rank) = if k == 0 {
        (DeviceArray::zeros(dev, &[n, kk])?, 0)
    } else {
        let eps = if T::Spectral::DTYPE == crate::DType::F32 {
            f32::EPSILON as f64
        } else {
            f64::EPSILON
        };
        let cutoff = s.max()?.mul(T::Spectral::from_f64(eps * m.max(n) as f64))?;
        let rank = s.gt(&cutoff)?.sum()?.to_scalar()? as usize;
        let s_inv = inverse_above(&s, &cutoff)?;
        // x = Vhᴴ (diag(s_inv) (Uᴴ b)).
        let utb = ct(&u)?.matmul(&b2)?;
        let scaled = utb.mul(&s_inv.astype::<T>()?.expand_dims(-1)?)?;
        (ct(&vh)?.matmul(&scaled)?, rank)
    };
    let residuals = if rank == n && m > n {
        let r = b2.sub(&a.matmul(&x)?)?;
        r.abs()?.square()?.sum_axis(0)?
    } else {
        DeviceArray::zeros(dev, &[0])?
    };
    let x = if vector { x.squeeze_axis(-1)? } else { x };
    Ok((x, residuals, rank, s))
}

/// The Moore-Penrose pseudo-inverse of each matrix of `a` (NumPy's `linalg.pinv` with
/// its default `rcond = 1e-15`): `V diag(1/s) Uᴴ` over the singular values above
/// `1e-15` times the largest. Shape `(..., n, m)` for `a` `(..., m, n)`.
///
/// ```no_run
/// use cuarray::{Device, DeviceArray, linalg};
/// let dev = Device::new(0)?;
/// let a = DeviceArray::from_host(&dev, &[1.0f64, 0.0, 0.0, 2.0, 0.0, 0.0], &[3, 2])?;
/// let p = linalg::pinv(&a)?;
/// assert_eq!(p.shape(), &[2, 3]);
/// let want = [1.0, 0.0, 0.0, 0.0, 0.5, 0.0];
/// assert!(p.to_host()?.iter().zip(want).all(|(v, w)| (v - w).abs() < 1e-12));
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// As [`svd`].
pub fn pinv<T: SolverElement>(a: &DeviceArray<T>) -> Result<DeviceArray<T>> {
    let _range = crate::profile::range("pinv");
    let (batch, m, n) = matrices("pinv", a.shape())?;
    if m.min(n) == 0 {
        return DeviceArray::zeros(a.device(), &full(&batch, n, m));
    }
    let (u, s, vh) = svd_impl("pinv", a, false, true)?;
    let cutoff = s.max_keepdim(-1)?.mul(T::Spectral::from_f64(1e-15))?;
    let s_inv = inverse_above(&s, &cutoff)?.astype::<T>()?;
    ct(&vh)?.mul(&s_inv.expand_dims(-2)?)?.matmul(&ct(&u)?)
}
