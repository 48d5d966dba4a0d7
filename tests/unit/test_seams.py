"""The loop's two seams (looplab/seams.py): anything shaped like `Tools` and `ModelFn` plugs into
run_agent, which asks nothing else of them."""

import json

from looplab import Memory, ModelFn, Toolbox, Tools, call, final, run_agent, scripted
from looplab.replay import ReplayTools


class Adder:
    """Tools written from scratch, no Toolbox: one tool, `add`, that needs a person when asked to."""

    def __init__(self, approval: bool = False):
        self.approval, self.ran = approval, []

    def names(self) -> list[str]:
        return ["add"]

    def __len__(self) -> int:
        return 1

    def schemas(self) -> list[dict]:
        parameters = {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}}
        return [{"type": "function", "function": {"name": "add", "description": "Add.", "parameters": parameters}}]

    def needs_approval(self, name: str) -> bool:
        return self.approval

    def run(self, name: str, arguments_json: str) -> str:
        self.ran.append((name, arguments_json))
        args = json.loads(arguments_json)
        return str(args["a"] + args["b"])


def test_the_library_and_a_hand_written_pair_have_the_seams_shapes():
    assert isinstance(Toolbox(), Tools) and isinstance(ReplayTools(Toolbox(), []), Tools) and isinstance(Adder(), Tools)
    assert not isinstance(object(), Tools) and not isinstance({"run": None}, Tools)
    assert isinstance(scripted([final("hi")]), ModelFn) and isinstance(lambda messages, tools: {}, ModelFn)
    assert not isinstance("a model", ModelFn)


def test_run_agent_runs_on_any_tools_and_any_model_function():
    sent = []

    def model(messages: list[dict], tools: list[dict]) -> dict:
        sent.append([t["function"]["name"] for t in tools])
        if messages[-1]["role"] == "tool":
            return {"role": "assistant", "content": f"It is {messages[-1]['content']}."}
        return {"role": "assistant", "content": None, "tool_calls": [call("add", a=2, b=3)["tool_calls"][0]]}

    tools = Adder()
    result = run_agent("2 + 3?", model, tools, Memory("Be terse."))
    assert result == {"answer": "It is 5.", "steps": 2, "stopped": "final", "tool_calls": 1}
    assert tools.ran == [("add", '{"a": 2, "b": 3}')] and sent == [["add"], ["add"]]


def test_a_hand_written_tools_needs_approval_is_asked():
    tools = Adder(approval=True)
    result = run_agent("2 + 3?", scripted([call("add", a=2, b=3), final("5")]), tools, Memory("Be terse."))
    assert result["stopped"] == "needs_person" and "add" in result["detail"]
    assert tools.ran == []
