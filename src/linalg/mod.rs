//! Linear algebra on cuSOLVER, with `numpy.linalg`'s names, arguments and errors: solving
//! systems, factorising, decomposing, norms. Every function takes a stack of matrices (the
//! last two axes; the leading ones a batch) and works batch by batch; `solve` broadcasts
//! the batch dimensions of its two arguments as NumPy does.
//!
//! ```no_run
//! use cuarray::{linalg, DeviceArray};
//! let dev = cuarray::Device::new(0)?;
//! let a = DeviceArray::from_host(&dev, &[4.0f64, 1.0, 1.0, 3.0], &[2, 2])?;
//! let b = DeviceArray::from_slice(&dev, &[1.0f64, 2.0])?;
//! let x = linalg::solve(&a, &b)?;                  // a @ x = b
//! let l = linalg::cholesky(&a)?;                   // a = l @ lᵀ, zeros above the diagonal
//! let (w, v) = linalg::eigh(&a)?;                  // ascending eigenvalues
//! let (u, s, vh) = linalg::svd(&a, false)?;
//! let d = linalg::det(&a)?.to_scalar()?;           // 11.0
//! # Ok::<(), cuarray::Error>(())
//! ```
//!
//! # Errors and synchronization
//! A singular matrix given to [`solve`] or [`inv`] is [`Error::Singular`], and a matrix
//! that is not positive definite given to [`cholesky`] is [`Error::NotPositiveDefinite`],
//! each naming the batch index (the flat row-major index over the batch dimensions) and
//! the zero pivot or the failing leading minor. Finding that out costs one read of the
//! factorisation's info array (one `i32` per matrix), so these functions **wait for the
//! GPU** once, as PyTorch's do. The `_ex` variants ([`solve_ex`], [`inv_ex`],
//! [`cholesky_ex`]) return that info array instead and never wait: a zero entry means
//! success, `i > 0` the pivot `U[i-1, i-1]` that is exactly zero (LU) or the leading minor
//! of order `i` that is not positive (Cholesky). (CuPy, by default, checks nothing.) Only
//! exactly zero pivots count: a nearly singular matrix gives a large, inaccurate solution,
//! as in NumPy.
//!
//! [`svd`], [`eigh`] and [`eigvalsh`] read their info arrays too (one wait): [`svd`] to
//! redo with the QR method (`gesvd`) any matrix where its first method failed, as PyTorch
//! does; an eigensolver that does not converge is [`Error::NoConvergence`].
//! [`det`] and [`slogdet`] never wait: the determinant of a singular matrix is 0 and its
//! `slogdet` is `(0, -inf)`, as NumPy's. [`lstsq`] waits once for the rank.
//!
//! # Layouts
//! Inputs may be any view (transposed, sliced, broadcast): each function copies its input
//! into a workspace cuSOLVER may overwrite (it factorises in place), in the order its
//! routine runs fastest on. cuSOLVER is column-major, so several results are column-major
//! views (Fortran order) rather than C-contiguous arrays: the solutions of `solve`, the
//! inverse, the Cholesky factor, `Q`, `U`, the eigenvectors. Every operation reads them in
//! place (matrix products through cuBLAS's transpose flags); `.contiguous()` makes a C-order
//! copy.
//!
//! # Routines
//! Many small matrices (at most 32 x 32) use the batched routines (cuBLAS's batched LU,
//! `potrfBatched`, `gesvdjBatched`, `syevjBatched`); large ones the 64-bit API (`Xgetrf`,
//! `Xpotrf`, `Xgeqrf`, `Xsyevd`) and the Jacobi SVD (`gesvdj`, with the QR method
//! `gesvd` where it does not converge). Workspaces come from the device's memory pool.

mod cusolver;
pub mod plan;

pub use cusolver::SolverElement;

use crate::array::{where_, DeviceArray};
use crate::element::{Element, FloatElement, NumElement};
use crate::shape::{normalize_axis, IntoAxes, Layout};
use crate::{Error, Result};
use plan::{
    compose_pivots, matrices, plan_solve, run_cholesky, run_eigh, run_lu, run_qr, run_solve,
    run_solve_blocked, run_solve_factor, run_svd, run_svd_one, solve_blocks, square, Out,
    SolvePlan, SvdAlgorithm,
};

/// The element types of the functions here: `f32` and `f64` (real types whose sums and
/// means are of the type itself).
pub trait RealElement:
    SolverElement<Spectral = Self> + FloatElement + NumElement + Element<Sum = Self, Mean = Self>
{
}
impl<T> RealElement for T where
    T: SolverElement<Spectral = T> + FloatElement + NumElement + Element<Sum = T, Mean = T>
{
}

fn wrap<U: Element>(o: Out) -> DeviceArray<U> {
    DeviceArray::from_buffer(o.buf, o.layout)
}

/// The last two axes swapped (NumPy's `mT`), a view.
fn mt<T: Element>(a: &DeviceArray<T>) -> Result<DeviceArray<T>> {
    let d = a.ndim() as isize;
    let mut axes: Vec<isize> = (0..d).collect();
    axes.swap((d - 1) as usize, (d - 2) as usize);
    a.permute(&axes[..])
}

/// The first non-zero entry of an info array: (batch index, value). One read, which waits
/// for the GPU: of the array itself when it is small, else of whether any entry is
/// non-zero (a reduction on the device) and the array only then.
fn first_failure(info: &DeviceArray<i32>) -> Result<Option<(usize, i32)>> {
    if info.size() == 0 {
        return Ok(None);
    }
    if info.size() > 64 && !info.ne(0)?.any()?.to_scalar()? {
        return Ok(None);
    }
    let v = info.to_host()?;
    Ok(v.iter().position(|&x| x != 0).map(|i| (i, v[i])))
}

fn argument_error(op: &'static str, v: i32) -> Error {
    Error::Cusolver {
        op,
        msg: format!("argument {} rejected (an internal error of cuarray)", -v),
    }
}

/// [`Error::Singular`] for the first failure of an LU info array.
fn check_singular(op: &'static str, info: &DeviceArray<i32>) -> Result<()> {
    match first_failure(info)? {
        None => Ok(()),
        Some((batch, v)) if v > 0 => Err(Error::Singular {
            op,
            batch,
            pivot: v as usize - 1,
        }),
        Some((_, v)) => Err(argument_error(op, v)),
    }
}

fn check_converged(op: &'static str, info: &DeviceArray<i32>) -> Result<()> {
    match first_failure(info)? {
        None => Ok(()),
        Some((batch, v)) if v > 0 => Err(Error::NoConvergence { op, batch }),
        Some((_, v)) => Err(argument_error(op, v)),
    }
}

/// The full shape `batch + [r, c]`.
fn full(batch: &[usize], r: usize, c: usize) -> Vec<usize> {
    let mut s = batch.to_vec();
    s.extend([r, c]);
    s
}

/// Solves `a @ x = b` for `x` (NumPy's `linalg.solve`): `a` is `(..., n, n)`, `b` is
/// `(n,)` (one vector, the result `(..., n)`) or `(..., n, k)`; the batch dimensions
/// broadcast. LU with partial pivoting (`getrf` + `getrs`): one matrix for the whole
/// batch is factorised once.
///
/// One factorisation of `n >= 1024` reads its pivots and info word right after `getrf`
/// (a singular matrix stops there), then solves its triangles by blocks: the diagonal
/// blocks inverted together, the rest matrix products
/// ([`plan::solve_blocks`]); 4096 x 4096 with 64 right-hand sides takes
/// 14.1 ms on an H200, against 15.8 ms through `getrs`.
///
/// ```no_run
/// use cuarray::{linalg, DeviceArray};
/// let dev = cuarray::Device::new(0)?;
/// let a = DeviceArray::from_host(&dev, &[3.0f64, 1.0, 1.0, 2.0], &[2, 2])?;
/// let b = DeviceArray::from_slice(&dev, &[9.0f64, 8.0])?;
/// assert_eq!(linalg::solve(&a, &b)?.to_host()?, vec![2.0, 3.0]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::Singular`] naming the batch index and the zero pivot (one read of the info
/// array: this waits for the GPU; [`solve_ex`] does not);
/// [`Error::InvalidArgument`] when `a` is not a stack of square matrices;
/// [`Error::ShapeMismatch`] when `b` does not fit.
pub fn solve<T: RealElement>(a: &DeviceArray<T>, b: &DeviceArray<T>) -> Result<DeviceArray<T>> {
    let _range = crate::profile::range("solve");
    if let Some(x) = solve_blocked(a, b)? {
        return Ok(x);
    }
    let (x, info) = solve_ex(a, b)?;
    check_singular("solve", &info)?;
    Ok(x)
}

/// The checked solve of one large factorisation by blocked triangular solves
/// ([`plan::solve_blocks`]), or `None` where the plan does not take them.
fn solve_blocked<T: RealElement>(
    a: &DeviceArray<T>,
    b: &DeviceArray<T>,
) -> Result<Option<DeviceArray<T>>> {
    let (b2, vector, p) = solve_operands(a, b)?;
    let Some(nb) = solve_blocks(&p) else {
        return Ok(None);
    };
    let dev = a.device();
    let (lu, ipiv, info) =
        run_solve_factor::<T>(dev, &a.operand_as(&full(&p.batch, p.n, p.n))?, p.n)?;
    // One wait: the pivots, then the info word (already there).
    let ipiv = wrap::<i64>(ipiv).to_host()?;
    check_singular("solve", &wrap(info))?;
    let perm = DeviceArray::from_slice(dev, &compose_pivots(&ipiv))?;
    let pb = b2.take(&perm, Some(-2))?;
    let x = run_solve_blocked::<T>(dev, &p, &lu, &pb.operand_as(&full(&p.batch, p.n, p.k))?, nb)?;
    solve_result(x, vector).map(Some)
}

/// `solve`'s right-hand sides as matrices (a vector becomes one column), whether they
/// were a vector, and the plan.
fn solve_operands<T: RealElement>(
    a: &DeviceArray<T>,
    b: &DeviceArray<T>,
) -> Result<(DeviceArray<T>, bool, SolvePlan)> {
    b.used_by("solve", a.device())?;
    let vector = b.ndim() == 1;
    let b2 = if vector {
        b.expand_dims(-1)?
    } else {
        b.clone()
    };
    let p = plan_solve(a.shape(), b2.shape())?;
    Ok((b2, vector, p))
}

/// A solution in the form of the right-hand sides: without the one column of a vector.
fn solve_result<T: RealElement>(x: Out, vector: bool) -> Result<DeviceArray<T>> {
    let x = wrap::<T>(x);
    if vector {
        x.squeeze_axis(-1)
    } else {
        Ok(x)
    }
}

/// [`solve`] without the check: the solution and the info array (`i32`, the batch
/// shape; `i > 0`: `U[i-1, i-1]` of that matrix is exactly zero, and its solution is not
/// finite). Never waits for the GPU.
///
/// ```no_run
/// use cuarray::{Device, DeviceArray, linalg};
/// let dev = Device::new(0)?;
/// let a = DeviceArray::from_host(&dev, &[2.0f64, 1.0, 1.0, 1.0], &[2, 2])?;
/// let b = DeviceArray::from_slice(&dev, &[3.0f64, 2.0])?;
/// let (x, info) = linalg::solve_ex(&a, &b)?; // queued; nothing waits
/// assert_eq!(info.to_host()?, vec![0]); // 0: solved
/// assert!(x.to_host()?.iter().zip([1.0, 1.0]).all(|(v, w)| (v - w).abs() < 1e-12));
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// As [`solve`], except [`Error::Singular`].
pub fn solve_ex<T: RealElement>(
    a: &DeviceArray<T>,
    b: &DeviceArray<T>,
) -> Result<(DeviceArray<T>, DeviceArray<i32>)> {
    let (b2, vector, p) = solve_operands(a, b)?;
    let (x, info) = run_solve::<T>(
        a.device(),
        &p,
        &a.operand_as(&full(&p.batch, p.n, p.n))?,
        Some(&b2.operand_as(&full(&p.batch, p.n, p.k))?),
    )?;
    Ok((solve_result(x, vector)?, wrap(info)))
}

/// The inverse of each square matrix of `a` (NumPy's `linalg.inv`), a column-major view:
/// LU, then a solve against the identity.
///
/// ```no_run
/// use cuarray::{Device, DeviceArray, linalg};
/// let dev = Device::new(0)?;
/// let a = DeviceArray::from_host(&dev, &[2.0f64, 1.0, 1.0, 1.0], &[2, 2])?;
/// let ai = linalg::inv(&a)?.to_host()?;
/// assert!(ai.iter().zip([1.0, -1.0, -1.0, 2.0]).all(|(v, w)| (v - w).abs() < 1e-12));
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::Singular`] naming the batch index and the zero pivot (waits for the GPU once;
/// [`inv_ex`] does not); [`Error::InvalidArgument`] when `a` is not a stack of square
/// matrices.
pub fn inv<T: RealElement>(a: &DeviceArray<T>) -> Result<DeviceArray<T>> {
    let _range = crate::profile::range("inv");
    let (x, info) = inv_ex(a)?;
    check_singular("inv", &info)?;
    Ok(x)
}

/// [`inv`] without the check: the inverse and the info array, as [`solve_ex`]. Never
/// waits for the GPU.
///
/// ```no_run
/// use cuarray::{Device, DeviceArray, linalg};
/// let dev = Device::new(0)?;
/// let a = DeviceArray::from_host(&dev, &[1.0f32, 2.0, 2.0, 4.0], &[2, 2])?; // singular
/// let (_ai, info) = linalg::inv_ex(&a)?;
/// assert!(info.to_host()?[0] > 0); // the zero pivot's position, counted from 1
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// As [`inv`], except [`Error::Singular`].
pub fn inv_ex<T: RealElement>(a: &DeviceArray<T>) -> Result<(DeviceArray<T>, DeviceArray<i32>)> {
    let (batch, n) = square("inv", a.shape())?;
    let p = plan::SolvePlan {
        n,
        k: n,
        batched: batch.iter().product::<usize>() > 1 && n <= plan::SMALL_N,
        factor_once: false,
        batch,
    };
    let (x, info) = run_solve::<T>(a.device(), &p, &a.operand()?, None)?;
    Ok((wrap(x), wrap(info)))
}

/// The LU factors' diagonal `(batch..., n)`, the sign of the row permutation
/// `(batch...)` and whether the factorisation met no zero pivot `(batch...)` (past one,
/// some routines divide by it, and the diagonal may hold infinities or NaN).
fn lu_diagonal<T: RealElement>(
    op: &'static str,
    a: &DeviceArray<T>,
) -> Result<(DeviceArray<T>, DeviceArray<T>, DeviceArray<bool>)> {
    let (batch, n) = square(op, a.shape())?;
    let (lu, piv, info) = run_lu::<T>(a.device(), &a.operand()?, &batch, n)?;
    let regular = wrap::<i32>(info).eq(0)?;
    let lu = wrap::<T>(lu);
    let piv = wrap::<i64>(piv);
    let nb = batch.len();
    let l = lu.layout();
    let mut strides = l.strides()[..nb].to_vec();
    strides.push(l.strides()[nb] + l.strides()[nb + 1]);
    let mut shape = batch.clone();
    shape.push(n);
    let diag = lu.with_layout(Layout::from_parts(shape, strides, l.offset()));
    // Each pivot that moved a row flips the sign.
    let rows = DeviceArray::<i64>::arange(a.device(), 1, n as i64 + 1, 1)?;
    let swaps = piv.ne(&rows)?.sum_axis(-1)?;
    let sign = swaps
        .rem(2)?
        .astype::<T>()?
        .mul(T::from_f64(-2.0))?
        .add(T::ONE)?;
    Ok((diag, sign, regular))
}

/// The determinant of each square matrix of `a` (NumPy's `linalg.det`): the product of
/// the LU factorisation's diagonal, signed by its row swaps. A singular matrix gives 0
/// (no error), as NumPy. Never waits for the GPU; the result has the batch shape (0-d for
/// one matrix).
///
/// ```no_run
/// let dev = cuarray::Device::new(0)?;
/// let a = cuarray::DeviceArray::from_host(&dev, &[1.0f64, 2.0, 3.0, 4.0], &[2, 2])?;
/// assert!((cuarray::linalg::det(&a)?.to_scalar()? + 2.0).abs() < 1e-12);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] when `a` is not a stack of square matrices.
pub fn det<T: RealElement>(a: &DeviceArray<T>) -> Result<DeviceArray<T>> {
    let (diag, sign, regular) = lu_diagonal("det", a)?;
    where_(&regular, diag.prod_axis(-1)?.mul(&sign)?, T::ZERO)
}

/// The sign and the natural logarithm of the absolute value of each determinant (NumPy's
/// `linalg.slogdet`), without the overflow of [`det`]: `det = sign * exp(logabsdet)`. A
/// singular matrix gives `(0, -inf)`, as NumPy. Never waits for the GPU.
///
/// ```no_run
/// use cuarray::{Device, DeviceArray, linalg};
/// let dev = Device::new(0)?;
/// let a = DeviceArray::from_host(&dev, &[2.0f64, 0.0, 0.0, -3.0], &[2, 2])?;
/// let (sign, logabs) = linalg::slogdet(&a)?; // det = sign * exp(logabs) = -6
/// assert_eq!(sign.to_scalar()?, -1.0);
/// assert!((logabs.to_scalar()? - 6.0f64.ln()).abs() < 1e-12);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] when `a` is not a stack of square matrices.
pub fn slogdet<T: RealElement>(a: &DeviceArray<T>) -> Result<(DeviceArray<T>, DeviceArray<T>)> {
    let (diag, sign, regular) = lu_diagonal("slogdet", a)?;
    let sign = diag.sign()?.prod_axis(-1)?.mul(&sign)?;
    let logabs = diag.abs()?.log()?.sum_axis(-1)?;
    Ok((
        where_(&regular, &sign, T::ZERO)?,
        where_(&regular, &logabs, T::from_f64(f64::NEG_INFINITY))?,
    ))
}

/// The lower Cholesky factor `L` of each symmetric positive-definite matrix of `a`
/// (NumPy's `linalg.cholesky`): `a = L Lᵀ`, a column-major view, exact zeros above the
/// diagonal. Only the lower triangle of `a` is read, as NumPy.
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
pub fn cholesky<T: RealElement>(a: &DeviceArray<T>) -> Result<DeviceArray<T>> {
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
pub fn cholesky_ex<T: RealElement>(
    a: &DeviceArray<T>,
) -> Result<(DeviceArray<T>, DeviceArray<i32>)> {
    let (batch, n) = square("cholesky", a.shape())?;
    let (l, info) = run_cholesky::<T>(a.device(), &a.operand()?, &batch, n)?;
    Ok((wrap(l), wrap(info)))
}

/// The reduced QR factorisation of each `m x n` matrix of `a` (NumPy's `linalg.qr`, mode
/// `"reduced"`): `Q` `(..., m, k)` with orthonormal columns (a column-major view) and `R`
/// `(..., k, n)` upper triangular (C-contiguous), `k = min(m, n)`, `a = Q R`. Householder
/// QR (`geqrf` + `orgqr`). Never waits for the GPU.
///
/// ```no_run
/// use cuarray::{Device, DeviceArray, linalg};
/// let dev = Device::new(0)?;
/// let a = DeviceArray::from_host(&dev, &[1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0], &[3, 2])?;
/// let (q, r) = linalg::qr(&a)?;
/// assert_eq!((q.shape(), r.shape()), (&[3, 2][..], &[2, 2][..]));
/// let qr = q.matmul(&r)?.to_host()?; // a again
/// assert!(qr.iter().zip(a.to_host()?).all(|(v, w)| (v - w).abs() < 1e-12));
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] for an array of fewer than two dimensions.
pub fn qr<T: RealElement>(a: &DeviceArray<T>) -> Result<(DeviceArray<T>, DeviceArray<T>)> {
    let (batch, m, n) = matrices("qr", a.shape())?;
    let (q, r) = run_qr::<T>(a.device(), &a.operand()?, &batch, (m, n))?;
    Ok((wrap(q), wrap(r)))
}

/// SVD with the Jacobi method (large matrices with vectors: the polar decomposition in
/// f64, checked, see `polar_by_default`), and the QR method for what it leaves unconverged
/// (one read of the info array); `U` and `Vh` are empty stacks without `vectors`.
fn svd_impl<T: RealElement>(
    op: &'static str,
    a: &DeviceArray<T>,
    full_matrices: bool,
    vectors: bool,
) -> Result<(DeviceArray<T>, DeviceArray<T>, DeviceArray<T>)> {
    let (batch, m, n) = matrices(op, a.shape())?;
    if T::DTYPE == crate::DType::F32 && plan::polar_by_default((m, n), full_matrices, vectors) {
        // Faster than f32's own routines there, and more accurate.
        let (u, s, vh) = svd_impl::<f64>(op, &a.astype::<f64>()?, full_matrices, vectors)?;
        return Ok((u.astype::<T>()?, s.astype::<T>()?, vh.astype::<T>()?));
    }
    let dev = a.device();
    let operand = a.operand()?;
    let out = run_svd::<T>(dev, &operand, &batch, (m, n), full_matrices, vectors)?;
    if out.polar {
        // The polar decomposition (only when chosen) can lose accuracy (ill-conditioned
        // matrices in f32, rank-deficient square ones): check U S Vh = A and the
        // orthonormality of U and Vh (three products, small beside the decomposition) and
        // redo failures by the Jacobi method.
        let (u, s, vh) = (
            wrap::<T>(out.u.clone()),
            wrap::<T>(out.s.clone()),
            wrap::<T>(out.vh.clone()),
        );
        let eps = if T::DTYPE == crate::DType::F32 {
            f32::EPSILON as f64
        } else {
            f64::EPSILON
        };
        let tol = T::from_f64(10.0 * (m + n) as f64 * eps);
        let fro = |x: &DeviceArray<T>| norm_axes(x, None, &[-2isize, -1][..], false);
        let residual = fro(&u.mul(&s.expand_dims(-2)?)?.matmul(&vh)?.sub(a)?)?;
        let bad = residual
            .gt(&fro(a)?.mul(tol)?)?
            .logical_or(&residual.isnan()?)?;
        let eye = |k: usize| DeviceArray::<T>::eye(dev, k);
        let du = fro(&mt(&u)?.matmul(&u)?.sub(&eye(u.shape()[u.ndim() - 1])?)?)?;
        let dv = fro(&vh
            .matmul(&mt(&vh)?)?
            .sub(&eye(vh.shape()[vh.ndim() - 2])?)?)?;
        // Entries of UᵀU - I are sums of m products: their Frobenius norm grows as
        // sqrt(k), which the bound per column takes out.
        let cols = T::from_f64((10.0 * (m + n) as f64 * eps) * (m.min(n) as f64).sqrt());
        let bad = bad
            .logical_or(&du.gt(cols)?)?
            .logical_or(&dv.gt(cols)?)?
            .logical_or(&du.isnan()?)?;
        for (i, b) in bad.to_host()?.into_iter().enumerate() {
            if b {
                run_svd_one::<T>(
                    dev,
                    &operand,
                    i,
                    (m, n),
                    full_matrices,
                    vectors,
                    &out,
                    SvdAlgorithm::Jacobi,
                )?;
            }
        }
    }
    let info = DeviceArray::<i32>::from_buffer(out.info.buf.clone(), out.info.layout.clone());
    let failed: Vec<usize> = if first_failure(&info)?.is_none() {
        Vec::new()
    } else {
        let v = info.to_host()?;
        if let Some(&bad) = v.iter().find(|&&x| x < 0) {
            return Err(argument_error(op, bad));
        }
        v.iter()
            .enumerate()
            .filter(|(_, &x)| x > 0)
            .map(|(i, _)| i)
            .collect()
    };
    if !failed.is_empty() {
        for &i in &failed {
            run_svd_one::<T>(
                dev,
                &operand,
                i,
                (m, n),
                full_matrices,
                vectors,
                &out,
                SvdAlgorithm::Qr,
            )?;
        }
        check_converged(op, &info)?;
    }
    Ok((wrap(out.u), wrap(out.s), wrap(out.vh)))
}

/// The singular value decomposition of each `m x n` matrix of `a` (NumPy's
/// `linalg.svd`): `U` `(..., m, m)` or `(..., m, k)`, the singular values `S` `(..., k)`
/// in descending order, `Vh` `(..., n, n)` or `(..., k, n)`, with `k = min(m, n)` and
/// `a = U diag(S) Vh` (`full_matrices` chooses the square or the economy-size factors).
///
/// Many matrices of at most 32 x 32 take the batched Jacobi method (`gesvdjBatched`).
/// Matrices of at least 512 x 512 (economy size, or square) go through the polar
/// decomposition (`Xgesvdp`) in f64, f32 ones included: their factors are checked
/// (`U S Vh = A`, orthonormal `U` and `Vh`, three products) and a matrix that fails is
/// redone by the Jacobi method. (f32 2048 x 2048 on an H200: 85 ms, where PyTorch's takes
/// 221 and CuPy's `gesvd` 312.) Others take the Jacobi method (`gesvdj`). A matrix where
/// it does not converge is redone by the QR method (`gesvd`), as PyTorch does; that check
/// reads the info array, which waits for the GPU.
///
/// ```no_run
/// use cuarray::{Device, DeviceArray, linalg};
/// let dev = Device::new(0)?;
/// let a = DeviceArray::from_host(&dev, &[3.0f64, 0.0, 0.0, -2.0], &[2, 2])?;
/// let (u, s, vh) = linalg::svd(&a, false)?; // a = u @ diag(s) @ vh
/// assert!(s.to_host()?.iter().zip([3.0, 2.0]).all(|(v, w)| (v - w).abs() < 1e-12));
/// assert_eq!((u.shape(), vh.shape()), (&[2, 2][..], &[2, 2][..]));
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::NoConvergence`] when the QR method does not converge either (NaN or infinite
/// input); [`Error::InvalidArgument`] for an array of fewer than two dimensions.
pub fn svd<T: RealElement>(
    a: &DeviceArray<T>,
    full_matrices: bool,
) -> Result<(DeviceArray<T>, DeviceArray<T>, DeviceArray<T>)> {
    let _range = crate::profile::range("svd");
    svd_impl("svd", a, full_matrices, true)
}

/// The singular values of each matrix of `a`, descending (NumPy's `linalg.svdvals`):
/// [`svd`] without the vectors.
///
/// ```no_run
/// use cuarray::{Device, DeviceArray, linalg};
/// let dev = Device::new(0)?;
/// let a = DeviceArray::from_host(&dev, &[3.0f64, 0.0, 0.0, -2.0], &[2, 2])?;
/// let s = linalg::svdvals(&a)?.to_host()?; // descending
/// assert!(s.iter().zip([3.0, 2.0]).all(|(v, w)| (v - w).abs() < 1e-12));
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// As [`svd`].
pub fn svdvals<T: RealElement>(a: &DeviceArray<T>) -> Result<DeviceArray<T>> {
    Ok(svd_impl("svdvals", a, false, false)?.1)
}

fn eigh_impl<T: RealElement>(
    op: &'static str,
    a: &DeviceArray<T>,
    vectors: bool,
) -> Result<(DeviceArray<T>, DeviceArray<T>)> {
    let (batch, n) = square(op, a.shape())?;
    let (w, v, info) = run_eigh::<T>(a.device(), &a.operand()?, &batch, n, vectors)?;
    check_converged(op, &wrap(info))?;
    Ok((wrap(w), wrap(v)))
}

/// The eigenvalues (ascending) and eigenvectors of each symmetric matrix of `a` (NumPy's
/// `linalg.eigh`, `UPLO='L'`: only the lower triangle is read): `w` `(..., n)` and `v`
/// `(..., n, n)` whose column `j` is the eigenvector of `w[j]`, so that
/// `a = v diag(w) vᵀ`. Divide and conquer (`syevd`); the Jacobi method for many matrices
/// of at most 32 x 32 (`syevjBatched`). Reads the info array (waits for the GPU once).
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
pub fn eigh<T: RealElement>(a: &DeviceArray<T>) -> Result<(DeviceArray<T>, DeviceArray<T>)> {
    let _range = crate::profile::range("eigh");
    eigh_impl("eigh", a, true)
}

/// The eigenvalues of each symmetric matrix of `a`, ascending (NumPy's
/// `linalg.eigvalsh`): [`eigh`] without the vectors.
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
pub fn eigvalsh<T: RealElement>(a: &DeviceArray<T>) -> Result<DeviceArray<T>> {
    Ok(eigh_impl("eigvalsh", a, false)?.0)
}

/// `1 / s` where `s > cutoff` (broadcast), else 0: the pseudo-inverse of singular values.
fn inverse_above<T: RealElement>(
    s: &DeviceArray<T>,
    cutoff: &DeviceArray<T>,
) -> Result<DeviceArray<T>> {
    let keep = s.gt(cutoff)?;
    let one = DeviceArray::full(s.device(), s.shape(), T::ONE)?;
    where_(&keep, one.div(s)?, T::ZERO)
}

/// What [`lstsq`] returns, NumPy's four results: `(x, residuals, rank, singular_values)`.
pub type Lstsq<T> = (DeviceArray<T>, DeviceArray<T>, usize, DeviceArray<T>);

/// The least-squares solution of `a @ x = b` (NumPy's `linalg.lstsq` with `rcond=None`):
/// `a` is `(m, n)`, `b` `(m,)` or `(m, k)`. Returns NumPy's four results: `x` (`(n,)` or
/// `(n, k)`), the residuals (the squared 2-norm of `b - a @ x` per column, shape `(k,)`
/// or `(1,)`, when the rank is `n` and `m > n`; else an empty array), the rank (singular
/// values above `eps * max(m, n)` times the largest) and the singular values of `a`.
///
/// Through the SVD: `x = V diag(1/s) Uᵀ b` over the singular values counted in the rank.
/// The rank is read back to the host, so this waits for the GPU.
///
/// ```no_run
/// use cuarray::{Device, DeviceArray, linalg};
/// let dev = Device::new(0)?;
/// // Fit y = 2 t + 1 through (0, 1), (1, 3), (2, 5): columns t and 1.
/// let a = DeviceArray::from_host(&dev, &[0.0f64, 1.0, 1.0, 1.0, 2.0, 1.0], &[3, 2])?;
/// let b = DeviceArray::from_slice(&dev, &[1.0f64, 3.0, 5.0])?;
/// let (x, _residuals, rank, _s) = linalg::lstsq(&a, &b)?;
/// assert_eq!(rank, 2);
/// assert!(x.to_host()?.iter().zip([2.0, 1.0]).all(|(v, w)| (v - w).abs() < 1e-12));
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] when `a` is not 2-D; [`Error::ShapeMismatch`] when `b`'s
/// rows are not `a`'s.
pub fn lstsq<T: RealElement>(a: &DeviceArray<T>, b: &DeviceArray<T>) -> Result<Lstsq<T>> {
    let _range = crate::profile::range("lstsq");
    let dev = a.device();
    b.used_by("lstsq", dev)?;
    if a.ndim() != 2 || !(1..=2).contains(&b.ndim()) {
        return Err(Error::invalid(
            "lstsq",
            format!(
                "needs a 2-D matrix and a 1-D or 2-D right-hand side, got shapes {:?} and {:?}",
                a.shape(),
                b.shape()
            ),
        ));
    }
    let (m, n) = (a.shape()[0], a.shape()[1]);
    if b.shape()[0] != m {
        return Err(Error::ShapeMismatch {
            op: "lstsq",
            msg: format!("b has {} rows, a has {m}", b.shape()[0]),
            lhs: a.shape().to_vec(),
            rhs: b.shape().to_vec(),
        });
    }
    let vector = b.ndim() == 1;
    let b2 = if vector {
        b.expand_dims(-1)?
    } else {
        b.clone()
    };
    let kk = b2.shape()[1];
    let (u, s, vh) = svd_impl("lstsq", a, false, true)?;
    let k = m.min(n);
    let (x, rank) = if k == 0 {
        (DeviceArray::zeros(dev, &[n, kk])?, 0)
    } else {
        let eps = if T::DTYPE == crate::DType::F32 {
            f32::EPSILON as f64
        } else {
            f64::EPSILON
        };
        let cutoff = s.max()?.mul(T::from_f64(eps * m.max(n) as f64))?;
        let rank = s.gt(&cutoff)?.sum()?.to_scalar()? as usize;
        let s_inv = inverse_above(&s, &cutoff)?;
        // x = Vhᵀ (diag(s_inv) (Uᵀ b)).
        let utb = u.t().matmul(&b2)?;
        let scaled = utb.mul(&s_inv.expand_dims(-1)?)?;
        (vh.t().matmul(&scaled)?, rank)
    };
    let residuals = if rank == n && m > n {
        let r = b2.sub(&a.matmul(&x)?)?;
        r.mul(&r)?.sum_axis(0)?
    } else {
        DeviceArray::zeros(dev, &[0])?
    };
    let x = if vector { x.squeeze_axis(-1)? } else { x };
    Ok((x, residuals, rank, s))
}

/// The Moore-Penrose pseudo-inverse of each matrix of `a` (NumPy's `linalg.pinv` with
/// its default `rcond = 1e-15`): `Vᵀ diag(1/s) Uᵀ` over the singular values above
/// `1e-15` times the largest. Shape `(..., n, m)` for `a` `(..., m, n)`.
///
/// ```no_run
/// use cuarray::{Device, DeviceArray, linalg};
/// let dev = Device::new(0)?;
/// let a = DeviceArray::from_host(&dev, &[1.0f64, 0.0, 0.0, 2.0, 0.0, 0.0], &[3, 2])?;
/// let p = linalg::pinv(&a)?;
/// assert_eq!(p.shape(), &[2, 3]);
/// let want = [1.0, 0.0, 0.0, 0.0, 0.5, 0.0];
/// assert!(p.to_host()?.iter().zip(want).all(|(v, w)| (v - w).abs() < 1e-12));
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// As [`svd`].
pub fn pinv<T: RealElement>(a: &DeviceArray<T>) -> Result<DeviceArray<T>> {
    let _range = crate::profile::range("pinv");
    let (batch, m, n) = matrices("pinv", a.shape())?;
    if m.min(n) == 0 {
        return DeviceArray::zeros(a.device(), &full(&batch, n, m));
    }
    let (u, s, vh) = svd_impl("pinv", a, false, true)?;
    let cutoff = s.max_keepdim(-1)?.mul(T::from_f64(1e-15))?;
    let s_inv = inverse_above(&s, &cutoff)?;
    mt(&vh)?.mul(&s_inv.expand_dims(-2)?)?.matmul(&mt(&u)?)
}

/// The order of a norm (NumPy's `ord`): `None` in [`norm`] is the 2-norm of a vector and
/// the Frobenius norm of a matrix (of the flattened array, for [`norm`] of any shape).
///
/// ```no_run
/// use cuarray::{Device, DeviceArray};
/// use cuarray::linalg::{norm, NormOrd};
/// let dev = Device::new(0)?;
/// let m = DeviceArray::from_host(&dev, &[1.0f64, -2.0, 3.0, 4.0], &[2, 2])?;
/// assert_eq!(norm(&m, Some(NormOrd::Inf))?.to_scalar()?, 7.0); // the largest row sum of |m|
/// assert_eq!(norm(&m, Some(NormOrd::P(1.0)))?.to_scalar()?, 6.0); // the largest column sum
/// assert_eq!(norm(&m, Some(NormOrd::Fro))?.to_scalar()?, 30.0f64.sqrt());
/// # Ok::<(), cuarray::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum NormOrd {
    /// Frobenius norm (matrices): the square root of the sum of squares.
    Fro,
    /// Nuclear norm (matrices): the sum of the singular values.
    Nuc,
    /// `max |x|` (vectors); the largest absolute row sum (matrices).
    Inf,
    /// `min |x|` (vectors); the smallest absolute row sum (matrices).
    NegInf,
    /// `(sum |x|^p)^(1/p)` for vectors (`0`: the count of non-zeros); for matrices `1` /
    /// `-1` the largest / smallest absolute column sum, `2` / `-2` the largest / smallest
    /// singular value.
    P(f64),
}

impl From<f64> for NormOrd {
    /// `f64::INFINITY` is [`NormOrd::Inf`], `-inf` [`NormOrd::NegInf`], others `P(p)`.
    fn from(p: f64) -> NormOrd {
        if p == f64::INFINITY {
            NormOrd::Inf
        } else if p == f64::NEG_INFINITY {
            NormOrd::NegInf
        } else {
            NormOrd::P(p)
        }
    }
}

fn vector_norm<T: RealElement>(
    x: &DeviceArray<T>,
    ord: Option<NormOrd>,
    axis: isize,
    keepdims: bool,
) -> Result<DeviceArray<T>> {
    let axes = [axis];
    match ord.unwrap_or(NormOrd::P(2.0)) {
        NormOrd::P(2.0) => x.mul(x)?.sum_axes(&axes[..], keepdims)?.sqrt(),
        NormOrd::P(1.0) => x.abs()?.sum_axes(&axes[..], keepdims),
        NormOrd::P(0.0) => x.ne(T::ZERO)?.astype::<T>()?.sum_axes(&axes[..], keepdims),
        NormOrd::P(p) if p.is_finite() => x
            .abs()?
            .pow(T::from_f64(p))?
            .sum_axes(&axes[..], keepdims)?
            .pow(T::from_f64(1.0 / p)),
        NormOrd::P(p) if p.is_infinite() => vector_norm(x, Some(NormOrd::from(p)), axis, keepdims),
        NormOrd::Inf => x.abs()?.max_axes(&axes[..], keepdims),
        NormOrd::NegInf => x.abs()?.min_axes(&axes[..], keepdims),
        o => Err(Error::invalid(
            "norm",
            format!("invalid norm order {o:?} for vectors"),
        )),
    }
}

fn matrix_norm<T: RealElement>(
    x: &DeviceArray<T>,
    ord: Option<NormOrd>,
    (r, c): (usize, usize),
    keepdims: bool,
) -> Result<DeviceArray<T>> {
    let both = [r as isize, c as isize];
    let drop_both = |y: DeviceArray<T>| -> Result<DeviceArray<T>> {
        if keepdims {
            Ok(y)
        } else {
            y.squeeze_axis(r.max(c) as isize)?
                .squeeze_axis(r.min(c) as isize)
        }
    };
    // Absolute sums along `along`, then the max or min over `over` (both kept).
    let sums = |along: usize, over: usize, largest: bool| -> Result<DeviceArray<T>> {
        let s = x.abs()?.sum_keepdim(along as isize)?;
        let y = if largest {
            s.max_keepdim(over as isize)?
        } else {
            s.min_keepdim(over as isize)?
        };
        drop_both(y)
    };
    // Singular values of the matrices in axes (r, c), moved last.
    let singular =
        |f: &dyn Fn(&DeviceArray<T>) -> Result<DeviceArray<T>>| -> Result<DeviceArray<T>> {
            let nd = x.ndim();
            let mut perm: Vec<isize> = (0..nd)
                .filter(|&d| d != r && d != c)
                .map(|d| d as isize)
                .collect();
            perm.extend(both);
            let s = svdvals(&x.permute(&perm[..])?)?;
            let y = f(&s)?;
            if !keepdims {
                return Ok(y);
            }
            let (lo, hi) = (r.min(c), r.max(c));
            y.expand_dims(lo as isize)?.expand_dims(hi as isize)
        };
    match ord.unwrap_or(NormOrd::Fro) {
        NormOrd::Fro => x.mul(x)?.sum_axes(&both[..], keepdims)?.sqrt(),
        NormOrd::Nuc => singular(&|s| s.sum_axis(-1)),
        NormOrd::Inf => sums(c, r, true),
        NormOrd::NegInf => sums(c, r, false),
        NormOrd::P(1.0) => sums(r, c, true),
        NormOrd::P(-1.0) => sums(r, c, false),
        NormOrd::P(2.0) => singular(&|s| s.max_axis(-1)),
        NormOrd::P(-2.0) => singular(&|s| s.min_axis(-1)),
        NormOrd::P(p) if p.is_infinite() => {
            matrix_norm(x, Some(NormOrd::from(p)), (r, c), keepdims)
        }
        o => Err(Error::invalid(
            "norm",
            format!("invalid norm order {o:?} for matrices"),
        )),
    }
}

/// The norm of `a` (NumPy's `linalg.norm` without `axis`): with `ord` `None`, the 2-norm
/// of the flattened array (the Frobenius norm of a matrix), for any shape; with an
/// `ord`, the vector norm of a 1-D `a` or the matrix norm of a 2-D one. A 0-d array on
/// the device; never waits for the GPU (except the `Nuc`, `2` and `-2` matrix norms, which
/// take an SVD).
///
/// ```no_run
/// use cuarray::linalg::{norm, NormOrd};
/// let dev = cuarray::Device::new(0)?;
/// let v = cuarray::DeviceArray::from_slice(&dev, &[3.0f32, -4.0])?;
/// assert_eq!(norm(&v, None)?.to_scalar()?, 5.0);
/// assert_eq!(norm(&v, Some(NormOrd::Inf))?.to_scalar()?, 4.0);
/// assert_eq!(norm(&v, Some(1.0.into()))?.to_scalar()?, 7.0);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] for an `ord` with an array that is neither 1-D nor 2-D, or
/// an order that does not apply (`Fro` for a vector, `P(3.0)` for a matrix).
pub fn norm<T: RealElement>(a: &DeviceArray<T>, ord: Option<NormOrd>) -> Result<DeviceArray<T>> {
    match (ord, a.ndim()) {
        (None, _) => a.mul(a)?.sum()?.sqrt(),
        (Some(_), 1) => vector_norm(a, ord, 0, false),
        (Some(_), 2) => matrix_norm(a, ord, (0, 1), false),
        (Some(o), d) => Err(Error::invalid(
            "norm",
            format!("norm order {o:?} needs a 1-D or 2-D array, got {d} dimensions"),
        )),
    }
}

/// Vector norms along `axis` (NumPy's `linalg.norm(a, ord, axis=axis)`): `ord` as for a
/// vector in [`norm`] (`None`: the 2-norm).
///
/// ```no_run
/// use cuarray::{Device, DeviceArray};
/// use cuarray::linalg::{norm_axis, NormOrd};
/// let dev = Device::new(0)?;
/// let a = DeviceArray::from_host(&dev, &[3.0f32, 4.0, 6.0, 8.0], &[2, 2])?;
/// assert_eq!(norm_axis(&a, None, -1)?.to_host()?, vec![5.0, 10.0]);
/// assert_eq!(norm_axis(&a, Some(NormOrd::P(1.0)), 0)?.to_host()?, vec![9.0, 12.0]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::AxisOutOfRange`]; [`Error::InvalidArgument`] for a matrix-only order.
pub fn norm_axis<T: RealElement>(
    a: &DeviceArray<T>,
    ord: Option<NormOrd>,
    axis: isize,
) -> Result<DeviceArray<T>> {
    let ax = normalize_axis("norm", axis, a.ndim())?;
    vector_norm(a, ord, ax as isize, false)
}

/// Norms over one axis (vector norms) or two axes (matrix norms of the matrices in those
/// axes), NumPy's `linalg.norm(a, ord, axis=axes, keepdims=keepdims)`.
///
/// ```no_run
/// use cuarray::linalg::{norm_axes, NormOrd};
/// let dev = cuarray::Device::new(0)?;
/// let a = cuarray::DeviceArray::<f64>::ones(&dev, &[5, 3, 4])?;
/// let fro = norm_axes(&a, None, &[-2, -1], false)?;            // shape [5]
/// let ones = norm_axes(&a, Some(NormOrd::P(1.0)), &[1, 2], true)?;   // shape [5, 1, 1]
/// assert_eq!(ones.shape(), &[5, 1, 1]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::AxisOutOfRange`]; [`Error::InvalidArgument`] for other than one or two
/// distinct axes, or an order that does not apply.
pub fn norm_axes<T: RealElement>(
    a: &DeviceArray<T>,
    ord: Option<NormOrd>,
    axes: impl IntoAxes,
    keepdims: bool,
) -> Result<DeviceArray<T>> {
    let axes = axes.axes();
    let ax: Vec<usize> = axes
        .iter()
        .map(|&x| normalize_axis("norm", x, a.ndim()))
        .collect::<Result<_>>()?;
    match ax[..] {
        [x] => vector_norm(a, ord, x as isize, keepdims),
        [r, c] if r != c => matrix_norm(a, ord, (r, c), keepdims),
        _ => Err(Error::invalid(
            "norm",
            format!("needs one or two distinct axes, got {axes:?}"),
        )),
    }
}
