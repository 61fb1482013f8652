//! Host-device traffic counters of a device ([`TransferStats`]).

use std::sync::atomic::{AtomicU64, Ordering};

/// Host-device traffic of one device, from [`Device::transfer_stats`](super::Device::transfer_stats).
///
/// ```no_run
/// use cuarray::{Device, DeviceArray};
/// let dev = Device::new(0)?;
/// let before = dev.transfer_stats();
/// let a = DeviceArray::<f32>::ones(&dev, &[256])?;
/// let total = a.sum()?.to_scalar()?; // one 4-byte copy back
/// let after = dev.transfer_stats();
/// assert_eq!(after.d2h_calls - before.d2h_calls, 1);
/// assert_eq!(after.h2d_calls, before.h2d_calls); // `ones` is made on the device
/// # Ok::<(), cuarray::Error>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TransferStats {
    /// Host-to-device copies.
    pub h2d_calls: u64,
    /// Bytes copied host to device.
    pub h2d_bytes: u64,
    /// Device-to-host copies.
    pub d2h_calls: u64,
    /// Bytes copied device to host.
    pub d2h_bytes: u64,
    /// Times the host waited for the device.
    pub syncs: u64,
}

#[derive(Default)]
pub(crate) struct TransferCounters {
    h2d_calls: AtomicU64,
    h2d_bytes: AtomicU64,
    d2h_calls: AtomicU64,
    d2h_bytes: AtomicU64,
    syncs: AtomicU64,
}

impl TransferCounters {
    pub(crate) fn h2d(&self, bytes: usize) {
        self.h2d_calls.fetch_add(1, Ordering::Relaxed);
        self.h2d_bytes.fetch_add(bytes as u64, Ordering::Relaxed);
    }
    pub(crate) fn d2h(&self, bytes: usize) {
        self.d2h_calls.fetch_add(1, Ordering::Relaxed);
        self.d2h_bytes.fetch_add(bytes as u64, Ordering::Relaxed);
    }
    pub(crate) fn sync(&self) {
        self.syncs.fetch_add(1, Ordering::Relaxed);
    }
    pub(super) fn snapshot(&self) -> TransferStats {
        TransferStats {
            h2d_calls: self.h2d_calls.load(Ordering::Relaxed),
            h2d_bytes: self.h2d_bytes.load(Ordering::Relaxed),
            d2h_calls: self.d2h_calls.load(Ordering::Relaxed),
            d2h_bytes: self.d2h_bytes.load(Ordering::Relaxed),
            syncs: self.syncs.load(Ordering::Relaxed),
        }
    }
}
