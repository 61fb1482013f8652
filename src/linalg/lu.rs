//! LU factorisations as SciPy returns them: [`lu_factor`] / [`lu_solve`] (the packed
//! factors and LAPACK's pivots) and [`lu`] (the permutation and the two triangles).

use super::common::{square, wrap};
use super::cusolver::with_solver;
use super::solve::run_lu;
use super::RealElement;
use crate::array::DeviceArray;
use crate::{Error, Result};

/// SciPy's `linalg.lu_factor`: the LU factorisation with partial pivoting of each square
/// matrix of `a`, packed as LAPACK's `getrf` leaves it (`L` below the diagonal, its unit
/// diagonal implied, `U` on and above it; a column-major array), and the pivots as
/// 0-based `i64` (row `i` was swapped with row `piv[i]`, in order). A singular matrix is
/// factorised too (a zero on `U`'s diagonal), as SciPy's (which warns). Never waits for
/// the GPU.
///
/// ```no_run
/// use cuarray::{linalg, Device, DeviceArray};
/// let dev = Device::new(0)?;
/// let a = DeviceArray::from_host(&dev, &[1.0f64, 2.0, 3.0, 4.0], &[2, 2])?;
/// let (lu, piv) = linalg::lu_factor(&a)?;
/// assert_eq!(piv.to_host()?, vec![1, 1]);                   // rows 0 and 1 swapped
/// let f = lu.to_host()?;                                     // U = [[3, 4], [0, 2/3]]
/// assert_eq!(&f[..2], &[3.0, 4.0]);
/// assert!((f[2] - 1.0 / 3.0).abs() < 1e-15 && (f[3] - 2.0 / 3.0).abs() < 1e-15);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] when `a` is not a stack of square matrices.
pub fn lu_factor<T: RealElement>(a: &DeviceArray<T>) -> Result<(DeviceArray<T>, DeviceArray<i64>)> {
    let (batch, n) = square("lu_factor", a.shape())?;
    let (lu, piv, _info) = run_lu::<T>(a.device(), &a.operand()?, &batch, n)?;
    Ok((wrap::<T>(lu), wrap::<i64>(piv).sub(1)?))
}

/// SciPy's `linalg.lu_solve`: `x` with `a x = b` from the factors of [`lu_factor`] of one
/// matrix `a` (n x n); `b` is `(n,)` or `(n, k)` and the result has its shape (column-major
/// for 2-D). One cuSOLVER `getrs`.
///
/// ```no_run
/// use cuarray::{linalg, Device, DeviceArray};
/// let dev = Device::new(0)?;
/// let a = DeviceArray::from_host(&dev, &[1.0f64, 2.0, 3.0, 4.0], &[2, 2])?;
/// let f = linalg::lu_factor(&a)?;
/// let x = linalg::lu_solve(&f, &DeviceArray::from_slice(&dev, &[5.0f64, 11.0])?)?;
/// let x = x.to_host()?;
/// assert!((x[0] - 1.0).abs() < 1e-12 && (x[1] - 2.0).abs() < 1e-12);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] when the factors are not one square matrix and `n` pivots,
/// or `b` is not 1-D or 2-D; [`Error::ShapeMismatch`] when `b`'s first extent is not `n`.
pub fn lu_solve<T: RealElement>(
    factors: &(DeviceArray<T>, DeviceArray<i64>),
    b: &DeviceArray<T>,
) -> Result<DeviceArray<T>> {
    const OP: &str = "lu_solve";
    let (lu, piv) = factors;
    let device = lu.device();
    let (batch, n) = square(OP, lu.shape())?;
    if !batch.is_empty() || piv.shape() != [n] {
        return Err(Error::invalid(
            OP,
            format!(
                "the factors of one matrix: lu (n, n) and piv (n,), not {:?} and {:?}",
                lu.shape(),
                piv.shape()
            ),
        ));
    }
    if b.ndim() == 0 || b.ndim() > 2 {
        return Err(Error::invalid(
            OP,
            format!("b must be (n,) or (n, k), not shape {:?}", b.shape()),
        ));
    }
    if b.shape()[0] != n {
        return Err(Error::ShapeMismatch {
            op: OP,
            msg: "b's rows differ from the factors' order".into(),
            lhs: lu.shape().to_vec(),
            rhs: b.shape().to_vec(),
        });
    }
    let k = if b.ndim() == 2 { b.shape()[1] } else { 1 };
    // Column-major copies: lu's (its transpose, C-contiguous), x = b's (k, n) transpose.
    let lu_c = lu.t().contiguous()?;
    let piv1 = piv.add(1)?;
    let xt = b.reshape(&[n, k])?.t().contiguous()?;
    let info = DeviceArray::<i32>::zeros(device, &[])?;
    if n > 0 && k > 0 {
        let (pa, pp, px, pi) = (
            lu_c.library_ptr(OP, device)?.0,
            piv1.library_ptr(OP, device)?.0,
            xt.library_ptr(OP, device)?.0,
            info.library_ptr(OP, device)?.0,
        );
        with_solver(device, |dn| {
            // SAFETY: `lu_c` holds the column-major n x n factors, `piv1` n 1-based i64
            // pivots, `xt` the column-major n x k right-hand sides, `info` one i32; all on
            // the handle's device and alive until the call is queued.
            unsafe { dn.getrs::<T>(false, n, k, pa, pp, px, pi) }
        })?;
    }
    if b.ndim() == 1 {
        xt.reshape(&[n])
    } else {
        Ok(xt.t())
    }
}

/// SciPy's `linalg.lu` of one square matrix: `(p, l, u)` with `a = p l u`, `p` a
/// permutation matrix, `l` unit lower triangular, `u` upper triangular.
///
/// # Synchronization
/// The permutation comes from the pivots' swaps, made in order on the host: one read of
/// the `n` pivots waits for the GPU.
///
/// ```no_run
/// use cuarray::{linalg, Device, DeviceArray};
/// let dev = Device::new(0)?;
/// let a = DeviceArray::from_host(&dev, &[1.0f64, 2.0, 3.0, 4.0], &[2, 2])?;
/// let (p, l, u) = linalg::lu(&a)?;
/// assert_eq!(p.to_host()?, vec![0.0, 1.0, 1.0, 0.0]);
/// let back = p.matmul(&l)?.matmul(&u)?.to_host()?;
/// assert!(back.iter().zip([1.0, 2.0, 3.0, 4.0]).all(|(x, y)| (x - y).abs() < 1e-12));
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] when `a` is not one square matrix.
pub fn lu<T: RealElement>(
    a: &DeviceArray<T>,
) -> Result<(DeviceArray<T>, DeviceArray<T>, DeviceArray<T>)> {
    let (batch, n) = square("lu", a.shape())?;
    if !batch.is_empty() {
        return Err(Error::invalid(
            "lu",
            format!("one square matrix, not shape {:?}", a.shape()),
        ));
    }
    let (f, piv) = lu_factor(a)?;
    let piv = piv.to_host()?;
    let mut perm: Vec<i64> = (0..n as i64).collect();
    for (i, &p) in piv.iter().enumerate() {
        perm.swap(i, p as usize);
    }
    // Row i of P·A... is row perm[i] of A: P[perm[c], c] = 1.
    let device = a.device();
    let rows = DeviceArray::<i64>::arange(device, 0, n as i64, 1)?.reshape(&[n, 1])?;
    let p = rows
        .eq(&DeviceArray::from_host(device, &perm, &[1, n])?)?
        .astype::<T>()?;
    let eye = DeviceArray::<T>::eye(device, n)?;
    let l = f.tril(-1)?.add(&eye)?;
    let u = f.triu(0)?;
    Ok((p, l, u))
}
