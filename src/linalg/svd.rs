//! The singular value decomposition: [`svd`], [`svdvals`], the choice of routine
//! ([`SvdAlgorithm`]) and the runs on cuSOLVER (`gesvdjBatched`, `gesvdj`, `Xgesvdp`,
//! `Xgesvd`).

use super::common::{
    alloc, argument_error, check_converged, copy_op, copy_stack_conj, ct, first_failure,
    info_array, matrices, wrap, Out, Stack, CONJ_BODY, EYES_BODY, SMALL_N,
};
use super::cusolver::{with_solver, SolverElement};
use crate::array::DeviceArray;
use crate::device::{Device, DeviceBuffer};
use crate::element::{DType, Element};
use crate::kernels::abi::Scalar;
use crate::ops::Operand;
use crate::shape::{c_strides, Layout};
#[cfg(doc)]
use crate::Error;
use crate::Result;
use std::borrow::Cow;
use std::sync::Arc;

/// SVD with the Jacobi method (large matrices with vectors: the polar decomposition in
/// f64, checked, see `polar_by_default`), and the QR method for what it leaves unconverged
/// (one read of the info array); `U` and `Vh` are empty stacks without `vectors`.
pub(super) fn svd_impl<T: SolverElement>(
    op: &'static str,
    a: &DeviceArray<T>,
    full_matrices: bool,
    vectors: bool,
) -> Result<Svd<T>> {
    let (batch, m, n) = matrices(op, a.shape())?;
    if polar_by_default((m, n), full_matrices, vectors) {
        // Faster than the single-precision routines there, and more accurate.
        if T::DTYPE == crate::DType::F32 {
            let (u, s, vh) = svd_impl::<f64>(op, &a.astype::<f64>()?, full_matrices, vectors)?;
            return Ok((
                u.astype::<T>()?,
                s.astype::<T::Spectral>()?,
                vh.astype::<T>()?,
            ));
        }
        if T::DTYPE == crate::DType::C64 {
            let wide = a.astype::<crate::Complex64>()?;
            let (u, s, vh) = svd_impl::<crate::Complex64>(op, &wide, full_matrices, vectors)?;
            return Ok((
                u.astype::<T>()?,
                s.astype::<T::Spectral>()?,
                vh.astype::<T>()?,
            ));
        }
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
            wrap::<T::Spectral>(out.s.clone()),
            wrap::<T>(out.vh.clone()),
        );
        let eps = if T::Spectral::DTYPE == crate::DType::F32 {
            f32::EPSILON as f64
        } else {
            f64::EPSILON
        };
        let tol = T::Spectral::from_f64(10.0 * (m + n) as f64 * eps);
        let fro = |x: &DeviceArray<T>| {
            x.abs()?
                .square()?
                .sum_axes(&[-2isize, -1][..], false)?
                .sqrt()
        };
        let s = s.astype::<T>()?;
        let residual = fro(&u.mul(&s.expand_dims(-2)?)?.matmul(&vh)?.sub(a)?)?;
        let bad = residual
            .gt(&fro(a)?.mul(tol)?)?
            .logical_or(&residual.isnan()?)?;
        let eye = |k: usize| DeviceArray::<T>::eye(dev, k);
        let du = fro(&ct(&u)?.matmul(&u)?.sub(&eye(u.shape()[u.ndim() - 1])?)?)?;
        let dv = fro(&vh
            .matmul(&ct(&vh)?)?
            .sub(&eye(vh.shape()[vh.ndim() - 2])?)?)?;
        // Entries of UᴴU - I are sums of m products: their Frobenius norm grows as
        // sqrt(k), which the bound per column takes out.
        let cols = T::Spectral::from_f64((10.0 * (m + n) as f64 * eps) * (m.min(n) as f64).sqrt());
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
/// in descending order (real: [`SolverElement::Spectral`], `f32` for
/// [`Complex32`](crate::Complex32)), `Vh` `(..., n, n)` or `(..., k, n)`, with
/// `k = min(m, n)` and `a = U diag(S) Vh` (`full_matrices` chooses the square or the
/// economy-size factors; `U` and `Vh` unitary for complex types).
///
/// Many matrices of at most 32 x 32 take the batched Jacobi method (`gesvdjBatched`).
/// Matrices of at least 512 x 512 (economy size, or square) go through the polar
/// decomposition (`Xgesvdp`) in double precision (f32 through f64, c64 through c128):
/// their factors are checked
/// (`U S Vh = A`, orthonormal `U` and `Vh`, three products) and a matrix that fails is
/// redone by the Jacobi method. (f32 2048 x 2048 on an H200: 85 ms, where PyTorch's takes
/// 221 and CuPy's `gesvd` 312; c64 on an H100: 119 ms, CuPy 391.) Others take the
/// Jacobi method (`gesvdj`). A matrix where
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
#[allow(clippy::type_complexity)]
pub fn svd<T: SolverElement>(
    a: &DeviceArray<T>,
    full_matrices: bool,
) -> Result<(DeviceArray<T>, DeviceArray<T::Spectral>, DeviceArray<T>)> {
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
pub fn svdvals<T: SolverElement>(a: &DeviceArray<T>) -> Result<DeviceArray<T::Spectral>> {
    Ok(svd_impl("svdvals", a, false, false)?.1)
}

/// The factors of [`svd`]: `U`, the singular values (real), `Vh`.
type Svd<T> = (
    DeviceArray<T>,
    DeviceArray<<T as SolverElement>::Spectral>,
    DeviceArray<T>,
);

use crate::tuning::svd_algorithm;
pub(super) use crate::tuning::SvdAlgorithm;

/// The smallest dimension from which [`SvdAlgorithm::Auto`] takes the polar decomposition.
const POLAR_MIN: usize = 512;

/// Whether [`SvdAlgorithm::Auto`] computes the SVD of `m x n` matrices (not many small
/// ones) by the polar decomposition in double precision, checked (f32 through f64, c64
/// through c128): with vectors, economy size or square, both sides at least
/// [`POLAR_MIN`]. (H200, 2048 x 2048 Gaussian: f64 `Xgesvdp` with its check 85 ms against
/// 356 ms for f64 `gesvdj`; the f32 matrix through f64 85 ms against 213 ms for f32
/// `gesvdj`, and more accurate. H100, c64: 119 ms through c128 against 413 ms for c64
/// `gesvdj` and 521 ms for c64 `Xgesvdp`, whose check fails.)
pub(crate) fn polar_by_default((m, n): (usize, usize), full: bool, vectors: bool) -> bool {
    svd_algorithm() == SvdAlgorithm::Auto && vectors && (!full || m == n) && m.min(n) >= POLAR_MIN
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
    let (size, ssize) = (std::mem::size_of::<T>(), std::mem::size_of::<T::Spectral>());
    let k = m.min(n);
    // Aᵀ, column-major (n x m): A in C order as it lies. Its SVD Aᵀ = U' S V'ᵀ gives
    // A = V' S U'ᵀ: U = V' (m x ., column-major) and Vh = U'ᵀ (row-major). Complex
    // matrices are conjugated on the way (Aᴴ = U' S V'ᴴ gives A = V' S U'ᴴ): U = V' again
    // and Vh = conj(U')ᵀ, U' conjugated in place afterwards.
    let conj = T::DTYPE.is_complex();
    let small = count > 1 && m <= SMALL_N && n <= SMALL_N;
    let econ = !full && !small;
    let (ucols, vrows) = if full { (m, n) } else { (k, k) };
    // Per matrix: U' (n x [n or k]) and V' (m x [m or k]) as the routine writes them.
    let (up_cols, vp_cols) = if econ { (k, k) } else { (n, m) };
    let s = alloc(device, count * k, T::Spectral::DTYPE)?;
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
        || (matches!(T::DTYPE, DType::F64 | DType::C128)
            && polar_by_default((m, n), full, vectors)))
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
                    copy_op(device, dst, &src, false)?;
                }
            }
        }
        return Ok(out);
    }
    let work = copy_stack_conj(device, a, &Stack::new(batch, m, n, false), conj)?;
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
        conj_up::<T>(device, &out, count * n * up_cols, vectors)?;
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
                    out.s.buf.device_ptr() + (i * k * ssize) as u64,
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
    conj_up::<T>(device, &out, count * n * up_cols, vectors)?;
    Ok(out)
}

/// Conjugates, in place, the `len` values of `U'` (the buffer of `Vh`) of a complex SVD
/// of `Aᴴ` with vectors, so that `Vh` views `conj(U')ᵀ`; nothing for real types.
fn conj_up<T: SolverElement>(
    device: &Device,
    out: &SvdOut,
    len: usize,
    vectors: bool,
) -> Result<()> {
    if !T::DTYPE.is_complex() || !vectors || len == 0 {
        return Ok(());
    }
    let l = Layout::contiguous(&[len]);
    let dst = Operand::new(&out.vh.buf, Cow::Borrowed(&l), T::DTYPE)?;
    let src = Operand::new(&out.vh.buf, Cow::Borrowed(&l), T::DTYPE)?;
    // Each element is read and written by the same thread: in place is safe.
    crate::ops::elementwise::run(device, "conj", CONJ_BODY, &[dst], &[src], &[])
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
    // in C order (`aᴴ` for complex types, conjugated on the way); else `a` (m x n),
    // copied in Fortran order.
    let wide = n >= m;
    let complex = T::DTYPE.is_complex();
    let (rows, cols) = if wide { (n, m) } else { (m, n) };
    let work = copy_stack_conj(device, &a_i, &Stack::new(&[], m, n, !wide), wide && complex)?;
    let s = alloc(device, k, T::Spectral::DTYPE)?;
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
    // Copies a factor, conjugated when `conj` (complex types).
    let copy = |dst_buf: &DeviceBuffer, dst: Layout, src_buf: &DeviceBuffer, src: Layout, conj| {
        let d = Operand::new(dst_buf, Cow::Owned(dst), T::DTYPE)?;
        let s = Operand::new(src_buf, Cow::Owned(src), T::DTYPE)?;
        copy_op(device, d, &s, conj)
    };
    let s_dst = Layout::from_parts(vec![k], vec![1], i * k);
    let sd = T::Spectral::DTYPE;
    copy_op(
        device,
        Operand::new(&out.s.buf, Cow::Owned(s_dst), sd)?,
        &Operand::new(&s, Cow::Owned(Layout::contiguous(&[k])), sd)?,
        false,
    )?;
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
    // The QR method writes Vᴴ_t, the others V_t: a transpose of either is conjugated for
    // complex types.
    let qr = matches!(algo, SvdAlgorithm::Qr);
    if wide {
        // aᴴ = U_t S Vᴴ_t: U = (Vᴴ_t)ᴴ, Vh = U_tᴴ.
        copy(&out.u.buf, u_dst, &v_t, second(ur, uc, true), complex && qr)?;
        let vh_src = Layout::from_parts(vec![vr, vc], vec![rows as isize, 1], 0);
        copy(&out.vh.buf, vh_dst, &u_t, vh_src, complex)?;
    } else {
        // a = U_t S Vᴴ_t.
        let u_src = Layout::from_parts(vec![ur, uc], vec![1, rows as isize], 0);
        copy(&out.u.buf, u_dst, &u_t, u_src, false)?;
        copy(
            &out.vh.buf,
            vh_dst,
            &v_t,
            second(vr, vc, false),
            complex && !qr,
        )?;
    }
    Ok(())
}
