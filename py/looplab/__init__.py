"""looplab — the parts of an AI agent, built from scratch in plain Python.

Runs the same in CPython and in the browser (Pyodide). One concept a module:
tools (Toolbox), schema (JSON schemas of tools), loop (run_agent), seams (ModelFn and Tools, what
run_agent is handed), messages (replies made clean), memory (Memory), recall (long-term facts),
policy (gates), untrusted (tool results as data), tasks (task queue), trace (events), tokens
(counting), budget (usage and limits), structured (JSON replies checked), parallel (timeouts,
retries, calls side by side), eventloop (run_sync), models (scripted and live), mcp (tools offered
and used over MCP), replay (a run recorded, forked from a step), page and approvals (asking the
page, asking a person).

The course that teaches it — lesson files, checks, notebooks, the chat, the command line, serving
the site — is `looplab._course`, which no module of the library imports. The few names the
lessons use from it are handed on at the end of this file, so a lesson writes `from looplab import
expect`.
"""

from .loop import run_agent
from .memory import Memory
from .messages import tool_message
from .models import call, calls, failing, final, pick_model, scripted
from .policy import Gate, Verdict, forbid
from .recall import FactStore, HashEmbedder, extract_facts, recall_query
from .tasks import TaskQueue
from .tokens import count_tokens
from .tools import Toolbox, ToolError
from .trace import Collector, printer
from .seams import ModelFn, Tools
from .untrusted import ToolGate, fence, no_instructions

# What the lessons use from the course (looplab/_course): checks, the chat, carried code, the
# coding lesson's project, the research lessons' notes.
from ._course.branchnotes import BRANCH_NOTES
from ._course.chat import chat_with
from ._course.editreview import review_edits
from ._course.lesson import expect
from ._course.loopattempt import attempt
from ._course.mine import mine
from ._course.project import show_project, your_project
from ._course.projecttests import project_tests
from ._course.testcells import run_here

# The lessons' checks that compare the learner's part with the reference read from the lesson's
# solution cells: cases to try, the comparison, the scenario bank for loops.
from ._course import scenarios
from ._course.cases import Case, generate
from ._course.compare import Said, compare
from ._course.reference import notebook_lesson, reference

__version__ = "0.1.0"

__all__ = [
    "run_agent",
    "tool_message",
    "Memory",
    "call",
    "calls",
    "failing",
    "final",
    "pick_model",
    "scripted",
    "Gate",
    "Verdict",
    "forbid",
    "FactStore",
    "HashEmbedder",
    "extract_facts",
    "recall_query",
    "TaskQueue",
    "count_tokens",
    "Toolbox",
    "ToolError",
    "Collector",
    "printer",
    "ToolGate",
    "fence",
    "no_instructions",
    "ModelFn",
    "Tools",
    "BRANCH_NOTES",
    "attempt",
    "chat_with",
    "expect",
    "mine",
    "project_tests",
    "review_edits",
    "run_here",
    "show_project",
    "your_project",
    "Case",
    "Said",
    "compare",
    "generate",
    "reference",
    "notebook_lesson",
    "scenarios",
]
