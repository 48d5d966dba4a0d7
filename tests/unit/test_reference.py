"""reference() in a notebook (looplab/_course/reference.py notebook_lesson): the first code cell
names the lesson, and the checks read its solution from the lessons that came with looplab, with
whatever the notebook defined by then."""

import pytest

from looplab import notebook_lesson, reference
from looplab._course import reference as module


@pytest.fixture(autouse=True)
def nothing_running():
    saved = list(module._running)
    module._running.clear()
    yield
    module._running[:] = saved


def test_a_notebook_names_its_lesson_and_reference_reads_its_solution():
    namespace = {"__name__": "__main__"}
    notebook_lesson("01b-workflows-first", namespace)
    route = reference("route")
    assert callable(route) and route.__name__ == "route"
    assert "improve" in route.__globals__  # the other solutions are defined beside it
    notebook_lesson("01b-workflows-first", namespace)  # run again (the cell run twice): still one entry
    assert len(module._running) == 1


def test_names_the_notebook_defines_later_reach_the_reference():
    namespace = {"__name__": "__main__"}
    notebook_lesson("01b-workflows-first", namespace)
    first = reference("route")
    assert "LATER" not in first.__globals__
    namespace["LATER"] = 42  # a later cell
    again = reference("route")
    assert again.__globals__["LATER"] == 42 and again is not first


def test_a_lesson_that_did_not_come_with_looplab_says_what_to_do():
    with pytest.raises(LookupError, match=r"no lesson '99-nothing' came with this looplab: `pip install -U looplab`"):
        notebook_lesson("99-nothing", {})
    with pytest.raises(LookupError, match="call it from a lesson's check"):
        reference("route")
