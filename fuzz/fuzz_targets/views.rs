//! Fuzz target for the shape layer: the input bytes decode into a base shape and a chain
//! of views (reshape, permute, transpose, slice with any bounds and steps, broadcast_to,
//! squeeze, expand_dims, hostile extents included). Every step is checked against a
//! NumPy-semantics model; in particular every reachable element offset stays inside the
//! buffer, and shapes whose size overflows are rejected.
#![no_main]

#[path = "../../tests/support/view_model.rs"]
#[allow(dead_code)]
mod view_model;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    view_model::run_bytes(data);
});
