//! The kernel templates of `kernels/`, embedded by build.rs.

/// One embedded header.
pub(crate) struct KernelSource {
    pub(crate) name: &'static str,
    pub(crate) text: &'static str,
}

include!(concat!(env!("OUT_DIR"), "/kernel_sources.rs"));

/// The text of the embedded header `name`.
pub(crate) fn get(name: &str) -> &'static str {
    SOURCES
        .iter()
        .find(|s| s.name == name)
        .map(|s| s.text)
        .unwrap_or_else(|| panic!("kernel header {name} is not embedded (build.rs)"))
}

#[cfg(test)]
mod tests {
    #[test]
    fn headers_embedded() {
        assert!(super::get("common.cuh").contains("struct Indexer"));
        assert!(super::get("elementwise.cuh").contains("ew_strided"));
    }
}
