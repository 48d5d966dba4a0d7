"""`python -m looplab chat N` in a real subprocess on a pseudo-terminal: the conversation, Ctrl+C, Ctrl+D, --live."""

import os
import signal
import sys
from pathlib import Path

import pexpect

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
from fakeserver import FakeServer, chat_text


def chat(*args, **env) -> pexpect.spawn:
    environment = {k: v for k, v in os.environ.items() if not k.startswith(("LLM_", "LOOPLAB_"))}
    environment.update(PYTHONPATH=str(ROOT / "py"), PYTHONIOENCODING="utf-8", **env)
    # Ctrl+C as a terminal sends it: a suite started in the background (`make test &`) ignores SIGINT,
    # and a child would inherit that and never hear the Ctrl+C the tests send
    return pexpect.spawn(
        sys.executable,
        ["-m", "looplab", "chat", *args],
        cwd=str(ROOT),
        env=environment,
        encoding="utf-8",
        timeout=60,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def turn(child: pexpect.spawn, message: str) -> str:
    """Send one message; what the terminal showed until the next prompt."""
    child.sendline(message)
    child.expect("you> ")
    return child.before


def test_lesson_15_remembers_between_messages_and_blocks_delete():
    child = chat("15", "--solution")
    child.expect("you> ")
    assert "talking to agent()" in child.before and "· remember my name is Alice, then add 10 and 5" in child.before
    assert "I don't know your name" in turn(child, "what is my name?")  # a fresh conversation
    first = turn(child, "remember my name is Alice, then add 10 and 5")
    assert "15" in first.split("agent>")[-1] and 'add({"a": 10, "b": 5}) -> 15' in first
    assert "Your name is Alice" in turn(child, "what is my name?").split("agent>")[-1]  # the namespace persisted
    assert "agent> BLOCKED: blocked: no delete" in turn(child, "delete the database")
    child.sendline("quit")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_ctrl_c_ends_a_streaming_turn_and_the_conversation_goes_on_ctrl_d_leaves():
    words = " ".join(f"word{i}" for i in range(60))
    with FakeServer(streaming={"split": 6, "chunk_delay": 0.1}) as fake:
        child = chat("1", "--live", "--solution", LLM_BASE_URL=fake.url, LLM_MODEL="fake-model")
        child.expect("you> ")  # the lesson ran (its own calls got the default replies)
        fake.reset()
        fake.script(chat_text(words), chat_text("second answer"))
        # the reply stops halfway for a minute: Ctrl+C lands while it streams, however busy the machine
        fake.streaming = {"split": 6, "chunk_delay": 0.1, "fault": "stall", "stall": 60}
        child.sendline("tell me a long story")
        child.expect("word3")  # the reply is on the screen as it is written
        child.kill(signal.SIGINT)  # what Ctrl+C sends
        child.expect(r"\(turn stopped", timeout=30)  # well before the held half would have come
        assert "word59" not in child.before
        fake.streaming = {"split": 6, "chunk_delay": 0.1}
        child.expect("you> ")
        after = turn(child, "and now?")
        assert "second answer" in after and child.isalive()
        child.sendeof()  # Ctrl+D
        child.expect(pexpect.EOF)
        child.close()
        bodies = [p.body for p in fake.posts("/v1/chat/completions")]
    assert child.exitstatus == 0
    assert len(bodies) == 2 and all(b["stream"] is True for b in bodies)


def test_a_lesson_without_a_chat_says_so():
    child = chat("2", "--solution")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 1 and "offers no agent to talk to" in child.before


CHATS = ["01", "06", "08", "09", "15", "16", "16b", "18", "23"]


def test_each_lesson_that_offers_a_chat_answers_its_suggestions():
    """In process: every lesson with chat_with loads, and each suggestion gets a non-empty reply."""
    from looplab._course import course, talk
    from looplab._course.chat import begin, say

    for number in CHATS:
        path = course.find_in(ROOT / "lessons", number)
        offer, why = talk.load(path, solution=True)
        assert offer is not None, why
        assert offer.suggestions, f"lesson {number} suggests nothing to say"
        begin(offer)
        replies = [say(offer, s) for s in offer.suggestions]
        assert all(r.strip() for r in replies), (number, replies)
        assert not any("raised" in r or r.startswith("(the run stopped: error") for r in replies), (number, replies)
