# tokencall: `make run` shows the call, `make test` runs every test and the examples (Examples/GuideApp, Examples/CallManagerApp, Examples/QualityApp).
SWIFT ?= swift
FUZZ_SECONDS ?= 60
ARGS ?=
STRICT ?= 0

.PHONY: run test bench fuzz pictures man deps build release clean

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

# The README's picture of the call screen (Docs/usage.md, "Recordings and pictures").
pictures: deps
	$(SWIFT) build --product tokencall
	./.build/debug/tokencall join --screenshot Docs/images/call.svg --overwrite --size 120x36 --duration 12 \
		--seed 7

# The man page, generated from the command table as --help and completion are (Docs/usage.md, "Shell completion").
man: deps
	$(SWIFT) build --product tokencall
	./.build/debug/tokencall help --man > tokencall.1

deps:
	@Scripts/deps.sh

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release --product tokencall

clean:
	rm -rf .build
