# collsim: `make demo` runs the main job, `make test` runs the tests.  Each
# installs what is missing first (system packages, the Python virtual
# environment), then builds; a second run installs nothing.

SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
VENV_STAMP := $(VENV)/.installed
BUILD := build
BUILD_MPI := build-mpi
# The real MPI for correctness runs: Open MPI (it yields when oversubscribed,
# which MPICH's ch4 busy polling does not: 20x faster on 2 cores).
MPICC ?= $(shell command -v mpicc.openmpi || command -v mpicc)
# Warnings are errors in CI; elsewhere a newer compiler's new warning should
# not stop a user.
WERROR ?= $(if $(CI),ON,OFF)
PYTEST_WORKERS ?= 2

.PHONY: demo test test-full build build-mpi system-deps test-deps venv clean

# Every algorithm on a 64-node crossbar against its model, then the quickstart
# study (resumable: a second run reuses the stored results) and its report.
demo: build venv
	$(VENV)/bin/collsim run --platform crossbar --nodes 64 --np 64 \
	    --coll all --alg all --bytes 8,64KiB,1MiB
	$(VENV)/bin/collsim study scenarios/quickstart.toml --db $(BUILD)/quickstart.db
	$(VENV)/bin/collsim report $(BUILD)/quickstart.db -o $(BUILD)/quickstart-report.html
	@echo "report: $(abspath $(BUILD))/quickstart-report.html"

test: build build-mpi venv test-deps
	$(VENV)/bin/python -m pytest -n $(PYTEST_WORKERS) tests
	$(VENV)/bin/collsim check scenarios/ci.toml --junit $(BUILD)/ci-junit.xml

# The whole correctness matrix of issue 5 (p in 1..33, 64, 100, 128) under smpirun
# (~20 minutes) and under mpirun (~3 minutes per algorithm, ~1.5 hours).
test-full: build build-mpi venv test-deps
	COLLSIM_FULL_MATRIX=1 $(VENV)/bin/python -m pytest -n $(PYTEST_WORKERS) tests
	$(VENV)/bin/collsim check scenarios/ci.toml --junit $(BUILD)/ci-junit.xml

system-deps:
	@sim/install-system-deps.sh

# What only the tests need (headless Chromium, to check that study reports render).
test-deps:
	@sim/install-test-deps.sh

# The bytecode of collsim's own modules is compiled here (34 ms when it is up to
# date): where PYTHONDONTWRITEBYTECODE is set, Python never caches it and every
# collsim command would compile them again (about 65 ms of a 0.3 s command).
# The editable install's import finder knows the modules that existed when it
# was made: a module added, moved or made a package since is installed again
# (3 s, no dependencies).
PY_MODULES := $(sort $(shell find sim/collsim platforms analysis -name '*.py' \
                  -not -path '*/__pycache__/*' 2>/dev/null))
venv: $(VENV_STAMP)
	@echo "$(PY_MODULES)" | cmp -s - $(VENV)/.modules || { \
	    $(VENV)/bin/pip install --quiet --disable-pip-version-check --no-deps -e . && \
	    echo "$(PY_MODULES)" > $(VENV)/.modules; }
	@$(VENV)/bin/python -m compileall -q sim/collsim platforms analysis >/dev/null

# The package is installed editable through scikit-build-core with no CMake run
# (pyproject.toml's override for the editable state): the C parts are `build`'s.
$(VENV_STAMP): pyproject.toml | system-deps
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --disable-pip-version-check -e '.[test]'
	echo "$(PY_MODULES)" > $(VENV)/.modules
	touch $@

# (CMakeLists.txt sets SMPI_PRETEND_CC for its configure-time checks itself.)
build: system-deps
	cmake -S . -B $(BUILD) -DCMAKE_C_COMPILER=smpicc \
	    -DCOLLSIM_WERROR=$(WERROR) >/dev/null
	cmake --build $(BUILD) -j 2

# The same sources against a real MPI: build-mpi/collbench, run with mpirun.
build-mpi: system-deps
	cmake -S . -B $(BUILD_MPI) -DCOLLSIM_MPI=ON -DCMAKE_C_COMPILER=$(MPICC) \
	    -DMPI_C_COMPILER=$(MPICC) -DCOLLSIM_WERROR=$(WERROR) >/dev/null
	cmake --build $(BUILD_MPI) -j 2

clean:
	rm -rf $(BUILD) $(BUILD_MPI) $(VENV)
