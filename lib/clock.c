/* SPDX-License-Identifier: BSD-3-Clause OR GPL-2.0-or-later */
/* SPDX-FileCopyrightText: 2026 The pam_envd authors */
/* clock.c - the engine's one reading of time: CLOCK_MONOTONIC, for the
 * bounds (the user side's 3 s, the reader's, the generators').  Without a
 * clock a bound is taken as spent: nothing runs that could not be
 * stopped. */
#include "config.h"

#include <limits.h>
#include <stdint.h>
#include <time.h>

#include "internal.h"

bool envd_deadline(size_t ms, struct timespec *until)
{
	if (clock_gettime(CLOCK_MONOTONIC, until) != 0)
		return false;
	until->tv_sec += (time_t)(ms / 1000);
	until->tv_nsec += (long)(ms % 1000) * 1000000L;
	if (until->tv_nsec >= 1000000000L) {
		until->tv_sec++;
		until->tv_nsec -= 1000000000L;
	}
	return true;
}

size_t envd_ms_since(const struct timespec *start)
{
	struct timespec now;
	long long ms;

	if (clock_gettime(CLOCK_MONOTONIC, &now) != 0)
		return SIZE_MAX;
	ms = (long long)(now.tv_sec - start->tv_sec) * 1000 +
	     (now.tv_nsec - start->tv_nsec) / 1000000;
	return ms < 0 ? 0 : (size_t)ms;
}

long envd_ms_until(const struct timespec *until)
{
	struct timespec now;
	long long ms;

	if (clock_gettime(CLOCK_MONOTONIC, &now) != 0)
		return 0;
	ms = (long long)(until->tv_sec - now.tv_sec) * 1000 +
	     (until->tv_nsec - now.tv_nsec) / 1000000;
	return ms <= 0 ? 0 : ms > INT_MAX ? INT_MAX : (long)ms;
}
