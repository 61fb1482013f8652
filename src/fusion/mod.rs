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
//!   per fused function.
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

mod call;
mod expr;
mod fused;
mod render;
mod trace;

#[cfg(doc)]
use crate::{DeviceArray, Error};
pub use expr::{lit, select, Expr, IntoExpr, Reduced};
pub use fused::{fuse, FuseArg, FuseFn, FuseOutput, Fused, Roots};

/// The operation name fused calls give in their errors.
const OP: &str = "fuse";

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
