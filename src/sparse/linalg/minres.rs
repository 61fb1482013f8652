//! [`minres`]: the minimum residual method for Hermitian (possibly indefinite) systems.

use super::common::{check_square, info, precondition, read_scalars, start, target};
use super::{Info, LinearOperator, Tol};
use crate::sparse::SparseElement;
use crate::{ContractElement, DeviceArray, Error, Result};

/// Solves `A x = b` for a Hermitian (real: symmetric) `A`, definite or not, by the
/// minimum residual method (SciPy's `minres`, Paige and Saunders' recurrences), from
/// `x0` (zeros when `None`), with a Hermitian positive definite preconditioner `m` (an
/// approximation of `A⁻¹`), at most `maxiter` iterations (`5 n` when `None`).
///
/// The run stops when the recurrence's residual estimate meets `max(atol, rtol ‖b‖)`
/// (with `m`, the estimate is of `‖r‖` in the norm `m` defines); `Info::residual` is
/// that estimate. Each iteration reads its two Lanczos scalars back to the host in one
/// copy (the plane rotations run on the host); the vector work stays on the device.
///
/// ```no_run
/// use cuarray::sparse::{self, linalg};
/// use cuarray::{Device, DeviceArray};
/// let dev = Device::new(0)?;
/// // An indefinite tridiagonal matrix: diagonal -3, 3, -3, ..., off-diagonals 1.
/// let d: Vec<f64> = (0..100).map(|i| if i % 2 == 0 { -3.0 } else { 3.0 }).collect();
/// let main = DeviceArray::from_slice(&dev, &d)?;
/// let off = DeviceArray::from_slice(&dev, &[1.0f64])?;
/// let a = sparse::diags::<f64, i32>(&dev, &[&off, &main, &off], &[-1, 0, 1], (100, 100))?;
/// let b = DeviceArray::<f64>::ones(&dev, &[100])?;
/// let (x, info) = linalg::minres(&a, &b, None, linalg::Tol::default(), None, None)?;
/// assert!(info.converged);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::ShapeMismatch`] when `A` is not square, or `b`, `x0` or `m` do not match
/// it; [`Error::InvalidArgument`] when `m` is found not to be positive definite; the
/// operators' own errors. Not converging is no error: see [`Info`].
pub fn minres<T: SparseElement + ContractElement>(
    a: &dyn LinearOperator<T>,
    b: &DeviceArray<T>,
    x0: Option<&DeviceArray<T>>,
    tol: Tol,
    maxiter: Option<usize>,
    m: Option<&dyn LinearOperator<T>>,
) -> Result<(DeviceArray<T>, Info)> {
    const OP: &str = "sparse::linalg::minres";
    let n = check_square(OP, a, b, x0, m)?;
    let (target, bnorm) = target(tol, b)?;
    if bnorm == 0.0 || n == 0 {
        return Ok((DeviceArray::zeros(b.device(), &[n])?, info(true, 0, 0.0)));
    }
    let not_definite = || Error::invalid(OP, "the preconditioner M is not positive definite");
    let maxiter = maxiter.unwrap_or(5 * n);
    let (x, mut r1) = start(a, b, x0, n)?;
    let mut y = precondition(m, &r1)?;
    let beta1 = crate::vdot(&r1, &y)?.to_scalar()?.to_f64();
    if beta1 < 0.0 {
        return Err(not_definite());
    }
    let beta1 = beta1.sqrt();
    if beta1 <= target {
        return Ok((x, info(true, 0, beta1)));
    }
    let mut r2 = r1.clone();
    let (mut oldb, mut beta, mut dbar, mut epsln) = (0.0, beta1, 0.0, 0.0);
    let mut phibar = beta1;
    let (mut cs, mut sn) = (-1.0f64, 0.0f64);
    let zeros = DeviceArray::<T>::zeros(b.device(), &[n])?;
    let (mut w, mut w2) = (zeros.clone(), zeros);
    for itn in 1..=maxiter {
        let v = y.mul(T::from_f64(1.0 / beta))?;
        y = a.matvec(&v)?;
        if itn >= 2 {
            y = y.sub(&r1.mul(T::from_f64(beta / oldb))?)?;
        }
        let alfa_d = crate::vdot(&v, &y)?;
        y = y.sub(&r2.mul(&alfa_d)?.mul(T::from_f64(1.0 / beta))?)?;
        r1 = r2;
        r2 = y;
        y = precondition(m, &r2)?;
        let beta_d = crate::vdot(&r2, &y)?;
        let scalars = read_scalars(&[&alfa_d, &beta_d])?;
        let (alfa, beta2) = (scalars[0].to_f64(), scalars[1].to_f64());
        if beta2 < 0.0 {
            return Err(not_definite());
        }
        oldb = beta;
        beta = beta2.sqrt();
        // The previous rotation, then the next one.
        let oldeps = epsln;
        let delta = cs * dbar + sn * alfa;
        let gbar = sn * dbar - cs * alfa;
        epsln = sn * beta;
        dbar = -cs * beta;
        let gamma = gbar.hypot(beta).max(f64::EPSILON);
        cs = gbar / gamma;
        sn = beta / gamma;
        let phi = cs * phibar;
        phibar *= sn;
        // w = (v - oldeps w1 - delta w2) / gamma, with w1, w2 the previous two.
        let w1 = std::mem::replace(&mut w2, w);
        w = v
            .sub(&w1.mul(T::from_f64(oldeps))?)?
            .sub(&w2.mul(T::from_f64(delta))?)?
            .mul(T::from_f64(1.0 / gamma))?;
        x.add_assign(&w.mul(T::from_f64(phi))?)?;
        if phibar <= target || beta == 0.0 {
            return Ok((x, info(phibar <= target, itn, phibar)));
        }
        if !phibar.is_finite() || !beta.is_finite() {
            return Ok((x, info(false, itn, phibar)));
        }
    }
    Ok((x, info(false, maxiter, phibar)))
}
