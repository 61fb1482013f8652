//! The expressions of a fused closure: [`Expr`] and its elementwise methods and
//! operators, [`lit`] and [`select`], and the trailing reduction [`Reduced`]. Each
//! operation adds a node to the trace of the closure being traced.

use super::trace::{self, Node, Op, Tail};
use crate::element::{Element, FloatElement, IntElement, NumElement};
use crate::kernels::abi::Scalar;
use crate::ops::catalogue::{binary_family, unary_family, BinaryOp, ReduceOp, UnaryOp};
use crate::shape::IntoAxes;
use std::marker::PhantomData;
#[cfg(doc)]
use {super::fuse, crate::DeviceArray};

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
    pub(super) node: u32,
    pub(super) trace: u32,
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
    pub(super) fn new(node: u32, trace: u32) -> Self {
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

// ---- the third round's catalogue ---------------------------------------------------------

/// The `Expr` methods of a family table (`ops/catalogue.rs`): one per line, rendering the
/// same device function `cuarray_<name>` as the array method.
macro_rules! family_exprs {
    ([ $($(#[doc = $doc:literal])* $variant:ident $method:ident : $class:ident),* $(,)? ] $kind:ident) => {
        $( family_exprs!(@$kind $class $variant $method [$($doc)*]); )*
    };
    (@unary Float $v:ident $m:ident [$($doc:literal)*]) => { family_exprs!(@u1 FloatElement, T, $v $m [$($doc)*]); };
    (@unary FloatComplex $v:ident $m:ident [$($doc:literal)*]) => { family_exprs!(@u1 FloatElement, T, $v $m [$($doc)*]); };
    (@unary FloatToBool $v:ident $m:ident [$($doc:literal)*]) => { family_exprs!(@u1 FloatElement, bool, $v $m [$($doc)*]); };
    (@unary Int $v:ident $m:ident [$($doc:literal)*]) => { family_exprs!(@u1 IntElement, T, $v $m [$($doc)*]); };
    (@unary IntToU8 $v:ident $m:ident [$($doc:literal)*]) => { family_exprs!(@u1 IntElement, u8, $v $m [$($doc)*]); };
    (@u1 $bound:ident, $out:ty, $v:ident $m:ident [$($doc:literal)*]) => {
        impl<T: $bound> Expr<T> {
            $(#[doc = $doc])*
            ///
            #[doc = concat!("Inside [`fuse`], as [`DeviceArray::", stringify!($m), "`].")]
            pub fn $m(self) -> Expr<$out> {
                self.unary(UnaryOp::$v)
            }
        }
    };
    (@binary Special $v:ident $m:ident [$($doc:literal)*]) => {};
    (@binary Float $v:ident $m:ident [$($doc:literal)*]) => { family_exprs!(@b1 FloatElement, $v $m [$($doc)*]); };
    (@binary Num $v:ident $m:ident [$($doc:literal)*]) => { family_exprs!(@b1 NumElement, $v $m [$($doc)*]); };
    (@binary Int $v:ident $m:ident [$($doc:literal)*]) => { family_exprs!(@b1 IntElement, $v $m [$($doc)*]); };
    (@b1 $bound:ident, $v:ident $m:ident [$($doc:literal)*]) => {
        impl<T: $bound> Expr<T> {
            $(#[doc = $doc])*
            ///
            #[doc = concat!("Inside [`fuse`], as [`DeviceArray::", stringify!($m), "`]; `rhs` an expression or a constant.")]
            pub fn $m(self, rhs: impl IntoExpr<T>) -> Expr<T> {
                self.binary(BinaryOp::$v, rhs)
            }
        }
    };
}
unary_family!(family_exprs unary);
binary_family!(family_exprs binary);

impl<T: FloatElement> Expr<T> {
    /// `self * 2^exponents`, as [`DeviceArray::ldexp`] (`exponents` an `i32` expression
    /// or constant).
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray, fuse, Expr};
    /// let dev = Device::new(0)?;
    /// let f = fuse(|x: Expr<f32>, e: Expr<i32>| x.ldexp(e) + 1.0);
    /// let x = DeviceArray::from_slice(&dev, &[1.0f32, 3.0])?;
    /// let e = DeviceArray::from_slice(&dev, &[2i32, -1])?;
    /// assert_eq!(f.call(&x, &e)?.to_host()?, vec![5.0, 2.5]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn ldexp(self, exponents: impl IntoExpr<i32>) -> Expr<T> {
        let e = exponents.into_expr(self.trace);
        Self::make(
            &[self.trace, e.trace],
            Op::Binary(BinaryOp::Ldexp, self.node, e.node),
        )
    }

    /// NaN replaced by `nan`, ±inf by `posinf`/`neginf` (`None`: the type's largest and
    /// lowest finite values), as [`DeviceArray::nan_to_num`]; fused as selects.
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray, fuse, Expr};
    /// let dev = Device::new(0)?;
    /// let f = fuse(|x: Expr<f32>| x.log().nan_to_num(0.0, None, Some(-100.0)));
    /// let x = DeviceArray::from_slice(&dev, &[-1.0f32, 0.0, 1.0])?;
    /// assert_eq!(f.call(&x)?.to_host()?, vec![0.0, -100.0, 0.0]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn nan_to_num(self, nan: T, posinf: Option<T>, neginf: Option<T>) -> Expr<T> {
        let inf = <T as num_traits::Float>::infinity();
        let posinf = posinf.unwrap_or_else(<T as num_traits::Float>::max_value);
        let neginf = neginf.unwrap_or_else(<T as num_traits::Float>::min_value);
        let x = self.eq(-inf).select(neginf, self);
        let x = self.eq(inf).select(posinf, x);
        self.isnan().select(nan, x)
    }

    /// "`self` close to `b`", as [`isclose`](crate::isclose): `|self - b| <= atol + rtol
    /// |b|` where `b` is finite, or equal; two NaNs with `equal_nan`. Fused as its parts,
    /// each in `T` (f16/bf16 round after each step, where the array function computes in
    /// f32).
    ///
    /// ```no_run
    /// use cuarray::{Device, DeviceArray, fuse, Expr};
    /// let dev = Device::new(0)?;
    /// let f = fuse(|x: Expr<f64>, y: Expr<f64>| x.isclose(y, 1e-5, 1e-8, false));
    /// let x = DeviceArray::from_slice(&dev, &[1.0f64, 2.0])?;
    /// let y = DeviceArray::from_slice(&dev, &[1.0f64 + 1e-9, 2.1])?;
    /// assert_eq!(f.call(&x, &y)?.to_host()?, vec![true, false]);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn isclose(self, b: impl IntoExpr<T>, rtol: f64, atol: f64, equal_nan: bool) -> Expr<bool> {
        let b = b.into_expr(self.trace);
        let (rtol, atol) = (T::from_f64(rtol), T::from_f64(atol));
        let tol = b.abs().mul(rtol).add(atol);
        let close = ((self - b).abs().le(tol) & b.isfinite()) | self.eq(b);
        if equal_nan {
            close | (self.isnan() & b.isnan())
        } else {
            close
        }
    }
}

/// `& | ^ << >>` on integer expressions, the right operand an expression or a constant.
macro_rules! int_expr_operators {
    ($($trait:ident $method:ident $op:ident),*) => {$(
        impl<T: IntElement, R: IntoExpr<T>> std::ops::$trait<R> for Expr<T> {
            type Output = Expr<T>;
            fn $method(self, rhs: R) -> Expr<T> {
                self.binary(BinaryOp::$op, rhs)
            }
        }
    )*};
}
int_expr_operators!(
    BitAnd bitand BitwiseAnd,
    BitOr bitor BitwiseOr,
    BitXor bitxor BitwiseXor,
    Shl shl LeftShift,
    Shr shr RightShift
);

/// `!x`: bitwise not of an integer expression ([`invert`](Expr::invert)).
impl<T: IntElement> std::ops::Not for Expr<T> {
    type Output = Expr<T>;
    fn not(self) -> Expr<T> {
        self.invert()
    }
}

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
    pub(super) node: u32,
    pub(super) trace: u32,
    pub(super) tail: Tail,
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
