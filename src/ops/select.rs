//! Stream compaction (masked_select, nonzero, argwhere, unique): the plan and the two
//! launches of the select family. Between them the caller sums the tile counts and reads
//! the total, to allocate the result.

use super::Operand;
use crate::element::DType;
use crate::kernels::cache::kernel;
use crate::kernels::family::select::{Flag, Out, SelectSpec, TILE};
use crate::kernels::{IndexWidth, MAX_DIMS};
use crate::ops::launch::index_width;
use crate::shape::collapse;
use crate::{Device, Error, Result};

/// The plan of a compaction over `n` elements. Pure.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SelectPlan {
    /// Elements.
    pub(crate) n: usize,
    /// Tiles (one block each).
    pub(crate) tiles: usize,
    /// The shape collapsed with the flag's and the value's strides.
    pub(crate) dims: Vec<usize>,
    /// The flag operand's and the value operand's strides.
    pub(crate) strides: [Vec<isize>; 2],
    /// Index width.
    pub(crate) index: IndexWidth,
}

/// Plans a compaction over `shape` with the flag operand's and the value operand's strides
/// (for coordinates or unique, the flag's twice).
///
/// # Errors
/// [`Error::InvalidArgument`] naming `op` when the strides need more dimensions after
/// merging than one kernel indexes.
pub(crate) fn plan_select(
    op: &'static str,
    shape: &[usize],
    flag_strides: &[isize],
    value_strides: &[isize],
) -> Result<SelectPlan> {
    let n: usize = shape.iter().product();
    let c = collapse(shape, &[flag_strides, value_strides]);
    let (dims, strides) = if c.shape.is_empty() {
        (vec![1], [vec![0], vec![0]])
    } else {
        let mut it = c.strides.into_iter();
        (
            c.shape,
            [it.next().unwrap_or_default(), it.next().unwrap_or_default()],
        )
    };
    if dims.len() > MAX_DIMS {
        return Err(Error::invalid(
            op,
            "too many dimensions after merging (make the arrays contiguous first)",
        ));
    }
    let reach = strides
        .iter()
        .map(|s| {
            dims.iter()
                .zip(s)
                .map(|(&e, &st)| e.saturating_sub(1) * st.unsigned_abs())
                .sum::<usize>()
        })
        .max()
        .unwrap_or(0);
    Ok(SelectPlan {
        n,
        tiles: n.div_ceil(TILE),
        index: index_width(n + TILE, reach + TILE),
        dims,
        strides,
    })
}

fn spec(
    p: &SelectPlan,
    write: bool,
    flag: Flag,
    flag_dtype: DType,
    value_dtype: DType,
    out: Out,
) -> SelectSpec {
    SelectSpec {
        write,
        flag,
        flag_dtype,
        value_dtype,
        out,
        nd: p.dims.len() as u8,
        index: p.index,
    }
}

/// Writes each tile's count of selected elements into the u32 `counts` (`p.tiles`).
pub(crate) fn count(
    device: &Device,
    p: &SelectPlan,
    flag: Flag,
    f: &Operand<'_>,
    counts: &Operand<'_>,
) -> Result<()> {
    if p.tiles == 0 {
        return Ok(());
    }
    let s = spec(p, false, flag, f.dtype(), f.dtype(), Out::Values);
    super::real_only("select", &[s.flag_dtype, s.value_dtype])?;
    let k = kernel(device, &s)?;
    // SAFETY: `k` is `s`'s kernel (just above), `s.flag_dtype` is `f`'s; `p.tiles` is
    // `p.n.div_ceil(TILE)` (`plan_select`); `p` planning the shape and strides of `f` (so
    // that its offsets stay inside `f`) and `counts` holding `p.tiles` u32 entries are this
    // function's callers' contract (its doc), not checked here.
    unsafe {
        s.launch_count(
            device,
            &k,
            p.tiles as u32,
            f,
            (&p.dims, &p.strides),
            p.n,
            counts,
        )
    }
}

/// What a write produces.
pub(crate) enum Target<'a, 'b> {
    /// The selected elements of `values` into the 1-D `out`.
    Values {
        values: &'b Operand<'a>,
        out: &'b Operand<'a>,
    },
    /// Coordinates over `shape` into the i64 `out`: result r's coordinate d at
    /// `r * sk + d * sd`.
    Coords {
        shape: &'b [usize],
        sk: usize,
        sd: usize,
        out: &'b Operand<'a>,
    },
}

/// Writes the selected elements in order, with `incl` (u64, `p.tiles`) the inclusive sum
/// of the tile counts; the output holds their total.
pub(crate) fn write(
    device: &Device,
    p: &SelectPlan,
    flag: Flag,
    f: &Operand<'_>,
    incl: &Operand<'_>,
    target: Target<'_, '_>,
) -> Result<()> {
    if p.tiles == 0 {
        return Ok(());
    }
    let (value_dtype, out_kind, v, out) = match &target {
        Target::Values { values, out } => (values.dtype(), Out::Values, *values, *out),
        Target::Coords { shape, out, .. } => (
            f.dtype(),
            Out::Coords {
                ndl: shape.len().max(1) as u8,
            },
            f,
            *out,
        ),
    };
    if let Target::Coords { shape, .. } = &target {
        if shape.len() > MAX_DIMS {
            return Err(Error::invalid("nonzero", "too many dimensions"));
        }
    }
    let s = spec(p, true, flag, f.dtype(), value_dtype, out_kind);
    super::real_only("select", &[s.flag_dtype, s.value_dtype])?;
    let k = kernel(device, &s)?;
    let coords = match &target {
        Target::Values { .. } => None,
        Target::Coords { shape, sk, sd, .. } => Some((*shape, *sk, *sd)),
    };
    // SAFETY: `k` is `s`'s kernel (just above), whose dtypes are `f`'s and `v`'s;
    // `p.tiles` is `p.n.div_ceil(TILE)`; coordinates have at most MAX_DIMS dimensions
    // (checked above); `p` planning the shapes and strides of `f` and `v`, `incl` holding
    // the inclusive sums of `count`'s tile counts for the same flags and `out` their total
    // are this function's callers' contract (its doc), not checked here.
    unsafe {
        s.launch_write(
            device,
            &k,
            p.tiles as u32,
            f,
            v,
            (&p.dims, &p.strides),
            p.n,
            incl,
            out,
            coords,
        )
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn plan_select_example() {
        use crate::ops::select::plan_select;
        let p = plan_select("masked_select", &[1000, 1000], &[1000, 1], &[1000, 1]).unwrap();
        assert_eq!((p.dims.clone(), p.tiles), (vec![1_000_000], 245));
    }
}
