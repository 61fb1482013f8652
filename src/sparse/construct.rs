//! Building sparse matrices from others and from random numbers: [`bmat`], [`hstack`],
//! [`vstack`], [`kron`] and [`random`] (SciPy's functions of the same names, CSR
//! results). Each gathers coordinate triplets on the device and sorts them once.

use super::coo::CooMatrix;
use super::csr::CsrMatrix;
use super::cusparse::{SparseElement, SparseIndex};
use super::structure::{checked_index, Triplets};
use crate::array::same_device;
use crate::random::Generator;
use crate::{concatenate, Device, Error, Result};

/// The canonical CSR matrix of triplets on the device.
fn assemble<T: SparseElement, I: SparseIndex>(
    t: Triplets<T, I>,
    shape: (usize, usize),
) -> Result<CsrMatrix<T, I>> {
    CooMatrix::from_triplets_unchecked(t, shape, false).to_csr()
}

/// The matrix made of the blocks `blocks[i][j]` (SciPy's `bmat`): `None` is a block of
/// zeros. Blocks in one block row have one height, in one block column one width; every
/// block row and column needs at least one block to give its size.
///
/// ```no_run
/// use cuarray::{sparse, Device};
/// let dev = Device::new(0)?;
/// let a = sparse::eye::<f64, i32>(&dev, 2, 0)?;
/// let m = sparse::bmat(&[&[Some(&a), None], &[None, Some(&a)]])?;
/// assert_eq!((m.shape(), m.nnz()), ((4, 4), 4));
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] for no blocks, block rows of different lengths, a block
/// row or column with no block, or a result the index type cannot hold;
/// [`Error::ShapeMismatch`] when block sizes disagree; [`Error::DeviceMismatch`] across
/// devices.
pub fn bmat<T: SparseElement, I: SparseIndex>(
    blocks: &[&[Option<&CsrMatrix<T, I>>]],
) -> Result<CsrMatrix<T, I>> {
    block_matrix("sparse::bmat", blocks)
}

fn block_matrix<T: SparseElement, I: SparseIndex>(
    op: &'static str,
    blocks: &[&[Option<&CsrMatrix<T, I>>]],
) -> Result<CsrMatrix<T, I>> {
    let cols = blocks.first().map_or(0, |r| r.len());
    if cols == 0 {
        return Err(Error::invalid(op, "needs at least one block"));
    }
    if let Some(i) = blocks.iter().position(|r| r.len() != cols) {
        return Err(Error::invalid(
            op,
            format!(
                "block row {i} has {} blocks, row 0 has {cols}",
                blocks[i].len()
            ),
        ));
    }
    let mut heights = vec![None; blocks.len()];
    let mut widths = vec![None; cols];
    let mut device = None;
    for (i, row) in blocks.iter().enumerate() {
        for (j, b) in row.iter().enumerate() {
            let Some(b) = b else { continue };
            match device {
                None => device = Some(b.device().clone()),
                Some(ref d) => same_device(op, d, b.device())?,
            }
            let (h, w) = b.shape();
            for (slot, v, what, k) in [
                (&mut heights[i], h, "row", i),
                (&mut widths[j], w, "column", j),
            ] {
                match *slot {
                    None => *slot = Some(v),
                    Some(s) if s != v => {
                        return Err(Error::ShapeMismatch {
                            op,
                            msg: format!(
                                "block ({i}, {j}) is {h} x {w}, block {what} {k} is {s} along it"
                            ),
                            lhs: vec![h, w],
                            rhs: vec![s],
                        })
                    }
                    _ => {}
                }
            }
        }
    }
    let sizes = |v: &[Option<usize>], what: &str| -> Result<Vec<usize>> {
        v.iter()
            .enumerate()
            .map(|(k, s)| {
                s.ok_or_else(|| {
                    Error::invalid(
                        op,
                        format!("block {what} {k} has no block to give its size"),
                    )
                })
            })
            .collect()
    };
    let (heights, widths) = (sizes(&heights, "row")?, sizes(&widths, "column")?);
    let offsets = |v: &[usize]| -> Vec<usize> {
        v.iter()
            .scan(0, |acc, &x| {
                let o = *acc;
                *acc += x;
                Some(o)
            })
            .collect()
    };
    let (roff, coff) = (offsets(&heights), offsets(&widths));
    let shape = (heights.iter().sum::<usize>(), widths.iter().sum::<usize>());
    checked_index::<I>(op, "the number of rows", shape.0)?;
    checked_index::<I>(op, "the number of columns", shape.1)?;
    let device = device.ok_or_else(|| Error::invalid(op, "needs at least one block"))?;
    let mut parts = Vec::new();
    for (i, row) in blocks.iter().enumerate() {
        for (j, b) in row.iter().enumerate() {
            if let Some(b) = b.filter(|b| b.nnz() > 0) {
                let mut t = b.triplets()?;
                t.row = t
                    .row
                    .add(checked_index::<I>(op, "a row offset", roff[i])?)?;
                t.col = t
                    .col
                    .add(checked_index::<I>(op, "a column offset", coff[j])?)?;
                parts.push(t);
            }
        }
    }
    let total: usize = parts.iter().map(|t| t.len()).sum();
    checked_index::<I>(op, "the number of entries", total)?;
    if parts.is_empty() {
        return CsrMatrix::empty(&device, shape);
    }
    let rows: Vec<_> = parts.iter().map(|t| &t.row).collect();
    let cols: Vec<_> = parts.iter().map(|t| &t.col).collect();
    let data: Vec<_> = parts.iter().map(|t| &t.data).collect();
    let t = Triplets {
        row: concatenate(&rows, 0)?,
        col: concatenate(&cols, 0)?,
        data: concatenate(&data, 0)?,
    };
    assemble(t, shape)
}

/// The matrices side by side (SciPy's `hstack`): one number of rows.
///
/// # Errors
/// As [`bmat`].
pub fn hstack<T: SparseElement, I: SparseIndex>(
    blocks: &[&CsrMatrix<T, I>],
) -> Result<CsrMatrix<T, I>> {
    let row: Vec<_> = blocks.iter().map(|&b| Some(b)).collect();
    block_matrix("sparse::hstack", &[&row])
}

/// The matrices one above the other (SciPy's `vstack`): one number of columns.
///
/// # Errors
/// As [`bmat`].
pub fn vstack<T: SparseElement, I: SparseIndex>(
    blocks: &[&CsrMatrix<T, I>],
) -> Result<CsrMatrix<T, I>> {
    let rows: Vec<[Option<&CsrMatrix<T, I>>; 1]> = blocks.iter().map(|&b| [Some(b)]).collect();
    let rows: Vec<&[Option<&CsrMatrix<T, I>>]> = rows.iter().map(|r| &r[..]).collect();
    block_matrix("sparse::vstack", &rows)
}

/// The Kronecker product `A ⊗ B` (SciPy's `kron`): block `(i, j)` is `a[i, j] * B`.
///
/// ```no_run
/// use cuarray::{sparse, Device};
/// let dev = Device::new(0)?;
/// let i2 = sparse::eye::<f32, i32>(&dev, 2, 0)?;
/// let b = sparse::CsrMatrix::from_triplets(&dev, &[0], &[1], &[5.0f32], (1, 2))?;
/// let k = sparse::kron(&i2, &b)?; // [[0, 5, 0, 0], [0, 0, 0, 5]]
/// assert_eq!((k.shape(), k.nnz()), ((2, 4), 2));
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] when the product's shape or number of entries does not
/// fit the index type (or `usize`); [`Error::DeviceMismatch`] across devices.
pub fn kron<T: SparseElement, I: SparseIndex>(
    a: &CsrMatrix<T, I>,
    b: &CsrMatrix<T, I>,
) -> Result<CsrMatrix<T, I>> {
    const OP: &str = "sparse::kron";
    same_device(OP, a.device(), b.device())?;
    let ((ma, na), (mb, nb)) = (a.shape(), b.shape());
    let too_large = || Error::invalid(OP, "the product's size overflows usize");
    let shape = (
        ma.checked_mul(mb).ok_or_else(too_large)?,
        na.checked_mul(nb).ok_or_else(too_large)?,
    );
    checked_index::<I>(OP, "the number of rows", shape.0)?;
    checked_index::<I>(OP, "the number of columns", shape.1)?;
    let (ka, kb) = (a.nnz(), b.nnz());
    checked_index::<I>(
        OP,
        "the number of entries",
        ka.checked_mul(kb).ok_or_else(too_large)?,
    )?;
    if ka == 0 || kb == 0 {
        return CsrMatrix::empty(a.device(), shape);
    }
    let (ta, tb) = (a.triplets()?, b.triplets()?);
    // Entry (p, q) of the product is a's p-th times b's q-th, p major.
    let t = Triplets {
        row: ta
            .row
            .repeat(kb, 0)?
            .mul(checked_index::<I>(OP, "B's rows", mb)?)?
            .add(&tb.row.tile(ka)?)?,
        col: ta
            .col
            .repeat(kb, 0)?
            .mul(checked_index::<I>(OP, "B's columns", nb)?)?
            .add(&tb.col.tile(ka)?)?,
        data: ta.data.repeat(kb, 0)?.mul(&tb.data.tile(ka)?)?,
    };
    assemble(t, shape)
}

/// An `(m, n)` matrix with `round(density * m * n)` entries at distinct positions drawn
/// uniformly, their values uniform in `[0, 1)` (SciPy's `random(m, n, density)`; the
/// numbers come from [`Generator::new(device, seed)`](Generator::new), so one seed gives
/// one matrix, though not SciPy's).
///
/// ```no_run
/// let dev = cuarray::Device::new(0)?;
/// let a = cuarray::sparse::random::<f64, i32>(&dev, 100, 50, 0.1, 7)?;
/// assert_eq!(a.nnz(), 500);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] for a density outside `[0, 1]` or a matrix the index type
/// cannot hold.
pub fn random<T: SparseElement, I: SparseIndex>(
    device: &Device,
    m: usize,
    n: usize,
    density: f64,
    seed: u64,
) -> Result<CsrMatrix<T, I>> {
    const OP: &str = "sparse::random";
    if !(0.0..=1.0).contains(&density) {
        return Err(Error::invalid(
            OP,
            format!("density must be in [0, 1], got {density}"),
        ));
    }
    checked_index::<I>(OP, "m", m)?;
    checked_index::<I>(OP, "n", n)?;
    let cells = m
        .checked_mul(n)
        .ok_or_else(|| Error::invalid(OP, "m * n overflows usize"))?;
    let k = (density * cells as f64).round() as usize;
    checked_index::<I>(OP, "the number of entries", k)?;
    if k == 0 {
        return CsrMatrix::empty(device, (m, n));
    }
    let mut rng = Generator::new(device, seed);
    let flat = rng.choice(cells, &[k], false, None)?;
    let values = rng.random::<f64>(&[k])?;
    let n64 = n as i64;
    let t = Triplets {
        row: flat.div(n64)?.astype::<I>()?,
        col: flat.rem(n64)?.astype::<I>()?,
        data: values.astype::<T>()?,
    };
    assemble(t, (m, n))
}
