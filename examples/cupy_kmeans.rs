//! A port of CuPy's `examples/kmeans/kmeans.py`: k-means (Lloyd's algorithm) on
//! 2 x 5000000 points in 2-D (`f64`, standard normal samples shifted by +1 and by -1),
//! 2 clusters, at most 10 iterations, stopping when no label changes (one `bool` read per
//! iteration, as the original's `if xp.all(...)`). The timed section is the original's:
//! `fit_xp` (built-in operations), or with `--use-custom-kernel` `fit_custom`, whose
//! `ElementwiseKernel` and `ReductionKernel` strings are CuPy's, unchanged.
//!
//! The original's custom version passes `centers[None, :, 1]` as `c0` and
//! `centers[None, :, 0]` as `c1` (the coordinates of the centers swapped); the port keeps
//! that call as it is. Its `sum_kernel` reduces `mask ? x : 0` over two arrays; cuarray's
//! `ReductionKernel` takes one array (plus scalars), so where the two-array call is refused
//! the port runs CuPy's map expression as an `ElementwiseKernel` and CuPy's reduce,
//! post-map and identity as a `ReductionKernel` of its result.
//!
//! Checks that each returned center is the mean of the points carrying its label and that
//! the labels split the two generating clouds (at least 90% agreement); exits non-zero
//! otherwise. Prints `{"lib": "cuarray", "case": "cupy_example_kmeans", ...}` (or
//! `cupy_example_kmeans_custom`). No plot (`--output-image` is not ported).
//!
//! `cargo run --release --example cupy_kmeans [-- --n-clusters 2 --num 5000000 --max-iter 10 --use-custom-kernel]`

use cuarray::linalg::norm_axis;
use cuarray::random::{Generator, HostGenerator};
use cuarray::{
    concatenate, count_nonzero_axis, s, where_, Device, DeviceArray, ElementwiseKernel,
    ReductionKernel, Result,
};
use std::time::Instant;

type A = DeviceArray<f64>;

// CuPy's kernels, verbatim: (in_params, out_params, operation, name) and
// (in_params, out_params, map_expr, reduce_expr, post_map_expr, identity, name).
const VAR_KERNEL: [&str; 4] = [
    "T x0, T x1, T c0, T c1",
    "T out",
    "out = (x0 - c0) * (x0 - c0) + (x1 - c1) * (x1 - c1)",
    "var_kernel",
];
const SUM_KERNEL: [&str; 7] = [
    "T x, S mask",
    "T out",
    "mask ? x : 0",
    "a + b",
    "out = a",
    "0",
    "sum_kernel",
];
const COUNT_KERNEL: [&str; 7] = [
    "T mask",
    "float32 out",
    "mask ? 1.0 : 0.0",
    "a + b",
    "out = a",
    "0.0",
    "count_kernel",
];

fn arg<T: std::str::FromStr>(names: &[&str], default: T) -> T {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| names.contains(&a.as_str()))
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn main() {
    let n_clusters = arg(&["--n-clusters", "-n"], 2usize);
    let num = arg(&["--num"], 5_000_000usize);
    let max_iter = arg(&["--max-iter", "-m"], 10usize);
    let custom =
        std::env::args().any(|a| a == "--use-custom-kernel" || a == "--use-custom-kernels");
    let dev = match Device::new(arg(&["--gpu-id", "-g"], 0usize)) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("cupy_kmeans needs an NVIDIA GPU: {e}");
            std::process::exit(1);
        }
    };
    match run(&dev, n_clusters, num, max_iter, custom) {
        Ok(true) => {}
        Ok(false) => std::process::exit(1),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}

/// `xp.random.choice(n_samples, n_clusters, replace=False)`: distinct indices drawn on the
/// host (CuPy draws its bijection's keys on the host too), uploaded.
fn choice(dev: &Device, rng: &mut HostGenerator, n: usize, k: usize) -> Result<DeviceArray<i64>> {
    let mut picked: Vec<i64> = Vec::with_capacity(k);
    while picked.len() < k {
        let i = rng.integers(0i64, n as i64, &[1])?[0];
        if !picked.contains(&i) {
            picked.push(i);
        }
    }
    DeviceArray::from_slice(dev, &picked)
}

fn fit_xp(
    x: &A,
    n_clusters: usize,
    max_iter: usize,
    rng: &mut HostGenerator,
) -> Result<(A, DeviceArray<i64>)> {
    let dev = x.device();
    let n_samples = x.shape()[0];
    let mut pred = DeviceArray::<i64>::zeros(dev, &[n_samples])?;
    let initial_indexes = choice(dev, rng, n_samples, n_clusters)?;
    let mut centers = x.take(&initial_indexes, Some(0))?;
    for _ in 0..max_iter {
        let distances = norm_axis(
            &x.slice(s![.., None, ..])?
                .sub(centers.slice(s![None, .., ..]))?,
            None,
            2,
        )?;
        let new_pred = distances.argmin_axis(1)?;
        if new_pred.eq(&pred)?.all()?.to_scalar()? {
            break;
        }
        pred = new_pred;
        let i = DeviceArray::<i64>::arange(dev, 0, n_clusters as i64, 1)?;
        let mask = pred.eq(i.slice(s![.., None]))?;
        let sums = where_(mask.slice(s![.., .., None]), x, 0.0)?.sum_axis(1)?;
        let counts = count_nonzero_axis(&mask, 1)?.reshape(&[n_clusters, 1])?;
        centers = sums.div(counts.astype::<f64>())?;
    }
    Ok((centers, pred))
}

struct Kernels {
    var: ElementwiseKernel,
    sum: ReductionKernel,
    /// CuPy's sum_kernel split in two, where the two-array call is refused.
    sum_split: Option<(ElementwiseKernel, ReductionKernel)>,
    count: ReductionKernel,
}

impl Kernels {
    fn new() -> Result<Kernels> {
        let [i, o, op, name] = VAR_KERNEL;
        let var = ElementwiseKernel::new(i, o, op, name)?;
        let [i, o, m, r, p, id, name] = SUM_KERNEL;
        let sum = ReductionKernel::new(i, o, m, r, p, id, name)?;
        let [i, o, m, r, p, id, name] = COUNT_KERNEL;
        let count = ReductionKernel::new(i, o, m, r, p, id, name)?;
        Ok(Kernels {
            var,
            sum,
            sum_split: None,
            count,
        })
    }

    /// `sum_kernel(x, mask, axis=1)`.
    fn sum(&mut self, x: &A, mask: &DeviceArray<bool>) -> Result<A> {
        if self.sum_split.is_none() {
            match self.sum.call::<f64>((x, mask), Some(&[1]), false) {
                Ok(s) => return Ok(s),
                Err(_) => {
                    // map_expr as an elementwise kernel; reduce_expr, post_map_expr and
                    // identity as a one-array reduction of its result.
                    let [i, o, m, r, p, id, name] = SUM_KERNEL;
                    let map = ElementwiseKernel::new(
                        i,
                        "T mapped",
                        &format!("mapped = {m}"),
                        &format!("{name}_map"),
                    )?;
                    let reduce = ReductionKernel::new("T mapped", o, "mapped", r, p, id, name)?;
                    self.sum_split = Some((map, reduce));
                }
            }
        }
        let (map, reduce) = self.sum_split.as_ref().expect("set above");
        let mapped: A = map.call((x, mask))?;
        reduce.call((&mapped,), Some(&[1]), false)
    }
}

fn fit_custom(
    x: &A,
    n_clusters: usize,
    max_iter: usize,
    rng: &mut HostGenerator,
    k: &mut Kernels,
) -> Result<(A, DeviceArray<i64>)> {
    let dev = x.device();
    let n_samples = x.shape()[0];
    let mut pred = DeviceArray::<i64>::zeros(dev, &[n_samples])?;
    let initial_indexes = choice(dev, rng, n_samples, n_clusters)?;
    let mut centers = x.take(&initial_indexes, Some(0))?;
    for _ in 0..max_iter {
        let distances: A = k.var.call((
            &x.slice(s![.., None, 0])?,
            &x.slice(s![.., None, 1])?,
            &centers.slice(s![None, .., 1])?,
            &centers.slice(s![None, .., 0])?,
        ))?;
        let new_pred = distances.argmin_axis(1)?;
        if new_pred.eq(&pred)?.all()?.to_scalar()? {
            break;
        }
        pred = new_pred;
        let i = DeviceArray::<i64>::arange(dev, 0, n_clusters as i64, 1)?;
        let mask = pred.eq(i.slice(s![.., None]))?;
        let sums = k.sum(x, &mask.slice(s![.., .., None])?)?;
        let counts = k
            .count
            .call::<f32>((&mask,), Some(&[1]), false)?
            .reshape(&[n_clusters, 1])?;
        centers = sums.div(counts.astype::<f64>())?;
    }
    Ok((centers, pred))
}

fn run(dev: &Device, n_clusters: usize, num: usize, max_iter: usize, custom: bool) -> Result<bool> {
    let mut rng = Generator::new(dev, 0);
    let samples = rng.standard_normal::<f64>(&[num, 2])?;
    let x_train = concatenate(&[&samples.add(1.0)?, &samples.sub(1.0)?], 0)?;
    let mut host_rng = HostGenerator::new(1);
    let mut kernels = Kernels::new()?;
    let mut fit = |x: &A, iters: usize, rng: &mut HostGenerator| {
        if custom {
            fit_custom(x, n_clusters, iters, rng, &mut kernels)
        } else {
            fit_xp(x, n_clusters, iters, rng)
        }
    };
    // Compiles or loads the kernels on a small slice, not timed.
    fit(&x_train.slice(s![..1000])?.contiguous()?, 2, &mut host_rng)?;

    dev.synchronize()?;
    let t = Instant::now();
    let (centers, pred) = fit(&x_train, max_iter, &mut host_rng)?;
    dev.synchronize()?;
    let secs = t.elapsed().as_secs_f64();
    println!(" GPU :  {secs:.6} sec");

    // Checks on the host.
    let xs = x_train.to_host()?;
    let labels = pred.to_host()?;
    let c = centers.to_host()?;
    let mut sum = vec![0f64; n_clusters * 2];
    let mut cnt = vec![0usize; n_clusters];
    for (p, l) in xs.chunks(2).zip(&labels) {
        let l = *l as usize;
        sum[2 * l] += p[0];
        sum[2 * l + 1] += p[1];
        cnt[l] += 1;
    }
    let mut ok = true;
    for l in 0..n_clusters {
        for d in 0..2 {
            let mean = sum[2 * l + d] / cnt[l] as f64;
            if (mean - c[2 * l + d]).abs() > 1e-7 * (1.0 + mean.abs()) {
                eprintln!(
                    "wrong result: center {l} coordinate {d} is {}, its points' mean {mean}",
                    c[2 * l + d]
                );
                ok = false;
            }
        }
    }
    println!("centers {c:?}, counts {cnt:?}");
    if n_clusters == 2 {
        let same = labels[..num].iter().filter(|&&l| l == 0).count()
            + labels[num..].iter().filter(|&&l| l == 1).count();
        let agree = same as f64 / (2 * num) as f64;
        let agree = agree.max(1.0 - agree);
        println!(
            "labels agree with the generating clouds for {:.2}% of the points",
            agree * 100.0
        );
        if agree < 0.9 {
            eprintln!(
                "wrong result: the labels split the clouds for only {:.2}%",
                agree * 100.0
            );
            ok = false;
        }
    }
    let case = if custom {
        "cupy_example_kmeans_custom"
    } else {
        "cupy_example_kmeans"
    };
    println!(
        "{{\"lib\": \"cuarray\", \"case\": \"{case}\", \"kind\": \"wall\", \"us\": {:.1}}}",
        secs * 1e6
    );
    Ok(ok)
}
