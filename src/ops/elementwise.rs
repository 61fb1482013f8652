//! The N-ary elementwise operation: any number of inputs and outputs, one op body.
//!
//! Built-in ops (arithmetic, fills, copies, casts) are instances of it; user kernels and
//! fused expressions are meant to reuse it. `plan` (pure) collapses the operands' layouts
//! and chooses the variant and index width; `run` renders the spec and launches.

use super::Operand;
use crate::element::DType;
use crate::kernels::abi::Scalar;
use crate::kernels::cache::kernel;
use crate::kernels::family::elementwise::{ElementwiseSpec, STRIDED_CHUNK};
use crate::kernels::{IndexWidth, Text, TypeList, BLOCK, MAX_DIMS, MAX_OPERANDS, MAX_SCALARS};
use crate::ops::launch::{grid_for, grid_uncapped, index_width};
use crate::shape::{collapse, Collapsed, Layout};
use crate::{Device, Error, Result};
use cudarc::driver::sys::CUdeviceptr;

pub(crate) use crate::kernels::family::elementwise::Variant;

/// The launch's dimensions in the order of operand 0 (the first output): sorted by
/// decreasing stride, so that writes are coalesced even into a transposed view (a fresh,
/// C-contiguous output keeps the logical order, which bodies using the linear index `i`
/// rely on), then collapsed jointly over every operand.
fn order_and_collapse(shape: &[usize], strides: &[&[isize]]) -> Collapsed {
    let mut order: Vec<usize> = (0..shape.len()).collect();
    if let Some(out) = strides.first() {
        order.sort_by_key(|&k| {
            std::cmp::Reverse(if shape[k] > 1 {
                out[k].unsigned_abs()
            } else {
                usize::MAX
            })
        });
    }
    let shape_o: Vec<usize> = order.iter().map(|&k| shape[k]).collect();
    let strides_o: Vec<Vec<isize>> = strides
        .iter()
        .map(|s| order.iter().map(|&k| s[k]).collect())
        .collect();
    let refs: Vec<&[isize]> = strides_o.iter().map(|s| s.as_slice()).collect();
    collapse(&shape_o, &refs)
}

/// What the plan decided for one launch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// Number of elements (0: nothing to launch).
    pub size: usize,
    /// Layout variant.
    pub variant: Variant,
    /// Index width.
    pub index: IndexWidth,
    /// The collapsed shape and per-operand strides (strided variant).
    pub collapsed: Collapsed,
}

/// Plans a launch over `shape` for operands with `strides` (each as long as `shape`,
/// outputs first). Pure.
///
/// # Errors
/// [`Error::InvalidArgument`] when the strided layouts need more dimensions after merging
/// than one kernel indexes.
pub fn plan(shape: &[usize], strides: &[&[isize]]) -> Result<Plan> {
    let size: usize = shape.iter().product();
    let c = order_and_collapse(shape, strides);
    let contiguous = c.shape.len() <= 1 && c.strides.iter().all(|s| s.iter().all(|&x| x == 1));
    let max_extent = c
        .strides
        .iter()
        .map(|s| {
            s.iter()
                .zip(&c.shape)
                .map(|(&st, &d)| st.unsigned_abs() * d.saturating_sub(1))
                .sum::<usize>()
        })
        .max()
        .unwrap_or(0);
    // Two dimensions with some operands column-major: tiles through shared memory.
    let column_major = |s: &Vec<isize>| s[0] != 0 && s[0].unsigned_abs() < s[1].unsigned_abs();
    let staged: u8 = if c.shape.len() == 2 {
        c.strides
            .iter()
            .enumerate()
            .filter(|(_, s)| column_major(s))
            .fold(0u8, |m, (k, _)| m | (1 << k))
    } else {
        0
    };
    let variant = if contiguous {
        Variant::Contiguous
    } else if staged != 0 && c.shape[0] > 1 && c.shape[1] > 1 {
        Variant::Tiled { staged }
    } else {
        if c.shape.len() > MAX_DIMS {
            return Err(Error::invalid(
                "elementwise",
                format!(
                    "the operands' layouts need {} dimensions after merging; one kernel indexes at most {MAX_DIMS}",
                    c.shape.len()
                ),
            ));
        }
        Variant::Strided {
            ndim: c.shape.len() as u8,
        }
    };
    Ok(Plan {
        size,
        variant,
        index: index_width(size, max_extent),
        collapsed: c,
    })
}

/// Elements per 16-byte vector for contiguous operands at `ptrs` (with their dtypes):
/// 16 over the widest element size when every pointer is 16-byte aligned, else 1.
pub fn vector_width(operands: impl IntoIterator<Item = (CUdeviceptr, DType)>) -> u8 {
    let mut widest = 1usize;
    for (ptr, dtype) in operands {
        if ptr % 16 != 0 {
            return 1;
        }
        widest = widest.max(dtype.size());
    }
    (16 / widest) as u8
}

/// The variant to launch: the plan's, upgraded to vector loads where the operands'
/// addresses and strides allow them (`ptrs`: address of the first element and dtype of
/// each operand, outputs first).
pub fn refine(p: &Plan, ptrs: &[(CUdeviceptr, DType)], nout: usize) -> Variant {
    match p.variant {
        Variant::Contiguous => match vector_width(ptrs.iter().copied()) {
            vec if vec > 1 => Variant::Vectorized { vec },
            _ => Variant::Contiguous,
        },
        Variant::Tiled { staged } => {
            // Shared tiles must fit the static 48 KiB: else scalar strided.
            let bytes: usize = ptrs
                .iter()
                .enumerate()
                .filter(|(k, _)| staged & (1 << k) != 0)
                .map(|(_, (_, d))| d.size())
                .sum();
            if bytes * 32 * 33 > 48 * 1024 {
                Variant::Strided { ndim: 2 }
            } else {
                p.variant
            }
        }
        Variant::Strided { ndim } => {
            let c = &p.collapsed;
            let last = c.shape.len() - 1;
            let mut bcast = 0u8;
            let mut widest = 1usize;
            for (k, (s, &(ptr, dtype))) in c.strides.iter().zip(ptrs).enumerate() {
                match s[last] {
                    0 if k >= nout => bcast |= 1 << k,
                    1 if ptr % 16 == 0 => widest = widest.max(dtype.size()),
                    _ => return p.variant,
                }
            }
            let vec = 16 / widest;
            let aligned = c.shape[last].is_multiple_of(vec)
                && c.strides.iter().enumerate().all(|(k, s)| {
                    bcast & (1 << k) != 0 || s[..last].iter().all(|&x| x % vec as isize == 0)
                });
            if vec > 1 && aligned {
                Variant::StridedVec {
                    ndim,
                    vec: vec as u8,
                    bcast,
                }
            } else {
                p.variant
            }
        }
        other => other,
    }
}

/// Threads' worth of work for `variant` (the grid is sized from it).
fn work_items(p: &Plan, variant: Variant, spec: &ElementwiseSpec) -> usize {
    let c = &p.collapsed;
    match variant {
        Variant::Contiguous => p.size,
        Variant::Vectorized { vec } | Variant::StridedVec { vec, .. } => {
            p.size.div_ceil(vec as usize)
        }
        // One block per tile.
        Variant::Tiled { .. } => {
            let t = spec.tile();
            c.shape[0].div_ceil(t) * c.shape[1].div_ceil(t) * BLOCK as usize
        }
        // One warp per 32 * STRIDED_CHUNK elements of a row of the innermost dimension.
        Variant::Strided { .. } => {
            let inner = *c.shape.last().unwrap_or(&1);
            (p.size / inner.max(1)) * inner.div_ceil(32 * STRIDED_CHUNK) * 32
        }
    }
}

/// The spec of an elementwise kernel (without preamble).
pub fn spec_for(
    op: impl Into<Text>,
    body: impl Into<Text>,
    inputs: &[DType],
    outputs: &[DType],
    scalars: &[DType],
    variant: Variant,
    index: IndexWidth,
) -> ElementwiseSpec {
    ElementwiseSpec {
        op: op.into(),
        body: body.into(),
        preamble: Text::EMPTY,
        inputs: TypeList::new(inputs),
        outputs: TypeList::new(outputs),
        scalars: TypeList::new(scalars),
        variant,
        index,
    }
}

/// What one elementwise launch computes: the source parts of its spec.
#[derive(Debug, Clone)]
pub(crate) struct Code {
    /// Op name, part of the kernel symbol.
    pub(crate) op: Text,
    /// The op body.
    pub(crate) body: Text,
    /// Source between the typedefs and the kernel (empty for built-in ops).
    pub(crate) preamble: Text,
}

/// Runs the built-in `body` over `outs` and `ins`, all of the same shape (broadcast
/// already applied).
pub(crate) fn run(
    device: &Device,
    op: &'static str,
    body: &'static str,
    outs: &[Operand<'_>],
    ins: &[Operand<'_>],
    scalars: &[Scalar],
) -> Result<()> {
    let code = Code {
        op: Text::Static(op),
        body: Text::Static(body),
        preamble: Text::EMPTY,
    };
    run_code(device, &code, outs, ins, scalars)
}

/// Runs `code` over `outs` and `ins`, all of the same shape (broadcast already applied).
pub(crate) fn run_code(
    device: &Device,
    code: &Code,
    outs: &[Operand<'_>],
    ins: &[Operand<'_>],
    scalars: &[Scalar],
) -> Result<()> {
    debug_assert!(!outs.is_empty());
    let op = code.op.static_or("elementwise kernel");
    let _range = crate::profile::range(op);
    if outs.len() + ins.len() > MAX_OPERANDS || scalars.len() > MAX_SCALARS {
        return Err(Error::invalid(op, "too many operands for one kernel"));
    }
    let shape = outs[0].layout().shape();
    let mut strides: [&[isize]; MAX_OPERANDS] = [&[]; MAX_OPERANDS];
    for (s, o) in strides.iter_mut().zip(outs.iter().chain(ins)) {
        if o.layout().shape() != shape {
            return Err(Error::invalid(
                op,
                format!(
                    "operands of shapes {shape:?} and {:?} in one launch",
                    o.layout().shape()
                ),
            ));
        }
        *s = o.layout().strides();
    }
    let strides = &strides[..outs.len() + ins.len()];
    // Every operand C-contiguous (the common case): the plan `plan` would make, without
    // sorting and collapsing the dimensions.
    let contiguous = outs.iter().chain(ins).all(|o| o.layout().is_c_contiguous());
    let p = if contiguous {
        let size: usize = shape.iter().product();
        Plan {
            size,
            variant: Variant::Contiguous,
            index: index_width(size, size.saturating_sub(1)),
            collapsed: Collapsed {
                shape: Vec::new(),
                strides: Vec::new(),
            },
        }
    } else {
        let c = order_and_collapse(shape, strides);
        if c.shape.len() > MAX_DIMS {
            return run_split(device, code, outs, ins, scalars, &c);
        }
        plan(shape, strides)?
    };
    if p.size == 0 {
        return Ok(());
    }
    let mut types = [DType::Bool; MAX_OPERANDS];
    for (t, o) in types.iter_mut().zip(ins) {
        *t = o.dtype();
    }
    let in_types = &types[..ins.len()];
    let mut otypes = [DType::Bool; MAX_OPERANDS];
    for (t, o) in otypes.iter_mut().zip(outs) {
        *t = o.dtype();
    }
    let mut stypes = [DType::Bool; MAX_SCALARS];
    for (t, s) in stypes.iter_mut().zip(scalars) {
        *t = s.dtype;
    }
    let mut ptrs = [(0u64, DType::Bool); MAX_OPERANDS];
    for (slot, o) in ptrs.iter_mut().zip(outs.iter().chain(ins)) {
        *slot = (o.ptr(), o.dtype());
    }
    let ptrs = &ptrs[..outs.len() + ins.len()];
    let variant = refine(&p, ptrs, outs.len());
    let spec = ElementwiseSpec {
        op: code.op.clone(),
        body: code.body.clone(),
        preamble: code.preamble.clone(),
        inputs: TypeList::new(in_types),
        outputs: TypeList::new(&otypes[..outs.len()]),
        scalars: TypeList::new(&stypes[..scalars.len()]),
        variant,
        index: p.index,
    };
    let items = work_items(&p, variant, &spec);
    let f = kernel(device, &spec)?;
    let grid = match variant {
        // Two vectors per thread, no grid-stride trips.
        Variant::Vectorized { .. } => grid_uncapped(items.div_ceil(2)),
        _ => grid_for(items, device.multiprocessor_count() * f.blocks_per_sm),
    };
    // SAFETY: `f` is `spec`'s kernel, whose type lists are those of `outs`, `ins` and
    // `scalars` (built above); every operand has `shape` (checked above); `p` is the
    // contiguous plan when every operand is C-contiguous, else `plan` of their own shape and
    // strides, collapsed to at most MAX_DIMS; `refine` chose the variant from their
    // addresses and dtypes.
    unsafe { spec.launch(device, &f, grid, outs, ins, scalars, p.size, &p.collapsed) }
}

/// `run_code` for layouts that stay above [`MAX_DIMS`] dimensions after collapsing (NumPy
/// allows 64): one launch of the innermost `MAX_DIMS` collapsed dimensions for each index
/// of the outer ones. Bodies see `i` counted within each launch; the built-in ops whose
/// bodies read `i` write fresh contiguous outputs, which always collapse.
fn run_split<'a>(
    device: &Device,
    code: &Code,
    outs: &[Operand<'a>],
    ins: &[Operand<'a>],
    scalars: &[Scalar],
    c: &Collapsed,
) -> Result<()> {
    let op = code.op.static_or("elementwise kernel");
    let outer = c.shape.len() - MAX_DIMS;
    let inner_shape = &c.shape[outer..];
    let count: usize = c.shape[..outer].iter().product();
    let mut idx = vec![0usize; outer];
    for _ in 0..count {
        let sub = |k: usize, o: &Operand<'a>| -> Result<Operand<'a>> {
            let s = &c.strides[k];
            let delta: isize = idx.iter().zip(s).map(|(&i, &st)| i as isize * st).sum();
            let offset = o.layout().offset() as isize + delta;
            o.with_layout(Layout::from_parts(
                inner_shape.to_vec(),
                s[outer..].to_vec(),
                usize::try_from(offset).map_err(|_| Error::invalid(op, "a negative offset"))?,
            ))
        };
        let sub_outs = outs
            .iter()
            .enumerate()
            .map(|(k, o)| sub(k, o))
            .collect::<Result<Vec<_>>>()?;
        let sub_ins = ins
            .iter()
            .enumerate()
            .map(|(k, o)| sub(outs.len() + k, o))
            .collect::<Result<Vec<_>>>()?;
        run_code(device, code, &sub_outs, &sub_ins, scalars)?;
        for d in (0..outer).rev() {
            idx[d] += 1;
            if idx[d] < c.shape[d] {
                break;
            }
            idx[d] = 0;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans() {
        // Broadcast (3,1)+(4,) -> (3,4): strided, 2 dims.
        let out = Layout::contiguous(&[3, 4]);
        let a = Layout::contiguous(&[3, 1]).broadcast_to(&[3, 4]).unwrap();
        let b = Layout::contiguous(&[4]).broadcast_to(&[3, 4]).unwrap();
        let p = plan(&[3, 4], &[out.strides(), a.strides(), b.strides()]).unwrap();
        assert_eq!(p.variant, Variant::Strided { ndim: 2 });
        assert_eq!(
            p.collapsed.strides,
            vec![vec![4, 1], vec![1, 0], vec![0, 1]]
        );
        // 0-d and all-contiguous: contiguous.
        assert_eq!(plan(&[], &[&[], &[]]).unwrap().variant, Variant::Contiguous);
        assert_eq!(
            plan(&[2, 3, 4], &[&[12, 4, 1]]).unwrap().variant,
            Variant::Contiguous
        );
        // Reversed: strided with a negative stride.
        let p = plan(&[5], &[&[1], &[-1]]).unwrap();
        assert_eq!(p.variant, Variant::Strided { ndim: 1 });
        // Large: 64-bit indices.
        let p = plan(&[1 << 31], &[&[1]]).unwrap();
        assert_eq!(p.index, IndexWidth::I64);
        // Empty.
        assert_eq!(plan(&[3, 0], &[&[0, 1]]).unwrap().size, 0);
    }

    #[test]
    fn contiguous_fast_path_matches_the_plan() {
        // run_code skips `plan` when every operand is C-contiguous: the plan agrees.
        for shape in [
            vec![],
            vec![1000],
            vec![7, 151],
            vec![2, 1, 3, 4],
            vec![1 << 31],
        ] {
            let l = Layout::contiguous(&shape);
            assert!(l.is_c_contiguous());
            let p = plan(&shape, &[l.strides(), l.strides()]).unwrap();
            let size: usize = shape.iter().product();
            assert_eq!(p.variant, Variant::Contiguous, "{shape:?}");
            assert_eq!(p.size, size);
            assert_eq!(
                p.index,
                index_width(size, size.saturating_sub(1)),
                "{shape:?}"
            );
        }
    }

    #[test]
    fn refinements() {
        let f = DType::F32;
        // (8, 12) + (8, 1): rows of contiguous data plus a broadcast column.
        let p = plan(&[8, 12], &[&[12, 1], &[12, 1], &[1, 0]]).unwrap();
        let v = refine(&p, &[(0x1000, f), (0x2000, f), (0x3000, f)], 1);
        assert_eq!(
            v,
            Variant::StridedVec {
                ndim: 2,
                vec: 4,
                bcast: 0b100
            }
        );
        assert_eq!(
            work_items(
                &p,
                v,
                &spec_for("add", "", &[f, f], &[f], &[], v, IndexWidth::I32)
            ),
            24
        );
        // Misaligned base or odd row length: scalar strided.
        assert_eq!(
            refine(&p, &[(0x1000, f), (0x2004, f), (0x3000, f)], 1),
            p.variant
        );
        let p = plan(&[8, 13], &[&[13, 1], &[13, 1], &[1, 0]]).unwrap();
        assert_eq!(
            refine(&p, &[(0x1000, f), (0x2000, f), (0x3000, f)], 1),
            p.variant
        );
        // Contiguous and aligned: vectorized by element size.
        let p = plan(&[100], &[&[1], &[1]]).unwrap();
        assert_eq!(
            refine(&p, &[(0x1000, DType::F64), (0x2000, DType::F64)], 1),
            Variant::Vectorized { vec: 2 }
        );
        // Writing into a transposed view iterates in the output's order: the input is the
        // staged (column-major) one.
        let p = plan(&[4, 5], &[&[1, 4], &[5, 1]]).unwrap();
        assert_eq!(p.variant, Variant::Tiled { staged: 0b10 });
        // Both operands column-major: iterate transposed, no tiles.
        let p = plan(&[4, 5], &[&[1, 4], &[1, 4]]).unwrap();
        assert_eq!(p.variant, Variant::Contiguous);
    }

    #[test]
    fn plan_example() {
        use crate::kernels::IndexWidth;
        use crate::ops::elementwise::{plan, Variant};
        let p = plan(&[4, 5], &[&[5, 1], &[5, 1]]).unwrap();
        assert_eq!(p.variant, Variant::Contiguous);
        let p = plan(&[4, 5], &[&[5, 1], &[1, 4]]).unwrap(); // a transposed input
        assert_eq!(p.variant, Variant::Tiled { staged: 0b10 });
        let p = plan(&[4, 5], &[&[5, 1], &[1, 0]]).unwrap(); // a broadcast column
        assert_eq!(p.variant, Variant::Strided { ndim: 2 });
        assert_eq!(p.index, IndexWidth::I32);
    }

    #[test]
    fn vector_width_example() {
        use crate::ops::elementwise::vector_width;
        use crate::DType;
        assert_eq!(
            vector_width([(0x1000, DType::F32), (0x2000, DType::F32)]),
            4
        );
        assert_eq!(
            vector_width([(0x1000, DType::F32), (0x2004, DType::F32)]),
            1
        );
        assert_eq!(
            vector_width([(0x1000, DType::Bool), (0x2000, DType::F64)]),
            2
        );
    }
}
