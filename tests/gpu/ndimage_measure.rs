//! Labelling, measurements, hole filling and the distance transform of `cuarray::ndimage`
//! on the GPU against host references written from scipy.ndimage's definitions: labels
//! numbered in the raster order of each component's first element (a host flood fill),
//! 1-D to 3-D masks of odd sizes and several densities, the cross and full structures,
//! repeated and missing labels in `index`, u8 / f32 / f64 inputs, and the errors.

use crate::common::{add_gpu, ensure, Rng, TResult};
use cuarray::ndimage;
use cuarray::{Device, DeviceArray, NumElement};
use libtest_mimic::Trial;

fn strides(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1; shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        s[d] = s[d + 1] * shape[d + 1];
    }
    s
}

fn coords(shape: &[usize], mut t: usize) -> Vec<usize> {
    let mut c = vec![0; shape.len()];
    for d in (0..shape.len()).rev() {
        c[d] = t % shape[d];
        t /= shape[d];
    }
    c
}

/// The neighbour offsets of a 3^rank structure (centre excluded).
fn offsets(st: &[bool], rank: usize) -> Vec<Vec<isize>> {
    (0..st.len())
        .filter(|&e| st[e] && e != st.len() / 2)
        .map(|e| {
            coords(&vec![3; rank], e)
                .iter()
                .map(|&k| k as isize - 1)
                .collect()
        })
        .collect()
}

fn neighbour(shape: &[usize], t: usize, off: &[isize]) -> Option<usize> {
    let c = coords(shape, t);
    let st = strides(shape);
    let mut at = 0;
    for d in 0..shape.len() {
        let x = c[d] as isize + off[d];
        if x < 0 || x >= shape[d] as isize {
            return None;
        }
        at += x as usize * st[d];
    }
    Some(at)
}

/// SciPy's labels: a flood fill from each unlabelled element in raster order.
fn host_label(mask: &[bool], shape: &[usize], st: &[bool]) -> (Vec<i32>, usize) {
    let offs = offsets(st, shape.len());
    let mut lab = vec![0i32; mask.len()];
    let mut n = 0;
    for t in 0..mask.len() {
        if !mask[t] || lab[t] != 0 {
            continue;
        }
        n += 1;
        lab[t] = n as i32;
        let mut stack = vec![t];
        while let Some(u) = stack.pop() {
            for o in &offs {
                if let Some(v) = neighbour(shape, u, o) {
                    if mask[v] && lab[v] == 0 {
                        lab[v] = n as i32;
                        stack.push(v);
                    }
                }
            }
        }
    }
    (lab, n)
}

fn random_mask(rng: &mut Rng, n: usize, density: f64) -> Vec<bool> {
    (0..n).map(|_| rng.unit() < density).collect()
}

const SHAPES: [&[usize]; 5] = [&[57], &[17, 23], &[31, 33], &[6, 7, 5], &[1, 9]];

fn labels(dev: &Device, rng: &mut Rng) -> TResult {
    for shape in SHAPES {
        let n: usize = shape.iter().product();
        let rank = shape.len();
        for density in [0.3, 0.55, 0.8] {
            let m = random_mask(rng, n, density);
            let md = DeviceArray::from_host(dev, &m, shape)?;
            for conn in [1, rank] {
                let st = ndimage::generate_binary_structure(dev, rank, conn)?;
                let sh = st.to_host()?;
                let (want, wn) = host_label(&m, shape, &sh);
                let structure = if conn == 1 { None } else { Some(&st) };
                let (got, gn) = ndimage::label(&md, structure)?;
                ensure!(gn == wn, "label {shape:?} density {density} connectivity {conn}: {gn} objects, want {wn}");
                ensure!(
                    got.to_host()? == want,
                    "label {shape:?} density {density} connectivity {conn}: labels differ"
                );
                // Bounding boxes from the host labels.
                let boxes = ndimage::find_objects(&got)?;
                ensure!(
                    boxes.len() == wn,
                    "find_objects: {} boxes, want {wn}",
                    boxes.len()
                );
                for (k, b) in boxes.iter().enumerate() {
                    let Some(b) = b else {
                        return Err(format!("find_objects: label {} has no box", k + 1).into());
                    };
                    for (d, range) in b.iter().enumerate() {
                        let along: Vec<usize> = (0..n)
                            .filter(|&t| want[t] == k as i32 + 1)
                            .map(|t| coords(shape, t)[d])
                            .collect();
                        let lo = *along.iter().min().unwrap();
                        let hi = *along.iter().max().unwrap() + 1;
                        ensure!(
                            *range == (lo..hi),
                            "find_objects label {} axis {d}: {:?} != {lo}..{hi}",
                            k + 1,
                            b[d]
                        );
                    }
                }
            }
        }
    }
    // A transposed (non-contiguous) mask, an empty one and one without objects.
    let m = random_mask(rng, 15 * 11, 0.5);
    let md = DeviceArray::from_host(dev, &m, [15, 11])?.t();
    let mt = md.to_host()?;
    let cross = ndimage::generate_binary_structure(dev, 2, 1)?.to_host()?;
    let (want, wn) = host_label(&mt, &[11, 15], &cross);
    let (got, gn) = ndimage::label(&md, None)?;
    ensure!(
        gn == wn && got.to_host()? == want,
        "label of a transposed mask"
    );
    let (e, en) = ndimage::label(&DeviceArray::<bool>::zeros(dev, [0, 4])?, None)?;
    ensure!(en == 0 && e.shape() == [0, 4], "label of an empty mask");
    let (z, zn) = ndimage::label(&DeviceArray::<bool>::zeros(dev, [5, 4])?, None)?;
    ensure!(
        zn == 0 && z.to_host()?.iter().all(|&l| l == 0),
        "label of an empty image"
    );
    // A structure of another rank, or not 3 wide, is an error naming it.
    let s1 = DeviceArray::from_slice(dev, &[true, true, true])?;
    let s5 = DeviceArray::<bool>::ones(dev, [5, 5])?;
    for s in [&s1, &s5] {
        match ndimage::label(&md, Some(s)) {
            Err(e) => ensure!(e.to_string().contains("structure"), "{e}"),
            Ok(_) => return Err("no error for a bad structure".into()),
        }
    }
    Ok(())
}

fn measurements<T: NumElement>(dev: &Device, rng: &mut Rng) -> TResult {
    for shape in [&[101usize][..], &[19, 27], &[5, 8, 7]] {
        let n: usize = shape.iter().product();
        let rank = shape.len();
        let x: Vec<f64> = (0..n)
            .map(|_| {
                T::from_f64(
                    rng.int(0, 200) as f64
                        + if T::DTYPE == cuarray::DType::U8 {
                            0.0
                        } else {
                            0.25
                        },
                )
                .to_f64()
            })
            .collect();
        let l: Vec<i32> = (0..n).map(|_| rng.int(0, 6) as i32).collect();
        let xd = DeviceArray::from_host(
            dev,
            &x.iter().map(|&v| T::from_f64(v)).collect::<Vec<_>>(),
            shape,
        )?;
        let ld = DeviceArray::from_host(dev, &l, shape)?;
        // Repeated, missing (9), background (0) and negative labels.
        let index = [3, 1, 0, 9, 3, 6, -2];
        let lr = &l;
        let of = |k: i32| (0..n).filter(move |&t| lr[t] == k);
        let close = |what: &str, got: Vec<f64>, want: Vec<f64>| -> TResult {
            ensure!(
                got.len() == want.len(),
                "{what}: {} values, want {}",
                got.len(),
                want.len()
            );
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                ensure!(
                    (g - w).abs() <= 1e-9 * w.abs().max(1.0)
                        || (g.is_nan() && w.is_nan())
                        || g == w,
                    "{what} {shape:?} [{i}]: {g} != {w}"
                );
            }
            Ok(())
        };
        let sums: Vec<f64> = index.iter().map(|&k| of(k).map(|t| x[t]).sum()).collect();
        let counts: Vec<f64> = index.iter().map(|&k| of(k).count() as f64).collect();
        let means: Vec<f64> = sums.iter().zip(&counts).map(|(s, c)| s / c).collect();
        let vars: Vec<f64> = index
            .iter()
            .zip(&means)
            .zip(&counts)
            .map(|((&k, m), c)| of(k).map(|t| (x[t] - m) * (x[t] - m)).sum::<f64>() / c)
            .collect();
        close(
            "sum_labels",
            ndimage::sum_labels(&xd, &ld, &index)?.to_host()?,
            sums.clone(),
        )?;
        close("mean", ndimage::mean(&xd, &ld, &index)?.to_host()?, means)?;
        close(
            "variance",
            ndimage::variance(&xd, &ld, &index)?.to_host()?,
            vars.clone(),
        )?;
        close(
            "standard_deviation",
            ndimage::standard_deviation(&xd, &ld, &index)?.to_host()?,
            vars.iter().map(|v| v.sqrt()).collect(),
        )?;
        let mins: Vec<f64> = index
            .iter()
            .map(|&k| of(k).map(|t| x[t]).fold(f64::INFINITY, f64::min))
            .collect();
        let maxs: Vec<f64> = index
            .iter()
            .map(|&k| of(k).map(|t| x[t]).fold(f64::NEG_INFINITY, f64::max))
            .collect();
        close(
            "minimum",
            ndimage::minimum(&xd, &ld, &index)?.to_host()?,
            mins.clone(),
        )?;
        close(
            "maximum",
            ndimage::maximum(&xd, &ld, &index)?.to_host()?,
            maxs.clone(),
        )?;
        let (lo, hi, lo_at, hi_at) = ndimage::extrema(&xd, &ld, &index)?;
        close("extrema min", lo.to_host()?, mins.clone())?;
        close("extrema max", hi.to_host()?, maxs.clone())?;
        ensure!(
            lo_at.shape() == [index.len(), rank],
            "extrema positions' shape {:?}",
            lo_at.shape()
        );
        let (lo_at, hi_at) = (lo_at.to_host()?, hi_at.to_host()?);
        for (j, &k) in index.iter().enumerate() {
            if counts[j] == 0.0 {
                continue;
            }
            let first = |v: f64| of(k).find(|&t| x[t] == v).unwrap();
            let want_lo: Vec<i64> = coords(shape, first(mins[j]))
                .iter()
                .map(|&c| c as i64)
                .collect();
            let want_hi: Vec<i64> = coords(shape, first(maxs[j]))
                .iter()
                .map(|&c| c as i64)
                .collect();
            ensure!(
                lo_at[j * rank..(j + 1) * rank] == want_lo[..],
                "extrema min position of label {k}"
            );
            ensure!(
                hi_at[j * rank..(j + 1) * rank] == want_hi[..],
                "extrema max position of label {k}"
            );
        }
        let com: Vec<f64> = index
            .iter()
            .zip(&sums)
            .flat_map(|(&k, s)| {
                (0..rank)
                    .map(|d| {
                        of(k)
                            .map(|t| x[t] * coords(shape, t)[d] as f64)
                            .sum::<f64>()
                            / s
                    })
                    .collect::<Vec<_>>()
            })
            .collect();
        let got = ndimage::center_of_mass(&xd, &ld, &index)?;
        ensure!(
            got.shape() == [index.len(), rank],
            "center_of_mass shape {:?}",
            got.shape()
        );
        close("center_of_mass", got.to_host()?, com)?;
    }
    let x = DeviceArray::<f32>::ones(dev, [3, 4])?;
    let l = DeviceArray::<i32>::ones(dev, [4, 3])?;
    match ndimage::sum_labels(&x, &l, &[1]) {
        Err(e) => ensure!(e.to_string().contains("labels"), "{e}"),
        Ok(_) => return Err("no error for labels of another shape".into()),
    }
    Ok(())
}

fn fill_holes(dev: &Device, rng: &mut Rng) -> TResult {
    for shape in SHAPES {
        let n: usize = shape.iter().product();
        let rank = shape.len();
        for density in [0.5, 0.7] {
            let m = random_mask(rng, n, density);
            let md = DeviceArray::from_host(dev, &m, shape)?;
            for conn in [1, rank] {
                let st = ndimage::generate_binary_structure(dev, rank, conn)?;
                let offs = offsets(&st.to_host()?, rank);
                // Background reached from the border (any coordinate at 0 or n - 1).
                let mut outside = vec![false; n];
                let mut stack: Vec<usize> = (0..n)
                    .filter(|&t| {
                        !m[t]
                            && coords(shape, t)
                                .iter()
                                .zip(shape)
                                .any(|(&c, &s)| c == 0 || c + 1 == s)
                    })
                    .collect();
                stack.iter().for_each(|&t| outside[t] = true);
                while let Some(u) = stack.pop() {
                    for o in &offs {
                        if let Some(v) = neighbour(shape, u, o) {
                            if !m[v] && !outside[v] {
                                outside[v] = true;
                                stack.push(v);
                            }
                        }
                    }
                }
                let want: Vec<bool> = (0..n).map(|t| m[t] || !outside[t]).collect();
                let structure = if conn == 1 { None } else { Some(&st) };
                let got = ndimage::binary_fill_holes(&md, structure)?.to_host()?;
                ensure!(
                    got == want,
                    "binary_fill_holes {shape:?} density {density} connectivity {conn}"
                );
            }
        }
    }
    Ok(())
}

fn edt(dev: &Device, rng: &mut Rng) -> TResult {
    for shape in [&[41usize][..], &[17, 23], &[6, 7, 5], &[1, 9]] {
        let n: usize = shape.iter().product();
        let rank = shape.len();
        for density in [0.6, 0.95] {
            let mut m = random_mask(rng, n, density);
            m[rng.below(n)] = false;
            let md = DeviceArray::from_host(dev, &m, shape)?;
            for sampling in [
                None,
                Some(vec![1.5]),
                Some((0..rank).map(|d| 0.5 + d as f64).collect::<Vec<_>>()),
            ] {
                let s = sampling
                    .clone()
                    .map(|s| if s.len() == 1 { vec![s[0]; rank] } else { s })
                    .unwrap_or(vec![1.0; rank]);
                let want: Vec<f64> = (0..n)
                    .map(|t| {
                        if !m[t] {
                            return 0.0;
                        }
                        let c = coords(shape, t);
                        (0..n)
                            .filter(|&u| !m[u])
                            .map(|u| {
                                let b = coords(shape, u);
                                (0..rank)
                                    .map(|d| ((c[d] as f64 - b[d] as f64) * s[d]).powi(2))
                                    .sum::<f64>()
                            })
                            .fold(f64::INFINITY, f64::min)
                            .sqrt()
                    })
                    .collect();
                let got = ndimage::distance_transform_edt(&md, sampling.as_deref())?.to_host()?;
                for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                    ensure!(
                        (g - w).abs() <= 1e-12 * w.max(1.0),
                        "distance_transform_edt {shape:?} {sampling:?} [{i}]: {g} != {w}"
                    );
                }
            }
        }
    }
    // No background: infinite distances; a 0-d mask; a bad sampling.
    let ones = DeviceArray::<bool>::ones(dev, [3, 4])?;
    ensure!(
        ndimage::distance_transform_edt(&ones, None)?
            .to_host()?
            .iter()
            .all(|d| d.is_infinite()),
        "no background"
    );
    let z = DeviceArray::from_host(dev, &[false], [])?;
    ensure!(
        ndimage::distance_transform_edt(&z, None)?.to_host()? == vec![0.0],
        "0-d false"
    );
    match ndimage::distance_transform_edt(&ones, Some(&[1.0, -2.0])) {
        Err(e) => ensure!(e.to_string().contains("sampling"), "{e}"),
        Ok(_) => return Err("no error for a negative sampling".into()),
    }
    Ok(())
}

fn typed<T: NumElement>(out: &mut Vec<Trial>) {
    add_gpu(
        out,
        format!(
            "ndimage/measurements/{}/index_repeats_missing",
            T::DTYPE.name()
        ),
        measurements::<T>,
    );
}

pub fn trials(out: &mut Vec<Trial>) {
    add_gpu(out, "ndimage/label/bool/raster_order".into(), labels);
    typed::<u8>(out);
    typed::<f32>(out);
    typed::<f64>(out);
    add_gpu(
        out,
        "ndimage/binary_fill_holes/bool/structures".into(),
        fill_holes,
    );
    add_gpu(
        out,
        "ndimage/distance_transform_edt/bool/sampling".into(),
        edt,
    );
}
