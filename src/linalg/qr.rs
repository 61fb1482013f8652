//! The QR factorisation: [`qr`] and its run on cuSOLVER (`Xgeqrf`, then `orgqr`).

use super::common::{alloc, copy_stack, matrices, scratch_info, wrap, Out, Stack, TRIU_BODY};
use super::cusolver::{with_solver, SolverElement};
use crate::array::DeviceArray;
use crate::device::Device;
use crate::kernels::abi::Scalar;
use crate::ops::Operand;
use crate::shape::{c_strides, Layout};
#[cfg(doc)]
use crate::Error;
use crate::Result;
use std::borrow::Cow;
use std::sync::Arc;

/// The reduced QR factorisation of each `m x n` matrix of `a` (NumPy's `linalg.qr`, mode
/// `"reduced"`): `Q` `(..., m, k)` with orthonormal columns (unitary for complex types;
/// a column-major view) and `R` `(..., k, n)` upper triangular (C-contiguous),
/// `k = min(m, n)`, `a = Q R`. Householder QR (`geqrf` + `orgqr`, `ungqr` for complex
/// types). Never waits for the GPU.
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
pub fn qr<T: SolverElement>(a: &DeviceArray<T>) -> Result<(DeviceArray<T>, DeviceArray<T>)> {
    let (batch, m, n) = matrices("qr", a.shape())?;
    let (q, r) = run_qr::<T>(a.device(), &a.operand()?, &batch, (m, n))?;
    Ok((wrap(q), wrap(r)))
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
