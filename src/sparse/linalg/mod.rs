//! Sparse linear algebra (SciPy's `scipy.sparse.linalg`): the [`LinearOperator`] trait
//! the iterative solvers take (sparse matrices, dense 2-D arrays and closures,
//! [`FnOperator`]); [`cg`], [`gmres`], [`bicgstab`], [`cgs`] and [`minres`] for square
//! systems, [`lsqr`] and [`lsmr`] for least squares; [`spsolve_triangular`] (cuSPARSE's
//! `SpSV`) and [`spsolve`]; [`eigsh`] and [`svds`] for extreme eigenpairs and singular
//! triplets; [`norm`] and [`expm_multiply`].
//!
//! [`cg`], [`bicgstab`] and [`cgs`] keep every scalar of the iteration (inner products,
//! step lengths) on the device as 0-d arrays; the residual norm is read back to the host
//! only every [`tuning::solver_check_interval`](crate::tuning::solver_check_interval)
//! iterations (10 by default), so the iterations between checks are queued without
//! waiting. [`gmres`] and [`eigsh`] read back once per restart cycle (the small
//! projected problem is solved on the host); [`minres`], [`lsqr`] and [`lsmr`] read
//! their recurrence's scalars back once per iteration (their plane rotations run on the
//! host). A solver that does not converge says so in its [`Info`] after `maxiter`.

mod arnoldi;
mod common;
mod direct;
mod eigen;
mod expm;
mod krylov;
mod lsq;
mod minres;
mod symeig;

pub use direct::{norm, spsolve, spsolve_triangular, SPSOLVE_DENSE_LIMIT};
pub use eigen::{eigsh, svds, Which};
pub use expm::expm_multiply;
pub use krylov::{bicgstab, cgs, gmres};
pub use lsq::{lsmr, lsqr};
pub use minres::minres;

use super::{CooMatrix, CscMatrix, CsrMatrix, SparseElement, SparseIndex};
use crate::{ContractElement, DeviceArray, Error, Result};
use common::{conj, norm_host};

/// A linear map `x -> A x` of shape `(m, n)`, as SciPy's `LinearOperator`.
pub trait LinearOperator<T: crate::Element> {
    /// The shape `(m, n)`: `matvec` maps `n` elements to `m`.
    fn shape(&self) -> (usize, usize);

    /// `A x` for a 1-D `x` of `n` elements.
    ///
    /// # Errors
    /// The operator's own (a wrong length, a device mismatch).
    fn matvec(&self, x: &DeviceArray<T>) -> Result<DeviceArray<T>>;

    /// `A^H x` (the adjoint) for a 1-D `x` of `m` elements; by default an error.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the operator has no adjoint.
    fn rmatvec(&self, x: &DeviceArray<T>) -> Result<DeviceArray<T>> {
        let _ = x;
        Err(Error::invalid(
            "LinearOperator::rmatvec",
            "this operator has no adjoint (FnOperator::with_rmatvec gives one)",
        ))
    }

    /// The device the operator computes on, where it knows it (sparse matrices and dense
    /// arrays do; an [`FnOperator`] when given one by [`FnOperator::with_device`]).
    /// Solvers that start from no vector of the caller's ([`eigsh`], [`svds`]) need it.
    fn device(&self) -> Option<&crate::Device> {
        None
    }
}

impl<T: SparseElement, I: SparseIndex> LinearOperator<T> for CsrMatrix<T, I> {
    fn shape(&self) -> (usize, usize) {
        CsrMatrix::shape(self)
    }
    fn matvec(&self, x: &DeviceArray<T>) -> Result<DeviceArray<T>> {
        CsrMatrix::matvec(self, x)
    }
    /// `A^H x`: the transposed SpMV (conjugating `x` and the result for complex types).
    fn rmatvec(&self, x: &DeviceArray<T>) -> Result<DeviceArray<T>> {
        conj(&self.product("CsrMatrix::rmatvec", true, &conj(x)?)?)
    }
    fn device(&self) -> Option<&crate::Device> {
        Some(CsrMatrix::device(self))
    }
}

impl<T: SparseElement, I: SparseIndex> LinearOperator<T> for CscMatrix<T, I> {
    fn shape(&self) -> (usize, usize) {
        CscMatrix::shape(self)
    }
    fn matvec(&self, x: &DeviceArray<T>) -> Result<DeviceArray<T>> {
        CscMatrix::matvec(self, x)
    }
    /// `A^H x`: the SpMV of the CSR form of `A^T` (conjugating `x` and the result for
    /// complex types).
    fn rmatvec(&self, x: &DeviceArray<T>) -> Result<DeviceArray<T>> {
        let at = self.t();
        if T::DTYPE.is_complex() {
            conj(&at.matvec(&conj(x)?)?)
        } else {
            at.matvec(x)
        }
    }
    fn device(&self) -> Option<&crate::Device> {
        Some(CscMatrix::device(self))
    }
}

impl<T: SparseElement, I: SparseIndex> LinearOperator<T> for CooMatrix<T, I> {
    fn shape(&self) -> (usize, usize) {
        CooMatrix::shape(self)
    }
    fn matvec(&self, x: &DeviceArray<T>) -> Result<DeviceArray<T>> {
        CooMatrix::matvec(self, x)
    }
    /// `A^H x` through the CSR form.
    fn rmatvec(&self, x: &DeviceArray<T>) -> Result<DeviceArray<T>> {
        LinearOperator::rmatvec(&self.to_csr()?, x)
    }
    fn device(&self) -> Option<&crate::Device> {
        Some(CooMatrix::device(self))
    }
}

impl<T: ContractElement> LinearOperator<T> for DeviceArray<T> {
    fn shape(&self) -> (usize, usize) {
        match self.shape() {
            [m, n] => (*m, *n),
            _ => (0, 0),
        }
    }
    fn matvec(&self, x: &DeviceArray<T>) -> Result<DeviceArray<T>> {
        if self.ndim() != 2 {
            return Err(Error::invalid(
                "LinearOperator::matvec",
                format!("a dense operator must be 2-D, got shape {:?}", self.shape()),
            ));
        }
        self.matmul(x)
    }
    /// `A^H x`: `conj(x^T A)`, one matrix product.
    fn rmatvec(&self, x: &DeviceArray<T>) -> Result<DeviceArray<T>> {
        if self.ndim() != 2 {
            return Err(Error::invalid(
                "LinearOperator::rmatvec",
                format!("a dense operator must be 2-D, got shape {:?}", self.shape()),
            ));
        }
        conj(&conj(x)?.matmul(self)?)
    }
    fn device(&self) -> Option<&crate::Device> {
        Some(DeviceArray::device(self))
    }
}

type MapFn<T> = Box<dyn Fn(&DeviceArray<T>) -> Result<DeviceArray<T>> + Send + Sync>;

/// A [`LinearOperator`] given by closures (SciPy's `LinearOperator(shape, matvec)`).
///
/// ```no_run
/// use cuarray::sparse::linalg::{FnOperator, LinearOperator};
/// use cuarray::{Device, DeviceArray};
/// let dev = Device::new(0)?;
/// let twice = FnOperator::new((3, 3), |x: &DeviceArray<f64>| x.mul(2.0));
/// let x = DeviceArray::from_slice(&dev, &[1.0, 2.0, 3.0])?;
/// assert_eq!(twice.matvec(&x)?.to_host()?, vec![2.0, 4.0, 6.0]);
/// # Ok::<(), cuarray::Error>(())
/// ```
pub struct FnOperator<T: crate::Element> {
    shape: (usize, usize),
    matvec: MapFn<T>,
    rmatvec: Option<MapFn<T>>,
    device: Option<crate::Device>,
}

impl<T: crate::Element> FnOperator<T> {
    /// The operator of shape `(m, n)` whose `matvec` is `f`.
    pub fn new(
        shape: (usize, usize),
        f: impl Fn(&DeviceArray<T>) -> Result<DeviceArray<T>> + Send + Sync + 'static,
    ) -> Self {
        FnOperator {
            shape,
            matvec: Box::new(f),
            rmatvec: None,
            device: None,
        }
    }

    /// The same operator with `rmatvec` (the adjoint, for `lsqr` / `lsmr`) given by `f`.
    pub fn with_rmatvec(
        mut self,
        f: impl Fn(&DeviceArray<T>) -> Result<DeviceArray<T>> + Send + Sync + 'static,
    ) -> Self {
        self.rmatvec = Some(Box::new(f));
        self
    }

    /// The same operator, naming the device it computes on (for [`eigsh`] and [`svds`],
    /// which start from no vector of the caller's).
    pub fn with_device(mut self, device: &crate::Device) -> Self {
        self.device = Some(device.clone());
        self
    }
}

impl<T: crate::Element> LinearOperator<T> for FnOperator<T> {
    fn shape(&self) -> (usize, usize) {
        self.shape
    }
    fn matvec(&self, x: &DeviceArray<T>) -> Result<DeviceArray<T>> {
        (self.matvec)(x)
    }
    fn rmatvec(&self, x: &DeviceArray<T>) -> Result<DeviceArray<T>> {
        match &self.rmatvec {
            Some(f) => f(x),
            None => Err(Error::invalid(
                "FnOperator::rmatvec",
                "no adjoint was given (FnOperator::with_rmatvec)",
            )),
        }
    }
    fn device(&self) -> Option<&crate::Device> {
        self.device.as_ref()
    }
}

/// Convergence tolerances (SciPy's): a solver stops when `‖r‖ ≤ max(atol, rtol ‖b‖)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tol {
    /// Relative to `‖b‖`.
    pub rtol: f64,
    /// Absolute.
    pub atol: f64,
}

impl Default for Tol {
    /// SciPy's defaults: `rtol = 1e-5`, `atol = 0`.
    fn default() -> Self {
        Tol {
            rtol: 1e-5,
            atol: 0.0,
        }
    }
}

/// How a solver ended.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Info {
    /// Whether the residual met the tolerance.
    pub converged: bool,
    /// Iterations run.
    pub iterations: usize,
    /// The residual norm `‖b - A x‖` of the returned `x` (as the iteration updates it).
    pub residual: f64,
}

/// Solves `A x = b` for a Hermitian (real: symmetric) positive definite `A` by the
/// conjugate gradient method (SciPy's `cg`), from `x0` (zeros when `None`), with the
/// preconditioner `m` (an approximation of `A⁻¹`, itself Hermitian positive definite)
/// when given. Runs at most `maxiter` iterations (`10 n` when `None`).
///
/// Every scalar stays on the device; the residual is checked every
/// [`tuning::solver_check_interval`](crate::tuning::solver_check_interval) iterations,
/// so `Info::iterations` is a multiple of it unless `maxiter` ends the run.
///
/// ```no_run
/// use cuarray::sparse::{self, linalg};
/// use cuarray::{Device, DeviceArray};
/// let dev = Device::new(0)?;
/// let main = DeviceArray::from_slice(&dev, &[2.0f64])?;
/// let off = DeviceArray::from_slice(&dev, &[-1.0f64])?;
/// let a = sparse::diags::<f64, i32>(&dev, &[&off, &main, &off], &[-1, 0, 1], (100, 100))?;
/// let b = DeviceArray::<f64>::ones(&dev, &[100])?;
/// let (x, info) = linalg::cg(&a, &b, None, linalg::Tol { rtol: 1e-10, atol: 0.0 }, None, None)?;
/// assert!(info.converged);
/// assert_eq!(x.shape(), &[100]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::ShapeMismatch`] when `A` is not square, or `b`, `x0` or `m` do not match
/// it; the operators' own errors. Not converging is no error: see [`Info`].
pub fn cg<T: SparseElement + ContractElement>(
    a: &dyn LinearOperator<T>,
    b: &DeviceArray<T>,
    x0: Option<&DeviceArray<T>>,
    tol: Tol,
    maxiter: Option<usize>,
    m: Option<&dyn LinearOperator<T>>,
) -> Result<(DeviceArray<T>, Info)> {
    const OP: &str = "sparse::linalg::cg";
    let (rows, n) = a.shape();
    let mismatch = |msg: String| Error::ShapeMismatch {
        op: OP,
        msg,
        lhs: vec![rows, n],
        rhs: b.shape().to_vec(),
    };
    if rows != n {
        return Err(mismatch(format!("A must be square, got ({rows}, {n})")));
    }
    if b.shape() != [n] {
        return Err(mismatch(format!(
            "b must have shape [{n}], got {:?}",
            b.shape()
        )));
    }
    if let Some(x0) = x0 {
        if x0.shape() != [n] {
            return Err(mismatch(format!(
                "x0 must have shape [{n}], got {:?}",
                x0.shape()
            )));
        }
    }
    if let Some(m) = m {
        if m.shape() != (n, n) {
            return Err(mismatch(format!(
                "M must have shape ({n}, {n}), got {:?}",
                m.shape()
            )));
        }
    }
    let maxiter = maxiter.unwrap_or(10 * n);
    let bnorm = norm_host(b)?;
    let target = tol.atol.max(tol.rtol * bnorm);
    if bnorm == 0.0 {
        // SciPy's answer for b = 0: x = 0, whatever x0.
        let info = Info {
            converged: true,
            iterations: 0,
            residual: 0.0,
        };
        return Ok((DeviceArray::zeros(b.device(), &[n])?, info));
    }
    let x = match x0 {
        Some(x0) => x0.copy()?,
        None => DeviceArray::zeros(b.device(), &[n])?,
    };
    let r = match x0 {
        Some(_) => b.sub(&a.matvec(&x)?)?,
        None => b.copy()?,
    };
    let precondition = |r: &DeviceArray<T>| match m {
        Some(m) => m.matvec(r),
        None => Ok(r.clone()),
    };
    let mut residual = norm_host(&r)?;
    if residual <= target {
        return Ok((
            x,
            Info {
                converged: true,
                iterations: 0,
                residual,
            },
        ));
    }
    let every = crate::tuning::solver_check_interval();
    let z = precondition(&r)?;
    let p = z.copy()?;
    let mut rz = crate::vdot(&r, &z)?;
    let mut it = 0;
    while it < maxiter {
        let ap = a.matvec(&p)?;
        let alpha = rz.div(&crate::vdot(&p, &ap)?)?;
        x.add_assign(&p.mul(&alpha)?)?;
        r.sub_assign(&ap.mul(&alpha)?)?;
        it += 1;
        if it % every == 0 || it == maxiter {
            residual = norm_host(&r)?;
            if residual <= target {
                return Ok((
                    x,
                    Info {
                        converged: true,
                        iterations: it,
                        residual,
                    },
                ));
            }
        }
        let z = precondition(&r)?;
        let rz_next = crate::vdot(&r, &z)?;
        let beta = rz_next.div(&rz)?;
        p.mul_assign(&beta)?;
        p.add_assign(&z)?;
        rz = rz_next;
    }
    Ok((
        x,
        Info {
            converged: false,
            iterations: it,
            residual,
        },
    ))
}
