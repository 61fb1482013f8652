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
///     reduce: None,
/// };
/// let src = codegen::render(&spec);
/// assert!(src.contains("void __launch_bounds__(256) cuarray_ew_add_f32f32_f32_c_i32("));
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
        Family::Reduce => {
            src.push_str(sources::get("reduce.cuh"));
            src.push('\n');
            render_reduce(spec, &mut src);
        }
        Family::Scan => {
            src.push_str(sources::get("reduce.cuh"));
            src.push('\n');
            src.push_str(sources::get("scan.cuh"));
            src.push('\n');
            render_scan(spec, &mut src);
        }
        Family::Gemm => {
            src.push_str(sources::get("matmul.cuh"));
            src.push('\n');
            render_gemm(spec, &mut src);
        }
        Family::Random => {
            src.push_str(sources::get(super::family_philox::HEADER));
            src.push('\n');
            super::family_philox::render(spec, &mut src);
        }
    }
    src
}

/// A small matrix product: `out0 = in0 @ in0'` (both inputs of type `in0_t`), accumulated
/// in `double` for f64 and in `float` otherwise. Parameters: the output, the two inputs,
/// then a `GemmShape` (batch, m, n, k and the batch, row and column strides of A, B, C).
fn render_gemm(spec: &KernelSpec, src: &mut String) {
    let t = spec.inputs.as_slice()[0];
    let acc = if t == crate::DType::F64 {
        "double"
    } else {
        "float"
    };
    let _ = writeln!(src, "typedef {} in0_t;", t.cuda_type());
    let _ = writeln!(
        src,
        "typedef {} out0_t;",
        spec.outputs.as_slice()[0].cuda_type()
    );
    let _ = writeln!(src, "typedef {acc} acc_t;");
    let _ = writeln!(
        src,
        "extern \"C\" __global__ void __launch_bounds__(256) {}(\n    out0_t* p_out0,\n    const in0_t* p_a,\n    const in0_t* p_b,\n    const GemmShape g) {{",
        spec.symbol()
    );
    let _ = writeln!(src, "    typedef {} I;", spec.index.cuda_type());
    let args = [
        "batch", "m", "n", "k", "sab", "sam", "sak", "sbb", "sbk", "sbn", "scb", "scm", "scn",
    ]
    .map(|n| format!("(I)g.{n}"));
    let _ = writeln!(
        src,
        "    gemm_small<I, acc_t>(p_a, p_b, p_out0, {});\n}}",
        args.join(", ")
    );
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
    // Contiguous variants touch element i of every operand exactly once, so the pointers
    // may be declared non-aliasing (even for in-place ops, which read each element before
    // writing it at the same index).
    let restrict = match spec.variant {
        Variant::Contiguous | Variant::Vectorized { .. } => " __restrict__",
        _ => "",
    };
    let mut params: Vec<String> = Vec::new();
    params.extend((0..nout).map(|k| format!("out{k}_t*{restrict} p_out{k}")));
    params.extend((0..nin).map(|k| format!("const in{k}_t*{restrict} p_in{k}")));
    params.extend((0..spec.scalars.len()).map(|k| format!("const s{k}_t s{k}")));
    match spec.variant {
        Variant::Contiguous | Variant::Vectorized { .. } => params.push("const long long n".into()),
        Variant::Strided { ndim } => {
            params.push(format!("const Indexer<{narg}, {ndim}, {idx}> ix"))
        }
        Variant::Tiled { .. } => params.push(format!("const Indexer<{narg}, 2, {idx}> ix")),
        Variant::StridedVec { ndim, .. } => {
            params.push(format!("const Indexer<{narg}, {ndim}, {idx}> ix"))
        }
        _ => unreachable!("reduction and scan variants are rendered by their own functions"),
    }
    let _ = writeln!(
        src,
        "extern \"C\" __global__ void __launch_bounds__(256) {}(\n    {}) {{",
        spec.symbol(),
        params.join(",\n    ")
    );
    let _ = writeln!(src, "    typedef {idx} I;");
    // The per-element statements: load inputs, run the body, store outputs. `at(slot)` is
    // the element's place in operand `slot` (outputs first, then inputs).
    let element = |src: &mut String, at: &dyn Fn(usize) -> String, pad: &str| {
        for k in 0..nin {
            let _ = writeln!(src, "{pad}const in{k}_t in{k} = p_in{k}[{}];", at(nout + k));
        }
        for k in 0..nout {
            let _ = writeln!(src, "{pad}out{k}_t out{k};");
        }
        let _ = writeln!(src, "{pad}(void)i;");
        let _ = writeln!(src, "{pad}{{ {} }}", spec.body);
        for k in 0..nout {
            let _ = writeln!(src, "{pad}p_out{k}[{}] = out{k};", at(k));
        }
    };
    match spec.variant {
        Variant::Contiguous => {
            let _ = writeln!(src, "    ew_contiguous<I>((I)n, [&](I i) {{");
            element(src, &|_| "i".to_string(), "        ");
            let _ = writeln!(src, "    }});");
        }
        Variant::Vectorized { vec } => {
            let _ = writeln!(
                src,
                "    ew_vectorized<{vec}, I>((I)n, [&](I base_a, I base_b) {{"
            );
            for part in ["a", "b"] {
                for k in 0..nin {
                    let _ = writeln!(
                        src,
                        "        const cuarray_vec<in{k}_t, {vec}> v{part}_in{k} = *reinterpret_cast<const cuarray_vec<in{k}_t, {vec}>*>(p_in{k} + base_{part});"
                    );
                }
            }
            for part in ["a", "b"] {
                render_vector(
                    spec,
                    src,
                    vec,
                    &format!("base_{part}"),
                    &|k| format!("v{part}_in{k}.v[e]"),
                    &|_| None,
                );
            }
            let _ = writeln!(src, "    }}, [&](I i) {{");
            element(src, &|_| "i".to_string(), "        ");
            let _ = writeln!(src, "    }});");
        }
        Variant::StridedVec { ndim, vec, bcast } => {
            let _ = writeln!(
                src,
                "    ew_strided_vec<{narg}, {ndim}, I, {vec}>(ix, [&](I i0, const I* o) {{"
            );
            for k in 0..nin {
                if bcast & (1 << (nout + k)) != 0 {
                    let _ = writeln!(
                        src,
                        "        const in{k}_t s_in{k} = p_in{k}[o[{}]];",
                        nout + k
                    );
                } else {
                    let _ = writeln!(
                        src,
                        "        const cuarray_vec<in{k}_t, {vec}> v_in{k} = *reinterpret_cast<const cuarray_vec<in{k}_t, {vec}>*>(p_in{k} + o[{}]);",
                        nout + k
                    );
                }
            }
            render_vector(
                spec,
                src,
                vec,
                "i0",
                &|k| {
                    if bcast & (1 << (nout + k)) != 0 {
                        format!("s_in{k}")
                    } else {
                        format!("v_in{k}.v[e]")
                    }
                },
                &|k| Some(format!("o[{k}]")),
            );
            let _ = writeln!(src, "    }});");
        }
        Variant::Strided { ndim } => {
            let _ = writeln!(
                src,
                "    ew_strided<{narg}, {ndim}, I, {STRIDED_CHUNK}>(ix, [&](I i, const I* o) {{"
            );
            element(src, &|slot| format!("o[{slot}]"), "        ");
            let _ = writeln!(src, "    }});");
        }
        Variant::Tiled { staged } => render_tiled(spec, staged, src),
        _ => unreachable!("reduction and scan variants are rendered by their own functions"),
    }
    let _ = writeln!(src, "}}");
}

/// The pre-map of one element at indentation `pad`: the per-output aux value (if any),
/// then the accumulator `a` assigned by the spec's body from `in0`, `j` and `row`.
fn render_pre(spec: &KernelSpec, aux: bool, src: &mut String, pad: &str) {
    if aux {
        let _ = writeln!(src, "{pad}const k0_t k0 = p_k0[row];");
    }
    let _ = writeln!(
        src,
        "{pad}acc_t a;\n{pad}(void)j;\n{pad}(void)row;\n{pad}{{ {} }}",
        spec.body
    );
}

/// A reduction wrapper (see `reduce.cuh`). Arguments: output (or partials), input,
/// aux input (if any), scalars, the kept and reduced `Indexer`s of the input, then
/// `n_out`, `n_red` and `splits` as `long long`; with `finish`, then the partials
/// (`acc_t*`) and the rows' counters (`unsigned int*`).
fn render_reduce(spec: &KernelSpec, src: &mut String) {
    let r = match &spec.reduce {
        Some(r) => r,
        None => unreachable!("a Reduce spec carries its ReduceSpec"),
    };
    let idx = spec.index.cuda_type();
    let (rows, warp, vec, nk, nr) = match spec.variant {
        Variant::ReduceRows { warp, vec, nk, nr } => (true, warp, vec.max(1), nk, nr),
        Variant::ReduceCols { vec, nk, nr } => (false, false, vec.max(1), nk, nr),
        _ => unreachable!("reduction specs use reduction variants"),
    };
    let _ = writeln!(src, "typedef {} acc_t;", r.acc);
    if r.partial_in {
        let _ = writeln!(src, "typedef acc_t in0_t;");
    } else {
        let _ = writeln!(
            src,
            "typedef {} in0_t;",
            spec.inputs.as_slice()[0].cuda_type()
        );
    }
    let _ = writeln!(
        src,
        "typedef {} out0_t;",
        spec.outputs.as_slice()[0].cuda_type()
    );
    if let Some(aux) = r.aux {
        let _ = writeln!(src, "typedef {} k0_t;", aux.cuda_type());
    }
    for (k, d) in spec.scalars.as_slice().iter().enumerate() {
        let _ = writeln!(src, "typedef {} s{k}_t;", d.cuda_type());
    }
    let mut params = vec![if r.partial_out {
        "acc_t* p_out0".to_string()
    } else {
        "out0_t* p_out0".to_string()
    }];
    params.push("const in0_t* p_in0".into());
    if r.aux.is_some() {
        params.push("const k0_t* p_k0".into());
    }
    params.extend((0..spec.scalars.len()).map(|k| format!("const s{k}_t s{k}")));
    params.push(format!("const Indexer<1, {nk}, {idx}> kept"));
    params.push(format!("const Indexer<1, {nr}, {idx}> red"));
    params.extend([
        "const long long n_out_".into(),
        "const long long n_red_".into(),
        "const long long splits_".into(),
    ]);
    if r.finish {
        params.extend(["acc_t* p_part".into(), "unsigned int* p_sem".into()]);
    }
    let _ = writeln!(
        src,
        "extern \"C\" __global__ void __launch_bounds__(256) {}(\n    {}) {{",
        spec.symbol(),
        params.join(",\n    ")
    );
    let _ = writeln!(src, "    typedef {idx} I;");
    let _ = writeln!(
        src,
        "    const I n_out = (I)n_out_, n_red = (I)n_red_, splits = (I)splits_;"
    );
    let _ = writeln!(src, "    (void)n_red;");
    let _ = writeln!(src, "    auto load = [&](I off, I j, I row) -> acc_t {{");
    let _ = writeln!(src, "        const in0_t in0 = p_in0[off];");
    render_pre(spec, r.aux.is_some(), src, "        ");
    let _ = writeln!(src, "        return a;\n    }};");
    let _ = writeln!(
        src,
        "    auto comb = [&](acc_t a, acc_t b) -> acc_t {{ return {}; }};",
        r.combine
    );
    // `vec` consecutive elements from one vector load, each pre-mapped, then combined.
    let _ = writeln!(src, "    auto loadv = [&](I off, I jb, I row) -> acc_t {{");
    let _ = writeln!(
        src,
        "        const cuarray_vec<in0_t, {vec}> v = *reinterpret_cast<const cuarray_vec<in0_t, {vec}>*>(p_in0 + off);"
    );
    let _ = writeln!(src, "        acc_t r;");
    let _ = writeln!(
        src,
        "#pragma unroll\n        for (int e = 0; e < {vec}; ++e) {{"
    );
    let _ = writeln!(
        src,
        "            const in0_t in0 = v.v[e];\n            const I j = jb + e;"
    );
    render_pre(spec, r.aux.is_some(), src, "            ");
    let _ = writeln!(
        src,
        "            r = (e == 0) ? a : comb(r, a);\n        }}\n        return r;\n    }};"
    );
    // `vec` adjacent outputs' elements from one vector load, each pre-mapped (columns).
    let _ = writeln!(
        src,
        "    auto loadc = [&](acc_t (&x)[{vec}], I off, I j, I row0) {{"
    );
    let _ = writeln!(
        src,
        "        const cuarray_vec<in0_t, {vec}> v = *reinterpret_cast<const cuarray_vec<in0_t, {vec}>*>(p_in0 + off);"
    );
    let _ = writeln!(
        src,
        "#pragma unroll\n        for (int e = 0; e < {vec}; ++e) {{"
    );
    let _ = writeln!(
        src,
        "            const in0_t in0 = v.v[e];\n            const I row = row0 + e;"
    );
    render_pre(spec, r.aux.is_some(), src, "            ");
    let _ = writeln!(src, "            x[e] = a;\n        }}\n    }};");
    let _ = writeln!(src, "    auto fin = [&](I row, I split, acc_t a) {{");
    if r.partial_out {
        let at = if rows {
            "row * splits + split"
        } else {
            "split * n_out + row"
        };
        let _ = writeln!(src, "        p_out0[{at}] = a;");
    } else {
        let _ = writeln!(src, "        (void)split;\n        out0_t out0;\n        {{ {} }}\n        p_out0[row] = out0;", r.post);
    }
    let _ = writeln!(src, "    }};");
    if rows {
        let (finish, part) = if r.finish {
            (true, "p_part, p_sem")
        } else {
            (false, "(acc_t*)0, (unsigned int*)0")
        };
        let _ = writeln!(
            src,
            "    reduce_rows<{warp}, {finish}, {vec}, {nk}, {nr}, I, acc_t>(kept, red, n_out, n_red, splits, acc_t({}), load, loadv, comb, fin, {part});",
            r.identity
        );
    } else {
        let _ = writeln!(
            src,
            "    reduce_cols<{vec}, {nk}, {nr}, I, acc_t>(kept, red, n_out, n_red, splits, acc_t({}), load, loadc, comb, fin);",
            r.identity
        );
    }
    let _ = writeln!(src, "}}");
}

/// A scan wrapper (see `scan.cuh`). Arguments: output, input, the rows' `Indexer<2, NK>`
/// (input and output offsets), `n_rows`, `len`, the input and output strides along the
/// axis (all `long long`), then for tiles the look-back state: flags, aggregates,
/// inclusive prefixes and the tile counter.
fn render_scan(spec: &KernelSpec, src: &mut String) {
    let r = match &spec.reduce {
        Some(r) => r,
        None => unreachable!("a Scan spec carries its ReduceSpec"),
    };
    let idx = spec.index.cuda_type();
    let (tiles, vec, nk) = match spec.variant {
        Variant::ScanTiles { vec, nk } => (true, vec.max(1) as usize, nk),
        Variant::ScanSerial { nk } => (false, 1, nk),
        _ => unreachable!("scan specs use scan variants"),
    };
    let _ = writeln!(src, "typedef {} acc_t;", r.acc);
    let _ = writeln!(
        src,
        "typedef {} in0_t;",
        spec.inputs.as_slice()[0].cuda_type()
    );
    let _ = writeln!(
        src,
        "typedef {} out0_t;",
        spec.outputs.as_slice()[0].cuda_type()
    );
    let mut params = vec![
        "out0_t* p_out0".to_string(),
        "const in0_t* p_in0".to_string(),
        format!("const Indexer<2, {nk}, {idx}> kept"),
    ];
    params.extend(["n_rows_", "len_", "sin_", "sout_"].map(|n| format!("const long long {n}")));
    if tiles {
        params.extend(
            [
                "int* flags",
                "acc_t* aggs",
                "acc_t* incls",
                "unsigned int* counter",
            ]
            .map(String::from),
        );
    }
    let _ = writeln!(
        src,
        "extern \"C\" __global__ void __launch_bounds__({}) {}(\n    {}) {{",
        if tiles { SCAN_BLOCK } else { 256 },
        spec.symbol(),
        params.join(",\n    ")
    );
    let _ = writeln!(src, "    typedef {idx} I;");
    let _ = writeln!(
        src,
        "    const I n_rows = (I)n_rows_, len = (I)len_, sin = (I)sin_, sout = (I)sout_;"
    );
    let _ = writeln!(src, "    const acc_t identity = acc_t({});", r.identity);
    let _ = writeln!(
        src,
        "    auto comb = [&](acc_t a, acc_t b) -> acc_t {{ return {}; }};",
        r.combine
    );
    let pre = |src: &mut String, pad: &str| render_pre(spec, false, src, pad);
    let post = |src: &mut String, pad: &str| {
        let _ = writeln!(src, "{pad}out0_t out0;\n{pad}{{ {} }}", r.post);
    };
    if tiles {
        let _ = writeln!(
            src,
            "    auto loadv = [&](acc_t (&v)[{vec}], I in_off, I jb, I row) {{"
        );
        if vec > 1 {
            let _ = writeln!(src, "        if (jb + {vec} <= len) {{");
            let _ = writeln!(
                src,
                "            const cuarray_vec<in0_t, {vec}> x = *reinterpret_cast<const cuarray_vec<in0_t, {vec}>*>(p_in0 + in_off + jb);"
            );
            let _ = writeln!(
                src,
                "#pragma unroll\n            for (int e = 0; e < {vec}; ++e) {{"
            );
            let _ = writeln!(
                src,
                "                const in0_t in0 = x.v[e];\n                const I j = jb + e;"
            );
            pre(src, "                ");
            let _ = writeln!(
                src,
                "                v[e] = a;\n            }}\n            return;\n        }}"
            );
        }
        let _ = writeln!(
            src,
            "#pragma unroll\n        for (int e = 0; e < {vec}; ++e) {{"
        );
        let _ = writeln!(src, "            const I j = jb + e;");
        let _ = writeln!(
            src,
            "            if (j >= len) {{ v[e] = identity; continue; }}"
        );
        let _ = writeln!(
            src,
            "            const in0_t in0 = p_in0[in_off + j * sin];"
        );
        pre(src, "            ");
        let _ = writeln!(src, "            v[e] = a;\n        }}\n    }};");
        let _ = writeln!(
            src,
            "    auto storev = [&](acc_t (&v)[{vec}], I out_off, I jb) {{"
        );
        if vec > 1 {
            let _ = writeln!(
                src,
                "        if (jb + {vec} <= len) {{\n            cuarray_vec<out0_t, {vec}> y;"
            );
            let _ = writeln!(src, "#pragma unroll\n            for (int e = 0; e < {vec}; ++e) {{\n                const acc_t a = v[e];");
            post(src, "                ");
            let _ = writeln!(src, "                y.v[e] = out0;\n            }}");
            let _ = writeln!(src, "            *reinterpret_cast<cuarray_vec<out0_t, {vec}>*>(p_out0 + out_off + jb) = y;\n            return;\n        }}");
        }
        let _ = writeln!(
            src,
            "#pragma unroll\n        for (int e = 0; e < {vec}; ++e) {{"
        );
        let _ = writeln!(src, "            const I j = jb + e;\n            if (j >= len) continue;\n            const acc_t a = v[e];");
        post(src, "            ");
        let _ = writeln!(
            src,
            "            p_out0[out_off + j * sout] = out0;\n        }}\n    }};"
        );
        let _ = writeln!(
            src,
            "    scan_tiles<{}, {}, {vec}, {nk}, I, acc_t>(kept, n_rows, len, sin, sout, identity, loadv, comb, storev, flags, aggs, incls, counter);",
            SCAN_BLOCK / 32,
            SCAN_PER_THREAD / vec
        );
    } else {
        let _ = writeln!(src, "    auto load = [&](I off, I j, I row) -> acc_t {{\n        const in0_t in0 = p_in0[off];");
        pre(src, "        ");
        let _ = writeln!(src, "        return a;\n    }};");
        let _ = writeln!(src, "    auto store = [&](I off, acc_t a) {{");
        post(src, "        ");
        let _ = writeln!(src, "        p_out0[off] = out0;\n    }};");
        let _ = writeln!(src, "    scan_serial<{nk}, I, acc_t>(kept, n_rows, len, sin, sout, identity, load, comb, store);");
    }
    let _ = writeln!(src, "}}");
}

/// One vector's worth of elements: inputs from `input(k)` (an expression in `e`), the
/// body per element, outputs gathered in vectors and stored at `base` (contiguous) or at
/// the offset `out_at(k)` (strided).
fn render_vector(
    spec: &KernelSpec,
    src: &mut String,
    vec: u8,
    base: &str,
    input: &dyn Fn(usize) -> String,
    out_at: &dyn Fn(usize) -> Option<String>,
) {
    let nin = spec.inputs.len();
    let nout = spec.outputs.len();
    let _ = writeln!(src, "        {{");
    for k in 0..nout {
        let _ = writeln!(src, "            cuarray_vec<out{k}_t, {vec}> v_out{k};");
    }
    let _ = writeln!(
        src,
        "#pragma unroll\n            for (int e = 0; e < {vec}; ++e) {{"
    );
    let _ = writeln!(
        src,
        "                const I i = {base} + e;\n                (void)i;"
    );
    for k in 0..nin {
        let _ = writeln!(src, "                const in{k}_t in{k} = {};", input(k));
    }
    for k in 0..nout {
        let _ = writeln!(src, "                out{k}_t out{k};");
    }
    let _ = writeln!(src, "                {{ {} }}", spec.body);
    for k in 0..nout {
        let _ = writeln!(src, "                v_out{k}.v[e] = out{k};");
    }
    let _ = writeln!(src, "            }}");
    for k in 0..nout {
        let at = out_at(k).unwrap_or_else(|| base.to_string());
        let _ = writeln!(
            src,
            "            *reinterpret_cast<cuarray_vec<out{k}_t, {vec}>*>(p_out{k} + {at}) = v_out{k};"
        );
    }
    let _ = writeln!(src, "        }}");
}

/// Elements each thread of a tiled scan holds.
pub const SCAN_PER_THREAD: usize = 64;

/// Threads per block of a tiled scan (one tile per block: `SCAN_BLOCK * SCAN_PER_THREAD`
/// elements). 16 warps of 64 values each fill the register file with one block per SM.
pub const SCAN_BLOCK: usize = 512;

/// Tile edge of a `Tiled` kernel: 64 when the staged operands' tiles fit in 48 KiB of
/// shared memory, else 32.
pub fn tile_for(spec: &KernelSpec) -> usize {
    let staged = match spec.variant {
        Variant::Tiled { staged } => staged,
        _ => return 0,
    };
    let types = spec.outputs.as_slice().iter().chain(spec.inputs.as_slice());
    let bytes: usize = types
        .enumerate()
        .filter(|(k, _)| staged & (1 << k) != 0)
        .map(|(_, d)| d.size())
        .sum();
    if bytes * 64 * 65 <= 48 * 1024 {
        64
    } else {
        32
    }
}

/// The body of a `Tiled` kernel (see `ew_tiled` in elementwise.cuh).
fn render_tiled(spec: &KernelSpec, staged: u8, src: &mut String) {
    #[allow(non_snake_case)]
    let TILE = tile_for(spec);
    let nin = spec.inputs.len();
    let nout = spec.outputs.len();
    let is_staged = |slot: usize| staged & (1 << slot) != 0;
    let off = |slot: usize| format!("r * ix.strides[{slot}][0] + c * ix.strides[{slot}][1]");
    // Shared tiles, padded against bank conflicts.
    for k in 0..nout {
        if is_staged(k) {
            let _ = writeln!(
                src,
                "    __shared__ out{k}_t t_out{k}[{TILE}][{}];",
                TILE + 1
            );
        }
    }
    for k in 0..nin {
        if is_staged(nout + k) {
            let _ = writeln!(src, "    __shared__ in{k}_t t_in{k}[{TILE}][{}];", TILE + 1);
        }
    }
    let staged_out = (0..nout).any(is_staged);
    let _ = writeln!(
        src,
        "    ew_tiled<{staged_out}, {TILE}, I>(ix.shape[0], ix.shape[1],"
    );
    let _ = writeln!(src, "        [&](int x, int y, I r, I c) {{");
    for k in 0..nin {
        if is_staged(nout + k) {
            let _ = writeln!(
                src,
                "            t_in{k}[y][x] = p_in{k}[{}];",
                off(nout + k)
            );
        }
    }
    let _ = writeln!(src, "        }},\n        [&](int x, int y, I r, I c) {{");
    let _ = writeln!(
        src,
        "            const I i = r * ix.shape[1] + c;\n            (void)i;"
    );
    for k in 0..nin {
        let load = if is_staged(nout + k) {
            format!("t_in{k}[x][y]")
        } else {
            format!("p_in{k}[{}]", off(nout + k))
        };
        let _ = writeln!(src, "            const in{k}_t in{k} = {load};");
    }
    for k in 0..nout {
        let _ = writeln!(src, "            out{k}_t out{k};");
    }
    let _ = writeln!(src, "            {{ {} }}", spec.body);
    for k in 0..nout {
        if is_staged(k) {
            let _ = writeln!(src, "            t_out{k}[x][y] = out{k};");
        } else {
            let _ = writeln!(src, "            p_out{k}[{}] = out{k};", off(k));
        }
    }
    let _ = writeln!(src, "        }},\n        [&](int x, int y, I r, I c) {{");
    for k in 0..nout {
        if is_staged(k) {
            let _ = writeln!(src, "            p_out{k}[{}] = t_out{k}[y][x];", off(k));
        }
    }
    let _ = writeln!(src, "        }});");
}

/// Consecutive inner-dimension elements each thread of a strided kernel handles.
pub const STRIDED_CHUNK: usize = 4;

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
            reduce: None,
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
