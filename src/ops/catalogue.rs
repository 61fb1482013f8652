//! The catalogue of built-in ops as kernel bodies: elementwise ops (each one device
//! function `cuarray_<name>` of `kernels/ops.cuh`, its body generated from that name, so
//! that every op shares the one N-ary template), the bodies of creation functions, and the
//! reductions with their accumulators and identities (a typed table: a new element type
//! must be placed in it explicitly).

use crate::element::DType;
use crate::kernels::family::elementwise::{ElementwiseSpec, Variant};
use crate::kernels::family::reduce::{Acc, ArgValue, Identity};
use crate::kernels::{IndexWidth, KernelSpec, Text, TypeList};

macro_rules! op_enum {
    ($(#[$meta:meta])* $enum:ident { $($(#[doc = $doc:literal])* $variant:ident => $name:literal),* $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $enum {
            $($(#[doc = $doc])* $variant),*
        }

        impl $enum {
            /// Every op of this kind.
            pub const ALL: &'static [$enum] = &[$($enum::$variant),*];

            /// The op's name (`cuarray_<name>` in `kernels/ops.cuh`).
            pub const fn name(self) -> &'static str {
                match self { $($enum::$variant => $name),* }
            }

            /// The kernel body applying the op to the array operands `in0` (and `in1`).
            #[doc(hidden)]
            pub const fn body(self) -> &'static str {
                match self { $($enum::$variant => op_enum!(@body $enum $name)),* }
            }
        }
    };
    (@body UnaryOp $name:literal) => { concat!("out0 = cuarray_", $name, "(in0);") };
    (@body BinaryOp $name:literal) => { concat!("out0 = cuarray_", $name, "(in0, in1);") };
}

op_enum! {
    /// Elementwise ops of one array.
    UnaryOp {
        /// `-a` (wraps for unsigned integers, as NumPy).
        Neg => "neg",
        /// `|a|`.
        Abs => "abs",
        /// `-1`, `0` or `1` (NaN stays NaN).
        Sign => "sign",
        /// `a * a`.
        Square => "square",
        /// `max(a, 0)` (NaN stays NaN).
        Relu => "relu",
        /// `e^a`.
        Exp => "exp",
        /// Natural logarithm.
        Log => "log",
        /// `ln(1 + a)`, accurate near 0.
        Log1p => "log1p",
        /// `e^a - 1`, accurate near 0.
        Expm1 => "expm1",
        /// Square root.
        Sqrt => "sqrt",
        /// Sine.
        Sin => "sin",
        /// Cosine.
        Cos => "cos",
        /// Tangent.
        Tan => "tan",
        /// Hyperbolic tangent.
        Tanh => "tanh",
        /// `1 / (1 + e^-a)`.
        Sigmoid => "sigmoid",
        /// Round toward minus infinity.
        Floor => "floor",
        /// Round toward plus infinity.
        Ceil => "ceil",
        /// Round half to even (NumPy's `round`).
        Round => "round",
        /// `a != a` (bool result).
        IsNan => "isnan",
        /// `a` is ±infinity (bool result).
        IsInf => "isinf",
        /// `a` is neither NaN nor infinite (bool result).
        IsFinite => "isfinite",
        /// `!a` on bool.
        LogicalNot => "logical_not",
        /// Complex conjugate `re - im·i`.
        Conj => "conj",
        /// Real part (real-typed result).
        Real => "real",
        /// Imaginary part (real-typed result).
        Imag => "imag",
        /// Argument `atan2(im, re)` in `(-π, π]` (real-typed result).
        Angle => "angle",
    }
}

op_enum! {
    /// Elementwise ops of two arrays (NumPy broadcasting).
    BinaryOp {
        /// `a + b` (integers wrap).
        Add => "add",
        /// `a - b` (integers wrap).
        Sub => "sub",
        /// `a * b` (integers wrap).
        Mul => "mul",
        /// `a / b`: IEEE for floats; floor division for integers, 0 when `b == 0`.
        Div => "div",
        /// Remainder with the sign of `b` (NumPy's `%`); integers give 0 when `b == 0`.
        Rem => "rem",
        /// `a ** b`; integers exactly (wrapping), 0 for negative exponents except bases ±1.
        Pow => "pow",
        /// Larger of the two; NaN propagates.
        Maximum => "maximum",
        /// Smaller of the two; NaN propagates.
        Minimum => "minimum",
        /// `a == b` (bool result).
        Eq => "eq",
        /// `a != b` (bool result).
        Ne => "ne",
        /// `a < b` (bool result).
        Lt => "lt",
        /// `a <= b` (bool result).
        Le => "le",
        /// `a > b` (bool result).
        Gt => "gt",
        /// `a >= b` (bool result).
        Ge => "ge",
        /// `a && b` on bool.
        LogicalAnd => "logical_and",
        /// `a || b` on bool.
        LogicalOr => "logical_or",
        /// `a != b` on bool.
        LogicalXor => "logical_xor",
    }
}

macro_rules! scalar_bodies {
    ($($variant:ident => $name:literal),* $(,)?) => {
        impl BinaryOp {
            /// The kernel body with a scalar `s0` on the right: `op(in0, s0)`.
            #[doc(hidden)]
            pub const fn body_scalar_rhs(self) -> &'static str {
                match self { $(BinaryOp::$variant => concat!("out0 = cuarray_", $name, "(in0, s0);")),* }
            }
            /// The op's name with a scalar on the left (`rsub` for `s - a`), so that the two
            /// scalar forms have distinct kernel symbols.
            #[doc(hidden)]
            pub const fn rname(self) -> &'static str {
                match self { $(BinaryOp::$variant => concat!("r", $name)),* }
            }
            /// The kernel body with a scalar `s0` on the left: `op(s0, in0)`.
            #[doc(hidden)]
            pub const fn body_scalar_lhs(self) -> &'static str {
                match self { $(BinaryOp::$variant => concat!("out0 = cuarray_", $name, "(s0, in0);")),* }
            }
        }
    };
}
scalar_bodies! {
    Add => "add", Sub => "sub", Mul => "mul", Div => "div", Rem => "rem", Pow => "pow",
    Maximum => "maximum", Minimum => "minimum", Eq => "eq", Ne => "ne", Lt => "lt", Le => "le",
    Gt => "gt", Ge => "ge", LogicalAnd => "logical_and", LogicalOr => "logical_or",
    LogicalXor => "logical_xor",
}

impl BinaryOp {
    /// True for the ops whose result is bool whatever the operands.
    pub const fn returns_bool(self) -> bool {
        matches!(
            self,
            BinaryOp::Eq
                | BinaryOp::Ne
                | BinaryOp::Lt
                | BinaryOp::Le
                | BinaryOp::Gt
                | BinaryOp::Ge
                | BinaryOp::LogicalAnd
                | BinaryOp::LogicalOr
                | BinaryOp::LogicalXor
        )
    }
}

impl UnaryOp {
    /// True for the predicates (bool result).
    pub(crate) const fn returns_bool(self) -> bool {
        matches!(
            self,
            UnaryOp::IsNan | UnaryOp::IsInf | UnaryOp::IsFinite | UnaryOp::LogicalNot
        )
    }
    /// True for the ops defined on floating-point types only (the complex-only ones
    /// aside).
    pub const fn float_only(self) -> bool {
        !matches!(
            self,
            UnaryOp::Neg
                | UnaryOp::Abs
                | UnaryOp::Sign
                | UnaryOp::Square
                | UnaryOp::Relu
                | UnaryOp::LogicalNot
        ) && !self.complex_only()
    }
    /// True for the ops with methods on complex arrays only (`conj`, `real`, `imag`,
    /// `angle`); their device functions also accept real inputs, as NumPy's do.
    pub const fn complex_only(self) -> bool {
        matches!(
            self,
            UnaryOp::Conj | UnaryOp::Real | UnaryOp::Imag | UnaryOp::Angle
        )
    }
    /// True for the ops with a method on complex arrays: `neg`, `square`, `exp`, `log`,
    /// `sqrt`, the predicates `isnan`/`isinf`/`isfinite`, and the complex-only ones.
    pub const fn complex_ok(self) -> bool {
        self.complex_only()
            || matches!(
                self,
                UnaryOp::Neg
                    | UnaryOp::Abs
                    | UnaryOp::Square
                    | UnaryOp::Exp
                    | UnaryOp::Log
                    | UnaryOp::Sqrt
                    | UnaryOp::IsNan
                    | UnaryOp::IsInf
                    | UnaryOp::IsFinite
            )
    }
    /// The result type of the op on `d` (bool for predicates; the part type for `abs`,
    /// `real`, `imag` and `angle` of complex types; `d` otherwise).
    pub const fn result(self, d: DType) -> DType {
        if self.returns_bool() {
            DType::Bool
        } else if matches!(
            self,
            UnaryOp::Abs | UnaryOp::Real | UnaryOp::Imag | UnaryOp::Angle
        ) {
            d.real()
        } else {
            d
        }
    }
}

impl BinaryOp {
    /// True for the ops with a method on complex arrays: `+ - * /`, `eq`, `ne` (NumPy
    /// has no order of complex numbers, so no comparisons, maximum, minimum or `%`).
    pub const fn complex_ok(self) -> bool {
        matches!(
            self,
            BinaryOp::Add
                | BinaryOp::Sub
                | BinaryOp::Mul
                | BinaryOp::Div
                | BinaryOp::Eq
                | BinaryOp::Ne
        )
    }
}

/// Body of `where_(cond, a, b)`.
pub const WHERE_BODY: &str = "out0 = in0 ? in1 : in2;";
/// Body of `clip(a, lo, hi)` with scalar bounds.
pub const CLIP_BODY: &str = "out0 = cuarray_clip(in0, s0, s1);";
/// Body of a copy.
pub const COPY_BODY: &str = "out0 = in0;";
/// Body of a cast (`astype`).
pub const CAST_BODY: &str = "out0 = cuarray_cast<out0_t>(in0);";
/// Body of `complex(re, im)`: a complex number from two real parts.
pub const COMPLEX_BODY: &str = "out0 = out0_t(in0, in1);";
/// Body of a fill with one scalar.
pub const FILL_BODY: &str = "out0 = s0;";

/// Body of `eye(n)` (`s0` = n).
pub const EYE_BODY: &str = "out0 = (i / s0 == i % s0) ? out0_t(1) : out0_t(0);";
/// Body of a float `arange` (`s0` = start, `s1` = step).
pub const ARANGE_F_BODY: &str = "out0 = out0_t(s0 + (double)i * s1);";
/// Body of an integer `arange` (`s0` = start, `s1` = step), wrapping as NumPy.
pub const ARANGE_I_BODY: &str =
    "out0 = out0_t((unsigned long long)s0 + (unsigned long long)i * (unsigned long long)s1);";
/// Body of `linspace` (`s0` = start, `s1` = stop, `s2` = index of the last element,
/// `s3` = step).
pub const LINSPACE_BODY: &str = "out0 = (i == s2) ? out0_t(s1) : out0_t(s0 + (double)i * s3);";

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
        }
    }

    /// True for the ops without identity (an empty reduction is an error).
    pub(crate) const fn needs_elements(self) -> bool {
        matches!(
            self,
            ReduceOp::Max | ReduceOp::Min | ReduceOp::ArgMax | ReduceOp::ArgMin
        )
    }

    /// True when the result depends on the order of the reduced elements' indices.
    pub(crate) const fn is_arg(self) -> bool {
        matches!(self, ReduceOp::ArgMax | ReduceOp::ArgMin)
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
        }
    }

    /// The scan of this op (`Sum` or `Prod`): its symbol name.
    pub(crate) const fn scan_name(self) -> &'static str {
        match self {
            ReduceOp::Prod => "cumprod",
            _ => "cumsum",
        }
    }
}

/// A representative set of kernels (the add, sub, mul and div of the common dtypes in
/// the variants contiguous arrays, broadcast rows and general views launch), for
/// [`Device::prewarm`](crate::Device::prewarm).
///
/// ```
/// let specs = cuarray::common_specs();
/// assert!(specs.iter().any(|s| s.symbol() == "cuarray_ew_add_f32f32_f32_v4_i32"));
/// ```
pub fn common_specs() -> Vec<KernelSpec> {
    let mut specs = Vec::new();
    for d in [DType::F32, DType::F64, DType::I32, DType::I64] {
        let vec = (16 / d.size()) as u8;
        for op in [BinaryOp::Add, BinaryOp::Sub, BinaryOp::Mul, BinaryOp::Div] {
            for variant in [
                Variant::Vectorized { vec },
                Variant::Contiguous,
                Variant::StridedVec {
                    ndim: 2,
                    vec,
                    bcast: 0b100,
                },
                Variant::Strided { ndim: 2 },
            ] {
                specs.push(KernelSpec::from(ElementwiseSpec {
                    op: op.name().into(),
                    body: op.body().into(),
                    preamble: Text::EMPTY,
                    inputs: TypeList::new(&[d, d]),
                    outputs: TypeList::new(&[d]),
                    scalars: TypeList::new(&[]),
                    variant,
                    index: IndexWidth::I32,
                }));
            }
        }
    }
    specs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bodies() {
        assert_eq!(BinaryOp::Add.body(), "out0 = cuarray_add(in0, in1);");
        assert_eq!(
            BinaryOp::Pow.body_scalar_lhs(),
            "out0 = cuarray_pow(s0, in0);"
        );
        assert_eq!(UnaryOp::Exp.body(), "out0 = cuarray_exp(in0);");
        assert!(BinaryOp::Lt.returns_bool() && !BinaryOp::Add.returns_bool());
        for op in UnaryOp::ALL {
            let spec = crate::ops::elementwise::spec_for(
                op.name(),
                op.body(),
                &[DType::F32],
                &[DType::F32],
                &[],
                crate::kernels::family::elementwise::Variant::Contiguous,
                crate::kernels::IndexWidth::I32,
            );
            assert!(crate::kernels::source(&spec).contains(&format!("cuarray_{}(in0)", op.name())));
        }
    }
}
