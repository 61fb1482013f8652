//! NumPy's distributions on the GPU (src/random/distributions.rs, choice.rs): 10^7 samples
//! per distribution (moments against the exact ones with 6 standard errors, chi-square
//! against the pmf for the discrete ones, the support), determinism per seed, the same
//! numbers whatever the shape of the request or the grid (a call split in two equals one
//! call), and the host twin equal bit for bit. Cases: tests/support/dists.rs.

use crate::common::{ensure, gpu_trial, TResult};
use crate::dists::{self, ContCall, DiscCall};
use crate::stats::*;
use cuarray::random::{Generator, HostGenerator};
use cuarray::{Device, DeviceArray, FloatElement};
use libtest_mimic::Trial;

/// Samples per distribution.
const N: usize = 10_000_000;
/// Values compared with the host twin, bit for bit.
const N_HOST: usize = 1 << 16;

fn dev_cont<T: FloatElement>(
    g: &mut Generator,
    c: ContCall,
    s: &[usize],
) -> cuarray::Result<DeviceArray<T>> {
    crate::sample_cont!(g, T, c, s)
}

fn host_cont<T: FloatElement>(
    g: &mut HostGenerator,
    c: ContCall,
    s: &[usize],
) -> cuarray::Result<Vec<T>> {
    crate::sample_cont!(g, T, c, s)
}

fn dev_disc(g: &mut Generator, c: DiscCall, s: &[usize]) -> cuarray::Result<DeviceArray<i64>> {
    crate::sample_disc!(g, c, s)
}

fn host_disc(g: &mut HostGenerator, c: DiscCall, s: &[usize]) -> cuarray::Result<Vec<i64>> {
    crate::sample_disc!(g, c, s)
}

fn first_diff<T: PartialEq + std::fmt::Debug>(a: &[T], b: &[T]) -> Option<(usize, String)> {
    if a.len() != b.len() {
        return Some((usize::MAX, format!("lengths {} and {}", a.len(), b.len())));
    }
    a.iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .map(|i| (i, format!("{:?} against {:?}", a[i], b[i])))
}

fn cont_stats<T: FloatElement>(dev: &Device, c: dists::Cont, seed: u64) -> TResult {
    let what = format!("{} {}", c.name, T::DTYPE);
    let mut g = Generator::new(dev, seed);
    let xs: Vec<f64> = dev_cont::<T>(&mut g, c.call, &[N])?
        .to_host()?
        .into_iter()
        .map(|x| x.to_f64())
        .collect();
    // f32 results may round past an irrational end (von Mises' pi): one f32 ulp of room.
    let room = |v: f64| {
        if T::DTYPE == cuarray::DType::F64 {
            0.0
        } else {
            v.abs() * 1.2e-7
        }
    };
    let (lo, hi) = (
        c.support.0 - room(c.support.0),
        c.support.1 + room(c.support.1),
    );
    if let Some(x) = xs.iter().find(|&&x| !(x >= lo && x <= hi)) {
        ensure!(false, "{what}: {x} outside [{lo}, {hi}]");
    }
    match c.moments {
        Some((m, v, k)) => check_moments(&what, &xs, m, v, k)?,
        None => check_ks(&what, &xs, |x| 0.5 + x.atan() / std::f64::consts::PI)?,
    }
    Ok(())
}

fn cont_host<T: FloatElement>(dev: &Device, c: dists::Cont, seed: u64) -> TResult {
    // Bit for bit: a request of [N_HOST / 64, 64] on the device against [N_HOST] on the host,
    // after an odd-sized call so that the position is not a multiple of anything.
    let mut g = Generator::new(dev, seed);
    let mut h = HostGenerator::new(seed);
    dev_cont::<T>(&mut g, c.call, &[3, 7])?;
    host_cont::<T>(&mut h, c.call, &[21])?;
    let d = dev_cont::<T>(&mut g, c.call, &[N_HOST / 64, 64])?.to_host()?;
    let e = host_cont::<T>(&mut h, c.call, &[N_HOST])?;
    if let Some((i, m)) = first_diff(&d, &e) {
        ensure!(
            false,
            "{} {}: device and host differ at {i}: {m}",
            c.name,
            T::DTYPE
        );
    }
    ensure!(g.position() == h.position(), "positions differ");
    Ok(())
}

fn cont_layout<T: FloatElement>(dev: &Device, c: dists::Cont, seed: u64) -> TResult {
    // Determinism, shape independence and grid independence: one call of 100003 values
    // equals the same seed's [1000, 100] then [3] (other grids), and equals itself.
    let all = dev_cont::<T>(&mut Generator::new(dev, seed), c.call, &[100_003])?.to_host()?;
    let again = dev_cont::<T>(&mut Generator::new(dev, seed), c.call, &[100_003])?.to_host()?;
    ensure!(
        first_diff(&all, &again).is_none(),
        "{}: not deterministic",
        c.name
    );
    let mut g = Generator::new(dev, seed);
    let mut split = dev_cont::<T>(&mut g, c.call, &[1000, 100])?.to_host()?;
    split.extend(dev_cont::<T>(&mut g, c.call, &[3])?.to_host()?);
    if let Some((i, m)) = first_diff(&all, &split) {
        ensure!(false, "{}: split call differs at {i}: {m}", c.name);
    }
    let other = dev_cont::<T>(&mut Generator::new(dev, seed + 1), c.call, &[64])?.to_host()?;
    ensure!(
        first_diff(&all[..64], &other).is_some(),
        "{}: seeds give the same numbers",
        c.name
    );
    Ok(())
}

fn disc_stats(dev: &Device, c: dists::Disc, seed: u64) -> TResult {
    let mut g = Generator::new(dev, seed);
    let xs = dev_disc(&mut g, c.call, &[N])?.to_host()?;
    if let Some(x) = xs.iter().find(|&&x| x < c.support.0 || x > c.support.1) {
        ensure!(false, "{}: {x} outside {:?}", c.name, c.support);
    }
    let (m, v) = c.call.moments();
    // Kurtosis from the pmf (for the variance's standard error).
    let sd = v.sqrt();
    let (lo, hi) = (
        (m - 40.0 * sd - 10.0).floor().max(-1.0) as i64,
        (m + 40.0 * sd + 10.0).ceil() as i64,
    );
    let k4: f64 = (lo..=hi)
        .map(|k| c.call.pmf(k) * (k as f64 - m).powi(4))
        .sum();
    let f: Vec<f64> = xs.iter().map(|&x| x as f64).collect();
    check_moments(c.name, &f, m, v, k4 / (v * v))?;
    let (chi2, df) = dists::chi2_against_pmf(&xs, |k| c.call.pmf(k), m, sd);
    ensure!(
        chi2 <= chi2_threshold(df),
        "{}: chi-square {chi2:.1} > {:.1} ({df} df)",
        c.name,
        chi2_threshold(df)
    );
    Ok(())
}

fn disc_host(dev: &Device, c: dists::Disc, seed: u64) -> TResult {
    let mut g = Generator::new(dev, seed);
    let mut h = HostGenerator::new(seed);
    dev_disc(&mut g, c.call, &[5])?;
    host_disc(&mut h, c.call, &[5])?;
    let d = dev_disc(&mut g, c.call, &[N_HOST / 16, 16])?.to_host()?;
    let e = host_disc(&mut h, c.call, &[N_HOST])?;
    if let Some((i, m)) = first_diff(&d, &e) {
        ensure!(false, "{}: device and host differ at {i}: {m}", c.name);
    }
    let mut g = Generator::new(dev, seed);
    let mut split = dev_disc(&mut g, c.call, &[999, 10])?.to_host()?;
    split.extend(dev_disc(&mut g, c.call, &[7])?.to_host()?);
    let all = dev_disc(&mut Generator::new(dev, seed), c.call, &[9997])?.to_host()?;
    ensure!(
        first_diff(&all, &split).is_none(),
        "{}: a split call differs",
        c.name
    );
    Ok(())
}

fn rows(dev: &Device) -> TResult {
    let alpha = [0.5, 1.0, 3.0, 0.01];
    let mut g = Generator::new(dev, 31);
    let mut h = HostGenerator::new(31);
    let d = g.dirichlet::<f64>(&alpha, &[100_000])?;
    ensure!(d.shape() == [100_000, 4], "dirichlet shape {:?}", d.shape());
    let d = d.to_host()?;
    let e = h.dirichlet::<f64>(&alpha, &[100_000])?;
    ensure!(
        first_diff(&d, &e).is_none(),
        "dirichlet f64: device and host differ at {:?}",
        first_diff(&d, &e)
    );
    let df = g.dirichlet::<f32>(&alpha, &[1000, 3])?.to_host()?;
    let ef = h.dirichlet::<f32>(&alpha, &[1000, 3])?;
    ensure!(
        first_diff(&df, &ef).is_none(),
        "dirichlet f32: device and host differ"
    );
    ensure!(
        d.chunks(4)
            .all(|r| (r.iter().sum::<f64>() - 1.0).abs() < 1e-12),
        "dirichlet rows do not sum to 1"
    );
    let a0: f64 = alpha.iter().sum();
    for (k, &a) in alpha.iter().enumerate() {
        let col: Vec<f64> = d.chunks(4).map(|r| r[k]).collect();
        let (al, be) = (a, a0 - a);
        let ex = 6.0 * ((al - be).powi(2) * (a0 + 1.0) - al * be * (a0 + 2.0))
            / (al * be * (a0 + 2.0) * (a0 + 3.0));
        check_moments(
            &format!("dirichlet[{k}]"),
            &col,
            a / a0,
            a * (a0 - a) / (a0 * a0 * (a0 + 1.0)),
            3.0 + ex,
        )?;
    }
    let p = [0.2, 0.3, 0.1, 0.4];
    let c = g.multinomial(1000, &p, &[100_000])?.to_host()?;
    let e = h.multinomial(1000, &p, &[100_000])?;
    ensure!(
        first_diff(&c, &e).is_none(),
        "multinomial: device and host differ"
    );
    ensure!(
        c.chunks(4).all(|r| r.iter().sum::<i64>() == 1000),
        "multinomial rows do not sum to n"
    );
    for (k, &pk) in p.iter().enumerate() {
        let col: Vec<f64> = c.chunks(4).map(|r| r[k] as f64).collect();
        check_moments(
            &format!("multinomial[{k}]"),
            &col,
            1000.0 * pk,
            1000.0 * pk * (1.0 - pk),
            3.01,
        )?;
    }
    Ok(())
}

fn choice(dev: &Device) -> TResult {
    let mut g = Generator::new(dev, 41);
    let mut h = HostGenerator::new(41);
    // With p: the host twin, and chi-square of 10^7 draws from 1000 weights.
    let w: Vec<f64> = (0..1000)
        .map(|i| if i % 7 == 3 { 0.0 } else { (1 + i % 13) as f64 })
        .collect();
    let s: f64 = w.iter().sum();
    let p: Vec<f64> = w.iter().map(|v| v / s).collect();
    let pd = DeviceArray::from_slice(dev, &p)?;
    let x = g.choice(1000, &[N], true, Some(&pd))?.to_host()?;
    let y = h.choice(1000, &[N], true, Some(&p))?;
    ensure!(
        first_diff(&x[..N_HOST], &y[..N_HOST]).is_none(),
        "choice with p: device and host differ"
    );
    let mut counts = vec![0u64; 1000];
    x.iter().for_each(|&i| counts[i as usize] += 1);
    let mut chi2 = 0.0;
    let mut cells = 0;
    for i in 0..1000 {
        if p[i] == 0.0 {
            ensure!(counts[i] == 0, "choice drew index {i} of probability 0");
        } else {
            let e = N as f64 * p[i];
            chi2 += (counts[i] as f64 - e).powi(2) / e;
            cells += 1;
        }
    }
    ensure!(
        chi2 <= chi2_threshold(cells - 1),
        "choice with p: chi-square {chi2}"
    );
    // Without replacement: distinct, and the host's.
    let x = g.choice(1 << 20, &[1 << 12], false, None)?.to_host()?;
    let y = h.choice(1 << 20, &[1 << 12], false, None)?;
    ensure!(x == y, "choice without replacement: device and host differ");
    let mut sorted = x.clone();
    sorted.sort();
    sorted.dedup();
    ensure!(
        sorted.len() == x.len(),
        "choice without replacement repeated an index"
    );
    // A large sample (2^17 of 2^20: the radix selection with many candidate tiles).
    let x = g.choice(1 << 20, &[1 << 17], false, None)?.to_host()?;
    let y = h.choice(1 << 20, &[1 << 17], false, None)?;
    ensure!(
        x == y,
        "large choice without replacement: device and host differ"
    );
    let mut sorted = x.clone();
    sorted.sort();
    sorted.dedup();
    ensure!(sorted.len() == x.len(), "large choice repeated an index");
    let x = g.choice(1000, &[10, 50], false, Some(&pd))?;
    ensure!(x.shape() == [10, 50], "shape {:?}", x.shape());
    let y = h.choice(1000, &[10, 50], false, Some(&p))?;
    ensure!(
        x.to_host()? == y,
        "weighted choice without replacement: device and host differ"
    );
    // With replacement, no p: integers.
    let x = g.choice(10, &[4, 4], true, None)?.to_host()?;
    let y = h.choice(10, &[4, 4], true, None)?;
    ensure!(x == y, "uniform choice: device and host differ");
    // choice_from: rows of a.
    let a = DeviceArray::<f32>::from_host(
        dev,
        &(0..30).map(|v| v as f32).collect::<Vec<_>>(),
        &[10, 3],
    )?;
    let r = g.choice_from(
        &a,
        &[2, 4],
        true,
        Some(&DeviceArray::from_slice(dev, &[0.1; 10])?),
    )?;
    ensure!(r.shape() == [2, 4, 3], "choice_from shape {:?}", r.shape());
    let rv = r.to_host()?;
    ensure!(
        rv.chunks(3)
            .all(|row| row[0] as i32 % 3 == 0 && row[1] == row[0] + 1.0),
        "choice_from rows"
    );
    // Errors.
    ensure!(
        g.choice(3, &[4], false, None).is_err(),
        "size > n without replacement"
    );
    let bad = DeviceArray::from_slice(dev, &[0.5, 0.6, -0.1])?;
    ensure!(g.choice(3, &[1], true, Some(&bad)).is_err(), "negative p");
    Ok(())
}

fn mvn(dev: &Device) -> TResult {
    let cov = [2.0, 0.6, 0.0, 0.6, 1.0, -0.3, 0.0, -0.3, 0.5];
    let mean = [1.0, -2.0, 0.5];
    let n = 1_000_000;
    let mut g = Generator::new(dev, 51);
    let md = DeviceArray::from_slice(dev, &mean)?;
    let cd = DeviceArray::from_host(dev, &cov, &[3, 3])?;
    let x = g.multivariate_normal(&md, &cd, &[n])?;
    ensure!(x.shape() == [n, 3], "shape {:?}", x.shape());
    let x = x.to_host()?;
    let hx = HostGenerator::new(51).multivariate_normal(&mean, &cov, &[n])?;
    let err = x
        .iter()
        .zip(&hx)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    ensure!(err < 1e-12, "device and host differ by {err}");
    for i in 0..3 {
        for j in 0..3 {
            let c: f64 = x
                .chunks(3)
                .map(|v| (v[i] - mean[i]) * (v[j] - mean[j]))
                .sum::<f64>()
                / n as f64;
            let se = ((cov[i * 3 + i] * cov[j * 3 + j] + cov[i * 3 + j].powi(2)) / n as f64).sqrt();
            ensure!((c - cov[i * 3 + j]).abs() < 6.0 * se, "cov[{i}, {j}] = {c}");
        }
    }
    // Singular but PSD: fine; indefinite: an error naming cov.
    let sing = DeviceArray::from_host(dev, &[1.0f64, 1.0, 1.0, 1.0], &[2, 2])?;
    let m2 = DeviceArray::from_slice(dev, &[0.0f64, 0.0])?;
    let y = g.multivariate_normal(&m2, &sing, &[100])?.to_host()?;
    ensure!(
        y.chunks(2).all(|v| (v[0] - v[1]).abs() < 1e-12),
        "singular cov"
    );
    let ind = DeviceArray::from_host(dev, &[1.0, 2.0, 2.0, 1.0], &[2, 2])?;
    match g.multivariate_normal(&m2, &ind, &[1]) {
        Err(e) => ensure!(
            e.to_string().contains("cov"),
            "error does not name cov: {e}"
        ),
        Ok(_) => ensure!(false, "an indefinite cov gave no error"),
    }
    Ok(())
}

fn errors(dev: &Device) -> TResult {
    let mut g = Generator::new(dev, 0);
    ensure!(g.standard_gamma::<f32>(0.0, &[1]).is_err(), "k = 0");
    ensure!(g.poisson(-1.0, &[1]).is_err(), "lam < 0");
    ensure!(g.binomial(3, 1.5, &[1]).is_err(), "p > 1");
    ensure!(g.multinomial(3, &[0.9, 0.9, 0.1], &[1]).is_err(), "pvals");
    ensure!(g.position() == 0, "an error moved the position");
    // Empty requests are fine and use nothing.
    ensure!(g.gamma::<f32>(2.0, 1.0, &[0, 3])?.size() == 0, "empty");
    ensure!(g.position() == 0, "an empty call moved the position");
    Ok(())
}

pub fn trials(out: &mut Vec<Trial>) {
    for (i, c) in dists::continuous().into_iter().enumerate() {
        let seed = 1000 + i as u64;
        let name = c.name.replace(' ', "");
        out.push(gpu_trial(
            format!("random_dist/{name}/f32/stats"),
            move |d| cont_stats::<f32>(d, c, seed),
        ));
        out.push(gpu_trial(
            format!("random_dist/{name}/f64/stats"),
            move |d| cont_stats::<f64>(d, c, seed),
        ));
        out.push(gpu_trial(
            format!("random_dist/{name}/f32/matches_host"),
            move |d| cont_host::<f32>(d, c, seed),
        ));
        out.push(gpu_trial(
            format!("random_dist/{name}/f64/matches_host"),
            move |d| cont_host::<f64>(d, c, seed),
        ));
        out.push(gpu_trial(
            format!("random_dist/{name}/f64/layout_and_seed"),
            move |d| cont_layout::<f64>(d, c, seed),
        ));
    }
    for (i, c) in dists::discrete().into_iter().enumerate() {
        let seed = 2000 + i as u64;
        let name = c.name.replace(' ', "");
        out.push(gpu_trial(
            format!("random_dist/{name}/i64/stats"),
            move |d| disc_stats(d, c, seed),
        ));
        out.push(gpu_trial(
            format!("random_dist/{name}/i64/matches_host"),
            move |d| disc_host(d, c, seed),
        ));
    }
    out.push(gpu_trial(
        "random_dist/dirichlet_multinomial/rows/host_and_moments",
        rows,
    ));
    out.push(gpu_trial("random_dist/choice/i64/p_replace_from", choice));
    out.push(gpu_trial(
        "random_dist/multivariate_normal/f64/cov_and_psd",
        mvn,
    ));
    out.push(gpu_trial("random_dist/errors/all/bad_arguments", errors));
}
