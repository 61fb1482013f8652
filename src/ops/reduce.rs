//! Reductions: the pure plan (axes, kept and reduced dimensions, strategy, splits) and
//! the launch of one or two passes of the reduce family. The ops themselves (pre-map,
//! operator with identity, post-map) are in the catalogue.

use super::Operand;
use crate::element::DType;
use crate::kernels::abi::Scalar;
use crate::kernels::cache::{kernel, Kernel};
use crate::kernels::family::reduce::{launch_pass, ReduceArgs, ReduceSpec, Variant};
use crate::kernels::{IndexWidth, Text, TypeList, MAX_DIMS, MAX_OPERANDS, MAX_SCALARS};
use crate::ops::launch::{grid_for, index_width};
use crate::shape::{collapse, normalize_axis, Layout};
use crate::{Device, Error, Result};
use cudarc::driver::sys::CUdeviceptr;

pub(crate) use super::catalogue::mean_acc;
pub(crate) use super::catalogue::{ReduceDef, ReduceOp};

/// Output rows a split reduction can finish in one launch (the per-stream counters).
pub(crate) const ROW_COUNTERS: usize = 4096;

/// Makes ready what reductions keep per stream (the row counters of one-launch split
/// reductions), so that a capture on `device`'s stream finds it: scratch memory cannot
/// be allocated during a capture.
pub(crate) fn prepare_capture(device: &Device) -> Result<()> {
    device
        .scratch("reduce row counters", ROW_COUNTERS * 4, true)
        .map(drop)
}

/// How the reduction is laid out on the GPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Strategy {
    /// A warp (`warp`) or a block per output row; best when the reduced elements of a
    /// row are adjacent in memory.
    Rows {
        /// One warp per row (rows of at most 4096 elements).
        warp: bool,
    },
    /// A thread per output; best when neighbouring outputs are adjacent in memory.
    Cols,
}

/// The plan of one reduction. Pure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ReducePlan {
    /// Shape of the result (with the reduced axes kept as 1 when `keepdims`).
    pub(crate) out_shape: Vec<usize>,
    /// Number of outputs.
    pub(crate) n_out: usize,
    /// Elements per output.
    pub(crate) n_red: usize,
    /// Kept dimensions (collapsed) and the input's strides along them.
    pub(crate) kept: (Vec<usize>, Vec<isize>),
    /// Reduced dimensions (collapsed) and the input's strides along them.
    pub(crate) red: (Vec<usize>, Vec<isize>),
    /// Strategy.
    pub(crate) strategy: Strategy,
    /// Pieces each reduction is cut into (> 1: the last piece of each row combines the
    /// partials, or for columns a second pass).
    pub(crate) splits: usize,
    /// Index width.
    pub(crate) index: IndexWidth,
}

/// Plans reducing `layout` over `axes` (`None`: all). With `keep_order` the reduced axes
/// keep their logical order (argmax/argmin report C-order indices); otherwise they are
/// ordered by stride so that the innermost reduced dimension is the densest.
///
/// # Errors
/// [`Error::AxisOutOfRange`] for an axis outside `-ndim..ndim`; [`Error::InvalidArgument`]
/// for a repeated axis, or when the layout needs more dimensions after merging than one
/// kernel indexes.
pub(crate) fn plan_reduce(
    layout: &Layout,
    axes: Option<&[isize]>,
    keepdims: bool,
    keep_order: bool,
    sm_count: u32,
) -> Result<ReducePlan> {
    let nd = layout.ndim();
    let mut reduced = vec![false; nd];
    match axes {
        None => reduced.iter_mut().for_each(|r| *r = true),
        Some(list) => {
            for &a in list {
                let k = normalize_axis("reduce", a, nd)?;
                if reduced[k] {
                    return Err(Error::invalid(
                        "reduce",
                        format!("duplicate axis {a} in {list:?}"),
                    ));
                }
                reduced[k] = true;
            }
        }
    }
    let (shape, strides) = (layout.shape(), layout.strides());
    let out_shape: Vec<usize> = (0..nd)
        .filter_map(|k| {
            if reduced[k] {
                keepdims.then_some(1)
            } else {
                Some(shape[k])
            }
        })
        .collect();
    let kept_axes: Vec<usize> = (0..nd).filter(|&k| !reduced[k]).collect();
    let mut red_axes: Vec<usize> = (0..nd).filter(|&k| reduced[k]).collect();
    if !keep_order {
        red_axes.sort_by_key(|&k| std::cmp::Reverse(strides[k].unsigned_abs()));
    }
    let pick = |ax: &[usize]| -> (Vec<usize>, Vec<isize>) {
        let s: Vec<usize> = ax.iter().map(|&k| shape[k]).collect();
        let st: Vec<isize> = ax.iter().map(|&k| strides[k]).collect();
        let c = collapse(&s, &[&st]);
        if c.shape.is_empty() {
            // No dimension left (all extents 1): one element.
            (vec![1], vec![0])
        } else {
            let strides = c.strides.into_iter().next().unwrap_or_default();
            (c.shape, strides)
        }
    };
    let kept = pick(&kept_axes);
    let red = pick(&red_axes);
    let n_out: usize = kept_axes.iter().map(|&k| shape[k]).product();
    let n_red: usize = red_axes.iter().map(|&k| shape[k]).product();
    // An empty reduced set with an extent 0 survives collapsing; make it one dimension.
    let red = if n_red == 0 { (vec![0], vec![0]) } else { red };
    if kept.0.len() > MAX_DIMS || red.0.len() > MAX_DIMS {
        return Err(Error::invalid(
            "reduce",
            "too many dimensions after merging (make the array contiguous first)",
        ));
    }
    let inner_red = red.1.last().map_or(0, |s| s.unsigned_abs());
    let inner_kept = kept.1.last().map_or(0, |s| s.unsigned_abs());
    let sm = sm_count.max(1) as usize;
    let strategy = if n_red < 16 && n_out >= 32 {
        Strategy::Cols
    } else if inner_red == 1 || n_out < 32 || inner_kept != 1 {
        // A warp per row for many short rows; a block per row for long rows (measured
        // 2% faster than a warp each even with 16384 rows of 16384) or for few rows (the
        // block's threads keep more loads in flight for one row).
        Strategy::Rows {
            warp: n_red <= 4096 && n_out >= 64,
        }
    } else {
        Strategy::Cols
    };
    // At most 8 blocks of 256 threads are resident per multiprocessor; the launch refines
    // this with the kernel's real occupancy (never upwards).
    let splits = splits_for(strategy, n_out, n_red, sm * 8);
    let extent = |d: &(Vec<usize>, Vec<isize>)| -> usize {
        d.0.iter()
            .zip(&d.1)
            .map(|(&n, &s)| n.saturating_sub(1) * s.unsigned_abs())
            .sum()
    };
    let index = index_width(
        layout.size().max(n_out * splits),
        extent(&kept) + extent(&red),
    );
    Ok(ReducePlan {
        out_shape,
        n_out,
        n_red,
        kept,
        red,
        strategy,
        splits,
        index,
    })
}

/// Partials of a column reduction that one thread of a combining pass adds up.
const COL_FAN: usize = 16;

/// Pieces each reduction is cut into so that `resident_blocks` blocks of 256 threads
/// (one wave on the GPU) all have work.
pub(crate) fn splits_for(
    strategy: Strategy,
    n_out: usize,
    n_red: usize,
    resident_blocks: usize,
) -> usize {
    match strategy {
        Strategy::Rows { warp: false } => resident_blocks
            .div_ceil(n_out.max(1))
            .clamp(1, (n_red / 8192).max(1)),
        Strategy::Rows { warp: true } => 1,
        // Enough threads to fill the GPU (a thread may own up to 4 adjacent outputs).
        Strategy::Cols => (resident_blocks * 256 * 4)
            .div_ceil(n_out.max(1))
            .clamp(1, (n_red / 64).max(1)),
    }
}

fn variant(strategy: Strategy, vec: u8, nk: usize, nr: usize) -> Variant {
    match strategy {
        Strategy::Rows { warp } => Variant::Rows {
            warp,
            vec,
            nk: nk as u8,
            nr: nr as u8,
        },
        Strategy::Cols => Variant::Cols {
            vec,
            nk: nk as u8,
            nr: nr as u8,
        },
    }
}

/// One launch of the reduce template.
struct Pass<'a> {
    def: &'a ReduceDef,
    name: &'a Text,
    in_dtype: DType,
    out_dtype: DType,
    input: CUdeviceptr,
    /// Extra inputs (address, dtype), laid out as the input.
    extra: &'a [(CUdeviceptr, DType)],
    output: CUdeviceptr,
    aux: Option<(CUdeviceptr, DType)>,
    /// An input of `n_red` contiguous elements read at the reduced index (`r0`).
    along: Option<(CUdeviceptr, DType)>,
    scalars: &'a [Scalar],
    kept: (&'a [usize], &'a [isize]),
    red: (&'a [usize], &'a [isize]),
    n_out: usize,
    n_red: usize,
    splits: usize,
    strategy: Strategy,
    index: IndexWidth,
    partial_in: bool,
    partial_out: bool,
    /// One launch: the last piece of each row combines the partials in `part`, counted
    /// in the row counters `sem`.
    finish: bool,
    part: CUdeviceptr,
    sem: CUdeviceptr,
}

/// Elements per vector load: 16 bytes' worth when the vectors are contiguous and
/// 16-byte aligned, else 1. Rows: along the one reduced dimension of stride 1. Columns:
/// across adjacent outputs of a kept dimension of stride 1.
fn vector_width(p: &Pass<'_>) -> u8 {
    if p.partial_in {
        return 1;
    }
    let vec = 16 / p.in_dtype.size();
    let v = vec as isize;
    if vec < 2 || !p.input.is_multiple_of(16) {
        return 1;
    }
    // The input along the reduced axes is read as vectors beside the rows' vectors.
    let along_ok = p
        .along
        .is_none_or(|(ptr, d)| ptr.is_multiple_of(16) && d.size() == p.in_dtype.size());
    let ok = match p.strategy {
        Strategy::Rows { .. } => along_ok && p.red.1 == [1] && p.kept.1.iter().all(|&s| s % v == 0),
        Strategy::Cols => {
            let last = p.kept.1.len() - 1;
            p.kept.1[last] == 1
                && p.kept.0[last].is_multiple_of(vec)
                && p.kept.1[..last].iter().all(|&s| s % v == 0)
                && p.red.1.iter().all(|&s| s % v == 0)
        }
    };
    if ok {
        vec as u8
    } else {
        1
    }
}

fn spec(p: &Pass<'_>) -> ReduceSpec {
    let mut stypes = [DType::Bool; MAX_SCALARS];
    for (t, s) in stypes.iter_mut().zip(p.scalars) {
        *t = s.dtype;
    }
    let mut etypes = [DType::Bool; MAX_OPERANDS];
    let nextra = if p.partial_in { 0 } else { p.extra.len() };
    for (t, e) in etypes.iter_mut().zip(p.extra) {
        *t = e.1;
    }
    ReduceSpec {
        op: p.name.clone(),
        preamble: p.def.preamble.clone(),
        pre: if p.partial_in {
            "a = in0;".into()
        } else {
            p.def.pre.clone()
        },
        input: p.in_dtype,
        extra: TypeList::new(&etypes[..nextra]),
        output: p.out_dtype,
        scalars: TypeList::new(&stypes[..p.scalars.len()]),
        acc: p.def.acc,
        identity: p.def.identity.clone(),
        combine: p.def.combine.clone(),
        combine_forward: p.def.combine_forward.clone(),
        post: p.def.post.clone(),
        partial_in: p.partial_in,
        partial_out: p.partial_out,
        finish: p.finish,
        aux: if p.partial_in {
            None
        } else {
            p.aux.map(|a| a.1)
        },
        along: if p.partial_in {
            None
        } else {
            p.along.map(|a| a.1)
        },
        variant: variant(p.strategy, vector_width(p), p.kept.0.len(), p.red.0.len()),
        index: p.index,
    }
}

fn launch(device: &Device, p: &Pass<'_>, f: &Kernel) -> Result<()> {
    let tasks = p.n_out * p.splits;
    let resident = device.multiprocessor_count() * f.blocks_per_sm;
    let grid = match p.strategy {
        // A block per task: a block that finishes its row retires and a new one starts,
        // where a grid-stride block would wait at its row's barrier before the next row
        // (rows of 16384 f32: 4512 against 4440 GB/s, max 4488 against 4421, docs/design/reduce.md).
        Strategy::Rows { warp: false } => tasks.clamp(1, 1 << 30) as u32,
        Strategy::Rows { warp: true } => grid_for(tasks * 32, resident),
        Strategy::Cols => grid_for(tasks / vector_width(p) as usize, resident),
    };
    let args = ReduceArgs {
        output: p.output,
        input: p.input,
        extra: p.extra,
        aux: p.aux.map(|a| a.0),
        along: p.along.map(|a| a.0),
        scalars: p.scalars,
        kept: p.kept,
        red: p.red,
        n_out: p.n_out,
        n_red: p.n_red,
        splits: p.splits,
        index: p.index,
        partial_in: p.partial_in,
        finish: p.finish.then_some((p.part, p.sem)),
    };
    // SAFETY: every `Pass` of this module is built by `run_def_with`, and `f` is
    // `kernel(device, &spec(p))` at each call of this function. A first pass reads the
    // input and the extra inputs (checked there to have the input's shape and strides)
    // through `p.kept` / `p.red` of the plan, and writes the output (checked there to be
    // C-contiguous of `n_out` elements, as aux; along of `n_red`) or the fresh partials of
    // `n_out * splits` accumulators; with `finish`, `part` is those partials and `sem` the
    // device's zeroed row counters (`ROW_COUNTERS >= n_out`, stream-ordered); a combining
    // pass reads partials of `n_out * splits` through the dims it builds. The plan being
    // that of the input's layout is `run_def_with`'s callers' contract (its doc).
    unsafe { launch_pass(device, f, grid, &args) }
}

/// Runs reduction `op` of `input` planned as `p` (from the input's layout) into the
/// C-contiguous `output` of `p.n_out` elements, with an optional per-output aux input (C
/// order, `p.n_out` elements) and scalars for the post-map.
pub(crate) fn run(
    device: &Device,
    op: ReduceOp,
    p: &ReducePlan,
    input: &Operand<'_>,
    output: &Operand<'_>,
    aux: Option<&Operand<'_>>,
    scalars: &[Scalar],
) -> Result<()> {
    let def = op.def(input.dtype());
    run_def(
        device,
        &Text::Static(op.name()),
        &def,
        p,
        input,
        output,
        aux,
        scalars,
    )
}

/// Runs the reduction `def` (named `name` in its kernel's symbol) of `input` planned as
/// `p` (from the input's layout) into the C-contiguous `output` of `p.n_out` elements,
/// with an optional per-output aux input and scalars (read by the maps).
#[allow(clippy::too_many_arguments)]
pub(crate) fn run_def(
    device: &Device,
    name: &Text,
    def: &ReduceDef,
    p: &ReducePlan,
    input: &Operand<'_>,
    output: &Operand<'_>,
    aux: Option<&Operand<'_>>,
    scalars: &[Scalar],
) -> Result<()> {
    run_def_with(device, name, def, p, input, &[], None, output, aux, scalars)
}

/// [`run_def`] with extra inputs of the input's shape and strides (a fused expression's
/// other arrays), which the pre-map reads as `in1, in2, ...` at the offset `o_`, and an
/// optional C-contiguous input of `p.n_red` elements, which it reads as `r0` at the
/// element's index along the reduced axes (planned with `keep_order`).
#[allow(clippy::too_many_arguments)]
pub(crate) fn run_def_with(
    device: &Device,
    name: &Text,
    def: &ReduceDef,
    p: &ReducePlan,
    input: &Operand<'_>,
    extra: &[Operand<'_>],
    along: Option<&Operand<'_>>,
    output: &Operand<'_>,
    aux: Option<&Operand<'_>>,
    scalars: &[Scalar],
) -> Result<()> {
    let op = name.static_or("reduction kernel");
    let _range = crate::profile::range(op);
    if p.n_out == 0 {
        return Ok(());
    }
    if scalars.len() > MAX_SCALARS {
        return Err(Error::invalid(op, "too many scalars for one kernel"));
    }
    if extra.len() + 1 > MAX_OPERANDS - 1 {
        return Err(Error::invalid(op, "too many inputs for one kernel"));
    }
    let mut extra_ptrs = [(0, DType::Bool); MAX_OPERANDS];
    for (slot, x) in extra_ptrs.iter_mut().zip(extra) {
        // The pre-map reads every extra input at the input's offsets.
        if x.layout().shape() != input.layout().shape()
            || x.layout().strides() != input.layout().strides()
        {
            return Err(Error::invalid(
                op,
                "extra inputs must have the input's shape and strides",
            ));
        }
        *slot = (x.ptr(), x.dtype());
    }
    let extra = &extra_ptrs[..extra.len()];
    // The plan's offsets are the input's; the output and aux are read one per row.
    let rows_fit = |o: &Operand<'_>| o.layout().is_c_contiguous() && o.layout().size() == p.n_out;
    if !rows_fit(output) || aux.is_some_and(|a| !rows_fit(a)) {
        return Err(Error::invalid(
            op,
            format!(
                "the output (and aux input) must be C-contiguous with {} elements",
                p.n_out
            ),
        ));
    }
    if along.is_some_and(|a| !a.layout().is_c_contiguous() || a.layout().size() != p.n_red) {
        return Err(Error::invalid(
            op,
            format!(
                "the input along the reduced axes must be C-contiguous with {} elements",
                p.n_red
            ),
        ));
    }
    let (in_dtype, out_dtype) = (input.dtype(), output.dtype());
    let (input, output) = (input.ptr(), output.ptr());
    let aux = aux.map(|a| (a.ptr(), a.dtype()));
    let along = along.map(|a| (a.ptr(), a.dtype()));
    // Rows cut into pieces finish in the same launch (the last piece of a row combines
    // the partials); columns take a second launch.
    let one_launch = matches!(p.strategy, Strategy::Rows { .. }) && p.n_out <= ROW_COUNTERS;
    let mut pass = Pass {
        def,
        name,
        in_dtype,
        out_dtype,
        input,
        extra,
        output,
        aux,
        along,
        scalars,
        kept: (&p.kept.0, &p.kept.1),
        red: (&p.red.0, &p.red.1),
        n_out: p.n_out,
        n_red: p.n_red,
        splits: p.splits,
        strategy: p.strategy,
        index: p.index,
        partial_in: false,
        partial_out: p.splits > 1 && !one_launch,
        finish: p.splits > 1 && one_launch,
        part: 0,
        sem: 0,
    };
    // The split count follows the first pass's real occupancy (at most the plan's).
    let spec1 = spec(&pass);
    let f1 = kernel(device, &spec1)?;
    let resident = (device.multiprocessor_count() * f1.blocks_per_sm) as usize;
    let splits = splits_for(p.strategy, p.n_out, p.n_red, resident).min(p.splits);
    if splits <= 1 {
        if p.splits > 1 {
            pass.splits = 1;
            pass.partial_out = false;
            pass.finish = false;
            return launch(device, &pass, &*kernel(device, &spec(&pass))?);
        }
        return launch(device, &pass, &f1);
    }
    pass.splits = splits;
    // The pieces write n_out * splits accumulators; the last piece of each row combines
    // them in the same launch, or a second pass reduces them.
    let partials =
        crate::device::DeviceBuffer::alloc(device, p.n_out * splits * pass.def.acc.size())?;
    if pass.finish {
        pass.part = partials.device_ptr();
        pass.sem = device.scratch("reduce row counters", ROW_COUNTERS * 4, true)?;
        return launch(device, &pass, &f1);
    }
    pass.output = partials.device_ptr();
    launch(device, &pass, &f1)?;
    let n = p.n_out as isize;
    // Columns: the partials ([splits][n_out]) are combined COL_FAN at a time until few are
    // left, so that no thread of the last pass walks a long column of partials alone.
    let (mut partials, mut splits) = (partials, splits);
    while matches!(p.strategy, Strategy::Cols) && splits > COL_FAN {
        let pieces = splits.div_ceil(COL_FAN);
        let next =
            crate::device::DeviceBuffer::alloc(device, p.n_out * pieces * pass.def.acc.size())?;
        let (kept, red) = ([p.n_out], [1isize]);
        let (rshape, rstride) = ([splits], [n]);
        let combine = Pass {
            input: partials.device_ptr(),
            output: next.device_ptr(),
            kept: (&kept, &red),
            red: (&rshape, &rstride),
            n_red: splits,
            splits: pieces,
            strategy: Strategy::Cols,
            index: index_width(p.n_out * splits, p.n_out * splits),
            partial_in: true,
            partial_out: true,
            finish: false,
            ..pass
        };
        launch(device, &combine, &*kernel(device, &spec(&combine))?)?;
        (partials, splits) = (next, pieces);
    }
    let s = splits as isize;
    type Dims = (Vec<usize>, Vec<isize>);
    let (kept2, red2, strategy2): (Dims, Dims, Strategy) = match p.strategy {
        Strategy::Rows { .. } => (
            (vec![p.n_out], vec![s]),
            (vec![splits], vec![1]),
            Strategy::Rows {
                warp: splits <= 4096,
            },
        ),
        Strategy::Cols => (
            (vec![p.n_out], vec![1]),
            (vec![splits], vec![n]),
            Strategy::Cols,
        ),
    };
    let second = Pass {
        input: partials.device_ptr(),
        output,
        kept: (&kept2.0, &kept2.1),
        red: (&red2.0, &red2.1),
        n_red: splits,
        splits: 1,
        strategy: strategy2,
        index: index_width(p.n_out * splits, p.n_out * splits),
        partial_in: true,
        partial_out: false,
        finish: false,
        ..pass
    };
    launch(device, &second, &*kernel(device, &spec(&second))?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans() {
        let l = Layout::contiguous(&[16384, 16384]);
        let p = plan_reduce(&l, None, false, false, 132).unwrap();
        assert_eq!(
            (p.n_out, p.n_red, p.strategy),
            (1, 1 << 28, Strategy::Rows { warp: false })
        );
        assert!(p.splits > 100);
        assert_eq!(p.out_shape, Vec::<usize>::new());
        let p = plan_reduce(&l, Some(&[0]), false, false, 132).unwrap();
        assert_eq!(p.strategy, Strategy::Cols);
        assert!(p.splits > 1);
        // Long rows: a block each; many short rows: a warp each; few: a block each.
        let p = plan_reduce(&l, Some(&[-1]), false, false, 132).unwrap();
        assert_eq!(p.strategy, Strategy::Rows { warp: false });
        let short = Layout::contiguous(&[1000, 300]);
        let p = plan_reduce(&short, Some(&[-1]), false, false, 132).unwrap();
        assert_eq!(p.strategy, Strategy::Rows { warp: true });
        let p = plan_reduce(&short.t(), Some(&[0]), false, false, 132).unwrap();
        assert_eq!((p.n_out, p.strategy), (1000, Strategy::Rows { warp: true }));
        let p = plan_reduce(
            &Layout::contiguous(&[10, 300]),
            Some(&[-1]),
            false,
            false,
            132,
        );
        assert_eq!(p.unwrap().strategy, Strategy::Rows { warp: false });
        // Transposed: the reduced axis of stride 1 comes innermost when order is free.
        let p = plan_reduce(&l.t(), None, false, false, 132).unwrap();
        assert_eq!(p.red.1, vec![1]);
        // argmax keeps C order: the transposed view's innermost reduced stride is 16384.
        let p = plan_reduce(&l.t(), None, false, true, 132).unwrap();
        assert_eq!(p.red.1, vec![1, 16384]);
        // Errors and edge cases.
        assert!(plan_reduce(&l, Some(&[2]), false, false, 132).is_err());
        assert!(plan_reduce(&l, Some(&[0, -2]), false, false, 132).is_err());
        let p = plan_reduce(&Layout::contiguous(&[]), None, false, false, 132).unwrap();
        assert_eq!((p.n_out, p.n_red), (1, 1));
        let p = plan_reduce(&Layout::contiguous(&[3, 0]), Some(&[1]), true, false, 132).unwrap();
        assert_eq!((p.n_out, p.n_red, p.out_shape.clone()), (3, 0, vec![3, 1]));
    }

    #[test]
    fn plan_reduce_example() {
        use crate::ops::reduce::{plan_reduce, Strategy};
        use crate::shape::Layout;
        let p = plan_reduce(
            &Layout::contiguous(&[64, 1000]),
            Some(&[1]),
            false,
            false,
            132,
        )
        .unwrap();
        assert_eq!(
            (p.n_out, p.n_red, p.strategy),
            (64, 1000, Strategy::Rows { warp: true })
        );
        let p = plan_reduce(
            &Layout::contiguous(&[1000, 64]),
            Some(&[0]),
            true,
            false,
            132,
        )
        .unwrap();
        assert_eq!(
            (p.out_shape.clone(), p.strategy),
            (vec![1, 64], Strategy::Cols)
        );
    }
}
