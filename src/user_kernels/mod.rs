//! Kernels written by the user, as in CuPy: [`ElementwiseKernel`] (a line of CUDA C over
//! broadcast arrays), [`ReductionKernel`] (map, reduce and post-map expressions over any
//! axes) and [`RawKernel`] / [`RawModule`] (a whole CUDA source, launched with an explicit
//! geometry).
//!
//! ```no_run
//! use cuarray::{Device, DeviceArray, ElementwiseKernel};
//! let dev = Device::new(0)?;
//! // CuPy: cp.ElementwiseKernel("T x, T y", "T z", "z = (x - y) * (x - y)", "squared_diff")
//! let k = ElementwiseKernel::new("T x, T y", "T z", "z = (x - y) * (x - y);", "squared_diff")?;
//! let x = DeviceArray::from_slice(&dev, &[1.0f32, 4.0])?;
//! let z: DeviceArray<f32> = k.call((&x, 2.0f32))?;
//! assert_eq!(z.to_host()?, vec![1.0, 4.0]);
//! # Ok::<(), cuarray::Error>(())
//! ```
//!
//! All three run on the machinery of cuarray's own operations: an `ElementwiseKernel` is
//! an instance of the same N-ary elementwise template as `a + b` (the same plan,
//! contiguous and vectorized fast paths, broadcasting and strided variants), a
//! `ReductionKernel` one of the same reduction template as `a.sum()`, and every kernel goes
//! through the same kernel cache (in memory and on disk, counted in
//! [`Device::kernel_cache_stats`]): the second call with the same types and layout class
//! compiles nothing.
//!
//! # Parameters
//! Parameter lists follow CuPy's model: `"T x, T y, float32 a"`, comma-separated, each a
//! type and a name. Types are NumPy dtype names (`float32`, `int64`, `bool`...), C names
//! meaning what they mean in CUDA C (`float` is 32-bit, `double`, `int`, `unsigned int`,
//! `long long`, `half`...), Rust names (`f32`, `i64`...), or placeholders (an identifier
//! starting with an upper-case letter, such as `T`) bound at the call to the dtype of the
//! first argument declared with them. The body sees each parameter under its own name,
//! each placeholder as a type name, the element's index `i` and (ElementwiseKernel) the
//! element count `n`. `f16` and `bf16` elements (`cuarray_f16`, `cuarray_bf16`) convert
//! to and from `float` implicitly, without CUDA headers. A parameter of an
//! `ElementwiseKernel` is an array or a scalar according to the argument passed.
//!
//! # Errors
//! A wrong number of arguments, an argument of the wrong type or kind, and a placeholder
//! bound to two dtypes are [`Error::InvalidArgument`]
//! naming the parameter. A body that does not compile is
//! [`Error::Compile`] with NVRTC's log, whose line numbers are
//! those of the user's text (`saxpy.operation(1): error: ...`).

mod elementwise;
mod params;
mod raw;
mod reduction;

pub use elementwise::ElementwiseKernel;
pub use params::{dtype_named, parse_params, Param, ParamType};
pub use raw::{RawKernel, RawModule};
pub use reduction::ReductionKernel;

use crate::array::ArrayRef;
use crate::element::{DType, Element};
use crate::kernels::abi::{Scalar, MAX_ARGS};
use crate::kernels::MAX_SCALARS;
use crate::ops::Operand;
use crate::shape::broadcast_shapes;
use crate::{Device, DeviceArray, Error, Result};
use std::borrow::Cow;

/// One argument of a user kernel: kept in a fixed list, no allocation per call.
#[derive(Clone, Copy)]
pub(crate) enum Arg<'a> {
    Array(ArrayRef<'a>),
    Scalar(Scalar),
}

/// What the argument is, for messages (`an array`, `a scalar`; the message adds the
/// dtype). Written only when a message is.
impl std::fmt::Display for Arg<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Arg::Array(_) => "an array",
            Arg::Scalar(_) => "a scalar",
        })
    }
}

impl Arg<'_> {
    pub(crate) fn dtype(&self) -> DType {
        match self {
            Arg::Array(a) => a.dtype,
            Arg::Scalar(s) => s.dtype,
        }
    }
}

/// The arguments of one call (built by [`KernelArgs`]; opaque).
pub struct ArgList<'a> {
    items: [Option<Arg<'a>>; MAX_ARGS],
    len: usize,
    /// More arguments than fit were given.
    overflow: usize,
}

impl<'a> ArgList<'a> {
    pub(crate) fn new() -> ArgList<'a> {
        ArgList {
            items: [None; MAX_ARGS],
            len: 0,
            overflow: 0,
        }
    }
    pub(crate) fn push(&mut self, a: Arg<'a>) {
        if self.len < MAX_ARGS {
            self.items[self.len] = Some(a);
            self.len += 1;
        } else {
            self.overflow += 1;
        }
    }
    /// Number of arguments given.
    pub(crate) fn count(&self) -> usize {
        self.len + self.overflow
    }
    pub(crate) fn iter(&self) -> impl Iterator<Item = Arg<'a>> + '_ {
        self.items[..self.len].iter().flatten().copied()
    }
}

mod sealed {
    pub trait Sealed {}
}

/// One argument of a user kernel: `&DeviceArray<T>` or a scalar of an element type
/// (`2.5f32`, `7i64`, `true`...).
pub trait KernelArg<'a>: sealed::Sealed {
    /// Appends the argument to `list`.
    #[doc(hidden)]
    fn push_to(self, list: &mut ArgList<'a>);
}

impl<T: Element> sealed::Sealed for &DeviceArray<T> {}
impl<'a, T: Element> KernelArg<'a> for &'a DeviceArray<T> {
    fn push_to(self, list: &mut ArgList<'a>) {
        list.push(Arg::Array(self.erased()));
    }
}

impl<T: Element> sealed::Sealed for T {}
impl<'a, T: Element> KernelArg<'a> for T {
    fn push_to(self, list: &mut ArgList<'a>) {
        list.push(Arg::Scalar(Scalar::of(self)));
    }
}

/// The arguments of a call: a tuple of [`KernelArg`]s (`(&x, &y, 2.5f32)`, `(&x,)`, `()`),
/// up to 16.
pub trait KernelArgs<'a> {
    /// Appends every argument to `list`.
    #[doc(hidden)]
    fn push_all(self, list: &mut ArgList<'a>);
}

macro_rules! tuple_args {
    ($($t:ident),*) => {
        impl<'a, $($t: KernelArg<'a>),*> KernelArgs<'a> for ($($t,)*) {
            #[allow(non_snake_case, unused_variables)]
            fn push_all(self, list: &mut ArgList<'a>) {
                let ($($t,)*) = self;
                $($t.push_to(list);)*
            }
        }
    };
}
tuple_args!();
tuple_args!(A);
tuple_args!(A, B);
tuple_args!(A, B, C);
tuple_args!(A, B, C, D);
tuple_args!(A, B, C, D, E);
tuple_args!(A, B, C, D, E, F);
tuple_args!(A, B, C, D, E, F, G);
tuple_args!(A, B, C, D, E, F, G, H);
tuple_args!(A, B, C, D, E, F, G, H, I);
tuple_args!(A, B, C, D, E, F, G, H, I, J);
tuple_args!(A, B, C, D, E, F, G, H, I, J, K);
tuple_args!(A, B, C, D, E, F, G, H, I, J, K, L);
tuple_args!(A, B, C, D, E, F, G, H, I, J, K, L, M);
tuple_args!(A, B, C, D, E, F, G, H, I, J, K, L, M, N);
tuple_args!(A, B, C, D, E, F, G, H, I, J, K, L, M, N, O);
tuple_args!(A, B, C, D, E, F, G, H, I, J, K, L, M, N, O, P);

/// The outputs a call allocates and returns: `DeviceArray<U>` for one output, a tuple of
/// `DeviceArray`s for several. Their element types bind the output parameters (checked at
/// the call), so a type annotation picks them: `let z: DeviceArray<f32> = k.call(...)?`.
pub trait KernelOutputs: Sized + sealed::Sealed {
    /// The element types, in order.
    #[doc(hidden)]
    const DTYPES: &'static [DType];
    /// New C-contiguous arrays of `shape`.
    #[doc(hidden)]
    fn alloc(device: &Device, shape: &[usize]) -> Result<Self>;
    /// Appends every output to `list`.
    #[doc(hidden)]
    fn push_all<'a>(&'a self, list: &mut ArgList<'a>);
}

impl<U: Element> sealed::Sealed for DeviceArray<U> {}
impl<U: Element> KernelOutputs for DeviceArray<U> {
    const DTYPES: &'static [DType] = &[U::DTYPE];
    fn alloc(device: &Device, shape: &[usize]) -> Result<Self> {
        DeviceArray::alloc_uninit(device, shape)
    }
    fn push_all<'a>(&'a self, list: &mut ArgList<'a>) {
        self.push_to(list);
    }
}

macro_rules! tuple_outputs {
    ($($t:ident $k:tt),*) => {
        impl<$($t: Element),*> sealed::Sealed for ($(DeviceArray<$t>,)*) {}
        impl<$($t: Element),*> KernelOutputs for ($(DeviceArray<$t>,)*) {
            const DTYPES: &'static [DType] = &[$($t::DTYPE),*];
            fn alloc(device: &Device, shape: &[usize]) -> Result<Self> {
                Ok(($(DeviceArray::<$t>::alloc_uninit(device, shape)?,)*))
            }
            fn push_all<'a>(&'a self, list: &mut ArgList<'a>) {
                $(self.$k.push_to(list);)*
            }
        }
    };
}
tuple_outputs!(A 0, B 1);
tuple_outputs!(A 0, B 1, C 2);
tuple_outputs!(A 0, B 1, C 2, D 3);

/// The device of an argument list's first array and the shape all its arrays broadcast to.
pub(crate) type Broadcast<'a> = (&'a Device, Cow<'a, [usize]>);

/// The device of the first array of `list` and the shape every array of it broadcasts
/// to (borrowed when they all have one shape, the common case: no allocation); `None`
/// when no argument is an array.
pub(crate) fn broadcast_args<'a>(
    op: &'static str,
    list: &ArgList<'a>,
) -> Result<Option<Broadcast<'a>>> {
    let Some(first) = list.iter().find_map(|a| match a {
        Arg::Array(a) => Some(a),
        Arg::Scalar(_) => None,
    }) else {
        return Ok(None);
    };
    let mut shape = Cow::Borrowed(first.layout().shape());
    for a in list.iter() {
        if let Arg::Array(a) = a {
            if a.layout().shape() != &*shape {
                shape = broadcast_shapes(op, &shape, a.layout().shape())?.into();
            }
        }
    }
    Ok(Some((first.device(), shape)))
}

/// The operands of one elementwise launch over `shape` on `device`'s stream: the arrays
/// of `outs`, the arrays of `list` broadcast to `shape`, and the scalar parameters
/// `before`, then `list`'s scalars, then `after`, into `scalars` (returned: how many).
/// Checks each array's device and records the stream's use of its buffer.
#[allow(clippy::type_complexity, clippy::too_many_arguments)]
pub(crate) fn operands<'a>(
    op: &'static str,
    device: &Device,
    list: &ArgList<'a>,
    outs: &ArgList<'a>,
    shape: &[usize],
    before: &[Scalar],
    after: &[Scalar],
    scalars: &mut [Scalar; MAX_SCALARS],
) -> Result<(Vec<Operand<'a>>, Vec<Operand<'a>>, usize)> {
    let mut out_ops = Vec::with_capacity(outs.len);
    for a in outs.iter() {
        if let Arg::Array(a) = a {
            a.used_by(op, device)?;
            out_ops.push(a.operand_as(shape)?);
        }
    }
    let mut in_ops = Vec::with_capacity(list.len);
    let mut s = 0;
    let mut put = |v: Scalar| -> Result<()> {
        *scalars.get_mut(s).ok_or_else(|| {
            Error::invalid(
                op,
                format!("more than {MAX_SCALARS} scalars for one kernel"),
            )
        })? = v;
        s += 1;
        Ok(())
    };
    for &v in before {
        put(v)?;
    }
    for a in list.iter() {
        match a {
            Arg::Array(a) => {
                a.used_by(op, device)?;
                in_ops.push(a.operand_as(shape)?);
            }
            Arg::Scalar(v) => put(v)?,
        }
    }
    for &v in after {
        put(v)?;
    }
    Ok((out_ops, in_ops, s))
}

/// `name` when it is a C identifier, for kernel names.
fn check_name(op: &'static str, name: &str) -> Result<()> {
    if params::is_ident(name) {
        Ok(())
    } else {
        Err(Error::invalid(
            op,
            format!("kernel name `{name}` is not a C identifier"),
        ))
    }
}

/// Parses a parameter list for `op`, naming `kernel` in errors.
fn parse(op: &'static str, kernel: &str, what: &str, list: &str) -> Result<Vec<Param>> {
    parse_params(list).map_err(|m| Error::invalid(op, format!("{kernel}: {what}: {m}")))
}

/// "`x`, `y` and `a`" for messages.
fn names(params: &[Param]) -> String {
    let v: Vec<String> = params.iter().map(|p| format!("`{}`", p.name)).collect();
    if v.is_empty() {
        "none".into()
    } else {
        v.join(", ")
    }
}
