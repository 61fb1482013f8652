//! Complex arrays (`c64`, `c128`) against num-complex on the host, computed in f64 (or, for
//! `c128` values whose squares overflow, on operands scaled by powers of two, which is
//! exact): arithmetic with broadcasting and scalars, division by tiny and huge values,
//! NaN and infinite parts, `abs` of huge parts, `exp log sqrt`, parts and angle, strided
//! views, reductions, matmul and gemv through both paths, casts, printouts.

use crate::common::{add_gpu, ensure, Rng, TResult};
use cuarray::{Complex32, Complex64, ComplexElement, Device, DeviceArray, Element, GemmElement};
use libtest_mimic::Trial;

type C = Complex64;

/// The complex element types under test, with their conversions to the f64 reference.
trait Cx: ComplexElement + GemmElement {
    /// Relative error allowed for one rounded operation (a few ulps).
    const ULP: f64;
    fn to64(self) -> C;
    fn from64(z: C) -> Self;
}

impl Cx for Complex32 {
    const ULP: f64 = 1.2e-7;
    fn to64(self) -> C {
        C::new(self.re as f64, self.im as f64)
    }
    fn from64(z: C) -> Self {
        Complex32::new(z.re as f32, z.im as f32)
    }
}

impl Cx for Complex64 {
    const ULP: f64 = 2.3e-16;
    fn to64(self) -> C {
        self
    }
    fn from64(z: C) -> Self {
        z
    }
}

fn part_class(x: f64) -> u8 {
    if x.is_nan() {
        0
    } else if x.is_infinite() {
        if x > 0.0 {
            1
        } else {
            2
        }
    } else {
        3
    }
}

/// `got` within `ulps` units of the reference's magnitude of `want`, part by part, with
/// NaN and infinite parts where `want` has them.
fn close(got: C, want: C, ulps: f64, ulp: f64) -> bool {
    let (gr, gi, wr, wi) = (got.re, got.im, want.re, want.im);
    if part_class(gr) != part_class(wr) || part_class(gi) != part_class(wi) {
        return false;
    }
    let scale = want.norm().max(f64::MIN_POSITIVE);
    let ok = |g: f64, w: f64| {
        !w.is_finite() && (g == w || w.is_nan()) || (g - w).abs() <= ulps * ulp * scale
    };
    ok(gr, wr) && ok(gi, wi)
}

fn check<T: Cx>(what: &str, got: &[T], want: &[C], ulps: f64) -> TResult {
    ensure!(
        got.len() == want.len(),
        "{what}: {} values, expected {}",
        got.len(),
        want.len()
    );
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let g = g.to64();
        // The reference rounded to T first: what T can hold at best.
        let w_t = T::from64(*w).to64();
        ensure!(
            close(g, w_t, ulps, T::ULP),
            "{what} [{}]: element {i}: got {g}, expected {w} ({} at {ulps} ulps)",
            T::DTYPE,
            w_t
        );
    }
    Ok(())
}

fn check_real<R: Element>(what: &str, got: &[R], want: &[f64], rel: f64) -> TResult {
    ensure!(got.len() == want.len(), "{what}: length {}", got.len());
    // Subnormal results have a fixed absolute spacing: two of its steps.
    let tiny = if R::DTYPE == cuarray::DType::F32 {
        2.0 * 1.4e-45
    } else {
        2.0 * 4.95e-324
    };
    for (i, (g, &w)) in got.iter().zip(want).enumerate() {
        let g = g.to_f64();
        let ok = if w.is_nan() {
            g.is_nan()
        } else if w.is_infinite() {
            g == w
        } else {
            (g - w).abs() <= (rel * w.abs()).max(tiny)
        };
        ensure!(
            ok,
            "{what} [{}]: element {i}: got {g}, expected {w}",
            R::DTYPE
        );
    }
    Ok(())
}

/// Values of T with parts in [-4, 4).
fn random<T: Cx>(rng: &mut Rng, n: usize) -> Vec<T> {
    (0..n)
        .map(|_| T::from64(C::new(rng.range(-4.0, 4.0), rng.range(-4.0, 4.0))))
        .collect()
}

fn wide<T: Cx>(v: &[T]) -> Vec<C> {
    v.iter().map(|z| z.to64()).collect()
}

/// NumPy's complex division (Smith's method), in f64.
fn smith(a: C, b: C) -> C {
    let (br, bi) = (b.re.abs(), b.im.abs());
    if br >= bi {
        if br == 0.0 && bi == 0.0 {
            return C::new(a.re / br, a.im / br);
        }
        let rat = b.im / b.re;
        let scl = 1.0 / (b.re + b.im * rat);
        C::new((a.re + a.im * rat) * scl, (a.im - a.re * rat) * scl)
    } else {
        let rat = b.re / b.im;
        let scl = 1.0 / (b.im + b.re * rat);
        C::new((a.re * rat + a.im) * scl, (a.im * rat - a.re) * scl)
    }
}

/// `x / y` with each operand first scaled by a power of two into [1, 2) (exact), divided
/// by num-complex's textbook formula in f64, and scaled back: the quotient of operands
/// whose squares would overflow or underflow.
fn scaled_div(x: C, y: C) -> C {
    let exp = |z: C| z.re.abs().max(z.im.abs()).log2().floor() as i32;
    let (ex, ey) = (exp(x), exp(y));
    let q = (x * 2f64.powi(-ex)) / (y * 2f64.powi(-ey));
    let d = ex - ey;
    q * 2f64.powi(d / 2) * 2f64.powi(d - d / 2)
}

/// `ln|z|` for `z` near the unit circle: `log1p(re² + im² - 1) / 2` with the sum in
/// double-double (exact products by `mul_add`), the reference for c128's log.
fn ln_abs_near_one(z: C) -> f64 {
    let two_prod = |a: f64| {
        let p = a * a;
        (p, a.mul_add(a, -p))
    };
    let (hi, lo) = if z.re.abs() >= z.im.abs() {
        (z.re.abs(), z.im.abs())
    } else {
        (z.im.abs(), z.re.abs())
    };
    let (ph, pl) = two_prod(hi);
    let (qh, ql) = two_prod(lo);
    let a = ph - 1.0;
    let s = a + qh;
    let bb = s - a;
    let err = (a - (s - bb)) + (qh - bb);
    0.5 * (s + (err + pl + ql)).ln_1p()
}

fn dname<T: Element>() -> &'static str {
    T::DTYPE.name()
}

fn arith<T: Cx>(dev: &Device, rng: &mut Rng) -> TResult {
    let n = 1037;
    let (a, mut b) = (random::<T>(rng, n), random::<T>(rng, n));
    b[0] = T::from64(C::new(0.5, 0.0));
    b[1] = T::from64(C::new(0.0, -0.25));
    let (da, db) = (
        DeviceArray::from_slice(dev, &a)?,
        DeviceArray::from_slice(dev, &b)?,
    );
    let (wa, wb) = (wide(&a), wide(&b));
    let want =
        |f: fn(C, C) -> C| -> Vec<C> { wa.iter().zip(&wb).map(|(&x, &y)| f(x, y)).collect() };
    check("add", &(&da + &db)?.to_host()?, &want(|x, y| x + y), 1.0)?;
    check("sub", &(&da - &db)?.to_host()?, &want(|x, y| x - y), 1.0)?;
    // Products and quotients: a few roundings, relative to the result's magnitude.
    check("mul", &(&da * &db)?.to_host()?, &want(|x, y| x * y), 4.0)?;
    check("div", &(&da / &db)?.to_host()?, &want(|x, y| x / y), 8.0)?;
    check(
        "neg",
        &(-&da)?.to_host()?,
        &wa.iter().map(|&x| -x).collect::<Vec<_>>(),
        0.0,
    )?;
    check(
        "square",
        &da.square()?.to_host()?,
        &wa.iter().map(|&x| x * x).collect::<Vec<_>>(),
        4.0,
    )?;
    check(
        "conj",
        &da.conj()?.to_host()?,
        &wa.iter().map(|x| x.conj()).collect::<Vec<_>>(),
        0.0,
    )?;
    // In place, with an array and with a scalar.
    let dc = da.copy()?;
    dc.mul_assign(&db)?;
    dc.add_assign(T::from64(C::new(1.0, -1.0)))?;
    let w: Vec<C> = wa
        .iter()
        .zip(&wb)
        .map(|(&x, &y)| x * y + C::new(1.0, -1.0))
        .collect();
    check("mul_assign, add_assign", &dc.to_host()?, &w, 8.0)?;
    // eq / ne, with a scalar too.
    let eq = da.eq(&da.copy()?)?.to_host()?;
    ensure!(eq.iter().all(|&x| x), "eq of an array with its copy");
    let ne = da.ne(a[3])?.to_host()?;
    ensure!(
        ne.iter().enumerate().all(|(i, &x)| x == (a[i] != a[3])),
        "ne with a scalar"
    );
    Ok(())
}

/// Real and complex scalars on either side (operators of each concrete type); broadcasting
/// of arrays.
macro_rules! scalars_broadcast {
    ($name:ident, $t:ty, $r:ty) => {
        fn $name(dev: &Device, rng: &mut Rng) -> TResult {
            let a = random::<$t>(rng, 12);
            let wa = wide(&a);
            let da = DeviceArray::from_host(dev, &a, &[3, 4])?;
            let s = <$t>::new(0.5, -2.0);
            let ws = s.to64();
            let map = |f: &dyn Fn(C) -> C| -> Vec<C> { wa.iter().map(|&x| f(x)).collect() };
            check(
                "array * complex scalar",
                &(&da * s)?.to_host()?,
                &map(&|x| x * ws),
                4.0,
            )?;
            check(
                "complex scalar - array",
                &(s - &da)?.to_host()?,
                &map(&|x| ws - x),
                1.0,
            )?;
            check(
                "complex scalar / array",
                &(s / &da)?.to_host()?,
                &map(&|x| smith(ws, x)),
                8.0,
            )?;
            check(
                "array / complex scalar (method)",
                &da.div(s)?.to_host()?,
                &map(&|x| smith(x, ws)),
                8.0,
            )?;
            // A real scalar becomes x + 0i (NumPy's promotion), on either side.
            let r: $r = 2.5;
            let wr = C::new(2.5, 0.0);
            check(
                "array * real scalar",
                &(&da * r)?.to_host()?,
                &map(&|x| x * wr),
                4.0,
            )?;
            check(
                "real scalar * array",
                &(r * &da)?.to_host()?,
                &map(&|x| wr * x),
                4.0,
            )?;
            check(
                "array + real scalar",
                &(&da + r)?.to_host()?,
                &map(&|x| x + wr),
                1.0,
            )?;
            check(
                "real scalar - array",
                &(r - &da)?.to_host()?,
                &map(&|x| wr - x),
                1.0,
            )?;
            check(
                "real scalar / array",
                &(r / &da)?.to_host()?,
                &map(&|x| smith(wr, x)),
                8.0,
            )?;
            check(
                "array / real scalar",
                &(&da / r)?.to_host()?,
                &map(&|x| smith(x, wr)),
                8.0,
            )?;
            let mut w = da.copy()?;
            w *= r;
            w -= 1.0 as $r;
            check(
                "*= and -= with real scalars",
                &w.to_host()?,
                &map(&|x| x * wr - C::new(1.0, 0.0)),
                4.0,
            )?;
            // NumPy's promotion: (inf + 1i) * 2 is (inf + NaN i), as inf * 0 is NaN.
            let inf = DeviceArray::from_slice(dev, &[<$t>::new(<$r>::INFINITY, 1.0)])?;
            let got = (&inf * r)?.to_host()?[0];
            ensure!(
                got.re.is_infinite() && got.im.is_nan(),
                "(inf+1j) * 2.5 = {got}, NumPy gives inf+nanj"
            );
            // Broadcast (3, 1) * (4,).
            let col = random::<$t>(rng, 3);
            let row = random::<$t>(rng, 4);
            let dcol = DeviceArray::from_host(dev, &col, &[3, 1])?;
            let drow = DeviceArray::from_slice(dev, &row)?;
            let got = (&dcol * &drow)?;
            ensure!(got.shape() == [3, 4], "broadcast shape {:?}", got.shape());
            let mut want = Vec::new();
            for c in &col {
                for r in &row {
                    want.push(c.to64() * r.to64());
                }
            }
            check("(3,1) * (4,)", &got.to_host()?, &want, 4.0)?;
            // And a (3, 4) += (4,) in place.
            let acc = da.copy()?;
            acc.add_assign(&drow)?;
            let want: Vec<C> = (0..12).map(|k| wa[k] + row[k % 4].to64()).collect();
            check("(3,4) += (4,)", &acc.to_host()?, &want, 1.0)?;
            Ok(())
        }
    };
}
scalars_broadcast!(scalars_broadcast_c64, Complex32, f32);
scalars_broadcast!(scalars_broadcast_c128, Complex64, f64);

/// Division by tiny and huge values, by zero, and with NaN and infinite parts.
fn division_extremes<T: Cx>(dev: &Device, _rng: &mut Rng) -> TResult {
    let big = T::DTYPE == cuarray::DType::C128;
    // Parts whose squares overflow (huge) or underflow (tiny) in T: a textbook division
    // gives inf or NaN, Smith's method the quotient. The reference divides the operands
    // scaled by a power of two (exact) in f64.
    let (h, t) = if big { (1e200, 1e-200) } else { (1e25, 1e-25) };
    let pairs = [
        (C::new(2.0 * h, h), C::new(h, 3.0 * h)),
        (C::new(3.0 * t, t), C::new(t, 2.0 * t)),
        (C::new(1.0, 2.0), C::new(h, -h)),
        (C::new(1.0, 2.0), C::new(t, t)),
        (C::new(h, -h), C::new(t, 2.0 * t)),
        (C::new(-0.5 * h, 0.25 * h), C::new(0.0, h)),
        (C::new(t, -t), C::new(-3.0 * t, 0.0)),
    ];
    let a: Vec<T> = pairs.iter().map(|p| T::from64(p.0)).collect();
    let b: Vec<T> = pairs.iter().map(|p| T::from64(p.1)).collect();
    let got =
        (&DeviceArray::from_slice(dev, &a)? / &DeviceArray::from_slice(dev, &b)?)?.to_host()?;
    let want: Vec<C> = a
        .iter()
        .zip(&b)
        .map(|(x, y)| scaled_div(x.to64(), y.to64()))
        .collect();
    check("division by tiny and huge values", &got, &want, 8.0)?;
    // Zero divisors, NaN and infinite parts: NumPy's values (its loop, in f64).
    let inf = f64::INFINITY;
    let nan = f64::NAN;
    let specials = [
        (C::new(1.0, 1.0), C::new(0.0, 0.0)),
        (C::new(-1.0, 0.0), C::new(0.0, 0.0)),
        (C::new(0.0, 0.0), C::new(0.0, 0.0)),
        (C::new(1.0, 1.0), C::new(inf, 0.0)),
        (C::new(inf, 0.0), C::new(1.0, 0.0)),
        (C::new(inf, inf), C::new(1.0, 1.0)),
        (C::new(nan, 1.0), C::new(1.0, 1.0)),
        (C::new(1.0, 1.0), C::new(nan, 0.0)),
        (C::new(1.0, 1.0), C::new(0.0, inf)),
        (C::new(2.0, 3.0), C::new(0.0, -0.5)),
    ];
    let a: Vec<T> = specials.iter().map(|p| T::from64(p.0)).collect();
    let b: Vec<T> = specials.iter().map(|p| T::from64(p.1)).collect();
    let got =
        (&DeviceArray::from_slice(dev, &a)? / &DeviceArray::from_slice(dev, &b)?)?.to_host()?;
    let want: Vec<C> = specials.iter().map(|&(x, y)| smith(x, y)).collect();
    check("division by zero, NaN and inf parts", &got, &want, 2.0)?;
    Ok(())
}

/// abs without overflow for huge parts, nor underflow for tiny ones; real, imag, angle.
fn parts_abs_angle<T: Cx>(dev: &Device, rng: &mut Rng) -> TResult {
    let big = T::DTYPE == cuarray::DType::C128;
    let (h, t) = if big { (1e307, 1e-310) } else { (2e38, 3e-42) };
    let mut v: Vec<T> = random::<T>(rng, 100);
    for z in [
        C::new(h, h),
        C::new(-h, 0.5 * h),
        C::new(t, t),
        C::new(3.0, -4.0),
        C::new(0.0, -0.0),
        C::new(f64::INFINITY, f64::NAN),
        C::new(f64::NAN, 1.0),
        C::new(-1.0, 0.0),
        C::new(-1.0, -0.0),
    ] {
        v.push(T::from64(z));
    }
    let w = wide(&v);
    let d = DeviceArray::from_slice(dev, &v)?;
    let rel = 4.0 * T::ULP;
    let abs: DeviceArray<T::Real> = d.abs()?;
    check_real(
        "abs",
        &abs.to_host()?,
        &w.iter().map(|z| z.re.hypot(z.im)).collect::<Vec<_>>(),
        rel,
    )?;
    check_real(
        "real",
        &d.real()?.to_host()?,
        &w.iter().map(|z| z.re).collect::<Vec<_>>(),
        0.0,
    )?;
    check_real(
        "imag",
        &d.imag()?.to_host()?,
        &w.iter().map(|z| z.im).collect::<Vec<_>>(),
        0.0,
    )?;
    check_real(
        "angle",
        &d.angle()?.to_host()?,
        &w.iter().map(|z| z.im.atan2(z.re)).collect::<Vec<_>>(),
        rel,
    )?;
    // angle(-1 - 0i) is -pi: the sign of a zero imaginary part counts.
    let a = d.angle()?.to_host()?;
    ensure!(
        a[a.len() - 1].to_f64() < 0.0,
        "angle(-1-0j) = {}",
        a[a.len() - 1]
    );
    // Predicates: either part NaN / infinite; both finite.
    let nan = d.isnan()?.to_host()?;
    let inf = d.isinf()?.to_host()?;
    let fin = d.isfinite()?.to_host()?;
    for (i, z) in w.iter().enumerate() {
        ensure!(nan[i] == z.is_nan(), "isnan({z}) = {}", nan[i]);
        // NumPy: either part infinite, a NaN part notwithstanding (num-complex says false).
        let want_inf = z.re.is_infinite() || z.im.is_infinite();
        ensure!(inf[i] == want_inf, "isinf({z}) = {}", inf[i]);
        ensure!(fin[i] == z.is_finite(), "isfinite({z}) = {}", fin[i]);
    }
    Ok(())
}

/// exp, log and sqrt against num-complex in f64, and their special values.
fn functions<T: Cx>(dev: &Device, rng: &mut Rng) -> TResult {
    let v = random::<T>(rng, 777);
    let w = wide(&v);
    let d = DeviceArray::from_slice(dev, &v)?;
    let map = |f: fn(C) -> C| -> Vec<C> { w.iter().map(|&z| f(z)).collect() };
    check("exp", &d.exp()?.to_host()?, &map(|z| z.exp()), 16.0)?;
    check("log", &d.log()?.to_host()?, &map(|z| z.ln()), 16.0)?;
    check("sqrt", &d.sqrt()?.to_host()?, &map(|z| z.sqrt()), 16.0)?;
    // Near the unit circle, log's real part stays accurate (log1p), relative to itself.
    let near: Vec<T> = (0..64)
        .map(|k| {
            let th = k as f64 * 0.1;
            let r = 1.0 + 1e-4 * (k as f64 - 32.0) / 32.0;
            T::from64(C::from_polar(r, th))
        })
        .collect();
    let got = DeviceArray::from_slice(dev, &near)?
        .log()?
        .real()?
        .to_host()?;
    let want: Vec<f64> = near.iter().map(|z| ln_abs_near_one(z.to64())).collect();
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        let g = g.to_f64();
        ensure!(
            (g - w).abs() <= 64.0 * T::ULP * w.abs().max(T::ULP),
            "ln|z| near the unit circle, element {i}: got {g}, expected {w}"
        );
    }
    // Special values (C99 Annex G, as NumPy).
    let inf = f64::INFINITY;
    let z = |re: f64, im: f64| T::from64(C::new(re, im));
    let cases: Vec<(&str, T, C)> = vec![
        ("sqrt(-4+0j)", z(-4.0, 0.0), C::new(0.0, 2.0)),
        ("sqrt(-4-0j)", z(-4.0, -0.0), C::new(0.0, -2.0)),
        ("sqrt(0)", z(0.0, 0.0), C::new(0.0, 0.0)),
        ("sqrt(x+inf j)", z(3.0, inf), C::new(inf, inf)),
        ("sqrt(-inf+1j)", z(-inf, 1.0), C::new(0.0, inf)),
        (
            "sqrt(huge)",
            z(if T::ULP > 1e-10 { 3e38 } else { 1.7e308 }, 0.0),
            C::new(
                if T::ULP > 1e-10 {
                    3e38f64.sqrt()
                } else {
                    1.7e308f64.sqrt()
                },
                0.0,
            ),
        ),
    ];
    let args: Vec<T> = cases.iter().map(|c| c.1).collect();
    let got = DeviceArray::from_slice(dev, &args)?.sqrt()?.to_host()?;
    for ((name, _, want), g) in cases.iter().zip(&got) {
        ensure!(
            close(g.to64(), *want, 4.0, T::ULP),
            "{name} = {g}, expected {want}"
        );
    }
    let cases: Vec<(&str, T, C)> = vec![
        ("exp(0)", z(0.0, 0.0), C::new(1.0, 0.0)),
        ("exp(x+0j) keeps 0j", z(2.0, 0.0), C::new(2f64.exp(), 0.0)),
        ("exp(-inf+inf j)", z(-inf, inf), C::new(0.0, 0.0)),
        ("exp(1000+0j)", z(1000.0, 0.0), C::new(inf, 0.0)),
    ];
    let args: Vec<T> = cases.iter().map(|c| c.1).collect();
    let got = DeviceArray::from_slice(dev, &args)?.exp()?.to_host()?;
    for ((name, _, want), g) in cases.iter().zip(&got) {
        ensure!(
            close(g.to64(), *want, 4.0, T::ULP),
            "{name} = {g}, expected {want}"
        );
    }
    let huge = if T::ULP > 1e-10 { 3e38 } else { 1.7e308 };
    let cases: Vec<(&str, T, C)> = vec![
        ("log(0)", z(0.0, 0.0), C::new(-inf, 0.0)),
        ("log(-1)", z(-1.0, 0.0), C::new(0.0, std::f64::consts::PI)),
        (
            "log(huge + huge j)",
            z(huge, huge),
            C::new(huge.ln() + 0.5 * 2f64.ln(), std::f64::consts::FRAC_PI_4),
        ),
    ];
    let args: Vec<T> = cases.iter().map(|c| c.1).collect();
    let got = DeviceArray::from_slice(dev, &args)?.log()?.to_host()?;
    for ((name, _, want), g) in cases.iter().zip(&got) {
        ensure!(
            close(g.to64(), *want, 8.0, T::ULP),
            "{name} = {g}, expected {want}"
        );
    }
    Ok(())
}

/// Strided views read and written in place: a transpose, steps, a reversed axis.
fn views<T: Cx>(dev: &Device, rng: &mut Rng) -> TResult {
    let (m, n) = (37, 29);
    let v = random::<T>(rng, m * n);
    let w = wide(&v);
    let d = DeviceArray::from_host(dev, &v, &[m, n])?;
    let at = |i: usize, j: usize| w[i * n + j];
    // Transpose: (n, m).
    let got = (&d.t() * &d.t())?.to_host()?;
    let want: Vec<C> = (0..n)
        .flat_map(|j| (0..m).map(move |i| (i, j)))
        .map(|(i, j)| at(i, j) * at(i, j))
        .collect();
    check("t * t", &got, &want, 4.0)?;
    // Every other row, reversed columns.
    let s = d.slice(cuarray::s![..;2, ..;-1])?;
    let got = s.conj()?.to_host()?;
    let want: Vec<C> = (0..m)
        .step_by(2)
        .flat_map(|i| (0..n).rev().map(move |j| (i, j)))
        .map(|(i, j)| at(i, j).conj())
        .collect();
    check("conj of a stepped, reversed view", &got, &want, 0.0)?;
    let got = s.real()?.to_host()?;
    check_real(
        "real of a view",
        &got,
        &want.iter().map(|z| z.re).collect::<Vec<_>>(),
        0.0,
    )?;
    // Writing through a view: the other rows unchanged.
    s.mul_assign(T::from64(C::new(0.0, 1.0)))?;
    let back = d.to_host()?;
    for i in 0..m {
        for j in 0..n {
            let want = if i % 2 == 0 {
                at(i, j) * C::new(0.0, 1.0)
            } else {
                at(i, j)
            };
            ensure!(
                close(back[i * n + j].to_64(), want, 1.0, T::ULP),
                "view *= 1j at ({i}, {j})"
            );
        }
    }
    Ok(())
}

trait To64 {
    fn to_64(self) -> C;
}
impl<T: Cx> To64 for T {
    fn to_64(self) -> C {
        self.to64()
    }
}

/// sum, prod, mean (whole, per axis), cumsum, all/any, in the complex type.
fn reductions<T: Cx>(dev: &Device, rng: &mut Rng) -> TResult {
    let (m, n) = (67, 301);
    let v = random::<T>(rng, m * n);
    let w = wide(&v);
    let d = DeviceArray::from_host(dev, &v, &[m, n])?;
    let total: C = w.iter().sum();
    let bound = |terms: usize| terms as f64 * 4.0; // |parts| < 4: error relative to a sum of magnitudes
    let s: T = d.sum()?.to_scalar()?;
    ensure!(
        (s.to64() - total).norm() <= bound(m * n) * 8.0 * T::ULP * 4.0,
        "sum = {s}, expected {total}"
    );
    let mean: T = d.mean()?.to_scalar()?;
    let wm = total / (m * n) as f64;
    ensure!(
        (mean.to64() - wm).norm() <= 64.0 * T::ULP * 4.0,
        "mean = {mean}, expected {wm}"
    );
    // Per axis: rows (axis 1) and columns (axis 0).
    let rows = d.sum_axis(1)?.to_host()?;
    for i in 0..m {
        let want: C = w[i * n..(i + 1) * n].iter().sum();
        ensure!(
            (rows[i].to64() - want).norm() <= bound(n) * 16.0 * T::ULP,
            "row sum {i}: {} vs {want}",
            rows[i]
        );
    }
    let cols = d.mean_axis(0)?.to_host()?;
    for j in 0..n {
        let want: C = (0..m).map(|i| w[i * n + j]).sum::<C>() / m as f64;
        ensure!(
            (cols[j].to64() - want).norm() <= 64.0 * T::ULP * 4.0,
            "column mean {j}: {} vs {want}",
            cols[j]
        );
    }
    // A product of a few values on the unit circle stays on it.
    let unit: Vec<T> = (0..40)
        .map(|k| T::from64(C::from_polar(1.0, 0.37 * k as f64)))
        .collect();
    let p: T = DeviceArray::from_slice(dev, &unit)?.prod()?.to_scalar()?;
    let wp: C = unit.iter().map(|z| z.to64()).product();
    ensure!(
        (p.to64() - wp).norm() <= 256.0 * T::ULP,
        "prod = {p}, expected {wp}"
    );
    // cumsum along the rows.
    let cs = d.cumsum(1)?.to_host()?;
    let mut acc = C::new(0.0, 0.0);
    for j in 0..n {
        acc += w[j];
        ensure!(
            (cs[j].to64() - acc).norm() <= bound(j + 1) * 16.0 * T::ULP,
            "cumsum [0, {j}]: {} vs {acc}",
            cs[j]
        );
    }
    // Empty: sum 0, prod 1.
    let e = DeviceArray::<T>::zeros(dev, &[0])?;
    ensure!(
        e.sum()?.to_scalar()? == T::ZERO && e.prod()?.to_scalar()? == T::ONE,
        "empty sum/prod"
    );
    // all / any: non-zero means either part non-zero.
    let z = DeviceArray::from_slice(
        dev,
        &[T::from64(C::new(0.0, 1.0)), T::from64(C::new(0.0, 0.0))],
    )?;
    ensure!(
        !z.all()?.to_scalar()? && z.any()?.to_scalar()?,
        "all/any of [1j, 0]"
    );
    // var is not supported (NumPy's is real): an error, not a wrong answer.
    ensure!(d.var(0).is_err(), "var of a complex array must be an error");
    Ok(())
}

/// matmul and gemv against a host complex matmul, through cuBLAS and the small kernel.
fn matmul<T: Cx>(dev: &Device, rng: &mut Rng) -> TResult {
    fn host(a: &[C], b: &[C], m: usize, k: usize, n: usize) -> Vec<C> {
        let mut c = vec![C::new(0.0, 0.0); m * n];
        for i in 0..m {
            for p in 0..k {
                for j in 0..n {
                    c[i * n + j] += a[i * k + p] * b[p * n + j];
                }
            }
        }
        c
    }
    let tol = |k: usize| (k as f64) * 4.0;
    let run =
        |dev: &Device, rng: &mut Rng| -> TResult {
            for &(m, k, n) in &[
                (64, 48, 32),
                (5, 7, 3),
                (1, 33, 17),
                (19, 40, 1),
                (128, 128, 128),
            ] {
                let a = random::<T>(rng, m * k);
                let b = random::<T>(rng, k * n);
                let (wa, wb) = (wide(&a), wide(&b));
                let da = DeviceArray::from_host(dev, &a, &[m, k])?;
                let db = DeviceArray::from_host(dev, &b, &[k, n])?;
                let want = host(&wa, &wb, m, k, n);
                check(
                    &format!("({m},{k}) @ ({k},{n})"),
                    &da.matmul(&db)?.to_host()?,
                    &want,
                    tol(k) * 16.0,
                )?;
                // Transposed operands (read in place): (a^T)^T @ b.
                let dat = DeviceArray::from_host(dev, &transpose(&a, m, k), &[k, m])?.t();
                check(
                    "a (F order) @ b",
                    &dat.matmul(&db)?.to_host()?,
                    &want,
                    tol(k) * 16.0,
                )?;
            }
            // Matrix-vector and vector-matrix (gemv), 1-D operands.
            let (m, k) = (300, 200);
            let a = random::<T>(rng, m * k);
            let x = random::<T>(rng, k);
            let y = random::<T>(rng, m);
            let da = DeviceArray::from_host(dev, &a, &[m, k])?;
            let want = host(&wide(&a), &wide(&x), m, k, 1);
            check(
                "A @ x",
                &da.matmul(&DeviceArray::from_slice(dev, &x)?)?.to_host()?,
                &want,
                tol(k) * 16.0,
            )?;
            let want = host(&wide(&y), &wide(&a), 1, m, k);
            check(
                "y @ A",
                &DeviceArray::from_slice(dev, &y)?.matmul(&da)?.to_host()?,
                &want,
                tol(m) * 16.0,
            )?;
            let want: C = wide(&x)
                .iter()
                .zip(wide(&x).iter())
                .map(|(p, q)| p * q)
                .sum();
            let dx = DeviceArray::from_slice(dev, &x)?;
            let got: T = dx.dot(&dx)?.to_scalar()?;
            ensure!(
                (got.to64() - want).norm() <= tol(k) * 16.0 * T::ULP * 4.0,
                "x . x = {got}, expected {want} (no conjugation)"
            );
            // Batched with broadcast: (2, 16, 8) @ (8, 4).
            let a = random::<T>(rng, 2 * 16 * 8);
            let b = random::<T>(rng, 8 * 4);
            let got = DeviceArray::from_host(dev, &a, &[2, 16, 8])?
                .matmul(&DeviceArray::from_host(dev, &b, &[8, 4])?)?;
            let wa = wide(&a);
            let mut want = host(&wa[..128], &wide(&b), 16, 8, 4);
            want.extend(host(&wa[128..], &wide(&b), 16, 8, 4));
            check("(2,16,8) @ (8,4)", &got.to_host()?, &want, 8.0 * 16.0)?;
            Ok(())
        };
    cuarray::testing::set_small_gemm_limit(0);
    let cublas = run(dev, rng);
    cuarray::testing::set_small_gemm_limit(cuarray::tuning::SMALL_GEMM_FLOPS);
    cublas.map_err(|e| format!("cuBLAS path: {}", e.message().unwrap_or_default()))?;
    run(dev, rng)
        .map_err(|e| format!("small-product kernel: {}", e.message().unwrap_or_default()).into())
}

fn transpose<T: Copy>(v: &[T], m: usize, n: usize) -> Vec<T> {
    (0..n)
        .flat_map(|j| (0..m).map(move |i| v[i * n + j]))
        .collect()
}

/// astype to and from real types, round trips, and the printout.
fn casts_display(dev: &Device, _rng: &mut Rng) -> TResult {
    let x = DeviceArray::from_slice(dev, &[1.5f32, -2.0, 0.0, f32::NAN])?;
    let z: DeviceArray<Complex32> = x.astype()?;
    ensure!(
        z.imag()?.to_host()? == vec![0.0f32; 4] && z.real()?.to_host()?[..3] == [1.5, -2.0, 0.0],
        "f32 -> c64"
    );
    let zz = DeviceArray::from_slice(
        dev,
        &[
            Complex32::new(2.7, -1.0),
            Complex32::new(-3.5, 9.0),
            Complex32::new(0.0, 0.5),
            Complex32::new(0.0, 0.0),
        ],
    )?;
    ensure!(
        zz.astype::<f32>()?.to_host()? == vec![2.7, -3.5, 0.0, 0.0],
        "c64 -> f32 takes the real part"
    );
    ensure!(
        zz.astype::<i32>()?.to_host()? == vec![2, -3, 0, 0],
        "c64 -> i32 truncates the real part"
    );
    ensure!(
        zz.astype::<bool>()?.to_host()? == vec![true, true, true, false],
        "c64 -> bool: either part non-zero"
    );
    let wide: DeviceArray<Complex64> = zz.astype()?;
    let back: DeviceArray<Complex32> = wide.astype()?;
    ensure!(
        back.to_host()? == zz.to_host()?,
        "c64 -> c128 -> c64 round trip"
    );
    ensure!(
        wide.to_host()?[0] == Complex64::new(2.7f32 as f64, -1.0),
        "c64 -> c128 widens both parts"
    );
    let ints = DeviceArray::from_slice(dev, &[-7i64, 1 << 40])?;
    ensure!(
        ints.astype::<Complex64>()?.to_host()?
            == vec![
                Complex64::new(-7.0, 0.0),
                Complex64::new((1u64 << 40) as f64, 0.0)
            ],
        "i64 -> c128"
    );
    let h = DeviceArray::from_slice(dev, &[half::f16::from_f32(0.5)])?;
    ensure!(
        h.astype::<Complex32>()?.to_host()? == vec![Complex32::new(0.5, 0.0)],
        "f16 -> c64"
    );
    ensure!(
        zz.astype::<half::bf16>()?.to_host()?[1] == half::bf16::from_f32(-3.5),
        "c64 -> bf16"
    );
    // complex(re, im) from real arrays (and a scalar), broadcast.
    let re = DeviceArray::from_host(dev, &[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[2, 3])?;
    let im = DeviceArray::from_slice(dev, &[-1.0f32, 0.5, 8.0])?;
    let got = cuarray::complex(&re.t(), &im.reshape(&[3, 1])?)?;
    ensure!(got.shape() == [3, 2], "complex shape {:?}", got.shape());
    let want: Vec<Complex32> = [
        (1.0, -1.0),
        (4.0, -1.0),
        (2.0, 0.5),
        (5.0, 0.5),
        (3.0, 8.0),
        (6.0, 8.0),
    ]
    .iter()
    .map(|&(r, i)| Complex32::new(r, i))
    .collect();
    ensure!(
        got.to_host()? == want,
        "complex(re.t(), im[:, None]) = {:?}",
        got.to_host()?
    );
    let got = cuarray::complex(0.25f64, &DeviceArray::from_slice(dev, &[1.0f64])?)?.to_host()?;
    ensure!(
        got == vec![Complex64::new(0.25, 1.0)],
        "complex(scalar, array)"
    );
    ensure!(
        cuarray::complex(1.0f32, 2.0f32).is_err(),
        "complex of two scalars is an error"
    );
    // Creation and printouts.
    let f = DeviceArray::full(dev, &[2, 2], Complex64::new(1.0, -2.0))?;
    ensure!(
        f.to_host_string()?
            == "[[1-2j, 1-2j],
 [1-2j, 1-2j]]",
        "printout: {}",
        f.to_host_string()?
    );
    let p = DeviceArray::from_slice(
        dev,
        &[
            Complex32::new(-0.5, 2.0),
            Complex32::new(f32::INFINITY, f32::NAN),
        ],
    )?;
    ensure!(
        p.to_host_string()? == "[-0.5+2j, inf+NaNj]",
        "printout: {}",
        p.to_host_string()?
    );
    ensure!(
        format!("{p}").contains("c64"),
        "Display names the dtype: {p}"
    );
    let o = DeviceArray::<Complex32>::ones(dev, &[3])?;
    ensure!(o.to_host()? == vec![Complex32::new(1.0, 0.0); 3], "ones");
    let e = DeviceArray::<Complex64>::eye(dev, 2)?;
    ensure!(
        e.to_host()?
            == vec![
                Complex64::new(1.0, 0.0),
                Complex64::new(0.0, 0.0),
                Complex64::new(0.0, 0.0),
                Complex64::new(1.0, 0.0)
            ],
        "eye"
    );
    // A user kernel over complex arrays with a real scalar (made complex in the kernel).
    let k =
        cuarray::ElementwiseKernel::new("T x, T y, float32 a", "T z", "z = a * x + y;", "caxpy")?;
    let x = DeviceArray::from_slice(dev, &[Complex32::new(1.0, 2.0), Complex32::new(-3.0, 0.5)])?;
    let y = DeviceArray::from_slice(dev, &[Complex32::new(0.5, 0.5), Complex32::new(1.0, -1.0)])?;
    let z: DeviceArray<Complex32> = k.call((&x, &y, 2.0f32))?;
    ensure!(
        z.to_host()? == vec![Complex32::new(2.5, 4.5), Complex32::new(-5.0, 0.0)],
        "user kernel a * x + y on c64: {:?}",
        z.to_host()?
    );
    // where_ and concatenate work on any element type.
    let m = DeviceArray::from_slice(dev, &[true, false])?;
    let a = DeviceArray::from_slice(dev, &[Complex32::new(1.0, 1.0), Complex32::new(2.0, 2.0)])?;
    let got = cuarray::where_(&m, &a, Complex32::new(0.0, -1.0))?.to_host()?;
    ensure!(
        got == vec![Complex32::new(1.0, 1.0), Complex32::new(0.0, -1.0)],
        "where_"
    );
    Ok(())
}

pub fn trials(out: &mut Vec<Trial>) {
    macro_rules! both {
        ($name:literal, $f:ident) => {
            add_gpu(
                out,
                format!("complex/{}/{}/all", $name, dname::<Complex32>()),
                $f::<Complex32>,
            );
            add_gpu(
                out,
                format!("complex/{}/{}/all", $name, dname::<Complex64>()),
                $f::<Complex64>,
            );
        };
    }
    both!("arith", arith);
    both!("division_extremes", division_extremes);
    both!("parts_abs_angle", parts_abs_angle);
    both!("exp_log_sqrt", functions);
    both!("views", views);
    both!("reductions", reductions);
    both!("matmul", matmul);
    add_gpu(
        out,
        "complex/scalars_broadcast/c64/all".into(),
        scalars_broadcast_c64,
    );
    add_gpu(
        out,
        "complex/scalars_broadcast/c128/all".into(),
        scalars_broadcast_c128,
    );
    add_gpu(out, "complex/casts_display/c64/all".into(), casts_display);
}
