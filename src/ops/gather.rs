//! Gathers and scatters by index, bincount and histogram: the launches of the gather
//! family. The shapes (what each output position reads) are planned by the array layer
//! as one stride vector per operand over the iteration shape.

use super::Operand;
use crate::kernels::cache::kernel;
use crate::kernels::family::gather::{
    hist_edges_smem, word_dtype, GatherKernel, GatherSpec, HIST_EDGES_SMEM, SHARED_BINS,
};
use crate::kernels::{IndexWidth, MAX_DIMS};
use crate::ops::launch::{grid_for, index_width};
use crate::shape::collapse;
use crate::{Device, Error, Result};

/// The iteration shape collapsed with each operand's strides, and the index width for
/// `n` positions whose operands reach `extra` elements beyond their strided extent.
struct Space {
    dims: Vec<usize>,
    strides: Vec<Vec<isize>>,
    index: IndexWidth,
}

fn space(op: &'static str, shape: &[usize], strides: &[&[isize]], extra: usize) -> Result<Space> {
    let c = collapse(shape, strides);
    let (dims, strides) = if c.shape.is_empty() {
        (vec![1], vec![vec![0]; strides.len()])
    } else {
        (c.shape, c.strides)
    };
    if dims.len() > MAX_DIMS {
        return Err(Error::invalid(
            op,
            "too many dimensions after merging (make the arrays contiguous first)",
        ));
    }
    let n: usize = shape.iter().product();
    let reach = strides
        .iter()
        .map(|s| {
            dims.iter()
                .zip(s)
                .map(|(&e, &st)| e.saturating_sub(1) * st.unsigned_abs())
                .sum::<usize>()
        })
        .max()
        .unwrap_or(0);
    Ok(Space {
        dims,
        strides,
        index: index_width(n, reach + extra),
    })
}

/// `out[o] = a[a_off(o) + wrap(idx[idx_off(o)]) * sa]` over `shape` (the C-contiguous
/// output's), where the index must lie in `[-extent, extent)` (`[0, extent)` without
/// `wrap`).
#[allow(clippy::too_many_arguments)]
pub(crate) fn gather(
    device: &Device,
    op: &'static str,
    out: &Operand<'_>,
    a: &Operand<'_>,
    idx: &Operand<'_>,
    a_strides: &[isize],
    idx_strides: &[isize],
    (extent, wrap): (usize, bool),
    sa: isize,
) -> Result<()> {
    let _range = crate::profile::range(op);
    let shape = out.layout().shape();
    let n = out.layout().size();
    if n == 0 {
        return Ok(());
    }
    let s = space(
        op,
        shape,
        &[a_strides, idx_strides],
        extent * sa.unsigned_abs().max(1),
    )?;
    let spec = GatherSpec {
        kernel: GatherKernel::Gather,
        // A pure move: every dtype of one size (complex included) shares its kernel.
        dtype: word_dtype(a.dtype().size()),
        nd: s.dims.len() as u8,
        index: s.index,
    };
    let f = kernel(device, &spec)?;
    let rec = device.error_record(op)?;
    let grid = grid_for(
        n.div_ceil(8),
        device.multiprocessor_count() * f.blocks_per_sm,
    );
    // SAFETY: `f` is `spec`'s kernel, `rec` this op's error record (both just above);
    // `out` is C-contiguous with n elements (its layout's size) and `spec.dtype` is `a`'s;
    // `s` collapses `shape` with `a_strides` and `idx_strides` (`s.index` from their reach
    // plus extent * |sa|), which this function's callers pass as views of `a` and `idx` over
    // the output's shape whose indexed axis has `extent` elements of stride `sa` (their
    // contract, not checked here).
    unsafe {
        spec.launch_gather(
            device,
            &f,
            grid,
            out,
            a,
            idx,
            (&s.dims, &s.strides),
            n,
            (extent, wrap),
            sa,
            rec,
        )
    }
}

/// `a[a_off(o) + wrap(idx[idx_off(o)]) * sa] = vals[v_off(o)]` (or `+=` atomically when
/// `add`) over `shape`; negative indices wrap only with `wrap`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn scatter(
    device: &Device,
    op: &'static str,
    a: &Operand<'_>,
    idx: &Operand<'_>,
    vals: &Operand<'_>,
    shape: &[usize],
    strides: [&[isize]; 3],
    (extent, wrap): (usize, bool),
    sa: isize,
    add: bool,
) -> Result<()> {
    let _range = crate::profile::range(op);
    let n: usize = shape.iter().product();
    if n == 0 {
        return Ok(());
    }
    let s = space(op, shape, &strides, extent * sa.unsigned_abs().max(1))?;
    let spec = GatherSpec {
        kernel: GatherKernel::Scatter { add },
        // A plain scatter is a move (one kernel per element size, complex included); an
        // atomic add runs in the element type (complex: one add per part).
        dtype: if add {
            a.dtype()
        } else {
            word_dtype(a.dtype().size())
        },
        nd: s.dims.len() as u8,
        index: s.index,
    };
    let f = kernel(device, &spec)?;
    let rec = device.error_record(op)?;
    let grid = grid_for(n, device.multiprocessor_count() * f.blocks_per_sm);
    // SAFETY: `f` is `spec`'s kernel, `rec` this op's error record (both just above), and
    // `spec.dtype` is `a`'s; `s` collapses `shape` (n positions) with the three stride
    // vectors (`s.index` from their reach plus extent * |sa|), which this function's
    // callers pass as views of `a`, `idx` and `vals` over `shape` whose indexed axis of `a`
    // has `extent` elements of stride `sa` (their contract, not checked here).
    unsafe {
        spec.launch_scatter(
            device,
            &f,
            grid,
            a,
            idx,
            vals,
            (&s.dims, &s.strides),
            n,
            (extent, wrap),
            sa,
            rec,
        )
    }
}

/// Counts into the zeroed i64 `out` of `bins` elements: of each value of `x` (bincount,
/// values in `[0, bins)`), or of each uniform bin of `[lo, hi]` with `edges`.
pub(crate) fn count(
    device: &Device,
    op: &'static str,
    x: &Operand<'_>,
    out: &Operand<'_>,
    bins: usize,
    histogram: Option<(&Operand<'_>, f64, f64)>,
) -> Result<()> {
    let _range = crate::profile::range(op);
    let n = x.layout().size();
    if n == 0 || bins == 0 {
        return Ok(());
    }
    let s = space(op, x.layout().shape(), &[x.layout().strides()], bins)?;
    let shared = bins <= SHARED_BINS;
    let kernel_kind = if histogram.is_some() {
        GatherKernel::Histogram { shared }
    } else {
        GatherKernel::Bincount { shared }
    };
    let spec = GatherSpec {
        kernel: kernel_kind,
        dtype: x.dtype(),
        nd: s.dims.len() as u8,
        index: s.index,
    };
    super::real_only("gather", &[spec.dtype])?;
    let f = kernel(device, &spec)?;
    let blocks = device.multiprocessor_count() * if shared { 2 } else { 8 };
    let grid = grid_for(n, blocks);
    // SAFETY: `f` is `spec`'s kernel (just above), whose `shared` flag is the one passed
    // (shared only for bins <= SHARED_BINS); `s` collapses `x`'s own shape and strides, so
    // its offsets stay inside `x` (checked by its `Operand`); `out` holding `bins` i64
    // counts and the edges `bins + 1` values are this function's callers' contract (its
    // doc), not checked here.
    unsafe {
        spec.launch_count(
            device,
            &f,
            grid,
            x,
            (&s.dims, &s.strides),
            n,
            out,
            bins,
            histogram,
            shared,
        )
    }
}

/// Counts of the elements of `x` per bin of the `bins + 1` increasing `edges` (NumPy's
/// `histogram` with edges: NaN and values outside are not counted, the last bin is closed)
/// into the zeroed u64 `out` of `bins` elements, or with `weights` (`n` contiguous f64
/// values in `x`'s C order) their sums into the zeroed f64 `out`. One pass: a binary
/// search per element, counters and edges in shared memory when they fit.
pub(crate) fn count_edges(
    device: &Device,
    x: &Operand<'_>,
    weights: Option<&Operand<'_>>,
    edges: &Operand<'_>,
    out: &Operand<'_>,
) -> Result<()> {
    const OP: &str = "histogram_with";
    let _range = crate::profile::range(OP);
    let n = x.layout().size();
    let bins = edges.layout().size().saturating_sub(1);
    let contiguous =
        |o: &Operand<'_>, len: usize| o.layout().is_c_contiguous() && o.layout().size() == len;
    let weighted = weights.is_some();
    let out_ok = if weighted {
        out.dtype() == crate::DType::F64
    } else {
        matches!(out.dtype(), crate::DType::I64 | crate::DType::U64)
    };
    if bins == 0
        || edges.dtype() != x.dtype()
        || !contiguous(edges, bins + 1)
        || !out_ok
        || !contiguous(out, bins)
        || weights.is_some_and(|w| w.dtype() != crate::DType::F64 || !contiguous(w, n))
    {
        return Err(Error::invalid(
            OP,
            "the edges, weights and counts must be contiguous: edges of the input's dtype, \
             f64 weights, i64 counts or f64 sums",
        ));
    }
    if n == 0 {
        return Ok(());
    }
    let s = space(OP, x.layout().shape(), &[x.layout().strides()], 0)?;
    let smem = hist_edges_smem(x.dtype(), bins, weighted);
    let shared = smem <= HIST_EDGES_SMEM;
    let spec = GatherSpec {
        kernel: GatherKernel::HistEdges { shared, weighted },
        dtype: x.dtype(),
        nd: s.dims.len() as u8,
        index: s.index,
    };
    super::real_only("gather", &[spec.dtype])?;
    let f = kernel(device, &spec)?;
    // Shared counters: as many resident blocks as the shared memory allows (each flushes
    // its `bins` counters once), at most 8 of 256 threads per multiprocessor.
    let per_sm = if shared {
        (160 * 1024 / smem.max(1)).clamp(1, 8) as u32
    } else {
        8
    };
    let grid = grid_for(n, device.multiprocessor_count() * per_sm);
    // SAFETY: `f` is `spec`'s kernel (just above), a HistEdges one of `x`'s dtype, whose
    // `shared` flag is set only when its shared memory fits HIST_EDGES_SMEM; `s` collapses
    // `x`'s own shape and strides, so its offsets stay inside `x` (checked by its
    // `Operand`); the edges (bins + 1, of x's dtype), `out` (bins, 8-byte) and the
    // weights (n f64) were checked contiguous of those sizes above.
    unsafe {
        spec.launch_hist_edges(
            device,
            &f,
            grid,
            x,
            (&s.dims, &s.strides),
            n,
            weights,
            edges,
            bins,
            out,
        )
    }
}

/// The `bins + 1` edges of `bins` uniform bins over `[lo, hi]` into `edges`.
pub(crate) fn edges(
    device: &Device,
    edges: &Operand<'_>,
    bins: usize,
    lo: f64,
    hi: f64,
) -> Result<()> {
    let spec = GatherSpec {
        kernel: GatherKernel::Edges,
        dtype: edges.dtype(),
        nd: 1,
        index: IndexWidth::I64,
    };
    super::real_only("gather", &[spec.dtype])?;
    spec.launch_edges(device, edges, bins, (lo, hi))
}
