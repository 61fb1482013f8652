//! Arithmetic on arrays: methods and `std::ops` operators (which return `Result`).

use super::{same_device, DeviceArray};
use crate::element::{Element, NumElement};
use crate::ops::elementwise::{self, BinaryOp, Scalar};
use crate::shape::broadcast_shapes;
use crate::Result;

impl<T: NumElement> DeviceArray<T> {
    /// `op(self, rhs)` with NumPy broadcasting, into a new array.
    pub(crate) fn binary(&self, op: BinaryOp, rhs: &DeviceArray<T>) -> Result<DeviceArray<T>> {
        same_device(op.name(), self.device(), rhs.device())?;
        let shape = broadcast_shapes(op.name(), self.shape(), rhs.shape())?;
        let out = Self::alloc_uninit(self.device(), &shape)?;
        elementwise::run(
            self.device(),
            op.name(),
            op.body(),
            &[out.operand()],
            &[self.operand_as(&shape)?, rhs.operand_as(&shape)?],
            &[],
        )?;
        Ok(out)
    }

    /// `op(self, s)` (or `op(s, self)` when `scalar_lhs`), into a new array.
    pub(crate) fn binary_scalar(&self, op: BinaryOp, s: T, scalar_lhs: bool) -> Result<DeviceArray<T>> {
        let out = Self::alloc_uninit(self.device(), self.shape())?;
        let body = if scalar_lhs { op.body_scalar_lhs() } else { op.body_scalar_rhs() };
        elementwise::run(self.device(), op.name(), body, &[out.operand()], &[self.operand()], &[Scalar::of(s)])?;
        Ok(out)
    }

    /// Elementwise `self + rhs`, broadcasting.
    ///
    /// # Errors
    /// [`Error::Broadcast`](crate::Error::Broadcast) naming both shapes when they do not
    /// broadcast; [`Error::DeviceMismatch`](crate::Error::DeviceMismatch) across devices.
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let a = cuarray::DeviceArray::from_host(&dev, &[1.0f32, 2.0, 3.0], &[3, 1])?;
    /// let b = cuarray::DeviceArray::from_slice(&dev, &[10.0f32, 20.0])?;
    /// assert_eq!(a.add(&b)?.shape(), &[3, 2]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn add(&self, rhs: &DeviceArray<T>) -> Result<DeviceArray<T>> {
        self.binary(BinaryOp::Add, rhs)
    }
    /// Elementwise `self - rhs`, broadcasting.
    pub fn sub(&self, rhs: &DeviceArray<T>) -> Result<DeviceArray<T>> {
        self.binary(BinaryOp::Sub, rhs)
    }
    /// Elementwise `self * rhs`, broadcasting.
    pub fn mul(&self, rhs: &DeviceArray<T>) -> Result<DeviceArray<T>> {
        self.binary(BinaryOp::Mul, rhs)
    }
    /// Elementwise `self / rhs`, broadcasting: IEEE division for floats, floor division
    /// for integers (NumPy's `//`), with 0 for an integer division by zero.
    pub fn div(&self, rhs: &DeviceArray<T>) -> Result<DeviceArray<T>> {
        self.binary(BinaryOp::Div, rhs)
    }
}

macro_rules! operators {
    ($($trait:ident $method:ident $op:ident),*) => {$(
        impl<T: NumElement> std::ops::$trait<&DeviceArray<T>> for &DeviceArray<T> {
            type Output = Result<DeviceArray<T>>;
            fn $method(self, rhs: &DeviceArray<T>) -> Self::Output { self.binary(BinaryOp::$op, rhs) }
        }
        impl<T: NumElement> std::ops::$trait<DeviceArray<T>> for &DeviceArray<T> {
            type Output = Result<DeviceArray<T>>;
            fn $method(self, rhs: DeviceArray<T>) -> Self::Output { self.binary(BinaryOp::$op, &rhs) }
        }
        impl<T: NumElement> std::ops::$trait<&DeviceArray<T>> for DeviceArray<T> {
            type Output = Result<DeviceArray<T>>;
            fn $method(self, rhs: &DeviceArray<T>) -> Self::Output { self.binary(BinaryOp::$op, rhs) }
        }
        impl<T: NumElement> std::ops::$trait<DeviceArray<T>> for DeviceArray<T> {
            type Output = Result<DeviceArray<T>>;
            fn $method(self, rhs: DeviceArray<T>) -> Self::Output { self.binary(BinaryOp::$op, &rhs) }
        }
        impl<T: NumElement> std::ops::$trait<&DeviceArray<T>> for Result<DeviceArray<T>> {
            type Output = Result<DeviceArray<T>>;
            fn $method(self, rhs: &DeviceArray<T>) -> Self::Output { self?.binary(BinaryOp::$op, rhs) }
        }
        impl<T: NumElement> std::ops::$trait<Result<DeviceArray<T>>> for &DeviceArray<T> {
            type Output = Result<DeviceArray<T>>;
            fn $method(self, rhs: Result<DeviceArray<T>>) -> Self::Output { self.binary(BinaryOp::$op, &rhs?) }
        }
        impl<T: NumElement> std::ops::$trait<T> for &DeviceArray<T> {
            type Output = Result<DeviceArray<T>>;
            fn $method(self, rhs: T) -> Self::Output { self.binary_scalar(BinaryOp::$op, rhs, false) }
        }
        impl<T: NumElement> std::ops::$trait<T> for DeviceArray<T> {
            type Output = Result<DeviceArray<T>>;
            fn $method(self, rhs: T) -> Self::Output { self.binary_scalar(BinaryOp::$op, rhs, false) }
        }
    )*};
}
operators!(Add add Add, Sub sub Sub, Mul mul Mul, Div div Div);

/// `scalar op array` for each concrete element type (Rust allows these only per type).
macro_rules! scalar_lhs {
    ($($t:ty),*) => {$(
        scalar_lhs!(@one $t, Add add Add, Sub sub Sub, Mul mul Mul, Div div Div);
    )*};
    (@one $t:ty, $($trait:ident $method:ident $op:ident),*) => {$(
        impl std::ops::$trait<&DeviceArray<$t>> for $t {
            type Output = Result<DeviceArray<$t>>;
            fn $method(self, rhs: &DeviceArray<$t>) -> Self::Output { rhs.binary_scalar(BinaryOp::$op, self, true) }
        }
        impl std::ops::$trait<DeviceArray<$t>> for $t {
            type Output = Result<DeviceArray<$t>>;
            fn $method(self, rhs: DeviceArray<$t>) -> Self::Output { rhs.binary_scalar(BinaryOp::$op, self, true) }
        }
    )*};
}
scalar_lhs!(f32, f64, half::f16, half::bf16, i8, i16, i32, i64, u8, u16, u32, u64);

impl<T: Element> DeviceArray<T> {
    /// Copies `src`, broadcast to `self`'s shape, into `self` (NumPy's `a[...] = src`).
    ///
    /// Writes through views into the memory they share.
    pub fn assign(&self, src: &DeviceArray<T>) -> Result<()> {
        super::view::copy_into(self, src)
    }
}
