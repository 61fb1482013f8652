//! The distributions of `Generator`/`HostGenerator` beyond uniform, normal and
//! exponential, as test cases: their parameters, exact moments (closed forms, or
//! quadrature of the density where the closed form needs special functions), supports and
//! pmfs. Shared by tests/random_host.rs and tests/gpu/random_dist.rs (`#[path]`).

#![allow(dead_code)]

use std::f64::consts::PI;

/// A continuous case: the call and its exact mean, variance and kurtosis (not excess),
/// and its support `[lo, hi]`. `moments` is None for the Cauchy (checked by its CDF).
#[derive(Debug, Clone, Copy)]
pub struct Cont {
    pub name: &'static str,
    pub call: ContCall,
    pub moments: Option<(f64, f64, f64)>,
    pub support: (f64, f64),
}

#[derive(Debug, Clone, Copy)]
pub enum ContCall {
    StandardGamma(f64),
    Gamma(f64, f64),
    Beta(f64, f64),
    Chisquare(f64),
    StandardT(f64),
    F(f64, f64),
    Lognormal(f64, f64),
    Laplace(f64, f64),
    Logistic(f64, f64),
    Gumbel(f64, f64),
    Weibull(f64),
    Rayleigh(f64),
    Pareto(f64),
    Power(f64),
    StandardCauchy,
    Wald(f64, f64),
    Triangular(f64, f64, f64),
    Vonmises(f64, f64),
    TruncatedNormal(f64, f64, f64, f64),
}

/// Mean, variance and kurtosis of a density on `[lo, hi]` by Simpson's rule (2^18 panels).
pub fn quad_moments(pdf: impl Fn(f64) -> f64, lo: f64, hi: f64) -> (f64, f64, f64) {
    let n = 1 << 18;
    let h = (hi - lo) / n as f64;
    let mut m = [0.0f64; 5];
    for i in 0..=n {
        let x = lo + i as f64 * h;
        let w = if i == 0 || i == n {
            1.0
        } else if i % 2 == 1 {
            4.0
        } else {
            2.0
        };
        let f = pdf(x) * w;
        let mut p = 1.0;
        for mk in m.iter_mut() {
            *mk += f * p;
            p *= x;
        }
    }
    let m: Vec<f64> = m.iter().map(|v| v * h / 3.0 / (m[0] * h / 3.0)).collect();
    let mean = m[1];
    let var = m[2] - mean * mean;
    let c4 = m[4] - 4.0 * mean * m[3] + 6.0 * mean * mean * m[2] - 3.0 * mean.powi(4);
    (mean, var, c4 / (var * var))
}

/// ln Gamma(x) for x > 0 (Lanczos, g = 7, 9 terms; about 1e-15 relative).
pub fn ln_gamma(x: f64) -> f64 {
    const C: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        return (PI / (PI * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut a = C[0];
    let t = x + 7.5;
    for (i, &c) in C.iter().enumerate().skip(1) {
        a += c / (x + i as f64);
    }
    0.5 * (2.0 * PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

fn std_normal_pdf(x: f64) -> f64 {
    (-0.5 * x * x).exp() / (2.0 * PI).sqrt()
}

/// Every continuous case.
pub fn continuous() -> Vec<Cont> {
    use ContCall::*;
    let g = 0.577_215_664_901_532_9;
    let s2 = 0.25f64; // lognormal sigma^2
    let lk = (4.0 * s2).exp() + 2.0 * (3.0 * s2).exp() + 3.0 * (2.0 * s2).exp() - 6.0 + 3.0;
    let wb = quad_moments(
        |x| {
            if x <= 0.0 {
                0.0
            } else {
                1.5 * x.sqrt() * (-x.powf(1.5)).exp()
            }
        },
        0.0,
        30.0,
    );
    let vm = {
        let k = 4.0;
        quad_moments(|x| (k * x.cos()).exp(), -PI, PI)
    };
    let tn1 = quad_moments(std_normal_pdf, -1.0, 2.0);
    let tn2 = quad_moments(std_normal_pdf, 2.0, 3.0);
    let tn3 = quad_moments(std_normal_pdf, 4.0, 40.0);
    let inf = f64::INFINITY;
    vec![
        Cont {
            name: "standard_gamma(2.5)",
            call: StandardGamma(2.5),
            moments: Some((2.5, 2.5, 3.0 + 6.0 / 2.5)),
            support: (0.0, inf),
        },
        Cont {
            name: "standard_gamma(0.3)",
            call: StandardGamma(0.3),
            moments: Some((0.3, 0.3, 3.0 + 6.0 / 0.3)),
            support: (0.0, inf),
        },
        Cont {
            name: "gamma(1, 2)",
            call: Gamma(1.0, 2.0),
            moments: Some((2.0, 4.0, 9.0)),
            support: (0.0, inf),
        },
        Cont {
            name: "gamma(30, 0.5)",
            call: Gamma(30.0, 0.5),
            moments: Some((15.0, 7.5, 3.2)),
            support: (0.0, inf),
        },
        Cont {
            name: "beta(2, 5)",
            call: Beta(2.0, 5.0),
            moments: Some((2.0 / 7.0, 10.0 / 392.0, 2.88)),
            support: (0.0, 1.0),
        },
        Cont {
            name: "beta(0.5, 0.5)",
            call: Beta(0.5, 0.5),
            moments: Some((0.5, 0.125, 1.5)),
            support: (0.0, 1.0),
        },
        Cont {
            name: "chisquare(3)",
            call: Chisquare(3.0),
            moments: Some((3.0, 6.0, 7.0)),
            support: (0.0, inf),
        },
        Cont {
            name: "standard_t(10)",
            call: StandardT(10.0),
            moments: Some((0.0, 1.25, 4.0)),
            support: (-inf, inf),
        },
        Cont {
            name: "f(5, 20)",
            call: F(5.0, 20.0),
            moments: Some((
                20.0 / 18.0,
                18400.0 / 25920.0,
                3.0 + 12.0 * 14154.0 / 19320.0,
            )),
            support: (0.0, inf),
        },
        Cont {
            name: "lognormal(0, 0.5)",
            call: Lognormal(0.0, 0.5),
            moments: Some(((s2 / 2.0).exp(), (s2.exp() - 1.0) * s2.exp(), lk)),
            support: (0.0, inf),
        },
        Cont {
            name: "laplace(1, 2)",
            call: Laplace(1.0, 2.0),
            moments: Some((1.0, 8.0, 6.0)),
            support: (-inf, inf),
        },
        Cont {
            name: "logistic(0, 1)",
            call: Logistic(0.0, 1.0),
            moments: Some((0.0, PI * PI / 3.0, 4.2)),
            support: (-inf, inf),
        },
        Cont {
            name: "gumbel(0.5, 2)",
            call: Gumbel(0.5, 2.0),
            moments: Some((0.5 + 2.0 * g, PI * PI * 4.0 / 6.0, 5.4)),
            support: (-inf, inf),
        },
        Cont {
            name: "weibull(1.5)",
            call: Weibull(1.5),
            moments: Some(wb),
            support: (0.0, inf),
        },
        Cont {
            name: "rayleigh(2)",
            call: Rayleigh(2.0),
            moments: Some((
                2.0 * (PI / 2.0).sqrt(),
                (4.0 - PI) / 2.0 * 4.0,
                3.0 - (6.0 * PI * PI - 24.0 * PI + 16.0) / ((4.0 - PI) * (4.0 - PI)),
            )),
            support: (0.0, inf),
        },
        Cont {
            name: "pareto(5)",
            call: Pareto(5.0),
            moments: Some((0.25, 5.0 / 48.0, 73.8)),
            support: (0.0, inf),
        },
        Cont {
            name: "power(3)",
            call: Power(3.0),
            moments: Some((0.75, 0.0375, 3.0 + 12.0 / 126.0)),
            support: (0.0, 1.0),
        },
        Cont {
            name: "standard_cauchy",
            call: StandardCauchy,
            moments: None,
            support: (-inf, inf),
        },
        Cont {
            name: "wald(1, 2)",
            call: Wald(1.0, 2.0),
            moments: Some((1.0, 0.5, 10.5)),
            support: (0.0, inf),
        },
        Cont {
            name: "triangular(0, 1, 3)",
            call: Triangular(0.0, 1.0, 3.0),
            moments: Some((4.0 / 3.0, 7.0 / 18.0, 2.4)),
            support: (0.0, 3.0),
        },
        Cont {
            name: "vonmises(0, 4)",
            call: Vonmises(0.0, 4.0),
            moments: Some(vm),
            support: (-PI, PI),
        },
        Cont {
            name: "truncated_normal(0, 1, -1, 2)",
            call: TruncatedNormal(0.0, 1.0, -1.0, 2.0),
            moments: Some(tn1),
            support: (-1.0, 2.0),
        },
        Cont {
            name: "truncated_normal(0, 1, 2, 3)",
            call: TruncatedNormal(0.0, 1.0, 2.0, 3.0),
            moments: Some(tn2),
            support: (2.0, 3.0),
        },
        Cont {
            name: "truncated_normal(1, 2, 9, inf)",
            call: TruncatedNormal(1.0, 2.0, 9.0, inf),
            moments: Some((1.0 + 2.0 * tn3.0, 4.0 * tn3.1, tn3.2)),
            support: (9.0, inf),
        },
    ]
}

/// A discrete case: the call, its pmf on `0..` (`pmf(k)`), its support `[lo, hi]`.
#[derive(Debug, Clone, Copy)]
pub struct Disc {
    pub name: &'static str,
    pub call: DiscCall,
    pub support: (i64, i64),
}

#[derive(Debug, Clone, Copy)]
pub enum DiscCall {
    Poisson(f64),
    Binomial(u64, f64),
    NegativeBinomial(f64, f64),
    Geometric(f64),
    Hypergeometric(u64, u64, u64),
}

impl DiscCall {
    /// P(X = k).
    pub fn pmf(&self, k: i64) -> f64 {
        let kf = k as f64;
        let lf = |x: f64| ln_gamma(x + 1.0);
        match *self {
            DiscCall::Poisson(l) => {
                if k < 0 {
                    0.0
                } else {
                    (-l + kf * l.ln() - lf(kf)).exp()
                }
            }
            DiscCall::Binomial(n, p) => {
                let n = n as f64;
                if k < 0 || kf > n {
                    0.0
                } else {
                    (lf(n) - lf(kf) - lf(n - kf) + kf * p.ln() + (n - kf) * (1.0 - p).ln()).exp()
                }
            }
            DiscCall::NegativeBinomial(n, p) => {
                if k < 0 {
                    0.0
                } else {
                    (ln_gamma(kf + n) - lf(kf) - ln_gamma(n) + n * p.ln() + kf * (1.0 - p).ln())
                        .exp()
                }
            }
            DiscCall::Geometric(p) => {
                if k < 1 {
                    0.0
                } else {
                    (1.0 - p).powi(k as i32 - 1) * p
                }
            }
            DiscCall::Hypergeometric(g, b, s) => {
                let (g, b, s) = (g as f64, b as f64, s as f64);
                if k < 0 || kf > s || kf > g || s - kf > b {
                    0.0
                } else {
                    let lc = |n: f64, r: f64| lf(n) - lf(r) - lf(n - r);
                    (lc(g, kf) + lc(b, s - kf) - lc(g + b, s)).exp()
                }
            }
        }
    }

    /// Exact mean and variance.
    pub fn moments(&self) -> (f64, f64) {
        match *self {
            DiscCall::Poisson(l) => (l, l),
            DiscCall::Binomial(n, p) => (n as f64 * p, n as f64 * p * (1.0 - p)),
            DiscCall::NegativeBinomial(n, p) => (n * (1.0 - p) / p, n * (1.0 - p) / (p * p)),
            DiscCall::Geometric(p) => (1.0 / p, (1.0 - p) / (p * p)),
            DiscCall::Hypergeometric(g, b, s) => {
                let (g, b, s) = (g as f64, b as f64, s as f64);
                let t = g + b;
                (s * g / t, s * g / t * (b / t) * (t - s) / (t - 1.0))
            }
        }
    }
}

/// Every discrete case.
pub fn discrete() -> Vec<Disc> {
    use DiscCall::*;
    vec![
        Disc {
            name: "poisson(0.5)",
            call: Poisson(0.5),
            support: (0, i64::MAX),
        },
        Disc {
            name: "poisson(10)",
            call: Poisson(10.0),
            support: (0, i64::MAX),
        },
        Disc {
            name: "poisson(1000)",
            call: Poisson(1000.0),
            support: (0, i64::MAX),
        },
        Disc {
            name: "binomial(100, 0.3)",
            call: Binomial(100, 0.3),
            support: (0, 100),
        },
        Disc {
            name: "binomial(20, 0.9)",
            call: Binomial(20, 0.9),
            support: (0, 20),
        },
        Disc {
            name: "binomial(100000, 0.02)",
            call: Binomial(100_000, 0.02),
            support: (0, 100_000),
        },
        Disc {
            name: "negative_binomial(2.5, 0.4)",
            call: NegativeBinomial(2.5, 0.4),
            support: (0, i64::MAX),
        },
        Disc {
            name: "geometric(0.2)",
            call: Geometric(0.2),
            support: (1, i64::MAX),
        },
        Disc {
            name: "geometric(0.7)",
            call: Geometric(0.7),
            support: (1, i64::MAX),
        },
        Disc {
            name: "hypergeometric(100, 200, 50)",
            call: Hypergeometric(100, 200, 50),
            support: (0, 50),
        },
        Disc {
            name: "hypergeometric(5, 10, 12)",
            call: Hypergeometric(5, 10, 12),
            support: (2, 5),
        },
    ]
}

/// Chi-square of integer samples against `pmf`: cells of single values where the
/// expected count is at least 20, the two tails merged into one cell each.
pub fn chi2_against_pmf(xs: &[i64], pmf: impl Fn(i64) -> f64, mean: f64, sd: f64) -> (f64, usize) {
    let n = xs.len() as f64;
    let lo_span = (mean - 12.0 * sd - 5.0).floor().max(-1.0) as i64;
    let hi_span = (mean + 12.0 * sd + 5.0).ceil() as i64;
    // Cells: values v in [a, b] individually where n pmf(v) >= 20; tails below a, above b.
    let vals: Vec<i64> = (lo_span..=hi_span)
        .filter(|&v| n * pmf(v) >= 20.0)
        .collect();
    let (a, b) = (vals[0], *vals.last().unwrap());
    let mut counts = std::collections::HashMap::<i64, f64>::new();
    let (mut below, mut above) = (0.0, 0.0);
    for &x in xs {
        if x < a {
            below += 1.0;
        } else if x > b {
            above += 1.0;
        } else {
            *counts.entry(x).or_default() += 1.0;
        }
    }
    let mut chi2 = 0.0;
    let mut cells = 0;
    let mut p_in = 0.0;
    for v in a..=b {
        let e = n * pmf(v);
        p_in += pmf(v);
        let o = counts.get(&v).copied().unwrap_or(0.0);
        chi2 += (o - e) * (o - e) / e.max(1e-300);
        cells += 1;
    }
    let p_below: f64 = (lo_span.min(a)..a).map(&pmf).sum();
    let p_above = (1.0 - p_in - p_below).max(0.0);
    for (o, p) in [(below, p_below), (above, p_above)] {
        let e = n * p;
        if e >= 5.0 {
            chi2 += (o - e) * (o - e) / e;
            cells += 1;
        } else if o > e + 10.0 * e.sqrt() + 10.0 {
            chi2 += 1e9; // far too many values in a tail of tiny mass
        }
    }
    (chi2, cells - 1)
}

/// Calls the sampler of `$c` (a [`ContCall`]) on `$g` (a `Generator` or a
/// `HostGenerator`: the same method names and arguments) for the shape `$s`, as `$t`.
#[macro_export]
macro_rules! sample_cont {
    ($g:expr, $t:ty, $c:expr, $s:expr) => {{
        use $crate::dists::ContCall::*;
        let (g, s) = ($g, $s);
        match $c {
            StandardGamma(k) => g.standard_gamma::<$t>(k, s),
            Gamma(k, t) => g.gamma::<$t>(k, t, s),
            Beta(a, b) => g.beta::<$t>(a, b, s),
            Chisquare(d) => g.chisquare::<$t>(d, s),
            StandardT(d) => g.standard_t::<$t>(d, s),
            F(a, b) => g.f::<$t>(a, b, s),
            Lognormal(m, v) => g.lognormal::<$t>(m, v, s),
            Laplace(m, v) => g.laplace::<$t>(m, v, s),
            Logistic(m, v) => g.logistic::<$t>(m, v, s),
            Gumbel(m, v) => g.gumbel::<$t>(m, v, s),
            Weibull(a) => g.weibull::<$t>(a, s),
            Rayleigh(a) => g.rayleigh::<$t>(a, s),
            Pareto(a) => g.pareto::<$t>(a, s),
            Power(a) => g.power::<$t>(a, s),
            StandardCauchy => g.standard_cauchy::<$t>(s),
            Wald(m, v) => g.wald::<$t>(m, v, s),
            Triangular(a, b, c) => g.triangular::<$t>(a, b, c, s),
            Vonmises(m, k) => g.vonmises::<$t>(m, k, s),
            TruncatedNormal(m, v, a, b) => g.truncated_normal::<$t>(m, v, a, b, s),
        }
    }};
}

/// Calls the sampler of `$c` (a [`DiscCall`]) on `$g` (a `Generator` or a
/// `HostGenerator`) for the shape `$s`.
#[macro_export]
macro_rules! sample_disc {
    ($g:expr, $c:expr, $s:expr) => {{
        use $crate::dists::DiscCall::*;
        let (g, s) = ($g, $s);
        match $c {
            Poisson(l) => g.poisson(l, s),
            Binomial(n, p) => g.binomial(n, p, s),
            NegativeBinomial(n, p) => g.negative_binomial(n, p, s),
            Geometric(p) => g.geometric(p, s),
            Hypergeometric(a, b, k) => g.hypergeometric(a, b, k, s),
        }
    }};
}
