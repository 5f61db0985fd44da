// libFuzzer's driver, for a fuzz target that has a main of its own (the hub's targets set up a
// database and a router first). Linked from compiler-rt's libclang_rt.fuzzer_no_main, which
// tools/check/fuzz names to the build (NEARCAST_HUB_FUZZ_RUNTIME).
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
