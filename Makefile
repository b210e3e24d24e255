# SPDX-License-Identifier: GPL-2.0
# socpmu top-level Makefile (the modules themselves are listed in Kbuild).
#
#   make [all]        modules + tools + selftests (warnings are errors); the
#                     modules and tools are also installed into .build/tools-root,
#                     the tree the test VM boots with (`make install` there)
#   make install      modules into $(DESTDIR)/lib/modules/$(KVER)/updates/socpmu
#                     (then depmod, unless DESTDIR is set; the simulator's
#                     socpmu_sim and socpmu_migrate only with WITH_SIM=1), tools, libraries, pkg-config files, man pages and
#                     the register-map headers (socpmu/*_regs.h) under
#                     $(DESTDIR)$(PREFIX) (PREFIX=/usr/local)
#   make install-dkms-src  the module sources and dkms.conf into
#                     $(DESTDIR)/usr/src/socpmu-<version>, for `dkms add socpmu/<version>`
#   make deps         install the Debian packages, fetch the kernel image and
#                     the kselftest/checkpatch files into $(CACHE) (root)
#   make modules      the .ko files, at the top of the tree (W=1)
#   make tools        every tools/<name>/Makefile
#   make selftests    selftests/<group>/*.c -> .build/selftests/<group>/
#   make sparse       sparse (C=2) over every module source; fails on any
#                     sparse warning in our files; skipped, with the last
#                     output shown, when none of its inputs changed (the
#                     sources, Kbuild, this Makefile, the kernel headers'
#                     path and sparse's version; CACHED=0 runs it)
#   make run          deps + perf + all, then the demo (tools/vm/demo.sh) in the VM
#   make shell        deps + perf + all, then a shell in the VM on this terminal: every
#                     module loaded, a simulated device of every type
#   make bench        deps + perf + all, the host benchmarks (`make bench` of every
#                     tools/<name>/Makefile that has one: the decoder against a
#                     byte scan), then every selftests/*/*_bench program in the VM
#   make check-riscv  cross-build every module for riscv64 (defconfig and an
#                     M-mode nommu config; trees prepared once in $(CACHE)/riscv),
#                     then the RISC-V VM bench (tools/vm/riscv-vm.sh): a riscv64
#                     kernel built once into $(CACHE)/riscv-vm, booted by
#                     qemu-system-riscv64 on OpenSBI, runs the riscv64 selftests
#                     next to riscv_pmu_sbi; `make check` adds their results
#   make perf         perf from linux-source-6.12 with tools/perf/patches (the
#                     SiFive trace support) in $(CACHE)/perf-build, which the VM
#                     then uses; rebuilt only when the series or the source change
#   make checkpatch   checkpatch.pl --strict (from $(CACHE)/checkpatch) on every
#                     file under drivers/ and include/: fails on errors, lists
#                     warnings (tools/vm/checkpatch.sh); skipped, with the last
#                     output shown, when none of its inputs changed (CACHED=0 runs it)
#   make fuzz         deps + perf + all, then the long reliability run in the VM: 1M
#                     fuzzer iterations and the long stress, module and
#                     security tests, with a summary (tools/vm/fuzz.sh;
#                     FUZZ_ITERATIONS, FUZZ_SEED, FUZZ_SECONDS, FUZZ_TIMEOUT)
#   make check        deps + the builds of check-riscv + perf, then the RISC-V
#                     bench and at once all + sparse + checkpatch, then the
#                     host tests and the selftests in x86 VMs next to the
#                     bench in VM_JOBS (default 3) slots and one more once
#                     the host tests are done, the x86 VMs taking the
#                     tests from one queue (tools/vm/check.sh;
#                     RISCV_ALONGSIDE=0 runs the bench after the x86 suites);
#                     prints each phase's time, and the last line is
#                     "N passed, N failed[, N skipped]"
#   make clean
#
# Variables: CACHE (default /var/cache/socpmu), KVER (default: the newest
# installed /usr/src/linux-headers-6.12.*-amd64), KDIR (kernel build tree,
# default its headers; set it, ARCH and CROSS_COMPILE to build the modules
# for another kernel), VM_TIMEOUT (seconds the VM of `make run` may take;
# `make check` uses tools/vm/check.sh's default).
#
# Every tools/<name>/Makefile takes part with the usual targets: all, clean,
# install (DESTDIR, PREFIX: `make tools` installs into .build/tools-root,
# which the VM gets as its /usr) and, if it has host tests, check (run by
# `make check`; the tests print kselftest "# Totals:" lines).

SHELL := /bin/bash
.SHELLFLAGS := -o pipefail -ec

CACHE ?= /var/cache/socpmu
# Deferred (?= is recursive): looked up again after `make deps` installed headers.
KVER ?= $(shell tools/vm/kver.sh)
KDIR ?= /usr/src/linux-headers-$(KVER)
KBUILD = $(MAKE) -C $(KDIR) M=$(CURDIR) W=1
BUILD := $(CURDIR)/.build
VM_TIMEOUT ?= 300
PREFIX ?= /usr/local
DESTDIR ?=
VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
# Headers a userspace program can use: register maps and event tables
# The simulator's modules: built for the tests, installed only with WITH_SIM=1
# (the VM's tree); DKMS never builds them (SOCPMU_SIM=0, see Kbuild)
SIM_MODULES = socpmu_sim socpmu_migrate
UAPI_HEADERS = $(wildcard include/socpmu/*_regs.h) include/socpmu/sifive_hpm.h
TOOL_DIRS = $(patsubst %/Makefile,%,$(wildcard tools/*/Makefile))
export CACHE

need-kdir = $(if $(wildcard $(KDIR)/Makefile),,$(error no kernel headers in '$(KDIR)': run 'make deps' as root))

.PHONY: all deps modules tools selftests shell install install-modules install-dkms-src stage sparse sparse-run checkpatch run bench check check-builds check-riscv perf fuzz clean

all: modules tools selftests stage

deps:
	@if [ -n "$$PHASE_TIMES" ]; then rm -f "$$PHASE_TIMES"; fi
	@tools/vm/phase.sh deps tools/vm/deps.sh

# Kbuild runs only when its inputs changed or a .ko is missing: even with
# nothing to do it takes 2 s (its compiler probes), twice in `make check`
# (tools/vm/cached.sh; CACHED=0 runs it anyway). The inputs: Kbuild, the
# sources, the kernel's .config and Module.symvers, and the command, which
# holds the flags, KDIR, ARCH and CROSS_COMPILE.
MODULE_KOS = $(addsuffix .ko,$(shell tools/vm/modules.sh Kbuild))
modules:
	$(need-kdir)
	@mkdir -p $(BUILD)
	@$(if $(filter-out $(wildcard $(MODULE_KOS)),$(MODULE_KOS)),CACHED=0) tools/vm/cached.sh -q \
		modules "Kbuild drivers include $(KDIR)/.config $(KDIR)/Module.symvers" \
		$(KBUILD) $(if $(ARCH),ARCH=$(ARCH)) $(if $(CROSS_COMPILE),CROSS_COMPILE=$(CROSS_COMPILE)) modules

tools:
	rm -rf $(BUILD)/tools-root
	for d in $(TOOL_DIRS); do \
		$(MAKE) -C $$d; \
		$(MAKE) -C $$d install DESTDIR=$(BUILD)/tools-root PREFIX=/usr; \
	done

selftests:
	$(MAKE) -C selftests OUT=$(BUILD)/selftests

# The VM's tree: what `make install` puts on a machine (the tools are there already)
stage:
	$(MAKE) --no-print-directory install-modules DESTDIR=$(BUILD)/tools-root WITH_SIM=1

# Uncompressed and unsigned (no distribution key here; DKMS signs with the MOK).
# Kbuild's depmod wants the kernel's System.map, which headers lack: its
# warning is dropped, and depmod runs below (or in the VM's tree, run-vm.sh).
install-modules:
	$(need-kdir)
	rm -rf $(DESTDIR)/lib/modules/$(KVER)/updates/socpmu
	{ $(KBUILD) modules_install INSTALL_MOD_PATH=$(DESTDIR) INSTALL_MOD_DIR=updates/socpmu \
		CONFIG_MODULE_COMPRESS_ALL= CONFIG_MODULE_SIG_ALL= DEPMOD=true 2>&1 1>&3 | \
		{ grep -v "missing 'System.map' file. Skipping depmod" || true; } >&2; } 3>&1
	$(if $(WITH_SIM),,rm -f $(SIM_MODULES:%=$(DESTDIR)/lib/modules/$(KVER)/updates/socpmu/%.ko))
	$(if $(DESTDIR),,PATH=$$PATH:/usr/sbin:/sbin depmod $(KVER))

install: modules install-modules
	for d in $(TOOL_DIRS); do \
		$(MAKE) -C $$d; \
		$(MAKE) -C $$d install DESTDIR=$(DESTDIR) PREFIX=$(PREFIX); \
	done
	for h in $(UAPI_HEADERS); do \
		install -D -m 0644 $$h $(DESTDIR)$(PREFIX)/include/socpmu/$$(basename $$h); \
	done

# The sources only: no build products of this tree (dkms builds its own)
install-dkms-src:
	rm -rf $(DESTDIR)/usr/src/socpmu-$(VERSION)
	mkdir -p $(DESTDIR)/usr/src/socpmu-$(VERSION)
	cp Kbuild dkms.conf $(DESTDIR)/usr/src/socpmu-$(VERSION)/
	find drivers include -type f -name '*.[ch]' -exec cp --parents -t $(DESTDIR)/usr/src/socpmu-$(VERSION) {} +

# Runs again only when its inputs changed (tools/vm/cached.sh). The sub-make
# is named through a variable: a recipe line that says $(MAKE) runs even
# under `make -n`, and would keep a dry run's output as sparse's.
SPARSE_RUN = $(MAKE) --no-print-directory sparse-run
sparse:
	$(need-kdir)
	@mkdir -p $(BUILD)
	@tools/vm/cached.sh sparse "drivers include Kbuild Makefile" \
		$(SPARSE_RUN) KDIR=$(KDIR) SPARSE_VERSION="$$(sparse --version 2>&1)"

# Sparse reports without failing the build: keep its output and fail on any
# warning or error located in our tree.
sparse-run:
	$(KBUILD) C=2 modules 2>&1 | tee $(BUILD)/sparse.log
	@if grep -E '^$(CURDIR)/[^:]+:[0-9]+:[0-9]+: (warning|error):' $(BUILD)/sparse.log >/dev/null; then \
		echo "sparse: warnings in socpmu sources (see above or $(BUILD)/sparse.log)" >&2; \
		exit 1; \
	fi

# deps may install the headers, so the build runs in a new make that looks KVER up.
# Everything that boots the VM builds what the VM runs: the project's perf
# (the demo's perf record -e sifive_trace//, perf list's descriptions) and
# `all`; run-vm.sh refuses to boot without that perf
# (tools/vm/make_plan_test.sh checks these recipes on an empty CACHE).
run: deps
	@$(MAKE) --no-print-directory perf
	@$(MAKE) -s --no-print-directory all
	KVER=$(KVER) tools/vm/run-vm.sh --timeout $(VM_TIMEOUT) -- /demo.sh

shell: deps
	@$(MAKE) --no-print-directory perf
	@$(MAKE) -s --no-print-directory all
	KVER=$(KVER) tools/vm/run-vm.sh --interactive

check-riscv:
	@tools/vm/check-riscv.sh

perf:
	@tools/perf/build.sh

# Runs again only when drivers/, include/ or checkpatch changed (tools/vm/cached.sh).
checkpatch:
	@tools/vm/cached.sh checkpatch "drivers include tools/vm/checkpatch.sh $(CACHE)/checkpatch" \
		tools/vm/checkpatch.sh

bench: deps
	@$(MAKE) --no-print-directory perf
	@$(MAKE) --no-print-directory all
	for d in $(TOOL_DIRS); do \
		if grep -q '^bench:' $$d/Makefile; then echo "### host: $$d"; $(MAKE) -s -C $$d bench; fi; \
	done
	KVER=$(KVER) tools/vm/run-vm.sh --timeout $(VM_TIMEOUT) -- sh -c \
		'for m in /lib/modules/$$(uname -r)/updates/socpmu/*.ko; do modprobe $$(basename $$m .ko); done; \
		 for b in /selftests/*/*_bench; do echo "### $$b"; $$b || exit 1; done'

# Each phase prints its time (tools/vm/phase.sh) and check.sh lists them all.
# check.sh starts the RISC-V bench, then runs check-builds, then the tests.
# The builds that take both CPUs when they have work to do (the riscv64
# kernels, perf: minutes on a new machine) come before the bench, which
# would get no CPU next to them; check-builds' are serial.
check: export PHASE_TIMES = $(BUILD)/phase-times
check: deps
	@if [ "$${CHECK_RISCV:-1}" != 0 ]; then tools/vm/phase.sh riscv-build tools/vm/check-riscv.sh --build; fi
	@tools/vm/phase.sh perf $(MAKE) --no-print-directory perf
	@KVER=$(KVER) tools/vm/check.sh $(MAKE) --no-print-directory check-builds

# What `make check` builds (and checks) next to the RISC-V bench
check-builds:
	@tools/vm/phase.sh build $(MAKE) --no-print-directory all
	@tools/vm/phase.sh sparse $(MAKE) --no-print-directory sparse
	@tools/vm/phase.sh checkpatch $(MAKE) --no-print-directory checkpatch

fuzz: deps
	@$(MAKE) --no-print-directory perf
	@$(MAKE) --no-print-directory all
	@KVER=$(KVER) tools/vm/fuzz.sh

clean:
	$(if $(wildcard $(KDIR)/Makefile),$(KBUILD) clean)
	for d in $(TOOL_DIRS); do $(MAKE) -C $$d clean; done
	rm -rf $(BUILD)
