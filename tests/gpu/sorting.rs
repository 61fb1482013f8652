//! Sorting and searching against host references (Rust's stable sort with NumPy's order:
//! NaN last, -0.0 == +0.0): sort, argsort and topk for every dtype and layout (rows of
//! every group size, rows longer than a block, segmented and one-dimensional radix sorts,
//! non-last axes, transposed and strided views), with ties, NaN, -0.0, all-equal,
//! sorted and reversed input, empty arrays and single elements; unique, searchsorted,
//! permutation and shuffle; a u8 sort past 2^31 elements; and one-dimensional sorts of a
//! few thousand tiles repeated on fresh data.

use crate::common::{add_gpu, ensure, gpu_trial, HostNd, Rng, TElem, TResult, Val};
use cuarray::{s, Device, DeviceArray};
use libtest_mimic::Trial;
use std::cmp::Ordering;

/// NumPy's order: NaN last (NaNs equal), -0.0 == +0.0.
pub fn np_cmp<T: TElem>(a: T, b: T) -> Ordering {
    match (a.val(), b.val()) {
        (Val::F(x), Val::F(y)) => match (x.is_nan(), y.is_nan()) {
            (true, true) => Ordering::Equal,
            (true, false) => Ordering::Greater,
            (false, true) => Ordering::Less,
            _ => x.partial_cmp(&y).unwrap(),
        },
        (Val::I(x), Val::I(y)) => x.cmp(&y),
        (Val::B(x), Val::B(y)) => x.cmp(&y),
        _ => unreachable!("mixed values"),
    }
}

/// Test data of a kind: random values, with many ties, NaN and -0.0 for floats.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Kind {
    Random,
    Ties,
    AllEqual,
    Sorted,
    Reversed,
}

pub fn data<T: TElem>(rng: &mut Rng, n: usize, kind: Kind) -> Vec<T> {
    let float = T::DTYPE.is_float();
    let mut v: Vec<T> = match kind {
        Kind::Random => rng.vec(n),
        Kind::Ties => (0..n)
            .map(|_| T::from_val(Val::I(rng.int(-3, 3) as i128)))
            .collect(),
        Kind::AllEqual => vec![T::from_val(Val::I(2)); n],
        Kind::Sorted | Kind::Reversed => rng.vec(n),
    };
    if float && matches!(kind, Kind::Random | Kind::Ties) {
        for _ in 0..(n / 16).max(1).min(n) {
            let i = rng.below(n);
            v[i] = match rng.below(4) {
                0 => T::from_val(Val::F(f64::NAN)),
                1 => T::from_val(Val::F(-f64::NAN)),
                2 => T::from_val(Val::F(-0.0)),
                _ => T::from_val(Val::F(0.0)),
            };
        }
    }
    if kind == Kind::Sorted {
        v.sort_by(|a, b| np_cmp(*a, *b));
    }
    if kind == Kind::Reversed {
        v.sort_by(|a, b| np_cmp(*b, *a));
    }
    v
}

/// Rows of `h` along `axis`, as (permutation to axis-last, rows).
fn rows_of<T: TElem>(h: &HostNd<T>, axis: usize) -> (Vec<usize>, HostNd<T>) {
    let nd = h.shape.len();
    let mut perm: Vec<usize> = (0..nd).filter(|&k| k != axis).collect();
    perm.push(axis);
    (perm.clone(), h.permute(&perm))
}

fn inverse(perm: &[usize]) -> Vec<usize> {
    let mut inv = vec![0; perm.len()];
    for (i, &p) in perm.iter().enumerate() {
        inv[p] = i;
    }
    inv
}

/// The stable argsort of each row along `axis` (descending: largest first, NaN first),
/// keeping the first `k`; returns (values, indices) in the input's axis order.
pub fn host_topk<T: TElem>(
    h: &HostNd<T>,
    axis: usize,
    k: usize,
    desc: bool,
) -> (HostNd<T>, HostNd<i64>) {
    let (perm, r) = rows_of(h, axis);
    let len = *r.shape.last().unwrap();
    let rows = r.data.len().checked_div(len).unwrap_or(0);
    let mut vals = Vec::with_capacity(rows * k);
    let mut idx = Vec::with_capacity(rows * k);
    for row in 0..rows {
        let x = &r.data[row * len..(row + 1) * len];
        let mut o: Vec<usize> = (0..len).collect();
        o.sort_by(|&a, &b| {
            if desc {
                np_cmp(x[b], x[a])
            } else {
                np_cmp(x[a], x[b])
            }
        });
        for &j in &o[..k] {
            vals.push(x[j]);
            idx.push(j as i64);
        }
    }
    let mut shape = r.shape.clone();
    *shape.last_mut().unwrap() = k;
    let inv = inverse(&perm);
    (
        HostNd::new(vals, &shape).permute(&inv),
        HostNd::new(idx, &shape).permute(&inv),
    )
}

/// sort, argsort and topk (k of the axis, largest and smallest) of `a` (whose host copy is
/// `h`) along `axis`, against the host.
fn check_all<T: TElem>(what: &str, a: &DeviceArray<T>, h: &HostNd<T>, axis: usize) -> TResult {
    let len = h.shape[axis];
    let (want_v, want_i) = host_topk(h, axis, len, false);
    let s = a.sort(axis as isize)?;
    ensure!(
        s.shape() == want_v.shape.as_slice(),
        "{what}: sort shape {:?}",
        s.shape()
    );
    let got_s = s.to_host()?;
    crate::common::check_eq(&format!("{what}: sort"), &got_s, &want_v.data)?;
    check_zero_signs(&format!("{what}: sort"), &got_s, &want_v.data)?;
    let i = a.argsort(axis as isize)?;
    ensure!(
        i.shape() == want_i.shape.as_slice(),
        "{what}: argsort shape {:?}",
        i.shape()
    );
    let got = i.to_host()?;
    ensure!(
        got == want_i.data,
        "{what}: argsort differs first at {:?}",
        got.iter().zip(&want_i.data).position(|(a, b)| a != b)
    );
    let sel = (len / 10).min(4096);
    for (k, desc) in [
        (len.min(3), true),
        (len / 2, false),
        (len, true),
        (sel, false),
        (sel, true),
    ] {
        let (wv, wi) = host_topk(h, axis, k, desc);
        let (v, i) = a.topk(k, axis as isize, desc)?;
        ensure!(
            v.shape() == wv.shape.as_slice(),
            "{what}: topk shape {:?}",
            v.shape()
        );
        let got_v = v.to_host()?;
        crate::common::check_eq(
            &format!("{what}: topk({k}, {desc}) values"),
            &got_v,
            &wv.data,
        )?;
        check_zero_signs(
            &format!("{what}: topk({k}, {desc}) values"),
            &got_v,
            &wv.data,
        )?;
        let got = i.to_host()?;
        ensure!(
            got == wi.data,
            "{what}: topk({k}, largest {desc}) indices differ first at {:?}",
            got.iter().zip(&wi.data).position(|(a, b)| a != b)
        );
    }
    Ok(())
}

/// Equal values compare equal but -0.0 and +0.0 must also sit where the stable order puts
/// each (NumPy's `kind='stable'`): the signs of the zeros, element by element.
fn check_zero_signs<T: TElem>(what: &str, got: &[T], want: &[T]) -> TResult {
    let sign = |v: T| match v.val() {
        Val::F(x) if x == 0.0 => Some(x.is_sign_negative()),
        _ => None,
    };
    let bad = (0..got.len().min(want.len())).find(|&i| sign(got[i]) != sign(want[i]));
    ensure!(
        bad.is_none(),
        "{what}: the zeros' signs differ first at {bad:?} (got {}, expected {})",
        got[bad.unwrap_or(0)],
        want[bad.unwrap_or(0)]
    );
    Ok(())
}

/// NumPy's own example, `np.sort([3, nan, -0., 1, 0., nan, -inf, inf, -0., 2],
/// kind='stable')` = `[-inf, -0., 0., -0., 1, 2, 3, inf, nan, nan]`, in a short row, a row
/// past a block (the radix sort) and along axis 0 of a 2-D array.
fn signed_zeros<T: TElem>(dev: &Device, _rng: &mut Rng) -> TResult {
    let f = |x: f64| T::from_val(Val::F(x));
    let nan = f64::NAN;
    let inf = f64::INFINITY;
    let x: Vec<T> = [3.0, nan, -0.0, 1.0, 0.0, nan, -inf, inf, -0.0, 2.0]
        .map(f)
        .to_vec();
    let want: Vec<T> = [-inf, -0.0, 0.0, -0.0, 1.0, 2.0, 3.0, inf, nan, nan]
        .map(f)
        .to_vec();
    let a = DeviceArray::from_slice(dev, &x)?;
    let got = a.sort(0)?.to_host()?;
    crate::common::check_eq("numpy example: sort", &got, &want)?;
    check_zero_signs("numpy example: sort", &got, &want)?;
    let got = a.argsort(0)?.to_host()?;
    ensure!(
        got == vec![6, 2, 4, 8, 3, 9, 0, 7, 1, 5],
        "numpy example: argsort {got:?}"
    );
    // 7001 repeats of the example: the one-sweep radix sort.
    let reps = 7001;
    let long: Vec<T> = (0..reps).flat_map(|_| x.iter().copied()).collect();
    let h = HostNd::new(long.clone(), &[long.len()]);
    check_all(
        "numpy example x 7001",
        &DeviceArray::from_slice(dev, &long)?,
        &h,
        0,
    )?;
    // Along axis 0 of (10, 3): each column a rotation of the example.
    let cols: Vec<T> = (0..10)
        .flat_map(|i| (0..3).map(move |c| (i + 3 * c) % 10))
        .map(|j| x[j])
        .collect();
    let h = HostNd::new(cols.clone(), &[10, 3]);
    check_all(
        "numpy example, columns",
        &DeviceArray::from_host(dev, &cols, &[10, 3])?,
        &h,
        0,
    )
}

/// Rows of every group size and past a block, 1-D and segmented radix sorts.
fn shapes<T: TElem>(dev: &Device, rng: &mut Rng) -> TResult {
    let cases: &[(&[usize], Kind)] = &[
        (&[5, 1], Kind::Random),
        (&[1], Kind::Random),
        (&[3, 7], Kind::Ties),
        (&[200, 33], Kind::Random),
        (&[17, 100], Kind::Ties),
        (&[9, 250], Kind::Random),
        (&[4, 1000], Kind::Ties),
        (&[3, 2049], Kind::Random),
        (&[2, 4096], Kind::Ties),
        (&[4097], Kind::Random),
        (&[3, 5000], Kind::Ties),
        (&[70000], Kind::Ties),
        (&[300, 4100], Kind::Random),
        (&[2, 3000], Kind::AllEqual),
        (&[2, 3000], Kind::Sorted),
        (&[2, 3000], Kind::Reversed),
        (&[9000], Kind::AllEqual),
        (&[9000], Kind::Sorted),
        (&[9000], Kind::Reversed),
    ];
    for &(shape, kind) in cases {
        let n: usize = shape.iter().product();
        let h = HostNd::new(data::<T>(rng, n, kind), shape);
        let a = h.upload(dev)?;
        check_all(&format!("{shape:?} {kind:?}"), &a, &h, shape.len() - 1)?;
    }
    Ok(())
}

/// Non-last axes, transposed and strided views, empty arrays.
fn layouts<T: TElem>(dev: &Device, rng: &mut Rng) -> TResult {
    let h = HostNd::new(data::<T>(rng, 6 * 50 * 4, Kind::Ties), &[6, 50, 4]);
    let a = h.upload(dev)?;
    for axis in 0..3 {
        check_all(&format!("(6, 50, 4) axis {axis}"), &a, &h, axis)?;
    }
    let t = a.t();
    check_all("(4, 50, 6).T axis 1", &t, &h.t(), 1)?;
    let v = a.slice(s![1..;2, ..;-3, 1..3])?;
    let hv = h.slice(&[(Some(1), None, 2), (None, None, -3), (Some(1), Some(3), 1)]);
    for axis in 0..3 {
        check_all(&format!("strided view axis {axis}"), &v, &hv, axis)?;
    }
    // A long axis that is not the last: the radix sort through strided layouts.
    let h = HostNd::new(data::<T>(rng, 5000 * 3, Kind::Random), &[5000, 3]);
    check_all("(5000, 3) axis 0", &h.upload(dev)?, &h, 0)?;
    // Empty arrays.
    for shape in [&[0usize, 5][..], &[5, 0], &[0]] {
        let a = DeviceArray::<T>::zeros(dev, shape)?;
        let axis = shape.len() - 1;
        ensure!(a.sort(axis as isize)?.shape() == shape, "sort of {shape:?}");
        ensure!(
            a.argsort(axis as isize)?.shape() == shape,
            "argsort of {shape:?}"
        );
    }
    let z = DeviceArray::<T>::zeros(dev, &[])?;
    ensure!(
        z.sort(0).is_err() && z.argsort(-1).is_err(),
        "sort of a 0-d array"
    );
    ensure!(a.topk(6, -1, true).is_err(), "topk with k past the axis");
    Ok(())
}

/// unique and searchsorted.
fn searching<T: TElem>(dev: &Device, rng: &mut Rng) -> TResult {
    for (n, kind) in [(0, Kind::Random), (1000, Kind::Ties), (20000, Kind::Random)] {
        let v = data::<T>(rng, n, kind);
        // A 2-D array (flattened by unique), or 1-D when empty.
        let a = if n == 0 {
            DeviceArray::from_slice(dev, &v)?
        } else {
            DeviceArray::from_host(dev, &v, &[n / 10, 10])?
        };
        let mut want = v.clone();
        want.sort_by(|a, b| np_cmp(*a, *b));
        want.dedup_by(|a, b| np_cmp(*a, *b) == Ordering::Equal);
        let got = cuarray::unique(&a)?.to_host()?;
        crate::common::check_eq(&format!("unique of {n} {kind:?}"), &got, &want)?;
    }
    let mut sorted = data::<T>(rng, 5000, Kind::Ties);
    sorted.sort_by(|a, b| np_cmp(*a, *b));
    let values = data::<T>(rng, 3000, Kind::Random);
    let s_dev = DeviceArray::from_slice(dev, &sorted)?;
    let v_dev = DeviceArray::from_host(dev, &values, &[30, 100])?.t();
    let hv = HostNd::new(values.clone(), &[30, 100]).t();
    for right in [false, true] {
        let got = cuarray::searchsorted(&s_dev, &v_dev, right)?;
        ensure!(
            got.shape() == [100, 30],
            "searchsorted shape {:?}",
            got.shape()
        );
        let want: Vec<i64> = hv
            .data
            .iter()
            .map(|&x| {
                sorted
                    .iter()
                    .filter(|&&y| {
                        let c = np_cmp(y, x);
                        c == Ordering::Less || (right && c == Ordering::Equal)
                    })
                    .count() as i64
            })
            .collect();
        let got = got.to_host()?;
        ensure!(
            got == want,
            "searchsorted(right {right}) differs first at {:?}",
            got.iter().zip(&want).position(|(a, b)| a != b)
        );
    }
    ensure!(
        cuarray::searchsorted(
            &DeviceArray::from_host(dev, &sorted, &[50, 100])?,
            &s_dev,
            false
        )
        .is_err(),
        "searchsorted in a 2-D array"
    );
    Ok(())
}

fn permutation(dev: &Device) -> TResult {
    let mut rng = cuarray::random::Generator::new(dev, 11);
    for n in [0usize, 1, 10, 5000, 100_000] {
        let p = rng.permutation(n)?.to_host()?;
        let mut sorted = p.clone();
        sorted.sort();
        ensure!(
            sorted == (0..n as i64).collect::<Vec<_>>(),
            "permutation({n}) is not a permutation"
        );
        if n >= 5000 {
            let fixed = p
                .iter()
                .enumerate()
                .filter(|&(i, &v)| i as i64 == v)
                .count();
            ensure!(fixed < 20, "permutation({n}) has {fixed} fixed points");
        }
    }
    let h: Vec<i32> = (0..600).collect();
    let mut a = DeviceArray::from_host(dev, &h, &[200, 3])?;
    rng.shuffle(&mut a)?;
    let got = a.to_host()?;
    let mut rows: Vec<Vec<i32>> = got.chunks(3).map(|c| c.to_vec()).collect();
    ensure!(
        rows.iter().all(|r| r[1] == r[0] + 1 && r[2] == r[0] + 2),
        "shuffle broke rows"
    );
    ensure!(got != h, "shuffle left the rows in place");
    rows.sort();
    ensure!(rows.concat() == h, "shuffle lost rows");
    Ok(())
}

/// A u8 sort and argsort-free count past 2^31 elements (64-bit indices and look-back).
fn large_u8(dev: &Device, rng: &mut Rng) -> TResult {
    const N: usize = (1 << 31) + 1000;
    let mut g = cuarray::random::Generator::new(dev, rng.next_u64());
    let a = g.integers::<u8>(0, 255, &[N])?;
    let host = a.to_host()?;
    let mut count = [0usize; 256];
    for &x in &host {
        count[x as usize] += 1;
    }
    drop(host);
    let s = a.sort(0)?;
    drop(a);
    check_u8_runs("sorted u8", &s.to_host()?, &count)
}

/// A sorted u8 array holds, in order, a run of each value as long as its count.
fn check_u8_runs(what: &str, got: &[u8], count: &[usize; 256]) -> TResult {
    let mut at = 0usize;
    for (v, &c) in count.iter().enumerate() {
        ensure!(
            got[at..at + c].iter().all(|&x| x as usize == v),
            "{what}: the run of {v} at {at} ({c} long) is wrong"
        );
        at += c;
    }
    Ok(())
}

/// One-dimensional sorts of a few thousand tiles, again and again: each tile's digit
/// starts are taken while its warps start ranking, so a race there misplaces one digit's
/// run of one tile now and then, which a single sort rarely shows. Keys alone (u8, f32
/// with ties) and argsort (stable indices) against host references, on fresh data each
/// round.
fn many_tiles(dev: &Device, rng: &mut Rng) -> TResult {
    for round in 0..4 {
        let n = (1 << 23) + 12_345 + round * 977;
        let bytes: Vec<u8> = (0..n).map(|_| rng.below(256) as u8).collect();
        let mut count = [0usize; 256];
        for &x in &bytes {
            count[x as usize] += 1;
        }
        let got = DeviceArray::from_slice(dev, &bytes)?.sort(0)?.to_host()?;
        check_u8_runs(&format!("round {round}: sorted u8"), &got, &count)?;
        let keys = data::<f32>(rng, n, Kind::Ties);
        let mut want = keys.clone();
        want.sort_by(|a, b| np_cmp(*a, *b));
        let mut want_idx: Vec<usize> = (0..n).collect();
        want_idx.sort_by(|&i, &j| np_cmp(keys[i], keys[j]));
        let a = DeviceArray::from_slice(dev, &keys)?;
        let got = a.sort(0)?.to_host()?;
        ensure!(
            got.iter()
                .zip(&want)
                .all(|(g, w)| np_cmp(*g, *w) == Ordering::Equal),
            "round {round}: sorted f32 differs from the host's"
        );
        let idx = a.argsort(0)?.to_host()?;
        ensure!(
            idx.iter().zip(&want_idx).all(|(&g, &w)| g as usize == w),
            "round {round}: argsort of f32 differs from the host's stable order"
        );
    }
    Ok(())
}

/// topk of a long row with a large k (a ninth of the row: the radix selection with
/// candidates in most tiles) and many ties, smallest and largest, against the host's
/// stable order (ties in index order).
fn topk_large_k(dev: &Device) -> TResult {
    let n = (1usize << 20) + 17;
    let mut rng = Rng::for_name("sorting/topk/large_k");
    let h: Vec<f32> = (0..n)
        .map(|_| (rng.range(-4.0, 4.0) * 64.0).round() as f32 / 64.0)
        .collect();
    let hn = HostNd::new(h, &[n]);
    let a = DeviceArray::from_slice(dev, &hn.data)?;
    let k = n / 9;
    for desc in [false, true] {
        let (wv, wi) = host_topk(&hn, 0, k, desc);
        let (v, i) = a.topk(k, 0, desc)?;
        ensure!(v.to_host()? == wv.data, "topk({k}, largest {desc}) values");
        ensure!(i.to_host()? == wi.data, "topk({k}, largest {desc}) indices");
    }
    Ok(())
}

pub fn trials(out: &mut Vec<Trial>) {
    out.push(gpu_trial("sorting/topk/f32/large_k_ties", topk_large_k));
    macro_rules! per_dtype {
        ($($t:ty),*) => {$(
            let d = <$t as cuarray::Element>::DTYPE.name();
            add_gpu(out, format!("sorting/sort_argsort_topk/{d}/shapes"), shapes::<$t>);
            add_gpu(out, format!("sorting/sort_argsort_topk/{d}/layouts"), layouts::<$t>);
            add_gpu(out, format!("sorting/unique_searchsorted/{d}/mixed"), searching::<$t>);
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
    out.push(gpu_trial(
        "sorting/permutation_shuffle/i64/generator",
        permutation,
    ));
    add_gpu(out, "sorting/large/u8/sort_past_2^31".into(), large_u8);
    add_gpu(out, "sorting/many_tiles/f32/repeated".into(), many_tiles);
    macro_rules! per_float {
        ($($t:ty),*) => {$(
            let d = <$t as cuarray::Element>::DTYPE.name();
            add_gpu(out, format!("sorting/signed_zeros/{d}/numpy_example"), signed_zeros::<$t>);
        )*};
    }
    per_float!(f32, f64, half::f16, half::bf16);
}
