//! Statistical properties of `cuarray::random` computed on the host ([`HostGenerator`],
//! the same numbers the GPU makes): moments and Kolmogorov-Smirnov statistics of every
//! float distribution and dtype, chi-square of integers over ranges that are not powers
//! of two (including the full i64/u64 range, bucketed), bernoulli frequencies, and values
//! never outside their range. Thresholds: tests/support/stats.rs (a correct generator fails
//! less than once in 10^6 runs). The GPU tier repeats these on 10^7 GPU samples.

#[path = "support/stats.rs"]
mod stats;

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
