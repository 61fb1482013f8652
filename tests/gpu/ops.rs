//! The rest of the elementwise catalogue against host references: `%`, pow, maximum,
//! minimum, comparisons, logical ops, unary ops, `where_`, `clip`, and the in-place forms
//! (including NumPy's copy-on-overlap rule).

use crate::arith::Num;
use crate::common::{
    add_gpu, arith, check_array, check_eq, dname, each_dtype, each_num_dtype, ensure, HostNd, Op,
    Rng, TElem, TResult, Val,
};
use cuarray::BinaryOp;
use cuarray::{s, where_, DType, Device, DeviceArray, Error, FloatElement, NumElement};
use libtest_mimic::Trial;

// ---- host references ---------------------------------------------------------------------

/// Python's `%` (sign of the divisor), as the kernels compute it.
pub(crate) fn rem_ref<T: TElem>(a: T, b: T) -> T {
    match (a.val(), b.val()) {
        (Val::I(x), Val::I(y)) => {
            if y == 0 {
                return T::from_val(Val::I(0));
            }
            let mut r = x % y;
            if r != 0 && ((r < 0) != (y < 0)) {
                r += y;
            }
            T::from_val(Val::I(r))
        }
        (Val::F(x), Val::F(y)) => {
            let r = if T::DTYPE == DType::F64 {
                let mut r = x % y;
                if r != 0.0 && ((r < 0.0) != (y < 0.0)) {
                    r += y;
                }
                r
            } else {
                let (x, y) = (x as f32, y as f32);
                let mut r = x % y;
                if r != 0.0 && ((r < 0.0) != (y < 0.0)) {
                    r += y;
                }
                r as f64
            };
            T::from_val(Val::F(r))
        }
        _ => unreachable!(),
    }
}

/// Integer pow by squaring in wrapping u64 arithmetic; 0 for negative exponents except
/// bases 1 and -1. Floats: `powf` in f32 (f16, bf16, f32) or f64.
pub(crate) fn pow_ref<T: TElem>(a: T, b: T) -> T {
    match (a.val(), b.val()) {
        (Val::I(x), Val::I(e)) => {
            if e < 0 {
                let r = match x {
                    1 => 1,
                    -1 => {
                        if e & 1 == 1 {
                            -1
                        } else {
                            1
                        }
                    }
                    _ => 0,
                };
                return T::from_val(Val::I(r));
            }
            let mut base = x as i64 as u64;
            let mut k = e as u64;
            let mut r = 1u64;
            while k != 0 {
                if k & 1 == 1 {
                    r = r.wrapping_mul(base);
                }
                base = base.wrapping_mul(base);
                k >>= 1;
            }
            T::from_val(Val::I(r as i128))
        }
        (Val::F(x), Val::F(y)) => {
            let r = if T::DTYPE == DType::F64 {
                x.powf(y)
            } else {
                (x as f32).powf(y as f32) as f64
            };
            T::from_val(Val::F(r))
        }
        _ => unreachable!(),
    }
}

/// NaN-propagating maximum (`max == true`) or minimum, computed as the kernel does.
pub(crate) fn maxmin_ref<T: TElem>(a: T, b: T, max: bool) -> T {
    match (a.val(), b.val()) {
        (Val::F(x), Val::F(y)) => {
            if x.is_nan() {
                a
            } else if y.is_nan() {
                b
            } else if (max && x > y) || (!max && x < y) {
                a
            } else {
                b
            }
        }
        (Val::I(x), Val::I(y)) => {
            if (max && x > y) || (!max && x < y) {
                a
            } else {
                b
            }
        }
        _ => unreachable!(),
    }
}

fn cmp_ref<T: TElem>(op: BinaryOp, a: T, b: T) -> bool {
    let (x, y) = match (a.val(), b.val()) {
        (Val::F(x), Val::F(y)) => (x, y),
        (Val::I(x), Val::I(y)) => (x as f64, y as f64),
        (Val::B(x), Val::B(y)) => (x as u8 as f64, y as u8 as f64),
        _ => unreachable!(),
    };
    if let (Val::I(p), Val::I(q)) = (a.val(), b.val()) {
        // Exact for 64-bit integers.
        return match op {
            BinaryOp::Eq => p == q,
            BinaryOp::Ne => p != q,
            BinaryOp::Lt => p < q,
            BinaryOp::Le => p <= q,
            BinaryOp::Gt => p > q,
            BinaryOp::Ge => p >= q,
            _ => unreachable!(),
        };
    }
    match op {
        BinaryOp::Eq => x == y,
        BinaryOp::Ne => x != y,
        BinaryOp::Lt => x < y,
        BinaryOp::Le => x <= y,
        BinaryOp::Gt => x > y,
        BinaryOp::Ge => x >= y,
        _ => unreachable!(),
    }
}

/// Random data with NaN, ±inf, ±0 and halves mixed in for float types.
fn special<T: TElem>(rng: &mut Rng, n: usize) -> Vec<T> {
    (0..n)
        .map(|_| {
            if T::DTYPE.is_float() {
                match rng.below(12) {
                    0 => T::from_val(Val::F(f64::NAN)),
                    1 => T::from_val(Val::F(if rng.bit() {
                        f64::INFINITY
                    } else {
                        f64::NEG_INFINITY
                    })),
                    2 => T::from_val(Val::F(if rng.bit() { 0.0 } else { -0.0 })),
                    3 => T::from_val(Val::F(rng.int(-8, 8) as f64 + 0.5)),
                    _ => T::random(rng),
                }
            } else {
                T::random(rng)
            }
        })
        .collect()
}

// ---- binary ops beyond + - * / -----------------------------------------------------------

fn rem_pow_max_min<T: Num>(dev: &Device, rng: &mut Rng) -> TResult {
    let ha = HostNd::new(special::<T>(rng, 37), &[37, 1]);
    let hb = HostNd::new(special::<T>(rng, 53), &[53]);
    let (a, b) = (ha.upload(dev)?, hb.upload(dev)?);
    let bc = |f: &dyn Fn(T, T) -> T| {
        let (x, y) = (ha.broadcast_to(&[37, 53]), hb.broadcast_to(&[37, 53]));
        HostNd::new(
            x.data.iter().zip(&y.data).map(|(&p, &q)| f(p, q)).collect(),
            &[37, 53],
        )
    };
    check_array("a % b", &(&a % &b)?, &bc(&rem_ref), 0.0)?;
    check_array("a.rem(b)", &a.rem(&b)?, &bc(&rem_ref), 0.0)?;
    check_array(
        "maximum",
        &a.maximum(&b)?,
        &bc(&|p, q| maxmin_ref(p, q, true)),
        0.0,
    )?;
    check_array(
        "minimum",
        &a.minimum(&b)?,
        &bc(&|p, q| maxmin_ref(p, q, false)),
        0.0,
    )?;
    let s = T::random(rng);
    let want = ha.map(|x| rem_ref(x, s));
    check_array("a % s", &(&a % s)?, &want, 0.0)?;
    check_array("s % a", &(s % &a)?, &ha.map(|x| rem_ref(s, x)), 0.0)?;
    check_array(
        "scalar_op(Maximum)",
        &a.scalar_op(BinaryOp::Maximum, s)?,
        &ha.map(|x| maxmin_ref(x, s, true)),
        0.0,
    )?;
    // pow: bases and exponents where results are defined and finite in every dtype.
    let n = 1000;
    let (base, expo): (Vec<T>, Vec<T>) = (0..n)
        .map(|_| {
            if T::DTYPE.is_float() {
                let b = if rng.below(4) == 0 {
                    -(rng.int(1, 4) as f64)
                } else {
                    rng.range(0.1, 6.0)
                };
                let e = if b < 0.0 {
                    rng.int(-3, 3) as f64
                } else {
                    rng.range(-3.0, 3.0)
                };
                (T::from_val(Val::F(b)), T::from_val(Val::F(e)))
            } else {
                (T::random(rng), T::from_val(Val::I(rng.int(-3, 40) as i128)))
            }
        })
        .unzip();
    let (pb, pe) = (
        DeviceArray::from_slice(dev, &base)?,
        DeviceArray::from_slice(dev, &expo)?,
    );
    let want: Vec<T> = base
        .iter()
        .zip(&expo)
        .map(|(&x, &e)| pow_ref(x, e))
        .collect();
    let tol = match T::DTYPE {
        DType::F32 => 1e-5,
        DType::F64 => 1e-13,
        _ => T::REL_TOL,
    };
    crate::common::check_rel("pow", &pb.pow(&pe)?.to_host()?, &want, tol)?;
    let e = T::from_val(Val::I(3));
    let want: Vec<T> = base.iter().map(|&x| pow_ref(x, e)).collect();
    crate::common::check_rel("pow_scalar(3)", &pb.pow_scalar(e)?.to_host()?, &want, tol)?;
    Ok(())
}

// ---- comparisons and logical ops ----------------------------------------------------------

fn compare<T: TElem + NumElement>(dev: &Device, rng: &mut Rng) -> TResult {
    // A third of the pairs equal, so that every comparison sees every outcome; `b` is a
    // transposed view (tiles).
    let ha = HostNd::new(special::<T>(rng, 45 * 61), &[45, 61]);
    let hb = HostNd::new(
        (0..45 * 61)
            .map(|k| {
                if k % 3 == 0 {
                    ha.data[k]
                } else {
                    special::<T>(rng, 1)[0]
                }
            })
            .collect(),
        &[45, 61],
    );
    let a = ha.upload(dev)?;
    let b = hb.t().upload(dev)?.t();
    for (op, got) in [
        (BinaryOp::Eq, a.eq(&b)?),
        (BinaryOp::Ne, a.ne(&b)?),
        (BinaryOp::Lt, a.lt(&b)?),
        (BinaryOp::Le, a.le(&b)?),
        (BinaryOp::Gt, a.gt(&b)?),
        (BinaryOp::Ge, a.ge(&b)?),
    ] {
        let want = HostNd::new(
            ha.data
                .iter()
                .zip(&hb.data)
                .map(|(&x, &y)| cmp_ref(op, x, y))
                .collect(),
            &[45, 61],
        );
        check_array(&format!("{} elementwise", op.name()), &got, &want, 0.0)?;
    }
    // Broadcast against a transposed column.
    let hc = HostNd::new(special::<T>(rng, 45), &[1, 45]);
    let c = hc.upload(dev)?.t();
    let hc = hc.t().broadcast_to(&[45, 61]);
    let want = HostNd::new(
        ha.data
            .iter()
            .zip(&hc.data)
            .map(|(&x, &y)| cmp_ref(BinaryOp::Lt, x, y))
            .collect(),
        &[45, 61],
    );
    check_array("lt against a broadcast column", &a.lt(&c)?, &want, 0.0)?;
    Ok(())
}

fn logical(dev: &Device, rng: &mut Rng) -> TResult {
    let ha = HostNd::<bool>::random(rng, &[33, 70]);
    let hb = HostNd::<bool>::random(rng, &[70]);
    let (a, b) = (ha.upload(dev)?, hb.upload(dev)?);
    let hbb = hb.broadcast_to(&[33, 70]);
    let zip = |f: fn(bool, bool) -> bool| {
        HostNd::new(
            ha.data
                .iter()
                .zip(&hbb.data)
                .map(|(&x, &y)| f(x, y))
                .collect(),
            &[33, 70],
        )
    };
    check_array("logical_and", &a.logical_and(&b)?, &zip(|x, y| x && y), 0.0)?;
    check_array("logical_or", &a.logical_or(&b)?, &zip(|x, y| x || y), 0.0)?;
    check_array("logical_xor", &a.logical_xor(&b)?, &zip(|x, y| x != y), 0.0)?;
    check_array(
        "logical_not of t()",
        &a.t().logical_not()?,
        &ha.t().map(|x| !x),
        0.0,
    )?;
    check_array("eq on bool", &a.eq(&b)?, &zip(|x, y| x == y), 0.0)?;
    check_array("ne on bool", &a.ne(&b)?, &zip(|x, y| x != y), 0.0)?;
    Ok(())
}

// ---- unary ops ------------------------------------------------------------------------------

fn unary_numeric<T: TElem + NumElement>(dev: &Device, rng: &mut Rng) -> TResult {
    let h = HostNd::new(special::<T>(rng, 29 * 41), &[29, 41]);
    let a = h.upload(dev)?;
    let v = |x: T| x.val();
    let neg = |x: T| match v(x) {
        Val::I(i) => T::from_val(Val::I(-i)),
        Val::F(f) => T::from_val(Val::F(-f)),
        _ => unreachable!(),
    };
    let abs = |x: T| match v(x) {
        Val::I(i) => T::from_val(Val::I(i.abs())),
        Val::F(f) => T::from_val(Val::F(f.abs())),
        _ => unreachable!(),
    };
    let sign = |x: T| match v(x) {
        Val::I(i) => T::from_val(Val::I(i.signum())),
        Val::F(f) if f.is_nan() => x,
        Val::F(f) => T::from_val(Val::F(if f > 0.0 {
            1.0
        } else if f < 0.0 {
            -1.0
        } else {
            0.0
        })),
        _ => unreachable!(),
    };
    let relu = |x: T| match v(x) {
        Val::I(i) => T::from_val(Val::I(i.max(0))),
        Val::F(f) if f.is_nan() => x,
        Val::F(f) => T::from_val(Val::F(if f > 0.0 { f } else { 0.0 })),
        _ => unreachable!(),
    };
    check_array("neg", &a.neg()?, &h.map(neg), 0.0)?;
    check_array("-&a of t()", &(-&a.t())?, &h.t().map(neg), 0.0)?;
    check_array("abs", &a.abs()?, &h.map(abs), 0.0)?;
    check_array("sign", &a.sign()?, &h.map(sign), 0.0)?;
    check_array(
        "square",
        &a.square()?,
        &h.map(|x| arith(Op::Mul, x, x)),
        0.0,
    )?;
    check_array("relu of t()", &a.t().relu()?, &h.t().map(relu), 0.0)?;
    Ok(())
}

/// `got` against `want` (f64 references) within `rtol * |want| + atol`; NaN matches NaN.
fn check_approx<T: TElem>(
    what: &str,
    got: &[T],
    want: &[f64],
    inputs: &[T],
    rtol: f64,
    atol: f64,
) -> TResult {
    ensure!(
        got.len() == want.len(),
        "{what}: {} values, expected {}",
        got.len(),
        want.len()
    );
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        let g = g.to_f64();
        let ok = if w.is_nan() || g.is_nan() {
            w.is_nan() && g.is_nan()
        } else if w.is_infinite() || g.is_infinite() {
            g == w || (g - w).abs() <= rtol * w.abs().min(g.abs()) * 4.0
        } else {
            (g - w).abs() <= atol + rtol * w.abs()
        };
        ensure!(
            ok,
            "{what} ({}): index {i} (input {}): got {g}, expected {w}",
            T::DTYPE,
            inputs[i]
        );
    }
    Ok(())
}

fn unary_float<T: TElem + FloatElement>(dev: &Device, rng: &mut Rng) -> TResult {
    let (rtol, atol) = match T::DTYPE {
        DType::F64 => (1e-13, 1e-15),
        DType::F32 => (1e-5, 1e-6),
        DType::F16 => (2e-3, 1e-4),
        _ => (1e-2, 1e-3),
    };
    type F = fn(f64) -> f64;
    let sigmoid: F = |x| 1.0 / (1.0 + (-x).exp());
    let cases: [(&str, F, f64, f64); 13] = [
        ("exp", f64::exp, -8.0, 8.0),
        ("log", f64::ln, -0.5, 50.0),
        ("log1p", f64::ln_1p, -0.9, 5.0),
        ("expm1", f64::exp_m1, -3.0, 3.0),
        ("sqrt", f64::sqrt, -1.0, 100.0),
        ("sin", f64::sin, -10.0, 10.0),
        ("cos", f64::cos, -10.0, 10.0),
        ("tan", f64::tan, -1.4, 1.4),
        ("tanh", f64::tanh, -6.0, 6.0),
        ("sigmoid", sigmoid, -20.0, 20.0),
        ("floor", f64::floor, -50.0, 50.0),
        ("ceil", f64::ceil, -50.0, 50.0),
        ("round", f64::round_ties_even, -50.0, 50.0),
    ];
    for (name, f, lo, hi) in cases {
        let mut xs: Vec<T> = (0..2000)
            .map(|k| match k % 10 {
                // Exact halves for the rounding functions, tiny values for expm1/log1p.
                0 => T::from_val(Val::F((rng.int(-40, 40) as f64) * 0.5)),
                1 => T::from_val(Val::F(rng.range(-1.0, 1.0) * 1e-3)),
                _ => T::from_val(Val::F(rng.range(lo, hi))),
            })
            .collect();
        xs.extend([T::from_val(Val::F(f64::NAN)), T::from_val(Val::F(0.0))]);
        let h = HostNd::new(xs.clone(), &[xs.len()]);
        let a = h.upload(dev)?;
        let got = match name {
            "exp" => a.exp()?,
            "log" => a.log()?,
            "log1p" => a.log1p()?,
            "expm1" => a.expm1()?,
            "sqrt" => a.sqrt()?,
            "sin" => a.sin()?,
            "cos" => a.cos()?,
            "tan" => a.tan()?,
            "tanh" => a.tanh()?,
            "sigmoid" => a.sigmoid()?,
            "floor" => a.floor()?,
            "ceil" => a.ceil()?,
            _ => a.round()?,
        };
        // Computed in f32 for f16/bf16 (then rounded once); exact for the rounding ops.
        let want: Vec<f64> = xs
            .iter()
            .map(|&x| T::from_val(Val::F(f(x.to_f64()))).to_f64())
            .collect();
        let exact = matches!(name, "floor" | "ceil" | "round");
        let (rt, at) = if exact { (0.0, 0.0) } else { (rtol, atol) };
        check_approx(name, &got.to_host()?, &want, &xs, rt, at)?;
    }
    // Predicates on special values.
    let xs = special::<T>(rng, 500);
    let a = DeviceArray::from_slice(dev, &xs)?;
    let f = |x: &T| cuarray::Element::to_f64(*x);
    check_eq(
        "isnan",
        &a.isnan()?.to_host()?,
        &xs.iter().map(|x| f(x).is_nan()).collect::<Vec<_>>(),
    )?;
    check_eq(
        "isinf",
        &a.isinf()?.to_host()?,
        &xs.iter().map(|x| f(x).is_infinite()).collect::<Vec<_>>(),
    )?;
    check_eq(
        "isfinite",
        &a.isfinite()?.to_host()?,
        &xs.iter().map(|x| f(x).is_finite()).collect::<Vec<_>>(),
    )?;
    Ok(())
}

// ---- where_ and clip --------------------------------------------------------------------------

fn where_clip<T: TElem>(dev: &Device, rng: &mut Rng) -> TResult {
    let hc = HostNd::<bool>::random(rng, &[37, 1]);
    let ha = HostNd::<T>::random(rng, &[53]);
    let hb = HostNd::<T>::random(rng, &[53, 37]);
    let (c, a, b) = (hc.upload(dev)?, ha.upload(dev)?, hb.upload(dev)?.t());
    let shape = [37, 53];
    let (cc, aa, bb) = (hc.broadcast_to(&shape), ha.broadcast_to(&shape), hb.t());
    let want = HostNd::new(
        (0..37 * 53)
            .map(|k| if cc.data[k] { aa.data[k] } else { bb.data[k] })
            .collect(),
        &shape,
    );
    check_array("where_(c, a, b.t())", &where_(&c, &a, &b)?, &want, 0.0)?;
    let zero = DeviceArray::<T>::zeros(dev, &[])?;
    let want = HostNd::new(
        (0..37 * 53)
            .map(|k| if cc.data[k] { aa.data[k] } else { T::ZERO })
            .collect(),
        &shape,
    );
    check_array(
        "where_(c, a, 0-d zero)",
        &where_(&c, &a, &zero)?,
        &want,
        0.0,
    )?;
    let bad = DeviceArray::<T>::zeros(dev, &[4])?;
    ensure!(
        matches!(where_(&c, &a, &bad), Err(Error::Broadcast { .. })),
        "where_ with (4,) must fail"
    );
    Ok(())
}

fn clip<T: TElem + NumElement>(dev: &Device, rng: &mut Rng) -> TResult {
    let xs = special::<T>(rng, 4099);
    let (mut lo, mut hi) = (T::random(rng), T::random(rng));
    if maxmin_ref(lo, hi, true) == lo {
        std::mem::swap(&mut lo, &mut hi);
    }
    if T::DTYPE.is_float() && (lo.to_f64().is_nan() || hi.to_f64().is_nan()) {
        lo = T::ZERO;
        hi = T::ONE;
    }
    let a = DeviceArray::from_slice(dev, &xs)?;
    let want: Vec<T> = xs
        .iter()
        .map(|&x| maxmin_ref(maxmin_ref(x, lo, true), hi, false))
        .collect();
    check_eq(
        &format!("clip({lo}, {hi})"),
        &a.clip(lo, hi)?.to_host()?,
        &want,
    )?;
    let r = a.slice(s![..;-7])?;
    let want: Vec<T> = want.iter().rev().step_by(7).copied().collect();
    check_eq(
        "clip of a reversed stepped view",
        &r.clip(lo, hi)?.to_host()?,
        &want,
    )
}

// ---- in-place ops -------------------------------------------------------------------------------

fn in_place<T: Num>(dev: &Device, rng: &mut Rng) -> TResult {
    type InPlace<T> = fn(&DeviceArray<T>, &DeviceArray<T>) -> cuarray::Result<()>;
    let ops: [(Op, InPlace<T>); 4] = [
        (Op::Add, |a, b| a.add_assign(b)),
        (Op::Sub, |a, b| a.sub_assign(b)),
        (Op::Mul, |a, b| a.mul_assign(b)),
        (Op::Div, |a, b| a.div_assign(b)),
    ];
    for (op, f) in ops {
        // A broadcast row into a contiguous array (flat or row-vectorized).
        let mut h = HostNd::<T>::random(rng, &[17, 64]);
        let row = HostNd::<T>::random(rng, &[64]);
        let a = h.upload(dev)?;
        f(&a, &row.upload(dev)?)?;
        h = crate::common::host_binary(op, &h, &row);
        check_array(
            &format!("{}_assign of a row", op.name()),
            &a,
            &h,
            T::REL_TOL,
        )?;
        // Through a stepped, reversed view: only those elements change.
        let src = HostNd::<T>::random(rng, &[9, 32]);
        f(&a.slice(s![..;2, ..;-2])?, &src.upload(dev)?)?;
        for i in 0..9 {
            for j in 0..32 {
                let k = (2 * i) * 64 + (63 - 2 * j);
                h.data[k] = arith(op, h.data[k], src.get(&[i, j]));
            }
        }
        check_array(
            &format!("{}_assign through s![..;2, ..;-2]", op.name()),
            &a,
            &h,
            T::REL_TOL,
        )?;
        // Overlap: a += a.t() reads a copy of the original, as NumPy does.
        let hs = HostNd::<T>::random(rng, &[65, 65]);
        let sq = hs.upload(dev)?;
        f(&sq, &sq.t())?;
        check_array(
            &format!("a {}= a.t()", op.name()),
            &sq,
            &crate::common::host_binary(op, &hs, &hs.t()),
            T::REL_TOL,
        )?;
        // Overlap, 1-D reversed: v[::-1] op= v.
        let hv = HostNd::<T>::random(rng, &[1001]);
        let v = hv.upload(dev)?;
        f(&v.slice(s![..;-1])?, &v)?;
        let want = HostNd::new(
            (0..1001)
                .map(|j| arith(op, hv.data[j], hv.data[1000 - j]))
                .collect(),
            &[1001],
        );
        check_array(&format!("v[::-1] {}= v", op.name()), &v, &want, T::REL_TOL)?;
        // a op= a: the same layout, no copy needed.
        let ha = HostNd::<T>::random(rng, &[4099]);
        let x = ha.upload(dev)?;
        f(&x, &x)?;
        check_array(
            &format!("a {}= a", op.name()),
            &x,
            &ha.map(|p| arith(op, p, p)),
            T::REL_TOL,
        )?;
    }
    let a = DeviceArray::<T>::zeros(dev, &[3])?;
    let b = DeviceArray::<T>::zeros(dev, &[2, 3])?;
    ensure!(
        matches!(a.add_assign(&b), Err(Error::Broadcast { .. })),
        "(3,) += (2,3) must fail"
    );
    Ok(())
}

/// In place into a transposed view: the output and the first input are column-major.
fn in_place_transposed<T: Num>(dev: &Device, rng: &mut Rng) -> TResult {
    let mut h = HostNd::<T>::random(rng, &[70, 131]);
    let a = h.upload(dev)?;
    let src = HostNd::<T>::random(rng, &[131, 70]);
    a.t().add_assign(&src.upload(dev)?)?;
    h = crate::common::host_binary(Op::Add, &h, &src.t());
    check_array("a.t() += b", &a, &h, T::REL_TOL)
}

/// In place into a broadcast view (stride 0): NumPy refuses ("output array is read-only");
/// here several threads would write one element.
fn in_place_broadcast_output<T: Num>(dev: &Device, rng: &mut Rng) -> TResult {
    let a = DeviceArray::<T>::from_slice(dev, &rng.vec::<T>(5))?;
    let b = DeviceArray::<T>::from_host(dev, &rng.vec::<T>(15), &[3, 5])?;
    let r = a.broadcast_to(&[3, 5])?.add_assign(&b);
    ensure!(
        r.is_err(),
        "add_assign into a broadcast view succeeded (racing writes)"
    );
    let r = a.broadcast_to(&[3, 5])?.assign(&b);
    ensure!(
        r.is_err(),
        "assign into a broadcast view succeeded (racing writes)"
    );
    Ok(())
}

// ---- registration --------------------------------------------------------------------------------

fn register_num<T: Num>(out: &mut Vec<Trial>) {
    let d = dname::<T>();
    add_gpu(
        out,
        format!("ops/rem_pow_maximum_minimum/{d}/broadcast"),
        rem_pow_max_min::<T>,
    );
    add_gpu(
        out,
        format!("ops/compare/{d}/eq_ne_lt_le_gt_ge"),
        compare::<T>,
    );
    add_gpu(
        out,
        format!("ops/unary/{d}/neg_abs_sign_square_relu"),
        unary_numeric::<T>,
    );
    add_gpu(out, format!("ops/clip/{d}/4099_and_reversed"), clip::<T>);
    add_gpu(
        out,
        format!("ops/in_place/{d}/add_sub_mul_div_assign_overlap"),
        in_place::<T>,
    );
    add_gpu(
        out,
        format!("ops/in_place/{d}/t_add_assign"),
        in_place_transposed::<T>,
    );
}

fn register_all<T: TElem>(out: &mut Vec<Trial>) {
    add_gpu(
        out,
        format!("ops/where/{}/broadcast_three_shapes", dname::<T>()),
        where_clip::<T>,
    );
}

fn register_float<T: TElem + FloatElement>(out: &mut Vec<Trial>) {
    add_gpu(
        out,
        format!("ops/float_unary/{}/math_rounding_predicates", dname::<T>()),
        unary_float::<T>,
    );
}

pub fn trials(out: &mut Vec<Trial>) {
    each_num_dtype!(register_num(out));
    each_dtype!(register_all(out));
    register_float::<f32>(out);
    register_float::<f64>(out);
    register_float::<half::f16>(out);
    register_float::<half::bf16>(out);
    add_gpu(out, "ops/logical/bool/and_or_xor_not_eq_ne".into(), logical);
    add_gpu(
        out,
        "ops/in_place/f32/broadcast_output_is_an_error".into(),
        in_place_broadcast_output::<f32>,
    );
}
