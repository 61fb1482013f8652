//! Spectral estimation (SciPy's `periodogram`, `welch`, `csd`, `coherence`,
//! `spectrogram`, `stft`, `istft`): the signal framed as a strided view of overlapping
//! segments, each detrended and windowed, one batched `rfft`, then the segments'
//! products averaged (Welch) or kept (spectrogram, STFT). Frequencies and segment times
//! are computed on the host and returned as host vectors.

use super::{get_window, SignalFloat, Window};
use crate::array::DeviceArray;
use crate::element::ComplexElement;
use crate::fft::{self, FftFloat, Norm};
use crate::shape::SliceElem;
use crate::{Error, Result};

/// The complex type of a signal type.
type C<T> = <T as FftFloat>::Complex;

/// How a power spectrum is scaled (SciPy's `scaling`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scaling {
    /// Power spectral density, V²/Hz: divided by `fs * sum(w²)`.
    Density,
    /// Power spectrum, V²: divided by `sum(w)²`.
    Spectrum,
}

/// The segmentation of one call.
struct Plan {
    /// The window (periodic), `nperseg` values.
    win: Vec<f64>,
    nperseg: usize,
    nstep: usize,
    /// Normalised signal axis.
    axis: usize,
}

fn plan(
    op: &'static str,
    shape: &[usize],
    window: Window,
    nperseg: Option<usize>,
    noverlap: Option<usize>,
    axis: isize,
    default_overlap: fn(usize) -> usize,
) -> Result<Plan> {
    let nd = shape.len();
    if nd == 0 {
        return Err(Error::invalid(op, "x must have at least one axis"));
    }
    let k = if axis < 0 { axis + nd as isize } else { axis };
    if k < 0 || k >= nd as isize {
        return Err(Error::AxisOutOfRange { op, axis, ndim: nd });
    }
    let len = shape[k as usize];
    if nperseg == Some(0) {
        return Err(Error::invalid(op, "nperseg must be a positive integer"));
    }
    // SciPy's _triage_segments: 256 by default, never longer than the signal.
    let nperseg = nperseg.unwrap_or(256).min(len.max(1));
    let noverlap = noverlap.unwrap_or_else(|| default_overlap(nperseg));
    if noverlap >= nperseg {
        return Err(Error::invalid(
            op,
            format!("noverlap ({noverlap}) must be less than nperseg ({nperseg})"),
        ));
    }
    Ok(Plan {
        win: get_window(window, nperseg, true)?,
        nperseg,
        nstep: nperseg - noverlap,
        axis: k as usize,
    })
}

/// The windowed segments' spectra of `x` (axis moved last): shape (.., nseg, nfreq),
/// each segment detrended by its mean when `detrend`, multiplied by `win * factor`.
fn spectra<T: SignalFloat>(
    x: &DeviceArray<T>,
    p: &Plan,
    factor: f64,
    detrend: bool,
) -> Result<DeviceArray<C<T>>> {
    let xm = x.moveaxis(&[p.axis as isize], &[-1])?;
    let d = xm.ndim();
    let frames = xm.sliding_window_view(&[p.nperseg], Some(&[-1]))?; // (.., n - L + 1, L)
    let mut spec = vec![
        SliceElem::Range {
            start: None,
            end: None,
            step: 1
        };
        d + 1
    ];
    spec[d - 1] = SliceElem::Range {
        start: None,
        end: None,
        step: p.nstep as isize,
    };
    let frames = frames.slice(spec)?;
    let w: Vec<T> = p.win.iter().map(|&v| T::from_f64(v * factor)).collect();
    let w = DeviceArray::from_vec(x.device(), w, &[p.nperseg][..])?;
    let windowed = if detrend {
        frames.sub(&frames.mean_keepdim(-1)?)?.mul(&w)?
    } else {
        frames.mul(&w)?
    };
    fft::rfft(&windowed, None, -1, Norm::Backward)
}

/// Times of the segments' centres (SciPy's `time`), less `shift`.
fn times(n: usize, p: &Plan, fs: f64, shift: f64) -> Vec<f64> {
    let half = p.nperseg as f64 / 2.0;
    let mut t = Vec::new();
    let mut c = half;
    while c < n as f64 - half + 1.0 {
        t.push(c / fs - shift);
        c += p.nstep as f64;
    }
    t
}

/// The one-sided weights: `scale`, doubled except at 0 and (for even `nfft`) Nyquist.
fn weights<T: SignalFloat>(
    dev: &crate::Device,
    nfreq: usize,
    nfft: usize,
    scale: f64,
) -> Result<DeviceArray<T>> {
    let w: Vec<T> = weight_values(nfreq, nfft, scale).map(T::from_f64).collect();
    DeviceArray::from_vec(dev, w, &[nfreq][..])
}

fn weight_values(nfreq: usize, nfft: usize, scale: f64) -> impl Iterator<Item = f64> {
    (0..nfreq).map(move |i| {
        let double = i > 0 && !(nfft.is_multiple_of(2) && i == nfreq - 1);
        if double {
            2.0 * scale
        } else {
            scale
        }
    })
}

fn check_fs(op: &'static str, fs: f64) -> Result<()> {
    if !(fs > 0.0 && fs.is_finite()) {
        return Err(Error::invalid(
            op,
            format!("fs must be positive (got {fs})"),
        ));
    }
    Ok(())
}

fn freqs(nfft: usize, fs: f64) -> Vec<f64> {
    (0..nfft / 2 + 1)
        .map(|i| i as f64 * fs / nfft as f64)
        .collect()
}

/// Moves the frequency axis (last) of a (.., nfreq) result to `axis`.
fn put_back<T: crate::Element>(r: DeviceArray<T>, axis: usize) -> Result<DeviceArray<T>> {
    r.moveaxis(&[-1], &[axis as isize])
}

fn empty_result<T: SignalFloat>(x: &DeviceArray<T>) -> Result<(Vec<f64>, DeviceArray<T>)> {
    Ok((Vec::new(), DeviceArray::zeros(x.device(), x.shape())?))
}

/// Welch's power spectral density estimate (SciPy's `welch` with `detrend='constant'`,
/// one-sided, mean over segments): segments of `nperseg` samples (256 by default, at
/// most the signal's length) overlapping by `noverlap` (`nperseg / 2` by default), each
/// detrended by its mean and windowed. Returns the frequencies (host) and the estimate
/// with the frequency axis at `axis`.
///
/// ```no_run
/// use cuarray::signal::{self, Window};
/// use cuarray::DeviceArray;
/// let dev = cuarray::Device::new(0)?;
/// let x = DeviceArray::<f32>::ones(&dev, &[4096])?;
/// let (f, pxx) = signal::welch(&x, 1000.0, Window::Hann, Some(256), None, -1)?;
/// assert_eq!(f.len(), 129);
/// assert_eq!(pxx.shape(), &[129]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] for `nperseg = 0`, `noverlap >= nperseg`, `fs <= 0`, a 0-d
/// `x`; [`Error::AxisOutOfRange`]. An empty `x` gives empty results, as SciPy.
pub fn welch<T: SignalFloat>(
    x: &DeviceArray<T>,
    fs: f64,
    window: Window,
    nperseg: Option<usize>,
    noverlap: Option<usize>,
    axis: isize,
) -> Result<(Vec<f64>, DeviceArray<T>)> {
    psd(
        "welch",
        x,
        fs,
        window,
        nperseg,
        noverlap,
        Scaling::Density,
        axis,
        |l| l / 2,
    )
}

#[allow(clippy::too_many_arguments)]
fn psd<T: SignalFloat>(
    op: &'static str,
    x: &DeviceArray<T>,
    fs: f64,
    window: Window,
    nperseg: Option<usize>,
    noverlap: Option<usize>,
    scaling: Scaling,
    axis: isize,
    default_overlap: fn(usize) -> usize,
) -> Result<(Vec<f64>, DeviceArray<T>)> {
    check_fs(op, fs)?;
    let p = plan(
        op,
        x.shape(),
        window,
        nperseg,
        noverlap,
        axis,
        default_overlap,
    )?;
    if x.size() == 0 {
        return empty_result(x);
    }
    let scale = scale_of(&p.win, fs, scaling);
    let z = spectra(x, &p, 1.0, true)?;
    let a = z.abs()?;
    let m = a.mul(&a)?.mean_axis(-2)?;
    let nfreq = p.nperseg / 2 + 1;
    let r = m.mul(&weights::<T>(x.device(), nfreq, p.nperseg, scale)?)?;
    Ok((freqs(p.nperseg, fs), put_back(r, p.axis)?))
}

fn scale_of(win: &[f64], fs: f64, scaling: Scaling) -> f64 {
    match scaling {
        Scaling::Density => 1.0 / (fs * win.iter().map(|w| w * w).sum::<f64>()),
        Scaling::Spectrum => 1.0 / win.iter().sum::<f64>().powi(2),
    }
}

/// The periodogram (SciPy's `periodogram`): one segment of the whole signal, detrended by
/// its mean, windowed by `window` (SciPy's default is [`Window::Boxcar`]), scaled as
/// `scaling` says, one-sided.
///
/// ```no_run
/// use cuarray::signal::{self, Scaling, Window};
/// use cuarray::DeviceArray;
/// let dev = cuarray::Device::new(0)?;
/// let x = DeviceArray::from_slice(&dev, &[1.0f64, -1.0, 1.0, -1.0])?;
/// let (f, p) = signal::periodogram(&x, 1.0, Window::Boxcar, Scaling::Spectrum, -1)?;
/// assert_eq!(f, vec![0.0, 0.25, 0.5]);
/// assert!((p.to_host()?[2] - 1.0).abs() < 1e-12); // all the power at Nyquist
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// As [`welch`].
pub fn periodogram<T: SignalFloat>(
    x: &DeviceArray<T>,
    fs: f64,
    window: Window,
    scaling: Scaling,
    axis: isize,
) -> Result<(Vec<f64>, DeviceArray<T>)> {
    let n = match x.ndim() {
        0 => 1,
        nd => {
            let k = if axis < 0 { axis + nd as isize } else { axis };
            x.shape().get(k.max(0) as usize).copied().unwrap_or(1)
        }
    };
    psd(
        "periodogram",
        x,
        fs,
        window,
        Some(n.max(1)),
        Some(0),
        scaling,
        axis,
        |_| 0,
    )
}

/// The cross spectral density of `x` and `y` by Welch's method (SciPy's `csd`): the mean
/// over segments of `conj(X) Y`, scaled as a density, one-sided. Complex.
///
/// ```no_run
/// use cuarray::signal::{self, Window};
/// use cuarray::DeviceArray;
/// let dev = cuarray::Device::new(0)?;
/// let x = DeviceArray::<f64>::ones(&dev, &[1024])?;
/// let (f, pxy) = signal::csd(&x, &x, 1.0, Window::Hann, Some(128), None, -1)?;
/// assert_eq!(pxy.shape(), &[65]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// As [`welch`], and when `x` and `y` differ in shape.
#[allow(clippy::type_complexity)]
pub fn csd<T: SignalFloat>(
    x: &DeviceArray<T>,
    y: &DeviceArray<T>,
    fs: f64,
    window: Window,
    nperseg: Option<usize>,
    noverlap: Option<usize>,
    axis: isize,
) -> Result<(Vec<f64>, DeviceArray<C<T>>)> {
    const OP: &str = "csd";
    check_fs(OP, fs)?;
    y.used_by(OP, x.device())?;
    if x.shape() != y.shape() {
        return Err(Error::invalid(
            OP,
            format!(
                "x and y must have the same shape ({:?} and {:?})",
                x.shape(),
                y.shape()
            ),
        ));
    }
    let p = plan(OP, x.shape(), window, nperseg, noverlap, axis, |l| l / 2)?;
    if x.size() == 0 {
        return Ok((Vec::new(), DeviceArray::zeros(x.device(), x.shape())?));
    }
    let scale = scale_of(&p.win, fs, Scaling::Density);
    let zx = spectra(x, &p, 1.0, true)?;
    let zy = spectra(y, &p, 1.0, true)?;
    let m = zx.conj()?.mul(&zy)?.mean_axis(-2)?;
    let nfreq = p.nperseg / 2 + 1;
    let w: Vec<C<T>> = weight_values(nfreq, p.nperseg, scale)
        .map(|v| C::<T>::from_parts(T::from_f64(v), T::from_f64(0.0)))
        .collect();
    let r = m.mul(&DeviceArray::from_vec(x.device(), w, &[nfreq][..])?)?;
    Ok((freqs(p.nperseg, fs), put_back(r, p.axis)?))
}

/// The magnitude-squared coherence of `x` and `y` (SciPy's `coherence`):
/// `|Pxy|² / (Pxx Pyy)` from Welch estimates with the same segments.
///
/// ```no_run
/// use cuarray::signal::{self, Window};
/// use cuarray::DeviceArray;
/// let dev = cuarray::Device::new(0)?;
/// let x = DeviceArray::<f64>::linspace(&dev, 0.0, 100.0, 2048)?.sin()?;
/// let (_, c) = signal::coherence(&x, &x, 1.0, Window::Hann, Some(256), None, -1)?;
/// assert!(c.to_host()?.iter().all(|v| (v - 1.0).abs() < 1e-9)); // a signal with itself
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// As [`csd`].
pub fn coherence<T: SignalFloat>(
    x: &DeviceArray<T>,
    y: &DeviceArray<T>,
    fs: f64,
    window: Window,
    nperseg: Option<usize>,
    noverlap: Option<usize>,
    axis: isize,
) -> Result<(Vec<f64>, DeviceArray<T>)> {
    let (f, pxy) = csd(x, y, fs, window, nperseg, noverlap, axis)?;
    let (_, pxx) = welch(x, fs, window, nperseg, noverlap, axis)?;
    let (_, pyy) = welch(y, fs, window, nperseg, noverlap, axis)?;
    let a = pxy.abs()?;
    Ok((f, a.mul(&a)?.div(&pxx)?.div(&pyy)?))
}

/// The spectrogram (SciPy's `spectrogram` in its default `'psd'` mode): the
/// density-scaled one-sided power of each detrended, windowed segment, shape
/// `(.., nfreq, nseg)` with the frequency axis where `axis` was (SciPy's default window
/// is `Window::Tukey(0.25)`, its default `noverlap` `nperseg / 8`). Returns the
/// frequencies, the segments' centre times and the powers.
///
/// ```no_run
/// use cuarray::signal::{self, Window};
/// use cuarray::DeviceArray;
/// let dev = cuarray::Device::new(0)?;
/// let x = DeviceArray::<f32>::ones(&dev, &[10_000])?;
/// let (f, t, sxx) = signal::spectrogram(&x, 1.0, Window::Tukey(0.25), Some(256), None, -1)?;
/// assert_eq!(sxx.shape(), &[f.len(), t.len()]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// As [`welch`].
#[allow(clippy::type_complexity)]
pub fn spectrogram<T: SignalFloat>(
    x: &DeviceArray<T>,
    fs: f64,
    window: Window,
    nperseg: Option<usize>,
    noverlap: Option<usize>,
    axis: isize,
) -> Result<(Vec<f64>, Vec<f64>, DeviceArray<T>)> {
    const OP: &str = "spectrogram";
    check_fs(OP, fs)?;
    let p = plan(OP, x.shape(), window, nperseg, noverlap, axis, |l| l / 8)?;
    if x.size() == 0 {
        let (f, e) = empty_result(x)?;
        return Ok((f, Vec::new(), e));
    }
    let n = x.shape()[p.axis];
    let scale = scale_of(&p.win, fs, Scaling::Density);
    let z = spectra(x, &p, 1.0, true)?;
    let a = z.abs()?;
    let nfreq = p.nperseg / 2 + 1;
    let r = a
        .mul(&a)?
        .mul(&weights::<T>(x.device(), nfreq, p.nperseg, scale)?)?;
    let dest = if axis < 0 { axis - 1 } else { axis };
    let r = r.moveaxis(&[-1], &[dest])?;
    Ok((freqs(p.nperseg, fs), times(n, &p, fs, 0.0), r))
}

/// The short-time Fourier transform of `x` along its last axis (SciPy's `stft` with its
/// defaults: `nperseg` 256, `noverlap` `nperseg / 2`, no detrending, zero padding of
/// `nperseg / 2` at each end and at the end to whole segments, scaled by `1 / sum(w)`):
/// the frequencies, the segment times and the spectra, shape `(.., nfreq, nseg)`.
///
/// ```no_run
/// use cuarray::signal::{self, Window};
/// use cuarray::DeviceArray;
/// let dev = cuarray::Device::new(0)?;
/// let x = DeviceArray::<f32>::ones(&dev, &[4096])?;
/// let (f, t, z) = signal::stft(&x, 1.0, Window::Hann, Some(256), None)?;
/// assert_eq!(z.shape(), &[129, t.len()]);
/// let (_, back) = signal::istft(&z, 1.0, Window::Hann, Some(256), None)?;
/// assert!(back.to_host()?[..4096].iter().all(|v| (v - 1.0).abs() < 1e-4));
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// As [`welch`].
#[allow(clippy::type_complexity)]
pub fn stft<T: SignalFloat>(
    x: &DeviceArray<T>,
    fs: f64,
    window: Window,
    nperseg: Option<usize>,
    noverlap: Option<usize>,
) -> Result<(Vec<f64>, Vec<f64>, DeviceArray<C<T>>)> {
    const OP: &str = "stft";
    check_fs(OP, fs)?;
    if x.ndim() == 0 {
        return Err(Error::invalid(OP, "x must have at least one axis"));
    }
    let n = x.shape()[x.ndim() - 1];
    // The segment length is fixed before padding (SciPy: nperseg = 256 by default).
    let nps = nperseg.unwrap_or(256).min(n.max(1));
    if nperseg == Some(0) {
        return Err(Error::invalid(OP, "nperseg must be a positive integer"));
    }
    let half = nps / 2;
    let mut shape = x.shape().to_vec();
    let last = shape.len() - 1;
    shape[last] = n + 2 * half;
    let p = plan(OP, &shape, window, Some(nps), noverlap, -1, |l| l / 2)?;
    if x.size() == 0 {
        return Ok((
            Vec::new(),
            Vec::new(),
            DeviceArray::zeros(x.device(), x.shape())?,
        ));
    }
    // Boundary zeros, then zeros to whole segments (SciPy's `padded=True`).
    let padded_len = n + 2 * half;
    let rem = (padded_len - p.nperseg) % p.nstep;
    let extra = if rem == 0 {
        0
    } else {
        (p.nstep - rem) % p.nperseg
    };
    let mut pad = vec![(0usize, 0usize); x.ndim()];
    pad[last] = (half, half + extra);
    let xp = x.pad(&pad, crate::PadMode::Constant(T::from_f64(0.0)))?;
    let wsum: f64 = p.win.iter().sum();
    let z = spectra(&xp, &p, 1.0 / wsum, false)?; // (.., nseg, nfreq)
    let t = times(padded_len + extra, &p, fs, p.nperseg as f64 / 2.0 / fs);
    let z = z.moveaxis(&[-1], &[-2])?.contiguous()?;
    Ok((freqs(p.nperseg, fs), t, z))
}

/// The inverse short-time Fourier transform (SciPy's `istft` with its defaults, for a
/// one-sided `zxx` of shape `(.., nfreq, nseg)`): each segment's inverse `rfft`, windowed,
/// overlap-added, divided by the overlapped squared window, the boundary padding removed.
/// `nperseg` defaults to `2 (nfreq - 1)`. Returns the sample times and the signal.
///
/// # Errors
/// [`Error::InvalidArgument`] for a `zxx` of rank below 2, `noverlap >= nperseg`, an
/// `nperseg` whose one-sided spectrum is not `nfreq` long, or a window and overlap whose
/// squared windows leave a gap (SciPy's NOLA condition).
#[allow(clippy::type_complexity)]
pub fn istft<Z>(
    zxx: &DeviceArray<Z>,
    fs: f64,
    window: Window,
    nperseg: Option<usize>,
    noverlap: Option<usize>,
) -> Result<(Vec<f64>, DeviceArray<Z::Part>)>
where
    Z: super::SignalComplex,
{
    istft_impl::<Z::Part>(Z::cast(zxx), fs, window, nperseg, noverlap)
}

fn istft_impl<T: SignalFloat>(
    zxx: &DeviceArray<C<T>>,
    fs: f64,
    window: Window,
    nperseg: Option<usize>,
    noverlap: Option<usize>,
) -> Result<(Vec<f64>, DeviceArray<T>)> {
    const OP: &str = "istft";
    check_fs(OP, fs)?;
    let nd = zxx.ndim();
    if nd < 2 {
        return Err(Error::invalid(
            OP,
            format!("zxx must have at least 2 axes (shape {:?})", zxx.shape()),
        ));
    }
    let (nfreq, nseg) = (zxx.shape()[nd - 2], zxx.shape()[nd - 1]);
    let nperseg = nperseg.unwrap_or(2 * nfreq.saturating_sub(1));
    if nperseg < 1 || nperseg / 2 + 1 != nfreq {
        return Err(Error::invalid(
            OP,
            format!("nperseg ({nperseg}) does not match the {nfreq} one-sided frequencies of zxx"),
        ));
    }
    let noverlap = noverlap.unwrap_or(nperseg / 2);
    if noverlap >= nperseg {
        return Err(Error::invalid(
            OP,
            format!("noverlap ({noverlap}) must be less than nperseg ({nperseg})"),
        ));
    }
    let nstep = nperseg - noverlap;
    let win = get_window(window, nperseg, true)?;
    let out_len = nperseg + nseg.saturating_sub(1) * nstep;
    let mut norm = vec![0.0f64; out_len];
    for s in 0..nseg {
        for (i, w) in win.iter().enumerate() {
            norm[s * nstep + i] += w * w;
        }
    }
    // SciPy's check_NOLA: the squared windows summed over one step never vanish.
    let mut bins = vec![0.0f64; nstep];
    for (i, w) in win.iter().enumerate() {
        bins[i % nstep] += w * w;
    }
    if bins.iter().any(|&v| v <= 1e-10) {
        return Err(Error::invalid(
            OP,
            "the window, nperseg and noverlap do not satisfy the NOLA constraint",
        ));
    }
    let half = nperseg / 2;
    let keep = half..out_len.saturating_sub(half).max(half);
    // Segments (.., nseg, nperseg), each windowed and scaled back by sum(w).
    let segs = fft::irfft(
        &zxx.moveaxis(&[-1], &[-2])?,
        Some(nperseg),
        -1,
        Norm::Backward,
    )?;
    let wsum: f64 = win.iter().sum();
    let w: Vec<T> = win.iter().map(|&v| T::from_f64(v * wsum)).collect();
    let segs = segs.mul(&DeviceArray::from_vec(zxx.device(), w, &[nperseg][..])?)?;
    // Overlap-add: segment s lands at s * nstep; split each segment into r blocks of nstep.
    let r = nperseg.div_ceil(nstep);
    let lead = nd - 2;
    let mut padw = vec![(0usize, 0usize); nd];
    padw[nd - 1] = (0, r * nstep - nperseg);
    let segs = segs.pad(&padw, crate::PadMode::Constant(T::from_f64(0.0)))?;
    let mut bshape = segs.shape()[..lead].to_vec();
    bshape.extend([nseg, r, nstep]);
    let blocks = segs.reshape(&bshape[..])?;
    let mut acc: Option<DeviceArray<T>> = None;
    for j in 0..r {
        let mut spec = vec![
            SliceElem::Range {
                start: None,
                end: None,
                step: 1
            };
            lead + 1
        ];
        spec.push(SliceElem::Index(j as isize));
        let bj = blocks.slice(spec)?; // (.., nseg, nstep)
        let mut pw = vec![(0usize, 0usize); lead + 2];
        pw[lead] = (j, r - 1 - j);
        let placed = bj.pad(&pw, crate::PadMode::Constant(T::from_f64(0.0)))?;
        acc = Some(match acc {
            Some(a) => a.add(&placed)?,
            None => placed,
        });
    }
    let acc = acc.ok_or_else(|| Error::invalid(OP, "zxx has no segments"))?;
    let mut flat = acc.shape()[..lead].to_vec();
    flat.push((nseg + r - 1) * nstep);
    let full = acc.reshape(&flat[..])?;
    let inv: Vec<T> = norm[keep.clone()]
        .iter()
        .map(|&v| T::from_f64(1.0 / v))
        .collect();
    let mut spec = vec![
        SliceElem::Range {
            start: None,
            end: None,
            step: 1
        };
        lead
    ];
    spec.push(SliceElem::Range {
        start: Some(keep.start as isize),
        end: Some(keep.end as isize),
        step: 1,
    });
    let x = full.slice(spec)?.mul(&DeviceArray::from_vec(
        zxx.device(),
        inv,
        &[keep.len()][..],
    )?)?;
    let t = (0..keep.len()).map(|i| i as f64 / fs).collect();
    Ok((t, x))
}
