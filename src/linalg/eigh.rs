//! Symmetric eigenvalue problems: [`eigh`], [`eigvalsh`] and their run on cuSOLVER
//! (`Xsyevd`, `syevjBatched`).

use super::common::{
    alloc, check_converged, copy_stack, info_array, square, wrap, Out, Stack, SMALL_N,
};
use super::cusolver::{with_solver, SolverElement};
use crate::array::DeviceArray;
use crate::device::Device;
use crate::element::Element;
use crate::ops::Operand;
use crate::shape::Layout;
#[cfg(doc)]
use crate::Error;
use crate::Result;
use std::sync::Arc;

fn eigh_impl<T: SolverElement>(
    op: &'static str,
    a: &DeviceArray<T>,
    vectors: bool,
) -> Result<(DeviceArray<T::Spectral>, DeviceArray<T>)> {
    let (batch, n) = square(op, a.shape())?;
    let (w, v, info) = run_eigh::<T>(a.device(), &a.operand()?, &batch, n, vectors)?;
    check_converged(op, &wrap(info))?;
    Ok((wrap(w), wrap(v)))
}

/// The eigenvalues (ascending) and eigenvectors of each symmetric (real) or Hermitian
/// (complex) matrix of `a` (NumPy's `linalg.eigh`, `UPLO='L'`: only the lower triangle is
/// read): `w` `(..., n)`, real ([`SolverElement::Spectral`]: `f32` for
/// [`Complex32`](crate::Complex32)), and `v` `(..., n, n)` whose column `j` is the
/// eigenvector of `w[j]`, so that `a = v diag(w) vᴴ`. Divide and conquer (`syevd`,
/// `heevd`); the Jacobi method for many matrices of at most 32 x 32 (`syevjBatched`,
/// `heevjBatched`). Reads the info array (waits for the GPU once).
///
/// ```no_run
/// use cuarray::{Device, DeviceArray, linalg};
/// let dev = Device::new(0)?;
/// let a = DeviceArray::from_host(&dev, &[2.0f64, 1.0, 1.0, 2.0], &[2, 2])?;
/// let (w, v) = linalg::eigh(&a)?; // a @ v = v * w, ascending w
/// assert!(w.to_host()?.iter().zip([1.0, 3.0]).all(|(x, y)| (x - y).abs() < 1e-12));
/// assert_eq!(v.shape(), &[2, 2]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::NoConvergence`] (NaN or infinite input); [`Error::InvalidArgument`] when `a`
/// is not a stack of square matrices.
pub fn eigh<T: SolverElement>(
    a: &DeviceArray<T>,
) -> Result<(DeviceArray<T::Spectral>, DeviceArray<T>)> {
    let _range = crate::profile::range("eigh");
    eigh_impl("eigh", a, true)
}

/// The eigenvalues of each symmetric or Hermitian matrix of `a`, ascending and real
/// (NumPy's `linalg.eigvalsh`): [`eigh`] without the vectors.
///
/// ```no_run
/// use cuarray::{Device, DeviceArray, linalg};
/// let dev = Device::new(0)?;
/// let a = DeviceArray::from_host(&dev, &[2.0f64, 1.0, 1.0, 2.0], &[2, 2])?;
/// let w = linalg::eigvalsh(&a)?.to_host()?;
/// assert!(w.iter().zip([1.0, 3.0]).all(|(x, y)| (x - y).abs() < 1e-12));
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// As [`eigh`].
pub fn eigvalsh<T: SolverElement>(a: &DeviceArray<T>) -> Result<DeviceArray<T::Spectral>> {
    Ok(eigh_impl("eigvalsh", a, false)?.0)
}

/// Eigenvalues (ascending, `(batch..., n)`) and, with `vectors`, eigenvectors (in the
/// columns; column-major view) of the symmetric matrices of `a`, read from their lower
/// triangles (NumPy's `UPLO='L'`), and the info array.
pub(crate) fn run_eigh<T: SolverElement>(
    device: &Device,
    a: &Operand<'_>,
    batch: &[usize],
    n: usize,
    vectors: bool,
) -> Result<(Out, Out, Out)> {
    let count: usize = batch.iter().product();
    let (size, wsize) = (std::mem::size_of::<T>(), std::mem::size_of::<T::Spectral>());
    // A in Fortran order, its lower triangle read (as PyTorch; the upper triangle of a
    // C-order copy is no faster).
    let stack = Stack::new(batch, n, n, true);
    let work = copy_stack(device, a, &stack)?;
    let v_layout = Stack::new(batch, n, n, true).layout();
    let mut w_shape = batch.to_vec();
    w_shape.push(n);
    let w = alloc(device, count * n, <T::Spectral as Element>::DTYPE)?;
    let empty = count * n == 0;
    let info = info_array(device, batch, empty)?;
    if !empty {
        if count > 1 && n <= SMALL_N {
            with_solver(device, |dn| {
                // SAFETY: `work` holds count n x n matrices, `w` count * n values, `info`
                // count words.
                unsafe {
                    dn.syevj_batched::<T>(
                        vectors,
                        false,
                        n,
                        work.device_ptr(),
                        w.device_ptr(),
                        info.buf.device_ptr(),
                        count,
                    )
                }
            })?;
        } else {
            with_solver(device, |dn| {
                let mut ws = dn.syevd_workspace::<T>(
                    (vectors, false),
                    n,
                    work.device_ptr(),
                    w.device_ptr(),
                )?;
                for i in 0..count {
                    // SAFETY: matrix i of `work`, its n (real) eigenvalues and info word.
                    unsafe {
                        dn.syevd::<T>(
                            vectors,
                            false,
                            n,
                            work.device_ptr() + (i * n * n * size) as u64,
                            w.device_ptr() + (i * n * wsize) as u64,
                            &mut ws,
                            info.buf.device_ptr() + (i * 4) as u64,
                        )?;
                    }
                }
                Ok(())
            })?;
        }
    }
    Ok((
        Out {
            buf: Arc::new(w),
            layout: Layout::contiguous(&w_shape),
        },
        Out {
            buf: Arc::new(work),
            layout: v_layout,
        },
        info,
    ))
}
