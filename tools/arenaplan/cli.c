#include "cli.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int cli_fail(const char *what, const char *fmt, ...) {
  fprintf(stderr, "arenaplan: %s: ", what);
  va_list ap;
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  return AP_EXIT_USAGE;
}

/* The option an "unknown option X" or "unexpected argument 'X'" message is about, quotes
 * stripped, in buf; NULL for any other message. Every command words its error so, which
 * lets one place suggest the nearest option for all of them. */
static const char *rejected_option(const char *msg, char *buf, size_t size) {
  static const char *const lead[] = {"unknown option ", "unexpected argument ",
                                     "unknown or incomplete option "};
  for (size_t i = 0; i < 3; i++) {
    size_t n = strlen(lead[i]);
    if (strncmp(msg, lead[i], n) != 0) continue;
    const char *p = msg + n;
    if (*p == '\'' || *p == '"') p++;
    size_t len = strcspn(p, "'\" ");
    if (*p != '-' || len == 0 || len >= size) return NULL;
    memcpy(buf, p, len);
    buf[len] = '\0';
    return buf;
  }
  return NULL;
}

int cli_usage_error(const ap_command *cmd, const char *fmt, ...) {
  char msg[512], opt[64];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  fprintf(stderr, "arenaplan: %s: %s", cmd->name, msg);
  const char *bad = rejected_option(msg, opt, sizeof opt);
  const char *near = bad ? cli_suggest_option(cmd, bad) : NULL;
  if (near) fprintf(stderr, " (did you mean %s?)", near);
  fprintf(stderr, "\n(see 'arenaplan %s --help')\n", cmd->name);
  return AP_EXIT_USAGE;
}

bool cli_wants_help(const ap_command *cmd, int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--") == 0) break;
    if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
      cli_print_help(cmd, stdout);
      return true;
    }
  }
  return false;
}

const char *cli_thousands(char *buf, size_t size, uint64_t v) {
  char digits[32];
  int n = snprintf(digits, sizeof digits, "%llu", (unsigned long long)v);
  size_t o = 0;
  for (int i = 0; i < n && o + 1 < size; i++) {
    if (i > 0 && (n - i) % 3 == 0 && o + 2 < size) buf[o++] = ',';
    buf[o++] = digits[i];
  }
  buf[o] = '\0';
  return buf;
}

const char *cli_size(char *buf, size_t size, uint64_t bytes) {
  char t[32];
  cli_thousands(t, sizeof t, bytes);
  static const char *units[] = {"KiB", "MiB", "GiB", "TiB"};
  if (bytes < 1024) {
    snprintf(buf, size, "%s B", t);
    return buf;
  }
  double v = (double)bytes / 1024.0;
  int u = 0;
  while (v >= 1024.0 && u < 3) {
    v /= 1024.0;
    u++;
  }
  snprintf(buf, size, "%s B (%.1f %s)", t, v, units[u]);
  return buf;
}

bool cli_parse_uint(const char *s, uint64_t max, uint64_t *out) {
  if (!s || !isdigit((unsigned char)*s)) return false;
  errno = 0;
  char *end;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno || *end || v > max) return false;
  *out = v;
  return true;
}

bool cli_parse_size(const char *s, uint64_t *out) { return ap_parse_size(s, out); }

void cli_budget_line(FILE *f, uint64_t needs, uint64_t budget, const char *what) {
  char s1[32], s2[32], s3[32];
  if (needs <= budget)
    fprintf(f, "fits: needs %s B, budget %s B (%s B to spare): %s\n",
            cli_thousands(s1, sizeof s1, needs), cli_thousands(s2, sizeof s2, budget),
            cli_thousands(s3, sizeof s3, budget - needs), what);
  else
    fprintf(f, "does not fit: needs %s B, budget %s B (short by %s B): %s\n",
            cli_thousands(s1, sizeof s1, needs), cli_thousands(s2, sizeof s2, budget),
            cli_thousands(s3, sizeof s3, needs - budget), what);
}

void cli_json_string(FILE *f, const char *s) {
  fputc('"', f);
  for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
    if (*p == '"' || *p == '\\')
      fprintf(f, "\\%c", *p);
    else if (*p < 0x20)
      fprintf(f, "\\u%04x", *p);
    else
      fputc(*p, f);
  }
  fputc('"', f);
}

const char *cli_unprefixed(const char *path, const char *msg) {
  size_t n = strlen(path);
  if (strncmp(msg, path, n) == 0 && msg[n] == ':' && msg[n + 1] == ' ') msg += n + 2;
  return msg;
}

ap_model *cli_open_model(const char *path) {
  ap_model *m = NULL;
  if (ap_model_open(path, NULL, &m) == AP_OK) return m;
  cli_fail(path, "%s", cli_unprefixed(path, ap_model_error(m)));
  ap_model_destroy(m);
  return NULL;
}

bool cli_parse_rules(const char *s, ap_rules *out) {
  static const ap_rules all[] = {AP_RULES_ARENAPLAN, AP_RULES_TFLITE, AP_RULES_TFLM};
  for (size_t i = 0; i < 3; i++)
    if (strcmp(s, ap_rules_name(all[i])) == 0) {
      *out = all[i];
      return true;
    }
  return false;
}

bool cli_check_strategy(const ap_command *cmd, const char *name) {
  for (size_t i = 0; i < ap_strategy_count(); i++)
    if (strcmp(ap_strategy_name(i), name) == 0) return true;
  fprintf(stderr, "arenaplan: %s: unknown strategy \"%s\"; one of:", cmd->name, name);
  for (size_t i = 0; i < ap_strategy_count(); i++)
    fprintf(stderr, " %s", ap_strategy_name(i));
  fputc('\n', stderr);
  return false;
}

const char *cli_value(const ap_command *cmd, int argc, char **argv, int *i) {
  if (*i + 1 >= argc) {
    cli_usage_error(cmd, "%s needs a value", argv[*i]);
    return NULL;
  }
  *i += 1;
  return argv[*i];
}

const char *cli_shape(char *buf, size_t size, ap_ivec shape) {
  size_t o = 0;
  buf[0] = '\0';
  o += (size_t)snprintf(buf + o, size - o, "[");
  for (size_t i = 0; i < shape.n && o < size; i++)
    o += (size_t)snprintf(buf + o, size - o, "%s%d", i ? "," : "", shape.v[i]);
  if (o < size) snprintf(buf + o, size - o, "]");
  return buf;
}

bool cli_write_file(const char *path, const void *bytes, size_t size) {
  FILE *f = fopen(path, "wb");
  bool ok = f && fwrite(bytes, 1, size, f) == size;
  if (f && fclose(f) != 0) ok = false;
  if (!ok) cli_fail(path, "cannot write: %s", strerror(errno));
  return ok;
}
