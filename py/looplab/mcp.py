"""MCP, the Model Context Protocol: a tool server and a client speaking its JSON-RPC 2.0 messages.

A server offers tools; a client (the agent's side) discovers them with `tools/list` and calls them
with `tools/call`. Every message is JSON text, so the server can sit behind anything that carries
text — here a plain function call (`in_process`); a pipe, a socket or a Web Worker elsewhere.

    server = McpServer("notes", "1.0", toolbox)      # offers a Toolbox's tools
    client = McpClient(in_process(server))            # a transport: JSON text in, JSON text out
    client.connect()                                  # the initialize handshake
    box = client.toolbox()                            # the server's tools, as a Toolbox
    run_agent("...", model_fn, box, Memory("..."))   # each call goes through the server

Two eras of the protocol (modelcontextprotocol.io/specification):

    legacy  2024-11-05 .. 2025-11-25   `initialize` (protocolVersion, capabilities, clientInfo) ->
                                       (protocolVersion, capabilities, serverInfo); then the client's
                                       `notifications/initialized`; then requests
    modern  2026-07-28                 no handshake: each request names its protocol version in
                                       params._meta; `server/discover` says what the server speaks;
                                       every result carries `resultType`

The server answers both (a "dual-era" server: a request with the modern `_meta` is served on its
own, `initialize` opens a legacy session); the client speaks the one it is given (legacy by default).

What goes wrong, and how it is said:

    not JSON                       -32700 parse error          (id null)
    not a JSON-RPC request         -32600 invalid request      (id null when it cannot be read)
    a method the server lacks      -32601 method not found
    params of the wrong shape      -32602 invalid params       (also a tool name the server lacks)
    a modern version it lacks      -32022 unsupported version  (data: supported, requested)
    arguments a tool rejects,      a result with isError: true, so the model can read it and retry
    or a tool that fails
    a notification                 never answered, not even with an error
"""

import json
from collections.abc import Callable

from .tools import Toolbox, ToolError

PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS, INTERNAL_ERROR = -32700, -32600, -32601, -32602, -32603
UNSUPPORTED_VERSION = -32022
LEGACY_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
MODERN_VERSIONS = ("2026-07-28",)
LATEST_LEGACY, LATEST_MODERN = LEGACY_VERSIONS[-1], MODERN_VERSIONS[-1]
META = "io.modelcontextprotocol/"  # the prefix of the protocol's own _meta keys

Transport = Callable[[str], "str | None"]  # sends one message's JSON text, returns the reply's (None: no reply)


class McpError(Exception):
    """A JSON-RPC error: its code, message and optional data."""

    def __init__(self, code: int, message: str, data=None):
        super().__init__(f"{message} (MCP error {code})")
        self.code, self.message, self.data = code, message, data

    def to_dict(self) -> dict:
        """The `error` member of a response."""
        error = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error


# --- the server ------------------------------------------------------------------------------


class McpServer:
    """Offers a Toolbox's tools over MCP; `handle(text)` answers one message (None for a notification).

    One object is one connection: `initialize` opens its legacy session; modern requests need none.
    """

    def __init__(self, name: str, version: str, toolbox: Toolbox, instructions: str | None = None):
        self.info = {"name": name, "version": version}
        self.toolbox = toolbox
        self.instructions = instructions
        self.session: str | None = None  # the legacy version agreed by `initialize`
        self.ready = False  # the client said notifications/initialized

    def handle(self, text: str) -> str | None:
        """Answer one message given as JSON text; None when nothing is to be sent back."""
        try:
            message = json.loads(text)
        except (json.JSONDecodeError, TypeError) as exc:
            return json.dumps(failure(None, McpError(PARSE_ERROR, f"Parse error: {exc}")))
        reply = self.handle_message(message)
        return None if reply is None else json.dumps(reply, ensure_ascii=False)

    def handle_message(self, message) -> dict | None:
        """Answer one decoded message: a response dict, or None for a notification."""
        if not isinstance(message, dict):
            why = "a batch (a JSON array) is not part of MCP" if isinstance(message, list) else "not a JSON object"
            return failure(None, McpError(INVALID_REQUEST, f"Invalid Request: {why}"))
        notification = "id" not in message
        msg_id = message.get("id")
        if message.get("jsonrpc") != "2.0" or not isinstance(message.get("method"), str):
            return (
                None
                if notification
                else failure(
                    msg_id if valid_id(msg_id) else None,
                    McpError(INVALID_REQUEST, 'Invalid Request: needs "jsonrpc": "2.0" and a "method" string'),
                )
            )
        if notification:
            if message["method"] == "notifications/initialized" and self.session:
                self.ready = True
            return None  # notifications are never answered
        if not valid_id(msg_id):
            return failure(None, McpError(INVALID_REQUEST, "Invalid Request: the id must be a string or an integer"))
        params = message.get("params", {})
        try:
            if not isinstance(params, dict):
                raise McpError(INVALID_PARAMS, "Invalid params: params must be an object")
            return success(msg_id, self.dispatch(message["method"], params))
        except McpError as exc:
            return failure(msg_id, exc)
        except Exception as exc:  # a bug of ours is still an answer, never a crash of the caller
            return failure(msg_id, McpError(INTERNAL_ERROR, f"Internal error: {type(exc).__name__}: {exc}"))

    def dispatch(self, method: str, params: dict) -> dict:
        """The result of one request, or an McpError."""
        meta = params.get("_meta") if isinstance(params.get("_meta"), dict) else {}
        if META + "protocolVersion" in meta:
            return self.modern(method, params, meta)
        if method == "initialize":
            return self.initialize(params)
        if method == "ping":
            return {}
        if method in ("tools/list", "tools/call"):
            if self.session is None:
                raise McpError(
                    INVALID_REQUEST,
                    f"Invalid Request: send initialize before {method} (or name a "
                    f"protocol version in params._meta['{META}protocolVersion'])",
                )
            return self.list_tools(params) if method == "tools/list" else self.call_tool(params)
        if method == "server/discover":
            raise McpError(
                INVALID_PARAMS, f"Invalid params: server/discover needs params._meta['{META}protocolVersion']"
            )
        raise McpError(METHOD_NOT_FOUND, f"Method not found: {method}")

    def initialize(self, params: dict) -> dict:
        """Legacy handshake: agree a version (the client's if we speak it, else our newest)."""
        asked = params.get("protocolVersion")
        if (
            not isinstance(asked, str)
            or not isinstance(params.get("capabilities"), dict)
            or not isinstance(params.get("clientInfo"), dict)
        ):
            raise McpError(
                INVALID_PARAMS,
                "Invalid params: initialize needs protocolVersion (a string), "
                "capabilities (an object) and clientInfo (an object)",
            )
        self.session, self.ready = (asked if asked in LEGACY_VERSIONS else LATEST_LEGACY), False
        result = {"protocolVersion": self.session, "capabilities": self.capabilities(), "serverInfo": dict(self.info)}
        if self.instructions:
            result["instructions"] = self.instructions
        return result

    def modern(self, method: str, params: dict, meta: dict) -> dict:
        """A 2026-07-28 request, served on its own: check its version, then answer with resultType."""
        version = meta[META + "protocolVersion"]
        if version not in MODERN_VERSIONS:
            raise McpError(
                UNSUPPORTED_VERSION,
                "Unsupported protocol version",
                {"supported": [*MODERN_VERSIONS, *reversed(LEGACY_VERSIONS)], "requested": version},
            )
        if not isinstance(meta.get(META + "clientCapabilities"), dict):
            raise McpError(INVALID_PARAMS, f"Invalid params: params._meta needs '{META}clientCapabilities' (an object)")
        if method == "server/discover":
            result = {
                "supportedVersions": [*MODERN_VERSIONS, *reversed(LEGACY_VERSIONS)],
                "capabilities": self.capabilities(),
                "ttlMs": 0,
                "cacheScope": "public",
            }
            if self.instructions:
                result["instructions"] = self.instructions
        elif method == "tools/list":
            result = {**self.list_tools(params), "ttlMs": 0, "cacheScope": "public"}
        elif method == "tools/call":
            result = self.call_tool(params)
        else:
            raise McpError(METHOD_NOT_FOUND, f"Method not found: {method} (in protocol {version})")
        return {**result, "resultType": "complete", "_meta": {META + "serverInfo": dict(self.info)}}

    def capabilities(self) -> dict:
        """What this server offers: tools, whose list does not change while it runs."""
        return {"tools": {"listChanged": False}}

    def list_tools(self, params: dict) -> dict:
        """tools/list: every tool in one page, in registration order (no cursor is ever handed out)."""
        if params.get("cursor") is not None:
            raise McpError(INVALID_PARAMS, f"Invalid params: unknown cursor {params['cursor']!r}")
        tools = []
        for schema in self.toolbox.schemas():
            fn = schema["function"]
            tools.append({"name": fn["name"], "description": fn["description"], "inputSchema": fn["parameters"]})
        return {"tools": tools}

    def call_tool(self, params: dict) -> dict:
        """tools/call: run one tool; what the tool says goes back as text content, failures with isError."""
        name, arguments = params.get("name"), params.get("arguments", {})
        if not isinstance(name, str):
            raise McpError(INVALID_PARAMS, "Invalid params: tools/call needs a tool name (a string)")
        if arguments is not None and not isinstance(arguments, dict):
            raise McpError(INVALID_PARAMS, "Invalid params: arguments must be an object")
        if name not in self.toolbox:
            known = ", ".join(self.toolbox.names()) or "none"
            raise McpError(INVALID_PARAMS, f"Unknown tool: {name} (tools: {known})")
        text = self.toolbox.run(name, arguments or {})
        return {"content": [{"type": "text", "text": text}], "isError": text.startswith("error:")}


def valid_id(value) -> bool:
    """A JSON-RPC id MCP accepts: a string or an integer (not a boolean, not null)."""
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def success(msg_id, result: dict) -> dict:
    """A response carrying a result."""
    return {"jsonrpc": "2.0", "id": msg_id, "result": result}


def failure(msg_id, error: McpError) -> dict:
    """A response carrying an error."""
    return {"jsonrpc": "2.0", "id": msg_id, "error": error.to_dict()}


def in_process(server: McpServer, log: list | None = None) -> Transport:
    """A transport to a server in this process: JSON text both ways, each message kept in `log` if given."""

    def send(text: str) -> str | None:
        if log is not None:
            log.append(("client", text))
        reply = server.handle(text)
        if log is not None and reply is not None:
            log.append(("server", reply))
        return reply

    return send


# --- the client ------------------------------------------------------------------------------


class McpClient:
    """Talks to one MCP server through a transport; `toolbox()` turns its tools into a Toolbox."""

    def __init__(
        self,
        transport: Transport,
        name: str = "looplab",
        version: str = "0.1.0",
        protocol: str = LATEST_LEGACY,
        max_pages: int = 50,
    ):
        if protocol not in LEGACY_VERSIONS + MODERN_VERSIONS:
            raise ValueError(f"protocol {protocol!r} is not one of {', '.join(LEGACY_VERSIONS + MODERN_VERSIONS)}")
        self.transport, self.protocol, self.max_pages = transport, protocol, max_pages
        self.info = {"name": name, "version": version}
        self.server: dict | None = None  # what the server said about itself on connect
        self.next_id = 0

    @property
    def modern(self) -> bool:
        """Does this client name its version on every request (2026-07-28) instead of a handshake?"""
        return self.protocol in MODERN_VERSIONS

    def connect(self) -> dict:
        """Legacy: initialize, then notifications/initialized. Modern: server/discover. Returns the result."""
        if self.modern:
            result = self.request("server/discover")
            if self.protocol not in result.get("supportedVersions", []):
                raise McpError(
                    UNSUPPORTED_VERSION,
                    f"the server does not speak {self.protocol}; it speaks "
                    f"{', '.join(map(str, result.get('supportedVersions', [])))}",
                )
        else:
            result = self.request(
                "initialize", {"protocolVersion": self.protocol, "capabilities": {}, "clientInfo": dict(self.info)}
            )
            if result.get("protocolVersion") not in LEGACY_VERSIONS:
                raise McpError(
                    UNSUPPORTED_VERSION,
                    f"the server offered protocol {result.get('protocolVersion')!r}, which this client does not speak",
                )
            self.protocol = result["protocolVersion"]
            self.notify("notifications/initialized")
        self.server = result
        return result

    def request(self, method: str, params: dict | None = None) -> dict:
        """Send a request and return its result; an error reply (or a broken one) raises McpError."""
        self.next_id += 1
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        params = self.stamp(params)
        if params is not None:
            message["params"] = params
        text = self.transport(json.dumps(message, ensure_ascii=False))
        reply = read_reply(text, self.next_id)
        if "error" in reply:
            error = reply["error"] if isinstance(reply["error"], dict) else {}
            raise McpError(error.get("code", INTERNAL_ERROR), str(error.get("message", "error")), error.get("data"))
        if reply["result"].get("resultType", "complete") != "complete":
            raise McpError(
                INTERNAL_ERROR,
                f"the server needs more input (resultType "
                f"{reply['result']['resultType']!r}), which this client does not support",
            )
        return reply["result"]

    def notify(self, method: str, params: dict | None = None) -> None:
        """Send a notification (no id, no reply expected)."""
        message = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self.transport(json.dumps(message, ensure_ascii=False))

    def stamp(self, params: dict | None) -> dict | None:
        """Modern requests carry the protocol version, capabilities and who we are in params._meta."""
        if not self.modern:
            return params
        meta = {
            META + "protocolVersion": self.protocol,
            META + "clientCapabilities": {},
            META + "clientInfo": dict(self.info),
        }
        return {**(params or {}), "_meta": {**(params or {}).get("_meta", {}), **meta}}

    def list_tools(self) -> list[dict]:
        """Every tool the server offers, following nextCursor page by page."""
        tools, cursor = [], None
        for _ in range(self.max_pages):
            result = self.request("tools/list", {"cursor": cursor} if cursor else None)
            page = result.get("tools")
            if not isinstance(page, list):
                raise McpError(INTERNAL_ERROR, "tools/list gave no list of tools")
            tools += [t for t in page if isinstance(t, dict) and isinstance(t.get("name"), str)]
            cursor = result.get("nextCursor")
            if not cursor:
                return tools
        raise McpError(INTERNAL_ERROR, f"tools/list went on for more than {self.max_pages} pages")

    def call_tool(self, name: str, arguments: dict | None = None) -> dict:
        """tools/call: the result (content parts, isError)."""
        return self.request("tools/call", {"name": name, "arguments": arguments or {}})

    def toolbox(self, toolbox: Toolbox | None = None) -> Toolbox:
        """Register every tool of the server on a Toolbox, each one calling through the server."""
        box = toolbox if toolbox is not None else Toolbox()
        for tool in self.list_tools():
            schema = tool.get("inputSchema")
            box.register(
                tool["name"],
                str(tool.get("description") or tool.get("title") or tool["name"]),
                schema if isinstance(schema, dict) else None,
                self.caller(tool["name"]),
            )
        return box

    def caller(self, name: str) -> Callable[..., str]:
        """A tool function that calls `name` on the server; what went wrong comes back as ToolError."""

        def call(**arguments) -> str:
            try:
                result = self.call_tool(name, arguments)
            except McpError as exc:
                raise ToolError(f"the MCP server refused {name}: {exc.message} (error {exc.code})") from None
            text = content_text(result.get("content"))
            if result.get("isError"):
                raise ToolError(text.removeprefix("error:").strip() or f"{name} failed on the MCP server")
            return text

        call.__name__ = name
        return call


def read_reply(text, expected_id: int) -> dict:
    """A response's JSON text, checked: it answers our request with a result object or an error."""
    if text is None:
        raise McpError(INTERNAL_ERROR, "the server sent no reply to a request")
    try:
        reply = json.loads(text)
    except (json.JSONDecodeError, TypeError) as exc:
        raise McpError(PARSE_ERROR, f"the server's reply is not JSON: {exc}") from None
    if not isinstance(reply, dict) or reply.get("jsonrpc") != "2.0":
        raise McpError(INVALID_REQUEST, "the server's reply is not a JSON-RPC 2.0 response")
    if "error" in reply:
        return reply
    if reply.get("id") != expected_id:
        raise McpError(INVALID_REQUEST, f"the server answered id {reply.get('id')!r}, not {expected_id}")
    if not isinstance(reply.get("result"), dict):
        raise McpError(INVALID_REQUEST, "the server's reply has neither a result object nor an error")
    return reply


def content_text(content) -> str:
    """The text of a result's content parts; other parts (images, audio, resources) named, not dropped."""
    if not isinstance(content, list):
        return ""
    parts = []
    for part in content:
        if not isinstance(part, dict):
            continue
        if part.get("type") == "text":
            parts.append(str(part.get("text", "")))
        elif part.get("type") == "resource" and isinstance(part.get("resource"), dict) and "text" in part["resource"]:
            parts.append(str(part["resource"]["text"]))
        else:
            parts.append(
                f"[{part.get('type', 'part')} {part.get('mimeType') or part.get('uri') or ''}]".replace(" ]", "]")
            )
    return "\n".join(parts)
