//! The catalogue's reductions: each op's accumulator, identity and kernel pieces, per input
//! type (a typed table: a new element type must be placed in it explicitly).

use crate::element::DType;
use crate::kernels::family::reduce::{Acc, ArgValue, Identity};
use crate::kernels::Text;

/// Built-in reductions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReduceOp {
    /// Sum (identity 0).
    Sum,
    /// Product (identity 1).
    Prod,
    /// Maximum; NaN propagates; no identity.
    Max,
    /// Minimum; NaN propagates; no identity.
    Min,
    /// Index of the first maximum (first NaN if any).
    ArgMax,
    /// Index of the first minimum (first NaN if any).
    ArgMin,
    /// True when every element is non-zero.
    All,
    /// True when some element is non-zero.
    Any,
    /// Sum divided by the count `s0`.
    Mean,
    /// Sum of squared deviations from the per-output `k0`, divided by `s0` (variance).
    Var,
    /// Square root of `Var` (standard deviation).
    Std,
    /// Sum skipping NaN (NaN loads as 0; an all-NaN slice sums to 0).
    NanSum,
    /// Product skipping NaN (NaN loads as 1).
    NanProd,
    /// Maximum ignoring NaN: `fmax` with a NaN identity, so an all-NaN slice gives NaN.
    NanMax,
    /// Minimum ignoring NaN (`fmin`, NaN identity).
    NanMin,
    /// Index of the first maximum, NaN loading as -inf (NumPy's replacement).
    NanArgMax,
    /// Index of the first minimum, NaN loading as +inf.
    NanArgMin,
    /// Mean of the non-NaN elements: the accumulator is a (sum, count) pair (a complex
    /// number of the mean's precision), divided in the post-map; NaN for an all-NaN slice.
    NanMean,
    /// Sum of squared deviations of the non-NaN elements from the per-output `k0`,
    /// divided by `count - s0` (`s0` = ddof; NaN when that is not positive). Pair
    /// accumulator as `NanMean`.
    NanVar,
    /// Square root of `NanVar`.
    NanStd,
}

/// The generated pieces of one reduction for one input dtype.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReduceDef {
    /// Accumulator type.
    pub acc: Acc,
    /// Identity expression.
    pub identity: Text,
    /// Source between the typedefs and the kernel (empty for built-in ops).
    pub preamble: Text,
    /// Pre-map statements.
    pub pre: Text,
    /// Operator expression in `a`, `b`.
    pub combine: Text,
    /// The operator where every element of `b` comes after every element of `a` and `a`
    /// holds elements (the elements of one vector load, in order), where that is cheaper
    /// than `combine`; empty: `combine`.
    pub combine_forward: Text,
    /// Post-map statements.
    pub post: Text,
}

/// The wide accumulator of `d` for sums, products, max and min (complex types: sums and
/// products only, in the type itself, as NumPy).
const fn sum_acc(d: DType) -> Acc {
    match d {
        DType::F16 | DType::BF16 | DType::F32 => Acc::F32,
        DType::F64 => Acc::F64,
        DType::C64 | DType::C128 => Acc::Plain(d),
        DType::U8 | DType::U16 | DType::U32 | DType::U64 => Acc::U64,
        DType::Bool | DType::I8 | DType::I16 | DType::I32 | DType::I64 => Acc::I64,
    }
}

/// The value type argmax and argmin compare `d` as (complex types have no order: the
/// array methods refuse them, so their arm, the real part's type, is never launched).
const fn arg_value(d: DType) -> ArgValue {
    match d {
        DType::F16 | DType::BF16 | DType::F32 | DType::C64 => ArgValue::F32,
        DType::F64 | DType::C128 => ArgValue::F64,
        DType::U8 | DType::U16 | DType::U32 | DType::U64 => ArgValue::U64,
        DType::Bool | DType::I8 | DType::I16 | DType::I32 | DType::I64 => ArgValue::I64,
    }
}

/// Accumulator (and result type) of mean and variance: `f32` up to f32, the type itself
/// for complex types (mean only), else `f64`.
pub(crate) const fn mean_acc(d: DType) -> DType {
    match d {
        DType::F16 | DType::BF16 | DType::F32 => DType::F32,
        DType::C64 | DType::C128 => d,
        DType::F64
        | DType::Bool
        | DType::I8
        | DType::I16
        | DType::I32
        | DType::I64
        | DType::U8
        | DType::U16
        | DType::U32
        | DType::U64 => DType::F64,
    }
}

impl ReduceOp {
    /// The op's name.
    pub const fn name(self) -> &'static str {
        match self {
            ReduceOp::Sum => "sum",
            ReduceOp::Prod => "prod",
            ReduceOp::Max => "max",
            ReduceOp::Min => "min",
            ReduceOp::ArgMax => "argmax",
            ReduceOp::ArgMin => "argmin",
            ReduceOp::All => "all",
            ReduceOp::Any => "any",
            ReduceOp::Mean => "mean",
            ReduceOp::Var => "var",
            ReduceOp::Std => "std",
            ReduceOp::NanSum => "nansum",
            ReduceOp::NanProd => "nanprod",
            ReduceOp::NanMax => "nanmax",
            ReduceOp::NanMin => "nanmin",
            ReduceOp::NanArgMax => "nanargmax",
            ReduceOp::NanArgMin => "nanargmin",
            ReduceOp::NanMean => "nanmean",
            ReduceOp::NanVar => "nanvar",
            ReduceOp::NanStd => "nanstd",
        }
    }

    /// Every op, in declaration order.
    pub const ALL: &'static [ReduceOp] = &[
        ReduceOp::Sum,
        ReduceOp::Prod,
        ReduceOp::Max,
        ReduceOp::Min,
        ReduceOp::ArgMax,
        ReduceOp::ArgMin,
        ReduceOp::All,
        ReduceOp::Any,
        ReduceOp::Mean,
        ReduceOp::Var,
        ReduceOp::Std,
        ReduceOp::NanSum,
        ReduceOp::NanProd,
        ReduceOp::NanMax,
        ReduceOp::NanMin,
        ReduceOp::NanArgMax,
        ReduceOp::NanArgMin,
        ReduceOp::NanMean,
        ReduceOp::NanVar,
        ReduceOp::NanStd,
    ];

    /// True for the NaN-skipping ops.
    pub const fn is_nan_op(self) -> bool {
        matches!(
            self,
            ReduceOp::NanSum
                | ReduceOp::NanProd
                | ReduceOp::NanMax
                | ReduceOp::NanMin
                | ReduceOp::NanArgMax
                | ReduceOp::NanArgMin
                | ReduceOp::NanMean
                | ReduceOp::NanVar
                | ReduceOp::NanStd
        )
    }

    /// True for the ops without identity (an empty reduction is an error).
    pub(crate) const fn needs_elements(self) -> bool {
        matches!(
            self,
            ReduceOp::Max
                | ReduceOp::Min
                | ReduceOp::ArgMax
                | ReduceOp::ArgMin
                | ReduceOp::NanMax
                | ReduceOp::NanMin
                | ReduceOp::NanArgMax
                | ReduceOp::NanArgMin
        )
    }

    /// True when the result depends on the order of the reduced elements' indices.
    pub(crate) const fn is_arg(self) -> bool {
        matches!(
            self,
            ReduceOp::ArgMax | ReduceOp::ArgMin | ReduceOp::NanArgMax | ReduceOp::NanArgMin
        )
    }

    /// The kernel pieces for input dtype `d`.
    pub fn def(self, d: DType) -> ReduceDef {
        let plain = "a = acc_t(in0);";
        let out = "out0 = out0_t(a);";
        let def = |acc: Acc, identity: Identity, pre, combine, post| ReduceDef {
            acc,
            identity: acc.identity(identity).into(),
            preamble: Text::EMPTY,
            pre: Text::Static(pre),
            combine: Text::Static(combine),
            combine_forward: Text::EMPTY,
            post: Text::Static(post),
        };
        match self {
            ReduceOp::Sum => def(sum_acc(d), Identity::Zero, plain, "a + b", out),
            ReduceOp::Prod => def(sum_acc(d), Identity::One, plain, "a * b", out),
            ReduceOp::Max => def(
                sum_acc(d),
                Identity::Lowest,
                plain,
                "cuarray_maximum(a, b)",
                out,
            ),
            ReduceOp::Min => def(
                sum_acc(d),
                Identity::Highest,
                plain,
                "cuarray_minimum(a, b)",
                out,
            ),
            ReduceOp::ArgMax | ReduceOp::ArgMin => {
                let v = arg_value(d);
                let pre = match v {
                    ArgValue::F32 => "a.v = float(in0); a.i = j;",
                    ArgValue::F64 => "a.v = double(in0); a.i = j;",
                    ArgValue::U64 => "a.v = (unsigned long long)in0; a.i = j;",
                    ArgValue::I64 => "a.v = (long long)in0; a.i = j;",
                };
                let (identity, combine, forward) = if self == ReduceOp::ArgMax {
                    (
                        Identity::Lowest,
                        "cuarray_argmax_comb(a, b)",
                        "cuarray_argmax_fwd(a, b)",
                    )
                } else {
                    (
                        Identity::Highest,
                        "cuarray_argmin_comb(a, b)",
                        "cuarray_argmin_fwd(a, b)",
                    )
                };
                ReduceDef {
                    combine_forward: Text::Static(forward),
                    ..def(Acc::Arg(v), identity, pre, combine, "out0 = a.i;")
                }
            }
            ReduceOp::All => def(
                Acc::Int,
                Identity::One,
                "a = (in0 != in0_t(0)) ? 1 : 0;",
                "a & b",
                "out0 = a != 0;",
            ),
            ReduceOp::Any => def(
                Acc::Int,
                Identity::Zero,
                "a = (in0 != in0_t(0)) ? 1 : 0;",
                "a | b",
                "out0 = a != 0;",
            ),
            ReduceOp::Mean | ReduceOp::Var | ReduceOp::Std => {
                let acc = match mean_acc(d) {
                    DType::F32 => Acc::F32,
                    c @ (DType::C64 | DType::C128) => Acc::Plain(c),
                    _ => Acc::F64,
                };
                let pre = if self == ReduceOp::Mean {
                    plain
                } else {
                    "const acc_t dev = acc_t(in0) - acc_t(k0); a = dev * dev;"
                };
                let post = if self == ReduceOp::Std {
                    "out0 = out0_t(cuarray_m_sqrt(a / acc_t(s0)));"
                } else {
                    "out0 = out0_t(a / acc_t(s0));"
                };
                def(acc, Identity::Zero, pre, "a + b", post)
            }
            ReduceOp::NanSum | ReduceOp::NanProd | ReduceOp::NanMax | ReduceOp::NanMin
                if !d.is_float() =>
            {
                // Integers and bool hold no NaN: the plain op (as NumPy).
                let plain = match self {
                    ReduceOp::NanSum => ReduceOp::Sum,
                    ReduceOp::NanProd => ReduceOp::Prod,
                    ReduceOp::NanMax => ReduceOp::Max,
                    _ => ReduceOp::Min,
                };
                plain.def(d)
            }
            ReduceOp::NanSum => def(
                sum_acc(d),
                Identity::Zero,
                "a = cuarray_isnan(in0) ? acc_t(0) : acc_t(in0);",
                "a + b",
                out,
            ),
            ReduceOp::NanProd => def(
                sum_acc(d),
                Identity::One,
                "a = cuarray_isnan(in0) ? acc_t(1) : acc_t(in0);",
                "a * b",
                out,
            ),
            ReduceOp::NanMax | ReduceOp::NanMin => {
                let acc = sum_acc(d);
                // fmax/fmin with a NaN identity: NaN only where every element is NaN.
                let nan = if acc == Acc::F64 {
                    "__longlong_as_double(0x7ff8000000000000LL)"
                } else {
                    "__int_as_float(0x7fffffff)"
                };
                let combine = if self == ReduceOp::NanMax {
                    "cuarray_fmax(a, b)"
                } else {
                    "cuarray_fmin(a, b)"
                };
                ReduceDef {
                    identity: Text::Static(nan),
                    ..def(acc, Identity::Zero, plain, combine, out)
                }
            }
            ReduceOp::NanArgMax | ReduceOp::NanArgMin => {
                let plain = if self == ReduceOp::NanArgMax {
                    ReduceOp::ArgMax
                } else {
                    ReduceOp::ArgMin
                };
                let base = plain.def(d);
                if !d.is_float() {
                    return base;
                }
                // NumPy replaces NaN by -inf (argmax) or +inf (argmin), then takes the arg
                // reduction; all-NaN slices are checked apart (`DeviceArray::nanargmax`).
                let pre = match (arg_value(d), self == ReduceOp::NanArgMax) {
                    (ArgValue::F64, true) => {
                        "a.v = cuarray_isnan(in0) ? -__longlong_as_double(0x7ff0000000000000LL) : double(in0); a.i = j;"
                    }
                    (ArgValue::F64, false) => {
                        "a.v = cuarray_isnan(in0) ? __longlong_as_double(0x7ff0000000000000LL) : double(in0); a.i = j;"
                    }
                    (_, true) => {
                        "a.v = cuarray_isnan(in0) ? -__int_as_float(0x7f800000) : float(in0); a.i = j;"
                    }
                    (_, false) => {
                        "a.v = cuarray_isnan(in0) ? __int_as_float(0x7f800000) : float(in0); a.i = j;"
                    }
                };
                ReduceDef {
                    pre: Text::Static(pre),
                    ..base
                }
            }
            ReduceOp::NanMean | ReduceOp::NanVar | ReduceOp::NanStd => {
                // (sum, count) in one complex accumulator of the mean's precision: one
                // read of the data, the pair summed as complex numbers are.
                let single = mean_acc(d) == DType::F32;
                let acc = Acc::Plain(if single { DType::C64 } else { DType::C128 });
                let pre = match (single, self == ReduceOp::NanMean) {
                    (true, true) => "a = cuarray_isnan(in0) ? acc_t(0) : acc_t(float(in0), 1.0f);",
                    (false, true) => "a = cuarray_isnan(in0) ? acc_t(0) : acc_t(double(in0), 1.0);",
                    (true, false) => {
                        "if (cuarray_isnan(in0)) { a = acc_t(0); } else { const float dev = float(in0) - float(k0); a = acc_t(dev * dev, 1.0f); }"
                    }
                    (false, false) => {
                        "if (cuarray_isnan(in0)) { a = acc_t(0); } else { const double dev = double(in0) - double(k0); a = acc_t(dev * dev, 1.0); }"
                    }
                };
                let post = match (single, self) {
                    (true, ReduceOp::NanMean) => "out0 = out0_t(a.re / a.im);",
                    (false, ReduceOp::NanMean) => "out0 = out0_t(a.re / a.im);",
                    (true, ReduceOp::NanVar) => {
                        "const float dof = a.im - float(s0); out0 = out0_t(dof > 0.0f ? a.re / dof : __int_as_float(0x7fffffff));"
                    }
                    (false, ReduceOp::NanVar) => {
                        "const double dof = a.im - double(s0); out0 = out0_t(dof > 0.0 ? a.re / dof : __longlong_as_double(0x7ff8000000000000LL));"
                    }
                    (true, _) => {
                        "const float dof = a.im - float(s0); out0 = out0_t(dof > 0.0f ? cuarray_m_sqrt(a.re / dof) : __int_as_float(0x7fffffff));"
                    }
                    (false, _) => {
                        "const double dof = a.im - double(s0); out0 = out0_t(dof > 0.0 ? cuarray_m_sqrt(a.re / dof) : __longlong_as_double(0x7ff8000000000000LL));"
                    }
                };
                def(acc, Identity::Zero, pre, "a + b", post)
            }
        }
    }

    /// The scan of this op (`Sum` or `Prod`): its symbol name.
    pub(crate) const fn scan_name(self) -> &'static str {
        match self {
            ReduceOp::Prod => "cumprod",
            ReduceOp::NanSum => "nancumsum",
            ReduceOp::NanProd => "nancumprod",
            _ => "cumsum",
        }
    }
}

/// The reduction telling whether every element of a slice is NaN (`nanargmax`'s check).
pub fn all_nan_def() -> ReduceDef {
    ReduceDef {
        acc: Acc::Int,
        identity: Text::Static("1"),
        preamble: Text::EMPTY,
        pre: Text::Static("a = cuarray_isnan(in0) ? 1 : 0;"),
        combine: Text::Static("a & b"),
        combine_forward: Text::EMPTY,
        post: Text::Static("out0 = a != 0;"),
    }
}

/// The count of non-NaN elements (`i64`; the NaN-skipping quantiles).
pub fn not_nan_count_def() -> ReduceDef {
    ReduceDef {
        acc: Acc::I64,
        identity: Text::Static("0"),
        preamble: Text::EMPTY,
        pre: Text::Static("a = cuarray_isnan(in0) ? 0 : 1;"),
        combine: Text::Static("a + b"),
        combine_forward: Text::EMPTY,
        post: Text::Static("out0 = a;"),
    }
}
