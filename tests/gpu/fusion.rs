//! Fusion and CUDA graphs: fused functions against the same expression unfused, bit for
//! bit, for every op of the elementwise catalogue (composed with a multiply before and an
//! add after, so that the boundaries between operations are tested too), with
//! broadcasting, strided inputs, scalar arguments, several outputs and in-place updates;
//! trailing reductions (one kernel, and the two-kernel path for mixed layouts); errors at
//! trace and call time; the kernel cache (constants and scalars compile nothing new).
//! Graphs: 10,000 replays with changing inputs, checked each time; a private temporary
//! that eager arrays never reuse; memory flat across replays and returned on drop;
//! capture errors (transfers, syncs, random numbers, nesting, another stream, a failing
//! or panicking closure) that leave the device usable. The `nvrtc/fusion/...` trials
//! compile every layout variant of fused kernels.

use crate::common::{
    ensure, gpu_trial, gpu_trial_exclusive, nvrtc_trial, Rng, TElem, TResult, Val,
};
use cuarray::testing::kernels::family::{elementwise, reduce};
use cuarray::testing::kernels::{nvrtc, IndexWidth};
use cuarray::KernelSpec;
use cuarray::{fuse, s, select, DType, Device, DeviceArray, Error, Expr, NumElement};
use half::{bf16, f16};
use libtest_mimic::Trial;

// ---- helpers -----------------------------------------------------------------------------

/// Equal values (NaN equal to NaN, -0.0 distinct from 0.0).
fn same_val(a: Val, b: Val) -> bool {
    match (a, b) {
        (Val::F(x), Val::F(y)) => (x.is_nan() && y.is_nan()) || x.to_bits() == y.to_bits(),
        _ => a == b,
    }
}

/// `got` equals `want` element for element, bit for bit.
fn same<T: TElem>(what: &str, got: &DeviceArray<T>, want: &DeviceArray<T>) -> TResult {
    ensure!(
        got.shape() == want.shape(),
        "{what} {}: shape {:?}, want {:?}",
        T::DTYPE,
        got.shape(),
        want.shape()
    );
    let (g, w) = (got.to_host()?, want.to_host()?);
    for (i, (a, b)) in g.iter().zip(&w).enumerate() {
        ensure!(
            same_val(a.val(), b.val()),
            "{what} {}: element {i}: fused {a}, unfused {b}",
            T::DTYPE
        );
    }
    Ok(())
}

/// `got` close to `want` (relative `tol`, NaN equal to NaN).
fn close<T: TElem>(what: &str, got: &DeviceArray<T>, want: &DeviceArray<T>, tol: f64) -> TResult {
    ensure!(
        got.shape() == want.shape(),
        "{what}: shape {:?}, want {:?}",
        got.shape(),
        want.shape()
    );
    let (g, w) = (got.to_host()?, want.to_host()?);
    for (i, (a, b)) in g.iter().zip(&w).enumerate() {
        let (x, y) = (a.to_f64(), b.to_f64());
        let ok = (x.is_nan() && y.is_nan()) || x == y || (x - y).abs() <= tol * y.abs().max(1.0);
        ensure!(
            ok,
            "{what} {}: element {i}: fused {a}, unfused {b}",
            T::DTYPE
        );
    }
    Ok(())
}

/// Random data with special values (NaN, ±inf, ±0) at the start for floats.
fn data<T: TElem>(rng: &mut Rng, n: usize) -> Vec<T> {
    let mut v: Vec<T> = rng.vec(n);
    if T::DTYPE.is_float() {
        for (k, s) in [
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            -0.0,
            0.0,
            1.0,
            -1.0,
            0.5,
        ]
        .into_iter()
        .enumerate()
        {
            v[k * 7 % n] = T::from_f64(s);
        }
    }
    v
}

fn pair<T: TElem>(
    dev: &Device,
    rng: &mut Rng,
) -> cuarray::Result<(DeviceArray<T>, DeviceArray<T>)> {
    let shape = [7usize, 151];
    let n = 7 * 151;
    Ok((
        DeviceArray::from_host(dev, &data::<T>(rng, n), &shape)?,
        DeviceArray::from_host(dev, &data::<T>(rng, n), &shape)?,
    ))
}

// ---- every op of the catalogue ---------------------------------------------------------------

/// `u(x * y) + y`, fused and unfused.
fn unary<T: TElem + NumElement>(
    dev: &Device,
    rng: &mut Rng,
    name: &str,
    fe: fn(Expr<T>) -> Expr<T>,
    fa: fn(&DeviceArray<T>) -> cuarray::Result<DeviceArray<T>>,
) -> TResult {
    let (x, y) = pair::<T>(dev, rng)?;
    let f = fuse(move |x: Expr<T>, y: Expr<T>| fe(x * y) + y);
    let got = f.call(&x, &y)?;
    let want = (&fa(&(&x * &y)?)? + &y)?;
    same(name, &got, &want)?;
    // Alone, and on a strided view.
    let g = fuse(move |x: Expr<T>| fe(x));
    same(name, &g.call(&x)?, &fa(&x)?)?;
    let xs = x.slice(s![.., ..;3])?;
    same(name, &g.call(&xs)?, &fa(&xs)?)
}

/// `p(x * y)` for the predicates (bool results).
fn predicate<T: TElem + NumElement>(
    dev: &Device,
    rng: &mut Rng,
    name: &str,
    fe: fn(Expr<T>) -> Expr<bool>,
    fa: fn(&DeviceArray<T>) -> cuarray::Result<DeviceArray<bool>>,
) -> TResult {
    let (x, y) = pair::<T>(dev, rng)?;
    let f = fuse(move |x: Expr<T>, y: Expr<T>| fe(x * y));
    same(name, &f.call(&x, &y)?, &fa(&(&x * &y)?)?)
}

/// `b(x * y, y) - x` for the arithmetic binary ops; with a scalar second argument too.
fn binary<T: TElem + NumElement>(
    dev: &Device,
    rng: &mut Rng,
    name: &str,
    fe: fn(Expr<T>, Expr<T>) -> Expr<T>,
    fa: fn(&DeviceArray<T>, &DeviceArray<T>) -> cuarray::Result<DeviceArray<T>>,
) -> TResult {
    let (x, y) = pair::<T>(dev, rng)?;
    let f = fuse(move |x: Expr<T>, y: Expr<T>| fe(x * y, y) - x);
    let want = (&fa(&(&x * &y)?, &y)? - &x)?;
    same(name, &f.call(&x, &y)?, &want)?;
    let g = fuse(move |x: Expr<T>, y: Expr<T>| fe(x, y));
    let s = T::random(rng);
    let sa = DeviceArray::full(dev, [0usize; 0], s)?;
    same(name, &g.call(&x, s)?, &fa(&x, &sa)?)
}

/// `c(x * y, y)` for the comparisons (bool results).
fn compare<T: TElem + NumElement>(
    dev: &Device,
    rng: &mut Rng,
    name: &str,
    fe: fn(Expr<T>, Expr<T>) -> Expr<bool>,
    fa: fn(&DeviceArray<T>, &DeviceArray<T>) -> cuarray::Result<DeviceArray<bool>>,
) -> TResult {
    let (x, y) = pair::<T>(dev, rng)?;
    let f = fuse(move |x: Expr<T>, y: Expr<T>| fe(x * y, y));
    same(name, &f.call(&x, &y)?, &fa(&(&x * &y)?, &y)?)?;
    same(name, &f.call(&x, &x)?, &fa(&(&x * &x)?, &x)?)
}

macro_rules! float_unary {
    ($out:ident; $($m:ident),*) => {$(
        $out.push(gpu_trial(concat!("fusion/ops/", stringify!($m), "/floats"), |dev| {
            let rng = &mut Rng::for_name(stringify!($m));
            unary::<f32>(dev, rng, stringify!($m), |x| x.$m(), |a| a.$m())?;
            unary::<f64>(dev, rng, stringify!($m), |x| x.$m(), |a| a.$m())?;
            unary::<f16>(dev, rng, stringify!($m), |x| x.$m(), |a| a.$m())?;
            unary::<bf16>(dev, rng, stringify!($m), |x| x.$m(), |a| a.$m())
        }));
    )*};
}

macro_rules! num_unary {
    ($out:ident; $($m:ident),*) => {$(
        $out.push(gpu_trial(concat!("fusion/ops/", stringify!($m), "/all"), |dev| {
            let rng = &mut Rng::for_name(stringify!($m));
            unary::<f32>(dev, rng, stringify!($m), |x| x.$m(), |a| a.$m())?;
            unary::<f64>(dev, rng, stringify!($m), |x| x.$m(), |a| a.$m())?;
            unary::<f16>(dev, rng, stringify!($m), |x| x.$m(), |a| a.$m())?;
            unary::<bf16>(dev, rng, stringify!($m), |x| x.$m(), |a| a.$m())?;
            unary::<i8>(dev, rng, stringify!($m), |x| x.$m(), |a| a.$m())?;
            unary::<i32>(dev, rng, stringify!($m), |x| x.$m(), |a| a.$m())?;
            unary::<i64>(dev, rng, stringify!($m), |x| x.$m(), |a| a.$m())?;
            unary::<u8>(dev, rng, stringify!($m), |x| x.$m(), |a| a.$m())?;
            unary::<u32>(dev, rng, stringify!($m), |x| x.$m(), |a| a.$m())
        }));
    )*};
}

macro_rules! float_predicate {
    ($out:ident; $($m:ident),*) => {$(
        $out.push(gpu_trial(concat!("fusion/ops/", stringify!($m), "/floats"), |dev| {
            let rng = &mut Rng::for_name(stringify!($m));
            predicate::<f32>(dev, rng, stringify!($m), |x| x.$m(), |a| a.$m())?;
            predicate::<f64>(dev, rng, stringify!($m), |x| x.$m(), |a| a.$m())?;
            predicate::<f16>(dev, rng, stringify!($m), |x| x.$m(), |a| a.$m())?;
            predicate::<bf16>(dev, rng, stringify!($m), |x| x.$m(), |a| a.$m())
        }));
    )*};
}

macro_rules! num_binary {
    ($out:ident; $($m:ident),*) => {$(
        $out.push(gpu_trial(concat!("fusion/ops/", stringify!($m), "/all"), |dev| {
            let rng = &mut Rng::for_name(stringify!($m));
            binary::<f32>(dev, rng, stringify!($m), |x, y| x.$m(y), |a, b| a.$m(b))?;
            binary::<f64>(dev, rng, stringify!($m), |x, y| x.$m(y), |a, b| a.$m(b))?;
            binary::<f16>(dev, rng, stringify!($m), |x, y| x.$m(y), |a, b| a.$m(b))?;
            binary::<bf16>(dev, rng, stringify!($m), |x, y| x.$m(y), |a, b| a.$m(b))?;
            binary::<i8>(dev, rng, stringify!($m), |x, y| x.$m(y), |a, b| a.$m(b))?;
            binary::<i32>(dev, rng, stringify!($m), |x, y| x.$m(y), |a, b| a.$m(b))?;
            binary::<i64>(dev, rng, stringify!($m), |x, y| x.$m(y), |a, b| a.$m(b))?;
            binary::<u8>(dev, rng, stringify!($m), |x, y| x.$m(y), |a, b| a.$m(b))?;
            binary::<u32>(dev, rng, stringify!($m), |x, y| x.$m(y), |a, b| a.$m(b))
        }));
    )*};
}

macro_rules! num_compare {
    ($out:ident; $($m:ident),*) => {$(
        $out.push(gpu_trial(concat!("fusion/ops/", stringify!($m), "/all"), |dev| {
            let rng = &mut Rng::for_name(stringify!($m));
            compare::<f32>(dev, rng, stringify!($m), |x, y| x.$m(y), |a, b| a.$m(b))?;
            compare::<f64>(dev, rng, stringify!($m), |x, y| x.$m(y), |a, b| a.$m(b))?;
            compare::<f16>(dev, rng, stringify!($m), |x, y| x.$m(y), |a, b| a.$m(b))?;
            compare::<bf16>(dev, rng, stringify!($m), |x, y| x.$m(y), |a, b| a.$m(b))?;
            compare::<i8>(dev, rng, stringify!($m), |x, y| x.$m(y), |a, b| a.$m(b))?;
            compare::<i32>(dev, rng, stringify!($m), |x, y| x.$m(y), |a, b| a.$m(b))?;
            compare::<i64>(dev, rng, stringify!($m), |x, y| x.$m(y), |a, b| a.$m(b))?;
            compare::<u8>(dev, rng, stringify!($m), |x, y| x.$m(y), |a, b| a.$m(b))?;
            compare::<u32>(dev, rng, stringify!($m), |x, y| x.$m(y), |a, b| a.$m(b))
        }));
    )*};
}

/// The ops outside the unary/binary tables: logical ops, where, clip, casts.
fn other_ops(dev: &Device) -> TResult {
    let rng = &mut Rng::for_name("other_ops");
    let n = 999;
    let (p, q) = (
        DeviceArray::from_host(dev, &rng.vec::<bool>(n), &[n])?,
        DeviceArray::from_host(dev, &rng.vec::<bool>(n), &[n])?,
    );
    let f =
        fuse(|p: Expr<bool>, q: Expr<bool>| ((p & q) | !p, p ^ q, p.logical_or(q).logical_not()));
    let (a, b, c) = f.call(&p, &q)?;
    same(
        "and/or/not",
        &a,
        &p.logical_and(&q)?.logical_or(&p.logical_not()?)?,
    )?;
    same("xor", &b, &p.logical_xor(&q)?)?;
    same("or/not", &c, &p.logical_or(&q)?.logical_not()?)?;
    let x = DeviceArray::from_host(dev, &data::<f32>(rng, n), &[n])?;
    let y = DeviceArray::from_host(dev, &data::<f32>(rng, n), &[n])?;
    // where, clip
    let w = fuse(|x: Expr<f32>, y: Expr<f32>| select(x.gt(y), x - y, y * 2.0).clip(-5.0, 50.0));
    let want = cuarray::where_(x.gt(&y)?, (&x - &y)?, (&y * 2.0)?)?.clip(-5.0, 50.0)?;
    same("where/clip", &w.call(&x, &y)?, &want)?;
    // casts, both ways, with rounding in between
    let c = fuse(|x: Expr<f32>| {
        (
            x.astype::<i32>(),
            x.astype::<f16>().astype::<f64>() * 3.0,
            x.gt(0.0).astype::<f32>(),
        )
    });
    let (ci, ch, cb) = c.call(&x)?;
    same("astype i32", &ci, &x.astype::<i32>()?)?;
    same(
        "astype f16 f64",
        &ch,
        &(&x.astype::<f16>()?.astype::<f64>()? * 3.0)?,
    )?;
    same("astype bool f32", &cb, &x.gt(0.0)?.astype::<f32>()?)?;
    // Integer arithmetic with scalars on the left and constants that wrap.
    let k = DeviceArray::from_host(dev, &rng.vec::<i16>(n), &[n])?;
    let g = fuse(|k: Expr<i16>| (3i16 - k) * 300i16 / 7i16 % 5i16);
    let want = ((((3i16 - &k)? * 300i16)? / 7i16)? % 5i16)?;
    same("i16 chain", &g.call(&k)?, &want)
}

// ---- layouts, scalars, outputs ---------------------------------------------------------------

fn broadcast_and_strided(dev: &Device) -> TResult {
    let rng = &mut Rng::for_name("broadcast");
    let a = DeviceArray::from_host(dev, &data::<f32>(rng, 15), &[3, 1, 5])?;
    let b = DeviceArray::from_host(dev, &data::<f32>(rng, 20), &[4, 5])?;
    let f = fuse(|a: Expr<f32>, b: Expr<f32>, c: Expr<f32>| (a - b) * c + a.exp());
    let want = (&((&a - &b)? * 0.75f32)? + &a.exp()?)?;
    let got = f.call(&a, &b, 0.75f32)?;
    ensure!(
        got.shape() == [3, 4, 5],
        "broadcast shape {:?}",
        got.shape()
    );
    same("broadcast", &got, &want)?;
    // A 0-d array argument broadcasts like the scalar.
    let c = DeviceArray::full(dev, [0usize; 0], 0.75f32)?;
    same("0-d", &f.call(&a, &b, &c)?, &want)?;
    // Strided: transposed, stepped and reversed views, f64 and f16.
    let big = DeviceArray::from_host(dev, &data::<f64>(rng, 64 * 96), &[64, 96])?;
    let other = DeviceArray::from_host(dev, &data::<f64>(rng, 96 * 64), &[96, 64])?;
    let g = fuse(|x: Expr<f64>, y: Expr<f64>| (x * y).tanh() - y / 3.0);
    let (x, y) = (big.t(), other.slice(s![..;1, ..])?);
    same(
        "transposed",
        &g.call(&x, &y)?,
        &(&(&x * &y)?.tanh()? - &(&y / 3.0)?)?,
    )?;
    let (x, y) = (
        big.slice(s![..;2, ..;-3])?,
        other.t().slice(s![..;2, ..;-3])?,
    );
    same(
        "stepped",
        &g.call(&x, &y)?,
        &(&(&x * &y)?.tanh()? - &(&y / 3.0)?)?,
    )?;
    let h = DeviceArray::from_host(dev, &data::<f16>(rng, 64 * 96), &[64, 96])?;
    let hf = fuse(|x: Expr<f16>| x * f16::from_f32(1.5) + f16::from_f32(0.25));
    let ht = h.t();
    same(
        "f16 transposed",
        &hf.call(&ht)?,
        &(&(&ht * f16::from_f32(1.5))? + f16::from_f32(0.25))?,
    )?;
    // Broadcast and contiguous rows (the strided-vector variant).
    let row = DeviceArray::from_host(dev, &data::<f32>(rng, 128), &[128])?;
    let m = DeviceArray::from_host(dev, &data::<f32>(rng, 64 * 128), &[64, 128])?;
    let r = fuse(|m: Expr<f32>, r: Expr<f32>| (m + r).relu() * r);
    same("rows", &r.call(&m, &row)?, &(&(&m + &row)?.relu()? * &row)?)
}

fn outputs_and_in_place(dev: &Device) -> TResult {
    let rng = &mut Rng::for_name("adam");
    let n = 4099;
    let g = DeviceArray::from_host(
        dev,
        &data::<f32>(rng, n)
            .iter()
            .map(|v| v.clamp(-3.0, 3.0))
            .collect::<Vec<_>>(),
        &[n],
    )?;
    let p0: Vec<f32> = (0..n).map(|i| (i as f32 * 0.37).sin()).collect();
    let p = DeviceArray::from_slice(dev, &p0)?;
    let m = DeviceArray::<f32>::zeros(dev, &[n])?;
    let v = DeviceArray::<f32>::zeros(dev, &[n])?;
    let adam = fuse(
        |p: Expr<f32>, m: Expr<f32>, v: Expr<f32>, g: Expr<f32>, lr: Expr<f32>| {
            let m2 = m * 0.9 + g * 0.1;
            let v2 = v * 0.999 + g * g * 0.001;
            (p - lr * m2 / (v2.sqrt() + 1e-8), m2, v2)
        },
    );
    let (pu, mu, vu) = (p.copy()?, m.copy()?, v.copy()?);
    for step in 0..3 {
        let lr = 0.01f32 / (step + 1) as f32;
        adam.call_into((&p, &m, &v), &p, &m, &v, &g, lr)?;
        let m2 = (&(&mu * 0.9)? + &(&g * 0.1)?)?;
        let v2 = (&(&vu * 0.999)? + &(&(&g * &g)? * 0.001)?)?;
        let p2 = (&pu - &(&(lr * &m2)? / &(&v2.sqrt()? + 1e-8)?)?)?;
        pu.assign(&p2)?;
        mu.assign(&m2)?;
        vu.assign(&v2)?;
    }
    same("adam p", &p, &pu)?;
    same("adam m", &m, &mu)?;
    same("adam v", &v, &vu)?;
    // call_into a strided view of a bigger array.
    let big = DeviceArray::<f32>::zeros(dev, &[2 * n])?;
    let half = big.slice(s![..;2])?;
    let sq = fuse(|x: Expr<f32>| x.square());
    sq.call_into(&half, &g)?;
    same("into view", &half, &g.square()?)?;
    ensure!(
        big.slice(s![1..;2])?.to_host()?.iter().all(|&x| x == 0.0),
        "wrote outside the view"
    );
    Ok(())
}

// ---- reductions ---------------------------------------------------------------------------

fn reductions(dev: &Device) -> TResult {
    let rng = &mut Rng::for_name("reductions");
    let shape = [64usize, 300];
    let x = DeviceArray::from_host(dev, &rng.vec::<f32>(64 * 300), &shape)?;
    let y = DeviceArray::from_host(dev, &rng.vec::<f32>(64 * 300), &shape)?;
    let d = fuse(|x: Expr<f32>, y: Expr<f32>| (x - y).square().sum_axis(-1));
    let want = (&x - &y)?.square()?.sum_axis(-1)?;
    same("sq dist", &d.call(&x, &y)?, &want)?;
    // Whole-array sums of a large array (split rows, finished in one launch).
    let n = 1 << 21;
    let big = DeviceArray::from_host(dev, &rng.vec::<f32>(n), &[n])?;
    let s = fuse(|x: Expr<f32>| (x * 0.5).exp().sum());
    same("sum exp", &s.call(&big)?, &(&big * 0.5)?.exp()?.sum()?)?;
    // Columns, means, keepdims, max/argmax, logical, integers.
    let m = fuse(|x: Expr<f32>, y: Expr<f32>| (x * y + 1.0).mean_axis(0));
    same(
        "mean cols",
        &m.call(&x, &y)?,
        &(&(&x * &y)? + 1.0)?.mean_axis(0)?,
    )?;
    let mk = fuse(|x: Expr<f32>| x.abs().max_keepdim(1));
    same("max keepdim", &mk.call(&x)?, &x.abs()?.max_keepdim(1)?)?;
    let am = fuse(|x: Expr<f32>, y: Expr<f32>| (x - y).argmax_axis(1));
    same("argmax", &am.call(&x, &y)?, &(&x - &y)?.argmax_axis(1)?)?;
    let al = fuse(|x: Expr<f32>| x.gt(-100.0).all_axis(1));
    same("all", &al.call(&x)?, &x.gt(-100.0)?.all_axis(1)?)?;
    let k = DeviceArray::from_host(dev, &rng.vec::<i32>(64 * 300), &shape)?;
    let ks = fuse(|k: Expr<i32>| (k % 1000).sum_axes(&[0, 1], true));
    same(
        "i32 sum",
        &ks.call(&k)?,
        &(&k % 1000)?.sum_axes(&[0, 1], true)?,
    )?;
    // A scalar argument in the pre-map; an empty max is an error.
    let sc = fuse(|x: Expr<f32>, c: Expr<f32>| (x * c).sum_axis(0));
    same("scalar", &sc.call(&x, 3.0f32)?, &(&x * 3.0)?.sum_axis(0)?)?;
    let e = DeviceArray::<f32>::zeros(dev, &[0, 3])?;
    let mx = fuse(|x: Expr<f32>| x.max_axis(0));
    ensure!(
        matches!(mx.call(&e), Err(Error::EmptyReduction { .. })),
        "empty max should fail"
    );
    // Mixed layouts: broadcast (the two-kernel path), transposed (strided reads).
    let mu = x.mean_keepdim(1)?;
    let var = fuse(|x: Expr<f32>, mu: Expr<f32>| (x - mu).square().sum_axis(1));
    same(
        "broadcast",
        &var.call(&x, &mu)?,
        &(&x - &mu)?.square()?.sum_axis(1)?,
    )?;
    let xt = DeviceArray::from_host(dev, &rng.vec::<f32>(64 * 300), &[300, 64])?.t();
    close(
        "transposed",
        &d.call(&xt, &y)?,
        &(&xt - &y)?.square()?.sum_axis(-1)?,
        1e-5,
    )?;
    // Into a given array.
    let out = DeviceArray::<f32>::zeros(dev, &[64])?;
    d.call_into(&out, &x, &y)?;
    same("into", &out, &want)
}

// ---- errors and the cache -------------------------------------------------------------------

fn errors(dev: &Device) -> TResult {
    let x = DeviceArray::<f32>::ones(dev, &[4, 5])?;
    let f = fuse(|x: Expr<f32>, y: Expr<f32>| x + y);
    let e = f.call(1.0f32, 2.0f32).unwrap_err();
    ensure!(matches!(e, Error::Fusion { .. }), "no array: {e}");
    let e = f
        .call(&x, &DeviceArray::<f32>::ones(dev, &[3])?)
        .unwrap_err();
    ensure!(matches!(e, Error::Broadcast { .. }), "broadcast: {e}");
    // An output read through another layout.
    let sq = DeviceArray::<f32>::ones(dev, &[5, 5])?;
    let e = f.call_into(&sq, &sq.t(), 1.0f32).unwrap_err();
    ensure!(e.to_string().contains("shares memory"), "aliasing: {e}");
    // An array operation inside the closure is an error, not an eager fallback.
    let seen = std::cell::Cell::new(None);
    let g = fuse(|y: Expr<f32>| {
        seen.set(Some(matches!(x.exp(), Err(Error::Fusion { .. }))));
        y
    });
    g.check()?;
    ensure!(
        seen.get() == Some(true),
        "an eager op inside the closure must fail"
    );
    // Too many arrays for one kernel.
    let nine = fuse(
        |a: Expr<f32>,
         b: Expr<f32>,
         c: Expr<f32>,
         d: Expr<f32>,
         e: Expr<f32>,
         f: Expr<f32>,
         g: Expr<f32>,
         h: Expr<f32>| { a + b + c + d + e + f + g + h },
    );
    let e = nine.call(&x, &x, &x, &x, &x, &x, &x, &x).unwrap_err();
    ensure!(matches!(e, Error::Fusion { .. }), "nine arrays: {e}");
    let ok = nine.call(&x, &x, &x, &x, &x, &x, &x, 1.0f32)?;
    ensure!(
        ok.to_host()?.iter().all(|&v| v == 8.0),
        "seven arrays and a scalar"
    );
    // Trace errors are returned by every call.
    let kept = std::cell::Cell::new(None);
    let _first = fuse(|x: Expr<f32>| {
        kept.set(Some(x));
        x
    });
    let bad = fuse(|x: Expr<f32>| x + kept.get().unwrap());
    let e = bad.call(&x).unwrap_err();
    ensure!(matches!(e, Error::Fusion { .. }), "trace error: {e}");
    Ok(())
}

/// Constants and scalar arguments are parameters: new values compile nothing.
fn cache(dev: &Device) -> TResult {
    let x = DeviceArray::<f64>::ones(dev, &[1000])?;
    let two = fuse(|x: Expr<f64>| x * 2.0 + 1.0);
    let y = two.call(&x)?;
    let before = dev.kernel_cache_stats().compiles + dev.kernel_cache_stats().disk_hits;
    let three = fuse(|x: Expr<f64>| x * 3.0 + 7.0);
    let z = three.call(&x)?;
    let w = two.call(&x)?;
    let after = dev.kernel_cache_stats().compiles + dev.kernel_cache_stats().disk_hits;
    ensure!(
        after == before,
        "a new constant compiled {} kernel(s)",
        after - before
    );
    ensure!(
        y.to_host()? == vec![3.0; 1000] && w.to_host()? == vec![3.0; 1000],
        "two"
    );
    ensure!(z.to_host()? == vec![10.0; 1000], "three");
    let sc = fuse(|x: Expr<f64>, a: Expr<f64>| x * a);
    sc.call(&x, 2.0)?;
    let before = dev.kernel_cache_stats().compiles;
    let r = sc.call(&x, 5.5)?;
    ensure!(
        dev.kernel_cache_stats().compiles == before,
        "a new scalar compiled"
    );
    ensure!(r.to_host()? == vec![5.5; 1000], "scalar");
    // The host's own work per call, without the launch: well under the launch itself.
    let chain = fuse(|x: Expr<f32>| {
        let mut y = x;
        for _ in 0..16 {
            y = y * 1.0001 + 0.5;
        }
        y
    });
    let a = DeviceArray::<f32>::ones(dev, &[1000])?;
    chain.call(&a)?;
    let t = std::time::Instant::now();
    cuarray::testing::without_launch(|| -> cuarray::Result<()> {
        for _ in 0..2000 {
            chain.call(&a)?;
        }
        Ok(())
    })?;
    let per = t.elapsed() / 2000;
    eprintln!("fused 16-step chain, host work per call without the launch: {per:?}");
    ensure!(
        per < std::time::Duration::from_micros(20),
        "host cost {per:?} per call"
    );
    Ok(())
}

// ---- NVRTC tier -----------------------------------------------------------------------------

fn compile(spec: KernelSpec) -> TResult {
    let (src, sym) = (spec.source(), spec.symbol());
    nvrtc::compile(&src, &sym, &nvrtc::options((9, 0)))
        .map(drop)
        .map_err(|e| format!("{sym}: {e}").into())
}

fn nvrtc_variants() -> TResult {
    use elementwise::Variant as V;
    let f = fuse(|x: Expr<f32>, y: Expr<f32>, z: Expr<f32>| {
        ((x * y + z).sigmoid(), x.gt(z).select(x, 0.5))
    });
    let h = fuse(|x: Expr<f16>, y: Expr<bf16>| {
        (x.astype::<f32>() * y.astype::<f32>())
            .exp()
            .astype::<f16>()
            + x
    });
    let i = fuse(|x: Expr<i64>, y: Expr<u8>| (x * 3 - y.astype::<i64>()).abs() % 7);
    let variants = [
        V::Contiguous,
        V::Vectorized { vec: 4 },
        V::Strided { ndim: 3 },
        V::StridedVec {
            ndim: 2,
            vec: 4,
            bcast: 0b100,
        },
        V::Tiled { staged: 0b10 },
    ];
    for v in variants {
        for arrays in [[true, true, true], [true, false, true]] {
            compile(f.elementwise_spec(&arrays, v, IndexWidth::I32)?.into())?;
        }
        compile(
            h.elementwise_spec(&[true, true], v, IndexWidth::I64)?
                .into(),
        )?;
        compile(
            i.elementwise_spec(&[true, false], v, IndexWidth::I32)?
                .into(),
        )?;
    }
    let r = fuse(|x: Expr<f32>, y: Expr<f16>, c: Expr<f32>| {
        (x - y.astype::<f32>() * c).square().mean_axis(1)
    });
    let a = fuse(|x: Expr<f64>| (x * 2.0).argmax());
    for v in [
        reduce::Variant::Rows {
            warp: true,
            vec: 4,
            nk: 1,
            nr: 1,
        },
        reduce::Variant::Rows {
            warp: false,
            vec: 1,
            nk: 2,
            nr: 2,
        },
        reduce::Variant::Cols {
            vec: 4,
            nk: 1,
            nr: 1,
        },
    ] {
        let spec = r
            .reduce_spec(&[true, true, false], DType::F32, v, IndexWidth::I32)?
            .unwrap();
        compile(spec.into())?;
        let spec = a
            .reduce_spec(&[true], DType::I64, v, IndexWidth::I64)?
            .unwrap();
        compile(spec.into())?;
    }
    Ok(())
}

// ---- graphs ----------------------------------------------------------------------------------

/// A graph with a private temporary, a fused elementwise kernel and a fused reduction,
/// replayed 10,000 times with new input values; eager arrays made between replays keep
/// their values; memory is flat across replays and returned when the graph goes.
fn graph_replays(dev: &Device) -> TResult {
    let n = 1000;
    let w_host: Vec<f32> = (0..n).map(|i| (i % 17) as f32).collect();
    let x = DeviceArray::<f32>::zeros(dev, &[n])?;
    let w = DeviceArray::from_slice(dev, &w_host)?;
    let y = DeviceArray::<f32>::zeros(dev, &[n])?;
    let s = DeviceArray::<f32>::zeros(dev, [0usize; 0])?;
    let step = fuse(|t: Expr<f32>, w: Expr<f32>| t * w + 1.0);
    let dot = fuse(|x: Expr<f32>, w: Expr<f32>| (x * w).sum());
    // Warm the kernels (so that the capture is not also a compile), and the scratch a
    // first capture keeps for the stream (the split reductions' row counters).
    step.call(&x, &w)?;
    dot.call(&x, &w)?;
    drop(dev.capture(|| Ok(()))?);
    dev.synchronize()?;
    let base = dev.memory_stats();
    let g = dev.capture(|| {
        let t = (&x * 2.0)?; // private memory, freed inside the capture
        step.call_into(&y, &t, &w)?;
        dot.call_into(&s, &x, &w)?;
        Ok(())
    })?;
    ensure!(g.node_count() == 3, "{} nodes", g.node_count());
    ensure!(
        g.private_bytes() >= n * 4,
        "private bytes {}",
        g.private_bytes()
    );
    let captured = dev.memory_stats();
    let sum_w: f64 = w_host.iter().map(|&v| v as f64).sum();
    for k in 0..10_000u32 {
        x.add_assign(1.0)?; // x = k + 1, written outside the graph
        let junk = DeviceArray::<f32>::full(dev, &[n], 7.0)?; // must never be the graph's temporary
        g.launch()?;
        let xv = (k + 1) as f32;
        let yh = y.to_host()?;
        for (i, (&got, &wi)) in yh.iter().zip(&w_host).enumerate() {
            ensure!(got == 2.0 * xv * wi + 1.0, "replay {k}: y[{i}] = {got}");
        }
        let sh = s.to_scalar()? as f64;
        let want = xv as f64 * sum_w;
        ensure!(
            (sh - want).abs() <= 1e-6 * want,
            "replay {k}: s = {sh}, want {want}"
        );
        ensure!(
            junk.to_host()?.iter().all(|&v| v == 7.0),
            "replay {k} wrote into an eager array"
        );
    }
    let after = dev.memory_stats();
    ensure!(
        after.in_use == captured.in_use && after.reserved == captured.reserved,
        "pool moved across replays: {captured:?} -> {after:?}"
    );
    drop(g);
    let dropped = dev.memory_stats();
    ensure!(
        dropped.in_use == base.in_use,
        "in use after drop: {base:?} -> {dropped:?}"
    );
    ensure!(
        dropped.reserved <= captured.reserved - n * 4,
        "private memory kept: {dropped:?}"
    );
    Ok(())
}

/// Every refused operation ends the capture cleanly: the error comes back and the device
/// works (eagerly and in a new capture) afterwards.
fn graph_errors(dev: &Device) -> TResult {
    let x = DeviceArray::<f32>::ones(dev, &[256])?;
    let usable = |what: &str| -> TResult {
        let v = (&x + 1.0)?.to_host()?;
        ensure!(v.iter().all(|&a| a == 2.0), "after {what}: eager op wrong");
        let y = DeviceArray::<f32>::zeros(dev, &[256])?;
        let g = dev.capture(|| y.assign(&(&x * 3.0)?))?;
        g.launch()?;
        ensure!(
            y.to_host()?.iter().all(|&a| a == 3.0),
            "after {what}: graph wrong"
        );
        Ok(())
    };
    let is_capture = |r: cuarray::Result<cuarray::Graph>| matches!(r, Err(Error::Capture { .. }));
    ensure!(is_capture(dev.capture(|| x.to_host().map(drop))), "to_host");
    usable("to_host")?;
    ensure!(
        is_capture(dev.capture(|| x.sum()?.to_scalar().map(drop))),
        "to_scalar"
    );
    ensure!(
        is_capture(dev.capture(|| DeviceArray::from_slice(dev, &[1.0f32]).map(drop))),
        "from_host"
    );
    ensure!(is_capture(dev.capture(|| dev.synchronize())), "synchronize");
    ensure!(
        is_capture(dev.capture(|| dev.stream().synchronize())),
        "stream synchronize"
    );
    ensure!(
        is_capture(dev.capture(|| dev.timer()?.stop().map(drop))),
        "timer"
    );
    ensure!(
        is_capture(dev.capture(|| dev.memory_pool().free_all_blocks())),
        "free_all_blocks"
    );
    let mut rng = cuarray::random::Generator::new(dev, 7);
    ensure!(
        is_capture(dev.capture(|| rng.random::<f32>(&[8]).map(drop))),
        "random"
    );
    ensure!(
        is_capture(dev.capture(|| dev.capture(|| Ok(())).map(drop))),
        "nested"
    );
    usable("refusals")?;
    // Work on another stream than the captured one.
    let side = dev.new_stream()?;
    let xs = x.on_stream(&side)?;
    ensure!(
        is_capture(dev.capture(|| (&xs + 1.0).map(drop))),
        "other stream"
    );
    side.synchronize()?;
    // The closure's own error, and a panic.
    let e = dev.capture(|| x.reshape(&[7, 3]).map(drop)).unwrap_err();
    ensure!(
        matches!(
            e,
            Error::ShapeMismatch { .. } | Error::InvalidArgument { .. }
        ),
        "closure error: {e}"
    );
    let p = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        dev.capture(|| panic!("boom"))
    }));
    ensure!(p.is_err(), "panic");
    usable("closure error and panic")?;
    // A launch of a finished graph inside a capture is refused, the graph still works.
    let y = DeviceArray::<f32>::zeros(dev, &[256])?;
    let inner = dev.capture(|| y.add_assign(1.0))?;
    ensure!(
        is_capture(dev.capture(|| inner.launch())),
        "graph launch in a capture"
    );
    inner.launch()?;
    inner.launch()?;
    ensure!(
        y.to_host()?.iter().all(|&a| a == 2.0),
        "graph after a refused launch"
    );
    usable("graph launch")
}

pub fn trials(out: &mut Vec<Trial>) {
    float_unary!(out; exp, log, log1p, expm1, sqrt, sin, cos, tan, tanh, sigmoid, floor, ceil, round);
    num_unary!(out; neg, abs, sign, square, relu);
    float_predicate!(out; isnan, isinf, isfinite);
    num_binary!(out; add, sub, mul, div, rem, pow, maximum, minimum);
    num_compare!(out; eq, ne, lt, le, gt, ge);
    out.push(gpu_trial(
        "fusion/ops/logical_where_clip_astype/all",
        other_ops,
    ));
    out.push(gpu_trial(
        "fusion/layouts/all/broadcast_strided",
        broadcast_and_strided,
    ));
    out.push(gpu_trial(
        "fusion/outputs/f32/adam_in_place_tuple",
        outputs_and_in_place,
    ));
    out.push(gpu_trial(
        "fusion/reduce/all/trailing_reductions",
        reductions,
    ));
    out.push(gpu_trial("fusion/errors/f32/call_and_trace", errors));
    out.push(gpu_trial_exclusive(
        "fusion/cache/all/constants_are_parameters",
        cache,
    ));
    out.push(nvrtc_trial("nvrtc/fusion/all/variants", nvrtc_variants));
    out.push(gpu_trial_exclusive(
        "graph/replay/f32/ten_thousand",
        graph_replays,
    ));
    out.push(gpu_trial_exclusive(
        "graph/errors/f32/refusals_leave_device_usable",
        graph_errors,
    ));
}
