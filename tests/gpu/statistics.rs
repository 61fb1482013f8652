//! Statistics: the NaN-skipping reductions and scans, ptp, median and quantiles (every
//! method, NaN and not), average, digitize, ediff1d and trapezoid, on the GPU against host
//! f64 references written from NumPy's definitions; random data with NaN at random places,
//! all-NaN slices, odd and even lengths, q = 0 and 1, axes 0 and -1 of 3-D arrays,
//! non-contiguous views and rows past one block. The NVRTC tier compiles the quantile
//! kernels.

use crate::common::{ensure, gpu_trial, nvrtc_trial, Rng, TResult};
use cuarray::stats::{quantile_index, QuantileMethod};
use cuarray::testing::kernels::nvrtc;
use cuarray::{DType, Device, DeviceArray, Element, FloatElement};
use libtest_mimic::Trial;

fn nvrtc_compiles(d: DType) -> TResult {
    for spec in cuarray::testing::stats::kernel_specs(d) {
        let (src, sym) = (spec.source(), spec.symbol());
        if let Err(e) = nvrtc::compile(&src, &sym, &nvrtc::options((9, 0))) {
            let mut msg = e.to_string();
            msg.truncate(6000);
            return Err(format!("{sym} failed to compile: {msg}").into());
        }
    }
    Ok(())
}

/// A host 3-D array in f64 with NaN at random places and two all-NaN slices: the row
/// `[0, 0, :]` (axis -1) and the column `[:, 1, 2]` (axis 0).
fn data(rng: &mut Rng, shape: [usize; 3]) -> Vec<f64> {
    let n: usize = shape.iter().product();
    let mut v: Vec<f64> = (0..n)
        .map(|_| {
            if rng.below(10) == 0 {
                f64::NAN
            } else {
                rng.range(-10.0, 10.0)
            }
        })
        .collect();
    v[..shape[2]].fill(f64::NAN);
    for i in 0..shape[0] {
        v[(i * shape[1] + 1) * shape[2] + 2] = f64::NAN;
    }
    v
}

/// The flat indices of every output's slice (C order of the outputs; the slice's own
/// elements in C order) for a reduction over `axis` (all when `None`).
fn slices(shape: [usize; 3], axis: Option<usize>) -> Vec<Vec<usize>> {
    let n: usize = shape.iter().product();
    let Some(ax) = axis else {
        return vec![(0..n).collect()];
    };
    let strides = [shape[1] * shape[2], shape[2], 1];
    let kept: Vec<usize> = (0..3).filter(|&k| k != ax).collect();
    let mut out = Vec::new();
    for i in 0..shape[kept[0]] {
        for j in 0..shape[kept[1]] {
            let base = i * strides[kept[0]] + j * strides[kept[1]];
            out.push((0..shape[ax]).map(|t| base + t * strides[ax]).collect());
        }
    }
    out
}

/// Uploads `h` (shape `shape`) as a contiguous array, or as a permuted view of an array
/// stored with the axes reversed.
fn upload<T: FloatElement>(
    dev: &Device,
    h: &[f64],
    shape: [usize; 3],
    strided: bool,
) -> cuarray::Result<DeviceArray<T>> {
    if !strided {
        let v: Vec<T> = h.iter().map(|&x| T::from_f64(x)).collect();
        return DeviceArray::from_host(dev, &v, shape);
    }
    let [a, b, c] = shape;
    let mut r = vec![T::from_f64(0.0); h.len()];
    for i in 0..a {
        for j in 0..b {
            for k in 0..c {
                r[(k * b + j) * a + i] = T::from_f64(h[(i * b + j) * c + k]);
            }
        }
    }
    DeviceArray::from_host(dev, &r, [c, b, a])?.permute(&[2, 1, 0])
}

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

fn host<T: Element>(a: &DeviceArray<T>) -> cuarray::Result<Vec<f64>> {
    Ok(a.to_host()?.into_iter().map(|x| x.to_f64()).collect())
}

fn nan_reductions<T: FloatElement>(dev: &Device, rng: &mut Rng, rel: f64) -> TResult {
    for shape in [[4, 6, 333], [3, 5, 5000], [5, 2, 64]] {
        let h = data(rng, shape);
        for strided in [false, true] {
            let a = upload::<T>(dev, &h, shape, strided)?;
            // What the device sees, rounded to T.
            let h: Vec<f64> = h.iter().map(|&x| T::from_f64(x).to_f64()).collect();
            for axis in [None, Some(0usize), Some(2)] {
                let sl = slices(shape, axis);
                let vals = |s: &Vec<usize>| -> Vec<f64> {
                    s.iter().map(|&i| h[i]).filter(|x| !x.is_nan()).collect()
                };
                let sum: Vec<f64> = sl.iter().map(|s| vals(s).iter().sum()).collect();
                let cnt: Vec<f64> = sl.iter().map(|s| vals(s).len() as f64).collect();
                let mean: Vec<f64> = sum.iter().zip(&cnt).map(|(s, c)| s / c).collect();
                let var = |ddof: f64| -> Vec<f64> {
                    sl.iter()
                        .zip(&mean)
                        .map(|(s, m)| {
                            let v = vals(s);
                            let dof = v.len() as f64 - ddof;
                            if dof <= 0.0 {
                                f64::NAN
                            } else {
                                v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / dof
                            }
                        })
                        .collect()
                };
                let mx: Vec<f64> = sl
                    .iter()
                    .map(|s| vals(s).into_iter().fold(f64::NAN, f64::max))
                    .collect();
                let mn: Vec<f64> = sl
                    .iter()
                    .map(|s| vals(s).into_iter().fold(f64::NAN, f64::min))
                    .collect();
                let tag = format!("{shape:?} strided={strided} axis={axis:?}");
                let (s, m, v1, sd, x, n) = match axis {
                    None => (
                        host(&a.nansum()?)?,
                        host(&a.nanmean()?)?,
                        host(&a.nanvar(1)?)?,
                        host(&a.nanstd(0)?)?,
                        host(&a.nanmax()?)?,
                        host(&a.nanmin()?)?,
                    ),
                    Some(ax) => {
                        let ax = if ax == 2 { -1 } else { ax as isize };
                        (
                            host(&a.nansum_axis(ax)?)?,
                            host(&a.nanmean_axis(ax)?)?,
                            host(&a.nanvar_axis(ax, 1)?)?,
                            host(&a.nanstd_axis(ax, 0)?)?,
                            host(&a.nanmax_axis(ax)?)?,
                            host(&a.nanmin_axis(ax)?)?,
                        )
                    }
                };
                check(&format!("nansum {tag}"), &s, &sum, rel)?;
                check(&format!("nanmean {tag}"), &m, &mean, rel)?;
                check(&format!("nanvar(1) {tag}"), &v1, &var(1.0), rel * 10.0)?;
                let sd0: Vec<f64> = var(0.0).iter().map(|v| v.sqrt()).collect();
                check(&format!("nanstd(0) {tag}"), &sd, &sd0, rel * 10.0)?;
                check(&format!("nanmax {tag}"), &x, &mx, 0.0)?;
                check(&format!("nanmin {tag}"), &n, &mn, 0.0)?;
                // nanargmax: an all-NaN slice is an error; NaN counts as -inf.
                let argref = |s: &Vec<usize>, max: bool| -> Option<f64> {
                    let mut best: Option<(usize, f64)> = None;
                    for (t, &i) in s.iter().enumerate() {
                        let v = h[i];
                        if v.is_nan() {
                            continue;
                        }
                        let better = match best {
                            None => true,
                            Some((_, b)) => (max && v > b) || (!max && v < b),
                        };
                        if better {
                            best = Some((t, v));
                        }
                    }
                    best.map(|b| b.0 as f64)
                };
                for max in [true, false] {
                    let want: Option<Vec<f64>> = sl.iter().map(|s| argref(s, max)).collect();
                    let got = match (axis, max) {
                        (None, true) => a.nanargmax(),
                        (None, false) => a.nanargmin(),
                        (Some(ax), true) => {
                            a.nanargmax_axis(if ax == 2 { -1 } else { ax as isize })
                        }
                        (Some(ax), false) => {
                            a.nanargmin_axis(if ax == 2 { -1 } else { ax as isize })
                        }
                    };
                    match want {
                        None => ensure!(got.is_err(), "nanarg{max} {tag}: all-NaN slice accepted"),
                        Some(w) => {
                            check(&format!("nanarg max={max} {tag}"), &host(&got?)?, &w, 0.0)?
                        }
                    }
                }
            }
            // The sub-array without the all-NaN slices along axis 1 (none of them).
            let inner = a.slice([
                cuarray::SliceElem::Range {
                    start: Some(1),
                    end: None,
                    step: 1,
                },
                cuarray::SliceElem::Range {
                    start: Some(1),
                    end: Some(2),
                    step: 1,
                },
                cuarray::SliceElem::Range {
                    start: None,
                    end: None,
                    step: 1,
                },
            ])?;
            let got = host(&inner.nanargmax_axis(-1)?)?;
            ensure!(got.len() == shape[0] - 1, "nanargmax of a slice view");
            // nancumsum along the last axis.
            let cs = host(&a.nancumsum(-1)?)?;
            let mut want = vec![0.0; h.len()];
            for row in 0..h.len() / shape[2] {
                let mut acc = 0.0;
                for k in 0..shape[2] {
                    let x = h[row * shape[2] + k];
                    if !x.is_nan() {
                        acc += x;
                    }
                    want[row * shape[2] + k] = acc;
                }
            }
            check(
                &format!("nancumsum {shape:?} strided={strided}"),
                &cs,
                &want,
                rel * 10.0,
            )?;
            // ptp propagates NaN; on the all-NaN-free row block it is max - min.
            let p = host(&inner.ptp_axis(-1)?)?;
            ensure!(p.len() == shape[0] - 1, "ptp shape");
        }
    }
    Ok(())
}

/// NumPy's quantile of one slice: NaN if any NaN (plain) or of the non-NaN elements.
fn host_quantile(v: &[f64], q: f64, m: QuantileMethod, skip_nan: bool) -> f64 {
    let mut s: Vec<f64> = if skip_nan {
        v.iter().copied().filter(|x| !x.is_nan()).collect()
    } else {
        if v.iter().any(|x| x.is_nan()) {
            return f64::NAN;
        }
        v.to_vec()
    };
    if s.is_empty() {
        return f64::NAN;
    }
    s.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let (p, n, g) = quantile_index(m, s.len(), q);
    if m.is_discrete() {
        s[p]
    } else {
        cuarray::stats::lerp(s[p], s[n], g)
    }
}

fn quantiles<T: FloatElement>(dev: &Device, rng: &mut Rng, rel: f64) -> TResult {
    let qs = [0.0, 0.25, 0.5, 0.9, 1.0];
    for shape in [[3, 4, 37], [2, 3, 38], [2, 2, 5000]] {
        let h = data(rng, shape);
        // Plain quantiles need NaN-free slices to say much: a NaN-free copy too.
        let clean: Vec<f64> = h
            .iter()
            .map(|&x| if x.is_nan() { 0.5 } else { x })
            .collect();
        for (src, label) in [(&h, "nan"), (&clean, "clean")] {
            for strided in [false, true] {
                let a = upload::<T>(dev, src, shape, strided)?;
                let hv: Vec<f64> = src.iter().map(|&x| T::from_f64(x).to_f64()).collect();
                for axis in [None, Some(0usize), Some(2)] {
                    let sl = slices(shape, axis);
                    let ax = axis.map(|a| if a == 2 { -1 } else { a as isize });
                    for m in QuantileMethod::ALL {
                        for skip in [false, true] {
                            let got = if skip {
                                cuarray::nanquantile(&a, &qs, ax, false, m)?
                            } else {
                                cuarray::quantile(&a, &qs, ax, false, m)?
                            };
                            ensure!(got.shape()[0] == qs.len(), "quantile axis first");
                            let got = host(&got)?;
                            let mut want = Vec::new();
                            for &q in &qs {
                                for s in &sl {
                                    let v: Vec<f64> = s.iter().map(|&i| hv[i]).collect();
                                    want.push(host_quantile(&v, q, m, skip));
                                }
                            }
                            let tag = format!(
                                "{label} {shape:?} strided={strided} axis={axis:?} {m:?} nan={skip}"
                            );
                            check(&tag, &got, &want, rel)?;
                        }
                    }
                }
                // median, keepdims, percentile, nanmedian.
                let md = host(&a.median_axis(-1)?)?;
                let want: Vec<f64> = slices(shape, Some(2))
                    .iter()
                    .map(|s| {
                        let v: Vec<f64> = s.iter().map(|&i| hv[i]).collect();
                        host_quantile(&v, 0.5, QuantileMethod::Linear, false)
                    })
                    .collect();
                check(&format!("median {label} {shape:?}"), &md, &want, rel)?;
                let nm = host(&a.nanmedian()?)?;
                let v: Vec<f64> = hv.clone();
                check(
                    "nanmedian",
                    &nm,
                    &[host_quantile(&v, 0.5, QuantileMethod::Linear, true)],
                    rel,
                )?;
                let k = a.median_keepdim(0)?;
                ensure!(k.shape() == [1, shape[1], shape[2]], "median_keepdim shape");
                let p = cuarray::percentile(&a, &[50.0], Some(-1), true, QuantileMethod::Linear)?;
                ensure!(
                    p.shape() == [1, shape[0], shape[1], 1],
                    "percentile keepdims shape"
                );
                check("percentile 50 = median", &host(&p)?, &want, rel)?;
            }
        }
    }
    // Errors: empty input, q outside [0, 1].
    let e = DeviceArray::<T>::zeros(dev, [0])?;
    ensure!(e.median().is_err(), "median of an empty array");
    let a = DeviceArray::<T>::ones(dev, [4])?;
    ensure!(
        cuarray::quantile(&a, &[1.5], None, false, QuantileMethod::Linear).is_err(),
        "q > 1"
    );
    ensure!(
        cuarray::percentile(&a, &[-1.0], None, false, QuantileMethod::Linear).is_err(),
        "p < 0"
    );
    Ok(())
}

fn summaries(dev: &Device, rng: &mut Rng) -> TResult {
    let (r, c) = (5usize, 700usize);
    let a: Vec<f64> = (0..r * c).map(|_| rng.range(-3.0, 3.0)).collect();
    let w: Vec<f64> = (0..c).map(|_| rng.range(0.1, 2.0)).collect();
    let da = DeviceArray::from_host(dev, &a, [r, c])?;
    let dw = DeviceArray::from_slice(dev, &w)?;
    let got = host(&cuarray::average(&da, Some(&dw), Some(-1))?)?;
    let want: Vec<f64> = (0..r)
        .map(|i| {
            let s: f64 = (0..c).map(|j| a[i * c + j] * w[j]).sum();
            s / w.iter().sum::<f64>()
        })
        .collect();
    check("average", &got, &want, 1e-12)?;
    // digitize against a host search.
    let bins: Vec<f64> = (0..100).map(|i| i as f64 * 0.06 - 3.0).collect();
    let db = DeviceArray::from_slice(dev, &bins)?;
    let x = DeviceArray::from_slice(dev, &a)?;
    for right in [false, true] {
        let got = host(&cuarray::digitize(&x, &db, right)?)?;
        let want: Vec<f64> = a
            .iter()
            .map(|&v| {
                bins.iter()
                    .filter(|&&b| if right { b < v } else { b <= v })
                    .count() as f64
            })
            .collect();
        check(&format!("digitize right={right}"), &got, &want, 0.0)?;
    }
    // trapezoid along both axes, ediff1d.
    let t = host(&cuarray::trapezoid(&da, 0.5, -1)?)?;
    let want: Vec<f64> = (0..r)
        .map(|i| {
            (1..c)
                .map(|j| (a[i * c + j] + a[i * c + j - 1]) * 0.25)
                .sum()
        })
        .collect();
    check("trapezoid", &t, &want, 1e-12)?;
    let e = host(&cuarray::ediff1d(&da)?)?;
    let want: Vec<f64> = a.windows(2).map(|p| p[1] - p[0]).collect();
    check("ediff1d", &e, &want, 0.0)?;
    let p = host(&da.ptp_axis(-1)?)?;
    let want: Vec<f64> = (0..r)
        .map(|i| {
            let row = &a[i * c..(i + 1) * c];
            row.iter().cloned().fold(f64::MIN, f64::max)
                - row.iter().cloned().fold(f64::MAX, f64::min)
        })
        .collect();
    check("ptp", &p, &want, 0.0)?;
    more(dev, rng, &a, r, c)
}

/// cov, corrcoef, histogram_with, bincount_weighted, interp, gradient, cross.
fn more(dev: &Device, rng: &mut Rng, a: &[f64], r: usize, c: usize) -> TResult {
    let da = DeviceArray::from_host(dev, a, [r, c])?;
    let mean: Vec<f64> = (0..r)
        .map(|i| a[i * c..(i + 1) * c].iter().sum::<f64>() / c as f64)
        .collect();
    let mut cv = vec![0.0; r * r];
    for i in 0..r {
        for j in 0..r {
            cv[i * r + j] = (0..c)
                .map(|k| (a[i * c + k] - mean[i]) * (a[j * c + k] - mean[j]))
                .sum::<f64>()
                / (c as f64 - 1.0);
        }
    }
    check("cov", &host(&cuarray::cov(&da, true, None)?)?, &cv, 1e-12)?;
    // rowvar = false on the transposed view: the same matrix.
    check(
        "cov rowvar=false",
        &host(&cuarray::cov(&da.t(), false, None)?)?,
        &cv,
        1e-12,
    )?;
    let cc: Vec<f64> = (0..r * r)
        .map(|ij| cv[ij] / (cv[(ij / r) * (r + 1)].sqrt() * cv[(ij % r) * (r + 1)].sqrt()))
        .collect();
    check(
        "corrcoef",
        &host(&cuarray::corrcoef(&da, true)?)?,
        &cc,
        1e-12,
    )?;
    // histogram with uneven edges, weights, density.
    let edges = [-2.5, -1.0, 0.0, 0.25, 2.0, 2.9];
    let de = DeviceArray::from_slice(dev, &edges)?;
    let w: Vec<f64> = (0..r * c).map(|_| rng.range(0.0, 1.0)).collect();
    let dw = DeviceArray::from_host(dev, &w, [r, c])?;
    let mut hist = vec![0.0; 5];
    let mut whist = vec![0.0; 5];
    for (k, &v) in a.iter().enumerate() {
        let b = if v == edges[5] {
            Some(4)
        } else {
            (0..5).find(|&b| edges[b] <= v && v < edges[b + 1])
        };
        if let Some(b) = b {
            hist[b] += 1.0;
            whist[b] += w[k];
        }
    }
    check(
        "histogram_with",
        &host(&cuarray::histogram_with(&da, &de, None, false)?)?,
        &hist,
        0.0,
    )?;
    check(
        "histogram_with weights",
        &host(&cuarray::histogram_with(&da, &de, Some(&dw), false)?)?,
        &whist,
        1e-12,
    )?;
    let total: f64 = hist.iter().sum();
    let dens: Vec<f64> = (0..5)
        .map(|b| hist[b] / (edges[b + 1] - edges[b]) / total)
        .collect();
    check(
        "histogram_with density",
        &host(&cuarray::histogram_with(&da, &de, None, true)?)?,
        &dens,
        1e-12,
    )?;
    // histogram2d over a given range: points on the last edges counted in the last bins.
    let xs: Vec<f64> = (0..5000)
        .map(|i| {
            if i % 97 == 0 {
                1.0
            } else {
                rng.range(-1.2, 1.2)
            }
        })
        .collect();
    let ys: Vec<f64> = (0..5000).map(|_| rng.range(-1.0, 1.0)).collect();
    let (h, xe, ye) = cuarray::histogram2d(
        &DeviceArray::from_slice(dev, &xs)?,
        &DeviceArray::from_slice(dev, &ys)?,
        (4, 3),
        Some(((-1.0, 1.0), (-1.0, 1.0))),
    )?;
    let (xe, ye) = (host(&xe)?, host(&ye)?);
    let mut want = vec![0.0; 12];
    for (&x, &y) in xs.iter().zip(&ys) {
        let bx = if x == xe[4] {
            Some(3)
        } else {
            (0..4).find(|&b| xe[b] <= x && x < xe[b + 1])
        };
        let by = if y == ye[3] {
            Some(2)
        } else {
            (0..3).find(|&b| ye[b] <= y && y < ye[b + 1])
        };
        if let (Some(bx), Some(by)) = (bx, by) {
            want[bx * 3 + by] += 1.0;
        }
    }
    ensure!(h.shape() == [4, 3], "histogram2d shape");
    check("histogram2d", &host(&h)?, &want, 0.0)?;
    // bincount_weighted.
    let xi: Vec<i32> = (0..3000).map(|_| rng.below(40) as i32).collect();
    let wi: Vec<f64> = (0..3000).map(|_| rng.range(-1.0, 1.0)).collect();
    let mut bc = vec![0.0; 50];
    for (&x, &v) in xi.iter().zip(&wi) {
        bc[x as usize] += v;
    }
    let got = cuarray::bincount_weighted(
        &DeviceArray::from_slice(dev, &xi)?,
        &DeviceArray::from_slice(dev, &wi)?,
        50,
    )?;
    check("bincount_weighted", &host(&got)?, &bc, 1e-12)?;
    // interp with left/right and NaN.
    let xp: Vec<f64> = (0..200).map(|i| i as f64 * 0.03 - 3.0).collect();
    let fp: Vec<f64> = xp.iter().map(|x| x.sin()).collect();
    let mut xs: Vec<f64> = a.to_vec();
    xs[0] = f64::NAN;
    xs[1] = xp[199];
    let want: Vec<f64> = xs
        .iter()
        .map(|&x| {
            if x.is_nan() {
                f64::NAN
            } else if x < xp[0] {
                -7.0
            } else if x >= xp[199] {
                fp[199]
            } else {
                let j = xp.iter().rposition(|&p| p <= x).unwrap();
                let s = (fp[j + 1] - fp[j]) / (xp[j + 1] - xp[j]);
                s * (x - xp[j]) + fp[j]
            }
        })
        .collect();
    let got = cuarray::interp(
        &DeviceArray::from_slice(dev, &xs)?,
        &DeviceArray::from_slice(dev, &xp)?,
        &DeviceArray::from_slice(dev, &fp)?,
        Some(-7.0),
        None,
    )?;
    check("interp", &host(&got)?, &want, 1e-12)?;
    // gradient along both axes, cross of 3-vectors along axis 0.
    let g = host(&cuarray::gradient(&da, 0.5, -1)?)?;
    let mut want = vec![0.0; r * c];
    for i in 0..r {
        let row = &a[i * c..(i + 1) * c];
        want[i * c] = (row[1] - row[0]) / 0.5;
        want[i * c + c - 1] = (row[c - 1] - row[c - 2]) / 0.5;
        for k in 1..c - 1 {
            want[i * c + k] = (row[k + 1] - row[k - 1]) / 1.0;
        }
    }
    check("gradient", &g, &want, 1e-12)?;
    let a3 = da.slice([
        cuarray::SliceElem::Range {
            start: Some(0),
            end: Some(3),
            step: 1,
        },
        cuarray::SliceElem::Range {
            start: None,
            end: None,
            step: 1,
        },
    ])?;
    let b3 = da.slice([
        cuarray::SliceElem::Range {
            start: Some(2),
            end: Some(5),
            step: 1,
        },
        cuarray::SliceElem::Range {
            start: None,
            end: None,
            step: 1,
        },
    ])?;
    let got = host(&cuarray::cross(&a3, &b3, 0)?)?;
    let mut want = vec![0.0; 3 * c];
    for k in 0..c {
        let u = [a[k], a[c + k], a[2 * c + k]];
        let v = [a[2 * c + k], a[3 * c + k], a[4 * c + k]];
        want[k] = u[1] * v[2] - u[2] * v[1];
        want[c + k] = u[2] * v[0] - u[0] * v[2];
        want[2 * c + k] = u[0] * v[1] - u[1] * v[0];
    }
    check("cross", &got, &want, 1e-12)?;
    convolutions(dev, rng)
}

/// NumPy's full convolution on the host, then the mode's window.
fn host_convolve(a: &[f64], v: &[f64], mode: cuarray::ConvMode) -> Vec<f64> {
    let (a, v) = if v.len() > a.len() { (v, a) } else { (a, v) };
    let (n, m) = (a.len(), v.len());
    let full: Vec<f64> = (0..n + m - 1)
        .map(|k| {
            (0..m)
                .filter(|&j| k >= j && k - j < n)
                .map(|j| a[k - j] * v[j])
                .sum()
        })
        .collect();
    match mode {
        cuarray::ConvMode::Full => full,
        cuarray::ConvMode::Same => full[(m - 1) / 2..(m - 1) / 2 + n].to_vec(),
        cuarray::ConvMode::Valid => full[m - 1..n].to_vec(),
    }
}

fn convolutions(dev: &Device, rng: &mut Rng) -> TResult {
    use cuarray::ConvMode;
    let a: Vec<f64> = (0..1000).map(|_| rng.range(-1.0, 1.0)).collect();
    let da = DeviceArray::from_slice(dev, &a)?;
    for m in [1usize, 7, 8, 33, 1500] {
        let v: Vec<f64> = (0..m).map(|_| rng.range(-1.0, 1.0)).collect();
        let dv = DeviceArray::from_slice(dev, &v)?;
        let rev: Vec<f64> = v.iter().rev().copied().collect();
        for mode in [ConvMode::Full, ConvMode::Same, ConvMode::Valid] {
            let got = host(&cuarray::convolve(&da, &dv, mode)?)?;
            check(
                &format!("convolve m={m} {mode:?}"),
                &got,
                &host_convolve(&a, &v, mode),
                1e-12,
            )?;
            let got = host(&cuarray::correlate(&da, &dv, mode)?)?;
            check(
                &format!("correlate m={m} {mode:?}"),
                &got,
                &host_convolve(&a, &rev, mode),
                1e-12,
            )?;
        }
    }
    // A strided input: every other element.
    let s = da.slice([cuarray::SliceElem::Range {
        start: None,
        end: None,
        step: 2,
    }])?;
    let even: Vec<f64> = a.iter().step_by(2).copied().collect();
    let v = [0.25, -1.0, 2.0];
    let got = host(&cuarray::convolve(
        &s,
        &DeviceArray::from_slice(dev, &v)?,
        ConvMode::Same,
    )?)?;
    check(
        "convolve strided",
        &got,
        &host_convolve(&even, &v, ConvMode::Same),
        1e-12,
    )?;
    Ok(())
}

pub fn trials(out: &mut Vec<Trial>) {
    for d in [DType::F32, DType::F64, DType::F16, DType::BF16] {
        out.push(nvrtc_trial(
            format!("nvrtc/stats/{}/quantile_kernels", d.name()),
            move || nvrtc_compiles(d),
        ));
    }
    out.push(gpu_trial("stats/f64/nan_reductions", |dev| {
        nan_reductions::<f64>(dev, &mut Rng::for_name("stats/f64/nan"), 1e-10)
    }));
    out.push(gpu_trial("stats/f32/nan_reductions", |dev| {
        nan_reductions::<f32>(dev, &mut Rng::for_name("stats/f32/nan"), 2e-4)
    }));
    out.push(gpu_trial("stats/f64/quantiles", |dev| {
        quantiles::<f64>(dev, &mut Rng::for_name("stats/f64/q"), 1e-12)
    }));
    out.push(gpu_trial("stats/f32/quantiles", |dev| {
        quantiles::<f32>(dev, &mut Rng::for_name("stats/f32/q"), 1e-5)
    }));
    out.push(gpu_trial("stats/f64/average_digitize_trapezoid", |dev| {
        summaries(dev, &mut Rng::for_name("stats/f64/summary"))
    }));
    out.push(gpu_trial("stats/f32/median_errors_and_small", |dev| {
        let a = DeviceArray::from_host(dev, &[3.0f32, 1.0, 2.0, 8.0, 6.0, 7.0], [2, 3])?;
        check("median_axis", &host(&a.median_axis(1)?)?, &[2.0, 7.0], 0.0)?;
        check("median", &host(&a.median()?)?, &[4.5], 0.0)?;
        let n = DeviceArray::from_slice(dev, &[f32::NAN, f32::NAN])?;
        ensure!(n.nanargmax().is_err(), "nanargmax of all NaN");
        ensure!(n.nanmedian()?.to_scalar()?.is_nan(), "nanmedian of all NaN");
        ensure!(n.nansum()?.to_scalar()? == 0.0, "nansum of all NaN");
        ensure!(n.nanmean()?.to_scalar()?.is_nan(), "nanmean of all NaN");
        ensure!(n.nanmax()?.to_scalar()?.is_nan(), "nanmax of all NaN");
        Ok(())
    }));
}
