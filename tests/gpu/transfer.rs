//! Transfers: host <-> device round trips of every dtype, views copied back, errors.

use crate::common::{
    add_gpu, check_array, check_eq, dname, each_dtype, ensure, HostNd, Rng, TElem, TResult,
};
use cuarray::{s, Device, DeviceArray, Error};
use libtest_mimic::Trial;

const SIZES: [usize; 6] = [0, 1, 7, 1000, 4099, 100_003];

fn roundtrip<T: TElem>(dev: &Device, rng: &mut Rng) -> TResult {
    for n in SIZES {
        let data: Vec<T> = rng.vec(n);
        let a = DeviceArray::from_slice(dev, &data)?;
        ensure!(
            a.shape() == [n] && a.size() == n && a.ndim() == 1,
            "from_slice({n}): shape {:?}",
            a.shape()
        );
        ensure!(a.dtype() == T::DTYPE, "dtype {:?}", a.dtype());
        ensure!(a.is_contiguous(), "from_slice gives a non-contiguous array");
        check_eq(
            &format!("to_host after from_slice, n={n}"),
            &a.to_host()?,
            &data,
        )?;
        let mut back = vec![T::ZERO; n];
        a.to_host_into(&mut back)?;
        check_eq(&format!("to_host_into, n={n}"), &back, &data)?;
        // A clone is a second handle on the same memory.
        let c = a.clone();
        ensure!(c.shares_memory_with(&a), "clone() does not share memory");
        check_eq(&format!("clone, n={n}"), &c.to_host()?, &data)?;
    }
    Ok(())
}

fn shapes<T: TElem>(dev: &Device, rng: &mut Rng) -> TResult {
    let shapes: [&[usize]; 7] = [
        &[],
        &[0],
        &[2, 0, 3],
        &[3, 5],
        &[4, 5, 6],
        &[1, 1, 7],
        &[3, 1000],
    ];
    for shape in shapes {
        let h = HostNd::<T>::random(rng, shape);
        let a = h.upload(dev)?;
        ensure!(
            a.shape() == shape,
            "from_host shape {:?}, expected {shape:?}",
            a.shape()
        );
        ensure!(a.ndim() == shape.len(), "ndim {}", a.ndim());
        ensure!(a.size() == h.data.len(), "size {}", a.size());
        ensure!(
            a.is_contiguous(),
            "from_host of {shape:?} is not contiguous"
        );
        // Row-major strides, computed here.
        let mut want = vec![0isize; shape.len()];
        let mut acc = 1isize;
        for k in (0..shape.len()).rev() {
            want[k] = acc;
            acc *= shape[k].max(1) as isize;
        }
        if !h.data.is_empty() {
            ensure!(
                a.strides() == want.as_slice(),
                "strides {:?}, expected {want:?}",
                a.strides()
            );
        }
        check_array(&format!("from_host/to_host {shape:?}"), &a, &h, 0.0)?;
    }
    Ok(())
}

fn scalar<T: TElem>(dev: &Device, rng: &mut Rng) -> TResult {
    let v = T::random(rng);
    let z = DeviceArray::from_host(dev, &[v], &[])?;
    ensure!(
        z.shape().is_empty() && z.ndim() == 0 && z.size() == 1,
        "0-d shape {:?}",
        z.shape()
    );
    ensure!(z.to_scalar()? == v, "0-d to_scalar");
    check_eq("0-d to_host", &z.to_host()?, &[v])?;
    let one = DeviceArray::from_host(dev, &[v], &[1, 1, 1])?;
    ensure!(one.to_scalar()? == v, "(1,1,1) to_scalar");
    // Size-1 views of a larger array.
    let h = HostNd::<T>::random(rng, &[3, 5]);
    let a = h.upload(dev)?;
    let e = a.slice(s![2..3, 4])?;
    ensure!(
        e.shape() == [1],
        "slice s![2..3, 4] has shape {:?}",
        e.shape()
    );
    ensure!(e.to_scalar()? == h.get(&[2, 4]), "to_scalar of s![2..3, 4]");
    let e = a.slice(s![-1, -2])?;
    ensure!(
        e.shape().is_empty(),
        "two indices leave shape {:?}",
        e.shape()
    );
    ensure!(e.to_scalar()? == h.get(&[2, 3]), "to_scalar of s![-1, -2]");
    let e = a.t().slice(s![1, 2])?;
    ensure!(
        e.to_scalar()? == h.get(&[2, 1]),
        "to_scalar of a transposed element"
    );
    // Errors: size 0 and size 3.
    for arr in [
        DeviceArray::<T>::from_host(dev, &[], &[0])?,
        a.slice(s![0, ..3])?,
    ] {
        match arr.to_scalar() {
            Err(Error::InvalidArgument { op, msg }) => {
                ensure!(
                    op == "to_scalar" && !msg.is_empty(),
                    "to_scalar error: {op}: {msg}"
                )
            }
            other => {
                return Err(format!("to_scalar on shape {:?} gave {other:?}", arr.shape()).into())
            }
        }
    }
    Ok(())
}

fn view_transpose<T: TElem>(dev: &Device, rng: &mut Rng) -> TResult {
    let h = HostNd::<T>::random(rng, &[3, 5]);
    let a = h.upload(dev)?;
    let t = a.t();
    ensure!(
        t.shape() == [5, 3] && t.strides() == [1, 5],
        "t(): shape {:?} strides {:?}",
        t.shape(),
        t.strides()
    );
    ensure!(
        !t.is_contiguous() && t.shares_memory_with(&a),
        "t() must be a non-contiguous view"
    );
    check_array("3x5 .t()", &t, &h.t(), 0.0)?;
    check_array("3x5 .t().t()", &t.t(), &h, 0.0)?;
    // Bigger than one block, both ways.
    let h = HostNd::<T>::random(rng, &[131, 257]);
    let a = h.upload(dev)?;
    check_array("131x257 .t()", &a.t(), &h.t(), 0.0)?;
    // 1-D and 0-d transposes are the array itself.
    let v = HostNd::<T>::random(rng, &[7]);
    check_array("1-d .t()", &v.upload(dev)?.t(), &v, 0.0)?;
    Ok(())
}

fn view_permute<T: TElem>(dev: &Device, rng: &mut Rng) -> TResult {
    let h = HostNd::<T>::random(rng, &[4, 5, 6]);
    let a = h.upload(dev)?;
    for perm in [[2, 0, 1], [1, 2, 0], [0, 2, 1], [2, 1, 0], [0, 1, 2]] {
        let p = a.permute(&perm)?;
        ensure!(p.shares_memory_with(&a), "permute must be a view");
        check_array(
            &format!("4x5x6 permute {perm:?}"),
            &p,
            &h.permute(&perm),
            0.0,
        )?;
    }
    let h4 = HostNd::<T>::random(rng, &[2, 3, 4, 5]);
    let a4 = h4.upload(dev)?;
    check_array(
        "2x3x4x5 permute [3,1,0,2]",
        &a4.permute(&[3, 1, 0, 2])?,
        &h4.permute(&[3, 1, 0, 2]),
        0.0,
    )?;
    for bad in [&[0usize, 0, 1][..], &[0, 1]] {
        ensure!(
            matches!(a.permute(bad), Err(Error::InvalidArgument { .. })),
            "permute({bad:?}) on 3 axes must be an InvalidArgument error"
        );
    }
    // An axis past the end is NumPy's AxisError.
    ensure!(
        matches!(
            a.permute(&[0usize, 1, 3]),
            Err(Error::AxisOutOfRange {
                axis: 3,
                ndim: 3,
                ..
            })
        ),
        "permute([0, 1, 3]) on 3 axes must name axis 3"
    );
    Ok(())
}

fn view_slice_steps<T: TElem>(dev: &Device, rng: &mut Rng) -> TResult {
    let h = HostNd::<T>::random(rng, &[7, 9]);
    let a = h.upload(dev)?;
    let cases = [
        (
            a.slice(s![1..;2, ..;3])?,
            h.slice(&[(Some(1), None, 2), (None, None, 3)]),
            "s![1..;2, ..;3]",
        ),
        (
            a.slice(s![2..5, -3..])?,
            h.slice(&[(Some(2), Some(5), 1), (Some(-3), None, 1)]),
            "s![2..5, -3..]",
        ),
        (
            a.slice(s![..=3, 1..=-2])?,
            h.slice(&[(None, Some(4), 1), (Some(1), Some(-1), 1)]),
            "s![..=3, 1..=-2]",
        ),
        (
            a.slice(s![..=-1, 0..=0])?,
            h.slice(&[(None, None, 1), (Some(0), Some(1), 1)]),
            "s![..=-1, 0..=0]",
        ),
        (
            a.slice(s![-100..100;4])?,
            h.slice(&[(Some(-100), Some(100), 4), (None, None, 1)]),
            "s![-100..100;4]",
        ),
        (
            a.slice(s![3..3, ..])?,
            h.slice(&[(Some(3), Some(3), 1), (None, None, 1)]),
            "s![3..3, ..]",
        ),
        (
            a.slice(s![20.., ..])?,
            h.slice(&[(Some(20), None, 1), (None, None, 1)]),
            "s![20.., ..]",
        ),
    ];
    for (got, want, what) in &cases {
        check_array(&format!("7x9 {what}"), got, want, 0.0)?;
    }
    // An index removes its axis.
    let row = a.slice(s![3])?;
    ensure!(row.shape() == [9], "s![3] has shape {:?}", row.shape());
    check_eq("row 3", &row.to_host()?, &h.data[27..36])?;
    let col = a.slice(s![.., -1])?;
    let want: Vec<T> = (0..7).map(|i| h.get(&[i, 8])).collect();
    check_eq("column -1", &col.to_host()?, &want)?;
    // Out-of-range index and zero step are errors.
    ensure!(
        matches!(a.slice(s![7]), Err(Error::InvalidArgument { .. })),
        "s![7] on 7 rows must fail"
    );
    ensure!(
        matches!(a.slice(s![-8]), Err(Error::InvalidArgument { .. })),
        "s![-8] on 7 rows must fail"
    );
    ensure!(
        matches!(a.slice(s![..;0]), Err(Error::InvalidArgument { .. })),
        "step 0 must fail"
    );
    ensure!(
        matches!(a.slice(s![1, 2, 3]), Err(Error::InvalidArgument { .. })),
        "3 indices on 2-d must fail"
    );
    Ok(())
}

fn view_negative_steps<T: TElem>(dev: &Device, rng: &mut Rng) -> TResult {
    let h = HostNd::<T>::random(rng, &[7, 9]);
    let a = h.upload(dev)?;
    let v = a.slice(s![..;-1, 1..;-2])?;
    ensure!(v.shares_memory_with(&a), "a slice must be a view");
    ensure!(
        v.strides()[0] < 0 && v.strides()[1] < 0,
        "strides {:?} should be negative",
        v.strides()
    );
    check_array(
        "s![..;-1, 1..;-2]",
        &v,
        &h.slice(&[(None, None, -1), (Some(1), None, -2)]),
        0.0,
    )?;
    check_array(
        "s![5..1;-1, ..;-3]",
        &a.slice(s![5..1;-1, ..;-3])?,
        &h.slice(&[(Some(5), Some(1), -1), (None, None, -3)]),
        0.0,
    )?;
    check_array(
        "s![-2..;-1, -1..-9;-4]",
        &a.slice(s![-2..;-1, -1..-9;-4])?,
        &h.slice(&[(Some(-2), None, -1), (Some(-1), Some(-9), -4)]),
        0.0,
    )?;
    check_array(
        "s![1..5;-1, ..]",
        &a.slice(s![1..5;-1, ..])?,
        &h.slice(&[(Some(1), Some(5), -1), (None, None, 1)]),
        0.0,
    )?;
    // Slices of slices, and of a transposed view.
    let vv = v.slice(s![1..;2, ..;-1])?;
    let hv = h.slice(&[(None, None, -1), (Some(1), None, -2)]);
    check_array(
        "slice of a slice",
        &vv,
        &hv.slice(&[(Some(1), None, 2), (None, None, -1)]),
        0.0,
    )?;
    let tv = a.t().slice(s![..;-2, 2..6])?;
    check_array(
        "slice of t()",
        &tv,
        &h.t().slice(&[(None, None, -2), (Some(2), Some(6), 1)]),
        0.0,
    )?;
    // A long reversed 1-D view.
    let h1 = HostNd::<T>::random(rng, &[100_003]);
    let r = h1.upload(dev)?.slice(s![..;-1])?;
    check_array("100003 reversed", &r, &h1.slice(&[(None, None, -1)]), 0.0)?;
    Ok(())
}

fn view_broadcast<T: TElem>(dev: &Device, rng: &mut Rng) -> TResult {
    let h = HostNd::<T>::random(rng, &[3, 1]);
    let a = h.upload(dev)?;
    let b = a.broadcast_to(&[2, 3, 4])?;
    ensure!(b.shares_memory_with(&a), "broadcast_to must be a view");
    ensure!(
        b.strides()[0] == 0 && b.strides()[2] == 0,
        "broadcast strides {:?}",
        b.strides()
    );
    check_array("(3,1) -> (2,3,4)", &b, &h.broadcast_to(&[2, 3, 4]), 0.0)?;
    let z = HostNd::<T>::random(rng, &[]);
    check_array(
        "() -> (5,)",
        &z.upload(dev)?.broadcast_to(&[5])?,
        &z.broadcast_to(&[5]),
        0.0,
    )?;
    let r = HostNd::<T>::random(rng, &[4]);
    check_array(
        "(4,) -> (1000,4)",
        &r.upload(dev)?.broadcast_to(&[1000, 4])?,
        &r.broadcast_to(&[1000, 4]),
        0.0,
    )?;
    check_array(
        "(3,1) -> (3,0)",
        &a.broadcast_to(&[3, 0])?,
        &h.broadcast_to(&[3, 0]),
        0.0,
    )?;
    // A transposed view broadcast further.
    let m = HostNd::<T>::random(rng, &[1, 5]);
    let mt = m.upload(dev)?.t(); // (5, 1)
    check_array(
        "t() -> (2,5,6)",
        &mt.broadcast_to(&[2, 5, 6])?,
        &m.t().broadcast_to(&[2, 5, 6]),
        0.0,
    )?;
    for bad in [&[3usize, 2, 2][..], &[4, 1], &[1]] {
        match a.broadcast_to(bad) {
            Err(Error::Broadcast { lhs, rhs, .. }) => {
                ensure!(
                    lhs == [3, 1] && rhs == bad,
                    "Broadcast error names {lhs:?} and {rhs:?}"
                )
            }
            other => return Err(format!("broadcast_to({bad:?}) gave {other:?}").into()),
        }
    }
    Ok(())
}

fn view_reshape<T: TElem>(dev: &Device, rng: &mut Rng) -> TResult {
    let h = HostNd::<T>::random(rng, &[4, 6]);
    let a = h.upload(dev)?;
    // A view: contiguous data.
    let r = a.reshape(&[2, -1, 3])?;
    ensure!(
        r.shape() == [2, 4, 3] && r.shares_memory_with(&a),
        "reshape of contiguous data must be a view"
    );
    check_array("reshape [2,-1,3]", &r, &h.reshape(&[2, 4, 3]), 0.0)?;
    // A copy: transposed data flattened.
    let f = a.t().reshape(&[-1])?;
    ensure!(
        !f.shares_memory_with(&a) && f.is_contiguous(),
        "flattening t() needs a contiguous copy"
    );
    check_array("t().reshape([-1])", &f, &h.t().reshape(&[24]), 0.0)?;
    // A view again: splitting an axis of the transposed data.
    let s3 = a.t().reshape(&[3, 2, 4])?;
    ensure!(
        s3.shares_memory_with(&a),
        "splitting an axis of t() is a view"
    );
    check_array("t().reshape([3,2,4])", &s3, &h.t().reshape(&[3, 2, 4]), 0.0)?;
    // Reversed data: a copy, then reshaped.
    let rv = a.slice(s![..;-1, ..])?.reshape(&[8, 3])?;
    check_array(
        "reversed rows reshaped",
        &rv,
        &h.slice(&[(None, None, -1), (None, None, 1)])
            .reshape(&[8, 3]),
        0.0,
    )?;
    // Empty and 0-d.
    let e = DeviceArray::<T>::from_host(dev, &[], &[0, 3])?;
    ensure!(e.reshape(&[3, 0, 1])?.shape() == [3, 0, 1], "empty reshape");
    ensure!(e.reshape(&[-1])?.shape() == [0], "empty reshape to -1");
    ensure!(
        e.t().reshape(&[-1, 3])?.to_host()?.is_empty(),
        "empty transposed reshape"
    );
    let one = HostNd::<T>::random(rng, &[1, 1]);
    check_array(
        "(1,1) -> ()",
        &one.upload(dev)?.reshape(&[])?,
        &one.reshape(&[]),
        0.0,
    )?;
    // Errors.
    ensure!(
        matches!(a.reshape(&[5, -1]), Err(Error::ShapeMismatch { .. })),
        "reshape 24 -> (5,-1) must fail"
    );
    ensure!(
        matches!(a.reshape(&[7, 3]), Err(Error::ShapeMismatch { .. })),
        "reshape 24 -> (7,3) must fail"
    );
    ensure!(
        matches!(a.reshape(&[-1, -1]), Err(Error::InvalidArgument { .. })),
        "two -1 must fail"
    );
    ensure!(
        matches!(a.reshape(&[-2, 12]), Err(Error::InvalidArgument { .. })),
        "-2 must fail"
    );
    Ok(())
}

fn view_squeeze_expand<T: TElem>(dev: &Device, rng: &mut Rng) -> TResult {
    let h = HostNd::<T>::random(rng, &[1, 3, 1, 5]);
    let a = h.upload(dev)?;
    check_array("squeeze", &a.squeeze(), &h.reshape(&[3, 5]), 0.0)?;
    check_array(
        "squeeze_axis(0)",
        &a.squeeze_axis(0)?,
        &h.reshape(&[3, 1, 5]),
        0.0,
    )?;
    check_array(
        "squeeze_axis(-2)",
        &a.squeeze_axis(-2)?,
        &h.reshape(&[1, 3, 5]),
        0.0,
    )?;
    ensure!(
        matches!(a.squeeze_axis(1), Err(Error::InvalidArgument { .. })),
        "squeeze of extent 3 must fail"
    );
    ensure!(
        matches!(a.squeeze_axis(4), Err(Error::AxisOutOfRange { .. })),
        "squeeze axis 4 must fail"
    );
    let m = HostNd::<T>::random(rng, &[3, 5]);
    let t = m.upload(dev)?.t();
    let e = t.expand_dims(1)?;
    ensure!(
        e.shape() == [5, 1, 3] && e.shares_memory_with(&t),
        "expand_dims(1) of t(): {:?}",
        e.shape()
    );
    check_array("t().expand_dims(1)", &e, &m.t().reshape(&[5, 1, 3]), 0.0)?;
    check_array(
        "t().expand_dims(-1)",
        &t.expand_dims(-1)?,
        &m.t().reshape(&[5, 3, 1]),
        0.0,
    )?;
    check_array(
        "t().expand_dims(0)",
        &t.expand_dims(0)?,
        &m.t().reshape(&[1, 5, 3]),
        0.0,
    )?;
    check_array(
        "expand then squeeze",
        &t.expand_dims(2)?.squeeze(),
        &m.t(),
        0.0,
    )?;
    ensure!(
        matches!(t.expand_dims(4), Err(Error::AxisOutOfRange { .. })),
        "expand_dims(4) of 2-d must fail"
    );
    Ok(())
}

fn errors<T: TElem>(dev: &Device, rng: &mut Rng) -> TResult {
    let data: Vec<T> = rng.vec(5);
    match DeviceArray::from_host(dev, &data, &[2, 3]) {
        Err(Error::HostLength {
            expected: 6,
            got: 5,
            op,
        }) => {
            let msg = DeviceArray::from_host(dev, &data, &[2, 3])
                .unwrap_err()
                .to_string();
            ensure!(
                msg.contains('6') && msg.contains('5') && msg.contains(op),
                "HostLength message: {msg}"
            );
        }
        other => return Err(format!("from_host with 5 values for (2,3) gave {other:?}").into()),
    }
    let a = DeviceArray::from_host(dev, &rng.vec::<T>(6), &[2, 3])?;
    let mut short = vec![T::ZERO; 5];
    ensure!(
        matches!(
            a.to_host_into(&mut short),
            Err(Error::HostLength {
                expected: 6,
                got: 5,
                ..
            })
        ),
        "to_host_into a 5-element buffer must be a HostLength error"
    );
    let mut long = vec![T::ZERO; 7];
    ensure!(
        matches!(
            a.t().to_host_into(&mut long),
            Err(Error::HostLength {
                expected: 6,
                got: 7,
                ..
            })
        ),
        "to_host_into a 7-element buffer must be a HostLength error"
    );
    Ok(())
}

fn register<T: TElem>(out: &mut Vec<Trial>) {
    let d = dname::<T>();
    add_gpu(
        out,
        format!("transfer/roundtrip/{d}/sizes_0_1_7_1000_4099_100003"),
        roundtrip::<T>,
    );
    add_gpu(
        out,
        format!("transfer/roundtrip/{d}/shapes_0d_0_2x0x3_3x5_4x5x6"),
        shapes::<T>,
    );
    add_gpu(
        out,
        format!("transfer/to_scalar/{d}/0d_1x1x1_views"),
        scalar::<T>,
    );
    add_gpu(
        out,
        format!("transfer/view/{d}/3x5_transpose"),
        view_transpose::<T>,
    );
    add_gpu(
        out,
        format!("transfer/view/{d}/4x5x6_permute"),
        view_permute::<T>,
    );
    add_gpu(
        out,
        format!("transfer/view/{d}/7x9_slice_steps"),
        view_slice_steps::<T>,
    );
    add_gpu(
        out,
        format!("transfer/view/{d}/7x9_neg_stride"),
        view_negative_steps::<T>,
    );
    add_gpu(
        out,
        format!("transfer/view/{d}/3x1_broadcast_to"),
        view_broadcast::<T>,
    );
    add_gpu(
        out,
        format!("transfer/view/{d}/4x6_reshape_view_and_copy"),
        view_reshape::<T>,
    );
    add_gpu(
        out,
        format!("transfer/view/{d}/squeeze_expand_dims"),
        view_squeeze_expand::<T>,
    );
    add_gpu(out, format!("transfer/errors/{d}/host_length"), errors::<T>);
}

/// Large transfers started from many rayon tasks at once. The staged copy runs on rayon's
/// pool too, so a task waiting for its pieces may pick up another task's transfer on the
/// same thread (work stealing); that one must not wait for the staging buffers its own
/// thread holds.
fn inside_rayon_tasks(dev: &Device, rng: &mut Rng) -> TResult {
    use rayon::prelude::*;
    let n = 2_097_169usize; // 8 MiB of f32 each: staged
    let data: Vec<Vec<f32>> = (0..64)
        .map(|_| (0..n).map(|_| rng.range(-1.0, 1.0) as f32).collect())
        .collect();
    let back: Vec<Result<Vec<f32>, String>> = data
        .par_iter()
        .map(|v| {
            let a = DeviceArray::from_slice(dev, v).map_err(|e| e.to_string())?;
            (&a * 2.0f32)
                .and_then(|b| b.to_host())
                .map_err(|e| e.to_string())
        })
        .collect();
    for (k, (v, b)) in data.iter().zip(back).enumerate() {
        let b = b?;
        ensure!(b.len() == n, "task {k}: {} elements back", b.len());
        if let Some(i) = (0..n).find(|&i| b[i] != 2.0 * v[i]) {
            return Err(format!("task {k}, element {i}: {} vs {}", b[i], 2.0 * v[i]).into());
        }
    }
    Ok(())
}

/// Staged transfers from a thread outside rayon's pool and from rayon tasks at the same
/// time. The outside thread's host copy runs on the pool, so pool threads must never block
/// waiting for the staging buffers it holds (they copy without staging instead); before
/// that rule, this deadlocked.
fn staged_inside_and_outside_the_pool(dev: &Device, rng: &mut Rng) -> TResult {
    use rayon::prelude::*;
    let outside: Vec<u8> = rng.vec((32 << 20) + 7);
    let tasks: Vec<Vec<f32>> = (0..32)
        .map(|_| {
            (0..(2 << 20) + 3)
                .map(|_| rng.range(-1.0, 1.0) as f32)
                .collect()
        })
        .collect();
    std::thread::scope(|scope| -> TResult {
        let out = scope.spawn(|| -> Result<(), String> {
            for round in 0..8 {
                let a = DeviceArray::from_slice(dev, &outside).map_err(|e| e.to_string())?;
                let back = a.to_host().map_err(|e| e.to_string())?;
                if back != outside {
                    return Err(format!("outside thread, round {round}: round trip differs"));
                }
            }
            Ok(())
        });
        let back: Vec<Result<Vec<f32>, String>> = tasks
            .par_iter()
            .map(|v| {
                DeviceArray::from_slice(dev, v)
                    .and_then(|a| a.to_host())
                    .map_err(|e| e.to_string())
            })
            .collect();
        for (k, (v, b)) in tasks.iter().zip(back).enumerate() {
            ensure!(b? == *v, "task {k}: round trip differs");
        }
        out.join().map_err(|_| "the outside thread panicked")??;
        Ok(())
    })
}

/// Pageable transfers through the staging slots in pieces of every size class: just past
/// the staging threshold, mid-size (several pieces of a quarter each) and past a slot,
/// with odd byte counts so that the last piece is short.
fn staged_pieces(dev: &Device, rng: &mut Rng) -> TResult {
    for n in [
        (4usize << 20) + 3,
        (16 << 20) + 17,
        (70 << 20) + 5,
        (129 << 20) + 1,
    ] {
        let data: Vec<u8> = rng.vec(n);
        let a = DeviceArray::from_slice(dev, &data)?;
        let back = a.to_host()?;
        ensure!(back == data, "round trip of {n} bytes differs");
        let mut into = vec![0u8; n];
        a.to_host_into(&mut into)?;
        ensure!(into == data, "to_host_into of {n} bytes differs");
    }
    Ok(())
}

pub fn trials(out: &mut Vec<Trial>) {
    each_dtype!(register(out));
    add_gpu(
        out,
        "transfer/staged_pieces/u8/4M_to_129M".into(),
        staged_pieces,
    );
    add_gpu(
        out,
        "transfer/inside_rayon_tasks/f32/64x2097169".into(),
        inside_rayon_tasks,
    );
    add_gpu(
        out,
        "transfer/staged_inside_and_outside_the_pool/u8/32M_and_32x8M".into(),
        staged_inside_and_outside_the_pool,
    );
}
