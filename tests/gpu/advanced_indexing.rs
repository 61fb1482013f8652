//! Advanced indexing (`ix!`, index, index_put, index_put_add) against a host reference
//! written from NumPy's rules: 1 to 4 index arrays mixed with slices, steps, negative steps,
//! new axes and masks, on non-contiguous views; empty index arrays, 0-d results, the
//! contiguous-row path (several element sizes), duplicates, and the errors.

use crate::common::{add_gpu, check_eq, ensure, Rng, TElem, TResult, Val};
use crate::numpy::{indices, np_broadcast, py_slice};
use crate::sorting::{data, Kind};
use cuarray::{ix, s, Device, DeviceArray, Error, IndexElem, SliceElem};
use libtest_mimic::Trial;

/// One entry of a host index expression.
#[derive(Clone)]
enum HIx {
    S(SliceElem),
    A(Vec<i64>, Vec<usize>),
    M(Vec<bool>, Vec<usize>),
}

/// NumPy's `a[ix]` for a C-ordered source of `shape`: the result's shape and, for each
/// result element in C order, the flat position it reads. Written from NumPy's indexing
/// documentation, independently of cuarray's planner.
fn reference(shape: &[usize], ix: &[HIx]) -> (Vec<usize>, Vec<usize>) {
    // Masks become the coordinates of their true elements.
    let mut ents: Vec<HIx> = Vec::new();
    for e in ix {
        match e {
            HIx::M(m, ms) => {
                let coords: Vec<Vec<usize>> = indices(ms)
                    .into_iter()
                    .zip(m)
                    .filter(|(_, &b)| b)
                    .map(|(c, _)| c)
                    .collect();
                for d in 0..ms.len() {
                    ents.push(HIx::A(
                        coords.iter().map(|c| c[d] as i64).collect(),
                        vec![coords.len()],
                    ));
                }
            }
            other => ents.push(other.clone()),
        }
    }
    let any_arr = ents.iter().any(|e| matches!(e, HIx::A(..)));
    if any_arr {
        for e in &mut ents {
            if let HIx::S(SliceElem::Index(i)) = e {
                *e = HIx::A(vec![*i as i64], vec![]);
            }
        }
    }
    let consumed = ents
        .iter()
        .filter(|e| !matches!(e, HIx::S(SliceElem::NewAxis)))
        .count();
    for _ in consumed..shape.len() {
        ents.push(HIx::S(SliceElem::Range {
            start: None,
            end: None,
            step: 1,
        }));
    }
    let adv: Vec<usize> = (0..ents.len())
        .filter(|&k| matches!(ents[k], HIx::A(..)))
        .collect();
    let adjacent = adv.windows(2).all(|w| w[1] == w[0] + 1);
    let mut b: Vec<usize> = Vec::new();
    for e in &ents {
        if let HIx::A(_, s) = e {
            b = np_broadcast(&b, s).expect("broadcast");
        }
    }
    // Basic result dims: (entry position, the source indices it walks, or None: new axis).
    let mut basics: Vec<(usize, Option<Vec<usize>>)> = Vec::new();
    let mut axis = 0;
    let mut fixed: Vec<Option<usize>> = vec![None; ents.len()];
    let mut axis_of: Vec<usize> = vec![0; ents.len()];
    for (k, e) in ents.iter().enumerate() {
        axis_of[k] = axis;
        match e {
            HIx::S(SliceElem::NewAxis) => basics.push((k, None)),
            HIx::S(SliceElem::Range { start, end, step }) => {
                basics.push((k, Some(py_slice(*start, *end, *step, shape[axis]))));
                axis += 1;
            }
            HIx::S(SliceElem::Index(i)) => {
                let n = shape[axis] as isize;
                fixed[k] = Some(if *i < 0 { i + n } else { *i } as usize);
                axis += 1;
            }
            _ => axis += 1,
        }
    }
    let first = adv.first().copied().unwrap_or(0);
    let n_before = if adjacent && !adv.is_empty() {
        basics.iter().filter(|(k, _)| *k < first).count()
    } else {
        0
    };
    let bdims = |x: &(usize, Option<Vec<usize>>)| x.1.as_ref().map_or(1, |v| v.len());
    let mut rshape: Vec<usize> = basics[..n_before].iter().map(bdims).collect();
    let bstart = rshape.len();
    if !adv.is_empty() {
        rshape.extend_from_slice(&b);
    }
    rshape.extend(basics[n_before..].iter().map(bdims));
    let nb = if adv.is_empty() { 0 } else { b.len() };
    let mut flat = Vec::new();
    let cstr: Vec<usize> = (0..shape.len())
        .map(|d| shape[d + 1..].iter().product())
        .collect();
    for r in indices(&rshape) {
        let bi = &r[bstart..bstart + nb];
        let mut basic_coord: Vec<usize> = r[..bstart].to_vec();
        basic_coord.extend_from_slice(&r[bstart + nb..]);
        let mut src = vec![0usize; shape.len()];
        let mut bc = 0;
        for (k, e) in ents.iter().enumerate() {
            match e {
                HIx::S(SliceElem::NewAxis) => bc += 1,
                HIx::S(SliceElem::Range { .. }) => {
                    src[axis_of[k]] = basics[bc].1.as_ref().unwrap()[basic_coord[bc]];
                    bc += 1;
                }
                HIx::S(SliceElem::Index(_)) => src[axis_of[k]] = fixed[k].unwrap(),
                HIx::A(v, s) => {
                    // The broadcast element of `v` at `bi`.
                    let lead = b.len() - s.len();
                    let mut off = 0;
                    for (d, &ext) in s.iter().enumerate() {
                        let c = if ext == 1 { 0 } else { bi[lead + d] };
                        off = off * ext + c;
                    }
                    let n = shape[axis_of[k]] as i64;
                    let x = v[off];
                    src[axis_of[k]] = if x < 0 { x + n } else { x } as usize;
                }
                HIx::M(..) => unreachable!(),
            }
        }
        flat.push(src.iter().zip(&cstr).map(|(a, b)| a * b).sum());
    }
    (rshape, flat)
}

struct Case {
    name: &'static str,
    /// The index expression on the host.
    host: Vec<HIx>,
}

fn idx(rng: &mut Rng, n: usize, extent: usize, shape: &[usize]) -> HIx {
    let count: usize = shape.iter().product();
    let _ = n;
    HIx::A(
        (0..count)
            .map(|_| {
                let v = rng.below(extent) as i64;
                if rng.bit() {
                    v - extent as i64
                } else {
                    v
                }
            })
            .collect(),
        shape.to_vec(),
    )
}

fn mask(rng: &mut Rng, shape: &[usize]) -> HIx {
    let count: usize = shape.iter().product();
    HIx::M(
        (0..count).map(|_| rng.below(3) == 0).collect(),
        shape.to_vec(),
    )
}

const ALL: SliceElem = SliceElem::Range {
    start: None,
    end: None,
    step: 1,
};

fn range(start: Option<isize>, end: Option<isize>, step: isize) -> SliceElem {
    SliceElem::Range { start, end, step }
}

/// The cases over a (5, 6, 7) source, and over a (4, 5, 6, 3) one for four arrays.
fn cases3(rng: &mut Rng) -> Vec<Case> {
    vec![
        Case {
            name: "a[i]",
            host: vec![idx(rng, 0, 5, &[10])],
        },
        Case {
            name: "a[:, i, j] broadcast",
            host: vec![HIx::S(ALL), idx(rng, 0, 6, &[3, 1]), idx(rng, 0, 7, &[4])],
        },
        Case {
            name: "a[i, :, j] separated",
            host: vec![idx(rng, 0, 5, &[4]), HIx::S(ALL), idx(rng, 0, 7, &[4])],
        },
        Case {
            name: "a[0, :, i] integer counts",
            host: vec![
                HIx::S(SliceElem::Index(-5)),
                HIx::S(ALL),
                idx(rng, 0, 7, &[2, 3]),
            ],
        },
        Case {
            name: "a[:, 2, i] adjacent integer",
            host: vec![
                HIx::S(ALL),
                HIx::S(SliceElem::Index(2)),
                idx(rng, 0, 7, &[3]),
            ],
        },
        Case {
            name: "a[1:4, i, ::-2]",
            host: vec![
                HIx::S(range(Some(1), Some(4), 1)),
                idx(rng, 0, 6, &[2, 2]),
                HIx::S(range(None, None, -2)),
            ],
        },
        Case {
            name: "a[None, i, None, j]",
            host: vec![
                HIx::S(SliceElem::NewAxis),
                idx(rng, 0, 5, &[3]),
                HIx::S(SliceElem::NewAxis),
                idx(rng, 0, 6, &[3]),
            ],
        },
        Case {
            name: "a[::-1, None, i]",
            host: vec![
                HIx::S(range(None, None, -1)),
                HIx::S(SliceElem::NewAxis),
                idx(rng, 0, 6, &[4]),
            ],
        },
        Case {
            name: "a[i, j, k]",
            host: vec![
                idx(rng, 0, 5, &[2, 3]),
                idx(rng, 0, 6, &[3]),
                idx(rng, 0, 7, &[2, 1]),
            ],
        },
        Case {
            name: "a[i0d, j0d] 1-d result",
            host: vec![idx(rng, 0, 5, &[]), idx(rng, 0, 6, &[])],
        },
        Case {
            name: "a[i0d, j0d, k0d] 0-d result",
            host: vec![
                idx(rng, 0, 5, &[]),
                idx(rng, 0, 6, &[]),
                idx(rng, 0, 7, &[]),
            ],
        },
        Case {
            name: "a[empty]",
            host: vec![HIx::A(vec![], vec![0])],
        },
        Case {
            name: "a[:, empty, 1]",
            host: vec![
                HIx::S(ALL),
                HIx::A(vec![], vec![0, 2]),
                HIx::S(SliceElem::Index(1)),
            ],
        },
        Case {
            name: "a[mask2]",
            host: vec![mask(rng, &[5, 6])],
        },
        Case {
            name: "a[:, mask1]",
            host: vec![HIx::S(ALL), mask(rng, &[6])],
        },
        Case {
            name: "a[mask3]",
            host: vec![mask(rng, &[5, 6, 7])],
        },
        Case {
            name: "a[mask1, :, i] separated",
            host: vec![
                HIx::M(vec![true, false, true, false, true], vec![5]),
                HIx::S(ALL),
                idx(rng, 0, 7, &[3]),
            ],
        },
        Case {
            name: "a[1:, mask1, 3:0:-1]",
            host: vec![
                HIx::S(range(Some(1), None, 1)),
                mask(rng, &[6]),
                HIx::S(range(Some(3), Some(0), -1)),
            ],
        },
    ]
}

/// The index arrays and masks of a host expression, on the device.
type IndexArrays = (Vec<DeviceArray<i64>>, Vec<DeviceArray<bool>>);

fn to_device(dev: &Device, host: &[HIx]) -> cuarray::Result<IndexArrays> {
    let mut ints = Vec::new();
    let mut masks = Vec::new();
    for e in host {
        match e {
            HIx::A(v, s) => ints.push(DeviceArray::from_host(dev, v, s)?),
            HIx::M(m, s) => masks.push(DeviceArray::from_host(dev, m, s)?),
            HIx::S(_) => {}
        }
    }
    Ok((ints, masks))
}

fn expr<'a>(
    host: &[HIx],
    ints: &'a [DeviceArray<i64>],
    masks: &'a [DeviceArray<bool>],
) -> Vec<IndexElem<'a>> {
    let (mut i, mut m) = (0, 0);
    host.iter()
        .map(|e| match e {
            HIx::S(s) => IndexElem::Basic(*s),
            HIx::A(..) => {
                i += 1;
                IndexElem::Int(&ints[i - 1])
            }
            HIx::M(..) => {
                m += 1;
                IndexElem::Mask(&masks[m - 1])
            }
        })
        .collect()
}

/// A (5, 6, 7) view that is not contiguous: every other row of a larger array, reversed
/// along its last axis.
fn source<T: TElem>(
    dev: &Device,
    rng: &mut Rng,
    shape: &[usize],
) -> cuarray::Result<(DeviceArray<T>, Vec<T>)> {
    let mut big_shape = shape.to_vec();
    big_shape[0] *= 2;
    *big_shape.last_mut().unwrap() += 1;
    let n: usize = big_shape.iter().product();
    let big = DeviceArray::from_host(dev, &data::<T>(rng, n, Kind::Random), &big_shape)?;
    let mut spec = vec![range(None, None, 2)];
    spec.extend(std::iter::repeat_n(ALL, shape.len() - 2));
    spec.push(range(Some(shape[shape.len() - 1] as isize - 1), None, -1));
    let v = big.slice(&spec)?;
    assert_eq!(v.shape(), shape);
    let h = v.to_host()?;
    Ok((v, h))
}

fn gathers<T: TElem>(dev: &Device, rng: &mut Rng) -> TResult {
    let (a, h) = source::<T>(dev, rng, &[5, 6, 7])?;
    let mut cases = cases3(rng);
    // Four index arrays on a 4-d source.
    let (a4, h4) = source::<T>(dev, rng, &[4, 5, 6, 3])?;
    let four = vec![
        idx(rng, 0, 4, &[3, 1]),
        idx(rng, 0, 5, &[4]),
        idx(rng, 0, 6, &[1, 4]),
        idx(rng, 0, 3, &[3, 4]),
    ];
    let four_sep = vec![
        idx(rng, 0, 4, &[2]),
        HIx::S(range(None, None, -2)),
        idx(rng, 0, 6, &[2]),
        idx(rng, 0, 3, &[2]),
    ];
    for c in cases.drain(..) {
        let (ints, masks) = to_device(dev, &c.host)?;
        let got = a.index(expr(&c.host, &ints, &masks))?;
        let (shape, flat) = reference(a.shape(), &c.host);
        ensure!(
            got.shape() == shape,
            "{}: shape {:?}, NumPy {:?}",
            c.name,
            got.shape(),
            shape
        );
        let want: Vec<T> = flat.iter().map(|&p| h[p]).collect();
        check_eq(c.name, &got.to_host()?, &want)?;
    }
    for (name, host) in [("a4[i, j, k, l]", four), ("a4[i, ::-2, k, l]", four_sep)] {
        let (ints, masks) = to_device(dev, &host)?;
        let got = a4.index(expr(&host, &ints, &masks))?;
        let (shape, flat) = reference(a4.shape(), &host);
        ensure!(
            got.shape() == shape,
            "{name}: shape {:?}, NumPy {:?}",
            got.shape(),
            shape
        );
        let want: Vec<T> = flat.iter().map(|&p| h4[p]).collect();
        check_eq(name, &got.to_host()?, &want)?;
    }
    // Basic indices only: a copy of the view.
    let got = a.index(ix![1..;2, -1, ..;-3])?;
    check_eq(
        "basic only",
        &got.to_host()?,
        &a.slice(s![1..;2, -1, ..;-3])?.to_host()?,
    )?;
    Ok(())
}

/// The row path: whole contiguous rows, of several lengths and element sizes.
fn rows<T: TElem>(dev: &Device, rng: &mut Rng) -> TResult {
    for (n, w) in [(300usize, 64usize), (100, 6), (50, 3), (64, 17)] {
        let x = data::<T>(rng, n * w, Kind::Random);
        let a = DeviceArray::from_host(dev, &x, &[n, w])?;
        let iv: Vec<i64> = (0..500).map(|_| rng.below(n) as i64).collect();
        let i = DeviceArray::from_slice(dev, &iv)?;
        let want: Vec<T> = iv
            .iter()
            .flat_map(|&r| x[r as usize * w..][..w].to_vec())
            .collect();
        check_eq(
            &format!("rows {n}x{w}"),
            &a.index(ix![&i])?.to_host()?,
            &want,
        )?;
        // Scatter rows of distinct indices.
        let mut perm: Vec<i64> = (0..n as i64).collect();
        for k in (1..perm.len()).rev() {
            perm.swap(k, rng.below(k + 1));
        }
        let pick = &perm[..n / 2];
        let vals = data::<T>(rng, pick.len() * w, Kind::Random);
        let dst = DeviceArray::from_host(dev, &x, &[n, w])?;
        let pick_d = DeviceArray::from_slice(dev, pick)?;
        dst.index_put(
            ix![&pick_d],
            &DeviceArray::from_host(dev, &vals, &[pick.len(), w])?,
        )?;
        let mut want = x.clone();
        for (j, &r) in pick.iter().enumerate() {
            want[r as usize * w..][..w].copy_from_slice(&vals[j * w..][..w]);
        }
        check_eq(&format!("put rows {n}x{w}"), &dst.to_host()?, &want)?;
    }
    Ok(())
}

fn puts<T: TElem>(dev: &Device, rng: &mut Rng) -> TResult {
    for c in cases3(rng) {
        let (a, h) = source::<T>(dev, rng, &[5, 6, 7])?;
        let (ints, masks) = to_device(dev, &c.host)?;
        let (shape, flat) = reference(a.shape(), &c.host);
        // Only cases without duplicate positions compare exactly.
        let mut seen = std::collections::HashSet::new();
        if !flat.iter().all(|p| seen.insert(*p)) {
            continue;
        }
        let vals = data::<T>(rng, flat.len(), Kind::Random);
        a.index_put(
            expr(&c.host, &ints, &masks),
            &DeviceArray::from_host(dev, &vals, &shape)?,
        )?;
        let mut want = h.clone();
        for (k, &p) in flat.iter().enumerate() {
            want[p] = vals[k];
        }
        check_eq(&format!("put {}", c.name), &a.to_host()?, &want)?;
    }
    // A scalar, broadcast values, and a basic-only expression.
    let (a, h) = source::<T>(dev, rng, &[5, 6, 7])?;
    let v = T::from_val(Val::I(3));
    let host = vec![
        HIx::S(ALL),
        idx(rng, 0, 6, &[2]),
        HIx::S(range(Some(1), None, 3)),
    ];
    let (ints, masks) = to_device(dev, &host)?;
    a.index_put(expr(&host, &ints, &masks), v)?;
    let (_, flat) = reference(a.shape(), &host);
    let mut want = h.clone();
    for &p in &flat {
        want[p] = v;
    }
    check_eq("put scalar", &a.to_host()?, &want)?;
    let row = data::<T>(rng, 2, Kind::Random);
    a.index_put(
        ix![1..3, 2, ..;-3],
        &DeviceArray::from_slice(dev, &[row[0]])?,
    )?;
    let (_, flat) = reference(
        a.shape(),
        &[
            HIx::S(range(Some(1), Some(3), 1)),
            HIx::S(SliceElem::Index(2)),
            HIx::S(range(None, None, -3)),
        ],
    );
    for &p in &flat {
        want[p] = row[0];
    }
    check_eq("put basic only", &a.to_host()?, &want)?;
    // Duplicates: each element gets one of the values assigned to it.
    let a = DeviceArray::<T>::zeros(dev, &[4])?;
    let i = DeviceArray::from_slice(dev, &[1i64, 1, 1, 3])?;
    let vals = [
        T::from_val(Val::I(1)),
        T::from_val(Val::I(2)),
        T::from_val(Val::I(3)),
        T::from_val(Val::I(4)),
    ];
    a.index_put(ix![&i], &DeviceArray::from_slice(dev, &vals)?)?;
    let got = a.to_host()?;
    ensure!(
        vals[..3].contains(&got[1]) && got[3] == vals[3],
        "duplicates: {:?}",
        got.iter().map(|x| x.val()).collect::<Vec<_>>()
    );
    Ok(())
}

fn adds<T: TElem>(dev: &Device, rng: &mut Rng) -> TResult {
    // Small integer values: every sum is exact in every type (bool: logical or).
    let small = |rng: &mut Rng, n: usize| -> Vec<T> {
        (0..n)
            .map(|_| T::from_val(Val::I(rng.below(4) as i128)))
            .collect()
    };
    for c in cases3(rng) {
        let shape = [5usize, 6, 7];
        let base = small(rng, 210);
        let a = DeviceArray::from_host(dev, &base, &shape)?;
        let (ints, masks) = to_device(dev, &c.host)?;
        let (rshape, flat) = reference(&shape, &c.host);
        let vals = small(rng, flat.len());
        a.index_put_add(
            expr(&c.host, &ints, &masks),
            &DeviceArray::from_host(dev, &vals, &rshape)?,
        )?;
        let mut want = base.clone();
        for (k, &p) in flat.iter().enumerate() {
            want[p] = add(want[p], vals[k]);
        }
        check_eq(&format!("add {}", c.name), &a.to_host()?, &want)?;
    }
    // np.add.at with many duplicates.
    let a = DeviceArray::<T>::zeros(dev, &[3, 4])?;
    let iv: Vec<i64> = (0..1000)
        .map(|_| rng.below(3) as i64 - 3 * (rng.below(2) as i64))
        .collect();
    let i = DeviceArray::from_slice(dev, &iv)?;
    a.index_put_add(ix![&i, 1..3], T::from_val(Val::I(1)))?;
    let mut want = vec![T::from_val(Val::I(0)); 12];
    for &r in &iv {
        let r = r.rem_euclid(3) as usize;
        for c in 1..3 {
            want[r * 4 + c] = add(want[r * 4 + c], T::from_val(Val::I(1)));
        }
    }
    check_eq("add.at duplicates", &a.to_host()?, &want)?;
    Ok(())
}

fn add<T: TElem>(x: T, y: T) -> T {
    match (x.val(), y.val()) {
        (Val::B(a), Val::B(b)) => T::from_val(Val::B(a || b)),
        (Val::I(a), Val::I(b)) => T::from_val(Val::I(a + b)),
        (Val::F(a), Val::F(b)) => T::from_val(Val::F(a + b)),
        (a, b) => T::from_val(Val::F(to_f(a) + to_f(b))),
    }
}

fn to_f(v: Val) -> f64 {
    match v {
        Val::B(b) => b as i32 as f64,
        Val::I(i) => i as f64,
        Val::F(f) => f,
    }
}

fn errors(dev: &Device, _rng: &mut Rng) -> TResult {
    let a = DeviceArray::<f32>::zeros(dev, &[5, 6])?;
    let i2 = DeviceArray::from_slice(dev, &[0i64, 1])?;
    let i3 = DeviceArray::from_slice(dev, &[0i64, 1, 2])?;
    // Out of range: an error at the next wait, and the device stays usable.
    let bad = DeviceArray::from_slice(dev, &[0i64, 9])?;
    let r = a.index(ix![&bad]).and_then(|r| r.to_host());
    ensure!(
        matches!(
            r,
            Err(Error::IndexOutOfRange {
                index: 9,
                extent: 5,
                ..
            })
        ),
        "out of range: {r:?}"
    );
    let neg = DeviceArray::from_slice(dev, &[-7i64])?;
    let r = a.index_put(ix![.., &neg], 1.0).and_then(|_| a.to_host());
    ensure!(
        matches!(
            r,
            Err(Error::IndexOutOfRange {
                index: -7,
                extent: 6,
                ..
            })
        ),
        "put out of range: {r:?}"
    );
    ensure!(a.to_host()?.iter().all(|&x| x == 0.0), "nothing written");
    let r = a
        .index_put_add(ix![&bad], 1.0)
        .and_then(|_| dev.synchronize());
    ensure!(
        matches!(r, Err(Error::IndexOutOfRange { .. })),
        "add out of range: {r:?}"
    );
    // Index arrays that do not broadcast, masks of the wrong shape, too many indices.
    let e = a.index(ix![&i2, &i3]).unwrap_err().to_string();
    ensure!(e.contains("(2,)") && e.contains("(3,)"), "broadcast: {e}");
    let m = DeviceArray::<bool>::ones(dev, &[5, 5])?;
    let e = a.index(ix![&m]).unwrap_err().to_string();
    ensure!(e.contains("(5, 5)") && e.contains("(5, 6)"), "mask: {e}");
    let e = a.index(ix![&i2, &i2, &i2]).unwrap_err().to_string();
    ensure!(e.contains("too many indices"), "too many: {e}");
    let v = DeviceArray::<f32>::zeros(dev, &[3])?;
    let e = a.index_put(ix![&i2], &v).unwrap_err();
    ensure!(matches!(e, Error::Broadcast { .. }), "values: {e}");
    // Five index arrays are more than one kernel takes.
    let b = DeviceArray::<f32>::zeros(dev, &[2, 2, 2, 2, 2])?;
    let z = DeviceArray::from_slice(dev, &[0i64])?;
    ensure!(b.index(ix![&z, &z, &z, &z, &z]).is_err(), "five arrays");
    ensure!(a.to_host()?.len() == 30, "device usable after errors");
    Ok(())
}

pub fn trials(out: &mut Vec<Trial>) {
    macro_rules! per_type {
        ($($t:ty),*) => {$(
            let d = crate::common::dname::<$t>();
            add_gpu(out, format!("advanced_indexing/index/{d}/forms"), gathers::<$t>);
            add_gpu(out, format!("advanced_indexing/index_put/{d}/forms"), puts::<$t>);
            add_gpu(out, format!("advanced_indexing/rows/{d}/gather_put"), rows::<$t>);
            add_gpu(out, format!("advanced_indexing/index_put_add/{d}/duplicates"), adds::<$t>);
        )*};
    }
    per_type!(f32, f64, half::f16, i8, i32, i64, u8, u16, bool);
    crate::common::add_gpu_exclusive(
        out,
        "advanced_indexing/errors/f32/shapes_and_ranges".into(),
        errors,
    );
}
