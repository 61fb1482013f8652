//! The rest of SciPy's signal toolbox: `hilbert`, `resample` (FFT), `upfirdn`,
//! `resample_poly`, `decimate`, `detrend`, `medfilt`, `medfilt2d`, `savgol_filter`,
//! `wiener`, `find_peaks`.

use super::convolve::{conv_rows, direct, CONV1D_MAX_TAPS};
use super::design::cheby1_lowpass;
use super::{firwin, SignalFloat, Window};
use crate::array::{concatenate, DeviceArray};
use crate::element::ComplexElement;
use crate::fft::{self, FftFloat, Norm};
use crate::shape::SliceElem;
use crate::{Error, PadMode, Result};

type C<T> = <T as FftFloat>::Complex;

fn norm_axis(op: &'static str, axis: isize, ndim: usize) -> Result<usize> {
    if ndim == 0 {
        return Err(Error::invalid(op, "x must have at least one axis"));
    }
    let k = if axis < 0 { axis + ndim as isize } else { axis };
    if k < 0 || k >= ndim as isize {
        return Err(Error::AxisOutOfRange { op, axis, ndim });
    }
    Ok(k as usize)
}

fn all() -> SliceElem {
    SliceElem::Range {
        start: None,
        end: None,
        step: 1,
    }
}

/// Slices `lo..hi` (step `step`) of axis `axis` of an array of rank `nd`.
fn along(
    nd: usize,
    axis: usize,
    lo: Option<isize>,
    hi: Option<isize>,
    step: isize,
) -> Vec<SliceElem> {
    let mut s = vec![all(); nd];
    s[axis] = SliceElem::Range {
        start: lo,
        end: hi,
        step,
    };
    s
}

/// A host vector as a device array of `T`.
fn upload<T: SignalFloat>(dev: &crate::Device, v: &[f64]) -> Result<DeviceArray<T>> {
    DeviceArray::from_vec(
        dev,
        v.iter().map(|&x| T::from_f64(x)).collect(),
        &[v.len()][..],
    )
}

/// A host vector of real weights as a device array of the complex type of `T`.
fn upload_c<T: SignalFloat>(dev: &crate::Device, v: &[f64]) -> Result<DeviceArray<C<T>>> {
    let c: Vec<C<T>> = v
        .iter()
        .map(|&x| C::<T>::from_parts(T::from_f64(x), T::from_f64(0.0)))
        .collect();
    DeviceArray::from_vec(dev, c, &[v.len()][..])
}

/// `w` (length of axis `axis`) shaped to broadcast along that axis of a rank `nd` array.
fn on_axis<E: crate::Element>(w: DeviceArray<E>, nd: usize, axis: usize) -> Result<DeviceArray<E>> {
    let mut shape = vec![1usize; nd];
    shape[axis] = w.size();
    w.reshape(&shape[..])
}

/// The analytic signal of `x` along `axis` (SciPy's `hilbert`): `x + i H(x)`, by one FFT,
/// a one-sided weighting and the inverse FFT.
///
/// ```no_run
/// use cuarray::{signal, DeviceArray};
/// let dev = cuarray::Device::new(0)?;
/// let x = DeviceArray::<f64>::linspace(&dev, 0.0, 6.0 * std::f64::consts::PI, 64)?.cos()?;
/// let z = signal::hilbert(&x, -1)?; // the real part is x again
/// assert!((z.real()?.to_host()?[5] - x.to_host()?[5]).abs() < 1e-12);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] for a 0-d or empty axis (SciPy: "N must be positive");
/// [`Error::AxisOutOfRange`].
pub fn hilbert<T: SignalFloat>(x: &DeviceArray<T>, axis: isize) -> Result<DeviceArray<C<T>>> {
    const OP: &str = "hilbert";
    let ax = norm_axis(OP, axis, x.ndim())?;
    let n = x.shape()[ax];
    if n == 0 {
        return Err(Error::invalid(
            OP,
            "N must be positive (x is empty along axis)",
        ));
    }
    let h: Vec<f64> = (0..n)
        .map(|i| {
            if i == 0 || (n.is_multiple_of(2) && i == n / 2) {
                1.0
            } else if i < n.div_ceil(2) {
                2.0
            } else {
                0.0
            }
        })
        .collect();
    let xf = fft::fft(x, None, ax as isize, Norm::Backward)?;
    let h = on_axis(upload_c::<T>(x.device(), &h)?, x.ndim(), ax)?;
    fft::ifft(&xf.mul(&h)?, None, ax as isize, Norm::Backward)
}

/// `x` resampled to `num` samples along `axis` by the FFT (SciPy's `resample` without a
/// window): the spectrum cropped or zero-padded, the unpaired bin at `m / 2` of an even
/// `m = min(num, n)` doubled (down) or halved (up), scaled by `num / n`.
///
/// ```no_run
/// use cuarray::{signal, DeviceArray};
/// let dev = cuarray::Device::new(0)?;
/// let x = DeviceArray::<f64>::ones(&dev, &[100])?;
/// let y = signal::resample(&x, 37, -1)?;
/// assert!(y.to_host()?.iter().all(|v| (v - 1.0).abs() < 1e-12));
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] for `num = 0` or an empty axis; [`Error::AxisOutOfRange`].
pub fn resample<T: SignalFloat>(
    x: &DeviceArray<T>,
    num: usize,
    axis: isize,
) -> Result<DeviceArray<T>> {
    const OP: &str = "resample";
    let ax = norm_axis(OP, axis, x.ndim())?;
    let n = x.shape()[ax];
    if num == 0 || n == 0 {
        return Err(Error::invalid(
            OP,
            format!("num ({num}) and the length of x ({n}) must be positive"),
        ));
    }
    let m = num.min(n);
    let m2 = m / 2 + 1;
    let s = num as f64 / n as f64;
    let w: Vec<f64> = (0..m2)
        .map(|i| {
            let f = if m.is_multiple_of(2) && num != n && i == m / 2 {
                if num < n {
                    2.0
                } else {
                    0.5
                }
            } else {
                1.0
            };
            f * s
        })
        .collect();
    let xf = fft::rfft(x, None, ax as isize, Norm::Backward)?;
    let xf = xf.slice(along(x.ndim(), ax, Some(0), Some(m2 as isize), 1))?;
    let w = on_axis(upload_c::<T>(x.device(), &w)?, x.ndim(), ax)?;
    fft::irfft(&xf.mul(&w)?, Some(num), ax as isize, Norm::Backward)
}

/// SciPy's `_output_len` of `upfirdn`.
fn upfirdn_len(len_h: usize, n: usize, up: usize, down: usize) -> usize {
    ((n - 1) * up + len_h).div_ceil(down)
}

/// Upsample by `up` (zeros between samples), filter with the FIR `h`, downsample by
/// `down`, along `axis` (SciPy's `upfirdn`): `ceil(((n - 1) up + len(h)) / down)`
/// samples.
///
/// ```no_run
/// use cuarray::{signal, DeviceArray};
/// let dev = cuarray::Device::new(0)?;
/// let h = DeviceArray::from_slice(&dev, &[1.0f64, 1.0, 1.0])?;
/// let x = DeviceArray::from_slice(&dev, &[1.0f64, 2.0, 3.0])?;
/// let y = signal::upfirdn(&h, &x, 3, 1, -1)?; // each sample held for 3
/// assert_eq!(y.to_host()?, vec![1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 3.0, 3.0, 3.0]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] for `up` or `down` 0, an `h` that is not 1-D, empty or
/// longer than 2048 taps; [`Error::AxisOutOfRange`]; [`Error::DeviceMismatch`].
pub fn upfirdn<T: SignalFloat>(
    h: &DeviceArray<T>,
    x: &DeviceArray<T>,
    up: usize,
    down: usize,
    axis: isize,
) -> Result<DeviceArray<T>> {
    const OP: &str = "upfirdn";
    if up == 0 || down == 0 {
        return Err(Error::invalid(
            OP,
            format!("up ({up}) and down ({down}) must be at least 1"),
        ));
    }
    if h.ndim() != 1 || h.size() == 0 || h.size() > CONV1D_MAX_TAPS {
        return Err(Error::invalid(
            OP,
            format!(
                "h must be 1-D with 1 to {CONV1D_MAX_TAPS} taps (shape {:?})",
                h.shape()
            ),
        ));
    }
    let ax = norm_axis(OP, axis, x.ndim())?;
    let xm = x.moveaxis(&[ax as isize], &[-1])?;
    let moved = xm.shape().to_vec();
    let n = *moved.last().unwrap_or(&0);
    let rows: usize = moved[..moved.len() - 1].iter().product();
    let xr = xm.contiguous()?.reshape(&[rows, n][..])?;
    // Zeros between the samples: (rows, n, 1) padded to (rows, n, up), flattened.
    let xu = if up > 1 && n > 0 {
        let z = PadMode::Constant(T::from_f64(0.0));
        let u = xr
            .reshape(&[rows, n, 1][..])?
            .pad(&[(0, 0), (0, 0), (0, up - 1)], z)?;
        u.reshape(&[rows, n * up][..])?.slice([
            all(),
            SliceElem::Range {
                start: Some(0),
                end: Some(((n - 1) * up + 1) as isize),
                step: 1,
            },
        ])?
    } else {
        xr
    };
    let need = if n == 0 {
        0
    } else {
        upfirdn_len(h.size(), n, up, down)
    };
    let full = (need.max(1) - 1) * down + 1;
    let y = conv_rows(OP, &xu, h, if need == 0 { 0 } else { full }, 0)?;
    let y = if down > 1 {
        y.slice([
            all(),
            SliceElem::Range {
                start: None,
                end: None,
                step: down as isize,
            },
        ])?
    } else {
        y
    };
    let mut shape = moved;
    *shape.last_mut().unwrap_or(&mut 0) = need;
    y.contiguous()?
        .reshape(&shape[..])?
        .moveaxis(&[-1], &[ax as isize])
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// `x` resampled by `up / down` along `axis` with a polyphase FIR filter (SciPy's
/// `resample_poly` with its default Kaiser(5.0) anti-aliasing filter of
/// `2 * 10 * max(up, down) + 1` taps and zero padding): `ceil(n up / down)` samples.
///
/// ```no_run
/// use cuarray::{signal, DeviceArray};
/// let dev = cuarray::Device::new(0)?;
/// let x = DeviceArray::<f32>::ones(&dev, &[1000])?;
/// assert_eq!(signal::resample_poly(&x, 3, 2, -1)?.shape(), &[1500]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] for `up` or `down` 0; as [`upfirdn`].
pub fn resample_poly<T: SignalFloat>(
    x: &DeviceArray<T>,
    up: usize,
    down: usize,
    axis: isize,
) -> Result<DeviceArray<T>> {
    const OP: &str = "resample_poly";
    if up == 0 || down == 0 {
        return Err(Error::invalid(
            OP,
            format!("up ({up}) and down ({down}) must be at least 1"),
        ));
    }
    let g = gcd(up, down);
    let (up, down) = (up / g, down / g);
    let max_rate = up.max(down);
    let half_len = 10 * max_rate;
    let h = firwin(
        2 * half_len + 1,
        &[1.0 / max_rate as f64],
        Window::Kaiser(5.0),
        true,
        None,
    )?;
    resample_poly_with(OP, x, up, down, axis, &h)
}

/// `resample_poly` with the FIR `h` (odd length, centred).
fn resample_poly_with<T: SignalFloat>(
    op: &'static str,
    x: &DeviceArray<T>,
    up: usize,
    down: usize,
    axis: isize,
    h: &[f64],
) -> Result<DeviceArray<T>> {
    let ax = norm_axis(op, axis, x.ndim())?;
    let n = x.shape()[ax];
    if up == 1 && down == 1 {
        return x.copy();
    }
    let n_out = (n * up).div_ceil(down);
    let half_len = (h.len() - 1) / 2;
    let mut h: Vec<f64> = h.iter().map(|v| v * up as f64).collect();
    let n_pre_pad = down - half_len % down;
    let n_pre_remove = (half_len + n_pre_pad) / down;
    let mut n_post_pad = 0;
    while upfirdn_len(h.len() + n_pre_pad + n_post_pad, n, up, down) < n_out + n_pre_remove {
        n_post_pad += 1;
    }
    let mut padded = vec![0.0; n_pre_pad];
    padded.append(&mut h);
    padded.resize(padded.len() + n_post_pad, 0.0);
    let hd = upload::<T>(x.device(), &padded)?;
    let y = upfirdn(&hd, x, up, down, ax as isize)?;
    y.slice(along(
        x.ndim(),
        ax,
        Some(n_pre_remove as isize),
        Some((n_pre_remove + n_out) as isize),
        1,
    ))?
    .contiguous()
}

/// `x` downsampled by `q` along `axis` after an anti-aliasing filter (SciPy's `decimate`
/// with its defaults: a Chebyshev type I filter of order 8, 0.05 dB ripple, edge
/// `0.8 / q`, applied forward and backward with [`sosfiltfilt`](super::sosfiltfilt), then
/// every `q`-th sample).
///
/// ```no_run
/// use cuarray::{signal, DeviceArray};
/// let dev = cuarray::Device::new(0)?;
/// let x = DeviceArray::<f64>::ones(&dev, &[1000])?;
/// let y = signal::decimate(&x, 4, -1)?;
/// assert_eq!(y.shape(), &[250]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] for `q = 0` or a signal shorter than the filter's padding
/// (as [`sosfiltfilt`](super::sosfiltfilt)); [`Error::AxisOutOfRange`].
pub fn decimate<T: SignalFloat>(
    x: &DeviceArray<T>,
    q: usize,
    axis: isize,
) -> Result<DeviceArray<T>> {
    const OP: &str = "decimate";
    if q == 0 {
        return Err(Error::invalid(OP, "q must be at least 1"));
    }
    let ax = norm_axis(OP, axis, x.ndim())?;
    let sos = cheby1_lowpass(8, 0.05, 0.8 / q as f64).concat();
    let k = sos.len() / 6;
    let sos = DeviceArray::from_vec(
        x.device(),
        sos.iter().map(|&v| T::from_f64(v)).collect(),
        &[k, 6][..],
    )?;
    let y = super::sosfiltfilt(&sos, x, ax as isize)?;
    y.slice(along(x.ndim(), ax, None, None, q as isize))?
        .contiguous()
}

/// What [`detrend`] removes (SciPy's `type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Detrend {
    /// The least-squares line (SciPy's default, `'linear'`).
    Linear,
    /// The mean (`'constant'`).
    Constant,
}

/// `x` less its mean or its least-squares line along `axis` (SciPy's `detrend` without
/// breakpoints).
///
/// ```no_run
/// use cuarray::signal::{self, Detrend};
/// use cuarray::DeviceArray;
/// let dev = cuarray::Device::new(0)?;
/// let x = DeviceArray::<f64>::arange(&dev, 0.0, 10.0, 1.0)?; // a line
/// let r = signal::detrend(&x, -1, Detrend::Linear)?;
/// assert!(r.to_host()?.iter().all(|v| v.abs() < 1e-12));
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::AxisOutOfRange`]; [`Error::InvalidArgument`] for a 0-d `x`.
pub fn detrend<T: SignalFloat>(
    x: &DeviceArray<T>,
    axis: isize,
    kind: Detrend,
) -> Result<DeviceArray<T>> {
    const OP: &str = "detrend";
    let ax = norm_axis(OP, axis, x.ndim())?;
    let n = x.shape()[ax];
    if n == 0 {
        return x.copy();
    }
    let mean = x.mean_keepdim(ax as isize)?;
    let centred = x.sub(&mean)?;
    if kind == Detrend::Constant || n == 1 {
        return Ok(centred);
    }
    let tm = (n as f64 - 1.0) / 2.0;
    let ss: f64 = (0..n).map(|i| (i as f64 - tm).powi(2)).sum();
    let t: Vec<f64> = (0..n).map(|i| i as f64 - tm).collect();
    let t = on_axis(upload::<T>(x.device(), &t)?, x.ndim(), ax)?;
    let slope = centred
        .mul(&t)?
        .sum_keepdim(ax as isize)?
        .mul(T::from_f64(1.0 / ss))?;
    centred.sub(&slope.mul(&t)?)
}

/// `kernel_size` expanded to one odd size per axis of a rank `nd` array.
fn kernel_sizes(op: &'static str, ks: &[usize], nd: usize) -> Result<Vec<usize>> {
    let k = match ks.len() {
        0 => vec![3; nd],
        1 => vec![ks[0]; nd],
        l if l == nd => ks.to_vec(),
        l => {
            return Err(Error::invalid(
                op,
                format!("kernel_size has {l} values for an array of rank {nd}"),
            ))
        }
    };
    if k.iter().any(|v| v.is_multiple_of(2)) {
        return Err(Error::invalid(
            op,
            format!("each element of kernel_size should be odd (got {k:?})"),
        ));
    }
    Ok(k)
}

/// The median filter (SciPy's `medfilt`): each output the median of the `kernel_size`
/// window around it (one odd size for every axis or one per axis; empty: 3), the input
/// zero-padded at its edges. Windows of up to 256 elements run as
/// [`crate::ndimage::median_filter`] with a constant 0 outside (as SciPy does), larger
/// ones gather their windows and take each row's median.
///
/// ```no_run
/// use cuarray::{signal, DeviceArray};
/// let dev = cuarray::Device::new(0)?;
/// let x = DeviceArray::from_slice(&dev, &[1.0f64, 9.0, 2.0, 3.0, 8.0, 4.0])?;
/// assert_eq!(signal::medfilt(&x, &[3])?.to_host()?, vec![1.0, 2.0, 3.0, 3.0, 4.0, 4.0]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] for an even size or one of the wrong count, a 0-d `x`.
pub fn medfilt<T: SignalFloat>(
    x: &DeviceArray<T>,
    kernel_size: &[usize],
) -> Result<DeviceArray<T>> {
    medfilt_impl("medfilt", x, kernel_size)
}

fn medfilt_impl<T: SignalFloat>(
    op: &'static str,
    x: &DeviceArray<T>,
    kernel_size: &[usize],
) -> Result<DeviceArray<T>> {
    if x.ndim() == 0 {
        return Err(Error::invalid(op, "x must have at least one axis"));
    }
    let k = kernel_sizes(op, kernel_size, x.ndim())?;
    if x.size() == 0 {
        return x.copy();
    }
    let count: usize = k.iter().product();
    if count <= crate::kernels::family::ndimage::RANK_MAX {
        // The zero-padded median is ndimage's median filter with a constant 0 outside.
        return crate::ndimage::median_filter(x, &k, crate::ndimage::Mode::Constant(0.0));
    }
    let pad: Vec<(usize, usize)> = k.iter().map(|&v| (v / 2, v / 2)).collect();
    let p = x.pad(&pad, PadMode::Constant(T::from_f64(0.0)))?;
    let w = p.sliding_window_view(&k, None)?; // (x.shape.., k..)
    let mut shape = x.shape().to_vec();
    shape.push(count);
    w.contiguous()?.reshape(&shape[..])?.median_axis(-1)
}

/// [`medfilt`] of a 2-D array (SciPy's `medfilt2d`).
///
/// # Errors
/// As [`medfilt`], and for an `x` that is not 2-D.
pub fn medfilt2d<T: SignalFloat>(
    x: &DeviceArray<T>,
    kernel_size: &[usize],
) -> Result<DeviceArray<T>> {
    if x.ndim() != 2 {
        return Err(Error::invalid(
            "medfilt2d",
            format!("x must be 2-D (shape {:?})", x.shape()),
        ));
    }
    medfilt_impl("medfilt2d", x, kernel_size)
}

/// The local-statistics Wiener filter (SciPy's `wiener`): with the mean `m` and variance
/// `v` of the `mysize` window around each element (one size for every axis or one per
/// axis; default 3; zero outside), `m + (1 - noise / v) (x - m)` where `v >= noise`, else
/// `m`; `noise` defaults to the mean of `v` (computed on the device).
///
/// # Errors
/// [`Error::InvalidArgument`] for sizes of the wrong count or 0, a 0-d `x`.
pub fn wiener<T: SignalFloat>(
    x: &DeviceArray<T>,
    mysize: &[usize],
    noise: Option<f64>,
) -> Result<DeviceArray<T>> {
    const OP: &str = "wiener";
    if x.ndim() == 0 || x.size() == 0 {
        return Err(Error::invalid(
            OP,
            format!(
                "x must be a non-empty array with an axis (shape {:?})",
                x.shape()
            ),
        ));
    }
    let k = match mysize.len() {
        0 => vec![3; x.ndim()],
        1 => vec![mysize[0]; x.ndim()],
        l if l == x.ndim() => mysize.to_vec(),
        l => {
            return Err(Error::invalid(
                OP,
                format!("mysize has {l} values for an array of rank {}", x.ndim()),
            ))
        }
    };
    if k.contains(&0) {
        return Err(Error::invalid(OP, "mysize values must be positive"));
    }
    let count: usize = k.iter().product();
    let ones = DeviceArray::<T>::full(x.device(), &k[..], T::from_f64(1.0 / count as f64))?;
    let start: Vec<isize> = k.iter().map(|&v| ((v - 1) / 2) as isize).collect();
    let local_mean = direct(OP, x, &ones, x.shape(), &start, 0, 0.0)?;
    let sq = x.mul(x)?;
    let local_var =
        direct(OP, &sq, &ones, x.shape(), &start, 0, 0.0)?.sub(&local_mean.mul(&local_mean)?)?;
    let noise = match noise {
        Some(v) => DeviceArray::full(x.device(), &[] as &[usize], T::from_f64(v))?,
        None => local_var.mean()?,
    };
    let res = x.sub(&local_mean)?;
    let gain = noise.div(&local_var)?.neg()?.add(T::from_f64(1.0))?;
    let res = res.mul(&gain)?.add(&local_mean)?;
    crate::where_(&local_var.lt(&noise)?, &local_mean, &res)
}

/// Savitzky-Golay coefficients (SciPy's `savgol_coeffs`, `use='conv'`, centred): the
/// minimum-norm least-squares solution, in f64.
fn savgol_coeffs(wl: usize, polyorder: usize, deriv: usize) -> Vec<f64> {
    let half = (wl / 2) as f64;
    // x reversed for convolution; A[p][j] = x_j^p; coeffs = A^T (A A^T)^-1 y.
    let xs: Vec<f64> = (0..wl).map(|j| half - j as f64).collect();
    let np = polyorder + 1;
    let a: Vec<Vec<f64>> = (0..np)
        .map(|p| xs.iter().map(|x| x.powi(p as i32)).collect())
        .collect();
    let aat: Vec<Vec<f64>> = (0..np)
        .map(|i| {
            (0..np)
                .map(|j| a[i].iter().zip(&a[j]).map(|(u, v)| u * v).sum())
                .collect()
        })
        .collect();
    let mut y = vec![0.0; np];
    y[deriv] = (1..=deriv).map(|v| v as f64).product();
    let z = super::filter::solve(aat, y);
    (0..wl)
        .map(|j| (0..np).map(|p| a[p][j] * z[p]).sum())
        .collect()
}

/// The linear map from a window of `wl` samples to the values at `positions` (relative to
/// the window's start) of the `deriv`-th derivative of its least-squares polynomial of
/// degree `polyorder` (SciPy's `_fit_edge`), as a (positions, wl) matrix.
fn edge_map(
    wl: usize,
    polyorder: usize,
    deriv: usize,
    positions: std::ops::Range<usize>,
) -> Vec<f64> {
    // Fit in u = (t - c) / s for conditioning; d/dt = (1/s) d/du.
    let c = (wl as f64 - 1.0) / 2.0;
    let s = c.max(1.0);
    let np = polyorder + 1;
    let v: Vec<Vec<f64>> = (0..wl)
        .map(|t| {
            (0..np)
                .map(|p| ((t as f64 - c) / s).powi(p as i32))
                .collect()
        })
        .collect();
    let vtv: Vec<Vec<f64>> = (0..np)
        .map(|i| {
            (0..np)
                .map(|j| (0..wl).map(|t| v[t][i] * v[t][j]).sum())
                .collect()
        })
        .collect();
    // F = (V^T V)^-1 V^T, column by column.
    let f: Vec<Vec<f64>> = (0..wl)
        .map(|t| super::filter::solve(vtv.clone(), (0..np).map(|p| v[t][p]).collect()))
        .collect(); // f[t][p]
    let mut out = Vec::new();
    for i in positions {
        let u = (i as f64 - c) / s;
        for row in f.iter() {
            let mut val = 0.0;
            for (p, coef) in row.iter().enumerate().take(np).skip(deriv) {
                let fall: f64 = ((p - deriv + 1)..=p).map(|q| q as f64).product();
                val += coef * fall * u.powi((p - deriv) as i32);
            }
            out.push(val / s.powi(deriv as i32));
        }
    }
    out
}

/// The Savitzky-Golay filter (SciPy's `savgol_filter` with `mode='interp'`, `delta=1`):
/// each sample replaced by the `deriv`-th derivative at its centre of the least-squares
/// polynomial of degree `polyorder` over the `window_length` samples around it; within
/// `window_length / 2` of the ends, of the polynomial fitted to the first or last window.
///
/// ```no_run
/// use cuarray::{signal, DeviceArray};
/// let dev = cuarray::Device::new(0)?;
/// let x = DeviceArray::<f64>::arange(&dev, 0.0, 20.0, 1.0)?.pow(2.0)?; // t^2
/// let d = signal::savgol_filter(&x, 5, 2, 1, -1)?; // its derivative, 2 t
/// assert!((d.to_host()?[10] - 20.0).abs() < 1e-9);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] for an even `window_length` (SciPy allows it; here only odd
/// windows are supported), `polyorder >= window_length`, `deriv > polyorder` gives zeros
/// as SciPy, a `window_length` longer than `x` along `axis` or above 2048;
/// [`Error::AxisOutOfRange`].
pub fn savgol_filter<T: SignalFloat>(
    x: &DeviceArray<T>,
    window_length: usize,
    polyorder: usize,
    deriv: usize,
    axis: isize,
) -> Result<DeviceArray<T>> {
    const OP: &str = "savgol_filter";
    let ax = norm_axis(OP, axis, x.ndim())?;
    let n = x.shape()[ax];
    if window_length.is_multiple_of(2) || window_length > CONV1D_MAX_TAPS {
        return Err(Error::invalid(
            OP,
            format!("window_length ({window_length}) must be odd and at most {CONV1D_MAX_TAPS}"),
        ));
    }
    if polyorder >= window_length {
        return Err(Error::invalid(
            OP,
            format!("polyorder ({polyorder}) must be less than window_length ({window_length})"),
        ));
    }
    if window_length > n {
        return Err(Error::invalid(OP, format!("if mode is 'interp', window_length ({window_length}) must be less than or equal to the size of x ({n})")));
    }
    if deriv > polyorder {
        return crate::zeros_like(x);
    }
    let half = window_length / 2;
    let coeffs = upload::<T>(x.device(), &savgol_coeffs(window_length, polyorder, deriv))?;
    let xm = x.moveaxis(&[ax as isize], &[-1])?;
    let moved = xm.shape().to_vec();
    let rows: usize = moved[..moved.len() - 1].iter().product();
    let xr = xm.contiguous()?.reshape(&[rows, n][..])?;
    let y = conv_rows(OP, &xr, &coeffs, n, half as isize)?;
    let row_slice = |lo: usize, hi: usize| {
        [
            all(),
            SliceElem::Range {
                start: Some(lo as isize),
                end: Some(hi as isize),
                step: 1,
            },
        ]
    };
    let left_map = edge_map(window_length, polyorder, deriv, 0..half);
    let right_map = edge_map(
        window_length,
        polyorder,
        deriv,
        window_length - half..window_length,
    );
    let lm = DeviceArray::from_vec(
        x.device(),
        left_map.iter().map(|&v| T::from_f64(v)).collect(),
        &[half, window_length][..],
    )?;
    let rm = DeviceArray::from_vec(
        x.device(),
        right_map.iter().map(|&v| T::from_f64(v)).collect(),
        &[half, window_length][..],
    )?;
    let left = xr.slice(row_slice(0, window_length))?.matmul(&lm.t())?;
    let right = xr.slice(row_slice(n - window_length, n))?.matmul(&rm.t())?;
    let mid = y.slice(row_slice(half, n - half))?;
    let all_rows = concatenate(&[&left, &mid, &right], 1)?;
    all_rows
        .reshape(&moved[..])?
        .moveaxis(&[-1], &[ax as isize])
}

/// The peaks of the 1-D `x` (SciPy's `find_peaks` with `height`, `distance` and
/// `prominence` as minimums): local maxima (a flat top counts once, at its middle, rounded
/// down), then those at least `height`, then those at least `distance` samples from a
/// higher kept peak, then those of at least `prominence`. Reads `x` back to the host (a
/// synchronisation): the selection is sequential.
///
/// ```no_run
/// use cuarray::{signal, DeviceArray};
/// let dev = cuarray::Device::new(0)?;
/// let x = DeviceArray::from_slice(&dev, &[0.0f64, 2.0, 0.0, 1.0, 1.0, 0.0, 3.0, 0.0])?;
/// assert_eq!(signal::find_peaks(&x, None, None, None)?.to_host()?, vec![1, 3, 6]);
/// assert_eq!(signal::find_peaks(&x, Some(1.5), None, None)?.to_host()?, vec![1, 6]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] for an `x` that is not 1-D or `distance = Some(0)`.
pub fn find_peaks<T: SignalFloat>(
    x: &DeviceArray<T>,
    height: Option<T>,
    distance: Option<usize>,
    prominence: Option<T>,
) -> Result<DeviceArray<i64>> {
    const OP: &str = "find_peaks";
    if x.ndim() != 1 {
        return Err(Error::invalid(
            OP,
            format!("x must be 1-D (shape {:?})", x.shape()),
        ));
    }
    if distance == Some(0) {
        return Err(Error::invalid(OP, "distance must be greater or equal to 1"));
    }
    let v: Vec<f64> = x.to_host()?.into_iter().map(|e| e.to_f64()).collect();
    let peaks = select_peaks(
        &v,
        height.map(|h| h.to_f64()),
        distance,
        prominence.map(|p| p.to_f64()),
    );
    let n = peaks.len();
    DeviceArray::from_vec(x.device(), peaks, &[n][..])
}

/// SciPy's `_local_maxima_1d`, `_select_by_peak_distance` and `_peak_prominences`.
pub(crate) fn select_peaks(
    x: &[f64],
    height: Option<f64>,
    distance: Option<usize>,
    prominence: Option<f64>,
) -> Vec<i64> {
    let mut peaks = Vec::new();
    let mut i = 1;
    let i_max = x.len().saturating_sub(1);
    while i < i_max {
        if x[i - 1] < x[i] {
            let mut ahead = i + 1;
            while ahead < i_max && x[ahead] == x[i] {
                ahead += 1;
            }
            if x[ahead] < x[i] {
                peaks.push((i + ahead - 1) / 2);
                i = ahead;
            }
        }
        i += 1;
    }
    if let Some(h) = height {
        peaks.retain(|&p| x[p] >= h);
    }
    if let Some(d) = distance {
        let mut keep = vec![true; peaks.len()];
        let mut order: Vec<usize> = (0..peaks.len()).collect();
        order.sort_by(|&a, &b| x[peaks[a]].total_cmp(&x[peaks[b]]));
        for &j in order.iter().rev() {
            if !keep[j] {
                continue;
            }
            let mut k = j;
            while k > 0 && peaks[j] - peaks[k - 1] < d {
                keep[k - 1] = false;
                k -= 1;
            }
            let mut k = j + 1;
            while k < peaks.len() && peaks[k] - peaks[j] < d {
                keep[k] = false;
                k += 1;
            }
        }
        peaks = peaks
            .into_iter()
            .zip(keep)
            .filter_map(|(p, k)| k.then_some(p))
            .collect();
    }
    if let Some(pmin) = prominence {
        peaks.retain(|&p| {
            let mut left_min = x[p];
            let mut i = p as isize;
            while i >= 0 && x[i as usize] <= x[p] {
                left_min = left_min.min(x[i as usize]);
                i -= 1;
            }
            let mut right_min = x[p];
            let mut i = p;
            while i < x.len() && x[i] <= x[p] {
                right_min = right_min.min(x[i]);
                i += 1;
            }
            x[p] - left_min.max(right_min) >= pmin
        });
    }
    peaks.into_iter().map(|p| p as i64).collect()
}

#[cfg(test)]
#[rustfmt::skip] // embedded SciPy values
#[path = "misc_tests.rs"]
mod tests;
