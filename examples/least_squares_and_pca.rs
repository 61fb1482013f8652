//! Least squares and principal components on the GPU with `cuarray::linalg`:
//!
//! 1. fits a cubic to 2,000 noisy samples with `lstsq` (NumPy's four results: the
//!    coefficients, the residual sum of squares, the rank and the singular values), and
//!    checks the normal equations `Aᵀ (A c - y) = 0` and the residual;
//! 2. a PCA by `svd` of 20,000 points in 5-D that lie near a 2-D plane: the explained
//!    variance of each component, the recovered plane against the true one, and
//!    `U S Vh` against the centred data.
//!
//! Prints the results and the residual checks; exits with status 1 when a check fails.
//!
//! `cargo run --release --example least_squares_and_pca`

use cuarray::linalg;
use cuarray::random::Generator;
use cuarray::{stack, Device, DeviceArray, Result};

fn main() {
    let dev = match Device::new(0) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("no GPU: {e}");
            std::process::exit(1);
        }
    };
    let mut failures = Vec::new();
    if let Err(e) = run(&dev, &mut failures) {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
    if failures.is_empty() {
        println!("all checks passed");
    } else {
        for f in &failures {
            eprintln!("FAILED: {f}");
        }
        std::process::exit(1);
    }
}

/// Records a failed check.
fn check(failures: &mut Vec<String>, ok: bool, what: String) {
    println!("  [{}] {what}", if ok { "ok" } else { "FAIL" });
    if !ok {
        failures.push(what);
    }
}

fn run(dev: &Device, failures: &mut Vec<String>) -> Result<()> {
    let mut rng = Generator::new(dev, 7);
    polynomial_fit(dev, &mut rng, failures)?;
    pca(dev, &mut rng, failures)
}

fn polynomial_fit(dev: &Device, rng: &mut Generator, failures: &mut Vec<String>) -> Result<()> {
    println!("== least squares: a cubic through 2000 noisy samples");
    let truth = [1.5f64, -2.0, 0.5, 3.0];
    let n = 2000;
    let sigma = 0.05;
    let x = DeviceArray::<f64>::linspace(dev, -1.0, 1.0, n)?;
    // The design matrix [1, x, x², x³] (n x 4), built on the GPU.
    let ones = DeviceArray::<f64>::ones(dev, &[n])?;
    let (x2, x3) = (x.pow(2.0)?, x.pow(3.0)?);
    let a = stack(&[&ones, &x, &x2, &x3], 1)?;
    let clean = a.matmul(&DeviceArray::from_slice(dev, &truth)?)?;
    let y = (&clean + &(rng.standard_normal::<f64>(&[n])? * sigma)?)?;

    let (coef, residuals, rank, s) = linalg::lstsq(&a, &y)?;
    let c = coef.to_host()?;
    println!("  true coefficients      {truth:?}");
    println!(
        "  recovered coefficients [{:.4}, {:.4}, {:.4}, {:.4}]",
        c[0], c[1], c[2], c[3]
    );
    println!(
        "  rank {rank}, singular values {:?}",
        s.to_host()?
            .iter()
            .map(|v| format!("{v:.3}"))
            .collect::<Vec<_>>()
    );
    let rss = residuals.to_host()?[0];
    println!(
        "  residual sum of squares {rss:.4} (noise alone: about {:.4})",
        n as f64 * sigma * sigma
    );

    check(failures, rank == 4, format!("rank {rank} == 4"));
    let worst = c
        .iter()
        .zip(&truth)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    check(
        failures,
        worst < 0.05,
        format!("coefficients within 0.05 of the truth (worst {worst:.2e})"),
    );
    // The residual of the fit, recomputed, and the normal equations.
    let r = (&a.matmul(&coef)? - &y)?;
    let rss2 = linalg::norm(&r, None)?.to_scalar()?.powi(2);
    check(
        failures,
        (rss - rss2).abs() <= 1e-9 * rss2,
        format!("lstsq's residual {rss:.6} == |A c - y|² {rss2:.6}"),
    );
    let grad = linalg::norm(&a.t().matmul(&r)?, None)?.to_scalar()?;
    let scale = linalg::norm(&a, None)?.to_scalar()? * linalg::norm(&y, None)?.to_scalar()?;
    check(
        failures,
        grad <= 1e-12 * scale,
        format!(
            "normal equations |Aᵀ (A c - y)| = {grad:.2e} (relative {:.2e})",
            grad / scale
        ),
    );
    let expected_rss = n as f64 * sigma * sigma;
    check(
        failures,
        (rss / expected_rss - 1.0).abs() < 0.2,
        format!("residual sum of squares matches the noise level ({rss:.3} vs {expected_rss:.3})"),
    );
    Ok(())
}

fn pca(dev: &Device, rng: &mut Generator, failures: &mut Vec<String>) -> Result<()> {
    println!("== PCA: 20000 points in 5-D near a 2-D plane");
    let (n, d) = (20_000usize, 5usize);
    // Two latent factors of standard deviations 3 and 1, mixed into 5-D by orthonormal
    // rows, plus isotropic noise of 0.1 and an offset.
    let basis = [[0.5f64, 0.5, 0.5, 0.5, 0.0], [0.5, -0.5, 0.5, -0.5, 0.0]];
    let w = DeviceArray::from_host(dev, &basis.concat(), &[2, d])?;
    let scales = DeviceArray::from_slice(dev, &[3.0f64, 1.0])?;
    let z = (&rng.standard_normal::<f64>(&[n, 2])? * &scales)?;
    let noise = (rng.standard_normal::<f64>(&[n, d])? * 0.1)?;
    let offset = DeviceArray::from_slice(dev, &[10.0f64, -5.0, 2.0, 0.0, 1.0])?;
    let data = (&(&z.matmul(&w)? + &noise)? + &offset)?;

    let centred = (&data - &data.mean_keepdim(0)?)?;
    let (u, s, vh) = linalg::svd(&centred, false)?;
    let var = (&(&s * &s)? / (n - 1) as f64)?;
    let total = var.sum()?.to_scalar()?;
    let ratio = (&var / total)?.to_host()?;
    let var = var.to_host()?;
    for (k, (v, r)) in var.iter().zip(&ratio).enumerate() {
        println!(
            "  component {k}: variance {v:8.4}, explained {:6.2}%",
            100.0 * r
        );
    }
    check(
        failures,
        (var[0] - 9.0).abs() < 0.5 && (var[1] - 1.0).abs() < 0.1,
        format!(
            "leading variances {:.3}, {:.3} near 9 and 1",
            var[0], var[1]
        ),
    );
    check(
        failures,
        ratio[0] + ratio[1] > 0.99,
        format!(
            "two components explain {:.3}% (> 99%)",
            100.0 * (ratio[0] + ratio[1])
        ),
    );
    check(
        failures,
        var[2..].iter().all(|&v| (v - 0.01).abs() < 0.003),
        format!("the other variances are the noise's 0.01: {:?}", &var[2..]),
    );
    // The recovered plane: |cos| of each leading direction with the true one.
    let vh_host = vh.to_host()?;
    for (k, b) in basis.iter().enumerate() {
        let cos: f64 = (0..d).map(|j| vh_host[k * d + j] * b[j]).sum::<f64>().abs();
        check(
            failures,
            cos > 0.999,
            format!("direction {k} recovered: |cos| = {cos:.6}"),
        );
    }
    // U S Vh against the centred data.
    let usv = (&u * &s)?.matmul(&vh)?;
    let err = linalg::norm(&(&usv - &centred)?, None)?.to_scalar()?
        / linalg::norm(&centred, None)?.to_scalar()?;
    check(
        failures,
        err < 1e-12,
        format!("|U S Vh - X| / |X| = {err:.2e}"),
    );
    Ok(())
}
