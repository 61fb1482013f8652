//! A model of NumPy's view semantics, written independently of cuarray's shape layer, and
//! a checker that runs a chain of views on both and compares them.
//!
//! The model keeps a view as its shape and, for every element in C order, the position of
//! that element in the buffer, computed by enumeration (Python's slice rules evaluated
//! one index at a time, broadcasting and permuting by re-indexing). The checker compares
//! cuarray's [`Layout`] against it after every step: the shape, every reachable offset
//! (which must stay inside the buffer), the strides of the non-trivial axes, the span and
//! the contiguity flags, and that both accept or both reject each operation.
//!
//! A chain is decoded from bytes ([`run_bytes`]), so that the same code serves the
//! property test (`tests/shape_model.rs`) and the fuzz target (`fuzz/`).

use cuarray::shape::{Layout, SliceElem};

/// Largest view the model enumerates; larger (valid) views end the chain after checking
/// their shape and span.
pub const ENUM_LIMIT: usize = 1 << 14;

/// One view operation.
#[derive(Debug, Clone)]
pub enum Op {
    /// `reshape` with NumPy's target (one `-1` allowed); a copy when no view exists.
    Reshape(Vec<isize>),
    /// Axes reordered.
    Permute(Vec<usize>),
    /// Axes reversed.
    Transpose,
    /// Python slicing.
    Slice(Vec<SliceElem>),
    /// `broadcast_to`.
    BroadcastTo(Vec<usize>),
    /// Every extent of 1 removed.
    Squeeze,
    /// One axis of extent 1 removed.
    SqueezeAxis(isize),
    /// A new axis of extent 1.
    ExpandDims(isize),
}

/// A view in the model: shape and buffer position of each element in C order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Model {
    /// The extents.
    pub shape: Vec<usize>,
    /// Buffer positions, C order (empty when the view is too large to enumerate).
    pub pos: Vec<usize>,
}

/// Bytes read one at a time; zeros once exhausted.
pub struct Src<'a> {
    data: &'a [u8],
    at: usize,
}

impl<'a> Src<'a> {
    /// A source over `data`.
    pub fn new(data: &'a [u8]) -> Self {
        Src { data, at: 0 }
    }
    /// True once every byte was read.
    pub fn done(&self) -> bool {
        self.at >= self.data.len()
    }
    fn byte(&mut self) -> u8 {
        let b = self.data.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        b
    }
    /// A number in `0..n` (`n >= 1`).
    fn below(&mut self, n: usize) -> usize {
        let v = (self.byte() as usize) << 8 | self.byte() as usize;
        v % n.max(1)
    }
    /// A number in `lo..=hi`.
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1) as usize) as i64
    }
}

fn product(shape: &[usize]) -> Option<usize> {
    // NumPy's limit, as cuarray documents it: the product of the non-zero extents fits
    // in isize.
    let mut p: u128 = 1;
    for &d in shape {
        p *= d.max(1) as u128;
        if p > isize::MAX as u128 {
            return None;
        }
    }
    Some(if shape.contains(&0) { 0 } else { p as usize })
}

fn unravel(mut k: usize, shape: &[usize]) -> Vec<usize> {
    let mut idx = vec![0; shape.len()];
    for (i, &d) in idx.iter_mut().zip(shape).rev() {
        *i = k % d;
        k /= d;
    }
    idx
}

fn ravel(idx: &[usize], shape: &[usize]) -> usize {
    idx.iter().zip(shape).fold(0, |acc, (&i, &d)| acc * d + i)
}

/// Python's `range(*slice(start, stop, step).indices(len))` as (first, step, count): the
/// count by enumeration on axes of up to `4 * ENUM_LIMIT`, else by the closed form (huge
/// extents only occur in empty views).
fn py_indices(
    start: Option<isize>,
    stop: Option<isize>,
    step: isize,
    len: usize,
) -> (i128, i128, usize) {
    let (n, st) = (len as i128, step as i128);
    let norm = |v: isize, lo: i128, hi: i128| {
        let v = v as i128;
        let v = if v < 0 { v + n } else { v };
        v.max(lo).min(hi)
    };
    let (first, stop) = if st > 0 {
        (
            start.map_or(0, |v| norm(v, 0, n)),
            stop.map_or(n, |v| norm(v, 0, n)),
        )
    } else {
        (
            start.map_or(n - 1, |v| norm(v, -1, n - 1)),
            stop.map_or(-1, |v| norm(v, -1, n - 1)),
        )
    };
    let inside = |i: i128| (st > 0 && i < stop) || (st < 0 && i > stop);
    let count = if len <= 4 * ENUM_LIMIT {
        let (mut i, mut c) = (first, 0);
        while inside(i) {
            c += 1;
            i += st;
        }
        c
    } else if inside(first) {
        ((stop - first).abs() - 1) as usize / st.unsigned_abs() as usize + 1
    } else {
        0
    };
    (first, st, count)
}

impl Model {
    /// A C-contiguous view of `shape` over a buffer of its size.
    pub fn contiguous(shape: &[usize]) -> Model {
        let n = product(shape).expect("small shape");
        Model {
            shape: shape.to_vec(),
            pos: (0..n).collect(),
        }
    }

    fn size(&self) -> usize {
        product(&self.shape).unwrap_or(usize::MAX)
    }

    /// The view built by mapping each index of `shape` to an index of `self`.
    fn remap(&self, shape: Vec<usize>, f: impl Fn(&[usize]) -> Vec<usize>) -> Model {
        let n = product(&shape).unwrap_or(usize::MAX);
        if n > ENUM_LIMIT {
            return Model {
                shape,
                pos: Vec::new(),
            };
        }
        let pos = (0..n)
            .map(|k| self.pos[ravel(&f(&unravel(k, &shape)), &self.shape)])
            .collect();
        Model { shape, pos }
    }

    /// Applies `op`; `None` when NumPy would raise.
    pub fn apply(&self, op: &Op) -> Option<Model> {
        let nd = self.shape.len();
        match op {
            Op::Reshape(spec) => {
                if spec.iter().filter(|&&d| d == -1).count() > 1 || spec.iter().any(|&d| d < -1) {
                    return None;
                }
                let known: Vec<usize> = spec.iter().map(|&d| d.unsigned_abs()).collect();
                let k = product(&known)?;
                let mut shape: Vec<usize> = spec.iter().map(|&d| d.max(0) as usize).collect();
                if let Some(i) = spec.iter().position(|&d| d == -1) {
                    if k == 0 || !self.size().is_multiple_of(k) {
                        return None;
                    }
                    shape[i] = self.size() / k;
                } else if k != self.size() {
                    return None;
                }
                Some(Model {
                    shape,
                    pos: self.pos.clone(),
                })
            }
            Op::Permute(perm) => {
                let mut sorted = perm.clone();
                sorted.sort_unstable();
                if sorted != (0..nd).collect::<Vec<_>>() {
                    return None;
                }
                let shape = perm.iter().map(|&p| self.shape[p]).collect();
                Some(self.remap(shape, |idx| {
                    let mut old = vec![0; nd];
                    for (i, &p) in perm.iter().enumerate() {
                        old[p] = idx[i];
                    }
                    old
                }))
            }
            Op::Transpose => self.apply(&Op::Permute((0..nd).rev().collect())),
            Op::Slice(spec) => {
                let consumed = spec
                    .iter()
                    .filter(|e| !matches!(e, SliceElem::NewAxis))
                    .count();
                if consumed > nd {
                    return None;
                }
                // For each new axis: None (a new axis) or (old axis, (first, step));
                // indexed axes are fixed.
                type Axis = (Option<(usize, i128, i128)>, usize);
                let mut axes: Vec<Axis> = Vec::new();
                let mut fixed = vec![None; nd];
                let mut ax = 0;
                for e in spec {
                    match *e {
                        SliceElem::NewAxis => axes.push((None, 1)),
                        SliceElem::Index(i) => {
                            let len = self.shape[ax] as i128;
                            let j = if i < 0 { i as i128 + len } else { i as i128 };
                            if j < 0 || j >= len {
                                return None;
                            }
                            fixed[ax] = Some(j as usize);
                            ax += 1;
                        }
                        SliceElem::Range { start, end, step } => {
                            if step == 0 {
                                return None;
                            }
                            let (first, st, count) = py_indices(start, end, step, self.shape[ax]);
                            axes.push((Some((ax, first, st)), count));
                            ax += 1;
                        }
                    }
                }
                for a in ax..nd {
                    axes.push((Some((a, 0, 1)), self.shape[a]));
                }
                let shape = axes.iter().map(|a| a.1).collect();
                Some(self.remap(shape, |idx| {
                    let mut old: Vec<usize> = fixed.iter().map(|f| f.unwrap_or(0)).collect();
                    for (a, &i) in axes.iter().zip(idx) {
                        if let Some((k, first, st)) = a.0 {
                            old[k] = (first + i as i128 * st) as usize;
                        }
                    }
                    old
                }))
            }
            Op::BroadcastTo(target) => {
                if target.len() < nd || product(target).is_none() {
                    return None;
                }
                let lead = target.len() - nd;
                for (k, &d) in self.shape.iter().enumerate() {
                    if d != target[lead + k] && d != 1 {
                        return None;
                    }
                }
                Some(self.remap(target.clone(), |idx| {
                    (0..nd)
                        .map(|k| if self.shape[k] == 1 { 0 } else { idx[lead + k] })
                        .collect()
                }))
            }
            Op::Squeeze => Some(Model {
                shape: self.shape.iter().copied().filter(|&d| d != 1).collect(),
                pos: self.pos.clone(),
            }),
            Op::SqueezeAxis(a) => {
                let a = norm_axis(*a, nd)?;
                if self.shape[a] != 1 {
                    return None;
                }
                let mut shape = self.shape.clone();
                shape.remove(a);
                Some(Model {
                    shape,
                    pos: self.pos.clone(),
                })
            }
            Op::ExpandDims(a) => {
                let a = norm_axis(*a, nd + 1)?;
                let mut shape = self.shape.clone();
                shape.insert(a, 1);
                Some(Model {
                    shape,
                    pos: self.pos.clone(),
                })
            }
        }
    }
}

fn norm_axis(a: isize, n: usize) -> Option<usize> {
    let n = n as i128;
    let a = a as i128;
    let a = if a < 0 { a + n } else { a };
    (0..n).contains(&a).then_some(a as usize)
}

/// cuarray's side of an operation: `None` when it returns an error.
fn apply_layout(l: &Layout, op: &Op) -> Option<Result<Layout, ()>> {
    let r = match op {
        Op::Reshape(spec) => {
            let shape = Layout::infer_shape(l.size(), spec).ok()?;
            // `Err(())` asks the caller for a copy.
            return Some(l.reshape_view(&shape).ok_or(()));
        }
        Op::Permute(p) => l.permute(p),
        Op::Transpose => Ok(l.t()),
        Op::Slice(spec) => l.slice(spec),
        Op::BroadcastTo(t) => l.broadcast_to(t),
        Op::Squeeze => Ok(l.squeeze()),
        Op::SqueezeAxis(a) => l.squeeze_axis(*a),
        Op::ExpandDims(a) => l.expand_dims(*a),
    };
    r.ok().map(Ok)
}

/// Decodes one operation for a view of `shape`: mostly plausible ones, sometimes invalid
/// or extreme (huge extents, bounds and steps near `isize::MIN`/`MAX`).
pub fn decode_op(src: &mut Src, shape: &[usize]) -> Op {
    let nd = shape.len();
    let size: usize = shape.iter().product();
    let extreme = |src: &mut Src| -> isize {
        [
            isize::MIN,
            isize::MIN + 1,
            isize::MAX,
            isize::MAX - 1,
            1 << 62,
            -(1 << 62),
            1 << 32,
            -(1 << 32),
        ][src.below(8)]
    };
    match src.below(9) {
        0 | 1 => {
            // Reshape: a factorisation of the size, maybe with a -1, or something hostile.
            if src.below(6) == 0 {
                let spec = match src.below(4) {
                    0 if size.is_power_of_two() && size >= 4 => {
                        vec![((1u128 << 64) / size as u128 + 1) as isize, size as isize]
                    }
                    1 => vec![-1, 1 << 62, 1 << 62],
                    2 => vec![isize::MAX, 2],
                    _ => vec![-1, -1],
                };
                return Op::Reshape(spec);
            }
            let mut rest = size;
            let mut spec = Vec::new();
            for _ in 0..src.below(5) {
                let divisors: Vec<usize> = (1..=rest.clamp(1, 8))
                    .filter(|&d| rest.is_multiple_of(d))
                    .collect();
                let d = if rest == 0 && src.below(2) == 0 {
                    src.below(4)
                } else {
                    divisors[src.below(divisors.len())]
                };
                rest = rest.checked_div(d).unwrap_or(rest);
                spec.push(d as isize);
            }
            spec.push(rest as isize);
            if src.below(3) == 0 {
                let i = src.below(spec.len());
                spec[i] = -1;
            }
            if src.below(2) == 0 {
                let k = src.below(spec.len());
                spec.rotate_left(k);
            }
            Op::Reshape(spec)
        }
        2 => {
            let mut perm: Vec<usize> = (0..nd).collect();
            for i in (1..nd).rev() {
                perm.swap(i, src.below(i + 1));
            }
            if src.below(8) == 0 && nd > 0 {
                perm[0] = src.below(nd + 1);
            }
            if src.below(2) == 0 {
                Op::Permute(perm)
            } else {
                Op::Transpose
            }
        }
        3..=5 => {
            let mut spec = Vec::new();
            let count = src.below(nd + 2);
            for k in 0..count {
                let len = shape.get(k).copied().unwrap_or(1) as i64;
                let bound = |src: &mut Src| -> Option<isize> {
                    match src.below(8) {
                        0 => None,
                        1 => Some(extreme(src)),
                        _ => Some(src.range(-len - 2, len + 2) as isize),
                    }
                };
                let e = match src.below(10) {
                    0 => SliceElem::NewAxis,
                    1 => SliceElem::Index(if src.below(4) == 0 {
                        extreme(src)
                    } else {
                        src.range(-len - 1, len) as isize
                    }),
                    _ => {
                        let step = match src.below(12) {
                            0 => extreme(src),
                            1 => 0,
                            2..=4 => src.range(-len - 2, len + 2).max(1) as isize,
                            5..=6 => -(src.range(1, 3) as isize),
                            _ => 1,
                        };
                        SliceElem::Range {
                            start: bound(src),
                            end: bound(src),
                            step,
                        }
                    }
                };
                spec.push(e);
            }
            Op::Slice(spec)
        }
        6 => {
            // Broadcast: new leading axes and extents of 1 replaced, or hostile targets.
            let mut target: Vec<usize> = shape
                .iter()
                .map(|&d| if d == 1 { src.below(4) } else { d })
                .collect();
            for _ in 0..src.below(3) {
                target.insert(0, src.below(4));
            }
            match src.below(10) {
                0 => target.insert(0, 1 << 40),
                1 => {
                    target.insert(0, 1 << 32);
                    target.insert(0, 1 << 32);
                }
                2 => target.insert(0, usize::MAX),
                3 if nd > 0 => target[src.below(nd)] += 1,
                _ => {}
            }
            Op::BroadcastTo(target)
        }
        7 => {
            if src.below(2) == 0 {
                Op::Squeeze
            } else {
                Op::SqueezeAxis(src.range(-(nd as i64) - 1, nd as i64) as isize)
            }
        }
        _ => Op::ExpandDims(src.range(-(nd as i64) - 2, nd as i64 + 1) as isize),
    }
}

/// Compares `l` over a buffer of `buf_len` elements with the model `m`; panics with the
/// chain so far on any difference.
fn check(l: &Layout, m: &Model, buf_len: usize, chain: &[Op]) {
    let ctx = || format!("after {chain:?}: layout {l:?}, model shape {:?}", m.shape);
    assert_eq!(l.shape(), &m.shape[..], "shape {}", ctx());
    assert_eq!(l.strides().len(), l.ndim(), "rank {}", ctx());
    let n = product(&m.shape).expect("valid shape");
    assert_eq!(l.size(), n, "size {}", ctx());
    if n == 0 {
        return;
    }
    let (lo, hi) = l.span();
    assert!(
        lo < hi && hi <= buf_len,
        "span ({lo}, {hi}) outside the buffer of {buf_len}: {}",
        ctx()
    );
    if n > ENUM_LIMIT {
        return;
    }
    let got: Vec<usize> = l.iter_offsets().collect();
    assert!(
        got.iter().all(|&o| o < buf_len),
        "offset outside the buffer of {buf_len}: {}",
        ctx()
    );
    assert_eq!(got, m.pos, "element mapping {}", ctx());
    assert_eq!(
        l.index_of(&vec![0; l.ndim()]),
        m.pos[0],
        "first element {}",
        ctx()
    );
    for k in 0..l.ndim() {
        if m.shape[k] > 1 {
            let mut idx = vec![0; l.ndim()];
            idx[k] = 1;
            let want = m.pos[ravel(&idx, &m.shape)] as i128 - m.pos[0] as i128;
            assert_eq!(l.strides()[k] as i128, want, "stride of axis {k} {}", ctx());
        }
    }
    assert_eq!(lo, *m.pos.iter().min().unwrap(), "span low {}", ctx());
    assert_eq!(hi, m.pos.iter().max().unwrap() + 1, "span high {}", ctx());
    let c = m.pos.iter().enumerate().all(|(k, &p)| p == m.pos[0] + k);
    assert_eq!(l.is_c_contiguous(), c, "C contiguity {}", ctx());
    let rev: Vec<usize> = m.shape.iter().rev().copied().collect();
    let f = (0..n).all(|k| {
        let mut idx = unravel(k, &rev);
        idx.reverse();
        m.pos[ravel(&idx, &m.shape)] == m.pos[0] + k
    });
    assert_eq!(l.is_f_contiguous(), f, "F contiguity {}", ctx());
}

/// True when some strides give exactly the model's mapping (a view is possible).
fn view_exists(m: &Model) -> bool {
    if m.pos.is_empty() {
        return true;
    }
    let nd = m.shape.len();
    let strides: Vec<i128> = (0..nd)
        .map(|k| {
            if m.shape[k] <= 1 {
                return 0;
            }
            let mut idx = vec![0; nd];
            idx[k] = 1;
            m.pos[ravel(&idx, &m.shape)] as i128 - m.pos[0] as i128
        })
        .collect();
    (0..m.pos.len()).all(|k| {
        let idx = unravel(k, &m.shape);
        let off: i128 = idx.iter().zip(&strides).map(|(&i, &s)| i as i128 * s).sum();
        m.pos[0] as i128 + off == m.pos[k] as i128
    })
}

/// Decodes a base shape and a chain of views from `data`, applies them to both cuarray's
/// layout and the model, and checks them after every step (panics on a difference).
/// Returns the number of operations applied.
pub fn run_bytes(data: &[u8]) -> usize {
    let mut src = Src::new(data);
    let rank = src.below(5);
    let shape: Vec<usize> = (0..rank).map(|_| src.below(6)).collect();
    let mut layout = Layout::contiguous(&shape);
    let mut model = Model::contiguous(&shape);
    let mut buf_len = model.pos.len();
    let mut chain = Vec::new();
    check(&layout, &model, buf_len, &chain);
    while !src.done() && chain.len() < 24 {
        let op = decode_op(&mut src, layout.shape());
        chain.push(op.clone());
        let want = model.apply(&op);
        let got = apply_layout(&layout, &op);
        match (got, want) {
            (None, None) => continue,
            (Some(Ok(l)), Some(m)) => {
                if matches!(op, Op::Reshape(_)) {
                    // NumPy's rule: a view whenever one exists.
                    assert!(
                        view_exists(&m),
                        "reshape gave a view where none exists: {chain:?}"
                    );
                }
                layout = l;
                model = m;
            }
            (Some(Err(())), Some(m)) => {
                assert!(
                    !view_exists(&m),
                    "reshape copied where a view exists: {chain:?}, layout {layout:?}"
                );
                // The copy: a fresh C-contiguous buffer.
                layout = Layout::contiguous(&m.shape);
                model = Model::contiguous(&m.shape);
                buf_len = model.pos.len();
            }
            (got, want) => panic!(
                "cuarray and NumPy disagree on {op:?} over layout {layout:?}: cuarray {}, NumPy {}",
                if got.is_some() { "accepts" } else { "rejects" },
                if want.is_some() { "accepts" } else { "rejects" },
            ),
        }
        check(&layout, &model, buf_len, &chain);
        if model.size() > ENUM_LIMIT {
            break;
        }
    }
    chain.len()
}
