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
# SIMGRID=<version> (`make SIMGRID=4.1 demo`, `make SIMGRID=4.1 test`): that
# SimGrid, built once from the sources the Python package index distributes
# into .simgrid/<version>/ (ignored by git; sim/build-simgrid.sh), builds and
# runs collsim.  Its bin folder comes first on PATH for make's commands, and
# the build records it beside collbench, so the virtual environment's collsim
# uses it too (harness.simgrid_tool) until a plain `make build` returns to the
# distribution's SimGrid (libsimgrid-dev), the default.
SIMGRID ?=
ifneq ($(SIMGRID),)
SIMGRID_PREFIX := $(CURDIR)/.simgrid/$(SIMGRID)
export PATH := $(SIMGRID_PREFIX)/bin:$(PATH)
endif

.PHONY: demo test test-full test-simgrid build build-mpi system-deps test-deps venv simgrid clean

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

# The tests and the CI gate on every supported SimGrid: the distribution's,
# then each of SIMGRID_VERSIONS built from its sources (about 15 minutes each
# the first time), then back to the distribution's build.
SIMGRID_VERSIONS ?= 3.35 4.0 4.1
test-simgrid:
	$(MAKE) SIMGRID= test
	set -e; for version in $(SIMGRID_VERSIONS); do $(MAKE) SIMGRID=$$version test; done
	$(MAKE) SIMGRID= build

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
# A build tree made with another SimGrid's smpicc is made again from scratch.
build: system-deps $(if $(SIMGRID),simgrid)
	@smpicc=$$(command -v smpicc); \
	if [ -f $(BUILD)/CMakeCache.txt ] && \
	        ! grep -qx "CMAKE_C_COMPILER:[A-Z]*=$$smpicc" $(BUILD)/CMakeCache.txt; then \
	    echo "collsim: $(BUILD)/ was built with another SimGrid; building it again"; \
	    rm -rf $(BUILD); \
	fi; \
	cmake -S . -B $(BUILD) -DCMAKE_C_COMPILER=$$smpicc -DCOLLSIM_WERROR=$(WERROR) >/dev/null
	cmake --build $(BUILD) -j 2

# SimGrid $(SIMGRID) from its published sources (about 15 minutes the first time).
simgrid: $(VENV_STAMP)
	@test -n "$(SIMGRID)" || { echo "collsim: make simgrid needs SIMGRID=<version>" >&2; exit 2; }
	@sim/build-simgrid.sh "$(SIMGRID)" "$(SIMGRID_PREFIX)" "$(VENV)/bin/pip"

# The same sources against a real MPI: build-mpi/collbench, run with mpirun.
build-mpi: system-deps
	cmake -S . -B $(BUILD_MPI) -DCOLLSIM_MPI=ON -DCMAKE_C_COMPILER=$(MPICC) \
	    -DMPI_C_COMPILER=$(MPICC) -DCOLLSIM_WERROR=$(WERROR) >/dev/null
	cmake --build $(BUILD_MPI) -j 2

clean:
	rm -rf $(BUILD) $(BUILD_MPI) $(VENV)
