"""The model catalog (web/models.json, its format in web/models.md) and the page's reading of it
(web/src/page/model/catalog.js, in Node.js): every entry complete, the download address its
host's URL or the mirror's, a broken catalog refused with a sentence, and the device check's
verdict for a small device, a normal one and one too small."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest
from conftest import node_module

ROOT = Path(__file__).resolve().parents[2]
CATALOG = json.loads((ROOT / "web" / "models.json").read_text())
ADDRESS = "http://127.0.0.1:8000/some/path/models.json"

catalog_js = node_module("web/src/page/model/catalog.js")


def test_the_catalog_names_a_laptop_default_a_larger_choice_and_a_small_one():
    models = {m["id"]: m for m in CATALOG["models"]}
    assert CATALOG["format"] == 1 and CATALOG["mirror"] is None
    default = models[CATALOG["default"]]
    assert default["tier"] == "laptop" and 0.3e9 <= default["size"] <= 0.7e9  # the "~0.5 GB"
    assert any(m["tier"] == "large" and m["size"] > default["size"] for m in models.values())
    assert any(m["tier"] == "small" for m in models.values())
    for m in models.values():
        assert re.fullmatch(r"[0-9a-f]{64}", m["sha256"]) and m["url"].startswith("https://"), m["id"]
        assert m["url"].endswith("/" + m["file"]) and m["memory"] > m["size"], m["id"]
        assert m["licence"] and m["licenceUrl"].startswith("https://") and m["goodAt"], m["id"]


def test_the_catalogs_test_model_is_the_file_pinned_from_the_registry():
    pinned = json.loads((ROOT / "llama.lock.json").read_text())["gemma"]
    gemma = next(m for m in CATALOG["models"] if m["file"] == pinned["file"])
    assert (gemma["sha256"], gemma["size"]) == (pinned["sha256"], pinned["size"])


def test_the_page_reads_the_catalog_with_each_models_download_address(catalog_js):
    read = catalog_js.call("readCatalog", CATALOG, ADDRESS)
    assert read["default"] == CATALOG["default"] and read["mirror"] is None
    assert [m["download"] for m in read["models"]] == [m["url"] for m in CATALOG["models"]]
    mirrored = catalog_js.call("readCatalog", {**CATALOG, "mirror": "models/"}, ADDRESS)
    assert mirrored["mirror"] == "http://127.0.0.1:8000/some/path/models/"
    assert [m["download"] for m in mirrored["models"]] == [
        "http://127.0.0.1:8000/some/path/models/" + m["file"] for m in CATALOG["models"]
    ]


def broken(change) -> dict:
    catalog = copy.deepcopy(CATALOG)
    change(catalog)
    return catalog


@pytest.mark.parametrize(
    "change, words",
    [
        (lambda c: c.update(format=2), "is format 2; this page reads format 1"),
        (lambda c: c.pop("models"), 'has no "models" list'),
        (lambda c: c["models"][1].update(sha256="abc"), "model 2 (qwen3-1.7b) has no sha256 of 64 hex digits"),
        (lambda c: c["models"][0].update(size="639 MB"), "model 1 (qwen3-0.6b) has no size in bytes"),
        (lambda c: c["models"][2].update(id=c["models"][0]["id"]), "model 3 repeats the id qwen3-0.6b"),
        (lambda c: c["models"][0].update(file="../x.gguf"), "not a plain .gguf name"),
        (lambda c: c["models"][0].update(tier="huge"), 'has the tier "huge"'),
    ],
)
def test_a_broken_catalog_is_refused_with_what_is_wrong(catalog_js, change, words):
    with pytest.raises(RuntimeError) as raised:
        catalog_js.call("readCatalog", broken(change), ADDRESS)
    assert words in str(raised.value) and ADDRESS in str(raised.value)


def check(catalog_js, facts: dict) -> dict:
    return catalog_js.call("deviceCheck", facts, catalog_js.call("readCatalog", CATALOG, ADDRESS))


def test_a_normal_laptop_is_recommended_the_default(catalog_js):
    verdict = check(catalog_js, {"memory": 8, "storageFree": 10e9, "gpu": False, "jspi": True, "threads": 2})
    assert (verdict["tier"], verdict["recommended"]) == ("laptop", CATALOG["default"])
    assert verdict["sentence"] == (
        "This device can run a local model (about 8 GB of memory, the CPU, 2 threads): Qwen3-0.6B is recommended."
    )
    with_gpu = check(catalog_js, {"memory": 8, "gpu": True, "jspi": True, "threads": 4})
    assert with_gpu["recommended"] == "qwen3-1.7b" and "WebGPU" in with_gpu["sentence"]


def test_a_small_device_gets_the_small_model_and_the_reason(catalog_js):
    verdict = check(catalog_js, {"memory": 2, "jspi": True})
    assert (verdict["tier"], verdict["recommended"]) == ("small", "gemma3-270m")
    assert verdict["fits"]["qwen3-0.6b"] == "it needs about 1.2 GB of memory; this device has about 2 GB"
    assert verdict["sentence"].startswith("This device can run only a small model (about 2 GB of memory")


def test_a_device_too_small_is_told_so_in_one_sentence_and_without_jspi_it_is_slower(catalog_js):
    tiny = check(catalog_js, {"memory": 0.5, "jspi": True})
    assert (tiny["tier"], tiny["recommended"]) == ("none", None)
    assert tiny["sentence"] == (
        "This device is too small for a local model (it needs about 0.45 GB of memory; this device has "
        "about 0.5 GB): use scripted replies or your own key."
    )
    full = check(catalog_js, {"memory": 8, "storageFree": 100e6, "jspi": True})
    assert full["tier"] == "none" and "lets the site store 0.10 GB more" in full["sentence"]
    no_jspi = check(catalog_js, {"memory": 8, "jspi": False})  # the engine's slower compat build still runs
    assert no_jspi["tier"] == "laptop" and "the slower build for browsers without JSPI" in no_jspi["sentence"]
