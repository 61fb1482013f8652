//! The third round's elementwise catalogue against host references computed in f64 from
//! NumPy's definitions: float unary and binary ufuncs (random inputs in each function's
//! domain, NaN/inf/-0.0, strided, broadcast, empty and 0-d operands), `ldexp`,
//! `nan_to_num`, `isclose`, integer bit operations and shifts at and past the bit width,
//! and the bool operators.

use crate::common::*;
use cuarray::{Device, DeviceArray, Element, FloatElement, IntElement};
use libtest_mimic::Trial;
use std::f64::consts::{LN_2, PI};

type R<T> = cuarray::Result<DeviceArray<T>>;

/// Machine epsilon of `T`.
fn eps<T: Element>() -> f64 {
    match T::DTYPE {
        cuarray::DType::F16 => 9.77e-4,
        cuarray::DType::BF16 => 7.82e-3,
        cuarray::DType::F32 => 1.2e-7,
        _ => 2.3e-16,
    }
}

/// `got` within `ulps` epsilons of `want` relative to `max(|want|, floor)`; NaN matches
/// NaN, infinities match exactly.
fn near(got: f64, want: f64, tol: f64, floor: f64) -> bool {
    if want.is_nan() || got.is_nan() {
        return want.is_nan() && got.is_nan();
    }
    if want.is_infinite() || got.is_infinite() {
        return got == want;
    }
    (got - want).abs() <= tol * want.abs().max(floor).max(1e-300)
}

fn check_f<T: Element>(
    what: &str,
    x: &[f64],
    got: &[T],
    want: &[f64],
    ulps: f64,
    floor: f64,
) -> TResult {
    ensure!(
        got.len() == want.len(),
        "{what}: {} elements, expected {}",
        got.len(),
        want.len()
    );
    let tol = ulps * eps::<T>();
    for i in 0..got.len() {
        let g = got[i].to_f64();
        ensure!(
            near(g, want[i], tol, floor),
            "{what} ({}): at [{i}] x = {} got {g:e}, expected {:e} (tolerance {ulps} ulps)",
            T::DTYPE,
            x[i],
            want[i]
        );
    }
    Ok(())
}

/// One float unary op: its method, f64 reference, input domain, tolerance in ulps and
/// the floor of the relative scale (for values near a zero of the function).
struct Unary<T: FloatElement> {
    name: &'static str,
    f: fn(&DeviceArray<T>) -> R<T>,
    r: fn(f64) -> f64,
    lo: f64,
    hi: f64,
    ulps: f64,
    floor: f64,
}

/// sin(πx) / (πx) with the argument reduced exactly first (x - 2 round(x / 2)), as the
/// kernel's sinpi does: more accurate than NumPy's sin(πx) far from 0.
fn sinc(x: f64) -> f64 {
    if x == 0.0 {
        1.0
    } else {
        (PI * (x - 2.0 * (x / 2.0).round())).sin() / (PI * x)
    }
}
fn gelu(x: f64) -> f64 {
    if x == f64::NEG_INFINITY {
        return -0.0;
    }
    0.5 * x * libm::erfc(-x / std::f64::consts::SQRT_2)
}
fn silu(x: f64) -> f64 {
    if x == f64::NEG_INFINITY {
        return -0.0;
    }
    x / (1.0 + (-x).exp())
}
fn softplus(x: f64) -> f64 {
    x.max(0.0) + (-x.abs()).exp().ln_1p()
}

macro_rules! unary_table {
    ($t:ty) => {{
        let u = |name, f: fn(&DeviceArray<$t>) -> R<$t>, r: fn(f64) -> f64, lo, hi, ulps, floor| {
            Unary::<$t> {
                name,
                f,
                r,
                lo,
                hi,
                ulps,
                floor,
            }
        };
        vec![
            u("arcsin", |a| a.arcsin(), f64::asin, -1.0, 1.0, 4.0, 0.0),
            u("arccos", |a| a.arccos(), f64::acos, -1.0, 1.0, 4.0, 0.0),
            u("arctan", |a| a.arctan(), f64::atan, -50.0, 50.0, 4.0, 0.0),
            u("sinh", |a| a.sinh(), f64::sinh, -20.0, 20.0, 4.0, 0.0),
            u("cosh", |a| a.cosh(), f64::cosh, -20.0, 20.0, 4.0, 0.0),
            u("arcsinh", |a| a.arcsinh(), f64::asinh, -1e3, 1e3, 4.0, 0.0),
            u("arccosh", |a| a.arccosh(), f64::acosh, 1.0, 1e3, 4.0, 0.0),
            u("arctanh", |a| a.arctanh(), atanh, -1.0, 1.0, 4.0, 0.0),
            u("log2", |a| a.log2(), f64::log2, 0.0, 1e4, 4.0, 1.0),
            u("log10", |a| a.log10(), f64::log10, 0.0, 1e4, 4.0, 1.0),
            u("exp2", |a| a.exp2(), f64::exp2, -60.0, 60.0, 4.0, 0.0),
            u("cbrt", |a| a.cbrt(), f64::cbrt, -1e6, 1e6, 4.0, 0.0),
            u(
                "reciprocal",
                |a| a.reciprocal(),
                |x| 1.0 / x,
                -1e3,
                1e3,
                2.0,
                0.0,
            ),
            u(
                "rsqrt",
                |a| a.rsqrt(),
                |x| 1.0 / x.sqrt(),
                0.0,
                1e4,
                4.0,
                0.0,
            ),
            u("trunc", |a| a.trunc(), f64::trunc, -1e3, 1e3, 0.0, 0.0),
            u(
                "rint",
                |a| a.rint(),
                f64::round_ties_even,
                -1e3,
                1e3,
                0.0,
                0.0,
            ),
            u(
                "deg2rad",
                |a| a.deg2rad(),
                |x| x * (PI / 180.0),
                -720.0,
                720.0,
                2.0,
                0.0,
            ),
            u(
                "rad2deg",
                |a| a.rad2deg(),
                |x| x * (180.0 / PI),
                -10.0,
                10.0,
                2.0,
                0.0,
            ),
            u("sinc", |a| a.sinc(), sinc, -20.0, 20.0, 8.0, 0.05),
            // erfc(-x/√2) with the argument rounded: its relative error grows as x²
            // ulps in the left tail (11 ulps at x = -3.3 in f64; PyTorch's has the same).
            u("gelu", |a| a.gelu(), gelu, -12.0, 12.0, 16.0, 1e-3),
            u("silu", |a| a.silu(), silu, -90.0, 90.0, 8.0, 1e-3),
            u(
                "softplus",
                |a| a.softplus(),
                softplus,
                -90.0,
                90.0,
                8.0,
                0.0,
            ),
        ]
    }};
}

/// Each op on random inputs (a 2-d array and a strided, transposed view of it), its
/// special values, an empty and a 0-d array.
fn float_unary<T: FloatElement + TElem>(
    dev: &Device,
    rng: &mut Rng,
    ops: Vec<Unary<T>>,
) -> TResult {
    let lowp = eps::<T>() > 1e-4;
    for op in ops {
        let (rows, cols) = (37, 29);
        let x: Vec<f64> = (0..rows * cols)
            .map(|_| {
                let v = op.lo + (op.hi - op.lo) * rng.unit();
                Element::to_f64(T::from_f64(v))
            })
            .collect();
        let xt: Vec<T> = x.iter().map(|&v| T::from_f64(v)).collect();
        let a = DeviceArray::from_host(dev, &xt, &[rows, cols])?;
        // f16/bf16: the f32 result rounded once, so half an ulp of T plus f32's error.
        let ulps = if lowp { 1.0 } else { op.ulps.max(0.0) } + 0.5;
        let ulps = if op.ulps == 0.0 { 0.0 } else { ulps };
        // The reference rounded to T (overflow to inf, underflow to 0 or a subnormal).
        let want: Vec<f64> = x
            .iter()
            .map(|&v| Element::to_f64(T::from_f64((op.r)(v))))
            .collect();
        let got = (op.f)(&a)?.to_host()?;
        check_f(op.name, &x, &got, &want, ulps, op.floor)?;
        // Strided: every other column of the transpose.
        let v = a.t().slice(cuarray::s![.., ..;2])?;
        let got = (op.f)(&v)?.to_host()?;
        let host_v = v.to_host()?;
        let xv: Vec<f64> = host_v.iter().map(|&e| Element::to_f64(e)).collect();
        let want: Vec<f64> = xv
            .iter()
            .map(|&e| Element::to_f64(T::from_f64((op.r)(e))))
            .collect();
        check_f(op.name, &xv, &got, &want, ulps, op.floor)?;
        // Special values.
        let sx = [
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            0.0,
            -0.0,
            1.0,
            -1.0,
        ];
        let st: Vec<T> = sx.iter().map(|&v| T::from_f64(v)).collect();
        let got = (op.f)(&DeviceArray::from_slice(dev, &st)?)?.to_host()?;
        let want: Vec<f64> = sx
            .iter()
            .map(|&v| Element::to_f64(T::from_f64((op.r)(v))))
            .collect();
        check_f(op.name, &sx, &got, &want, ulps.max(1.0), 1.0)?;
        // Empty and 0-d.
        let e = (op.f)(&DeviceArray::<T>::zeros(dev, &[0, 3])?)?;
        ensure!(
            e.shape() == [0, 3],
            "{}: empty result shape {:?}",
            op.name,
            e.shape()
        );
        let z = DeviceArray::full(dev, [0usize; 0], T::from_f64(x[0]))?;
        let got = (op.f)(&z)?;
        ensure!(
            got.ndim() == 0,
            "{}: 0-d result of rank {}",
            op.name,
            got.ndim()
        );
        check_f(
            op.name,
            &x[..1],
            &got.to_host()?,
            &[Element::to_f64(T::from_f64((op.r)(x[0])))],
            ulps,
            op.floor,
        )?;
    }
    Ok(())
}

fn signbit<T: FloatElement + TElem>(dev: &Device, _rng: &mut Rng) -> TResult {
    let x = [
        0.0,
        -0.0,
        1.0,
        -2.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        -f64::NAN,
    ];
    let host = x.map(T::from_f64);
    let a = DeviceArray::from_slice(dev, &host)?;
    let got = a.signbit()?.to_host()?;
    // The sign of the stored values (a NaN's sign may not survive the conversion to T).
    let want: Vec<bool> = host
        .iter()
        .map(|v| Element::to_f64(*v).is_sign_negative())
        .collect();
    ensure!(
        got == want,
        "signbit ({}): got {got:?}, expected {want:?}",
        T::DTYPE
    );
    Ok(())
}

/// `atanh` accurate near ±1 (std's rounds `2x / (1 - x)` before its `ln_1p`, which loses
/// digits there): half the difference of two `ln_1p` of exact arguments.
fn atanh(x: f64) -> f64 {
    0.5 * (x.ln_1p() - (-x).ln_1p())
}

fn logaddexp(a: f64, b: f64) -> f64 {
    if a == b {
        return a + LN_2;
    }
    let t = a - b;
    if t > 0.0 {
        a + (-t).exp().ln_1p()
    } else if t <= 0.0 {
        b + t.exp().ln_1p()
    } else {
        t
    }
}
fn logaddexp2(a: f64, b: f64) -> f64 {
    if a == b {
        return a + 1.0;
    }
    let t = a - b;
    if t > 0.0 {
        a + (-t).exp2().ln_1p() / LN_2
    } else if t <= 0.0 {
        b + t.exp2().ln_1p() / LN_2
    } else {
        t
    }
}
fn heaviside(x: f64, h: f64) -> f64 {
    if x.is_nan() {
        x
    } else if x == 0.0 {
        h
    } else if x < 0.0 {
        0.0
    } else {
        1.0
    }
}
fn fmax(a: f64, b: f64) -> f64 {
    a.max(b)
}
fn fmin(a: f64, b: f64) -> f64 {
    a.min(b)
}

struct Binary<T: FloatElement> {
    name: &'static str,
    f: fn(&DeviceArray<T>, &DeviceArray<T>) -> R<T>,
    s: fn(&DeviceArray<T>, T) -> R<T>,
    r: fn(f64, f64) -> f64,
    ulps: f64,
}

macro_rules! binary_table {
    ($t:ty) => {{
        let b = |name,
                 f: fn(&DeviceArray<$t>, &DeviceArray<$t>) -> R<$t>,
                 s: fn(&DeviceArray<$t>, $t) -> R<$t>,
                 r: fn(f64, f64) -> f64,
                 ulps| Binary::<$t> {
            name,
            f,
            s,
            r,
            ulps,
        };
        vec![
            b(
                "arctan2",
                |a, c| a.arctan2(c),
                |a, c| a.arctan2(c),
                f64::atan2,
                4.0,
            ),
            b(
                "hypot",
                |a, c| a.hypot(c),
                |a, c| a.hypot(c),
                f64::hypot,
                4.0,
            ),
            b(
                "fmod",
                |a, c| a.fmod(c),
                |a, c| a.fmod(c),
                |a, c| a % c,
                0.0,
            ),
            b(
                "copysign",
                |a, c| a.copysign(c),
                |a, c| a.copysign(c),
                f64::copysign,
                0.0,
            ),
            b("fmax", |a, c| a.fmax(c), |a, c| a.fmax(c), fmax, 0.0),
            b("fmin", |a, c| a.fmin(c), |a, c| a.fmin(c), fmin, 0.0),
            b(
                "logaddexp",
                |a, c| a.logaddexp(c),
                |a, c| a.logaddexp(c),
                logaddexp,
                4.0,
            ),
            b(
                "logaddexp2",
                |a, c| a.logaddexp2(c),
                |a, c| a.logaddexp2(c),
                logaddexp2,
                4.0,
            ),
            b(
                "heaviside",
                |a, c| a.heaviside(c),
                |a, c| a.heaviside(c),
                heaviside,
                0.0,
            ),
        ]
    }};
}

/// Each op with a broadcast column operand, a scalar operand, and the special values
/// against each other.
fn float_binary<T: FloatElement + TElem>(
    dev: &Device,
    rng: &mut Rng,
    ops: Vec<Binary<T>>,
) -> TResult {
    let lowp = eps::<T>() > 1e-4;
    let (rows, cols) = (33, 21);
    let rnd = |rng: &mut Rng, n: usize| -> Vec<f64> {
        (0..n)
            .map(|_| {
                let v = if rng.bit() {
                    rng.unit() * 200.0 - 100.0
                } else {
                    (rng.unit() * 8.0 - 4.0).round()
                };
                Element::to_f64(T::from_f64(v))
            })
            .collect()
    };
    for op in ops {
        let ulps = if op.ulps == 0.0 {
            0.0
        } else if lowp {
            1.5
        } else {
            op.ulps
        };
        let x = rnd(rng, rows * cols);
        let y = rnd(rng, rows);
        let a = DeviceArray::from_host(
            dev,
            &x.iter().map(|&v| T::from_f64(v)).collect::<Vec<_>>(),
            &[rows, cols],
        )?;
        let b = DeviceArray::from_host(
            dev,
            &y.iter().map(|&v| T::from_f64(v)).collect::<Vec<_>>(),
            &[rows, 1],
        )?;
        let got = (op.f)(&a, &b)?.to_host()?;
        let want: Vec<f64> = (0..rows * cols)
            .map(|i| Element::to_f64(T::from_f64((op.r)(x[i], y[i / cols]))))
            .collect();
        check_f(op.name, &x, &got, &want, ulps, 0.0)?;
        let s = T::from_f64(y[0]);
        let got = (op.s)(&a, s)?.to_host()?;
        let want: Vec<f64> = x
            .iter()
            .map(|&v| Element::to_f64(T::from_f64((op.r)(v, y[0]))))
            .collect();
        check_f(op.name, &x, &got, &want, ulps, 0.0)?;
        let sv = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 0.0, -0.0, 1.5];
        let (mut sx, mut sy) = (Vec::new(), Vec::new());
        for &p in &sv {
            for &q in &sv {
                sx.push(p);
                sy.push(q);
            }
        }
        let up = |v: &[f64]| {
            DeviceArray::from_slice(dev, &v.iter().map(|&e| T::from_f64(e)).collect::<Vec<_>>())
        };
        let got = (op.f)(&up(&sx)?, &up(&sy)?)?.to_host()?;
        let want: Vec<f64> = sx
            .iter()
            .zip(&sy)
            .map(|(&p, &q)| Element::to_f64(T::from_f64((op.r)(p, q))))
            .collect();
        check_f(op.name, &sx, &got, &want, ulps.max(1.0), 1.0)?;
        let e = (op.f)(
            &DeviceArray::<T>::zeros(dev, &[0])?,
            &b.reshape(&[-1])?.slice(cuarray::s![..1])?,
        )?;
        ensure!(
            e.shape() == [0],
            "{}: empty result shape {:?}",
            op.name,
            e.shape()
        );
    }
    Ok(())
}

fn nextafter_ldexp_nan_to_num_isclose(dev: &Device, rng: &mut Rng) -> TResult {
    // nextafter in each type's own bits.
    let a = DeviceArray::from_slice(dev, &[1.0f32, 1.0, 0.0, 0.0, f32::NAN, 2.0])?;
    let b = DeviceArray::from_slice(dev, &[2.0f32, 0.0, 1.0, -1.0, 1.0, 2.0])?;
    let got = a.nextafter(&b)?.to_host()?;
    let want = [
        f32::from_bits(1.0f32.to_bits() + 1),
        f32::from_bits(1.0f32.to_bits() - 1),
        f32::from_bits(1),
        -f32::from_bits(1),
        f32::NAN,
        2.0,
    ];
    check_eq("nextafter", &got, &want)?;
    let h = DeviceArray::from_slice(dev, &[half::f16::ONE, half::f16::ZERO])?;
    let got = h.nextafter(half::f16::from_f32(-3.0))?.to_host()?;
    let want = [half::f16::from_bits(0x3bff), half::f16::from_bits(0x8001)];
    check_eq("nextafter", &got, &want)?;
    let g = DeviceArray::from_slice(dev, &[half::bf16::ONE])?;
    let got = g.nextafter(half::bf16::from_f32(2.0))?.to_host()?;
    check_eq("nextafter", &got, &[half::bf16::from_bits(0x3f81)])?;
    // ldexp with a broadcast i32 array and a scalar.
    let x: Vec<f64> = (0..15).map(|_| rng.unit() * 10.0 - 5.0).collect();
    let a = DeviceArray::from_host(dev, &x, &[5, 3])?;
    let e = DeviceArray::from_slice(dev, &[-1100i32, 3, 1030])?;
    let got = a.ldexp(&e)?.to_host()?;
    let want: Vec<f64> = (0..15)
        .map(|i| x[i] * 2f64.powi([-1100, 3, 1030][i % 3]))
        .collect();
    check_f("ldexp", &x, &got, &want, 0.0, 0.0)?;
    let got = a.ldexp(-2)?.to_host()?;
    let want: Vec<f64> = x.iter().map(|v| v / 4.0).collect();
    check_f("ldexp", &x, &got, &want, 0.0, 0.0)?;
    // nan_to_num.
    let a = DeviceArray::from_slice(
        dev,
        &[f32::NAN, f32::INFINITY, f32::NEG_INFINITY, -0.0, 2.5],
    )?;
    check_eq(
        "nan_to_num",
        &a.nan_to_num(0.0, None, None)?.to_host()?,
        &[0.0, f32::MAX, f32::MIN, -0.0, 2.5],
    )?;
    check_eq(
        "nan_to_num",
        &a.nan_to_num(-1.0, Some(9.0), Some(-9.0))?.to_host()?,
        &[-1.0, 9.0, -9.0, -0.0, 2.5],
    )?;
    let h = DeviceArray::from_slice(dev, &[half::f16::INFINITY])?;
    check_eq(
        "nan_to_num",
        &h.nan_to_num(half::f16::ZERO, None, None)?.to_host()?,
        &[half::f16::MAX],
    )?;
    // isclose, NumPy's formula and infinities, broadcast.
    let inf = f64::INFINITY;
    let a = DeviceArray::from_slice(
        dev,
        &[1.0, 1.0 + 1e-6, 1.1, inf, inf, -inf, f64::NAN, 0.0, 1e-9],
    )?;
    let b = DeviceArray::from_slice(dev, &[1.0, 1.0, 1.0, inf, -inf, 1.0, f64::NAN, 1e-9, 0.0])?;
    let got = cuarray::isclose(&a, &b, 1e-5, 1e-8, false)?.to_host()?;
    let want = vec![true, true, false, true, false, false, false, true, true];
    ensure!(got == want, "isclose: got {got:?}, expected {want:?}");
    let got = cuarray::isclose(&a, &b, 1e-5, 1e-8, true)?.to_host()?;
    ensure!(got[6], "isclose with equal_nan: NaN and NaN not close");
    let got = cuarray::isclose(&a.reshape(&[9, 1])?, 1.0, 0.0, 0.0, false)?;
    ensure!(
        got.shape() == [9, 1],
        "isclose with a scalar: shape {:?}",
        got.shape()
    );
    Ok(())
}

/// Integer ops against i128 references, shifts from -3 to past the bit width.
fn int_ops<T: IntElement + TElem>(dev: &Device, rng: &mut Rng) -> TResult {
    let (bits, signed) = T::INT.expect("an integer type");
    let n = 301;
    let xa: Vec<T> = rng.vec(n);
    let xb: Vec<T> = rng.vec(n);
    let a = DeviceArray::from_slice(dev, &xa)?;
    let b = DeviceArray::from_slice(dev, &xb)?;
    let iv = |v: T| match v.val() {
        Val::I(i) => i,
        _ => unreachable!(),
    };
    let wrap = |v: i128| T::from_val(Val::I(v));
    let check = |what: &str, got: Vec<T>, want: Vec<T>| check_eq(what, &got, &want);
    check(
        "bitwise_and",
        a.bitwise_and(&b)?.to_host()?,
        (0..n).map(|i| wrap(iv(xa[i]) & iv(xb[i]))).collect(),
    )?;
    check(
        "|",
        (&a | &b)?.to_host()?,
        (0..n).map(|i| wrap(iv(xa[i]) | iv(xb[i]))).collect(),
    )?;
    check(
        "^",
        (&a ^ &b)?.to_host()?,
        (0..n).map(|i| wrap(iv(xa[i]) ^ iv(xb[i]))).collect(),
    )?;
    check(
        "& scalar",
        (&a & xb[0])?.to_host()?,
        (0..n).map(|i| wrap(iv(xa[i]) & iv(xb[0]))).collect(),
    )?;
    check(
        "!",
        (!&a)?.to_host()?,
        (0..n).map(|i| wrap(!iv(xa[i]))).collect(),
    )?;
    let count = a.bitwise_count()?.to_host()?;
    let want: Vec<u8> = xa
        .iter()
        .map(|&v| iv(v).unsigned_abs().count_ones() as u8)
        .collect();
    ensure!(
        count == want,
        "bitwise_count ({}): got {count:?}, expected {want:?}",
        T::DTYPE
    );
    // Shifts: amounts -3..bits+3 (negative only for signed types) against every value.
    let lo = if signed { -3 } else { 0 };
    let amounts: Vec<i128> = (lo..bits as i128 + 3).collect();
    let (mut sa, mut sb) = (Vec::new(), Vec::new());
    for &v in xa.iter().take(40) {
        for &k in &amounts {
            sa.push(v);
            sb.push(wrap(k));
        }
    }
    let (da, db) = (
        DeviceArray::from_slice(dev, &sa)?,
        DeviceArray::from_slice(dev, &sb)?,
    );
    let m = sa.len();
    let lshift = |v: i128, k: i128| {
        if k < 0 || k >= bits as i128 {
            0
        } else {
            v << k
        }
    };
    let rshift = |v: i128, k: i128| {
        if k < 0 || k >= bits as i128 {
            if v < 0 {
                -1
            } else {
                0
            }
        } else {
            v >> k
        }
    };
    check(
        "<<",
        (&da << &db)?.to_host()?,
        (0..m).map(|i| wrap(lshift(iv(sa[i]), iv(sb[i])))).collect(),
    )?;
    check(
        ">>",
        (&da >> &db)?.to_host()?,
        (0..m).map(|i| wrap(rshift(iv(sa[i]), iv(sb[i])))).collect(),
    )?;
    check(
        "left_shift",
        da.left_shift(wrap(bits as i128))?.to_host()?,
        vec![wrap(0); m],
    )?;
    check(
        "right_shift",
        da.right_shift(wrap(1))?.to_host()?,
        (0..m).map(|i| wrap(iv(sa[i]) >> 1)).collect(),
    )?;
    // gcd and lcm of small values (NumPy's: magnitudes, 0 with 0).
    let sm: Vec<T> = (0..n)
        .map(|_| wrap(rng.int(if signed { -60 } else { 0 }, 60) as i128))
        .collect();
    let sn: Vec<T> = (0..n)
        .map(|_| wrap(rng.int(if signed { -60 } else { 0 }, 60) as i128))
        .collect();
    let (dm, dn) = (
        DeviceArray::from_slice(dev, &sm)?,
        DeviceArray::from_slice(dev, &sn)?,
    );
    let gcd = |mut x: i128, mut y: i128| {
        x = x.abs();
        y = y.abs();
        while y != 0 {
            (x, y) = (y, x % y);
        }
        x
    };
    check(
        "gcd",
        dm.gcd(&dn)?.to_host()?,
        (0..n).map(|i| wrap(gcd(iv(sm[i]), iv(sn[i])))).collect(),
    )?;
    let lcm = |x: i128, y: i128| {
        let g = gcd(x, y);
        if g == 0 {
            0
        } else {
            (x / g * y).abs()
        }
    };
    check(
        "lcm",
        dm.lcm(&dn)?.to_host()?,
        (0..n).map(|i| wrap(lcm(iv(sm[i]), iv(sn[i])))).collect(),
    )?;
    // Broadcast operand and in-place operators.
    let col = DeviceArray::from_host(dev, &xb[..7], &[7, 1])?;
    let grid = DeviceArray::from_host(dev, &xa[..21], &[1, 21])?;
    let got = (&grid & &col)?.to_host()?;
    check(
        "& broadcast",
        got,
        (0..147)
            .map(|i| wrap(iv(xa[i % 21]) & iv(xb[i / 21])))
            .collect(),
    )?;
    let mut w = a.copy()?;
    w ^= &b;
    w ^= &b;
    check("^=", w.to_host()?, xa.clone())?;
    Ok(())
}

fn bool_ops(dev: &Device, rng: &mut Rng) -> TResult {
    let n = 77;
    let x: Vec<bool> = (0..n).map(|_| rng.bit()).collect();
    let y: Vec<bool> = (0..n).map(|_| rng.bit()).collect();
    let (a, b) = (
        DeviceArray::from_slice(dev, &x)?,
        DeviceArray::from_slice(dev, &y)?,
    );
    let want = |f: fn(bool, bool) -> bool| -> Vec<bool> { (0..n).map(|i| f(x[i], y[i])).collect() };
    ensure!((&a & &b)?.to_host()? == want(|p, q| p & q), "bool &");
    ensure!((&a | &b)?.to_host()? == want(|p, q| p | q), "bool |");
    ensure!((&a ^ &b)?.to_host()? == want(|p, q| p ^ q), "bool ^");
    ensure!(
        (!&a)?.to_host()? == x.iter().map(|p| !p).collect::<Vec<_>>(),
        "bool !"
    );
    ensure!((&a & true)?.to_host()? == x, "bool & true");
    ensure!(
        (&a ^ true)?.to_host()? == x.iter().map(|p| !p).collect::<Vec<_>>(),
        "bool ^ true"
    );
    let t = a.reshape(&[7, 11])?;
    let c = DeviceArray::from_host(dev, &y[..11], &[1, 11])?;
    let got = (t.eq(true) | &c)?.to_host()?;
    let w: Vec<bool> = (0..n).map(|i| x[i] | y[i % 11]).collect();
    ensure!(got == w, "bool | broadcast (a Result on the left)");
    Ok(())
}

/// Fused expressions render the same device functions as the methods.
fn fused(dev: &Device, rng: &mut Rng) -> TResult {
    let x: Vec<f32> = (0..101).map(|_| rng.unit() as f32 * 4.0 - 2.0).collect();
    let a = DeviceArray::from_slice(dev, &x)?;
    let f = cuarray::fuse(|x: cuarray::Expr<f32>| x.arctan2(1.5).hypot(x).cbrt().gelu());
    let want = a.arctan2(1.5)?.hypot(&a)?.cbrt()?.gelu()?.to_host()?;
    check_eq("fused catalogue", &f.call(&a)?.to_host()?, &want)?;
    let i: Vec<i32> = (0..101).map(|_| rng.int(-1000, 1000) as i32).collect();
    let d = DeviceArray::from_slice(dev, &i)?;
    let g = cuarray::fuse(|x: cuarray::Expr<i32>| ((x << 3) ^ x).gcd(12) | !x);
    let want = ((d.left_shift(3)?.bitwise_xor(&d)?).gcd(12)? | (!&d)?)?.to_host()?;
    check_eq("fused bit ops", &g.call(&d)?.to_host()?, &want)?;
    Ok(())
}

macro_rules! float_trials {
    ($out:ident, $($t:ty),*) => {$(
        add_gpu($out, format!("catalogue/unary/{}/all_ops", dname::<$t>()), |dev, rng| float_unary::<$t>(dev, rng, unary_table!($t)));
        add_gpu($out, format!("catalogue/binary/{}/all_ops", dname::<$t>()), |dev, rng| float_binary::<$t>(dev, rng, binary_table!($t)));
        add_gpu($out, format!("catalogue/signbit/{}/special", dname::<$t>()), signbit::<$t>);
    )*};
}

pub fn trials(out: &mut Vec<Trial>) {
    float_trials!(out, f32, f64, half::f16, half::bf16);
    macro_rules! ints {
        ($($t:ty),*) => {$(
            add_gpu(out, format!("catalogue/int/{}/bits_shifts_gcd", dname::<$t>()), int_ops::<$t>);
        )*};
    }
    ints!(i8, i16, i32, i64, u8, u16, u32, u64);
    add_gpu(out, "catalogue/bool/f/operators".into(), bool_ops);
    add_gpu(
        out,
        "catalogue/misc/f64/nextafter_ldexp_nan_to_num_isclose".into(),
        nextafter_ldexp_nan_to_num_isclose,
    );
    add_gpu(out, "catalogue/fused/f32/same_functions".into(), fused);
}
