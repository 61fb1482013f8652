//! IIR and FIR filtering along an axis (SciPy's `lfilter`, `sosfilt`, `filtfilt`,
//! `sosfiltfilt`, `lfilter_zi`, `sosfilt_zi`). A filter of order N in direct form II
//! transposed has a state of N values that evolves linearly with the input, so a long
//! signal runs as a chunked scan: every chunk's end state from a zero start (in
//! parallel), the true start of every chunk by a scan over the chunks (the chunk's
//! transition matrix and its powers), then every chunk's outputs (in parallel): the
//! signal is read twice and written once, whatever its length.

use super::SignalFloat;
use crate::array::{concatenate, DeviceArray};
use crate::kernels::cache::kernel;
use crate::kernels::family::signal::{IirDims, IirStage, SignalKernel, SignalSpec, IIR_MAX_STATE};
use crate::ops::launch::grid_for;
use crate::shape::SliceElem;
use crate::{Error, PadMode, Result};

/// Samples per chunk of the scan.
const CHUNK: usize = 64;

fn normalize_axis(op: &'static str, axis: isize, ndim: usize) -> Result<usize> {
    let k = if axis < 0 { axis + ndim as isize } else { axis };
    if k < 0 || k >= ndim as isize {
        return Err(Error::AxisOutOfRange { op, axis, ndim });
    }
    Ok(k as usize)
}

/// Runs a cascade of `sections` sections of order `order` (`coef`: contiguous rows of
/// `[b0..bN, a0..aN]`) over the contiguous rows of `x` (rows, n), from `zi` (rows, S)
/// or a zero state: the outputs (rows, n) and the final states (rows, S).
fn cascade<T: SignalFloat>(
    op: &'static str,
    coef: &DeviceArray<T>,
    order: usize,
    sections: usize,
    x: &DeviceArray<T>,
    zi: Option<&DeviceArray<T>>,
) -> Result<(DeviceArray<T>, DeviceArray<T>)> {
    let device = x.device();
    let (rows, n) = (x.shape()[0], x.shape()[1]);
    let s = order * sections;
    debug_assert!(s <= IIR_MAX_STATE && coef.is_contiguous() && x.is_contiguous());
    let y = DeviceArray::<T>::alloc_for(op, device, &[rows, n])?;
    if n == 0 || rows == 0 {
        let zf = match zi {
            Some(z) => z.copy()?,
            None => DeviceArray::zeros(device, &[rows, s])?,
        };
        return Ok((y, zf));
    }
    let zf = DeviceArray::<T>::alloc_for(op, device, &[rows, s])?;
    let nch = n.div_ceil(CHUNK);
    let e = DeviceArray::<T>::alloc_for(op, device, &[rows, nch, s])?;
    let start = DeviceArray::<T>::alloc_for(op, device, &[rows, nch, s])?;
    let dims = IirDims {
        rows,
        n,
        c: CHUNK,
        nch,
    };
    let spec = |stage| SignalSpec {
        kernel: SignalKernel::Iir {
            stage,
            order: order as u8,
            sections: sections as u8,
        },
        dtype: T::DTYPE,
    };
    let sm = device.multiprocessor_count();
    let (xo, co, eo, so, yo, zfo) = (
        x.operand()?,
        coef.operand()?,
        e.operand()?,
        start.operand()?,
        y.operand()?,
        zf.operand()?,
    );
    let zio = zi.map(|z| z.operand()).transpose()?;
    let zi_ptr = zio.as_ref().map_or(0, |z| z.ptr());
    if nch > 1 {
        let sp = spec(IirStage::ChunkEnd);
        let f = kernel(device, &sp)?;
        let grid = grid_for(rows * (nch - 1), sm * f.blocks_per_sm);
        // SAFETY: `f` is `sp`'s kernel for T; `x` is contiguous (rows, n), `e` new
        // (rows, nch, S), `coef` contiguous (sections, 2 order + 2) (checked by the
        // callers), nch = ceil(n / CHUNK) >= 2.
        unsafe { sp.launch_iir(device, &f, grid, &[eo.ptr(), xo.ptr(), co.ptr()], dims)? };
    }
    let sp = spec(IirStage::Carry);
    let f = kernel(device, &sp)?;
    let grid = (rows as u32).min(sm * f.blocks_per_sm).max(1);
    // SAFETY: as above; `start` is new (rows, nch, S); `zi`, when given, is contiguous
    // (rows, S) (the callers reshape it so); `e`'s chunks 0..nch-1 were written above.
    unsafe {
        sp.launch_iir(
            device,
            &f,
            grid,
            &[so.ptr(), eo.ptr(), co.ptr(), zi_ptr],
            dims,
        )?
    };
    let sp = spec(IirStage::Apply);
    let f = kernel(device, &sp)?;
    let grid = grid_for(rows * nch, sm * f.blocks_per_sm);
    // SAFETY: as above; `y` (rows, n) and `zf` (rows, S) are new.
    unsafe {
        sp.launch_iir(
            device,
            &f,
            grid,
            &[yo.ptr(), xo.ptr(), co.ptr(), so.ptr(), zfo.ptr()],
            dims,
        )?
    };
    Ok((y, zf))
}

/// `a` with `axis` moved last, as contiguous rows (rows, extent).
fn rows_of<T: SignalFloat>(
    a: &DeviceArray<T>,
    axis: usize,
) -> Result<(DeviceArray<T>, Vec<usize>)> {
    let m = a.moveaxis(&[axis as isize], &[-1])?;
    let shape = m.shape().to_vec();
    let n = *shape.last().unwrap_or(&1);
    let rows: usize = shape[..shape.len() - 1].iter().product();
    Ok((m.contiguous()?.reshape(&[rows, n][..])?, shape))
}

/// Rows (rows, extent) back to the shape `moved` (axis last), the axis put back.
fn unrows<T: SignalFloat>(
    r: &DeviceArray<T>,
    moved: &[usize],
    axis: usize,
) -> Result<DeviceArray<T>> {
    r.reshape(moved)?.moveaxis(&[-1], &[axis as isize])
}

fn check_1d<T: SignalFloat>(op: &'static str, name: &str, v: &DeviceArray<T>) -> Result<()> {
    if v.ndim() != 1 || v.size() == 0 {
        return Err(Error::invalid(
            op,
            format!(
                "{name} must be a non-empty 1-D array (shape {:?})",
                v.shape()
            ),
        ));
    }
    Ok(())
}

/// Filters `x` along `axis` with the rational transfer function `b(z) / a(z)` (SciPy's
/// `lfilter`, direct form II transposed, normalised by `a[0]`), from the initial state
/// `zi` (shape: `x`'s with `axis` of length `max(len(a), len(b)) - 1`) or from rest.
/// Returns the output and, when `zi` is given, the final state (for the next block of
/// the same signal: two halves filtered in turn equal one pass). Orders up to 8 (use
/// [`sosfilt`] for higher ones).
///
/// ```no_run
/// use cuarray::{signal, DeviceArray};
/// let dev = cuarray::Device::new(0)?;
/// let b = DeviceArray::from_slice(&dev, &[0.5f64, 0.5])?;
/// let a = DeviceArray::from_slice(&dev, &[1.0f64, -0.5])?;
/// let x = DeviceArray::from_slice(&dev, &[1.0f64, 0.0, 0.0, 0.0])?;
/// let (y, zf) = signal::lfilter(&b, &a, &x, -1, None)?;
/// assert_eq!(y.to_host()?, vec![0.5, 0.75, 0.375, 0.1875]);
/// assert!(zf.is_none());
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] when `b` or `a` is not a non-empty 1-D array, the order is
/// above 8, or `zi` has the wrong shape; [`Error::AxisOutOfRange`];
/// [`Error::DeviceMismatch`]. `a[0] = 0` gives non-finite values (SciPy raises; the check
/// would need a read back).
pub fn lfilter<T: SignalFloat>(
    b: &DeviceArray<T>,
    a: &DeviceArray<T>,
    x: &DeviceArray<T>,
    axis: isize,
    zi: Option<&DeviceArray<T>>,
) -> Result<(DeviceArray<T>, Option<DeviceArray<T>>)> {
    const OP: &str = "lfilter";
    check_1d(OP, "b", b)?;
    check_1d(OP, "a", a)?;
    b.used_by(OP, x.device())?;
    a.used_by(OP, x.device())?;
    if x.ndim() == 0 {
        return Err(Error::invalid(OP, "x must have at least one axis"));
    }
    let ax = normalize_axis(OP, axis, x.ndim())?;
    let n = b.size().max(a.size());
    let order = n - 1;
    if order > IIR_MAX_STATE {
        return Err(Error::invalid(
            OP,
            format!("filter order {order} is above 8: use second-order sections (sosfilt)"),
        ));
    }
    let mut zshape = x.shape().to_vec();
    zshape[ax] = order;
    if let Some(z) = zi {
        z.used_by(OP, x.device())?;
        if z.shape() != &zshape[..] {
            return Err(Error::invalid(
                OP,
                format!("zi must have shape {zshape:?} (got {:?})", z.shape()),
            ));
        }
    }
    if order == 0 {
        let g = b.div(a)?;
        let mut gshape = vec![1usize; x.ndim()];
        gshape[ax] = 1;
        let y = x.mul(&g.reshape(&gshape[..])?)?;
        let zf = zi.map(|z| z.copy()).transpose()?;
        return Ok((y, zf));
    }
    let zero = PadMode::Constant(T::from_f64(0.0));
    let coef = concatenate(
        &[
            &b.pad(&[(0, n - b.size())], zero)?,
            &a.pad(&[(0, n - a.size())], zero)?,
        ],
        0,
    )?;
    let (rows, moved) = rows_of(x, ax)?;
    let zrows = zi.map(|z| rows_of(z, ax).map(|r| r.0)).transpose()?;
    let (y, zf) = cascade(OP, &coef, order, 1, &rows, zrows.as_ref())?;
    let y = unrows(&y, &moved, ax)?;
    let zf = match zi {
        Some(_) => {
            let mut zm = moved.clone();
            *zm.last_mut().unwrap_or(&mut 0) = order;
            Some(unrows(&zf, &zm, ax)?)
        }
        None => None,
    };
    Ok((y, zf))
}

fn check_sos<T: SignalFloat>(op: &'static str, sos: &DeviceArray<T>) -> Result<usize> {
    if sos.ndim() != 2 || sos.shape()[1] != 6 || sos.shape()[0] == 0 {
        return Err(Error::invalid(
            op,
            format!(
                "sos must have shape (n_sections, 6) with n_sections >= 1 (got {:?})",
                sos.shape()
            ),
        ));
    }
    Ok(sos.shape()[0])
}

/// Sections per kernel: the state of one kernel (2 per section) stays in registers.
const SOS_GROUP: usize = IIR_MAX_STATE / 2;

/// Filters `x` along `axis` with a cascade of second-order sections (SciPy's `sosfilt`):
/// `sos` of shape (n_sections, 6), rows `[b0, b1, b2, a0, a1, a2]` as [`butter`](super::butter)
/// returns them. `zi` (shape `(n_sections, ..x's shape with axis of length 2..)`) gives
/// the initial state and asks for the final one. Up to 4 sections run in one pass.
///
/// ```no_run
/// use cuarray::{signal, DeviceArray};
/// let dev = cuarray::Device::new(0)?;
/// let sos: Vec<f64> = signal::butter(4, &[0.1], signal::BType::Lowpass, None)?.concat();
/// let sos = DeviceArray::from_host(&dev, &sos, &[2, 6])?;
/// let x = DeviceArray::<f64>::ones(&dev, &[16, 4096])?;
/// let (y, _) = signal::sosfilt(&sos, &x, -1, None)?; // each row filtered
/// assert_eq!(y.shape(), &[16, 4096]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] for `sos` not of shape (n, 6) or a `zi` of the wrong shape;
/// [`Error::AxisOutOfRange`]; [`Error::DeviceMismatch`].
pub fn sosfilt<T: SignalFloat>(
    sos: &DeviceArray<T>,
    x: &DeviceArray<T>,
    axis: isize,
    zi: Option<&DeviceArray<T>>,
) -> Result<(DeviceArray<T>, Option<DeviceArray<T>>)> {
    const OP: &str = "sosfilt";
    let k = check_sos(OP, sos)?;
    sos.used_by(OP, x.device())?;
    if x.ndim() == 0 {
        return Err(Error::invalid(OP, "x must have at least one axis"));
    }
    let ax = normalize_axis(OP, axis, x.ndim())?;
    let mut zshape = vec![k];
    zshape.extend_from_slice(x.shape());
    zshape[ax + 1] = 2;
    // zi as rows (rows, 2 k): section-major within a row.
    let zrows = match zi {
        Some(z) => {
            z.used_by(OP, x.device())?;
            if z.shape() != &zshape[..] {
                return Err(Error::invalid(
                    OP,
                    format!("zi must have shape {zshape:?} (got {:?})", z.shape()),
                ));
            }
            let m = z
                .moveaxis(&[ax as isize + 1], &[-1])?
                .moveaxis(&[0], &[-2])?;
            let rows: usize = m.shape()[..m.ndim() - 2].iter().product();
            Some(m.contiguous()?.reshape(&[rows, 2 * k][..])?)
        }
        None => None,
    };
    let sos = sos.contiguous()?;
    let (mut cur, moved) = rows_of(x, ax)?;
    let mut finals = Vec::new();
    for g0 in (0..k).step_by(SOS_GROUP) {
        let g1 = (g0 + SOS_GROUP).min(k);
        let coef = sos.slice(range_first(g0, g1))?;
        let zg = match &zrows {
            Some(z) => Some(
                z.slice([
                    SliceElem::Range {
                        start: None,
                        end: None,
                        step: 1,
                    },
                    SliceElem::Range {
                        start: Some(2 * g0 as isize),
                        end: Some(2 * g1 as isize),
                        step: 1,
                    },
                ])?
                .contiguous()?,
            ),
            None => None,
        };
        let (y, zf) = cascade(OP, &coef, 2, g1 - g0, &cur, zg.as_ref())?;
        cur = y;
        finals.push(zf);
    }
    let y = unrows(&cur, &moved, ax)?;
    let zf = match zi {
        Some(_) => {
            let refs: Vec<&DeviceArray<T>> = finals.iter().collect();
            let all = concatenate(&refs, 1)?; // (rows, 2 k)
            let mut shape = moved[..moved.len() - 1].to_vec();
            shape.extend([k, 2]);
            let z = all.reshape(&shape[..])?.moveaxis(&[-2], &[0])?;
            Some(z.moveaxis(&[-1], &[ax as isize + 1])?)
        }
        None => None,
    };
    Ok((y, zf))
}

fn range_first(lo: usize, hi: usize) -> [SliceElem; 1] {
    [SliceElem::Range {
        start: Some(lo as isize),
        end: Some(hi as isize),
        step: 1,
    }]
}

/// Solves the small dense system `m x = r` (Gaussian elimination with partial pivoting).
pub(crate) fn solve(mut m: Vec<Vec<f64>>, mut r: Vec<f64>) -> Vec<f64> {
    let n = r.len();
    for c in 0..n {
        let p = (c..n)
            .max_by(|&i, &j| m[i][c].abs().total_cmp(&m[j][c].abs()))
            .unwrap_or(c);
        m.swap(c, p);
        r.swap(c, p);
        let (top, rest) = m.split_at_mut(c + 1);
        let pivot = &top[c];
        for (i, row) in rest.iter_mut().enumerate() {
            let f = row[c] / pivot[c];
            for (x, p) in row[c..].iter_mut().zip(&pivot[c..]) {
                *x -= f * p;
            }
            r[c + 1 + i] -= f * r[c];
        }
    }
    let mut x = vec![0.0; n];
    for i in (0..n).rev() {
        let s: f64 = (i + 1..n).map(|j| m[i][j] * x[j]).sum();
        x[i] = (r[i] - s) / m[i][i];
    }
    x
}

/// SciPy's `lfilter_zi` on host coefficients.
fn zi_host(op: &'static str, b: &[f64], a: &[f64]) -> Result<Vec<f64>> {
    let mut a = a;
    while a.len() > 1 && a[0] == 0.0 {
        a = &a[1..];
    }
    if a.is_empty() || a[0] == 0.0 {
        return Err(Error::invalid(
            op,
            "there must be at least one nonzero a coefficient",
        ));
    }
    let n = a.len().max(b.len());
    let pad = |v: &[f64]| -> Vec<f64> {
        let mut w: Vec<f64> = v.iter().map(|x| x / a[0]).collect();
        w.resize(n, 0.0);
        w
    };
    let (b, a) = (pad(b), pad(a));
    // (I - companion(a)^T) zi = b[1:] - a[1:] b[0]
    let m: Vec<Vec<f64>> = (0..n - 1)
        .map(|i| {
            (0..n - 1)
                .map(|j| {
                    let eye = if i == j { 1.0 } else { 0.0 };
                    // companion(a)[0][k] = -a[k+1]; [k+1][k] = 1; transposed.
                    let ct = if j == 0 {
                        -a[i + 1]
                    } else if j == i + 1 {
                        1.0
                    } else {
                        0.0
                    };
                    eye - ct
                })
                .collect()
        })
        .collect();
    let r: Vec<f64> = (1..n).map(|i| b[i] - a[i] * b[0]).collect();
    Ok(solve(m, r))
}

fn to_f64<T: SignalFloat>(v: &DeviceArray<T>) -> Result<Vec<f64>> {
    Ok(v.to_host()?.into_iter().map(|x| x.to_f64()).collect())
}

/// The initial state of [`lfilter`] for the steady state of a unit step (SciPy's
/// `lfilter_zi`): filtering a constant `c` from `c * zi` gives `c` at once (for a stable
/// filter with unit gain at DC). Reads the coefficients back to the host (a
/// synchronisation) and solves the small system there.
///
/// ```no_run
/// use cuarray::{signal, DeviceArray};
/// let dev = cuarray::Device::new(0)?;
/// let b = DeviceArray::from_slice(&dev, &[0.5f64, 0.5])?;
/// let a = DeviceArray::from_slice(&dev, &[1.0f64, 0.0])?;
/// assert_eq!(signal::lfilter_zi(&b, &a)?.to_host()?, vec![0.5]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] when `b` or `a` is not a non-empty 1-D array or `a` is all
/// zeros.
pub fn lfilter_zi<T: SignalFloat>(
    b: &DeviceArray<T>,
    a: &DeviceArray<T>,
) -> Result<DeviceArray<T>> {
    const OP: &str = "lfilter_zi";
    check_1d(OP, "b", b)?;
    check_1d(OP, "a", a)?;
    let zi = zi_host(OP, &to_f64(b)?, &to_f64(a)?)?;
    let v: Vec<T> = zi.into_iter().map(T::from_f64).collect();
    DeviceArray::from_vec(b.device(), v, &[b.size().max(a.size()) - 1][..])
}

/// SciPy's `sosfilt_zi` on host sections.
fn sos_zi_host(op: &'static str, sos: &[f64]) -> Result<Vec<f64>> {
    let mut out = Vec::with_capacity(sos.len() / 3);
    let mut scale = 1.0;
    for s in sos.chunks(6) {
        let (b, a) = (&s[..3], &s[3..]);
        out.extend(zi_host(op, b, a)?.into_iter().map(|v| v * scale));
        scale *= b.iter().sum::<f64>() / a.iter().sum::<f64>();
    }
    Ok(out)
}

/// The initial state of [`sosfilt`] for the steady state of a unit step (SciPy's
/// `sosfilt_zi`), shape (n_sections, 2). Reads the sections back to the host.
///
/// ```no_run
/// use cuarray::{signal, DeviceArray};
/// let dev = cuarray::Device::new(0)?;
/// let sos = signal::butter(4, &[0.2], signal::BType::Lowpass, None)?.concat();
/// let sos = DeviceArray::from_host(&dev, &sos, &[2, 6])?;
/// assert_eq!(signal::sosfilt_zi(&sos)?.shape(), &[2, 2]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] for `sos` not of shape (n, 6) or a section with `a` all
/// zeros.
pub fn sosfilt_zi<T: SignalFloat>(sos: &DeviceArray<T>) -> Result<DeviceArray<T>> {
    const OP: &str = "sosfilt_zi";
    let k = check_sos(OP, sos)?;
    let zi = sos_zi_host(OP, &to_f64(sos)?)?;
    let v: Vec<T> = zi.into_iter().map(T::from_f64).collect();
    DeviceArray::from_vec(sos.device(), v, &[k, 2][..])
}

/// `x` (axis last) extended by `edge` samples at each end by odd reflection about the
/// end values (SciPy's `odd_ext`).
fn odd_ext<T: SignalFloat>(x: &DeviceArray<T>, edge: usize) -> Result<DeviceArray<T>> {
    let last = |s: Option<isize>, e: Option<isize>, step: isize| -> Vec<SliceElem> {
        let mut spec = vec![
            SliceElem::Range {
                start: None,
                end: None,
                step: 1
            };
            x.ndim() - 1
        ];
        spec.push(SliceElem::Range {
            start: s,
            end: e,
            step,
        });
        spec
    };
    let n = x.shape()[x.ndim() - 1] as isize;
    let e = edge as isize;
    let first = x.slice(last(Some(0), Some(1), 1))?;
    let end = x.slice(last(Some(n - 1), Some(n), 1))?;
    let left = x.slice(last(Some(e), Some(0), -1))?; // x[e], .., x[1]
    let stop = (n - 2 - e >= 0).then_some(n - 2 - e);
    let right = x.slice(last(Some(n - 2), stop, -1))?; // x[n-2], .., x[n-1-e]
    let left = first.mul(T::from_f64(2.0))?.sub(&left)?;
    let right = end.mul(T::from_f64(2.0))?.sub(&right)?;
    concatenate(&[&left, x, &right], -1)
}

/// One filtering pass: `(signal, initial state) -> output`.
type Pass<'a, T> = &'a dyn Fn(&DeviceArray<T>, &DeviceArray<T>) -> Result<DeviceArray<T>>;

/// Forward-backward filtering with odd padding, as SciPy's `filtfilt` /
/// `sosfiltfilt` with their defaults: `run(signal, initial state)`.
fn forward_backward<T: SignalFloat>(
    op: &'static str,
    x: &DeviceArray<T>,
    axis: isize,
    edge: usize,
    zi: &DeviceArray<T>,
    zi_axis: usize,
    run: Pass<'_, T>,
) -> Result<DeviceArray<T>> {
    if x.ndim() == 0 {
        return Err(Error::invalid(op, "x must have at least one axis"));
    }
    let ax = normalize_axis(op, axis, x.ndim())?;
    let xm = x.moveaxis(&[ax as isize], &[-1])?;
    let n = xm.shape()[xm.ndim() - 1];
    if n <= edge {
        return Err(Error::invalid(
            op,
            format!("the length of the input vector x ({n}) must be greater than padlen, which is {edge}"),
        ));
    }
    let ext = odd_ext(&xm, edge)?;
    let d = ext.ndim();
    // zi shaped to broadcast against the rows: (.., 1, .., order) with the order last.
    let mut zshape = zi.shape().to_vec();
    let order = zshape.remove(zi_axis);
    let mut b = zshape;
    b.extend(std::iter::repeat_n(1, d - 1));
    b.push(order);
    let zb = zi.moveaxis(&[zi_axis as isize], &[-1])?.reshape(&b[..])?;
    let one = |k: isize| -> Vec<SliceElem> {
        let mut spec = vec![
            SliceElem::Range {
                start: None,
                end: None,
                step: 1
            };
            d - 1
        ];
        spec.push(SliceElem::Range {
            start: Some(k),
            end: Some(k + 1),
            step: 1,
        });
        spec
    };
    let x0 = ext.slice(one(0))?;
    let y = run(&ext, &zb.mul(&x0)?)?;
    let len = y.shape()[d - 1] as isize;
    let y0 = y.slice(one(len - 1))?;
    let rev = y.flip(-1)?;
    let y = run(&rev, &zb.mul(&y0)?)?.flip(-1)?;
    let mut keep = vec![
        SliceElem::Range {
            start: None,
            end: None,
            step: 1
        };
        d - 1
    ];
    keep.push(SliceElem::Range {
        start: Some(edge as isize),
        end: Some(len - edge as isize),
        step: 1,
    });
    y.slice(keep)?.moveaxis(&[-1], &[ax as isize])?.contiguous()
}

/// Zero-phase filtering (SciPy's `filtfilt` with its defaults): `x` filtered forward and
/// backward along `axis` with [`lfilter`], after odd extension by `3 * max(len(a),
/// len(b))` samples at each end, each pass starting from [`lfilter_zi`] scaled by the
/// first value. Reads the coefficients back once (for the initial state).
///
/// ```no_run
/// use cuarray::{signal, DeviceArray};
/// let dev = cuarray::Device::new(0)?;
/// let b = DeviceArray::from_slice(&dev, &[0.25f64, 0.5, 0.25])?;
/// let a = DeviceArray::from_slice(&dev, &[1.0f64, 0.0, 0.0])?;
/// let x = DeviceArray::<f64>::full(&dev, &[100], 2.0)?;
/// let y = signal::filtfilt(&b, &a, &x, -1)?;
/// assert!(y.to_host()?.iter().all(|v| (v - 2.0).abs() < 1e-12));
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// As [`lfilter`], and when `x` along `axis` is not longer than the padding (SciPy's
/// message names `padlen`).
pub fn filtfilt<T: SignalFloat>(
    b: &DeviceArray<T>,
    a: &DeviceArray<T>,
    x: &DeviceArray<T>,
    axis: isize,
) -> Result<DeviceArray<T>> {
    const OP: &str = "filtfilt";
    check_1d(OP, "b", b)?;
    check_1d(OP, "a", a)?;
    let edge = 3 * a.size().max(b.size());
    let zi = lfilter_zi(b, a)?;
    forward_backward(OP, x, axis, edge, &zi, 0, &|s, z| {
        Ok(lfilter(b, a, s, -1, Some(z))?.0)
    })
}

/// Zero-phase filtering with second-order sections (SciPy's `sosfiltfilt` with its
/// defaults): forward and backward [`sosfilt`] after odd extension by
/// `3 * (2 n_sections + 1 - min(#(b2 = 0), #(a2 = 0)))` samples, each pass starting from
/// [`sosfilt_zi`] scaled by the first value. Reads the sections back once.
///
/// ```no_run
/// use cuarray::{signal, DeviceArray};
/// let dev = cuarray::Device::new(0)?;
/// let sos = signal::butter(4, &[0.1], signal::BType::Lowpass, None)?.concat();
/// let sos = DeviceArray::from_host(&dev, &sos, &[2, 6])?;
/// let x = DeviceArray::<f32>::ones(&dev, &[3, 1000])?;
/// let y = signal::sosfiltfilt(&sos.astype::<f32>()?, &x, -1)?;
/// assert!(y.to_host()?.iter().all(|v| (v - 1.0).abs() < 1e-4));
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// As [`sosfilt`], and when `x` along `axis` is not longer than the padding.
pub fn sosfiltfilt<T: SignalFloat>(
    sos: &DeviceArray<T>,
    x: &DeviceArray<T>,
    axis: isize,
) -> Result<DeviceArray<T>> {
    const OP: &str = "sosfiltfilt";
    let k = check_sos(OP, sos)?;
    let host = to_f64(sos)?;
    let zeros = |col: usize| host.chunks(6).filter(|s| s[col] == 0.0).count();
    let ntaps = 2 * k + 1 - zeros(2).min(zeros(5));
    let zi = sos_zi_host(OP, &host)?;
    let zi = DeviceArray::from_vec(
        sos.device(),
        zi.into_iter().map(T::from_f64).collect(),
        &[k, 2][..],
    )?;
    // zi (k, 2) broadcast against the rows: (k, 1, .., 1, 2) built by forward_backward with
    // the section axis first; sosfilt wants (k, .., 2) with the sample axis last here.
    forward_backward(OP, x, axis, 3 * ntaps, &zi, 1, &|s, z| {
        // z: (k, 1.., 2) broadcast to (k, rows.., 2).
        let mut shape = vec![k];
        shape.extend_from_slice(&s.shape()[..s.ndim() - 1]);
        shape.push(2);
        let z = z.broadcast_to(&shape[..])?.contiguous()?;
        Ok(sosfilt(sos, s, -1, Some(&z))?.0)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(got: &[f64], want: &[f64]) {
        assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(want) {
            assert!(
                (g - w).abs() <= 1e-10 * (1.0 + w.abs()),
                "{got:?} vs {want:?}"
            );
        }
    }

    #[test]
    fn initial_states_match_scipy() {
        // scipy.signal.lfilter_zi / sosfilt_zi
        close(
            &zi_host(
                "t",
                &[
                    0.03168934384971104,
                    0.09506803154913313,
                    0.09506803154913313,
                    0.03168934384971104,
                ],
                &[
                    1.0,
                    -1.459029062228061,
                    0.9103690002900687,
                    -0.19782518726431944,
                ],
            )
            .unwrap(),
            &[0.9683106561502893, -0.5857864376269054, 0.22951453111403056],
        );
        close(
            &zi_host("t", &[1.0, 2.0, 0.5], &[2.0, 0.3]).unwrap(),
            &[1.0217391304347827, 0.25],
        );
        close(
            &sos_zi_host(
                "t",
                &[
                    0.0012825810789606855,
                    0.002565162157921371,
                    0.0012825810789606855,
                    1.0,
                    -1.044797810426203,
                    0.5012404375909302,
                    1.0,
                    2.0,
                    1.0,
                    1.0,
                    -1.2840790438404122,
                    0.5095254494944287,
                    1.0,
                    0.0,
                    -1.0,
                    1.0,
                    -1.5893100150855108,
                    0.7091342507814098,
                    1.0,
                    -2.0,
                    1.0,
                    1.0,
                    -1.060872929173716,
                    0.767962420012096,
                    1.0,
                    -2.0,
                    1.0,
                    1.0,
                    -1.8052394660780542,
                    0.9018268568102001,
                ],
            )
            .unwrap(),
            &[
                0.00995721996177612,
                -0.004351261713133224,
                0.18818322383526984,
                -0.0903713053487491,
                -0.19942302487600658,
                -0.1994230248760067,
                -0.0,
                0.0,
                -0.0,
                0.0,
            ],
        );
        assert!(zi_host("t", &[1.0], &[0.0, 0.0]).is_err());
    }
}
