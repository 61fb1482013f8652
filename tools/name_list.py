#!/usr/bin/env python3
"""Adds to docs/names/*.tsv every public name of the installed NumPy and SciPy that the
lists do not hold yet (as `not yet`), and prints the listed names that the installed
versions no longer have. tools/name_map.py turns the lists into docs/numpy-map.md and
tests/name_map.rs.

    pip install numpy scipy
    python3 tools/name_list.py            # add new names
    python3 tools/name_list.py --suggest  # also print likely items for `not yet` names

`--suggest` looks for a `pub fn` of the same name in the namespace's module (`src/signal/`
for scipy.signal, ...; crate-root re-exports and `DeviceArray` methods for numpy) and prints
`namespace name -> path` lines to check and copy into the lists by hand (the test of
tools/name_map.py then confirms that each path exists).

A public name is one in the namespace's `__all__` (for numpy.random.Generator, a method or
attribute without a leading underscore) that is not a submodule.
"""
import importlib
import pathlib
import re
import sys
import types

ROOT = pathlib.Path(__file__).resolve().parent.parent
NAMES = ROOT / "docs" / "names"
NAMESPACES = [
    "numpy",
    "numpy.linalg",
    "numpy.fft",
    "numpy.random.Generator",
    "scipy.special",
    "scipy.signal",
    "scipy.ndimage",
    "scipy.sparse",
    "scipy.sparse.linalg",
]
HEADER = "name\tcuarray\tcheck\tnote"


def public_names(namespace):
    if namespace == "numpy.random.Generator":
        import numpy.random

        return sorted(n for n in dir(numpy.random.Generator) if not n.startswith("_"))
    mod = importlib.import_module(namespace)
    names = getattr(mod, "__all__", None) or dir(mod)
    return sorted(
        {
            n
            for n in names
            if not n.startswith("_") and not isinstance(getattr(mod, n, None), types.ModuleType)
        }
    )


MODULES = {
    "numpy.linalg": ("linalg", "linalg::"),
    "numpy.fft": ("fft", "fft::"),
    "numpy.random.Generator": ("random", "random::Generator::"),
    "scipy.special": ("special", "special::"),
    "scipy.signal": ("signal", "signal::"),
    "scipy.ndimage": ("ndimage", "ndimage::"),
    "scipy.sparse": ("sparse", "sparse::"),
    "scipy.sparse.linalg": ("sparse/linalg", "sparse::linalg::"),
}


def source(folder):
    d = ROOT / "src" / folder
    files = sorted(d.rglob("*.rs")) if d.is_dir() else [d.with_suffix(".rs")]
    return "\n".join(f.read_text() for f in files if f.exists())


def suggest(ns, name):
    """A likely cuarray path for `name`, or None."""
    fn = re.compile(r"pub fn " + re.escape(name) + r"\b")
    if ns == "numpy":
        lib = (ROOT / "src" / "lib.rs").read_text()
        uses = " ".join(re.findall(r"pub use [^;]*;", lib, re.S))
        if re.search(r"[\s{,]" + re.escape(name) + r"[\s,}]", uses):
            return name
        array = source("array")
        if fn.search(array):
            return f"DeviceArray::{name}"
        return None
    folder, prefix = MODULES[ns]
    return prefix + name if fn.search(source(folder)) else None


def main():
    NAMES.mkdir(parents=True, exist_ok=True)
    for ns in NAMESPACES:
        path = NAMES / f"{ns}.tsv"
        rows = path.read_text().splitlines()[1:] if path.exists() else []
        have = {r.split("\t", 1)[0] for r in rows if r.strip()}
        names = public_names(ns)
        added = [n for n in names if n not in have]
        gone = sorted(have - set(names))
        rows += [f"{n}\tnot yet\t\t" for n in added]
        rows.sort(key=lambda r: r.split("\t", 1)[0].lower())
        path.write_text("\n".join([HEADER] + rows) + "\n")
        print(f"{ns}: {len(names)} names, {len(added)} added")
        for n in gone:
            print(f"  {ns}.{n}: listed but not in the installed version")
        if "--suggest" in sys.argv:
            for r in rows:
                f = r.split("\t")
                if len(f) > 1 and f[1] == "not yet":
                    s = suggest(ns, f[0])
                    if s:
                        print(f"  {ns} {f[0]} -> {s}")


if __name__ == "__main__":
    main()
