//! Sparse solver cases of the peer comparison (`cuarray::sparse::linalg` against
//! `cupyx.scipy.sparse.linalg`): the 5-point Laplacian of a 256 x 256 grid in f64
//! (65536 unknowns), the same in `bench/peers.py`.
//!
//! - `gmres_poisson_f64_256^2`: gmres with `restart = 20`, tolerance 0 and 5 restart
//!   cycles (100 Arnoldi steps; CuPy's `maxiter=100` counts the steps).
//! - `eigsh_k6_f64_65536`: the 6 eigenvalues of largest magnitude and their vectors at
//!   the default tolerance (machine epsilon); at most 3000 restarts, so that a run that
//!   stalls fails (NoConvergence) instead of running for the default `10 n`.

use super::{device_case_reps, Case};
use cuarray::sparse::{linalg, CsrMatrix};
use cuarray::{Device, DeviceArray};

/// The 5-point Laplacian of a `g x g` grid (4 on the diagonal, -1 to each neighbour).
fn poisson(dev: &Device, g: usize) -> CsrMatrix<f64> {
    let (mut indptr, mut indices, mut data) = (vec![0i32], Vec::new(), Vec::new());
    for i in 0..g {
        for j in 0..g {
            let k = (i * g + j) as i32;
            let mut push = |c: i32, v: f64| {
                indices.push(c);
                data.push(v);
            };
            if i > 0 {
                push(k - g as i32, -1.0);
            }
            if j > 0 {
                push(k - 1, -1.0);
            }
            push(k, 4.0);
            if j + 1 < g {
                push(k + 1, -1.0);
            }
            if i + 1 < g {
                push(k + g as i32, -1.0);
            }
            indptr.push(indices.len() as i32);
        }
    }
    CsrMatrix::from_parts(
        &DeviceArray::from_slice(dev, &indptr).unwrap(),
        &DeviceArray::from_slice(dev, &indices).unwrap(),
        &DeviceArray::from_slice(dev, &data).unwrap(),
        (g * g, g * g),
    )
    .unwrap()
}

pub(super) fn sparse_solver_cases(
    dev: &Device,
    filter: &dyn Fn(&str) -> bool,
    cases: &mut Vec<Case>,
) {
    let g = 256usize;
    if filter("gmres_poisson_f64_256^2") {
        let a = poisson(dev, g);
        let b = DeviceArray::<f64>::ones(dev, &[g * g]).unwrap();
        let tol = linalg::Tol {
            rtol: 0.0,
            atol: 0.0,
        };
        cases.push(device_case_reps(
            dev,
            "gmres_poisson_f64_256^2",
            0.0,
            1,
            5,
            || linalg::gmres(&a, &b, None, tol, Some(5), None, Some(20)).map(drop),
        ));
    }
    if filter("eigsh_k6_f64_65536") {
        let a = poisson(dev, g);
        cases.push(device_case_reps(
            dev,
            "eigsh_k6_f64_65536",
            0.0,
            1,
            3,
            || linalg::eigsh(&a, 6, linalg::Which::LargestMagnitude, 0.0, Some(3000)).map(drop),
        ));
    }
}
