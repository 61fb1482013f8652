//! Image processing (`cuarray::ndimage`) on the GPU against host f64 references written
//! from scipy.ndimage's definitions: every boundary mode (reflect `d c b a | a b c d`,
//! mirror `d c b | a b c d`, nearest, wrap, constant), non-zero origins, 1-D, 2-D and 3-D
//! arrays of odd sizes, f32, f64 and u8 (SciPy's casts: truncation towards zero, then
//! wrapping), transposed (non-contiguous) inputs, empty and 0-d inputs, and the errors
//! naming the argument.

use crate::common::{add_gpu, ensure, gpu_trial, Rng, TResult};
use cuarray::ndimage::{self, Mode};
use cuarray::{DType, Device, DeviceArray, Element, NumElement};
use libtest_mimic::Trial;

const MODES: [Mode; 5] = [
    Mode::Reflect,
    Mode::Constant(1.5),
    Mode::Nearest,
    Mode::Mirror,
    Mode::Wrap,
];

/// Index `i` of a line of `n` extended as scipy.ndimage does, by repeated reflection
/// (written apart from the library's `Mode::index`).
fn ext(mode: Mode, mut i: isize, n: usize) -> Option<usize> {
    let n = n as isize;
    loop {
        if (0..n).contains(&i) {
            return Some(i as usize);
        }
        i = match mode {
            Mode::Constant(_) | Mode::GridConstant(_) => return None,
            Mode::Nearest => i.clamp(0, n - 1),
            Mode::Wrap | Mode::GridWrap => i.rem_euclid(n),
            Mode::Reflect | Mode::GridMirror if i < 0 => -i - 1,
            Mode::Reflect | Mode::GridMirror => 2 * n - 1 - i,
            Mode::Mirror if n == 1 => 0,
            Mode::Mirror if i < 0 => -i,
            Mode::Mirror => 2 * n - 2 - i,
        };
    }
}

/// `v` stored as `T` the way SciPy's C casts do on x86 (truncation, then wrapping for
/// integer types; rounding for floats), read back as f64.
fn cast<T: Element>(v: f64) -> f64 {
    let i = v.trunc() as i64;
    match T::DTYPE {
        DType::U8 => i as u8 as f64,
        DType::I8 => i as i8 as f64,
        DType::I16 => i as i16 as f64,
        DType::U16 => i as u16 as f64,
        DType::I32 => i as i32 as f64,
        DType::U32 => i as u32 as f64,
        DType::I64 => i as f64,
        DType::F32 => v as f32 as f64,
        _ => v,
    }
}

/// A host n-d array in f64.
#[derive(Clone)]
struct Img {
    shape: Vec<usize>,
    v: Vec<f64>,
}

impl Img {
    fn random<T: Element>(rng: &mut Rng, shape: &[usize]) -> Img {
        let n = shape.iter().product();
        let v = (0..n)
            .map(|_| match T::DTYPE {
                DType::U8 => rng.int(0, 255) as f64,
                _ => cast::<T>(rng.range(-10.0, 10.0)),
            })
            .collect();
        Img {
            shape: shape.to_vec(),
            v,
        }
    }

    fn strides(shape: &[usize]) -> Vec<usize> {
        let mut s = vec![1; shape.len()];
        for d in (0..shape.len().saturating_sub(1)).rev() {
            s[d] = s[d + 1] * shape[d + 1];
        }
        s
    }

    fn index(shape: &[usize], mut flat: usize) -> Vec<isize> {
        let mut idx = vec![0; shape.len()];
        for d in (0..shape.len()).rev() {
            idx[d] = (flat % shape[d]) as isize;
            flat /= shape[d];
        }
        idx
    }

    /// The value at `idx` (any integers), extended by `mode`.
    fn at(&self, idx: &[isize], mode: Mode) -> f64 {
        let st = Img::strides(&self.shape);
        let mut off = 0;
        for d in 0..idx.len() {
            match ext(mode, idx[d], self.shape[d]) {
                Some(m) => off += m * st[d],
                None => return mode.cval(),
            }
        }
        self.v[off]
    }

    /// Every output of a window of `wshape` whose first element sits at `start` from the
    /// output's index: `f` gets the window's values in C order.
    fn window(
        &self,
        wshape: &[usize],
        start: &[isize],
        mode: Mode,
        f: impl Fn(&[f64]) -> f64,
    ) -> Img {
        let wn: usize = wshape.iter().product();
        let v = (0..self.v.len())
            .map(|t| {
                let o = Img::index(&self.shape, t);
                let vals: Vec<f64> = (0..wn)
                    .map(|e| {
                        let w = Img::index(wshape, e);
                        let p: Vec<isize> = (0..o.len()).map(|d| o[d] + start[d] + w[d]).collect();
                        self.at(&p, mode)
                    })
                    .collect();
                f(&vals)
            })
            .collect();
        Img {
            shape: self.shape.clone(),
            v,
        }
    }

    /// A 1-d window of `len` along `axis` (SciPy's `start = -origin - len / 2`).
    fn line(
        &self,
        axis: usize,
        len: usize,
        origin: isize,
        mode: Mode,
        f: impl Fn(&[f64]) -> f64,
    ) -> Img {
        let mut wshape = vec![1; self.shape.len()];
        wshape[axis] = len;
        let mut start = vec![0; self.shape.len()];
        start[axis] = -origin - (len / 2) as isize;
        self.window(&wshape, &start, mode, f)
    }

    fn map(mut self, f: impl Fn(f64) -> f64) -> Img {
        self.v.iter_mut().for_each(|x| *x = f(*x));
        self
    }

    fn upload<T: Element>(
        &self,
        dev: &Device,
        transposed: bool,
    ) -> cuarray::Result<DeviceArray<T>> {
        let nd = self.shape.len();
        if !transposed || nd < 2 {
            let v: Vec<T> = self.v.iter().map(|&x| T::from_f64(x)).collect();
            return DeviceArray::from_host(dev, &v, &self.shape[..]);
        }
        // Stored with the axes reversed, then viewed back: a non-contiguous input.
        let rev: Vec<usize> = self.shape.iter().rev().copied().collect();
        let st = Img::strides(&self.shape);
        let v: Vec<T> = (0..self.v.len())
            .map(|t| {
                let r = Img::index(&rev, t);
                let off: usize = (0..nd).map(|d| r[nd - 1 - d] as usize * st[d]).sum();
                T::from_f64(self.v[off])
            })
            .collect();
        let axes: Vec<usize> = (0..nd).rev().collect();
        DeviceArray::from_host(dev, &v, &rev[..])?.permute(&axes[..])
    }
}

fn weighted(w: &[f64]) -> impl Fn(&[f64]) -> f64 + '_ {
    move |vals| vals.iter().zip(w).map(|(v, w)| v * w).sum()
}

fn check<T: Element>(what: &str, got: &DeviceArray<T>, want: &Img, tol: f64) -> TResult {
    check_within(what, got, want, tol, 0.0)
}

/// As `check`, also passing values within `abs` of the reference (integer results of
/// non-dyadic weights, whose sums may land either side of an integer).
fn check_within<T: Element>(
    what: &str,
    got: &DeviceArray<T>,
    want: &Img,
    tol: f64,
    abs: f64,
) -> TResult {
    ensure!(
        got.shape() == want.shape.as_slice(),
        "{what}: shape {:?}, want {:?}",
        got.shape(),
        want.shape
    );
    let g = got.to_host()?;
    for (i, (g, &w)) in g.iter().zip(&want.v).enumerate() {
        let g = g.to_f64();
        ensure!(
            (g - w).abs() <= tol * w.abs().max(1.0)
                || (g - w).abs() <= abs
                || (g.is_nan() && w.is_nan()),
            "{what}[{i}]: {g} != {w}"
        );
    }
    Ok(())
}

/// Tolerance of a float type's results (the device sums f32 in f32); integer results are
/// exact wherever the weights are dyadic.
fn tol<T: Element>() -> f64 {
    match T::DTYPE {
        DType::F32 => 2e-5,
        DType::F64 => 1e-12,
        _ => 0.0,
    }
}

const SHAPES: [&[usize]; 4] = [&[37], &[13, 29], &[5, 7, 9], &[1, 3]];

fn correlate1d_modes<T: NumElement>(dev: &Device, rng: &mut Rng) -> TResult {
    for shape in SHAPES {
        let img = Img::random::<T>(rng, shape);
        for transposed in [false, true] {
            let x = img.upload::<T>(dev, transposed)?;
            for axis in 0..shape.len() {
                for mode in MODES {
                    let len = 1 + rng.below(7);
                    // Dyadic weights: integer results have no rounding to disagree on.
                    let w: Vec<f64> = (0..len).map(|_| rng.int(-8, 8) as f64 / 8.0).collect();
                    let origin = rng.isize(-((len / 2) as isize), ((len - 1) / 2) as isize);
                    let what = format!(
                        "correlate1d {shape:?} axis {axis} {mode:?} w {w:?} origin {origin}"
                    );
                    let got = ndimage::correlate1d(&x, &w, axis as isize, mode, origin)?;
                    let want = img
                        .line(axis, len, origin, mode, weighted(&w))
                        .map(cast::<T>);
                    check(&what, &got, &want, tol::<T>())?;
                    let got = ndimage::convolve1d(&x, &w, axis as isize, mode, origin)?;
                    let rw: Vec<f64> = w.iter().rev().copied().collect();
                    let co = -origin - isize::from(len.is_multiple_of(2));
                    let want = img.line(axis, len, co, mode, weighted(&rw)).map(cast::<T>);
                    check(&format!("convolve1d: {what}"), &got, &want, tol::<T>())?;
                }
            }
        }
    }
    // A filter longer than the line, and one past the inline taps (a device array).
    let img = Img::random::<T>(rng, &[11, 6]);
    let x = img.upload::<T>(dev, false)?;
    for (axis, len) in [(0, 31), (1, 31), (0, 201), (1, 301)] {
        for mode in MODES {
            let w: Vec<f64> = (0..len).map(|_| rng.int(-8, 8) as f64 / 64.0).collect();
            let got = ndimage::correlate1d(&x, &w, axis as isize, mode, 0)?;
            let want = img.line(axis, len, 0, mode, weighted(&w)).map(cast::<T>);
            check(
                &format!("long correlate1d axis {axis} len {len} {mode:?}"),
                &got,
                &want,
                tol::<T>() * 10.0,
            )?;
        }
    }
    Ok(())
}

/// SciPy's `_gaussian_kernel1d(sigma, order, radius)[::-1]`, written from its definition.
fn gauss_taps(sigma: f64, order: usize, radius: usize) -> Vec<f64> {
    let r = radius as isize;
    let s2 = sigma * sigma;
    let phi: Vec<f64> = (-r..=r)
        .map(|x| (-0.5 / s2 * (x * x) as f64).exp())
        .collect();
    let sum: f64 = phi.iter().sum();
    let w: Vec<f64> = (-r..=r)
        .zip(&phi)
        .map(|(x, p)| {
            let x = x as f64;
            let poly = match order {
                0 => 1.0,
                1 => -x / s2,
                _ => (x * x - s2) / (s2 * s2),
            };
            poly * p / sum
        })
        .collect();
    w.into_iter().rev().collect()
}

fn gaussians<T: NumElement>(dev: &Device, rng: &mut Rng) -> TResult {
    // Integer results may differ by one where a sum lands next to an integer; u8 takes
    // order 0 only (a derivative's negative values wrap, and the one may be 255).
    let (t, abs) = (
        tol::<T>() * 5.0,
        if T::DTYPE == DType::U8 { 1.0 } else { 0.0 },
    );
    let max_order = if T::DTYPE == DType::U8 { 1 } else { 3 };
    for shape in [&[41usize][..], &[15, 23], &[5, 9, 7]] {
        let img = Img::random::<T>(rng, shape);
        let x = img.upload::<T>(dev, shape.len() == 2)?;
        for mode in MODES {
            let nd = shape.len();
            let sigma: Vec<f64> = (0..nd)
                .map(|d| if d == 1 { 0.0 } else { rng.range(0.5, 3.0) })
                .collect();
            let order: Vec<usize> = (0..nd).map(|_| rng.below(max_order)).collect();
            let truncate = if rng.bit() { 4.0 } else { 2.0 };
            let got = ndimage::gaussian_filter(&x, &sigma, &order, mode, truncate)?;
            let mut want = img.clone();
            for d in 0..nd {
                if sigma[d] > 1e-15 {
                    let radius = (truncate * sigma[d] + 0.5) as usize;
                    let w = gauss_taps(sigma[d], order[d], radius);
                    want = want.line(d, w.len(), 0, mode, weighted(&w)).map(cast::<T>);
                }
            }
            check_within(
                &format!("gaussian_filter {shape:?} {sigma:?} {order:?} {mode:?}"),
                &got,
                &want,
                t,
                abs,
            )?;
            let got = ndimage::gaussian_filter1d(&x, sigma[0], -1, order[0], mode, truncate)?;
            let radius = (truncate * sigma[0] + 0.5) as usize;
            let w = gauss_taps(sigma[0], order[0], radius);
            let want = img
                .line(nd - 1, w.len(), 0, mode, weighted(&w))
                .map(cast::<T>);
            check_within(
                &format!("gaussian_filter1d {shape:?} {mode:?}"),
                &got,
                &want,
                t,
                abs,
            )?;
        }
    }
    Ok(())
}

fn boxes<T: NumElement>(dev: &Device, rng: &mut Rng) -> TResult {
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let min = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
    let max = |v: &[f64]| v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    for shape in SHAPES {
        let img = Img::random::<T>(rng, shape);
        let x = img.upload::<T>(dev, true)?;
        let nd = shape.len();
        for mode in MODES {
            let size: Vec<usize> = (0..nd).map(|_| 1 + rng.below(5)).collect();
            let o = if size.iter().all(|&s| s >= 3) {
                rng.isize(-1, 1)
            } else {
                0
            };
            let what = format!("{shape:?} size {size:?} origin {o} {mode:?}");
            let got = ndimage::uniform_filter(&x, &size, mode, o)?;
            let mut want = img.clone();
            for (d, &len) in size.iter().enumerate() {
                if len > 1 {
                    want = want.line(d, len, o, mode, mean).map(cast::<T>);
                }
            }
            check(&format!("uniform_filter {what}"), &got, &want, tol::<T>())?;
            let got = ndimage::minimum_filter(&x, &size, mode)?;
            let mut want = img.clone();
            for (d, &len) in size.iter().enumerate() {
                want = want.line(d, len, 0, mode, min).map(cast::<T>);
            }
            check(&format!("minimum_filter {what}"), &got, &want, 0.0)?;
            let got = ndimage::maximum_filter1d(&x, size[0], 0, mode)?;
            let want = img.line(0, size[0], 0, mode, max).map(cast::<T>);
            check(&format!("maximum_filter1d {what}"), &got, &want, 0.0)?;
            let got = ndimage::uniform_filter1d(&x, size[0], -1, mode, 0)?;
            let want = img.line(nd - 1, size[0], 0, mode, mean).map(cast::<T>);
            check(&format!("uniform_filter1d {what}"), &got, &want, tol::<T>())?;
        }
    }
    Ok(())
}

fn derivatives<T: NumElement>(dev: &Device, rng: &mut Rng) -> TResult {
    let t = tol::<T>() * 5.0;
    for shape in [&[23usize][..], &[11, 17], &[5, 7, 9]] {
        let img = Img::random::<T>(rng, shape);
        let x = img.upload::<T>(dev, false)?;
        let nd = shape.len();
        for mode in MODES {
            for axis in 0..nd {
                for (name, smooth) in [("sobel", [1.0, 2.0, 1.0]), ("prewitt", [1.0, 1.0, 1.0])] {
                    let got = if name == "sobel" {
                        ndimage::sobel(&x, axis as isize, mode)?
                    } else {
                        ndimage::prewitt(&x, axis as isize, mode)?
                    };
                    let mut want = img
                        .line(axis, 3, 0, mode, weighted(&[-1.0, 0.0, 1.0]))
                        .map(cast::<T>);
                    for d in (0..nd).filter(|&d| d != axis) {
                        want = want.line(d, 3, 0, mode, weighted(&smooth)).map(cast::<T>);
                    }
                    check(
                        &format!("{name} {shape:?} axis {axis} {mode:?}"),
                        &got,
                        &want,
                        t,
                    )?;
                }
            }
            let got = ndimage::laplace(&x, mode)?;
            let mut want = img
                .line(0, 3, 0, mode, weighted(&[1.0, -2.0, 1.0]))
                .map(cast::<T>);
            for d in 1..nd {
                let t = img
                    .line(d, 3, 0, mode, weighted(&[1.0, -2.0, 1.0]))
                    .map(cast::<T>);
                want.v
                    .iter_mut()
                    .zip(&t.v)
                    .for_each(|(a, b)| *a = cast::<T>(*a + b));
            }
            check(&format!("laplace {shape:?} {mode:?}"), &got, &want, t)?;
            if T::DTYPE != DType::U8 {
                let s = rng.range(0.7, 2.0);
                let gauss = |orders: &[usize]| {
                    let mut w = img.clone();
                    for (d, &o) in orders.iter().enumerate() {
                        let taps = gauss_taps(s, o, (4.0 * s + 0.5) as usize);
                        w = w
                            .line(d, taps.len(), 0, mode, weighted(&taps))
                            .map(cast::<T>);
                    }
                    w
                };
                let axis_order = |a: usize, o: usize| {
                    (0..nd)
                        .map(|d| if d == a { o } else { 0 })
                        .collect::<Vec<_>>()
                };
                let mut lap = gauss(&axis_order(0, 2));
                let mut mag = gauss(&axis_order(0, 1)).map(|v| cast::<T>(v * v));
                for d in 1..nd {
                    let l = gauss(&axis_order(d, 2));
                    lap.v
                        .iter_mut()
                        .zip(&l.v)
                        .for_each(|(a, b)| *a = cast::<T>(*a + b));
                    let g = gauss(&axis_order(d, 1));
                    mag.v
                        .iter_mut()
                        .zip(&g.v)
                        .for_each(|(a, b)| *a = cast::<T>(*a + cast::<T>(b * b)));
                }
                let mag = mag.map(|v| cast::<T>(v.sqrt()));
                check(
                    &format!("gaussian_laplace {shape:?} {mode:?}"),
                    &ndimage::gaussian_laplace(&x, &[s], mode, 4.0)?,
                    &lap,
                    t,
                )?;
                check(
                    &format!("gaussian_gradient_magnitude {shape:?} {mode:?}"),
                    &ndimage::gaussian_gradient_magnitude(&x, &[s], mode, 4.0)?,
                    &mag,
                    t,
                )?;
            }
        }
    }
    Ok(())
}

fn correlate_nd<T: NumElement>(dev: &Device, rng: &mut Rng) -> TResult {
    for (shape, wshape) in [
        (&[19usize][..], &[4usize][..]),
        (&[9, 13], &[3, 2]),
        (&[9, 13], &[3, 3]),
        (&[5, 6, 7], &[3, 2, 3]),
    ] {
        let img = Img::random::<T>(rng, shape);
        let x = img.upload::<T>(dev, true)?;
        let wn: usize = wshape.iter().product();
        let w: Vec<f64> = (0..wn).map(|_| rng.int(-4, 4) as f64 / 4.0).collect();
        let wd = DeviceArray::from_host(dev, &w, wshape)?;
        let omin = wshape.iter().map(|&l| -((l / 2) as isize)).max().unwrap();
        let omax = wshape
            .iter()
            .map(|&l| ((l - 1) / 2) as isize)
            .min()
            .unwrap();
        for mode in MODES {
            for origin in omin..=omax {
                let start: Vec<isize> =
                    wshape.iter().map(|&l| -origin - (l / 2) as isize).collect();
                let want = img
                    .window(wshape, &start, mode, weighted(&w))
                    .map(cast::<T>);
                let got = ndimage::correlate(&x, &wd, mode, origin)?;
                check(
                    &format!("correlate {shape:?} w {wshape:?} origin {origin} {mode:?}"),
                    &got,
                    &want,
                    tol::<T>(),
                )?;
                // Convolution: the weights reversed, the origin negated (less one on even axes).
                let rw: Vec<f64> = w.iter().rev().copied().collect();
                let cstart: Vec<isize> = wshape
                    .iter()
                    .map(|&l| origin + isize::from(l.is_multiple_of(2)) - (l / 2) as isize)
                    .collect();
                let want = img
                    .window(wshape, &cstart, mode, weighted(&rw))
                    .map(cast::<T>);
                let got = ndimage::convolve(&x, &wd, mode, origin)?;
                check(
                    &format!("convolve {shape:?} w {wshape:?} origin {origin} {mode:?}"),
                    &got,
                    &want,
                    tol::<T>(),
                )?;
            }
        }
    }
    Ok(())
}

fn ranks<T: NumElement>(dev: &Device, rng: &mut Rng) -> TResult {
    for (shape, size) in [
        (&[31usize][..], &[5usize][..]),
        (&[11, 13], &[3, 3]),
        (&[11, 13], &[5, 5]),
        (&[11, 13], &[2, 3]),
        (&[5, 6, 7], &[3, 3, 3]),
        // Beyond the selection networks (64 elements): the quickselect path.
        (&[11, 13], &[9, 9]),
        (&[3, 4, 5, 6], &[3, 1, 3, 3]),
    ] {
        let img = Img::random::<T>(rng, shape);
        let x = img.upload::<T>(dev, shape.len() == 2)?;
        let count: usize = size.iter().product();
        let start: Vec<isize> = size.iter().map(|&l| -((l / 2) as isize)).collect();
        let kth_of = |k: usize| {
            move |v: &[f64]| {
                let mut s = v.to_vec();
                s.sort_by(|a, b| a.partial_cmp(b).unwrap());
                s[k]
            }
        };
        for mode in MODES {
            let what = format!("{shape:?} size {size:?} {mode:?}");
            let want = img
                .window(size, &start, mode, kth_of(count / 2))
                .map(cast::<T>);
            check(
                &format!("median_filter {what}"),
                &ndimage::median_filter(&x, size, mode)?,
                &want,
                0.0,
            )?;
            for rank in [0isize, 1, -1, -2] {
                let k = if rank < 0 {
                    count as isize + rank
                } else {
                    rank
                } as usize;
                let want = img.window(size, &start, mode, kth_of(k)).map(cast::<T>);
                check(
                    &format!("rank_filter {rank} {what}"),
                    &ndimage::rank_filter(&x, rank, size, mode)?,
                    &want,
                    0.0,
                )?;
            }
            for p in [25.0, -10.0, 100.0] {
                let q: f64 = if p < 0.0 { p + 100.0 } else { p };
                let k = ((count as f64 * q / 100.0) as usize).min(count - 1);
                let want = img.window(size, &start, mode, kth_of(k)).map(cast::<T>);
                check(
                    &format!("percentile_filter {p} {what}"),
                    &ndimage::percentile_filter(&x, p, size, mode)?,
                    &want,
                    0.0,
                )?;
            }
        }
    }
    Ok(())
}

fn bool_img(rng: &mut Rng, shape: &[usize], density: f64) -> Img {
    let n = shape.iter().product();
    Img {
        shape: shape.to_vec(),
        v: (0..n)
            .map(|_| f64::from(u8::from(rng.unit() < density)))
            .collect(),
    }
}

fn morphology(dev: &Device, rng: &mut Rng) -> TResult {
    let off = Mode::Constant(0.0);
    for (shape, sshape) in [
        (&[29usize][..], &[4usize][..]),
        (&[13, 17], &[3, 3]),
        (&[13, 17], &[2, 3]),
        (&[6, 7, 5], &[3, 3, 3]),
        // Rows of a multiple of 16 bytes: the default cross takes the byte-parallel kernel.
        (&[37, 48], &[3, 3]),
        (&[1, 32], &[3, 3]),
    ] {
        let nd = shape.len();
        let img = bool_img(rng, shape, 0.6);
        let m: DeviceArray<bool> = img.upload(dev, nd == 2)?;
        let mut custom = bool_img(rng, sshape, 0.7);
        custom.v[0] = 1.0;
        let default_s = ndimage::generate_binary_structure(dev, nd, 1)?;
        let cross = Img {
            shape: vec![3; nd],
            v: default_s
                .to_host()?
                .iter()
                .map(|&b| f64::from(u8::from(b)))
                .collect(),
        };
        for (s, sd) in [
            (&cross, None),
            (&custom, Some(custom.upload::<bool>(dev, false)?)),
        ] {
            let sv = s.v.clone();
            let estart: Vec<isize> = s.shape.iter().map(|&l| -((l / 2) as isize)).collect();
            // Dilation reads input[i - j + len / 2] for each true structure element j: the
            // reflected structure over the window starting at i + 1 - len + len / 2.
            let rs: Vec<f64> = sv.iter().rev().copied().collect();
            let dstart: Vec<isize> = s
                .shape
                .iter()
                .map(|&l| 1 - l as isize + (l / 2) as isize)
                .collect();
            let erode = |x: &Img| {
                x.window(&s.shape, &estart, off, |v| {
                    f64::from(u8::from(
                        v.iter().zip(&sv).all(|(x, s)| *s == 0.0 || *x != 0.0),
                    ))
                })
            };
            let dilate = |x: &Img| {
                x.window(&s.shape, &dstart, off, |v| {
                    f64::from(u8::from(
                        v.iter().zip(&rs).any(|(x, s)| *s != 0.0 && *x != 0.0),
                    ))
                })
            };
            for it in [1usize, 2] {
                let what = format!("{shape:?} structure {:?} iterations {it}", s.shape);
                let (mut e, mut d) = (img.clone(), img.clone());
                for _ in 0..it {
                    e = erode(&e);
                    d = dilate(&d);
                }
                check(
                    &format!("binary_erosion {what}"),
                    &ndimage::binary_erosion(&m, sd.as_ref(), it)?,
                    &e,
                    0.0,
                )?;
                check(
                    &format!("binary_dilation {what}"),
                    &ndimage::binary_dilation(&m, sd.as_ref(), it)?,
                    &d,
                    0.0,
                )?;
                let (mut o, mut c) = (e.clone(), d.clone());
                for _ in 0..it {
                    o = dilate(&o);
                    c = erode(&c);
                }
                check(
                    &format!("binary_opening {what}"),
                    &ndimage::binary_opening(&m, sd.as_ref(), it)?,
                    &o,
                    0.0,
                )?;
                check(
                    &format!("binary_closing {what}"),
                    &ndimage::binary_closing(&m, sd.as_ref(), it)?,
                    &c,
                    0.0,
                )?;
            }
            // Until nothing changes.
            let mut e = img.clone();
            loop {
                let n = erode(&e);
                if n.v == e.v {
                    break;
                }
                e = n;
            }
            check(
                &format!("binary_erosion {shape:?} until stable"),
                &ndimage::binary_erosion(&m, sd.as_ref(), 0)?,
                &e,
                0.0,
            )?;
        }
    }
    Ok(())
}

fn grey<T: NumElement>(dev: &Device, rng: &mut Rng) -> TResult {
    let min = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
    let max = |v: &[f64]| v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    for (shape, size) in [
        (&[31usize][..], &[4usize][..]),
        (&[11, 13], &[3, 3]),
        (&[11, 13], &[2, 5]),
        (&[5, 6, 7], &[3, 2, 3]),
    ] {
        let img = Img::random::<T>(rng, shape);
        let x = img.upload::<T>(dev, true)?;
        let es: Vec<isize> = size.iter().map(|&l| -((l / 2) as isize)).collect();
        let ds: Vec<isize> = size
            .iter()
            .map(|&l| 1 - l as isize + (l / 2) as isize)
            .collect();
        let erode = |i: &Img| i.window(size, &es, Mode::Reflect, min);
        let dilate = |i: &Img| i.window(size, &ds, Mode::Reflect, max);
        let what = format!("{shape:?} size {size:?}");
        let (e, d) = (erode(&img), dilate(&img));
        check(
            &format!("grey_erosion {what}"),
            &ndimage::grey_erosion(&x, size)?,
            &e,
            0.0,
        )?;
        check(
            &format!("grey_dilation {what}"),
            &ndimage::grey_dilation(&x, size)?,
            &d,
            0.0,
        )?;
        let (o, c) = (dilate(&e), erode(&d));
        check(
            &format!("grey_opening {what}"),
            &ndimage::grey_opening(&x, size)?,
            &o,
            0.0,
        )?;
        check(
            &format!("grey_closing {what}"),
            &ndimage::grey_closing(&x, size)?,
            &c,
            0.0,
        )?;
        let sub = |a: &Img, b: &Img| Img {
            shape: a.shape.clone(),
            v: a.v
                .iter()
                .zip(&b.v)
                .map(|(x, y)| cast::<T>(x - y))
                .collect(),
        };
        check(
            &format!("morphological_gradient {what}"),
            &ndimage::morphological_gradient(&x, size)?,
            &sub(&d, &e),
            0.0,
        )?;
        check(
            &format!("white_tophat {what}"),
            &ndimage::white_tophat(&x, size)?,
            &sub(&img, &o),
            0.0,
        )?;
        check(
            &format!("black_tophat {what}"),
            &ndimage::black_tophat(&x, size)?,
            &sub(&c, &img),
            0.0,
        )?;
    }
    Ok(())
}

fn edges_and_errors(dev: &Device) -> TResult {
    // Empty and 0-d inputs.
    let e = DeviceArray::<f32>::zeros(dev, [0, 5])?;
    ensure!(
        ndimage::gaussian_filter(&e, &[1.0], &[0], Mode::Reflect, 4.0)?.shape() == [0, 5],
        "empty gaussian"
    );
    ensure!(
        ndimage::median_filter(&e, &[3], Mode::Reflect)?.shape() == [0, 5],
        "empty median"
    );
    let s = DeviceArray::from_host(dev, &[7.0f64], [])?;
    ensure!(
        ndimage::gaussian_filter(&s, &[2.0], &[0], Mode::Reflect, 4.0)?.to_host()? == vec![7.0],
        "0-d gaussian"
    );
    ensure!(
        ndimage::median_filter(&s, &[1], Mode::Reflect)?.to_host()? == vec![7.0],
        "0-d median"
    );
    // Errors name the argument.
    let x = DeviceArray::<f32>::ones(dev, [4, 5])?;
    let named = |r: cuarray::Result<DeviceArray<f32>>, arg: &str| -> TResult {
        match r {
            Err(e) => {
                ensure!(e.to_string().contains(arg), "error {e} does not name {arg}");
                Ok(())
            }
            Ok(_) => Err(format!("no error for a bad {arg}").into()),
        }
    };
    named(
        ndimage::gaussian_filter(&x, &[-1.0], &[0], Mode::Reflect, 4.0),
        "sigma",
    )?;
    named(
        ndimage::gaussian_filter(&x, &[1.0], &[3], Mode::Reflect, 4.0),
        "order",
    )?;
    named(
        ndimage::gaussian_filter(&x, &[1.0, 2.0, 3.0], &[0], Mode::Reflect, 4.0),
        "sigma",
    )?;
    named(ndimage::uniform_filter(&x, &[0], Mode::Reflect, 0), "size")?;
    named(
        ndimage::uniform_filter(&x, &[3], Mode::Reflect, 2),
        "origin",
    )?;
    named(
        ndimage::correlate1d(&x, &[], 0, Mode::Reflect, 0),
        "weights",
    )?;
    let w1 = DeviceArray::from_slice(dev, &[1.0f64, 2.0])?;
    named(ndimage::correlate(&x, &w1, Mode::Reflect, 0), "weights")?;
    named(ndimage::rank_filter(&x, 9, &[3], Mode::Reflect), "rank")?;
    named(
        ndimage::percentile_filter(&x, 150.0, &[3], Mode::Reflect),
        "percentile",
    )?;
    named(ndimage::median_filter(&x, &[17, 17], Mode::Reflect), "size")?;
    let m = DeviceArray::<bool>::ones(dev, [4, 5])?;
    let s1 = DeviceArray::from_slice(dev, &[true, true, true])?;
    match ndimage::binary_erosion(&m, Some(&s1), 1) {
        Err(e) => ensure!(e.to_string().contains("structure"), "{e}"),
        Ok(_) => return Err("no error for a structure of another rank".into()),
    }
    ensure!(
        ndimage::sobel(&x, 2, Mode::Reflect).is_err(),
        "sobel axis 2 of a 2-d array"
    );
    Ok(())
}

macro_rules! typed {
    ($out:expr, $name:literal, $f:ident, $($t:ty),+) => {$(
        add_gpu($out, format!("ndimage/{}/{}/all_modes", $name, <$t as Element>::DTYPE.name()), |dev, rng| $f::<$t>(dev, rng));
    )+};
}

pub fn trials(out: &mut Vec<Trial>) {
    typed!(out, "correlate1d", correlate1d_modes, f32, f64, u8);
    typed!(out, "gaussian_filter", gaussians, f32, f64, u8);
    typed!(out, "uniform_min_max", boxes, f32, f64, u8);
    typed!(out, "sobel_prewitt_laplace", derivatives, f32, f64, u8);
    typed!(out, "correlate_convolve", correlate_nd, f32, f64, u8);
    typed!(out, "median_rank_percentile", ranks, f32, f64, u8);
    typed!(out, "grey_morphology", grey, f32, f64, u8, i16);
    add_gpu(
        out,
        "ndimage/binary_morphology/bool/structures".into(),
        morphology,
    );
    out.push(gpu_trial(
        "ndimage/errors/f32/empty_0d_bad_arguments",
        edges_and_errors,
    ));
}
