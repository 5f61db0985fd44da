// The hub's release version, stamped at build time. tools/package/package-hub builds with
//   -Xcc -DNEARCAST_HUB_VERSION='"0.1.0~gitCOUNT.gCOMMIT"'
// so the stamp reaches the binary without writing into the source tree; a development build
// keeps the default below. tools/package/package-hub reads its base version from this line too.
#ifndef NEARCAST_CHUBBUILDSTAMP_SHIM_H
#define NEARCAST_CHUBBUILDSTAMP_SHIM_H

#ifndef NEARCAST_HUB_VERSION
#define NEARCAST_HUB_VERSION "0.1.0-dev"
#endif

/// The version string this binary was built with.
static inline const char *nearcast_hub_build_version(void) { return NEARCAST_HUB_VERSION; }

#endif
