//! [`Operand`]: how an array reaches a kernel launch, a borrowed buffer with the view's
//! layout and dtype, checked to stay inside the buffer.

use crate::device::DeviceBuffer;
use crate::element::DType;
use crate::shape::Layout;
use crate::{Error, Result};
use cudarc::driver::sys::CUdeviceptr;
use std::borrow::Cow;

/// One array operand of a launch: a live buffer, borrowed for as long as the operand
/// lives, the view's layout (offset included, possibly broadcast) and its dtype.
///
/// Invariant, checked by [`Operand::new`]: every element the layout reaches lies inside
/// the buffer, so a kernel that stays inside the layout stays inside the buffer.
pub(crate) struct Operand<'a> {
    buffer: &'a DeviceBuffer,
    layout: Cow<'a, Layout>,
    dtype: DType,
}

impl<'a> Operand<'a> {
    /// An operand of `buffer` viewed through `layout` as elements of `dtype`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the layout reaches past the buffer (a broken view).
    pub(crate) fn new(
        buffer: &'a DeviceBuffer,
        layout: Cow<'a, Layout>,
        dtype: DType,
    ) -> Result<Operand<'a>> {
        let (_, end) = layout.span();
        let fits = layout.size() == 0
            || end
                .checked_mul(dtype.size())
                .is_some_and(|bytes| bytes <= buffer.len());
        if !fits {
            return Err(Error::invalid(
                "operand",
                format!(
                    "a view of shape {:?}, strides {:?} and offset {} reaches element {end}, past a buffer of {} bytes of {}",
                    layout.shape(),
                    layout.strides(),
                    layout.offset(),
                    buffer.len(),
                    dtype.name()
                ),
            ));
        }
        Ok(Operand {
            buffer,
            layout,
            dtype,
        })
    }

    /// Device address of the first logical element (the layout's offset).
    pub(crate) fn ptr(&self) -> CUdeviceptr {
        self.buffer.device_ptr() + (self.layout.offset() * self.dtype.size()) as CUdeviceptr
    }

    /// Elements of the operand's type from its first logical element to the buffer's end.
    pub(crate) fn available(&self) -> usize {
        (self.buffer.len() / self.dtype.size()).saturating_sub(self.layout.offset())
    }

    /// The view's layout.
    pub(crate) fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The element type.
    pub(crate) fn dtype(&self) -> DType {
        self.dtype
    }

    /// The same buffer through another layout (e.g. broadcast, or re-planned).
    pub(crate) fn with_layout(&self, layout: Layout) -> Result<Operand<'a>> {
        Operand::new(self.buffer, Cow::Owned(layout), self.dtype)
    }
}
