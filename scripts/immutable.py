"""Content-named files and their cache headers: what the worker loads gets a name that changes
whenever its bytes do, so a browser may keep it for a year and never ask the server again.

    immutable.content_name(out, "py/snapshot.bin.gz")   ->  "py/snapshot-<hash>.bin.gz" (renamed)
    immutable.write_headers(out, paths)                  ->  out/_headers (Netlify, Cloudflare Pages)

build.json names the renamed files (the page and the worker read every name from it) and lists
what is immutable (`immutable`: files, and folders ending in "/"); looplab/_course/serve.py sends
`Cache-Control: public, max-age=31536000, immutable` for those and `no-cache` for the rest.
A file whose name does not change with its bytes (index.html, build.json, app.js, the looplab
wheel, whose version is not bumped for every change) stays revalidated.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

CACHE_FOREVER = "public, max-age=31536000, immutable"
HEADERS = "_headers"  # read by static hosts (Netlify, Cloudflare Pages); never served, never precached
SOURCE_MAP = "\n//# sourceMappingURL="


def content_name(out: Path, path: str) -> str:
    """Rename `path` (relative to `out`) to carry 12 hex digits of its bytes' sha256 before its
    suffixes (snapshot.bin.gz -> snapshot-<hash>.bin.gz); a script's source map is renamed with it
    and its sourceMappingURL line follows. Returns the new relative path."""
    source = out / path
    data = source.read_bytes()
    digest = hashlib.sha256(data).hexdigest()[:12]
    stem, dot, suffixes = source.name.partition(".")
    target = source.with_name(f"{stem}-{digest}{dot}{suffixes}")
    source_map = source.with_name(source.name + ".map")
    if source_map.exists():
        line = SOURCE_MAP + source.name + ".map"
        if line.encode() not in data:
            raise ValueError(f"{path} has a source map but no {line.strip()!r} line")
        data = data.replace(line.encode(), (SOURCE_MAP + target.name + ".map").encode())
        source_map.rename(target.with_name(target.name + ".map"))
    target.write_bytes(data)
    source.unlink()
    return target.relative_to(out).as_posix()


def write_headers(out: Path, immutable: list[str]) -> None:
    """`_headers` for static hosts that read one: the immutable files and folders cached for a year.
    (Its paths are from the site's root: such hosts serve a site at the root of its domain.)"""
    lines = []
    for entry in immutable:
        lines += [f"/{entry}*" if entry.endswith("/") else f"/{entry}", f"  Cache-Control: {CACHE_FOREVER}"]
    (out / HEADERS).write_text("\n".join(lines) + "\n")
