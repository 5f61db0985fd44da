// ALSA (libasound) as Swift sees it. Only wrappers for what Swift cannot import live here.
#ifndef NEARCAST_CALSA_SHIM_H
#define NEARCAST_CALSA_SHIM_H

#include <alsa/asoundlib.h>

// libasound prints its own diagnostics to stderr through a C-variadic handler, which Swift
// cannot define. Nearcast reports every error itself (typed, one line), so it installs this
// silent handler instead.
static void nearcast_alsa_silent_handler(const char *file, int line, const char *function,
                                         int err, const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err; (void)fmt;
}

static inline int nearcast_alsa_silence_errors(void) {
    return snd_lib_error_set_handler(nearcast_alsa_silent_handler);
}

// snd_pcm_hw_params_alloca is a macro around alloca; Swift uses the malloc'd variant instead,
// once at open time (never on the audio thread).

#endif
