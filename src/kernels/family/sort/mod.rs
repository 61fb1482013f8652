//! The sort family (`kernels/sort.cuh`): radix sorts in NumPy's order, a group of
//! threads per row in shared memory (`Rows`) or a one-sweep radix sort over the whole
//! array (`Hist`, then one `Pass` per 8-bit digit), and binary search (`Search`).
//!
//! Wrapper arguments, in order:
//! - `Rows`: `const T* in, T* out_keys, long long* out_idx, Indexer<3, NK, I> rows`
//!   (the offsets of each row in the input and the two outputs), then `n_rows, len, sin,
//!   sok, soi, kout` as `long long`. Block: `threads` threads, or 256 (8 rows a block)
//!   when a warp sorts a row.
//! - `Hist`: `const T* in, Indexer<1, ND, I> ix, long long n, long long len,
//!   long long row_passes, unsigned long long* hist, uint4* clear, long long clear_n`
//!   (16-byte words the kernel zeroes beside its counting: later passes' look-back words).
//! - `Pass`: `const T* in, Indexer<1, ND, I> in_ix, const K* keys_in, const V* vals_in,
//!   K* keys_out, V* vals_out, T* out, long long* out_idx, Indexer<2, ND, I> out_ix,
//!   long long params[6] = {n, len, kout, shift, row_pass, ahead}, const unsigned long long*
//!   hist, W* look, unsigned int* counter`.
//! - `Search`: `const T* a, long long m, long long sa, const T* v, long long* out,
//!   Indexer<2, ND, I> ix, long long n`.

use crate::element::DType;
use crate::kernels::abi::KernelArgs;
use crate::kernels::cache::Kernel;
use crate::kernels::emit;
use crate::kernels::Operand;
use crate::kernels::{Family, IndexWidth, KernelSpec, BLOCK};
use crate::{Device, Result};
use cudarc::driver::sys::CUdeviceptr;
use std::fmt::Write as _;

/// Threads of a one-sweep pass by default (one per digit).
mod launch;

pub(crate) use launch::PassState;

pub(crate) const PASS_THREADS: u16 = 256;

/// Elements per thread of top-k's selection (256 threads, tiles of 4096).
pub(crate) const TOPK_IPT: usize = 16;

/// Threads per block of searchsorted (each block loads the splitters once).
pub(crate) const SEARCH_THREADS: u32 = 1024;

/// Static shared memory a kernel may use.
pub(crate) const SMEM_LIMIT: usize = 48 * 1024;

/// Which kernel of the family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum SortKernel {
    /// A group of `threads` threads (32: a warp) sorts a row of up to `threads * ipt`
    /// elements; `nk` row dimensions.
    Rows {
        /// Threads per row: 32, 128 or 256.
        threads: u16,
        /// Elements per thread.
        ipt: u8,
        /// Row dimensions.
        nk: u8,
    },
    /// The histograms of every pass; `nd` input dimensions.
    Hist {
        /// Input dimensions (rows, then the sorted axis).
        nd: u8,
        /// Counters a key bin keeps in shared memory, one for each lane % copies
        /// (`radix_hist`'s `C`): 1, or up to 32 in one block of 1024 threads a
        /// multiprocessor ([`hist_smem`]).
        copies: u8,
    },
    /// One pass of the one-sweep sort.
    Pass {
        /// Threads per block (256 or 512: one per digit at least).
        threads: u16,
        /// Elements per thread.
        ipt: u8,
        /// Dimensions of the input (first pass) and output (last pass) layouts.
        nd: u8,
        /// Reads the input array (else the previous pass's keys and values).
        first: bool,
        /// Writes the outputs (else keys and values for the next pass).
        last: bool,
        /// Values (flat indices) as 64-bit (arrays of 2^32 elements or more).
        wide_values: bool,
        /// Look-back words as 64-bit (arrays of 2^30 elements or more).
        wide_look: bool,
        /// Variant bits (`radix_pass`'s `VAR`, [`pass_variant_default`]): bit 1, one vote
        /// a warp's tile for the ranking's all-equal shortcut; bit 2, full tiles without
        /// bound checks; bits 4 and 8, items ranked together; bit 16, the warps' counts
        /// before the ranking; bits 32 and 64, the look-back's window; bit 128, a first
        /// pass waits for the histograms only where it reads them.
        variant: u8,
    },
    /// One digit of top-k's radix selection over one row of `nd` dimensions.
    TopkHist {
        /// Input dimensions.
        nd: u8,
    },
    /// Top-k's tile counts (`write: false`) or its candidates (`write: true`).
    TopkSelect {
        /// Input dimensions.
        nd: u8,
        /// Writes the candidates.
        write: bool,
    },
    /// searchsorted of values over `nd` dimensions.
    Search {
        /// Value (and output) dimensions.
        nd: u8,
        /// `side='right'`.
        right: bool,
    },
    /// NumPy's interp of values over `nd` dimensions: a right search and the line through
    /// the two neighbouring points.
    Interp {
        /// Value (and output) dimensions.
        nd: u8,
    },
}

/// One kernel of the sort family.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SortSpec {
    /// Which kernel.
    pub(crate) kernel: SortKernel,
    /// The element type sorted.
    pub(crate) dtype: DType,
    /// Descending (largest first, NaN first).
    pub(crate) descending: bool,
    /// `Pass`: carries values (flat indices) through the passes.
    pub(crate) values: bool,
    /// Writes the sorted elements.
    pub(crate) out_keys: bool,
    /// Writes each element's index along the sorted axis (`long long`).
    pub(crate) out_idx: bool,
    /// Blocks per multiprocessor the compiler must allow (`__launch_bounds__`'s second
    /// argument; 0: none).
    pub(crate) min_blocks: u8,
    /// Index width.
    pub(crate) index: IndexWidth,
}

impl From<SortSpec> for KernelSpec {
    fn from(spec: SortSpec) -> KernelSpec {
        KernelSpec::new(spec)
    }
}

/// The unsigned key type of `dtype` (its width).
pub(crate) fn key_type(dtype: DType) -> &'static str {
    match dtype.size() {
        1 => "unsigned char",
        2 => "unsigned short",
        4 => "unsigned int",
        _ => "unsigned long long",
    }
}

/// Shared bytes of one `Rows` group (mirrors `cuarray_rows_smem`).
#[cfg(test)]
fn rows_smem(key_bytes: usize, threads: usize, ipt: usize, idx: bool) -> usize {
    let tile = threads * ipt;
    let keys = tile * key_bytes;
    let hist = threads / 32 * 256 * 4 * 2; // counters and lane masks
    let a = keys.max(hist).div_ceil(16) * 16;
    let b = if idx { (tile * 2).div_ceil(16) * 16 } else { 0 };
    let groups = if threads == 32 { 8 } else { 1 };
    (a + b + 64) * groups
}

/// Counters a key bin keeps in the histogram kernel (`radix_hist`'s `C`), before
/// [`hist_copies_for`]: one a lane, so that a warp's increments never share a bank.
///
/// Measured on an H200, sort of 2^26 f32 in us: one counter a bin 1556, 32 1540.
pub(crate) const HIST_COPIES: u8 = 32;

/// Threads of a histogram block with more than one counter a bin (one block a
/// multiprocessor).
pub(crate) const HIST_THREADS: u32 = 1024;

/// The counters a bin keeps for keys of `key_bytes`: `copies`, at most 128 KB of them.
pub(crate) fn hist_copies_for(key_bytes: usize, copies: u8) -> u8 {
    copies.min((128 / key_bytes) as u8).max(1)
}

/// Dynamic shared bytes of a histogram kernel (mirrors `cuarray_hist_words`).
pub(crate) fn hist_smem(key_bytes: usize, copies: u8) -> usize {
    (key_bytes * 256 * copies as usize + 4 * 256) * 4
}

/// Lane-mask words a warp of a `Pass`'s ranking keeps for `variant` (mirrors
/// `cuarray_pass_group`): 256 for each item taken together (1, 2, 4 or 8, from bits 4
/// and 8).
pub(crate) fn pass_masks(variant: u8) -> usize {
    256 << ((variant >> 2) & 3)
}

/// Shared bytes of a `Pass` (mirrors `cuarray_pass_smem`), plus the tile id.
pub(crate) fn pass_smem(
    key_bytes: usize,
    value_bytes: usize,
    look_bytes: usize,
    threads: usize,
    ipt: usize,
    values: bool,
    variant: u8,
) -> usize {
    let tile = threads * ipt;
    let keys = tile * key_bytes;
    // Counters and the ranking's lane masks: in the keys' room, or their own (bit 16).
    let hist = threads / 32 * (256 + pass_masks(variant)) * 4;
    let own = variant & 16 != 0;
    let a = if own { keys } else { keys.max(hist) }.div_ceil(16) * 16;
    let h = if own { hist.div_ceil(16) * 16 } else { 0 };
    let b = if values {
        (tile * value_bytes).div_ceil(16) * 16
    } else {
        0
    };
    let d = 256 * look_bytes;
    a + b + d + h + 256 * 4 + 32 * 4 + 16
}

/// Dynamic shared memory a `Pass` may take: two blocks a multiprocessor still fit (an
/// H100 or H200 has 228 KB of shared memory a multiprocessor).
pub(crate) const PASS_SMEM_LIMIT: usize = 100 * 1024;

/// The default variant bits of a `Pass` (`radix_pass`'s `VAR`): bit 1, one vote a
/// warp's tile for the ranking's all-equal shortcut (instead of one an item); bit 2, full
/// tiles count and scatter without a bound check an element; bits 4 and 8, the ranking
/// takes 2, 4 or 8 items together ([`pass_masks`]); bit 16, the warps' digit counts come
/// first and become tile positions before the ranking, whose counters then give each
/// item its final place (one shared lookup an item less; the counters take their own
/// room); bits 32 and 64, the look-back's window of `8 >> ((bits >> 5) & 3)` earlier
/// tiles a round; bit 128, the first pass waits for the grid before it (the histogram
/// kernel, which releases it at its start) only in tile 0, before it reads the
/// histograms: the other tiles load, count and rank beside the histogram kernel, and wait
/// for tile 0 through the look-back. Keys alone take 5 (two items together), keys with
/// values 3; with 16 where the keys have up to 4 bytes (and the values 4): 21, and 83 (19
/// with a window of two: a round's loads cost later tiles more than the rounds it saves);
/// each with 128.
///
/// Measured on an H200, 2^26 f32, sort / argsort / all-equal keys in us: variant 0
/// 1562 / 2140 / 1252, 1 1517 / 2100 / 1193, 2 1591 / 2114 / 1244, 3 1553 / 2083 / 1181;
/// in another run, 1 1551 / - / 1270, 5 1523 / - / 1247, 9 (four items) 1529 / - / 1240,
/// 13 (eight) 1572 / - / 1234, argsort 3 2106, 7 2105, 11 2130, 15 2209; in another,
/// 5 1508 / - / 1252, 21 1344 / - / 1142 (1236 / - / 994 at three blocks a
/// multiprocessor), 17 1407 / - / 1171, argsort 3 2095, 19 1931; in another, two
/// rounds, windows of 8, 4, 2 and 1: sort (21, 53, 85, 117) 1216-1217, 1216, 1233-1234,
/// 1290; argsort (19, 51, 83, 115) 1925-1930, 1913-1919, 1906-1910, 1945; all-equal keys
/// 983-985, 978-983, 1002, 1073; in another, two rounds, with bit 128 and without it (the
/// histogram kernel walking its input from the end in both): sort 1219.0-1219.9 and
/// 1221.5-1224.2, argsort 1930-1932 and 1932-1934, all-equal keys 986-987 and 989.
pub(crate) fn pass_variant_default(key_bytes: usize, value_bytes: usize, values: bool) -> u8 {
    let own = key_bytes <= 4 && (!values || value_bytes == 4);
    let base = (if values { 3 } else { 5 }) | if own { 16 } else { 0 };
    base | if own && values { 64 } else { 0 } | 128
}

/// The default shape `(threads, ipt, min_blocks)` of a `Pass` for keys of `key_bytes`
/// (values of `value_bytes` when `values`, look-back words of `look_bytes`): tiles of
/// 7680 (256 threads of 30 elements, three blocks a multiprocessor) for keys of up to 4
/// bytes alone, 6144 (256 x 24) for such keys with 4-byte values, else 6144 or 5120 (as
/// many as fit the 48 KB that were measured with them), else 512 threads of 8 at two
/// blocks a multiprocessor, else 256 x 16, else 256 x 8.
///
/// Measured on an H200, 2^26 f32 (sort; argsort): 256 x 24 1734; 2172 us, 256 x 28 1641;
/// 2672, 256 x 32 1569; 2576, 256 x 36 to 48 2099-2179; 2591-2729 (the registers of more
/// elements a thread spill), 512 x 16 2028 (sort). With variant bit 16 (sort, variant
/// 21): 256 x 32 1344, at three blocks a multiprocessor 1236, 256 x 30 1228, 256 x 28
/// 1242, 256 x 24 at four 1252 (variant 17); argsort (variant 19) 256 x 24 1930, at
/// three 2106, 256 x 20 at three 2020, 256 x 16 at four 2237.
pub(crate) fn pass_shape(
    key_bytes: usize,
    value_bytes: usize,
    look_bytes: usize,
    values: bool,
) -> (u16, u8, u8) {
    let smem = |t: u16, i: u8| {
        pass_smem(
            key_bytes,
            value_bytes,
            look_bytes,
            t as usize,
            i as usize,
            values,
            pass_variant_default(key_bytes, value_bytes, values),
        )
    };
    let narrow = [
        (256, 24, 0),
        (256, 20, 0),
        (512, 8, 2),
        (PASS_THREADS, 16, 0),
    ];
    let (list, limit): (&[(u16, u8, u8)], usize) = match (key_bytes <= 4, values, value_bytes) {
        (true, false, _) => (&[(256, 30, 3)], PASS_SMEM_LIMIT),
        (true, true, 4) => (&[(256, 24, 0)], PASS_SMEM_LIMIT),
        _ => (&[], 0),
    };
    list.iter()
        .copied()
        .find(|&(t, i, _)| smem(t, i) <= limit)
        .or_else(|| {
            narrow
                .into_iter()
                .find(|&(t, i, _)| smem(t, i) <= SMEM_LIMIT)
        })
        .unwrap_or((PASS_THREADS, 8, 0))
}

impl SortSpec {
    fn order(&self) -> &'static str {
        if self.descending {
            "desc"
        } else {
            "asc"
        }
    }

    fn outs(&self) -> &'static str {
        match (self.out_keys, self.out_idx) {
            (true, true) => "kv",
            (true, false) => "k",
            (false, true) => "v",
            (false, false) => "none",
        }
    }
}

impl Family for SortSpec {
    fn headers(&self) -> &'static [&'static str] {
        &["sort.cuh"]
    }

    fn block_threads(&self) -> u32 {
        match self.kernel {
            // A warp per row: 8 rows a block.
            SortKernel::Rows { threads: 32, .. } => BLOCK,
            SortKernel::Rows { threads, .. } | SortKernel::Pass { threads, .. } => threads as u32,
            SortKernel::Hist { copies, .. } if copies > 1 => HIST_THREADS,
            SortKernel::Search { .. } | SortKernel::Interp { .. } => SEARCH_THREADS,
            SortKernel::Hist { .. }
            | SortKernel::TopkHist { .. }
            | SortKernel::TopkSelect { .. } => BLOCK,
        }
    }

    fn symbol(&self) -> String {
        let (op, variant) = match self.kernel {
            SortKernel::Rows { threads, ipt, nk } => (
                format!("rows_{}_{}", self.order(), self.outs()),
                format!("t{threads}x{ipt}k{nk}m{}", self.min_blocks),
            ),
            SortKernel::Hist { nd, copies } => {
                (format!("hist_{}", self.order()), format!("d{nd}c{copies}"))
            }
            SortKernel::Pass {
                threads,
                ipt,
                nd,
                first,
                last,
                wide_values,
                wide_look,
                variant,
            } => (
                format!(
                    "pass_{}_{}{}",
                    self.order(),
                    self.outs(),
                    if self.values { "_val" } else { "" }
                ),
                format!(
                    "t{threads}x{ipt}m{}d{nd}{}{}{}{}r{variant}",
                    self.min_blocks,
                    if first { "f" } else { "" },
                    if last { "l" } else { "" },
                    if wide_values { "V" } else { "" },
                    if wide_look { "W" } else { "" }
                ),
            ),
            SortKernel::Search { nd, right } => (
                if right { "search_right" } else { "search_left" }.to_string(),
                format!("d{nd}"),
            ),
            SortKernel::Interp { nd } => ("interp".to_string(), format!("d{nd}")),
            SortKernel::TopkHist { nd } => {
                (format!("topk_hist_{}", self.order()), format!("d{nd}"))
            }
            SortKernel::TopkSelect { nd, write } => (
                format!(
                    "topk_{}_{}",
                    if write { "write" } else { "count" },
                    self.order()
                ),
                format!("d{nd}"),
            ),
        };
        emit::symbol("sort", &op, &[self.dtype], &[], &[], &variant, self.index)
    }

    fn render(&self, src: &mut String) {
        let idx = self.index.cuda_type();
        let t = self.dtype.cuda_type();
        let b = |v: bool| if v { "true" } else { "false" };
        emit::typedef(src, t, "in0_t");
        let sym = self.symbol();
        let bt = self.block_threads();
        let min_blocks = self.min_blocks;
        let open = |src: &mut String, params: &[String]| {
            emit::open_bounded(src, bt, min_blocks.into(), &sym, params)
        };
        match self.kernel {
            SortKernel::Rows { threads, ipt, nk } => {
                let params: Vec<String> = [
                    "const in0_t* in".to_string(),
                    "in0_t* out_keys".to_string(),
                    "long long* out_idx".to_string(),
                    format!("const Indexer<3, {nk}, {idx}> rows"),
                ]
                .into_iter()
                .chain(
                    ["n_rows", "len", "sin", "sok", "soi", "kout"]
                        .map(|n| format!("const long long {n}")),
                )
                .collect();
                open(src, &params);
                let _ = writeln!(
                    src,
                    "    typedef {idx} I;\n    sort_rows<in0_t, {threads}, {ipt}, {nk}, I, {}, {}, {}>(in, out_keys, out_idx, rows, (I)n_rows, (I)len, (I)sin, (I)sok, (I)soi, (I)kout);\n}}",
                    b(self.descending),
                    b(self.out_keys),
                    b(self.out_idx)
                );
            }
            SortKernel::Hist { nd, copies } => {
                let params = [
                    "const in0_t* in".to_string(),
                    format!("const Indexer<1, {nd}, {idx}> ix"),
                    "const long long n".to_string(),
                    "const long long len".to_string(),
                    "const long long row_passes".to_string(),
                    "unsigned long long* hist".to_string(),
                    "uint4* clear".to_string(),
                    "const long long clear_n".to_string(),
                ];
                open(src, &params);
                let _ = writeln!(
                    src,
                    "    typedef {idx} I;\n    radix_hist<in0_t, {nd}, I, {}, {copies}>(in, ix, (I)n, (I)len, (int)row_passes, hist, clear, clear_n);\n}}",
                    b(self.descending)
                );
            }
            SortKernel::Pass {
                threads,
                ipt,
                nd,
                first,
                last,
                wide_values,
                wide_look,
                variant,
            } => {
                let v = if wide_values {
                    "unsigned long long"
                } else {
                    "unsigned int"
                };
                let w = if wide_look {
                    "unsigned long long"
                } else {
                    "unsigned int"
                };
                emit::typedef(src, key_type(self.dtype), "key_t");
                emit::typedef(src, v, "val_t");
                emit::typedef(src, w, "look_t");
                let params = [
                    "const in0_t* in".to_string(),
                    format!("const Indexer<1, {nd}, {idx}> in_ix"),
                    "const key_t* keys_in".to_string(),
                    "const val_t* vals_in".to_string(),
                    "key_t* keys_out".to_string(),
                    "val_t* vals_out".to_string(),
                    "in0_t* out".to_string(),
                    "long long* out_idx".to_string(),
                    format!("const Indexer<2, {nd}, {idx}> out_ix"),
                    // The five integers travel as one struct argument.
                    "const cuarray_pass_params prm".to_string(),
                    "const unsigned long long* hist".to_string(),
                    "look_t* look".to_string(),
                    "unsigned int* counter".to_string(),
                ];
                let _ = writeln!(
                    src,
                    "struct cuarray_pass_params {{ long long n, len, kout, shift, row_pass, ahead; }};"
                );
                // Variant bit 128 on the first pass: only tile 0 waits for the grid before
                // (the histograms), where it reads them.
                emit::open_entry(
                    src,
                    bt,
                    min_blocks.into(),
                    &sym,
                    &params,
                    !(first && variant & 128 != 0),
                );
                let _ = writeln!(
                    src,
                    "    typedef {idx} I;\n    radix_pass<in0_t, val_t, look_t, {threads}, {ipt}, {nd}, I, {}, {}, {}, {}, {}, {}, {variant}>(in, in_ix, keys_in, vals_in, keys_out, vals_out, out, out_idx, out_ix, (I)prm.n, (I)prm.len, (I)prm.kout, (int)prm.shift, prm.row_pass != 0, (I)prm.ahead, hist, look, counter);\n}}",
                    b(self.descending),
                    b(first),
                    b(last),
                    b(self.values),
                    b(self.out_keys),
                    b(self.out_idx)
                );
            }
            SortKernel::TopkHist { nd } => {
                let params = [
                    "const in0_t* in".to_string(),
                    format!("const Indexer<1, {nd}, {idx}> ix"),
                    "const long long n".to_string(),
                    "const long long k".to_string(),
                    "const long long pass".to_string(),
                    "unsigned long long* hist".to_string(),
                ];
                open(src, &params);
                let _ = writeln!(
                    src,
                    "    typedef {idx} I;\n    topk_hist<in0_t, {nd}, I, {}>(in, ix, (I)n, k, (int)pass, hist);\n}}",
                    b(self.descending)
                );
            }
            SortKernel::TopkSelect { nd, write } => {
                let params = [
                    "const in0_t* in".to_string(),
                    format!("const Indexer<1, {nd}, {idx}> ix"),
                    "const long long n".to_string(),
                    "const long long k".to_string(),
                    "const unsigned long long* hist".to_string(),
                    "unsigned int* counts".to_string(),
                    "const long long tiles".to_string(),
                    "in0_t* cand".to_string(),
                    "long long* cand_idx".to_string(),
                ];
                open(src, &params);
                let _ = writeln!(
                    src,
                    "    typedef {idx} I;\n    topk_select<in0_t, {TOPK_IPT}, {nd}, I, {}, {}>(in, ix, (I)n, k, hist, counts, (I)tiles, cand, cand_idx);\n}}",
                    b(self.descending),
                    b(write)
                );
            }
            SortKernel::Search { nd, right } => {
                let params = [
                    "const in0_t* a".to_string(),
                    "const long long m".to_string(),
                    "const long long sa".to_string(),
                    "const in0_t* v".to_string(),
                    "long long* out".to_string(),
                    format!("const Indexer<2, {nd}, {idx}> ix"),
                    "const long long n".to_string(),
                ];
                open(src, &params);
                let _ = writeln!(
                    src,
                    "    typedef {idx} I;\n    search_sorted<in0_t, {nd}, I, {}>(a, (I)m, (I)sa, v, out, ix, (I)n);\n}}",
                    b(right)
                );
            }
            SortKernel::Interp { nd } => {
                let params = [
                    "const in0_t* xp".to_string(),
                    "const long long m".to_string(),
                    "const long long sxp".to_string(),
                    "const in0_t* fp".to_string(),
                    "const long long sfp".to_string(),
                    "const in0_t* v".to_string(),
                    "in0_t* out".to_string(),
                    format!("const Indexer<2, {nd}, {idx}> ix"),
                    "const long long n".to_string(),
                    "const int has_left".to_string(),
                    "const int has_right".to_string(),
                    "const double left".to_string(),
                    "const double right".to_string(),
                ];
                open(src, &params);
                let _ = writeln!(
                    src,
                    "    typedef {idx} I;\n    interp_sorted<in0_t, {nd}, I>(xp, (I)m, (I)sxp, fp, (I)sfp, v, out, ix, (I)n, has_left, has_right, left, right);\n}}"
                );
            }
        }
    }
}

/// Row variants `(threads, ipt)` by capacity, smallest first.
pub(crate) const ROW_VARIANTS: [(u16, u8); 8] = [
    (32, 1),
    (32, 2),
    (32, 4),
    (128, 2),
    (128, 4),
    (256, 4),
    (256, 8),
    (256, 16),
];

/// The longest row a group sorts in shared memory.
pub(crate) const ROW_MAX: usize = 4096;

/// Every kernel the library may launch for `dtype`, in the layouts the NVRTC tier
/// compiles: each row variant (sort, argsort, topk), the histogram, each pass kind, and
/// searchsorted.
pub fn specs_for(dtype: DType) -> Vec<SortSpec> {
    // Complex numbers have no order here (sorting takes the ordered real types).
    if dtype.is_complex() {
        return Vec::new();
    }
    let base = SortSpec {
        kernel: SortKernel::Hist {
            nd: 1,
            copies: hist_copies_for(dtype.size(), HIST_COPIES),
        },
        dtype,
        descending: false,
        values: false,
        out_keys: true,
        out_idx: false,
        min_blocks: 0,
        index: IndexWidth::I32,
    };
    let mut v = Vec::new();
    for (threads, ipt) in ROW_VARIANTS {
        for (desc, ok, oi) in [
            (false, true, false),
            (false, false, true),
            (true, true, true),
        ] {
            v.push(SortSpec {
                kernel: SortKernel::Rows {
                    threads,
                    ipt,
                    nk: 1,
                },
                descending: desc,
                out_keys: ok,
                out_idx: oi,
                ..base.clone()
            });
        }
    }
    v.push(base.clone());
    v.push(SortSpec {
        kernel: SortKernel::Hist {
            nd: 2,
            copies: hist_copies_for(dtype.size(), HIST_COPIES),
        },
        index: IndexWidth::I64,
        ..base.clone()
    });
    // Each pass kind with its default variant bits, and for the middle and last passes
    // variant 0 and the default with bit 16 flipped (`CUARRAY_SORT_VARIANT` measurements).
    for (first, last, which) in [
        (true, false, 0),
        (false, false, 0),
        (false, true, 0),
        (true, true, 0),
        (false, false, 1),
        (false, true, 1),
        (false, false, 2),
        (false, true, 2),
    ] {
        for (values, ok, oi) in [(false, true, false), (true, false, true)] {
            let (threads, ipt, min_blocks) = pass_shape(dtype.size(), 4, 4, values);
            v.push(SortSpec {
                kernel: SortKernel::Pass {
                    threads,
                    ipt,
                    nd: 1,
                    first,
                    last,
                    wide_values: false,
                    wide_look: false,
                    variant: match which {
                        0 => pass_variant_default(dtype.size(), 4, values),
                        1 => 0,
                        _ => pass_variant_default(dtype.size(), 4, values) ^ 16,
                    },
                },
                values,
                out_keys: ok,
                out_idx: oi,
                min_blocks,
                ..base.clone()
            });
        }
    }
    v.push(SortSpec {
        kernel: SortKernel::Pass {
            threads: 256,
            ipt: 8,
            nd: 2,
            first: true,
            last: true,
            wide_values: true,
            wide_look: true,
            variant: pass_variant_default(dtype.size(), 8, true),
        },
        values: true,
        out_idx: true,
        min_blocks: 2,
        index: IndexWidth::I64,
        ..base.clone()
    });
    v.push(SortSpec {
        kernel: SortKernel::Rows {
            threads: 512,
            ipt: 8,
            nk: 2,
        },
        out_keys: false,
        out_idx: true,
        min_blocks: 2,
        ..base.clone()
    });
    for right in [false, true] {
        v.push(SortSpec {
            kernel: SortKernel::Search { nd: 1, right },
            ..base.clone()
        });
    }
    if base.dtype.is_float() {
        v.push(SortSpec {
            kernel: SortKernel::Interp { nd: 1 },
            ..base.clone()
        });
    }
    for desc in [false, true] {
        for kernel in [
            SortKernel::TopkHist { nd: 1 },
            SortKernel::TopkSelect {
                nd: 1,
                write: false,
            },
            SortKernel::TopkSelect { nd: 2, write: true },
        ] {
            v.push(SortSpec {
                kernel,
                descending: desc,
                ..base.clone()
            });
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::source;

    #[test]
    fn pass_shapes_by_key_and_value_width() {
        // Keys of up to 4 bytes: tiles of 7680 alone (three blocks a multiprocessor),
        // 6144 with 4-byte values.
        assert_eq!(pass_shape(4, 4, 4, false), (256, 30, 3));
        assert_eq!(pass_shape(4, 4, 4, true), (256, 24, 0));
        assert_eq!(pass_shape(1, 4, 4, true), (256, 24, 0));
        // 8-byte keys: 5120 alone, 4096 with values (256 x 8 when 512 x 8 does not fit).
        assert_eq!(pass_shape(8, 4, 4, false), (256, 20, 0));
        assert_eq!(pass_shape(8, 8, 8, false), (256, 20, 0));
        assert_eq!(pass_shape(8, 4, 4, true), (256, 8, 0));
        // The default keys-alone shape asks three blocks a multiprocessor: their shared
        // memory (with the counters' own room, variant bit 16) fits an H100's or H200's
        // 228 KB, 1 KB a block reserved.
        let (t, i, m) = pass_shape(4, 4, 4, false);
        let v = pass_variant_default(4, 4, false);
        assert_eq!(v & 16, 16);
        let own = pass_smem(4, 4, 4, t as usize, i as usize, false, v);
        assert_eq!(
            own,
            256 * 30 * 4 + 8 * (256 + pass_masks(v)) * 4 + 256 * 4 + 256 * 4 + 32 * 4 + 16
        );
        assert!(m as usize * (own + 1024) <= 228 * 1024);
        // Without bit 16 the counters share the keys' room.
        assert!(pass_smem(4, 4, 4, t as usize, i as usize, false, v ^ 16) < own);
        // 8-byte values (past 2^32 elements): within 48 KB.
        assert_eq!(pass_shape(4, 8, 8, true), (256, 8, 0));
        assert_eq!(pass_shape(1, 8, 8, true), (256, 8, 0));
        for kb in [1, 2, 4, 8] {
            for (vb, wb) in [(4, 4), (8, 8)] {
                for values in [false, true] {
                    let (t, i, _) = pass_shape(kb, vb, wb, values);
                    let limit = if kb <= 4 && (!values || vb <= 4) {
                        PASS_SMEM_LIMIT
                    } else {
                        SMEM_LIMIT
                    };
                    let v = pass_variant_default(kb, vb, values);
                    assert!(pass_smem(kb, vb, wb, t as usize, i as usize, values, v) <= limit);
                }
            }
        }
    }

    #[test]
    fn specs_render_and_fit_shared_memory() {
        let mut symbols = std::collections::HashSet::new();
        for d in DType::ALL {
            for spec in specs_for(d) {
                let src = source(&spec);
                let sym = spec.symbol();
                assert!(src.contains(&format!(" {sym}(")), "{sym}");
                assert_eq!(src.matches('{').count(), src.matches('}').count(), "{sym}");
                assert!(symbols.insert(sym.clone()), "duplicate {sym}");
                match spec.kernel {
                    SortKernel::Rows { threads, ipt, .. } => assert!(
                        rows_smem(d.size(), threads as usize, ipt as usize, spec.out_idx)
                            <= SMEM_LIMIT,
                        "{sym}"
                    ),
                    SortKernel::Pass {
                        threads,
                        ipt,
                        wide_values,
                        wide_look,
                        variant,
                        ..
                    } => assert!(
                        pass_smem(
                            d.size(),
                            if wide_values { 8 } else { 4 },
                            if wide_look { 8 } else { 4 },
                            threads as usize,
                            ipt as usize,
                            spec.values,
                            variant
                        ) <= PASS_SMEM_LIMIT,
                        "{sym}"
                    ),
                    _ => {}
                }
            }
        }
    }

    #[test]
    fn row_variants_grow() {
        let caps: Vec<usize> = ROW_VARIANTS
            .iter()
            .map(|&(t, i)| t as usize * i as usize)
            .collect();
        assert!(caps.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(*caps.last().unwrap(), ROW_MAX);
    }
}
