//! Host-only trials that check the harness's own references and comparisons (they run
//! everywhere, GPU or not), so that a passing GPU tier means something.

use crate::common::ensure;
use crate::common::{
    arith, bf16_rne, check_eq, check_rel, f16_rne, py_slice, HostNd, Op, Rng, TElem, TResult, Val,
};
use crate::ops::{maxmin_ref, pow_ref, rem_ref};
use half::{bf16, f16};
use libtest_mimic::Trial;

fn rounding() -> TResult {
    // f16: ties to even, overflow, subnormals.
    let cases: [(f64, f64); 8] = [
        (65504.0, 65504.0),
        (65519.0, 65504.0),
        (65520.0, f64::INFINITY),
        (1.0 + 2f64.powi(-11), 1.0),
        (1.0 + 3.0 * 2f64.powi(-11), 1.0 + 2f64.powi(-9)),
        (2f64.powi(-25), 0.0),
        (3.0 * 2f64.powi(-25), 2f64.powi(-23)),
        (
            -(1.0 + 2f64.powi(-11) + 2f64.powi(-40)),
            -(1.0 + 2f64.powi(-10)),
        ),
    ];
    for (x, want) in cases {
        let got = f16_rne(x).to_f64();
        ensure!(got == want, "f16_rne({x:e}) = {got:e}, expected {want:e}");
    }
    // Against the correctly rounded f32 conversions of the half crate, on random f32s.
    let mut rng = Rng::new(11);
    for _ in 0..20000 {
        let x = f32::from_bits(rng.next_u64() as u32);
        if x.is_nan() {
            continue;
        }
        ensure!(
            f16_rne(x as f64) == f16::from_f32(x),
            "f16_rne({x:e}) != f16::from_f32"
        );
        ensure!(
            bf16_rne(x as f64) == bf16::from_f32(x),
            "bf16_rne({x:e}) != bf16::from_f32"
        );
    }
    // A double-rounding case: f64 -> f32 -> f16 differs from f64 -> f16.
    let x = 1.0 + 2f64.powi(-11) + 2f64.powi(-30);
    ensure!(
        f16_rne(x).to_f64() == 1.0 + 2f64.powi(-10),
        "f16_rne rounds {x:e} twice"
    );
    ensure!(
        f16::from_val(Val::F(x)).to_f64() == 1.0 + 2f64.powi(-10),
        "f16::from_val rounds twice"
    );
    // bf16 from f64 goes through f32 as the kernel does: the tie-breaking 2^-30 is lost.
    let y = 1.0 + 2f64.powi(-8) + 2f64.powi(-30);
    ensure!(
        bf16_rne(y).to_f64() == 1.0 + 2f64.powi(-7),
        "bf16_rne({y:e}) direct"
    );
    ensure!(
        bf16::from_val(Val::F(y)).to_f64() == 1.0,
        "bf16::from_val({y:e}) must round through f32"
    );
    Ok(())
}

fn conversions() -> TResult {
    ensure!(i8::from_val(Val::I(200)) == -56, "int wrap");
    ensure!(u16::from_val(Val::I(-1)) == 65535, "unsigned wrap");
    ensure!(i32::from_val(Val::F(-2.9)) == -2, "float to int truncates");
    ensure!(u8::from_val(Val::F(7.99)) == 7, "float to u8 truncates");
    ensure!(
        !bool::from_val(Val::F(-0.0)) && bool::from_val(Val::F(f64::NAN)),
        "float to bool"
    );
    ensure!(
        f32::from_val(Val::I(16_777_217)) == 16_777_216.0,
        "int to f32 rounds to even"
    );
    ensure!(
        u64::from_val(Val::I(u64::MAX as i128)).val() == Val::I(u64::MAX as i128),
        "u64 exact"
    );
    ensure!(f64::from_val(Val::B(true)) == 1.0, "bool to float");
    Ok(())
}

fn references() -> TResult {
    ensure!(
        arith(Op::Div, -7i32, 2) == -4 && arith(Op::Div, 7i32, -2) == -4,
        "floor division"
    );
    ensure!(
        arith(Op::Div, 7i8, 0) == 0 && arith(Op::Div, i8::MIN, -1) == i8::MIN,
        "i8 division edges"
    );
    ensure!(
        arith(Op::Add, 250u8, 10) == 4 && arith(Op::Sub, 3u8, 5) == 254,
        "u8 wrap"
    );
    ensure!(arith(Op::Mul, i64::MAX, 2) == -2, "i64 wrap");
    ensure!(arith(Op::Div, 1.0f32, 3.0) == 1.0f32 / 3.0, "f32 division");
    let h = arith(Op::Add, f16::from_f32(1.0), f16::from_f32(2f32.powi(-11)));
    ensure!(h == f16::from_f32(1.0), "f16 add rounds to even: {h}");
    ensure!(
        rem_ref(-7i32, 3) == 2 && rem_ref(7i32, -3) == -2 && rem_ref(7i32, 0) == 0,
        "integer %"
    );
    ensure!(
        rem_ref(-7.5f64, 2.0) == 0.5 && rem_ref(7.5f64, -2.0) == -0.5,
        "float %"
    );
    ensure!(rem_ref(1.0f32, 0.0).is_nan(), "x % 0.0 is NaN");
    ensure!(
        pow_ref(3i32, 4) == 81
            && pow_ref(2i8, 9) == 0
            && pow_ref(-1i32, -3) == -1
            && pow_ref(5i32, -1) == 0,
        "int pow"
    );
    ensure!(pow_ref(3u64, 41) == 3u64.wrapping_pow(41), "u64 pow wraps");
    ensure!(
        maxmin_ref(f32::NAN, 1.0, true).is_nan() && maxmin_ref(1.0, f32::NAN, false).is_nan(),
        "NaN propagates"
    );
    ensure!(maxmin_ref(3i16, -4, false) == -4, "minimum");
    Ok(())
}

fn comparisons() -> TResult {
    check_eq("equal", &[1.0f32, f32::NAN], &[1.0, f32::NAN])?;
    ensure!(
        check_eq("differ", &[1i32, 2, 3], &[1, 2, 4]).is_err(),
        "a mismatch passed"
    );
    ensure!(
        check_eq("length", &[1i32, 2], &[1, 2, 3]).is_err(),
        "a length mismatch passed"
    );
    ensure!(
        check_eq("inf", &[f64::INFINITY], &[f64::NEG_INFINITY]).is_err(),
        "inf vs -inf passed"
    );
    ensure!(
        check_rel("close", &[1.0f32 + 1e-7], &[1.0], 1e-6).is_ok(),
        "a close value failed"
    );
    ensure!(
        check_rel("far", &[1.001f32], &[1.0], 1e-6).is_err(),
        "a far value passed"
    );
    ensure!(
        check_eq("bool", &[true, false], &[true, true]).is_err(),
        "a bool mismatch passed"
    );
    let msg = check_eq("where", &[0u8, 5, 6], &[0, 5, 7]).unwrap_err();
    let msg = msg.message().unwrap_or("").to_string();
    ensure!(
        msg.contains("index 2") && msg.contains("got 6") && msg.contains("expected 7"),
        "message: {msg}"
    );
    Ok(())
}

fn host_arrays() -> TResult {
    ensure!(py_slice(None, None, -1, 4) == vec![3, 2, 1, 0], "reverse");
    ensure!(py_slice(Some(1), None, -2, 9) == vec![1], "1::-2");
    ensure!(
        py_slice(Some(-3), Some(100), 1, 5) == vec![2, 3, 4],
        "-3:100"
    );
    ensure!(py_slice(Some(5), Some(1), -2, 10) == vec![5, 3], "5:1:-2");
    let h = HostNd::new((0..6).collect::<Vec<i32>>(), &[2, 3]);
    ensure!(h.t().data == vec![0, 3, 1, 4, 2, 5], "t()");
    ensure!(h.permute(&[1, 0]) == h.t(), "permute");
    ensure!(
        h.slice(&[(None, None, -1), (Some(1), None, 1)]).data == vec![4, 5, 1, 2],
        "slice"
    );
    let r = HostNd::new(vec![7, 8], &[2, 1]).broadcast_to(&[3, 2, 2]);
    ensure!(
        r.data == vec![7, 7, 8, 8, 7, 7, 8, 8, 7, 7, 8, 8],
        "broadcast {:?}",
        r.data
    );
    let hs: Vec<f32> = Rng::new(3).vec(1000);
    ensure!(
        hs.contains(&0.0) && hs.iter().any(|&x| x < 0.0),
        "random data lacks zeros or negatives"
    );
    let ints: Vec<u8> = Rng::new(4).vec(1000);
    ensure!(
        ints.iter().any(|&x| x > 200) && ints.iter().filter(|&&x| x == 0).count() > 5,
        "u8 data spread"
    );
    Ok(())
}

pub fn trials(out: &mut Vec<Trial>) {
    out.push(Trial::test(
        "harness/selfcheck/all/rounding_references",
        rounding,
    ));
    out.push(Trial::test(
        "harness/selfcheck/all/conversions",
        conversions,
    ));
    out.push(Trial::test(
        "harness/selfcheck/all/arith_references",
        references,
    ));
    out.push(Trial::test(
        "harness/selfcheck/all/comparisons_detect_mismatches",
        comparisons,
    ));
    out.push(Trial::test(
        "harness/selfcheck/all/host_arrays",
        host_arrays,
    ));
}
