//! Matrix products against a host reference with f64 accumulation: every shape case of
//! NumPy's matmul x f32/f64/f16/bf16 x C, F, transposed and sliced operands, batched with
//! broadcasting, degenerate sizes.

use crate::common::{add_gpu, ensure};
use cuarray::{s, DeviceArray, GemmElement};
use libtest_mimic::Trial;

/// `a @ b` on the host for row-major stacks (batch broadcast over the leading dims).
fn host_matmul(a: &[f64], ash: &[usize], b: &[f64], bsh: &[usize]) -> (Vec<f64>, Vec<usize>) {
    let a2: Vec<usize> = if ash.len() == 1 {
        vec![1, ash[0]]
    } else {
        ash.to_vec()
    };
    let b2: Vec<usize> = if bsh.len() == 1 {
        vec![bsh[0], 1]
    } else {
        bsh.to_vec()
    };
    let (m, k) = (a2[a2.len() - 2], a2[a2.len() - 1]);
    let n = b2[b2.len() - 1];
    let ab = &a2[..a2.len() - 2];
    let bb = &b2[..b2.len() - 2];
    let nb = ab.len().max(bb.len());
    let get = |s: &[usize], i: usize| {
        if i + s.len() >= nb {
            s[i + s.len() - nb]
        } else {
            1
        }
    };
    let batch: Vec<usize> = (0..nb).map(|i| get(ab, i).max(get(bb, i))).collect();
    let count: usize = batch.iter().product();
    let mut out = Vec::with_capacity(count * m * n);
    for bi in 0..count {
        // Batch index -> offsets into a and b (broadcast dims of extent 1 repeat).
        let (mut ao, mut bo) = (0usize, 0usize);
        let (mut astride, mut bstride) = (m * k, k * n);
        let mut r = bi;
        for i in (0..nb).rev() {
            let idx = r % batch[i];
            r /= batch[i];
            let (ad, bd) = (get(ab, i), get(bb, i));
            if ad > 1 {
                ao += idx * astride;
            }
            if bd > 1 {
                bo += idx * bstride;
            }
            astride *= ad;
            bstride *= bd;
        }
        for i in 0..m {
            for j in 0..n {
                let mut acc = 0.0;
                for p in 0..k {
                    acc += a[ao + i * k + p] * b[bo + p * n + j];
                }
                out.push(acc);
            }
        }
    }
    let mut shape = batch;
    if ash.len() > 1 {
        shape.push(m);
    }
    if bsh.len() > 1 {
        shape.push(n);
    }
    (out, shape)
}

fn tol<T: GemmElement>() -> f64 {
    match T::DTYPE {
        cuarray::DType::F64 => 1e-12,
        cuarray::DType::F32 => 1e-5,
        cuarray::DType::F16 => 2e-3,
        _ => 1.6e-2,
    }
}

fn cases<T: GemmElement>(out: &mut Vec<Trial>) {
    let name = T::DTYPE.name();
    add_gpu(
        out,
        format!("matmul/shapes_layouts/{name}/mixed"),
        |dev, rng| {
            // Every case through both paths: cuBLAS (limit 0), then cuarray's kernel for
            // small products.
            cuarray::testing::set_small_gemm_limit(0);
            let cublas = shapes_layouts::<T>(dev, rng);
            cuarray::testing::set_small_gemm_limit(cuarray::tuning::SMALL_GEMM_FLOPS);
            cublas.map_err(|e| format!("cuBLAS path: {}", e.message().unwrap_or_default()))?;
            shapes_layouts::<T>(dev, rng).map_err(|e| {
                format!("small-product kernel: {}", e.message().unwrap_or_default()).into()
            })
        },
    );
}

fn shapes_layouts<T: GemmElement>(
    dev: &cuarray::Device,
    rng: &mut crate::common::Rng,
) -> crate::common::TResult {
    let shapes: Vec<(Vec<usize>, Vec<usize>)> = vec![
        (vec![7], vec![7]),
        (vec![5], vec![5, 3]),
        (vec![4, 6], vec![6]),
        (vec![1, 1], vec![1, 1]),
        (vec![33, 17], vec![17, 65]),
        (vec![3, 0], vec![0, 4]),
        (vec![0, 5], vec![5, 2]),
        (vec![2, 1, 3, 4], vec![5, 4, 6]),
        (vec![6, 7, 9], vec![6, 9, 2]),
        (vec![3, 10, 8], vec![8, 11]),
    ];
    for (ash, bsh) in shapes {
        let na: usize = ash.iter().product();
        let nb: usize = bsh.iter().product();
        // Values exactly representable in every dtype (small integers / 4).
        let av: Vec<f64> = (0..na).map(|_| rng.int(-8, 8) as f64 / 4.0).collect();
        let bv: Vec<f64> = (0..nb).map(|_| rng.int(-8, 8) as f64 / 4.0).collect();
        let at: Vec<T> = av.iter().map(|&x| T::from_f64(x)).collect();
        let bt: Vec<T> = bv.iter().map(|&x| T::from_f64(x)).collect();
        let a = DeviceArray::from_host(dev, &at, &ash).map_err(|e| e.to_string())?;
        let b = DeviceArray::from_host(dev, &bt, &bsh).map_err(|e| e.to_string())?;
        let (want, wshape) = host_matmul(&av, &ash, &bv, &bsh);
        let c = a.matmul(&b).map_err(|e| e.to_string())?;
        ensure!(
            c.shape() == wshape.as_slice(),
            "{ash:?} @ {bsh:?}: shape {:?}, want {wshape:?}",
            c.shape()
        );
        let got: Vec<f64> = c
            .to_host()
            .map_err(|e| e.to_string())?
            .iter()
            .map(|x| x.to_f64())
            .collect();
        let k = if ash.len() == 1 {
            ash[0]
        } else {
            ash[ash.len() - 1]
        } as f64;
        for (i, (&g, &w)) in got.iter().zip(&want).enumerate() {
            ensure!(
                (g - w).abs() <= tol::<T>() * (k * 4.0).max(1.0),
                "{ash:?} @ {bsh:?} [{i}]: {g} vs {w}"
            );
        }
    }
    // Layouts: F-order (transposes), sliced rows (a copy), sliced columns (in place).
    let (m, k, n) = (37usize, 29usize, 41usize);
    let av: Vec<f64> = (0..m * k * 4)
        .map(|_| rng.int(-8, 8) as f64 / 4.0)
        .collect();
    let bv: Vec<f64> = (0..k * n).map(|_| rng.int(-8, 8) as f64 / 4.0).collect();
    let big = DeviceArray::from_host(
        dev,
        &av.iter().map(|&x| T::from_f64(x)).collect::<Vec<_>>(),
        &[2 * m, 2 * k],
    )
    .map_err(|e| e.to_string())?;
    let b = DeviceArray::from_host(
        dev,
        &bv.iter().map(|&x| T::from_f64(x)).collect::<Vec<_>>(),
        &[k, n],
    )
    .map_err(|e| e.to_string())?;
    let host = |arr: &DeviceArray<T>| -> Result<Vec<f64>, String> {
        Ok(arr
            .to_host()
            .map_err(|e| e.to_string())?
            .iter()
            .map(|x| x.to_f64())
            .collect())
    };
    let variants: Vec<(&str, DeviceArray<T>, DeviceArray<T>)> = vec![
        (
            "c_c",
            big.slice(s![..m, ..k]).map_err(|e| e.to_string())?,
            b.clone(),
        ),
        (
            "stepped_rows",
            big.slice(s![..;2, ..k]).map_err(|e| e.to_string())?,
            b.clone(),
        ),
        (
            "stepped_both",
            big.slice(s![..;2, ..;2]).map_err(|e| e.to_string())?,
            b.clone(),
        ),
        (
            "negative",
            big.slice(s![..m;-1, ..k]).map_err(|e| e.to_string())?,
            b.clone(),
        ),
        (
            "t_t",
            big.slice(s![..k, ..m]).map_err(|e| e.to_string())?.t(),
            b.t().contiguous().map_err(|e| e.to_string())?.t(),
        ),
    ];
    for (label, x, y) in variants {
        if x.shape()[1] != y.shape()[0] {
            continue;
        }
        let (xv, yv) = (host(&x)?, host(&y)?);
        let (want, _) = host_matmul(&xv, x.shape(), &yv, y.shape());
        let got = host(&x.matmul(&y).map_err(|e| e.to_string())?)?;
        for (i, (&g, &w)) in got.iter().zip(&want).enumerate() {
            ensure!(
                (g - w).abs() <= tol::<T>() * 4.0 * k as f64,
                "{label} [{i}]: {g} vs {w}"
            );
        }
    }
    // Errors name both shapes.
    let e = DeviceArray::<T>::zeros(dev, &[3, 4]).map_err(|e| e.to_string())?;
    let f = DeviceArray::<T>::zeros(dev, &[5, 6]).map_err(|e| e.to_string())?;
    let msg = e
        .matmul(&f)
        .err()
        .map(|x| x.to_string())
        .unwrap_or_default();
    ensure!(
        msg.contains("[3, 4]") && msg.contains("[5, 6]"),
        "error {msg}"
    );
    // dot of vectors is 0-d.
    let v = DeviceArray::from_slice(dev, &[T::from_f64(1.0), T::from_f64(2.0)])
        .map_err(|e| e.to_string())?;
    let d = v.dot(&v).map_err(|e| e.to_string())?;
    ensure!(
        d.ndim() == 0 && d.to_scalar().map_err(|e| e.to_string())?.to_f64() == 5.0,
        "dot"
    );
    Ok(())
}

/// Half-precision products accumulate in f32 (through cuBLAS): each row of A is
/// [2048, 2^-6 x (k - 2), -2048] against a B of ones, so every output is (k - 2) 2^-6
/// exactly in f32, while a 16-bit accumulator (ulp 2 at 2048 for f16, 16 for bf16) drops
/// each 2^-6, and each sum of up to 128 of them, and ends near 0.
fn accumulates_in_f32<T: GemmElement>(out: &mut Vec<Trial>) {
    let name = T::DTYPE.name();
    add_gpu(
        out,
        format!("matmul/accumulates_in_f32/{name}"),
        |dev, _rng| {
            let (m, k, n) = (64usize, 4096usize, 48usize);
            let mut av = vec![T::from_f64(2f64.powi(-6)); m * k];
            for row in av.chunks_mut(k) {
                row[0] = T::from_f64(2048.0);
                row[k - 1] = T::from_f64(-2048.0);
            }
            let a = DeviceArray::from_host(dev, &av, &[m, k]).map_err(|e| e.to_string())?;
            let b = DeviceArray::<T>::ones(dev, &[k, n]).map_err(|e| e.to_string())?;
            let want = T::from_f64((k - 2) as f64 * 2f64.powi(-6)).to_f64();
            let got = a.matmul(&b).map_err(|e| e.to_string())?;
            for (i, g) in got.to_host().map_err(|e| e.to_string())?.iter().enumerate() {
                ensure!(g.to_f64() == want, "[{i}]: {} vs {want}", g.to_f64());
            }
            Ok(())
        },
    );
}

/// Matrix-vector products past the small-product limit, both directions, against an f64
/// host reference: rows and columns of awkward lengths, a transposed matrix, reversed
/// rows, a 2-D vector, and a stepped vector (which takes cuBLAS).
fn matvec<T: GemmElement>(out: &mut Vec<Trial>) {
    let name = T::DTYPE.name();
    add_gpu(out, format!("matmul/matvec/{name}/mixed"), |dev, rng| {
        // (accumulation, output rounding, the output type's subnormal spacing: a product
        // of two numbers in [-1, 1) can be subnormal in f16)
        let (acc_eps, out_eps, tiny) = match T::DTYPE {
            cuarray::DType::F64 => (1e-13, 1e-15, 1e-300),
            cuarray::DType::F32 => (2e-6, 2e-7, 1e-40),
            cuarray::DType::F16 => (2e-6, 1e-3, 6e-8),
            _ => (2e-6, 8e-3, 1e-38),
        };
        let err = |e: cuarray::Error| e.to_string();
        // (rows, cols) of the matrix.
        for (r, c) in [
            (3001usize, 1237usize),
            (70001, 5),
            (3, 200_001),
            (1, 99_999),
            (4099, 1),
        ] {
            let av: Vec<T> = (0..r * c)
                .map(|_| T::from_f64(rng.range(-1.0, 1.0)))
                .collect();
            let vr: Vec<T> = (0..r).map(|_| T::from_f64(rng.range(-1.0, 1.0))).collect();
            let vc: Vec<T> = (0..c).map(|_| T::from_f64(rng.range(-1.0, 1.0))).collect();
            let a = DeviceArray::from_host(dev, &av, &[r, c]).map_err(err)?;
            let x = DeviceArray::from_host(dev, &vc, &[c]).map_err(err)?;
            let y = DeviceArray::from_host(dev, &vr, &[r]).map_err(err)?;
            let f = |v: &[T]| v.iter().map(|x| x.to_f64()).collect::<Vec<f64>>();
            let (af, xf, yf) = (f(&av), f(&vc), f(&vr));
            // A @ x and its reference, per row: (value, sum of |terms|).
            let ax: Vec<(f64, f64)> = (0..r)
                .map(|i| {
                    (0..c).fold((0.0, 0.0), |(s, t), j| {
                        let p = af[i * c + j] * xf[j];
                        (s + p, t + p.abs())
                    })
                })
                .collect();
            let ya: Vec<(f64, f64)> = (0..c)
                .map(|j| {
                    (0..r).fold((0.0, 0.0), |(s, t), i| {
                        let p = yf[i] * af[i * c + j];
                        (s + p, t + p.abs())
                    })
                })
                .collect();
            let check = |label: &str,
                         got: DeviceArray<T>,
                         want: &[(f64, f64)]|
             -> crate::common::TResult {
                ensure!(
                    got.size() == want.len(),
                    "{label} {r}x{c}: size {}",
                    got.size()
                );
                for (i, (g, &(w, t))) in got.to_host().map_err(err)?.iter().zip(want).enumerate() {
                    let g = g.to_f64();
                    ensure!(
                        (g - w).abs() <= acc_eps * t * 4.0 + out_eps * w.abs() + tiny,
                        "{label} {r}x{c} [{i}]: {g} vs {w}"
                    );
                }
                Ok(())
            };
            check("A @ x", a.matmul(&x).map_err(err)?, &ax)?;
            check("y @ A", y.matmul(&a).map_err(err)?, &ya)?;
            // x as a column, y as a row: 2-D results of the same values.
            let xc = x.reshape(&[c, 1]).map_err(err)?;
            check("A @ x[:, None]", a.matmul(&xc).map_err(err)?, &ax)?;
            let yr = y.reshape(&[1, r]).map_err(err)?;
            check("y[None] @ A", yr.matmul(&a).map_err(err)?, &ya)?;
            // The transposed matrix (F order): Aᵀ @ y is y @ A, x @ Aᵀ is A @ x.
            let at = a.t();
            check("A.T @ y", at.matmul(&y).map_err(err)?, &ya)?;
            check("x @ A.T", x.matmul(&at).map_err(err)?, &ax)?;
            // Reversed rows: (A[::-1] @ x)[i] = (A @ x)[r - 1 - i].
            let rev = a.slice(s![..;-1, ..]).map_err(err)?;
            let want: Vec<(f64, f64)> = ax.iter().rev().copied().collect();
            check("A[::-1] @ x", rev.matmul(&x).map_err(err)?, &want)?;
            // A stepped vector: every other element of a vector twice as long.
            let long: Vec<T> = vc.iter().flat_map(|&v| [v, T::from_f64(7.0)]).collect();
            let xs = DeviceArray::from_host(dev, &long, &[2 * c])
                .map_err(err)?
                .slice(s![..;2])
                .map_err(err)?;
            check("A @ x[::2]", a.matmul(&xs).map_err(err)?, &ax)?;
        }
        Ok(())
    });
}

pub fn trials(out: &mut Vec<Trial>) {
    matvec::<f32>(out);
    matvec::<f64>(out);
    matvec::<half::f16>(out);
    matvec::<half::bf16>(out);
    cases::<f32>(out);
    cases::<f64>(out);
    cases::<half::f16>(out);
    cases::<half::bf16>(out);
    accumulates_in_f32::<half::f16>(out);
    accumulates_in_f32::<half::bf16>(out);
    // TF32 is a device-wide setting: the trial runs alone, or the other trials' f32 and
    // complex products would take it up while it is on.
    out.push(crate::common::gpu_trial_exclusive(
        "matmul/tf32/f32/512",
        |dev| {
            let rng = &mut crate::common::Rng::for_name("matmul/tf32/f32/512");
            let n = 512usize;
            let av: Vec<f32> = (0..n * n).map(|_| rng.range(-1.0, 1.0) as f32).collect();
            let a = DeviceArray::from_host(dev, &av, &[n, n]).map_err(|e| e.to_string())?;
            let exact = a
                .matmul(&a)
                .map_err(|e| e.to_string())?
                .to_host()
                .map_err(|e| e.to_string())?;
            dev.set_tf32(true);
            let fast = a.matmul(&a).map(|c| c.to_host());
            dev.set_tf32(false);
            let fast = fast
                .map_err(|e| e.to_string())?
                .map_err(|e| e.to_string())?;
            let num: f64 = exact
                .iter()
                .zip(&fast)
                .map(|(x, y)| ((x - y) as f64).powi(2))
                .sum();
            let den: f64 = exact.iter().map(|x| (*x as f64).powi(2)).sum();
            let rel = (num / den).sqrt();
            ensure!(rel < 5e-3 && rel > 0.0, "tf32 relative error {rel}");
            Ok(())
        },
    ));
}
