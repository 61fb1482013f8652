//! Matrix functions: [`matrix_power`] and [`expm`], on the matrix products and solves.

use super::{inv, norm_axes, solve, NormOrd, RealElement};
use crate::array::DeviceArray;
use crate::element::Element;
use crate::{Error, Result};

/// The identity stacked as `a`'s batch: shape `a.shape()`, each matrix `I`.
fn identity_like<T: RealElement>(a: &DeviceArray<T>) -> Result<DeviceArray<T>> {
    let n = a.shape()[a.ndim() - 1];
    DeviceArray::<T>::eye(a.device(), n)?
        .broadcast_to(a.shape())?
        .contiguous()
}

/// The square-matrix check shared by the matrix functions.
fn square<T: RealElement>(op: &'static str, a: &DeviceArray<T>) -> Result<()> {
    let d = a.ndim();
    if d < 2 || a.shape()[d - 1] != a.shape()[d - 2] {
        return Err(Error::invalid(
            op,
            format!("a stack of square matrices, not shape {:?}", a.shape()),
        ));
    }
    Ok(())
}

/// NumPy's `linalg.matrix_power`: `a` multiplied by itself `n` times (binary powering:
/// about `2 log2 n` products); `n = 0` gives the identity, a negative `n` the power of the
/// inverse. Stacks of matrices work matrix by matrix.
///
/// ```no_run
/// use cuarray::{linalg, Device, DeviceArray};
/// let dev = Device::new(0)?;
/// let a = DeviceArray::from_host(&dev, &[1.0f64, 1.0, 0.0, 1.0], &[2, 2])?;
/// assert_eq!(linalg::matrix_power(&a, 3)?.to_host()?, vec![1.0, 3.0, 0.0, 1.0]);
/// assert_eq!(linalg::matrix_power(&a, -1)?.to_host()?, vec![1.0, -1.0, 0.0, 1.0]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] when `a` is not a stack of square matrices;
/// [`Error::Singular`] for a negative power of a singular matrix.
pub fn matrix_power<T: RealElement>(a: &DeviceArray<T>, n: i64) -> Result<DeviceArray<T>> {
    square("matrix_power", a)?;
    if n == 0 {
        return identity_like(a);
    }
    let mut base = if n < 0 { inv(a)? } else { a.clone() };
    let mut e = n.unsigned_abs();
    let mut acc: Option<DeviceArray<T>> = None;
    loop {
        if e & 1 == 1 {
            acc = Some(match acc {
                None => base.clone(),
                Some(r) => r.matmul(&base)?,
            });
        }
        e >>= 1;
        if e == 0 {
            break;
        }
        base = base.matmul(&base)?;
    }
    let r = acc.expect("n != 0");
    // n = 1 returns a copy, as NumPy.
    if n == 1 {
        r.copy()
    } else {
        Ok(r)
    }
}

/// Padé 13 coefficients (Higham 2005).
const PADE13: [f64; 14] = [
    64764752532480000.0,
    32382376266240000.0,
    7771770303897600.0,
    1187353796428800.0,
    129060195264000.0,
    10559470521600.0,
    670442572800.0,
    33522128640.0,
    1323241920.0,
    40840800.0,
    960960.0,
    16380.0,
    182.0,
    1.0,
];
/// The largest 1-norm for which Padé 13 is accurate to double precision unscaled.
const THETA13: f64 = 5.371920351148152;

/// SciPy's `linalg.expm`: the matrix exponential by scaling and squaring with the
/// degree-13 Padé approximant (Higham 2005): `a` scaled by `2^-s` so that its 1-norm is at
/// most θ13 = 5.37, the approximant `(V - U)⁻¹ (V + U)` (6 products and one solve), then
/// `s` squarings. Stacks of matrices share the largest `s`.
///
/// # Synchronization
/// The 1-norm decides `s`: one small read (a norm per matrix) waits for the GPU.
///
/// ```no_run
/// use cuarray::{linalg, Device, DeviceArray};
/// let dev = Device::new(0)?;
/// let a = DeviceArray::from_host(&dev, &[0.0f64, 1.0, 0.0, 0.0], &[2, 2])?;
/// let e = linalg::expm(&a)?.to_host()?; // [[1, 1], [0, 1]] to rounding
/// assert!(e.iter().zip([1.0, 1.0, 0.0, 1.0]).all(|(x, w)| (x - w).abs() < 1e-12));
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] when `a` is not a stack of square matrices.
pub fn expm<T: RealElement>(a: &DeviceArray<T>) -> Result<DeviceArray<T>> {
    square("expm", a)?;
    if a.size() == 0 {
        return a.copy();
    }
    let norms = norm_axes(a, Some(NormOrd::P(1.0)), &[-2, -1], false)?.to_host()?;
    let nmax = norms
        .iter()
        .map(|&v| Element::to_f64(v))
        .fold(0.0f64, f64::max);
    if !nmax.is_finite() {
        // NaN or inf entries: the result is NaN where SciPy's is.
        return a.mul(<T as Element>::from_f64(f64::NAN));
    }
    let s = if nmax > THETA13 {
        (nmax / THETA13).log2().ceil() as i32
    } else {
        0
    };
    let c = |k: usize| <T as Element>::from_f64(PADE13[k]);
    let a = if s > 0 {
        a.mul(<T as Element>::from_f64(0.5f64.powi(s)))?
    } else {
        a.clone()
    };
    let ident = identity_like(&a)?;
    let a2 = a.matmul(&a)?;
    let a4 = a2.matmul(&a2)?;
    let a6 = a4.matmul(&a2)?;
    // U = A (A6 (b13 A6 + b11 A4 + b9 A2) + b7 A6 + b5 A4 + b3 A2 + b1 I)
    let w1 = a6.mul(c(13))?.add(&a4.mul(c(11))?)?.add(&a2.mul(c(9))?)?;
    let w2 = a6
        .mul(c(7))?
        .add(&a4.mul(c(5))?)?
        .add(&a2.mul(c(3))?)?
        .add(&ident.mul(c(1))?)?;
    let u = a.matmul(&a6.matmul(&w1)?.add(&w2)?)?;
    // V = A6 (b12 A6 + b10 A4 + b8 A2) + b6 A6 + b4 A4 + b2 A2 + b0 I
    let z1 = a6.mul(c(12))?.add(&a4.mul(c(10))?)?.add(&a2.mul(c(8))?)?;
    let z2 = a6
        .mul(c(6))?
        .add(&a4.mul(c(4))?)?
        .add(&a2.mul(c(2))?)?
        .add(&ident.mul(c(0))?)?;
    let v = a6.matmul(&z1)?.add(&z2)?;
    let mut r = solve(&v.sub(&u)?, &v.add(&u)?)?;
    for _ in 0..s {
        r = r.matmul(&r)?;
    }
    Ok(r)
}
