//! The crate's error type.

use std::path::PathBuf;

/// Result alias used by every fallible cuarray operation.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in cuarray.
///
/// Every variant carries enough context to act on: the shapes involved, the bytes asked
/// for, the library that was missing and where it was looked for, the NVRTC log.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A CUDA library could not be loaded (the driver, NVRTC or cuBLAS).
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
    #[error("{op}: arrays live on different devices ({lhs} and {rhs})")]
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
    /// A cuBLAS call failed.
    #[error("cuBLAS error in {op}: {msg}")]
    Cublas {
        /// What cuarray was doing.
        op: &'static str,
        /// The cuBLAS status.
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

impl Error {
    /// Wraps a driver error with the name of the operation that failed.
    pub(crate) fn cuda(op: &'static str) -> impl FnOnce(cudarc::driver::DriverError) -> Error {
        move |source| Error::Cuda { op, source }
    }

    pub(crate) fn invalid(op: &'static str, msg: impl Into<String>) -> Error {
        Error::InvalidArgument {
            op,
            msg: msg.into(),
        }
    }
}
