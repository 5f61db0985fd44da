// libgpiod 1.6 (Debian 12's libgpiod2 package) as Swift sees it.
#ifndef NEARCAST_CGPIOD_SHIM_H
#define NEARCAST_CGPIOD_SHIM_H

#include <gpiod.h>

// GPIOD_BIT is a macro; the request flags are built from it.
static inline int nearcast_gpiod_flag_active_low(void) { return GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW; }

#endif
