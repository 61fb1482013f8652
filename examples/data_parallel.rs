//! Data-parallel training of a linear model (least squares by gradient descent) over
//! every local GPU, checked against the same training on one GPU.
//!
//! The samples are split into one shard per GPU. At each step every GPU computes the
//! gradient sum and the squared-error sum of its shard; one NCCL group all-reduces them
//! (a sum, so shards of unequal size weigh right), and every GPU applies the same update
//! to its copy of the weights. The loss of each step must match the single-GPU run to
//! f32 rounding. Any number of GPUs works, one included.
//!
//! `cargo run --release --example data_parallel` (NCCL from PyTorch's `nvidia-nccl-cu13`
//! wheel, the distribution's `libnccl2`, or a folder in `CUARRAY_CUDA_LIB_DIR`; see the
//! README for several hosts; `data_parallel_env` is the same training with one process
//! per GPU).

#[path = "support/linear_model.rs"]
mod linear_model;

use cuarray::nccl::{self, Comm, ReduceOp};
use cuarray::{Device, Result};
use linear_model::{make_data, shard_rows, Shard, SAMPLES, STEPS};

fn main() {
    if let Err(e) = run() {
        eprintln!("data_parallel: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<()> {
    let n_gpus = cuarray::device_count()?;
    let devices = (0..n_gpus).map(Device::new).collect::<Result<Vec<_>>>()?;
    println!("NCCL {:?}, {n_gpus} GPU(s)", nccl::version()?);
    let (x, y) = make_data();

    // Shards of contiguous rows, as even as the sample count allows.
    let mut shards = devices
        .iter()
        .enumerate()
        .map(|(i, dev)| Shard::new(dev, (&x, &y), shard_rows(i, n_gpus)))
        .collect::<Result<Vec<_>>>()?;
    let comms = Comm::new_group(&devices)?;
    // The reference: every sample on GPU 0.
    let mut single = Shard::new(&devices[0], (&x, &y), 0..SAMPLES)?;

    println!("step  loss ({n_gpus} GPU(s))  loss (1 GPU)");
    for step in 0..STEPS {
        let (mut grads, mut losses): (Vec<_>, Vec<_>) = shards
            .iter()
            .map(Shard::local)
            .collect::<Result<Vec<_>>>()?
            .into_iter()
            .unzip();
        // One thread drives every GPU: the collectives go in one group.
        nccl::group(|| {
            for ((comm, g), l) in comms.iter().zip(&mut grads).zip(&mut losses) {
                comm.all_reduce(g, ReduceOp::Sum)?;
                comm.all_reduce(l, ReduceOp::Sum)?;
            }
            Ok(())
        })?;
        for (shard, g) in shards.iter_mut().zip(&grads) {
            shard.update(g)?;
        }
        let (g1, l1) = single.local()?;
        single.update(&g1)?;

        let loss = losses[0].to_scalar()? / SAMPLES as f32;
        let loss1 = l1.to_scalar()? / SAMPLES as f32;
        println!("{step:4}  {loss:18.8}  {loss1:12.8}");
        let rel = ((loss - loss1) / loss1).abs();
        assert!(
            rel < 1e-4,
            "step {step}: losses differ by {rel:e} (relative)"
        );
    }
    // Every GPU holds the same weights, equal to the single-GPU ones up to rounding.
    let w1 = single.w.to_host()?;
    for (i, shard) in shards.iter().enumerate() {
        let w = shard.w.to_host()?;
        let diff = w
            .iter()
            .zip(&w1)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f32::max);
        assert!(diff < 1e-4, "GPU {i}: weights differ by {diff}");
    }
    println!("the {n_gpus}-GPU run matches the 1-GPU run");
    Ok(())
}
