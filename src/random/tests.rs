//! Unit tests of the generator's layout and arithmetic: known answers through the public
//! generator, values recomputed from the definition of the stream, the never-`high` rule on
//! every word near the top, integer maps at their extreme words, argument checks and the
//! position accounting. Statistical tests are in tests/random_host.rs (host) and
//! tests/gpu/random.rs (GPU).

use super::host::{draw_group, next_down_of, Dist, Real};
use super::philox::block;
use super::*;
use half::{bf16, f16};

use super::philox::KAT;

/// The generator whose next words are the block `ctr` under `key`.
fn at_counter(ctr: [u32; 4], key: [u32; 2]) -> HostGenerator {
    let seed = (key[1] as u64) << 32 | key[0] as u64;
    let blk = (ctr[1] as u64) << 32 | ctr[0] as u64;
    let stream = (ctr[3] as u64) << 32 | ctr[2] as u64;
    HostGenerator::with_counter(seed, stream, 4 * blk as u128)
}

#[test]
fn known_answers_through_the_generator() {
    for (ctr, key, want) in KAT {
        // [0, 2^32) is a power-of-two range of one word: the raw words.
        let mut g = at_counter(ctr, key);
        let got = g.integers(0i64, 1 << 32, &[4]).unwrap();
        assert_eq!(got, want.map(|w| w as i64).to_vec(), "ctr {ctr:08x?}");
        // And full-range u32 words read as i64 in [-2^31, 2^31): the same bits.
        let mut g = at_counter(ctr, key);
        let got = g.integers(i32::MIN as i64, 1 << 31, &[4]).unwrap();
        let want2: Vec<i64> = want.iter().map(|&w| (i32::MIN as i64) + w as i64).collect();
        assert_eq!(got, want2);
    }
}

/// Word `k` of the stream `(seed, stream)`, from the definition.
fn word(seed: u64, stream: u64, k: u128) -> u32 {
    philox::block(seed, stream, (k / 4) as u64)[(k % 4) as usize]
}

/// Value `i` of a call of `dist` whose first word is `start`, from the definition in the
/// module documentation (slot by slot, pairs by absolute slot for normals).
fn by_definition<T: Element>(seed: u64, dist: Dist, start: u128, i: u128) -> (f64, u64) {
    let w = dist.words(T::DTYPE) as u128;
    let slot = start / w + i;
    let words = |s: u128| -> Vec<u32> { (0..w).map(|k| word(seed, 0, s * w + k)).collect() };
    let real = |x: f64| T::from_f64(x).to_f64();
    let wide = T::DTYPE == DType::F64;
    // -2 ln u, u = unit_pos of the words (exact twins of the device's).
    let neg2_ln = |ws: &[u32]| {
        if wide {
            <f64 as Real>::neg2_ln(ws)
        } else {
            <f32 as Real>::neg2_ln(ws) as f64
        }
    };
    match dist {
        Dist::Uniform { low, high } => {
            let ws = words(slot);
            // low + (high - low) 2^-k m by one FMA, m the top-bits integer (the step
            // (high - low) 2^-k rounded first).
            let x = if wide {
                let m = (u64::from(ws[1]) << 32 | u64::from(ws[0])) >> 11;
                let v = (m as f64).mul_add((high - low) * 2f64.powi(-53), low);
                debug_assert!(v.is_finite());
                if v >= high {
                    Real::next_down(high)
                } else {
                    v
                }
            } else {
                let (l, h) = (low as f32, high as f32);
                let v = ((ws[0] >> 8) as f32).mul_add((h - l) * 2f32.powi(-24), l);
                (if v >= h { Real::next_down(h) } else { v }) as f64
            };
            let y = real(x);
            (
                if y >= high {
                    next_down_of(T::DTYPE, high)
                } else {
                    y
                },
                0,
            )
        }
        Dist::Normal { mean, std } => {
            let first = slot - slot % 2;
            let (a, b) = (words(first), words(first + 1));
            // rs = sqrt(-2 ln u) std, rounded once; the values mean + rs cos, mean + rs sin.
            let (c, s, rad) = if wide {
                let (c, s) = <f64 as Real>::cos_sin(&b);
                (c, s, neg2_ln(&a).sqrt())
            } else {
                let (c, s) = <f32 as Real>::cos_sin(&b);
                let r = (neg2_ln(&a) as f32).sqrt();
                (c as f64, s as f64, r as f64)
            };
            let trig = if slot.is_multiple_of(2) { c } else { s };
            // (0, 1): r cos and r sin, one rounding each.
            let v = match (wide, mean == 0.0 && std == 1.0) {
                (true, true) => rad * trig,
                (true, false) => trig.mul_add(rad * std, mean),
                (false, true) => (rad as f32 * trig as f32) as f64,
                (false, false) => {
                    (trig as f32).mul_add(rad as f32 * std as f32, mean as f32) as f64
                }
            };
            (real(v), 0)
        }
        Dist::Exponential { scale } => {
            // (-2 ln u) (scale / 2): the product -ln(u) scale, +0 at u = 1.
            let l = neg2_ln(&words(slot));
            let v = if wide {
                l * (scale * 0.5)
            } else {
                (l as f32 * (scale as f32 * 0.5)) as f64
            };
            (real(v), 0)
        }
        Dist::Integers {
            low,
            range,
            words: wn,
        } => {
            let ws = words(slot);
            let x: u128 = ws
                .iter()
                .enumerate()
                .map(|(k, &v)| (v as u128) << (32 * k))
                .sum();
            let off = match wn {
                1 => {
                    // Lemire: accepted when (x range) mod 2^32 >= 2^32 mod range; else the
                    // fallback block of the slot (its group's counter under the seed plus
                    // (e + 1) 0x9E3779B97F4A7C15), 64 bits, times range, over 2^64.
                    let m = x * range as u128;
                    if (m % (1 << 32)) < (1u128 << 32) % range as u128 {
                        let (grp, e) = ((slot / 4) as u64, (slot % 4) as u64);
                        let key = seed.wrapping_add((e + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
                        let b = block(key, 0, grp);
                        let y = u64::from(b[1]) << 32 | u64::from(b[0]);
                        (y as u128 * range as u128) >> 64
                    } else {
                        m >> 32
                    }
                }
                4 => {
                    // floor(x * range / 2^128) with x < 2^128: split to stay in u128.
                    let (xl, xh) = (x as u64 as u128, x >> 64);
                    (xh * range as u128 + ((xl * range as u128) >> 64)) >> 64
                }
                _ => (x * range as u128) >> (32 * wn),
            };
            (0.0, low.wrapping_add(off as u64))
        }
        Dist::Bernoulli { threshold } => (0.0, ((words(slot)[0] as u64) < threshold) as u64),
    }
}

fn check_against_definition<T: Element>(dist: Dist, narrow: impl Fn(u64) -> T + Copy) {
    let seed = 0x1234_5678_9abc_def0;
    for start_words in [0u128, 1, 2, 3, 5, 4 * ((1u128 << 64) - 1) + 1] {
        for n in [0usize, 1, 3, 4, 5, 17] {
            let mut g = HostGenerator::with_counter(seed, 0, start_words);
            let span = g.state.span(dist.words(T::DTYPE));
            let got = g.fill(dist, &[n], narrow).unwrap();
            assert_eq!(got.len(), n);
            for (i, v) in got.iter().enumerate() {
                let (f, u) = by_definition::<T>(seed, dist, span.start, i as u128);
                let ok = if T::DTYPE.is_float() {
                    v.to_f64().to_bits() == f.to_bits()
                } else {
                    *v == narrow(u)
                };
                assert!(
                    ok,
                    "{dist:?} {}: value {i} of {n} from word {start_words}: {v} vs {f}/{u}",
                    T::DTYPE
                );
            }
        }
    }
}

#[test]
fn values_follow_the_documented_layout() {
    let floats = [
        Dist::Uniform {
            low: -2.0,
            high: 3.0,
        },
        Dist::Normal {
            mean: 1.0,
            std: 2.0,
        },
        Dist::Exponential { scale: 0.5 },
    ];
    for d in floats {
        check_against_definition::<f32>(d, |_| 0.0);
        check_against_definition::<f64>(d, |_| 0.0);
        check_against_definition::<f16>(d, |_| f16::ZERO);
        check_against_definition::<bf16>(d, |_| bf16::ZERO);
    }
    for (lo, hi) in [
        (0i64, 8),
        (-3, 7),
        (0, 1 << 32),
        (i64::MIN, i64::MAX),
        (-5, 3 << 40),
        (0, 1 << 40),
    ] {
        let d = integers_dist(lo, hi).unwrap();
        check_against_definition::<i64>(d, |v| v as i64);
    }
    check_against_definition::<u64>(integers_dist(0u64, u64::MAX).unwrap(), |v| v);
    check_against_definition::<i8>(integers_dist(-128i8, 127).unwrap(), |v| v as i8);
    check_against_definition::<bool>(bernoulli_dist(0.3).unwrap(), |v| v != 0);
}

#[test]
fn integer_ranges_choose_their_words() {
    let w = |d: Dist| match d {
        Dist::Integers { words, .. } => words,
        _ => unreachable!(),
    };
    assert_eq!(w(integers_dist(0u8, 128).unwrap()), 1);
    assert_eq!(w(integers_dist(0u8, 255).unwrap()), 1);
    assert_eq!(w(integers_dist(0i32, 1000).unwrap()), 1);
    assert_eq!(w(integers_dist(0i32, 1 << 24).unwrap()), 1);
    assert_eq!(w(integers_dist(0i32, (1 << 24) + 1).unwrap()), 2);
    assert_eq!(w(integers_dist(i32::MIN, i32::MAX).unwrap()), 2);
    assert_eq!(w(integers_dist(0i64, 1 << 32).unwrap()), 1);
    assert_eq!(w(integers_dist(0i64, (1 << 32) + 1).unwrap()), 4);
    assert_eq!(w(integers_dist(0i64, 1 << 62).unwrap()), 2);
    assert_eq!(w(integers_dist(i64::MIN, i64::MAX).unwrap()), 4);
    assert_eq!(w(integers_dist(0u64, u64::MAX).unwrap()), 4);
    assert_eq!(w(integers_dist(5u64, 6).unwrap()), 1);
}

#[test]
fn integer_maps_reach_both_ends_exactly() {
    for (lo, hi) in [
        (i64::MIN, i64::MAX),
        (-7, 1000),
        (0, 1 << 32),
        (0, 3 << 61),
        (-1, 0),
        (100, 101),
        (0, 1 << 62),
    ] {
        let d = integers_dist(lo, hi).unwrap();
        // The smallest accepted word: 0, or for one-word ranges that reject (Lemire)
        // the first x with x range mod 2^32 >= 2^32 mod range.
        let x0 = match d {
            Dist::Integers {
                range, words: 1, ..
            } => (super::host::lemire_threshold(range, 1) as u64).div_ceil(range) as u32,
            _ => 0,
        };
        let (_, low) = draw_group::<i64>(d, AT, &[x0; 16]);
        assert_eq!(low[0] as i64, lo, "[{lo}, {hi}) at x = {x0}");
        let (_, top) = draw_group::<i64>(d, AT, &[u32::MAX; 16]);
        assert_eq!(top[3] as i64, hi - 1, "[{lo}, {hi}) at x = max");
    }
    // u64: the largest range.
    let d = integers_dist(0u64, u64::MAX).unwrap();
    assert_eq!(draw_group::<u64>(d, AT, &[u32::MAX; 16]).1[0], u64::MAX - 1);
    // A power-of-two range takes the top bits.
    let d = integers_dist(0u32, 8).unwrap();
    assert_eq!(
        draw_group::<u32>(d, AT, &[0xe000_0000, 0x1fff_ffff, 0x2000_0000, 0]).1,
        [7, 0, 1, 0]
    );
}

/// Where `draw_group` calls in these tests are in the stream: seed, stream, group.
const AT: (u64, u64, u64) = (0x1234_5678_9abc_def0, 3, 77);

#[test]
fn rejected_one_word_integers_take_their_slot_fallback_block() {
    // [0, 1000): 2^32 mod 1000 = 296, so words with (x 1000) mod 2^32 < 296 reject; x = 0
    // is one (m = 0). Word 1 is accepted (m = 1000): offset 0.
    let d = integers_dist(0i32, 1000).unwrap();
    assert_eq!(super::host::lemire_threshold(1000, 1), 296);
    let (_, v) = draw_group::<i32>(d, AT, &[0, 1, 0, u32::MAX]);
    let (seed, stream, grp) = AT;
    for e in [0usize, 2] {
        let key = seed.wrapping_add((e as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let b = block(key, stream, grp);
        let y = u64::from(b[1]) << 32 | u64::from(b[0]);
        assert_eq!(v[e], ((y as u128 * 1000) >> 64) as u64, "slot {e}");
    }
    assert_ne!(v[0], v[2], "slots' fallbacks differ");
    assert_eq!(v[1], 0);
    assert_eq!(v[3], 999);
}

/// Every word near the top (where `low + (high - low) u` can round up to `high`) and near
/// the bottom, for ranges whose rounding is awkward, in every float type.
/// Returns, per range, whether the largest value below `high` was produced (by the clamp).
fn never_high<T: FloatElement>(ranges: &[(f64, f64)]) -> Vec<bool> {
    let mut tops = Vec::new();
    for &(lo, hi) in ranges {
        let (lt, ht) = (T::from_f64(lo), T::from_f64(hi));
        if lt.to_f64() >= ht.to_f64() {
            // (bf16 has no 1001.)
            tops.push(false);
            continue;
        }
        let d = uniform_dist(lt, ht).unwrap();
        let (l, h) = (lt.to_f64(), ht.to_f64());
        let w = d.words(T::DTYPE) as usize;
        let mut seen_top = false;
        let mut check = |words: &[u32]| {
            let (v, _) = draw_group::<T>(d, AT, words);
            for x in v {
                let x = x.to_f64();
                assert!(x >= l && x < h, "{}: {x} outside [{l}, {h})", T::DTYPE);
                seen_top |= x == next_down_of(T::DTYPE, h);
            }
        };
        for k in 0..(1u32 << 16) {
            let top = u32::MAX - (k << 8);
            let bottom = k << 8;
            let mut r = [0u32; 8];
            for e in 0..4 {
                r[w * e + w - 1] = if e % 2 == 0 { top } else { bottom };
                if w == 2 {
                    r[w * e] = if e % 2 == 0 { u32::MAX } else { 0 };
                }
            }
            check(&r[..4 * w]);
        }
        tops.push(seen_top);
    }
    tops
}

#[test]
fn uniform_is_never_high() {
    let ranges = [
        (0.0, 1.0),
        (1.0, 2.0),
        (-1.0, 0.0),
        (-3.0, 1e-3),
        (1000.0, 1001.0),
        (-1.0, 1.0),
        (0.1, 0.3),
    ];
    // Where rounding reaches `high` ([1, 2) and [1000, 1001)), the clamp gives the value
    // below it.
    let t32 = never_high::<f32>(&ranges);
    assert!(t32[1] && t32[4], "{t32:?}");
    let t64 = never_high::<f64>(&ranges);
    assert!(t64[1] && t64[4], "{t64:?}");
    assert!(never_high::<f16>(&ranges)[..2].iter().all(|&t| t));
    assert!(never_high::<bf16>(&ranges)[..2].iter().all(|&t| t));
}

#[test]
fn normals_and_exponentials_are_finite_at_the_extreme_words() {
    for r in [
        [0u32; 8],
        [u32::MAX; 8],
        [0, u32::MAX, 0, u32::MAX, 0, u32::MAX, 0, u32::MAX],
    ] {
        let n = normal_dist(0.0f32, 1.0).unwrap();
        let (v, _) = draw_group::<f32>(n, AT, &r[..4]);
        assert!(v.iter().all(|x| x.is_finite() && x.abs() < 6.77), "{v:?}");
        let (v, _) = draw_group::<f64>(n, AT, &r);
        assert!(v.iter().all(|x| x.is_finite() && x.abs() < 8.6), "{v:?}");
        let e = exponential_dist(1.0f32).unwrap();
        let (v, _) = draw_group::<f32>(e, AT, &r[..4]);
        assert!(v
            .iter()
            .all(|x| x.is_finite() && *x >= 0.0 && x.is_sign_positive()));
        let (v, _) = draw_group::<f64>(e, AT, &r);
        assert!(v
            .iter()
            .all(|x| x.is_finite() && *x >= 0.0 && x.is_sign_positive()));
    }
    // The largest f32 normal: u = 2^-33 and angle 0 (the angle's word 2^29).
    let (v, _) = draw_group::<f32>(normal_dist(0.0f32, 1.0).unwrap(), AT, &[0, 1 << 29, 0, 0]);
    assert!((v[0] as f64 - (2.0 * 33.0 * std::f64::consts::LN_2).sqrt()).abs() < 1e-5);
}

#[test]
fn bernoulli_thresholds() {
    let t = |p| match bernoulli_dist(p).unwrap() {
        Dist::Bernoulli { threshold } => threshold,
        _ => unreachable!(),
    };
    assert_eq!(t(0.0), 0);
    assert_eq!(t(1.0), 1 << 32);
    assert_eq!(t(0.5), 1 << 31);
    let all = |p| draw_group::<bool>(bernoulli_dist(p).unwrap(), AT, &[0, 1, u32::MAX, 1 << 31]).1;
    assert_eq!(all(0.0), [0; 4]);
    assert_eq!(all(1.0), [1; 4]);
    assert_eq!(all(0.5), [1, 1, 0, 0]);
}

#[test]
fn bad_arguments_are_errors() {
    let mut g = HostGenerator::new(0);
    assert!(g.uniform(1.0f32, 1.0, &[1]).is_err());
    assert!(g.uniform(2.0f64, 1.0, &[1]).is_err());
    assert!(g.uniform(0.0f32, f32::INFINITY, &[1]).is_err());
    assert!(g.uniform(f64::NAN, 1.0, &[1]).is_err());
    assert!(g.uniform(-f32::MAX, f32::MAX, &[1]).is_err());
    assert!(g.uniform(-f16::MAX, f16::MAX, &[1]).is_ok());
    assert!(g.normal(0.0f32, -1.0, &[1]).is_err());
    assert!(g.normal(f64::INFINITY, 1.0, &[1]).is_err());
    assert!(g.normal(0.0f64, 0.0, &[1]).is_ok());
    assert!(g.exponential(-1.0f32, &[1]).is_err());
    assert!(g.exponential(f64::NAN, &[1]).is_err());
    assert!(g.integers(3i8, 3, &[1]).is_err());
    assert!(g.integers(4u64, 3, &[1]).is_err());
    assert!(g.bernoulli(-0.1, &[1]).is_err());
    assert!(g.bernoulli(1.5, &[1]).is_err());
    assert!(g.bernoulli(f64::NAN, &[1]).is_err());
    assert!(g.random::<f32>(&[usize::MAX, 2]).is_err());
    // Failed calls do not move the generator (1 word for the f16, 2 + 1 skipped for f64).
    assert_eq!(g.position(), 4);
    let e = g.integers(3i8, 3, &[1]).unwrap_err();
    assert!(e.to_string().contains("low < high"), "{e}");
}

#[test]
fn position_advances_by_words_rounded_per_kind() {
    let mut g = HostGenerator::new(9);
    g.random::<f32>(&[5]).unwrap();
    assert_eq!(g.position(), 5);
    g.random::<f64>(&[1]).unwrap(); // rounds 5 up to 6
    assert_eq!(g.position(), 8);
    g.integers(0i64, i64::MAX, &[1]).unwrap(); // 4 words
    assert_eq!(g.position(), 12);
    g.bernoulli(0.5, &[0]).unwrap();
    assert_eq!(g.position(), 12);
    g.standard_normal::<f16>(&[3]).unwrap();
    assert_eq!(g.position(), 15);
    g.set_position(2);
    assert_eq!(g.position(), 2);
}

fn continues<T: Element + std::fmt::Debug>(
    mut call: impl FnMut(&mut HostGenerator, usize) -> Vec<T>,
) {
    for (n, m) in [(0, 5), (1, 1), (3, 9), (5, 12), (6, 7), (1001, 77)] {
        let mut g = HostGenerator::new(0xfeed);
        g.set_position(3); // a misaligned start as well
        let mut a = call(&mut g, n);
        a.extend(call(&mut g, m));
        let mut h = HostGenerator::new(0xfeed);
        h.set_position(3);
        let all = call(&mut h, n + m);
        let bits = |v: &[T]| -> Vec<String> { v.iter().map(|x| format!("{x:?}")).collect() };
        assert_eq!(bits(&a), bits(&all), "split {n} + {m}");
        assert_eq!(g.position(), h.position());
    }
}

#[test]
fn continuation_holds_for_every_kind() {
    continues(|g, n| g.random::<f32>(&[n]).unwrap());
    continues(|g, n| g.random::<f64>(&[n]).unwrap());
    continues(|g, n| g.uniform(f16::from_f32(-1.0), f16::ONE, &[n]).unwrap());
    continues(|g, n| g.standard_normal::<f32>(&[n]).unwrap());
    continues(|g, n| g.normal(bf16::ONE, bf16::ONE, &[n]).unwrap());
    continues(|g, n| g.standard_normal::<f64>(&[n]).unwrap());
    continues(|g, n| g.exponential(2.0f64, &[n]).unwrap());
    continues(|g, n| g.integers(0u8, 6, &[n]).unwrap());
    continues(|g, n| g.integers(i64::MIN, i64::MAX, &[n]).unwrap());
    continues(|g, n| g.integers(0u32, 1 << 20, &[n]).unwrap());
    continues(|g, n| g.bernoulli(0.25, &[n]).unwrap());
}

#[test]
fn seeds_and_streams_differ() {
    let a = HostGenerator::new(1).random::<f32>(&[64]).unwrap();
    let b = HostGenerator::new(2).random::<f32>(&[64]).unwrap();
    let c = HostGenerator::with_counter(1, 1, 0)
        .random::<f32>(&[64])
        .unwrap();
    assert_eq!(a, HostGenerator::new(1).random::<f32>(&[64]).unwrap());
    let same = |x: &[f32], y: &[f32]| x.iter().zip(y).filter(|(p, q)| p == q).count();
    assert!(same(&a, &b) < 2 && same(&a, &c) < 2);
}
