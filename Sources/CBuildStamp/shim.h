// The release version, stamped at build time. tools/package/release builds with
//   -Xcc -DNEARCAST_VERSION='"0.1.0~gitCOUNT.gCOMMIT"'
// so the stamp reaches the binary without writing into the source tree; a development build
// keeps the default below. tools/package/release reads its base version from this line too.
#ifndef NEARCAST_CBUILDSTAMP_SHIM_H
#define NEARCAST_CBUILDSTAMP_SHIM_H

#ifndef NEARCAST_VERSION
#define NEARCAST_VERSION "0.1.0-dev"
#endif

/// The version string this binary was built with.
static inline const char *nearcast_build_version(void) { return NEARCAST_VERSION; }

#endif
