//! What the linear algebra functions share: stacks of matrices and their shapes, the
//! outputs of runs, the workspace copies, the pointer arrays of the batched routines and
//! the checks of the info arrays.
//!
//! cuSOLVER is column-major and works in place, so every run first copies its input into
//! a fresh stack of matrices (the one copy kernel, from any view: transposed, stepped,
//! broadcast), and folds work into that copy:
//! - `solve`, `inv`, `cholesky`, `eigh` and `qr` copy into Fortran order, so that the
//!   routines see `A` itself: the pivot of a singular matrix is LAPACK's, `getrs` runs
//!   untransposed, and `potrf`/`syevd` read the lower triangle (NumPy's), which `Xpotrf`
//!   factors twice as fast as the upper one and `potrfBatched` alone supports;
//! - `cholesky` copies only the lower triangle and zeros the rest (`potrf` leaves the
//!   other triangle untouched), so the result needs no `tril` pass;
//! - `inv` solves against identities written in place;
//! - `svd` and `det` copy in C order (as the input lies, usually): read column-major that
//!   is `Aᵀ`, whose SVD gives `A`'s with `U` and `V` swapped and whose determinant is
//!   `A`'s.
//!
//! Many small matrices (`n <= 32`, more than one) take the batched routines: cuBLAS's
//! `getrfBatched`/`getrsBatched`, `potrfBatched`, `gesvdjBatched`, `syevjBatched`. One
//! large matrix takes the 64-bit API (`Xgetrf`, `Xpotrf`, `Xgeqrf`, `Xsyevd`) or the
//! Jacobi SVD (`gesvdj`); a batch of large ones loops over it.
//!
//! The info arrays (one `i32` per matrix) stay on the device; reading them is the
//! caller's choice (the checked functions read them once, through [`first_failure`], the
//! `_ex` ones return them).

use crate::array::DeviceArray;
use crate::device::{Device, DeviceBuffer};
use crate::element::{DType, Element};
use crate::kernels::abi::Scalar;
use crate::ops::catalogue::{ARANGE_I_BODY, COPY_BODY, FILL_BODY};
use crate::ops::Operand;
use crate::shape::{c_strides, Layout};
use crate::{Error, Result};
use cudarc::driver::sys::CUdeviceptr;
use std::borrow::Cow;
use std::sync::Arc;

/// Largest `n` (rows and columns) of the batched routines for many small matrices.
pub(super) const SMALL_N: usize = 32;

/// `out = in` on and above the diagonal (C-contiguous output of `s1 x s0` matrices), zero
/// below.
pub(super) const TRIU_BODY: &str = "out0 = ((i % s0) >= ((i / s0) % s1)) ? in0 : out0_t(0);";
/// The complex conjugate (complex types only: the real types take [`COPY_BODY`]).
pub(super) const CONJ_BODY: &str = "out0 = out0_t(in0.re, -in0.im);";
/// A stack of `n x n` identities (C-contiguous output; `s0` = n).
pub(super) const EYES_BODY: &str = "out0 = ((i % s0) == ((i / s0) % s0)) ? out0_t(1) : out0_t(0);";

/// Pushes the specs of the elementwise kernel `op` (`body` over `(inputs, outputs,
/// scalars)`) in `variants`, each with both index widths (the NVRTC tier).
pub(super) fn push_specs(
    out: &mut Vec<crate::KernelSpec>,
    op: &'static str,
    body: &'static str,
    (ins, outs, scalars): (&[DType], &[DType], &[DType]),
    variants: &[crate::kernels::family::elementwise::Variant],
) {
    use crate::kernels::IndexWidth;
    for &variant in variants {
        for index in [IndexWidth::I32, IndexWidth::I64] {
            out.push(crate::KernelSpec::from(crate::ops::elementwise::spec_for(
                op, body, ins, outs, scalars, variant, index,
            )));
        }
    }
}

/// The linear algebra layer's own kernels (the triangle copy and the stacks of
/// identities) for every solver type, in the variants their launches take (the NVRTC
/// tier).
pub(super) fn kernel_specs() -> Vec<crate::KernelSpec> {
    use crate::kernels::family::elementwise::Variant;
    let mut v = Vec::new();
    for d in [DType::F32, DType::F64, DType::C64, DType::C128] {
        let strided = [
            Variant::Contiguous,
            Variant::Strided { ndim: 2 },
            Variant::Strided { ndim: 3 },
            Variant::Tiled { staged: 0b10 },
        ];
        let i64s = [DType::I64, DType::I64];
        push_specs(&mut v, "triu", TRIU_BODY, (&[d], &[d], &i64s), &strided);
        push_specs(
            &mut v,
            "eyes",
            EYES_BODY,
            (&[], &[d], &i64s[..1]),
            &strided[..3],
        );
        if d.is_complex() {
            push_specs(&mut v, "conj", CONJ_BODY, (&[d], &[d], &[]), &strided);
        }
    }
    v
}

/// A stack of `rows x cols` matrices, one after the other in a buffer of their own, each
/// in row-major (C) or column-major (Fortran) order; the batch in C order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Stack {
    /// Batch shape.
    pub batch: Vec<usize>,
    /// Rows of each matrix.
    pub rows: usize,
    /// Columns of each matrix.
    pub cols: usize,
    /// Column-major matrices.
    pub fortran: bool,
}

impl Stack {
    /// A stack of `rows x cols` matrices over `batch`.
    pub(super) fn new(batch: &[usize], rows: usize, cols: usize, fortran: bool) -> Stack {
        Stack {
            batch: batch.to_vec(),
            rows,
            cols,
            fortran,
        }
    }
    /// Number of matrices.
    pub(super) fn count(&self) -> usize {
        self.batch.iter().product()
    }
    /// Elements per matrix.
    pub(super) fn elems(&self) -> usize {
        self.rows * self.cols
    }
    /// Elements in all.
    pub(super) fn len(&self) -> usize {
        self.count() * self.elems()
    }
    /// True when the stack holds no element.
    pub(super) fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The stack as an array layout `(batch..., rows, cols)`.
    pub(super) fn layout(&self) -> Layout {
        let mut shape = self.batch.clone();
        shape.extend([self.rows, self.cols]);
        let mut strides: Vec<isize> = c_strides(&self.batch)
            .into_iter()
            .map(|s| s * self.elems() as isize)
            .collect();
        if self.fortran {
            strides.extend([1, self.rows.max(1) as isize]);
        } else {
            strides.extend([self.cols.max(1) as isize, 1]);
        }
        Layout::from_parts(shape, strides, 0)
    }
}

/// True when the matrices of `layout` (its last two axes) are column-major, so that a
/// column-major copy reads them in order (a transposed view, a Fortran-order array).
#[cfg(test)]
fn prefers_fortran(layout: &Layout) -> bool {
    let d = layout.ndim();
    if d < 2 {
        return false;
    }
    let (r, c) = (layout.shape()[d - 2], layout.shape()[d - 1]);
    let (sr, sc) = (layout.strides()[d - 2], layout.strides()[d - 1]);
    r > 1 && c > 1 && sr == 1 && sc >= r as isize
}

/// The batch shape and the matrix size of a stack of square matrices `(..., n, n)`.
///
/// # Errors
/// [`Error::InvalidArgument`] naming `op` when `shape` has fewer than two dimensions or its
/// last two differ.
pub(super) fn square(op: &'static str, shape: &[usize]) -> Result<(Vec<usize>, usize)> {
    let d = shape.len();
    if d < 2 {
        return Err(Error::invalid(
            op,
            format!("needs an array of at least two dimensions, got shape {shape:?}"),
        ));
    }
    if shape[d - 1] != shape[d - 2] {
        return Err(Error::invalid(
            op,
            format!("the last two dimensions must be square, got shape {shape:?}"),
        ));
    }
    Ok((shape[..d - 2].to_vec(), shape[d - 1]))
}

/// The batch shape and matrix size `(m, n)` of a stack of matrices `(..., m, n)`.
///
/// # Errors
/// [`Error::InvalidArgument`] naming `op` when `shape` has fewer than two dimensions.
pub(super) fn matrices(op: &'static str, shape: &[usize]) -> Result<(Vec<usize>, usize, usize)> {
    let d = shape.len();
    if d < 2 {
        return Err(Error::invalid(
            op,
            format!("needs an array of at least two dimensions, got shape {shape:?}"),
        ));
    }
    Ok((shape[..d - 2].to_vec(), shape[d - 2], shape[d - 1]))
}

/// An output of a run: its buffer and the layout to view it through.
#[derive(Clone)]
pub(crate) struct Out {
    pub(crate) buf: Arc<DeviceBuffer>,
    pub(crate) layout: Layout,
}

pub(super) fn alloc(device: &Device, elems: usize, dtype: DType) -> Result<DeviceBuffer> {
    let bytes = elems
        .checked_mul(dtype.size())
        .ok_or_else(|| Error::TooLarge {
            op: "linalg",
            shape: vec![elems],
            elem_bytes: Some(dtype.size()),
        })?;
    DeviceBuffer::alloc(device, bytes.max(1))
}

/// A fresh `i32` info array over `batch`, zeroed when `zero` (for the cases where no
/// routine writes it).
pub(super) fn info_array(device: &Device, batch: &[usize], zero: bool) -> Result<Out> {
    let count: usize = batch.iter().product();
    let buf = alloc(device, count, DType::I32)?;
    let layout = Layout::contiguous(batch);
    if zero && count > 0 {
        let op = Operand::new(&buf, Cow::Borrowed(&layout), DType::I32)?;
        crate::ops::elementwise::run(device, "fill", FILL_BODY, &[op], &[], &[Scalar::of(0i32)])?;
    }
    Ok(Out {
        buf: Arc::new(buf),
        layout,
    })
}

/// Copies `src` (of the stack's shape, broadcast already) into a new buffer laid out as
/// `stack`.
pub(super) fn copy_stack(
    device: &Device,
    src: &Operand<'_>,
    stack: &Stack,
) -> Result<DeviceBuffer> {
    copy_stack_conj(device, src, stack, false)
}

/// [`copy_stack`], conjugating complex values when `conj` (real values are copied).
pub(super) fn copy_stack_conj(
    device: &Device,
    src: &Operand<'_>,
    stack: &Stack,
    conj: bool,
) -> Result<DeviceBuffer> {
    let buf = alloc(device, stack.len(), src.dtype())?;
    if !stack.is_empty() {
        let dst = Operand::new(&buf, Cow::Owned(stack.layout()), src.dtype())?;
        copy_op(device, dst, src, conj)?;
    }
    Ok(buf)
}

/// `dst = src`, or its complex conjugate when `conj` and the type is complex.
pub(super) fn copy_op(
    device: &Device,
    dst: Operand<'_>,
    src: &Operand<'_>,
    conj: bool,
) -> Result<()> {
    let (op, body) = if conj && src.dtype().is_complex() {
        ("conj", CONJ_BODY)
    } else {
        ("copy", COPY_BODY)
    };
    crate::ops::elementwise::run(device, op, body, &[dst], std::slice::from_ref(src), &[])
}

/// The conjugate transpose of the matrices of `a` (`Aᴴ`; a view `Aᵀ` for real types, a
/// new array for complex ones).
pub(super) fn ct<T: Element>(a: &DeviceArray<T>) -> Result<DeviceArray<T>> {
    let t = mt(a)?;
    if !T::DTYPE.is_complex() {
        return Ok(t);
    }
    let out = DeviceArray::<T>::empty(a.device(), t.shape())?;
    copy_op(a.device(), out.operand()?, &t.operand()?, true)?;
    Ok(out)
}

/// A device array of `count` addresses `base + i * stride_bytes` (the pointer arrays of
/// the batched routines), made on the device: no transfer.
pub(super) fn pointer_array(
    device: &Device,
    base: CUdeviceptr,
    stride_bytes: usize,
    count: usize,
) -> Result<DeviceBuffer> {
    let buf = alloc(device, count, DType::U64)?;
    let layout = Layout::contiguous(&[count]);
    let op = Operand::new(&buf, Cow::Borrowed(&layout), DType::U64)?;
    crate::ops::elementwise::run(
        device,
        "arange_i",
        ARANGE_I_BODY,
        &[op],
        &[],
        &[Scalar::of(base as i64), Scalar::of(stride_bytes as i64)],
    )?;
    Ok(buf)
}

/// A scratch `i32` for the info of routines that only report argument errors there
/// (`getrs`, `geqrf`, `orgqr`), which cuarray's own checks already rule out.
pub(super) fn scratch_info(device: &Device) -> Result<CUdeviceptr> {
    device.scratch("cusolver argument info", 4, false)
}

pub(super) fn wrap<U: Element>(o: Out) -> DeviceArray<U> {
    DeviceArray::from_buffer(o.buf, o.layout)
}

/// The last two axes swapped (NumPy's `mT`), a view.
pub(super) fn mt<T: Element>(a: &DeviceArray<T>) -> Result<DeviceArray<T>> {
    let d = a.ndim() as isize;
    let mut axes: Vec<isize> = (0..d).collect();
    axes.swap((d - 1) as usize, (d - 2) as usize);
    a.permute(&axes[..])
}

/// The first non-zero entry of an info array: (batch index, value). One read, which waits
/// for the GPU: of the array itself when it is small, else of whether any entry is
/// non-zero (a reduction on the device) and the array only then.
pub(super) fn first_failure(info: &DeviceArray<i32>) -> Result<Option<(usize, i32)>> {
    if info.size() == 0 {
        return Ok(None);
    }
    if info.size() > 64 && !info.ne(0)?.any()?.to_scalar()? {
        return Ok(None);
    }
    let v = info.to_host()?;
    Ok(v.iter().position(|&x| x != 0).map(|i| (i, v[i])))
}

pub(super) fn argument_error(op: &'static str, v: i32) -> Error {
    Error::Cusolver {
        op,
        msg: format!("argument {} rejected (an internal error of cuarray)", -v),
    }
}

/// [`Error::Singular`] for the first failure of an LU info array.
pub(super) fn check_singular(op: &'static str, info: &DeviceArray<i32>) -> Result<()> {
    match first_failure(info)? {
        None => Ok(()),
        Some((batch, v)) if v > 0 => Err(Error::Singular {
            op,
            batch,
            pivot: v as usize - 1,
        }),
        Some((_, v)) => Err(argument_error(op, v)),
    }
}

pub(super) fn check_converged(op: &'static str, info: &DeviceArray<i32>) -> Result<()> {
    match first_failure(info)? {
        None => Ok(()),
        Some((batch, v)) if v > 0 => Err(Error::NoConvergence { op, batch }),
        Some((_, v)) => Err(argument_error(op, v)),
    }
}

/// The full shape `batch + [r, c]`.
pub(super) fn full(batch: &[usize], r: usize, c: usize) -> Vec<usize> {
    let mut s = batch.to_vec();
    s.extend([r, c]);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stacks() {
        let s = Stack::new(&[2, 3], 4, 5, false);
        assert_eq!((s.count(), s.len()), (6, 120));
        let l = s.layout();
        assert_eq!(l.shape(), &[2, 3, 4, 5]);
        assert_eq!(l.strides(), &[60, 20, 5, 1]);
        let f = Stack::new(&[2], 4, 5, true).layout();
        assert_eq!(f.strides(), &[20, 1, 4]);
        assert!(Stack::new(&[0], 3, 3, false).is_empty());
    }

    #[test]
    fn orders() {
        assert!(!prefers_fortran(&Layout::contiguous(&[2, 3, 3])));
        assert!(prefers_fortran(&Stack::new(&[2], 3, 3, true).layout()));
        // A broadcast or stepped view is copied in C order.
        assert!(!prefers_fortran(&Layout::from_parts(
            vec![3, 3],
            vec![0, 1],
            0
        )));
        assert!(!prefers_fortran(&Layout::from_parts(
            vec![3, 3],
            vec![2, 6],
            0
        )));
    }

    #[test]
    fn stack_layout_example() {
        use crate::linalg::common::Stack;
        let l = Stack::new(&[2], 3, 4, true).layout();
        assert_eq!((l.shape(), l.strides()), (&[2, 3, 4][..], &[12, 1, 3][..]));
    }

    #[test]
    fn prefers_fortran_example() {
        use crate::linalg::common::prefers_fortran;
        use crate::shape::Layout;
        assert!(!prefers_fortran(&Layout::contiguous(&[3, 3])));
        assert!(prefers_fortran(&Layout::contiguous(&[4, 3]).t()));
    }

    #[test]
    fn square_example() {
        use crate::linalg::common::square;
        assert_eq!(square("inv", &[5, 3, 3]).unwrap(), (vec![5], 3));
        assert!(square("inv", &[3, 4]).is_err());
        assert!(square("inv", &[3]).is_err());
    }
}
