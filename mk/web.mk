# The static site: build web/dist, serve it, drive it in headless Chromium, measure its start-up.
#   make build      bundle the front end, copy Pyodide, build the looplab wheel, write the lock file
#   make serve      build, then serve web/dist on http://127.0.0.1:8000 (PORT=... to change)
#   make test-e2e   the site in Debian's Chromium through Playwright (tests/e2e)
#   make bench      benchmarks: bench/loop.py, then bench/startup.py (the site's start-up)

CHROMIUM := /usr/bin/chromium
PORT ?= 8000
SITE_SOURCES := $(shell find web/src web/styles web/bench py/looplab lessons -type f 2>/dev/null) \
	web/index.html web/sw.js scripts/build_site.py wheels.lock.json pyproject.toml package-lock.json

.PHONY: chromium

# Debian's Chromium (Playwright drives it through executable_path; never a browser download).
chromium: $(CHROMIUM)
$(CHROMIUM):
	apt-get update && apt-get install -y chromium

build: web/dist/build.json
web/dist/build.json: venv node wheels-site $(SITE_SOURCES)
	$(PY) scripts/build_site.py --out web/dist

serve: build
	$(PY) scripts/serve.py --port $(PORT) --dir web/dist

test-e2e: venv node wheels-site chromium
	$(PY) -m pytest tests/e2e -p no:cacheprovider $(E2E_ARGS)

bench: venv node wheels-site wheels-test chromium build
	$(PY) bench/loop.py
	@echo "-- the same inside Pyodide (Node.js):"
	node tests/pyodide/run.mjs --script bench/loop.py
	$(PY) bench/startup.py
