"""Where a lesson's temporary files go, and when they go away.

A lesson makes folders with `tempfile` (lesson 25's projects and sandbox, lesson 26's copies of its
tasks). While a lesson runs, `tempfile` makes them inside one folder of the run's own
(`looplab-lesson-*` in the system's temp folder), and that folder is removed when the lesson ends:
at the end of the run, or, when the caller keeps the lesson's namespace to use it after the run
(the page's Files panel and Chat, a test of the lesson's parts, `mine`), when the caller says so
(`close_kept`), at the latest when Python exits. A run inside a run (`mine` running an earlier
lesson) uses the folder of the run it is in.

    with lesson_folder(keep=False):
        ...                                  # tempfile.mkdtemp() lands in the run's folder
"""

import atexit
import os
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path

_active: Path | None = None  # the folder of the run going on
_kept: list[Path] = []  # folders of runs whose namespaces live on


@contextmanager
def lesson_folder(keep: bool = False):
    """Make `tempfile` put what it makes in a folder of this run's, removed at the end unless `keep`."""
    global _active
    if _active is not None:  # a run inside a run
        yield _active
        return
    before = tempfile.tempdir
    folder = Path(tempfile.mkdtemp(prefix="looplab-lesson-"))
    _active, tempfile.tempdir = folder, str(folder)
    owner = os.getpid()
    try:
        yield folder
    finally:
        _active, tempfile.tempdir = None, before
        if os.getpid() != owner:  # a forked child (the mutation runner's) ends: the folder is its parent's
            pass
        elif keep:
            _kept.append(folder)
        else:
            shutil.rmtree(folder, ignore_errors=True)


def close_kept() -> None:
    """The kept runs' lessons have ended: their folders go."""
    while _kept:
        shutil.rmtree(_kept.pop(), ignore_errors=True)


atexit.register(close_kept)
