//! Host-only tests of cuarray's public shape logic, kernel planning, code generation and
//! disk cache, plus the "errors, not panics" contract on a machine without a GPU. Nothing
//! here needs CUDA; everything runs on any machine.

use cuarray::common_specs;
use cuarray::shape::{broadcast_shapes, collapse, normalize_axis, Layout, SliceElem};
use cuarray::testing::kernels::family::elementwise::{ElementwiseSpec, Variant};
use cuarray::testing::kernels::{cache_key, DiskCache, IndexWidth, Render, TypeList, MAX_DIMS};
use cuarray::testing::ops::elementwise::{plan, spec_for};
use cuarray::BinaryOp;
use cuarray::{s, DType, Element, Error};
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

// ---- helpers: a PRNG and references written independently of cuarray --------------------

#[path = "support/numpy.rs"]
mod numpy;
use numpy::{indices, np_broadcast, py_slice};

#[path = "support/rng.rs"]
mod rng;
use rng::Rng;

/// Element offsets of a (shape, strides, offset) triple in row-major order, computed
/// from the definition.
fn offsets_of(shape: &[usize], strides: &[isize], offset: usize) -> Vec<usize> {
    indices(shape)
        .iter()
        .map(|i| {
            (offset as isize
                + i.iter()
                    .zip(strides)
                    .map(|(&k, &s)| k as isize * s)
                    .sum::<isize>()) as usize
        })
        .collect()
}

fn offsets(l: &Layout) -> Vec<usize> {
    offsets_of(l.shape(), l.strides(), l.offset())
}

/// A layout as (shape, offsets in row-major order): the reference model.
#[derive(Debug, Clone, PartialEq)]
struct Grid {
    shape: Vec<usize>,
    offs: Vec<usize>,
}

impl Grid {
    fn of(l: &Layout) -> Grid {
        Grid {
            shape: l.shape().to_vec(),
            offs: offsets(l),
        }
    }
    fn at(&self, idx: &[usize]) -> usize {
        let mut f = 0;
        for (&i, &d) in idx.iter().zip(&self.shape) {
            f = f * d + i;
        }
        self.offs[f]
    }
    /// Applies a slice spec; `None` when Python would raise.
    fn slice(&self, spec: &[SliceElem]) -> Option<Grid> {
        let consumed = spec
            .iter()
            .filter(|e| !matches!(e, SliceElem::NewAxis))
            .count();
        if consumed > self.shape.len() {
            return None;
        }
        // Per source axis: the chosen indices, and whether the axis stays.
        let mut lists: Vec<(Vec<usize>, bool)> = Vec::new();
        let mut new_axes_before: Vec<usize> = Vec::new(); // output position of each NewAxis
        let mut axis = 0;
        let mut out_pos = 0;
        for el in spec {
            match *el {
                SliceElem::NewAxis => {
                    new_axes_before.push(out_pos);
                    out_pos += 1;
                }
                SliceElem::Index(i) => {
                    let len = self.shape[axis] as isize;
                    let j = if i < 0 { i + len } else { i };
                    if j < 0 || j >= len {
                        return None;
                    }
                    lists.push((vec![j as usize], false));
                    axis += 1;
                }
                SliceElem::Range { start, end, step } => {
                    if step == 0 {
                        return None;
                    }
                    lists.push((py_slice(start, end, step, self.shape[axis]), true));
                    axis += 1;
                    out_pos += 1;
                }
            }
        }
        for a in axis..self.shape.len() {
            lists.push(((0..self.shape[a]).collect(), true));
        }
        let kept_shape: Vec<usize> = lists
            .iter()
            .filter(|(_, keep)| *keep)
            .map(|(l, _)| l.len())
            .collect();
        let mut offs = Vec::new();
        for j in indices(&kept_shape) {
            let mut it = j.iter();
            let src: Vec<usize> = lists
                .iter()
                .map(|(l, keep)| if *keep { l[*it.next().unwrap()] } else { l[0] })
                .collect();
            offs.push(self.at(&src));
        }
        let mut shape = kept_shape;
        for p in new_axes_before {
            shape.insert(p, 1);
        }
        Some(Grid { shape, offs })
    }
    fn permute(&self, perm: &[usize]) -> Grid {
        let shape: Vec<usize> = perm.iter().map(|&p| self.shape[p]).collect();
        let offs = indices(&shape)
            .iter()
            .map(|j| {
                let mut src = vec![0; perm.len()];
                for (k, &p) in perm.iter().enumerate() {
                    src[p] = j[k];
                }
                self.at(&src)
            })
            .collect();
        Grid { shape, offs }
    }
    fn broadcast(&self, shape: &[usize]) -> Grid {
        let lead = shape.len() - self.shape.len();
        let offs = indices(shape)
            .iter()
            .map(|j| {
                let src: Vec<usize> = self
                    .shape
                    .iter()
                    .enumerate()
                    .map(|(k, &d)| if d == 1 { 0 } else { j[lead + k] })
                    .collect();
                self.at(&src)
            })
            .collect();
        Grid {
            shape: shape.to_vec(),
            offs,
        }
    }
}

/// A random layout over a buffer: contiguous, then maybe permuted and sliced.
fn random_layout(rng: &mut Rng, max_ndim: usize) -> Layout {
    let ndim = rng.below(max_ndim + 1);
    let shape: Vec<usize> = (0..ndim)
        .map(|_| [1, 1, 2, 3, 4, 5, 6][rng.below(7)])
        .collect();
    let mut l = Layout::contiguous(&shape);
    if rng.bit() && ndim > 1 {
        let mut perm: Vec<usize> = (0..ndim).collect();
        for i in (1..ndim).rev() {
            perm.swap(i, rng.below(i + 1));
        }
        l = l.permute(&perm).unwrap();
    }
    if rng.bit() {
        let spec: Vec<SliceElem> = l
            .shape()
            .iter()
            .map(|&d| {
                let step = [1, 1, 2, -1, -2, 3][rng.below(6)];
                let d = d as isize;
                SliceElem::Range {
                    start: rng.bit().then(|| rng.isize(-d - 1, d + 1)),
                    end: rng.bit().then(|| rng.isize(-d - 1, d + 1)),
                    step,
                }
            })
            .collect();
        l = l.slice(&spec).unwrap();
    }
    l
}

// ---- broadcast_shapes, normalize_axis -------------------------------------------------

#[test]
fn broadcast_shapes_numpy_rules() {
    assert_eq!(broadcast_shapes("add", &[3, 1], &[4]).unwrap(), vec![3, 4]);
    assert_eq!(
        broadcast_shapes("add", &[5, 1, 7], &[6, 1]).unwrap(),
        vec![5, 6, 7]
    );
    assert_eq!(
        broadcast_shapes("add", &[0, 3], &[1, 3]).unwrap(),
        vec![0, 3]
    );
    assert_eq!(broadcast_shapes("add", &[], &[4]).unwrap(), vec![4]);
    assert_eq!(
        broadcast_shapes("add", &[], &[]).unwrap(),
        Vec::<usize>::new()
    );
    assert_eq!(broadcast_shapes("add", &[1], &[0]).unwrap(), vec![0]);
    match broadcast_shapes("mul", &[2, 3], &[3, 2]) {
        Err(e @ Error::Broadcast { .. }) => {
            let msg = e.to_string();
            assert!(
                msg.contains("mul") && msg.contains("[2, 3]") && msg.contains("[3, 2]"),
                "{msg}"
            );
            match e {
                Error::Broadcast { op, lhs, rhs } => {
                    assert_eq!((op, lhs, rhs), ("mul", vec![2, 3], vec![3, 2]));
                }
                _ => unreachable!(),
            }
        }
        other => panic!("expected a Broadcast error, got {other:?}"),
    }
    // Against the reference on random shapes.
    let mut rng = Rng::new(1);
    for _ in 0..2000 {
        let a: Vec<usize> = (0..rng.below(5)).map(|_| rng.below(4)).collect();
        let b: Vec<usize> = (0..rng.below(5)).map(|_| rng.below(4)).collect();
        let got = broadcast_shapes("t", &a, &b).ok();
        assert_eq!(got, np_broadcast(&a, &b), "{a:?} with {b:?}");
        // Symmetric.
        assert_eq!(
            got,
            broadcast_shapes("t", &b, &a).ok(),
            "{a:?} with {b:?} reversed"
        );
    }
}

#[test]
fn normalize_axis_range() {
    for ndim in 0..5usize {
        let n = ndim as isize;
        for axis in -n - 2..n + 2 {
            match normalize_axis("op", axis, ndim) {
                Ok(a) => {
                    assert!(axis >= -n && axis < n, "axis {axis} of {ndim} accepted");
                    assert_eq!(a as isize, if axis < 0 { axis + n } else { axis });
                }
                Err(Error::AxisOutOfRange {
                    op,
                    axis: a,
                    ndim: d,
                }) => {
                    assert!(axis < -n || axis >= n, "axis {axis} of {ndim} rejected");
                    assert_eq!((op, a, d), ("op", axis, ndim));
                }
                Err(e) => panic!("unexpected error {e:?}"),
            }
        }
    }
    let msg = normalize_axis("squeeze", 3, 2).unwrap_err().to_string();
    assert!(
        msg.contains("squeeze") && msg.contains('3') && msg.contains('2'),
        "{msg}"
    );
}

// ---- the s! macro and Layout::slice ---------------------------------------------------

fn idx1(spec: &[SliceElem], n: usize) -> Vec<usize> {
    Layout::contiguous(&[n])
        .slice(spec)
        .unwrap()
        .iter_offsets()
        .collect()
}

#[test]
fn s_macro_builds_python_slices() {
    assert_eq!(
        s![1..3],
        [SliceElem::Range {
            start: Some(1),
            end: Some(3),
            step: 1
        }]
    );
    assert_eq!(
        s![..],
        [SliceElem::Range {
            start: None,
            end: None,
            step: 1
        }]
    );
    assert_eq!(
        s![..;-1],
        [SliceElem::Range {
            start: None,
            end: None,
            step: -1
        }]
    );
    assert_eq!(
        s![1..;-2],
        [SliceElem::Range {
            start: Some(1),
            end: None,
            step: -2
        }]
    );
    assert_eq!(
        s![..4],
        [SliceElem::Range {
            start: None,
            end: Some(4),
            step: 1
        }]
    );
    assert_eq!(
        s![2..=4],
        [SliceElem::Range {
            start: Some(2),
            end: Some(5),
            step: 1
        }]
    );
    assert_eq!(
        s![..=4],
        [SliceElem::Range {
            start: None,
            end: Some(5),
            step: 1
        }]
    );
    assert_eq!(s![-1], [SliceElem::Index(-1)]);
    let k = 3usize;
    let step = 2i64;
    assert_eq!(
        s![k..k + 2;step, 7i64],
        [
            SliceElem::Range {
                start: Some(3),
                end: Some(5),
                step: 2
            },
            SliceElem::Index(7)
        ]
    );
    assert_eq!(s![1..3, .., 0..;2, -1, ..;-1,].len(), 5);
    // An index's step is ignored (it is not a range).
    assert_eq!(s![4;2], [SliceElem::Index(4)]);
}

#[test]
fn slice_1d_python_semantics() {
    let n = 10;
    assert_eq!(idx1(&s![2..5], n), vec![2, 3, 4]);
    assert_eq!(idx1(&s![..;3], n), vec![0, 3, 6, 9]);
    assert_eq!(idx1(&s![..;-1], n), (0..10).rev().collect::<Vec<_>>());
    assert_eq!(idx1(&s![5..1;-1], n), vec![5, 4, 3, 2]);
    assert_eq!(idx1(&s![1..5;-1], n), Vec::<usize>::new());
    assert_eq!(idx1(&s![-3..], n), vec![7, 8, 9]);
    assert_eq!(idx1(&s![-3..-1], n), vec![7, 8]);
    assert_eq!(idx1(&s![..-8], n), vec![0, 1]);
    assert_eq!(idx1(&s![-100..100], n), (0..10).collect::<Vec<_>>());
    assert_eq!(idx1(&s![100..;-1], n), (0..10).rev().collect::<Vec<_>>());
    assert_eq!(idx1(&s![-1..-100;-4], n), vec![9, 5, 1]);
    assert_eq!(idx1(&s![..;-3], n), vec![9, 6, 3, 0]);
    assert_eq!(idx1(&s![8..2;-2], n), vec![8, 6, 4]);
    assert_eq!(idx1(&s![3..3], n), Vec::<usize>::new());
    assert_eq!(idx1(&s![20..], n), Vec::<usize>::new());
    // Inclusive ranges.
    assert_eq!(idx1(&s![1..=3], n), vec![1, 2, 3]);
    assert_eq!(idx1(&s![..=-1], n), (0..10).collect::<Vec<_>>());
    assert_eq!(idx1(&s![..=-2], n), (0..9).collect::<Vec<_>>());
    assert_eq!(idx1(&s![-3..=-1], n), vec![7, 8, 9]);
    assert_eq!(idx1(&s![0..=0], n), vec![0]);
    assert_eq!(idx1(&s![2..=8;3], n), vec![2, 5, 8]);
    // Indices remove the axis.
    let l = Layout::contiguous(&[n]);
    let e = l.slice(&s![-1]).unwrap();
    assert_eq!((e.shape(), e.offset()), (&[][..], 9));
    let e = l.slice(&s![0]).unwrap();
    assert_eq!((e.shape(), e.offset()), (&[][..], 0));
    // Errors, not panics.
    for bad in [
        s![10].to_vec(),
        s![-11].to_vec(),
        s![..;0].to_vec(),
        s![1, 2].to_vec(),
    ] {
        match l.slice(&bad) {
            Err(Error::InvalidArgument { op, msg }) => assert!(op == "slice" && !msg.is_empty()),
            other => panic!("{bad:?}: expected InvalidArgument, got {other:?}"),
        }
    }
    // Empty axes: ranges give empty views, indices are errors.
    let z = Layout::contiguous(&[0]);
    assert_eq!(z.slice(&s![..;-1]).unwrap().shape(), &[0]);
    assert_eq!(z.slice(&s![1..;2]).unwrap().shape(), &[0]);
    assert!(z.slice(&s![0]).is_err());
    assert!(z.slice(&s![-1]).is_err());
}

#[test]
fn slice_fuzz_against_python() {
    let mut rng = Rng::new(2);
    for _ in 0..3000 {
        let n = rng.below(12);
        let ni = n as isize;
        let start = rng.bit().then(|| rng.isize(-ni - 3, ni + 3));
        let end = rng.bit().then(|| rng.isize(-ni - 3, ni + 3));
        let step = [1, 2, 3, 5, -1, -2, -3, -7][rng.below(8)];
        let spec = [SliceElem::Range { start, end, step }];
        let l = Layout::contiguous(&[n]).slice(&spec).unwrap();
        let want = py_slice(start, end, step, n);
        assert_eq!(l.shape(), &[want.len()], "{spec:?} over {n}");
        assert_eq!(offsets(&l), want, "{spec:?} over {n}");
        assert_eq!(
            l.iter_offsets().collect::<Vec<_>>(),
            want,
            "iter_offsets of {spec:?} over {n}"
        );
    }
}

#[test]
fn slice_multi_axis_fuzz_on_views() {
    let mut rng = Rng::new(3);
    for _ in 0..1500 {
        let base = random_layout(&mut rng, 4);
        let g = Grid::of(&base);
        let mut spec: Vec<SliceElem> = Vec::new();
        let nspec = rng.below(base.ndim() + 2);
        for _ in 0..nspec {
            spec.push(match rng.below(5) {
                0 => SliceElem::Index(rng.isize(-7, 6)),
                1 => SliceElem::NewAxis,
                _ => SliceElem::Range {
                    start: rng.bit().then(|| rng.isize(-7, 7)),
                    end: rng.bit().then(|| rng.isize(-7, 7)),
                    step: [1, 2, -1, -2, 3, 0][rng.below(6)],
                },
            });
        }
        let got = base.slice(&spec);
        match (got, g.slice(&spec)) {
            (Ok(l), Some(want)) => {
                assert_eq!(l.shape(), want.shape.as_slice(), "{base:?} {spec:?}");
                if want.offs.is_empty() {
                    continue;
                }
                assert_eq!(offsets(&l), want.offs, "{base:?} {spec:?}");
                let (lo, hi) = l.span();
                assert_eq!(lo, *want.offs.iter().min().unwrap(), "span of {l:?}");
                assert_eq!(hi, *want.offs.iter().max().unwrap() + 1, "span of {l:?}");
            }
            (Err(Error::InvalidArgument { .. }), None) => {}
            (got, want) => {
                panic!("{base:?} {spec:?}: cuarray gave {got:?}, the reference {want:?}")
            }
        }
    }
}

#[test]
fn slice_multi_axis_cases() {
    let l = Layout::contiguous(&[7, 9]);
    let v = l.slice(&s![..;-1, 1..;-2]).unwrap();
    let want = Grid::of(&l).slice(&s![..;-1, 1..;-2]).unwrap();
    assert_eq!(v.shape(), &[7, 1]);
    assert_eq!(offsets(&v), want.offs);
    // 9 columns: 1..;-2 walks back from index 1: just [1].
    assert_eq!(
        offsets(&v),
        (0..7).rev().map(|i| i * 9 + 1).collect::<Vec<_>>()
    );
    let v = l.slice(&s![..;-1, -1..;-2]).unwrap();
    assert_eq!(v.shape(), &[7, 5]);
    assert_eq!(v.strides(), &[-9, -2]);
    // An index in the middle removes that axis only.
    let l3 = Layout::contiguous(&[2, 3, 4]);
    let v = l3.slice(&s![.., 1]).unwrap();
    assert_eq!(v.shape(), &[2, 4]);
    assert_eq!(offsets(&v), vec![4, 5, 6, 7, 16, 17, 18, 19]);
    let v = l3.slice(&s![-1, -1, -1]).unwrap();
    assert_eq!((v.shape(), v.offset()), (&[][..], 23));
    let v = l3
        .slice(&[SliceElem::NewAxis, SliceElem::Index(1), SliceElem::NewAxis])
        .unwrap();
    assert_eq!(v.shape(), &[1, 1, 3, 4]);
    assert_eq!(v.offset(), 12);
}

// ---- Layout ---------------------------------------------------------------------------

#[test]
fn layout_basics() {
    let l = Layout::contiguous(&[2, 3, 4]);
    assert_eq!(l.strides(), &[12, 4, 1]);
    assert_eq!((l.ndim(), l.size(), l.offset()), (3, 24, 0));
    assert!(l.is_c_contiguous() && !l.is_f_contiguous());
    let t = l.t();
    assert_eq!((t.shape(), t.strides()), (&[4, 3, 2][..], &[1, 4, 12][..]));
    assert!(t.is_f_contiguous() && !t.is_c_contiguous());
    assert_eq!(t.index_of(&[3, 2, 1]), l.index_of(&[1, 2, 3]));
    assert_eq!(l.index_of(&[1, 2, 3]), 23);
    assert_eq!(offsets(&t), Grid::of(&l).permute(&[2, 1, 0]).offs);
    assert_eq!(l.span(), (0, 24));
    let s0 = Layout::contiguous(&[]);
    assert_eq!((s0.size(), s0.ndim()), (1, 0));
    assert!(s0.is_c_contiguous() && s0.is_f_contiguous());
    assert_eq!(s0.iter_offsets().collect::<Vec<_>>(), vec![0]);
    let e = Layout::contiguous(&[3, 0, 2]);
    assert_eq!(e.size(), 0);
    assert_eq!(e.iter_offsets().count(), 0);
    assert!(e.is_c_contiguous());
    // Extents of 1 carry any stride and stay contiguous.
    assert!(Layout::from_parts(vec![1, 3], vec![99, 1], 0).is_c_contiguous());
    assert!(!Layout::from_parts(vec![3], vec![-1], 2).is_c_contiguous());
    assert_eq!(Layout::from_parts(vec![3], vec![-1], 2).span(), (0, 3));
    assert_eq!(Layout::from_parts(vec![4], vec![0], 5).span(), (5, 6));
}

#[test]
fn layout_iter_offsets_matches_definition() {
    let mut rng = Rng::new(4);
    for _ in 0..1000 {
        let l = random_layout(&mut rng, 5);
        assert_eq!(l.iter_offsets().collect::<Vec<_>>(), offsets(&l), "{l:?}");
        for idx in indices(l.shape()).iter().take(50) {
            let direct = (l.offset() as isize
                + idx
                    .iter()
                    .zip(l.strides())
                    .map(|(&i, &s)| i as isize * s)
                    .sum::<isize>()) as usize;
            assert_eq!(l.index_of(idx), direct, "{l:?} at {idx:?}");
        }
    }
}

#[test]
fn layout_permute_squeeze_expand() {
    let l = Layout::contiguous(&[2, 1, 3]);
    let p = l.permute(&[2, 0, 1]).unwrap();
    assert_eq!(p.shape(), &[3, 2, 1]);
    assert_eq!(offsets(&p), Grid::of(&l).permute(&[2, 0, 1]).offs);
    for bad in [&[0usize, 0, 1][..], &[0, 1], &[0, 1, 3], &[0, 1, 2, 3]] {
        assert!(
            matches!(l.permute(bad), Err(Error::InvalidArgument { .. })),
            "{bad:?}"
        );
    }
    assert_eq!(l.squeeze().shape(), &[2, 3]);
    assert_eq!(offsets(&l.squeeze()), offsets(&l));
    assert_eq!(l.squeeze_axis(1).unwrap().shape(), &[2, 3]);
    assert_eq!(l.squeeze_axis(-2).unwrap().shape(), &[2, 3]);
    assert!(matches!(
        l.squeeze_axis(0),
        Err(Error::InvalidArgument { .. })
    ));
    assert!(matches!(
        l.squeeze_axis(3),
        Err(Error::AxisOutOfRange { .. })
    ));
    assert_eq!(l.expand_dims(-1).unwrap().shape(), &[2, 1, 3, 1]);
    assert_eq!(l.expand_dims(0).unwrap().shape(), &[1, 2, 1, 3]);
    assert_eq!(l.expand_dims(3).unwrap().shape(), &[2, 1, 3, 1]);
    assert_eq!(l.expand_dims(-4).unwrap().shape(), &[1, 2, 1, 3]);
    assert!(matches!(
        l.expand_dims(4),
        Err(Error::AxisOutOfRange { .. })
    ));
    assert!(matches!(
        l.expand_dims(-5),
        Err(Error::AxisOutOfRange { .. })
    ));
    assert_eq!(offsets(&l.expand_dims(1).unwrap()), offsets(&l));
    let i = Layout::contiguous(&[4, 5]).index_axis(1, 2);
    assert_eq!((i.shape(), offsets(&i)), (&[4][..], vec![2, 7, 12, 17]));
    // Squeeze everything: 0-d.
    let one = Layout::contiguous(&[1, 1]);
    assert_eq!(one.squeeze().shape(), &[] as &[usize]);
}

#[test]
fn broadcast_to_views_and_errors() {
    let l = Layout::contiguous(&[3, 1]);
    let b = l.broadcast_to(&[2, 3, 4]).unwrap();
    assert_eq!(b.strides(), &[0, 1, 0]);
    assert_eq!(offsets(&b), Grid::of(&l).broadcast(&[2, 3, 4]).offs);
    assert_eq!(l.broadcast_to(&[3, 0]).unwrap().size(), 0);
    for bad in [&[3usize, 2, 2][..], &[4, 1], &[1], &[]] {
        match l.broadcast_to(bad) {
            Err(e @ Error::Broadcast { .. }) => {
                let msg = e.to_string();
                let want = format!("{bad:?}");
                assert!(
                    msg.contains("[3, 1]") && msg.contains(&want) && msg.contains("broadcast_to"),
                    "{msg}"
                );
            }
            other => panic!("broadcast (3,1) to {bad:?}: {other:?}"),
        }
    }
    // Random views broadcast against the reference.
    let mut rng = Rng::new(5);
    for _ in 0..500 {
        let base = random_layout(&mut rng, 3);
        let mut target: Vec<usize> = (0..rng.below(2)).map(|_| rng.below(3)).collect();
        target.extend(
            base.shape()
                .iter()
                .map(|&d| if d == 1 { rng.below(4) } else { d }),
        );
        let b = base.broadcast_to(&target).unwrap();
        assert_eq!(b.shape(), target.as_slice());
        assert_eq!(
            offsets(&b),
            Grid::of(&base).broadcast(&target).offs,
            "{base:?} -> {target:?}"
        );
    }
}

// ---- reshape --------------------------------------------------------------------------

/// Whether some strided layout of `new_shape` walks exactly `offs` in row-major order:
/// if one exists, its strides are forced by the offsets of unit steps along each axis.
fn view_exists(offs: &[usize], new_shape: &[usize]) -> bool {
    if offs.is_empty() {
        return true;
    }
    let mut strides = vec![0isize; new_shape.len()];
    let mut step = 1usize;
    for k in (0..new_shape.len()).rev() {
        if new_shape[k] > 1 {
            strides[k] = offs[step] as isize - offs[0] as isize;
        }
        step *= new_shape[k];
    }
    offsets_of(new_shape, &strides, offs[0]) == offs
}

fn factorizations(n: usize, rng: &mut Rng) -> Vec<usize> {
    let mut out = Vec::new();
    let mut rest = n;
    while rest > 1 {
        let divs: Vec<usize> = (2..=rest).filter(|d| rest.is_multiple_of(*d)).collect();
        let d = divs[rng.below(divs.len())];
        out.push(d);
        rest /= d;
        if rng.below(4) == 0 {
            out.push(1);
        }
    }
    if rng.bit() {
        out.insert(rng.below(out.len() + 1), 1);
    }
    out
}

#[test]
fn reshape_view_known_cases() {
    let l = Layout::contiguous(&[4, 6]);
    let r = l.reshape_view(&[2, 2, 3, 2]).unwrap();
    assert_eq!(r.strides(), &[12, 6, 2, 1]);
    assert!(
        l.t().reshape_view(&[24]).is_none(),
        "flattening a transpose needs a copy"
    );
    let t = l.t();
    let r = t.reshape_view(&[3, 2, 4]).unwrap();
    assert_eq!(offsets(&r), offsets(&t));
    let r = t.reshape_view(&[1, 6, 1, 4, 1]).unwrap();
    assert_eq!(offsets(&r), offsets(&t));
    // Reversed rows: splitting works, merging does not.
    let rev = l.slice(&s![..;-1, ..]).unwrap();
    assert!(rev.reshape_view(&[8, 3]).is_none());
    assert_eq!(
        offsets(&rev.reshape_view(&[4, 2, 3]).unwrap()),
        offsets(&rev)
    );
    // Every other column is one regular walk: a view.
    let half = l.slice(&s![.., ..;2]).unwrap();
    assert_eq!(offsets(&half.reshape_view(&[12]).unwrap()), offsets(&half));
    // The first three columns: rows stay separate.
    let left = l.slice(&s![.., ..3]).unwrap();
    assert!(left.reshape_view(&[12]).is_none());
    assert_eq!(
        offsets(&left.reshape_view(&[2, 2, 3, 1]).unwrap()),
        offsets(&left)
    );
    // A reversed 1-D axis can be split.
    let r1 = Layout::contiguous(&[12]).slice(&s![..;-1]).unwrap();
    let v = r1.reshape_view(&[3, 4]).unwrap();
    assert_eq!(offsets(&v), offsets(&r1));
    // Broadcast axes: splitting keeps stride 0, merging with a real axis is impossible.
    let b = Layout::contiguous(&[4]).broadcast_to(&[3, 4]).unwrap();
    assert!(b.reshape_view(&[12]).is_none());
    assert_eq!(offsets(&b.reshape_view(&[3, 2, 2]).unwrap()), offsets(&b));
    // Empty layouts are always views.
    assert!(Layout::contiguous(&[0, 3]).t().reshape_view(&[0]).is_some());
    // Offsets are kept.
    let sub = l.slice(&s![1.., 2..]).unwrap();
    let v = sub.reshape_view(&[3, 2, 2]).unwrap();
    assert_eq!(v.offset(), sub.offset());
    assert_eq!(offsets(&v), offsets(&sub));
}

#[test]
fn reshape_view_fuzz_against_brute_force() {
    let mut rng = Rng::new(6);
    let (mut views, mut copies) = (0, 0);
    for _ in 0..3000 {
        let l = random_layout(&mut rng, 4);
        let offs = offsets(&l);
        let new_shape = factorizations(l.size(), &mut rng);
        if l.size() == 0 {
            continue;
        }
        let exists = view_exists(&offs, &new_shape);
        match l.reshape_view(&new_shape) {
            Some(v) => {
                views += 1;
                assert_eq!(v.shape(), new_shape.as_slice());
                assert_eq!(
                    offsets(&v),
                    offs,
                    "reshape_view of {l:?} to {new_shape:?} walks other elements"
                );
            }
            None => {
                copies += 1;
                assert!(
                    !exists,
                    "reshape_view of {l:?} to {new_shape:?} is None but a view exists"
                );
            }
        }
    }
    assert!(
        views > 100 && copies > 100,
        "fuzz coverage: {views} views, {copies} copies"
    );
}

#[test]
fn infer_shape_rules_and_errors() {
    assert_eq!(Layout::infer_shape(24, &[-1, 4]).unwrap(), vec![6, 4]);
    assert_eq!(Layout::infer_shape(24, &[2, -1, 3]).unwrap(), vec![2, 4, 3]);
    assert_eq!(Layout::infer_shape(24, &[24]).unwrap(), vec![24]);
    assert_eq!(Layout::infer_shape(1, &[]).unwrap(), Vec::<usize>::new());
    assert_eq!(Layout::infer_shape(1, &[1, -1, 1]).unwrap(), vec![1, 1, 1]);
    assert_eq!(Layout::infer_shape(0, &[-1]).unwrap(), vec![0]);
    assert_eq!(Layout::infer_shape(0, &[3, -1]).unwrap(), vec![3, 0]);
    assert_eq!(Layout::infer_shape(0, &[3, 0, 2]).unwrap(), vec![3, 0, 2]);
    match Layout::infer_shape(24, &[-1, -1]) {
        Err(Error::InvalidArgument { op, msg }) => {
            assert!(op == "reshape" && msg.contains("-1"), "{msg}")
        }
        other => panic!("two -1: {other:?}"),
    }
    match Layout::infer_shape(24, &[-2, 12]) {
        Err(Error::InvalidArgument { op, msg }) => {
            assert!(op == "reshape" && msg.contains("-2"), "{msg}")
        }
        other => panic!("-2: {other:?}"),
    }
    match Layout::infer_shape(24, &[-1, 5]) {
        Err(e @ Error::ShapeMismatch { .. }) => {
            let msg = e.to_string();
            assert!(msg.contains("24") && msg.contains("reshape"), "{msg}");
        }
        other => panic!("24 into (-1, 5): {other:?}"),
    }
    match Layout::infer_shape(24, &[5, 5]) {
        Err(Error::ShapeMismatch { lhs, rhs, .. }) => {
            assert_eq!((lhs, rhs), (vec![24], vec![5, 5]))
        }
        other => panic!("24 into (5, 5): {other:?}"),
    }
    // NumPy refuses to infer -1 next to a 0 extent.
    assert!(matches!(
        Layout::infer_shape(0, &[0, -1]),
        Err(Error::ShapeMismatch { .. })
    ));
    assert!(matches!(
        Layout::infer_shape(6, &[]),
        Err(Error::ShapeMismatch { .. })
    ));
}

// ---- collapse and plan ---------------------------------------------------------------

#[test]
fn collapse_keeps_every_operand_offset() {
    let mut rng = Rng::new(7);
    for _ in 0..1500 {
        let base = random_layout(&mut rng, 5);
        let shape = base.shape().to_vec();
        // Operands over the same shape: the base view, a contiguous output, a broadcast.
        let out = Layout::contiguous(&shape);
        let mut small: Vec<usize> = shape.clone();
        for d in small.iter_mut() {
            if rng.bit() {
                *d = 1;
            }
        }
        let bc = Layout::contiguous(&small).broadcast_to(&shape).unwrap();
        let ops = [out.clone(), base.clone(), bc.clone()];
        let strides: Vec<&[isize]> = ops.iter().map(|l| l.strides()).collect();
        let c = collapse(&shape, &strides);
        assert_eq!(c.strides.len(), 3);
        assert!(
            c.shape.iter().all(|&d| d != 1),
            "extents of 1 survive: {c:?}"
        );
        assert_eq!(
            c.shape.iter().product::<usize>(),
            shape.iter().product::<usize>()
        );
        assert!(c.shape.len() <= shape.len());
        if shape.iter().product::<usize>() == 0 {
            continue;
        }
        for (l, s) in ops.iter().zip(&c.strides) {
            assert_eq!(s.len(), c.shape.len());
            assert_eq!(
                offsets_of(&c.shape, s, l.offset()),
                offsets(l),
                "collapse of {shape:?} {strides:?}"
            );
        }
        // Nothing mergeable is left unmerged.
        for k in 1..c.shape.len() {
            let all = c
                .strides
                .iter()
                .all(|s| s[k - 1] == s[k] * c.shape[k] as isize);
            assert!(!all, "axes {} and {k} could still merge: {c:?}", k - 1);
        }
    }
    let c = collapse(&[2, 3, 4], &[&[12, 4, 1], &[0, 4, 1]]);
    assert_eq!(
        (c.shape, c.strides),
        (vec![2, 12], vec![vec![12, 1], vec![0, 1]])
    );
    let c = collapse(&[], &[&[], &[]]);
    assert!(c.shape.is_empty() && c.strides == vec![Vec::<isize>::new(); 2]);
}

#[test]
fn plan_chooses_variant_and_index_width() {
    // Contiguous operands of any rank: one flat loop.
    let p = plan(&[4, 5, 6], &[&[30, 6, 1], &[30, 6, 1]]).unwrap();
    assert_eq!(
        (p.variant, p.index, p.size),
        (Variant::Contiguous, IndexWidth::I32, 120)
    );
    assert_eq!(plan(&[], &[&[], &[]]).unwrap().variant, Variant::Contiguous);
    assert_eq!(
        plan(&[1, 1, 1], &[&[7, 3, 1], &[0, 0, 0]]).unwrap().variant,
        Variant::Contiguous
    );
    // Broadcast (3,1)+(4,): two dims.
    let out = Layout::contiguous(&[3, 4]);
    let a = Layout::contiguous(&[3, 1]).broadcast_to(&[3, 4]).unwrap();
    let b = Layout::contiguous(&[4]).broadcast_to(&[3, 4]).unwrap();
    let p = plan(&[3, 4], &[out.strides(), a.strides(), b.strides()]).unwrap();
    assert_eq!(p.variant, Variant::Strided { ndim: 2 });
    assert_eq!(
        p.collapsed.strides,
        vec![vec![4, 1], vec![1, 0], vec![0, 1]]
    );
    // A transposed operand goes through shared-memory tiles (bit k: operand k, outputs
    // first); a reversed one is strided.
    assert_eq!(
        plan(&[4, 5], &[&[5, 1], &[1, 4]]).unwrap().variant,
        Variant::Tiled { staged: 0b10 }
    );
    // A transposed output is iterated in its own order: the input becomes the staged one.
    assert_eq!(
        plan(&[4, 5], &[&[1, 4], &[5, 1]]).unwrap().variant,
        Variant::Tiled { staged: 0b10 }
    );
    assert_eq!(
        plan(&[4, 5], &[&[5, 1], &[1, 4], &[1, 4]]).unwrap().variant,
        Variant::Tiled { staged: 0b110 }
    );
    assert_eq!(
        plan(&[4, 5], &[&[5, 1], &[-1, -4]]).unwrap().variant,
        Variant::Tiled { staged: 0b10 }
    );
    assert_eq!(
        plan(&[4, 5], &[&[5, 1], &[-5, 1]]).unwrap().variant,
        Variant::Strided { ndim: 2 }
    );
    // Three dimensions are never tiled.
    assert_eq!(
        plan(&[2, 4, 5], &[&[20, 5, 1], &[1, 2, 8]])
            .unwrap()
            .variant,
        Variant::Strided { ndim: 3 }
    );
    assert_eq!(
        plan(&[5], &[&[1], &[-1]]).unwrap().variant,
        Variant::Strided { ndim: 1 }
    );
    // A broadcast scalar.
    assert_eq!(
        plan(&[7], &[&[1], &[0]]).unwrap().variant,
        Variant::Strided { ndim: 1 }
    );
    // Index width: by element count...
    assert_eq!(plan(&[1 << 30], &[&[1]]).unwrap().index, IndexWidth::I32);
    assert_eq!(
        plan(&[(1 << 30) + 1], &[&[1]]).unwrap().index,
        IndexWidth::I64
    );
    assert_eq!(
        plan(&[(1 << 31) + 1000], &[&[1], &[-1]]).unwrap().index,
        IndexWidth::I64
    );
    // ...and by the farthest element an operand reaches.
    assert_eq!(
        plan(&[2], &[&[1], &[1 << 31]]).unwrap().index,
        IndexWidth::I64
    );
    assert_eq!(
        plan(&[2, 3], &[&[3, 1], &[-(1 << 31), 1]]).unwrap().index,
        IndexWidth::I64
    );
    assert_eq!(
        plan(&[3], &[&[1], &[1 << 28]]).unwrap().index,
        IndexWidth::I32
    );
    // Empty: nothing to launch.
    assert_eq!(plan(&[3, 0], &[&[0, 1], &[0, 1]]).unwrap().size, 0);
    // More dimensions than kernels index, after merging: an error, not a panic.
    let n = MAX_DIMS + 1;
    let shape = vec![2usize; n];
    let strides: Vec<isize> = (0..n).map(|k| 3isize.pow((n - 1 - k) as u32)).collect();
    let out = Layout::contiguous(&shape);
    match plan(&shape, &[out.strides(), strides.as_slice()]) {
        Err(Error::InvalidArgument { msg, .. }) => {
            assert!(msg.contains(&MAX_DIMS.to_string()), "{msg}")
        }
        other => panic!("17 unmergeable dims: {other:?}"),
    }
    let shape = vec![2usize; MAX_DIMS];
    let strides: Vec<isize> = (0..MAX_DIMS)
        .map(|k| 3isize.pow((MAX_DIMS - 1 - k) as u32))
        .collect();
    let out = Layout::contiguous(&shape);
    let p = plan(&shape, &[out.strides(), strides.as_slice()]).unwrap();
    assert_eq!(
        p.variant,
        Variant::Strided {
            ndim: MAX_DIMS as u8
        }
    );
}

#[test]
fn refine_upgrades_to_vector_loads() {
    use cuarray::testing::ops::elementwise::{refine, vector_width};
    let f = DType::F32;
    assert_eq!(vector_width([(0x1000, f), (0x2000, f)]), 4);
    assert_eq!(vector_width([(0x1000, f), (0x2008, f)]), 1);
    assert_eq!(
        vector_width([(0x1000, DType::Bool), (0x2000, DType::U8)]),
        16
    );
    assert_eq!(
        vector_width([(0x1000, DType::F16), (0x2000, DType::F64)]),
        2
    );
    // Flat: vectorized when every pointer is 16-byte aligned.
    let p = plan(&[1000], &[&[1], &[1]]).unwrap();
    assert_eq!(
        refine(&p, &[(0x1000, f), (0x2000, f)], 1),
        Variant::Vectorized { vec: 4 }
    );
    assert_eq!(
        refine(&p, &[(0x1000, f), (0x2004, f)], 1),
        Variant::Contiguous
    );
    assert_eq!(
        refine(&p, &[(0x1000, DType::U8), (0x2000, DType::U8)], 1),
        Variant::Vectorized { vec: 16 }
    );
    // Rows of contiguous data plus a broadcast column: row-vectorized.
    let p = plan(&[8, 12], &[&[12, 1], &[12, 1], &[1, 0]]).unwrap();
    let ptrs = [(0x1000, f), (0x2000, f), (0x3000, f)];
    assert_eq!(
        refine(&p, &ptrs, 1),
        Variant::StridedVec {
            ndim: 2,
            vec: 4,
            bcast: 0b100
        }
    );
    // Row length or row stride not a multiple of the vector: strided.
    let p = plan(&[8, 13], &[&[13, 1], &[13, 1], &[1, 0]]).unwrap();
    assert_eq!(refine(&p, &ptrs, 1), Variant::Strided { ndim: 2 });
    let p = plan(&[8, 12], &[&[12, 1], &[13, 1]]).unwrap();
    assert_eq!(refine(&p, &ptrs[..2], 1), Variant::Strided { ndim: 2 });
    // An output broadcast along its rows is never vectorized; neither is a reversed row.
    let p = plan(&[8, 12], &[&[1, 0], &[12, 1]]).unwrap();
    assert_eq!(refine(&p, &ptrs[..2], 1), p.variant);
    let p = plan(&[8, 12], &[&[12, 1], &[12, -1]]).unwrap();
    assert_eq!(refine(&p, &ptrs[..2], 1), Variant::Strided { ndim: 2 });
    // Tiles stay tiles.
    let p = plan(&[64, 64], &[&[64, 1], &[1, 64]]).unwrap();
    assert_eq!(refine(&p, &ptrs[..2], 1), Variant::Tiled { staged: 0b10 });
}

// ---- kernel specs, rendering, symbols -------------------------------------------------

#[path = "support/specs.rs"]
mod specs;

#[test]
fn render_is_well_formed_for_library_specs() {
    let all = specs::all_specs();
    assert!(all.len() > 1000, "{} specs", all.len());
    for spec in all {
        let src = spec.source();
        let sym = spec.symbol();
        assert!(sym.starts_with("cuarray_ew_") && sym.is_ascii(), "{sym}");
        assert!(
            sym.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'),
            "{sym}"
        );
        assert!(
            src.contains(&format!(" {sym}(")),
            "{sym} not defined in its source"
        );
        assert!(
            src.contains("extern \"C\" __global__"),
            "{sym}: no extern \"C\" kernel"
        );
        assert!(src.contains(&spec.body.to_string()), "{sym}: body missing");
        assert_eq!(
            src.matches('{').count(),
            src.matches('}').count(),
            "{sym}: unbalanced braces"
        );
        for (k, d) in spec.inputs.as_slice().iter().enumerate() {
            assert!(
                src.contains(&format!("typedef {} in{k}_t;", d.cuda_type())),
                "{sym}: in{k}_t"
            );
        }
        for (k, d) in spec.outputs.as_slice().iter().enumerate() {
            assert!(
                src.contains(&format!("typedef {} out{k}_t;", d.cuda_type())),
                "{sym}: out{k}_t"
            );
        }
        for (k, d) in spec.scalars.as_slice().iter().enumerate() {
            assert!(
                src.contains(&format!("typedef {} s{k}_t;", d.cuda_type())),
                "{sym}: s{k}_t"
            );
        }
        let narg = spec.inputs.len() + spec.outputs.len();
        let idx = spec.index.cuda_type();
        let param = match spec.variant {
            Variant::Contiguous | Variant::Vectorized { .. } => "const long long n".to_string(),
            Variant::Strided { ndim } | Variant::StridedVec { ndim, .. } => {
                format!("Indexer<{narg}, {ndim}, {idx}> ix")
            }
            Variant::Tiled { .. } => format!("Indexer<{narg}, 2, {idx}> ix"),
        };
        assert!(src.contains(&param), "{sym}: no parameter `{param}`");
        // Deterministic.
        assert_eq!(src, spec.source());
    }
}

#[test]
fn render_example_from_the_docs() {
    let spec = ElementwiseSpec {
        op: "add".into(),
        body: "out0 = in0 + in1;".into(),
        preamble: "".into(),
        inputs: TypeList::new(&[DType::F32, DType::F32]),
        outputs: TypeList::new(&[DType::F32]),
        scalars: TypeList::new(&[]),
        variant: Variant::Contiguous,
        index: IndexWidth::I32,
    };
    assert_eq!(spec.symbol(), "cuarray_ew_add_f32f32_f32_c_i32");
    let src = spec.source();
    assert!(
        src.contains("cuarray_ew_add_f32f32_f32_c_i32("),
        "symbol missing"
    );
    assert!(src.starts_with("// cuarray common.cuh"));
}

#[test]
fn symbols_are_unique_across_types_variants_and_widths() {
    let mut seen: HashMap<String, String> = HashMap::new();
    let all = specs::all_specs().into_iter().map(Into::into);
    for spec in all.chain(common_specs()) {
        let (sym, src) = (spec.symbol(), spec.source());
        if let Some(prev) = seen.get(&sym) {
            assert_eq!(prev, &src, "two different kernels share the symbol {sym}");
        }
        seen.insert(sym, src);
    }
    assert!(seen.len() > 900, "{} distinct symbols", seen.len());
    // Scalars are part of the name.
    let a = spec_for(
        "full",
        "out0 = s0;",
        &[],
        &[DType::F32],
        &[DType::F32],
        Variant::Contiguous,
        IndexWidth::I32,
    );
    let b = spec_for(
        "full",
        "out0 = s0;",
        &[],
        &[DType::F32],
        &[DType::F64],
        Variant::Contiguous,
        IndexWidth::I32,
    );
    assert_ne!(a.symbol(), b.symbol());
}

/// `a - s` and `s - a` (and likewise for add, mul, div) are different kernels with
/// different symbols (`sub` and `rsub`), so that dumps and profilers tell them apart.
#[test]
fn symbols_differ_for_scalar_lhs_and_rhs() {
    for op in [BinaryOp::Add, BinaryOp::Sub, BinaryOp::Mul, BinaryOp::Div] {
        let d = DType::F32;
        let lhs = spec_for(
            op.rname(),
            op.body_scalar_lhs(),
            &[d],
            &[d],
            &[d],
            Variant::Contiguous,
            IndexWidth::I32,
        );
        let rhs = spec_for(
            op.name(),
            op.body_scalar_rhs(),
            &[d],
            &[d],
            &[d],
            Variant::Contiguous,
            IndexWidth::I32,
        );
        assert_ne!(lhs, rhs);
        assert_ne!(
            lhs.symbol(),
            rhs.symbol(),
            "{} scalar lhs and rhs share a symbol",
            op.name()
        );
    }
}

#[test]
fn binary_op_bodies() {
    let ops = [BinaryOp::Add, BinaryOp::Sub, BinaryOp::Mul, BinaryOp::Div];
    let names: HashSet<&str> = ops.iter().map(|o| o.name()).collect();
    assert_eq!(names.len(), 4);
    for op in ops {
        let f = format!("cuarray_{}(", op.name());
        assert_eq!(op.body(), format!("out0 = {f}in0, in1);"));
        assert_eq!(op.body_scalar_rhs(), format!("out0 = {f}in0, s0);"));
        assert_eq!(op.body_scalar_lhs(), format!("out0 = {f}s0, in0);"));
    }
    assert!(
        common_specs()[0].source().contains("cuarray_div"),
        "ops.cuh is not part of the source"
    );
}

#[test]
fn common_specs_are_reasonable() {
    let specs = common_specs();
    assert!(!specs.is_empty());
    let syms: HashSet<String> = specs.iter().map(|s| s.symbol()).collect();
    assert_eq!(syms.len(), specs.len(), "duplicate specs in common_specs()");
}

// ---- disk cache -----------------------------------------------------------------------

fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("cuarray-shape-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

#[test]
fn cache_key_depends_on_every_input() {
    let o = vec![
        "--gpu-architecture=sm_90".to_string(),
        "--std=c++17".to_string(),
    ];
    let k = cache_key("src", &o, (13, 0));
    assert_eq!(k.len(), 64);
    assert!(k
        .chars()
        .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()));
    assert_eq!(k, cache_key("src", &o, (13, 0)));
    let others = [
        cache_key("src ", &o, (13, 0)),
        cache_key("src", &o[..1], (13, 0)),
        cache_key(
            "src",
            &[
                "--gpu-architecture=sm_80".to_string(),
                "--std=c++17".to_string(),
            ],
            (13, 0),
        ),
        cache_key("src", &o, (13, 1)),
        cache_key("src", &o, (12, 0)),
        // Concatenation ambiguity: the separators keep these apart.
        cache_key(
            "sr",
            &[
                "c--gpu-architecture=sm_90".to_string(),
                "--std=c++17".to_string(),
            ],
            (13, 0),
        ),
        cache_key(
            "src",
            &["--gpu-architecture=sm_90--std=c++17".to_string()],
            (13, 0),
        ),
    ];
    let set: HashSet<&String> = others.iter().chain([&k]).collect();
    assert_eq!(set.len(), others.len() + 1, "some keys collide");
}

#[test]
fn disk_cache_roundtrip_and_corruption() {
    let dir = temp_dir("cache");
    let c = DiskCache::new(&dir);
    assert_eq!(c.dir(), dir.as_path());
    assert!(c.load("missing").is_none(), "a missing entry loads");
    let blob: Vec<u8> = (0..5000u32)
        .map(|i| (i * 7 % 251) as u8)
        .chain(*b"\n\x7fELF\n")
        .collect();
    let key = cache_key("a kernel", &["--x".to_string()], (13, 0));
    c.store(&key, &blob);
    assert_eq!(c.load(&key).as_deref(), Some(blob.as_slice()));
    let path = dir.join(format!("{key}.cubin"));
    assert!(path.exists(), "entry is not at <key>.cubin");
    let good = std::fs::read(&path).unwrap();
    let corruptions: Vec<(&str, Vec<u8>)> = vec![
        ("a flipped body byte", {
            let mut d = good.clone();
            let n = d.len();
            d[n - 10] ^= 0x40;
            d
        }),
        ("a truncated body", good[..good.len() - 1].to_vec()),
        ("an extra byte", {
            let mut d = good.clone();
            d.push(0);
            d
        }),
        ("a flipped hash digit", {
            let mut d = good.clone();
            let nl = d.iter().position(|&b| b == b'\n').unwrap();
            d[nl - 1] = if d[nl - 1] == b'0' { b'1' } else { b'0' };
            d
        }),
        (
            "no header line",
            blob.iter().copied().filter(|&b| b != b'\n').collect(),
        ),
        ("a wrong magic", {
            let mut d = good.clone();
            d[0] ^= 0x20;
            d
        }),
        ("an empty file", Vec::new()),
        (
            "header only",
            good[..=good.iter().position(|&b| b == b'\n').unwrap()].to_vec(),
        ),
        (
            "not UTF-8 header",
            [&[0xffu8, 0xfe, b'\n'][..], &blob].concat(),
        ),
    ];
    for (what, data) in corruptions {
        std::fs::write(&path, &data).unwrap();
        assert!(c.load(&key).is_none(), "an entry with {what} was accepted");
    }
    // An empty body with a correct hash is rejected too (a CUBIN is never empty).
    c.store(&key, b"");
    assert!(c.load(&key).is_none(), "an empty CUBIN was accepted");
    // Rewriting repairs the entry; no temporary files are left behind.
    c.store(&key, &blob);
    assert_eq!(c.load(&key).as_deref(), Some(blob.as_slice()));
    c.store(&key, b"second");
    assert_eq!(c.load(&key).as_deref(), Some(&b"second"[..]));
    let names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        names
            .iter()
            .all(|n| n.ends_with(".cubin") && !n.starts_with('.')),
        "leftovers: {names:?}"
    );
    // Storing into an unusable directory is silently skipped.
    let file_not_dir = dir.join(format!("{key}.cubin"));
    let bad = DiskCache::new(file_not_dir.join("sub"));
    bad.store("k", b"abc");
    assert!(bad.load("k").is_none());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn disk_cache_from_env() {
    // The only test in this binary that reads or writes these variables.
    let dir = temp_dir("env");
    std::env::set_var("CUARRAY_CACHE_DIR", &dir);
    std::env::remove_var("CUARRAY_CACHE");
    assert_eq!(DiskCache::from_env().unwrap().dir(), dir.as_path());
    for off in ["off", "OFF", "0"] {
        std::env::set_var("CUARRAY_CACHE", off);
        assert!(
            DiskCache::from_env().is_none(),
            "CUARRAY_CACHE={off} leaves the cache on"
        );
    }
    std::env::set_var("CUARRAY_CACHE", "on");
    assert!(DiskCache::from_env().is_some());
    std::env::remove_var("CUARRAY_CACHE");
    std::env::remove_var("CUARRAY_CACHE_DIR");
}

// ---- dtypes ---------------------------------------------------------------------------

#[test]
fn dtypes_and_elements() {
    let names: HashSet<&str> = DType::ALL.iter().map(|d| d.name()).collect();
    assert_eq!(names.len(), 15);
    let cuda: HashSet<&str> = DType::ALL.iter().map(|d| d.cuda_type()).collect();
    assert_eq!(cuda.len(), 15);
    fn check<T: Element>(name: &str) {
        assert_eq!(T::DTYPE.name(), name);
        assert_eq!(T::DTYPE.size(), std::mem::size_of::<T>(), "{name}");
        assert_eq!(T::DTYPE.to_string(), name);
        assert_eq!(T::ZERO.to_f64(), 0.0, "{name}");
        assert_eq!(T::ONE.to_f64(), 1.0, "{name}");
        assert_eq!(T::from_f64(1.0), T::ONE, "{name}");
        assert_eq!(T::from_f64(0.0), T::ZERO, "{name}");
        assert_eq!(T::default(), T::ZERO, "{name}");
    }
    check::<f32>("f32");
    check::<f64>("f64");
    check::<half::f16>("f16");
    check::<half::bf16>("bf16");
    check::<i8>("i8");
    check::<i16>("i16");
    check::<i32>("i32");
    check::<i64>("i64");
    check::<u8>("u8");
    check::<u16>("u16");
    check::<u32>("u32");
    check::<u64>("u64");
    check::<bool>("bool");
    check::<cuarray::Complex32>("c64");
    check::<cuarray::Complex64>("c128");
    let complex: Vec<DType> = DType::ALL.into_iter().filter(|d| d.is_complex()).collect();
    assert_eq!(complex, vec![DType::C64, DType::C128]);
    assert_eq!(cuarray::Complex32::from_f64(-2.5).im, 0.0);
    let floats: Vec<DType> = DType::ALL.into_iter().filter(|d| d.is_float()).collect();
    assert_eq!(
        floats,
        vec![DType::F16, DType::BF16, DType::F32, DType::F64]
    );
    let signed: Vec<DType> = DType::ALL
        .into_iter()
        .filter(|d| d.is_signed_int())
        .collect();
    assert_eq!(signed, vec![DType::I8, DType::I16, DType::I32, DType::I64]);
    assert_eq!(u64::MAX.to_i64_wrapping(), -1);
    assert_eq!(i8::from_f64(-300.0), -128);
    assert_eq!(u8::from_f64(-1.0), 0);
    assert_eq!(i32::from_f64(-2.7), -2);
    assert!(bool::from_f64(-0.5));
    assert!(!bool::from_f64(-0.0));
}

// ---- errors, not panics, without a GPU --------------------------------------------------

#[test]
fn device_errors_are_errors_not_panics() {
    // Passes on any machine: without a driver every call returns an error with a message;
    // with a GPU they succeed.
    let available = cuarray::is_available();
    let reason = cuarray::unavailable_reason();
    if let Some(r) = &reason {
        assert!(!r.trim().is_empty(), "empty unavailable_reason");
    }
    if available {
        // A driver and a device; NVRTC may still be missing.
        assert!(cuarray::device_count().unwrap() > 0);
    } else {
        assert!(reason.is_some(), "no GPU but no reason given");
    }
    match cuarray::device_count() {
        Ok(_) => {}
        Err(e) => assert!(!e.to_string().trim().is_empty()),
    }
    match cuarray::Device::new(0) {
        Ok(d) => {
            assert!(available);
            assert_eq!(d.ordinal(), 0);
        }
        Err(e) => {
            assert!(!available, "is_available() but Device::new(0) failed: {e}");
            let msg = e.to_string();
            assert!(!msg.trim().is_empty(), "empty error message");
            if let Error::LibraryNotFound {
                library,
                hint,
                looked_for,
            } = &e
            {
                assert!(
                    !library.is_empty() && !hint.is_empty() && !looked_for.is_empty(),
                    "{e:?}"
                );
                assert!(msg.contains(library), "{msg}");
            }
        }
    }
    match cuarray::Device::new(usize::MAX) {
        Ok(_) => panic!("device usize::MAX exists"),
        Err(e) => assert!(!e.to_string().trim().is_empty()),
    }
    match cuarray::testing::gpu() {
        Ok(_) => {}
        Err(reason) => assert!(!reason.trim().is_empty()),
    }
    let _ = cuarray::testing::gpu_required();
}

#[test]
fn nvrtc_errors_are_errors_not_panics() {
    let available = cuarray::testing::nvrtc_available();
    match cuarray::testing::kernels::nvrtc::version() {
        Ok((major, _)) => assert!(available && major > 0),
        Err(e) => {
            assert!(!available);
            let msg = e.to_string();
            assert!(msg.contains("NVRTC"), "{msg}");
            assert!(matches!(e, Error::LibraryNotFound { .. }), "{e:?}");
        }
    }
    // Compiling without libnvrtc is an error; with it, a broken source is a Compile error.
    let src = "extern \"C\" __global__ void k() { this is not C++ }";
    match cuarray::testing::kernels::nvrtc::compile(
        src,
        "k",
        &cuarray::testing::kernels::nvrtc::options((9, 0)),
    ) {
        Ok(_) => panic!("a broken source compiled"),
        Err(Error::Compile { kernel, log, .. }) => {
            assert!(available);
            assert_eq!(kernel, "k");
            assert!(log.contains("error"), "{log}");
        }
        Err(e) => {
            assert!(!available, "{e}");
            assert!(!e.to_string().is_empty());
        }
    }
    assert_eq!(
        cuarray::testing::kernels::nvrtc::options((9, 0)),
        vec![
            "--gpu-architecture=sm_90".to_string(),
            "--std=c++17".to_string()
        ]
    );
}

#[test]
fn error_messages_carry_their_context() {
    let cases: Vec<(Error, Vec<&str>)> = vec![
        (
            Error::HostLength {
                op: "from_host",
                expected: 6,
                got: 5,
            },
            vec!["from_host", "6", "5"],
        ),
        (
            Error::ShapeMismatch {
                op: "concatenate",
                msg: "axis 1".into(),
                lhs: vec![3, 4],
                rhs: vec![3, 5],
            },
            vec!["concatenate", "[3, 4]", "[3, 5]", "axis 1"],
        ),
        (
            Error::OutOfMemory {
                requested: 1 << 40,
                in_use: 77,
                limit: None,
                free: 10,
                total: 20,
            },
            vec!["1099511627776", "10", "20"],
        ),
        (
            Error::DeviceOutOfRange {
                ordinal: 3,
                count: 1,
            },
            vec!["3", "1"],
        ),
        (
            Error::Compile {
                kernel: "kern".into(),
                options: vec!["--opt".into()],
                log: "line 7: error".into(),
            },
            vec!["kern", "--opt", "line 7: error"],
        ),
    ];
    for (e, parts) in cases {
        let msg = e.to_string();
        for p in parts {
            assert!(msg.contains(p), "{msg:?} lacks {p:?}");
        }
    }
}
