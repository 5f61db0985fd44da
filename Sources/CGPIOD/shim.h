// libgpiod as Swift sees it: 1.6 (Debian 12's libgpiod2 package) or 2.x (Debian 13's libgpiod3).
// Package.swift reads gpiod.h to tell them apart and defines NEARCAST_GPIOD_V2 for Swift.
#ifndef NEARCAST_CGPIOD_SHIM_H
#define NEARCAST_CGPIOD_SHIM_H

#include <gpiod.h>

#ifdef GPIOD_BIT
// 1.x: GPIOD_BIT is a macro; the request flags are built from it.
static inline int nearcast_gpiod_flag_active_low(void) { return GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW; }
#endif

#endif
