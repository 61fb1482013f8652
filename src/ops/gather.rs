//! Gathers and scatters by index, bincount and histogram: the launches of the gather
//! family. The shapes (what each output position reads) are planned by the array layer
//! as one stride vector per operand over the iteration shape.

use super::Operand;
use crate::kernels::cache::kernel;
use crate::kernels::family::gather::{GatherKernel, GatherSpec, SHARED_BINS};
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
        dtype: a.dtype(),
        nd: s.dims.len() as u8,
        index: s.index,
    };
    super::real_only("gather", &[spec.dtype])?;
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
        dtype: a.dtype(),
        nd: s.dims.len() as u8,
        index: s.index,
    };
    super::real_only("gather", &[spec.dtype])?;
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
