//! The signal family (`signal.cuh`): the direct convolutions of `cuarray::signal`.
//!
//! - [`SignalKernel::ConvTile`]: `(out, x, v, ConvTileShape, fill)`, a 2-D (or 1-D, or
//!   batch-of-rows) convolution at any strides of x with the fill / wrap / symmetric
//!   boundaries, one shared-memory tile of `ty x tx * CONV_TILE_P` outputs per block
//!   iteration, each thread summing `CONV_TILE_P` neighbours with a register window;
//! - [`SignalKernel::ConvNd`]: `(out, x, v, ConvNdShape, fill)`, any rank up to 8 at any
//!   strides (compiled for the rank up to [`CONV_RANKS`]), with the fill / wrap /
//!   symmetric boundaries;
//! - [`SignalKernel::Iir`]: the three stages of a cascade of IIR sections run as a chunked
//!   scan over its state (`IirStage`), the order and section count compiled in:
//!   `ChunkEnd (e, x, coef, rows, n, c, nch)`, `Carry (start, e, coef, zi, rows, c, nch)`,
//!   `Apply (y, x, coef, start, zf, rows, n, c, nch)`.

use crate::element::DType;
use crate::kernels::abi::KernelArgs;
use crate::kernels::cache::Kernel;
use crate::kernels::emit;
use crate::kernels::{Family, IndexWidth, KernelSpec, BLOCK};
use crate::{Device, Result};
use cudarc::driver::sys::CUdeviceptr;
use std::fmt::Write as _;

/// Outputs of one `ConvTile` tile per thread (`CONV_TILE_P` in `signal.cuh`).
pub(crate) const CONV_TILE_P: usize = 7;

/// The kernels of the family.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SignalKernel {
    /// Tiled 2-D convolution (1-D signals and batches of rows as one-row kernels).
    ConvTile,
    /// Direct n-d convolution with a boundary rule.
    ConvNd {
        /// The rank, compile-time (1 to [`CONV_RANKS`]), or 0: read at run time.
        rank: u8,
    },
    /// One stage of a cascade of `sections` IIR sections of order `order`.
    Iir {
        /// Which stage.
        stage: IirStage,
        /// Order of each section (1..=8).
        order: u8,
        /// Sections in the cascade (`order * sections <= 8`).
        sections: u8,
    },
}

/// Ranks the direct n-d convolution is specialised for (larger ones read it at run time).
pub(crate) const CONV_RANKS: usize = 3;

/// The stages of the chunked IIR scan (`signal.cuh`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IirStage {
    /// Each chunk's end state from a zero start.
    ChunkEnd,
    /// Each chunk's true start state (a scan over the chunks of a row).
    Carry,
    /// The outputs, and the final states.
    Apply,
}

/// Largest state (order x sections) of one IIR kernel.
pub(crate) const IIR_MAX_STATE: usize = 8;

impl SignalKernel {
    fn name(self) -> &'static str {
        match self {
            SignalKernel::ConvTile => "convtile",
            SignalKernel::ConvNd { .. } => "convnd",
            SignalKernel::Iir { stage, .. } => match stage {
                IirStage::ChunkEnd => "iir_end",
                IirStage::Carry => "iir_carry",
                IirStage::Apply => "iir_apply",
            },
        }
    }
}

/// One kernel of the signal family for one float type.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SignalSpec {
    /// Which kernel.
    pub kernel: SignalKernel,
    /// `f32` or `f64`.
    pub dtype: DType,
}

impl From<SignalSpec> for KernelSpec {
    fn from(spec: SignalSpec) -> KernelSpec {
        KernelSpec::new(spec)
    }
}

/// Every spec of the family for `dtype` (the NVRTC tier compiles them all).
pub fn specs_for(dtype: DType) -> Vec<SignalSpec> {
    let mut kernels = vec![SignalKernel::ConvTile];
    kernels.extend((0..=CONV_RANKS as u8).map(|rank| SignalKernel::ConvNd { rank }));
    for (order, sections) in [(1, 1), (2, 1), (2, 4), (8, 1), (3, 2)] {
        for stage in [IirStage::ChunkEnd, IirStage::Carry, IirStage::Apply] {
            kernels.push(SignalKernel::Iir {
                stage,
                order,
                sections,
            });
        }
    }
    kernels
        .into_iter()
        .map(|kernel| SignalSpec { kernel, dtype })
        .collect()
}

impl Family for SignalSpec {
    fn headers(&self) -> &'static [&'static str] {
        &["signal.cuh"]
    }

    fn symbol(&self) -> String {
        let variant = match self.kernel {
            SignalKernel::Iir {
                order, sections, ..
            } => format!("n{order}k{sections}"),
            SignalKernel::ConvNd { rank } => format!("direct_r{rank}"),
            _ => "direct".to_string(),
        };
        emit::symbol(
            "signal",
            self.kernel.name(),
            &[self.dtype],
            &[self.dtype],
            &[],
            &variant,
            IndexWidth::I64,
        )
    }

    fn render(&self, src: &mut String) {
        emit::typedef(src, self.dtype.cuda_type(), "T");
        let mut params = vec!["T* p_out", "const T* p_x", "const T* p_v"];
        match self.kernel {
            SignalKernel::ConvTile => params.extend(["const ConvTileShape s", "const double fill"]),
            SignalKernel::ConvNd { .. } => {
                params.extend(["const ConvNdShape s", "const double fill"])
            }
            SignalKernel::Iir { stage, .. } => {
                params = match stage {
                    IirStage::ChunkEnd => vec!["T* p_e", "const T* p_x", "const T* p_coef"],
                    IirStage::Carry => vec![
                        "T* p_start",
                        "const T* p_e",
                        "const T* p_coef",
                        "const T* p_zi",
                    ],
                    IirStage::Apply => vec![
                        "T* p_y",
                        "const T* p_x",
                        "const T* p_coef",
                        "const T* p_start",
                        "T* p_zf",
                    ],
                };
                params.push("const long long rows");
                if stage != IirStage::Carry {
                    params.push("const long long n");
                }
                params.extend(["const long long c", "const long long nch"]);
            }
        }
        let params: Vec<String> = params.into_iter().map(String::from).collect();
        emit::open(src, BLOCK, &self.symbol(), &params);
        let _ = match self.kernel {
            SignalKernel::ConvTile => {
                writeln!(src, "    conv_tile<T>(p_x, p_v, p_out, s, (T)fill);\n}}")
            }
            SignalKernel::ConvNd { rank } => {
                writeln!(
                    src,
                    "    conv_nd<T, {rank}>(p_x, p_v, p_out, s, (T)fill);\n}}"
                )
            }
            SignalKernel::Iir {
                stage,
                order,
                sections,
            } => {
                let t = format!("<T, {order}, {sections}>");
                match stage {
                    IirStage::ChunkEnd => writeln!(
                        src,
                        "    iir_chunk_end{t}(p_e, p_x, p_coef, rows, n, c, nch);\n}}"
                    ),
                    IirStage::Carry => writeln!(
                        src,
                        "    iir_carry{t}(p_start, p_e, p_coef, p_zi, rows, c, nch);\n}}"
                    ),
                    IirStage::Apply => writeln!(
                        src,
                        "    iir_apply{t}(p_y, p_x, p_coef, p_start, p_zf, rows, n, c, nch);\n}}"
                    ),
                }
            }
        };
    }
}

/// The host side of `ConvNdShape`: rank, output count, boundary (0 fill, 1 wrap, 2
/// symm), then eight slots each of the output extents, x extents, x strides, v extents,
/// v strides and starts.
pub(crate) struct ConvNdShape {
    pub(crate) words: [i64; 3 + 6 * 8],
}

impl ConvNdShape {
    /// The shape of a convolution of rank `out.len() <= 8` (the caller checks the rank).
    pub(crate) fn new(
        boundary: i64,
        out: &[usize],
        x: (&[usize], &[isize]),
        v: (&[usize], &[isize]),
        start: &[isize],
    ) -> ConvNdShape {
        let mut words = [0i64; 3 + 6 * 8];
        words[0] = out.len() as i64;
        words[1] = out.iter().product::<usize>() as i64;
        words[2] = boundary;
        for d in 0..out.len() {
            words[3 + d] = out[d] as i64;
            words[11 + d] = x.0[d] as i64;
            words[19 + d] = x.1[d] as i64;
            words[27 + d] = v.0[d] as i64;
            words[35 + d] = v.1[d] as i64;
            words[43 + d] = start[d] as i64;
        }
        ConvNdShape { words }
    }
}

/// The host side of `ConvTileShape`: x extents and strides, v extents (v contiguous),
/// output extents, the starts, the boundary (0 fill, 1 wrap, 2 symm) and the block's
/// threads along y and x.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ConvTileShape {
    pub(crate) x: [usize; 2],
    pub(crate) x_strides: [isize; 2],
    pub(crate) v: [usize; 2],
    pub(crate) out: [usize; 2],
    pub(crate) start: [isize; 2],
    pub(crate) boundary: i64,
}

impl ConvTileShape {
    /// The block's threads along y and x: one row of `BLOCK` for a one-row kernel, else
    /// 8 rows of 32.
    pub(crate) fn threads(&self) -> (usize, usize) {
        if self.v[0] == 1 {
            (1, BLOCK as usize)
        } else {
            (BLOCK as usize / 32, 32)
        }
    }

    /// Elements of dynamic shared memory: the taps and the staged tile.
    pub(crate) fn shared_elems(&self) -> usize {
        let (ty, tx) = self.threads();
        let [kh, kw] = self.v;
        kh * kw + (ty + kh - 1) * (tx * CONV_TILE_P + kw)
    }

    /// Tiles of outputs (one per block iteration).
    pub(crate) fn tiles(&self) -> usize {
        let (ty, tx) = self.threads();
        self.out[0].div_ceil(ty) * self.out[1].div_ceil(tx * CONV_TILE_P)
    }

    fn words(&self) -> [i64; 13] {
        let (ty, tx) = self.threads();
        [
            self.x[0] as i64,
            self.x[1] as i64,
            self.x_strides[0] as i64,
            self.x_strides[1] as i64,
            self.v[0] as i64,
            self.v[1] as i64,
            self.out[0] as i64,
            self.out[1] as i64,
            self.start[0] as i64,
            self.start[1] as i64,
            self.boundary,
            ty as i64,
            tx as i64,
        ]
    }
}

impl SignalSpec {
    /// Launches the `ConvTile` kernel `f` of this spec with `grid` blocks.
    ///
    /// # Safety
    /// - `f` is the kernel compiled for this spec, `out`, `x` and `v` of its dtype;
    /// - every element of `x` that `shape`'s extents and strides reach lies inside a live
    ///   buffer, every extent is at least 1; `v` addresses `kh * kw` contiguous elements and
    ///   `out` the output count of contiguous elements that nothing else touches meanwhile;
    /// - `shape.shared_elems() * size` bytes of shared memory fit the device (48 KB).
    pub(crate) unsafe fn launch_conv_tile(
        &self,
        device: &Device,
        f: &Kernel,
        grid: u32,
        (out, x, v): (CUdeviceptr, CUdeviceptr, CUdeviceptr),
        shape: &ConvTileShape,
        fill: f64,
    ) -> Result<()> {
        let mut args = KernelArgs::new();
        args.ptr(out).ptr(x).ptr(v);
        args.i64s(&shape.words());
        args.push_f64(fill);
        let shared = shape.shared_elems() * self.dtype.size();
        // SAFETY: arguments in the order of the ConvTile wrapper (out, x, v, ConvTileShape,
        // fill); the caller guarantees (# Safety) the extents and the shared size.
        unsafe {
            args.launch_with(
                device,
                f,
                (grid, 1, 1),
                (f.block_threads, 1, 1),
                shared as u32,
            )
        }
    }

    /// Launches the `ConvNd` kernel `f` of this spec with `grid` blocks.
    ///
    /// # Safety
    /// - `f` is the kernel compiled for this spec, `out`, `x` and `v` of its dtype;
    /// - every element of `x` and `v` that `shape`'s extents and strides reach lies inside
    ///   a live buffer; `out` addresses `shape`'s output count of contiguous elements that
    ///   nothing else touches meanwhile; every x extent is at least 1.
    pub(crate) unsafe fn launch_convnd(
        &self,
        device: &Device,
        f: &Kernel,
        grid: u32,
        (out, x, v): (CUdeviceptr, CUdeviceptr, CUdeviceptr),
        shape: &ConvNdShape,
        fill: f64,
    ) -> Result<()> {
        let mut args = KernelArgs::new();
        args.ptr(out).ptr(x).ptr(v);
        args.i64s(&shape.words);
        args.push_f64(fill);
        // SAFETY: arguments in the order of the ConvNd wrapper (out, x, v, ConvNdShape,
        // fill); the caller guarantees (# Safety) that every element reached is in bounds.
        unsafe { args.launch(device, f, grid) }
    }
}

/// The sizes of one IIR run: rows of `n` contiguous samples in `nch` chunks of `c`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct IirDims {
    pub(crate) rows: usize,
    pub(crate) n: usize,
    pub(crate) c: usize,
    pub(crate) nch: usize,
}

impl SignalSpec {
    /// Launches the IIR stage `f` of this spec (an `Iir` kernel) with `grid` blocks;
    /// `ptrs` in the wrapper's order (ChunkEnd: e, x, coef; Carry: start, e, coef, zi;
    /// Apply: y, x, coef, start, zf), 0 for an absent zi or zf.
    ///
    /// # Safety
    /// - `f` is the kernel compiled for this spec and every buffer is of its dtype;
    /// - with S = order * sections: `x` and `y` address `rows * n` contiguous elements,
    ///   `e` and `start` `rows * nch * S`, `zi` and `zf` (when not 0) `rows * S`, `coef`
    ///   `sections * (2 * order + 2)`; `nch = ceil(n / c) >= 1`;
    /// - the buffers the stage writes (e; start; y and zf) are touched by nothing else
    ///   meanwhile.
    pub(crate) unsafe fn launch_iir(
        &self,
        device: &Device,
        f: &Kernel,
        grid: u32,
        ptrs: &[CUdeviceptr],
        d: IirDims,
    ) -> Result<()> {
        let mut args = KernelArgs::new();
        for &p in ptrs {
            args.ptr(p);
        }
        args.i64(d.rows as i64);
        if !matches!(
            self.kernel,
            SignalKernel::Iir {
                stage: IirStage::Carry,
                ..
            }
        ) {
            args.i64(d.n as i64);
        }
        args.i64(d.c as i64).i64(d.nch as i64);
        // SAFETY: arguments in the order of the stage's wrapper (the pointers as the caller
        // lists them, then rows, n except for Carry, c, nch); the caller guarantees
        // (# Safety) the kernel, the extents and the exclusive access.
        unsafe { args.launch(device, f, grid) }
    }
}
