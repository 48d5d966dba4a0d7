"""Approvals: a person's yes or no (and reason) reaches the loop; ask_person on the terminal."""

from looplab import Memory, Toolbox, call, final, run_agent, scripted
from looplab.approvals import Decision, ask_on_terminal, ask_person
from looplab.page import PageUnavailable, ask_page, in_page


def deleting_box(deleted):
    box = Toolbox()
    box.register(
        "delete_note",
        "Delete a note for good.",
        {"type": "object", "properties": {"note_id": {"type": "string"}}, "required": ["note_id"]},
        lambda note_id: deleted.append(note_id) or f"deleted {note_id}",
        needs_approval=True,
    )
    return box


def test_a_refusal_with_a_reason_reaches_the_model_and_the_detail():
    deleted = []
    memory = Memory("s")
    result = run_agent(
        "Delete n5.",
        scripted([call("delete_note", note_id="n5"), final("ok")]),
        deleting_box(deleted),
        memory,
        approve=lambda name, args: Decision(False, "n5 is still needed"),
    )
    assert result["stopped"] == "needs_person" and deleted == []
    assert result["detail"] == "delete_note needs a person's approval: n5 is still needed"
    assert memory.history[-1]["content"] == "error: a person has not approved delete_note: n5 is still needed"


def test_a_decision_to_approve_runs_the_tool():
    deleted = []
    result = run_agent(
        "Delete n5.",
        scripted([call("delete_note", note_id="n5"), final("Done.")]),
        deleting_box(deleted),
        Memory("s"),
        approve=lambda name: Decision(True),
    )
    assert result["stopped"] == "final" and deleted == ["n5"]


def test_the_terminal_question_reads_yes_a_reason_or_nothing():
    asked = []

    def reader(answer):
        def read(prompt):
            asked.append(prompt)
            if answer is None:
                raise EOFError
            return answer

        return read

    assert ask_on_terminal("delete_note", '{"note_id": "n5"}', reader(" y ")) == Decision(True)
    assert ask_on_terminal("delete_note", "{}", reader("too risky")) == Decision(False, "too risky")
    assert ask_on_terminal("delete_note", "{}", reader("no")) == Decision(False, "")
    assert "refused by default" in ask_on_terminal("delete_note", "{}", reader(None)).reason
    assert asked[0] == 'Allow delete_note({"note_id": "n5"})? Type y to approve, or a reason to refuse: '


def test_outside_the_page_there_is_no_page_to_ask():
    assert in_page() is False
    try:
        ask_page("approval", {"tool": "x", "arguments": "{}"})
    except PageUnavailable as exc:
        assert "not running in Loop Lab's page" in str(exc)
    else:
        raise AssertionError("ask_page answered outside the page")
    assert ask_person.__doc__ and Decision(False) == Decision(False, "") and not Decision(False)
