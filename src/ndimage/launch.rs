//! The launches of the ndimage family: a line pass along one axis and an n-d window.

use super::Mode;
use crate::array::DeviceArray;
use crate::element::Element;
use crate::kernels::abi::KernelArgs;
use crate::kernels::cache::kernel;
use crate::kernels::family::ndimage::{NdShape, NdSpec, WindowOp, MAX_RANK, TAPS};
use crate::{Error, Result};

/// Blocks per multiprocessor the grids are capped at (the kernels loop over the rest).
const BLOCKS_PER_SM: u32 = 8;
/// Shared memory a block may take without asking for more.
const SHARED_DEFAULT: usize = 48 * 1024;
/// Shared memory of the largest line pass (within every GPU since sm_80's 163 KB).
const SHARED_MAX: usize = 160 * 1024;

/// `(outer, n, inner)`: the C-contiguous `shape` seen along `axis`.
pub(crate) fn split_axis(shape: &[usize], axis: usize) -> (usize, usize, usize) {
    let outer = shape[..axis].iter().product();
    let inner = shape[axis + 1..].iter().product();
    (outer, shape[axis], inner)
}

/// One line pass: `out[.., a, ..] = op over j < k of x[.., a + start + j, ..]` along
/// `axis`, `taps` the weights of [`WindowOp::Sum`] (`k` of them; ignored otherwise).
/// `x` and `out` are C-contiguous arrays of one shape on one device.
#[allow(clippy::too_many_arguments)]
pub(crate) fn line<T: Element, U: Element>(
    op_name: &'static str,
    x: &DeviceArray<T>,
    out: &DeviceArray<U>,
    axis: usize,
    op: WindowOp,
    taps: &[f64],
    k: usize,
    start: isize,
    mode: Mode,
) -> Result<()> {
    debug_assert!(x.layout().is_c_contiguous() && out.layout().is_c_contiguous());
    debug_assert!(x.shape() == out.shape() && op != WindowOp::Rank);
    debug_assert!(op != WindowOp::Sum || taps.len() == k);
    if x.size() == 0 {
        return Ok(());
    }
    if k == 0 {
        return Err(Error::invalid(op_name, "the filter has no taps"));
    }
    let device = x.device();
    let (outer, n, inner) = split_axis(x.shape(), axis);
    let mut spec = NdSpec {
        shape: NdShape::Line {
            wx: if inner == 1 { 1 } else { 32 },
        },
        op,
        input: T::DTYPE,
        output: U::DTYPE,
    };
    if spec.line_shared(k) > SHARED_DEFAULT {
        spec.shape = NdShape::Line { wx: 0 };
    }
    let shared = spec.line_shared(k);
    if shared > SHARED_MAX {
        return Err(Error::invalid(
            op_name,
            format!("a filter of {k} taps is longer than the line pass holds"),
        ));
    }
    let blocks = match spec.shape {
        NdShape::Line { wx: 0 } => (outer * n * inner).div_ceil(256),
        NdShape::Line { wx } => {
            outer * n.div_ceil(NdSpec::line_tile(wx)) * inner.div_ceil(wx as usize)
        }
        NdShape::Window => unreachable!("a line spec"),
    };
    let grid = blocks.min((device.multiprocessor_count() * BLOCKS_PER_SM * 4) as usize) as u32;
    // Taps beyond the inline ones travel in a device array, alive until the launch is
    // queued (its buffer returns to the pool in stream order).
    let long = if op == WindowOp::Sum && k > TAPS {
        Some(DeviceArray::<f64>::from_slice(device, taps)?)
    } else {
        None
    };
    let mut inline = [0i64; TAPS];
    if op == WindowOp::Sum {
        for (w, &t) in inline.iter_mut().zip(taps) {
            *w = t.to_bits() as i64;
        }
    }
    let f = kernel(device, &spec)?;
    let xo = x.operand()?;
    let oo = out.operand()?;
    let lo = long.as_ref().map(|l| l.operand()).transpose()?;
    let mut args = KernelArgs::new();
    args.ptr(xo.ptr())
        .ptr(oo.ptr())
        .i64(outer as i64)
        .i64(n as i64)
        .i64(inner as i64)
        .i64(k as i64)
        .i64(start as i64)
        .i64(mode.code())
        .push_f64(mode.cval())
        .i64s(&inline)
        .ptr(lo.as_ref().map_or(0, |l| l.ptr()));
    // SAFETY: the arguments follow the line wrapper's parameter list (two pointers, six
    // long longs, a double, the taps struct of TAPS doubles, a pointer). `x` and `out` are
    // C-contiguous operands of outer * n * inner elements (checked by `Operand`), which is
    // all the kernel touches: boundary indices are mapped into 0..n or replaced by cval.
    // The long taps array holds k values whenever k > TAPS; `shared` is what the kernel's
    // tiles and taps take for this k.
    unsafe { args.launch_with(device, &f, (grid.max(1), 1, 1), (256, 1, 1), shared as u32) }
}

/// The window of an n-d filter: its shape, its origin per axis, what it computes, and its
/// weights (`Sum`) or footprint (`Min`, `Max`, `Rank`; `None` for the whole box).
pub(crate) struct Window<'a> {
    pub(crate) shape: Vec<usize>,
    /// SciPy's origin per axis: the window's first element is at `-origin - shape / 2`.
    pub(crate) origin: Vec<isize>,
    pub(crate) op: WindowOp,
    pub(crate) weights: Option<&'a DeviceArray<f64>>,
    pub(crate) footprint: Option<&'a DeviceArray<bool>>,
    /// The element selected by `Rank` (0 is the smallest).
    pub(crate) kth: usize,
}

/// An n-d window filter of the C-contiguous `x` into the C-contiguous `out` (one shape).
/// The weights and footprint are C-contiguous arrays of the window's shape.
pub(crate) fn window<T: Element, U: Element>(
    op_name: &'static str,
    x: &DeviceArray<T>,
    out: &DeviceArray<U>,
    w: &Window<'_>,
    mode: Mode,
) -> Result<()> {
    debug_assert!(x.layout().is_c_contiguous() && out.layout().is_c_contiguous());
    let rank = x.ndim();
    if rank > MAX_RANK {
        return Err(Error::invalid(
            op_name,
            format!("arrays of rank {rank} (at most {MAX_RANK})"),
        ));
    }
    if x.size() == 0 {
        return Ok(());
    }
    let device = x.device();
    let spec = NdSpec {
        shape: NdShape::Window,
        op: w.op,
        input: T::DTYPE,
        output: U::DTYPE,
    };
    let mut geom = [0i64; 4 + 3 * MAX_RANK];
    geom[0] = rank as i64;
    geom[1] = x.size() as i64;
    geom[2] = w.shape.iter().product::<usize>() as i64;
    geom[3] = w.kth as i64;
    for d in 0..rank {
        geom[4 + d] = x.shape()[d] as i64;
        geom[4 + MAX_RANK + d] = w.shape[d] as i64;
        geom[4 + 2 * MAX_RANK + d] = -(w.origin[d] as i64) - (w.shape[d] / 2) as i64;
    }
    let grid = x
        .size()
        .div_ceil(256)
        .min((device.multiprocessor_count() * BLOCKS_PER_SM * 4) as usize) as u32;
    let f = kernel(device, &spec)?;
    let xo = x.operand()?;
    let oo = out.operand()?;
    let wo = w.weights.map(|a| a.operand()).transpose()?;
    let fo = w.footprint.map(|a| a.operand()).transpose()?;
    if let Some(a) = w.weights {
        debug_assert!(a.layout().is_c_contiguous() && a.shape() == w.shape.as_slice());
    }
    if let Some(a) = w.footprint {
        debug_assert!(a.layout().is_c_contiguous() && a.shape() == w.shape.as_slice());
    }
    let mut args = KernelArgs::new();
    args.ptr(xo.ptr())
        .ptr(oo.ptr())
        .i64s(&geom)
        .ptr(wo.as_ref().map_or(0, |o| o.ptr()))
        .ptr(fo.as_ref().map_or(0, |o| o.ptr()))
        .i64(mode.code())
        .push_f64(mode.cval());
    // SAFETY: the arguments follow the window wrapper's parameter list (two pointers, the
    // nd_geom struct of 4 + 3 * MAX_RANK long longs, two pointers, a long long, a double).
    // `x` and `out` are C-contiguous operands of `size` elements of the geometry's shape;
    // the kernel maps every index into the shape or uses cval. Weights (read only by
    // `Sum`, which always has them) and the footprint (null: every element) are
    // C-contiguous arrays of `wsize` elements.
    unsafe { args.launch(device, &f, grid.max(1)) }
}
