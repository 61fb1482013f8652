//! Arrays that leave cuarray, and memory that comes in from elsewhere: raw device
//! pointers with their shape and strides ([`RawArray`]), foreign allocations wrapped
//! without a copy ([`DeviceArray::from_raw_parts`]).

use super::DeviceArray;
use crate::device::{Device, DeviceBuffer};
use crate::element::{DType, Element};
use crate::shape::Layout;
use crate::{Error, Result};
use cudarc::driver::sys::{CUdeviceptr, CUstream};
use std::marker::PhantomData;
use std::sync::Arc;

/// An array's memory as another library sees it, from [`DeviceArray::as_raw`]: the device
/// address of its first element, its shape, its strides in elements (not bytes; possibly
/// negative or zero), its element type and the ordinal of its device.
///
/// ```no_run
/// use cuarray::{Device, DeviceArray, DType};
/// let dev = Device::new(0)?;
/// let a = DeviceArray::<f32>::zeros(&dev, &[2, 3])?;
/// // SAFETY: `raw.ptr` is used only while `a` lives, on `a`'s stream.
/// let raw = unsafe { a.t().as_raw() };
/// assert_eq!((raw.shape.as_slice(), raw.strides.as_slice()), (&[3, 2][..], &[1, 3][..]));
/// assert_eq!((raw.dtype, raw.device), (DType::F32, 0));
/// # Ok::<(), cuarray::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawArray {
    /// Device address of the first logical element (index `[0, 0, ...]`).
    pub ptr: CUdeviceptr,
    /// The extents.
    pub shape: Vec<usize>,
    /// The strides, in elements.
    pub strides: Vec<isize>,
    /// The element type.
    pub dtype: DType,
    /// The CUDA device ordinal.
    pub device: usize,
}

/// The layout of foreign memory whose first logical element is at element 0 of the
/// pointer it came with: `(layout over the buffer, elements before the pointer, bytes of
/// the buffer)`. The buffer starts `before` elements below the pointer (negative strides
/// reach there) and ends after the furthest element.
pub(crate) fn foreign_layout(
    op: &'static str,
    shape: &[usize],
    strides: &[isize],
    elem: usize,
) -> Result<(Layout, usize, usize)> {
    if shape.len() != strides.len() {
        return Err(Error::invalid(
            op,
            format!(
                "shape {shape:?} has {} dimensions but strides {strides:?} has {}",
                shape.len(),
                strides.len()
            ),
        ));
    }
    let size = crate::shape::checked_size(op, shape)?;
    let too_large = || Error::TooLarge {
        op,
        shape: shape.to_vec(),
        elem_bytes: Some(elem),
    };
    if size == 0 {
        return Ok((
            Layout::from_parts(shape.to_vec(), strides.to_vec(), 0),
            0,
            0,
        ));
    }
    // The lowest and highest element reached, relative to the first logical element.
    let (mut lo, mut hi) = (0isize, 0isize);
    for (&d, &s) in shape.iter().zip(strides) {
        let reach = isize::try_from(d - 1)
            .ok()
            .and_then(|d| d.checked_mul(s))
            .ok_or_else(too_large)?;
        if reach < 0 {
            lo = lo.checked_add(reach).ok_or_else(too_large)?;
        } else {
            hi = hi.checked_add(reach).ok_or_else(too_large)?;
        }
    }
    let span = hi
        .checked_sub(lo)
        .and_then(|s| s.checked_add(1))
        .ok_or_else(too_large)? as usize;
    let bytes = span
        .checked_mul(elem)
        .filter(|&b| b <= isize::MAX as usize)
        .ok_or_else(too_large)?;
    let before = lo.unsigned_abs();
    Ok((
        Layout::from_parts(shape.to_vec(), strides.to_vec(), before),
        before,
        bytes,
    ))
}

impl<T: Element> DeviceArray<T> {
    /// The array's memory as a raw device pointer with its shape, strides (in elements)
    /// and element type, for a kernel launched through cudarc, cuDNN, or any library that
    /// takes device pointers. No device work, no copy.
    ///
    /// The array may still be being written by work queued on its stream
    /// ([`stream_handle`](Self::stream_handle)): order your work after it (launch on that
    /// stream, or make your stream wait for an event recorded there).
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let a = DeviceArray::<f32>::ones(&dev, &[1024])?;
    /// // SAFETY: the pointer is used on `a`'s stream while `a` lives.
    /// let raw = unsafe { a.as_raw() };
    /// let stream = a.stream_handle(); // launch there, after `ones`
    /// assert_eq!(raw.shape, vec![1024]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Safety
    /// The pointer is valid only while this array (or another view of its memory) lives;
    /// cuarray cannot see what is done through it. Work that reads or writes through it
    /// must be ordered with cuarray's work on the array's stream, and writes must respect
    /// the array's element type and the views that share its memory.
    pub unsafe fn as_raw(&self) -> RawArray {
        RawArray {
            ptr: self.first_ptr(),
            shape: self.shape().to_vec(),
            strides: self.strides().to_vec(),
            dtype: T::DTYPE,
            device: self.device().ordinal(),
        }
    }

    /// The raw `CUstream` this array's operations run on: the stream its producer work
    /// (creation, the operation that computed it) was queued on. Launch work that reads
    /// the array there, or make your stream wait for an event recorded on it.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let side = dev.new_stream()?;
    /// let a = DeviceArray::<f32>::ones(&side.device(), &[16])?;
    /// assert_eq!(a.stream_handle(), side.as_raw());
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn stream_handle(&self) -> CUstream {
        self.device().cu_stream()
    }

    /// Wraps device memory that cuarray did not allocate (cudarc's `alloc`, another
    /// library's tensor, your own `cuMemAlloc`) as an array, without a copy and without
    /// device work.
    ///
    /// `ptr` is the device address of the first logical element (index `[0, 0, ...]`),
    /// `strides` are in elements (NumPy's are in bytes) and may be negative (a reversed
    /// view) or zero (a broadcast). The memory never enters cuarray's pool: it is not
    /// counted in [`MemoryStats`](crate::MemoryStats) and never handed to another array.
    /// `owner` keeps it alive: it is dropped exactly once, when the last view of the
    /// array goes, after the work queued on the streams that used the array has finished
    /// (that drop waits for those streams).
    ///
    /// The array's operations run on `device`'s stream.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray};
    /// let dev = Device::new(0)?;
    /// let mine = DeviceArray::<f32>::arange(&dev, 0.0, 6.0, 1.0)?;
    /// // SAFETY: `mine` (the owner) keeps the 6 floats alive; they are on device 0.
    /// let ptr = unsafe { mine.as_raw() }.ptr;
    /// let m = unsafe { DeviceArray::<f32>::from_raw_parts(&dev, ptr, &[2, 3], &[3, 1], mine) }?;
    /// assert_eq!(m.to_host()?, vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    ///
    /// # Safety
    /// Every element the shape and strides reach from `ptr` is device memory of
    /// `device`'s context (the primary context of its ordinal, the one PyTorch, CuPy and
    /// JAX use) holding a valid `T`, and it stays valid until `owner` is dropped. Work
    /// queued on that memory by others before this call must be ordered before cuarray's
    /// work on `device`'s stream (an event, or a synchronisation).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `shape` and `strides` differ in length, or `ptr` is
    /// null or not aligned to the element size (up to 16 bytes) for a non-empty array;
    /// [`Error::TooLarge`] when the element count or the bytes reached overflow
    /// `isize::MAX`.
    pub unsafe fn from_raw_parts(
        device: &Device,
        ptr: CUdeviceptr,
        shape: &[usize],
        strides: &[isize],
        owner: impl Send + Sync + 'static,
    ) -> Result<Self> {
        // SAFETY: the caller's contract is the same.
        unsafe {
            Self::from_foreign(
                "from_raw_parts",
                device,
                ptr,
                shape,
                strides,
                Box::new(owner),
            )
        }
    }

    /// [`from_raw_parts`](Self::from_raw_parts) for `op`, with the owner boxed.
    ///
    /// # Safety
    /// As `from_raw_parts`.
    pub(crate) unsafe fn from_foreign(
        op: &'static str,
        device: &Device,
        ptr: CUdeviceptr,
        shape: &[usize],
        strides: &[isize],
        owner: Box<dyn std::any::Any + Send + Sync>,
    ) -> Result<Self> {
        let elem = std::mem::size_of::<T>();
        let (layout, before, bytes) = foreign_layout(op, shape, strides, elem)?;
        let base = if bytes == 0 {
            ptr
        } else {
            check_pointer(op, ptr, elem)?;
            ptr.checked_sub((before * elem) as u64).ok_or_else(|| {
                Error::invalid(
                    op,
                    format!("negative strides {strides:?} reach below address 0 from {ptr:#x}"),
                )
            })?
        };
        // SAFETY: the caller promises that the elements reached, `base .. base + bytes`,
        // are memory of `device` that stays valid until `owner` is dropped.
        let buf = unsafe { DeviceBuffer::foreign_memory(device, base, bytes, owner) };
        debug_assert!(buf.is_foreign_memory());
        Ok(DeviceArray {
            buf: Arc::new(buf),
            layout,
            on: None,
            _t: PhantomData,
        })
    }
}

/// Refuses a null or misaligned address for a non-empty array.
pub(crate) fn check_pointer(op: &'static str, ptr: CUdeviceptr, elem: usize) -> Result<()> {
    if ptr == 0 {
        return Err(Error::invalid(op, "the device pointer is null"));
    }
    let align = elem.clamp(1, 16) as u64;
    if !ptr.is_multiple_of(align) {
        return Err(Error::invalid(
            op,
            format!(
                "the device pointer {ptr:#x} is not aligned to {align} bytes (the element size)"
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contiguous_and_transposed() {
        let (l, before, bytes) = foreign_layout("t", &[2, 3], &[3, 1], 4).unwrap();
        assert_eq!((l.offset(), before, bytes), (0, 0, 24));
        let (l, before, bytes) = foreign_layout("t", &[3, 2], &[1, 3], 8).unwrap();
        assert_eq!((l.strides(), before, bytes), (&[1, 3][..], 0, 48));
    }

    #[test]
    fn negative_strides_reach_below_the_pointer() {
        // NumPy's a[::-1] of 4 elements: the first logical element is the last one.
        let (l, before, bytes) = foreign_layout("t", &[4], &[-1], 4).unwrap();
        assert_eq!((l.offset(), before, bytes), (3, 3, 16));
        assert_eq!(l.iter_offsets().collect::<Vec<_>>(), vec![3, 2, 1, 0]);
        // a[::-1, ::2] of a 3 x 4 matrix.
        let (l, before, bytes) = foreign_layout("t", &[3, 2], &[-4, 2], 2).unwrap();
        assert_eq!((before, bytes), (8, 2 * 11));
        assert_eq!(
            l.iter_offsets().collect::<Vec<_>>(),
            vec![8, 10, 4, 6, 0, 2]
        );
    }

    #[test]
    fn broadcast_zero_size_and_scalars() {
        let (_, before, bytes) = foreign_layout("t", &[5, 3], &[0, 1], 4).unwrap();
        assert_eq!((before, bytes), (0, 12));
        let (_, _, bytes) = foreign_layout("t", &[0, 3], &[3, 1], 4).unwrap();
        assert_eq!(bytes, 0);
        // Any strides go with an empty shape.
        assert!(foreign_layout("t", &[0, 7], &[isize::MAX, isize::MIN], 8).is_ok());
        let (l, _, bytes) = foreign_layout("t", &[], &[], 8).unwrap();
        assert_eq!((l.size(), bytes), (1, 8));
    }

    #[test]
    fn invalid_parts_are_errors() {
        let e = foreign_layout("from_raw_parts", &[2, 3], &[1], 4).unwrap_err();
        assert!(matches!(e, Error::InvalidArgument { .. }), "{e}");
        assert!(e.to_string().contains("from_raw_parts"), "{e}");
        for (shape, strides) in [
            (vec![1usize << 40, 1 << 40], vec![1isize << 40, 1]),
            (vec![3], vec![isize::MAX]),
            (vec![3], vec![isize::MIN]),
            (vec![2, 2], vec![isize::MAX / 2 + 1, isize::MAX / 2 + 1]),
            (vec![1 << 62], vec![1]),
        ] {
            let e = foreign_layout("from_raw_parts", &shape, &strides, 4).unwrap_err();
            assert!(
                matches!(e, Error::TooLarge { .. }),
                "{shape:?} {strides:?}: {e}"
            );
        }
    }

    #[test]
    fn pointers_are_checked() {
        assert!(check_pointer("t", 0, 4).is_err());
        assert!(check_pointer("t", 0x1002, 4).is_err());
        assert!(check_pointer("t", 0x1004, 4).is_ok());
        assert!(check_pointer("t", 0x1008, 16).is_err());
        assert!(check_pointer("t", 0x1001, 1).is_ok());
    }
}
