"""Rewrite wrong-answer cells as line patches against their solution (`# patch:`) where that is shorter.

    python scripts/patch_wrong.py lessons/*.py          # rewrite in place, and say what changed
    python scripts/patch_wrong.py --check lessons/*.py  # only say which cells could be patches

For each wrong cell (whole, or `# replaces:`) the program it runs is diffed line by line against
its exercise's solution (difflib; where a line differs from the solution's only in its comment,
or leaves out a comment line or a docstring, the solution's stands: the same syntax tree but for
docstrings — the wrong-answer suite proves each is still caught); each run of changed
lines becomes a hunk, with as few kept lines around it as make its place the only one. The cell becomes its `# wrong:`/`# expect:` lines,
`# patch:` and the hunks — when that is fewer lines than it has now; else it stays as it is. Each
new cell is proved to run the same program: read back from the lesson's text and applied, its
patch gives the syntax tree the old cell ran (docstrings aside).
See scripts/wrong.py for the format.
"""

import ast
import difflib
import io
import sys
import tokenize
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "py"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import trim_wrong
import wrong
from looplab._course.lessonfile import parse, solution_index

GAP = 1  # changed runs this many kept lines apart or fewer make one hunk


def runs(a: list[str], b: list[str]) -> list[tuple[int, int, int, int]]:
    """The changed runs between a and b as (i1, i2, j1, j2), runs at most GAP kept lines apart joined."""
    out = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        if out and i1 - out[-1][1] <= GAP:
            out[-1] = (out[-1][0], i2, out[-1][2], j2)
        else:
            out.append((i1, i2, j1, j2))
    return out


def make_patch(solution: str, program: str) -> list[str]:
    """A patch that turns `solution` into `program` exactly (its lines as `wrong.patched` reads them).

    Hunks go top to bottom, each with kept lines added around it (above first) until what it finds
    occurs once in the text as the hunks before it left it — so `wrong.patched` applies it there.
    """
    a, b = solution.split("\n"), program.split("\n")
    cur, out, shift = list(a), [], 0
    for i1, i2, j1, j2 in runs(a, b):
        lo, taken = i1 + shift, i2 - i1  # the run's place in cur, and how many lines it takes out
        start, end = lo, lo + taken
        while not (start < end and len(wrong.places(cur, cur[start:end])) == 1):  # kept lines, above first
            if start > 0 and (lo - start <= end - lo - taken or end == len(cur)):
                start -= 1
            elif end < len(cur):
                end += 1
            else:
                raise ValueError("no place in the solution is unique for this change")
        before, after = cur[start:lo], cur[lo + taken : end]
        if out:
            out.append(wrong.HUNK)
        out.extend([*map(kept, before), *("-" + s for s in a[i1:i2]), *("+" + s for s in b[j1:j2]), *map(kept, after)])
        cur[start:end] = [*before, *b[j1:j2], *after]
        shift += (j2 - j1) - taken
    return out


def kept(line: str) -> str:
    """A kept (context) line as written in a patch: a space before it; an empty line stays empty."""
    return " " + line if line else ""


def code_of(source: str) -> list[str]:
    """The source's lines with their comments taken off (what a line does, for matching)."""
    lines = source.splitlines()
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source + "\n").readline):
            if tok.type == tokenize.COMMENT:
                row, col = tok.start
                lines[row - 1] = lines[row - 1][:col]
    except (tokenize.TokenError, SyntaxError):
        return lines
    return [line.rstrip() for line in lines]


def reconciled(solution: str, program: str) -> str:
    """The program with the solution's comments where only comments differ: a line that does what
    the solution's does is written as the solution writes it, and comment or empty lines the
    program leaves out are kept — so a patch shows the mistake, not the comments. The same syntax
    tree as `program`, or `program` itself."""
    a, b = solution.splitlines(), program.splitlines()
    out = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(
        None, code_of(solution), code_of(program), autojunk=False
    ).get_opcodes():
        left_out = "\n".join(code_of("\n".join(a[i1:i2]))).strip()
        if tag == "equal" or (tag == "delete" and (not left_out or is_docstring(left_out))):
            out.extend(a[i1:i2])
            continue
        tail = []
        while tag == "replace" and i1 < i2 and aside(a[i1]):  # a docstring or comment just above the change
            out.append(a[i1])
            i1 += 1
        while tag == "replace" and i1 < i2 and aside(a[i2 - 1]):  # or just below it
            tail.insert(0, a[i2 - 1])
            i2 -= 1
        out.extend([*b[j1:j2], *tail])
    new = "\n".join(out)
    try:
        return new if tree(new) == tree(program) else program
    except SyntaxError:
        return program


def aside(line: str) -> bool:
    """Is this line only a comment, or a one-line docstring?"""
    code = "\n".join(code_of(line)).strip()
    return not code or is_docstring(code)


def is_docstring(code: str) -> bool:
    """Is this code one string on its own (a docstring the program left out)?"""
    try:
        body = ast.parse(code).body
    except SyntaxError:
        return False
    return (
        len(body) == 1
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
    )


def tree(source: str) -> str:
    """The source's syntax tree without docstrings (which no check of a mistake reads)."""
    parsed = ast.parse(source)
    for node in ast.walk(parsed):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and ast.get_docstring(node):
            node.body = node.body[1:] or [ast.Pass()]
    return ast.dump(parsed)


def header_of(source: str) -> list[str]:
    """The cell's leading `# wrong:` / `# expect:` / `# replaces:` lines."""
    out = []
    for line in source.splitlines():
        if not wrong.HEADER.match(line):
            break
        out.append(line)
    return out


def program_run(answer: wrong.WrongAnswer, solution: str) -> str:
    """What the cell runs in the exercise's place, its header comments left out."""
    if answer.replaces or answer.patch:
        return wrong.program_of(solution, answer)
    return "\n".join(answer.cell.source.splitlines()[len(header_of(answer.cell.source)) :]).strip("\n")


def as_patch(answer: wrong.WrongAnswer, solution: str) -> str | None:
    """The wrong cell's new source, or None when a patch would not be shorter."""
    if answer.patch:
        return None
    program = reconciled(solution, program_run(answer, solution))
    try:
        patch = make_patch(solution, program)
    except ValueError:  # an empty solution: nothing to anchor a patch to
        return None
    if not patch:
        return None  # runs the solution itself: a lesson's problem, left for a person
    header = [line for line in header_of(answer.cell.source) if not line.lower().startswith("# replaces")]
    source = "\n".join([*header, "# patch:", *wrong.as_comments(patch)])
    if len(source.splitlines()) >= len(answer.cell.source.splitlines()):
        return None
    return source


def rewrite(text: str) -> tuple[str, int, int]:
    """(the lesson's new text, wrong cells made patches, wrong cells kept as they were)."""
    cells = parse(text)
    answers = wrong.read(cells)
    new = [as_patch(a, cells[solution_index(cells, a.exercise)].source) for a in answers]
    result = trim_wrong.splice(text, new)
    after = parse(result)
    for a, b, source in zip(answers, wrong.read(after), new):  # the same programs, read back from the text
        solution = cells[solution_index(cells, a.exercise)].source
        ran, runs_now = program_run(a, solution), program_run(b, solution)
        same = ran == runs_now or tree(ran) == tree(runs_now)
        assert source is None or same, f"{a.where}: the patch would run another program"
    return result, sum(s is not None for s in new), sum(s is None for s in new)


if __name__ == "__main__":
    sys.exit(trim_wrong.main(sys.argv[1:], rewrite, __doc__, "made patches", "kept"))
