/* The structural FlatBuffers verifier, driven by the schema descriptors of schema_gen.c: every
 * offset, vtable, table, vector, string and union of a table tree lies inside the buffer, is
 * aligned, and its size arithmetic does not overflow. It reads nothing's meaning (verify.c
 * checks indices and sizes afterwards). */
#ifndef AP_MODEL_VERIFY_FB_H
#define AP_MODEL_VERIFY_FB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Deeper than any table tree of the TFLite schema, shallow enough for hostile input. */
#define FB_MAX_DEPTH 32

typedef struct fb_verifier {
  const uint8_t *b;
  size_t size;
  /* Tables and items visited. Offsets may be shared (a DAG), so a small file could make a
   * naive walk revisit the same big vector millions of times; the walk stops at this limit. */
  uint64_t work, work_limit;
  unsigned depth;
  struct {
    const char *name;
    int64_t index;
  } path[FB_MAX_DEPTH * 2 + 2];
  unsigned npath;
  char msg[400]; /* on failure: "PATH: what is wrong" */
} fb_verifier;

/* Prepares a verifier over b[0..size) with a work limit proportional to the size. */
void fb_verifier_init(fb_verifier *v, const uint8_t *b, size_t size);
/* Verifies the table tree rooted at `pos` (a table of type table_id); false with v->msg. */
bool fb_verify_table(fb_verifier *v, size_t pos, unsigned table_id);
/* Counts `n` items of semantic work against the same limit; false with v->msg past it. */
bool fb_verifier_spend(fb_verifier *v, uint64_t n);

#endif
