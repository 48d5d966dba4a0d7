"""The research helper of the course chapter (seed 000): six notes and three tools, built for tests."""

import json

from looplab import Toolbox, ToolError
from looplab import BRANCH_NOTES

NOTES = dict(BRANCH_NOTES)


def research_toolbox(notes: dict) -> Toolbox:
    """search_notes, read_note and calculate over `notes` (a dict like NOTES)."""
    box = Toolbox()

    def search_notes(keyword: str) -> str:
        found = [f"{i}: {title}" for i, (title, _) in notes.items() if keyword.lower() in title.lower()]
        return "\n".join(found) if found else f"no notes found for {keyword!r}"

    def read_note(note_id: str) -> str:
        if note_id not in notes:
            raise ToolError(f"no note with id {note_id!r}; ids are {', '.join(notes)}")
        return notes[note_id][1]

    def calculate(a: float, b: float, operation: str):
        if operation == "divide" and b == 0:
            raise ToolError("cannot divide by zero; use a non-zero b")
        return {"add": a + b, "subtract": a - b, "multiply": a * b, "divide": a / b if b else 0}[operation]

    box.register(
        "search_notes",
        "Find notes whose title contains a keyword. Returns note ids and titles.",
        {"type": "object", "properties": {"keyword": {"type": "string"}}, "required": ["keyword"]},
        search_notes,
    )
    box.register(
        "read_note",
        "Return the text of one note by its id, such as n1.",
        {"type": "object", "properties": {"note_id": {"type": "string"}}, "required": ["note_id"]},
        read_note,
    )
    box.register(
        "calculate",
        "Apply one operation to two numbers and return the result.",
        {
            "type": "object",
            "properties": {
                "a": {"type": "number"},
                "b": {"type": "number"},
                "operation": {"type": "string", "enum": ["add", "subtract", "multiply", "divide"]},
            },
            "required": ["a", "b", "operation"],
        },
        calculate,
    )
    return box


def add_delete_note(box: Toolbox, notes: dict) -> None:
    """Register delete_note, which changes data for good and so needs a person's approval."""

    def delete_note(note_id: str) -> str:
        notes.pop(note_id)
        return "deleted"

    box.register(
        "delete_note",
        "Delete one note by id, permanently.",
        {"type": "object", "properties": {"note_id": {"type": "string"}}, "required": ["note_id"]},
        delete_note,
        needs_approval=True,
    )


def args(**kwargs) -> str:
    return json.dumps(kwargs)
