//! CUDA graph capture state of a device: which stream and thread capture, the
//! [`Queuing`] tickets that keep other threads' work out of a graph, the capture's pool
//! and retained buffers, and the thread's capture mode.

use super::{memory, Device, DeviceBuffer};
use crate::{Error, Result};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// A capture under way: which stream, which thread, its graph's private pool, and the
/// buffers its work touched (kept alive by the graph).
///
/// A capture belongs to the thread that began it. Other threads' work on the device is
/// refused while it lasts (it would be recorded into the graph instead of running, and
/// the events of their transfers would belong to the graph). To close the gap between
/// such a check and the work it guards, every checked operation holds a [`Queuing`]
/// ticket while it queues its work, and a capture begins only once no ticket taken before
/// it is left (see [`Device::begin_capture_state`]).
#[derive(Default)]
pub(crate) struct CaptureState {
    /// 0 when no capture is under way; else the captured stream's id + 1.
    stream: AtomicU64,
    /// The capturing thread's [`thread_token`]; 0 when none.
    owner: AtomicU64,
    /// Operations of any thread between their capture check and the end of their queuing.
    queuing: AtomicUsize,
    /// Buffers used on several streams and dropped during the capture: returned to the
    /// pool once it ends (see `DeviceBuffer`'s drop).
    deferred: Mutex<Vec<DeviceBuffer>>,
    pool: Mutex<Option<Arc<memory::GraphPool>>>,
    retained: Mutex<Vec<Arc<DeviceBuffer>>>,
}

/// A number for the calling thread, unique in the process and never 0.
fn thread_token() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    thread_local!(static TOKEN: u64 = NEXT.fetch_add(1, Ordering::Relaxed));
    TOKEN.with(|t| *t)
}

thread_local! {
    /// How many [`Queuing`] tickets the thread holds, by device (the address of its
    /// `CaptureState`). Checks nest: `to_host` waits through `synchronize`; a copy between
    /// two devices holds a ticket of each.
    static QUEUING_DEPTH: std::cell::RefCell<Vec<(usize, u32)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// A ticket held by an operation from its capture check until its work is queued (and,
/// for an operation that waits, until the wait is over): no capture of the device begins
/// while one is held, so the work the check allowed cannot end up inside a graph.
#[must_use = "hold the ticket while the operation queues its work"]
pub(crate) struct Queuing<'a> {
    state: &'a CaptureState,
    /// Not `Send`: the thread's depth counts it.
    _thread: std::marker::PhantomData<*const ()>,
}

impl Drop for Queuing<'_> {
    fn drop(&mut self) {
        self.state.nest(-1);
        self.state.queuing.fetch_sub(1, Ordering::Release);
    }
}

impl CaptureState {
    /// Adds `by` to the calling thread's ticket count for this device; returns the new
    /// count.
    fn nest(&self, by: i32) -> u32 {
        let key = self as *const CaptureState as usize;
        QUEUING_DEPTH.with(|d| {
            let mut d = d.borrow_mut();
            let i = match d.iter().position(|e| e.0 == key) {
                Some(i) => i,
                None => {
                    d.push((key, 0));
                    d.len() - 1
                }
            };
            let n = d[i].1.saturating_add_signed(by);
            if n == 0 {
                d.swap_remove(i);
            } else {
                d[i].1 = n;
            }
            n
        })
    }

    /// Takes a [`Queuing`] ticket; returns it with the captured stream's key (0 when no
    /// capture is under way) and whether the calling thread is the capture's, or `None`
    /// for a check nested in another of this thread's tickets for the device, taken
    /// outside a capture.
    fn ticket(&self) -> (Queuing<'_>, Option<(u64, bool)>) {
        // SeqCst, paired with `mark`: either this load sees the capture, or the capture
        // sees this ticket and waits for it.
        self.queuing.fetch_add(1, Ordering::SeqCst);
        let outer = self.nest(1) == 1;
        let ticket = Queuing {
            state: self,
            _thread: std::marker::PhantomData,
        };
        let s = self.stream.load(Ordering::SeqCst);
        if s == 0 {
            return (ticket, Some((0, false)));
        }
        let own = self.owner.load(Ordering::SeqCst) == thread_token();
        if !outer && !own {
            // An outer ticket of this thread was taken before the capture, which is waiting
            // for it: the outer operation finishes what it queued (a refusal here could
            // leave a copy running into memory about to be freed).
            return (ticket, None);
        }
        (ticket, Some((s, own)))
    }

    /// Marks a capture of the stream `key` (non-zero) by the calling thread, then waits
    /// until the tickets of other threads taken before the mark are given back. `false`
    /// when a capture is already marked.
    fn mark(&self, key: u64) -> bool {
        if self
            .stream
            .compare_exchange(0, key, Ordering::SeqCst, Ordering::SeqCst)
            .is_err()
        {
            return false;
        }
        self.owner.store(thread_token(), Ordering::SeqCst);
        // Operations of other threads that passed their check before the mark finish
        // queuing first (later ones see the mark and are refused); their work and events
        // then stay outside the graph.
        let own = self.nest(0) as usize;
        while self.queuing.load(Ordering::SeqCst) > own {
            std::thread::yield_now();
        }
        true
    }

    /// Clears the mark.
    fn unmark(&self) {
        self.owner.store(0, Ordering::SeqCst);
        self.stream.store(0, Ordering::SeqCst);
    }
}

/// Restores the thread's capture mode on drop (see [`Device::relaxed_capture_mode`]).
pub(crate) struct CaptureMode(Option<cudarc::driver::sys::CUstreamCaptureMode>);

impl Drop for CaptureMode {
    fn drop(&mut self) {
        if let Some(mut mode) = self.0.take() {
            // SAFETY: an in/out parameter holding a valid mode.
            let _ = unsafe { cudarc::driver::sys::cuThreadExchangeStreamCaptureMode(&mut mode) };
        }
    }
}

/// Why another thread's work is refused during a capture.
const OTHER_THREAD: &str = "another thread is capturing a CUDA graph on this device: until \
    the capture ends, the device takes work only from that thread (work queued now would be \
    recorded into its graph instead of running); retry after the capture";

impl Device {
    /// True while a CUDA graph is being captured on one of this device's streams.
    #[inline]
    pub(crate) fn capturing(&self) -> bool {
        self.inner.capture.stream.load(Ordering::Acquire) != 0
    }

    /// `Err` naming `op` when a capture is under way on this device: `op` would wait for
    /// the GPU, copy between host and device, or otherwise cannot be part of a graph.
    /// Checked before any CUDA call, so that the capture survives the refusal. The ticket
    /// returned is held while `op` queues its work.
    #[inline]
    pub(crate) fn check_capture(&self, op: &'static str) -> Result<Queuing<'_>> {
        match self.inner.capture.ticket() {
            (ticket, None | Some((0, _))) => Ok(ticket),
            (_, Some((_, own))) => Err(Error::Capture {
                op,
                msg: if own {
                    "not allowed while a CUDA graph is being captured on this device: it \
                     waits for the GPU, moves data between host and device, or cannot be \
                     replayed; do it before or after the capture"
                        .into()
                } else {
                    OTHER_THREAD.into()
                },
            }),
        }
    }

    /// `Err` when a capture is under way on this device on another stream than this
    /// handle's (work launched here would run now, not be captured), or by another thread
    /// (its stream takes work from the capturing thread only). The ticket returned is held
    /// while the work is queued.
    #[inline]
    pub(crate) fn check_capture_stream(&self, op: &'static str) -> Result<Queuing<'_>> {
        match self.inner.capture.ticket() {
            (ticket, None | Some((0, _))) => Ok(ticket),
            (_, Some((_, false))) => Err(Error::Capture {
                op,
                msg: OTHER_THREAD.into(),
            }),
            (_, Some((s, true))) if s != self.stream_id() + 1 => Err(Error::Capture {
                op,
                msg: "work on another stream than the one being captured (arrays run their \
                      operations on the stream they were made on; capture on that stream)"
                    .into(),
            }),
            (ticket, _) => Ok(ticket),
        }
    }

    /// The private pool of the capture under way on this handle's stream.
    #[inline]
    pub(crate) fn capture_pool(&self) -> Option<Arc<memory::GraphPool>> {
        let s = self.inner.capture.stream.load(Ordering::Acquire);
        if s == 0
            || s != self.stream_id() + 1
            || self.inner.capture.owner.load(Ordering::Acquire) != thread_token()
        {
            return None;
        }
        self.inner
            .capture
            .pool
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Holds `buf` until the capture under way ends, then drops it.
    pub(crate) fn defer_until_capture_ends(&self, buf: DeviceBuffer) {
        self.inner
            .capture
            .deferred
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(buf);
    }

    /// Keeps `buf` alive for the graph being captured, whose work uses it.
    #[inline]
    pub(crate) fn retain_for_capture(buf: &Arc<DeviceBuffer>) {
        let inner = &buf.device().inner;
        if inner.capture.stream.load(Ordering::Acquire) == 0 {
            return;
        }
        let mut r = inner
            .capture
            .retained
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        if !r.iter().any(|b| Arc::ptr_eq(b, buf)) {
            r.push(buf.clone());
        }
    }

    /// Marks the start of a capture on this handle's stream with `pool` as its memory.
    /// `Err` when a capture is already under way on the device.
    pub(crate) fn begin_capture_state(&self, pool: Arc<memory::GraphPool>) -> Result<()> {
        let c = &self.inner.capture;
        if !c.mark(self.stream_id() + 1) {
            return Err(Error::Capture {
                op: "capture",
                msg: "a capture is already under way on this device (captures do not nest; \
                      launch a finished graph inside a capture instead)"
                    .into(),
            });
        }
        *c.pool.lock().unwrap_or_else(|p| p.into_inner()) = Some(pool);
        Ok(())
    }

    /// Marks the end of the capture; returns its pool and the buffers it retained.
    pub(crate) fn end_capture_state(
        &self,
    ) -> (Option<Arc<memory::GraphPool>>, Vec<Arc<DeviceBuffer>>) {
        self.inner.capture.unmark();
        // Outside the capture now: their drops order their reuse as usual.
        let deferred = std::mem::take(
            &mut *self
                .inner
                .capture
                .deferred
                .lock()
                .unwrap_or_else(|p| p.into_inner()),
        );
        drop(deferred);
        let pool = self
            .inner
            .capture
            .pool
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        let retained = std::mem::take(
            &mut *self
                .inner
                .capture
                .retained
                .lock()
                .unwrap_or_else(|p| p.into_inner()),
        );
        (pool, retained)
    }

    /// While alive, this thread's CUDA calls run in relaxed capture mode (allocations
    /// and module loads are then allowed during a capture); a no-op without a capture.
    pub(crate) fn relaxed_capture_mode(&self) -> CaptureMode {
        if !self.capturing() {
            return CaptureMode(None);
        }
        relaxed_capture_mode()
    }
}

/// While alive, this thread's CUDA calls run in relaxed capture mode, capture or not (a
/// thread-local switch, no work for the GPU).
pub(crate) fn relaxed_capture_mode() -> CaptureMode {
    let mut mode = cudarc::driver::sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_RELAXED;
    // SAFETY: an in/out parameter holding a valid mode.
    let ok = unsafe { cudarc::driver::sys::cuThreadExchangeStreamCaptureMode(&mut mode) };
    CaptureMode((ok == cudarc::driver::sys::CUresult::CUDA_SUCCESS).then_some(mode))
}

#[cfg(test)]
mod tests {
    use super::CaptureState;
    use std::sync::atomic::Ordering;

    /// The kind of answer a check gets: allowed outside a capture, allowed because nested,
    /// or inside a capture (with whether the thread is the capture's).
    fn check(c: &CaptureState) -> &'static str {
        match c.ticket().1 {
            Some((0, _)) => "free",
            None => "nested",
            Some((_, true)) => "own",
            Some((_, false)) => "other",
        }
    }

    #[test]
    fn tickets_outside_and_inside_a_capture() {
        let c = CaptureState::default();
        assert_eq!(check(&c), "free");
        assert_eq!(c.queuing.load(Ordering::SeqCst), 0, "tickets given back");
        assert!(c.mark(5));
        assert!(!c.mark(6), "captures do not nest");
        assert_eq!(check(&c), "own");
        std::thread::scope(|s| {
            s.spawn(|| assert_eq!(check(&c), "other"));
        });
        c.unmark();
        assert_eq!(check(&c), "free");
        assert_eq!(c.queuing.load(Ordering::SeqCst), 0);
    }

    #[test]
    fn a_capture_waits_for_tickets_taken_before_it() {
        let c = CaptureState::default();
        let (taken_tx, taken_rx) = std::sync::mpsc::channel();
        let (go_tx, go_rx) = std::sync::mpsc::channel::<()>();
        let c = &c;
        std::thread::scope(|s| {
            let holder = s.spawn(move || {
                let outer = c.ticket();
                assert!(matches!(outer.1, Some((0, _))));
                taken_tx.send(()).unwrap();
                // The mark is visible while the capture waits for this ticket.
                while c.stream.load(Ordering::SeqCst) == 0 {
                    std::thread::yield_now();
                }
                go_rx.recv().unwrap();
                // Nested in a ticket taken before the mark: allowed, so that the outer
                // operation can finish.
                let nested = check(c);
                drop(outer);
                nested
            });
            taken_rx.recv().unwrap();
            let capturer = s.spawn(move || c.mark(9));
            while c.stream.load(Ordering::SeqCst) == 0 {
                std::thread::yield_now();
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
            assert!(
                !capturer.is_finished(),
                "the capture began before the ticket was back"
            );
            go_tx.send(()).unwrap();
            assert_eq!(holder.join().unwrap(), "nested");
            assert!(capturer.join().unwrap());
            // A new operation of another thread is refused now.
            assert_eq!(check(c), "other");
        });
        c.unmark();
        assert_eq!(c.queuing.load(Ordering::SeqCst), 0);
    }

    #[test]
    fn nesting_counts_per_device() {
        // A ticket held on one device does not let a check on another device through
        // while that one is being captured by another thread.
        let (x, y) = (CaptureState::default(), CaptureState::default());
        std::thread::scope(|s| {
            s.spawn(|| assert!(y.mark(3))).join().unwrap();
        });
        let on_x = x.ticket();
        assert!(matches!(on_x.1, Some((0, _))));
        assert_eq!(check(&y), "other");
        drop(on_x);
        y.unmark();
        assert_eq!(check(&y), "free");
        assert_eq!(x.queuing.load(Ordering::SeqCst), 0);
        assert_eq!(y.queuing.load(Ordering::SeqCst), 0);
    }
}
