"""Self-scheduling: a task queue the agent can add to through a `schedule` tool, processed first in,
first out, with a cap so an agent that keeps scheduling cannot run forever.

    queue = TaskQueue(max_tasks=5)
    queue.add_tool(box)                                  # the model may now call schedule(task=...)
    queue.schedule("remember my name is Alice, then add 10 and 5")
    queue.run(lambda task: run_agent(task, model, box, Memory("...")))
    queue.results    # [{"task": ..., "result": ...}, ...];  queue.stopped: "empty" or "task_limit"
"""

from collections import deque
from collections.abc import Callable

from .trace import redact_text


class TaskQueue:
    """A FIFO of tasks, the results of the ones processed, and a cap on how many are processed."""

    def __init__(self, max_tasks: int = 10):
        self.max_tasks = max_tasks
        self.pending: deque[str] = deque()
        self.results: list[dict] = []
        self.stopped: str | None = None

    def schedule(self, task: str) -> str:
        """Add a task at the end of the queue (this is the `schedule` tool's function)."""
        task = str(task).strip()
        if not task:
            return "error: the task is empty; describe the follow-up task in a sentence"
        self.pending.append(task)
        return f"scheduled: {task} (position {len(self.pending)} in the queue)"

    def add_tool(self, toolbox, name: str = "schedule") -> None:
        """Register the `schedule` tool on a Toolbox so the model can add follow-up tasks."""
        toolbox.register(
            name,
            "Schedule a follow-up task; it runs after the current task is finished.",
            {
                "type": "object",
                "properties": {"task": {"type": "string", "description": "the follow-up task, in one sentence"}},
                "required": ["task"],
            },
            self.schedule,
        )

    def run(self, agent_fn: Callable[[str], object]) -> list[dict]:
        """Process tasks in order through `agent_fn(task)` until the queue is empty or the cap is hit."""
        self.stopped = None
        while self.pending:
            if len(self.results) >= self.max_tasks:
                self.stopped = "task_limit"
                return self.results
            task = self.pending.popleft()
            try:
                result = agent_fn(task)
            except Exception as exc:  # one failing task does not lose the others' results
                result = {"answer": None, "stopped": "error", "detail": redact_text(f"{type(exc).__name__}: {exc}")}
            self.results.append({"task": task, "result": result})
        self.stopped = "empty"
        return self.results
