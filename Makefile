# Two commands set everything up on a fresh machine: `make serve` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
export NO_MKDOCS_2_WARNING := 1
STAMP  := $(VENV)/.installed-stamp
# Every package the build, the site and the tests use, pinned with hashes for Linux x86-64,
# Linux aarch64 and macOS arm64 on Python 3.11 and 3.12 (`make lock` regenerates it).
LOCK   := requirements.txt

.PHONY: help venv serve build check test test-end-to-end test-stack lint lock measure measure-quick render validate compare notebooks doctor doctor-page commands-record clean

help:
	@echo "make serve          build .venv if needed, serve the site at http://127.0.0.1:8000"
	@echo "make check          lint, then the default stack's tests but the end-to-end ones (the edit loop)"
	@echo "make test-end-to-end  the end-to-end tests on the default stack (tune, measure, browser)"
	@echo "make test           lint, then every test on every measured stack (what CI runs)"
	@echo "make test-stack     one stack's snippet runs (STACK=tf221-keras3)"
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
	@echo "make commands-record resolve every printed install command with pip (needs PyPI)"
	@echo "make lock           refresh requirements.txt (pinned, hashed) from pyproject.toml's ranges"

# uv first (pip checks its hashes, taken from the lock), then uv installs the lock with hashes
# required, then the project itself without dependencies (its build uses the locked setuptools).
# Bytecode is compiled once here: with PYTHONDONTWRITEBYTECODE set, every test process that
# imports TensorFlow would otherwise compile it from source again.
$(STAMP): pyproject.toml $(LOCK)
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@$(BIN)/python -c 'import sys; v = sys.version_info[:2]; (3, 11) <= v < (3, 13) or sys.exit( \
		"Python %d.%d: $(LOCK) covers 3.11 and 3.12; rm -rf $(VENV), make PYTHON=python3.12" % v)'
	@sed -n '/^uv==/,/^ *#/p' $(LOCK) | grep -v '^ *#' > $(VENV)/uv-requirement.txt
	$(BIN)/python -m pip install --quiet --require-hashes --no-deps -r $(VENV)/uv-requirement.txt
	$(BIN)/uv pip install --quiet --python $(BIN)/python --require-hashes --no-deps \
		--compile-bytecode -r $(LOCK)
	$(BIN)/uv pip install --quiet --python $(BIN)/python --no-deps --no-build-isolation .
	@touch $(STAMP)

venv: $(STAMP)

# A measured stack's own environment (data/measured_stacks.yml), installed from its lock with
# hashes: make stack-env STACK=tf221-keras3. The two TensorFlow 2.16.2 stacks live in .venv.
STACK ?= tf216-keras3
.PHONY: stack-env
stack-env: $(STAMP)
	@$(BIN)/python -m scripts.stack_env $(STACK)

# Every stack's own environment: the tests run every snippet on every stack.
.PHONY: stack-envs
stack-envs: $(STAMP)
	@$(BIN)/python -m scripts.stack_env --all

serve: $(STAMP)
	$(BIN)/mkdocs serve --dev-addr 127.0.0.1:8000

build: $(STAMP)
	$(BIN)/mkdocs build --strict

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/deptry .
	$(BIN)/lint-imports
	$(BIN)/zizmor --offline --quiet .github/workflows/

# Regenerate the lock from pyproject.toml's ranges, at the newest versions they admit.
lock: $(STAMP)
	$(BIN)/uv pip compile pyproject.toml --all-extras --universal --python-version 3.11 \
		--override locks/main-overrides.txt --generate-hashes --upgrade --quiet --output-file $(LOCK)
	$(BIN)/uv pip compile locks/tf221-keras3.in --universal --python-version 3.11 \
		--generate-hashes --upgrade --quiet --output-file locks/tf221-keras3.txt

# One worker per core; the browser tests share one, and so do the tests of each module that
# tests/xdist_groups.py names.
PYTEST := $(BIN)/python -m pytest -n auto --dist loadgroup

# The edit loop's gate: lint, then every test on the default stack but the end-to-end runs of
# whole tools. The snippet runs on the other stacks carry the stack_matrix mark
# (tests/test_snippets.py), so no other stack's environment is needed; the end_to_end ones
# (tune or measure on TensorFlow, make targets on a copy, the browser) run in `make test`.
check: $(STAMP) lint
	$(PYTEST) -m "not stack_matrix and not end_to_end"

# The end-to-end runs on the default stack, for CI's job beside the gate.
test-end-to-end: $(STAMP)
	$(PYTEST) -m "end_to_end and not stack_matrix"

# Everything in one pytest run: every stack's environment, then every test on every stack.
test: $(STAMP) lint stack-envs
	$(PYTEST)

# One stack's snippet runs and page blocks, for CI's stack matrix: make test-stack STACK=tf221-keras3
test-stack: stack-env
	$(PYTEST) tests/test_snippets.py tests/test_page_code.py -k "$(STACK)"

measure: stack-env
	$(BIN)/python -m scripts.measure --stack $(STACK) $(ARGS)
	$(RENDER)

measure-quick: stack-env
	$(BIN)/python -m scripts.measure --quick --stack $(STACK) $(ARGS)

# Everything the results feed: the pages, tune's between-sitting spread (data/tune_spread.json)
# and the tune truth page that pools with it, so a new session leaves none of them stale.
define RENDER
$(BIN)/python -m scripts.render
$(BIN)/python -m benchmarks.tune.tune_spread
$(BIN)/python -m benchmarks.tune.ground_truth --render
endef

render: $(STAMP)
	$(RENDER)

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
	$(BIN)/python -m scripts.doctor.faked_mac_page

# What every install command the site and the doctor print installs, by pip's resolver against
# PyPI (needs the network): rewrites data/commands_record.json, which the tests read offline.
commands-record: $(STAMP)
	$(BIN)/python -m scripts.commands_record $(ARGS)

clean:
	rm -rf site .pytest_cache

# Contribute this machine's results: noise check, measure, validate, render, test, then the
# files to commit and a pull-request description. ARGS="--dry-run" prints the steps only.
.PHONY: contribute
contribute: stack-env
	@$(BIN)/python -m scripts.contribute --stack $(STACK) $(ARGS)

# Run the guide's experiments on your own model (scripts/tuning/template.py shows the file):
# make tune FILE=my_model.py [ARGS="--only input --budget 120"]
.PHONY: tune
tune: $(STAMP)
	@test -n "$(FILE)" || { echo "make tune needs FILE=your_model.py (python -m scripts.tune --template prints one)"; exit 2; }
	@$(BIN)/python -m scripts.tune "$(FILE)" $(ARGS)
