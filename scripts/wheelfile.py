"""Wheel files: writing a pure-Python wheel reproducibly, hashing files, and distribution names.

Shared by scripts/build_site.py (the looplab wheel), py-extra/build.py (our own wheels, also run
on its own by the Makefile) and scripts/wheels.py (the pinned wheels). Standard library only.

    path = write_wheel(dest, "looplab", "0.1.0", {"looplab/__init__.py": b"..."},
                       summary="...", requires_python=">=3.11", generator="looplab build_site.py")
"""

from __future__ import annotations

import base64
import hashlib
import re
import zipfile
from pathlib import Path

ZIP_TIME = (1980, 1, 1, 0, 0, 0)  # fixed, so the same source gives the same wheel bytes


def sha256_file(path: Path) -> str:
    """The hex sha256 of a file, read in blocks (wheels can be large)."""
    digest = hashlib.sha256()
    with Path(path).open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def canonical(name: str) -> str:
    """A distribution name as PEP 503 compares it: pydantic_core, Pygments -> pydantic-core, pygments."""
    return re.sub(r"[-_.]+", "-", name).lower()


def record_line(arcname: str, data: bytes) -> str:
    """One RECORD line: the file, its urlsafe-base64 sha256 without padding, its size."""
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{arcname},sha256={digest},{len(data)}"


def metadata_text(
    name: str,
    version: str,
    *,
    summary: str,
    requires_python: str,
    requires: list[str] = (),
    extras: dict[str, list[str]] | None = None,
    description: str = "",
) -> str:
    """Core metadata (METADATA in a wheel, PKG-INFO in an sdist): extras as `Provides-Extra` with
    their requirements marked `extra == "..."`, the long description (markdown) as the body."""
    text = (
        f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\nSummary: {summary}\n"
        f"Requires-Python: {requires_python}\n" + "".join(f"Requires-Dist: {r}\n" for r in requires)
    )
    for extra, needs in (extras or {}).items():
        text += f"Provides-Extra: {extra}\n" + "".join(f'Requires-Dist: {r}; extra == "{extra}"\n' for r in needs)
    if description:
        text += f"Description-Content-Type: text/markdown\n\n{description}"
    return text


def write_wheel(
    dest: Path,
    name: str,
    version: str,
    files: dict[str, bytes],
    *,
    summary: str,
    requires_python: str,
    generator: str,
    requires: list[str] = (),
    extras: dict[str, list[str]] | None = None,
    description: str = "",
    scripts: dict[str, str] | None = None,
    date_time: tuple = ZIP_TIME,
) -> Path:
    """Write `<name>-<version>-py3-none-any.whl` into dest from `files` (archive name -> bytes),
    with its METADATA, WHEEL, RECORD (and entry_points.txt for `scripts`: command -> module:function);
    the same input always gives the same bytes."""
    dist_info = f"{name}-{version}.dist-info"
    files = dict(sorted(files.items()))
    metadata = metadata_text(
        name,
        version,
        summary=summary,
        requires_python=requires_python,
        requires=requires,
        extras=extras,
        description=description,
    )
    files[f"{dist_info}/METADATA"] = metadata.encode()
    if scripts:
        files[f"{dist_info}/entry_points.txt"] = (
            "[console_scripts]\n" + "".join(f"{command} = {target}\n" for command, target in scripts.items())
        ).encode()
    files[f"{dist_info}/WHEEL"] = (
        f"Wheel-Version: 1.0\nGenerator: {generator}\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    ).encode()
    record = [record_line(arcname, data) for arcname, data in files.items()] + [f"{dist_info}/RECORD,,"]
    files[f"{dist_info}/RECORD"] = ("\n".join(record) + "\n").encode()
    dest.mkdir(parents=True, exist_ok=True)
    path = dest / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as wheel:
        for arcname, data in files.items():
            info = zipfile.ZipInfo(arcname, date_time)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            wheel.writestr(info, data)
    return path
