//! The catalogue of built-in ops as kernel bodies: elementwise ops (each one device
//! function `cuarray_<name>` of `kernels/ops.cuh`, its body generated from that name, so
//! that every op shares the one N-ary template), the bodies of creation functions, and the
//! reductions with their accumulators and identities (a typed table: a new element type
//! must be placed in it explicitly).

use crate::element::DType;
use crate::kernels::family::elementwise::{ElementwiseSpec, Variant};
use crate::kernels::{IndexWidth, KernelSpec, Text, TypeList};

/// What a catalogue op accepts and returns, and whether its methods are generated from
/// the family tables (`unary_family!`, `binary_family!` in this module's source) or
/// written by hand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OpClass {
    /// An op of the first rounds: its methods are written by hand and its types are the
    /// predicates' (`float_only`, `complex_ok`...).
    Legacy,
    /// Float arrays (f16 and bf16 computing in f32), result of the same type.
    Float,
    /// Float and complex arrays, result of the same type.
    FloatComplex,
    /// Float arrays, bool result.
    FloatToBool,
    /// Integer and float arrays, result of the same type.
    Num,
    /// Integer arrays, result of the same type.
    Int,
    /// Integer arrays, `u8` result.
    IntToU8,
    /// A method of its own signature, written by hand (`ldexp`: a float array and an
    /// `i32` array).
    Special,
}

impl OpClass {
    /// True when an array of `d` has this class's methods (hand-written [`Legacy`](Self::Legacy)
    /// and [`Special`](Self::Special) ops: false, their own rules apply).
    pub const fn accepts(self, d: DType) -> bool {
        match self {
            OpClass::Legacy | OpClass::Special => false,
            OpClass::Float | OpClass::FloatToBool => d.is_float(),
            OpClass::FloatComplex => d.is_float() || d.is_complex(),
            OpClass::Num => d.is_float() || is_int(d),
            OpClass::Int | OpClass::IntToU8 => is_int(d),
        }
    }
    /// The result type on `d`.
    pub const fn result(self, d: DType) -> DType {
        match self {
            OpClass::FloatToBool => DType::Bool,
            OpClass::IntToU8 => DType::U8,
            _ => d,
        }
    }
}

/// True for the integer types.
const fn is_int(d: DType) -> bool {
    !d.is_float() && !d.is_complex() && !matches!(d, DType::Bool)
}

macro_rules! op_enum {
    ([ $($(#[doc = $fdoc:literal])* $fvariant:ident $fmethod:ident : $class:ident),* $(,)? ]
     $(#[$meta:meta])* $enum:ident { $($(#[doc = $doc:literal])* $variant:ident => $name:literal),* $(,)? }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $enum {
            $($(#[doc = $doc])* $variant,)*
            $($(#[doc = $fdoc])* $fvariant,)*
        }

        impl $enum {
            /// Every op of this kind.
            pub const ALL: &'static [$enum] = &[$($enum::$variant,)* $($enum::$fvariant,)*];

            /// The op's name (`cuarray_<name>` in `kernels/ops.cuh`).
            pub const fn name(self) -> &'static str {
                match self {
                    $($enum::$variant => $name,)*
                    $($enum::$fvariant => stringify!($fmethod),)*
                }
            }

            /// The kernel body applying the op to the array operands `in0` (and `in1`).
            #[doc(hidden)]
            pub const fn body(self) -> &'static str {
                match self {
                    $($enum::$variant => op_enum!(@body $enum $name),)*
                    $($enum::$fvariant => op_enum!(@body $enum stringify!($fmethod)),)*
                }
            }

            /// The op's class: the types it accepts and returns ([`OpClass::Legacy`] for
            /// the ops of the first rounds).
            pub const fn class(self) -> OpClass {
                match self {
                    $($enum::$variant => OpClass::Legacy,)*
                    $($enum::$fvariant => OpClass::$class,)*
                }
            }
        }
        op_enum!(@extra $enum $($variant => $name),* $(, $fvariant => stringify!($fmethod))*);
    };
    (@body UnaryOp $name:expr) => { concat!("out0 = cuarray_", $name, "(in0);") };
    (@body BinaryOp $name:expr) => { concat!("out0 = cuarray_", $name, "(in0, in1);") };
    (@extra UnaryOp $($t:tt)*) => {};
    (@extra BinaryOp $($variant:ident => $name:expr),*) => {
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

/// The third round's unary ufuncs, one line each: `Variant method: class` (see [`OpClass`]).
/// The method name is the op's name: the device function `cuarray_<method>` of
/// `kernels/ops.cuh`, the `DeviceArray` method and the `Expr` method are all generated
/// from this line. Invoked with a callback macro and its further tokens.
macro_rules! unary_family {
    ($cb:ident $($rest:tt)*) => { $cb! { [
        /// Inverse sine, in `[-π/2, π/2]` (NaN outside `[-1, 1]`).
        Arcsin arcsin: Float,
        /// Inverse cosine, in `[0, π]` (NaN outside `[-1, 1]`).
        Arccos arccos: Float,
        /// Inverse tangent, in `[-π/2, π/2]`.
        Arctan arctan: Float,
        /// Hyperbolic sine (of a complex `x`, `sinh re cos im + i cosh re sin im`).
        Sinh sinh: FloatComplex,
        /// Hyperbolic cosine (of a complex `x`, `cosh re cos im + i sinh re sin im`).
        Cosh cosh: FloatComplex,
        /// Inverse hyperbolic sine.
        Arcsinh arcsinh: Float,
        /// Inverse hyperbolic cosine (NaN below 1).
        Arccosh arccosh: Float,
        /// Inverse hyperbolic tangent (±inf at ±1, NaN outside `[-1, 1]`).
        Arctanh arctanh: Float,
        /// Base-2 logarithm (of a complex `x`, `log(x) / ln 2`).
        Log2 log2: FloatComplex,
        /// Base-10 logarithm (of a complex `x`, `log(x) / ln 10`).
        Log10 log10: FloatComplex,
        /// `2^x`.
        Exp2 exp2: Float,
        /// Cube root (negative for negative `x`).
        Cbrt cbrt: Float,
        /// `1 / x` (complex: Smith's division, as `/`).
        Reciprocal reciprocal: FloatComplex,
        /// `1 / sqrt(x)` (CUDA's `rsqrt`: within 2 ulp in f32).
        Rsqrt rsqrt: Float,
        /// Round toward zero.
        Trunc trunc: Float,
        /// Round to the nearest integer, half to even.
        Rint rint: Float,
        /// Degrees to radians, `x * (π / 180)`.
        Deg2rad deg2rad: Float,
        /// Radians to degrees, `x * (180 / π)`.
        Rad2deg rad2deg: Float,
        /// Normalised sinc `sin(πx) / (πx)`, 1 at 0 (NumPy's `sinc`).
        Sinc sinc: Float,
        /// GELU, the exact form `x Φ(x) = x/2 · erfc(-x/√2)` (PyTorch's default `gelu`; 0 at -inf).
        Gelu gelu: Float,
        /// SiLU (swish) `x / (1 + e^-x)` (0 at -inf).
        Silu silu: Float,
        /// Softplus `ln(1 + e^x)`, computed stably as `max(x, 0) + log1p(e^-|x|)`.
        Softplus softplus: Float,
        /// True where the sign bit is set (`-0.0` and negative NaNs included).
        Signbit signbit: FloatToBool,
        /// Bitwise not `~x` (NumPy's `invert`; also the `!` operator).
        Invert invert: Int,
        /// The number of one bits of `|x|` (NumPy's `bitwise_count`), as `u8`.
        BitwiseCount bitwise_count: IntToU8,
    ] $($rest)* } };
}
pub(crate) use unary_family;

/// The third round's binary ufuncs, one line each: `Variant method: class` (see
/// [`OpClass`]); as [`unary_family!`]. The right operand is an array of the same type
/// (broadcast) or a scalar.
macro_rules! binary_family {
    ($cb:ident $($rest:tt)*) => { $cb! { [
        /// `atan2(self, rhs)`: the angle of the point `(rhs, self)`, in `[-π, π]`.
        Arctan2 arctan2: Float,
        /// `sqrt(self² + rhs²)` without overflow or underflow of the squares.
        Hypot hypot: Float,
        /// C's remainder `fmod`: the sign of `self` (integers: 0 for a zero divisor, as NumPy).
        Fmod fmod: Num,
        /// `self` with the sign of `rhs`.
        Copysign copysign: Float,
        /// Larger of the two, ignoring NaN (NaN only where both are NaN).
        Fmax fmax: Num,
        /// Smaller of the two, ignoring NaN (NaN only where both are NaN).
        Fmin fmin: Num,
        /// `ln(e^self + e^rhs)` without overflow (NumPy's `logaddexp`).
        Logaddexp logaddexp: Float,
        /// `log2(2^self + 2^rhs)` without overflow (NumPy's `logaddexp2`).
        Logaddexp2 logaddexp2: Float,
        /// The next representable value after `self` toward `rhs`.
        Nextafter nextafter: Float,
        /// Heaviside step: 0 for `x < 0`, `rhs` at `x == 0`, 1 for `x > 0` (NaN stays NaN).
        Heaviside heaviside: Float,
        /// Bitwise and (also `&`).
        BitwiseAnd bitwise_and: Int,
        /// Bitwise or (also `|`).
        BitwiseOr bitwise_or: Int,
        /// Bitwise exclusive or (also `^`).
        BitwiseXor bitwise_xor: Int,
        /// `self << rhs` (also `<<`); 0 for shifts by the bit width or more, or negative, as NumPy.
        LeftShift left_shift: Int,
        /// `self >> rhs` (also `>>`), arithmetic for signed types; shifts by the bit width or
        /// more (or negative) give 0, or -1 for negative `self`, as NumPy.
        RightShift right_shift: Int,
        /// Greatest common divisor of `|self|` and `|rhs|` (0 for two zeros).
        Gcd gcd: Int,
        /// Least common multiple of `|self|` and `|rhs|` (0 when either is 0).
        Lcm lcm: Int,
        /// `self * 2^rhs` with an `i32` exponent array ([`DeviceArray::ldexp`](crate::DeviceArray::ldexp)).
        Ldexp ldexp: Special,
    ] $($rest)* } };
}
pub(crate) use binary_family;

unary_family! { op_enum
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

binary_family! { op_enum
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
        ) || matches!(self.class(), OpClass::FloatToBool)
    }
    /// True when an array of `d` has this op's method (or its `Expr` method).
    pub const fn accepts(self, d: DType) -> bool {
        match self.class() {
            OpClass::Legacy => {
                if d.is_complex() {
                    self.complex_ok()
                } else if self.complex_only() {
                    false
                } else if matches!(self, UnaryOp::LogicalNot) {
                    matches!(d, DType::Bool)
                } else if self.float_only() {
                    d.is_float()
                } else {
                    !matches!(d, DType::Bool)
                }
            }
            c => c.accepts(d),
        }
    }
    /// True for the ops defined on floating-point types only (the complex-only ones
    /// aside; the third round's ops: see [`class`](Self::class)).
    pub const fn float_only(self) -> bool {
        matches!(self.class(), OpClass::Legacy)
            && !matches!(
                self,
                UnaryOp::Neg
                    | UnaryOp::Abs
                    | UnaryOp::Sign
                    | UnaryOp::Square
                    | UnaryOp::Relu
                    | UnaryOp::LogicalNot
            )
            && !self.complex_only()
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
    /// `sqrt`, the predicates `isnan`/`isinf`/`isfinite`, the complex-only ones, and the
    /// third round's [`OpClass::FloatComplex`] ops.
    pub const fn complex_ok(self) -> bool {
        matches!(self.class(), OpClass::FloatComplex)
            || self.complex_only()
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
        if !matches!(self.class(), OpClass::Legacy) {
            self.class().result(d)
        } else if self.returns_bool() {
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

impl BinaryOp {
    /// True when arrays of `d` have this op's method with an array or scalar right operand
    /// of `d` (the comparisons on bool and complex arrays: `eq` and `ne` only; the logical
    /// ops: bool only; `ldexp`: float arrays, with an `i32` right operand).
    pub const fn accepts(self, d: DType) -> bool {
        match self.class() {
            OpClass::Legacy => {
                if matches!(
                    self,
                    BinaryOp::LogicalAnd | BinaryOp::LogicalOr | BinaryOp::LogicalXor
                ) {
                    matches!(d, DType::Bool)
                } else if matches!(self, BinaryOp::Eq | BinaryOp::Ne) {
                    true
                } else if d.is_complex() {
                    self.complex_ok()
                } else {
                    !matches!(d, DType::Bool)
                }
            }
            OpClass::Special => d.is_float(),
            c => c.accepts(d),
        }
    }
    /// The result type with operands of `d`.
    pub const fn result(self, d: DType) -> DType {
        if self.returns_bool() {
            DType::Bool
        } else {
            self.class().result(d)
        }
    }
}

/// Body of `where_(cond, a, b)`.
pub const WHERE_BODY: &str = "out0 = in0 ? in1 : in2;";
/// Body of `clip(a, lo, hi)` with scalar bounds.
pub const CLIP_BODY: &str = "out0 = cuarray_clip(in0, s0, s1);";
/// Body of `nan_to_num(a, nan, posinf, neginf)` (the replacements as scalars).
pub const NAN_TO_NUM_BODY: &str = "out0 = cuarray_nan_to_num(in0, s0, s1, s2);";
/// Body of `isclose(a, b)` (`s0` = rtol, `s1` = atol as f64, `s2` = equal_nan).
pub const ISCLOSE_BODY: &str = "out0 = cuarray_isclose(in0, in1, s0, s1, s2);";
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

mod reductions;
pub use reductions::*;

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
