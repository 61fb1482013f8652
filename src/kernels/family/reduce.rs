//! The reduce family (`reduce.cuh`): reductions over a set of axes, a warp or a block per
//! output row, or a thread per output (columns), with a pre-map, an operator with its
//! identity, and a post-map.
//!
//! Arguments: output (or partials), input, extra inputs (if any), aux input (if any),
//! the input along the reduced axes (if any), scalars, the kept and reduced `Indexer`s
//! of the input, then `n_out`, `n_red` and `splits` as `long long`; with `finish`, then
//! the partials (`acc_t*`) and the rows' counters (`unsigned int*`).
//!
//! Extra inputs (`in1`, `in2`, ... of types `in1_t`, ...; fused expressions) have the
//! input's layout: the pre-map reads them itself at the element's offset `o_`
//! (`const in1_t in1 = p_in1[o_];`).

use crate::element::DType;
use crate::kernels::abi::{KernelArgs, Scalar};
use crate::kernels::cache::Kernel;
use crate::kernels::emit::{self, lanes, pre_map, vector_load};
use crate::kernels::{Family, IndexWidth, KernelSpec, Text, TypeList};
use crate::{Device, Result};
use cudarc::driver::sys::CUdeviceptr;
use std::borrow::Cow;
use std::fmt::Write as _;

/// The value type an arg-reduction (argmax, argmin) carries beside its index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ArgValue {
    /// `long long` (signed integers and bool).
    I64,
    /// `unsigned long long` (unsigned integers).
    U64,
    /// `float` (f16, bf16, f32).
    F32,
    /// `double`.
    F64,
}

/// The accumulator type (`acc_t`) of a reduction or scan kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Acc {
    /// `int` (the logical reductions).
    Int,
    /// `long long`.
    I64,
    /// `unsigned long long`.
    U64,
    /// `float`.
    F32,
    /// `double`.
    F64,
    /// A value and the index where it was found (`cuarray_argacc<V>`).
    Arg(ArgValue),
    /// One element of a dtype not covered above (user kernels' declared reduce types;
    /// see [`Acc::of`]).
    Plain(DType),
}

impl ArgValue {
    /// The plain accumulator of the value.
    const fn plain(self) -> Acc {
        match self {
            ArgValue::I64 => Acc::I64,
            ArgValue::U64 => Acc::U64,
            ArgValue::F32 => Acc::F32,
            ArgValue::F64 => Acc::F64,
        }
    }
}

/// An accumulator's identity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Identity {
    /// 0.
    Zero,
    /// 1.
    One,
    /// The lowest value (-inf for floats): the identity of max.
    Lowest,
    /// The highest value (+inf for floats): the identity of min.
    Highest,
}

impl Acc {
    /// The accumulator holding one element of `d`: the arms above where one fits
    /// (`Int` for `i32`), else `Plain(d)`.
    pub(crate) const fn of(d: DType) -> Acc {
        match d {
            DType::I32 => Acc::Int,
            DType::I64 => Acc::I64,
            DType::U64 => Acc::U64,
            DType::F32 => Acc::F32,
            DType::F64 => Acc::F64,
            other => Acc::Plain(other),
        }
    }

    /// The CUDA type.
    pub(crate) const fn cuda_type(self) -> &'static str {
        match self {
            Acc::Plain(d) => d.cuda_type(),
            Acc::Int => "int",
            Acc::I64 => "long long",
            Acc::U64 => "unsigned long long",
            Acc::F32 => "float",
            Acc::F64 => "double",
            Acc::Arg(ArgValue::I64) => "cuarray_argacc<long long>",
            Acc::Arg(ArgValue::U64) => "cuarray_argacc<unsigned long long>",
            Acc::Arg(ArgValue::F32) => "cuarray_argacc<float>",
            Acc::Arg(ArgValue::F64) => "cuarray_argacc<double>",
        }
    }

    /// Bytes of one accumulator on the device (partial buffers).
    pub(crate) const fn size(self) -> usize {
        match self {
            Acc::Int | Acc::F32 => 4,
            Acc::I64 | Acc::U64 | Acc::F64 => 8,
            Acc::Arg(_) => 16,
            Acc::Plain(d) => d.size(),
        }
    }

    /// The identity `id` as an expression of type `acc_t`. An arg accumulator's identity
    /// carries the largest index, so that any element found wins ties against it.
    pub(crate) fn identity(self, id: Identity) -> Cow<'static, str> {
        let scalar = |acc: Acc| -> &'static str {
            match (acc, id) {
                (_, Identity::Zero) => "0",
                (_, Identity::One) => "1",
                (Acc::F32, Identity::Lowest) => "-__int_as_float(0x7f800000)",
                (Acc::F32, Identity::Highest) => "__int_as_float(0x7f800000)",
                (Acc::F64, Identity::Lowest) => "-__longlong_as_double(0x7ff0000000000000LL)",
                (Acc::F64, Identity::Highest) => "__longlong_as_double(0x7ff0000000000000LL)",
                (Acc::U64, Identity::Lowest) => "0ULL",
                (Acc::U64, Identity::Highest) => "18446744073709551615ULL",
                (Acc::I64, Identity::Lowest) => "(-9223372036854775807LL - 1)",
                (Acc::I64, Identity::Highest) => "9223372036854775807LL",
                (Acc::Int, Identity::Lowest) => "(-2147483647 - 1)",
                (Acc::Int, Identity::Highest) => "2147483647",
                (Acc::Arg(_), _) => unreachable!("arg accumulators are handled below"),
                // Through float: exact for 16-bit floats and small integers.
                (Acc::Plain(d), Identity::Lowest) if d.is_float() => "-__int_as_float(0x7f800000)",
                (Acc::Plain(d), Identity::Highest) if d.is_float() => "__int_as_float(0x7f800000)",
                (Acc::Plain(DType::Bool), Identity::Lowest) => "false",
                (Acc::Plain(DType::Bool), Identity::Highest) => "true",
                (Acc::Plain(DType::I8), Identity::Lowest) => "(-128)",
                (Acc::Plain(DType::I8), Identity::Highest) => "127",
                (Acc::Plain(DType::I16), Identity::Lowest) => "(-32768)",
                (Acc::Plain(DType::I16), Identity::Highest) => "32767",
                (Acc::Plain(_), Identity::Lowest) => "0",
                (Acc::Plain(DType::U8), Identity::Highest) => "255",
                (Acc::Plain(DType::U16), Identity::Highest) => "65535",
                (Acc::Plain(_), Identity::Highest) => "4294967295U",
            }
        };
        match self {
            Acc::Arg(v) => format!("cuarray_arg_identity<acc_t>({})", scalar(v.plain())).into(),
            acc => scalar(acc).into(),
        }
    }
}

/// How a reduction is laid out on the GPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Variant {
    /// A warp (`warp`) or a block per output row: `nk` kept and `nr` reduced collapsed
    /// dimensions.
    Rows {
        /// One warp per row instead of one block.
        warp: bool,
        /// Elements per vector load along the reduced dimension (1: scalar loads).
        vec: u8,
        /// Kept dimensions.
        nk: u8,
        /// Reduced dimensions.
        nr: u8,
    },
    /// A thread per output (per `vec` adjacent outputs).
    Cols {
        /// Adjacent outputs per thread, read as one vector (1: scalar).
        vec: u8,
        /// Kept dimensions.
        nk: u8,
        /// Reduced dimensions.
        nr: u8,
    },
}

/// One reduction kernel.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ReduceSpec {
    /// Op name, part of the kernel symbol.
    pub op: Text,
    /// Source placed after the typedefs, before the kernel (empty for built-in ops).
    pub preamble: Text,
    /// Pre-map: statements assigning the accumulator `a` from `in0`, the element's index
    /// `j` along the reduced axes and, with an aux input, the per-output value `k0`.
    pub pre: Text,
    /// Input element type (ignored with `partial_in`: the input holds accumulators).
    pub input: DType,
    /// Types of the extra inputs `p_in1, ...`, laid out as the input (same shape and
    /// strides in elements), read by the pre-map at the offset `o_`.
    pub extra: TypeList,
    /// Output element type.
    pub output: DType,
    /// Scalar parameter types (read by the post-map as `s0...`).
    pub scalars: TypeList,
    /// Accumulator type.
    pub acc: Acc,
    /// Identity of the operator, an expression of type `acc_t`.
    pub identity: Text,
    /// The operator: an expression in `a` and `b`, both `acc_t`.
    pub combine: Text,
    /// The operator where `b`'s elements all follow `a`'s and `a` holds elements (inside
    /// one vector load); empty: `combine`.
    pub combine_forward: Text,
    /// Post-map: statements assigning `out0` from the result `a` (and scalars `s0...`).
    pub post: Text,
    /// Input 0 holds partial accumulators of an earlier pass (`in0_t` is `acc_t`).
    pub partial_in: bool,
    /// Output 0 receives partial accumulators (no post-map).
    pub partial_out: bool,
    /// One launch for rows cut into `splits` pieces (rows variants only): each piece
    /// stores its partial in `p_part`, and the last piece of a row to finish, told by the
    /// row's counter in `p_sem` (zero before and after the launch), combines them and
    /// writes output 0.
    pub finish: bool,
    /// Type of the per-output aux input `k0`, if any.
    pub aux: Option<DType>,
    /// Type of an input of `n_red` contiguous elements read at the element's index along
    /// the reduced axes as `r0` (`const r0_t r0 = p_r0[j];`), if any: the vector of a
    /// matrix-vector product. With vector loads along rows it is read as vectors too
    /// (its address 16-byte aligned, its type the input's size).
    pub along: Option<DType>,
    /// Layout variant.
    pub variant: Variant,
    /// Index width.
    pub index: IndexWidth,
}

impl From<ReduceSpec> for KernelSpec {
    fn from(spec: ReduceSpec) -> KernelSpec {
        KernelSpec::new(spec)
    }
}

impl ReduceSpec {
    /// The CUDA type of the accumulator: an arg accumulator's index is 32-bit where the
    /// kernel's indices are and no accumulator leaves the launch (partials for another
    /// launch keep the 64-bit layout that `Acc::size` allocates for).
    fn acc_type(&self) -> Cow<'static, str> {
        match self.acc {
            Acc::Arg(_)
                if self.index == IndexWidth::I32 && !self.partial_in && !self.partial_out =>
            {
                let full = self.acc.cuda_type();
                format!("{}, int>", &full[..full.len() - 1]).into()
            }
            acc => acc.cuda_type().into(),
        }
    }

    /// With extra inputs: `const I o_ = <at>;`, the element's offset in every input (the
    /// vector loads of `loadv` and `loadc` run along a dimension of stride 1, so lane `e`
    /// is at `off + e`).
    fn offset(&self, src: &mut String, at: &str, pad: &str) {
        if !self.extra.is_empty() {
            let _ = writeln!(src, "{pad}const I o_ = {at};\n{pad}(void)o_;");
        }
    }

    /// With an input along the reduced axes: `const r0_t r0 = p_r0[j];`.
    fn along_scalar(&self, src: &mut String, pad: &str) {
        if self.along.is_some() {
            let _ = writeln!(src, "{pad}const r0_t r0 = p_r0[j];\n{pad}(void)r0;");
        }
    }
}

impl Family for ReduceSpec {
    fn headers(&self) -> &'static [&'static str] {
        &["reduce.cuh"]
    }

    fn symbol(&self) -> String {
        let variant = match self.variant {
            Variant::Rows { warp, vec, nk, nr } => {
                format!("{}{nk}x{nr}v{vec}", if warp { "w" } else { "b" })
            }
            Variant::Cols { vec, nk, nr } => format!("c{nk}x{nr}v{vec}"),
        };
        let family = if self.partial_in && self.partial_out {
            "red3"
        } else if self.partial_in {
            "red2"
        } else if self.partial_out {
            "red1"
        } else if self.finish {
            "redf"
        } else {
            "red"
        };
        let mut inputs = vec![self.input];
        inputs.extend_from_slice(self.extra.as_slice());
        inputs.extend(self.along);
        emit::symbol(
            family,
            &self.op,
            &inputs,
            &[self.output],
            self.scalars.as_slice(),
            &variant,
            self.index,
        )
    }

    fn render(&self, src: &mut String) {
        let idx = self.index.cuda_type();
        let aux = self.aux.is_some();
        let (rows, warp, vec, nk, nr) = match self.variant {
            Variant::Rows {
                warp, vec, nk, nr, ..
            } => (true, warp, vec.max(1), nk, nr),
            Variant::Cols { vec, nk, nr } => (false, false, vec.max(1), nk, nr),
        };
        emit::typedef(src, &self.acc_type(), "acc_t");
        if self.partial_in {
            emit::typedef(src, "acc_t", "in0_t");
        } else {
            emit::typedef(src, self.input.cuda_type(), "in0_t");
        }
        for (k, d) in self.extra.as_slice().iter().enumerate() {
            emit::typedef(src, d.cuda_type(), &format!("in{}_t", k + 1));
        }
        emit::typedef(src, self.output.cuda_type(), "out0_t");
        if let Some(aux) = self.aux {
            emit::typedef(src, aux.cuda_type(), "k0_t");
        }
        if let Some(along) = self.along {
            emit::typedef(src, along.cuda_type(), "r0_t");
        }
        emit::typedefs(src, "s", self.scalars.as_slice());
        if !self.preamble.is_empty() {
            // The input's own type, also in the pass that reads partial accumulators.
            emit::typedef(src, self.input.cuda_type(), "cuarray_in0_elem_t");
            src.push_str(&self.preamble);
            src.push('\n');
        }
        let mut params = vec![if self.partial_out {
            "acc_t* p_out0".to_string()
        } else {
            "out0_t* p_out0".to_string()
        }];
        params.push("const in0_t* p_in0".into());
        params.extend((1..=self.extra.len()).map(|k| format!("const in{k}_t* p_in{k}")));
        if aux {
            params.push("const k0_t* p_k0".into());
        }
        if self.along.is_some() {
            params.push("const r0_t* p_r0".into());
        }
        params.extend(emit::scalar_params(&self.scalars));
        params.push(format!("const Indexer<1, {nk}, {idx}> kept"));
        params.push(format!("const Indexer<1, {nr}, {idx}> red"));
        params.extend(["n_out_", "n_red_", "splits_"].map(|n| format!("const long long {n}")));
        if self.finish {
            params.extend(["acc_t* p_part".into(), "unsigned int* p_sem".into()]);
        }
        emit::open(src, self.block_threads(), &self.symbol(), &params);
        let _ = writeln!(src, "    typedef {idx} I;");
        let _ = writeln!(
            src,
            "    const I n_out = (I)n_out_, n_red = (I)n_red_, splits = (I)splits_;"
        );
        let _ = writeln!(src, "    (void)n_red;");
        let _ = writeln!(src, "    auto load = [&](I off, I j, I row) -> acc_t {{");
        let _ = writeln!(src, "        const in0_t in0 = p_in0[off];");
        self.along_scalar(src, "        ");
        self.offset(src, "off", "        ");
        pre_map(src, &self.pre, aux, "        ");
        let _ = writeln!(src, "        return a;\n    }};");
        let _ = writeln!(
            src,
            "    auto comb = [&](acc_t a, acc_t b) -> acc_t {{ return {}; }};",
            self.combine
        );
        let forward = if self.combine_forward.as_str().is_empty() {
            &self.combine
        } else {
            &self.combine_forward
        };
        let _ = writeln!(
            src,
            "    auto comb_fwd = [&](acc_t a, acc_t b) -> acc_t {{ return {forward}; }};"
        );
        // `vec` consecutive elements from one vector load, each pre-mapped, then combined
        // in order.
        let _ = writeln!(src, "    auto loadv = [&](I off, I jb, I row) -> acc_t {{");
        let in_bytes = if self.partial_in {
            0
        } else {
            self.input.size()
        };
        let once = vec > 1
            && matches!(in_bytes * vec as usize, 4 | 8 | 16)
            && (self.along.is_some() || !matches!(self.acc, Acc::Arg(_)));
        if once {
            // The input is read once (and never written by this kernel): its vectors
            // bypass L1, so that what is read again stays there (the vector `p_r0` of a
            // matrix-vector product, which every row reads: rows of 8192 f32 2790 -> 3260
            // GB/s, docs/design/matmul.md), and a stream moves faster (sum of 2^24 f32 22.7 -> 21.9
            // us without L1 allocation, docs/design/reduce.md). Arg accumulators keep
            // cached loads: with these their kernels take more registers, and argmax of
            // 2^28 f32 1% longer.
            emit::vector_load_once(src, "        ", "v", "in0_t", vec as usize, "p_in0 + off");
        } else {
            vector_load(src, "        ", "v", "in0_t", vec as usize, "p_in0 + off");
        }
        if self.along.is_some() {
            vector_load(src, "        ", "w", "r0_t", vec as usize, "p_r0 + jb");
        }
        let _ = writeln!(src, "        acc_t r;");
        lanes(src, "        ", vec as usize);
        let _ = writeln!(
            src,
            "            const in0_t in0 = v.v[e];\n            const I j = jb + e;"
        );
        if self.along.is_some() {
            let _ = writeln!(src, "            const r0_t r0 = w.v[e];");
        }
        self.offset(src, "off + e", "            ");
        pre_map(src, &self.pre, aux, "            ");
        let _ = writeln!(
            src,
            "            r = (e == 0) ? a : comb_fwd(r, a);\n        }}\n        return r;\n    }};"
        );
        // `vec` adjacent outputs' elements from one vector load, each pre-mapped (columns).
        let _ = writeln!(
            src,
            "    auto loadc = [&](acc_t (&x)[{vec}], I off, I j, I row0) {{"
        );
        vector_load(src, "        ", "v", "in0_t", vec as usize, "p_in0 + off");
        self.along_scalar(src, "        ");
        lanes(src, "        ", vec as usize);
        let _ = writeln!(
            src,
            "            const in0_t in0 = v.v[e];\n            const I row = row0 + e;"
        );
        self.offset(src, "off + e", "            ");
        pre_map(src, &self.pre, aux, "            ");
        let _ = writeln!(src, "            x[e] = a;\n        }}\n    }};");
        let _ = writeln!(src, "    auto fin = [&](I row, I split, acc_t a) {{");
        if self.partial_out {
            let at = if rows {
                "row * splits + split"
            } else {
                "split * n_out + row"
            };
            let _ = writeln!(src, "        p_out0[{at}] = a;");
        } else {
            let _ = writeln!(src, "        (void)split;");
            emit::post_map(src, &self.post, "        ");
            let _ = writeln!(src, "        p_out0[row] = out0;");
        }
        let _ = writeln!(src, "    }};");
        if rows {
            let part = if self.finish {
                "p_part, p_sem"
            } else {
                "(acc_t*)0, (unsigned int*)0"
            };
            let _ = writeln!(
                src,
                "    reduce_rows<{warp}, {}, {vec}, {nk}, {nr}, I, acc_t>(kept, red, n_out, n_red, splits, acc_t({}), load, loadv, comb, fin, {part});",
                self.finish, self.identity
            );
        } else {
            let _ = writeln!(
                src,
                "    reduce_cols<{vec}, {nk}, {nr}, I, acc_t>(kept, red, n_out, n_red, splits, acc_t({}), load, loadc, comb, fin);",
                self.identity
            );
        }
        let _ = writeln!(src, "}}");
    }
}

// ---- launch ---------------------------------------------------------------------------------

/// The arguments of one launch of a reduce kernel, as its wrapper takes them.
pub(crate) struct ReduceArgs<'a> {
    /// The output (or the partial accumulators a split pass writes).
    pub(crate) output: CUdeviceptr,
    /// The input (or the partial accumulators a combining pass reads).
    pub(crate) input: CUdeviceptr,
    /// Extra inputs laid out as the input (not passed when `partial_in`).
    pub(crate) extra: &'a [(CUdeviceptr, DType)],
    /// The auxiliary input (not passed when `partial_in`).
    pub(crate) aux: Option<CUdeviceptr>,
    /// The input read at the reduced index (not passed when `partial_in`).
    pub(crate) along: Option<CUdeviceptr>,
    /// The scalar parameters.
    pub(crate) scalars: &'a [Scalar],
    /// The kept dimensions and the input's strides along them.
    pub(crate) kept: (&'a [usize], &'a [isize]),
    /// The reduced dimensions and the input's strides along them.
    pub(crate) red: (&'a [usize], &'a [isize]),
    /// Outputs.
    pub(crate) n_out: usize,
    /// Elements reduced per output.
    pub(crate) n_red: usize,
    /// Pieces each output's reduction is split into.
    pub(crate) splits: usize,
    /// Index width of the Indexers.
    pub(crate) index: IndexWidth,
    /// The pass reads partial accumulators.
    pub(crate) partial_in: bool,
    /// One launch that combines its partials: the partials and the zeroed row counters.
    pub(crate) finish: Option<(CUdeviceptr, CUdeviceptr)>,
}

/// Launches the reduce kernel `f` on `grid` blocks with the arguments `a`.
///
/// # Safety
/// - `f` is the kernel compiled for the `ReduceSpec` these arguments were built for: its
///   dtypes, extra inputs, aux, along, scalars, `partial_in`, `finish`, index width and
///   variant (whose `nk` and `nr` are the lengths of `a.kept.0` and `a.red.0`);
/// - the offsets of the two Indexers (`n_out` kept positions, `n_red` reduced ones,
///   summed) stay inside the input's buffer from `a.input` and inside every extra
///   input's (laid out as the input), within `a.index`;
/// - `a.output` holds `n_out` elements (or `n_out * splits` accumulators for a split
///   pass); `aux` holds `n_out` elements and `along` `n_red`, C-contiguous;
/// - with `finish`, the partials hold `n_out * splits` accumulators and the counters
///   `n_out` zeroed u32 entries that no other launch uses at the same time.
pub(crate) unsafe fn launch_pass(
    device: &Device,
    f: &Kernel,
    grid: u32,
    a: &ReduceArgs<'_>,
) -> Result<()> {
    let mut args = KernelArgs::new();
    args.ptr(a.output).ptr(a.input);
    if !a.partial_in {
        for e in a.extra {
            args.ptr(e.0);
        }
    }
    if let (Some(aux), false) = (a.aux, a.partial_in) {
        args.ptr(aux);
    }
    if let (Some(along), false) = (a.along, a.partial_in) {
        args.ptr(along);
    }
    for s in a.scalars {
        args.scalar(s);
    }
    args.indexer(a.index, a.n_out, a.kept.0, &[a.kept.1]);
    args.indexer(a.index, a.n_red, a.red.0, &[a.red.1]);
    args.i64(a.n_out as i64)
        .i64(a.n_red as i64)
        .i64(a.splits as i64);
    if let Some((part, sem)) = a.finish {
        args.ptr(part).ptr(sem);
    }
    // SAFETY: arguments in the order of render_reduce's signature (output, input, extras,
    // aux, along, scalars, the two Indexers, n_out, n_red, splits, then part and sem with
    // `finish`); the caller guarantees (# Safety) that `f` is the kernel of these
    // arguments' spec, that the Indexers' offsets stay inside the input and the extra
    // inputs, that the output, aux and along hold what the pass reads and writes, and with
    // `finish` that the partials and the zeroed counters are the launch's own.
    unsafe { args.launch(device, f, grid) }
}
