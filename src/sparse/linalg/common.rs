//! What the solvers share: argument checks, the start of an iteration, host-side
//! conversions of the scalars they read back, and small vector helpers.

use super::{Info, LinearOperator, Tol};
use crate::ops::catalogue::UnaryOp;
use crate::{Complex64, ContractElement, DType, DeviceArray, Element, Error, Result};

/// The value of a scalar as a `Complex64` (the imaginary part 0 for real types).
pub(crate) fn to_c64<T: Element>(v: T) -> Complex64 {
    let bytes = bytemuck::bytes_of(&v);
    match T::DTYPE {
        DType::C64 => {
            let part = |i: usize| {
                f32::from_ne_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]) as f64
            };
            Complex64::new(part(0), part(4))
        }
        DType::C128 => {
            let part = |i: usize| {
                let mut b = [0u8; 8];
                b.copy_from_slice(&bytes[i..i + 8]);
                f64::from_ne_bytes(b)
            };
            Complex64::new(part(0), part(8))
        }
        _ => Complex64::new(v.to_f64(), 0.0),
    }
}

/// The scalar of type `T` nearest `z` (the imaginary part dropped for real types).
pub(crate) fn from_c64<T: Element>(z: Complex64) -> T {
    let mut bytes = [0u8; 16];
    let size = match T::DTYPE {
        DType::C64 => {
            bytes[..4].copy_from_slice(&(z.re as f32).to_ne_bytes());
            bytes[4..8].copy_from_slice(&(z.im as f32).to_ne_bytes());
            8
        }
        DType::C128 => {
            bytes[..8].copy_from_slice(&z.re.to_ne_bytes());
            bytes[8..].copy_from_slice(&z.im.to_ne_bytes());
            16
        }
        _ => return T::from_f64(z.re),
    };
    // Every bit pattern of the two parts is a valid complex number.
    bytemuck::checked::pod_read_unaligned(&bytes[..size])
}

/// The elementwise conjugate of `a` (`a` itself, shared, for real types).
pub(crate) fn conj<T: Element>(a: &DeviceArray<T>) -> Result<DeviceArray<T>> {
    if T::DTYPE.is_complex() {
        a.map::<T>(UnaryOp::Conj.name(), UnaryOp::Conj.body(), &[])
    } else {
        Ok(a.clone())
    }
}

/// `‖v‖` read back to the host (the one synchronisation of a convergence check).
pub(crate) fn norm_host<T: ContractElement>(v: &DeviceArray<T>) -> Result<f64> {
    Ok(crate::vdot(v, v)?.to_scalar()?.to_f64().max(0.0).sqrt())
}

/// `‖v‖` as a 0-d device array (`sqrt(vdot(v, v))`, no synchronisation).
pub(crate) fn norm_device<T: ContractElement + crate::InexactElement>(
    v: &DeviceArray<T>,
) -> Result<DeviceArray<T>> {
    crate::vdot(v, v)?.sqrt()
}

/// Several 0-d device scalars read back in one copy.
pub(crate) fn read_scalars<T: Element>(s: &[&DeviceArray<T>]) -> Result<Vec<T>> {
    crate::stack(s, 0)?.to_host()
}

/// The operators and vectors of a square solve `A x = b`: checks the shapes and returns
/// `n`.
pub(crate) fn check_square<T: Element>(
    op: &'static str,
    a: &dyn LinearOperator<T>,
    b: &DeviceArray<T>,
    x0: Option<&DeviceArray<T>>,
    m: Option<&dyn LinearOperator<T>>,
) -> Result<usize> {
    let (rows, n) = a.shape();
    let mismatch = |msg: String| Error::ShapeMismatch {
        op,
        msg,
        lhs: vec![rows, n],
        rhs: b.shape().to_vec(),
    };
    if rows != n {
        return Err(mismatch(format!("A must be square, got ({rows}, {n})")));
    }
    if b.shape() != [n] {
        return Err(mismatch(format!(
            "b must have shape [{n}], got {:?}",
            b.shape()
        )));
    }
    if let Some(x0) = x0 {
        if x0.shape() != [n] {
            return Err(mismatch(format!(
                "x0 must have shape [{n}], got {:?}",
                x0.shape()
            )));
        }
    }
    if let Some(m) = m {
        if m.shape() != (n, n) {
            return Err(mismatch(format!(
                "M must have shape ({n}, {n}), got {:?}",
                m.shape()
            )));
        }
    }
    Ok(n)
}

/// Where an iteration on `A x = b` starts: `x0` (copied; zeros when `None`) and its
/// residual `b - A x0`.
pub(crate) fn start<T: ContractElement>(
    a: &dyn LinearOperator<T>,
    b: &DeviceArray<T>,
    x0: Option<&DeviceArray<T>>,
    n: usize,
) -> Result<(DeviceArray<T>, DeviceArray<T>)> {
    match x0 {
        Some(x0) => {
            let x = x0.contiguous()?.copy()?;
            let r = b.sub(&a.matvec(&x)?)?;
            Ok((x, r))
        }
        None => Ok((
            DeviceArray::zeros(b.device(), &[n])?,
            b.contiguous()?.copy()?,
        )),
    }
}

/// `max(atol, rtol ‖b‖)` and `‖b‖`.
pub(crate) fn target<T: ContractElement>(tol: Tol, b: &DeviceArray<T>) -> Result<(f64, f64)> {
    let bnorm = norm_host(b)?;
    Ok((tol.atol.max(tol.rtol * bnorm), bnorm))
}

/// `M r` (`r` itself without a preconditioner).
pub(crate) fn precondition<T: Element>(
    m: Option<&dyn LinearOperator<T>>,
    r: &DeviceArray<T>,
) -> Result<DeviceArray<T>> {
    match m {
        Some(m) => m.matvec(r),
        None => Ok(r.clone()),
    }
}

/// The [`Info`] of a run that stopped after `iterations` with `residual`.
pub(crate) fn info(converged: bool, iterations: usize, residual: f64) -> Info {
    Info {
        converged,
        iterations,
        residual,
    }
}

/// A plane rotation `(c, s, r)` with `c a + s b = r`, `-s a + c b = 0` for real `a`, `b`
/// (SciPy's `_sym_ortho`, stable for every ratio of the two).
pub(crate) fn sym_ortho(a: f64, b: f64) -> (f64, f64, f64) {
    if b == 0.0 {
        (if a == 0.0 { 1.0 } else { a.signum() }, 0.0, a.abs())
    } else if a == 0.0 {
        (0.0, b.signum(), b.abs())
    } else if b.abs() > a.abs() {
        let tau = a / b;
        let s = b.signum() / (1.0 + tau * tau).sqrt();
        let c = s * tau;
        (c, s, b / s)
    } else {
        let tau = b / a;
        let c = a.signum() / (1.0 + tau * tau).sqrt();
        let s = c * tau;
        (c, s, a / c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Complex32;

    #[test]
    fn scalar_conversions() {
        assert_eq!(to_c64(2.5f32), Complex64::new(2.5, 0.0));
        assert_eq!(to_c64(Complex32::new(1.0, -2.0)), Complex64::new(1.0, -2.0));
        assert_eq!(to_c64(Complex64::new(3.0, 4.0)), Complex64::new(3.0, 4.0));
        let z = Complex64::new(1.5, -0.5);
        assert_eq!(from_c64::<Complex32>(z), Complex32::new(1.5, -0.5));
        assert_eq!(from_c64::<Complex64>(z), z);
        assert_eq!(from_c64::<f64>(z), 1.5);
    }

    #[test]
    fn rotations_zero_the_second_entry() {
        for (a, b) in [
            (3.0, 4.0),
            (-1.0, 2.0),
            (0.0, -2.0),
            (5.0, 0.0),
            (1e-300, 1.0),
        ] {
            let (c, s, r) = sym_ortho(a, b);
            assert!((c * a + s * b - r).abs() <= 1e-12 * r.abs().max(1.0));
            assert!((-s * a + c * b).abs() <= 1e-12 * r.abs().max(1.0));
            assert!((c * c + s * s - 1.0).abs() < 1e-12);
        }
    }
}
