# The two commands of the README's quick start: `make run` and `make test`.
SWIFT ?= swift

.PHONY: setup run test build release format lint baseline gate-check

setup:
	@./scripts/setup.sh

release: setup
	$(SWIFT) build -c release --product perfkit

# Sets up, builds in release mode and runs every benchmark with defaults.
run: release
	.build/release/perfkit run

# Sets up, builds and runs the whole test suite.
test: setup
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

format:
	$(SWIFT) format --in-place --recursive Package.swift Sources Tests

lint:
	$(SWIFT) format lint --strict --recursive Package.swift Sources Tests

# Refreshes the committed baseline CI gates on (instructions and allocations); commit the result.
baseline: release
	.build/release/perfkit baseline update --output Reports/baseline.json

# What the regression gate catches and wrongly flags on this machine (slow: ~10-20 minutes).
gate-check: setup
	./scripts/gate-check.sh
