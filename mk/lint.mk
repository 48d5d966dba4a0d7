# make lint (a part of make test): ruff for the Python, Biome for the JavaScript, both pinned
# (requirements-test.txt, package.json) and configured to the code as it is (ruff.toml, biome.json).
# `ruff format --check` covers the files written in its style, listed here: the rest were written
# before the formatter came. A file formatted (in a commit of its own) joins the list; new modules
# start on it.

RUFF_FORMATTED := py/looplab/checks.py py/looplab/course.py py/looplab/lessonfile.py py/looplab/modelerror.py py/looplab/modelmode.py py/looplab/retry.py \
	py/looplab/tokens.py scripts/serve.py scripts/wheels.py tests/e2e/fixtures/91-e2e-second.py \
	tests/lessons/conftest.py tests/live/typecheck.py tests/otlp.py tests/real/conftest.py \
	scripts/trim_wrong.py tests/site/test_import_circles.py tests/site/test_module_map.py tests/site/test_trim_wrong.py tests/site/test_protocol.py tests/site/test_session.py \
	py/looplab/project.py py/looplab/editreview.py py/looplab/branchnotes.py py/looplab/loopattempt.py \
	scripts/immutable.py tests/site/test_immutable.py tests/site/test_sparse.py tests/site/test_snapshot_heap.py bench/snapshot_size.py tests/e2e/test_editor_order.py tests/unit/test_project.py tests/e2e/test_files.py tests/e2e/fixtures/94-e2e-files.py tests/e2e/test_prerender.py tests/site/test_wrappers.py

.PHONY: lint
lint: venv node
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check $(RUFF_FORMATTED)
	node_modules/.bin/biome lint --error-on-warnings
