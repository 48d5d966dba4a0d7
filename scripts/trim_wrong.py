"""Rewrite whole wrong-answer cells to hold only the definitions they change (`# replaces:`).

    python scripts/trim_wrong.py lessons/*.py          # rewrite in place, and say what changed
    python scripts/trim_wrong.py --check lessons/*.py  # only say which cells could be trimmed

A wrong cell written whole (the exercise cell with one mistake) is trimmed when its top-level
statements are the solution's, one for one and in order, and only definitions (def, class,
`name = ...`) differ: it keeps its `# wrong:`/`# expect:` lines, gets a `# replaces:` line and the
changed definitions (with the comment lines just above each). A cell that leaves a statement out,
adds one or changes one that defines no name stays whole. Each trimmed cell is proved the same
program as before: the solution with its definitions replaced parses to the whole cell's syntax
tree. See scripts/wrong.py for the format.
"""

import argparse
import ast
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "py"))
import wrong
from looplab._course.lessonfile import CELL_MARK, parse, parse_header, solution_index


def key(stmt: ast.stmt) -> tuple[str, str]:
    """A statement as matched between a wrong cell and its solution: by the name it defines, else by its tree."""
    name = wrong.defined(stmt)
    return ("def", name) if name else ("stmt", ast.dump(stmt))


def trimmed(answer: wrong.WrongAnswer, solution: str) -> str | None:
    """The wrong cell's new source, or None when it stays whole."""
    if answer.replaces:
        return None
    mine, theirs = ast.parse(answer.cell.source).body, ast.parse(solution).body
    if [key(s) for s in mine] != [key(s) for s in theirs]:
        return None
    try:
        wrong.definitions(solution, "the solution")
    except ValueError:
        return None
    changed = [a for a, b in zip(mine, theirs) if ast.dump(a) != ast.dump(b)]
    if not changed:
        return None
    lines = answer.cell.source.splitlines()
    header = []
    for line in lines:
        if not wrong.HEADER.match(line):
            break
        header.append(line)
    names = [wrong.defined(stmt) for stmt in changed]
    parts = ["\n".join([*header, f"# replaces: {', '.join(names)}"])]
    taken = len(header)
    for stmt in changed:
        first = min([stmt.lineno, *(d.lineno for d in getattr(stmt, "decorator_list", []))])
        top = first - 1
        while top > taken and lines[top - 1].lstrip().startswith("#"):  # its comment lines above
            top -= 1
        parts.append("\n".join(lines[top : stmt.end_lineno]))
    source = "\n".join(parts[:1] + ["\n\n".join(parts[1:])])
    answer_now = wrong.WrongAnswer(
        answer.index, answer.exercise, answer.mistake, answer.expect, wrong.Cell("code", source, ["wrong"]), names
    )
    same = ast.dump(ast.parse(wrong.in_place(solution, answer_now))) == ast.dump(ast.parse(answer.cell.source))
    assert same, f"cell {answer.index + 1}: the trimmed cell would run another program"
    return source


def rewrite(text: str) -> tuple[str, int, int]:
    """(the lesson's new text, wrong cells trimmed, wrong cells kept whole)."""
    cells = parse(text)
    answers = wrong.read(cells)
    new = [trimmed(a, cells[solution_index(cells, a.exercise)].source) for a in answers]
    return splice(text, new), sum(s is not None for s in new), sum(s is None for s in new)


def splice(text: str, new: list[str | None]) -> str:
    """The lesson's text with its wrong cells' sources replaced, in order (None: kept as written)."""
    chunks, out = [], []
    for line in text.splitlines(keepends=True):
        if CELL_MARK.match(line.rstrip("\r\n")) or not chunks:
            chunks.append([])
        chunks[-1].append(line)
    k = 0
    for chunk in chunks:
        mark = CELL_MARK.match(chunk[0].rstrip("\r\n"))
        if mark and "wrong" in parse_header(mark["rest"])[1]:
            if new[k] is not None:
                chunk = [chunk[0], new[k] + "\n", "\n"]
            k += 1
        out.extend(chunk)
    return "".join(out)


def main(argv: list[str], rewrite=rewrite, doc: str = __doc__, done_as: str = "trimmed", kept_as: str = "whole") -> int:
    """Rewrite the lessons named in argv (or, with --check, only count) and say what changed."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("lessons", nargs="+", type=Path)
    parser.add_argument("--check", action="store_true", help="only count, change nothing")
    args = parser.parse_args(argv)
    total = [0, 0]
    for path in args.lessons:
        text = path.read_text(encoding="utf-8")
        new, done, kept = rewrite(text)
        total[0], total[1] = total[0] + done, total[1] + kept
        if done:
            print(f"{path.name}: {done} wrong cells {done_as}, {kept} {kept_as}")
            if not args.check:
                path.write_text(new, encoding="utf-8")
    print(f"{total[0]} wrong cells {'could be ' if args.check else ''}{done_as}, {total[1]} {kept_as}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
