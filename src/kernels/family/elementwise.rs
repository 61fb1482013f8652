//! The N-ary elementwise family (`elementwise.cuh`): any number of inputs and outputs
//! around one op body, in five layout variants.
//!
//! Wrapper arguments, in order: output pointers, input pointers, scalar values, then
//! `long long n` (contiguous variants) or `Indexer<NARG, NDIM, I>` by value (the others).
//!
//! The op body is C++ statements over the names `in0, in1, ...` (inputs, already loaded,
//! of types `in0_t, ...`), `out0, ...` (outputs, to assign, of types `out0_t, ...`),
//! `s0, ...` (scalar parameters) and `i` (the element's logical row-major index), as in
//! CuPy's `ElementwiseKernel`. An optional preamble (device functions, type names) goes
//! between the typedefs and the kernel.

use crate::kernels::abi::{KernelArgs, Scalar};
use crate::kernels::cache::Kernel;
use crate::kernels::emit::{self, vector_load};
use crate::kernels::Operand;
use crate::kernels::{Family, IndexWidth, KernelSpec, Text, TypeList, BLOCK};
use crate::shape::Collapsed;
use crate::{Device, Result};
use std::fmt::Write as _;

/// How the operands of an elementwise kernel are indexed.
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
    /// first) run fastest along the first dimension (e.g. a transposed view): tiles
    /// through shared memory.
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
    /// Any layouts: offsets from an `Indexer` over `ndim` collapsed dimensions.
    Strided {
        /// Number of collapsed dimensions (at least 1).
        ndim: u8,
    },
}

/// One elementwise kernel.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ElementwiseSpec {
    /// Op name, part of the kernel symbol (`[a-z0-9_]+`).
    pub op: Text,
    /// The op body.
    pub body: Text,
    /// Source placed after the typedefs, before the kernel (empty for built-in ops).
    pub preamble: Text,
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
}

impl From<ElementwiseSpec> for KernelSpec {
    fn from(spec: ElementwiseSpec) -> KernelSpec {
        KernelSpec::new(spec)
    }
}

/// Consecutive inner-dimension elements each thread of a strided kernel handles.
pub(crate) const STRIDED_CHUNK: usize = 4;

impl ElementwiseSpec {
    /// Tile edge of a `Tiled` kernel: 64 when the staged operands' tiles fit in 48 KiB of
    /// shared memory, else 32 (0 for the other variants).
    pub(crate) fn tile(&self) -> usize {
        let staged = match self.variant {
            Variant::Tiled { staged } => staged,
            _ => return 0,
        };
        let types = self.outputs.as_slice().iter().chain(self.inputs.as_slice());
        let bytes: usize = types
            .enumerate()
            .filter(|(k, _)| staged & (1 << k) != 0)
            .map(|(_, d)| d.size())
            .sum();
        if bytes * 64 * 65 <= 48 * 1024 {
            64
        } else {
            32
        }
    }

    /// The per-element statements at indentation `pad`: load inputs, run the body, store
    /// outputs. `at(slot)` is the element's place in operand `slot` (outputs first).
    fn element(&self, src: &mut String, at: &dyn Fn(usize) -> String, pad: &str) {
        let (nin, nout) = (self.inputs.len(), self.outputs.len());
        for k in 0..nin {
            let _ = writeln!(src, "{pad}const in{k}_t in{k} = p_in{k}[{}];", at(nout + k));
        }
        for k in 0..nout {
            let _ = writeln!(src, "{pad}out{k}_t out{k};");
        }
        let _ = writeln!(src, "{pad}(void)i;");
        let _ = writeln!(src, "{pad}{{ {} }}", self.body);
        for k in 0..nout {
            let _ = writeln!(src, "{pad}p_out{k}[{}] = out{k};", at(k));
        }
    }

    /// One vector's worth of elements: inputs from `input(k)` (an expression in `e`), the
    /// body per element, outputs gathered in vectors and stored at `base` (contiguous) or
    /// at the offset `out_at(k)` (strided).
    fn vector(
        &self,
        src: &mut String,
        vec: u8,
        base: &str,
        input: &dyn Fn(usize) -> String,
        out_at: &dyn Fn(usize) -> Option<String>,
    ) {
        let (nin, nout) = (self.inputs.len(), self.outputs.len());
        let _ = writeln!(src, "        {{");
        for k in 0..nout {
            let _ = writeln!(src, "            cuarray_vec<out{k}_t, {vec}> v_out{k};");
        }
        emit::lanes_unrolled(
            src,
            "            ",
            vec as usize,
            !emit::has_loop(&self.body),
        );
        let _ = writeln!(
            src,
            "                const I i = {base} + e;\n                (void)i;"
        );
        for k in 0..nin {
            let _ = writeln!(src, "                const in{k}_t in{k} = {};", input(k));
        }
        for k in 0..nout {
            let _ = writeln!(src, "                out{k}_t out{k};");
        }
        let _ = writeln!(src, "                {{ {} }}", self.body);
        for k in 0..nout {
            let _ = writeln!(src, "                v_out{k}.v[e] = out{k};");
        }
        let _ = writeln!(src, "            }}");
        for k in 0..nout {
            let at = out_at(k).unwrap_or_else(|| base.to_string());
            let _ = writeln!(
                src,
                "            *reinterpret_cast<cuarray_vec<out{k}_t, {vec}>*>(p_out{k} + {at}) = v_out{k};"
            );
        }
        let _ = writeln!(src, "        }}");
    }

    /// The body of a `Tiled` kernel (see `ew_tiled` in elementwise.cuh).
    fn tiled(&self, staged: u8, src: &mut String) {
        let tile = self.tile();
        let (nin, nout) = (self.inputs.len(), self.outputs.len());
        let is_staged = |slot: usize| staged & (1 << slot) != 0;
        let off = |slot: usize| format!("r * ix.strides[{slot}][0] + c * ix.strides[{slot}][1]");
        // Shared tiles, padded against bank conflicts.
        for k in 0..nout {
            if is_staged(k) {
                let _ = writeln!(
                    src,
                    "    __shared__ out{k}_t t_out{k}[{tile}][{}];",
                    tile + 1
                );
            }
        }
        for k in 0..nin {
            if is_staged(nout + k) {
                let _ = writeln!(src, "    __shared__ in{k}_t t_in{k}[{tile}][{}];", tile + 1);
            }
        }
        // Row-major inputs fetched into registers before the barrier, as many as fit
        // `TILED_FETCH_REGS` (an 8192^2 add with a transposed operand: 3060 -> 3810 GB/s,
        // docs/design/elementwise.md); the rest are read in the body.
        let slots = tile * tile / 256;
        let mut regs = 0;
        let fetched: Vec<bool> = (0..nin)
            .map(|k| {
                let cost = slots * self.inputs.as_slice()[k].size().div_ceil(4);
                let take = !is_staged(nout + k) && regs + cost <= TILED_FETCH_REGS;
                regs += if take { cost } else { 0 };
                take
            })
            .collect();
        for k in (0..nin).filter(|&k| fetched[k]) {
            let _ = writeln!(src, "    in{k}_t f_in{k}[{slots}];");
        }
        let staged_out = (0..nout).any(is_staged);
        let _ = writeln!(
            src,
            "    ew_tiled<{staged_out}, {tile}, I>(ix.shape[0], ix.shape[1],"
        );
        let _ = writeln!(src, "        [&](int x, int y, I r, I c) {{");
        for k in 0..nin {
            if is_staged(nout + k) {
                let _ = writeln!(
                    src,
                    "            t_in{k}[y][x] = p_in{k}[{}];",
                    off(nout + k)
                );
            }
        }
        let _ = writeln!(src, "        }},\n        [&](int s, I r, I c) {{");
        for k in (0..nin).filter(|&k| fetched[k]) {
            let _ = writeln!(src, "            f_in{k}[s] = p_in{k}[{}];", off(nout + k));
        }
        let _ = writeln!(
            src,
            "        }},\n        [&](int s, int x, int y, I r, I c) {{"
        );
        let _ = writeln!(
            src,
            "            const I i = r * ix.shape[1] + c;\n            (void)i; (void)s;"
        );
        for (k, &fetched) in fetched.iter().enumerate() {
            let load = if is_staged(nout + k) {
                format!("t_in{k}[x][y]")
            } else if fetched {
                format!("f_in{k}[s]")
            } else {
                format!("p_in{k}[{}]", off(nout + k))
            };
            let _ = writeln!(src, "            const in{k}_t in{k} = {load};");
        }
        for k in 0..nout {
            let _ = writeln!(src, "            out{k}_t out{k};");
        }
        let _ = writeln!(src, "            {{ {} }}", self.body);
        for k in 0..nout {
            if is_staged(k) {
                let _ = writeln!(src, "            t_out{k}[x][y] = out{k};");
            } else {
                let _ = writeln!(src, "            p_out{k}[{}] = out{k};", off(k));
            }
        }
        let _ = writeln!(src, "        }},\n        [&](int x, int y, I r, I c) {{");
        for k in 0..nout {
            if is_staged(k) {
                let _ = writeln!(src, "            p_out{k}[{}] = t_out{k}[y][x];", off(k));
            }
        }
        let _ = writeln!(src, "        }});");
    }
}

/// The 32-bit registers a thread of a `Tiled` kernel spends on row-major inputs fetched
/// ahead of the barrier (one f32 input of a 64 x 64 tile takes 16).
const TILED_FETCH_REGS: usize = 32;

impl Family for ElementwiseSpec {
    fn headers(&self) -> &'static [&'static str] {
        &["elementwise.cuh", "special.cuh"]
    }

    fn symbol(&self) -> String {
        let variant = match self.variant {
            Variant::Contiguous => "c".to_string(),
            Variant::Vectorized { vec } => format!("v{vec}"),
            Variant::Strided { ndim } => format!("s{ndim}"),
            Variant::Tiled { staged } => format!("t{staged:x}"),
            Variant::StridedVec { ndim, vec, bcast } => format!("s{ndim}v{vec}b{bcast:x}"),
        };
        emit::symbol(
            "ew",
            &self.op,
            self.inputs.as_slice(),
            self.outputs.as_slice(),
            self.scalars.as_slice(),
            &variant,
            self.index,
        )
    }

    fn render(&self, src: &mut String) {
        let (nin, nout) = (self.inputs.len(), self.outputs.len());
        let narg = nin + nout;
        let idx = self.index.cuda_type();
        emit::typedefs(src, "in", self.inputs.as_slice());
        emit::typedefs(src, "out", self.outputs.as_slice());
        emit::typedefs(src, "s", self.scalars.as_slice());
        if !self.preamble.is_empty() {
            src.push_str(&self.preamble);
            src.push('\n');
        }
        // Contiguous variants touch element i of every operand exactly once, so the
        // pointers may be declared non-aliasing (even for in-place ops, which read each
        // element before writing it at the same index). Tiled kernels may too: an input
        // that shares memory with an output has the output's layout (any other overlap is
        // read from a copy, `DeviceArray::source_for`), so it is read at the same (r, c),
        // by the thread that writes it, before the write. Without it the body's loads wait
        // behind the stores before them, one load in flight a thread (8192^2 add with a
        // transposed operand: docs/design/elementwise.md).
        let restrict = match self.variant {
            Variant::Contiguous | Variant::Vectorized { .. } | Variant::Tiled { .. } => {
                " __restrict__"
            }
            _ => "",
        };
        let mut params: Vec<String> = Vec::new();
        params.extend((0..nout).map(|k| format!("out{k}_t*{restrict} p_out{k}")));
        params.extend((0..nin).map(|k| format!("const in{k}_t*{restrict} p_in{k}")));
        params.extend(emit::scalar_params(&self.scalars));
        params.push(match self.variant {
            Variant::Contiguous | Variant::Vectorized { .. } => "const long long n".into(),
            Variant::Strided { ndim } | Variant::StridedVec { ndim, .. } => {
                format!("const Indexer<{narg}, {ndim}, {idx}> ix")
            }
            Variant::Tiled { .. } => format!("const Indexer<{narg}, 2, {idx}> ix"),
        });
        emit::open(src, BLOCK, &self.symbol(), &params);
        let _ = writeln!(src, "    typedef {idx} I;");
        match self.variant {
            Variant::Contiguous => {
                let _ = writeln!(src, "    ew_contiguous<I>((I)n, [&](I i) {{");
                self.element(src, &|_| "i".to_string(), "        ");
                let _ = writeln!(src, "    }});");
            }
            Variant::Vectorized { vec } => {
                let _ = writeln!(
                    src,
                    "    ew_vectorized<{vec}, I>((I)n, [&](I base_a, I base_b) {{"
                );
                for part in ["a", "b"] {
                    for k in 0..nin {
                        vector_load(
                            src,
                            "        ",
                            &format!("v{part}_in{k}"),
                            &format!("in{k}_t"),
                            vec as usize,
                            &format!("p_in{k} + base_{part}"),
                        );
                    }
                }
                for part in ["a", "b"] {
                    self.vector(
                        src,
                        vec,
                        &format!("base_{part}"),
                        &|k| format!("v{part}_in{k}.v[e]"),
                        &|_| None,
                    );
                }
                let _ = writeln!(src, "    }}, [&](I i) {{");
                self.element(src, &|_| "i".to_string(), "        ");
                let _ = writeln!(src, "    }});");
            }
            Variant::StridedVec { ndim, vec, bcast } => {
                let _ = writeln!(
                    src,
                    "    ew_strided_vec<{narg}, {ndim}, I, {vec}>(ix, [&](I i0, const I* o) {{"
                );
                let broadcast = |k: usize| bcast & (1 << (nout + k)) != 0;
                for k in 0..nin {
                    if broadcast(k) {
                        let _ = writeln!(
                            src,
                            "        const in{k}_t s_in{k} = p_in{k}[o[{}]];",
                            nout + k
                        );
                    } else {
                        vector_load(
                            src,
                            "        ",
                            &format!("v_in{k}"),
                            &format!("in{k}_t"),
                            vec as usize,
                            &format!("p_in{k} + o[{}]", nout + k),
                        );
                    }
                }
                self.vector(
                    src,
                    vec,
                    "i0",
                    &|k| {
                        if broadcast(k) {
                            format!("s_in{k}")
                        } else {
                            format!("v_in{k}.v[e]")
                        }
                    },
                    &|k| Some(format!("o[{k}]")),
                );
                let _ = writeln!(src, "    }});");
            }
            Variant::Strided { ndim } => {
                let _ = writeln!(
                    src,
                    "    ew_strided<{narg}, {ndim}, I, {STRIDED_CHUNK}>(ix, [&](I i, const I* o) {{"
                );
                self.element(src, &|slot| format!("o[{slot}]"), "        ");
                let _ = writeln!(src, "    }});");
            }
            Variant::Tiled { staged } => self.tiled(staged, src),
        }
        let _ = writeln!(src, "}}");
    }
}

// ---- launch ---------------------------------------------------------------------------------

impl ElementwiseSpec {
    /// Launches the kernel `f` of this spec over `size` elements: the output pointers,
    /// the input pointers and the scalars, then `n` (contiguous variants) or the Indexer
    /// of `collapsed` (the others), whose strides are those of `outs` then `ins` over the
    /// launch's shape.
    ///
    /// # Safety
    /// - `f` is the kernel compiled for this spec (`kernel(device, self)`), and `outs`,
    ///   `ins` and `scalars` match its output, input and scalar type lists in number and
    ///   dtype;
    /// - every operand has the launch's shape, of `size` elements;
    /// - contiguous variants: every operand is C-contiguous, and for `Vectorized { vec }`
    ///   every operand's first element is aligned to `vec` elements (as `refine` checks);
    /// - the other variants: `collapsed` is the plan of the operands' shape and strides,
    ///   outputs then inputs (`plan` / `order_and_collapse` of their layouts), within
    ///   `self.index`, with the alignment and broadcast pattern `refine` checked for a
    ///   `StridedVec` variant and the staged operands' shared tiles within 48 KiB for a
    ///   `Tiled` one.
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn launch(
        &self,
        device: &Device,
        f: &Kernel,
        grid: u32,
        outs: &[Operand<'_>],
        ins: &[Operand<'_>],
        scalars: &[Scalar],
        size: usize,
        collapsed: &Collapsed,
    ) -> Result<()> {
        let mut args = KernelArgs::new();
        for o in outs.iter().chain(ins) {
            args.ptr(o.ptr());
        }
        for s in scalars {
            args.scalar(s);
        }
        match self.variant {
            Variant::Contiguous | Variant::Vectorized { .. } => {
                args.i64(size as i64);
            }
            _ => {
                args.indexer(self.index, size, &collapsed.shape, &collapsed.strides);
            }
        }
        // SAFETY: arguments in the order of the elementwise wrapper's signature for this
        // spec: output pointers, input pointers, scalars, then `n` or the Indexer of
        // `collapsed`; every pointer is the first logical element of an `Operand`, whose
        // layout stays inside its live, borrowed buffer, and the caller guarantees
        // (# Safety) that `f` is this spec's kernel and that `size` / `collapsed` describe
        // those layouts, so the kernel's offsets stay inside them.
        unsafe { args.launch(device, f, grid) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::source;
    use crate::DType;

    fn spec(variant: Variant) -> ElementwiseSpec {
        ElementwiseSpec {
            op: "add".into(),
            body: "out0 = in0 + in1;".into(),
            preamble: Text::EMPTY,
            inputs: TypeList::new(&[DType::F16, DType::F16]),
            outputs: TypeList::new(&[DType::F16]),
            scalars: TypeList::new(&[DType::F64]),
            variant,
            index: IndexWidth::I64,
        }
    }

    #[test]
    fn strided_wrapper_is_well_formed() {
        let src = source(&spec(Variant::Strided { ndim: 3 }));
        assert!(src.contains("typedef cuarray_f16 in1_t;"));
        assert!(src.contains("cuarray_ew_add_f16f16_f16_f64_s3_i64("));
        assert!(src.contains("const Indexer<3, 3, long long> ix"));
        assert!(src.contains("const in0_t in0 = p_in0[o[1]];"));
        assert!(src.contains("const in1_t in1 = p_in1[o[2]];"));
        assert!(src.contains("p_out0[o[0]] = out0;"));
        assert_eq!(src.matches('{').count(), src.matches('}').count());
    }

    #[test]
    fn contiguous_wrapper_is_well_formed() {
        let src = source(&spec(Variant::Contiguous));
        assert!(src.contains("const long long n)"));
        assert!(src.contains("p_out0[i] = out0;"));
        assert!(src.starts_with("// cuarray common.cuh"));
        // The wrapper's first statement waits for the grid before it (dependent launch).
        assert!(src.contains("const long long n) {\n    cuarray_dependent_entry();\n"));
        assert!(crate::kernels::Family::dependent_launch(&spec(
            Variant::Contiguous
        )));
    }

    #[test]
    fn symbols_are_unique_per_spec() {
        let a = spec(Variant::Contiguous).symbol();
        let b = spec(Variant::Strided { ndim: 1 }).symbol();
        let mut c = spec(Variant::Contiguous);
        c.index = IndexWidth::I32;
        assert_ne!(a, b);
        assert_ne!(a, c.symbol());
    }

    #[test]
    fn elementwise_spec_example() {
        use crate::kernels::family::elementwise::{ElementwiseSpec, Variant};
        use crate::kernels::{IndexWidth, KernelSpec, TypeList};
        use crate::DType;
        let spec = ElementwiseSpec {
            op: "add".into(),
            body: "out0 = in0 + in1;".into(),
            preamble: "".into(),
            inputs: TypeList::new(&[DType::F32, DType::F32]),
            outputs: TypeList::new(&[DType::F32]),
            scalars: TypeList::new(&[]),
            variant: Variant::Contiguous,
            index: IndexWidth::I32,
        };
        let src = KernelSpec::from(spec).source();
        assert!(src.contains("void __launch_bounds__(256) cuarray_ew_add_f32f32_f32_c_i32("));
    }
}
