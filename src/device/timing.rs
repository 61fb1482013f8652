//! Timing GPU work with CUDA events.

use super::Device;
use crate::{Error, Result};
use cudarc::driver::sys::CUevent_flags;
use std::time::Duration;

/// Per-repetition device times of a timed block, from [`Device::time`].
///
/// ```no_run
/// use cuarray::{Device, DeviceArray};
/// let dev = Device::new(0)?;
/// let a = DeviceArray::<f32>::ones(&dev, &[1 << 24])?;
/// let t = dev.time(3, 20, || a.exp().map(drop))?;
/// println!("exp: median {:?}, min {:?} over {} runs", t.median(), t.min(), t.samples().len());
/// # Ok::<(), cuarray::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Timings {
    samples: Vec<Duration>,
}

impl Timings {
    /// Every repetition's time, in the order run.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::<f32>::ones(&dev, &[1 << 20])?;
    /// let t = dev.time(2, 10, || (&a + &a).map(drop))?;
    /// assert_eq!(t.samples().len(), 10);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn samples(&self) -> &[Duration] {
        &self.samples
    }
    /// The median repetition (the figure to report).
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::<f32>::ones(&dev, &[1 << 20])?;
    /// let t = dev.time(2, 10, || (&a + &a).map(drop))?;
    /// println!("add: {:?} median", t.median());
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn median(&self) -> Duration {
        let mut s = self.samples.clone();
        s.sort();
        s.get(s.len() / 2).copied().unwrap_or_default()
    }
    /// The fastest repetition.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::<f32>::ones(&dev, &[1 << 20])?;
    /// let t = dev.time(2, 10, || (&a + &a).map(drop))?;
    /// assert!(t.min() <= t.median());
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn min(&self) -> Duration {
        self.samples.iter().min().copied().unwrap_or_default()
    }
}

impl Device {
    /// Times `f` on the device: runs it `warmup` times (compiling kernels, filling the
    /// pool), then `reps` times, each between two CUDA events recorded on the handle's
    /// stream, and waits for the GPU once at the end.
    ///
    /// The times are device times of the work `f` queues, not host times.
    ///
    /// # Synchronization
    /// Waits for the device after the warm-up and at the end.
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let a = cuarray::DeviceArray::<f32>::ones(&dev, &[1 << 24])?;
    /// let t = dev.time(3, 20, || (&a + &a).map(drop))?;
    /// let gbps = 3.0 * 4.0 * (1 << 24) as f64 / t.median().as_secs_f64() / 1e9;
    /// println!("add: {:?} median, {gbps:.0} GB/s", t.median());
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// The first error of `f`; as [`synchronize`](Device::synchronize) for the waits;
    /// [`Error::Cuda`] when an event cannot be created, recorded or read.
    pub fn time(
        &self,
        warmup: usize,
        reps: usize,
        mut f: impl FnMut() -> Result<()>,
    ) -> Result<Timings> {
        for _ in 0..warmup {
            f()?;
        }
        self.synchronize()?;
        let ctx = self.context();
        let ev = || {
            ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
                .map_err(Error::cuda("creating an event"))
        };
        let mut pairs = Vec::with_capacity(reps);
        for _ in 0..reps {
            let (start, stop) = (ev()?, ev()?);
            start
                .record(self.cuda_stream())
                .map_err(Error::cuda("recording an event"))?;
            f()?;
            stop.record(self.cuda_stream())
                .map_err(Error::cuda("recording an event"))?;
            pairs.push((start, stop));
        }
        self.synchronize()?;
        let samples = pairs
            .iter()
            .map(|(a, b)| {
                a.elapsed_ms(b)
                    .map(|ms| Duration::from_secs_f64(ms as f64 / 1e3))
                    .map_err(Error::cuda("reading an event"))
            })
            .collect::<Result<_>>()?;
        Ok(Timings { samples })
    }
}
