//! softmax, log_softmax and logsumexp. Over a trailing run of axes of a C-contiguous
//! array, rows of at most 4096 elements: one kernel of the row family (`softmax.cuh`)
//! that holds each row in registers, so the data is read once. Otherwise: a max
//! reduction, then a sum of `exp(x - max)` reduction that reads the max per output (the
//! reduce family's aux input), then an elementwise pass (over the data for the softmaxes,
//! over the outputs for logsumexp).

use crate::array::DeviceArray;
use crate::element::{DType, Element, FloatElement};
use crate::kernels::cache::kernel;
use crate::kernels::family::reduce::{Acc, Identity, ReduceSpec, Variant as ReduceVariant};
use crate::kernels::family::softmax::{RowOp, SoftmaxSpec, MAX_ROW};
use crate::kernels::{IndexWidth, KernelSpec, Text, TypeList};
use crate::ops::catalogue::ReduceDef;
use crate::ops::reduce::{plan_reduce, run_def, ReduceOp};
use crate::shape::normalize_axis;
use crate::Result;

/// The type softmax and logsumexp work in: f64 for f64, else f32.
pub(crate) const fn work_dtype(d: DType) -> DType {
    match d {
        DType::F64 => DType::F64,
        _ => DType::F32,
    }
}

/// `exp(x - m) / s`, SciPy's softmax (`m` the slice maximum, as is).
pub(crate) const SOFTMAX_BODY: &str = "out0 = cuarray_special_exp_shifted(in0, in1) / in2;";
/// `(x - m') - ln s`, SciPy's log_softmax (`m'` the maximum, 0 where not finite; `in2`
/// holds `ln s`).
pub(crate) const LOG_SOFTMAX_BODY: &str =
    "out0 = (cuarray_up(in0) - (cuarray_m_isfinite(in1) ? in1 : in1_t(0))) - in2;";

/// Pre-maps of the sum of exponentials: `m` as is (softmax) or 0 where not finite.
const PRE_SHIFT: &str = "a = cuarray_m_exp(acc_t(in0) - acc_t(k0));";
const PRE_SHIFT_FINITE: &str =
    "a = cuarray_m_exp(acc_t(in0) - (cuarray_m_isfinite(acc_t(k0)) ? acc_t(k0) : acc_t(0)));";
/// Post-maps: the sum, its log, or logsumexp's `m + ln s` (`m` itself when not finite).
const POST_SUM: &str = "out0 = out0_t(a);";
const POST_LOG: &str = "out0 = out0_t(cuarray_m_log(a));";
/// logsumexp's finish: `m + ln s` (`in0` = ln s, `in1` = m), `m` itself when not finite.
pub(crate) const LSE_FINISH_BODY: &str = "out0 = cuarray_special_lse_finish(in0, in1);";

/// The three sums of exponentials (name, pre-map, post-map).
const SUMS: [(&str, &str, &str); 3] = [
    ("special_softmax_sum", PRE_SHIFT, POST_SUM),
    ("special_log_softmax_sum", PRE_SHIFT_FINITE, POST_LOG),
    ("special_logsumexp_sum", PRE_SHIFT, POST_LOG),
];

fn sum_def(w: DType, pre: &'static str, post: &'static str) -> ReduceDef {
    let acc = if w == DType::F64 { Acc::F64 } else { Acc::F32 };
    ReduceDef {
        acc,
        identity: acc.identity(Identity::Zero).into(),
        preamble: Text::EMPTY,
        pre: Text::Static(pre),
        combine: Text::Static("a + b"),
        combine_forward: Text::EMPTY,
        post: Text::Static(post),
    }
}

/// The kernels of the softmaxes for input dtype `d` (the row family's, and the
/// reductions' row and column variants), for tests that compile them.
pub(crate) fn reduce_specs(d: DType) -> Vec<KernelSpec> {
    let w = work_dtype(d);
    let mut out: Vec<KernelSpec> = SoftmaxSpec::all(d, w)
        .into_iter()
        .map(KernelSpec::from)
        .collect();
    for (name, pre, post) in SUMS {
        let def = sum_def(w, pre, post);
        for variant in [
            ReduceVariant::Rows {
                warp: false,
                vec: 1,
                nk: 1,
                nr: 1,
            },
            ReduceVariant::Cols {
                vec: 1,
                nk: 1,
                nr: 1,
            },
        ] {
            out.push(KernelSpec::from(ReduceSpec {
                op: Text::Static(name),
                preamble: Text::EMPTY,
                pre: def.pre.clone(),
                input: d,
                extra: TypeList::new(&[]),
                output: w,
                scalars: TypeList::new(&[]),
                acc: def.acc,
                identity: def.identity.clone(),
                combine: def.combine.clone(),
                combine_forward: Text::EMPTY,
                post: def.post.clone(),
                partial_in: false,
                partial_out: false,
                finish: false,
                aux: Some(w),
                along: None,
                variant,
                index: IndexWidth::I32,
            }));
        }
    }
    out
}

/// Reduces `x` over `axes` with the sum `which` of `SUMS`, reading `m` (one value per
/// output, C order) as the shift.
fn sum_exp<T: Element, W: FloatElement, U: Element>(
    x: &DeviceArray<T>,
    axes: Option<&[isize]>,
    keepdims: bool,
    m: &DeviceArray<W>,
    which: usize,
) -> Result<DeviceArray<U>> {
    let device = x.device();
    let p = plan_reduce(
        x.layout(),
        axes,
        keepdims,
        false,
        device.multiprocessor_count(),
    )?;
    let out = DeviceArray::<U>::alloc_uninit(device, &p.out_shape)?;
    let (name, pre, post) = SUMS[which];
    let def = sum_def(W::DTYPE, pre, post);
    let m = m.contiguous()?;
    run_def(
        device,
        &Text::Static(name),
        &def,
        &p,
        &x.operand()?,
        &out.operand()?,
        Some(&m.operand()?),
        &[],
    )?;
    Ok(out)
}

/// The row length when `axes` (normalized, any order) are the trailing axes of the
/// C-contiguous `x` and their elements number 1 ..= [`MAX_ROW`]: the row family's case.
fn trailing_rows<T: Element>(x: &DeviceArray<T>, axes: &[usize]) -> Option<usize> {
    let nd = x.ndim();
    let mut sorted = axes.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let trailing = sorted.len() == axes.len()
        && !sorted.is_empty()
        && sorted
            .iter()
            .enumerate()
            .all(|(i, &a)| a == nd - sorted.len() + i);
    let len: usize = sorted.iter().map(|&a| x.shape()[a]).product();
    (x.is_contiguous() && trailing && (1..=MAX_ROW).contains(&len)).then_some(len)
}

/// `op` over rows of `len` elements of the C-contiguous `x` into `out` (of `x`'s size,
/// or one element a row for logsumexp): one kernel, the data read once.
fn run_rows<T: Element, W: FloatElement>(
    op: RowOp,
    x: &DeviceArray<T>,
    out: &DeviceArray<T>,
    len: usize,
) -> Result<()> {
    let device = x.device();
    let rows = x.size() / len;
    let (xi, oi) = (x.operand()?, out.operand()?);
    let aligned = xi.ptr() % 16 == 0 && oi.ptr() % 16 == 0;
    let spec = SoftmaxSpec::for_rows(op, T::DTYPE, W::DTYPE, len, aligned);
    let f = kernel(device, &spec)?;
    let per_block = (crate::kernels::BLOCK / spec.group) as usize;
    let resident = device.multiprocessor_count() * f.blocks_per_sm;
    let grid = rows.div_ceil(per_block).clamp(1, resident as usize) as u32;
    // SAFETY: `spec` is `f`'s spec, chosen for rows of `len` elements (vector accesses
    // only where both addresses are 16-byte aligned and `len` a multiple); `x` is C-contiguous
    // (checked by `trailing_rows`) of `rows * len` elements of `T`; `out` is a new array
    // of `rows * len` elements (`rows` for logsumexp), written only here.
    unsafe { spec.launch(device, &f, grid, (xi.ptr(), oi.ptr()), (rows, len)) }
}

/// The maximum over `axes` in the work type `W` (NaN propagates).
fn max_over<T: Element, W: FloatElement>(
    x: &DeviceArray<T>,
    axes: Option<&[isize]>,
) -> Result<DeviceArray<W>> {
    x.reduce(ReduceOp::Max, axes, false, None, &[])
}

/// `x`'s shape with `axis` (normalized) kept as 1.
fn kept_shape(shape: &[usize], axis: usize) -> Vec<usize> {
    let mut s = shape.to_vec();
    s[axis] = 1;
    s
}

pub(crate) fn logsumexp_impl<T: FloatElement, W: FloatElement>(
    x: &DeviceArray<T>,
    axes: &[isize],
    keepdims: bool,
) -> Result<DeviceArray<T>> {
    let device = x.device();
    let axes_opt = if axes.is_empty() && x.ndim() > 0 {
        None
    } else {
        Some(axes)
    };
    let p = plan_reduce(x.layout(), axes_opt, keepdims, false, 1)?;
    if p.n_red == 0 || p.n_out == 0 {
        // SciPy: the log of an empty sum is -inf.
        return DeviceArray::full(device, p.out_shape.as_slice(), T::neg_infinity());
    }
    let reduced: Vec<usize> = match axes_opt {
        None => (0..x.ndim()).collect(),
        Some(a) => a
            .iter()
            .map(|&ax| normalize_axis("logsumexp", ax, x.ndim().max(1)))
            .collect::<Result<_>>()?,
    };
    if let Some(len) = trailing_rows(x, &reduced) {
        let out = DeviceArray::<T>::alloc_uninit(device, &p.out_shape)?;
        run_rows::<T, W>(RowOp::Logsumexp, x, &out, len)?;
        return Ok(out);
    }
    let m: DeviceArray<W> = max_over(x, axes_opt)?;
    let ls: DeviceArray<W> = sum_exp(x, axes_opt, keepdims, &m, 2)?;
    let m = m.reshape(p.out_shape.as_slice())?;
    let out = DeviceArray::<T>::alloc_uninit(device, &p.out_shape)?;
    crate::ops::elementwise::run(
        device,
        "special_logsumexp",
        LSE_FINISH_BODY,
        &[out.operand()?],
        &[ls.operand()?, m.operand()?],
        &[],
    )?;
    Ok(out)
}

pub(crate) fn softmax_impl<T: FloatElement, W: FloatElement>(
    x: &DeviceArray<T>,
    axis: isize,
    log: bool,
) -> Result<DeviceArray<T>> {
    let op = if log { "log_softmax" } else { "softmax" };
    let device = x.device();
    let nd = x.ndim().max(1);
    let k = normalize_axis(op, axis, nd)?;
    let x = if x.ndim() == 0 {
        x.reshape([1usize])?
    } else {
        x.clone()
    };
    let out = DeviceArray::<T>::alloc_uninit(device, x.shape())?;
    if x.size() == 0 {
        return out.reshape(x.shape());
    }
    if let Some(len) = trailing_rows(&x, &[k]) {
        let row_op = if log {
            RowOp::LogSoftmax
        } else {
            RowOp::Softmax
        };
        run_rows::<T, W>(row_op, &x, &out, len)?;
        return Ok(out);
    }
    let ax = [k as isize];
    let m: DeviceArray<W> = max_over(&x, Some(&ax))?;
    let s: DeviceArray<W> = sum_exp(&x, Some(&ax), false, &m, if log { 1 } else { 0 })?;
    let kept = kept_shape(x.shape(), k);
    let m = m.reshape(kept.as_slice())?;
    let s = s.reshape(kept.as_slice())?;
    let shape = x.shape().to_vec();
    let (name, body) = if log {
        ("special_log_softmax", LOG_SOFTMAX_BODY)
    } else {
        ("special_softmax", SOFTMAX_BODY)
    };
    crate::ops::elementwise::run(
        device,
        name,
        body,
        &[out.operand()?],
        &[x.operand()?, m.operand_as(&shape)?, s.operand_as(&shape)?],
        &[],
    )?;
    Ok(out)
}

/// True when `T` works in f64 (else f32).
pub(crate) fn work_is_f64<T: Element>() -> bool {
    work_dtype(T::DTYPE) == DType::F64
}
