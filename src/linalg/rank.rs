//! The rank and condition number of matrices, from their singular values and norms.

use super::{inv, norm_axes, svdvals, NormOrd, RealElement};
use crate::array::DeviceArray;
use crate::element::Element;
use crate::{Error, Result};

/// NumPy's `linalg.matrix_rank` of one matrix: the number of singular values above `tol`
/// (default `σ_max · max(m, n) · ε`, as NumPy). A 1-D array has rank 1 unless all zero.
///
/// # Synchronization
/// The count comes back to the host: one wait for the GPU.
///
/// ```no_run
/// use cuarray::{linalg, Device, DeviceArray};
/// let dev = Device::new(0)?;
/// let a = DeviceArray::from_host(&dev, &[1.0f64, 2.0, 2.0, 4.0], &[2, 2])?;
/// assert_eq!(linalg::matrix_rank(&a, None)?, 1);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] for an array of more than two dimensions or a negative `tol`.
pub fn matrix_rank<T: RealElement>(a: &DeviceArray<T>, tol: Option<f64>) -> Result<usize> {
    const OP: &str = "matrix_rank";
    if tol.is_some_and(|t| t < 0.0 || t.is_nan()) {
        return Err(Error::invalid(
            OP,
            format!("tol = {tol:?}: a non-negative number"),
        ));
    }
    let s: Vec<f64> = match a.ndim() {
        0 | 1 => {
            let nz = a.to_host()?.iter().any(|&v| Element::to_f64(v) != 0.0);
            return Ok(usize::from(nz));
        }
        2 => svdvals(a)?
            .to_host()?
            .iter()
            .map(|&v| Element::to_f64(v))
            .collect(),
        d => {
            return Err(Error::invalid(
                OP,
                format!("one matrix (2 dimensions), not {d}"),
            ))
        }
    };
    let smax = s.iter().copied().fold(0.0f64, f64::max);
    let eps = Element::to_f64(<T as num_traits::Float>::epsilon());
    let tol = tol.unwrap_or(smax * a.shape()[0].max(a.shape()[1]) as f64 * eps);
    Ok(s.iter().filter(|&&x| x > tol).count())
}

/// NumPy's `linalg.cond`: the condition number of each matrix of a stack in the norm `p`:
/// `None` or `P(2.0)` the ratio of the largest to the smallest singular value (`P(-2.0)`
/// its inverse), other orders (`Fro`, `Nuc`, `Inf`, `NegInf`, `P(1.0)`, `P(-1.0)`)
/// `norm(a) · norm(inv(a))`. A singular matrix gives `inf` in the 2-norm (as NumPy) and
/// [`Error::Singular`] in the others (NumPy gives `inf` there too).
///
/// ```no_run
/// use cuarray::{linalg, Device, DeviceArray};
/// let dev = Device::new(0)?;
/// let a = DeviceArray::from_host(&dev, &[2.0f64, 0.0, 0.0, 0.5], &[2, 2])?;
/// assert_eq!(linalg::cond(&a, None)?.to_scalar()?, 4.0);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] for fewer than two dimensions (or, outside the 2-norms, a
/// matrix that is not square).
pub fn cond<T: RealElement>(a: &DeviceArray<T>, p: Option<NormOrd>) -> Result<DeviceArray<T>> {
    if a.ndim() < 2 {
        return Err(Error::invalid(
            "cond",
            format!("a stack of matrices, not shape {:?}", a.shape()),
        ));
    }
    match p {
        None | Some(NormOrd::P(2.0)) | Some(NormOrd::P(-2.0)) => {
            let s = svdvals(a)?;
            let (hi, lo) = (s.max_axis(-1)?, s.min_axis(-1)?);
            if p == Some(NormOrd::P(-2.0)) {
                lo.div(&hi)
            } else {
                hi.div(&lo)
            }
        }
        Some(o) => norm_axes(a, Some(o), &[-2, -1], false)?.mul(&norm_axes(
            &inv(a)?,
            Some(o),
            &[-2, -1],
            false,
        )?),
    }
}
