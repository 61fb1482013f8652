//! User kernels: ElementwiseKernel, ReductionKernel and RawKernel against host references
//! on random data (broadcast and strided inputs), their errors (wrong arity, wrong types,
//! a syntax error reported at the user's line), use from several threads, and the kernel
//! cache (a second call compiles nothing). The `nvrtc/user/...` trials only compile.

use crate::common::{ensure, gpu_trial, gpu_trial_exclusive, nvrtc_trial, Rng, TResult};
use cuarray::testing::kernels::family::elementwise::Variant;
use cuarray::testing::kernels::family::raw::RawSpec;
use cuarray::testing::kernels::family::reduce;
use cuarray::testing::kernels::{nvrtc, IndexWidth};
use cuarray::KernelSpec;
use cuarray::{
    s, DType, Device, DeviceArray, ElementwiseKernel, Error, RawKernel, ReductionKernel,
};
use half::{bf16, f16};
use libtest_mimic::Trial;

fn saxpy() -> ElementwiseKernel {
    ElementwiseKernel::new("T x, T y, float32 a", "T z", "z = a * x + y;", "saxpy").unwrap()
}

fn l2() -> ReductionKernel {
    ReductionKernel::new("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2norm")
        .unwrap()
        .reduce_type("float32")
        .unwrap()
}

const TRANSPOSE: &str = r#"
#define TILE 32
extern "C" __global__ void transpose(float* out, const float* in, int rows, int cols) {
    extern __shared__ float tile[];   // TILE x (TILE + 1)
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    for (int k = 0; k < TILE; k += blockDim.y)
        if (x < cols && y + k < rows) tile[(threadIdx.y + k) * (TILE + 1) + threadIdx.x] = in[(y + k) * cols + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x; y = blockIdx.x * TILE + threadIdx.y;
    for (int k = 0; k < TILE; k += blockDim.y)
        if (x < rows && y + k < cols) out[(y + k) * rows + x] = tile[threadIdx.x * (TILE + 1) + threadIdx.y + k];
}
"#;

fn compile(spec: KernelSpec) -> TResult {
    let (src, sym) = (spec.source(), spec.symbol());
    nvrtc::compile(&src, &sym, &nvrtc::options((9, 0)))
        .map(drop)
        .map_err(|e| format!("{sym}: {e}").into())
}

/// Every layout variant of saxpy (arrays and a scalar) for each float type, with `n`
/// and a preamble too.
fn nvrtc_elementwise() -> TResult {
    let k = saxpy();
    let with_n = ElementwiseKernel::with_preamble(
        "T x, S w",
        "T y, float64 z",
        "y = twice(x) * T(w); z = (double)i / n;",
        "both",
        "__device__ T twice(T v) { return T(float(v) * 2.0f); }",
    )?;
    for d in [DType::F32, DType::F64, DType::F16, DType::BF16] {
        for variant in [
            Variant::Contiguous,
            Variant::Vectorized {
                vec: (16 / d.size()) as u8,
            },
            Variant::Strided { ndim: 3 },
            Variant::StridedVec {
                ndim: 2,
                vec: (16 / d.size()) as u8,
                bcast: 0b100,
            },
            Variant::Tiled { staged: 0b10 },
        ] {
            let args = [(d, true), (d, true), (DType::F32, false)];
            compile(k.kernel_spec(&args, &[d], variant, IndexWidth::I32).into())?;
            // `a` given as an array.
            let args = [(d, true), (d, true), (DType::F32, true)];
            compile(k.kernel_spec(&args, &[d], variant, IndexWidth::I64).into())?;
            let args = [(d, true), (DType::I8, false)];
            compile(
                with_n
                    .kernel_spec(&args, &[d, DType::F64], variant, IndexWidth::I32)
                    .into(),
            )?;
        }
    }
    Ok(())
}

/// The L2 norm (and a weighted sum of integers) in rows, warp and column variants.
fn nvrtc_reduction() -> TResult {
    let k = l2();
    let w = ReductionKernel::new(
        "T x, float64 w",
        "float64 y",
        "w * x",
        "a + b",
        "y = a",
        "0",
        "wsum",
    )?;
    for variant in [
        reduce::Variant::Rows {
            warp: false,
            vec: 4,
            nk: 1,
            nr: 1,
        },
        reduce::Variant::Rows {
            warp: true,
            vec: 1,
            nk: 2,
            nr: 2,
        },
        reduce::Variant::Cols {
            vec: 1,
            nk: 1,
            nr: 2,
        },
    ] {
        for d in [DType::F32, DType::F16, DType::BF16, DType::F64] {
            let mut spec = k.kernel_spec(d, &[], d, variant, IndexWidth::I32);
            compile(spec.clone().into())?;
            spec.partial_out = true;
            compile(spec.clone().into())?;
            spec.partial_out = false;
            spec.partial_in = true;
            spec.pre = "a = in0;".into();
            compile(spec.into())?;
        }
        for d in [DType::I8, DType::I32, DType::U64, DType::Bool] {
            compile(
                w.kernel_spec(d, &[DType::F64], DType::F64, variant, IndexWidth::I64)
                    .into(),
            )?;
        }
    }
    Ok(())
}

fn nvrtc_raw() -> TResult {
    compile(
        RawSpec {
            source: TRANSPOSE.into(),
            name: "transpose".into(),
        }
        .into(),
    )?;
    // f16 and bf16 without CUDA headers.
    let half = r#"extern "C" __global__ void h(cuarray_f16* o, const cuarray_bf16* i, int n) {
        int k = blockIdx.x * blockDim.x + threadIdx.x; if (k < n) o[k] = float(i[k]) * 0.5f; }"#;
    compile(
        RawSpec {
            source: half.into(),
            name: "h".into(),
        }
        .into(),
    )
}

/// A syntax error on line 2 of a body: the log points at that line of the user's text.
fn nvrtc_error_lines() -> TResult {
    let k = ElementwiseKernel::new("T x", "T y", "T t = x;\ny = t +* ;", "broken")?;
    let spec: KernelSpec = k
        .kernel_spec(
            &[(DType::F32, true)],
            &[DType::F32],
            Variant::Contiguous,
            IndexWidth::I32,
        )
        .into();
    match nvrtc::compile(&spec.source(), &spec.symbol(), &nvrtc::options((9, 0))) {
        Err(Error::Compile { log, .. }) => {
            ensure!(
                log.contains("broken.operation(2)"),
                "the log does not point at line 2:\n{log}"
            );
            Ok(())
        }
        other => Err(format!("expected a compile error, got {:?}", other.map(|_| ())).into()),
    }
}

// ---- GPU --------------------------------------------------------------------------------

fn host<T: cuarray::Element + Copy>(rng: &mut Rng, n: usize, f: impl Fn(f64) -> T) -> Vec<T> {
    (0..n).map(|_| f(rng.range(-2.0, 2.0))).collect()
}

fn close(what: &str, got: &[f64], want: &[f64], rel: f64) -> TResult {
    ensure!(
        got.len() == want.len(),
        "{what}: {} values, want {}",
        got.len(),
        want.len()
    );
    for (k, (g, w)) in got.iter().zip(want).enumerate() {
        ensure!(
            (g - w).abs() <= rel * w.abs().max(1.0),
            "{what}: element {k} is {g}, want {w}"
        );
    }
    Ok(())
}

/// saxpy on broadcast (4, 1) x (5,) inputs, a transposed (strided) input, f16, f64, and
/// into a given output.
fn elementwise(dev: &Device) -> TResult {
    let mut rng = Rng::for_name("user/elementwise");
    let k = saxpy();
    let (xs, ys) = (
        host(&mut rng, 4, |v| v as f32),
        host(&mut rng, 5, |v| v as f32),
    );
    let x = DeviceArray::from_host(dev, &xs, &[4, 1])?;
    let y = DeviceArray::from_slice(dev, &ys)?;
    let z: DeviceArray<f32> = k.call((&x, &y, 1.5f32))?;
    ensure!(z.shape() == [4, 5], "shape {:?}", z.shape());
    let want: Vec<f64> = (0..20)
        .map(|e| 1.5 * xs[e / 5] as f64 + ys[e % 5] as f64)
        .collect();
    let got: Vec<f64> = z.to_host()?.iter().map(|&v| v as f64).collect();
    close("broadcast", &got, &want, 1e-6)?;
    // Strided: a transposed view and a stepped slice.
    let ms = host(&mut rng, 6 * 8, |v| v);
    let m = DeviceArray::from_host(dev, &ms, &[6, 8])?;
    let mt = m.t();
    let col = m.slice(s![.., 0..8;2])?; // (6, 4)
    let z: DeviceArray<f64> =
        ElementwiseKernel::new("T p, T q, float32 a", "T r", "r = p - q * (T)a;", "pq")?.call((
            &mt.slice(s![0..4, ..])?,
            &col.t(),
            2.0f32,
        ))?;
    let want: Vec<f64> = (0..24)
        .map(|e| {
            let (r, c) = (e / 6, e % 6);
            ms[c * 8 + r] - ms[c * 8 + 2 * r] * 2.0
        })
        .collect();
    close("strided", &z.to_host()?, &want, 1e-12)?;
    // f16 computes through float.
    let hs = host(&mut rng, 1000, f16::from_f64);
    let h = DeviceArray::from_slice(dev, &hs)?;
    let hz: DeviceArray<f16> = k.call((&h, &h, 0.5f32))?;
    let want: Vec<f64> = hs
        .iter()
        .map(|v| f16::from_f64(1.5 * v.to_f64()).to_f64())
        .collect();
    let got: Vec<f64> = hz.to_host()?.iter().map(|v| v.to_f64()).collect();
    close("f16", &got, &want, 2e-3)?;
    let bs = host(&mut rng, 100, bf16::from_f64);
    let b = DeviceArray::from_slice(dev, &bs)?;
    let _: DeviceArray<bf16> = k.call((&b, &b, 1.0f32))?;
    // i and n, two outputs, into given outputs.
    let idx = ElementwiseKernel::new(
        "T x",
        "T y, float64 f",
        "y = x + (T)i; f = (double)i / n;",
        "idx",
    )?;
    let (y2, f): (DeviceArray<i32>, DeviceArray<f64>) =
        idx.call((&DeviceArray::<i32>::full(dev, &[2, 3], 10)?,))?;
    ensure!(
        y2.to_host()? == vec![10, 11, 12, 13, 14, 15],
        "i: {:?}",
        y2.to_host()?
    );
    close(
        "n",
        &f.to_host()?,
        &[0.0, 1.0 / 6.0, 2.0 / 6.0, 0.5, 4.0 / 6.0, 5.0 / 6.0],
        1e-12,
    )?;
    let acc = DeviceArray::<f32>::zeros(dev, &[4, 5])?;
    k.call_into((&x, &acc, 2.0f32), (&acc,))?;
    k.call_into((&x, &acc, 1.0f32), (&acc,))?;
    let want: Vec<f64> = (0..20).map(|e| 3.0 * xs[e / 5] as f64).collect();
    let got: Vec<f64> = acc.to_host()?.iter().map(|&v| v as f64).collect();
    close("call_into", &got, &want, 1e-6)
}

fn errors(dev: &Device) -> TResult {
    let k = saxpy();
    let x = DeviceArray::<f32>::ones(dev, &[8])?;
    let d = DeviceArray::<f64>::ones(dev, &[8])?;
    let msg = |r: cuarray::Result<DeviceArray<f32>>| match r {
        Err(Error::InvalidArgument { msg, .. }) => msg,
        other => format!("not InvalidArgument: {:?}", other.map(|_| ())),
    };
    let m = msg(k.call((&x, &x)));
    ensure!(
        m.contains("2 argument(s) given, the kernel takes 3"),
        "arity: {m}"
    );
    let m = msg(k.call((&x, &d, 1.0f32)));
    ensure!(m.contains("`y`") && m.contains("f64"), "placeholder: {m}");
    let m = msg(k.call((&x, &x, 1.0f64)));
    ensure!(m.contains("parameter `a` is f32"), "scalar type: {m}");
    let r: cuarray::Result<DeviceArray<f64>> = k.call((&x, &x, 1.0f32));
    ensure!(
        matches!(&r, Err(Error::InvalidArgument { msg, .. }) if msg.contains("`z`")),
        "output type: {:?}",
        r.map(|_| ())
    );
    let bad = ElementwiseKernel::new("T x", "T y", "T t = x;\ny = t +* ;", "broken")?;
    match bad.call::<DeviceArray<f32>>((&x,)) {
        Err(Error::Compile { log, .. }) => {
            ensure!(
                log.contains("broken.operation(2)"),
                "log without the line:\n{log}"
            )
        }
        other => return Err(format!("expected Compile, got {:?}", other.map(|_| ())).into()),
    }
    let r = RawKernel::new(dev, TRANSPOSE, "transpose")?;
    let out = DeviceArray::<f32>::zeros(dev, &[8])?;
    // SAFETY (the three launches below): each argument list is refused by the check
    // against the parameter list before anything is launched.
    let e = unsafe { r.launch((1, 1, 1), (32, 8, 1), 0, (&out, &x, 8u64, 1i32)) }
        .unwrap_err()
        .to_string();
    ensure!(e.contains("`rows`"), "raw scalar kind: {e}");
    let e = unsafe { r.launch((1, 1, 1), (32, 8, 1), 0, (&out, &d, 8i32, 1i32)) }
        .unwrap_err()
        .to_string();
    ensure!(
        e.contains("`in`") && e.contains("f64"),
        "raw pointer type: {e}"
    );
    let e = unsafe { r.launch((1, 1, 1), (32, 8, 1), 0, (&out, &x)) }
        .unwrap_err()
        .to_string();
    ensure!(e.contains("2 argument(s) given"), "raw arity: {e}");
    Ok(())
}

fn reduction(dev: &Device) -> TResult {
    let mut rng = Rng::for_name("user/reduction");
    let (r, c) = (37, 300);
    let xs = host(&mut rng, r * c, |v| v as f32);
    let x = DeviceArray::from_host(dev, &xs, &[r, c])?;
    let k = l2();
    let norm =
        |v: &mut dyn Iterator<Item = f32>| v.map(|e| (e as f64) * (e as f64)).sum::<f64>().sqrt();
    let all: DeviceArray<f32> = k.call((&x,), None, false)?;
    close(
        "all",
        &[all.to_scalar()? as f64],
        &[norm(&mut xs.iter().copied())],
        1e-5,
    )?;
    let rows: DeviceArray<f32> = k.call((&x,), Some(&[-1]), true)?;
    ensure!(rows.shape() == [r, 1], "keepdims shape {:?}", rows.shape());
    let want: Vec<f64> = (0..r)
        .map(|i| norm(&mut xs[i * c..(i + 1) * c].iter().copied()))
        .collect();
    let got: Vec<f64> = rows.to_host()?.iter().map(|&v| v as f64).collect();
    close("rows", &got, &want, 1e-5)?;
    // Columns of a transposed view (strided input) equal the rows.
    let cols: DeviceArray<f32> = k.call((&x.t(),), Some(&[0]), false)?;
    let got: Vec<f64> = cols.to_host()?.iter().map(|&v| v as f64).collect();
    close("transposed", &got, &want, 1e-5)?;
    // Against the built-in: sqrt(sum(x*x)).
    let builtin = (&x * &x)?.sum()?.sqrt()?.to_scalar()?;
    close(
        "builtin",
        &[all.to_scalar()? as f64],
        &[builtin as f64],
        1e-5,
    )?;
    // A scalar parameter, integer input, f64 output, over axis 0.
    let w = ReductionKernel::new(
        "T x, float64 w",
        "float64 y",
        "w * x",
        "a + b",
        "y = a",
        "0",
        "wsum",
    )?;
    let is: Vec<i32> = (0..r * c).map(|_| rng.int(-100, 100) as i32).collect();
    let xi = DeviceArray::from_host(dev, &is, &[r, c])?;
    let s: DeviceArray<f64> = w.call((&xi, 0.5f64), Some(&[0]), false)?;
    let want: Vec<f64> = (0..c)
        .map(|j| (0..r).map(|i| 0.5 * is[i * c + j] as f64).sum())
        .collect();
    close("weighted", &s.to_host()?, &want, 1e-12)?;
    // Empty: the post-map of the identity.
    let e: DeviceArray<f32> = k.call((&DeviceArray::<f32>::zeros(dev, &[0])?,), None, false)?;
    ensure!(e.to_scalar()? == 0.0, "empty");
    Ok(())
}

fn raw_transpose(dev: &Device) -> TResult {
    let mut rng = Rng::for_name("user/raw");
    let (rows, cols) = (100usize, 77usize);
    let xs = host(&mut rng, rows * cols, |v| v as f32);
    let x = DeviceArray::from_host(dev, &xs, &[rows, cols])?;
    let out = DeviceArray::<f32>::zeros(dev, &[cols, rows])?;
    let k = RawKernel::new(dev, TRANSPOSE, "transpose")?;
    let grid = (cols.div_ceil(32) as u32, rows.div_ceil(32) as u32, 1);
    // SAFETY: `transpose` takes (float*, const float*, int rows, int cols) and touches
    // in[y * cols + x] and out[x * rows + y] only for x < cols, y < rows: `x` holds
    // rows x cols f32 and `out` cols x rows; its 32 x 33 float tile is the shared memory
    // given.
    unsafe {
        k.launch(
            grid,
            (32, 8, 1),
            32 * 33 * 4,
            (&out, &x, rows as i32, cols as i32),
        )?
    };
    ensure!(
        out.to_host()? == x.t().to_host()?,
        "transpose differs from .t()"
    );
    // On another stream.
    let stream = dev.new_stream()?;
    let out2 = DeviceArray::<f32>::zeros(dev, &[cols, rows])?;
    // SAFETY: as above, with `out2` of the same shape; `x` is only read, and `out2` is
    // used on `stream` only until the stream is synchronized.
    unsafe {
        k.launch_on(
            &stream.device(),
            grid,
            (32, 8, 1),
            32 * 33 * 4,
            (&out2, &x, rows as i32, cols as i32),
        )?
    };
    stream.synchronize()?;
    ensure!(out2.to_host()? == out.to_host()?, "on a stream");
    Ok(())
}

/// A second call with the same types and layout class compiles nothing; a new layout
/// class compiles once.
fn cache(dev: &Device) -> TResult {
    let k = ElementwiseKernel::new(
        "T x, T y, float32 a",
        "T z",
        "z = a * x - y;",
        "cache_probe",
    )?;
    let x = DeviceArray::<f32>::ones(dev, &[1000])?;
    let _: DeviceArray<f32> = k.call((&x, &x, 1.0f32))?;
    let before = dev.kernel_cache_stats();
    let again = ElementwiseKernel::new(
        "T x, T y, float32 a",
        "T z",
        "z = a * x - y;",
        "cache_probe",
    )?;
    let _: DeviceArray<f32> = k.call((&x, &x, 2.0f32))?;
    let _: DeviceArray<f32> = again.call((&x, &x, 3.0f32))?;
    let same = dev.kernel_cache_stats();
    ensure!(
        same.compiles == before.compiles && same.disk_hits == before.disk_hits,
        "a second elementwise call compiled or loaded: {before:?} -> {same:?}"
    );
    let l = l2();
    let _: DeviceArray<f32> = l.call((&x,), None, false)?;
    let mid = dev.kernel_cache_stats();
    let _: DeviceArray<f32> = l.call((&x,), None, false)?;
    let after = dev.kernel_cache_stats();
    ensure!(
        after.compiles == mid.compiles && after.disk_hits == mid.disk_hits,
        "a second reduction call compiled or loaded: {mid:?} -> {after:?}"
    );
    ensure!(after.memory_hits > mid.memory_hits, "no memory hit");
    let r = RawKernel::new(dev, TRANSPOSE, "transpose")?;
    let s1 = dev.kernel_cache_stats();
    let _ = RawKernel::new(dev, TRANSPOSE, "transpose")?;
    drop(r);
    let s2 = dev.kernel_cache_stats();
    ensure!(
        s2.compiles == s1.compiles && s2.disk_hits == s1.disk_hits,
        "raw kernel rebuilt"
    );
    Ok(())
}

fn threads(dev: &Device) -> TResult {
    let k = saxpy();
    let l = l2();
    std::thread::scope(|s| {
        let hs: Vec<_> = (0..8)
            .map(|t| {
                let (k, l) = (k.clone(), l.clone());
                s.spawn(move || -> cuarray::Result<bool> {
                    let x = DeviceArray::<f32>::full(dev, &[4096], t as f32)?;
                    let mut ok = true;
                    for _ in 0..20 {
                        let z: DeviceArray<f32> = k.call((&x, &x, 2.0f32))?;
                        let n: DeviceArray<f32> = l.call((&z,), None, false)?;
                        let want = 3.0 * t as f32 * 64.0;
                        ok &= (n.to_scalar()? - want).abs() <= 1e-3 * want.max(1.0);
                    }
                    Ok(ok)
                })
            })
            .collect();
        for h in hs {
            match h.join() {
                Ok(Ok(true)) => {}
                Ok(Ok(false)) => return Err("a thread got a wrong result".into()),
                Ok(Err(e)) => return Err(format!("a thread failed: {e}").into()),
                Err(_) => return Err("a thread panicked".into()),
            }
        }
        Ok(())
    })
}

const PROBE: &str = "user/cache/f64/second_process_probe";
const PROBE_ENV: &str = "CUARRAY_TEST_CACHE_PROBE";

/// In a child process (with `PROBE_ENV` set): runs one user kernel that no other trial
/// uses and prints the kernel cache's counters. Elsewhere it does nothing.
fn cache_probe(dev: &Device) -> TResult {
    if std::env::var_os(PROBE_ENV).is_none() {
        return Ok(());
    }
    let k = ElementwiseKernel::new("T x", "T y", "y = x * 3.25 - 1.0;", "cache_probe")?;
    let x = DeviceArray::from_slice(dev, &[1.0f64, 2.0, 4.0])?;
    let y: DeviceArray<f64> = k.call((&x,))?;
    ensure!(y.to_host()? == vec![2.25, 5.5, 12.0], "probe values");
    let s = dev.kernel_cache_stats();
    println!(
        "probe-stats compiles={} disk_hits={}",
        s.compiles, s.disk_hits
    );
    Ok(())
}

/// A user kernel compiled by one process is loaded from the disk cache by the next: the
/// test binary runs the probe twice in child processes sharing a fresh cache folder.
fn disk_cache_second_process(_dev: &Device) -> TResult {
    let dir = std::env::temp_dir().join(format!("cuarray-user-cache-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let run = || -> Result<(u64, u64), Box<dyn std::error::Error>> {
        let out = std::process::Command::new(std::env::current_exe()?)
            .args(["--exact", PROBE, "--test-threads=1"])
            .env(PROBE_ENV, "1")
            .env("CUARRAY_CACHE_DIR", &dir)
            .env_remove("CUARRAY_CACHE")
            .output()?;
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let line = text
            .lines()
            .find_map(|l| l.split_once("probe-stats ").map(|(_, r)| r.to_string()))
            .ok_or_else(|| format!("the child printed no counters:\n{text}"))?;
        let num = |key: &str| -> Option<u64> {
            line.split_whitespace()
                .find_map(|w| w.strip_prefix(key))
                .and_then(|v| v.parse().ok())
        };
        Ok((
            num("compiles=").unwrap_or(u64::MAX),
            num("disk_hits=").unwrap_or(u64::MAX),
        ))
    };
    let first = run();
    let second = run();
    let _ = std::fs::remove_dir_all(&dir);
    let (first, second) = (first?, second?);
    ensure!(
        first == (1, 0),
        "first process: compiles, disk hits = {first:?}, expected (1, 0)"
    );
    ensure!(
        second == (0, 1),
        "second process: compiles, disk hits = {second:?}, expected (0, 1)"
    );
    Ok(())
}

pub fn trials(out: &mut Vec<Trial>) {
    out.push(gpu_trial(PROBE, cache_probe));
    out.push(gpu_trial(
        "user/cache/f64/disk_hit_in_a_second_process",
        disk_cache_second_process,
    ));
    out.push(nvrtc_trial(
        "nvrtc/user/all/elementwise_variants",
        nvrtc_elementwise,
    ));
    out.push(nvrtc_trial(
        "nvrtc/user/all/reduction_variants",
        nvrtc_reduction,
    ));
    out.push(nvrtc_trial(
        "nvrtc/user/f32/raw_transpose_and_halves",
        nvrtc_raw,
    ));
    out.push(nvrtc_trial(
        "nvrtc/user/f32/error_at_user_line",
        nvrtc_error_lines,
    ));
    out.push(gpu_trial(
        "user/elementwise/all/broadcast_strided_f16_into",
        elementwise,
    ));
    out.push(gpu_trial("user/errors/f32/arity_types_syntax", errors));
    out.push(gpu_trial(
        "user/reduction/all/axes_keepdims_strided",
        reduction,
    ));
    out.push(gpu_trial(
        "user/raw/f32/tiled_transpose_streams",
        raw_transpose,
    ));
    out.push(gpu_trial_exclusive(
        "user/cache/f32/second_call_compiles_nothing",
        cache,
    ));
    out.push(gpu_trial("user/threads/f32/eight_threads", threads));
}
