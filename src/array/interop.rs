//! Conversions to and from `ndarray` arrays (feature `ndarray`).

use super::DeviceArray;
use crate::element::Element;
use crate::{Device, Result};

impl<T: Element> DeviceArray<T> {
    /// Copies an `ndarray` array of any dimension type to the device, keeping its shape.
    ///
    /// # Errors
    /// As [`from_host`](Self::from_host): [`Error::TooLarge`](crate::Error::TooLarge) when
    /// the byte size passes `isize::MAX`, [`Error::OutOfMemory`](crate::Error::OutOfMemory)
    /// when the device is full.
    ///
    /// # Transfers
    /// One host-to-device copy (after a host-side gather if `array` is not in standard
    /// layout).
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let h = ndarray::array![[1.0f32, 2.0], [3.0, 4.0]];
    /// let d = cuarray::DeviceArray::from_ndarray(&dev, &h)?;
    /// assert_eq!(d.shape(), &[2, 2]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn from_ndarray<S, D>(device: &Device, array: &ndarray::ArrayBase<S, D>) -> Result<Self>
    where
        S: ndarray::Data<Elem = T>,
        D: ndarray::Dimension,
    {
        let shape = array.shape().to_vec();
        match array.as_slice() {
            Some(s) => Self::from_host(device, s, &shape),
            None => {
                let v: Vec<T> = array.iter().copied().collect();
                Self::from_host(device, &v, &shape)
            }
        }
    }

    /// Copies the array to the host as an `ndarray::ArrayD` of the same shape.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_host(&dev, &[1.0f32, 2.0, 3.0, 4.0], &[2, 2])?;
    /// let h = a.to_ndarray()?;
    /// assert_eq!(h.shape(), &[2, 2]);
    /// assert_eq!(h[[1, 0]], 3.0);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`to_host`](DeviceArray::to_host).
    ///
    /// # Transfers and synchronization
    /// As [`to_host`](DeviceArray::to_host).
    pub fn to_ndarray(&self) -> Result<ndarray::ArrayD<T>> {
        let v = self.to_host()?;
        ndarray::ArrayD::from_shape_vec(ndarray::IxDyn(self.shape()), v)
            .map_err(|e| crate::Error::invalid("to_ndarray", e.to_string()))
    }
}
