//! Rendering a [`KernelSpec`] into CUDA source: the embedded headers in a fixed order,
//! then one generated `extern "C"` wrapper. Pure: no CUDA call.
//!
//! Wrapper arguments, in order: output pointers, input pointers, scalar values, then
//! `long long n` (contiguous variant) or `Indexer<NARG, NDIM, I>` by value (strided).

use super::{sources, Family, KernelSpec, Variant};
use std::fmt::Write as _;

/// The full source of `spec`'s kernel.
///
/// ```
/// use cuarray::kernels::{codegen, KernelSpec, Family, TypeList, Variant, IndexWidth};
/// use cuarray::DType;
/// let spec = KernelSpec {
///     family: Family::Elementwise,
///     op: "add".into(),
///     body: "out0 = in0 + in1;".into(),
///     inputs: TypeList::new(&[DType::F32, DType::F32]),
///     outputs: TypeList::new(&[DType::F32]),
///     scalars: TypeList::new(&[]),
///     variant: Variant::Contiguous,
///     index: IndexWidth::I32,
/// };
/// let src = codegen::render(&spec);
/// assert!(src.contains("extern \"C\" __global__ void cuarray_ew_add_f32f32_f32_c_i32("));
/// ```
pub fn render(spec: &KernelSpec) -> String {
    let mut src = String::with_capacity(8192);
    src.push_str(sources::get("common.cuh"));
    src.push('\n');
    src.push_str(sources::get("ops.cuh"));
    src.push('\n');
    match spec.family {
        Family::Elementwise => {
            src.push_str(sources::get("elementwise.cuh"));
            src.push('\n');
            render_elementwise(spec, &mut src);
        }
    }
    src
}

fn render_elementwise(spec: &KernelSpec, src: &mut String) {
    let nin = spec.inputs.len();
    let nout = spec.outputs.len();
    let narg = nin + nout;
    let idx = spec.index.cuda_type();
    // Type names.
    for (k, d) in spec.inputs.as_slice().iter().enumerate() {
        let _ = writeln!(src, "typedef {} in{k}_t;", d.cuda_type());
    }
    for (k, d) in spec.outputs.as_slice().iter().enumerate() {
        let _ = writeln!(src, "typedef {} out{k}_t;", d.cuda_type());
    }
    for (k, d) in spec.scalars.as_slice().iter().enumerate() {
        let _ = writeln!(src, "typedef {} s{k}_t;", d.cuda_type());
    }
    // Signature.
    let mut params: Vec<String> = Vec::new();
    params.extend((0..nout).map(|k| format!("out{k}_t* p_out{k}")));
    params.extend((0..nin).map(|k| format!("const in{k}_t* p_in{k}")));
    params.extend((0..spec.scalars.len()).map(|k| format!("const s{k}_t s{k}")));
    let ndim = match spec.variant {
        Variant::Contiguous => {
            params.push("const long long n".into());
            0
        }
        Variant::Strided { ndim } => {
            params.push(format!("const Indexer<{narg}, {ndim}, {idx}> ix"));
            ndim
        }
    };
    let _ = writeln!(
        src,
        "extern \"C\" __global__ void __launch_bounds__(256) {}(\n    {}) {{",
        spec.symbol(),
        params.join(",\n    ")
    );
    let _ = writeln!(src, "    typedef {idx} I;");
    // Offset expression of operand `slot` (outputs first, then inputs).
    let at = |slot: usize| match spec.variant {
        Variant::Contiguous => "i".to_string(),
        Variant::Strided { .. } => format!("o[{slot}]"),
    };
    match spec.variant {
        Variant::Contiguous => {
            let _ = writeln!(src, "    ew_contiguous<I>((I)n, [&](I i) {{");
        }
        Variant::Strided { .. } => {
            let _ = writeln!(
                src,
                "    ew_strided<{narg}, {ndim}, I>(ix, [&](I i, const I* o) {{"
            );
        }
    }
    for k in 0..nin {
        let _ = writeln!(src, "        const in{k}_t in{k} = p_in{k}[{}];", at(nout + k));
    }
    for k in 0..nout {
        let _ = writeln!(src, "        out{k}_t out{k};");
    }
    let _ = writeln!(src, "        (void)i;");
    let _ = writeln!(src, "        {{ {} }}", spec.body);
    for k in 0..nout {
        let _ = writeln!(src, "        p_out{k}[{}] = out{k};", at(k));
    }
    let _ = writeln!(src, "    }});\n}}");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::{IndexWidth, TypeList};
    use crate::DType;

    fn spec(variant: Variant) -> KernelSpec {
        KernelSpec {
            family: Family::Elementwise,
            op: "add".into(),
            body: "out0 = in0 + in1;".into(),
            inputs: TypeList::new(&[DType::F16, DType::F16]),
            outputs: TypeList::new(&[DType::F16]),
            scalars: TypeList::new(&[DType::F64]),
            variant,
            index: IndexWidth::I64,
        }
    }

    #[test]
    fn strided_wrapper_is_well_formed() {
        let src = render(&spec(Variant::Strided { ndim: 3 }));
        assert!(src.contains("typedef cuarray_f16 in1_t;"));
        assert!(src.contains("cuarray_ew_add_f16f16_f16_f64_s3_i64("));
        assert!(src.contains("const Indexer<3, 3, long long> ix"));
        assert!(src.contains("const in0_t in0 = p_in0[o[1]];"));
        assert!(src.contains("const in1_t in1 = p_in1[o[2]];"));
        assert!(src.contains("p_out0[o[0]] = out0;"));
        assert_eq!(src.matches('{').count(), src.matches('}').count());
    }

    #[test]
    fn contiguous_wrapper_is_well_formed() {
        let src = render(&spec(Variant::Contiguous));
        assert!(src.contains("const long long n)"));
        assert!(src.contains("p_out0[i] = out0;"));
        assert!(src.starts_with("// cuarray common.cuh"));
    }

    #[test]
    fn symbols_are_unique_per_spec() {
        let a = spec(Variant::Contiguous).symbol();
        let b = spec(Variant::Strided { ndim: 1 }).symbol();
        let mut c = spec(Variant::Contiguous);
        c.index = IndexWidth::I32;
        assert_ne!(a, b);
        assert_ne!(a, c.symbol());
    }
}
