//! The N-ary elementwise operation: any number of inputs and outputs, one op body.
//!
//! Built-in ops (arithmetic, fills, copies, casts) are instances of it; user kernels and
//! fused expressions are meant to reuse it. `plan` (pure) collapses the operands' layouts
//! and chooses the variant and index width; `run` renders the spec and launches.

use crate::element::DType;
use crate::kernels::abi::KernelArgs;
use crate::kernels::{Family, IndexWidth, KernelSpec, TypeList, Variant, MAX_DIMS, MAX_OPERANDS, MAX_SCALARS};
use crate::ops::launch::{grid_for, index_width, BLOCK};
use crate::shape::{collapse, Collapsed, Layout};
use crate::{Device, Error, Result};
use cudarc::driver::sys::CUdeviceptr;
use std::borrow::Cow;

/// One array operand of an elementwise launch: the address of its first logical element,
/// its layout (already broadcast to the launch shape) and its dtype.
pub(crate) struct Operand<'a> {
    pub(crate) ptr: CUdeviceptr,
    pub(crate) layout: Cow<'a, Layout>,
    pub(crate) dtype: DType,
}

/// A scalar kernel parameter: raw bytes of one element of `dtype`.
#[derive(Clone, Copy)]
pub(crate) struct Scalar {
    pub(crate) dtype: DType,
    bytes: [u8; 8],
}

impl Scalar {
    pub(crate) fn of<T: crate::Element>(v: T) -> Scalar {
        let mut bytes = [0u8; 8];
        let size = std::mem::size_of::<T>();
        // SAFETY: every Element is a plain value of at most 8 bytes with no padding
        // (bool is one byte, 0 or 1); we copy exactly its bytes.
        let src = unsafe { std::slice::from_raw_parts(&v as *const T as *const u8, size) };
        bytes[..size].copy_from_slice(src);
        Scalar {
            dtype: T::DTYPE,
            bytes,
        }
    }
}

/// What the plan decided for one launch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// Number of elements (0: nothing to launch).
    pub size: usize,
    /// Layout variant.
    pub variant: Variant,
    /// Index width.
    pub index: IndexWidth,
    /// The collapsed shape and per-operand strides (strided variant).
    pub collapsed: Collapsed,
}

/// Plans a launch over `shape` for operands with `strides` (each as long as `shape`,
/// outputs first). Pure.
///
/// ```
/// use cuarray::ops::elementwise::plan;
/// use cuarray::kernels::{Variant, IndexWidth};
/// let p = plan(&[4, 5], &[&[5, 1], &[5, 1]]).unwrap();
/// assert_eq!(p.variant, Variant::Contiguous);
/// let p = plan(&[4, 5], &[&[5, 1], &[1, 4]]).unwrap();
/// assert_eq!(p.variant, Variant::Strided { ndim: 2 });
/// assert_eq!(p.index, IndexWidth::I32);
/// ```
pub fn plan(shape: &[usize], strides: &[&[isize]]) -> Result<Plan> {
    let size: usize = shape.iter().product();
    let c = collapse(shape, strides);
    let contiguous = c.shape.len() <= 1 && c.strides.iter().all(|s| s.iter().all(|&x| x == 1));
    let max_extent = c
        .strides
        .iter()
        .map(|s| {
            s.iter()
                .zip(&c.shape)
                .map(|(&st, &d)| st.unsigned_abs() * d.saturating_sub(1))
                .sum::<usize>()
        })
        .max()
        .unwrap_or(0);
    let variant = if contiguous {
        Variant::Contiguous
    } else {
        if c.shape.len() > MAX_DIMS {
            return Err(Error::invalid(
                "elementwise",
                format!(
                    "the operands' layouts need {} dimensions after merging; kernels index at most {MAX_DIMS} (make an operand contiguous first)",
                    c.shape.len()
                ),
            ));
        }
        Variant::Strided {
            ndim: c.shape.len() as u8,
        }
    };
    Ok(Plan {
        size,
        variant,
        index: index_width(size, max_extent),
        collapsed: c,
    })
}

/// The spec of an elementwise kernel.
pub fn spec_for(
    op: impl Into<Cow<'static, str>>,
    body: impl Into<Cow<'static, str>>,
    inputs: &[DType],
    outputs: &[DType],
    scalars: &[DType],
    variant: Variant,
    index: IndexWidth,
) -> KernelSpec {
    KernelSpec {
        family: Family::Elementwise,
        op: op.into(),
        body: body.into(),
        inputs: TypeList::new(inputs),
        outputs: TypeList::new(outputs),
        scalars: TypeList::new(scalars),
        variant,
        index,
    }
}

/// Runs `body` over `outs` and `ins`, all of the same shape (broadcast already applied).
pub(crate) fn run(
    device: &Device,
    op: &'static str,
    body: &'static str,
    outs: &[Operand<'_>],
    ins: &[Operand<'_>],
    scalars: &[Scalar],
) -> Result<()> {
    debug_assert!(!outs.is_empty());
    if outs.len() + ins.len() > MAX_OPERANDS || scalars.len() > MAX_SCALARS {
        return Err(Error::invalid(op, "too many operands for one kernel"));
    }
    let shape = outs[0].layout.shape();
    let mut strides: [&[isize]; MAX_OPERANDS] = [&[]; MAX_OPERANDS];
    for (s, o) in strides.iter_mut().zip(outs.iter().chain(ins)) {
        debug_assert_eq!(o.layout.shape(), shape);
        *s = o.layout.strides();
    }
    let p = plan(shape, &strides[..outs.len() + ins.len()])?;
    if p.size == 0 {
        return Ok(());
    }
    let mut types = [DType::Bool; MAX_OPERANDS];
    for (t, o) in types.iter_mut().zip(ins) {
        *t = o.dtype;
    }
    let in_types = &types[..ins.len()];
    let mut otypes = [DType::Bool; MAX_OPERANDS];
    for (t, o) in otypes.iter_mut().zip(outs) {
        *t = o.dtype;
    }
    let mut stypes = [DType::Bool; MAX_SCALARS];
    for (t, s) in stypes.iter_mut().zip(scalars) {
        *t = s.dtype;
    }
    let spec = spec_for(
        op,
        body,
        in_types,
        &otypes[..outs.len()],
        &stypes[..scalars.len()],
        p.variant,
        p.index,
    );
    let f = device.function(&spec)?;
    let mut args = KernelArgs::new();
    for o in outs.iter().chain(ins) {
        args.ptr(o.ptr);
    }
    for s in scalars {
        let n = s.dtype.size();
        args.raw(&s.bytes[..n], n);
    }
    match p.variant {
        Variant::Contiguous => {
            args.i64(p.size as i64);
        }
        Variant::Strided { .. } => {
            args.indexer(p.index, p.size, &p.collapsed.shape, &p.collapsed.strides);
        }
    }
    let grid = grid_for(p.size, device.multiprocessor_count());
    // SAFETY: the arguments follow codegen's wrapper signature for `spec`: output
    // pointers, input pointers, scalars, then `n` or the Indexer of `p.collapsed`; every
    // pointer is the first logical element of a live buffer whose layout keeps every
    // offset the Indexer produces inside the buffer (Layout's invariants).
    unsafe { args.launch(device, &f, grid, BLOCK) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans() {
        // Broadcast (3,1)+(4,) -> (3,4): strided, 2 dims.
        let out = Layout::contiguous(&[3, 4]);
        let a = Layout::contiguous(&[3, 1]).broadcast_to(&[3, 4]).unwrap();
        let b = Layout::contiguous(&[4]).broadcast_to(&[3, 4]).unwrap();
        let p = plan(&[3, 4], &[out.strides(), a.strides(), b.strides()]).unwrap();
        assert_eq!(p.variant, Variant::Strided { ndim: 2 });
        assert_eq!(p.collapsed.strides, vec![vec![4, 1], vec![1, 0], vec![0, 1]]);
        // 0-d and all-contiguous: contiguous.
        assert_eq!(plan(&[], &[&[], &[]]).unwrap().variant, Variant::Contiguous);
        assert_eq!(plan(&[2, 3, 4], &[&[12, 4, 1]]).unwrap().variant, Variant::Contiguous);
        // Reversed: strided with a negative stride.
        let p = plan(&[5], &[&[1], &[-1]]).unwrap();
        assert_eq!(p.variant, Variant::Strided { ndim: 1 });
        // Large: 64-bit indices.
        let p = plan(&[1 << 31], &[&[1]]).unwrap();
        assert_eq!(p.index, IndexWidth::I64);
        // Empty.
        assert_eq!(plan(&[3, 0], &[&[0, 1]]).unwrap().size, 0);
    }
}
pub use super::catalogue::{BinaryOp, UnaryOp};
