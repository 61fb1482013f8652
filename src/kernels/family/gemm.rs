//! The small matrix product family (`matmul.cuh`): a stack of products at any strides, a
//! thread per output element, for products too small for a cuBLAS call to pay off.
//!
//! `out0 = in0 @ in0'` (both inputs of type `in0_t`), accumulated in `double` for f64,
//! in the complex type itself for complex types and in `float` otherwise. Arguments: the output, the two inputs, then a `GemmShape`
//! (batch, m, n, k and the batch, row and column strides of A, B, C).

use crate::element::DType;
use crate::kernels::abi::KernelArgs;
use crate::kernels::cache::Kernel;
use crate::kernels::emit;
use crate::kernels::{Family, IndexWidth, KernelSpec, BLOCK};
use crate::{Device, Result};
use cudarc::driver::sys::CUdeviceptr;
use std::fmt::Write as _;

/// One small-product kernel.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct GemmSpec {
    /// Element type of A, B and C.
    pub dtype: DType,
    /// Index width.
    pub index: IndexWidth,
}

impl From<GemmSpec> for KernelSpec {
    fn from(spec: GemmSpec) -> KernelSpec {
        KernelSpec::new(spec)
    }
}

/// The accumulator of a product of `dtype` elements.
fn acc(dtype: DType) -> &'static str {
    match dtype {
        DType::F64 => "double",
        // In the complex type itself: its parts in float or double.
        DType::C64 => "cuarray_c64",
        DType::C128 => "cuarray_c128",
        DType::Bool
        | DType::I8
        | DType::I16
        | DType::I32
        | DType::I64
        | DType::U8
        | DType::U16
        | DType::U32
        | DType::U64
        | DType::F16
        | DType::BF16
        | DType::F32 => "float",
    }
}

impl Family for GemmSpec {
    fn headers(&self) -> &'static [&'static str] {
        &["matmul.cuh"]
    }

    fn symbol(&self) -> String {
        emit::symbol(
            "gemm",
            "matmul",
            &[self.dtype],
            &[self.dtype],
            &[],
            "small",
            self.index,
        )
    }

    fn render(&self, src: &mut String) {
        emit::typedef(src, self.dtype.cuda_type(), "in0_t");
        emit::typedef(src, self.dtype.cuda_type(), "out0_t");
        emit::typedef(src, acc(self.dtype), "acc_t");
        let params = [
            "out0_t* p_out0",
            "const in0_t* p_a",
            "const in0_t* p_b",
            "const GemmShape g",
        ]
        .map(String::from);
        emit::open(src, BLOCK, &self.symbol(), &params);
        let _ = writeln!(src, "    typedef {} I;", self.index.cuda_type());
        let args = [
            "batch", "m", "n", "k", "sab", "sam", "sak", "sbb", "sbk", "sbn", "scb", "scm", "scn",
        ]
        .map(|n| format!("(I)g.{n}"));
        let _ = writeln!(
            src,
            "    gemm_small<I, acc_t>(p_a, p_b, p_out0, {});\n}}",
            args.join(", ")
        );
    }
}

// ---- launch ---------------------------------------------------------------------------------

/// The integers of the wrapper's `GemmShape`: batch, m, n, k, then the batch, row and
/// column strides of A, of B and of C.
pub(crate) type GemmShape = [i64; 13];

impl GemmSpec {
    /// The wrapper's arguments: C, A, B, then the `GemmShape`.
    pub(crate) fn args(
        (c, a, b): (CUdeviceptr, CUdeviceptr, CUdeviceptr),
        shape: &GemmShape,
    ) -> KernelArgs {
        let mut args = KernelArgs::new();
        args.ptr(c).ptr(a).ptr(b);
        args.i64s(shape);
        args
    }

    /// Launches the kernel `f` of this spec: C = A @ B for the products of `shape`, with
    /// `c`, `a` and `b` the addresses of element 0 of each.
    ///
    /// # Safety
    /// - `f` is the kernel compiled for this spec (`kernel(device, self)`), and the three
    ///   matrices are of its dtype;
    /// - every element of A and of B that `shape`'s batch, row and column strides reach
    ///   from `a` and `b` (batch x m x k and batch x k x n) lies inside a live buffer;
    /// - every element of C that its strides reach from `c` (batch x m x n) lies inside a
    ///   live buffer that nothing else reads or writes meanwhile.
    pub(crate) unsafe fn launch(
        &self,
        device: &Device,
        f: &Kernel,
        grid: u32,
        (c, a, b): (CUdeviceptr, CUdeviceptr, CUdeviceptr),
        shape: &GemmShape,
    ) -> Result<()> {
        let mut args = Self::args((c, a, b), shape);
        // SAFETY: arguments in the order of the gemm family's signature (C, A, B, then the
        // GemmShape); the caller guarantees (# Safety) that `f` is this spec's kernel and
        // that every element of A, B and C the shape's strides reach lies inside its buffer.
        unsafe { args.launch(device, f, grid) }
    }
}
