# make lint (a part of make test): ruff for the Python, Biome for the JavaScript, both pinned
# (requirements-test.txt, package.json) and configured to the code as it is (ruff.toml, biome.json).
# `ruff format --check` covers every Python file but the lessons (ruff.toml says why); Biome both
# lints and checks the format of the JavaScript (biome.json).

.PHONY: lint
lint: venv node
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	node_modules/.bin/biome check --error-on-warnings
