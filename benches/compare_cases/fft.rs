//! The FFT rows of the peer comparison (cuFFT through cuarray, CuPy and PyTorch).

use super::*;

/// FFTs on cuFFT (bytes = input read once + output written once): c64 `fft` of 2^24,
/// `fft2` c64 8192 x 8192, `rfft` f32 2^24, a batch of 4096 rows of 4096 c64 along the last
/// axis; the wall time of a cached-plan c64 `fft` of 1024 points beside a bare cuFFT
/// execution of the same plan (`bare_cufft_c2c_1024_wall`): the difference is cuarray's
/// host overhead.
pub fn fft_cases(dev: &Device, filter: &dyn Fn(&str) -> bool, cases: &mut Vec<Case>) {
    use cuarray::fft::{self, Norm};
    use cuarray::Complex32;
    let c64 = |shape: &[usize]| {
        rand_matrix::<f32>(dev, shape)
            .astype::<Complex32>()
            .unwrap()
    };
    let n = 1usize << 24;
    if filter("fft_c64_2^24") {
        let a = c64(&[n]);
        cases.push(device_case(dev, "fft_c64_2^24", (2 * n * 8) as f64, || {
            fft::fft(&a, None, -1, Norm::Backward).map(drop)
        }));
    }
    if filter("fft2_c64_8192x8192") {
        let a = c64(&[8192, 8192]);
        let m = 8192 * 8192;
        cases.push(device_case(
            dev,
            "fft2_c64_8192x8192",
            (2 * m * 8) as f64,
            || fft::fft2(&a, None, &[-2, -1], Norm::Backward).map(drop),
        ));
    }
    if filter("rfft_f32_2^24") {
        let a = rand_matrix::<f32>(dev, &[n]);
        let bytes = (n * 4 + (n / 2 + 1) * 8) as f64;
        cases.push(device_case(dev, "rfft_f32_2^24", bytes, || {
            fft::rfft(&a, None, -1, Norm::Backward).map(drop)
        }));
    }
    if filter("fft_c64_4096x4096_rows") {
        let a = c64(&[4096, 4096]);
        cases.push(device_case(
            dev,
            "fft_c64_4096x4096_rows",
            (2 * n * 8) as f64,
            || fft::fft(&a, None, -1, Norm::Backward).map(drop),
        ));
    }
    if filter("fft_c64_1024_wall") {
        let a = c64(&[1024]);
        cases.push(wall_case(dev, "fft_c64_1024_wall", || {
            fft::fft(&a, None, -1, Norm::Backward).map(drop)
        }));
    }
    if filter("bare_cufft_c2c_1024_wall") {
        use cudarc::cufft::{result as cf, sys};
        let ctx = CudaContext::new(0).unwrap();
        let stream = ctx.new_stream().unwrap();
        let src = stream.alloc_zeros::<f32>(2048).unwrap();
        let mut dst = stream.alloc_zeros::<f32>(2048).unwrap();
        let plan = cf::plan_1d(1024, sys::cufftType::CUFFT_C2C, 1).unwrap();
        use cudarc::driver::{DevicePtr, DevicePtrMut};
        let (i, _g1) = src.device_ptr(&stream);
        let (o, _g2) = dst.device_ptr_mut(&stream);
        // SAFETY: the plan belongs to this thread's current context; the stream is live.
        unsafe { cf::set_stream(plan, stream.cu_stream() as sys::cudaStream_t) }.unwrap();
        let exec = || {
            // SAFETY: both buffers hold 1024 complex values (2048 floats) of this context.
            unsafe { cf::exec_c2c(plan, i as *mut _, o as *mut _, -1) }.unwrap();
        };
        for _ in 0..200 {
            exec();
        }
        stream.synchronize().unwrap();
        let mut runs = Vec::new();
        for _ in 0..7 {
            let t = Instant::now();
            for _ in 0..2000 {
                exec();
            }
            stream.synchronize().unwrap();
            runs.push(t.elapsed() / 2000);
        }
        runs.sort();
        cases.push(Case {
            name: "bare_cufft_c2c_1024_wall".into(),
            bytes: 0.0,
            median: runs[3],
            kind: "wall",
        });
        // SAFETY: the plan is destroyed once, after its last use.
        let _ = unsafe { cf::destroy(plan) };
    }
}
