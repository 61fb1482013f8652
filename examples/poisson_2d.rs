//! The 2-D Poisson equation `-Δu = f` on the unit square, zero on the boundary, with
//! `f = 2 pi² sin(pi x) sin(pi y)`, whose solution is `u = sin(pi x) sin(pi y)`.
//!
//! The 5-point Laplacian of the n x n interior grid (n² unknowns, 5 nonzeros per row) is
//! assembled on the host as CSR arrays, copied to the GPU and checked there
//! (`CsrMatrix::from_parts`), then `sparse::linalg::cg` solves the system (cuSPARSE's
//! SpMV each iteration, every scalar on the device). Prints the iterations, the time and
//! the largest error against the exact solution (the discretisation's, O(h²)); exits
//! with status 1 when cg does not converge or the error is too large.
//!
//! `cargo run --release --example poisson_2d -- 1024` (n; 1024 by default)

use cuarray::sparse::{linalg, CsrMatrix};
use cuarray::{Device, DeviceArray, Result};
use std::f64::consts::PI;
use std::time::Instant;

fn main() {
    let n: usize = match std::env::args().nth(1).map(|a| a.parse()) {
        None => 1024,
        Some(Ok(n)) if n >= 2 => n,
        Some(_) => {
            eprintln!("usage: poisson_2d [n >= 2]");
            std::process::exit(2);
        }
    };
    let dev = match Device::new(0) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("no GPU: {e}");
            std::process::exit(1);
        }
    };
    match run(&dev, n) {
        Ok(true) => println!("all checks passed"),
        Ok(false) => std::process::exit(1),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}

/// The 5-point Laplacian (4 on the diagonal, -1 for each neighbour) of an n x n grid in
/// CSR form, rows in the grid's row-major order.
fn laplacian(n: usize) -> (Vec<i32>, Vec<i32>, Vec<f64>) {
    let mut indptr = Vec::with_capacity(n * n + 1);
    let mut indices = Vec::with_capacity(5 * n * n);
    let mut data = Vec::with_capacity(5 * n * n);
    indptr.push(0);
    for i in 0..n {
        for j in 0..n {
            let k = (i * n + j) as i32;
            let mut push = |c: i32, v: f64| {
                indices.push(c);
                data.push(v);
            };
            if i > 0 {
                push(k - n as i32, -1.0);
            }
            if j > 0 {
                push(k - 1, -1.0);
            }
            push(k, 4.0);
            if j + 1 < n {
                push(k + 1, -1.0);
            }
            if i + 1 < n {
                push(k + n as i32, -1.0);
            }
            indptr.push(indices.len() as i32);
        }
    }
    (indptr, indices, data)
}

fn run(dev: &Device, n: usize) -> Result<bool> {
    let h = 1.0 / (n + 1) as f64;
    let t0 = Instant::now();
    let (indptr, indices, data) = laplacian(n);
    let a = CsrMatrix::from_parts(
        &DeviceArray::from_slice(dev, &indptr)?,
        &DeviceArray::from_slice(dev, &indices)?,
        &DeviceArray::from_slice(dev, &data)?,
        (n * n, n * n),
    )?;
    let exact: Vec<f64> = (0..n * n)
        .map(|k| {
            let (x, y) = (((k / n) + 1) as f64 * h, ((k % n) + 1) as f64 * h);
            (PI * x).sin() * (PI * y).sin()
        })
        .collect();
    // The right-hand side of the scaled system A u = h² f.
    let rhs: Vec<f64> = exact.iter().map(|u| h * h * 2.0 * PI * PI * u).collect();
    let b = DeviceArray::from_slice(dev, &rhs)?;
    dev.synchronize()?;
    println!(
        "{n} x {n} grid: {} unknowns, {} nonzeros, assembled in {:.1} ms",
        n * n,
        a.nnz(),
        t0.elapsed().as_secs_f64() * 1e3
    );
    let tol = linalg::Tol {
        rtol: 1e-8,
        atol: 0.0,
    };
    let t1 = Instant::now();
    let (u, info) = linalg::cg(&a, &b, None, tol, None, None)?;
    dev.synchronize()?;
    let secs = t1.elapsed().as_secs_f64();
    println!(
        "cg: converged {}, {} iterations, residual {:.3e}, {:.1} ms ({:.3} ms per iteration)",
        info.converged,
        info.iterations,
        info.residual,
        secs * 1e3,
        secs * 1e3 / info.iterations.max(1) as f64
    );
    let got = u.to_host()?;
    let err = got
        .iter()
        .zip(&exact)
        .map(|(g, e)| (g - e).abs())
        .fold(0.0f64, f64::max);
    // The discretisation error is about pi² h² / 12 (a few times that at most).
    let bound = 2.0 * PI * PI * h * h;
    println!("largest error against the exact solution: {err:.3e} (bound {bound:.3e})");
    Ok(info.converged && err <= bound)
}
