//! The kernel library: specs, source generation, NVRTC compilation and caching.
//!
//! A [`KernelSpec`] names one kernel completely (family, op body, element types, layout
//! variant, index width). [`codegen::render`] turns it into CUDA source from the embedded
//! templates of `kernels/`; [`nvrtc`] compiles that source to CUBIN for the device's
//! architecture; [`cache`] keeps compiled kernels in memory per device and on disk.

pub(crate) mod abi;
pub mod cache;
pub mod codegen;
pub mod family_philox;
pub mod nvrtc;
pub(crate) mod sources;

use crate::element::DType;
use std::borrow::Cow;

/// Kernel families, each with its template header in `kernels/`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Family {
    /// N inputs, M outputs, one op body per element (`elementwise.cuh`).
    Elementwise,
    /// Reductions over a set of axes (`reduce.cuh`).
    Reduce,
    /// Inclusive scans along one axis (`scan.cuh`).
    Scan,
    /// Small matrix products (`matmul.cuh`); larger ones go to cuBLAS.
    Gemm,
    /// Random numbers from the Philox4x32-10 stream (`philox.cuh`; see
    /// [`family_philox`]).
    Random,
}

/// The parts of a reduction kernel besides its pre-map (which is the spec's `body`,
/// assigning the accumulator `a` from `in0`, the element's index `j` along the reduced
/// axes and, with an aux input, the per-output value `k0`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ReduceSpec {
    /// C++ accumulator type (`acc_t`).
    pub acc: Cow<'static, str>,
    /// Identity of the operator, an expression of type `acc_t`.
    pub identity: Cow<'static, str>,
    /// The operator: an expression in `a` and `b`, both `acc_t`.
    pub combine: Cow<'static, str>,
    /// Post-map: statements assigning `out0` from the result `a` (and scalars `s0...`).
    pub post: Cow<'static, str>,
    /// Input 0 holds partial accumulators of an earlier pass (`in0_t` is `acc_t`).
    pub partial_in: bool,
    /// Output 0 receives partial accumulators (no post-map).
    pub partial_out: bool,
    /// One launch for rows cut into `splits` pieces (reduce-rows variants only): each
    /// piece stores its partial in `p_part`, and the last piece of a row to finish, told
    /// by the row's counter in `p_sem` (zero before and after the launch), combines them
    /// and writes output 0.
    pub finish: bool,
    /// Type of the per-output aux input `k0`, if any.
    pub aux: Option<DType>,
}

/// How operands are indexed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Variant {
    /// Every operand contiguous: element `i` of each is at `ptr[i]`.
    Contiguous,
    /// Every operand contiguous and 16-byte aligned: `vec` elements per vector load.
    Vectorized {
        /// Elements per vector (16 bytes over the widest operand's element size).
        vec: u8,
    },
    /// Two collapsed dimensions where the operands in `staged` (bit k = operand k, outputs
    /// first) run fastest along the first dimension (e.g. a transposed view): 32 x 32
    /// tiles through shared memory.
    Tiled {
        /// Bit mask of the column-major operands.
        staged: u8,
    },
    /// Rows of contiguous (innermost stride 1, 16-byte aligned) or broadcast (innermost
    /// stride 0, bit set in `bcast`) operands: `vec` elements per thread, one vector load
    /// per contiguous operand.
    StridedVec {
        /// Number of collapsed dimensions (at least 1).
        ndim: u8,
        /// Elements per vector.
        vec: u8,
        /// Bit mask of the operands with innermost stride 0.
        bcast: u8,
    },
    /// Reduction, a warp (`warp`) or a block per output row: `nk` kept and `nr` reduced
    /// collapsed dimensions.
    ReduceRows {
        /// One warp per row instead of one block.
        warp: bool,
        /// Elements per vector load along the reduced dimension (1: scalar loads).
        vec: u8,
        /// Kept dimensions.
        nk: u8,
        /// Reduced dimensions.
        nr: u8,
    },
    /// Scan in tiles with decoupled look-back: `vec` elements per vector access, `nk`
    /// kept (row) dimensions.
    ScanTiles {
        /// Elements per vector access along the scanned axis (1: scalar).
        vec: u8,
        /// Row dimensions.
        nk: u8,
    },
    /// Scan, a thread per row.
    ScanSerial {
        /// Row dimensions.
        nk: u8,
    },
    /// Reduction, a thread per output (per `vec` adjacent outputs).
    ReduceCols {
        /// Adjacent outputs per thread, read as one vector (1: scalar).
        vec: u8,
        /// Kept dimensions.
        nk: u8,
        /// Reduced dimensions.
        nr: u8,
    },
    /// A stack of small matrix products at any strides, a thread per output element.
    GemmSmall,
    /// Any layouts: offsets from an `Indexer` over `ndim` collapsed dimensions.
    Strided {
        /// Number of collapsed dimensions (at least 1).
        ndim: u8,
    },
}

/// The integer type kernels index with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IndexWidth {
    /// 32-bit (`int`): chosen only when every offset provably fits.
    I32,
    /// 64-bit (`long long`).
    I64,
}

impl IndexWidth {
    /// The CUDA spelling.
    pub const fn cuda_type(self) -> &'static str {
        match self {
            IndexWidth::I32 => "int",
            IndexWidth::I64 => "long long",
        }
    }
    /// Short name for symbols.
    pub const fn name(self) -> &'static str {
        match self {
            IndexWidth::I32 => "i32",
            IndexWidth::I64 => "i64",
        }
    }
}

/// Most operands of one kernel: inputs + outputs.
pub const MAX_OPERANDS: usize = 8;
/// Most scalar parameters of one kernel.
pub const MAX_SCALARS: usize = 4;
/// Most collapsed dimensions a strided kernel indexes.
pub const MAX_DIMS: usize = 16;

/// A short list of dtypes, stored inline (no allocation on the hot path).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct TypeList {
    len: u8,
    items: [DType; MAX_OPERANDS],
}

impl TypeList {
    /// A list from a slice (at most [`MAX_OPERANDS`] entries).
    ///
    /// # Panics
    /// When `types` is longer than [`MAX_OPERANDS`] (a programming error in a caller that
    /// checked its operand count).
    #[track_caller]
    pub fn new(types: &[DType]) -> TypeList {
        assert!(types.len() <= MAX_OPERANDS, "too many kernel operands");
        let mut items = [DType::Bool; MAX_OPERANDS];
        items[..types.len()].copy_from_slice(types);
        TypeList {
            len: types.len() as u8,
            items,
        }
    }
    /// The types.
    pub fn as_slice(&self) -> &[DType] {
        &self.items[..self.len as usize]
    }
    /// Number of types.
    pub fn len(&self) -> usize {
        self.len as usize
    }
    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl std::fmt::Debug for TypeList {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

/// Everything that determines one compiled kernel.
///
/// The op body is C++ statements over the names `in0, in1, ...` (inputs, already loaded,
/// of types `in0_t, ...`), `out0, ...` (outputs, to assign, of types `out0_t, ...`),
/// `s0, ...` (scalar parameters) and `i` (the element's logical row-major index), as in
/// CuPy's `ElementwiseKernel`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct KernelSpec {
    /// The template family.
    pub family: Family,
    /// Op name, part of the kernel symbol (`[a-z0-9_]+`).
    pub op: Cow<'static, str>,
    /// The op body.
    pub body: Cow<'static, str>,
    /// Input element types.
    pub inputs: TypeList,
    /// Output element types.
    pub outputs: TypeList,
    /// Scalar parameter types.
    pub scalars: TypeList,
    /// Layout variant.
    pub variant: Variant,
    /// Index width.
    pub index: IndexWidth,
    /// The reduction's parts (family `Reduce` only).
    pub reduce: Option<ReduceSpec>,
}

impl KernelSpec {
    /// Threads per block the kernel is compiled for (its `__launch_bounds__`) and launched
    /// with.
    pub fn block_threads(&self) -> u32 {
        match self.variant {
            Variant::ScanTiles { .. } => codegen::SCAN_BLOCK as u32,
            _ => crate::ops::launch::BLOCK,
        }
    }

    /// The `extern "C"` symbol: `cuarray_{family}_{op}_{types}_{variant}_{index}`, so that
    /// profilers show what ran.
    pub fn symbol(&self) -> String {
        let types = |l: &TypeList| {
            l.as_slice()
                .iter()
                .map(|d| d.name())
                .collect::<Vec<_>>()
                .join("")
        };
        let variant = match self.variant {
            Variant::Contiguous => "c".to_string(),
            Variant::Vectorized { vec } => format!("v{vec}"),
            Variant::Strided { ndim } => format!("s{ndim}"),
            Variant::Tiled { staged } => format!("t{staged:x}"),
            Variant::StridedVec { ndim, vec, bcast } => format!("s{ndim}v{vec}b{bcast:x}"),
            Variant::ReduceRows { warp, vec, nk, nr } => {
                format!("{}{nk}x{nr}v{vec}", if warp { "w" } else { "b" })
            }
            Variant::ReduceCols { vec, nk, nr } => format!("c{nk}x{nr}v{vec}"),
            Variant::ScanTiles { vec, nk } => format!("t{nk}v{vec}"),
            Variant::ScanSerial { nk } => format!("s{nk}"),
            Variant::GemmSmall => "small".to_string(),
        };
        let fam = match self.family {
            Family::Elementwise => "ew",
            Family::Reduce => match &self.reduce {
                Some(r) if r.partial_in => "red2",
                Some(r) if r.partial_out => "red1",
                Some(r) if r.finish => "redf",
                _ => "red",
            },
            Family::Scan => "scan",
            Family::Gemm => "gemm",
            Family::Random => "rand",
        };
        let mut sym = format!(
            "cuarray_{fam}_{}_{}_{}",
            self.op,
            types(&self.inputs),
            types(&self.outputs)
        );
        if !self.scalars.is_empty() {
            sym.push('_');
            sym.push_str(&types(&self.scalars));
        }
        sym.push('_');
        sym.push_str(&variant);
        sym.push('_');
        sym.push_str(self.index.name());
        sym
    }
}

/// A representative set of kernels (the add, sub, mul and div of the common dtypes in
/// the variants contiguous arrays, broadcast rows and general views launch), for
/// [`Device::prewarm`](crate::Device::prewarm).
pub fn common_specs() -> Vec<KernelSpec> {
    use crate::ops::catalogue::BinaryOp;
    use crate::ops::elementwise::spec_for;
    let mut specs = Vec::new();
    for d in [DType::F32, DType::F64, DType::I32, DType::I64] {
        let vec = (16 / d.size()) as u8;
        for op in [BinaryOp::Add, BinaryOp::Sub, BinaryOp::Mul, BinaryOp::Div] {
            for v in [
                Variant::Vectorized { vec },
                Variant::Contiguous,
                Variant::StridedVec {
                    ndim: 2,
                    vec,
                    bcast: 0b100,
                },
                Variant::Strided { ndim: 2 },
            ] {
                specs.push(spec_for(
                    op.name(),
                    op.body(),
                    &[d, d],
                    &[d],
                    &[],
                    v,
                    IndexWidth::I32,
                ));
            }
        }
    }
    specs
}
