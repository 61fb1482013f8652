//! softmax, log_softmax and logsumexp: a max reduction, then a sum of `exp(x - max)`
//! reduction that reads the max per output (the reduce family's aux input), then an
//! elementwise pass (over the data for the softmaxes, over the outputs for logsumexp).
//! Three launches, the data read twice by logsumexp and three times by the softmaxes; the
//! one-pass online max-and-sum is a later step.

use crate::array::DeviceArray;
use crate::element::{DType, Element, FloatElement};
use crate::kernels::family::reduce::{Acc, Identity, ReduceSpec, Variant as ReduceVariant};
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

/// The reduction kernels of the softmaxes for input dtype `d` (a row and a column
/// variant each), for tests that compile them.
pub(crate) fn reduce_specs(d: DType) -> Vec<KernelSpec> {
    let w = work_dtype(d);
    let mut out = Vec::new();
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
