//! Manipulation views and stacks (diagonal, trace, swapaxes, moveaxis, rot90, flips,
//! sliding windows, as_strided, atleast, broadcast_arrays, splits, stacks) against host
//! references written from NumPy's definitions.

use crate::common::{add_gpu, ensure, Rng, TResult};
use crate::numpy::indices;
use cuarray::{Device, DeviceArray};
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
}
