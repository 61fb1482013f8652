//! [`Text`]: a piece of kernel source held by a spec (an op's name, its body), either a
//! `&'static str` of the built-in catalogue or a shared string written by a user, so that
//! building a spec on the hot path never allocates.

use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// Source text of a kernel spec: static (built-in ops) or shared (user kernels).
///
/// Cloning is free for static text and one reference-count increment for shared text.
/// Shared text carries the hash of its contents, computed once, so that hashing a spec
/// with a long user body costs no more than hashing a built-in one. Two texts are equal
/// when they are of the same kind and hold the same characters.
#[derive(Clone)]
pub enum Text {
    /// Text of the built-in catalogue.
    Static(&'static str),
    /// Text written at run time (user kernels), with the hash of its contents.
    Shared(Arc<(u64, Box<str>)>),
}

impl Text {
    /// The empty text.
    pub(crate) const EMPTY: Text = Text::Static("");

    /// Shared text holding `s`.
    pub(crate) fn shared(s: impl Into<Box<str>>) -> Text {
        let s: Box<str> = s.into();
        let mut h = super::cache::Fnv::default();
        s.hash(&mut h);
        Text::Shared(Arc::new((h.finish(), s)))
    }

    /// The characters.
    pub(crate) fn as_str(&self) -> &str {
        match self {
            Text::Static(s) => s,
            Text::Shared(s) => &s.1,
        }
    }

    /// The text when it is static (error messages and profiler ranges take `&'static
    /// str`), else `fallback`.
    pub(crate) fn static_or(&self, fallback: &'static str) -> &'static str {
        match self {
            Text::Static(s) => s,
            Text::Shared(_) => fallback,
        }
    }
}

impl std::ops::Deref for Text {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl PartialEq for Text {
    fn eq(&self, other: &Text) -> bool {
        match (self, other) {
            (Text::Static(a), Text::Static(b)) => a == b,
            (Text::Shared(a), Text::Shared(b)) => Arc::ptr_eq(a, b) || (a.0 == b.0 && a.1 == b.1),
            _ => false,
        }
    }
}

impl Eq for Text {}

impl Hash for Text {
    fn hash<H: Hasher>(&self, state: &mut H) {
        match self {
            Text::Static(s) => s.hash(state),
            Text::Shared(s) => state.write_u64(s.0),
        }
    }
}

impl PartialEq<str> for Text {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Text {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl std::fmt::Debug for Text {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.as_str(), f)
    }
}

impl std::fmt::Display for Text {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl From<&'static str> for Text {
    fn from(s: &'static str) -> Text {
        Text::Static(s)
    }
}

impl From<String> for Text {
    fn from(s: String) -> Text {
        Text::shared(s)
    }
}

impl From<std::borrow::Cow<'static, str>> for Text {
    fn from(s: std::borrow::Cow<'static, str>) -> Text {
        match s {
            std::borrow::Cow::Borrowed(s) => Text::Static(s),
            std::borrow::Cow::Owned(s) => Text::shared(s),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equality_and_hash() {
        let h = |t: &Text| {
            let mut s = std::collections::hash_map::DefaultHasher::new();
            t.hash(&mut s);
            s.finish()
        };
        let a = Text::shared("out0 = in0;");
        let b = Text::from("out0 = in0;".to_string());
        assert_eq!(a, b);
        assert_eq!(h(&a), h(&b));
        assert_ne!(a, Text::shared("out0 = in1;"));
        assert_eq!(Text::from("x"), Text::Static("x"));
        assert_eq!(&*a, "out0 = in0;");
        assert_eq!(a.static_or("user"), "user");
        assert_eq!(Text::from("add").static_or("user"), "add");
        assert!(Text::EMPTY.is_empty());
    }
}
