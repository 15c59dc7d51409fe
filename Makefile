# tokencall: `make run` shows the call, `make test` runs every test and the guide's code (Examples/GuideApp).
SWIFT ?= swift
FUZZ_SECONDS ?= 60
ARGS ?=
STRICT ?= 0

.PHONY: run test bench fuzz deps build release clean

run: deps
	$(SWIFT) build --product tokencall
	./.build/debug/tokencall $(ARGS)

test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build
	SWIFT="$(SWIFT)" Scripts/guide-app.sh

bench: deps
	STRICT="$(STRICT)" Scripts/bench.sh

fuzz: deps
	Scripts/fuzz.sh $(FUZZ_SECONDS)

deps:
	@Scripts/deps.sh

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release --product tokencall

clean:
	rm -rf .build
