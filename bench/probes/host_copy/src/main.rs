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
    fresh_advised(Some(libc::MADV_HUGEPAGE))
}

/// A new allocation with the given advice over its whole huge pages (None: the system's
/// default, MADV_NOHUGEPAGE: 4 KiB pages, each zeroed by the kernel in cache just before the
/// copy writes it).
fn fresh_advised(advice: Option<libc::c_int>) -> Vec<u8> {
    let mut v: Vec<u8> = Vec::with_capacity(G);
    let p = v.as_mut_ptr() as usize;
    let (s, e) = (p.next_multiple_of(2 << 20), (p + G) / (2 << 20) * (2 << 20));
    if let Some(a) = advice {
        unsafe { libc::madvise(s as *mut libc::c_void, e - s, a) };
    }
    v
}

/// Copy with non-temporal 32-byte stores (no read for ownership of the destination's lines).
#[target_feature(enable = "avx2")]
unsafe fn copy_nt(src: *const u8, dst: *mut u8, n: usize) {
    use std::arch::x86_64::*;
    let head = (dst as usize).next_multiple_of(32) - dst as usize;
    let head = head.min(n);
    std::ptr::copy_nonoverlapping(src, dst, head);
    let (mut s, mut d, mut left) = (src.add(head), dst.add(head), n - head);
    while left >= 128 {
        let a = _mm256_loadu_si256(s as *const __m256i);
        let b = _mm256_loadu_si256(s.add(32) as *const __m256i);
        let c = _mm256_loadu_si256(s.add(64) as *const __m256i);
        let e = _mm256_loadu_si256(s.add(96) as *const __m256i);
        _mm256_stream_si256(d as *mut __m256i, a);
        _mm256_stream_si256(d.add(32) as *mut __m256i, b);
        _mm256_stream_si256(d.add(64) as *mut __m256i, c);
        _mm256_stream_si256(d.add(96) as *mut __m256i, e);
        s = s.add(128);
        d = d.add(128);
        left -= 128;
    }
    std::ptr::copy_nonoverlapping(s, d, left);
    _mm_sfence();
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
    job: std::sync::Mutex<(usize, usize, usize, bool)>,
}

fn main() {
    for f in ["/sys/kernel/mm/transparent_hugepage/enabled", "/sys/kernel/mm/transparent_hugepage/defrag"] {
        println!("{f}: {}", std::fs::read_to_string(f).unwrap_or_default().trim());
    }
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
    let spin = Arc::new(Spin { gen: AtomicUsize::new(0), done: AtomicUsize::new(0), stop: AtomicBool::new(false), job: std::sync::Mutex::new((0, 0, 0, false)) });
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
                    let (dst, src, len, nt) = *s.job.lock().unwrap();
                    let piece = len.div_ceil(T);
                    let start = w * piece;
                    let n = piece.min(len.saturating_sub(start));
                    if nt {
                        unsafe { copy_nt((src + start) as *const u8, (dst + start) as *mut u8, n) };
                    } else {
                        unsafe { std::ptr::copy_nonoverlapping((src + start) as *const u8, (dst + start) as *mut u8, n) };
                    }
                    s.done.fetch_add(1, Ordering::Release);
                }
            })
        })
        .collect();
    let run_nt = |dst: usize, src: usize, len: usize, nt: bool| {
        *spin.job.lock().unwrap() = (dst, src, len, nt);
        spin.done.store(0, Ordering::Relaxed);
        spin.gen.fetch_add(1, Ordering::Release);
        while spin.done.load(Ordering::Acquire) < T {
            std::thread::yield_now();
        }
    };
    let run = |dst: usize, src: usize, len: usize| run_nt(dst, src, len, false);
    for (name, fr) in [("spin existing", false), ("spin fresh", true)] {
        time(name, fr, &mut existing, &|dst| {
            for i in 0..G / SLOT {
                run(dst + i * SLOT, src(i), SLOT);
            }
        });
    }
    // Page size and store kind, each into a fresh allocation every repetition.
    for (name, advice, nt) in [
        ("spin fresh huge", Some(libc::MADV_HUGEPAGE), false),
        ("spin fresh 4K", Some(libc::MADV_NOHUGEPAGE), false),
        ("spin fresh default", None, false),
        ("spin fresh huge NT", Some(libc::MADV_HUGEPAGE), true),
        ("spin fresh 4K NT", Some(libc::MADV_NOHUGEPAGE), true),
        ("spin existing NT", Some(0), true),
    ] {
        let mut t = Vec::new();
        for r in 0..=reps {
            let mut v = if advice == Some(0) { Vec::new() } else { fresh_advised(advice) };
            let dst = if advice == Some(0) { existing.as_mut_ptr() as usize } else { v.as_mut_ptr() as usize };
            let a = Instant::now();
            for i in 0..G / SLOT {
                run_nt(dst + i * SLOT, src(i), SLOT, nt);
            }
            if r > 0 {
                t.push(a.elapsed().as_secs_f64());
            }
            unsafe { if advice != Some(0) { v.set_len(G) } };
            drop(v);
        }
        t.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let m = t[t.len() / 2];
        println!("{name:<28} {:7.2} ms {:6.1} GB/s", m * 1e3, G as f64 / m / 1e9);
    }
    // The kernel's cost of fresh pages alone: populated (MADV_POPULATE_WRITE) by one thread
    // or by 16 threads a part each, then (last row) the NT copy into the populated GiB.
    for (name, threads, copy) in [("populate 1 thread", 1usize, false), ("populate 16 threads", 16, false), ("populate 16, then NT copy", 16, true)] {
        let mut t = Vec::new();
        for r in 0..=reps {
            let mut v = fresh();
            let p = v.as_mut_ptr() as usize;
            let a = Instant::now();
            std::thread::scope(|sc| {
                for w in 0..threads {
                    let part = G / threads;
                    let (a, e) = ((p + w * part).next_multiple_of(4096), (p + (w + 1) * part) / 4096 * 4096);
                    sc.spawn(move || {
                        let rc = unsafe { libc::madvise(a as *mut libc::c_void, e - a, 23) };
                        assert_eq!(rc, 0, "MADV_POPULATE_WRITE");
                    });
                }
            });
            if copy {
                for i in 0..G / SLOT {
                    run_nt(p + i * SLOT, src(i), SLOT, true);
                }
            }
            if r > 0 {
                t.push(a.elapsed().as_secs_f64());
            }
            unsafe { v.set_len(G) };
            drop(v);
        }
        t.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let m = t[t.len() / 2];
        println!("{name:<28} {:7.2} ms {:6.1} GB/s", m * 1e3, G as f64 / m / 1e9);
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
