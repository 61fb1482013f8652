//! Element types: the sealed [`Element`] trait and the [`DType`] names used by kernels.

use half::{bf16, f16};

/// The name of an element type, used for kernel names, cache keys and messages.
///
/// Dispatch on element types happens at compile time through [`Element`]; `DType` only
/// names things.
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
}

impl DType {
    /// Every dtype, in a fixed order.
    pub const ALL: [DType; 13] = [
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
    ];

    /// NumPy-style short name (`"f32"`, `"bf16"`, `"bool"`...).
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
        }
    }

    /// The type's spelling in the kernel sources (see `kernels/common.cuh`).
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
        }
    }

    /// Size of one element in bytes.
    pub const fn size(self) -> usize {
        match self {
            DType::Bool | DType::I8 | DType::U8 => 1,
            DType::I16 | DType::U16 | DType::F16 | DType::BF16 => 2,
            DType::I32 | DType::U32 | DType::F32 => 4,
            DType::I64 | DType::U64 | DType::F64 => 8,
        }
    }

    /// True for the floating-point types.
    pub const fn is_float(self) -> bool {
        matches!(self, DType::F16 | DType::BF16 | DType::F32 | DType::F64)
    }

    /// True for the signed integer types.
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
/// Implemented for `f32, f64, f16, bf16, i8, i16, i32, i64, u8, u16, u32, u64, bool`, and
/// sealed: the kernels know exactly these types.
pub trait Element:
    sealed::Sealed
    + Copy
    + Default
    + PartialEq
    + Send
    + Sync
    + std::fmt::Debug
    + std::fmt::Display
    + cudarc::driver::DeviceRepr
    + 'static
{
    /// The runtime name of the type.
    const DTYPE: DType;
    /// The value zero (`false` for bool).
    const ZERO: Self;
    /// The value one (`true` for bool).
    const ONE: Self;
    /// Converts to `f64` (exact for every type but `i64`/`u64` beyond 2^53).
    fn to_f64(self) -> f64;
    /// Converts from `f64` as Rust's `as` does (saturating for integers; `x != 0` for bool).
    fn from_f64(v: f64) -> Self;
    /// The value as `i64`, wrapping for `u64` (used for exact integer kernel arguments).
    fn to_i64_wrapping(self) -> i64;
    /// Result type of `sum` and `prod` (NumPy's: `i64` for signed integers and bool, `u64`
    /// for unsigned, the type itself for floats).
    type Sum: Element;
    /// Result type of `mean`, `var` and `std` (`f64` for integers and bool, the type
    /// itself for floats).
    type Mean: FloatElement;
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
pub trait FloatElement: NumElement + Element<Sum = Self, Mean = Self> + num_traits::Float {}
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

/// Element types with numeric values: every [`Element`] but `bool`.
pub trait NumElement: Element {}
macro_rules! impl_num { ($($t:ty),*) => {$( impl NumElement for $t {} )*}; }
impl_num!(i8, i16, i32, i64, u8, u16, u32, u64, f16, bf16, f32, f64);

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
    }
}
