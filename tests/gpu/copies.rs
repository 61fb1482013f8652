//! Device copies: copy, contiguous, assign, concatenate, stack.

use crate::common::{
    add_gpu, check_array, dname, each_dtype, ensure, indices, HostNd, Rng, TElem, TResult,
};
use cuarray::{concatenate, s, stack, Device, DeviceArray, Error};
use libtest_mimic::Trial;

type Case<T> = (String, DeviceArray<T>, HostNd<T>);

/// Strided views of several kinds with their host equivalents.
fn strided_views<T: TElem>(dev: &Device, rng: &mut Rng) -> cuarray::Result<Vec<Case<T>>> {
    let h = HostNd::<T>::random(rng, &[6, 7]);
    let a = h.upload(dev)?;
    let h4 = HostNd::<T>::random(rng, &[3, 4, 5, 6]);
    let a4 = h4.upload(dev)?;
    let h5 = HostNd::<T>::random(rng, &[2, 3, 4, 3, 2]);
    let a5 = h5.upload(dev)?;
    let h1 = HostNd::<T>::random(rng, &[100_003]);
    let a1 = h1.upload(dev)?;
    let hb = HostNd::<T>::random(rng, &[317, 331]);
    let ab = hb.upload(dev)?;
    let full = (None, None, 1);
    Ok(vec![
        ("6x7 t()".into(), a.t(), h.t()),
        (
            "6x7 s![1..;2, ..;-3]".into(),
            a.slice(s![1..;2, ..;-3])?,
            h.slice(&[(Some(1), None, 2), (None, None, -3)]),
        ),
        (
            "row 1 broadcast to (5,7)".into(),
            a.slice(s![1])?.broadcast_to(&[5, 7])?,
            h.slice(&[(Some(1), Some(2), 1), full])
                .broadcast_to(&[5, 7]),
        ),
        (
            "empty s![2..2, ..;-1]".into(),
            a.slice(s![2..2, ..;-1])?,
            h.slice(&[(Some(2), Some(2), 1), (None, None, -1)]),
        ),
        (
            "0-d s![3, 4]".into(),
            a.slice(s![3, 4])?,
            h.slice(&[(Some(3), Some(4), 1), (Some(4), Some(5), 1)])
                .reshape(&[]),
        ),
        (
            "t() expanded and broadcast to (3,7,6)".into(),
            a.t().expand_dims(0)?.broadcast_to(&[3, 7, 6])?,
            h.t().reshape(&[1, 7, 6]).broadcast_to(&[3, 7, 6]),
        ),
        (
            "3x4x5x6 permute [3,1,0,2]".into(),
            a4.permute(&[3, 1, 0, 2])?,
            h4.permute(&[3, 1, 0, 2]),
        ),
        (
            "5-d stepped s![..;-1, ..;2, 1.., ..;-2, ..]".into(),
            a5.slice(s![..;-1, ..;2, 1.., ..;-2, ..])?,
            h5.slice(&[
                (None, None, -1),
                (None, None, 2),
                (Some(1), None, 1),
                (None, None, -2),
                full,
            ]),
        ),
        (
            "6-d permuted 2x3x4x3x2 -> expand".into(),
            a5.permute(&[4, 2, 0, 3, 1])?.expand_dims(2)?,
            h5.permute(&[4, 2, 0, 3, 1]).reshape(&[2, 4, 1, 2, 3, 3]),
        ),
        (
            "100003 reversed".into(),
            a1.slice(s![..;-1])?,
            h1.slice(&[(None, None, -1)]),
        ),
        (
            "100003 every 7th from 3".into(),
            a1.slice(s![3..;7])?,
            h1.slice(&[(Some(3), None, 7)]),
        ),
        ("317x331 t()".into(), ab.t(), hb.t()),
        ("contiguous 317x331".into(), ab.clone(), hb),
    ])
}

fn copy_views<T: TElem>(dev: &Device, rng: &mut Rng) -> TResult {
    for (what, v, want) in strided_views::<T>(dev, rng)? {
        let c = v.copy()?;
        ensure!(c.is_contiguous(), "{what}: copy() is not contiguous");
        ensure!(!c.shares_memory_with(&v), "{what}: copy() shares memory");
        check_array(&format!("{what} copy()"), &c, &want, 0.0)?;
        let k = v.contiguous()?;
        ensure!(k.is_contiguous(), "{what}: contiguous() is not contiguous");
        ensure!(
            k.shares_memory_with(&v) == v.is_contiguous(),
            "{what}: contiguous() must share memory exactly when the input is contiguous"
        );
        check_array(&format!("{what} contiguous()"), &k, &want, 0.0)?;
    }
    Ok(())
}

fn independence<T: TElem>(dev: &Device, rng: &mut Rng) -> TResult {
    let h = HostNd::<T>::random(rng, &[5, 8]);
    let a = h.upload(dev)?;
    let c = a.copy()?;
    let handle = a.clone();
    let mut model = HostNd::<T>::random(rng, &[5, 8]);
    a.assign(&model.upload(dev)?)?;
    check_array("original after assign", &a, &model, 0.0)?;
    check_array("clone after assign (shared memory)", &handle, &model, 0.0)?;
    check_array("copy after assign to the original", &c, &h, 0.0)?;
    // Writes through a stepped view.
    let src = HostNd::<T>::random(rng, &[2, 8]);
    a.slice(s![1..;2, ..])?.assign(&src.upload(dev)?)?;
    for (r, row) in [1usize, 3].into_iter().enumerate() {
        for j in 0..8 {
            model.data[row * 8 + j] = src.get(&[r, j]);
        }
    }
    check_array("after assign to rows 1 and 3", &a, &model, 0.0)?;
    // A broadcast 0-d source into a column.
    let v = T::random(rng);
    a.slice(s![.., 0])?
        .assign(&DeviceArray::from_host(dev, &[v], &[])?)?;
    for i in 0..5 {
        model.data[i * 8] = v;
    }
    check_array("after assign of a 0-d value to column 0", &a, &model, 0.0)?;
    // Through a reversed view: the last row, reversed.
    let row = HostNd::<T>::random(rng, &[8]);
    a.slice(s![..;-1, ..;-1])?
        .slice(s![0])?
        .assign(&row.upload(dev)?)?;
    for j in 0..8 {
        model.data[4 * 8 + (7 - j)] = row.data[j];
    }
    check_array("after assign through a reversed view", &a, &model, 0.0)?;
    // Into a transposed view (tiles staged on the output side).
    let src = HostNd::<T>::random(rng, &[8, 5]);
    a.t().assign(&src.upload(dev)?)?;
    model = src.t();
    check_array("after assign into a.t()", &a, &model, 0.0)?;
    // A bigger transposed destination, with partial tiles.
    let big = HostNd::<T>::random(rng, &[131, 70]);
    let dst = DeviceArray::<T>::zeros(dev, &[70, 131])?;
    dst.t().assign(&big.upload(dev)?)?;
    check_array("assign into a 70x131 .t()", &dst, &big.t(), 0.0)?;
    check_array("copy unchanged at the end", &c, &h, 0.0)?;
    let bad = DeviceArray::<T>::from_host(dev, &rng.vec(3), &[3])?;
    ensure!(
        matches!(a.assign(&bad), Err(Error::Broadcast { .. })),
        "assign of (3,) into (5,8) must fail"
    );
    Ok(())
}

fn host_concat<T: Copy>(pieces: &[HostNd<T>], axis: usize) -> HostNd<T> {
    let mut shape = pieces[0].shape.clone();
    shape[axis] = pieces.iter().map(|p| p.shape[axis]).sum();
    let data = indices(&shape)
        .into_iter()
        .map(|j| {
            let mut k = j[axis];
            for p in pieces {
                if k < p.shape[axis] {
                    let mut src = j.clone();
                    src[axis] = k;
                    return p.get(&src);
                }
                k -= p.shape[axis];
            }
            unreachable!()
        })
        .collect();
    HostNd { data, shape }
}

fn concat<T: TElem>(dev: &Device, rng: &mut Rng) -> TResult {
    let base = [3usize, 4, 5];
    for axis in 0..3 {
        let mut hosts = Vec::new();
        let mut devs = Vec::new();
        for (k, extent) in [2usize, 0, 3, 1].into_iter().enumerate() {
            let mut shape = base;
            shape[axis] = extent;
            if k == 2 {
                // A transposed (non-contiguous) piece.
                let rev: Vec<usize> = shape.iter().rev().copied().collect();
                let h = HostNd::<T>::random(rng, &rev);
                devs.push(h.upload(dev)?.t());
                hosts.push(h.t());
            } else {
                let h = HostNd::<T>::random(rng, &shape);
                devs.push(h.upload(dev)?);
                hosts.push(h);
            }
        }
        let refs: Vec<&DeviceArray<T>> = devs.iter().collect();
        let want = host_concat(&hosts, axis);
        check_array(
            &format!("concatenate axis {axis}"),
            &concatenate(&refs, axis as isize)?,
            &want,
            0.0,
        )?;
        let neg = axis as isize - 3;
        check_array(
            &format!("concatenate axis {neg}"),
            &concatenate(&refs, neg)?,
            &want,
            0.0,
        )?;
    }
    // 1-D: awkward sizes, an empty piece, a single piece.
    let hs: Vec<HostNd<T>> = [7usize, 0, 4099]
        .iter()
        .map(|&n| HostNd::random(rng, &[n]))
        .collect();
    let ds: Vec<DeviceArray<T>> = hs
        .iter()
        .map(|h| h.upload(dev))
        .collect::<cuarray::Result<_>>()?;
    let refs: Vec<&DeviceArray<T>> = ds.iter().collect();
    check_array(
        "concatenate 7+0+4099",
        &concatenate(&refs, 0)?,
        &host_concat(&hs, 0),
        0.0,
    )?;
    let one = concatenate(&[&ds[2]], 0)?;
    ensure!(
        !one.shares_memory_with(&ds[2]),
        "concatenate of one array must copy"
    );
    check_array("concatenate of one", &one, &hs[2], 0.0)?;
    Ok(())
}

fn stacks<T: TElem>(dev: &Device, rng: &mut Rng) -> TResult {
    let h0 = HostNd::<T>::random(rng, &[4, 5]);
    let h1t = HostNd::<T>::random(rng, &[5, 4]);
    let h2 = HostNd::<T>::random(rng, &[4, 5]);
    let hosts = [h0.clone(), h1t.t(), h2.clone()];
    let devs = [h0.upload(dev)?, h1t.upload(dev)?.t(), h2.upload(dev)?];
    let refs: Vec<&DeviceArray<T>> = devs.iter().collect();
    for (axis, norm) in [(0isize, 0usize), (1, 1), (2, 2), (-1, 2), (-3, 0)] {
        let expanded: Vec<HostNd<T>> = hosts
            .iter()
            .map(|h| {
                let mut shape = h.shape.clone();
                shape.insert(norm, 1);
                h.reshape(&shape)
            })
            .collect();
        check_array(
            &format!("stack axis {axis}"),
            &stack(&refs, axis)?,
            &host_concat(&expanded, norm),
            0.0,
        )?;
    }
    let zs: Vec<T> = rng.vec(3);
    let zd: Vec<DeviceArray<T>> = zs
        .iter()
        .map(|&v| DeviceArray::from_host(dev, &[v], &[]))
        .collect::<cuarray::Result<_>>()?;
    let zr: Vec<&DeviceArray<T>> = zd.iter().collect();
    check_array("stack of 0-d", &stack(&zr, 0)?, &HostNd::new(zs, &[3]), 0.0)?;
    Ok(())
}

fn errors<T: TElem>(dev: &Device, rng: &mut Rng) -> TResult {
    let a = DeviceArray::<T>::from_host(dev, &rng.vec(12), &[3, 4])?;
    let b = DeviceArray::<T>::from_host(dev, &rng.vec(15), &[3, 5])?;
    let c = DeviceArray::<T>::from_host(dev, &rng.vec(4), &[4])?;
    let z = DeviceArray::<T>::from_host(dev, &rng.vec(1), &[])?;
    ensure!(
        matches!(concatenate::<T>(&[], 0), Err(Error::InvalidArgument { .. })),
        "concatenate of nothing"
    );
    ensure!(
        matches!(
            concatenate(&[&z, &z], 0),
            Err(Error::InvalidArgument { .. })
        ),
        "concatenate of 0-d"
    );
    match concatenate(&[&a, &b], 0) {
        Err(Error::ShapeMismatch { lhs, rhs, .. }) => {
            ensure!(
                lhs == [3, 4] && rhs == [3, 5],
                "ShapeMismatch names {lhs:?} and {rhs:?}"
            )
        }
        other => return Err(format!("concatenate (3,4),(3,5) on axis 0 gave {other:?}").into()),
    }
    ensure!(
        concatenate(&[&a, &b], 1)?.shape() == [3, 9],
        "concatenate (3,4),(3,5) on axis 1"
    );
    ensure!(
        matches!(concatenate(&[&a, &c], 0), Err(Error::ShapeMismatch { .. })),
        "ndim mismatch"
    );
    ensure!(
        matches!(concatenate(&[&a, &a], 2), Err(Error::AxisOutOfRange { .. })),
        "axis 2 of 2-d"
    );
    ensure!(
        matches!(
            concatenate(&[&a, &a], -3),
            Err(Error::AxisOutOfRange { .. })
        ),
        "axis -3 of 2-d"
    );
    ensure!(
        matches!(stack::<T>(&[], 0), Err(Error::InvalidArgument { .. })),
        "stack of nothing"
    );
    ensure!(
        matches!(stack(&[&a, &b], 0), Err(Error::ShapeMismatch { .. })),
        "stack of different shapes"
    );
    ensure!(
        matches!(stack(&[&a, &a], 3), Err(Error::AxisOutOfRange { .. })),
        "stack axis 3 of 2-d"
    );
    ensure!(
        stack(&[&a, &a], -3)?.shape() == [2, 3, 4],
        "stack axis -3 of 2-d"
    );
    Ok(())
}

/// `x.t().assign(&y.t())`: both operands column-major.
fn assign_transposed_both<T: TElem>(dev: &Device, rng: &mut Rng) -> TResult {
    let hy = HostNd::<T>::random(rng, &[67, 45]);
    let x = DeviceArray::<T>::zeros(dev, &[67, 45])?;
    x.t().assign(&hy.upload(dev)?.t())?;
    check_array("x.t() = y.t()", &x, &hy, 0.0)
}

fn register<T: TElem>(out: &mut Vec<Trial>) {
    let d = dname::<T>();
    add_gpu(
        out,
        format!("copy/assign/{d}/t_into_t"),
        assign_transposed_both::<T>,
    );
    add_gpu(
        out,
        format!("copy/copy_contiguous/{d}/strided_views"),
        copy_views::<T>,
    );
    add_gpu(
        out,
        format!("copy/independence/{d}/assign_through_views"),
        independence::<T>,
    );
    add_gpu(
        out,
        format!("copy/concatenate/{d}/3d_each_axis_with_empty_piece"),
        concat::<T>,
    );
    add_gpu(out, format!("copy/stack/{d}/axis_0_1_2_neg"), stacks::<T>);
}

/// Arrays of more dimensions than one kernel indexes (NumPy allows 64): a transposed
/// 17-d and a 20-d view with a reversed axis are read back, made contiguous and added to.
fn high_rank(dev: &Device, rng: &mut Rng) -> TResult {
    for ndim in [17usize, 20] {
        // No two axes of the transpose merge: 17 (20) dimensions reach the kernels.
        let shape = vec![2usize; ndim];
        let n: usize = shape.iter().product();
        let data: Vec<f32> = rng.vec(n);
        let a = DeviceArray::from_host(dev, &data, &shape)?;
        let view = a.t();
        let host = HostNd::new(data.clone(), &shape).t();
        check_array(&format!("{ndim}-d transposed to_host"), &view, &host, 0.0)?;
        let c = view.contiguous()?;
        ensure!(c.is_contiguous(), "{ndim}-d contiguous() is contiguous");
        ensure!(
            c.to_host()? == host.data,
            "{ndim}-d transposed contiguous() differs from the reference"
        );
        let sum = (&view + &c)?;
        let want: Vec<f32> = host.data.iter().map(|&x| x + x).collect();
        ensure!(sum.to_host()? == want, "{ndim}-d transposed add");
    }
    Ok(())
}

pub fn trials(out: &mut Vec<Trial>) {
    each_dtype!(register(out));
    add_gpu(
        out,
        "copy/high_rank/f32/transposed_17d_20d".into(),
        high_rank,
    );
    add_gpu(
        out,
        "copy/errors/f32/concatenate_stack".into(),
        errors::<f32>,
    );
    add_gpu(out, "copy/errors/u8/concatenate_stack".into(), errors::<u8>);
}
