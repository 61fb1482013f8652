//! Filling a fresh array from the Philox4x32-10 stream: the launch of the random family.
//! The generator's state and the distributions' parameters are `crate::random`'s.

use crate::kernels::abi::KernelArgs;
use crate::kernels::cache::kernel;
use crate::kernels::family::random::RandomSpec;
use crate::kernels::{IndexWidth, BLOCK};
use crate::ops::launch::grid_for;
use crate::ops::Operand;
use crate::{Device, Error, Result};

/// Where a fill starts in the stream.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Stream {
    /// The first group of 4 values (one Philox block).
    pub(crate) group0: u64,
    /// Values of the first group that belong to earlier calls (0..4).
    pub(crate) head: u64,
    /// The key (the seed).
    pub(crate) key: u64,
    /// The stream number (the counter's upper words).
    pub(crate) stream: u64,
}

/// Writes every element of `out` (C-contiguous) with `spec`'s distribution, parameters
/// `(a, b)` as 64-bit patterns, from stream position `at`.
pub(crate) fn run(
    device: &Device,
    out: &Operand<'_>,
    spec: &RandomSpec,
    at: Stream,
    (a, b): (u64, u64),
) -> Result<()> {
    // A replay would repeat the numbers: the stream's position is advanced on the host.
    let _queuing = device.check_capture("random")?;
    let n = out.layout().size();
    if n == 0 {
        return Ok(());
    }
    // Groups of 4 values are stored as one vector (`cuarray_vec<T, 4>`, aligned to its size).
    let aligned = out.ptr().is_multiple_of((4 * spec.dtype.size()) as u64);
    if !out.layout().is_c_contiguous() || out.dtype() != spec.dtype || !aligned {
        return Err(Error::invalid(
            "random",
            format!(
                "the output must be a C-contiguous, aligned array of {}",
                spec.dtype.name()
            ),
        ));
    }
    let groups = (n + at.head as usize).div_ceil(4);
    let threads = groups.div_ceil(spec.groups_per_thread() as usize);
    let grid = grid_for(threads, device.multiprocessor_count() * blocks_per_sm());
    // Groups counted in `int` when every index the loop forms (a group index plus one trip
    // of G groups of the whole grid) fits, and the low words of the Philox block indices
    // the loop forms (W a group from group0 W) do not carry into the high word.
    let trip = spec.groups_per_thread() as usize * grid as usize * BLOCK as usize;
    let words = u64::from(spec.words());
    let low = (at.group0.wrapping_mul(words) & 0xffff_ffff) as u128;
    let index = if groups + trip <= i32::MAX as usize
        && low + ((groups + trip) as u128) * words as u128 <= 1u128 << 32
    {
        IndexWidth::I32
    } else {
        IndexWidth::I64
    };
    let spec = RandomSpec {
        index,
        ..spec.clone()
    };
    let f = kernel(device, &spec)?;
    let mut args = KernelArgs::new();
    args.ptr(out.ptr())
        .i64(n as i64)
        .i64(at.group0 as i64)
        .i64(at.head as i64)
        .i64(at.key as i64)
        .i64(at.stream as i64)
        .i64(a as i64)
        .i64(b as i64);
    // SAFETY: the arguments follow the random family's wrapper signature (the output
    // pointer, then seven 64-bit integers); the kernel writes elements 0..n of `out`, a
    // C-contiguous operand of n elements inside its buffer (checked by `Operand`).
    unsafe { args.launch(device, &f, grid) }
}

/// The grid's cap in blocks per multiprocessor (the kernel's grid-stride loop does the
/// rest): 16 (H200, 2^28 f32: uniform 3053 GB/s, normal 1726, integers 1972, against
/// 2632, 1492 and 1655 with one trip per thread; 4, 8 and 32 within 2% of 16), or
/// `CUARRAY_RANDOM_BLOCKS_PER_SM` (1 to 64), for benchmarks comparing grids (see
/// [`tuning::random_blocks_per_sm`](crate::tuning::random_blocks_per_sm)).
fn blocks_per_sm() -> u32 {
    crate::tuning::random_blocks_per_sm()
}
