//! The host half of a staged device-to-host copy of 1 GiB, without a GPU: 32 pieces of
//! 32 MiB copied from one of two buffers into a destination, by 16 threads, as
//! `stage_out` does, with rayon's pool (the library's `par_copy`) against plain threads
//! that spin on a counter, and rayon called from inside its pool; the 16 parts of a piece
//! split evenly or at 2 MiB boundaries of the destination (huge split). Wall time, median of 5.
//! Fresh: a new allocation each repetition (advised MADV_HUGEPAGE, as `to_host` does).
//!   cargo run --release   (in bench/probes/host_copy)
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

const G: usize = 1 << 30;
const SLOT: usize = 32 << 20;
const T: usize = 16;

fn fresh() -> Vec<u8> {
    let mut v: Vec<u8> = Vec::with_capacity(G);
    let p = v.as_mut_ptr() as usize;
    let (s, e) = (p.next_multiple_of(2 << 20), (p + G) / (2 << 20) * (2 << 20));
    unsafe { libc::madvise(s as *mut libc::c_void, e - s, libc::MADV_HUGEPAGE) };
    v
}

/// Where thread t's part of [dst, dst + len) starts: an even split, or (huge) each split
/// point moved down to a 2 MiB boundary of the address, so that no two threads fault in the
/// same huge page.
fn split(dst: usize, len: usize, t: usize, huge: bool) -> usize {
    let even = (len / T) * t;
    if !huge || t == 0 {
        return if t == T { len } else { even };
    }
    if t == T {
        return len;
    }
    ((dst + even) / (2 << 20) * (2 << 20)).saturating_sub(dst).min(len)
}

fn rayon_copy(dst: usize, src: usize, len: usize, huge: bool) {
    (0..T).into_par_iter().for_each(|t| {
        let (a, b) = (split(dst, len, t, huge), split(dst, len, t + 1, huge));
        unsafe { std::ptr::copy_nonoverlapping((src + a) as *const u8, (dst + a) as *mut u8, b - a) }
    });
}

struct Spin {
    gen: AtomicUsize,
    done: AtomicUsize,
    stop: AtomicBool,
    job: std::sync::Mutex<(usize, usize, usize)>,
}

fn main() {
    let slots = [vec![3u8; SLOT], vec![5u8; SLOT]];
    let mut existing = vec![1u8; G];
    let reps = 5;
    let time = |name: &str, fresh_dst: bool, existing: &mut Vec<u8>, f: &dyn Fn(usize)| {
        let mut t = Vec::new();
        for r in 0..=reps {
            let mut v = if fresh_dst { fresh() } else { Vec::new() };
            let dst = if fresh_dst { v.as_mut_ptr() as usize } else { existing.as_mut_ptr() as usize };
            let a = Instant::now();
            f(dst);
            if r > 0 {
                t.push(a.elapsed().as_secs_f64());
            }
            unsafe { if fresh_dst { v.set_len(G) } };
            drop(v);
        }
        t.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let m = t[t.len() / 2];
        println!("{name:<28} {:7.2} ms {:6.1} GB/s", m * 1e3, G as f64 / m / 1e9);
    };
    let src = |i: usize| slots[i % 2].as_ptr() as usize;
    println!("rayon threads {}", rayon::current_num_threads());
    for (name, fr, huge) in [("rayon existing", false, false), ("rayon fresh", true, false), ("rayon fresh, huge split", true, true), ("rayon existing, huge split", false, true)] {
        time(name, fr, &mut existing, &|dst| {
            for i in 0..G / SLOT {
                rayon_copy(dst + i * SLOT, src(i), SLOT, huge);
            }
        });
    }
    for (name, fr) in [("rayon in pool existing", false), ("rayon in pool fresh", true)] {
        time(name, fr, &mut existing, &|dst| {
            rayon::scope(|_| {
                for i in 0..G / SLOT {
                    rayon_copy(dst + i * SLOT, src(i), SLOT, false);
                }
            })
        });
    }
    // Plain threads spinning (yielding) on a generation counter.
    let spin = Arc::new(Spin { gen: AtomicUsize::new(0), done: AtomicUsize::new(0), stop: AtomicBool::new(false), job: std::sync::Mutex::new((0, 0, 0)) });
    let workers: Vec<_> = (0..T)
        .map(|w| {
            let s = spin.clone();
            std::thread::spawn(move || {
                let mut seen = 0;
                loop {
                    let g = loop {
                        let g = s.gen.load(Ordering::Acquire);
                        if g != seen { break g; }
                        if s.stop.load(Ordering::Relaxed) { return; }
                        std::thread::yield_now();
                    };
                    seen = g;
                    let (dst, src, len) = *s.job.lock().unwrap();
                    let piece = len.div_ceil(T);
                    let start = w * piece;
                    let n = piece.min(len.saturating_sub(start));
                    unsafe { std::ptr::copy_nonoverlapping((src + start) as *const u8, (dst + start) as *mut u8, n) };
                    s.done.fetch_add(1, Ordering::Release);
                }
            })
        })
        .collect();
    let run = |dst: usize, src: usize, len: usize| {
        *spin.job.lock().unwrap() = (dst, src, len);
        spin.done.store(0, Ordering::Relaxed);
        spin.gen.fetch_add(1, Ordering::Release);
        while spin.done.load(Ordering::Acquire) < T {
            std::thread::yield_now();
        }
    };
    for (name, fr) in [("spin existing", false), ("spin fresh", true)] {
        time(name, fr, &mut existing, &|dst| {
            for i in 0..G / SLOT {
                run(dst + i * SLOT, src(i), SLOT);
            }
        });
    }
    spin.stop.store(true, Ordering::Relaxed);
    for w in workers {
        w.join().unwrap();
    }
    // Rayon again, after the spinning threads are gone (order effects).
    time("rayon fresh (again)", true, &mut existing, &|dst| {
        for i in 0..G / SLOT {
            rayon_copy(dst + i * SLOT, src(i), SLOT, false);
        }
    });
    time("rayon fresh, huge split (again)", true, &mut existing, &|dst| {
        for i in 0..G / SLOT {
            rayon_copy(dst + i * SLOT, src(i), SLOT, true);
        }
    });
}
