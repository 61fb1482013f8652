//! Kernel caches: in memory per device (family and spec -> loaded function) and on disk
//! (CUBIN files keyed by the sha256 of everything that determines them).
//!
//! Disk cache: directory `$CUARRAY_CACHE_DIR`, else `$XDG_CACHE_HOME/cuarray/kernels`, else
//! `~/.cache/cuarray/kernels`; `CUARRAY_CACHE=off` turns it off. Each file `<key>.cubin`
//! holds a header line with the sha256 of its body; a file whose body does not match is
//! ignored and rewritten. Writes go to a temporary file in the same folder and are renamed
//! into place, so readers never see half a file. Disk failures are never fatal.

use super::{nvrtc, source, Family};
use crate::device::Device;
use crate::{Error, Result};
use cudarc::driver::{CudaContext, CudaFunction};
use cudarc::nvrtc::Ptx;
use sha2::{Digest, Sha256};
use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

/// Bumped whenever the file format or the meaning of a key changes.
const FORMAT_VERSION: &str = "cuarray-kernel-cache-v1";
const MAGIC: &str = "cuarray-cubin";

/// Counters of a device's kernel cache.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Kernels found already loaded in memory.
    pub memory_hits: u64,
    /// Kernels loaded from the disk cache (no compile).
    pub disk_hits: u64,
    /// Kernels compiled by NVRTC.
    pub compiles: u64,
    /// Total time spent in NVRTC.
    pub compile_time: Duration,
    /// FFT plans found in the device's plan cache.
    pub fft_plan_hits: u64,
    /// FFT plans created (not found in the plan cache).
    pub fft_plan_misses: u64,
    /// FFT plans dropped from the plan cache to make room for a new one.
    pub fft_plan_evictions: u64,
}

/// Counters of a library's plan cache (cuFFT's), kept beside the kernel cache's so that
/// [`Device::kernel_cache_stats`] reports them together (a device extension).
#[derive(Default)]
pub(crate) struct PlanCounters {
    pub(crate) hits: AtomicU64,
    pub(crate) misses: AtomicU64,
    pub(crate) evictions: AtomicU64,
}

#[derive(Default)]
struct Counters {
    memory_hits: AtomicU64,
    disk_hits: AtomicU64,
    compiles: AtomicU64,
    compile_nanos: AtomicU64,
}

/// A loaded kernel and its occupancy at its block size.
pub(crate) struct Kernel {
    pub(crate) func: CudaFunction,
    /// Blocks resident per multiprocessor (at least 1).
    pub(crate) blocks_per_sm: u32,
    /// Threads per block it was compiled for.
    pub(crate) block_threads: u32,
    /// Dynamic shared bytes past 48 KB the function has been allowed (0: none yet).
    pub(crate) smem_allowed: std::sync::Mutex<u32>,
    /// Launched with programmatic stream serialisation: the kernel waits for the grid
    /// before it itself (`cuarray_dependent_entry`), on a GPU of compute capability 9.0 or
    /// later, unless `CUARRAY_DEPENDENT_LAUNCH=0`.
    pub(crate) dependent: bool,
}

/// Whether kernels that wait for the grid before them themselves are launched so that
/// they may overlap it: on unless `CUARRAY_DEPENDENT_LAUNCH` is `0` or `off` (see
/// [`tuning::dependent_launch`](crate::tuning::dependent_launch)).
fn dependent_launch_allowed() -> bool {
    crate::tuning::dependent_launch()
}

/// A loaded kernel with the spec it was built from (of the family named by the key).
struct Entry {
    spec: Box<dyn Any + Send + Sync>,
    kernel: Arc<Kernel>,
}

/// Loaded kernels by (family, hash of the spec); specs of equal hash share a bucket.
type Loaded = HashMap<(TypeId, u64), Vec<Entry>, BuildHasherDefault<Fnv>>;

/// The cache of one device's loaded kernels, keyed by family and the spec's hash.
#[derive(Default)]
pub(crate) struct KernelCache {
    loaded: RwLock<Loaded>,
    counters: Counters,
}

/// The device's loaded kernel for `spec`: from memory, else disk, else NVRTC.
pub(crate) fn kernel<F: Family>(device: &Device, spec: &F) -> Result<Arc<Kernel>> {
    // A module loaded during a capture: allowed in relaxed mode (a no-op otherwise).
    let _relaxed = device.relaxed_capture_mode();
    device
        .extension::<KernelCache>()
        .get(device.context(), device.arch(), spec)
}

impl KernelCache {
    pub(crate) fn stats(&self) -> CacheStats {
        let c = &self.counters;
        CacheStats {
            memory_hits: c.memory_hits.load(Ordering::Relaxed),
            disk_hits: c.disk_hits.load(Ordering::Relaxed),
            compiles: c.compiles.load(Ordering::Relaxed),
            compile_time: Duration::from_nanos(c.compile_nanos.load(Ordering::Relaxed)),
            ..CacheStats::default()
        }
    }

    /// The kernel for `spec` loaded in `ctx` (of compute capability `arch`): from memory,
    /// else disk, else NVRTC.
    pub(crate) fn get<F: Family>(
        &self,
        ctx: &Arc<CudaContext>,
        arch: (u32, u32),
        spec: &F,
    ) -> Result<Arc<Kernel>> {
        let mut h = Fnv::default();
        spec.hash(&mut h);
        let key = (TypeId::of::<F>(), h.finish());
        let found = |map: &Loaded| {
            map.get(&key)?
                .iter()
                .find(|e| e.spec.downcast_ref::<F>() == Some(spec))
                .map(|e| e.kernel.clone())
        };
        if let Some(k) = found(&self.loaded.read().unwrap_or_else(|p| p.into_inner())) {
            self.counters.memory_hits.fetch_add(1, Ordering::Relaxed);
            return Ok(k);
        }
        let symbol = spec.symbol();
        let src = source(spec);
        let (cubin, from_disk) = self.cubin(&src, &symbol, arch, true)?;
        ctx.bind_to_thread()
            .map_err(Error::cuda("binding the context"))?;
        let module = match ctx.load_module(Ptx::from_binary(cubin)) {
            Ok(m) => m,
            // An intact disk entry the driver will not load (e.g. written by another
            // toolkit): compile afresh, which replaces the entry.
            Err(_) if from_disk => {
                let (cubin, _) = self.cubin(&src, &symbol, arch, false)?;
                ctx.load_module(Ptx::from_binary(cubin))
                    .map_err(Error::cuda("loading a kernel module"))?
            }
            Err(e) => return Err(Error::cuda("loading a kernel module")(e)),
        };
        let func = module
            .load_function(&symbol)
            .map_err(Error::cuda("loading a kernel function"))?;
        let block_threads = spec.block_threads();
        let blocks_per_sm = func
            .occupancy_max_active_blocks_per_multiprocessor(block_threads, 0, None)
            .map_err(Error::cuda("reading a kernel's occupancy"))?
            .max(1);
        let kernel = Arc::new(Kernel {
            func,
            blocks_per_sm,
            block_threads,
            smem_allowed: Default::default(),
            dependent: spec.dependent_launch() && arch.0 >= 9 && dependent_launch_allowed(),
        });
        let mut map = self.loaded.write().unwrap_or_else(|p| p.into_inner());
        if let Some(k) = found(&map) {
            // Another thread loaded it meanwhile: keep one.
            return Ok(k);
        }
        map.entry(key).or_default().push(Entry {
            spec: Box::new(spec.clone()),
            kernel: kernel.clone(),
        });
        Ok(kernel)
    }

    /// Drops every loaded kernel (the counters are kept).
    pub(crate) fn clear(&self) {
        // Taken out under the lock, dropped (modules unloaded) after it is released.
        let loaded = std::mem::take(&mut *self.loaded.write().unwrap_or_else(|p| p.into_inner()));
        drop(loaded);
    }

    /// The CUBIN of `source`: from the disk cache when `use_disk` allows and it holds it
    /// (then `true`), else compiled by NVRTC and stored there.
    fn cubin(
        &self,
        source: &str,
        symbol: &str,
        arch: (u32, u32),
        use_disk: bool,
    ) -> Result<(Vec<u8>, bool)> {
        let options = nvrtc::options(arch);
        let disk = DiskCache::from_env();
        let key = disk
            .as_ref()
            .map(|_| nvrtc::version().map(|v| cache_key(source, &options, v)))
            .transpose()?;
        if let (Some(d), Some(k), true) = (&disk, &key, use_disk) {
            if let Some(bin) = d.load(k) {
                self.counters.disk_hits.fetch_add(1, Ordering::Relaxed);
                return Ok((bin, true));
            }
        }
        dump_source(symbol, source);
        let t = Instant::now();
        let bin = nvrtc::compile(source, symbol, &options)?;
        self.counters
            .compile_nanos
            .fetch_add(t.elapsed().as_nanos() as u64, Ordering::Relaxed);
        self.counters.compiles.fetch_add(1, Ordering::Relaxed);
        if let (Some(d), Some(k)) = (&disk, &key) {
            d.store(k, &bin);
        }
        Ok((bin, false))
    }
}

impl Device {
    /// Counters of the kernel cache (memory hits, disk hits, compiles and compile time)
    /// and of the FFT plan cache (hits, misses, evictions).
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let a = cuarray::DeviceArray::<f32>::ones(&dev, &[1024])?;
    /// let _ = (&a + &a)?;
    /// let s = dev.kernel_cache_stats();
    /// assert!(s.memory_hits + s.disk_hits + s.compiles >= 1);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn kernel_cache_stats(&self) -> CacheStats {
        let plans = self.extension::<PlanCounters>();
        CacheStats {
            fft_plan_hits: plans.hits.load(Ordering::Relaxed),
            fft_plan_misses: plans.misses.load(Ordering::Relaxed),
            fft_plan_evictions: plans.evictions.load(Ordering::Relaxed),
            ..self.extension::<KernelCache>().stats()
        }
    }

    /// Drops the compiled kernel modules this device holds in memory, so that the next use
    /// of each kernel loads it from the disk cache, or compiles it with NVRTC when the disk
    /// cache is off (`CUARRAY_CACHE=off`). The cache counters
    /// ([`kernel_cache_stats`](Device::kernel_cache_stats)) are kept.
    ///
    /// Waits for the device first (every stream), so that no queued kernel still runs from
    /// a module being unloaded. Meant for measuring and testing the cache's slower paths;
    /// nothing else needs it.
    ///
    /// ```no_run
    /// let dev = cuarray::Device::new(0)?;
    /// let a = cuarray::DeviceArray::<f32>::ones(&dev, &[1024])?;
    /// let _ = (&a + &a)?;                  // the add kernel: compiled or loaded, then kept
    /// dev.clear_kernel_memory_cache();
    /// let before = dev.kernel_cache_stats();
    /// let _ = (&a + &a)?;                  // loaded again: from disk, or compiled
    /// let after = dev.kernel_cache_stats();
    /// assert!(after.disk_hits + after.compiles > before.disk_hits + before.compiles);
    /// # Ok::<(), cuarray::Error>(())
    /// ```
    pub fn clear_kernel_memory_cache(&self) {
        // An unload while kernels of the module are queued is not defined by CUDA.
        let _ = self.synchronize_all();
        self.extension::<KernelCache>().clear()
    }
}

/// FNV-1a: a spec is a few dozen bytes, for which SipHash's setup dominates; the map's
/// keys are our own specs, so hash flooding is not a concern.
#[derive(Default)]
pub(crate) struct Fnv(u64);

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        let mut h = if self.0 == 0 {
            0xcbf2_9ce4_8422_2325
        } else {
            self.0
        };
        for &b in bytes {
            h = (h ^ b as u64).wrapping_mul(0x0100_0000_01b3);
        }
        self.0 = h;
    }
}

/// Writes the rendered source to `$CUARRAY_DUMP_KERNELS/<symbol>.cu` when that is set.
fn dump_source(symbol: &str, source: &str) {
    if let Some(dir) = crate::tuning::dump_kernels_dir() {
        let _ = std::fs::create_dir_all(&dir);
        let _ = std::fs::write(dir.join(format!("{symbol}.cu")), source);
    }
}

/// The disk-cache key: sha256 over the format version, the full rendered source (which
/// holds every header's text), the compile options (which name the architecture) and
/// NVRTC's version.
pub fn cache_key(source: &str, options: &[String], nvrtc_version: (i32, i32)) -> String {
    let mut h = Sha256::new();
    h.update(FORMAT_VERSION.as_bytes());
    h.update([0u8]);
    h.update(source.as_bytes());
    h.update([0u8]);
    for o in options {
        h.update(o.as_bytes());
        h.update([0u8]);
    }
    h.update(format!("nvrtc {}.{}", nvrtc_version.0, nvrtc_version.1).as_bytes());
    h.update(b"cubin");
    hex(&h.finalize())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// CUBIN files on disk, one per key.
#[derive(Debug, Clone)]
pub struct DiskCache {
    dir: PathBuf,
}

impl DiskCache {
    /// The cache configured by the environment, or `None` when `CUARRAY_CACHE=off` or no
    /// directory can be determined (see [`tuning::disk_cache_enabled`] and
    /// [`tuning::disk_cache_dir`]).
    ///
    /// [`tuning::disk_cache_enabled`]: crate::tuning::disk_cache_enabled
    /// [`tuning::disk_cache_dir`]: crate::tuning::disk_cache_dir
    pub fn from_env() -> Option<DiskCache> {
        if !crate::tuning::disk_cache_enabled() {
            return None;
        }
        Some(DiskCache {
            dir: crate::tuning::disk_cache_dir()?,
        })
    }

    /// A cache in `dir`.
    pub fn new(dir: impl Into<PathBuf>) -> DiskCache {
        DiskCache { dir: dir.into() }
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn path(&self, key: &str) -> PathBuf {
        self.dir.join(format!("{key}.cubin"))
    }

    /// The CUBIN stored under `key`, if present and intact.
    pub fn load(&self, key: &str) -> Option<Vec<u8>> {
        let data = std::fs::read(self.path(key)).ok()?;
        let nl = data.iter().position(|&b| b == b'\n')?;
        let header = std::str::from_utf8(&data[..nl]).ok()?;
        let body = &data[nl + 1..];
        let expected = header.strip_prefix(MAGIC)?.trim();
        (hex(&Sha256::digest(body)) == expected && !body.is_empty()).then(|| body.to_vec())
    }

    /// Stores `cubin` under `key` atomically (temporary file, then rename). Failures are
    /// ignored: the cache is an optimisation.
    pub fn store(&self, key: &str, cubin: &[u8]) {
        let _ = self.try_store(key, cubin);
    }

    fn try_store(&self, key: &str, cubin: &[u8]) -> std::io::Result<()> {
        std::fs::create_dir_all(&self.dir)?;
        let mut data = format!("{MAGIC} {}\n", hex(&Sha256::digest(cubin))).into_bytes();
        data.extend_from_slice(cubin);
        let tmp = self.dir.join(format!(
            ".{key}.{}.{:?}.tmp",
            std::process::id(),
            std::thread::current().id()
        ));
        std::fs::write(&tmp, &data)?;
        std::fs::rename(&tmp, self.path(key)).inspect_err(|_| {
            let _ = std::fs::remove_file(&tmp);
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tmpdir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("cuarray-test-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn key_changes_with_every_input() {
        let o = vec!["--gpu-architecture=sm_90".to_string()];
        let k = cache_key("src", &o, (13, 0));
        assert_eq!(k, cache_key("src", &o, (13, 0)));
        assert_eq!(k.len(), 64);
        assert_ne!(k, cache_key("src2", &o, (13, 0)));
        assert_ne!(
            k,
            cache_key("src", &["--gpu-architecture=sm_80".to_string()], (13, 0))
        );
        assert_ne!(k, cache_key("src", &o, (13, 1)));
    }

    #[test]
    fn store_load_and_corruption() {
        let c = DiskCache::new(tmpdir("cache"));
        assert!(c.load("k").is_none());
        c.store("k", b"\x7fELF binary \n with newline");
        assert_eq!(c.load("k").unwrap(), b"\x7fELF binary \n with newline");
        // Corrupt the body: the entry is rejected.
        let p = c.dir().join("k.cubin");
        let mut data = std::fs::read(&p).unwrap();
        let n = data.len();
        data[n - 1] ^= 1;
        std::fs::write(&p, &data).unwrap();
        assert!(c.load("k").is_none());
        // Truncated file, garbage header: rejected.
        std::fs::write(&p, b"garbage").unwrap();
        assert!(c.load("k").is_none());
        // Rewritten: good again; no temporary files left behind.
        c.store("k", b"abc");
        assert_eq!(c.load("k").unwrap(), b"abc");
        let leftovers: Vec<_> = std::fs::read_dir(c.dir())
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
            .collect();
        assert!(leftovers.is_empty());
        let _ = std::fs::remove_dir_all(c.dir());
    }

    #[test]
    fn unwritable_dir_is_not_fatal() {
        let c = DiskCache::new("/proc/cuarray-cannot-write-here");
        c.store("k", b"abc");
        assert!(c.load("k").is_none());
    }
}
