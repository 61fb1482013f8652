//! The linear-algebra rows of the peer comparison (cuSOLVER against CuPy and PyTorch).

use super::*;

/// A random-ish matrix (not zeros: zeros run faster than real data on tensor cores).
/// The linear algebra cases: well-conditioned inputs (a diagonal shift of `n`; symmetric
/// where the routine needs it), the same in `bench/peers.py`.
pub fn linalg_cases(dev: &Device, filter: &dyn Fn(&str) -> bool, cases: &mut Vec<Case>) {
    use cuarray::linalg;
    use cuarray::tuning::{set_getrf_algorithm, set_solve_block, set_svd_algorithm, SvdAlgorithm};
    let shifted = |n: usize, batch: usize, symmetric: bool| -> DeviceArray<f64> {
        let shape = if batch > 1 {
            vec![batch, n, n]
        } else {
            vec![n, n]
        };
        let r = rand_matrix::<f64>(dev, &shape);
        let r = if symmetric {
            let rt = if batch > 1 {
                r.permute(&[0, 2, 1][..]).unwrap()
            } else {
                r.t()
            };
            ((&r + &rt).unwrap() * 0.5).unwrap()
        } else {
            r
        };
        let eye = DeviceArray::<f64>::eye(dev, n).unwrap();
        (&r + &(&eye * n as f64).unwrap()).unwrap()
    };
    let slow = |name: &str, f: &mut dyn FnMut() -> cuarray::Result<()>| {
        device_case_reps(dev, name, 0.0, 2, 10, f)
    };
    if filter("solve_f64_4096x64") {
        let a = shifted(4096, 1, false);
        let b = rand_matrix::<f64>(dev, &[4096, 64]);
        cases.push(slow("solve_f64_4096x64", &mut || {
            linalg::solve(&a, &b).map(drop)
        }));
        cases.push(slow("solve_f64_4096x64_ex", &mut || {
            linalg::solve_ex(&a, &b).map(drop)
        }));
        set_getrf_algorithm(1);
        cases.push(slow("solve_f64_4096x64_alg1", &mut || {
            linalg::solve(&a, &b).map(drop)
        }));
        set_getrf_algorithm(0);
        for (nb, name) in [
            (0, "solve_f64_4096x64_getrs"),
            (128, "solve_f64_4096x64_nb128"),
            (512, "solve_f64_4096x64_nb512"),
        ] {
            set_solve_block(nb);
            cases.push(slow(name, &mut || linalg::solve(&a, &b).map(drop)));
        }
        set_solve_block(256);
    }
    if filter("cholesky_f64_4096") {
        let a = shifted(4096, 1, true);
        cases.push(slow("cholesky_f64_4096", &mut || {
            linalg::cholesky(&a).map(drop)
        }));
        cases.push(slow("cholesky_f64_4096_ex", &mut || {
            linalg::cholesky_ex(&a).map(drop)
        }));
    }
    // Gaussian matrices for the SVD and the eigensolver (each library's generator: the
    // same distribution, so the same spectra statistically); the golden-ratio matrices
    // of `rand_matrix` are rank deficient in f32, which no routine is timed for.
    let mut rng = cuarray::random::Generator::new(dev, 5);
    if filter("svd_f32_2048") {
        let a = rng.standard_normal::<f32>(&[2048, 2048]).unwrap();
        cases.push(slow("svd_f32_2048", &mut || {
            linalg::svd(&a, false).map(drop)
        }));
        set_svd_algorithm(SvdAlgorithm::Polar);
        cases.push(slow("svd_f32_2048_polar", &mut || {
            linalg::svd(&a, false).map(drop)
        }));
        set_svd_algorithm(SvdAlgorithm::Qr);
        cases.push(slow("svd_f32_2048_qr", &mut || {
            linalg::svd(&a, false).map(drop)
        }));
        set_svd_algorithm(SvdAlgorithm::Jacobi);
        cases.push(slow("svd_f32_2048_jacobi", &mut || {
            linalg::svd(&a, false).map(drop)
        }));
        // The same matrix in f64: the default (the polar decomposition, checked) and the
        // Jacobi method.
        let a64 = a.astype::<f64>().unwrap();
        set_svd_algorithm(SvdAlgorithm::Auto);
        cases.push(slow("svd_f64_2048", &mut || {
            linalg::svd(&a64, false).map(drop)
        }));
        set_svd_algorithm(SvdAlgorithm::Jacobi);
        cases.push(slow("svd_f64_2048_jacobi", &mut || {
            linalg::svd(&a64, false).map(drop)
        }));
        set_svd_algorithm(SvdAlgorithm::Auto);
    }
    if filter("eigh_f32_2048") {
        let g = rng.standard_normal::<f32>(&[2048, 2048]).unwrap();
        let a = ((&g + &g.t()).unwrap() * 0.5f32).unwrap();
        cases.push(slow("eigh_f32_2048", &mut || linalg::eigh(&a).map(drop)));
    }
    if filter("solve_batched_f32_10000x8x8") {
        let a = shifted(8, 10000, false).astype::<f32>().unwrap();
        let b = rand_matrix::<f32>(dev, &[10000, 8, 1]);
        cases.push(device_case(dev, "solve_batched_f32_10000x8x8", 0.0, || {
            linalg::solve(&a, &b).map(drop)
        }));
        cases.push(device_case(
            dev,
            "solve_batched_f32_10000x8x8_ex",
            0.0,
            || linalg::solve_ex(&a, &b).map(drop),
        ));
    }
}
