//! Creation on the device: zeros, ones, full, eye, arange, linspace, logspace, geomspace,
//! meshgrid, indices.

use crate::common::{
    add_gpu, check_eq, close, dname, each_dtype, ensure, Rng, TElem, TResult, Val,
};
use cuarray::{DType, Device, DeviceArray, Error, FloatElement, Indexing, NumElement};
use libtest_mimic::Trial;

const SHAPES: [&[usize]; 7] = [&[], &[0], &[1], &[7], &[4099], &[3, 1000], &[2, 0, 3]];

fn fill<T: TElem>(dev: &Device, rng: &mut Rng) -> TResult {
    for shape in SHAPES {
        let n: usize = shape.iter().product();
        // Dirty the pool first so that a block handed back with old contents is reused.
        let dirty = DeviceArray::from_host(dev, &vec![T::ONE; n.max(1)], &[n.max(1)])?;
        drop(dirty);
        let z = DeviceArray::<T>::zeros(dev, shape)?;
        ensure!(
            z.shape() == shape && z.dtype() == T::DTYPE,
            "zeros shape {:?}",
            z.shape()
        );
        check_eq(
            &format!("zeros {shape:?}"),
            &z.to_host()?,
            &vec![T::ZERO; n],
        )?;
        let o = DeviceArray::<T>::ones(dev, shape)?;
        check_eq(&format!("ones {shape:?}"), &o.to_host()?, &vec![T::ONE; n])?;
        let v = if T::DTYPE == DType::Bool {
            T::ONE
        } else {
            loop {
                let v = T::random(rng);
                if v != T::ZERO && v != T::ONE {
                    break v;
                }
            }
        };
        let f = DeviceArray::full(dev, shape, v)?;
        check_eq(&format!("full({v}) {shape:?}"), &f.to_host()?, &vec![v; n])?;
    }
    Ok(())
}

fn eye<T: TElem>(dev: &Device, _rng: &mut Rng) -> TResult {
    for n in [0usize, 1, 2, 5, 67] {
        let e = DeviceArray::<T>::eye(dev, n)?;
        ensure!(e.shape() == [n, n], "eye({n}) shape {:?}", e.shape());
        let want: Vec<T> = (0..n * n)
            .map(|k| if k / n == k % n { T::ONE } else { T::ZERO })
            .collect();
        check_eq(&format!("eye({n})"), &e.to_host()?, &want)?;
    }
    Ok(())
}

/// NumPy's element count for an integer arange.
fn int_count(a: i128, b: i128, s: i128) -> usize {
    if s > 0 && b > a {
        ((b - a + s - 1) / s) as usize
    } else if s < 0 && b < a {
        ((a - b - s - 1) / -s) as usize
    } else {
        0
    }
}

fn arange_int<T: TElem + NumElement>(dev: &Device) -> TResult {
    let (bits, signed) = T::INT.expect("integer dtype");
    let min: i128 = if signed { -(1i128 << (bits - 1)) } else { 0 };
    let max: i128 = if signed {
        (1i128 << (bits - 1)) - 1
    } else {
        (1i128 << bits) - 1
    };
    let mut cases: Vec<(i128, i128, i128)> = vec![
        (0, 100, 7),
        (5, 5, 1),
        (10, 0, 1),
        (3, 18, 5),
        (max - 10, max, 3),
        (min, min + 7, 1),
        (0, max.min(4099), 1),
    ];
    if signed {
        cases.extend([
            (10, -10, -3),
            (0, 10, -1),
            (-7, 8, 1),
            (max, min, -(max / 3)),
            (-100, 120, 7),
        ]);
    }
    if bits >= 32 {
        cases.push((min.max(-5), 100_003, 1));
    }
    for (a, b, s) in cases {
        let conv = |v: i128| T::from_val(Val::I(v));
        let arr = DeviceArray::<T>::arange(dev, conv(a), conv(b), conv(s))?;
        let n = int_count(a, b, s);
        let want: Vec<T> = (0..n as i128).map(|i| conv(a + i * s)).collect();
        ensure!(
            arr.shape() == [n],
            "arange({a}, {b}, {s}) has shape {:?}, expected [{n}]",
            arr.shape()
        );
        check_eq(&format!("arange({a}, {b}, {s})"), &arr.to_host()?, &want)?;
    }
    let zero = DeviceArray::<T>::arange(dev, T::ZERO, T::ONE, T::ZERO);
    ensure!(
        matches!(zero, Err(Error::InvalidArgument { .. })),
        "arange with step 0 must fail: {zero:?}"
    );
    Ok(())
}

fn arange_float<T: TElem + NumElement>(dev: &Device) -> TResult {
    let cases: [(f64, f64, f64); 9] = [
        (0.0, 1.0, 0.1),
        (1.0, -1.0, -0.25),
        (0.0, 0.0, 1.0),
        (2.5, 2.0, 0.1),
        (-3.5, 100.0, 0.7),
        (10.0, 0.0, -1.5),
        (0.0, 10.0, -1.0),
        (0.0, 1000.0, 0.5),
        (-2.0, 3.0, 1.0),
    ];
    for (a, b, s) in cases {
        let (ta, tb, ts) = (
            T::from_val(Val::F(a)),
            T::from_val(Val::F(b)),
            T::from_val(Val::F(s)),
        );
        let (a, b, s) = (ta.to_f64(), tb.to_f64(), ts.to_f64());
        let n = ((b - a) / s).ceil().max(0.0) as usize;
        let arr = DeviceArray::<T>::arange(dev, ta, tb, ts)?;
        ensure!(
            arr.shape() == [n],
            "arange({a}, {b}, {s}) has shape {:?}, expected [{n}]",
            arr.shape()
        );
        let got = arr.to_host()?;
        for (i, &g) in got.iter().enumerate() {
            // The device may contract `start + i * step` into one fma.
            let plain = T::from_val(Val::F(a + i as f64 * s));
            let fused = T::from_val(Val::F((i as f64).mul_add(s, a)));
            ensure!(
                close(g, plain, T::REL_TOL) || close(g, fused, T::REL_TOL),
                "arange({a}, {b}, {s})[{i}]: got {g}, expected {plain}"
            );
        }
    }
    for (a, b, s) in [
        (0.0, 1.0, 0.0),
        (0.0, f64::INFINITY, 1.0),
        (f64::NAN, 1.0, 1.0),
    ] {
        let r = DeviceArray::<T>::arange(
            dev,
            T::from_val(Val::F(a)),
            T::from_val(Val::F(b)),
            T::from_val(Val::F(s)),
        );
        ensure!(
            matches!(r, Err(Error::InvalidArgument { .. })),
            "arange({a}, {b}, {s}) must fail: {r:?}"
        );
    }
    Ok(())
}

fn arange<T: TElem + NumElement>(dev: &Device, _rng: &mut Rng) -> TResult {
    if T::DTYPE.is_float() {
        arange_float::<T>(dev)
    } else {
        arange_int::<T>(dev)
    }
}

fn linspace<T: TElem + FloatElement>(dev: &Device, _rng: &mut Rng) -> TResult {
    let cases: [(f64, f64, usize); 8] = [
        (0.0, 1.0, 5),
        (-3.0, 7.5, 1000),
        (2.0, 2.0, 3),
        (0.0, 0.1, 7),
        (5.0, -5.0, 4099),
        (1.0, 3.0, 2),
        (0.3, 9.0, 0),
        (0.3, 9.0, 1),
    ];
    for (a, b, num) in cases {
        let (ta, tb) = (T::from_val(Val::F(a)), T::from_val(Val::F(b)));
        let arr = DeviceArray::<T>::linspace(dev, ta, tb, num)?;
        ensure!(
            arr.shape() == [num],
            "linspace({a}, {b}, {num}) has shape {:?}",
            arr.shape()
        );
        let got = arr.to_host()?;
        let (a, b) = (ta.to_f64(), tb.to_f64());
        let step = if num > 1 {
            (b - a) / (num - 1) as f64
        } else {
            0.0
        };
        for (i, &g) in got.iter().enumerate() {
            let plain = T::from_val(Val::F(a + i as f64 * step));
            let fused = T::from_val(Val::F((i as f64).mul_add(step, a)));
            ensure!(
                close(g, plain, T::REL_TOL) || close(g, fused, T::REL_TOL),
                "linspace({a}, {b}, {num})[{i}]: got {g}, expected {plain}"
            );
        }
        if num > 1 {
            ensure!(
                got[num - 1] == tb,
                "linspace({a}, {b}, {num}): last is {}, not exactly stop",
                got[num - 1]
            );
        }
        if num >= 1 {
            ensure!(
                got[0] == ta,
                "linspace({a}, {b}, {num}): first is {}, not exactly start",
                got[0]
            );
        }
    }
    Ok(())
}

/// logspace and geomspace against NumPy's definitions (`base ** linspace(..)`; geomspace
/// with exact ends and negative runs), in f64 rounded once to `T`.
fn log_geom<T: TElem + FloatElement>(dev: &Device, _rng: &mut Rng) -> TResult {
    let f = |x: f64| T::from_val(Val::F(x));
    for (a, b, num, base) in [
        (0.0, 3.0, 4, 10.0),
        (-2.0, 1.5, 37, 2.0),
        (1.0, -1.0, 1000, 3.0),
        (0.5, 0.5, 3, 10.0),
        (0.0, 1.0, 1, 10.0),
        (0.0, 1.0, 0, 10.0),
    ] {
        let got = DeviceArray::<T>::logspace(dev, f(a), f(b), num, f(base))?.to_host()?;
        let (a, b, base) = (f(a).to_f64(), f(b).to_f64(), f(base).to_f64());
        ensure!(got.len() == num, "logspace length");
        let step = if num > 1 {
            (b - a) / (num - 1) as f64
        } else {
            0.0
        };
        for (i, &g) in got.iter().enumerate() {
            let e = if num > 1 && i == num - 1 {
                b
            } else {
                a + i as f64 * step
            };
            let want = f(base.powf(e));
            ensure!(
                close(g, want, 4.0 * T::REL_TOL),
                "logspace({a}, {b}, {num}, {base})[{i}]: got {g}, expected {want}"
            );
        }
    }
    for (a, b, num) in [
        (1.0, 1000.0, 4),
        (-1.0, -1e-3, 50),
        (8.0, 0.5, 5),
        (3.0, 3.0, 1),
    ] {
        let got = DeviceArray::<T>::geomspace(dev, f(a), f(b), num)?.to_host()?;
        let (a, b) = (f(a).to_f64(), f(b).to_f64());
        let sign = a.signum();
        let (la, lb) = ((a * sign).log10(), (b * sign).log10());
        let step = if num > 1 {
            (lb - la) / (num - 1) as f64
        } else {
            0.0
        };
        for (i, &g) in got.iter().enumerate() {
            let want = if i == 0 {
                f(a)
            } else if i == num - 1 {
                f(b)
            } else {
                f(sign * 10f64.powf(la + i as f64 * step))
            };
            let exact = i == 0 || i == num - 1;
            ensure!(
                if exact {
                    g == want
                } else {
                    close(g, want, 4.0 * T::REL_TOL)
                },
                "geomspace({a}, {b}, {num})[{i}]: got {g}, expected {want}"
            );
        }
    }
    for (a, b) in [(0.0, 1.0), (1.0, 0.0), (-1.0, 1.0)] {
        ensure!(
            DeviceArray::<T>::geomspace(dev, f(a), f(b), 3).is_err(),
            "geomspace({a}, {b}) is an error"
        );
    }
    Ok(())
}

/// meshgrid (both orders, 1 to 3 inputs, a non-contiguous and a 2-D input) and indices.
fn grids(dev: &Device, _rng: &mut Rng) -> TResult {
    let x = DeviceArray::<i32>::arange(dev, 0, 10, 1)?.slice(cuarray::s![1..;3])?; // 1 4 7
    let y = DeviceArray::from_host(dev, &[10, 20, 30, 40], &[2, 2])?; // flattened
    let z = DeviceArray::from_slice(dev, &[-1, -2])?;
    let (hx, hy, hz) = (vec![1, 4, 7], vec![10, 20, 30, 40], vec![-1, -2]);
    for indexing in [Indexing::Xy, Indexing::Ij] {
        let g = cuarray::meshgrid(&[&x, &y, &z], indexing)?;
        let shape = if indexing == Indexing::Xy {
            [4, 3, 2]
        } else {
            [3, 4, 2]
        };
        ensure!(g.len() == 3, "three grids");
        for (k, gk) in g.iter().enumerate() {
            ensure!(
                gk.shape() == shape,
                "meshgrid {indexing:?} shape {:?}",
                gk.shape()
            );
            let want: Vec<i32> = crate::numpy::indices(&shape)
                .iter()
                .map(|p| {
                    let (ix, iy) = if indexing == Indexing::Xy {
                        (p[1], p[0])
                    } else {
                        (p[0], p[1])
                    };
                    [hx[ix], hy[iy], hz[p[2]]][k]
                })
                .collect();
            ensure!(gk.to_host()? == want, "meshgrid {indexing:?} grid {k}");
        }
    }
    let one = cuarray::meshgrid(&[&x], Indexing::Xy)?;
    ensure!(
        one.len() == 1 && one[0].to_host()? == hx,
        "meshgrid of one input"
    );
    ensure!(
        cuarray::meshgrid::<i32>(&[], Indexing::Ij)?.is_empty(),
        "meshgrid of none"
    );
    let e = cuarray::meshgrid(&[&x, &DeviceArray::<i32>::zeros(dev, &[0])?], Indexing::Xy)?;
    ensure!(e[0].shape() == [0, 3], "meshgrid with an empty input");
    for shape in [vec![2usize, 3, 4], vec![5], vec![], vec![3, 0]] {
        let g = cuarray::indices(dev, &shape)?;
        let mut full = vec![shape.len()];
        full.extend_from_slice(&shape);
        ensure!(g.shape() == full, "indices shape {:?}", g.shape());
        let want: Vec<i64> = (0..shape.len())
            .flat_map(|k| {
                crate::numpy::indices(&shape)
                    .into_iter()
                    .map(move |p| p[k] as i64)
            })
            .collect();
        ensure!(g.to_host()? == want, "indices {shape:?}");
    }
    Ok(())
}

fn register<T: TElem>(out: &mut Vec<Trial>) {
    let d = dname::<T>();
    add_gpu(out, format!("create/zeros_ones_full/{d}/shapes"), fill::<T>);
    add_gpu(out, format!("create/eye/{d}/n_0_1_2_5_67"), eye::<T>);
}

fn register_num<T: TElem + NumElement>(out: &mut Vec<Trial>) {
    add_gpu(
        out,
        format!("create/arange/{}/steps", dname::<T>()),
        arange::<T>,
    );
}

fn register_float<T: TElem + FloatElement>(out: &mut Vec<Trial>) {
    add_gpu(
        out,
        format!("create/linspace/{}/nums", dname::<T>()),
        linspace::<T>,
    );
    add_gpu(
        out,
        format!("create/logspace_geomspace/{}/bases_signs", dname::<T>()),
        log_geom::<T>,
    );
}

pub fn trials(out: &mut Vec<Trial>) {
    each_dtype!(register(out));
    crate::common::each_num_dtype!(register_num(out));
    register_float::<f32>(out);
    register_float::<f64>(out);
    register_float::<half::f16>(out);
    register_float::<half::bf16>(out);
    add_gpu(
        out,
        "create/meshgrid_indices/i32/xy_ij_strided".into(),
        grids,
    );
}
