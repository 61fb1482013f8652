//! Complex arrays: the parts, conjugate and angle of [`Complex32`] and [`Complex64`]
//! arrays into real arrays, and [`complex`] from two real arrays. Arithmetic, `exp`, `log`,
//! `sqrt`, `abs`, reductions and `matmul` are the generic methods (`ArithElement`,
//! `InexactElement`, `GemmElement`); casts to and from real types are
//! [`astype`](DeviceArray::astype).
//!
//! # Complex semantics
//! As NumPy's: `*` is the textbook product (an infinite part times a zero part gives NaN,
//! as there); `/` uses Smith's method (no overflow or underflow for large or tiny parts of
//! the divisor; a zero divisor gives the parts divided by zero); `abs` is `hypot(re, im)`
//! (no overflow); `exp`, `log` and `sqrt` follow C99's special values (Annex G), with `log`
//! accurate near the unit circle and `sqrt`'s branch cut on the negative real axis. A real
//! scalar with a complex array (`&z * 2.0f32`) becomes `x + 0i` first, as in NumPy.
//! `astype` from complex to a real type keeps the real part (NumPy's `ComplexWarning` cast,
//! without the warning), to bool "either part non-zero".
//!
//! [`Complex32`]: crate::Complex32
//! [`Complex64`]: crate::Complex64

use super::operand::{ArrayOrScalar, OperandValue};
use super::DeviceArray;
use crate::element::{ComplexElement, FloatElement};
use crate::ops::catalogue::{UnaryOp, COMPLEX_BODY};
use crate::ops::elementwise;
use crate::shape::broadcast_shapes;
use crate::Result;
use num_complex::Complex;

macro_rules! part_methods {
    ($($(#[doc = $doc:literal])* $method:ident => $op:ident -> $out:ty),* $(,)?) => {
        impl<T: ComplexElement> DeviceArray<T> {
            $(
                $(#[doc = $doc])*
                ///
                /// # Errors
                /// [`Error::OutOfMemory`](crate::Error::OutOfMemory) when the device is full.
                pub fn $method(&self) -> Result<DeviceArray<$out>> {
                    self.map(UnaryOp::$op.name(), UnaryOp::$op.body(), &[])
                }
            )*
        }
    };
}

part_methods! {
    /// The real parts, as a new real array (`f32` for [`Complex32`](crate::Complex32)).
    ///
    /// ```no_run
    /// use cuarray::{Complex32, DeviceArray};
    /// let dev = cuarray::Device::new(0)?;
    /// let z = DeviceArray::from_slice(&dev, &[Complex32::new(1.0, 2.0)])?;
    /// assert_eq!(z.real()?.to_host()?, vec![1.0f32]);
    /// assert_eq!(z.imag()?.to_host()?, vec![2.0f32]);
    /// assert_eq!(z.conj()?.to_host()?, vec![Complex32::new(1.0, -2.0)]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    real => Real -> T::Real,
    /// The imaginary parts, as a new real array.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray, Complex64};
    /// let dev = Device::new(0)?;
    /// let z = DeviceArray::from_slice(&dev, &[Complex64::new(1.0, 2.0), Complex64::new(3.0, -4.0)])?;
    /// assert_eq!(z.imag()?.to_host()?, vec![2.0, -4.0]); // NumPy's z.imag
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    imag => Imag -> T::Real,
    /// The argument `atan2(im, re)` of each element, in `(-π, π]`, as a real array
    /// (NumPy's `angle`, in radians).
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray, Complex64};
    /// let dev = Device::new(0)?;
    /// let z = DeviceArray::from_slice(&dev, &[Complex64::new(1.0, 0.0), Complex64::new(-1.0, 0.0)])?;
    /// assert_eq!(z.angle()?.to_host()?, vec![0.0, std::f64::consts::PI]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    angle => Angle -> T::Real,
    /// The complex conjugates `re - im·i`.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray, Complex32};
    /// let dev = Device::new(0)?;
    /// let z = DeviceArray::from_slice(&dev, &[Complex32::new(3.0, 4.0)])?;
    /// let zz = z.mul(&z.conj()?)?; // |z|² as a complex number
    /// assert_eq!(zz.to_host()?, vec![Complex32::new(25.0, 0.0)]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    conj => Conj -> T,
}

/// The complex array `re + im·i` from two real arrays (or scalars) of the same part type,
/// broadcast together: `f32` parts give a [`Complex32`](crate::Complex32) array, `f64`
/// parts a [`Complex64`](crate::Complex64) one. At least one of the two is an array.
///
/// ```no_run
/// use cuarray::{Complex64, DeviceArray};
/// let dev = cuarray::Device::new(0)?;
/// let re = DeviceArray::from_slice(&dev, &[1.0f64, 2.0])?;
/// let z = cuarray::complex(&re, 0.5)?;
/// assert_eq!(z.to_host()?, vec![Complex64::new(1.0, 0.5), Complex64::new(2.0, 0.5)]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::Broadcast`](crate::Error::Broadcast) when the shapes do not broadcast;
/// [`Error::InvalidArgument`](crate::Error::InvalidArgument) when both are scalars;
/// [`Error::DeviceMismatch`](crate::Error::DeviceMismatch) across devices.
pub fn complex<R>(
    re: impl ArrayOrScalar<R>,
    im: impl ArrayOrScalar<R>,
) -> Result<DeviceArray<Complex<R>>>
where
    R: FloatElement,
    Complex<R>: ComplexElement<Real = R>,
{
    let (re, im) = (re.into_operand()?, im.into_operand()?);
    let device = match (&re, &im) {
        (OperandValue::Array(x), _) | (_, OperandValue::Array(x)) => x.device().clone(),
        _ => {
            return Err(crate::Error::invalid(
                "complex",
                "needs at least one array among re and im (got two scalars)",
            ))
        }
    };
    let (re, im) = (re.to_array(&device)?, im.to_array(&device)?);
    re.used_by("complex", &device)?;
    im.used_by("complex", &device)?;
    let shape = broadcast_shapes("complex", re.shape(), im.shape())?;
    let out = DeviceArray::<Complex<R>>::alloc_uninit(&device, &shape)?;
    elementwise::run(
        &device,
        "complex",
        COMPLEX_BODY,
        &[out.operand()?],
        &[re.operand_as(&shape)?, im.operand_as(&shape)?],
        &[],
    )?;
    Ok(out)
}
