/* A model read without verification, for a device whose plan (made on the host, where the
 * same bytes were verified) vouches for it: src/runtime/planned.c checks the plan's
 * fingerprint of the bytes first. */
#ifndef AP_MODEL_TRUSTED_H
#define AP_MODEL_TRUSTED_H

#include "arenaplan/model.h"

#include <stdint.h>

/* The model handle in `mem` (at least ap_model_trusted_bytes(), 8-byte aligned): no allocator,
 * nothing to destroy. Checks only the header (identifier, root offset) and the top-level
 * vectors' bounds. */
size_t ap_model_trusted_bytes(void);
ap_status ap_model_open_trusted(const void *data, size_t size, void *mem, ap_model **out);

/* The plan's fingerprint of a model's bytes: FNV-1a over 32-bit little-endian words (the
 * last 0-3 bytes zero-padded), seeded with the size. Fast enough for a boot (about one
 * multiply per word). */
uint32_t ap_model_fingerprint(const void *data, size_t size);

#endif
