//! Statistical properties of `cuarray::random` computed on the host ([`HostGenerator`],
//! the same numbers the GPU makes): moments and Kolmogorov-Smirnov statistics of every
//! float distribution and dtype, chi-square of integers over ranges that are not powers
//! of two (including the full i64/u64 range, bucketed), bernoulli frequencies, and values
//! never outside their range. Thresholds: tests/support/stats.rs (a correct generator fails
//! less than once in 10^6 runs). The GPU tier repeats these on 10^7 GPU samples.

#[path = "support/stats.rs"]
mod stats;

#[path = "support/dists.rs"]
mod dists;

use cuarray::random::HostGenerator;
use cuarray::{DType, FloatElement, IntElement};
use half::{bf16, f16};
use stats::*;

/// Samples per distribution and dtype (the host tests run unoptimised).
const N: usize = 1 << 20;

fn to_f64<T: FloatElement>(v: Vec<T>) -> Vec<f64> {
    v.into_iter().map(|x| x.to_f64()).collect()
}

fn floats<T: FloatElement>(seed: u64) -> Result<(), String> {
    let d = T::DTYPE;
    let mut rng = HostGenerator::new(seed);
    let e = |e: cuarray::Error| e.to_string();
    // Uniform [0, 1) and [-2, 3).
    let u = to_f64(rng.random::<T>(&[N]).map_err(e)?);
    if let Some(x) = u.iter().find(|&&x| !(0.0..1.0).contains(&x)) {
        return Err(format!("random {d}: {x} outside [0, 1)"));
    }
    check_float(
        &format!("random {d}"),
        d,
        &u,
        |x| x,
        (0.5, 1.0 / 12.0, 1.8),
        Some(1.0),
    )?;
    let (lo, hi) = (T::from_f64(-2.0), T::from_f64(3.0));
    let u = to_f64(rng.uniform(lo, hi, &[N]).map_err(e)?);
    if let Some(x) = u.iter().find(|&&x| !(-2.0..3.0).contains(&x)) {
        return Err(format!("uniform {d}: {x} outside [-2, 3)"));
    }
    check_float(
        &format!("uniform(-2, 3) {d}"),
        d,
        &u,
        |x| (x + 2.0) / 5.0,
        (0.5, 25.0 / 12.0, 1.8),
        Some(3.0),
    )?;
    // Normal (0, 1) and (1.5, 2).
    let z = to_f64(rng.standard_normal::<T>(&[N]).map_err(e)?);
    check_float(
        &format!("standard_normal {d}"),
        d,
        &z,
        phi,
        (0.0, 1.0, 3.0),
        None,
    )?;
    let z = to_f64(
        rng.normal(T::from_f64(1.5), T::from_f64(2.0), &[N])
            .map_err(e)?,
    );
    check_float(
        &format!("normal(1.5, 2) {d}"),
        d,
        &z,
        |x| phi((x - 1.5) / 2.0),
        (1.5, 4.0, 3.0),
        None,
    )?;
    // Exponential, scale 1 and 0.5.
    for scale in [1.0, 0.5] {
        let x = to_f64(rng.exponential(T::from_f64(scale), &[N]).map_err(e)?);
        if let Some(v) = x
            .iter()
            .find(|&&v| v.is_nan() || v < 0.0 || v.is_sign_negative())
        {
            return Err(format!("exponential {d}: {v}"));
        }
        check_float(
            &format!("exponential({scale}) {d}"),
            d,
            &x,
            |v| 1.0 - (-v / scale).exp(),
            (scale, scale * scale, 9.0),
            None,
        )?;
    }
    Ok(())
}

#[test]
fn f32_distributions() {
    floats::<f32>(11).unwrap();
}

#[test]
fn f64_distributions() {
    floats::<f64>(12).unwrap();
}

#[test]
fn f16_distributions() {
    floats::<f16>(13).unwrap();
}

#[test]
fn bf16_distributions() {
    floats::<bf16>(14).unwrap();
}

/// Offsets from `low` of `n` integers in `[low, high)`, as u128.
fn offsets<T: IntElement>(seed: u64, low: T, high: T, n: usize) -> Vec<u128> {
    let wide = |v: T| -> i128 {
        let w = v.to_i64_wrapping();
        if T::DTYPE.is_signed_int() {
            w as i128
        } else {
            w as u64 as i128
        }
    };
    let v = HostGenerator::new(seed).integers(low, high, &[n]).unwrap();
    v.into_iter()
        .map(|x| {
            let o = wide(x) - wide(low);
            assert!(
                (0..wide(high) - wide(low)).contains(&o),
                "{x} outside [{low}, {high})"
            );
            o as u128
        })
        .collect()
}

#[test]
fn integers_are_uniform_over_small_ranges() {
    // Every value of a small range, exactly.
    let cases: [(u128, Vec<u128>); 4] = [
        (6, offsets(21, 1u8, 7, N)),
        (1000, offsets(22, -500i32, 500, N)),
        (255, offsets(23, -128i8, 127, N)),
        (65535, offsets(24, 0u16, 65535, N)),
    ];
    for (range, offs) in cases {
        let counts = bucket_counts(offs.into_iter(), range, range as usize);
        check_uniform_counts(&format!("integers over {range} values"), &counts).unwrap();
        assert!(
            counts.iter().all(|&c| c > 0),
            "a value of {range} never drawn"
        );
    }
}

#[test]
fn integers_are_uniform_over_large_ranges() {
    let r = |lo: i128, hi: i128| (hi - lo) as u128;
    let cases: Vec<(String, u128, Vec<u128>)> = vec![
        (
            "i64 full".into(),
            r(i64::MIN as i128, i64::MAX as i128),
            offsets(31, i64::MIN, i64::MAX, N),
        ),
        (
            "u64 full".into(),
            u64::MAX as u128,
            offsets(32, 0u64, u64::MAX, N),
        ),
        (
            "i32 full".into(),
            r(i32::MIN as i128, i32::MAX as i128),
            offsets(33, i32::MIN, i32::MAX, N),
        ),
        // 3 * 2^61: 64 random bits would give some values twice the probability of others.
        ("3 * 2^61".into(), 3 << 61, offsets(34, 0i64, 3 << 61, N)),
        (
            "2^32 + 1".into(),
            (1 << 32) + 1,
            offsets(35, -(1i64 << 31), (1 << 31) + 1, N),
        ),
        (
            "3 * 10^9".into(),
            3_000_000_000,
            offsets(36, 0u32, 3_000_000_000, N),
        ),
    ];
    for (what, range, offs) in cases {
        let counts = bucket_counts(offs.iter().copied(), range, 1000);
        check_uniform_counts(&format!("integers {what}, 1000 buckets"), &counts).unwrap();
        // Low bits are as uniform as high ones.
        let low = bucket_counts(offs.iter().map(|&o| o % 1024), 1024, 1024);
        check_uniform_counts(&format!("integers {what}, low 10 bits"), &low).unwrap();
    }
}

#[test]
fn bernoulli_frequencies() {
    for (p, seed) in [(0.3, 41u64), (0.001, 42), (0.5, 43)] {
        let v = HostGenerator::new(seed).bernoulli(p, &[N]).unwrap();
        let k = v.iter().filter(|&&b| b).count() as f64;
        let n = N as f64;
        let se = (n * p * (1.0 - p)).sqrt();
        assert!(
            (k - n * p).abs() < SIGMAS * se,
            "bernoulli({p}): {k} of {n}"
        );
    }
    assert!(HostGenerator::new(1)
        .bernoulli(0.0, &[4096])
        .unwrap()
        .iter()
        .all(|&b| !b));
    assert!(HostGenerator::new(1)
        .bernoulli(1.0, &[4096])
        .unwrap()
        .iter()
        .all(|&b| b));
}

#[test]
fn float_dtypes_are_the_ones_tested() {
    // A guard: the four float dtypes above are every float dtype.
    let floats: Vec<DType> = DType::ALL.into_iter().filter(|d| d.is_float()).collect();
    assert_eq!(floats, [DType::F16, DType::BF16, DType::F32, DType::F64]);
}

// ---- NumPy's distributions (src/random/distributions.rs) ---------------------------------

/// Samples per distribution for the moment and chi-square checks.
const N_DIST: usize = 1_000_000;

fn host_cont(rng: &mut HostGenerator, c: dists::ContCall, n: usize) -> cuarray::Result<Vec<f64>> {
    sample_cont!(rng, f64, c, &[n])
}

fn host_disc(rng: &mut HostGenerator, c: dists::DiscCall, n: usize) -> cuarray::Result<Vec<i64>> {
    sample_disc!(rng, c, &[n])
}

/// Moments of a discrete distribution from its pmf (mean, variance, kurtosis).
fn pmf_moments(pmf: impl Fn(i64) -> f64, mean: f64, sd: f64) -> (f64, f64, f64) {
    let lo = (mean - 40.0 * sd - 10.0).floor().max(-1.0) as i64;
    let hi = (mean + 40.0 * sd + 10.0).ceil() as i64;
    let m = |f: &dyn Fn(f64) -> f64| (lo..=hi).map(|k| pmf(k) * f(k as f64)).sum::<f64>();
    let mu = m(&|x| x);
    let var = m(&|x| (x - mu).powi(2));
    let k4 = m(&|x| (x - mu).powi(4));
    (mu, var, k4 / (var * var))
}

#[test]
fn continuous_distributions_match_their_moments_and_supports() {
    let mut fails = vec![];
    for (i, c) in dists::continuous().into_iter().enumerate() {
        let mut rng = HostGenerator::new(100 + i as u64);
        let xs = host_cont(&mut rng, c.call, N_DIST).unwrap();
        if let Some(x) = xs
            .iter()
            .find(|&&x| !(x >= c.support.0 && x <= c.support.1))
        {
            fails.push(format!("{}: {x} outside {:?}", c.name, c.support));
            continue;
        }
        let r = match c.moments {
            Some((m, v, k)) => check_moments(c.name, &xs, m, v, k),
            None => check_ks(c.name, &xs, |x| 0.5 + x.atan() / std::f64::consts::PI),
        };
        if let Err(e) = r {
            fails.push(e);
        }
    }
    assert!(fails.is_empty(), "{fails:#?}");
}

#[test]
fn discrete_distributions_match_their_pmfs() {
    let mut fails = vec![];
    for (i, c) in dists::discrete().into_iter().enumerate() {
        let mut rng = HostGenerator::new(200 + i as u64);
        let xs = host_disc(&mut rng, c.call, N_DIST).unwrap();
        if let Some(x) = xs.iter().find(|&&x| x < c.support.0 || x > c.support.1) {
            fails.push(format!("{}: {x} outside {:?}", c.name, c.support));
            continue;
        }
        let (m, v) = c.call.moments();
        let (pm, pv, pk) = pmf_moments(|k| c.call.pmf(k), m, v.sqrt());
        assert!(
            (pm - m).abs() < 1e-6 * m.abs().max(1.0) && (pv - v).abs() < 1e-6 * v,
            "{}: pmf",
            c.name
        );
        let f: Vec<f64> = xs.iter().map(|&x| x as f64).collect();
        if let Err(e) = check_moments(c.name, &f, m, v, pk) {
            fails.push(e);
        }
        let (chi2, df) = dists::chi2_against_pmf(&xs, |k| c.call.pmf(k), m, v.sqrt());
        if chi2 > chi2_threshold(df) {
            fails.push(format!(
                "{}: chi-square {chi2:.1} > {:.1} ({df} df)",
                c.name,
                chi2_threshold(df)
            ));
        }
    }
    assert!(fails.is_empty(), "{fails:#?}");
}

#[test]
fn float_types_round_the_f64_values() {
    // f32 values are the f64 ones rounded once; the same element indices.
    let a = HostGenerator::new(5)
        .gamma::<f64>(2.5, 1.5, &[1000])
        .unwrap();
    let b = HostGenerator::new(5)
        .gamma::<f32>(2.5, 1.5, &[1000])
        .unwrap();
    assert!(a.iter().zip(&b).all(|(&x, &y)| x as f32 == y));
    let h = HostGenerator::new(5)
        .gamma::<f16>(2.5, 1.5, &[1000])
        .unwrap();
    assert!(a
        .iter()
        .zip(&h)
        .all(|(&x, &y)| f16::from_f32(x as f32) == y));
}

#[test]
fn samplers_continue_and_depend_on_the_element_only() {
    // Two calls equal one call of both sizes; the position advances by the element count.
    let mut rng = HostGenerator::new(9);
    let mut ab = rng.poisson(30.0, &[7]).unwrap();
    ab.extend(rng.poisson(30.0, &[13]).unwrap());
    assert_eq!(rng.position(), 20);
    assert_eq!(ab, HostGenerator::new(9).poisson(30.0, &[20]).unwrap());
    // A shape is only a count: [4, 5] is [20].
    assert_eq!(
        HostGenerator::new(9)
            .beta::<f64>(0.3, 0.7, &[4, 5])
            .unwrap(),
        HostGenerator::new(9).beta::<f64>(0.3, 0.7, &[20]).unwrap()
    );
    // Seeds differ.
    assert_ne!(
        HostGenerator::new(1)
            .standard_gamma::<f64>(2.0, &[8])
            .unwrap(),
        HostGenerator::new(2)
            .standard_gamma::<f64>(2.0, &[8])
            .unwrap()
    );
}

#[test]
fn dirichlet_and_multinomial_rows() {
    let alpha = [0.5, 1.0, 3.0, 0.01];
    let n = 200_000;
    let d = HostGenerator::new(3)
        .dirichlet::<f64>(&alpha, &[n])
        .unwrap();
    let a0: f64 = alpha.iter().sum();
    for (k, &a) in alpha.iter().enumerate() {
        let col: Vec<f64> = d.chunks(4).map(|r| r[k]).collect();
        // The marginal is Beta(a, a0 - a).
        let (al, be) = (a, a0 - a);
        let (m, v) = (a / a0, a * (a0 - a) / (a0 * a0 * (a0 + 1.0)));
        let ex = 6.0 * ((al - be).powi(2) * (a0 + 1.0) - al * be * (a0 + 2.0))
            / (al * be * (a0 + 2.0) * (a0 + 3.0));
        check_moments(&format!("dirichlet[{k}]"), &col, m, v, 3.0 + ex).unwrap();
    }
    assert!(d
        .chunks(4)
        .all(|r| (r.iter().sum::<f64>() - 1.0).abs() < 1e-12
            && r.iter().all(|&x| (0.0..=1.0).contains(&x))));
    let p = [0.2, 0.3, 0.1, 0.4];
    let c = HostGenerator::new(4).multinomial(50, &p, &[n]).unwrap();
    assert!(c
        .chunks(4)
        .all(|r| r.iter().sum::<i64>() == 50 && r.iter().all(|&x| x >= 0)));
    for (k, &pk) in p.iter().enumerate() {
        let col: Vec<f64> = c.chunks(4).map(|r| r[k] as f64).collect();
        check_moments(
            &format!("multinomial[{k}]"),
            &col,
            50.0 * pk,
            50.0 * pk * (1.0 - pk),
            3.5,
        )
        .unwrap();
    }
}

#[test]
fn choice_draws_by_p_and_without_replacement() {
    let p = [0.1, 0.0, 0.25, 0.65];
    let n = N_DIST;
    let x = HostGenerator::new(6)
        .choice(4, &[n], true, Some(&p))
        .unwrap();
    let mut counts = [0u64; 4];
    x.iter().for_each(|&i| counts[i as usize] += 1);
    assert_eq!(counts[1], 0, "a zero-probability index was drawn");
    let chi2: f64 = [0, 2, 3]
        .iter()
        .map(|&i| {
            let e = n as f64 * p[i];
            (counts[i] as f64 - e).powi(2) / e
        })
        .sum();
    assert!(chi2 < chi2_threshold(2), "choice with p: chi-square {chi2}");
    // Without replacement: distinct, and every index equally likely to be first.
    let mut firsts = [0u64; 10];
    let mut rng = HostGenerator::new(7);
    for _ in 0..20_000 {
        let s = rng.choice(10, &[3], false, None).unwrap();
        assert!(s[0] != s[1] && s[1] != s[2] && s[0] != s[2]);
        firsts[s[0] as usize] += 1;
    }
    check_uniform_counts("choice without replacement, first", &firsts).unwrap();
    // Without replacement with p: P(first = i) = p_i.
    let p = [0.5, 0.3, 0.2];
    let mut firsts = [0u64; 3];
    for _ in 0..30_000 {
        let s = rng.choice(3, &[2], false, Some(&p)).unwrap();
        assert_ne!(s[0], s[1]);
        firsts[s[0] as usize] += 1;
    }
    let chi2: f64 = (0..3)
        .map(|i| {
            let e = 30_000.0 * p[i];
            (firsts[i] as f64 - e).powi(2) / e
        })
        .sum();
    assert!(
        chi2 < chi2_threshold(2),
        "weighted choice without replacement: chi-square {chi2}"
    );
    // choice_from picks rows.
    let a: Vec<i32> = (0..12).collect();
    let r = HostGenerator::new(8)
        .choice_from(&a, &[4, 3], &[5], true, None)
        .unwrap();
    assert!(r
        .chunks(3)
        .all(|row| row[0] % 3 == 0 && row[1] == row[0] + 1 && row[2] == row[0] + 2));
}

#[test]
fn multivariate_normal_has_the_covariance() {
    let cov = [2.0, 0.6, 0.0, 0.6, 1.0, -0.3, 0.0, -0.3, 0.5];
    let mean = [1.0, -2.0, 0.5];
    let n = 200_000;
    let x = HostGenerator::new(10)
        .multivariate_normal(&mean, &cov, &[n])
        .unwrap();
    for i in 0..3 {
        for j in 0..3 {
            let c: f64 = x
                .chunks(3)
                .map(|v| (v[i] - mean[i]) * (v[j] - mean[j]))
                .sum::<f64>()
                / n as f64;
            let se = ((cov[i * 3 + i] * cov[j * 3 + j] + cov[i * 3 + j].powi(2)) / n as f64).sqrt();
            assert!((c - cov[i * 3 + j]).abs() < 6.0 * se, "cov[{i}, {j}] = {c}");
        }
    }
}

#[test]
fn invalid_parameters_are_errors_naming_them() {
    let mut rng = HostGenerator::new(0);
    let msg = |r: cuarray::Result<Vec<f64>>| r.unwrap_err().to_string();
    let msgi = |r: cuarray::Result<Vec<i64>>| r.unwrap_err().to_string();
    assert!(msg(rng.standard_gamma::<f64>(0.0, &[1])).contains("shape k"));
    assert!(msg(rng.gamma::<f64>(-1.0, 1.0, &[1])).contains("shape k"));
    assert!(msg(rng.gamma::<f64>(1.0, -1.0, &[1])).contains("scale"));
    assert!(msg(rng.beta::<f64>(1.0, 0.0, &[1])).contains("b must"));
    assert!(msg(rng.chisquare::<f64>(0.0, &[1])).contains("df"));
    assert!(msg(rng.f::<f64>(1.0, f64::NAN, &[1])).contains("dfden"));
    assert!(msg(rng.triangular::<f64>(0.0, 2.0, 1.0, &[1])).contains("mode"));
    assert!(msg(rng.truncated_normal::<f64>(0.0, 1.0, 1.0, 1.0, &[1])).contains("a < b"));
    assert!(msg(rng.vonmises::<f64>(0.0, -1.0, &[1])).contains("kappa"));
    assert!(msgi(rng.poisson(-1.0, &[1])).contains("lam"));
    assert!(msgi(rng.binomial(10, 1.5, &[1])).contains("p must"));
    assert!(msgi(rng.negative_binomial(0.0, 0.5, &[1])).contains("n must"));
    assert!(msgi(rng.geometric(0.0, &[1])).contains("p must"));
    assert!(msgi(rng.hypergeometric(2, 3, 6, &[1])).contains("nsample"));
    assert!(msgi(rng.multinomial(5, &[0.7, 0.6, 0.1], &[1])).contains("pvals"));
    assert!(msgi(rng.multinomial(5, &[-0.1, 1.1], &[1])).contains("pvals[0]"));
    assert!(rng
        .dirichlet::<f64>(&[1.0, 0.0], &[1])
        .unwrap_err()
        .to_string()
        .contains("alpha[1]"));
    assert!(msgi(rng.choice(3, &[4], false, None)).contains("replace"));
    assert!(msgi(rng.choice(3, &[2], true, Some(&[0.5, 0.4, 0.2]))).contains("sum"));
    assert!(msgi(rng.choice(3, &[2], true, Some(&[0.5, 0.6, -0.1]))).contains("p[2]"));
    assert!(msgi(rng.choice(3, &[2], true, Some(&[0.5, 0.5]))).contains("entries"));
    assert!(msgi(rng.choice(3, &[3], false, Some(&[0.5, 0.5, 0.0]))).contains("non-zero"));
    assert!(
        msg(rng.multivariate_normal(&[0.0, 0.0], &[1.0, 2.0, 2.0, 1.0], &[1]))
            .contains("positive semi-definite")
    );
    assert!(
        msg(rng.multivariate_normal(&[0.0, 0.0], &[1.0, 0.5, 0.4, 1.0], &[1]))
            .contains("symmetric")
    );
    // An error leaves the position where it was.
    assert_eq!(rng.position(), 0);
}
