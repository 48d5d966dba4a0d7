# The static site: build, serve, browser tests, benchmarks (filled in by the web work).
test-e2e:
	@echo "test-e2e: not built yet"
bench: venv
	$(PY) bench/loop.py
