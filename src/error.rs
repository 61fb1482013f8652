//! The crate's error type.

use std::path::PathBuf;

/// Result alias used by every fallible cuarray operation.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in cuarray.
///
/// Every variant carries enough context to act on: the shapes involved, the bytes asked
/// for, the library that was missing and where it was looked for, the NVRTC log.
///
/// `Debug` prints the same message as `Display`, so that a `main` returning
/// [`cuarray::Result`](crate::Result) reports a readable error; match on the variant (or
/// use `{:#?}`, which adds the variant's fields) for the details.
///
/// ```no_run
/// fn main() -> cuarray::Result<()> {
///     let dev = cuarray::Device::new(0)?; // without a GPU: "Error: CUDA driver ... not found: ..."
///     let a = cuarray::DeviceArray::<f32>::zeros(&dev, &[2, 3])?;
///     println!("{}", a.to_host_string()?);
///     Ok(())
/// }
/// ```
#[derive(thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A CUDA library could not be loaded (the driver, NVRTC, cuBLAS or cuSOLVER).
    #[error("{library} not found: {hint} (looked for {looked_for})")]
    LibraryNotFound {
        /// Which library (`"CUDA driver (libcuda)"`, `"NVRTC (libnvrtc)"`, ...).
        library: &'static str,
        /// Where the search went.
        looked_for: String,
        /// What the user can do about it.
        hint: &'static str,
    },
    /// The driver loaded but reports no usable device.
    #[error("no CUDA device found: {reason}")]
    NoDevice {
        /// Why (driver error, zero devices, ...).
        reason: String,
    },
    /// The requested device ordinal does not exist.
    #[error("device ordinal {ordinal} out of range: {count} device(s) present")]
    DeviceOutOfRange {
        /// The ordinal asked for.
        ordinal: usize,
        /// How many devices exist.
        count: usize,
    },
    /// Arrays from two different devices met in one operation.
    #[error(
        "{op}: arrays live on different devices (cuda:{lhs} and cuda:{rhs}); move one with \
         to_device first"
    )]
    DeviceMismatch {
        /// The operation.
        op: &'static str,
        /// Ordinal of the first operand's device.
        lhs: usize,
        /// Ordinal of the second operand's device.
        rhs: usize,
    },
    /// Shapes that cannot be broadcast together.
    #[error("{op}: shapes {lhs:?} and {rhs:?} cannot be broadcast together")]
    Broadcast {
        /// The operation.
        op: &'static str,
        /// First shape.
        lhs: Vec<usize>,
        /// Second shape.
        rhs: Vec<usize>,
    },
    /// Shapes that do not fit an operation (reshape, concatenate, ...).
    #[error("{op}: {msg} (shapes {lhs:?} and {rhs:?})")]
    ShapeMismatch {
        /// The operation.
        op: &'static str,
        /// What does not fit.
        msg: String,
        /// First shape.
        lhs: Vec<usize>,
        /// Second shape.
        rhs: Vec<usize>,
    },
    /// An axis outside `-ndim..ndim`.
    #[error("{op}: axis {axis} is out of range for an array of {ndim} dimension(s)")]
    AxisOutOfRange {
        /// The operation.
        op: &'static str,
        /// The axis given.
        axis: isize,
        /// The array's rank.
        ndim: usize,
    },
    /// An index or slice that does not fit the array.
    #[error("{op}: {msg}")]
    InvalidArgument {
        /// The operation.
        op: &'static str,
        /// What was wrong.
        msg: String,
    },
    /// A shape, or an allocation, too large to address: its element count (the product of
    /// its non-zero extents) or its size in bytes passes `isize::MAX`.
    #[error(
        "{op}: shape {shape:?} is too large: {}",
        match elem_bytes {
            Some(b) => format!("its size in bytes ({b} per element) passes isize::MAX"),
            None => "the product of its extents passes isize::MAX".to_string(),
        }
    )]
    TooLarge {
        /// The operation.
        op: &'static str,
        /// The shape asked for (for a raw buffer, its byte count).
        shape: Vec<usize>,
        /// Bytes per element when the byte size overflowed; `None` when the element count
        /// did.
        elem_bytes: Option<usize>,
    },
    /// Host memory (a `Vec` or page-locked memory) could not be allocated.
    #[error("{op}: could not allocate {requested} bytes of host memory: {reason}")]
    HostOutOfMemory {
        /// The operation.
        op: &'static str,
        /// Bytes requested.
        requested: usize,
        /// Why (the driver's error for page-locked memory).
        reason: String,
    },
    /// A reduction with no identity (max, min, argmax, argmin) over zero elements.
    #[error(
        "{op}: zero-size array to reduction operation which has no identity (shape {shape:?})"
    )]
    EmptyReduction {
        /// The operation.
        op: &'static str,
        /// The array's shape.
        shape: Vec<usize>,
    },
    /// A host buffer whose length does not match the array.
    #[error("{op}: host buffer has {got} element(s), the array needs {expected}")]
    HostLength {
        /// The operation.
        op: &'static str,
        /// Elements required.
        expected: usize,
        /// Elements given.
        got: usize,
    },
    /// The device could not satisfy an allocation.
    #[error(
        "out of device memory: {requested} bytes requested, {in_use} bytes in use by cuarray's arrays, \
         {free} bytes free on the device of {total}{}",
        limit.map(|l| format!(" (pool limit {l} bytes)")).unwrap_or_default()
    )]
    OutOfMemory {
        /// Bytes requested.
        requested: usize,
        /// Bytes held by live arrays of this device's pool.
        in_use: usize,
        /// The pool's limit, if one is set ([`MemoryPool::set_limit`](crate::MemoryPool::set_limit)).
        limit: Option<usize>,
        /// Bytes free on the device when the request failed.
        free: usize,
        /// Total bytes on the device.
        total: usize,
    },
    /// NVRTC rejected a kernel.
    #[error("NVRTC failed to compile kernel {kernel} (options {options:?}):\n{log}")]
    Compile {
        /// The kernel's symbol.
        kernel: String,
        /// The options passed to NVRTC.
        options: Vec<String>,
        /// The compiler log.
        log: String,
    },
    /// A CUDA driver call failed.
    #[error("CUDA error in {op}: {source}")]
    Cuda {
        /// What cuarray was doing.
        op: &'static str,
        /// The driver's error (its name and description).
        #[source]
        source: cudarc::driver::DriverError,
    },
    /// A kernel met an index outside the extent it indexes (`take`, `take_along_axis`,
    /// `put_along_axis`, `index_add`, ...). Kernels check indices on the device without
    /// waiting: the element is skipped (a gather reads 0), and the error is reported by
    /// the next call that waits for the GPU ([`Device::synchronize`](crate::Device::synchronize),
    /// a transfer to the host, [`Device::check`](crate::Device::check)).
    #[error(
        "{op}: index {index} is out of range for an axis of extent {extent} (found on the \
         device by an earlier {op}, reported at this wait for the GPU)"
    )]
    IndexOutOfRange {
        /// The operation whose kernel met the index.
        op: &'static str,
        /// The first bad index recorded (as given, before negative indices wrap).
        index: i64,
        /// The extent it had to fit.
        extent: i64,
    },
    /// A cuBLAS call failed.
    #[error("cuBLAS error in {op}: {msg}")]
    Cublas {
        /// What cuarray was doing.
        op: &'static str,
        /// The cuBLAS status.
        msg: String,
    },
    /// A file could not be read or written, or does not hold what was asked for (a NumPy
    /// file of another element type, a truncated file, a missing array in an archive).
    #[error("{path}: {msg}")]
    File {
        /// The file.
        path: PathBuf,
        /// What failed.
        msg: String,
    },
    /// A cuFFT call failed.
    #[error("cuFFT error in {op}: {msg}")]
    Cufft {
        /// What cuarray was doing.
        op: &'static str,
        /// The cuFFT status.
        msg: String,
    },
    /// A cuSOLVER call failed (a status other than success: a bad argument, no memory
    /// for its internal buffers, an internal error).
    #[error("cuSOLVER error in {op}: {msg}")]
    Cusolver {
        /// What cuarray was doing.
        op: &'static str,
        /// The cuSOLVER status.
        msg: String,
    },
    /// A cuSPARSE call failed (a status other than success).
    #[error("cuSPARSE error in {op}: {msg}")]
    Cusparse {
        /// What cuarray was doing.
        op: &'static str,
        /// The cuSPARSE status.
        msg: String,
    },
    /// An NCCL call failed ([`nccl`](crate::nccl)): its status name, NCCL's description
    /// of it and, where NCCL has one, its last error message.
    #[error("NCCL error in {op}: {msg}")]
    Nccl {
        /// What cuarray was doing.
        op: &'static str,
        /// The NCCL status and message.
        msg: String,
    },
    /// The TCP rendezvous of [`nccl::init_from_env`](crate::nccl::init_from_env) failed:
    /// rank 0 could not listen or not every rank came within the timeout, a rank could
    /// not reach rank 0, or what answered there is not a cuarray rendezvous.
    #[error("NCCL rendezvous at MASTER_ADDR:MASTER_PORT = {addr}: {msg}")]
    Rendezvous {
        /// Rank 0's address, `host:port` from `MASTER_ADDR` and `MASTER_PORT`.
        addr: String,
        /// What went wrong.
        msg: String,
    },
    /// A matrix of a linear algebra operation is singular: its LU factorisation met an
    /// exactly zero pivot (NumPy's `LinAlgError: Singular matrix`). Found by one read of
    /// the factorisation's info array, which waits for the GPU; the `_ex` functions
    /// (`linalg::solve_ex`, `linalg::inv_ex`) return that array instead and never wait.
    #[error(
        "{op}: singular matrix (batch index {batch}): U[{pivot}, {pivot}] of its LU factorisation is exactly zero"
    )]
    Singular {
        /// The operation (`"solve"`, `"inv"`).
        op: &'static str,
        /// Which matrix of the batch: the flat (row-major) index over the batch
        /// dimensions; 0 for a single matrix.
        batch: usize,
        /// The 0-based row (and column) of the first zero pivot.
        pivot: usize,
    },
    /// A matrix given to a Cholesky factorisation is not positive definite (NumPy's
    /// `LinAlgError: Matrix is not positive definite`). Found by one read of the info
    /// array, which waits for the GPU; `linalg::cholesky_ex` returns that array instead
    /// and never waits.
    #[error(
        "{op}: matrix not positive definite (batch index {batch}): its leading minor of order {minor} is not positive"
    )]
    NotPositiveDefinite {
        /// The operation (`"cholesky"`).
        op: &'static str,
        /// Which matrix of the batch: the flat (row-major) index over the batch
        /// dimensions; 0 for a single matrix.
        batch: usize,
        /// The order (1-based size) of the first leading minor that is not positive.
        minor: usize,
    },
    /// An iterative decomposition (SVD, symmetric eigenvalues) did not converge (NumPy's
    /// `LinAlgError: SVD did not converge`).
    #[error("{op}: did not converge (batch index {batch})")]
    NoConvergence {
        /// The operation.
        op: &'static str,
        /// Which matrix of the batch: the flat (row-major) index over the batch
        /// dimensions; 0 for a single matrix.
        batch: usize,
    },
    /// A fused function ([`fuse`](crate::fuse)) that cannot become one kernel: an
    /// operation or a combination of arguments the fusion does not support, found when
    /// the closure was traced or at the call.
    #[error("fuse: {msg}")]
    Fusion {
        /// What is not supported, and what to do instead.
        msg: String,
    },
    /// A CUDA graph capture ([`Device::capture`](crate::Device::capture)) went wrong: an
    /// operation that would wait for the GPU, copy to or from the host, or otherwise
    /// cannot be replayed was called while capturing (the capture is ended cleanly and the
    /// device stays usable), or CUDA rejected the captured work.
    #[error("{op}: {msg}")]
    Capture {
        /// The operation refused (or `"capture"`).
        op: &'static str,
        /// Why.
        msg: String,
    },
    /// The kernel cache directory could not be used.
    #[error("kernel cache at {path}: {msg}")]
    Cache {
        /// The path involved.
        path: PathBuf,
        /// What failed.
        msg: String,
    },
}

impl std::fmt::Debug for Error {
    /// The message (as `Display`); with `{:#?}`, the message then the variant's fields.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)?;
        if f.alternate() {
            write!(f, "\n{}", self.fields())?;
        }
        Ok(())
    }
}

impl Error {
    /// The variant's name and fields, for `{:#?}`.
    fn fields(&self) -> String {
        match self {
            Error::LibraryNotFound { library, looked_for, hint } => format!(
                "LibraryNotFound {{ library: {library:?}, looked_for: {looked_for:?}, hint: {hint:?} }}"
            ),
            Error::NoDevice { reason } => format!("NoDevice {{ reason: {reason:?} }}"),
            Error::DeviceOutOfRange { ordinal, count } => {
                format!("DeviceOutOfRange {{ ordinal: {ordinal}, count: {count} }}")
            }
            Error::DeviceMismatch { op, lhs, rhs } => {
                format!("DeviceMismatch {{ op: {op:?}, lhs: {lhs}, rhs: {rhs} }}")
            }
            Error::Broadcast { op, lhs, rhs } => {
                format!("Broadcast {{ op: {op:?}, lhs: {lhs:?}, rhs: {rhs:?} }}")
            }
            Error::ShapeMismatch { op, msg, lhs, rhs } => format!(
                "ShapeMismatch {{ op: {op:?}, msg: {msg:?}, lhs: {lhs:?}, rhs: {rhs:?} }}"
            ),
            Error::AxisOutOfRange { op, axis, ndim } => {
                format!("AxisOutOfRange {{ op: {op:?}, axis: {axis}, ndim: {ndim} }}")
            }
            Error::InvalidArgument { op, msg } => {
                format!("InvalidArgument {{ op: {op:?}, msg: {msg:?} }}")
            }
            Error::TooLarge { op, shape, elem_bytes } => format!(
                "TooLarge {{ op: {op:?}, shape: {shape:?}, elem_bytes: {elem_bytes:?} }}"
            ),
            Error::HostOutOfMemory { op, requested, reason } => format!(
                "HostOutOfMemory {{ op: {op:?}, requested: {requested}, reason: {reason:?} }}"
            ),
            Error::EmptyReduction { op, shape } => {
                format!("EmptyReduction {{ op: {op:?}, shape: {shape:?} }}")
            }
            Error::HostLength { op, expected, got } => {
                format!("HostLength {{ op: {op:?}, expected: {expected}, got: {got} }}")
            }
            Error::OutOfMemory { requested, in_use, limit, free, total } => format!(
                "OutOfMemory {{ requested: {requested}, in_use: {in_use}, limit: {limit:?}, \
                 free: {free}, total: {total} }}"
            ),
            Error::Compile { kernel, options, .. } => {
                format!("Compile {{ kernel: {kernel:?}, options: {options:?}, log: .. }}")
            }
            Error::Cuda { op, source } => format!("Cuda {{ op: {op:?}, source: {source:?} }}"),
            Error::IndexOutOfRange { op, index, extent } => format!(
                "IndexOutOfRange {{ op: {op:?}, index: {index}, extent: {extent} }}"
            ),
            Error::Cublas { op, msg } => format!("Cublas {{ op: {op:?}, msg: {msg:?} }}"),
            Error::Cufft { op, msg } => format!("Cufft {{ op: {op:?}, msg: {msg:?} }}"),
            Error::Cusolver { op, msg } => format!("Cusolver {{ op: {op:?}, msg: {msg:?} }}"),
            Error::Cusparse { op, msg } => format!("Cusparse {{ op: {op:?}, msg: {msg:?} }}"),
            Error::Nccl { op, msg } => format!("Nccl {{ op: {op:?}, msg: {msg:?} }}"),
            Error::Rendezvous { addr, msg } => {
                format!("Rendezvous {{ addr: {addr:?}, msg: {msg:?} }}")
            }
            Error::Singular { op, batch, pivot } => {
                format!("Singular {{ op: {op:?}, batch: {batch}, pivot: {pivot} }}")
            }
            Error::NotPositiveDefinite { op, batch, minor } => format!(
                "NotPositiveDefinite {{ op: {op:?}, batch: {batch}, minor: {minor} }}"
            ),
            Error::NoConvergence { op, batch } => {
                format!("NoConvergence {{ op: {op:?}, batch: {batch} }}")
            }
            Error::Cache { path, msg } => format!("Cache {{ path: {path:?}, msg: {msg:?} }}"),
            Error::File { path, msg } => format!("File {{ path: {path:?}, msg: {msg:?} }}"),
            Error::Fusion { msg } => format!("Fusion {{ msg: {msg:?} }}"),
            Error::Capture { op, msg } => format!("Capture {{ op: {op:?}, msg: {msg:?} }}"),
        }
    }

    /// Wraps a driver error with the name of the operation that failed.
    pub(crate) fn cuda(op: &'static str) -> impl FnOnce(cudarc::driver::DriverError) -> Error {
        move |source| Error::Cuda { op, source }
    }

    pub(crate) fn fusion(msg: impl Into<String>) -> Error {
        Error::Fusion { msg: msg.into() }
    }

    pub(crate) fn invalid(op: &'static str, msg: impl Into<String>) -> Error {
        Error::InvalidArgument {
            op,
            msg: msg.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_is_the_message() {
        let e = Error::LibraryNotFound {
            library: "NVRTC (libnvrtc)",
            looked_for: "/opt/cuda/lib64".into(),
            hint: "install the CUDA toolkit",
        };
        assert_eq!(format!("{e:?}"), e.to_string());
        assert!(format!("{e:?}").starts_with("NVRTC (libnvrtc) not found"));
        let full = format!("{e:#?}");
        assert!(full.starts_with(&e.to_string()) && full.contains("LibraryNotFound {"));
        assert_eq!(
            format!("{:?}", Error::invalid("reshape", "bad")),
            "reshape: bad"
        );
    }

    #[test]
    fn linalg_messages() {
        let e = Error::Singular {
            op: "solve",
            batch: 3,
            pivot: 2,
        };
        assert_eq!(
            e.to_string(),
            "solve: singular matrix (batch index 3): U[2, 2] of its LU factorisation is exactly zero"
        );
        let e = Error::NotPositiveDefinite {
            op: "cholesky",
            batch: 0,
            minor: 4,
        };
        assert_eq!(
            e.to_string(),
            "cholesky: matrix not positive definite (batch index 0): its leading minor of order 4 is not positive"
        );
        assert!(format!("{e:#?}").contains("NotPositiveDefinite {"));
    }
}
