//! Kernels written by the user, each checked against the built-in operations doing the
//! same thing and timed beside them: a saxpy `ElementwiseKernel`, an L2-norm
//! `ReductionKernel` and a tiled transpose `RawKernel` with shared memory.
//!
//! `cargo run --release --example user_kernels`

use cuarray::{Device, DeviceArray, ElementwiseKernel, RawKernel, ReductionKernel, Result};

fn main() {
    let dev = match Device::new(0) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("user_kernels needs an NVIDIA GPU: {e}");
            std::process::exit(1);
        }
    };
    if let Err(e) = run(&dev) {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

/// Median device time of `f` in microseconds (3 warm-ups, 20 runs).
fn time(dev: &Device, mut f: impl FnMut() -> Result<()>) -> Result<f64> {
    Ok(dev.time(3, 20, &mut f)?.median().as_secs_f64() * 1e6)
}

const TRANSPOSE: &str = r#"
#define TILE 32
// out (cols x rows) = in (rows x cols) transposed, through a padded tile in shared memory.
extern "C" __global__ void transpose(float* out, const float* in, int rows, int cols) {
    extern __shared__ float tile[];
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    for (int k = 0; k < TILE; k += blockDim.y)
        if (x < cols && y + k < rows) tile[(threadIdx.y + k) * (TILE + 1) + threadIdx.x] = in[(y + k) * cols + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    for (int k = 0; k < TILE; k += blockDim.y)
        if (x < rows && y + k < cols) out[(y + k) * rows + x] = tile[threadIdx.x * (TILE + 1) + threadIdx.y + k];
}
"#;

fn run(dev: &Device) -> Result<()> {
    let n = 1 << 24;
    let x = DeviceArray::<f32>::arange(dev, 0.0, n as f32, 1.0)?;
    let x = (&x * 1e-6f32)?;
    let y = DeviceArray::<f32>::full(dev, &[n], 0.5)?;
    let gb = |bytes: f64, us: f64| bytes / us / 1e3;

    // 1. saxpy: z = a x + y, one line of CUDA C; T binds to the arrays' element type.
    let saxpy = ElementwiseKernel::new("T x, T y, float32 a", "T z", "z = a * x + y;", "saxpy")?;
    let z: DeviceArray<f32> = saxpy.call((&x, &y, 2.0f32))?;
    let builtin = (&(&x * 2.0f32)? + &y)?;
    let diff = (&z - &builtin)?.abs()?.max()?.to_scalar()?;
    let t_user = time(dev, || {
        saxpy.call::<DeviceArray<f32>>((&x, &y, 2.0f32)).map(drop)
    })?;
    let t_add = time(dev, || (&x + &y).map(drop))?;
    let t_two = time(dev, || (&(&x * 2.0f32)? + &y).map(drop))?;
    let bytes = 3.0 * n as f64 * 4.0;
    println!(
        "saxpy     {n} f32: ElementwiseKernel {t_user:.1} us ({:.0} GB/s); built-in x + y {t_add:.1} us ({:.0} GB/s); \
         2x + y as two ops {t_two:.1} us; max |difference| {diff}",
        gb(bytes, t_user),
        gb(bytes, t_add)
    );

    // 2. L2 norm: map x*x, reduce a+b, post-map sqrt, accumulating in f32.
    let l2 = ReductionKernel::new("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2norm")?
        .reduce_type("float32")?;
    let norm: DeviceArray<f32> = l2.call((&x,), None, false)?;
    let reference = (&x * &x)?.sum()?.sqrt()?.to_scalar()?;
    let t_user = time(dev, || l2.call::<f32>((&x,), None, false).map(drop))?;
    let t_builtin = time(dev, || (&x * &x)?.sum()?.sqrt().map(drop))?;
    let t_sum = time(dev, || x.sum().map(drop))?;
    println!(
        "l2 norm   {n} f32: ReductionKernel {t_user:.1} us ({:.0} GB/s); built-in sqrt(sum(x*x)) {t_builtin:.1} us; \
         built-in sum {t_sum:.1} us; {:.4} vs {reference:.4}",
        gb(n as f64 * 4.0, t_user),
        norm.to_scalar()?
    );

    // 3. Tiled transpose through shared memory, against the built-in copy of a transposed
    //    view.
    let (rows, cols) = (4096usize, 4096usize);
    let m = DeviceArray::<f32>::arange(dev, 0.0, (rows * cols) as f32, 1.0)?
        .reshape(&[rows as isize, cols as isize])?;
    let out = DeviceArray::<f32>::zeros(dev, &[cols, rows])?;
    let k = RawKernel::new(dev, TRANSPOSE, "transpose")?;
    let grid = (cols.div_ceil(32) as u32, rows.div_ceil(32) as u32, 1);
    let shared = 32 * 33 * 4;
    let args = (&out, &m, rows as i32, cols as i32);
    // A raw kernel is the user's code: cuarray checks the arguments against its parameter
    // list but cannot see what it does with them, so launching it is `unsafe`, and the
    // caller vouches that every access stays in bounds.
    // SAFETY: `transpose` takes (float* out, const float* in, int rows, int cols) and
    // touches in[y * cols + x] and out[x * rows + y] only for x < cols, y < rows: `m` holds
    // rows x cols f32 and `out` cols x rows; its tile is 32 x 33 floats, the `shared`
    // bytes given; `out` and `m` are distinct arrays, used on this stream only.
    unsafe { k.launch(grid, (32, 8, 1), shared, args)? };
    let same = out.eq(&m.t().contiguous()?)?.all()?.to_scalar()?;
    // SAFETY: the same launch with the same arrays, as above.
    let t_user = time(dev, || unsafe { k.launch(grid, (32, 8, 1), shared, args) })?;
    let t_builtin = time(dev, || m.t().contiguous().map(drop))?;
    let bytes = 2.0 * (rows * cols) as f64 * 4.0;
    println!(
        "transpose {rows}x{cols} f32: RawKernel {t_user:.1} us ({:.0} GB/s); built-in contiguous() {t_builtin:.1} us ({:.0} GB/s); equal: {same}",
        gb(bytes, t_user),
        gb(bytes, t_builtin)
    );

    let s = dev.kernel_cache_stats();
    println!(
        "kernels   {} compiled, {} from the disk cache, {} memory hits",
        s.compiles, s.disk_hits, s.memory_hits
    );
    Ok(())
}
