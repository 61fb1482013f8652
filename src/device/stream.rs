//! Streams and events: running work on a chosen CUDA stream, ordering streams, timing.
//!
//! Every [`Device`] handle names the stream its work runs on: `Device::new` gives the
//! device's own stream; [`Stream::device`] gives a handle on another one. Arrays remember
//! the handle they were made with, so an operation runs on the stream of the array it is
//! called on (the first operand), and its result lives there too.

use super::Device;
use crate::{Error, Result};
use cudarc::driver::sys::{CUevent_flags, CUstream};
use cudarc::driver::{CudaEvent, CudaStream};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// Ids for created streams; 0 is every device's own stream.
static NEXT_STREAM_ID: AtomicU64 = AtomicU64::new(1);

/// A CUDA stream of one device: a queue of work that runs in order, concurrently with
/// other streams' work.
///
/// Work is put on a stream through a [`Device`] handle bound to it ([`Stream::device`]),
/// or by moving an array there ([`DeviceArray::on_stream`](crate::DeviceArray::on_stream)).
/// Streams do not wait for each other unless told to ([`Stream::wait`]).
///
/// # Sharing arrays between streams
/// - **Ordering is yours.** When an array written on stream A is read on stream B, record
///   an event on A after the write and make B wait for it, as in CUDA, CuPy and PyTorch.
/// - **Memory lifetime is cuarray's.** An array used on a stream other than the one it
///   was allocated on may be dropped at any time: its memory is not reused until the
///   work queued on every stream that used it has finished.
///
/// ```no_run
/// use cuarray::{Device, DeviceArray};
/// let dev = Device::new(0)?;
/// let side = dev.new_stream()?;
/// let a = DeviceArray::<f32>::ones(&dev, &[1 << 20])?;       // on the device's stream
/// let ready = dev.stream().record_event()?;
/// side.wait(&ready)?;                                         // side waits for `a`
/// let b = (&a.on_stream(&side)? * 2.0)?;                      // runs on `side`
/// dev.stream().wait(&side.record_event()?)?;                  // and back
/// assert_eq!(b.sum()?.to_scalar()?, 2.0 * (1 << 20) as f32);
/// # Ok::<(), cuarray::Error>(())
/// ```
#[derive(Clone)]
pub struct Stream(pub(crate) Arc<StreamInner>);

pub(crate) struct StreamInner {
    /// The device, bound to its own stream (never to this one: no reference cycle).
    device: Device,
    pub(crate) cuda: Arc<CudaStream>,
    pub(crate) id: u64,
}

impl Drop for StreamInner {
    fn drop(&mut self) {
        // Blocks cached for this stream become orphans that any stream may reuse after
        // waiting for an event recorded after the work still queued here; its scratch
        // blocks go back to the pool on the device's own stream, made to wait for that event. If
        // no event can be recorded, the blocks stay cached under this stream's id until
        // the pool is trimmed.
        if self.id == 0 {
            return;
        }
        if let Ok(done) = self.cuda.record_event(None) {
            if self.device.cuda_stream().wait(&done).is_ok() {
                self.device.release_scratch(self.id);
            }
            self.device.pool().orphan(self.id, done);
        }
    }
}

impl std::fmt::Debug for Stream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Stream({} on {:?})", self.0.id, self.0.device)
    }
}

impl PartialEq for Stream {
    fn eq(&self, other: &Self) -> bool {
        self.0.device == other.0.device && self.0.id == other.0.id
    }
}
impl Eq for Stream {}

impl Stream {
    pub(crate) fn wrap(device: Device, cuda: Arc<CudaStream>, id: u64) -> Stream {
        Stream(Arc::new(StreamInner { device, cuda, id }))
    }

    pub(crate) fn create(device: &Device) -> Result<Stream> {
        let cuda = device
            .context()
            .new_stream()
            .map_err(Error::cuda("creating a stream"))?;
        let id = NEXT_STREAM_ID.fetch_add(1, Ordering::Relaxed);
        Ok(Stream::wrap(device.on_own_stream(), cuda, id))
    }

    /// Wraps a CUDA stream created by another library (PyTorch's current stream, a
    /// stream of your own FFI code) so that cuarray queues its work there. cuarray never
    /// destroys it: dropping the `Stream` (and every handle and array made from it) leaves
    /// the stream to its owner.
    ///
    /// `cu_stream` may be null, CUDA's legacy default stream, or `CU_STREAM_PER_THREAD`
    /// (`0x2`), the per-thread default stream.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray, Stream};
    /// let dev = Device::new(0)?;
    /// let theirs = dev.new_stream()?;   // stands for a stream another library created
    /// // SAFETY: the stream belongs to device 0's context and outlives `mine`.
    /// let mine = unsafe { Stream::from_raw(&dev, theirs.as_raw()) }?;
    /// let a = DeviceArray::<f32>::ones(&mine.device(), &[16])?; // queued on their stream
    /// mine.synchronize()?;
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Safety
    /// `cu_stream` must be a stream of `device`'s context (the primary context of its
    /// ordinal, the one PyTorch, CuPy and JAX use), and it must stay alive until this
    /// `Stream`, every [`Device`] handle from [`Stream::device`] and every array whose
    /// operations run on it are dropped. Ordering between cuarray's work on the stream
    /// and other streams is the caller's, as for any stream.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the driver says the stream belongs to another
    /// context; [`Error::Cuda`] when the driver cannot be asked.
    pub unsafe fn from_raw(device: &Device, cu_stream: CUstream) -> Result<Stream> {
        device.bind()?;
        let special = cu_stream.is_null() || cu_stream as usize == 0x2;
        if !special {
            let mut ctx: cudarc::driver::sys::CUcontext = std::ptr::null_mut();
            // SAFETY: a query of the stream's context; the caller promises a live stream.
            let r = unsafe { cudarc::driver::sys::cuStreamGetCtx(cu_stream, &mut ctx) };
            r.result().map_err(Error::cuda("Stream::from_raw"))?;
            if ctx != device.context().cu_ctx() {
                return Err(Error::invalid(
                    "Stream::from_raw",
                    format!(
                        "the stream belongs to another CUDA context than device {}'s \
                         (its primary context)",
                        device.ordinal()
                    ),
                ));
            }
        }
        // SAFETY: the caller promises a live stream of this context that outlives every
        // user of the wrapper; the wrapper never destroys it.
        let cuda = unsafe { device.context().wrap_borrowed_stream(cu_stream) };
        let id = NEXT_STREAM_ID.fetch_add(1, Ordering::Relaxed);
        Ok(Stream::wrap(device.on_own_stream(), cuda, id))
    }

    /// The raw `CUstream`, for a library call or a kernel launched outside cuarray. The
    /// handle stays valid while this `Stream` (or a handle or array on it) lives.
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let s = dev.new_stream()?;
    /// let raw: cuarray::cudarc::driver::sys::CUstream = s.as_raw();
    /// assert!(!raw.is_null());
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn as_raw(&self) -> CUstream {
        self.0.cuda.cu_stream()
    }

    /// A handle on the same device whose work (array creation, transfers, operations)
    /// runs on this stream.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let s = dev.new_stream()?;
    /// let on_s = s.device();
    /// let a = DeviceArray::<f32>::zeros(&on_s, &[16])?; // made on `s`
    /// let b = (&a + 1.0)?; // and so is this
    /// s.synchronize()?;
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn device(&self) -> Device {
        let base = self.0.device.clone();
        if self.0.id == 0 {
            return base;
        }
        Device {
            inner: base.inner,
            stream: Some(self.clone()),
        }
    }

    /// True for the device's own stream (the one `Device::new` handles use).
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// assert!(dev.stream().is_default());
    /// assert!(!dev.new_stream()?.is_default());
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn is_default(&self) -> bool {
        self.0.id == 0
    }

    /// Records an event after the work queued on this stream so far.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::<f32>::ones(&dev, &[1 << 20])?;
    /// let done = dev.stream().record_event()?; // after `a` is filled
    /// done.synchronize()?;
    /// assert!(done.is_complete());
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Capture`] while another thread captures a CUDA graph on the device, or
    /// this one captures on another stream; [`Error::Cuda`] when the event cannot be
    /// created or recorded.
    pub fn record_event(&self) -> Result<Event> {
        let on = self.device();
        let _queuing = on.check_capture_stream("record an event")?;
        let ctx = self.0.device.context();
        let event = ctx
            .new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
            .map_err(Error::cuda("creating an event"))?;
        event
            .record(&self.0.cuda)
            .map_err(Error::cuda("recording an event"))?;
        Ok(Event(event, self.0.device.clone()))
    }

    /// Makes work queued on this stream from now on wait until `event` has completed.
    /// The host does not wait.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let side = dev.new_stream()?;
    /// let a = DeviceArray::<f32>::ones(&dev, &[1 << 20])?;
    /// side.wait(&dev.stream().record_event()?)?; // `side` starts after `a` is written
    /// let b = a.on_stream(&side)?.exp()?;
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Capture`] as for [`record_event`](Stream::record_event); [`Error::Cuda`]
    /// when the driver call fails.
    pub fn wait(&self, event: &Event) -> Result<()> {
        let on = self.device();
        let _queuing = on.check_capture_stream("stream wait")?;
        self.0
            .cuda
            .wait(&event.0)
            .map_err(Error::cuda("stream wait"))
    }

    /// Makes this stream wait for all work queued on `other` so far (an event recorded
    /// on `other`, waited for here). The host does not wait.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let side = dev.new_stream()?;
    /// let a = DeviceArray::<f32>::ones(&side.device(), &[1 << 20])?; // written on `side`
    /// dev.stream().wait_stream(&side)?; // the device's stream waits for it
    /// let b = a.on_stream(&dev.stream())?.sum()?;
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Capture`] as for [`record_event`](Stream::record_event); [`Error::Cuda`]
    /// when the event cannot be created, recorded or waited for.
    pub fn wait_stream(&self, other: &Stream) -> Result<()> {
        self.wait(&other.record_event()?)
    }

    /// Blocks the host until the work queued on this stream has finished.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let s = dev.new_stream()?;
    /// let a = DeviceArray::<f32>::ones(&s.device(), &[1 << 20])?;
    /// s.synchronize()?; // the host waits for `s` only
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Capture`] while a CUDA graph is being captured on the device;
    /// [`Error::Cuda`] when the wait fails.
    pub fn synchronize(&self) -> Result<()> {
        let _queuing = self.0.device.check_capture("stream synchronize")?;
        self.0.device.counters().sync();
        self.0
            .cuda
            .synchronize()
            .map_err(Error::cuda("stream synchronize"))
    }
}

/// A point in a stream's work, from [`Stream::record_event`]: to wait for, to query, or
/// to time the work between two of them.
///
/// ```no_run
/// let dev = cuarray::Device::new(0)?;
/// let a = cuarray::DeviceArray::<f32>::ones(&dev, &[1 << 24])?;
/// let start = dev.stream().record_event()?;
/// let b = a.exp()?;
/// let end = dev.stream().record_event()?;
/// println!("exp took {:?}", start.elapsed(&end)?);
/// # Ok::<(), cuarray::Error>(())
/// ```
pub struct Event(CudaEvent, Device);

impl std::fmt::Debug for Event {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Event")
    }
}

impl Event {
    /// Device time from this event to `end` (both must have been recorded). Waits for
    /// `end` to complete.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::<f32>::ones(&dev, &[1 << 24])?;
    /// let start = dev.stream().record_event()?;
    /// let b = a.exp()?;
    /// let end = dev.stream().record_event()?;
    /// println!("exp: {:?}", start.elapsed(&end)?);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Capture`] while a CUDA graph is being captured on the device;
    /// [`Error::Cuda`] when an event was not recorded or the wait fails.
    pub fn elapsed(&self, end: &Event) -> Result<Duration> {
        let _queuing = self.1.check_capture("event elapsed")?;
        let ms = self
            .0
            .elapsed_ms(&end.0)
            .map_err(Error::cuda("reading an event"))?;
        Ok(Duration::from_secs_f64(f64::from(ms.max(0.0)) / 1e3))
    }

    /// Blocks the host until the work before the event has finished.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::<f32>::ones(&dev, &[1 << 20])?;
    /// let e = dev.stream().record_event()?;
    /// let b = a.exp()?; // after the event: not waited for below
    /// e.synchronize()?; // `a` is filled
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::Capture`] while a CUDA graph is being captured on the device;
    /// [`Error::Cuda`] when the wait fails.
    pub fn synchronize(&self) -> Result<()> {
        let _queuing = self.1.check_capture("event synchronize")?;
        self.0
            .synchronize()
            .map_err(Error::cuda("event synchronize"))
    }

    /// True when the work before the event has finished (never blocks).
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::<f32>::ones(&dev, &[1 << 24])?;
    /// let e = dev.stream().record_event()?;
    /// while !e.is_complete() {
    ///     // other host work meanwhile
    /// }
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn is_complete(&self) -> bool {
        self.0.is_complete()
    }
}

/// Times GPU work between its creation and [`Timer::stop`] with two CUDA events on the
/// handle's stream, from [`Device::timer`].
///
/// ```no_run
/// let dev = cuarray::Device::new(0)?;
/// let a = cuarray::DeviceArray::<f32>::ones(&dev, &[1 << 24])?;
/// let t = dev.timer()?;
/// let b = (&a + &a)?;
/// println!("add: {:?} on the GPU", t.stop()?);
/// # Ok::<(), cuarray::Error>(())
/// ```
#[derive(Debug)]
pub struct Timer {
    stream: Stream,
    start: Event,
}

impl Timer {
    pub(crate) fn start(stream: Stream) -> Result<Timer> {
        let start = stream.record_event()?;
        Ok(Timer { stream, start })
    }

    /// Device time of the work queued on the stream since the timer started. Waits for
    /// that work to finish.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::<f32>::ones(&dev, &[1 << 24])?;
    /// let t = dev.timer()?;
    /// let b = (&a * &a)?;
    /// let d: std::time::Duration = t.stop()?; // waits for the multiply
    /// println!("{d:?}");
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Event::elapsed`]: [`Error::Capture`] while a CUDA graph is being captured on
    /// the device; [`Error::Cuda`] when a driver call fails.
    pub fn stop(self) -> Result<Duration> {
        let end = self.stream.record_event()?;
        self.start.elapsed(&end)
    }
}
