//! The ndimage family (`kernels/ndimage.cuh`): the filters of [`crate::ndimage`].
//!
//! Two kernel shapes, both with the boundary mode and `cval` as run-time arguments (one
//! kernel serves every mode):
//!
//! - a line pass (`nd_line`): a 1-d filter of K taps along one axis of a C-contiguous
//!   array seen as `(outer, n, inner)`, through tiles in shared memory. Arguments: `const
//!   in_t* in, out_t* out, long long outer, long long n, long long inner, long long k,
//!   long long start, long long mode, double cval, nd_taps taps, const double* wp`
//!   (`taps` by value up to 128 taps, else `wp`); dynamic shared memory as
//!   [`NdSpec::line_shared`] says.
//! - an n-d window (`nd_window`), a thread an output: arguments `const in_t* in, out_t*
//!   out, nd_geom g, const double* weights, const bool* footprint, long long mode, double
//!   cval`.
//!
//! - binary erosion and dilation of a 2-D bool image by a structure of at most 3 x 3
//!   (`nd_binary3`), sixteen bytes a thread: arguments `const in_t* in, out_t* out, long
//!   long h, long long w, long long bits, long long border`.
//!
//! Block: 256 threads; grid-stride loops, so any grid runs every output.

use crate::element::DType;
use crate::kernels::emit;
use crate::kernels::{Family, IndexWidth, KernelSpec, BLOCK};
use std::fmt::Write as _;

/// Taps a line pass takes by value (`ND_TAPS` in ndimage.cuh).
pub(crate) const TAPS: usize = 128;
/// Largest rank of an n-d window (`ND_MAX_RANK`).
pub(crate) const MAX_RANK: usize = 8;
/// Most window elements a rank filter selects among (`ND_RANK_MAX`).
pub(crate) const RANK_MAX: usize = 256;
/// Ranks the resampling kernels are specialised for (larger ones take the run-time rank).
pub(crate) const INTERP_RANKS: usize = 2;

/// The ranks the window kernel is specialised for (32-bit indices, unrolled axis loops);
/// higher ranks, and arrays of 2^31 elements or more, take the run-time rank.
pub(crate) const WINDOW_RANKS: u8 = 3;
/// Most window elements a selection network ([`NdShape::Select`]) takes.
pub(crate) const NET_MAX: usize = 64;
/// Largest rank of a selection network's window.
pub(crate) const NET_MAX_RANK: usize = 3;

/// What a filter computes over its window (`ND_SUM` .. `ND_RANK`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum WindowOp {
    /// A weighted sum (correlation).
    Sum = 0,
    /// The mean: the sum divided by the tap count.
    Mean = 1,
    /// The minimum.
    Min = 2,
    /// The maximum.
    Max = 3,
    /// The k-th smallest (n-d windows only).
    Rank = 4,
}

impl WindowOp {
    fn name(self) -> &'static str {
        match self {
            WindowOp::Sum => "sum",
            WindowOp::Mean => "mean",
            WindowOp::Min => "min",
            WindowOp::Max => "max",
            WindowOp::Rank => "rank",
        }
    }
}

/// The kernel's shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum NdShape {
    /// A line pass; `wx` threads across lines in a block (32, 1, or 0 for no tile).
    Line {
        /// 32: the axis is not the last; 1: it is; 0: untiled.
        wx: u8,
    },
    /// An n-d window, a thread an output (`nd_window<..., RANK>`).
    Window {
        /// The rank, compile-time (1 to [`WINDOW_RANKS`], 32-bit element indices), or 0:
        /// any rank up to [`MAX_RANK`], read at run time (64-bit indices).
        rank: u8,
    },
    /// A rank filter over a box window of `count` elements (at most [`NET_MAX`]) of an
    /// array of rank `rank` (at most [`NET_MAX_RANK`]), a thread an output: the window in
    /// registers, then the comparators of a sorting network that the `kth` smallest
    /// depends on ([`select_network`]).
    Select {
        /// The rank of the array and window.
        rank: u8,
        /// The window's element count.
        count: u8,
        /// The element selected (0 is the smallest).
        kth: u8,
    },
    /// Binary erosion ([`WindowOp::Min`]) or dilation ([`WindowOp::Max`]) of a 2-D bool
    /// image by a structure of at most 3 x 3 passed as nine bits (`nd_binary3<OP>`).
    Binary3,
    /// A step of connected-component labelling (`nd_label<STEP>`, 0..=4).
    Label {
        /// The step.
        step: u8,
    },
    /// A pass of the exact Euclidean distance transform along one axis.
    Edt,
    /// A per-label measurement (`nd_measure<in_t, WHAT>`, 0..=4).
    Measure {
        /// What is gathered.
        what: u8,
    },
    /// Resampling (`nd_interp<in_t, out_t, AFFINE, ORDER, RANK>`).
    Interp {
        /// Coordinates from an affine map of the output index (else from an array).
        affine: bool,
        /// The spline order (0 to 5; from 2 on, the input is the prefiltered f64
        /// coefficients).
        order: u8,
        /// The rank, compile-time (1 to [`INTERP_RANKS`], 32-bit element indices), or 0:
        /// any rank up to [`MAX_RANK`], read at run time (64-bit indices).
        rank: u8,
    },
}

/// One ndimage kernel.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct NdSpec {
    pub(crate) shape: NdShape,
    pub(crate) op: WindowOp,
    /// The element type read.
    pub(crate) input: DType,
    /// The element type written.
    pub(crate) output: DType,
}

impl From<NdSpec> for KernelSpec {
    fn from(spec: NdSpec) -> KernelSpec {
        KernelSpec::new(spec)
    }
}

impl NdSpec {
    /// The type values are combined in: `float` for 16- and 32-bit floats, else `double`.
    pub(crate) fn acc(&self) -> DType {
        match (self.input, self.output) {
            (DType::F16 | DType::BF16 | DType::F32, DType::F16 | DType::BF16 | DType::F32) => {
                DType::F32
            }
            _ => DType::F64,
        }
    }

    /// Outputs a line-pass block computes along the axis (`TA` in `nd_line`).
    pub(crate) fn line_tile(wx: u8) -> usize {
        match wx {
            1 => 256 * 4,
            0 => 0,
            w => (256 / w as usize) * 8,
        }
    }

    /// Bytes of dynamic shared memory a line pass of `k` taps uses.
    pub(crate) fn line_shared(&self, k: usize) -> usize {
        let NdShape::Line { wx } = self.shape else {
            return 0;
        };
        let taps = if self.op == WindowOp::Sum {
            (k + 1) & !1
        } else {
            0
        };
        let tile = if wx == 0 {
            0
        } else {
            (Self::line_tile(wx) + k - 1) * wx as usize
        };
        (taps + tile) * self.acc().size()
    }
}

/// Every ndimage kernel for one element type (input and output alike): each line shape
/// with each line op, and each window op.
pub fn specs_for(dtype: DType) -> Vec<NdSpec> {
    let mut v = Vec::new();
    for wx in [0u8, 1, 32] {
        for op in [WindowOp::Sum, WindowOp::Mean, WindowOp::Min, WindowOp::Max] {
            v.push(NdSpec {
                shape: NdShape::Line { wx },
                op,
                input: dtype,
                output: dtype,
            });
        }
    }
    for op in [WindowOp::Sum, WindowOp::Min, WindowOp::Max, WindowOp::Rank] {
        for rank in 0..=WINDOW_RANKS {
            v.push(NdSpec {
                shape: NdShape::Window { rank },
                op,
                input: dtype,
                output: dtype,
            });
        }
    }
    for (rank, count) in [(1, 7), (2, 9), (2, 25), (3, 27), (2, NET_MAX)] {
        v.push(select_spec(dtype, rank, count, count / 2));
    }
    v.push(select_spec(dtype, 2, 25, 1));
    for what in 0..5 {
        v.push(measure_spec(dtype, what));
    }
    for affine in [false, true] {
        for order in 0..6 {
            // Every specialised rank for the float types; one for the rest (the
            // template is the same).
            for rank in 0..=INTERP_RANKS {
                if rank == 0 || rank == 2 || matches!(dtype, DType::F32 | DType::F64) {
                    v.push(interp_spec(dtype, affine, order, rank));
                }
            }
        }
    }
    if dtype == DType::Bool {
        v.extend([WindowOp::Min, WindowOp::Max].map(binary3_spec));
        v.extend((0..5).map(label_spec));
        v.push(edt_spec());
    }
    v
}

/// Binary erosion (`op` [`WindowOp::Min`]) or dilation ([`WindowOp::Max`]) by a structure
/// of at most 3 x 3 (`NdShape::Binary3`).
pub(crate) fn binary3_spec(op: WindowOp) -> NdSpec {
    debug_assert!(matches!(op, WindowOp::Min | WindowOp::Max));
    NdSpec {
        shape: NdShape::Binary3,
        op,
        input: DType::Bool,
        output: DType::Bool,
    }
}

/// The rank filter of a box window of `count` elements (`count <= NET_MAX`) on arrays of
/// `rank` (`1..=NET_MAX_RANK`) selecting the `kth` smallest.
pub(crate) fn select_spec(dtype: DType, rank: usize, count: usize, kth: usize) -> NdSpec {
    debug_assert!((1..=NET_MAX_RANK).contains(&rank) && count <= NET_MAX && kth < count);
    NdSpec {
        shape: NdShape::Select {
            rank: rank as u8,
            count: count as u8,
            kth: kth as u8,
        },
        op: WindowOp::Rank,
        input: dtype,
        output: dtype,
    }
}

/// The comparators `(a, b)` (`a < b`: the smaller value goes to `a`) of Batcher's odd-even
/// merge sort of `n` values that position `k` depends on, in order: after them, position
/// `k` holds the `k`-th smallest. Comparators with an end at or past `n` are dropped (the
/// network of the next power of two with infinite values there, which never move).
pub(crate) fn select_network(n: usize, k: usize) -> Vec<(usize, usize)> {
    let mut all = Vec::new();
    let mut p = 1;
    while p < n {
        let mut kk = p;
        while kk >= 1 {
            let mut j = kk % p;
            while j + kk < n {
                for i in 0..kk.min(n - j - kk) {
                    if (i + j) / (2 * p) == (i + j + kk) / (2 * p) {
                        all.push((i + j, i + j + kk));
                    }
                }
                j += 2 * kk;
            }
            kk /= 2;
        }
        p *= 2;
    }
    // Backwards from position k: a comparator matters when either end is still needed,
    // and then both of its inputs are.
    let mut need = vec![false; n.max(1)];
    if k < n {
        need[k] = true;
    }
    let mut kept: Vec<(usize, usize)> = all
        .into_iter()
        .rev()
        .filter(|&(a, b)| {
            let keep = need[a] || need[b];
            if keep {
                need[a] = true;
                need[b] = true;
            }
            keep
        })
        .collect();
    kept.reverse();
    kept
}

/// Step `step` of connected-component labelling.
pub(crate) fn label_spec(step: u8) -> NdSpec {
    NdSpec {
        shape: NdShape::Label { step },
        op: WindowOp::Sum,
        input: DType::Bool,
        output: DType::I32,
    }
}

/// A pass of the distance transform.
pub(crate) fn edt_spec() -> NdSpec {
    NdSpec {
        shape: NdShape::Edt,
        op: WindowOp::Sum,
        input: DType::F64,
        output: DType::F64,
    }
}

/// Resampling into an array of `dtype`: from an array of `dtype` at orders 0 and 1, from
/// the f64 spline coefficients at orders 2 to 5; arrays of `rank` (the kernel is
/// specialised up to [`INTERP_RANKS`], beyond it reads the rank at run time).
pub(crate) fn interp_spec(dtype: DType, affine: bool, order: u8, rank: usize) -> NdSpec {
    let rank = if rank <= INTERP_RANKS { rank as u8 } else { 0 };
    NdSpec {
        shape: NdShape::Interp {
            affine,
            order,
            rank,
        },
        op: WindowOp::Sum,
        input: if order > 1 { DType::F64 } else { dtype },
        output: dtype,
    }
}

/// The resampling kernel for arrays of `rank`, with 32-bit element indices where `narrow`
/// (the rank-specialised kernels: input and output below 2^31 elements) and 64-bit ones
/// otherwise (the kernel that reads the rank at run time).
pub(crate) fn interp_spec_sized(
    dtype: DType,
    affine: bool,
    order: u8,
    rank: usize,
    narrow: bool,
) -> NdSpec {
    interp_spec(dtype, affine, order, if narrow { rank } else { usize::MAX })
}

/// A measurement of an input of `dtype` over labels.
pub(crate) fn measure_spec(dtype: DType, what: u8) -> NdSpec {
    NdSpec {
        shape: NdShape::Measure { what },
        op: WindowOp::Sum,
        input: dtype,
        output: DType::F64,
    }
}

impl Family for NdSpec {
    fn headers(&self) -> &'static [&'static str] {
        match self.shape {
            NdShape::Line { .. } | NdShape::Window { .. } | NdShape::Select { .. } => {
                &["ndimage.cuh"]
            }
            NdShape::Interp { .. } => &["ndimage.cuh", "ndimage_interp.cuh"],
            _ => &["ndimage.cuh", "ndimage_label.cuh"],
        }
    }

    fn symbol(&self) -> String {
        let variant = match self.shape {
            NdShape::Line { wx } => format!("line{wx}"),
            NdShape::Window { rank: 0 } => "window".to_string(),
            NdShape::Window { rank } => format!("window{rank}"),
            NdShape::Select { rank, count, kth } => format!("select{rank}x{count}k{kth}"),
            NdShape::Binary3 => "binary3".to_string(),
            NdShape::Label { step } => format!("label{step}"),
            NdShape::Edt => "edt".to_string(),
            NdShape::Measure { what } => format!("measure{what}"),
            NdShape::Interp {
                affine,
                order,
                rank,
            } => {
                format!("{}{order}r{rank}", if affine { "affine" } else { "map" })
            }
        };
        emit::symbol(
            "nd",
            self.op.name(),
            &[self.input],
            &[self.output],
            &[],
            &variant,
            IndexWidth::I64,
        )
    }

    fn render(&self, src: &mut String) {
        emit::typedef(src, self.input.cuda_type(), "in_t");
        emit::typedef(src, self.output.cuda_type(), "out_t");
        emit::typedef(src, self.acc().cuda_type(), "acc_t");
        let op = self.op as u8;
        match self.shape {
            NdShape::Line { wx } => {
                let params = [
                    "const in_t* in",
                    "out_t* out",
                    "const long long outer",
                    "const long long n",
                    "const long long inner",
                    "const long long k",
                    "const long long start",
                    "const long long mode",
                    "const double cval",
                    "const nd_taps taps",
                    "const double* wp",
                ]
                .map(String::from);
                emit::open(src, BLOCK, &self.symbol(), &params);
                let _ = writeln!(
                    src,
                    "    nd_line<in_t, out_t, acc_t, {op}, {wx}>(in, out, outer, n, inner, (int)k, start, (int)mode, cval, taps, wp);\n}}"
                );
            }
            NdShape::Window { rank } => {
                let params = [
                    "const in_t* in",
                    "out_t* out",
                    "const nd_geom g",
                    "const double* wts",
                    "const bool* fp",
                    "const long long mode",
                    "const double cval",
                ]
                .map(String::from);
                emit::open(src, BLOCK, &self.symbol(), &params);
                let _ = writeln!(
                    src,
                    "    nd_window<in_t, out_t, acc_t, {op}, {rank}>(in, out, g, wts, fp, (int)mode, cval);\n}}"
                );
            }
            NdShape::Select { rank, count, kth } => {
                let params = [
                    "const in_t* in",
                    "out_t* out",
                    "const nd_geom g",
                    "const long long mode",
                    "const double cval",
                ]
                .map(String::from);
                emit::open(src, BLOCK, &self.symbol(), &params);
                let _ = writeln!(
                    src,
                    "    for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < g.size;\n         t += (long long)gridDim.x * blockDim.x) {{\n        acc_t v[{count}];\n        nd_gather_box<in_t, acc_t, {rank}, {count}>(in, g, t, (int)mode, acc_t(cval), v);"
                );
                for (a, b) in select_network(count as usize, kth as usize) {
                    let _ = writeln!(src, "        ND_CS({a}, {b});");
                }
                let _ = writeln!(src, "        out[t] = nd_out<out_t>(v[{kth}]);\n    }}\n}}");
            }
            NdShape::Binary3 => {
                let params = [
                    "const in_t* in",
                    "out_t* out",
                    "const long long h",
                    "const long long w",
                    "const long long bits",
                    "const long long border",
                ]
                .map(String::from);
                emit::open(src, BLOCK, &self.symbol(), &params);
                let _ = writeln!(
                    src,
                    "    nd_binary3<{op}>(reinterpret_cast<const unsigned char*>(in), reinterpret_cast<unsigned char*>(out), h, w, (unsigned int)bits, (int)border);\n}}"
                );
            }
            NdShape::Label { step } => {
                let params = [
                    "const bool* mask",
                    "int* p",
                    "const bool* st",
                    "int* out",
                    "const long long* csum",
                    "const nd_geom g",
                ]
                .map(String::from);
                emit::open(src, BLOCK, &self.symbol(), &params);
                let _ = writeln!(src, "    nd_label<{step}>(mask, p, st, out, csum, g);\n}}");
            }
            NdShape::Edt => {
                let params = [
                    "double* f",
                    "const long long outer",
                    "const long long n",
                    "const long long inner",
                    "const double s2",
                    "const long long first",
                    "const long long shared",
                    "int* vb",
                    "double* zb",
                    "double* hb",
                ]
                .map(String::from);
                emit::open(src, BLOCK, &self.symbol(), &params);
                let _ = writeln!(
                    src,
                    "    nd_edt(f, outer, n, inner, s2, first != 0, shared != 0, vb, zb, hb);\n}}"
                );
            }
            NdShape::Measure { what } => {
                let params = [
                    "const in_t* in",
                    "const int* labels",
                    "const int* lut",
                    "const long long nlut",
                    "double* a0",
                    "double* a1",
                    "unsigned long long* p0",
                    "unsigned long long* p1",
                    "const double* aux0",
                    "const double* aux1",
                    "const nd_geom g",
                ]
                .map(String::from);
                emit::open(src, BLOCK, &self.symbol(), &params);
                let _ = writeln!(
                    src,
                    "    nd_measure<in_t, {what}>(in, labels, lut, nlut, a0, a1, p0, p1, aux0, aux1, g);\n}}"
                );
            }
            NdShape::Interp {
                affine,
                order,
                rank,
            } => {
                let params = [
                    "const in_t* in",
                    "out_t* out",
                    "const double* coords",
                    "const nd_affine a",
                    "const long long mode",
                    "const double cval",
                    "const double shift",
                ]
                .map(String::from);
                emit::open(src, BLOCK, &self.symbol(), &params);
                let _ = writeln!(
                    src,
                    "    nd_interp<in_t, out_t, {affine}, {order}, {rank}>(in, out, coords, a, (int)mode, cval, shift);\n}}"
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::source;

    #[test]
    fn every_spec_renders_a_well_formed_wrapper() {
        let mut symbols = std::collections::HashSet::new();
        for d in [DType::U8, DType::I32, DType::F32, DType::F64, DType::Bool] {
            for spec in specs_for(d) {
                let src = source(&spec);
                let sym = spec.symbol();
                assert!(src.contains(&format!(" {sym}(")), "{sym}");
                assert!(src.contains("nd_index"), "{sym}: header missing");
                assert_eq!(src.matches('{').count(), src.matches('}').count(), "{sym}");
                assert!(symbols.insert(sym));
            }
        }
    }

    /// Runs the network on `v` and returns position `k`.
    fn select(v: &[u32], k: usize) -> u32 {
        let mut v = v.to_vec();
        for (a, b) in select_network(v.len(), k) {
            assert!(a < b && b < v.len());
            if v[b] < v[a] {
                v.swap(a, b);
            }
        }
        v[k]
    }

    #[test]
    fn selection_networks_select_the_kth_smallest() {
        // Every 0-1 input (the 0-1 principle) for small sizes, random permutations beyond.
        for n in 1..=14usize {
            for k in 0..n {
                for bits in 0u32..(1 << n) {
                    let v: Vec<u32> = (0..n).map(|i| (bits >> i) & 1).collect();
                    let ones = bits.count_ones() as usize;
                    assert_eq!(select(&v, k), u32::from(k >= n - ones), "n {n} k {k} {v:?}");
                }
            }
        }
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for n in [15usize, 25, 27, 49, 63, 64] {
            for _ in 0..200 {
                let mut v: Vec<u32> = (0..n as u32).collect();
                for i in (1..n).rev() {
                    state = state
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    v.swap(i, (state >> 33) as usize % (i + 1));
                }
                for k in [0, n / 2, n - 1] {
                    assert_eq!(select(&v, k), k as u32);
                }
            }
        }
        // A minimum needs only the comparators into position 0: n - 1 of them.
        assert_eq!(select_network(25, 0).len(), 24);
    }

    #[test]
    fn accumulates_f32_in_float_and_the_rest_in_double() {
        let spec = |input, output| NdSpec {
            shape: NdShape::Window { rank: 0 },
            op: WindowOp::Sum,
            input,
            output,
        };
        assert_eq!(spec(DType::F32, DType::F32).acc(), DType::F32);
        assert_eq!(spec(DType::U8, DType::U8).acc(), DType::F64);
        assert_eq!(spec(DType::F32, DType::F64).acc(), DType::F64);
    }
}
