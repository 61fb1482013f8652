//! The rows of the peer comparison for contractions and the linear algebra of the third
//! round (bench/peers.py `more_linalgs`): einsum, tensordot and kron (flop or byte
//! counts), and the general eigensolver, the LU factors, the triangular solve, the matrix
//! exponential and the complex SVD and Hermitian eigensolver (times only).

use super::{device_case, device_case_reps, rand_matrix, Case};
use cuarray::linalg::{self, Trans};
use cuarray::{einsum, kron, tensordot, Axes, Device, DeviceArray};

/// `einsum_ij_jk_f32_512x1024x768`, `einsum_bhqd_bhkd_f32_32x16x512x64`,
/// `tensordot_f32_64x128x256_256x128x96`, `kron_f32_64^2`, `eig_f64_2048`,
/// `lu_factor_f64_4096`, `solve_triangular_f64_4096x64`, `svd_c64_2048`, `eigh_c64_2048`,
/// `expm_f64_1024`. Inputs as in bench/peers.py: the golden-ratio matrices of
/// `rand_matrix`, a diagonal shift of `n` for the factorisations, standard normal
/// matrices (each library's generator) for the eigensolvers and the SVD.
pub fn linalg_more_cases(dev: &Device, filter: &dyn Fn(&str) -> bool, cases: &mut Vec<Case>) {
    let slow = |name: &str, f: &mut dyn FnMut() -> cuarray::Result<()>| {
        device_case_reps(dev, name, 0.0, 2, 10, f)
    };
    // A diagonal shift of n: well conditioned.
    let shifted = |n: usize| -> DeviceArray<f64> {
        let r = rand_matrix::<f64>(dev, &[n, n]);
        let eye = DeviceArray::<f64>::eye(dev, n).unwrap();
        (&r + &(&eye * n as f64).unwrap()).unwrap()
    };
    if filter("einsum_ij_jk_f32_512x1024x768") {
        let (a, b) = (
            rand_matrix::<f32>(dev, &[512, 1024]),
            rand_matrix::<f32>(dev, &[1024, 768]),
        );
        let flops = 2.0 * 512.0 * 1024.0 * 768.0;
        cases.push(device_case(
            dev,
            "einsum_ij_jk_f32_512x1024x768",
            -flops,
            || einsum("ij,jk->ik", &[&a, &b]).map(drop),
        ));
    }
    if filter("einsum_bhqd_bhkd_f32_32x16x512x64") {
        let q = rand_matrix::<f32>(dev, &[32, 16, 512, 64]);
        let k = rand_matrix::<f32>(dev, &[32, 16, 512, 64]);
        let flops = 2.0 * 32.0 * 16.0 * 512.0 * 512.0 * 64.0;
        cases.push(device_case(
            dev,
            "einsum_bhqd_bhkd_f32_32x16x512x64",
            -flops,
            || einsum("bhqd,bhkd->bhqk", &[&q, &k]).map(drop),
        ));
    }
    if filter("tensordot_f32_64x128x256_256x128x96") {
        let a = rand_matrix::<f32>(dev, &[64, 128, 256]);
        let b = rand_matrix::<f32>(dev, &[256, 128, 96]);
        let flops = 2.0 * 64.0 * 96.0 * 128.0 * 256.0;
        cases.push(device_case(
            dev,
            "tensordot_f32_64x128x256_256x128x96",
            -flops,
            || tensordot(&a, &b, Axes::Pairs(&[1, 2], &[1, 0])).map(drop),
        ));
    }
    if filter("kron_f32_64^2") {
        let (a, b) = (
            rand_matrix::<f32>(dev, &[64, 64]),
            rand_matrix::<f32>(dev, &[64, 64]),
        );
        let bytes = (4096.0 * 4096.0 + 2.0 * 64.0 * 64.0) * 4.0;
        cases.push(device_case(dev, "kron_f32_64^2", bytes, || {
            kron(&a, &b).map(drop)
        }));
    }
    let mut rng = cuarray::random::Generator::new(dev, 7);
    if filter("eig_f64_2048") {
        let a = rng
            .standard_normal::<f32>(&[2048, 2048])
            .unwrap()
            .astype::<f64>()
            .unwrap();
        cases.push(slow("eig_f64_2048", &mut || linalg::eig(&a).map(drop)));
    }
    if filter("lu_factor_f64_4096") {
        let a = shifted(4096);
        cases.push(slow("lu_factor_f64_4096", &mut || {
            linalg::lu_factor(&a).map(drop)
        }));
    }
    if filter("solve_triangular_f64_4096x64") {
        let (a, b) = (shifted(4096), rand_matrix::<f64>(dev, &[4096, 64]));
        cases.push(slow("solve_triangular_f64_4096x64", &mut || {
            linalg::solve_triangular(&a, &b, true, Trans::N, false).map(drop)
        }));
    }
    // Complex standard normal: both parts from the generator.
    let mut gaussian_c64 = |n: usize| {
        let re = rng.standard_normal::<f32>(&[n, n]).unwrap();
        let im = rng.standard_normal::<f32>(&[n, n]).unwrap();
        cuarray::complex(&re, &im).unwrap()
    };
    if filter("svd_c64_2048") {
        let a = gaussian_c64(2048);
        cases.push(slow("svd_c64_2048", &mut || {
            linalg::svd(&a, false).map(drop)
        }));
    }
    if filter("eigh_c64_2048") {
        let g = gaussian_c64(2048);
        let a =
            ((&g + &g.conj().unwrap().t()).unwrap() * cuarray::Complex32::new(0.5, 0.0)).unwrap();
        cases.push(slow("eigh_c64_2048", &mut || linalg::eigh(&a).map(drop)));
    }
    if filter("expm_f64_1024") {
        let a = rand_matrix::<f64>(dev, &[1024, 1024]);
        cases.push(slow("expm_f64_1024", &mut || linalg::expm(&a).map(drop)));
    }
}
