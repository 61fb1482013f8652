//! NumPy's editing helpers that make a new array from an old one: [`resize`](DeviceArray::resize).

use super::DeviceArray;
use crate::element::Element;
use crate::shape::{new_shape, IntoShape, SliceElem};
use crate::Result;

impl<T: Element> DeviceArray<T> {
    /// A new array of `shape` filled with this array's elements in C order, repeated as
    /// often as needed (NumPy's `np.resize(a, shape)`, not the in-place method): zeros
    /// when this array is empty.
    ///
    /// # Errors
    /// [`Error::TooLarge`](crate::Error::TooLarge) when `shape`'s size overflows.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_slice(&dev, &[1, 2, 3])?;
    /// assert_eq!(a.resize([2, 4])?.to_host()?, vec![1, 2, 3, 1, 2, 3, 1, 2]);
    /// assert_eq!(a.resize([2])?.to_host()?, vec![1, 2]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn resize(&self, shape: impl IntoShape) -> Result<Self> {
        let shape = new_shape("resize", shape)?;
        let n = super::put::checked_size("resize", &shape)?;
        let size = self.size();
        if size == 0 || n == 0 {
            return Self::zeros(self.device(), &shape);
        }
        let tiled = self.reshape([size])?.tile([n.div_ceil(size)])?;
        tiled
            .slice([SliceElem::Range {
                start: None,
                end: Some(n as isize),
                step: 1,
            }])?
            .reshape(&shape)
    }
}
