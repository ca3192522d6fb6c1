/* MiniMalloc's CSV problems: "id,lower,upper,size", one buffer per line, live over the
 * half-open [lower, upper), so a request's last step is upper - 1. A header line is optional.
 * One pass, no allocation per line: a million lines parse in well under a second. */
#include "plan/problem.h"
#include "plan/sort.h"

#include <string.h>

typedef struct field {
  const char *s;
  size_t len;
} field;

static bool is_space(char c) {
  return c == ' ' || c == '\t';
}

static field trim(const char *s, size_t len) {
  while (len && is_space(*s))
    s++, len--;
  while (len && (is_space(s[len - 1]) || s[len - 1] == '\r'))
    len--;
  return (field){s, len};
}

/* 0: ok; 1: not a number; 2: larger than max. */
static int parse_u64(field f, uint64_t max, uint64_t *out) {
  if (f.len == 0) return 1;
  uint64_t v = 0;
  for (size_t i = 0; i < f.len; i++) {
    char c = f.s[i];
    if (c < '0' || c > '9') return 1;
    if (v > (UINT64_MAX - (uint64_t)(c - '0')) / 10) {
      for (size_t j = i + 1; j < f.len; j++)
        if (f.s[j] < '0' || f.s[j] > '9') return 1;
      return 2;
    }
    v = v * 10 + (uint64_t)(c - '0');
  }
  if (v > max) return 2;
  *out = v;
  return 0;
}

static bool is_header(field f) {
  return f.len == 2 && (f.s[0] == 'i' || f.s[0] == 'I') && (f.s[1] == 'd' || f.s[1] == 'D');
}

/* The shown text of a bad field, cut short so one silly line cannot flood the message. */
#define SHOW(f) (int)((f).len > 40 ? 40 : (f).len), (f).s, ((f).len > 40 ? "..." : "")

static ap_status number(ap_errbuf *err, size_t line, const char *name, field f, uint64_t min,
                        uint64_t max, uint64_t *out) {
  int r = parse_u64(f, max, out);
  if (r == 0 && *out >= min) return AP_OK;
  const char *kind = min ? "a positive integer" : "a non-negative integer";
  if (r == 2)
    return ap_fail(err, AP_ERR_FORMAT, "line %zu: %s \"%.*s%s\" is out of range (at most %llu)",
                   line, name, SHOW(f), (unsigned long long)max);
  return ap_fail(err, AP_ERR_FORMAT, "line %zu: %s \"%.*s%s\" is not %s", line, name, SHOW(f),
                 kind);
}

/* Times may be negative: TFLite Micro gives buffers of subgraphs that never run step -1. */
static ap_status step(ap_errbuf *err, size_t line, const char *name, field f, int64_t min,
                      int64_t max, int64_t *out) {
  field digits = f;
  bool neg = f.len > 0 && f.s[0] == '-';
  if (neg) digits.s++, digits.len--;
  uint64_t v;
  int r = parse_u64(digits, (uint64_t)1 << 40, &v);
  if (r == 1)
    return ap_fail(err, AP_ERR_FORMAT, "line %zu: %s \"%.*s%s\" is not an integer", line, name,
                   SHOW(f));
  int64_t x = neg ? -(int64_t)v : (int64_t)v;
  if (r == 2 || x < min || x > max)
    return ap_fail(err, AP_ERR_FORMAT, "line %zu: %s \"%.*s%s\" is out of range (%lld to %lld)",
                   line, name, SHOW(f), (long long)min, (long long)max);
  *out = x;
  return AP_OK;
}

/* MiniMalloc's examples name their buffers ("b1"); a name never looks like a number. */
#define NAME_MAX_LEN 255

static bool all_digits(field f) {
  for (size_t i = 0; i < f.len; i++)
    if (f.s[i] < '0' || f.s[i] > '9') return false;
  return f.len > 0;
}

static bool is_name(field f) {
  if (f.len == 0 || f.len > NAME_MAX_LEN) return false;
  for (size_t i = 0; i < f.len; i++)
    if (f.s[i] < 0x21 || f.s[i] > 0x7e || f.s[i] == '"') return false;
  return true;
}

/* Room for one more name of `len` bytes, and a name slot for every request. */
static ap_status ensure_names(ap_problem *p, size_t len) {
  if (!p->name_at) {
    size_t cap = p->cap > p->n ? p->cap : p->n + 1;
    p->name_at = ap_calloc(p->alloc, cap, sizeof *p->name_at);
    if (!p->name_at) return AP_ERR_NOMEM;
    for (size_t i = 0; i < cap; i++)
      p->name_at[i] = SIZE_MAX;
    if (p->cap < cap) { /* keep req and name_at the same capacity */
      ap_request *nr = ap_calloc(p->alloc, cap, sizeof *nr);
      if (!nr) return AP_ERR_NOMEM;
      if (p->n) memcpy(nr, p->req, p->n * sizeof *nr);
      ap_free(p->alloc, p->req);
      p->req = nr;
      p->cap = cap;
    }
  }
  if (p->names_cap - p->names_len < len + 1) {
    size_t cap = p->names_cap ? p->names_cap : 256;
    while (cap - p->names_len < len + 1)
      if (!ap_mul_size(cap, 2, &cap)) return AP_ERR_NOMEM;
    char *nn = ap_alloc(p->alloc, cap);
    if (!nn) return AP_ERR_NOMEM;
    if (p->names_len) memcpy(nn, p->names, p->names_len);
    ap_free(p->alloc, p->names);
    p->names = nn;
    p->names_cap = cap;
  }
  return AP_OK;
}

static ap_status parse_line(ap_problem *p, const char *s, size_t len, size_t line) {
  field f[4];
  size_t nf = 0, start = 0;
  for (size_t i = 0; i <= len; i++) {
    if (i == len || s[i] == ',') {
      if (nf == 4)
        return ap_fail(&p->err, AP_ERR_FORMAT,
                       "line %zu: more than 4 fields (expected id,lower,upper,size)", line);
      f[nf++] = trim(s + start, i - start);
      start = i + 1;
    }
  }
  if (nf < 4)
    return ap_fail(&p->err, AP_ERR_FORMAT,
                   "line %zu: %zu field%s, expected 4 (id,lower,upper,size)", line, nf,
                   nf == 1 ? "" : "s");
  uint64_t id = p->n, size;
  int64_t lower, upper;
  ap_status st;
  bool named = !all_digits(f[0]);
  if (named && !is_name(f[0]))
    return ap_fail(&p->err, AP_ERR_FORMAT,
                   "line %zu: id \"%.*s%s\" is neither a non-negative integer nor a name "
                   "(1 to %d printable ASCII characters, no '\"')",
                   line, SHOW(f[0]), NAME_MAX_LEN);
  if ((!named && (st = number(&p->err, line, "id", f[0], 0, UINT64_MAX, &id)) != AP_OK) ||
      (st = step(&p->err, line, "lower", f[1], INT32_MIN, INT32_MAX, &lower)) != AP_OK ||
      (st = step(&p->err, line, "upper", f[2], (int64_t)INT32_MIN + 1, (int64_t)INT32_MAX + 1,
                 &upper)) != AP_OK ||
      (st = number(&p->err, line, "size", f[3], 1, UINT64_MAX, &size)) != AP_OK)
    return st;
  if (lower >= upper)
    return ap_fail(&p->err, AP_ERR_FORMAT, "line %zu: lower %lld >= upper %lld", line,
                   (long long)lower, (long long)upper);
  ap_request r = {id, size, (int32_t)lower, (int32_t)(upper - 1)};
  if (named && (st = ensure_names(p, f[0].len)) != AP_OK)
    return ap_fail(&p->err, st, "line %zu: out of memory for names", line);
  st = ap_problem_add(p, &r);
  if (st != AP_OK) {
    ap_errbuf e = p->err;
    return ap_fail(&p->err, st, "line %zu: %s", line, e.msg);
  }
  if (named) {
    p->name_at[p->n - 1] = p->names_len;
    memcpy(p->names + p->names_len, f[0].s, f[0].len);
    p->names[p->names_len + f[0].len] = '\0';
    p->names_len += f[0].len + 1;
  }
  return AP_OK;
}

static const char *name_of(const ap_problem *p, size_t i) {
  return p->name_at && p->name_at[i] != SIZE_MAX ? p->names + p->name_at[i] : NULL;
}

/* 64-bit FNV-1a: names are sorted by it, then compared in full within equal hashes. */
static uint64_t hash(const char *s) {
  uint64_t h = 0xcbf29ce484222325u;
  for (; *s; s++)
    h = (h ^ (uint8_t)*s) * 0x100000001b3u;
  return h;
}

/* Ids (and names) must be unique within the file: sort (key, line) and report the earliest
 * repeat. Numeric ids and names are checked apart (a named request's id is its index). */
static ap_status check_duplicates(ap_problem *p, size_t from, const size_t *lines) {
  size_t n = p->n - from;
  if (n < 2) return AP_OK;
  ap_kv *v = ap_calloc(p->alloc, n, sizeof *v);
  if (!v) return ap_fail(&p->err, AP_ERR_NOMEM, "out of memory checking %zu ids", n);
  ap_status st = AP_OK;
  size_t bad = SIZE_MAX, first = 0;
  for (int named = 0; named < 2 && st == AP_OK; named++) {
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
      const char *nm = name_of(p, from + i);
      if ((nm != NULL) == (named != 0))
        v[m++] = (ap_kv){nm ? hash(nm) : p->req[from + i].id, (uint32_t)i};
    }
    if ((st = ap_sort_kv(p->alloc, v, m)) != AP_OK) break;
    /* Stable sort: within a run of one key, earlier lines come first; the earliest equal one
     * is the first occurrence. */
    for (size_t i = 1, run = 0; i < m; i++) {
      if (v[i].key != v[i - 1].key) {
        run = i;
        continue;
      }
      for (size_t k = run; k < i; k++) {
        if (named && strcmp(name_of(p, from + v[k].idx), name_of(p, from + v[i].idx)) != 0)
          continue;
        if (bad == SIZE_MAX || lines[v[i].idx] < lines[bad]) {
          bad = v[i].idx;
          first = v[k].idx;
        }
        break;
      }
    }
  }
  if (st != AP_OK) st = ap_fail(&p->err, st, "out of memory checking %zu ids", n);
  if (st == AP_OK && bad != SIZE_MAX) {
    const char *nm = name_of(p, from + bad);
    if (nm)
      st = ap_fail(&p->err, AP_ERR_FORMAT, "line %zu: duplicate id %s (first on line %zu)",
                   lines[bad], nm, lines[first]);
    else
      st = ap_fail(&p->err, AP_ERR_FORMAT, "line %zu: duplicate id %llu (first on line %zu)",
                   lines[bad], (unsigned long long)p->req[from + bad].id, lines[first]);
  }
  ap_free(p->alloc, v);
  return st;
}

ap_status ap_problem_parse_csv(ap_problem *p, const char *text, size_t len) {
  if (!p) return AP_ERR_ARG;
  if (!text && len) return ap_fail(&p->err, AP_ERR_ARG, "CSV text is NULL");
  size_t from = p->n, names_len = p->names_len;
  uint64_t total = p->total;
  size_t *lines = NULL, lines_cap = 0;
  ap_status st = AP_OK;
  size_t line = 0, pos = 0;
  bool seen_data = false;
  while (pos < len && st == AP_OK) {
    const char *nl = memchr(text + pos, '\n', len - pos);
    size_t end = nl ? (size_t)(nl - text) : len;
    line++;
    field whole = trim(text + pos, end - pos);
    const char *comma = memchr(whole.s, ',', whole.len);
    field first = trim(whole.s, comma ? (size_t)(comma - whole.s) : whole.len);
    pos = end + 1;
    if (whole.len == 0) continue;
    if (!seen_data && is_header(first)) {
      seen_data = true;
      continue;
    }
    seen_data = true;
    if (p->n - from == lines_cap) {
      size_t cap = lines_cap ? lines_cap * 2 : 1024;
      size_t *nl2 = ap_calloc(p->alloc, cap, sizeof *nl2);
      if (!nl2) {
        st = ap_fail(&p->err, AP_ERR_NOMEM, "out of memory at line %zu", line);
        break;
      }
      if (lines_cap) memcpy(nl2, lines, lines_cap * sizeof *lines);
      ap_free(p->alloc, lines);
      lines = nl2;
      lines_cap = cap;
    }
    lines[p->n - from] = line;
    st = parse_line(p, whole.s, whole.len, line);
  }
  if (st == AP_OK) st = check_duplicates(p, from, lines);
  ap_free(p->alloc, lines);
  if (st != AP_OK) { /* all or nothing: the problem is as it was before the call */
    p->n = from;
    p->total = total;
    p->names_len = names_len;
    for (size_t i = from; p->name_at && i < p->cap; i++)
      p->name_at[i] = SIZE_MAX;
  }
  return st;
}
