//! Solving square systems and what the LU factorisation gives: [`solve`] (and
//! [`solve_ex`]), [`inv`] (and [`inv_ex`]), [`det`], [`slogdet`]; their plans
//! ([`SolvePlan`]) and runs on cuSOLVER and cuBLAS's batched LU.
//!
//! The checked `solve` of one large factorisation solves its triangles by blocks
//! ([`solve_blocks`]): inverted diagonal blocks and matrix products instead of
//! `Xgetrs`, whose row-by-row walk is a seventh of a 4096 x 4096 solve.

use super::common::{
    alloc, check_singular, copy_stack, full, info_array, matrices, pointer_array, scratch_info,
    square, wrap, Out, Stack, EYES_BODY, SMALL_N,
};
use super::cusolver::{self as solver, with_solver, SolverElement};
use crate::array::{where_, DeviceArray};
use crate::device::{Device, DeviceBuffer};
use crate::element::DType;
use crate::kernels::abi::Scalar;
use crate::libs::blas::with_blas;
use crate::ops::catalogue::{CAST_BODY, COPY_BODY};
use crate::ops::Operand;
use crate::shape::Layout;
use crate::{Error, Result};
use std::borrow::Cow;
use std::sync::Arc;

/// Solves `a @ x = b` for `x` (NumPy's `linalg.solve`): `a` is `(..., n, n)`, `b` is
/// `(n,)` (one vector, the result `(..., n)`) or `(..., n, k)`; the batch dimensions
/// broadcast. LU with partial pivoting (`getrf` + `getrs`): one matrix for the whole
/// batch is factorised once.
///
/// One factorisation of `n >= 1024` reads its pivots and info word right after `getrf`
/// (a singular matrix stops there), then solves its triangles by blocks: the diagonal
/// blocks inverted together, the rest matrix products
/// (blocks of [`tuning::solve_block`](crate::tuning::solve_block)); 4096 x 4096 with 64 right-hand sides takes
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
pub fn solve<T: SolverElement>(a: &DeviceArray<T>, b: &DeviceArray<T>) -> Result<DeviceArray<T>> {
    let _range = crate::profile::range("solve");
    if let Some(x) = solve_blocked(a, b)? {
        return Ok(x);
    }
    let (x, info) = solve_ex(a, b)?;
    check_singular("solve", &info)?;
    Ok(x)
}

/// The checked solve of one large factorisation by blocked triangular solves
/// ([`solve_blocks`]), or `None` where the plan does not take them.
fn solve_blocked<T: SolverElement>(
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
fn solve_operands<T: SolverElement>(
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
fn solve_result<T: SolverElement>(x: Out, vector: bool) -> Result<DeviceArray<T>> {
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
pub fn solve_ex<T: SolverElement>(
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
pub fn inv<T: SolverElement>(a: &DeviceArray<T>) -> Result<DeviceArray<T>> {
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
pub fn inv_ex<T: SolverElement>(a: &DeviceArray<T>) -> Result<(DeviceArray<T>, DeviceArray<i32>)> {
    let (batch, n) = square("inv", a.shape())?;
    let p = SolvePlan {
        n,
        k: n,
        batched: batch.iter().product::<usize>() > 1 && n <= SMALL_N,
        factor_once: false,
        batch,
    };
    let (x, info) = run_solve::<T>(a.device(), &p, &a.operand()?, None)?;
    Ok((wrap(x), wrap(info)))
}

/// The LU factors' diagonal `(batch..., n)`, the sign of the row permutation
/// `(batch...)` and whether the factorisation met no zero pivot `(batch...)` (past one,
/// some routines divide by it, and the diagonal may hold infinities or NaN).
fn lu_diagonal<T: SolverElement>(
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
pub fn det<T: SolverElement>(a: &DeviceArray<T>) -> Result<DeviceArray<T>> {
    let (diag, sign, regular) = lu_diagonal("det", a)?;
    where_(&regular, diag.prod_axis(-1)?.mul(&sign)?, T::ZERO)
}

/// The sign and the natural logarithm of the absolute value of each determinant (NumPy's
/// `linalg.slogdet`), without the overflow of [`det`]: `det = sign * exp(logabsdet)`. For
/// complex types the sign is a complex number of absolute value 1 and `logabsdet` is
/// real ([`SolverElement::Spectral`]), as NumPy. A singular matrix gives `(0, -inf)`, as
/// NumPy. Never waits for the GPU.
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
pub fn slogdet<T: SolverElement>(
    a: &DeviceArray<T>,
) -> Result<(DeviceArray<T>, DeviceArray<T::Spectral>)> {
    let (diag, sign, regular) = lu_diagonal("slogdet", a)?;
    let abs = diag.abs()?;
    // Each pivot's sign d / |d| (±1 for real types, on the unit circle for complex ones).
    let sign = diag.div(&abs.astype::<T>()?)?.prod_axis(-1)?.mul(&sign)?;
    let logabs = abs.log()?.sum_axis(-1)?;
    Ok((
        where_(&regular, &sign, T::ZERO)?,
        where_(
            &regular,
            &logabs,
            <T::Spectral as crate::element::Element>::from_f64(f64::NEG_INFINITY),
        )?,
    ))
}

/// The plan of `solve(a, b)` (and of `inv(a)`, as a solve against identities).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct SolvePlan {
    /// Size of the square matrices.
    pub n: usize,
    /// Right-hand sides per matrix.
    pub k: usize,
    /// The broadcast batch shape.
    pub batch: Vec<usize>,
    /// `a` is one matrix for the whole batch: factor it once and solve every right-hand
    /// side of the batch in one call.
    pub factor_once: bool,
    /// Many small matrices: cuBLAS's batched LU.
    pub batched: bool,
}

/// Plans `solve` for `a` of shape `(..., n, n)` and `b` of shape `(..., n, k)` (a 1-D `b`
/// is made `(n, 1)` by the caller), NumPy's broadcasting over the batch dimensions.
///
/// # Errors
/// [`Error::InvalidArgument`] when `a` is not a stack of square matrices or `b` has fewer
/// than two dimensions; [`Error::ShapeMismatch`] when `b`'s rows differ from `n`;
/// [`Error::Broadcast`] when the batch dimensions do not broadcast.
pub(super) fn plan_solve(a: &[usize], b: &[usize]) -> Result<SolvePlan> {
    let (a_batch, n) = square("solve", a)?;
    let (b_batch, rows, k) = matrices("solve", b)?;
    if rows != n {
        return Err(Error::ShapeMismatch {
            op: "solve",
            msg: format!("b has {rows} rows, the matrix is {n} x {n}"),
            lhs: a.to_vec(),
            rhs: b.to_vec(),
        });
    }
    let batch = crate::shape::broadcast_shapes("solve", &a_batch, &b_batch)?;
    let count: usize = batch.iter().product();
    let a_count: usize = a_batch.iter().product();
    let factor_once = a_count == 1 && count > 1;
    Ok(SolvePlan {
        n,
        k,
        batched: !factor_once && count > 1 && n <= SMALL_N,
        factor_once,
        batch,
    })
}

/// The smallest `n` whose checked solve takes the blocked triangular solves
/// ([`solve_blocks`]).
pub(super) const BLOCKED_SOLVE_MIN_N: usize = 1024;

/// The diagonal block size with which the checked `solve` of plan `p` runs its triangular
/// solves, or `None` for cuSOLVER's `Xgetrs`.
///
/// `Xgetrs` (and cuBLAS's `trsm`) walk the triangles row block by row block, about
/// 0.3 us a row on an H200 whatever the number of right-hand sides: 2.3 ms of a 4096 x
/// 4096 solve. Blocked, each triangle's diagonal blocks are inverted together (one
/// batched `trsm` against identities, as deep as one block), and the solve is one
/// `gemm` by each block's inverse and one `gemm` updating the rows below (above, for
/// `U`), in cuBLAS's fast kernels. The row swaps of the pivots are composed into one
/// permutation on the host, so the blocked path reads the pivots: the checked `solve`
/// only (it reads the info word anyway, and now before the triangular solves); one
/// factorisation (one matrix, or one for the whole batch) of `n >= 1024`.
pub(super) fn solve_blocks(p: &SolvePlan) -> Option<usize> {
    let nb = crate::tuning::solve_block() as usize;
    let count: usize = p.batch.iter().product();
    let cols = count.saturating_mul(p.k);
    let fits = |v: usize| i32::try_from(v).is_ok();
    let ok = nb > 0
        && (p.factor_once || count == 1)
        && p.n >= BLOCKED_SOLVE_MIN_N
        && cols > 0
        && fits(p.n.saturating_mul(p.n.max(cols)));
    ok.then_some(nb.min(p.n))
}

/// The row permutation of LAPACK's 1-based pivots `ipiv` (row `i` swapped with row
/// `ipiv[i] - 1`, in order): row `i` of `P A` is row `perm[i]` of `A`.
pub(super) fn compose_pivots(ipiv: &[i64]) -> Vec<i64> {
    let mut perm: Vec<i64> = (0..ipiv.len() as i64).collect();
    for (i, &p) in ipiv.iter().enumerate() {
        let j = (p - 1).clamp(0, ipiv.len() as i64 - 1) as usize;
        perm.swap(i, j);
    }
    perm
}

/// `src` through the layout of its first matrix only (its batch axes dropped).
fn first_matrix(src: &Operand<'_>) -> Result<Layout> {
    let l = src.layout();
    let d = l.ndim();
    Ok(Layout::from_parts(
        l.shape()[d - 2..].to_vec(),
        l.strides()[d - 2..].to_vec(),
        l.offset(),
    ))
}

/// One factorisation for a whole solve (a blocked one, [`solve_blocks`], or one matrix for
/// a batch of right-hand sides): the LU factors of the first matrix of `a` (the plan's
/// full shape) in Fortran order, its 1-based `i64` pivots `(n,)` and its info word (0-d).
pub(crate) fn run_solve_factor<T: SolverElement>(
    device: &Device,
    a: &Operand<'_>,
    n: usize,
) -> Result<(Out, Out, Out)> {
    let one = a.with_layout(first_matrix(a)?)?;
    let stack = Stack::new(&[], n, n, true);
    let lu = copy_stack(device, &one, &stack)?;
    let ipiv = alloc(device, n, DType::I64)?;
    let info = alloc(device, 1, DType::I32)?;
    with_solver(device, |dn| {
        let mut ws = dn.getrf_workspace::<T>(n, lu.device_ptr())?;
        // SAFETY: `lu` holds the n x n matrix (leading dimension n), `ipiv` n pivots,
        // `info` one word.
        unsafe {
            dn.getrf::<T>(
                n,
                lu.device_ptr(),
                ipiv.device_ptr(),
                &mut ws,
                info.device_ptr(),
            )
        }
    })?;
    Ok((
        Out {
            buf: Arc::new(lu),
            layout: stack.layout(),
        },
        Out {
            buf: Arc::new(ipiv),
            layout: Layout::contiguous(&[n]),
        },
        Out {
            buf: Arc::new(info),
            layout: Layout::contiguous(&[]),
        },
    ))
}

/// The second half of a blocked solve: `x = U⁻¹ L⁻¹ pb` for the factors `lu` of
/// [`run_solve_factor`] and `pb`, the right-hand sides with the pivots' permutation
/// applied (the plan's full shape `(batch..., n, k)`), in diagonal blocks of `nb`.
pub(crate) fn run_solve_blocked<T: SolverElement>(
    device: &Device,
    p: &SolvePlan,
    lu: &Out,
    pb: &Operand<'_>,
    nb: usize,
) -> Result<Out> {
    let (n, size) = (p.n, std::mem::size_of::<T>());
    let cols = p.batch.iter().product::<usize>() * p.k;
    let x_stack = Stack::new(&p.batch, n, p.k, true);
    // The right-hand sides as one column-major n x cols matrix (the stack of Fortran
    // matrices is one), solved in two steps: L z = y, then U x = z.
    let y = copy_stack(device, pb, &x_stack)?;
    let z = alloc(device, n * cols, T::DTYPE)?;
    let blocks = n.div_ceil(nb);
    let full = n / nb;
    let lu_ptr = lu.buf.device_ptr();
    let at = |r: usize, c: usize| lu_ptr + ((r + c * n) * size) as u64;
    let row = |buf: &DeviceBuffer, r: usize| buf.device_ptr() + (r * size) as u64;
    // Identities in `blocks` nb x nb slots, made the inverses of the diagonal blocks of L
    // (unit lower) and of U (upper).
    let inverses = |lower_unit: bool| -> Result<DeviceBuffer> {
        let inv_stack = Stack::new(&[blocks], nb, nb, true);
        let inv = alloc(device, inv_stack.len(), T::DTYPE)?;
        let op = Operand::new(&inv, Cow::Owned(inv_stack.layout()), T::DTYPE)?;
        crate::ops::elementwise::run(
            device,
            "eyes",
            EYES_BODY,
            &[op],
            &[],
            &[Scalar::of(nb as i64)],
        )?;
        let slot = (nb * nb * size) as u64;
        let diag = (nb * (n + 1) * size) as u64;
        let a_ptrs = pointer_array(device, lu_ptr, diag as usize, full)?;
        let b_ptrs = pointer_array(device, inv.device_ptr(), slot as usize, full)?;
        let rest = n - full * nb;
        let (a1, b1) = if rest > 0 {
            (
                Some(pointer_array(device, at(full * nb, full * nb), 0, 1)?),
                Some(pointer_array(
                    device,
                    inv.device_ptr() + full as u64 * slot,
                    0,
                    1,
                )?),
            )
        } else {
            (None, None)
        };
        with_blas(device, |blas| {
            // SAFETY: `a_ptrs` addresses the `full` nb x nb diagonal blocks of `lu`
            // (leading dimension n), `b_ptrs` the nb x nb slots of `inv` (leading
            // dimension nb); the last, partial block the same with its size.
            unsafe {
                if full > 0 {
                    solver::trsm_batched::<T>(
                        blas,
                        lower_unit,
                        nb,
                        nb,
                        (a_ptrs.device_ptr(), n),
                        (b_ptrs.device_ptr(), nb),
                        full,
                    )?;
                }
                if let (Some(a1), Some(b1)) = (&a1, &b1) {
                    solver::trsm_batched::<T>(
                        blas,
                        lower_unit,
                        rest,
                        rest,
                        (a1.device_ptr(), n),
                        (b1.device_ptr(), nb),
                        1,
                    )?;
                }
                Ok(())
            }
        })?;
        Ok(inv)
    };
    let l_inv = inverses(true)?;
    let u_inv = inverses(false)?;
    let slot = |inv: &DeviceBuffer, j: usize| inv.device_ptr() + (j * nb * nb * size) as u64;
    with_blas(device, |blas| {
        // SAFETY: every block addressed lies inside its buffer: rows [j0, j0 + jb) of the
        // n x cols matrices `y` and `z` (leading dimension n), the blocks of `lu` below
        // and above its diagonal block j (leading dimension n), and slot j of the
        // inverses (leading dimension nb).
        unsafe {
            for j in 0..blocks {
                let (j0, jb) = (j * nb, nb.min(n - j * nb));
                // z_j = L_jj⁻¹ y_j; then y below -= L[below, j] z_j.
                solver::gemm_nn::<T>(
                    blas,
                    (jb, cols, jb),
                    1.0,
                    (slot(&l_inv, j), nb),
                    (row(&y, j0), n),
                    0.0,
                    (row(&z, j0), n),
                )?;
                let below = n - j0 - jb;
                if below > 0 {
                    solver::gemm_nn::<T>(
                        blas,
                        (below, cols, jb),
                        -1.0,
                        (at(j0 + jb, j0), n),
                        (row(&z, j0), n),
                        1.0,
                        (row(&y, j0 + jb), n),
                    )?;
                }
            }
            for j in (0..blocks).rev() {
                let (j0, jb) = (j * nb, nb.min(n - j * nb));
                // x_j = U_jj⁻¹ z_j (into y); then z above -= U[above, j] x_j.
                solver::gemm_nn::<T>(
                    blas,
                    (jb, cols, jb),
                    1.0,
                    (slot(&u_inv, j), nb),
                    (row(&z, j0), n),
                    0.0,
                    (row(&y, j0), n),
                )?;
                if j0 > 0 {
                    solver::gemm_nn::<T>(
                        blas,
                        (j0, cols, jb),
                        -1.0,
                        (at(0, j0), n),
                        (row(&y, j0), n),
                        1.0,
                        (row(&z, 0), n),
                    )?;
                }
            }
        }
        Ok(())
    })?;
    Ok(Out {
        buf: Arc::new(y),
        layout: x_stack.layout(),
    })
}

/// Solves with `a` (of the plan's full shape, broadcast applied) and `b` (of shape
/// `(batch..., n, k)`, broadcast applied), or with identities when `b` is `None` (`inv`):
/// the solution (column-major matrices) and the info array over the batch.
///
/// `a` is copied in Fortran order, so that the routines factorise `A` itself (not `Aᵀ`,
/// which a C-order copy would be): the zero pivot reported is NumPy's (LAPACK's), and
/// `getrs` runs untransposed, which is the faster form.
pub(crate) fn run_solve<T: SolverElement>(
    device: &Device,
    p: &SolvePlan,
    a: &Operand<'_>,
    b: Option<&Operand<'_>>,
) -> Result<(Out, Out)> {
    let (n, k) = (p.n, p.k);
    let count: usize = p.batch.iter().product();
    let size = std::mem::size_of::<T>();
    let x_stack = Stack::new(&p.batch, n, k, true);
    let x = alloc(device, x_stack.len(), T::DTYPE)?;
    let x_layout = x_stack.layout();
    if x_stack.is_empty() {
        return Ok((
            Out {
                buf: Arc::new(x),
                layout: x_layout,
            },
            info_array(device, &p.batch, true)?,
        ));
    }
    let x_op = Operand::new(&x, Cow::Borrowed(&x_layout), T::DTYPE)?;
    match b {
        Some(b) => crate::ops::elementwise::run(
            device,
            "copy",
            COPY_BODY,
            &[x_op],
            std::slice::from_ref(b),
            &[],
        )?,
        None => crate::ops::elementwise::run(
            device,
            "eyes",
            EYES_BODY,
            &[x_op],
            &[],
            &[Scalar::of(n as i64)],
        )?,
    }
    let (fortran, trans) = (true, false);
    let info = info_array(device, &p.batch, false)?;
    if p.factor_once {
        let (lu, ipiv, info0) = run_solve_factor::<T>(device, a, n)?;
        let dummy = scratch_info(device)?;
        with_solver(device, |dn| {
            // SAFETY: `lu` holds the n x n factor, `ipiv` n pivots, `x` the n x (count k)
            // right-hand sides, column-major with leading dimension n.
            unsafe {
                dn.getrs::<T>(
                    trans,
                    n,
                    count * k,
                    lu.buf.device_ptr(),
                    ipiv.buf.device_ptr(),
                    x.device_ptr(),
                    dummy,
                )
            }
        })?;
        // The one factorisation's info, for every matrix of the batch.
        let src = Layout::from_parts(p.batch.clone(), vec![0; p.batch.len()], 0);
        let src = Operand::new(&info0.buf, Cow::Owned(src), DType::I32)?;
        let dst = Operand::new(&info.buf, Cow::Borrowed(&info.layout), DType::I32)?;
        crate::ops::elementwise::run(device, "copy", COPY_BODY, &[dst], &[src], &[])?;
    } else {
        let stack = Stack::new(&p.batch, n, n, fortran);
        let lu = copy_stack(device, a, &stack)?;
        if p.batched {
            let a_ptrs = pointer_array(device, lu.device_ptr(), n * n * size, count)?;
            let x_ptrs = pointer_array(device, x.device_ptr(), n * k * size, count)?;
            let piv = alloc(device, count * n, DType::I32)?;
            with_blas(device, |blas| {
                // SAFETY: the pointer arrays address `count` n x n factors and n x k
                // right-hand sides (leading dimension n) inside `lu` and `x`; `piv` holds
                // count * n pivots, `info` count words.
                unsafe {
                    solver::getrf_batched::<T>(
                        blas,
                        n,
                        a_ptrs.device_ptr(),
                        piv.device_ptr(),
                        info.buf.device_ptr(),
                        count,
                    )?;
                    solver::getrs_batched::<T>(
                        blas,
                        trans,
                        n,
                        k,
                        a_ptrs.device_ptr(),
                        piv.device_ptr(),
                        x_ptrs.device_ptr(),
                        count,
                    )
                }
            })?;
        } else {
            let ipiv = alloc(device, count * n, DType::I64)?;
            let dummy = scratch_info(device)?;
            with_solver(device, |dn| {
                let mut ws = dn.getrf_workspace::<T>(n, lu.device_ptr())?;
                for i in 0..count {
                    let a_i = lu.device_ptr() + (i * n * n * size) as u64;
                    let piv_i = ipiv.device_ptr() + (i * n * 8) as u64;
                    let x_i = x.device_ptr() + (i * n * k * size) as u64;
                    let info_i = info.buf.device_ptr() + (i * 4) as u64;
                    // SAFETY: matrix i of `lu`, its pivots, its right-hand sides and its
                    // info word, all inside their buffers.
                    unsafe {
                        dn.getrf::<T>(n, a_i, piv_i, &mut ws, info_i)?;
                        dn.getrs::<T>(trans, n, k, a_i, piv_i, x_i, dummy)?;
                    }
                }
                Ok(())
            })?;
        }
    }
    Ok((
        Out {
            buf: Arc::new(x),
            layout: x_layout,
        },
        info,
    ))
}

/// The LU factorisation of the square matrices of `a` (shape `(batch..., n, n)`): the
/// factors of `a` itself (a column-major copy, as LAPACK factorises NumPy's copy, so that
/// partial pivoting meets the same pivots, and an exact zero pivot where NumPy meets one),
/// the 1-based pivots as `i64` `(batch..., n)`, and the info array.
pub(crate) fn run_lu<T: SolverElement>(
    device: &Device,
    a: &Operand<'_>,
    batch: &[usize],
    n: usize,
) -> Result<(Out, Out, Out)> {
    let count: usize = batch.iter().product();
    let size = std::mem::size_of::<T>();
    let stack = Stack::new(batch, n, n, true);
    let lu = copy_stack(device, a, &stack)?;
    let mut piv_shape = batch.to_vec();
    piv_shape.push(n);
    let piv_layout = Layout::contiguous(&piv_shape);
    let piv = alloc(device, count * n, DType::I64)?;
    if stack.is_empty() {
        return Ok((
            Out {
                buf: Arc::new(lu),
                layout: stack.layout(),
            },
            Out {
                buf: Arc::new(piv),
                layout: piv_layout,
            },
            info_array(device, batch, true)?,
        ));
    }
    let info = info_array(device, batch, false)?;
    if count > 1 && n <= SMALL_N {
        let ptrs = pointer_array(device, lu.device_ptr(), n * n * size, count)?;
        let piv32 = alloc(device, count * n, DType::I32)?;
        with_blas(device, |blas| {
            // SAFETY: `ptrs` addresses the `count` n x n matrices of `lu`; `piv32` holds
            // count * n pivots, `info` count words.
            unsafe {
                solver::getrf_batched::<T>(
                    blas,
                    n,
                    ptrs.device_ptr(),
                    piv32.device_ptr(),
                    info.buf.device_ptr(),
                    count,
                )
            }
        })?;
        let src = Operand::new(&piv32, Cow::Borrowed(&piv_layout), DType::I32)?;
        let dst = Operand::new(&piv, Cow::Borrowed(&piv_layout), DType::I64)?;
        crate::ops::elementwise::run(device, "cast", CAST_BODY, &[dst], &[src], &[])?;
    } else {
        with_solver(device, |dn| {
            let mut ws = dn.getrf_workspace::<T>(n, lu.device_ptr())?;
            for i in 0..count {
                // SAFETY: matrix i of `lu`, its pivots and info word.
                unsafe {
                    dn.getrf::<T>(
                        n,
                        lu.device_ptr() + (i * n * n * size) as u64,
                        piv.device_ptr() + (i * n * 8) as u64,
                        &mut ws,
                        info.buf.device_ptr() + (i * 4) as u64,
                    )?;
                }
            }
            Ok(())
        })?;
    }
    Ok((
        Out {
            buf: Arc::new(lu),
            layout: stack.layout(),
        },
        Out {
            buf: Arc::new(piv),
            layout: piv_layout,
        },
        info,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solve_plans() {
        // Batch broadcasting: (3, 1) x (4,) -> (3, 4).
        let p = plan_solve(&[3, 1, 5, 5], &[4, 5, 2]).unwrap();
        assert_eq!(p.batch, vec![3, 4]);
        assert!(p.batched && !p.factor_once);
        // One large matrix.
        let p = plan_solve(&[4096, 4096], &[4096, 64]).unwrap();
        assert!(!p.batched && !p.factor_once && p.batch.is_empty());
        // One matrix for a batch of right-hand sides.
        let p = plan_solve(&[1, 8, 8], &[7, 8, 2]).unwrap();
        assert!(p.factor_once && !p.batched);
        // A batch of large matrices loops.
        let p = plan_solve(&[3, 100, 100], &[3, 100, 1]).unwrap();
        assert!(!p.batched && !p.factor_once);
        // Errors name the shapes.
        let e = plan_solve(&[2, 3, 3], &[4, 3, 1]).unwrap_err().to_string();
        assert!(e.contains("[2]") && e.contains("[4]"), "{e}");
        let e = plan_solve(&[3, 3], &[4, 1]).unwrap_err().to_string();
        assert!(e.contains("[3, 3]") && e.contains("[4, 1]"), "{e}");
        assert!(plan_solve(&[3, 4], &[3, 1]).is_err());
    }

    #[test]
    fn plan_solve_example() {
        use crate::linalg::solve::plan_solve;
        let p = plan_solve(&[10000, 8, 8], &[10000, 8, 1]).unwrap();
        assert!(p.batched && !p.factor_once);
        let p = plan_solve(&[64, 64], &[5, 64, 3]).unwrap();
        assert_eq!((p.batch.clone(), p.factor_once), (vec![5], true));
        assert!(plan_solve(&[3, 3], &[4, 1]).is_err());
    }

    #[test]
    fn solve_blocks_example() {
        use crate::linalg::solve::{plan_solve, solve_blocks};
        assert_eq!(
            solve_blocks(&plan_solve(&[4096, 4096], &[4096, 64]).unwrap()),
            Some(256)
        );
        assert_eq!(
            solve_blocks(&plan_solve(&[4096, 4096], &[3, 4096, 2]).unwrap()),
            Some(256)
        );
        assert_eq!(
            solve_blocks(&plan_solve(&[2, 4096, 4096], &[2, 4096, 1]).unwrap()),
            None
        );
        assert_eq!(
            solve_blocks(&plan_solve(&[100, 100], &[100, 1]).unwrap()),
            None
        );
    }

    #[test]
    fn compose_pivots_example() {
        use crate::linalg::solve::compose_pivots;
        assert_eq!(compose_pivots(&[3, 2, 3]), vec![2, 1, 0]);
        assert_eq!(compose_pivots(&[2, 3, 3]), vec![1, 2, 0]);
    }
}
