"""Several agents in one trace (lesson 23): each event shows the agent that acted, and a nested run
(the researcher called as the writer's tool) sits between the writer's tool call and its result."""

from __future__ import annotations

from conftest import guard
from learner import put_solutions, run, wait_ready


def test_the_trace_panel_names_the_agent_of_each_event_and_keeps_nested_runs_apart(browser, site_url):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    guard(context)
    page = context.new_page()
    page.goto(f"{site_url}#/23-several-agents")
    wait_ready(page, "23-several-agents")
    put_solutions(page)
    results = run(page)
    assert results and all(ok for ok, _, _ in results), [r for r in results if not r[0]]
    items = page.get_by_test_id("trace").locator("li.ev")
    rows = items.evaluate_all(
        "els => els.map(e => [e.dataset.type, e.dataset.agent || null, (e.querySelector('.ev-agent') || {}).textContent || null,"
        " e.textContent])"
    )
    agents = [agent for _, agent, _, _ in rows]
    assert {"writer", "researcher", "triage", "billing"} <= set(agents)
    # the label shown is the agent's name, on every event of a named run
    assert all(shown == agent for _, agent, shown, _ in rows if agent)
    # the researcher's run opens right after the writer's tool call and closes before the writer's result
    first = agents.index("researcher")
    last = next(i for i in range(first, len(rows)) if rows[i][0] == "stop" and rows[i][1] == "researcher")
    assert (
        rows[first - 1][0] == "tool_call" and rows[first - 1][1] == "writer" and "ask_researcher" in rows[first - 1][3]
    )
    assert rows[first][0] == "run_start" and rows[last][0] == "stop"
    writer_result = next(i for i, row in enumerate(rows) if row[0] == "tool_result" and row[1] == "writer")
    assert last < writer_result and all(agent == "researcher" for agent in agents[first : last + 1])
    context.close()
