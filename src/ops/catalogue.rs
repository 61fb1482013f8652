//! The catalogue of built-in elementwise ops. Each op is one device function
//! `cuarray_<name>` of `kernels/ops.cuh`; its kernel body is generated from that name, so
//! every op shares the one N-ary template.

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
            pub const fn body_scalar_rhs(self) -> &'static str {
                match self { $(BinaryOp::$variant => concat!("out0 = cuarray_", $name, "(in0, s0);")),* }
            }
            /// The op's name with a scalar on the left (`rsub` for `s - a`), so that the two
            /// scalar forms have distinct kernel symbols.
            pub const fn rname(self) -> &'static str {
                match self { $(BinaryOp::$variant => concat!("r", $name)),* }
            }
            /// The kernel body with a scalar `s0` on the left: `op(s0, in0)`.
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
    pub const fn returns_bool(self) -> bool {
        matches!(
            self,
            UnaryOp::IsNan | UnaryOp::IsInf | UnaryOp::IsFinite | UnaryOp::LogicalNot
        )
    }
    /// True for the ops defined on floating-point types only.
    pub const fn float_only(self) -> bool {
        !matches!(
            self,
            UnaryOp::Neg
                | UnaryOp::Abs
                | UnaryOp::Sign
                | UnaryOp::Square
                | UnaryOp::Relu
                | UnaryOp::LogicalNot
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
pub const CAST_BODY: &str = "out0 = static_cast<out0_t>(in0);";
/// Body of a fill with one scalar.
pub const FILL_BODY: &str = "out0 = s0;";

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
            assert!(
                crate::kernels::codegen::render(&crate::ops::elementwise::spec_for(
                    op.name(),
                    op.body(),
                    &[crate::DType::F32],
                    &[crate::DType::F32],
                    &[],
                    crate::kernels::Variant::Contiguous,
                    crate::kernels::IndexWidth::I32,
                ))
                .contains(&format!("cuarray_{}(in0)", op.name()))
            );
        }
    }
}
