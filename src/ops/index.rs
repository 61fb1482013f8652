//! Advanced indexing on the gather family: gathers and scatters by up to four index arrays
//! over a strided view (NumPy's `a[i, 1:5, j]`), with a row path that moves whole
//! contiguous rows as 16-byte words when the layouts allow it.

use super::Operand;
use crate::kernels::cache::kernel;
use crate::kernels::family::gather::{word_dtype, GatherKernel, GatherSpec, MAX_INDEX_ARRAYS};
use crate::kernels::{IndexWidth, MAX_DIMS};
use crate::ops::launch::{grid_for, index_width};
use crate::shape::collapse;
use crate::{Device, Error, Result};

/// One planned gather or scatter: the collapsed iteration space, the strides of the data
/// operands (in words of `vec` elements) and of the index arrays, and the indexed axes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct IndexRun {
    /// Collapsed extents (the last one in words).
    pub(crate) dims: Vec<usize>,
    /// Strides over `dims`: the data operands' (in words), then the index arrays'.
    pub(crate) strides: Vec<Vec<isize>>,
    /// Elements per word (1 without the row path).
    pub(crate) vec: usize,
    /// Each index array's (extent, stride in words) in the indexed operand.
    pub(crate) axes: Vec<(usize, isize)>,
    /// Index width of the kernel.
    pub(crate) index: IndexWidth,
    /// Positions (words) of the iteration space.
    pub(crate) n: usize,
}

/// Plans a gather or scatter over `shape`: `data` holds the strides (elements) of the
/// two data operands (gather: out, source; scatter: destination, values) and the element
/// offset of each of their first elements in its buffer, `idx` the index arrays' strides,
/// `axes` each index array's (extent, stride) in the indexed operand, `size` the element
/// size. With `rows`, whole contiguous rows move as words of up to 16 bytes when every
/// data stride, offset and indexed stride is a multiple of the word's elements.
pub(crate) fn plan(
    op: &'static str,
    shape: &[usize],
    data: [(&[isize], usize); 2],
    idx: &[&[isize]],
    axes: &[(usize, isize)],
    size: usize,
    rows: bool,
) -> Result<IndexRun> {
    if idx.is_empty() || idx.len() > MAX_INDEX_ARRAYS {
        return Err(Error::invalid(
            op,
            format!(
                "{} index arrays: at most {MAX_INDEX_ARRAYS} are supported (a mask over k axes counts k)",
                idx.len()
            ),
        ));
    }
    let mut all: Vec<&[isize]> = vec![data[0].0, data[1].0];
    all.extend_from_slice(idx);
    let c = collapse(shape, &all);
    let (mut dims, mut strides) = if c.shape.is_empty() {
        (vec![1], vec![vec![0]; all.len()])
    } else {
        (c.shape, c.strides)
    };
    if dims.len() > MAX_DIMS {
        return Err(Error::invalid(
            op,
            "too many dimensions after merging (make the arrays contiguous first)",
        ));
    }
    // The row path: the innermost collapsed dimension is contiguous in both data operands
    // and not walked by any index array.
    let mut vec = 1usize;
    let last = dims.len() - 1;
    if rows
        && strides[0][last] == 1
        && strides[1][last] == 1
        && strides[2..].iter().all(|s| s[last] == 0)
    {
        let mut v = 16 / size;
        while v > 1 {
            let fits = dims[last] % v == 0
                && data.iter().all(|(_, off)| off % v == 0)
                && strides[..2]
                    .iter()
                    .all(|s| s[..last].iter().all(|&x| x % v as isize == 0))
                && axes.iter().all(|&(_, st)| st % v as isize == 0);
            if fits {
                break;
            }
            v /= 2;
        }
        vec = v.max(1);
    }
    let axes: Vec<(usize, isize)> = if vec > 1 {
        dims[last] /= vec;
        for s in &mut strides[..2] {
            for (k, x) in s.iter_mut().enumerate() {
                if k < last {
                    *x /= vec as isize;
                }
            }
        }
        axes.iter().map(|&(e, st)| (e, st / vec as isize)).collect()
    } else {
        axes.to_vec()
    };
    let n: usize = dims.iter().product();
    let reach = strides
        .iter()
        .map(|s| {
            dims.iter()
                .zip(s)
                .map(|(&e, &st)| e.saturating_sub(1) * st.unsigned_abs())
                .sum::<usize>()
        })
        .max()
        .unwrap_or(0);
    let extra: usize = axes.iter().map(|&(e, st)| e * st.unsigned_abs()).sum();
    Ok(IndexRun {
        dims,
        strides,
        vec,
        axes,
        index: index_width(n, reach + extra),
        n,
    })
}

/// Runs a planned gather (`data` = `[out, a]`) or scatter (`data` = `[a, vals]`, `add`
/// for atomic adds in the element type `dtype`). The data operands are in words of
/// `run.vec` elements of `size` bytes (their layouts as `run` planned them).
#[allow(clippy::too_many_arguments)]
pub(crate) fn run(
    device: &Device,
    op: &'static str,
    run: &IndexRun,
    data: [&Operand<'_>; 2],
    idx: &[Operand<'_>],
    gather: bool,
    add: bool,
    dtype: crate::DType,
) -> Result<()> {
    let _range = crate::profile::range(op);
    if run.n == 0 || run.dims.contains(&0) {
        return Ok(());
    }
    let k = idx.len() as u8;
    let (kernel_kind, dt) = if gather {
        (
            GatherKernel::GatherN { k },
            word_dtype(dtype.size() * run.vec),
        )
    } else if add {
        super::real_only(op, &[dtype])?;
        (GatherKernel::ScatterN { k, add: true }, dtype)
    } else {
        (
            GatherKernel::ScatterN { k, add: false },
            word_dtype(dtype.size() * run.vec),
        )
    };
    let spec = GatherSpec {
        kernel: kernel_kind,
        dtype: dt,
        nd: run.dims.len() as u8,
        index: run.index,
    };
    let f = kernel(device, &spec)?;
    let rec = device.error_record(op)?;
    let per = if gather { 4 } else { 1 };
    let grid = grid_for(
        run.n.div_ceil(per),
        device.multiprocessor_count() * f.blocks_per_sm,
    );
    // The wrapper's Indexer order: the indexed operand (a gather's source, a scatter's
    // destination), the index arrays, then (scatters) the values. A gather's output is
    // C-contiguous over the iteration space and has no strides there.
    let mut strides: Vec<Vec<isize>> = vec![run.strides[if gather { 1 } else { 0 }].clone()];
    strides.extend(run.strides[2..].iter().cloned());
    if !gather {
        strides.push(run.strides[1].clone());
    }
    // SAFETY: `f` is this spec's kernel (looked up above); `run` was planned from these
    // operands' layouts (`plan_index` over the source view, the index arrays broadcast to
    // the result), so its dims, strides and axes describe views inside their buffers, and
    // `rec` comes from `error_record`.
    unsafe {
        spec.launch_n(
            device,
            &f,
            grid,
            data,
            idx,
            (&run.dims, &strides),
            run.n,
            &run.axes,
            rec,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_path_words() {
        // a[idx] of a (1000, 64) f32 array with 100 indices: rows of 64 floats, 16-byte
        // words of 4 floats.
        let r = plan(
            "index",
            &[100, 64],
            [(&[64, 1], 0), (&[0, 1], 0)],
            &[&[1, 0]],
            &[(1000, 64)],
            4,
            true,
        )
        .unwrap();
        assert_eq!(r.vec, 4);
        assert_eq!(r.dims, vec![100, 16]);
        assert_eq!(r.strides, vec![vec![16, 1], vec![0, 1], vec![1, 0]]);
        assert_eq!(r.axes, vec![(1000, 16)]);
        // Rows of 6 f32: words of 2 floats.
        let r = plan(
            "index",
            &[100, 6],
            [(&[6, 1], 0), (&[0, 1], 0)],
            &[&[1, 0]],
            &[(1000, 6)],
            4,
            true,
        )
        .unwrap();
        assert_eq!((r.vec, r.axes[0].1), (2, 3));
        // An odd offset of the source: no words.
        let r = plan(
            "index",
            &[100, 64],
            [(&[64, 1], 0), (&[0, 1], 1)],
            &[&[1, 0]],
            &[(1000, 64)],
            4,
            true,
        )
        .unwrap();
        assert_eq!(r.vec, 1);
        // m[i, j]: the index arrays walk the last dimension, no row path.
        let r = plan(
            "index",
            &[1000],
            [(&[1], 0), (&[0], 0)],
            &[&[1], &[1]],
            &[(8192, 8192), (8192, 1)],
            4,
            true,
        )
        .unwrap();
        assert_eq!((r.vec, r.dims.clone()), (1, vec![1000]));
        assert!(plan("index", &[3], [(&[1], 0), (&[0], 0)], &[], &[], 4, true).is_err());
    }
}
