//! The Cholesky factorisation: [`cholesky`] (and [`cholesky_ex`]) and its run on
//! cuSOLVER (`Xpotrf`, `potrfBatched`).

use super::common::{
    alloc, argument_error, first_failure, info_array, pointer_array, square, wrap, Out, Stack,
    TRIU_BODY,
};
use super::cusolver::{with_solver, SolverElement};
use crate::array::DeviceArray;
use crate::device::Device;
use crate::kernels::abi::Scalar;
use crate::ops::Operand;
use crate::shape::Layout;
use crate::{Error, Result};
use std::borrow::Cow;
use std::sync::Arc;

/// The lower Cholesky factor `L` of each symmetric (real) or Hermitian (complex)
/// positive-definite matrix of `a` (NumPy's `linalg.cholesky`): `a = L Lᴴ`, a
/// column-major view, exact zeros above the diagonal. Only the lower triangle of `a` is
/// read, as NumPy.
///
/// ```no_run
/// use cuarray::{Device, DeviceArray, linalg};
/// let dev = Device::new(0)?;
/// let a = DeviceArray::from_host(&dev, &[4.0f64, 2.0, 2.0, 5.0], &[2, 2])?;
/// let l = linalg::cholesky(&a)?.to_host()?; // a = l @ l.T
/// assert!(l.iter().zip([2.0, 0.0, 1.0, 2.0]).all(|(v, w)| (v - w).abs() < 1e-12));
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::NotPositiveDefinite`] naming the batch index and the order of the first
/// leading minor that is not positive (one read of the info array: this waits for the
/// GPU; [`cholesky_ex`] does not); [`Error::InvalidArgument`] when `a` is not a stack of
/// square matrices.
pub fn cholesky<T: SolverElement>(a: &DeviceArray<T>) -> Result<DeviceArray<T>> {
    let _range = crate::profile::range("cholesky");
    let (l, info) = cholesky_ex(a)?;
    match first_failure(&info)? {
        None => Ok(l),
        Some((batch, v)) if v > 0 => Err(Error::NotPositiveDefinite {
            op: "cholesky",
            batch,
            minor: v as usize,
        }),
        Some((_, v)) => Err(argument_error("cholesky", v)),
    }
}

/// [`cholesky`] without the check: the factor and the info array (`i32`, the batch
/// shape; `i > 0`: the leading minor of order `i` is not positive and the factor is not
/// complete). Never waits for the GPU.
///
/// ```no_run
/// use cuarray::{Device, DeviceArray, linalg};
/// let dev = Device::new(0)?;
/// let a = DeviceArray::from_host(&dev, &[1.0f64, 2.0, 2.0, 1.0], &[2, 2])?; // indefinite
/// let (_l, info) = linalg::cholesky_ex(&a)?;
/// assert_eq!(info.to_host()?, vec![2]); // the leading minor of order 2 is not positive
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// As [`cholesky`], except [`Error::NotPositiveDefinite`].
pub fn cholesky_ex<T: SolverElement>(
    a: &DeviceArray<T>,
) -> Result<(DeviceArray<T>, DeviceArray<i32>)> {
    let (batch, n) = square("cholesky", a.shape())?;
    let (l, info) = run_cholesky::<T>(a.device(), &a.operand()?, &batch, n)?;
    Ok((wrap(l), wrap(info)))
}

/// The lower Cholesky factors of the matrices of `a` (shape `(batch..., n, n)`, lower
/// triangles read): column-major views with exact zeros above the diagonal, and the info
/// array.
///
/// The copy writes the lower triangle in Fortran order and zeros elsewhere, and `potrf`
/// factors the lower triangle (`potrfBatched` supports only that one, and `Xpotrf` runs
/// twice as fast on it as on the upper: 2.2 against 4.9 ms at 4096 in f64, which is the
/// gap between PyTorch's Cholesky and CuPy's).
pub(crate) fn run_cholesky<T: SolverElement>(
    device: &Device,
    a: &Operand<'_>,
    batch: &[usize],
    n: usize,
) -> Result<(Out, Out)> {
    let count: usize = batch.iter().product();
    let size = std::mem::size_of::<T>();
    let stack = Stack::new(batch, n, n, true);
    let l = alloc(device, stack.len(), T::DTYPE)?;
    let layout = stack.layout();
    if stack.is_empty() {
        return Ok((
            Out {
                buf: Arc::new(l),
                layout,
            },
            info_array(device, batch, true)?,
        ));
    }
    // Column-major L-with-zeros is, read in C order, the upper triangle of `aᵀ`: a C-order
    // write (so that the kernel's index `i` is the row-major position) from the swapped
    // view of `a`.
    let c = Stack::new(batch, n, n, false).layout();
    let dst = Operand::new(&l, Cow::Borrowed(&c), T::DTYPE)?;
    let src = a.with_layout(swap_last(a.layout()))?;
    crate::ops::elementwise::run(
        device,
        "triu",
        TRIU_BODY,
        &[dst],
        &[src],
        &[Scalar::of(n as i64), Scalar::of(n as i64)],
    )?;
    let info = info_array(device, batch, false)?;
    if count > 1 {
        let ptrs = pointer_array(device, l.device_ptr(), n * n * size, count)?;
        with_solver(device, |dn| {
            // SAFETY: `ptrs` addresses the `count` n x n matrices of `l`; `info` holds
            // count words.
            unsafe {
                dn.potrf_batched::<T>(false, n, ptrs.device_ptr(), info.buf.device_ptr(), count)
            }
        })?;
    } else {
        with_solver(device, |dn| {
            let mut ws = dn.potrf_workspace::<T>(false, n, l.device_ptr())?;
            // SAFETY: `l` holds the n x n matrix, `info` one word.
            unsafe { dn.potrf::<T>(false, n, l.device_ptr(), &mut ws, info.buf.device_ptr()) }
        })?;
    }
    Ok((
        Out {
            buf: Arc::new(l),
            layout,
        },
        info,
    ))
}

/// `layout` with its last two axes swapped (a transposed view of each matrix).
fn swap_last(layout: &Layout) -> Layout {
    let d = layout.ndim();
    let mut perm: Vec<usize> = (0..d).collect();
    perm.swap(d - 1, d - 2);
    let shape = perm.iter().map(|&k| layout.shape()[k]).collect();
    let strides = perm.iter().map(|&k| layout.strides()[k]).collect();
    Layout::from_parts(shape, strides, layout.offset())
}
