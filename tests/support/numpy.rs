//! NumPy's and Python's semantics written out independently of cuarray: the reference
//! models that the host tests (tests/shape.rs) and the GPU tests (tests/gpu/) share.
//! Included with `#[path]`.

#![allow(dead_code)]

/// All multi-indices of `shape` in row-major order.
pub fn indices(shape: &[usize]) -> Vec<Vec<usize>> {
    let n: usize = shape.iter().product();
    let mut out = Vec::with_capacity(n);
    let mut idx = vec![0usize; shape.len()];
    for _ in 0..n {
        out.push(idx.clone());
        for d in (0..shape.len()).rev() {
            idx[d] += 1;
            if idx[d] < shape[d] {
                break;
            }
            idx[d] = 0;
        }
    }
    out
}

/// Python's `range(len)[start:stop:step]`, written out from the language reference.
pub fn py_slice(start: Option<isize>, stop: Option<isize>, step: isize, len: usize) -> Vec<usize> {
    assert!(step != 0);
    let n = len as isize;
    let norm = |v: isize| if v < 0 { v + n } else { v };
    let mut out = Vec::new();
    if step > 0 {
        let s = start.map_or(0, norm).clamp(0, n);
        let e = stop.map_or(n, norm).clamp(0, n);
        let mut i = s;
        while i < e {
            out.push(i as usize);
            i += step;
        }
    } else {
        let s = start.map_or(n - 1, norm).clamp(-1, n - 1);
        let e = stop.map_or(-1, norm).clamp(-1, n - 1);
        let mut i = s;
        while i > e {
            out.push(i as usize);
            i += step;
        }
    }
    out
}

/// NumPy's broadcast shape, computed independently of cuarray.
pub fn np_broadcast(a: &[usize], b: &[usize]) -> Option<Vec<usize>> {
    let n = a.len().max(b.len());
    let get = |s: &[usize], i: usize| {
        if i + s.len() >= n {
            s[i + s.len() - n]
        } else {
            1
        }
    };
    (0..n)
        .map(|i| {
            let (x, y) = (get(a, i), get(b, i));
            if x == y || y == 1 {
                Some(x)
            } else if x == 1 {
                Some(y)
            } else {
                None
            }
        })
        .collect()
}
