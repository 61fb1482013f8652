//! Rendering a trace into kernel text: one SSA line per live node, each materialised in
//! its own dtype (so that f16/bf16 round after every operation and integers wrap, as
//! the unfused operations do), with the catalogue's device functions.
//!
//! `f32`/`f64` additions, subtractions and multiplications are written with the `_rn`
//! intrinsics, which the compiler never contracts into a fused multiply-add: `a * b + c`
//! fused rounds twice, as the two unfused kernels do, and gives the same bits.

use super::trace::{Node, Op, Traced};
use crate::element::DType;
use crate::ops::catalogue::{BinaryOp, UnaryOp};
use std::fmt::Write as _;

/// Where each parameter of the closure goes for one array/scalar pattern.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Slot {
    /// Array input `in{k}`.
    Array(usize),
    /// Scalar parameter `s{k}`.
    Scalar(usize),
}

/// The parameters' slots for the pattern `mask` (bit k: parameter k is an array), the
/// scalar arguments placed after `first_scalar` (the op's own scalars) and the trace's
/// constants.
pub(crate) fn slots(t: &Traced, mask: u32, first_scalar: usize) -> Vec<Slot> {
    let (mut a, mut s) = (0, first_scalar + t.consts.len());
    (0..t.inputs.len())
        .map(|k| {
            if mask & (1 << k) != 0 {
                a += 1;
                Slot::Array(a - 1)
            } else {
                s += 1;
                Slot::Scalar(s - 1)
            }
        })
        .collect()
}

/// The name of each live node's value.
fn names(t: &Traced, slots: &[Slot], first_scalar: usize) -> Vec<String> {
    let mut consts = t.consts.iter().enumerate();
    t.nodes
        .iter()
        .enumerate()
        .map(|(i, n)| {
            if !t.live[i] {
                return String::new();
            }
            match n.op {
                Op::Input(k) => match slots[k as usize] {
                    Slot::Array(j) => format!("in{j}"),
                    Slot::Scalar(j) => format!("s{j}"),
                },
                Op::Const(_) => {
                    let (slot, _) = consts
                        .find(|(_, c)| c.0 == i as u32)
                        .expect("every live constant has a slot");
                    format!("s{}", first_scalar + slot)
                }
                _ => format!("v{i}"),
            }
        })
        .collect()
}

/// The `_rn` intrinsic of `op` on `d`, when there is one.
fn rn(op: BinaryOp, d: DType) -> Option<&'static str> {
    Some(match (op, d) {
        (BinaryOp::Add, DType::F32) => "__fadd_rn",
        (BinaryOp::Sub, DType::F32) => "__fsub_rn",
        (BinaryOp::Mul, DType::F32) => "__fmul_rn",
        (BinaryOp::Add, DType::F64) => "__dadd_rn",
        (BinaryOp::Sub, DType::F64) => "__dsub_rn",
        (BinaryOp::Mul, DType::F64) => "__dmul_rn",
        _ => return None,
    })
}

/// For integer types: the unsigned type their `+ - *` wrap in. C++ leaves signed overflow
/// undefined, and the compiler uses that across a fused expression (`(x * y) / y - x`
/// becomes 0); an unfused operation stores its wrapped result, so its neighbours never
/// see the overflow. Unsigned arithmetic wraps by definition, and its low bits are the
/// wrapped signed result.
fn wrapping(d: DType) -> Option<&'static str> {
    match d {
        DType::I8 | DType::I16 | DType::I32 | DType::U8 | DType::U16 | DType::U32 => {
            Some("unsigned int")
        }
        DType::I64 | DType::U64 => Some("unsigned long long"),
        _ => None,
    }
}

/// The expression computing node `n` from its operands' names.
fn expr(nodes: &[Node], n: &Node, name: &dyn Fn(u32) -> String) -> String {
    match n.op {
        Op::Input(_) | Op::Const(_) => unreachable!("inputs and constants have names"),
        Op::Unary(op, a) => {
            let d = nodes[a as usize].dtype;
            let ty = d.cuda_type();
            match (op, d, wrapping(d)) {
                (UnaryOp::Square, DType::F32 | DType::F64, _) => {
                    let f = rn(BinaryOp::Mul, d).unwrap_or_default();
                    format!("{f}({0}, {0})", name(a))
                }
                (UnaryOp::Square, _, Some(u)) => {
                    format!("({ty})(({u})({0}) * ({u})({0}))", name(a))
                }
                (UnaryOp::Neg, _, Some(u)) => format!("({ty})(({u})0 - ({u})({}))", name(a)),
                (UnaryOp::Abs, _, Some(u)) if d.is_signed_int() => {
                    format!(
                        "({0} < ({ty})0 ? ({ty})(({u})0 - ({u})({0})) : {0})",
                        name(a)
                    )
                }
                _ => format!("cuarray_{}({})", op.name(), name(a)),
            }
        }
        Op::Binary(op, a, b) => {
            let d = nodes[a as usize].dtype;
            let ty = d.cuda_type();
            let wrap_op = match op {
                BinaryOp::Add => Some('+'),
                BinaryOp::Sub => Some('-'),
                BinaryOp::Mul => Some('*'),
                _ => None,
            };
            match (rn(op, d), wrap_op.zip(wrapping(d))) {
                (Some(f), _) => format!("{f}({}, {})", name(a), name(b)),
                (None, Some((o, u))) => {
                    format!("({ty})(({u})({}) {o} ({u})({}))", name(a), name(b))
                }
                (None, None) => format!("cuarray_{}({}, {})", op.name(), name(a), name(b)),
            }
        }
        Op::Cast(a) => format!("cuarray_cast<{}>({})", n.dtype.cuda_type(), name(a)),
        Op::Select(c, a, b) => format!("({} ? {} : {})", name(c), name(a), name(b)),
        Op::Clip(a, lo, hi) => format!("cuarray_clip({}, {}, {})", name(a), name(lo), name(hi)),
    }
}

/// The SSA lines of every live computed node, each on its own line after `pad`.
fn ssa(src: &mut String, t: &Traced, names: &[String], pad: &str) {
    let name = |k: u32| names[k as usize].clone();
    for (i, n) in t.nodes.iter().enumerate() {
        if !t.live[i] || matches!(n.op, Op::Input(_) | Op::Const(_)) {
            continue;
        }
        let _ = writeln!(
            src,
            "{pad}const {} v{i} = {};",
            n.dtype.cuda_type(),
            expr(&t.nodes, n, &name)
        );
    }
}

/// The elementwise body for the pattern `mask`: the SSA lines, then `out{k} = <root k>`.
pub(crate) fn elementwise(t: &Traced, mask: u32) -> String {
    let slots = slots(t, mask, 0);
    let names = names(t, &slots, 0);
    let mut src = String::from("\n");
    ssa(&mut src, t, &names, "        ");
    for (k, &r) in t.roots.iter().enumerate() {
        let _ = writeln!(src, "        out{k} = {};", names[r as usize]);
    }
    src.push_str("    ");
    src
}

/// The pre-map of a trailing reduction for the pattern `mask`, with `first_scalar` op
/// scalars before the constants: the extra inputs read at `o_`, the SSA lines, then the
/// op's own pre-map `op_pre` applied to the root (seen as `in0` of type `in0_t`).
pub(crate) fn pre_map(t: &Traced, mask: u32, first_scalar: usize, op_pre: &str) -> String {
    let slots = slots(t, mask, first_scalar);
    let names = names(t, &slots, first_scalar);
    let mut src = String::from("\n");
    for s in &slots {
        if let Slot::Array(j) = *s {
            if j > 0 {
                let _ = writeln!(src, "        const in{j}_t in{j} = p_in{j}[o_];");
            }
        }
    }
    ssa(&mut src, t, &names, "        ");
    let r = t.roots[0] as usize;
    // Through `r_`: the root may itself be `in0`, which the block shadows.
    let ty = t.nodes[r].dtype.cuda_type();
    let _ = writeln!(
        src,
        "        const {ty} r_ = {};\n        {{ typedef {ty} in0_t; const in0_t in0 = r_; {op_pre} }}",
        names[r]
    );
    src.push_str("    ");
    src
}
