//! The select family (`kernels/select.cuh`, after `sort.cuh`): stream compaction in two
//! launches, a count per tile (`Count`) and, once the total is known, the selected
//! elements or their coordinates in order (`Write`).
//!
//! Wrapper arguments, in order:
//! - `Count`: `const F* f, Indexer<2, ND, I> ix, long long n, unsigned int* counts`;
//! - `Write`: `const F* f, const V* v, Indexer<2, ND, I> ix, long long n, const unsigned
//!   long long* incl, O* out, Indexer<1, NDL, I> coords, long long sk`.
//!
//! One tile of [`TILE`] elements per block of [`THREADS`] threads.

use crate::element::DType;
use crate::kernels::abi::KernelArgs;
use crate::kernels::cache::Kernel;
use crate::kernels::emit;
use crate::kernels::Operand;
use crate::kernels::{Family, IndexWidth, KernelSpec};
use crate::{Device, Result};
use std::fmt::Write as _;

/// Threads per block.
pub(crate) const THREADS: usize = 256;
/// Elements per thread.
pub(crate) const IPT: usize = 16;
/// Elements per tile (one block).
pub(crate) const TILE: usize = THREADS * IPT;

/// What selects an element.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Flag {
    /// The flag operand is non-zero.
    NonZero,
    /// A sorted 1-D array's first element or one that differs from the one before it.
    Distinct,
}

/// What is written for a selected element.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Out {
    /// The element of the value operand (dtype `value`).
    Values,
    /// Its coordinates (`long long`) over `ndl` dimensions.
    Coords {
        /// Dimensions of the coordinates.
        ndl: u8,
    },
}

/// One kernel of the select family.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SelectSpec {
    /// `false`: the count; `true`: the write.
    pub(crate) write: bool,
    /// The flag.
    pub(crate) flag: Flag,
    /// The flag operand's type.
    pub(crate) flag_dtype: DType,
    /// The value operand's type (`Out::Values`; else unused, the flag's type).
    pub(crate) value_dtype: DType,
    /// What is written.
    pub(crate) out: Out,
    /// Dimensions of the flag and value operands.
    pub(crate) nd: u8,
    /// Index width.
    pub(crate) index: IndexWidth,
}

impl From<SelectSpec> for KernelSpec {
    fn from(spec: SelectSpec) -> KernelSpec {
        KernelSpec::new(spec)
    }
}

impl Family for SelectSpec {
    fn headers(&self) -> &'static [&'static str] {
        &["sort.cuh", "select.cuh"]
    }

    fn block_threads(&self) -> u32 {
        THREADS as u32
    }

    fn symbol(&self) -> String {
        let flag = match self.flag {
            Flag::NonZero => "nz",
            Flag::Distinct => "distinct",
        };
        let (op, outs, variant) = if self.write {
            match self.out {
                Out::Values => ("write", vec![self.value_dtype], format!("d{}", self.nd)),
                Out::Coords { ndl } => ("coords", vec![DType::I64], format!("d{}c{ndl}", self.nd)),
            }
        } else {
            ("count", vec![], format!("d{}", self.nd))
        };
        emit::symbol(
            "select",
            &format!("{op}_{flag}"),
            &[self.flag_dtype],
            &outs,
            &[],
            &variant,
            self.index,
        )
    }

    fn render(&self, src: &mut String) {
        let idx = self.index.cuda_type();
        let nd = self.nd;
        let mode = match self.flag {
            Flag::NonZero => 0,
            Flag::Distinct => 1,
        };
        emit::typedef(src, self.flag_dtype.cuda_type(), "flag_t");
        let sym = self.symbol();
        if !self.write {
            let params = [
                "const flag_t* f".to_string(),
                format!("const Indexer<2, {nd}, {idx}> ix"),
                "const long long n".to_string(),
                "unsigned int* counts".to_string(),
            ];
            emit::open(src, THREADS as u32, &sym, &params);
            let _ = writeln!(
                src,
                "    typedef {idx} I;\n    select_count<flag_t, {mode}, {THREADS}, {IPT}, {nd}, I>(f, ix, (I)n, counts);\n}}"
            );
            return;
        }
        let (val, out, out_mode, ndl) = match self.out {
            Out::Values => (
                self.value_dtype.cuda_type(),
                self.value_dtype.cuda_type(),
                0,
                1,
            ),
            Out::Coords { ndl } => (self.flag_dtype.cuda_type(), "long long", 1, ndl.max(1)),
        };
        emit::typedef(src, val, "val_t");
        emit::typedef(src, out, "out_t");
        let params = [
            "const flag_t* f".to_string(),
            "const val_t* v".to_string(),
            format!("const Indexer<2, {nd}, {idx}> ix"),
            "const long long n".to_string(),
            "const unsigned long long* incl".to_string(),
            "out_t* out".to_string(),
            format!("const Indexer<1, {ndl}, {idx}> coords"),
            "const long long sk".to_string(),
        ];
        emit::open(src, THREADS as u32, &sym, &params);
        let _ = writeln!(
            src,
            "    typedef {idx} I;\n    select_write<flag_t, val_t, out_t, {mode}, {out_mode}, {THREADS}, {IPT}, {nd}, {ndl}, I>(f, v, ix, (I)n, incl, out, coords, (I)sk);\n}}"
        );
    }
}

/// Every kernel of the family for flag operands of `dtype`: counts and writes of values
/// (masked_select of `dtype` by a bool mask, and by itself), coordinates, and unique.
pub fn specs_for(dtype: DType) -> Vec<SelectSpec> {
    // Complex numbers have no order here (these kernels take the real types and bool).
    if dtype.is_complex() {
        return Vec::new();
    }
    let base = SelectSpec {
        write: false,
        flag: Flag::NonZero,
        flag_dtype: dtype,
        value_dtype: dtype,
        out: Out::Values,
        nd: 1,
        index: IndexWidth::I32,
    };
    vec![
        base.clone(),
        SelectSpec {
            nd: 2,
            index: IndexWidth::I64,
            ..base.clone()
        },
        SelectSpec {
            write: true,
            ..base.clone()
        },
        SelectSpec {
            write: true,
            flag_dtype: DType::Bool,
            nd: 3,
            ..base.clone()
        },
        SelectSpec {
            write: true,
            out: Out::Coords { ndl: 3 },
            ..base.clone()
        },
        SelectSpec {
            flag: Flag::Distinct,
            ..base.clone()
        },
        SelectSpec {
            write: true,
            flag: Flag::Distinct,
            out: Out::Coords { ndl: 1 },
            ..base.clone()
        },
        SelectSpec {
            write: true,
            flag: Flag::Distinct,
            ..base
        },
    ]
}

// ---- launches ------------------------------------------------------------------------------

impl SelectSpec {
    /// Launches the `Count` kernel `k` of this spec: one block per tile of the `n` flags
    /// of `f` (collapsed `dims`, `strides[0]` of `f`), each writing its tile's count of
    /// selected elements into its entry of the u32 `counts` (`tiles` entries).
    ///
    /// # Safety
    /// - `k` is the kernel compiled for this spec (`kernel(device, self)`) and `f` is of its
    ///   flag dtype;
    /// - `dims` has `self.nd` dimensions of product `n`, and for every position of it the
    ///   offset through `strides[0]` stays inside `f`'s buffer, within `self.index`;
    /// - `tiles` is `n.div_ceil(TILE)` and `counts` holds `tiles` u32 entries from its
    ///   first.
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn launch_count(
        &self,
        device: &Device,
        k: &Kernel,
        tiles: u32,
        f: &Operand<'_>,
        (dims, strides): (&[usize], &[Vec<isize>]),
        n: usize,
        counts: &Operand<'_>,
    ) -> Result<()> {
        let mut args = KernelArgs::new();
        args.ptr(f.ptr())
            .indexer(self.index, n, dims, strides)
            .i64(n as i64)
            .ptr(counts.ptr());
        // SAFETY: arguments in the order the Count wrapper declares them (f, the Indexer, n,
        // counts); the caller guarantees (# Safety) that `k` is this spec's kernel, that the
        // flag offsets of flat indices below n lie inside `f` and that `counts` has `tiles`
        // entries; one block per tile, each writing its own entry.
        unsafe { args.launch(device, k, tiles) }
    }

    /// Launches the `Write` kernel `k` of this spec: one block per tile, writing the
    /// selected elements of `v` (`Out::Values`) or the coordinates of the selected flags
    /// (`Out::Coords`) in order into `out`, with `incl` (u64, `tiles`) the inclusive sum
    /// of the tile counts. `coords` is `(shape, sk, sd)` for coordinates: result r's
    /// coordinate d at `r * sk + d * sd` of `out`.
    ///
    /// # Safety
    /// - `k` is the kernel compiled for this spec (`kernel(device, self)`), `f` is of its
    ///   flag dtype and `v` of its value dtype;
    /// - `dims` has `self.nd` dimensions of product `n`, and for every position of it the
    ///   offsets through `strides[0]` and `strides[1]` stay inside `f`'s and `v`'s buffers,
    ///   within `self.index`;
    /// - `tiles` is `n.div_ceil(TILE)`; `incl` holds `tiles` u64 entries, the inclusive sums
    ///   of the tile counts the `Count` kernel of the same flags wrote (finished before this
    ///   launch on the stream);
    /// - `out` holds the total of those counts from its first (values), or, with `coords`
    ///   `(shape, sk, sd)` (`shape.len() <= MAX_DIMS`), every `r * sk + d * sd` for r below
    ///   the total and d below `shape.len().max(1)` lies inside it.
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn launch_write(
        &self,
        device: &Device,
        k: &Kernel,
        tiles: u32,
        f: &Operand<'_>,
        v: &Operand<'_>,
        (dims, strides): (&[usize], &[Vec<isize>]),
        n: usize,
        incl: &Operand<'_>,
        out: &Operand<'_>,
        coords: Option<(&[usize], usize, usize)>,
    ) -> Result<()> {
        let mut args = KernelArgs::new();
        args.ptr(f.ptr())
            .ptr(v.ptr())
            .indexer(self.index, n, dims, strides)
            .i64(n as i64)
            .ptr(incl.ptr())
            .ptr(out.ptr());
        match coords {
            None => {
                args.indexer(self.index, 1, &[1], &[[0isize]]).i64(1);
            }
            Some((shape, sk, sd)) => {
                let shape: Vec<usize> = if shape.is_empty() {
                    vec![1]
                } else {
                    shape.to_vec()
                };
                let st: Vec<isize> = (0..shape.len()).map(|d| (d * sd) as isize).collect();
                args.indexer(self.index, n, &shape, &[st]).i64(sk as i64);
            }
        }
        // SAFETY: arguments in the order the Write wrapper declares them (f, v, the Indexer,
        // n, incl, out, the coordinates' Indexer, sk); one block per tile, each writing the
        // positions from the sum before it; the caller guarantees (# Safety) that `k` is this
        // spec's kernel, that the operands' offsets lie inside their buffers, that `incl`
        // holds the inclusive sums of the tile counts and that `out` holds their total.
        unsafe { args.launch(device, k, tiles) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::source;

    #[test]
    fn specs_render() {
        let mut symbols = std::collections::HashSet::new();
        for d in DType::ALL {
            for spec in specs_for(d) {
                let src = source(&spec);
                let sym = spec.symbol();
                assert!(src.contains(&format!(" {sym}(")), "{sym}");
                assert_eq!(src.matches('{').count(), src.matches('}').count(), "{sym}");
                assert!(symbols.insert(sym));
            }
        }
    }
}
