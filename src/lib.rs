//! # cuarray: NumPy's n-dimensional array model on an NVIDIA GPU
//!
//! A typed [`DeviceArray<T>`] owns GPU memory; elementwise operations run as kernels that
//! NVRTC compiles at first use (and caches on disk); every transfer between the CPU and
//! the GPU is an explicit call.
//!
//! | on the CPU | on the GPU |
//! | --- | --- |
//! | `Vec<T>` / `ndarray::ArrayD<T>` | [`DeviceArray<T>`] |
//! | a view of a slice | [`DeviceArray::slice`], [`DeviceArray::t`], [`DeviceArray::reshape`] (shared memory) |
//! | `to_vec()` | [`DeviceArray::to_host`] (the explicit copy back) |
//!
//! ```no_run
//! use cuarray::{Device, DeviceArray};
//! let dev = Device::new(0)?;
//! let a = DeviceArray::from_slice(&dev, &[1.0f32, 2.0, 3.0, 4.0, 5.0])?;
//! let b = DeviceArray::from_slice(&dev, &[5.0f32, 4.0, 3.0, 2.0, 1.0])?;
//! let c = (&a + &b)?;                 // runs on the GPU
//! assert_eq!(c.to_host()?, vec![6.0; 5]); // the one copy back
//! # Ok::<(), cuarray::Error>(())
//! ```
//!
//! ## The contract
//! - **No hidden transfers.** Only `from_host`, `from_slice`, `to_host`, `to_host_into`,
//!   `to_scalar`, `to_host_string` and the `ndarray` conversions copy between host and
//!   device.
//! - **No hidden synchronisation.** Operations queue work on the device's stream and
//!   return; only transfers to the host and [`Device::synchronize`] wait for the GPU.
//! - **Errors, not panics.** Missing driver or library, shape mismatch, out of memory,
//!   compile failure: each is an [`Error`] with the details needed to act on it.
//!
//! ## Environment variables
//! `CUARRAY_CUDA_LIB_DIR` (where to look for NVRTC and cuBLAS), `CUARRAY_CACHE_DIR` and
//! `CUARRAY_CACHE=off` (the kernel disk cache), `CUARRAY_DUMP_KERNELS` (write generated
//! kernel sources to a folder), `CUARRAY_REQUIRE_GPU=1` (tests fail instead of skipping
//! without a GPU).

#![warn(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]
#![warn(clippy::undocumented_unsafe_blocks)]

mod array;
mod device;
mod element;
mod error;
pub mod kernels;
mod libs;
#[doc(hidden)]
pub mod ops;
mod profile;
pub mod shape;
#[doc(hidden)]
pub mod testing;
pub mod user_kernels;

pub use array::{concatenate, stack, where_, DeviceArray};
pub use device::probe::{is_available, unavailable_reason};
pub use device::{
    device_count, Device, DeviceBuffer, Event, MemoryPool, MemoryStats, PinnedBuffer, Stream,
    Timer, Timings, TransferStats,
};
pub use element::{DType, Element, FloatElement, NumElement};
pub use error::{Error, Result};
pub use kernels::{CacheStats, KernelSpec};
pub use libs::blas::GemmElement;
pub use ops::catalogue::common_specs;
pub use shape::SliceElem;
pub use user_kernels::{ElementwiseKernel, RawKernel, RawModule, ReductionKernel};
