# Two commands on a fresh machine with nothing but Python:
#   make app   - create .venv, install, serve the app read-only on http://127.0.0.1:8866
#   make test  - create .venv, install with the test extra, run the whole test suite
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: app test bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	# optional extra of jsonschema; costs about 2 s in every Jupyter process (DESIGN.md)
	$(BIN)/pip uninstall --quiet -y rfc3987-syntax || true
	touch $(STAMP)

app: $(STAMP)
	$(BIN)/python -m explorer.hosting notebooks/explorer.ipynb --Voila.ip=127.0.0.1 --port=8866 --no-browser

test: $(STAMP)
	$(BIN)/python -m pytest tests notebooks explorer --doctest-modules --nbval-lax --nbval-current-env -p no:cacheprovider

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py

clean:
	rm -rf $(VENV) build *.egg-info
