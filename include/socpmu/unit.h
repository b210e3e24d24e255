/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * Unit (core or tile) selection in config1, common to every socpmu uncore
 * PMU; plain macros so that userspace tools can encode events too.
 *
 * config1:0-15 holds the unit, config1:16 says "by unit". A non-zero unit
 * alone selects that unit; unit 0 needs the flag, since perf cannot tell
 * unit=0 from no unit. Without either the event sums every unit.
 */
#ifndef _SOCPMU_UNIT_H
#define _SOCPMU_UNIT_H

#define SOCPMU_CFG1_UNIT_MASK	0xffffULL
#define SOCPMU_CFG1_BYUNIT	(1ULL << 16)
#define SOCPMU_CFG1_VALID	(SOCPMU_CFG1_UNIT_MASK | SOCPMU_CFG1_BYUNIT)

#endif /* _SOCPMU_UNIT_H */
