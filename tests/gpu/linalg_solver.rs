//! `cuarray::linalg` (cuSOLVER) against host references, f32 and f64: residuals of
//! solves (`|A x - b|`), `Q` orthonormal with `Q R = A`, `U S Vh = A`, `V diag(w) Vᵀ = A`,
//! `L Lᵀ = A`, determinants against a host LU; ill-conditioned (Hilbert 8), singular and
//! non-positive-definite matrices in the middle of a batch (the error names the batch
//! index), transposed and strided views as inputs, empty batches. Each routine is reached
//! through each of its paths: batched small matrices, one large matrix, a batch of large
//! ones.

use crate::common::{add_gpu, ensure, gpu_trial_exclusive, Rng, TResult};
use cuarray::linalg::{self, NormOrd, RealElement};
use cuarray::{s, DType, Device, DeviceArray, Error};
use libtest_mimic::Trial;

// ---- host helpers ----------------------------------------------------------------------

/// Machine epsilon of `T`.
fn eps<T: RealElement>() -> f64 {
    if T::DTYPE == DType::F32 {
        f32::EPSILON as f64
    } else {
        f64::EPSILON
    }
}

fn up<T: RealElement>(dev: &Device, v: &[f64], shape: &[usize]) -> cuarray::Result<DeviceArray<T>> {
    let data: Vec<T> = v.iter().map(|&x| T::from_f64(x)).collect();
    DeviceArray::from_host(dev, &data, shape)
}

fn down<T: RealElement>(a: &DeviceArray<T>) -> cuarray::Result<Vec<f64>> {
    Ok(a.to_host()?.into_iter().map(|x| x.to_f64()).collect())
}

/// Row-major `(m, k) @ (k, n)`.
fn mm(a: &[f64], b: &[f64], m: usize, k: usize, n: usize) -> Vec<f64> {
    let mut c = vec![0.0; m * n];
    for i in 0..m {
        for p in 0..k {
            let x = a[i * k + p];
            for j in 0..n {
                c[i * n + j] += x * b[p * n + j];
            }
        }
    }
    c
}

/// Transpose of a row-major `(m, n)`.
fn tr(a: &[f64], m: usize, n: usize) -> Vec<f64> {
    let mut t = vec![0.0; m * n];
    for i in 0..m {
        for j in 0..n {
            t[j * m + i] = a[i * n + j];
        }
    }
    t
}

fn fro(a: &[f64]) -> f64 {
    a.iter().map(|x| x * x).sum::<f64>().sqrt()
}

fn diff(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y) * (x - y))
        .sum::<f64>()
        .sqrt()
}

/// Determinant by LU with partial pivoting.
fn host_det(a: &[f64], n: usize) -> f64 {
    let mut m = a.to_vec();
    let mut det = 1.0;
    for k in 0..n {
        let p = (k..n)
            .max_by(|&i, &j| m[i * n + k].abs().total_cmp(&m[j * n + k].abs()))
            .unwrap();
        if m[p * n + k] == 0.0 {
            return 0.0;
        }
        if p != k {
            for j in 0..n {
                m.swap(k * n + j, p * n + j);
            }
            det = -det;
        }
        det *= m[k * n + k];
        for i in k + 1..n {
            let l = m[i * n + k] / m[k * n + k];
            for j in k..n {
                m[i * n + j] -= l * m[k * n + j];
            }
        }
    }
    det
}

fn random(rng: &mut Rng, len: usize) -> Vec<f64> {
    (0..len).map(|_| rng.range(-1.0, 1.0)).collect()
}

/// `count` well-conditioned `n x n` matrices (random plus `n` on the diagonal).
fn well_conditioned(rng: &mut Rng, count: usize, n: usize) -> Vec<f64> {
    let mut v = random(rng, count * n * n);
    for b in 0..count {
        for i in 0..n {
            v[b * n * n + i * n + i] += n as f64;
        }
    }
    v
}

/// `count` symmetric positive-definite `n x n` matrices: `M Mᵀ + n I`.
fn spd(rng: &mut Rng, count: usize, n: usize) -> Vec<f64> {
    let mut out = Vec::with_capacity(count * n * n);
    for _ in 0..count {
        let m = random(rng, n * n);
        let mut a = mm(&m, &tr(&m, n, n), n, n, n);
        for i in 0..n {
            a[i * n + i] += n as f64;
        }
        out.extend(a);
    }
    out
}

/// `count` symmetric `n x n` matrices.
fn symmetric(rng: &mut Rng, count: usize, n: usize) -> Vec<f64> {
    let mut v = random(rng, count * n * n);
    for b in 0..count {
        for i in 0..n {
            for j in 0..i {
                v[b * n * n + j * n + i] = v[b * n * n + i * n + j];
            }
        }
    }
    v
}

/// `|A x - b| / (|A| |x| + |b|)` for each matrix of a batch (`a` `count x n x n`, `x` and
/// `b` `count x n x k`), the largest.
fn solve_residual(a: &[f64], x: &[f64], b: &[f64], count: usize, n: usize, k: usize) -> f64 {
    (0..count)
        .map(|i| {
            let ai = &a[i * n * n..(i + 1) * n * n];
            let xi = &x[i * n * k..(i + 1) * n * k];
            let bi = &b[i * n * k..(i + 1) * n * k];
            diff(&mm(ai, xi, n, n, k), bi) / (fro(ai) * fro(xi) + fro(bi))
        })
        .fold(0.0, f64::max)
}

fn expect_err<V>(r: cuarray::Result<V>, what: &str) -> Result<Error, libtest_mimic::Failed> {
    match r {
        Ok(_) => Err(format!("{what}: expected an error").into()),
        Err(e) => Ok(e),
    }
}

// ---- solve and inv -------------------------------------------------------------------

/// Solves of `count` matrices `n x n` with `k` right-hand sides each: the batched, the
/// looped and the one-matrix paths.
fn solve_sizes<T: RealElement>(dev: &Device, rng: &mut Rng) -> TResult {
    for &(count, n, k) in &[
        (1, 1, 1),
        (1, 7, 3),
        (300, 8, 1),
        (5, 32, 4),
        (3, 40, 2),
        (1, 200, 5),
    ] {
        let a = well_conditioned(rng, count, n);
        let b = random(rng, count * n * k);
        let (ash, bsh) = if count == 1 {
            (vec![n, n], vec![n, k])
        } else {
            (vec![count, n, n], vec![count, n, k])
        };
        let x = linalg::solve(&up::<T>(dev, &a, &ash)?, &up::<T>(dev, &b, &bsh)?)?;
        ensure!(x.shape() == bsh.as_slice(), "solve shape {:?}", x.shape());
        let r = solve_residual(&a, &down(&x)?, &b, count, n, k);
        ensure!(
            r < 20.0 * n as f64 * eps::<T>(),
            "solve {count}x{n}x{n} k={k}: residual {r:e}"
        );
    }
    Ok(())
}

/// One large matrix (`n >= 1024`: the checked solve's blocked triangular solves, with a
/// partial last block): plain, a vector, factored once for a batch of right-hand sides,
/// a transposed view, ill-conditioned, and singular (the pivot is reported, before any
/// triangular solve); `solve_ex` (cuSOLVER's `Xgetrs`) agrees.
fn solve_large<T: RealElement>(dev: &Device, rng: &mut Rng) -> TResult {
    let n = 1030;
    let tol = 40.0 * n as f64 * eps::<T>();
    let a = random(rng, n * n);
    let ad = up::<T>(dev, &a, &[n, n])?;
    for (batch, k) in [(1, 3), (3, 2), (1, 0)] {
        let b = random(rng, batch * n * k.max(1));
        let (bsh, kk) = match (batch, k) {
            (1, 0) => (vec![n], 1),
            (1, _) => (vec![n, k], k),
            _ => (vec![batch, n, k], k),
        };
        let bd = up::<T>(dev, &b, &bsh)?;
        let x = linalg::solve(&ad, &bd)?;
        ensure!(
            x.shape() == bsh.as_slice(),
            "shape {:?} for b {bsh:?}",
            x.shape()
        );
        let x = down(&x)?;
        let aa: Vec<f64> = (0..batch).flat_map(|_| a.iter().copied()).collect();
        let r = solve_residual(&aa, &x, &b, batch, n, kk);
        ensure!(r < tol, "b {bsh:?}: residual {r:e}");
        let (xe, info) = linalg::solve_ex(&ad, &bd)?;
        ensure!(info.to_host()?.iter().all(|&v| v == 0), "solve_ex info");
        let d = diff(&down(&xe)?, &x) / fro(&x);
        ensure!(
            d < 1e4 * tol,
            "b {bsh:?}: solve and solve_ex differ by {d:e}"
        );
    }
    // A transposed view: solves Aᵀ x = b.
    let b = random(rng, n * 2);
    let x = linalg::solve(&ad.t(), &up::<T>(dev, &b, &[n, 2])?)?;
    let r = solve_residual(&tr(&a, n, n), &down(&x)?, &b, 1, n, 2);
    ensure!(r < tol, "transposed: residual {r:e}");
    // Column 5 nearly equals column 9: the residual stays small (LU is backward stable).
    let mut ill = a.clone();
    for i in 0..n {
        ill[i * n + 5] = ill[i * n + 9] * (1.0 + 1e-7 * rng.range(-1.0, 1.0));
    }
    let b = random(rng, n * 2);
    let x = linalg::solve(&up::<T>(dev, &ill, &[n, n])?, &up::<T>(dev, &b, &[n, 2])?)?;
    let r = solve_residual(&ill, &down(&x)?, &b, 1, n, 2);
    ensure!(r < tol, "ill-conditioned: residual {r:e}");
    let mut sing = a;
    for i in 0..n {
        sing[i * n + 2] = 0.0;
    }
    let sd = up::<T>(dev, &sing, &[n, n])?;
    for bsh in [vec![n, 1], vec![3, n, 1]] {
        let bd = up::<T>(dev, &random(rng, 3 * n)[..bsh.iter().product()], &bsh)?;
        let e = expect_err(linalg::solve(&sd, &bd), "singular large solve")?;
        ensure!(
            matches!(
                e,
                Error::Singular {
                    op: "solve",
                    batch: 0,
                    pivot: 2
                }
            ),
            "singular {bsh:?}: {e:?}"
        );
    }
    Ok(())
}

fn solve_shapes<T: RealElement>(dev: &Device, rng: &mut Rng) -> TResult {
    let n = 4;
    // A 1-D b with a batch of matrices: x is (2, 4).
    let a = well_conditioned(rng, 2, n);
    let b = random(rng, n);
    let x = linalg::solve(&up::<T>(dev, &a, &[2, n, n])?, &up::<T>(dev, &b, &[n])?)?;
    ensure!(x.shape() == [2, n], "vector rhs shape {:?}", x.shape());
    let bb: Vec<f64> = b.iter().chain(&b).copied().collect();
    let r = solve_residual(&a, &down(&x)?, &bb, 2, n, 1);
    ensure!(r < 100.0 * eps::<T>(), "vector rhs residual {r:e}");
    // Broadcast batches: (3, 1, n, n) with (2, n, 1) -> (3, 2, n, 1).
    let a = well_conditioned(rng, 3, n);
    let b = random(rng, 2 * n);
    let x = linalg::solve(
        &up::<T>(dev, &a, &[3, 1, n, n])?,
        &up::<T>(dev, &b, &[2, n, 1])?,
    )?;
    ensure!(x.shape() == [3, 2, n, 1], "broadcast shape {:?}", x.shape());
    let xs = down(&x)?;
    for i in 0..3 {
        for j in 0..2 {
            let ai = &a[i * n * n..(i + 1) * n * n];
            let xi = &xs[(i * 2 + j) * n..(i * 2 + j + 1) * n];
            let bi = &b[j * n..(j + 1) * n];
            let r = diff(&mm(ai, xi, n, n, 1), bi) / (fro(ai) * fro(xi) + fro(bi));
            ensure!(
                r < 100.0 * eps::<T>(),
                "broadcast ({i}, {j}) residual {r:e}"
            );
        }
    }
    // One matrix, a batch of right-hand sides: factorised once.
    let n = 6;
    let a = well_conditioned(rng, 1, n);
    let b = random(rng, 5 * n * 3);
    let x = linalg::solve(&up::<T>(dev, &a, &[n, n])?, &up::<T>(dev, &b, &[5, n, 3])?)?;
    ensure!(x.shape() == [5, n, 3], "factor-once shape {:?}", x.shape());
    let aa: Vec<f64> = (0..5).flat_map(|_| a.iter().copied()).collect();
    let r = solve_residual(&aa, &down(&x)?, &b, 5, n, 3);
    ensure!(r < 100.0 * eps::<T>(), "factor-once residual {r:e}");
    // Mismatched shapes name both.
    let e = expect_err(
        linalg::solve(&up::<T>(dev, &a, &[n, n])?, &up::<T>(dev, &b[..5], &[5])?),
        "rows mismatch",
    )?;
    ensure!(e.to_string().contains("[6, 6]"), "{e}");
    Ok(())
}

/// Transposed and stepped views as inputs, Hilbert 8.
fn solve_views<T: RealElement>(dev: &Device, rng: &mut Rng) -> TResult {
    let n = 5;
    let a = well_conditioned(rng, 1, n);
    let b = random(rng, n * 2);
    let at = tr(&a, n, n);
    // A transposed view of aᵀ is a, read in Fortran order.
    let av = up::<T>(dev, &at, &[n, n])?.t();
    let bv = up::<T>(dev, &tr(&b, n, 2), &[2, n])?.t();
    let x = linalg::solve(&av, &bv)?;
    let r = solve_residual(&a, &down(&x)?, &b, 1, n, 2);
    ensure!(r < 100.0 * eps::<T>(), "transposed views residual {r:e}");
    // A stepped view: every other row and column of a 2n x 2n matrix.
    let mut big = random(rng, 4 * n * n);
    for i in 0..n {
        for j in 0..n {
            big[(2 * i) * 2 * n + 2 * j] = a[i * n + j];
        }
    }
    let sv = up::<T>(dev, &big, &[2 * n, 2 * n])?.slice(s![..;2, ..;2])?;
    let x = linalg::solve(&sv, &up::<T>(dev, &b, &[n, 2])?)?;
    let r = solve_residual(&a, &down(&x)?, &b, 1, n, 2);
    ensure!(r < 100.0 * eps::<T>(), "stepped view residual {r:e}");
    // A batch of transposed matrices (batched path).
    let a3 = well_conditioned(rng, 3, n);
    let a3t: Vec<f64> = (0..3)
        .flat_map(|i| tr(&a3[i * n * n..(i + 1) * n * n], n, n))
        .collect();
    let av = up::<T>(dev, &a3t, &[3, n, n])?.permute(&[0, 2, 1])?;
    let b3 = random(rng, 3 * n);
    let x = linalg::solve(&av, &up::<T>(dev, &b3, &[3, n, 1])?)?;
    let r = solve_residual(&a3, &down(&x)?, &b3, 3, n, 1);
    ensure!(r < 100.0 * eps::<T>(), "batch of transposed residual {r:e}");
    // Hilbert 8 (condition number 1.5e10): a small backward error all the same.
    let h: Vec<f64> = (0..64)
        .map(|k| 1.0 / ((k / 8 + k % 8 + 1) as f64))
        .collect();
    let hb = random(rng, 8);
    let x = linalg::solve(&up::<T>(dev, &h, &[8, 8])?, &up::<T>(dev, &hb, &[8])?)?;
    // Against the matrix as rounded to T.
    let hr = down(&up::<T>(dev, &h, &[8, 8])?)?;
    let hbr = down(&up::<T>(dev, &hb, &[8])?)?;
    let r = solve_residual(&hr, &down(&x)?, &hbr, 1, 8, 1);
    ensure!(r < 200.0 * eps::<T>(), "Hilbert 8 residual {r:e}");
    if T::DTYPE == DType::F64 {
        // The inverse of Hilbert 8 has integer entries; det is 2.737e-33.
        let d = linalg::det(&up::<T>(dev, &h, &[8, 8])?)?
            .to_scalar()?
            .to_f64();
        let want = host_det(&h, 8);
        ensure!(
            ((d - want) / want).abs() < 1e-6,
            "Hilbert det {d:e}, host {want:e}"
        );
    }
    Ok(())
}

/// A singular matrix in the middle of a batch: the error names its index and pivot; the
/// `_ex` form returns the info array without waiting.
fn solve_singular<T: RealElement>(dev: &Device, rng: &mut Rng) -> TResult {
    for &(count, n) in &[(5usize, 4usize), (3, 40), (1, 6)] {
        let mut a = well_conditioned(rng, count, n);
        let bad = count / 2;
        // Column 2 of matrix `bad` is zero: U[2, 2] is exactly zero.
        for i in 0..n {
            a[bad * n * n + i * n + 2] = 0.0;
        }
        let b = random(rng, count * n);
        let (ash, bsh) = (vec![count, n, n], vec![count, n, 1]);
        let (ad, bd) = (up::<T>(dev, &a, &ash)?, up::<T>(dev, &b, &bsh)?);
        let e = expect_err(linalg::solve(&ad, &bd), "singular solve")?;
        match e {
            Error::Singular {
                op: "solve",
                batch,
                pivot: 2,
            } if batch == bad => {}
            other => {
                return Err(
                    format!("{count}x{n}: expected Singular at {bad}, got {other:?}").into(),
                )
            }
        }
        ensure!(e.to_string().contains(&format!("batch index {bad}")), "{e}");
        let (_, info) = linalg::solve_ex(&ad, &bd)?;
        let mut want = vec![0; count];
        want[bad] = 3;
        ensure!(info.shape() == [count], "info shape {:?}", info.shape());
        ensure!(info.to_host()? == want, "info {:?}", info.to_host()?);
        let e = expect_err(linalg::inv(&ad), "singular inv")?;
        ensure!(
            matches!(e, Error::Singular { op: "inv", batch, pivot: 2 } if batch == bad),
            "inv: {e:?}"
        );
        // det is 0, slogdet (0, -inf): no error.
        let d = down(&linalg::det(&ad)?)?;
        ensure!(d[bad] == 0.0, "det of the singular matrix {}", d[bad]);
        let (sign, logabs) = linalg::slogdet(&ad)?;
        let (sign, logabs) = (down(&sign)?, down(&logabs)?);
        ensure!(
            sign[bad] == 0.0 && logabs[bad] == f64::NEG_INFINITY,
            "slogdet {} {}",
            sign[bad],
            logabs[bad]
        );
    }
    Ok(())
}

fn inverses<T: RealElement>(dev: &Device, rng: &mut Rng) -> TResult {
    for &(count, n) in &[(1usize, 1usize), (4, 6), (2, 50), (1, 120)] {
        let a = well_conditioned(rng, count, n);
        let shape = [count, n, n];
        let ad = up::<T>(dev, &a, &shape)?;
        let inv = linalg::inv(&ad)?;
        let iv = down(&inv)?;
        // Also through a transposed view: inv(aᵀ) = inv(a)ᵀ.
        let ivt = down(&linalg::inv(&ad.permute(&[0, 2, 1])?)?)?;
        for b in 0..count {
            let ai = &a[b * n * n..(b + 1) * n * n];
            let xi = &iv[b * n * n..(b + 1) * n * n];
            let eye: Vec<f64> = (0..n * n)
                .map(|k| if k / n == k % n { 1.0 } else { 0.0 })
                .collect();
            let r = diff(&mm(ai, xi, n, n, n), &eye) / (fro(ai) * fro(xi));
            ensure!(
                r < 20.0 * n as f64 * eps::<T>(),
                "inv {count}x{n}: residual {r:e}"
            );
            let xt = &ivt[b * n * n..(b + 1) * n * n];
            let r = diff(&tr(xt, n, n), xi) / fro(xi);
            ensure!(
                r < 20.0 * n as f64 * eps::<T>(),
                "inv of a transposed view: {r:e}"
            );
        }
    }
    Ok(())
}

fn determinants<T: RealElement>(dev: &Device, rng: &mut Rng) -> TResult {
    for &(count, n) in &[(1usize, 3usize), (6, 5), (2, 40), (1, 60)] {
        // Entries in [-1, 1): determinants of either sign, row swaps happen.
        let a = random(rng, count * n * n);
        let ad = up::<T>(dev, &a, &[count, n, n])?;
        let d = down(&linalg::det(&ad)?)?;
        let (sign, logabs) = linalg::slogdet(&ad)?;
        let (sign, logabs) = (down(&sign)?, down(&logabs)?);
        ensure!(d.len() == count, "det shape");
        for b in 0..count {
            let want = host_det(&a[b * n * n..(b + 1) * n * n], n);
            let tol = 1e4 * n as f64 * eps::<T>();
            ensure!(
                ((d[b] - want) / want).abs() < tol,
                "det {count}x{n} [{b}]: {} vs {want}",
                d[b]
            );
            ensure!(
                sign[b] == want.signum(),
                "slogdet sign {} vs {want}",
                sign[b]
            );
            ensure!(
                (logabs[b] - want.abs().ln()).abs() < tol,
                "logabsdet {} vs {}",
                logabs[b],
                want.abs().ln()
            );
        }
    }
    // 2-D input: a 0-d result. A transposed view: the same determinant.
    let a = random(rng, 16);
    let ad = up::<T>(dev, &a, &[4, 4])?;
    let d = linalg::det(&ad)?;
    ensure!(d.shape().is_empty(), "det of a matrix is 0-d");
    let dt = linalg::det(&ad.t())?.to_scalar()?.to_f64();
    let want = host_det(&a, 4);
    ensure!(
        ((dt - want) / want).abs() < 1e-3,
        "det of a transpose {dt} vs {want}"
    );
    // 0 x 0 matrices: det 1.
    let e = linalg::det(&DeviceArray::<T>::zeros(dev, &[2, 0, 0])?)?;
    ensure!(down(&e)? == vec![1.0, 1.0], "det of 0x0 {:?}", down(&e)?);
    Ok(())
}

// ---- Cholesky ------------------------------------------------------------------------

fn choleskys<T: RealElement>(dev: &Device, rng: &mut Rng) -> TResult {
    for &(count, n) in &[(1usize, 1usize), (4, 6), (3, 40), (1, 100)] {
        let a = spd(rng, count, n);
        // Garbage above the diagonal: only the lower triangle is read.
        let mut given = a.clone();
        for b in 0..count {
            for i in 0..n {
                for j in i + 1..n {
                    given[b * n * n + i * n + j] = 1e3;
                }
            }
        }
        let l = linalg::cholesky(&up::<T>(dev, &given, &[count, n, n])?)?;
        let lv = down(&l)?;
        for b in 0..count {
            let li = &lv[b * n * n..(b + 1) * n * n];
            for i in 0..n {
                for j in i + 1..n {
                    ensure!(
                        li[i * n + j] == 0.0,
                        "L[{i}, {j}] = {} above the diagonal",
                        li[i * n + j]
                    );
                }
            }
            let ai = &a[b * n * n..(b + 1) * n * n];
            let r = diff(&mm(li, &tr(li, n, n), n, n, n), ai) / fro(ai);
            ensure!(r < 20.0 * n as f64 * eps::<T>(), "L Lᵀ {count}x{n}: {r:e}");
        }
    }
    // Not positive definite in the middle of a batch: diag(1, 1, 1, -1, 1, 1).
    for &count in &[5usize, 1] {
        let n = 6;
        let mut a = spd(rng, count, n);
        let bad = count / 2;
        for i in 0..n {
            for j in 0..n {
                a[bad * n * n + i * n + j] = if i != j {
                    0.0
                } else if i == 3 {
                    -1.0
                } else {
                    1.0
                };
            }
        }
        let ad = up::<T>(dev, &a, &[count, n, n])?;
        let e = expect_err(linalg::cholesky(&ad), "non-PD cholesky")?;
        ensure!(
            matches!(e, Error::NotPositiveDefinite { op: "cholesky", batch, minor: 4 } if batch == bad),
            "expected NotPositiveDefinite at {bad}, minor 4: {e:?}"
        );
        let (_, info) = linalg::cholesky_ex(&ad)?;
        let mut want = vec![0; count];
        want[bad] = 4;
        ensure!(
            info.to_host()? == want,
            "cholesky info {:?}",
            info.to_host()?
        );
    }
    // A transposed view of a symmetric matrix.
    let n = 7;
    let a = spd(rng, 1, n);
    let l = linalg::cholesky(&up::<T>(dev, &a, &[n, n])?.t())?;
    let lv = down(&l)?;
    let r = diff(&mm(&lv, &tr(&lv, n, n), n, n, n), &a) / fro(&a);
    ensure!(
        r < 100.0 * eps::<T>(),
        "cholesky of a transposed view: {r:e}"
    );
    Ok(())
}

// ---- QR, SVD, eigh -------------------------------------------------------------------

fn check_orthonormal_columns(q: &[f64], m: usize, k: usize, tol: f64, what: &str) -> TResult {
    let qtq = mm(&tr(q, m, k), q, k, m, k);
    let eye: Vec<f64> = (0..k * k)
        .map(|p| if p / k == p % k { 1.0 } else { 0.0 })
        .collect();
    let r = diff(&qtq, &eye);
    ensure!(r < tol, "{what}: |QᵀQ - I| = {r:e}");
    Ok(())
}

fn qrs<T: RealElement>(dev: &Device, rng: &mut Rng) -> TResult {
    for &(count, m, n) in &[
        (1usize, 5usize, 3usize),
        (1, 3, 5),
        (3, 4, 4),
        (2, 60, 40),
        (1, 1, 1),
    ] {
        let a = random(rng, count * m * n);
        let (q, r) = linalg::qr(&up::<T>(dev, &a, &[count, m, n])?)?;
        let k = m.min(n);
        ensure!(
            q.shape() == [count, m, k] && r.shape() == [count, k, n],
            "qr shapes"
        );
        let (qv, rv) = (down(&q)?, down(&r)?);
        let tol = 50.0 * (m + n) as f64 * eps::<T>();
        for b in 0..count {
            let qb = &qv[b * m * k..(b + 1) * m * k];
            let rb = &rv[b * k * n..(b + 1) * k * n];
            let ab = &a[b * m * n..(b + 1) * m * n];
            check_orthonormal_columns(qb, m, k, tol, "qr")?;
            for i in 0..k {
                for j in 0..i.min(n) {
                    ensure!(rb[i * n + j] == 0.0, "R[{i}, {j}] below the diagonal");
                }
            }
            let res = diff(&mm(qb, rb, m, k, n), ab) / fro(ab);
            ensure!(res < tol, "QR = A {m}x{n}: {res:e}");
        }
    }
    // A stepped view.
    let a = random(rng, 8 * 6);
    let av = up::<T>(dev, &a, &[8, 6])?.slice(s![..;2, ..])?;
    let (q, r) = linalg::qr(&av)?;
    let sub: Vec<f64> = (0..4)
        .flat_map(|i| a[2 * i * 6..2 * i * 6 + 6].to_vec())
        .collect();
    let res = diff(&mm(&down(&q)?, &down(&r)?, 4, 4, 6), &sub) / fro(&sub);
    ensure!(res < 1e3 * eps::<T>(), "qr of a stepped view: {res:e}");
    Ok(())
}

/// `U diag(S) Vh = A`, orthonormal `U` and `Vh`, `S` descending and non-negative.
#[allow(clippy::too_many_arguments)]
fn check_svd<T: RealElement>(
    a: &[f64],
    (count, m, n): (usize, usize, usize),
    full: bool,
    u: &DeviceArray<T>,
    s: &DeviceArray<T>,
    vh: &DeviceArray<T>,
    what: &str,
) -> TResult {
    let k = m.min(n);
    let (uc, vr) = if full { (m, n) } else { (k, k) };
    ensure!(
        u.shape() == [count, m, uc] && s.shape() == [count, k] && vh.shape() == [count, vr, n],
        "{what}: shapes {:?} {:?} {:?}",
        u.shape(),
        s.shape(),
        vh.shape()
    );
    let (uv, sv, vhv) = (down(u)?, down(s)?, down(vh)?);
    let tol = 100.0 * (m + n) as f64 * eps::<T>();
    for b in 0..count {
        let ub = &uv[b * m * uc..(b + 1) * m * uc];
        let sb = &sv[b * k..(b + 1) * k];
        let vb = &vhv[b * vr * n..(b + 1) * vr * n];
        let ab = &a[b * m * n..(b + 1) * m * n];
        check_orthonormal_columns(ub, m, uc, tol, what)?;
        check_orthonormal_columns(&tr(vb, vr, n), n, vr, tol, what)?;
        for i in 0..k {
            ensure!(sb[i] >= 0.0, "{what}: negative singular value");
            if i > 0 {
                ensure!(sb[i] <= sb[i - 1] * (1.0 + tol), "{what}: not descending");
            }
        }
        // U[:, :k] diag(S) Vh[:k, :].
        let mut us = vec![0.0; m * k];
        for i in 0..m {
            for j in 0..k {
                us[i * k + j] = ub[i * uc + j] * sb[j];
            }
        }
        let usv = mm(&us, &vb[..k * n], m, k, n);
        let res = diff(&usv, ab) / fro(ab).max(1e-30);
        ensure!(res < tol, "{what}: |U S Vh - A| = {res:e}");
    }
    Ok(())
}

fn svds<T: RealElement>(dev: &Device, rng: &mut Rng) -> TResult {
    for &(count, m, n) in &[
        (1usize, 6usize, 4usize),
        (1, 4, 6),
        (3, 5, 4),
        (4, 3, 7),
        (2, 40, 30),
        (1, 30, 45),
    ] {
        let a = random(rng, count * m * n);
        let ad = up::<T>(dev, &a, &[count, m, n])?;
        for full in [false, true] {
            let (u, s, vh) = linalg::svd(&ad, full)?;
            check_svd(
                &a,
                (count, m, n),
                full,
                &u,
                &s,
                &vh,
                &format!("svd {count}x{m}x{n} full={full}"),
            )?;
        }
        let sv = down(&linalg::svdvals(&ad)?)?;
        let (_, s, _) = linalg::svd(&ad, false)?;
        let d = diff(&sv, &down(&s)?) / fro(&sv);
        ensure!(d < 1e3 * eps::<T>(), "svdvals vs svd: {d:e}");
    }
    // A transposed view.
    let a = random(rng, 5 * 3);
    let (u, s, vh) = linalg::svd(&up::<T>(dev, &a, &[5, 3])?.t().expand_dims(0)?, false)?;
    check_svd(
        &tr(&a, 5, 3),
        (1, 3, 5),
        false,
        &u,
        &s,
        &vh,
        "svd of a transposed view",
    )?;
    Ok(())
}

/// The QR-iteration and polar routines of large SVDs (also the Jacobi method's fallback),
/// chosen through the hidden knob; exclusive, since the knob is global.
fn svd_routines<T: RealElement>(dev: &Device) -> TResult {
    use cuarray::tuning::{set_svd_algorithm, SvdAlgorithm};
    let mut rng = Rng::for_name("svd_routines");
    let mut result = Ok(());
    for algo in [
        SvdAlgorithm::Qr,
        SvdAlgorithm::Polar,
        SvdAlgorithm::Jacobi,
        SvdAlgorithm::Auto,
    ] {
        set_svd_algorithm(algo);
        for &(m, n, full) in &[
            (40usize, 30usize, false),
            (30, 40, false),
            (35, 35, true),
            (40, 30, true),
            (300, 200, false),
            (150, 260, false),
            (200, 200, true),
            // From 512 a side the default takes the polar decomposition in f64: full
            // rank, and rank deficient square (its check fails, the Jacobi method redoes it).
            (601, 523, false),
            (523, 700, false),
            (530, 530, true),
        ] {
            // From 150 a side, rank deficient (except the non-square ones from 500): a
            // product of m x r and r x n factors, r = min(m, n) / 2 (zero singular values).
            let r = m.min(n) / 2;
            let a = if m >= 150 && (m < 500 || m == n) {
                mm(&random(&mut rng, m * r), &random(&mut rng, r * n), m, r, n)
            } else {
                random(&mut rng, m * n)
            };
            let r = linalg::svd(&up::<T>(dev, &a, &[1, m, n])?, full).map_err(|e| e.to_string());
            let r = r.and_then(|(u, s, vh)| {
                check_svd(
                    &a,
                    (1, m, n),
                    full,
                    &u,
                    &s,
                    &vh,
                    &format!("{algo:?} {m}x{n} full={full}"),
                )
                .map_err(|e| format!("{e:?}"))
            });
            if let Err(e) = r {
                result = Err(e);
            }
        }
    }
    set_svd_algorithm(SvdAlgorithm::Auto);
    result.map_err(Into::into)
}

fn eighs<T: RealElement>(dev: &Device, rng: &mut Rng) -> TResult {
    for &(count, n) in &[(1usize, 1usize), (1, 5), (4, 6), (2, 40), (1, 64)] {
        let a = symmetric(rng, count, n);
        // Garbage above the diagonal: the lower triangle is read (UPLO='L').
        let mut given = a.clone();
        for b in 0..count {
            for i in 0..n {
                for j in i + 1..n {
                    given[b * n * n + i * n + j] = 7.0;
                }
            }
        }
        let ad = up::<T>(dev, &given, &[count, n, n])?;
        let (w, v) = linalg::eigh(&ad)?;
        ensure!(
            w.shape() == [count, n] && v.shape() == [count, n, n],
            "eigh shapes"
        );
        let (wv, vv) = (down(&w)?, down(&v)?);
        let tol = 100.0 * n as f64 * eps::<T>();
        for b in 0..count {
            let wb = &wv[b * n..(b + 1) * n];
            let vb = &vv[b * n * n..(b + 1) * n * n];
            let ab = &a[b * n * n..(b + 1) * n * n];
            for i in 1..n {
                ensure!(wb[i] >= wb[i - 1], "eigenvalues not ascending");
            }
            check_orthonormal_columns(vb, n, n, tol, "eigh")?;
            let mut vw = vb.to_vec();
            for i in 0..n {
                for j in 0..n {
                    vw[i * n + j] *= wb[j];
                }
            }
            let res = diff(&mm(&vw, &tr(vb, n, n), n, n, n), ab) / fro(ab).max(1e-30);
            ensure!(res < tol, "V diag(w) Vᵀ {count}x{n}: {res:e}");
        }
        let w2 = down(&linalg::eigvalsh(&ad)?)?;
        ensure!(
            diff(&w2, &wv) <= tol * fro(&wv).max(1.0),
            "eigvalsh vs eigh"
        );
    }
    Ok(())
}

// ---- lstsq, pinv, norm -----------------------------------------------------------------

fn least_squares<T: RealElement>(dev: &Device, rng: &mut Rng) -> TResult {
    // Overdetermined, full rank: the normal equations' solution; residuals as NumPy.
    let (m, n) = (20, 3);
    let a = random(rng, m * n);
    let b = random(rng, m);
    let (x, res, rank, s) = linalg::lstsq(&up::<T>(dev, &a, &[m, n])?, &up::<T>(dev, &b, &[m])?)?;
    ensure!(rank == n && s.shape() == [n], "rank {rank}");
    ensure!(
        x.shape() == [n] && res.shape() == [1],
        "shapes {:?} {:?}",
        x.shape(),
        res.shape()
    );
    let xv = down(&x)?;
    // Aᵀ (A x - b) = 0.
    let r: Vec<f64> = mm(&a, &xv, m, n, 1)
        .iter()
        .zip(&b)
        .map(|(p, q)| p - q)
        .collect();
    let g = mm(&tr(&a, m, n), &r, n, m, 1);
    ensure!(
        fro(&g) < 1e3 * eps::<T>() * fro(&a) * fro(&b),
        "normal equations {:e}",
        fro(&g)
    );
    let want: f64 = r.iter().map(|v| v * v).sum();
    let got = down(&res)?[0];
    ensure!(
        (got - want).abs() < 1e-3 * want.max(1e-30),
        "residual {got} vs {want}"
    );
    // Rank deficient (a repeated column): rank n - 1, no residuals.
    let mut a2 = random(rng, m * n);
    for i in 0..m {
        a2[i * n + 2] = a2[i * n];
    }
    let b2 = random(rng, m * 2);
    let (x2, res2, rank2, _) =
        linalg::lstsq(&up::<T>(dev, &a2, &[m, n])?, &up::<T>(dev, &b2, &[m, 2])?)?;
    ensure!(rank2 == n - 1, "rank of a repeated column {rank2}");
    ensure!(
        res2.shape() == [0] && x2.shape() == [n, 2],
        "rank-deficient shapes"
    );
    // The minimum-norm solution puts equal weights on the repeated columns.
    let xv = down(&x2)?;
    ensure!(
        (xv[0] - xv[4]).abs() < 1e-2 * xv[0].abs().max(1e-3),
        "minimum norm {xv:?}"
    );
    Ok(())
}

fn pseudo_inverses<T: RealElement>(dev: &Device, rng: &mut Rng) -> TResult {
    for &(count, m, n) in &[(1usize, 5usize, 3usize), (3, 4, 6), (2, 40, 35)] {
        let a = random(rng, count * m * n);
        let p = linalg::pinv(&up::<T>(dev, &a, &[count, m, n])?)?;
        ensure!(p.shape() == [count, n, m], "pinv shape {:?}", p.shape());
        let pv = down(&p)?;
        for b in 0..count {
            let ab = &a[b * m * n..(b + 1) * m * n];
            let pb = &pv[b * n * m..(b + 1) * n * m];
            let apa = mm(&mm(ab, pb, m, n, m), ab, m, m, n);
            let r = diff(&apa, ab) / fro(ab);
            ensure!(
                r < 1e3 * eps::<T>() * (m + n) as f64,
                "A pinv(A) A = A: {r:e}"
            );
        }
    }
    Ok(())
}

fn norms<T: RealElement>(dev: &Device, _rng: &mut Rng) -> TResult {
    let v = up::<T>(dev, &[3.0, -4.0, 0.0, 12.0], &[4])?;
    let val = |x: cuarray::Result<DeviceArray<T>>| -> cuarray::Result<f64> {
        Ok(x?.to_scalar()?.to_f64())
    };
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-5 * b.abs().max(1.0);
    ensure!(close(val(linalg::norm(&v, None))?, 13.0), "vector 2-norm");
    ensure!(
        close(val(linalg::norm(&v, Some(NormOrd::Inf)))?, 12.0),
        "inf"
    );
    ensure!(
        close(val(linalg::norm(&v, Some(NormOrd::NegInf)))?, 0.0),
        "-inf"
    );
    ensure!(
        close(val(linalg::norm(&v, Some(1.0.into())))?, 19.0),
        "1-norm"
    );
    ensure!(
        close(val(linalg::norm(&v, Some(0.0.into())))?, 3.0),
        "0-norm"
    );
    let p3 = (27.0f64 + 64.0 + 1728.0).powf(1.0 / 3.0);
    ensure!(
        close(val(linalg::norm(&v, Some(3.0.into())))?, p3),
        "3-norm"
    );
    ensure!(
        linalg::norm(&v, Some(NormOrd::Fro)).is_err(),
        "fro of a vector"
    );
    // diag(3, -4) padded: singular values 4, 3.
    let m = up::<T>(dev, &[3.0, 0.0, 0.0, -4.0, 0.0, 0.0], &[3, 2])?;
    ensure!(close(val(linalg::norm(&m, None))?, 5.0), "fro");
    ensure!(
        close(val(linalg::norm(&m, Some(NormOrd::Fro)))?, 5.0),
        "fro"
    );
    ensure!(
        close(val(linalg::norm(&m, Some(NormOrd::Nuc)))?, 7.0),
        "nuc"
    );
    ensure!(close(val(linalg::norm(&m, Some(2.0.into())))?, 4.0), "2");
    ensure!(
        close(val(linalg::norm(&m, Some((-2.0).into())))?, 3.0),
        "-2"
    );
    ensure!(
        close(val(linalg::norm(&m, Some(1.0.into())))?, 4.0),
        "1: max column sum"
    );
    ensure!(
        close(val(linalg::norm(&m, Some(NormOrd::Inf)))?, 4.0),
        "inf: max row sum"
    );
    ensure!(
        close(val(linalg::norm(&m, Some(NormOrd::NegInf)))?, 0.0),
        "-inf: min row sum"
    );
    ensure!(
        linalg::norm(&m, Some(3.0.into())).is_err(),
        "3 for a matrix"
    );
    // Along axes, batched.
    let a = up::<T>(dev, &[1.0, 2.0, 2.0, 0.0, 3.0, 4.0], &[2, 3])?;
    ensure!(
        down(&linalg::norm_axis(&a, None, 1)?)? == vec![3.0, 5.0],
        "rows"
    );
    let c = down(&linalg::norm_axis(&a, Some(1.0.into()), 0)?)?;
    ensure!(c == vec![1.0, 5.0, 6.0], "columns {c:?}");
    let b = DeviceArray::<T>::ones(dev, &[5, 3, 4])?;
    let f = linalg::norm_axes(&b, None, &[-2, -1], false)?;
    ensure!(
        f.shape() == [5] && close(down(&f)?[0], 12f64.sqrt()),
        "fro over axes"
    );
    let k = linalg::norm_axes(&b, Some(2.0.into()), &[1, 2], true)?;
    ensure!(
        k.shape() == [5, 1, 1] && close(down(&k)?[4], 12f64.sqrt()),
        "2-norm keepdims"
    );
    let o = linalg::norm_axes(&b, Some(NormOrd::Inf), &[2, 1], false)?;
    ensure!(close(down(&o)?[0], 3.0), "inf over (2, 1): rows are axis 2");
    Ok(())
}

/// Empty batches and empty matrices: the shapes NumPy gives, no library call.
fn empties<T: RealElement>(dev: &Device, _rng: &mut Rng) -> TResult {
    let z = |shape: &[usize]| DeviceArray::<T>::zeros(dev, shape);
    let x = linalg::solve(&z(&[0, 3, 3])?, &z(&[0, 3, 2])?)?;
    ensure!(
        x.shape() == [0, 3, 2],
        "solve of an empty batch {:?}",
        x.shape()
    );
    let (x, info) = linalg::solve_ex(&z(&[0, 3, 3])?, &z(&[3])?)?;
    ensure!(x.shape() == [0, 3] && info.shape() == [0], "solve_ex empty");
    ensure!(
        linalg::inv(&z(&[0, 2, 2])?)?.shape() == [0, 2, 2],
        "inv empty"
    );
    ensure!(linalg::det(&z(&[0, 2, 2])?)?.shape() == [0], "det empty");
    ensure!(
        linalg::cholesky(&z(&[0, 4, 4])?)?.shape() == [0, 4, 4],
        "cholesky empty"
    );
    let (w, v) = linalg::eigh(&z(&[0, 3, 3])?)?;
    ensure!(w.shape() == [0, 3] && v.shape() == [0, 3, 3], "eigh empty");
    let (u, s, vh) = linalg::svd(&z(&[0, 3, 2])?, false)?;
    ensure!(
        u.shape() == [0, 3, 2] && s.shape() == [0, 2] && vh.shape() == [0, 2, 2],
        "svd empty"
    );
    let (q, r) = linalg::qr(&z(&[0, 3, 2])?)?;
    ensure!(q.shape() == [0, 3, 2] && r.shape() == [0, 2, 2], "qr empty");
    // 0 x 0 matrices.
    ensure!(
        linalg::inv(&z(&[2, 0, 0])?)?.shape() == [2, 0, 0],
        "inv 0x0"
    );
    ensure!(
        linalg::cholesky(&z(&[0, 0])?)?.shape() == [0, 0],
        "cholesky 0x0"
    );
    // A 3 x 0 matrix: full U is the identity.
    let (u, s, vh) = linalg::svd(&z(&[3, 0])?, true)?;
    ensure!(
        u.shape() == [3, 3] && s.shape() == [0] && vh.shape() == [0, 0],
        "svd 3x0"
    );
    ensure!(
        down(&u)? == vec![1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
        "U of 3x0"
    );
    ensure!(linalg::pinv(&z(&[3, 0])?)?.shape() == [0, 3], "pinv 3x0");
    // Not square: an error naming the shape.
    let e = expect_err(linalg::inv(&z(&[2, 3])?), "inv of 2x3")?;
    ensure!(e.to_string().contains("[2, 3]"), "{e}");
    Ok(())
}

/// A matrix whose LU meets an exact zero pivot when factorised as LAPACK factorises
/// NumPy's copy (partial pivoting on the matrix itself, not its transpose): NumPy gives
/// `det = 0.0` and `slogdet = (0.0, -inf)`; C order, Fortran order, and in a batch.
fn exactly_singular<T: RealElement>(dev: &Device, _rng: &mut Rng) -> TResult {
    let rows = [1.0, 2.0, 3.0, 2.0, 4.0, 6.0, 1.0, 0.0, 1.0];
    let host: Vec<T> = rows.iter().map(|&v| T::from_f64(v)).collect();
    let a = DeviceArray::from_host(dev, &host, &[3, 3])?;
    let at = DeviceArray::from_host(dev, &host, &[3, 3])?
        .t()
        .contiguous()?
        .t();
    let stack = DeviceArray::from_host(dev, &[host.clone(), host].concat(), &[2, 3, 3])?;
    for (what, m) in [("C order", &a), ("Fortran order", &at), ("batch", &stack)] {
        let d = down(&linalg::det(m)?)?;
        ensure!(d.iter().all(|&v| v == 0.0), "{what}: det {d:?}");
        let (sign, logabs) = linalg::slogdet(m)?;
        let (sign, logabs) = (down(&sign)?, down(&logabs)?);
        ensure!(
            sign.iter().all(|&v| v == 0.0) && logabs.iter().all(|&v| v == f64::NEG_INFINITY),
            "{what}: slogdet {sign:?} {logabs:?}"
        );
    }
    Ok(())
}

fn cases<T: RealElement>(out: &mut Vec<Trial>) {
    let t = T::DTYPE.name();
    macro_rules! case {
        ($name:literal, $f:ident) => {
            add_gpu(out, format!("linalg_solver/{}/{t}", $name), |dev, rng| {
                $f::<T>(dev, rng)
            });
        };
    }
    case!("solve/sizes", solve_sizes);
    case!("solve/large", solve_large);
    case!("solve/shapes", solve_shapes);
    case!("solve/views", solve_views);
    case!("solve/singular", solve_singular);
    case!("inv", inverses);
    case!("det", determinants);
    case!("det/exactly_singular", exactly_singular);
    case!("cholesky", choleskys);
    case!("qr", qrs);
    case!("svd", svds);
    case!("eigh", eighs);
    case!("lstsq", least_squares);
    case!("pinv", pseudo_inverses);
    case!("norm", norms);
    case!("empty", empties);
    out.push(gpu_trial_exclusive(
        format!("linalg_solver/svd/routines/{t}"),
        |dev| svd_routines::<T>(dev),
    ));
}

pub fn trials(out: &mut Vec<Trial>) {
    cases::<f32>(out);
    cases::<f64>(out);
}
