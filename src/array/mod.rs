//! [`DeviceArray<T>`]: a typed n-dimensional array in device memory.

mod advanced;
mod catalogue;
mod complex;
mod create;
mod diag;
mod edit;
mod extras;
mod fmt;
mod grids;
pub(crate) mod indexing;
#[cfg(feature = "ndarray")]
mod interop;
mod manipulation;
mod matmul;
mod operand;
mod ops;
mod pad;
mod peer;
mod put;
mod raw;
mod reduce;
mod sets;
mod sorting;
mod transfer;
mod view;

pub use advanced::{IndexArg, IndexElem};
pub use catalogue::isclose;
pub use complex::complex;
pub use diag::{diag, diag_indices, diagflat, tril_indices, triu_indices};
pub use edit::{trim_zeros, vander};
pub use extras::{allclose, array_equal, empty_like, full_like, ones_like, outer, zeros_like};
pub use grids::{indices, meshgrid, Indexing};
pub use indexing::{argwhere, bincount, count_nonzero, count_nonzero_axis, histogram, nonzero};
pub use manipulation::{
    array_split, atleast_1d, atleast_2d, atleast_3d, broadcast_arrays, broadcast_shapes,
    column_stack, dsplit, dstack, hsplit, hstack, split, split_at, vsplit, vstack,
};
pub use operand::{ArrayOrScalar, OperandValue};
pub use ops::where_;
pub use pad::PadMode;
pub use peer::PeerRoute;
pub use put::{choose, one_hot, ravel_multi_index, unravel_index};

/// The elementwise kernels that the array layer defines for itself, for the NVRTC tier.
pub fn kernel_specs() -> Vec<crate::kernels::KernelSpec> {
    let mut v = put::kernel_specs();
    v.extend(grids::kernel_specs());
    v.extend(pad::kernel_specs());
    v
}
pub use raw::RawArray;
pub use sets::{
    intersect1d, isin, lexsort, setdiff1d, setxor1d, union1d, unique_all, unique_counts,
    unique_inverse, UniqueAll,
};
pub use sorting::{searchsorted, unique};
pub use view::{concatenate, stack};

use crate::device::{Device, DeviceBuffer};
use crate::element::{DType, Element};
use crate::ops::Operand;
use crate::shape::Layout;
use crate::Result;
use std::borrow::Cow;
use std::marker::PhantomData;
use std::sync::Arc;

/// An n-dimensional array of `T` in GPU memory.
///
/// A `DeviceArray` is a shared buffer plus a [`Layout`] (shape, strides in elements,
/// offset), as in CuPy: views (`reshape`, `t`, `slice`, `broadcast_to`...) share the
/// buffer; [`copy`](DeviceArray::copy) makes an independent array. `Clone` is cheap and
/// shares the buffer too; it never copies device memory.
///
/// | on the CPU | on the GPU |
/// | --- | --- |
/// | `Vec<T>`, `ndarray::ArrayD<T>` | `DeviceArray<T>` |
/// | a slice or view | `a.slice(s![..])`, `a.t()`, ... (same memory) |
/// | copy to the GPU | [`DeviceArray::from_host`] |
/// | copy back | [`DeviceArray::to_host`] |
///
/// # Transfers and synchronization
/// Only `from_host`, `from_slice`, `to_host`, `to_host_into`, `to_scalar` (and the
/// ndarray conversions) move data between host and device, and only the transfers back to
/// the host wait for the GPU. Everything else queues work on the device's stream and
/// returns at once.
///
/// # Operators
/// `+ - * / %` and unary `-` work on `&DeviceArray` and `DeviceArray`, with NumPy
/// broadcasting, and return a `Result`. The right operand is anything
/// [`ArrayOrScalar`]: an array, a reference, a scalar or the `Result` of another operation,
/// so `(&a * &b + &c)?` and `(&x - (&y * 2.0))?` need one `?`. A `Result` may stand on the
/// left of an array (`(&a + &b) * &c`), and a scalar on the left of an array
/// (`2.0 * &a`, `2.0 * (&a + &b)?`).
///
/// Rust's orphan rule forbids an operator between a `Result` and a scalar, or between two
/// `Result`s, because neither type belongs to cuarray. `(&a + &b) * 2.0` and
/// `2.0 * (&a + &b)` fail to compile with
/// ``cannot multiply `Result<DeviceArray<f32>, cuarray::Error>` by `{float}` `` (or
/// ``cannot multiply `{float}` by `Result<...>` ``): put a `?` on the `Result`,
/// `(&a + &b)? * 2.0` and `2.0 * (&a + &b)?`, or call the method, `(&a + &b)?.mul(2.0)`.
///
/// The assignment operators `+= -= *= /= %=` work in place on a `DeviceArray` (writing
/// through views, no new array) with any [`ArrayOrScalar`] on the right: `w -= &g`,
/// `x *= 2.0`, `*w -= g`, `w -= &g * 0.1`. An operator cannot return an error, so they
/// **panic** on one (shapes that do not broadcast, a broadcast view as the target), with
/// the error's message; the methods [`add_assign`](DeviceArray::add_assign),
/// [`sub_assign`](DeviceArray::sub_assign), ... do the same and return a `Result`.
///
/// ```no_run
/// use cuarray::{Device, DeviceArray};
/// let dev = Device::new(0)?;
/// let a = DeviceArray::from_slice(&dev, &[1.0f32, 2.0])?;
/// let b = DeviceArray::from_slice(&dev, &[3.0f32, 4.0])?;
/// let c = (2.0 * (&a + &b)? - &a)?;
/// let mut w = c.copy()?;
/// w -= &b;                   // in place
/// w *= 0.5;
/// w.sub_assign(1.0)?;        // the same, with a Result
/// assert_eq!(w.to_host()?, vec![1.0, 2.0]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Integer semantics
/// As NumPy's: `+ - *`, `pow` and `neg` wrap around on overflow; `/` is floor division
/// (rounds toward minus infinity, NumPy's `//`) and `%` takes the sign of the divisor;
/// dividing by zero gives 0 for both (NumPy also returns 0, with a warning); `pow` with a
/// negative exponent gives 0 except for bases 1 and -1; `abs` of the minimum value wraps
/// to itself. Casts (`astype`) truncate floats toward zero, wrap integers, and map any
/// non-zero value to `true`.
///
/// # Floating-point semantics
/// IEEE 754 as in NumPy: NaN and ±inf propagate, `x / 0.0` is ±inf or NaN, `-0.0` is kept;
/// `maximum`, `minimum`, `clip`, `relu`, `max` and `min` propagate NaN, and `argmax` /
/// `argmin` return the first NaN's index. `f16` and `bf16` compute in `f32` and round the
/// result once; their sums accumulate in `f32`.
///
/// Float-to-integer casts of values the integer type cannot hold follow the GPU's
/// conversion instruction (PTX `cvt.rzi`), not C's undefined behaviour: NaN gives 0; into
/// `i32`, `u32`, `i64` and `u64`, `+inf` and values above the range give the type's
/// maximum, `-inf` and values below it the minimum (0 for unsigned types); into `i8`,
/// `i16`, `u8` and `u16`, the value first saturates to the `i32` (`u32`) range as above,
/// then wraps to the narrow type (`300.0` gives 44 as `u8`, `-1.0` gives 0 as `u8`,
/// `inf` gives -1 as `i8`). NaN and ±inf cast to bool give `true`. NumPy leaves these
/// casts platform-dependent and warns.
///
/// # Elementwise catalogue
/// NumPy's ufuncs by their NumPy names, with NumPy's results: on float arrays `arcsin`
/// `arccos` `arctan` `sinh` `cosh` `arcsinh` `arccosh` `arctanh` `log2` `log10` `exp2`
/// `cbrt` `reciprocal` `rsqrt` `trunc` `rint` `deg2rad` `rad2deg` `sinc` `gelu` `silu`
/// `softplus` `signbit`, and with an array or scalar operand `arctan2` `hypot` `fmod`
/// `copysign` `fmax` `fmin` `logaddexp` `logaddexp2` `nextafter` `heaviside`, plus
/// [`ldexp`](DeviceArray::ldexp), [`nan_to_num`](DeviceArray::nan_to_num) and
/// [`isclose`](crate::isclose); on complex arrays `sinh` `cosh` `log2` `log10`
/// `reciprocal`; on integer arrays `bitwise_and` `bitwise_or` `bitwise_xor` `left_shift`
/// `right_shift` `invert` `gcd` `lcm` `bitwise_count` (and `fmod` `fmax` `fmin`), with the
/// operators `& | ^ << >> !` (`& | ^ !` on bool arrays are logical). f16 and bf16 compute
/// in f32 and round once (`nextafter` steps their own 16-bit values); `fmax`/`fmin` ignore
/// a NaN operand; `logaddexp` does not overflow. Shifts by the bit width or more, or by a
/// negative amount, give 0 (`>>` of a negative signed value: -1), never C's undefined
/// behaviour; `gcd`, `lcm` and `bitwise_count` work on magnitudes, as NumPy. Each is also
/// an [`Expr`](crate::Expr) method inside [`fuse`](crate::fuse).
///
/// # Sizes
/// Every shape has at most `isize::MAX` elements (the product of its non-zero extents)
/// and every allocation at most `isize::MAX` bytes; creation functions, views
/// (`reshape`, `broadcast_to`) and transfers check this and return
/// [`Error::TooLarge`](crate::Error::TooLarge) naming the operation and the shape.
///
/// # Writing through views
/// In-place operations (`add_assign`, `assign`, ...) write through views into the memory
/// they share. A broadcast view (stride 0) cannot be written
/// ([`Error::InvalidArgument`](crate::Error::InvalidArgument)); a right-hand side that overlaps the destination in
/// another pattern (`a.add_assign(&a.t())`) is read from a copy, as NumPy does.
pub struct DeviceArray<T: Element> {
    buf: Arc<DeviceBuffer>,
    layout: Layout,
    /// The handle whose stream this array's operations run on, when it is not the
    /// buffer's own (set by [`DeviceArray::on_stream`]).
    on: Option<Device>,
    _t: PhantomData<T>,
}

impl<T: Element> Clone for DeviceArray<T> {
    /// A second handle on the same device memory (no copy).
    fn clone(&self) -> Self {
        DeviceArray {
            buf: self.buf.clone(),
            layout: self.layout.clone(),
            on: self.on.clone(),
            _t: PhantomData,
        }
    }
}

impl<T: Element> DeviceArray<T> {
    /// The extents.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::<f32>::zeros(&dev, &[2, 3])?;
    /// assert_eq!(a.shape(), &[2, 3]);
    /// assert_eq!(a.t().shape(), &[3, 2]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn shape(&self) -> &[usize] {
        self.layout.shape()
    }
    /// The strides, in elements (may be negative or zero).
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::<f32>::zeros(&dev, &[2, 3])?;
    /// assert_eq!(a.strides(), &[3, 1]); // in elements, not bytes as NumPy's
    /// assert_eq!(a.t().strides(), &[1, 3]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn strides(&self) -> &[isize] {
        self.layout.strides()
    }
    /// The rank (0 for a scalar).
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::<f32>::zeros(&dev, &[2, 3])?;
    /// assert_eq!(a.ndim(), 2);
    /// assert_eq!(a.sum()?.ndim(), 0);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn ndim(&self) -> usize {
        self.layout.ndim()
    }
    /// Number of elements.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::<f32>::zeros(&dev, &[2, 3])?;
    /// assert_eq!(a.size(), 6);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn size(&self) -> usize {
        self.layout.size()
    }
    /// True when the elements are in row-major order without gaps.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::<f32>::zeros(&dev, &[2, 3])?;
    /// assert!(a.is_contiguous());
    /// assert!(!a.t().is_contiguous());
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn is_contiguous(&self) -> bool {
        self.layout.is_c_contiguous()
    }
    /// The device holding the data, bound to the stream this array's operations run on.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::<f32>::zeros(&dev, &[3])?;
    /// let b = DeviceArray::<f32>::ones(a.device(), a.shape())?; // on the same device
    /// assert_eq!(a.device().ordinal(), 0);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn device(&self) -> &Device {
        self.on.as_ref().unwrap_or_else(|| self.buf.device())
    }

    /// The same array (no copy) with its operations, and their results, on `stream`.
    ///
    /// Moving to another stream does not order anything: if the array is still being
    /// written on its old stream, make `stream` wait for that first (see [`Stream`]).
    /// The memory stays valid until the work on both streams is done, whenever the
    /// array is dropped.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let s = dev.new_stream()?;
    /// let a = DeviceArray::<f32>::ones(&dev, &[1024])?;
    /// s.wait_stream(&dev.stream())?; // `a` is written on the default stream
    /// let b = (&a.on_stream(&s)? * 2.0)?; // runs on `s`
    /// s.synchronize()?;
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::DeviceMismatch`](crate::Error::DeviceMismatch) when `stream` belongs to
    /// another device.
    ///
    /// [`Stream`]: crate::Stream
    pub fn on_stream(&self, stream: &crate::Stream) -> Result<Self> {
        let dev = stream.device();
        same_device("on_stream", self.buf.device(), &dev)?;
        Ok(self.on_handle(&dev))
    }

    /// This array with its operations on `dev`'s stream (same device, checked by the
    /// caller); records the stream's use of the buffer.
    pub(crate) fn on_handle(&self, dev: &Device) -> Self {
        self.buf.used_on(dev);
        let on = (dev.stream_id() != self.buf.device().stream_id()).then(|| dev.clone());
        DeviceArray {
            buf: self.buf.clone(),
            layout: self.layout.clone(),
            on,
            _t: PhantomData,
        }
    }

    /// `self` as the source of `op` writing into `dst`: checks the device and records the
    /// stream; a source that overlaps `dst` in another pattern (`a += a.t()`) is copied
    /// first (on `dst`'s stream), as NumPy does, so that no element is read after it was
    /// written.
    pub(crate) fn source_for(
        &self,
        op: &'static str,
        dst: &DeviceArray<T>,
    ) -> Result<Cow<'_, Self>> {
        self.used_by(op, dst.device())?;
        if self.shares_memory_with(dst) && self.layout() != dst.layout() {
            return Ok(Cow::Owned(self.on_handle(dst.device()).copy()?));
        }
        Ok(Cow::Borrowed(self))
    }

    /// Checks that this array may be an operand of `op` running on `on`'s stream (same
    /// device) and records that stream's use of the buffer (see `DeviceBuffer::used_on`).
    pub(crate) fn used_by(&self, op: &'static str, on: &Device) -> Result<()> {
        same_device(op, on, self.device())?;
        self.buf.used_on(on);
        Ok(())
    }
    /// The device address of this array's first element for a library call (NCCL) on
    /// `on`'s stream, and its buffer (to keep alive until the call is queued): checks the
    /// device and that the array is C-contiguous, records the stream's use of the buffer
    /// and keeps it for a capture under way.
    pub(crate) fn library_ptr(
        &self,
        op: &'static str,
        on: &Device,
    ) -> Result<(u64, Arc<DeviceBuffer>)> {
        self.used_by(op, on)?;
        if !self.is_contiguous() {
            return Err(crate::Error::invalid(
                op,
                format!(
                    "needs a C-contiguous array, got shape {:?} with strides {:?}; call \
                     contiguous() first (a copy)",
                    self.shape(),
                    self.strides()
                ),
            ));
        }
        Device::retain_for_capture(&self.buf);
        Ok((self.first_ptr(), self.buf.clone()))
    }
    /// The element type's name.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray, DType};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::<f32>::zeros(&dev, &[3])?;
    /// assert_eq!(a.dtype(), DType::F32);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn dtype(&self) -> DType {
        T::DTYPE
    }
    /// The layout (shape, strides, offset).
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::<f32>::zeros(&dev, &[2, 3])?;
    /// let l = a.slice(cuarray::s![.., 1..])?.layout().clone();
    /// assert_eq!(l.shape(), &[2, 2]);
    /// assert_eq!(l.strides(), &[3, 1]);
    /// assert_eq!(l.offset(), 1);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// A new C-contiguous array of `shape` whose contents are unspecified; callers write
    /// every element before anything reads it.
    pub(crate) fn alloc_uninit(device: &Device, shape: &[usize]) -> Result<Self> {
        Self::alloc_for("allocate", device, shape)
    }

    /// [`alloc_uninit`](Self::alloc_uninit) for `op`: a shape whose element count or byte
    /// size overflows is [`Error::TooLarge`](crate::Error::TooLarge) naming `op`.
    pub(crate) fn alloc_for(op: &'static str, device: &Device, shape: &[usize]) -> Result<Self> {
        let bytes = crate::shape::byte_size::<T>(op, shape)?;
        Ok(DeviceArray {
            buf: Arc::new(DeviceBuffer::alloc(device, bytes)?),
            layout: Layout::contiguous(shape),
            on: None,
            _t: PhantomData,
        })
    }

    /// An array over a buffer a run filled (allocated on `buf`'s device handle), viewed
    /// through `layout`, which must stay inside it.
    pub(crate) fn from_buffer(buf: Arc<DeviceBuffer>, layout: Layout) -> Self {
        debug_assert!(layout.size() == 0 || layout.span().1 * T::DTYPE.size() <= buf.len());
        DeviceArray {
            buf,
            layout,
            on: None,
            _t: PhantomData,
        }
    }

    /// The same buffer with another layout (a view).
    pub(crate) fn with_layout(&self, layout: Layout) -> Self {
        DeviceArray {
            buf: self.buf.clone(),
            layout,
            on: self.on.clone(),
            _t: PhantomData,
        }
    }

    /// This array (no copy) as `DeviceArray<U>` when `U` is `T` (the same dtype), else
    /// `None`: how generic code takes a fast path for one type.
    pub(crate) fn as_type<U: Element>(&self) -> Option<DeviceArray<U>> {
        (T::DTYPE == U::DTYPE).then(|| DeviceArray {
            buf: self.buf.clone(),
            layout: self.layout.clone(),
            on: self.on.clone(),
            _t: PhantomData,
        })
    }

    /// This array's buffer as an operand of another `layout` and `dtype` (checked to stay
    /// inside the buffer): e.g. a contiguous complex array as its real and imaginary parts.
    pub(crate) fn operand_reinterpreted(
        &self,
        layout: Layout,
        dtype: DType,
    ) -> Result<Operand<'_>> {
        Operand::new(&self.buf, Cow::Owned(layout), dtype)
    }

    /// Device address of the first logical element.
    pub(crate) fn first_ptr(&self) -> u64 {
        self.buf.device_ptr() + (self.layout.offset() * std::mem::size_of::<T>()) as u64
    }

    /// This array as a kernel operand with its own layout.
    pub(crate) fn operand(&self) -> Result<Operand<'_>> {
        Device::retain_for_capture(&self.buf);
        Operand::new(&self.buf, Cow::Borrowed(&self.layout), T::DTYPE)
    }

    /// This array as a kernel operand broadcast to `shape`.
    pub(crate) fn operand_as(&self, shape: &[usize]) -> Result<Operand<'_>> {
        if self.shape() == shape {
            return self.operand();
        }
        Device::retain_for_capture(&self.buf);
        Operand::new(
            &self.buf,
            Cow::Owned(self.layout.broadcast_to(shape)?),
            T::DTYPE,
        )
    }

    /// True when both arrays use the same device buffer.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::<f32>::zeros(&dev, &[2, 3])?;
    /// assert!(a.t().shares_memory_with(&a)); // a view
    /// assert!(!a.copy()?.shares_memory_with(&a));
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn shares_memory_with<U: Element>(&self, other: &DeviceArray<U>) -> bool {
        Arc::ptr_eq(&self.buf, &other.buf)
    }
}

/// A borrowed array with its element type erased: how user kernels take their arguments.
#[derive(Clone, Copy)]
pub(crate) struct ArrayRef<'a> {
    buf: &'a Arc<DeviceBuffer>,
    layout: &'a Layout,
    device: &'a Device,
    pub(crate) dtype: DType,
}

impl<T: Element> DeviceArray<T> {
    /// This array with its element type erased.
    pub(crate) fn erased(&self) -> ArrayRef<'_> {
        ArrayRef {
            buf: &self.buf,
            layout: &self.layout,
            device: self.device(),
            dtype: T::DTYPE,
        }
    }
}

impl<'a> ArrayRef<'a> {
    /// The layout.
    pub(crate) fn layout(&self) -> &'a Layout {
        self.layout
    }
    /// The device handle whose stream the array's operations run on.
    pub(crate) fn device(&self) -> &'a Device {
        self.device
    }
    /// As [`DeviceArray::used_by`].
    pub(crate) fn used_by(&self, op: &'static str, on: &Device) -> Result<()> {
        same_device(op, on, self.device)?;
        self.buf.used_on(on);
        Ok(())
    }
    /// The array as a kernel operand broadcast to `shape`.
    pub(crate) fn operand_as(&self, shape: &[usize]) -> Result<Operand<'a>> {
        Device::retain_for_capture(self.buf);
        let layout = if self.layout.shape() == shape {
            Cow::Borrowed(self.layout)
        } else {
            Cow::Owned(self.layout.broadcast_to(shape)?)
        };
        Operand::new(self.buf, layout, self.dtype)
    }
    /// True when both arrays use the same device buffer.
    pub(crate) fn shares_buffer(&self, other: &ArrayRef<'_>) -> bool {
        Arc::ptr_eq(self.buf, other.buf)
    }
    /// As [`DeviceArray::check_writable`].
    pub(crate) fn check_writable(&self, op: &'static str) -> Result<()> {
        check_writable(op, self.layout)
    }
}

/// Refuses to write through a broadcast view (see [`DeviceArray::check_writable`]).
pub(crate) fn check_writable(op: &'static str, layout: &Layout) -> Result<()> {
    if layout
        .shape()
        .iter()
        .zip(layout.strides())
        .any(|(&d, &s)| d > 1 && s == 0)
    {
        return Err(crate::Error::invalid(
            op,
            format!(
                "cannot write into a broadcast view (shape {:?}, strides {:?}); copy() it first",
                layout.shape(),
                layout.strides()
            ),
        ));
    }
    Ok(())
}

/// Checks that two arrays live on the same device.
pub(crate) fn same_device(op: &'static str, a: &Device, b: &Device) -> Result<()> {
    if a != b {
        return Err(crate::Error::DeviceMismatch {
            op,
            lhs: a.ordinal(),
            rhs: b.ordinal(),
        });
    }
    Ok(())
}
