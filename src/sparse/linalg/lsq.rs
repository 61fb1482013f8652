//! Least squares on the Golub–Kahan bidiagonalisation: [`lsqr`] and [`lsmr`].

use super::common::{info, norm_device, norm_host, read_scalars, sym_ortho};
use super::{Info, LinearOperator, Tol};
use crate::sparse::SparseElement;
use crate::{ContractElement, DeviceArray, Error, InexactElement, Result};

/// The bidiagonalisation's state: `u` (`m` elements) and `v` (`n`), unit vectors, with
/// the norms `beta` and `alpha` they were divided by.
struct Bidiag<'a, T: crate::Element> {
    a: &'a dyn LinearOperator<T>,
    u: DeviceArray<T>,
    v: DeviceArray<T>,
    alpha: f64,
}

impl<T: ContractElement + InexactElement> Bidiag<'_, T> {
    /// One step: `u = (A v - alpha u) / beta`, `v = (A^H u - beta v) / alpha'`, with the
    /// two norms computed on the device and read back together. Returns `(beta, alpha')`;
    /// after a zero `beta` or `alpha'` the vectors are not finite and the caller stops.
    fn step(&mut self) -> Result<(f64, f64)> {
        let u = self
            .a
            .matvec(&self.v)?
            .sub(&self.u.mul(T::from_f64(self.alpha))?)?;
        let beta = norm_device(&u)?;
        self.u = u.div(&beta)?;
        let v = self.a.rmatvec(&self.u)?.sub(&self.v.mul(&beta)?)?;
        let alpha = norm_device(&v)?;
        self.v = v.div(&alpha)?;
        let s = read_scalars(&[&beta, &alpha])?;
        let (beta, alpha) = (s[0].to_f64(), s[1].to_f64());
        self.alpha = if beta == 0.0 { 0.0 } else { alpha };
        Ok((beta, self.alpha))
    }
}

/// Checks the shapes of a least-squares problem and starts the bidiagonalisation:
/// `u = r0 / ‖r0‖` with `r0 = b - A x0`, `v = A^H u / ‖A^H u‖`. Returns `x`, the state,
/// `‖r0‖` and `‖b‖`.
#[allow(clippy::type_complexity)]
fn begin<'a, T: ContractElement + InexactElement>(
    op: &'static str,
    a: &'a dyn LinearOperator<T>,
    b: &DeviceArray<T>,
    x0: Option<&DeviceArray<T>>,
) -> Result<(DeviceArray<T>, Bidiag<'a, T>, f64, f64)> {
    let (m, n) = a.shape();
    let mismatch = |msg: String, got: &[usize]| Error::ShapeMismatch {
        op,
        msg,
        lhs: vec![m, n],
        rhs: got.to_vec(),
    };
    if b.shape() != [m] {
        return Err(mismatch(
            format!("b must have shape [{m}], got {:?}", b.shape()),
            b.shape(),
        ));
    }
    let (x, r) = match x0 {
        Some(x0) if x0.shape() != [n] => {
            return Err(mismatch(
                format!("x0 must have shape [{n}], got {:?}", x0.shape()),
                x0.shape(),
            ))
        }
        Some(x0) => {
            let x = x0.contiguous()?.copy()?;
            let r = b.sub(&a.matvec(&x)?)?;
            (x, r)
        }
        None => (
            DeviceArray::zeros(b.device(), &[n])?,
            b.contiguous()?.copy()?,
        ),
    };
    let bnorm = norm_host(b)?;
    let beta = norm_host(&r)?;
    let (u, v, alpha) = if beta > 0.0 && n > 0 {
        let u = r.mul(T::from_f64(1.0 / beta))?;
        let v = a.rmatvec(&u)?;
        let alpha = norm_host(&v)?;
        let v = if alpha > 0.0 {
            v.mul(T::from_f64(1.0 / alpha))?
        } else {
            v
        };
        (u, v, alpha)
    } else {
        (r, DeviceArray::zeros(b.device(), &[n])?, 0.0)
    };
    Ok((x, Bidiag { a, u, v, alpha }, beta, bnorm))
}

/// Solves the least-squares problem `min ‖b - A x‖² + damp² ‖x‖²` for any `(m, n)` `A`
/// by LSQR (SciPy's `lsqr`, Paige and Saunders), from `x0` (zeros when `None`), in at
/// most `maxiter` iterations (`2 n` when `None`). `A` needs
/// [`rmatvec`](LinearOperator::rmatvec) (sparse matrices and dense arrays have it;
/// [`FnOperator::with_rmatvec`](super::FnOperator::with_rmatvec) gives one to a closure).
///
/// The run stops when the residual estimate meets `max(atol, rtol ‖b‖)` (a consistent
/// system), or when `‖A^H r‖ ≤ rtol ‖A‖ ‖r‖` (a least-squares solution; `‖A‖` is the
/// bidiagonalisation's Frobenius estimate). `Info::residual` is the estimate of
/// `sqrt(‖b - A x‖² + damp² ‖x‖²)`. Each iteration reads the two norms of the
/// bidiagonalisation back to the host in one copy; the rotations run on the host.
///
/// ```no_run
/// use cuarray::sparse::{linalg, CsrMatrix};
/// use cuarray::Device;
/// let dev = Device::new(0)?;
/// // The line through (0, 1), (1, 3), (2, 5): intercept 1, slope 2.
/// let a = CsrMatrix::<f64>::from_triplets(&dev, &[0, 1, 1, 2, 2], &[0, 0, 1, 0, 1],
///     &[1.0, 1.0, 1.0, 1.0, 2.0], (3, 2))?;
/// let b = cuarray::DeviceArray::from_slice(&dev, &[1.0, 3.0, 5.0])?;
/// let tol = linalg::Tol { rtol: 1e-10, atol: 0.0 };
/// let (x, info) = linalg::lsqr(&a, &b, None, tol, None, 0.0)?;
/// assert!(info.converged);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::ShapeMismatch`] when `b` does not have `m` elements or `x0` `n`;
/// [`Error::InvalidArgument`] when `damp` is negative or not finite, or `A` has no
/// adjoint; the operator's own errors. Not converging is no error: see [`Info`].
pub fn lsqr<T: SparseElement + ContractElement + InexactElement>(
    a: &dyn LinearOperator<T>,
    b: &DeviceArray<T>,
    x0: Option<&DeviceArray<T>>,
    tol: Tol,
    maxiter: Option<usize>,
    damp: f64,
) -> Result<(DeviceArray<T>, Info)> {
    const OP: &str = "sparse::linalg::lsqr";
    check_damp(OP, damp)?;
    let (x, mut bd, beta, bnorm) = begin(OP, a, b, x0)?;
    let target = tol.atol.max(tol.rtol * bnorm);
    if bd.alpha * beta == 0.0 {
        return Ok((x, info(beta <= target || bd.alpha == 0.0, 0, beta)));
    }
    let maxiter = maxiter.unwrap_or(2 * a.shape().1);
    let mut w = bd.v.clone();
    let (mut rhobar, mut phibar) = (bd.alpha, beta);
    let (mut anorm2, mut res2) = (0.0f64, 0.0f64);
    let mut rnorm = beta;
    for itn in 1..=maxiter {
        let alpha_prev = bd.alpha;
        let (beta, alpha) = bd.step()?;
        anorm2 += alpha_prev * alpha_prev + beta * beta + damp * damp;
        // Eliminate the damping, then the subdiagonal.
        let (rhobar1, psi) = if damp > 0.0 {
            let rhobar1 = rhobar.hypot(damp);
            let psi = damp / rhobar1 * phibar;
            phibar *= rhobar / rhobar1;
            (rhobar1, psi)
        } else {
            (rhobar, 0.0)
        };
        let (cs, sn, rho) = sym_ortho(rhobar1, beta);
        let theta = sn * alpha;
        rhobar = -cs * alpha;
        let phi = cs * phibar;
        phibar *= sn;
        let tau = sn * phi;
        x.add_assign(&w.mul(T::from_f64(phi / rho))?)?;
        res2 += psi * psi;
        rnorm = (phibar * phibar + res2).sqrt();
        let arnorm = alpha * tau.abs();
        let converged = rnorm <= target || arnorm <= tol.rtol * anorm2.sqrt() * rnorm;
        if converged || beta == 0.0 || alpha == 0.0 {
            return Ok((
                x,
                info(converged || beta == 0.0 || alpha == 0.0, itn, rnorm),
            ));
        }
        if !rnorm.is_finite() {
            return Ok((x, info(false, itn, rnorm)));
        }
        w = bd.v.sub(&w.mul(T::from_f64(theta / rho))?)?;
    }
    Ok((x, info(false, maxiter, rnorm)))
}

fn check_damp(op: &'static str, damp: f64) -> Result<()> {
    if damp >= 0.0 && damp.is_finite() {
        Ok(())
    } else {
        Err(Error::invalid(
            op,
            format!("damp must be finite and ≥ 0, got {damp}"),
        ))
    }
}

/// Solves `min ‖b - A x‖² + damp² ‖x‖²` for any `(m, n)` `A` by LSMR (SciPy's `lsmr`,
/// Fong and Saunders: MINRES on the normal equations, so `‖A^H r‖` decreases
/// monotonically), from `x0` (zeros when `None`), in at most `maxiter` iterations
/// (`min(m, n)` when `None`, as SciPy). Stopping rules, `Info` and synchronisation as
/// [`lsqr`].
///
/// ```no_run
/// use cuarray::sparse::{linalg, CsrMatrix};
/// use cuarray::Device;
/// let dev = Device::new(0)?;
/// let a = CsrMatrix::<f64>::from_triplets(&dev, &[0, 1, 1, 2, 2], &[0, 0, 1, 0, 1],
///     &[1.0, 1.0, 1.0, 1.0, 2.0], (3, 2))?;
/// let b = cuarray::DeviceArray::from_slice(&dev, &[1.0, 3.0, 5.0])?;
/// let tol = linalg::Tol { rtol: 1e-10, atol: 0.0 };
/// let (x, info) = linalg::lsmr(&a, &b, None, tol, None, 0.0)?;
/// assert!(info.converged);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// As [`lsqr`].
pub fn lsmr<T: SparseElement + ContractElement + InexactElement>(
    a: &dyn LinearOperator<T>,
    b: &DeviceArray<T>,
    x0: Option<&DeviceArray<T>>,
    tol: Tol,
    maxiter: Option<usize>,
    damp: f64,
) -> Result<(DeviceArray<T>, Info)> {
    const OP: &str = "sparse::linalg::lsmr";
    check_damp(OP, damp)?;
    let (x, mut bd, beta, bnorm) = begin(OP, a, b, x0)?;
    let target = tol.atol.max(tol.rtol * bnorm);
    if bd.alpha * beta == 0.0 {
        return Ok((x, info(beta <= target || bd.alpha == 0.0, 0, beta)));
    }
    let (m, n) = a.shape();
    let maxiter = maxiter.unwrap_or(m.min(n));
    let mut zetabar = bd.alpha * beta;
    let mut alphabar = bd.alpha;
    let (mut rho, mut rhobar, mut cbar, mut sbar) = (1.0f64, 1.0f64, 1.0f64, 0.0f64);
    let mut h = bd.v.clone();
    let mut hbar = DeviceArray::<T>::zeros(b.device(), &[n])?;
    // The estimate of ‖r‖.
    let (mut betadd, mut betad, mut rhodold, mut tautildeold) = (beta, 0.0f64, 1.0f64, 0.0f64);
    let (mut thetatilde, mut zeta, mut d) = (0.0f64, 0.0f64, 0.0f64);
    let mut norm_a2 = bd.alpha * bd.alpha;
    let mut normr = beta;
    for itn in 1..=maxiter {
        let (beta, alpha) = bd.step()?;
        // The rotations of the bidiagonal (with the damping) and of its transpose.
        let (chat, shat, alphahat) = sym_ortho(alphabar, damp);
        let rhoold = rho;
        let (c, s, rho_new) = sym_ortho(alphahat, beta);
        rho = rho_new;
        let thetanew = s * alpha;
        alphabar = c * alpha;
        let rhobarold = rhobar;
        let zetaold = zeta;
        let thetabar = sbar * rho;
        let (cb, sb, rb) = sym_ortho(cbar * rho, thetanew);
        (cbar, sbar, rhobar) = (cb, sb, rb);
        zeta = cbar * zetabar;
        zetabar *= -sbar;
        // hbar = h - (thetabar rho / (rhoold rhobarold)) hbar; x += zeta / (rho rhobar) hbar;
        // h = v - (thetanew / rho) h.
        hbar = h.sub(&hbar.mul(T::from_f64(thetabar * rho / (rhoold * rhobarold)))?)?;
        x.add_assign(&hbar.mul(T::from_f64(zeta / (rho * rhobar)))?)?;
        h = bd.v.sub(&h.mul(T::from_f64(thetanew / rho))?)?;
        // ‖r‖ from the rotations.
        let betaacute = chat * betadd;
        let betacheck = -shat * betadd;
        let betahat = c * betaacute;
        betadd = -s * betaacute;
        let thetatildeold = thetatilde;
        let (ctildeold, stildeold, rhotildeold) = sym_ortho(rhodold, thetabar);
        thetatilde = stildeold * rhobar;
        rhodold = ctildeold * rhobar;
        betad = -stildeold * betad + ctildeold * betahat;
        tautildeold = (zetaold - thetatildeold * tautildeold) / rhotildeold;
        let taud = (zeta - thetatilde * tautildeold) / rhodold;
        d += betacheck * betacheck;
        normr = (d + (betad - taud).powi(2) + betadd * betadd).sqrt();
        norm_a2 += beta * beta;
        let norm_a = norm_a2.sqrt();
        norm_a2 += alpha * alpha;
        let normar = zetabar.abs();
        let converged = normr <= target || normar <= tol.rtol * norm_a * normr;
        if converged || beta == 0.0 || alpha == 0.0 {
            return Ok((
                x,
                info(converged || beta == 0.0 || alpha == 0.0, itn, normr),
            ));
        }
        if !normr.is_finite() {
            return Ok((x, info(false, itn, normr)));
        }
    }
    Ok((x, info(false, maxiter, normr)))
}
