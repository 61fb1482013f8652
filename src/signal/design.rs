//! Filter design on the host, in `f64`, with SciPy's algorithms step for step: windows
//! (`get_window`), windowed-sinc FIR filters (`firwin`) and Butterworth IIR filters as
//! second-order sections (`butter`: `buttap` → frequency transform → `bilinear_zpk` →
//! `zpk2sos` with SciPy's "nearest" pairing).

use crate::{Error, Result};
use num_complex::Complex64;
use std::f64::consts::PI;

/// A window function (SciPy's `get_window` names; the parameterised ones carry their
/// parameter).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Window {
    /// Rectangular: all ones.
    Boxcar,
    /// Triangular, non-zero at the ends (SciPy's `triang`).
    Triang,
    /// Hann (raised cosine, zero at the ends when symmetric).
    Hann,
    /// Hamming (`0.54 - 0.46 cos`).
    Hamming,
    /// Blackman (`0.42 - 0.5 cos + 0.08 cos 2`).
    Blackman,
    /// Bartlett: triangular, zero at the ends.
    Bartlett,
    /// Kaiser with shape parameter `beta`.
    Kaiser(f64),
    /// Gaussian with standard deviation `std` (in samples).
    Gaussian(f64),
    /// Tukey (tapered cosine) with taper fraction `alpha` (0: boxcar, 1: Hann).
    Tukey(f64),
}

/// The filter type of [`butter`] (SciPy's `btype`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BType {
    /// Passes frequencies below the one critical frequency.
    Lowpass,
    /// Passes frequencies above the one critical frequency.
    Highpass,
    /// Passes frequencies between the two critical frequencies.
    Bandpass,
    /// Stops frequencies between the two critical frequencies.
    Bandstop,
}

/// `n` evenly spaced points from `a` to `b` (NumPy's `linspace`, endpoint included).
fn linspace(a: f64, b: f64, n: usize) -> Vec<f64> {
    if n == 1 {
        return vec![a];
    }
    let step = (b - a) / (n - 1) as f64;
    let mut v: Vec<f64> = (0..n).map(|i| a + i as f64 * step).collect();
    if let Some(last) = v.last_mut() {
        *last = b;
    }
    v
}

/// SciPy's `general_cosine`: `sum_k a[k] cos(k x)` over `x = linspace(-pi, pi, m)`
/// (the signs of `a` alternate to give the usual forms).
fn general_cosine(m: usize, a: &[f64]) -> Vec<f64> {
    linspace(-PI, PI, m)
        .into_iter()
        .map(|x| {
            a.iter()
                .enumerate()
                .map(|(k, c)| c * (k as f64 * x).cos())
                .sum()
        })
        .collect()
}

/// The modified Bessel function of the first kind, order 0, by its power series (every
/// term positive, so accurate to rounding for the arguments windows use).
pub(crate) fn bessel_i0(x: f64) -> f64 {
    let q = x * x / 4.0;
    let (mut term, mut sum, mut k) = (1.0f64, 1.0f64, 1.0f64);
    while term > sum * 1e-17 {
        term *= q / (k * k);
        sum += term;
        k += 1.0;
    }
    sum
}

/// The symmetric window of length `m >= 2`.
fn symmetric(window: Window, m: usize) -> Vec<f64> {
    let mf = m as f64;
    match window {
        Window::Boxcar => vec![1.0; m],
        Window::Triang => {
            let half: Vec<f64> = (1..=m.div_ceil(2))
                .map(|n| {
                    let n = n as f64;
                    if m.is_multiple_of(2) {
                        (2.0 * n - 1.0) / mf
                    } else {
                        2.0 * n / (mf + 1.0)
                    }
                })
                .collect();
            let skip = m % 2; // odd: the middle value once
            let mut w = half.clone();
            w.extend(half.iter().rev().skip(skip));
            w
        }
        Window::Hann => general_cosine(m, &[0.5, 0.5]),
        Window::Hamming => general_cosine(m, &[0.54, 0.46]),
        Window::Blackman => general_cosine(m, &[0.42, 0.50, 0.08]),
        Window::Bartlett => (0..m)
            .map(|n| {
                let n = n as f64;
                if n <= (mf - 1.0) / 2.0 {
                    2.0 * n / (mf - 1.0)
                } else {
                    2.0 - 2.0 * n / (mf - 1.0)
                }
            })
            .collect(),
        Window::Kaiser(beta) => {
            let alpha = (mf - 1.0) / 2.0;
            let den = bessel_i0(beta);
            (0..m)
                .map(|n| {
                    let r = (n as f64 - alpha) / alpha;
                    bessel_i0(beta * (1.0 - r * r).max(0.0).sqrt()) / den
                })
                .collect()
        }
        Window::Gaussian(std) => (0..m)
            .map(|n| {
                let x = n as f64 - (mf - 1.0) / 2.0;
                (-x * x / (2.0 * std * std)).exp()
            })
            .collect(),
        Window::Tukey(alpha) => {
            if alpha <= 0.0 {
                return vec![1.0; m];
            }
            if alpha >= 1.0 {
                return symmetric(Window::Hann, m);
            }
            let width = (alpha * (mf - 1.0) / 2.0).floor() as usize;
            (0..m)
                .map(|n| {
                    let nf = n as f64;
                    if n <= width {
                        0.5 * (1.0 + (PI * (-1.0 + 2.0 * nf / alpha / (mf - 1.0))).cos())
                    } else if n < m - width - 1 {
                        1.0
                    } else {
                        0.5 * (1.0
                            + (PI * (-2.0 / alpha + 1.0 + 2.0 * nf / alpha / (mf - 1.0))).cos())
                    }
                })
                .collect()
        }
    }
}

/// The window `window` of `n` points (SciPy's `get_window`): periodic when `fftbins`
/// (the symmetric window of `n + 1` points without its last, for spectral analysis),
/// symmetric otherwise (for filter design). `n = 1` gives `[1]`.
///
/// ```
/// use cuarray::signal::{get_window, Window};
/// let w = get_window(Window::Hann, 4, true)?;
/// assert!((w[0] - 0.0).abs() < 1e-15 && (w[2] - 1.0).abs() < 1e-15);
/// let s = get_window(Window::Hann, 3, false)?;
/// assert!((s[1] - 1.0).abs() < 1e-15 && s[2].abs() < 1e-15);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] for `n = 0` (as SciPy), a non-positive Gaussian `std` or a
/// non-finite parameter.
pub fn get_window(window: Window, n: usize, fftbins: bool) -> Result<Vec<f64>> {
    let bad = match window {
        Window::Kaiser(b) => (!b.is_finite()).then_some("beta"),
        Window::Gaussian(s) => (!(s > 0.0 && s.is_finite())).then_some("std"),
        Window::Tukey(a) => (!a.is_finite()).then_some("alpha"),
        _ => None,
    };
    if let Some(name) = bad {
        return Err(Error::invalid(
            "get_window",
            format!("window parameter {name} of {window:?} must be finite (and std > 0)"),
        ));
    }
    if n == 0 {
        return Err(Error::invalid("get_window", "n must be positive (got 0)"));
    }
    if n == 1 {
        return Ok(vec![1.0]);
    }
    let m = if fftbins { n + 1 } else { n };
    let mut w = symmetric(window, m);
    w.truncate(n);
    Ok(w)
}

fn sinc(x: f64) -> f64 {
    if x == 0.0 {
        1.0
    } else {
        (PI * x).sin() / (PI * x)
    }
}

/// A linear-phase FIR filter of `numtaps` coefficients by the window method (SciPy's
/// `firwin` with `scale=True`): `cutoff` holds the band edges (strictly increasing,
/// between 0 and the Nyquist frequency `fs / 2`; `fs = None` means 2, frequencies in
/// units of Nyquist), `pass_zero` whether the band at frequency 0 passes, `window` the
/// taper (SciPy's default is [`Window::Hamming`]). The filter is scaled to unit gain at
/// the centre of its first pass band.
///
/// ```
/// use cuarray::signal::{firwin, Window};
/// let h = firwin(5, &[0.5], Window::Hamming, true, None)?; // low pass at fs/4
/// assert_eq!(h.len(), 5);
/// assert!((h.iter().sum::<f64>() - 1.0).abs() < 1e-12); // unit gain at DC
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] for `numtaps = 0`, an empty `cutoff`, a cutoff outside
/// `(0, fs/2)`, cutoffs not strictly increasing, `fs <= 0`, or an even `numtaps` with a
/// pass band at Nyquist (SciPy's conditions).
pub fn firwin(
    numtaps: usize,
    cutoff: &[f64],
    window: Window,
    pass_zero: bool,
    fs: Option<f64>,
) -> Result<Vec<f64>> {
    const OP: &str = "firwin";
    if numtaps == 0 {
        return Err(Error::invalid(OP, "numtaps must be at least 1"));
    }
    let fs = fs.unwrap_or(2.0);
    if !(fs > 0.0 && fs.is_finite()) {
        return Err(Error::invalid(
            OP,
            format!("fs must be positive (got {fs})"),
        ));
    }
    if cutoff.is_empty() {
        return Err(Error::invalid(
            OP,
            "at least one cutoff frequency must be given",
        ));
    }
    let nyq = 0.5 * fs;
    let c: Vec<f64> = cutoff.iter().map(|f| f / nyq).collect();
    if c.iter().any(|&f| !(f > 0.0 && f < 1.0)) {
        return Err(Error::invalid(
            OP,
            format!(
                "cutoff {cutoff:?}: frequencies must be greater than 0 and less than fs/2 = {nyq}"
            ),
        ));
    }
    if c.windows(2).any(|p| p[1] <= p[0]) {
        return Err(Error::invalid(
            OP,
            format!("cutoff {cutoff:?}: frequencies must be strictly increasing"),
        ));
    }
    let pass_nyquist = (c.len() % 2 == 1) ^ pass_zero;
    if pass_nyquist && numtaps.is_multiple_of(2) {
        return Err(Error::invalid(
            OP,
            format!(
                "numtaps = {numtaps}: a filter with an even number of coefficients must have zero response at the Nyquist frequency"
            ),
        ));
    }
    let mut edges = Vec::with_capacity(c.len() + 2);
    if pass_zero {
        edges.push(0.0);
    }
    edges.extend_from_slice(&c);
    if pass_nyquist {
        edges.push(1.0);
    }
    let alpha = 0.5 * (numtaps as f64 - 1.0);
    let m: Vec<f64> = (0..numtaps).map(|i| i as f64 - alpha).collect();
    let win = get_window(window, numtaps, false)?;
    let mut h: Vec<f64> = m
        .iter()
        .zip(&win)
        .map(|(&mi, w)| {
            let mut v = 0.0;
            for band in edges.chunks(2) {
                let (left, right) = (band[0], band[1]);
                v += right * sinc(right * mi);
                v -= left * sinc(left * mi);
            }
            v * w
        })
        .collect();
    let (left, right) = (edges[0], edges[1]);
    let f = if left == 0.0 {
        0.0
    } else if right == 1.0 {
        1.0
    } else {
        0.5 * (left + right)
    };
    let s: f64 = h
        .iter()
        .zip(&m)
        .map(|(hi, mi)| hi * (PI * mi * f).cos())
        .sum();
    h.iter_mut().for_each(|v| *v /= s);
    Ok(h)
}

/// Zeros, poles and gain of a filter.
struct Zpk {
    z: Vec<Complex64>,
    p: Vec<Complex64>,
    k: f64,
}

fn prod_ratio(num: impl Iterator<Item = Complex64>, den: impl Iterator<Item = Complex64>) -> f64 {
    let n: Complex64 = num.product();
    let d: Complex64 = den.product();
    (n / d).re
}

/// SciPy's `_cplxreal`: one of each conjugate pair (positive imaginary part, sorted by
/// real part then imaginary part, pairs averaged) followed by the real values sorted.
fn cplxreal(mut z: Vec<Complex64>) -> Vec<Complex64> {
    let tol = 100.0 * f64::EPSILON;
    z.sort_by(|a, b| {
        a.re.partial_cmp(&b.re)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(
                a.im.abs()
                    .partial_cmp(&b.im.abs())
                    .unwrap_or(std::cmp::Ordering::Equal),
            )
    });
    let (real, cplx): (Vec<Complex64>, Vec<Complex64>) =
        z.into_iter().partition(|v| v.im.abs() <= tol * v.norm());
    let mut zp: Vec<Complex64> = cplx.iter().copied().filter(|v| v.im > 0.0).collect();
    let mut zn: Vec<Complex64> = cplx.iter().copied().filter(|v| v.im < 0.0).collect();
    // Runs of (nearly) the same real part are ordered by the imaginary part's size.
    let mut start = 0;
    while start < zp.len() {
        let mut stop = start + 1;
        while stop < zp.len() && zp[stop].re - zp[stop - 1].re <= tol * zp[stop - 1].norm() {
            stop += 1;
        }
        let by_im = |a: &Complex64, b: &Complex64| {
            a.im.abs()
                .partial_cmp(&b.im.abs())
                .unwrap_or(std::cmp::Ordering::Equal)
        };
        zp[start..stop].sort_by(by_im);
        if stop <= zn.len() {
            zn[start..stop].sort_by(by_im);
        }
        start = stop;
    }
    let mut out: Vec<Complex64> = zp
        .iter()
        .zip(&zn)
        .map(|(a, b)| (a + b.conj()) / 2.0)
        .collect();
    out.extend(real.into_iter().map(|v| Complex64::new(v.re, 0.0)));
    out
}

fn is_real(v: Complex64) -> bool {
    v.im == 0.0
}

/// Index of the value of `from` nearest `to` among the real ones (`Some(true)`), the
/// complex ones (`Some(false)`) or all (`None`); the first of equals, as NumPy's argsort.
fn nearest(from: &[Complex64], to: Complex64, real: Option<bool>) -> usize {
    let mut best: Option<(usize, f64)> = None;
    for (i, v) in from.iter().enumerate() {
        if real.is_some_and(|r| r != is_real(*v)) {
            continue;
        }
        let d = (v - to).norm();
        if best.is_none_or(|(_, bd)| d < bd) {
            best = Some((i, d));
        }
    }
    best.map_or(0, |(i, _)| i)
}

/// Index of the pole closest to the unit circle (the first of equals).
fn worst(p: &[Complex64], only_real: bool) -> usize {
    let mut best: Option<(usize, f64)> = None;
    for (i, v) in p.iter().enumerate() {
        if only_real && !is_real(*v) {
            continue;
        }
        let d = (1.0 - v.norm()).abs();
        if best.is_none_or(|(_, bd)| d < bd) {
            best = Some((i, d));
        }
    }
    best.map_or(0, |(i, _)| i)
}

/// The monic polynomial with roots `r` (at most two), its real part, as `np.poly`.
fn poly(r: &[Complex64]) -> Vec<f64> {
    let mut a = vec![Complex64::new(1.0, 0.0)];
    for &root in r {
        let mut next = vec![Complex64::new(0.0, 0.0); a.len() + 1];
        for (i, c) in a.iter().enumerate() {
            next[i] += c;
            next[i + 1] -= c * root;
        }
        a = next;
    }
    a.into_iter().map(|c| c.re).collect()
}

fn section(z: &[Complex64], p: &[Complex64]) -> [f64; 6] {
    let (b, a) = (poly(z), poly(p));
    let mut s = [0.0; 6];
    s[3 - b.len()..3].copy_from_slice(&b);
    s[6 - a.len()..6].copy_from_slice(&a);
    s
}

/// SciPy's `zpk2sos` for a digital filter with `pairing='nearest'`.
fn zpk2sos(zpk: Zpk) -> Vec<[f64; 6]> {
    let Zpk { mut z, mut p, k } = zpk;
    if z.is_empty() && p.is_empty() {
        return vec![[k, 0.0, 0.0, 1.0, 0.0, 0.0]];
    }
    let zero = Complex64::new(0.0, 0.0);
    let len = z.len().max(p.len());
    p.resize(len, zero);
    z.resize(len, zero);
    let n_sections = len.div_ceil(2);
    if len % 2 == 1 {
        p.push(zero);
        z.push(zero);
    }
    let mut z = cplxreal(z);
    let mut p = cplxreal(p);
    let mut sos = vec![[0.0; 6]; n_sections];
    for si in (0..n_sections).rev() {
        let p1 = p.remove(worst(&p, false));
        let n_real_p = p.iter().filter(|v| is_real(**v)).count();
        let n_real_z = z.iter().filter(|v| is_real(**v)).count();
        if is_real(p1) && n_real_p == 0 {
            let z1 = z.remove(nearest(&z, p1, Some(true)));
            sos[si] = section(&[z1, zero], &[p1, zero]);
        } else if p.len() + 1 == z.len() && !is_real(p1) && n_real_p == 1 && n_real_z == 1 {
            let z1 = z.remove(nearest(&z, p1, Some(false)));
            sos[si] = section(&[z1, z1.conj()], &[p1, p1.conj()]);
        } else {
            let p2 = if is_real(p1) {
                p.remove(worst(&p, true))
            } else {
                p1.conj()
            };
            sos[si] = if z.is_empty() {
                section(&[], &[p1, p2])
            } else {
                let z1 = z.remove(nearest(&z, p1, None));
                if !is_real(z1) {
                    section(&[z1, z1.conj()], &[p1, p2])
                } else if !z.is_empty() {
                    let z2 = z.remove(nearest(&z, p1, Some(true)));
                    section(&[z1, z2], &[p1, p2])
                } else {
                    section(&[z1], &[p1, p2])
                }
            };
        }
    }
    for c in &mut sos[0][..3] {
        *c *= k;
    }
    sos
}

/// A Butterworth digital filter of order `order` as second-order sections (SciPy's
/// `butter(order, wn, btype, output='sos', fs=fs)`): each row `[b0, b1, b2, 1, a1, a2]`,
/// in SciPy's order (the poles closest to the unit circle last). `wn` holds one critical
/// frequency (low and high pass) or two (band pass and band stop), in the units of `fs`,
/// or as fractions of Nyquist when `fs` is `None`. Use the result with
/// [`sosfilt`](crate::signal::sosfilt) after copying it to the device.
///
/// ```
/// use cuarray::signal::{butter, BType};
/// let sos = butter(4, &[0.2], BType::Lowpass, None)?;
/// assert_eq!(sos.len(), 2);
/// let bp = butter(3, &[100.0, 200.0], BType::Bandpass, Some(1000.0))?;
/// assert_eq!(bp.len(), 3);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] when `wn` has the wrong number of frequencies for `btype`,
/// a frequency is outside `(0, fs/2)` (`(0, 1)` without `fs`), or `fs <= 0`.
pub fn butter(order: usize, wn: &[f64], btype: BType, fs: Option<f64>) -> Result<Vec<[f64; 6]>> {
    const OP: &str = "butter";
    let band = matches!(btype, BType::Bandpass | BType::Bandstop);
    if wn.len() != if band { 2 } else { 1 } {
        return Err(Error::invalid(
            OP,
            format!(
                "wn {wn:?}: {btype:?} takes {} critical frequenc{}",
                if band { 2 } else { 1 },
                if band { "ies (start and stop)" } else { "y" }
            ),
        ));
    }
    if let Some(f) = fs {
        if !(f > 0.0 && f.is_finite()) {
            return Err(Error::invalid(OP, format!("fs must be positive (got {f})")));
        }
    }
    let w: Vec<f64> = match fs {
        Some(f) => wn.iter().map(|v| 2.0 * v / f).collect(),
        None => wn.to_vec(),
    };
    if w.iter().any(|&v| !(v > 0.0 && v < 1.0)) {
        return Err(Error::invalid(
            OP,
            match fs {
                Some(f) => format!(
                    "wn {wn:?}: digital filter critical frequencies must be 0 < wn < fs/2 = {}",
                    f / 2.0
                ),
                None => {
                    format!("wn {wn:?}: digital filter critical frequencies must be 0 < wn < 1")
                }
            },
        ));
    }
    // buttap: poles on the left half of the unit circle.
    let n = order as f64;
    let p: Vec<Complex64> = (0..order)
        .map(|i| {
            let m = -n + 1.0 + 2.0 * i as f64;
            -Complex64::new(0.0, PI * m / (2.0 * n)).exp()
        })
        .collect();
    let z: Vec<Complex64> = Vec::new();
    let fs2 = 2.0; // the bilinear transform's fs for normalised frequencies
    let warped: Vec<f64> = w.iter().map(|v| 2.0 * fs2 * (PI * v / fs2).tan()).collect();
    let degree = p.len() - z.len();
    let zpk = match btype {
        BType::Lowpass => {
            let wo = warped[0];
            Zpk {
                z: z.iter().map(|v| v * wo).collect(),
                p: p.iter().map(|v| v * wo).collect(),
                k: wo.powi(degree as i32),
            }
        }
        BType::Highpass => {
            let wo = warped[0];
            let k = prod_ratio(z.iter().map(|v| -v), p.iter().map(|v| -v));
            let mut zh: Vec<Complex64> = z.iter().map(|v| wo / v).collect();
            zh.resize(zh.len() + degree, Complex64::new(0.0, 0.0));
            Zpk {
                z: zh,
                p: p.iter().map(|v| wo / v).collect(),
                k,
            }
        }
        BType::Bandpass | BType::Bandstop => {
            let bw = warped[1] - warped[0];
            let wo = (warped[0] * warped[1]).sqrt();
            let split = |v: &[Complex64]| -> Vec<Complex64> {
                let r: Vec<Complex64> = v.iter().map(|x| (x * x - wo * wo).sqrt()).collect();
                let mut out: Vec<Complex64> = v.iter().zip(&r).map(|(x, s)| x + s).collect();
                out.extend(v.iter().zip(&r).map(|(x, s)| x - s));
                out
            };
            if btype == BType::Bandpass {
                let zl: Vec<Complex64> = z.iter().map(|v| v * bw / 2.0).collect();
                let pl: Vec<Complex64> = p.iter().map(|v| v * bw / 2.0).collect();
                let mut zb = split(&zl);
                zb.resize(zb.len() + degree, Complex64::new(0.0, 0.0));
                Zpk {
                    z: zb,
                    p: split(&pl),
                    k: bw.powi(degree as i32),
                }
            } else {
                let k = prod_ratio(z.iter().map(|v| -v), p.iter().map(|v| -v));
                let zh: Vec<Complex64> = z.iter().map(|v| (bw / 2.0) / v).collect();
                let ph: Vec<Complex64> = p.iter().map(|v| (bw / 2.0) / v).collect();
                let mut zb = split(&zh);
                zb.extend(std::iter::repeat_n(Complex64::new(0.0, wo), degree));
                zb.extend(std::iter::repeat_n(Complex64::new(0.0, -wo), degree));
                Zpk {
                    z: zb,
                    p: split(&ph),
                    k,
                }
            }
        }
    };
    // bilinear_zpk with fs = 2.
    let f2 = Complex64::new(2.0 * fs2, 0.0);
    let degree = zpk.p.len() - zpk.z.len();
    let k = zpk.k * prod_ratio(zpk.z.iter().map(|v| f2 - v), zpk.p.iter().map(|v| f2 - v));
    let mut zz: Vec<Complex64> = zpk.z.iter().map(|v| (f2 + v) / (f2 - v)).collect();
    zz.resize(zz.len() + degree, Complex64::new(-1.0, 0.0));
    let pz: Vec<Complex64> = zpk.p.iter().map(|v| (f2 + v) / (f2 - v)).collect();
    Ok(zpk2sos(Zpk { z: zz, p: pz, k }))
}

/// A Chebyshev type I low-pass digital filter as second-order sections (SciPy's
/// `cheby1(order, rp, wn, output='sos')`): `rp` dB of pass-band ripple, `wn` the edge as
/// a fraction of Nyquist. For [`decimate`](super::decimate).
pub(crate) fn cheby1_lowpass(order: usize, rp: f64, wn: f64) -> Vec<[f64; 6]> {
    let n = order as f64;
    let eps = (10f64.powf(0.1 * rp) - 1.0).sqrt();
    let mu = (1.0 / eps).asinh() / n;
    let p: Vec<Complex64> = (0..order)
        .map(|i| {
            let theta = PI * (-n + 1.0 + 2.0 * i as f64) / (2.0 * n);
            -Complex64::new(mu, theta).sinh()
        })
        .collect();
    let mut k = p.iter().map(|v| -v).product::<Complex64>().re;
    if order.is_multiple_of(2) {
        k /= (1.0 + eps * eps).sqrt();
    }
    let wo = 4.0 * (PI * wn / 2.0).tan();
    let p: Vec<Complex64> = p.iter().map(|v| v * wo).collect();
    let k = k * wo.powi(order as i32);
    let f2 = Complex64::new(4.0, 0.0);
    let kz = k * prod_ratio(std::iter::empty(), p.iter().map(|v| f2 - v));
    let pz: Vec<Complex64> = p.iter().map(|v| (f2 + v) / (f2 - v)).collect();
    zpk2sos(Zpk {
        z: vec![Complex64::new(-1.0, 0.0); order],
        p: pz,
        k: kz,
    })
}

#[cfg(test)]
#[rustfmt::skip] // embedded SciPy tables, one call per line
#[path = "design_tests.rs"]
mod tests;
