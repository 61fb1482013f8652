//! Statistical checks of random samples, shared by tests/random_host.rs (host samples) and
//! tests/gpu/random.rs (GPU samples). Every threshold is chosen so that a correct
//! generator fails a check less than once in 10^6 runs: the Kolmogorov-Smirnov bound is
//! the Dvoretzky-Kiefer-Wolfowitz inequality with Massart's constant (rigorous for every
//! n and every distribution), moments use 6 standard errors (normal tail 2e-9, room for
//! skew), chi-square uses the Wilson-Hilferty quantile at 1 - 10^-6. Included with `#[path]`.

#![allow(dead_code)]

use half::{bf16, f16};

/// The largest false-failure probability of one check.
pub const P_FAIL: f64 = 1e-6;

/// Standard errors a mean or variance may be off by.
pub const SIGMAS: f64 = 6.0;

/// D such that P(sup |F_n - F| > D) <= P_FAIL for n samples (DKW-Massart:
/// P(D_n > e) <= 2 exp(-2 n e^2)).
pub fn ks_threshold(n: usize) -> f64 {
    ((2.0 / P_FAIL).ln() / (2.0 * n as f64)).sqrt()
}

/// The chi-square value with `df` degrees of freedom exceeded with probability P_FAIL
/// (Wilson-Hilferty; z = 4.7534 is the normal quantile at 1 - 10^-6).
pub fn chi2_threshold(df: usize) -> f64 {
    let k = df as f64;
    let z = 4.7534;
    k * (1.0 - 2.0 / (9.0 * k) + z * (2.0 / (9.0 * k)).sqrt()).powi(3)
}

/// erfc to 1.2e-7 relative (Numerical Recipes' Chebyshev fit).
pub fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let r = t
        * (-z * z - 1.26551223
            + t * (1.00002368
                + t * (0.37409196
                    + t * (0.09678418
                        + t * (-0.18628806
                            + t * (0.27886807
                                + t * (-1.13520398
                                    + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))))
            .exp();
    if x >= 0.0 {
        r
    } else {
        2.0 - r
    }
}

/// The standard normal CDF.
pub fn phi(x: f64) -> f64 {
    0.5 * erfc(-x / std::f64::consts::SQRT_2)
}

/// Mean and (population) variance, accumulated in f64 with a shift for accuracy.
pub fn mean_var(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let shift = xs.first().copied().unwrap_or(0.0);
    let (mut s, mut s2) = (0.0, 0.0);
    for &x in xs {
        let d = x - shift;
        s += d;
        s2 += d * d;
    }
    let m = s / n;
    (shift + m, s2 / n - m * m)
}

/// Checks the sample mean and variance against `mean`, `var` (and the distribution's
/// kurtosis, for the variance's standard error).
pub fn check_moments(
    what: &str,
    xs: &[f64],
    mean: f64,
    var: f64,
    kurtosis: f64,
) -> Result<(), String> {
    let n = xs.len() as f64;
    let (m, v) = mean_var(xs);
    let se_m = (var / n).sqrt();
    let se_v = var * ((kurtosis - 1.0) / n).sqrt();
    if (m - mean).abs() > SIGMAS * se_m {
        return Err(format!(
            "{what}: mean {m} vs {mean} ({:.1} standard errors)",
            (m - mean) / se_m
        ));
    }
    if (v - var).abs() > SIGMAS * se_v {
        return Err(format!(
            "{what}: variance {v} vs {var} ({:.1} standard errors)",
            (v - var) / se_v
        ));
    }
    Ok(())
}

/// The KS statistic of samples against a continuous CDF, evaluated at 2^20 equally
/// likely points (the probability integral transform into bins): a lower bound of the
/// full statistic within 2^-20 plus the largest bin's share, so its false-failure rate is
/// at most the full statistic's.
pub fn ks_continuous(xs: &[f64], cdf: impl Fn(f64) -> f64) -> f64 {
    const B: usize = 1 << 20;
    let mut counts = vec![0u32; B + 1];
    for &x in xs {
        let y = cdf(x).clamp(0.0, 1.0);
        counts[((y * B as f64) as usize).min(B)] += 1;
    }
    let n = xs.len() as f64;
    let mut below = 0u64; // samples with F(x) < k / B
    let mut d = 0f64;
    for (k, &c) in counts.iter().enumerate() {
        d = d.max((below as f64 / n - k as f64 / B as f64).abs());
        below += c as u64;
    }
    d
}

/// Checks the KS statistic of `xs` against a continuous CDF.
pub fn check_ks(what: &str, xs: &[f64], cdf: impl Fn(f64) -> f64) -> Result<(), String> {
    let d = ks_continuous(xs, cdf);
    let t = ks_threshold(xs.len());
    if d > t {
        return Err(format!("{what}: KS statistic {d:.3e} > {t:.3e}"));
    }
    Ok(())
}

/// A 16-bit float type, for the exact KS test of its discrete distribution.
pub trait Half16: Copy {
    fn bits(self) -> u16;
    fn value(bits: u16) -> f64;
}
impl Half16 for f16 {
    fn bits(self) -> u16 {
        self.to_bits()
    }
    fn value(bits: u16) -> f64 {
        f16::from_bits(bits).to_f64()
    }
}
impl Half16 for bf16 {
    fn bits(self) -> u16 {
        self.to_bits()
    }
    fn value(bits: u16) -> f64 {
        bf16::from_bits(bits).to_f64()
    }
}

/// The exact KS statistic of 16-bit float samples against the distribution of a continuous
/// one rounded to nearest: `cdf_at(t, next)` is P(X <= t) for the representable value `t`
/// whose successor is `next` (for rounding to nearest, F((t + next) / 2)). Evaluated at
/// every finite value of the type, where both step functions jump.
pub fn ks_discrete16<H: Half16>(xs: &[H], cdf_at: impl Fn(f64, f64) -> f64) -> f64 {
    let mut counts = vec![0u64; 1 << 16];
    for &x in xs {
        counts[x.bits() as usize] += 1;
    }
    let mut vals: Vec<(f64, u64)> = (0..=u16::MAX)
        .map(|b| (H::value(b), counts[b as usize]))
        .filter(|(v, _)| v.is_finite())
        .collect();
    vals.sort_by(|a, b| a.0.total_cmp(&b.0));
    // Merge -0 and +0.
    let mut merged: Vec<(f64, u64)> = Vec::with_capacity(vals.len());
    for (v, c) in vals {
        match merged.last_mut() {
            Some(last) if last.0 == v => last.1 += c,
            _ => merged.push((v, c)),
        }
    }
    let n = xs.len() as f64;
    let mut cum = 0u64;
    let mut d = 0f64;
    for k in 0..merged.len() {
        cum += merged[k].1;
        let next = merged.get(k + 1).map(|p| p.0).unwrap_or(f64::INFINITY);
        d = d.max((cum as f64 / n - cdf_at(merged[k].0, next)).abs());
    }
    d
}

/// Checks [`ks_discrete16`] against the DKW threshold.
pub fn check_ks16<H: Half16>(
    what: &str,
    xs: &[H],
    cdf_at: impl Fn(f64, f64) -> f64,
) -> Result<(), String> {
    let d = ks_discrete16(xs, cdf_at);
    let t = ks_threshold(xs.len());
    if d > t {
        return Err(format!("{what}: KS statistic {d:.3e} > {t:.3e}"));
    }
    Ok(())
}

/// Chi-square of `counts` against equal expected counts.
pub fn check_uniform_counts(what: &str, counts: &[u64]) -> Result<(), String> {
    let n: u64 = counts.iter().sum();
    let e = n as f64 / counts.len() as f64;
    let chi2: f64 = counts
        .iter()
        .map(|&c| (c as f64 - e) * (c as f64 - e) / e)
        .sum();
    let t = chi2_threshold(counts.len() - 1);
    if chi2 > t {
        return Err(format!(
            "{what}: chi-square {chi2:.1} > {t:.1} ({} cells)",
            counts.len()
        ));
    }
    Ok(())
}

/// Counts of integers `v - low` in `buckets` equal slices of `[0, range)` (every value's
/// offset must be below `range`).
pub fn bucket_counts(offsets: impl Iterator<Item = u128>, range: u128, buckets: usize) -> Vec<u64> {
    let mut counts = vec![0u64; buckets];
    for o in offsets {
        assert!(o < range, "offset {o} outside [0, {range})");
        counts[(o * buckets as u128 / range) as usize] += 1;
    }
    counts
}

/// Moments and KS of float samples of `dtype` (given as f64) against a continuous
/// distribution (`cdf`, `mean`, `var`, `kurtosis`): f16 and bf16 samples are tested
/// exactly against that distribution rounded to nearest, with everything in
/// `[top, high)` rounded down to `top` when `high` is given (uniform's never-high rule).
pub fn check_float(
    what: &str,
    dtype: cuarray::DType,
    xs: &[f64],
    cdf: impl Fn(f64) -> f64,
    (mean, var, kurtosis): (f64, f64, f64),
    high: Option<f64>,
) -> Result<(), String> {
    if let Some(bad) = xs.iter().find(|x| !x.is_finite()) {
        return Err(format!("{what}: a value is {bad}"));
    }
    check_moments(what, xs, mean, var, kurtosis)?;
    let at = |t: f64, next: f64| {
        if high.is_some_and(|h| next >= h) || next.is_infinite() {
            1.0
        } else {
            cdf(0.5 * (t + next)).clamp(0.0, 1.0)
        }
    };
    match dtype {
        cuarray::DType::F16 => {
            let h: Vec<f16> = xs.iter().map(|&x| f16::from_f64(x)).collect();
            check_ks16(what, &h, at)
        }
        cuarray::DType::BF16 => {
            let h: Vec<bf16> = xs.iter().map(|&x| bf16::from_f64(x)).collect();
            check_ks16(what, &h, at)
        }
        _ => check_ks(what, xs, cdf),
    }
}
