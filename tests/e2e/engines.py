"""The three browser engines a learner has, behind one small driver: Chromium (Playwright, as the
rest of tests/e2e drives it), Firefox ESR over WebDriver BiDi (Selenium's BiDi connection, straight
to Firefox's Remote Agent: Debian ships no geckodriver) and WebKitGTK's MiniBrowser, Safari's
engine, through WebKitWebDriver (Selenium's WebKitGTK driver, on an Xvfb display of its own).
Each is Debian's package (`make chromium firefox webkit`); nothing here downloads a browser.

    with open_engine("firefox") as engine:
        tab = engine.tab()        # a fresh profile: no HTTP cache, no service worker, no storage
        tab.goto(url)
        tab.click('[data-testid="run"]')
        tab.js("(sel) => document.querySelector(sel).innerText", '[data-testid="status"]')
        tab.outside               # every request that tried to leave 127.0.0.1 (none may)

A `Tab` is what a test needs of a page in any engine: go, reload, run a script (a function
expression, awaited, its value carried back as JSON, so every engine returns the same Python
values), click and type as a person does (trusted input events), and pick a file in a file input.
Everything else is built on `js` (anyengine.py: the learner's steps; `wait` polls).

The network wall: nothing a test does may reach past 127.0.0.1 / localhost, and `tab.outside` lists
what the page (or its workers) tried: in Chromium through Playwright's routes (aborted; the host
resolver maps every other name to nothing), in Firefox from WebDriver BiDi's network events, the
request refused by a proxy of ours that Firefox sends everything else to (`Outside`; it also
swallows Firefox's own calls home), in WebKit from that proxy alone (MiniBrowser makes no calls of
its own). WebKit runs with SharedArrayBuffer on (JSC_useSharedArrayBuffer=1), as Safari has it in a
cross-origin isolated page; WebKitGTK ships it off (`engine.tab(shared_memory=False)` is that browser).
"""

from __future__ import annotations

import contextlib
import http.server
import json
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

from playwright.sync_api import Error as PlaywrightError, sync_playwright
from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.websocket_connection import WebSocketConnection
from selenium.webdriver.webkitgtk.options import Options as WebKitOptions
from selenium.webdriver.webkitgtk.service import Service as WebKitService

from browser import CHROMIUM, CHROMIUM_ARGS

ENGINES = ("chromium", "firefox", "webkit")

FIREFOX = "/usr/bin/firefox-esr"
WEBKIT_DRIVER = "/usr/bin/WebKitWebDriver"
MINIBROWSER = "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser"
XVFB = "/usr/bin/Xvfb"
VIEWPORT = (1280, 800)
COMMAND_S = 120  # one protocol command on a busy machine (a navigation while Python starts, a big script)

# Firefox's own traffic off (its Remote Agent sets most of what automation wants already): nothing
# of a test run should reach the proxy but the page's own requests.
FIREFOX_PREFS = {
    "app.normandy.enabled": False,
    "app.update.disabledForTesting": True,
    "browser.newtabpage.enabled": False,
    "browser.safebrowsing.downloads.remote.enabled": False,
    "browser.safebrowsing.malware.enabled": False,
    "browser.safebrowsing.phishing.enabled": False,
    "browser.safebrowsing.provider.mozilla.updateURL": "",
    "browser.search.update": False,
    "browser.shell.checkDefaultBrowser": False,
    "browser.startup.page": 0,
    "browser.topsites.contile.enabled": False,
    "captivedetect.canonicalURL": "",
    "datareporting.healthreport.uploadEnabled": False,
    "datareporting.policy.dataSubmissionEnabled": False,
    "extensions.getAddons.cache.enabled": False,
    "extensions.update.enabled": False,
    "messaging-system.rsexperimentloader.enabled": False,
    "network.captive-portal-service.enabled": False,
    "network.connectivity-service.enabled": False,
    "network.dns.disablePrefetch": True,
    "network.prefetch-next": False,
    "services.settings.server": "http://127.0.0.1:9/v1",
    "toolkit.telemetry.enabled": False,
    "toolkit.telemetry.server": "",
}


class JSError(RuntimeError):
    """A script the test ran in the page threw (or its page went away while it ran)."""


# --- the network wall ------------------------------------------------------------------------------


class Outside:
    """A proxy that lets nothing through: every request an engine sends it (all that is not for
    127.0.0.1 / localhost) is recorded in `requests` ("GET http://host/path", "CONNECT host:443")
    and refused with a 403."""

    def __init__(self):
        self.requests: list[str] = []
        requests = self.requests

        class Refuse(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def refuse(self):
                requests.append(f"{self.command} {self.path}")
                self.send_response(403)
                self.send_header("Content-Length", "0")
                self.send_header("Connection", "close")
                self.end_headers()
                self.close_connection = True

            do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = do_OPTIONS = do_PATCH = do_CONNECT = refuse

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Refuse)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


LOCAL_HOSTS = {"127.0.0.1", "localhost"}


def is_local(url: str) -> bool:
    """True for what may be asked for: this machine's loopback, and what never goes on the wire."""
    parts = urlsplit(url)
    return parts.scheme not in ("http", "https", "ws", "wss") or parts.hostname in LOCAL_HOSTS


# --- what every tab offers -------------------------------------------------------------------------

# Key names for `Tab.keys` (WebDriver's code points; Playwright takes the names as they are).
KEYS = {
    "Enter": "\ue007",
    "Tab": "\ue004",
    "Escape": "\ue00c",
    "Backspace": "\ue003",
    "Delete": "\ue017",
    "ArrowUp": "\ue013",
    "ArrowDown": "\ue015",
    "ArrowLeft": "\ue012",
    "ArrowRight": "\ue014",
    "Home": "\ue011",
    "End": "\ue010",
    "Shift": "\ue008",
    "Control": "\ue009",
    "Alt": "\ue00a",
}

# The script wrapper every engine runs: the test's function, awaited, its value as JSON text.
WRAP = "async (argsJson) => JSON.stringify({ value: await (%s)(...JSON.parse(argsJson)) })"

# Where an element is (scrolled to the middle of the window), for a pointer click; null if absent.
WHERE = """(sel) => { const el = document.querySelector(sel); if (!el) return null;
    el.scrollIntoView({ block: "center", inline: "center" });
    const r = el.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; }"""


def parse_keys(sequence: str) -> list[tuple[list[str], str]]:
    """ "Control+a" -> [(["Control"], "a")]; "Enter" -> [([], "Enter")]. One chord."""
    *modifiers, key = sequence.split("+") if len(sequence) > 1 else [sequence]
    return modifiers, key


class Tab:
    """A page in one engine. Subclasses implement the protocol calls; `wait` and `click` wait the way
    a person would, for the element to be there."""

    engine: str

    def goto(self, url: str) -> None:
        raise NotImplementedError

    def reload(self) -> None:
        raise NotImplementedError

    def js(self, script: str, *args):
        """Run `script` (a JavaScript function expression) with `args` (JSON values) in the page;
        return its awaited value as JSON gives it back (undefined -> None)."""
        raise NotImplementedError

    def _click(self, selector: str) -> None:
        raise NotImplementedError

    def keys(self, *sequence: str) -> None:
        """Keys pressed in order, into whatever has the focus: "Enter", "Control+a", or a text
        (more than one character, or one that is no key name) typed as it is."""
        raise NotImplementedError

    def upload(self, selector: str, path: Path | str) -> None:
        """Pick `path` in the file input `selector`, as the file dialog would."""
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    @property
    def outside(self) -> list[str]:
        """Every request this tab's page or workers made for a host other than 127.0.0.1 / localhost."""
        raise NotImplementedError

    def wait(self, script: str, *args, timeout: float = 60_000, what: str = ""):
        """Poll `script` until it returns something truthy; return that. A navigation meanwhile
        (the page reloading itself) only means: ask again."""
        deadline = time.monotonic() + timeout / 1000
        last_error = None
        while True:
            try:
                value = self.js(script, *args)
                last_error = None
            except JSError as error:
                value, last_error = None, error
            if value:
                return value
            if time.monotonic() > deadline:
                raise TimeoutError(f"{self.engine}: {what or script} still false after {timeout:.0f} ms ({last_error})")
            time.sleep(0.1)

    def click(self, selector: str, timeout: float = 30_000) -> None:
        """A person's click on the first element matching `selector`, once it is shown and enabled."""
        self.wait(
            """(sel) => { const el = document.querySelector(sel);
                return !!el && el.getClientRects().length > 0 && !el.disabled && el.getAttribute('aria-disabled') !== 'true'; }""",
            selector,
            timeout=timeout,
            what=f"{selector} to be clickable",
        )
        self._click(selector)


# --- Chromium: Playwright --------------------------------------------------------------------------


class PlaywrightTab(Tab):
    engine = "chromium"

    def __init__(self, browser):
        self.context = browser.new_context(viewport={"width": VIEWPORT[0], "height": VIEWPORT[1]})
        self.page = self.context.new_page()
        self.page.on("dialog", lambda dialog: dialog.accept())
        self.console: list[str] = []
        self.page.on("console", lambda message: self.console.append(f"{message.type}: {message.text}"))
        self._outside: list[str] = []
        self.context.route("**/*", self._guard)

    def _guard(self, route) -> None:
        url = route.request.url
        if not is_local(url):
            self._outside.append(url)
            route.abort()
        else:
            route.fallback()

    @property
    def outside(self) -> list[str]:
        return list(self._outside)

    def goto(self, url: str) -> None:
        self.page.goto(url, wait_until="domcontentloaded")

    def reload(self) -> None:
        self.page.reload(wait_until="domcontentloaded")

    def js(self, script: str, *args):
        try:
            text = self.page.evaluate(WRAP % script, json.dumps(args))
        except PlaywrightError as error:
            raise JSError(str(error).splitlines()[0]) from None
        return json.loads(text).get("value")

    def _click(self, selector: str) -> None:
        self.page.locator(selector).first.click()

    def keys(self, *sequence: str) -> None:
        for item in sequence:
            if item in KEYS or re.fullmatch(r"(\w+\+)+\w+", item) or len(item) == 1:
                self.page.keyboard.press(item)
            else:
                self.page.keyboard.type(item)

    def upload(self, selector: str, path) -> None:
        self.page.locator(selector).set_input_files(str(path))

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.context.close()


class ChromiumEngine:
    name = "chromium"

    def __init__(self, outside: Outside):
        # the service worker's own requests through the routes too (the guard sees them)
        os.environ.setdefault("PW_EXPERIMENTAL_SERVICE_WORKER_NETWORK_EVENTS", "1")
        if not Path(CHROMIUM).exists():
            raise FileNotFoundError(f"{CHROMIUM} is missing: `make chromium` (apt-get install chromium) installs it")
        self._playwright = sync_playwright().start()
        self.browser = self._playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        self.version = self.browser.version

    def tab(self) -> PlaywrightTab:
        return PlaywrightTab(self.browser)

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.browser.close()
        self._playwright.stop()


# --- Firefox: WebDriver BiDi -----------------------------------------------------------------------


class BidiTab(Tab):
    engine = "firefox"

    def __init__(self, engine: FirefoxEngine):
        self.bidi = engine
        self.user_context = engine.send("browser.createUserContext", {})["userContext"]
        self.context = engine.send("browsingContext.create", {"type": "window", "userContext": self.user_context})[
            "context"
        ]
        engine.send(
            "browsingContext.setViewport",
            {"context": self.context, "viewport": {"width": VIEWPORT[0], "height": VIEWPORT[1]}},
        )
        self.console = engine.console.setdefault(self.context, [])
        self._requests = engine.requests.setdefault(self.context, [])

    @property
    def outside(self) -> list[str]:
        return [url for url in self._requests if not is_local(url)]

    def goto(self, url: str) -> None:
        self.bidi.send("browsingContext.navigate", {"context": self.context, "url": url, "wait": "interactive"})

    def reload(self) -> None:
        self.bidi.send("browsingContext.reload", {"context": self.context, "wait": "interactive"})

    def js(self, script: str, *args):
        try:
            reply = self.bidi.send(
                "script.callFunction",
                {
                    "functionDeclaration": WRAP % script,
                    "arguments": [{"type": "string", "value": json.dumps(args)}],
                    "target": {"context": self.context},
                    "awaitPromise": True,
                    "resultOwnership": "none",
                },
            )
        except BidiError as error:
            raise JSError(str(error)) from None
        if reply["type"] == "exception":
            raise JSError(reply["exceptionDetails"]["text"])
        return json.loads(reply["result"]["value"]).get("value")

    def _click(self, selector: str) -> None:
        x, y = self.js(WHERE, selector)
        self.bidi.send(
            "input.performActions",
            {
                "context": self.context,
                "actions": [
                    {
                        "type": "pointer",
                        "id": "mouse",
                        "parameters": {"pointerType": "mouse"},
                        "actions": [
                            {"type": "pointerMove", "x": int(x), "y": int(y)},
                            {"type": "pointerDown", "button": 0},
                            {"type": "pointerUp", "button": 0},
                        ],
                    }
                ],
            },
        )

    def keys(self, *sequence: str) -> None:
        actions = []
        for item in sequence:
            modifiers, key = parse_keys(item)
            if key in KEYS or (len(key) == 1 and modifiers) or len(item) == 1:
                chord = [KEYS[m] for m in modifiers] + [KEYS.get(key, key)]
                actions += [{"type": "keyDown", "value": k} for k in chord]
                actions += [{"type": "keyUp", "value": k} for k in reversed(chord)]
            else:
                for char in item:
                    actions += [{"type": "keyDown", "value": char}, {"type": "keyUp", "value": char}]
        self.bidi.send(
            "input.performActions",
            {"context": self.context, "actions": [{"type": "key", "id": "keyboard", "actions": actions}]},
        )

    def upload(self, selector: str, path) -> None:
        reply = self.bidi.send(
            "script.callFunction",
            {
                "functionDeclaration": "(sel) => document.querySelector(sel)",
                "arguments": [{"type": "string", "value": selector}],
                "target": {"context": self.context},
                "awaitPromise": False,
            },
        )
        element = {"sharedId": reply["result"]["sharedId"]}
        self.bidi.send("input.setFiles", {"context": self.context, "element": element, "files": [str(path)]})

    def close(self) -> None:
        if self.context:
            with contextlib.suppress(BidiError):
                self.bidi.send("browsingContext.close", {"context": self.context})
            with contextlib.suppress(BidiError):
                self.bidi.send("browser.removeUserContext", {"userContext": self.user_context})
            self.context = None


class BidiError(RuntimeError):
    pass


class FirefoxEngine:
    """Debian's Firefox ESR, headless, on a profile of its own, driven over WebDriver BiDi. Each tab
    is a window in a user context of its own (a container: its own cookies, cache, storage and
    service workers), so a tab starts as a first visit does."""

    name = "firefox"

    def __init__(self, outside: Outside):
        if not Path(FIREFOX).exists():
            raise FileNotFoundError(f"{FIREFOX} is missing: `make firefox` (apt-get install firefox-esr) installs it")
        self.profile = Path(tempfile.mkdtemp(prefix="looplab-firefox-"))
        prefs = {
            **FIREFOX_PREFS,
            "network.proxy.type": 1,
            "network.proxy.http": "127.0.0.1",
            "network.proxy.http_port": outside.port,
            "network.proxy.ssl": "127.0.0.1",
            "network.proxy.ssl_port": outside.port,
            "network.proxy.no_proxies_on": "localhost, 127.0.0.1",
        }
        (self.profile / "user.js").write_text(
            "".join(f"user_pref({json.dumps(k)}, {json.dumps(v)});\n" for k, v in prefs.items())
        )
        self.log = self.profile / "firefox.log"
        self.process = subprocess.Popen(
            [FIREFOX, "--headless", "--no-remote", "--profile", str(self.profile), "--remote-debugging-port=0"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        address = self._address()
        threading.Thread(target=self._drain, daemon=True).start()
        self.connection = WebSocketConnection(address + "/session", COMMAND_S, 0.005)
        self.console: dict[str, list[str]] = {}
        self.requests: dict[str, list[str]] = {}  # every request of a tab's page and its workers, by context
        self.connection.callbacks["log.entryAdded"] = [self._logged]
        self.connection.callbacks["network.beforeRequestSent"] = [self._requested]
        capabilities = self.send(
            "session.new",
            {"capabilities": {"alwaysMatch": {"unhandledPromptBehavior": {"default": "accept"}}}},
        )["capabilities"]
        self.version = capabilities["browserVersion"]
        self.send("session.subscribe", {"events": ["log.entryAdded", "network.beforeRequestSent"]})

    def _address(self) -> str:
        deadline = time.monotonic() + 60
        seen = []
        while time.monotonic() < deadline:
            line = self.process.stderr.readline()
            if not line and self.process.poll() is not None:
                break
            seen.append(line)
            found = re.search(r"WebDriver BiDi listening on (ws://\S+)", line)
            if found:
                return found[1]
        self.process.kill()
        raise RuntimeError("Firefox did not start its WebDriver BiDi server:\n" + "".join(seen[-20:]))

    def _drain(self) -> None:
        with open(self.log, "a") as log:
            for line in self.process.stderr:
                log.write(line)

    def _logged(self, params: dict) -> None:
        context = params.get("source", {}).get("context")
        if context:
            self.console.setdefault(context, []).append(f"{params.get('level')}: {params.get('text')}")

    def _requested(self, params: dict) -> None:
        self.requests.setdefault(params.get("context"), []).append(params["request"]["url"])

    def send(self, method: str, params: dict) -> dict:
        reply = self.connection.send_cmd(method, params)
        if reply.get("type") == "error" or "error" in reply:
            raise BidiError(f"{method}: {reply.get('error')}: {reply.get('message', '')}".strip())
        return reply["result"]

    def tab(self) -> BidiTab:
        return BidiTab(self)

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.send("browser.close", {})
        with contextlib.suppress(Exception):
            self.connection.close()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        shutil.rmtree(self.profile, ignore_errors=True)


# --- WebKit: WebKitWebDriver -----------------------------------------------------------------------


class Xvfb:
    """An X display of our own for MiniBrowser (WebKitGTK has no headless mode)."""

    def __init__(self):
        if not Path(XVFB).exists():
            raise FileNotFoundError(f"{XVFB} is missing: `make webkit` (apt-get install xvfb) installs it")
        read, write = os.pipe()
        self.process = subprocess.Popen(
            [XVFB, "-displayfd", str(write), "-screen", "0", "1280x1024x24", "-nolisten", "tcp"],
            pass_fds=(write,),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(write)
        with os.fdopen(read) as pipe:
            number = pipe.readline().strip()
        if not number:
            self.process.kill()
            raise RuntimeError("Xvfb did not start")
        self.display = f":{number}"

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)


class WebDriverTab(Tab):
    engine = "webkit"

    def __init__(self, engine: WebKitEngine, shared_memory: bool = True):
        options = WebKitOptions()
        options.binary_location = MINIBROWSER
        options.unhandled_prompt_behavior = "accept"
        for argument in (
            "--automation",
            f"--proxy={engine.outside.url}",
            "--ignore-host=localhost",
            "--ignore-host=127.0.0.1",
        ):
            options.add_argument(argument)
        env = {**engine.env, "JSC_useSharedArrayBuffer": "1" if shared_memory else "0"}
        service = WebKitService(executable_path=WEBKIT_DRIVER, env=env, log_output=str(engine.log))
        # one MiniBrowser a tab: an automation session's data is ephemeral, so a tab starts as a first visit
        self.driver = webdriver.WebKitGTK(options=options, service=service)
        self.driver.set_window_size(*VIEWPORT)
        self.driver.set_script_timeout(COMMAND_S)
        self.console: list[str] = []
        self._proxy = engine.outside
        self._since = len(engine.outside.requests)

    @property
    def outside(self) -> list[str]:
        return self._proxy.requests[self._since :]  # one MiniBrowser a tab, one tab at a time

    def goto(self, url: str) -> None:
        self.driver.get(url)

    def reload(self) -> None:
        self.driver.refresh()

    def js(self, script: str, *args):
        try:
            text = self.driver.execute_script(f"return ({WRAP % script})(arguments[0]);", json.dumps(args))
        except WebDriverException as error:
            raise JSError((error.msg or str(error)).splitlines()[0]) from None
        return json.loads(text).get("value") if text else None

    def _element(self, selector: str):
        return self.driver.find_element(By.CSS_SELECTOR, selector)

    def _click(self, selector: str) -> None:
        self.js(WHERE, selector)
        self._element(selector).click()

    def keys(self, *sequence: str) -> None:
        chain = ActionChains(self.driver)
        for item in sequence:
            modifiers, key = parse_keys(item)
            if key in KEYS or (len(key) == 1 and modifiers) or len(item) == 1:
                for m in modifiers:
                    chain.key_down(KEYS[m])
                chain.send_keys(KEYS.get(key, key))
                for m in reversed(modifiers):
                    chain.key_up(KEYS[m])
            else:
                chain.send_keys(item)
        chain.perform()

    def upload(self, selector: str, path) -> None:
        self._element(selector).send_keys(str(path))

    def close(self) -> None:
        if self.driver:
            with contextlib.suppress(Exception):
                self.driver.quit()
            self.driver = None


class WebKitEngine:
    """WebKitGTK's MiniBrowser (Safari's engine) through WebKitWebDriver, on an Xvfb display."""

    name = "webkit"

    def __init__(self, outside: Outside):
        for path, package in ((WEBKIT_DRIVER, "webkit2gtk-driver"), (MINIBROWSER, "libwebkit2gtk-4.1-0")):
            if not Path(path).exists():
                raise FileNotFoundError(f"{path} is missing: `make webkit` (apt-get install {package}) installs it")
        self.outside = outside
        self.xvfb = Xvfb()
        self.env = {**os.environ, "DISPLAY": self.xvfb.display}
        self.log = Path(tempfile.mkstemp(prefix="looplab-webkit-", suffix=".log")[1])
        probe = WebDriverTab(self)
        self.version = probe.driver.capabilities.get("browserVersion", "")
        probe.close()

    def tab(self, shared_memory: bool = True) -> WebDriverTab:
        """A fresh MiniBrowser; `shared_memory` False leaves SharedArrayBuffer off, as WebKitGTK
        ships it (GNOME Web): cross-origin isolated, yet no shared memory."""
        return WebDriverTab(self, shared_memory)

    def close(self) -> None:
        self.xvfb.stop()
        self.log.unlink(missing_ok=True)


# --- one engine, opened and closed -----------------------------------------------------------------

KINDS = {"chromium": ChromiumEngine, "firefox": FirefoxEngine, "webkit": WebKitEngine}


class Engine:
    """One engine and its network wall: `tab()` opens a fresh tab (closed with the engine)."""

    def __init__(self, name: str):
        self.name = name
        self._outside = Outside()
        try:
            self._engine = KINDS[name](self._outside)
        except BaseException:
            self._outside.stop()
            raise
        self.version = self._engine.version
        self.tabs: list[Tab] = []

    def tab(self, **options) -> Tab:
        """A fresh tab; `options` are an engine's own (WebKit's `shared_memory`)."""
        tab = self._engine.tab(**options)
        self.tabs.append(tab)
        return tab

    def close(self) -> None:
        for tab in self.tabs:
            tab.close()
        self._engine.close()
        self._outside.stop()


@contextlib.contextmanager
def open_engine(name: str):
    engine = Engine(name)
    try:
        yield engine
    finally:
        engine.close()


def engines_asked(default: str = ",".join(ENGINES)) -> list[str]:
    """The engines a run asked for: LOOPLAB_ENGINES=firefox,webkit (default all three)."""
    names = [n.strip() for n in os.environ.get("LOOPLAB_ENGINES", default).split(",") if n.strip()]
    unknown = [n for n in names if n not in ENGINES]
    if unknown:
        raise ValueError(f"LOOPLAB_ENGINES: unknown {unknown}; the engines are {', '.join(ENGINES)}")
    return names
