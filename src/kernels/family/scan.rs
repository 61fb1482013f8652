//! The scan family (`reduce.cuh`, `scan.cuh`): inclusive scans along one axis, in tiles
//! with decoupled look-back or a thread per row.
//!
//! Arguments: output, input, the rows' `Indexer<2, NK>` (input and output offsets),
//! `n_rows`, `len`, the input and output strides along the axis (all `long long`), then
//! for tiles the look-back state: flags, aggregates, inclusive prefixes and the tile
//! counter.

use super::reduce::Acc;
use crate::element::DType;
use crate::kernels::abi::KernelArgs;
use crate::kernels::cache::Kernel;
use crate::kernels::emit::{self, lanes, post_map, pre_map, vector_load};
use crate::kernels::Operand;
use crate::kernels::{Family, IndexWidth, KernelSpec, Text, BLOCK};
use crate::{Device, Result};
use cudarc::driver::sys::CUdeviceptr;
use std::fmt::Write as _;

/// Elements each thread of a tiled scan holds.
pub(crate) const SCAN_PER_THREAD: usize = 64;

/// Threads per block of a tiled scan (one tile per block: `SCAN_BLOCK * SCAN_PER_THREAD`
/// elements). 16 warps of 64 values each fill the register file with one block per SM.
pub(crate) const SCAN_BLOCK: usize = 512;

/// How a scan is laid out on the GPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Variant {
    /// Tiles with decoupled look-back: `vec` elements per vector access, `nk` kept (row)
    /// dimensions.
    Tiles {
        /// Elements per vector access along the scanned axis (1: scalar).
        vec: u8,
        /// Row dimensions.
        nk: u8,
    },
    /// A thread per row.
    Serial {
        /// Row dimensions.
        nk: u8,
    },
}

/// One scan kernel.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ScanSpec {
    /// Op name, part of the kernel symbol.
    pub(crate) op: Text,
    /// Pre-map: statements assigning the accumulator `a` from `in0` (and `j`, `row`).
    pub(crate) pre: Text,
    /// Input element type.
    pub(crate) input: DType,
    /// Output element type.
    pub(crate) output: DType,
    /// Accumulator type.
    pub(crate) acc: Acc,
    /// Identity of the operator, an expression of type `acc_t`.
    pub(crate) identity: Text,
    /// The operator: an expression in `a` and `b`, both `acc_t`.
    pub(crate) combine: Text,
    /// Post-map: statements assigning `out0` from `a`.
    pub(crate) post: Text,
    /// Layout variant.
    pub(crate) variant: Variant,
    /// Index width.
    pub(crate) index: IndexWidth,
}

impl From<ScanSpec> for KernelSpec {
    fn from(spec: ScanSpec) -> KernelSpec {
        KernelSpec::new(spec)
    }
}

impl Family for ScanSpec {
    fn headers(&self) -> &'static [&'static str] {
        &["reduce.cuh", "scan.cuh"]
    }

    fn block_threads(&self) -> u32 {
        match self.variant {
            Variant::Tiles { .. } => SCAN_BLOCK as u32,
            Variant::Serial { .. } => BLOCK,
        }
    }

    fn symbol(&self) -> String {
        let variant = match self.variant {
            Variant::Tiles { vec, nk } => format!("t{nk}v{vec}"),
            Variant::Serial { nk } => format!("s{nk}"),
        };
        emit::symbol(
            "scan",
            &self.op,
            &[self.input],
            &[self.output],
            &[],
            &variant,
            self.index,
        )
    }

    fn render(&self, src: &mut String) {
        let idx = self.index.cuda_type();
        let (tiles, vec, nk) = match self.variant {
            Variant::Tiles { vec, nk } => (true, vec.max(1) as usize, nk),
            Variant::Serial { nk } => (false, 1, nk),
        };
        emit::typedef(src, self.acc.cuda_type(), "acc_t");
        emit::typedef(src, self.input.cuda_type(), "in0_t");
        emit::typedef(src, self.output.cuda_type(), "out0_t");
        let mut params = vec![
            "out0_t* p_out0".to_string(),
            "const in0_t* p_in0".to_string(),
            format!("const Indexer<2, {nk}, {idx}> kept"),
        ];
        params.extend(["n_rows_", "len_", "sin_", "sout_"].map(|n| format!("const long long {n}")));
        if tiles {
            params.extend(
                [
                    "int* flags",
                    "acc_t* aggs",
                    "acc_t* incls",
                    "unsigned int* counter",
                ]
                .map(String::from),
            );
        }
        emit::open(src, self.block_threads(), &self.symbol(), &params);
        let _ = writeln!(src, "    typedef {idx} I;");
        let _ = writeln!(
            src,
            "    const I n_rows = (I)n_rows_, len = (I)len_, sin = (I)sin_, sout = (I)sout_;"
        );
        let _ = writeln!(src, "    const acc_t identity = acc_t({});", self.identity);
        let _ = writeln!(
            src,
            "    auto comb = [&](acc_t a, acc_t b) -> acc_t {{ return {}; }};",
            self.combine
        );
        let pre = |src: &mut String, pad: &str| pre_map(src, &self.pre, false, pad);
        let post = |src: &mut String, pad: &str| post_map(src, &self.post, pad);
        if tiles {
            let _ = writeln!(
                src,
                "    auto loadv = [&](acc_t (&v)[{vec}], I in_off, I jb, I row) {{"
            );
            if vec > 1 {
                let _ = writeln!(src, "        if (jb + {vec} <= len) {{");
                vector_load(
                    src,
                    "            ",
                    "x",
                    "in0_t",
                    vec,
                    "p_in0 + in_off + jb",
                );
                lanes(src, "            ", vec);
                let _ = writeln!(
                    src,
                    "                const in0_t in0 = x.v[e];\n                const I j = jb + e;"
                );
                pre(src, "                ");
                let _ = writeln!(
                    src,
                    "                v[e] = a;\n            }}\n            return;\n        }}"
                );
            }
            lanes(src, "        ", vec);
            let _ = writeln!(src, "            const I j = jb + e;");
            let _ = writeln!(
                src,
                "            if (j >= len) {{ v[e] = identity; continue; }}"
            );
            let _ = writeln!(
                src,
                "            const in0_t in0 = p_in0[in_off + j * sin];"
            );
            pre(src, "            ");
            let _ = writeln!(src, "            v[e] = a;\n        }}\n    }};");
            let _ = writeln!(
                src,
                "    auto storev = [&](acc_t (&v)[{vec}], I out_off, I jb) {{"
            );
            if vec > 1 {
                let _ = writeln!(
                    src,
                    "        if (jb + {vec} <= len) {{\n            cuarray_vec<out0_t, {vec}> y;"
                );
                lanes(src, "            ", vec);
                let _ = writeln!(src, "                const acc_t a = v[e];");
                post(src, "                ");
                let _ = writeln!(src, "                y.v[e] = out0;\n            }}");
                let _ = writeln!(src, "            *reinterpret_cast<cuarray_vec<out0_t, {vec}>*>(p_out0 + out_off + jb) = y;\n            return;\n        }}");
            }
            lanes(src, "        ", vec);
            let _ = writeln!(src, "            const I j = jb + e;\n            if (j >= len) continue;\n            const acc_t a = v[e];");
            post(src, "            ");
            let _ = writeln!(
                src,
                "            p_out0[out_off + j * sout] = out0;\n        }}\n    }};"
            );
            let _ = writeln!(
                src,
                "    scan_tiles<{}, {}, {vec}, {nk}, I, acc_t>(kept, n_rows, len, sin, sout, identity, loadv, comb, storev, flags, aggs, incls, counter);",
                SCAN_BLOCK / 32,
                SCAN_PER_THREAD / vec
            );
        } else {
            let _ = writeln!(src, "    auto load = [&](I off, I j, I row) -> acc_t {{\n        const in0_t in0 = p_in0[off];");
            pre(src, "        ");
            let _ = writeln!(src, "        return a;\n    }};");
            let _ = writeln!(src, "    auto store = [&](I off, acc_t a) {{");
            post(src, "        ");
            let _ = writeln!(src, "        p_out0[off] = out0;\n    }};");
            let _ = writeln!(src, "    scan_serial<{nk}, I, acc_t>(kept, n_rows, len, sin, sout, identity, load, comb, store);");
        }
        let _ = writeln!(src, "}}");
    }
}

// ---- launch ---------------------------------------------------------------------------------

/// The look-back state of a tiled scan, in a zeroed device buffer: the flags, aggregates
/// and inclusive prefixes (one entry per tile each) and the tile counter.
pub(crate) struct LookBack {
    /// Per-tile flags.
    pub(crate) flags: CUdeviceptr,
    /// Per-tile aggregates (`acc_t`).
    pub(crate) aggregates: CUdeviceptr,
    /// Per-tile inclusive prefixes (`acc_t`).
    pub(crate) inclusive: CUdeviceptr,
    /// The tile counter.
    pub(crate) counter: CUdeviceptr,
}

impl ScanSpec {
    /// Launches the scan kernel `f` of this spec: `n_rows` rows of `len` elements, their
    /// input and output offsets given by the kept dimensions `kept.0` with the input's
    /// strides `kept.1` and the output's `kept.2`, `sin` and `sout` the strides along the
    /// axis; a tiled variant also takes its zeroed look-back state.
    ///
    /// # Safety
    /// - `f` is the kernel compiled for this spec (`kernel(device, self)`), and the operands
    ///   are of its input and output dtypes;
    /// - for every row below `n_rows` of the kept dimensions `kept.0` (`self`'s `nk` of
    ///   them), its offset through `kept.1` plus `j * sin` for `j < len` stays inside
    ///   `input`'s buffer, and through `kept.2` plus `j * sout` inside `output`'s (views of
    ///   them, as `plan_scan` of the input's layout gives), within `self.index`; a
    ///   vectorized variant also needs the alignment `run` checks;
    /// - a tiled variant gets `look_back` (a serial one `None`): zeroed device memory no
    ///   other launch uses meanwhile, `flags` holding a u32 and `aggregates` and `inclusive`
    ///   an `acc_t` for each of the `n_rows * len.div_ceil(SCAN_TILE)` tiles, and `counter`
    ///   a u32.
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn launch(
        &self,
        device: &Device,
        f: &Kernel,
        grid: u32,
        output: &Operand<'_>,
        input: &Operand<'_>,
        kept: &(Vec<usize>, Vec<isize>, Vec<isize>),
        (n_rows, len, sin, sout): (usize, usize, isize, isize),
        look_back: Option<LookBack>,
    ) -> Result<()> {
        let mut args = KernelArgs::new();
        args.ptr(output.ptr()).ptr(input.ptr());
        args.indexer(self.index, n_rows, &kept.0, &[&kept.1, &kept.2]);
        args.i64(n_rows as i64)
            .i64(len as i64)
            .i64(sin as i64)
            .i64(sout as i64);
        if let Some(s) = look_back {
            args.ptr(s.flags)
                .ptr(s.aggregates)
                .ptr(s.inclusive)
                .ptr(s.counter);
        }
        // SAFETY: arguments in the order of render_scan's serial signature (output, input, the
        // Indexer, n_rows, len, sin, sout), or its tiled one with the look-back state after
        // them; the caller guarantees (# Safety) that `f` is this spec's kernel, that every
        // offset of the rows lies inside the input's and the output's buffers, and that the
        // look-back state is zeroed with an entry per tile and the counter.
        unsafe { args.launch(device, f, grid) }
    }
}
