//! NumPy files: `.npy` (one array) and `.npz` (a zip of named `.npy` files), written from
//! and read into device arrays.
//!
//! The header is read by the `npyz` crate; the data moves as raw bytes in one transfer
//! each way. Files NumPy writes in Fortran order or big-endian load correctly (the bytes
//! are swapped on the host, a Fortran-order array is reordered on the device). A file
//! whose element type is not `T` is an [`Error::File`] naming both types, never a
//! reinterpretation of its bits.
//!
//! | cuarray type | NumPy dtype (`descr`) |
//! | --- | --- |
//! | `bool` | `\|b1` |
//! | `i8 i16 i32 i64` | `\|i1 <i2 <i4 <i8` |
//! | `u8 u16 u32 u64` | `\|u1 <u2 <u4 <u8` |
//! | `f16 f32 f64` | `<f2 <f4 <f8` |
//! | `bf16` | `\|V2` (NumPy has no bfloat16; `ml_dtypes.bfloat16` views it) |
//! | `Complex32 Complex64` | `<c8 <c16` |

use crate::element::{DType, Element};
use crate::{Device, DeviceArray, Error, Result};
use bytemuck::checked::CheckedCastError;
use npyz::{TypeChar, WriterBuilder};
use std::borrow::Cow;
use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

/// The NumPy kind and item size of an element type.
fn kind_of(dtype: DType) -> (TypeChar, usize) {
    let kind = match dtype {
        DType::Bool => TypeChar::Bool,
        DType::I8 | DType::I16 | DType::I32 | DType::I64 => TypeChar::Int,
        DType::U8 | DType::U16 | DType::U32 | DType::U64 => TypeChar::Uint,
        DType::F16 | DType::F32 | DType::F64 => TypeChar::Float,
        DType::BF16 => TypeChar::RawData,
        DType::C64 | DType::C128 => TypeChar::Complex,
    };
    (kind, dtype.size())
}

/// The type string written for `dtype` (`<f4`, `|b1`...).
fn type_str(dtype: DType) -> npyz::TypeStr {
    let (kind, size) = kind_of(dtype);
    let order = if size == 1 || kind == TypeChar::RawData {
        '|'
    } else {
        '<'
    };
    format!("{order}{}{size}", kind.to_str())
        .parse()
        .expect("every element type has a valid NumPy type string")
}

fn file_error(path: &Path, msg: impl std::fmt::Display) -> Error {
    Error::File {
        path: path.to_path_buf(),
        msg: msg.to_string(),
    }
}

/// Writes `a` as one `.npy` file: its logical values in C order, whatever its layout.
///
/// ```no_run
/// let dev = cuarray::Device::new(0)?;
/// let a = cuarray::DeviceArray::from_host(&dev, &[1.0f32, 2.0, 3.0, 4.0], &[2, 2])?;
/// cuarray::save_npy("a.npy", &a)?;                     // numpy.load("a.npy") reads it
/// let b = cuarray::load_npy::<f32>(&dev, "a.npy")?;
/// assert_eq!(b.to_host()?, vec![1.0, 2.0, 3.0, 4.0]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::File`] when the file cannot be written; the errors of [`DeviceArray::to_host`].
///
/// # Transfers and synchronization
/// One device-to-host copy, as [`DeviceArray::to_host`].
pub fn save_npy<T: Element>(path: impl AsRef<Path>, a: &DeviceArray<T>) -> Result<()> {
    let path = path.as_ref();
    let file = File::create(path).map_err(|e| file_error(path, e))?;
    let mut w = BufWriter::new(file);
    write_npy(&mut w, a).map_err(|e| e.at(path))?;
    w.flush().map_err(|e| file_error(path, e))
}

/// Reads a `.npy` file into a new C-contiguous array on `device`.
///
/// [`save_npy`] writes such a file; so does NumPy's `np.save`.
///
/// ```no_run
/// use cuarray::{Device, DeviceArray};
/// let dev = Device::new(0)?;
/// // Written by NumPy: np.save("x.npy", np.arange(6, dtype=np.float32).reshape(2, 3))
/// # let x = DeviceArray::<f32>::arange(&dev, 0.0, 6.0, 1.0)?.reshape(&[2, 3])?;
/// # cuarray::save_npy("x.npy", &x)?;
/// let x = cuarray::load_npy::<f32>(&dev, "x.npy")?;
/// assert_eq!(x.shape(), &[2, 3]);
/// assert_eq!(x.to_host()?, vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::File`] when the file cannot be read, is not a `.npy` file, or holds another
/// element type than `T` (the message names both); the errors of
/// [`DeviceArray::from_host`].
pub fn load_npy<T: Element>(device: &Device, path: impl AsRef<Path>) -> Result<DeviceArray<T>> {
    let path = path.as_ref();
    let file = File::open(path).map_err(|e| file_error(path, e))?;
    read_npy(device, BufReader::new(file)).map_err(|e| e.at(path))
}

/// Writes several arrays of one element type as a `.npz` file (uncompressed, as
/// `numpy.savez`), each under its name (`name.npy` inside the archive). For arrays of
/// different element types, use [`NpzWriter`].
///
/// ```no_run
/// let dev = cuarray::Device::new(0)?;
/// let x = cuarray::DeviceArray::<f64>::linspace(&dev, 0.0, 1.0, 5)?;
/// let y = x.sin()?;
/// cuarray::savez("xy.npz", &[("x", &x), ("y", &y)])?;
/// let back = cuarray::load_npz::<f64>(&dev, "xy.npz")?;
/// assert_eq!(back[1].0, "y");
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// As [`NpzWriter::add`] and [`NpzWriter::finish`].
pub fn savez<T: Element>(path: impl AsRef<Path>, arrays: &[(&str, &DeviceArray<T>)]) -> Result<()> {
    let mut z = NpzWriter::create(path)?;
    for (name, a) in arrays {
        z.add(name, a)?;
    }
    z.finish()
}

/// Reads every array of a `.npz` file, in the archive's order, with its name (without
/// `.npy`). Every array must have element type `T`; for mixed files use [`NpzReader`].
///
/// ```no_run
/// use cuarray::{Device, DeviceArray};
/// let dev = Device::new(0)?;
/// // Written by NumPy: np.savez("xy.npz", x=np.zeros(3), y=np.ones(3))
/// # let (x, y) = (DeviceArray::<f64>::zeros(&dev, 3)?, DeviceArray::<f64>::ones(&dev, 3)?);
/// # cuarray::savez("xy.npz", &[("x", &x), ("y", &y)])?;
/// let arrays = cuarray::load_npz::<f64>(&dev, "xy.npz")?;
/// let names: Vec<&str> = arrays.iter().map(|(n, _)| n.as_str()).collect();
/// assert_eq!(names, ["x", "y"]);
/// assert_eq!(arrays[1].1.to_host()?, vec![1.0; 3]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// As [`NpzReader::open`] and [`NpzReader::load`].
pub fn load_npz<T: Element>(
    device: &Device,
    path: impl AsRef<Path>,
) -> Result<Vec<(String, DeviceArray<T>)>> {
    let mut z = NpzReader::open(path)?;
    let names = z.names();
    names
        .into_iter()
        .map(|name| {
            let a = z.load(device, &name)?;
            Ok((name, a))
        })
        .collect()
}

/// A `.npz` file being written, one array at a time (arrays of any element types).
///
/// ```no_run
/// let dev = cuarray::Device::new(0)?;
/// let w = cuarray::DeviceArray::<f32>::ones(&dev, &[3, 3])?;
/// let steps = cuarray::DeviceArray::from_host(&dev, &[10i64], &[])?;
/// let mut z = cuarray::NpzWriter::create("checkpoint.npz")?;
/// z.add("w", &w)?;
/// z.add("steps", &steps)?;
/// z.finish()?;
/// # Ok::<(), cuarray::Error>(())
/// ```
pub struct NpzWriter {
    path: PathBuf,
    zip: zip::ZipWriter<BufWriter<File>>,
}

impl NpzWriter {
    /// Creates (or truncates) the file at `path`.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let path = std::env::temp_dir().join("run.npz");
    /// let mut z = cuarray::NpzWriter::create(&path)?;
    /// z.add("loss", &DeviceArray::from_slice(&dev, &[0.5f32, 0.25])?)?;
    /// z.finish()?;
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::File`] when the file cannot be created.
    pub fn create(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref().to_path_buf();
        let file = File::create(&path).map_err(|e| file_error(&path, e))?;
        Ok(NpzWriter {
            zip: zip::ZipWriter::new(BufWriter::new(file)),
            path,
        })
    }

    /// Adds `a` as `name.npy`.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let path = std::env::temp_dir().join("mixed.npz");
    /// let mut z = cuarray::NpzWriter::create(&path)?;
    /// z.add("weights", &DeviceArray::<f32>::ones(&dev, &[2, 2])?)?; // weights.npy
    /// z.add("labels", &DeviceArray::from_slice(&dev, &[0i64, 1])?)?; // another element type
    /// z.finish()?;
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::File`] when writing fails; the errors of [`DeviceArray::to_host`].
    pub fn add<T: Element>(&mut self, name: &str, a: &DeviceArray<T>) -> Result<()> {
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Stored)
            .large_file(a.size() * T::DTYPE.size() >= u32::MAX as usize);
        self.zip
            .start_file(format!("{name}.npy"), options)
            .map_err(|e| file_error(&self.path, e))?;
        write_npy(&mut self.zip, a).map_err(|e| e.at(&self.path))
    }

    /// Adds the 0-d byte string `bytes` as `name.npy` (NumPy's `np.array(b"...")`, dtype
    /// `|S<len>`), as SciPy's sparse files store their format.
    pub(crate) fn add_bytes(&mut self, name: &str, bytes: &[u8]) -> Result<()> {
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Stored);
        self.zip
            .start_file(format!("{name}.npy"), options)
            .map_err(|e| file_error(&self.path, e))?;
        let ts: npyz::TypeStr = format!("|S{}", bytes.len().max(1))
            .parse()
            .map_err(|e| file_error(&self.path, e))?;
        let write = |w: &mut zip::ZipWriter<BufWriter<File>>| -> std::io::Result<()> {
            npyz::WriteOptions::new_header_only()
                .dtype(npyz::DType::Plain(ts))
                .shape(&[])
                .writer(&mut *w)
                .write_header_only()?;
            w.write_all(if bytes.is_empty() { &[0] } else { bytes })
        };
        write(&mut self.zip).map_err(|e| file_error(&self.path, e))
    }

    /// Writes the archive's directory and closes the file.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let path = std::env::temp_dir().join("one.npz");
    /// let mut z = cuarray::NpzWriter::create(&path)?;
    /// z.add("a", &DeviceArray::from_slice(&dev, &[1u8, 2])?)?;
    /// z.finish()?; // without it the archive has no directory
    /// assert_eq!(cuarray::NpzReader::open(&path)?.names(), ["a"]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::File`] when writing fails.
    pub fn finish(self) -> Result<()> {
        let path = self.path;
        let mut w = self.zip.finish().map_err(|e| file_error(&path, e))?;
        w.flush().map_err(|e| file_error(&path, e))
    }
}

/// A `.npz` file opened for reading (stored or deflate-compressed, as `numpy.savez` and
/// `numpy.savez_compressed` write them).
///
/// ```no_run
/// use cuarray::{Device, DeviceArray};
/// let dev = Device::new(0)?;
/// // Written by NumPy: np.savez("run.npz", x=np.arange(3.0), labels=np.array([1, 0, 1]))
/// # let mut w = cuarray::NpzWriter::create("run.npz")?;
/// # w.add("x", &DeviceArray::<f64>::arange(&dev, 0.0, 3.0, 1.0)?)?;
/// # w.add("labels", &DeviceArray::from_slice(&dev, &[1i64, 0, 1])?)?;
/// # w.finish()?;
/// let mut z = cuarray::NpzReader::open("run.npz")?;
/// for name in z.names() {
///     println!("{name}");
/// }
/// let x = z.load::<f64>(&dev, "x")?;
/// let labels = z.load::<i64>(&dev, "labels")?;
/// # Ok::<(), cuarray::Error>(())
/// ```
pub struct NpzReader {
    path: PathBuf,
    zip: zip::ZipArchive<BufReader<File>>,
}

impl NpzReader {
    /// Opens the archive at `path`.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// // Written by NumPy: np.savez_compressed("ckpt.npz", w=np.ones((3, 3), np.float32), step=np.int64(10))
    /// # let mut w = cuarray::NpzWriter::create("ckpt.npz")?;
    /// # w.add("w", &DeviceArray::<f32>::ones(&dev, (3, 3))?)?;
    /// # w.add("step", &DeviceArray::<i64>::full(&dev, (), 10)?)?;
    /// # w.finish()?;
    /// let mut z = cuarray::NpzReader::open("ckpt.npz")?;
    /// let w = z.load::<f32>(&dev, "w")?;
    /// let step = z.load::<i64>(&dev, "step")?.to_scalar()?;
    /// assert_eq!((w.shape(), step), (&[3, 3][..], 10));
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::File`] when the file cannot be read or is not a zip archive.
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref().to_path_buf();
        let file = File::open(&path).map_err(|e| file_error(&path, e))?;
        let zip = zip::ZipArchive::new(BufReader::new(file)).map_err(|e| file_error(&path, e))?;
        Ok(NpzReader { path, zip })
    }

    /// The names of the arrays in the archive, in its order (without `.npy`).
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// # let dev = Device::new(0)?;
    /// // Written by NumPy: np.savez("ckpt.npz", w=..., step=...)
    /// # let mut w = cuarray::NpzWriter::create("ckpt.npz")?;
    /// # w.add("w", &DeviceArray::<f32>::ones(&dev, (3, 3))?)?;
    /// # w.add("step", &DeviceArray::<i64>::full(&dev, (), 10)?)?;
    /// # w.finish()?;
    /// let z = cuarray::NpzReader::open("ckpt.npz")?;
    /// assert_eq!(z.names(), ["w", "step"]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn names(&self) -> Vec<String> {
        (0..self.zip.len())
            .filter_map(|i| self.zip.name_for_index(i))
            .map(|n| n.strip_suffix(".npy").unwrap_or(n).to_string())
            .collect()
    }

    /// Reads the array `name` into a new array on `device`.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// // Written by NumPy: np.savez("ckpt.npz", w=np.ones((3, 3), np.float32), step=np.int64(10))
    /// # let mut w = cuarray::NpzWriter::create("ckpt.npz")?;
    /// # w.add("w", &DeviceArray::<f32>::ones(&dev, (3, 3))?)?;
    /// # w.add("step", &DeviceArray::<i64>::full(&dev, (), 10)?)?;
    /// # w.finish()?;
    /// let mut z = cuarray::NpzReader::open("ckpt.npz")?;
    /// assert_eq!(z.load::<i64>(&dev, "step")?.to_scalar()?, 10);
    /// assert!(z.load::<f64>(&dev, "w").is_err()); // the file holds float32, not float64
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::File`] when there is no such array, or it holds another element type than
    /// `T`; as [`load_npy`] otherwise.
    pub fn load<T: Element>(&mut self, device: &Device, name: &str) -> Result<DeviceArray<T>> {
        let path = self.path.clone();
        let entry = self.entry(name)?;
        let file = self.zip.by_index(entry).map_err(|e| file_error(&path, e))?;
        read_npy(device, file).map_err(|e| e.at(&path))
    }

    /// Whether the archive has an array `name`.
    pub(crate) fn contains(&self, name: &str) -> bool {
        self.entry(name).is_ok()
    }

    fn entry(&self, name: &str) -> Result<usize> {
        self.zip
            .index_for_name(&format!("{name}.npy"))
            .or_else(|| self.zip.index_for_name(name))
            .ok_or_else(|| file_error(&self.path, format!("no array named {name:?}")))
    }

    /// The 0-d string array `name` (NumPy's `|S<n>` bytes or `<U<n>` text; trailing
    /// NULs dropped), as SciPy's sparse files store their format.
    pub(crate) fn load_string(&mut self, name: &str) -> Result<String> {
        let path = self.path.clone();
        let entry = self.entry(name)?;
        let file = self.zip.by_index(entry).map_err(|e| file_error(&path, e))?;
        let npy = npyz::NpyFile::new(file).map_err(|e| file_error(&path, e))?;
        let header = npy.header().clone();
        let not_string = || file_error(&path, format!("{name:?} is not a 0-d string array"));
        let npyz::DType::Plain(ts) = header.dtype() else {
            return Err(not_string());
        };
        if !header.shape().is_empty() {
            return Err(not_string());
        }
        let size = ts.num_bytes().ok_or_else(not_string)?;
        let mut bytes = Vec::new();
        npy.into_inner()
            .take(size as u64)
            .read_to_end(&mut bytes)
            .map_err(|e| file_error(&path, e))?;
        let text: String = match ts.type_char() {
            TypeChar::ByteStr => bytes.iter().map(|&b| b as char).collect(),
            TypeChar::UnicodeStr => bytes
                .chunks_exact(4)
                .map(|c| {
                    let v = if ts.endianness() == npyz::Endianness::Big {
                        u32::from_be_bytes([c[0], c[1], c[2], c[3]])
                    } else {
                        u32::from_le_bytes([c[0], c[1], c[2], c[3]])
                    };
                    char::from_u32(v).unwrap_or(char::REPLACEMENT_CHARACTER)
                })
                .collect(),
            _ => return Err(not_string()),
        };
        Ok(text.trim_end_matches('\0').to_string())
    }
}

/// What went wrong while reading or writing a stream, before the path is known.
enum StreamError {
    Io(std::io::Error),
    Format(String),
    Array(Error),
}

impl StreamError {
    fn at(self, path: &Path) -> Error {
        match self {
            StreamError::Io(e) => file_error(path, e),
            StreamError::Format(msg) => file_error(path, msg),
            StreamError::Array(e) => e,
        }
    }
}

impl From<std::io::Error> for StreamError {
    fn from(e: std::io::Error) -> Self {
        StreamError::Io(e)
    }
}

impl From<Error> for StreamError {
    fn from(e: Error) -> Self {
        StreamError::Array(e)
    }
}

fn write_npy<T: Element, W: Write>(w: &mut W, a: &DeviceArray<T>) -> Result<(), StreamError> {
    let values = a.to_host()?;
    let shape: Vec<u64> = a.shape().iter().map(|&d| d as u64).collect();
    npyz::WriteOptions::new_header_only()
        .dtype(npyz::DType::Plain(type_str(T::DTYPE)))
        .shape(&shape)
        .writer(&mut *w)
        .write_header_only()?;
    w.write_all(bytemuck::cast_slice(&values))?;
    Ok(())
}

fn read_npy<T: Element, R: Read>(device: &Device, r: R) -> Result<DeviceArray<T>, StreamError> {
    let npy = npyz::NpyFile::new(r)?;
    let header = npy.header().clone();
    let found = match header.dtype() {
        npyz::DType::Plain(ts) => ts,
        other => {
            return Err(StreamError::Format(format!(
                "holds a structured dtype ({}), not {}",
                other.descr(),
                T::DTYPE
            )))
        }
    };
    let (kind, size) = kind_of(T::DTYPE);
    if found.type_char() != kind || found.num_bytes() != Some(size) {
        return Err(StreamError::Format(format!(
            "holds NumPy dtype {found}, not {} (expected {})",
            T::DTYPE,
            type_str(T::DTYPE)
        )));
    }
    let shape: Vec<usize> = header
        .shape()
        .iter()
        .map(|&d| usize::try_from(d))
        .collect::<Result<_, _>>()
        .map_err(|_| StreamError::Format("a dimension does not fit in usize".into()))?;
    let n = shape
        .iter()
        .try_fold(1usize, |acc, &d| acc.checked_mul(d))
        .ok_or_else(|| StreamError::Format(format!("shape {shape:?} is too large")))?;
    let bytes_len = n
        .checked_mul(size)
        .ok_or_else(|| StreamError::Format(format!("shape {shape:?} is too large")))?;
    let mut bytes = Vec::new();
    bytes
        .try_reserve_exact(bytes_len)
        .map_err(|e| Error::HostOutOfMemory {
            op: "load_npy",
            requested: bytes_len,
            reason: e.to_string(),
        })?;
    npy.into_inner()
        .take(bytes_len as u64)
        .read_to_end(&mut bytes)?;
    if bytes.len() != bytes_len {
        return Err(StreamError::Format(format!(
            "ends after {} of its {bytes_len} data bytes",
            bytes.len()
        )));
    }
    if found.endianness() == npyz::Endianness::Big && size > 1 {
        // A complex number is two numbers of half its size, each swapped on its own.
        let part = if kind == TypeChar::Complex {
            size / 2
        } else {
            size
        };
        for item in bytes.chunks_exact_mut(part) {
            item.reverse();
        }
    }
    let values = from_bytes::<T>(&bytes)
        .ok_or_else(|| StreamError::Format("a bool element is neither 0 nor 1".to_string()))?;
    let fortran = header.order() == npyz::Order::Fortran && shape.len() > 1;
    if !fortran {
        return Ok(DeviceArray::from_host(device, &values, shape.as_slice())?);
    }
    // Fortran order: the bytes are the C-order values of the reversed shape, and the
    // array is their transpose, made contiguous on the device.
    let reversed: Vec<usize> = shape.iter().rev().copied().collect();
    let axes: Vec<isize> = (0..shape.len() as isize).rev().collect();
    let a = DeviceArray::from_host(device, &values, reversed.as_slice())?;
    Ok(a.permute(axes.as_slice())?.copy()?)
}

/// `bytes` (a whole number of elements, in memory order) as values of `T`, borrowed where
/// the bytes are aligned for `T` (as a fresh allocation's are) and copied otherwise;
/// `None` when a `bool` byte is neither 0 nor 1.
fn from_bytes<T: Element>(bytes: &[u8]) -> Option<Cow<'_, [T]>> {
    match bytemuck::checked::try_cast_slice::<u8, T>(bytes) {
        Ok(values) => Some(Cow::Borrowed(values)),
        Err(CheckedCastError::InvalidBitPattern) => None,
        Err(_) => bytes
            .chunks_exact(std::mem::size_of::<T>())
            .map(|item| bytemuck::checked::try_pod_read_unaligned::<T>(item).ok())
            .collect::<Option<Vec<T>>>()
            .map(Cow::Owned),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn type_strings_are_numpy_s() {
        let names: Vec<String> = DType::ALL
            .iter()
            .map(|&d| type_str(d).to_string())
            .collect();
        assert_eq!(
            names,
            [
                "|b1", "|i1", "<i2", "<i4", "<i8", "|u1", "<u2", "<u4", "<u8", "<f2", "|V2", "<f4",
                "<f8", "<c8", "<c16"
            ]
        );
    }

    #[test]
    fn bytes_round_trip_and_bool_check() {
        let v = [1.5f32, -2.0, f32::NAN];
        let back = from_bytes::<f32>(bytemuck::cast_slice(&v)).unwrap();
        assert_eq!(back[..2], v[..2]);
        assert!(back[2].is_nan());
        assert_eq!(
            from_bytes::<bool>(&[0, 1, 1]).as_deref(),
            Some(&[false, true, true][..])
        );
        assert_eq!(from_bytes::<bool>(&[0, 2]), None);
        // Bytes not aligned for the type are read one element at a time.
        let words = [0u32, 0x0403_0201, 0x0807_0605];
        let shifted = &bytemuck::cast_slice::<u32, u8>(&words)[1..9];
        let back = from_bytes::<u32>(shifted).unwrap();
        assert!(matches!(back, Cow::Owned(_)));
        assert_eq!(
            back[..],
            [
                u32::from_ne_bytes(shifted[..4].try_into().unwrap()),
                u32::from_ne_bytes(shifted[4..].try_into().unwrap())
            ]
        );
    }
}
