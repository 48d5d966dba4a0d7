"""The worker's side of a run: set the run's environment, run the lesson's cells, hand back the result.

Loaded by worker.js as module `looplab_bridge`. The page's messages come in through one entry,
`handle(message)` (a message of shared/protocol.js's toWorker, as JSON): `run` a lesson's cells
with the saved cells of the lessons it reuses (`carry`, for mine(N)); `fork` one of the last lesson
run's runs from a step (they are kept with their inputs and events, looplab.replay); `chat`, one
Chat tab message to the lesson's agent in a namespace kept between messages
(looplab._course.conversation); `files`, between runs, the project a lesson laid out, read or laid
out again (looplab._course.project). Events reach the page as they happen through `send_event`;
stdout and stderr are Pyodide's streams, which the worker forwards.

It also readies an interpreter for a memory snapshot (`prepare`, at build time in Node.js:
scripts/make_snapshot.mjs) and sets up one after a load or a restore (`start`).
"""

import gc
import importlib
import json
import os
import random
import sys
import time

from looplab import replay, trace
from looplab._course import conversation, lesson, lessonfile, mine, project, record, scratch, stdin
from looplab.models import stream

ENV_KEYS = ("LOOPLAB_MODEL", "LLM_BASE_URL", "LLM_API_KEY", "LLM_MODEL", "LLM_API", "LLM_MAX_TOKENS", "LLM_STREAM")

# The whole environment Python starts a session with, however it started (a load or a snapshot),
# besides Pyodide's LD_LIBRARY_PATH: nothing of the machine that made a snapshot.
START_ENV = {"HOME": "/home/pyodide", "LOOPLAB_MODEL": "scripted"}
KEPT_ENV = ("LD_LIBRARY_PATH",)  # set by Pyodide on every start: where packages' .so files load from

# looplab's installed files (its sources and .dist-info), kept in memory by `prepare`: a snapshot
# holds Python's heap but no file, and tracebacks, `inspect` and `importlib.metadata` read them.
# `start` lays them again, which is much faster than installing the wheel a second time.
_FILES: dict[str, bytes] = {}
_KEPT: list[str] = []  # the distributions of those files (looplab, and the extras a snapshot variant holds)

kept = replay.Keeper(limit=50)  # the runs of the last lesson run, and the forks made of them
kept.start()
talk = conversation.Conversation()  # the Chat tab's conversation: the lesson's namespace between messages


def handle(message_json: str, send_event=None) -> str:
    """The page's message (shared/protocol.js toWorker: run, fork, chat, replay or files) answered: the result
    as JSON text. `send_event(text)` hears a run's events as they happen, each as JSON text."""
    message = json.loads(message_json)
    kind = message.get("type")
    if kind == "files":
        return files(message.get("op"))
    if kind not in ("run", "fork", "chat", "replay"):
        return json.dumps({"ok": False, "error": f"Python answers no {kind!r} message", "checks": []})
    set_env(message.get("env") or {})

    def send(event: dict) -> None:
        if send_event is not None:
            send_event(json.dumps(event, default=str))

    if kind == "fork":
        return fork(message["fork"], send)
    if kind == "chat":
        return chat(message["chat"], send)
    if kind == "replay":
        return replay(message["replay"])
    carry(message.get("carried") or {})
    return run(message["cells"], bool(message.get("solution")), send)


def cells_of(cells: list[dict]) -> list:
    """A lesson's cells as the page sends them ({kind, source, tags}), as looplab reads them."""
    return [lesson.Cell(c["kind"], c["source"], list(c.get("tags") or [])) for c in cells]


def set_env(env: dict) -> None:
    """Set the run's environment: nothing from a previous run survives into this one."""
    for key in ENV_KEYS:
        os.environ.pop(key, None)
        if env.get(key):
            os.environ[key] = str(env[key])


def model_in_use() -> str:
    """The model this run's environment names (the mode, and live: the endpoint, model, API, limits):
    a lesson's code picks its model when it runs, so a chat's namespace made for another is made anew."""
    return json.dumps({key: os.environ.get(key) for key in ENV_KEYS if key != "LLM_API_KEY"})


def carry(carried: dict) -> None:
    """The learner's saved cells of the lessons a run reuses ({lesson id: cells}, page/run/carried.js),
    handed to looplab._course.mine.provide as lesson texts; a lesson whose saved code came from elsewhere
    comes as {"from": ...} only, and mine() runs the site's own; the same as last time keeps mine()'s cache."""
    global carried_last
    same = json.dumps(carried, sort_keys=True)
    if same == carried_last:
        return
    carried_last = same
    texts = {
        lesson_id: lessonfile.to_text(cells_of(cells))
        for lesson_id, cells in carried.items()
        if isinstance(cells, list)
    }
    elsewhere = {lesson_id: str(entry.get("from")) for lesson_id, entry in carried.items() if isinstance(entry, dict)}
    mine.provide(texts.get, elsewhere)


carried_last: str | None = None


def run(sent: list[dict], solution: bool, send) -> str:
    """Run one lesson (code cells, then checks) and return the result as JSON text."""
    kept.clear()
    project.forget()  # a lesson that lays out no project this run shows none
    scratch.close_kept()  # the last run's lesson has ended: its temp files go (its project with them)
    cells = cells_of(sent)
    namespace = {"__name__": "__lesson__"}
    result = lesson.run_cells(cells, solution=solution, namespace=namespace, on_event=send)
    if result.error is None and conversation.offered(
        namespace
    ):  # the Chat tab talks here next, without a run of its own
        talk.adopt(cells, solution, model_in_use(), namespace)
    return json.dumps(result.to_dict(), default=str)  # errors and check messages come redacted


def replay(request: dict) -> str:
    """Re-check one lesson (`only`) of a "built it" record (`record`, with the lessons' files as `texts`:
    looplab._course.record.verify); the result as JSON text.

    The record's code is code from elsewhere: it runs scripted, in a worker that holds no key.
    """
    global carried_last
    kept.clear()
    project.forget()
    carried_last = None  # verify hands mine() the record's lessons, then none: the next run carries its own
    record_json, texts_json = json.dumps(request.get("record")), json.dumps(request.get("texts") or {})
    try:
        verdicts = json.loads(record.verify_json(record_json, texts_json, str(request.get("only"))))
    except ValueError as exc:
        return json.dumps({"ok": False, "error": trace.redact_text(str(exc)), "checks": [], "verdicts": []})
    return json.dumps({"ok": True, "error": None, "checks": [], "verdicts": trace.redact(verdicts)}, default=str)


def listen_deltas(send_delta):
    """Send the text of every streamed model reply, piece by piece as it arrives, to `send_delta`
    (the worker posts each as a `delta` message); once a session. Returns the function that stops it."""
    return stream.listen(lambda text: send_delta(text))


def fork(request: dict, send) -> str:
    """Re-run a kept run from a step with one edit (looplab.replay); the result as JSON text.

    `request`: {run, step, reply} or {run, step, result, call_id}. The fork's events reach the page
    like a run's; the result carries `fork`: the run's outcome, its number, and the first step
    where it differs from the original.
    """
    stop_listening = trace.listen(send)
    try:
        forked = kept.fork(
            int(request["run"]),
            int(request["step"]),
            reply=request.get("reply"),
            result=request.get("result"),
            call_id=request.get("call_id"),
        )
    except ValueError as exc:
        return json.dumps({"ok": False, "error": trace.redact_text(f"The fork could not start: {exc}"), "checks": []})
    finally:
        stop_listening()
    of_run, of_step = forked.fork_of
    out = {
        **forked.result,
        "run": forked.run,
        "first_difference": forked.first_difference,
        "fork_of": {"run": of_run, "step": of_step},
    }
    return json.dumps({"ok": True, "error": None, "checks": [], "fork": trace.redact(out)}, default=str)


def chat(request: dict, send) -> str:
    """One Chat tab message (`request`: protocol.js ChatRequest; with no message, the chat made
    ready): the result as JSON text.

    The lesson's code runs first when it changed since the conversation's namespace was made
    (or `fresh`: New conversation). The turn's events reach the page like a run's; the result
    carries `chat`: the reply, how the turn ended, its run, the offer (name, suggestions).
    """
    cells, message = cells_of(request["cells"]), request.get("message")
    solution, fresh = bool(request.get("solution")), bool(request.get("fresh"))
    with stream.muted():  # the lesson's code runs quietly, its streamed replies too: the turn shows the agent's alone
        why, afresh = talk.prepare(cells, solution, model_in_use(), fresh)
    if why:
        return json.dumps({"ok": False, "error": trace.redact_text(why), "checks": [], "chat": None})
    if message is None:
        turn = {
            "reply": "",
            "kind": "ready",
            "stopped": "",
            "run": 0,
            "fresh": afresh,
            "offer": conversation.describe(talk.offer),
        }
        return json.dumps({"ok": True, "error": None, "checks": [], "chat": turn})
    stop_listening = trace.listen(send)
    try:
        turn = talk.turn(message)
    finally:
        stop_listening()
    turn.fresh = afresh
    return json.dumps({"ok": True, "error": None, "checks": [], "chat": turn.to_dict()}, default=str)


def files(op: str) -> str:
    """The lesson's project between runs, as JSON: "read" its files and diff, "reset" it first."""
    if op not in ("read", "reset"):
        return json.dumps({"error": f"no files operation {op!r}; there are read and reset"})
    try:
        shown = project.reset() if op == "reset" else project.state()
    except OSError as exc:
        return json.dumps({"error": trace.redact_text(f"the project could not be {op}: {exc}")})
    return json.dumps({"project": trace.redact(shown) if shown else None})


def interruptible_sleep() -> None:
    """Make time.sleep wake every 50 ms, so Stop's KeyboardInterrupt ends a long sleep at once.

    Pyodide's sleep blocks the worker without looking at the interrupt buffer; between slices,
    the interpreter does, and a sleeping run stops without restarting Python.
    """
    real_sleep = getattr(time.sleep, "__wrapped__", time.sleep)  # once, even when called again

    def sleep(seconds: float) -> None:
        end = time.monotonic() + seconds
        while (left := end - time.monotonic()) > 0:
            real_sleep(min(left, 0.05))

    sleep.__doc__ = real_sleep.__doc__
    sleep.__wrapped__ = real_sleep
    time.sleep = sleep


def prepare(modules_json: str, keep_json: str = '["looplab"]') -> str:
    """Import these modules and clear the environment, for a memory snapshot; JSON of failures.
    The files of the distributions in `keep_json` are kept for `start` to lay again.

    Each module is imported on its own, so one that fails (reported to the caller) does not keep
    the others out. Nothing from JavaScript is kept (a snapshot cannot hold JS objects), the
    environment is emptied (it would carry the machine's paths), and the RNG gets a fixed state
    (two builds of the same sources give the same bytes; `start` reseeds it after every restore).
    """
    failed = {}
    for name in json.loads(modules_json):
        try:
            importlib.import_module(name)
        except Exception as exc:  # noqa: BLE001  (reported, not hidden: the build prints it)
            failed[name] = f"{type(exc).__name__}: {exc}"
    _FILES.clear()
    _KEPT[:] = json.loads(keep_json)
    for distribution in _KEPT:
        _FILES.update(installed_files(distribution))
    os.environ.clear()
    random.seed(0)
    gc.collect()
    return json.dumps(failed)


def installed_files(distribution: str) -> dict[str, bytes]:
    """The files a distribution installed (its RECORD: sources and .dist-info, no bytecode)."""
    from importlib import metadata

    dist = metadata.distribution(distribution)
    out = {}
    for file in dist.files or []:
        path = file.locate()
        if file.suffix != ".pyc" and os.path.isfile(path):
            with open(path, "rb") as handle:
                out[os.path.normpath(str(path))] = handle.read()
    return out


def files_to_lay() -> dict[str, bytes]:
    """looplab's installed files as `prepare` kept them: the worker lays them with the file system's
    own calls (worker.js layFiles: 63 files in 8-10 ms, against 24-28 ms through Python's io)."""
    return _FILES


def start(interruptible: bool, laid: bool = False) -> str:
    """Set up a session after a load or a restore: looplab's files laid again where a restore lost
    them (`laid`: the worker has laid them), the same environment either way, a fresh RNG, and (when
    the page can interrupt Python) a `time.sleep` that Stop can end, and input() that asks the page.
    Returns JSON: the distributions whose files were laid."""
    for path, data in () if laid else _FILES.items():
        if not os.path.exists(path):
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as handle:
                handle.write(data)
            laid = True
    if laid:
        importlib.invalidate_caches()
    from_pyodide = {key: os.environ[key] for key in KEPT_ENV if key in os.environ}
    os.environ.clear()
    os.environ.update({**from_pyodide, **START_ENV})
    random.seed()  # a snapshot froze the RNG's state: without this every visit draws the same numbers
    tempfile = sys.modules.get("tempfile")
    if tempfile is not None:  # its own RNG (temporary names), frozen too: made afresh on next use
        tempfile._name_sequence = None
    if interruptible:
        interruptible_sleep()
    stdin.install()  # input() and sys.stdin ask the page (an EOFError that says why when it cannot)
    return json.dumps(_KEPT if laid else [])
