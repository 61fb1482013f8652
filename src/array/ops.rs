//! Elementwise operations on arrays: methods, `std::ops` operators (which return
//! `Result`), in-place forms and `where_`. Every one is an instance of the N-ary
//! elementwise kernel with a body from [`crate::ops::catalogue`].
//!
//! # Integer semantics
//! As NumPy's: `+ - *` and `pow` wrap around on overflow; `/` is floor division (rounds
//! toward minus infinity) and `%` takes the sign of the divisor; dividing by zero gives 0
//! for both (NumPy also gives 0, with a warning); `pow` with a negative exponent gives 0
//! except for bases 1 and -1. `abs` and `neg` of the minimum value wrap to itself.
//!
//! # Floating-point semantics
//! IEEE 754 as NumPy: NaN and ±inf propagate, `x / 0.0` is ±inf or NaN, `maximum`,
//! `minimum`, `clip` and `relu` propagate NaN, `-0.0` is kept. `f16` and `bf16` compute
//! in `f32` and round the result once.

use super::operand::{ArrayOrScalar, OperandValue};
use super::DeviceArray;
use crate::element::{
    ArithElement, Complex32, Complex64, Element, FloatElement, InexactElement, NumElement,
};
use crate::kernels::abi::Scalar;
use crate::ops::catalogue::{BinaryOp, UnaryOp, CLIP_BODY, WHERE_BODY};
use crate::ops::elementwise;
use crate::shape::broadcast_shapes;
use crate::Result;

impl<T: Element> DeviceArray<T> {
    /// `body` applied to every element of `self` (with `scalars`), into a new array.
    pub(crate) fn map<U: Element>(
        &self,
        name: &'static str,
        body: &'static str,
        scalars: &[Scalar],
    ) -> Result<DeviceArray<U>> {
        let out = DeviceArray::<U>::alloc_uninit(self.device(), self.shape())?;
        elementwise::run(
            self.device(),
            name,
            body,
            &[out.operand()?],
            &[self.operand()?],
            scalars,
        )?;
        Ok(out)
    }

    /// `op(self, rhs)` with NumPy broadcasting, into a new array of `U`.
    pub(crate) fn zip<U: Element>(
        &self,
        op: BinaryOp,
        rhs: &DeviceArray<T>,
    ) -> Result<DeviceArray<U>> {
        rhs.used_by(op.name(), self.device())?;
        let shape = broadcast_shapes(op.name(), self.shape(), rhs.shape())?;
        let out = DeviceArray::<U>::alloc_uninit(self.device(), &shape)?;
        elementwise::run(
            self.device(),
            op.name(),
            op.body(),
            &[out.operand()?],
            &[self.operand_as(&shape)?, rhs.operand_as(&shape)?],
            &[],
        )?;
        Ok(out)
    }

    /// `op(self, s)`, or `op(s, self)` when `scalar_lhs`, into a new array of `U`.
    pub(crate) fn zip_scalar<U: Element>(
        &self,
        op: BinaryOp,
        s: T,
        scalar_lhs: bool,
    ) -> Result<DeviceArray<U>> {
        let (name, body) = if scalar_lhs {
            (op.rname(), op.body_scalar_lhs())
        } else {
            (op.name(), op.body_scalar_rhs())
        };
        self.map(name, body, &[Scalar::of(s)])
    }

    /// `op(self, rhs)` written into `self` (`rhs` broadcast to `self`'s shape).
    pub(crate) fn zip_assign(&self, op: BinaryOp, rhs: &DeviceArray<T>) -> Result<()> {
        self.check_writable(op.name())?;
        let rhs = rhs.source_for(op.name(), self)?;
        elementwise::run(
            self.device(),
            op.name(),
            op.body(),
            &[self.operand()?],
            &[self.operand()?, rhs.operand_as(self.shape())?],
            &[],
        )
    }

    /// `op(self, rhs)` for an array or scalar `rhs`, into a new array of `U`.
    pub(crate) fn binary<U: Element>(
        &self,
        op: BinaryOp,
        rhs: impl ArrayOrScalar<T>,
    ) -> Result<DeviceArray<U>> {
        match rhs.into_operand()? {
            OperandValue::Array(b) => self.zip(op, &b),
            OperandValue::Scalar(s) => self.zip_scalar(op, s, false),
        }
    }

    /// `op(self, rhs)` written into `self`, for an array or scalar `rhs`.
    pub(crate) fn binary_assign(&self, op: BinaryOp, rhs: impl ArrayOrScalar<T>) -> Result<()> {
        match rhs.into_operand()? {
            OperandValue::Array(b) => self.zip_assign(op, &b),
            OperandValue::Scalar(s) => {
                self.check_writable(op.name())?;
                elementwise::run(
                    self.device(),
                    op.name(),
                    op.body_scalar_rhs(),
                    &[self.operand()?],
                    &[self.operand()?],
                    &[Scalar::of(s)],
                )
            }
        }
    }

    /// Refuses to write through a broadcast view (a stride 0 over an extent > 1 aliases one
    /// element many times), as NumPy refuses with a read-only view.
    pub(crate) fn check_writable(&self, op: &'static str) -> Result<()> {
        super::check_writable(op, self.layout())
    }

    /// Elementwise `self == rhs` with broadcasting; `rhs` is an array or a scalar
    /// ([`ArrayOrScalar`]).
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let a = cuarray::DeviceArray::from_slice(&dev, &[1, 2, 3])?;
    /// assert_eq!(a.eq(2)?.to_host()?, vec![false, true, false]);
    /// assert_eq!(a.ne(&a)?.to_host()?, vec![false; 3]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Broadcast`](crate::Error::Broadcast) when the shapes do not broadcast;
    /// [`Error::DeviceMismatch`](crate::Error::DeviceMismatch) across devices.
    pub fn eq(&self, rhs: impl ArrayOrScalar<T>) -> Result<DeviceArray<bool>> {
        self.binary(BinaryOp::Eq, rhs)
    }
    /// Elementwise `self != rhs` with broadcasting (see [`eq`](Self::eq)).
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_slice(&dev, &[1, 2, 3])?;
    /// assert_eq!(a.ne(2)?.to_host()?, vec![true, false, true]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Broadcast`](crate::Error::Broadcast) when the shapes do not broadcast;
    /// [`Error::DeviceMismatch`](crate::Error::DeviceMismatch) across devices.
    pub fn ne(&self, rhs: impl ArrayOrScalar<T>) -> Result<DeviceArray<bool>> {
        self.binary(BinaryOp::Ne, rhs)
    }
}

macro_rules! binary_methods {
    ($bound:ident; $($(#[doc = $doc:literal])* $method:ident $assign:ident => $op:ident),* $(,)?) => {
        impl<T: $bound> DeviceArray<T> {
            $(
                $(#[doc = $doc])*
                ///
                /// `rhs` is an array or a scalar ([`ArrayOrScalar`]); arrays broadcast as
                /// NumPy. See [Integer semantics](DeviceArray#integer-semantics) and
                /// [Floating-point semantics](DeviceArray#floating-point-semantics).
                ///
                /// # Errors
                /// [`Error::Broadcast`](crate::Error::Broadcast) naming both shapes when
                /// they do not broadcast; [`Error::DeviceMismatch`](crate::Error::DeviceMismatch)
                /// across devices; the error of a `Result` operand.
                pub fn $method(&self, rhs: impl ArrayOrScalar<T>) -> Result<DeviceArray<T>> {
                    self.binary(BinaryOp::$op, rhs)
                }

                #[doc = concat!("In place: `self = ", stringify!($method), "(self, rhs)`, `rhs` (an array or a scalar) broadcast to `self`'s shape.")]
                ///
                /// Writes through views into the memory they share; no new array.
                ///
                /// ```no_run
                /// let dev = cuarray::Device::new(0)?;
                /// let w = cuarray::DeviceArray::from_slice(&dev, &[4.0f32, 9.0])?;
                #[doc = concat!("w.", stringify!($assign), "(2.0)?;")]
                #[doc = concat!("w.", stringify!($assign), "(&w.copy()?)?;")]
                /// # Ok::<(), cuarray::Error>(())
                /// ```
                ///
                /// # Errors
                /// [`Error::Broadcast`](crate::Error::Broadcast) when `rhs` does not
                /// broadcast to `self`'s shape; [`Error::InvalidArgument`](crate::Error::InvalidArgument)
                /// when `self` is a broadcast view (stride 0), which cannot be written.
                pub fn $assign(&self, rhs: impl ArrayOrScalar<T>) -> Result<()> {
                    self.binary_assign(BinaryOp::$op, rhs)
                }
            )*
        }
    };
}

binary_methods! { ArithElement;
    /// Elementwise `self + rhs`.
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let a = cuarray::DeviceArray::from_host(&dev, &[1.0f32, 2.0, 3.0], &[3, 1])?;
    /// let b = cuarray::DeviceArray::from_slice(&dev, &[10.0f32, 20.0])?;
    /// assert_eq!(a.add(&b)?.shape(), &[3, 2]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    add add_assign => Add,
    /// Elementwise `self - rhs`.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_slice(&dev, &[5.0f32, 7.0])?;
    /// let b = DeviceArray::from_slice(&dev, &[1.0f32, 2.0])?;
    /// assert_eq!(a.sub(&b)?.to_host()?, vec![4.0, 5.0]);
    /// assert_eq!(a.sub(2.0)?.to_host()?, vec![3.0, 5.0]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    sub sub_assign => Sub,
    /// Elementwise `self * rhs`.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_slice(&dev, &[1.5f32, -2.0])?;
    /// assert_eq!(a.mul(&a)?.to_host()?, vec![2.25, 4.0]);
    /// assert_eq!(a.mul(2.0)?.to_host()?, vec![3.0, -4.0]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    mul mul_assign => Mul,
    /// Elementwise `self / rhs` (floor division for integers; Smith's method for complex
    /// numbers, which does not overflow for large parts, as NumPy).
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_slice(&dev, &[7, -7])?;
    /// assert_eq!(a.div(2)?.to_host()?, vec![3, -4]); // NumPy's 7 // 2, -7 // 2
    /// let x = DeviceArray::from_slice(&dev, &[1.0f32, 3.0])?;
    /// assert_eq!(x.div(2.0)?.to_host()?, vec![0.5, 1.5]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    div div_assign => Div,
}

binary_methods! { NumElement;
    /// Elementwise remainder with the sign of `rhs` (NumPy's `%`).
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_slice(&dev, &[7, -7])?;
    /// assert_eq!(a.rem(3)?.to_host()?, vec![1, 2]); // NumPy's 7 % 3, -7 % 3
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    rem rem_assign => Rem,
    /// Elementwise `self ** rhs`.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_slice(&dev, &[1, 2, 3])?;
    /// assert_eq!(a.pow(2)?.to_host()?, vec![1, 4, 9]);
    /// assert_eq!(a.pow(&a)?.to_host()?, vec![1, 4, 27]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pow pow_assign => Pow,
    /// Elementwise maximum (NaN propagates).
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_slice(&dev, &[1.0f32, 5.0, f32::NAN])?;
    /// let m = a.maximum(3.0)?.to_host()?;
    /// assert_eq!(&m[..2], &[3.0, 5.0]);
    /// assert!(m[2].is_nan());
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    maximum maximum_assign => Maximum,
    /// Elementwise minimum (NaN propagates).
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_slice(&dev, &[1.0f32, 5.0])?;
    /// let b = DeviceArray::from_slice(&dev, &[3.0f32, 3.0])?;
    /// assert_eq!(a.minimum(&b)?.to_host()?, vec![1.0, 3.0]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    minimum minimum_assign => Minimum,
}

impl<T: NumElement> DeviceArray<T> {
    /// Elementwise `self < rhs` with broadcasting; `rhs` is an array or a scalar
    /// ([`ArrayOrScalar`]). Comparisons with NaN are false (but `ne`).
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let x = cuarray::DeviceArray::from_slice(&dev, &[-1.0f32, 0.0, 2.0])?;
    /// assert_eq!(x.gt(0.0)?.to_host()?, vec![false, false, true]);
    /// assert_eq!(x.le(&x)?.to_host()?, vec![true; 3]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Broadcast`](crate::Error::Broadcast) when the shapes do not broadcast;
    /// [`Error::DeviceMismatch`](crate::Error::DeviceMismatch) across devices.
    pub fn lt(&self, rhs: impl ArrayOrScalar<T>) -> Result<DeviceArray<bool>> {
        self.binary(BinaryOp::Lt, rhs)
    }
    /// Elementwise `self <= rhs` (see [`lt`](Self::lt)).
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_slice(&dev, &[1, 2, 3])?;
    /// assert_eq!(a.le(2)?.to_host()?, vec![true, true, false]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Broadcast`](crate::Error::Broadcast) when the shapes do not broadcast;
    /// [`Error::DeviceMismatch`](crate::Error::DeviceMismatch) across devices.
    pub fn le(&self, rhs: impl ArrayOrScalar<T>) -> Result<DeviceArray<bool>> {
        self.binary(BinaryOp::Le, rhs)
    }
    /// Elementwise `self > rhs` (see [`lt`](Self::lt)).
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_slice(&dev, &[1, 2, 3])?;
    /// assert_eq!(a.gt(2)?.to_host()?, vec![false, false, true]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Broadcast`](crate::Error::Broadcast) when the shapes do not broadcast;
    /// [`Error::DeviceMismatch`](crate::Error::DeviceMismatch) across devices.
    pub fn gt(&self, rhs: impl ArrayOrScalar<T>) -> Result<DeviceArray<bool>> {
        self.binary(BinaryOp::Gt, rhs)
    }
    /// Elementwise `self >= rhs` (see [`lt`](Self::lt)).
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_slice(&dev, &[1, 2, 3])?;
    /// assert_eq!(a.ge(2)?.to_host()?, vec![false, true, true]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Broadcast`](crate::Error::Broadcast) when the shapes do not broadcast;
    /// [`Error::DeviceMismatch`](crate::Error::DeviceMismatch) across devices.
    pub fn ge(&self, rhs: impl ArrayOrScalar<T>) -> Result<DeviceArray<bool>> {
        self.binary(BinaryOp::Ge, rhs)
    }
    /// `op(self, s)` for any binary op with a scalar right operand, e.g.
    /// `a.scalar_op(BinaryOp::Pow, 2.0)`; comparisons have their own methods.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// use cuarray::BinaryOp;
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_slice(&dev, &[1, 2, 3])?;
    /// assert_eq!(a.scalar_op(BinaryOp::Sub, 1)?.to_host()?, vec![0, 1, 2]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::OutOfMemory`](crate::Error::OutOfMemory) when the device is full.
    pub fn scalar_op(&self, op: BinaryOp, s: T) -> Result<DeviceArray<T>> {
        self.zip_scalar(op, s, false)
    }
    /// Elementwise `self ** s` (the same as [`pow`](Self::pow) with a scalar).
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_slice(&dev, &[1, 2, 3])?;
    /// assert_eq!(a.pow_scalar(3)?.to_host()?, vec![1, 8, 27]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::OutOfMemory`](crate::Error::OutOfMemory) when the device is full.
    pub fn pow_scalar(&self, s: T) -> Result<DeviceArray<T>> {
        self.zip_scalar(BinaryOp::Pow, s, false)
    }
    /// Each element limited to `[lo, hi]` (NaN propagates), NumPy's `clip`.
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let a = cuarray::DeviceArray::from_slice(&dev, &[-5, 0, 5])?;
    /// assert_eq!(a.clip(-1, 1)?.to_host()?, vec![-1, 0, 1]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::OutOfMemory`](crate::Error::OutOfMemory) when the device is full.
    pub fn clip(&self, lo: T, hi: T) -> Result<DeviceArray<T>> {
        self.map("clip", CLIP_BODY, &[Scalar::of(lo), Scalar::of(hi)])
    }
}

macro_rules! unary_methods {
    ($bound:ident => $out:ty; $($(#[doc = $doc:literal])* $method:ident => $op:ident),* $(,)?) => {
        impl<T: $bound> DeviceArray<T> {
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

unary_methods! { ArithElement => T;
    /// Elementwise `-self` (wraps for unsigned integers).
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_slice(&dev, &[1, -2])?;
    /// assert_eq!(a.neg()?.to_host()?, vec![-1, 2]);
    /// assert_eq!((-&a)?.to_host()?, vec![-1, 2]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    neg => Neg,
    /// Elementwise `self * self`.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_slice(&dev, &[1.5f32, -2.0])?;
    /// assert_eq!(a.square()?.to_host()?, vec![2.25, 4.0]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    square => Square,
}

unary_methods! { ArithElement => T::Real;
    /// Elementwise absolute value; of a complex array, the magnitude `hypot(re, im)` as a
    /// real array (no overflow or underflow for large or tiny parts, as NumPy).
    ///
    /// ```no_run
    /// use cuarray::{Complex32, DeviceArray};
    /// let dev = cuarray::Device::new(0)?;
    /// let z = DeviceArray::from_slice(&dev, &[Complex32::new(3.0, 4.0)])?;
    /// let m: DeviceArray<f32> = z.abs()?;
    /// assert_eq!(m.to_host()?, vec![5.0]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    abs => Abs,
}

unary_methods! { NumElement => T;
    /// Elementwise sign: -1, 0 or 1 (NaN stays NaN).
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_slice(&dev, &[-3.0f32, 0.0, 2.5])?;
    /// assert_eq!(a.sign()?.to_host()?, vec![-1.0, 0.0, 1.0]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    sign => Sign,
    /// Elementwise `max(self, 0)` (NaN stays NaN).
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_slice(&dev, &[-1.0f32, 2.0])?;
    /// assert_eq!(a.relu()?.to_host()?, vec![0.0, 2.0]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    relu => Relu,
}

unary_methods! { InexactElement => T;
    /// Elementwise `e^x` (of a complex `x`, `e^re (cos im + i sin im)`).
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let a = cuarray::DeviceArray::from_slice(&dev, &[0.0f64, 1.0])?;
    /// assert_eq!(a.exp()?.to_host()?, vec![1.0, std::f64::consts::E]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    exp => Exp,
    /// Elementwise natural logarithm (of a complex `x`, the principal value
    /// `ln|x| + i·angle(x)`).
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_slice(&dev, &[1.0f64, std::f64::consts::E])?;
    /// let y = a.log()?.to_host()?;
    /// assert_eq!(y[0], 0.0);
    /// assert!((y[1] - 1.0).abs() < 1e-15);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    log => Log,
    /// Elementwise square root (of a complex `x`, the principal root, real part >= 0).
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_slice(&dev, &[4.0f64, 9.0, 2.0])?;
    /// assert_eq!(a.sqrt()?.to_host()?, vec![2.0, 3.0, 2.0f64.sqrt()]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    sqrt => Sqrt,
}

unary_methods! { FloatElement => T;
    /// Elementwise `ln(1 + x)`.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_slice(&dev, &[0.0f64, 1e-20])?;
    /// let y = a.log1p()?.to_host()?;
    /// assert_eq!(y[0], 0.0);
    /// assert!((y[1] - 1e-20).abs() < 1e-35); // where (1.0 + 1e-20).ln() gives 0
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    log1p => Log1p,
    /// Elementwise `e^x - 1`.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_slice(&dev, &[0.0f64, 1e-20])?;
    /// let y = a.expm1()?.to_host()?;
    /// assert_eq!(y[0], 0.0);
    /// assert!((y[1] - 1e-20).abs() < 1e-35); // where 1e-20f64.exp() - 1.0 gives 0
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    expm1 => Expm1,
    /// Elementwise sine.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_slice(&dev, &[0.0f64, std::f64::consts::FRAC_PI_2])?;
    /// let y = a.sin()?.to_host()?;
    /// assert_eq!(y[0], 0.0);
    /// assert!((y[1] - 1.0).abs() < 1e-15);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    sin => Sin,
    /// Elementwise cosine.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_slice(&dev, &[0.0f64, std::f64::consts::PI])?;
    /// let y = a.cos()?.to_host()?;
    /// assert_eq!(y[0], 1.0);
    /// assert!((y[1] + 1.0).abs() < 1e-15);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    cos => Cos,
    /// Elementwise tangent.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_slice(&dev, &[0.0f64, std::f64::consts::FRAC_PI_4])?;
    /// let y = a.tan()?.to_host()?;
    /// assert_eq!(y[0], 0.0);
    /// assert!((y[1] - 1.0).abs() < 1e-15);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    tan => Tan,
    /// Elementwise hyperbolic tangent.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_slice(&dev, &[0.0f64, 1.0])?;
    /// let y = a.tanh()?.to_host()?;
    /// assert_eq!(y[0], 0.0);
    /// assert!((y[1] - 1.0f64.tanh()).abs() < 1e-15);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    tanh => Tanh,
    /// Elementwise logistic function `1 / (1 + e^-x)`.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_slice(&dev, &[0.0f32, 2.0])?;
    /// let y = a.sigmoid()?.to_host()?;
    /// assert_eq!(y[0], 0.5);
    /// assert!((y[1] - 1.0 / (1.0 + (-2.0f32).exp())).abs() < 1e-6);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    sigmoid => Sigmoid,
    /// Elementwise floor.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_slice(&dev, &[1.5f32, -1.5])?;
    /// assert_eq!(a.floor()?.to_host()?, vec![1.0, -2.0]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    floor => Floor,
    /// Elementwise ceiling.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_slice(&dev, &[1.5f32, -1.5])?;
    /// assert_eq!(a.ceil()?.to_host()?, vec![2.0, -1.0]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ceil => Ceil,
    /// Elementwise rounding, half to even (NumPy's `round`).
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_slice(&dev, &[0.5f32, 1.5, 2.5, -0.7])?;
    /// assert_eq!(a.round()?.to_host()?, vec![0.0, 2.0, 2.0, -1.0]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    round => Round,
}

unary_methods! { InexactElement => bool;
    /// Elementwise test for NaN (complex: either part NaN).
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_slice(&dev, &[1.0f32, f32::NAN, f32::INFINITY])?;
    /// assert_eq!(a.isnan()?.to_host()?, vec![false, true, false]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    isnan => IsNan,
    /// Elementwise test for ±infinity (complex: either part infinite).
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_slice(&dev, &[1.0f32, f32::NAN, f32::NEG_INFINITY])?;
    /// assert_eq!(a.isinf()?.to_host()?, vec![false, false, true]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    isinf => IsInf,
    /// Elementwise test for a finite value (complex: both parts finite).
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_slice(&dev, &[1.0f32, f32::NAN, f32::INFINITY])?;
    /// assert_eq!(a.isfinite()?.to_host()?, vec![true, false, false]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    isfinite => IsFinite,
}

impl DeviceArray<bool> {
    /// Elementwise logical and, with broadcasting.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_slice(&dev, &[true, true, false])?;
    /// let b = DeviceArray::from_slice(&dev, &[true, false, false])?;
    /// assert_eq!(a.logical_and(&b)?.to_host()?, vec![true, false, false]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Broadcast`](crate::Error::Broadcast) when the shapes do not broadcast;
    /// [`Error::DeviceMismatch`](crate::Error::DeviceMismatch) across devices.
    pub fn logical_and(&self, rhs: &DeviceArray<bool>) -> Result<DeviceArray<bool>> {
        self.zip(BinaryOp::LogicalAnd, rhs)
    }
    /// Elementwise logical or, with broadcasting.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_slice(&dev, &[true, true, false])?;
    /// let b = DeviceArray::from_slice(&dev, &[true, false, false])?;
    /// assert_eq!(a.logical_or(&b)?.to_host()?, vec![true, true, false]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Broadcast`](crate::Error::Broadcast) when the shapes do not broadcast;
    /// [`Error::DeviceMismatch`](crate::Error::DeviceMismatch) across devices.
    pub fn logical_or(&self, rhs: &DeviceArray<bool>) -> Result<DeviceArray<bool>> {
        self.zip(BinaryOp::LogicalOr, rhs)
    }
    /// Elementwise logical exclusive or, with broadcasting.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_slice(&dev, &[true, true, false])?;
    /// let b = DeviceArray::from_slice(&dev, &[true, false, false])?;
    /// assert_eq!(a.logical_xor(&b)?.to_host()?, vec![false, true, false]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Broadcast`](crate::Error::Broadcast) when the shapes do not broadcast;
    /// [`Error::DeviceMismatch`](crate::Error::DeviceMismatch) across devices.
    pub fn logical_xor(&self, rhs: &DeviceArray<bool>) -> Result<DeviceArray<bool>> {
        self.zip(BinaryOp::LogicalXor, rhs)
    }
    /// Elementwise logical not.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_slice(&dev, &[true, false])?;
    /// assert_eq!(a.logical_not()?.to_host()?, vec![false, true]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::OutOfMemory`](crate::Error::OutOfMemory) when the device is full.
    pub fn logical_not(&self) -> Result<DeviceArray<bool>> {
        self.map(UnaryOp::LogicalNot.name(), UnaryOp::LogicalNot.body(), &[])
    }
}

/// Elementwise `cond ? a : b` with the three shapes broadcast together (NumPy's `where`).
///
/// Each of `cond`, `a` and `b` is an array, a scalar or the `Result` of another operation
/// ([`ArrayOrScalar`]); a scalar counts as a 0-d array. At least one of them must be an
/// array (it names the device).
///
/// ```no_run
/// let dev = cuarray::Device::new(0)?;
/// let x = cuarray::DeviceArray::from_slice(&dev, &[-2.0f32, 3.0])?;
/// assert_eq!(cuarray::where_(x.gt(0.0), &x, 0.0)?.to_host()?, vec![0.0, 3.0]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::Broadcast`](crate::Error::Broadcast) when the shapes do not broadcast;
/// [`Error::InvalidArgument`](crate::Error::InvalidArgument) when all three are scalars.
pub fn where_<T: Element>(
    cond: impl ArrayOrScalar<bool>,
    a: impl ArrayOrScalar<T>,
    b: impl ArrayOrScalar<T>,
) -> Result<DeviceArray<T>> {
    let (cond, a, b) = (cond.into_operand()?, a.into_operand()?, b.into_operand()?);
    let device = match (&a, &b, &cond) {
        (OperandValue::Array(x), _, _) | (_, OperandValue::Array(x), _) => x.device().clone(),
        (_, _, OperandValue::Array(c)) => c.device().clone(),
        _ => {
            return Err(crate::Error::invalid(
                "where",
                "needs at least one array among cond, a and b (got three scalars)",
            ))
        }
    };
    let (cond, a, b) = (
        cond.to_array(&device)?,
        a.to_array(&device)?,
        b.to_array(&device)?,
    );
    cond.used_by("where", &device)?;
    a.used_by("where", &device)?;
    b.used_by("where", &device)?;
    let shape = broadcast_shapes("where", cond.shape(), a.shape())?;
    let shape = broadcast_shapes("where", &shape, b.shape())?;
    let out = DeviceArray::<T>::alloc_uninit(&device, &shape)?;
    elementwise::run(
        &device,
        "where",
        WHERE_BODY,
        &[out.operand()?],
        &[
            cond.operand_as(&shape)?,
            a.operand_as(&shape)?,
            b.operand_as(&shape)?,
        ],
        &[],
    )?;
    Ok(out)
}

macro_rules! operators {
    ($bound:ident; $($trait:ident $method:ident $assign_trait:ident $assign:ident $op:ident),*) => {$(
        impl<T: $bound, R: ArrayOrScalar<T>> std::ops::$trait<R> for &DeviceArray<T> {
            type Output = Result<DeviceArray<T>>;
            fn $method(self, rhs: R) -> Self::Output { self.binary(BinaryOp::$op, rhs) }
        }
        impl<T: $bound, R: ArrayOrScalar<T>> std::ops::$trait<R> for DeviceArray<T> {
            type Output = Result<DeviceArray<T>>;
            fn $method(self, rhs: R) -> Self::Output { self.binary(BinaryOp::$op, rhs) }
        }
        impl<T: $bound> std::ops::$trait<&DeviceArray<T>> for Result<DeviceArray<T>> {
            type Output = Result<DeviceArray<T>>;
            fn $method(self, rhs: &DeviceArray<T>) -> Self::Output { self?.zip(BinaryOp::$op, rhs) }
        }
        impl<T: $bound> std::ops::$trait<DeviceArray<T>> for Result<DeviceArray<T>> {
            type Output = Result<DeviceArray<T>>;
            fn $method(self, rhs: DeviceArray<T>) -> Self::Output { self?.zip(BinaryOp::$op, &rhs) }
        }
        /// In place, writing through views; no new array.
        ///
        /// # Panics
        /// On any error of the in-place method (shapes that do not broadcast, a broadcast
        /// view as the target, a failed launch, the error of a `Result` operand), with the
        #[doc = concat!("error's message: an operator cannot return it. [`DeviceArray::", stringify!($assign), "`]")]
        /// returns it as a `Result`.
        impl<T: $bound, R: ArrayOrScalar<T>> std::ops::$assign_trait<R> for DeviceArray<T> {
            fn $assign(&mut self, rhs: R) {
                if let Err(e) = self.binary_assign(BinaryOp::$op, rhs) {
                    panic!(concat!("`", stringify!($assign), "` operator failed: {} (the method returns the error as a Result)"), e);
                }
            }
        }
    )*};
}
operators!(ArithElement;
    Add add AddAssign add_assign Add,
    Sub sub SubAssign sub_assign Sub,
    Mul mul MulAssign mul_assign Mul,
    Div div DivAssign div_assign Div
);
operators!(NumElement; Rem rem RemAssign rem_assign Rem);

/// A complex array with a real scalar of its part type (`&z * 2.0f32` for a
/// [`Complex32`] array): the scalar becomes `x + 0i` and the operation is the complex one,
/// as NumPy's. (The methods take the complex scalar: `z.mul(Complex32::from(2.0))`.)
macro_rules! complex_real_scalar {
    ($($c:ty, $r:ty);*) => {$(
        complex_real_scalar!(@one $c, $r, Add add AddAssign add_assign Add,
            Sub sub SubAssign sub_assign Sub, Mul mul MulAssign mul_assign Mul,
            Div div DivAssign div_assign Div);
    )*};
    (@one $c:ty, $r:ty, $($trait:ident $method:ident $assign_trait:ident $assign:ident $op:ident),*) => {$(
        impl std::ops::$trait<$r> for &DeviceArray<$c> {
            type Output = Result<DeviceArray<$c>>;
            fn $method(self, rhs: $r) -> Self::Output { self.zip_scalar(BinaryOp::$op, <$c>::from(rhs), false) }
        }
        impl std::ops::$trait<$r> for DeviceArray<$c> {
            type Output = Result<DeviceArray<$c>>;
            fn $method(self, rhs: $r) -> Self::Output { self.zip_scalar(BinaryOp::$op, <$c>::from(rhs), false) }
        }
        /// In place, writing through views.
        ///
        /// # Panics
        /// On any error of the in-place method, as the other compound assignments.
        impl std::ops::$assign_trait<$r> for DeviceArray<$c> {
            fn $assign(&mut self, rhs: $r) {
                if let Err(e) = self.binary_assign(BinaryOp::$op, <$c>::from(rhs)) {
                    panic!(concat!("`", stringify!($assign), "` operator failed: {} (the method returns the error as a Result)"), e);
                }
            }
        }
    )*};
}
complex_real_scalar!(Complex32, f32; Complex64, f64);

impl<T: ArithElement> std::ops::Neg for &DeviceArray<T> {
    type Output = Result<DeviceArray<T>>;
    fn neg(self) -> Self::Output {
        DeviceArray::neg(self)
    }
}
impl<T: ArithElement> std::ops::Neg for DeviceArray<T> {
    type Output = Result<DeviceArray<T>>;
    fn neg(self) -> Self::Output {
        DeviceArray::neg(&self)
    }
}

/// `scalar op array` for each concrete element type (Rust allows these only per type),
/// and a real scalar with a complex array (the scalar made complex, as NumPy does).
macro_rules! scalar_lhs {
    ($($t:ty),*) => {$(
        scalar_lhs!(@one $t => $t, Add add Add, Sub sub Sub, Mul mul Mul, Div div Div, Rem rem Rem);
    )*};
    (complex $($s:ty => $t:ty),*) => {$(
        scalar_lhs!(@one $s => $t, Add add Add, Sub sub Sub, Mul mul Mul, Div div Div);
    )*};
    (@one $s:ty => $t:ty, $($trait:ident $method:ident $op:ident),*) => {$(
        impl std::ops::$trait<&DeviceArray<$t>> for $s {
            type Output = Result<DeviceArray<$t>>;
            fn $method(self, rhs: &DeviceArray<$t>) -> Self::Output {
                rhs.zip_scalar(BinaryOp::$op, <$t>::from(self), true)
            }
        }
        impl std::ops::$trait<DeviceArray<$t>> for $s {
            type Output = Result<DeviceArray<$t>>;
            fn $method(self, rhs: DeviceArray<$t>) -> Self::Output {
                rhs.zip_scalar(BinaryOp::$op, <$t>::from(self), true)
            }
        }
    )*};
}
scalar_lhs!(
    f32,
    f64,
    half::f16,
    half::bf16,
    i8,
    i16,
    i32,
    i64,
    u8,
    u16,
    u32,
    u64
);
scalar_lhs!(complex
    Complex32 => Complex32,
    Complex64 => Complex64,
    f32 => Complex32,
    f64 => Complex64
);

impl<T: Element> DeviceArray<T> {
    /// Copies `src`, broadcast to `self`'s shape, into `self` (NumPy's `a[...] = src`).
    ///
    /// Writes through views into the memory they share.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::<f32>::zeros(&dev, &[2, 2])?;
    /// a.assign(&DeviceArray::from_slice(&dev, &[1.0, 2.0])?)?; // a[...] = [1, 2], row by row
    /// assert_eq!(a.to_host()?, vec![1.0, 2.0, 1.0, 2.0]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Broadcast`](crate::Error::Broadcast) when `src` does not broadcast to
    /// `self`'s shape; [`Error::InvalidArgument`](crate::Error::InvalidArgument) when
    /// `self` is a broadcast view (stride 0), which cannot be written;
    /// [`Error::DeviceMismatch`](crate::Error::DeviceMismatch) across devices.
    pub fn assign(&self, src: &DeviceArray<T>) -> Result<()> {
        super::view::copy_into(self, src)
    }
}
