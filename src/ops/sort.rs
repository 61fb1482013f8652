//! Sorting along one axis (sort, argsort, topk): the pure plan and the launches of the
//! sort family; and searchsorted.
//!
//! Strategies, by the length of a row (the extent of the sorted axis):
//! - up to [`ROW_MAX`] (4096): a group of threads per row sorts it in shared memory (a
//!   warp for rows up to 128, a block of 128 or 256 threads beyond), reading the row
//!   through the input's layout and writing the first `kout` elements;
//! - longer rows: a one-sweep LSD radix sort over the whole array, 8 bits a pass: the
//!   key's bytes, then (several rows: a segmented sort) the bytes of the row number, so
//!   that rows end up in order and each row sorted. Flat indices travel with the keys as
//!   values when the indices are wanted or rows are sorted together.

use super::Operand;
use crate::device::DeviceBuffer;
use crate::element::DType;
use crate::kernels::cache::kernel;
use crate::kernels::family::sort::{
    hist_copies_for, hist_smem, pass_shape, pass_smem, pass_variant_default, PassState, SortKernel,
    SortSpec, HIST_COPIES, PASS_SMEM_LIMIT, PASS_THREADS, ROW_MAX, ROW_VARIANTS,
};
use crate::kernels::{IndexWidth, MAX_DIMS};
use crate::ops::launch::{grid_for, index_width};
use crate::shape::{c_strides, collapse, normalize_axis, Layout};
use crate::tuning;
use crate::{Device, Error, Result};

/// How a sort is laid out on the GPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SortStrategy {
    /// Nothing to do (no element to write).
    Empty,
    /// A group of `threads` threads per row, `ipt` elements each.
    Rows {
        /// Threads per row (32: a warp).
        threads: u16,
        /// Elements per thread.
        ipt: u8,
        /// `__launch_bounds__` blocks per multiprocessor (0: none).
        min_blocks: u8,
    },
    /// One-sweep radix sort: `key_passes` passes over the key's bytes, then `row_passes`
    /// over the row number's.
    Radix {
        /// Passes over the key (its width in bytes).
        key_passes: u8,
        /// Passes over the row number (0 for one row).
        row_passes: u8,
        /// Threads per block of a pass.
        threads: u16,
        /// Elements per thread of a pass.
        ipt: u8,
        /// `__launch_bounds__` blocks per multiprocessor (0: none).
        min_blocks: u8,
        /// Tiles (blocks) of each pass.
        tiles: usize,
        /// Flat indices travel with the keys.
        values: bool,
        /// Values as 64-bit.
        wide_values: bool,
        /// Look-back words as 64-bit.
        wide_look: bool,
        /// `radix_pass`'s variant bits (`pass_variant`).
        variant: u8,
    },
}

/// The plan of a sort along one axis. Pure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SortPlan {
    /// Rows (the positions of the other axes).
    pub(crate) n_rows: usize,
    /// Length of each row.
    pub(crate) len: usize,
    /// Elements written per row (the first `kout` of the sorted row).
    pub(crate) kout: usize,
    /// Shape of the outputs (the input's, with `kout` along the axis).
    pub(crate) out_shape: Vec<usize>,
    /// The strategy.
    pub(crate) strategy: SortStrategy,
    /// Row dimensions (collapsed) with the input's and the outputs' strides.
    pub(crate) rows: (Vec<usize>, Vec<isize>, Vec<isize>),
    /// Input stride along the axis.
    pub(crate) sin: isize,
    /// Output stride along the axis.
    pub(crate) sout: isize,
    /// The input as (rows, axis) collapsed, padded to the output's rank.
    pub(crate) in_dims: (Vec<usize>, Vec<isize>),
    /// The outputs as (rows, kout) collapsed, padded to the input's rank.
    pub(crate) out_dims: (Vec<usize>, Vec<isize>),
    /// Index width.
    pub(crate) index: IndexWidth,
}

/// The row variant for rows of `len` elements.
fn row_variant(len: usize) -> (u16, u8) {
    ROW_VARIANTS
        .iter()
        .copied()
        .find(|&(t, i)| t as usize * i as usize >= len)
        .unwrap_or(ROW_VARIANTS[ROW_VARIANTS.len() - 1])
}

/// `CUARRAY_SORT_ROWS`'s block shape for rows of 2049 to 4096, where set (see
/// [`tuning::sort_rows`]).
fn rows_tuning() -> Option<(u16, u8, u8)> {
    tuning::sort_rows()
}

/// `radix_pass`'s variant bits (see [`pass_variant_default`]), or `CUARRAY_SORT_VARIANT`'s
/// where set ([`tuning::sort_variant`]).
fn pass_variant(key_bytes: usize, value_bytes: usize, values: bool) -> u8 {
    tuning::sort_variant().unwrap_or_else(|| pass_variant_default(key_bytes, value_bytes, values))
}

/// The histogram kernel's copies of each bin ([`HIST_COPIES`]), or `CUARRAY_SORT_HIST`'s
/// where set ([`tuning::sort_hist_copies`]).
fn hist_copies() -> u8 {
    tuning::sort_hist_copies().unwrap_or(HIST_COPIES)
}

/// Whether the histogram kernel zeroes the later passes' look-back words (else the memset
/// before it does): `CUARRAY_SORT_CLEAR` where set ([`tuning::sort_clear`]).
fn hist_clears() -> bool {
    tuning::sort_clear().unwrap_or(HIST_CLEARS)
}

/// The histogram kernel zeroes the later passes' look-back words by default (sort of
/// 2^26 f32 on an H200: 1180 -> 1178 us, 1199 -> 1198 without the prefetch).
const HIST_CLEARS: bool = true;

/// How many tiles ahead of its own each block of a pass asks L2 for the input of: a
/// quarter of the `resident` blocks (a quarter of a wave: the tile's block then finds its
/// keys in L2 instead of waiting on DRAM), or `CUARRAY_SORT_AHEAD`'s (0: no prefetch)
/// where set ([`tuning::sort_ahead`]).
///
/// Measured on an H200, 2^26 f32, sort (396 resident blocks) / argsort (264), us: none
/// 1200 / 1898; 44 tiles 1178 / 1854-1864, 66 1176 / 1856, 88 1176 / 1848-1856, 110
/// 1175-1176 / 1851-1854, 132 1176-1178 / 1852-1856, 198 1177 / 1870, 396 1189 / 2040,
/// 792 1226 / 2074 (the prefetched tiles leave L2 before their blocks come).
fn pass_ahead(resident: u32) -> u32 {
    tuning::sort_ahead().unwrap_or((resident / 4).max(1))
}

/// `CUARRAY_SORT_PASS`'s block shape for one-sweep passes, where set (see
/// [`tuning::sort_pass`]).
fn pass_tuning() -> Option<(u16, u8, u8)> {
    tuning::sort_pass()
}

/// Collapses `shape` with `strides`, padded with leading extents of 1 to `rank`.
fn dims(shape: &[usize], strides: &[isize]) -> (Vec<usize>, Vec<isize>) {
    let c = collapse(shape, &[strides]);
    if c.shape.is_empty() {
        return (vec![1], vec![0]);
    }
    (c.shape, c.strides.into_iter().next().unwrap_or_default())
}

fn pad(d: &mut (Vec<usize>, Vec<isize>), rank: usize) {
    while d.0.len() < rank {
        d.0.insert(0, 1);
        d.1.insert(0, 0);
    }
}

/// Plans sorting `layout` along `axis`, writing the first `kout` elements of each sorted
/// row (`None`: all), for keys of `key_bytes` bytes; `want_idx`: the indices are written.
///
/// # Errors
/// [`Error::AxisOutOfRange`] for an axis outside `-ndim..ndim`; [`Error::InvalidArgument`]
/// when `kout` is larger than the axis's extent.
pub(crate) fn plan_sort(
    op: &'static str,
    layout: &Layout,
    axis: isize,
    kout: Option<usize>,
    key_bytes: usize,
    want_idx: bool,
) -> Result<SortPlan> {
    let nd = layout.ndim();
    let ax = normalize_axis(op, axis, nd)?;
    let (shape, strides) = (layout.shape(), layout.strides());
    let len = shape[ax];
    let kout = kout.unwrap_or(len);
    if kout > len {
        return Err(Error::invalid(
            op,
            format!("k = {kout} is larger than the axis's extent {len}"),
        ));
    }
    let mut out_shape = shape.to_vec();
    out_shape[ax] = kout;
    let out_strides = c_strides(&out_shape);
    let others: Vec<usize> = (0..nd).filter(|&k| k != ax).collect();
    let rshape: Vec<usize> = others.iter().map(|&k| shape[k]).collect();
    let rin: Vec<isize> = others.iter().map(|&k| strides[k]).collect();
    let rout: Vec<isize> = others.iter().map(|&k| out_strides[k]).collect();
    let c = collapse(&rshape, &[&rin, &rout]);
    let rows = if c.shape.is_empty() {
        (vec![1], vec![0], vec![0])
    } else {
        let mut it = c.strides.into_iter();
        (
            c.shape,
            it.next().unwrap_or_default(),
            it.next().unwrap_or_default(),
        )
    };
    let n_rows: usize = rshape.iter().product();
    let (sin, sout) = (strides[ax], out_strides[ax]);
    let with_axis = |s: &[isize], extent: usize, st: isize| {
        let mut sh = rshape.clone();
        sh.push(extent);
        let mut stv = s.to_vec();
        stv.push(st);
        dims(&sh, &stv)
    };
    let mut in_dims = with_axis(&rin, len, sin);
    let mut out_dims = with_axis(&rout, kout, sout);
    let rank = in_dims.0.len().max(out_dims.0.len());
    pad(&mut in_dims, rank);
    pad(&mut out_dims, rank);
    if rows.0.len() > MAX_DIMS || rank > MAX_DIMS {
        return Err(Error::invalid(
            op,
            "too many dimensions after merging (make the array contiguous first)",
        ));
    }
    let n = n_rows * len;
    let strategy = if n_rows == 0 || kout == 0 {
        SortStrategy::Empty
    } else if len <= ROW_MAX {
        let (threads, ipt) = row_variant(len);
        match rows_tuning() {
            Some((t, i, m)) if len > ROW_MAX / 2 && t as usize * i as usize >= len => {
                SortStrategy::Rows {
                    threads: t,
                    ipt: i,
                    min_blocks: m,
                }
            }
            // The longest rows: 512 threads of 8 elements at 64 registers, two blocks a
            // multiprocessor (measured 1% faster than 256 x 16 for f32 on an H200).
            _ if len > ROW_MAX / 2 => SortStrategy::Rows {
                threads: 512,
                ipt: 8,
                min_blocks: 2,
            },
            _ => SortStrategy::Rows {
                threads,
                ipt,
                min_blocks: 0,
            },
        }
    } else {
        let row_bits = usize::BITS - (n_rows - 1).leading_zeros();
        let row_passes = row_bits.div_ceil(8) as u8;
        let values = want_idx || row_passes > 0;
        let wide_values = n > u32::MAX as usize;
        let wide_look = n >= 1 << 30;
        let (vb, wb) = (
            if wide_values { 8 } else { 4 },
            if wide_look { 8 } else { 4 },
        );
        let variant = pass_variant(key_bytes, vb, values);
        let fits = |t: u16, i: u8| {
            pass_smem(key_bytes, vb, wb, t as usize, i as usize, values, variant) <= PASS_SMEM_LIMIT
        };
        let (threads, ipt, min_blocks) = match pass_tuning() {
            Some((t, i, m)) if t >= 256 && fits(t, i) => (t, i, m),
            _ => pass_shape(key_bytes, vb, wb, values),
        };
        SortStrategy::Radix {
            key_passes: key_bytes as u8,
            row_passes,
            threads,
            ipt,
            min_blocks,
            tiles: n.div_ceil(threads as usize * ipt as usize),
            values,
            wide_values,
            wide_look,
            variant,
        }
    };
    let reach = |d: &(Vec<usize>, Vec<isize>)| -> usize {
        d.0.iter()
            .zip(&d.1)
            .map(|(&e, &s)| e.saturating_sub(1) * s.unsigned_abs())
            .sum()
    };
    let slack = PASS_THREADS as usize * 16;
    let index = index_width(n + slack, reach(&in_dims).max(reach(&out_dims)) + slack);
    Ok(SortPlan {
        n_rows,
        len,
        kout,
        out_shape,
        strategy,
        rows,
        sin,
        sout,
        in_dims,
        out_dims,
        index,
    })
}

/// The order of a sort.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Order {
    /// Largest first (NaN first).
    pub(crate) descending: bool,
}

/// Runs the sort planned as `p` of `input` into `out_keys` (sorted elements) and/or
/// `out_idx` (i64 indices along the axis), both C-contiguous of `p.out_shape`.
pub(crate) fn run(
    device: &Device,
    op: &'static str,
    p: &SortPlan,
    order: Order,
    input: &Operand<'_>,
    out_keys: Option<&Operand<'_>>,
    out_idx: Option<&Operand<'_>>,
) -> Result<()> {
    let _range = crate::profile::range(op);
    for o in out_keys.iter().chain(out_idx.iter()) {
        if !o.layout().is_c_contiguous() || o.layout().shape() != p.out_shape.as_slice() {
            return Err(Error::invalid(
                op,
                format!(
                    "the outputs must be C-contiguous of shape {:?}",
                    p.out_shape
                ),
            ));
        }
    }
    if out_idx.is_some_and(|o| o.dtype() != DType::I64)
        || out_keys.is_some_and(|o| o.dtype() != input.dtype())
    {
        return Err(Error::invalid(op, "output types"));
    }
    let dtype = input.dtype();
    let min_blocks = match p.strategy {
        SortStrategy::Rows { min_blocks, .. } | SortStrategy::Radix { min_blocks, .. } => {
            min_blocks
        }
        SortStrategy::Empty => 0,
    };
    let spec = |kernel: SortKernel, values: bool| SortSpec {
        min_blocks,
        kernel,
        dtype,
        descending: order.descending,
        values,
        out_keys: out_keys.is_some(),
        out_idx: out_idx.is_some(),
        index: p.index,
    };
    let ko = out_keys.map_or(0, |o| o.ptr());
    let io = out_idx.map_or(0, |o| o.ptr());
    match p.strategy {
        SortStrategy::Empty => Ok(()),
        SortStrategy::Rows { threads, ipt, .. } => {
            let s = spec(
                SortKernel::Rows {
                    threads,
                    ipt,
                    nk: p.rows.0.len() as u8,
                },
                false,
            );
            super::real_only("sort", &[s.dtype])?;
            let f = kernel(device, &s)?;
            let groups = if threads == 32 { 8 } else { 1 };
            let grid = p.n_rows.div_ceil(groups).min(i32::MAX as usize) as u32;
            // SAFETY: `f` is `s`'s kernel (just above), whose out_keys / out_idx flags are
            // set exactly for the outputs whose addresses `ko` / `io` are (0 otherwise); the
            // outputs are C-contiguous of `p.out_shape` with the right dtypes (checked
            // above), which `p.rows.2` and `p.sout` walk; `p` being the plan of `input`'s
            // layout (`plan_sort`) is this function's callers' contract (its doc).
            unsafe {
                s.launch_rows(
                    device,
                    &f,
                    grid,
                    input,
                    (ko, io),
                    &p.rows,
                    (p.n_rows, p.len, p.kout),
                    (p.sin, p.sout),
                )
            }
        }
        SortStrategy::Radix {
            key_passes,
            row_passes,
            threads,
            ipt,
            tiles,
            values,
            wide_values,
            wide_look,
            variant,
            ..
        } => {
            let n = p.n_rows * p.len;
            let passes = (key_passes + row_passes) as usize;
            let nd = p.in_dims.0.len() as u8;
            let (kb, vb, wb) = (
                dtype.size(),
                if wide_values { 8 } else { 4 },
                if wide_look { 8 } else { 4 },
            );
            // State, zeroed: histograms, tile counters, look-back words of every pass.
            let hist_at = 0usize;
            let counters_at = passes * 256 * 8;
            let look_at = (counters_at + passes * 4).div_ceil(256) * 256;
            let look_pass = tiles * 256 * wb;
            let bytes = look_at + passes * look_pass;
            let state = DeviceBuffer::alloc(device, bytes)?;
            let base = state.device_ptr();
            let _queuing = device.check_capture_stream(op)?;
            device.bind()?;
            // The memset covers the histograms, the counters and the first pass's words; the
            // histogram kernel zeroes the later passes' words (`clear`) where
            // `hist_clears` says so.
            let cleared = if hist_clears() && passes > 1 {
                look_at + look_pass
            } else {
                bytes
            };
            // SAFETY: `state` owns `bytes` >= `cleared` bytes; the memset is ordered on the
            // stream before the kernels that use it.
            unsafe {
                cudarc::driver::result::memset_d8_async(base, 0, cleared, device.cu_stream())
            }
            .map_err(Error::cuda(op))?;
            // Ping-pong keys and values between the passes.
            let temps = match passes {
                1 => 0,
                2 => 1,
                _ => 2,
            };
            let mut keys = Vec::new();
            let mut vals = Vec::new();
            for _ in 0..temps {
                keys.push(DeviceBuffer::alloc(device, n * kb)?);
                if values {
                    vals.push(DeviceBuffer::alloc(device, n * vb)?);
                }
            }
            let hs = spec(
                SortKernel::Hist {
                    nd,
                    copies: hist_copies_for(kb, hist_copies()),
                },
                false,
            );
            let hs = SortSpec {
                min_blocks: 0,
                values: false,
                out_keys: true,
                out_idx: false,
                ..hs
            };
            super::real_only("sort", &[hs.dtype])?;
            let hf = kernel(device, &hs)?;
            let SortKernel::Hist { copies, .. } = hs.kernel else {
                unreachable!("a Hist spec")
            };
            // More than one counter a bin: one block a multiprocessor takes them.
            let resident = if copies > 1 { 1 } else { hf.blocks_per_sm };
            let grid = grid_for(n, device.multiprocessor_count() * resident);
            // SAFETY: `hf` is `hs`'s kernel (just above) with `hist_smem` of its copies;
            // `state` (alive to the end of the sort) holds the passes' 256 u64 histograms at
            // `hist_at`, zeroed by the memset above; `clear` is the rest of `state` past
            // what the memset cleared (16-byte aligned: `cleared` and `bytes` are multiples
            // of 256), the later passes' look-back words, which no kernel reads before the
            // second pass; `p.in_dims` of `n` elements being the plan of `input`'s layout
            // is this function's callers' contract (its doc).
            unsafe {
                hs.launch_hist(
                    device,
                    &hf,
                    grid,
                    hist_smem(kb, copies) as u32,
                    input,
                    (&p.in_dims.0, &p.in_dims.1),
                    (n, p.len, row_passes),
                    base + hist_at as u64,
                    (base + cleared as u64, (bytes - cleared) / 16),
                )
            }?;
            let n_out = p.n_rows * p.kout;
            let smem = pass_smem(kb, vb, wb, threads as usize, ipt as usize, values, variant);
            for pass in 0..passes {
                let (first, last) = (pass == 0, pass == passes - 1);
                let s = spec(
                    SortKernel::Pass {
                        threads,
                        ipt,
                        nd,
                        first,
                        last,
                        wide_values,
                        wide_look,
                        variant,
                    },
                    values,
                );
                super::real_only("sort", &[s.dtype])?;
                let f = kernel(device, &s)?;
                let src = |v: &Vec<DeviceBuffer>| {
                    if first {
                        0
                    } else {
                        v.get((pass - 1) % 2).map_or(0, |b| b.device_ptr())
                    }
                };
                let dst = |v: &Vec<DeviceBuffer>| {
                    if last {
                        0
                    } else {
                        v.get(pass % 2).map_or(0, |b| b.device_ptr())
                    }
                };
                let row_pass = pass >= key_passes as usize;
                let shift = 8 * if row_pass {
                    pass - key_passes as usize
                } else {
                    pass
                };
                let words = [
                    n as i64,
                    p.len as i64,
                    p.kout as i64,
                    shift as i64,
                    row_pass as i64,
                    pass_ahead(device.multiprocessor_count() * f.blocks_per_sm) as i64,
                ];
                let state = PassState {
                    hist: base + (hist_at + pass * 256 * 8) as u64,
                    look: base + (look_at + pass * look_pass) as u64,
                    counter: base + (counters_at + pass * 4) as u64,
                };
                // SAFETY: `f` is `s`'s kernel (just above), whose first / last / values flags
                // are this pass's; `tiles` and `smem` are the plan's and `pass_smem`'s for its
                // threads and ipt; the sources are the previous pass's destinations and the
                // destinations the other ping-pong buffers, `n` keys (`kb` bytes) and values
                // (`vb`) each, 0 on the first / last pass or without values; `ko` / `io` are
                // the checked C-contiguous outputs of `p.out_shape` (0 when absent) that
                // `p.out_dims` walks; `state` is this pass's histogram, tile counter and
                // `tiles * 256` look-back words in the zeroed `state` buffer; `p.in_dims`
                // being the plan of `input`'s layout is this function's callers' contract.
                unsafe {
                    s.launch_pass(
                        device,
                        &f,
                        (tiles as u32, smem as u32),
                        input,
                        (&p.in_dims.0, &p.in_dims.1),
                        (src(&keys), src(&vals), dst(&keys), dst(&vals)),
                        (ko, io),
                        ((&p.out_dims.0, &p.out_dims.1), n_out),
                        &words,
                        &state,
                    )
                }?;
            }
            // The temporaries go back to the pool in stream order.
            drop((keys, vals, state));
            Ok(())
        }
    }
}

/// searchsorted: for each element of `values` (any layout), its insertion point in the
/// 1-D `sorted`, into the C-contiguous i64 `out` of the values' shape.
pub(crate) fn search(
    device: &Device,
    sorted: &Operand<'_>,
    values: &Operand<'_>,
    out: &Operand<'_>,
    right: bool,
) -> Result<()> {
    let _range = crate::profile::range("searchsorted");
    let n = values.layout().size();
    if n == 0 {
        return Ok(());
    }
    let shape = values.layout().shape();
    let c = collapse(shape, &[values.layout().strides(), &c_strides(shape)]);
    let (dims, strides) = if c.shape.is_empty() {
        (vec![1], vec![vec![0], vec![0]])
    } else {
        (c.shape, c.strides)
    };
    if dims.len() > MAX_DIMS {
        return Err(Error::invalid(
            "searchsorted",
            "too many dimensions after merging (make the values contiguous first)",
        ));
    }
    let m = sorted.layout().size();
    let sa = sorted.layout().strides().first().copied().unwrap_or(1);
    let reach: usize = dims
        .iter()
        .zip(&strides[0])
        .map(|(&e, &s)| e.saturating_sub(1) * s.unsigned_abs())
        .sum::<usize>()
        .max(m * sa.unsigned_abs());
    let index = index_width(n.max(m), reach.max(n));
    let spec = SortSpec {
        kernel: SortKernel::Search {
            nd: dims.len() as u8,
            right,
        },
        dtype: sorted.dtype(),
        descending: false,
        values: false,
        out_keys: true,
        out_idx: false,
        min_blocks: 0,
        index,
    };
    super::real_only("sort", &[spec.dtype])?;
    let f = kernel(device, &spec)?;
    let grid = n
        .div_ceil(f.block_threads as usize)
        .min((device.multiprocessor_count() * f.blocks_per_sm) as usize) as u32;
    // SAFETY: `f` is `spec`'s kernel (just above), of `sorted`'s dtype; `m` and `sa` are
    // the size and first stride of `sorted`'s own layout (1-D, inside its buffer by its
    // `Operand`); `dims` / `strides[0]` collapse `values`'s own shape and strides; that
    // `values` has `sorted`'s dtype and `out` is a C-contiguous i64 array of the values'
    // shape (`strides[1]`) is this function's callers' contract (its doc), not checked.
    unsafe {
        spec.launch_search(
            device,
            &f,
            grid,
            (sorted, m, sa),
            values,
            out,
            (&dims, &strides),
            n,
        )
    }
}

/// NumPy's interp: for each element of `values` (any layout), the value at it of the
/// piecewise-linear function through the points of the 1-D `xp` (increasing) and `fp` (of
/// `xp`'s length, at least 1), into the C-contiguous `out` of the values' shape and dtype;
/// `left` / `right` below and above `xp`. One pass: a right search and the neighbours.
pub(crate) fn interp(
    device: &Device,
    (xp, fp): (&Operand<'_>, &Operand<'_>),
    values: &Operand<'_>,
    out: &Operand<'_>,
    (left, right): (Option<f64>, Option<f64>),
) -> Result<()> {
    let _range = crate::profile::range("interp");
    let n = values.layout().size();
    if n == 0 {
        return Ok(());
    }
    let m = xp.layout().size();
    let dtype = values.dtype();
    if m == 0
        || xp.layout().ndim() != 1
        || fp.layout().shape() != xp.layout().shape()
        || [xp.dtype(), fp.dtype(), out.dtype()]
            .iter()
            .any(|&d| d != dtype)
        || out.layout().shape() != values.layout().shape()
        || !out.layout().is_c_contiguous()
    {
        return Err(Error::invalid(
            "interp",
            "xp and fp must be 1-D of one non-zero length, and every operand of one dtype",
        ));
    }
    let shape = values.layout().shape();
    let c = collapse(shape, &[values.layout().strides(), &c_strides(shape)]);
    let (dims, strides) = if c.shape.is_empty() {
        (vec![1], vec![vec![0], vec![0]])
    } else {
        (c.shape, c.strides)
    };
    if dims.len() > MAX_DIMS {
        return Err(Error::invalid(
            "interp",
            "too many dimensions after merging (make the values contiguous first)",
        ));
    }
    let (sxp, sfp) = (xp.layout().strides()[0], fp.layout().strides()[0]);
    let reach: usize = dims
        .iter()
        .zip(&strides[0])
        .map(|(&e, &s)| e.saturating_sub(1) * s.unsigned_abs())
        .sum::<usize>()
        .max(m * sxp.unsigned_abs().max(sfp.unsigned_abs()));
    let spec = SortSpec {
        kernel: SortKernel::Interp {
            nd: dims.len() as u8,
        },
        dtype,
        descending: false,
        values: false,
        out_keys: true,
        out_idx: false,
        min_blocks: 0,
        index: index_width(n.max(m), reach.max(n)),
    };
    super::real_only("interp", &[dtype])?;
    let f = kernel(device, &spec)?;
    let grid = n
        .div_ceil(f.block_threads as usize)
        .min((device.multiprocessor_count() * f.blocks_per_sm) as usize) as u32;
    // SAFETY: `f` is `spec`'s kernel (just above), an Interp one of the values' dtype,
    // which `xp`, `fp` and `out` share (checked above); `m >= 1` points of `xp` and `fp`,
    // 1-D, lie inside their buffers by their own `Operand`s at their strides; `dims` and
    // `strides` collapse the values' own layout and `out`'s C-contiguous one of the same
    // shape (checked above).
    unsafe {
        spec.launch_interp(
            device,
            &f,
            grid,
            (xp, sxp, fp, sfp, m),
            values,
            out,
            (&dims, &strides),
            n,
            (left, right),
        )
    }
}

/// Top-k by radix selection over the single row of `p` (`p.n_rows == 1`): the histogram of
/// digit `pass` (most significant first) into `hist` (u64, key bytes x 256, zero before the
/// first pass).
pub(crate) fn topk_hist(
    device: &Device,
    p: &SortPlan,
    descending: bool,
    input: &Operand<'_>,
    hist: &Operand<'_>,
    pass: usize,
) -> Result<()> {
    let spec = topk_spec(
        p,
        input.dtype(),
        descending,
        SortKernel::TopkHist {
            nd: p.in_dims.0.len() as u8,
        },
    );
    super::real_only("sort", &[spec.dtype])?;
    let f = kernel(device, &spec)?;
    let n = p.len;
    let grid = grid_for(n, device.multiprocessor_count() * f.blocks_per_sm);
    // SAFETY: `f` is `spec`'s kernel (just above), of `input`'s dtype; `p` being the
    // single-row plan of `input`'s layout (so `p.in_dims` of `p.len` elements stays inside
    // it), `hist` holding key bytes x 256 u64 (zero before the first pass) and `pass` below
    // key bytes are this function's callers' contract (its doc), not checked here.
    unsafe {
        spec.launch_topk_hist(
            device,
            &f,
            grid,
            input,
            (&p.in_dims.0, &p.in_dims.1),
            (n, p.kout, pass),
            hist,
        )
    }
}

fn topk_spec(p: &SortPlan, dtype: DType, descending: bool, kernel: SortKernel) -> SortSpec {
    SortSpec {
        kernel,
        dtype,
        descending,
        values: false,
        out_keys: true,
        out_idx: false,
        min_blocks: 0,
        index: p.index,
    }
}

/// Tiles of top-k's selection over `p.len` elements.
pub(crate) fn topk_tiles(p: &SortPlan) -> usize {
    p.len.div_ceil(256 * crate::kernels::family::sort::TOPK_IPT)
}

/// Top-k's selection after the histograms: the tile counts (u32, `2 x tiles`: better than
/// the k-th key, equal to it) when `write` is `None`, else, from those counts, the `k`
/// candidates (`cand`, and their indices `cand_idx`).
pub(crate) fn topk_select(
    device: &Device,
    p: &SortPlan,
    descending: bool,
    input: &Operand<'_>,
    hist: &Operand<'_>,
    counts: &Operand<'_>,
    write: Option<(&Operand<'_>, &Operand<'_>)>,
) -> Result<()> {
    let spec = topk_spec(
        p,
        input.dtype(),
        descending,
        SortKernel::TopkSelect {
            nd: p.in_dims.0.len() as u8,
            write: write.is_some(),
        },
    );
    super::real_only("sort", &[spec.dtype])?;
    let f = kernel(device, &spec)?;
    let n = p.len;
    let tiles = topk_tiles(p);
    let (cand, cand_idx) = write.map_or((0, 0), |(a, b)| (a.ptr(), b.ptr()));
    // SAFETY: `f` is `spec`'s kernel (just above), writing exactly when `write` is given
    // (then `cand` and `cand_idx` are its operands, else 0); `tiles` is `topk_tiles(p)`;
    // `p` being the single-row plan of `input`'s layout, `hist` the finished histograms of
    // `topk_hist`, `counts` 2 x tiles u32 (counted before a writing call) and the
    // candidates' room for `p.kout` elements are this function's callers' contract (its
    // doc), not checked here.
    unsafe {
        spec.launch_topk_select(
            device,
            &f,
            tiles,
            input,
            (&p.in_dims.0, &p.in_dims.1),
            (n, p.kout),
            (hist, counts),
            (cand, cand_idx),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans() {
        let l = Layout::contiguous(&[3, 100, 5]);
        let p = plan_sort("sort", &l, 1, None, 4, true).unwrap();
        assert_eq!((p.n_rows, p.len, p.sin, p.sout), (15, 100, 5, 5));
        assert_eq!(
            p.strategy,
            SortStrategy::Rows {
                threads: 32,
                ipt: 4,
                min_blocks: 0
            }
        );
        assert_eq!(p.rows, (vec![3, 5], vec![500, 1], vec![500, 1]));
        let p = plan_sort("topk", &l, -1, Some(2), 4, true).unwrap();
        assert_eq!(p.out_shape, vec![3, 100, 2]);
        assert_eq!(p.rows, (vec![300], vec![5], vec![2]));
        assert!(plan_sort("topk", &l, -1, Some(6), 4, true).is_err());
        assert!(plan_sort("sort", &l, 3, None, 4, true).is_err());
        assert!(plan_sort("sort", &Layout::contiguous(&[]), -1, None, 4, true).is_err());
        // Long rows: a segmented radix sort with one pass over the row number.
        let l = Layout::contiguous(&[100, 10000]);
        let p = plan_sort("sort", &l, 1, None, 4, false).unwrap();
        match p.strategy {
            SortStrategy::Radix {
                key_passes,
                row_passes,
                values,
                tiles,
                ..
            } => {
                assert_eq!((key_passes, row_passes, values), (4, 1, true));
                assert_eq!(tiles, (1_000_000usize).div_ceil(6144));
            }
            s => panic!("{s:?}"),
        }
        assert_eq!(p.in_dims, (vec![1_000_000], vec![1]));
        // A transposed view sorted along its leading axis: each row is contiguous in
        // memory (one dimension, padded to the output's rank), the output's rows strided.
        let p = plan_sort("sort", &l.t(), 0, None, 4, false).unwrap();
        assert_eq!(p.in_dims, (vec![1, 1_000_000], vec![0, 1]));
        assert_eq!(p.out_dims, (vec![100, 10000], vec![1, 100]));
        // Empty.
        let p = plan_sort("sort", &Layout::contiguous(&[0, 5]), 1, None, 4, false).unwrap();
        assert_eq!(p.strategy, SortStrategy::Empty);
        // 64-bit keys: smaller tiles.
        let p = plan_sort("argsort", &Layout::contiguous(&[1 << 20]), 0, None, 8, true).unwrap();
        assert!(matches!(
            p.strategy,
            SortStrategy::Radix {
                ipt: 8,
                key_passes: 8,
                ..
            }
        ));
    }

    #[test]
    fn variants_by_length() {
        assert_eq!(row_variant(1), (32, 1));
        assert_eq!(row_variant(33), (32, 2));
        assert_eq!(row_variant(129), (128, 2));
        assert_eq!(row_variant(4096), (256, 16));
    }

    #[test]
    fn plan_sort_example() {
        use crate::ops::sort::{plan_sort, SortStrategy};
        use crate::shape::Layout;
        let p = plan_sort(
            "sort",
            &Layout::contiguous(&[4096, 4096]),
            -1,
            None,
            4,
            true,
        )
        .unwrap();
        assert_eq!(
            p.strategy,
            SortStrategy::Rows {
                threads: 512,
                ipt: 8,
                min_blocks: 2
            }
        );
        let p = plan_sort("sort", &Layout::contiguous(&[1 << 26]), 0, None, 4, false).unwrap();
        assert!(matches!(
            p.strategy,
            SortStrategy::Radix {
                key_passes: 4,
                row_passes: 0,
                values: false,
                ..
            }
        ));
    }
}
