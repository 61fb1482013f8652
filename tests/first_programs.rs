//! The first programs a NumPy user writes (tests/support/first_programs.rs): they compile
//! here on any machine, and run when a GPU is present (the GPU tier runs them too, as
//! `first_programs/...`).

#[path = "support/first_programs.rs"]
mod first_programs;

#[test]
fn error_debug_is_readable() {
    first_programs::error_debug_is_readable().unwrap();
}

#[test]
fn first_programs_on_a_gpu() {
    let dev = match cuarray::testing::gpu() {
        Ok(dev) => dev,
        Err(reason) if !cuarray::testing::gpu_required() => {
            eprintln!("first programs compiled; not run: {reason}");
            return;
        }
        Err(reason) => panic!("no usable GPU (CUARRAY_REQUIRE_GPU=1): {reason}"),
    };
    let failed: Vec<String> = first_programs::PROGRAMS
        .iter()
        .filter_map(|(name, f)| f(&dev).err().map(|e| format!("{name}: {e}")))
        .collect();
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}
