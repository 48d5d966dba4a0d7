"""looplab.mcp against the official MCP package (CPython only; pinned in requirements-test.txt).

1. Every message of a session — ours, both ways, both protocol eras — is checked against the
   `mcp` package's own wire types (`mcp_types.methods`, one surface per protocol version), and a
   result must come back unchanged from the schema's own serialisation: no field it does not know.
2. The official client (`mcp.Client`) talks to our server, through a transport that carries only
   JSON text, in the handshake era, the modern era and its "auto" probe.
3. Our client talks to an official server (`mcp.server.mcpserver.MCPServer`), and its tools run
   in our agent loop.
"""

import contextlib
import json

import anyio
import pytest
from anyio.from_thread import start_blocking_portal
from mcp import Client
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError as SdkToolError
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage
from mcp_types import JSONRPCError, jsonrpc_message_adapter
from mcp_types.methods import serialize_server_result, validate_client_notification, validate_client_request

from looplab import Memory, Toolbox, ToolError, call, final, run_agent, scripted
from looplab.mcp import LATEST_LEGACY, LATEST_MODERN, LEGACY_VERSIONS, McpClient, McpServer, in_process

NOTES = {"n1": "Eastside branch: visits. March visits: 1240.", "n2": "Westside branch: visits. March visits: 980."}


def notes_box() -> Toolbox:
    box = Toolbox()

    @box.tool
    def read_note(note_id: str) -> str:
        """Read one note by id.

        Args:
            note_id: the note's id, such as n1
        """
        if note_id not in NOTES:
            raise ToolError(f"no note {note_id}; ids are {', '.join(NOTES)}")
        return NOTES[note_id]

    @box.tool
    def calculate(a: float, b: float) -> float:
        """Subtract b from a."""
        return a - b

    return box


def session_log(protocol: str) -> list[tuple[str, str]]:
    """A whole session of our client with our server: connect, list, call (ok, tool error, protocol error)."""
    log = []
    server = McpServer("notes", "1.0", notes_box(), instructions="Research notes.")
    client = McpClient(in_process(server, log), protocol=protocol)
    client.connect()
    box = client.toolbox()
    assert box.run("read_note", '{"note_id": "n1"}') == NOTES["n1"]
    assert box.run("read_note", '{"note_id": "n9"}').startswith("error: no note n9")
    assert box.run("calculate", '{"a": 1240, "b": 980}') == "260"
    with pytest.raises(Exception):
        client.call_tool("delete_everything", {})
    return log


def check_against_the_sdk_types(log, version: str) -> dict:
    """Validate each message with the SDK's surface for `version`; returns the methods seen, by kind."""
    seen = {"requests": [], "notifications": [], "results": [], "errors": []}
    methods = {}
    for who, text in log:
        message = json.loads(text)
        jsonrpc_message_adapter.validate_python(message)  # a valid JSON-RPC envelope, as the SDK reads it
        if who == "client":
            if "id" in message:
                validate_client_request(message["method"], version, message.get("params"))
                methods[message["id"]] = message["method"]
                seen["requests"].append(message["method"])
            else:
                validate_client_notification(message["method"], version, message.get("params"))
                seen["notifications"].append(message["method"])
        elif "error" in message:
            JSONRPCError.model_validate(message)
            seen["errors"].append(message["error"]["code"])
        else:
            method = methods[message["id"]]
            dumped = serialize_server_result(method, version, message["result"])
            assert dumped == message["result"], (
                f"{method}: fields the {version} schema does not know: {message['result']}"
            )
            seen["results"].append(method)
    return seen


@pytest.mark.parametrize("version", LEGACY_VERSIONS)
def test_a_handshake_session_matches_the_sdk_types_of_each_legacy_version(version):
    log = session_log(version)
    assert json.loads(log[1][1])["result"]["protocolVersion"] == version
    seen = check_against_the_sdk_types(log, version)
    assert seen["requests"] == ["initialize", "tools/list", "tools/call", "tools/call", "tools/call", "tools/call"]
    assert seen["notifications"] == ["notifications/initialized"]
    assert seen["results"] == ["initialize", "tools/list", "tools/call", "tools/call", "tools/call"]
    assert seen["errors"] == [-32602]


def test_a_modern_session_matches_the_sdk_types_of_2026_07_28():
    log = session_log(LATEST_MODERN)
    seen = check_against_the_sdk_types(log, LATEST_MODERN)
    assert seen["requests"] == ["server/discover", "tools/list", "tools/call", "tools/call", "tools/call", "tools/call"]
    assert seen["notifications"] == [] and seen["errors"] == [-32602]
    assert seen["results"] == ["server/discover", "tools/list", "tools/call", "tools/call", "tools/call"]


def test_a_result_with_a_field_the_schema_lacks_would_be_caught():
    """The strict comparison above can fail: a misspelt field is dropped by the SDK's serialisation."""
    result = {"content": [{"type": "text", "text": "hi"}], "iserror": True}
    assert serialize_server_result("tools/call", LATEST_LEGACY, result) != result
    with pytest.raises(Exception):
        serialize_server_result("tools/call", LATEST_LEGACY, {"content": "hi"})


# --- the official client, our server -----------------------------------------------------------


class TextTransport:
    """An SDK transport to our server that carries only JSON text, as a Worker boundary would."""

    def __init__(self, server: McpServer):
        self.server = server
        self.texts: list[str] = []  # what crossed, both ways

    @contextlib.asynccontextmanager
    async def streams(self):
        to_server, from_client = anyio.create_memory_object_stream(16)
        to_client, from_server = anyio.create_memory_object_stream(16)

        async def serve():
            async for item in from_client:
                text = item.message.model_dump_json(by_alias=True, exclude_none=True)
                self.texts.append(text)
                reply = self.server.handle(text)
                if reply is not None:
                    self.texts.append(reply)
                    await to_client.send(SessionMessage(jsonrpc_message_adapter.validate_json(reply)))

        async with anyio.create_task_group() as group:
            group.start_soon(serve)
            try:
                yield from_server, to_server
            finally:
                await to_server.aclose()
                await to_client.aclose()

    async def __aenter__(self):
        self._cm = self.streams()
        return await self._cm.__aenter__()

    async def __aexit__(self, *exc):
        return await self._cm.__aexit__(*exc)


@pytest.mark.parametrize("mode", ["legacy", "auto", LATEST_MODERN])
def test_the_official_client_lists_and_calls_our_tools(mode):
    transport = TextTransport(McpServer("notes", "1.0", notes_box()))

    async def session():
        async with Client(transport, mode=mode) as client:
            tools = await client.list_tools()
            ok = await client.call_tool("read_note", {"note_id": "n2"})
            tool_error = await client.call_tool("read_note", {"note_id": "n9"})
            with pytest.raises(MCPError) as unknown:
                await client.call_tool("delete_everything", {})
            return tools, ok, tool_error, unknown.value

    tools, ok, tool_error, unknown = anyio.run(session)
    assert [t.name for t in tools.tools] == ["read_note", "calculate"]
    assert tools.tools[0].input_schema["properties"]["note_id"]["description"] == "the note's id, such as n1"
    assert ok.is_error is False and ok.content[0].text == NOTES["n2"]
    assert tool_error.is_error is True and "n9" in tool_error.content[0].text
    assert unknown.error.code == -32602 and "delete_everything" in unknown.error.message
    first = json.loads(transport.texts[0])["method"]
    assert first == {"legacy": "initialize", "auto": "server/discover", LATEST_MODERN: "tools/list"}[mode]


# --- our client, the official server -----------------------------------------------------------


def official_server() -> MCPServer:
    server = MCPServer("official-notes")

    @server.tool()
    def read_note(note_id: str) -> str:
        """Read one note by id."""
        if note_id not in NOTES:
            raise SdkToolError(f"no note {note_id}")  # the SDK passes this message on; other errors it hides
        return NOTES[note_id]

    return server


@contextlib.contextmanager
def sdk_transport(server: MCPServer):
    """A synchronous text transport for our client to an official server running in a helper thread."""
    with start_blocking_portal() as portal:
        to_server, server_reads = anyio.create_memory_object_stream(16)
        server_writes, from_server = anyio.create_memory_object_stream(16)
        lowlevel = server._lowlevel_server
        future = portal.start_task_soon(
            lowlevel.run, server_reads, server_writes, lowlevel.create_initialization_options()
        )

        async def exchange(text: str):
            message = jsonrpc_message_adapter.validate_json(text)
            await to_server.send(SessionMessage(message))
            if getattr(message, "id", None) is None:
                return None
            while True:  # skip anything that is not the answer to this request
                item = await from_server.receive()
                reply = item.message
                if getattr(reply, "id", None) == message.id:
                    return reply.model_dump_json(by_alias=True, exclude_none=True)

        try:
            yield lambda text: portal.call(exchange, text)
        finally:
            portal.call(to_server.aclose)
            with contextlib.suppress(Exception):
                future.result(timeout=5)


@pytest.mark.parametrize("protocol", [LATEST_LEGACY, LATEST_MODERN])
def test_our_client_uses_an_official_server_in_our_loop(protocol):
    with sdk_transport(official_server()) as transport:
        client = McpClient(transport, protocol=protocol)
        info = client.connect()
        box = client.toolbox()
        memory = Memory("s")
        result = run_agent(
            "What does n1 say?",
            scripted([call("read_note", note_id="n1"), call("read_note", note_id="n7"), final("1240 visits.")]),
            box,
            memory,
        )
    results = [m["content"] for m in memory.history if m["role"] == "tool"]
    assert (info.get("serverInfo") or info["_meta"]["io.modelcontextprotocol/serverInfo"])["name"] == "official-notes"
    assert box.names() == ["read_note"] and box.schemas()[0]["function"]["parameters"]["required"] == ["note_id"]
    assert result["stopped"] == "final" and result["answer"] == "1240 visits."
    assert results[0] == NOTES["n1"] and results[1].startswith("error:") and "n7" in results[1]
