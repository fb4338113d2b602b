# Entry points. `.venv` is created on first use with the pinned requirements, and the harness is installed in it
# editable (`pyproject.toml`), which puts `.venv/bin/autograder` beside `python -m autograder`.
PY      := .venv/bin/python
STAMP   := .venv/.installed
INSTALLED := .venv/.installed-editable
REF_ZIP := dist/reference-submission.zip

.PHONY: autograder gradescope test test-fast check templates handout plots bench lint clean

$(STAMP): requirements.txt requirements-dev.txt
	python3 -m venv .venv
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	touch $(STAMP)

# --no-deps: the pins above are the environment. Without build isolation where the venv has setuptools (a 3.10 or 3.11
# venv does), so the install needs no network.
$(INSTALLED): $(STAMP) pyproject.toml
	$(PY) -m pip install --quiet --disable-pip-version-check --no-deps \
		$$($(PY) -c "import setuptools" 2>/dev/null && echo --no-build-isolation) -e .
	touch $(INSTALLED)

## Install the harness (`autograder` on .venv's PATH), build dist/autograder.zip and grade the reference through it with `otter run`.
autograder: $(INSTALLED)
	$(PY) -m autograder build --out dist/autograder.zip
	rm -f $(REF_ZIP) && cd reference && ../$(PY) -c "import zipfile,glob; z=zipfile.ZipFile('../$(REF_ZIP)','w'); [z.write(f) for f in sorted(glob.glob('*.py'))]"
	rm -rf dist/otter-run && mkdir -p dist/otter-run
	$(PY) -m otter run -a dist/autograder.zip -o dist/otter-run $(REF_ZIP) > dist/otter-run/log.txt 2>&1 || (cat dist/otter-run/log.txt; exit 1)
	$(PY) -m autograder.reports.score_table dist/otter-run/results.json

## Grade the reference the way Gradescope runs the zip: /autograder, as root, 0.5 CPU and 768 MB (needs root and cgroups);
## then every fair variant in the same container (each must keep full marks there).
gradescope: $(INSTALLED)
	$(PY) -m autograder build --out dist/autograder.zip
	$(PY) -m autograder emulate --zip dist/autograder.zip
	$(PY) bench/bench_fair_in_container.py

## The whole suite, what CI runs: lint, the layers' import contracts (docs/architecture.md), the harness's tests (incl. validation),
## on TEST_WORKERS pytest-xdist processes (three keep two cores busy: the grading runs use the CPU, the time limits wait;
## tests/conftest.py says which files share one). `make test TEST_WORKERS=0` runs them all in this process. The Python files are compiled first: where
## PYTHONDONTWRITEBYTECODE is set (as on CI) each of the suite's hundreds of grading processes would compile them again.
TEST_WORKERS ?= 3
test: lint
	$(PY) -m compileall -q autograder assignments tests bench
	$(PY) -m pytest -q -n $(TEST_WORKERS) --dist loadfile

## The fast tier, about a minute: lint, the import contracts and every test that starts no grading (tests/conftest.py
## marks those that do `grading`, and makes any other that starts a grading worker fail). docs/measurements.md has its time.
FAST_WORKERS ?= 2
test-fast: lint
	$(PY) -m pytest -q -n $(FAST_WORKERS) --no-grading

## Public tests on the student stubs (what a student sees before starting).
check: $(INSTALLED)
	$(PY) -m autograder check

templates: $(INSTALLED)
	$(PY) -m autograder templates

## The students' zip: stubs, statements, public tests with recorded expected values, `check`; no reference.
handout: $(INSTALLED)
	$(PY) -m autograder handout --out dist/handout.zip

plots: $(INSTALLED)
	$(PY) docs/plot_rff_error.py

## Speed ratios (bench_speed.py: the targets side by side, wall and CPU); then (as root) the Gradescope figures: call headroom, worker memory, emulated runs at 0.5 CPU / 768 MB.
bench: $(INSTALLED)
	$(PY) bench/bench_speed.py --floors
	$(PY) bench/bench_grade_vs_otter.py
	$(PY) bench/bench_check_paths.py
	$(PY) bench/bench_grade_all.py --copies 10
	$(PY) bench/bench_call_headroom.py
	$(PY) bench/bench_worker_memory.py
	$(PY) bench/bench_gradescope.py

lint: $(INSTALLED)
	$(PY) -m ruff check .
	.venv/bin/lint-imports --no-cache

clean:
	rm -rf dist .pytest_cache .ruff_cache
	find . -name __pycache__ -not -path "./.venv/*" -prune -exec rm -rf {} +
