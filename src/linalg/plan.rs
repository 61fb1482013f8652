//! Linear algebra on cuSOLVER (and cuBLAS's batched LU): the pure plans (batch shapes,
//! which routine, which memory order) and the runs, which copy the operands into a
//! workspace cuSOLVER may overwrite and call the wrappers of `libs::solver`.
//!
//! cuSOLVER is column-major and works in place, so every run first copies its input into
//! a fresh stack of matrices (the one copy kernel, from any view: transposed, stepped,
//! broadcast), and folds work into that copy:
//! - `solve`, `inv`, `cholesky`, `eigh` and `qr` copy into Fortran order, so that the
//!   routines see `A` itself: the pivot of a singular matrix is LAPACK's, `getrs` runs
//!   untransposed, and `potrf`/`syevd` read the lower triangle (NumPy's), which `Xpotrf`
//!   factors twice as fast as the upper one and `potrfBatched` alone supports;
//! - `cholesky` copies only the lower triangle and zeros the rest (`potrf` leaves the
//!   other triangle untouched), so the result needs no `tril` pass;
//! - `inv` solves against identities written in place;
//! - `svd` and `det` copy in C order (as the input lies, usually): read column-major that
//!   is `Aᵀ`, whose SVD gives `A`'s with `U` and `V` swapped and whose determinant is
//!   `A`'s.
//!
//! Many small matrices (`n <= 32`, more than one) take the batched routines: cuBLAS's
//! `getrfBatched`/`getrsBatched`, `potrfBatched`, `gesvdjBatched`, `syevjBatched`. One
//! large matrix takes the 64-bit API (`Xgetrf`, `Xpotrf`, `Xgeqrf`, `Xsyevd`) or the
//! Jacobi SVD (`gesvdj`); a batch of large ones loops over it.
//!
//! The checked `solve` of one large factorisation solves its triangles by blocks
//! ([`solve_blocks`]): inverted diagonal blocks and matrix products instead of
//! `Xgetrs`, whose row-by-row walk is a seventh of a 4096 x 4096 solve.
//!
//! The info arrays (one `i32` per matrix) stay on the device; reading them is the
//! caller's choice (`linalg`'s checked functions read them once, the `_ex` ones return
//! them).

use super::cusolver::{self as solver, with_solver, SolverElement};
use crate::device::{Device, DeviceBuffer};
use crate::element::DType;
use crate::kernels::abi::Scalar;
use crate::libs::blas::with_blas;
use crate::ops::catalogue::{ARANGE_I_BODY, CAST_BODY, COPY_BODY, FILL_BODY};
use crate::ops::Operand;
use crate::shape::{c_strides, Layout};
use crate::{Error, Result};
use cudarc::driver::sys::CUdeviceptr;
use std::borrow::Cow;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

/// Largest `n` (rows and columns) of the batched routines for many small matrices.
pub const SMALL_N: usize = 32;

/// `out = in` on and above the diagonal (C-contiguous output of `s1 x s0` matrices), zero
/// below.
const TRIU_BODY: &str = "out0 = ((i % s0) >= ((i / s0) % s1)) ? in0 : out0_t(0);";
/// A stack of `n x n` identities (C-contiguous output; `s0` = n).
const EYES_BODY: &str = "out0 = ((i % s0) == ((i / s0) % s0)) ? out0_t(1) : out0_t(0);";

/// A stack of `rows x cols` matrices, one after the other in a buffer of their own, each
/// in row-major (C) or column-major (Fortran) order; the batch in C order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stack {
    /// Batch shape.
    pub batch: Vec<usize>,
    /// Rows of each matrix.
    pub rows: usize,
    /// Columns of each matrix.
    pub cols: usize,
    /// Column-major matrices.
    pub fortran: bool,
}

impl Stack {
    /// A stack of `rows x cols` matrices over `batch`.
    pub fn new(batch: &[usize], rows: usize, cols: usize, fortran: bool) -> Stack {
        Stack {
            batch: batch.to_vec(),
            rows,
            cols,
            fortran,
        }
    }
    /// Number of matrices.
    pub fn count(&self) -> usize {
        self.batch.iter().product()
    }
    /// Elements per matrix.
    pub fn elems(&self) -> usize {
        self.rows * self.cols
    }
    /// Elements in all.
    pub fn len(&self) -> usize {
        self.count() * self.elems()
    }
    /// True when the stack holds no element.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The stack as an array layout `(batch..., rows, cols)`.
    ///
    /// ```
    /// use cuarray::linalg::plan::Stack;
    /// let l = Stack::new(&[2], 3, 4, true).layout();
    /// assert_eq!((l.shape(), l.strides()), (&[2, 3, 4][..], &[12, 1, 3][..]));
    /// ```
    pub fn layout(&self) -> Layout {
        let mut shape = self.batch.clone();
        shape.extend([self.rows, self.cols]);
        let mut strides: Vec<isize> = c_strides(&self.batch)
            .into_iter()
            .map(|s| s * self.elems() as isize)
            .collect();
        if self.fortran {
            strides.extend([1, self.rows.max(1) as isize]);
        } else {
            strides.extend([self.cols.max(1) as isize, 1]);
        }
        Layout::from_parts(shape, strides, 0)
    }
}

/// True when the matrices of `layout` (its last two axes) are column-major, so that a
/// column-major copy reads them in order (a transposed view, a Fortran-order array).
///
/// ```
/// use cuarray::linalg::plan::prefers_fortran;
/// use cuarray::shape::Layout;
/// assert!(!prefers_fortran(&Layout::contiguous(&[3, 3])));
/// assert!(prefers_fortran(&Layout::contiguous(&[4, 3]).t()));
/// ```
pub fn prefers_fortran(layout: &Layout) -> bool {
    let d = layout.ndim();
    if d < 2 {
        return false;
    }
    let (r, c) = (layout.shape()[d - 2], layout.shape()[d - 1]);
    let (sr, sc) = (layout.strides()[d - 2], layout.strides()[d - 1]);
    r > 1 && c > 1 && sr == 1 && sc >= r as isize
}

/// The batch shape and the matrix size of a stack of square matrices `(..., n, n)`.
///
/// ```
/// use cuarray::linalg::plan::square;
/// assert_eq!(square("inv", &[5, 3, 3]).unwrap(), (vec![5], 3));
/// assert!(square("inv", &[3, 4]).is_err());
/// assert!(square("inv", &[3]).is_err());
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] naming `op` when `shape` has fewer than two dimensions or its
/// last two differ.
pub fn square(op: &'static str, shape: &[usize]) -> Result<(Vec<usize>, usize)> {
    let d = shape.len();
    if d < 2 {
        return Err(Error::invalid(
            op,
            format!("needs an array of at least two dimensions, got shape {shape:?}"),
        ));
    }
    if shape[d - 1] != shape[d - 2] {
        return Err(Error::invalid(
            op,
            format!("the last two dimensions must be square, got shape {shape:?}"),
        ));
    }
    Ok((shape[..d - 2].to_vec(), shape[d - 1]))
}

/// The batch shape and matrix size `(m, n)` of a stack of matrices `(..., m, n)`.
///
/// # Errors
/// [`Error::InvalidArgument`] naming `op` when `shape` has fewer than two dimensions.
pub fn matrices(op: &'static str, shape: &[usize]) -> Result<(Vec<usize>, usize, usize)> {
    let d = shape.len();
    if d < 2 {
        return Err(Error::invalid(
            op,
            format!("needs an array of at least two dimensions, got shape {shape:?}"),
        ));
    }
    Ok((shape[..d - 2].to_vec(), shape[d - 2], shape[d - 1]))
}

/// The plan of `solve(a, b)` (and of `inv(a)`, as a solve against identities).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SolvePlan {
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
/// ```
/// use cuarray::linalg::plan::plan_solve;
/// let p = plan_solve(&[10000, 8, 8], &[10000, 8, 1]).unwrap();
/// assert!(p.batched && !p.factor_once);
/// let p = plan_solve(&[64, 64], &[5, 64, 3]).unwrap();
/// assert_eq!((p.batch.clone(), p.factor_once), (vec![5], true));
/// assert!(plan_solve(&[3, 3], &[4, 1]).is_err());
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] when `a` is not a stack of square matrices or `b` has fewer
/// than two dimensions; [`Error::ShapeMismatch`] when `b`'s rows differ from `n`;
/// [`Error::Broadcast`] when the batch dimensions do not broadcast.
pub fn plan_solve(a: &[usize], b: &[usize]) -> Result<SolvePlan> {
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

/// An output of a run: its buffer and the layout to view it through.
#[derive(Clone)]
pub(crate) struct Out {
    pub(crate) buf: Arc<DeviceBuffer>,
    pub(crate) layout: Layout,
}

fn alloc(device: &Device, elems: usize, dtype: DType) -> Result<DeviceBuffer> {
    let bytes = elems
        .checked_mul(dtype.size())
        .ok_or_else(|| Error::TooLarge {
            op: "linalg",
            shape: vec![elems],
            elem_bytes: Some(dtype.size()),
        })?;
    DeviceBuffer::alloc(device, bytes.max(1))
}

/// A fresh `i32` info array over `batch`, zeroed when `zero` (for the cases where no
/// routine writes it).
fn info_array(device: &Device, batch: &[usize], zero: bool) -> Result<Out> {
    let count: usize = batch.iter().product();
    let buf = alloc(device, count, DType::I32)?;
    let layout = Layout::contiguous(batch);
    if zero && count > 0 {
        let op = Operand::new(&buf, Cow::Borrowed(&layout), DType::I32)?;
        crate::ops::elementwise::run(device, "fill", FILL_BODY, &[op], &[], &[Scalar::of(0i32)])?;
    }
    Ok(Out {
        buf: Arc::new(buf),
        layout,
    })
}

/// Copies `src` (of the stack's shape, broadcast already) into a new buffer laid out as
/// `stack`.
fn copy_stack(device: &Device, src: &Operand<'_>, stack: &Stack) -> Result<DeviceBuffer> {
    let buf = alloc(device, stack.len(), src.dtype())?;
    if !stack.is_empty() {
        let dst = Operand::new(&buf, Cow::Owned(stack.layout()), src.dtype())?;
        crate::ops::elementwise::run(
            device,
            "copy",
            COPY_BODY,
            &[dst],
            std::slice::from_ref(src),
            &[],
        )?;
    }
    Ok(buf)
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

/// A device array of `count` addresses `base + i * stride_bytes` (the pointer arrays of
/// the batched routines), made on the device: no transfer.
fn pointer_array(
    device: &Device,
    base: CUdeviceptr,
    stride_bytes: usize,
    count: usize,
) -> Result<DeviceBuffer> {
    let buf = alloc(device, count, DType::U64)?;
    let layout = Layout::contiguous(&[count]);
    let op = Operand::new(&buf, Cow::Borrowed(&layout), DType::U64)?;
    crate::ops::elementwise::run(
        device,
        "arange_i",
        ARANGE_I_BODY,
        &[op],
        &[],
        &[Scalar::of(base as i64), Scalar::of(stride_bytes as i64)],
    )?;
    Ok(buf)
}

/// A scratch `i32` for the info of routines that only report argument errors there
/// (`getrs`, `geqrf`, `orgqr`), which cuarray's own checks already rule out.
fn scratch_info(device: &Device) -> Result<CUdeviceptr> {
    device.scratch("cusolver argument info", 4, false)
}

/// The diagonal block size of the blocked triangular solves of a checked `solve`
/// ([`solve_blocks`]); 0 takes `Xgetrs` instead. Set by benchmarks comparing them.
static SOLVE_BLOCK: AtomicU32 = AtomicU32::new(256);

/// Sets the diagonal block size of a checked `solve`'s triangular solves (0: cuSOLVER's
/// `Xgetrs`), for benchmarks comparing them.
#[doc(hidden)]
pub fn set_solve_block(nb: u32) {
    SOLVE_BLOCK.store(nb, Ordering::Relaxed)
}

/// The smallest `n` whose checked solve takes the blocked triangular solves
/// ([`solve_blocks`]).
pub const BLOCKED_SOLVE_MIN_N: usize = 1024;

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
///
/// ```
/// use cuarray::linalg::plan::{plan_solve, solve_blocks};
/// assert_eq!(solve_blocks(&plan_solve(&[4096, 4096], &[4096, 64]).unwrap()), Some(256));
/// assert_eq!(solve_blocks(&plan_solve(&[4096, 4096], &[3, 4096, 2]).unwrap()), Some(256));
/// assert_eq!(solve_blocks(&plan_solve(&[2, 4096, 4096], &[2, 4096, 1]).unwrap()), None);
/// assert_eq!(solve_blocks(&plan_solve(&[100, 100], &[100, 1]).unwrap()), None);
/// ```
pub fn solve_blocks(p: &SolvePlan) -> Option<usize> {
    let nb = SOLVE_BLOCK.load(Ordering::Relaxed) as usize;
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
///
/// ```
/// use cuarray::linalg::plan::compose_pivots;
/// assert_eq!(compose_pivots(&[3, 2, 3]), vec![2, 1, 0]);
/// assert_eq!(compose_pivots(&[2, 3, 3]), vec![1, 2, 0]);
/// ```
pub fn compose_pivots(ipiv: &[i64]) -> Vec<i64> {
    let mut perm: Vec<i64> = (0..ipiv.len() as i64).collect();
    for (i, &p) in ipiv.iter().enumerate() {
        let j = (p - 1).clamp(0, ipiv.len() as i64 - 1) as usize;
        perm.swap(i, j);
    }
    perm
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
/// factors (of `a` or of `aᵀ`, whichever order `a` lies in: the same determinant),
/// the 1-based pivots as `i64` `(batch..., n)`, and the info array.
pub(crate) fn run_lu<T: SolverElement>(
    device: &Device,
    a: &Operand<'_>,
    batch: &[usize],
    n: usize,
) -> Result<(Out, Out, Out)> {
    let count: usize = batch.iter().product();
    let size = std::mem::size_of::<T>();
    let stack = Stack::new(batch, n, n, prefers_fortran(a.layout()));
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

/// The reduced QR factorisation of the `m x n` matrices of `a`: `Q` (`m x k`, column-major
/// view) and `R` (`k x n`, C-contiguous, zeros below the diagonal), `k = min(m, n)`.
pub(crate) fn run_qr<T: SolverElement>(
    device: &Device,
    a: &Operand<'_>,
    batch: &[usize],
    (m, n): (usize, usize),
) -> Result<(Out, Out)> {
    let count: usize = batch.iter().product();
    let size = std::mem::size_of::<T>();
    let k = m.min(n);
    let stack = Stack::new(batch, m, n, true);
    let work = copy_stack(device, a, &stack)?;
    let r_stack = Stack::new(batch, k, n, false);
    let r = alloc(device, r_stack.len(), T::DTYPE)?;
    // Q: the first k columns of each m x n column-major matrix.
    let mut q_shape = batch.to_vec();
    q_shape.extend([m, k]);
    let mut q_strides: Vec<isize> = c_strides(batch)
        .into_iter()
        .map(|s| s * (m * n) as isize)
        .collect();
    q_strides.extend([1, m.max(1) as isize]);
    let q_layout = Layout::from_parts(q_shape, q_strides, 0);
    if count > 0 && k > 0 {
        let tau = alloc(device, count * k, T::DTYPE)?;
        let info = scratch_info(device)?;
        with_solver(device, |dn| {
            let mut ws = dn.geqrf_workspace::<T>(m, n, work.device_ptr(), tau.device_ptr())?;
            for i in 0..count {
                // SAFETY: matrix i of `work` (m x n, leading dimension m) and its k scales.
                unsafe {
                    dn.geqrf::<T>(
                        m,
                        n,
                        work.device_ptr() + (i * m * n * size) as u64,
                        tau.device_ptr() + (i * k * size) as u64,
                        &mut ws,
                        info,
                    )?;
                }
            }
            Ok(())
        })?;
        // R: the upper triangle of the first k rows, before orgqr overwrites them.
        let mut top = stack.layout();
        top = Layout::from_parts(
            {
                let mut s = batch.to_vec();
                s.extend([k, n]);
                s
            },
            top.strides().to_vec(),
            0,
        );
        let src = Operand::new(&work, Cow::Owned(top), T::DTYPE)?;
        let dst = Operand::new(&r, Cow::Owned(r_stack.layout()), T::DTYPE)?;
        crate::ops::elementwise::run(
            device,
            "triu",
            TRIU_BODY,
            &[dst],
            &[src],
            &[Scalar::of(n as i64), Scalar::of(k as i64)],
        )?;
        with_solver(device, |dn| {
            let mut ws = dn.orgqr_workspace::<T>((m, k, k), work.device_ptr(), tau.device_ptr())?;
            for i in 0..count {
                // SAFETY: as for geqrf; Q's k columns are formed in place.
                unsafe {
                    dn.orgqr::<T>(
                        m,
                        k,
                        k,
                        work.device_ptr() + (i * m * n * size) as u64,
                        tau.device_ptr() + (i * k * size) as u64,
                        &mut ws,
                        info,
                    )?;
                }
            }
            Ok(())
        })?;
    }
    Ok((
        Out {
            buf: Arc::new(work),
            layout: q_layout,
        },
        Out {
            buf: Arc::new(r),
            layout: r_stack.layout(),
        },
    ))
}

/// How the SVD of a matrix that is not one of many small ones is computed. Whatever the
/// choice, a matrix where it fails (info not zero) is redone by the QR method.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[doc(hidden)]
pub enum SvdAlgorithm {
    /// The default: the polar decomposition in f64 (checked) for large matrices with
    /// vectors, f32 ones included (see `polar_by_default`), else `Jacobi`. (Measured on an
    /// H200, f32 2048 x 2048 Gaussian: `gesvdj` 213 ms, `gesvd` 341 ms; f32 `Xgesvdp`
    /// fails the accuracy check there, which then costs a Jacobi SVD on top: 290 ms.)
    Auto,
    /// `gesvdj`.
    Jacobi,
    /// `Xgesvdp` (polar decomposition), economy size or square only; waits for the GPU.
    /// Its accuracy depends on the condition number: `linalg::svd` checks its results
    /// (`U S Vh = A`, orthonormal factors) and redoes failures by the Jacobi method.
    Polar,
    /// `Xgesvd` (QR iteration).
    Qr,
}

static SVD_ALGORITHM: AtomicU32 = AtomicU32::new(0);

/// The smallest dimension from which [`SvdAlgorithm::Auto`] takes the polar decomposition.
const POLAR_MIN: usize = 512;

/// Whether [`SvdAlgorithm::Auto`] computes the SVD of `m x n` matrices (not many small
/// ones) by the polar decomposition in f64, checked, for f64 and f32 alike: with vectors,
/// economy size or square, both sides at least [`POLAR_MIN`]. (H200, 2048 x 2048 Gaussian:
/// f64 `Xgesvdp` with its check 85 ms against 356 ms for f64 `gesvdj`; the f32 matrix
/// through f64 85 ms against 213 ms for f32 `gesvdj`, and more accurate.)
pub(crate) fn polar_by_default((m, n): (usize, usize), full: bool, vectors: bool) -> bool {
    svd_algorithm() == SvdAlgorithm::Auto && vectors && (!full || m == n) && m.min(n) >= POLAR_MIN
}

/// Chooses the routine of large single SVDs (for benchmarks comparing them).
#[doc(hidden)]
pub fn set_svd_algorithm(a: SvdAlgorithm) {
    SVD_ALGORITHM.store(a as u32, Ordering::Relaxed)
}

fn svd_algorithm() -> SvdAlgorithm {
    match SVD_ALGORITHM.load(Ordering::Relaxed) {
        1 => SvdAlgorithm::Jacobi,
        2 => SvdAlgorithm::Polar,
        3 => SvdAlgorithm::Qr,
        _ => SvdAlgorithm::Auto,
    }
}

/// Chooses `Xgetrf`'s algorithm, `CUSOLVER_ALG_0` (0, the default) or `_1` (for
/// benchmarks comparing them).
#[doc(hidden)]
pub fn set_getrf_algorithm(alg: u32) {
    solver::set_getrf_algorithm(alg)
}

/// The outputs of an SVD: `U` `(batch..., m, ucols)`, `S` `(batch..., k)`, `Vh`
/// `(batch..., vrows, n)` (`U`, `Vh` empty stacks without vectors), info.
pub(crate) struct SvdOut {
    pub(crate) u: Out,
    pub(crate) s: Out,
    pub(crate) vh: Out,
    pub(crate) info: Out,
    /// The matrices went through the polar decomposition, with their vectors even when
    /// not asked for: the caller checks them (it can be inaccurate on rank-deficient
    /// square matrices) and redoes failures with [`SvdAlgorithm::Jacobi`].
    pub(crate) polar: bool,
}

/// The SVD of the `m x n` matrices of `a` (the full shape, broadcast applied):
/// `full` as NumPy's `full_matrices`, `vectors` as its `compute_uv`. Matrices whose
/// Jacobi iteration did not converge have a non-zero info; [`run_svd_one`] redoes them.
pub(crate) fn run_svd<T: SolverElement>(
    device: &Device,
    a: &Operand<'_>,
    batch: &[usize],
    (m, n): (usize, usize),
    full: bool,
    vectors: bool,
) -> Result<SvdOut> {
    let count: usize = batch.iter().product();
    let size = std::mem::size_of::<T>();
    let k = m.min(n);
    // Aᵀ, column-major (n x m): A in C order as it lies. Its SVD Aᵀ = U' S V'ᵀ gives
    // A = V' S U'ᵀ: U = V' (m x ., column-major) and Vh = U'ᵀ (row-major).
    let small = count > 1 && m <= SMALL_N && n <= SMALL_N;
    let econ = !full && !small;
    let (ucols, vrows) = if full { (m, n) } else { (k, k) };
    // Per matrix: U' (n x [n or k]) and V' (m x [m or k]) as the routine writes them.
    let (up_cols, vp_cols) = if econ { (k, k) } else { (n, m) };
    let s = alloc(device, count * k, T::DTYPE)?;
    let up = alloc(device, count * n * up_cols, T::DTYPE)?;
    let vp = alloc(device, count * m * vp_cols, T::DTYPE)?;
    let info = info_array(device, batch, count * k == 0)?;
    let mut s_shape = batch.to_vec();
    s_shape.push(k);
    let bstrides = |per: usize| -> Vec<isize> {
        c_strides(batch)
            .into_iter()
            .map(|s| s * per as isize)
            .collect()
    };
    let u_layout = {
        let mut shape = batch.to_vec();
        shape.extend([m, ucols]);
        let mut st = bstrides(m * vp_cols);
        st.extend([1, m.max(1) as isize]);
        Layout::from_parts(shape, st, 0)
    };
    let vh_layout = {
        let mut shape = batch.to_vec();
        shape.extend([vrows, n]);
        let mut st = bstrides(n * up_cols);
        st.extend([n.max(1) as isize, 1]);
        Layout::from_parts(shape, st, 0)
    };
    let mut out = SvdOut {
        u: Out {
            buf: Arc::new(vp),
            layout: u_layout,
        },
        s: Out {
            buf: Arc::new(s),
            layout: Layout::contiguous(&s_shape),
        },
        vh: Out {
            buf: Arc::new(up),
            layout: vh_layout,
        },
        info,
        polar: false,
    };
    let polar = (svd_algorithm() == SvdAlgorithm::Polar
        || (T::DTYPE == DType::F64 && polar_by_default((m, n), full, vectors)))
        && (!full || m == n)
        && count * k > 0
        && !small;
    let one_by_one = if polar {
        Some(SvdAlgorithm::Polar)
    } else if svd_algorithm() == SvdAlgorithm::Qr {
        Some(SvdAlgorithm::Qr)
    } else {
        None
    };
    if let (Some(algo), true) = (one_by_one, count * k > 0 && !small) {
        out.polar = polar;
        for i in 0..count {
            run_svd_one::<T>(device, a, i, (m, n), full, vectors || polar, &out, algo)?;
        }
        return Ok(out);
    }
    if count * k == 0 {
        // Empty matrices: nothing to decompose. U and Vh of a full SVD are identities.
        if vectors && full {
            for o in [&out.u, &out.vh] {
                if o.layout.size() > 0 {
                    let c = Layout::contiguous(o.layout.shape());
                    let tmp = alloc(device, c.size(), T::DTYPE)?;
                    let dst = Operand::new(&tmp, Cow::Borrowed(&c), T::DTYPE)?;
                    let d = *o.layout.shape().last().unwrap_or(&1);
                    crate::ops::elementwise::run(
                        device,
                        "eyes",
                        EYES_BODY,
                        &[dst],
                        &[],
                        &[Scalar::of(d as i64)],
                    )?;
                    let src = Operand::new(&tmp, Cow::Borrowed(&c), T::DTYPE)?;
                    let dst = Operand::new(&o.buf, Cow::Borrowed(&o.layout), T::DTYPE)?;
                    crate::ops::elementwise::run(device, "copy", COPY_BODY, &[dst], &[src], &[])?;
                }
            }
        }
        return Ok(out);
    }
    let work = copy_stack(device, a, &Stack::new(batch, m, n, false))?;
    if small {
        with_solver(device, |dn| {
            // SAFETY: `work` holds count n x m matrices, `s` count * k values, `up` count
            // n x n and `vp` count m x m matrices, `info` count words.
            unsafe {
                dn.gesvdj_batched::<T>(
                    vectors,
                    (n, m),
                    work.device_ptr(),
                    out.s.buf.device_ptr(),
                    (out.vh.buf.device_ptr(), out.u.buf.device_ptr()),
                    out.info.buf.device_ptr(),
                    count,
                )
            }
        })?;
        return Ok(out);
    }
    with_solver(device, |dn| {
        let mut ws = None;
        for i in 0..count {
            // SAFETY: matrix i of `work` (n x m, leading dimension n), its k values, its
            // U' (n x up_cols) and V' (m x vp_cols) blocks and its info word.
            unsafe {
                dn.gesvdj::<T>(
                    vectors,
                    econ,
                    (n, m),
                    work.device_ptr() + (i * n * m * size) as u64,
                    out.s.buf.device_ptr() + (i * k * size) as u64,
                    (
                        out.vh.buf.device_ptr() + (i * n * up_cols * size) as u64,
                        out.u.buf.device_ptr() + (i * m * vp_cols * size) as u64,
                    ),
                    out.info.buf.device_ptr() + (i * 4) as u64,
                    &mut ws,
                )?;
            }
        }
        Ok(())
    })?;
    Ok(out)
}

/// Redoes the SVD of matrix `i` of `a` into `out` with `algo` (the QR method when the
/// Jacobi method did not converge), resetting its info word: temporaries in the
/// orientation the routine needs (rows >= columns), then copies into `out`'s views.
#[allow(clippy::too_many_arguments)]
pub(crate) fn run_svd_one<T: SolverElement>(
    device: &Device,
    a: &Operand<'_>,
    i: usize,
    (m, n): (usize, usize),
    full: bool,
    vectors: bool,
    out: &SvdOut,
    algo: SvdAlgorithm,
) -> Result<()> {
    let k = m.min(n);
    // Matrix i of `a` and of each output, as 2-D layouts.
    let pick = |l: &Layout| -> Layout {
        let d = l.ndim();
        let batch = &l.shape()[..d - 2];
        let mut off = l.offset() as isize;
        let mut rem = i;
        for ax in (0..batch.len()).rev() {
            let idx = rem % batch[ax];
            rem /= batch[ax];
            off += idx as isize * l.strides()[ax];
        }
        Layout::from_parts(
            l.shape()[d - 2..].to_vec(),
            l.strides()[d - 2..].to_vec(),
            off as usize,
        )
    };
    let a_i = a.with_layout(pick(a.layout()))?;
    // The tall orientation, column-major: `aᵀ` (n x m) when n >= m, which is `a` copied
    // in C order; else `a` (m x n), copied in Fortran order.
    let wide = n >= m;
    let (rows, cols) = if wide { (n, m) } else { (m, n) };
    let work = copy_stack(device, &a_i, &Stack::new(&[], m, n, !wide))?;
    let s = alloc(device, k, T::DTYPE)?;
    let info_i = out.info.buf.device_ptr() + (i * 4) as u64;
    let econ = !full;
    let ucols_t = if full { rows } else { k };
    let u_t = alloc(device, rows * ucols_t, T::DTYPE)?;
    // Vᵀ (Qr: ldvt x cols) or V (Polar: cols x k).
    let ldvt = if full { cols } else { k };
    let v_t = alloc(device, cols * cols.max(ldvt), T::DTYPE)?;
    with_solver(device, |dn| {
        // SAFETY: `work` holds the rows x cols matrix, `s` k values, `u_t` and `v_t` the
        // vectors' blocks at the leading dimensions passed, `info_i` one word of `out`.
        unsafe {
            match algo {
                SvdAlgorithm::Polar => dn.gesvdp::<T>(
                    vectors,
                    (rows, cols),
                    work.device_ptr(),
                    s.device_ptr(),
                    (u_t.device_ptr(), v_t.device_ptr()),
                    info_i,
                ),
                SvdAlgorithm::Jacobi | SvdAlgorithm::Auto => dn.gesvdj::<T>(
                    vectors,
                    econ,
                    (rows, cols),
                    work.device_ptr(),
                    s.device_ptr(),
                    (u_t.device_ptr(), v_t.device_ptr()),
                    info_i,
                    &mut None,
                ),
                _ => {
                    let job = if !vectors {
                        b'N'
                    } else if econ {
                        b'S'
                    } else {
                        b'A'
                    };
                    dn.gesvd::<T>(
                        (job, job),
                        (rows, cols),
                        work.device_ptr(),
                        s.device_ptr(),
                        (u_t.device_ptr(), v_t.device_ptr(), ldvt),
                        info_i,
                    )
                }
            }
        }
    })?;
    let copy = |dst_buf: &DeviceBuffer, dst: Layout, src_buf: &DeviceBuffer, src: Layout| {
        let d = Operand::new(dst_buf, Cow::Owned(dst), T::DTYPE)?;
        let s = Operand::new(src_buf, Cow::Owned(src), T::DTYPE)?;
        crate::ops::elementwise::run(device, "copy", COPY_BODY, &[d], &[s], &[])
    };
    let s_dst = Layout::from_parts(vec![k], vec![1], i * k);
    copy(&out.s.buf, s_dst, &s, Layout::contiguous(&[k]))?;
    if !vectors {
        return Ok(());
    }
    let (u_dst, vh_dst) = (pick(&out.u.layout), pick(&out.vh.layout));
    let (ur, uc) = (u_dst.shape()[0], u_dst.shape()[1]);
    let (vr, vc) = (vh_dst.shape()[0], vh_dst.shape()[1]);
    // The tall routine's U_t (rows x ucols_t, ld rows) and its second factor: Vᵀ_t
    // (ldvt x cols, ld ldvt) for Qr, V_t (cols x k, ld cols) for Polar.
    let second = |r: usize, c: usize, transposed: bool| -> Layout {
        // Element (p, q) of the wanted matrix.
        match (algo, transposed) {
            // Vᵀ_t(p, q) at p + q * ldvt.
            (SvdAlgorithm::Qr, false) => Layout::from_parts(vec![r, c], vec![1, ldvt as isize], 0),
            // (Vᵀ_t)ᵀ(p, q) = Vᵀ_t(q, p) at q + p * ldvt.
            (SvdAlgorithm::Qr, true) => Layout::from_parts(vec![r, c], vec![ldvt as isize, 1], 0),
            // Vᵀ from V_t: (p, q) = V_t(q, p) at q + p * cols.
            (_, false) => Layout::from_parts(vec![r, c], vec![cols as isize, 1], 0),
            // V_t itself: (p, q) at p + q * cols.
            (_, true) => Layout::from_parts(vec![r, c], vec![1, cols as isize], 0),
        }
    };
    if wide {
        // aᵀ = U_t S Vᵀ_t: U = (Vᵀ_t)ᵀ, Vh = U_tᵀ.
        copy(&out.u.buf, u_dst, &v_t, second(ur, uc, true))?;
        let vh_src = Layout::from_parts(vec![vr, vc], vec![rows as isize, 1], 0);
        copy(&out.vh.buf, vh_dst, &u_t, vh_src)?;
    } else {
        // a = U_t S Vᵀ_t.
        let u_src = Layout::from_parts(vec![ur, uc], vec![1, rows as isize], 0);
        copy(&out.u.buf, u_dst, &u_t, u_src)?;
        copy(&out.vh.buf, vh_dst, &v_t, second(vr, vc, false))?;
    }
    Ok(())
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
    let size = std::mem::size_of::<T>();
    // A in Fortran order, its lower triangle read (as PyTorch; the upper triangle of a
    // C-order copy is no faster).
    let stack = Stack::new(batch, n, n, true);
    let work = copy_stack(device, a, &stack)?;
    let v_layout = Stack::new(batch, n, n, true).layout();
    let mut w_shape = batch.to_vec();
    w_shape.push(n);
    let w = alloc(device, count * n, T::DTYPE)?;
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
                    // SAFETY: matrix i of `work`, its n values and info word.
                    unsafe {
                        dn.syevd::<T>(
                            vectors,
                            false,
                            n,
                            work.device_ptr() + (i * n * n * size) as u64,
                            w.device_ptr() + (i * n * size) as u64,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stacks() {
        let s = Stack::new(&[2, 3], 4, 5, false);
        assert_eq!((s.count(), s.len()), (6, 120));
        let l = s.layout();
        assert_eq!(l.shape(), &[2, 3, 4, 5]);
        assert_eq!(l.strides(), &[60, 20, 5, 1]);
        let f = Stack::new(&[2], 4, 5, true).layout();
        assert_eq!(f.strides(), &[20, 1, 4]);
        assert!(Stack::new(&[0], 3, 3, false).is_empty());
    }

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
    fn orders() {
        assert!(!prefers_fortran(&Layout::contiguous(&[2, 3, 3])));
        assert!(prefers_fortran(&Stack::new(&[2], 3, 3, true).layout()));
        // A broadcast or stepped view is copied in C order.
        assert!(!prefers_fortran(&Layout::from_parts(
            vec![3, 3],
            vec![0, 1],
            0
        )));
        assert!(!prefers_fortran(&Layout::from_parts(
            vec![3, 3],
            vec![2, 6],
            0
        )));
    }
}
