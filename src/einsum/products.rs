//! NumPy's named contractions: `tensordot`, `kron`, `inner`, `vdot` and `multi_dot`, on the
//! pairwise product of `einsum`.

use super::{contract_pair, ContractElement, Term};
use crate::array::DeviceArray;
use crate::ops::catalogue::UnaryOp;
use crate::shape::einsum::Label;
use crate::shape::{normalize_axis, Layout};
use crate::{Error, Result};
use std::collections::BTreeSet;

/// The axes [`tensordot`] sums over.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Axes<'a> {
    /// The last `n` axes of `a` with the first `n` of `b`, in order (NumPy's `axes=n`).
    N(usize),
    /// `a`'s axes `.0[k]` with `b`'s `.1[k]` (negative count from the end).
    Pairs(&'a [isize], &'a [isize]),
}

/// NumPy's `tensordot`: the sum of products over the paired axes; the result's axes are
/// `a`'s other axes, then `b`'s, each in order. One cuBLAS GEMM on views of the operands
/// (a copy only when the paired axes cannot be grouped as one matrix dimension).
///
/// ```no_run
/// use cuarray::{tensordot, Axes, Device, DeviceArray};
/// let dev = Device::new(0)?;
/// let a = DeviceArray::<f32>::ones(&dev, &[3, 4, 5])?;
/// let b = DeviceArray::<f32>::ones(&dev, &[4, 5, 2])?;
/// let c = tensordot(&a, &b, Axes::N(2))?;
/// assert_eq!(c.shape(), &[3, 2]);
/// assert_eq!(c.to_host()?, vec![20.0; 6]);
/// assert_eq!(tensordot(&a, &b, Axes::Pairs(&[1], &[0]))?.shape(), &[3, 5, 5, 2]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] for more axes than an operand has, pair lists of different
/// lengths or a repeated axis; [`Error::AxisOutOfRange`]; [`Error::ShapeMismatch`] naming
/// both shapes when paired extents differ.
pub fn tensordot<T: ContractElement>(
    a: &DeviceArray<T>,
    b: &DeviceArray<T>,
    axes: Axes<'_>,
) -> Result<DeviceArray<T>> {
    const OP: &str = "tensordot";
    b.used_by(OP, a.device())?;
    let (na, nb) = (a.ndim(), b.ndim());
    let (pa, pb): (Vec<usize>, Vec<usize>) = match axes {
        Axes::N(n) => {
            if n > na || n > nb {
                return Err(Error::invalid(
                    OP,
                    format!("axes={n} for operands of {na} and {nb} dimension(s)"),
                ));
            }
            ((na - n..na).collect(), (0..n).collect())
        }
        Axes::Pairs(x, y) => {
            if x.len() != y.len() {
                return Err(Error::invalid(
                    OP,
                    format!("{} axes of a paired with {} of b", x.len(), y.len()),
                ));
            }
            (
                x.iter()
                    .map(|&k| normalize_axis(OP, k, na))
                    .collect::<Result<_>>()?,
                y.iter()
                    .map(|&k| normalize_axis(OP, k, nb))
                    .collect::<Result<_>>()?,
            )
        }
    };
    let unique = |v: &[usize]| v.iter().collect::<BTreeSet<_>>().len() == v.len();
    if !unique(&pa) || !unique(&pb) {
        return Err(Error::invalid(
            OP,
            format!("a repeated axis in {pa:?} / {pb:?}"),
        ));
    }
    for (&i, &j) in pa.iter().zip(&pb) {
        if a.shape()[i] != b.shape()[j] {
            return Err(Error::ShapeMismatch {
                op: OP,
                msg: format!(
                    "axis {i} of a (extent {}) paired with axis {j} of b (extent {})",
                    a.shape()[i],
                    b.shape()[j]
                ),
                lhs: a.shape().to_vec(),
                rhs: b.shape().to_vec(),
            });
        }
    }
    // Labels: a's axes 0..na; b's paired axes take a's label, its others na + k.
    let la: Vec<Label> = (0..na as Label).collect();
    let lb: Vec<Label> = (0..nb)
        .map(|k| match pb.iter().position(|&j| j == k) {
            Some(p) => pa[p] as Label,
            None => (na + k) as Label,
        })
        .collect();
    let out: Vec<Label> = la
        .iter()
        .copied()
        .filter(|l| !pa.contains(&(*l as usize)))
        .chain(lb.iter().copied().filter(|&l| l as usize >= na))
        .collect();
    let keep: BTreeSet<Label> = out.iter().copied().collect();
    let t = contract_pair(
        Term {
            a: a.clone(),
            labels: la,
        },
        Term {
            a: b.clone(),
            labels: lb,
        },
        &keep,
    )?;
    let perm: Vec<usize> = out
        .iter()
        .map(|l| t.labels.iter().position(|m| m == l).expect("kept label"))
        .collect();
    Ok(t.a.with_layout(t.a.layout().permute(&perm)?))
}

/// NumPy's `inner`: the sum of products over the last axes (for 1-D arrays the inner
/// product, a 0-d array); a 0-d operand multiplies. No conjugation.
///
/// ```no_run
/// let dev = cuarray::Device::new(0)?;
/// let a = cuarray::DeviceArray::from_slice(&dev, &[1.0f64, 2.0, 3.0])?;
/// assert_eq!(cuarray::inner(&a, &a)?.to_scalar()?, 14.0);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::ShapeMismatch`] when the last extents differ.
pub fn inner<T: ContractElement>(a: &DeviceArray<T>, b: &DeviceArray<T>) -> Result<DeviceArray<T>> {
    if a.ndim() == 0 || b.ndim() == 0 {
        return a.mul(b);
    }
    tensordot(a, b, Axes::Pairs(&[-1], &[-1]))
}

/// NumPy's `vdot`: both arrays flattened, the first conjugated, the sum of products, as a
/// 0-d array.
///
/// ```no_run
/// use cuarray::{Complex64, Device, DeviceArray};
/// let dev = Device::new(0)?;
/// let z = DeviceArray::from_slice(&dev, &[Complex64::new(1.0, 2.0), Complex64::new(0.0, 1.0)])?;
/// assert_eq!(cuarray::vdot(&z, &z)?.to_scalar()?, Complex64::new(6.0, 0.0)); // |z|²
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::ShapeMismatch`] when the sizes differ.
pub fn vdot<T: ContractElement>(a: &DeviceArray<T>, b: &DeviceArray<T>) -> Result<DeviceArray<T>> {
    if a.size() != b.size() {
        return Err(Error::ShapeMismatch {
            op: "vdot",
            msg: format!("{} and {} elements", a.size(), b.size()),
            lhs: a.shape().to_vec(),
            rhs: b.shape().to_vec(),
        });
    }
    let n = a.size();
    let a = if T::DTYPE.is_complex() {
        a.map::<T>(UnaryOp::Conj.name(), UnaryOp::Conj.body(), &[])?
    } else {
        a.clone()
    };
    a.reshape(&[n])?.matmul(&b.reshape(&[n])?)
}

/// NumPy's `kron`: the Kronecker product, blocks `a[i, j] * b`. Operands of different
/// ranks get leading axes of extent 1 first. One broadcast multiply writes the result (at
/// the memory bandwidth); the result is a reshape of it.
///
/// ```no_run
/// let dev = cuarray::Device::new(0)?;
/// let a = cuarray::DeviceArray::from_host(&dev, &[1.0f32, 2.0], &[1, 2])?;
/// let b = cuarray::DeviceArray::from_host(&dev, &[1.0f32, 10.0], &[2, 1])?;
/// let k = cuarray::kron(&a, &b)?;
/// assert_eq!(k.shape(), &[2, 2]);
/// assert_eq!(k.to_host()?, vec![1.0, 2.0, 10.0, 20.0]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// A device mismatch; [`Error::InvalidArgument`] when an extent of the result overflows.
pub fn kron<T: ContractElement>(a: &DeviceArray<T>, b: &DeviceArray<T>) -> Result<DeviceArray<T>> {
    b.used_by("kron", a.device())?;
    let nd = a.ndim().max(b.ndim());
    // (shape, strides) with leading axes of extent 1, then interleaved with zero-stride
    // unit axes: a as (a0, 1, a1, 1, ..), b as (1, b0, 1, b1, ..).
    let padded = |x: &DeviceArray<T>| -> (Vec<usize>, Vec<isize>) {
        let l = x.layout();
        let pad = nd - x.ndim();
        let mut s = vec![1usize; pad];
        let mut t = vec![0isize; pad];
        s.extend_from_slice(l.shape());
        t.extend_from_slice(l.strides());
        (s, t)
    };
    let (sa, ta) = padded(a);
    let (sb, tb) = padded(b);
    let mut shape_a = Vec::with_capacity(2 * nd);
    let mut strides_a = Vec::with_capacity(2 * nd);
    let mut shape_b = Vec::with_capacity(2 * nd);
    let mut strides_b = Vec::with_capacity(2 * nd);
    let mut out = Vec::with_capacity(nd);
    for k in 0..nd {
        shape_a.extend([sa[k], 1]);
        strides_a.extend([ta[k], 0]);
        shape_b.extend([1, sb[k]]);
        strides_b.extend([0, tb[k]]);
        out.push(
            sa[k]
                .checked_mul(sb[k])
                .ok_or_else(|| Error::invalid("kron", "the result's extent overflows"))?,
        );
    }
    let va = a.with_layout(Layout::from_parts(shape_a, strides_a, a.layout().offset()));
    let vb = b.with_layout(Layout::from_parts(shape_b, strides_b, b.layout().offset()));
    va.mul(&vb)?.reshape(&out)
}

/// NumPy's `linalg.multi_dot`: the product of a chain of matrices in the cheapest order
/// (the matrix-chain dynamic programme over the flop counts). The first array may be 1-D (a
/// row vector) and the last 1-D (a column vector); the others are 2-D.
///
/// ```no_run
/// use cuarray::{linalg, Device, DeviceArray};
/// let dev = Device::new(0)?;
/// let a = DeviceArray::<f64>::ones(&dev, &[100, 5])?;
/// let b = DeviceArray::<f64>::ones(&dev, &[5, 100])?;
/// let c = DeviceArray::<f64>::ones(&dev, &[100])?;
/// let r = linalg::multi_dot(&[&a, &b, &c])?; // a (b c): 1000 multiply-adds, not 50000
/// assert_eq!(r.shape(), &[100]);
/// # Ok::<(), cuarray::Error>(())
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] for fewer than two arrays or a middle array that is not
/// 2-D; [`Error::ShapeMismatch`] for inner dimensions that differ.
pub fn multi_dot<T: ContractElement>(arrays: &[&DeviceArray<T>]) -> Result<DeviceArray<T>> {
    const OP: &str = "multi_dot";
    let n = arrays.len();
    if n < 2 {
        return Err(Error::invalid(OP, format!("{n} array(s): at least two")));
    }
    let first_vec = arrays[0].ndim() == 1;
    let last_vec = arrays[n - 1].ndim() == 1;
    let mats: Vec<DeviceArray<T>> = arrays
        .iter()
        .enumerate()
        .map(|(i, a)| match (a.ndim(), i) {
            (1, 0) => a.reshape(&[1, a.size()]),
            (1, k) if k == n - 1 => a.reshape(&[a.size(), 1]),
            (2, _) => Ok((*a).clone()),
            (d, k) => Err(Error::invalid(
                OP,
                format!("array {k} has {d} dimension(s); 2 (or 1 for the first and last)"),
            )),
        })
        .collect::<Result<_>>()?;
    let mut dims = vec![mats[0].shape()[0]];
    for (k, m) in mats.iter().enumerate() {
        if m.shape()[0] != *dims.last().expect("dims") {
            return Err(Error::ShapeMismatch {
                op: OP,
                msg: format!("array {k}'s rows differ from the columns before it"),
                lhs: mats[k - 1].shape().to_vec(),
                rhs: m.shape().to_vec(),
            });
        }
        dims.push(m.shape()[1]);
    }
    let split = chain_order(&dims);
    let r = chain_product(&mats, &split, 0, n - 1)?;
    let shape: Vec<usize> = match (first_vec, last_vec) {
        (true, true) => Vec::new(),
        (true, false) => vec![r.shape()[1]],
        (false, true) => vec![r.shape()[0]],
        (false, false) => return Ok(r),
    };
    r.reshape(&shape)
}

/// The matrix-chain order of matrices `dims[k] x dims[k + 1]`: `split[i][j]` is where the
/// cheapest product of matrices `i..=j` splits.
fn chain_order(dims: &[usize]) -> Vec<Vec<usize>> {
    let n = dims.len() - 1;
    let mut cost = vec![vec![0f64; n]; n];
    let mut split = vec![vec![0usize; n]; n];
    for len in 1..n {
        for i in 0..n - len {
            let j = i + len;
            cost[i][j] = f64::INFINITY;
            for k in i..j {
                let c = cost[i][k] + cost[k + 1][j] + (dims[i] * dims[k + 1] * dims[j + 1]) as f64;
                if c < cost[i][j] {
                    cost[i][j] = c;
                    split[i][j] = k;
                }
            }
        }
    }
    split
}

fn chain_product<T: ContractElement>(
    mats: &[DeviceArray<T>],
    split: &[Vec<usize>],
    i: usize,
    j: usize,
) -> Result<DeviceArray<T>> {
    if i == j {
        return Ok(mats[i].clone());
    }
    let k = split[i][j];
    chain_product(mats, split, i, k)?.matmul(&chain_product(mats, split, k + 1, j)?)
}

#[cfg(test)]
mod tests {
    use super::chain_order;

    #[test]
    fn chain_order_picks_the_cheap_split() {
        // 100x5, 5x100, 100x1: a (b c) costs 1000, (a b) c 60000.
        let s = chain_order(&[100, 5, 100, 1]);
        assert_eq!(s[0][2], 0);
        // 1x100, 100x5, 5x100: (a b) c.
        let s = chain_order(&[1, 100, 5, 100]);
        assert_eq!(s[0][2], 1);
    }
}
