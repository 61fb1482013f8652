//! [`expm_multiply`]: the action of the matrix exponential (Al-Mohy and Higham).

use super::direct::norm;
use crate::array::same_device;
use crate::linalg::NormOrd;
use crate::sparse::{CsrMatrix, SparseElement, SparseIndex};
use crate::{DeviceArray, Element, Error, FloatElement, Result};

/// `θ_m` of Al-Mohy and Higham (2011) for double precision: the largest `‖A‖₁` for which
/// `m` Taylor terms reach the unit roundoff (SciPy's `_theta`).
const THETA: [(usize, f64); 35] = [
    (1, 2.29e-16),
    (2, 2.58e-8),
    (3, 1.39e-5),
    (4, 3.40e-4),
    (5, 2.40e-3),
    (6, 9.07e-3),
    (7, 2.38e-2),
    (8, 5.00e-2),
    (9, 8.96e-2),
    (10, 1.44e-1),
    (11, 2.14e-1),
    (12, 3.00e-1),
    (13, 4.00e-1),
    (14, 5.14e-1),
    (15, 6.41e-1),
    (16, 7.81e-1),
    (17, 9.31e-1),
    (18, 1.09),
    (19, 1.26),
    (20, 1.44),
    (21, 1.62),
    (22, 1.82),
    (23, 2.01),
    (24, 2.22),
    (25, 2.43),
    (26, 2.64),
    (27, 2.86),
    (28, 3.08),
    (29, 3.31),
    (30, 3.54),
    (35, 4.7),
    (40, 6.0),
    (45, 7.2),
    (50, 8.5),
    (55, 9.9),
];

/// The number of Taylor terms `m` and of scaling steps `s` for a matrix of 1-norm
/// `norm1`: the pair of least cost `m s` with `norm1 / s ≤ θ_m` (`(0, 1)` for a zero
/// matrix).
pub(crate) fn taylor_degree(norm1: f64) -> (usize, usize) {
    if norm1 == 0.0 {
        return (0, 1);
    }
    THETA
        .iter()
        .map(|&(m, theta)| (m, ((norm1 / theta).ceil() as usize).max(1)))
        .min_by_key(|&(m, s)| m.saturating_mul(s))
        .unwrap_or((55, 1))
}

/// `exp(A) B` for a square sparse `A` and a 1-D or 2-D `b` (SciPy's `expm_multiply`
/// with its defaults), without forming `exp(A)`: Al-Mohy and Higham's truncated Taylor
/// series with scaling, `s` steps of `m` terms, `m` and `s` from `‖A‖₁` and their table
/// of `θ_m`.
///
/// `‖A‖₁` is read back once (one synchronisation); then all `m s` sparse products are
/// queued without waiting: unlike SciPy, every term of each step is summed (no early
/// stop on the size of the last terms, which would read norms back at each term), and
/// `A` is not shifted by `trace(A) / n` first; both only cost extra products, never
/// accuracy.
///
/// ```no_run
/// use cuarray::sparse::{self, linalg};
/// use cuarray::{Device, DeviceArray};
/// let dev = Device::new(0)?;
/// let a = sparse::eye::<f64, i32>(&dev, 3, 0)?;
/// let b = DeviceArray::from_slice(&dev, &[1.0, 2.0, 3.0])?;
/// let y = linalg::expm_multiply(&a, &b)?.to_host()?; // e · b
/// assert!((y[0] - std::f64::consts::E).abs() < 1e-12);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::ShapeMismatch`] when `A` is not square or `b` does not have `n` rows;
/// [`Error::DeviceMismatch`] across devices; cuSPARSE's error.
pub fn expm_multiply<T: SparseElement, I: SparseIndex>(
    a: &CsrMatrix<T, I>,
    b: &DeviceArray<T>,
) -> Result<DeviceArray<T>>
where
    T::Real: SparseElement + FloatElement,
{
    const OP: &str = "sparse::linalg::expm_multiply";
    same_device(OP, a.device(), b.device())?;
    let (m, n) = a.shape();
    if m != n || !(b.ndim() == 1 || b.ndim() == 2) || b.shape()[0] != n {
        return Err(Error::ShapeMismatch {
            op: OP,
            msg: format!(
                "needs a square matrix and b of shape [{m}] or [{m}, k], got ({m}, {n}) and {:?}",
                b.shape()
            ),
            lhs: vec![m, n],
            rhs: b.shape().to_vec(),
        });
    }
    let norm1 = norm(a, Some(NormOrd::P(1.0)))?.to_scalar()?.to_f64();
    if !norm1.is_finite() {
        return Err(Error::invalid(OP, "A has entries that are not finite"));
    }
    let (terms, steps) = taylor_degree(norm1);
    let f = b.contiguous()?.copy()?;
    for _ in 0..steps {
        // Each step multiplies by exp(A / s): F + A F / s + A² F / (2 s²) + ...
        let mut term = f.copy()?;
        for j in 0..terms {
            let coeff = 1.0 / (steps as f64 * (j + 1) as f64);
            term = (a * &term)?.mul(T::from_f64(coeff))?;
            f.add_assign(&term)?;
        }
    }
    Ok(f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn degree_and_steps_follow_the_cost() {
        assert_eq!(taylor_degree(0.0), (0, 1));
        // A tiny norm needs few terms and one step.
        let (m, s) = taylor_degree(1e-3);
        assert_eq!(s, 1);
        assert!(m <= 5, "{m}");
        // θ_55 = 9.9: a norm of 100 needs 11 steps of 55 terms or cheaper.
        let (m, s) = taylor_degree(100.0);
        assert!(m * s <= 55 * 11);
        assert!(100.0 / s as f64 <= THETA.iter().find(|t| t.0 == m).unwrap().1);
    }
}
