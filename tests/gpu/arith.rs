//! Broadcasting arithmetic through the operators, against host references: integers wrap
//! and divide with NumPy's floor division (0 for a division by zero); f16/bf16 compute in
//! f32 and round.

use crate::common::{
    add_gpu, arith, check_array, check_close, dname, each_num_dtype, ensure, host_binary, HostNd,
    Op, Rng, TElem, TResult, Val,
};
use cuarray::{s, Device, DeviceArray, Error, NumElement};
use libtest_mimic::Trial;

type R<T> = cuarray::Result<DeviceArray<T>>;

/// Element types with `scalar op &array` operators (every numeric type).
pub trait Num:
    TElem
    + NumElement
    + for<'a> std::ops::Add<&'a DeviceArray<Self>, Output = R<Self>>
    + for<'a> std::ops::Sub<&'a DeviceArray<Self>, Output = R<Self>>
    + for<'a> std::ops::Mul<&'a DeviceArray<Self>, Output = R<Self>>
    + for<'a> std::ops::Div<&'a DeviceArray<Self>, Output = R<Self>>
    + for<'a> std::ops::Rem<&'a DeviceArray<Self>, Output = R<Self>>
{
}

impl<T> Num for T where
    T: TElem
        + NumElement
        + for<'a> std::ops::Add<&'a DeviceArray<T>, Output = R<T>>
        + for<'a> std::ops::Sub<&'a DeviceArray<T>, Output = R<T>>
        + for<'a> std::ops::Mul<&'a DeviceArray<T>, Output = R<T>>
        + for<'a> std::ops::Div<&'a DeviceArray<T>, Output = R<T>>
        + for<'a> std::ops::Rem<&'a DeviceArray<T>, Output = R<T>>
{
}

/// `a op b` through the operators.
fn apply<T: Num>(op: Op, a: &DeviceArray<T>, b: &DeviceArray<T>) -> R<T> {
    match op {
        Op::Add => a + b,
        Op::Sub => a - b,
        Op::Mul => a * b,
        Op::Div => a / b,
    }
}

/// `a op b` through the methods.
fn apply_method<T: Num>(op: Op, a: &DeviceArray<T>, b: &DeviceArray<T>) -> R<T> {
    match op {
        Op::Add => DeviceArray::add(a, b),
        Op::Sub => DeviceArray::sub(a, b),
        Op::Mul => DeviceArray::mul(a, b),
        Op::Div => DeviceArray::div(a, b),
    }
}

fn apply_scalar_rhs<T: Num>(op: Op, a: &DeviceArray<T>, s: T) -> R<T> {
    match op {
        Op::Add => a + s,
        Op::Sub => a - s,
        Op::Mul => a * s,
        Op::Div => a / s,
    }
}

fn apply_scalar_lhs<T: Num>(op: Op, s: T, a: &DeviceArray<T>) -> R<T> {
    match op {
        Op::Add => s + a,
        Op::Sub => s - a,
        Op::Mul => s * a,
        Op::Div => s / a,
    }
}

fn contiguous<T: Num>(op: Op) -> impl FnOnce(&Device, &mut Rng) -> TResult {
    move |dev, rng| {
        for n in [0usize, 1, 7, 1000, 4099, 100_003] {
            let ha = HostNd::<T>::random(rng, &[n]);
            let hb = HostNd::<T>::random(rng, &[n]);
            let (a, b) = (ha.upload(dev)?, hb.upload(dev)?);
            let want = host_binary(op, &ha, &hb);
            check_array(
                &format!("{} n={n}", op.name()),
                &apply(op, &a, &b)?,
                &want,
                T::REL_TOL,
            )?;
            if n == 1000 {
                check_array(
                    &format!("{} method n={n}", op.name()),
                    &apply_method(op, &a, &b)?,
                    &want,
                    T::REL_TOL,
                )?;
            }
        }
        Ok(())
    }
}

type Case<T> = (DeviceArray<T>, HostNd<T>, DeviceArray<T>, HostNd<T>);

fn random_pair<T: TElem>(
    dev: &Device,
    rng: &mut Rng,
    sa: &[usize],
    sb: &[usize],
) -> cuarray::Result<Case<T>> {
    let ha = HostNd::<T>::random(rng, sa);
    let hb = HostNd::<T>::random(rng, sb);
    Ok((ha.upload(dev)?, ha, hb.upload(dev)?, hb))
}

const CASES: [&str; 16] = [
    "3x1+4",
    "5x1x7+6x1",
    "0x3+1x3",
    "0d+4",
    "0d+0d",
    "t53x37+37x53",
    "negstep9x8+9x1",
    "permuted2x3x4x5+3x1x4",
    "t1x4+1x5",
    "1000x257+257",
    "negstep_bcast_0d",
    "misaligned_slices_4099",
    "rows64x128+64x1",
    "rows3x1024+1024",
    "t53x37+t53x37",
    "t301x131+131x301",
];

fn build_case<T: TElem>(case: &str, dev: &Device, rng: &mut Rng) -> cuarray::Result<Case<T>> {
    match case {
        "3x1+4" => random_pair(dev, rng, &[3, 1], &[4]),
        "5x1x7+6x1" => random_pair(dev, rng, &[5, 1, 7], &[6, 1]),
        "0x3+1x3" => random_pair(dev, rng, &[0, 3], &[1, 3]),
        "0d+4" => random_pair(dev, rng, &[], &[4]),
        "0d+0d" => random_pair(dev, rng, &[], &[]),
        "t53x37+37x53" => {
            let (a, ha, b, hb) = random_pair::<T>(dev, rng, &[53, 37], &[37, 53])?;
            Ok((a.t(), ha.t(), b, hb))
        }
        // Several tiles, with partial tiles along both edges.
        "t301x131+131x301" => {
            let (a, ha, b, hb) = random_pair::<T>(dev, rng, &[301, 131], &[131, 301])?;
            Ok((a.t(), ha.t(), b, hb))
        }
        "negstep9x8+9x1" => {
            let (a, ha, b, hb) = random_pair::<T>(dev, rng, &[9, 8], &[9, 1])?;
            Ok((
                a.slice(s![..;-1, 1..;-2])?,
                ha.slice(&[(None, None, -1), (Some(1), None, -2)]),
                b,
                hb,
            ))
        }
        "permuted2x3x4x5+3x1x4" => {
            let (a, ha, b, hb) = random_pair::<T>(dev, rng, &[2, 3, 4, 5], &[3, 1, 4])?;
            Ok((a.permute(&[3, 1, 0, 2])?, ha.permute(&[3, 1, 0, 2]), b, hb))
        }
        "t1x4+1x5" => {
            let (a, ha, b, hb) = random_pair::<T>(dev, rng, &[1, 4], &[1, 5])?;
            Ok((a.t(), ha.t(), b, hb))
        }
        "1000x257+257" => random_pair(dev, rng, &[1000, 257], &[257]),
        "negstep_bcast_0d" => {
            let (a, ha, b, hb) = random_pair::<T>(dev, rng, &[4099], &[])?;
            Ok((a.slice(s![..;-3])?, ha.slice(&[(None, None, -3)]), b, hb))
        }
        // Contiguous views that start one element in: flat but not 16-byte aligned.
        "misaligned_slices_4099" => {
            let (a, ha, b, hb) = random_pair::<T>(dev, rng, &[4100], &[4100])?;
            Ok((
                a.slice(s![1..])?,
                ha.slice(&[(Some(1), None, 1)]),
                b.slice(s![..-1])?,
                hb.slice(&[(None, Some(-1), 1)]),
            ))
        }
        // Rows of contiguous data with a broadcast column or row: the row-vectorized path.
        "rows64x128+64x1" => random_pair(dev, rng, &[64, 128], &[64, 1]),
        "rows3x1024+1024" => random_pair(dev, rng, &[3, 1024], &[1024]),
        // Both operands transposed: tiles for both inputs.
        "t53x37+t53x37" => {
            let (a, ha, b, hb) = random_pair::<T>(dev, rng, &[53, 37], &[53, 37])?;
            Ok((a.t(), ha.t(), b.t(), hb.t()))
        }
        _ => unreachable!("unknown case {case}"),
    }
}

/// Each case runs two of the four ops (rotating through the cases), both operand orders,
/// which keeps the number of distinct kernels (and so NVRTC time) down; the first case
/// and the contiguous trials run all four.
fn broadcast<T: Num>(case: &'static str) -> impl FnOnce(&Device, &mut Rng) -> TResult {
    move |dev, rng| {
        let (a, ha, b, hb) = build_case::<T>(case, dev, rng)?;
        let k = CASES.iter().position(|&c| c == case).unwrap_or(0);
        let ops: Vec<Op> = if k == 0 {
            Op::ALL.to_vec()
        } else {
            vec![Op::ALL[k % 4], Op::ALL[(k + 1) % 4]]
        };
        for op in ops {
            let want = host_binary(op, &ha, &hb);
            check_array(
                &format!("{case}: a {} b", op.name()),
                &apply(op, &a, &b)?,
                &want,
                T::REL_TOL,
            )?;
            let want = host_binary(op, &hb, &ha);
            check_array(
                &format!("{case}: b {} a", op.name()),
                &apply(op, &b, &a)?,
                &want,
                T::REL_TOL,
            )?;
        }
        Ok(())
    }
}

fn scalar<T: Num>(dev: &Device, rng: &mut Rng) -> TResult {
    let h = HostNd::<T>::random(rng, &[37, 53]);
    let a = h.upload(dev)?;
    let scalars = [
        T::random(rng),
        T::from_val(Val::F(2.0)),
        T::ZERO,
        T::random(rng),
    ];
    for (view, hv, label) in [
        (a.clone(), h.clone(), "contiguous"),
        (a.t(), h.t(), "transposed"),
    ] {
        for &s in &scalars {
            // The transposed input (tiles) with the two asymmetric ops only: fewer kernels.
            let ops: &[Op] = if label == "transposed" {
                &[Op::Sub, Op::Div]
            } else {
                &Op::ALL
            };
            for &op in ops {
                let got = apply_scalar_rhs(op, &view, s)?;
                check_array(
                    &format!("{label} a {} {s}", op.name()),
                    &got,
                    &hv.map(|x| arith(op, x, s)),
                    T::REL_TOL,
                )?;
                let got = apply_scalar_lhs(op, s, &view)?;
                check_array(
                    &format!("{label} {s} {} a", op.name()),
                    &got,
                    &hv.map(|x| arith(op, s, x)),
                    T::REL_TOL,
                )?;
            }
        }
    }
    // 0-d and empty arrays with a scalar.
    let z = HostNd::<T>::random(rng, &[]);
    let s = T::from_val(Val::F(3.0));
    check_array(
        "0-d * 3",
        &(&z.upload(dev)? * s)?,
        &z.map(|x| arith(Op::Mul, x, s)),
        T::REL_TOL,
    )?;
    let e = DeviceArray::<T>::from_host(dev, &[], &[4, 0])?;
    ensure!((s - &e)?.shape() == [4, 0], "3 - empty");
    Ok(())
}

fn chain<T: Num>(dev: &Device, rng: &mut Rng) -> TResult {
    let ha = HostNd::<T>::random(rng, &[4, 1]);
    let hb = HostNd::<T>::random(rng, &[5]);
    let hc = HostNd::<T>::random(rng, &[4, 5]);
    let (a, b, c) = (ha.upload(dev)?, hb.upload(dev)?, hc.upload(dev)?);
    let bin = |op, x: &HostNd<T>, y: &HostNd<T>| host_binary(op, x, y);
    check_array(
        "((a + b) * c)",
        &((&a + &b) * &c)?,
        &bin(Op::Mul, &bin(Op::Add, &ha, &hb), &hc),
        T::REL_TOL,
    )?;
    check_array(
        "c - (a * b)",
        &(&c - (&a * &b))?,
        &bin(Op::Sub, &hc, &bin(Op::Mul, &ha, &hb)),
        T::REL_TOL,
    )?;
    check_array(
        "(a / c) + b",
        &((&a / &c) + &b)?,
        &bin(Op::Add, &bin(Op::Div, &ha, &hc), &hb),
        T::REL_TOL,
    )?;
    check_array(
        "owned a + owned b",
        &(a.clone() + b.clone())?,
        &bin(Op::Add, &ha, &hb),
        T::REL_TOL,
    )?;
    check_array(
        "owned a * &c",
        &(a.clone() * &c)?,
        &bin(Op::Mul, &ha, &hc),
        T::REL_TOL,
    )?;
    check_array(
        "&a - owned c",
        &(&a - c.clone())?,
        &bin(Op::Sub, &ha, &hc),
        T::REL_TOL,
    )?;
    let s = T::from_val(Val::F(2.0));
    let want = bin(Op::Add, &ha, &hb).map(|x| arith(Op::Mul, x, s));
    check_array("(a + b)? * 2", &((&a + &b)? * s)?, &want, T::REL_TOL)?;
    let want = bin(Op::Add, &ha, &hb).map(|x| arith(Op::Div, s, x));
    check_array("2 / (a + b)?", &(s / &(&a + &b)?)?, &want, T::REL_TOL)?;
    // An error early in a chain comes out at the end.
    let bad = DeviceArray::<T>::from_host(dev, &rng.vec(3), &[3])?;
    match (&b + &bad) * &c {
        Err(Error::Broadcast { op, lhs, rhs }) => {
            ensure!(
                op == "add" && lhs == [5] && rhs == [3],
                "chained error: {op} {lhs:?} {rhs:?}"
            )
        }
        other => return Err(format!("(b + bad) * c gave {other:?}").into()),
    }
    Ok(())
}

fn errors<T: Num>(dev: &Device, rng: &mut Rng) -> TResult {
    let a = DeviceArray::<T>::from_host(dev, &rng.vec(3), &[3])?;
    let b = DeviceArray::<T>::from_host(dev, &rng.vec(4), &[4])?;
    let m = DeviceArray::<T>::from_host(dev, &rng.vec(6), &[2, 3])?;
    for op in Op::ALL {
        for (x, y) in [(&a, &b), (&m, &m.t()), (&b, &m)] {
            match apply(op, x, y) {
                Err(e @ Error::Broadcast { .. }) => {
                    let msg = e.to_string();
                    let (sx, sy) = (format!("{:?}", x.shape()), format!("{:?}", y.shape()));
                    ensure!(
                        msg.contains(&sx) && msg.contains(&sy) && msg.contains(op.name()),
                        "Broadcast message must name {} and both shapes: {msg}",
                        op.name()
                    );
                }
                other => {
                    return Err(format!(
                        "{:?} {} {:?} gave {other:?}",
                        x.shape(),
                        op.name(),
                        y.shape()
                    )
                    .into())
                }
            }
        }
    }
    Ok(())
}

/// Integer overflow wraps and division floors, on fixed values: extremes, zeros, mixed
/// signs, and `MIN / -1` (NumPy wraps it to `MIN`).
fn int_edges<T: Num>(dev: &Device, _rng: &mut Rng) -> TResult {
    let (bits, signed) = T::INT.expect("integer dtype");
    let max: i128 = if signed {
        (1i128 << (bits - 1)) - 1
    } else {
        (1i128 << bits) - 1
    };
    let min: i128 = if signed { -(1i128 << (bits - 1)) } else { 0 };
    let xs: Vec<i128> = vec![max, max, min, 7, 7, 0, 5, max, min + 1, 1];
    let ys: Vec<i128> = vec![1, max, 1, 2, 0, 3, 5, 2, max, max];
    let xs: Vec<i128> = if signed {
        xs.into_iter().chain([-7, 7, -7, -1, min, -3]).collect()
    } else {
        xs.into_iter().chain([9, 250, 3, 1, 0, 2]).collect()
    };
    let ys: Vec<i128> = if signed {
        ys.into_iter().chain([2, -2, -2, 3, -1, 0]).collect()
    } else {
        ys.into_iter().chain([4, 7, 2, 1, 1, 0]).collect()
    };
    let hx: Vec<T> = xs.iter().map(|&v| T::from_val(Val::I(v))).collect();
    let hy: Vec<T> = ys.iter().map(|&v| T::from_val(Val::I(v))).collect();
    let (x, y) = (
        DeviceArray::from_slice(dev, &hx)?,
        DeviceArray::from_slice(dev, &hy)?,
    );
    for op in Op::ALL {
        let want: Vec<T> = hx.iter().zip(&hy).map(|(&p, &q)| arith(op, p, q)).collect();
        check_close(
            &format!("{} on edge values", op.name()),
            &apply(op, &x, &y)?.to_host()?,
            &want,
        )?;
    }
    Ok(())
}

fn register<T: Num>(out: &mut Vec<Trial>) {
    let d = dname::<T>();
    for op in Op::ALL {
        add_gpu(
            out,
            format!("arith/{}/{d}/contiguous_sizes", op.name()),
            contiguous::<T>(op),
        );
    }
    for case in CASES {
        add_gpu(
            out,
            format!("arith/broadcast/{d}/{case}"),
            broadcast::<T>(case),
        );
    }
    add_gpu(
        out,
        format!("arith/scalar/{d}/contiguous_and_transposed"),
        scalar::<T>,
    );
    add_gpu(out, format!("arith/chain/{d}/result_operators"), chain::<T>);
    if T::INT.is_some() {
        add_gpu(
            out,
            format!("arith/int_edges/{d}/wrap_and_floor_div"),
            int_edges::<T>,
        );
    }
}

/// Float `%` against NumPy's results (the divisor's sign, zero included; NaN for a zero
/// divisor or an infinite dividend), checked bit for bit including the sign of zero.
fn float_rem_signs<T: TElem + NumElement>(dev: &Device, _rng: &mut Rng) -> TResult {
    let inf = f64::INFINITY;
    let cases: [(f64, f64, f64); 11] = [
        (-0.0, 1.0, 0.0),
        (1.0, -1.0, -0.0),
        (0.0, -1.0, -0.0),
        (-3.0, 3.0, 0.0),
        (3.0, -3.0, -0.0),
        (5.5, -2.0, -0.5),
        (-5.5, 2.0, 0.5),
        (3.0, inf, 3.0),
        (-3.0, inf, inf),
        (inf, 2.0, f64::NAN),
        (1.0, 0.0, f64::NAN),
    ];
    let a: Vec<T> = cases.iter().map(|c| T::from_val(Val::F(c.0))).collect();
    let b: Vec<T> = cases.iter().map(|c| T::from_val(Val::F(c.1))).collect();
    let da = DeviceArray::from_slice(dev, &a)?;
    let db = DeviceArray::from_slice(dev, &b)?;
    let got = (&da % &db)?.to_host()?;
    for (g, &(x, y, want)) in got.iter().zip(&cases) {
        let Val::F(g) = g.val() else {
            return Err("a float remainder is not a float".into());
        };
        let same = if want.is_nan() {
            g.is_nan()
        } else {
            g == want && g.is_sign_negative() == want.is_sign_negative()
        };
        ensure!(same, "{x} % {y} gave {g:?}, NumPy gives {want:?}");
    }
    Ok(())
}

pub fn trials(out: &mut Vec<Trial>) {
    each_num_dtype!(register(out));
    add_gpu(
        out,
        "arith/rem_signs/f32/numpy".into(),
        float_rem_signs::<f32>,
    );
    add_gpu(
        out,
        "arith/rem_signs/f64/numpy".into(),
        float_rem_signs::<f64>,
    );
    add_gpu(
        out,
        "arith/rem_signs/f16/numpy".into(),
        float_rem_signs::<half::f16>,
    );
    add_gpu(
        out,
        "arith/rem_signs/bf16/numpy".into(),
        float_rem_signs::<half::bf16>,
    );
    add_gpu(
        out,
        "arith/errors/f32/broadcast_names_shapes".into(),
        errors::<f32>,
    );
    add_gpu(
        out,
        "arith/errors/i32/broadcast_names_shapes".into(),
        errors::<i32>,
    );
}
