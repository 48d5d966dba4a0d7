# The static site: build web/dist, serve it, drive it in headless Chromium, measure its start-up.
#   make build      bundle the front end, copy Pyodide, build the looplab wheel and our httpx2_jsfetch
#                   wheel (py-extra/), fetch the pinned "site", "openai" and "test" wheels, write the lock file
#   make serve      build, then serve web/dist on http://127.0.0.1:8000 (PORT=... to change)
#   make test-e2e   the site in Debian's Chromium through Playwright (tests/e2e), on the site `make
#                   e2e-site` built once for every browser suite (mk/browsers.mk)
#   make test-e2e-plain  part of it again from a plain static server under a sub-path
#   (the benchmarks, make bench, are mk/bench.mk's)

CHROMIUM := /usr/bin/chromium
PORT ?= 8000
SITE_SOURCES := $(shell find web/src web/styles web/bench py/looplab py-extra lessons -type f -not -name '*.pyc' 2>/dev/null) \
	web/index.html web/theme.js web/sw.js scripts/build_site.py scripts/prerender.mjs scripts/snapshot.py scripts/make_snapshot.mjs scripts/wheelfile.py wheels.lock.json pyproject.toml package-lock.json

.PHONY: chromium

# Debian's Chromium (Playwright drives it through executable_path; never a browser download).
chromium: $(CHROMIUM)
$(CHROMIUM):
	apt-get update && apt-get install -y chromium

# The setup steps are order-only (after `|`): they are phony, and would otherwise make every
# `make build` rebuild web/dist; the files they install are tracked by package-lock.json and
# wheels.lock.json in SITE_SOURCES.
build: web/dist/build.json
web/dist/build.json: $(SITE_SOURCES) | venv node wheels-site wheels-openai wheels-test
	$(PY) scripts/build_site.py --out web/dist

serve: build
	$(PY) scripts/serve.py --port $(PORT) --dir web/dist

test-e2e: venv node e2e-site chromium
	LOOPLAB_E2E_SITE=$(E2E_SITE) $(PY) -m pytest tests/e2e -p no:cacheprovider $(E2E_ARGS)

# The site once more from a plain `python -m http.server`, under /some/sub/path/ (no COOP/COEP, no
# CSP header, as GitHub Pages serves a project): the tests marked plain_host, and test_plain_host.py.
test-e2e-plain: venv node e2e-site chromium
	LOOPLAB_E2E_HOST=plain LOOPLAB_E2E_SITE=$(E2E_SITE) $(PY) -m pytest tests/e2e -p no:cacheprovider -m plain_host $(E2E_ARGS)

# Our own wheels (py-extra/) in .cache/wheels, beside the pinned ones, for bench/models.py --pyodide.
# (The site does not need this: scripts/build_site.py builds them from source into web/dist/py.)
EXTRA_WHEELS := .cache/wheels/httpx2_jsfetch-0.1.0-py3-none-any.whl
$(EXTRA_WHEELS): py-extra/build.py scripts/wheelfile.py $(shell find py-extra/httpx2_jsfetch -name '*.py')
	$(PY) py-extra/build.py .cache/wheels
