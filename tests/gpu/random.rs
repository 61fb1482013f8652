//! Random numbers on the GPU: Random123's known answers through the generator, every
//! distribution and dtype equal bit for bit to the host generator (at awkward sizes and
//! misaligned starting positions), the continuation property, seeds, 64-bit sizes, and
//! moments, Kolmogorov-Smirnov and chi-square statistics of 10^7 GPU samples per
//! distribution and dtype (thresholds: tests/support/stats.rs).

use crate::common::{ensure, gpu_trial, TResult};
use crate::stats::*;
use cuarray::random::{Generator, HostGenerator};
use cuarray::{s, DType, Device, Element, FloatElement, IntElement};
use half::{bf16, f16};
use libtest_mimic::Trial;
use std::sync::Arc;

/// Values as 64-bit patterns: float bits (through f64, exact), integers sign-extended.
type Bits = Vec<u64>;

fn bits<T: Element>(v: &[T]) -> Bits {
    v.iter()
        .map(|x| {
            if T::DTYPE.is_float() {
                x.to_f64().to_bits()
            } else {
                x.to_i64_wrapping() as u64
            }
        })
        .collect()
}

type GpuFn = dyn Fn(&mut Generator, &[usize]) -> cuarray::Result<Bits> + Send + Sync;
type HostFn = dyn Fn(&mut HostGenerator, &[usize]) -> Bits + Send + Sync;

/// One kind of call, on the GPU and on the host.
#[derive(Clone)]
struct Call {
    name: String,
    dtype: DType,
    gpu: Arc<GpuFn>,
    host: Arc<HostFn>,
}

macro_rules! call {
    ($name:expr, $t:ty, |$g:ident, $shape:ident| $body:expr) => {
        Call {
            name: $name.to_string(),
            dtype: <$t as Element>::DTYPE,
            gpu: Arc::new(|$g: &mut Generator, $shape: &[usize]| Ok(bits(&($body)?.to_host()?))),
            host: Arc::new(|$g: &mut HostGenerator, $shape: &[usize]| bits(&($body).unwrap())),
        }
    };
}

fn float_calls<T: FloatElement>() -> Vec<Call> {
    vec![
        call!("random", T, |g, s| g.random::<T>(s)),
        call!("uniform", T, |g, s| g.uniform(
            T::from_f64(-2.0),
            T::from_f64(3.0),
            s
        )),
        call!("standard_normal", T, |g, s| g.standard_normal::<T>(s)),
        call!("normal", T, |g, s| g.normal(
            T::from_f64(1.5),
            T::from_f64(2.0),
            s
        )),
        call!("exponential", T, |g, s| g.exponential(T::from_f64(0.5), s)),
    ]
}

/// Integers over a power-of-two range and a small range (1 word), and for 32- and 64-bit
/// types a range that rejects often (1 word, 2^23 + 1 values: one word in 512 takes its
/// slot's fallback block) and one of 2^24 + 3 values (2 words); for 64-bit types the full
/// range (4 words).
fn int_calls<T: IntElement>() -> Vec<Call> {
    let mut v = vec![
        call!("integers_pow2", T, |g, s| g.integers(
            T::from_u64_wrapping(0),
            T::from_u64_wrapping(64),
            s
        )),
        call!("integers_small", T, |g, s| g.integers(
            T::from_u64_wrapping(3),
            T::from_u64_wrapping(100),
            s
        )),
    ];
    if T::DTYPE.size() >= 4 {
        v.push(call!("integers_reject", T, |g, s| g.integers(
            T::from_u64_wrapping(5),
            T::from_u64_wrapping((1 << 23) + 6),
            s
        )));
        v.push(call!("integers_wide", T, |g, s| g.integers(
            T::from_u64_wrapping(0),
            T::from_u64_wrapping((1 << 24) + 3),
            s
        )));
    }
    if T::DTYPE.size() == 8 {
        v.push(call!("integers_full", T, |g, s| {
            let (lo, hi) = if T::DTYPE.is_signed_int() {
                (i64::MIN as u64, i64::MAX as u64)
            } else {
                (0, u64::MAX)
            };
            g.integers(T::from_u64_wrapping(lo), T::from_u64_wrapping(hi), s)
        }));
    }
    v
}

fn all_calls() -> Vec<Call> {
    let mut v = Vec::new();
    v.extend(float_calls::<f32>());
    v.extend(float_calls::<f64>());
    v.extend(float_calls::<f16>());
    v.extend(float_calls::<bf16>());
    v.extend(int_calls::<i8>());
    v.extend(int_calls::<i16>());
    v.extend(int_calls::<i32>());
    v.extend(int_calls::<i64>());
    v.extend(int_calls::<u8>());
    v.extend(int_calls::<u16>());
    v.extend(int_calls::<u32>());
    v.extend(int_calls::<u64>());
    v.push(call!("bernoulli", bool, |g, s| g.bernoulli(0.3, s)));
    v
}

/// Sizes around every edge of the kernel: empty, single values, part of a group of 4, one
/// thread block (256 groups = 1024 values) and past it, several blocks, odd large.
const SIZES: [usize; 12] = [
    0,
    1,
    2,
    3,
    4,
    5,
    1001,
    1024,
    1025,
    3 * 1024 + 7,
    65_537,
    1_000_003,
];

/// Starting positions (in words): aligned, and each misalignment within a block; then
/// just below and just past Philox block 2^32 (word 2^34), where the counter's low word
/// carries into its high word (a call across it takes the 64-bit kernel, one past it the
/// 32-bit kernel with a high word of 1).
const STARTS: [u128; 7] = [
    0,
    1,
    2,
    3,
    4 * 1000 + 6,
    (1 << 34) - 4 * 300 - 1,
    (1 << 34) + 6,
];

fn matches_host(dev: &Device, c: &Call) -> TResult {
    for (k, &start) in STARTS.iter().enumerate() {
        for &n in &SIZES {
            let seed = 0x5eed_0000 + k as u64;
            let mut g = Generator::new(dev, seed);
            g.set_position(start);
            let mut h = HostGenerator::new(seed);
            h.set_position(start);
            let got = (c.gpu)(&mut g, &[n])?;
            let want = (c.host)(&mut h, &[n]);
            ensure!(got.len() == n, "{} n={n}: {} values", c.name, got.len());
            if let Some(i) = (0..n).find(|&i| got[i] != want[i]) {
                return Err(format!(
                    "{} {} n={n} from word {start}: value {i} is {:#x}, host {:#x}",
                    c.name, c.dtype, got[i], want[i]
                )
                .into());
            }
            ensure!(
                g.position() == h.position(),
                "{}: position {} vs host {}",
                c.name,
                g.position(),
                h.position()
            );
        }
    }
    // A 2-d shape is the same stream in row-major order.
    let mut g = Generator::new(dev, 77);
    let mut h = HostGenerator::new(77);
    ensure!(
        (c.gpu)(&mut g, &[3, 5, 7])? == (c.host)(&mut h, &[105]),
        "{}: shape (3, 5, 7) differs from 105 values",
        c.name
    );
    Ok(())
}

fn continuation(dev: &Device, c: &Call) -> TResult {
    for (n, m) in [
        (1, 1),
        (3, 5),
        (5, 1024),
        (1001, 3),
        (1025, 4097),
        (7, 1_000_000),
    ] {
        let mut g = Generator::new(dev, 99);
        let mut a = (c.gpu)(&mut g, &[n])?;
        a.extend((c.gpu)(&mut g, &[m])?);
        let all = (c.gpu)(&mut Generator::new(dev, 99), &[n + m])?;
        ensure!(a == all, "{}: {n} then {m} differs from {}", c.name, n + m);
    }
    Ok(())
}

fn known_answers(dev: &Device) -> TResult {
    for (ctr, key, want) in cuarray::random::PHILOX_KAT {
        let seed = (key[1] as u64) << 32 | key[0] as u64;
        let blk = (ctr[1] as u64) << 32 | ctr[0] as u64;
        let stream = (ctr[3] as u64) << 32 | ctr[2] as u64;
        let mut g = Generator::with_counter(dev, seed, stream, 4 * blk as u128);
        // A power-of-two range of 2^32 takes one word per value: the raw words.
        let got = g.integers(0i64, 1 << 32, &[4])?.to_host()?;
        let want: Vec<i64> = want.iter().map(|&w| w as i64).collect();
        ensure!(got == want, "ctr {ctr:08x?} key {key:08x?}: {got:x?}");
    }
    Ok(())
}

fn seeds(dev: &Device) -> TResult {
    let a = Generator::new(dev, 1).random::<f32>(&[4096])?.to_host()?;
    let b = Generator::new(dev, 1).random::<f32>(&[4096])?.to_host()?;
    let c = Generator::new(dev, 2).random::<f32>(&[4096])?.to_host()?;
    ensure!(a == b, "the same seed gave different numbers");
    let same = a.iter().zip(&c).filter(|(x, y)| x == y).count();
    ensure!(same < 8, "seeds 1 and 2 agree on {same} of 4096 values");
    // Different CUDA streams, same numbers.
    let s = dev.new_stream()?;
    let on = s.device();
    let d = Generator::new(&on, 1).random::<f32>(&[4096])?.to_host()?;
    ensure!(a == d, "another CUDA stream gave different numbers");
    Ok(())
}

fn errors(dev: &Device) -> TResult {
    let mut g = Generator::new(dev, 0);
    ensure!(g.uniform(1.0f32, 1.0, &[1]).is_err(), "uniform(1, 1)");
    ensure!(
        g.uniform(0.0f64, f64::INFINITY, &[1]).is_err(),
        "uniform(0, inf)"
    );
    ensure!(g.normal(0.0f32, -1.0, &[1]).is_err(), "normal std -1");
    ensure!(g.exponential(-1.0f64, &[1]).is_err(), "exponential -1");
    ensure!(g.integers(5i32, 5, &[1]).is_err(), "integers(5, 5)");
    ensure!(g.bernoulli(1.5, &[1]).is_err(), "bernoulli(1.5)");
    ensure!(g.position() == 0, "failed calls moved the generator");
    let e = g.random::<f32>(&[0])?;
    ensure!(e.shape() == [0] && e.size() == 0, "empty shape");
    let z = g.standard_normal::<f64>(&[])?;
    ensure!(z.ndim() == 0 && z.size() == 1, "0-d result");
    Ok(())
}

/// Past 2^31 values (64-bit indices and counters beyond 2^32 words): spot checks against
/// values the host computes from their positions.
/// Arrays past one wave of the grid (each thread loops): the values match the host's.
fn many_trips(dev: &Device) -> TResult {
    let n = 20_000_003;
    let mut g = Generator::new(dev, 11);
    g.set_position(2);
    let mut h = HostGenerator::new(11);
    h.set_position(2);
    let got = g.random::<f32>(&[n])?.to_host()?;
    let want = h.random::<f32>(&[n])?;
    if let Some(i) = (0..n).find(|&i| got[i].to_bits() != want[i].to_bits()) {
        return Err(format!("uniform value {i}: {}, host {}", got[i], want[i]).into());
    }
    let got = g.standard_normal::<f32>(&[n])?.to_host()?;
    let want = h.standard_normal::<f32>(&[n])?;
    if let Some(i) = (0..n).find(|&i| got[i].to_bits() != want[i].to_bits()) {
        return Err(format!("normal value {i}: {}, host {}", got[i], want[i]).into());
    }
    Ok(())
}

fn large(dev: &Device) -> TResult {
    // 2 words per value past 2^31 values (groups counted in 32 bits), starting at word 4.
    let n = (1usize << 31) + 7;
    let (lo, hi) = (-3i32, (1 << 24) + 3);
    let mut g = Generator::new(dev, 5);
    g.set_position(3);
    let a = g.integers(lo, hi, &[n])?;
    let mut checks = vec![
        0usize,
        1,
        2,
        3,
        (1 << 30) - 1,
        1 << 30,
        (1 << 31) - 1,
        1 << 31,
    ];
    checks.extend(n - 8..n);
    for i in checks {
        let got = a.slice(s![i..i + 1])?.to_scalar()?;
        let mut h = HostGenerator::new(5);
        h.set_position(4 + 2 * i as u128);
        let want = h.integers(lo, hi, &[1]).unwrap()[0];
        ensure!(got == want, "i32 value {i}: {got}, host {want}");
    }
    drop(a);
    // 1 word per value past 2^33 values (more than 2^31 groups: counted in 64 bits),
    // starting at word 3 (a call that does not start on a group boundary).
    let n = (1usize << 33) + 5;
    let mut g = Generator::new(dev, 6);
    g.set_position(3);
    let a = g.integers(0u8, 200, &[n])?;
    let mut checks = vec![0usize, 1, 2, 3, 4, 5];
    for k in [31, 32, 33] {
        checks.extend(
            [(1usize << k) - 5, (1 << k) - 1, 1 << k, (1 << k) + 3]
                .into_iter()
                .filter(|&i| i < n),
        );
    }
    checks.extend(n - 8..n);
    for i in checks {
        let got = a.slice(s![i..i + 1])?.to_scalar()?;
        let mut h = HostGenerator::new(6);
        h.set_position(3 + i as u128);
        let want = h.integers(0u8, 200, &[1]).unwrap()[0];
        ensure!(got == want, "u8 value {i}: {got}, host {want}");
    }
    Ok(())
}

/// Samples of each float distribution on the GPU.
const N_STAT: usize = 10_000_000;

fn float_stats<T: FloatElement>(dev: &Device, dist: &'static str) -> TResult {
    let d = T::DTYPE;
    let mut g = Generator::new(dev, 0xabc ^ d.size() as u64);
    let f = |v: cuarray::DeviceArray<T>| -> cuarray::Result<Vec<f64>> {
        Ok(v.to_host()?.into_iter().map(|x| x.to_f64()).collect())
    };
    let what = format!("{dist} {d} (GPU)");
    let r = match dist {
        "random" => {
            let u = f(g.random::<T>(&[N_STAT])?)?;
            ensure!(
                u.iter().all(|x| (0.0..1.0).contains(x)),
                "{what}: a value outside [0, 1)"
            );
            check_float(&what, d, &u, |x| x, (0.5, 1.0 / 12.0, 1.8), Some(1.0))
        }
        "uniform" => {
            let u = f(g.uniform(T::from_f64(-2.0), T::from_f64(3.0), &[N_STAT])?)?;
            ensure!(
                u.iter().all(|x| (-2.0..3.0).contains(x)),
                "{what}: a value outside [-2, 3)"
            );
            check_float(
                &what,
                d,
                &u,
                |x| (x + 2.0) / 5.0,
                (0.5, 25.0 / 12.0, 1.8),
                Some(3.0),
            )
        }
        "standard_normal" => {
            let z = f(g.standard_normal::<T>(&[N_STAT])?)?;
            check_float(&what, d, &z, phi, (0.0, 1.0, 3.0), None)
        }
        "normal" => {
            let z = f(g.normal(T::from_f64(1.5), T::from_f64(2.0), &[N_STAT])?)?;
            check_float(
                &what,
                d,
                &z,
                |x| phi((x - 1.5) / 2.0),
                (1.5, 4.0, 3.0),
                None,
            )
        }
        _ => {
            let x = f(g.exponential(T::from_f64(0.5), &[N_STAT])?)?;
            ensure!(
                x.iter().all(|v| *v >= 0.0 && v.is_sign_positive()),
                "{what}: a negative value"
            );
            check_float(
                &what,
                d,
                &x,
                |v| 1.0 - (-v / 0.5).exp(),
                (0.5, 0.25, 9.0),
                None,
            )
        }
    };
    r.map_err(Into::into)
}

fn offsets<T: IntElement>(dev: &Device, low: T, high: T) -> Result<Vec<u128>, String> {
    let wide = |v: T| -> i128 {
        let w = v.to_i64_wrapping();
        if T::DTYPE.is_signed_int() {
            w as i128
        } else {
            w as u64 as i128
        }
    };
    let v = Generator::new(dev, 0x1e7)
        .integers(low, high, &[N_STAT])
        .and_then(|a| a.to_host())
        .map_err(|e| e.to_string())?;
    v.into_iter()
        .map(|x| {
            let o = wide(x) - wide(low);
            if (0..wide(high) - wide(low)).contains(&o) {
                Ok(o as u128)
            } else {
                Err(format!("{x} outside [{low}, {high})"))
            }
        })
        .collect()
}

fn int_stats(dev: &Device) -> TResult {
    for (what, range, offs) in [
        ("u8 [1, 7)", 6u128, offsets(dev, 1u8, 7)?),
        ("i32 [-500, 500)", 1000, offsets(dev, -500i32, 500)?),
        ("i16 full", 65535, offsets(dev, i16::MIN, i16::MAX)?),
    ] {
        let counts = bucket_counts(offs.into_iter(), range, range as usize);
        check_uniform_counts(what, &counts)?;
    }
    for (what, range, offs) in [
        (
            "i64 full",
            u64::MAX as u128,
            offsets(dev, i64::MIN, i64::MAX)?,
        ),
        ("u64 full", u64::MAX as u128, offsets(dev, 0u64, u64::MAX)?),
        ("i64 3 * 2^61", 3 << 61, offsets(dev, 0i64, 3 << 61)?),
        // One word per value, one word in 512 rejected (Lemire) and redrawn.
        (
            "i32 2^23 + 1",
            (1 << 23) + 1,
            offsets(dev, 0i32, (1 << 23) + 1)?,
        ),
        (
            "u32 3 * 10^9",
            3_000_000_000,
            offsets(dev, 0u32, 3_000_000_000)?,
        ),
    ] {
        let counts = bucket_counts(offs.iter().copied(), range, 1000);
        check_uniform_counts(&format!("{what}, 1000 buckets"), &counts)?;
        let low = bucket_counts(offs.iter().map(|&o| o % 1024), 1024, 1024);
        check_uniform_counts(&format!("{what}, low 10 bits"), &low)?;
    }
    Ok(())
}

fn bernoulli_stats(dev: &Device) -> TResult {
    for p in [0.3, 0.001, 0.5] {
        let v = Generator::new(dev, 3).bernoulli(p, &[N_STAT])?.to_host()?;
        let k = v.iter().filter(|&&b| b).count() as f64;
        let n = N_STAT as f64;
        let se = (n * p * (1.0 - p)).sqrt();
        ensure!(
            (k - n * p).abs() < SIGMAS * se,
            "bernoulli({p}): {k} of {n}"
        );
    }
    let all = Generator::new(dev, 3)
        .bernoulli(1.0, &[10_001])?
        .to_host()?;
    ensure!(all.iter().all(|&b| b), "bernoulli(1) gave a false");
    let none = Generator::new(dev, 3)
        .bernoulli(0.0, &[10_001])?
        .to_host()?;
    ensure!(none.iter().all(|&b| !b), "bernoulli(0) gave a true");
    Ok(())
}

pub fn trials(out: &mut Vec<Trial>) {
    out.push(gpu_trial("random/kat/u32/philox4x32_10", known_answers));
    out.push(gpu_trial("random/seeds/f32/same_and_different", seeds));
    out.push(gpu_trial("random/errors/all/bad_arguments", errors));
    out.push(gpu_trial("random/large/i32_u8/past_2^31_and_2^33", large));
    out.push(gpu_trial("random/grid/f32/many_trips", many_trips));
    for c in all_calls() {
        let c2 = c.clone();
        out.push(gpu_trial(
            format!("random/{}/{}/matches_host", c.name, c.dtype),
            move |dev| matches_host(dev, &c),
        ));
        out.push(gpu_trial(
            format!("random/{}/{}/continuation", c2.name, c2.dtype),
            move |dev| continuation(dev, &c2),
        ));
    }
    for dist in [
        "random",
        "uniform",
        "standard_normal",
        "normal",
        "exponential",
    ] {
        out.push(gpu_trial(format!("random/{dist}/f32/stats"), move |dev| {
            float_stats::<f32>(dev, dist)
        }));
        out.push(gpu_trial(format!("random/{dist}/f64/stats"), move |dev| {
            float_stats::<f64>(dev, dist)
        }));
        out.push(gpu_trial(format!("random/{dist}/f16/stats"), move |dev| {
            float_stats::<f16>(dev, dist)
        }));
        out.push(gpu_trial(format!("random/{dist}/bf16/stats"), move |dev| {
            float_stats::<bf16>(dev, dist)
        }));
    }
    out.push(gpu_trial("random/integers/all/stats", int_stats));
    out.push(gpu_trial("random/bernoulli/bool/stats", bernoulli_stats));
}
