//! Einstein summation, the host side: the subscripts parsed against the operands' shapes
//! ([`parse_einsum`]), the order of the pairwise contractions ([`greedy_path`], as
//! opt_einsum's greedy path) and the shape of one contraction ([`pair_contraction`]).
//! `cuarray::einsum` runs the plan.

use crate::{Error, Result};
use std::collections::{BTreeMap, BTreeSet};

/// An axis label: a letter's code, or [`ELLIPSIS`]` + k` for the `k`-th dimension covered
/// by `...` (counted from the left of the broadcast ellipsis dimensions).
pub type Label = u32;

/// The first label of the ellipsis dimensions.
pub const ELLIPSIS: Label = 1 << 16;

/// Subscripts parsed against the operands' shapes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EinsumSpec {
    /// The labels of each operand's axes, in order (repeats kept: `ii` is `[i, i]`).
    pub inputs: Vec<Vec<Label>>,
    /// The output's labels, in order.
    pub output: Vec<Label>,
    /// Each label's extent (after broadcasting extents of 1).
    pub sizes: BTreeMap<Label, usize>,
}

/// The printable form of a label, for messages.
pub fn label_name(l: Label) -> String {
    if l >= ELLIPSIS {
        format!("...[{}]", l - ELLIPSIS)
    } else {
        char::from_u32(l).map(String::from).unwrap_or_default()
    }
}

/// One term of the subscripts: its letters, and where `...` stands (the number of letters
/// before it).
fn parse_term(op: &'static str, term: &str) -> Result<(Vec<Label>, Option<usize>)> {
    let mut labels = Vec::new();
    let mut ell = None;
    let b = term.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'.' {
            if !term[i..].starts_with("...") || ell.is_some() {
                return Err(Error::invalid(
                    op,
                    format!("'{term}': '.' only as one '...' a term"),
                ));
            }
            ell = Some(labels.len());
            i += 3;
            continue;
        }
        if !c.is_ascii_alphabetic() {
            return Err(Error::invalid(
                op,
                format!(
                    "'{term}': unknown subscript '{}' (letters a-z, A-Z and '...')",
                    c as char
                ),
            ));
        }
        labels.push(c as Label);
        i += 1;
    }
    Ok((labels, ell))
}

/// Parses `spec` (NumPy's subscripts: `"ij,jk->ik"`, `"...ij,...jk"`, `"ii"`; spaces
/// ignored) against the operands' shapes: each term's letters must match its operand's
/// rank (`...` covering the rest), a letter repeated within a term must have one extent,
/// and across terms extents must be equal or 1 (broadcast). Without `->` the output is
/// the ellipsis dimensions, then the letters that appear once, in alphabetical (ASCII)
/// order.
///
/// ```
/// use cuarray::shape::einsum::parse_einsum;
/// let s = parse_einsum("ij,jk", &[&[2, 3], &[3, 4]])?;
/// assert_eq!(s.output, vec!['i' as u32, 'k' as u32]);
/// assert_eq!(s.sizes[&('j' as u32)], 3);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] naming the term, the letter or the count: an unknown
/// character, a term count that is not the operand count, a rank mismatch, an output
/// letter that no input has or that repeats, extents that differ (also
/// [`Error::ShapeMismatch`] naming the letter).
pub fn parse_einsum(spec: &str, shapes: &[&[usize]]) -> Result<EinsumSpec> {
    const OP: &str = "einsum";
    let spec: String = spec.chars().filter(|c| !c.is_whitespace()).collect();
    let (lhs, rhs) = match spec.split_once("->") {
        Some((l, r)) => (l, Some(r)),
        None => (spec.as_str(), None),
    };
    let terms: Vec<&str> = lhs.split(',').collect();
    if terms.len() != shapes.len() {
        return Err(Error::invalid(
            OP,
            format!(
                "'{spec}' has {} input term(s) for {} operand(s)",
                terms.len(),
                shapes.len()
            ),
        ));
    }
    if shapes.is_empty() {
        return Err(Error::invalid(OP, "at least one operand"));
    }
    let parsed = terms
        .iter()
        .map(|t| parse_term(OP, t))
        .collect::<Result<Vec<_>>>()?;
    // The ellipsis rank of each term, and the broadcast one.
    let mut ell_rank = 0usize;
    let mut ranks = Vec::with_capacity(shapes.len());
    for ((t, (letters, ell)), shape) in terms.iter().zip(&parsed).zip(shapes) {
        let r = match ell {
            Some(_) if shape.len() >= letters.len() => shape.len() - letters.len(),
            None if shape.len() == letters.len() => 0,
            _ => {
                return Err(Error::invalid(
                    OP,
                    format!(
                        "term '{t}' has {} letter(s){} for an operand of {} dimension(s)",
                        letters.len(),
                        if ell.is_some() { " and '...'" } else { "" },
                        shape.len()
                    ),
                ))
            }
        };
        ell_rank = ell_rank.max(r);
        ranks.push(r);
    }
    let mut inputs = Vec::with_capacity(shapes.len());
    let mut sizes: BTreeMap<Label, usize> = BTreeMap::new();
    for (((t, (letters, ell)), shape), r) in terms.iter().zip(&parsed).zip(shapes).zip(&ranks) {
        let mut labels: Vec<Label> = Vec::with_capacity(shape.len());
        let at = ell.unwrap_or(letters.len());
        labels.extend_from_slice(&letters[..at]);
        labels.extend((ell_rank - r..ell_rank).map(|k| ELLIPSIS + k as Label));
        labels.extend_from_slice(&letters[at..]);
        // Repeated letters within the term: one extent (a diagonal).
        let mut own: BTreeMap<Label, usize> = BTreeMap::new();
        for (&l, &e) in labels.iter().zip(shape.iter()) {
            if let Some(&prev) = own.get(&l) {
                if prev != e {
                    return Err(Error::invalid(
                        OP,
                        format!(
                            "term '{t}' repeats '{}' over extents {prev} and {e}",
                            label_name(l)
                        ),
                    ));
                }
            }
            own.insert(l, e);
        }
        for (l, e) in own {
            let s = sizes.entry(l).or_insert(e);
            if *s != e {
                if *s == 1 {
                    *s = e;
                } else if e != 1 {
                    return Err(Error::ShapeMismatch {
                        op: OP,
                        msg: format!(
                            "'{}' has extent {} in one operand and {e} in term '{t}'",
                            label_name(l),
                            *s
                        ),
                        lhs: Vec::new(),
                        rhs: shape.to_vec(),
                    });
                }
            }
        }
        inputs.push(labels);
    }
    let output = match rhs {
        None => {
            let mut count: BTreeMap<Label, usize> = BTreeMap::new();
            for l in inputs.iter().flatten() {
                *count.entry(*l).or_default() += 1;
            }
            let mut out: Vec<Label> = (0..ell_rank).map(|k| ELLIPSIS + k as Label).collect();
            out.extend(
                count
                    .iter()
                    .filter(|&(&l, &c)| l < ELLIPSIS && c == 1)
                    .map(|(&l, _)| l),
            );
            out
        }
        Some(r) => {
            let (letters, ell) = parse_term(OP, r)?;
            if ell.is_none() && ell_rank > 0 {
                return Err(Error::invalid(
                    OP,
                    format!(
                        "output '{r}' has no '...' for the {ell_rank} broadcast dimension(s) of the inputs' '...'"
                    ),
                ));
            }
            let at = ell.unwrap_or(letters.len());
            let mut out: Vec<Label> = letters[..at].to_vec();
            out.extend((0..ell_rank).map(|k| ELLIPSIS + k as Label));
            out.extend_from_slice(&letters[at..]);
            let mut seen = BTreeSet::new();
            for &l in &letters {
                if !seen.insert(l) {
                    return Err(Error::invalid(
                        OP,
                        format!("output '{r}' repeats '{}'", label_name(l)),
                    ));
                }
                if !sizes.contains_key(&l) {
                    return Err(Error::invalid(
                        OP,
                        format!(
                            "output '{r}' has '{}', which no input term has",
                            label_name(l)
                        ),
                    ));
                }
            }
            out
        }
    };
    Ok(EinsumSpec {
        inputs,
        output,
        sizes,
    })
}

/// The shape of one pairwise contraction of operands labelled `a` and `b` (each label once)
/// whose result keeps the labels in `keep`: `batch` in both and kept, `summed` in both and
/// not kept, `left` / `right` in one only. The result's axes are batch, left, right.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PairContraction {
    /// In both operands and in the result (a batch of products).
    pub batch: Vec<Label>,
    /// Only in the left operand.
    pub left: Vec<Label>,
    /// Only in the right operand.
    pub right: Vec<Label>,
    /// In both operands, summed over (the inner dimension of the product).
    pub summed: Vec<Label>,
}

impl PairContraction {
    /// The result's labels: batch, left, right.
    pub fn result(&self) -> Vec<Label> {
        let mut r = self.batch.clone();
        r.extend_from_slice(&self.left);
        r.extend_from_slice(&self.right);
        r
    }
}

/// The contraction of `a` and `b` keeping `keep` (see [`PairContraction`]). Labels of one
/// operand only that are not kept must have been summed before.
pub fn pair_contraction(a: &[Label], b: &[Label], keep: &BTreeSet<Label>) -> PairContraction {
    let in_b: BTreeSet<Label> = b.iter().copied().collect();
    let in_a: BTreeSet<Label> = a.iter().copied().collect();
    PairContraction {
        batch: a
            .iter()
            .copied()
            .filter(|l| in_b.contains(l) && keep.contains(l))
            .collect(),
        left: a.iter().copied().filter(|l| !in_b.contains(l)).collect(),
        right: b.iter().copied().filter(|l| !in_a.contains(l)).collect(),
        summed: a
            .iter()
            .copied()
            .filter(|l| in_b.contains(l) && !keep.contains(l))
            .collect(),
    }
}

/// The labels the result of contracting `terms[i]` and `terms[j]` keeps: those of the
/// output or of any other term.
pub fn kept_labels(terms: &[Vec<Label>], i: usize, j: usize, output: &[Label]) -> BTreeSet<Label> {
    let mut keep: BTreeSet<Label> = output.iter().copied().collect();
    for (k, t) in terms.iter().enumerate() {
        if k != i && k != j {
            keep.extend(t.iter().copied());
        }
    }
    keep
}

/// The order of the pairwise contractions (opt_einsum's greedy path): at each step the
/// pair whose result is smallest relative to its operands (size of the result minus the
/// sizes of the two, ties to the fewer multiply-adds), removed from the list and its result
/// appended. Returns the pairs `(i, j)`, `i < j`, as indices into the list at each step.
///
/// ```
/// use cuarray::shape::einsum::{greedy_path, parse_einsum};
/// // (a b) first would make a 1000 x 1000 intermediate; (b c) makes a 10 x 10 one.
/// let s = parse_einsum("ij,jk,kl->il", &[&[1000, 10], &[10, 1000], &[1000, 10]])?;
/// assert_eq!(greedy_path(&s.inputs, &s.output, &s.sizes), vec![(1, 2), (0, 1)]);
/// # Ok::<(), cuarray::Error>(())
/// ```
pub fn greedy_path(
    inputs: &[Vec<Label>],
    output: &[Label],
    sizes: &BTreeMap<Label, usize>,
) -> Vec<(usize, usize)> {
    let size = |ls: &[Label]| -> f64 { ls.iter().map(|l| sizes[l] as f64).product() };
    let mut terms: Vec<Vec<Label>> = inputs
        .iter()
        .map(|t| {
            let mut u = Vec::new();
            for &l in t {
                if !u.contains(&l) {
                    u.push(l);
                }
            }
            u
        })
        .collect();
    let mut path = Vec::new();
    while terms.len() > 1 {
        let mut best: Option<((f64, f64), usize, usize)> = None;
        for i in 0..terms.len() {
            for j in i + 1..terms.len() {
                let keep = kept_labels(&terms, i, j, output);
                let mut all: Vec<Label> = terms[i].clone();
                all.extend(terms[j].iter().filter(|l| !terms[i].contains(l)));
                let result: Vec<Label> = all.iter().copied().filter(|l| keep.contains(l)).collect();
                let cost = (
                    size(&result) - size(&terms[i]) - size(&terms[j]),
                    size(&all),
                );
                if best.is_none_or(|(c, _, _)| cost < c) {
                    best = Some((cost, i, j));
                }
            }
        }
        let (_, i, j) = best.expect("two terms or more");
        let keep = kept_labels(&terms, i, j, output);
        let c = pair_contraction(
            &terms[i]
                .iter()
                .copied()
                .filter(|l| keep.contains(l) || terms[j].contains(l))
                .collect::<Vec<_>>(),
            &terms[j]
                .iter()
                .copied()
                .filter(|l| keep.contains(l) || terms[i].contains(l))
                .collect::<Vec<_>>(),
            &keep,
        );
        terms.remove(j);
        terms.remove(i);
        terms.push(c.result());
        path.push((i, j));
    }
    path
}

#[cfg(test)]
mod tests {
    use super::*;

    fn l(s: &str) -> Vec<Label> {
        s.bytes().map(|c| c as Label).collect()
    }

    #[test]
    fn implicit_and_explicit_outputs() {
        let s = parse_einsum("ij,jk", &[&[2, 3], &[3, 4]]).unwrap();
        assert_eq!(s.output, l("ik"));
        let s = parse_einsum("ba,ab", &[&[2, 3], &[3, 2]]).unwrap();
        assert!(s.output.is_empty());
        let s = parse_einsum("Ba,c", &[&[2, 3], &[4]]).unwrap();
        assert_eq!(s.output, l("Bac"));
        let s = parse_einsum("ii", &[&[3, 3]]).unwrap();
        assert!(s.output.is_empty());
        let s = parse_einsum(" ii -> i ", &[&[3, 3]]).unwrap();
        assert_eq!(s.output, l("i"));
    }

    #[test]
    fn ellipsis() {
        let s = parse_einsum("...ij,...jk", &[&[5, 2, 3], &[7, 5, 3, 4]]).unwrap();
        assert_eq!(s.inputs[0], vec![ELLIPSIS + 1, 'i' as Label, 'j' as Label]);
        assert_eq!(
            s.inputs[1],
            vec![ELLIPSIS, ELLIPSIS + 1, 'j' as Label, 'k' as Label]
        );
        assert_eq!(
            s.output,
            vec![ELLIPSIS, ELLIPSIS + 1, 'i' as Label, 'k' as Label]
        );
        let s = parse_einsum("i...,i...", &[&[2, 3], &[2, 1]]).unwrap();
        assert_eq!(s.output, vec![ELLIPSIS]);
        assert_eq!(s.sizes[&ELLIPSIS], 3);
        let s = parse_einsum("i...->...", &[&[2]]).unwrap();
        assert!(s.output.is_empty());
        assert!(parse_einsum("...i->i", &[&[2, 3, 4]]).is_err());
    }

    #[test]
    fn broadcast_extent_one() {
        let s = parse_einsum("ij,j", &[&[2, 3], &[1]]).unwrap();
        assert_eq!(s.sizes[&('j' as Label)], 3);
    }

    #[test]
    fn errors_name_the_problem() {
        let e =
            |spec: &str, shapes: &[&[usize]]| parse_einsum(spec, shapes).unwrap_err().to_string();
        assert!(e("ij,jk", &[&[2, 3]]).contains("2 input term(s) for 1 operand"));
        assert!(e("i1", &[&[2, 3]]).contains("unknown subscript '1'"));
        assert!(e("ijk", &[&[2, 3]]).contains("3 letter(s)"));
        assert!(e("ij,jk", &[&[2, 3], &[4, 5]]).contains("'j'"));
        assert!(e("ii", &[&[2, 3]]).contains("repeats 'i'"));
        assert!(e("ij->iz", &[&[2, 3]]).contains("'z'"));
        assert!(e("ij->ii", &[&[2, 3]]).contains("repeats 'i'"));
        assert!(e("i..j", &[&[2, 3]]).contains("'...'"));
    }

    #[test]
    fn pair_shapes() {
        let keep: BTreeSet<Label> = l("bhqk").into_iter().collect();
        let c = pair_contraction(&l("bhqd"), &l("bhkd"), &keep);
        assert_eq!(c.batch, l("bh"));
        assert_eq!(c.left, l("q"));
        assert_eq!(c.right, l("k"));
        assert_eq!(c.summed, l("d"));
        assert_eq!(c.result(), l("bhqk"));
    }

    #[test]
    fn greedy_prefers_small_intermediates() {
        let s = parse_einsum("ij,jk,kl->il", &[&[1000, 10], &[10, 1000], &[1000, 10]]).unwrap();
        assert_eq!(
            greedy_path(&s.inputs, &s.output, &s.sizes),
            vec![(1, 2), (0, 1)]
        );
        let s = parse_einsum("i,i,i", &[&[4], &[4], &[4]]).unwrap();
        assert_eq!(greedy_path(&s.inputs, &s.output, &s.sizes).len(), 2);
    }
}
