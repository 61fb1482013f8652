//! The third round's elementwise catalogue on arrays: the methods of the family tables
//! (`unary_family!` and `binary_family!` in `ops/catalogue.rs`,
//! one line each), `ldexp`, `nan_to_num`, [`isclose`], and the bit operators `& | ^ << >> !`
//! on integer arrays (`& | ^ !` on bool arrays, as logical operations).
//!
//! Every op is one device function `cuarray_<name>` of `kernels/ops.cuh`; the same
//! function serves the [`Expr`](crate::Expr) method inside [`fuse`](crate::fuse), and user
//! [`ElementwiseKernel`](crate::ElementwiseKernel) bodies call CUDA's own math functions
//! by their C names (`asinf`, `hypot`, `cbrt`, `erfc`...).
//!
//! Semantics: [the catalogue section of `DeviceArray`](DeviceArray#elementwise-catalogue).

use super::operand::{ArrayOrScalar, OperandValue};
use super::DeviceArray;
use crate::element::{Element, FloatElement, InexactElement, IntElement, NumElement};
use crate::kernels::abi::Scalar;
use crate::ops::catalogue::{
    binary_family, unary_family, BinaryOp, UnaryOp, ISCLOSE_BODY, NAN_TO_NUM_BODY,
};
use crate::ops::elementwise;
use crate::shape::broadcast_shapes;
use crate::Result;

/// The methods of a family table: one per line, its bound and result type from its class.
macro_rules! family_methods {
    ([ $($(#[doc = $doc:literal])* $variant:ident $method:ident : $class:ident),* $(,)? ] $kind:ident) => {
        $( family_methods!(@$kind $class $variant $method [$($doc)*]); )*
    };
    (@unary Float $v:ident $m:ident [$($doc:literal)*]) => {
        family_methods!(@u1 FloatElement, T, $v $m [$($doc)*]);
    };
    (@unary FloatComplex $v:ident $m:ident [$($doc:literal)*]) => {
        family_methods!(@u1 InexactElement, T, $v $m [$($doc)*]);
    };
    (@unary FloatToBool $v:ident $m:ident [$($doc:literal)*]) => {
        family_methods!(@u1 FloatElement, bool, $v $m [$($doc)*]);
    };
    (@unary Int $v:ident $m:ident [$($doc:literal)*]) => {
        family_methods!(@u1 IntElement, T, $v $m [$($doc)*]);
    };
    (@unary IntToU8 $v:ident $m:ident [$($doc:literal)*]) => {
        family_methods!(@u1 IntElement, u8, $v $m [$($doc)*]);
    };
    (@u1 $bound:ident, $out:ty, $v:ident $m:ident [$($doc:literal)*]) => {
        impl<T: $bound> DeviceArray<T> {
            $(#[doc = $doc])*
            ///
            /// Elementwise, into a new array; see the [catalogue's semantics](DeviceArray#elementwise-catalogue).
            ///
            /// # Errors
            /// [`Error::OutOfMemory`](crate::Error::OutOfMemory) when the device is full.
            pub fn $m(&self) -> Result<DeviceArray<$out>> {
                self.map(UnaryOp::$v.name(), UnaryOp::$v.body(), &[])
            }
        }
    };
    (@binary Special $v:ident $m:ident [$($doc:literal)*]) => {};
    (@binary Float $v:ident $m:ident [$($doc:literal)*]) => {
        family_methods!(@b1 FloatElement, $v $m [$($doc)*]);
    };
    (@binary Num $v:ident $m:ident [$($doc:literal)*]) => {
        family_methods!(@b1 NumElement, $v $m [$($doc)*]);
    };
    (@binary Int $v:ident $m:ident [$($doc:literal)*]) => {
        family_methods!(@b1 IntElement, $v $m [$($doc)*]);
    };
    (@b1 $bound:ident, $v:ident $m:ident [$($doc:literal)*]) => {
        impl<T: $bound> DeviceArray<T> {
            $(#[doc = $doc])*
            ///
            /// Elementwise; `rhs` is an array (broadcast with `self` as NumPy) or a scalar
            /// ([`ArrayOrScalar`]); see the [catalogue's semantics](DeviceArray#elementwise-catalogue).
            ///
            /// # Errors
            /// [`Error::Broadcast`](crate::Error::Broadcast) naming both shapes when they
            /// do not broadcast; [`Error::DeviceMismatch`](crate::Error::DeviceMismatch)
            /// across devices; the error of a `Result` operand.
            pub fn $m(&self, rhs: impl ArrayOrScalar<T>) -> Result<DeviceArray<T>> {
                self.binary(BinaryOp::$v, rhs)
            }
        }
    };
}

unary_family!(family_methods unary);
binary_family!(family_methods binary);

impl<T: Element> DeviceArray<T> {
    /// `body` on `self` and `rhs` (of another element type) broadcast together, into a
    /// new array of `U`.
    fn zip_other<B: Element, U: Element>(
        &self,
        name: &'static str,
        body: &'static str,
        rhs: &DeviceArray<B>,
        scalars: &[Scalar],
    ) -> Result<DeviceArray<U>> {
        rhs.used_by(name, self.device())?;
        let shape = broadcast_shapes(name, self.shape(), rhs.shape())?;
        let out = DeviceArray::<U>::alloc_uninit(self.device(), &shape)?;
        elementwise::run(
            self.device(),
            name,
            body,
            &[out.operand()?],
            &[self.operand_as(&shape)?, rhs.operand_as(&shape)?],
            scalars,
        )?;
        Ok(out)
    }
}

/// The replacements of `nan_to_num` for ±inf: `posinf` and `neginf`, or the type's
/// largest and lowest finite values where `None`.
pub(crate) fn inf_replacements<T: FloatElement>(posinf: Option<T>, neginf: Option<T>) -> (T, T) {
    (
        posinf.unwrap_or_else(<T as num_traits::Float>::max_value),
        neginf.unwrap_or_else(<T as num_traits::Float>::min_value),
    )
}

impl<T: FloatElement> DeviceArray<T> {
    /// `self * 2^exponents` elementwise (NumPy's `ldexp`): `exponents` is an `i32` array
    /// (broadcast with `self`) or one `i32`.
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let a = cuarray::DeviceArray::from_slice(&dev, &[1.0f32, 3.0])?;
    /// let e = cuarray::DeviceArray::from_slice(&dev, &[2i32, -1])?;
    /// assert_eq!(a.ldexp(&e)?.to_host()?, vec![4.0, 1.5]);
    /// assert_eq!(a.ldexp(3)?.to_host()?, vec![8.0, 24.0]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Broadcast`](crate::Error::Broadcast) when the shapes do not broadcast;
    /// [`Error::DeviceMismatch`](crate::Error::DeviceMismatch) across devices.
    pub fn ldexp(&self, exponents: impl ArrayOrScalar<i32>) -> Result<DeviceArray<T>> {
        let op = BinaryOp::Ldexp;
        match exponents.into_operand()? {
            OperandValue::Array(e) => self.zip_other(op.name(), op.body(), &e, &[]),
            OperandValue::Scalar(s) => self.map(op.name(), op.body_scalar_rhs(), &[Scalar::of(s)]),
        }
    }

    /// NaN replaced by `nan`, +inf by `posinf` and -inf by `neginf` (NumPy's
    /// `nan_to_num`); `None` stands for the type's largest (lowest) finite value.
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let a = cuarray::DeviceArray::from_slice(&dev, &[f32::NAN, f32::INFINITY, -f32::INFINITY, 1.5])?;
    /// assert_eq!(a.nan_to_num(0.0, None, Some(-1.0))?.to_host()?, vec![0.0, f32::MAX, -1.0, 1.5]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::OutOfMemory`](crate::Error::OutOfMemory) when the device is full.
    pub fn nan_to_num(
        &self,
        nan: T,
        posinf: Option<T>,
        neginf: Option<T>,
    ) -> Result<DeviceArray<T>> {
        let (p, n) = inf_replacements(posinf, neginf);
        self.map(
            "nan_to_num",
            NAN_TO_NUM_BODY,
            &[Scalar::of(nan), Scalar::of(p), Scalar::of(n)],
        )
    }
}

/// Elementwise "`a` close to `b`" (NumPy's `isclose`, shapes broadcast): `|a - b| <= atol
/// + rtol * |b|` where `b` is finite, or `a == b` (equal infinities); NaN is close to
/// nothing, except to NaN with `equal_nan`. Computed in the arrays' type (f32 for
/// f16/bf16). `b` is an array or a scalar.
///
/// ```no_run
/// let dev = cuarray::Device::new(0)?;
/// let a = cuarray::DeviceArray::from_slice(&dev, &[1.0f64, f64::NAN, f64::INFINITY])?;
/// let b = cuarray::DeviceArray::from_slice(&dev, &[1.0 + 1e-9, f64::NAN, f64::INFINITY])?;
/// assert_eq!(cuarray::isclose(&a, &b, 1e-5, 1e-8, false)?.to_host()?, vec![true, false, true]);
/// assert_eq!(cuarray::isclose(&a, &b, 1e-5, 1e-8, true)?.to_host()?, vec![true; 3]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::Broadcast`](crate::Error::Broadcast) naming both shapes when they do not
/// broadcast; [`Error::DeviceMismatch`](crate::Error::DeviceMismatch) across devices.
pub fn isclose<T: FloatElement>(
    a: &DeviceArray<T>,
    b: impl ArrayOrScalar<T>,
    rtol: f64,
    atol: f64,
    equal_nan: bool,
) -> Result<DeviceArray<bool>> {
    let b = b.into_operand()?;
    let b = b.to_array(a.device())?;
    a.zip_other(
        "isclose",
        ISCLOSE_BODY,
        &b,
        &[Scalar::of(rtol), Scalar::of(atol), Scalar::of(equal_nan)],
    )
}

/// `& | ^ << >>` on integer arrays (and `Result`s of them on the left), an array or a
/// scalar on the right.
macro_rules! int_operators {
    ($($trait:ident $method:ident $assign_trait:ident $assign:ident $op:ident),*) => {$(
        impl<T: IntElement, R: ArrayOrScalar<T>> std::ops::$trait<R> for &DeviceArray<T> {
            type Output = Result<DeviceArray<T>>;
            fn $method(self, rhs: R) -> Self::Output { self.binary(BinaryOp::$op, rhs) }
        }
        impl<T: IntElement, R: ArrayOrScalar<T>> std::ops::$trait<R> for DeviceArray<T> {
            type Output = Result<DeviceArray<T>>;
            fn $method(self, rhs: R) -> Self::Output { self.binary(BinaryOp::$op, rhs) }
        }
        impl<T: IntElement> std::ops::$trait<&DeviceArray<T>> for Result<DeviceArray<T>> {
            type Output = Result<DeviceArray<T>>;
            fn $method(self, rhs: &DeviceArray<T>) -> Self::Output { self?.binary(BinaryOp::$op, rhs) }
        }
        /// In place, writing through views; no new array.
        ///
        /// # Panics
        /// On any error (shapes that do not broadcast, a broadcast view as the target, a
        /// failed launch): an operator cannot return it.
        impl<T: IntElement, R: ArrayOrScalar<T>> std::ops::$assign_trait<R> for DeviceArray<T> {
            fn $assign(&mut self, rhs: R) {
                if let Err(e) = self.binary_assign(BinaryOp::$op, rhs) {
                    panic!(concat!("`", stringify!($assign), "` operator failed: {}"), e);
                }
            }
        }
    )*};
}
int_operators!(
    BitAnd bitand BitAndAssign bitand_assign BitwiseAnd,
    BitOr bitor BitOrAssign bitor_assign BitwiseOr,
    BitXor bitxor BitXorAssign bitxor_assign BitwiseXor,
    Shl shl ShlAssign shl_assign LeftShift,
    Shr shr ShrAssign shr_assign RightShift
);

/// `& | ^` on bool arrays: logical and, or, exclusive or (NumPy's operators on bool
/// arrays).
macro_rules! bool_operators {
    ($($trait:ident $method:ident $op:ident),*) => {$(
        impl<R: ArrayOrScalar<bool>> std::ops::$trait<R> for &DeviceArray<bool> {
            type Output = Result<DeviceArray<bool>>;
            fn $method(self, rhs: R) -> Self::Output { self.binary(BinaryOp::$op, rhs) }
        }
        impl<R: ArrayOrScalar<bool>> std::ops::$trait<R> for DeviceArray<bool> {
            type Output = Result<DeviceArray<bool>>;
            fn $method(self, rhs: R) -> Self::Output { self.binary(BinaryOp::$op, rhs) }
        }
        impl std::ops::$trait<&DeviceArray<bool>> for Result<DeviceArray<bool>> {
            type Output = Result<DeviceArray<bool>>;
            fn $method(self, rhs: &DeviceArray<bool>) -> Self::Output { self?.binary(BinaryOp::$op, rhs) }
        }
    )*};
}
bool_operators!(BitAnd bitand LogicalAnd, BitOr bitor LogicalOr, BitXor bitxor LogicalXor);

/// `!a`: bitwise not of an integer array ([`invert`](DeviceArray::invert)).
impl<T: IntElement> std::ops::Not for &DeviceArray<T> {
    type Output = Result<DeviceArray<T>>;
    fn not(self) -> Self::Output {
        self.invert()
    }
}
/// `!a`: bitwise not of an integer array ([`invert`](DeviceArray::invert)).
impl<T: IntElement> std::ops::Not for DeviceArray<T> {
    type Output = Result<DeviceArray<T>>;
    fn not(self) -> Self::Output {
        self.invert()
    }
}
/// `!a`: logical not of a bool array ([`logical_not`](DeviceArray::logical_not)).
impl std::ops::Not for &DeviceArray<bool> {
    type Output = Result<DeviceArray<bool>>;
    fn not(self) -> Self::Output {
        self.logical_not()
    }
}
/// `!a`: logical not of a bool array ([`logical_not`](DeviceArray::logical_not)).
impl std::ops::Not for DeviceArray<bool> {
    type Output = Result<DeviceArray<bool>>;
    fn not(self) -> Self::Output {
        self.logical_not()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nan_to_num_defaults() {
        assert_eq!(inf_replacements::<f32>(None, None), (f32::MAX, f32::MIN));
        assert_eq!(inf_replacements(Some(1.0f64), None), (1.0, f64::MIN));
        let (p, n) = inf_replacements::<half::f16>(None, Some(half::f16::ZERO));
        assert_eq!((p, n), (half::f16::MAX, half::f16::ZERO));
        assert_eq!(
            inf_replacements::<half::bf16>(None, None),
            (half::bf16::MAX, half::bf16::MIN)
        );
    }
}
