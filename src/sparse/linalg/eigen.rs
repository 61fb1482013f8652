//! Extreme eigenpairs of Hermitian operators ([`eigsh`], thick-restart Lanczos) and
//! extreme singular triplets ([`svds`]).

use super::arnoldi::Arnoldi;
use super::common::{conj, norm_host, to_c64};
use super::symeig;
use super::LinearOperator;
use crate::sparse::SparseElement;
use crate::{
    s, Complex64, ContractElement, Device, DeviceArray, Element, Error, InexactElement, Result,
};

/// Which eigenvalues [`eigsh`] finds (SciPy's `which`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Which {
    /// The largest (algebraic) values, SciPy's `"LA"`.
    LargestAlgebraic,
    /// The smallest (algebraic) values, `"SA"`.
    SmallestAlgebraic,
    /// The largest absolute values, `"LM"` (SciPy's default).
    LargestMagnitude,
    /// The smallest absolute values, `"SM"` (slow to converge without a shift).
    SmallestMagnitude,
}

impl Which {
    /// The indices of `values` from the most wanted to the least.
    fn order(self, values: &[f64]) -> Vec<usize> {
        let mut idx: Vec<usize> = (0..values.len()).collect();
        let key = |i: usize| match self {
            Which::LargestAlgebraic => -values[i],
            Which::SmallestAlgebraic => values[i],
            Which::LargestMagnitude => -values[i].abs(),
            Which::SmallestMagnitude => values[i].abs(),
        };
        idx.sort_by(|&i, &j| key(i).total_cmp(&key(j)));
        idx
    }
}

/// The Ritz vectors `sum_j s[j][c] V[j]` for the columns `cols` of the `m x m` matrix `s`
/// (row-major), as the rows of a `(cols.len(), n)` array.
fn ritz_vectors<T: ContractElement>(
    dev: &Device,
    s: &[f64],
    m: usize,
    cols: &[usize],
    basis: &DeviceArray<T>,
) -> Result<DeviceArray<T>> {
    let coef: Vec<T> = cols
        .iter()
        .flat_map(|&c| (0..m).map(move |j| T::from_f64(s[j * m + c])))
        .collect();
    DeviceArray::from_host(dev, &coef, &[cols.len(), m])?.matmul(basis)
}

/// `k` eigenvalues and eigenvectors of a Hermitian (real: symmetric) operator `a` of
/// shape `(n, n)` (SciPy's `eigsh` without shift-invert), chosen by `which`, to relative
/// accuracy `tol` (0: the element type's machine epsilon), in at most `maxiter` restarts
/// (`10 n` when `None`). Returns the eigenvalues in ascending order and the eigenvectors
/// as the columns of an `(n, k)` array.
///
/// Thick-restart Lanczos (Wu and Simon) with full reorthogonalisation: a basis of
/// `ncv = min(n, max(2k + 1, k + 32))` vectors (CuPy's choice: more than SciPy's 20,
/// for fewer restarts on clustered spectra), each new one orthogonalised
/// against all the others by two classical Gram–Schmidt passes (matrix products with the
/// basis); at each restart the `k + (ncv - k) / 2` most wanted Ritz vectors are kept,
/// with their couplings to the next vector as the restarted Lanczos matrix's arrow.
/// The projected matrix (real symmetric, also for complex Hermitian `A`: the Lanczos
/// coefficients and the couplings are real) is read back once per restart and
/// diagonalised on the host (Householder, then implicit QL); a Ritz pair has converged when its residual `|β sᵢ|` is at most
/// `tol · max(|θᵢ|, ε^(2/3))` (ARPACK's test). The start vector is pseudo-random with a
/// fixed seed, so runs repeat exactly. The operator must name its device
/// ([`LinearOperator::device`]).
///
/// ```no_run
/// use cuarray::sparse::{self, linalg};
/// use cuarray::{Device, DeviceArray};
/// let dev = Device::new(0)?;
/// let main = DeviceArray::from_slice(&dev, &[2.0f64])?;
/// let off = DeviceArray::from_slice(&dev, &[-1.0f64])?;
/// let a = sparse::diags::<f64, i32>(&dev, &[&off, &main, &off], &[-1, 0, 1], (100, 100))?;
/// let (w, v) = linalg::eigsh(&a, 3, linalg::Which::LargestAlgebraic, 0.0, None)?;
/// assert_eq!((w.shape(), v.shape()), (&[3][..], &[100, 3][..]));
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] when `a` is not square, `k` is not in `1..n`, `tol` is
/// negative, or the operator names no device; [`Error::NoConvergence`] after `maxiter`
/// restarts (SciPy's `ArpackNoConvergence`); the operator's own errors.
pub fn eigsh<T: SparseElement + ContractElement + InexactElement>(
    a: &dyn LinearOperator<T>,
    k: usize,
    which: Which,
    tol: f64,
    maxiter: Option<usize>,
) -> Result<(DeviceArray<T::Real>, DeviceArray<T>)> {
    const OP: &str = "sparse::linalg::eigsh";
    let (n, cols) = a.shape();
    if n != cols {
        return Err(Error::invalid(
            OP,
            format!("A must be square, got ({n}, {cols})"),
        ));
    }
    if k == 0 || k >= n {
        return Err(Error::invalid(
            OP,
            format!("k must be in 1..n = {n}, got {k} (linalg::eigh finds all of them)"),
        ));
    }
    if tol.is_nan() || tol < 0.0 {
        return Err(Error::invalid(OP, format!("tol must be ≥ 0, got {tol}")));
    }
    let dev = a
        .device()
        .ok_or_else(|| {
            Error::invalid(
                OP,
                "the operator names no device (FnOperator::with_device gives one)",
            )
        })?
        .clone();
    let eps = if matches!(T::DTYPE, crate::DType::F32 | crate::DType::C64) {
        f32::EPSILON as f64
    } else {
        f64::EPSILON
    };
    let tol = if tol == 0.0 { eps } else { tol };
    let eps23 = eps.powf(2.0 / 3.0);
    let maxiter = maxiter.unwrap_or(10 * n).max(1);
    let ncv = n.min((2 * k + 1).max(k + 32));
    let start: Vec<T> = crate::random::HostGenerator::new(0x5eed)
        .random::<f64>(&[n])?
        .into_iter()
        .map(|x| T::from_f64(x - 0.5))
        .collect();
    // Row j of `arnoldi.h`: the coefficients of A v_j along v_0..v_{j+1}.
    let arnoldi = Arnoldi::<T>::new(&dev, ncv, n)?;
    let (v, hd) = (&arnoldi.v, &arnoldi.h);
    let v0 = DeviceArray::from_slice(&dev, &start)?;
    v.slice(s![0, ..])?
        .assign(&v0.mul(T::from_f64(1.0 / norm_host(&v0)?))?)?;
    let mut kept: Vec<f64> = Vec::new();
    // v_l's coupling to each kept Ritz vector y_i: v_l^H A y_i = β s_i (the last entry).
    let mut couple: Vec<f64> = Vec::new();
    for cycle in 0..maxiter {
        let l = kept.len();
        for j in l..ncv {
            arnoldi.step(a, None, j)?;
        }
        let hh: Vec<Complex64> = hd.to_host()?.into_iter().map(to_c64).collect();
        let at = |j: usize, i: usize| hh[j * (ncv + 1) + i];
        // The projected matrix; a (numerically) zero residual ends the basis early.
        let scale =
            kept.iter()
                .fold(0.0f64, |m, t| m.max(t.abs()))
                .max((l..ncv).fold(0.0f64, |m, j| {
                    m.max(at(j, j).norm()).max(at(j, j + 1).norm())
                }));
        let mut m = ncv;
        for j in l..ncv {
            let b = at(j, j + 1).norm();
            if b.is_nan() || b <= eps * scale {
                m = j + 1;
                break;
            }
        }
        // A basis of the whole space (ncv = n) leaves no residual: its last vector is
        // rounding noise.
        let beta = if m < ncv || ncv == n {
            0.0
        } else {
            at(ncv - 1, ncv).norm()
        };
        // The Lanczos matrix: the kept Ritz values with their couplings to v_l (an arrow),
        // then the tridiagonal of the new steps. The reorthogonalisation's coefficients
        // only clean the basis: they are rounding noise, left out.
        let mut h = vec![0.0f64; m * m];
        for (i, (t, c)) in kept.iter().zip(&couple).enumerate() {
            h[i * m + i] = *t;
            h[l * m + i] = *c;
            h[i * m + l] = *c;
        }
        for j in l..m {
            h[j * m + j] = at(j, j).re;
            if j + 1 < m {
                let b = at(j, j + 1).norm();
                h[j * m + j + 1] = b;
                h[(j + 1) * m + j] = b;
            }
        }
        let eig = if h.iter().all(|x| x.is_finite()) && m >= k {
            symeig::eigh(h, m)
        } else {
            None
        };
        let Some((theta, sv)) = eig else {
            return Err(Error::NoConvergence { op: OP, batch: 0 });
        };
        let order = which.order(&theta);
        let done = order[..k]
            .iter()
            .all(|&i| (beta * sv[(m - 1) * m + i].abs()) <= tol * theta[i].abs().max(eps23));
        if done {
            let mut wanted: Vec<usize> = order[..k].to_vec();
            wanted.sort_by(|&i, &j| theta[i].total_cmp(&theta[j]));
            let x = ritz_vectors(&dev, &sv, m, &wanted, &v.slice(s![0..m, ..])?)?;
            let w: Vec<T::Real> = wanted
                .iter()
                .map(|&i| T::Real::from_f64(theta[i]))
                .collect();
            return Ok((DeviceArray::from_slice(&dev, &w)?, x.t().contiguous()?));
        }
        if cycle + 1 == maxiter || m < ncv {
            break;
        }
        // Thick restart: keep the most wanted Ritz vectors and the residual direction.
        let keep = (k + (ncv - k) / 2).min(ncv - 1);
        let cols = &order[..keep];
        let x = ritz_vectors(&dev, &sv, m, cols, &v.slice(s![0..m, ..])?)?;
        v.slice(s![0..keep, ..])?.assign(&x)?;
        v.slice(s![keep, ..])?
            .assign(&v.slice(s![ncv, ..])?.copy()?)?;
        kept = cols.iter().map(|&i| theta[i]).collect();
        couple = cols.iter().map(|&i| sv[(m - 1) * m + i] * beta).collect();
    }
    Err(Error::NoConvergence { op: OP, batch: 0 })
}

/// `A^H A` (when `A` has at least as many rows as columns) or `A A^H`, of the smaller
/// size.
struct Normal<'a, T: Element> {
    a: &'a dyn LinearOperator<T>,
    tall: bool,
}

impl<T: Element> LinearOperator<T> for Normal<'_, T> {
    fn shape(&self) -> (usize, usize) {
        let (m, n) = self.a.shape();
        let s = if self.tall { n } else { m };
        (s, s)
    }
    fn matvec(&self, x: &DeviceArray<T>) -> Result<DeviceArray<T>> {
        if self.tall {
            self.a.rmatvec(&self.a.matvec(x)?)
        } else {
            self.a.matvec(&self.a.rmatvec(x)?)
        }
    }
    fn rmatvec(&self, x: &DeviceArray<T>) -> Result<DeviceArray<T>> {
        self.matvec(x)
    }
    fn device(&self) -> Option<&Device> {
        self.a.device()
    }
}

/// The `k` largest singular values of an `(m, n)` operator and their singular vectors
/// (SciPy's `svds` with its defaults): `(u, s, vh)` with `u` of shape `(m, k)`, `s` of
/// `k` values in ascending order, `vh` of shape `(k, n)`, `a ≈ u diag(s) vh` on those
/// triplets.
///
/// [`eigsh`] of the smaller of `A^H A` and `A A^H` (largest eigenvalues); the other
/// vectors are `A v / s` (or `A^H u / s`). Squaring `A` costs accuracy in the smallest
/// singular values: the largest, which `svds` finds, keep theirs. Needs `a`'s
/// [`rmatvec`](LinearOperator::rmatvec) and device.
///
/// ```no_run
/// use cuarray::sparse::{linalg, CsrMatrix};
/// let dev = cuarray::Device::new(0)?;
/// let a = CsrMatrix::<f64>::from_triplets(&dev, &[0, 1, 2, 3], &[0, 1, 2, 0], &[3.0, 2.0, 1.0, 4.0], (4, 3))?;
/// let (u, s, vh) = linalg::svds(&a, 2)?;
/// assert_eq!((u.shape(), s.shape(), vh.shape()), (&[4, 2][..], &[2][..], &[2, 3][..]));
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] when `k` is not in `1..min(m, n)`; as [`eigsh`].
#[allow(clippy::type_complexity)]
pub fn svds<T: SparseElement + ContractElement + InexactElement>(
    a: &dyn LinearOperator<T>,
    k: usize,
) -> Result<(DeviceArray<T>, DeviceArray<T::Real>, DeviceArray<T>)> {
    const OP: &str = "sparse::linalg::svds";
    let (m, n) = a.shape();
    if k == 0 || k >= m.min(n) {
        return Err(Error::invalid(
            OP,
            format!("k must be in 1..min(m, n) = {}, got {k}", m.min(n)),
        ));
    }
    let tall = m >= n;
    let normal = Normal { a, tall };
    let (w, vecs) = eigsh(&normal, k, Which::LargestAlgebraic, 0.0, None)?;
    let dev = vecs.device().clone();
    let sv: Vec<f64> = w
        .to_host()?
        .into_iter()
        .map(|x| x.to_f64().max(0.0).sqrt())
        .collect();
    // The other side, column by column: A v_i / s_i (or A^H u_i / s_i).
    let mut other = Vec::with_capacity(k);
    for (i, s) in sv.iter().enumerate() {
        let col = vecs.slice(s![.., i])?.contiguous()?;
        let mapped = if tall {
            a.matvec(&col)?
        } else {
            a.rmatvec(&col)?
        };
        let inv = if *s > 0.0 { 1.0 / s } else { 0.0 };
        other.push(mapped.mul(T::from_f64(inv))?);
    }
    let refs: Vec<&DeviceArray<T>> = other.iter().collect();
    let other = crate::stack(&refs, 1)?;
    let s_out: Vec<T::Real> = sv.iter().map(|&x| T::Real::from_f64(x)).collect();
    let s_out = DeviceArray::from_slice(&dev, &s_out)?;
    let (u, v) = if tall { (other, vecs) } else { (vecs, other) };
    Ok((u, s_out, conj(&v.t().contiguous()?)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn which_orders_by_preference() {
        let v = [-5.0, 1.0, 3.0, -0.5];
        assert_eq!(Which::LargestAlgebraic.order(&v), vec![2, 1, 3, 0]);
        assert_eq!(Which::SmallestAlgebraic.order(&v), vec![0, 3, 1, 2]);
        assert_eq!(Which::LargestMagnitude.order(&v), vec![0, 2, 1, 3]);
        assert_eq!(Which::SmallestMagnitude.order(&v), vec![3, 1, 2, 0]);
    }
}
