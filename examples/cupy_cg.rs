//! A port of CuPy's `examples/cg/cg.py`: the conjugate gradient method on a dense
//! symmetric positive definite system `A x = b` of order 2000 in `f64`, with `A = M M^T`
//! for a random integer matrix `M` in [-50, 50) and `b = A x_ans` for a random integer
//! `x_ans`. As the original: three trials, each a fresh system, `tol` 0.1 on the
//! residual's 2-norm and at most 5000 iterations, each iteration two products `A p`, three
//! inner products and the norm of the residual; the timed section is `fit` (the GPU run;
//! the original's NumPy run is not repeated here).
//!
//! alpha and beta stay on the GPU as 0-d arrays; the one read per iteration is the
//! residual's norm for the convergence test, as in the original.
//!
//! Checks `||x - x_ans|| / ||x_ans||` and `||A x - b|| / ||b||` and exits non-zero when they
//! are large; prints `{"lib": "cuarray", "case": "cupy_example_cg", ...}` with the median
//! wall time of the three trials.
//!
//! `cargo run --release --example cupy_cg [-- --tol 0.1 --max-iter 5000]`

use cuarray::linalg::norm;
use cuarray::random::Generator;
use cuarray::{Device, DeviceArray, Result};
use std::time::Instant;

const N: usize = 2000;

fn arg<T: std::str::FromStr>(names: &[&str], default: T) -> T {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| names.contains(&a.as_str()))
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() {
    let tol = arg(&["--tol", "-t"], 0.1f64);
    let max_iter = arg(&["--max-iter", "-m"], 5000usize);
    let dev = match Device::new(arg(&["--gpu-id", "-g"], 0usize)) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("cupy_cg needs an NVIDIA GPU: {e}");
            std::process::exit(1);
        }
    };
    match run(&dev, tol, max_iter) {
        Ok(true) => {}
        Ok(false) => std::process::exit(1),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}

/// CuPy's `fit`: the same operations in the same order. Returns x and the iteration count.
fn fit(
    a: &DeviceArray<f64>,
    b: &DeviceArray<f64>,
    tol: f64,
    max_iter: usize,
) -> Result<(DeviceArray<f64>, usize)> {
    let x = DeviceArray::<f64>::zeros(b.device(), b.shape())?;
    let mut r0 = b.sub(a.dot(&x))?;
    let mut p = r0.copy()?;
    for i in 0..max_iter {
        let alpha = r0.dot(&r0)?.div(p.dot(&a.dot(&p)?))?; // 0-d, on the GPU
        x.add_assign(alpha.mul(&p))?;
        let r1 = r0.sub(alpha.mul(a.dot(&p)?))?;
        if norm(&r1, None)?.to_scalar()? < tol {
            return Ok((x, i + 1));
        }
        let beta = r1.dot(&r1)?.div(r0.dot(&r0))?;
        p = r1.add(beta.mul(&p))?;
        r0 = r1;
    }
    println!("Failed to converge. Increase max-iter or tol.");
    Ok((x, max_iter))
}

fn run(dev: &Device, tol: f64, max_iter: usize) -> Result<bool> {
    let mut rng = Generator::new(dev, 0);
    let mut times = Vec::new();
    let mut ok = true;
    for repeat in 0..3 {
        println!("Trial: {repeat}");
        // The system, made on the GPU (the original makes it with NumPy; not timed).
        let m = rng.integers(-50i64, 50, &[N, N])?.astype::<f64>()?;
        let a = m.matmul(&m.t())?; // integers below 2^53: exact
        let x_ans = rng.integers(-50i64, 50, &[N])?.astype::<f64>()?;
        let b = a.dot(&x_ans)?;
        if repeat == 0 {
            fit(&a, &b, tol, 2)?; // compiles or loads the kernels, not timed
        }
        println!("Running GPU...");
        dev.synchronize()?;
        let t = Instant::now();
        let (x, iters) = fit(&a, &b, tol, max_iter)?;
        dev.synchronize()?;
        let secs = t.elapsed().as_secs_f64();
        println!(" GPU :  {secs:.6} sec ({iters} iterations)");
        times.push(secs * 1e6);
        let err = norm(&x.sub(&x_ans)?, None)?.to_scalar()?;
        let rel_err = err / norm(&x_ans, None)?.to_scalar()?;
        let res = norm(&a.dot(&x)?.sub(&b)?, None)?.to_scalar()? / norm(&b, None)?.to_scalar()?;
        println!("{err} (relative {rel_err:.2e}; relative residual {res:.2e})");
        if !(rel_err < 1e-2 && res < 1e-6) {
            eprintln!("wrong result: ||x - x_ans|| / ||x_ans|| = {rel_err:e}, ||A x - b|| / ||b|| = {res:e}");
            ok = false;
        }
        println!();
    }
    times.sort_by(f64::total_cmp);
    println!(
        "{{\"lib\": \"cuarray\", \"case\": \"cupy_example_cg\", \"kind\": \"wall\", \"us\": {:.1}}}",
        times[1]
    );
    Ok(ok)
}
