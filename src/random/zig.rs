//! The ziggurat of the normal distribution (Marsaglia and Tsang, 2000), with 256 layers as
//! NumPy's `standard_normal`: the tables, and the sampler of one value on the host (the
//! twin of `rand_zig_normal` in `kernels/philox.cuh`).
//!
//! The tables are computed here in `f64` with cuarray's own `exp` and `ln` (basic IEEE
//! operations only, see `host.rs`), so they are the same bits on every machine; the
//! normal kernels get them as bit patterns in their source ([`source_tables`]).

use super::host::{Fallback, Real};
use std::fmt::Write as _;
use std::sync::OnceLock;

/// The right edge of the base layer (the start of the tail).
pub(crate) const R: f64 = 3.654_152_885_361_009;
/// The area of each layer.
const V: f64 = 0.004_928_673_233_99;

/// One precision's tables: for layer `i`, the acceptance bound `k[i]` on the value's
/// random magnitude bits, the scale `w[i]` from those bits to `x`, and `f[i]`, the
/// density `exp(-x_i^2 / 2)` at the layer's right edge.
#[derive(Debug)]
pub(crate) struct Tables<F> {
    pub(crate) k: [u64; 256],
    pub(crate) w: [F; 256],
    pub(crate) f: [F; 256],
}

/// The tables for `bits` random magnitude bits (23 for `f32`, 52 for `f64`), as `f64`
/// (`w`, `f`) before rounding to the compute type.
fn build(bits: i32) -> Tables<f64> {
    let m1 = 2f64.powi(bits);
    let (mut k, mut w, mut f) = ([0u64; 256], [0f64; 256], [0f64; 256]);
    let density = |x: f64| Real::exp_neg(-0.5 * x * x);
    let mut dn = R;
    let mut tn = dn;
    let q = V / density(dn);
    k[0] = ((dn / q) * m1) as u64;
    k[1] = 0;
    w[0] = q / m1;
    w[255] = dn / m1;
    f[0] = 1.0;
    f[255] = density(dn);
    for i in (1..=254).rev() {
        dn = (-2.0 * Real::ln(V / dn + density(dn))).sqrt();
        k[i + 1] = ((dn / tn) * m1) as u64;
        tn = dn;
        f[i] = density(dn);
        w[i] = dn / m1;
    }
    Tables { k, w, f }
}

/// The `f32` tables (also for `f16` and `bf16`).
pub(crate) fn tables32() -> &'static Tables<f32> {
    static T: OnceLock<Tables<f32>> = OnceLock::new();
    T.get_or_init(|| {
        let t = build(23);
        Tables {
            k: t.k,
            w: t.w.map(|x| x as f32),
            f: t.f.map(|x| x as f32),
        }
    })
}

/// The `f64` tables.
pub(crate) fn tables64() -> &'static Tables<f64> {
    static T: OnceLock<Tables<f64>> = OnceLock::new();
    T.get_or_init(|| build(52))
}

/// The device definition of one precision's tables (`f64`: `wide`) and of the
/// `rand_zig` specialisation of `kernels/philox.cuh` that reads them: `kw` (512 entries,
/// `k[i]` and the bits of `w[i]` interleaved) and `f` (the bits of `f[i]`).
pub(crate) fn source_tables(src: &mut String, wide: bool) {
    let (ty, suffix, bits, kw, f): (&str, &str, u32, Vec<u64>, Vec<u64>) = if wide {
        let t = tables64();
        (
            "unsigned long long",
            "ull",
            64,
            (0..256).flat_map(|i| [t.k[i], t.w[i].to_bits()]).collect(),
            t.f.iter().map(|x| x.to_bits()).collect(),
        )
    } else {
        let t = tables32();
        (
            "unsigned int",
            "u",
            32,
            (0..256)
                .flat_map(|i| [t.k[i], t.w[i].to_bits() as u64])
                .collect(),
            t.f.iter().map(|x| x.to_bits() as u64).collect(),
        )
    };
    let list = |v: &[u64]| -> String {
        v.iter()
            .map(|b| format!("{b:#x}{suffix}"))
            .collect::<Vec<_>>()
            .join(",")
    };
    let _ = writeln!(
        src,
        "__device__ const {ty} rand_zig{bits}_kw[512] = {{{}}};",
        list(&kw)
    );
    let _ = writeln!(
        src,
        "__device__ const {ty} rand_zig{bits}_f[256] = {{{}}};",
        list(&f)
    );
    let _ = writeln!(
        src,
        "template <> struct rand_zig<rand_f{bits}> {{\n    \
         static __device__ __forceinline__ const {ty}* kw() {{ return rand_zig{bits}_kw; }}\n    \
         static __device__ __forceinline__ const {ty}* f() {{ return rand_zig{bits}_f; }}\n}};"
    );
}

/// The layer, sign and magnitude bits of one value's random bits (NumPy's split: layer
/// from the low 8 bits, sign from the next, magnitude from the `mask` bits above).
fn split(bits: u64, mask: u64) -> (usize, bool, u64) {
    (
        (bits & 0xff) as usize,
        (bits >> 8) & 1 == 1,
        (bits >> 9) & mask,
    )
}

/// One standard normal value from its random bits (`R::zig_bits` of its words): accepted
/// at once when the magnitude lies inside its layer's rectangle (about 99% of values);
/// otherwise the base layer's tail or the layer's wedge is tested with uniforms from the
/// value's fallback words, and rejected values start over from fallback words.
pub(crate) fn normal<F: Real>(bits: u64, fb: &mut Fallback) -> F {
    let t = F::zig();
    let signed = |x: F, s: bool| if s { x.neg() } else { x };
    let (mut idx, mut sign, mut rabs) = split(bits, F::RABS_MASK);
    let x = F::mul(F::from_u64(rabs), t.w[idx]);
    if rabs < t.k[idx] {
        return signed(x, sign);
    }
    loop {
        if idx == 0 {
            // The tail beyond R: x = -ln(u1) / R accepted when -2 ln(u2) > x^2.
            loop {
                let l1 = F::one_minus_unit(&fb.words::<F>()).ln();
                let l2 = F::one_minus_unit(&fb.words::<F>()).ln();
                let xx = F::mul(F::zig_inv_r().neg(), l1);
                let yy = F::sub(F::param(0.0), l2);
                if F::add(yy, yy) > F::mul(xx, xx) {
                    return signed(F::add(F::zig_r(), xx), (rabs >> 8) & 1 == 1);
                }
            }
        }
        let x = F::mul(F::from_u64(rabs), t.w[idx]);
        let u = F::unit(&fb.words::<F>());
        let y = F::fma(F::sub(t.f[idx - 1], t.f[idx]), u, t.f[idx]);
        if y < F::mul(F::param(-0.5), F::mul(x, x)).exp_neg() {
            return signed(x, sign);
        }
        (idx, sign, rabs) = split(F::zig_bits(&fb.words::<F>()), F::RABS_MASK);
        let x = F::mul(F::from_u64(rabs), t.w[idx]);
        if rabs < t.k[idx] {
            return signed(x, sign);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_close_the_ziggurat() {
        // The recurrence ends near x = 0 at the top: the last layer's edge is small and
        // its density close to 1, and the layers' edges decrease from R.
        for (bits, w, f, k) in [
            (
                23,
                tables32().w.map(|x| x as f64),
                tables32().f.map(|x| x as f64),
                tables32().k,
            ),
            (52, tables64().w, tables64().f, tables64().k),
        ] {
            let m1 = 2f64.powi(bits);
            let x1 = w[1] * m1;
            assert!(x1 > 0.0 && x1 < 0.3, "x_1 = {x1}");
            assert!(f[1] > 0.95 && f[1] < 1.0, "f_1 = {}", f[1]);
            for i in 1..255 {
                assert!(w[i] < w[i + 1], "layer {i}");
                assert!(f[i] > f[i + 1], "layer {i}");
                assert!(k[i + 1] as f64 <= m1, "layer {i}");
            }
            assert!((w[255] * m1 - R).abs() < 1e-6 * R);
            // NumPy's first bound (ki_float[0] = 0x007799EC for 23 bits).
            if bits == 23 {
                assert_eq!(k[0], 0x0077_99EC);
            }
        }
    }
}
