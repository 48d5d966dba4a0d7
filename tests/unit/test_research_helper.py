"""The research-helper project of the course chapter (seed 000), tasks 1-3, as that document checks it."""

import json

from looplab import Memory, call, failing, final, run_agent, scripted

from research import NOTES, add_delete_note, args, research_toolbox


def pairs_hold(messages: list[dict]) -> bool:
    """Each tool message comes straight after an assistant message holding a call with its id."""
    for i, m in enumerate(messages):
        if m["role"] == "tool":
            prev = messages[i - 1]
            ids = [c["id"] for c in prev.get("tool_calls") or []]
            if prev["role"] != "assistant" or m["tool_call_id"] not in ids:
                return False
    return True


def test_task1_eight_requests():
    box = research_toolbox(dict(NOTES))
    results = [
        box.run("search_notes", args(keyword="visits")),
        box.run("search_notes", args(keyword="parking")),
        box.run("read_note", args(note_id="n2")),
        box.run("read_note", args(note_id="n9")),
        box.run("calculate", args(a=1240, b=980, operation="subtract")),
        box.run("calculate", args(a=14, b=0, operation="divide")),
        box.run("calculate", args(a=2, b=3, operation="power")),
        box.run("delete_everything", "{}"),
    ]
    assert all(isinstance(r, str) for r in results)
    assert [r.startswith("error:") for r in results] == [False, False, False, True, False, True, True, True]
    assert "n1" in results[0] and "n2" in results[0] and "n3" not in results[0]
    assert "parking" in results[1]
    assert results[2] == "March visits: 980. April visits: 1105."
    assert "n9" in results[3] and sum(f"n{i}" in results[3] for i in range(1, 7)) >= 3
    assert results[4] == "260"
    assert "add, subtract, multiply, divide" in results[6]
    assert "search_notes, read_note, calculate" in results[7]


def test_task1_tool_list():
    schemas = research_toolbox(dict(NOTES)).schemas()
    assert len(schemas) == 3
    assert all({"name", "description", "parameters"} <= set(s["function"]) for s in schemas)
    calc = next(s for s in schemas if s["function"]["name"] == "calculate")
    assert len(calc["function"]["parameters"]["properties"]["operation"]["enum"]) == 4


def run_a_replies():
    return [
        call("search_notes", keyword="visits"),
        call("read_note", note_id="n1"),
        call("read_note", note_id="n2"),
        call("calculate", a=1310, b=1105, operation="subtract"),
        final("Eastside, by 205."),
    ]


def test_task2_run_a_final():
    memory, model = Memory("Research helper."), scripted(run_a_replies())
    result = run_agent(
        "Which branch had more April visits, and by how many?",
        model,
        research_toolbox(dict(NOTES)),
        memory,
        max_steps=6,
    )
    assert result["stopped"] == "final" and result["answer"] == "Eastside, by 205."
    assert result["steps"] == 5 and len(memory.history) == 10
    assert pairs_hold(memory.messages())
    assert memory.history[-2]["content"] == "205"
    model.assert_used()


def test_task2_run_b_step_limit():
    memory = Memory("Research helper.")
    result = run_agent(
        "Which branch had more April visits, and by how many?",
        scripted(run_a_replies()),
        research_toolbox(dict(NOTES)),
        memory,
        max_steps=3,
    )
    assert result["stopped"] == "step_limit" and result["answer"] is None
    assert result["steps"] == 3 and len(memory.history) == 7
    assert pairs_hold(memory.messages())


def test_task2_run_c_needs_person():
    notes = dict(NOTES)
    box = research_toolbox(notes)
    add_delete_note(box, notes)
    memory = Memory("Research helper.")
    model = scripted([call("search_notes", keyword="staff"), call("delete_note", note_id="n5"), final("Done.")])
    result = run_agent("Remove the Eastside staff note.", model, box, memory, max_steps=6, approve=None)
    assert result["stopped"] == "needs_person" and result["answer"] is None
    assert box.run("read_note", args(note_id="n5")) == "Staff count: 14."
    assert memory.history[-1]["role"] == "tool" and memory.history[-1]["content"].startswith("error:")
    assert len(memory.history) == 5 and pairs_hold(memory.messages())


def test_task2_run_c_with_approval_deletes():
    notes = dict(NOTES)
    box = research_toolbox(notes)
    add_delete_note(box, notes)
    model = scripted([call("search_notes", keyword="staff"), call("delete_note", note_id="n5"), final("Done.")])
    result = run_agent("Remove the Eastside staff note.", model, box, Memory("R."), approve=lambda name: True)
    assert result["stopped"] == "final" and result["answer"] == "Done."
    assert "n5" not in notes and box.run("read_note", args(note_id="n5")).startswith("error:")


def test_task2_run_d_error():
    memory = Memory("Research helper.")
    result = run_agent("Anything.", failing("network down"), research_toolbox(dict(NOTES)), memory)
    assert result["stopped"] == "error" and "network down" in result["detail"]
    assert result["steps"] == 1 and len(memory.history) == 1


TABLE = [
    ("user", 120, False),
    ("assistant", 80, True),
    ("tool", 450, False),
    ("assistant", 80, True),
    ("tool", 300, False),
    ("assistant", 80, True),
    ("tool", 520, False),
    ("assistant", 150, False),
    ("user", 90, False),
    ("assistant", 80, True),
    ("tool", 610, False),
    ("assistant", 200, False),
]


def table_memory() -> Memory:
    memory = Memory({"role": "system", "content": "Research helper.", "tokens": 400})
    last_call = None
    for pos, (role, tokens, asks) in enumerate(TABLE, start=1):
        message = {"role": role, "content": f"message {pos}", "tokens": tokens, "pos": pos}
        if asks:
            last_call = f"c{pos}"
            message["tool_calls"] = [
                {"id": last_call, "type": "function", "function": {"name": "read_note", "arguments": "{}"}}
            ]
            message["content"] = None
        if role == "tool":
            message["tool_call_id"] = last_call
        memory.add(message)
    return memory


def test_task3_budgets():
    memory = table_memory()
    kept = {}
    for budget in (1300, 1500, 2100):
        window = memory.messages(budget)
        kept[budget] = ([m["pos"] for m in window[1:]], sum(m["tokens"] for m in window))
    assert kept == {1300: ([10, 11, 12], 1290), 1500: ([9, 10, 11, 12], 1380), 2100: ([8, 9, 10, 11, 12], 1530)}
    for budget, (positions, total) in kept.items():
        assert positions == sorted(positions) and TABLE[positions[0] - 1][0] != "tool"
        assert total <= budget


def test_task3_remembered_fact_in_system_message():
    memory = table_memory()
    memory.remember("March winner", "Eastside")
    system = memory.messages(2100)[0]
    assert system["role"] == "system" and "March winner: Eastside" in system["content"]
    assert system["content"].startswith("Research helper.")
    assert system["tokens"] > 400  # the note costs tokens too


def test_scripted_model_sees_tool_results():
    seen = []

    def check_observation(messages, tools):
        seen.append(messages[-1])
        return final("Westside had 980.")

    memory = Memory("R.")
    result = run_agent(
        "March visits at Westside?",
        scripted([call("read_note", note_id="n2"), check_observation]),
        research_toolbox(dict(NOTES)),
        memory,
    )
    assert result["answer"] == "Westside had 980."
    assert seen[0]["role"] == "tool" and seen[0]["content"] == "March visits: 980. April visits: 1105."
    assert json.loads(memory.history[1]["tool_calls"][0]["function"]["arguments"]) == {"note_id": "n2"}
