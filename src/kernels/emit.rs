//! Source fragments shared by the families' wrappers: type names, kernel symbols, the
//! pre-map and post-map of a reduction-shaped kernel, vector loads.
//!
//! Every helper appends to the wrapper being rendered; none allocates beyond the string.

use super::{IndexWidth, TypeList};
use crate::element::DType;
use std::fmt::Write as _;

/// `typedef <type> <prefix><k>_t;` for each type of `types` (`in0_t`, `out1_t`, ...).
pub(crate) fn typedefs(src: &mut String, prefix: &str, types: &[DType]) {
    for (k, d) in types.iter().enumerate() {
        let _ = writeln!(src, "typedef {} {prefix}{k}_t;", d.cuda_type());
    }
}

/// `typedef <type> <name>;`.
pub(crate) fn typedef(src: &mut String, ty: &str, name: &str) {
    let _ = writeln!(src, "typedef {ty} {name};");
}

/// The `extern "C"` kernel symbol `cuarray_{family}_{op}_{inputs}_{outputs}[_{scalars}]_
/// {variant}_{index}`, so that profilers show what ran.
pub(crate) fn symbol(
    family: &str,
    op: &str,
    inputs: &[DType],
    outputs: &[DType],
    scalars: &[DType],
    variant: &str,
    index: IndexWidth,
) -> String {
    let types = |l: &[DType]| l.iter().map(|d| d.name()).collect::<String>();
    let mut sym = format!("cuarray_{family}_{op}_{}_{}", types(inputs), types(outputs));
    if !scalars.is_empty() {
        sym.push('_');
        sym.push_str(&types(scalars));
    }
    sym.push('_');
    sym.push_str(variant);
    sym.push('_');
    sym.push_str(index.name());
    sym
}

/// The wrapper's opening line: `extern "C" __global__ void __launch_bounds__(block)
/// symbol(params) {`, one parameter a line, then the dependent-launch entry that every
/// library kernel starts with (`cuarray_dependent_entry` in `common.cuh`).
pub(crate) fn open(src: &mut String, block: u32, symbol: &str, params: &[String]) {
    open_bounded(src, block, 0, symbol, params);
}

/// As [`open`], with `__launch_bounds__(block, min_blocks)` where `min_blocks` is not 0.
pub(crate) fn open_bounded(
    src: &mut String,
    block: u32,
    min_blocks: u32,
    symbol: &str,
    params: &[String],
) {
    open_entry(src, block, min_blocks, symbol, params, true);
}

/// As [`open_bounded`], without the dependent-launch entry when `entry` is false: the
/// kernel then calls `cuarray_dependent_entry` itself before it reads or writes what the
/// grid before it writes.
pub(crate) fn open_entry(
    src: &mut String,
    block: u32,
    min_blocks: u32,
    symbol: &str,
    params: &[String],
    entry: bool,
) {
    let bounds = if min_blocks > 0 {
        format!("{block}, {min_blocks}")
    } else {
        block.to_string()
    };
    let _ = writeln!(
        src,
        "extern \"C\" __global__ void __launch_bounds__({bounds}) {symbol}(\n    {}) {{{}",
        params.join(",\n    "),
        if entry {
            "\n    cuarray_dependent_entry();"
        } else {
            ""
        }
    );
}

/// `const s<k>_t s<k>` for each scalar parameter.
pub(crate) fn scalar_params(scalars: &TypeList) -> impl Iterator<Item = String> {
    (0..scalars.len()).map(|k| format!("const s{k}_t s{k}"))
}

/// The pre-map of one element at indentation `pad`: the per-output aux value (if any),
/// then the accumulator `a` assigned by `body` from `in0`, `j` and `row`.
pub(crate) fn pre_map(src: &mut String, body: &str, aux: bool, pad: &str) {
    if aux {
        let _ = writeln!(src, "{pad}const k0_t k0 = p_k0[row];");
    }
    let _ = writeln!(
        src,
        "{pad}acc_t a;\n{pad}(void)j;\n{pad}(void)row;\n{pad}{{ {body} }}"
    );
}

/// The post-map at indentation `pad`: `out0` declared and assigned by `post` from `a`.
pub(crate) fn post_map(src: &mut String, post: &str, pad: &str) {
    let _ = writeln!(src, "{pad}out0_t out0;\n{pad}{{ {post} }}");
}

/// The same as [`vector_load`] for a vector of 4, 8 or 16 bytes read once (not kept in
/// L1).
pub(crate) fn vector_load_once(
    src: &mut String,
    pad: &str,
    name: &str,
    ty: &str,
    vec: usize,
    at: &str,
) {
    let _ = writeln!(
        src,
        "{pad}const cuarray_vec<{ty}, {vec}> {name} = cuarray_ld_once<cuarray_vec<{ty}, {vec}>>({at});"
    );
}

/// A `vec`-element vector `name` of type `ty` loaded from `ptr + off`, at indentation
/// `pad`.
pub(crate) fn vector_load(src: &mut String, pad: &str, name: &str, ty: &str, vec: usize, at: &str) {
    let _ = writeln!(
        src,
        "{pad}const cuarray_vec<{ty}, {vec}> {name} = *reinterpret_cast<const cuarray_vec<{ty}, {vec}>*>({at});"
    );
}

/// `#pragma unroll` and the head of a loop over the `vec` lanes of a vector.
pub(crate) fn lanes(src: &mut String, pad: &str, vec: usize) {
    lanes_unrolled(src, pad, vec, true);
}

/// As [`lanes`], unrolled or not: a body with a loop of its own is compute-bound, and
/// unrolling it `vec` times multiplies its registers (fewer threads a multiprocessor)
/// and its compile time for nothing.
pub(crate) fn lanes_unrolled(src: &mut String, pad: &str, vec: usize, unroll: bool) {
    let pragma = if unroll {
        "#pragma unroll"
    } else {
        "#pragma unroll 1"
    };
    let _ = writeln!(src, "{pragma}\n{pad}for (int e = 0; e < {vec}; ++e) {{");
}

/// Whether the CUDA text `body` has a loop of its own (`for`, `while` or `do` as a word,
/// comments included: a false positive only costs the unrolling), or calls one and says
/// so with the word `iterative` (in a comment: `/* iterative */`). Such a body runs once
/// per vector lane in a rolled loop: unrolling it would multiply its code, and its compile
/// time, by the vector width for no speed.
pub(crate) fn has_loop(body: &str) -> bool {
    body.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .any(|w| matches!(w, "for" | "while" | "do" | "iterative"))
}

#[cfg(test)]
mod tests {
    use super::has_loop;

    #[test]
    fn loops_are_words() {
        assert!(has_loop("for (int i = 0; i < n; ++i) s += x;"));
        assert!(has_loop("while(k) k--;"));
        assert!(has_loop("do { k--; } while (k);"));
        assert!(has_loop(
            "out0 = cuarray_special_zeta(in0, in1); /* iterative */"
        ));
        assert!(!has_loop(
            "z = a * x + y; format_for(x); doubled = fort + 1;"
        ));
    }
}
