//! `cuarray::fft` against a host DFT in f64: sizes that are powers of two, odd and prime
//! (7, 97, 1009), every norm, axes (non-last, negative, non-adjacent, strided views),
//! padding and cropping, odd-length inverse real transforms (input left unchanged), round
//! trips at large sizes, fftshift/fftfreq against NumPy's formulas, the plan cache's
//! counters.

use crate::common::{add_gpu, ensure, gpu_trial_exclusive, Rng, TResult};
use cuarray::fft::{self, Norm};
use cuarray::{s, Complex32, Complex64, Device, DeviceArray};
use libtest_mimic::Trial;

type C = (f64, f64);

/// The DFT of `x` (forward: e^{-2πi jk/n}), unscaled.
fn dft(x: &[C], inverse: bool) -> Vec<C> {
    let n = x.len();
    let sign = if inverse { 1.0 } else { -1.0 };
    (0..n)
        .map(|k| {
            let mut acc = (0.0, 0.0);
            for (j, &(re, im)) in x.iter().enumerate() {
                // Reduce jk mod n first: exact angles for large n.
                let t = sign * 2.0 * std::f64::consts::PI * ((j * k) % n) as f64 / n as f64;
                let (s, c) = t.sin_cos();
                acc.0 += re * c - im * s;
                acc.1 += re * s + im * c;
            }
            acc
        })
        .collect()
}

/// The DFT along `axis` of a row-major array of `shape`.
fn dft_axis(x: &[C], shape: &[usize], axis: usize, inverse: bool) -> Vec<C> {
    let n = shape[axis];
    let inner: usize = shape[axis + 1..].iter().product();
    let outer: usize = shape[..axis].iter().product();
    let mut out = x.to_vec();
    for o in 0..outer {
        for i in 0..inner {
            let at = |k: usize| o * n * inner + k * inner + i;
            let line: Vec<C> = (0..n).map(|k| x[at(k)]).collect();
            for (k, v) in dft(&line, inverse).into_iter().enumerate() {
                out[at(k)] = v;
            }
        }
    }
    out
}

/// `x` of `shape` cropped or zero-padded to `to`.
fn resize(x: &[C], shape: &[usize], to: &[usize]) -> Vec<C> {
    let size: usize = to.iter().product();
    let mut out = vec![(0.0, 0.0); size];
    for (flat, v) in out.iter_mut().enumerate() {
        let (mut r, mut src, mut ok) = (flat, 0usize, true);
        let mut stride = 1;
        for d in (0..to.len()).rev() {
            let idx = r % to[d];
            r /= to[d];
            if idx >= shape[d] {
                ok = false;
            }
            src += idx * stride;
            stride *= shape[d];
        }
        if ok {
            *v = x[src];
        }
    }
    out
}

fn scale_all(x: &mut [C], f: f64) {
    for v in x {
        v.0 *= f;
        v.1 *= f;
    }
}

/// Largest error relative to the largest reference magnitude.
fn rel_err(got: &[C], want: &[C]) -> f64 {
    let big = want.iter().map(|v| v.0.hypot(v.1)).fold(1e-300, f64::max);
    got.iter()
        .zip(want)
        .map(|(a, b)| (a.0 - b.0).hypot(a.1 - b.1))
        .fold(0.0, f64::max)
        / big
}

fn rand_c(rng: &mut Rng, n: usize) -> Vec<C> {
    (0..n)
        .map(|_| (rng.range(-1.0, 1.0), rng.range(-1.0, 1.0)))
        .collect()
}

/// Complex element types with their host conversions and a tolerance.
trait Cx: fft::FftInput + Copy {
    const TOL: f64;
    fn make(v: C) -> Self;
}
impl Cx for Complex32 {
    const TOL: f64 = 2e-5;
    fn make(v: C) -> Self {
        Complex32::new(v.0 as f32, v.1 as f32)
    }
}
impl Cx for Complex64 {
    const TOL: f64 = 1e-12;
    fn make(v: C) -> Self {
        Complex64::new(v.0, v.1)
    }
}

fn upload<T: Cx>(dev: &Device, x: &[C], shape: &[usize]) -> cuarray::Result<DeviceArray<T>> {
    let h: Vec<T> = x.iter().map(|&v| T::make(v)).collect();
    DeviceArray::from_host(dev, &h, shape)
}

fn download<T: Element2>(a: &DeviceArray<T>) -> cuarray::Result<Vec<C>> {
    Ok(a.to_host()?.into_iter().map(Element2::get2).collect())
}

/// Host values of the result types (complex or real).
trait Element2: cuarray::Element {
    fn get2(self) -> C;
}
impl Element2 for Complex32 {
    fn get2(self) -> C {
        (self.re as f64, self.im as f64)
    }
}
impl Element2 for Complex64 {
    fn get2(self) -> C {
        (self.re, self.im)
    }
}
impl Element2 for f32 {
    fn get2(self) -> C {
        (self as f64, 0.0)
    }
}
impl Element2 for f64 {
    fn get2(self) -> C {
        (self, 0.0)
    }
}

fn check(name: &str, got: &[C], want: &[C], tol: f64) -> TResult {
    ensure!(
        got.len() == want.len(),
        "{name}: {} values, want {}",
        got.len(),
        want.len()
    );
    let e = rel_err(got, want);
    ensure!(e <= tol, "{name}: relative error {e:.3e} > {tol:.1e}");
    Ok(())
}

const SIZES: [usize; 9] = [1, 2, 8, 64, 7, 15, 97, 256, 1009];

fn c2c_sizes<T: Cx>(dev: &Device, rng: &mut Rng) -> TResult
where
    fft::ComplexOf<T>: Element2,
{
    for n in SIZES {
        let x = rand_c(rng, n);
        let a = upload::<T>(dev, &x, &[n])?;
        let tol = T::TOL * (n as f64).log2().max(1.0);
        let f = fft::fft(&a, None, -1, Norm::Backward)?;
        check(&format!("fft n={n}"), &download(&f)?, &dft(&x, false), tol)?;
        let mut want = dft(&x, true);
        scale_all(&mut want, 1.0 / n as f64);
        let i = fft::ifft(&a, None, 0, Norm::Backward)?;
        check(&format!("ifft n={n}"), &download(&i)?, &want, tol)?;
    }
    Ok(())
}

fn real_sizes<R>(dev: &Device, rng: &mut Rng, tol: f64) -> TResult
where
    R: fft::FftRealInput<Real = R> + fft::FftFloat + Element2,
    <R as fft::FftFloat>::Complex: Element2 + fft::FftInput<Real = R>,
{
    for n in SIZES {
        let xr: Vec<f64> = (0..n).map(|_| rng.range(-1.0, 1.0)).collect();
        let x: Vec<C> = xr.iter().map(|&v| (v, 0.0)).collect();
        let h: Vec<R> = xr.iter().map(|&v| R::from_f64(v)).collect();
        let a = DeviceArray::from_host(dev, &h, &[n])?;
        let tol = tol * (n as f64).log2().max(1.0);
        let full = dft(&x, false);
        // fft of real input: converted to complex.
        let f = fft::fft(&a, None, 0, Norm::Backward)?;
        check(&format!("fft(real) n={n}"), &download(&f)?, &full, tol)?;
        let r = fft::rfft(&a, None, -1, Norm::Backward)?;
        check(
            &format!("rfft n={n}"),
            &download(&r)?,
            &full[..n / 2 + 1],
            tol,
        )?;
        // irfft with the odd or even length given: back to x, input unchanged.
        let before = download(&r)?;
        let back = fft::irfft(&r, Some(n), -1, Norm::Backward)?;
        check(&format!("irfft n={n}"), &download(&back)?, &x, tol)?;
        ensure!(download(&r)? == before, "irfft n={n} changed its input");
    }
    Ok(())
}

/// NumPy's irfft of m complex terms to n outputs, on the host: the Hermitian extension
/// (imaginary parts of the zero and, for even n, the Nyquist term ignored), inverse DFT.
fn host_irfft(x: &[C], n: usize) -> Vec<C> {
    let m = n / 2 + 1;
    let mut full = vec![(0.0, 0.0); n];
    let k = m.min(x.len());
    full[..k].copy_from_slice(&x[..k]);
    full[0].1 = 0.0;
    if n.is_multiple_of(2) {
        full[n / 2].1 = 0.0;
    }
    for k in 1..n - n / 2 {
        let v = full[k];
        full[n - k] = (v.0, -v.1);
    }
    let mut out = dft(&full, true);
    scale_all(&mut out, 1.0 / n as f64);
    out.into_iter().map(|v| (v.0, 0.0)).collect()
}

fn irfft_odd(dev: &Device, rng: &mut Rng) -> TResult {
    for (m, n) in [(4, 7), (4, 6), (5, 7), (3, 9), (49, 97), (6, 5), (1, 1)] {
        let x = rand_c(rng, m);
        let a = upload::<Complex64>(dev, &x, &[m])?;
        let before = a.to_host()?;
        let got = fft::irfft(&a, Some(n), 0, Norm::Backward)?;
        check(
            &format!("irfft m={m} n={n}"),
            &download(&got)?,
            &host_irfft(&x, n),
            1e-12,
        )?;
        ensure!(
            a.to_host()? == before,
            "irfft m={m} n={n} changed its input"
        );
    }
    // The default length 2 (m - 1).
    let x = rand_c(rng, 9);
    let a = upload::<Complex64>(dev, &x, &[9])?;
    let got = fft::irfft(&a, None, -1, Norm::Backward)?;
    ensure!(
        got.shape() == [16],
        "irfft default length: shape {:?}",
        got.shape()
    );
    check(
        "irfft default n",
        &download(&got)?,
        &host_irfft(&x, 16),
        1e-12,
    )
}

fn norms(dev: &Device, rng: &mut Rng) -> TResult {
    let n = 12;
    let x = rand_c(rng, n);
    let a = upload::<Complex64>(dev, &x, &[n])?;
    let fwd = dft(&x, false);
    let inv = dft(&x, true);
    for (norm, ff, fi) in [
        (Norm::Backward, 1.0, 1.0 / n as f64),
        (
            Norm::Ortho,
            1.0 / (n as f64).sqrt(),
            1.0 / (n as f64).sqrt(),
        ),
        (Norm::Forward, 1.0 / n as f64, 1.0),
    ] {
        let mut w = fwd.clone();
        scale_all(&mut w, ff);
        check(
            &format!("fft {norm:?}"),
            &download(&fft::fft(&a, None, 0, norm)?)?,
            &w,
            1e-12,
        )?;
        let mut w = inv.clone();
        scale_all(&mut w, fi);
        check(
            &format!("ifft {norm:?}"),
            &download(&fft::ifft(&a, None, 0, norm)?)?,
            &w,
            1e-12,
        )?;
        // Real transforms: the same factors.
        let xr: Vec<f64> = x.iter().map(|v| v.0).collect();
        let ar = DeviceArray::from_slice(dev, &xr)?;
        let real: Vec<C> = xr.iter().map(|&v| (v, 0.0)).collect();
        let mut w = dft(&real, false)[..n / 2 + 1].to_vec();
        scale_all(&mut w, ff);
        let r = fft::rfft(&ar, None, 0, norm)?;
        check(&format!("rfft {norm:?}"), &download(&r)?, &w, 1e-12)?;
        let back = fft::irfft(&r, Some(n), 0, norm)?;
        check(
            &format!("irfft(rfft) {norm:?}"),
            &download(&back)?,
            &real,
            1e-12,
        )?;
    }
    Ok(())
}

/// Host transform over several axes of a row-major array, with `s` resizing first.
fn host_fftn(
    x: &[C],
    shape: &[usize],
    axes: &[usize],
    lens: &[usize],
    inverse: bool,
) -> (Vec<C>, Vec<usize>) {
    let mut to = shape.to_vec();
    for (&a, &n) in axes.iter().zip(lens) {
        to[a] = n;
    }
    let mut y = resize(x, shape, &to);
    for &a in axes {
        y = dft_axis(&y, &to, a, inverse);
    }
    (y, to)
}

fn axes_cases(dev: &Device, rng: &mut Rng) -> TResult {
    let shape = [3usize, 5, 6];
    let x = rand_c(rng, 90);
    let a = upload::<Complex64>(dev, &x, &shape)?;
    // One axis at a time, negative ones too.
    for axis in [0isize, 1, 2, -1, -2, -3] {
        let k = axis.rem_euclid(3) as usize;
        let (want, _) = host_fftn(&x, &shape, &[k], &[shape[k]], false);
        let got = fft::fft(&a, None, axis, Norm::Backward)?;
        check(&format!("fft axis {axis}"), &download(&got)?, &want, 1e-12)?;
    }
    // Several axes: adjacent, not adjacent, reversed, all.
    for axes in [
        vec![1isize, 2],
        vec![0, 2],
        vec![-1, -3],
        vec![1, 0],
        vec![0, 1, 2],
    ] {
        let ks: Vec<usize> = axes.iter().map(|a| a.rem_euclid(3) as usize).collect();
        let lens: Vec<usize> = ks.iter().map(|&k| shape[k]).collect();
        let (want, _) = host_fftn(&x, &shape, &ks, &lens, false);
        let got = fft::fftn(&a, None, &axes, Norm::Backward)?;
        check(
            &format!("fftn axes {axes:?}"),
            &download(&got)?,
            &want,
            1e-12,
        )?;
        let (mut want, _) = host_fftn(&x, &shape, &ks, &lens, true);
        scale_all(&mut want, 1.0 / lens.iter().product::<usize>() as f64);
        let got = fft::ifftn(&a, None, &axes, Norm::Backward)?;
        check(
            &format!("ifftn axes {axes:?}"),
            &download(&got)?,
            &want,
            1e-12,
        )?;
    }
    // fftn's default: every axis; fft2's: the last two.
    let (want, _) = host_fftn(&x, &shape, &[0, 1, 2], &shape, false);
    check(
        "fftn default",
        &download(&fft::fftn(&a, None, &[], Norm::Backward)?)?,
        &want,
        1e-12,
    )?;
    let (want, _) = host_fftn(&x, &shape, &[1, 2], &shape[1..], false);
    check(
        "fft2 default",
        &download(&fft::fft2(&a, None, &[], Norm::Backward)?)?,
        &want,
        1e-12,
    )?;
    Ok(())
}

/// Strided views: transposed, stepped and cropped inputs read in place.
fn strided(dev: &Device, rng: &mut Rng) -> TResult {
    let (r, c) = (6usize, 10usize);
    let x = rand_c(rng, r * c);
    let a = upload::<Complex32>(dev, &x, &[r, c])?;
    // The transpose (10, 6) as host data.
    let xt: Vec<C> = (0..c)
        .flat_map(|j| (0..r).map(move |i| (i, j)))
        .map(|(i, j)| x[i * c + j])
        .collect();
    for axes in [vec![0isize], vec![1], vec![0, 1]] {
        let ks: Vec<usize> = axes.iter().map(|&a| a as usize).collect();
        let lens: Vec<usize> = ks.iter().map(|&k| [c, r][k]).collect();
        let (want, _) = host_fftn(&xt, &[c, r], &ks, &lens, false);
        let got = fft::fftn(&a.t(), None, &axes, Norm::Backward)?;
        check(
            &format!("fftn of a transpose, axes {axes:?}"),
            &download(&got)?,
            &want,
            1e-4,
        )?;
    }
    // Every other column, rows 1..5.
    let v = a.slice(s![1..5, ..;2])?;
    let hv: Vec<C> = (1..5)
        .flat_map(|i| (0..c).step_by(2).map(move |j| (i, j)))
        .map(|(i, j)| x[i * c + j])
        .collect();
    for axes in [vec![0isize], vec![-1], vec![0, 1]] {
        let ks: Vec<usize> = axes.iter().map(|a| a.rem_euclid(2) as usize).collect();
        let lens: Vec<usize> = ks.iter().map(|&k| [4, 5][k]).collect();
        let (want, _) = host_fftn(&hv, &[4, 5], &ks, &lens, false);
        let got = fft::fftn(&v, None, &axes, Norm::Backward)?;
        check(
            &format!("fftn of a stepped view, axes {axes:?}"),
            &download(&got)?,
            &want,
            1e-4,
        )?;
    }
    // A reversed view (negative strides): copied first.
    let f = a.flip(-1)?;
    let hf: Vec<C> = (0..r)
        .flat_map(|i| (0..c).rev().map(move |j| (i, j)))
        .map(|(i, j)| x[i * c + j])
        .collect();
    let (want, _) = host_fftn(&hf, &[r, c], &[1], &[c], false);
    check(
        "fft of a flipped view",
        &download(&fft::fft(&f, None, -1, Norm::Backward)?)?,
        &want,
        1e-4,
    )?;
    // Real input along a non-last axis of a transposed view.
    let re =
        DeviceArray::<f64>::from_host(dev, &x.iter().map(|v| v.0).collect::<Vec<_>>(), &[r, c])?;
    let xr: Vec<C> = xt.iter().map(|v| (v.0, 0.0)).collect();
    let (want, _) = host_fftn(&xr, &[c, r], &[0], &[c], false);
    let want: Vec<C> = (0..c / 2 + 1)
        .flat_map(|i| (0..r).map(move |j| (i, j)))
        .map(|(i, j)| want[i * r + j])
        .collect();
    let got = fft::rfft(&re.t(), None, 0, Norm::Backward)?;
    ensure!(
        got.shape() == [c / 2 + 1, r],
        "rfft axis 0 shape {:?}",
        got.shape()
    );
    check(
        "rfft of a transpose along axis 0",
        &download(&got)?,
        &want,
        1e-12,
    )
}

fn pad_crop(dev: &Device, rng: &mut Rng) -> TResult {
    let x = rand_c(rng, 10);
    let a = upload::<Complex64>(dev, &x, &[10])?;
    for n in [4usize, 10, 13, 16] {
        let want = dft(&resize(&x, &[10], &[n]), false);
        let got = fft::fft(&a, Some(n), 0, Norm::Backward)?;
        ensure!(got.shape() == [n], "fft n={n}: shape {:?}", got.shape());
        check(&format!("fft n={n} of 10"), &download(&got)?, &want, 1e-12)?;
    }
    // fft2 with s: one axis padded, one cropped.
    let shape = [4usize, 6];
    let x = rand_c(rng, 24);
    let a = upload::<Complex64>(dev, &x, &shape)?;
    let (want, to) = host_fftn(&x, &shape, &[0, 1], &[7, 3], false);
    let got = fft::fft2(&a, Some(&[7, 3]), &[-2, -1], Norm::Backward)?;
    ensure!(
        got.shape() == to.as_slice(),
        "fft2 s: shape {:?}",
        got.shape()
    );
    check("fft2 s=(7, 3)", &download(&got)?, &want, 1e-12)?;
    // rfft2 / irfft2 with an odd last length through s.
    let xr: Vec<f64> = (0..35).map(|_| rng.range(-1.0, 1.0)).collect();
    let ar = DeviceArray::from_host(dev, &xr, &[5, 7])?;
    let f = fft::rfft2(&ar, None, &[0, 1], Norm::Backward)?;
    ensure!(f.shape() == [5, 4], "rfft2 shape {:?}", f.shape());
    let xc: Vec<C> = xr.iter().map(|&v| (v, 0.0)).collect();
    let (full, _) = host_fftn(&xc, &[5, 7], &[0, 1], &[5, 7], false);
    let want: Vec<C> = (0..5)
        .flat_map(|i| (0..4).map(move |j| (i, j)))
        .map(|(i, j)| full[i * 7 + j])
        .collect();
    check("rfft2 (5, 7)", &download(&f)?, &want, 1e-12)?;
    let back = fft::irfft2(&f, Some(&[5, 7]), &[0, 1], Norm::Backward)?;
    check("irfft2 (5, 7)", &download(&back)?, &xc, 1e-12)?;
    Ok(())
}

fn round_trips(dev: &Device, rng: &mut Rng) -> TResult {
    // 2^20 + 231 is prime (Bluestein's algorithm in cuFFT): in f64; 2^14 * 63 in f32.
    let n = (1 << 20) + 3 * 7 * 11;
    let x = rand_c(rng, n);
    let a = upload::<Complex64>(dev, &x, &[n])?;
    let back = fft::ifft(
        &fft::fft(&a, None, 0, Norm::Backward)?,
        None,
        0,
        Norm::Backward,
    )?;
    check("ifft(fft) large prime", &download(&back)?, &x, 1e-11)?;
    let m = (1 << 14) * 63;
    let a = upload::<Complex32>(dev, &x[..m], &[m])?;
    let back = fft::ifft(
        &fft::fft(&a, None, 0, Norm::Forward)?,
        None,
        0,
        Norm::Forward,
    )?;
    check("ifft(fft) large f32", &download(&back)?, &x[..m], 1e-5)?;
    let a = upload::<Complex64>(dev, &x[..1 << 20], &[1024, 1024])?;
    let back = fft::ifft2(
        &fft::fft2(&a, None, &[0, 1], Norm::Ortho)?,
        None,
        &[0, 1],
        Norm::Ortho,
    )?;
    check(
        "ifft2(fft2) 1024^2",
        &download(&back)?,
        &x[..1 << 20],
        1e-12,
    )?;
    // Real round trips in 3-D with an odd last axis, and over non-last axes.
    let shape = [16usize, 30, 33];
    let size = shape.iter().product::<usize>();
    let xr: Vec<f32> = (0..size).map(|_| rng.range(-1.0, 1.0) as f32).collect();
    let ar = DeviceArray::from_host(dev, &xr, &shape)?;
    let xc: Vec<C> = xr.iter().map(|&v| (v as f64, 0.0)).collect();
    let f = fft::rfftn(&ar, None, &[], Norm::Backward)?;
    ensure!(f.shape() == [16, 30, 17], "rfftn shape {:?}", f.shape());
    let back = fft::irfftn(&f, Some(&shape), &[], Norm::Backward)?;
    check("irfftn(rfftn) (16, 30, 33)", &download(&back)?, &xc, 1e-5)?;
    let f = fft::rfftn(&ar, None, &[2, 0], Norm::Forward)?;
    ensure!(
        f.shape() == [9, 30, 33],
        "rfftn axes (2, 0) shape {:?}",
        f.shape()
    );
    let back = fft::irfftn(&f, Some(&[33, 16]), &[2, 0], Norm::Forward)?;
    check("irfftn(rfftn) axes (2, 0)", &download(&back)?, &xc, 1e-5)?;
    // A batch of rows along the last axis and along the first.
    let rows: Vec<f32> = (0..4096 * 64)
        .map(|_| rng.range(-1.0, 1.0) as f32)
        .collect();
    let b = DeviceArray::from_host(dev, &rows, &[4096, 64])?;
    let xb: Vec<C> = rows.iter().map(|&v| (v as f64, 0.0)).collect();
    for axis in [0isize, 1] {
        let f = fft::fft(&b, None, axis, Norm::Backward)?;
        let back = fft::ifft(&f, None, axis, Norm::Backward)?;
        check(
            &format!("batched round trip axis {axis}"),
            &download(&back)?,
            &xb,
            1e-5,
        )?;
    }
    Ok(())
}

/// NumPy's fftshift: `np.roll(x, n // 2, axis)` per axis; ifftshift: `-(n // 2)`.
fn host_roll(x: &[i64], shape: &[usize], axis: usize, shift: isize) -> Vec<i64> {
    let n = shape[axis];
    let inner: usize = shape[axis + 1..].iter().product();
    let outer: usize = shape[..axis].iter().product();
    let mut out = x.to_vec();
    for o in 0..outer {
        for k in 0..n {
            let to = (k as isize + shift).rem_euclid(n as isize) as usize;
            for i in 0..inner {
                out[o * n * inner + to * inner + i] = x[o * n * inner + k * inner + i];
            }
        }
    }
    out
}

fn shifts(dev: &Device, _rng: &mut Rng) -> TResult {
    for shape in [vec![5usize], vec![4], vec![3, 4], vec![2, 5, 3], vec![1, 7]] {
        let size: usize = shape.iter().product();
        let x: Vec<i64> = (0..size as i64).collect();
        let a = DeviceArray::from_host(dev, &x, &shape[..])?;
        let nd = shape.len();
        for axes in [None, Some(vec![-1isize]), Some(vec![0])] {
            let ks: Vec<usize> = match &axes {
                None => (0..nd).collect(),
                Some(v) => v
                    .iter()
                    .map(|a| a.rem_euclid(nd as isize) as usize)
                    .collect(),
            };
            let (mut f, mut i) = (x.clone(), x.clone());
            for &k in &ks {
                f = host_roll(&f, &shape, k, (shape[k] / 2) as isize);
                i = host_roll(&i, &shape, k, -((shape[k] / 2) as isize));
            }
            let got = fft::fftshift(&a, axes.as_deref())?.to_host()?;
            ensure!(got == f, "fftshift {shape:?} {axes:?}: {got:?}, want {f:?}");
            let got = fft::ifftshift(&a, axes.as_deref())?.to_host()?;
            ensure!(
                got == i,
                "ifftshift {shape:?} {axes:?}: {got:?}, want {i:?}"
            );
        }
    }
    // Complex values and a transposed view.
    let x: Vec<C> = (0..12).map(|v| (v as f64, -(v as f64))).collect();
    let a = upload::<Complex64>(dev, &x, &[3, 4])?;
    let t = fft::fftshift(&a.t(), None)?;
    let xt: Vec<i64> = (0..4)
        .flat_map(|j| (0..3).map(move |i| i * 4 + j))
        .collect();
    let want = host_roll(&host_roll(&xt, &[4, 3], 0, 2), &[4, 3], 1, 1);
    let got: Vec<i64> = download(&t)?.iter().map(|v| v.0 as i64).collect();
    ensure!(
        got == want,
        "fftshift of a transpose: {got:?}, want {want:?}"
    );
    Ok(())
}

fn freqs(dev: &Device, _rng: &mut Rng) -> TResult {
    for n in 1..=10usize {
        for d in [1.0, 0.5, 0.1] {
            // NumPy: results = [0, 1, ..., (n-1)//2, -(n//2), ..., -1] / (n*d)
            let want: Vec<f64> = (0..n)
                .map(|i| {
                    let k = if i <= (n - 1) / 2 {
                        i as f64
                    } else {
                        i as f64 - n as f64
                    };
                    k / (n as f64 * d)
                })
                .collect();
            let got = fft::fftfreq(dev, n, d)?.to_host()?;
            let ok = got.len() == n
                && got
                    .iter()
                    .zip(&want)
                    .all(|(a, b)| (a - b).abs() <= 1e-15 * b.abs().max(1.0));
            ensure!(ok, "fftfreq({n}, {d}): {got:?}, want {want:?}");
            // NumPy: results = arange(0, n//2 + 1) / (n*d)
            let want: Vec<f64> = (0..n / 2 + 1).map(|i| i as f64 / (n as f64 * d)).collect();
            let got = fft::rfftfreq(dev, n, d)?.to_host()?;
            let ok = got.len() == want.len()
                && got
                    .iter()
                    .zip(&want)
                    .all(|(a, b)| (a - b).abs() <= 1e-15 * b.abs().max(1.0));
            ensure!(ok, "rfftfreq({n}, {d}): {got:?}, want {want:?}");
        }
    }
    ensure!(
        fft::fftfreq(dev, 0, 1.0)?.size() == 0,
        "fftfreq(0) not empty"
    );
    Ok(())
}

fn errors(dev: &Device, _rng: &mut Rng) -> TResult {
    let a = DeviceArray::<f32>::zeros(dev, &[4, 4])?;
    ensure!(
        fft::fft(&a, Some(0), 0, Norm::Backward).is_err(),
        "n = 0 accepted"
    );
    ensure!(
        fft::fft(&a, None, 2, Norm::Backward).is_err(),
        "axis 2 of 2-d accepted"
    );
    ensure!(
        fft::fft2(&a, Some(&[4]), &[0, 1], Norm::Backward).is_err(),
        "s of the wrong length accepted"
    );
    ensure!(
        fft::fftn(&a, None, &[0, 0], Norm::Backward).is_err(),
        "a repeated axis accepted"
    );
    let one = DeviceArray::<Complex32>::zeros(dev, &[1])?;
    ensure!(
        fft::irfft(&one, None, 0, Norm::Backward).is_err(),
        "irfft to 0 points accepted"
    );
    // Empty batches give empty results.
    let e = DeviceArray::<f32>::zeros(dev, &[0, 8])?;
    ensure!(
        fft::rfft(&e, None, -1, Norm::Backward)?.shape() == [0, 5],
        "empty rfft shape"
    );
    Ok(())
}

fn plan_cache(dev: &Device) -> TResult {
    fft::clear_plan_cache(dev);
    let a = DeviceArray::<Complex32>::zeros(dev, &[3, 40])?;
    let s0 = dev.kernel_cache_stats();
    fft::fft(&a, None, -1, Norm::Backward)?;
    let s1 = dev.kernel_cache_stats();
    ensure!(
        s1.fft_plan_misses == s0.fft_plan_misses + 1,
        "first call: {s0:?} -> {s1:?}"
    );
    fft::fft(&a, None, -1, Norm::Backward)?;
    let s2 = dev.kernel_cache_stats();
    ensure!(
        s2.fft_plan_hits == s1.fft_plan_hits + 1 && s2.fft_plan_misses == s1.fft_plan_misses,
        "second call: {s1:?} -> {s2:?}"
    );
    // 20 lengths: the cache keeps 16 and evicts the rest.
    for n in 1..=20usize {
        let b = DeviceArray::<Complex32>::zeros(dev, &[n + 100])?;
        fft::fft(&b, None, 0, Norm::Backward)?;
    }
    let s3 = dev.kernel_cache_stats();
    ensure!(
        fft::cached_plans(dev) == 16,
        "{} plans cached",
        fft::cached_plans(dev)
    );
    ensure!(
        s3.fft_plan_evictions >= s2.fft_plan_evictions + 5,
        "evictions: {s2:?} -> {s3:?}"
    );
    // A work area comes from the pool and goes back to it.
    dev.synchronize()?;
    let big = DeviceArray::<Complex64>::zeros(dev, &[1 << 20])?;
    let before = dev.memory_stats().in_use;
    let out = fft::fft(&big, None, 0, Norm::Backward)?;
    let after = dev.memory_stats().in_use;
    ensure!(
        after - before >= 16 << 20 && after - before < 20 << 20,
        "in use grew by {} bytes",
        after - before
    );
    drop(out);
    ensure!(
        dev.memory_stats().in_use == before,
        "memory left in use after the transform"
    );
    // Under the pool's limit, a transform that does not fit is OutOfMemory, not a panic.
    let pool = dev.memory_pool();
    let huge = DeviceArray::<Complex64>::zeros(dev, &[1 << 22])?;
    // The cap counts cached blocks too, and a cached block of the output's size (left by
    // an earlier test) would serve it under any cap: none is left cached.
    dev.synchronize()?;
    pool.free_all_blocks()?;
    pool.set_limit(Some(pool.total_bytes() + (1 << 20)));
    let r = fft::fft(&huge, None, 0, Norm::Backward);
    pool.set_limit(None);
    ensure!(
        matches!(r, Err(cuarray::Error::OutOfMemory { .. })),
        "over the pool's limit: {:?}",
        r.map(|a| a.shape().to_vec())
    );
    Ok(())
}

fn add(out: &mut Vec<Trial>, name: &str, f: fn(&Device, &mut Rng) -> TResult) {
    add_gpu(out, format!("fft/{name}"), f);
}

pub fn trials(out: &mut Vec<Trial>) {
    add(out, "c2c/c64", c2c_sizes::<Complex32>);
    add(out, "c2c/c128", c2c_sizes::<Complex64>);
    add(out, "real/f32", |d, r| real_sizes::<f32>(d, r, 2e-5));
    add(out, "real/f64", |d, r| real_sizes::<f64>(d, r, 1e-12));
    add(out, "irfft/odd", irfft_odd);
    add(out, "norms", norms);
    add(out, "axes", axes_cases);
    add(out, "strided", strided);
    add(out, "pad_crop", pad_crop);
    add(out, "round_trips", round_trips);
    add(out, "fftshift", shifts);
    add(out, "fftfreq", freqs);
    add(out, "errors", errors);
    out.push(gpu_trial_exclusive("fft/plan_cache", plan_cache));
}
