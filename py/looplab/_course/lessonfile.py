"""The lesson format: a lesson file (jupytext "percent" format) read into cells, hints, predictions.

A lesson is plain Python. `# %% [markdown]` starts a prose cell (each line a `# ` comment),
`# %%` a code cell, and tags mark special cells:

    # %% tags=["check"]        assertions shown as a checklist: each top-level `assert` is one check,
                               named by the comment line just above it (an assert nested in an
                               `if` or `for` is not a checklist item of its own: keep checks at
                               the top level); checks run after all code cells, on the final state
    # %% tags=["exercise"]     starter code the learner completes
    # %% [markdown] tags=["hint"]
                               a hint for the exercise above it (1-3 of them, between the exercise
                               and its solution): the page reveals them one at a time before the
                               solution, the CLI prints them with --hints; the last may hold the code
    # %% tags=["solution"]     the solution of the exercise cell just before it (hints in between)
    # %% tags=["wrong"]        a wrong answer to the exercise above it, between its hints and its
                               solution (the whole cell, or the definitions it changes): never
                               run with the lesson, never shown; see wrong.py. With `# right:`
                               instead of `# wrong:`, another right answer that must pass
    # %% [markdown] tags=["predict"]
                               predict, then run: a question, its choices as a task list with the
                               right one ticked, then why (see `Prediction`):
                                   # Which way will this run end?
                                   #
                                   # - [ ] `final`
                                   # - [x] `step_limit`
                                   #
                                   # Three steps are allowed and the model asks for five pings.

    # %% tags=["tests"]        pytest test functions the lesson (or the learner) writes: `def test_*`,
                               fixtures, parametrize. The cell runs in order like code (compiled
                               with pytest's assertion rewriting); after the checks, pytest runs the
                               tests it defined, each one a check named by its docstring's first
                               line (or its name): passed, failed with pytest's explanation, or
                               not checked when skipped. An exercise or solution may be tagged
                               "tests" too. See testcells.py.

A check named by a comment that starts with `given:` (`# given: the toolbox lists three tools`)
is about code the lesson gives, not the learner's part: it may pass on the starter. The prefix is
not part of the check's name (`GIVEN`).

`program` picks the code cells a run executes; running them and their checks is lesson.py's.
"""

import json
import re
from dataclasses import dataclass, field, replace

CELL_MARK = re.compile(r"^# %%(?P<rest>.*)$")
GIVEN = re.compile(r"^given:\s*", re.I)  # a check's naming comment: the check is about given code


@dataclass
class Cell:
    """One cell: `kind` is "markdown" or "code"; `tags` as written in the header."""

    kind: str
    source: str
    tags: list[str] = field(default_factory=list)

    @property
    def role(self) -> str:
        """markdown, hint, predict, check, exercise, solution, wrong or code."""
        if self.kind == "markdown":
            return next((tag for tag in ("hint", "predict") if tag in self.tags), "markdown")
        for tag in ("wrong", "check", "solution", "exercise"):
            if tag in self.tags:
                return tag
        return "code"

    @property
    def editable(self) -> bool:
        """Whether the learner edits this cell in the page: plain code and exercises. Checks,
        solutions, hints and prose are the lesson's (the page reads this from the built lesson)."""
        return self.role in ("code", "exercise")


@dataclass
class Prediction:
    """A predict cell: the question, the choices, the index of the right one, and why."""

    question: str
    choices: list[str]
    answer: int
    why: str = ""


CHOICE = re.compile(r"^\s*[-*]\s+\[(?P<mark>[ xX])\]\s+(?P<text>.+?)\s*$")


def read_prediction(source: str) -> Prediction:
    """Parse a predict cell's markdown: question lines, `- [ ]`/`- [x]` choices, then why.

    Raises ValueError when it has fewer than two choices or not exactly one ticked.
    """
    before, choices, after, answer = [], [], [], []
    for line in source.splitlines():
        match = CHOICE.match(line)
        if match and not after:
            if match["mark"] != " ":
                answer.append(len(choices))
            choices.append(match["text"])
        elif choices:
            after.append(line)
        else:
            before.append(line)
    if len(choices) < 2 or len(answer) != 1:
        raise ValueError(
            f"a predict cell needs two or more `- [ ]` choices with exactly one ticked "
            f"`- [x]`; this one has {len(choices)} choices and {len(answer)} ticked"
        )
    return Prediction("\n".join(before).strip(), choices, answer[0], "\n".join(after).strip())


def solution_index(cells: list[Cell], exercise: int) -> int | None:
    """The index of an exercise's solution: the next cell after its hints (and wrong answers), if it is one."""
    i = exercise + 1
    while i < len(cells) and cells[i].role in ("hint", "wrong"):
        i += 1
    return i if i < len(cells) and cells[i].role == "solution" else None


def hints(cells: list[Cell], exercise: int) -> list[str]:
    """The hints of the exercise at index `exercise`, in order."""
    out = []
    for cell in cells[exercise + 1 :]:
        if cell.role != "hint":
            break
        out.append(cell.source)
    return out


NUMBER = re.compile(r"^(?:lesson\s*)?\d+[a-z]?\s*[·.:\-–—]\s*", re.I)  # "4 · ", "Lesson 14b: "


def heading(cells: list[Cell], fallback: str) -> str:
    """The lesson's first markdown heading as written, without the #s ("4 · The loop"); else `fallback`."""
    for cell in cells:
        if cell.kind == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("#"):
                    return line.lstrip("#").strip()
    return fallback


def title(cells: list[Cell], fallback: str) -> str:
    """The lesson's title: its first heading without a leading number ("4 · The loop" -> "The loop"),
    for lists that show the number apart (the site's lesson list, `looplab list`)."""
    first = heading(cells, fallback)
    return NUMBER.sub("", first) or first


def parse_header(rest: str) -> tuple[str, list[str]]:
    """A `# %%` line's rest as (kind, tags): `[markdown]` makes prose, `tags=[...]` is JSON."""
    kind = "markdown" if "[markdown]" in rest or "[md]" in rest else "code"
    match = re.search(r"tags\s*=\s*(\[.*?\])", rest)
    tags = json.loads(match.group(1)) if match else []
    return kind, tags


FRONT_LINE = re.compile(r"^#(?P<indent> *)(?P<key>[a-z_]+):(?: (?P<value>.*))?$")


def front_matter(text: str) -> dict[str, str]:
    """The lesson's own metadata: the `looplab:` block of its jupytext header, as {key: text}.

        # ---
        # jupyter:
        #   looplab:
        #     core: why this lesson is on the core path
        # ---

    Jupytext reads the header as YAML and keeps `jupyter:` as the notebook's metadata, so the block
    stays out of the notebook's cells. This reads only that shape: `key: value` lines two levels in, a
    value plain or in double quotes; {} when the file has no header. Raises ValueError naming the line
    for any other line inside that block, or when the header never closes.
    """
    body = text.splitlines()
    if not body or body[0].strip() != "# ---":
        return {}
    out: dict[str, str] = {}
    section = []  # the keys that hold the line: ["jupyter", "looplab"] inside the block
    for number, line in enumerate(body[1:], start=2):
        if line.strip() == "# ---":
            return out
        match = FRONT_LINE.match(line.rstrip())
        depth = (len(match["indent"]) - 1) // 2 if match else None
        if match and depth < 2 and match["value"] is None:
            section = section[:depth] + [match["key"]]
        elif match and depth == 2 and section == ["jupyter", "looplab"] and match["value"]:
            value = match["value"].strip()
            out[match["key"]] = json.loads(value) if value.startswith('"') else value
        elif section[:2] == ["jupyter", "looplab"] and (not match or depth >= 2):
            raise ValueError(f"line {number}: the header's looplab block holds `key: value` lines only: {line!r}")
        elif match and depth < 2:
            section = section[:depth]
    raise ValueError("the header that opens with `# ---` has no closing `# ---`")


def parse(text: str) -> list[Cell]:
    """Split a lesson's text into cells (a jupytext `# ---` header block is skipped)."""
    cells: list[Cell] = []
    kind, tags, lines = "code", [], []
    body = text.splitlines()
    if body and body[0].strip() == "# ---":  # jupytext metadata header
        end = next((i for i in range(1, len(body)) if body[i].strip() == "# ---"), 0)
        body = body[end + 1 :]

    def close():
        source = "\n".join(lines).strip("\n")
        if kind == "markdown":
            source = "\n".join(row[2:] if row.startswith("# ") else row.lstrip("#") for row in source.splitlines())
        if source.strip() or tags:
            cells.append(Cell(kind, source, tags))

    for line in body:
        mark = CELL_MARK.match(line)
        if mark:
            close()
            kind, tags = parse_header(mark.group("rest"))
            lines = []
        else:
            lines.append(line)
    close()
    return cells


def to_text(cells: list[Cell]) -> str:
    """Cells back to a lesson file's text (the inverse of `parse`, up to blank lines)."""
    parts = []
    for cell in cells:
        header = "# %%" + (" [markdown]" if cell.kind == "markdown" else "")
        if cell.tags:
            header += " tags=" + json.dumps(cell.tags)
        source = cell.source
        if cell.kind == "markdown":
            source = "\n".join(("# " + row) if row else "#" for row in source.splitlines())
        parts.append(f"{header}\n{source}\n")
    return "\n".join(parts)


def program(cells: list[Cell], solution: bool = False) -> list[tuple[int, Cell]]:
    """The code cells to run, with their index: the starter, or each exercise swapped for its solution."""
    chosen = []
    for i, cell in enumerate(cells):
        role = cell.role
        if role in ("markdown", "hint", "predict", "check", "wrong"):
            continue
        if role == "exercise" and solution and solution_index(cells, i) is not None:
            continue
        if role == "solution" and not solution:
            continue
        chosen.append((i, cell))
    return chosen


def without_wrong(text: str) -> str:
    """A lesson's text with its wrong-answer cells taken out, the rest as written (what a site or an
    export hands the learner)."""
    out, skipping = [], False
    for line in text.splitlines(keepends=True):
        mark = CELL_MARK.match(line.rstrip("\r\n"))
        if mark:
            skipping = "wrong" in parse_header(mark["rest"])[1]
        if not skipping:
            out.append(line)
    return "".join(out)


def playing(cells: list[Cell], code: dict[int, str] | None = None) -> list[Cell]:
    """The lesson as a learner who wrote `code[i]` in exercise cell i and the solution in every other.

    Run it as the starter (`program(..., solution=False)`): each exercise cell now holds that code.
    The solution cells stay as they are, so a check can still read the lesson's reference from them.
    """
    code = code or {}
    out = list(cells)
    for i, cell in enumerate(cells):
        if cell.role == "exercise":
            mine = solution_index(cells, i)
            if i in code or mine is not None:
                out[i] = replace(cell, source=code[i] if i in code else cells[mine].source)
    return out
