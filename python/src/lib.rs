//! `cuarray` for Python: GPU arrays computed by the Rust crate, exchanged with PyTorch,
//! CuPy, JAX and any DLPack library without a copy.
//!
//! ```python
//! import cuarray, torch
//! a = cuarray.asarray(numpy.arange(6, dtype="float32").reshape(2, 3))
//! t = torch.from_dlpack(a)          # same GPU memory
//! b = cuarray.from_dlpack(t.T)      # and back, strides kept
//! print(b.sort().to_host())
//! ```

#![deny(unsafe_op_in_unsafe_fn)]

use cuarray::fft::{self, Norm};
use cuarray::{bf16, dlpack, f16, Complex32, Complex64, DType, Device, DeviceArray, Element};
use pyo3::exceptions::{PyBufferError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyTuple};
use std::ffi::{c_void, CStr};

pyo3::create_exception!(
    cuarray,
    CuarrayError,
    PyRuntimeError,
    "An error from cuarray: no GPU or CUDA library, a shape that does not fit, out of memory..."
);

fn err(e: cuarray::Error) -> PyErr {
    CuarrayError::new_err(e.to_string())
}

const VERSIONED: &CStr = c"dltensor_versioned";
const USED_VERSIONED: &CStr = c"used_dltensor_versioned";
const LEGACY: &CStr = c"dltensor";
const USED_LEGACY: &CStr = c"used_dltensor";

/// An array of any element type.
#[derive(Clone)]
enum AnyArray {
    Bool(DeviceArray<bool>),
    I8(DeviceArray<i8>),
    I16(DeviceArray<i16>),
    I32(DeviceArray<i32>),
    I64(DeviceArray<i64>),
    U8(DeviceArray<u8>),
    U16(DeviceArray<u16>),
    U32(DeviceArray<u32>),
    U64(DeviceArray<u64>),
    F16(DeviceArray<f16>),
    BF16(DeviceArray<bf16>),
    F32(DeviceArray<f32>),
    F64(DeviceArray<f64>),
    C64(DeviceArray<Complex32>),
    C128(DeviceArray<Complex64>),
}

/// Runs `$body` with `$a` bound to the typed array.
macro_rules! dispatch {
    ($any:expr, $a:ident => $body:expr) => {
        match $any {
            AnyArray::Bool($a) => $body,
            AnyArray::I8($a) => $body,
            AnyArray::I16($a) => $body,
            AnyArray::I32($a) => $body,
            AnyArray::I64($a) => $body,
            AnyArray::U8($a) => $body,
            AnyArray::U16($a) => $body,
            AnyArray::U32($a) => $body,
            AnyArray::U64($a) => $body,
            AnyArray::F16($a) => $body,
            AnyArray::BF16($a) => $body,
            AnyArray::F32($a) => $body,
            AnyArray::F64($a) => $body,
            AnyArray::C64($a) => $body,
            AnyArray::C128($a) => $body,
        }
    };
}

/// Runs `$body` with `$t` the Rust type of the dtype `$d`.
macro_rules! with_dtype {
    ($d:expr, $t:ident => $body:expr) => {
        match $d {
            DType::Bool => {
                type $t = bool;
                $body
            }
            DType::I8 => {
                type $t = i8;
                $body
            }
            DType::I16 => {
                type $t = i16;
                $body
            }
            DType::I32 => {
                type $t = i32;
                $body
            }
            DType::I64 => {
                type $t = i64;
                $body
            }
            DType::U8 => {
                type $t = u8;
                $body
            }
            DType::U16 => {
                type $t = u16;
                $body
            }
            DType::U32 => {
                type $t = u32;
                $body
            }
            DType::U64 => {
                type $t = u64;
                $body
            }
            DType::F16 => {
                type $t = f16;
                $body
            }
            DType::BF16 => {
                type $t = bf16;
                $body
            }
            DType::F32 => {
                type $t = f32;
                $body
            }
            DType::F64 => {
                type $t = f64;
                $body
            }
            DType::C64 => {
                type $t = Complex32;
                $body
            }
            DType::C128 => {
                type $t = Complex64;
                $body
            }
        }
    };
}

/// Element types as the variant of [`AnyArray`] that holds them.
trait Wrap: Element {
    fn wrap(a: DeviceArray<Self>) -> AnyArray;
}
macro_rules! wrap {
    ($($t:ty => $v:ident),*) => {$(
        impl Wrap for $t {
            fn wrap(a: DeviceArray<Self>) -> AnyArray {
                AnyArray::$v(a)
            }
        }
    )*};
}
wrap!(bool => Bool, i8 => I8, i16 => I16, i32 => I32, i64 => I64, u8 => U8, u16 => U16,
      u32 => U32, u64 => U64, f16 => F16, bf16 => BF16, f32 => F32, f64 => F64,
      Complex32 => C64, Complex64 => C128);

/// NumPy's name of a dtype.
fn numpy_name(d: DType) -> &'static str {
    match d {
        DType::Bool => "bool",
        DType::I8 => "int8",
        DType::I16 => "int16",
        DType::I32 => "int32",
        DType::I64 => "int64",
        DType::U8 => "uint8",
        DType::U16 => "uint16",
        DType::U32 => "uint32",
        DType::U64 => "uint64",
        DType::F16 => "float16",
        DType::BF16 => "bfloat16",
        DType::F32 => "float32",
        DType::F64 => "float64",
        DType::C64 => "complex64",
        DType::C128 => "complex128",
    }
}

fn dtype_from_name(name: &str) -> PyResult<DType> {
    DType::ALL
        .into_iter()
        .find(|&d| numpy_name(d) == name || d.name() == name)
        .ok_or_else(|| PyTypeError::new_err(format!("cuarray has no dtype {name:?}")))
}

/// `__cuda_array_interface__`'s typestr (bfloat16 has none).
fn typestr(d: DType) -> Option<&'static str> {
    Some(match d {
        DType::Bool => "|b1",
        DType::I8 => "|i1",
        DType::I16 => "<i2",
        DType::I32 => "<i4",
        DType::I64 => "<i8",
        DType::U8 => "|u1",
        DType::U16 => "<u2",
        DType::U32 => "<u4",
        DType::U64 => "<u8",
        DType::F16 => "<f2",
        DType::F32 => "<f4",
        DType::F64 => "<f8",
        DType::C64 => "<c8",
        DType::C128 => "<c16",
        DType::BF16 => return None,
    })
}

fn device(ordinal: usize) -> PyResult<Device> {
    Device::new(ordinal).map_err(err)
}

/// A CUstream as DLPack and `__cuda_array_interface__` spell it: 1 for the legacy default
/// stream, 2 for the per-thread one, else the handle.
fn stream_int(s: cuarray::cudarc::driver::sys::CUstream) -> usize {
    if s.is_null() {
        1
    } else {
        s as usize
    }
}

/// An n-dimensional array in GPU memory (a cuarray `DeviceArray`).
///
/// It speaks DLPack (`__dlpack__`, `__dlpack_device__`) and `__cuda_array_interface__`
/// (v3), so `torch.from_dlpack(a)`, `cupy.asarray(a)` and `jax.dlpack.from_dlpack(a)`
/// share its memory without a copy.
#[pyclass(name = "Array", module = "cuarray", frozen)]
struct Array {
    a: AnyArray,
}

impl Array {
    fn new(a: AnyArray) -> Array {
        Array { a }
    }
    fn dtype_(&self) -> DType {
        dispatch!(&self.a, a => a.dtype())
    }
    fn ordinal(&self) -> usize {
        dispatch!(&self.a, a => a.device().ordinal())
    }
}

#[pymethods]
impl Array {
    /// The extents, as a tuple.
    #[getter]
    fn shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, dispatch!(&self.a, a => a.shape().to_vec()))
    }
    /// The strides in bytes, as NumPy's.
    #[getter]
    fn strides<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let size = self.dtype_().size() as isize;
        let s: Vec<isize> =
            dispatch!(&self.a, a => a.strides().iter().map(|&s| s * size).collect());
        PyTuple::new(py, s)
    }
    /// NumPy's name of the element type (`"float32"`, `"bfloat16"`, `"complex64"`...).
    #[getter]
    fn dtype(&self) -> &'static str {
        numpy_name(self.dtype_())
    }
    /// The rank.
    #[getter]
    fn ndim(&self) -> usize {
        dispatch!(&self.a, a => a.ndim())
    }
    /// The number of elements.
    #[getter]
    fn size(&self) -> usize {
        dispatch!(&self.a, a => a.size())
    }
    /// The CUDA device ordinal.
    #[getter]
    fn device(&self) -> usize {
        self.ordinal()
    }
    /// The device address of the first element.
    #[getter]
    fn data_ptr(&self) -> u64 {
        // SAFETY: only the address is read; nothing is done through it here.
        dispatch!(&self.a, a => unsafe { a.as_raw() }.ptr)
    }
    /// The CUDA stream the array's work runs on (an integer, DLPack's spelling).
    #[getter]
    fn stream(&self) -> usize {
        stream_int(dispatch!(&self.a, a => a.stream_handle()))
    }

    fn __repr__(&self) -> String {
        format!(
            "cuarray.Array(shape={:?}, dtype={}, device=cuda:{})",
            dispatch!(&self.a, a => a.shape().to_vec()),
            numpy_name(self.dtype_()),
            self.ordinal()
        )
    }

    fn __len__(&self) -> PyResult<usize> {
        dispatch!(&self.a, a => a.shape().first().copied())
            .ok_or_else(|| PyTypeError::new_err("len() of a 0-d array"))
    }

    /// Hands the array to a DLPack consumer without a copy: a `"dltensor_versioned"`
    /// capsule when `max_version >= (1, 0)`, the legacy `"dltensor"` capsule otherwise.
    /// `stream` is the consumer's stream (None: the legacy default stream; -1: no
    /// ordering): it is made to wait for the work queued on the array's stream.
    #[pyo3(signature = (*, stream=None, max_version=None, dl_device=None, copy=None))]
    fn __dlpack__<'py>(
        &self,
        py: Python<'py>,
        stream: Option<i64>,
        max_version: Option<(u32, u32)>,
        dl_device: Option<(i32, i32)>,
        copy: Option<bool>,
    ) -> PyResult<Bound<'py, PyAny>> {
        if let Some((t, id)) = dl_device {
            if t != dlpack::DL_CUDA || id != self.ordinal() as i32 {
                return Err(PyBufferError::new_err(format!(
                    "cuarray exports to its own device (2, {}) only, not to {:?}",
                    self.ordinal(),
                    (t, id)
                )));
            }
        }
        let consumer = match stream {
            None => Some(1),
            Some(-1) => None,
            Some(s) if s > 0 => Some(s as usize),
            Some(s) => {
                return Err(PyValueError::new_err(format!(
                    "stream {s} is not a CUDA stream for DLPack (1: legacy default, 2: \
                     per-thread default, -1: no synchronisation, else a cudaStream_t)"
                )))
            }
        };
        let tensor = if copy == Some(true) {
            dispatch!(&self.a, a => a.copy().and_then(|c| c.to_dlpack(consumer)))
        } else {
            dispatch!(&self.a, a => a.to_dlpack(consumer))
        }
        .map_err(err)?;
        let versioned = max_version.is_some_and(|v| v.0 >= 1);
        // SAFETY: the capsule takes ownership of the raw tensor; its destructor deletes it
        // unless a consumer renamed the capsule ("used_...") and took it over.
        unsafe {
            let cap = if versioned {
                let raw = tensor.into_raw();
                let cap = ffi::PyCapsule_New(
                    raw.cast::<c_void>(),
                    VERSIONED.as_ptr(),
                    Some(delete_versioned_capsule),
                );
                if cap.is_null() {
                    drop(dlpack::Tensor::from_raw(raw));
                }
                cap
            } else {
                let raw = tensor.into_legacy_raw();
                let cap = ffi::PyCapsule_New(
                    raw.cast::<c_void>(),
                    LEGACY.as_ptr(),
                    Some(delete_legacy_capsule),
                );
                if cap.is_null() {
                    if let Some(d) = (*raw).deleter {
                        d(raw);
                    }
                }
                cap
            };
            Bound::from_owned_ptr_or_err(py, cap)
        }
    }

    /// `(2, ordinal)`: CUDA memory on this device (DLPack's `kDLCUDA`).
    fn __dlpack_device__(&self) -> (i32, i32) {
        (dlpack::DL_CUDA, self.ordinal() as i32)
    }

    /// The CUDA Array Interface, version 3 (CuPy, Numba, PyTorch read it), with the
    /// array's stream in its `stream` field. bfloat16 has no typestr there: use DLPack.
    #[getter]
    fn __cuda_array_interface__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = self.dtype_();
        let ts = typestr(d).ok_or_else(|| {
            pyo3::exceptions::PyAttributeError::new_err(
                "bfloat16 has no __cuda_array_interface__ typestr; use __dlpack__",
            )
        })?;
        let (shape, strides, contiguous, ptr, size) = dispatch!(&self.a, a => (
            a.shape().to_vec(),
            a.strides().iter().map(|&s| s * d.size() as isize).collect::<Vec<_>>(),
            a.is_contiguous(),
            // SAFETY: only the address is read.
            unsafe { a.as_raw() }.ptr,
            a.size(),
        ));
        let dict = PyDict::new(py);
        dict.set_item("version", 3)?;
        dict.set_item("shape", PyTuple::new(py, shape)?)?;
        dict.set_item("typestr", ts)?;
        dict.set_item("descr", vec![("", ts)])?;
        dict.set_item("data", (if size == 0 { 0 } else { ptr }, false))?;
        if contiguous {
            dict.set_item("strides", py.None())?;
        } else {
            dict.set_item("strides", PyTuple::new(py, strides)?)?;
        }
        dict.set_item("stream", self.stream())?;
        Ok(dict)
    }

    /// Copies the array to the host as a NumPy array (bfloat16 needs `ml_dtypes`).
    fn to_host<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let np = py.import("numpy")?;
        let d = self.dtype_();
        let dtype = if d == DType::BF16 {
            py.import("ml_dtypes")
                .map_err(|_| PyTypeError::new_err("bfloat16 to NumPy needs the ml_dtypes package"))?
                .getattr("bfloat16")?
        } else {
            np.getattr("dtype")?.call1((numpy_name(d),))?
        };
        let (bytes, shape) = dispatch!(&self.a, a => {
            let v = a.to_host().map_err(err)?;
            // SAFETY: an element's bytes are its value (cuarray's `Element` contract); the
            // slice covers exactly the vector's initialised elements.
            let b = unsafe {
                std::slice::from_raw_parts(v.as_ptr().cast::<u8>(), std::mem::size_of_val(v.as_slice()))
            };
            (PyByteArray::new(py, b), a.shape().to_vec())
        });
        np.call_method1("frombuffer", (bytes, dtype))?
            .call_method1("reshape", (PyTuple::new(py, shape)?,))
    }

    /// A C-contiguous copy on the device.
    fn copy(&self) -> PyResult<Array> {
        Ok(Array::new(
            dispatch!(&self.a, a => Wrap::wrap(a.copy().map_err(err)?)),
        ))
    }

    /// Sorted along `axis` (NumPy's `sort`).
    #[pyo3(signature = (axis=-1))]
    fn sort(&self, axis: isize) -> PyResult<Array> {
        Ok(Array::new(
            dispatch!(&self.a, a => Wrap::wrap(a.sort(axis).map_err(err)?)),
        ))
    }

    /// The sum of every element, as a 0-d array.
    fn sum(&self) -> PyResult<Array> {
        use AnyArray as A;
        let r = match &self.a {
            A::I8(a) => A::I64(a.sum().map_err(err)?),
            A::I16(a) => A::I64(a.sum().map_err(err)?),
            A::I32(a) => A::I64(a.sum().map_err(err)?),
            A::I64(a) => A::I64(a.sum().map_err(err)?),
            A::U8(a) => A::U64(a.sum().map_err(err)?),
            A::U16(a) => A::U64(a.sum().map_err(err)?),
            A::U32(a) => A::U64(a.sum().map_err(err)?),
            A::U64(a) => A::U64(a.sum().map_err(err)?),
            A::F16(a) => A::F16(a.sum().map_err(err)?),
            A::BF16(a) => A::BF16(a.sum().map_err(err)?),
            A::F32(a) => A::F32(a.sum().map_err(err)?),
            A::F64(a) => A::F64(a.sum().map_err(err)?),
            A::C64(a) => A::C64(a.sum().map_err(err)?),
            A::C128(a) => A::C128(a.sum().map_err(err)?),
            A::Bool(_) => return Err(PyTypeError::new_err("sum of a bool array: astype first")),
        };
        Ok(Array::new(r))
    }

    /// The discrete Fourier transform along `axis` (NumPy's `fft.fft`): complex64 for
    /// float16/bfloat16/float32/complex64 input, complex128 otherwise.
    #[pyo3(signature = (n=None, axis=-1))]
    fn fft(&self, n: Option<usize>, axis: isize) -> PyResult<Array> {
        use AnyArray as A;
        macro_rules! f {
            ($a:expr) => {
                Wrap::wrap(fft::fft($a, n, axis, Norm::Backward).map_err(err)?)
            };
        }
        let r = match &self.a {
            A::Bool(_) => return Err(PyTypeError::new_err("fft of a bool array")),
            A::I8(a) => f!(a),
            A::I16(a) => f!(a),
            A::I32(a) => f!(a),
            A::I64(a) => f!(a),
            A::U8(a) => f!(a),
            A::U16(a) => f!(a),
            A::U32(a) => f!(a),
            A::U64(a) => f!(a),
            A::F16(a) => f!(a),
            A::BF16(a) => f!(a),
            A::F32(a) => f!(a),
            A::F64(a) => f!(a),
            A::C64(a) => f!(a),
            A::C128(a) => f!(a),
        };
        Ok(Array::new(r))
    }

    /// The matrix product (NumPy's `matmul`, `@`) of two arrays of the same float or
    /// complex dtype.
    fn matmul(&self, other: &Array) -> PyResult<Array> {
        use AnyArray as A;
        let r = match (&self.a, &other.a) {
            (A::F16(a), A::F16(b)) => A::F16(a.matmul(b).map_err(err)?),
            (A::BF16(a), A::BF16(b)) => A::BF16(a.matmul(b).map_err(err)?),
            (A::F32(a), A::F32(b)) => A::F32(a.matmul(b).map_err(err)?),
            (A::F64(a), A::F64(b)) => A::F64(a.matmul(b).map_err(err)?),
            (A::C64(a), A::C64(b)) => A::C64(a.matmul(b).map_err(err)?),
            (A::C128(a), A::C128(b)) => A::C128(a.matmul(b).map_err(err)?),
            _ => {
                return Err(PyTypeError::new_err(format!(
                    "matmul takes two arrays of one float or complex dtype, got {} and {}",
                    self.dtype(),
                    other.dtype()
                )))
            }
        };
        Ok(Array::new(r))
    }

    /// GELU (tanh approximation), `0.5 x (1 + tanh(0.79788456 (x + 0.044715 x^3)))`, as
    /// one fused kernel (cuarray's `fuse`): float32 and float64.
    fn gelu(&self) -> PyResult<Array> {
        use cuarray::{fuse, Expr};
        use AnyArray as A;
        let r = match &self.a {
            A::F32(a) => {
                let g = fuse(|x: Expr<f32>| {
                    let inner = (x + x * x * x * 0.044715) * 0.797_884_6;
                    x * 0.5 * (inner.tanh() + 1.0)
                });
                A::F32(g.call(a).map_err(err)?)
            }
            A::F64(a) => {
                let g = fuse(|x: Expr<f64>| {
                    let inner = (x + x * x * x * 0.044715) * 0.797_884_560_802_865_4;
                    x * 0.5 * (inner.tanh() + 1.0)
                });
                A::F64(g.call(a).map_err(err)?)
            }
            _ => {
                return Err(PyTypeError::new_err(format!(
                    "gelu takes float32 or float64, got {}",
                    self.dtype()
                )))
            }
        };
        Ok(Array::new(r))
    }

    fn __matmul__(&self, other: &Array) -> PyResult<Array> {
        self.matmul(other)
    }

    /// The transpose (a view: no copy).
    #[getter(T)]
    fn t(&self) -> Array {
        Array::new(dispatch!(&self.a, a => Wrap::wrap(a.t())))
    }
}

/// Deletes the tensor of a versioned capsule that no consumer took.
unsafe extern "C" fn delete_versioned_capsule(cap: *mut ffi::PyObject) {
    // SAFETY: called by Python with the capsule, GIL held; a capsule still named
    // "dltensor_versioned" owns its tensor (consumers rename it when they take it).
    unsafe {
        if ffi::PyCapsule_IsValid(cap, VERSIONED.as_ptr()) == 1 {
            let p = ffi::PyCapsule_GetPointer(cap, VERSIONED.as_ptr())
                .cast::<dlpack::DLManagedTensorVersioned>();
            if !p.is_null() {
                if let Some(d) = (*p).deleter {
                    d(p);
                }
            }
        }
    }
}

/// Deletes the tensor of a legacy capsule that no consumer took.
unsafe extern "C" fn delete_legacy_capsule(cap: *mut ffi::PyObject) {
    // SAFETY: as above, for "dltensor".
    unsafe {
        if ffi::PyCapsule_IsValid(cap, LEGACY.as_ptr()) == 1 {
            let p =
                ffi::PyCapsule_GetPointer(cap, LEGACY.as_ptr()).cast::<dlpack::DLManagedTensor>();
            if !p.is_null() {
                if let Some(d) = (*p).deleter {
                    d(p);
                }
            }
        }
    }
}

/// Takes the tensor out of a DLPack capsule (and marks the capsule used).
fn take_capsule(cap: &Bound<'_, PyAny>) -> PyResult<dlpack::Tensor> {
    let p = cap.as_ptr();
    // SAFETY: `p` is a live object (held by `cap`); the capsule calls are valid on any
    // object. A valid capsule of either name holds a managed tensor its producer handed
    // over; renaming it first means its destructor will not delete what we now own.
    unsafe {
        if ffi::PyCapsule_IsValid(p, VERSIONED.as_ptr()) == 1 {
            let raw = ffi::PyCapsule_GetPointer(p, VERSIONED.as_ptr())
                .cast::<dlpack::DLManagedTensorVersioned>();
            if ffi::PyCapsule_SetName(p, USED_VERSIONED.as_ptr()) != 0 {
                return Err(PyErr::fetch(cap.py()));
            }
            return dlpack::Tensor::from_raw(raw)
                .map_err(|e| PyBufferError::new_err(e.to_string()));
        }
        if ffi::PyCapsule_IsValid(p, LEGACY.as_ptr()) == 1 {
            let raw =
                ffi::PyCapsule_GetPointer(p, LEGACY.as_ptr()).cast::<dlpack::DLManagedTensor>();
            if ffi::PyCapsule_SetName(p, USED_LEGACY.as_ptr()) != 0 {
                return Err(PyErr::fetch(cap.py()));
            }
            return dlpack::Tensor::from_legacy_raw(raw)
                .map_err(|e| PyBufferError::new_err(e.to_string()));
        }
    }
    Err(PyTypeError::new_err(
        "__dlpack__ returned no unused DLPack capsule (\"dltensor_versioned\" or \"dltensor\")",
    ))
}

/// Wraps any DLPack producer's GPU tensor (PyTorch, CuPy, JAX, cuarray) as a cuarray
/// array without a copy. The producer is asked for DLPack 1.x and told cuarray's stream,
/// so that cuarray's work waits for the producer's. A tensor in host memory is a
/// `BufferError`.
#[pyfunction]
fn from_dlpack(py: Python<'_>, obj: &Bound<'_, PyAny>) -> PyResult<Array> {
    let (dev_type, dev_id): (i32, i32) = obj.call_method0("__dlpack_device__")?.extract()?;
    if dev_type != dlpack::DL_CUDA && dev_type != dlpack::DL_CUDA_MANAGED {
        let what = match dev_type {
            dlpack::DL_CPU => "host memory (kDLCPU)".to_string(),
            dlpack::DL_CUDA_HOST => "page-locked host memory (kDLCUDAHost)".to_string(),
            t => format!("DLPack device type {t}"),
        };
        return Err(PyBufferError::new_err(format!(
            "cuarray.from_dlpack takes CUDA tensors; this one is in {what}: use \
             cuarray.asarray to copy it to the GPU"
        )));
    }
    let dev = device(dev_id.max(0) as usize)?;
    let stream = stream_int(dev.stream().as_raw());
    let kwargs = PyDict::new(py);
    kwargs.set_item("stream", stream)?;
    kwargs.set_item("max_version", (1, 1))?;
    let cap = match obj.call_method("__dlpack__", (), Some(&kwargs)) {
        Ok(c) => c,
        Err(e) if e.is_instance_of::<PyTypeError>(py) => {
            // A producer from before DLPack 1.0 takes no max_version.
            kwargs.del_item("max_version")?;
            obj.call_method("__dlpack__", (), Some(&kwargs))?
        }
        Err(e) => return Err(e),
    };
    let tensor = take_capsule(&cap)?;
    let dtype =
        dlpack::dtype_of(tensor.data_type()).map_err(|e| PyTypeError::new_err(e.to_string()))?;
    let a = with_dtype!(dtype, T => Wrap::wrap(DeviceArray::<T>::from_dlpack(&dev, tensor).map_err(err)?));
    Ok(Array::new(a))
}

/// Copies a NumPy array (or anything `numpy.asarray` takes) to the GPU.
#[pyfunction]
#[pyo3(signature = (obj, device=0))]
fn asarray(py: Python<'_>, obj: &Bound<'_, PyAny>, device: usize) -> PyResult<Array> {
    if let Ok(a) = obj.downcast::<Array>() {
        return Ok(Array::new(a.get().a.clone()));
    }
    let np = py.import("numpy")?;
    let arr = np.call_method1("ascontiguousarray", (obj,))?;
    let name: String = arr.getattr("dtype")?.getattr("name")?.extract()?;
    let dtype = dtype_from_name(&name)?;
    let shape: Vec<usize> = arr.getattr("shape")?.extract()?;
    let bytes_obj = arr.call_method0("tobytes")?;
    let bytes = bytes_obj.downcast::<PyBytes>()?.as_bytes();
    let dev = self::device(device)?;
    let a = with_dtype!(dtype, T => {
        let n = bytes.len() / std::mem::size_of::<T>();
        let mut v: Vec<T> = Vec::with_capacity(n);
        // SAFETY: NumPy's bytes of this dtype are valid values of `T` (same layout; bool
        // is 0 or 1); exactly `n` elements are written before `set_len`.
        unsafe {
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), v.as_mut_ptr().cast::<u8>(), n * std::mem::size_of::<T>());
            v.set_len(n);
        }
        Wrap::wrap(DeviceArray::<T>::from_host(&dev, &v, &shape).map_err(err)?)
    });
    Ok(Array::new(a))
}

/// An array of zeros.
#[pyfunction]
#[pyo3(signature = (shape, dtype="float32", device=0))]
fn zeros(shape: Vec<usize>, dtype: &str, device: usize) -> PyResult<Array> {
    let d = dtype_from_name(dtype)?;
    let dev = self::device(device)?;
    Ok(Array::new(
        with_dtype!(d, T => Wrap::wrap(DeviceArray::<T>::zeros(&dev, &shape).map_err(err)?)),
    ))
}

/// True when a GPU, its driver and NVRTC are there.
#[pyfunction]
fn is_available() -> bool {
    cuarray::is_available()
}

/// Why cuarray cannot run here (None when it can).
#[pyfunction]
fn unavailable_reason() -> Option<String> {
    cuarray::unavailable_reason()
}

/// The number of CUDA devices.
#[pyfunction]
fn device_count() -> PyResult<usize> {
    cuarray::device_count().map_err(err)
}

/// The memory pool's counters of a device: bytes in use by arrays, reserved from the
/// driver, and so on. Memory from other libraries (DLPack) is never counted.
#[pyfunction]
#[pyo3(signature = (device=0))]
fn memory_stats(py: Python<'_>, device: usize) -> PyResult<Bound<'_, PyDict>> {
    let s = self::device(device)?.memory_stats();
    let d = PyDict::new(py);
    d.set_item("in_use", s.in_use)?;
    d.set_item("reserved", s.reserved)?;
    d.set_item("scratch", s.scratch)?;
    d.set_item("peak_in_use", s.peak_in_use)?;
    d.set_item("cache_hits", s.cache_hits)?;
    d.set_item("driver_allocs", s.driver_allocs)?;
    Ok(d)
}

/// Waits for the work queued on the device's stream.
#[pyfunction]
#[pyo3(signature = (device=0))]
fn synchronize(device: usize) -> PyResult<()> {
    self::device(device)?.synchronize().map_err(err)
}

/// cuarray: NumPy's array model on an NVIDIA GPU, computed by Rust, shared with PyTorch,
/// CuPy and JAX without copies.
#[pymodule]
#[pyo3(name = "cuarray")]
fn cuarray_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("CuarrayError", m.py().get_type::<CuarrayError>())?;
    m.add_class::<Array>()?;
    m.add_function(wrap_pyfunction!(from_dlpack, m)?)?;
    m.add_function(wrap_pyfunction!(asarray, m)?)?;
    m.add_function(wrap_pyfunction!(zeros, m)?)?;
    m.add_function(wrap_pyfunction!(is_available, m)?)?;
    m.add_function(wrap_pyfunction!(unavailable_reason, m)?)?;
    m.add_function(wrap_pyfunction!(device_count, m)?)?;
    m.add_function(wrap_pyfunction!(memory_stats, m)?)?;
    m.add_function(wrap_pyfunction!(synchronize, m)?)?;
    Ok(())
}
