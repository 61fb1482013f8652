//! The launches of the ndimage family: a line pass along one axis and an n-d window.

use super::Mode;
use crate::array::DeviceArray;
use crate::element::Element;
use crate::kernels::abi::KernelArgs;
use crate::kernels::cache::kernel;
use crate::kernels::family::ndimage::{
    binary3_spec, select_spec, NdShape, NdSpec, WindowOp, MAX_RANK, NET_MAX, NET_MAX_RANK, TAPS,
    WINDOW_RANKS,
};
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
        _ => unreachable!("a line spec"),
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
    let wsize: usize = w.shape.iter().product();
    // Small box windows of rank filters select in registers through a sorting network.
    let net = w.op == WindowOp::Rank
        && w.footprint.is_none()
        && T::DTYPE == U::DTYPE
        && (1..=NET_MAX_RANK).contains(&rank)
        && wsize <= NET_MAX;
    let spec = if net {
        select_spec(T::DTYPE, rank, wsize, w.kth)
    } else {
        let narrow = x.size() <= i32::MAX as usize && out.size() <= i32::MAX as usize;
        let specialised = narrow && rank <= WINDOW_RANKS as usize;
        NdSpec {
            shape: NdShape::Window {
                rank: if specialised { rank as u8 } else { 0 },
            },
            op: w.op,
            input: T::DTYPE,
            output: U::DTYPE,
        }
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
    if net {
        args.ptr(xo.ptr())
            .ptr(oo.ptr())
            .i64s(&geom)
            .i64(mode.code())
            .push_f64(mode.cval());
        // SAFETY: the arguments follow the select wrapper's parameter list (two pointers,
        // the nd_geom struct, a long long, a double). `x` and `out` are C-contiguous
        // operands of `size` elements of the geometry's shape; the kernel gathers the
        // `wsize` elements of each box (the spec's count) with every index mapped into the
        // shape or replaced by cval.
        return unsafe { args.launch(device, &f, grid.max(1)) };
    }
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

/// Whether the byte-parallel binary kernel ([`binary3`]) takes `x`: a C-contiguous 2-D
/// bool array whose rows are a multiple of 16 bytes, starting on a 16-byte boundary.
pub(crate) fn binary3_fits(x: &DeviceArray<bool>) -> bool {
    x.ndim() == 2
        && x.layout().is_c_contiguous()
        && x.shape()[1].is_multiple_of(16)
        && x.first_ptr().is_multiple_of(16)
}

/// Binary erosion (`dilate` false: every input the structure reads is true) or dilation
/// (one is) of `x` into `out` (new, of `x`'s shape) by the structure of at most 3 x 3 whose
/// nine `bits` (bit `3 (dy + 1) + dx + 1`: the output at `(y, x)` reads `(y + dy, x + dx)`)
/// the caller built, with `border` outside the image. `x` satisfies [`binary3_fits`].
pub(crate) fn binary3(
    x: &DeviceArray<bool>,
    out: &DeviceArray<bool>,
    bits: u32,
    dilate: bool,
    border: bool,
) -> Result<()> {
    debug_assert!(binary3_fits(x) && out.shape() == x.shape() && out.layout().is_c_contiguous());
    debug_assert!(bits < 512);
    if x.size() == 0 {
        return Ok(());
    }
    let device = x.device();
    let spec = binary3_spec(if dilate { WindowOp::Max } else { WindowOp::Min });
    let f = kernel(device, &spec)?;
    let (xo, oo) = (x.operand()?, out.operand()?);
    let (h, w) = (x.shape()[0], x.shape()[1]);
    let mut args = KernelArgs::new();
    args.ptr(xo.ptr())
        .ptr(oo.ptr())
        .i64(h as i64)
        .i64(w as i64)
        .i64(i64::from(bits))
        .i64(i64::from(border));
    // SAFETY: the arguments follow the binary3 wrapper's parameter list (two pointers, four
    // long longs). `x` is a C-contiguous (h, w) bool operand with w a multiple of 16 and a
    // 16-byte aligned start (`binary3_fits`), so every 16-byte load of a row and the byte
    // on each side that the kernel reads (only inside the row) are in the buffer; `out` is
    // new, C-contiguous of the same shape (its allocation is 16-byte aligned).
    unsafe { args.launch(device, &f, grid(device, h * (w / 16))) }
}

/// The `nd_geom` words of an array of `shape` and a window of `wsize` elements (the
/// window's own shape and start unused).
fn geom(shape: &[usize], wsize: usize) -> [i64; 4 + 3 * MAX_RANK] {
    let mut g = [0i64; 4 + 3 * MAX_RANK];
    g[0] = shape.len() as i64;
    g[1] = shape.iter().product::<usize>() as i64;
    g[2] = wsize as i64;
    for (d, &n) in shape.iter().enumerate() {
        g[4 + d] = n as i64;
    }
    g
}

fn grid(device: &crate::Device, threads: usize) -> u32 {
    threads.div_ceil(256).clamp(
        1,
        (device.multiprocessor_count() * BLOCKS_PER_SM * 4) as usize,
    ) as u32
}

/// Connected components of the C-contiguous `mask` under the C-contiguous `structure`
/// (3 along every axis): labels numbered 1.. in the raster order of each component's
/// first element, and their count (one read of the last inclusive sum).
pub(crate) fn label(
    op: &'static str,
    mask: &DeviceArray<bool>,
    structure: &DeviceArray<bool>,
) -> Result<(DeviceArray<i32>, usize)> {
    debug_assert!(mask.layout().is_c_contiguous() && structure.layout().is_c_contiguous());
    debug_assert!(structure.shape().iter().all(|&d| d == 3) && structure.ndim() == mask.ndim());
    let device = mask.device();
    let n = mask.size();
    if mask.ndim() > MAX_RANK || n > i32::MAX as usize {
        return Err(Error::invalid(
            op,
            format!("arrays of rank at most {MAX_RANK} and fewer than 2^31 elements"),
        ));
    }
    let out = DeviceArray::<i32>::alloc_for(op, device, mask.shape())?;
    if n == 0 {
        return Ok((out, 0));
    }
    let parents = DeviceArray::<i32>::alloc_for(op, device, &[n])?;
    let g = geom(mask.shape(), structure.size());
    let mo = mask.operand()?;
    let so = structure.operand()?;
    let po = parents.operand()?;
    let oo = out.operand()?;
    let run = |step: u8, csum: u64| -> Result<()> {
        let f = kernel(device, &crate::kernels::family::ndimage::label_spec(step))?;
        let mut args = KernelArgs::new();
        args.ptr(mo.ptr())
            .ptr(po.ptr())
            .ptr(so.ptr())
            .ptr(oo.ptr())
            .ptr(csum)
            .i64s(&g);
        // SAFETY: the arguments follow the label wrapper (five pointers, then nd_geom).
        // The mask, the parents and the output hold n elements (C-contiguous, checked by
        // `Operand`), the structure 3^rank; every index the kernel forms is an element
        // index in 0..n (neighbours are checked against the shape) or a parent, which is
        // one. `csum` (n long longs) is read only by the last step, which gets it.
        unsafe { args.launch(device, &f, grid(device, n)) }
    };
    for step in 0..4 {
        run(step, 0)?;
    }
    let csum = out.reshape([n])?.cumsum(0)?;
    let count = csum
        .slice([crate::SliceElem::Index(n as isize - 1)])?
        .to_scalar()? as usize;
    let co = csum.operand()?;
    debug_assert!(co.layout().is_c_contiguous() && co.layout().size() == n);
    run(4, co.ptr())?;
    Ok((out, count))
}

/// One pass of the distance transform along `axis` of the C-contiguous `f` (squared
/// distances; on the first pass, the mask as 0 / 1), `s2` the squared sampling.
pub(crate) fn edt_pass(
    op: &'static str,
    f: &DeviceArray<f64>,
    axis: usize,
    s2: f64,
    first: bool,
) -> Result<()> {
    debug_assert!(f.layout().is_c_contiguous());
    let device = f.device();
    let (outer, n, inner) = split_axis(f.shape(), axis);
    let lines = outer * inner;
    if lines * n == 0 {
        return Ok(());
    }
    if n > i32::MAX as usize {
        return Err(Error::invalid(op, "an axis of 2^31 elements or more"));
    }
    // The scratch of a line (20 n + 8 bytes) in shared memory where a block of at least one
    // line fits the default 48 KB (lines of up to 2457 elements): every step of the
    // serial envelope then reads and writes shared memory instead of global memory.
    let per_line = 20 * n + 8;
    let in_shared = (SHARED_DEFAULT / per_line).min(256);
    let scratch = if in_shared == 0 { lines } else { 0 };
    let v = DeviceArray::<i32>::alloc_for(op, device, &[scratch, n])?;
    let z = DeviceArray::<f64>::alloc_for(op, device, &[scratch, n + 1])?;
    let h = DeviceArray::<f64>::alloc_for(op, device, &[scratch, n])?;
    let fk = kernel(device, &crate::kernels::family::ndimage::edt_spec())?;
    let (fo, vo, zo, ho) = (f.operand()?, v.operand()?, z.operand()?, h.operand()?);
    let mut args = KernelArgs::new();
    args.ptr(fo.ptr())
        .i64(outer as i64)
        .i64(n as i64)
        .i64(inner as i64)
        .push_f64(s2)
        .i64(i64::from(first))
        .i64(i64::from(in_shared > 0))
        .ptr(vo.ptr())
        .ptr(zo.ptr())
        .ptr(ho.ptr());
    if in_shared > 0 {
        let block = in_shared.min(lines);
        let grid = lines
            .div_ceil(block)
            .min((device.multiprocessor_count() * BLOCKS_PER_SM * 32) as usize)
            as u32;
        let shared = (block * per_line) as u32;
        // SAFETY: the arguments follow the EDT wrapper (a pointer, three long longs, a
        // double, two long longs, three pointers). `f` holds outer * n * inner elements;
        // each of the `block` threads of a block uses its own n + 1, n and n scratch
        // values of the block's `shared` bytes (block * (20 n + 8)); the global scratch
        // arrays are empty and not read.
        return unsafe {
            args.launch_with(
                device,
                &fk,
                (grid.max(1), 1, 1),
                (block as u32, 1, 1),
                shared,
            )
        };
    }
    // SAFETY: as above, with each of the `lines` threads using its own n, n + 1 and n
    // scratch values of `v`, `z` and `h`, which hold lines times as many.
    unsafe { args.launch(device, &fk, grid(device, lines)) }
}

/// The buffers of one measurement pass (`nd_measure<in_t, WHAT>`): slots' accumulators,
/// positions and auxiliary values, each of `slots` elements (`a1` of `slots * rank` for
/// the centre of mass).
pub(crate) struct Measure<'a> {
    pub(crate) a0: Option<&'a DeviceArray<f64>>,
    pub(crate) a1: Option<&'a DeviceArray<f64>>,
    pub(crate) p0: Option<&'a DeviceArray<u64>>,
    pub(crate) p1: Option<&'a DeviceArray<u64>>,
    pub(crate) aux0: Option<&'a DeviceArray<f64>>,
    pub(crate) aux1: Option<&'a DeviceArray<f64>>,
}

/// One measurement pass `what` over the C-contiguous `input` and `labels` (one shape),
/// `lut` the slot of each label (C-contiguous, -1 where unmeasured, every slot below
/// `slots`).
pub(crate) fn measure<T: Element>(
    input: &DeviceArray<T>,
    labels: &DeviceArray<i32>,
    lut: &DeviceArray<i32>,
    slots: usize,
    what: u8,
    m: &Measure<'_>,
) -> Result<()> {
    debug_assert!(input.layout().is_c_contiguous() && labels.layout().is_c_contiguous());
    debug_assert!(input.shape() == labels.shape() && lut.layout().is_c_contiguous());
    let device = input.device();
    let n = input.size();
    if n == 0 || slots == 0 {
        return Ok(());
    }
    let rank = input.ndim();
    // Each buffer the pass writes or reads must hold its slots (checked, not trusted).
    let need = |a: Option<usize>, len: usize, name: &str| -> Result<()> {
        match a {
            Some(have) if have >= len => Ok(()),
            _ => Err(Error::invalid(
                "measure",
                format!("buffer {name} missing or short"),
            )),
        }
    };
    let f64s = |a: Option<&DeviceArray<f64>>| a.map(|a| a.size());
    let u64s = |a: Option<&DeviceArray<u64>>| a.map(|a| a.size());
    match what {
        0 | 2 => {
            need(f64s(m.a0), slots, "a0")?;
            need(f64s(m.a1), slots, "a1")?;
        }
        1 => {
            need(f64s(m.a0), slots, "a0")?;
            need(f64s(m.aux0), slots, "aux0")?;
        }
        3 => {
            need(u64s(m.p0), slots, "p0")?;
            need(u64s(m.p1), slots, "p1")?;
            need(f64s(m.aux0), slots, "aux0")?;
            need(f64s(m.aux1), slots, "aux1")?;
        }
        _ => {
            need(f64s(m.a0), slots, "a0")?;
            need(f64s(m.a1), slots * rank, "a1")?;
        }
    }
    let spec = crate::kernels::family::ndimage::measure_spec(T::DTYPE, what);
    let f = kernel(device, &spec)?;
    let io = input.operand()?;
    let lo = labels.operand()?;
    let uo = lut.operand()?;
    let ptr = |a: Option<&DeviceArray<f64>>| -> Result<u64> {
        Ok(a.map(|a| a.operand().map(|o| o.ptr()))
            .transpose()?
            .unwrap_or(0))
    };
    let uptr = |a: Option<&DeviceArray<u64>>| -> Result<u64> {
        Ok(a.map(|a| a.operand().map(|o| o.ptr()))
            .transpose()?
            .unwrap_or(0))
    };
    let mut args = KernelArgs::new();
    args.ptr(io.ptr())
        .ptr(lo.ptr())
        .ptr(uo.ptr())
        .i64(lut.size() as i64)
        .ptr(ptr(m.a0)?)
        .ptr(ptr(m.a1)?)
        .ptr(uptr(m.p0)?)
        .ptr(uptr(m.p1)?)
        .ptr(ptr(m.aux0)?)
        .ptr(ptr(m.aux1)?)
        .i64s(&geom(input.shape(), 1));
    // SAFETY: the arguments follow the measure wrapper (three pointers, a long long, six
    // pointers, nd_geom). `input` and `labels` hold n elements; labels outside 0..nlut
    // are skipped and `lut` holds nlut slots below `slots`; the buffers pass `what` uses
    // were checked above to hold their slots (the others are never touched).
    unsafe { args.launch(device, &f, grid(device, n)) }
}

/// The resampling of the C-contiguous `x` into the C-contiguous `out` at coordinates from
/// `coords` (C-contiguous, `(rank, out.size())`) or, without them, from the affine map
/// `matrix` (rank x rank, row-major) and `offset` of each output index; spline `order`
/// 0 or 1.
#[allow(clippy::too_many_arguments)]
pub(crate) fn interp<S: Element, T: Element>(
    op: &'static str,
    x: &DeviceArray<S>,
    out: &DeviceArray<T>,
    coords: Option<&DeviceArray<f64>>,
    affine: (&[f64], &[f64]),
    order: u8,
    mode: Mode,
    shift: f64,
) -> Result<()> {
    debug_assert!(x.layout().is_c_contiguous() && out.layout().is_c_contiguous() && order <= 5);
    // Orders 0 and 1 read the input itself, higher ones its f64 spline coefficients.
    debug_assert!(if order > 1 {
        S::DTYPE == crate::DType::F64
    } else {
        S::DTYPE == T::DTYPE
    });
    let rank = x.ndim();
    if rank > MAX_RANK || rank == 0 {
        return Err(Error::invalid(
            op,
            format!("arrays of rank {rank} (1 to {MAX_RANK})"),
        ));
    }
    if out.size() == 0 {
        return Ok(());
    }
    if x.size() == 0 {
        return Err(Error::invalid(op, "the input is empty"));
    }
    let device = x.device();
    // nd_affine: rank, size, in_shape[8], out_shape[8], m[64], off[8].
    let mut words = [0i64; 2 + 2 * MAX_RANK + MAX_RANK * MAX_RANK + MAX_RANK];
    words[0] = rank as i64;
    words[1] = out.size() as i64;
    let (m, off) = affine;
    for d in 0..rank {
        words[2 + d] = x.shape()[d] as i64;
        words[2 + MAX_RANK + d] = if coords.is_some() {
            0
        } else {
            out.shape()[d] as i64
        };
    }
    if coords.is_none() {
        debug_assert!(m.len() == rank * rank && off.len() == rank && out.ndim() == rank);
        for (w, v) in words[2 + 2 * MAX_RANK..].iter_mut().zip(m) {
            *w = v.to_bits() as i64;
        }
        for (w, v) in words[2 + 2 * MAX_RANK + MAX_RANK * MAX_RANK..]
            .iter_mut()
            .zip(off)
        {
            *w = v.to_bits() as i64;
        }
    }
    let co = match coords {
        Some(c) => {
            if !c.layout().is_c_contiguous() || c.size() != rank * out.size() {
                return Err(Error::invalid(
                    op,
                    "`coords` must hold rank values per output",
                ));
            }
            Some(c.operand()?)
        }
        None => None,
    };
    let narrow = x.size() <= i32::MAX as usize && out.size() <= i32::MAX as usize;
    let spec = crate::kernels::family::ndimage::interp_spec_sized(
        T::DTYPE,
        coords.is_none(),
        order,
        rank,
        narrow,
    );
    let f = kernel(device, &spec)?;
    let (xo, oo) = (x.operand()?, out.operand()?);
    let mut args = KernelArgs::new();
    args.ptr(xo.ptr())
        .ptr(oo.ptr())
        .ptr(co.as_ref().map_or(0, |c| c.ptr()))
        .i64s(&words)
        .i64(mode.interp_code())
        .push_f64(mode.cval())
        .push_f64(shift);
    // SAFETY: the arguments follow the resampling wrapper (three pointers, nd_affine of
    // 2 + 2 * 8 + 64 + 8 words, a long long, two doubles). `out` holds `size` elements and
    // `coords`, when the kernel reads it (not AFFINE), rank * size (checked above); every
    // input index is mapped into the input's shape (C-contiguous, non-empty) or replaced
    // by cval.
    unsafe { args.launch(device, &f, grid(device, out.size())) }
}
