# The unit suite inside Pyodide on Node.js (tests/pyodide/run.mjs): Pyodide from node_modules,
# pytest and hypothesis from the pinned "test" wheels of wheels.lock.json; nothing is fetched
# at test time. `make wheels-GROUP` fetches any group of wheels.lock.json into .cache/wheels
# (checked against its sha256; files already there are skipped), e.g. `make wheels-site`.

test-pyodide: venv node wheels-test
	node tests/pyodide/run.mjs

wheels-%: venv
	@$(PY) scripts/wheels.py $*
