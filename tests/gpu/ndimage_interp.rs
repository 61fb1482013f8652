//! Resampling of `cuarray::ndimage` (map_coordinates, affine_transform, zoom, shift,
//! rotate; spline orders 0 to 5) on the GPU: against a host model of scipy.ndimage's
//! rules (the coordinate mapped into the input per mode, then the taps extended per mode),
//! checked against SciPy 1.17 for every mode, and against values SciPy computed for rotate
//! and zoom (embedded below). f64, f32 and u8 (rounded half up and saturated, as SciPy).

use crate::common::{add_gpu, ensure, gpu_trial, Rng, TResult};
use cuarray::ndimage::{self, Mode};
use cuarray::{DType, Device, DeviceArray, Element, NumElement};
use libtest_mimic::Trial;

const MODES: [Mode; 8] = [
    Mode::Reflect,
    Mode::Constant(0.7),
    Mode::Nearest,
    Mode::Mirror,
    Mode::Wrap,
    Mode::GridConstant(0.7),
    Mode::GridWrap,
    Mode::GridMirror,
];

/// SciPy's map_coordinate (C `map_coordinate`): `None` is cval.
fn map_coord(x: f64, n: usize, mode: Mode) -> Option<f64> {
    let nf = n as f64;
    if (0.0..=nf - 1.0).contains(&x) {
        return Some(x);
    }
    let t = |v: f64| v.trunc();
    match mode {
        Mode::GridConstant(_) => Some(x),
        Mode::Constant(_) => None,
        Mode::Nearest => Some(if x < 0.0 { 0.0 } else { nf - 1.0 }),
        _ if n <= 1 => Some(0.0),
        Mode::Mirror => {
            let s2 = 2.0 * nf - 2.0;
            if x < 0.0 {
                let x = s2 * t(-x / s2) + x;
                Some(if x <= 1.0 - nf { x + s2 } else { -x })
            } else {
                let x = x - s2 * t(x / s2);
                Some(if x >= nf { s2 - x } else { x })
            }
        }
        Mode::Reflect | Mode::GridMirror => {
            let s2 = 2.0 * nf;
            if x < 0.0 {
                let x = if x < -s2 { s2 * t(-x / s2) + x } else { x };
                Some(if x < -nf { x + s2 } else { -x - 1.0 })
            } else {
                let x = x - s2 * t(x / s2);
                Some(if x >= nf { s2 - x - 1.0 } else { x })
            }
        }
        Mode::Wrap => {
            let sz = nf - 1.0;
            Some(if x < 0.0 {
                x + sz * (t(-x / sz) + 1.0)
            } else {
                x - sz * t(x / sz)
            })
        }
        Mode::GridWrap => Some(if x < 0.0 {
            x + nf * (t((-1.0 - x) / nf) + 1.0)
        } else {
            x - nf * t(x / nf)
        }),
    }
}

/// A tap's index past the edge (`None`: cval).
fn tap(i: isize, n: usize, mode: Mode) -> Option<usize> {
    let m = n as isize;
    if (0..m).contains(&i) {
        return Some(i as usize);
    }
    let r = match mode {
        Mode::GridConstant(_) => return None,
        Mode::Reflect | Mode::GridMirror => {
            let k = i.rem_euclid(2 * m);
            if k < m {
                k
            } else {
                2 * m - 1 - k
            }
        }
        Mode::GridWrap => i.rem_euclid(m),
        Mode::Nearest => i.clamp(0, m - 1),
        _ if m == 1 => 0,
        _ => {
            let k = i.rem_euclid(2 * m - 2);
            if k < m {
                k
            } else {
                2 * m - 2 - k
            }
        }
    };
    Some(r as usize)
}

/// The interpolated value at `c` of the C-order array `a` of `shape`.
fn interp(a: &[f64], shape: &[usize], c: &[f64], order: usize, mode: Mode) -> f64 {
    let rank = shape.len();
    let mut start = vec![0isize; rank];
    let mut w1 = vec![0.0; rank];
    for d in 0..rank {
        let Some(cc) = map_coord(c[d], shape[d], mode) else {
            return mode.cval();
        };
        if order == 0 {
            start[d] = (cc + 0.5).floor() as isize;
        } else {
            start[d] = cc.floor() as isize;
            w1[d] = cc - start[d] as f64;
        }
    }
    let mut v = 0.0;
    for e in 0..(1usize << (order * rank)) {
        let mut w = 1.0;
        let mut off = 0;
        let mut outside = false;
        for d in 0..rank {
            let k = if order == 0 {
                0
            } else {
                (e >> (rank - 1 - d)) & 1
            };
            if order == 1 {
                w *= if k == 1 { w1[d] } else { 1.0 - w1[d] };
            }
            match tap(start[d] + k as isize, shape[d], mode) {
                Some(m) => off = off * shape[d] + m,
                None => outside = true,
            }
        }
        v += w * if outside { mode.cval() } else { a[off] };
    }
    v
}

/// `v` stored as `T` as SciPy's resampling stores it.
fn store<T: Element>(v: f64) -> f64 {
    match T::DTYPE {
        DType::U8 => (if v > 0.0 { v + 0.5 } else { 0.0 }).min(255.0).trunc(),
        DType::F32 => v as f32 as f64,
        _ => v,
    }
}

fn check<T: Element>(what: &str, got: &DeviceArray<T>, want: &[f64], tol: f64) -> TResult {
    let g = got.to_host()?;
    ensure!(
        g.len() == want.len(),
        "{what}: {} values, want {}",
        g.len(),
        want.len()
    );
    for (i, (g, w)) in g.iter().zip(want).enumerate() {
        let g = g.to_f64();
        ensure!(
            (g - w).abs() <= tol * w.abs().max(1.0),
            "{what}[{i}]: {g} != {w}"
        );
    }
    Ok(())
}

fn tol<T: Element>() -> f64 {
    match T::DTYPE {
        DType::F32 => 1e-6,
        DType::F64 => 1e-12,
        _ => 0.0,
    }
}

fn map_all_modes<T: NumElement>(dev: &Device, rng: &mut Rng) -> TResult {
    for shape in [&[1usize][..], &[2], &[9], &[5, 8], &[3, 4, 5]] {
        let n: usize = shape.iter().product();
        let rank = shape.len();
        let a: Vec<f64> = (0..n)
            .map(|_| {
                if T::DTYPE == DType::U8 {
                    rng.int(0, 255) as f64
                } else {
                    store::<T>(rng.range(-5.0, 5.0))
                }
            })
            .collect();
        let x = DeviceArray::from_host(
            dev,
            &a.iter().map(|&v| T::from_f64(v)).collect::<Vec<_>>(),
            shape,
        )?;
        let m = 97;
        let coords: Vec<f64> = (0..rank)
            .flat_map(|d| {
                let s = shape[d] as f64;
                (0..m)
                    .map(|_| rng.range(-2.0 * s - 3.0, 3.0 * s + 3.0))
                    .collect::<Vec<_>>()
            })
            .collect();
        let cd = DeviceArray::from_host(dev, &coords, [rank, m])?;
        for mode in MODES {
            for order in [0, 1] {
                let want: Vec<f64> = (0..m)
                    .map(|i| {
                        let c: Vec<f64> = (0..rank).map(|d| coords[d * m + i]).collect();
                        store::<T>(interp(&a, shape, &c, order, mode))
                    })
                    .collect();
                let got = ndimage::map_coordinates(&x, &cd, order, mode)?;
                // u8: a sum landing next to .5 may round either way.
                let t = if T::DTYPE == DType::U8 {
                    1.0 / 255.0
                } else {
                    tol::<T>()
                };
                check(
                    &format!("map_coordinates {shape:?} order {order} {mode:?}"),
                    &got,
                    &want,
                    t,
                )?;
            }
        }
        // shift: output o takes the input at o - shift.
        let sh: Vec<f64> = (0..rank).map(|_| rng.range(-3.0, 3.0)).collect();
        for mode in MODES {
            let want: Vec<f64> = (0..n)
                .map(|t| {
                    let mut rem = t;
                    let mut c = vec![0.0; rank];
                    for d in (0..rank).rev() {
                        c[d] = (rem % shape[d]) as f64 - sh[d];
                        rem /= shape[d];
                    }
                    store::<T>(interp(&a, shape, &c, 1, mode))
                })
                .collect();
            let t = if T::DTYPE == DType::U8 {
                1.0 / 255.0
            } else {
                tol::<T>()
            };
            check(
                &format!("shift {shape:?} {sh:?} {mode:?}"),
                &ndimage::shift(&x, &sh, 1, mode)?,
                &want,
                t,
            )?;
        }
    }
    Ok(())
}

/// 5 x 7 values (`(arange(35) * 1.7) % 11`), and what SciPy 1.17 computes from them.
const IMG: [f64; 35] = [
    0.0,
    1.7,
    3.4,
    5.1,
    6.8,
    8.5,
    10.2,
    0.9000000000000004,
    2.5999999999999996,
    4.299999999999999,
    6.0,
    7.699999999999999,
    9.399999999999999,
    0.09999999999999787,
    1.8000000000000007,
    3.5,
    5.199999999999999,
    6.899999999999999,
    8.599999999999998,
    10.299999999999997,
    1.0,
    2.6999999999999957,
    4.399999999999999,
    6.100000000000001,
    7.799999999999997,
    9.5,
    0.19999999999999574,
    1.8999999999999986,
    3.6000000000000014,
    5.299999999999997,
    7.0,
    8.699999999999996,
    10.399999999999999,
    1.1000000000000014,
    2.799999999999997,
];
/// rotate(IMG, 30, order=1, mode='constant', reshape=True): shape (8, 9).
const ROT30: [f64; 72] = [
    0.0,
    0.0,
    0.0,
    0.0,
    0.0,
    0.0,
    0.0,
    0.0,
    0.0,
    0.0,
    0.0,
    0.0,
    0.0,
    0.0,
    8.571213470792,
    1.901478611525,
    0.0,
    0.0,
    0.0,
    0.0,
    0.0,
    5.083622518457,
    7.005865704891,
    8.928108891325,
    5.5477931945,
    0.0,
    0.0,
    0.0,
    1.168559008996,
    3.09080219543,
    5.013045381863,
    6.935288568297,
    8.772037243305,
    4.654861267296,
    1.702018127598,
    0.0,
    0.0,
    1.097981872402,
    3.020225058836,
    4.942468245269,
    6.864711431703,
    8.786954618137,
    5.406638921312,
    1.631440991004,
    0.0,
    0.0,
    0.0,
    2.949647922242,
    4.871891108675,
    6.794134295109,
    8.716377481543,
    0.0,
    0.0,
    0.0,
    0.0,
    0.0,
    2.879070785648,
    4.801313972081,
    0.0,
    0.0,
    0.0,
    0.0,
    0.0,
    0.0,
    0.0,
    0.0,
    0.0,
    0.0,
    0.0,
    0.0,
    0.0,
    0.0,
];
/// rotate(IMG, -50, order=1, mode='nearest', reshape=False): shape (5, 7).
const ROT_M50: [f64; 35] = [
    2.711302298985,
    2.33183332064,
    2.7351322583,
    3.13843119596,
    3.588187829863,
    4.68092676633,
    5.773665702797,
    3.809318785,
    4.21261772266,
    4.61591666032,
    5.01921559798,
    5.42251453564,
    5.983202319632,
    7.075941256099,
    5.421783190599,
    6.09340212468,
    6.49670106234,
    6.9,
    7.30329893766,
    7.70659787532,
    8.378216809401,
    6.724058743901,
    7.816797680368,
    8.37748546436,
    8.78078440202,
    9.18408333968,
    9.019565989928,
    7.358046389868,
    8.026334297203,
    9.11907323367,
    10.211812170137,
    4.808591055423,
    4.425778686175,
    2.473861517639,
    0.226836910837,
];
/// zoom(IMG, (1.5, 0.6), order=0, mode='mirror'): shape (8, 4); and order 1.
const ZOOM0: [f64; 32] = [
    0.0, 3.4, 6.8, 10.2, 0.9, 4.3, 7.7, 0.1, 0.9, 4.3, 7.7, 0.1, 1.8, 5.2, 8.6, 1.0, 1.8, 5.2, 8.6,
    1.0, 2.7, 6.1, 9.5, 1.9, 2.7, 6.1, 9.5, 1.9, 3.6, 7.0, 10.4, 2.8,
];
const ZOOM1: [f64; 32] = [
    0.0,
    3.4,
    6.8,
    10.2,
    0.514285714286,
    3.914285714286,
    7.314285714286,
    4.428571428571,
    1.028571428571,
    4.428571428571,
    7.828571428571,
    0.228571428571,
    1.542857142857,
    4.942857142857,
    8.342857142857,
    0.742857142857,
    2.057142857143,
    5.457142857143,
    8.857142857143,
    1.257142857143,
    2.571428571429,
    5.971428571429,
    9.371428571429,
    1.771428571429,
    3.085714285714,
    6.485714285714,
    9.885714285714,
    2.285714285714,
    3.6,
    7.0,
    10.4,
    2.8,
];

fn scipy_fixtures(dev: &Device) -> TResult {
    let x = DeviceArray::from_host(dev, &IMG, [5, 7])?;
    let r = ndimage::rotate(&x, 30.0, (1, 0), true, 1, Mode::Constant(0.0))?;
    ensure!(
        r.shape() == [8, 9],
        "rotate 30 reshape: shape {:?}",
        r.shape()
    );
    check("rotate 30", &r, &ROT30, 1e-10)?;
    let r = ndimage::rotate(&x, -50.0, (0, 1), false, 1, Mode::Nearest)?;
    check("rotate -50", &r, &ROT_M50, 1e-10)?;
    let z = ndimage::zoom(&x, &[1.5, 0.6], 0, Mode::Mirror)?;
    ensure!(z.shape() == [8, 4], "zoom shape {:?}", z.shape());
    check("zoom order 0", &z, &ZOOM0, 1e-12)?;
    check(
        "zoom order 1",
        &ndimage::zoom(&x, &[1.5, 0.6], 1, Mode::Mirror)?,
        &ZOOM1,
        1e-10,
    )?;
    // A 3-D input rotates every plane of its axes alike.
    let stack = DeviceArray::from_host(dev, &[IMG, IMG].concat(), [2, 5, 7])?;
    let r3 = ndimage::rotate(&stack, 30.0, (2, 1), true, 1, Mode::Constant(0.0))?;
    ensure!(
        r3.shape() == [2, 8, 9],
        "rotate of a 3-d stack: shape {:?}",
        r3.shape()
    );
    check("rotate 3-d", &r3, &[ROT30, ROT30].concat(), 1e-10)?;
    // affine_transform: plain and homogeneous matrices agree; a transpose.
    let m = [0.8, 0.3, -0.2, 1.1];
    let a = ndimage::affine_transform(&x, &m, &[0.5, -1.0], Some(&[6, 6]), 1, Mode::Reflect)?;
    let h = [0.8, 0.3, 0.5, -0.2, 1.1, -1.0, 0.0, 0.0, 1.0];
    let b = ndimage::affine_transform(&x, &h, &[0.0], Some(&[6, 6]), 1, Mode::Reflect)?;
    ensure!(a.to_host()? == b.to_host()?, "homogeneous matrix");
    let want: Vec<f64> = (0..36)
        .map(|t| {
            let (i, j) = ((t / 6) as f64, (t % 6) as f64);
            interp(
                &IMG,
                &[5, 7],
                &[0.8 * i + 0.3 * j + 0.5, -0.2 * i + 1.1 * j - 1.0],
                1,
                Mode::Reflect,
            )
        })
        .collect();
    check("affine_transform", &a, &want, 1e-12)?;
    // Errors name the argument.
    let named = |r: cuarray::Result<DeviceArray<f64>>, arg: &str| -> TResult {
        match r {
            Err(e) => {
                ensure!(e.to_string().contains(arg), "{e} does not name {arg}");
                Ok(())
            }
            Ok(_) => Err(format!("no error for a bad {arg}").into()),
        }
    };
    named(ndimage::zoom(&x, &[2.0], 3, Mode::Reflect), "order")?;
    named(ndimage::zoom(&x, &[2.0], 6, Mode::Reflect), "order")?;
    named(ndimage::zoom(&x, &[0.0], 1, Mode::Reflect), "factors")?;
    named(
        ndimage::affine_transform(&x, &[1.0, 0.0], &[0.0], None, 1, Mode::Reflect),
        "matrix",
    )?;
    let c = DeviceArray::<f64>::zeros(dev, [3, 4])?;
    named(ndimage::map_coordinates(&x, &c, 1, Mode::Reflect), "coords")?;
    let line = DeviceArray::<f64>::zeros(dev, [4])?;
    ensure!(
        ndimage::rotate(&line, 10.0, (0, 1), true, 1, Mode::Reflect).is_err(),
        "rotate of a 1-d array"
    );
    Ok(())
}

pub fn trials(out: &mut Vec<Trial>) {
    add_gpu(
        out,
        "ndimage/map_coordinates/f64/all_modes".into(),
        map_all_modes::<f64>,
    );
    add_gpu(
        out,
        "ndimage/map_coordinates/f32/all_modes".into(),
        map_all_modes::<f32>,
    );
    add_gpu(
        out,
        "ndimage/map_coordinates/u8/all_modes".into(),
        map_all_modes::<u8>,
    );
    out.push(gpu_trial(
        "ndimage/rotate_zoom/f64/scipy_values",
        scipy_fixtures,
    ));
    add_gpu(
        out,
        "ndimage/spline_orders/f64/prefilter_modes".into(),
        splines,
    );
}

/// SciPy's B-spline prefilter of one line (NI_SplineFilter1D), mirrored or periodic.
#[allow(clippy::excessive_precision)]
fn prefilter_line(c: &mut [f64], order: usize, wrap: bool) {
    let n = c.len();
    if n <= 1 {
        return;
    }
    let poles: &[f64] = match order {
        2 => &[-0.171572875253809902396622551580603843],
        3 => &[-0.267949192431122706472553658494127633],
        4 => &[
            -0.361341225900220177092212841325675255,
            -0.013725429297339121360331226939128204,
        ],
        _ => &[
            -0.430575347099973791851434783493520110,
            -0.043096288203264653822712376822550182,
        ],
    };
    let gain: f64 = poles.iter().map(|z| (1.0 - z) * (1.0 - 1.0 / z)).product();
    c.iter_mut().for_each(|v| *v *= gain);
    for &z in poles {
        if wrap {
            let mut zi = z;
            for i in 1..n {
                c[0] += zi * c[n - i];
                zi *= z;
            }
            c[0] /= 1.0 - zi;
        } else {
            let zn1 = z.powi(n as i32 - 1);
            let mut c0 = c[0] + zn1 * c[n - 1];
            let mut zi = z;
            for i in 1..n - 1 {
                c0 += zi * (c[i] + zn1 * c[n - 1 - i]);
                zi *= z;
            }
            c[0] = c0 / (1.0 - zn1 * zn1);
        }
        for i in 1..n {
            c[i] += z * c[i - 1];
        }
        if wrap {
            let mut zi = z;
            for i in 0..n - 1 {
                c[n - 1] += zi * c[i];
                zi *= z;
            }
            c[n - 1] *= z / (zi - 1.0);
        } else {
            c[n - 1] = (z * c[n - 2] + c[n - 1]) * z / (z * z - 1.0);
        }
        for i in (0..n - 1).rev() {
            c[i] = z * (c[i + 1] - c[i]);
        }
    }
}

/// SciPy's B-spline weights (get_spline_interpolation_weights), from the start tap on.
fn spline_weights(x: f64, order: usize) -> Vec<f64> {
    let x = x - if order % 2 == 1 {
        x.floor()
    } else {
        (x + 0.5).floor()
    };
    let (mut y, mut z) = (x, 1.0 - x);
    let mut w = vec![0.0; order + 1];
    match order {
        2 => {
            w[1] = 0.75 - x * x;
            y = 0.5 - x;
            w[0] = 0.5 * y * y;
        }
        3 => {
            w[1] = (y * y * (y - 2.0) * 3.0 + 4.0) / 6.0;
            w[2] = (z * z * (z - 2.0) * 3.0 + 4.0) / 6.0;
            w[0] = z * z * z / 6.0;
        }
        4 => {
            let t = x * x;
            w[2] = t * (t * 0.25 - 0.625) + 115.0 / 192.0;
            y = 1.0 + x;
            w[1] = y * (y * (y * (5.0 - y) / 6.0 - 1.25) + 5.0 / 24.0) + 55.0 / 96.0;
            w[3] = z * (z * (z * (5.0 - z) / 6.0 - 1.25) + 5.0 / 24.0) + 55.0 / 96.0;
            y = 0.5 - x;
            w[0] = y.powi(4) / 24.0;
        }
        _ => {
            let t = y * y;
            w[2] = t * (t * (0.25 - y / 12.0) - 0.5) + 0.55;
            let t = z * z;
            w[3] = t * (t * (0.25 - z / 12.0) - 0.5) + 0.55;
            y += 1.0;
            w[1] = y * (y * (y * (y * (y / 24.0 - 0.375) + 1.25) - 1.75) + 0.625) + 0.425;
            z += 1.0;
            w[4] = z * (z * (z * (z * (z / 24.0 - 0.375) + 1.25) - 1.75) + 0.625) + 0.425;
            y = 1.0 - x;
            w[0] = y.powi(5) / 120.0;
        }
    }
    w[order] = 1.0 - w[..order].iter().sum::<f64>();
    w
}

/// map_coordinates of a 1-D `a` at orders 2 to 5 as SciPy: padded by 12 for grid-constant,
/// prefiltered, then the weights over the taps.
fn spline_at(a: &[f64], x: f64, order: usize, mode: Mode) -> f64 {
    let npad = if matches!(mode, Mode::GridConstant(_)) {
        12
    } else {
        0
    };
    let mut c: Vec<f64> = std::iter::repeat_n(mode.cval(), npad)
        .chain(a.iter().copied())
        .chain(std::iter::repeat_n(mode.cval(), npad))
        .collect();
    prefilter_line(&mut c, order, matches!(mode, Mode::GridWrap));
    let n = c.len();
    let Some(cc) = map_coord(x + npad as f64, n, mode) else {
        return mode.cval();
    };
    let start = if order % 2 == 1 {
        cc.floor()
    } else {
        (cc + 0.5).floor()
    } as isize
        - order as isize / 2;
    spline_weights(cc, order)
        .iter()
        .enumerate()
        .map(|(k, w)| w * tap(start + k as isize, n, mode).map_or(mode.cval(), |j| c[j]))
        .sum()
}

fn splines(dev: &Device, rng: &mut Rng) -> TResult {
    for n in [1usize, 2, 5, 9, 40] {
        let a: Vec<f64> = (0..n).map(|_| rng.range(-5.0, 5.0)).collect();
        let x = DeviceArray::from_slice(dev, &a)?;
        let m = 101;
        let xs: Vec<f64> = (0..m)
            .map(|_| rng.range(-2.0 * n as f64 - 3.0, 3.0 * n as f64 + 3.0))
            .collect();
        let cd = DeviceArray::from_host(dev, &xs, [1, m])?;
        for mode in [
            Mode::Mirror,
            Mode::Constant(0.7),
            Mode::GridWrap,
            Mode::GridConstant(0.7),
        ] {
            for order in 2..=5 {
                let want: Vec<f64> = xs.iter().map(|&x| spline_at(&a, x, order, mode)).collect();
                let got = ndimage::map_coordinates(&x, &cd, order, mode)?;
                check(
                    &format!("map_coordinates n {n} order {order} {mode:?}"),
                    &got,
                    &want,
                    1e-10,
                )?;
            }
        }
        // spline_filter: the prefiltered coefficients (no padding).
        let mut c = a.clone();
        prefilter_line(&mut c, 3, false);
        check(
            "spline_filter order 3",
            &ndimage::spline_filter(&x, 3, Mode::Mirror)?,
            &c,
            1e-12,
        )?;
    }
    // 2-D: zoom at order 3 against the separable prefilter and the tensor weights.
    let (h, w) = (6usize, 9usize);
    let img: Vec<f64> = (0..h * w).map(|_| rng.range(0.0, 10.0)).collect();
    let x = DeviceArray::from_host(dev, &img, [h, w])?;
    let mut c = img.clone();
    for r in 0..h {
        prefilter_line(&mut c[r * w..(r + 1) * w], 3, false);
    }
    for col in 0..w {
        let mut line: Vec<f64> = (0..h).map(|r| c[r * w + col]).collect();
        prefilter_line(&mut line, 3, false);
        for r in 0..h {
            c[r * w + col] = line[r];
        }
    }
    let z = ndimage::zoom(&x, &[1.7, 0.8], 3, Mode::Mirror)?;
    let (oh, ow) = (z.shape()[0], z.shape()[1]);
    ensure!((oh, ow) == (10, 7), "zoom shape {:?}", z.shape());
    let (sy, sx) = (
        (h - 1) as f64 / (oh - 1) as f64,
        (w - 1) as f64 / (ow - 1) as f64,
    );
    let want: Vec<f64> = (0..oh * ow)
        .map(|t| {
            let (cy, cx) = ((t / ow) as f64 * sy, (t % ow) as f64 * sx);
            let (y0, x0) = (cy.floor() as isize - 1, cx.floor() as isize - 1);
            let (wy, wx) = (spline_weights(cy, 3), spline_weights(cx, 3));
            let mut v = 0.0;
            for (i, wyi) in wy.iter().enumerate() {
                for (j, wxj) in wx.iter().enumerate() {
                    let r = tap(y0 + i as isize, h, Mode::Mirror).unwrap();
                    let q = tap(x0 + j as isize, w, Mode::Mirror).unwrap();
                    v += wyi * wxj * c[r * w + q];
                }
            }
            v
        })
        .collect();
    check("zoom order 3", &z, &want, 1e-10)?;
    Ok(())
}
