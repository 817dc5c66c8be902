# Two commands on a fresh machine with nothing but Python:
#   make app   - create .venv, install, serve the app read-only on http://127.0.0.1:8866
#                (make app POOL=30: a preheated kernel for each of 30 viewers arriving at once)
#   make test  - create .venv, install with the test extra, run the whole test suite
#   make workshop - serve the workshop lessons and the claims notebook read-only on http://127.0.0.1:8867
#   make lab   - install the lab extra and open JupyterLab on notebooks/analyst.ipynb (the API tour)
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: app test bench clean workshop lessons lab

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	# optional extra of jsonschema; costs about 2 s in every Jupyter process (DESIGN.md)
	$(BIN)/pip uninstall --quiet -y rfc3987-syntax || true
	touch $(STAMP)

# POOL=30 preheats 30 kernels (a class arriving at once; docs/deploy.md) and refills the pool a minute after use
POOL ?=
app: $(STAMP)
	$(BIN)/python -m explorer.hosting notebooks/explorer.ipynb --Voila.ip=127.0.0.1 --port=8866 --no-browser \
		$(if $(POOL),--pool_size=$(POOL) --VoilaKernelManager.fill_delay=60)

# Lessons and the claims notebook, read-only, as the app is served (hardened Voila, voila.json) but over
# the notebooks directory. Kernels are not preheated: a pool per notebook would start dozens of kernels.
WORKSHOP_PORT ?= 8867
workshop: $(STAMP)
	@echo "Workshop index: http://127.0.0.1:$(WORKSHOP_PORT)/voila/render/lessons/index.ipynb"
	$(BIN)/python -m explorer.hosting notebooks --Voila.ip=127.0.0.1 --port=$(WORKSHOP_PORT) --no-browser --preheat_kernel=False

# Regenerate the English and Chinese lesson notebooks from their one source (tests/test_lessons.py checks it)
lessons: $(STAMP)
	$(BIN)/python notebooks/lessons/build_lessons.py

# JupyterLab for analysts (optional extra `lab`), opened on the starter notebook; LAB_PORT to change the port
LAB_PORT ?= 8888
lab: $(STAMP)
	$(BIN)/pip install --quiet -e '.[lab,test]'
	$(BIN)/pip uninstall --quiet -y rfc3987-syntax || true
	$(BIN)/jupyter lab notebooks/analyst.ipynb --ServerApp.ip=127.0.0.1 --port=$(LAB_PORT)

test: $(STAMP)
	$(BIN)/python -m pytest tests notebooks explorer --doctest-modules --nbval-lax --nbval-current-env -p no:cacheprovider

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py

clean:
	rm -rf $(VENV) build *.egg-info
