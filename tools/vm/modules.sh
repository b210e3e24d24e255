#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# modules.sh KBUILD - the modules that KBUILD declares, one name per line:
# its "$(call socpmu_module,NAME,...)" lines. The Makefile's MODULE_KOS and
# check-riscv.sh take them from here.
sed -n 's/^\$(call socpmu_module,\([A-Za-z0-9_]*\),.*/\1/p' "${1:?usage: modules.sh KBUILD}"
