"""Build the wheels of py-extra/ from our own source: `python py-extra/build.py [DEST]` (default .cache/wheels).

Standard library only (no setuptools, no network), and reproducible: the wheel is written by
scripts/wheelfile.py with fixed file times and order, so the same source gives the same bytes.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "scripts"))
from wheelfile import sha256_file, write_wheel

PACKAGES = {"httpx2_jsfetch": "0.1.0"}  # import name -> version; the wheel's name is the same
SUMMARY = {"httpx2_jsfetch": "httpx2 transports for Pyodide: sync XMLHttpRequest and fetch (Loop Lab's own)"}
REQUIRES = {"httpx2_jsfetch": ["httpx2"]}


def build(package: str, version: str, dest: Path) -> Path:
    """Write <package>-<version>-py3-none-any.whl into dest and return its path."""
    files = {
        f"{package}/{p.relative_to(HERE / package).as_posix()}": p.read_bytes()
        for p in sorted((HERE / package).rglob("*.py"))
    }
    return write_wheel(
        dest,
        package,
        version,
        files,
        summary=SUMMARY[package],
        requires_python=">=3.12",
        requires=REQUIRES[package],
        generator="looplab-py-extra",
    )


if __name__ == "__main__":
    dest = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE.parent / ".cache" / "wheels"
    for package, version in PACKAGES.items():
        path = build(package, version, dest)
        print(f"{path}  sha256={sha256_file(path)}")
