//! Element types: the sealed [`Element`] trait and the [`DType`] names used by kernels.

use half::{bf16, f16};
use num_complex::Complex;

/// Single-precision complex numbers: two `f32`s, real part first (NumPy's `complex64`).
pub type Complex32 = Complex<f32>;
/// Double-precision complex numbers: two `f64`s, real part first (NumPy's `complex128`).
pub type Complex64 = Complex<f64>;

/// The name of an element type, used for kernel names, cache keys and messages.
///
/// Dispatch on element types happens at compile time through [`Element`]; `DType` only
/// names things.
///
/// ```no_run
/// use cuarray::{Device, DeviceArray, DType, Element};
/// let dev = Device::new(0)?;
/// let a = DeviceArray::<f32>::zeros(&dev, &[2])?;
/// assert_eq!(a.dtype(), DType::F32);
/// assert_eq!(a.astype::<i64>()?.dtype(), <i64 as Element>::DTYPE);
/// assert_eq!(DType::F32.to_string(), "f32");
/// # Ok::<(), cuarray::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DType {
    /// `bool`
    Bool,
    /// `i8`
    I8,
    /// `i16`
    I16,
    /// `i32`
    I32,
    /// `i64`
    I64,
    /// `u8`
    U8,
    /// `u16`
    U16,
    /// `u32`
    U32,
    /// `u64`
    U64,
    /// `half::f16`
    F16,
    /// `half::bf16`
    BF16,
    /// `f32`
    F32,
    /// `f64`
    F64,
    /// [`Complex32`] (`num_complex::Complex<f32>`), NumPy's `complex64`: short name `c64`,
    /// counting bits as NumPy does (the whole number, not one part).
    C64,
    /// [`Complex64`] (`num_complex::Complex<f64>`), NumPy's `complex128`: short name
    /// `c128`.
    C128,
}

impl DType {
    /// Every dtype, in a fixed order.
    pub const ALL: [DType; 15] = [
        DType::Bool,
        DType::I8,
        DType::I16,
        DType::I32,
        DType::I64,
        DType::U8,
        DType::U16,
        DType::U32,
        DType::U64,
        DType::F16,
        DType::BF16,
        DType::F32,
        DType::F64,
        DType::C64,
        DType::C128,
    ];

    /// NumPy-style short name (`"f32"`, `"bf16"`, `"bool"`, `"c64"`...). Complex types
    /// count the bits of the whole number, as NumPy's `complex64` (two `f32`s) does.
    ///
    /// ```
    /// use cuarray::{DType, Element};
    /// assert_eq!(DType::F32.name(), "f32");
    /// assert_eq!(<cuarray::Complex32 as Element>::DTYPE.name(), "c64"); // NumPy's complex64
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub const fn name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::I8 => "i8",
            DType::I16 => "i16",
            DType::I32 => "i32",
            DType::I64 => "i64",
            DType::U8 => "u8",
            DType::U16 => "u16",
            DType::U32 => "u32",
            DType::U64 => "u64",
            DType::F16 => "f16",
            DType::BF16 => "bf16",
            DType::F32 => "f32",
            DType::F64 => "f64",
            DType::C64 => "c64",
            DType::C128 => "c128",
        }
    }

    /// The type's spelling in the kernel sources (see `kernels/common.cuh`).
    ///
    /// ```
    /// use cuarray::DType;
    /// assert_eq!(DType::F32.cuda_type(), "float");
    /// assert_eq!(DType::U64.cuda_type(), "unsigned long long");
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub const fn cuda_type(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::I8 => "signed char",
            DType::I16 => "short",
            DType::I32 => "int",
            DType::I64 => "long long",
            DType::U8 => "unsigned char",
            DType::U16 => "unsigned short",
            DType::U32 => "unsigned int",
            DType::U64 => "unsigned long long",
            DType::F16 => "cuarray_f16",
            DType::BF16 => "cuarray_bf16",
            DType::F32 => "float",
            DType::F64 => "double",
            DType::C64 => "cuarray_c64",
            DType::C128 => "cuarray_c128",
        }
    }

    /// Size of one element in bytes.
    ///
    /// ```
    /// use cuarray::DType;
    /// assert_eq!(DType::F16.size(), 2);
    /// assert_eq!(DType::C128.size(), 16);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub const fn size(self) -> usize {
        match self {
            DType::Bool | DType::I8 | DType::U8 => 1,
            DType::I16 | DType::U16 | DType::F16 | DType::BF16 => 2,
            DType::I32 | DType::U32 | DType::F32 => 4,
            DType::I64 | DType::U64 | DType::F64 | DType::C64 => 8,
            DType::C128 => 16,
        }
    }

    /// True for the floating-point types.
    ///
    /// ```
    /// use cuarray::DType;
    /// assert!(DType::BF16.is_float());
    /// assert!(!DType::C64.is_float() && !DType::I32.is_float());
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub const fn is_float(self) -> bool {
        matches!(self, DType::F16 | DType::BF16 | DType::F32 | DType::F64)
    }

    /// True for the complex types.
    ///
    /// ```
    /// use cuarray::DType;
    /// assert!(DType::C64.is_complex());
    /// assert!(!DType::F64.is_complex());
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub const fn is_complex(self) -> bool {
        matches!(self, DType::C64 | DType::C128)
    }

    /// The type of one part of a complex type (`f32` for `c64`); any other type itself.
    ///
    /// ```
    /// use cuarray::DType;
    /// assert_eq!(DType::C128.real(), DType::F64);
    /// assert_eq!(DType::I8.real(), DType::I8);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub const fn real(self) -> DType {
        match self {
            DType::C64 => DType::F32,
            DType::C128 => DType::F64,
            other => other,
        }
    }

    /// True for the signed integer types.
    ///
    /// ```
    /// use cuarray::DType;
    /// assert!(DType::I16.is_signed_int());
    /// assert!(!DType::U16.is_signed_int() && !DType::F32.is_signed_int());
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub const fn is_signed_int(self) -> bool {
        matches!(self, DType::I8 | DType::I16 | DType::I32 | DType::I64)
    }
}

impl std::fmt::Display for DType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

mod sealed {
    pub trait Sealed {}
}

/// A type that can live in a [`DeviceArray`](crate::DeviceArray).
///
/// Implemented for `f32, f64, f16, bf16, i8, i16, i32, i64, u8, u16, u32, u64, bool`,
/// [`Complex32`] and [`Complex64`], and sealed: the kernels know exactly these types.
///
/// Every element type is a plain value without padding whose bytes are its device
/// representation (num-complex's `Complex<T>` is `#[repr(C)]`, real part first), so
/// transfers copy bytes. The trait says so through bytemuck: every element type is
/// [`bytemuck::NoUninit`] (its bytes can be viewed as `&[u8]`) and
/// [`bytemuck::CheckedBitPattern`] (bytes can be checked and read as one: any bytes for
/// the numbers, 0 or 1 for `bool`). It does not require cudarc's `DeviceRepr` (cuarray
/// passes kernel arguments as bytes of its own), which num-complex's types could not
/// implement.
///
/// ```
/// let v = [1.0f32, -2.0];
/// let bytes: &[u8] = bytemuck::cast_slice(&v); // any `Element` slice, as bytes
/// assert_eq!(bytes.len(), 8);
/// assert!(bytemuck::checked::try_cast_slice::<u8, bool>(&[0, 1, 2]).is_err());
/// ```
pub trait Element:
    sealed::Sealed
    + bytemuck::NoUninit
    + bytemuck::CheckedBitPattern
    + Copy
    + Default
    + PartialEq
    + Send
    + Sync
    + std::fmt::Debug
    + std::fmt::Display
    + 'static
{
    /// The runtime name of the type.
    const DTYPE: DType;
    /// The value zero (`false` for bool).
    const ZERO: Self;
    /// The value one (`true` for bool).
    const ONE: Self;
    /// Converts to `f64` (exact for every type but `i64`/`u64` beyond 2^53; the real part
    /// of a complex number).
    fn to_f64(self) -> f64;
    /// Converts from `f64` as Rust's `as` does (saturating for integers; `x != 0` for bool;
    /// imaginary part 0 for complex types).
    fn from_f64(v: f64) -> Self;
    /// The value as `i64`, wrapping for `u64` (used for exact integer kernel arguments).
    fn to_i64_wrapping(self) -> i64;
    /// Result type of `sum` and `prod` (NumPy's: `i64` for signed integers and bool, `u64`
    /// for unsigned, the type itself for floats and complex types).
    type Sum: Element;
    /// Result type of `mean`, `var` and `std` (`f64` for integers and bool, the type
    /// itself for floats and, for `mean`, complex types).
    type Mean: Element;
    /// Writes the value as an array printout shows it: Rust's `Display`, except complex
    /// numbers, written as NumPy does (`1+2j`, `-0.5-1j`).
    #[doc(hidden)]
    fn write_value(&self, out: &mut String) {
        use std::fmt::Write as _;
        let _ = write!(out, "{self}");
    }
}

macro_rules! impl_int {
    ($($t:ty => $d:ident, $sum:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl Element for $t {
            type Sum = $sum;
            type Mean = f64;
            const DTYPE: DType = DType::$d;
            const ZERO: Self = 0;
            const ONE: Self = 1;
            #[inline] fn to_f64(self) -> f64 { self as f64 }
            #[inline] fn from_f64(v: f64) -> Self { v as $t }
            #[inline] fn to_i64_wrapping(self) -> i64 { self as i64 }
        }
    )*};
}
impl_int!(i8 => I8, i64, i16 => I16, i64, i32 => I32, i64, i64 => I64, i64, u8 => U8, u64, u16 => U16, u64, u32 => U32, u64, u64 => U64, u64);

macro_rules! impl_float {
    ($($t:ty => $d:ident, $zero:expr, $one:expr, $to:expr, $from:expr);*) => {$(
        impl sealed::Sealed for $t {}
        impl Element for $t {
            type Sum = $t;
            type Mean = $t;
            const DTYPE: DType = DType::$d;
            const ZERO: Self = $zero;
            const ONE: Self = $one;
            #[inline] fn to_f64(self) -> f64 { $to(self) }
            #[inline] fn from_f64(v: f64) -> Self { $from(v) }
            #[inline] fn to_i64_wrapping(self) -> i64 { $to(self) as i64 }
        }
    )*};
}
impl_float!(
    f32 => F32, 0.0, 1.0, |x: f32| x as f64, |v: f64| v as f32;
    f64 => F64, 0.0, 1.0, |x: f64| x, |v: f64| v;
    f16 => F16, f16::ZERO, f16::ONE, f16::to_f64, f16::from_f64;
    bf16 => BF16, bf16::ZERO, bf16::ONE, bf16::to_f64, bf16::from_f64
);

impl sealed::Sealed for bool {}
impl Element for bool {
    type Sum = i64;
    type Mean = f64;
    const DTYPE: DType = DType::Bool;
    const ZERO: Self = false;
    const ONE: Self = true;
    #[inline]
    fn to_f64(self) -> f64 {
        self as u8 as f64
    }
    #[inline]
    fn from_f64(v: f64) -> Self {
        v != 0.0
    }
    #[inline]
    fn to_i64_wrapping(self) -> i64 {
        self as i64
    }
}

macro_rules! impl_complex {
    ($($t:ty => $d:ident),*) => {$(
        impl sealed::Sealed for Complex<$t> {}
        impl Element for Complex<$t> {
            type Sum = Complex<$t>;
            type Mean = Complex<$t>;
            const DTYPE: DType = DType::$d;
            const ZERO: Self = Complex::new(0.0, 0.0);
            const ONE: Self = Complex::new(1.0, 0.0);
            #[inline] fn to_f64(self) -> f64 { self.re as f64 }
            #[inline] fn from_f64(v: f64) -> Self { Complex::new(v as $t, 0.0) }
            #[inline] fn to_i64_wrapping(self) -> i64 { self.re as i64 }
            fn write_value(&self, out: &mut String) {
                use std::fmt::Write as _;
                // NumPy's `repr`: `1+2j`, `1-2j`, `1-0j`, `nan+nanj`, `-inf+infj`.
                let sign = if self.im.is_sign_negative() && !self.im.is_nan() { '-' } else { '+' };
                let _ = write!(out, "{}{}{}j", self.re, sign, self.im.abs());
            }
        }
        impl ArithElement for Complex<$t> {
            type Real = $t;
        }
        impl InexactElement for Complex<$t> {}
        impl ComplexElement for Complex<$t> {
            #[inline] fn from_parts(re: $t, im: $t) -> Self { Complex::new(re, im) }
            #[inline] fn re(self) -> $t { self.re }
            #[inline] fn im(self) -> $t { self.im }
        }
    )*};
}
impl_complex!(f32 => C64, f64 => C128);

/// The complex element types, [`Complex32`] and [`Complex64`] (num-complex's
/// `Complex<f32>` and `Complex<f64>`), with their real part type.
///
/// ```
/// use cuarray::{Complex32, ComplexElement};
/// let z = Complex32::from_parts(1.0, -2.0);
/// assert_eq!((z.re(), z.im()), (1.0f32, -2.0f32));
/// ```
///
/// Their part type is [`ArithElement::Real`] (`f32` for [`Complex32`]): the element type
/// of `real()`, `imag()`, `abs()` and `angle()`.
pub trait ComplexElement:
    InexactElement<Real: FloatElement> + Element<Sum = Self, Mean = Self>
{
    /// The number `re + im·i`.
    fn from_parts(re: Self::Real, im: Self::Real) -> Self;
    /// The real part.
    fn re(self) -> Self::Real;
    /// The imaginary part.
    fn im(self) -> Self::Real;
}

/// Element types with floating-point values (`f16`, `bf16`, `f32`, `f64`).
///
/// Its sums and means are of its own type. It implies [`NumElement`] and `num_traits::Float` (host-side `sqrt`, `exp`, `max`,
/// `from`/`to` conversions...), so generic code needs this one bound:
///
/// ```no_run
/// use cuarray::{DeviceArray, FloatElement};
///
/// /// Softmax along the last axis, for every float type.
/// fn softmax<T: FloatElement>(x: &DeviceArray<T>) -> cuarray::Result<DeviceArray<T>> {
///     let shifted = (x - &x.max_keepdim(-1)?)?;
///     let e = shifted.exp()?;
///     &e / &e.sum_keepdim(-1)?
/// }
///
/// /// `x` scaled so that its largest magnitude is `target` (a host-side float from `T`).
/// fn scale_to<T: FloatElement>(x: &DeviceArray<T>, target: f64) -> cuarray::Result<DeviceArray<T>> {
///     let peak = x.abs()?.max()?.to_scalar()?;
///     let factor = T::from(target).unwrap() / peak.max(T::min_positive_value());
///     x * factor
/// }
/// let dev = cuarray::Device::new(0)?;
/// let x = DeviceArray::from_host(&dev, &[1.0f32, 2.0, 3.0, 1.0, 1.0, 1.0], &[2, 3])?;
/// let p = softmax(&x)?;
/// let h = scale_to(&DeviceArray::from_slice(&dev, &[half::f16::from_f32(-4.0)])?, 2.0)?;
/// # Ok::<(), cuarray::Error>(())
/// ```
pub trait FloatElement:
    NumElement + InexactElement + Element<Sum = Self, Mean = Self> + num_traits::Float
{
}
/// Element types of inexact numbers (NumPy's `inexact`): the floating-point types and the
/// complex types. `exp`, `log`, `sqrt`, `isnan`, `isinf` and `isfinite` need one.
pub trait InexactElement: ArithElement {}
macro_rules! impl_inexact { ($($t:ty),*) => {$( impl InexactElement for $t {} )*}; }
impl_inexact!(f16, bf16, f32, f64);
impl FloatElement for f16 {}
impl FloatElement for bf16 {}
impl FloatElement for f32 {}
impl FloatElement for f64 {}

/// Element types with integer values (`i8`, `i16`, `i32`, `i64`, `u8`, `u16`, `u32`,
/// `u64`).
pub trait IntElement: NumElement {
    /// The value whose two's complement bits are the low bits of `v` (Rust's `v as T`).
    #[doc(hidden)]
    fn from_u64_wrapping(v: u64) -> Self;
}
macro_rules! impl_intel { ($($t:ty),*) => {$(
    impl IntElement for $t {
        #[inline]
        fn from_u64_wrapping(v: u64) -> Self { v as $t }
    }
)*}; }
impl_intel!(i8, i16, i32, i64, u8, u16, u32, u64);

/// Element types with real numeric values, which are ordered: every [`Element`] but `bool`
/// and the complex types. Comparisons (`lt`...), `max`/`min`, `argmax`, `%`, `maximum`,
/// `clip`, `sign` and `relu` need one.
pub trait NumElement: ArithElement<Real = Self> {}
macro_rules! impl_num { ($($t:ty),*) => {$( impl NumElement for $t {} )*}; }
impl_num!(i8, i16, i32, i64, u8, u16, u32, u64, f16, bf16, f32, f64);

/// Element types with arithmetic: `+ - * /`, negation and `abs`. Every [`NumElement`] and
/// the complex types ([`ComplexElement`]); not `bool`.
pub trait ArithElement: Element {
    /// The element type of `abs()`: the type itself for real numbers, the part type for
    /// complex numbers (`f32` for [`Complex32`]).
    type Real: Element;
}
macro_rules! impl_arith { ($($t:ty),*) => {$( impl ArithElement for $t { type Real = $t; } )*}; }
impl_arith!(i8, i16, i32, i64, u8, u16, u32, u64, f16, bf16, f32, f64);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_match_rust() {
        assert_eq!(DType::F16.size(), std::mem::size_of::<f16>());
        assert_eq!(DType::Bool.size(), std::mem::size_of::<bool>());
        assert_eq!(<u64 as Element>::DTYPE.size(), 8);
        for d in DType::ALL {
            assert!(!d.cuda_type().is_empty());
        }
    }

    #[test]
    fn conversions() {
        assert_eq!(u64::MAX.to_i64_wrapping(), -1);
        assert!(bool::from_f64(0.5));
        assert_eq!(i8::from_f64(300.0), 127);
        assert_eq!(bf16::from_f64(1.5).to_f64(), 1.5);
        assert_eq!(Complex32::from_f64(2.5), Complex32::new(2.5, 0.0));
        assert_eq!(Complex64::new(-3.5, 1.0).to_f64(), -3.5);
    }

    #[test]
    fn complex_types() {
        assert_eq!(DType::C64.size(), std::mem::size_of::<Complex32>());
        assert_eq!(DType::C128.size(), std::mem::size_of::<Complex64>());
        assert_eq!(DType::C64.real(), DType::F32);
        assert!(DType::C128.is_complex() && !DType::C128.is_float());
        let s = |z: Complex64| {
            let mut out = String::new();
            z.write_value(&mut out);
            out
        };
        assert_eq!(s(Complex64::new(1.0, 2.0)), "1+2j");
        assert_eq!(s(Complex64::new(-0.5, -1.0)), "-0.5-1j");
        assert_eq!(s(Complex64::new(1.0, -0.0)), "1-0j");
        assert_eq!(s(Complex64::new(f64::NAN, f64::INFINITY)), "NaN+infj");
    }
}
