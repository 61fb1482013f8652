//! Tensor contractions: [`einsum`], [`tensordot`], [`kron`], [`inner`] and [`vdot`]
//! (crate-root functions, as NumPy's), and `linalg::multi_dot`.
//!
//! # How einsum runs
//! The subscripts are parsed against the shapes ([`crate::shape::einsum`]); each operand
//! becomes a view whose repeated letters are one diagonal axis (a stride sum, no copy)
//! and whose extents of 1 broadcast (stride 0); letters that appear in one operand only
//! and not in the output are summed first (the reduction family). The operands are then
//! contracted two at a time in the greedy order of opt_einsum: each pair is permuted (a
//! view) into batch x rows x inner and batch x inner x cols and multiplied by one batched
//! cuBLAS GEMM, reading row- or column-major views in place (a copy only when no grouping
//! of the axes is a plain matrix); a pair with no letter to sum is a broadcast elementwise
//! product instead. The result is a view of the last product in the output's order.

mod products;

pub use products::{inner, kron, multi_dot, tensordot, vdot, Axes};

use crate::array::DeviceArray;
use crate::element::ArithElement;
use crate::libs::blas::GemmElement;
use crate::ops::reduce::ReduceOp;
use crate::shape::einsum::{greedy_path, kept_labels, pair_contraction, parse_einsum, Label};
use crate::shape::Layout;
use crate::Result;
use std::collections::BTreeSet;

/// The element types of [`einsum`] and the other contractions: those of
/// [`matmul`](DeviceArray::matmul) (`f32`, `f64`, `f16`, `bf16`, `Complex32`,
/// `Complex64`).
pub trait ContractElement: GemmElement + ArithElement {}
impl<T: GemmElement + ArithElement> ContractElement for T {}

/// An operand in flight: a view and the label of each of its axes (each label once).
pub(crate) struct Term<T: ContractElement> {
    pub(crate) a: DeviceArray<T>,
    pub(crate) labels: Vec<Label>,
}

/// NumPy's `einsum`: Einstein summation over the operands as the subscripts say.
///
/// `spec` is NumPy's: terms of letters (`a-z`, `A-Z`) separated by commas, an optional
/// `->` and output term; `...` stands for broadcast dimensions; a letter repeated within
/// a term takes a diagonal (`"ii->i"`), a letter missing from the output is summed.
/// Without `->` the output is the `...` dimensions then the letters that appear once, in
/// alphabetical order. Extents of 1 broadcast. Any number of operands; the order of the
/// pairwise products is opt_einsum's greedy one; each product is one batched cuBLAS call
/// on views of the operands. No conjugation (as NumPy). The result may be a view (of a
/// permuted product, or of the operand itself for a pure transpose `"ij->ji"`).
///
/// ```no_run
/// use cuarray::{einsum, Device, DeviceArray};
/// let dev = Device::new(0)?;
/// let a = DeviceArray::<f32>::arange(&dev, 0.0, 6.0, 1.0)?.reshape(&[2, 3])?;
/// let b = DeviceArray::<f32>::ones(&dev, &[3, 4])?;
/// assert_eq!(einsum("ij,jk->ik", &[&a, &b])?.shape(), &[2, 4]);
/// assert_eq!(einsum("ij->", &[&a])?.to_scalar()?, 15.0);
/// assert_eq!(einsum("ij->ji", &[&a])?.shape(), &[3, 2]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`](crate::Error::InvalidArgument) naming the term or letter for
/// bad subscripts (an unknown character, a term count that is not the operand count, a
/// rank mismatch, an output letter no input has); [`Error::ShapeMismatch`](crate::Error::ShapeMismatch)
/// naming the letter whose extents differ; a device mismatch.
pub fn einsum<T: ContractElement>(
    spec: &str,
    operands: &[&DeviceArray<T>],
) -> Result<DeviceArray<T>> {
    let _range = crate::profile::range("einsum");
    let shapes: Vec<&[usize]> = operands.iter().map(|a| a.shape()).collect();
    let s = parse_einsum(spec, &shapes)?;
    if let Some(first) = operands.first() {
        for a in &operands[1..] {
            a.used_by("einsum", first.device())?;
        }
    }
    let mut terms: Vec<Term<T>> = Vec::with_capacity(operands.len());
    for (a, labels) in operands.iter().zip(&s.inputs) {
        terms.push(diagonal_view(a, labels, &s.sizes));
    }
    // Letters of one operand only, not in the output: summed first.
    let all: Vec<Vec<Label>> = terms.iter().map(|t| t.labels.clone()).collect();
    let mut terms: Vec<Term<T>> = terms
        .into_iter()
        .enumerate()
        .map(|(i, t)| sum_out(t, &kept_labels(&all, i, i, &s.output)))
        .collect::<Result<_>>()?;
    let labels: Vec<Vec<Label>> = terms.iter().map(|t| t.labels.clone()).collect();
    for (i, j) in greedy_path(&labels, &s.output, &s.sizes) {
        let all: Vec<Vec<Label>> = terms.iter().map(|t| t.labels.clone()).collect();
        let keep = kept_labels(&all, i, j, &s.output);
        let b = terms.remove(j);
        let a = terms.remove(i);
        terms.push(contract_pair(a, b, &keep)?);
    }
    let t = terms.pop().expect("one term left");
    let perm: Vec<usize> = s
        .output
        .iter()
        .map(|l| {
            t.labels
                .iter()
                .position(|m| m == l)
                .expect("output label kept")
        })
        .collect();
    Ok(t.a.with_layout(t.a.layout().permute(&perm)?))
}

/// The view of `a` with one axis per distinct label (repeated labels: the diagonal, strides
/// summed) and extents of 1 broadcast to the label's extent (stride 0).
fn diagonal_view<T: ContractElement>(
    a: &DeviceArray<T>,
    labels: &[Label],
    sizes: &std::collections::BTreeMap<Label, usize>,
) -> Term<T> {
    let l = a.layout();
    let mut out_labels: Vec<Label> = Vec::new();
    let mut shape = Vec::new();
    let mut strides: Vec<isize> = Vec::new();
    for (k, &lab) in labels.iter().enumerate() {
        match out_labels.iter().position(|&m| m == lab) {
            Some(p) => strides[p] += l.strides()[k],
            None => {
                out_labels.push(lab);
                let e = l.shape()[k];
                let full = sizes[&lab];
                shape.push(full);
                strides.push(if e == 1 && full != 1 {
                    0
                } else {
                    l.strides()[k]
                });
            }
        }
    }
    Term {
        a: a.with_layout(Layout::from_parts(shape, strides, l.offset())),
        labels: out_labels,
    }
}

/// Sums the axes of `t` whose labels are not in `keep`.
fn sum_out<T: ContractElement>(t: Term<T>, keep: &BTreeSet<Label>) -> Result<Term<T>> {
    let axes: Vec<isize> = (0..t.labels.len())
        .filter(|&k| !keep.contains(&t.labels[k]))
        .map(|k| k as isize)
        .collect();
    if axes.is_empty() {
        return Ok(t);
    }
    let a =
        t.a.reduce::<T>(ReduceOp::Sum, Some(&axes), false, None, &[])?;
    let labels = t.labels.into_iter().filter(|l| keep.contains(l)).collect();
    Ok(Term { a, labels })
}

/// The positions of `labels` among `t`'s axes.
fn positions<T: ContractElement>(t: &Term<T>, labels: &[Label]) -> Vec<usize> {
    labels
        .iter()
        .map(|l| {
            t.labels
                .iter()
                .position(|m| m == l)
                .expect("label of the term")
        })
        .collect()
}

/// `labels` ordered by their stride in `t`, largest first (so that the grouped axes are
/// more often one plain matrix dimension).
fn by_stride<T: ContractElement>(t: &Term<T>, labels: &[Label]) -> Vec<Label> {
    let mut v = labels.to_vec();
    let st = t.a.layout().strides();
    v.sort_by_key(|l| {
        let p = t
            .labels
            .iter()
            .position(|m| m == l)
            .expect("label of the term");
        std::cmp::Reverse(st[p].unsigned_abs())
    });
    v
}

/// `t` as a batch of matrices `(batch, rows, cols)` (or `(rows, cols)` without batch
/// labels): a view when the axes group into plain dimensions, row-major or as the
/// transpose of a column grouping; otherwise a copy.
fn as_matrices<T: ContractElement>(
    t: &Term<T>,
    batch: &[Label],
    rows: &[Label],
    cols: &[Label],
) -> Result<DeviceArray<T>> {
    let ext =
        |ls: &[Label]| -> usize { positions(t, ls).iter().map(|&p| t.a.shape()[p]).product() };
    let (nb, nr, nc) = (ext(batch), ext(rows), ext(cols));
    let with_batch = !batch.is_empty();
    let grouped = |first: &[Label], second: &[Label]| -> Result<Option<DeviceArray<T>>> {
        let order: Vec<usize> = positions(t, &[batch, first, second].concat());
        let v = t.a.layout().permute(&order)?;
        let shape: Vec<usize> = if with_batch {
            vec![nb, ext(first), ext(second)]
        } else {
            vec![ext(first), ext(second)]
        };
        Ok(v.reshape_view(&shape).map(|l| t.a.with_layout(l)))
    };
    if let Some(m) = grouped(rows, cols)? {
        return Ok(m);
    }
    if let Some(m) = grouped(cols, rows)? {
        let nd = m.ndim();
        let mut p: Vec<usize> = (0..nd).collect();
        p.swap(nd - 2, nd - 1);
        return Ok(m.with_layout(m.layout().permute(&p)?));
    }
    let order = positions(t, &[batch, rows, cols].concat());
    let shape: Vec<usize> = if with_batch {
        vec![nb, nr, nc]
    } else {
        vec![nr, nc]
    };
    t.a.with_layout(t.a.layout().permute(&order)?)
        .contiguous()?
        .reshape(&shape)
}

/// The product of two terms keeping the labels in `keep` (and summing the shared others).
pub(crate) fn contract_pair<T: ContractElement>(
    a: Term<T>,
    b: Term<T>,
    keep: &BTreeSet<Label>,
) -> Result<Term<T>> {
    // Labels of one side only and not kept: summed first.
    let other = |t: &Term<T>| -> BTreeSet<Label> {
        let mut k = keep.clone();
        k.extend(t.labels.iter().copied());
        k
    };
    let (ka, kb) = (other(&b), other(&a));
    let a = sum_out(a, &ka)?;
    let b = sum_out(b, &kb)?;
    let c = pair_contraction(&a.labels, &b.labels, keep);
    let batch = by_stride(&a, &c.batch);
    let left = by_stride(&a, &c.left);
    let right = by_stride(&b, &c.right);
    let summed = by_stride(&a, &c.summed);
    let mut labels = batch.clone();
    labels.extend_from_slice(&left);
    labels.extend_from_slice(&right);
    let ext = |t: &Term<T>, ls: &[Label]| -> Vec<usize> {
        positions(t, ls).iter().map(|&p| t.a.shape()[p]).collect()
    };
    let mut shape = ext(&a, &batch);
    shape.extend(ext(&a, &left));
    shape.extend(ext(&b, &right));
    if summed.is_empty() {
        // A broadcast product: a as (batch, left, 1..), b as (batch, 1.., right).
        let pa = positions(&a, &[batch.as_slice(), &left].concat());
        let la = a.a.layout().permute(&pa)?;
        let mut sa = la.shape().to_vec();
        let mut ta = la.strides().to_vec();
        sa.extend(std::iter::repeat_n(1, right.len()));
        ta.extend(std::iter::repeat_n(0, right.len()));
        let va = a.a.with_layout(Layout::from_parts(sa, ta, la.offset()));
        let pb = positions(&b, &batch);
        let pr = positions(&b, &right);
        let lb = b.a.layout();
        let mut sb: Vec<usize> = pb.iter().map(|&p| lb.shape()[p]).collect();
        let mut tb: Vec<isize> = pb.iter().map(|&p| lb.strides()[p]).collect();
        sb.extend(std::iter::repeat_n(1, left.len()));
        tb.extend(std::iter::repeat_n(0, left.len()));
        sb.extend(pr.iter().map(|&p| lb.shape()[p]));
        tb.extend(pr.iter().map(|&p| lb.strides()[p]));
        let vb = b.a.with_layout(Layout::from_parts(sb, tb, lb.offset()));
        return Ok(Term {
            a: va.mul(&vb)?,
            labels,
        });
    }
    let ma = as_matrices(&a, &batch, &left, &summed)?;
    let mb = as_matrices(&b, &batch, &summed, &right)?;
    let prod = ma.matmul(&mb)?;
    Ok(Term {
        a: prod.reshape(&shape)?,
        labels,
    })
}
