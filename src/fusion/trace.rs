//! The trace: while `fuse` runs its closure, every operation on an [`Expr`](super::Expr)
//! adds a node to the builder on top of a thread-local stack. Nodes are hash-consed (the
//! same operation on the same operands is one node) and topologically ordered (an
//! operand always comes before its users).

use crate::element::DType;
use crate::kernels::abi::Scalar;
use crate::ops::catalogue::{BinaryOp, ReduceOp, UnaryOp};
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};

/// Most operations in one fused function (a bigger closure compiles slowly and spills
/// registers; split it in two).
pub(crate) const MAX_NODES: usize = 2048;

/// One operation of the trace; operands are node ids.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(crate) enum Op {
    /// The closure's parameter `k`.
    Input(u8),
    /// A constant: the bits of one element (`Scalar::word`), passed as a kernel parameter.
    Const(u128),
    Unary(UnaryOp, u32),
    Binary(BinaryOp, u32, u32),
    /// A conversion to the node's dtype (`astype`).
    Cast(u32),
    /// `cond ? a : b`.
    Select(u32, u32, u32),
    /// `clip(x, lo, hi)`.
    Clip(u32, u32, u32),
}

/// An operation and the dtype of its result.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(crate) struct Node {
    pub(crate) op: Op,
    pub(crate) dtype: DType,
}

/// The trailing reduction of a fused function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Tail {
    pub(crate) op: ReduceOp,
    /// Axes reduced (`None`: all).
    pub(crate) axes: Option<Vec<isize>>,
    pub(crate) keepdims: bool,
}

/// The builder of one trace.
pub(crate) struct Builder {
    id: u32,
    nodes: Vec<Node>,
    index: HashMap<Node, u32>,
    error: Option<String>,
}

thread_local! {
    /// Traces under way on this thread, innermost last (a `fuse` inside a closure).
    static STACK: RefCell<Vec<Builder>> = const { RefCell::new(Vec::new()) };
}

static NEXT_TRACE: AtomicU32 = AtomicU32::new(1);

impl Builder {
    fn fail(&mut self, msg: String) {
        if self.error.is_none() {
            self.error = Some(msg);
        }
    }

    fn add(&mut self, node: Node) -> u32 {
        if let Some(&id) = self.index.get(&node) {
            return id;
        }
        if self.nodes.len() >= MAX_NODES {
            self.fail(format!(
                "the closure has more than {MAX_NODES} operations; one kernel holds at most \
                 {MAX_NODES} (split it into two fused functions)"
            ));
            return 0;
        }
        let id = self.nodes.len() as u32;
        self.nodes.push(node);
        self.index.insert(node, id);
        id
    }
}

/// Adds `node` (whose operands come from the traces `traces`) to the trace under way and
/// returns its id.
///
/// # Panics
/// When no trace is under way on this thread: an `Expr` used outside the closure of
/// `fuse` (kept in a variable that outlived it, or sent to another thread).
pub(crate) fn push(traces: &[u32], node: Node) -> (u32, u32) {
    STACK.with(|s| {
        let mut s = s.borrow_mut();
        let Some(b) = s.last_mut() else {
            drop(s);
            panic!(
                "cuarray::Expr used outside the closure given to cuarray::fuse: an Expr only \
                 exists while its closure is traced (on the thread that called fuse)"
            );
        };
        if traces.iter().any(|&t| t != b.id) {
            b.fail(
                "an Expr of another fused function was used in this closure (one kept from \
                 an earlier trace, or from an enclosing fuse); each closure may only combine \
                 its own parameters"
                    .into(),
            );
            return (0, b.id);
        }
        (b.add(node), b.id)
    })
}

/// The id of the innermost trace under way on this thread.
///
/// # Panics
/// When no trace is under way.
pub(crate) fn current() -> u32 {
    STACK
        .with(|s| s.borrow().last().map(|b| b.id))
        .unwrap_or_else(|| panic!("cuarray::lit used outside the closure given to cuarray::fuse"))
}

/// Pops the builder even when the closure panics.
struct Pop;
impl Drop for Pop {
    fn drop(&mut self) {
        STACK.with(|s| {
            s.borrow_mut().pop();
        });
    }
}

/// What a trace gives: its nodes, the roots (outputs, or the reduction's input) and the
/// trailing reduction; or the error that makes it unusable.
#[derive(Debug)]
pub(crate) struct Traced {
    pub(crate) nodes: Vec<Node>,
    /// The closure's parameter dtypes.
    pub(crate) inputs: Vec<DType>,
    /// Output nodes (one per output), or the one node the reduction reduces.
    pub(crate) roots: Vec<u32>,
    pub(crate) tail: Option<Tail>,
    /// Nodes the roots depend on.
    pub(crate) live: Vec<bool>,
    /// The live constants, in the order of their scalar slots.
    pub(crate) consts: Vec<(u32, Scalar)>,
}

/// Runs `f` as a trace with parameters of `inputs`' dtypes (given as `(node, trace)`
/// handles); `f` returns the roots and the tail from its result.
pub(crate) fn trace(
    inputs: &[DType],
    f: impl FnOnce(&[(u32, u32)]) -> (Vec<(u32, u32)>, Option<Tail>),
) -> Result<Traced, String> {
    let id = NEXT_TRACE.fetch_add(1, Ordering::Relaxed);
    let mut b = Builder {
        id,
        nodes: Vec::new(),
        index: HashMap::new(),
        error: None,
    };
    if inputs.len() > 32 {
        return Err(format!(
            "{} parameters; a fused function takes at most 32",
            inputs.len()
        ));
    }
    let params: Vec<(u32, u32)> = inputs
        .iter()
        .enumerate()
        .map(|(k, &dtype)| {
            (
                b.add(Node {
                    op: Op::Input(k as u8),
                    dtype,
                }),
                id,
            )
        })
        .collect();
    STACK.with(|s| s.borrow_mut().push(b));
    let out = {
        // Pops the builder if the closure panics.
        let guard = Pop;
        let _tracing = crate::kernels::abi::Tracing::enter();
        let out = f(&params);
        std::mem::forget(guard);
        out
    };
    let b = STACK
        .with(|s| s.borrow_mut().pop())
        .expect("the trace's builder is on the stack");
    Ok(finish(inputs, b_out(b, out)?))
}

type Out = (Vec<(u32, u32)>, Option<Tail>);

/// Checks the result of the closure against its builder.
fn b_out(b: Builder, (roots, tail): Out) -> Result<(Builder, Vec<u32>, Option<Tail>), String> {
    if let Some(e) = b.error {
        return Err(e);
    }
    if roots.iter().any(|&(_, t)| t != b.id) {
        return Err(
            "the closure returned an Expr of another fused function; it must return \
             expressions of its own parameters"
                .into(),
        );
    }
    let roots = roots.into_iter().map(|(n, _)| n).collect();
    Ok((b, roots, tail))
}

fn finish(inputs: &[DType], (b, roots, tail): (Builder, Vec<u32>, Option<Tail>)) -> Traced {
    let nodes = b.nodes;
    let mut live = vec![false; nodes.len()];
    for &r in &roots {
        live[r as usize] = true;
    }
    for i in (0..nodes.len()).rev() {
        if !live[i] {
            continue;
        }
        let mut mark = |k: u32| live[k as usize] = true;
        match nodes[i].op {
            Op::Input(_) | Op::Const(_) => {}
            Op::Unary(_, a) | Op::Cast(a) => mark(a),
            Op::Binary(_, a, b) => {
                mark(a);
                mark(b)
            }
            Op::Select(a, b, c) | Op::Clip(a, b, c) => {
                mark(a);
                mark(b);
                mark(c)
            }
        }
    }
    let consts = nodes
        .iter()
        .enumerate()
        .filter(|(i, _)| live[*i])
        .filter_map(|(i, n)| match n.op {
            Op::Const(w) => Some((i as u32, Scalar::from_word(n.dtype, w))),
            _ => None,
        })
        .collect();
    Traced {
        nodes,
        inputs: inputs.to_vec(),
        roots,
        tail,
        live,
        consts,
    }
}
