//! The catalogue of built-in ops as kernel bodies: elementwise ops (each one device
//! function `cuarray_<name>` of `kernels/ops.cuh`, its body generated from that name, so
//! that every op shares the one N-ary template), the bodies of creation functions, and the
//! reductions with their accumulators and identities (a typed table: a new element type
//! must be placed in it explicitly).

use crate::element::DType;
use crate::kernels::family::elementwise::{ElementwiseSpec, Variant};
use crate::kernels::family::reduce::{Acc, ArgValue, Identity};
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
