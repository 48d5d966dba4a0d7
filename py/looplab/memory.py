"""Memory: what the program sends the model on the next call — the system message, notes, and
the newest messages that fit.

The model is stateless: it knows only what each request carries. `Memory` keeps the whole
history and, on each call, hands out a window of it:

    memory = Memory("You are a research helper.", keep_last=20)
    memory.add({"role": "user", "content": "Which branch had more visits?"})
    memory.remember("March winner", "Eastside")   # rewritten into the system message every call
    memory.messages(budget=1500)                  # system + newest messages within 1,500 tokens

The window is a suffix of the history: walk back from the newest message, stop at the first one
that would pass the budget, then drop tool results at the front, so the window never opens on a
result whose request was cut. A message's size is its `tokens` field, else the token counter's
estimate (see tokens.py).
"""

from collections.abc import Callable

from .tokens import count_tokens, message_tokens


class Memory:
    """Short-term memory: the history, notes that survive trimming, and a budgeted window."""

    def __init__(
        self, system: str | dict = "", keep_last: int | None = None, counter: Callable[[str], int] = count_tokens
    ):
        self.system = dict(system) if isinstance(system, dict) else {"role": "system", "content": system}
        self.system.setdefault("role", "system")
        if keep_last is not None and keep_last < 0:
            raise ValueError(f"keep_last must be 0 or more (it is {keep_last})")
        self.keep_last = keep_last
        self.counter = counter
        self.history: list[dict] = []
        self.notes: dict[str, str] = {}

    def add(self, message: dict) -> None:
        """Append one message (a chat-completions dict) to the history."""
        self.history.append(message)

    def remember(self, key: str, value) -> None:
        """Keep a fact as a note; notes are written into the system message on every call."""
        self.notes[str(key)] = str(value)

    def forget(self, key: str) -> None:
        """Drop a note (no error if it is not there)."""
        self.notes.pop(str(key), None)

    def size(self, message: dict) -> int:
        """The token size of a message: its `tokens` field, else the counter's estimate."""
        return message_tokens(message, self.counter)

    def system_message(self) -> dict:
        """The system message with the notes appended (its `tokens` grows by the notes' size)."""
        message = dict(self.system)
        if self.notes:
            facts = "\n".join(f"- {k}: {v}" for k, v in self.notes.items())
            extra = f"\n\nKnown facts:\n{facts}"
            message["content"] = (message.get("content") or "") + extra
            if isinstance(message.get("tokens"), int):
                message["tokens"] += self.counter(extra)
        return message

    def messages(self, budget: int | None = None) -> list[dict]:
        """The system message plus the newest messages that fit in `budget` tokens (system included).

        If even the system message is over the budget, only the system message is returned.
        """
        system = self.system_message()
        recent = self.history[-self.keep_last :] if self.keep_last else list(self.history)
        if self.keep_last == 0:
            recent = []
        if budget is not None:
            room = budget - self.size(system)
            start = len(recent)
            while start > 0 and self.size(recent[start - 1]) <= room:
                room -= self.size(recent[start - 1])
                start -= 1
            recent = recent[start:]
        while recent and recent[0].get("role") == "tool":
            recent = recent[1:]
        return [system] + [dict(m) for m in recent]

    def left_out(self, window: list[dict]) -> dict:
        """What a window from `messages` leaves out of the history: `{"messages", "tokens"}` (the oldest ones)."""
        hidden = self.history[: max(0, len(self.history) - len(window) + 1)]
        return {"messages": len(hidden), "tokens": sum(self.size(m) for m in hidden)}

    def tokens(self, budget: int | None = None) -> int:
        """The total size of `messages(budget)`."""
        return sum(self.size(m) for m in self.messages(budget))

    def __len__(self) -> int:
        return len(self.history)
