//! Selection and indexing against host references, every dtype: boolean masks
//! (masked_select with broadcasting, masked_fill, nonzero, argwhere, count_nonzero),
//! integer indices (take, take_along_axis, put_along_axis, index_add with duplicate
//! indices), negative and out-of-range indices (an error at the next wait, nothing read or
//! written out of bounds), bincount and histogram; masked_select of u8 past 2^31 elements.

use crate::common::{add_gpu, ensure, HostNd, Rng, TElem, TResult, Val};
use crate::sorting::{data, Kind};
use cuarray::{s, Device, DeviceArray, Error};
use libtest_mimic::Trial;

fn nonzero_val<T: TElem>(x: T) -> bool {
    match x.val() {
        Val::B(b) => b,
        Val::I(i) => i != 0,
        Val::F(f) => f != 0.0,
    }
}

fn masks<T: TElem>(dev: &Device, rng: &mut Rng) -> TResult {
    // masked_select with a mask broadcast over rows, of a strided view.
    let h = HostNd::new(data::<T>(rng, 40 * 70, Kind::Ties), &[40, 70]);
    let a = h.upload(dev)?;
    let v = a.slice(s![..;2, 3..])?;
    let hv = h.slice(&[(None, None, 2), (Some(3), None, 1)]);
    let mrow: Vec<bool> = (0..67).map(|_| rng.bit()).collect();
    let m = DeviceArray::from_slice(dev, &mrow)?;
    let want: Vec<T> = hv
        .data
        .iter()
        .enumerate()
        .filter(|(i, _)| mrow[i % 67])
        .map(|(_, &x)| x)
        .collect();
    crate::common::check_eq(
        "masked_select, broadcast mask",
        &v.masked_select(&m)?.to_host()?,
        &want,
    )?;
    // Full masks of several sizes (tiles, a partial last tile), all false and all true.
    for n in [1usize, 4095, 4096, 4097, 100_000] {
        let x = data::<T>(rng, n, Kind::Random);
        let mb: Vec<bool> = (0..n).map(|_| rng.below(3) == 0).collect();
        let a = DeviceArray::from_slice(dev, &x)?;
        let want: Vec<T> = x
            .iter()
            .zip(&mb)
            .filter(|(_, &b)| b)
            .map(|(&x, _)| x)
            .collect();
        let got = a.masked_select(&DeviceArray::from_slice(dev, &mb)?)?;
        crate::common::check_eq(&format!("masked_select of {n}"), &got.to_host()?, &want)?;
        let none = a.masked_select(&DeviceArray::<bool>::zeros(dev, &[n])?)?;
        ensure!(
            none.shape() == [0],
            "masked_select of nothing: {:?}",
            none.shape()
        );
        let all = a.masked_select(&DeviceArray::<bool>::ones(dev, &[n])?)?;
        crate::common::check_eq("masked_select of all", &all.to_host()?, &x)?;
    }
    // masked_fill through a view.
    let b = h.upload(dev)?;
    let bv = b.slice(s![1..;3, ..])?;
    let fill = T::from_val(Val::I(7));
    let mfull: Vec<bool> = (0..bv.size()).map(|_| rng.bit()).collect();
    bv.masked_fill(&DeviceArray::from_host(dev, &mfull, bv.shape())?, fill)?;
    let mut want = h.clone();
    let rows: Vec<usize> = (1..40).step_by(3).collect();
    for (k, &r) in rows.iter().enumerate() {
        for c in 0..70 {
            if mfull[k * 70 + c] {
                want.data[r * 70 + c] = fill;
            }
        }
    }
    crate::common::check_eq("masked_fill", &b.to_host()?, &want.data)?;
    // nonzero, argwhere, count_nonzero over a 3-D transposed view.
    let h3 = HostNd::new(data::<T>(rng, 5 * 6 * 7, Kind::Ties), &[5, 6, 7]);
    let a3 = h3.upload(dev)?.permute(&[2, 0, 1])?;
    let ht = h3.permute(&[2, 0, 1]);
    let coords: Vec<Vec<usize>> = crate::common::indices(&ht.shape)
        .into_iter()
        .filter(|j| nonzero_val(ht.get(j)))
        .collect();
    let nz = cuarray::nonzero(&a3)?;
    ensure!(nz.len() == 3, "nonzero gave {} arrays", nz.len());
    for (d, arr) in nz.iter().enumerate() {
        let want: Vec<i64> = coords.iter().map(|c| c[d] as i64).collect();
        ensure!(arr.to_host()? == want, "nonzero dimension {d}");
    }
    let aw = cuarray::argwhere(&a3)?;
    ensure!(
        aw.shape() == [coords.len(), 3],
        "argwhere shape {:?}",
        aw.shape()
    );
    let want: Vec<i64> = coords.iter().flatten().map(|&c| c as i64).collect();
    ensure!(aw.to_host()? == want, "argwhere");
    let c = cuarray::count_nonzero(&a3)?;
    ensure!(
        c.shape().is_empty() && c.to_scalar()? == coords.len() as i64,
        "count_nonzero"
    );
    let c1 = cuarray::count_nonzero_axis(&a3, 1)?.to_host()?;
    let want: Vec<i64> = (0..7)
        .flat_map(|i| {
            let ht = &ht;
            (0..6).map(move |k| (0..5).filter(|&j| nonzero_val(ht.get(&[i, j, k]))).count() as i64)
        })
        .collect();
    ensure!(c1 == want, "count_nonzero_axis(1): {c1:?} vs {want:?}");
    ensure!(
        cuarray::nonzero(&DeviceArray::<T>::zeros(dev, &[])?).is_err(),
        "nonzero of 0-d"
    );
    Ok(())
}

fn take<T: TElem>(dev: &Device, rng: &mut Rng) -> TResult {
    let h = HostNd::new(data::<T>(rng, 8 * 9 * 10, Kind::Random), &[8, 9, 10]);
    let a = h.upload(dev)?;
    let idx: Vec<i64> = (0..12).map(|_| rng.int(-9, 8)).collect();
    let wrap = |i: i64, n: usize| {
        if i < 0 {
            (i + n as i64) as usize
        } else {
            i as usize
        }
    };
    let i2 = DeviceArray::from_host(dev, &idx, &[3, 4])?;
    // Axis 1 (extent 9): result (8, 3, 4, 10).
    let got = a.take(&i2, Some(1))?;
    ensure!(got.shape() == [8, 3, 4, 10], "take shape {:?}", got.shape());
    let mut want = Vec::new();
    for x in 0..8 {
        for &i in &idx {
            for z in 0..10 {
                want.push(h.get(&[x, wrap(i, 9), z]));
            }
        }
    }
    crate::common::check_eq("take axis 1", &got.to_host()?, &want)?;
    // Flattened, through a transposed view.
    let flat_idx: Vec<i64> = (0..50).map(|_| rng.int(-720, 719)).collect();
    let t = a.t();
    let ht = h.t();
    let got = t.take(&DeviceArray::from_slice(dev, &flat_idx)?, None)?;
    let want: Vec<T> = flat_idx.iter().map(|&i| ht.data[wrap(i, 720)]).collect();
    crate::common::check_eq("take flat of a view", &got.to_host()?, &want)?;
    // take_along_axis with argsort, and random indices broadcast over a row.
    let order = a.argsort(2)?;
    let sorted = a.take_along_axis(&order, 2)?;
    crate::common::check_eq(
        "take_along_axis(argsort)",
        &sorted.to_host()?,
        &a.sort(2)?.to_host()?,
    )?;
    let ib: Vec<i64> = (0..9 * 5).map(|_| rng.int(-10, 9)).collect();
    let got = a.take_along_axis(&DeviceArray::from_host(dev, &ib, &[1, 9, 5])?, 2)?;
    ensure!(
        got.shape() == [8, 9, 5],
        "take_along_axis shape {:?}",
        got.shape()
    );
    let mut want = Vec::new();
    for x in 0..8 {
        for y in 0..9 {
            for k in 0..5 {
                want.push(h.get(&[x, y, wrap(ib[y * 5 + k], 10)]));
            }
        }
    }
    crate::common::check_eq("take_along_axis broadcast", &got.to_host()?, &want)?;
    // put_along_axis: each row's entries permuted (distinct indices).
    let b = h.upload(dev)?;
    let perm: Vec<i64> = (0..8 * 9)
        .flat_map(|_| {
            let mut p: Vec<i64> = (0..10).collect();
            for k in (1..10).rev() {
                p.swap(k, rng.below(k + 1));
            }
            p.into_iter().map(|i| if i % 2 == 0 { i - 10 } else { i })
        })
        .collect();
    let vals = data::<T>(rng, 8 * 9 * 10, Kind::Random);
    b.put_along_axis(
        &DeviceArray::from_host(dev, &perm, &[8, 9, 10])?,
        &DeviceArray::from_host(dev, &vals, &[8, 9, 10])?,
        -1,
    )?;
    let mut want = h.data.clone();
    for r in 0..72 {
        for k in 0..10 {
            want[r * 10 + wrap(perm[r * 10 + k], 10)] = vals[r * 10 + k];
        }
    }
    crate::common::check_eq("put_along_axis", &b.to_host()?, &want)?;
    Ok(())
}

/// index_add with duplicate indices: small integer values, so every float sum is exact.
fn index_add<T: TElem>(dev: &Device, rng: &mut Rng) -> TResult {
    let small = |rng: &mut Rng| T::from_val(Val::I(rng.int(0, 3) as i128));
    let base: Vec<T> = (0..6 * 7).map(|_| small(rng)).collect();
    let a = DeviceArray::from_host(dev, &base, &[6, 7])?;
    let idx: Vec<i64> = (0..40).map(|_| rng.int(-7, 6)).collect();
    let vals: Vec<T> = (0..6 * 40).map(|_| small(rng)).collect();
    a.index_add(
        1,
        &DeviceArray::from_slice(dev, &idx)?,
        &DeviceArray::from_host(dev, &vals, &[6, 40])?,
    )?;
    let mut acc: Vec<Val> = base.iter().map(|x| x.val()).collect();
    let add = |a: Val, b: Val| match (a, b) {
        (Val::I(x), Val::I(y)) => Val::I(x + y),
        (Val::F(x), Val::F(y)) => Val::F(x + y),
        (Val::B(x), Val::B(y)) => Val::B(x || y),
        _ => unreachable!(),
    };
    for r in 0..6 {
        for (j, &i) in idx.iter().enumerate() {
            let c = if i < 0 { (i + 7) as usize } else { i as usize };
            acc[r * 7 + c] = add(acc[r * 7 + c], vals[r * 40 + j].val());
        }
    }
    let want: Vec<T> = acc.into_iter().map(T::from_val).collect();
    crate::common::check_eq("index_add (duplicates)", &a.to_host()?, &want)?;
    // Along axis 0 with values broadcast over columns.
    let a = DeviceArray::from_host(dev, &base, &[6, 7])?;
    let idx0: Vec<i64> = vec![0, 5, 0, -1, 2];
    let v0: Vec<T> = (0..5).map(|_| small(rng)).collect();
    a.index_add(
        0,
        &DeviceArray::from_slice(dev, &idx0)?,
        &DeviceArray::from_host(dev, &v0, &[5, 1])?,
    )?;
    let mut acc: Vec<Val> = base.iter().map(|x| x.val()).collect();
    for (j, &i) in idx0.iter().enumerate() {
        let r = if i < 0 { (i + 6) as usize } else { i as usize };
        for c in 0..7 {
            acc[r * 7 + c] = add(acc[r * 7 + c], v0[j].val());
        }
    }
    let want: Vec<T> = acc.into_iter().map(T::from_val).collect();
    crate::common::check_eq("index_add axis 0", &a.to_host()?, &want)?;
    Ok(())
}

/// Out-of-range indices: no read or write out of bounds, an error naming the op at the
/// next wait, then a clean state.
fn out_of_range(dev: &Device) -> TResult {
    let a = DeviceArray::from_slice(dev, &[1.0f32, 2.0, 3.0])?;
    let bad = DeviceArray::from_slice(dev, &[0i64, 3, -4, 1 << 40, 2, -3])?;
    let got = a.take(&bad, None)?;
    match got.to_host() {
        Err(Error::IndexOutOfRange { op, index, extent }) => {
            ensure!(
                op == "take" && extent == 3,
                "error names {op} extent {extent}"
            );
            ensure!([3, -4, 1 << 40].contains(&index), "recorded index {index}");
        }
        other => return Err(format!("take out of range: {other:?}").into()),
    }
    // The record is cleared; the valid entries were gathered, the bad ones read 0.
    ensure!(
        got.to_host()? == vec![1.0, 0.0, 0.0, 0.0, 3.0, 1.0],
        "take with bad indices"
    );
    dev.check()?;
    let t = DeviceArray::<i32>::zeros(dev, &[4, 5])?;
    let i = DeviceArray::from_host(dev, &[0i64, 9, 1, -6], &[1, 4])?;
    t.put_along_axis(
        &i,
        &DeviceArray::from_host(dev, &[5i32, 6, 7, 8], &[1, 4])?,
        1,
    )?;
    t.index_add(
        0,
        &DeviceArray::from_slice(dev, &[4i64, -1])?,
        &DeviceArray::<i32>::ones(dev, &[2, 5])?,
    )?;
    let e = dev.check();
    ensure!(
        matches!(e, Err(Error::IndexOutOfRange { .. })),
        "scatters out of range: {e:?}"
    );
    let msg = e.unwrap_err().to_string();
    ensure!(
        msg.contains("put_along_axis") || msg.contains("index_add"),
        "message: {msg}"
    );
    // Both records were set: the second one is reported at the next wait... or was
    // cleared with the first; in any case the state is clean after one more check.
    let _ = dev.check();
    dev.check()?;
    let want = vec![5, 7, 0, 0, 0, 5, 7, 0, 0, 0, 5, 7, 0, 0, 0, 6, 8, 1, 1, 1];
    let got = t.to_host()?;
    ensure!(got == want, "scatter results {got:?}");
    Ok(())
}

fn counting(dev: &Device, rng: &mut Rng) -> TResult {
    let x: Vec<u16> = (0..100_000).map(|_| rng.below(300) as u16).collect();
    let mut want = vec![0i64; 500];
    for &v in &x {
        want[v as usize] += 1;
    }
    let got = cuarray::bincount(&DeviceArray::from_slice(dev, &x)?, 500)?.to_host()?;
    ensure!(got == want, "bincount with minlength");
    let hi = *x.iter().max().unwrap() as usize;
    let got = cuarray::bincount(&DeviceArray::from_slice(dev, &x)?, 0)?.to_host()?;
    ensure!(got == want[..=hi], "bincount");
    // Many bins: global counters.
    let y: Vec<i64> = (0..50_000).map(|_| rng.below(40_000) as i64).collect();
    let mut want = vec![0i64; 40_000];
    for &v in &y {
        want[v as usize] += 1;
    }
    let got = cuarray::bincount(&DeviceArray::from_slice(dev, &y)?, 40_000)?.to_host()?;
    ensure!(got == want, "bincount, 40000 bins");
    ensure!(
        cuarray::bincount(&DeviceArray::from_slice(dev, &[1i32, -1])?, 0).is_err(),
        "negative bincount"
    );
    // histogram of f32 (NaN, values on the edges) and f64, with and without a range.
    let mut v: Vec<f32> = (0..10_000).map(|_| rng.range(-3.0, 5.0) as f32).collect();
    v[3] = f32::NAN;
    v[4] = 5.0;
    v[5] = -3.0;
    v[6] = 0.5;
    for (bins, range) in [
        (7usize, Some((-1.0f32, 4.0f32))),
        (10, Some((-3.0, 5.0))),
        (3, None),
        (20_000, Some((-3.0, 5.0))),
    ] {
        let a = DeviceArray::from_slice(dev, &v)?;
        let res = cuarray::histogram(&a, bins, range);
        let (lo, hi) = range.map_or((-3.0f64, 5.0f64), |(l, h)| (l as f64, h as f64));
        if range.is_none() {
            // The data holds NaN: the range found is not finite.
            ensure!(res.is_err(), "histogram over NaN data without a range");
            continue;
        }
        let (c, e) = res?;
        let step = (hi - lo) / bins as f64;
        let edges: Vec<f32> = (0..=bins)
            .map(|i| {
                if i == bins {
                    hi as f32
                } else {
                    (lo + i as f64 * step) as f32
                }
            })
            .collect();
        let mut want = vec![0i64; bins];
        let (clo, chi, denom, nb) = (lo as f32, hi as f32, (hi - lo) as f32, bins as f32);
        for &x in &v {
            if !(x >= clo && x <= chi) {
                continue;
            }
            let mut k = (((x - clo) / denom) * nb) as i64;
            k = k.clamp(0, bins as i64 - 1);
            if x < edges[k as usize] {
                k -= 1;
            }
            if k != bins as i64 - 1 && x >= edges[k as usize + 1] {
                k += 1;
            }
            if (0..bins as i64).contains(&k) {
                want[k as usize] += 1;
            }
        }
        ensure!(e.to_host()? == edges, "histogram edges ({bins} bins)");
        let got = c.to_host()?;
        ensure!(
            got == want,
            "histogram counts ({bins} bins): {:?} vs {:?}",
            &got[..bins.min(10)],
            &want[..bins.min(10)]
        );
    }
    let w: Vec<f64> = (0..1000).map(|i| i as f64 / 10.0).collect();
    let (c, e) = cuarray::histogram(&DeviceArray::from_slice(dev, &w)?, 4, None)?;
    ensure!(
        c.to_host()? == vec![250, 250, 250, 250],
        "histogram f64: {:?}",
        c.to_host()?
    );
    ensure!(e.to_host()?[4] == 99.9, "histogram f64 edges");
    ensure!(
        cuarray::histogram(&DeviceArray::from_slice(dev, &w)?, 0, None).is_err(),
        "0 bins"
    );
    ensure!(
        cuarray::histogram(&DeviceArray::from_slice(dev, &w)?, 2, Some((3.0, 1.0))).is_err(),
        "reversed range"
    );
    Ok(())
}

/// masked_select of u8 past 2^31 elements.
fn large_select(dev: &Device, rng: &mut Rng) -> TResult {
    const N: usize = (1 << 31) + 1000;
    let mut g = cuarray::random::Generator::new(dev, rng.next_u64());
    let a = g.integers::<u8>(0, 255, &[N])?;
    let m = a.gt(200u8)?;
    let got = a.masked_select(&m)?;
    let host = a.to_host()?;
    let want: Vec<u8> = host.iter().copied().filter(|&x| x > 200).collect();
    drop(host);
    ensure!(
        got.size() == want.len(),
        "masked_select count {} vs {}",
        got.size(),
        want.len()
    );
    ensure!(got.to_host()? == want, "masked_select past 2^31");
    let idx = cuarray::count_nonzero(&m)?.to_scalar()?;
    ensure!(idx as usize == want.len(), "count_nonzero past 2^31");
    Ok(())
}

pub fn trials(out: &mut Vec<Trial>) {
    macro_rules! per_dtype {
        ($($t:ty),*) => {$(
            let d = <$t as cuarray::Element>::DTYPE.name();
            add_gpu(out, format!("indexing/masks/{d}/select_fill_nonzero"), masks::<$t>);
            add_gpu(out, format!("indexing/take_put/{d}/axes_views"), take::<$t>);
            add_gpu(out, format!("indexing/index_add/{d}/duplicates"), index_add::<$t>);
        )*};
    }
    per_dtype!(
        f32,
        f64,
        half::f16,
        half::bf16,
        i8,
        i16,
        i32,
        i64,
        u8,
        u16,
        u32,
        u64,
        bool
    );
    out.push(crate::common::gpu_trial_exclusive(
        "indexing/out_of_range/f32/error_at_next_wait",
        out_of_range,
    ));
    add_gpu(
        out,
        "indexing/counting/u16/bincount_histogram".into(),
        counting,
    );
    add_gpu(
        out,
        "indexing/large/u8/masked_select_past_2^31".into(),
        large_select,
    );
}
