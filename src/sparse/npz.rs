//! SciPy's sparse `.npz` files (`scipy.sparse.save_npz` / `load_npz`): a zip of `.npy`
//! arrays named `format` (a byte string: `csr`, `csc` or `coo`), `shape`, `data`, and
//! `indices` with `indptr` (CSR, CSC) or `row` with `col` (COO).

use super::coo::CooMatrix;
use super::csr::{CscMatrix, CsrMatrix};
use super::cusparse::{SparseElement, SparseIndex};
use crate::npy::{NpzReader, NpzWriter};
use crate::{s, Device, DeviceArray, Error, Result};
use std::path::Path;

/// Writes `m` to `path` in SciPy's format (`format = b"csr"`, `shape` as int64, the
/// three arrays in their own types; stored, not compressed): `scipy.sparse.load_npz`
/// reads it back as a `csr_matrix`. Other formats convert first (`m.to_csr()?`).
///
/// ```no_run
/// use cuarray::{sparse, Device};
/// let dev = Device::new(0)?;
/// let path = std::env::temp_dir().join("laplacian.npz");
/// let a = sparse::eye::<f64, i32>(&dev, 4, 0)?;
/// sparse::save_npz(&path, &a)?;
/// let b = sparse::load_npz::<f64, i32>(&dev, &path)?;
/// assert_eq!(b.nnz(), 4);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::File`] when the file cannot be written; a failed copy to the host.
pub fn save_npz<T: SparseElement, I: SparseIndex>(
    path: impl AsRef<Path>,
    m: &CsrMatrix<T, I>,
) -> Result<()> {
    let (rows, cols) = m.shape();
    let dev = m.device();
    let shape = DeviceArray::from_slice(dev, &[rows as i64, cols as i64])?;
    let mut z = NpzWriter::create(path)?;
    z.add("indices", m.indices())?;
    z.add("indptr", m.indptr())?;
    z.add_bytes("format", b"csr")?;
    z.add("shape", &shape)?;
    z.add("data", m.data())?;
    z.finish()
}

/// Reads a file of `scipy.sparse.save_npz` (CSR, CSC or COO; compressed or not) into a
/// CSR matrix on `device`. The values must be stored as `T`; the indices may be int32
/// or int64 either way and are converted to `I` (checked against its range).
///
/// ```no_run
/// use cuarray::{sparse, Device};
/// let dev = Device::new(0)?;
/// // Written by SciPy: scipy.sparse.save_npz("a.npz", scipy.sparse.random(50, 40, 0.1, format="coo"))
/// # sparse::save_npz("a.npz", &sparse::random::<f64, i32>(&dev, 50, 40, 0.1, 1)?)?;
/// let a = sparse::load_npz::<f64, i64>(&dev, "a.npz")?;
/// assert_eq!(a.shape(), (50, 40));
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::File`] when the file cannot be read, lacks an array, holds values of
/// another type than `T` or a format other than csr, csc and coo;
/// [`Error::InvalidArgument`] when the structure is inconsistent (as
/// [`CsrMatrix::from_parts`] and [`CooMatrix::from_parts`] check it).
pub fn load_npz<T: SparseElement, I: SparseIndex>(
    device: &Device,
    path: impl AsRef<Path>,
) -> Result<CsrMatrix<T, I>> {
    let path = path.as_ref();
    let file_error = |msg: String| Error::File {
        path: path.to_path_buf(),
        msg,
    };
    let mut z = NpzReader::open(path)?;
    let format = z.load_string("format")?;
    let shape = indices::<i64>(&mut z, device, "shape")?.to_host()?;
    let &[m, n] = shape.as_slice() else {
        return Err(file_error(format!(
            "shape has {} entries, not 2",
            shape.len()
        )));
    };
    if m < 0 || n < 0 {
        return Err(file_error(format!("shape ({m}, {n}) is negative")));
    }
    let shape = (m as usize, n as usize);
    let data = z.load::<T>(device, "data")?;
    match format.as_str() {
        "csr" | "csc" => {
            let indptr = indices::<I>(&mut z, device, "indptr")?;
            let idx = indices::<I>(&mut z, device, "indices")?;
            if format == "csr" {
                CsrMatrix::from_parts(&indptr, &idx, &data, shape)
            } else {
                CscMatrix::from_parts(&indptr, &idx, &data, shape)?.to_csr()
            }
        }
        "coo" => {
            let (row, col) = if z.contains("row") {
                (
                    indices::<I>(&mut z, device, "row")?,
                    indices::<I>(&mut z, device, "col")?,
                )
            } else {
                let coords = indices::<I>(&mut z, device, "coords")?;
                if coords.ndim() != 2 || coords.shape()[0] != 2 {
                    return Err(file_error(format!(
                        "coords has shape {:?}, not (2, nnz)",
                        coords.shape()
                    )));
                }
                let nnz = coords.shape()[1];
                let part = |k: usize| coords.slice(s![k..k + 1, ..])?.reshape([nnz]);
                (part(0)?, part(1)?)
            };
            CooMatrix::from_parts(&row, &col, &data, shape)?.to_csr()
        }
        other => Err(file_error(format!(
            "holds a sparse matrix of format {other:?}; csr, csc and coo are read"
        ))),
    }
}

/// The integer array `name` (int32 or int64 in the file) as `I`, range-checked.
fn indices<I: SparseIndex>(
    z: &mut NpzReader,
    device: &Device,
    name: &str,
) -> Result<DeviceArray<I>> {
    if let Ok(a) = z.load::<I>(device, name) {
        return Ok(a);
    }
    let wide = match z.load::<i64>(device, name) {
        Ok(a) => a,
        Err(_) => z.load::<i32>(device, name)?.astype::<i64>()?,
    };
    if wide.size() > 0 && wide.gt(I::MAX as i64)?.any()?.to_scalar()? {
        return Err(Error::invalid(
            "sparse::load_npz",
            format!("{name} holds a value beyond the index type's range; use i64 indices"),
        ));
    }
    wide.astype::<I>()
}

#[cfg(test)]
mod tests {
    use crate::npy::{NpzReader, NpzWriter};

    /// A file of `tests/fixtures/sparse`.
    fn fixture(name: &str) -> std::path::PathBuf {
        crate::testing::fixture_path(&format!("sparse/{name}"))
    }

    #[test]
    fn scipy_format_strings_read() {
        for fmt in ["csr", "csc", "coo"] {
            for t in ["f32", "f64", "c64"] {
                for i in ["i32", "i64"] {
                    let mut z = NpzReader::open(fixture(&format!("{fmt}_{t}_{i}.npz"))).unwrap();
                    assert_eq!(z.load_string("format").unwrap(), fmt);
                    assert!(z.contains("shape") && z.contains("data"));
                    assert!(z.load_string("shape").is_err());
                }
            }
        }
    }

    #[test]
    fn byte_strings_round_trip() {
        let path = std::env::temp_dir().join(format!("cuarray-npz-{}.npz", std::process::id()));
        let mut w = NpzWriter::create(&path).unwrap();
        w.add_bytes("format", b"csr").unwrap();
        w.finish().unwrap();
        let mut z = NpzReader::open(&path).unwrap();
        assert_eq!(z.names(), ["format"]);
        assert_eq!(z.load_string("format").unwrap(), "csr");
        assert!(z.load_string("missing").is_err());
        std::fs::remove_file(&path).unwrap();
    }
}
