//! cuarray's device test binary (`cargo test --test gpu`), in two tiers:
//!
//! - `nvrtc/...`: every kernel the library generates compiles with NVRTC (needs libnvrtc
//!   only, no GPU);
//! - everything else: results computed on the GPU against host references (needs a GPU).
//!
//! Without a GPU the GPU trials are listed as ignored (and the NVRTC trials too when
//! libnvrtc is missing); with `CUARRAY_REQUIRE_GPU=1` they fail instead.
//!
//! Trial names are `module/op/dtype/layout`, so `cargo test --test gpu -- add` or
//! `-- /bf16/` select subsets.

mod advanced_indexing;
mod arith;
mod casts;
mod catalogue;
mod common;
mod complex;
mod copies;
mod creation;
mod cupy_kernels;
mod device;
#[path = "../support/dists.rs"]
mod dists;
mod einsum;
mod ergonomics;
mod fft;
mod files;
#[path = "../support/first_programs.rs"]
mod first_programs;
mod fusion;
mod hardening;
mod index_helpers;
mod indexing;
mod interop;
mod large;
mod linalg;
mod linalg_complex;
mod linalg_eig;
mod linalg_more;
mod linalg_solver;
mod manipulation;
mod memory;
mod multi;
mod ndimage;
mod ndimage_interp;
mod ndimage_measure;
#[path = "../support/numpy.rs"]
mod numpy;
mod nvrtc_tier;
mod ops;
mod random;
mod random_dist;
mod reduce;
#[path = "../support/rng.rs"]
mod rng;
mod selfcheck;
mod sets;
mod signal;
mod signal_spectra;
mod sorting;
mod sparse;
mod sparse_direct;
mod sparse_ops;
mod sparse_solvers;
mod special;
#[path = "../support/specs.rs"]
mod specs;
mod statistics;
#[path = "../support/stats.rs"]
mod stats;
mod stats_binning;
mod streams;
mod transfer;
mod user;

use libtest_mimic::{Arguments, Trial};

fn main() {
    let args = Arguments::from_args();
    let gpu = common::GPU.get_or_init(cuarray::testing::gpu);
    if let Err(reason) = gpu {
        if cuarray::testing::gpu_required() {
            eprintln!("gpu tests FAIL (CUARRAY_REQUIRE_GPU=1): {reason}");
        } else {
            eprintln!("gpu tests skipped: {reason}");
        }
    }
    let mut trials: Vec<Trial> = Vec::new();
    selfcheck::trials(&mut trials);
    linalg_more::trials(&mut trials);
    linalg_eig::trials(&mut trials);
    linalg_complex::trials(&mut trials);
    einsum::trials(&mut trials);
    advanced_indexing::trials(&mut trials);
    index_helpers::trials(&mut trials);
    manipulation::trials(&mut trials);
    nvrtc_tier::trials(&mut trials);
    transfer::trials(&mut trials);
    creation::trials(&mut trials);
    copies::trials(&mut trials);
    casts::trials(&mut trials);
    arith::trials(&mut trials);
    catalogue::trials(&mut trials);
    complex::trials(&mut trials);
    ops::trials(&mut trials);
    large::trials(&mut trials);
    device::trials(&mut trials);
    reduce::trials(&mut trials);
    linalg::trials(&mut trials);
    linalg_solver::trials(&mut trials);
    memory::trials(&mut trials);
    streams::trials(&mut trials);
    hardening::trials(&mut trials);
    random::trials(&mut trials);
    random_dist::trials(&mut trials);
    ergonomics::trials(&mut trials);
    cupy_kernels::trials(&mut trials);
    user::trials(&mut trials);
    fft::trials(&mut trials);
    files::trials(&mut trials);
    fusion::trials(&mut trials);
    special::trials(&mut trials);
    statistics::trials(&mut trials);
    stats_binning::trials(&mut trials);
    ndimage::trials(&mut trials);
    ndimage_measure::trials(&mut trials);
    ndimage_interp::trials(&mut trials);
    signal::trials(&mut trials);
    signal_spectra::trials(&mut trials);
    sorting::trials(&mut trials);
    sparse::trials(&mut trials);
    sparse_solvers::trials(&mut trials);
    sparse_direct::trials(&mut trials);
    sparse_ops::trials(&mut trials);
    sets::trials(&mut trials);
    indexing::trials(&mut trials);
    multi::trials(&mut trials);
    interop::trials(&mut trials);
    nvrtc_hint(&mut trials);
    libtest_mimic::run(&args, trials).exit();
}

/// Without libnvrtc (and without `CUARRAY_REQUIRE_GPU=1`), the NVRTC tier's trials are left
/// out and one line says how to run them, instead of one "ignored" line per kernel.
fn nvrtc_hint(trials: &mut Vec<Trial>) {
    if cuarray::testing::nvrtc_available() || cuarray::testing::gpu_required() {
        return;
    }
    let before = trials.len();
    trials.retain(|t| !t.name().starts_with("nvrtc/"));
    eprintln!(
        "NVRTC tier skipped ({} kernel compiles): libnvrtc.so.13 not found. To run it without a GPU: \
         `pip install --target DIR nvidia-cuda-nvrtc` and \
         `LD_LIBRARY_PATH=DIR/nvidia/cu13/lib cargo test`",
        before - trials.len()
    );
}
