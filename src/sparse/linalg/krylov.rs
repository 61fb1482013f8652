//! Krylov solvers of general (non-Hermitian) square systems: [`gmres`], [`bicgstab`]
//! and [`cgs`].

use super::arnoldi::Arnoldi;
use super::common::{check_square, from_c64, info, norm_host, precondition, start, target, to_c64};
use super::{Info, LinearOperator, Tol};
use crate::sparse::SparseElement;
use crate::{s, Complex64, ContractElement, DeviceArray, InexactElement, Result};

/// The least-squares problem of one GMRES cycle, on the host: `h` holds the Hessenberg
/// matrix by columns (column `j` at `j * (restart + 1)`, `j + 2` entries), `beta` the
/// residual norm the cycle started from. Applies Givens rotations column by column and
/// stops at the first column whose residual estimate meets `target`. Returns the number
/// of columns used, the coefficients `y` of the update along them, and the estimate.
fn hessenberg_lstsq(
    h: &[Complex64],
    restart: usize,
    beta: f64,
    target: f64,
) -> (usize, Vec<Complex64>, f64) {
    let zero = Complex64::new(0.0, 0.0);
    let mut r = vec![vec![zero; restart]; restart]; // r[j]: column j of the triangle
    let mut rot: Vec<(f64, Complex64)> = Vec::with_capacity(restart);
    let mut g = vec![zero; restart + 1];
    g[0] = Complex64::new(beta, 0.0);
    let (mut k, mut estimate) = (0, beta);
    for j in 0..restart {
        let mut col: Vec<Complex64> = h[j * (restart + 1)..j * (restart + 1) + j + 2].to_vec();
        if col.iter().any(|z| !z.re.is_finite() || !z.im.is_finite()) {
            break;
        }
        for (i, &(c, s)) in rot.iter().enumerate() {
            let (a, b) = (col[i], col[i + 1]);
            col[i] = a * c + s * b;
            col[i + 1] = -s.conj() * a + b * c;
        }
        let (a, b) = (col[j], col[j + 1]);
        let norm = a.norm().hypot(b.norm());
        if norm == 0.0 {
            break;
        }
        let (c, s, diag) = if a.norm() == 0.0 {
            (0.0, Complex64::new(1.0, 0.0), b)
        } else {
            let phase = a / a.norm();
            (a.norm() / norm, phase * b.conj() / norm, phase * norm)
        };
        rot.push((c, s));
        col[j] = diag;
        g[j + 1] = -s.conj() * g[j];
        g[j] *= c;
        r[j][..=j].copy_from_slice(&col[..=j]);
        k = j + 1;
        estimate = g[j + 1].norm();
        if estimate <= target {
            break;
        }
    }
    let mut y = vec![zero; k];
    for i in (0..k).rev() {
        let mut acc = g[i];
        for (jj, yj) in y.iter().enumerate().skip(i + 1) {
            acc -= r[jj][i] * yj;
        }
        y[i] = acc / r[i][i];
    }
    (k, y, estimate)
}

/// Solves `A x = b` for a square `A` by the restarted generalised minimal residual method
/// (SciPy's `gmres`), from `x0` (zeros when `None`), with `restart` Arnoldi steps per
/// cycle (20 when `None`, at most `n`) and at most `maxiter` cycles (`10 n` when `None`,
/// SciPy's count). `m` (an approximation of `A⁻¹`) preconditions on the right: the
/// iteration minimises the true residual `‖b - A x‖`.
///
/// Each cycle runs its `restart` Arnoldi steps (classical Gram–Schmidt, applied twice,
/// as two matrix products with the basis) without a host synchronisation; then the
/// small Hessenberg matrix is read back once, its least-squares problem solved on the
/// host (the update uses the shortest prefix of the cycle whose residual estimate meets
/// the tolerance), and the true residual of the new `x` is read back: two
/// synchronisations per cycle. `Info::iterations` counts Arnoldi steps used.
///
/// ```no_run
/// use cuarray::sparse::{self, linalg};
/// use cuarray::{Device, DeviceArray};
/// let dev = Device::new(0)?;
/// let main = DeviceArray::from_slice(&dev, &[3.0f64])?;
/// let lower = DeviceArray::from_slice(&dev, &[-1.5f64])?;
/// let upper = DeviceArray::from_slice(&dev, &[-0.5f64])?;
/// // A non-symmetric tridiagonal matrix (1-D convection-diffusion).
/// let a = sparse::diags::<f64, i32>(&dev, &[&lower, &main, &upper], &[-1, 0, 1], (200, 200))?;
/// let b = DeviceArray::<f64>::ones(&dev, &[200])?;
/// let tol = linalg::Tol { rtol: 1e-10, atol: 0.0 };
/// let (x, info) = linalg::gmres(&a, &b, None, tol, None, None, Some(30))?;
/// assert!(info.converged);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::ShapeMismatch`](crate::Error::ShapeMismatch) when `A` is not square, or `b`,
/// `x0` or `m` do not match it; the operators' own errors. Not converging is no error:
/// see [`Info`].
pub fn gmres<T: SparseElement + ContractElement + InexactElement>(
    a: &dyn LinearOperator<T>,
    b: &DeviceArray<T>,
    x0: Option<&DeviceArray<T>>,
    tol: Tol,
    maxiter: Option<usize>,
    m: Option<&dyn LinearOperator<T>>,
    restart: Option<usize>,
) -> Result<(DeviceArray<T>, Info)> {
    const OP: &str = "sparse::linalg::gmres";
    let n = check_square(OP, a, b, x0, m)?;
    let (target, bnorm) = target(tol, b)?;
    if bnorm == 0.0 || n == 0 {
        return Ok((DeviceArray::zeros(b.device(), &[n])?, info(true, 0, 0.0)));
    }
    let restart = restart.unwrap_or(20).clamp(1, n);
    let maxiter = maxiter.unwrap_or(10 * n);
    let dev = b.device();
    let (x, mut r) = start(a, b, x0, n)?;
    // Row j of `arnoldi.h` holds column j of the Hessenberg matrix (j + 2 entries used).
    let arnoldi = Arnoldi::<T>::new(dev, restart, n)?;
    let (v, hd) = (&arnoldi.v, &arnoldi.h);
    let (mut iterations, mut cycle) = (0, 0);
    loop {
        let residual = norm_host(&r)?;
        if residual <= target {
            return Ok((x, info(true, iterations, residual)));
        }
        if cycle == maxiter || !residual.is_finite() {
            return Ok((x, info(false, iterations, residual)));
        }
        v.slice(s![0, ..])?
            .assign(&r.mul(T::from_f64(1.0 / residual))?)?;
        for j in 0..restart {
            arnoldi.step(a, m, j)?;
        }
        let h: Vec<Complex64> = hd.to_host()?.into_iter().map(to_c64).collect();
        let (k, y, _) = hessenberg_lstsq(&h, restart, residual, target);
        if k == 0 {
            // Nothing to add (a breakdown in the first step): the iteration cannot move.
            return Ok((x, info(false, iterations, residual)));
        }
        iterations += k;
        let y: Vec<T> = y.into_iter().map(from_c64).collect();
        let y = DeviceArray::from_slice(dev, &y)?;
        let update = y.matmul(&v.slice(s![0..k, ..])?)?;
        x.add_assign(&precondition(m, &update)?)?;
        r = b.sub(&a.matvec(&x)?)?;
        cycle += 1;
    }
}

/// The state of a run checked every few iterations: the last `x` whose residual was
/// finite, returned when a breakdown (a zero denominator) spoils the iteration.
struct Checkpoint<T: crate::Element> {
    x: DeviceArray<T>,
    iterations: usize,
    residual: f64,
}

/// What a convergence check decided.
enum Check<T: crate::Element> {
    Continue,
    Done(DeviceArray<T>, Info),
}

impl<T: ContractElement> Checkpoint<T> {
    /// Reads `‖r‖` (one synchronisation) after `it` iterations and decides.
    fn check(
        &mut self,
        x: &DeviceArray<T>,
        r: &DeviceArray<T>,
        it: usize,
        target: f64,
        last: bool,
    ) -> Result<Check<T>> {
        let residual = norm_host(r)?;
        if !residual.is_finite() {
            let x = std::mem::replace(&mut self.x, x.clone());
            return Ok(Check::Done(x, info(false, self.iterations, self.residual)));
        }
        if residual <= target || last {
            return Ok(Check::Done(
                x.clone(),
                info(residual <= target, it, residual),
            ));
        }
        self.x = x.copy()?;
        self.iterations = it;
        self.residual = residual;
        Ok(Check::Continue)
    }
}

/// The shared start of [`bicgstab`] and [`cgs`]: checks, `x0`, the residual, and an early
/// answer when it already meets the tolerance (or `b = 0`).
#[allow(clippy::type_complexity)]
fn begin<T: SparseElement + ContractElement>(
    op: &'static str,
    a: &dyn LinearOperator<T>,
    b: &DeviceArray<T>,
    x0: Option<&DeviceArray<T>>,
    tol: Tol,
    m: Option<&dyn LinearOperator<T>>,
) -> Result<
    std::result::Result<
        (DeviceArray<T>, DeviceArray<T>, f64, Checkpoint<T>),
        (DeviceArray<T>, Info),
    >,
> {
    let n = check_square(op, a, b, x0, m)?;
    let (target, bnorm) = target(tol, b)?;
    if bnorm == 0.0 || n == 0 {
        return Ok(Err((
            DeviceArray::zeros(b.device(), &[n])?,
            info(true, 0, 0.0),
        )));
    }
    let (x, r) = start(a, b, x0, n)?;
    let residual = norm_host(&r)?;
    if residual <= target {
        return Ok(Err((x, info(true, 0, residual))));
    }
    let cp = Checkpoint {
        x: x.copy()?,
        iterations: 0,
        residual,
    };
    Ok(Ok((x, r, target, cp)))
}

/// Solves `A x = b` for a square `A` by the biconjugate gradient stabilised method
/// (SciPy's `bicgstab`), from `x0` (zeros when `None`), with the preconditioner `m` (an
/// approximation of `A⁻¹`), at most `maxiter` iterations (`10 n` when `None`).
///
/// Every scalar stays on the device; the residual is read back every
/// [`tuning::solver_check_interval`](crate::tuning::solver_check_interval) iterations. A
/// breakdown (a zero inner product) ends the run with `converged: false` and the last
/// checked `x`.
///
/// ```no_run
/// use cuarray::sparse::{self, linalg};
/// use cuarray::{Device, DeviceArray};
/// let dev = Device::new(0)?;
/// let main = DeviceArray::from_slice(&dev, &[3.0f64])?;
/// let lower = DeviceArray::from_slice(&dev, &[-1.5f64])?;
/// let upper = DeviceArray::from_slice(&dev, &[-0.5f64])?;
/// let a = sparse::diags::<f64, i32>(&dev, &[&lower, &main, &upper], &[-1, 0, 1], (200, 200))?;
/// let b = DeviceArray::<f64>::ones(&dev, &[200])?;
/// let (x, info) = linalg::bicgstab(&a, &b, None, linalg::Tol::default(), None, None)?;
/// assert!(info.converged);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// As [`gmres`].
pub fn bicgstab<T: SparseElement + ContractElement>(
    a: &dyn LinearOperator<T>,
    b: &DeviceArray<T>,
    x0: Option<&DeviceArray<T>>,
    tol: Tol,
    maxiter: Option<usize>,
    m: Option<&dyn LinearOperator<T>>,
) -> Result<(DeviceArray<T>, Info)> {
    let (x, mut r, target, mut cp) = match begin("sparse::linalg::bicgstab", a, b, x0, tol, m)? {
        Ok(state) => state,
        Err(done) => return Ok(done),
    };
    let maxiter = maxiter.unwrap_or(10 * b.size());
    let every = crate::tuning::solver_check_interval();
    let rtilde = r.copy()?;
    let mut p = r.copy()?;
    let mut v: Option<DeviceArray<T>> = None;
    let mut rho_prev: Option<DeviceArray<T>> = None;
    let (mut alpha, mut omega): (Option<DeviceArray<T>>, Option<DeviceArray<T>>) = (None, None);
    for it in 1..=maxiter {
        let rho = crate::vdot(&rtilde, &r)?;
        if let (Some(rp), Some(al), Some(om), Some(vv)) = (&rho_prev, &alpha, &omega, &v) {
            let beta = rho.div(rp)?.mul(&al.div(om)?)?;
            p = p.sub(&vv.mul(om)?)?.mul(&beta)?.add(&r)?;
        }
        let phat = precondition(m, &p)?;
        let vv = a.matvec(&phat)?;
        let al = rho.div(&crate::vdot(&rtilde, &vv)?)?;
        let s = r.sub(&vv.mul(&al)?)?;
        let shat = precondition(m, &s)?;
        let t = a.matvec(&shat)?;
        let om = crate::vdot(&t, &s)?.div(&crate::vdot(&t, &t)?)?;
        x.add_assign(&phat.mul(&al)?)?;
        x.add_assign(&shat.mul(&om)?)?;
        r = s.sub(&t.mul(&om)?)?;
        (rho_prev, alpha, omega, v) = (Some(rho), Some(al), Some(om), Some(vv));
        if it % every == 0 || it == maxiter {
            if let Check::Done(x, info) = cp.check(&x, &r, it, target, it == maxiter)? {
                return Ok((x, info));
            }
        }
    }
    Ok((x, info(false, maxiter, cp.residual)))
}

/// Solves `A x = b` for a square `A` by the conjugate gradient squared method (SciPy's
/// `cgs`), with the arguments and the checking of [`bicgstab`].
///
/// ```no_run
/// use cuarray::sparse::{self, linalg};
/// use cuarray::{Device, DeviceArray};
/// let dev = Device::new(0)?;
/// let main = DeviceArray::from_slice(&dev, &[3.0f64])?;
/// let off = DeviceArray::from_slice(&dev, &[-1.0f64])?;
/// let a = sparse::diags::<f64, i32>(&dev, &[&off, &main, &off], &[-1, 0, 1], (100, 100))?;
/// let b = DeviceArray::<f64>::ones(&dev, &[100])?;
/// let (x, info) = linalg::cgs(&a, &b, None, linalg::Tol::default(), None, None)?;
/// assert!(info.converged);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// As [`gmres`].
pub fn cgs<T: SparseElement + ContractElement>(
    a: &dyn LinearOperator<T>,
    b: &DeviceArray<T>,
    x0: Option<&DeviceArray<T>>,
    tol: Tol,
    maxiter: Option<usize>,
    m: Option<&dyn LinearOperator<T>>,
) -> Result<(DeviceArray<T>, Info)> {
    let (x, mut r, target, mut cp) = match begin("sparse::linalg::cgs", a, b, x0, tol, m)? {
        Ok(state) => state,
        Err(done) => return Ok(done),
    };
    let maxiter = maxiter.unwrap_or(10 * b.size());
    let every = crate::tuning::solver_check_interval();
    let rtilde = r.copy()?;
    let mut p = r.copy()?;
    let mut u = r.copy()?;
    let mut q: Option<DeviceArray<T>> = None;
    let mut rho_prev: Option<DeviceArray<T>> = None;
    for it in 1..=maxiter {
        let rho = crate::vdot(&rtilde, &r)?;
        if let (Some(rp), Some(qq)) = (&rho_prev, &q) {
            let beta = rho.div(rp)?;
            u = r.add(&qq.mul(&beta)?)?;
            p = p.mul(&beta)?.add(qq)?.mul(&beta)?.add(&u)?;
        }
        let phat = precondition(m, &p)?;
        let vhat = a.matvec(&phat)?;
        let alpha = rho.div(&crate::vdot(&rtilde, &vhat)?)?;
        let qq = u.sub(&vhat.mul(&alpha)?)?;
        let uhat = precondition(m, &u.add(&qq)?)?;
        x.add_assign(&uhat.mul(&alpha)?)?;
        let qhat = a.matvec(&uhat)?;
        r = r.sub(&qhat.mul(&alpha)?)?;
        (rho_prev, q) = (Some(rho), Some(qq));
        if it % every == 0 || it == maxiter {
            if let Check::Done(x, info) = cp.check(&x, &r, it, target, it == maxiter)? {
                return Ok((x, info));
            }
        }
    }
    Ok((x, info(false, maxiter, cp.residual)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hessenberg_least_squares_solves_the_projected_system() {
        // H = [[2, 1], [1, 3], [0, 0.5]] by columns (restart 2): col 0 = [2, 1, 0], col 1 = [1, 3, 0.5].
        let c = |x: f64| Complex64::new(x, 0.0);
        let h = vec![c(2.0), c(1.0), c(0.0), c(1.0), c(3.0), c(0.5)];
        let (k, y, est) = hessenberg_lstsq(&h, 2, 1.0, 0.0);
        assert_eq!(k, 2);
        // Normal equations of min ‖[1, 0, 0] - H y‖: (HᵀH) y = Hᵀ e1.
        let (a11, a12, a22) = (5.0, 5.0, 10.25);
        let (r1, r2) = (2.0, 1.0);
        let det = a11 * a22 - a12 * a12;
        let y0 = (r1 * a22 - a12 * r2) / det;
        let y1 = (a11 * r2 - a12 * r1) / det;
        assert!((y[0].re - y0).abs() < 1e-12 && (y[1].re - y1).abs() < 1e-12);
        let res = [1.0 - 2.0 * y0 - y1, -y0 - 3.0 * y1, -0.5 * y1];
        let norm = res.iter().map(|v| v * v).sum::<f64>().sqrt();
        assert!((est - norm).abs() < 1e-12);
    }

    #[test]
    fn hessenberg_least_squares_stops_at_the_tolerance() {
        // A happy breakdown: the first column's subdiagonal is 0, so one step solves it.
        let c = |x: f64| Complex64::new(x, 0.0);
        let h = vec![
            c(4.0),
            c(0.0),
            c(0.0),
            c(f64::NAN),
            c(f64::NAN),
            c(f64::NAN),
        ];
        let (k, y, est) = hessenberg_lstsq(&h, 2, 2.0, 1e-12);
        assert_eq!((k, est), (1, 0.0));
        assert_eq!(y, vec![c(0.5)]);
    }
}
