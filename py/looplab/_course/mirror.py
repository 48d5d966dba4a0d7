"""A mirror folder of local models, served beside the site: `looplab serve --models DIR`.

The site's model catalog (web/models.json, documented in web/models.md) names each model's file,
size and sha256 and the model host's URL. A mirror is a folder holding those files under their
`file` names. Serving one means two things, both here and free of sockets so they can be tested
alone: the catalog goes out with `"mirror": "models/"` (the page then downloads every model from
this host), and a file goes out whole or, for a `Range` request, in part (a download resumes).
"""

import json
import re
from pathlib import Path
from urllib.parse import unquote

PREFIX = "models/"  # where the mirror's files are served, relative to the site (and to the catalog)
RANGE = re.compile(r"bytes=(\d*)-(\d*)")


def mirrored(catalog_text: str, folder: str = PREFIX) -> bytes:
    """The catalog as JSON bytes with `mirror` set to `folder`."""
    catalog = json.loads(catalog_text)
    catalog["mirror"] = folder
    return (json.dumps(catalog, indent=1) + "\n").encode()


def missing(folder: Path, catalog_text: str) -> list[str]:
    """One line per catalog model the folder lacks, or holds at another size than the catalog's."""
    lines = []
    for model in json.loads(catalog_text).get("models", []):
        path = folder / model["file"]
        if not path.is_file():
            lines.append(f"{model['file']} ({model['id']}) is not in {folder}")
        elif path.stat().st_size != model["size"]:
            lines.append(
                f"{model['file']} in {folder} is {path.stat().st_size} bytes; the catalog says {model['size']}"
            )
    return lines


def byte_range(header: str | None, size: int) -> tuple[int, int] | None | str:
    """The inclusive (first, last) bytes a `Range` header asks of a file of `size` bytes.

    None: no header, or one this server answers with the whole file (several ranges, another
    unit — RFC 9110 lets a server ignore Range). "unsatisfiable": a range past the end (416).
    """
    if not header:
        return None
    found = RANGE.fullmatch(header.strip())
    if not found or found.group(1) == found.group(2) == "":
        return None
    first, last = found.groups()
    if first == "":  # bytes=-N: the last N bytes
        length = int(last)
        if length == 0:
            return "unsatisfiable"
        return (max(0, size - length), size - 1) if size else "unsatisfiable"
    start = int(first)
    if start >= size:
        return "unsatisfiable"
    end = min(int(last), size - 1) if last else size - 1
    if end < start:
        return None  # an invalid range is ignored (RFC 9110 §14.1.1)
    return start, end


def mirror_file(folder: Path, path: str) -> Path | None:
    """The file a request path names in the mirror folder (`/models/NAME`), or None: only plain
    names directly in the folder, never a path that climbs out of it."""
    if not path.startswith("/" + PREFIX):
        return None
    name = unquote(path[len(PREFIX) + 1 :])
    if not name or "/" in name or "\\" in name or name.startswith("."):
        return None
    found = folder / name
    return found if found.is_file() else None
