# The package as it is published, and the site as one file (scripts/dist.py; reproducible bytes).
#   make dist       dist/looplab-V-py3-none-any.whl and dist/looplab-V.tar.gz: looplab, the lessons
#                   and the built site (`pip install dist/looplab-*.whl`, then `looplab list`)
#   make site-zip   dist/looplab-site-V.zip: web/dist in one folder, for any static host and sub-path
#   make test-dist  tests/package: the wheel in a fresh venv in a temporary folder (list, run, lessons,
#                   notebook, serve + the page in headless Chromium), every lesson as a notebook in a
#                   Jupyter kernel, two builds byte for byte, the Pages workflow

.PHONY: dist site-zip test-dist

dist: build
	$(PY) scripts/dist.py --out dist

site-zip: build
	$(PY) scripts/dist.py --site-zip --out dist

test-dist: venv build chromium
	$(PY) -m pytest tests/package -p no:cacheprovider
