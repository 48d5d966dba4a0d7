"""The GitHub Pages workflow cannot run here: it parses, builds with `make build`, uploads web/dist
and deploys it, with only GitHub's own actions, each pinned to a major version."""

from __future__ import annotations

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
ACTIONS = {
    "actions/checkout",
    "actions/setup-python",
    "actions/setup-node",
    "actions/configure-pages",
    "actions/upload-pages-artifact",
    "actions/deploy-pages",
}


def test_the_pages_workflow_builds_with_make_build_and_deploys_web_dist():
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "pages.yml").read_text())
    triggers = workflow.get("on", workflow.get(True))  # YAML 1.1 reads a bare `on` as true
    assert triggers["push"]["branches"] == ["main"] and "workflow_dispatch" in triggers
    assert workflow["permissions"] == {"contents": "read", "pages": "write", "id-token": "write"}
    build, deploy = workflow["jobs"]["build"], workflow["jobs"]["deploy"]
    assert [s["run"] for s in build["steps"] if "run" in s] == ["make build"]
    steps = build["steps"] + deploy["steps"]
    used = [s["uses"] for s in steps if "uses" in s]
    assert {u.split("@")[0] for u in used} == ACTIONS
    assert all(u.split("@")[1].startswith("v") and u.split("@")[1][1:].isdigit() for u in used), used
    upload = next(s for s in build["steps"] if s.get("uses", "").startswith("actions/upload-pages-artifact@"))
    assert upload["with"]["path"] == "web/dist"
    assert deploy["needs"] == "build" and deploy["environment"]["name"] == "github-pages"
    # make build is a real target of the Makefile (mk/web.mk), and it writes web/dist
    assert "build: web/dist/build.json" in (ROOT / "mk" / "web.mk").read_text()
