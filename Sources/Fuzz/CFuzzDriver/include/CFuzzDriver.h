#ifndef CFUZZDRIVER_H
#define CFUZZDRIVER_H
#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver (libclang_rt.fuzzer, linked by -sanitize=fuzzer). SwiftPM names an executable's
/// entry point `<module>_main` and points `main` at it, so libFuzzer's own `main` is not linked: the
/// target's main.swift calls the driver instead.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
