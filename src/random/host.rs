//! The host twin of `kernels/philox.cuh`: the same words, the same operations in the same
//! order, so the same bits. Basic IEEE operations (`+ - * /`, `sqrt`, `mul_add`, integer to
//! float `as`) are correctly rounded in Rust and in the `_rn` device intrinsics alike, and
//! `ln`, `cos` and `sin` are our own polynomials over them (and, for `f32`'s `ln`, a table
//! of 16 entries that philox.cuh holds too).

use super::philox;
use crate::element::{DType, Element};
use crate::kernels::family::random::{Distribution, RandomSpec};
use half::{bf16, f16};

/// Real arithmetic of one compute type (`f32` for f16, bf16 and f32; `f64` for f64), as
/// `rand_f32` / `rand_f64` in philox.cuh.
pub(crate) trait Real: Copy + PartialOrd + std::fmt::Debug {
    /// Words per value.
    const W: usize;
    fn param(p: f64) -> Self;
    fn to_f64(self) -> f64;
    fn fma(a: Self, b: Self, c: Self) -> Self;
    fn mul(a: Self, b: Self) -> Self;
    fn sub(a: Self, b: Self) -> Self;
    fn sqrt(self) -> Self;
    fn neg(self) -> Self;
    /// The value's top bits as an integer (24 of one word, or 53 of two), exact.
    fn unit_int(w: &[u32]) -> Self;
    /// 2^-24, or 2^-53: `unit_int * unit_step` is in `[0, 1)`.
    fn unit_step() -> Self;
    /// `[0, 1)` from the value's words (exact).
    #[cfg(test)]
    fn unit(w: &[u32]) -> Self {
        Self::mul(Self::unit_int(w), Self::unit_step())
    }
    /// `(0, 1]` from the value's words.
    fn unit_pos(w: &[u32]) -> Self;
    /// `-2 ln(u)` for `u = unit_pos(w)`: `+0` at `u = 1`, positive below.
    fn neg2_ln(w: &[u32]) -> Self;
    /// cos and sin of the angle the words give (a fraction of a turn).
    fn cos_sin(w: &[u32]) -> (Self, Self);
    /// The largest value below `self` (finite).
    fn next_down(self) -> Self;
}

/// The coefficients of philox.cuh, as bit patterns (the device source writes the same
/// values as hexadecimal literals; a test checks that they agree).
pub(crate) mod c32 {
    /// log1p(r) = r + r^2 (a0 + r (a1 + r a2)), minimax for |r| < 0.03, with the
    /// coefficients scaled for `neg2_ln`'s -2 r: `[a0 / -2, a1 / 4, a2 / -8]`.
    pub(crate) const LN: [u32; 3] = [0x3e7fffff, 0x3daabdbe, 0x3d001464];
    /// -2 ln 2.
    pub(crate) const N2LN2: u32 = 0xbfb17218;
    /// (1 / c, ln c) of ln's 16 intervals (see `ln`).
    pub(crate) const LN_TAB: [[u32; 2]; 16] = [
        [0x3fb30f63, 0xbeabdfba],
        [0x3fab8f6a, 0xbe95f784],
        [0x3fa4a9cf, 0xbe80f572],
        [0x3f9e4cad, 0xbe598ec2],
        [0x3f9868c8, 0xbe32ba76],
        [0x3f92f114, 0xbe0d515f],
        [0x3f8dda52, 0xbdd273b2],
        [0x3f891ac7, 0xbd8cb9db],
        [0x3f84a9fa, 0xbd1297a0],
        [0x3f800000, 0x00000000],
        [0x3f72b9d6, 0x3d5a16f0],
        [0x3f652598, 0x3de2f2a6],
        [0x3f5901b2, 0x3e29372f],
        [0x3f4e168a, 0x3e5e1436],
        [0x3f443730, 0x3e882c5f],
        [0x3f3b3ee7, 0x3ea02185],
    ];
    /// The bits where ln's intervals start (0.69921875).
    pub(crate) const LN_OFF: u32 = 0x3f33_0000;

    /// Entry `16 (k + 1) + i` of the device's shared table (`rand_ln_entry`): for the
    /// exponent `k` in `[-1, 32]` and the interval `i`,
    /// `(-2 / c 2^-k, -2 (k - 32) ln 2 - 2 ln c)`.
    pub(crate) fn ln_entry(e: usize) -> (f32, f32) {
        let [invc, lnc] = LN_TAB[e & 15].map(f32::from_bits);
        let k = (e >> 4) as i32 - 1;
        let scale = f32::from_bits(((127 - k) as u32) << 23);
        (
            invc * -2.0 * scale,
            ((k - 32) as f32).mul_add(f32::from_bits(N2LN2), lnc * -2.0),
        )
    }
    /// sin(x pi / 4) = x (SIN[0] + x^2 (SIN[1] + x^2 (SIN[2] + x^2 SIN[3]))), minimax on
    /// [-1, 1].
    pub(crate) const SIN: [u32; 4] = [0x3f490fdb, 0xbda55ddd, 0x3b232f4a, 0xb816c9b5];
    /// cos(x pi / 4) = 1 + x^2 (COS[0] + x^2 (COS[1] + x^2 COS[2])), minimax on [-1, 1].
    pub(crate) const COS: [u32; 3] = [0xbe9de9d1, 0x3c81d8b1, 0xb9a754f6];
}

/// As [`c32`], for f64.
pub(crate) mod c64 {
    pub(crate) const LN: [u64; 9] = [
        0x3fd5555555555555,
        0x3fc999999999999a,
        0x3fc2492492492492,
        0x3fbc71c71c71c71c,
        0x3fb745d1745d1746,
        0x3fb3b13b13b13b14,
        0x3fb1111111111111,
        0x3fae1e1e1e1e1e1e,
        0x3faaf286bca1af28,
    ];
    pub(crate) const LN2_HI: u64 = 0x3fe62e42fee00000;
    pub(crate) const LN2_LO: u64 = 0x3dea39ef35793c76;
    pub(crate) const SIN: [u64; 8] = [
        0xbfc5555555555555,
        0x3f81111111111111,
        0xbf2a01a01a01a01a,
        0x3ec71de3a556c734,
        0xbe5ae64567f544e4,
        0x3de6124613a86d09,
        0xbd6ae7f3e733b81f,
        0x3ce952c77030ad4a,
    ];
    pub(crate) const COS: [u64; 9] = [
        0xbfe0000000000000,
        0x3fa5555555555555,
        0xbf56c16c16c16c17,
        0x3efa01a01a01a01a,
        0xbe927e4fb7789f5c,
        0x3e21eed8eff8d898,
        0xbda93974a8c07c9d,
        0x3d2ae7f3e733b81f,
        0xbca6827863b97d97,
    ];
    pub(crate) const PIO2_2M62: u64 = 0x3c1921fb54442d18;
}

fn quadrant<R: Real>(q: u32, ca: R, sa: R) -> (R, R) {
    match q {
        0 => (ca, sa),
        1 => (sa.neg(), ca),
        2 => (ca.neg(), sa.neg()),
        _ => (sa, ca.neg()),
    }
}

impl Real for f32 {
    const W: usize = 1;
    fn param(p: f64) -> f32 {
        p as f32
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
    fn fma(a: f32, b: f32, c: f32) -> f32 {
        a.mul_add(b, c)
    }
    fn mul(a: f32, b: f32) -> f32 {
        a * b
    }
    fn sub(a: f32, b: f32) -> f32 {
        a - b
    }
    fn sqrt(self) -> f32 {
        f32::sqrt(self)
    }
    fn neg(self) -> f32 {
        -self
    }
    fn unit_int(w: &[u32]) -> f32 {
        (w[0] >> 8) as f32
    }
    fn unit_step() -> f32 {
        f32::from_bits(0x3380_0000) // 2^-24
    }
    fn unit_pos(w: &[u32]) -> f32 {
        (w[0] as f32).mul_add(f32::from_bits(0x2f80_0000), f32::from_bits(0x2f00_0000))
        // 2^-32, 2^-33
    }
    fn neg2_ln(w: &[u32]) -> f32 {
        let v = w[0] as f32 + 0.5;
        let e = ((v.to_bits().wrapping_sub(c32::LN_OFF) as i32 >> 19) + 16) as usize;
        let (tx, ty) = c32::ln_entry(e);
        let r = v.mul_add(tx, 2.0);
        let a = c32::LN.map(f32::from_bits);
        let p = r.mul_add(a[2], a[1]).mul_add(r, a[0]);
        ty + p.mul_add(r * r, r)
    }
    fn cos_sin(w: &[u32]) -> (f32, f32) {
        let y = (w[0] << 2).wrapping_add(0x100);
        let x = f32::from_bits((y >> 9) + 0x4000_0000) - 3.0;
        let x2 = x * x;
        let ks = c32::SIN.map(f32::from_bits);
        let ps = ks[3]
            .mul_add(x2, ks[2])
            .mul_add(x2, ks[1])
            .mul_add(x2, ks[0]);
        let sa = ps * x;
        let kc = c32::COS.map(f32::from_bits);
        let ca = kc[2].mul_add(x2, kc[1]).mul_add(x2, kc[0]).mul_add(x2, 1.0);
        let ca = f32::from_bits(ca.to_bits() ^ ((w[0] << 1) & 0x8000_0000));
        if w[0] & 0x8000_0000 != 0 {
            (sa, ca)
        } else {
            (ca, sa)
        }
    }
    fn next_down(self) -> f32 {
        f32::from_bits(down_bits32(self.to_bits()))
    }
}

impl Real for f64 {
    const W: usize = 2;
    fn param(p: f64) -> f64 {
        p
    }
    fn to_f64(self) -> f64 {
        self
    }
    fn fma(a: f64, b: f64, c: f64) -> f64 {
        a.mul_add(b, c)
    }
    fn mul(a: f64, b: f64) -> f64 {
        a * b
    }
    fn sub(a: f64, b: f64) -> f64 {
        a - b
    }
    fn sqrt(self) -> f64 {
        f64::sqrt(self)
    }
    fn neg(self) -> f64 {
        -self
    }
    fn unit_int(w: &[u32]) -> f64 {
        (u64_of(w) >> 11) as f64
    }
    fn unit_step() -> f64 {
        f64::from_bits(0x3ca0_0000_0000_0000) // 2^-53
    }
    fn unit_pos(w: &[u32]) -> f64 {
        ((u64_of(w) >> 11) + 1) as f64 * f64::from_bits(0x3ca0_0000_0000_0000)
    }
    fn neg2_ln(w: &[u32]) -> f64 {
        2.0 * (0.0 - ln64(f64::unit_pos(w)))
    }
    fn cos_sin(w: &[u32]) -> (f64, f64) {
        let y = u64_of(w).wrapping_add(0x2000_0000_0000_0000);
        let q = (y >> 62) as u32;
        let g = (y & 0x3fff_ffff_ffff_ffff) as i64 - 0x2000_0000_0000_0000;
        let a = g as f64 * f64::from_bits(c64::PIO2_2M62);
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
        quadrant(q, ca, sa)
    }
    fn next_down(self) -> f64 {
        let b = self.to_bits();
        f64::from_bits(if b << 1 == 0 {
            0x8000_0000_0000_0001
        } else if b >> 63 == 1 {
            b + 1
        } else {
            b - 1
        })
    }
}

/// ln of a normal f64 in `(0, 1]`, as `rand_f64::ln`.
pub(crate) fn ln64(v: f64) -> f64 {
    let b = v.to_bits();
    let mut e = (b >> 52) as i32 - 1023;
    let mut mb = (b & 0x000f_ffff_ffff_ffff) | 0x3ff0_0000_0000_0000;
    if mb > 0x3ff6_a09e_667f_3bcc {
        mb -= 0x0010_0000_0000_0000;
        e += 1;
    }
    let m = f64::from_bits(mb);
    let s = (m - 1.0) / (m + 1.0);
    let z = s * s;
    let k = c64::LN.map(f64::from_bits);
    let mut p = k[8];
    for &c in k[..8].iter().rev() {
        p = p.mul_add(z, c);
    }
    p = p.mul_add(z, 1.0);
    let lnm = (s + s) * p;
    let ef = e as f64;
    ef.mul_add(
        f64::from_bits(c64::LN2_HI),
        ef.mul_add(f64::from_bits(c64::LN2_LO), lnm),
    )
}

/// Whether a normal of `(mean, std)` takes the standard kernel (`r cos`, `r sin`, one
/// rounding each): mean 0 (of either sign) and std 1.
fn standard_normal(mean: f64, std: f64) -> bool {
    mean == 0.0 && std == 1.0
}

/// Two words as one 64-bit value, the first word low.
fn u64_of(w: &[u32]) -> u64 {
    (w[1] as u64) << 32 | w[0] as u64
}

fn down_bits32(b: u32) -> u32 {
    if b & 0x7fff_ffff == 0 {
        0x8000_0001
    } else if b & 0x8000_0000 != 0 {
        b + 1
    } else {
        b - 1
    }
}

fn down_bits16(b: u16) -> u16 {
    if b & 0x7fff == 0 {
        0x8001
    } else if b & 0x8000 != 0 {
        b + 1
    } else {
        b - 1
    }
}

/// The largest value of `dtype` (a float type) below `x` (a finite value of that type), as
/// f64 (exact).
pub(crate) fn next_down_of(dtype: DType, x: f64) -> f64 {
    match dtype {
        DType::F64 => Real::next_down(x),
        DType::F32 => f32::from_bits(down_bits32((x as f32).to_bits())) as f64,
        DType::F16 => f16::from_bits(down_bits16(f16::from_f64(x).to_bits())).to_f64(),
        DType::BF16 => bf16::from_bits(down_bits16(bf16::from_f64(x).to_bits())).to_f64(),
        other => unreachable!("next_down_of({other}): not a float type"),
    }
}

/// One call's distribution, with its parameters checked and converted (see the
/// constructors in `mod.rs`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Dist {
    /// `[low, high)`, values of the element type (exact in f64).
    Uniform { low: f64, high: f64 },
    /// Box-Muller normals.
    Normal { mean: f64, std: f64 },
    /// `-ln(u) * scale`, computed as `(-2 ln u) (scale / 2)`.
    Exponential { scale: f64 },
    /// `low + floor(x * range / 2^(32 words))`, `low` as 64-bit two's complement.
    Integers { low: u64, range: u64, words: u32 },
    /// `word < threshold`.
    Bernoulli { threshold: u64 },
}

impl Dist {
    /// The distribution's name (errors, profiler ranges).
    pub(crate) fn name(&self) -> &'static str {
        match self {
            Dist::Uniform { .. } => "uniform",
            Dist::Normal { .. } => "normal",
            Dist::Exponential { .. } => "exponential",
            Dist::Integers { .. } => "integers",
            Dist::Bernoulli { .. } => "bernoulli",
        }
    }

    /// The kernel drawing this distribution's values of `dtype`.
    pub(crate) fn kernel(&self, dtype: DType) -> RandomSpec {
        let dist = match *self {
            Dist::Uniform { .. } => Distribution::Uniform,
            Dist::Normal { mean, std } if standard_normal(mean, std) => {
                Distribution::StandardNormal
            }
            Dist::Normal { .. } => Distribution::Normal,
            Dist::Exponential { .. } => Distribution::Exponential,
            Dist::Integers { words, .. } => Distribution::Integers { words: words as u8 },
            Dist::Bernoulli { .. } => Distribution::Bernoulli,
        };
        RandomSpec {
            dist,
            dtype,
            index: crate::kernels::IndexWidth::I64,
        }
    }

    /// 32-bit words each value takes from the stream.
    pub(crate) fn words(&self, dtype: DType) -> u32 {
        self.kernel(dtype).words()
    }

    /// The kernel's parameters `a` and `b`.
    pub(crate) fn params(&self) -> (u64, u64) {
        match *self {
            Dist::Uniform { low, high } => (low.to_bits(), high.to_bits()),
            Dist::Normal { mean, std } => (mean.to_bits(), std.to_bits()),
            Dist::Exponential { scale } => (scale.to_bits(), 0),
            Dist::Integers { low, range, .. } => (low, range),
            Dist::Bernoulli { threshold } => (threshold, 0),
        }
    }
}

/// Maps one group's `4 W` words to its 4 values (`rand_*` in philox.cuh).
struct Draw<T> {
    dist: Dist,
    /// For uniform: the largest T below `high`.
    top_t: T,
}

impl<T: Element> Draw<T> {
    fn new(dist: Dist) -> Draw<T> {
        let top_t = match dist {
            Dist::Uniform { high, .. } => T::from_f64(next_down_of(T::DTYPE, high)),
            _ => T::ZERO,
        };
        Draw { dist, top_t }
    }

    fn real<R: Real>(&self, r: &[u32], v: &mut [T; 4]) {
        let w = R::W;
        // f16 and bf16 round from their f32 compute value (through `half`'s f32
        // conversions: its f64-to-bf16 rounding loses the low bits of the sticky part).
        let t = |x: R| match T::DTYPE {
            DType::F16 => T::from_f64(f16::from_f32(x.to_f64() as f32).to_f64()),
            DType::BF16 => T::from_f64(bf16::from_f32(x.to_f64() as f32).to_f64()),
            _ => T::from_f64(x.to_f64()),
        };
        match self.dist {
            Dist::Uniform { low, high } => {
                let (lo, hi) = (R::param(low), R::param(high));
                let step = R::mul(R::sub(hi, lo), R::unit_step());
                let top = hi.next_down();
                for (e, out) in v.iter_mut().enumerate() {
                    let mut x = R::fma(R::unit_int(&r[w * e..]), step, lo);
                    if x >= hi {
                        x = top;
                    }
                    let mut y = t(x);
                    if y.to_f64() >= high {
                        y = self.top_t;
                    }
                    *out = y;
                }
            }
            Dist::Normal { mean, std } => {
                let standard = standard_normal(mean, std);
                let (mean, sd) = (R::param(mean), R::param(std));
                for p in 0..2 {
                    let ws = &r[2 * w * p..];
                    let rad = R::neg2_ln(ws).sqrt();
                    let (c, s) = R::cos_sin(&ws[w..]);
                    if standard {
                        v[2 * p] = t(R::mul(rad, c));
                        v[2 * p + 1] = t(R::mul(rad, s));
                    } else {
                        let rs = R::mul(rad, sd);
                        v[2 * p] = t(R::fma(rs, c, mean));
                        v[2 * p + 1] = t(R::fma(rs, s, mean));
                    }
                }
            }
            Dist::Exponential { scale } => {
                let half_scale = R::mul(R::param(scale), R::param(0.5));
                for (e, out) in v.iter_mut().enumerate() {
                    *out = t(R::mul(R::neg2_ln(&r[w * e..]), half_scale));
                }
            }
            _ => unreachable!("not a real distribution"),
        }
    }

    /// The 4 values of group `grp` of the stream `(seed, stream)` from its `4 W` words
    /// (integer results as u64 two's complement, to be narrowed by the caller; others
    /// through `T`).
    fn group(&self, at: (u64, u64, u64), r: &[u32], v: &mut [T; 4], ints: &mut [u64; 4]) {
        match self.dist {
            Dist::Integers { low, range, words } => {
                let w = words as usize;
                let t = lemire_threshold(range, words);
                for (e, out) in ints.iter_mut().enumerate() {
                    let x = &r[w * e..];
                    let off = match words {
                        1 => {
                            let m = x[0] as u64 * range;
                            if (m as u32) < t {
                                integer_fallback(at, e, range)
                            } else {
                                m >> 32
                            }
                        }
                        2 => ((u64_of(x) as u128 * range as u128) >> 64) as u64,
                        _ => {
                            let xl = u64_of(x) as u128;
                            let xh = u64_of(&x[2..]) as u128;
                            let lo = (xl * range as u128) >> 64;
                            ((xh * range as u128 + lo) >> 64) as u64
                        }
                    };
                    *out = low.wrapping_add(off);
                }
            }
            Dist::Bernoulli { threshold } => {
                for (e, out) in ints.iter_mut().enumerate() {
                    *out = ((r[e] as u64) < threshold) as u64;
                }
            }
            _ if T::DTYPE == DType::F64 => self.real::<f64>(r, v),
            _ => self.real::<f32>(r, v),
        }
    }
}

/// Lemire's acceptance threshold of one-word integers, `2^32 mod range` (0 for powers
/// of two, which never reject), and 0 for the wider maps (no rejection).
pub(crate) fn lemire_threshold(range: u64, words: u32) -> u32 {
    if words == 1 {
        ((1u64 << 32) % range) as u32
    } else {
        0
    }
}

/// The key of the fallback block of slot `e` (0..4) of a group: the seed plus
/// `(e + 1) * 0x9E3779B97F4A7C15`, modulo 2^64.
pub(crate) fn fallback_key(seed: u64, e: usize) -> u64 {
    seed.wrapping_add((e as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15))
}

/// The offset of a rejected one-word integer, slot `e` of group `grp` of the stream
/// `(seed, stream)`: `floor(y range / 2^64)` for the 64 bits `y` of words 0 and 1 of the
/// group's block under the slot's fallback key.
fn integer_fallback((seed, stream, grp): (u64, u64, u64), e: usize, range: u64) -> u64 {
    let b = philox::block(fallback_key(seed, e), stream, grp);
    ((u64_of(&b) as u128 * range as u128) >> 64) as u64
}

/// The 4 values of group `grp` of the stream `(seed, stream)` of `dist` from its `4 W`
/// words: floats in the first array, integers and bools (as 0 or 1) in the second, as u64
/// two's complement.
#[cfg(test)]
pub(crate) fn draw_group<T: Element>(
    dist: Dist,
    at: (u64, u64, u64),
    r: &[u32],
) -> ([T; 4], [u64; 4]) {
    let mut v = [T::ZERO; 4];
    let mut ints = [0u64; 4];
    Draw::<T>::new(dist).group(at, r, &mut v, &mut ints);
    (v, ints)
}

/// Where a call's values come from: `n` values of `words` words each, starting at word
/// `start` (a multiple of `words`) of the stream `(seed, stream)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Span {
    pub(crate) seed: u64,
    pub(crate) stream: u64,
    pub(crate) start: u128,
    pub(crate) words: u32,
}

impl Span {
    /// The first group (4 values, `4 * words` words) the span touches, modulo 2^64 as the
    /// device's counter arithmetic, and the number of its slots before `start`.
    pub(crate) fn group0_head(&self) -> (u64, u64) {
        let slot = self.start / self.words as u128;
        ((slot / 4) as u64, (slot % 4) as u64)
    }
}

/// `n` values of `dist` from `span`, computed group by group as the kernel does, with
/// integers narrowed by `narrow` (wrapping) and everything else built through `T`.
pub(crate) fn fill<T: Element>(
    span: Span,
    dist: Dist,
    n: usize,
    narrow: impl Fn(u64) -> T,
) -> Vec<T> {
    let w = span.words as u64;
    debug_assert_eq!(dist.words(T::DTYPE) as u64, w);
    debug_assert_eq!(span.start % w as u128, 0);
    let (g0, head) = span.group0_head();
    let draw = Draw::<T>::new(dist);
    let integral = matches!(dist, Dist::Integers { .. } | Dist::Bernoulli { .. });
    let mut out = Vec::with_capacity(n);
    let mut r = [0u32; 16];
    let mut v = [T::ZERO; 4];
    let mut ints = [0u64; 4];
    let mut skip = head as usize;
    let mut t = 0u64;
    while out.len() < n {
        let b0 = g0.wrapping_add(t).wrapping_mul(w);
        for q in 0..w {
            let blk = philox::block(span.seed, span.stream, b0.wrapping_add(q));
            r[4 * q as usize..4 * q as usize + 4].copy_from_slice(&blk);
        }
        let grp = g0.wrapping_add(t);
        draw.group(
            (span.seed, span.stream, grp),
            &r[..4 * w as usize],
            &mut v,
            &mut ints,
        );
        for e in skip..4 {
            if out.len() == n {
                break;
            }
            out.push(if integral { narrow(ints[e]) } else { v[e] });
        }
        skip = 0;
        t += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Python's `float.hex` spelling of an f64 (the literals of philox.cuh).
    fn hex64(x: f64) -> String {
        let b = x.to_bits();
        let sign = if b >> 63 == 1 { "-" } else { "" };
        let e = ((b >> 52) & 0x7ff) as i64 - 1023;
        format!("{sign}0x1.{:013x}p{e}", b & 0x000f_ffff_ffff_ffff)
    }

    /// The spelling of an f32 literal in philox.cuh (6 hex digits, `f` suffix).
    fn hex32(x: f32) -> String {
        let b = x.to_bits();
        let sign = if b >> 31 == 1 { "-" } else { "" };
        let e = ((b >> 23) & 0xff) as i32 - 127;
        format!("{sign}0x1.{:06x}p{e}f", (b & 0x7f_ffff) << 1)
    }

    #[test]
    fn device_constants_match_host_constants() {
        let src = crate::kernels::sources::get("philox.cuh");
        let mut f32s: Vec<u32> = vec![c32::N2LN2];
        f32s.extend(c32::LN);
        f32s.extend(c32::SIN);
        f32s.extend(c32::COS);
        f32s.extend(c32::LN_TAB.iter().flatten().filter(|&&b| b != 0));
        assert!(src.contains(&format!("0x{:08x}u", c32::LN_OFF)));
        for b in f32s {
            let lit = hex32(f32::from_bits(b));
            assert!(src.contains(&lit), "philox.cuh lacks {lit} ({b:#x})");
        }
        let mut f64s: Vec<u64> = vec![c64::LN2_HI, c64::LN2_LO, c64::PIO2_2M62];
        f64s.extend(c64::LN);
        f64s.extend(c64::SIN);
        f64s.extend(c64::COS);
        for b in f64s {
            let lit = hex64(f64::from_bits(b));
            assert!(src.contains(&lit), "philox.cuh lacks {lit} ({b:#x})");
        }
    }

    #[test]
    fn constants_are_what_they_say() {
        let inv = |k: u64| 1.0 / k as f64;
        let fact = |k: u64| (1..=k).map(|i| i as f64).product::<f64>();
        for (i, &b) in c64::LN.iter().enumerate() {
            assert_eq!(f64::from_bits(b), inv(2 * i as u64 + 3));
        }
        for (i, &b) in c64::SIN.iter().enumerate() {
            let k = 2 * i as u64 + 3;
            let want = if i % 2 == 0 { -1.0 } else { 1.0 } / fact(k);
            assert!((f64::from_bits(b) / want - 1.0).abs() < 1e-15, "sin {i}");
        }
        for (i, &b) in c64::COS.iter().enumerate() {
            let k = 2 * i as u64 + 2;
            let want = if i % 2 == 0 { -1.0 } else { 1.0 } / fact(k);
            assert!((f64::from_bits(b) / want - 1.0).abs() < 1e-15, "cos {i}");
        }
        let ln2 = std::f64::consts::LN_2;
        assert!((f64::from_bits(c64::LN2_HI) + f64::from_bits(c64::LN2_LO) - ln2).abs() < 1e-30);
        assert_eq!(f32::from_bits(c32::N2LN2), -2.0 * ln2 as f32);
        assert_eq!(
            f64::from_bits(c64::PIO2_2M62),
            std::f64::consts::FRAC_PI_2 / 2f64.powi(62)
        );
        // f32's ln table: interval i of z's bits is [LN_OFF + i 2^19, LN_OFF + (i + 1) 2^19).
        for (i, &[invc, lnc]) in c32::LN_TAB.iter().enumerate() {
            let lo = f32::from_bits(c32::LN_OFF + (i as u32) * 0x8_0000) as f64;
            let hi = f32::from_bits(c32::LN_OFF + (i as u32 + 1) * 0x8_0000) as f64;
            let invc = f32::from_bits(invc);
            if lo <= 1.0 && 1.0 < hi {
                assert_eq!((invc, lnc), (1.0, 0), "interval {i} holds 1");
            } else {
                assert_eq!(invc, (2.0 / (lo + hi)) as f32, "1 / c of interval {i}");
            }
            assert_eq!(
                f32::from_bits(lnc),
                -(invc as f64).ln() as f32,
                "ln c of {i}"
            );
        }
        // The polynomials against f64 on their intervals (relative error, f64 arithmetic
        // on the f32 coefficients).
        // (LN holds the coefficients scaled by -1/2, 1/4 and -1/8: exact.)
        let l = c32::LN.map(|b| f32::from_bits(b) as f64);
        let a = [-2.0 * l[0], 4.0 * l[1], -8.0 * l[2]];
        let s = c32::SIN.map(|b| f32::from_bits(b) as f64);
        let c = c32::COS.map(|b| f32::from_bits(b) as f64);
        for i in 1..2000 {
            let r = -0.0297 + 0.0594 * i as f64 / 2000.0;
            let got = r + r * r * (a[0] + r * (a[1] + r * a[2]));
            if r.abs() > 1e-9 {
                assert!((got / r.ln_1p() - 1.0).abs() < 3e-8, "log1p({r})");
            }
            let x = i as f64 / 2000.0;
            let x2 = x * x;
            let angle = x * std::f64::consts::FRAC_PI_4;
            let sin = x * (s[0] + x2 * (s[1] + x2 * (s[2] + x2 * s[3])));
            assert!((sin / angle.sin() - 1.0).abs() < 4e-8, "sin at {x}");
            let cos = 1.0 + x2 * (c[0] + x2 * (c[1] + x2 * c[2]));
            assert!((cos - angle.cos()).abs() < 5e-8, "cos at {x}");
        }
    }

    fn ulps64(a: f64, b: f64) -> f64 {
        ((a - b) / (b.abs() * f64::EPSILON).max(f64::MIN_POSITIVE)).abs()
    }

    #[test]
    fn neg2_ln_is_accurate() {
        // Against f64's ln of the same u, on a sweep of words including the extremes.
        let mut worst32 = 0f64;
        let mut worst64 = 0f64;
        let mut x = 1u64;
        for i in 0..200_000u64 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let w = match i {
                0 => [u32::MAX, u32::MAX],
                1 => [0, 0],
                _ => [x as u32, (x >> 32) as u32],
            };
            let u = f32::unit_pos(&w) as f64;
            let got = f32::neg2_ln(&w) as f64;
            let want = -2.0 * u.ln();
            if want != 0.0 {
                worst32 = worst32.max((got - want).abs() / (want * f32::EPSILON as f64));
            } else {
                assert_eq!(got.to_bits(), 0, "+0 at u = 1");
            }
            let u64v = f64::unit_pos(&w);
            let got = f64::neg2_ln(&w);
            if u64v < 1.0 {
                worst64 = worst64.max(ulps64(got, -2.0 * u64v.ln()));
            } else {
                assert_eq!(got.to_bits(), 0, "+0 at u = 1");
            }
        }
        assert!(worst32 < 4.0, "f32 -2 ln: {worst32} ulp");
        assert!(worst64 < 4.0, "f64 -2 ln: {worst64} ulp");
        let l32 = f32::neg2_ln(&[0]) as f64;
        assert!((l32 + 2.0 * (2f64.powi(-33)).ln()).abs() < 8e-6, "{l32}");
        let l64 = f64::neg2_ln(&[0, 0]);
        assert!((l64 + 2.0 * (2f64.powi(-53)).ln()).abs() < 2e-13, "{l64}");
    }

    /// The angle (a fraction of a turn, in [0, 1)) that f32's `cos_sin` gives for `w`:
    /// x pi / 4 with x from bits 7-29 (rounded at bit 6), bit 30 the reflection of the cos
    /// (pi - angle), bit 31 the swap (pi / 2 - angle).
    fn angle32(w: u32) -> f64 {
        let x = ((w.wrapping_add(64) >> 7) & 0x7f_ffff) as f64 / 2f64.powi(22) - 1.0;
        let mut a = x / 8.0;
        if w & 0x4000_0000 != 0 {
            a = 0.5 - a;
        }
        if w & 0x8000_0000 != 0 {
            a = 0.25 - a;
        }
        a.rem_euclid(1.0)
    }

    #[test]
    fn cos_sin_are_accurate() {
        let mut worst32 = 0f64;
        let mut worst64 = 0f64;
        let mut x = 7u64;
        for i in 0..200_000u64 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let x = if i < 4 { i << 62 } else { x };
            let w32 = [(x >> 32) as u32];
            let (c, s) = f32::cos_sin(&w32);
            let ang = angle32(w32[0]) * std::f64::consts::TAU;
            worst32 = worst32
                .max((c as f64 - ang.cos()).abs())
                .max((s as f64 - ang.sin()).abs());
            let w64 = [x as u32, (x >> 32) as u32];
            let (c, s) = f64::cos_sin(&w64);
            let ang = x as f64 / 2f64.powi(64) * std::f64::consts::TAU;
            worst64 = worst64
                .max((c - ang.cos()).abs())
                .max((s - ang.sin()).abs());
        }
        assert!(worst32 < 3e-7, "f32 cos/sin: {worst32}");
        // (The reference angle itself carries an error of about 1e-15.)
        assert!(worst64 < 3e-15, "f64 cos/sin: {worst64}");
        // The quarter turns are exact.
        assert_eq!(f32::cos_sin(&[1 << 29]), (1.0, 0.0));
        assert_eq!(f32::cos_sin(&[0xa000_0000]), (0.0, 1.0));
        assert_eq!(f32::cos_sin(&[0x6000_0000]), (-1.0, 0.0));
        assert_eq!(f32::cos_sin(&[0xe000_0000]), (0.0, -1.0));
        // Every eighth of a turn is reached by the same number of words (of 2^16 spread
        // over the words).
        let mut eighths = [0u32; 8];
        for k in 0..1u32 << 16 {
            let w = k.wrapping_mul(0x9E37_79B1).wrapping_add(k >> 3);
            eighths[(angle32(w) * 8.0) as usize % 8] += 1;
        }
        for &n in &eighths {
            assert!((n as f64 - 8192.0).abs() < 600.0, "{eighths:?}");
        }
        assert_eq!(f64::cos_sin(&[0, 3 << 30]), (0.0, -1.0));
    }

    #[test]
    fn units_cover_their_intervals() {
        assert_eq!(f32::unit(&[0]), 0.0);
        assert_eq!(f32::unit(&[u32::MAX]), 1.0 - 2f32.powi(-24));
        assert_eq!(f32::unit_pos(&[0]), 2f32.powi(-33));
        assert_eq!(f32::unit_pos(&[1]), 3.0 * 2f32.powi(-33));
        assert_eq!(f32::unit_pos(&[u32::MAX]), 1.0);
        assert_eq!(f64::unit(&[0, 0]), 0.0);
        assert_eq!(f64::unit(&[u32::MAX, u32::MAX]), 1.0 - 2f64.powi(-53));
        assert_eq!(f64::unit_pos(&[0, 0]), 2f64.powi(-53));
        assert_eq!(f64::unit_pos(&[u32::MAX, u32::MAX]), 1.0);
        // The high word is the second one.
        assert_eq!(f64::unit(&[0, 1 << 31]), 0.5);
    }

    #[test]
    fn next_down_of_every_float_type() {
        assert_eq!(next_down_of(DType::F32, 1.0), 1.0 - 2f64.powi(-24));
        assert_eq!(next_down_of(DType::F64, 1.0), 1.0 - 2f64.powi(-53));
        assert_eq!(next_down_of(DType::F16, 1.0), 1.0 - 2f64.powi(-11));
        assert_eq!(next_down_of(DType::BF16, 1.0), 1.0 - 2f64.powi(-8));
        assert_eq!(next_down_of(DType::F16, -1.0), -1.0 - 2f64.powi(-10));
        assert_eq!(next_down_of(DType::F16, 0.0), -(2f64.powi(-24)));
        assert_eq!(next_down_of(DType::F32, 0.0), -(2f64.powi(-149)));
        assert_eq!(next_down_of(DType::F64, -0.0), -f64::from_bits(1));
    }
}
