/* The host's memory section of the port layer: physical RAM and the cgroup memory limits
 * that bound this process (a container's or a systemd unit's), for a default budget. */
#ifndef AP_PORT_NONE
#include "port/port.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

uint64_t ap_port_physical_memory(void) {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  uint64_t bytes;
  if (pages <= 0 || page <= 0 || !ap_mul_u64((uint64_t)pages, (uint64_t)page, &bytes)) return 0;
  return bytes;
}

/* Limits at or above 2^62 bytes are "no limit" (cgroup v1 writes LONG_MAX rounded to a page). */
#define NO_LIMIT (UINT64_C(1) << 62)

/* The limit in one control file: 0 when absent, "max" or unlimited. */
static uint64_t read_limit(const char *file) {
  FILE *f = fopen(file, "r");
  if (!f) return 0;
  char buf[64];
  uint64_t v = 0;
  if (fgets(buf, sizeof buf, f) && buf[0] >= '0' && buf[0] <= '9') {
    char *end;
    unsigned long long x = strtoull(buf, &end, 10);
    if ((*end == '\n' || *end == 0) && x < NO_LIMIT) v = (uint64_t)x;
  }
  fclose(f);
  return v;
}

/* The smallest limit of `file` in the cgroup at `dir` (under `mount`) and its ancestors: a
 * parent's limit bounds its children. */
static uint64_t walk_up(const char *mount, const char *dir, const char *file) {
  char path[4096], d[4096];
  if (snprintf(d, sizeof d, "%s", dir) >= (int)sizeof d) return 0;
  uint64_t best = 0;
  for (;;) {
    size_t n = strlen(d);
    while (n > 0 && d[n - 1] == '/')
      d[--n] = 0; /* "/a/b/" -> "/a/b", "/" -> "" */
    if (snprintf(path, sizeof path, "%s%s/%s", mount, d, file) < (int)sizeof path) {
      uint64_t v = read_limit(path);
      if (v && (!best || v < best)) best = v;
    }
    if (n == 0) break;
    char *slash = strrchr(d, '/');
    if (!slash) break;
    *slash = 0;
  }
  return best;
}

static bool has_memory(const char *controllers) {
  for (const char *c = controllers; *c;) {
    size_t n = strcspn(c, ",");
    if (n == 6 && strncmp(c, "memory", 6) == 0) return true;
    c += n;
    if (*c == ',') c++;
  }
  return false;
}

static uint64_t smaller(uint64_t a, uint64_t b) {
  return !a ? b : !b ? a : a < b ? a : b;
}

/* One line "hierarchy:controllers:path" (the path may itself hold ':'), NUL-terminated. */
static uint64_t line_limit(char *line, const char *root) {
  char mount[4096];
  char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
  if (!c2 || c2[1] != '/') return 0;
  *c1 = 0;
  *c2 = 0;
  const char *controllers = c1 + 1, *dir = c2 + 1;
  uint64_t best = 0;
  if (strcmp(line, "0") == 0 && *controllers == 0) {
    /* v2: mounted at the root (unified) or at root/unified (hybrid) */
    best = walk_up(root, dir, "memory.max");
    if (snprintf(mount, sizeof mount, "%s/unified", root) < (int)sizeof mount)
      best = smaller(best, walk_up(mount, dir, "memory.max"));
  } else if (has_memory(controllers)) {
    if (snprintf(mount, sizeof mount, "%s/memory", root) < (int)sizeof mount)
      best = walk_up(mount, dir, "memory.limit_in_bytes");
  }
  return best;
}

uint64_t ap_port_cgroup_memory_limit_text(const char *text, size_t len, const char *root) {
  char line[4096];
  uint64_t best = 0;
  for (size_t at = 0; at < len;) {
    const char *nl = memchr(text + at, '\n', len - at);
    size_t n = nl ? (size_t)(nl - (text + at)) : len - at;
    /* A line too long to be one we can read, or with a NUL inside, is skipped whole. */
    if (n < sizeof line && !memchr(text + at, 0, n)) {
      memcpy(line, text + at, n);
      line[n] = 0;
      best = smaller(best, line_limit(line, root));
    }
    at += n + 1;
  }
  return best;
}

uint64_t ap_port_cgroup_memory_limit(const char *cgroup_file, const char *root) {
  FILE *f = fopen(cgroup_file, "r");
  if (!f) return 0;
  /* /proc/self/cgroup has a line per hierarchy: a few hundred bytes. A longer file's last
   * line, cut by the buffer, is left out. */
  static const size_t cap = 16384;
  char text[16384];
  size_t n = fread(text, 1, cap, f);
  if (n == cap) {
    while (n > 0 && text[n - 1] != '\n')
      n--;
  }
  fclose(f);
  return ap_port_cgroup_memory_limit_text(text, n, root);
}
#endif
