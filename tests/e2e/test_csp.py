"""The page's Content-Security-Policy (index.html's <meta> tag) and its worker's (a header): scripts
only from the site, no inline script and no eval; Pyodide's wasm compiles in the worker; a live
model's endpoint stays reachable (test_live.py runs it cross-origin under the same policy)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from learner import FIXTURE, open_lesson, run

VIOLATIONS = """window.__violations = [];
document.addEventListener("securitypolicyviolation", (e) => window.__violations.push([e.effectiveDirective, e.blockedURI]));"""


@pytest.mark.plain_host
def test_injected_scripts_and_eval_do_not_run_and_lessons_still_do(context, site_url):
    context.add_init_script(VIOLATIONS)
    page = context.new_page()
    open_lesson(page, site_url, FIXTURE)
    other = site_url.replace("127.0.0.1", "localhost")  # another origin, same server
    page.evaluate(
        """(other) => {
        const inline = document.createElement("script");
        inline.textContent = "window.__injected = 'inline'";
        document.head.append(inline);
        const foreign = document.createElement("script");
        foreign.src = other + "theme.js";
        document.head.append(foreign);
        window.__handler = "unset";
        const img = document.createElement("img");
        img.setAttribute("onerror", "window.__handler = 'ran'");
        img.src = "data:,";
        document.body.append(img);
    }""",
        other,
    )
    page.wait_for_timeout(500)
    assert page.evaluate("window.__injected") is None
    assert page.evaluate("window.__handler") == "unset"
    violations = page.evaluate("window.__violations")
    assert ["script-src-elem", "inline"] in violations, violations
    assert ["script-src-elem", other + "theme.js"] in violations, violations
    assert ["script-src-attr", "inline"] in violations, violations
    assert ["script-src", "eval"] not in violations
    # Text run as code (setTimeout of a string: what eval does; DevTools' own evaluation is exempt).
    page.evaluate("window.__timer = 'unset'; setTimeout(\"window.__timer = 'ran'\", 0)")
    # Python's worker runs under the same policy (a header: a <meta> tag does not reach a worker):
    # its wasm compiled ('wasm-unsafe-eval'), text as code stays refused.
    worker = page.workers[0]
    worker.evaluate("self.__timer = 'unset'; setTimeout(\"self.__timer = 'ran'\", 0)")
    page.wait_for_timeout(500)
    assert page.evaluate("window.__timer") == "unset"
    assert ["script-src", "eval"] in page.evaluate("window.__violations")
    assert worker.evaluate("self.__timer") == "unset"
    assert all(ok for ok, _, _ in run(page))
    expect(page.get_by_test_id("output")).to_contain_text("answer: The sum is 5.")
    assert not [
        v
        for v in page.evaluate("window.__violations")
        if v[0] not in ("script-src-elem", "script-src-attr", "script-src")
    ]
