"""Lessons run in CPython with the scripted model unless a test says otherwise."""



import pytest





@pytest.fixture(autouse=True)
def scripted_mode(monkeypatch):
    """Every lesson test starts in scripted mode, with no live settings that could leak in."""
    monkeypatch.setenv("LOOPLAB_MODEL", "scripted")
    for name in ("LLM_BASE_URL", "LLM_API_KEY", "LLM_MODEL", "LLM_API"):
        monkeypatch.delenv(name, raising=False)
