//! The gather family (`kernels/gather.cuh`, after `sort.cuh`): gathers and scatters by
//! i64 indices (take, take_along_axis, put_along_axis, index_add, choose, one_hot, index
//! checks), bincount, histogram.
//!
//! Wrapper arguments, in order:
//! - `Gather`: `T* out, const T* a, const long long* idx, Indexer<2, ND, I> ix,
//!   long long n, long long extent, long long sa, unsigned long long* rec`;
//! - `Scatter`: `T* a, const long long* idx, const T* vals, Indexer<3, ND, I> ix,
//!   long long n, long long extent, long long sa, unsigned long long* rec`;
//! - `Bincount`: `const T* x, Indexer<1, ND, I> ix, long long n, unsigned long long* out,
//!   long long bins` (dynamic shared memory: `4 * bins` bytes when `shared`);
//! - `Histogram`: `const T* x, Indexer<1, ND, I> ix, long long n, const T* edges,
//!   long long bins, double lo, double hi, unsigned long long* out` (shared as bincount);
//! - `HistEdges`: `const T* x, const double* w, Indexer<1, ND, I> ix, long long n,
//!   const T* edges, long long bins, A* out` with `A` `unsigned long long` (counts) or
//!   `double` (`weighted`: sums of the contiguous f64 `w`, null otherwise); dynamic shared
//!   memory when `shared`: [`hist_edges_smem`] bytes (the counters, then the edges);
//! - `Edges`: `T* edges, long long bins, double lo, double hi`.
//!
//! `Gather` and `Scatter` wrap a negative index once by `extent`; passed `-extent`, they
//! refuse negative indices instead (NumPy's raise mode of `choose`, `unravel_index`,
//! `ravel_multi_index`; `one_hot`'s labels).

use crate::element::DType;
use crate::kernels::abi::KernelArgs;
use crate::kernels::cache::{kernel, Kernel};
use crate::kernels::emit;
use crate::kernels::Operand;
use crate::kernels::{Family, IndexWidth, KernelSpec};
use crate::{Device, Error, Result};
use cudarc::driver::sys::CUdeviceptr;
use std::fmt::Write as _;

/// Most bins counted in shared memory (48 KiB of 32-bit counters).
pub(crate) const SHARED_BINS: usize = 12 * 1024;

/// Most dynamic shared memory of a `HistEdges { shared: true }` kernel (its default limit).
pub(crate) const HIST_EDGES_SMEM: usize = 48 * 1024;

/// The dynamic shared memory of a `HistEdges { shared: true }` kernel over `bins` bins of
/// `dtype` edges: the counters (4 bytes, 8 with weights) padded to 16 bytes, then the
/// `bins + 1` edges.
pub(crate) fn hist_edges_smem(dtype: DType, bins: usize, weighted: bool) -> usize {
    let counters = bins * if weighted { 8 } else { 4 };
    counters.next_multiple_of(16) + (bins + 1) * dtype.size()
}

/// Which kernel of the family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum GatherKernel {
    /// `out[o] = a[... idx[o] ...]`.
    Gather,
    /// `a[... idx[o] ...] = vals[o]`, or `+=` atomically (`add`).
    Scatter {
        /// Atomic add (index_add) rather than assignment.
        add: bool,
    },
    /// Counts of each non-negative integer.
    Bincount {
        /// Counters in shared memory.
        shared: bool,
    },
    /// Counts per uniform bin.
    Histogram {
        /// Counters in shared memory.
        shared: bool,
    },
    /// Counts (or sums of weights) per bin of increasing edges, by binary search.
    HistEdges {
        /// Counters and edges in shared memory.
        shared: bool,
        /// Sums of f64 weights rather than counts.
        weighted: bool,
    },
    /// The bin edges.
    Edges,
    /// `out[o] = a[... idx_0[o] ..., ..., idx_{k-1}[o] ...]`: a gather by `k` (1 to 4) index
    /// arrays (advanced indexing). The spec's dtype is a word of the moved size
    /// (`word_dtype`).
    GatherN {
        /// Number of index arrays.
        k: u8,
    },
    /// `a[... idx_0[o] ..., ...] = vals[o]` (a word of the moved size), or `+=` atomically
    /// in the element type (`add`), by `k` (1 to 4) index arrays.
    ScatterN {
        /// Number of index arrays.
        k: u8,
        /// Atomic add (np.add.at) rather than assignment.
        add: bool,
    },
}

/// Most index arrays of one `GatherN` / `ScatterN` kernel.
pub(crate) const MAX_INDEX_ARRAYS: usize = 4;

/// The dtype that stands for a word of `bytes` (1, 2, 4, 8 or 16) in the specs of moves
/// (`GatherN`, `ScatterN` without add): the unsigned integer of that size, `C128` for 16.
pub(crate) fn word_dtype(bytes: usize) -> DType {
    match bytes {
        1 => DType::U8,
        2 => DType::U16,
        4 => DType::U32,
        8 => DType::U64,
        _ => DType::C128,
    }
}

/// The CUDA type of a word of `bytes`.
fn word_type(bytes: usize) -> &'static str {
    match bytes {
        1 => "unsigned char",
        2 => "unsigned short",
        4 => "unsigned int",
        8 => "unsigned long long",
        _ => "uint4",
    }
}

/// One kernel of the gather family.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct GatherSpec {
    /// Which kernel.
    pub(crate) kernel: GatherKernel,
    /// The element type (of the array gathered from or scattered into, or counted).
    pub(crate) dtype: DType,
    /// Dimensions of the iteration space (collapsed); 1 for `Edges`.
    pub(crate) nd: u8,
    /// Index width.
    pub(crate) index: IndexWidth,
}

impl From<GatherSpec> for KernelSpec {
    fn from(spec: GatherSpec) -> KernelSpec {
        KernelSpec::new(spec)
    }
}

impl Family for GatherSpec {
    fn headers(&self) -> &'static [&'static str] {
        &["sort.cuh", "gather.cuh"]
    }

    fn symbol(&self) -> String {
        let op = match self.kernel {
            GatherKernel::Gather => "gather",
            GatherKernel::Scatter { add: false } => "scatter",
            GatherKernel::Scatter { add: true } => "scatter_add",
            GatherKernel::Bincount { shared: true } => "bincount_sh",
            GatherKernel::Bincount { shared: false } => "bincount",
            GatherKernel::Histogram { shared: true } => "histogram_sh",
            GatherKernel::Histogram { shared: false } => "histogram",
            GatherKernel::HistEdges { shared, weighted } => match (shared, weighted) {
                (true, false) => "hist_edges_sh",
                (false, false) => "hist_edges",
                (true, true) => "hist_edges_w_sh",
                (false, true) => "hist_edges_w",
            },
            GatherKernel::Edges => "edges",
            GatherKernel::GatherN { k } => return self.symbol_n("gather_n", k),
            GatherKernel::ScatterN { k, add: false } => return self.symbol_n("scatter_n", k),
            GatherKernel::ScatterN { k, add: true } => return self.symbol_n("scatter_add_n", k),
        };
        emit::symbol(
            "gather",
            op,
            &[self.dtype],
            &[],
            &[],
            &format!("d{}", self.nd),
            self.index,
        )
    }

    fn render(&self, src: &mut String) {
        let idx = self.index.cuda_type();
        let nd = self.nd;
        let moves = matches!(
            self.kernel,
            GatherKernel::Gather
                | GatherKernel::Scatter { add: false }
                | GatherKernel::GatherN { .. }
                | GatherKernel::ScatterN { add: false, .. }
        );
        if moves {
            emit::typedef(src, word_type(self.dtype.size()), "T");
        } else {
            emit::typedef(src, self.dtype.cuda_type(), "T");
        }
        let sym = self.symbol();
        let bt = self.block_threads();
        let open = |src: &mut String, params: &[&str]| {
            let params: Vec<String> = params
                .iter()
                .map(|p| p.replace("ND", &nd.to_string()).replace("IW", idx))
                .collect();
            emit::open(src, bt, &sym, &params);
        };
        match self.kernel {
            GatherKernel::Gather => {
                open(
                    src,
                    &[
                        "T* out",
                        "const T* a",
                        "const long long* idx",
                        "const Indexer<2, ND, IW> ix",
                        "const long long n",
                        "const long long extent",
                        "const long long sa",
                        "unsigned long long* rec",
                    ],
                );
                let _ = writeln!(
                    src,
                    "    typedef {idx} I;\n    gather<T, {nd}, I>(out, a, idx, ix, (I)n, (I)extent, (I)sa, rec);\n}}"
                );
            }
            GatherKernel::Scatter { add } => {
                open(
                    src,
                    &[
                        "T* a",
                        "const long long* idx",
                        "const T* vals",
                        "const Indexer<3, ND, IW> ix",
                        "const long long n",
                        "const long long extent",
                        "const long long sa",
                        "unsigned long long* rec",
                    ],
                );
                let _ = writeln!(
                    src,
                    "    typedef {idx} I;\n    scatter<T, {nd}, I, {}>(a, idx, vals, ix, (I)n, (I)extent, (I)sa, rec);\n}}",
                    add as u8
                );
            }
            GatherKernel::Bincount { shared } => {
                open(
                    src,
                    &[
                        "const T* x",
                        "const Indexer<1, ND, IW> ix",
                        "const long long n",
                        "unsigned long long* out",
                        "const long long bins",
                    ],
                );
                let _ = writeln!(
                    src,
                    "    typedef {idx} I;\n    bincount<T, {nd}, I, {shared}>(x, ix, (I)n, out, (I)bins);\n}}"
                );
            }
            GatherKernel::Histogram { shared } => {
                open(
                    src,
                    &[
                        "const T* x",
                        "const Indexer<1, ND, IW> ix",
                        "const long long n",
                        "const T* edges",
                        "const long long bins",
                        "const double lo",
                        "const double hi",
                        "unsigned long long* out",
                    ],
                );
                let c = if self.dtype == DType::F64 {
                    "double"
                } else {
                    "float"
                };
                let _ = writeln!(
                    src,
                    "    typedef {idx} I;\n    histogram<T, {c}, {nd}, I, {shared}>(x, ix, (I)n, edges, (I)bins, lo, hi, out);\n}}"
                );
            }
            GatherKernel::HistEdges { shared, weighted } => {
                let (a, c) = if weighted {
                    ("double", "double")
                } else {
                    ("unsigned long long", "unsigned int")
                };
                let out = format!("{a}* out");
                open(
                    src,
                    &[
                        "const T* x",
                        "const double* w",
                        "const Indexer<1, ND, IW> ix",
                        "const long long n",
                        "const T* edges",
                        "const long long bins",
                        &out,
                    ],
                );
                let _ = writeln!(
                    src,
                    "    typedef {idx} I;\n    histogram_edges<T, {a}, {c}, {nd}, I, {shared}, {weighted}>(x, w, ix, (I)n, edges, (I)bins, out);\n}}"
                );
            }
            GatherKernel::Edges => {
                open(
                    src,
                    &[
                        "T* edges",
                        "const long long bins",
                        "const double lo",
                        "const double hi",
                    ],
                );
                let _ = writeln!(src, "    hist_edges<T>(edges, bins, lo, hi);\n}}");
            }
            GatherKernel::GatherN { k } | GatherKernel::ScatterN { k, .. } => {
                let gather = matches!(self.kernel, GatherKernel::GatherN { .. });
                let k = k as usize;
                let ptrs: Vec<String> =
                    (0..k).map(|i| format!("const long long* idx{i}")).collect();
                let exts: Vec<String> = (0..k).map(|i| format!("const long long e{i}")).collect();
                let strs: Vec<String> = (0..k).map(|i| format!("const long long s{i}")).collect();
                let mut params: Vec<String> = if gather {
                    vec!["T* out".into(), "const T* a".into()]
                } else {
                    vec!["T* a".into()]
                };
                params.extend(ptrs);
                if !gather {
                    params.push("const T* vals".into());
                }
                let narg = if gather { k + 1 } else { k + 2 };
                params.push(format!("const Indexer<{narg}, ND, IW> ix"));
                params.push("const long long n".into());
                params.extend(exts);
                params.extend(strs);
                params.push("unsigned long long* rec".into());
                let refs: Vec<&str> = params.iter().map(String::as_str).collect();
                open(src, &refs);
                let list = |p: &str| {
                    (0..k)
                        .map(|i| format!("{p}{i}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                let _ = writeln!(
                    src,
                    "    typedef {idx} I;\n    const long long* idx[{k}] = {{{}}};\n    const long long ext[{k}] = {{{}}};\n    const long long sa[{k}] = {{{}}};",
                    list("idx"),
                    list("e"),
                    list("s")
                );
                match self.kernel {
                    GatherKernel::ScatterN { add, .. } => {
                        let _ = writeln!(
                            src,
                            "    scatter_n<T, {k}, {nd}, I, {}>(a, idx, vals, ext, sa, ix, (I)n, rec);\n}}",
                            add as u8
                        );
                    }
                    _ => {
                        let _ = writeln!(
                            src,
                            "    gather_n<T, {k}, {nd}, I>(out, a, idx, ext, sa, ix, (I)n, rec);\n}}"
                        );
                    }
                }
            }
        }
    }
}

impl GatherSpec {
    /// The symbol of a `GatherN` / `ScatterN` kernel: moves are named by their word size.
    fn symbol_n(&self, op: &str, k: u8) -> String {
        emit::symbol(
            "gather",
            &format!("{op}{k}"),
            &[self.dtype],
            &[],
            &[],
            &format!("d{}", self.nd),
            self.index,
        )
    }
}

/// Every kernel of the family for `dtype` (bincount for integer types, histogram for
/// float types), over 1 and 3 dimensions; the moves (take, put, advanced indexing) when
/// `dtype` is the word dtype of its size (`word_dtype`), and their atomic adds (advanced
/// indexing's for the real types, take/put's for every type).
pub fn specs_for(dtype: DType) -> Vec<GatherSpec> {
    let mut v = Vec::new();
    // Moves (take, put, advanced indexing) once per word size, under its word dtype;
    // atomic adds, counts and histograms per real type.
    let mut n_kernels = Vec::new();
    let mut kernels = Vec::new();
    if word_dtype(dtype.size()) == dtype {
        kernels.extend([GatherKernel::Gather, GatherKernel::Scatter { add: false }]);
        for k in 1..=MAX_INDEX_ARRAYS as u8 {
            n_kernels.push(GatherKernel::GatherN { k });
            n_kernels.push(GatherKernel::ScatterN { k, add: false });
        }
    }
    kernels.push(GatherKernel::Scatter { add: true });
    if !dtype.is_complex() {
        for k in 1..=MAX_INDEX_ARRAYS as u8 {
            n_kernels.push(GatherKernel::ScatterN { k, add: true });
        }
    }
    for kernel in n_kernels {
        for (nd, index) in [(1, IndexWidth::I32), (3, IndexWidth::I64)] {
            v.push(GatherSpec {
                kernel,
                dtype,
                nd,
                index,
            });
        }
    }
    if dtype.is_float() {
        kernels.extend([
            GatherKernel::Histogram { shared: true },
            GatherKernel::Histogram { shared: false },
            GatherKernel::Edges,
        ]);
        for shared in [true, false] {
            for weighted in [true, false] {
                kernels.push(GatherKernel::HistEdges { shared, weighted });
            }
        }
    } else if dtype != DType::Bool {
        kernels.extend([
            GatherKernel::Bincount { shared: true },
            GatherKernel::Bincount { shared: false },
        ]);
    }
    for kernel in kernels {
        for (nd, index) in [(1, IndexWidth::I32), (3, IndexWidth::I64)] {
            if kernel == GatherKernel::Edges && nd != 1 {
                continue;
            }
            v.push(GatherSpec {
                kernel,
                dtype,
                nd,
                index,
            });
        }
    }
    v
}

// ---- launches ------------------------------------------------------------------------------

/// The `extent` argument of `Gather` and `Scatter`: `-extent` asks the kernel not to wrap
/// negative indices (`cuarray_wrap_index`).
fn signed_extent(extent: usize, wrap: bool) -> i64 {
    if wrap {
        extent as i64
    } else {
        -(extent as i64)
    }
}

impl GatherSpec {
    /// Launches the `Gather` kernel `f` of this spec: `out[o] = a[a_off(o) + idx[i_off(o)]
    /// * sa]` for the `n` positions of the collapsed iteration space `dims`, with
    /// `strides[0]` for `a` and `strides[1]` for `idx`; a bad index is recorded in `rec`.
    ///
    /// # Safety
    /// - `f` is the kernel compiled for this spec (`kernel(device, self)`);
    /// - `out` is C-contiguous with `n` elements and of this spec's dtype's element size,
    ///   as is `a`;
    /// - `dims` has `self.nd` dimensions of product `n`, and for every position of it the
    ///   offset through `strides[0]` stays inside `a`'s buffer and the one through
    ///   `strides[1]` inside `idx`'s (they are strides of views of `a` and `idx` over the
    ///   iteration space), within the range of `self.index`;
    /// - every such offset of `a` plus `j * sa` for `j` in `[0, extent)` stays inside `a`'s
    ///   buffer (its indexed axis has `extent` elements of stride `sa`); negative indices
    ///   wrap when `wrap`, else they are out of range;
    /// - `rec` is the address of an error record from [`Device::error_record`].
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn launch_gather(
        &self,
        device: &Device,
        f: &Kernel,
        grid: u32,
        out: &Operand<'_>,
        a: &Operand<'_>,
        idx: &Operand<'_>,
        (dims, strides): (&[usize], &[Vec<isize>]),
        n: usize,
        (extent, wrap): (usize, bool),
        sa: isize,
        rec: CUdeviceptr,
    ) -> Result<()> {
        let mut args = KernelArgs::new();
        args.ptr(out.ptr())
            .ptr(a.ptr())
            .ptr(idx.ptr())
            .indexer(self.index, n, dims, strides)
            .i64(n as i64)
            .i64(signed_extent(extent, wrap))
            .i64(sa as i64)
            .ptr(rec);
        // SAFETY: arguments in the order the Gather wrapper declares them (out, a, idx, the
        // Indexer, n, extent, sa, rec); the caller guarantees (# Safety) that `f` is this
        // spec's kernel, that the output holds n elements, that the Indexer's offsets stay
        // inside `a` and `idx` and that `rec` is an error record; the kernel reads a
        // gathered element only for an index it wrapped into [0, extent), which the
        // contract keeps inside `a`.
        unsafe { args.launch(device, f, grid) }
    }

    /// Launches the `Scatter` kernel `f` of this spec: `a[a_off(o) + idx[i_off(o)] * sa]
    /// = vals[v_off(o)]` (or `+=` atomically) for the `n` positions of `dims`, with
    /// `strides` of `a`, `idx` and `vals` in that order; a bad index is recorded in `rec`.
    ///
    /// # Safety
    /// - `f` is the kernel compiled for this spec (`kernel(device, self)`), and `a` and
    ///   `vals` are of this spec's dtype (a plain scatter: of its element size);
    /// - `dims` has `self.nd` dimensions of product `n`, and for every position of it the
    ///   offsets through `strides[0]`, `strides[1]` and `strides[2]` stay inside the
    ///   buffers of `a`, `idx` and `vals` (strides of views of them over the iteration
    ///   space), within the range of `self.index`;
    /// - every such offset of `a` plus `j * sa` for `j` in `[0, extent)` stays inside `a`'s
    ///   buffer (its indexed axis has `extent` elements of stride `sa`); negative indices
    ///   wrap when `wrap`, else they are out of range;
    /// - `rec` is the address of an error record from [`Device::error_record`].
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn launch_scatter(
        &self,
        device: &Device,
        f: &Kernel,
        grid: u32,
        a: &Operand<'_>,
        idx: &Operand<'_>,
        vals: &Operand<'_>,
        (dims, strides): (&[usize], &[Vec<isize>]),
        n: usize,
        (extent, wrap): (usize, bool),
        sa: isize,
        rec: CUdeviceptr,
    ) -> Result<()> {
        let mut args = KernelArgs::new();
        args.ptr(a.ptr())
            .ptr(idx.ptr())
            .ptr(vals.ptr())
            .indexer(self.index, n, dims, strides)
            .i64(n as i64)
            .i64(signed_extent(extent, wrap))
            .i64(sa as i64)
            .ptr(rec);
        // SAFETY: arguments in the order the Scatter wrapper declares them (a, idx, vals,
        // the Indexer, n, extent, sa, rec); the caller guarantees (# Safety) that `f` is this
        // spec's kernel, that the Indexer's offsets stay inside the three operands and that
        // `rec` is an error record; the kernel writes an element of `a` only for an index it
        // wrapped into [0, extent), which the contract keeps inside `a`.
        unsafe { args.launch(device, f, grid) }
    }

    /// Launches the `GatherN` kernel `f` of this spec (`data` = `[out, a]`) or its
    /// `ScatterN` kernel (`data` = `[a, vals]`) over the `n` positions of the collapsed
    /// iteration space `dims`. `strides` holds, in the wrapper's order, the strides of the
    /// indexed operand (a gather's `a`: its `out` is C-contiguous over `dims`; a
    /// scatter's `a`), of each index array of `idx`, and (scatters) of `vals`; `axes`
    /// holds each index array's extent and stride in the indexed operand (`a`); a bad
    /// index is recorded in `rec`.
    ///
    /// # Safety
    /// - `f` is the kernel compiled for this spec (`kernel(device, self)`);
    /// - `idx` holds as many index arrays as the spec's kernel takes, and `axes` one
    ///   `(extent, stride)` per index array;
    /// - `dims` has the spec's dimensions, of product `n`, and for every position of it the
    ///   offset through each of `strides` stays inside the buffer of its operand (they are
    ///   strides of views of the operands over the iteration space), within the range of
    ///   the spec's index width;
    /// - every such offset of the indexed operand plus `j * stride` for `j` in
    ///   `[0, extent)` of each axis stays inside its buffer;
    /// - `rec` is the address of an error record from [`Device::error_record`].
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn launch_n(
        &self,
        device: &Device,
        f: &Kernel,
        grid: u32,
        data: [&Operand<'_>; 2],
        idx: &[Operand<'_>],
        (dims, strides): (&[usize], &[Vec<isize>]),
        n: usize,
        axes: &[(usize, isize)],
        rec: CUdeviceptr,
    ) -> Result<()> {
        let gather = matches!(self.kernel, GatherKernel::GatherN { .. });
        // The wrapper's Indexer has one stride set per index array plus the indexed
        // operand (and a scatter's values): a different count would shift every field.
        assert_eq!(
            strides.len(),
            idx.len() + if gather { 1 } else { 2 },
            "launch_n: stride sets do not match the kernel's Indexer"
        );
        let mut args = KernelArgs::new();
        args.ptr(data[0].ptr());
        if gather {
            args.ptr(data[1].ptr());
        }
        for i in idx {
            args.ptr(i.ptr());
        }
        if !gather {
            args.ptr(data[1].ptr());
        }
        args.indexer(self.index, n, dims, strides).i64(n as i64);
        for &(e, _) in axes {
            args.i64(e as i64);
        }
        for &(_, st) in axes {
            args.i64(st as i64);
        }
        args.ptr(rec);
        // SAFETY: arguments as the GatherN / ScatterN wrapper declares them (one pointer,
        // extent and stride per index array); the offsets, extents and the record are the
        // caller's contract (# Safety), and the kernel reaches an element of the indexed
        // operand only for indices in [0, extent) of each axis.
        unsafe { args.launch(device, f, grid) }
    }

    /// Launches the `Bincount` or `Histogram` kernel `f` of this spec over the `n`
    /// elements of `x` (collapsed `dims` and `strides`), counting into the i64 `out` of
    /// `bins` elements; `histogram` gives the `bins + 1` edges and the range `[lo, hi]`.
    /// With `shared` counters, `4 * bins` bytes of dynamic shared memory hold them.
    ///
    /// # Safety
    /// - `f` is the kernel compiled for this spec (`kernel(device, self)`), `shared` is the
    ///   spec's own (`Bincount`/`Histogram { shared }`), and `x` is of its dtype;
    /// - `dims` has `self.nd` dimensions of product `n`, and for every position of it the
    ///   offset through `strides[0]` stays inside `x`'s buffer, within `self.index`;
    /// - `out` holds `bins` i64 elements from its first (C-contiguous);
    /// - with `histogram`, the edges hold `bins + 1` elements of the dtype from their first;
    /// - with `shared`, `4 * bins` bytes fit the kernel's dynamic shared memory
    ///   (`bins <= SHARED_BINS`).
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn launch_count(
        &self,
        device: &Device,
        f: &Kernel,
        grid: u32,
        x: &Operand<'_>,
        (dims, strides): (&[usize], &[Vec<isize>]),
        n: usize,
        out: &Operand<'_>,
        bins: usize,
        histogram: Option<(&Operand<'_>, f64, f64)>,
        shared: bool,
    ) -> Result<()> {
        let mut args = KernelArgs::new();
        args.ptr(x.ptr())
            .indexer(self.index, n, dims, strides)
            .i64(n as i64);
        match histogram {
            Some((edges, lo, hi)) => {
                args.ptr(edges.ptr())
                    .i64(bins as i64)
                    .push_f64(lo)
                    .push_f64(hi)
                    .ptr(out.ptr());
            }
            None => {
                args.ptr(out.ptr()).i64(bins as i64);
            }
        }
        let smem = if shared { (bins * 4) as u32 } else { 0 };
        // SAFETY: arguments in the order the Bincount / Histogram wrapper declares them (x,
        // the Indexer, n, then edges, bins, lo, hi, out or out, bins); the caller guarantees
        // (# Safety) that `f` is this spec's kernel, that the input's offsets lie inside its
        // buffer, that `out` holds `bins` counts and the edges bins + 1 values; the kernel
        // adds a count only for a bin below `bins`; `smem` is the 4 * bins bytes the shared
        // counters take (0 without them), which the contract keeps within the limit.
        unsafe { args.launch_with(device, f, (grid, 1, 1), (f.block_threads, 1, 1), smem) }
    }

    /// Launches the `HistEdges` kernel `f` of this spec over the `n` elements of `x`
    /// (collapsed `dims` and `strides`), binned among the `bins + 1` increasing `edges`,
    /// into the zeroed `out` of `bins` elements (u64 counts, or f64 sums of `weights`, the
    /// `n` contiguous f64 weights in `x`'s C order, when the spec is `weighted`).
    ///
    /// # Safety
    /// - `f` is the kernel compiled for this spec (`kernel(device, self)`), a `HistEdges`
    ///   one, and `x` and `edges` are of its dtype;
    /// - `dims` has `self.nd` dimensions of product `n`, and for every position of it the
    ///   offset through `strides[0]` stays inside `x`'s buffer, within `self.index`;
    /// - `edges` holds `bins + 1` contiguous elements, `out` `bins` contiguous u64 (counts)
    ///   or f64 (weighted) elements, `weights` (given exactly when weighted) `n` contiguous
    ///   f64 elements;
    /// - when shared, `hist_edges_smem(dtype, bins, weighted)` is at most `HIST_EDGES_SMEM`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn launch_hist_edges(
        &self,
        device: &Device,
        f: &Kernel,
        grid: u32,
        x: &Operand<'_>,
        (dims, strides): (&[usize], &[Vec<isize>]),
        n: usize,
        weights: Option<&Operand<'_>>,
        edges: &Operand<'_>,
        bins: usize,
        out: &Operand<'_>,
    ) -> Result<()> {
        let GatherKernel::HistEdges { shared, weighted } = self.kernel else {
            return Err(Error::invalid("histogram", "not a HistEdges kernel"));
        };
        let mut args = KernelArgs::new();
        args.ptr(x.ptr())
            .ptr(weights.map_or(0, |w| w.ptr()))
            .indexer(self.index, n, dims, strides)
            .i64(n as i64)
            .ptr(edges.ptr())
            .i64(bins as i64)
            .ptr(out.ptr());
        let smem = if shared {
            hist_edges_smem(self.dtype, bins, weighted) as u32
        } else {
            0
        };
        // SAFETY: arguments in the order the HistEdges wrapper declares them (x, w, the
        // Indexer, n, edges, bins, out); the caller guarantees (# Safety) that `f` is this
        // spec's kernel, that the input's offsets lie inside its buffer, that the weights
        // (read only when weighted) cover `n` elements, the edges `bins + 1` and `out`
        // `bins`; the kernel adds only to bins below `bins`; `smem` is the counters and
        // edges the shared kernel keeps, within the default limit by the contract.
        unsafe { args.launch_with(device, f, (grid, 1, 1), (f.block_threads, 1, 1), smem) }
    }

    /// Launches the `Edges` kernel of this spec: the `bins + 1` edges of `bins` uniform
    /// bins over `[lo, hi]` into `edges`, which holds `bins + 1` elements.
    ///
    /// Safe: the function looks its kernel up itself and checks that `edges` is a
    /// C-contiguous operand of `bins + 1` elements of the spec's dtype.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `edges` is not such an operand; a compile or launch
    /// error.
    pub(crate) fn launch_edges(
        &self,
        device: &Device,
        edges: &Operand<'_>,
        bins: usize,
        (lo, hi): (f64, f64),
    ) -> Result<()> {
        let l = edges.layout();
        if self.kernel != GatherKernel::Edges
            || edges.dtype() != self.dtype
            || !l.is_c_contiguous()
            || l.size() != bins + 1
        {
            return Err(Error::invalid(
                "histogram",
                format!(
                    "the edges must be a C-contiguous array of {} {} elements",
                    bins + 1,
                    self.dtype.name()
                ),
            ));
        }
        let f = kernel(device, self)?;
        let grid = (bins + 1).div_ceil(f.block_threads as usize) as u32;
        let mut args = KernelArgs::new();
        args.ptr(edges.ptr())
            .i64(bins as i64)
            .push_f64(lo)
            .push_f64(hi);
        // SAFETY: arguments in the order the Edges wrapper declares them (edges, bins, lo,
        // hi); `f` is this spec's kernel, looked up here; `edges` was checked above to hold
        // bins + 1 contiguous elements of the dtype, and the kernel writes indices 0..=bins.
        unsafe { args.launch(device, &f, grid) }
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
                assert!(!src.contains("IW>"), "{sym}");
                assert_eq!(src.matches('{').count(), src.matches('}').count(), "{sym}");
                assert!(symbols.insert(sym));
            }
        }
    }
}
