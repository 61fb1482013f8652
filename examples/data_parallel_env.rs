//! The data-parallel training of `data_parallel` with one process per GPU: each process
//! joins the job through torchrun's `env://` variables (`nccl::init_from_env`: rank 0
//! serves the NCCL id on `MASTER_PORT`), trains on its shard of the samples, and checks
//! every step's loss against the same training of all samples on its own GPU. At the
//! end rank 0 gathers every rank's weights (`Comm::gather`) to check that they agree,
//! and a barrier lets all ranks finish together.
//!
//! Two GPUs of one host, two shells (or `&`), with the same port:
//!
//! ```sh
//! cargo build --release --example data_parallel_env
//! RANK=0 WORLD_SIZE=2 LOCAL_RANK=0 MASTER_ADDR=127.0.0.1 MASTER_PORT=29500 target/release/examples/data_parallel_env &
//! RANK=1 WORLD_SIZE=2 LOCAL_RANK=1 MASTER_ADDR=127.0.0.1 MASTER_PORT=29500 target/release/examples/data_parallel_env
//! ```
//!
//! or `torchrun --nproc-per-node=2 --no-python target/release/examples/data_parallel_env`.
//! Several hosts: `MASTER_ADDR` is rank 0's host, `RANK` counts across hosts and
//! `LOCAL_RANK` within each. One process with `WORLD_SIZE=1` works too.

#[path = "support/linear_model.rs"]
mod linear_model;

use cuarray::nccl::{self, ReduceOp};
use cuarray::Result;
use linear_model::{make_data, shard_rows, Shard, FEATURES, SAMPLES, STEPS};

fn main() {
    if let Err(e) = run() {
        eprintln!("data_parallel_env: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<()> {
    // Returns once every rank has joined.
    let comm = nccl::init_from_env()?;
    let (rank, world, dev) = (comm.rank(), comm.world_size(), comm.device());
    if rank == 0 {
        println!("NCCL {:?}, {world} rank(s)", nccl::version()?);
    }
    let (x, y) = make_data();
    let mut shard = Shard::new(dev, (&x, &y), shard_rows(rank, world))?;
    // The reference: every sample on this rank's GPU.
    let mut single = Shard::new(dev, (&x, &y), 0..SAMPLES)?;

    if rank == 0 {
        println!("step  loss ({world} rank(s))  loss (1 GPU)");
    }
    for step in 0..STEPS {
        let (mut g, mut l) = shard.local()?;
        // One group: both sums go to NCCL as one launch.
        nccl::group(|| {
            comm.all_reduce(&mut g, ReduceOp::Sum)?;
            comm.all_reduce(&mut l, ReduceOp::Sum)
        })?;
        shard.update(&g)?;
        let (g1, l1) = single.local()?;
        single.update(&g1)?;

        let loss = l.to_scalar()? / SAMPLES as f32;
        let loss1 = l1.to_scalar()? / SAMPLES as f32;
        if rank == 0 {
            println!("{step:4}  {loss:19.8}  {loss1:12.8}");
        }
        let rel = ((loss - loss1) / loss1).abs();
        assert!(
            rel < 1e-4,
            "rank {rank}, step {step}: losses differ by {rel:e} (relative)"
        );
    }
    // Every rank holds the same weights, equal to the single-GPU ones up to rounding.
    if let Some(all) = comm.gather(&shard.w, 0)? {
        let all = all.to_host()?;
        let w1 = single.w.to_host()?;
        for (r, w) in all.chunks(FEATURES).enumerate() {
            let diff = w
                .iter()
                .zip(&w1)
                .map(|(a, b)| (a - b).abs())
                .fold(0.0, f32::max);
            assert!(diff < 1e-4, "rank {r}: weights differ by {diff}");
        }
        println!("the {world}-rank run matches the 1-GPU run");
    }
    comm.barrier()?;
    Ok(())
}
