//! Property test of the shape layer against a NumPy-semantics model written in Rust
//! (`tests/support/view_model.rs`): random chains of reshape, permute, transpose, slice
//! (any bounds and steps, negative and extreme included), broadcast_to, squeeze and
//! expand_dims must give NumPy's shapes, strides and element mapping, reject what NumPy
//! rejects (and shapes whose size overflows), and never reach outside their buffer.
//! The same checker drives the fuzz target in `fuzz/`.

#[path = "support/view_model.rs"]
mod view_model;

use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, ..ProptestConfig::default() })]

    #[test]
    fn view_chains_match_numpy(data in proptest::collection::vec(any::<u8>(), 0..400)) {
        view_model::run_bytes(&data);
    }
}

/// The corpus of the fuzz target replays here, so CI checks every input it kept.
#[test]
fn fuzz_corpus_replays() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/views");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return;
    };
    for e in entries.flatten() {
        let data = std::fs::read(e.path()).unwrap_or_default();
        view_model::run_bytes(&data);
    }
}

/// Chains that once escaped their buffer or wrapped a size.
#[test]
fn known_hostile_chains() {
    use cuarray::shape::{Layout, SliceElem};
    use view_model::{Model, Op};
    let l = Layout::contiguous(&[16]);
    let m = Model::contiguous(&[16]);
    let wrap = Op::Reshape(vec![(1 << 60) + 1, 16]);
    assert!(m.apply(&wrap).is_none());
    assert!(Layout::infer_shape(l.size(), &[(1 << 60) + 1, 16]).is_err());
    let one = Op::Slice(vec![SliceElem::Range {
        start: None,
        end: None,
        step: isize::MIN,
    }]);
    let v = l
        .slice(&[SliceElem::Range {
            start: None,
            end: None,
            step: isize::MIN,
        }])
        .unwrap();
    assert_eq!(
        v.iter_offsets().collect::<Vec<_>>(),
        m.apply(&one).unwrap().pos
    );
}
