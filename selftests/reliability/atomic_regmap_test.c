// SPDX-License-Identifier: GPL-2.0-only
/*
 * perf calls the socpmu drivers with interrupts off (add/del/read and the
 * poll hrtimer in hard-IRQ context), so a driver must refuse a parent
 * regmap that may sleep. The simulator's "sleeping_regmap=1" gives a device
 * such a regmap (regmap_might_sleep() true): for every uncore model type
 * (one PMU per device), the device must get no PMU, while the same device
 * without the knob gets one (the control). (sifive_trace refuses such maps
 * the same way, through socpmu_parent_regmap(), but its one PMU serves every
 * trace device, so a new PMU is no sign of a probe there.)
 */
#include "kselftest_harness.h"
#include "reliability.h"

static const struct {
	const char *type, *prefix;
} types[] = {
	{ "tensix", "tensix_" },
	{ "esp", "esp_" },
	{ "pulp", "pulp_" },
	{ "ttcard", "tensix_" },	/* the bridge must refuse the card's BAR0 */
};

TEST(sleeping_regmap_refused)
{
	if (sp_sim_available())
		SKIP(return, "no simulator");
	for (size_t i = 0; i < ARRAY_SIZE(types); i++) {
		struct sp_dev d;
		char name[SP_NAME_LEN];
		int ret;

		/* control: the same device with an atomic regmap has a PMU */
		snprintf(name, sizeof(name), "rm_ok_%s", types[i].type);
		ret = sp_dev_create(&d, types[i].type, name, NULL, types[i].prefix);
		EXPECT_EQ(0, ret) TH_LOG("%s: %s", name, strerror(-ret));
		if (d.alive)
			EXPECT_EQ(0, sp_dev_delete(&d));

		snprintf(name, sizeof(name), "rm_sleep_%s", types[i].type);
		ret = sp_dev_create(&d, types[i].type, name, "sleeping_regmap=1",
				    types[i].prefix);
		EXPECT_EQ(-ENODEV, ret) TH_LOG("%s: a PMU on a regmap that may sleep", name);
		EXPECT_TRUE(d.alive) TH_LOG("%s: the simulator refused the device", name);
		if (d.alive)
			EXPECT_EQ(0, sp_dev_delete(&d));
	}
}

TEST_HARNESS_MAIN
