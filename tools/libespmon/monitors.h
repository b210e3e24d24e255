/* SPDX-License-Identifier: GPL-2.0-only OR MIT */
/*
 * monitors.h - for ESP applications that include ESP's header by this name:
 * the ESP Monitors API is esp_monitor.h (libespmon).
 */
#ifndef MONITORS_H
#define MONITORS_H
#include "esp_monitor.h"
#endif
