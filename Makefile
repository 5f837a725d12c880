# fixstep build. `make` builds build/libfixstep.a and build/fixstep; `make test`
# runs every test; `make crosscheck` proves identical bits on eight targets.
#
# Cross builds reuse this Makefile with another CC, BUILD folder and flags
# (see tools/crosscheck.sh); nothing here is specific to x86-64.

BUILD    ?= build
CC       ?= cc
# -O3: GCC unrolls the vector kernels' small loops over arrays of lanes and keeps
# them in registers (10-27% faster steps than -O2 on every kernel path; same bits)
OPT      ?= -O3
CSTD     := -std=c17
WARN     := -Wall -Wextra -Wpedantic -Wshadow -Wvla -Wstrict-prototypes -Wno-unused-parameter
# -ffp-contract=off and no fast-math: only matters if a float ever leaks in, but cheap.
DETFLAGS := -ffp-contract=off -fno-fast-math
CFLAGS   ?=
CPPFLAGS ?=
LDFLAGS  ?=
# extra flags applied to kernel/ and fixmath_glue/ only (e.g. -mgeneral-regs-only)
KERNEL_CFLAGS ?=
# libfixmath (header for the type; archive for fix16_from_str/fix16_to_str in tools)
FIXMATH_LIBS ?= -llibfixmath
# xxHash: the static archive by default; XXH_INLINE=1 uses the header only (wasm32)
XXH_INLINE ?= 0
ifeq ($(XXH_INLINE),1)
XXH_CPPFLAGS := -DXXH_INLINE_ALL
XXH_LIBS :=
else
XXH_CPPFLAGS :=
XXH_LIBS ?= -l:libxxhash.a
endif
EXE ?=

INC := -Ifixmath_glue -Ikernel/include -Iauthoring/include -Ireplays/include -Isession/include -Ikernel/src -Ireplays -Itools -I.
ALL_CFLAGS = $(CSTD) $(OPT) $(WARN) $(DETFLAGS) $(INC) $(XXH_CPPFLAGS) $(SESSION_CPPFLAGS) $(CPPFLAGS) $(CFLAGS)

GLUE_SRC   := $(sort $(wildcard fixmath_glue/*.c))
KERNEL_SRC := $(sort $(wildcard kernel/src/*/*.c))
# replays/: the library's part (format, reader, writer, verify, call
# records) and the program's own (replay_run.c: scenes, scripts, inputs)
REPLAY_SRC := $(filter-out replays/replay_run.c,$(sort $(wildcard replays/*.c)))
REPLAY_RUN_SRC := replays/replay_run.c
SCENE_SRC  := $(sort $(wildcard tools/scenes/*.c))
SESSION_SRC := $(sort $(wildcard session/*.c))
CLI_SRC    := $(sort $(wildcard tools/cli/*.c))
TEST_SRC   := $(sort $(wildcard tests/*.c))
# SESSIONS=0: the program and tests without networked sessions (peer, netdemo,
# tests/test_session.c) and so without libsodium; the crosscheck's wasm32
# builds (node has no UDP for them). synctest stays in the program: it needs
# neither. The library then holds the sessions' synctest and world callbacks
# only. emcc builds default to it; the JS package's library is built with
# SESSIONS=1 against the libsodium that tools/crosscheck.sh compiles into the
# wasm32 sysroot (bindings/js/build.sh).
SESSIONS ?= $(if $(filter emcc,$(notdir $(CC))),0,1)
ifeq ($(SESSIONS),0)
SESSION_SRC := session/synctest.c session/world_game.c
CLI_SRC := $(filter-out tools/cli/cmd_peer.c tools/cli/cmd_netdemo.c,$(CLI_SRC))
TEST_SRC := $(filter-out tests/test_session.c tests/test_session_clock.c tests/test_join_proof.c tests/test_xfer.c tests/test_desync_exchange.c tests/test_sync.c tests/session_insider.c,$(TEST_SRC))
SESSION_CPPFLAGS := -DFXS_NO_SESSIONS
endif

obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))
# the library: the kernel, the replays (fixstep/replay.h) and the sessions (fixstep/session.h)
LIB_OBJ   := $(call obj,$(GLUE_SRC) $(KERNEL_SRC) $(REPLAY_SRC) $(SESSION_SRC))
TOOL_OBJ  := $(call obj,$(REPLAY_RUN_SRC) $(SCENE_SRC))
CLI_OBJ   := $(call obj,$(CLI_SRC))
TEST_OBJ  := $(call obj,$(TEST_SRC) tools/cli/scene_session.c examples/verifyd_game/game.c)

LIB  := $(BUILD)/libfixstep.a
# The shared library, on ELF targets: soname libfixstep.so.MAJOR; it exports the
# installed headers' declarations only (between FXG_EXPORT_BEGIN and
# FXG_EXPORT_END; the kernel is compiled -fvisibility=hidden) and carries
# xxHash inside it, hidden (--exclude-libs). SHARED=0 skips it.
VERSION := $(shell sed -n 's/^\#define FXS_VERSION_[A-Z]* \([0-9][0-9]*\)$$/\1/p' kernel/include/fixstep/types.h | paste -sd. -)
SOMAJOR := $(firstword $(subst ., ,$(VERSION)))
TARGET_MACHINE := $(shell $(CC) -dumpmachine 2>/dev/null)
SHARED ?= $(if $(filter %-linux-gnu %-linux-gnueabihf,$(TARGET_MACHINE)),1,0)
SO := $(BUILD)/libfixstep.so.$(VERSION)
PIC := $(if $(filter 1,$(SHARED)),-fPIC,)
PROG := $(BUILD)/fixstep$(EXE)
# The verification service (tools/verifyd, docs/verifyd.md) on Redis Streams, with
# Debian's libhiredis-dev, and its example game library: built natively when
# hiredis is installed; VERIFYD=0 (cross and wasm builds: automatic) skips them.
VERIFYD ?= $(if $(and $(wildcard /usr/include/hiredis/hiredis.h),$(filter 1,$(SHARED)),$(filter $(shell uname -m)-%,$(TARGET_MACHINE))),1,0)
VERIFYD_PROG := $(BUILD)/fixstep-verifyd
EXAMPLE_GAME := $(BUILD)/libfixstep_example_game.so
TESTS := $(BUILD)/fixstep_tests$(EXE)
# the step's built-in pool of threads (kernel/src/world/thread_pool.c): pthreads
# from libc; wasm builds stay single-threaded (no -pthread, no pool: the step
# runs serially there, or on the game's own scheduler)
THREAD_LIBS ?= $(if $(filter emcc,$(notdir $(CC))),,-pthread)
LIBS := $(FIXMATH_LIBS) $(XXH_LIBS) $(THREAD_LIBS)
# The session layer (session/) authenticates its packets with Debian's
# libsodium; the kernel library does not use it.
ifeq ($(SESSIONS),0)
SODIUM_LIBS :=
else
SODIUM_LIBS ?= -lsodium
endif

.PHONY: all test demo deps install crosscheck nofloat werror sanitize tsan bench bench-bullet bench-box3d clean corpus fuzz compile_commands.json cxx-check examples soak
# Compile in parallel on every core unless told otherwise (make -j1 still wins);
# sub-makes share the top one's job server.
ifeq ($(MAKELEVEL),0)
MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 2)
endif
all: deps $(LIB) $(if $(filter 1,$(SHARED)),$(SO)) $(PROG) $(if $(filter 1,$(VERIFYD)),$(VERIFYD_PROG) $(EXAMPLE_GAME))

# The kernel's only dependencies are Debian's libfixmath-dev and libxxhash-dev;
# the sessions of the program and the tests also need libsodium-dev.
# Skipped for cross builds (DEPS_CHECK=0): their sysroots come from crosscheck.sh.
DEPS_CHECK ?= 1
deps:
ifeq ($(DEPS_CHECK),1)
	@missing=""; \
	[ -f /usr/include/libfixmath/fix16.h ] || missing="$$missing libfixmath-dev"; \
	[ -f /usr/include/xxhash.h ] || missing="$$missing libxxhash-dev"; \
	[ -f /usr/include/sodium.h ] || missing="$$missing libsodium-dev"; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing$$missing"; \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing) >/dev/null || exit 1; \
	  else \
	    echo "fixstep needs$$missing: run  sudo apt-get install -y$$missing"; exit 1; \
	  fi; \
	fi
endif

$(BUILD)/obj/fixmath_glue/%.o $(BUILD)/obj/kernel/%.o: KCF = $(KERNEL_CFLAGS)
$(BUILD)/obj/fixmath_glue/%.o $(BUILD)/obj/kernel/%.o $(BUILD)/obj/session/%.o: LIBCF = -fvisibility=hidden $(PIC)
$(call obj,$(REPLAY_SRC)): LIBCF = -fvisibility=hidden $(PIC)
# The vector kernels: one translation unit per instruction set
# (kernel/src/simd/kernels_sse4.c, _avx2.c, _avx512.c, _neon.c, _simd128.c), each
# compiling every stage's *_vector.h on its lanes into one table
# (kernel/src/simd/kernels.h); kernel/src/simd/cpu.c chooses at run time.
# SSE4.2, AVX2 and AVX-512 on x86, NEON on aarch64, SIMD128 in wasm builds made with
# -msimd128; elsewhere a unit builds to a NULL table. The same bits as the
# portable code. Integer only: `make nofloat` checks their objects by
# disassembly instead of -mgeneral-regs-only, which would forbid the vector
# registers.
ifneq ($(filter x86_64% i386% i486% i586% i686%,$(TARGET_MACHINE)),)
SSE4_CFLAGS ?= -msse4.2 -mpopcnt
AVX2_CFLAGS ?= -mavx2
AVX512_CFLAGS ?= -mavx2 -mavx512f -mavx512vl -mavx512dq -mavx512cd
endif
VEC_SSE4_SRC   := kernel/src/simd/kernels_sse4.c
VEC_AVX2_SRC   := kernel/src/simd/kernels_avx2.c
VEC_AVX512_SRC := kernel/src/simd/kernels_avx512.c
VEC_NEON_SRC   := kernel/src/simd/kernels_neon.c
VEC_KCF = $(filter-out -mgeneral-regs-only,$(KERNEL_CFLAGS))
$(call obj,$(VEC_SSE4_SRC)): KCF = $(VEC_KCF) $(SSE4_CFLAGS)
$(call obj,$(VEC_AVX2_SRC)): KCF = $(VEC_KCF) $(AVX2_CFLAGS)
$(call obj,$(VEC_AVX512_SRC)): KCF = $(VEC_KCF) $(AVX512_CFLAGS)
$(call obj,$(VEC_NEON_SRC)): KCF = $(VEC_KCF)
# Makefile too: a change of flags (visibility, PIC, kernels) rebuilds every object.
$(BUILD)/obj/%.o: %.c Makefile | deps
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(KCF) $(LIBCF) -MMD -MP -c -o $@ $<

$(LIB): $(LIB_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^

$(SO): $(LIB_OBJ)
	$(CC) $(OPT) $(LDFLAGS) -shared -Wl,-soname,libfixstep.so.$(SOMAJOR) -Wl,--exclude-libs,ALL -o $@ $^ $(XXH_LIBS) $(SODIUM_LIBS) $(THREAD_LIBS)
	ln -sf libfixstep.so.$(VERSION) $(BUILD)/libfixstep.so.$(SOMAJOR)
	ln -sf libfixstep.so.$(SOMAJOR) $(BUILD)/libfixstep.so

$(PROG): $(CLI_OBJ) $(TOOL_OBJ) $(LIB)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $(CLI_OBJ) $(TOOL_OBJ) $(LIB) $(LIBS) $(SODIUM_LIBS) -lm

# The worker exports the library's API (--export-dynamic) to the game
# libraries it loads, which are linked without libfixstep: the whole library.
$(VERIFYD_PROG): $(call obj,tools/verifyd/verifyd.c) $(TOOL_OBJ) $(LIB)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -Wl,--export-dynamic -o $@ $(call obj,tools/verifyd/verifyd.c) $(TOOL_OBJ) -Wl,--whole-archive $(LIB) -Wl,--no-whole-archive $(LIBS) $(SODIUM_LIBS) -lhiredis -lm

$(EXAMPLE_GAME): examples/verifyd_game/game.c replays/include/fixstep/verifyd_game.h Makefile
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -fPIC -shared -o $@ $<

# The tests' allocations go through tests/test_nomem.c, which can make any of
# them fail (out-of-memory in a step); they pass through otherwise.
TEST_WRAP := -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc
$(TESTS): $(TEST_OBJ) $(TOOL_OBJ) $(LIB)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $(TEST_OBJ) $(TOOL_OBJ) $(LIB) $(LIBS) $(SODIUM_LIBS) -lm $(TEST_WRAP)

# Every test. TEST_ARGS=--quick skips the long exhaustive sweeps. The CLI
# tests (tests/test_cli.c) run the program this build made.
TEST_ARGS ?=
test: all $(TESTS)
	FIXSTEP_PROG=$(PROG) FIXSTEP_VERIFYD=$(if $(filter 1,$(VERIFYD)),$(VERIFYD_PROG)) FIXSTEP_EXAMPLE_GAME=$(EXAMPLE_GAME) \
	  $(TESTS) $(TEST_ARGS)
	@bash tools/check_includes.sh
	@if [ "$(SHARED)" = 1 ]; then bash tools/check_exports.sh $(SO) $(LIB); fi
	@# the hostile-call test covers every exported function (regenerated from the headers' AST)
	@if [ "$(BUILD)" = build ] && command -v clang >/dev/null; then python3 tools/gen_api_calls.py --check; fi
	@# the benchmark charts' parser (and, with gnuplot, its drawing)
	@python3 tools/bench_chart.py --self-test
	+@if [ "$(BUILD)" = build ] && command -v node >/dev/null; then $(MAKE) --no-print-directory test-js; \
	else echo "(the JavaScript package's tests need node: make test-js)"; fi
	+@if [ "$(BUILD)" = build ] && [ "$(SHARED)" = 1 ]; then $(MAKE) --no-print-directory test-csharp; fi

# The C# binding (bindings/csharp) under Mono: its tests and the arena example
# against libfixstep.so; says it skipped when mcs or mono is missing.
.PHONY: test-csharp
test-csharp: all
	BUILD=$(BUILD) bash bindings/csharp/build.sh

# The main job: build, run a built-in scene with its hashes, and prove the
# run reproduces (a second run and a snapshot round trip end on the same hash).
DEMO_SCENE ?= falling_spheres_500
demo: all
	bash tools/demo.sh $(PROG) $(DEMO_SCENE)

# Compile kernel/ and fixmath_glue/ so that any floating point is a build error;
# the vector kernels, which need the vector registers, are checked by disassembly.
SIMD_OBJ = $(patsubst %.c,$(BUILD)/nofloat/obj/%.o,$(VEC_SSE4_SRC) $(VEC_AVX2_SRC) $(VEC_AVX512_SRC))
NEON_OBJ = $(patsubst %.c,$(BUILD)/nofloat-aarch64/obj/%.o,$(VEC_NEON_SRC))
AARCH64_CC ?= aarch64-linux-gnu-gcc
nofloat:
	$(MAKE) --no-print-directory BUILD=$(BUILD)/nofloat KERNEL_CFLAGS=-mgeneral-regs-only $(BUILD)/nofloat/libfixstep.a
	bash tools/check_nofloat.sh $(SIMD_OBJ)
	bash tools/check_nofloat_source.sh $(BUILD)/nofloat/libfixstep.a
	@# the kernel for aarch64 (the cross compiler of `make crosscheck`): the same, NEON disassembled
	@if command -v $(AARCH64_CC) >/dev/null; then \
	  $(MAKE) --no-print-directory BUILD=$(BUILD)/nofloat-aarch64 CC=$(AARCH64_CC) AR=$(AARCH64_CC:gcc=ar) DEPS_CHECK=0 \
	    KERNEL_CFLAGS=-mgeneral-regs-only $(BUILD)/nofloat-aarch64/libfixstep.a && \
	  bash tools/check_nofloat.sh $(NEON_OBJ); \
	else echo "nofloat: $(AARCH64_CC) not installed: the NEON kernels are not checked"; fi
	@# the whole kernel as wasm with SIMD128 (make js), disassembled: no f32 / f64 instruction
	@if command -v emcc >/dev/null; then $(MAKE) --no-print-directory js >/dev/null && \
	  bash tools/check_nofloat.sh build/js/simd128/obj/kernel/src/*/*.o build/js/simd128/obj/fixmath_glue/*.o | tail -n 1 && \
	  echo "nofloat: the wasm SIMD128 build of kernel/ and fixmath_glue/: integer instructions only"; \
	else echo "nofloat: emcc not installed: the wasm build is not checked (make js)"; fi

# Every source, the tests' included, warning-free with gcc and with clang (CI runs it).
werror:
	$(MAKE) --no-print-directory BUILD=$(BUILD)/werror-gcc CC=gcc CFLAGS=-Werror all $(BUILD)/werror-gcc/fixstep_tests
	$(MAKE) --no-print-directory BUILD=$(BUILD)/werror-clang CC=clang CFLAGS=-Werror all $(BUILD)/werror-clang/fixstep_tests

# Every public header from C++17 (g++ and clang++) and strict C11 (gcc and
# clang), -Wall -Wextra -pedantic -Werror, linked and run (tests/cpp).
CXX_CHECK := -std=c++17 -O1 -Wall -Wextra -pedantic -Werror -Ikernel/include -Iauthoring/include -Ireplays/include -Isession/include -Ifixmath_glue
C11_CHECK := -std=c11 -O1 -Wall -Wextra -pedantic -Werror -Ikernel/include -Iauthoring/include -Ireplays/include -Isession/include -Ifixmath_glue
cxx-check: all
	@for c in g++ clang++ gcc clang; do command -v $$c >/dev/null || { echo "cxx-check needs $$c (Debian: apt-get install g++ clang)"; exit 1; }; done
	g++ $(CXX_CHECK) tests/cpp/all_headers.cpp $(LIB) $(LIBS) $(SODIUM_LIBS) -o $(BUILD)/all_headers_gxx && $(BUILD)/all_headers_gxx
	clang++ $(CXX_CHECK) tests/cpp/all_headers.cpp $(LIB) $(LIBS) $(SODIUM_LIBS) -o $(BUILD)/all_headers_clangxx && $(BUILD)/all_headers_clangxx
	gcc $(C11_CHECK) tests/cpp/all_headers.c $(LIB) $(LIBS) $(SODIUM_LIBS) -o $(BUILD)/all_headers_gcc && $(BUILD)/all_headers_gcc
	clang $(C11_CHECK) tests/cpp/all_headers.c $(LIB) $(LIBS) $(SODIUM_LIBS) -o $(BUILD)/all_headers_clang && $(BUILD)/all_headers_clang

# The examples built against an installed fixstep in a temporary prefix
# (pkg-config), run, and checked against the corpus (examples/build.sh).
examples: all
	+BUILD=$(BUILD) bash examples/build.sh

# The tests under AddressSanitizer and UndefinedBehaviorSanitizer.
sanitize:
	$(MAKE) --no-print-directory BUILD=$(BUILD)/sanitize OPT="-O1 -g" \
	  CFLAGS="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer" \
	  LDFLAGS="-fsanitize=address,undefined" test TEST_ARGS=--quick

# The threaded tests (the parallel step's, tests/test_threads.c, --quick) under
# ThreadSanitizer (clang): no data race between a step's tasks, on the built-in
# pool and on the test's random-order scheduler.
TSAN_CC ?= clang
tsan:
	$(MAKE) --no-print-directory BUILD=$(BUILD)/tsan CC=$(TSAN_CC) OPT="-O1 -g" SHARED=0 VERIFYD=0 \
	  CFLAGS="-fsanitize=thread -fno-omit-frame-pointer" LDFLAGS="-fsanitize=thread" $(BUILD)/tsan/fixstep_tests$(EXE)
	TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" $(BUILD)/tsan/fixstep_tests$(EXE) --quick -j1 threads_

# The sessions' soak (tools/soak.sh; not in make test): 4 peers over loopback
# UDP for SOAK_MINUTES (10) minutes, 5% loss, 60 ms jitter, a peer killed and
# rejoining every minute; every peer must end on one hash.
SOAK_MINUTES ?= 10
soak: all
	bash tools/soak.sh $(SOAK_MINUTES) $(PROG)

# Regenerate the golden replay corpus (replays/corpus) from the committed code.
corpus:
	bash replays/make_corpus.sh

# libFuzzer on the replay and snapshot readers (clang); FUZZ_SECONDS per target.
FUZZ_SECONDS ?= 60
fuzz:
	bash replays/fuzz/run.sh $(FUZZ_SECONDS)

crosscheck: all
	bash tools/crosscheck.sh

# BOX3D="prog ..." adds a column per Box3D program (make bench-box3d). The table
# is also drawn, build/bench/scenes.svg (tools/bench_chart.py with gnuplot).
BOX3D ?=
bench: all
	BOX3D="$(BOX3D)" bash tools/bench.sh

# Bullet's btDbvtBroadphase for `fixstep bench broadphase` to compare against
# (needs libbullet-dev; never part of the normal build or the tests).
bench-bullet:
	BUILD=$(abspath $(BUILD)) bash tools/bench/build.sh

# Box3D beside fixstep (`fixstep bench SCENE --box3d PROGRAM`, docs/benchmarks.md):
# tools/bench/box3d_scenes.c compiled against a Box3D the user has built
# elsewhere (BOX3D_DIR its source tree, BOX3D_LIB its libbox3d.a). Never part
# of the normal build or the tests; this repository holds no Box3D code.
#   make bench-box3d BOX3D_DIR=../box3d BOX3D_LIB=../box3d/build/src/libbox3d.a BOX3D_PROG=build/box3d_sse2
BOX3D_DIR ?=
BOX3D_LIB ?= $(BOX3D_DIR)/build/src/libbox3d.a
BOX3D_PROG ?= $(BUILD)/box3d_scenes
bench-box3d:
	@if [ ! -f "$(BOX3D_DIR)/include/box3d/box3d.h" ]; then \
	  echo "bench-box3d: BOX3D_DIR=... must be a Box3D source tree (with include/box3d/box3d.h)" >&2; exit 1; fi
	@if [ ! -f "$(BOX3D_LIB)" ]; then \
	  echo "bench-box3d: no Box3D library at $(BOX3D_LIB) (build Box3D, then give BOX3D_LIB=.../libbox3d.a)" >&2; exit 1; fi
	@mkdir -p $(dir $(BOX3D_PROG))
	$(CC) -std=c17 -O2 -Wall -Wextra -I"$(BOX3D_DIR)/include" -o $(BOX3D_PROG) tools/bench/box3d_scenes.c "$(BOX3D_LIB)" -lm -lpthread
	@echo "built $(BOX3D_PROG): fixstep bench SCENE --box3d $(BOX3D_PROG), or make bench BOX3D=$(BOX3D_PROG)"

PREFIX ?= /usr/local
install: all
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include/fixstep $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/bin
	install -m 644 $(LIB) $(DESTDIR)$(PREFIX)/lib/
	if [ "$(SHARED)" = 1 ]; then install -m 755 $(SO) $(DESTDIR)$(PREFIX)/lib/ && \
	  ln -sf libfixstep.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/libfixstep.so.$(SOMAJOR) && \
	  ln -sf libfixstep.so.$(SOMAJOR) $(DESTDIR)$(PREFIX)/lib/libfixstep.so; fi
	install -m 644 kernel/include/fixstep/*.h authoring/include/fixstep/*.h replays/include/fixstep/*.h session/include/fixstep/*.h fixmath_glue/*.h $(DESTDIR)$(PREFIX)/include/fixstep/
	install -m 755 $(PROG) $(DESTDIR)$(PREFIX)/bin/
	if [ "$(VERIFYD)" = 1 ]; then install -m 755 $(VERIFYD_PROG) $(DESTDIR)$(PREFIX)/bin/; fi
	for pc in fixstep fixstep-static; do sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' tools/$$pc.pc.in \
	  > $(DESTDIR)$(PREFIX)/lib/pkgconfig/$$pc.pc; done
	@# the license and the notices of libfixmath, xxHash and libsodium, which the libraries carry
	install -d $(DESTDIR)$(PREFIX)/share/doc/fixstep
	install -m 644 LICENSE THIRD_PARTY_NOTICES $(DESTDIR)$(PREFIX)/share/doc/fixstep/

# For clangd and other editors: every compile command of the build, as run.
compile_commands.json:
	python3 tools/compile_commands.py $(BUILD)

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)

# ---- the JavaScript package (bindings/js): `make js` builds it with Debian's
# emscripten (installed with the wasm32 sysroot by tools/crosscheck.sh setup),
# `make test-js` runs its tests under node (part of `make test` when node is
# there), `make bench-js` measures it against Rapier and Jolt from npm.
.PHONY: js test-js bench-js
# (+: the scripts' own make calls share this make's job server, with no
# "jobserver unavailable" warning)
js:
	+bash bindings/js/build.sh

# Needs the native program too: the tests compare the JS API's hashes with it.
test-js: all
	+bash bindings/js/test/run.sh

bench-js: js
	bash bindings/js/bench/run.sh
