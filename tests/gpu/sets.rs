//! Set operations (unique_all, unique_counts, unique_inverse, isin, intersect1d, union1d,
//! setdiff1d, setxor1d) and sort-based orders (lexsort, partition, argpartition) against
//! host references written from NumPy's definitions: duplicates, awkward sizes,
//! non-contiguous inputs, NaN and signed zeros, empty inputs and the errors.

use crate::common::{add_gpu, ensure, Rng, TResult};
use cuarray::{s, Device, DeviceArray};
use libtest_mimic::Trial;
use std::collections::{BTreeMap, BTreeSet};

/// `n` i32 values in `0..range` as every other element of a longer array (a strided
/// view), and their host values.
fn strided_ints(
    dev: &Device,
    rng: &mut Rng,
    n: usize,
    range: i64,
) -> cuarray::Result<(DeviceArray<i32>, Vec<i32>)> {
    let all: Vec<i32> = (0..2 * n).map(|_| rng.int(0, range - 1) as i32).collect();
    let v = DeviceArray::from_slice(dev, &all)?.slice(s![1..;2])?;
    let h = all.iter().skip(1).step_by(2).copied().collect();
    Ok((v, h))
}

fn uniques(dev: &Device, rng: &mut Rng) -> TResult {
    for (n, range) in [(1001usize, 37i64), (5, 1000), (0, 3), (4099, 5000)] {
        let (a, h) = strided_ints(dev, rng, n, range)?;
        let mut first: BTreeMap<i32, (usize, i64)> = BTreeMap::new();
        for (i, &x) in h.iter().enumerate() {
            first.entry(x).or_insert((i, 0)).1 += 1;
        }
        let values: Vec<i32> = first.keys().copied().collect();
        let index: Vec<i64> = first.values().map(|v| v.0 as i64).collect();
        let counts: Vec<i64> = first.values().map(|v| v.1).collect();
        let inverse: Vec<i64> = h
            .iter()
            .map(|x| values.binary_search(x).unwrap_or(0) as i64)
            .collect();
        let u = cuarray::unique_all(&a)?;
        ensure!(u.values.to_host()? == values, "unique_all values n={n}");
        ensure!(u.indices.to_host()? == index, "unique_all indices n={n}");
        ensure!(
            u.inverse_indices.to_host()? == inverse,
            "unique_all inverse n={n}"
        );
        ensure!(u.counts.to_host()? == counts, "unique_all counts n={n}");
        let (v, c) = cuarray::unique_counts(&a)?;
        ensure!(
            v.to_host()? == values && c.to_host()? == counts,
            "unique_counts n={n}"
        );
        let (v, inv) = cuarray::unique_inverse(&a)?;
        ensure!(
            v.to_host()? == values && inv.to_host()? == inverse,
            "unique_inverse n={n}"
        );
    }
    // A 2-D input: inverse keeps the shape. NaNs collapse, -0.0 equals +0.0.
    let nan = f32::NAN;
    let f = DeviceArray::from_host(dev, &[nan, 0.0, 2.0, -0.0, nan, 2.0], &[2, 3])?;
    let u = cuarray::unique_all(&f)?;
    let v = u.values.to_host()?;
    ensure!(
        v.len() == 3 && v[0] == 0.0 && v[1] == 2.0 && v[2].is_nan(),
        "float values {v:?}"
    );
    ensure!(u.indices.to_host()? == vec![1, 2, 0], "float first indices");
    ensure!(u.counts.to_host()? == vec![2, 2, 2], "float counts");
    ensure!(
        u.inverse_indices.shape() == [2, 3]
            && u.inverse_indices.to_host()? == vec![2, 0, 1, 0, 2, 1],
        "float inverse"
    );
    Ok(())
}

fn membership(dev: &Device, rng: &mut Rng) -> TResult {
    let (a, ha) = strided_ints(dev, rng, 777, 60)?;
    let (b, hb) = strided_ints(dev, rng, 40, 90)?;
    let sb: BTreeSet<i32> = hb.iter().copied().collect();
    let sa: BTreeSet<i32> = ha.iter().copied().collect();
    let a2 = a.reshape([7, 111])?;
    let got = cuarray::isin(&a2, &b, false)?;
    ensure!(got.shape() == [7, 111], "isin shape");
    let want: Vec<bool> = ha.iter().map(|x| sb.contains(x)).collect();
    ensure!(got.to_host()? == want, "isin");
    let inv: Vec<bool> = want.iter().map(|x| !x).collect();
    ensure!(
        cuarray::isin(&a, &b, true)?.to_host()? == inv,
        "isin invert"
    );
    let empty = DeviceArray::<i32>::zeros(dev, &[0])?;
    ensure!(
        cuarray::isin(&a, &empty, false)?.to_host()? == vec![false; 777],
        "isin of nothing"
    );
    ensure!(
        cuarray::isin(&empty, &a, false)?.size() == 0,
        "isin of empty"
    );
    let v = |s: BTreeSet<i32>| s.into_iter().collect::<Vec<i32>>();
    ensure!(
        cuarray::intersect1d(&a, &b)?.to_host()? == v(sa.intersection(&sb).copied().collect()),
        "intersect1d"
    );
    ensure!(
        cuarray::union1d(&a, &b)?.to_host()? == v(sa.union(&sb).copied().collect()),
        "union1d"
    );
    ensure!(
        cuarray::setdiff1d(&a, &b)?.to_host()? == v(sa.difference(&sb).copied().collect()),
        "setdiff1d"
    );
    ensure!(
        cuarray::setxor1d(&a, &b)?.to_host()? == v(sa.symmetric_difference(&sb).copied().collect()),
        "setxor1d"
    );
    ensure!(
        cuarray::setdiff1d(&empty, &b)?.size() == 0,
        "setdiff1d of empty"
    );
    ensure!(
        cuarray::setxor1d(&a, &empty)?.to_host()? == v(sa.clone()),
        "setxor1d with empty"
    );
    // NaN is never a member (==), as NumPy.
    let x = DeviceArray::from_slice(dev, &[f64::NAN, 1.0, -0.0])?;
    let t = DeviceArray::from_slice(dev, &[0.0, f64::NAN])?;
    ensure!(
        cuarray::isin(&x, &t, false)?.to_host()? == vec![false, false, true],
        "isin NaN and -0"
    );
    ensure!(
        cuarray::intersect1d(&x, &t)?.to_host()? == vec![0.0],
        "intersect1d NaN"
    );
    Ok(())
}

fn orders(dev: &Device, rng: &mut Rng) -> TResult {
    // Three keys of shape (3, 50) with many ties; the last key is primary, along axis -1.
    let (rows, cols) = (3usize, 50usize);
    let keys: Vec<Vec<i32>> = (0..3)
        .map(|_| (0..rows * cols).map(|_| rng.int(0, 3) as i32).collect())
        .collect();
    let dk: Vec<DeviceArray<i32>> = keys
        .iter()
        .map(|k| DeviceArray::from_host(dev, k, &[rows, cols]))
        .collect::<cuarray::Result<_>>()?;
    let got = cuarray::lexsort(&[&dk[0], &dk[1], &dk[2]])?.to_host()?;
    for r in 0..rows {
        let mut want: Vec<usize> = (0..cols).collect();
        // Stable sort by (k2, k1, k0): ties keep their positions.
        want.sort_by_key(|&j| {
            (
                keys[2][r * cols + j],
                keys[1][r * cols + j],
                keys[0][r * cols + j],
            )
        });
        let want: Vec<i64> = want.into_iter().map(|j| j as i64).collect();
        ensure!(got[r * cols..(r + 1) * cols] == want[..], "lexsort row {r}");
    }
    // One key on a non-contiguous view.
    let k = dk[0].slice(s![.., ..;-1])?;
    let got = cuarray::lexsort(&[&k])?;
    ensure!(
        got.to_host()? == k.argsort(-1)?.to_host()?,
        "lexsort of one key"
    );
    ensure!(cuarray::lexsort::<i32>(&[]).is_err(), "no keys");
    ensure!(
        cuarray::lexsort(&[&dk[0], &dk[1].reshape([cols, rows])?]).is_err(),
        "keys of other shapes"
    );
    // partition / argpartition: the kth element in place, smaller before, larger after.
    let h: Vec<f32> = (0..1000).map(|_| rng.range(-1.0, 1.0) as f32).collect();
    let a = DeviceArray::from_host(dev, &h, &[10, 100])?.t();
    for kth in [0isize, 37, -1] {
        let k = if kth < 0 { 100 + kth } else { kth } as usize;
        let p = a.partition(kth, 0)?;
        ensure!(p.shape() == [100, 10], "partition shape");
        let hp = p.to_host()?;
        let ip = a.argpartition(kth, 0)?.to_host()?;
        for c in 0..10 {
            let col: Vec<f32> = (0..100).map(|r| hp[r * 10 + c]).collect();
            let mut want: Vec<f32> = (0..100).map(|r| h[c * 100 + r]).collect();
            want.sort_by(f32::total_cmp);
            ensure!(col[k] == want[k], "partition kth {kth} column {c}");
            ensure!(
                col[..k].iter().all(|&x| x <= want[k]) && col[k..].iter().all(|&x| x >= want[k]),
                "partition sides kth {kth}"
            );
            let picked = h[c * 100 + ip[k * 10 + c] as usize];
            ensure!(picked == want[k], "argpartition kth {kth} column {c}");
        }
    }
    ensure!(a.partition(100, 0).is_err(), "kth past the end");
    ensure!(a.argpartition(-101, 0).is_err(), "kth before the start");
    ensure!(a.partition(0, 2).is_err(), "axis out of range");
    Ok(())
}

pub fn trials(out: &mut Vec<Trial>) {
    add_gpu(out, "sets/unique_all/i32/strided_sizes_nan".into(), uniques);
    add_gpu(
        out,
        "sets/isin_set_ops/i32/strided_empty_nan".into(),
        membership,
    );
    add_gpu(out, "sets/lexsort_partition/i32/ties_kth".into(), orders);
}
