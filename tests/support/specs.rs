//! The kernel specs cuarray's operations ask for, grouped by family and dtype; shared by
//! the host tests (tests/shape.rs renders them all) and the NVRTC tier
//! (tests/gpu/nvrtc_tier.rs compiles them). Included with `#[path]`.
//!
//! Bodies are those of `cuarray::testing::ops::catalogue`; variants are
//! those `plan` and `refine` choose (contiguous, vectorized, strided, row-vectorized,
//! tiled), at both index widths.

#![allow(dead_code)]

use cuarray::testing::kernels::family::elementwise::{ElementwiseSpec, Variant};
use cuarray::testing::kernels::IndexWidth;
use cuarray::testing::ops::catalogue::{
    BinaryOp, OpClass, UnaryOp, ARANGE_F_BODY, ARANGE_I_BODY, CAST_BODY, CLIP_BODY, COMPLEX_BODY,
    COPY_BODY, EYE_BODY, FILL_BODY, ISCLOSE_BODY, LINSPACE_BODY, NAN_TO_NUM_BODY, WHERE_BODY,
};
use cuarray::testing::ops::elementwise::spec_for;
use cuarray::DType;

/// The binary ops with arithmetic methods on numeric arrays (result of the operand type).
pub const ARITH: [BinaryOp; 8] = [
    BinaryOp::Add,
    BinaryOp::Sub,
    BinaryOp::Mul,
    BinaryOp::Div,
    BinaryOp::Rem,
    BinaryOp::Pow,
    BinaryOp::Maximum,
    BinaryOp::Minimum,
];
/// The binary ops that also have `scalar op array` operators.
pub const OPERATORS: [BinaryOp; 5] = [
    BinaryOp::Add,
    BinaryOp::Sub,
    BinaryOp::Mul,
    BinaryOp::Div,
    BinaryOp::Rem,
];
/// Comparisons (bool result); `Eq` and `Ne` also exist for bool arrays.
pub const COMPARE: [BinaryOp; 6] = [
    BinaryOp::Eq,
    BinaryOp::Ne,
    BinaryOp::Lt,
    BinaryOp::Le,
    BinaryOp::Gt,
    BinaryOp::Ge,
];
/// Logical ops on bool arrays.
pub const LOGICAL: [BinaryOp; 3] = [
    BinaryOp::LogicalAnd,
    BinaryOp::LogicalOr,
    BinaryOp::LogicalXor,
];

pub const NUMERIC: [DType; 12] = [
    DType::I8,
    DType::I16,
    DType::I32,
    DType::I64,
    DType::U8,
    DType::U16,
    DType::U32,
    DType::U64,
    DType::F16,
    DType::BF16,
    DType::F32,
    DType::F64,
];

/// Elements per 16-byte vector over the widest of `types` (as `vector_width` picks).
pub fn vec_for(types: &[DType]) -> u8 {
    (16 / types.iter().map(|d| d.size()).max().unwrap_or(1)) as u8
}

/// How many variants to cover.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Depth {
    /// Every variant family at both index widths and several ranks.
    Thorough,
    /// One of each kind of element access: flat, vectorized, strided (64-bit indices).
    Basic,
    /// Only the vectorized flat variant.
    One,
}

/// Variants for an op with `nout` outputs and `nin` inputs of the `types` (outputs first).
pub fn variants(
    types: &[DType],
    nout: usize,
    nin: usize,
    depth: Depth,
) -> Vec<(Variant, IndexWidth)> {
    use IndexWidth::{I32, I64};
    let vec = vec_for(types);
    let mut v = vec![(Variant::Vectorized { vec }, I32)];
    if depth == Depth::One {
        return v;
    }
    v.push((Variant::Contiguous, I64));
    if nin > 0 {
        v.push((Variant::Strided { ndim: 2 }, I64));
    }
    if depth == Depth::Basic || nin == 0 {
        return v;
    }
    v.push((Variant::Strided { ndim: 1 }, I32));
    v.push((Variant::Strided { ndim: 3 }, I32));
    v.push((Variant::Strided { ndim: 6 }, I64));
    let last_in = 1u8 << (nout + nin - 1);
    v.push((
        Variant::StridedVec {
            ndim: 2,
            vec,
            bcast: last_in,
        },
        I32,
    ));
    v.push((
        Variant::StridedVec {
            ndim: 3,
            vec,
            bcast: 0,
        },
        I64,
    ));
    v.push((Variant::Tiled { staged: 1 << nout }, I32));
    v.push((Variant::Tiled { staged: 1 }, I64));
    let all = ((1u16 << (nout + nin)) - 1) as u8;
    if tiled_fits(types, all) {
        v.push((Variant::Tiled { staged: all }, I32));
    }
    v
}

/// Static shared memory of a `Tiled` kernel with 64-element tiles: one 64 x 65 tile per
/// staged operand.
pub fn tiled_shared_bytes(types: &[DType], staged: u8) -> usize {
    let tile = 64;
    types
        .iter()
        .enumerate()
        .filter(|(k, _)| staged & (1 << k) != 0)
        .map(|(_, d)| tile * (tile + 1) * d.size())
        .sum()
}

/// Whether a `Tiled` kernel stays within the 48 KiB of static shared memory a kernel may
/// declare.
pub fn tiled_fits(types: &[DType], staged: u8) -> bool {
    tiled_shared_bytes(types, staged) <= 48 * 1024
}

/// `Tiled` specs whose 64-element tiles would need more than 48 KiB of static shared
/// memory (every operand column-major, e.g. `x.t().add_assign(&y.t())`): codegen gives
/// them 32-element tiles.
pub fn large_tiled_specs(d: DType) -> Vec<ElementwiseSpec> {
    let mut v = Vec::new();
    let mut push =
        |op: &'static str, body: &'static str, ins: &[DType], outs: &[DType], staged: u8| {
            let types: Vec<DType> = outs.iter().chain(ins).copied().collect();
            // Past 48 KiB even with 32-element tiles (three staged c128 operands), `refine`
            // falls back to the strided variant.
            let fits32 = tiled_shared_bytes(&types, staged) / (64 * 65) * (32 * 33) <= 48 * 1024;
            if !tiled_fits(&types, staged) && fits32 {
                v.push(spec_for(
                    op,
                    body,
                    ins,
                    outs,
                    &[],
                    Variant::Tiled { staged },
                    IndexWidth::I32,
                ));
            }
        };
    push("copy", COPY_BODY, &[d], &[d], 0b11);
    push("where", WHERE_BODY, &[DType::Bool, d, d], &[d], 0b1110);
    if d != DType::Bool {
        push("add", BinaryOp::Add.body(), &[d, d], &[d], 0b110);
        push("add", BinaryOp::Add.body(), &[d, d], &[d], 0b111);
    }
    v
}

fn push_all(
    out: &mut Vec<ElementwiseSpec>,
    op: &'static str,
    body: &'static str,
    ins: &[DType],
    outs: &[DType],
    scalars: &[DType],
    depth: Depth,
) {
    let types: Vec<DType> = outs.iter().chain(ins).copied().collect();
    for (variant, index) in variants(&types, outs.len(), ins.len(), depth) {
        out.push(spec_for(op, body, ins, outs, scalars, variant, index));
    }
}

/// `op` on two arrays of `d` (and with a scalar on either side where the library has it):
/// every variant for `add`, one per body for the others (the templates are shared; what
/// differs between ops is the body's types).
pub fn binary_specs(op: BinaryOp, d: DType) -> Vec<ElementwiseSpec> {
    let mut v = Vec::new();
    let out = if op.returns_bool() { DType::Bool } else { d };
    let depth = if op == BinaryOp::Add {
        Depth::Thorough
    } else {
        Depth::One
    };
    push_all(&mut v, op.name(), op.body(), &[d, d], &[out], &[], depth);
    if !op.returns_bool() {
        push_all(
            &mut v,
            op.name(),
            op.body_scalar_rhs(),
            &[d],
            &[out],
            &[d],
            Depth::One,
        );
        if OPERATORS.contains(&op) {
            push_all(
                &mut v,
                op.rname(),
                op.body_scalar_lhs(),
                &[d],
                &[out],
                &[d],
                Depth::One,
            );
        }
    }
    if op == BinaryOp::Add {
        v.push(spec_for(
            op.rname(),
            op.body_scalar_lhs(),
            &[d],
            &[out],
            &[d],
            Variant::Tiled { staged: 0b10 },
            IndexWidth::I32,
        ));
    }
    v
}

/// The complex element types.
pub const COMPLEX: [DType; 2] = [DType::C64, DType::C128];

/// The unary ops defined for `d`.
pub fn unary_specs(d: DType) -> Vec<ElementwiseSpec> {
    let mut v = Vec::new();
    for &op in UnaryOp::ALL {
        if !op.accepts(d) {
            continue;
        }
        let out = op.result(d);
        push_all(&mut v, op.name(), op.body(), &[d], &[out], &[], Depth::One);
    }
    v
}

/// The third round's catalogue on `d`: every binary op of the family tables that accepts
/// `d` (with an array and with a scalar on the right; `ldexp` with an `i32` operand),
/// `nan_to_num` and `isclose` of float types, and the bool operators' scalar forms. New
/// table lines are included without a change here.
pub fn catalogue_specs(d: DType) -> Vec<ElementwiseSpec> {
    let mut v = Vec::new();
    for &op in BinaryOp::ALL {
        if op.class() == OpClass::Legacy || !op.accepts(d) {
            continue;
        }
        let rhs = if op.class() == OpClass::Special {
            DType::I32
        } else {
            d
        };
        let out = op.result(d);
        push_all(
            &mut v,
            op.name(),
            op.body(),
            &[d, rhs],
            &[out],
            &[],
            Depth::One,
        );
        push_all(
            &mut v,
            op.name(),
            op.body_scalar_rhs(),
            &[d],
            &[out],
            &[rhs],
            Depth::One,
        );
    }
    // The strided form once per type (broadcast and strided operands share the template).
    if let Some(&op) = BinaryOp::ALL
        .iter()
        .find(|op| op.class() != OpClass::Legacy && op.accepts(d))
    {
        v.push(spec_for(
            op.name(),
            op.body(),
            &[d, d],
            &[op.result(d)],
            &[],
            Variant::Strided { ndim: 2 },
            IndexWidth::I64,
        ));
    }
    if d.is_float() {
        push_all(
            &mut v,
            "nan_to_num",
            NAN_TO_NUM_BODY,
            &[d],
            &[d],
            &[d, d, d],
            Depth::One,
        );
        push_all(
            &mut v,
            "isclose",
            ISCLOSE_BODY,
            &[d, d],
            &[DType::Bool],
            &[DType::F64, DType::F64, DType::Bool],
            Depth::Basic,
        );
    }
    if d == DType::Bool {
        for op in LOGICAL {
            push_all(
                &mut v,
                op.name(),
                op.body_scalar_rhs(),
                &[d],
                &[d],
                &[d],
                Depth::One,
            );
        }
    }
    v
}

/// Comparisons and logical ops whose operands are `d`.
pub fn predicate_specs(d: DType) -> Vec<ElementwiseSpec> {
    let mut v = Vec::new();
    for op in COMPARE {
        if (d == DType::Bool || d.is_complex()) && !matches!(op, BinaryOp::Eq | BinaryOp::Ne) {
            continue;
        }
        push_all(
            &mut v,
            op.name(),
            op.body(),
            &[d, d],
            &[DType::Bool],
            &[],
            Depth::One,
        );
        // With a scalar on the right (`x.gt(0.0)`).
        push_all(
            &mut v,
            op.name(),
            op.body_scalar_rhs(),
            &[d],
            &[DType::Bool],
            &[d],
            Depth::One,
        );
    }
    if d == DType::Bool {
        for op in LOGICAL {
            push_all(&mut v, op.name(), op.body(), &[d, d], &[d], &[], Depth::One);
        }
    }
    v
}

/// `where_` with `d` values, and `clip` of `d`.
pub fn select_specs(d: DType) -> Vec<ElementwiseSpec> {
    let mut v = Vec::new();
    push_all(
        &mut v,
        "where",
        WHERE_BODY,
        &[DType::Bool, d, d],
        &[d],
        &[],
        Depth::Basic,
    );
    if d != DType::Bool && !d.is_complex() {
        push_all(&mut v, "clip", CLIP_BODY, &[d], &[d], &[d, d], Depth::One);
    }
    v
}

/// `complex(re, im)` into the complex type `c`, and the ops with a real scalar that the
/// complex methods launch (the scalar made complex on the host: the kernels are those of
/// [`binary_specs`]).
pub fn complex_specs(c: DType) -> Vec<ElementwiseSpec> {
    let mut v = Vec::new();
    let r = c.real();
    push_all(
        &mut v,
        "complex",
        COMPLEX_BODY,
        &[r, r],
        &[c],
        &[],
        Depth::Thorough,
    );
    v
}

/// Casts from `d` to every dtype (flat), and to a few through tiles (transposed input).
pub fn cast_specs(d: DType) -> Vec<ElementwiseSpec> {
    let mut v = Vec::new();
    for u in DType::ALL {
        v.push(spec_for(
            "cast",
            CAST_BODY,
            &[d],
            &[u],
            &[],
            Variant::Vectorized {
                vec: vec_for(&[d, u]),
            },
            IndexWidth::I32,
        ));
    }
    v.push(spec_for(
        "cast",
        CAST_BODY,
        &[d],
        &[d],
        &[],
        Variant::Tiled { staged: 0b10 },
        IndexWidth::I32,
    ));
    v
}

/// Copies of `d` in every variant.
pub fn copy_specs(d: DType) -> Vec<ElementwiseSpec> {
    let mut v = Vec::new();
    push_all(&mut v, "copy", COPY_BODY, &[d], &[d], &[], Depth::Thorough);
    v
}

/// The creation kernels for `d`: full, eye, arange, linspace.
pub fn create_specs(d: DType) -> Vec<ElementwiseSpec> {
    let mut v = Vec::new();
    push_all(&mut v, "full", FILL_BODY, &[], &[d], &[d], Depth::Basic);
    push_all(
        &mut v,
        "eye",
        EYE_BODY,
        &[],
        &[d],
        &[DType::I64],
        Depth::Basic,
    );
    if d.is_complex() {
        return v;
    }
    if d.is_float() {
        push_all(
            &mut v,
            "arange_f",
            ARANGE_F_BODY,
            &[],
            &[d],
            &[DType::F64, DType::F64],
            Depth::Basic,
        );
        let s = [DType::F64, DType::F64, DType::I64, DType::F64];
        push_all(
            &mut v,
            "linspace",
            LINSPACE_BODY,
            &[],
            &[d],
            &s,
            Depth::Basic,
        );
    } else if d != DType::Bool {
        push_all(
            &mut v,
            "arange_i",
            ARANGE_I_BODY,
            &[],
            &[d],
            &[DType::I64, DType::I64],
            Depth::Basic,
        );
    }
    v
}

/// The FFT module's own kernels: the normalisation pass (f32, f64) and the frequencies.
pub fn fft_specs() -> Vec<ElementwiseSpec> {
    use cuarray::testing::fft::{FFTFREQ_BODY, FFT_SCALE_BODY, RFFTFREQ_BODY};
    let mut v = Vec::new();
    for d in [DType::F32, DType::F64] {
        push_all(
            &mut v,
            "fft_scale",
            FFT_SCALE_BODY,
            &[d],
            &[d],
            &[d],
            Depth::Basic,
        );
    }
    let freq = [DType::F64, DType::I64, DType::I64];
    push_all(
        &mut v,
        "fftfreq",
        FFTFREQ_BODY,
        &[],
        &[DType::F64],
        &freq,
        Depth::Basic,
    );
    push_all(
        &mut v,
        "rfftfreq",
        RFFTFREQ_BODY,
        &[],
        &[DType::F64],
        &[DType::F64],
        Depth::Basic,
    );
    v
}

/// Every spec above, for every dtype.
pub fn all_specs() -> Vec<ElementwiseSpec> {
    let mut v = Vec::new();
    for d in DType::ALL {
        if d != DType::Bool {
            for op in ARITH {
                if !d.is_complex() || op.complex_ok() {
                    v.extend(binary_specs(op, d));
                }
            }
        }
        if d.is_complex() {
            v.extend(complex_specs(d));
        }
        v.extend(unary_specs(d));
        v.extend(catalogue_specs(d));
        v.extend(predicate_specs(d));
        v.extend(select_specs(d));
        v.extend(cast_specs(d));
        v.extend(copy_specs(d));
        v.extend(create_specs(d));
    }
    v.extend(fft_specs());
    v
}
