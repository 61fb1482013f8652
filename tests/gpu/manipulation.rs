//! Manipulation views and stacks (diagonal, trace, swapaxes, moveaxis, rot90, flips,
//! sliding windows, as_strided, atleast, broadcast_arrays, splits, stacks), editing
//! (delete, insert, append, resize, trim_zeros, vander) and the value modes of `pad`
//! against host references written from NumPy's definitions (fixtures from NumPy 2.4).

use crate::common::{add_gpu, add_gpu_exclusive, ensure, Rng, TResult};
use crate::numpy::indices;
use cuarray::{Device, DeviceArray, Error, PadMode};
use libtest_mimic::Trial;

/// A (3, 4, 5) i32 array of 0..60 as a non-contiguous view (every other row of a larger
/// array) and its host values.
fn source(dev: &Device) -> cuarray::Result<(DeviceArray<i32>, Vec<i32>)> {
    let big = DeviceArray::<i32>::arange(dev, 0, 120, 1)?.reshape([6, 4, 5])?;
    let v = big.slice(cuarray::s![..;2])?;
    let h = v.to_host()?;
    Ok((v, h))
}

/// Host `a[idx]` for a C-ordered (3, 4, 5) array.
fn at(h: &[i32], i: usize, j: usize, k: usize) -> i32 {
    h[i * 20 + j * 5 + k]
}

fn views(dev: &Device, _rng: &mut Rng) -> TResult {
    let (a, h) = source(dev)?;
    // diagonal over axes (1, 2) with offsets: shape (3, len).
    for off in [-3isize, -1, 0, 1, 4, 5] {
        let d = a.diagonal(off, 1, 2)?;
        let len = if off >= 0 {
            4.min(5 - off).max(0)
        } else {
            (4 + off).clamp(0, 5)
        } as usize;
        ensure!(d.shape() == [3, len], "diagonal {off}: {:?}", d.shape());
        let mut want = Vec::new();
        for i in 0..3 {
            for t in 0..len {
                let (j, k) = if off >= 0 {
                    (t, t + off as usize)
                } else {
                    (t + (-off) as usize, t)
                };
                want.push(at(&h, i, j, k));
            }
        }
        ensure!(d.to_host()? == want, "diagonal {off}");
    }
    let m = DeviceArray::<i32>::arange(dev, 0, 12, 1)?.reshape([3, 4])?;
    ensure!(m.trace(1)?.to_scalar()? == 1 + 6 + 11, "trace");
    // swapaxes, moveaxis.
    let s = a.swapaxes(0, 2)?;
    ensure!(s.shape() == [5, 4, 3], "swapaxes shape");
    let want: Vec<i32> = indices(&[5, 4, 3])
        .iter()
        .map(|x| at(&h, x[2], x[1], x[0]))
        .collect();
    ensure!(s.to_host()? == want, "swapaxes");
    let mv = a.moveaxis(&[0], &[-1])?;
    let want: Vec<i32> = indices(&[4, 5, 3])
        .iter()
        .map(|x| at(&h, x[2], x[0], x[1]))
        .collect();
    ensure!(mv.shape() == [4, 5, 3] && mv.to_host()? == want, "moveaxis");
    // rot90 in the (1, 2) plane: k = 1 is out[i, p, q] = a[i, q, 4 - p].
    let r = a.rot90(1, (1, 2))?;
    let want: Vec<i32> = indices(&[3, 5, 4])
        .iter()
        .map(|x| at(&h, x[0], x[2], 4 - x[1]))
        .collect();
    ensure!(r.shape() == [3, 5, 4] && r.to_host()? == want, "rot90 1");
    let r = a.rot90(-1, (1, 2))?;
    let want: Vec<i32> = indices(&[3, 5, 4])
        .iter()
        .map(|x| at(&h, x[0], 3 - x[2], x[1]))
        .collect();
    ensure!(r.to_host()? == want, "rot90 -1");
    let r = a.rot90(2, (1, 2))?;
    let want: Vec<i32> = indices(&[3, 4, 5])
        .iter()
        .map(|x| at(&h, x[0], 3 - x[1], 4 - x[2]))
        .collect();
    ensure!(r.to_host()? == want, "rot90 2");
    let want: Vec<i32> = indices(&[3, 4, 5])
        .iter()
        .map(|x| at(&h, x[0], 3 - x[1], x[2]))
        .collect();
    ensure!(a.fliplr()?.to_host()? == want, "fliplr");
    // Sliding windows of (2, 3) over axes (1, 2): shape (3, 3, 3, 2, 3).
    let w = a.sliding_window_view(&[2, 3], Some(&[1, 2]))?;
    ensure!(w.shape() == [3, 3, 3, 2, 3], "windows {:?}", w.shape());
    let want: Vec<i32> = indices(&[3, 3, 3, 2, 3])
        .iter()
        .map(|x| at(&h, x[0], x[1] + x[3], x[2] + x[4]))
        .collect();
    ensure!(w.to_host()? == want, "sliding_window_view");
    ensure!(
        a.sliding_window_view(&[5], Some(&[1])).is_err(),
        "window too large"
    );
    // as_strided: inside the buffer, and refused outside it.
    let x = DeviceArray::<i32>::arange(dev, 0, 10, 1)?;
    let v = unsafe { x.as_strided(&[4, 3], &[2, 1])? };
    ensure!(
        v.to_host()? == vec![0, 1, 2, 2, 3, 4, 4, 5, 6, 6, 7, 8],
        "as_strided"
    );
    ensure!(unsafe { x.as_strided(&[6], &[2]) }.is_err(), "past the end");
    let r = x.flip(0)?;
    ensure!(
        unsafe { r.as_strided(&[2], &[1]) }.is_err(),
        "past the end, reversed"
    );
    ensure!(
        unsafe { x.as_strided(&[2], &[-1]) }.is_err(),
        "before the start"
    );
    Ok(())
}

fn splits_and_stacks(dev: &Device, _rng: &mut Rng) -> TResult {
    let (a, h) = source(dev)?;
    let p = cuarray::split(&a, 5, 2)?;
    ensure!(p.len() == 5 && p[3].shape() == [3, 4, 1], "split");
    let want: Vec<i32> = indices(&[3, 4, 1])
        .iter()
        .map(|x| at(&h, x[0], x[1], 3))
        .collect();
    ensure!(p[3].to_host()? == want, "split piece");
    let e = cuarray::split(&a, 3, 1).unwrap_err().to_string();
    ensure!(e.contains("[3, 4, 5]"), "split error names the shape: {e}");
    let p = cuarray::array_split(&a, 3, -1)?;
    ensure!(
        p.iter().map(|x| x.shape()[2]).collect::<Vec<_>>() == vec![2, 2, 1],
        "array_split"
    );
    let p = cuarray::split_at(&a, &[1, 10], 0)?;
    ensure!(
        p.iter().map(|x| x.shape()[0]).collect::<Vec<_>>() == vec![1, 2, 0],
        "split_at"
    );
    ensure!(
        cuarray::vsplit(&a, 3)?.len() == 3
            && cuarray::hsplit(&a, 2)?.len() == 2
            && cuarray::dsplit(&a, 5)?.len() == 5,
        "h/v/dsplit"
    );
    let x = DeviceArray::from_slice(dev, &[1, 2, 3])?;
    let y = DeviceArray::from_slice(dev, &[4, 5, 6])?;
    ensure!(
        cuarray::vstack(&[&x, &y])?.to_host()? == vec![1, 2, 3, 4, 5, 6],
        "vstack"
    );
    ensure!(
        cuarray::column_stack(&[&x, &y])?.to_host()? == vec![1, 4, 2, 5, 3, 6],
        "column_stack"
    );
    let d = cuarray::dstack(&[&x, &y])?;
    ensure!(
        d.shape() == [1, 3, 2] && d.to_host()? == vec![1, 4, 2, 5, 3, 6],
        "dstack"
    );
    let m = x.reshape([3, 1])?;
    let b = cuarray::broadcast_arrays(&[&m, &y])?;
    ensure!(
        b[0].shape() == [3, 3] && b[1].to_host()? == vec![4, 5, 6, 4, 5, 6, 4, 5, 6],
        "broadcast_arrays"
    );
    ensure!(
        cuarray::broadcast_arrays(&[&x, &DeviceArray::from_slice(dev, &[1, 2])?]).is_err(),
        "broadcast error"
    );
    ensure!(cuarray::atleast_3d(&x)?.shape() == [1, 3, 1], "atleast_3d");
    Ok(())
}

/// delete, insert, append, resize on a non-contiguous (3, 4, 5) view, with negative and
/// duplicate indices, empty inputs and the errors.
fn editing(dev: &Device, _rng: &mut Rng) -> TResult {
    let (a, h) = source(dev)?;
    // delete along axis 2 with a duplicate and a negative index: keep columns 1 and 3.
    let i = DeviceArray::from_slice(dev, &[0i64, -1, 2, 0, 4])?;
    let d = a.delete(&i, Some(2))?;
    let want: Vec<i32> = indices(&[3, 4, 2])
        .iter()
        .map(|x| at(&h, x[0], x[1], [1, 3][x[2]]))
        .collect();
    ensure!(
        d.shape() == [3, 4, 2] && d.to_host()? == want,
        "delete axis 2"
    );
    // 59, 0 and -2 (58): the elements 1..58 remain.
    let d = a.delete(&DeviceArray::from_slice(dev, &[59i64, 0, -2])?, None)?;
    ensure!(d.to_host()? == h[1..58].to_vec(), "delete flat");
    let none = DeviceArray::<i64>::zeros(dev, &[0])?;
    ensure!(a.delete(&none, Some(0))?.to_host()? == h, "delete nothing");
    // The count read by the compaction already reports the bad index, or the next wait.
    let e = match a.delete(&DeviceArray::from_slice(dev, &[3i64])?, Some(0)) {
        Err(e) => Err(e),
        Ok(_) => dev.check(),
    };
    ensure!(
        matches!(e, Err(Error::IndexOutOfRange { op: "delete", .. })),
        "delete out of range: {e:?}"
    );
    dev.check()?;
    // insert: a (4,) row block before row 1 of axis 1, values broadcast; flat; errors.
    let v = DeviceArray::from_slice(dev, &[-1, -2, -3, -4, -5])?;
    let r = a.insert(-3, &v, Some(1))?;
    let want: Vec<i32> = indices(&[3, 5, 5])
        .iter()
        .map(|x| match x[1] {
            0 => at(&h, x[0], 0, x[2]),
            1 => -1 - x[2] as i32,
            j => at(&h, x[0], j - 1, x[2]),
        })
        .collect();
    ensure!(
        r.shape() == [3, 5, 5] && r.to_host()? == want,
        "insert axis 1"
    );
    // Values (2,) into axis 2 of (3, 4, 5): NumPy makes them (1, 1, 2), moves axis 0 to 2:
    // (1, 2, 1), which does not broadcast to (3, 4, 1).
    let two = DeviceArray::from_slice(dev, &[7, 8])?;
    ensure!(
        a.insert(0, &two, Some(2)).is_err(),
        "insert values that do not broadcast"
    );
    let r = a.insert(60, &two, None)?;
    ensure!(
        r.to_host()? == h.iter().copied().chain([7, 8]).collect::<Vec<_>>(),
        "insert at the end"
    );
    ensure!(
        a.insert(61, &two, None).is_err(),
        "insert index past the end"
    );
    ensure!(
        a.insert(-61, &two, None).is_err(),
        "insert index before the start"
    );
    let s2 = DeviceArray::<i32>::full(dev, &[], 9)?;
    let r = a.insert(5, &s2, Some(-1))?;
    ensure!(
        r.shape() == [3, 4, 6] && r.to_host()?[5] == 9,
        "insert a 0-d value"
    );
    // append, resize.
    let b = DeviceArray::<i32>::zeros(dev, &[1, 4, 5])?;
    ensure!(a.append(&b, Some(0))?.shape() == [4, 4, 5], "append axis 0");
    ensure!(a.append(&b, Some(1)).is_err(), "append mismatched");
    ensure!(a.append(&two, None)?.size() == 62, "append flat");
    let r = a.resize([7, 11])?;
    let want: Vec<i32> = (0..77).map(|p| h[p % 60]).collect();
    ensure!(
        r.shape() == [7, 11] && r.to_host()? == want,
        "resize repeats"
    );
    ensure!(a.resize([0])?.size() == 0, "resize to empty");
    let e = DeviceArray::<i32>::zeros(dev, &[0])?.resize([2, 2])?;
    ensure!(e.to_host()? == vec![0; 4], "resize of empty gives zeros");
    Ok(())
}

/// trim_zeros (1-D, 2-D box, all zeros) and vander (both orders, n given, f64 and i64).
fn trim_vander(dev: &Device, _rng: &mut Rng) -> TResult {
    let x = DeviceArray::from_slice(dev, &[0.0f32, 0.0, f32::NAN, 0.0, 2.0, 0.0])?;
    let t = cuarray::trim_zeros(&x)?.to_host()?;
    ensure!(
        t.len() == 3 && t[0].is_nan() && t[2] == 2.0,
        "trim_zeros keeps NaN"
    );
    let mut m = vec![0i32; 20];
    m[7] = 1; // (1, 2)
    m[13] = 2; // (2, 3)
    let dm = DeviceArray::from_host(dev, &m, &[4, 5])?;
    let t = cuarray::trim_zeros(&dm)?;
    ensure!(
        t.shape() == [2, 2] && t.to_host()? == vec![1, 0, 0, 2],
        "trim_zeros 2-D box"
    );
    let z = cuarray::trim_zeros(&DeviceArray::<i32>::zeros(dev, &[2, 3])?)?;
    ensure!(z.shape() == [0, 0], "trim_zeros of zeros");
    ensure!(
        cuarray::trim_zeros(&DeviceArray::<i32>::zeros(dev, &[])?).is_err(),
        "0-d"
    );
    let xs = [1.5f64, -2.0, 0.0, 3.0, 0.5];
    let dx = DeviceArray::from_slice(dev, &[9.0f64, 1.5, 9.0, -2.0, 9.0, 0.0, 9.0, 3.0, 9.0, 0.5])?
        .slice(cuarray::s![1..;2])?;
    for (n, increasing) in [
        (None, false),
        (Some(3), true),
        (Some(7), false),
        (Some(1), true),
    ] {
        let cols = n.unwrap_or(5);
        let got = cuarray::vander(&dx, n, increasing)?;
        let want: Vec<f64> = indices(&[5, cols])
            .iter()
            .map(|p| {
                let e = if increasing { p[1] } else { cols - 1 - p[1] };
                xs[p[0]].powi(e as i32)
            })
            .collect();
        ensure!(
            got.shape() == [5, cols] && got.to_host()? == want,
            "vander {n:?} {increasing}"
        );
    }
    let xi = DeviceArray::from_slice(dev, &[3i64, -2])?;
    ensure!(
        cuarray::vander(&xi, Some(4), false)?.to_host()? == vec![27, 9, 3, 1, -8, 4, -2, 1],
        "vander i64"
    );
    ensure!(
        cuarray::vander(&xi, Some(0), false)?.shape() == [2, 0],
        "vander n = 0"
    );
    ensure!(
        cuarray::vander(&DeviceArray::<f32>::zeros(dev, &[2, 2])?, None, true).is_err(),
        "vander of 2-D"
    );
    Ok(())
}

/// The value modes of `pad` against NumPy 2.4 on a (3, 4) i32 array (a transposed view)
/// padded by ((1, 2), (2, 1)), and on an f64 array with a NaN.
fn pad_values(dev: &Device, _rng: &mut Rng) -> TResult {
    let a = DeviceArray::from_host(dev, &[3, 5, -4, -1, 0, 6, 8, 7, 1, 2, 7, 9], &[4, 3])?.t();
    let w = [(1, 2), (2, 1)];
    let cases: [(PadMode<i32>, [i32; 42]); 6] = [
        (
            PadMode::LinearRamp(5),
            [
                5, 5, 5, 5, 5, 5, 5, 5, 4, 3, -1, 8, 2, 5, 5, 5, 5, 0, 7, 7, 5, 5, 0, -4, 6, 1, 9,
                5, 5, 2, 0, 5, 3, 7, 5, 5, 5, 5, 5, 5, 5, 5,
            ],
        ),
        (
            PadMode::LinearRamp(-6),
            [
                -6, -6, -6, -6, -6, -6, -6, -6, -2, 3, -1, 8, 2, -6, -6, -1, 5, 0, 7, 7, -6, -6,
                -5, -4, 6, 1, 9, -6, -6, -6, -5, 0, -3, 1, -6, -6, -6, -6, -6, -6, -6, -6,
            ],
        ),
        (
            PadMode::Maximum,
            [
                9, 9, 5, 6, 8, 9, 9, 8, 8, 3, -1, 8, 2, 8, 7, 7, 5, 0, 7, 7, 7, 9, 9, -4, 6, 1, 9,
                9, 9, 9, 5, 6, 8, 9, 9, 9, 9, 5, 6, 8, 9, 9,
            ],
        ),
        (
            PadMode::Minimum,
            [
                -4, -4, -4, -1, 1, 2, -4, -1, -1, 3, -1, 8, 2, -1, 0, 0, 5, 0, 7, 7, 0, -4, -4, -4,
                6, 1, 9, -4, -4, -4, -4, -1, 1, 2, -4, -4, -4, -4, -1, 1, 2, -4,
            ],
        ),
        (
            PadMode::Mean,
            [
                4, 4, 1, 2, 5, 6, 4, 3, 3, 3, -1, 8, 2, 3, 5, 5, 5, 0, 7, 7, 5, 3, 3, -4, 6, 1, 9,
                3, 4, 4, 1, 2, 5, 6, 4, 4, 4, 1, 2, 5, 6, 4,
            ],
        ),
        (
            PadMode::Median,
            [
                5, 5, 3, 0, 7, 7, 5, 2, 2, 3, -1, 8, 2, 2, 6, 6, 5, 0, 7, 7, 6, 4, 4, -4, 6, 1, 9,
                4, 5, 5, 3, 0, 7, 7, 5, 5, 5, 3, 0, 7, 7, 5,
            ],
        ),
    ];
    for (mode, want) in cases {
        let got = a.pad(&w, mode)?;
        ensure!(got.shape() == [6, 7], "pad {mode:?} shape");
        ensure!(got.to_host()? == want, "pad {mode:?}: {:?}", got.to_host()?);
    }
    let f = DeviceArray::from_host(dev, &[1.5f64, f64::NAN, 2.0, 0.25, 4.0, -1.0], &[2, 3])?;
    let nan = f64::NAN;
    let m = 1.0833333333333333;
    let cases: [(PadMode<f64>, [f64; 15]); 4] = [
        (
            PadMode::Maximum,
            [
                nan, 1.5, nan, 2.0, nan, nan, 1.5, nan, 2.0, nan, 4.0, 0.25, 4.0, -1.0, 4.0,
            ],
        ),
        (
            PadMode::Minimum,
            [
                nan, 0.25, nan, -1.0, nan, nan, 1.5, nan, 2.0, nan, -1.0, 0.25, 4.0, -1.0, -1.0,
            ],
        ),
        (
            PadMode::Mean,
            [
                nan, 0.875, nan, 0.5, nan, nan, 1.5, nan, 2.0, nan, m, 0.25, 4.0, -1.0, m,
            ],
        ),
        (
            PadMode::Median,
            [
                nan, 0.875, nan, 0.5, nan, nan, 1.5, nan, 2.0, nan, 0.25, 0.25, 4.0, -1.0, 0.25,
            ],
        ),
    ];
    for (mode, want) in cases {
        let got = f.pad(&[(1, 0), (1, 1)], mode)?.to_host()?;
        let same = got
            .iter()
            .zip(&want)
            .all(|(g, w)| (g.is_nan() && w.is_nan()) || (g - w).abs() <= 1e-12 * w.abs());
        ensure!(same, "pad {mode:?}: {got:?}");
    }
    let r = DeviceArray::from_slice(dev, &[1.0f64, 2.0, 4.0])?
        .pad(&[(3, 2)], PadMode::LinearRamp(0.5))?
        .to_host()?;
    let want = [
        0.5,
        0.6666666666666666,
        0.8333333333333333,
        1.0,
        2.0,
        4.0,
        2.25,
        0.5,
    ];
    ensure!(
        r.len() == 8 && r.iter().zip(&want).all(|(g, w)| (g - w).abs() < 1e-12),
        "linear ramp f64: {r:?}"
    );
    let c = DeviceArray::from_slice(dev, &[cuarray::Complex::new(1.0f32, 1.0)])?;
    ensure!(
        c.pad(&[(1, 1)], PadMode::Mean).is_err(),
        "value modes refuse complex"
    );
    ensure!(
        c.pad(&[(1, 1)], PadMode::Wrap)?.size() == 3,
        "index modes take complex"
    );
    ensure!(
        DeviceArray::<f32>::zeros(dev, &[0])?
            .pad(&[(1, 1)], PadMode::Maximum)
            .is_err(),
        "statistic of an empty axis"
    );
    Ok(())
}

pub fn trials(out: &mut Vec<Trial>) {
    add_gpu(
        out,
        "manipulation/views/i32/diagonal_axes_rot_windows_strided".into(),
        views,
    );
    add_gpu(
        out,
        "manipulation/splits/i32/split_stack_broadcast".into(),
        splits_and_stacks,
    );
    add_gpu_exclusive(
        out,
        "manipulation/editing/i32/delete_insert_append_resize".into(),
        editing,
    );
    add_gpu(
        out,
        "manipulation/trim_vander/f64/box_orders".into(),
        trim_vander,
    );
    add_gpu(
        out,
        "manipulation/pad_values/i32/ramp_statistics".into(),
        pad_values,
    );
}
