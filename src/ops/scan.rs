//! Scans (cumsum, cumprod) along one axis: the pure plan and the launch.

use super::Operand;
use crate::element::DType;
use crate::kernels::cache::kernel;
use crate::kernels::family::scan::{LookBack, ScanSpec, Variant, SCAN_BLOCK, SCAN_PER_THREAD};
use crate::kernels::{IndexWidth, MAX_DIMS};
use crate::ops::catalogue::ReduceOp;
use crate::ops::launch::{grid_for, index_width};
use crate::shape::{c_strides, collapse, normalize_axis, Layout};
use crate::{Device, Error, Result};

/// Elements per tile of the tiled scan (8 warps x 32 lanes x 64 elements): large tiles
/// keep the look-back chain short.
pub(crate) const SCAN_TILE: usize = SCAN_BLOCK * SCAN_PER_THREAD;

/// The plan of a scan along one axis. Pure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ScanPlan {
    /// Number of independent scans (rows).
    pub(crate) n_rows: usize,
    /// Length of each scan.
    pub(crate) len: usize,
    /// Row dimensions (collapsed), with the input's and the output's strides.
    pub(crate) kept: (Vec<usize>, Vec<isize>, Vec<isize>),
    /// Input stride along the axis.
    pub(crate) sin: isize,
    /// Output stride along the axis (the output is C-contiguous).
    pub(crate) sout: isize,
    /// Tiled with decoupled look-back (else a thread per row).
    pub(crate) tiles: bool,
    /// Index width.
    pub(crate) index: IndexWidth,
}

/// Plans an inclusive scan of `layout` along `axis`.
///
/// # Errors
/// [`Error::AxisOutOfRange`] for an axis outside `-ndim..ndim` (`-1..1` for a 0-d layout);
/// [`Error::InvalidArgument`] when the layout needs more dimensions after merging than one
/// kernel indexes.
pub(crate) fn plan_scan(layout: &Layout, axis: isize) -> Result<ScanPlan> {
    let nd = layout.ndim().max(1);
    let layout = if layout.ndim() == 0 {
        layout.expand_dims(0)?
    } else {
        layout.clone()
    };
    let ax = normalize_axis("cumsum", axis, nd)?;
    let out = c_strides(layout.shape());
    let others: Vec<usize> = (0..nd).filter(|&k| k != ax).collect();
    let shape: Vec<usize> = others.iter().map(|&k| layout.shape()[k]).collect();
    let si: Vec<isize> = others.iter().map(|&k| layout.strides()[k]).collect();
    let so: Vec<isize> = others.iter().map(|&k| out[k]).collect();
    let c = collapse(&shape, &[&si, &so]);
    let kept = if c.shape.is_empty() {
        (vec![1], vec![0], vec![0])
    } else {
        let mut it = c.strides.into_iter();
        (
            c.shape,
            it.next().unwrap_or_default(),
            it.next().unwrap_or_default(),
        )
    };
    if kept.0.len() > MAX_DIMS {
        return Err(Error::invalid(
            "cumsum",
            "too many dimensions after merging (make the array contiguous first)",
        ));
    }
    let n_rows: usize = shape.iter().product();
    let len = layout.shape()[ax];
    let sin = layout.strides()[ax];
    let sout = out[ax];
    let tiles = sin.unsigned_abs() == 1 || n_rows < 4096;
    let reach = |st: &[isize]| -> usize {
        kept.0
            .iter()
            .zip(st)
            .map(|(&n, &s)| n.saturating_sub(1) * s.unsigned_abs())
            .sum()
    };
    let extent =
        (reach(&kept.1) + len.saturating_sub(1) * sin.unsigned_abs()).max(reach(&kept.2) + len);
    let index = index_width(layout.size() + SCAN_TILE, extent + SCAN_TILE);
    Ok(ScanPlan {
        n_rows,
        len,
        kept,
        sin,
        sout,
        tiles,
        index,
    })
}

/// The spec of the scan `op` (`Sum` or `Prod`) of `in_dtype` into `out_dtype`.
pub fn scan_spec(
    op: ReduceOp,
    in_dtype: DType,
    out_dtype: DType,
    variant: Variant,
    index: IndexWidth,
) -> ScanSpec {
    let def = op.def(in_dtype);
    ScanSpec {
        op: op.scan_name().into(),
        pre: def.pre,
        input: in_dtype,
        output: out_dtype,
        acc: def.acc,
        identity: def.identity,
        combine: def.combine,
        post: def.post,
        variant,
        index,
    }
}

/// Runs an inclusive scan (`op` is `Sum` or `Prod`) of `input` into the C-contiguous
/// `output` of the same shape, planned as `p` from the input's layout.
pub(crate) fn run(
    device: &Device,
    op: ReduceOp,
    p: &ScanPlan,
    input: &Operand<'_>,
    output: &Operand<'_>,
) -> Result<()> {
    let _range = crate::profile::range(op.scan_name());
    if p.n_rows == 0 || p.len == 0 {
        return Ok(());
    }
    if !output.layout().is_c_contiguous() || output.layout().shape() != input.layout().shape() {
        return Err(Error::invalid(
            op.scan_name(),
            format!(
                "the output must be C-contiguous of the input's shape {:?}",
                input.layout().shape()
            ),
        ));
    }
    let (in_dtype, out_dtype) = (input.dtype(), output.dtype());
    let def = op.def(in_dtype);
    let (in_size, out_size) = (in_dtype.size(), out_dtype.size());
    let vec = 16 / in_size.max(out_size);
    let vectorized = p.tiles
        && vec > 1
        && p.sin == 1
        && p.sout == 1
        && p.len.is_multiple_of(vec)
        && input.ptr().is_multiple_of(16)
        && output.ptr().is_multiple_of(16)
        && p.kept.1.iter().all(|&s| s % vec as isize == 0);
    let nk = p.kept.0.len() as u8;
    let variant = if p.tiles {
        Variant::Tiles {
            vec: if vectorized { vec as u8 } else { 1 },
            nk,
        }
    } else {
        Variant::Serial { nk }
    };
    let spec = scan_spec(op, in_dtype, out_dtype, variant, p.index);
    let f = kernel(device, &spec)?;
    let rows = (p.n_rows, p.len, p.sin, p.sout);
    let sm = device.multiprocessor_count() as usize;
    if !p.tiles {
        let grid = grid_for(p.n_rows, device.multiprocessor_count() * f.blocks_per_sm);
        // SAFETY: `f` is `spec`'s kernel (a serial one, so no look-back state), its dtypes
        // the operands'; `output` is C-contiguous of the input's shape (checked above), so
        // `p.kept.2` and `p.sout` walk it; `p` being the plan of the input's layout (so its
        // rows stay inside `input`) is this function's callers' contract (its doc).
        return unsafe { spec.launch(device, &f, grid, output, input, &p.kept, rows, None) };
    }
    let tiles = p.n_rows * p.len.div_ceil(SCAN_TILE);
    // Look-back state: counter, flags, aggregates, inclusive prefixes; zeroed.
    let acc = def.acc.size();
    let flags_at = 16;
    let aggs_at = (flags_at + 4 * tiles).div_ceil(16) * 16;
    let incls_at = aggs_at + acc * tiles;
    let bytes = incls_at + acc * tiles;
    let state = crate::device::DeviceBuffer::alloc(device, bytes)?;
    let base = state.device_ptr();
    let _queuing = device.check_capture_stream("cumsum")?;
    device.bind()?;
    // SAFETY: `state` owns `bytes` bytes; the memset is ordered on the device stream
    // before the kernel that reads it.
    unsafe { cudarc::driver::result::memset_d8_async(base, 0, bytes, device.cu_stream()) }
        .map_err(Error::cuda("cumsum"))?;
    let look_back = LookBack {
        flags: base + flags_at as u64,
        aggregates: base + aggs_at as u64,
        inclusive: base + incls_at as u64,
        counter: base,
    };
    let grid = tiles.min(sm * f.blocks_per_sm as usize).max(1) as u32;
    // SAFETY: `f` is `spec`'s kernel (a tiled one), its dtypes the operands', vectorized
    // only with the alignment checked above; `output` is C-contiguous of the input's shape
    // (checked above); `look_back` lies in `state`, zeroed above and alive until the kernel
    // is queued (the pool reuses it in stream order), with a u32 flag and an `acc` entry
    // per tile in each array (`tiles` of them) and the counter at its start; `p` being the
    // plan of the input's layout is this function's callers' contract (its doc).
    unsafe {
        spec.launch(
            device,
            &f,
            grid,
            output,
            input,
            &p.kept,
            rows,
            Some(look_back),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans() {
        let l = Layout::contiguous(&[3, 4, 5]);
        let p = plan_scan(&l, 1).unwrap();
        assert_eq!((p.n_rows, p.len, p.sin, p.sout), (15, 4, 5, 5));
        assert_eq!(p.kept, (vec![3, 5], vec![20, 1], vec![20, 1]));
        let p = plan_scan(&l, -1).unwrap();
        assert_eq!(p.kept, (vec![12], vec![5], vec![5]));
        assert!(p.tiles);
        // Transposed input: the output stays C-contiguous in the view's order.
        let p = plan_scan(&l.t(), 0).unwrap();
        assert_eq!((p.sin, p.sout), (1, 12));
        assert!(plan_scan(&l, 3).is_err());
        let p = plan_scan(&Layout::contiguous(&[]), 0).unwrap();
        assert_eq!((p.n_rows, p.len), (1, 1));
    }

    #[test]
    fn plan_scan_example() {
        use crate::ops::scan::plan_scan;
        use crate::shape::Layout;
        let p = plan_scan(&Layout::contiguous(&[1 << 20]), 0).unwrap();
        assert!(p.tiles && p.n_rows == 1);
        let p = plan_scan(&Layout::contiguous(&[1000, 5000]), 0).unwrap();
        assert!(!p.tiles && p.n_rows == 5000 && p.sin == 5000);
    }

    #[test]
    fn scan_spec_example() {
        use crate::kernels::family::scan::Variant;
        use crate::kernels::IndexWidth;
        use crate::ops::{reduce::ReduceOp, scan::scan_spec};
        use crate::DType;
        let s = scan_spec(
            ReduceOp::Sum,
            DType::I32,
            DType::I64,
            Variant::Serial { nk: 1 },
            IndexWidth::I32,
        );
        assert_eq!(s.op, "cumsum");
    }
}
