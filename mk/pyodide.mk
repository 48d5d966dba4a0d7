# The unit suite inside Pyodide on Node.js (filled in by the Pyodide harness).
test-pyodide: venv node
	@echo "test-pyodide: not built yet"
