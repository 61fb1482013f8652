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
//! ## What is where
//!
//! | you want to | use |
//! | --- | --- |
//! | make an array on the GPU | [`DeviceArray::zeros`], [`ones`](DeviceArray::ones), [`full`](DeviceArray::full), [`empty`](DeviceArray::empty), [`arange`](DeviceArray::arange), [`linspace`](DeviceArray::linspace), [`logspace`](DeviceArray::logspace), [`geomspace`](DeviceArray::geomspace), [`eye`](DeviceArray::eye), [`tri`](DeviceArray::tri), [`diag`], [`meshgrid`], [`indices`], [`zeros_like`] |
//! | copy data in and out | [`DeviceArray::from_host`], [`from_slice`](DeviceArray::from_slice), [`from_vec`](DeviceArray::from_vec), [`to_host`](DeviceArray::to_host), [`to_scalar`](DeviceArray::to_scalar), [`PinnedBuffer`] |
//! | name a shape or axes | [`IntoShape`] (`&[2, 3]`, `x.shape()`, `(2, 3)`, `&[3, -1]` for `reshape`), [`IntoAxes`] |
//! | view the same memory | [`reshape`](DeviceArray::reshape), [`t`](DeviceArray::t), [`permute`](DeviceArray::permute), [`slice`](DeviceArray::slice) with [`s!`], [`broadcast_to`](DeviceArray::broadcast_to), [`flip`](DeviceArray::flip), [`expand_dims`](DeviceArray::expand_dims) |
//! | compute elementwise | operators (`&a + &b`, `2.0 * &a`, `w -= &g`), [`ArrayOrScalar`] operands, [`where_`], methods such as [`exp`](DeviceArray::exp), [`gt`](DeviceArray::gt), [`pow`](DeviceArray::pow), [`astype`](DeviceArray::astype) |
//! | reduce | [`sum`](DeviceArray::sum), [`sum_axis`](DeviceArray::sum_axis), [`sum_keepdim`](DeviceArray::sum_keepdim), [`sum_axes`](DeviceArray::sum_axes), and the same for `prod mean max min all any var std argmax argmin`; [`cumsum`](DeviceArray::cumsum) |
//! | rearrange (new arrays) | [`concatenate`], [`stack`], [`roll`](DeviceArray::roll), [`tile`](DeviceArray::tile), [`repeat`](DeviceArray::repeat), [`diff`](DeviceArray::diff), [`tril`](DeviceArray::tril), [`pad`](DeviceArray::pad), [`insert`](DeviceArray::insert), [`delete`](DeviceArray::delete), [`append`](DeviceArray::append), [`resize`](DeviceArray::resize), [`trim_zeros`], [`vander`], [`copy`](DeviceArray::copy) |
//! | Fourier transforms | [`fft`] (NumPy's `numpy.fft`: [`fft::fft`], [`fft::rfft2`], [`fft::fftshift`], ...) |
//! | sort, search, select, index | [`sort`](DeviceArray::sort), [`argsort`](DeviceArray::argsort), [`topk`](DeviceArray::topk), [`unique`], [`searchsorted`], [`masked_select`](DeviceArray::masked_select), [`masked_fill`](DeviceArray::masked_fill), [`nonzero`], [`argwhere`], [`count_nonzero`], [`take`](DeviceArray::take), [`take_along_axis`](DeviceArray::take_along_axis), [`put_along_axis`](DeviceArray::put_along_axis), [`index_add`](DeviceArray::index_add), [`index`](DeviceArray::index) with [`ix!`], [`put`](DeviceArray::put), [`place`](DeviceArray::place), [`compress`](DeviceArray::compress), [`choose`], [`one_hot`], [`unravel_index`], [`ravel_multi_index`], [`bincount`], [`histogram`] |
//! | sets and sort orders | [`unique_all`], [`unique_counts`], [`unique_inverse`], [`isin`], [`intersect1d`], [`union1d`], [`setdiff1d`], [`setxor1d`], [`lexsort`], [`partition`](DeviceArray::partition), [`argpartition`](DeviceArray::argpartition) |
//! | multiply matrices | [`matmul`](DeviceArray::matmul), [`dot`](DeviceArray::dot), [`outer`] |
//! | work with complex numbers | [`Complex32`], [`Complex64`] elements; [`complex`], [`real`](DeviceArray::real), [`imag`](DeviceArray::imag), [`conj`](DeviceArray::conj), [`angle`](DeviceArray::angle), [`abs`](DeviceArray::abs) (real results) |
//! | solve, factorise, decompose | [`linalg`]: `solve`, `inv`, `det`, `cholesky`, `qr`, `svd`, `eigh`, `lstsq`, `pinv`, `norm` |
//! | run a chain of operations as one kernel | [`fuse`] over [`Expr`] parameters ([`fusion`]) |
//! | replay GPU work with one driver call | [`Device::capture`] into a [`Graph`] ([`graph`]) |
//! | compare results | [`allclose`], [`array_equal`] |
//! | share memory with other libraries | [`as_raw`](DeviceArray::as_raw), [`stream_handle`](DeviceArray::stream_handle), [`from_raw_parts`](DeviceArray::from_raw_parts), [`Stream::from_raw`], [`dlpack`] ([`to_dlpack`](DeviceArray::to_dlpack), [`from_dlpack`](DeviceArray::from_dlpack)); Python: the `python/` module |
//! | control the GPU | [`Device`], [`Stream`], [`Event`], [`MemoryPool`], [`Timer`] |
//! | use several GPUs | [`Device::new`] per GPU, [`to_device`](DeviceArray::to_device) (peer copies); [`nccl`]: [`nccl::Comm`] with `all_reduce`, `broadcast`, `reduce`, `all_gather`, `reduce_scatter`, `all_to_all`, `gather`, `scatter`, `send`/`recv`, `barrier`, in [`nccl::group`]s; one process per GPU: [`nccl::init_from_env`] (torchrun's variables) |
//! | handle errors | [`Error`] (its `Debug` is its message), [`Result`] |
//!
//! ## Coming from NumPy or CuPy
//!
//! The repository's [name map](../../../docs/numpy-map.md) (`docs/numpy-map.md`) gives the
//! cuarray name of every public name of NumPy, `numpy.linalg`, `numpy.fft`,
//! `numpy.random.Generator`, `scipy.special`, `scipy.signal`, `scipy.ndimage` and
//! `scipy.sparse` (or *not yet* / *not planned*), and
//! [Porting from CuPy](../../../docs/porting-from-cupy.md) (`docs/porting-from-cupy.md`)
//! the differences a CuPy user meets first. The common calls:
//!
//! | NumPy / CuPy | cuarray |
//! | --- | --- |
//! | `cp.asarray(x)`, `cp.array([1, 2])` | `DeviceArray::from_host(&dev, &x, shape)`, `DeviceArray::from_slice(&dev, &[1, 2])` |
//! | `x.get()`, `cp.asnumpy(x)` | `x.to_host()?` (`to_host_shaped()?` with the shape) |
//! | `np.zeros((n, d))`, `np.zeros_like(x)`, `np.empty(s)` | `DeviceArray::<f32>::zeros(&dev, &[n, d])?`, `zeros_like(&x)?`, `DeviceArray::empty(&dev, s)?` |
//! | `x.reshape(3, -1)`, `x.reshape(y.shape)` | `x.reshape(&[3, -1])?`, `x.reshape(y.shape())?` |
//! | `x.T`, `x.transpose(2, 0, 1)` | `x.t()`, `x.permute(&[2, 0, 1])?` |
//! | `x[1:3, ::-1]`, `x[:, None]` | `x.slice(s![1..3, ..;-1])?`, `x.slice(s![.., None])?` |
//! | `a + b`, `2 * (a + b)` | `(&a + &b)?`, `(2.0 * (&a + &b)?)?` |
//! | `w -= lr * g` | `w -= &g * lr` (panics on error) or `w.sub_assign(&g * lr)?` |
//! | `x > 0`, `x ** 2` | `x.gt(0.0)?`, `x.pow(2.0)?` |
//! | `np.where(x > 0, x, 0)` | `where_(x.gt(0.0), &x, 0.0)?` |
//! | `np.maximum(x, 0)` | `x.maximum(0.0)?` (or `x.relu()?`) |
//! | `x.sum()`, `x.sum(0)`, `x.mean(0)` | `x.sum()?`, `x.sum_axis(0)?`, `x.mean_axis(0)?` |
//! | `x.sum(-1, keepdims=True)` | `x.sum_keepdim(-1)?` or `x.sum_axes(-1, true)?` |
//! | `x.sum(axis=(0, 2))` | `x.sum_axes(&[0, 2], false)?` |
//! | `x.astype(np.float16)` | `x.astype::<cuarray::f16>()?` |
//! | `a @ b`, `np.outer(a, b)` | `a.matmul(&b)?`, `outer(&a, &b)?` |
//! | `re + 1j * im`, `z.real`, `np.abs(z)`, `z * 2` | `complex(&re, &im)?`, `z.real()?`, `z.abs()?`, `(&z * 2.0f32)?` |
//! | `np.concatenate([a, b], 0)` | `concatenate(&[&a, &b], 0)?` |
//! | `np.sort(x, -1)`, `np.argsort(x, kind='stable')` | `x.sort(-1)?`, `x.argsort(-1)?` |
//! | `x[mask]`, `x[mask] = 0`, `np.nonzero(x)` | `x.masked_select(&mask)?`, `x.masked_fill(&mask, 0.0)?`, `nonzero(&x)?` |
//! | `np.take(x, idx, 0)`, `np.add.at(x, idx, v)` | `x.take(&idx, Some(0))?`, `x.index_add(0, &idx, &v)?` |
//! | `np.allclose(a, b)` | `allclose(&a, &b, 1e-5, 1e-8)?` |
//! | `x.to("cuda:1")`, `cp.asarray(x)` under `cp.cuda.Device(1)` | `x.to_device(&Device::new(1)?)?` |
//! | `float(x.sum())` | `x.sum()?.to_scalar()?` |
//! | `f = cupy.fuse(lambda x, y: x * y + 1)`, `f(a, b)` | `let f = fuse(\|x: Expr<f32>, y: Expr<f32>\| x * y + 1.0);`, `f.call(&a, &b)?` |
//! | `s.begin_capture(); ...; g = s.end_capture(); g.launch()` | `let g = dev.capture(\|\| { ...; Ok(()) })?; g.launch()?` |
//!
//! Every operation returns a [`Result`]; a `?` after each call (or one for a chain of
//! operators, `(&a * &b + &c)?`) is the Rust spelling of NumPy's exceptions. Rust's orphan
//! rule forbids an operator between a `Result` and a scalar: `(&a + &b) * 2.0` does not
//! compile (``cannot multiply `Result<DeviceArray<f32>, Error>` by `{float}` ``); write
//! `(&a + &b)? * 2.0`.
//!
//! ## The contract
//! - **No hidden transfers.** Only `from_host`, `from_slice`, `to_host`, `to_host_into`,
//!   `to_scalar`, `to_host_string` and the `ndarray` conversions copy between host and
//!   device.
//! - **No hidden synchronisation.** Operations queue work on the device's stream and
//!   return; only transfers to the host and [`Device::synchronize`] wait for the GPU, and
//!   the few operations whose result's size depends on the data (`masked_select`,
//!   `nonzero`, `argwhere`, `unique`, `bincount`, `histogram` without a range), which read
//!   a count back and say so in their docs.
//! - **Errors, not panics.** Missing driver or library, shape mismatch, out of memory,
//!   compile failure: each is an [`Error`] with the details needed to act on it.
//!
//! ## Environment variables and tuning
//! `CUARRAY_CUDA_LIB_DIR` (where to look for NVRTC, cuBLAS, cuFFT, cuSOLVER and NCCL),
//! `CUARRAY_CACHE_DIR` and `CUARRAY_CACHE=off` (the kernel disk cache),
//! `CUARRAY_DUMP_KERNELS` (write generated kernel sources to a folder),
//! `CUARRAY_REQUIRE_GPU=1` (tests fail instead of skipping without a GPU). The [`tuning`]
//! module lists every variable and every run-time setting, with defaults and valid values.

#![warn(missing_docs)]
#![deny(unsafe_op_in_unsafe_fn)]
#![warn(clippy::undocumented_unsafe_blocks)]

mod array;
mod device;
pub mod dlpack;
mod einsum;
mod element;
mod error;
pub mod fft;
pub mod fusion;
pub mod graph;
pub(crate) mod kernels;
mod libs;
pub mod linalg;
pub mod nccl;
pub mod ndimage;
mod npy;
pub(crate) mod ops;
mod profile;
pub mod random;
pub mod shape;
pub mod signal;
pub mod sparse;
pub mod special;
pub mod stats;
#[doc(hidden)]
pub mod testing;
pub mod tuning;
pub mod user_kernels;

pub use array::{
    allclose, argwhere, array_equal, array_split, atleast_1d, atleast_2d, atleast_3d, bincount,
    broadcast_arrays, broadcast_shapes, choose, column_stack, complex, concatenate, count_nonzero,
    count_nonzero_axis, diag, diag_indices, diagflat, dsplit, dstack, empty_like, full_like,
    histogram, hsplit, hstack, indices, intersect1d, isclose, isin, lexsort, meshgrid, nonzero,
    one_hot, ones_like, outer, ravel_multi_index, searchsorted, setdiff1d, setxor1d, split,
    split_at, stack, tril_indices, trim_zeros, triu_indices, union1d, unique, unique_all,
    unique_counts, unique_inverse, unravel_index, vander, vsplit, vstack, where_, zeros_like,
    ArrayOrScalar, DeviceArray, IndexArg, IndexElem, Indexing, OperandValue, PadMode, RawArray,
    UniqueAll,
};
/// The `cudarc` crate, whose types appear in a few signatures (the driver error inside
/// [`Error::Cuda`], raw streams and device pointers).
pub use cudarc;
pub use device::probe::{is_available, unavailable_reason};
pub use device::{
    device_count, Device, DeviceBuffer, Event, MemoryPool, MemoryStats, PinnedBuffer, Stream,
    Timer, Timings, TransferStats,
};
pub use einsum::{einsum, inner, kron, tensordot, vdot, Axes, ContractElement};
pub use element::{
    ArithElement, Complex32, Complex64, ComplexElement, DType, Element, FloatElement,
    InexactElement, IntElement, NumElement,
};
pub use error::{Error, Result};
pub use fusion::{fuse, lit, select, Expr, Fused, Reduced};
pub use graph::Graph;
/// The `half` crate, for its [`f16`](struct@f16) and [`bf16`] element types (and their conversions).
pub use half;
/// Half-precision element types: IEEE `f16` and bfloat16 (`half`'s).
pub use half::{bf16, f16};
pub use kernels::{CacheStats, KernelSpec};
pub use libs::blas::GemmElement;
pub use linalg::SolverElement;
pub use npy::{load_npy, load_npz, save_npy, savez, NpzReader, NpzWriter};
/// The `num-complex` crate, whose `Complex<f32>` and `Complex<f64>` are the complex
/// element types ([`Complex32`], [`Complex64`]).
pub use num_complex;
/// num-complex's generic complex number; `Complex<f32>` and `Complex<f64>` are elements.
pub use num_complex::Complex;
pub use ops::catalogue::common_specs;
/// The binary elementwise ops: what [`DeviceArray::scalar_op`] applies.
pub use ops::catalogue::BinaryOp;
pub use shape::{IntoAxes, IntoShape, SliceElem};
pub use stats::{
    average, bincount_weighted, convolve, corrcoef, correlate, cov, cross, digitize, ediff1d,
    gradient, histogram2d, histogram_bin_edges, histogram_with, interp, nanpercentile, nanquantile,
    percentile, quantile, trapezoid, ConvMode, QuantileMethod,
};
pub use user_kernels::{ElementwiseKernel, RawKernel, RawModule, ReductionKernel};
