# Benchmarks: each prints figures and asserts nothing. `make bench` runs every one; `make bench-NAME`
# runs one, and its line below is the one place that says what it needs.
#   bench-loop       bench/loop.py: the loop's overhead and memory windows, in CPython and in Pyodide
#   bench-runtime    bench/runtime.py: run_sync, calls side by side, budgets, in CPython and in Pyodide
#   bench-models     bench/models.py: the adapters' overhead in CPython, the openai SDK in Pyodide
#   bench-startup    bench/startup.py: the site's start-up against a bare Pyodide page, with and
#                    without the snapshot
#   bench-sdk        bench/sdk_browser.py: the openai SDK's install + import and a call's cost in the page
#   bench-real       bench/real_server.py: the curriculum live against llama-server (mk/llama.mk)
#   bench-coding     bench/coding_benchmark.py: lesson 26's benchmark scores for SmolLM2 via llama-server
#   bench-local-agent  bench/local_agent.py: the agent lessons on both local test models, with the
#                    page's requests, through llama-server: valid calls, finals, checks, tokens/s
#   bench-flood      bench/flood.py: the longest main-thread task while a run floods the Output console
#   bench-inspector  bench/inspector.py: the run inspector draws a 200-step run, moves one step
#   bench-record     bench/record_replay.py: a whole-course record replayed in the page and in CPython
#   bench-local      bench/local_model.py: the local model in the page against wllama on a bare page
#   bench-snapshot   bench/snapshot_size.py: the memory snapshot's variants (extras in it, a second
#                    one, a smaller one) built and measured side by side
#   bench-cases      bench/compare_cases.py: a differential check's cases, looplab's seeded generator
#                    against hypothesis, in CPython and in the page (install, import, check)
#   bench-stop       bench/stop.py: Stop -> the run's end, by what the run was doing, beside the 2 s promise
#   bench-streaming  bench/streaming.py: a streamed reply's first characters on screen, from the
#                    server's first byte (live, fake server) and the engine's first token (local)

BENCHES := bench-loop bench-runtime bench-models bench-startup bench-sdk bench-real bench-coding bench-local-agent \
	bench-flood bench-inspector bench-local bench-streaming bench-snapshot bench-record bench-cases bench-stop
.PHONY: bench $(BENCHES)

bench: $(BENCHES)

bench-loop: venv node wheels-test
	$(PY) bench/loop.py
	@echo "-- the same inside Pyodide (Node.js):"
	node tests/pyodide/run.mjs --script bench/loop.py

bench-runtime: venv node wheels-test
	$(PY) bench/runtime.py
	node tests/pyodide/run.mjs --script bench/runtime.py

bench-models: venv node wheels-openai $(EXTRA_WHEELS)
	$(PY) bench/models.py --pyodide

bench-startup: build chromium
	$(PY) bench/startup.py

bench-sdk: venv node wheels-site wheels-openai wheels-test chromium
	$(PY) bench/sdk_browser.py

bench-cases: venv node wheels-site wheels-test chromium
	$(PY) bench/compare_cases.py

bench-real: venv llama
	$(PY) bench/real_server.py

bench-local-agent: venv llama local-test-models
	$(PY) bench/local_agent.py

bench-coding: venv llama
	$(PY) bench/coding_benchmark.py

bench-stop: venv e2e-site chromium
	$(PY) bench/stop.py

bench-flood: build chromium
	$(PY) bench/flood.py

bench-inspector: build chromium
	$(PY) bench/inspector.py

bench-record: build chromium
	$(PY) bench/record_replay.py

bench-local: venv node wheels-site wheels-openai chromium $(LOCAL_TEST_MODEL)
	$(PY) bench/local_model.py

bench-streaming: venv node wheels-site chromium $(LOCAL_TEST_MODEL)
	$(PY) bench/streaming.py

bench-snapshot: venv node wheels-site wheels-openai wheels-test chromium
	$(PY) bench/snapshot_size.py
