//! The sort family's launches: each builds a kernel's arguments in the order its wrapper
//! declares them and holds the one unsafe launch.

use super::*;
use crate::kernels::abi::Scalar;

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
    ///
    /// # Safety
    /// - `f` is the kernel compiled for this spec (`kernel(device, self)`), and `input` is of
    ///   its dtype;
    /// - for every row below `n_rows` of `rows.0` (the spec's `nk` dimensions), its offset
    ///   through `rows.1` plus `j * sin` for `j < len` stays inside `input`'s buffer, within
    ///   `self.index`;
    /// - `ko` (keys of the dtype) and `io` (i64) are 0 exactly when the spec's `out_keys` /
    ///   `out_idx` is off, and otherwise address live buffers in which every row's offset
    ///   through `rows.2` plus `j * sout` for `j < kout` lies, `kout <= len`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn launch_rows(
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
        // SAFETY: arguments in the order the Rows wrapper declares them (input, ko, io, the
        // Indexer, n_rows, len, sin, sout, sout, kout); the caller guarantees (# Safety) that
        // `f` is this spec's kernel and that every row offset, plus j * stride for j < len
        // (input) or j < kout (outputs), lies inside the buffers; null outputs are not
        // written (their flag is off in the spec).
        unsafe { args.launch(device, f, grid) }
    }

    /// Launches the `Hist` kernel `f` of this spec: the digit histograms of the `n`
    /// elements of `input` (rows of `len`, `row_passes` passes over the row index) into
    /// `hist` (u64, 256 per pass), zeroing the `clear_words` 16-byte words at `clear`,
    /// with `smem` bytes of dynamic shared memory (`hist_smem`).
    ///
    /// # Safety
    /// - `f` is the kernel compiled for this spec (`kernel(device, self)`), and `input` is of
    ///   its dtype;
    /// - `in_dims` has the spec's `nd` dimensions of product `n` (rows of `len`), and the
    ///   input's offsets of flat indices below `n` through them stay inside its buffer,
    ///   within `self.index`;
    /// - `hist` holds `256 * passes` u64 (passes = key bytes + `row_passes`), zeroed;
    /// - `clear` is 16-byte aligned and the `clear_words` 16-byte words from it are device
    ///   memory that no kernel reads before this one finishes (the later passes' look-back
    ///   words);
    /// - `smem` is `hist_smem` of the key size and the spec's copies (what
    ///   `cuarray_hist_words` asks).
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn launch_hist(
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
        // SAFETY: arguments in the order the Hist wrapper declares them (input, the Indexer,
        // n, len, row_passes, hist, clear, clear_words); the caller guarantees (# Safety)
        // that `f` is this spec's kernel, that the input's offsets of flat indices below n
        // lie inside its buffer, that `hist` has passes * 256 words, that the words at
        // `clear` are free to zero, and that `smem` is what `cuarray_hist_words` asks.
        unsafe { args.launch_with(device, f, (grid, 1, 1), (f.block_threads, 1, 1), smem) }
    }

    /// Launches one radix `Pass` kernel `f` of this spec on exactly `tiles` blocks with
    /// `smem` bytes of dynamic shared memory (`pass_smem`): reads `input` (first pass)
    /// or the keys and values `src`, writes the keys and values `dst` or, on the last
    /// pass, the outputs `ko` and `io` (0 when not written) at the offsets of `out_dims`
    /// for `n_out` positions. `words` are n, len, kout, the digit's shift, whether the
    /// pass sorts by row, and the look-ahead.
    ///
    /// # Safety
    /// - `f` is the kernel compiled for this spec (`kernel(device, self)`), and `input` is of
    ///   its dtype;
    ///   the spec's `first` / `last` / `values` flags match the pointers passed;
    /// - `in_dims` has the spec's `nd` dimensions of product `n = words[0]` (rows of
    ///   `words[1]`), and the input's offsets of flat indices below `n` stay inside its
    ///   buffer, within `self.index`;
    /// - `src_*` (not on the first pass) hold the `n` keys and values the previous pass
    ///   wrote, `dst_*` (not on the last pass) have room for `n` keys and values (of the
    ///   spec's value width); the values are 0 when the spec has none;
    /// - on the last pass, `ko` / `io` are 0 exactly when `out_keys` / `out_idx` is off, else
    ///   live buffers inside which lie the offsets through `out_dims` (the spec's `nd`
    ///   dimensions) of the `n_out = n_rows * kout` flat output indices;
    /// - `tiles` is `n.div_ceil(threads * ipt)` of the spec and `smem` its `pass_smem`;
    /// - `state` is this pass's part of a zeroed state no other launch uses meanwhile:
    ///   `hist` the 256 u64 counts the Hist launch wrote, `look` `tiles * 256` look-back
    ///   words of the spec's width, `counter` a u32.
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn launch_pass(
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
        // SAFETY: arguments in the order the Pass wrapper declares them (input, its Indexer,
        // src and dst keys and values, ko, io, the outputs' Indexer, the six words, hist,
        // look, counter). Exactly `tiles` blocks, one tile each; the caller guarantees
        // (# Safety) that `f` is this spec's kernel, that the look-back array has `tiles`
        // rows, that `smem` is what `cuarray_pass_smem` asks (`pass_smem` mirrors it), that
        // keys and values in and out hold n entries and that outputs written at offsets of
        // flat indices below n_rows * kout through `out_dims` lie inside their buffers.
        unsafe { args.launch_with(device, f, (tiles, 1, 1), (f.block_threads, 1, 1), smem) }
    }

    /// Launches the `Search` kernel `f` of this spec: for the `n` elements of `values`
    /// (collapsed `dims`, the values' then the output's strides), their insertion points
    /// in `sorted` (`m` elements of stride `sa`) into `out`.
    ///
    /// # Safety
    /// - `f` is the kernel compiled for this spec (`kernel(device, self)`), and `sorted` and
    ///   `values` are of its dtype, `out` i64;
    /// - `sorted[i * sa]` for `i < m` lies inside `sorted`'s buffer;
    /// - `dims` has the spec's `nd` dimensions of product `n`, and the offsets of flat
    ///   indices below `n` through `strides[0]` stay inside `values`'s buffer and through
    ///   `strides[1]` inside `out`'s, within `self.index`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn launch_search(
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
        // SAFETY: arguments in the order the Search wrapper declares them (sorted, m, sa,
        // values, out, the Indexer, n); the caller guarantees (# Safety) that `f` is this
        // spec's kernel and that sorted[i * sa] for i < m, and the values' and output's
        // offsets of flat indices below n, lie inside their buffers.
        unsafe { args.launch(device, f, grid) }
    }

    /// Launches the `Interp` kernel `f` of this spec: for each of the `n` values (collapsed
    /// `dims`, `strides[0]` the values', `strides[1]` the output's), NumPy's interp through
    /// the `m` points `(xp[i * sxp], fp[i * sfp])` into `out`; `left` / `right` replace
    /// `fp[0]` / `fp[m - 1]` outside when given.
    ///
    /// # Safety
    /// - `f` is the kernel compiled for this spec (`kernel(device, self)`), an `Interp`
    ///   one, and `xp`, `fp`, `values` and `out` are of its dtype;
    /// - `m >= 1`, and `xp[i * sxp]`, `fp[i * sfp]` for `i < m` lie inside their buffers;
    /// - `dims` has the spec's `nd` dimensions of product `n`, and the values' and output's
    ///   offsets of flat indices below `n` lie inside their buffers, within `self.index`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn launch_interp(
        &self,
        device: &Device,
        f: &Kernel,
        grid: u32,
        (xp, sxp, fp, sfp, m): (&Operand<'_>, isize, &Operand<'_>, isize, usize),
        values: &Operand<'_>,
        out: &Operand<'_>,
        (dims, strides): (&[usize], &[Vec<isize>]),
        n: usize,
        (left, right): (Option<f64>, Option<f64>),
    ) -> Result<()> {
        let mut args = KernelArgs::new();
        args.ptr(xp.ptr())
            .i64(m as i64)
            .i64(sxp as i64)
            .ptr(fp.ptr())
            .i64(sfp as i64)
            .ptr(values.ptr())
            .ptr(out.ptr())
            .indexer(self.index, n, dims, strides)
            .i64(n as i64)
            .scalar(&Scalar::of(i32::from(left.is_some())))
            .scalar(&Scalar::of(i32::from(right.is_some())))
            .push_f64(left.unwrap_or(0.0))
            .push_f64(right.unwrap_or(0.0));
        // SAFETY: arguments in the order the Interp wrapper declares them (xp, m, sxp, fp,
        // sfp, values, out, the Indexer, n, has_left, has_right, left, right); the caller
        // guarantees (# Safety) that `f` is this spec's kernel, that the m points and the
        // values' and output's offsets of flat indices below n lie inside their buffers.
        unsafe { args.launch(device, f, grid) }
    }

    /// Launches the `TopkHist` kernel `f` of this spec: the histogram of digit `pass` of
    /// the `n` elements of `input` (top `k`) into `hist` (u64, key bytes x 256).
    ///
    /// # Safety
    /// - `f` is the kernel compiled for this spec (`kernel(device, self)`), and `input` is of
    ///   its dtype;
    /// - `in_dims` has the spec's `nd` dimensions of product `n`, and the input's offsets of
    ///   flat indices below `n` through them stay inside its buffer, within `self.index`;
    /// - `hist` holds key bytes x 256 u64 counters from its first, zeroed before the first
    ///   pass and holding the earlier passes' counts after, and `pass` is below key bytes.
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn launch_topk_hist(
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
        // SAFETY: arguments in the order the TopkHist wrapper declares them (input, the
        // Indexer, n, k, pass, hist); the caller guarantees (# Safety) that `f` is this
        // spec's kernel, that the input's offsets of flat indices below n lie inside its
        // buffer and that `hist` holds key bytes x 256 counters.
        unsafe { args.launch(device, f, grid) }
    }

    /// Launches the `TopkSelect` kernel `f` of this spec on `tiles` blocks: the tile counts
    /// of the `n` elements of `input` into `counts` (u32, `2 x tiles`), or, when writing,
    /// the `k` candidates into `cand` and `cand_idx`.
    ///
    /// # Safety
    /// - `f` is the kernel compiled for this spec (`kernel(device, self)`), and `input` is of
    ///   its dtype;
    ///   the spec's `write` flag is on exactly when `cand` and `cand_idx` are not 0;
    /// - `in_dims` has the spec's `nd` dimensions of product `n`, and the input's offsets of
    ///   flat indices below `n` through them stay inside its buffer, within `self.index`;
    /// - `tiles` is `n.div_ceil(256 * TOPK_IPT)`; `hist` holds the key bytes x 256 counts of
    ///   every `TopkHist` pass over the same input and `k`; `counts` holds `2 * tiles` u32,
    ///   written by the counting launch before a writing one;
    /// - when writing, `cand` (keys of the dtype) and `cand_idx` (i64) have room for `k`
    ///   elements, `k <= n`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn launch_topk_select(
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
        // SAFETY: arguments in the order the TopkSelect wrapper declares them (input, the
        // Indexer, n, k, hist, counts, tiles, cand, cand_idx); one block per tile of 4096
        // elements; the caller guarantees (# Safety) that `f` is this spec's kernel, that
        // `counts` holds 2 x tiles entries and that `hist` is the selection's histogram, so
        // the candidates written are exactly k, at positions below k of `cand` and
        // `cand_idx`, which have room for them.
        unsafe { args.launch(device, f, tiles as u32) }
    }
}
