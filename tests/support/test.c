#include "test.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>

int ap_test_passed, ap_test_failed;

int ap_test_done(void) {
  printf("%d passed, %d failed\n", ap_test_passed, ap_test_failed);
  return ap_test_failed ? 1 : 0;
}

const char *ap_test_shared(void) {
  const char *env = getenv("AP_SHARED");
  return env && *env ? env : AP_SHARED_DIR;
}

void ap_test_require_shared(void) {
  char p[4096];
  struct stat st;
  snprintf(p, sizeof p, "%s/models/MANIFEST.tsv", ap_test_shared());
  if (stat(p, &st) != 0) {
    printf("SKIPPED: this test needs the shared data folder, not found at %s "
           "(set AP_SHARED or place shared/ beside the project)\n",
           ap_test_shared());
    exit(77);
  }
}

const char *ap_test_path(char *buf, size_t size, const char *fmt, ...) {
  int n = snprintf(buf, size, "%s/", ap_test_shared());
  va_list ap;
  va_start(ap, fmt);
  if (n > 0 && (size_t)n < size) vsnprintf(buf + n, size - (size_t)n, fmt, ap);
  va_end(ap);
  return buf;
}

static int cmp_name(const void *a, const void *b) {
  return strcmp(a, b);
}

size_t ap_test_models(char names[][64], size_t max) {
  char dir[4096];
  ap_test_path(dir, sizeof dir, "models");
  DIR *d = opendir(dir);
  if (!d) return 0;
  size_t n = 0;
  struct dirent *e;
  while ((e = readdir(d)) && n < max) {
    size_t len = strlen(e->d_name);
    if (len > 7 && len < 64 && strcmp(e->d_name + len - 7, ".tflite") == 0)
      memcpy(names[n++], e->d_name, len + 1);
  }
  closedir(d);
  qsort(names, n, sizeof names[0], cmp_name);
  return n;
}

uint8_t *ap_test_read_file(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  if (fseek(f, 0, SEEK_END) != 0) {
    fclose(f);
    return NULL;
  }
  long len = ftell(f);
  rewind(f);
  if (len < 0) {
    fclose(f);
    return NULL;
  }
  uint8_t *buf = aligned_alloc(16, ((size_t)len + 16) & ~(size_t)15);
  if (buf && fread(buf, 1, (size_t)len, f) != (size_t)len) {
    free(buf);
    buf = NULL;
  }
  fclose(f);
  if (buf && size) *size = (size_t)len;
  return buf;
}

int ap_test_run(const char *cmd, bool merge_stderr, char **out) {
  char full[8192];
  snprintf(full, sizeof full, "%s%s", cmd, merge_stderr ? " 2>&1" : "");
  FILE *p = popen(full, "r");
  if (!p) return -1;
  size_t cap = 4096, len = 0;
  char *buf = malloc(cap);
  size_t got;
  while (buf && (got = fread(buf + len, 1, cap - len - 1, p)) > 0) {
    len += got;
    if (cap - len < 2) {
      char *nb = realloc(buf, cap * 2);
      if (!nb) break;
      buf = nb;
      cap *= 2;
    }
  }
  if (buf) buf[len] = '\0';
  int st = pclose(p);
  if (out)
    *out = buf;
  else
    free(buf);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

const char *ap_test_cli(void) {
  const char *env = getenv("AP_CLI");
  return env && *env ? env : AP_BUILD_DIR "/arenaplan";
}

uint64_t ap_test_rand(uint64_t *s) {
  uint64_t x = *s ? *s : 0x9E3779B97F4A7C15ull;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *s = x;
  return x * 0x2545F4914F6CDD1Dull;
}

char *ap_test_tflm_field(const char *model, const char *col) {
  char path[4096];
  size_t size;
  char *text = (char *)ap_test_read_file(ap_test_path(path, sizeof path, "bench/tflm_arena.tsv"),
                                         &size);
  if (!text || size == 0) {
    free(text);
    return NULL;
  }
  text[size - 1] = '\0';
  char *save, *line = strtok_r(text, "\n", &save);
  int want = -1, k = 0;
  char *fs, *f = line ? strtok_r(line, "\t", &fs) : NULL;
  for (; f; f = strtok_r(NULL, "\t", &fs), k++)
    if (strcmp(f, col) == 0) want = k;
  char *result = NULL;
  while (want >= 0 && !result && (line = strtok_r(NULL, "\n", &save))) {
    k = 0;
    f = strtok_r(line, "\t", &fs);
    if (!f || strcmp(f, model) != 0) continue;
    for (; f; f = strtok_r(NULL, "\t", &fs), k++)
      if (k == want) result = strdup(f);
  }
  free(text);
  return result;
}

long long ap_test_tflm_value(const char *model, const char *col) {
  char *f = ap_test_tflm_field(model, col), *end = NULL;
  long long v = f ? strtoll(f, &end, 10) : -1;
  if (f && (end == f || *end)) v = -1;
  free(f);
  return v;
}

const char *ap_test_thousands(char *buf, size_t size, uint64_t v) {
  char d[32];
  int n = snprintf(d, sizeof d, "%llu", (unsigned long long)v), o = 0;
  for (int i = 0; i < n && (size_t)o + 2 < size; i++) {
    if (i && (n - i) % 3 == 0) buf[o++] = ',';
    buf[o++] = d[i];
  }
  buf[o] = '\0';
  return buf;
}
