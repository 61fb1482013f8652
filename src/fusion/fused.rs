//! The fused function: [`fuse`] traces a closure into a [`Fused`], whose `call` and
//! `call_into` (one per closure arity) take the arguments; the traits that say what a
//! closure takes ([`FuseFn`], [`FuseArg`]) and returns ([`FuseOutput`]).

use super::call::{no_array, op_scalars, Inner};
use super::expr::{Expr, Reduced};
use super::trace::{self, Tail};
use crate::element::{DType, Element};
use crate::user_kernels::{Arg, ArgList, KernelArg, KernelOutputs};
#[cfg(doc)]
use crate::Error;
use crate::{DeviceArray, Result};
use std::marker::PhantomData;
use std::sync::Arc;

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
        inner: Arc::new(Inner::new(traced)),
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
