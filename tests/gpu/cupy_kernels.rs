//! User kernels written exactly as CuPy's documentation and examples write them (operations
//! without a final `;`, several statements, a preamble, CuPy's reduction strings): they
//! compile unchanged and compute what the host reference does.

use crate::common::{ensure, gpu_trial, nvrtc_trial, Rng, TResult};
use cuarray::{Device, DeviceArray, ElementwiseKernel, ReductionKernel};
use libtest_mimic::Trial;

/// CuPy's `squared_diff` (its user-kernel documentation): no `;` after the operation.
fn squared_diff() -> cuarray::Result<ElementwiseKernel> {
    ElementwiseKernel::new(
        "float32 x, float32 y",
        "float32 z",
        "z = (x - y) * (x - y)",
        "squared_diff",
    )
}

/// CuPy's generic `squared_diff_generic`, with a type placeholder `T`.
fn squared_diff_generic() -> cuarray::Result<ElementwiseKernel> {
    ElementwiseKernel::new(
        "T x, T y",
        "T z",
        "T diff = x - y; z = diff * diff",
        "squared_diff_generic",
    )
}

/// A preamble's device function and an operation without `;`.
fn saxpy_preamble() -> cuarray::Result<ElementwiseKernel> {
    ElementwiseKernel::with_preamble(
        "float32 x, float32 y, float32 a",
        "float32 z",
        "z = mad(a, x, y)",
        "saxpy_preamble",
        "__device__ float mad(float a, float x, float y) { return a * x + y; }",
    )
}

/// CuPy's `l2norm` reduction (its documentation's ReductionKernel example).
fn l2norm() -> cuarray::Result<ReductionKernel> {
    ReductionKernel::new("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2norm")
}

fn host_inputs(rng: &mut Rng, n: usize) -> (Vec<f32>, Vec<f32>) {
    let x = (0..n).map(|_| rng.range(-3.0, 3.0) as f32).collect();
    let y = (0..n).map(|_| rng.range(-3.0, 3.0) as f32).collect();
    (x, y)
}

fn close(what: &str, got: &[f32], want: &[f64]) -> TResult {
    ensure!(
        got.len() == want.len(),
        "{what}: {} values, want {}",
        got.len(),
        want.len()
    );
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        ensure!(
            (g as f64 - w).abs() <= 1e-5 * (1.0 + w.abs()),
            "{what}[{i}]: {g}, want {w}"
        );
    }
    Ok(())
}

/// Every kernel above compiles through NVRTC for f32 (no GPU needed).
fn nvrtc_cupy_strings() -> TResult {
    use cuarray::testing::kernels::family::elementwise::Variant;
    use cuarray::testing::kernels::{nvrtc, IndexWidth};
    use cuarray::DType;
    use cuarray::KernelSpec;
    let compile = |spec: KernelSpec| -> TResult {
        let (src, sym) = (spec.source(), spec.symbol());
        nvrtc::compile(&src, &sym, &nvrtc::options((9, 0)))
            .map(drop)
            .map_err(|e| format!("{sym}: {e}").into())
    };
    let f = (DType::F32, true);
    for (k, args) in [
        (squared_diff()?, vec![f, f]),
        (squared_diff_generic()?, vec![f, f]),
        (saxpy_preamble()?, vec![f, f, (DType::F32, false)]),
    ] {
        compile(
            k.kernel_spec(&args, &[DType::F32], Variant::Contiguous, IndexWidth::I32)
                .into(),
        )?;
    }
    Ok(())
}

fn run_cupy_strings(dev: &Device) -> TResult {
    let mut rng = Rng::for_name("cupy_kernels");
    let n = 1237;
    let (xs, ys) = host_inputs(&mut rng, n);
    let x = DeviceArray::from_slice(dev, &xs)?;
    let y = DeviceArray::from_slice(dev, &ys)?;
    let sq: Vec<f64> = xs
        .iter()
        .zip(&ys)
        .map(|(&a, &b)| (a as f64 - b as f64).powi(2))
        .collect();
    let z: DeviceArray<f32> = squared_diff()?.call((&x, &y))?;
    close("squared_diff", &z.to_host()?, &sq)?;
    let z: DeviceArray<f32> = squared_diff_generic()?.call((&x, &y))?;
    close("squared_diff_generic", &z.to_host()?, &sq)?;
    let z: DeviceArray<f32> = saxpy_preamble()?.call((&x, &y, 2.5f32))?;
    let want: Vec<f64> = xs
        .iter()
        .zip(&ys)
        .map(|(&a, &b)| 2.5 * a as f64 + b as f64)
        .collect();
    close("saxpy_preamble", &z.to_host()?, &want)?;
    let norm: DeviceArray<f32> = l2norm()?.call((&x,), None, false)?;
    let want = xs.iter().map(|&v| (v as f64).powi(2)).sum::<f64>().sqrt();
    close("l2norm", &[norm.to_scalar()?], &[want])?;
    Ok(())
}

pub fn trials(out: &mut Vec<Trial>) {
    out.push(nvrtc_trial(
        "nvrtc/user/f32/cupy_kernel_strings",
        nvrtc_cupy_strings,
    ));
    out.push(gpu_trial("user/cupy/f32/kernel_strings", run_cupy_strings));
}
