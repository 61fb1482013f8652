//! DLPack 1.x: arrays exchanged with PyTorch, CuPy, JAX and any other DLPack library,
//! without a copy.
//!
//! [`DeviceArray::to_dlpack`] hands an array out as a [`Tensor`] (a
//! `DLManagedTensorVersioned`) that keeps the array's memory alive until the consumer
//! calls its deleter; [`DeviceArray::from_dlpack`] wraps another library's tensor as an
//! array that calls the tensor's deleter, exactly once, when its last view goes.
//! [`Tensor::into_raw`] and [`Tensor::from_raw`] cross an FFI boundary (a Python capsule,
//! a C API).
//!
//! The ABI is the handful of `#[repr(C)]` structs of `dlpack.h`, written out here, so
//! that the default build needs no other crate.
//!
//! ```no_run
//! use cuarray::{Device, DeviceArray};
//! let dev = Device::new(0)?;
//! let a = DeviceArray::<f32>::arange(&dev, 0.0, 6.0, 1.0)?.reshape(&[2, 3])?;
//! let t = a.to_dlpack(None)?;                   // no copy: the tensor holds `a`'s memory
//! assert_eq!(t.shape(), &[2, 3]);
//! let b = DeviceArray::<f32>::from_dlpack(&dev, t)?; // and back, still no copy
//! assert_eq!(b.to_host()?, a.to_host()?);
//! # Ok::<(), cuarray::Error>(())
//! ```

mod ffi;

pub use ffi::*;

use crate::array::DeviceArray;
use crate::device::Device;
use crate::element::{DType, Element};
use crate::{Error, Result};
use std::ffi::c_void;
use std::ptr::NonNull;

/// The DLPack type of a cuarray element type (`bool` is `kDLBool`, 8 bits; complex
/// types count the bits of both parts, as NumPy's names do).
///
/// ```
/// use cuarray::{dlpack, DType};
/// let t = dlpack::data_type(DType::BF16);
/// assert_eq!((t.code, t.bits, t.lanes), (dlpack::DL_BFLOAT, 16, 1));
/// ```
pub fn data_type(dtype: DType) -> DLDataType {
    let code = match dtype {
        DType::Bool => DL_BOOL,
        DType::I8 | DType::I16 | DType::I32 | DType::I64 => DL_INT,
        DType::U8 | DType::U16 | DType::U32 | DType::U64 => DL_UINT,
        DType::F16 | DType::F32 | DType::F64 => DL_FLOAT,
        DType::BF16 => DL_BFLOAT,
        DType::C64 | DType::C128 => DL_COMPLEX,
    };
    DLDataType {
        code,
        bits: (dtype.size() * 8) as u8,
        lanes: 1,
    }
}

/// The cuarray element type of a DLPack type.
///
/// ```
/// use cuarray::{dlpack, DType};
/// let t = dlpack::DLDataType { code: dlpack::DL_COMPLEX, bits: 64, lanes: 1 };
/// assert_eq!(dlpack::dtype_of(t)?, DType::C64);
/// assert!(dlpack::dtype_of(dlpack::DLDataType { lanes: 4, ..t }).is_err());
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] naming the code, bits and lanes when cuarray has no such
/// type (vector types with more than one lane, float8, sub-byte types, ...).
pub fn dtype_of(t: DLDataType) -> Result<DType> {
    if t.lanes != 1 {
        return Err(Error::invalid(
            "from_dlpack",
            format!(
                "the tensor's elements have {} lanes (a vector type); cuarray takes 1 lane",
                t.lanes
            ),
        ));
    }
    DType::ALL
        .into_iter()
        .find(|&d| data_type(d) == t)
        .ok_or_else(|| {
            Error::invalid(
                "from_dlpack",
                format!(
                    "no cuarray element type for DLPack type code {} ({}) with {} bits",
                    t.code,
                    code_name(t.code),
                    t.bits
                ),
            )
        })
}

fn code_name(code: u8) -> &'static str {
    match code {
        DL_INT => "kDLInt",
        DL_UINT => "kDLUInt",
        DL_FLOAT => "kDLFloat",
        3 => "kDLOpaqueHandle",
        DL_BFLOAT => "kDLBfloat",
        DL_COMPLEX => "kDLComplex",
        DL_BOOL => "kDLBool",
        7..=13 => "a float8/float4 type",
        _ => "unknown",
    }
}

fn device_name(device_type: i32) -> String {
    match device_type {
        DL_CPU => "host memory (kDLCPU)".into(),
        DL_CUDA => "CUDA device memory (kDLCUDA)".into(),
        DL_CUDA_HOST => "page-locked host memory (kDLCUDAHost)".into(),
        DL_CUDA_MANAGED => "CUDA managed memory (kDLCUDAManaged)".into(),
        4 => "OpenCL memory (kDLOpenCL)".into(),
        10 => "ROCm memory (kDLROCM)".into(),
        t => format!("device type {t}"),
    }
}

/// A DLPack 1.x managed tensor (`DLManagedTensorVersioned`) held by Rust: its deleter is
/// called when the `Tensor` is dropped, unless ownership moved on through
/// [`into_raw`](Tensor::into_raw), [`into_legacy_raw`](Tensor::into_legacy_raw) or
/// [`DeviceArray::from_dlpack`].
///
/// ```no_run
/// use cuarray::{dlpack, Device, DeviceArray};
/// let dev = Device::new(0)?;
/// let a = DeviceArray::<i32>::zeros(&dev, &[4])?;
/// let raw = a.to_dlpack(None)?.into_raw();   // e.g. into a Python capsule
/// // SAFETY: `raw` came from `into_raw` and is taken back once.
/// let t = unsafe { dlpack::Tensor::from_raw(raw) }?;
/// assert_eq!(t.device(), dlpack::DLDevice { device_type: dlpack::DL_CUDA, device_id: 0 });
/// # Ok::<(), cuarray::Error>(())
/// ```
pub struct Tensor {
    ptr: NonNull<DLManagedTensorVersioned>,
}

// SAFETY: a DLPack tensor is a description of memory plus a deleter; DLPack producers
// (cuarray, PyTorch, CuPy, JAX) accept the deleter being called from any thread (Python
// ones take the GIL in it), and nothing here is tied to the thread that made it.
unsafe impl Send for Tensor {}
// SAFETY: shared references only read the tensor's description.
unsafe impl Sync for Tensor {}

impl std::fmt::Debug for Tensor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tensor")
            .field("version", &self.version())
            .field("device", &self.device())
            .field("dtype", &self.data_type())
            .field("shape", &self.shape())
            .field("strides", &self.strides())
            .field("byte_offset", &self.byte_offset())
            .field("flags", &self.flags())
            .finish()
    }
}

impl Drop for Tensor {
    fn drop(&mut self) {
        // SAFETY: the tensor is live and owned by `self`; its deleter is called once.
        unsafe {
            if let Some(d) = self.managed().deleter {
                d(self.ptr.as_ptr());
            }
        }
    }
}

impl Tensor {
    fn managed(&self) -> &DLManagedTensorVersioned {
        // SAFETY: `ptr` is a live managed tensor until the deleter runs (in drop).
        unsafe { self.ptr.as_ref() }
    }

    fn tensor(&self) -> &DLTensor {
        &self.managed().dl_tensor
    }

    /// Takes ownership of a `DLManagedTensorVersioned` (from a `"dltensor_versioned"`
    /// capsule, a C API, or [`into_raw`](Self::into_raw)): dropping the `Tensor` calls its
    /// deleter.
    ///
    /// # Safety
    /// `ptr` points to a live `DLManagedTensorVersioned` that nobody else will delete,
    /// whose `shape` (and `strides`, if not null) hold `ndim` values while it lives.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a null pointer, or a major version other than 1 (the
    /// tensor is deleted then, as DLPack asks of a consumer that refuses it).
    pub unsafe fn from_raw(ptr: *mut DLManagedTensorVersioned) -> Result<Tensor> {
        let ptr = NonNull::new(ptr)
            .ok_or_else(|| Error::invalid("Tensor::from_raw", "the tensor pointer is null"))?;
        let t = Tensor { ptr };
        let v = t.version();
        if v.major != DLPACK_VERSION.major {
            drop(t);
            return Err(Error::invalid(
                "Tensor::from_raw",
                format!(
                    "DLPack version {}.{} is not supported (cuarray reads major version {})",
                    v.major, v.minor, DLPACK_VERSION.major
                ),
            ));
        }
        Ok(t)
    }

    /// Takes ownership of a legacy `DLManagedTensor` (a `"dltensor"` capsule, DLPack 0.x
    /// producers): the `Tensor` reports version 1.0 with no flags, and calls the legacy
    /// deleter when dropped.
    ///
    /// # Safety
    /// As [`from_raw`](Self::from_raw), for a `DLManagedTensor`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a null pointer.
    pub unsafe fn from_legacy_raw(ptr: *mut DLManagedTensor) -> Result<Tensor> {
        if ptr.is_null() {
            return Err(Error::invalid(
                "Tensor::from_legacy_raw",
                "the tensor pointer is null",
            ));
        }
        // SAFETY: the caller gives a live legacy tensor.
        let dl_tensor = unsafe { (*ptr).dl_tensor };
        let wrap = Box::new(FromLegacy {
            managed: DLManagedTensorVersioned {
                version: DLPackVersion { major: 1, minor: 0 },
                manager_ctx: std::ptr::null_mut(),
                deleter: Some(delete_from_legacy),
                flags: 0,
                dl_tensor,
            },
            legacy: ptr,
        });
        let raw = Box::into_raw(wrap);
        Ok(Tensor {
            // SAFETY: from `Box::into_raw`, never null; `managed` is the first field of a
            // `#[repr(C)]` struct.
            ptr: unsafe { NonNull::new_unchecked(raw.cast()) },
        })
    }

    /// Gives up ownership: the consumer (a capsule, C code) must call the deleter once,
    /// or hand the pointer back to [`from_raw`](Self::from_raw).
    pub fn into_raw(self) -> *mut DLManagedTensorVersioned {
        let p = self.ptr.as_ptr();
        std::mem::forget(self);
        p
    }

    /// Gives up ownership as a legacy `DLManagedTensor` (for a `"dltensor"` capsule, the
    /// form consumers without DLPack 1.x ask for); the read-only flag does not survive.
    pub fn into_legacy_raw(self) -> *mut DLManagedTensor {
        let wrap = Box::new(ToLegacy {
            managed: DLManagedTensor {
                dl_tensor: *self.tensor(),
                manager_ctx: std::ptr::null_mut(),
                deleter: Some(delete_to_legacy),
            },
            versioned: self.into_raw(),
        });
        Box::into_raw(wrap).cast()
    }

    /// The DLPack version of the tensor.
    pub fn version(&self) -> DLPackVersion {
        self.managed().version
    }

    /// The `DLPACK_FLAG_BITMASK_*` bits.
    pub fn flags(&self) -> u64 {
        self.managed().flags
    }

    /// True when the producer asks that the memory is not written
    /// ([`DLPACK_FLAG_BITMASK_READ_ONLY`]). cuarray's arrays have no read-only mode: an
    /// array made from such a tensor must only be read.
    pub fn is_read_only(&self) -> bool {
        self.flags() & DLPACK_FLAG_BITMASK_READ_ONLY != 0
    }

    /// Where the memory is.
    pub fn device(&self) -> DLDevice {
        self.tensor().device
    }

    /// The element type, as DLPack spells it.
    pub fn data_type(&self) -> DLDataType {
        self.tensor().dtype
    }

    /// The extents (empty for a 0-d tensor or a malformed one with a null shape).
    pub fn shape(&self) -> &[i64] {
        let t = self.tensor();
        if t.ndim <= 0 || t.shape.is_null() {
            return &[];
        }
        // SAFETY: DLPack's `shape` holds `ndim` values while the tensor lives.
        unsafe { std::slice::from_raw_parts(t.shape, t.ndim as usize) }
    }

    /// The strides in elements, `None` when the producer left them null (C-contiguous).
    pub fn strides(&self) -> Option<&[i64]> {
        let t = self.tensor();
        if t.strides.is_null() {
            return None;
        }
        if t.ndim <= 0 {
            return Some(&[]);
        }
        // SAFETY: non-null `strides` hold `ndim` values while the tensor lives.
        Some(unsafe { std::slice::from_raw_parts(t.strides, t.ndim as usize) })
    }

    /// The base address (`data`), before [`byte_offset`](Self::byte_offset).
    pub fn data_ptr(&self) -> u64 {
        self.tensor().data as u64
    }

    /// Bytes from [`data_ptr`](Self::data_ptr) to the first element.
    pub fn byte_offset(&self) -> u64 {
        self.tensor().byte_offset
    }

    /// Shape and strides (in elements) of the tensor, checked: the rank is not negative,
    /// extents are not negative, a null `strides` means C-contiguous.
    fn parts(&self, op: &'static str) -> Result<(Vec<usize>, Vec<isize>)> {
        let t = self.tensor();
        if t.ndim < 0 {
            return Err(Error::invalid(op, format!("negative rank {}", t.ndim)));
        }
        if t.ndim > 0 && t.shape.is_null() {
            return Err(Error::invalid(
                op,
                format!("the tensor has rank {} and a null shape", t.ndim),
            ));
        }
        let shape = self
            .shape()
            .iter()
            .map(|&d| usize::try_from(d))
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(|_| {
                Error::invalid(op, format!("negative extent in shape {:?}", self.shape()))
            })?;
        let strides = match self.strides() {
            None => {
                crate::shape::checked_size(op, &shape)?;
                crate::shape::c_strides(&shape)
            }
            Some(s) => s
                .iter()
                .map(|&x| isize::try_from(x))
                .collect::<std::result::Result<Vec<_>, _>>()
                .map_err(|_| Error::invalid(op, format!("stride out of range in {s:?}")))?,
        };
        Ok((shape, strides))
    }

    /// The checks `from_dlpack` makes before it touches anything: device type and
    /// ordinal, element type, shape and strides. Returns the address of the first
    /// element, the shape and the strides.
    fn check_for(
        &self,
        op: &'static str,
        ordinal: usize,
        dtype: DType,
    ) -> Result<(u64, Vec<usize>, Vec<isize>)> {
        let dev = self.device();
        if dev.device_type != DL_CUDA && dev.device_type != DL_CUDA_MANAGED {
            return Err(Error::invalid(
                op,
                format!(
                    "the tensor is in {}, not on a CUDA device; copy it to the host and use \
                     DeviceArray::from_host, or move it to the GPU first",
                    device_name(dev.device_type)
                ),
            ));
        }
        if usize::try_from(dev.device_id).ok() != Some(ordinal) {
            return Err(Error::DeviceMismatch {
                op,
                lhs: ordinal,
                rhs: dev.device_id.max(0) as usize,
            });
        }
        let theirs = dtype_of(self.data_type()).map_err(|e| match e {
            Error::InvalidArgument { msg, .. } => Error::invalid(op, msg),
            e => e,
        })?;
        if theirs != dtype {
            return Err(Error::invalid(
                op,
                format!(
                    "the tensor holds {} elements, the array type is {}",
                    theirs.name(),
                    dtype.name()
                ),
            ));
        }
        let (shape, strides) = self.parts(op)?;
        let ptr = self
            .data_ptr()
            .checked_add(self.byte_offset())
            .ok_or_else(|| {
                Error::invalid(
                    op,
                    "data pointer plus byte_offset overflows the address space",
                )
            })?;
        Ok((ptr, shape, strides))
    }
}

/// A legacy tensor seen as a versioned one.
#[repr(C)]
struct FromLegacy {
    managed: DLManagedTensorVersioned,
    legacy: *mut DLManagedTensor,
}

unsafe extern "C" fn delete_from_legacy(p: *mut DLManagedTensorVersioned) {
    if p.is_null() {
        return;
    }
    // SAFETY: `p` is the `FromLegacy` box made by `from_legacy_raw`, deleted once.
    let wrap = unsafe { Box::from_raw(p.cast::<FromLegacy>()) };
    // SAFETY: the legacy tensor is live until its deleter, called once here.
    unsafe {
        if let Some(d) = (*wrap.legacy).deleter {
            d(wrap.legacy);
        }
    }
}

/// A versioned tensor seen as a legacy one.
#[repr(C)]
struct ToLegacy {
    managed: DLManagedTensor,
    versioned: *mut DLManagedTensorVersioned,
}

unsafe extern "C" fn delete_to_legacy(p: *mut DLManagedTensor) {
    if p.is_null() {
        return;
    }
    // SAFETY: `p` is the `ToLegacy` box made by `into_legacy_raw`, deleted once.
    let wrap = unsafe { Box::from_raw(p.cast::<ToLegacy>()) };
    // SAFETY: the versioned tensor is live until its deleter, called once here.
    unsafe {
        if let Some(d) = (*wrap.versioned).deleter {
            d(wrap.versioned);
        }
    }
}

/// What cuarray hands out: the managed tensor first (`#[repr(C)]`), then the storage its
/// pointers refer to and the array that keeps the memory alive.
#[repr(C)]
struct Export {
    managed: DLManagedTensorVersioned,
    shape: Vec<i64>,
    strides: Vec<i64>,
    _keep: Box<dyn std::any::Any + Send + Sync>,
}

unsafe extern "C" fn delete_export(p: *mut DLManagedTensorVersioned) {
    if p.is_null() {
        return;
    }
    // SAFETY: `p` is the `Export` box made by `to_dlpack`, deleted once.
    let export = unsafe { Box::from_raw(p.cast::<Export>()) };
    // Dropping the array never unwinds into the C caller.
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || drop(export)));
}

/// Builds the managed tensor of an array: `ptr` is its first element, `keep` what keeps
/// the memory alive.
fn export(
    ptr: u64,
    ordinal: usize,
    dtype: DType,
    shape: &[usize],
    strides: &[isize],
    keep: Box<dyn std::any::Any + Send + Sync>,
) -> Tensor {
    let mut e = Box::new(Export {
        managed: DLManagedTensorVersioned {
            version: DLPACK_VERSION,
            manager_ctx: std::ptr::null_mut(),
            deleter: Some(delete_export),
            flags: 0,
            dl_tensor: DLTensor {
                data: ptr as *mut c_void,
                device: DLDevice {
                    device_type: DL_CUDA,
                    device_id: ordinal as i32,
                },
                ndim: shape.len() as i32,
                dtype: data_type(dtype),
                shape: std::ptr::null_mut(),
                strides: std::ptr::null_mut(),
                byte_offset: 0,
            },
        },
        shape: shape.iter().map(|&d| d as i64).collect(),
        strides: strides.iter().map(|&s| s as i64).collect(),
        _keep: keep,
    });
    e.managed.dl_tensor.shape = e.shape.as_mut_ptr();
    e.managed.dl_tensor.strides = e.strides.as_mut_ptr();
    let raw = Box::into_raw(e);
    // SAFETY: `raw` is a live box; the managed tensor is its first field.
    unsafe { (*raw).managed.manager_ctx = raw.cast() };
    Tensor {
        // SAFETY: from `Box::into_raw`, never null.
        ptr: unsafe { NonNull::new_unchecked(raw.cast()) },
    }
}

impl<T: Element> DeviceArray<T> {
    /// Hands the array out as a DLPack 1.x tensor, without a copy: the tensor keeps the
    /// array's memory alive until its deleter is called. Strides are passed as they are
    /// (a transposed view stays a transposed view); the data pointer is the first
    /// element's address and `byte_offset` is 0.
    ///
    /// `consumer_stream` is the stream the consumer will use the tensor on, as DLPack's
    /// `__dlpack__(stream=...)` passes it: `1` for CUDA's legacy default stream, `2` for
    /// the per-thread default stream, any other value a `CUstream`. When it differs from
    /// the array's stream, an event is recorded on the array's stream and the consumer's
    /// stream is made to wait for it, so that the consumer sees every write queued
    /// before (the host does not wait). `None`: no ordering; the consumer synchronises
    /// itself.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::<f32>::ones(&dev, &[3, 4])?;
    /// let t = a.t().to_dlpack(None)?;
    /// assert_eq!((t.shape(), t.strides()), (&[4, 3][..], Some(&[1, 4][..])));
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Safety of the consumer stream
    /// The integer names a stream; cuarray only records an event there to wait on. A
    /// value that is no live stream of the array's device is a driver error (`Err`) or
    /// undefined behaviour in the driver: pass what the consumer gave.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for `Some(0)` (DLPack forbids it for CUDA: it is
    /// ambiguous); [`Error::Capture`] while a CUDA graph is being captured on the device
    /// and a stream is given; [`Error::Cuda`] when the event cannot be recorded or
    /// waited for.
    pub fn to_dlpack(&self, consumer_stream: Option<usize>) -> Result<Tensor> {
        if let Some(s) = consumer_stream {
            handshake(self.device(), s)?;
        }
        let keep: Box<dyn std::any::Any + Send + Sync> = Box::new(self.clone());
        Ok(export(
            self.first_ptr(),
            self.device().ordinal(),
            T::DTYPE,
            self.shape(),
            self.strides(),
            keep,
        ))
    }

    /// Wraps a DLPack tensor from another library (PyTorch, CuPy, JAX, ...) as an array,
    /// without a copy. Shape, strides (in elements; null means C-contiguous) and
    /// `byte_offset` are honoured; the array's operations run on `device`'s stream. The
    /// tensor's deleter is called exactly once, when the last view of the array goes
    /// (after the work queued on the streams that used it has finished). The memory is
    /// not counted in the pool's statistics and never reused by cuarray.
    ///
    /// Order the producer's work first: a Python producer does it through
    /// `__dlpack__(stream=...)`; from Rust, the producer's documentation says how.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let t = DeviceArray::<f64>::zeros(&dev, &[8])?.to_dlpack(None)?;
    /// let a = DeviceArray::<f64>::from_dlpack(&dev, t)?;
    /// assert!(DeviceArray::<f32>::from_dlpack(&dev, a.to_dlpack(None)?).is_err()); // f64 != f32
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming what is wrong: memory that is not on a CUDA
    /// device (host memory, another kind of accelerator), an element type that is not
    /// `T` or has several lanes, a negative rank or extent, a null or misaligned data
    /// pointer for a non-empty tensor; [`Error::DeviceMismatch`] when the tensor is on
    /// another GPU than `device`; [`Error::TooLarge`] when its extents or strides reach
    /// past `isize::MAX` bytes. The tensor is deleted on every error.
    pub fn from_dlpack(device: &Device, tensor: Tensor) -> Result<Self> {
        let op = "from_dlpack";
        let (ptr, shape, strides) = tensor.check_for(op, device.ordinal(), T::DTYPE)?;
        // SAFETY: a DLPack producer guarantees that the elements its shape and strides
        // reach hold valid values of its (checked) dtype on the (checked) CUDA device,
        // in the primary context every DLPack library uses, until the deleter runs: the
        // tensor is the owner, deleted after the last view goes.
        unsafe { Self::from_foreign(op, device, ptr, &shape, &strides, Box::new(tensor)) }
    }
}

/// Makes `consumer` (DLPack's integer) wait for the work queued so far on `on`'s stream.
fn handshake(on: &Device, consumer: usize) -> Result<()> {
    let raw: cudarc::driver::sys::CUstream = match consumer {
        0 => {
            return Err(Error::invalid(
                "to_dlpack",
                "stream 0 is ambiguous for CUDA (DLPack forbids it): pass 1 for the legacy \
                 default stream, 2 for the per-thread default stream",
            ))
        }
        1 => std::ptr::null_mut(),
        s => s as cudarc::driver::sys::CUstream,
    };
    if raw == on.cu_stream() {
        return Ok(());
    }
    let _queuing = on.check_capture_stream("to_dlpack")?;
    on.bind()?;
    let event = on
        .cuda_stream()
        .record_event(None)
        .map_err(Error::cuda("to_dlpack: recording an event"))?;
    // SAFETY: the stream is the consumer's, live while it imports the tensor (DLPack's
    // protocol); the wrapper does not destroy it and lives only for this wait.
    let theirs = unsafe { on.context().wrap_borrowed_stream(raw) };
    theirs
        .wait(&event)
        .map_err(Error::cuda("to_dlpack: making the consumer's stream wait"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn struct_layouts_match_dlpack_h() {
        use std::mem::{align_of, offset_of, size_of};
        assert_eq!(size_of::<DLDevice>(), 8);
        assert_eq!(size_of::<DLDataType>(), 4);
        assert_eq!(size_of::<DLPackVersion>(), 8);
        assert_eq!(size_of::<DLTensor>(), 48);
        assert_eq!(offset_of!(DLTensor, ndim), 16);
        assert_eq!(offset_of!(DLTensor, dtype), 20);
        assert_eq!(offset_of!(DLTensor, shape), 24);
        assert_eq!(offset_of!(DLTensor, byte_offset), 40);
        assert_eq!(size_of::<DLManagedTensor>(), 64);
        assert_eq!(offset_of!(DLManagedTensorVersioned, manager_ctx), 8);
        assert_eq!(offset_of!(DLManagedTensorVersioned, deleter), 16);
        assert_eq!(offset_of!(DLManagedTensorVersioned, flags), 24);
        assert_eq!(offset_of!(DLManagedTensorVersioned, dl_tensor), 32);
        assert_eq!(size_of::<DLManagedTensorVersioned>(), 80);
        assert_eq!(align_of::<DLManagedTensorVersioned>(), 8);
    }

    #[test]
    fn every_element_type_maps_both_ways() {
        let expect = [
            (DType::Bool, DL_BOOL, 8),
            (DType::I8, DL_INT, 8),
            (DType::I16, DL_INT, 16),
            (DType::I32, DL_INT, 32),
            (DType::I64, DL_INT, 64),
            (DType::U8, DL_UINT, 8),
            (DType::U16, DL_UINT, 16),
            (DType::U32, DL_UINT, 32),
            (DType::U64, DL_UINT, 64),
            (DType::F16, DL_FLOAT, 16),
            (DType::BF16, DL_BFLOAT, 16),
            (DType::F32, DL_FLOAT, 32),
            (DType::F64, DL_FLOAT, 64),
            (DType::C64, DL_COMPLEX, 64),
            (DType::C128, DL_COMPLEX, 128),
        ];
        assert_eq!(expect.len(), DType::ALL.len());
        for (d, code, bits) in expect {
            let t = data_type(d);
            assert_eq!((t.code, t.bits, t.lanes), (code, bits, 1), "{d:?}");
            assert_eq!(dtype_of(t).unwrap(), d);
        }
        for bad in [
            DLDataType {
                code: DL_FLOAT,
                bits: 32,
                lanes: 4,
            },
            DLDataType {
                code: DL_FLOAT,
                bits: 8,
                lanes: 1,
            },
            DLDataType {
                code: 3,
                bits: 64,
                lanes: 1,
            },
            DLDataType {
                code: DL_BOOL,
                bits: 1,
                lanes: 1,
            },
            DLDataType {
                code: 9,
                bits: 8,
                lanes: 1,
            },
        ] {
            let e = dtype_of(bad).unwrap_err().to_string();
            assert!(e.contains("from_dlpack"), "{e}");
        }
    }

    static DELETED: AtomicUsize = AtomicUsize::new(0);

    /// A foreign tensor built on the host: its data pointer is fake and never read.
    #[repr(C)]
    struct Fake {
        managed: DLManagedTensorVersioned,
        shape: Vec<i64>,
        strides: Option<Vec<i64>>,
    }

    unsafe extern "C" fn delete_fake(p: *mut DLManagedTensorVersioned) {
        // SAFETY: made by `fake`, deleted once.
        drop(unsafe { Box::from_raw(p.cast::<Fake>()) });
        DELETED.fetch_add(1, Ordering::SeqCst);
    }

    fn fake(
        device: DLDevice,
        dtype: DLDataType,
        shape: Vec<i64>,
        strides: Option<Vec<i64>>,
        major: u32,
    ) -> *mut DLManagedTensorVersioned {
        let mut f = Box::new(Fake {
            managed: DLManagedTensorVersioned {
                version: DLPackVersion { major, minor: 0 },
                manager_ctx: std::ptr::null_mut(),
                deleter: Some(delete_fake),
                flags: DLPACK_FLAG_BITMASK_READ_ONLY,
                dl_tensor: DLTensor {
                    data: 0x7000_0000usize as *mut c_void,
                    device,
                    ndim: shape.len() as i32,
                    dtype,
                    shape: std::ptr::null_mut(),
                    strides: std::ptr::null_mut(),
                    byte_offset: 256,
                },
            },
            shape,
            strides,
        });
        f.managed.dl_tensor.shape = f.shape.as_mut_ptr();
        if let Some(s) = f.strides.as_mut() {
            f.managed.dl_tensor.strides = s.as_mut_ptr();
        }
        Box::into_raw(f).cast()
    }

    /// Takes a tensor made by `fake` or `into_raw`.
    fn own(p: *mut DLManagedTensorVersioned) -> Result<Tensor> {
        // SAFETY: `p` is live (from `fake` or `into_raw`) and taken once.
        unsafe { Tensor::from_raw(p) }
    }

    const CUDA0: DLDevice = DLDevice {
        device_type: DL_CUDA,
        device_id: 0,
    };

    // One test touches the deletion counter, so that parallel tests do not race on it.
    #[test]
    fn tensors_from_the_host_side() {
        let f32t = data_type(DType::F32);
        let before = DELETED.load(Ordering::SeqCst);

        // Accessors, and the checks `from_dlpack` makes before any device work.
        let t = own(fake(CUDA0, f32t, vec![2, 3], None, 1)).unwrap();
        assert!(t.is_read_only());
        assert_eq!(
            (t.shape(), t.strides(), t.byte_offset()),
            (&[2, 3][..], None, 256)
        );
        let (ptr, shape, strides) = t.check_for("from_dlpack", 0, DType::F32).unwrap();
        assert_eq!((ptr, shape, strides), (0x7000_0100, vec![2, 3], vec![3, 1]));
        let e = t
            .check_for("from_dlpack", 0, DType::F64)
            .unwrap_err()
            .to_string();
        assert!(e.contains("f32") && e.contains("f64"), "{e}");
        let e = t.check_for("from_dlpack", 1, DType::F32).unwrap_err();
        assert!(
            matches!(e, Error::DeviceMismatch { lhs: 1, rhs: 0, .. }),
            "{e}"
        );
        drop(t);
        assert_eq!(DELETED.load(Ordering::SeqCst), before + 1);

        // Strides pass through, negative ones too.
        let t = own(fake(CUDA0, f32t, vec![3, 2], Some(vec![1, -3]), 1)).unwrap();
        let (_, _, strides) = t.check_for("from_dlpack", 0, DType::F32).unwrap();
        assert_eq!(strides, vec![1, -3]);
        drop(t);

        // Host memory and other devices are errors naming them.
        let cpu = DLDevice {
            device_type: DL_CPU,
            device_id: 0,
        };
        let t = own(fake(cpu, f32t, vec![4], None, 1)).unwrap();
        let e = t
            .check_for("from_dlpack", 0, DType::F32)
            .unwrap_err()
            .to_string();
        assert!(e.contains("host memory (kDLCPU)"), "{e}");
        drop(t);
        let vec4 = DLDataType { lanes: 4, ..f32t };
        let t = own(fake(CUDA0, vec4, vec![4], None, 1)).unwrap();
        let e = t
            .check_for("from_dlpack", 0, DType::F32)
            .unwrap_err()
            .to_string();
        assert!(e.contains("4 lanes"), "{e}");
        drop(t);
        let t = own(fake(CUDA0, f32t, vec![2, -1], None, 1)).unwrap();
        let e = t
            .check_for("from_dlpack", 0, DType::F32)
            .unwrap_err()
            .to_string();
        assert!(e.contains("negative extent"), "{e}");
        drop(t);
        assert_eq!(DELETED.load(Ordering::SeqCst), before + 5);

        // An unknown major version is refused, and deleted.
        let e = own(fake(CUDA0, f32t, vec![1], None, 2)).unwrap_err();
        assert!(e.to_string().contains("version 2.0"), "{e}");
        assert_eq!(DELETED.load(Ordering::SeqCst), before + 6);
        assert!(own(std::ptr::null_mut()).is_err());

        // into_raw / from_raw and the legacy forms call the deleter once, at the end.
        let t = own(fake(CUDA0, f32t, vec![5], None, 1)).unwrap();
        let t = own(t.into_raw()).unwrap();
        let legacy = t.into_legacy_raw();
        // SAFETY: `legacy` is live until its deleter runs.
        assert_eq!(unsafe { (*legacy).dl_tensor.ndim }, 1);
        // SAFETY: from `into_legacy_raw`, taken once.
        let t = unsafe { Tensor::from_legacy_raw(legacy) }.unwrap();
        assert_eq!((t.version().major, t.flags(), t.shape()), (1, 0, &[5][..]));
        assert_eq!(DELETED.load(Ordering::SeqCst), before + 6);
        drop(t);
        assert_eq!(DELETED.load(Ordering::SeqCst), before + 7);
    }

    #[test]
    fn exported_tensors_describe_and_keep_their_owner() {
        struct Counted(Arc<AtomicUsize>);
        impl Drop for Counted {
            fn drop(&mut self) {
                self.0.fetch_add(1, Ordering::SeqCst);
            }
        }
        use std::sync::Arc;
        let drops = Arc::new(AtomicUsize::new(0));
        let t = export(
            0x1000,
            3,
            DType::C64,
            &[4, 2],
            &[1, 4],
            Box::new(Counted(drops.clone())),
        );
        assert_eq!(
            t.device(),
            DLDevice {
                device_type: DL_CUDA,
                device_id: 3
            }
        );
        assert_eq!(t.data_type(), data_type(DType::C64));
        assert_eq!((t.shape(), t.strides()), (&[4, 2][..], Some(&[1, 4][..])));
        assert_eq!((t.data_ptr(), t.byte_offset(), t.flags()), (0x1000, 0, 0));
        assert_eq!(t.version(), DLPACK_VERSION);
        let raw = t.into_raw();
        // SAFETY: `raw` is live until its deleter runs.
        assert_eq!(unsafe { (*raw).manager_ctx }, raw.cast());
        assert_eq!(drops.load(Ordering::SeqCst), 0);
        // The checks accept what cuarray exports.
        let t = own(raw).unwrap();
        let (ptr, shape, strides) = t.check_for("from_dlpack", 3, DType::C64).unwrap();
        assert_eq!((ptr, shape, strides), (0x1000, vec![4, 2], vec![1, 4]));
        let legacy = t.into_legacy_raw();
        assert_eq!(drops.load(Ordering::SeqCst), 0);
        // SAFETY: from `into_legacy_raw`; its deleter is called once.
        unsafe { ((*legacy).deleter.unwrap())(legacy) };
        assert_eq!(drops.load(Ordering::SeqCst), 1);
    }
}
