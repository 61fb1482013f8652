//! NumPy's index helpers (put, place, compress, choose, one_hot, unravel_index,
//! ravel_multi_index) and diagonals (diag, diagflat, tri, tril/triu/diag_indices,
//! fill_diagonal) against host references written from NumPy's definitions: awkward
//! sizes, non-contiguous inputs, negative indices, empty inputs and the error paths.

use crate::common::{add_gpu, add_gpu_exclusive, ensure, Rng, TResult};
use crate::numpy::indices;
use cuarray::{s, Device, DeviceArray, Error};
use libtest_mimic::Trial;

/// A (rows, cols) i32 view with a column step of 2 (non-contiguous) and its host values.
fn strided(
    dev: &Device,
    rows: usize,
    cols: usize,
) -> cuarray::Result<(DeviceArray<i32>, Vec<i32>)> {
    let n = (rows * cols * 2) as i32;
    let big = DeviceArray::<i32>::arange(dev, 0, n, 1)?.reshape([rows, cols * 2])?;
    let v = big.slice(s![.., ..;2])?;
    let h = v.to_host()?;
    Ok((v, h))
}

/// The op of the `IndexOutOfRange` that the next wait reports.
fn bad_index_op(dev: &Device) -> Option<&'static str> {
    match dev.check() {
        Err(Error::IndexOutOfRange { op, .. }) => Some(op),
        _ => None,
    }
}

fn put(dev: &Device, rng: &mut Rng) -> TResult {
    for contiguous in [true, false] {
        let (a, mut h) = if contiguous {
            let h: Vec<i32> = (0..35).collect();
            (DeviceArray::from_host(dev, &h, &[5, 7])?, h)
        } else {
            strided(dev, 5, 7)?
        };
        let idx: Vec<i64> = (0..11).map(|_| rng.int(-35, 34)).collect();
        let vals = [100, 200, 300];
        // NumPy: a.flat[idx[k]] = vals[k % len]; with duplicates the last write wins on the
        // host, so keep the indices distinct for a deterministic reference.
        let mut seen = std::collections::HashSet::new();
        let idx: Vec<i64> = idx
            .into_iter()
            .filter(|&i| seen.insert(if i < 0 { i + 35 } else { i }))
            .collect();
        for (k, &i) in idx.iter().enumerate() {
            h[if i < 0 { i + 35 } else { i } as usize] = vals[k % 3];
        }
        let di = DeviceArray::from_host(dev, &idx, &[idx.len()])?;
        a.put(&di, &DeviceArray::from_slice(dev, &vals)?)?;
        ensure!(a.to_host()? == h, "put contiguous={contiguous}");
    }
    // Values of another shape are flattened; empty indices change nothing.
    let a = DeviceArray::<f32>::zeros(dev, &[4])?;
    let i = DeviceArray::from_host(dev, &[3i64, 0, 1, 2], &[2, 2])?;
    a.put(&i, &DeviceArray::from_host(dev, &[1.0f32, 2.0], &[2, 1])?)?;
    ensure!(
        a.to_host()? == vec![2.0, 1.0, 2.0, 1.0],
        "put cycles values"
    );
    let none = DeviceArray::<i64>::zeros(dev, &[0])?;
    a.put(&none, &DeviceArray::<f32>::zeros(dev, &[0])?)?;
    ensure!(
        a.put(&i, &DeviceArray::<f32>::zeros(dev, &[0])?).is_err(),
        "put of no values"
    );
    // Out of range: skipped, reported under "put".
    a.put(
        &DeviceArray::from_slice(dev, &[4i64, -5])?,
        &DeviceArray::from_slice(dev, &[9.0f32])?,
    )?;
    ensure!(bad_index_op(dev) == Some("put"), "put out of range");
    ensure!(
        a.to_host()? == vec![2.0, 1.0, 2.0, 1.0],
        "bad indices skipped"
    );
    Ok(())
}

fn place_compress(dev: &Device, rng: &mut Rng) -> TResult {
    let (a, mut h) = strided(dev, 4, 9)?;
    let mask: Vec<bool> = (0..36).map(|_| rng.bit()).collect();
    let vals = [-1, -2, -3, -4, -5];
    let mut k = 0;
    for (x, &m) in h.iter_mut().zip(&mask) {
        if m {
            *x = vals[k % 5];
            k += 1;
        }
    }
    let dm = DeviceArray::from_host(dev, &mask, &[36])?;
    a.place(&dm, &DeviceArray::from_slice(dev, &vals)?)?;
    ensure!(a.to_host()? == h, "place");
    let empty = DeviceArray::<i32>::zeros(dev, &[0])?;
    ensure!(a.place(&dm, &empty).is_err(), "place with no values");
    a.place(&DeviceArray::<bool>::zeros(dev, &[4, 9])?, &empty)?;
    ensure!(
        a.place(&DeviceArray::<bool>::zeros(dev, &[35])?, &empty)
            .is_err(),
        "place mask size"
    );
    // compress along each axis and flattened, with a short condition.
    let (a, h) = strided(dev, 4, 9)?;
    let cond = [true, false, true, true, false, false, true];
    let dc = DeviceArray::from_slice(dev, &cond)?;
    let keep: Vec<usize> = (0..7).filter(|&j| cond[j]).collect();
    let want: Vec<i32> = (0..4)
        .flat_map(|r| keep.iter().map(move |&c| (r, c)))
        .map(|(r, c)| h[r * 9 + c])
        .collect();
    let got = a.compress(&dc, Some(-1))?;
    ensure!(
        got.shape() == [4, 4] && got.to_host()? == want,
        "compress axis -1"
    );
    let want: Vec<i32> = keep.iter().map(|&j| h[j]).collect();
    ensure!(a.compress(&dc, None)?.to_host()? == want, "compress flat");
    let c4 = DeviceArray::from_slice(dev, &[false, true, false, true])?;
    let want: Vec<i32> = [1, 3]
        .iter()
        .flat_map(|&r| h[r * 9..r * 9 + 9].to_vec())
        .collect();
    ensure!(
        a.compress(&c4, Some(0))?.to_host()? == want,
        "compress axis 0"
    );
    let none = DeviceArray::<bool>::zeros(dev, &[0])?;
    ensure!(
        a.compress(&none, Some(0))?.shape() == [0, 9],
        "empty condition"
    );
    let long = DeviceArray::from_slice(dev, &[false, false, false, false, true])?;
    a.compress(&long, Some(0))?;
    ensure!(bad_index_op(dev).is_some(), "true entry past the axis");
    ensure!(
        a.compress(&DeviceArray::<bool>::zeros(dev, &[2, 2])?, None)
            .is_err(),
        "2-D condition"
    );
    ensure!(a.compress(&c4, Some(2)).is_err(), "axis out of range");
    Ok(())
}

fn choose_one_hot(dev: &Device, rng: &mut Rng) -> TResult {
    // selector (2, 1, 5) against choices (5,), (3, 5) non-contiguous, (1,): result (2, 3, 5).
    let sel: Vec<i64> = (0..10).map(|_| rng.int(0, 2)).collect();
    let ds = DeviceArray::from_host(dev, &sel, &[2, 1, 5])?;
    let c0: Vec<f64> = (0..5).map(|i| i as f64).collect();
    let big: Vec<f64> = (0..30).map(|i| 100.0 + i as f64).collect();
    let d0 = DeviceArray::from_slice(dev, &c0)?;
    let d1 = DeviceArray::from_host(dev, &big, &[3, 10])?.slice(s![.., 1..;2])?;
    let d2 = DeviceArray::from_slice(dev, &[-7.0f64])?;
    let got = cuarray::choose(&ds, &[&d0, &d1, &d2])?;
    ensure!(got.shape() == [2, 3, 5], "choose shape {:?}", got.shape());
    let want: Vec<f64> = indices(&[2, 3, 5])
        .iter()
        .map(|x| match sel[x[0] * 5 + x[2]] {
            0 => c0[x[2]],
            1 => big[x[1] * 10 + 1 + 2 * x[2]],
            _ => -7.0,
        })
        .collect();
    ensure!(got.to_host()? == want, "choose");
    let neg = DeviceArray::from_slice(dev, &[0i64, -1])?;
    cuarray::choose(&neg, &[&d2, &d2])?;
    ensure!(bad_index_op(dev) == Some("choose"), "negative selector");
    ensure!(cuarray::choose::<f64>(&neg, &[]).is_err(), "no choices");
    ensure!(
        cuarray::choose(&ds, &[&DeviceArray::<f64>::zeros(dev, &[4])?]).is_err(),
        "choices do not broadcast"
    );
    let c = DeviceArray::from_slice(dev, &[cuarray::Complex::new(1.0f64, 2.0)])?;
    ensure!(
        cuarray::choose(&DeviceArray::from_slice(dev, &[0i64])?, &[&c]).is_err(),
        "choose of complex arrays"
    );
    ensure!(
        cuarray::one_hot::<cuarray::Complex<f32>>(&ds, 3).is_err(),
        "one_hot to complex"
    );
    // compress and place move complex numbers too.
    let z = |re: f64, im: f64| cuarray::Complex::new(re, im);
    let cz = DeviceArray::from_slice(dev, &[z(1.0, 2.0), z(3.0, 4.0), z(5.0, 6.0)])?;
    let m = DeviceArray::from_slice(dev, &[true, false, true])?;
    ensure!(
        cz.compress(&m, None)?.to_host()? == vec![z(1.0, 2.0), z(5.0, 6.0)],
        "compress complex"
    );
    cz.place(&m, &DeviceArray::from_slice(dev, &[z(0.0, -1.0)])?)?;
    ensure!(
        cz.to_host()? == vec![z(0.0, -1.0), z(3.0, 4.0), z(0.0, -1.0)],
        "place complex"
    );
    // one_hot of a (3, 4) non-contiguous label array, 5 classes.
    let labels: Vec<i64> = (0..24).map(|_| rng.int(0, 4)).collect();
    let dl = DeviceArray::from_host(dev, &labels, &[3, 8])?.slice(s![.., ..;2])?;
    let h = dl.to_host()?;
    let got = cuarray::one_hot::<f32>(&dl, 5)?;
    ensure!(got.shape() == [3, 4, 5], "one_hot shape");
    let want: Vec<f32> = (0..60)
        .map(|p| if h[p / 5] as usize == p % 5 { 1.0 } else { 0.0 })
        .collect();
    ensure!(got.to_host()? == want, "one_hot");
    let e = cuarray::one_hot::<u8>(&DeviceArray::<i64>::zeros(dev, &[0, 2])?, 3)?;
    ensure!(e.shape() == [0, 2, 3], "one_hot empty");
    for bad in [5i64, -1] {
        cuarray::one_hot::<i32>(&DeviceArray::from_slice(dev, &[0, bad])?, 5)?;
        ensure!(bad_index_op(dev) == Some("one_hot"), "one_hot label {bad}");
    }
    Ok(())
}

fn unravel_ravel(dev: &Device, rng: &mut Rng) -> TResult {
    let shape = [3usize, 7, 5];
    let flat: Vec<i64> = (0..26).map(|_| rng.int(0, 104)).collect();
    // Every other element of a (26,) -> (13,) view.
    let df = DeviceArray::from_slice(dev, &flat)?.slice(s![..;2])?;
    let hf: Vec<i64> = flat.iter().step_by(2).copied().collect();
    let c = cuarray::unravel_index(&df, &shape)?;
    ensure!(c.len() == 3, "one array per axis");
    let hc: Vec<Vec<i64>> = c
        .iter()
        .map(|a| a.to_host())
        .collect::<cuarray::Result<_>>()?;
    for (k, &f) in hf.iter().enumerate() {
        let want = [f / 35, f / 5 % 7, f % 5];
        ensure!((0..3).all(|d| hc[d][k] == want[d]), "unravel_index {f}");
    }
    let r = cuarray::ravel_multi_index(&[&c[0], &c[1], &c[2]], &shape)?;
    ensure!(r.to_host()? == hf, "ravel_multi_index round trip");
    // Broadcast coordinates: (2, 1) rows against (3,) columns of a (4, 6) array.
    let i = DeviceArray::from_host(dev, &[1i64, 3], &[2, 1])?;
    let j = DeviceArray::from_slice(dev, &[0i64, 5, 2])?;
    let r = cuarray::ravel_multi_index(&[&i, &j], &[4, 6])?;
    ensure!(
        r.shape() == [2, 3] && r.to_host()? == vec![6, 11, 8, 18, 23, 20],
        "ravel broadcast"
    );
    // Errors: a negative or too large position or coordinate, the wrong number of arrays.
    cuarray::unravel_index(&DeviceArray::from_slice(dev, &[-1i64])?, &shape)?;
    ensure!(bad_index_op(dev) == Some("unravel_index"), "negative flat");
    cuarray::unravel_index(&DeviceArray::from_slice(dev, &[105i64])?, &shape)?;
    ensure!(
        bad_index_op(dev) == Some("unravel_index"),
        "flat past the end"
    );
    let neg = DeviceArray::from_slice(dev, &[-1i64])?;
    cuarray::ravel_multi_index(&[&i, &neg], &[4, 6])?;
    ensure!(
        bad_index_op(dev) == Some("ravel_multi_index"),
        "negative coordinate"
    );
    ensure!(
        cuarray::ravel_multi_index(&[&i], &[4, 6]).is_err(),
        "one array for two axes"
    );
    let e = cuarray::unravel_index(&DeviceArray::<i64>::zeros(dev, &[0])?, &[2, 2])?;
    ensure!(e.len() == 2 && e[0].size() == 0, "unravel empty");
    dev.check()?;
    Ok(())
}

fn diagonals(dev: &Device, _rng: &mut Rng) -> TResult {
    let v = DeviceArray::from_slice(dev, &[1i32, 2, 3])?;
    for k in [-2isize, 0, 1] {
        let n = 3 + k.unsigned_abs();
        let m = cuarray::diag(&v, k)?;
        let want: Vec<i32> = indices(&[n, n])
            .iter()
            .map(|x| {
                let (i, j) = (x[0] as isize, x[1] as isize);
                if j - i == k {
                    [1, 2, 3][(i.min(j)) as usize]
                } else {
                    0
                }
            })
            .collect();
        ensure!(m.shape() == [n, n] && m.to_host()? == want, "diag {k}");
        ensure!(
            cuarray::diag(&m, k)?.to_host()? == vec![1, 2, 3],
            "diag back {k}"
        );
    }
    let (a, h) = strided(dev, 3, 4)?;
    ensure!(
        cuarray::diag(&a, 1)?.to_host()? == vec![h[1], h[6], h[11]],
        "diag of a view"
    );
    ensure!(
        cuarray::diag(&DeviceArray::<i32>::zeros(dev, &[2, 2, 2])?, 0).is_err(),
        "diag 3-D"
    );
    let f = cuarray::diagflat(&DeviceArray::from_host(dev, &[1i32, 2, 3, 4], &[2, 2])?, -1)?;
    ensure!(
        f.shape() == [5, 5] && f.to_host()?[5] == 1 && f.to_host()?[23] == 4,
        "diagflat"
    );
    // tri and the triangle indices, square and rectangular.
    for (n, m, k) in [
        (4usize, None, 0isize),
        (3, Some(5), 1),
        (5, Some(2), -2),
        (0, None, 0),
    ] {
        let mm = m.unwrap_or(n);
        let t = DeviceArray::<f64>::tri(dev, n, m, k)?;
        let want: Vec<f64> = indices(&[n, mm])
            .iter()
            .map(|x| {
                if x[1] as isize - x[0] as isize <= k {
                    1.0
                } else {
                    0.0
                }
            })
            .collect();
        ensure!(
            t.shape() == [n, mm] && t.to_host()? == want,
            "tri {n} {m:?} {k}"
        );
        let (r, c) = cuarray::tril_indices(dev, n, k, m)?;
        let (hr, hc): (Vec<i64>, Vec<i64>) = indices(&[n, mm])
            .iter()
            .filter(|x| x[1] as isize - x[0] as isize <= k)
            .map(|x| (x[0] as i64, x[1] as i64))
            .unzip();
        ensure!(
            r.to_host()? == hr && c.to_host()? == hc,
            "tril_indices {n} {k}"
        );
        let (r, c) = cuarray::triu_indices(dev, n, k, m)?;
        let (hr, hc): (Vec<i64>, Vec<i64>) = indices(&[n, mm])
            .iter()
            .filter(|x| x[1] as isize - x[0] as isize >= k)
            .map(|x| (x[0] as i64, x[1] as i64))
            .unzip();
        ensure!(
            r.to_host()? == hr && c.to_host()? == hc,
            "triu_indices {n} {k}"
        );
    }
    let d = cuarray::diag_indices(dev, 4, 3)?;
    ensure!(
        d.len() == 3 && d[2].to_host()? == vec![0, 1, 2, 3],
        "diag_indices"
    );
    // fill_diagonal: tall, wide, a non-contiguous view, 3-D cube, and the errors.
    for (r, c) in [(5usize, 3usize), (2, 4)] {
        let a = DeviceArray::<i32>::zeros(dev, &[r, c])?;
        a.fill_diagonal(7)?;
        let want: Vec<i32> = indices(&[r, c])
            .iter()
            .map(|x| if x[0] == x[1] { 7 } else { 0 })
            .collect();
        ensure!(a.to_host()? == want, "fill_diagonal {r}x{c}");
    }
    let (a, mut h) = strided(dev, 3, 4)?;
    a.fill_diagonal(-1)?;
    for i in 0..3 {
        h[i * 4 + i] = -1;
    }
    ensure!(a.to_host()? == h, "fill_diagonal view");
    let cube = DeviceArray::<f32>::zeros(dev, &[3, 3, 3])?;
    cube.fill_diagonal(2.0)?;
    let got = cube.to_host()?;
    ensure!(
        got.iter()
            .enumerate()
            .all(|(p, &x)| x == if p % 13 == 0 { 2.0 } else { 0.0 }),
        "fill_diagonal cube"
    );
    ensure!(
        DeviceArray::<f32>::zeros(dev, &[3, 3, 2])?
            .fill_diagonal(1.0)
            .is_err(),
        "fill_diagonal unequal 3-D"
    );
    ensure!(
        DeviceArray::<f32>::zeros(dev, &[3])?
            .fill_diagonal(1.0)
            .is_err(),
        "fill_diagonal 1-D"
    );
    Ok(())
}

pub fn trials(out: &mut Vec<Trial>) {
    add_gpu_exclusive(
        out,
        "index_helpers/put/i32/contiguous_strided_cycled".into(),
        put,
    );
    add_gpu_exclusive(
        out,
        "index_helpers/place_compress/i32/strided_short_condition".into(),
        place_compress,
    );
    add_gpu_exclusive(
        out,
        "index_helpers/choose_one_hot/f64/broadcast_strided".into(),
        choose_one_hot,
    );
    add_gpu_exclusive(
        out,
        "index_helpers/unravel_ravel/i64/round_trip_broadcast".into(),
        unravel_ravel,
    );
    add_gpu(
        out,
        "index_helpers/diagonals/i32/diag_tri_indices_fill".into(),
        diagonals,
    );
}
