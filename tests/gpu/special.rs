//! `cuarray::special`: every kernel compiles with NVRTC (f32, f64, f16, bf16), and on the
//! GPU the functions match SciPy's values (tests/fixtures/special.tsv, written by
//! tests/fixtures/make_special_fixtures.py), edge values included; softmax, log_softmax
//! and logsumexp against a host f64 reference.

use crate::common::{ensure, gpu_trial, nvrtc_trial, TResult};
use cuarray::special::{self, SpecialBinaryOp, SpecialOp};
use cuarray::testing::kernels::nvrtc;
use cuarray::{DType, Device, DeviceArray};
use libtest_mimic::Trial;

const FIXTURES: &str = include_str!("../fixtures/special.tsv");

fn nvrtc_compiles(d: DType) -> TResult {
    for spec in cuarray::testing::special::kernel_specs(d) {
        let src = spec.source();
        let sym = spec.symbol();
        if let Some(dir) = std::env::var_os("CUARRAY_DUMP_KERNELS") {
            let _ = std::fs::create_dir_all(&dir);
            let _ = std::fs::write(std::path::Path::new(&dir).join(format!("{sym}.cu")), &src);
        }
        let t0 = std::time::Instant::now();
        let compiled = nvrtc::compile(&src, &sym, &nvrtc::options((9, 0)));
        if std::env::var_os("CUARRAY_TEST_VERBOSE").is_some() {
            eprintln!("{sym}: {:.2} s", t0.elapsed().as_secs_f64());
        }
        if let Err(e) = compiled {
            let mut msg = e.to_string();
            msg.truncate(6000);
            return Err(format!("{sym} failed to compile: {msg}").into());
        }
    }
    Ok(())
}

/// One fixture row: function, inputs, SciPy's value at f64 and at f32-rounded inputs.
struct Row<'a> {
    f: &'a str,
    x: f64,
    y: Option<f64>,
    want64: f64,
    want32: f64,
}

fn parse(v: &str) -> f64 {
    match v {
        "nan" => f64::NAN,
        "inf" => f64::INFINITY,
        "-inf" => f64::NEG_INFINITY,
        _ => v.parse().expect("fixture number"),
    }
}

fn rows() -> Vec<Row<'static>> {
    FIXTURES
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| {
            let c: Vec<&str> = l.split('\t').collect();
            Row {
                f: c[0],
                x: parse(c[1]),
                y: (c[2] != "-").then(|| parse(c[2])),
                want64: parse(c[3]),
                want32: parse(c[4]),
            }
        })
        .collect()
}

/// Relative tolerance (f64, f32) per function: a few ulps-ish for CUDA's math library,
/// SciPy's own accuracy for the Cephes ports; the absolute floor `atol` covers zeros.
fn tolerance(f: &str) -> (f64, f64, f64) {
    match f {
        // CUDA math: documented within a few ulps (erfcinv, tgamma, lgamma, Bessel a bit more).
        "erf" | "expit" | "entr" | "xlogy" | "xlog1py" => (1e-14, 2e-6, 1e-300),
        // Far in their tails SciPy's values are off by up to ~1e-13 (checked against
        // mpmath: CUDA's erfc(14.53) = 7.199832649028483e-94 is the exact value rounded,
        // SciPy's ...558e-94 is not); the tolerance is SciPy's accuracy there.
        "erfc" | "erfcx" | "ndtr" => (2e-13, 2e-6, 1e-300),
        // sinc at integers: exactly 0 here (sinpi), SciPy's sin(pi x) / (pi x) gives
        // about 4e-17: an absolute floor.
        "sinc" => (1e-14, 2e-6, 1e-15),
        "erfinv" | "erfcinv" | "ndtri" | "logit" | "log_ndtr" => (1e-13, 4e-6, 1e-300),
        "gamma" | "gammaln" => (1e-13, 2e-5, 1e-14),
        // ln B(a, b) = ln Γ(a) + ln Γ(b) - ln Γ(a + b): with a large b the two last terms
        // (~1900 at b = 378) cancel, and their rounding leaves ~5e-13 absolute.
        "beta" | "betaln" => (1e-12, 2e-5, 1e-14),
        // Bessel functions (CUDA's): an absolute error bound, about 4e-13 at |x| = 50 in
        // double (SciPy's Cephes values are exact to ~1e-17 there).
        "j0" | "j1" | "y0" | "y1" => (1e-12, 2e-5, 1e-12),
        "i0" | "i1" | "i0e" | "i1e" | "k0" | "k0e" | "k1" | "k1e" => (1e-13, 4e-6, 1e-300),
        "digamma" | "polygamma1" | "polygamma2" | "polygamma3" => (1e-13, 4e-6, 1e-14),
        "zeta" | "kl_div" | "rel_entr" => (1e-13, 4e-6, 1e-300),
        // igam without Temme's expansion: a * 1e-16 relative for large a near x = a.
        "gammainc" | "gammaincc" => (1e-11, 2e-5, 1e-14),
        _ => (1e-13, 1e-5, 1e-14),
    }
}

fn close(got: f64, want: f64, rtol: f64, atol: f64) -> bool {
    if want.is_nan() {
        return got.is_nan();
    }
    if want.is_infinite() || want == 0.0 && atol < 1e-200 {
        return got == want || (want == 0.0 && got.abs() <= atol);
    }
    (got - want).abs() <= rtol * want.abs() + atol
}

fn run_fn<T: cuarray::FloatElement>(
    f: &str,
    x: &DeviceArray<T>,
    y: Option<&DeviceArray<T>>,
) -> cuarray::Result<DeviceArray<T>> {
    if let Some(n) = f.strip_prefix("polygamma") {
        return special::polygamma(n.parse().unwrap(), x);
    }
    if let Some(op) = SpecialOp::ALL.iter().find(|o| o.name() == f) {
        return special::apply(*op, x);
    }
    let op = SpecialBinaryOp::ALL
        .iter()
        .find(|o| o.name() == f)
        .unwrap_or_else(|| panic!("no function {f}"));
    special::apply2(*op, x, y.expect("two inputs"))
}

/// Every fixture row of every function, one launch per function, in f64 or f32.
fn against_scipy<T>(dev: &Device, to: fn(f64) -> T, from: fn(T) -> f64, f32: bool) -> TResult
where
    T: cuarray::FloatElement,
{
    let rows = rows();
    let mut names: Vec<&str> = rows.iter().map(|r| r.f).collect();
    names.dedup();
    let mut failures = Vec::new();
    for f in names {
        let sel: Vec<&Row> = rows.iter().filter(|r| r.f == f).collect();
        let xs: Vec<T> = sel.iter().map(|r| to(r.x)).collect();
        let x = DeviceArray::from_slice(dev, &xs)?;
        let y = if sel[0].y.is_some() {
            let ys: Vec<T> = sel.iter().map(|r| to(r.y.unwrap())).collect();
            Some(DeviceArray::from_slice(dev, &ys)?)
        } else {
            None
        };
        if std::env::var_os("CUARRAY_TEST_VERBOSE").is_some() {
            eprintln!("special ({}): {f}", if f32 { "f32" } else { "f64" });
        }
        let got = run_fn(f, &x, y.as_ref())?.to_host()?;
        let (r64, r32, atol) = tolerance(f);
        let (rtol, atol) = if f32 {
            (r32, (atol.max(1e-30) * 1e8).min(1e-6))
        } else {
            (r64, atol)
        };
        for (r, g) in sel.iter().zip(got) {
            let want = if f32 { r.want32 } else { r.want64 };
            // f32 results beyond its range compare as inf or 0.
            let want = if f32 { want as f32 as f64 } else { want };
            let g = from(g);
            if !close(g, want, rtol, atol) {
                failures.push(format!("{f}({}, {:?}) = {g:e}, SciPy {want:e}", r.x, r.y));
            }
        }
    }
    ensure!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures
            .iter()
            .take(40)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    Ok(())
}

/// A strided (reversed, every other) and a broadcast operand, 0-d and empty arrays.
fn layouts(dev: &Device) -> TResult {
    let host: Vec<f64> = (0..64).map(|i| -3.0 + 0.1 * i as f64).collect();
    let a = DeviceArray::from_host(dev, &host, &[8, 8])?;
    let strided = a.slice(cuarray::s![..;-1, ..;2])?;
    let got = special::erf(&strided)?.to_host()?;
    let want = special::erf(&strided.contiguous()?)?.to_host()?;
    ensure!(got == want, "erf of a strided view differs from its copy");
    // Broadcast: (8, 1) with (8,) -> (8, 8).
    let col = DeviceArray::from_host(dev, &[0.5f64, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0], &[8, 1])?;
    let row = DeviceArray::from_slice(dev, &[0.25f64, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0])?;
    let g = special::gammainc(&col, &row)?;
    ensure!(g.shape() == [8, 8], "broadcast shape {:?}", g.shape());
    let g = g.to_host()?;
    let full_a = col.broadcast_to(&[8, 8])?.contiguous()?;
    let full_b = row.broadcast_to(&[8, 8])?.contiguous()?;
    ensure!(
        special::gammainc(&full_a, &full_b)?.to_host()? == g,
        "broadcast operand differs from its materialized copy"
    );
    let bad = DeviceArray::from_slice(dev, &[1.0f64, 2.0, 3.0])?;
    ensure!(
        matches!(
            special::beta(&row, &bad),
            Err(cuarray::Error::Broadcast { .. })
        ),
        "a shape mismatch must be a Broadcast error"
    );
    // 0-d and empty.
    let z = DeviceArray::from_host(dev, &[0.0f64], &[])?;
    let e = special::gammaln(&z)?;
    ensure!(
        e.shape().is_empty() && e.to_scalar()? == f64::INFINITY,
        "gammaln(0) on 0-d"
    );
    let empty = DeviceArray::<f32>::zeros(dev, [0usize, 3])?;
    ensure!(
        special::digamma(&empty)?.shape() == [0, 3],
        "empty digamma shape"
    );
    ensure!(
        special::softmax(&empty, 1)?.shape() == [0, 3],
        "empty softmax shape"
    );
    let lse = special::logsumexp(&empty, &[0], false)?.to_host()?;
    ensure!(
        lse == vec![f32::NEG_INFINITY; 3],
        "logsumexp over an empty axis is -inf: {lse:?}"
    );
    // f16 and bf16 compute in f32.
    let h = DeviceArray::from_slice(dev, &[cuarray::f16::from_f32(0.5)])?;
    let v = special::ndtri(&h)?.to_host()?[0].to_f32();
    ensure!(v == 0.0, "ndtri(0.5) in f16 = {v}");
    let b = DeviceArray::from_slice(dev, &[cuarray::bf16::from_f32(1.0)])?;
    ensure!(
        special::erfinv(&b)?.to_host()?[0].to_f32() == f32::INFINITY,
        "erfinv(1) in bf16"
    );
    Ok(())
}

/// Host f64 references (SciPy's recipes).
fn host_lse(row: &[f64]) -> f64 {
    let m = row.iter().cloned().fold(f64::NEG_INFINITY, |a, b| {
        if a.is_nan() || b.is_nan() {
            f64::NAN
        } else {
            a.max(b)
        }
    });
    if !m.is_finite() {
        return m;
    }
    m + row.iter().map(|x| (x - m).exp()).sum::<f64>().ln()
}
fn host_softmax(row: &[f64]) -> Vec<f64> {
    let m = row.iter().cloned().fold(f64::NEG_INFINITY, |a, b| {
        if a.is_nan() || b.is_nan() {
            f64::NAN
        } else {
            a.max(b)
        }
    });
    let e: Vec<f64> = row.iter().map(|x| (x - m).exp()).collect();
    let s: f64 = e.iter().sum();
    e.iter().map(|v| v / s).collect()
}
fn host_log_softmax(row: &[f64]) -> Vec<f64> {
    let m = row.iter().cloned().fold(f64::NEG_INFINITY, |a, b| {
        if a.is_nan() || b.is_nan() {
            f64::NAN
        } else {
            a.max(b)
        }
    });
    let m = if m.is_finite() { m } else { 0.0 };
    let s: f64 = row.iter().map(|x| (x - m).exp()).sum();
    row.iter().map(|x| (x - m) - s.ln()).collect()
}

fn same(got: f64, want: f64, tol: f64) -> bool {
    if want.is_nan() || want.is_infinite() {
        return got.to_bits() == want.to_bits() || (want.is_nan() && got.is_nan());
    }
    (got - want).abs() <= tol * want.abs().max(1.0)
}

/// Random rows of every magnitude plus the edge rows, along the last and the first axis.
fn softmax_family(dev: &Device) -> TResult {
    let cols = 37usize;
    let mut rows: Vec<Vec<f64>> = Vec::new();
    let mut state = 0x2545F4914F6CDD1Du64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    for scale in [1e-3, 1.0, 30.0, 1e3, 1e5, 1e30] {
        for _ in 0..3 {
            rows.push((0..cols).map(|_| (next() * 2.0 - 1.0) * scale).collect());
        }
    }
    let mut edge = |v: &[f64]| {
        let mut r = vec![-5.0; cols];
        r[..v.len()].copy_from_slice(v);
        rows.push(r);
    };
    edge(&[1000.0, 1000.0]);
    edge(&[f64::INFINITY]);
    edge(&[f64::NAN]);
    edge(&[f64::INFINITY, f64::NEG_INFINITY]);
    rows.push(vec![f64::NEG_INFINITY; cols]);
    let n = rows.len();
    let flat: Vec<f64> = rows.concat();
    let a = DeviceArray::from_host(dev, &flat, &[n, cols])?;
    let lse = special::logsumexp(&a, &[-1], false)?.to_host()?;
    let lse_keep = special::logsumexp(&a, &[1], true)?;
    ensure!(
        lse_keep.shape() == [n, 1],
        "keepdims shape {:?}",
        lse_keep.shape()
    );
    let sm = special::softmax(&a, -1)?.to_host()?;
    let lsm = special::log_softmax(&a, 1)?.to_host()?;
    // The same along axis 0 of the transpose (a strided reduction).
    let sm_t = special::softmax(&a.t(), 0)?.t().contiguous()?.to_host()?;
    for (i, row) in rows.iter().enumerate() {
        ensure!(
            same(lse[i], host_lse(row), 1e-14),
            "logsumexp row {i}: {} vs {}",
            lse[i],
            host_lse(row)
        );
        let (s, l) = (host_softmax(row), host_log_softmax(row));
        for j in 0..cols {
            let k = i * cols + j;
            ensure!(
                same(sm[k], s[j], 1e-14),
                "softmax [{i}, {j}]: {} vs {}",
                sm[k],
                s[j]
            );
            ensure!(
                same(sm_t[k], s[j], 1e-14),
                "softmax along axis 0 [{i}, {j}]: {} vs {}",
                sm_t[k],
                s[j]
            );
            ensure!(
                same(lsm[k], l[j], 1e-14),
                "log_softmax [{i}, {j}]: {} vs {}",
                lsm[k],
                l[j]
            );
        }
    }
    // logsumexp([1000, 1000]) = 1000 + ln 2 exactly as SciPy; in f32 too.
    let two = DeviceArray::from_slice(dev, &[1000.0f32, 1000.0])?;
    let v = special::logsumexp(&two, &[], false)?.to_scalar()?;
    ensure!(
        (v - (1000.0 + std::f32::consts::LN_2)).abs() <= 1e-4,
        "f32 logsumexp {v}"
    );
    // Every axis at once.
    let all = special::logsumexp(&a.slice(cuarray::s![..18, ..])?, &[], false)?.to_scalar()?;
    let want = host_lse(&rows[..18].concat());
    ensure!(
        same(all, want, 1e-14),
        "logsumexp over every axis {all} vs {want}"
    );
    ensure!(
        matches!(
            special::softmax(&a, 2),
            Err(cuarray::Error::AxisOutOfRange { .. })
        ),
        "axis 2 of a 2-d array must be AxisOutOfRange"
    );
    Ok(())
}

/// f32 rows of every length class (a warp a row up to 1024, a block up to 4096, the
/// three-pass path past it), a row count past one block's worth, against the f64 host
/// reference; logsumexp over two trailing axes and over a leading one.
fn softmax_rows(dev: &Device) -> TResult {
    let mut state = 0x9E3779B97F4A7C15u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    for (rows, cols) in [
        (3usize, 1usize),
        (70, 31),
        (9, 33),
        (5, 1000),
        (11, 1025),
        (3, 3000),
        (2, 4096),
        (3, 4097),
        (2, 6000),
    ] {
        let host: Vec<f32> = (0..rows * cols)
            .map(|_| ((next() * 2.0 - 1.0) * 20.0) as f32)
            .collect();
        let a = DeviceArray::from_host(dev, &host, &[rows, cols])?;
        let sm = special::softmax(&a, -1)?.to_host()?;
        let lsm = special::log_softmax(&a, 1)?.to_host()?;
        let lse = special::logsumexp(&a, &[1], false)?.to_host()?;
        for i in 0..rows {
            let row: Vec<f64> = host[i * cols..(i + 1) * cols]
                .iter()
                .map(|&v| v as f64)
                .collect();
            let (s, l, e) = (host_softmax(&row), host_log_softmax(&row), host_lse(&row));
            ensure!(
                same(lse[i] as f64, e, 2e-6),
                "{rows}x{cols} logsumexp row {i}: {} vs {e}",
                lse[i]
            );
            let m = row.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            for j in 0..cols {
                let (gs, gl) = (sm[i * cols + j] as f64, lsm[i * cols + j] as f64);
                // exp(x - m) in f32: the rounding of x - m (half an ulp of |x - m|) is a
                // relative error of exp's result.
                let tol = 2e-6 + 6e-8 * (row[j] - m).abs();
                ensure!(
                    (gs - s[j]).abs() <= tol * s[j] + 1e-30,
                    "{rows}x{cols} softmax [{i}, {j}]: {gs} vs {}",
                    s[j]
                );
                ensure!(
                    same(gl, l[j], 2e-6),
                    "{rows}x{cols} log_softmax [{i}, {j}]: {gl} vs {}",
                    l[j]
                );
            }
        }
    }
    // Rows that start 4 bytes past a 16-byte boundary (a view at offset 1): no vector
    // accesses, the same values up to the order of the sums.
    let host: Vec<f32> = (0..7 * 1000 + 1)
        .map(|_| ((next() * 2.0 - 1.0) * 3.0) as f32)
        .collect();
    let flat = DeviceArray::from_slice(dev, &host)?;
    let off = flat.slice(cuarray::s![1..])?.reshape([7usize, 1000])?;
    let aligned = DeviceArray::from_host(dev, &host[1..], &[7, 1000])?;
    for (what, got, want) in [
        (
            "softmax",
            special::softmax(&off, 1)?,
            special::softmax(&aligned, 1)?,
        ),
        (
            "logsumexp",
            special::logsumexp(&off, &[1], false)?,
            special::logsumexp(&aligned, &[1], false)?,
        ),
    ] {
        let (got, want) = (got.to_host()?, want.to_host()?);
        let bad = got
            .iter()
            .zip(&want)
            .position(|(g, w)| (g - w).abs() > 1e-6 * w.abs());
        ensure!(
            bad.is_none(),
            "{what} of an offset view differs at {bad:?}: {:?} vs {:?}",
            bad.map(|k| got[k]),
            bad.map(|k| want[k])
        );
    }
    // Two trailing axes (rows of 6 x 50), and a leading axis (the reduction path).
    let host: Vec<f32> = (0..4 * 6 * 50)
        .map(|_| ((next() * 2.0 - 1.0) * 5.0) as f32)
        .collect();
    let a = DeviceArray::from_host(dev, &host, &[4, 6, 50])?;
    let two = special::logsumexp(&a, &[-1, 1], true)?;
    ensure!(two.shape() == [4, 1, 1], "keepdims shape {:?}", two.shape());
    let two = two.to_host()?;
    let lead = special::logsumexp(&a, &[0], false)?.to_host()?;
    for i in 0..4 {
        let row: Vec<f64> = host[i * 300..(i + 1) * 300]
            .iter()
            .map(|&v| v as f64)
            .collect();
        ensure!(
            same(two[i] as f64, host_lse(&row), 2e-6),
            "logsumexp over (1, 2) [{i}]: {} vs {}",
            two[i],
            host_lse(&row)
        );
    }
    for k in 0..300 {
        let col: Vec<f64> = (0..4).map(|i| host[i * 300 + k] as f64).collect();
        ensure!(
            same(lead[k] as f64, host_lse(&col), 2e-6),
            "logsumexp over 0 [{k}]: {} vs {}",
            lead[k],
            host_lse(&col)
        );
    }
    Ok(())
}

/// digamma and i0e of f32 (evaluated in float) against the f64 functions (Cephes in
/// double, SciPy's values) at the same f32 inputs: a dense sweep over the float path's
/// domain, both sides of the negative root, the positive root, near 0 and large values.
fn float_paths(dev: &Device) -> TResult {
    let mut xs: Vec<f32> = (0..200_000)
        .map(|i| -0.8 + 30.8 * i as f32 / 200_000.0)
        .collect();
    let root = -0.504_083_f32;
    xs.extend((-500..500).map(|i| root + i as f32 * 6e-8));
    xs.extend((-500..500).map(|i| 1.461_632_1_f32 + i as f32 * 1.2e-7));
    xs.extend((0..300).map(|i| 10f32.powf(-30.0 + 0.2 * i as f32)));
    xs.extend((0..300).map(|i| -(10f32.powf(-30.0 + 0.099 * i as f32))));
    xs.extend([
        0.0,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        -1.0,
        -2.5,
        -7.25,
    ]);
    let x32 = DeviceArray::from_slice(dev, &xs)?;
    let x64 = x32.astype::<f64>()?;
    for (name, f) in [
        (
            "digamma",
            special::digamma::<f32> as fn(&DeviceArray<f32>) -> _,
        ),
        ("i0e", special::i0e::<f32>),
    ] {
        let got = f(&x32)?.to_host()?;
        let want = match name {
            "digamma" => special::digamma(&x64)?,
            _ => special::i0e(&x64)?,
        }
        .to_host()?;
        let mut bad = Vec::new();
        for ((&x, &g), &w) in xs.iter().zip(&got).zip(&want) {
            let w32 = w as f32 as f64;
            let ok = if w32.is_nan() {
                g.is_nan()
            } else if w32.is_infinite() {
                g as f64 == w32
            } else {
                (g as f64 - w32).abs() <= 4e-6 * w32.abs() + 1e-6
            };
            if !ok {
                bad.push(format!("{name}({x:e}) = {g:e}, f64 path {w:e}"));
            }
        }
        ensure!(
            bad.is_empty(),
            "{} mismatches:\n{}",
            bad.len(),
            bad[..bad.len().min(20)].join("\n")
        );
    }
    Ok(())
}

pub fn trials(out: &mut Vec<Trial>) {
    for (name, d) in [
        ("f32", DType::F32),
        ("f64", DType::F64),
        ("f16", DType::F16),
        ("bf16", DType::BF16),
    ] {
        out.push(nvrtc_trial(
            format!("nvrtc/special/{name}/every_kernel"),
            move || nvrtc_compiles(d),
        ));
    }
    out.push(gpu_trial("special/f64/against_scipy", |dev| {
        against_scipy::<f64>(dev, |v| v, |v| v, false)
    }));
    out.push(gpu_trial("special/f32/against_scipy", |dev| {
        against_scipy::<f32>(dev, |v| v as f32, |v| v as f64, true)
    }));
    out.push(gpu_trial(
        "special/f32/digamma_i0e_float_paths",
        float_paths,
    ));
    out.push(gpu_trial("special/f64/layouts_0d_empty_f16", layouts));
    out.push(gpu_trial("special/f64/softmax_logsumexp", softmax_family));
    out.push(gpu_trial("special/f32/softmax_rows", softmax_rows));
}
