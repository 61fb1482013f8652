//! cuFFT: plans in cuarray's own safe type over cudarc's `result` layer, a bounded
//! per-device plan cache, work areas from the memory pool.
//!
//! - Plans are made with `cufftMakePlanMany64` (64-bit sizes, the advanced data layout:
//!   strides, distances and embeddings), with cuFFT's auto-allocation off: the work area
//!   of each execution is a block of the device's pool, taken on the stream of the call and
//!   given back right after it is queued, so pool statistics, limits and `OutOfMemory`
//!   stay true.
//! - The cache (a device extension) holds at most [`CAPACITY`] plans keyed by everything
//!   that determines one ([`PlanKey`], the stream included), and drops the least recently
//!   used one to make room. Its counters are in [`Device::kernel_cache_stats`].
//! - A plan is used by one caller at a time (the cache's lock is held from the lookup to the
//!   queued execution: setting the work area and executing are one step).

use crate::device::probe::{require, Lib};
use crate::device::{Device, DeviceBuffer};
use crate::kernels::cache::PlanCounters;
use crate::{Error, Result};
use cudarc::cufft::{result as cf, sys};
use cudarc::driver::sys::CUdeviceptr;
use std::sync::atomic::Ordering;
use std::sync::Mutex;

/// Plans kept per device (as CuPy's default).
pub(crate) const CAPACITY: usize = 16;

/// The transform types of cuFFT: single (`C2C`, `R2C`, `C2R`) and double precision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Kind {
    C2C,
    R2C,
    C2R,
    Z2Z,
    D2Z,
    Z2D,
}

impl Kind {
    fn sys(self) -> sys::cufftType {
        match self {
            Kind::C2C => sys::cufftType::CUFFT_C2C,
            Kind::R2C => sys::cufftType::CUFFT_R2C,
            Kind::C2R => sys::cufftType::CUFFT_C2R,
            Kind::Z2Z => sys::cufftType::CUFFT_Z2Z,
            Kind::D2Z => sys::cufftType::CUFFT_D2Z,
            Kind::Z2D => sys::cufftType::CUFFT_Z2D,
        }
    }
}

/// Everything that determines one plan, in cuFFT's advanced layout: `rank` (1 to 3)
/// dimensions of extents `n`; element `x` of batch `b` of the input is at
/// `b * idist + istride * (x[0] * inembed[1] * inembed[2] + x[1] * inembed[2] + x[2])`
/// (for rank 3; likewise for lower ranks), in elements of the input type, and the same
/// for the output with `onembed`, `ostride`, `odist`. Entries past `rank` are 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PlanKey {
    pub(crate) kind: Kind,
    pub(crate) rank: usize,
    pub(crate) n: [i64; 3],
    pub(crate) inembed: [i64; 3],
    pub(crate) istride: i64,
    pub(crate) idist: i64,
    pub(crate) onembed: [i64; 3],
    pub(crate) ostride: i64,
    pub(crate) odist: i64,
    pub(crate) batch: i64,
    /// The id of the stream the plan is bound to.
    pub(crate) stream: u64,
}

impl PlanKey {
    /// The extents of the input's (`input`) or the output's last dimension: halved for the
    /// complex side of a real transform.
    fn last_extent(&self, input: bool) -> i64 {
        let n = self.n[self.rank - 1];
        let complex_side = match self.kind {
            Kind::R2C | Kind::D2Z => !input,
            Kind::C2R | Kind::Z2D => input,
            _ => return n,
        };
        if complex_side {
            n / 2 + 1
        } else {
            n
        }
    }

    /// True when a side is cuFFT's basic layout: unit stride, embeddings equal to the
    /// extents, batches back to back (then the plan is made without embeddings, which lets
    /// cuFFT pick its contiguous kernels).
    fn is_basic(&self, input: bool) -> bool {
        let (embed, stride, dist) = if input {
            (self.inembed, self.istride, self.idist)
        } else {
            (self.onembed, self.ostride, self.odist)
        };
        let ext = |d: usize| {
            if d == self.rank - 1 {
                self.last_extent(input)
            } else {
                self.n[d]
            }
        };
        stride == 1
            && (1..self.rank).all(|d| embed[d] == ext(d))
            && (self.batch == 1 || dist == (0..self.rank).map(ext).product::<i64>())
    }

    /// One past the largest element offset the input (`input`) or the output reads or
    /// writes, or 0 when the transform is empty.
    pub(crate) fn span(&self, input: bool) -> u128 {
        let (embed, stride, dist) = if input {
            (self.inembed, self.istride, self.idist)
        } else {
            (self.onembed, self.ostride, self.odist)
        };
        if self.batch == 0 || self.n[..self.rank].contains(&0) {
            return 0;
        }
        // Row-major offset of the last element within one transform, then times stride.
        let mut last: u128 = 0;
        let mut scale: u128 = 1;
        for d in (0..self.rank).rev() {
            let ext = if d == self.rank - 1 {
                self.last_extent(input)
            } else {
                self.n[d]
            };
            last += (ext as u128 - 1) * scale;
            scale *= embed[d].max(1) as u128;
        }
        (self.batch as u128 - 1) * dist as u128 + last * stride as u128 + 1
    }
}

/// A cuFFT plan with its work-area size (auto-allocation off).
struct Plan {
    handle: sys::cufftHandle,
    work: usize,
}

// SAFETY: a plan is used under its cache's lock only (one thread at a time).
unsafe impl Send for Plan {}

impl Drop for Plan {
    fn drop(&mut self) {
        // SAFETY: the handle came from `cufftCreate` and is destroyed once. cuFFT frees the
        // plan's device memory with a call that waits for work still using it.
        let _ = unsafe { cf::destroy(self.handle) };
    }
}

fn fft_err(op: &'static str) -> impl FnOnce(cf::CufftError) -> Error {
    move |e| Error::Cufft {
        op,
        msg: format!("{:?}", e.0),
    }
}

impl Plan {
    fn new(device: &Device, key: &PlanKey) -> Result<Plan> {
        let handle = cf::create().map_err(fft_err("cufftCreate"))?;
        let mut plan = Plan { handle, work: 0 };
        let (mut n, mut inembed, mut onembed) = (key.n, key.inembed, key.onembed);
        let rank = key.rank as i32;
        let basic = key.is_basic(true) && key.is_basic(false);
        let embed = |e: &mut [i64; 3]| {
            if basic {
                std::ptr::null_mut()
            } else {
                e.as_mut_ptr()
            }
        };
        let (iptr, optr) = (embed(&mut inembed), embed(&mut onembed));
        // With null embeddings cuFFT ignores strides and distances (basic layout).
        // SAFETY: the handle is fresh; the arrays hold `rank` (<= 3) entries and outlive
        // the calls; the stream belongs to the device's context, current on this thread.
        plan.work = unsafe {
            cf::set_auto_allocation(handle, false).map_err(fft_err("cufftSetAutoAllocation"))?;
            cf::set_stream(handle, device.cu_stream() as sys::cudaStream_t)
                .map_err(fft_err("cufftSetStream"))?;
            cf::make_plan_many64(
                handle,
                rank,
                n.as_mut_ptr(),
                iptr,
                key.istride,
                key.idist,
                optr,
                key.ostride,
                key.odist,
                key.kind.sys(),
                key.batch,
            )
            .map_err(fft_err("cufftMakePlanMany64"))?
        };
        Ok(plan)
    }
}

struct Entry {
    key: PlanKey,
    plan: Plan,
    used: u64,
}

#[derive(Default)]
struct CacheState {
    entries: Vec<Entry>,
    clock: u64,
}

/// A device's cuFFT plans, least recently used first out (a device extension).
#[derive(Default)]
struct PlanCache(Mutex<CacheState>);

impl CacheState {
    /// The index of the plan for `key`: found, or made (evicting the least recently used
    /// plan when full; on cuFFT's allocation failure, every cached plan and the pool's
    /// cached blocks are released and the plan is tried once more).
    fn plan(&mut self, device: &Device, key: &PlanKey) -> Result<usize> {
        let counters = device.extension::<PlanCounters>();
        self.clock += 1;
        if let Some(i) = self.entries.iter().position(|e| e.key == *key) {
            counters.hits.fetch_add(1, Ordering::Relaxed);
            self.entries[i].used = self.clock;
            return Ok(i);
        }
        counters.misses.fetch_add(1, Ordering::Relaxed);
        if self.entries.len() >= CAPACITY {
            let oldest = (0..self.entries.len())
                .min_by_key(|&i| self.entries[i].used)
                .unwrap_or(0);
            self.entries.swap_remove(oldest);
            counters.evictions.fetch_add(1, Ordering::Relaxed);
        }
        let plan = match Plan::new(device, key) {
            Err(Error::Cufft { msg, .. }) if msg.contains("ALLOC_FAILED") => {
                let n = self.entries.len() as u64;
                self.entries.clear();
                counters.evictions.fetch_add(n, Ordering::Relaxed);
                device.release_cached()?;
                Plan::new(device, key)?
            }
            r => r?,
        };
        self.entries.push(Entry {
            key: *key,
            plan,
            used: self.clock,
        });
        Ok(self.entries.len() - 1)
    }
}

/// Where one execution reads and writes: device addresses with the number of elements
/// (of the side's type) available from each.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Io {
    pub(crate) input: (CUdeviceptr, usize),
    pub(crate) output: (CUdeviceptr, usize),
}

/// Queues the transform `key` describes on `device`'s stream (forward for C2C/Z2Z when
/// `forward`), its plan from the device's cache.
///
/// # Errors
/// [`Error::LibraryNotFound`] without cuFFT; [`Error::InvalidArgument`] when the layout
/// reaches past the elements `io` says are available; [`Error::OutOfMemory`] for the work
/// area; [`Error::Cufft`] for a failed cuFFT call.
///
/// # Safety
/// `io`'s addresses are device memory of `device` holding at least the elements it says,
/// of the input and output types of `key.kind`, usable on `device`'s stream. The input of a
/// complex-to-real transform is overwritten (cuFFT's scratch), so it must be the caller's
/// own copy.
pub(crate) unsafe fn exec(device: &Device, key: &PlanKey, forward: bool, io: Io) -> Result<()> {
    require(Lib::Cufft)?;
    debug_assert_eq!(key.stream, device.stream_id());
    if key.span(true) > io.input.1 as u128 || key.span(false) > io.output.1 as u128 {
        return Err(Error::invalid(
            "fft",
            format!(
                "a transform layout reaches past its buffers ({} and {} elements needed, {} \
                 and {} available)",
                key.span(true),
                key.span(false),
                io.input.1,
                io.output.1
            ),
        ));
    }
    if key.span(false) == 0 {
        return Ok(());
    }
    let _queuing = device.check_capture_stream("fft")?;
    let cache = device.extension::<PlanCache>();
    let mut state = cache.0.lock().unwrap_or_else(|p| p.into_inner());
    device.bind()?;
    let i = state.plan(device, key)?;
    let plan = &state.entries[i].plan;
    // The work area: a pool block on this stream, back in the pool once the transform is
    // queued (later work on the stream that reuses it runs after the transform).
    let work = if plan.work > 0 {
        Some(DeviceBuffer::alloc(device, plan.work)?)
    } else {
        None
    };
    let dir = if forward {
        -1 // CUFFT_FORWARD
    } else {
        1 // CUFFT_INVERSE
    };
    let (i, o) = (io.input.0, io.output.0);
    // SAFETY: the work area holds `plan.work` bytes on this stream and outlives the queued
    // call (the pool reuses it in stream order); the input and output hold the spans the
    // key reaches (checked above) of the types its kind reads and writes (the caller's
    // contract).
    unsafe {
        if let Some(w) = &work {
            cf::set_work_area(plan.handle, w.device_ptr() as *mut _)
                .map_err(fft_err("cufftSetWorkArea"))?;
        }
        match key.kind {
            Kind::C2C => cf::exec_c2c(plan.handle, i as *mut _, o as *mut _, dir),
            Kind::Z2Z => cf::exec_z2z(plan.handle, i as *mut _, o as *mut _, dir),
            Kind::R2C => cf::exec_r2c(plan.handle, i as *mut _, o as *mut _),
            Kind::D2Z => cf::exec_d2z(plan.handle, i as *mut _, o as *mut _),
            Kind::C2R => cf::exec_c2r(plan.handle, i as *mut _, o as *mut _),
            Kind::Z2D => cf::exec_z2d(plan.handle, i as *mut _, o as *mut _),
        }
        .map_err(fft_err("cufftExec"))
    }
}

/// Drops every cached plan of `device`.
pub(crate) fn clear_plans(device: &Device) {
    let cache = device.extension::<PlanCache>();
    let taken = std::mem::take(&mut cache.0.lock().unwrap_or_else(|p| p.into_inner()).entries);
    drop(taken);
}

/// Plans held in `device`'s cache.
pub(crate) fn cached_plans(device: &Device) -> usize {
    let cache = device.extension::<PlanCache>();
    let n = cache
        .0
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .entries
        .len();
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(kind: Kind, rank: usize, n: [i64; 3], batch: i64) -> PlanKey {
        let mut embed = n;
        if matches!(kind, Kind::R2C | Kind::D2Z) {
            embed[rank - 1] = n[rank - 1] / 2 + 1;
        }
        let dist = |e: [i64; 3]| e[..rank].iter().product::<i64>();
        PlanKey {
            kind,
            rank,
            n,
            inembed: n,
            istride: 1,
            idist: dist(n),
            onembed: embed,
            ostride: 1,
            odist: dist(embed),
            batch,
            stream: 0,
        }
    }

    #[test]
    fn spans() {
        let k = key(Kind::C2C, 1, [8, 0, 0], 3);
        assert_eq!((k.span(true), k.span(false)), (24, 24));
        let k = key(Kind::R2C, 2, [4, 6, 0], 2);
        assert_eq!((k.span(true), k.span(false)), (48, 32));
        let mut k = key(Kind::C2C, 1, [5, 0, 0], 4);
        k.istride = 4;
        k.idist = 1;
        assert_eq!(k.span(true), 3 + 4 * 4 + 1);
        let k = key(Kind::C2C, 1, [0, 0, 0], 4);
        assert_eq!(k.span(false), 0);
        let k = key(Kind::R2C, 2, [4, 6, 0], 2);
        assert!(k.is_basic(true) && k.is_basic(false));
        let mut k = key(Kind::C2C, 1, [5, 0, 0], 4);
        k.istride = 4;
        assert!(!k.is_basic(true) && k.is_basic(false));
    }
}
