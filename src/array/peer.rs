//! Moving arrays between devices: [`DeviceArray::to_device`].

use super::DeviceArray;
use crate::device::{peer, Device};
use crate::element::Element;
use crate::Result;

/// How [`DeviceArray::to_device`] moves the data (chosen from the two devices; forced
/// only by tests).
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PeerRoute {
    /// A device-to-device copy on one device.
    Same,
    /// `cuMemcpyPeerAsync`, with peer access enabled when the hardware allows it.
    Peer,
    /// Through host memory: a transfer to the host, then one to the other device.
    Staged,
}

impl<T: Element> DeviceArray<T> {
    /// A copy of this array on the device of `dst` (and on that handle's stream), with
    /// the same shape, C-contiguous.
    ///
    /// - **Another GPU that can access this one's memory** (NVLink, or PCIe
    ///   peer-to-peer, as `cuDeviceCanAccessPeer` says): a direct copy
    ///   (`cuMemcpyPeerAsync`), with peer access enabled on first use for the pair. The
    ///   host does not wait: the copy is queued after the work already queued on this
    ///   array's stream, and work queued on `dst`'s stream afterwards sees the data.
    /// - **Another GPU without peer access**: staged through host memory (a transfer to
    ///   the host, then one to `dst`), which waits for this array's stream like
    ///   [`to_host`](DeviceArray::to_host).
    /// - **The same GPU**: a device-to-device copy, as [`copy`](DeviceArray::copy) (on
    ///   `dst`'s stream, after the work queued on this array's stream).
    ///
    /// A non-contiguous array (a transposed or sliced view) is first made contiguous on
    /// its own device.
    ///
    /// # Errors
    /// [`Error::OutOfMemory`](crate::Error::OutOfMemory) on either device;
    /// [`Error::Capture`](crate::Error::Capture) while a CUDA graph is being captured on
    /// either device and the devices differ; [`Error::Cuda`](crate::Error::Cuda) when a
    /// driver call fails.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let gpu0 = Device::new(0)?;
    /// let gpu1 = Device::new(1)?;
    /// let a = DeviceArray::<f32>::arange(&gpu0, 0.0, 6.0, 1.0)?.reshape(&[2, 3])?;
    /// let b = a.t().to_device(&gpu1)?;        // a (3, 2) array on GPU 1
    /// assert_eq!(b.to_host()?, vec![0.0, 3.0, 1.0, 4.0, 2.0, 5.0]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn to_device(&self, dst: &Device) -> Result<DeviceArray<T>> {
        let src = self.device();
        let route = if src == dst {
            PeerRoute::Same
        } else if peer::can_access_peer(src, dst)? {
            PeerRoute::Peer
        } else {
            PeerRoute::Staged
        };
        self.to_device_via(dst, route)
    }

    /// [`to_device`](DeviceArray::to_device) by a given route (tests force each one; any
    /// route works between any two devices, the same one included).
    ///
    /// # Errors
    /// As [`to_device`](DeviceArray::to_device).
    #[doc(hidden)]
    pub fn to_device_via(&self, dst: &Device, route: PeerRoute) -> Result<DeviceArray<T>> {
        const OP: &str = "to_device";
        let src = self.device();
        match route {
            PeerRoute::Same if src == dst => {
                if src.stream_id() == dst.stream_id() {
                    return self.copy();
                }
                // Another stream of the same device: order it after this array's writes,
                // then copy there (the buffer records its use on that stream).
                dst.stream().wait(&src.stream().record_event()?)?;
                self.on_handle(dst).copy()
            }
            PeerRoute::Staged => {
                let host = self.to_host()?;
                DeviceArray::from_host(dst, &host, self.shape())
            }
            PeerRoute::Same | PeerRoute::Peer => {
                let _src_queuing = src.check_capture(OP)?;
                let _dst_queuing = dst.check_capture(OP)?;
                if src != dst && peer::can_access_peer(src, dst)? {
                    peer::enable_peer_access(src, dst)?;
                }
                let contiguous = self.contiguous()?;
                let out = DeviceArray::<T>::alloc_for(OP, dst, self.shape())?;
                let bytes = self.size() * std::mem::size_of::<T>();
                // SAFETY: `contiguous` holds `size()` elements from its first element on
                // `src`'s device and belongs to `src`'s stream (made there, or this array
                // itself), so dropping it after this call keeps its memory until the copy
                // is done; `out` was just allocated with `bytes` bytes on `dst`'s stream.
                unsafe {
                    peer::copy_peer(dst, out.first_ptr(), src, contiguous.first_ptr(), bytes)?;
                }
                Ok(out)
            }
        }
    }
}
