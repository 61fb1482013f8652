//! Signal processing (cuarray::signal) on the GPU against host f64 references written
//! from SciPy's definitions: convolution and correlation (every mode, the direct and FFT
//! methods, 1-D and 2-D, the 2-D boundaries, FFT axes, overlap-add), f32 and f64,
//! awkward lengths, non-contiguous inputs, error paths. The filter design runs on the
//! host and is tested against SciPy's numbers in the library's unit tests.

use crate::common::{ensure, gpu_trial, Rng, TResult};
use cuarray::signal::{self, Boundary, Method, Mode};
use cuarray::{Device, DeviceArray, Element};
use libtest_mimic::Trial;

pub(crate) trait Sig: cuarray::signal::SignalFloat {
    const TOL: f64;
}
impl Sig for f32 {
    const TOL: f64 = 2e-5;
}
impl Sig for f64 {
    const TOL: f64 = 1e-11;
}

pub(crate) fn host<T: Element>(a: &DeviceArray<T>) -> cuarray::Result<Vec<f64>> {
    Ok(a.to_host()?.into_iter().map(|x| x.to_f64()).collect())
}

/// `got` against `want` within `tol` times the largest magnitude of `want` (plus 1).
pub(crate) fn check(what: &str, got: &[f64], want: &[f64], tol: f64) -> TResult {
    ensure!(
        got.len() == want.len(),
        "{what}: {} values, want {}",
        got.len(),
        want.len()
    );
    let scale = 1.0 + want.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        ensure!((g - w).abs() <= tol * scale, "{what}[{i}]: {g} != {w}");
    }
    Ok(())
}

/// Random values rounded to `T`, uploaded with `shape`.
pub(crate) fn rand<T: Sig>(
    dev: &Device,
    rng: &mut Rng,
    shape: &[usize],
) -> cuarray::Result<(DeviceArray<T>, Vec<f64>)> {
    let n: usize = shape.iter().product();
    let v: Vec<T> = (0..n).map(|_| T::from_f64(rng.range(-1.0, 1.0))).collect();
    let h = v.iter().map(|&x| Element::to_f64(x)).collect();
    Ok((DeviceArray::from_host(dev, &v, shape)?, h))
}

/// The direct n-d convolution of SciPy (`convolve2d` with a boundary for 2-D): the output
/// shape and values. `boundary`: None for zero fill, Some((0, fill)), Some((1, _)) wrap,
/// Some((2, _)) symm.
fn host_conv(
    x: &[f64],
    xs: &[usize],
    v: &[f64],
    vs: &[usize],
    mode: Mode,
    boundary: Option<(u8, f64)>,
) -> (Vec<f64>, Vec<usize>) {
    let r = xs.len();
    let mut os = Vec::new();
    let mut st = Vec::new();
    for d in 0..r {
        let (n, m) = (xs[d], vs[d]);
        let (o, s) = match mode {
            Mode::Full => (n + m - 1, 0),
            Mode::Same => (n, (m - 1) / 2),
            Mode::Valid => (n.max(m) - n.min(m) + 1, n.min(m) - 1),
        };
        os.push(o);
        st.push(s as isize);
    }
    // Valid with the larger second input: the roles swap (the sum commutes).
    let swap = mode == Mode::Valid && vs.iter().product::<usize>() > xs.iter().product::<usize>();
    let (x, xs, v, vs) = if swap { (v, vs, x, xs) } else { (x, xs, v, vs) };
    let total: usize = os.iter().product();
    let vt: usize = vs.iter().product();
    let mut out = vec![0.0; total];
    for (o, slot) in out.iter_mut().enumerate() {
        let mut oi = vec![0isize; r];
        let mut rem = o;
        for d in (0..r).rev() {
            oi[d] = (rem % os[d]) as isize + st[d];
            rem /= os[d];
        }
        let mut acc = 0.0;
        for (q, &vq) in v.iter().enumerate().take(vt) {
            let mut rem = q;
            let (mut xo, mut stride_x) = (0usize, 1usize);
            let mut outside = false;
            for d in (0..r).rev() {
                let j = (rem % vs[d]) as isize;
                rem /= vs[d];
                let n = xs[d] as isize;
                let mut g = oi[d] - j;
                if g < 0 || g >= n {
                    match boundary {
                        None | Some((0, _)) => outside = true,
                        Some((1, _)) => g = g.rem_euclid(n),
                        _ => {
                            g = g.rem_euclid(2 * n);
                            if g >= n {
                                g = 2 * n - 1 - g;
                            }
                        }
                    }
                }
                xo += g.max(0) as usize * stride_x;
                stride_x *= xs[d];
            }
            let xv = if outside {
                boundary.map_or(0.0, |b| b.1)
            } else {
                x[xo]
            };
            acc += xv * vq;
        }
        *slot = acc;
    }
    (out, os)
}

fn reverse(v: &[f64]) -> Vec<f64> {
    v.iter().rev().copied().collect()
}

fn conv_1d<T: Sig>(dev: &Device, rng: &mut Rng) -> TResult {
    let name = T::DTYPE.name();
    for (n, m) in [
        (1000, 7),
        (4097, 63),
        (10, 300),
        (1, 1),
        (333, 333),
        (7000, 3000),
        (50_000, 129),
    ] {
        let (a, ha) = rand::<T>(dev, rng, &[n])?;
        let (v, hv) = rand::<T>(dev, rng, &[m])?;
        for mode in [Mode::Full, Mode::Same, Mode::Valid] {
            let (want, shape) = host_conv(&ha, &[n], &hv, &[m], mode, None);
            for method in [Method::Direct, Method::Fft, Method::Auto] {
                let what = format!("signal/convolve/{name}/1d {n}x{m} {mode:?} {method:?}");
                let got = signal::convolve(&a, &v, mode, method)?;
                ensure!(got.shape() == &shape[..], "{what}: shape {:?}", got.shape());
                let tol = if method == Method::Direct {
                    T::TOL
                } else {
                    T::TOL * 20.0
                };
                check(&what, &host(&got)?, &want, tol * (m as f64).sqrt())?;
            }
            let (want, _) = host_conv(&ha, &[n], &reverse(&hv), &[m], mode, None);
            let got = signal::correlate(&a, &v, mode, Method::Direct)?;
            check(
                &format!("signal/correlate/{name}/1d {n}x{m} {mode:?}"),
                &host(&got)?,
                &want,
                T::TOL * (m as f64).sqrt(),
            )?;
            let got = signal::correlate(&a, &v, mode, Method::Fft)?;
            check(
                &format!("signal/correlate/{name}/1d fft {n}x{m} {mode:?}"),
                &host(&got)?,
                &want,
                T::TOL * 20.0 * (m as f64).sqrt(),
            )?;
        }
    }
    // A strided view (every other element, reversed).
    let (a, ha) = rand::<T>(dev, rng, &[2001])?;
    let av = a.slice(cuarray::s![..;-2])?;
    let hav: Vec<f64> = ha.iter().rev().step_by(2).copied().collect();
    let (v, hv) = rand::<T>(dev, rng, &[17])?;
    let (want, _) = host_conv(&hav, &[hav.len()], &hv, &[17], Mode::Same, None);
    check(
        &format!("signal/convolve/{name}/1d strided"),
        &host(&signal::convolve(&av, &v, Mode::Same, Method::Direct)?)?,
        &want,
        T::TOL * 4.0,
    )?;
    check(
        &format!("signal/convolve/{name}/1d strided fft"),
        &host(&signal::convolve(&av, &v, Mode::Same, Method::Fft)?)?,
        &want,
        T::TOL * 80.0,
    )?;
    Ok(())
}

fn conv_2d<T: Sig>(dev: &Device, rng: &mut Rng) -> TResult {
    let name = T::DTYPE.name();
    for (xs, vs) in [
        ([37, 53], [5, 4]),
        ([6, 9], [11, 3]),
        ([64, 65], [5, 5]),
        ([3, 3], [3, 3]),
        // Past one tile along both axes, one-row and one-column kernels, and a kernel
        // too large for a tile.
        ([301, 517], [5, 5]),
        ([70, 900], [1, 9]),
        ([129, 40], [9, 1]),
        ([40, 50], [45, 60]),
    ] {
        let (a, ha) = rand::<T>(dev, rng, &xs)?;
        let (v, hv) = rand::<T>(dev, rng, &vs)?;
        for mode in [Mode::Full, Mode::Same, Mode::Valid] {
            let valid_ok = (xs[0] >= vs[0] && xs[1] >= vs[1]) || (xs[0] <= vs[0] && xs[1] <= vs[1]);
            if mode == Mode::Valid && !valid_ok {
                ensure!(
                    signal::convolve(&a, &v, mode, Method::Direct).is_err(),
                    "valid mismatch must fail"
                );
                ensure!(
                    signal::convolve2d(&a, &v, mode, Boundary::Fill(T::from_f64(0.0))).is_err(),
                    "valid mismatch 2d"
                );
                continue;
            }
            let (want, shape) = host_conv(&ha, &xs, &hv, &vs, mode, None);
            for method in [Method::Direct, Method::Fft] {
                let what = format!("signal/convolve/{name}/2d {xs:?}x{vs:?} {mode:?} {method:?}");
                let got = signal::convolve(&a, &v, mode, method)?;
                ensure!(got.shape() == &shape[..], "{what}: shape {:?}", got.shape());
                check(&what, &host(&got)?, &want, T::TOL * 40.0)?;
            }
            for (b, hb) in [
                (Boundary::Fill(T::from_f64(1.5)), Some((0u8, 1.5))),
                (Boundary::Wrap, Some((1, 0.0))),
                (Boundary::Symm, Some((2, 0.0))),
            ] {
                let (want, _) = host_conv(&ha, &xs, &hv, &vs, mode, hb);
                let what = format!("signal/convolve2d/{name}/{xs:?}x{vs:?} {mode:?} {b:?}");
                check(
                    &what,
                    &host(&signal::convolve2d(&a, &v, mode, b)?)?,
                    &want,
                    T::TOL * 10.0,
                )?;
                // Correlation: the kernel reversed along both axes.
                let hr = reverse(&hv);
                let (want, _) = host_conv(&ha, &xs, &hr, &vs, mode, hb);
                let what = format!("signal/correlate2d/{name}/{xs:?}x{vs:?} {mode:?} {b:?}");
                check(
                    &what,
                    &host(&signal::correlate2d(&a, &v, mode, b)?)?,
                    &want,
                    T::TOL * 10.0,
                )?;
            }
        }
    }
    // A transposed (non-contiguous) first input.
    let (a, ha) = rand::<T>(dev, rng, &[20, 30])?;
    let at = a.t();
    let mut hat = vec![0.0; 600];
    for i in 0..20 {
        for j in 0..30 {
            hat[j * 20 + i] = ha[i * 30 + j];
        }
    }
    let (v, hv) = rand::<T>(dev, rng, &[3, 5])?;
    let (want, _) = host_conv(&hat, &[30, 20], &hv, &[3, 5], Mode::Same, Some((2, 0.0)));
    check(
        &format!("signal/convolve2d/{name}/transposed"),
        &host(&signal::convolve2d(&at, &v, Mode::Same, Boundary::Symm)?)?,
        &want,
        T::TOL * 10.0,
    )?;
    let (want, _) = host_conv(&hat, &[30, 20], &hv, &[3, 5], Mode::Full, None);
    check(
        &format!("signal/convolve/{name}/transposed fft"),
        &host(&signal::convolve(&at, &v, Mode::Full, Method::Fft)?)?,
        &want,
        T::TOL * 40.0,
    )?;
    Ok(())
}

fn fft_axes<T: Sig>(dev: &Device, rng: &mut Rng) -> TResult {
    let name = T::DTYPE.name();
    // Rows filtered by one kernel (axis -1, the other axis broadcast), and columns (axis 0).
    let (x, hx) = rand::<T>(dev, rng, &[5, 777])?;
    let (h, hh) = rand::<T>(dev, rng, &[1, 31])?;
    for mode in [Mode::Full, Mode::Same, Mode::Valid] {
        let mut want = Vec::new();
        for r in 0..5 {
            want.extend(host_conv(&hx[r * 777..(r + 1) * 777], &[777], &hh, &[31], mode, None).0);
        }
        for (f, label) in [(0, "fftconvolve"), (1, "oaconvolve")] {
            let got = if f == 0 {
                signal::fftconvolve(&x, &h, mode, Some(&[-1]))?
            } else {
                signal::oaconvolve(&x, &h, mode, Some(&[-1]))?
            };
            check(
                &format!("signal/{label}/{name}/rows {mode:?}"),
                &host(&got)?,
                &want,
                T::TOL * 40.0,
            )?;
        }
    }
    let xt = x.t(); // (777, 5), axis 0 long
    let ht = h.t(); // (31, 1)
    let mut want = vec![0.0; 777 * 5];
    for c in 0..5 {
        let col = host_conv(
            &hx[c * 777..(c + 1) * 777],
            &[777],
            &hh,
            &[31],
            Mode::Same,
            None,
        )
        .0;
        for (i, v) in col.into_iter().enumerate() {
            want[i * 5 + c] = v;
        }
    }
    for (f, label) in [(0, "fftconvolve"), (1, "oaconvolve")] {
        let got = if f == 0 {
            signal::fftconvolve(&xt, &ht, Mode::Same, Some(&[0]))?
        } else {
            signal::oaconvolve(&xt, &ht, Mode::Same, Some(&[0]))?
        };
        check(
            &format!("signal/{label}/{name}/columns"),
            &host(&got)?,
            &want,
            T::TOL * 40.0,
        )?;
    }
    // One long signal, overlap-add against the direct sum; the short input first.
    let (a, ha) = rand::<T>(dev, rng, &[100_003])?;
    let (v, hv) = rand::<T>(dev, rng, &[200])?;
    for mode in [Mode::Full, Mode::Same, Mode::Valid] {
        let (want, _) = host_conv(&ha, &[100_003], &hv, &[200], mode, None);
        check(
            &format!("signal/oaconvolve/{name}/long {mode:?}"),
            &host(&signal::oaconvolve(&a, &v, mode, None)?)?,
            &want,
            T::TOL * 60.0,
        )?;
        let (want, _) = host_conv(&hv, &[200], &ha, &[100_003], mode, None);
        check(
            &format!("signal/oaconvolve/{name}/short first {mode:?}"),
            &host(&signal::oaconvolve(&v, &a, mode, None)?)?,
            &want,
            T::TOL * 60.0,
        )?;
    }
    Ok(())
}

fn conv_errors(dev: &Device) -> TResult {
    let a = DeviceArray::<f64>::ones(dev, &[5])?;
    let e = DeviceArray::<f64>::zeros(dev, &[0])?;
    let m = DeviceArray::<f64>::ones(dev, &[2, 2])?;
    let msg = |r: cuarray::Result<DeviceArray<f64>>| {
        r.map(|_| String::new()).unwrap_or_else(|e| e.to_string())
    };
    ensure!(
        msg(signal::convolve(&e, &a, Mode::Full, Method::Auto)).contains("in1"),
        "empty in1"
    );
    ensure!(
        msg(signal::convolve(&a, &e, Mode::Full, Method::Auto)).contains("in2"),
        "empty in2"
    );
    ensure!(
        msg(signal::convolve(&a, &m, Mode::Full, Method::Auto)).contains("rank"),
        "ranks"
    );
    ensure!(
        msg(signal::convolve2d(&a, &a, Mode::Full, Boundary::Wrap)).contains("2-D"),
        "2-D"
    );
    ensure!(
        msg(signal::fftconvolve(&a, &a, Mode::Full, Some(&[1]))).contains("axis"),
        "axis"
    );
    let s0 = DeviceArray::<f64>::full(dev, &[] as &[usize], 3.0)?;
    ensure!(
        signal::convolve(&s0, &s0, Mode::Full, Method::Auto)?.to_host()? == vec![9.0],
        "0-d product"
    );
    Ok(())
}

/// SciPy's `lfilter` (direct form II transposed) in f64: the outputs and the final state.
fn host_lfilter(b: &[f64], a: &[f64], x: &[f64], zi: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let n = b.len().max(a.len());
    let pad = |v: &[f64]| {
        let mut w: Vec<f64> = v.iter().map(|c| c / a[0]).collect();
        w.resize(n, 0.0);
        w
    };
    let (b, a) = (pad(b), pad(a));
    let mut z = zi.to_vec();
    z.resize(n - 1, 0.0);
    let mut y = Vec::with_capacity(x.len());
    for &u in x {
        let out = b[0] * u + z.first().copied().unwrap_or(0.0);
        for i in 0..n - 1 {
            let next = if i + 2 < n { z[i + 1] } else { 0.0 };
            z[i] = b[i + 1] * u + next - a[i + 1] * out;
        }
        y.push(out);
    }
    (y, z)
}

/// A stable denominator of order `n` (real poles inside |z| < 0.9) and a random numerator.
fn stable_filter(rng: &mut Rng, n: usize) -> (Vec<f64>, Vec<f64>) {
    let mut a = vec![1.0];
    for _ in 0..n {
        let r = rng.range(-0.9, 0.9);
        let mut next = a.clone();
        next.push(0.0);
        for i in 0..a.len() {
            next[i + 1] -= r * a[i];
        }
        a = next;
    }
    let b = (0..=n).map(|_| rng.range(-1.0, 1.0)).collect();
    (b, a)
}

pub(crate) fn up<T: Sig>(
    dev: &Device,
    v: &[f64],
    shape: &[usize],
) -> cuarray::Result<DeviceArray<T>> {
    let t: Vec<T> = v.iter().map(|&x| T::from_f64(x)).collect();
    DeviceArray::from_host(dev, &t, shape)
}

fn rounded<T: Sig>(v: &[f64]) -> Vec<f64> {
    v.iter().map(|&x| Element::to_f64(T::from_f64(x))).collect()
}

fn lfilter_1d<T: Sig>(dev: &Device, rng: &mut Rng) -> TResult {
    let name = T::DTYPE.name();
    let tol = T::TOL * 50.0;
    for order in [1usize, 2, 3, 8] {
        let (b, a) = stable_filter(rng, order);
        let (b, a) = (rounded::<T>(&b), rounded::<T>(&a));
        let (db, da) = (up::<T>(dev, &b, &[b.len()])?, up::<T>(dev, &a, &[a.len()])?);
        for n in [1usize, 63, 64, 65, 1000, 20_000, 100_003] {
            let (x, hx) = rand::<T>(dev, rng, &[n])?;
            let what = format!("signal/lfilter/{name}/order{order} n={n}");
            let (want, _) = host_lfilter(&b, &a, &hx, &[]);
            let (y, zf) = signal::lfilter(&db, &da, &x, -1, None)?;
            ensure!(zf.is_none(), "{what}: zf without zi");
            check(&what, &host(&y)?, &want, tol)?;
            // zi / zf continuation: two pieces equal one pass.
            let zi: Vec<f64> =
                rounded::<T>(&(0..order).map(|_| rng.range(-1.0, 1.0)).collect::<Vec<_>>());
            let dzi = up::<T>(dev, &zi, &[order])?;
            let (want, wzf) = host_lfilter(&b, &a, &hx, &zi);
            let (y, zf) = signal::lfilter(&db, &da, &x, 0, Some(&dzi))?;
            check(&format!("{what} zi"), &host(&y)?, &want, tol)?;
            check(
                &format!("{what} zf"),
                &host(&zf.ok_or("no zf")?)?,
                &wzf,
                tol,
            )?;
            let m = n / 3;
            let (y1, z1) = signal::lfilter(
                &db,
                &da,
                &x.slice(cuarray::s![..m as isize])?,
                -1,
                Some(&dzi),
            )?;
            let z1 = z1.ok_or("no zf")?;
            let (y2, z2) = signal::lfilter(
                &db,
                &da,
                &x.slice(cuarray::s![m as isize..])?,
                -1,
                Some(&z1),
            )?;
            let mut two = host(&y1)?;
            two.extend(host(&y2)?);
            check(&format!("{what} halves"), &two, &want, tol)?;
            check(
                &format!("{what} halves zf"),
                &host(&z2.ok_or("no zf")?)?,
                &wzf,
                tol,
            )?;
        }
    }
    // b longer than a, a[0] != 1, and a pure gain (order 0).
    let (b, a) = (vec![0.5, -0.25, 0.125, 1.0], vec![2.0, 0.5]);
    let (x, hx) = rand::<T>(dev, rng, &[777])?;
    let (want, _) = host_lfilter(&b, &a, &hx, &[]);
    let y = signal::lfilter(
        &up::<T>(dev, &b, &[4])?,
        &up::<T>(dev, &a, &[2])?,
        &x,
        -1,
        None,
    )?
    .0;
    check(
        &format!("signal/lfilter/{name}/fir_tail_a0"),
        &host(&y)?,
        &want,
        tol,
    )?;
    let y = signal::lfilter(
        &up::<T>(dev, &[3.0], &[1])?,
        &up::<T>(dev, &[2.0], &[1])?,
        &x,
        -1,
        None,
    )?
    .0;
    let want: Vec<f64> = hx.iter().map(|v| 1.5 * v).collect();
    check(
        &format!("signal/lfilter/{name}/gain"),
        &host(&y)?,
        &want,
        tol,
    )?;
    Ok(())
}

fn lfilter_2d<T: Sig>(dev: &Device, rng: &mut Rng) -> TResult {
    let name = T::DTYPE.name();
    let tol = T::TOL * 50.0;
    let (b, a) = stable_filter(rng, 2);
    let (b, a) = (rounded::<T>(&b), rounded::<T>(&a));
    let (db, da) = (up::<T>(dev, &b, &[3])?, up::<T>(dev, &a, &[3])?);
    let (rows, n) = (7usize, 3001usize);
    let (x, hx) = rand::<T>(dev, rng, &[rows, n])?;
    let zi: Vec<f64> = rounded::<T>(
        &(0..rows * 2)
            .map(|_| rng.range(-1.0, 1.0))
            .collect::<Vec<_>>(),
    );
    let mut want = Vec::new();
    let mut wzf = Vec::new();
    for r in 0..rows {
        let (y, z) = host_lfilter(&b, &a, &hx[r * n..(r + 1) * n], &zi[r * 2..r * 2 + 2]);
        want.extend(y);
        wzf.extend(z);
    }
    // Axis -1 of (rows, n), and axis 0 of the transposed view (n, rows).
    let (y, zf) = signal::lfilter(&db, &da, &x, -1, Some(&up::<T>(dev, &zi, &[rows, 2])?))?;
    check(
        &format!("signal/lfilter/{name}/axis-1"),
        &host(&y)?,
        &want,
        tol,
    )?;
    check(
        &format!("signal/lfilter/{name}/axis-1 zf"),
        &host(&zf.ok_or("no zf")?)?,
        &wzf,
        tol,
    )?;
    let zit = up::<T>(dev, &zi, &[rows, 2])?.t();
    let (y, zf) = signal::lfilter(&db, &da, &x.t(), 0, Some(&zit))?;
    ensure!(y.shape() == [n, rows], "axis 0 shape {:?}", y.shape());
    check(
        &format!("signal/lfilter/{name}/axis0"),
        &host(&y.t().contiguous()?)?,
        &want,
        tol,
    )?;
    check(
        &format!("signal/lfilter/{name}/axis0 zf"),
        &host(&zf.ok_or("no zf")?.t().contiguous()?)?,
        &wzf,
        tol,
    )?;
    // sosfilt: cascades of 1, 3, 5 and 10 sections (several passes of 4), axis 0 and -1.
    for k in [1usize, 3, 5, 10] {
        let mut sos = Vec::new();
        for _ in 0..k {
            let (b, a) = stable_filter(rng, 2);
            sos.extend(rounded::<T>(&b));
            sos.extend(rounded::<T>(&a));
        }
        let dsos = up::<T>(dev, &sos, &[k, 6])?;
        let zi: Vec<f64> = rounded::<T>(
            &(0..k * rows * 2)
                .map(|_| rng.range(-1.0, 1.0))
                .collect::<Vec<_>>(),
        );
        // zi (k, rows, 2) for axis -1.
        let mut want = Vec::new();
        let mut wzf = vec![0.0; k * rows * 2];
        for r in 0..rows {
            let mut cur = hx[r * n..(r + 1) * n].to_vec();
            for s in 0..k {
                let z0 = &zi[(s * rows + r) * 2..(s * rows + r) * 2 + 2];
                let (y, z) =
                    host_lfilter(&sos[s * 6..s * 6 + 3], &sos[s * 6 + 3..s * 6 + 6], &cur, z0);
                cur = y;
                wzf[(s * rows + r) * 2..(s * rows + r) * 2 + 2].copy_from_slice(&z);
            }
            want.extend(cur);
        }
        let what = format!("signal/sosfilt/{name}/{k} sections");
        let (y, zf) = signal::sosfilt(&dsos, &x, -1, Some(&up::<T>(dev, &zi, &[k, rows, 2])?))?;
        check(&what, &host(&y)?, &want, tol * k as f64)?;
        check(
            &format!("{what} zf"),
            &host(&zf.ok_or("no zf")?)?,
            &wzf,
            tol * k as f64,
        )?;
        let zit = up::<T>(dev, &zi, &[k, rows, 2])?.permute(&[0, 2, 1])?; // (k, 2, rows)
        let (y, zf) = signal::sosfilt(&dsos, &x.t(), 0, Some(&zit))?;
        check(
            &format!("{what} axis0"),
            &host(&y.t().contiguous()?)?,
            &want,
            tol * k as f64,
        )?;
        let zf = zf.ok_or("no zf")?.permute(&[0, 2, 1])?.contiguous()?;
        check(
            &format!("{what} axis0 zf"),
            &host(&zf)?,
            &wzf,
            tol * k as f64,
        )?;
        let (y, zf) = signal::sosfilt(&dsos, &x, -1, None)?;
        ensure!(zf.is_none(), "sosfilt zf without zi");
        ensure!(y.shape() == [rows, n], "sosfilt shape");
    }
    Ok(())
}

/// SciPy's `odd_ext` then forward and backward passes, on the host.
fn host_filtfilt(b: &[f64], a: &[f64], x: &[f64], zi: &[f64], edge: usize) -> Vec<f64> {
    let n = x.len();
    let mut ext: Vec<f64> = (1..=edge).rev().map(|i| 2.0 * x[0] - x[i]).collect();
    ext.extend_from_slice(x);
    ext.extend((1..=edge).map(|i| 2.0 * x[n - 1] - x[n - 1 - i]));
    let z: Vec<f64> = zi.iter().map(|v| v * ext[0]).collect();
    let (y, _) = host_lfilter(b, a, &ext, &z);
    let rev: Vec<f64> = y.iter().rev().copied().collect();
    let z: Vec<f64> = zi.iter().map(|v| v * rev[0]).collect();
    let (y, _) = host_lfilter(b, a, &rev, &z);
    let y: Vec<f64> = y.into_iter().rev().collect();
    y[edge..edge + n].to_vec()
}

fn filtfilt_all<T: Sig>(dev: &Device, rng: &mut Rng) -> TResult {
    let name = T::DTYPE.name();
    let tol = T::TOL * 200.0;
    let (b, a) = stable_filter(rng, 3);
    let (b, a) = (rounded::<T>(&b), rounded::<T>(&a));
    let (db, da) = (up::<T>(dev, &b, &[4])?, up::<T>(dev, &a, &[4])?);
    let zi = host(&signal::lfilter_zi(&db, &da)?)?;
    let (rows, n) = (3usize, 1000usize);
    let (x, hx) = rand::<T>(dev, rng, &[rows, n])?;
    let mut want = Vec::new();
    for r in 0..rows {
        want.extend(host_filtfilt(&b, &a, &hx[r * n..(r + 1) * n], &zi, 12));
    }
    check(
        &format!("signal/filtfilt/{name}/axis-1"),
        &host(&signal::filtfilt(&db, &da, &x, -1)?)?,
        &want,
        tol,
    )?;
    let y = signal::filtfilt(&db, &da, &x.t(), 0)?;
    check(
        &format!("signal/filtfilt/{name}/axis0"),
        &host(&y.t().contiguous()?)?,
        &want,
        tol,
    )?;
    let short = DeviceArray::<T>::ones(dev, &[12])?;
    let e = signal::filtfilt(&db, &da, &short, -1)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    ensure!(e.contains("padlen"), "filtfilt of a short input: {e}");
    // sosfiltfilt with butter's sections: 2 sections, ntaps 5, padlen 15.
    let sos: Vec<f64> =
        rounded::<T>(&signal::butter(4, &[0.15], signal::BType::Lowpass, None)?.concat());
    let dsos = up::<T>(dev, &sos, &[2, 6])?;
    let szi = host(&signal::sosfilt_zi(&dsos)?)?;
    let mut want = Vec::new();
    for r in 0..rows {
        let mut cur = hx[r * n..(r + 1) * n].to_vec();
        // Extension once, then the cascade forward and backward, as SciPy.
        let edge = 15;
        let mut ext: Vec<f64> = (1..=edge).rev().map(|i| 2.0 * cur[0] - cur[i]).collect();
        ext.extend_from_slice(&cur);
        ext.extend((1..=edge).map(|i| 2.0 * cur[n - 1] - cur[n - 1 - i]));
        let pass = |sig: &[f64]| -> Vec<f64> {
            let x0 = sig[0];
            let mut c = sig.to_vec();
            for s in 0..2 {
                let z: Vec<f64> = szi[s * 2..s * 2 + 2].iter().map(|v| v * x0).collect();
                c = host_lfilter(&sos[s * 6..s * 6 + 3], &sos[s * 6 + 3..s * 6 + 6], &c, &z).0;
            }
            c
        };
        let y = pass(&ext);
        let rev: Vec<f64> = y.into_iter().rev().collect();
        let y: Vec<f64> = pass(&rev).into_iter().rev().collect();
        cur = y[edge..edge + n].to_vec();
        want.extend(cur);
    }
    check(
        &format!("signal/sosfiltfilt/{name}/axis-1"),
        &host(&signal::sosfiltfilt(&dsos, &x, -1)?)?,
        &want,
        tol,
    )?;
    let y = signal::sosfiltfilt(&dsos, &x.t(), 0)?;
    check(
        &format!("signal/sosfiltfilt/{name}/axis0"),
        &host(&y.t().contiguous()?)?,
        &want,
        tol,
    )?;
    Ok(())
}

fn filter_errors(dev: &Device) -> TResult {
    let x = DeviceArray::<f64>::ones(dev, &[100])?;
    let b = DeviceArray::<f64>::ones(dev, &[10])?;
    let a = DeviceArray::<f64>::ones(dev, &[1])?;
    let msg = |r: cuarray::Result<(DeviceArray<f64>, Option<DeviceArray<f64>>)>| {
        r.err().map(|e| e.to_string()).unwrap_or_default()
    };
    ensure!(
        msg(signal::lfilter(&b, &a, &x, -1, None)).contains("order"),
        "order 9"
    );
    let b3 = DeviceArray::<f64>::ones(dev, &[3])?;
    let zi = DeviceArray::<f64>::zeros(dev, &[3])?;
    ensure!(
        msg(signal::lfilter(&b3, &a, &x, -1, Some(&zi))).contains("zi"),
        "zi shape"
    );
    ensure!(
        msg(signal::lfilter(&b3, &a, &x, 1, None)).contains("axis"),
        "axis"
    );
    let e = DeviceArray::<f64>::zeros(dev, &[0])?;
    ensure!(
        msg(signal::lfilter(&e, &a, &x, -1, None)).contains("b"),
        "empty b"
    );
    let bad = DeviceArray::<f64>::ones(dev, &[2, 5])?;
    ensure!(
        msg(signal::sosfilt(&bad, &x, -1, None)).contains("sos"),
        "sos shape"
    );
    // An empty signal filters to an empty signal.
    let (y, _) = signal::lfilter(&b3, &a, &e, -1, None)?;
    ensure!(y.size() == 0, "empty signal");
    Ok(())
}

pub fn trials(out: &mut Vec<Trial>) {
    out.push(gpu_trial("signal/lfilter/f32/orders_lengths_zi", |dev| {
        lfilter_1d::<f32>(dev, &mut Rng::for_name("signal/lf/f32"))
    }));
    out.push(gpu_trial("signal/lfilter/f64/orders_lengths_zi", |dev| {
        lfilter_1d::<f64>(dev, &mut Rng::for_name("signal/lf/f64"))
    }));
    out.push(gpu_trial("signal/lfilter/f32/axes_sosfilt", |dev| {
        lfilter_2d::<f32>(dev, &mut Rng::for_name("signal/l2/f32"))
    }));
    out.push(gpu_trial("signal/lfilter/f64/axes_sosfilt", |dev| {
        lfilter_2d::<f64>(dev, &mut Rng::for_name("signal/l2/f64"))
    }));
    out.push(gpu_trial("signal/filtfilt/f32/both", |dev| {
        filtfilt_all::<f32>(dev, &mut Rng::for_name("signal/ff/f32"))
    }));
    out.push(gpu_trial("signal/filtfilt/f64/both", |dev| {
        filtfilt_all::<f64>(dev, &mut Rng::for_name("signal/ff/f64"))
    }));
    out.push(gpu_trial("signal/lfilter/f64/errors", filter_errors));
    out.push(gpu_trial("signal/convolve/f32/1d_modes_methods", |dev| {
        conv_1d::<f32>(dev, &mut Rng::for_name("signal/c1/f32"))
    }));
    out.push(gpu_trial("signal/convolve/f64/1d_modes_methods", |dev| {
        conv_1d::<f64>(dev, &mut Rng::for_name("signal/c1/f64"))
    }));
    out.push(gpu_trial("signal/convolve/f32/2d_boundaries", |dev| {
        conv_2d::<f32>(dev, &mut Rng::for_name("signal/c2/f32"))
    }));
    out.push(gpu_trial("signal/convolve/f64/2d_boundaries", |dev| {
        conv_2d::<f64>(dev, &mut Rng::for_name("signal/c2/f64"))
    }));
    out.push(gpu_trial(
        "signal/fftconvolve/f32/axes_overlap_add",
        |dev| fft_axes::<f32>(dev, &mut Rng::for_name("signal/fa/f32")),
    ));
    out.push(gpu_trial(
        "signal/fftconvolve/f64/axes_overlap_add",
        |dev| fft_axes::<f64>(dev, &mut Rng::for_name("signal/fa/f64")),
    ));
    out.push(gpu_trial("signal/convolve/f64/errors", conv_errors));
}
