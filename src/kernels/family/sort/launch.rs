//! The sort family's launches: each builds a kernel's arguments in the order its wrapper
//! declares them and holds the one unsafe launch.

use super::*;

/// Dimensions and one operand's strides along them.
pub(crate) type Dims<'a> = (&'a [usize], &'a [isize]);

/// The zeroed state a radix pass reads and writes: its digit histogram, its look-back
/// words and its tile counter.
pub(crate) struct PassState {
    /// 256 u64 counts of the pass's digit.
    pub(crate) hist: CUdeviceptr,
    /// The look-back words, a row per tile.
    pub(crate) look: CUdeviceptr,
    /// The pass's tile counter.
    pub(crate) counter: CUdeviceptr,
}

impl SortSpec {
    /// Launches the `Rows` kernel `f` of this spec: `n_rows` rows of `len` elements of
    /// `input` at the row offsets of `rows` (kept dimensions, the input's and the outputs'
    /// strides), sorted into the keys `ko` and indices `io` (0 when not written), the first
    /// `kout` of each; `sin` and `sout` are the strides along the axis.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn launch_rows(
        &self,
        device: &Device,
        f: &Kernel,
        grid: u32,
        input: &Operand<'_>,
        (ko, io): (CUdeviceptr, CUdeviceptr),
        rows: &(Vec<usize>, Vec<isize>, Vec<isize>),
        (n_rows, len, kout): (usize, usize, usize),
        (sin, sout): (isize, isize),
    ) -> Result<()> {
        let mut args = KernelArgs::new();
        args.ptr(input.ptr()).ptr(ko).ptr(io);
        args.indexer(self.index, n_rows, &rows.0, &[&rows.1, &rows.2, &rows.2]);
        for v in [n_rows, len] {
            args.i64(v as i64);
        }
        args.i64(sin as i64)
            .i64(sout as i64)
            .i64(sout as i64)
            .i64(kout as i64);
        // SAFETY: arguments as the Rows wrapper declares them; every row offset the
        // plan gives, plus j * stride for j < len (input) or j < kout (outputs), lies
        // inside the operands' buffers; null outputs are not written (their flag is
        // off in the spec).
        unsafe { args.launch(device, f, grid) }
    }

    /// Launches the `Hist` kernel `f` of this spec: the digit histograms of the `n`
    /// elements of `input` (rows of `len`, `row_passes` passes over the row index) into
    /// `hist` (u64, 256 per pass), zeroing the `clear_words` 16-byte words at `clear`,
    /// with `smem` bytes of dynamic shared memory (`hist_smem`).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn launch_hist(
        &self,
        device: &Device,
        f: &Kernel,
        grid: u32,
        smem: u32,
        input: &Operand<'_>,
        in_dims: Dims<'_>,
        (n, len, row_passes): (usize, usize, u8),
        hist: CUdeviceptr,
        (clear, clear_words): (CUdeviceptr, usize),
    ) -> Result<()> {
        let mut args = KernelArgs::new();
        args.ptr(input.ptr())
            .indexer(self.index, n, in_dims.0, &[in_dims.1])
            .i64(n as i64)
            .i64(len as i64)
            .i64(row_passes as i64)
            .ptr(hist)
            .ptr(clear)
            .i64(clear_words as i64);
        // SAFETY: arguments as the Hist wrapper declares them; the input's offsets of
        // flat indices below n lie inside its buffer; `hist` has passes * 256 words;
        // `clear` is the 16-byte aligned rest of the state past what the memset cleared (a
        // multiple of 256 bytes, as is the state's size), which no kernel before the
        // second pass touches; the shared bytes are those `cuarray_hist_words` asks
        // (`hist_smem`).
        unsafe { args.launch_with(device, f, (grid, 1, 1), (f.block_threads, 1, 1), smem) }
    }

    /// Launches one radix `Pass` kernel `f` of this spec on exactly `tiles` blocks with
    /// `smem` bytes of dynamic shared memory (`pass_smem`): reads `input` (first pass)
    /// or the keys and values `src`, writes the keys and values `dst` or, on the last
    /// pass, the outputs `ko` and `io` (0 when not written) at the offsets of `out_dims`
    /// for `n_out` positions. `words` are n, len, kout, the digit's shift, whether the
    /// pass sorts by row, and the look-ahead.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn launch_pass(
        &self,
        device: &Device,
        f: &Kernel,
        (tiles, smem): (u32, u32),
        input: &Operand<'_>,
        in_dims: Dims<'_>,
        (src_keys, src_vals, dst_keys, dst_vals): (
            CUdeviceptr,
            CUdeviceptr,
            CUdeviceptr,
            CUdeviceptr,
        ),
        (ko, io): (CUdeviceptr, CUdeviceptr),
        (out_dims, n_out): (Dims<'_>, usize),
        words: &[i64; 6],
        state: &PassState,
    ) -> Result<()> {
        let n = words[0] as usize;
        let mut args = KernelArgs::new();
        args.ptr(input.ptr())
            .indexer(self.index, n, in_dims.0, &[in_dims.1])
            .ptr(src_keys)
            .ptr(src_vals)
            .ptr(dst_keys)
            .ptr(dst_vals)
            .ptr(ko)
            .ptr(io)
            .indexer(self.index, n_out, out_dims.0, &[out_dims.1, out_dims.1])
            .i64s(words)
            .ptr(state.hist)
            .ptr(state.look)
            .ptr(state.counter);
        // SAFETY: arguments as the Pass wrapper declares them. Exactly `tiles` blocks, one
        // tile each (the look-back array has `tiles` rows), with the shared bytes
        // `cuarray_pass_smem` asks (`pass_smem` mirrors it); keys and values in and out
        // hold n entries; outputs are written at offsets of flat indices below
        // n_rows * kout through their layouts.
        unsafe { args.launch_with(device, f, (tiles, 1, 1), (f.block_threads, 1, 1), smem) }
    }

    /// Launches the `Search` kernel `f` of this spec: for the `n` elements of `values`
    /// (collapsed `dims`, the values' then the output's strides), their insertion points
    /// in `sorted` (`m` elements of stride `sa`) into `out`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn launch_search(
        &self,
        device: &Device,
        f: &Kernel,
        grid: u32,
        (sorted, m, sa): (&Operand<'_>, usize, isize),
        values: &Operand<'_>,
        out: &Operand<'_>,
        (dims, strides): (&[usize], &[Vec<isize>]),
        n: usize,
    ) -> Result<()> {
        let mut args = KernelArgs::new();
        args.ptr(sorted.ptr())
            .i64(m as i64)
            .i64(sa as i64)
            .ptr(values.ptr())
            .ptr(out.ptr())
            .indexer(self.index, n, dims, strides)
            .i64(n as i64);
        // SAFETY: arguments as the Search wrapper declares them; sorted[i * sa] for i < m,
        // and the values' and output's offsets of flat indices below n, lie inside their
        // buffers.
        unsafe { args.launch(device, f, grid) }
    }

    /// Launches the `TopkHist` kernel `f` of this spec: the histogram of digit `pass` of
    /// the `n` elements of `input` (top `k`) into `hist` (u64, key bytes x 256).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn launch_topk_hist(
        &self,
        device: &Device,
        f: &Kernel,
        grid: u32,
        input: &Operand<'_>,
        in_dims: Dims<'_>,
        (n, k, pass): (usize, usize, usize),
        hist: &Operand<'_>,
    ) -> Result<()> {
        let mut args = KernelArgs::new();
        args.ptr(input.ptr())
            .indexer(self.index, n, in_dims.0, &[in_dims.1])
            .i64(n as i64)
            .i64(k as i64)
            .i64(pass as i64)
            .ptr(hist.ptr());
        // SAFETY: arguments as the TopkHist wrapper declares them; the input's offsets of
        // flat indices below n lie inside its buffer; `hist` holds key bytes x 256
        // counters.
        unsafe { args.launch(device, f, grid) }
    }

    /// Launches the `TopkSelect` kernel `f` of this spec on `tiles` blocks: the tile counts
    /// of the `n` elements of `input` into `counts` (u32, `2 x tiles`), or, when writing,
    /// the `k` candidates into `cand` and `cand_idx`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn launch_topk_select(
        &self,
        device: &Device,
        f: &Kernel,
        tiles: usize,
        input: &Operand<'_>,
        in_dims: Dims<'_>,
        (n, k): (usize, usize),
        (hist, counts): (&Operand<'_>, &Operand<'_>),
        (cand, cand_idx): (CUdeviceptr, CUdeviceptr),
    ) -> Result<()> {
        let mut args = KernelArgs::new();
        args.ptr(input.ptr())
            .indexer(self.index, n, in_dims.0, &[in_dims.1])
            .i64(n as i64)
            .i64(k as i64)
            .ptr(hist.ptr())
            .ptr(counts.ptr())
            .i64(tiles as i64)
            .ptr(cand)
            .ptr(cand_idx);
        // SAFETY: arguments as the TopkSelect wrapper declares them; one block per tile of
        // 4096 elements; `counts` holds 2 x tiles entries; the candidates written are
        // exactly k (the histograms' selection), at positions below k of `cand` and
        // `cand_idx`.
        unsafe { args.launch(device, f, tiles as u32) }
    }
}
