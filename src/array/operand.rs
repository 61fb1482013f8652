//! [`ArrayOrScalar`]: the one operand trait of the elementwise methods and operators.

use super::DeviceArray;
use crate::element::Element;
use crate::Result;
use std::borrow::Cow;

/// An operand that is an array or a scalar of the same element type, after
/// [`ArrayOrScalar::into_operand`].
#[derive(Debug)]
pub enum OperandValue<'a, T: Element> {
    /// An array, borrowed or owned.
    Array(Cow<'a, DeviceArray<T>>),
    /// A scalar, broadcast to every element.
    Scalar(T),
}

/// What an elementwise method or operator accepts wherever an array fits: `&DeviceArray<T>`,
/// `DeviceArray<T>`, a scalar `T`, or the `Result<DeviceArray<T>>` of another operation
/// (its error is returned as is).
///
/// The comparisons (`gt`, `eq`, ...), the arithmetic methods (`add`, `pow`, `maximum`,
/// ...), every `*_assign` method, [`where_`](crate::where_) and the operators
/// (`&a + 2.0`, `w -= &g`) all take one.
///
/// ```no_run
/// use cuarray::{Device, DeviceArray};
/// let dev = Device::new(0)?;
/// let x = DeviceArray::from_slice(&dev, &[-1.0f32, 2.0, 3.0])?;
/// let y = DeviceArray::from_slice(&dev, &[1.0f32, 1.0, 5.0])?;
/// assert_eq!(x.gt(0.0)?.to_host()?, vec![false, true, true]);   // a scalar
/// assert_eq!(x.gt(&y)?.to_host()?, vec![false, true, false]);   // an array
/// assert_eq!(x.pow(2.0)?.to_host()?, vec![1.0, 4.0, 9.0]);
/// let z = x.maximum(&y * 2.0)?;                                 // a Result
/// assert_eq!(z.to_host()?, vec![2.0, 2.0, 10.0]);
/// # Ok::<(), cuarray::Error>(())
/// ```
pub trait ArrayOrScalar<T: Element> {
    /// The operand: an array (borrowed when `self` is a reference) or a scalar.
    ///
    /// # Errors
    /// The error of a `Result` operand.
    fn into_operand<'a>(self) -> Result<OperandValue<'a, T>>
    where
        Self: 'a;
}

impl<T: Element> ArrayOrScalar<T> for T {
    fn into_operand<'a>(self) -> Result<OperandValue<'a, T>> {
        Ok(OperandValue::Scalar(self))
    }
}

impl<T: Element> ArrayOrScalar<T> for &DeviceArray<T> {
    fn into_operand<'a>(self) -> Result<OperandValue<'a, T>>
    where
        Self: 'a,
    {
        Ok(OperandValue::Array(Cow::Borrowed(self)))
    }
}

impl<T: Element> ArrayOrScalar<T> for DeviceArray<T> {
    fn into_operand<'a>(self) -> Result<OperandValue<'a, T>> {
        Ok(OperandValue::Array(Cow::Owned(self)))
    }
}

impl<T: Element> ArrayOrScalar<T> for Result<DeviceArray<T>> {
    fn into_operand<'a>(self) -> Result<OperandValue<'a, T>> {
        Ok(OperandValue::Array(Cow::Owned(self?)))
    }
}

impl<T: Element> OperandValue<'_, T> {
    /// The operand as an array on `device`: a scalar becomes a 0-d array.
    pub(crate) fn to_array(&self, device: &crate::Device) -> Result<Cow<'_, DeviceArray<T>>> {
        match self {
            OperandValue::Array(a) => Ok(Cow::Borrowed(a.as_ref())),
            OperandValue::Scalar(s) => Ok(Cow::Owned(DeviceArray::full(device, [0usize; 0], *s)?)),
        }
    }
}
