//! Reductions and scans against host references in f64 (exact for integers): every op x
//! dtype x axis set x layout, including long rows, many tiny rows, empty axes, NaN and a
//! row longer than 2^31 elements.

use crate::common::{add_gpu, ensure, Rng, TResult};
use cuarray::{s, Device, DeviceArray, Element};
use libtest_mimic::Trial;

/// Host array in f64 with its shape (row-major).
struct H {
    v: Vec<f64>,
    shape: Vec<usize>,
}

fn c_strides(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1; shape.len()];
    for k in (0..shape.len().saturating_sub(1)).rev() {
        s[k] = s[k + 1] * shape[k + 1];
    }
    s
}

/// Reference reduction of `h` over `axes` with `f` over the reduced values (in C order).
fn host_reduce(h: &H, axes: &[usize], f: &dyn Fn(&[f64]) -> f64) -> Vec<f64> {
    let nd = h.shape.len();
    let kept: Vec<usize> = (0..nd).filter(|k| !axes.contains(k)).collect();
    let n_out: usize = kept.iter().map(|&k| h.shape[k]).product();
    let st = c_strides(&h.shape);
    let mut out = Vec::with_capacity(n_out);
    let red_shape: Vec<usize> = axes.iter().map(|&k| h.shape[k]).collect();
    let n_red: usize = red_shape.iter().product();
    for o in 0..n_out {
        let mut base = 0;
        let mut r = o;
        for &k in kept.iter().rev() {
            base += (r % h.shape[k]) * st[k];
            r /= h.shape[k];
        }
        let mut vals = Vec::with_capacity(n_red);
        for j in 0..n_red {
            let mut off = base;
            let mut r = j;
            for (i, &k) in axes.iter().enumerate().rev() {
                off += (r % red_shape[i]) * st[k];
                r /= red_shape[i];
            }
            vals.push(h.v[off]);
        }
        out.push(f(&vals));
    }
    out
}

fn random<T: Element>(
    rng: &mut Rng,
    shape: &[usize],
    lo: f64,
    hi: f64,
) -> (DeviceArray<T>, Vec<T>) {
    let n: usize = shape.iter().product();
    let v: Vec<T> = (0..n)
        .map(|_| {
            let x = rng.range(lo, hi);
            T::from_f64(if T::DTYPE.is_float() { x } else { x.round() })
        })
        .collect();
    (
        DeviceArray::from_host(cuarray_dev(), &v, shape).expect("upload"),
        v,
    )
}

fn cuarray_dev() -> &'static Device {
    match crate::common::GPU.get() {
        Some(Ok(d)) => d,
        _ => unreachable!("GPU trials run only with a device"),
    }
}

fn close(got: f64, want: f64, rel: f64) -> bool {
    if want.is_nan() {
        return got.is_nan();
    }
    (got - want).abs() <= rel * want.abs().max(1.0)
}

fn check(what: &str, got: &[f64], want: &[f64], rel: f64) -> TResult {
    ensure!(
        got.len() == want.len(),
        "{what}: {} results, want {}",
        got.len(),
        want.len()
    );
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        ensure!(close(g, w, rel), "{what}: element {i}: got {g}, want {w}");
    }
    Ok(())
}

/// Like `check`, with the tolerance scaled by `scale[i]` (the sum of magnitudes), so that
/// cancellation in a sum is not mistaken for an error.
fn check_scaled(what: &str, got: &[f64], want: &[f64], scale: &[f64], rel: f64) -> TResult {
    ensure!(
        got.len() == want.len(),
        "{what}: {} results, want {}",
        got.len(),
        want.len()
    );
    for i in 0..got.len() {
        let tol = rel * scale[i].max(1.0);
        ensure!(
            (got[i] - want[i]).abs() <= tol || (got[i].is_nan() && want[i].is_nan()),
            "{what}: element {i}: got {}, want {} (tolerance {tol})",
            got[i],
            want[i]
        );
    }
    Ok(())
}

fn f64s<T: Element>(a: &DeviceArray<T>) -> Vec<f64> {
    a.to_host()
        .expect("download")
        .into_iter()
        .map(|x| x.to_f64())
        .collect()
}

/// Layouts of a 3-D array to reduce: contiguous, transposed, sliced with negative steps.
fn layouts<T: Element>(a: &DeviceArray<T>, h: &H) -> Vec<(&'static str, DeviceArray<T>, H)> {
    let mut out = vec![(
        "c",
        a.clone(),
        H {
            v: h.v.clone(),
            shape: h.shape.clone(),
        },
    )];
    // Transposed (axes reversed).
    let t = a.t();
    let tv = host_view(h, &t, a);
    out.push(("t", t, tv));
    // Negative step on the last axis, step 2 on the first.
    if let Ok(v) = a.slice(s![..;2, .., ..;-1]) {
        let hv = host_view(h, &v, a);
        out.push(("neg", v, hv));
    }
    out
}

/// The host values of view `v` of `base` (whose host data is `h`), via the layouts.
fn host_view<T: Element>(h: &H, v: &DeviceArray<T>, base: &DeviceArray<T>) -> H {
    let off0 = base.layout().offset();
    let vals = v.layout().iter_offsets().map(|o| h.v[o - off0]).collect();
    H {
        v: vals,
        shape: v.shape().to_vec(),
    }
}

fn sum(v: &[f64]) -> f64 {
    v.iter().sum()
}
fn maxf(v: &[f64]) -> f64 {
    if v.iter().any(|x| x.is_nan()) {
        return f64::NAN;
    }
    v.iter().cloned().fold(f64::NEG_INFINITY, f64::max)
}
fn minf(v: &[f64]) -> f64 {
    if v.iter().any(|x| x.is_nan()) {
        return f64::NAN;
    }
    v.iter().cloned().fold(f64::INFINITY, f64::min)
}
fn argmaxf(v: &[f64]) -> f64 {
    if let Some(i) = v.iter().position(|x| x.is_nan()) {
        return i as f64;
    }
    let m = maxf(v);
    v.iter().position(|&x| x == m).unwrap_or(0) as f64
}
fn argminf(v: &[f64]) -> f64 {
    if let Some(i) = v.iter().position(|x| x.is_nan()) {
        return i as f64;
    }
    let m = minf(v);
    v.iter().position(|&x| x == m).unwrap_or(0) as f64
}
fn var(v: &[f64], ddof: usize) -> f64 {
    let n = v.len() as f64;
    let m = sum(v) / n;
    v.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (n - ddof as f64)
}

/// Every reduction of one dtype over several shapes, axis sets and layouts.
fn reductions<T: Element>(out: &mut Vec<Trial>) {
    let name = T::DTYPE.name();
    let is_float = T::DTYPE.is_float();
    let (lo, hi) = match T::DTYPE {
        cuarray::DType::U8 | cuarray::DType::U16 | cuarray::DType::U32 | cuarray::DType::U64 => {
            (0.0, 50.0)
        }
        cuarray::DType::Bool => (0.0, 1.0),
        _ => (-50.0, 50.0),
    };
    // Relative tolerance of float sums/means (f16/bf16 results round once at the end).
    let rel = match T::DTYPE {
        cuarray::DType::F16 => 2e-3,
        cuarray::DType::BF16 => 1.6e-2,
        cuarray::DType::F32 => 2e-5,
        _ => 1e-11,
    };
    for shape in [
        vec![3usize, 5, 7],
        vec![2, 3, 4099],
        vec![1000, 3, 2],
        vec![4, 1, 1],
    ] {
        let sname = shape
            .iter()
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
            .join("x");
        let shape2 = shape.clone();
        add_gpu(
            out,
            format!("reduce/all_ops/{name}/{sname}"),
            move |_dev, rng| {
                let (a, v) = random::<T>(rng, &shape2, lo, hi);
                let h = H {
                    v: v.iter().map(|x| x.to_f64()).collect(),
                    shape: shape2.clone(),
                };
                for (lname, arr, hv) in layouts(&a, &h) {
                    for axes in [
                        vec![0isize],
                        vec![2],
                        vec![-1],
                        vec![0, 2],
                        vec![1, 2],
                        vec![0, 1, 2],
                    ] {
                        let ax: Vec<usize> = axes
                            .iter()
                            .map(|&x| if x < 0 { (x + 3) as usize } else { x as usize })
                            .collect();
                        let what = |op: &str| format!("{op} {lname} axes {axes:?}");
                        let got = f64s(&arr.sum_axes(&axes, false).map_err(|e| e.to_string())?);
                        let scale = host_reduce(&hv, &ax, &|v| v.iter().map(|x| x.abs()).sum());
                        check_scaled(
                            &what("sum"),
                            &got,
                            &host_reduce(&hv, &ax, &sum),
                            &scale,
                            rel,
                        )?;
                        let kd = arr.sum_axes(&axes, true).map_err(|e| e.to_string())?;
                        ensure!(kd.ndim() == 3, "keepdims kept {} dims", kd.ndim());
                        let got = f64s(&arr.mean_axes(&axes, false).map_err(|e| e.to_string())?);
                        let n: usize = ax.iter().map(|&k| hv.shape[k]).product();
                        let mean_rel = if is_float { rel } else { 1e-12 };
                        let mscale: Vec<f64> = scale.iter().map(|x| x / n as f64).collect();
                        check_scaled(
                            &what("mean"),
                            &got,
                            &host_reduce(&hv, &ax, &|v| sum(v) / n as f64),
                            &mscale,
                            mean_rel,
                        )?;
                        let got = f64s(&arr.any_axes(&axes, false).map_err(|e| e.to_string())?);
                        check(
                            &what("any"),
                            &got,
                            &host_reduce(&hv, &ax, &|v| v.iter().any(|&x| x != 0.0) as u8 as f64),
                            0.0,
                        )?;
                        let got = f64s(&arr.all_axes(&axes, false).map_err(|e| e.to_string())?);
                        check(
                            &what("all"),
                            &got,
                            &host_reduce(&hv, &ax, &|v| v.iter().all(|&x| x != 0.0) as u8 as f64),
                            0.0,
                        )?;
                        if n > 1 {
                            let got =
                                f64s(&arr.var_axes(&axes, false, 1).map_err(|e| e.to_string())?);
                            let vrel = if is_float { rel * 10.0 } else { 1e-9 };
                            check(
                                &what("var"),
                                &got,
                                &host_reduce(&hv, &ax, &|v| var(v, 1)),
                                vrel,
                            )?;
                        }
                    }
                }
                Ok(())
            },
        );
    }
}

fn ordered<T: cuarray::NumElement>(out: &mut Vec<Trial>) {
    let name = T::DTYPE.name();
    for shape in [vec![6usize, 7, 9], vec![3, 5000, 2], vec![1, 1, 70_001]] {
        let sname = shape
            .iter()
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
            .join("x");
        let shape2 = shape.clone();
        add_gpu(
            out,
            format!("reduce/max_min_arg/{name}/{sname}"),
            move |_dev, rng| {
                // Few distinct values: ties exercise the first-index rule.
                let (a, v) = random::<T>(rng, &shape2, 0.0, 9.0);
                let h = H {
                    v: v.iter().map(|x| x.to_f64()).collect(),
                    shape: shape2.clone(),
                };
                for (lname, arr, hv) in layouts(&a, &h) {
                    for axis in [0isize, 1, 2, -1] {
                        let ax = [if axis < 0 { 2 } else { axis as usize }];
                        let what = |op: &str| format!("{op} {lname} axis {axis}");
                        check(
                            &what("max"),
                            &f64s(&arr.max_axis(axis).map_err(|e| e.to_string())?),
                            &host_reduce(&hv, &ax, &maxf),
                            0.0,
                        )?;
                        check(
                            &what("min"),
                            &f64s(&arr.min_axis(axis).map_err(|e| e.to_string())?),
                            &host_reduce(&hv, &ax, &minf),
                            0.0,
                        )?;
                        check(
                            &what("argmax"),
                            &f64s(&arr.argmax_axis(axis).map_err(|e| e.to_string())?),
                            &host_reduce(&hv, &ax, &argmaxf),
                            0.0,
                        )?;
                        check(
                            &what("argmin"),
                            &f64s(&arr.argmin_axis(axis).map_err(|e| e.to_string())?),
                            &host_reduce(&hv, &ax, &argminf),
                            0.0,
                        )?;
                    }
                    let all = [0usize, 1, 2];
                    check(
                        &format!("argmax {lname} whole"),
                        &f64s(&arr.argmax().map_err(|e| e.to_string())?),
                        &host_reduce(&hv, &all, &argmaxf),
                        0.0,
                    )?;
                    check(
                        &format!("max {lname} whole"),
                        &f64s(&arr.max().map_err(|e| e.to_string())?),
                        &host_reduce(&hv, &all, &maxf),
                        0.0,
                    )?;
                }
                Ok(())
            },
        );
    }
}

fn int_sums(out: &mut Vec<Trial>) {
    add_gpu(
        out,
        "reduce/sum_prod_exact/i32_u8_bool/1000003".into(),
        |dev, rng| {
            let n = 1_000_003;
            let v: Vec<i32> = (0..n)
                .map(|_| rng.int(-1_000_000, 1_000_000) as i32)
                .collect();
            let a = DeviceArray::from_slice(dev, &v).map_err(|e| e.to_string())?;
            let want: i64 = v.iter().map(|&x| x as i64).sum();
            ensure!(
                a.sum()
                    .map_err(|e| e.to_string())?
                    .to_scalar()
                    .map_err(|e| e.to_string())?
                    == want,
                "i32 sum"
            );
            let u: Vec<u8> = (0..n).map(|_| rng.int(0, 255) as u8).collect();
            let b = DeviceArray::from_slice(dev, &u).map_err(|e| e.to_string())?;
            let want: u64 = u.iter().map(|&x| x as u64).sum();
            ensure!(
                b.sum()
                    .map_err(|e| e.to_string())?
                    .to_scalar()
                    .map_err(|e| e.to_string())?
                    == want,
                "u8 sum"
            );
            let bits: Vec<bool> = (0..n).map(|_| rng.bit()).collect();
            let c = DeviceArray::from_slice(dev, &bits).map_err(|e| e.to_string())?;
            let want = bits.iter().filter(|&&b| b).count() as i64;
            ensure!(
                c.sum()
                    .map_err(|e| e.to_string())?
                    .to_scalar()
                    .map_err(|e| e.to_string())?
                    == want,
                "bool sum"
            );
            let small: Vec<i64> = (0..40).map(|_| rng.int(-3, 3)).collect();
            let d = DeviceArray::from_slice(dev, &small).map_err(|e| e.to_string())?;
            let want = small.iter().fold(1i64, |p, &x| p.wrapping_mul(x));
            ensure!(
                d.prod()
                    .map_err(|e| e.to_string())?
                    .to_scalar()
                    .map_err(|e| e.to_string())?
                    == want,
                "i64 prod"
            );
            Ok(())
        },
    );
}

fn special(out: &mut Vec<Trial>) {
    add_gpu(
        out,
        "reduce/empty_nan_scalar/f32/mixed".into(),
        |dev, _rng| {
            let e = DeviceArray::<f32>::zeros(dev, &[3, 0]).map_err(|e| e.to_string())?;
            ensure!(
                e.sum()
                    .map_err(|e| e.to_string())?
                    .to_scalar()
                    .map_err(|e| e.to_string())?
                    == 0.0,
                "empty sum"
            );
            ensure!(
                e.prod()
                    .map_err(|e| e.to_string())?
                    .to_scalar()
                    .map_err(|e| e.to_string())?
                    == 1.0,
                "empty prod"
            );
            ensure!(
                e.mean()
                    .map_err(|e| e.to_string())?
                    .to_scalar()
                    .map_err(|e| e.to_string())?
                    .is_nan(),
                "empty mean"
            );
            ensure!(
                e.sum_axis(1)
                    .map_err(|e| e.to_string())?
                    .to_host()
                    .map_err(|e| e.to_string())?
                    == vec![0.0; 3],
                "empty axis sum"
            );
            ensure!(
                e.sum_axis(0).map_err(|e| e.to_string())?.shape() == [0],
                "sum over the non-empty axis of an empty array"
            );
            match e.max() {
                Err(cuarray::Error::EmptyReduction { .. }) => {}
                other => return Err(format!("empty max: {other:?}").into()),
            }
            ensure!(e.argmax_axis(1).is_err(), "empty argmax");
            ensure!(e.sum_axis(2).is_err(), "axis out of range");
            ensure!(e.sum_axes(&[0, 0], false).is_err(), "duplicate axes");
            let mut v = vec![1.0f32; 1000];
            v[10] = f32::NAN;
            v[500] = f32::NAN;
            v[3] = 5.0;
            let a = DeviceArray::from_slice(dev, &v).map_err(|e| e.to_string())?;
            ensure!(
                a.max()
                    .map_err(|e| e.to_string())?
                    .to_scalar()
                    .map_err(|e| e.to_string())?
                    .is_nan(),
                "max NaN"
            );
            ensure!(
                a.min()
                    .map_err(|e| e.to_string())?
                    .to_scalar()
                    .map_err(|e| e.to_string())?
                    .is_nan(),
                "min NaN"
            );
            ensure!(
                a.argmax()
                    .map_err(|e| e.to_string())?
                    .to_scalar()
                    .map_err(|e| e.to_string())?
                    == 10,
                "argmax first NaN"
            );
            ensure!(
                a.sum()
                    .map_err(|e| e.to_string())?
                    .to_scalar()
                    .map_err(|e| e.to_string())?
                    .is_nan(),
                "sum NaN"
            );
            let z = DeviceArray::from_host(dev, &[4.5f64], &[]).map_err(|e| e.to_string())?;
            ensure!(
                z.sum()
                    .map_err(|e| e.to_string())?
                    .to_scalar()
                    .map_err(|e| e.to_string())?
                    == 4.5,
                "0-d sum"
            );
            ensure!(
                z.max()
                    .map_err(|e| e.to_string())?
                    .to_scalar()
                    .map_err(|e| e.to_string())?
                    == 4.5,
                "0-d max"
            );
            Ok(())
        },
    );
    add_gpu(
        out,
        "reduce/f32_sum_accuracy/f32/2p26".into(),
        |dev, rng| {
            let n = 1usize << 26;
            let v: Vec<f32> = (0..n).map(|_| rng.range(0.0, 1.0) as f32).collect();
            let want: f64 = v.iter().map(|&x| x as f64).sum();
            let a = DeviceArray::from_slice(dev, &v).map_err(|e| e.to_string())?;
            let got = a
                .sum()
                .map_err(|e| e.to_string())?
                .to_scalar()
                .map_err(|e| e.to_string())? as f64;
            ensure!(
                ((got - want) / want).abs() < 1e-5,
                "sum {got} vs {want}: rel {}",
                ((got - want) / want).abs()
            );
            let m = a.reshape(&[8192, -1]).map_err(|e| e.to_string())?;
            let rows = m
                .sum_axis(1)
                .map_err(|e| e.to_string())?
                .to_host()
                .map_err(|e| e.to_string())?;
            for r in [0usize, 4097, 8191] {
                let w: f64 = v[r * 8192..(r + 1) * 8192].iter().map(|&x| x as f64).sum();
                ensure!(
                    ((rows[r] as f64 - w) / w).abs() < 1e-5,
                    "row {r}: {} vs {w}",
                    rows[r]
                );
            }
            Ok(())
        },
    );
    add_gpu(
        out,
        "reduce/tiny_rows_and_long_cols/f64/mixed".into(),
        |_dev, rng| {
            let (a, v) = random::<f64>(rng, &[100_003, 3], -1.0, 1.0);
            let h = H {
                v: v.clone(),
                shape: vec![100_003, 3],
            };
            check(
                "tiny rows",
                &f64s(&a.sum_axis(1).map_err(|e| e.to_string())?),
                &host_reduce(&h, &[1], &sum),
                1e-12,
            )?;
            check(
                "long cols",
                &f64s(&a.sum_axis(0).map_err(|e| e.to_string())?),
                &host_reduce(&h, &[0], &sum),
                1e-10,
            )?;
            check(
                "long cols max",
                &f64s(&a.max_axis(0).map_err(|e| e.to_string())?),
                &host_reduce(&h, &[0], &maxf),
                0.0,
            )?;
            check(
                "long cols argmin",
                &f64s(&a.argmin_axis(0).map_err(|e| e.to_string())?),
                &host_reduce(&h, &[0], &argminf),
                0.0,
            )?;
            check(
                "std",
                &f64s(&a.std_axis(0, 0).map_err(|e| e.to_string())?),
                &host_reduce(&h, &[0], &|v| var(v, 0).sqrt()),
                1e-10,
            )?;
            // A broadcast view reduces without a copy.
            let b = a
                .slice(s![..1, ..])
                .map_err(|e| e.to_string())?
                .broadcast_to(&[5000, 3])
                .map_err(|e| e.to_string())?;
            let got = f64s(&b.sum_axis(0).map_err(|e| e.to_string())?);
            let want: Vec<f64> = (0..3).map(|c| v[c] * 5000.0).collect();
            check("broadcast", &got, &want, 1e-12)?;
            Ok(())
        },
    );
    add_gpu(
        out,
        "reduce/row_past_2p31/u8/index64".into(),
        |dev, _rng| {
            let n = (1usize << 31) + 4099;
            let a = DeviceArray::<u8>::full(dev, &[n], 3).map_err(|e| e.to_string())?;
            a.slice(s![-1..])
                .map_err(|e| e.to_string())?
                .assign(&DeviceArray::full(dev, &[], 200u8).map_err(|e| e.to_string())?)
                .map_err(|e| e.to_string())?;
            let got = a
                .sum()
                .map_err(|e| e.to_string())?
                .to_scalar()
                .map_err(|e| e.to_string())?;
            let want = 3 * (n as u64 - 1) + 200;
            ensure!(got == want, "sum {got} want {want}");
            let am = a
                .argmax()
                .map_err(|e| e.to_string())?
                .to_scalar()
                .map_err(|e| e.to_string())?;
            ensure!(am == n as i64 - 1, "argmax {am} want {}", n - 1);
            Ok(())
        },
    );
}

fn scans(out: &mut Vec<Trial>) {
    add_gpu(
        out,
        "scan/cumsum_cumprod/i32_f32_f64/layouts".into(),
        |dev, rng| {
            for shape in [
                vec![1_000_003usize],
                vec![77, 301],
                vec![3, 4, 5],
                vec![2, 40_000],
                vec![0, 5],
                vec![],
            ] {
                let n: usize = shape.iter().product();
                let v: Vec<i32> = (0..n).map(|_| rng.int(-100, 100) as i32).collect();
                let a = DeviceArray::from_host(dev, &v, &shape).map_err(|e| e.to_string())?;
                let h = H {
                    v: v.iter().map(|&x| x as f64).collect(),
                    shape: shape.clone(),
                };
                let views: Vec<(&str, DeviceArray<i32>)> = vec![("c", a.clone()), ("t", a.t())];
                for (lname, arr) in views {
                    let hv = host_view(&h, &arr, &a);
                    for axis in 0..arr.ndim().max(1) {
                        let got = f64s(&arr.cumsum(axis as isize).map_err(|e| e.to_string())?);
                        let want = host_scan(&hv, axis, |x, y| x + y);
                        check(
                            &format!("cumsum {shape:?} {lname} axis {axis}"),
                            &got,
                            &want,
                            0.0,
                        )?;
                    }
                }
            }
            let fv: Vec<f32> = (0..300_001).map(|_| rng.range(-1.0, 1.0) as f32).collect();
            let fa = DeviceArray::from_slice(dev, &fv).map_err(|e| e.to_string())?;
            let got = f64s(&fa.cumsum(0).map_err(|e| e.to_string())?);
            let mut run = 0.0;
            for (i, &x) in fv.iter().enumerate() {
                run += x as f64;
                ensure!(
                    (got[i] - run).abs() <= 2e-3,
                    "f32 cumsum at {i}: {} vs {run}",
                    got[i]
                );
            }
            let pv: Vec<f64> = (0..1000).map(|_| rng.range(0.99, 1.01)).collect();
            let pa = DeviceArray::from_host(dev, &pv, &[10, 100]).map_err(|e| e.to_string())?;
            let got = f64s(&pa.cumprod(1).map_err(|e| e.to_string())?);
            let want = host_scan(
                &H {
                    v: pv.clone(),
                    shape: vec![10, 100],
                },
                1,
                |x, y| x * y,
            );
            check("cumprod", &got, &want, 1e-12)?;
            ensure!(pa.cumsum(2).is_err(), "axis out of range");
            Ok(())
        },
    );
}

fn host_scan(h: &H, axis: usize, f: impl Fn(f64, f64) -> f64) -> Vec<f64> {
    let mut out = h.v.clone();
    if h.shape.is_empty() {
        return out;
    }
    let st = c_strides(&h.shape);
    let len = h.shape[axis];
    for base in 0..out.len() {
        if !(base / st[axis]).is_multiple_of(len) {
            continue;
        }
        for j in 1..len {
            let (p, c) = (base + (j - 1) * st[axis], base + j * st[axis]);
            out[c] = f(out[p], out[c]);
        }
    }
    out
}

/// Few long rows: each row is cut into pieces, and the last piece of a row to finish
/// combines them in the same launch. Several rows at once, contiguous and strided, every
/// kind of accumulator (sum, argmax's value-index pair, var's aux input).
fn one_launch_rows(out: &mut Vec<Trial>) {
    add_gpu(
        out,
        "reduce/one_launch_rows/f32/5x300001".into(),
        |_dev, rng| {
            let (a, v) = random::<f32>(rng, &[5, 300_001], -1.0, 1.0);
            let h = H {
                v: v.iter().map(|&x| x as f64).collect(),
                shape: vec![5, 300_001],
            };
            let strided = a.slice(s![..;-1, 1..;3]).map_err(|e| e.to_string())?;
            let hs = host_view(&h, &strided, &a);
            let hc = H {
                v: h.v.clone(),
                shape: h.shape.clone(),
            };
            for (lname, arr, hv) in [("c", a.clone(), hc), ("strided", strided, hs)] {
                let what = |op: &str| format!("{op} {lname}");
                let scale = host_reduce(&hv, &[1], &|v| v.iter().map(|x| x.abs()).sum());
                let got = f64s(&arr.sum_axis(1).map_err(|e| e.to_string())?);
                check_scaled(
                    &what("sum"),
                    &got,
                    &host_reduce(&hv, &[1], &sum),
                    &scale,
                    2e-5,
                )?;
                let got = f64s(&arr.argmax_axis(1).map_err(|e| e.to_string())?);
                check(
                    &what("argmax"),
                    &got,
                    &host_reduce(&hv, &[1], &argmaxf),
                    0.0,
                )?;
                let got = f64s(&arr.min_axis(1).map_err(|e| e.to_string())?);
                check(&what("min"), &got, &host_reduce(&hv, &[1], &minf), 0.0)?;
                let got = f64s(&arr.var_axes(&[1], false, 1).map_err(|e| e.to_string())?);
                check(
                    &what("var"),
                    &got,
                    &host_reduce(&hv, &[1], &|v| var(v, 1)),
                    2e-4,
                )?;
            }
            // The counters are left at zero: the same reductions again, many times.
            let want = host_reduce(&h, &[1], &sum);
            for round in 0..50 {
                let got = f64s(&a.sum_axis(1).map_err(|e| e.to_string())?);
                check_scaled(
                    &format!("sum round {round}"),
                    &got,
                    &want,
                    &want.iter().map(|_| 3e5).collect::<Vec<_>>(),
                    2e-5,
                )?;
            }
            Ok(())
        },
    );
}

pub fn trials(out: &mut Vec<Trial>) {
    reductions::<f32>(out);
    reductions::<f64>(out);
    reductions::<half::f16>(out);
    reductions::<half::bf16>(out);
    reductions::<i32>(out);
    reductions::<u8>(out);
    reductions::<i64>(out);
    reductions::<bool>(out);
    ordered::<f32>(out);
    ordered::<f64>(out);
    ordered::<half::f16>(out);
    ordered::<i16>(out);
    ordered::<u32>(out);
    int_sums(out);
    special(out);
    one_launch_rows(out);
    scans(out);
    arg_order_inside_vectors(out);
}

/// argmax and argmin where one vector load's elements decide: ties inside a vector and
/// across vectors (the first wins), NaN after a larger value inside a vector and NaN
/// first in a vector (the first NaN wins), arrays all of -inf or +inf (index 0, not the
/// identity's), whole arrays and rows.
fn arg_order_inside_vectors(out: &mut Vec<Trial>) {
    add_gpu(
        out,
        "reduce/arg/order_inside_vectors/f32".into(),
        |dev, _rng| {
            let n = 4096 * 3 + 7;
            let mut rows: Vec<Vec<f32>> = vec![vec![f32::NEG_INFINITY; n], vec![f32::INFINITY; n]];
            let mut v = vec![0.0f32; n];
            (v[1], v[2], v[4097]) = (7.0, 7.0, 7.0);
            (v[6], v[7], v[9000]) = (-3.0, -3.0, -3.0);
            rows.push(v);
            let mut v = vec![0.0f32; n];
            (v[8], v[9], v[10], v[5000]) = (9.0, f32::NAN, f32::NAN, f32::NAN);
            rows.push(v);
            let mut v = vec![1.0f32; n];
            (v[12], v[13], v[n - 1]) = (f32::NAN, 100.0, -100.0);
            rows.push(v);
            let mut v: Vec<f32> = (0..n).map(|i| (i % 5) as f32).collect();
            v[n - 2] = 5.0;
            rows.push(v);
            let all: Vec<f32> = rows.concat();
            let m =
                DeviceArray::from_host(dev, &all, &[rows.len(), n]).map_err(|e| e.to_string())?;
            let by_row_max = m
                .argmax_axis(1)
                .map_err(|e| e.to_string())?
                .to_host()
                .map_err(|e| e.to_string())?;
            let by_row_min = m
                .argmin_axis(1)
                .map_err(|e| e.to_string())?
                .to_host()
                .map_err(|e| e.to_string())?;
            for (r, row) in rows.iter().enumerate() {
                let h: Vec<f64> = row.iter().map(|&x| x as f64).collect();
                let (wmax, wmin) = (argmaxf(&h) as i64, argminf(&h) as i64);
                let a = DeviceArray::from_slice(dev, row).map_err(|e| e.to_string())?;
                let gmax = a
                    .argmax()
                    .map_err(|e| e.to_string())?
                    .to_scalar()
                    .map_err(|e| e.to_string())?;
                let gmin = a
                    .argmin()
                    .map_err(|e| e.to_string())?
                    .to_scalar()
                    .map_err(|e| e.to_string())?;
                ensure!(
                    gmax == wmax && by_row_max[r] == wmax,
                    "row {r} argmax {gmax} / {} want {wmax}",
                    by_row_max[r]
                );
                ensure!(
                    gmin == wmin && by_row_min[r] == wmin,
                    "row {r} argmin {gmin} / {} want {wmin}",
                    by_row_min[r]
                );
            }
            Ok(())
        },
    );
}
