//! The NumPy user's first-hour surface: the first programs (tests/support/first_programs.rs),
//! scalars wherever an array fits (against the same op with a 0-d array), the assignment
//! operators, shape and axes arguments, `*_keepdim` reductions, and the helpers built from
//! views (flip, roll, tile, repeat, diff, tril/triu, outer, allclose, array_equal) against
//! host references.

use crate::common::{
    add_gpu, check_array, check_close, check_eq, dname, each_num_dtype, ensure, gpu_trial,
    host_binary, HostNd, Op, Rng, TElem, TResult,
};
use crate::first_programs::PROGRAMS;
use cuarray::{s, Device, DeviceArray, NumElement, PadMode};
use libtest_mimic::Trial;

/// A 0-d array of `v`: the reference path for a scalar operand.
fn zero_d<T: TElem>(dev: &Device, v: T) -> cuarray::Result<DeviceArray<T>> {
    DeviceArray::full(dev, (), v)
}

/// Comparisons, arithmetic methods and `*_assign` methods with a scalar operand equal the
/// same with a 0-d array, on a reversed, stepped view.
fn scalars<T: TElem + NumElement>(dev: &Device, rng: &mut Rng) -> TResult {
    let h = HostNd::<T>::random(rng, &[9, 40]);
    let a = h.upload(dev)?.slice(s![..;-1, 1..;3])?;
    let v = h.data[7];
    let sv = zero_d(dev, v)?;
    type Cmp<T> = fn(&DeviceArray<T>, T, &DeviceArray<T>) -> cuarray::Result<[Vec<bool>; 2]>;
    let cmps: [(&str, Cmp<T>); 6] = [
        ("eq", |a, v, s| {
            Ok([a.eq(v)?.to_host()?, a.eq(s)?.to_host()?])
        }),
        ("ne", |a, v, s| {
            Ok([a.ne(v)?.to_host()?, a.ne(s)?.to_host()?])
        }),
        ("lt", |a, v, s| {
            Ok([a.lt(v)?.to_host()?, a.lt(s)?.to_host()?])
        }),
        ("le", |a, v, s| {
            Ok([a.le(v)?.to_host()?, a.le(s)?.to_host()?])
        }),
        ("gt", |a, v, s| {
            Ok([a.gt(v)?.to_host()?, a.gt(s)?.to_host()?])
        }),
        ("ge", |a, v, s| {
            Ok([a.ge(v)?.to_host()?, a.ge(s)?.to_host()?])
        }),
    ];
    for (name, f) in cmps {
        let [got, want] = f(&a, v, &sv)?;
        check_eq(&format!("{name} with a scalar"), &got, &want)?;
    }
    type Bin<T> = fn(&DeviceArray<T>, T, &DeviceArray<T>) -> cuarray::Result<[Vec<T>; 2]>;
    let bins: [(&str, Bin<T>); 8] = [
        ("add", |a, v, s| {
            Ok([a.add(v)?.to_host()?, a.add(s)?.to_host()?])
        }),
        ("sub", |a, v, s| {
            Ok([a.sub(v)?.to_host()?, a.sub(s)?.to_host()?])
        }),
        ("mul", |a, v, s| {
            Ok([a.mul(v)?.to_host()?, a.mul(s)?.to_host()?])
        }),
        ("div", |a, v, s| {
            Ok([a.div(v)?.to_host()?, a.div(s)?.to_host()?])
        }),
        ("rem", |a, v, s| {
            Ok([a.rem(v)?.to_host()?, a.rem(s)?.to_host()?])
        }),
        ("pow", |a, v, s| {
            Ok([a.pow(v)?.to_host()?, a.pow(s)?.to_host()?])
        }),
        ("maximum", |a, v, s| {
            Ok([a.maximum(v)?.to_host()?, a.maximum(s)?.to_host()?])
        }),
        ("minimum", |a, v, s| {
            Ok([a.minimum(v)?.to_host()?, a.minimum(s)?.to_host()?])
        }),
    ];
    for (name, f) in bins {
        let [got, want] = f(&a, v, &sv)?;
        check_eq(&format!("{name} with a scalar"), &got, &want)?;
    }
    // In place through the view: only the view's elements change, as with a 0-d array.
    type Asg<T> = fn(&DeviceArray<T>, T) -> cuarray::Result<()>;
    type AsgRef<T> = fn(&DeviceArray<T>, &DeviceArray<T>) -> cuarray::Result<()>;
    let assigns: [(&str, Asg<T>, AsgRef<T>); 8] = [
        ("add_assign", |a, v| a.add_assign(v), |a, s| a.add_assign(s)),
        ("sub_assign", |a, v| a.sub_assign(v), |a, s| a.sub_assign(s)),
        ("mul_assign", |a, v| a.mul_assign(v), |a, s| a.mul_assign(s)),
        ("div_assign", |a, v| a.div_assign(v), |a, s| a.div_assign(s)),
        ("rem_assign", |a, v| a.rem_assign(v), |a, s| a.rem_assign(s)),
        ("pow_assign", |a, v| a.pow_assign(v), |a, s| a.pow_assign(s)),
        (
            "maximum_assign",
            |a, v| a.maximum_assign(v),
            |a, s| a.maximum_assign(s),
        ),
        (
            "minimum_assign",
            |a, v| a.minimum_assign(v),
            |a, s| a.minimum_assign(s),
        ),
    ];
    for (name, with_scalar, with_array) in assigns {
        let x = h.upload(dev)?;
        let y = h.upload(dev)?;
        with_scalar(&x.slice(s![..;-1, 1..;3])?, v)?;
        with_array(&y.slice(s![..;-1, 1..;3])?, &sv)?;
        check_eq(
            &format!("{name} with a scalar"),
            &x.to_host()?,
            &y.to_host()?,
        )?;
    }
    Ok(())
}

/// `+= -= *= /=` on arrays and scalars against the host, in place (same buffer).
fn assign_operators<T: TElem + NumElement>(dev: &Device, rng: &mut Rng) -> TResult {
    let mut h = HostNd::<T>::random(rng, &[5, 33]);
    let row = HostNd::<T>::random(rng, &[33]);
    let mut a = h.upload(dev)?;
    let same = a.clone();
    let r = row.upload(dev)?;
    a += &r;
    h = host_binary(Op::Add, &h, &row);
    a -= r.clone();
    h = host_binary(Op::Sub, &h, &row);
    a *= &r;
    h = host_binary(Op::Mul, &h, &row);
    let v = row.data[3];
    a /= v;
    h = host_binary(Op::Div, &h, &HostNd::new(vec![v], &[1]));
    a -= &r * v;
    let rv = host_binary(Op::Mul, &row, &HostNd::new(vec![v], &[1]));
    h = host_binary(Op::Sub, &h, &rv);
    ensure!(
        a.shares_memory_with(&same),
        "an assignment operator reallocated"
    );
    check_array("assignment operators", &same, &h, T::REL_TOL)
}

fn assign_operator_panics(dev: &Device) -> TResult {
    let mut a = DeviceArray::<f32>::zeros(dev, &[2, 3])?;
    let b = DeviceArray::<f32>::zeros(dev, &[4])?;
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| a += &b));
    let msg = match r {
        Ok(()) => return Err("a += b with shapes that do not broadcast did not panic".into()),
        Err(p) => p.downcast_ref::<String>().cloned().unwrap_or_default(),
    };
    ensure!(
        msg.contains("add_assign") && msg.contains("[2, 3]") && msg.contains("[4]"),
        "panic message: {msg}"
    );
    ensure!(
        a.add_assign(&b).is_err(),
        "the method returns the error instead"
    );
    Ok(())
}

fn where_scalars(dev: &Device) -> TResult {
    let x = DeviceArray::from_host(dev, &[-1.0f32, 2.0, -3.0, 4.0], &[2, 2])?;
    let y = cuarray::where_(x.gt(0.0), &x, 0.0)?;
    check_eq("where(x > 0, x, 0)", &y.to_host()?, &[0.0, 2.0, 0.0, 4.0])?;
    let y = cuarray::where_(x.lt(0.0), -1.0, 1.0)?;
    check_eq(
        "where(x < 0, -1, 1)",
        &y.to_host()?,
        &[-1.0, 1.0, -1.0, 1.0],
    )?;
    let y = cuarray::where_(true, &x, 5.0)?;
    check_eq("where(true, x, 5)", &y.to_host()?, &x.to_host()?)?;
    ensure!(
        cuarray::where_(true, 1.0f32, 0.0).is_err(),
        "three scalars are an error"
    );
    Ok(())
}

fn shapes_and_axes(dev: &Device) -> TResult {
    let n = 3usize;
    let a = DeviceArray::<i32>::arange(dev, 0, 24, 1)?;
    ensure!(a.reshape(&[2, n, 4])?.shape() == [2, 3, 4], "reshape usize");
    ensure!(a.reshape((2, -1, 4))?.shape() == [2, 3, 4], "reshape tuple");
    ensure!(
        a.reshape(vec![4isize, -1])?.shape() == [4, 6],
        "reshape vec"
    );
    let b = a.reshape(&[2, 3, 4])?;
    let hb = HostNd::new((0..24).collect::<Vec<i32>>(), &[2, 3, 4]);
    check_array(
        "permute negative",
        &b.permute(&[-1, 0, -2])?,
        &hb.permute(&[2, 0, 1]),
        0.0,
    )?;
    check_array(
        "permute usize",
        &b.permute(&[2usize, 0, 1])?,
        &hb.permute(&[2, 0, 1]),
        0.0,
    )?;
    ensure!(b.permute(&[0, 0, 1]).is_err(), "a repeated axis");
    ensure!(b.permute(&[3, 0, 1]).is_err(), "an axis out of range");
    let z = DeviceArray::<f32>::zeros(dev, b.shape())?;
    ensure!(z.shape() == b.shape(), "zeros of another array's shape");
    ensure!(
        DeviceArray::<f32>::ones(dev, 5)?.shape() == [5],
        "a single extent"
    );
    ensure!(
        DeviceArray::<f32>::ones(dev, ())?.shape() == [0usize; 0],
        "0-d"
    );
    ensure!(
        DeviceArray::<f32>::zeros(dev, &[2, -1]).is_err(),
        "-1 in zeros"
    );
    // New axes.
    let v = b.slice(s![0, None, .., None, 1..;2])?;
    ensure!(
        v.shape() == [1, 3, 1, 2],
        "s![0, None, .., None, 1..;2]: {:?}",
        v.shape()
    );
    check_eq("new axis values", &v.to_host()?, &[1, 3, 5, 7, 9, 11])?;
    Ok(())
}

fn keepdim_reductions(dev: &Device) -> TResult {
    let x = DeviceArray::from_host(dev, &[1.0f64, 5.0, 3.0, 4.0, 2.0, 6.0], &[2, 3])?;
    type Case = (&'static str, DeviceArray<f64>, [usize; 2], Vec<f64>);
    let cases: [Case; 6] = [
        (
            "sum_keepdim(-1)",
            x.sum_keepdim(-1)?,
            [2, 1],
            vec![9.0, 12.0],
        ),
        (
            "sum_keepdim(0)",
            x.sum_keepdim(0)?,
            [1, 3],
            vec![5.0, 7.0, 9.0],
        ),
        (
            "mean_keepdim(1)",
            x.mean_keepdim(1)?,
            [2, 1],
            vec![3.0, 4.0],
        ),
        (
            "max_keepdim(-1)",
            x.max_keepdim(-1)?,
            [2, 1],
            vec![5.0, 6.0],
        ),
        (
            "min_keepdim(0)",
            x.min_keepdim(0)?,
            [1, 3],
            vec![1.0, 2.0, 3.0],
        ),
        (
            "sum_axes(-1, true)",
            x.sum_axes(-1, true)?,
            [2, 1],
            vec![9.0, 12.0],
        ),
    ];
    for (name, got, shape, want) in cases {
        ensure!(got.shape() == shape, "{name}: shape {:?}", got.shape());
        check_eq(name, &got.to_host()?, &want)?;
    }
    let am = x.argmax_keepdim(-1)?;
    ensure!(am.shape() == [2, 1], "argmax_keepdim shape");
    check_eq("argmax_keepdim", &am.to_host()?, &[1, 2])?;
    let v = x.var_keepdim(-1, 0)?;
    ensure!(v.shape() == [2, 1], "var_keepdim shape");
    check_close("var_keepdim", &v.to_host()?, &[8.0 / 3.0, 8.0 / 3.0])?;
    Ok(())
}

/// flip, roll, tile, repeat and diff as gathers of the host array.
fn gathers<T: TElem + NumElement>(dev: &Device, rng: &mut Rng) -> TResult {
    let h = HostNd::<T>::random(rng, &[4, 7]);
    let a = h.upload(dev)?;
    let all = |n: usize| (0..n).collect::<Vec<usize>>();
    let rev = |n: usize| (0..n).rev().collect::<Vec<usize>>();
    check_array("flip(-1)", &a.flip(-1)?, &h.select(&[all(4), rev(7)]), 0.0)?;
    check_array(
        "flip(&[0, 1])",
        &a.flip(&[0, 1])?,
        &h.select(&[rev(4), rev(7)]),
        0.0,
    )?;
    for (shift, axis) in [(2isize, 1isize), (-3, 1), (9, -1), (1, 0), (0, 0), (-5, 0)] {
        let n = h.shape[axis.rem_euclid(2) as usize] as isize;
        let list: Vec<usize> = (0..n).map(|i| (i - shift).rem_euclid(n) as usize).collect();
        let want = if axis.rem_euclid(2) == 0 {
            h.select(&[list, all(7)])
        } else {
            h.select(&[all(4), list])
        };
        check_array(
            &format!("roll({shift}, {axis})"),
            &a.roll(shift, axis)?,
            &want,
            0.0,
        )?;
    }
    let want = h.select(&[
        (0..8).map(|i| i % 4).collect(),
        (0..21).map(|j| j % 7).collect(),
    ]);
    check_array("tile(&[2, 3])", &a.tile(&[2, 3])?, &want, 0.0)?;
    let t = a.tile(&[2, 1, 1])?;
    ensure!(
        t.shape() == [2, 4, 7],
        "tile with more reps: {:?}",
        t.shape()
    );
    let want = h.select(&[all(4), (0..14).map(|j| j % 7).collect()]);
    check_array("tile(2)", &a.tile(2)?, &want, 0.0)?;
    let want = h.select(&[(0..12).map(|i| i / 3).collect(), all(7)]);
    check_array("repeat(3, 0)", &a.repeat(3, 0)?, &want, 0.0)?;
    let want = h.select(&[all(4), (0..14).map(|j| j / 2).collect()]);
    check_array(
        "repeat(2, -1) of a transposed view",
        &a.t().repeat(2, 0)?.t(),
        &want,
        0.0,
    )?;
    let d1 = host_binary(
        Op::Sub,
        &h.select(&[all(4), (1..7).collect()]),
        &h.select(&[all(4), (0..6).collect()]),
    );
    check_array("diff(1, -1)", &a.diff(1, -1)?, &d1, T::REL_TOL)?;
    let d2 = host_binary(
        Op::Sub,
        &d1.select(&[all(4), (1..6).collect()]),
        &d1.select(&[all(4), (0..5).collect()]),
    );
    check_array("diff(2, 1)", &a.diff(2, 1)?, &d2, T::REL_TOL)?;
    ensure!(a.diff(9, 0)?.shape() == [0, 7], "diff past the length");
    Ok(())
}

fn triangles<T: TElem + NumElement>(dev: &Device, rng: &mut Rng) -> TResult {
    let h = HostNd::<T>::random(rng, &[2, 4, 5]);
    let a = h.upload(dev)?;
    for k in [-2isize, -1, 0, 1, 3, 7] {
        let mask = |lower: bool| {
            let mut m = h.clone();
            for b in 0..2 {
                for i in 0..4 {
                    for j in 0..5 {
                        let d = j as isize - i as isize;
                        let keep = if lower { d <= k } else { d >= k };
                        if !keep {
                            m.data[(b * 4 + i) * 5 + j] = T::ZERO;
                        }
                    }
                }
            }
            m
        };
        check_array(&format!("tril({k})"), &a.tril(k)?, &mask(true), 0.0)?;
        check_array(&format!("triu({k})"), &a.triu(k)?, &mask(false), 0.0)?;
    }
    ensure!(a.slice(s![0, 0])?.tril(0).is_err(), "tril of 1-D");
    Ok(())
}

fn outer_like_close(dev: &Device, rng: &mut Rng) -> TResult {
    let x = HostNd::<f32>::random(rng, &[3, 2]);
    let y = HostNd::<f32>::random(rng, &[4]);
    let o = cuarray::outer(&x.upload(dev)?, &y.upload(dev)?)?;
    let want: Vec<f32> = x
        .data
        .iter()
        .flat_map(|&p| y.data.iter().map(move |&q| p * q))
        .collect();
    ensure!(o.shape() == [6, 4], "outer shape {:?}", o.shape());
    check_eq("outer", &o.to_host()?, &want)?;
    let a = x.upload(dev)?;
    let t = a.t();
    for (name, z, v) in [
        ("zeros_like", cuarray::zeros_like(&t)?, 0.0f32),
        ("ones_like", cuarray::ones_like(&t)?, 1.0),
        ("full_like", cuarray::full_like(&t, 2.5)?, 2.5),
    ] {
        ensure!(z.shape() == [2, 3] && z.is_contiguous(), "{name} shape");
        check_eq(name, &z.to_host()?, &[v; 6])?;
    }
    let e = cuarray::empty_like(&t)?;
    ensure!(e.shape() == [2, 3], "empty_like shape");
    let eb = DeviceArray::<bool>::empty(dev, &[3])?;
    check_eq("empty bool is zeroed", &eb.to_host()?, &[false; 3])?;
    let b = (&a * (1.0 + 1e-7))?;
    ensure!(cuarray::allclose(&a, &b, 1e-5, 1e-8)?, "allclose close");
    ensure!(
        !cuarray::allclose(&a, &(&a + 1.0)?, 1e-5, 1e-8)?,
        "allclose far"
    );
    let inf = DeviceArray::from_slice(dev, &[f32::INFINITY, 1.0])?;
    ensure!(
        cuarray::allclose(&inf, &inf, 1e-5, 1e-8)?,
        "equal infinities"
    );
    let nan = DeviceArray::from_slice(dev, &[f32::NAN, 1.0])?;
    ensure!(!cuarray::allclose(&nan, &nan, 1e-5, 1e-8)?, "NaN");
    ensure!(
        cuarray::allclose(&a, &a.slice(s![..1])?, 1e9, 1e9)?,
        "broadcast"
    );
    ensure!(cuarray::array_equal(&a, &a.copy()?)?, "array_equal");
    ensure!(!cuarray::array_equal(&a, &b)?, "array_equal differs");
    ensure!(!cuarray::array_equal(&a, &t)?, "array_equal shapes");
    let (v, shape) = t.to_host_shaped()?;
    ensure!(shape == [2, 3] && v == x.t().data, "to_host_shaped");
    let fv = DeviceArray::from_vec(dev, x.data.clone(), x.shape.clone())?;
    check_eq("from_vec", &fv.to_host()?, &x.data)?;
    Ok(())
}

/// NumPy's `pad` on the host: each output index maps back to a source index per axis
/// (clamped for edge, reflected with period 2(n - 1) for reflect and 2n for symmetric,
/// periodic for wrap), or to the constant.
fn host_pad<T: TElem>(h: &HostNd<T>, width: &[(usize, usize)], mode: PadMode<T>) -> HostNd<T> {
    let shape: Vec<usize> = h
        .shape
        .iter()
        .zip(width)
        .map(|(&e, &(b, a))| e + b + a)
        .collect();
    let data = crate::common::indices(&shape)
        .iter()
        .map(|j| {
            let mut src = Vec::with_capacity(j.len());
            for (k, &i) in j.iter().enumerate() {
                let (n, b) = (h.shape[k] as i64, width[k].0 as i64);
                let p = i as i64 - b;
                let q = match mode {
                    PadMode::Constant(c) if p < 0 || p >= n => return c,
                    PadMode::Constant(_) => p,
                    PadMode::Edge => p.clamp(0, n - 1),
                    PadMode::Reflect if n == 1 => 0,
                    PadMode::Reflect => {
                        let period = 2 * (n - 1);
                        let r = p.rem_euclid(period);
                        if r >= n {
                            period - r
                        } else {
                            r
                        }
                    }
                    PadMode::Symmetric => {
                        let r = p.rem_euclid(2 * n);
                        if r >= n {
                            2 * n - 1 - r
                        } else {
                            r
                        }
                    }
                    PadMode::Wrap => p.rem_euclid(n),
                    other => unreachable!("{other:?} has its reference in manipulation.rs"),
                };
                src.push(q as usize);
            }
            h.get(&src)
        })
        .collect();
    HostNd::new(data, &shape)
}

/// `pad` in the index modes on a strided 3-d view, widths past the extent,
/// a one-element axis, one pair for every axis; the errors.
fn pad(dev: &Device, rng: &mut Rng) -> TResult {
    let h = HostNd::<f32>::random(rng, &[4, 1, 11]);
    let a = h.upload(dev)?;
    let v = h.slice(&[(None, None, -1), (None, None, 1), (Some(1), None, 2)]);
    let va = a.slice(s![..;-1, .., 1..;2])?;
    let cases: [&[(usize, usize)]; 4] = [
        &[(1, 2), (0, 3), (2, 0)],
        &[(7, 9), (2, 2), (12, 5)],
        &[(3, 3)],
        &[(0, 0), (0, 0), (0, 0)],
    ];
    for width in cases {
        let w: Vec<(usize, usize)> = if width.len() == 1 {
            vec![width[0]; 3]
        } else {
            width.to_vec()
        };
        for mode in [
            PadMode::Constant(-2.5f32),
            PadMode::Edge,
            PadMode::Reflect,
            PadMode::Symmetric,
            PadMode::Wrap,
        ] {
            let want = host_pad(&v, &w, mode);
            let got = va.pad(width, mode)?;
            ensure!(
                got.shape() == want.shape.as_slice(),
                "{mode:?} {width:?}: shape {:?}",
                got.shape()
            );
            check_eq(
                &format!("pad {mode:?} {width:?}"),
                &got.to_host()?,
                &want.data,
            )?;
        }
    }
    let e = DeviceArray::<f32>::zeros(dev, &[0, 3])?;
    ensure!(
        e.pad(&[(1, 1)], PadMode::Constant(1.0))?.shape() == [2, 5],
        "constant pad of empty"
    );
    ensure!(
        e.pad(&[(1, 1)], PadMode::Edge).is_err(),
        "edge pad of an empty axis"
    );
    ensure!(
        a.pad(&[(1, 1), (1, 1)], PadMode::Edge).is_err(),
        "two pairs for three axes"
    );
    Ok(())
}

pub fn trials(out: &mut Vec<Trial>) {
    for (name, f) in PROGRAMS {
        out.push(gpu_trial(format!("first_programs/{name}"), move |dev| {
            f(dev).map_err(|e| e.to_string().into())
        }));
    }
    fn per_dtype<T: TElem + NumElement>(out: &mut Vec<Trial>) {
        let d = dname::<T>();
        add_gpu(out, format!("ergonomics/scalars/{d}"), scalars::<T>);
        add_gpu(
            out,
            format!("ergonomics/assign_operators/{d}"),
            assign_operators::<T>,
        );
        add_gpu(out, format!("ergonomics/gathers/{d}"), gathers::<T>);
        add_gpu(out, format!("ergonomics/triangles/{d}"), triangles::<T>);
    }
    each_num_dtype!(per_dtype(out));
    out.push(gpu_trial(
        "ergonomics/assign_operators/f32/panic_message",
        assign_operator_panics,
    ));
    out.push(gpu_trial("ergonomics/where/f32/scalars", where_scalars));
    out.push(gpu_trial("ergonomics/shapes_and_axes/i32", shapes_and_axes));
    out.push(gpu_trial("ergonomics/keepdim/f64", keepdim_reductions));
    add_gpu(
        out,
        "ergonomics/helpers/f32/outer_like_close".into(),
        outer_like_close,
    );
    add_gpu(out, "ergonomics/pad/f32".into(), pad);
}
