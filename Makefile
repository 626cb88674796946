# The two commands a newcomer needs: `make run` (the main job) and `make test` (the whole suite).
# Each creates .venv and installs the project into it by itself; only python3 (>= 3.11) and make are needed.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

# `make run ARGS="--host 0.0.0.0 --port 9000"`: any of serve's options (--host 0.0.0.0: open to the LAN)
run: $(STAMP)
	$(BIN)/photofinish serve --demo $(ARGS)

test: $(STAMP)
	$(BIN)/python -m pytest

bench: $(STAMP)
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis
