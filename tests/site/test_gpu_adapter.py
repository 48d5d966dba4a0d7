"""The local model goes on the GPU only when WebGPU's adapter is real hardware (web/src/page/model/gpuadapter.js, in Node.js).

SwiftShader, the software adapter headless Chromium offers with --use-webgpu-adapter=swiftshader,
gave wrong replies from SmolLM2 (bench/local_model.py --webgpu), and an emulated GPU is slower than
the CPU path anyway, so the engine passes over fallback adapters and software renderers.
"""

from __future__ import annotations

from conftest import node_module

engine_js = node_module("web/src/page/model/gpuadapter.js")


def test_software_adapters_are_passed_over(engine_js):
    swiftshader = {"info": {"vendor": "google", "architecture": "swiftshader", "device": "", "description": ""}}
    assert engine_js.call("isSoftwareAdapter", swiftshader) is True
    assert (
        engine_js.call(
            "isSoftwareAdapter", {"info": {"vendor": "mesa", "description": "llvmpipe (LLVM 15.0.6, 256 bits)"}}
        )
        is True
    )
    assert engine_js.call("isSoftwareAdapter", {"info": {"vendor": "intel", "isFallbackAdapter": True}}) is True
    assert engine_js.call("isSoftwareAdapter", {"isFallbackAdapter": True}) is True


def test_hardware_adapters_are_used(engine_js):
    assert (
        engine_js.call("isSoftwareAdapter", {"info": {"vendor": "nvidia", "architecture": "ampere", "description": ""}})
        is False
    )
    assert engine_js.call("isSoftwareAdapter", {"info": {"vendor": "apple", "architecture": "metal-3"}}) is False
    # an adapter without info (older browsers) counts as hardware
    assert engine_js.call("isSoftwareAdapter", {}) is False
