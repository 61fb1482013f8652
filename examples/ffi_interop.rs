//! cuarray next to other CUDA code, without copies:
//!
//! 1. an array handed to a kernel launched through cudarc directly (compiled with NVRTC,
//!    launched on the array's own stream), and read back through cuarray;
//! 2. memory allocated by cudarc (standing for any other library) wrapped as a
//!    `DeviceArray` with `from_raw_parts`: no copy, not counted by cuarray's pool, the
//!    cudarc buffer freed once when the last view goes;
//! 3. a DLPack round trip (`to_dlpack` / `from_dlpack`), the form PyTorch, CuPy and JAX
//!    exchange.
//!
//! Run with `cargo run --release --example ffi_interop`.

use cuarray::cudarc::driver::{CudaContext, DevicePtr, LaunchConfig, PushKernelArg};
use cuarray::cudarc::nvrtc::compile_ptx;
use cuarray::{Device, DeviceArray, Error};

fn main() {
    if let Some(reason) = cuarray::unavailable_reason() {
        eprintln!("ffi_interop needs an NVIDIA GPU: {reason}");
        std::process::exit(1);
    }
    if let Err(e) = run() {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

const SAXPY: &str = r#"
extern "C" __global__ void saxpy(float* y, const float* x, float a, unsigned long long n) {
    unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
"#;

fn cuda(op: &'static str) -> impl FnOnce(cuarray::cudarc::driver::DriverError) -> Error {
    move |source| Error::Cuda { op, source }
}

fn run() -> cuarray::Result<()> {
    let dev = Device::new(0)?;
    // cudarc's handle on the same GPU: the primary context, which cuarray uses too.
    let ctx = CudaContext::new(dev.ordinal()).map_err(cuda("CudaContext::new"))?;

    // 1. A cuarray array into a kernel of our own, launched through cudarc.
    let n = 1 << 20;
    let x = DeviceArray::<f32>::arange(&dev, 0.0, n as f32, 1.0)?;
    let y = DeviceArray::<f32>::ones(&dev, &[n])?;
    let ptx = compile_ptx(SAXPY).map_err(|e| Error::InvalidArgument {
        op: "compile_ptx",
        msg: e.to_string(),
    })?;
    let module = ctx.load_module(ptx).map_err(cuda("load_module"))?;
    let saxpy = module
        .load_function("saxpy")
        .map_err(cuda("load_function"))?;
    // SAFETY: `x` and `y` are contiguous f32 arrays of `n` elements that outlive the
    // kernel's use of them: the launch goes to `y`'s own stream (cuarray's stream), so it
    // runs after `arange` and `ones`, and before the `to_host` below.
    unsafe {
        let (px, py) = (x.as_raw(), y.as_raw());
        assert!(x.is_contiguous() && y.is_contiguous());
        let stream = ctx.wrap_borrowed_stream(y.stream_handle());
        let (a, len) = (2.0f32, n as u64);
        stream
            .launch_builder(&saxpy)
            .arg(&py.ptr)
            .arg(&px.ptr)
            .arg(&a)
            .arg(&len)
            .launch(LaunchConfig::for_num_elems(n as u32))
            .map_err(cuda("launch saxpy"))?;
    }
    let back = y.to_host()?;
    assert_eq!(
        (back[0], back[10], back[n - 1]),
        (1.0, 21.0, 2.0 * (n - 1) as f32 + 1.0)
    );
    println!(
        "1. saxpy through cudarc on a cuarray array: y[10] = {}",
        back[10]
    );

    // 2. cudarc's memory as a cuarray array, without a copy.
    let stream = ctx.new_stream().map_err(cuda("new_stream"))?;
    let host: Vec<f32> = (0..n).map(|i| (i % 7) as f32).collect();
    let theirs = stream.clone_htod(&host).map_err(cuda("clone_htod"))?;
    // cuarray's work goes to its own stream: let cudarc's copy finish first.
    stream.synchronize().map_err(cuda("synchronize"))?;
    let ptr = {
        let (ptr, _record) = theirs.device_ptr(&stream);
        ptr
    };
    let before = dev.memory_pool().used_bytes();
    // SAFETY: `theirs` (the owner) holds `n` f32 on device 0 until it is dropped, and its
    // write has finished (synchronised above).
    let a = unsafe {
        DeviceArray::<f32>::from_raw_parts(&dev, ptr, &[n / 1024, 1024], &[1024, 1], theirs)
    }?;
    assert_eq!(
        dev.memory_pool().used_bytes(),
        before,
        "foreign bytes are not the pool's"
    );
    let col = a.sum_axis(0)?; // cuarray kernels on cudarc's memory
    let total = col.sum()?.to_scalar()?;
    let expect: f64 = host.iter().map(|&v| v as f64).sum();
    assert_eq!(total as f64, expect);
    println!("2. cudarc allocation wrapped in place: sum = {total}");
    drop((a, col)); // waits for cuarray's work on it, then frees the cudarc buffer

    // 3. DLPack: what PyTorch's torch.from_dlpack and cuarray.from_dlpack exchange.
    let m = DeviceArray::<f32>::arange(&dev, 0.0, 6.0, 1.0)?.reshape(&[2, 3])?;
    let t = m.t().to_dlpack(None)?; // zero copy, strides kept
    println!(
        "3. DLPack tensor: shape {:?}, strides {:?}, version {:?}",
        t.shape(),
        t.strides(),
        t.version()
    );
    let back = DeviceArray::<f32>::from_dlpack(&dev, t)?;
    assert_eq!(back.to_host()?, m.t().to_host()?);
    println!("   back in cuarray: {:?}", back.to_host()?);
    Ok(())
}
