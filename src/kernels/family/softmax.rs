//! The row softmax family (`softmax.cuh`): softmax, log_softmax and logsumexp along
//! contiguous rows of at most [`MAX_ROW`] elements, each row held in registers by a warp
//! (rows up to 32 x 32 elements) or by a block, so that the data is read once.
//!
//! Arguments: the input, the output (the rows' shape for the softmaxes, one value a row for
//! logsumexp), the number of rows, the row length.

use crate::element::DType;
use crate::kernels::abi::KernelArgs;
use crate::kernels::cache::Kernel;
use crate::kernels::emit;
use crate::kernels::{Family, IndexWidth, KernelSpec, BLOCK};
use crate::{Device, Result};
use cudarc::driver::sys::CUdeviceptr;
use std::fmt::Write as _;

/// The longest row the family holds in registers (a block of [`BLOCK`] threads, 16 each).
pub(crate) const MAX_ROW: usize = BLOCK as usize * 16;

/// What a row kernel computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RowOp {
    /// `exp(x - m) / Σ exp(x - m)`.
    Softmax,
    /// `(x - m) - ln Σ exp(x - m)`.
    LogSoftmax,
    /// `m + ln Σ exp(x - m)`, one value a row.
    Logsumexp,
}

impl RowOp {
    const fn mode(self) -> u32 {
        match self {
            RowOp::Softmax => 0,
            RowOp::LogSoftmax => 1,
            RowOp::Logsumexp => 2,
        }
    }
    const fn name(self) -> &'static str {
        match self {
            RowOp::Softmax => "softmax",
            RowOp::LogSoftmax => "log_softmax",
            RowOp::Logsumexp => "logsumexp",
        }
    }
}

/// One row kernel: its op, the element type in and out, the work type (f32 or f64), and
/// the threads a row (32 or [`BLOCK`]) with the elements each holds.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SoftmaxSpec {
    /// What it computes.
    pub op: RowOp,
    /// Element type of the input and the output.
    pub dtype: DType,
    /// The work type: f64 for f64 input, else f32.
    pub work: DType,
    /// Threads a row: 32 (a warp) or [`BLOCK`].
    pub group: u32,
    /// Elements a thread (a power of two, `group * items >= len`).
    pub items: u32,
    /// Elements a vector access moves (1, or up to 16 bytes' worth within `items`): rows
    /// whose length is a multiple of it, at addresses aligned to it.
    pub vec: u32,
}

impl From<SoftmaxSpec> for KernelSpec {
    fn from(spec: SoftmaxSpec) -> KernelSpec {
        KernelSpec::new(spec)
    }
}

impl SoftmaxSpec {
    /// The kernel for rows of `len` elements (1 ..= [`MAX_ROW`]): a warp a row up to
    /// 32 x 32 elements, else a block, each thread holding the next power of two of the
    /// elements it needs; vector accesses where `aligned` (the input's and the output's
    /// first element at 16-byte boundaries) and `len` is a multiple of the vector.
    pub(crate) fn for_rows(
        op: RowOp,
        dtype: DType,
        work: DType,
        len: usize,
        aligned: bool,
    ) -> SoftmaxSpec {
        debug_assert!((1..=MAX_ROW).contains(&len));
        let group = if len <= 32 * 32 { 32 } else { BLOCK };
        let items = len.div_ceil(group as usize).next_power_of_two() as u32;
        let widest = (16 / dtype.size() as u32).clamp(1, items);
        let vec = if aligned && len.is_multiple_of(widest as usize) {
            widest
        } else {
            1
        };
        SoftmaxSpec {
            op,
            dtype,
            work,
            group,
            items,
            vec,
        }
    }

    /// Every spec the runtime can ask for with these types (for tests that compile them).
    pub(crate) fn all(dtype: DType, work: DType) -> Vec<SoftmaxSpec> {
        let mut out = Vec::new();
        for op in [RowOp::Softmax, RowOp::LogSoftmax, RowOp::Logsumexp] {
            let mut len = 1;
            while len <= MAX_ROW {
                for aligned in [false, true] {
                    let s = SoftmaxSpec::for_rows(op, dtype, work, len, aligned);
                    if !out.contains(&s) {
                        out.push(s);
                    }
                }
                len *= 2;
            }
        }
        out
    }
}

impl Family for SoftmaxSpec {
    fn headers(&self) -> &'static [&'static str] {
        &["special.cuh", "softmax.cuh"]
    }

    fn symbol(&self) -> String {
        emit::symbol(
            "softmax",
            self.op.name(),
            &[self.dtype],
            &[self.dtype],
            &[],
            &format!("g{}x{}v{}", self.group, self.items, self.vec),
            IndexWidth::I64,
        )
    }

    fn render(&self, src: &mut String) {
        emit::typedef(src, self.dtype.cuda_type(), "in0_t");
        emit::typedef(src, self.dtype.cuda_type(), "out0_t");
        emit::typedef(src, self.work.cuda_type(), "work_t");
        let params = [
            "const in0_t* p_in0",
            "out0_t* p_out0",
            "long long rows",
            "long long len",
        ]
        .map(String::from);
        emit::open(src, BLOCK, &self.symbol(), &params);
        let _ = writeln!(
            src,
            "    softmax_rows<{BLOCK}, {}, {}, {}, {}, work_t>(p_in0, p_out0, rows, (int)len);\n}}",
            self.group,
            self.items,
            self.op.mode(),
            self.vec
        );
    }
}

impl SoftmaxSpec {
    /// Launches the kernel `f` of this spec over `rows` rows of `len` elements.
    ///
    /// # Safety
    /// - `f` is the kernel compiled for this spec, `len` is at most `group * items` and a
    ///   multiple of `vec`, and both addresses are aligned to `vec` elements;
    /// - `input` holds `rows * len` elements of the spec's dtype, C-contiguous;
    /// - `output` holds `rows * len` elements (`rows` for logsumexp) that nothing else
    ///   reads or writes meanwhile.
    pub(crate) unsafe fn launch(
        &self,
        device: &Device,
        f: &Kernel,
        grid: u32,
        (input, output): (CUdeviceptr, CUdeviceptr),
        (rows, len): (usize, usize),
    ) -> Result<()> {
        let mut args = KernelArgs::new();
        args.ptr(input).ptr(output).i64(rows as i64).i64(len as i64);
        // SAFETY: arguments in the order of the wrapper's signature (input, output, rows,
        // len); the caller guarantees the buffers' extents and that `f` is this kernel.
        unsafe { args.launch(device, f, grid) }
    }
}
