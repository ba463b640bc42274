# Two commands set everything up on a fresh machine: `make serve` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
export NO_MKDOCS_2_WARNING := 1
STAMP  := $(VENV)/.installed-stamp

.PHONY: help venv serve build test lint measure measure-quick render validate compare notebooks doctor doctor-page clean

help:
	@echo "make serve          build .venv if needed, serve the site at http://127.0.0.1:8000"
	@echo "make test           build .venv if needed, run lint and the whole test suite"
	@echo "make measure        re-measure every snippet on this machine (results/<machine-id>.json)"
	@echo "make measure-quick  the claims' pairs at small sizes, then your machine vs the guide's"
	@echo "make render         re-render tables, charts and outputs from committed results"
	@echo "make validate       check results files (all of results/, or FILES=\"path ...\")"
	@echo "make compare        speed-ups of two results files side by side (FILES=\"A.json B.json\")"
	@echo "make notebooks      re-generate and execute the factor notebooks (docs/notebooks/)"
	@echo "make doctor         diagnose this repository's .venv (tf-doctor.pyz checks any environment)"
	@echo "make tune           which of the guide's changes speed up your model (FILE=my_model.py)"
	@echo "make contribute     noise check, measure, validate, render, test; then what to commit"
	@echo "make build          build the site into site/ with --strict"

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet ".[render,docs,test]"
	@touch $(STAMP)

venv: $(STAMP)

serve: $(STAMP)
	$(BIN)/mkdocs serve --dev-addr 127.0.0.1:8000

build: $(STAMP)
	$(BIN)/mkdocs build --strict

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

test: $(STAMP) lint
	$(BIN)/python -m pytest

measure: $(STAMP)
	$(BIN)/python -m scripts.measure $(ARGS)
	$(BIN)/python -m scripts.render

measure-quick: $(STAMP)
	$(BIN)/python -m scripts.measure --quick $(ARGS)

render: $(STAMP)
	$(BIN)/python -m scripts.render

validate: $(STAMP)
	$(BIN)/python -m scripts.validate $(FILES)

compare: $(STAMP)
	$(BIN)/python -m scripts.compare $(FILES)

notebooks: $(STAMP)
	$(BIN)/python -m scripts.notebooks $(ARGS)

doctor: $(STAMP)
	@$(BIN)/python -m scripts.doctor $(ARGS)

doctor-page: $(STAMP)
	$(BIN)/python -m scripts.doctor --plain --write-page

clean:
	rm -rf site .pytest_cache

# Contribute this machine's results: noise check, measure, validate, render, test, then the
# files to commit and a pull-request description. ARGS="--dry-run" prints the steps only.
.PHONY: contribute
contribute: $(STAMP)
	@$(BIN)/python -m scripts.contribute $(ARGS)

# Run the guide's experiments on your own model (scripts/tuning/template.py shows the file):
# make tune FILE=my_model.py [ARGS="--only input --budget 120"]
.PHONY: tune
tune: $(STAMP)
	@test -n "$(FILE)" || { echo "make tune needs FILE=your_model.py (python -m scripts.tune --template prints one)"; exit 2; }
	@$(BIN)/python -m scripts.tune "$(FILE)" $(ARGS)
