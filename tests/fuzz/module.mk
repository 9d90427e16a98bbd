# tests/fuzz: libFuzzer targets, built by clang into $(BUILD)/fuzz/.
#
# Convention: every tests/fuzz/fuzz_<name>.c defines LLVMFuzzerTestOneInput
# and is linked with all of kcal's objects (KCAL_SRCS; cmd/kcal.c's main is not
# among them) compiled with -fsanitize=fuzzer-no-link,address,undefined.
# Its seed corpus is tests/fuzz/corpus/<name>/, its dictionary (optional)
# tests/fuzz/<name>.dict. `make fuzz` runs each target for FUZZ_S seconds
# (default 60) on a copy of its corpus under $(BUILD)/fuzz/run/<name>/ (the
# committed corpus never grows) and fails when any finds a crash, a leak,
# undefined behaviour or a slow input; tests/fuzz/run says where the input
# is. FUZZ_TARGETS="params raw_fit" runs only those. `make fuzz-smoke`:
# 10 s each (for CI).

FUZZ_CC      ?= clang
FUZZ_S       ?= 60
FUZZ_TARGETS ?= $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_SAN     := -fno-omit-frame-pointer -fno-sanitize-recover=undefined
FUZZ_CFLAGS  := -std=gnu11 -g -O1 $(WARN) $(FUZZ_SAN) \
                -fsanitize=fuzzer-no-link,address,undefined
FUZZ_OBJS    := $(patsubst %.c,$(BUILD)/fuzz/obj/%.o,$(KCAL_SRCS) $(GEN_SRCS))
FUZZ_BINS    := $(patsubst %,$(BUILD)/fuzz/fuzz_%,$(FUZZ_TARGETS))

.PHONY: fuzz fuzz-smoke fuzz-build
# Kept between runs (only pattern rules name them, which would make them
# intermediate files that make deletes).
.SECONDARY: $(FUZZ_OBJS)
fuzz-build: $(FUZZ_BINS)

$(BUILD)/fuzz/obj/%.o: %.c | $(STAMP)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(CPPFLAGS) $(PKG_CFLAGS) $(FUZZ_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_OBJS) | $(STAMP)
	$(FUZZ_CC) $(CPPFLAGS) $(PKG_CFLAGS) $(FUZZ_CFLAGS) -fsanitize=fuzzer \
	  -o $@ $< $(FUZZ_OBJS) $(PKG_LIBS)

fuzz: $(FUZZ_BINS)
	@tests/fuzz/run $(BUILD)/fuzz $(FUZZ_S) $(FUZZ_TARGETS)

fuzz-smoke:
	@$(MAKE) --no-print-directory fuzz FUZZ_S=10
