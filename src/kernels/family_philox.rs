//! The random family (`kernels/philox.cuh`): a kernel per (distribution, element type)
//! that fills a fresh contiguous array from the Philox4x32-10 stream (see
//! [`crate::random`] for the counter layout).
//!
//! Spec fields used: `family` = [`Family::Random`], `op` = the distribution (`uniform`,
//! `normal`, `exponential`, `int1`, `int2`, `int4`, `bernoulli`), `outputs` = the one
//! element type; `body` and `inputs`, `scalars` are empty, `variant` is
//! [`Variant::Contiguous`], `index` is [`IndexWidth::I64`], `reduce` is `None`.
//!
//! Kernel arguments, in order: `out0_t* p_out0, long long n, unsigned long long group0,
//! long long head, unsigned long long key, unsigned long long stream, unsigned long long a,
//! unsigned long long b` (see `philox_fill` in philox.cuh). Block: 256 threads; grid:
//! `ceil((n + head) / 4)` threads (one group of 4 values each), rounded up to blocks.

use super::{Family, IndexWidth, KernelSpec, TypeList, Variant};
use crate::element::DType;
use std::fmt::Write as _;

/// The family's header, concatenated after `common.cuh` (and `ops.cuh`).
pub(crate) const HEADER: &str = "philox.cuh";

/// The distributions of float element types.
const FLOAT_OPS: [&str; 3] = ["uniform", "normal", "exponential"];

/// Words of the stream per value of the kernel `op` for element type `dtype`: the one table
/// host and device agree on (the device asserts it against each distribution's `W`).
pub(crate) fn words_for(op: &str, dtype: DType) -> u32 {
    match op {
        "int1" | "bernoulli" => 1,
        "int2" => 2,
        "int4" => 4,
        _ if dtype == DType::F64 => 2,
        _ => 1,
    }
}

/// The spec of the kernel drawing `op` values of `dtype`.
pub(crate) fn spec(op: &'static str, dtype: DType) -> KernelSpec {
    KernelSpec {
        family: Family::Random,
        op: op.into(),
        body: "".into(),
        inputs: TypeList::new(&[]),
        outputs: TypeList::new(&[dtype]),
        scalars: TypeList::new(&[]),
        variant: Variant::Contiguous,
        index: IndexWidth::I64,
        reduce: None,
    }
}

/// Every random kernel the library can launch for `dtype`: uniform, normal and
/// exponential for float types; the three integer kernels for integer types (one word per
/// value for power-of-two ranges up to 2^32, two for other ranges up to 2^32 and larger
/// powers of two, four for the rest, which only 64-bit types have); bernoulli for bool.
///
/// ```
/// use cuarray::kernels::family_philox::specs_for;
/// use cuarray::DType;
/// assert_eq!(specs_for(DType::F32).len(), 3);
/// assert_eq!(specs_for(DType::I32).len(), 2);
/// assert_eq!(specs_for(DType::U64).len(), 3);
/// assert_eq!(specs_for(DType::Bool)[0].symbol(), "cuarray_rand_bernoulli__bool_c_i64");
/// ```
pub fn specs_for(dtype: DType) -> Vec<KernelSpec> {
    let ops: &[&'static str] = match dtype {
        DType::Bool => &["bernoulli"],
        d if d.is_float() => &FLOAT_OPS,
        DType::I64 | DType::U64 => &["int1", "int2", "int4"],
        _ => &["int1", "int2"],
    };
    ops.iter().map(|&op| spec(op, dtype)).collect()
}

/// Appends the `extern "C"` wrapper of `spec` to `src`, which already holds
/// `common.cuh`, `ops.cuh` and [`HEADER`].
pub(crate) fn render(spec: &KernelSpec, src: &mut String) {
    let dtype = spec.outputs.as_slice()[0];
    let op = spec.op.as_ref();
    let w = words_for(op, dtype);
    let dist = match op {
        "uniform" => "rand_uniform<out0_t>".to_string(),
        "normal" => "rand_normal<out0_t>".to_string(),
        "exponential" => "rand_exponential<out0_t>".to_string(),
        "bernoulli" => "rand_bernoulli".to_string(),
        "int1" | "int2" | "int4" => format!("rand_int<out0_t, {w}>"),
        other => unreachable!("unknown random kernel {other}"),
    };
    let _ = writeln!(src, "typedef {} out0_t;", dtype.cuda_type());
    let _ = writeln!(
        src,
        "extern \"C\" __global__ void __launch_bounds__({}) {}(\n    out0_t* p_out0,\n    const long long n,\n    const unsigned long long group0,\n    const long long head,\n    const unsigned long long key,\n    const unsigned long long stream,\n    const unsigned long long a,\n    const unsigned long long b) {{",
        crate::ops::launch::BLOCK,
        spec.symbol()
    );
    let _ = writeln!(
        src,
        "    philox_fill<{w}>(p_out0, n, group0, head, key, stream, {dist}(a, b));\n}}"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_spec_renders_a_well_formed_wrapper() {
        let mut symbols = std::collections::HashSet::new();
        for d in DType::ALL {
            for spec in specs_for(d) {
                let src = super::super::codegen::render(&spec);
                let sym = spec.symbol();
                assert!(sym.starts_with("cuarray_rand_"), "{sym}");
                assert!(src.contains(&format!(" {sym}(")), "{sym}");
                assert!(src.contains("philox4x32_10"), "{sym}: header missing");
                assert!(src.contains(&format!("typedef {} out0_t;", d.cuda_type())));
                let w = words_for(spec.op.as_ref(), d);
                assert!(src.contains(&format!("philox_fill<{w}>")), "{sym}");
                assert_eq!(src.matches('{').count(), src.matches('}').count(), "{sym}");
                assert!(symbols.insert(sym));
            }
        }
        assert_eq!(symbols.len(), 4 * 3 + 6 * 2 + 2 * 3 + 1);
    }

    #[test]
    fn words_per_value() {
        assert_eq!(words_for("uniform", DType::F64), 2);
        assert_eq!(words_for("normal", DType::F16), 1);
        assert_eq!(words_for("int4", DType::I64), 4);
        assert_eq!(words_for("bernoulli", DType::Bool), 1);
    }
}
