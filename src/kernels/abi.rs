//! Kernel arguments as the families' wrappers expect them, and the launch itself.
//!
//! Arguments are written into one inline, 8-byte-aligned buffer (no allocation per
//! launch); `cuLaunchKernel` receives one pointer per argument into that buffer. The
//! `Indexer<NARG, NDIM, I>` of `kernels/common.cuh` is `{ I size; I shape[NDIM];
//! I strides[NARG][NDIM]; }`: all fields of one integer type, so it is laid out without
//! padding as `1 + NDIM + NARG * NDIM` integers.

use crate::device::Device;
use crate::element::{DType, Element};
use crate::kernels::cache::Kernel;
use crate::kernels::{IndexWidth, MAX_OPERANDS, MAX_SCALARS};
use crate::{Error, Result};
use cudarc::driver::sys::CUdeviceptr;
use std::ffi::c_void;

/// A scalar kernel parameter: the raw bytes of one element of `dtype`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Scalar {
    pub(crate) dtype: DType,
    bytes: [u8; 16],
}

impl Scalar {
    pub(crate) fn of<T: Element>(v: T) -> Scalar {
        const {
            assert!(
                std::mem::size_of::<T>() <= 16,
                "a scalar parameter holds at most 16 bytes"
            )
        };
        let mut bytes = [0u8; 16];
        let src = bytemuck::bytes_of(&v);
        bytes[..src.len()].copy_from_slice(src);
        Scalar {
            dtype: T::DTYPE,
            bytes,
        }
    }

    pub(crate) fn bytes(&self) -> &[u8] {
        &self.bytes[..self.dtype.size()]
    }

    /// The element's bytes as one 128-bit word (the unused high bytes zero).
    pub(crate) fn word(&self) -> u128 {
        u128::from_ne_bytes(self.bytes)
    }

    /// The scalar of `dtype` whose bytes are those of `word` (see [`Scalar::word`]).
    pub(crate) fn from_word(dtype: DType, word: u128) -> Scalar {
        let mut bytes = word.to_ne_bytes();
        bytes[dtype.size()..].fill(0);
        Scalar { dtype, bytes }
    }
}

thread_local! {
    /// Launches are skipped on this thread (`testing::without_launch`): everything up to
    /// the driver call runs, so that the host cost of an operation can be measured.
    static SKIP_LAUNCH: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

thread_local! {
    /// Closures of `fuse` being traced on this thread: a launch then is an error (an
    /// array operation inside the closure, which would run once, eagerly).
    static TRACING: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// While alive, kernel launches on this thread fail (a `fuse` closure is being traced).
pub(crate) struct Tracing(());

impl Tracing {
    pub(crate) fn enter() -> Tracing {
        TRACING.with(|c| c.set(c.get() + 1));
        Tracing(())
    }
}

impl Drop for Tracing {
    fn drop(&mut self) {
        TRACING.with(|c| c.set(c.get().saturating_sub(1)));
    }
}

/// Runs `f` with every kernel launch of this thread skipped (for measurements).
pub(crate) fn without_launch<R>(f: impl FnOnce() -> R) -> R {
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            SKIP_LAUNCH.with(|c| c.set(self.0));
        }
    }
    let _restore = Restore(SKIP_LAUNCH.with(|c| c.replace(true)));
    f()
}

const WORDS: usize = 320;
/// Most arguments a user passes to one kernel (a raw kernel's too).
pub(crate) const MAX_ARGS: usize = 16;
/// Most arguments of one launch: operands, scalars, and the family's own (sizes,
/// indexers, partial buffers).
const MAX_LAUNCH_ARGS: usize = 32;
const _: () =
    assert!(MAX_LAUNCH_ARGS > MAX_OPERANDS + MAX_SCALARS + 4 && MAX_LAUNCH_ARGS >= MAX_ARGS);

/// Arguments of one launch.
pub(crate) struct KernelArgs {
    buf: [u64; WORDS],
    /// Byte offset of each argument in `buf`.
    at: [u16; MAX_LAUNCH_ARGS],
    n: usize,
    used: usize,
}

impl KernelArgs {
    pub(crate) fn new() -> KernelArgs {
        KernelArgs {
            buf: [0; WORDS],
            at: [0; MAX_LAUNCH_ARGS],
            n: 0,
            used: 0,
        }
    }

    /// Reserves `len` bytes aligned to `align` for the next argument.
    fn reserve(&mut self, len: usize, align: usize) -> &mut [u8] {
        let start = self.used.div_ceil(align) * align;
        assert!(
            start + len <= WORDS * 8 && self.n < MAX_LAUNCH_ARGS,
            "kernel argument buffer overflow (checked by the plan's limits)"
        );
        self.at[self.n] = start as u16;
        self.n += 1;
        self.used = start + len;
        // SAFETY: `buf` is WORDS * 8 bytes long and the range was checked above.
        unsafe {
            std::slice::from_raw_parts_mut((self.buf.as_mut_ptr() as *mut u8).add(start), len)
        }
    }

    fn push_bytes(&mut self, bytes: &[u8], align: usize) {
        self.reserve(bytes.len(), align).copy_from_slice(bytes);
    }

    /// Number of arguments and bytes pushed so far.
    #[cfg(test)]
    pub(crate) fn extent(&self) -> (usize, usize) {
        (self.n, self.used)
    }

    /// One argument made of consecutive `long long`s (a struct of them on the device).
    pub(crate) fn i64s(&mut self, vals: &[i64]) -> &mut Self {
        let dst = self.reserve(8 * vals.len(), 8);
        for (c, v) in dst.chunks_exact_mut(8).zip(vals) {
            c.copy_from_slice(&v.to_ne_bytes());
        }
        self
    }

    /// A device pointer argument.
    pub(crate) fn ptr(&mut self, p: CUdeviceptr) -> &mut Self {
        self.push_bytes(&p.to_ne_bytes(), 8);
        self
    }

    /// A scalar parameter.
    pub(crate) fn scalar(&mut self, s: &Scalar) -> &mut Self {
        // Aligned to its size (a complex number: to its pair, as `cuarray_c64` is
        // `alignas(8)` and `cuarray_c128` `alignas(16)`).
        let n = s.dtype.size();
        self.push_bytes(s.bytes(), n);
        self
    }

    /// A `long long` argument.
    pub(crate) fn i64(&mut self, v: i64) -> &mut Self {
        self.push_bytes(&v.to_ne_bytes(), 8);
        self
    }

    /// A `double` argument.
    pub(crate) fn push_f64(&mut self, v: f64) -> &mut Self {
        self.push_bytes(&v.to_ne_bytes(), 8);
        self
    }

    /// An `Indexer<NARG, NDIM, I>` by value.
    pub(crate) fn indexer<S: AsRef<[isize]>>(
        &mut self,
        width: IndexWidth,
        size: usize,
        shape: &[usize],
        strides: &[S],
    ) -> &mut Self {
        let count = 1 + shape.len() * (1 + strides.len());
        let words = std::iter::once(size as i64)
            .chain(shape.iter().map(|&d| d as i64))
            .chain(
                strides
                    .iter()
                    .flat_map(|s| s.as_ref().iter().map(|&x| x as i64)),
            );
        match width {
            IndexWidth::I64 => {
                let dst = self.reserve(8 * count, 8);
                for (c, w) in dst.chunks_exact_mut(8).zip(words) {
                    c.copy_from_slice(&w.to_ne_bytes());
                }
            }
            IndexWidth::I32 => {
                let dst = self.reserve(4 * count, 4);
                for (c, w) in dst.chunks_exact_mut(4).zip(words) {
                    c.copy_from_slice(&(w as i32).to_ne_bytes());
                }
            }
        }
        self
    }

    /// Launches `f` on the device's stream with a 1-D grid of blocks of the size it was
    /// compiled for.
    ///
    /// # Safety
    /// The arguments pushed must match the kernel's parameter list in number, order and
    /// type, and every pointer must address memory the kernel may access as it will.
    pub(crate) unsafe fn launch(&mut self, device: &Device, f: &Kernel, grid: u32) -> Result<()> {
        // SAFETY: forwarded from the caller.
        unsafe { self.launch_with(device, f, (grid, 1, 1), (f.block_threads, 1, 1), 0) }
    }

    /// Number of arguments pushed so far.
    pub(crate) fn len(&self) -> usize {
        self.n
    }

    /// Launches `f` on the device's stream with a 3-D `grid` of 3-D `block`s and `shared`
    /// bytes of dynamic shared memory (past 48 KB, the function is first allowed that much).
    ///
    /// # Safety
    /// As [`launch`](Self::launch).
    pub(crate) unsafe fn launch_with(
        &mut self,
        device: &Device,
        f: &Kernel,
        grid: (u32, u32, u32),
        block: (u32, u32, u32),
        shared: u32,
    ) -> Result<()> {
        if TRACING.with(|c| c.get()) > 0 {
            return Err(Error::fusion(
                "an array operation ran inside the closure of fuse; the closure is traced, \
                 not run: use the Expr parameters' operations (arrays enter as parameters)",
            ));
        }
        let _queuing = device.check_capture_stream("kernel launch")?;
        if SKIP_LAUNCH.with(|c| c.get()) {
            return Ok(());
        }
        let base = self.buf.as_mut_ptr() as *mut u8;
        let mut ptrs = [std::ptr::null_mut::<c_void>(); MAX_LAUNCH_ARGS];
        for (p, &at) in ptrs.iter_mut().zip(&self.at[..self.n]) {
            // SAFETY: every offset was checked to lie inside `buf` when it was pushed.
            *p = unsafe { base.add(at as usize) } as *mut c_void;
        }
        device.bind()?;
        if shared > 48 * 1024 {
            // Once a function and size: the attribute is a driver call. The lock orders
            // the call with the record of it (two threads asking different sizes).
            let mut allowed = f.smem_allowed.lock().unwrap_or_else(|p| p.into_inner());
            if shared > *allowed {
                f.func
                    .set_attribute(
                        cudarc::driver::sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                        shared as i32,
                    )
                    .map_err(Error::cuda("setting a kernel's dynamic shared memory"))?;
                *allowed = shared;
            }
        }
        if f.dependent {
            use cudarc::driver::sys;
            // SAFETY: a plain-data union; only the field of the attribute's id is read.
            let mut attr: sys::CUlaunchAttribute = unsafe { std::mem::zeroed() };
            attr.id =
                sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
            attr.value.programmaticStreamSerializationAllowed = 1;
            let config = sys::CUlaunchConfig {
                gridDimX: grid.0,
                gridDimY: grid.1,
                gridDimZ: grid.2,
                blockDimX: block.0,
                blockDimY: block.1,
                blockDimZ: block.2,
                sharedMemBytes: shared,
                hStream: device.cu_stream(),
                attrs: &mut attr,
                numAttrs: 1,
            };
            // SAFETY: as below; `config` and `attr` outlive the call (the driver reads them
            // at launch), and the kernel waits for the grid before it before touching
            // memory (`Family::dependent_launch`).
            return unsafe {
                sys::cuLaunchKernelEx(
                    &config,
                    f.func.cu_function(),
                    ptrs.as_mut_ptr(),
                    std::ptr::null_mut(),
                )
            }
            .result()
            .map_err(Error::cuda("kernel launch"));
        }
        // SAFETY: the caller guarantees the arguments match the kernel; `ptrs` points into
        // `self.buf`, which outlives this call (the driver copies the values at launch).
        unsafe {
            cudarc::driver::result::launch_kernel(
                f.func.cu_function(),
                grid,
                block,
                shared,
                device.cu_stream(),
                &mut ptrs[..self.n],
            )
        }
        .map_err(Error::cuda("kernel launch"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indexer_layout_matches_common_cuh() {
        let mut a = KernelArgs::new();
        a.ptr(0xdead_beef);
        a.indexer(IndexWidth::I32, 6, &[2, 3], &[vec![3, 1], vec![0, -1]]);
        // pointer at 0, indexer at 8: size, shape[2], strides[2][2] as i32.
        assert_eq!(a.at[..a.n], [0, 8]);
        assert_eq!(a.used, 8 + 4 * 7);
        let bytes: Vec<u8> = a.buf.iter().flat_map(|w| w.to_ne_bytes()).collect();
        let ints: Vec<i32> = bytes[8..36]
            .chunks(4)
            .map(|c| i32::from_ne_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(ints, vec![6, 2, 3, 3, 1, 0, -1]);
        a.i64(7);
        assert_eq!(a.at[2], 40);
    }
}
