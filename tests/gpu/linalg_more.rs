//! `linalg::matrix_power`, `expm`, `matrix_rank`, `cond` and `solve_triangular` against host
//! references in f64 (triangular solves: the residual `op(A) x - b`):
//! powers by repeated host products, the exponential by a Taylor series after scaling (a
//! different algorithm from the library's Padé approximant), ranks of products of thin
//! factors, condition numbers of matrices with known singular values; f32 and f64, batches
//! and views.

use crate::common::{add_gpu, ensure, Rng, TResult};
use cuarray::linalg::{self, NormOrd, RealElement};
use cuarray::{DType, Device, DeviceArray};
use libtest_mimic::Trial;

fn up<T: RealElement>(dev: &Device, v: &[f64], shape: &[usize]) -> cuarray::Result<DeviceArray<T>> {
    let data: Vec<T> = v.iter().map(|&x| T::from_f64(x)).collect();
    DeviceArray::from_host(dev, &data, shape)
}

fn down<T: RealElement>(a: &DeviceArray<T>) -> cuarray::Result<Vec<f64>> {
    Ok(a.to_host()?.into_iter().map(|x| x.to_f64()).collect())
}

fn tol<T: RealElement>() -> f64 {
    if T::DTYPE == DType::F32 {
        2e-4
    } else {
        1e-10
    }
}

/// Row-major n x n product.
fn mm(a: &[f64], b: &[f64], n: usize) -> Vec<f64> {
    let mut c = vec![0.0; n * n];
    for i in 0..n {
        for p in 0..n {
            for j in 0..n {
                c[i * n + j] += a[i * n + p] * b[p * n + j];
            }
        }
    }
    c
}

fn eye(n: usize) -> Vec<f64> {
    (0..n * n)
        .map(|k| if k / n == k % n { 1.0 } else { 0.0 })
        .collect()
}

fn close(what: &str, got: &[f64], want: &[f64], rel: f64) -> TResult {
    let scale = want.iter().fold(1.0f64, |m, x| m.max(x.abs()));
    ensure!(
        got.len() == want.len(),
        "{what}: {} elements, expected {}",
        got.len(),
        want.len()
    );
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        ensure!(
            (g - w).abs() <= rel * scale,
            "{what}: element {i} is {g}, expected {w}"
        );
    }
    Ok(())
}

/// Host exp(A): Taylor to 40 terms of A / 2^s (norm below 1/2), squared s times.
fn host_expm(a: &[f64], n: usize) -> Vec<f64> {
    let norm = a.iter().map(|x| x.abs()).sum::<f64>();
    let s = if norm > 0.5 {
        (norm / 0.5).log2().ceil() as i32
    } else {
        0
    };
    let x: Vec<f64> = a.iter().map(|v| v / 2f64.powi(s)).collect();
    let mut term = eye(n);
    let mut sum = eye(n);
    for k in 1..40 {
        term = mm(&term, &x, n).iter().map(|v| v / k as f64).collect();
        sum = sum.iter().zip(&term).map(|(a, b)| a + b).collect();
    }
    for _ in 0..s {
        sum = mm(&sum, &sum, n);
    }
    sum
}

fn power<T: RealElement>(dev: &Device, rng: &mut Rng) -> TResult {
    for n in [1usize, 5, 37] {
        // Entries scaled so that powers stay near 1 in size.
        let a: Vec<f64> = (0..n * n)
            .map(|_| rng.range(-1.0, 1.0) / (n as f64).sqrt())
            .collect();
        let d = up::<T>(dev, &a, &[n, n])?;
        for p in [0i64, 1, 2, 5, 8] {
            let mut want = eye(n);
            for _ in 0..p {
                want = mm(&want, &a, n);
            }
            close(
                &format!("matrix_power n={n} p={p}"),
                &down(&linalg::matrix_power(&d, p)?)?,
                &want,
                tol::<T>() * 10.0,
            )?;
        }
        // A well-conditioned matrix for the negative powers: I + A / 4.
        let b: Vec<f64> = eye(n).iter().zip(&a).map(|(i, x)| i + x / 4.0).collect();
        let db = up::<T>(dev, &b, &[n, n])?;
        let m3 = linalg::matrix_power(&db, -3)?;
        let back = linalg::matrix_power(&db, 3)?.matmul(&m3)?;
        close(
            &format!("matrix_power n={n} p=-3"),
            &down(&back)?,
            &eye(n),
            tol::<T>() * 10.0,
        )?;
    }
    // A batch of 3 matrices, transposed views.
    let a: Vec<f64> = (0..3 * 16).map(|_| rng.range(-0.5, 0.5)).collect();
    let d = up::<T>(dev, &a, &[3, 4, 4])?.permute(&[0, 2, 1])?;
    let got = down(&linalg::matrix_power(&d, 3)?)?;
    for b in 0..3 {
        let t: Vec<f64> = (0..16).map(|k| a[b * 16 + (k % 4) * 4 + k / 4]).collect();
        let want = mm(&mm(&t, &t, 4), &t, 4);
        close(
            "matrix_power batch",
            &got[b * 16..(b + 1) * 16],
            &want,
            tol::<T>() * 10.0,
        )?;
    }
    ensure!(
        linalg::matrix_power(&up::<T>(dev, &[1.0; 6], &[2, 3])?, 2).is_err(),
        "non-square accepted"
    );
    Ok(())
}

fn expm<T: RealElement>(dev: &Device, rng: &mut Rng) -> TResult {
    for (n, scale) in [(1usize, 0.3), (3, 0.1), (6, 1.0), (20, 3.0), (33, 0.05)] {
        let a: Vec<f64> = (0..n * n).map(|_| rng.range(-scale, scale)).collect();
        let got = down(&linalg::expm(&up::<T>(dev, &a, &[n, n])?)?)?;
        close(
            &format!("expm n={n} scale={scale}"),
            &got,
            &host_expm(&a, n),
            tol::<T>() * 20.0,
        )?;
    }
    // Nilpotent: exp = I + A exactly.
    let got = down(&linalg::expm(&up::<T>(
        dev,
        &[0.0, 2.0, 0.0, 0.0],
        &[2, 2],
    )?)?)?;
    close("expm nilpotent", &got, &[1.0, 2.0, 0.0, 1.0], tol::<T>())?;
    // A batch: each matrix its own exponential.
    let a: Vec<f64> = (0..2 * 9).map(|_| rng.range(-2.0, 2.0)).collect();
    let got = down(&linalg::expm(&up::<T>(dev, &a, &[2, 3, 3])?)?)?;
    for b in 0..2 {
        close(
            "expm batch",
            &got[b * 9..(b + 1) * 9],
            &host_expm(&a[b * 9..(b + 1) * 9], 3),
            tol::<T>() * 20.0,
        )?;
    }
    Ok(())
}

fn rank_cond<T: RealElement>(dev: &Device, rng: &mut Rng) -> TResult {
    for (m, n, k) in [(7usize, 5usize, 3usize), (40, 61, 17), (9, 9, 9), (6, 4, 0)] {
        let b: Vec<f64> = (0..m * k).map(|_| rng.range(-1.0, 1.0)).collect();
        let c: Vec<f64> = (0..k * n).map(|_| rng.range(-1.0, 1.0)).collect();
        let mut a = vec![0.0; m * n];
        for i in 0..m {
            for p in 0..k {
                for j in 0..n {
                    a[i * n + j] += b[i * k + p] * c[p * n + j];
                }
            }
        }
        let r = linalg::matrix_rank(&up::<T>(dev, &a, &[m, n])?, None)?;
        ensure!(
            r == k,
            "matrix_rank of a ({m}, {n}) product of rank {k}: {r}"
        );
    }
    ensure!(
        linalg::matrix_rank(&up::<T>(dev, &[0.0, 0.0], &[2])?, None)? == 0,
        "rank of a zero vector"
    );
    // Known singular values: a diagonal with a row swap.
    let a = [0.0, 0.5, 0.0, 4.0, 0.0, 0.0, 0.0, 0.0, 2.0];
    let d = up::<T>(dev, &a, &[3, 3])?;
    let c2 = down(&linalg::cond(&d, None)?)?;
    close("cond 2", &c2, &[8.0], tol::<T>())?;
    close(
        "cond -2",
        &down(&linalg::cond(&d, Some(NormOrd::P(-2.0)))?)?,
        &[0.125],
        tol::<T>(),
    )?;
    // Frobenius: |A|_F |A^-1|_F.
    let fro = (0.25f64 + 16.0 + 4.0).sqrt() * (4.0f64 + 1.0 / 16.0 + 0.25).sqrt();
    close(
        "cond fro",
        &down(&linalg::cond(&d, Some(NormOrd::Fro))?)?,
        &[fro],
        tol::<T>(),
    )?;
    // 1-norm: max column sum of A (4) times that of A^-1 (2).
    close(
        "cond 1",
        &down(&linalg::cond(&d, Some(NormOrd::P(1.0)))?)?,
        &[8.0],
        tol::<T>(),
    )?;
    // A batch of two.
    let two = up::<T>(dev, &[2.0, 0.0, 0.0, 1.0, 3.0, 0.0, 0.0, 0.3], &[2, 2, 2])?;
    close(
        "cond batch",
        &down(&linalg::cond(&two, None)?)?,
        &[2.0, 10.0],
        tol::<T>(),
    )?;
    Ok(())
}

fn triangular<T: RealElement>(dev: &Device, rng: &mut Rng) -> TResult {
    use cuarray::linalg::{solve_triangular, Trans};
    for (n, k) in [(1usize, 1usize), (7, 0), (33, 1), (130, 5), (517, 64)] {
        // A well-conditioned triangle (diagonal away from zero); junk in the other one.
        let mut a: Vec<f64> = (0..n * n)
            .map(|_| rng.range(-1.0, 1.0) / n as f64)
            .collect();
        for i in 0..n {
            a[i * n + i] = 1.0 + rng.unit();
        }
        let b: Vec<f64> = (0..n * k.max(1)).map(|_| rng.range(-1.0, 1.0)).collect();
        let da = up::<T>(dev, &a, &[n, n])?;
        let bshape: Vec<usize> = if k == 1 { vec![n] } else { vec![n, k] };
        let db = up::<T>(dev, &b[..n * k], &bshape)?;
        for lower in [true, false] {
            for trans in [Trans::N, Trans::T, Trans::C] {
                for unit in [false, true] {
                    let x = down(&solve_triangular(&da, &db, lower, trans, unit)?)?;
                    // op(A) from the triangle only.
                    let at = |i: usize, j: usize| -> f64 {
                        let (r, c) = if trans == Trans::N { (i, j) } else { (j, i) };
                        if r == c {
                            if unit {
                                1.0
                            } else {
                                a[r * n + c]
                            }
                        } else if (r > c) == lower {
                            a[r * n + c]
                        } else {
                            0.0
                        }
                    };
                    for i in 0..n {
                        for c in 0..k {
                            let s: f64 = (0..n).map(|j| at(i, j) * x[j * k + c]).sum();
                            ensure!(
                                (s - b[i * k + c]).abs() <= tol::<T>() * 10.0,
                                "solve_triangular n={n} k={k} lower={lower} {trans:?} unit={unit}: residual {} at ({i}, {c})",
                                s - b[i * k + c]
                            );
                        }
                    }
                }
            }
        }
    }
    // A transposed view for a: the upper triangle of aᵀ is the lower of a.
    let a = [2.0, 0.0, 1.0, 4.0];
    let da = up::<T>(dev, &a, &[2, 2])?.t();
    let x = down(&solve_triangular(
        &da,
        &up::<T>(dev, &[4.0, 8.0], &[2])?,
        false,
        Trans::N,
        false,
    )?)?;
    close("solve_triangular of a view", &x, &[1.0, 2.0], tol::<T>())?;
    ensure!(
        solve_triangular(&da, &up::<T>(dev, &[1.0; 3], &[3])?, true, Trans::N, false).is_err(),
        "b of the wrong length accepted"
    );
    Ok(())
}

/// `lu_factor`'s packed factors against the swapped rows of `a` (`L U = P_l A`), `lu`'s
/// `P L U = A`, `lu_solve`'s residual; a batch for `lu_factor`.
fn lu_family<T: RealElement>(dev: &Device, rng: &mut Rng) -> TResult {
    for n in [1usize, 2, 7, 33, 130] {
        let a: Vec<f64> = (0..n * n).map(|_| rng.range(-1.0, 1.0)).collect();
        let da = up::<T>(dev, &a, &[n, n])?;
        let (f, piv) = linalg::lu_factor(&da)?;
        let (f, piv) = (down(&f)?, piv.to_host()?);
        // P_l A: the swaps in order.
        let mut pa = a.clone();
        for (i, &p) in piv.iter().enumerate() {
            ensure!(
                p >= i as i64 && (p as usize) < n,
                "lu_factor n={n}: pivot {p} at {i}"
            );
            for j in 0..n {
                pa.swap(i * n + j, p as usize * n + j);
            }
        }
        let l: Vec<f64> = (0..n * n)
            .map(|k| match (k / n, k % n) {
                (i, j) if i == j => 1.0,
                (i, j) if i > j => f[k],
                _ => 0.0,
            })
            .collect();
        let u: Vec<f64> = (0..n * n)
            .map(|k| if k / n <= k % n { f[k] } else { 0.0 })
            .collect();
        close(
            &format!("lu_factor n={n}: L U = P A"),
            &mm(&l, &u, n),
            &pa,
            tol::<T>() * 10.0,
        )?;
        let (p, l2, u2) = linalg::lu(&da)?;
        let back = down(&p.matmul(&l2)?.matmul(&u2)?)?;
        close(
            &format!("lu n={n}: P L U = A"),
            &back,
            &a,
            tol::<T>() * 10.0,
        )?;
        // lu_solve on a well-conditioned matrix: A + n I.
        let w: Vec<f64> = a
            .iter()
            .enumerate()
            .map(|(k, x)| if k / n == k % n { x + n as f64 } else { *x })
            .collect();
        let dw = up::<T>(dev, &w, &[n, n])?;
        let fw = linalg::lu_factor(&dw)?;
        for k in [1usize, 3] {
            let b: Vec<f64> = (0..n * k).map(|_| rng.range(-1.0, 1.0)).collect();
            let shape: Vec<usize> = if k == 1 { vec![n] } else { vec![n, k] };
            let x = down(&linalg::lu_solve(&fw, &up::<T>(dev, &b, &shape)?)?)?;
            for i in 0..n {
                for c in 0..k {
                    let s: f64 = (0..n).map(|j| w[i * n + j] * x[j * k + c]).sum();
                    ensure!(
                        (s - b[i * k + c]).abs() <= tol::<T>() * 10.0,
                        "lu_solve n={n} k={k}: residual {}",
                        s - b[i * k + c]
                    );
                }
            }
        }
    }
    // A batch of 3 factorised at once: each as alone.
    let a: Vec<f64> = (0..3 * 25).map(|_| rng.range(-1.0, 1.0)).collect();
    let (fb, pb) = linalg::lu_factor(&up::<T>(dev, &a, &[3, 5, 5])?)?;
    ensure!(
        fb.shape() == [3, 5, 5] && pb.shape() == [3, 5],
        "lu_factor batch shapes {:?} {:?}",
        fb.shape(),
        pb.shape()
    );
    let (fb, pb) = (down(&fb)?, pb.to_host()?);
    for b in 0..3 {
        let (f1, p1) = linalg::lu_factor(&up::<T>(dev, &a[b * 25..(b + 1) * 25], &[5, 5])?)?;
        close(
            "lu_factor batch",
            &fb[b * 25..(b + 1) * 25],
            &down(&f1)?,
            tol::<T>(),
        )?;
        ensure!(
            pb[b * 5..(b + 1) * 5] == p1.to_host()?[..],
            "lu_factor batch pivots of matrix {b}"
        );
    }
    ensure!(
        linalg::lu(&up::<T>(dev, &[1.0; 6], &[2, 3])?).is_err(),
        "lu of a (2, 3)"
    );
    Ok(())
}

pub fn trials(out: &mut Vec<Trial>) {
    macro_rules! per_dtype {
        ($($t:ty),*) => {$(
            let d = <$t as cuarray::Element>::DTYPE.name();
            add_gpu(out, format!("linalg_more/matrix_power/{d}/mixed"), power::<$t>);
            add_gpu(out, format!("linalg_more/expm/{d}/mixed"), expm::<$t>);
            add_gpu(out, format!("linalg_more/rank_cond/{d}/mixed"), rank_cond::<$t>);
            add_gpu(out, format!("linalg_more/solve_triangular/{d}/mixed"), triangular::<$t>);
            add_gpu(out, format!("linalg_more/lu/{d}/mixed"), lu_family::<$t>);
        )*};
    }
    per_dtype!(f32, f64);
}
