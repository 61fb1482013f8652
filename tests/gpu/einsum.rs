//! einsum, tensordot, kron, inner, vdot and multi_dot against a host reference computed in
//! complex f64 straight from the definition (a loop over every assignment of the letters),
//! on random data of awkward extents, contiguous and non-contiguous operands, for f32, f64,
//! c64, c128 (and f16 on a few specs); bad subscripts are `Err`s naming the letter.

use crate::common::{add_gpu, ensure, Rng, TResult};
use cuarray::{einsum, Complex32, Complex64, ContractElement, Device, DeviceArray};
use libtest_mimic::Trial;
use std::collections::BTreeMap;

type C = Complex64;

/// The element types under test, as complex f64 on the host.
trait E: ContractElement {
    const TOL: f64;
    fn from_c(z: C) -> Self;
    fn to_c(self) -> C;
}
impl E for f32 {
    const TOL: f64 = 2e-4;
    fn from_c(z: C) -> Self {
        z.re as f32
    }
    fn to_c(self) -> C {
        C::new(self as f64, 0.0)
    }
}
impl E for f64 {
    const TOL: f64 = 1e-11;
    fn from_c(z: C) -> Self {
        z.re
    }
    fn to_c(self) -> C {
        C::new(self, 0.0)
    }
}
impl E for half::f16 {
    const TOL: f64 = 2e-2;
    fn from_c(z: C) -> Self {
        half::f16::from_f64(z.re)
    }
    fn to_c(self) -> C {
        C::new(self.to_f64(), 0.0)
    }
}
impl E for Complex32 {
    const TOL: f64 = 2e-4;
    fn from_c(z: C) -> Self {
        Complex32::new(z.re as f32, z.im as f32)
    }
    fn to_c(self) -> C {
        C::new(self.re as f64, self.im as f64)
    }
}
impl E for Complex64 {
    const TOL: f64 = 1e-11;
    fn from_c(z: C) -> Self {
        z
    }
    fn to_c(self) -> C {
        self
    }
}

/// A host operand: row-major values and shape.
#[derive(Clone)]
struct H {
    v: Vec<C>,
    shape: Vec<usize>,
}

fn random<T: E>(rng: &mut Rng, shape: &[usize]) -> H {
    let n: usize = shape.iter().product();
    let complex = T::DTYPE.is_complex();
    H {
        v: (0..n)
            .map(|_| {
                let z = C::new(
                    rng.range(-1.0, 1.0),
                    if complex { rng.range(-1.0, 1.0) } else { 0.0 },
                );
                T::from_c(z).to_c() // representable values
            })
            .collect(),
        shape: shape.to_vec(),
    }
}

/// The definition: `spec` with letters only and an explicit output; extents of 1
/// broadcast.
fn reference(spec: &str, ops: &[&H]) -> H {
    let (lhs, out) = spec.split_once("->").expect("explicit output");
    let terms: Vec<Vec<char>> = lhs.split(',').map(|t| t.chars().collect()).collect();
    let out: Vec<char> = out.chars().collect();
    let mut sizes: BTreeMap<char, usize> = BTreeMap::new();
    for (t, h) in terms.iter().zip(ops) {
        for (c, &e) in t.iter().zip(&h.shape) {
            let s = sizes.entry(*c).or_insert(e);
            *s = (*s).max(e);
        }
    }
    let letters: Vec<char> = sizes.keys().copied().collect();
    let ext: Vec<usize> = letters.iter().map(|c| sizes[c]).collect();
    let oshape: Vec<usize> = out.iter().map(|c| sizes[c]).collect();
    let mut res = vec![C::new(0.0, 0.0); oshape.iter().product()];
    let total: usize = ext.iter().product();
    let mut idx = vec![0usize; letters.len()];
    let at = |c: char, idx: &[usize]| idx[letters.iter().position(|&l| l == c).unwrap()];
    for _ in 0..total {
        let mut p = C::new(1.0, 0.0);
        for (t, h) in terms.iter().zip(ops) {
            let mut off = 0;
            for (k, c) in t.iter().enumerate() {
                let i = if h.shape[k] == 1 { 0 } else { at(*c, &idx) };
                off = off * h.shape[k] + i;
            }
            p *= h.v[off];
        }
        let mut o = 0;
        for (k, c) in out.iter().enumerate() {
            o = o * oshape[k] + at(*c, &idx);
        }
        if !res.is_empty() {
            res[o] += p;
        }
        for k in (0..idx.len()).rev() {
            idx[k] += 1;
            if idx[k] < ext[k] {
                break;
            }
            idx[k] = 0;
        }
    }
    H {
        v: res,
        shape: oshape,
    }
}

fn check<T: E>(what: &str, got: &DeviceArray<T>, want: &H) -> TResult {
    ensure!(
        got.shape() == want.shape.as_slice(),
        "{what}: shape {:?}, expected {:?}",
        got.shape(),
        want.shape
    );
    let g = got.to_host()?;
    let scale = want.v.iter().map(|z| z.norm()).fold(1.0f64, f64::max);
    for (i, (a, b)) in g.iter().zip(&want.v).enumerate() {
        let d = (a.to_c() - b).norm();
        ensure!(
            d <= T::TOL * scale * 4.0,
            "{what} ({}): element {i} is {:?}, expected {b} (|diff| {d:e})",
            T::DTYPE,
            a.to_c()
        );
    }
    Ok(())
}

/// An operand on the device: contiguous, or (`strided`) a view of every other element of
/// a larger array.
fn upload<T: E>(dev: &Device, h: &H, strided: bool) -> cuarray::Result<DeviceArray<T>> {
    let vals: Vec<T> = h.v.iter().map(|&z| T::from_c(z)).collect();
    if !strided || h.shape.is_empty() {
        return DeviceArray::from_host(dev, &vals, &h.shape);
    }
    // Interleave with junk along the last axis, then take every other element.
    let last = *h.shape.last().unwrap();
    let mut wide = Vec::with_capacity(vals.len() * 2);
    for (k, v) in vals.iter().enumerate() {
        wide.push(*v);
        wide.push(T::from_c(C::new(1e3 + k as f64, 0.0)));
    }
    let mut ws = h.shape.clone();
    *ws.last_mut().unwrap() = 2 * last;
    let a = DeviceArray::from_host(dev, &wide, &ws)?;
    let all = cuarray::SliceElem::Range {
        start: None,
        end: None,
        step: 1,
    };
    let mut spec = vec![all; ws.len() - 1];
    spec.push(all.with_step(2));
    a.slice(spec)
}

/// (spec as given, spec for the reference, operand shapes).
const SPECS: &[(&str, &str, &[&[usize]])] = &[
    ("ij,jk->ik", "ij,jk->ik", &[&[7, 13], &[13, 5]]),
    ("ij,jk", "ij,jk->ik", &[&[7, 13], &[13, 5]]),
    ("ij,kj->ik", "ij,kj->ik", &[&[7, 13], &[5, 13]]),
    ("ji,jk->ik", "ji,jk->ik", &[&[13, 7], &[13, 5]]),
    ("bij,bjk->bik", "bij,bjk->bik", &[&[3, 7, 9], &[3, 9, 5]]),
    (
        "bhqd,bhkd->bhqk",
        "bhqd,bhkd->bhqk",
        &[&[2, 3, 5, 8], &[2, 3, 7, 8]],
    ),
    (
        "...ij,...jk->...ik",
        "xij,xjk->xik",
        &[&[4, 3, 6], &[4, 6, 2]],
    ),
    ("...ij,...jk", "xij,xjk->xik", &[&[4, 3, 6], &[4, 6, 2]]),
    ("ii->", "ii->", &[&[9, 9]]),
    ("ii", "ii->", &[&[9, 9]]),
    ("ii->i", "ii->i", &[&[9, 9]]),
    ("bii->bi", "bii->bi", &[&[4, 5, 5]]),
    ("ij->ji", "ij->ji", &[&[6, 11]]),
    ("ijk->kji", "ijk->kji", &[&[3, 4, 5]]),
    ("ij->", "ij->", &[&[6, 11]]),
    ("ij->i", "ij->i", &[&[6, 11]]),
    ("ij->j", "ij->j", &[&[6, 11]]),
    ("i,j->ij", "i,j->ij", &[&[7], &[5]]),
    ("i,j", "i,j->ij", &[&[7], &[5]]),
    ("i,i->", "i,i->", &[&[17], &[17]]),
    ("i,i->i", "i,i->i", &[&[17], &[17]]),
    ("ij,ij->ij", "ij,ij->ij", &[&[5, 6], &[5, 6]]),
    ("ij,ij->", "ij,ij->", &[&[5, 6], &[5, 6]]),
    ("ij,j->i", "ij,j->i", &[&[7, 9], &[9]]),
    ("ij,j", "ij,j->i", &[&[7, 9], &[1]]),
    ("ba,ab", "ba,ab->", &[&[4, 3], &[3, 4]]),
    ("Ba,aB", "Ba,aB->", &[&[4, 3], &[3, 4]]),
    (
        "ij,jk,kl->il",
        "ij,jk,kl->il",
        &[&[5, 30], &[30, 4], &[4, 6]],
    ),
    ("ij,jk,kl", "ij,jk,kl->il", &[&[5, 30], &[30, 4], &[4, 6]]),
    (
        "ab,bc,cd,de->ae",
        "ab,bc,cd,de->ae",
        &[&[3, 4], &[4, 5], &[5, 6], &[6, 2]],
    ),
    ("i,i,i->", "i,i,i->", &[&[11], &[11], &[11]]),
    (
        "ijk,jl,kl->il",
        "ijk,jl,kl->il",
        &[&[3, 4, 5], &[4, 6], &[5, 6]],
    ),
    ("ij,jk->", "ij,jk->", &[&[4, 5], &[5, 3]]),
    ("ijk,ikl->jl", "ijk,ikl->jl", &[&[3, 4, 5], &[3, 5, 2]]),
    ("iij,jk->ik", "iij,jk->ik", &[&[4, 4, 3], &[3, 5]]),
    ("i...,i...", "ix,ix->x", &[&[2, 3], &[2, 1]]),
    ("ab,cd->abcd", "ab,cd->abcd", &[&[2, 3], &[4, 1]]),
];

fn specs<T: E>(dev: &Device, rng: &mut Rng) -> TResult {
    for &(spec, rspec, shapes) in SPECS {
        for strided in [false, true] {
            let hs: Vec<H> = shapes.iter().map(|s| random::<T>(rng, s)).collect();
            let ds = hs
                .iter()
                .map(|h| upload::<T>(dev, h, strided))
                .collect::<cuarray::Result<Vec<_>>>()?;
            let refs: Vec<&DeviceArray<T>> = ds.iter().collect();
            let got = einsum(spec, &refs)?;
            let want = reference(rspec, &hs.iter().collect::<Vec<_>>());
            check(&format!("einsum('{spec}'), strided {strided}"), &got, &want)?;
        }
    }
    Ok(())
}

fn bad_specs(dev: &Device, _rng: &mut Rng) -> TResult {
    let a = DeviceArray::<f32>::ones(dev, &[2, 3])?;
    let b = DeviceArray::<f32>::ones(dev, &[4, 5])?;
    let cases: &[(&str, Vec<&DeviceArray<f32>>, &str)] = &[
        ("ij,jk->ik", vec![&a], "2 input term(s) for 1 operand"),
        ("ij,jk->ik", vec![&a, &b], "'j'"),
        ("i2", vec![&a], "'2'"),
        ("ijk", vec![&a], "3 letter(s)"),
        ("ij->iz", vec![&a], "'z'"),
    ];
    for (spec, ops, needle) in cases {
        match einsum(spec, ops) {
            Ok(r) => return Err(format!("einsum('{spec}') gave shape {:?}", r.shape()).into()),
            Err(e) => ensure!(
                e.to_string().contains(needle),
                "einsum('{spec}'): {e} does not name {needle}"
            ),
        }
    }
    Ok(())
}

fn products<T: E>(dev: &Device, rng: &mut Rng) -> TResult {
    use cuarray::{inner, kron, linalg::multi_dot, tensordot, vdot, Axes};
    let ha = random::<T>(rng, &[3, 4, 5]);
    let hb = random::<T>(rng, &[4, 5, 2]);
    let (a, b) = (upload::<T>(dev, &ha, true)?, upload::<T>(dev, &hb, false)?);
    check(
        "tensordot N(2)",
        &tensordot(&a, &b, Axes::N(2))?,
        &reference("ijk,jkl->il", &[&ha, &hb]),
    )?;
    check(
        "tensordot pairs",
        &tensordot(&a, &b, Axes::Pairs(&[1], &[0]))?,
        &reference("ijk,jmn->ikmn", &[&ha, &hb]),
    )?;
    check(
        "tensordot N(0)",
        &tensordot(&a, &b, Axes::N(0))?,
        &reference("ijk,lmn->ijklmn", &[&ha, &hb]),
    )?;
    let hc = random::<T>(rng, &[6, 5]);
    let c = upload::<T>(dev, &hc, false)?;
    check(
        "inner",
        &inner(&a, &c)?,
        &reference("ijk,lk->ijl", &[&ha, &hc]),
    )?;
    // vdot conjugates the first operand.
    let hx = random::<T>(rng, &[4, 5]);
    let hy = random::<T>(rng, &[20]);
    let hxc = H {
        v: hx.v.iter().map(|z| z.conj()).collect(),
        shape: vec![20],
    };
    let got = vdot(
        &upload::<T>(dev, &hx, true)?,
        &upload::<T>(dev, &hy, false)?,
    )?;
    check("vdot", &got, &reference("i,i->", &[&hxc, &hy]))?;
    // kron of (2, 3) and (4, 1, 5): a gets a leading 1.
    let hk = random::<T>(rng, &[2, 3]);
    let hl = random::<T>(rng, &[4, 1, 5]);
    let k = kron(
        &upload::<T>(dev, &hk, true)?,
        &upload::<T>(dev, &hl, false)?,
    )?;
    let r = reference("jk,ilm->iljkm", &[&hk, &hl]); // (4, 1, 2, 3, 5) -> (4, 2, 15)
    check(
        "kron",
        &k,
        &H {
            v: r.v,
            shape: vec![4, 2, 15],
        },
    )?;
    // multi_dot with vector ends.
    let h1 = random::<T>(rng, &[30]);
    let h2 = random::<T>(rng, &[30, 7]);
    let h3 = random::<T>(rng, &[7, 40]);
    let h4 = random::<T>(rng, &[40]);
    let m = multi_dot(&[
        &upload::<T>(dev, &h1, false)?,
        &upload::<T>(dev, &h2, true)?,
        &upload::<T>(dev, &h3, false)?,
        &upload::<T>(dev, &h4, false)?,
    ])?;
    check(
        "multi_dot",
        &m,
        &reference("i,ij,jk,k->", &[&h1, &h2, &h3, &h4]),
    )?;
    ensure!(
        tensordot(&a, &b, Axes::Pairs(&[0], &[0])).is_err(),
        "tensordot with 3 vs 4"
    );
    ensure!(multi_dot(&[&a]).is_err(), "multi_dot of one array");
    Ok(())
}

pub fn trials(out: &mut Vec<Trial>) {
    macro_rules! per_dtype {
        ($($t:ty),*) => {$(
            let d = <$t as cuarray::Element>::DTYPE.name();
            add_gpu(out, format!("einsum/specs/{d}/contiguous_and_strided"), specs::<$t>);
            add_gpu(out, format!("einsum/products/{d}/mixed"), products::<$t>);
        )*};
    }
    per_dtype!(f32, f64, Complex32, Complex64);
    add_gpu(
        out,
        "einsum/specs/f16/contiguous_and_strided".into(),
        |dev, rng| {
            // Small contractions only: f16 rounds each product.
            let _ = specs::<half::f16>;
            for &(spec, rspec, shapes) in &SPECS[..8] {
                let hs: Vec<H> = shapes.iter().map(|s| random::<half::f16>(rng, s)).collect();
                let ds = hs
                    .iter()
                    .map(|h| upload::<half::f16>(dev, h, false))
                    .collect::<cuarray::Result<Vec<_>>>()?;
                let refs: Vec<&DeviceArray<half::f16>> = ds.iter().collect();
                check(
                    &format!("einsum('{spec}')"),
                    &einsum(spec, &refs)?,
                    &reference(rspec, &hs.iter().collect::<Vec<_>>()),
                )?;
            }
            Ok(())
        },
    );
    add_gpu(out, "einsum/errors/f32/bad_specs".into(), bad_specs);
}
