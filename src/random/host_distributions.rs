//! The host twin of `kernels/distributions.cuh`: the samplers of NumPy's distributions on
//! per-element Philox substreams, with the same IEEE operations in the same order (Rust's
//! `+ - * /`, `sqrt` and `mul_add` are correctly rounded, as the device's `_rn`
//! intrinsics), and the same own `exp`, `ln`, `cos`, `atan` and `loggam`.

use super::host::{ln64, Real};
use super::philox;
use crate::kernels::family::random::Sampler;

/// The substream key increment (`rand_sub` in distributions.cuh).
pub(crate) const SUB_KEY: u64 = 0xD1B5_4A32_D192_ED03;

const INF: f64 = f64::INFINITY;
const PI: f64 = std::f64::consts::PI;

fn pow2(k: i32) -> f64 {
    f64::from_bits(((k + 1023) as u64) << 52)
}

/// `ra_ln`.
pub(crate) fn ln(x: f64) -> f64 {
    if x.is_nan() || x < 0.0 {
        return f64::NAN;
    }
    if x == 0.0 {
        return -INF;
    }
    if x == INF {
        return x;
    }
    if x < f64::MIN_POSITIVE {
        return (-54.0f64).mul_add(std::f64::consts::LN_2, ln64(x * 18014398509481984.0));
    }
    ln64(x)
}

/// `ra_exp`.
pub(crate) fn exp(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    if x > 709.782712893384 {
        return INF;
    }
    if x < -745.2 {
        return 0.0;
    }
    let n = (x * std::f64::consts::LOG2_E).round_ties_even();
    let r = n.mul_add(-0.6931471803691238, x);
    let r = n.mul_add(-1.9082149292705877e-10, r);
    let mut p: f64 = 1.0 / 6227020800.0;
    for c in [
        1.0 / 479001600.0,
        1.0 / 39916800.0,
        1.0 / 3628800.0,
        1.0 / 362880.0,
        1.0 / 40320.0,
        1.0 / 5040.0,
        1.0 / 720.0,
        1.0 / 120.0,
        1.0 / 24.0,
        1.0 / 6.0,
        0.5,
        1.0,
        1.0,
    ] {
        p = p.mul_add(r, c);
    }
    let k = n as i32;
    let k1 = k / 2;
    p * pow2(k1) * pow2(k - k1)
}

fn log1p(x: f64) -> f64 {
    let u = 1.0 + x;
    if u == 1.0 {
        return x;
    }
    ln(u) * (x / (u - 1.0))
}

fn expm1(x: f64) -> f64 {
    let u = exp(x);
    if u == 1.0 {
        return x;
    }
    let um1 = u - 1.0;
    if um1 == -1.0 || u == INF {
        return um1;
    }
    (um1 * x) / ln(u)
}

fn pow(x: f64, y: f64) -> f64 {
    if x == 0.0 {
        return if y > 0.0 { 0.0 } else { INF };
    }
    exp(y * ln(x))
}

fn cospi(t: f64) -> f64 {
    use super::host::c64;
    let q = (t + t).round_ties_even();
    let a = q.mul_add(-0.5, t) * PI;
    let a2 = a * a;
    let ks = c64::SIN.map(f64::from_bits);
    let mut ps = ks[7];
    for &c in ks[..7].iter().rev() {
        ps = ps.mul_add(a2, c);
    }
    let sa = (a * a2).mul_add(ps, a);
    let kc = c64::COS.map(f64::from_bits);
    let mut pc = kc[8];
    for &c in kc[..8].iter().rev() {
        pc = pc.mul_add(a2, c);
    }
    let ca = a2.mul_add(pc, 1.0);
    if q == 0.0 {
        ca
    } else if q == 1.0 {
        -sa
    } else {
        -ca
    }
}

fn atan(mut z: f64) -> f64 {
    let (mut base, mut sign) = (0.0f64, 1.0f64);
    if z > 1.0 {
        z = 1.0 / z;
        base = std::f64::consts::FRAC_PI_2;
        sign = -1.0;
    }
    let mut b2 = 0.0;
    if z > 0.41421356237309503 {
        z = (z - 1.0) / (z + 1.0);
        b2 = std::f64::consts::FRAC_PI_4;
    }
    let y2 = z * z;
    let mut p: f64 = 1.0 / 45.0;
    let mut k = 43;
    while k >= 1 {
        p = (-p).mul_add(y2, 1.0 / k as f64);
        k -= 2;
    }
    let at = b2 + z * p;
    sign.mul_add(at, base)
}

fn acos(w: f64) -> f64 {
    if w <= -1.0 {
        return PI;
    }
    if w >= 1.0 {
        return 0.0;
    }
    2.0 * atan(((1.0 - w) / (1.0 + w)).sqrt())
}

/// `ra_loggam`: NumPy's `random_loggam`.
pub(crate) fn loggam(x: f64) -> f64 {
    if x == 1.0 || x == 2.0 {
        return 0.0;
    }
    let n: i64 = if x < 7.0 { (7.0 - x) as i64 } else { 0 };
    let mut x0 = x + n as f64;
    let ix = 1.0 / x0;
    let x2 = ix * ix;
    let mut gl0: f64 = -1.39243221690590e+00;
    for c in [
        1.796443723688307e-01,
        -2.955065359477124e-02,
        6.410_256_410_256_41e-3,
        -1.917526917526918e-03,
        8.417508417508418e-04,
        -5.952380952380952e-04,
        7.936507936507937e-04,
        -2.777777777777778e-03,
        8.333333333333333e-02,
    ] {
        gl0 = gl0.mul_add(x2, c);
    }
    let mut gl = gl0 / x0 + 0.9189385332046727;
    gl = (x0 - 0.5).mul_add(ln(x0), gl) - x0;
    for _ in 1..=n {
        gl -= ln(x0 - 1.0);
        x0 -= 1.0;
    }
    gl
}

/// The substream of one element (`rand_sub`).
pub(crate) struct Sub {
    j: u64,
    key: u64,
    k: u64,
    stream: u64,
    buf: [u32; 4],
    used: usize,
    normal: Option<f64>,
}

impl Sub {
    pub(crate) fn new(j: u64, key: u64, stream: u64, part: u64) -> Sub {
        Sub {
            j,
            key,
            k: part,
            stream,
            buf: [0; 4],
            used: 4,
            normal: None,
        }
    }
    fn next(&mut self) -> u32 {
        if self.used == 4 {
            let kk = self
                .key
                .wrapping_add(self.k.wrapping_add(1).wrapping_mul(SUB_KEY));
            self.buf = philox::block(kk, self.stream, self.j);
            self.k = self.k.wrapping_add(1);
            self.used = 0;
        }
        self.used += 1;
        self.buf[self.used - 1]
    }
    fn next64(&mut self) -> u64 {
        let lo = self.next() as u64;
        let hi = self.next() as u64;
        hi << 32 | lo
    }
    fn uniform(&mut self) -> f64 {
        (self.next64() >> 11) as f64 * f64::from_bits(0x3ca0_0000_0000_0000)
    }
    fn uniform_pos(&mut self) -> f64 {
        ((self.next64() >> 11) + 1) as f64 * f64::from_bits(0x3ca0_0000_0000_0000)
    }
    fn exponential(&mut self) -> f64 {
        0.0 - ln(self.uniform_pos())
    }
    fn normal(&mut self) -> f64 {
        if let Some(z) = self.normal.take() {
            return z;
        }
        let w = [self.next(), self.next(), self.next(), self.next()];
        let rad = <f64 as Real>::neg2_ln(&w[..2]).sqrt();
        let (c, s) = <f64 as Real>::cos_sin(&w[2..]);
        self.normal = Some(rad * s);
        rad * c
    }
}

fn gamma_ge1(u: &mut Sub, k: f64) -> f64 {
    let d = k - 1.0 / 3.0;
    let c = 1.0 / (9.0 * d).sqrt();
    loop {
        let (mut x, mut v);
        loop {
            x = u.normal();
            v = c.mul_add(x, 1.0);
            if v > 0.0 {
                break;
            }
        }
        v = v * v * v;
        let un = u.uniform();
        let x2 = x * x;
        if un < 1.0 - 0.0331 * x2 * x2 {
            return d * v;
        }
        if ln(un) < 0.5f64.mul_add(x2, d * ((1.0 - v) + ln(v))) {
            return d * v;
        }
    }
}

fn log_gamma(u: &mut Sub, k: f64) -> f64 {
    if k >= 1.0 {
        return ln(gamma_ge1(u, k));
    }
    let g = gamma_ge1(u, k + 1.0);
    ln(g) + ln(u.uniform_pos()) / k
}

fn gamma(u: &mut Sub, k: f64) -> f64 {
    if k == 1.0 {
        return u.exponential();
    }
    if k > 1.0 {
        return gamma_ge1(u, k);
    }
    let g = gamma_ge1(u, k + 1.0);
    g * exp(ln(u.uniform_pos()) / k)
}

fn poisson(u: &mut Sub, lam: f64) -> i64 {
    if lam == 0.0 {
        return 0;
    }
    if lam < 10.0 {
        let enlam = exp(-lam);
        let mut x = 0;
        let mut prod = 1.0;
        loop {
            prod *= u.uniform();
            if prod > enlam {
                x += 1;
            } else {
                return x;
            }
        }
    }
    let slam = lam.sqrt();
    let loglam = ln(lam);
    let b = 2.53f64.mul_add(slam, 0.931);
    let a = 0.02483f64.mul_add(b, -0.059);
    let invalpha = 1.1239 + 1.1328 / (b - 3.4);
    let vr = 0.9277 - 3.6224 / (b - 2.0);
    let linv = ln(invalpha);
    loop {
        let un = u.uniform() - 0.5;
        let v = u.uniform();
        let us = 0.5 - un.abs();
        let k = (((2.0 * a / us + b) * un + lam) + 0.43).floor() as i64;
        if us >= 0.07 && v <= vr {
            return k;
        }
        if k < 0 || (us < 0.013 && v > us) {
            continue;
        }
        let lhs = (ln(v) + linv) - ln(a / (us * us) + b);
        let rhs = (k as f64).mul_add(loglam, -lam) - loggam(k as f64 + 1.0);
        if lhs <= rhs {
            return k;
        }
    }
}

fn binomial_inversion(u: &mut Sub, n: f64, p: f64) -> i64 {
    let q = 1.0 - p;
    let qn = exp(n * ln(q));
    let np = n * p;
    let bd = 10.0f64.mul_add(np.mul_add(q, 1.0).sqrt(), np);
    let bound = (if bd < n { bd } else { n }) as i64;
    let mut x: i64 = 0;
    let mut px = qn;
    let mut un = u.uniform();
    while un > px {
        x += 1;
        if x > bound {
            x = 0;
            px = qn;
            un = u.uniform();
        } else {
            un -= px;
            px = (((n - x as f64) + 1.0) * p * px) / (x as f64 * q);
        }
    }
    x
}

fn stirling(f: f64) -> f64 {
    let f2 = f * f;
    let mut t = 99.0 - 140.0 / f2;
    t = 132.0 - t / f2;
    t = 462.0 - t / f2;
    t = 13680.0 - t / f2;
    t / f / 166320.0
}

fn binomial_btpe(u: &mut Sub, n: f64, p: f64) -> i64 {
    let r = p;
    let q = 1.0 - r;
    let fm = n.mul_add(r, r);
    let m = fm.floor();
    let nrq = n * r * q;
    let p1 = 2.195f64.mul_add(nrq.sqrt(), -4.6 * q).floor() + 0.5;
    let xm = m + 0.5;
    let xl = xm - p1;
    let xr = xm + p1;
    let c = 0.134 + 20.5 / (15.3 + m);
    let a = (fm - xl) / (fm - xl * r);
    let laml = a * a.mul_add(0.5, 1.0);
    let a = (xr - fm) / (xr * q);
    let lamr = a * a.mul_add(0.5, 1.0);
    let p2 = p1 * 2.0f64.mul_add(c, 1.0);
    let p3 = p2 + c / laml;
    let p4 = p3 + c / lamr;
    loop {
        let un = u.uniform() * p4;
        let mut v = u.uniform();
        let y;
        if un <= p1 {
            return ((-p1).mul_add(v, xm) + un).floor() as i64;
        } else if un <= p2 {
            let x = xl + (un - p1) / c;
            v = v.mul_add(c, 1.0) - ((m - x) + 0.5).abs() / p1;
            if v > 1.0 {
                continue;
            }
            y = x.floor();
        } else if un <= p3 {
            y = (xl + ln(v) / laml).floor();
            if y < 0.0 || v == 0.0 {
                continue;
            }
            v = v * (un - p2) * laml;
        } else {
            y = (xr - ln(v) / lamr).floor();
            if y > n || v == 0.0 {
                continue;
            }
            v = v * (un - p3) * lamr;
        }
        let k = (y - m).abs();
        if !(k > 20.0 && k < nrq / 2.0 - 1.0) {
            let s = r / q;
            let aa = s * (n + 1.0);
            let mut f = 1.0;
            if m < y {
                let mut i = m + 1.0;
                while i <= y {
                    f *= aa / i - s;
                    i += 1.0;
                }
            } else if m > y {
                let mut i = y + 1.0;
                while i <= m {
                    f /= aa / i - s;
                    i += 1.0;
                }
            }
            if v > f {
                continue;
            }
            return y as i64;
        }
        let rho = (k / nrq) * (k.mul_add(k / 3.0 + 0.625, 0.16666666666666666) / nrq + 0.5);
        let t = (-k * k) / (2.0 * nrq);
        let aln = ln(v);
        if aln < t - rho {
            return y as i64;
        }
        if aln > t + rho {
            continue;
        }
        let x1 = y + 1.0;
        let f1 = m + 1.0;
        let z = (n + 1.0) - m;
        let w = (n - y) + 1.0;
        let mut bound = xm * ln(f1 / x1);
        bound = ((n - m) + 0.5).mul_add(ln(z / w), bound);
        bound = (y - m).mul_add(ln((w * r) / (x1 * q)), bound);
        bound += stirling(f1);
        bound += stirling(z);
        bound += stirling(x1);
        bound += stirling(w);
        if aln > bound {
            continue;
        }
        return y as i64;
    }
}

fn binomial(u: &mut Sub, n: f64, p: f64) -> i64 {
    if n == 0.0 || p == 0.0 {
        return 0;
    }
    if p == 1.0 {
        return n as i64;
    }
    let flip = p > 0.5;
    let r = if flip { 1.0 - p } else { p };
    let y = if r * n <= 30.0 {
        binomial_inversion(u, n, r)
    } else {
        binomial_btpe(u, n, r)
    };
    if flip {
        n as i64 - y
    } else {
        y
    }
}

fn hypergeometric(u: &mut Sub, g: f64, b: f64, s: f64) -> i64 {
    let tot = g + b;
    let kmin = 0.0f64.max(s - b);
    let kmax = s.min(g);
    if kmin == kmax {
        return kmin as i64;
    }
    let mut m = ((s + 1.0) * (g + 1.0) / (tot + 2.0)).floor();
    m = m.max(kmin).min(kmax);
    let mut lp = (loggam(g + 1.0) - loggam(m + 1.0)) - loggam((g - m) + 1.0);
    lp += (loggam(b + 1.0) - loggam((s - m) + 1.0)) - loggam(((b - s) + m) + 1.0);
    lp -= (loggam(tot + 1.0) - loggam(s + 1.0)) - loggam((tot - s) + 1.0);
    let pm = exp(lp);
    loop {
        let mut un = u.uniform() - pm;
        if un < 0.0 {
            return m as i64;
        }
        let (mut lo, mut hi, mut plo, mut phi) = (m, m, pm, pm);
        while lo > kmin || hi < kmax {
            if hi < kmax {
                phi = (phi * ((g - hi) * (s - hi))) / ((hi + 1.0) * (((b - s) + hi) + 1.0));
                hi += 1.0;
                un -= phi;
                if un < 0.0 {
                    return hi as i64;
                }
            }
            if lo > kmin {
                plo = (plo * (lo * ((b - s) + lo))) / (((g - lo) + 1.0) * ((s - lo) + 1.0));
                lo -= 1.0;
                un -= plo;
                if un < 0.0 {
                    return lo as i64;
                }
            }
        }
    }
}

fn truncnorm(u: &mut Sub, alpha: f64, beta: f64) -> f64 {
    if alpha <= 0.0 && beta >= 0.0 && beta - alpha >= 2.0 {
        loop {
            let z = u.normal();
            if z >= alpha && z <= beta {
                return z;
            }
        }
    }
    let flip = beta <= 0.0;
    let lo = if flip { -beta } else { alpha };
    let hi = if flip { -alpha } else { beta };
    let w = hi - lo;
    let mut z;
    if lo >= 0.0 && (w > 1.0 || w * lo > 1.0) {
        let lam = 0.5 * (lo + lo.mul_add(lo, 4.0).sqrt());
        loop {
            z = lo - ln(u.uniform_pos()) / lam;
            let d = z - lam;
            if z <= hi && u.uniform() <= exp(-0.5 * (d * d)) {
                break;
            }
        }
    } else {
        let l2 = if lo > 0.0 { lo * lo } else { 0.0 };
        loop {
            z = w.mul_add(u.uniform(), lo);
            if u.uniform() <= exp(0.5 * (l2 - z * z)) {
                break;
            }
        }
    }
    if flip {
        -z
    } else {
        z
    }
}

/// A call's parameters (`rs_par`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Par<'a> {
    pub(crate) p: [f64; 4],
    pub(crate) aux: &'a [f64],
}

/// `rs_real<S>`: the continuous sampler `s` for element `j`.
pub(crate) fn real(s: Sampler, par: &Par<'_>, j: u64, key: u64, stream: u64) -> f64 {
    let [p0, p1, p2, p3] = par.p;
    let mut u = Sub::new(j, key, stream, 0);
    let second = || Sub::new(j, key, stream, 1 << 32);
    match s {
        Sampler::Gamma => p1 * gamma(&mut u, p0),
        Sampler::Beta => {
            let mut v = second();
            let lx = log_gamma(&mut u, p0);
            let ly = log_gamma(&mut v, p1);
            let mx = lx.max(ly);
            let x = exp(lx - mx);
            let y = exp(ly - mx);
            x / (x + y)
        }
        Sampler::Chisquare => 2.0 * gamma(&mut u, 0.5 * p0),
        Sampler::StandardT => {
            let mut v = second();
            let num = u.normal();
            let den = gamma(&mut v, 0.5 * p0);
            ((0.5 * p0).sqrt() * num) / den.sqrt()
        }
        Sampler::F => {
            let mut v = second();
            let a = 2.0 * gamma(&mut u, 0.5 * p0) * p1;
            let b = 2.0 * gamma(&mut v, 0.5 * p1) * p0;
            a / b
        }
        Sampler::Lognormal => exp(p1.mul_add(u.normal(), p0)),
        Sampler::Laplace => loop {
            let un = u.uniform();
            if un >= 0.5 {
                return (-p1).mul_add(ln(2.0 - (un + un)), p0);
            }
            if un > 0.0 {
                return p1.mul_add(ln(un + un), p0);
            }
        },
        Sampler::Logistic => loop {
            let un = u.uniform();
            if un > 0.0 {
                return p1.mul_add(ln(un / (1.0 - un)), p0);
            }
        },
        Sampler::Gumbel => loop {
            let un = 1.0 - u.uniform();
            if un < 1.0 {
                return (-p1).mul_add(ln(-ln(un)), p0);
            }
        },
        Sampler::Weibull => {
            if p0 == 0.0 {
                return 0.0;
            }
            pow(u.exponential(), 1.0 / p0)
        }
        Sampler::Rayleigh => p0 * (-2.0 * ln(u.uniform_pos())).sqrt(),
        Sampler::Pareto => expm1(u.exponential() / p0),
        Sampler::Power => pow(-expm1(-u.exponential()), 1.0 / p0),
        Sampler::StandardCauchy => {
            let a = u.normal();
            let b = u.normal();
            a / b
        }
        Sampler::Wald => {
            let mu_2l = p0 / (2.0 * p1);
            let mut y = u.normal();
            y = p0 * y * y;
            let x = mu_2l.mul_add(y - (4.0 * p1).mul_add(y, y * y).sqrt(), p0);
            let un = u.uniform();
            if un <= p0 / (p0 + x) {
                x
            } else {
                (p0 * p0) / x
            }
        }
        Sampler::Triangular => {
            let base = p2 - p0;
            let leftbase = p1 - p0;
            let ratio = leftbase / base;
            let un = u.uniform();
            if un <= ratio {
                p0 + (un * (leftbase * base)).sqrt()
            } else {
                p2 - ((1.0 - un) * ((p2 - p1) * base)).sqrt()
            }
        }
        Sampler::Vonmises => {
            let kappa = p1;
            if kappa < 1e-8 {
                return PI * 2.0f64.mul_add(u.uniform(), -1.0);
            }
            let s = if kappa < 1e-5 {
                1.0 / kappa + kappa
            } else {
                let r = 1.0 + (4.0 * kappa).mul_add(kappa, 1.0).sqrt();
                let rho = (r - (2.0 * r).sqrt()) / (2.0 * kappa);
                rho.mul_add(rho, 1.0) / (2.0 * rho)
            };
            let mut w;
            loop {
                let z = cospi(u.uniform());
                w = s.mul_add(z, 1.0) / (s + z);
                let y = kappa * (s - w);
                let v = u.uniform();
                if y * (2.0 - y) - v >= 0.0 {
                    break;
                }
                if (ln(y / v) + 1.0) - y >= 0.0 {
                    break;
                }
            }
            let mut result = acos(w);
            if u.uniform() < 0.5 {
                result = -result;
            }
            result += p0;
            let neg = result < 0.0;
            let mut md = result.abs() + PI;
            md = (-(md / (2.0 * PI)).floor()).mul_add(2.0 * PI, md);
            md -= PI;
            if neg {
                -md
            } else {
                md
            }
        }
        Sampler::TruncatedNormal => p1.mul_add(truncnorm(&mut u, p2, p3), p0),
        _ => unreachable!("not a continuous sampler"),
    }
}

/// `rs_int<S>`: the discrete sampler `s` for element `j`.
pub(crate) fn int(s: Sampler, par: &Par<'_>, j: u64, key: u64, stream: u64) -> i64 {
    let [p0, p1, p2, _] = par.p;
    let mut u = Sub::new(j, key, stream, 0);
    match s {
        Sampler::Poisson => poisson(&mut u, p0),
        Sampler::Binomial => binomial(&mut u, p0, p1),
        Sampler::NegativeBinomial => {
            if p1 == 1.0 {
                return 0;
            }
            let mut v = Sub::new(j, key, stream, 1 << 32);
            let y = gamma(&mut u, p0) * ((1.0 - p1) / p1);
            poisson(&mut v, y)
        }
        Sampler::Geometric => {
            if p0 == 1.0 {
                return 1;
            }
            let x = (ln(u.uniform_pos()) / log1p(-p0)).ceil();
            if x < 1.0 {
                1
            } else {
                x as i64
            }
        }
        Sampler::Hypergeometric => hypergeometric(&mut u, p0, p1, p2),
        Sampler::ChoiceCdf => {
            let un = u.uniform();
            let cdf = par.aux;
            let (mut lo, mut hi) = (0usize, cdf.len() - 1);
            while lo < hi {
                let mid = (lo + hi) >> 1;
                if cdf[mid] > un {
                    hi = mid;
                } else {
                    lo = mid + 1;
                }
            }
            lo as i64
        }
        _ => unreachable!("not a discrete sampler"),
    }
}

/// `rs_row<30>`: one Dirichlet row (values as f64, to be rounded by the caller as the
/// device's `rs_to`), its elements from substreams `j..j + K`.
pub(crate) fn dirichlet_row(alpha: &[f64], j: u64, key: u64, stream: u64, out: &mut Vec<f64>) {
    let (mut mx, mut sum) = (-INF, 0.0f64);
    for (k, &a) in alpha.iter().enumerate() {
        let lg = log_gamma(&mut Sub::new(j.wrapping_add(k as u64), key, stream, 0), a);
        if lg > mx {
            sum = sum.mul_add(exp(mx - lg), 1.0);
            mx = lg;
        } else {
            sum += exp(lg - mx);
        }
    }
    for (k, &a) in alpha.iter().enumerate() {
        let lg = log_gamma(&mut Sub::new(j.wrapping_add(k as u64), key, stream, 0), a);
        out.push(exp(lg - mx) / sum);
    }
}

/// `rs_row<31>`: one multinomial row of `n` trials.
pub(crate) fn multinomial_row(
    n: f64,
    pvals: &[f64],
    j: u64,
    key: u64,
    stream: u64,
    out: &mut Vec<i64>,
) {
    let kdim = pvals.len();
    let (mut left, mut rest) = (n, 1.0f64);
    for (k, &pk) in pvals.iter().enumerate() {
        let x = if k == kdim - 1 {
            left as i64
        } else {
            let mut u = Sub::new(j.wrapping_add(k as u64), key, stream, 0);
            let q = if rest > 0.0 {
                1.0f64.min(0.0f64.max(pk / rest))
            } else {
                0.0
            };
            let x = if left > 0.0 {
                binomial(&mut u, left, q)
            } else {
                0
            };
            rest -= pk;
            left -= x as f64;
            x
        };
        out.push(x);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn own_exp_and_ln_are_accurate() {
        for i in -2000..2000 {
            let x = i as f64 * 0.3517;
            let (a, b) = (exp(x), x.exp());
            assert!(((a - b) / b).abs() < 4e-16, "exp({x}) = {a} against {b}");
        }
        for i in 1..2000 {
            let x = i as f64 * 1.37e-3 + (i as f64).powi(3);
            assert!(
                (ln(x) - x.ln()).abs() <= 4e-16 * x.ln().abs().max(1.0),
                "ln({x})"
            );
        }
        assert_eq!(ln(0.0), -INF);
        assert_eq!(exp(-INF), 0.0);
        assert!((ln(1e-310) - 1e-310f64.ln()).abs() < 1e-12);
    }

    #[test]
    fn own_trig_and_loggam_are_accurate() {
        for i in 0..=1000 {
            let t = i as f64 / 1000.0;
            assert!((cospi(t) - (PI * t).cos()).abs() < 1e-15, "cospi({t})");
            let w = 2.0 * t - 1.0;
            assert!((acos(w) - w.acos()).abs() < 4e-15, "acos({w})");
            let z = t * 20.0;
            assert!((atan(z) - z.atan()).abs() < 1e-15, "atan({z})");
        }
        // ln Gamma at a few points: ln 4! = ln 24, ln Gamma(0.5) = ln sqrt(pi).
        assert!((loggam(5.0) - 24f64.ln()).abs() < 1e-13);
        assert!((loggam(0.5) - PI.sqrt().ln()).abs() < 1e-13);
        assert!((loggam(101.0) - 363.73937555556347).abs() < 1e-10);
        assert!((log1p(1e-20) - 1e-20).abs() < 1e-35);
        assert!((expm1(1e-10) - 1.00000000005e-10).abs() < 1e-24);
    }
}
