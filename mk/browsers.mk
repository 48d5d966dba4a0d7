# Every engine a learner has: the learner's path in Chromium, Firefox ESR and WebKitGTK (Safari's
# engine), each from Debian's packages, as `make chromium` installs Chromium (never a browser download).
#   make firefox        Debian's firefox-esr, driven over WebDriver BiDi (no geckodriver needed)
#   make webkit         WebKitWebDriver and its MiniBrowser (webkit2gtk-driver), and Xvfb for its window
#   make e2e-site       the browser tests' site (lessons/ and tests/e2e/fixtures) built once, in
#                       build/e2e-site, for every browser suite of a `make test`
#   make test-browsers  tests/browsers in the three engines (LOOPLAB_ENGINES=firefox,webkit for some;
#                       the drivers are tests/e2e/engines.py)

FIREFOX := /usr/bin/firefox-esr
WEBKIT_DRIVER := /usr/bin/WebKitWebDriver
XVFB := /usr/bin/Xvfb
E2E_SITE := build/e2e-site
E2E_FIXTURES := $(shell find tests/e2e/fixtures -name '*.py' 2>/dev/null)

.PHONY: firefox webkit e2e-site test-browsers

firefox: $(FIREFOX)
$(FIREFOX):
	apt-get update && apt-get install -y firefox-esr

webkit: $(WEBKIT_DRIVER) $(XVFB)
$(WEBKIT_DRIVER):
	apt-get update && apt-get install -y webkit2gtk-driver
$(XVFB):
	apt-get update && apt-get install -y xvfb

e2e-site: $(E2E_SITE)/build.json
$(E2E_SITE)/build.json: $(SITE_SOURCES) $(E2E_FIXTURES) | venv node wheels-site wheels-openai wheels-test
	$(PY) scripts/build_site.py --out $(E2E_SITE) --lessons lessons --lessons tests/e2e/fixtures

test-browsers: venv e2e-site chromium firefox webkit $(LOCAL_TEST_MODEL)
	LOOPLAB_E2E_SITE=$(E2E_SITE) $(PY) -m pytest tests/browsers -p no:cacheprovider $(BROWSERS_ARGS)
