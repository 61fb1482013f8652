//! Convolution and correlation (SciPy's `convolve`, `correlate`, `fftconvolve`,
//! `oaconvolve`, `convolve2d`, `correlate2d`): a direct kernel (a shared-memory tile with
//! a register window for 1-D and 2-D, every boundary rule included; a thread per output
//! for higher ranks and for 2-D kernels too large for a tile) or the FFT (`rfftn`, a
//! product, `irfftn`), chosen by SciPy's cost model for [`Method::Auto`].

use super::SignalFloat;
use crate::array::DeviceArray;
use crate::fft::{self, Norm};
use crate::kernels::cache::kernel;
use crate::kernels::family::signal::{ConvNdShape, ConvTileShape, SignalKernel, SignalSpec};
use crate::kernels::BLOCK;
use crate::ops::launch::grid_for;
use crate::shape::SliceElem;
use crate::{Error, Result};

/// Which part of the full convolution is returned (SciPy's `mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Every point of overlap: `n + m - 1` along each axis.
    Full,
    /// The shape of the first input, centred on the full result.
    Same,
    /// Only where one input covers the other: `|n - m| + 1` along each axis (one input
    /// must be at least as large as the other along every axis).
    Valid,
}

/// How [`convolve`] and [`correlate`] compute (SciPy's `method`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// The faster of the two by SciPy's cost model (`choose_conv_method`).
    Auto,
    /// The sum of products, exact to rounding.
    Direct,
    /// Through the FFT: `O(N log N)`, errors of the size of the transform's rounding.
    Fft,
}

/// What [`convolve2d`] reads outside the first input (SciPy's `boundary` and
/// `fillvalue`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Boundary<T> {
    /// A constant value (SciPy's `'fill'`, `fillvalue`).
    Fill(T),
    /// The input repeated periodically (`'wrap'`).
    Wrap,
    /// The input mirrored with the edge repeated (`'symm'`).
    Symm,
}

/// Longest filter of the 1-D tile kernel (its taps and its tile sit in shared memory).
pub(crate) const CONV1D_MAX_TAPS: usize = 2048;

/// The output shape and the offset of its first element in the full convolution.
fn out_plan(
    op: &'static str,
    s1: &[usize],
    s2: &[usize],
    mode: Mode,
) -> Result<(Vec<usize>, Vec<isize>)> {
    if s1.len() != s2.len() {
        return Err(Error::invalid(
            op,
            format!("in1 and in2 must have the same rank (shapes {s1:?} and {s2:?})"),
        ));
    }
    if s1.contains(&0) {
        return Err(Error::invalid(op, format!("in1 is empty (shape {s1:?})")));
    }
    if s2.contains(&0) {
        return Err(Error::invalid(op, format!("in2 is empty (shape {s2:?})")));
    }
    if mode == Mode::Valid {
        let ge = s1.iter().zip(s2).all(|(a, b)| a >= b);
        let le = s1.iter().zip(s2).all(|(a, b)| a <= b);
        if !ge && !le {
            return Err(Error::invalid(
                op,
                format!(
                    "for Mode::Valid one input must be at least as large as the other along every axis (shapes {s1:?} and {s2:?})"
                ),
            ));
        }
    }
    Ok(s1
        .iter()
        .zip(s2)
        .map(|(&n, &m)| match mode {
            Mode::Full => (n + m - 1, 0),
            Mode::Same => (n, ((m - 1) / 2) as isize),
            Mode::Valid => (n.abs_diff(m) + 1, (n.min(m) - 1) as isize),
        })
        .unzip())
}

/// SciPy's `_fftconv_faster`: whether the FFT is expected to beat the direct sum.
pub(crate) fn fft_faster(s1: &[usize], s2: &[usize], mode: Mode) -> bool {
    let prod = |s: &[usize]| s.iter().map(|&v| v as f64).product::<f64>();
    let full: Vec<usize> = s1.iter().zip(s2).map(|(n, m)| n + m - 1).collect();
    let out: Vec<usize> = match mode {
        Mode::Full => full.clone(),
        Mode::Valid => s1.iter().zip(s2).map(|(n, m)| n.abs_diff(*m) + 1).collect(),
        Mode::Same => s1.to_vec(),
    };
    let direct = if s1.len() == 1 {
        let (a, b) = (s1[0] as f64, s2[0] as f64);
        match mode {
            Mode::Full => a * b,
            Mode::Valid if b >= a => (b - a + 1.0) * a,
            Mode::Valid => (a - b + 1.0) * b,
            Mode::Same if a < b => a * b,
            Mode::Same => a * b - ((s2[0] / 2) as f64) * (s2[0].div_ceil(2) as f64),
        }
    } else {
        match mode {
            Mode::Full | Mode::Valid => prod(s1).min(prod(s2)) * prod(&out),
            Mode::Same => prod(s1) * prod(s2),
        }
    };
    let n = prod(&full);
    let fft_ops = 3.0 * n * n.ln();
    let offset = if s1.len() == 1 { -1e-3 } else { -1e-4 };
    let (c_fft, c_direct, c_off) = if s1.len() == 1 {
        match mode {
            Mode::Valid => (1.89095737e-9, 2.1364985e-10, offset),
            Mode::Full => (1.7649070e-9, 2.1414831e-10, offset),
            Mode::Same if prod(s2) <= prod(s1) => (3.2646654e-9, 2.8478277e-10, offset),
            Mode::Same => (3.21635404e-9, 1.1773253e-8, -1e-5),
        }
    } else {
        match mode {
            Mode::Valid => (1.85927e-9, 2.11242e-8, offset),
            Mode::Full => (1.99817e-9, 1.66174e-8, offset),
            Mode::Same => (2.04735e-9, 1.55367e-8, offset),
        }
    };
    c_fft * fft_ops < c_direct * direct + c_off
}

/// The smallest `m >= n` whose prime factors are 2, 3, 5 and 7 (SciPy's
/// `next_fast_len` for real transforms; cuFFT's fast sizes).
pub(crate) fn next_fast_len(n: usize) -> usize {
    let mut m = n.max(1);
    loop {
        let mut r = m;
        for p in [2, 3, 5, 7] {
            while r.is_multiple_of(p) {
                r /= p;
            }
        }
        if r == 1 {
            return m;
        }
        m += 1;
    }
}

/// `out = sum_j x[o + start - j] v[j]` over every axis, by the direct kernels.
/// `boundary`: 0 fill (with `fill`), 1 wrap, 2 symm.
pub(crate) fn direct<T: SignalFloat>(
    op: &'static str,
    x: &DeviceArray<T>,
    v: &DeviceArray<T>,
    out_shape: &[usize],
    start: &[isize],
    boundary: i64,
    fill: f64,
) -> Result<DeviceArray<T>> {
    let device = x.device();
    v.used_by(op, device)?;
    if out_shape.len() > 8 {
        return Err(Error::invalid(
            op,
            format!("at most 8 axes (got {})", out_shape.len()),
        ));
    }
    let out = DeviceArray::<T>::alloc_for(op, device, out_shape)?;
    if out.size() == 0 {
        return Ok(out);
    }
    if let Some(shape) = tile_shape(x, v, out_shape, start, boundary) {
        if shape.shared_elems() * T::DTYPE.size() <= TILE_SHARED_BYTES {
            launch_tile(x, &v.contiguous()?, &out, &shape, fill)?;
            return Ok(out);
        }
    }
    let spec = SignalSpec {
        kernel: SignalKernel::ConvNd {
            rank: if out_shape.len() <= crate::kernels::family::signal::CONV_RANKS {
                out_shape.len() as u8
            } else {
                0
            },
        },
        dtype: T::DTYPE,
    };
    let f = kernel(device, &spec)?;
    let shape = ConvNdShape::new(
        boundary,
        out_shape,
        (x.shape(), x.strides()),
        (v.shape(), v.strides()),
        start,
    );
    let grid = grid_for(out.size(), device.multiprocessor_count() * f.blocks_per_sm);
    let (xo, vo, oo) = (x.operand()?, v.operand()?, out.operand()?);
    // SAFETY: `f` is `spec`'s kernel for T; `x` and `v` are operands of their own layouts
    // (checked by `operand` to stay in their buffers) and the shape carries exactly those
    // extents and strides, with every index folded into (or, for the fill, tested against)
    // the extents before it is read; every extent is at least 1 (`out_plan`); `out` is new
    // and contiguous of `out_shape`.
    unsafe {
        spec.launch_convnd(
            device,
            &f,
            grid,
            (oo.ptr(), xo.ptr(), vo.ptr()),
            &shape,
            fill,
        )?
    };
    Ok(out)
}

/// Dynamic shared memory the tile kernel may take (what every device gives unasked).
const TILE_SHARED_BYTES: usize = 48 * 1024;

/// The tile kernel's view of a convolution of rank 1 or 2 (a 1-D one as one row), or
/// `None` for other ranks.
fn tile_shape<T: SignalFloat>(
    x: &DeviceArray<T>,
    v: &DeviceArray<T>,
    out: &[usize],
    start: &[isize],
    boundary: i64,
) -> Option<ConvTileShape> {
    match out.len() {
        1 => Some(ConvTileShape {
            x: [1, x.shape()[0]],
            x_strides: [0, x.strides()[0]],
            v: [1, v.shape()[0]],
            out: [1, out[0]],
            start: [0, start[0]],
            boundary,
        }),
        2 => Some(ConvTileShape {
            x: [x.shape()[0], x.shape()[1]],
            x_strides: [x.strides()[0], x.strides()[1]],
            v: [v.shape()[0], v.shape()[1]],
            out: [out[0], out[1]],
            start: [start[0], start[1]],
            boundary,
        }),
        _ => None,
    }
}

/// Runs the tile kernel into `out` (new, contiguous, of `shape.out`, not empty); `v`
/// contiguous, `x` of `shape.x` with every extent at least 1, and the tile fits
/// [`TILE_SHARED_BYTES`].
fn launch_tile<T: SignalFloat>(
    x: &DeviceArray<T>,
    v: &DeviceArray<T>,
    out: &DeviceArray<T>,
    shape: &ConvTileShape,
    fill: f64,
) -> Result<()> {
    let device = x.device();
    debug_assert!(v.is_contiguous() && shape.shared_elems() * T::DTYPE.size() <= TILE_SHARED_BYTES);
    let spec = SignalSpec {
        kernel: SignalKernel::ConvTile,
        dtype: T::DTYPE,
    };
    let f = kernel(device, &spec)?;
    let grid = grid_for(
        shape.tiles() * BLOCK as usize,
        device.multiprocessor_count() * f.blocks_per_sm,
    );
    let (xo, vo, oo) = (x.operand()?, v.operand()?, out.operand()?);
    // SAFETY: `f` is `spec`'s kernel for T; `x` is an operand of its own layout (extents
    // and strides as `shape` carries them, each at least 1, every index folded into them
    // or replaced by the fill before it is read); `v` is contiguous of `shape.v`; `out` is
    // new and contiguous of `shape.out`; the caller checked the shared size.
    unsafe {
        spec.launch_conv_tile(
            device,
            &f,
            grid,
            (oo.ptr(), xo.ptr(), vo.ptr()),
            shape,
            fill,
        )
    }
}

/// The 1-D convolution of every row of `x` (rows, n) with `v` (at most 2048 taps):
/// `out[r][k] = sum_j x[r][k + start - j] v[j]` for `k < nout`, by the tile kernel.
pub(crate) fn conv_rows<T: SignalFloat>(
    op: &'static str,
    x: &DeviceArray<T>,
    v: &DeviceArray<T>,
    nout: usize,
    start: isize,
) -> Result<DeviceArray<T>> {
    let device = x.device();
    v.used_by(op, device)?;
    let v = v.contiguous()?;
    let (rows, n) = (x.shape()[0], x.shape()[1]);
    debug_assert!(v.ndim() == 1 && v.size() >= 1 && v.size() <= CONV1D_MAX_TAPS);
    let out = DeviceArray::<T>::alloc_for(op, device, &[rows, nout])?;
    if out.size() == 0 {
        return Ok(out);
    }
    if n == 0 {
        return DeviceArray::zeros(device, &[rows, nout][..]);
    }
    let shape = ConvTileShape {
        x: [rows, n],
        x_strides: [x.strides()[0], x.strides()[1]],
        v: [1, v.size()],
        out: [rows, nout],
        start: [0, start],
        boundary: 0,
    };
    launch_tile(x, &v, &out, &shape, 0.0)?;
    Ok(out)
}

/// `a` reversed along every axis (a view).
fn reversed<T: SignalFloat>(a: &DeviceArray<T>) -> Result<DeviceArray<T>> {
    let axes: Vec<isize> = (0..a.ndim() as isize).collect();
    a.flip(&axes[..])
}

/// The convolution of two arrays of the same rank (SciPy's `signal.convolve`): `mode`
/// chooses the part returned, `method` the algorithm ([`Method::Auto`]: SciPy's cost
/// model). Direct 1-D and 2-D convolutions run as shared-memory tiles (each thread sums
/// seven neighbouring outputs from a register window); higher ranks, and 2-D kernels too
/// large for a tile, a thread per output. 0-d inputs give their product.
///
/// ```no_run
/// use cuarray::signal::{self, Method, Mode};
/// use cuarray::DeviceArray;
/// let dev = cuarray::Device::new(0)?;
/// let a = DeviceArray::from_slice(&dev, &[1.0f64, 2.0, 3.0])?;
/// let v = DeviceArray::from_slice(&dev, &[0.0f64, 1.0, 0.5])?;
/// let full = signal::convolve(&a, &v, Mode::Full, Method::Direct)?;
/// assert_eq!(full.to_host()?, vec![0.0, 1.0, 2.5, 4.0, 1.5]);
/// let same = signal::convolve(&a, &v, Mode::Same, Method::Fft)?;
/// assert!((same.to_host()?[1] - 2.5).abs() < 1e-12);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] when the ranks differ, an input is empty, or (for
/// [`Mode::Valid`]) neither input is at least as large as the other along every axis;
/// [`Error::DeviceMismatch`].
pub fn convolve<T: SignalFloat>(
    in1: &DeviceArray<T>,
    in2: &DeviceArray<T>,
    mode: Mode,
    method: Method,
) -> Result<DeviceArray<T>> {
    conv("convolve", in1, in2, mode, method)
}

fn conv<T: SignalFloat>(
    op: &'static str,
    in1: &DeviceArray<T>,
    in2: &DeviceArray<T>,
    mode: Mode,
    method: Method,
) -> Result<DeviceArray<T>> {
    if in1.ndim() == 0 && in2.ndim() == 0 {
        return in1.mul(in2);
    }
    let (out, start) = out_plan(op, in1.shape(), in2.shape(), mode)?;
    let use_fft = match method {
        Method::Auto => fft_faster(in1.shape(), in2.shape(), mode),
        Method::Direct => false,
        Method::Fft => true,
    };
    if use_fft {
        fft_conv(op, in1, in2, mode, None)
    } else {
        direct(op, in1, in2, &out, &start, 0, 0.0)
    }
}

/// The cross-correlation of two arrays of the same rank (SciPy's `signal.correlate`):
/// `z[k] = sum_l in1[l + k - off] in2[l]`, the convolution of `in1` with `in2` reversed
/// along every axis (for 1-D inputs NumPy's `correlate`).
///
/// ```no_run
/// use cuarray::signal::{self, Method, Mode};
/// use cuarray::DeviceArray;
/// let dev = cuarray::Device::new(0)?;
/// let a = DeviceArray::from_slice(&dev, &[1.0f64, 2.0, 3.0])?;
/// let v = DeviceArray::from_slice(&dev, &[0.0f64, 1.0, 0.5])?;
/// let c = signal::correlate(&a, &v, Mode::Full, Method::Direct)?;
/// assert_eq!(c.to_host()?, vec![0.5, 2.0, 3.5, 3.0, 0.0]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// As [`convolve`].
pub fn correlate<T: SignalFloat>(
    in1: &DeviceArray<T>,
    in2: &DeviceArray<T>,
    mode: Mode,
    method: Method,
) -> Result<DeviceArray<T>> {
    conv("correlate", in1, &reversed(in2)?, mode, method)
}

/// Normalised, sorted FFT axes (`None`: every axis).
fn fft_axes(op: &'static str, ndim: usize, axes: Option<&[isize]>) -> Result<Vec<usize>> {
    let Some(axes) = axes else {
        return Ok((0..ndim).collect());
    };
    let mut out = Vec::with_capacity(axes.len());
    for &a in axes {
        let k = if a < 0 { a + ndim as isize } else { a };
        if k < 0 || k >= ndim as isize {
            return Err(Error::AxisOutOfRange { op, axis: a, ndim });
        }
        if out.contains(&(k as usize)) {
            return Err(Error::invalid(
                op,
                format!("axes {axes:?}: an axis is repeated"),
            ));
        }
        out.push(k as usize);
    }
    out.sort_unstable();
    Ok(out)
}

/// Shape checks of `fftconvolve` / `oaconvolve`: the output shape and starts, the
/// non-transformed axes broadcast (equal or 1).
fn fft_plan(
    op: &'static str,
    s1: &[usize],
    s2: &[usize],
    mode: Mode,
    axes: &[usize],
) -> Result<(Vec<usize>, Vec<isize>)> {
    let a1: Vec<usize> = axes.iter().map(|&k| s1[k]).collect();
    let a2: Vec<usize> = axes.iter().map(|&k| s2[k]).collect();
    let (ao, astart) = out_plan(op, &a1, &a2, mode)?;
    let mut out = Vec::with_capacity(s1.len());
    let mut start = vec![0isize; s1.len()];
    for d in 0..s1.len() {
        if let Some(i) = axes.iter().position(|&k| k == d) {
            out.push(ao[i]);
            start[d] = astart[i];
        } else if s1[d] == s2[d] || s1[d] == 1 || s2[d] == 1 {
            out.push(s1[d].max(s2[d]));
        } else {
            return Err(Error::invalid(
                op,
                format!(
                    "in1 and in2 must match (or be 1) along the axes not transformed (shapes {s1:?} and {s2:?})"
                ),
            ));
        }
    }
    Ok((out, start))
}

/// The FFT convolution along `axes` (`None`: all), cropped to `mode`.
fn fft_conv<T: SignalFloat>(
    op: &'static str,
    in1: &DeviceArray<T>,
    in2: &DeviceArray<T>,
    mode: Mode,
    axes: Option<&[isize]>,
) -> Result<DeviceArray<T>> {
    in2.used_by(op, in1.device())?;
    if in1.ndim() != in2.ndim() {
        return Err(Error::invalid(
            op,
            format!(
                "in1 and in2 must have the same rank (shapes {:?} and {:?})",
                in1.shape(),
                in2.shape()
            ),
        ));
    }
    if in1.ndim() == 0 {
        return in1.mul(in2);
    }
    let axes = fft_axes(op, in1.ndim(), axes)?;
    let (out, start) = fft_plan(op, in1.shape(), in2.shape(), mode, &axes)?;
    let fshape: Vec<usize> = axes
        .iter()
        .map(|&k| next_fast_len(in1.shape()[k] + in2.shape()[k] - 1))
        .collect();
    let iaxes: Vec<isize> = axes.iter().map(|&k| k as isize).collect();
    let sp1 = fft::rfftn(in1, Some(&fshape[..]), &iaxes[..], Norm::Backward)?;
    let sp2 = fft::rfftn(in2, Some(&fshape[..]), &iaxes[..], Norm::Backward)?;
    let prod = sp1.mul(&sp2)?;
    let full = fft::irfftn(&prod, Some(&fshape[..]), &iaxes[..], Norm::Backward)?;
    crop(&full, &out, &start)
}

/// The block `start .. start + out` of `full` as a new contiguous array.
fn crop<T: SignalFloat>(
    full: &DeviceArray<T>,
    out: &[usize],
    start: &[isize],
) -> Result<DeviceArray<T>> {
    let spec: Vec<SliceElem> = out
        .iter()
        .zip(start)
        .map(|(&n, &s)| SliceElem::Range {
            start: Some(s),
            end: Some(s + n as isize),
            step: 1,
        })
        .collect();
    full.slice(spec)?.contiguous()
}

/// The convolution through the FFT along `axes` (`None`: every axis; SciPy's
/// `fftconvolve`); the other axes broadcast (equal extents or 1). The transform sizes
/// are the next 2-3-5-7-smooth lengths of the full result.
///
/// ```no_run
/// use cuarray::signal::{self, Mode};
/// use cuarray::DeviceArray;
/// let dev = cuarray::Device::new(0)?;
/// let x = DeviceArray::<f32>::ones(&dev, &[4, 1000])?;
/// let h = DeviceArray::<f32>::ones(&dev, &[1, 31])?;
/// let y = signal::fftconvolve(&x, &h, Mode::Same, Some(&[-1]))?; // each row filtered
/// assert_eq!(y.shape(), &[4, 1000]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// As [`convolve`], and for axes out of range or repeated, or other axes that do not
/// broadcast.
pub fn fftconvolve<T: SignalFloat>(
    in1: &DeviceArray<T>,
    in2: &DeviceArray<T>,
    mode: Mode,
    axes: Option<&[isize]>,
) -> Result<DeviceArray<T>> {
    fft_conv("fftconvolve", in1, in2, mode, axes)
}

/// The convolution by overlap-add (SciPy's `oaconvolve`): for one long input and a short
/// one along a single transformed axis, the long one is cut into blocks, each block
/// convolved through one batched FFT of a small size, and the blocks' tails added to
/// their neighbours; otherwise (several transformed axes, inputs of similar length) as
/// [`fftconvolve`]. Same results as [`fftconvolve`] to rounding.
///
/// ```no_run
/// use cuarray::signal::{self, Mode};
/// use cuarray::DeviceArray;
/// let dev = cuarray::Device::new(0)?;
/// let x = DeviceArray::<f32>::ones(&dev, &[100_000])?;
/// let h = DeviceArray::<f32>::ones(&dev, &[64])?;
/// assert_eq!(signal::oaconvolve(&x, &h, Mode::Valid, None)?.shape(), &[100_000 - 63]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// As [`fftconvolve`].
pub fn oaconvolve<T: SignalFloat>(
    in1: &DeviceArray<T>,
    in2: &DeviceArray<T>,
    mode: Mode,
    axes: Option<&[isize]>,
) -> Result<DeviceArray<T>> {
    const OP: &str = "oaconvolve";
    in2.used_by(OP, in1.device())?;
    if in1.ndim() != in2.ndim() || in1.ndim() == 0 {
        return fft_conv(OP, in1, in2, mode, axes);
    }
    let ax = fft_axes(OP, in1.ndim(), axes)?;
    let (out, start) = fft_plan(OP, in1.shape(), in2.shape(), mode, &ax)?;
    // The one transformed axis that is longer than 1, and the long/short inputs on it.
    let live: Vec<usize> = ax
        .iter()
        .copied()
        .filter(|&k| in1.shape()[k] > 1 || in2.shape()[k] > 1)
        .collect();
    let [k] = live[..] else {
        return fft_conv(OP, in1, in2, mode, axes);
    };
    let (n1, n2) = (in1.shape()[k], in2.shape()[k]);
    let (long, short, n, m) = if n1 >= n2 {
        (in1, in2, n1, n2)
    } else {
        (in2, in1, n2, n1)
    };
    // SciPy's `_calc_oa_lens`: blocks of the optimal FFT size for the short input.
    if m < 2 || n < 2 * m {
        return fft_conv(OP, in1, in2, mode, axes);
    }
    let nfft = next_fast_len((8 * m).max(64));
    let block = nfft - m + 1;
    let nblocks = n.div_ceil(block);
    // The long input moved to the last axis, zero-padded to whole blocks, cut into blocks.
    let kk = k as isize;
    let long = long.moveaxis(&[kk], &[-1])?;
    let short = short.moveaxis(&[kk], &[-1])?;
    let mut pad = vec![(0usize, 0usize); long.ndim()];
    pad[long.ndim() - 1] = (0, nblocks * block - n);
    let padded = long.pad(&pad, crate::PadMode::Constant(T::from_f64(0.0)))?;
    let mut bshape = padded.shape().to_vec();
    bshape.pop();
    bshape.extend([nblocks, block]);
    let blocks = padded.reshape(&bshape[..])?;
    let short = short.expand_dims(-2)?;
    let sb = fft::rfft(&blocks, Some(nfft), -1, Norm::Backward)?;
    let ss = fft::rfft(&short, Some(nfft), -1, Norm::Backward)?;
    let y = fft::irfft(&sb.mul(&ss)?, Some(nfft), -1, Norm::Backward)?;
    // Overlap-add: block b's outputs start at b * block; its last m - 1 spill into b + 1.
    let mut shape_out = y.shape().to_vec();
    let lead = shape_out.len() - 2;
    shape_out.truncate(lead);
    let full_len = nblocks * block + m - 1;
    let head = y.slice(range_last2(lead, 0, block))?;
    let tail = y.slice(range_last2(lead, block, nfft))?; // m - 1 values per block
    let mut pad_tail = vec![(0usize, 0usize); y.ndim()];
    pad_tail[lead + 1] = (0, block - (m - 1));
    let tail = tail.pad(&pad_tail, crate::PadMode::Constant(T::from_f64(0.0)))?;
    let mut flat = shape_out.clone();
    flat.push(nblocks * block);
    let head = head.contiguous()?.reshape(&flat[..])?;
    let tail = tail.reshape(&flat[..])?;
    let mut pad_h = vec![(0usize, 0usize); head.ndim()];
    pad_h[lead] = (0, block);
    let mut pad_t = vec![(0usize, 0usize); head.ndim()];
    pad_t[lead] = (block, 0);
    let sum = head
        .pad(&pad_h, crate::PadMode::Constant(T::from_f64(0.0)))?
        .add(&tail.pad(&pad_t, crate::PadMode::Constant(T::from_f64(0.0)))?)?;
    let mut keep = vec![
        SliceElem::Range {
            start: None,
            end: None,
            step: 1
        };
        lead
    ];
    keep.push(SliceElem::Range {
        start: Some(0),
        end: Some(full_len as isize),
        step: 1,
    });
    let full = sum.slice(keep)?.moveaxis(&[-1], &[kk])?;
    crop(&full, &out, &start)
}

/// Slices `lo..hi` of the last axis of a rank `lead + 2` array.
fn range_last2(lead: usize, lo: usize, hi: usize) -> Vec<SliceElem> {
    let mut spec = vec![
        SliceElem::Range {
            start: None,
            end: None,
            step: 1
        };
        lead + 1
    ];
    spec.push(SliceElem::Range {
        start: Some(lo as isize),
        end: Some(hi as isize),
        step: 1,
    });
    spec
}

fn conv2d<T: SignalFloat>(
    op: &'static str,
    in1: &DeviceArray<T>,
    in2: &DeviceArray<T>,
    mode: Mode,
    boundary: Boundary<T>,
) -> Result<DeviceArray<T>> {
    if in1.ndim() != 2 || in2.ndim() != 2 {
        return Err(Error::invalid(
            op,
            format!(
                "in1 and in2 must be 2-D (shapes {:?} and {:?})",
                in1.shape(),
                in2.shape()
            ),
        ));
    }
    let (out, start) = out_plan(op, in1.shape(), in2.shape(), mode)?;
    // Valid with the second input the larger: the inputs swap, as SciPy (the sum commutes).
    let (x, v) = if mode == Mode::Valid && in2.size() > in1.size() {
        (in2, in1)
    } else {
        (in1, in2)
    };
    let (b, fill) = match boundary {
        Boundary::Fill(f) => (0, f.to_f64()),
        Boundary::Wrap => (1, 0.0),
        Boundary::Symm => (2, 0.0),
    };
    direct(op, x, v, &out, &start, b, fill)
}

/// The 2-D convolution with a boundary rule (SciPy's `convolve2d`): what lies outside
/// `in1` is `boundary` ([`Boundary::Fill`] value, [`Boundary::Wrap`] periodic,
/// [`Boundary::Symm`] mirrored). Direct: shared-memory tiles with the boundary applied
/// while they are loaded (a thread per output for kernels too large for a tile).
///
/// ```no_run
/// use cuarray::signal::{self, Boundary, Mode};
/// use cuarray::DeviceArray;
/// let dev = cuarray::Device::new(0)?;
/// let img = DeviceArray::<f32>::ones(&dev, &[64, 64])?;
/// let k = DeviceArray::<f32>::full(&dev, &[3, 3], 1.0 / 9.0)?;
/// let blur = signal::convolve2d(&img, &k, Mode::Same, Boundary::Symm)?;
/// assert!((blur.to_host()?[0] - 1.0).abs() < 1e-6); // mirrored edges keep a flat image flat
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] when an input is not 2-D or is empty, or for
/// [`Mode::Valid`] as [`convolve`]; [`Error::DeviceMismatch`].
pub fn convolve2d<T: SignalFloat>(
    in1: &DeviceArray<T>,
    in2: &DeviceArray<T>,
    mode: Mode,
    boundary: Boundary<T>,
) -> Result<DeviceArray<T>> {
    conv2d("convolve2d", in1, in2, mode, boundary)
}

/// The 2-D cross-correlation with a boundary rule (SciPy's `correlate2d`): the
/// convolution with `in2` reversed along both axes.
///
/// ```no_run
/// use cuarray::signal::{self, Boundary, Mode};
/// use cuarray::DeviceArray;
/// let dev = cuarray::Device::new(0)?;
/// let a = DeviceArray::from_host(&dev, &[1.0f64, 2.0, 3.0, 4.0], &[2, 2])?;
/// let c = signal::correlate2d(&a, &a, Mode::Valid, Boundary::Fill(0.0))?;
/// assert_eq!(c.to_host()?, vec![30.0]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// As [`convolve2d`].
pub fn correlate2d<T: SignalFloat>(
    in1: &DeviceArray<T>,
    in2: &DeviceArray<T>,
    mode: Mode,
    boundary: Boundary<T>,
) -> Result<DeviceArray<T>> {
    if in2.ndim() != 2 {
        return conv2d("correlate2d", in1, in2, mode, boundary);
    }
    conv2d("correlate2d", in1, &reversed(in2)?, mode, boundary)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_follow_scipy() {
        let (o, s) = out_plan("t", &[7], &[4], Mode::Same).unwrap();
        assert_eq!((o, s), (vec![7], vec![1]));
        let (o, s) = out_plan("t", &[4], &[7], Mode::Same).unwrap();
        assert_eq!((o, s), (vec![4], vec![3]));
        let (o, s) = out_plan("t", &[3, 7], &[5, 9], Mode::Valid).unwrap();
        assert_eq!((o, s), (vec![3, 3], vec![2, 6]));
        assert!(out_plan("t", &[3, 5], &[5, 3], Mode::Valid).is_err());
        assert!(
            format!("{:?}", out_plan("t", &[0], &[3], Mode::Full).unwrap_err()).contains("in1")
        );
        assert_eq!(next_fast_len(97), 98);
        assert_eq!(next_fast_len(1), 1);
        assert_eq!(next_fast_len(4097), 4116);
    }

    #[test]
    fn auto_method_follows_scipy_cost_model() {
        // scipy.signal.choose_conv_method on float inputs of these shapes.
        assert!(!fft_faster(&[1000], &[10], Mode::Full));
        assert!(fft_faster(&[100_000], &[4096], Mode::Full));
        assert!(fft_faster(&[4096, 4096], &[5, 5], Mode::Same));
        assert!(fft_faster(&[512, 512], &[64, 64], Mode::Same));
    }
}
