//! The sorting, selection and indexing rows of the peer comparison.

use super::*;

/// Sorting, selection and indexing, on standard-normal f32 data from cuarray's
/// generator (bytes = inputs read once and outputs written once): sort and argsort of
/// 2^26, argsort along the rows of 4096 x 4096, masked_select of 2^26 with half the mask
/// set (the count's read included), take of 2^26 random i64 indices from 2^26, topk 100 of
/// 2^24, searchsorted of 2^20 values in a sorted 2^24; advanced indexing: `a[idx]` and
/// `a[idx] = v` of 2^20 rows of 64 f32 by 2^20 random indices, `m[i, j]` of 2^22 points of
/// an 8192^2 f32; sets: isin of 2^24 int32 in 2^20, unique with counts of 2^24 int32 in
/// [0, 2^20).
pub fn sort_cases(dev: &Device, filter: &dyn Fn(&str) -> bool, cases: &mut Vec<Case>) {
    let mut rng = cuarray::random::Generator::new(dev, 17);
    let n = 1usize << 26;
    if filter("sort_f32_2^26") || filter("argsort_f32_2^26") {
        let a = rng.standard_normal::<f32>(&[n]).unwrap();
        if filter("sort_f32_2^26") {
            cases.push(device_case(dev, "sort_f32_2^26", (n * 8) as f64, || {
                a.sort(0).map(drop)
            }));
        }
        if filter("argsort_f32_2^26") {
            cases.push(device_case(
                dev,
                "argsort_f32_2^26",
                (n * 12) as f64,
                || a.argsort(0).map(drop),
            ));
        }
    }
    if filter("sort_f32_2^26_equal") {
        // Every key equal: the ranking's worst case for conflicts between lanes.
        let c = DeviceArray::<f32>::full(dev, &[n], 1.5).unwrap();
        cases.push(device_case(
            dev,
            "sort_f32_2^26_equal",
            (n * 8) as f64,
            || c.sort(0).map(drop),
        ));
    }
    if filter("argsort_rows_f32_4096x4096") {
        let m = rng.standard_normal::<f32>(&[4096, 4096]).unwrap();
        let bytes = (4096 * 4096 * 12) as f64;
        cases.push(device_case(
            dev,
            "argsort_rows_f32_4096x4096",
            bytes,
            || m.argsort(1).map(drop),
        ));
    }
    if filter("masked_select_f32_2^26") {
        let a = rng.standard_normal::<f32>(&[n]).unwrap();
        let mask = rng.bernoulli(0.5, &[n]).unwrap();
        let bytes = (n * 5 + n / 2 * 4) as f64;
        cases.push(device_case(dev, "masked_select_f32_2^26", bytes, || {
            a.masked_select(&mask).map(drop)
        }));
    }
    if filter("take_f32_2^26") {
        let a = rng.standard_normal::<f32>(&[n]).unwrap();
        let idx = rng.integers::<i64>(0, n as i64, &[n]).unwrap();
        cases.push(device_case(dev, "take_f32_2^26", (n * 16) as f64, || {
            a.take(&idx, None).map(drop)
        }));
    }
    // Advanced indexing: rows of 256 bytes gathered and scattered, and m[i, j] points.
    if filter("index_rows_f32_2^20x64") || filter("index_put_rows_f32_2^20x64") {
        let rows = 1usize << 20;
        let a = rng.standard_normal::<f32>(&[rows, 64]).unwrap();
        let idx = rng.integers::<i64>(0, rows as i64, &[rows]).unwrap();
        let bytes = (rows * 64 * 8 + rows * 8) as f64;
        if filter("index_rows_f32_2^20x64") {
            cases.push(device_case(dev, "index_rows_f32_2^20x64", bytes, || {
                a.index(cuarray::ix![&idx]).map(drop)
            }));
        }
        if filter("index_put_rows_f32_2^20x64") {
            let v = rng.standard_normal::<f32>(&[rows, 64]).unwrap();
            cases.push(device_case(
                dev,
                "index_put_rows_f32_2^20x64",
                bytes,
                || a.index_put(cuarray::ix![&idx], &v),
            ));
        }
    }
    if filter("index_points_f32_8192^2_2^22") {
        let m = rng.standard_normal::<f32>(&[8192, 8192]).unwrap();
        let k = 1usize << 22;
        let i = rng.integers::<i64>(0, 8192, &[k]).unwrap();
        let j = rng.integers::<i64>(0, 8192, &[k]).unwrap();
        cases.push(device_case(
            dev,
            "index_points_f32_8192^2_2^22",
            (k * 20) as f64,
            || m.index(cuarray::ix![&i, &j]).map(drop),
        ));
    }
    // Sets of int32: isin of 2^24 values in 2^20 (bytes: both read, the mask written), unique
    // with counts of 2^24 values in [0, 2^20) (bytes: the input read).
    if filter("isin_i32_2^24_in_2^20") || filter("unique_counts_i32_2^24") {
        let a = rng.integers::<i32>(0, 1 << 20, &[1 << 24]).unwrap();
        let t = rng.integers::<i32>(0, 1 << 24, &[1 << 20]).unwrap();
        if filter("isin_i32_2^24_in_2^20") {
            cases.push(device_case(
                dev,
                "isin_i32_2^24_in_2^20",
                ((5usize << 24) + (4 << 20)) as f64,
                || cuarray::isin(&a, &t, false).map(drop),
            ));
        }
        if filter("unique_counts_i32_2^24") {
            cases.push(device_case(
                dev,
                "unique_counts_i32_2^24",
                (4usize << 24) as f64,
                || cuarray::unique_counts(&a).map(drop),
            ));
        }
    }
    if filter("topk_f32_2^24_k100") {
        let a = rng.standard_normal::<f32>(&[1 << 24]).unwrap();
        cases.push(device_case(
            dev,
            "topk_f32_2^24_k100",
            (4usize << 24) as f64,
            || a.topk(100, 0, true).map(drop),
        ));
    }
    if filter("searchsorted_f32_2^20_in_2^24") {
        let s = rng
            .standard_normal::<f32>(&[1 << 24])
            .unwrap()
            .sort(0)
            .unwrap();
        let v = rng.standard_normal::<f32>(&[1 << 20]).unwrap();
        cases.push(device_case(
            dev,
            "searchsorted_f32_2^20_in_2^24",
            (12usize << 20) as f64,
            || cuarray::searchsorted(&s, &v, false).map(drop),
        ));
    }
}
