//! Binning statistics on their one-pass kernels: `histogram_with` (counters and edges in
//! shared memory, and the global-memory path for many edges; counts and weighted sums) and
//! `interp`, against host f64 references from NumPy's definitions: values on the edges
//! (the last one closed), NaN, repeated edges, strided and transposed inputs, awkward and
//! empty sizes.

use crate::common::{ensure, gpu_trial, Rng, TResult};
use cuarray::{Device, DeviceArray, FloatElement};
use libtest_mimic::Trial;

fn close(got: f64, want: f64, rel: f64) -> bool {
    (got.is_nan() && want.is_nan())
        || got == want
        || (got - want).abs() <= rel * want.abs().max(1.0)
}

fn check(what: &str, got: &[f64], want: &[f64], rel: f64) -> TResult {
    ensure!(
        got.len() == want.len(),
        "{what}: {} values, want {}",
        got.len(),
        want.len()
    );
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        ensure!(close(g, w, rel), "{what}[{i}]: {g} != {w}");
    }
    Ok(())
}

/// NumPy's `histogram(a, edges, weights)`: bin `k` holds `edges[k] <= x < edges[k + 1]`
/// (the last bin closed), NaN and values outside dropped; `w` per element or 1.
fn host_hist(a: &[f64], edges: &[f64], w: Option<&[f64]>) -> Vec<f64> {
    let nb = edges.len() - 1;
    let mut h = vec![0.0; nb];
    for (i, &v) in a.iter().enumerate() {
        if v.is_nan() || v < edges[0] || v > edges[nb] {
            continue;
        }
        let k = if v == edges[nb] {
            nb - 1
        } else {
            edges.iter().filter(|&&e| e <= v).count() - 1
        };
        h[k] += w.map_or(1.0, |w| w[i]);
    }
    h
}

/// Values in [-1.2, 1.2) rounded to `T`, a NaN every 101st, every 37th one of the edges.
fn data<T: FloatElement>(rng: &mut Rng, n: usize, edges: &[f64]) -> Vec<f64> {
    (0..n)
        .map(|i| {
            if i % 101 == 5 {
                f64::NAN
            } else if i % 37 == 3 {
                edges[rng.below(edges.len())]
            } else {
                T::from_f64(rng.range(-1.2, 1.2)).to_f64()
            }
        })
        .collect()
}

fn to_t<T: FloatElement>(v: &[f64]) -> Vec<T> {
    v.iter().map(|&x| T::from_f64(x)).collect()
}

fn histograms<T: FloatElement>(dev: &Device, rng: &mut Rng) -> TResult {
    let round =
        |v: Vec<f64>| -> Vec<f64> { v.into_iter().map(|x| T::from_f64(x).to_f64()).collect() };
    // 1000 uniform edges (shared memory), uneven ones with a repeated edge, and 20000
    // edges (past the shared memory: global counters).
    let uniform = round((0..1000).map(|i| -1.0 + 2.0 * i as f64 / 999.0).collect());
    let uneven = round(vec![-1.0, -0.3, 0.0, 0.0, 0.125, 0.5, 1.1]);
    let many = round(
        (0..20000)
            .map(|i| -1.1 + 2.2 * i as f64 / 19999.0)
            .collect(),
    );
    for (name, edges) in [("uniform", &uniform), ("uneven", &uneven), ("many", &many)] {
        let de = DeviceArray::from_slice(dev, &to_t::<T>(edges))?;
        for n in [0usize, 1, 1000, 300_001] {
            let a = data::<T>(rng, n, edges);
            let w: Vec<f64> = (0..n).map(|_| rng.range(0.0, 2.0)).collect();
            let da = DeviceArray::from_slice(dev, &to_t::<T>(&a))?;
            let dw = DeviceArray::from_slice(dev, &to_t::<T>(&w))?;
            let wt: Vec<f64> = to_t::<T>(&w).into_iter().map(|x| x.to_f64()).collect();
            let got = cuarray::histogram_with(&da, &de, None, false)?.to_host()?;
            check(
                &format!("{name} n={n} counts"),
                &got,
                &host_hist(&a, edges, None),
                0.0,
            )?;
            let got = cuarray::histogram_with(&da, &de, Some(&dw), false)?.to_host()?;
            let want = host_hist(&a, edges, Some(&wt));
            check(&format!("{name} n={n} weights"), &got, &want, 1e-12)?;
        }
    }
    // A transposed, strided 2-D view with weights of its shape (in its C order).
    let (r, c) = (301, 257);
    let a = data::<T>(rng, r * c, &uniform);
    let w: Vec<f64> = (0..r * c)
        .map(|_| T::from_f64(rng.range(-1.0, 1.0)).to_f64())
        .collect();
    let da = DeviceArray::from_host(dev, &to_t::<T>(&a), [r, c])?;
    let view = da.t().slice(cuarray::s![..;2, ..])?; // shape (129, 301)
    let (vr, vc) = (c.div_ceil(2), r);
    let va: Vec<f64> = (0..vr * vc)
        .map(|p| a[(p % vc) * c + 2 * (p / vc)])
        .collect();
    let vw: Vec<f64> = w[..vr * vc].to_vec();
    let dw = DeviceArray::from_host(dev, &to_t::<T>(&vw), [vr, vc])?;
    let de = DeviceArray::from_slice(dev, &to_t::<T>(&uniform))?;
    let got = cuarray::histogram_with(&view, &de, None, false)?.to_host()?;
    check("strided counts", &got, &host_hist(&va, &uniform, None), 0.0)?;
    let got = cuarray::histogram_with(&view, &de, Some(&dw), true)?.to_host()?;
    let h = host_hist(&va, &uniform, Some(&vw));
    let total: f64 = h.iter().sum();
    let dens: Vec<f64> = (0..h.len())
        .map(|k| h[k] / (uniform[k + 1] - uniform[k]) / total)
        .collect();
    check("strided weighted density", &got, &dens, 1e-9)?;
    Ok(())
}

/// NumPy's interp in f64 (`xp` increasing).
fn host_interp(x: f64, xp: &[f64], fp: &[f64], left: Option<f64>, right: Option<f64>) -> f64 {
    let m = xp.len();
    if x.is_nan() {
        return x;
    }
    let pos = xp.iter().filter(|&&p| p <= x).count();
    if pos == 0 {
        return left.unwrap_or(fp[0]);
    }
    if pos == m {
        return if x == xp[m - 1] {
            fp[m - 1]
        } else {
            right.unwrap_or(fp[m - 1])
        };
    }
    let (x0, x1, f0, f1) = (xp[pos - 1], xp[pos], fp[pos - 1], fp[pos]);
    let slope = (f1 - f0) / (x1 - x0);
    let mut r = slope * (x - x0) + f0;
    if r.is_nan() {
        r = slope * (x - x1) + f1;
        if r.is_nan() && f0 == f1 {
            r = f0;
        }
    }
    r
}

fn interps<T: FloatElement>(dev: &Device, rng: &mut Rng, rel: f64) -> TResult {
    let t = |v: f64| T::from_f64(v).to_f64();
    // 3000 uneven points (past the 1024 shared splitters) with one repeated abscissa, and
    // a single point.
    let mut xs3: Vec<f64> = (0..3000)
        .map(|i| t(-2.0 + 4.0 * (i as f64 / 2999.0).powf(1.3)))
        .collect();
    xs3[1500] = xs3[1499];
    let fs3: Vec<f64> = xs3.iter().map(|&x| t((3.0 * x).sin())).collect();
    for (xp, fp) in [(xs3, fs3), (vec![0.5], vec![t(1.25)])] {
        let (dxp, dfp) = (
            DeviceArray::from_slice(dev, &to_t::<T>(&xp))?,
            DeviceArray::from_slice(dev, &to_t::<T>(&fp))?,
        );
        let (r, c): (usize, usize) = (211, 173);
        let x: Vec<f64> = (0..r * c)
            .map(|i| match i % 97 {
                0 => f64::NAN,
                1 => xp[rng.below(xp.len())],
                2 => xp[xp.len() - 1],
                3 => -0.0,
                _ => t(rng.range(-2.5, 2.5)),
            })
            .collect();
        let dx = DeviceArray::from_host(dev, &to_t::<T>(&x), [r, c])?;
        for (left, right) in [(None, None), (Some(-7.0), Some(9.5))] {
            let (l, rr) = (left.map(T::from_f64), right.map(T::from_f64));
            let got: Vec<f64> = cuarray::interp(&dx, &dxp, &dfp, l, rr)?
                .to_host()?
                .into_iter()
                .map(|v| v.to_f64())
                .collect();
            let want: Vec<f64> = x
                .iter()
                .map(|&v| t(host_interp(v, &xp, &fp, left, right)))
                .collect();
            check(&format!("interp m={} {left:?}", xp.len()), &got, &want, rel)?;
            // A transposed view, every other column.
            let view = dx.t().slice(cuarray::s![.., ..;2])?;
            let (vr, vc) = (c, r.div_ceil(2));
            let vx: Vec<f64> = (0..vr * vc).map(|p| x[2 * (p % vc) * c + p / vc]).collect();
            let got: Vec<f64> = cuarray::interp(&view, &dxp, &dfp, l, rr)?
                .to_host()?
                .into_iter()
                .map(|v| v.to_f64())
                .collect();
            let want: Vec<f64> = vx
                .iter()
                .map(|&v| t(host_interp(v, &xp, &fp, left, right)))
                .collect();
            check(&format!("interp strided m={}", xp.len()), &got, &want, rel)?;
        }
        let empty = DeviceArray::<T>::zeros(dev, [0, 3])?;
        ensure!(
            cuarray::interp(&empty, &dxp, &dfp, None, None)?.shape() == [0, 3],
            "empty interp"
        );
    }
    Ok(())
}

pub fn trials(out: &mut Vec<Trial>) {
    out.push(gpu_trial(
        "stats/histogram_with/f32/shared_global_weights",
        |dev| histograms::<f32>(dev, &mut Rng::for_name("stats/hist/f32")),
    ));
    out.push(gpu_trial(
        "stats/histogram_with/f64/shared_global_weights",
        |dev| histograms::<f64>(dev, &mut Rng::for_name("stats/hist/f64")),
    ));
    out.push(gpu_trial("stats/interp/f32/one_pass", |dev| {
        interps::<f32>(dev, &mut Rng::for_name("stats/interp/f32"), 1e-6)
    }));
    out.push(gpu_trial("stats/interp/f64/one_pass", |dev| {
        interps::<f64>(dev, &mut Rng::for_name("stats/interp/f64"), 1e-12)
    }));
}
