"""looplab — the parts of an AI agent, built from scratch in plain Python.

Runs the same in CPython and in the browser (Pyodide). One concept a module:
tools (Toolbox), schema (JSON schemas of tools), loop (run_agent), messages (replies made clean),
memory (Memory), recall (long-term facts), policy (gates), untrusted (tool results as data),
tasks (task queue), trace (events), tokens (counting), budget (usage and limits), structured (JSON
replies checked), parallel (timeouts, retries, calls side by side), eventloop (run_sync), models
(scripted and live), mcp (tools offered and used over MCP), page and approvals (asking the page,
asking a person).
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
from .untrusted import ToolGate, fence, no_instructions

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
]
