//! Kernel fusion: [`fuse`] turns a closure over array expressions into one kernel.
//!
//! A chain of small operations (an optimizer's update, an activation with its bias and
//! scale) costs a launch and a temporary array per operation when run one by one. A
//! fused function runs the whole chain in one kernel: each element is read once, every
//! intermediate value stays in registers, and the result is written once.
//!
//! ```no_run
//! use cuarray::{fuse, Device, DeviceArray, Expr};
//! let dev = Device::new(0)?;
//! let fma = fuse(|x: Expr<f32>, y: Expr<f32>| x * y + 1.0);   // traced here, once
//! let a = DeviceArray::<f32>::full(&dev, &[1000], 2.0)?;
//! let b = DeviceArray::<f32>::full(&dev, &[1000], 3.0)?;
//! let c = fma.call(&a, &b)?;                                    // one kernel
//! assert_eq!(c.to_host()?, vec![7.0; 1000]);
//! let d = fma.call(&a, 0.5f32)?;                                // a scalar argument
//! # Ok::<(), cuarray::Error>(())
//! ```
//!
//! # How it works
//! `fuse` runs the closure once, with [`Expr`] parameters that record the operations
//! applied to them (a trace): a typed expression tree whose nodes are the catalogue's
//! elementwise operations. Rust loops over Rust values unroll (a 16-step update is one
//! tree). Each call then looks up, per array/scalar pattern of its arguments, the body
//! generated from that tree (made once, then cached), and runs it on the same N-ary
//! elementwise kernel as `a + b`: the same broadcasting, the same strided, tiled and
//! vectorized variants, the same kernel cache (compiled once per element types and
//! layout class, in memory and on disk). The result is a normal [`DeviceArray`].
//!
//! - **Constants are parameters.** The literals of the closure (`1.0` above) and the
//!   scalar arguments of a call are kernel parameters, not part of the source: changing a
//!   learning rate compiles nothing. At most 16 distinct constants and scalar arguments
//!   per fused function ([`MAX_SCALARS`]).
//! - **Same results as unfused.** Every intermediate value is materialised in its own
//!   element type (`f16`/`bf16` round after each operation, integers wrap), and
//!   multiply-adds are not contracted: a fused `x * y + 1.0` gives the bits of
//!   `(&x * &y)? + 1.0`.
//! - **A trailing reduction fuses too.** `fuse(|x: Expr<f32>, y: Expr<f32>| (x - y).square().sum_axis(-1))`
//!   is one reduction kernel whose pre-map computes `(x - y)²`. When the arrays are laid
//!   out differently (one broadcast, one transposed), the expression is written to one
//!   temporary first and then reduced (two kernels).
//! - **Several outputs.** A closure may return a tuple of up to 4 expressions: one kernel
//!   writes them all.
//!
//! # Arguments
//! A call takes one argument per closure parameter: an array `&DeviceArray<T>` or a
//! scalar `T` of the parameter's element type. Arrays broadcast together (NumPy's rules);
//! at least one argument is an array. [`call_into`](Fused::call_into) writes into given
//! arrays (any strided views, or the inputs themselves for an in-place update).
//!
//! # What a closure may contain
//! Operators `+ - * / %` and unary `-` on `Expr`s and scalars of the same element type,
//! the elementwise methods of [`Expr`] (the catalogue of [`DeviceArray`]'s methods:
//! `exp`, `sqrt`, `maximum`, `gt`, `astype`...), [`select`] (NumPy's `where`), and one
//! trailing reduction (`sum`, `prod`, `mean`, `max`, `min`, `argmax`, `argmin`, `all`,
//! `any`, whole-array or over axes, with `keepdims`). Element types never mix implicitly
//! (`.astype::<U>()` converts); `Expr` has no ordering or truth value, so `if x > 0.0`
//! does not compile: use `x.gt(0.0)` and [`select`].
//!
//! Not supported inside a closure (use the arrays' own methods around the call): indexing
//! and views (pass strided views as arguments instead), matrix products, sorting, scans,
//! random numbers, several reductions, a reduction in the middle of an expression, and
//! anything on a [`DeviceArray`]: array operations in the closure are an error (they
//! would run once, at the trace), never a silent eager fallback. Errors found when the
//! closure is traced (an `Expr` of another trace, more than 2048 operations) are
//! returned by [`Fused::check`] and by every call as [`Error::Fusion`].

mod render;
mod trace;

use crate::array::check_writable;
use crate::element::{DType, Element, FloatElement, NumElement};
use crate::kernels::abi::Scalar;
use crate::kernels::cache::Fnv;
use crate::kernels::{Text, MAX_OPERANDS, MAX_SCALARS};
use crate::ops::catalogue::{BinaryOp, ReduceDef, ReduceOp, UnaryOp};
use crate::ops::elementwise::{run_code, Code};
use crate::ops::reduce::{plan_reduce, run_def_with};
use crate::ops::Operand;
use crate::shape::{IntoAxes, Layout};
use crate::user_kernels::{broadcast_args, operands, Arg, ArgList, KernelArg, KernelOutputs};
use crate::{Device, DeviceArray, Error, Result};
use std::borrow::Cow;
use std::hash::{Hash, Hasher};
use std::marker::PhantomData;
use std::sync::{Arc, RwLock};
use trace::{Node, Op, Tail, Traced};

const OP: &str = "fuse";

// ---- expressions ----------------------------------------------------------------------

/// An array expression of element type `T` inside a closure given to [`fuse`]: a
/// parameter, or the result of operations on parameters and constants.
///
/// An `Expr` records the operations applied to it; it holds no data and exists only
/// while its closure is traced. It is `Copy`: use a value as often as needed (each
/// operation is recorded once, however often it is written).
///
/// ```no_run
/// use cuarray::{Device, DeviceArray, fuse, Expr};
/// let dev = Device::new(0)?;
/// // NumPy: np.where(x > 0, x, 0.01 * x) ** 2, as one kernel
/// let f = fuse(|x: Expr<f32>| {
///     let leaky = x.gt(0.0).select(x, x * 0.01);
///     leaky * leaky
/// });
/// let x = DeviceArray::from_slice(&dev, &[-100.0f32, 3.0])?;
/// assert_eq!(f.call(&x)?.to_host()?, vec![1.0, 9.0]);
/// # Ok::<(), cuarray::Error>(())
/// ```
pub struct Expr<T: Element> {
    node: u32,
    trace: u32,
    _t: PhantomData<fn() -> T>,
}

impl<T: Element> Clone for Expr<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T: Element> Copy for Expr<T> {}

impl<T: Element> std::fmt::Debug for Expr<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Expr<{}>(#{})", T::DTYPE, self.node)
    }
}

/// An operand of an [`Expr`] operation: another `Expr<T>`, or a constant `T` (a kernel
/// parameter of the fused function).
pub trait IntoExpr<T: Element>: Copy {
    /// The operand as an expression of the trace `trace`.
    #[doc(hidden)]
    fn into_expr(self, trace: u32) -> Expr<T>;
}

impl<T: Element> IntoExpr<T> for Expr<T> {
    fn into_expr(self, _trace: u32) -> Expr<T> {
        self
    }
}

impl<T: Element> IntoExpr<T> for T {
    fn into_expr(self, trace: u32) -> Expr<T> {
        Expr::constant(trace, self)
    }
}

impl<T: Element> Expr<T> {
    fn new(node: u32, trace: u32) -> Self {
        Expr {
            node,
            trace,
            _t: PhantomData,
        }
    }

    fn make<U: Element>(traces: &[u32], op: Op) -> Expr<U> {
        let (node, trace) = trace::push(
            traces,
            Node {
                op,
                dtype: U::DTYPE,
            },
        );
        Expr::new(node, trace)
    }

    fn constant(trace: u32, v: T) -> Expr<T> {
        Self::make(&[trace], Op::Const(Scalar::of(v).word()))
    }

    fn unary<U: Element>(self, op: UnaryOp) -> Expr<U> {
        Self::make(&[self.trace], Op::Unary(op, self.node))
    }

    fn binary<U: Element>(self, op: BinaryOp, rhs: impl IntoExpr<T>) -> Expr<U> {
        let r = rhs.into_expr(self.trace);
        Self::make(&[self.trace, r.trace], Op::Binary(op, self.node, r.node))
    }

    /// Elementwise `self == rhs` (`rhs` an expression or a constant).
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray, fuse, Expr};
    /// let dev = Device::new(0)?;
    /// let f = fuse(|x: Expr<i32>| x.eq(2));
    /// let a = DeviceArray::from_slice(&dev, &[1, 2, 3])?;
    /// assert_eq!(f.call(&a)?.to_host()?, vec![false, true, false]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn eq(self, rhs: impl IntoExpr<T>) -> Expr<bool> {
        self.binary(BinaryOp::Eq, rhs)
    }
    /// Elementwise `self != rhs`.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray, fuse, Expr};
    /// let dev = Device::new(0)?;
    /// let f = fuse(|x: Expr<i32>, y: Expr<i32>| x.ne(y));
    /// let a = DeviceArray::from_slice(&dev, &[1, 2, 3])?;
    /// assert_eq!(f.call(&a, 2)?.to_host()?, vec![true, false, true]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn ne(self, rhs: impl IntoExpr<T>) -> Expr<bool> {
        self.binary(BinaryOp::Ne, rhs)
    }

    /// Each element converted to `U`, as [`DeviceArray::astype`].
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray, fuse, Expr};
    /// let dev = Device::new(0)?;
    /// let f = fuse(|x: Expr<f32>| (x * 10.0).astype::<i32>()); // truncates toward zero
    /// let a = DeviceArray::from_slice(&dev, &[0.25f32, -0.25])?;
    /// assert_eq!(f.call(&a)?.to_host()?, vec![2, -2]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn astype<U: Element>(self) -> Expr<U> {
        if U::DTYPE == T::DTYPE {
            return Expr::new(self.node, self.trace);
        }
        Self::make(&[self.trace], Op::Cast(self.node))
    }

    /// The same as [`astype`](Self::astype).
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray, fuse, Expr};
    /// let dev = Device::new(0)?;
    /// let f = fuse(|x: Expr<i32>| x.cast::<f32>() / 2.0);
    /// let a = DeviceArray::from_slice(&dev, &[1, 3])?;
    /// assert_eq!(f.call(&a)?.to_host()?, vec![0.5, 1.5]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn cast<U: Element>(self) -> Expr<U> {
        self.astype()
    }

    fn reduce<U: Element>(
        self,
        op: ReduceOp,
        axes: Option<Vec<isize>>,
        keepdims: bool,
    ) -> Reduced<U> {
        Reduced {
            node: self.node,
            trace: self.trace,
            tail: Tail { op, axes, keepdims },
            _t: PhantomData,
        }
    }
}

macro_rules! unary_exprs {
    ($bound:ident => $out:ty; $($(#[doc = $doc:literal])* $method:ident => $op:ident),* $(,)?) => {
        impl<T: $bound> Expr<T> {
            $(
                $(#[doc = $doc])*
                ///
                /// ```no_run
                /// use cuarray::{fuse, Device, DeviceArray, Expr};
                /// let dev = Device::new(0)?;
                #[doc = concat!("let f = fuse(|x: Expr<f32>| x.", stringify!($method), "());")]
                /// let a = DeviceArray::from_slice(&dev, &[0.5f32, 2.0])?;
                #[doc = concat!("assert_eq!(f.call(&a)?.to_host()?, a.", stringify!($method), "()?.to_host()?); // as the array method")]
                /// # Ok::<(), cuarray::Error>(())
                /// ```
                #[allow(clippy::should_implement_trait)]
                pub fn $method(self) -> Expr<$out> {
                    self.unary(UnaryOp::$op)
                }
            )*
        }
    };
}

unary_exprs! { NumElement => T;
    /// Elementwise `-self` (wraps for unsigned integers); also the `-` operator.
    neg => Neg,
    /// Elementwise absolute value.
    abs => Abs,
    /// Elementwise sign: -1, 0 or 1 (NaN stays NaN).
    sign => Sign,
    /// Elementwise `self * self`.
    square => Square,
    /// Elementwise `max(self, 0)` (NaN stays NaN).
    relu => Relu,
}

unary_exprs! { FloatElement => T;
    /// Elementwise `e^x`.
    exp => Exp,
    /// Elementwise natural logarithm.
    log => Log,
    /// Elementwise `ln(1 + x)`.
    log1p => Log1p,
    /// Elementwise `e^x - 1`.
    expm1 => Expm1,
    /// Elementwise square root.
    sqrt => Sqrt,
    /// Elementwise sine.
    sin => Sin,
    /// Elementwise cosine.
    cos => Cos,
    /// Elementwise tangent.
    tan => Tan,
    /// Elementwise hyperbolic tangent.
    tanh => Tanh,
    /// Elementwise logistic function `1 / (1 + e^-x)`.
    sigmoid => Sigmoid,
    /// Elementwise floor.
    floor => Floor,
    /// Elementwise ceiling.
    ceil => Ceil,
    /// Elementwise rounding, half to even.
    round => Round,
}

unary_exprs! { FloatElement => bool;
    /// Elementwise test for NaN.
    isnan => IsNan,
    /// Elementwise test for ±infinity.
    isinf => IsInf,
    /// Elementwise test for a finite value.
    isfinite => IsFinite,
}

macro_rules! binary_exprs {
    ($out:ty; $($(#[doc = $doc:literal])* $method:ident => $op:ident),* $(,)?) => {
        impl<T: NumElement> Expr<T> {
            $(
                $(#[doc = $doc])*
                ///
                /// ```no_run
                /// use cuarray::{fuse, Device, DeviceArray, Expr};
                /// let dev = Device::new(0)?;
                #[doc = concat!("let f = fuse(|x: Expr<f32>, y: Expr<f32>| x.", stringify!($method), "(y));")]
                /// let a = DeviceArray::from_slice(&dev, &[0.5f32, 2.0])?;
                /// let b = DeviceArray::from_slice(&dev, &[4.0f32, 1.5])?;
                #[doc = concat!("assert_eq!(f.call(&a, &b)?.to_host()?, a.", stringify!($method), "(&b)?.to_host()?); // as the array method")]
                #[doc = concat!("let g = fuse(|x: Expr<f32>| x.", stringify!($method), "(2.0)); // a constant operand")]
                /// # Ok::<(), cuarray::Error>(())
                /// ```
                #[allow(clippy::should_implement_trait)]
                pub fn $method(self, rhs: impl IntoExpr<T>) -> Expr<$out> {
                    self.binary(BinaryOp::$op, rhs)
                }
            )*
        }
    };
}

binary_exprs! { T;
    /// Elementwise `self + rhs` (also `+`), as [`DeviceArray::add`].
    add => Add,
    /// Elementwise `self - rhs` (also `-`).
    sub => Sub,
    /// Elementwise `self * rhs` (also `*`).
    mul => Mul,
    /// Elementwise `self / rhs` (also `/`; floor division for integers).
    div => Div,
    /// Elementwise remainder with the sign of `rhs` (also `%`).
    rem => Rem,
    /// Elementwise maximum (NaN propagates).
    maximum => Maximum,
    /// Elementwise minimum (NaN propagates).
    minimum => Minimum,
    /// Elementwise `self ** rhs`.
    pow => Pow,
}

binary_exprs! { bool;
    /// Elementwise `self < rhs` (false with NaN).
    lt => Lt,
    /// Elementwise `self <= rhs`.
    le => Le,
    /// Elementwise `self > rhs`.
    gt => Gt,
    /// Elementwise `self >= rhs`.
    ge => Ge,
}

impl<T: NumElement> Expr<T> {
    /// Each element limited to `[lo, hi]` (NaN propagates), as [`DeviceArray::clip`].
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray, fuse, Expr};
    /// let dev = Device::new(0)?;
    /// let f = fuse(|x: Expr<f32>| (x * 2.0).clip(-1.0, 1.0));
    /// let a = DeviceArray::from_slice(&dev, &[-3.0f32, 0.25, 3.0])?;
    /// assert_eq!(f.call(&a)?.to_host()?, vec![-1.0, 0.5, 1.0]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn clip(self, lo: impl IntoExpr<T>, hi: impl IntoExpr<T>) -> Expr<T> {
        let (lo, hi) = (lo.into_expr(self.trace), hi.into_expr(self.trace));
        Self::make(
            &[self.trace, lo.trace, hi.trace],
            Op::Clip(self.node, lo.node, hi.node),
        )
    }
}

impl Expr<bool> {
    /// Elementwise `self ? a : b` (NumPy's `where(self, a, b)`); see [`select`].
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray, fuse, Expr};
    /// let dev = Device::new(0)?;
    /// let f = fuse(|x: Expr<f32>| x.gt(0.0).select(x, 0.0)); // NumPy's where(x > 0, x, 0)
    /// let a = DeviceArray::from_slice(&dev, &[-2.0f32, 3.0])?;
    /// assert_eq!(f.call(&a)?.to_host()?, vec![0.0, 3.0]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn select<T: Element>(self, a: impl IntoExpr<T>, b: impl IntoExpr<T>) -> Expr<T> {
        let (a, b) = (a.into_expr(self.trace), b.into_expr(self.trace));
        Expr::<T>::make(
            &[self.trace, a.trace, b.trace],
            Op::Select(self.node, a.node, b.node),
        )
    }
    /// Elementwise logical and (also `&`).
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray, fuse, Expr};
    /// let dev = Device::new(0)?;
    /// let inside = fuse(|x: Expr<f32>| x.ge(0.0).logical_and(x.lt(1.0))); // also `&`
    /// let a = DeviceArray::from_slice(&dev, &[-0.5f32, 0.5, 1.5])?;
    /// assert_eq!(inside.call(&a)?.to_host()?, vec![false, true, false]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn logical_and(self, rhs: impl IntoExpr<bool>) -> Expr<bool> {
        self.binary(BinaryOp::LogicalAnd, rhs)
    }
    /// Elementwise logical or (also `|`).
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray, fuse, Expr};
    /// let dev = Device::new(0)?;
    /// let outside = fuse(|x: Expr<f32>| x.lt(0.0).logical_or(x.ge(1.0))); // also `|`
    /// let a = DeviceArray::from_slice(&dev, &[-0.5f32, 0.5, 1.5])?;
    /// assert_eq!(outside.call(&a)?.to_host()?, vec![true, false, true]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn logical_or(self, rhs: impl IntoExpr<bool>) -> Expr<bool> {
        self.binary(BinaryOp::LogicalOr, rhs)
    }
    /// Elementwise logical exclusive or (also `^`).
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray, fuse, Expr};
    /// let dev = Device::new(0)?;
    /// let f = fuse(|p: Expr<bool>, q: Expr<bool>| p.logical_xor(q)); // also `^`
    /// let p = DeviceArray::from_slice(&dev, &[true, true, false])?;
    /// let q = DeviceArray::from_slice(&dev, &[true, false, false])?;
    /// assert_eq!(f.call(&p, &q)?.to_host()?, vec![false, true, false]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn logical_xor(self, rhs: impl IntoExpr<bool>) -> Expr<bool> {
        self.binary(BinaryOp::LogicalXor, rhs)
    }
    /// Elementwise logical not (also `!`).
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray, fuse, Expr};
    /// let dev = Device::new(0)?;
    /// let f = fuse(|x: Expr<f32>| x.isnan().logical_not()); // also `!`
    /// let a = DeviceArray::from_slice(&dev, &[1.0f32, f32::NAN])?;
    /// assert_eq!(f.call(&a)?.to_host()?, vec![true, false]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn logical_not(self) -> Expr<bool> {
        self.unary(UnaryOp::LogicalNot)
    }
}

/// A constant as an expression of the closure being traced (a kernel parameter of the
/// fused function, as every literal of the closure): for a constant on the left of a
/// method, `lit(0.9f32).pow(t)`.
///
/// ```no_run
/// use cuarray::{Device, DeviceArray, fuse, lit, Expr};
/// let dev = Device::new(0)?;
/// let f = fuse(|t: Expr<i64>| lit(2i64).pow(t)); // 2 ** t
/// let t = DeviceArray::from_slice(&dev, &[0i64, 1, 3])?;
/// assert_eq!(f.call(&t)?.to_host()?, vec![1, 2, 8]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Panics
/// Outside the closure given to [`fuse`].
pub fn lit<T: Element>(v: T) -> Expr<T> {
    Expr::constant(trace::current(), v)
}

/// Elementwise `cond ? a : b` inside a fused closure (NumPy's `where`); `a` and `b` are
/// expressions or constants of one element type.
///
/// ```no_run
/// use cuarray::{fuse, select, Expr};
/// let leaky = fuse(|x: Expr<f32>| select(x.gt(0.0), x, x * 0.01));
/// ```
pub fn select<T: Element>(cond: Expr<bool>, a: impl IntoExpr<T>, b: impl IntoExpr<T>) -> Expr<T> {
    cond.select(a, b)
}

macro_rules! expr_operators {
    ($($trait:ident $method:ident $op:ident),*) => {$(
        impl<T: NumElement> std::ops::$trait<Expr<T>> for Expr<T> {
            type Output = Expr<T>;
            fn $method(self, rhs: Expr<T>) -> Expr<T> {
                self.binary(BinaryOp::$op, rhs)
            }
        }
    )*};
}
expr_operators!(Add add Add, Sub sub Sub, Mul mul Mul, Div div Div, Rem rem Rem);

/// `Expr<T> op T` and `T op Expr<T>` for each concrete element type (so that a literal's
/// type is inferred from the expression's).
macro_rules! scalar_operators {
    ($($t:ty),*) => {$(
        scalar_operators!(@one $t, Add add Add, Sub sub Sub, Mul mul Mul, Div div Div, Rem rem Rem);
    )*};
    (@one $t:ty, $($trait:ident $method:ident $op:ident),*) => {$(
        impl std::ops::$trait<$t> for Expr<$t> {
            type Output = Expr<$t>;
            fn $method(self, rhs: $t) -> Expr<$t> {
                self.binary(BinaryOp::$op, rhs)
            }
        }
        impl std::ops::$trait<Expr<$t>> for $t {
            type Output = Expr<$t>;
            fn $method(self, rhs: Expr<$t>) -> Expr<$t> {
                Expr::constant(rhs.trace, self).binary(BinaryOp::$op, rhs)
            }
        }
    )*};
}
scalar_operators!(
    f32,
    f64,
    half::f16,
    half::bf16,
    i8,
    i16,
    i32,
    i64,
    u8,
    u16,
    u32,
    u64
);

impl<T: NumElement> std::ops::Neg for Expr<T> {
    type Output = Expr<T>;
    fn neg(self) -> Expr<T> {
        self.unary(UnaryOp::Neg)
    }
}

impl std::ops::Not for Expr<bool> {
    type Output = Expr<bool>;
    fn not(self) -> Expr<bool> {
        self.logical_not()
    }
}

macro_rules! bool_operators {
    ($($trait:ident $method:ident $op:ident),*) => {$(
        impl<R: IntoExpr<bool>> std::ops::$trait<R> for Expr<bool> {
            type Output = Expr<bool>;
            fn $method(self, rhs: R) -> Expr<bool> {
                self.binary(BinaryOp::$op, rhs)
            }
        }
    )*};
}
bool_operators!(BitAnd bitand LogicalAnd, BitOr bitor LogicalOr, BitXor bitxor LogicalXor);

// ---- the trailing reduction ---------------------------------------------------------------

/// An expression reduced over some axes: what a fused closure with a trailing reduction
/// returns (`(x - y).square().sum_axis(-1)`). Its element type `U` is the reduction's
/// result type, as for the arrays' reductions (`i64` sums of integers, `f64` means of
/// integers, `i64` indices for `argmax`).
///
/// ```no_run
/// use cuarray::{Device, DeviceArray, fuse, Expr};
/// let dev = Device::new(0)?;
/// let mse = fuse(|p: Expr<f32>, y: Expr<f32>| (p - y).square().mean_axis(-1)); // one kernel
/// let p = DeviceArray::from_host(&dev, &[1.0f32, 2.0, 3.0, 4.0], &[2, 2])?;
/// let y = DeviceArray::<f32>::zeros(&dev, &[2])?;
/// assert_eq!(mse.call(&p, &y)?.to_host()?, vec![2.5, 12.5]);
/// # Ok::<(), cuarray::Error>(())
/// ```
pub struct Reduced<U: Element> {
    node: u32,
    trace: u32,
    tail: Tail,
    _t: PhantomData<fn() -> U>,
}

impl<U: Element> std::fmt::Debug for Reduced<U> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Reduced<{}>({} of #{} over {:?})",
            U::DTYPE,
            self.tail.op.name(),
            self.node,
            self.tail.axes
        )
    }
}

macro_rules! reductions {
    ($bound:ident; $($(#[doc = $doc:literal])* $name:ident, $axis:ident, $keep:ident, $axes:ident => $op:ident -> $out:ty;)*) => {
        impl<T: $bound> Expr<T> {
            $(
                $(#[doc = $doc])*
                ///
                /// The whole expression reduces to one value (a 0-d array).
                ///
                /// ```no_run
                /// use cuarray::{fuse, Device, DeviceArray, Expr};
                /// let dev = Device::new(0)?;
                #[doc = concat!("let f = fuse(|x: Expr<f32>| (x * 2.0).", stringify!($name), "()", ");")]
                /// let a = DeviceArray::<f32>::ones(&dev, &[2, 3])?;
                /// assert_eq!(f.call(&a)?.ndim(), 0);
                /// # Ok::<(), cuarray::Error>(())
                /// ```
                pub fn $name(self) -> Reduced<$out> {
                    self.reduce(ReduceOp::$op, None, false)
                }
                #[doc = concat!("[`", stringify!($name), "`](Expr::", stringify!($name), ") over one axis (negative counts from the end).")]
                ///
                /// ```no_run
                /// use cuarray::{fuse, Device, DeviceArray, Expr};
                /// let dev = Device::new(0)?;
                #[doc = concat!("let f = fuse(|x: Expr<f32>| (x * 2.0).", stringify!($axis), "(-1)", ");")]
                /// let a = DeviceArray::<f32>::ones(&dev, &[2, 3])?;
                /// assert_eq!(f.call(&a)?.shape(), &[2]);
                /// # Ok::<(), cuarray::Error>(())
                /// ```
                pub fn $axis(self, axis: isize) -> Reduced<$out> {
                    self.reduce(ReduceOp::$op, Some(vec![axis]), false)
                }
                #[doc = concat!("[`", stringify!($name), "`](Expr::", stringify!($name), ") over one axis, kept with extent 1.")]
                ///
                /// ```no_run
                /// use cuarray::{fuse, Device, DeviceArray, Expr};
                /// let dev = Device::new(0)?;
                #[doc = concat!("let f = fuse(|x: Expr<f32>| (x * 2.0).", stringify!($keep), "(-1)", ");")]
                /// let a = DeviceArray::<f32>::ones(&dev, &[2, 3])?;
                /// assert_eq!(f.call(&a)?.shape(), &[2, 1]);
                /// # Ok::<(), cuarray::Error>(())
                /// ```
                pub fn $keep(self, axis: isize) -> Reduced<$out> {
                    self.reduce(ReduceOp::$op, Some(vec![axis]), true)
                }
                #[doc = concat!("[`", stringify!($name), "`](Expr::", stringify!($name), ") over a set of axes; `keepdims` keeps them with extent 1.")]
                ///
                /// ```no_run
                /// use cuarray::{fuse, Device, DeviceArray, Expr};
                /// let dev = Device::new(0)?;
                #[doc = concat!("let f = fuse(|x: Expr<f32>| (x * 2.0).", stringify!($axes), "(&[0, 1], true)", ");")]
                /// let a = DeviceArray::<f32>::ones(&dev, &[2, 3])?;
                /// assert_eq!(f.call(&a)?.shape(), &[1, 1]);
                /// # Ok::<(), cuarray::Error>(())
                /// ```
                pub fn $axes(self, axes: impl IntoAxes, keepdims: bool) -> Reduced<$out> {
                    self.reduce(ReduceOp::$op, Some(axes.axes()), keepdims)
                }
            )*
        }
    };
}

reductions! { Element;
    /// Sum (`i64`/`u64` for integers and bool), fused after the expression.
    sum, sum_axis, sum_keepdim, sum_axes => Sum -> T::Sum;
    /// Product (`i64`/`u64` for integers and bool).
    prod, prod_axis, prod_keepdim, prod_axes => Prod -> T::Sum;
    /// Mean (`f64` for integers).
    mean, mean_axis, mean_keepdim, mean_axes => Mean -> T::Mean;
    /// True when every element is non-zero.
    all, all_axis, all_keepdim, all_axes => All -> bool;
    /// True when some element is non-zero.
    any, any_axis, any_keepdim, any_axes => Any -> bool;
}

reductions! { NumElement;
    /// Largest element (NaN propagates); an empty reduction is an error.
    max, max_axis, max_keepdim, max_axes => Max -> T;
    /// Smallest element (NaN propagates); an empty reduction is an error.
    min, min_axis, min_keepdim, min_axes => Min -> T;
    /// Index of the largest element along the reduced axes (C order; the first on ties,
    /// the first NaN if any).
    argmax, argmax_axis, argmax_keepdim, argmax_axes => ArgMax -> i64;
    /// Index of the smallest element along the reduced axes.
    argmin, argmin_axis, argmin_keepdim, argmin_axes => ArgMin -> i64;
}

// ---- what a closure returns -------------------------------------------------------------

mod sealed {
    pub trait Sealed {}
}

/// The roots of a trace, as a closure's result gives them (opaque).
#[doc(hidden)]
pub struct Roots {
    roots: Vec<(u32, u32)>,
    tail: Option<Tail>,
}

/// What a fused closure returns: an [`Expr`], a tuple of up to 4 of them (one kernel
/// writes every output), or a [`Reduced`] expression.
pub trait FuseOutput: sealed::Sealed + Sized {
    /// What a call returns: `DeviceArray<T>`, or a tuple of them.
    type Output: KernelOutputs;
    /// What [`call_into`](Fused::call_into) writes into: `&DeviceArray<T>`, or a tuple
    /// of them.
    type Into<'o>;
    /// The roots of the trace.
    #[doc(hidden)]
    fn roots(self) -> Roots;
    /// Appends the arrays of `out` to `list`.
    #[doc(hidden)]
    fn push_into<'o>(out: Self::Into<'o>, list: &mut ArgList<'o>);
}

impl<T: Element> sealed::Sealed for Expr<T> {}
impl<T: Element> FuseOutput for Expr<T> {
    type Output = DeviceArray<T>;
    type Into<'o> = &'o DeviceArray<T>;
    fn roots(self) -> Roots {
        Roots {
            roots: vec![(self.node, self.trace)],
            tail: None,
        }
    }
    fn push_into<'o>(out: &'o DeviceArray<T>, list: &mut ArgList<'o>) {
        list.push(Arg::Array(out.erased()));
    }
}

impl<U: Element> sealed::Sealed for Reduced<U> {}
impl<U: Element> FuseOutput for Reduced<U> {
    type Output = DeviceArray<U>;
    type Into<'o> = &'o DeviceArray<U>;
    fn roots(self) -> Roots {
        Roots {
            roots: vec![(self.node, self.trace)],
            tail: Some(self.tail),
        }
    }
    fn push_into<'o>(out: &'o DeviceArray<U>, list: &mut ArgList<'o>) {
        list.push(Arg::Array(out.erased()));
    }
}

macro_rules! tuple_outputs {
    ($($t:ident $k:tt),*) => {
        impl<$($t: Element),*> sealed::Sealed for ($(Expr<$t>,)*) {}
        impl<$($t: Element),*> FuseOutput for ($(Expr<$t>,)*) {
            type Output = ($(DeviceArray<$t>,)*);
            type Into<'o> = ($(&'o DeviceArray<$t>,)*);
            fn roots(self) -> Roots {
                Roots { roots: vec![$((self.$k.node, self.$k.trace)),*], tail: None }
            }
            fn push_into<'o>(out: Self::Into<'o>, list: &mut ArgList<'o>) {
                $(list.push(Arg::Array(out.$k.erased()));)*
            }
        }
    };
}
tuple_outputs!(A 0, B 1);
tuple_outputs!(A 0, B 1, C 2);
tuple_outputs!(A 0, B 1, C 2, D 3);

// ---- arguments and closures ------------------------------------------------------------------

/// One argument of a fused function's call for a parameter `Expr<T>`: an array
/// `&DeviceArray<T>` (broadcast with the others) or a scalar `T`.
pub trait FuseArg<'a, T: Element>: KernelArg<'a> {}
impl<'a, T: Element> FuseArg<'a, T> for &'a DeviceArray<T> {}
impl<'a, T: Element> FuseArg<'a, T> for T {}

/// A closure [`fuse`] accepts: `Fn(Expr<A>, Expr<B>, ...) -> R` with 1 to 8 parameters,
/// annotated with their types (`|x: Expr<f32>, y: Expr<f32>| ...`), returning a
/// [`FuseOutput`].
pub trait FuseFn<Args, R>: Sized {
    /// The parameters' element types.
    #[doc(hidden)]
    const DTYPES: &'static [DType];
    /// Calls the closure on the parameters `(node, trace)`.
    #[doc(hidden)]
    fn apply(&self, params: &[(u32, u32)]) -> R;
}

/// A fused function: a traced closure, compiled per element types and layout class into
/// one kernel at its calls. Made by [`fuse`]; cheap to clone (shared), `Send` and `Sync`.
///
/// `call` and `call_into` take one argument per closure parameter (see [`FuseArg`]).
///
/// ```no_run
/// use cuarray::{Device, DeviceArray, fuse, Expr};
/// let dev = Device::new(0)?;
/// let norm_pair = fuse(|x: Expr<f32>, y: Expr<f32>| ((x * x + y * y).sqrt(), y / x)); // 2 outputs
/// let x = DeviceArray::from_slice(&dev, &[3.0f32, 6.0])?;
/// let y = DeviceArray::from_slice(&dev, &[4.0f32, 8.0])?;
/// let (r, slope) = norm_pair.call(&x, &y)?;
/// assert_eq!(r.to_host()?, vec![5.0, 10.0]);
/// # Ok::<(), cuarray::Error>(())
/// ```
pub struct Fused<Args, R> {
    inner: Arc<Inner>,
    _p: PhantomData<fn(Args) -> R>,
}

impl<Args, R> Clone for Fused<Args, R> {
    fn clone(&self) -> Self {
        Fused {
            inner: self.inner.clone(),
            _p: PhantomData,
        }
    }
}

impl<Args, R> std::fmt::Debug for Fused<Args, R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.inner.traced {
            Ok(t) => write!(
                f,
                "Fused({} parameters, {} operations{})",
                t.inputs.len(),
                t.live.iter().filter(|&&l| l).count(),
                t.tail
                    .as_ref()
                    .map(|t| format!(", then {}", t.op.name()))
                    .unwrap_or_default()
            ),
            Err(e) => write!(f, "Fused(error: {e})"),
        }
    }
}

/// Traces `f` once into an expression tree and returns the fused function, which runs
/// the whole tree as one kernel at each call.
///
/// The closure's parameters are annotated `Expr<T>`; it returns an [`Expr`], a tuple of
/// them, or a [`Reduced`] expression. See the [module documentation](crate::fusion) for
/// what a closure may contain. An error found while tracing is kept and returned by
/// [`Fused::check`] and by every call.
///
/// ```no_run
/// use cuarray::{fuse, Device, DeviceArray, Expr};
/// let dev = Device::new(0)?;
/// // A 16-step chain: one kernel, not 32.
/// let chain = fuse(|x: Expr<f32>| {
///     let mut y = x;
///     for _ in 0..16 {
///         y = y * 1.0001 + 0.5;
///     }
///     y
/// });
/// let x = DeviceArray::<f32>::zeros(&dev, &[1000])?;
/// let y = chain.call(&x)?;
/// // A trailing reduction: squared distances of rows, in one reduction kernel.
/// let dist = fuse(|a: Expr<f32>, b: Expr<f32>| (a - b).square().sum_axis(-1));
/// let (p, q) = (DeviceArray::<f32>::ones(&dev, &[64, 128])?, DeviceArray::<f32>::zeros(&dev, &[128])?);
/// assert_eq!(dist.call(&p, &q)?.to_host()?, vec![128.0; 64]);
/// # Ok::<(), cuarray::Error>(())
/// ```
pub fn fuse<Args, R: FuseOutput, F: FuseFn<Args, R>>(f: F) -> Fused<Args, R> {
    let traced = trace::trace(F::DTYPES, |params| {
        let r = f.apply(params).roots();
        (r.roots, r.tail)
    });
    Fused {
        inner: Arc::new(Inner {
            traced,
            code: RwLock::new(Vec::new()),
        }),
        _p: PhantomData,
    }
}

macro_rules! arity {
    ($($A:ident $a:ident $k:tt),+) => {
        impl<Func, R, $($A: Element),+> FuseFn<($($A,)+), R> for Func
        where
            Func: Fn($(Expr<$A>),+) -> R,
        {
            const DTYPES: &'static [DType] = &[$($A::DTYPE),+];
            fn apply(&self, p: &[(u32, u32)]) -> R {
                self($(Expr::new(p[$k].0, p[$k].1)),+)
            }
        }

        impl<R: FuseOutput, $($A: Element),+> Fused<($($A,)+), R> {
            /// Runs the fused function on the arguments (arrays broadcast together, or
            /// scalars; at least one array) and returns new arrays with the result.
            ///
            /// The kernel runs on the stream of the first array argument.
            ///
            /// ```no_run
            /// use cuarray::{fuse, Device, DeviceArray, Expr};
            /// let dev = Device::new(0)?;
            /// let axpy = fuse(|a: Expr<f32>, x: Expr<f32>, y: Expr<f32>| a * x + y);
            /// let x = DeviceArray::from_slice(&dev, &[1.0f32, 2.0])?;
            /// let y = DeviceArray::from_host(&dev, &[10.0f32, 20.0], &[2, 1])?;
            /// let z = axpy.call(3.0f32, &x, &y)?; // broadcast: shape [2, 2]
            /// assert_eq!(z.to_host()?, vec![13.0, 16.0, 23.0, 26.0]);
            /// # Ok::<(), cuarray::Error>(())
            /// ```
            ///
            /// # Errors
            /// [`Error::Fusion`] for an error of the trace, or when no argument is an
            /// array or the kernel would have too many operands; [`Error::Broadcast`] when
            /// the arrays do not broadcast; [`Error::DeviceMismatch`] across devices;
            /// [`Error::EmptyReduction`] for a max/min/argmax/argmin over nothing.
            #[allow(clippy::too_many_arguments)]
            pub fn call<'a>(&self, $($a: impl FuseArg<'a, $A>),+) -> Result<R::Output> {
                let mut list = ArgList::new();
                $($a.push_to(&mut list);)+
                self.inner.call::<R::Output>(&list)
            }

            /// Runs the fused function into `out` (one array, or a tuple of them for a
            /// tuple of outputs): any strided views of the result's shape, possibly the
            /// inputs themselves (an in-place update, when the layouts are the same).
            /// A reduction writes into a C-contiguous array of the reduced shape.
            ///
            /// ```no_run
            /// use cuarray::{fuse, Device, DeviceArray, Expr};
            /// let dev = Device::new(0)?;
            /// let sgd = fuse(|w: Expr<f32>, g: Expr<f32>, lr: Expr<f32>| w - lr * g);
            /// let w = DeviceArray::<f32>::ones(&dev, &[4])?;
            /// let g = DeviceArray::<f32>::full(&dev, &[4], 2.0)?;
            /// sgd.call_into(&w, &w, &g, 0.25f32)?;     // w -= 0.25 g, in place
            /// assert_eq!(w.to_host()?, vec![0.5; 4]);
            /// # Ok::<(), cuarray::Error>(())
            /// ```
            ///
            /// # Errors
            /// As [`call`](Self::call); also an output that is a broadcast view, of
            /// another shape, or that shares memory with an input through another layout
            /// (or at all, for a reduction).
            #[allow(clippy::too_many_arguments)]
            pub fn call_into<'a>(&self, out: R::Into<'a>, $($a: impl FuseArg<'a, $A>),+) -> Result<()> {
                let mut list = ArgList::new();
                $($a.push_to(&mut list);)+
                let mut outs = ArgList::new();
                R::push_into(out, &mut outs);
                self.inner.call_into(&list, &outs)
            }
        }
    };
}
arity!(A a 0);
arity!(A a 0, B b 1);
arity!(A a 0, B b 1, C c 2);
arity!(A a 0, B b 1, C c 2, D d 3);
arity!(A a 0, B b 1, C c 2, D d 3, E e 4);
arity!(A a 0, B b 1, C c 2, D d 3, E e 4, F f 5);
arity!(A a 0, B b 1, C c 2, D d 3, E e 4, F f 5, G g 6);
arity!(A a 0, B b 1, C c 2, D d 3, E e 4, F f 5, G g 6, H h 7);

impl<Args, R> Fused<Args, R> {
    /// `Ok` when the closure traced into a usable tree, else the [`Error::Fusion`] every
    /// call would return.
    ///
    /// # Errors
    /// [`Error::Fusion`] when the closure did not trace into a usable tree.
    ///
    /// ```
    /// use cuarray::{fuse, Expr};
    /// let f = fuse(|x: Expr<f32>| (x * 2.0).exp());
    /// f.check()?; // the trace is usable: calls will not fail with Error::Fusion
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn check(&self) -> Result<()> {
        self.inner.traced().map(drop)
    }

    /// The kernel body generated for the parameters' array (`true`) / scalar pattern, for
    /// tests and tools.
    ///
    /// # Errors
    /// [`Error::Fusion`] as [`check`](Self::check), or when the kernel cannot be generated
    /// for this pattern.
    #[doc(hidden)]
    pub fn body(&self, arrays: &[bool]) -> Result<String> {
        let g = self.inner.gen(Self::mask_of(arrays))?;
        Ok(match &g.red {
            Some((_, def)) => def.pre.to_string(),
            None => g.ew.body.to_string(),
        })
    }
}

impl<Args, R> Fused<Args, R> {
    fn mask_of(arrays: &[bool]) -> u32 {
        arrays
            .iter()
            .enumerate()
            .filter(|(_, &a)| a)
            .fold(0u32, |m, (k, _)| m | (1 << k))
    }

    /// The dtypes of the array parameters and of the scalar parameters (constants, then
    /// scalar arguments, after `first` op scalars) for a pattern.
    fn param_types(&self, arrays: &[bool], first: &[DType]) -> Result<(Vec<DType>, Vec<DType>)> {
        let t = self.inner.traced()?;
        let ins = t
            .inputs
            .iter()
            .zip(arrays)
            .filter(|(_, &a)| a)
            .map(|(d, _)| *d)
            .collect();
        let mut scalars = first.to_vec();
        scalars.extend(t.consts.iter().map(|c| c.1.dtype));
        scalars.extend(
            t.inputs
                .iter()
                .zip(arrays)
                .filter(|(_, &a)| !a)
                .map(|(d, _)| *d),
        );
        Ok((ins, scalars))
    }

    /// The elementwise kernel a call with this array (`true`) / scalar pattern launches
    /// in `variant` (for a reduction: its two-kernel path's first kernel), for tests and
    /// tools.
    ///
    /// # Errors
    /// [`Error::Fusion`] as [`check`](Self::check), or when the kernel cannot be generated
    /// for this pattern.
    #[doc(hidden)]
    pub fn elementwise_spec(
        &self,
        arrays: &[bool],
        variant: crate::kernels::family::elementwise::Variant,
        index: crate::kernels::IndexWidth,
    ) -> Result<crate::kernels::family::elementwise::ElementwiseSpec> {
        let t = self.inner.traced()?;
        let g = self.inner.gen(Self::mask_of(arrays))?;
        let (ins, scalars) = self.param_types(arrays, &[])?;
        let outs: Vec<DType> = t.roots.iter().map(|&r| t.nodes[r as usize].dtype).collect();
        Ok(crate::ops::elementwise::spec_for(
            g.ew.op.clone(),
            g.ew.body.clone(),
            &ins,
            &outs,
            &scalars,
            variant,
            index,
        ))
    }

    /// The one-kernel reduction a call with this pattern launches in `variant`, writing
    /// `output`, for tests and tools (`None` without a trailing reduction).
    ///
    /// # Errors
    /// [`Error::Fusion`] as [`check`](Self::check), or when the kernel cannot be generated
    /// for this pattern.
    #[doc(hidden)]
    pub fn reduce_spec(
        &self,
        arrays: &[bool],
        output: DType,
        variant: crate::kernels::family::reduce::Variant,
        index: crate::kernels::IndexWidth,
    ) -> Result<Option<crate::kernels::family::reduce::ReduceSpec>> {
        let t = self.inner.traced()?;
        let Some(tail) = &t.tail else { return Ok(None) };
        let g = self.inner.gen(Self::mask_of(arrays))?;
        let Some((name, def)) = &g.red else {
            return Ok(None);
        };
        let first = if op_scalars(tail.op) == 1 {
            vec![DType::F64]
        } else {
            vec![]
        };
        let (ins, scalars) = self.param_types(arrays, &first)?;
        let (input, extra) = ins.split_first().ok_or_else(no_array)?;
        Ok(Some(crate::kernels::family::reduce::ReduceSpec {
            op: name.clone(),
            preamble: def.preamble.clone(),
            pre: def.pre.clone(),
            input: *input,
            extra: crate::kernels::TypeList::new(extra),
            output,
            scalars: crate::kernels::TypeList::new(&scalars),
            acc: def.acc,
            identity: def.identity.clone(),
            combine: def.combine.clone(),
            combine_forward: def.combine_forward.clone(),
            post: def.post.clone(),
            partial_in: false,
            partial_out: false,
            finish: false,
            aux: None,
            along: None,
            variant,
            index,
        }))
    }
}

// ---- the call ---------------------------------------------------------------------------------

struct Inner {
    traced: std::result::Result<Traced, String>,
    /// Generated code by the parameters' array/scalar pattern (bit k: parameter k is an
    /// array).
    code: RwLock<Vec<(u32, Arc<Gen>)>>,
}

/// The generated code of one array/scalar pattern.
struct Gen {
    /// Elementwise: the outputs; with a reduction, its input (for the two-kernel path).
    ew: Code,
    /// The reduction with the expression as its pre-map, and its name.
    red: Option<(Text, ReduceDef)>,
    /// Constants and op scalars before the scalar arguments: the trace's constants.
    consts: Vec<Scalar>,
}

/// Scalars a reduction's post-map reads before the constants (`mean`'s count).
fn op_scalars(op: ReduceOp) -> usize {
    usize::from(op == ReduceOp::Mean)
}

fn name_of(body: &str) -> Text {
    let mut h = Fnv::default();
    body.hash(&mut h);
    Text::shared(format!("fused_{:016x}", h.finish()))
}

impl Inner {
    fn traced(&self) -> Result<&Traced> {
        self.traced.as_ref().map_err(|e| Error::fusion(e.clone()))
    }

    /// The code for the pattern `mask`, generated on first use.
    fn gen(&self, mask: u32) -> Result<Arc<Gen>> {
        if let Some((_, g)) = self
            .code
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .find(|(m, _)| *m == mask)
        {
            return Ok(g.clone());
        }
        let t = self.traced()?;
        let ew_body = render::elementwise(t, mask);
        let ew = Code {
            op: name_of(&ew_body),
            body: Text::shared(ew_body),
            preamble: Text::EMPTY,
        };
        let red = t.tail.as_ref().map(|tail| {
            let d = t.nodes[t.roots[0] as usize].dtype;
            let mut def = tail.op.def(d);
            let pre = render::pre_map(t, mask, op_scalars(tail.op), &def.pre);
            let name = name_of(&pre);
            def.pre = Text::shared(pre);
            (name, def)
        });
        let g = Arc::new(Gen {
            ew,
            red,
            consts: t.consts.iter().map(|c| c.1).collect(),
        });
        let mut all = self.code.write().unwrap_or_else(|p| p.into_inner());
        if let Some((_, g)) = all.iter().find(|(m, _)| *m == mask) {
            return Ok(g.clone());
        }
        all.push((mask, g.clone()));
        Ok(g)
    }

    /// The pattern of `list` and its number of arrays.
    fn mask(list: &ArgList<'_>) -> (u32, usize) {
        let mut mask = 0u32;
        let mut n = 0;
        for (k, a) in list.iter().enumerate() {
            if let Arg::Array(_) = a {
                mask |= 1 << k;
                n += 1;
            }
        }
        (mask, n)
    }

    fn check_counts(&self, t: &Traced, arrays: usize, outputs: usize) -> Result<()> {
        if arrays + outputs > MAX_OPERANDS {
            return Err(Error::fusion(format!(
                "{arrays} array arguments and {outputs} outputs: one kernel takes at most \
                 {MAX_OPERANDS} arrays in all (pass some values as scalars, or split the function)"
            )));
        }
        let scalars = t.consts.len() + (t.inputs.len() - arrays) + 1;
        if scalars > MAX_SCALARS {
            return Err(Error::fusion(format!(
                "{} distinct constants and {} scalar arguments: one kernel takes at most \
                 {MAX_SCALARS} scalar parameters (pass some as arrays, or split the function)",
                t.consts.len(),
                t.inputs.len() - arrays
            )));
        }
        Ok(())
    }

    fn call<O: KernelOutputs>(&self, list: &ArgList<'_>) -> Result<O> {
        let t = self.traced()?;
        let (mask, arrays) = Self::mask(list);
        self.check_counts(t, arrays, O::DTYPES.len())?;
        let Some((device, shape)) = broadcast_args(OP, list)? else {
            return Err(no_array());
        };
        let g = self.gen(mask)?;
        match &t.tail {
            None => {
                let outs = O::alloc(device, &shape)?;
                let mut out_list = ArgList::new();
                outs.push_all(&mut out_list);
                elementwise(device, &g, list, &out_list, &shape)?;
                Ok(outs)
            }
            Some(tail) => {
                let first = first_array(list)?;
                let in0 = first.operand_as(&shape)?;
                let p = plan(device, tail, &in0, &shape)?;
                let outs = O::alloc(device, &p.out_shape)?;
                let mut out_list = ArgList::new();
                outs.push_all(&mut out_list);
                reduction(device, t, tail, &g, list, &out_list, &shape, &p)?;
                Ok(outs)
            }
        }
    }

    fn call_into(&self, list: &ArgList<'_>, outs: &ArgList<'_>) -> Result<()> {
        let t = self.traced()?;
        let (mask, arrays) = Self::mask(list);
        self.check_counts(t, arrays, outs.count())?;
        let Some((device, shape)) = broadcast_args(OP, list)? else {
            return Err(no_array());
        };
        let g = self.gen(mask)?;
        for o in outs.iter() {
            let Arg::Array(o) = o else {
                unreachable!("outputs are arrays")
            };
            check_writable(OP, o.layout())?;
            for a in list.iter() {
                if let Arg::Array(a) = a {
                    if a.shares_buffer(&o)
                        && (t.tail.is_some() || !same_view(a.layout(), o.layout(), &shape))
                    {
                        return Err(Error::invalid(
                            OP,
                            "an output shares memory with an input through another layout \
                             (an in-place update must write the input's own view; copy() it first)",
                        ));
                    }
                }
            }
        }
        match &t.tail {
            None => {
                // The inputs broadcast to the outputs' shape.
                let mut out_shape: Option<&[usize]> = None;
                for o in outs.iter() {
                    if let Arg::Array(o) = o {
                        let s = o.layout().shape();
                        match out_shape {
                            None => out_shape = Some(s),
                            Some(f) if f != s => {
                                return Err(Error::ShapeMismatch {
                                    op: OP,
                                    msg: "the outputs differ in shape".into(),
                                    lhs: f.to_vec(),
                                    rhs: s.to_vec(),
                                })
                            }
                            Some(_) => {}
                        }
                    }
                }
                let out_shape = out_shape.unwrap_or(&shape);
                if out_shape != &*shape {
                    let b = crate::shape::broadcast_shapes(OP, &shape, out_shape)?;
                    if b != out_shape {
                        return Err(Error::Broadcast {
                            op: OP,
                            lhs: shape.to_vec(),
                            rhs: out_shape.to_vec(),
                        });
                    }
                }
                elementwise(device, &g, list, outs, out_shape)
            }
            Some(tail) => {
                let first = first_array(list)?;
                let in0 = first.operand_as(&shape)?;
                let p = plan(device, tail, &in0, &shape)?;
                if let Some(Arg::Array(o)) = outs.iter().next() {
                    if o.layout().shape() != p.out_shape.as_slice() || !o.layout().is_c_contiguous()
                    {
                        return Err(Error::ShapeMismatch {
                            op: OP,
                            msg: "the output of a reduction must be C-contiguous, of the reduced shape".into(),
                            lhs: o.layout().shape().to_vec(),
                            rhs: p.out_shape.clone(),
                        });
                    }
                }
                reduction(device, t, tail, &g, list, outs, &shape, &p)
            }
        }
    }
}

/// True when `a`, broadcast to `shape`, and `o` address the same elements in the same
/// order (an in-place update reads each element before writing it).
fn same_view(a: &Layout, o: &Layout, shape: &[usize]) -> bool {
    match a.broadcast_to(shape) {
        Ok(b) => b.shape() == o.shape() && b.strides() == o.strides() && b.offset() == o.offset(),
        Err(_) => false,
    }
}

fn no_array() -> Error {
    Error::fusion(
        "no argument is an array: a fused function's result takes its shape and device from \
         its array arguments",
    )
}

fn first_array<'a>(list: &ArgList<'a>) -> Result<crate::array::ArrayRef<'a>> {
    list.iter()
        .find_map(|a| match a {
            Arg::Array(a) => Some(a),
            Arg::Scalar(_) => None,
        })
        .ok_or_else(no_array)
}

fn plan(
    device: &Device,
    tail: &Tail,
    in0: &Operand<'_>,
    shape: &[usize],
) -> Result<crate::ops::reduce::ReducePlan> {
    let p = plan_reduce(
        in0.layout(),
        tail.axes.as_deref(),
        tail.keepdims,
        tail.op.is_arg(),
        device.multiprocessor_count(),
    )?;
    if tail.op.needs_elements() && p.n_red == 0 {
        return Err(Error::EmptyReduction {
            op: tail.op.name(),
            shape: shape.to_vec(),
        });
    }
    Ok(p)
}

/// The elementwise launch: outputs `outs`, arguments `list` broadcast to `shape`.
fn elementwise(
    device: &Device,
    g: &Gen,
    list: &ArgList<'_>,
    outs: &ArgList<'_>,
    shape: &[usize],
) -> Result<()> {
    let mut scalars = [Scalar::of(0u8); MAX_SCALARS];
    let (out_ops, in_ops, n) =
        operands(OP, device, list, outs, shape, &g.consts, &[], &mut scalars)?;
    run_code(device, &g.ew, &out_ops, &in_ops, &scalars[..n])
}

/// The reduction: one kernel when every array argument, broadcast to `shape`, has the
/// first one's strides; else the expression into a temporary, then the reduction.
#[allow(clippy::too_many_arguments)]
fn reduction(
    device: &Device,
    t: &Traced,
    tail: &Tail,
    g: &Gen,
    list: &ArgList<'_>,
    outs: &ArgList<'_>,
    shape: &[usize],
    p: &crate::ops::reduce::ReducePlan,
) -> Result<()> {
    let Some(Arg::Array(out)) = outs.iter().next() else {
        unreachable!("a reduction has one output")
    };
    out.used_by(OP, device)?;
    let out = out.operand_as(out.layout().shape())?;
    let count = Scalar::of(p.n_red as f64);
    let nop = op_scalars(tail.op);
    let mut before = [count; MAX_SCALARS];
    if g.consts.len() + nop > MAX_SCALARS {
        return Err(Error::fusion("too many constants for one kernel"));
    }
    before[nop..nop + g.consts.len()].copy_from_slice(&g.consts);
    let none = ArgList::new();
    let mut scalars = [Scalar::of(0u8); MAX_SCALARS];
    let (_, in_ops, n) = operands(
        OP,
        device,
        list,
        &none,
        shape,
        &before[..nop + g.consts.len()],
        &[],
        &mut scalars,
    )?;
    let (in0, extra) = in_ops.split_first().ok_or_else(no_array)?;
    let same = extra
        .iter()
        .all(|x| x.layout().strides() == in0.layout().strides());
    if let (true, Some((name, def))) = (same, &g.red) {
        return run_def_with(
            device,
            name,
            def,
            p,
            in0,
            extra,
            None,
            &out,
            None,
            &scalars[..n],
        );
    }
    // Two kernels: the expression into a C-contiguous temporary, then the reduction.
    let d = t.nodes[t.roots[0] as usize].dtype;
    let size: usize = shape.iter().product();
    let buf = crate::device::DeviceBuffer::alloc(device, size * d.size())?;
    let tmp = Operand::new(&buf, Cow::Owned(Layout::contiguous(shape)), d)?;
    run_code(device, &g.ew, &[tmp], &in_ops, &scalars[nop..n])?;
    let tmp = Operand::new(&buf, Cow::Owned(Layout::contiguous(shape)), d)?;
    let p2 = plan(device, tail, &tmp, shape)?;
    crate::ops::reduce::run(device, tail.op, &p2, &tmp, &out, None, &scalars[..nop])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bodies() {
        let fma = fuse(|x: Expr<f32>, y: Expr<f32>| x * y + 1.0);
        let b = fma.body(&[true, true]).unwrap();
        assert!(b.contains("const float v2 = __fmul_rn(in0, in1);"), "{b}");
        assert!(b.contains("__fadd_rn(v2, s0);"), "{b}");
        // y as a scalar: after the constant.
        let b = fma.body(&[true, false]).unwrap();
        assert!(b.contains("__fmul_rn(in0, s1)"), "{b}");
        // Hash-consed: x * x used twice is one node; dead nodes vanish.
        let f = fuse(|x: Expr<f64>| {
            let _unused = x.exp();
            (x * x) + (x * x)
        });
        let b = f.body(&[true]).unwrap();
        assert_eq!(b.matches("__dmul_rn").count(), 1, "{b}");
        assert!(!b.contains("exp"), "{b}");
        // Integer and half types go through the catalogue's functions.
        let f = fuse(|x: Expr<half::f16>, y: Expr<i32>| (x.exp(), y.maximum(3) % 7));
        let b = f.body(&[true, true]).unwrap();
        assert!(
            b.contains("const cuarray_f16 v2 = cuarray_exp(in0);"),
            "{b}"
        );
        assert!(b.contains("cuarray_maximum(in1, s0)"), "{b}");
        assert!(b.contains("out1 = v"), "{b}");
        // A reduction: the expression is the pre-map.
        let d = fuse(|x: Expr<f32>, y: Expr<f32>| (x - y).square().sum_axis(-1));
        let b = d.body(&[true, true]).unwrap();
        assert!(b.contains("const in1_t in1 = p_in1[o_];"), "{b}");
        assert!(b.contains("a = acc_t(in0);"), "{b}");
        // The mean's count is s0; constants after it.
        let m = fuse(|x: Expr<f32>| (x + 2.0).mean());
        assert!(m.body(&[true]).unwrap().contains("__fadd_rn(in0, s1)"));
    }

    #[test]
    fn trace_errors() {
        // An Expr smuggled out of one trace into another.
        let kept = std::cell::Cell::new(None);
        let f = fuse(|x: Expr<f32>| {
            kept.set(Some(x));
            x
        });
        assert!(f.check().is_ok());
        let g = fuse(|x: Expr<f32>| x + kept.get().unwrap());
        let e = g.check().unwrap_err().to_string();
        assert!(e.contains("another fused function"), "{e}");
        // Too many operations.
        let big = fuse(|x: Expr<f32>| {
            let mut y = x;
            for k in 0..3000 {
                y = y + k as f32;
            }
            y
        });
        assert!(big.check().unwrap_err().to_string().contains("2048"));
        // Nested fuse: fine, each its own trace.
        let outer = fuse(|x: Expr<f32>| {
            let inner = fuse(|y: Expr<f32>| y * 2.0);
            assert!(inner.check().is_ok());
            x + 1.0
        });
        assert!(outer.check().is_ok());
    }

    #[test]
    #[should_panic(expected = "outside the closure")]
    fn expr_outside_its_closure_panics() {
        let kept = std::cell::Cell::new(None);
        let _f = fuse(|x: Expr<f32>| {
            kept.set(Some(x));
            x
        });
        let _ = kept.get().unwrap() + 1.0;
    }
}
