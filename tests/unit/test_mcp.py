"""looplab.mcp: the MCP server and client, talking JSON text in-process (CPython and Pyodide).

The messages are also checked against the `mcp` package's own types, and against its client
and server, in tests/live/test_mcp_sdk.py (CPython only: that package does not run in Pyodide).
"""

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from looplab import Collector, Memory, Toolbox, ToolError, call, final, run_agent, scripted
from looplab.mcp import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    LATEST_LEGACY,
    LATEST_MODERN,
    METHOD_NOT_FOUND,
    PARSE_ERROR,
    UNSUPPORTED_VERSION,
    McpClient,
    McpError,
    McpServer,
    content_text,
    in_process,
)

NOTES = {"n1": "March visits: 1240.", "n2": "March visits: 980."}


def notes_box() -> Toolbox:
    box = Toolbox()

    def read_note(note_id: str) -> str:
        if note_id not in NOTES:
            raise ToolError(f"no note {note_id}; ids are {', '.join(NOTES)}")
        return NOTES[note_id]

    box.register(
        "read_note",
        "Read one note by id.",
        {"type": "object", "properties": {"note_id": {"type": "string"}}, "required": ["note_id"]},
        read_note,
    )
    box.register(
        "calculate",
        "Subtract b from a.",
        {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]},
        lambda a, b: a - b,
    )
    return box


def ask(server: McpServer, message) -> dict | None:
    """Send one message (a dict, or raw text) as JSON text; the reply decoded."""
    reply = server.handle(message if isinstance(message, str) else json.dumps(message))
    return None if reply is None else json.loads(reply)


def opened(server: McpServer | None = None) -> McpServer:
    server = server or McpServer("notes", "1.0", notes_box())
    ask(
        server,
        {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": LATEST_LEGACY,
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        },
    )
    return server


def test_the_handshake_agrees_a_version_and_says_who_the_server_is():
    server = McpServer("notes", "1.0", notes_box(), instructions="Read notes.")
    reply = ask(
        server,
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        },
    )
    assert reply == {
        "jsonrpc": "2.0",
        "id": 1,
        "result": {
            "protocolVersion": "2025-06-18",
            "capabilities": {"tools": {"listChanged": False}},
            "serverInfo": {"name": "notes", "version": "1.0"},
            "instructions": "Read notes.",
        },
    }
    # a version it does not know: the server offers its newest instead
    reply = ask(
        server,
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "initialize",
            "params": {
                "protocolVersion": "1999-01-01",
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        },
    )
    assert reply["result"]["protocolVersion"] == LATEST_LEGACY
    assert ask(server, {"jsonrpc": "2.0", "method": "notifications/initialized"}) is None
    assert server.ready is True


def test_tools_list_shows_each_tool_with_its_input_schema_in_order():
    reply = ask(opened(), {"jsonrpc": "2.0", "id": "a", "method": "tools/list"})
    tools = reply["result"]["tools"]
    assert reply["id"] == "a" and [t["name"] for t in tools] == ["read_note", "calculate"]
    assert tools[0] == {
        "name": "read_note",
        "description": "Read one note by id.",
        "inputSchema": {"type": "object", "properties": {"note_id": {"type": "string"}}, "required": ["note_id"]},
    }
    assert "nextCursor" not in reply["result"]


def test_tools_call_answers_with_text_content_and_is_error():
    server = opened()
    ok = ask(
        server,
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {"name": "read_note", "arguments": {"note_id": "n1"}},
        },
    )
    assert ok["result"] == {"content": [{"type": "text", "text": "March visits: 1240."}], "isError": False}
    failed = ask(
        server,
        {
            "jsonrpc": "2.0",
            "id": 4,
            "method": "tools/call",
            "params": {"name": "read_note", "arguments": {"note_id": "n9"}},
        },
    )
    assert failed["result"]["isError"] is True and "n9" in failed["result"]["content"][0]["text"]
    # arguments the tool's schema rejects are a tool error the model can read, not a protocol error
    wrong = ask(
        server,
        {
            "jsonrpc": "2.0",
            "id": 5,
            "method": "tools/call",
            "params": {"name": "calculate", "arguments": {"a": "ten", "b": 2}},
        },
    )
    assert wrong["result"]["isError"] is True and "'a'" in wrong["result"]["content"][0]["text"]


def test_malformed_requests_get_the_json_rpc_error_codes():
    server = opened()
    cases = [
        ("{not json", None, PARSE_ERROR),
        ("[1, 2]", None, INVALID_REQUEST),
        ('"hello"', None, INVALID_REQUEST),
        (json.dumps({"id": 7, "method": "tools/list"}), 7, INVALID_REQUEST),  # no jsonrpc
        (json.dumps({"jsonrpc": "2.0", "id": 8, "method": 5}), 8, INVALID_REQUEST),  # method not text
        (json.dumps({"jsonrpc": "2.0", "id": True, "method": "ping"}), None, INVALID_REQUEST),  # id a boolean
        (json.dumps({"jsonrpc": "2.0", "id": 9, "method": "prompts/list"}), 9, METHOD_NOT_FOUND),
        (json.dumps({"jsonrpc": "2.0", "id": 10, "method": "tools/call", "params": []}), 10, INVALID_PARAMS),
        (json.dumps({"jsonrpc": "2.0", "id": 11, "method": "tools/call", "params": {}}), 11, INVALID_PARAMS),
        (
            json.dumps(
                {"jsonrpc": "2.0", "id": 12, "method": "tools/call", "params": {"name": "read_note", "arguments": "n1"}}
            ),
            12,
            INVALID_PARAMS,
        ),
        (
            json.dumps(
                {
                    "jsonrpc": "2.0",
                    "id": 13,
                    "method": "tools/call",
                    "params": {"name": "delete_everything", "arguments": {}},
                }
            ),
            13,
            INVALID_PARAMS,
        ),
        (
            json.dumps({"jsonrpc": "2.0", "id": 14, "method": "tools/list", "params": {"cursor": "p2"}}),
            14,
            INVALID_PARAMS,
        ),
        (
            json.dumps({"jsonrpc": "2.0", "id": 15, "method": "initialize", "params": {"protocolVersion": 3}}),
            15,
            INVALID_PARAMS,
        ),
    ]
    for text, msg_id, code in cases:
        reply = ask(server, text)
        assert reply["jsonrpc"] == "2.0" and reply["id"] == msg_id, (text, reply)
        assert reply["error"]["code"] == code and reply["error"]["message"], (text, reply)
        assert "result" not in reply
    unknown = ask(server, cases[10][0])["error"]["message"]
    assert "delete_everything" in unknown and "read_note, calculate" in unknown


def test_notifications_are_never_answered_even_unknown_or_broken_ones():
    server = opened()
    for message in (
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}},
        {"jsonrpc": "2.0", "method": "no/such/thing"},
        {"jsonrpc": "2.0", "method": "tools/call", "params": "bad"},
        {"method": "notifications/initialized"},
    ):
        assert ask(server, message) is None


def test_requests_before_the_handshake_are_refused_but_ping_answers():
    server = McpServer("notes", "1.0", notes_box())
    refused = ask(server, {"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    assert refused["error"]["code"] == INVALID_REQUEST and "initialize" in refused["error"]["message"]
    assert ask(server, {"jsonrpc": "2.0", "id": 2, "method": "ping"}) == {"jsonrpc": "2.0", "id": 2, "result": {}}


def test_a_tool_that_raises_or_a_server_bug_is_still_an_answer():
    box = Toolbox()
    box.register("boom", "Fails.", None, lambda: 1 / 0)
    server = opened(McpServer("s", "1", box))
    reply = ask(server, {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "boom"}})
    assert reply["result"]["isError"] is True and "ZeroDivisionError" in reply["result"]["content"][0]["text"]

    class Broken(Toolbox):
        def schemas(self, strict=False):
            raise RuntimeError("schemas broke")

    reply = ask(opened(McpServer("s", "1", Broken())), {"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    assert reply["error"]["code"] == -32603 and "schemas broke" in reply["error"]["message"]


def test_modern_requests_carry_their_version_and_need_no_handshake():
    server = McpServer("notes", "1.0", notes_box())
    meta = {"io.modelcontextprotocol/protocolVersion": LATEST_MODERN, "io.modelcontextprotocol/clientCapabilities": {}}
    discover = ask(server, {"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": meta}})[
        "result"
    ]
    assert discover["supportedVersions"][0] == LATEST_MODERN and LATEST_LEGACY in discover["supportedVersions"]
    assert discover["resultType"] == "complete" and discover["capabilities"] == {"tools": {"listChanged": False}}
    assert discover["_meta"]["io.modelcontextprotocol/serverInfo"] == {"name": "notes", "version": "1.0"}
    listed = ask(server, {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": meta}})["result"]
    assert [t["name"] for t in listed["tools"]] == ["read_note", "calculate"]
    assert listed["resultType"] == "complete" and listed["ttlMs"] == 0 and listed["cacheScope"] == "public"
    called = ask(
        server,
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {"name": "read_note", "arguments": {"note_id": "n2"}, "_meta": meta},
        },
    )["result"]
    assert called["content"][0]["text"] == "March visits: 980." and called["resultType"] == "complete"
    assert server.session is None  # no legacy session was opened
    old = ask(
        server,
        {
            "jsonrpc": "2.0",
            "id": 4,
            "method": "tools/list",
            "params": {"_meta": {**meta, "io.modelcontextprotocol/protocolVersion": "2030-01-01"}},
        },
    )
    assert old["error"]["code"] == UNSUPPORTED_VERSION
    assert old["error"]["data"]["requested"] == "2030-01-01" and LATEST_MODERN in old["error"]["data"]["supported"]
    bare = ask(
        server,
        {
            "jsonrpc": "2.0",
            "id": 5,
            "method": "tools/list",
            "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": LATEST_MODERN}},
        },
    )
    assert bare["error"]["code"] == INVALID_PARAMS and "clientCapabilities" in bare["error"]["message"]


def test_the_client_discovers_the_tools_and_the_agent_calls_them_through_the_server():
    log = []
    client = McpClient(in_process(McpServer("notes", "1.0", notes_box()), log))
    assert client.connect()["serverInfo"] == {"name": "notes", "version": "1.0"}
    box = client.toolbox()
    assert box.names() == ["read_note", "calculate"]
    assert box.schemas()[0]["function"]["parameters"]["required"] == ["note_id"]
    events = Collector()
    result = run_agent(
        "Which branch had more visits?",
        scripted(
            [
                call("read_note", note_id="n1"),
                call("read_note", note_id="n9"),
                call("calculate", a=1240, b=980),
                final("Eastside, by 260."),
            ]
        ),
        box,
        Memory("s"),
        tracer=events,
    )
    assert result["stopped"] == "final" and result["answer"] == "Eastside, by 260."
    results = [e["result"] for e in events.of("tool_result")]
    assert results == ["March visits: 1240.", "error: no note n9; ids are n1, n2", "260"]
    methods = [json.loads(text).get("method") for who, text in log if who == "client"]
    assert methods == [
        "initialize",
        "notifications/initialized",
        "tools/list",
        "tools/call",
        "tools/call",
        "tools/call",
    ]
    assert all(who == "server" or "result" not in text for who, text in log)


def test_the_modern_client_stamps_every_request_and_discovers_first():
    log = []
    client = McpClient(in_process(McpServer("notes", "1.0", notes_box()), log), protocol=LATEST_MODERN)
    assert client.connect()["resultType"] == "complete"
    assert client.toolbox().run("read_note", '{"note_id": "n1"}') == "March visits: 1240."
    sent = [json.loads(text) for who, text in log if who == "client"]
    assert [m["method"] for m in sent] == ["server/discover", "tools/list", "tools/call"]
    assert all(m["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] == LATEST_MODERN for m in sent)


def test_the_client_turns_protocol_errors_and_broken_replies_into_errors_not_crashes():
    server = McpServer("notes", "1.0", notes_box())
    client = McpClient(in_process(server))
    client.connect()
    box = client.toolbox()
    server.toolbox = Toolbox()  # the server dropped its tools after the list was read
    said = box.run("read_note", '{"note_id": "n1"}')
    assert said.startswith("error: the MCP server refused read_note: Unknown tool") and "-32602" in said
    for reply in (
        "not json",
        '{"jsonrpc": "2.0", "id": 99, "result": {}}',
        '{"jsonrpc": "1.0"}',
        None,
        '{"jsonrpc": "2.0", "id": 1, "result": []}',
    ):
        broken = McpClient(lambda text, reply=reply: reply)
        try:
            broken.request("ping")
        except McpError as exc:
            assert exc.code in (PARSE_ERROR, INVALID_REQUEST, -32603) and exc.message
        else:
            raise AssertionError(f"no error for the reply {reply!r}")


def test_a_client_follows_next_cursor_and_stops_a_server_that_pages_forever():
    pages = {None: (["a", "b"], "p2"), "p2": (["c"], None)}

    def paged(text):
        message = json.loads(text)
        if message.get("method") != "tools/list":
            return None
        tools, cursor = pages[(message.get("params") or {}).get("cursor")]
        result = {"tools": [{"name": n, "inputSchema": {"type": "object"}} for n in tools]}
        if cursor:
            result["nextCursor"] = cursor
        return json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result})

    assert [t["name"] for t in McpClient(paged).list_tools()] == ["a", "b", "c"]
    forever = McpClient(
        lambda text: json.dumps(
            {"jsonrpc": "2.0", "id": json.loads(text)["id"], "result": {"tools": [], "nextCursor": "again"}}
        ),
        max_pages=5,
    )
    try:
        forever.list_tools()
    except McpError as exc:
        assert "5 pages" in exc.message
    else:
        raise AssertionError("a server that pages forever was followed forever")


def test_content_text_keeps_text_and_names_other_parts():
    parts = [
        {"type": "text", "text": "a"},
        {"type": "image", "data": "...", "mimeType": "image/png"},
        {"type": "resource", "resource": {"uri": "file:///x", "text": "b"}},
        "junk",
    ]
    assert content_text(parts) == "a\n[image image/png]\nb"
    assert content_text(None) == "" and content_text([{"type": "audio"}]) == "[audio]"


messages = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=10,
)
requests = st.fixed_dictionaries(
    {
        "jsonrpc": st.sampled_from(["2.0", "1.0", None]),
        "method": st.sampled_from(["initialize", "tools/list", "tools/call", "ping", "server/discover", "nope", None]),
    },
    optional={"id": st.one_of(st.integers(), st.text(max_size=5), st.none(), st.booleans()), "params": messages},
)


@given(st.one_of(messages, requests, st.text(max_size=40)))
@settings(deadline=None)
def test_the_server_never_raises_and_answers_every_request_once_with_its_id(message):
    """Any message at all: one JSON-RPC response (with a result or an error) or, for a notification, none."""
    server = opened()
    text = message if isinstance(message, str) else json.dumps(message)
    reply = server.handle(text)
    if isinstance(message, str):
        try:
            message = json.loads(message)
        except ValueError:
            pass
    if reply is None:
        assert isinstance(message, dict) and "id" not in message
        return
    answer = json.loads(reply)
    assert answer["jsonrpc"] == "2.0" and ("result" in answer) != ("error" in answer)
    if (
        isinstance(message, dict)
        and "id" in message
        and message.get("jsonrpc") == "2.0"
        and isinstance(message.get("method"), str)
        and isinstance(message["id"], (int, str))
        and not isinstance(message["id"], bool)
    ):
        assert answer["id"] == message["id"]
    if "error" in answer:
        assert isinstance(answer["error"]["code"], int) and answer["error"]["message"]
