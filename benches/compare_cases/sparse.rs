//! The sparse-matrix rows of the peer comparison (cupyx.scipy.sparse, torch.sparse).

use super::*;

/// The sparse cases (the same matrices in `bench/peers.py`).
pub fn sparse_cases(dev: &Device, filter: &dyn Fn(&str) -> bool, cases: &mut Vec<Case>) {
    use cuarray::sparse::{linalg, CsrMatrix};
    let upload = |indptr: &[i32], indices: &[i32], data: &[f64]| {
        let n = indptr.len() - 1;
        CsrMatrix::from_parts(
            &DeviceArray::from_slice(dev, indptr).unwrap(),
            &DeviceArray::from_slice(dev, indices).unwrap(),
            &DeviceArray::from_slice(dev, data).unwrap(),
            (n, n),
        )
        .unwrap()
    };
    if filter("spmv_csr_f32_2^22x16") {
        let (n, k) = (1usize << 22, 16usize);
        let indptr: Vec<i32> = (0..=n).map(|i| (i * k) as i32).collect();
        let indices: Vec<i32> = (0..n * k)
            .map(|e| ((e / k + (e % k) * (n / k)) % n) as i32)
            .collect();
        let data: Vec<f64> = (0..n * k).map(|e| 1.0 + (e % 7) as f64 * 0.125).collect();
        let a = upload(&indptr, &indices, &data);
        let a = CsrMatrix::<f32>::from_parts(
            a.indptr(),
            a.indices(),
            &a.data().astype::<f32>().unwrap(),
            (n, n),
        )
        .unwrap();
        let x = rand_matrix::<f32>(dev, &[n]);
        // Bytes: the values and column indices, the offsets, x (gathered) and y.
        let bytes = (n * k * 8 + n * 4 + n * 4 * 2) as f64;
        cases.push(device_case(dev, "spmv_csr_f32_2^22x16", bytes, || {
            a.matvec(&x).map(drop)
        }));
    }
    // The matrix of n rows with k entries per row in columns (i + j n / k) mod n, f32.
    let ring = |n: usize, k: usize| {
        let indptr: Vec<i32> = (0..=n).map(|i| (i * k) as i32).collect();
        let indices: Vec<i32> = (0..n * k)
            .map(|e| ((e / k + (e % k) * (n / k)) % n) as i32)
            .collect();
        let data: Vec<f64> = (0..n * k).map(|e| 1.0 + (e % 7) as f64 * 0.125).collect();
        let a = upload(&indptr, &indices, &data);
        let data = a.data().astype::<f32>().unwrap();
        CsrMatrix::<f32>::from_parts(a.indptr(), a.indices(), &data, (n, n)).unwrap()
    };
    if filter("spmm_csr_f32_2^22x16_k16") {
        let (n, k, cols) = (1usize << 22, 16usize, 16usize);
        let a = ring(n, k);
        let b = rand_matrix::<f32>(dev, &[n, cols]);
        // Bytes: the values and column indices, the offsets, B (gathered) and C.
        let bytes = (n * k * 8 + n * 4 + n * cols * 4 * 2) as f64;
        cases.push(device_case(dev, "spmm_csr_f32_2^22x16_k16", bytes, || {
            a.matmul(&b).map(drop)
        }));
        // The same B in Fortran order (column-major, read in place; C column-major too).
        let bf = b.t().contiguous().unwrap().t();
        cases.push(device_case(
            dev,
            "spmm_csr_f32_2^22x16_k16_fortran",
            bytes,
            || a.matmul(&bf).map(drop),
        ));
    }
    if filter("cg_poisson_f64_1024^2_500it") {
        let g = 1024usize;
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
        let a = upload(&indptr, &indices, &data);
        let b = DeviceArray::<f64>::ones(dev, &[g * g]).unwrap();
        let tol = linalg::Tol {
            rtol: 0.0,
            atol: 0.0,
        };
        cases.push(device_case_reps(
            dev,
            "cg_poisson_f64_1024^2_500it",
            0.0,
            1,
            5,
            || linalg::cg(&a, &b, None, tol, Some(500), None).map(drop),
        ));
    }
}
