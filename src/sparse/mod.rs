//! Sparse matrices on cuSPARSE (SciPy's `scipy.sparse`): [`CsrMatrix`], [`CscMatrix`]
//! and [`CooMatrix`] for `f32`, `f64`, `Complex32` and `Complex64` with `i32` or `i64`
//! indices, conversions among them, their products with dense vectors and matrices
//! (cuSPARSE's `SpMV` and `SpMM`) and with each other (`SpGEMM`), sums, elementwise
//! products, [`bmat`], [`kron`], [`random`], SciPy's `.npz` files ([`save_npz`],
//! [`load_npz`]) and the iterative solvers of [`linalg`].
//!
//! Construction from host triplets assembles the structure on the host (sorted,
//! duplicates summed); construction from device arrays checks the structure on the
//! device. Products never synchronise with the host.
//!
//! ```no_run
//! use cuarray::{sparse, Device, DeviceArray};
//! let dev = Device::new(0)?;
//! let a = sparse::eye::<f32, i32>(&dev, 3, 0)?;
//! let x = DeviceArray::from_slice(&dev, &[1.0f32, 2.0, 3.0])?;
//! assert_eq!(a.matvec(&x)?.to_host()?, vec![1.0, 2.0, 3.0]);
//! # Ok::<(), cuarray::Error>(())
//! ```

mod assemble;
mod construct;
mod coo;
mod csr;
mod cusparse;
pub mod linalg;
mod npz;
mod ops;
mod structure;

pub use construct::{bmat, hstack, kron, random, vstack};
pub use coo::CooMatrix;
pub use csr::{CscMatrix, CsrMatrix};
pub use cusparse::{SparseElement, SparseIndex};
pub use npz::{load_npz, save_npz};

use crate::{Device, DeviceArray, Result};

/// The `n x n` matrix with ones on diagonal `k` (0 the main diagonal, `k > 0` above it,
/// `k < 0` below), SciPy's `eye(n, k=k, format="csr")`.
///
/// ```no_run
/// let dev = cuarray::Device::new(0)?;
/// let a = cuarray::sparse::eye::<f64, i32>(&dev, 4, 1)?;
/// assert_eq!(a.nnz(), 3);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`](crate::Error::InvalidArgument) when `n` does not fit the
/// index type.
pub fn eye<T: SparseElement, I: SparseIndex>(
    device: &Device,
    n: usize,
    k: isize,
) -> Result<CsrMatrix<T, I>> {
    let (r, c, v) = assemble::diag_triplets("sparse::eye", (n, n), &[vec![T::ONE]], &[k])?;
    from_i64_triplets(device, &r, &c, &v, (n, n))
}

/// SciPy's `identity(n)`: [`eye`] with `k = 0`.
///
/// # Errors
/// As [`eye`].
pub fn identity<T: SparseElement, I: SparseIndex>(
    device: &Device,
    n: usize,
) -> Result<CsrMatrix<T, I>> {
    eye(device, n, 0)
}

/// The `(m, n)` matrix with `diagonals[j]` on diagonal `offsets[j]` (SciPy's `diags`:
/// each diagonal has the length of its place in the matrix, or one value repeated
/// along it). The diagonals are read back to assemble the structure on the host.
///
/// ```no_run
/// use cuarray::{sparse, Device, DeviceArray};
/// let dev = Device::new(0)?;
/// let main = DeviceArray::from_slice(&dev, &[2.0f64])?;
/// let off = DeviceArray::from_slice(&dev, &[-1.0f64])?;
/// // The 1-D Laplacian [[2, -1, 0], [-1, 2, -1], [0, -1, 2]].
/// let a = sparse::diags::<f64, i32>(&dev, &[&off, &main, &off], &[-1, 0, 1], (3, 3))?;
/// assert_eq!(a.nnz(), 7);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`](crate::Error::InvalidArgument) when the counts of
/// diagonals and offsets differ or a diagonal has the wrong length.
pub fn diags<T: SparseElement, I: SparseIndex>(
    device: &Device,
    diagonals: &[&DeviceArray<T>],
    offsets: &[isize],
    shape: (usize, usize),
) -> Result<CsrMatrix<T, I>> {
    let host = diagonals
        .iter()
        .map(|d| d.to_host())
        .collect::<Result<Vec<_>>>()?;
    let (r, c, v) = assemble::diag_triplets("sparse::diags", shape, &host, offsets)?;
    from_i64_triplets(device, &r, &c, &v, shape)
}

fn from_i64_triplets<T: SparseElement, I: SparseIndex>(
    device: &Device,
    r: &[i64],
    c: &[i64],
    v: &[T],
    shape: (usize, usize),
) -> Result<CsrMatrix<T, I>> {
    let ri: Vec<I> = r.iter().map(|&x| I::from_u64_wrapping(x as u64)).collect();
    let ci: Vec<I> = c.iter().map(|&x| I::from_u64_wrapping(x as u64)).collect();
    CsrMatrix::from_triplets(device, &ri, &ci, v, shape)
}
