"""Six statements of lessons 20 and 24-27 that were imprecise (issue 43), each held to its source.

Each test reads the lesson's prose (and where it can, its solved namespace or the library it
describes), so the corrected words cannot drift back: the cap on a reply and what it counts (20),
caching's retention and keys (20), Streamable HTTP in the 2026-07-28 revision (24), where the tool
design came from and what changed (25), an estimate against what it estimates (26), and a record
that names only the notes the model read (27).
"""

import pytest

from looplab.models import ModelError
from looplab.models.limits import check_cut

from test_chapter2_statements import lesson_path, prose


def words(prefix: str) -> str:
    return " ".join(prose(prefix).split())


def test_20_names_max_completion_tokens_and_says_it_counts_reasoning_and_can_give_an_empty_reply():
    text = words("20")
    assert "`max_completion_tokens`" in text and "deprecated" in text and "reasoning tokens" in text
    assert "**empty** reply" in text and "cut before the model wrote anything" in text
    with pytest.raises(ModelError, match="before it wrote anything"):  # what the lesson says looplab does
        check_cut({"role": "assistant", "content": "", "cut": "length"}, 64, "max_completion_tokens")


def test_20_explains_its_reasoning_tokens_example_with_the_examples_own_figures(solved):
    shape = solved("20")["SHAPES"]["responses"]
    thinking, output = shape["output_tokens_details"]["reasoning_tokens"], shape["output_tokens"]
    assert f"{thinking} of the {output} output tokens were thinking and {output - thinking} were the reply" in words(
        "20"
    )
    assert solved("20")["usage_of"](shape)["completion"] == output  # reasoning is inside the completion count


def test_20_says_how_long_a_cache_lives_and_what_finds_it():
    text = words("20")
    assert "5 to 10 minutes" in text and "an hour" in text and '`prompt_cache_retention: "24h"`' in text
    assert "`prompt_cache_key`" in text and "for a few minutes" not in text


def test_24_streamable_http_has_no_server_requests_sessions_or_get_stream_since_2026_07_28():
    text = words("24")
    assert "a request of its own)" not in text
    assert "The 2026-07-28 revision removed all three: no session, no `GET` stream" in text


def test_25_cites_swe_agent_and_says_what_mini_swe_agent_changed():
    text = words("25")
    assert "SWE-agent (Yang and others, 2024, arXiv 2405.15793)" in text and "100 lines" in text
    assert "mini-swe-agent" in text and "over 74% on SWE-bench Verified" in text
    assert "Two lessons from those who built them" not in text


def test_26_tells_the_estimate_from_what_it_estimates():
    text = words("26")
    assert "what the benchmark *estimates*" in text and "true only if the attempts were independent" not in text
    assert "as if the trials of a task were independent" not in lesson_path("26").read_text(encoding="utf-8")


def test_27_the_ready_record_does_not_name_the_withheld_planted_note(solved):
    record = solved("27")["withheld"].record
    assert record["sources"] == ["n1"] and "n7" not in record["sources"] and "1310" in record["answer"]
