# On a fresh machine with nothing but Python (make hub also needs npm):
#   make app   - create .venv, install, serve the app read-only on http://127.0.0.1:8866
#                (make app POOL=30: a preheated kernel for each of 30 viewers arriving at once)
#   make test  - create .venv, install with the test extra, run the whole test suite
#   make test-fast - the tests without servers or browsers, a tenth of the hypothesis examples
#   make hub      - a JupyterHub for the class on http://127.0.0.1:8000, as root (an OS account per student):
#                WORKSHOP_ROSTER=names.txt make hub (a login code per student, printed for you), or
#                WORKSHOP_TRUSTED_ROOM=1 WORKSHOP_PASSWORD=... make hub (one class password, any name);
#                optional WORKSHOP_ADMIN_PASSWORD 32+ for the teacher; ports 8000, 8081, 8001 (docs/workshop.md)
#   make workshop - serve the workshop lessons and the claims notebook read-only on http://127.0.0.1:8867
#                (sized for CLASS=30 by default: 15 preheated kernels for lesson 1 in each language, cap 60)
#   make kit      - the lecturer's kit in build/kit: lecturer notes per lesson, answer key and handout (en, zh),
#                the lessons as a static site to read before class (CLASS_URL=... the class server, for the handout)
#   make lab   - install the lab extra and open JupyterLab on explorer/notebooks/analyst.ipynb (the API tour)
#   make lint  - ruff, import-linter and mypy (rules, layers and typed modules in pyproject.toml; .ci/run runs it first)
#   make docs  - install the docs extra and build the docs (pages by reader, API reference) into docs/_build/html
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: app test test-fast bench clean workshop lessons kit hub lab lint docs figures constraints

# Every install is constrained to the versions CI ran (constraints.txt; `make constraints` regenerates it)
PIP_INSTALL = $(BIN)/pip install --quiet -c constraints.txt
$(STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(PIP_INSTALL) -e '.[test]'
	# optional extra of jsonschema; costs about 2 s in every Jupyter process
	$(BIN)/pip uninstall --quiet -y rfc3987-syntax || true
	touch $(STAMP)

# The app, the workshop and JupyterLab are the package's own commands (explorer/hosting/commands.py), so an
# installed wheel serves them as a checkout does: `llm-cost-explorer app | workshop | lab --help`.
# app: voila.json's pool of 4 follows demand (explorer/hosting/server/demand_pool.py: it grows with the page loads of the
# last minute, within half the free memory and while the CPU has room, back to 4 after 5 idle minutes). POOL=30
# makes 30 the floor (a class arriving at once, preheated before it does; docs/deploy.md) and refills the pool a
# minute after use
POOL ?=
app: $(STAMP)
	$(BIN)/llm-cost-explorer app --port 8866 $(if $(POOL),--pool $(POOL))

# Lessons and the claims notebook, read-only, as the app is served (hardened Voila, voila.json) but over
# explorer/notebooks, sized for a class of CLASS students (30 by default; CLASS=2 to try it on a laptop):
#   POOL        = ceil(CLASS / 2) preheated kernels for lesson 1 in English and in Chinese, so a class opening
#                 lesson 1 at once, in either language, is served from the pool;
#   MAX_KERNELS = 2 x CLASS kernels held by viewers (a student keeps the last lesson open while opening the
#                 next; kernels waiting in the pool do not count). Memory: about 0.2 GB per kernel (docs/workshop.md).
# POOL= or MAX_KERNELS= overrides either; POOL=0 preheats nothing at start. Either way every lesson's pool follows
# demand (explorer/hosting/server/demand_pool.py), so POOL is an optimisation, not a requirement. A used pool kernel is
# replaced after FILL_DELAY s (600): late arrivals find one, and the rush is not slowed by refills; a student who
# takes a replacement still waiting starts it at once, and the waiting ones start once no student came for 30 s.
# The whole MAX_KERNELS budget is open to one client address (a room behind one NAT). Behind nginx on this
# machine: TRUSTED_PROXY=127.0.0.1 (its X-Real-IP then names each student; docs/workshop.md, "Behind nginx").
WORKSHOP_PORT ?= 8867
CLASS ?= 30
MAX_KERNELS ?=
FILL_DELAY ?= 600
TRUSTED_PROXY ?=
# WORKSHOP_LANG=en (or zh; the hub's login page reads the same variable): the class's language, lesson 1 in it
# preheated for the whole class (POOL = CLASS), none in the other
WORKSHOP_LANG ?=
workshop: $(STAMP)
	$(BIN)/llm-cost-explorer workshop --port $(WORKSHOP_PORT) --class '$(CLASS)' --fill-delay $(FILL_DELAY) \
		$(if $(POOL),--pool $(POOL)) $(if $(MAX_KERNELS),--max-kernels $(MAX_KERNELS)) \
		$(if $(TRUSTED_PROXY),--trusted-proxy $(TRUSTED_PROXY)) $(if $(WORKSHOP_LANG),--lang $(WORKSHOP_LANG))

# Build the lesson notebooks from their text sources, explorer/notebooks/lessons/src/*.md (tests/workshop/test_lessons.py checks it)
lessons: $(STAMP)
	$(BIN)/python explorer/notebooks/lessons/build_lessons.py

# The lecturer's kit, from the lesson notebooks and their checkers (explorer/notebooks/lessons/build_kit.py, docs/workshop.md):
# lecturer notes per lesson, a one-page answer key, a student handout (en, zh) and a static site of the lessons
KIT_OUT ?= build/kit
CLASS_URL ?=
kit: $(STAMP)
	$(BIN)/llm-cost-explorer kit --out $(KIT_OUT) $(if $(CLASS_URL),--class-url '$(CLASS_URL)')

# The class server: JupyterHub with JupyterLab, the lessons copied to each student's home (deploy/jupyterhub/)
HUB_STAMP := $(VENV)/.hub-installed
PROXY := deploy/jupyterhub/node_modules/.bin/configurable-http-proxy
$(HUB_STAMP): $(STAMP) pyproject.toml constraints.txt
	$(PIP_INSTALL) -e '.[hub]'
	$(BIN)/pip uninstall --quiet -y rfc3987-syntax || true
	touch $(HUB_STAMP)
$(PROXY): deploy/jupyterhub/package.json
	npm install --prefix deploy/jupyterhub --no-audit --no-fund --silent
	touch $(PROXY)
# The login rules (deploy/jupyterhub/passwords.py): root; WORKSHOP_ROSTER (a readable file, one name per line, no
# name twice) or WORKSHOP_TRUSTED_ROOM=1 with a class password WORKSHOP_PASSWORD of 8+ characters, 5+ different
# ones, not a common password; the teacher's WORKSHOP_ADMIN_PASSWORD (optional) 32+, 10+ different, not the class's.
# Checked before anything is installed or started: a wrong one stops `make hub` with one line.
ifneq ($(filter hub,$(MAKECMDGOALS)),)
HUB_PASSWORD_PROBLEM := $(shell $(PYTHON) deploy/jupyterhub/passwords.py)
ifneq ($(strip $(HUB_PASSWORD_PROBLEM)),)
$(error $(HUB_PASSWORD_PROBLEM))
endif
endif
hub: $(HUB_STAMP) $(PROXY)
	@echo "Class server: http://127.0.0.1:$${WORKSHOP_HUB_PORT:-8000}/ ($(if $(WORKSHOP_ROSTER),the names of $(WORKSHOP_ROSTER) and their codes: print $${WORKSHOP_HUB_STATE:-.hub}/hub/codes-to-print.txt,any name and the class password))"
	$(BIN)/jupyterhub -f deploy/jupyterhub/jupyterhub_config.py
# JupyterLab for analysts (optional extra `lab`), opened on the starter notebook; LAB_PORT to change the port
LAB_PORT ?= 8888
lab: $(STAMP)
	$(PIP_INSTALL) -e '.[lab,test]'
	$(BIN)/pip uninstall --quiet -y rfc3987-syntax || true
	$(BIN)/llm-cost-explorer lab --dir explorer/notebooks --port $(LAB_PORT)

# the 30 slowest tests are listed at the end (where the suite's time goes: issue 40's goal is half of it)
test: $(STAMP)
	$(BIN)/python -m pytest tests explorer --doctest-modules --nbval-lax --nbval-current-env -p no:cacheprovider \
	  --durations=30

# A quick loop while editing: no servers or browsers, a tenth of each property test's examples (the "fast"
# hypothesis profile, tests/conftest.py); `make test` is what CI runs
test-fast: $(STAMP)
	$(BIN)/python -m pytest tests -m "not server and not browser" --hypothesis-profile=fast -p no:cacheprovider -q

# ruff checks only (never `ruff format`); the rule set and its reasons are in pyproject.toml. Then the layers of
# docs/architecture.md (import-linter contracts in pyproject.toml): an upward import fails the build
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/lint-imports --no-cache
	$(BIN)/mypy

# The API reference: Sphinx with numpydoc over the package's docstrings (docs/conf.py, docs/api/)
DOCS_STAMP := $(VENV)/.docs-installed
$(DOCS_STAMP): $(STAMP) pyproject.toml
	$(PIP_INSTALL) -e '.[docs]'
	$(BIN)/pip uninstall --quiet -y rfc3987-syntax || true
	touch $(DOCS_STAMP)
docs: $(DOCS_STAMP)
	$(BIN)/python -m sphinx -W --keep-going -q -b html docs docs/_build/html
	@echo "Docs (pages by reader and the API reference): docs/_build/html/index.html"

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py

clean:
	rm -rf $(VENV) build *.egg-info deploy/jupyterhub/node_modules docs/_build

# The README's figures that depend on prices and people, written from the model (scripts/figures.py; issue 37):
# run after a data change; tests/test_figures.py fails while one is stale
figures: $(STAMP)
	$(BIN)/python scripts/figures.py

# constraints.txt, the exact versions CI runs: a fresh venv with the test and hub extras at the newest versions
# pyproject.toml allows, frozen (pip freeze --exclude-editable). Then run `make test` and commit the file.
CONSTRAINTS_VENV := build/constraints-venv
constraints:
	rm -rf $(CONSTRAINTS_VENV)
	$(PYTHON) -m venv $(CONSTRAINTS_VENV)
	$(CONSTRAINTS_VENV)/bin/pip install --quiet --upgrade pip
	$(CONSTRAINTS_VENV)/bin/pip install --quiet -e '.[test,hub]'
	$(CONSTRAINTS_VENV)/bin/pip uninstall --quiet -y rfc3987-syntax || true
	{ sed -n '/^#/p' constraints.txt; $(CONSTRAINTS_VENV)/bin/pip freeze --exclude-editable; } > constraints.txt.new
	mv constraints.txt.new constraints.txt
	rm -rf $(CONSTRAINTS_VENV)
