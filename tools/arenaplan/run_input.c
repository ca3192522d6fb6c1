/* `arenaplan run` inputs: the oracle's seeded random rule, or raw files. */
#include "run.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

/* xorshift64*: the generator the oracle README specifies, state per input tensor. */
static uint64_t next_draw(uint64_t *x) {
  *x ^= *x >> 12;
  *x ^= *x << 25;
  *x ^= *x >> 27;
  return *x * 0x2545F4914F6CDD1DULL;
}

void run_fill_random(ap_tensor *t, uint64_t seed, uint64_t k) {
  if (!t->data || !t->bytes) return;
  uint64_t x = (seed + k) * 0x9E3779B97F4A7C15ULL + 1;
  unsigned char *p = t->data;
  size_t n;
  switch (t->type) {
  case AP_INT8:
  case AP_UINT8:
  case AP_BOOL: n = t->bytes; break;
  case AP_INT16: n = t->bytes / 2; break;
  case AP_INT32:
  case AP_FLOAT32: n = t->bytes / 4; break;
  default: memset(p, 0, t->bytes); return;
  }
  for (size_t i = 0; i < n; i++) {
    uint64_t r = next_draw(&x);
    switch (t->type) {
    case AP_INT8:
    case AP_UINT8: p[i] = (unsigned char)(r >> 56); break;
    case AP_BOOL: p[i] = (unsigned char)(r >> 63); break;
    case AP_INT16: {
      int16_t v = (int16_t)(uint16_t)(r >> 48);
      memcpy(p + 2 * i, &v, 2);
      break;
    }
    case AP_INT32: {
      int32_t v = (int32_t)((r >> 32) % 201) - 100;
      memcpy(p + 4 * i, &v, 4);
      break;
    }
    default: {
      /* (r >> 40) has 24 bits, so the division and the scaling are exact in float. */
      float v = ((float)(r >> 40) / 16777216.0f) * 2 - 1;
      memcpy(p + 4 * i, &v, 4);
      break;
    }
    }
  }
}

bool run_read_input(const char *path, ap_tensor *t, size_t k) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    cli_fail(path, "cannot open: %s", strerror(errno));
    return false;
  }
  struct stat st;
  char shape[128];
  if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
    fclose(f);
    cli_fail(path, "not a regular file");
    return false;
  }
  if ((uint64_t)st.st_size != t->bytes) {
    fclose(f);
    cli_fail(path, "is %llu bytes, but input %zu (\"%s\", %s %s) takes %zu bytes",
             (unsigned long long)st.st_size, k, t->name ? t->name : "", ap_dtype_name(t->type),
             run_shape(shape, sizeof shape, t), t->bytes);
    return false;
  }
  size_t got = t->bytes ? fread(t->data, 1, t->bytes, f) : 0;
  fclose(f);
  if (got != t->bytes) {
    cli_fail(path, "read %zu of %zu bytes", got, t->bytes);
    return false;
  }
  return true;
}

bool run_make_dir(const char *dir) {
  struct stat st;
  if (stat(dir, &st) == 0) {
    if (S_ISDIR(st.st_mode)) return true;
    cli_fail(dir, "exists and is not a directory");
    return false;
  }
  if (mkdir(dir, 0777) != 0) {
    cli_fail(dir, "cannot create directory: %s", strerror(errno));
    return false;
  }
  return true;
}

bool run_write_tensor(const char *dir, const char *prefix, size_t k, const void *data,
                      size_t bytes) {
  char path[4096];
  int n = snprintf(path, sizeof path, "%s/%s%zu.bin", dir, prefix, k);
  if (n < 0 || (size_t)n >= sizeof path) {
    cli_fail(dir, "path too long");
    return false;
  }
  FILE *f = fopen(path, "wb");
  if (!f) {
    cli_fail(path, "cannot create: %s", strerror(errno));
    return false;
  }
  bool ok = !bytes || fwrite(data, 1, bytes, f) == bytes;
  if (fclose(f) != 0) ok = false;
  if (!ok) cli_fail(path, "write failed: %s", strerror(errno));
  return ok;
}
