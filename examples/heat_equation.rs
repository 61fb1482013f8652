//! The 2-D heat equation `u_t = alpha (u_xx + u_yy)` on the unit square, zero on the
//! boundary, from `u(x, y, 0) = sin(pi x) sin(pi y)`, whose solution is
//! `exp(-2 pi² alpha t) sin(pi x) sin(pi y)`.
//!
//! 1. Explicit steps on a 257 x 257 grid: the five-point stencil as four shifted slices of
//!    the grid added on the GPU, written back into the interior view (no kernel of our
//!    own, no copy to the host until the end).
//! 2. Implicit (backward Euler) steps on a 31 x 31 interior grid, where a direct solve
//!    fits: `(I - r L) u_new = u_old` with the 961 x 961 matrix of the Laplacian, by
//!    `linalg::solve` each step (LU), and the same through one inverse (`inv`) applied at
//!    each step, with many times the explicit method's largest stable step; the matrix's
//!    Cholesky factor checks that it is symmetric positive definite.
//!
//! Each is compared with the analytic solution; prints the errors and exits with status 1
//! when one is too large.
//!
//! `cargo run --release --example heat_equation`

use cuarray::{linalg, s, Device, DeviceArray, Result};
use std::f64::consts::PI;

const ALPHA: f64 = 0.1;
const T_END: f64 = 0.1;

fn main() {
    let dev = match Device::new(0) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("no GPU: {e}");
            std::process::exit(1);
        }
    };
    match run(&dev) {
        Ok(true) => println!("all checks passed"),
        Ok(false) => std::process::exit(1),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}

/// `sin(pi x) sin(pi y)` on the `(n + 2) x (n + 2)` grid of spacing `1 / (n + 1)`,
/// boundary included, scaled by `scale`.
fn mode(dev: &Device, n: usize, scale: f64) -> Result<DeviceArray<f64>> {
    let side = DeviceArray::<f64>::linspace(dev, 0.0, 1.0, n + 2)?;
    let sx = (&side * PI)?.sin()?;
    let grid = cuarray::outer(&sx, &sx)?;
    grid * scale
}

fn report(what: &str, err: f64, limit: f64) -> bool {
    let ok = err < limit;
    println!(
        "  [{}] {what}: max error {err:.3e} (limit {limit:.1e})",
        if ok { "ok" } else { "FAIL" }
    );
    ok
}

fn run(dev: &Device) -> Result<bool> {
    let mut ok = true;
    let decay = (-2.0 * PI * PI * ALPHA * T_END).exp();
    println!("u(t = {T_END}) = {decay:.6} sin(pi x) sin(pi y), alpha = {ALPHA}");

    // ---- explicit: the stencil as slices and adds ----------------------------------------
    let n = 255;
    let h = 1.0 / (n + 1) as f64;
    let dt_max = h * h / (4.0 * ALPHA);
    let steps = (T_END / (0.9 * dt_max)).ceil() as usize;
    let dt = T_END / steps as f64;
    let r = ALPHA * dt / (h * h);
    println!(
        "== explicit: {} x {} grid, {steps} steps of dt = {dt:.3e} (r = {r:.3})",
        n + 2,
        n + 2
    );
    let u = mode(dev, n, 1.0)?;
    let interior = u.slice(s![1..-1, 1..-1])?;
    let timer = dev.timer()?;
    for _ in 0..steps {
        let up = u.slice(s![..-2, 1..-1])?;
        let down = u.slice(s![2.., 1..-1])?;
        let left = u.slice(s![1..-1, ..-2])?;
        let right = u.slice(s![1..-1, 2..])?;
        let lap = (&(&(&(&up + &down)? + &left)? + &right)? - &(&interior * 4.0)?)?;
        // The new interior from the old grid, then written into the grid's interior.
        let next = (&interior + &(lap * r)?)?;
        interior.assign(&next)?;
    }
    let ms = timer.stop()?.as_secs_f64() * 1e3;
    let exact = mode(dev, n, decay)?;
    let err = (&u - &exact)?.abs()?.max()?.to_scalar()?;
    println!("  {steps} steps in {ms:.1} ms on the GPU");
    ok &= report("explicit", err, 1e-4 * decay.max(1e-3) + 2e-5);

    // ---- implicit: backward Euler with a direct solve --------------------------------------
    let n = 31;
    let m = n * n;
    let h = 1.0 / (n + 1) as f64;
    let steps: usize = 8;
    let dt = T_END / steps as f64;
    let r = ALPHA * dt / (h * h);
    println!(
        "== implicit: {n} x {n} interior, {steps} steps of dt = {dt:.3e} ({:.0} times the explicit limit), a {m} x {m} system",
        dt / (h * h / (4.0 * ALPHA))
    );
    // I - r L, L the five-point Laplacian (times h²) on the interior, zero boundary.
    let mut a = vec![0.0f64; m * m];
    for i in 0..n {
        for j in 0..n {
            let k = i * n + j;
            a[k * m + k] = 1.0 + 4.0 * r;
            for (di, dj) in [(-1isize, 0isize), (1, 0), (0, -1), (0, 1)] {
                let (p, q) = (i as isize + di, j as isize + dj);
                if p >= 0 && q >= 0 && (p as usize) < n && (q as usize) < n {
                    a[k * m + p as usize * n + q as usize] = -r;
                }
            }
        }
    }
    let a = DeviceArray::from_host(dev, &a, &[m, m])?;
    let start = mode(dev, n, 1.0)?.slice(s![1..-1, 1..-1])?.reshape(&[m])?;
    // By solves: one LU per step.
    let mut u = start.copy()?;
    let timer = dev.timer()?;
    for _ in 0..steps {
        u = linalg::solve(&a, &u)?;
    }
    let ms = timer.stop()?.as_secs_f64() * 1e3;
    let exact = mode(dev, n, 1.0)?.slice(s![1..-1, 1..-1])?.reshape(&[m])?;
    // Backward Euler's exact discrete decay of this mode: the eigenvalue of L.
    let lambda = 4.0 * (PI * h / 2.0).sin().powi(2) * 2.0;
    let discrete = (1.0 / (1.0 + r * lambda)).powi(steps as i32);
    let err = (&u - &(&exact * decay)?)?.abs()?.max()?.to_scalar()?;
    let err_discrete = (&u - &(&exact * discrete)?)?.abs()?.max()?.to_scalar()?;
    println!("  {steps} solves in {ms:.1} ms; the scheme's own decay {discrete:.6} vs the true {decay:.6}");
    ok &= report(
        "implicit (solve) against the analytic solution",
        err,
        0.05 * decay,
    );
    ok &= report(
        "implicit (solve) against the scheme's exact decay",
        err_discrete,
        1e-10,
    );
    // The matrix is symmetric positive definite: a Cholesky factor exists, and one inverse
    // serves every step (a matrix-vector product each).
    let l = linalg::cholesky(&a)?;
    let llt = l.matmul(&l.t())?;
    let fact =
        linalg::norm(&(&llt - &a)?, None)?.to_scalar()? / linalg::norm(&a, None)?.to_scalar()?;
    ok &= report("Cholesky factor: |L Lᵀ - A| / |A|", fact, 1e-13);
    let a_inv = linalg::inv(&a)?;
    let mut v = start.copy()?;
    for _ in 0..steps {
        v = a_inv.matmul(&v)?;
    }
    let agree = (&v - &u)?.abs()?.max()?.to_scalar()?;
    ok &= report("implicit by one inverse against the solves", agree, 1e-12);
    // The backward error of one solve.
    let x = linalg::solve(&a, &u)?;
    let res = linalg::norm(&(&a.matmul(&x)? - &u)?, None)?.to_scalar()?
        / (linalg::norm(&a, None)?.to_scalar()? * linalg::norm(&x, None)?.to_scalar()?);
    ok &= report("residual |A x - b| / (|A| |x|) of a solve", res, 1e-15);
    Ok(ok)
}
