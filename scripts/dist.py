"""The looplab package as it is published: a wheel and an sdist carrying the course and the site.

    python scripts/dist.py [--out dist]          # dist/looplab-V-py3-none-any.whl, dist/looplab-V.tar.gz
    python scripts/dist.py --site-zip            # dist/looplab-site-V.zip: the static site alone
    pip install .                                # this file is also pyproject.toml's build backend

The wheel holds py/looplab, the lessons as package data (looplab/_course/lessons: course.py finds
them) and the built site (looplab/_site: `looplab serve` serves it) from web/dist (`make build`).
An sdist holds the same sources and the built site at web/dist, so a wheel built from it is the
wheel built here. Standard library only, no network (PEP 517's hooks for pip, no setuptools).

Reproducible: files in sorted order, every timestamp SOURCE_DATE_EPOCH (default 1980-01-01, the
earliest a zip can hold), no owner names, fixed permissions: the same sources give the same bytes.
The version is `__version__` in py/looplab/__init__.py, its one place.
"""

import argparse
import gzip
import io
import os
import re
import sys
import tarfile
import time
import tomllib
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from wheelfile import metadata_text, write_wheel

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "py" / "looplab"
LESSONS = ROOT / "lessons"
SITE = ROOT / "web" / "dist"
LESSON_FILE = re.compile(r"^\d\d[a-z]?-[a-z0-9-]+\.py$")  # as looplab/_course/course.py reads them
EARLIEST = 315532800  # 1980-01-01T00:00:00Z: a zip cannot hold an earlier time
SDIST_FILES = ("pyproject.toml", "README.md", "CHANGELOG.md", "scripts/dist.py", "scripts/wheelfile.py")


class DistError(Exception):
    """Something the package needs is missing; the message says how to get it."""


def version() -> str:
    """`__version__` of py/looplab/__init__.py (read, not imported)."""
    match = re.search(r'^__version__ = "([^"]+)"$', (PACKAGE / "__init__.py").read_text(), re.M)
    if not match:
        raise DistError('py/looplab/__init__.py has no __version__ = "..." line')
    return match[1]


def epoch() -> int:
    """The one timestamp of every file: SOURCE_DATE_EPOCH, never before 1980."""
    given = os.environ.get("SOURCE_DATE_EPOCH", "").strip()
    if given and not given.isdigit():
        raise DistError(f"SOURCE_DATE_EPOCH is {given!r}, not a number of seconds since 1970")
    return max(EARLIEST, int(given or EARLIEST))


def project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def files_under(folder: Path, keep=lambda path: True) -> list[Path]:
    """The files under `folder`, sorted, without caches."""
    return sorted(
        p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc" and keep(p)
    )


def package_files(site: Path | None) -> dict[str, bytes]:
    """What the wheel installs: looplab, its lessons and its site (archive name -> bytes)."""
    files = {f"looplab/{p.relative_to(PACKAGE).as_posix()}": p.read_bytes() for p in files_under(PACKAGE)}
    lessons = [p for p in sorted(LESSONS.glob("*")) if LESSON_FILE.match(p.name) or p.name == "README.md"]
    if not any(LESSON_FILE.match(p.name) for p in lessons):
        raise DistError(f"{LESSONS} holds no lessons")
    files |= {f"looplab/_course/lessons/{p.name}": p.read_bytes() for p in lessons}
    if site is not None:
        if not (site / "index.html").exists():
            raise DistError(f"{site} holds no built site: run `make build` first")
        files |= {f"looplab/_site/{p.relative_to(site).as_posix()}": p.read_bytes() for p in files_under(site)}
    return files


def metadata_args() -> dict:
    meta = project()
    return {
        "summary": meta["description"],
        "requires_python": meta["requires-python"],
        "requires": meta.get("dependencies", []),
        "extras": meta.get("optional-dependencies", {}),
        "description": (ROOT / meta.get("readme", "README.md")).read_text(encoding="utf-8"),
    }


def build_wheel_file(dest: Path, site: Path | None = SITE) -> Path:
    """dest/looplab-V-py3-none-any.whl."""
    when = time.gmtime(epoch())[:6]
    return write_wheel(
        dest,
        "looplab",
        version(),
        package_files(site),
        generator="looplab scripts/dist.py",
        scripts=project().get("scripts", {}),
        date_time=when,
        **metadata_args(),
    )


def sdist_members(site: Path) -> dict[str, bytes]:
    """The sdist's files, under looplab-V/ (the built site at web/dist, for its wheel)."""
    if not (site / "index.html").exists():
        raise DistError(f"{site} holds no built site: run `make build` first")
    files = {name: (ROOT / name).read_bytes() for name in SDIST_FILES if (ROOT / name).exists()}
    files |= {f"py/looplab/{p.relative_to(PACKAGE).as_posix()}": p.read_bytes() for p in files_under(PACKAGE)}
    files |= {
        f"lessons/{p.name}": p.read_bytes()
        for p in sorted(LESSONS.glob("*"))
        if LESSON_FILE.match(p.name) or p.name == "README.md"
    }
    files |= {f"web/dist/{p.relative_to(site).as_posix()}": p.read_bytes() for p in files_under(site)}
    files["PKG-INFO"] = metadata_text("looplab", version(), **metadata_args()).encode()
    return dict(sorted(files.items()))


def build_sdist_file(dest: Path, site: Path = SITE) -> Path:
    """dest/looplab-V.tar.gz: a tar of sorted files, one timestamp, no owners, gzip without a name or time."""
    top = f"looplab-{version()}"
    data = io.BytesIO()
    with tarfile.open(fileobj=data, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for name, content in sdist_members(site).items():
            info = tarfile.TarInfo(f"{top}/{name}")
            info.size, info.mtime, info.mode = len(content), epoch(), 0o644
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            tar.addfile(info, io.BytesIO(content))
    dest.mkdir(parents=True, exist_ok=True)
    path = dest / f"{top}.tar.gz"
    with (
        path.open("wb") as raw,
        gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=epoch(), compresslevel=9) as gz,
    ):
        gz.write(data.getvalue())
    return path


def build_site_zip(dest: Path, site: Path = SITE) -> Path:
    """dest/looplab-site-V.zip: the built site in a folder of that name, for any static host and sub-path."""
    if not (site / "index.html").exists():
        raise DistError(f"{site} holds no built site: run `make build` first")
    top = f"looplab-site-{version()}"
    dest.mkdir(parents=True, exist_ok=True)
    path = dest / f"{top}.zip"
    when = time.gmtime(epoch())[:6]
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for file in files_under(site):
            info = zipfile.ZipInfo(f"{top}/{file.relative_to(site).as_posix()}", when)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, file.read_bytes())
    return path


# --- PEP 517: pip builds looplab with these (pyproject.toml's build-backend) ----------------------


def built_site() -> Path | None:
    """web/dist when built (a checkout after `make build`, or an unpacked sdist), else None."""
    return SITE if (SITE / "index.html").exists() else None


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None) -> str:
    site = built_site()
    if site is None:
        print(
            "looplab: web/dist is not built (`make build`), so this wheel has no site for `looplab serve`",
            file=sys.stderr,
        )
    return build_wheel_file(Path(wheel_directory), site).name


def build_sdist(sdist_directory, config_settings=None) -> str:
    return build_sdist_file(Path(sdist_directory)).name


def build_editable(wheel_directory, config_settings=None, metadata_directory=None) -> str:
    """A wheel whose .pth file puts py/ on the path: edits to py/looplab take effect at once."""
    when = time.gmtime(epoch())[:6]
    return write_wheel(
        Path(wheel_directory),
        "looplab",
        version(),
        {"looplab.pth": f"{ROOT / 'py'}\n".encode()},
        generator="looplab scripts/dist.py",
        scripts=project().get("scripts", {}),
        date_time=when,
        **metadata_args(),
    ).name


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "dist")
    parser.add_argument("--site", type=Path, default=SITE, help="the built site (default web/dist)")
    parser.add_argument("--site-zip", action="store_true", help="write only the site's zip")
    args = parser.parse_args(argv)
    stale = "looplab-site-*.zip" if args.site_zip else "looplab-[0-9]*"
    for old in sorted(args.out.glob(stale)) if args.out.is_dir() else []:
        old.unlink()  # an older version's files: `pip install dist/looplab-*.whl` must find one wheel
    try:
        paths = (
            [build_site_zip(args.out, args.site)]
            if args.site_zip
            else [build_wheel_file(args.out, args.site), build_sdist_file(args.out, args.site)]
        )
    except DistError as error:
        print(f"dist: error: {error}", file=sys.stderr)
        return 1
    for path in paths:
        print(f"dist: {path} ({path.stat().st_size / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
