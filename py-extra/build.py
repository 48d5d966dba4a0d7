"""Build the wheels of py-extra/ from our own source: `python py-extra/build.py [DEST]` (default .cache/wheels).

Pure standard library (no setuptools, no network), and reproducible: fixed file times and order,
so the same source gives the same bytes and the same sha256.
"""

import base64
import hashlib
import sys
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
PACKAGES = {"httpx2_jsfetch": "0.1.0"}   # import name -> version; the wheel's name is the same
SUMMARY = {"httpx2_jsfetch": "httpx2 transports for Pyodide: sync XMLHttpRequest and fetch (Loop Lab's own)"}


def record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def build(package: str, version: str, dest: Path) -> Path:
    """Write <package>-<version>-py3-none-any.whl into dest and return its path."""
    dist = f"{package}-{version}.dist-info"
    files = {f"{package}/{p.relative_to(HERE / package).as_posix()}": p.read_bytes()
             for p in sorted((HERE / package).rglob("*.py"))}
    files[f"{dist}/METADATA"] = (f"Metadata-Version: 2.1\nName: {package}\nVersion: {version}\n"
                                 f"Summary: {SUMMARY[package]}\nRequires-Python: >=3.12\n"
                                 f"Requires-Dist: httpx2\n").encode()
    files[f"{dist}/WHEEL"] = b"Wheel-Version: 1.0\nGenerator: looplab-py-extra\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    record = [record_line(n, d) for n, d in files.items()] + [f"{dist}/RECORD,,"]
    files[f"{dist}/RECORD"] = ("\n".join(record) + "\n").encode()
    dest.mkdir(parents=True, exist_ok=True)
    path = dest / f"{package}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as wheel:
        for name, data in files.items():
            info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            wheel.writestr(info, data, zipfile.ZIP_DEFLATED)
    return path


if __name__ == "__main__":
    dest = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE.parent / ".cache" / "wheels"
    for package, version in PACKAGES.items():
        path = build(package, version, dest)
        print(f"{path}  sha256={hashlib.sha256(path.read_bytes()).hexdigest()}")
