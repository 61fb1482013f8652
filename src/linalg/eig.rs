//! Eigenvalues and eigenvectors of general (non-symmetric) matrices: [`eig`], [`eigvals`]
//! and their run on cuSOLVER (`Xgeev`).

use super::common::{alloc, check_converged, copy_stack, info_array, square, wrap, Out, Stack};
use super::cusolver::{with_solver, SolverElement};
use crate::array::DeviceArray;
use crate::device::Device;
use crate::element::{DType, Element};
use crate::kernels::abi::Scalar;
use crate::ops::Operand;
use crate::shape::Layout;
#[cfg(doc)]
use crate::Error;
use crate::Result;
use std::borrow::Cow;
use std::sync::Arc;

/// The complex eigenvectors of a stack of real matrices from `Xgeev`'s real ones
/// (LAPACK's format: a conjugate pair `w[j]`, `w[j + 1]`, positive imaginary part first,
/// keeps the real and imaginary parts of `v[j]` in columns `j` and `j + 1`, and
/// `v[j + 1]` is its conjugate). Output: C-contiguous `(count, n, n)` complex; `s0`: the
/// address of the column-major real eigenvectors, `s1`: `n`, `s2`: the address of the
/// eigenvalues `(count, n)`. Element `i` is row `r`, column `c` of matrix `b`.
pub(crate) const EIG_VECTORS_BODY: &str = "typedef decltype(out0_t::re) R; \
    const long long n = s1, k = (long long)i % (n * n), c = k % n; \
    const R* v = (const R*)s0 + ((long long)i - k) + c * n + k / n; \
    const R im = ((const out0_t*)s2)[((long long)i - k) / n + c].im; \
    out0 = im > R(0) ? out0_t(v[0], v[n]) : im < R(0) ? out0_t(v[-n], -v[0]) : out0_t(v[0], R(0));";

/// The kernels of this module, for the NVRTC tier: the eigenvector conversion for both
/// complex types, in the variants a contiguous output launches.
pub(crate) fn kernel_specs() -> Vec<crate::KernelSpec> {
    use crate::kernels::family::elementwise::Variant;
    let mut v = Vec::new();
    for d in [DType::C64, DType::C128] {
        let vec = (16 / d.size()) as u8;
        let mut variants = vec![Variant::Contiguous];
        if vec > 1 {
            variants.push(Variant::Vectorized { vec });
        }
        let scalars = [DType::I64; 3];
        super::common::push_specs(
            &mut v,
            "eig_vectors",
            EIG_VECTORS_BODY,
            (&[], &[d], &scalars),
            &variants,
        );
    }
    v
}

type Pair<T> = (
    DeviceArray<<T as SolverElement>::Complex>,
    DeviceArray<<T as SolverElement>::Complex>,
);

fn eig_impl<T: SolverElement>(
    op: &'static str,
    a: &DeviceArray<T>,
    vectors: bool,
) -> Result<Pair<T>> {
    let (batch, n) = square(op, a.shape())?;
    let (w, v, info) = run_eig::<T>(a.device(), &a.operand()?, &batch, n, vectors)?;
    check_converged(op, &wrap(info))?;
    Ok((wrap(w), wrap(v)))
}

/// The eigenvalues and right eigenvectors of each square matrix of `a` (NumPy's
/// `linalg.eig`): `w` `(..., n)` and `v` `(..., n, n)` whose column `j` is the eigenvector
/// of `w[j]`, so that `a v = v diag(w)`. Each eigenvector has unit norm and its largest
/// component real (LAPACK's `geev`, as NumPy); the eigenvalues are in the order the QR
/// algorithm finds them, not sorted.
///
/// Both are **always complex** ([`SolverElement::Complex`]: [`Complex32`](crate::Complex32)
/// for `f32` and `Complex32` input, [`Complex64`](crate::Complex64) for `f64` and
/// `Complex64`), where NumPy returns real arrays for a real matrix whose eigenvalues
/// happen to be real: the type of the result does not depend on the values. The
/// eigenvalues of a real matrix come in conjugate pairs, the one of positive imaginary
/// part first, and so do their eigenvectors.
///
/// One cuSOLVER `Xgeev` per matrix (the batch in a loop); `v` is C-contiguous for real
/// input and a column-major view for complex input. Reads the info array (waits for the
/// GPU once).
///
/// ```no_run
/// use cuarray::{linalg, Complex64, Device, DeviceArray};
/// let dev = Device::new(0)?;
/// // A rotation by 90 degrees: eigenvalues i and -i.
/// let a = DeviceArray::from_host(&dev, &[0.0f64, -1.0, 1.0, 0.0], &[2, 2])?;
/// let (w, v) = linalg::eig(&a)?;
/// let w = w.to_host()?;
/// assert!((w[0] - Complex64::new(0.0, 1.0)).norm() < 1e-12);
/// assert!((w[1] - Complex64::new(0.0, -1.0)).norm() < 1e-12);
/// assert_eq!(v.shape(), &[2, 2]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] when `a` is not a stack of square matrices;
/// [`Error::NoConvergence`] when the QR algorithm does not converge (NaN or infinite
/// input).
#[allow(clippy::type_complexity)]
pub fn eig<T: SolverElement>(
    a: &DeviceArray<T>,
) -> Result<(DeviceArray<T::Complex>, DeviceArray<T::Complex>)> {
    let _range = crate::profile::range("eig");
    eig_impl("eig", a, true)
}

/// The eigenvalues of each square matrix of `a` (NumPy's `linalg.eigvals`): [`eig`]
/// without the eigenvectors, always complex.
///
/// ```no_run
/// use cuarray::{linalg, Device, DeviceArray};
/// let dev = Device::new(0)?;
/// let a = DeviceArray::from_host(&dev, &[2.0f32, 0.0, 0.0, 3.0], &[2, 2])?;
/// let w = linalg::eigvals(&a)?.to_host()?; // [2+0i, 3+0i]
/// assert!(w.iter().all(|z| z.im == 0.0));
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// As [`eig`].
pub fn eigvals<T: SolverElement>(a: &DeviceArray<T>) -> Result<DeviceArray<T::Complex>> {
    let _range = crate::profile::range("eigvals");
    Ok(eig_impl("eigvals", a, false)?.0)
}

/// Eigenvalues (`(batch..., n)` of `T::Complex`) and, with `vectors`, right eigenvectors
/// (`(batch..., n, n)` of `T::Complex`, in the columns) of the square matrices of `a`,
/// and the info array.
pub(crate) fn run_eig<T: SolverElement>(
    device: &Device,
    a: &Operand<'_>,
    batch: &[usize],
    n: usize,
    vectors: bool,
) -> Result<(Out, Out, Out)> {
    let count: usize = batch.iter().product();
    let complex = <T::Complex as Element>::DTYPE;
    let real_input = T::DTYPE != complex;
    // A in Fortran order: cuSOLVER sees A itself (the eigenvectors of Aᵀ are A's left
    // ones, not its right ones).
    let stack = Stack::new(batch, n, n, true);
    let work = copy_stack(device, a, &stack)?;
    let mut w_shape = batch.to_vec();
    w_shape.push(n);
    let w = alloc(device, count * n, complex)?;
    let vr = alloc(device, if vectors { stack.len() } else { 1 }, T::DTYPE)?;
    let empty = count * n == 0;
    let info = info_array(device, batch, empty)?;
    if !empty {
        let (tsize, csize) = (T::DTYPE.size(), complex.size());
        with_solver(device, |dn| {
            let ptrs = (work.device_ptr(), w.device_ptr(), vr.device_ptr());
            let mut ws = dn.geev_workspace::<T>(vectors, n, ptrs)?;
            for i in 0..count {
                let m = (if vectors { i * n * n * tsize } else { 0 }) as u64;
                // SAFETY: matrix i of `work` and of `vr` (or `vr`'s one element, untouched
                // without vectors), its n eigenvalues and its info word.
                unsafe {
                    dn.geev::<T>(
                        vectors,
                        n,
                        (
                            work.device_ptr() + (i * n * n * tsize) as u64,
                            w.device_ptr() + (i * n * csize) as u64,
                            vr.device_ptr() + m,
                        ),
                        &mut ws,
                        info.buf.device_ptr() + (i * 4) as u64,
                    )?;
                }
            }
            Ok(())
        })?;
    }
    drop(work);
    let v = if !vectors {
        Out {
            buf: Arc::new(alloc(device, 1, complex)?),
            layout: Layout::contiguous(&[0]),
        }
    } else if real_input {
        let layout = Layout::contiguous(&super::common::full(batch, n, n));
        let out = alloc(device, stack.len(), complex)?;
        if !empty {
            let dst = Operand::new(&out, Cow::Borrowed(&layout), complex)?;
            crate::ops::elementwise::run(
                device,
                "eig_vectors",
                EIG_VECTORS_BODY,
                &[dst],
                &[],
                &[
                    Scalar::of(vr.device_ptr() as i64),
                    Scalar::of(n as i64),
                    Scalar::of(w.device_ptr() as i64),
                ],
            )?;
        }
        Out {
            buf: Arc::new(out),
            layout,
        }
    } else {
        Out {
            buf: Arc::new(vr),
            layout: stack.layout(),
        }
    };
    Ok((
        Out {
            buf: Arc::new(w),
            layout: Layout::contiguous(&w_shape),
        },
        v,
        info,
    ))
}
