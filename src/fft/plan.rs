//! One FFT stage on cuFFT: a group of at most 3 axes of an input view transformed into an
//! output view (or in place), through cuFFT's advanced layout (strides, embeddings,
//! batch distance) with no copy. The batch is every other axis: those that collapse into
//! one stride go to cuFFT as its batch, the rest (a middle axis, say) are a loop of
//! executions at shifted addresses of one cached plan.

use super::cufft::{exec, Io, Kind, PlanKey};
use crate::device::Device;
use crate::element::DType;
use crate::ops::Operand;
use crate::{Error, Result};

/// Body of the normalisation pass (over the real parts of a result; `s0` the factor).
pub const FFT_SCALE_BODY: &str = "out0 = in0 * s0;";
/// Body of `fftfreq` (`s0` = 1 / (n d), `s1` = (n + 1) / 2, `s2` = n).
pub const FFTFREQ_BODY: &str =
    "out0 = (double)((long long)i < s1 ? (long long)i : (long long)i - s2) * s0;";
/// Body of `rfftfreq` (`s0` = 1 / (n d)).
pub const RFFTFREQ_BODY: &str = "out0 = (double)i * s0;";

/// The kind of one stage.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stage {
    /// Complex to complex, forward or inverse.
    C2C { forward: bool },
    /// Real to complex (forward): the last axis of the group has `n / 2 + 1` outputs.
    R2C,
    /// Complex to real (inverse): the last axis of the group has `n / 2 + 1` inputs. The
    /// input is overwritten.
    C2R,
}

/// How the axes `axes` (ascending) of a view of `shape` and `strides` nest as one cuFFT
/// transform: `(stride, embed)` with the axes' strides `stride * embed[i+1] * ...`, or
/// `None` when they do not. `last` is the extent the view has along the last axis.
/// Strides of axes of extent 1 are free (any position is the same element).
pub(crate) fn nests(
    shape: &[usize],
    strides: &[isize],
    axes: &[usize],
    last: usize,
) -> Option<(i64, [i64; 3])> {
    let r = axes.len();
    if r == 0 || r > 3 {
        return None;
    }
    let ext = |i: usize| if i == r - 1 { last } else { shape[axes[i]] };
    let mut embed = [0i64; 3];
    // The effective stride of each axis, innermost first.
    let mut inner = if ext(r - 1) == 1 {
        1
    } else {
        strides[axes[r - 1]]
    };
    if inner <= 0 {
        return None;
    }
    let base = inner;
    embed[r - 1] = ext(r - 1) as i64;
    for i in (0..r - 1).rev() {
        let e = ext(i + 1) as isize;
        let s = if ext(i) == 1 {
            inner * e.max(1)
        } else {
            strides[axes[i]]
        };
        if s <= 0 || s % inner != 0 || s / inner < e {
            return None;
        }
        embed[i + 1] = (s / inner) as i64;
        inner = s;
    }
    embed[0] = ext(0) as i64;
    Some((base as i64, embed))
}

/// The precision of a stage from the real type of its data.
fn kind(stage: Stage, real: DType) -> Result<Kind> {
    let double = match real {
        DType::F32 => false,
        DType::F64 => true,
        other => {
            return Err(Error::invalid(
                "fft",
                format!("cuFFT transforms f32 and f64 data, not {other}"),
            ))
        }
    };
    Ok(match (stage, double) {
        (Stage::C2C { .. }, false) => Kind::C2C,
        (Stage::C2C { .. }, true) => Kind::Z2Z,
        (Stage::R2C, false) => Kind::R2C,
        (Stage::R2C, true) => Kind::D2Z,
        (Stage::C2R, false) => Kind::C2R,
        (Stage::C2R, true) => Kind::Z2D,
    })
}

/// Batch axes collapsed: `(extent, input stride, output stride)`, at most `ndim` of them.
fn batch_dims(
    shape: &[usize],
    istrides: &[isize],
    ostrides: &[isize],
    axes: &[usize],
) -> Vec<(usize, isize, isize)> {
    let mut dims: Vec<(usize, isize, isize)> = Vec::with_capacity(shape.len());
    for d in 0..shape.len() {
        if axes.contains(&d) || shape[d] == 1 {
            continue;
        }
        let cur = (shape[d], istrides[d], ostrides[d]);
        if let Some(prev) = dims.last_mut() {
            let e = cur.0 as isize;
            if prev.1 == cur.1 * e && prev.2 == cur.2 * e {
                *prev = (prev.0 * cur.0, cur.1, cur.2);
                continue;
            }
        }
        dims.push(cur);
    }
    dims
}

/// Runs one stage over `axes` (ascending, at most 3, every stride non-negative) from
/// `input` into `output`, which may be the same memory with the same layout (in place; not
/// for real transforms). The two views have the same shape but along the last axis of the
/// group, where the complex side of a real transform has `n / 2 + 1` elements.
///
/// Returns `Ok(false)`, doing nothing, when the axes do not nest as one transform in
/// either view, or cuFFT declines to plan them as one (the caller splits the group).
pub(crate) fn run(
    device: &Device,
    stage: Stage,
    axes: &[usize],
    input: &Operand<'_>,
    output: &Operand<'_>,
) -> Result<bool> {
    let (ish, osh) = (input.layout().shape(), output.layout().shape());
    // An axis of extent 1 is never stepped along: its stride's sign does not matter (a
    // reversed row vector's leading axis has a negative one).
    let unsigned = |sh: &[usize], st: &[isize]| -> Vec<isize> {
        sh.iter()
            .zip(st)
            .map(|(&n, &s)| if n <= 1 { s.abs() } else { s })
            .collect()
    };
    let ist = &unsigned(ish, input.layout().strides())[..];
    let ost = &unsigned(osh, output.layout().strides())[..];
    let last_axis = axes[axes.len() - 1];
    // The transform's lengths: the real side's extents.
    let real_shape = if stage == Stage::C2R { osh } else { ish };
    let mut n = [0i64; 3];
    for (i, &a) in axes.iter().enumerate() {
        n[i] = real_shape[a] as i64;
    }
    let (Some((istride, inembed)), Some((ostride, onembed))) = (
        nests(ish, ist, axes, ish[last_axis]),
        nests(osh, ost, axes, osh[last_axis]),
    ) else {
        return Ok(false);
    };
    if ist.iter().chain(ost).any(|&s| s < 0) {
        return Err(Error::invalid(
            "fft",
            "a transform stage got a view with negative strides",
        ));
    }
    let dims = batch_dims(ish, ist, ost, axes);
    // cuFFT's batch: the largest collapsed batch axis; the others are a loop.
    let pick = (0..dims.len()).max_by_key(|&i| dims[i].0);
    let one = |embed: [i64; 3], stride: i64| -> i64 {
        embed[..axes.len()].iter().product::<i64>() * stride
    };
    let (batch, idist, odist) = match pick {
        Some(i) => (dims[i].0 as i64, dims[i].1 as i64, dims[i].2 as i64),
        None => (1, one(inembed, istride), one(onembed, ostride)),
    };
    let key = PlanKey {
        kind: kind(stage, input.dtype().real())?,
        rank: axes.len(),
        n,
        inembed,
        istride,
        idist,
        onembed,
        ostride,
        odist,
        batch,
        stream: device.stream_id(),
    };
    let forward = !matches!(stage, Stage::C2C { forward: false } | Stage::C2R);
    let loops: Vec<(usize, isize, isize)> = dims
        .iter()
        .enumerate()
        .filter(|&(i, _)| Some(i) != pick)
        .map(|(_, d)| *d)
        .collect();
    let count: usize = loops.iter().map(|d| d.0).product();
    let (isz, osz) = (input.dtype().size() as u64, output.dtype().size() as u64);
    let mut idx = vec![0usize; loops.len()];
    for call in 0..count {
        let (mut ioff, mut ooff) = (0usize, 0usize);
        for (k, d) in loops.iter().enumerate() {
            ioff += idx[k] * d.1 as usize;
            ooff += idx[k] * d.2 as usize;
        }
        let io = Io {
            input: (
                input.ptr() + ioff as u64 * isz,
                input.available().saturating_sub(ioff),
            ),
            output: (
                output.ptr() + ooff as u64 * osz,
                output.available().saturating_sub(ooff),
            ),
        };
        // SAFETY: both operands are live buffers of this device (checked views of their
        // buffers) of the stage's input and output types; `exec` checks that the layout
        // stays inside the elements available from each address. The input of a C2R
        // stage is the caller's own copy (see `Stage::C2R`).
        match unsafe { exec(device, &key, forward, io) } {
            Ok(()) => {}
            // A layout cuFFT does not plan as one transform: the caller splits the group.
            Err(Error::Cufft { op, msg })
                if call == 0
                    && axes.len() > 1
                    && op == "cufftMakePlanMany64"
                    && (msg.contains("INVALID") || msg.contains("NOT_SUPPORTED")) =>
            {
                return Ok(false)
            }
            Err(e) => return Err(e),
        }
        for k in (0..loops.len()).rev() {
            idx[k] += 1;
            if idx[k] < loops[k].0 {
                break;
            }
            idx[k] = 0;
        }
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nesting() {
        // Contiguous (4, 6, 8): the last two axes nest with embeds (6, 8).
        assert_eq!(
            nests(&[4, 6, 8], &[48, 8, 1], &[1, 2], 8),
            Some((1, [6, 8, 0]))
        );
        // A cropped view of a (4, 10) array: embed 10 for the last axis.
        assert_eq!(nests(&[4, 6], &[10, 1], &[0, 1], 6), Some((1, [4, 10, 0])));
        // A transposed view: axis 0 has stride 1, axis 1 stride 4: not nested in order.
        assert_eq!(nests(&[3, 4], &[1, 3], &[0, 1], 4), None);
        // A single strided axis.
        assert_eq!(nests(&[3, 4], &[1, 3], &[0], 3), Some((1, [3, 0, 0])));
        // Axes of extent 1 have free strides.
        assert_eq!(nests(&[1, 5], &[0, 1], &[0, 1], 5), Some((1, [1, 5, 0])));
        assert_eq!(nests(&[5, 1], &[1, 0], &[0, 1], 1), Some((1, [5, 1, 0])));
        // Broadcast axes do not nest.
        assert_eq!(nests(&[5], &[0], &[0], 5), None);
    }

    #[test]
    fn batches() {
        // (B, N, M) over axis 1: B and M stay apart.
        let d = batch_dims(&[2, 3, 4], &[12, 4, 1], &[12, 4, 1], &[1]);
        assert_eq!(d, vec![(2, 12, 12), (4, 1, 1)]);
        // (B1, B2, N) over the last axis: one batch axis.
        let d = batch_dims(&[2, 3, 4], &[12, 4, 1], &[12, 4, 1], &[2]);
        assert_eq!(d, vec![(6, 4, 4)]);
        // R2C: input and output rows of different lengths.
        let d = batch_dims(&[2, 3, 8], &[24, 8, 1], &[15, 5, 1], &[2]);
        assert_eq!(d, vec![(6, 8, 5)]);
    }
}
