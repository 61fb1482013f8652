//! The call path of a fused function: the code generated per array/scalar pattern of
//! the arguments (cached), the checks on arguments and outputs, and the launch of the
//! elementwise kernel or of the reduction (one kernel, or two through a temporary).

use super::render;
use super::trace::{Tail, Traced};
use super::OP;
use crate::array::check_writable;
use crate::kernels::abi::Scalar;
use crate::kernels::cache::Fnv;
use crate::kernels::{Text, MAX_OPERANDS, MAX_SCALARS};
use crate::ops::catalogue::{ReduceDef, ReduceOp};
use crate::ops::elementwise::{run_code, Code};
use crate::ops::reduce::{plan_reduce, run_def_with};
use crate::ops::Operand;
use crate::shape::Layout;
use crate::user_kernels::{broadcast_args, operands, Arg, ArgList, KernelOutputs};
use crate::{Device, Error, Result};
use std::borrow::Cow;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, RwLock};

pub(super) struct Inner {
    pub(super) traced: std::result::Result<Traced, String>,
    /// Generated code by the parameters' array/scalar pattern (bit k: parameter k is an
    /// array).
    code: RwLock<Vec<(u32, Arc<Gen>)>>,
}

/// The generated code of one array/scalar pattern.
pub(super) struct Gen {
    /// Elementwise: the outputs; with a reduction, its input (for the two-kernel path).
    pub(super) ew: Code,
    /// The reduction with the expression as its pre-map, and its name.
    pub(super) red: Option<(Text, ReduceDef)>,
    /// Constants and op scalars before the scalar arguments: the trace's constants.
    consts: Vec<Scalar>,
}

/// Scalars a reduction's post-map reads before the constants (`mean`'s count).
pub(super) fn op_scalars(op: ReduceOp) -> usize {
    usize::from(op == ReduceOp::Mean)
}

fn name_of(body: &str) -> Text {
    let mut h = Fnv::default();
    body.hash(&mut h);
    Text::shared(format!("fused_{:016x}", h.finish()))
}

impl Inner {
    /// A fused function's state from its trace (or the error found while tracing).
    pub(super) fn new(traced: std::result::Result<Traced, String>) -> Self {
        Inner {
            traced,
            code: RwLock::new(Vec::new()),
        }
    }

    pub(super) fn traced(&self) -> Result<&Traced> {
        self.traced.as_ref().map_err(|e| Error::fusion(e.clone()))
    }

    /// The code for the pattern `mask`, generated on first use.
    pub(super) fn gen(&self, mask: u32) -> Result<Arc<Gen>> {
        if let Some((_, g)) = self
            .code
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .find(|(m, _)| *m == mask)
        {
            return Ok(g.clone());
        }
        let t = self.traced()?;
        let ew_body = render::elementwise(t, mask);
        let ew = Code {
            op: name_of(&ew_body),
            body: Text::shared(ew_body),
            preamble: Text::EMPTY,
        };
        let red = t.tail.as_ref().map(|tail| {
            let d = t.nodes[t.roots[0] as usize].dtype;
            let mut def = tail.op.def(d);
            let pre = render::pre_map(t, mask, op_scalars(tail.op), &def.pre);
            let name = name_of(&pre);
            def.pre = Text::shared(pre);
            (name, def)
        });
        let g = Arc::new(Gen {
            ew,
            red,
            consts: t.consts.iter().map(|c| c.1).collect(),
        });
        let mut all = self.code.write().unwrap_or_else(|p| p.into_inner());
        if let Some((_, g)) = all.iter().find(|(m, _)| *m == mask) {
            return Ok(g.clone());
        }
        all.push((mask, g.clone()));
        Ok(g)
    }

    /// The pattern of `list` and its number of arrays.
    fn mask(list: &ArgList<'_>) -> (u32, usize) {
        let mut mask = 0u32;
        let mut n = 0;
        for (k, a) in list.iter().enumerate() {
            if let Arg::Array(_) = a {
                mask |= 1 << k;
                n += 1;
            }
        }
        (mask, n)
    }

    fn check_counts(&self, t: &Traced, arrays: usize, outputs: usize) -> Result<()> {
        if arrays + outputs > MAX_OPERANDS {
            return Err(Error::fusion(format!(
                "{arrays} array arguments and {outputs} outputs: one kernel takes at most \
                 {MAX_OPERANDS} arrays in all (pass some values as scalars, or split the function)"
            )));
        }
        let scalars = t.consts.len() + (t.inputs.len() - arrays) + 1;
        if scalars > MAX_SCALARS {
            return Err(Error::fusion(format!(
                "{} distinct constants and {} scalar arguments: one kernel takes at most \
                 {MAX_SCALARS} scalar parameters (pass some as arrays, or split the function)",
                t.consts.len(),
                t.inputs.len() - arrays
            )));
        }
        Ok(())
    }

    pub(super) fn call<O: KernelOutputs>(&self, list: &ArgList<'_>) -> Result<O> {
        let t = self.traced()?;
        let (mask, arrays) = Self::mask(list);
        self.check_counts(t, arrays, O::DTYPES.len())?;
        let Some((device, shape)) = broadcast_args(OP, list)? else {
            return Err(no_array());
        };
        let g = self.gen(mask)?;
        match &t.tail {
            None => {
                let outs = O::alloc(device, &shape)?;
                let mut out_list = ArgList::new();
                outs.push_all(&mut out_list);
                elementwise(device, &g, list, &out_list, &shape)?;
                Ok(outs)
            }
            Some(tail) => {
                let first = first_array(list)?;
                let in0 = first.operand_as(&shape)?;
                let p = plan(device, tail, &in0, &shape)?;
                let outs = O::alloc(device, &p.out_shape)?;
                let mut out_list = ArgList::new();
                outs.push_all(&mut out_list);
                reduction(device, t, tail, &g, list, &out_list, &shape, &p)?;
                Ok(outs)
            }
        }
    }

    pub(super) fn call_into(&self, list: &ArgList<'_>, outs: &ArgList<'_>) -> Result<()> {
        let t = self.traced()?;
        let (mask, arrays) = Self::mask(list);
        self.check_counts(t, arrays, outs.count())?;
        let Some((device, shape)) = broadcast_args(OP, list)? else {
            return Err(no_array());
        };
        let g = self.gen(mask)?;
        for o in outs.iter() {
            let Arg::Array(o) = o else {
                unreachable!("outputs are arrays")
            };
            check_writable(OP, o.layout())?;
            for a in list.iter() {
                if let Arg::Array(a) = a {
                    if a.shares_buffer(&o)
                        && (t.tail.is_some() || !same_view(a.layout(), o.layout(), &shape))
                    {
                        return Err(Error::invalid(
                            OP,
                            "an output shares memory with an input through another layout \
                             (an in-place update must write the input's own view; copy() it first)",
                        ));
                    }
                }
            }
        }
        match &t.tail {
            None => {
                // The inputs broadcast to the outputs' shape.
                let mut out_shape: Option<&[usize]> = None;
                for o in outs.iter() {
                    if let Arg::Array(o) = o {
                        let s = o.layout().shape();
                        match out_shape {
                            None => out_shape = Some(s),
                            Some(f) if f != s => {
                                return Err(Error::ShapeMismatch {
                                    op: OP,
                                    msg: "the outputs differ in shape".into(),
                                    lhs: f.to_vec(),
                                    rhs: s.to_vec(),
                                })
                            }
                            Some(_) => {}
                        }
                    }
                }
                let out_shape = out_shape.unwrap_or(&shape);
                if out_shape != &*shape {
                    let b = crate::shape::broadcast_shapes(OP, &shape, out_shape)?;
                    if b != out_shape {
                        return Err(Error::Broadcast {
                            op: OP,
                            lhs: shape.to_vec(),
                            rhs: out_shape.to_vec(),
                        });
                    }
                }
                elementwise(device, &g, list, outs, out_shape)
            }
            Some(tail) => {
                let first = first_array(list)?;
                let in0 = first.operand_as(&shape)?;
                let p = plan(device, tail, &in0, &shape)?;
                if let Some(Arg::Array(o)) = outs.iter().next() {
                    if o.layout().shape() != p.out_shape.as_slice() || !o.layout().is_c_contiguous()
                    {
                        return Err(Error::ShapeMismatch {
                            op: OP,
                            msg: "the output of a reduction must be C-contiguous, of the reduced shape".into(),
                            lhs: o.layout().shape().to_vec(),
                            rhs: p.out_shape.clone(),
                        });
                    }
                }
                reduction(device, t, tail, &g, list, outs, &shape, &p)
            }
        }
    }
}

/// True when `a`, broadcast to `shape`, and `o` address the same elements in the same
/// order (an in-place update reads each element before writing it).
fn same_view(a: &Layout, o: &Layout, shape: &[usize]) -> bool {
    match a.broadcast_to(shape) {
        Ok(b) => b.shape() == o.shape() && b.strides() == o.strides() && b.offset() == o.offset(),
        Err(_) => false,
    }
}

pub(super) fn no_array() -> Error {
    Error::fusion(
        "no argument is an array: a fused function's result takes its shape and device from \
         its array arguments",
    )
}

fn first_array<'a>(list: &ArgList<'a>) -> Result<crate::array::ArrayRef<'a>> {
    list.iter()
        .find_map(|a| match a {
            Arg::Array(a) => Some(a),
            Arg::Scalar(_) => None,
        })
        .ok_or_else(no_array)
}

fn plan(
    device: &Device,
    tail: &Tail,
    in0: &Operand<'_>,
    shape: &[usize],
) -> Result<crate::ops::reduce::ReducePlan> {
    let p = plan_reduce(
        in0.layout(),
        tail.axes.as_deref(),
        tail.keepdims,
        tail.op.is_arg(),
        device.multiprocessor_count(),
    )?;
    if tail.op.needs_elements() && p.n_red == 0 {
        return Err(Error::EmptyReduction {
            op: tail.op.name(),
            shape: shape.to_vec(),
        });
    }
    Ok(p)
}

/// The elementwise launch: outputs `outs`, arguments `list` broadcast to `shape`.
fn elementwise(
    device: &Device,
    g: &Gen,
    list: &ArgList<'_>,
    outs: &ArgList<'_>,
    shape: &[usize],
) -> Result<()> {
    let mut scalars = [Scalar::of(0u8); MAX_SCALARS];
    let (out_ops, in_ops, n) =
        operands(OP, device, list, outs, shape, &g.consts, &[], &mut scalars)?;
    run_code(device, &g.ew, &out_ops, &in_ops, &scalars[..n])
}

/// The reduction: one kernel when every array argument, broadcast to `shape`, has the
/// first one's strides; else the expression into a temporary, then the reduction.
#[allow(clippy::too_many_arguments)]
fn reduction(
    device: &Device,
    t: &Traced,
    tail: &Tail,
    g: &Gen,
    list: &ArgList<'_>,
    outs: &ArgList<'_>,
    shape: &[usize],
    p: &crate::ops::reduce::ReducePlan,
) -> Result<()> {
    let Some(Arg::Array(out)) = outs.iter().next() else {
        unreachable!("a reduction has one output")
    };
    out.used_by(OP, device)?;
    let out = out.operand_as(out.layout().shape())?;
    let count = Scalar::of(p.n_red as f64);
    let nop = op_scalars(tail.op);
    let mut before = [count; MAX_SCALARS];
    if g.consts.len() + nop > MAX_SCALARS {
        return Err(Error::fusion("too many constants for one kernel"));
    }
    before[nop..nop + g.consts.len()].copy_from_slice(&g.consts);
    let none = ArgList::new();
    let mut scalars = [Scalar::of(0u8); MAX_SCALARS];
    let (_, in_ops, n) = operands(
        OP,
        device,
        list,
        &none,
        shape,
        &before[..nop + g.consts.len()],
        &[],
        &mut scalars,
    )?;
    let (in0, extra) = in_ops.split_first().ok_or_else(no_array)?;
    let same = extra
        .iter()
        .all(|x| x.layout().strides() == in0.layout().strides());
    if let (true, Some((name, def))) = (same, &g.red) {
        return run_def_with(
            device,
            name,
            def,
            p,
            in0,
            extra,
            None,
            &out,
            None,
            &scalars[..n],
        );
    }
    // Two kernels: the expression into a C-contiguous temporary, then the reduction.
    let d = t.nodes[t.roots[0] as usize].dtype;
    let size: usize = shape.iter().product();
    let buf = crate::device::DeviceBuffer::alloc(device, size * d.size())?;
    let tmp = Operand::new(&buf, Cow::Owned(Layout::contiguous(shape)), d)?;
    run_code(device, &g.ew, &[tmp], &in_ops, &scalars[nop..n])?;
    let tmp = Operand::new(&buf, Cow::Owned(Layout::contiguous(shape)), d)?;
    let p2 = plan(device, tail, &tmp, shape)?;
    crate::ops::reduce::run(device, tail.op, &p2, &tmp, &out, None, &scalars[..nop])
}
