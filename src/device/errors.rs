//! Errors found by kernels: out-of-range indices, recorded on the device and reported on
//! the host at the next call that waits for the GPU.
//!
//! A kernel that meets a bad index (`take`, `put_along_axis`, `index_add`, ...) never
//! reads or writes out of bounds: it clamps or skips the element and records the index in
//! its op's *record*, four 64-bit words in a small block of device memory (one per
//! device): `claimed` (0 or 1), the index, the extent it had to fit and a spare word.
//! The first bad index of an op claims the record with `atomicCAS`; later ones leave it
//! alone. Nothing waits at the launch.
//!
//! The host side knows which ops may have written since the last look (a flag set when a
//! record's address is handed to a launch). The calls that wait for the GPU
//! ([`Device::synchronize`], [`Device::synchronize_all`], the transfers to the host and
//! [`Device::check`]) then read the block (512 bytes), clear the records that were set,
//! and return [`Error::IndexOutOfRange`] for the first one. Calls that do not wait pay one
//! relaxed atomic load.

use super::Device;
use crate::{Error, Result};
use cudarc::driver::sys::CUdeviceptr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// Records in the block: one per op that checks indices.
pub(crate) const RECORDS: usize = 16;
/// Bytes per record: `claimed`, `index`, `extent`, spare (64-bit words).
pub(crate) const RECORD_BYTES: usize = 32;

/// The host side of a device's error records.
#[derive(Default)]
pub(crate) struct DeviceErrors {
    /// Op names by record, in the order they were first used.
    ops: Mutex<Vec<&'static str>>,
    /// Set when a record was handed to a launch since the last look.
    pending: AtomicBool,
}

impl Device {
    /// The device address of `op`'s error record, for a launch that checks its indices.
    /// Marks the records as worth a look at the next wait.
    pub(crate) fn error_record(&self, op: &'static str) -> Result<CUdeviceptr> {
        let errors = &self.inner.errors;
        let slot = {
            let mut ops = errors.ops.lock().unwrap_or_else(|p| p.into_inner());
            match ops.iter().position(|&o| o == op) {
                Some(k) => k,
                None if ops.len() < RECORDS => {
                    ops.push(op);
                    ops.len() - 1
                }
                None => {
                    return Err(Error::invalid(
                        op,
                        "too many index-checking ops for the device's error records",
                    ))
                }
            }
        };
        let base = self.error_block()?;
        errors.pending.store(true, Ordering::Release);
        Ok(base + (slot * RECORD_BYTES) as CUdeviceptr)
    }

    /// The block of records: scratch of the device's own stream, zeroed once and waited
    /// for, so that kernels on any stream find it zero.
    fn error_block(&self) -> Result<CUdeviceptr> {
        let own = self.on_own_stream();
        let bytes = RECORDS * RECORD_BYTES;
        if let Some(p) = own.existing_scratch("device_errors") {
            return Ok(p);
        }
        let p = own.scratch("device_errors", bytes, true)?;
        own.cuda_stream()
            .synchronize()
            .map_err(Error::cuda("zeroing the device error records"))?;
        Ok(p)
    }

    /// Waits for the work queued on this handle's stream, then reports an index that a
    /// kernel found out of range since the last report (see [`Error::IndexOutOfRange`]).
    ///
    /// The transfers to the host and [`synchronize`](Device::synchronize) report these
    /// errors too; `check` is the explicit form.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::from_slice(&dev, &[1.0f32, 2.0, 3.0])?;
    /// let idx = DeviceArray::from_slice(&dev, &[0i64, 7])?;
    /// let _b = a.take(&idx, None)?;          // queued; nothing waits
    /// assert!(dev.check().is_err());          // "take: index 7 is out of range ..."
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::IndexOutOfRange`] for the first index out of range recorded since the last
    /// report; [`Error::Capture`] while a CUDA graph is being captured on the device;
    /// [`Error::Cuda`] when the wait fails.
    pub fn check(&self) -> Result<()> {
        self.synchronize()
    }

    /// After a wait: reads the records if a launch may have written one, clears the set
    /// ones and returns the first as an error.
    pub(crate) fn report_device_errors(&self) -> Result<()> {
        let errors = &self.inner.errors;
        if !errors.pending.load(Ordering::Acquire) {
            return Ok(());
        }
        let Some(base) = self.on_own_stream().existing_scratch("device_errors") else {
            return Ok(());
        };
        errors.pending.store(false, Ordering::Release);
        let mut words = [0u64; RECORDS * RECORD_BYTES / 8];
        self.bind()?;
        // SAFETY: the block holds RECORDS * RECORD_BYTES bytes and `words` as many; the
        // stream synchronize below completes the copy before `words` is read.
        unsafe {
            cudarc::driver::sys::cuMemcpyDtoHAsync_v2(
                words.as_mut_ptr() as *mut std::ffi::c_void,
                base,
                RECORDS * RECORD_BYTES,
                self.cu_stream(),
            )
        }
        .result()
        .map_err(Error::cuda("reading the device error records"))?;
        self.cuda_stream()
            .synchronize()
            .map_err(Error::cuda("reading the device error records"))?;
        let ops = errors.ops.lock().unwrap_or_else(|p| p.into_inner()).clone();
        let mut first = None;
        for (k, &op) in ops.iter().enumerate() {
            let w = &words[k * 4..k * 4 + 4];
            if w[0] == 0 {
                continue;
            }
            // SAFETY: the record lies inside the block; the memset is ordered on the
            // stream after the copy above.
            unsafe {
                cudarc::driver::result::memset_d8_async(
                    base + (k * RECORD_BYTES) as CUdeviceptr,
                    0,
                    RECORD_BYTES,
                    self.cu_stream(),
                )
            }
            .map_err(Error::cuda("clearing a device error record"))?;
            first.get_or_insert(Error::IndexOutOfRange {
                op,
                index: w[1] as i64,
                extent: w[2] as i64,
            });
        }
        match first {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}
