# The two commands of the README's quick start: `make run` and `make test`.
SWIFT ?= swift

.PHONY: setup run test build release format lint html-check baseline gate-check

setup:
	@./scripts/setup.sh

release: setup
	$(SWIFT) build -c release --product perfkit

# Sets up, builds in release mode and runs every benchmark with defaults (JSON and HTML reports).
run: release
	.build/release/perfkit run --format json,html

# Sets up, checks what each library links (scripts/check-closures.py: the manifest only, no build),
# builds and runs the whole test suite.
test: setup
	SWIFT=$(SWIFT) ./scripts/check-closures.py
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

format:
	$(SWIFT) format --in-place --recursive Package.swift Sources Plugins Tests Examples/*/Package.swift Examples/*/Sources Integrations

lint:
	$(SWIFT) format lint --strict --recursive Package.swift Sources Plugins Tests Examples/*/Package.swift Examples/*/Sources Integrations

# Renders the synthetic reports of the HTML tests (normal, hostile names, degenerate numbers,
# 1,000 benchmarks) and the history pages they write (normal, hostile names, 1,001 series, a shift
# of the machine) and
# opens each in headless Chromium: no console errors, screenshots in .build/html-check/.
html-check: setup
	$(SWIFT) build --build-tests
	mkdir -p .build/html-check
	PERFKIT_HTML_SAMPLES=.build/html-check $(SWIFT) test --skip-build --filter HTMLReportTests
	.build/debug/perfkit report .build/html-check/current.json --baseline .build/html-check/baseline.json -o .build/html-check/current.html
	./scripts/html-check.sh .build/html-check/current.html .build/html-check/current.png
	HTML_CHECK_NO_JS=1 ./scripts/html-check.sh .build/html-check/current.html .build/html-check/current-nojs.png
	HTML_CHECK_MEDIA=print ./scripts/html-check.sh .build/html-check/current.html .build/html-check/current-print.png
	for name in hostile degenerate large; do \
		.build/debug/perfkit report .build/html-check/$$name.json -o .build/html-check/$$name.html && \
		./scripts/html-check.sh .build/html-check/$$name.html .build/html-check/$$name.png || exit 1; \
	done
	for name in history history-hostile history-large history-machine; do \
		./scripts/html-check.sh .build/html-check/$$name.html .build/html-check/$$name.png || exit 1; \
	done
	HTML_CHECK_NO_JS=1 ./scripts/html-check.sh .build/html-check/history.html .build/html-check/history-nojs.png

# Refreshes the committed baseline CI gates on (instructions and allocations); commit the result.
baseline: release
	.build/release/perfkit baseline update --output baseline.json

# What the regression gate catches and wrongly flags on this machine (slow: ~10-20 minutes).
gate-check: setup
	./scripts/gate-check.sh
