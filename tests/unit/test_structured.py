"""Structured outputs: the response_format sent (chat, Responses, scripted), the reply checked against
the schema, one corrective retry, then a clean ModelError; seed 004's fact extraction uses it."""

import json

import pytest

from looplab import extract_facts, http
from looplab.models import ModelError, call, final, scripted
from looplab.models.chat import chat_model
from looplab.models.endpoint import Endpoint
from looplab.models.responses import responses_model
from looplab.schema import strict_problems
from looplab.structured import check_reply, response_format, structured

PERSON = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "age": {"type": "integer"},
        "role": {"type": "string", "enum": ["admin", "user"]},
    },
    "required": ["name", "age"],
}
ASK = [{"role": "system", "content": "You read profiles."}, {"role": "user", "content": "Ana, 34."}]


def test_response_format_is_strict_json_schema_or_json_object():
    fmt = response_format(PERSON, "person")
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["name"] == "person"
    assert fmt["json_schema"]["strict"] is True and strict_problems(fmt["json_schema"]["schema"]) == []
    assert fmt["json_schema"]["schema"]["properties"]["role"]["type"] == ["string", "null"]  # optional: nullable
    assert response_format() == {"type": "json_object"}
    assert response_format(PERSON, strict=False)["json_schema"]["schema"] is PERSON


def test_strict_problems_name_what_strict_mode_refuses():
    assert strict_problems(PERSON) == [
        "the schema: 'additionalProperties' must be false",
        "the schema: every property must be required; role is not",
    ]
    nested = {
        "type": "object",
        "additionalProperties": False,
        "required": ["items"],
        "properties": {"items": {"type": "array", "items": {"type": "object", "properties": {}}}},
    }
    assert strict_problems(nested) == ["the schema.items.items: 'additionalProperties' must be false"]


def test_check_reply_says_what_is_wrong_in_words_a_model_can_act_on():
    assert check_reply('{"name": "Ana", "age": 34}', PERSON) == ({"name": "Ana", "age": 34}, None)
    assert check_reply('```json\n{"name": "Ana", "age": 34}\n```', PERSON)[0] == {"name": "Ana", "age": 34}
    assert check_reply("Ana is 34.", PERSON)[1].startswith("the reply was not JSON (Expecting value")
    assert (
        check_reply('{"name": "Ana"}', PERSON)[1] == "the reply is missing required argument 'age'; required: name, age"
    )
    assert check_reply('{"name": "Ana", "age": "34"}', PERSON)[1].startswith(
        "argument 'age' of the reply must be an integer"
    )
    assert check_reply("[1]", None) == (None, "the reply was JSON but not an object")
    assert check_reply("", PERSON) == (None, "the reply was empty")


def test_a_fitting_reply_is_parsed_in_one_call_and_the_format_is_sent():
    model = scripted([final('{"name": "Ana", "age": 34, "role": null}')])
    reply = structured(model, PERSON, name="person")(ASK, [])
    assert reply["parsed"] == {"name": "Ana", "age": 34, "role": None}
    assert model.calls[0]["response_format"] == response_format(PERSON, "person")
    assert len(model.calls) == 1 and model.calls[0]["messages"][-1] == ASK[-1]


def test_a_misfit_is_answered_once_with_the_problem_then_the_second_reply_is_used():
    model = scripted(
        [final('{"name": "Ana", "age": "34", "role": null}'), final('{"name": "Ana", "age": 34, "role": "user"}')]
    )
    reply = structured(model, PERSON, name="person")(ASK, [])
    assert reply["parsed"]["age"] == 34 and len(model.calls) == 2
    second = model.calls[1]["messages"]
    assert second[-2] == {"role": "assistant", "content": '{"name": "Ana", "age": "34", "role": null}'}
    assert second[-1]["role"] == "user" and "'age' of the reply must be an integer" in second[-1]["content"]


def test_two_misfits_or_a_refusal_end_in_a_clean_model_error():
    model = scripted([final("Ana, 34"), final('{"name": "Ana"}')])
    with pytest.raises(
        ModelError, match="did not match the 'person' format after 2 tries: the reply is missing"
    ) as caught:
        structured(model, PERSON, name="person")(ASK, [])
    assert caught.value.kind == "format" and len(model.calls) == 2
    refusing = scripted([{"role": "assistant", "content": "(the model refused: no)", "refusal": "no"}])
    with pytest.raises(ModelError, match="refused to answer in the 'person' format: no"):
        structured(refusing, PERSON, name="person")(ASK, [])
    assert len(refusing.calls) == 1


def test_a_reply_asking_for_tools_passes_unchecked():
    model = scripted([call("lookup", name="Ana")])
    reply = structured(model, PERSON)(ASK, [{"type": "function", "function": {"name": "lookup"}}])
    assert reply["tool_calls"][0]["function"]["name"] == "lookup" and "parsed" not in reply
    assert model.calls[0]["tools"][0]["function"]["name"] == "lookup"


def test_a_model_function_without_response_format_gets_the_schema_in_the_system_message():
    seen = []

    def plain(messages, tools):
        seen.append(messages)
        return final('{"name": "Ana", "age": 34, "role": null}')

    assert structured(plain, PERSON)(ASK, [])["parsed"]["name"] == "Ana"
    assert seen[0][0]["content"].startswith("You read profiles.\n\nAnswer with only a JSON object")
    assert '"additionalProperties": false' in seen[0][0]["content"] and ASK[0]["content"] == "You read profiles."


def test_json_mode_asks_for_json_when_no_message_does_and_the_scripted_model_enforces_it():
    model = scripted([final('{"ok": true}'), final('{"ok": true}')])
    assert structured(model)([{"role": "user", "content": "Hi."}], [])["parsed"] == {"ok": True}
    assert model.calls[0]["messages"][0] == {"role": "system", "content": "Answer with a JSON object."}
    with pytest.raises(ModelError, match="must contain the word 'json'"):
        model([{"role": "user", "content": "Hi."}], [], response_format={"type": "json_object"})


def test_the_scripted_model_refuses_a_strict_schema_that_is_not_closed():
    model = scripted([final("{}")])
    loose = {"type": "json_schema", "json_schema": {"name": "person", "schema": PERSON, "strict": True}}
    with pytest.raises(ModelError, match="invalid schema for response_format 'person'.*additionalProperties"):
        model(ASK, [], response_format=loose)
    assert model.remaining == 1 and model.calls == []  # refused before any reply was used
    assert model(ASK, [], response_format=response_format(PERSON, "person")) == final("{}")


def test_extract_facts_asks_for_the_facts_schema_and_gives_nothing_for_two_misfits():
    model = scripted([final('{"facts": ["The user is Chris.", " ", "The user is Chris."]}')])
    assert extract_facts(model, [{"role": "user", "content": "I am Chris."}]) == ["The user is Chris."]
    assert model.calls[0]["response_format"]["json_schema"]["name"] == "facts"
    bad = scripted([final('{"facts": "Chris"}'), final("Chris")])
    assert extract_facts(bad, [{"role": "user", "content": "I am Chris."}]) == [] and len(bad.calls) == 2


class Wire:
    """Stands in for looplab.http.request: records each body, answers with a prepared JSON reply."""

    def __init__(self, *replies):
        self.replies, self.bodies = list(replies), []

    def __call__(self, method, url, data, headers, timeout):
        self.bodies.append(json.loads(data))
        return 200, {}, json.dumps(self.replies.pop(0))


def test_the_chat_and_responses_adapters_send_the_format_and_keep_the_usage(monkeypatch):
    fmt = response_format(PERSON, "person")
    chat = Wire(
        {
            "choices": [{"message": {"role": "assistant", "content": '{"name": "A", "age": 1, "role": null}'}}],
            "usage": {"prompt_tokens": 9, "completion_tokens": 4, "total_tokens": 13},
        }
    )
    monkeypatch.setattr(http, "request", chat)
    reply = structured(chat_model(Endpoint("http://x/v1", model="m")), PERSON, name="person")(ASK, [])
    assert chat.bodies[0]["response_format"] == fmt and reply["parsed"]["name"] == "A"
    assert reply["usage"] == {"prompt_tokens": 9, "completion_tokens": 4, "total_tokens": 13}
    output = [
        {"type": "message", "content": [{"type": "output_text", "text": '{"name": "B", "age": 2, "role": null}'}]}
    ]
    wire = Wire({"output": output, "usage": {"input_tokens": 7, "output_tokens": 3, "total_tokens": 10}})
    monkeypatch.setattr(http, "request", wire)
    reply = structured(responses_model(Endpoint("http://x/v1", model="m")), PERSON, name="person")(ASK, [])
    assert wire.bodies[0]["text"] == {"format": {"type": "json_schema", **fmt["json_schema"]}}
    assert reply["parsed"]["age"] == 2 and reply["usage"]["total_tokens"] == 10
