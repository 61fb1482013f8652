//! The decompositions of `cuarray::linalg` on complex matrices (c64, c128) against host
//! arithmetic in complex f64: residuals of `solve` (batched small systems, one matrix,
//! one large blocked solve, one matrix for a batch of right-hand sides), `A inv(A) = I`,
//! `det` against a host LU and `slogdet` against `det`, `L Lᴴ = A` for Hermitian
//! positive-definite matrices (and the error of one that is not), `Q R = A` with
//! `Qᴴ Q = I`, `A v = v diag(w)` with real ascending `w` for Hermitian matrices; batches,
//! transposed views, singular matrices; `U diag(S) Vh = A` with unitary factors and real
//! descending `S` through each SVD routine; least squares (normal equations, residuals),
//! pseudo-inverses and norms.

use crate::common::{add_gpu, ensure, gpu_trial_exclusive, Rng, TResult};
use crate::linalg_eig::{down, norm, random, up, Host};
use cuarray::linalg;
use cuarray::{Complex32, Complex64, Element, Error};
use libtest_mimic::Trial;

type C = Complex64;

/// Row-major `(m, k) @ (k, n)`.
fn mm(a: &[C], b: &[C], m: usize, k: usize, n: usize) -> Vec<C> {
    let mut c = vec![C::new(0.0, 0.0); m * n];
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

/// Conjugate transpose of a row-major `(m, n)`.
fn ct(a: &[C], m: usize, n: usize) -> Vec<C> {
    let mut t = vec![C::new(0.0, 0.0); m * n];
    for i in 0..m {
        for j in 0..n {
            t[j * m + i] = a[i * n + j].conj();
        }
    }
    t
}

fn eye(n: usize) -> Vec<C> {
    (0..n * n)
        .map(|k| C::new(if k / n == k % n { 1.0 } else { 0.0 }, 0.0))
        .collect()
}

/// `|got - want| <= tol * scale` elementwise.
fn close(what: &str, got: &[C], want: &[C], tol: f64) -> TResult {
    ensure!(
        got.len() == want.len(),
        "{what}: {} elements, expected {}",
        got.len(),
        want.len()
    );
    let scale = want.iter().fold(1.0f64, |m, z| m.max(z.norm()));
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        ensure!(
            (g - w).norm() <= tol * scale,
            "{what}: element {i} is {g}, expected {w}"
        );
    }
    Ok(())
}

/// Host determinant by Gaussian elimination with partial pivoting.
fn host_det(a: &[C], n: usize) -> C {
    let mut m = a.to_vec();
    let mut det = C::new(1.0, 0.0);
    for c in 0..n {
        let p = (c..n)
            .max_by(|&x, &y| m[x * n + c].norm().total_cmp(&m[y * n + c].norm()))
            .unwrap();
        if m[p * n + c].norm() == 0.0 {
            return C::new(0.0, 0.0);
        }
        if p != c {
            for j in 0..n {
                m.swap(p * n + j, c * n + j);
            }
            det = -det;
        }
        det *= m[c * n + c];
        for r in c + 1..n {
            let f = m[r * n + c] / m[c * n + c];
            for j in c..n {
                let v = m[c * n + j];
                m[r * n + j] -= f * v;
            }
        }
    }
    det
}

/// A Hermitian positive-definite `n x n`: `B Bᴴ + n I`.
fn hpd<T: Host>(rng: &mut Rng, n: usize) -> Vec<C> {
    let b = random::<T>(rng, n * n);
    let mut a = mm(&b, &ct(&b, n, n), n, n, n);
    for i in 0..n {
        a[i * n + i] += C::new(n as f64, 0.0);
        a[i * n + i].im = 0.0;
    }
    a
}

fn solve_inv<T: Host>(dev: &cuarray::Device, rng: &mut Rng) -> TResult {
    // (batch, n, k): one matrix, the batched small path, one large blocked solve.
    for (batch, n, k) in [
        (1usize, 1usize, 1usize),
        (1, 7, 3),
        (5, 8, 2),
        (1, 60, 4),
        (1, 1030, 3),
    ] {
        let a = random::<T>(rng, batch * n * n);
        let b = random::<T>(rng, batch * n * k);
        let shape = if batch == 1 {
            vec![n, n]
        } else {
            vec![batch, n, n]
        };
        let bshape = if batch == 1 {
            vec![n, k]
        } else {
            vec![batch, n, k]
        };
        let x = down(
            &linalg::solve(&up::<T>(dev, &a, &shape)?, &up::<T>(dev, &b, &bshape)?)?
                .contiguous()?,
        )?;
        for m in 0..batch {
            let (am, xm) = (
                &a[m * n * n..(m + 1) * n * n],
                &x[m * n * k..(m + 1) * n * k],
            );
            let ax = mm(am, xm, n, n, k);
            let r: Vec<C> = ax
                .iter()
                .zip(&b[m * n * k..(m + 1) * n * k])
                .map(|(p, q)| p - q)
                .collect();
            ensure!(
                norm(&r) <= T::tol(n) * 10.0 * norm(am) * norm(xm).max(1.0),
                "solve batch={batch} n={n} matrix {m}: |A x - b| = {}",
                norm(&r)
            );
        }
    }
    // One matrix for a batch of vectors (factored once).
    let n = 6;
    let a = random::<T>(rng, n * n);
    let b = random::<T>(rng, 4 * n);
    let x = down(
        &linalg::solve(&up::<T>(dev, &a, &[n, n])?, &up::<T>(dev, &b, &[4, n, 1])?)?
            .contiguous()?,
    )?;
    for m in 0..4 {
        close(
            "solve one matrix, batch of b",
            &mm(&a, &x[m * n..(m + 1) * n], n, n, 1),
            &b[m * n..(m + 1) * n],
            T::tol(n) * 50.0,
        )?;
    }
    // Inverses: one, a batch of transposed views.
    for (batch, n) in [(1usize, 3usize), (1, 33), (5, 4)] {
        let a = random::<T>(rng, batch * n * n);
        let d = up::<T>(dev, &a, &[batch, n, n])?.permute(&[0, 2, 1])?;
        let ai = down(&linalg::inv(&d)?.contiguous()?)?;
        for m in 0..batch {
            let t: Vec<C> = (0..n * n)
                .map(|e| a[m * n * n + (e % n) * n + e / n])
                .collect();
            close(
                &format!("inv batch={batch} n={n}"),
                &mm(&t, &ai[m * n * n..(m + 1) * n * n], n, n, n),
                &eye(n),
                T::tol(n) * 100.0,
            )?;
        }
    }
    // A singular matrix (a zero row: an exact zero pivot) in the middle of a batch.
    let mut a = random::<T>(rng, 3 * 9);
    for j in 0..3 {
        a[9 + 3 + j] = C::new(0.0, 0.0);
    }
    match linalg::inv(&up::<T>(dev, &a, &[3, 3, 3])?) {
        Err(Error::Singular { batch: 1, .. }) => {}
        other => {
            return Err(format!(
                "inv of a singular batch member: {:?}",
                other.map(|x| x.shape().to_vec())
            )
            .into())
        }
    }
    Ok(())
}

fn det_slogdet<T: Host>(dev: &cuarray::Device, rng: &mut Rng) -> TResult
where
    T::Spectral: Host,
{
    for n in [1usize, 3, 6, 20] {
        let a = random::<T>(rng, 2 * n * n);
        let d = up::<T>(dev, &a, &[2, n, n])?;
        let got = down(&linalg::det(&d)?)?;
        let (sign, logabs) = linalg::slogdet(&d)?;
        let (sign, logabs) = (down(&sign)?, down(&logabs)?);
        for m in 0..2 {
            let want = host_det(&a[m * n * n..(m + 1) * n * n], n);
            let tol = T::tol(n) * 10.0;
            ensure!(
                (got[m] - want).norm() <= tol * want.norm().max(1e-300),
                "det n={n} matrix {m}: {} expected {want}",
                got[m]
            );
            ensure!(
                (sign[m].norm() - 1.0).abs() <= tol,
                "slogdet n={n}: |sign| = {}",
                sign[m].norm()
            );
            ensure!(logabs[m].im == 0.0, "slogdet n={n}: logabsdet not real");
            let back = sign[m] * logabs[m].re.exp();
            ensure!(
                (back - want).norm() <= tol * want.norm(),
                "slogdet n={n} matrix {m}: sign exp(logabs) = {back}, det {want}"
            );
        }
    }
    // Singular (a zero row: an exact zero pivot): det 0, slogdet (0, -inf).
    let z = C::new(0.0, 0.0);
    let s = [C::new(1.0, 1.0), C::new(2.0, -1.0), z, z];
    let d = up::<T>(dev, &s, &[2, 2])?;
    ensure!(down(&linalg::det(&d)?)?[0] == z, "det of a singular matrix");
    let (sign, logabs) = linalg::slogdet(&d)?;
    let (sign, logabs) = (down(&sign)?, down(&logabs)?);
    ensure!(
        sign[0] == C::new(0.0, 0.0) && logabs[0].re == f64::NEG_INFINITY,
        "slogdet singular: {sign:?} {logabs:?}"
    );
    Ok(())
}

fn cholesky_qr<T: Host>(dev: &cuarray::Device, rng: &mut Rng) -> TResult {
    // Cholesky: a batch of small (the batched routine) and one larger matrix.
    for (batch, n) in [(6usize, 5usize), (1, 40)] {
        let a: Vec<C> = (0..batch).flat_map(|_| hpd::<T>(rng, n)).collect();
        let l = down(&linalg::cholesky(&up::<T>(dev, &a, &[batch, n, n])?)?.contiguous()?)?;
        for m in 0..batch {
            let lm = &l[m * n * n..(m + 1) * n * n];
            for i in 0..n {
                for j in i + 1..n {
                    ensure!(
                        lm[i * n + j] == C::new(0.0, 0.0),
                        "cholesky n={n}: nonzero above the diagonal"
                    );
                }
            }
            close(
                &format!("cholesky batch={batch} n={n}"),
                &mm(lm, &ct(lm, n, n), n, n, n),
                &a[m * n * n..(m + 1) * n * n],
                T::tol(n) * 20.0,
            )?;
        }
    }
    let mut neg = eye(3);
    neg[4] = C::new(-1.0, 0.0);
    ensure!(
        matches!(
            linalg::cholesky(&up::<T>(dev, &neg, &[3, 3])?),
            Err(Error::NotPositiveDefinite { .. })
        ),
        "cholesky of an indefinite matrix"
    );
    // QR: tall, wide, a batch.
    for (batch, m, n) in [(1usize, 7usize, 4usize), (1, 4, 7), (3, 6, 6)] {
        let a = random::<T>(rng, batch * m * n);
        let (q, r) = linalg::qr(&up::<T>(dev, &a, &[batch, m, n])?)?;
        let k = m.min(n);
        ensure!(
            q.shape() == [batch, m, k] && r.shape() == [batch, k, n],
            "qr shapes {:?} {:?}",
            q.shape(),
            r.shape()
        );
        let (q, r) = (down(&q.contiguous()?)?, down(&r)?);
        for b in 0..batch {
            let (qb, rb) = (
                &q[b * m * k..(b + 1) * m * k],
                &r[b * k * n..(b + 1) * k * n],
            );
            close(
                &format!("qr {m}x{n}: Q R"),
                &mm(qb, rb, m, k, n),
                &a[b * m * n..(b + 1) * m * n],
                T::tol(m) * 20.0,
            )?;
            close(
                &format!("qr {m}x{n}: Qᴴ Q"),
                &mm(&ct(qb, m, k), qb, k, m, k),
                &eye(k),
                T::tol(m) * 20.0,
            )?;
            for i in 0..k {
                for j in 0..i {
                    ensure!(
                        rb[i * n + j] == C::new(0.0, 0.0),
                        "qr: R not upper triangular"
                    );
                }
            }
        }
    }
    Ok(())
}

fn eigh<T: Host>(dev: &cuarray::Device, rng: &mut Rng) -> TResult
where
    T::Spectral: Host,
{
    // A batch of small (Jacobi) and one larger (divide and conquer) Hermitian matrices.
    for (batch, n) in [(6usize, 8usize), (1, 50), (2, 40)] {
        let a: Vec<C> = (0..batch)
            .flat_map(|_| {
                let b = random::<T>(rng, n * n);
                let h: Vec<C> = (0..n * n)
                    .map(|e| (b[e] + b[(e % n) * n + e / n].conj()) * 0.5)
                    .collect();
                h
            })
            .collect();
        let d = up::<T>(dev, &a, &[batch, n, n])?;
        let (w, v) = linalg::eigh(&d)?;
        let (w, v) = (down(&w)?, down(&v.contiguous()?)?);
        let wv = down(&linalg::eigvalsh(&d)?)?;
        for m in 0..batch {
            let am = &a[m * n * n..(m + 1) * n * n];
            let (wm, vm) = (&w[m * n..(m + 1) * n], &v[m * n * n..(m + 1) * n * n]);
            ensure!(
                wm.windows(2).all(|p| p[0].re <= p[1].re),
                "eigh n={n}: eigenvalues not ascending"
            );
            let vw: Vec<C> = (0..n * n).map(|e| vm[e] * wm[e % n]).collect();
            close(
                &format!("eigh batch={batch} n={n}: A V = V W"),
                &mm(am, vm, n, n, n),
                &vw,
                T::tol(n) * 20.0,
            )?;
            close(
                &format!("eigh n={n}: Vᴴ V"),
                &mm(&ct(vm, n, n), vm, n, n, n),
                &eye(n),
                T::tol(n) * 20.0,
            )?;
            close(
                &format!("eigvalsh n={n}"),
                &wv[m * n..(m + 1) * n],
                wm,
                T::tol(n) * 20.0,
            )?;
        }
    }
    Ok(())
}

/// Checks `U diag(S) Vh = A`, `Uᴴ U = I`, `Vh Vhᴴ = I` and real, descending, non-negative
/// `S` for each matrix of a `(batch, m, n)` stack.
fn check_svd<T: Host>(
    what: &str,
    a: &[C],
    (batch, m, n): (usize, usize, usize),
    full: bool,
    got: &linalg_svd::Factors<T>,
) -> TResult
where
    T::Spectral: Host,
{
    let k = m.min(n);
    let (uc, vr) = if full { (m, n) } else { (k, k) };
    let (u, s, vh) = got;
    ensure!(
        u.shape() == [batch, m, uc] && s.shape() == [batch, k] && vh.shape() == [batch, vr, n],
        "{what}: shapes {:?} {:?} {:?}",
        u.shape(),
        s.shape(),
        vh.shape()
    );
    let (u, s, vh) = (down(&u.contiguous()?)?, down(s)?, down(&vh.contiguous()?)?);
    let tol = T::tol(m.max(n)) * 20.0;
    for b in 0..batch {
        let (ub, sb, vb) = (
            &u[b * m * uc..(b + 1) * m * uc],
            &s[b * k..(b + 1) * k],
            &vh[b * vr * n..(b + 1) * vr * n],
        );
        ensure!(
            sb.iter().all(|x| x.im == 0.0 && x.re >= 0.0)
                && sb.windows(2).all(|p| p[0].re >= p[1].re),
            "{what}: singular values {sb:?}"
        );
        // U[:, :k] diag(S) Vh[:k, :].
        let us: Vec<C> = (0..m * k)
            .map(|e| ub[(e / k) * uc + e % k] * sb[e % k])
            .collect();
        close(
            &format!("{what}: U S Vh"),
            &mm(&us, &vb[..k * n], m, k, n),
            &a[b * m * n..(b + 1) * m * n],
            tol,
        )?;
        close(
            &format!("{what}: Uᴴ U"),
            &mm(&ct(ub, m, uc), ub, uc, m, uc),
            &eye(uc),
            tol,
        )?;
        close(
            &format!("{what}: Vh Vhᴴ"),
            &mm(vb, &ct(vb, vr, n), vr, n, vr),
            &eye(vr),
            tol,
        )?;
    }
    Ok(())
}

mod linalg_svd {
    use cuarray::linalg::SolverElement;
    use cuarray::DeviceArray;
    /// `svd`'s factors.
    pub type Factors<T> = (
        DeviceArray<T>,
        DeviceArray<<T as SolverElement>::Spectral>,
        DeviceArray<T>,
    );
}

fn svd<T: Host>(dev: &cuarray::Device, rng: &mut Rng) -> TResult
where
    T::Spectral: Host,
{
    // Many small matrices (the batched Jacobi method), single ones tall and wide, economy
    // and full, and two past 512 (the polar decomposition in double precision).
    for &(batch, m, n, full) in &[
        (4usize, 6usize, 5usize, false),
        (1, 600, 520, false),
        (1, 515, 515, true),
        (3, 5, 6, true),
        (1, 40, 30, false),
        (1, 30, 40, true),
        (2, 33, 33, false),
        (1, 1, 1, false),
    ] {
        let a = random::<T>(rng, batch * m * n);
        let d = up::<T>(dev, &a, &[batch, m, n])?;
        check_svd::<T>(
            &format!("svd {batch}x{m}x{n} full={full}"),
            &a,
            (batch, m, n),
            full,
            &linalg::svd(&d, full)?,
        )?;
        let sv = down(&linalg::svdvals(&d)?)?;
        let s = down(&linalg::svd(&d, false)?.1)?;
        close(
            &format!("svdvals {batch}x{m}x{n}"),
            &sv,
            &s,
            T::tol(m.max(n)) * 20.0,
        )?;
    }
    // A transposed view.
    let a = random::<T>(rng, 7 * 4);
    let t: Vec<C> = (0..28).map(|e| a[(e % 7) * 4 + e / 7]).collect();
    let d = up::<T>(dev, &a, &[7, 4])?.t().expand_dims(0)?;
    check_svd::<T>(
        "svd of a transposed view",
        &t,
        (1, 4, 7),
        false,
        &linalg::svd(&d, false)?,
    )?;
    Ok(())
}

/// The QR-iteration, polar and Jacobi routines (the hidden knob is global: exclusive).
fn svd_routines<T: Host>(dev: &cuarray::Device) -> TResult
where
    T::Spectral: Host,
{
    use cuarray::tuning::{set_svd_algorithm, SvdAlgorithm};
    let mut rng = Rng::for_name("linalg_complex/svd_routines");
    let mut result = Ok(());
    for algo in [SvdAlgorithm::Qr, SvdAlgorithm::Polar, SvdAlgorithm::Jacobi] {
        set_svd_algorithm(algo);
        for &(m, n, full) in &[
            (40usize, 30usize, false),
            (30, 40, false),
            (35, 35, true),
            (40, 30, true),
            (30, 40, true),
        ] {
            let a = random::<T>(&mut rng, m * n);
            let r = up::<T>(dev, &a, &[1, m, n])
                .and_then(|d| linalg::svd(&d, full))
                .map_err(|e| e.to_string());
            let r = r.and_then(|f| {
                check_svd::<T>(
                    &format!("{algo:?} {m}x{n} full={full}"),
                    &a,
                    (1, m, n),
                    full,
                    &f,
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

fn lstsq_pinv_norm<T: Host>(dev: &cuarray::Device, rng: &mut Rng) -> TResult
where
    T::Spectral: Host,
{
    use cuarray::linalg::NormOrd;
    // Least squares, tall: Aᴴ (A x - b) = 0, residuals |A x - b|², rank n, the singular
    // values of svdvals.
    let (m, n, k) = (9usize, 4usize, 2usize);
    let a = random::<T>(rng, m * n);
    let b = random::<T>(rng, m * k);
    let (x, res, rank, sv) =
        linalg::lstsq(&up::<T>(dev, &a, &[m, n])?, &up::<T>(dev, &b, &[m, k])?)?;
    ensure!(rank == n, "lstsq rank {rank}");
    let x = down(&x)?;
    let r: Vec<C> = mm(&a, &x, m, n, k)
        .iter()
        .zip(&b)
        .map(|(p, q)| p - q)
        .collect();
    let normal = mm(&ct(&a, m, n), &r, n, m, k);
    ensure!(
        norm(&normal) <= T::tol(m) * 20.0 * norm(&a) * norm(&b),
        "lstsq: |Aᴴ r| = {}",
        norm(&normal)
    );
    let want: Vec<C> = (0..k)
        .map(|j| C::new((0..m).map(|i| r[i * k + j].norm_sqr()).sum(), 0.0))
        .collect();
    close("lstsq residuals", &down(&res)?, &want, T::tol(m) * 20.0)?;
    close(
        "lstsq singular values",
        &down(&sv)?,
        &down(&linalg::svdvals(&up::<T>(dev, &a, &[m, n])?)?)?,
        T::tol(m) * 20.0,
    )?;
    // pinv: A⁺ A = I for full column rank, and a batch of wide matrices: A A⁺ = I.
    let p = down(&linalg::pinv(&up::<T>(dev, &a, &[m, n])?)?.contiguous()?)?;
    close("pinv A⁺ A", &mm(&p, &a, n, m, n), &eye(n), T::tol(m) * 50.0)?;
    let w = random::<T>(rng, 2 * 3 * 5);
    let pw = down(&linalg::pinv(&up::<T>(dev, &w, &[2, 3, 5])?)?.contiguous()?)?;
    for b in 0..2 {
        close(
            "pinv batch A A⁺",
            &mm(&w[b * 15..(b + 1) * 15], &pw[b * 15..(b + 1) * 15], 3, 5, 3),
            &eye(3),
            T::tol(5) * 50.0,
        )?;
    }
    // Norms: of the magnitudes (Fro, 1, inf, vector p), and of the singular values (2, nuc).
    let (r, c) = (5usize, 3usize);
    let a = random::<T>(rng, r * c);
    let d = up::<T>(dev, &a, &[r, c])?;
    let one =
        |x: cuarray::DeviceArray<T::Spectral>| -> cuarray::Result<f64> { Ok(down(&x)?[0].re) };
    let fro = norm(&a);
    let col1 = (0..c)
        .map(|j| (0..r).map(|i| a[i * c + j].norm()).sum::<f64>())
        .fold(0.0, f64::max);
    let rowinf = (0..r)
        .map(|i| (0..c).map(|j| a[i * c + j].norm()).sum::<f64>())
        .fold(0.0, f64::max);
    let s = down(&linalg::svdvals(&d)?)?;
    let tol = T::tol(r) * 20.0;
    for (what, got, want) in [
        ("norm None", one(linalg::norm(&d, None)?)?, fro),
        ("norm Fro", one(linalg::norm(&d, Some(NormOrd::Fro))?)?, fro),
        (
            "norm 1",
            one(linalg::norm(&d, Some(NormOrd::P(1.0)))?)?,
            col1,
        ),
        (
            "norm inf",
            one(linalg::norm(&d, Some(NormOrd::Inf))?)?,
            rowinf,
        ),
        (
            "norm 2",
            one(linalg::norm(&d, Some(NormOrd::P(2.0)))?)?,
            s[0].re,
        ),
        (
            "norm nuc",
            one(linalg::norm(&d, Some(NormOrd::Nuc))?)?,
            s.iter().map(|z| z.re).sum(),
        ),
    ] {
        ensure!(
            (got - want).abs() <= tol * want.max(1.0),
            "{what}: {got}, expected {want}"
        );
    }
    let v = down(&linalg::norm_axis(&d, Some(NormOrd::P(3.0)), 1)?)?;
    for i in 0..r {
        let want = (0..c)
            .map(|j| a[i * c + j].norm().powi(3))
            .sum::<f64>()
            .cbrt();
        ensure!(
            (v[i].re - want).abs() <= tol * want,
            "norm_axis p=3 row {i}: {} expected {want}",
            v[i].re
        );
    }
    Ok(())
}

pub fn trials(out: &mut Vec<Trial>) {
    macro_rules! per_dtype {
        ($($t:ty),*) => {$(
            let d = <$t as Element>::DTYPE.name();
            add_gpu(out, format!("linalg_complex/solve_inv/{d}/mixed"), solve_inv::<$t>);
            add_gpu(out, format!("linalg_complex/det_slogdet/{d}/mixed"), det_slogdet::<$t>);
            add_gpu(out, format!("linalg_complex/cholesky_qr/{d}/mixed"), cholesky_qr::<$t>);
            add_gpu(out, format!("linalg_complex/eigh/{d}/mixed"), eigh::<$t>);
            add_gpu(out, format!("linalg_complex/svd/{d}/mixed"), svd::<$t>);
            add_gpu(out, format!("linalg_complex/lstsq_pinv_norm/{d}/mixed"), lstsq_pinv_norm::<$t>);
            out.push(gpu_trial_exclusive(format!("linalg_complex/svd_routines/{d}/mixed"), svd_routines::<$t>));
        )*};
    }
    per_dtype!(Complex32, Complex64);
}
