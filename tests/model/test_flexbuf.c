/* The FlexBuffers reader on blobs laid out by hand here (maps, typed, fixed and untyped
 * vectors, bools, floats, indirect values, strings, a nested map) at every slot width 1, 2,
 * 4 and 8, then on hostile blobs: every truncation, offsets pointing outside or past the
 * start, huge lengths, bad widths and types. Every blob is copied to a heap block of its exact
 * size, so a read one byte out of bounds is an ASan report in the sanitizer build.
 *
 * Layout reminder: a value slot holds an inline scalar or an unsigned offset back to its data;
 * vectors carry their length in the width-sized slot before element 0, untyped vectors and maps
 * one packed type byte (type << 2 | log2 width) per element after the elements; a map also has,
 * before its length, the keys vector's width and before that the offset to the keys vector;
 * the blob ends with the root's slot, its packed type and its width. */
#include "model/flexbuf.h"
#include "test.h"

#include <stdlib.h>

typedef struct {
  uint8_t b[2048];
  size_t n;
} blob;

static size_t put(blob *x, uint64_t v, unsigned w) {
  size_t at = x->n;
  for (unsigned i = 0; i < w; i++)
    x->b[x->n++] = (uint8_t)(v >> (8 * i));
  return at;
}
static size_t put_f32(blob *x, float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return put(x, u, 4);
}
static size_t put_f64(blob *x, double f) {
  uint64_t u;
  memcpy(&u, &f, 8);
  return put(x, u, 8);
}
/* A slot of width w at the end holding the offset back to `target`. */
static size_t put_off(blob *x, size_t target, unsigned w) {
  return put(x, x->n - target, w);
}
static size_t put_key(blob *x, const char *s) {
  size_t at = x->n;
  memcpy(x->b + x->n, s, strlen(s) + 1);
  x->n += strlen(s) + 1;
  return at;
}
static size_t put_str(blob *x, const char *s, unsigned w) {
  put(x, strlen(s), w);
  return put_key(x, s);
}
static uint8_t packed(unsigned type, unsigned w) {
  return (uint8_t)(type << 2 | (w == 1 ? 0 : w == 2 ? 1 : w == 4 ? 2 : 3));
}
static void put_root(blob *x, size_t target, unsigned type, unsigned child_w, unsigned w) {
  put_off(x, target, w);
  put(x, packed(type, child_w), 1);
  put(x, w, 1);
}

/* An exact-size heap copy, so ASan sees any overread. */
static uint8_t *exact(const uint8_t *p, size_t n) {
  uint8_t *c = malloc(n ? n : 1);
  if (n) memcpy(c, p, n);
  return c;
}

/* One map entry: inline bits, or an offset to `target` (offset types). */
typedef struct {
  const char *key;
  unsigned type, child_w;
  bool is_off;
  uint64_t bits;
  size_t target;
} entry;

/* Keys (sorted by the caller), keys vector, then the map; returns the map's data position. */
static size_t put_map(blob *x, const entry *e, size_t n, unsigned w) {
  size_t kpos[16];
  for (size_t i = 0; i < n; i++)
    kpos[i] = put_key(x, e[i].key);
  put(x, n, w);
  size_t keys = x->n;
  for (size_t i = 0; i < n; i++)
    put_off(x, kpos[i], w);
  put_off(x, keys, w);
  put(x, w, w);
  put(x, n, w);
  size_t vals = x->n;
  for (size_t i = 0; i < n; i++) {
    if (e[i].is_off)
      put_off(x, e[i].target, w);
    else
      put(x, e[i].bits, w);
  }
  for (size_t i = 0; i < n; i++)
    put(x, packed(e[i].type, e[i].child_w), 1);
  return vals;
}

static int64_t get_int(const ap_flex *m, const char *k) {
  ap_flex v;
  int64_t out = -999;
  ap_errbuf err;
  if (!ap_flex_map_find(m, k, &v)) return -998;
  if (ap_flex_as_int(&v, &out, &err) != AP_OK) return -997;
  return out;
}
static double get_float(const ap_flex *m, const char *k) {
  ap_flex v;
  double out = -999;
  if (!ap_flex_map_find(m, k, &v) || ap_flex_as_float(&v, &out, NULL) != AP_OK) return -998;
  return out;
}

/* The big map at slot width w; returns its size. */
static size_t build_map(blob *x, unsigned w) {
  x->n = 0;
  size_t f = put_f32(x, 2.5f);
  size_t ind = put(x, (uint64_t)(int64_t)-3, 8);
  size_t s = put_str(x, "hello", w);
  put(x, 3, 2); /* typed int vector, width 2: [1, -1, 3] */
  size_t vec = put(x, 1, 2);
  put(x, 0xffff, 2);
  put(x, 3, 2);
  size_t half = put_f64(x, 0.5);
  entry inner[] = {{"x", AP_FLEX_INDIRECT_FLOAT, 8, true, 0, half}};
  size_t m = put_map(x, inner, 1, w);
  entry e[] = {
      {"bool", AP_FLEX_BOOL, 1, false, 1, 0},
      {"f", AP_FLEX_INDIRECT_FLOAT, 4, true, 0, f},
      {"i", AP_FLEX_INT, 1, false, 100, 0},
      {"ind", AP_FLEX_INDIRECT_INT, 8, true, 0, ind},
      {"m", AP_FLEX_MAP, w, true, 0, m},
      {"neg", AP_FLEX_INT, 1, false, (uint64_t)(int64_t)-2, 0},
      {"s", AP_FLEX_STRING, w, true, 0, s},
      {"u", AP_FLEX_UINT, 1, false, 200, 0},
      {"vec", AP_FLEX_VECTOR_INT, 2, true, 0, vec},
  };
  size_t map = put_map(x, e, sizeof e / sizeof e[0], w);
  put_root(x, map, AP_FLEX_MAP, w, w);
  return x->n;
}

static void test_map(unsigned w) {
  blob x;
  size_t n = build_map(&x, w);
  uint8_t *b = exact(x.b, n);
  ap_flex root, v, e;
  ap_errbuf err;
  CHECK_EQ(ap_flex_root(b, n, &root, &err), AP_OK);
  CHECK_EQ(root.type, AP_FLEX_MAP);
  size_t len = 0;
  CHECK_EQ(ap_flex_length(&root, &len, &err), AP_OK);
  CHECK_EQ(len, 9);
  CHECK_EQ(get_int(&root, "i"), 100);
  CHECK_EQ(get_int(&root, "neg"), -2);
  CHECK_EQ(get_int(&root, "u"), 200);
  CHECK_EQ(get_int(&root, "ind"), -3);
  CHECK_EQ(get_int(&root, "bool"), 1);
  CHECK_EQ(get_int(&root, "f"), 2); /* a float as an int truncates */
  CHECK(get_float(&root, "f") == 2.5);
  CHECK(get_float(&root, "i") == 100.0);
  CHECK_EQ(get_int(&root, "absent"), -998);
  CHECK_EQ(get_int(&root, ""), -998);
  CHECK_EQ(get_int(&root, "vecc"), -998);
  CHECK_EQ(get_int(&root, "s"), -997); /* a string is not a number */
  bool bo = false;
  CHECK(ap_flex_map_find(&root, "bool", &v) && ap_flex_as_bool(&v, &bo, &err) == AP_OK && bo);
  CHECK(ap_flex_map_find(&root, "i", &v) && ap_flex_as_bool(&v, &bo, &err) == AP_OK && bo);

  const char *s = NULL;
  CHECK(ap_flex_map_find(&root, "s", &v));
  CHECK_EQ(ap_flex_as_string(&v, &s, &len, &err), AP_OK);
  CHECK(len == 5 && s && memcmp(s, "hello", 5) == 0);
  CHECK_EQ(ap_flex_as_string(&root, &s, &len, &err), AP_ERR_FORMAT);

  CHECK(ap_flex_map_find(&root, "vec", &v));
  CHECK_EQ(ap_flex_length(&v, &len, &err), AP_OK);
  CHECK_EQ(len, 3);
  int64_t iv = 0;
  CHECK(ap_flex_at(&v, 1, &e, &err) == AP_OK && ap_flex_as_int(&e, &iv, &err) == AP_OK);
  CHECK_EQ(iv, -1);
  CHECK(ap_flex_at(&v, 2, &e, &err) == AP_OK && ap_flex_as_int(&e, &iv, &err) == AP_OK);
  CHECK_EQ(iv, 3);
  CHECK_EQ(ap_flex_at(&v, 3, &e, &err), AP_ERR_RANGE);
  CHECK_CONTAINS(err.msg, "index 3");

  CHECK(ap_flex_map_find(&root, "m", &v));
  CHECK_EQ(v.type, AP_FLEX_MAP);
  CHECK(get_float(&v, "x") == 0.5);
  CHECK_EQ(ap_flex_map_key(&root, 4, &s, &len, &err), AP_OK);
  CHECK(len == 1 && s[0] == 'm' && s[1] == 0);
  CHECK_EQ(ap_flex_map_key(&root, 9, &s, &len, &err), AP_ERR_RANGE);
  CHECK_EQ(ap_flex_map_key(&v, 0, &s, &len, &err), AP_OK);
  CHECK(len == 1 && s[0] == 'x');
  /* Values by position follow the keys' order. */
  CHECK(ap_flex_at(&root, 2, &e, &err) == AP_OK && ap_flex_as_int(&e, &iv, &err) == AP_OK);
  CHECK_EQ(iv, 100);
  free(b);

  /* Every truncation: the root moves, so reads either fail or stay inside; never a crash. */
  for (size_t cut = 0; cut < n; cut++) {
    uint8_t *t = exact(x.b, cut);
    if (ap_flex_root(t, cut, &root, NULL) == AP_OK) {
      (void)get_int(&root, "i");
      (void)get_float(&root, "f");
      if (ap_flex_map_find(&root, "m", &v)) (void)get_float(&v, "x");
      if (ap_flex_map_find(&root, "s", &v)) (void)ap_flex_as_string(&v, &s, &len, NULL);
    }
    free(t);
  }
}

static void test_scalars(void) {
  ap_errbuf err;
  ap_flex r;
  int64_t iv;
  double d;
  bool bo;
  { /* root int8 -5 */
    const uint8_t b[] = {0xfb, packed(AP_FLEX_INT, 1), 1};
    CHECK_EQ(ap_flex_root(b, sizeof b, &r, &err), AP_OK);
    CHECK(ap_flex_as_int(&r, &iv, &err) == AP_OK && iv == -5);
    CHECK(ap_flex_as_float(&r, &d, &err) == AP_OK && d == -5.0);
  }
  { /* root uint16 0xfffe, int16 -2 */
    const uint8_t b[] = {0xfe, 0xff, packed(AP_FLEX_UINT, 2), 2};
    CHECK(ap_flex_root(b, sizeof b, &r, &err) == AP_OK && ap_flex_as_int(&r, &iv, &err) == AP_OK);
    CHECK_EQ(iv, 0xfffe);
    const uint8_t c[] = {0xfe, 0xff, packed(AP_FLEX_INT, 2), 2};
    CHECK(ap_flex_root(c, sizeof c, &r, &err) == AP_OK && ap_flex_as_int(&r, &iv, &err) == AP_OK);
    CHECK_EQ(iv, -2);
  }
  { /* root float32 and float64 inline */
    blob x = {.n = 0};
    put_f32(&x, -1.75f);
    put(&x, packed(AP_FLEX_FLOAT, 4), 1);
    put(&x, 4, 1);
    CHECK(ap_flex_root(x.b, x.n, &r, &err) == AP_OK && ap_flex_as_float(&r, &d, &err) == AP_OK);
    CHECK(d == -1.75);
    CHECK(ap_flex_as_int(&r, &iv, &err) == AP_OK && iv == -1);
    CHECK(ap_flex_as_bool(&r, &bo, &err) == AP_OK && bo);
    x.n = 0;
    put_f64(&x, 1e300);
    put(&x, packed(AP_FLEX_FLOAT, 8), 1);
    put(&x, 8, 1);
    CHECK(ap_flex_root(x.b, x.n, &r, &err) == AP_OK && ap_flex_as_float(&r, &d, &err) == AP_OK);
    CHECK(d == 1e300);
    CHECK_EQ(ap_flex_as_int(&r, &iv, &err), AP_ERR_RANGE); /* out of int64 range */
    CHECK_CONTAINS(err.msg, "does not fit");
  }
  { /* uint64 max as int: range error; as float: fine */
    const uint8_t b[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, packed(AP_FLEX_UINT, 8),
                         8};
    CHECK_EQ(ap_flex_root(b, sizeof b, &r, &err), AP_OK);
    CHECK_EQ(ap_flex_as_int(&r, &iv, &err), AP_ERR_RANGE);
    CHECK(ap_flex_as_float(&r, &d, &err) == AP_OK && d == 18446744073709551615.0);
  }
  { /* bool false, null */
    const uint8_t b[] = {0, packed(AP_FLEX_BOOL, 1), 1};
    CHECK(ap_flex_root(b, sizeof b, &r, &err) == AP_OK && ap_flex_as_bool(&r, &bo, &err) == AP_OK);
    CHECK(!bo);
    const uint8_t c[] = {0, packed(AP_FLEX_NULL, 1), 1};
    CHECK_EQ(ap_flex_root(c, sizeof c, &r, &err), AP_OK);
    CHECK_EQ(ap_flex_as_int(&r, &iv, &err), AP_ERR_FORMAT);
    CHECK_CONTAINS(err.msg, "null is not a number");
    size_t len;
    CHECK_EQ(ap_flex_length(&r, &len, &err), AP_ERR_FORMAT);
    CHECK_EQ(ap_flex_map_find(&r, "x", &r), false);
  }
  { /* a float of width 2 is not a float FlexBuffers writes */
    const uint8_t b[] = {0, 0x3c, packed(AP_FLEX_FLOAT, 2), 2};
    CHECK(ap_flex_root(b, sizeof b, &r, &err) == AP_OK);
    CHECK_EQ(ap_flex_as_float(&r, &d, &err), AP_ERR_FORMAT);
  }
  { /* NaN as int */
    blob x = {.n = 0};
    put_f32(&x, __builtin_nanf(""));
    put(&x, packed(AP_FLEX_FLOAT, 4), 1);
    put(&x, 4, 1);
    CHECK(ap_flex_root(x.b, x.n, &r, &err) == AP_OK);
    CHECK_EQ(ap_flex_as_int(&r, &iv, &err), AP_ERR_RANGE);
  }
}

static void test_vectors(void) {
  ap_errbuf err;
  ap_flex r, e;
  size_t len;
  int64_t iv = -1; /* -1: no value the checks expect (clang -Wsometimes-uninitialized) */
  double d = -1;
  bool bo;
  { /* untyped vector, width 1: [7, "ab", true] */
    blob x = {.n = 0};
    size_t s = put_str(&x, "ab", 1);
    put(&x, 3, 1);
    size_t v = put(&x, 7, 1);
    put_off(&x, s, 1);
    put(&x, 1, 1);
    put(&x, packed(AP_FLEX_INT, 1), 1);
    put(&x, packed(AP_FLEX_STRING, 1), 1);
    put(&x, packed(AP_FLEX_BOOL, 1), 1);
    put_root(&x, v, AP_FLEX_VECTOR, 1, 1);
    uint8_t *b = exact(x.b, x.n);
    CHECK_EQ(ap_flex_root(b, x.n, &r, &err), AP_OK);
    CHECK(ap_flex_length(&r, &len, &err) == AP_OK && len == 3);
    CHECK(ap_flex_at(&r, 0, &e, &err) == AP_OK && ap_flex_as_int(&e, &iv, &err) == AP_OK);
    CHECK_EQ(iv, 7);
    const char *str;
    CHECK(ap_flex_at(&r, 1, &e, &err) == AP_OK && e.type == AP_FLEX_STRING);
    CHECK(ap_flex_as_string(&e, &str, &len, &err) == AP_OK && len == 2 && !memcmp(str, "ab", 2));
    CHECK(ap_flex_length(&e, &len, &err) == AP_OK && len == 2);
    CHECK(ap_flex_at(&r, 2, &e, &err) == AP_OK && ap_flex_as_bool(&e, &bo, &err) == AP_OK && bo);
    CHECK_EQ(ap_flex_map_find(&r, "x", &e), false); /* a vector is not a map */
    free(b);
  }
  { /* fixed-length float3 (width 4), no length prefix */
    blob x = {.n = 0};
    size_t v = put_f32(&x, 1.0f);
    put_f32(&x, 2.0f);
    put_f32(&x, -3.0f);
    put_root(&x, v, 21 /* FLOAT3 */, 4, 1);
    uint8_t *b = exact(x.b, x.n);
    CHECK_EQ(ap_flex_root(b, x.n, &r, &err), AP_OK);
    CHECK(ap_flex_length(&r, &len, &err) == AP_OK && len == 3);
    CHECK(ap_flex_at(&r, 2, &e, &err) == AP_OK && ap_flex_as_float(&e, &d, &err) == AP_OK);
    CHECK(d == -3.0);
    CHECK_EQ(ap_flex_at(&r, 3, &e, &err), AP_ERR_RANGE);
    free(b);
  }
  { /* bool vector, typed uint vector of width 8 */
    blob x = {.n = 0};
    put(&x, 2, 1);
    size_t v = put(&x, 0, 1);
    put(&x, 1, 1);
    put_root(&x, v, AP_FLEX_VECTOR_BOOL, 1, 1);
    CHECK_EQ(ap_flex_root(x.b, x.n, &r, &err), AP_OK);
    CHECK(ap_flex_length(&r, &len, &err) == AP_OK && len == 2);
    CHECK(ap_flex_at(&r, 0, &e, &err) == AP_OK && ap_flex_as_bool(&e, &bo, &err) == AP_OK && !bo);
    CHECK(ap_flex_at(&r, 1, &e, &err) == AP_OK && ap_flex_as_bool(&e, &bo, &err) == AP_OK && bo);
    x.n = 0;
    put(&x, 1, 8);
    v = put(&x, UINT64_C(1) << 40, 8);
    put_root(&x, v, AP_FLEX_VECTOR_UINT, 8, 2);
    CHECK_EQ(ap_flex_root(x.b, x.n, &r, &err), AP_OK);
    CHECK(ap_flex_at(&r, 0, &e, &err) == AP_OK && ap_flex_as_int(&e, &iv, &err) == AP_OK);
    CHECK_EQ(iv, INT64_C(1) << 40);
  }
}

static void test_hostile(void) {
  ap_errbuf err;
  ap_flex r, e;
  size_t len;
  int64_t iv;
  CHECK_EQ(ap_flex_root(NULL, 0, &r, &err), AP_ERR_FORMAT);
  CHECK_EQ(ap_flex_root("ab", 2, &r, &err), AP_ERR_FORMAT);
  CHECK_EQ(ap_flex_root("abc", 3, NULL, &err), AP_ERR_ARG);
  { /* root width 3, root width larger than the buffer */
    const uint8_t b[] = {0, 0, packed(AP_FLEX_INT, 1), 3};
    CHECK_EQ(ap_flex_root(b, sizeof b, &r, &err), AP_ERR_FORMAT);
    CHECK_CONTAINS(err.msg, "root width 3");
    const uint8_t c[] = {0, packed(AP_FLEX_INT, 1), 8};
    CHECK_EQ(ap_flex_root(c, sizeof c, &r, &err), AP_ERR_FORMAT);
  }
  { /* unknown type 30 */
    const uint8_t b[] = {0, 30 << 2, 1};
    CHECK_EQ(ap_flex_root(b, sizeof b, &r, &err), AP_ERR_FORMAT);
    CHECK_CONTAINS(err.msg, "unknown value type 30");
  }
  { /* a map whose offset points before the buffer's start */
    const uint8_t b[] = {9, packed(AP_FLEX_MAP, 1), 1};
    CHECK_EQ(ap_flex_root(b, sizeof b, &r, &err), AP_OK);
    CHECK_EQ(ap_flex_length(&r, &len, &err), AP_ERR_FORMAT);
    CHECK_CONTAINS(err.msg, "points before the buffer");
    CHECK_EQ(ap_flex_map_find(&r, "a", &e), false);
  }
  { /* a vector of 2^32-1 elements, width 4 */
    blob x = {.n = 0};
    put(&x, 0xffffffffu, 4);
    size_t v = put(&x, 1, 4);
    put_root(&x, v, AP_FLEX_VECTOR_INT, 4, 1);
    uint8_t *b = exact(x.b, x.n);
    CHECK_EQ(ap_flex_root(b, x.n, &r, &err), AP_OK);
    CHECK_EQ(ap_flex_length(&r, &len, &err), AP_ERR_FORMAT);
    CHECK_CONTAINS(err.msg, "run past the buffer");
    CHECK_EQ(ap_flex_at(&r, 0, &e, &err), AP_ERR_FORMAT);
    free(b);
  }
  { /* a vector of 2^64-1 elements of width 8: the size product overflows */
    blob x = {.n = 0};
    put(&x, UINT64_MAX, 8);
    size_t v = put(&x, 1, 8);
    put_root(&x, v, AP_FLEX_VECTOR, 8, 1);
    CHECK_EQ(ap_flex_root(x.b, x.n, &r, &err), AP_OK);
    CHECK_EQ(ap_flex_length(&r, &len, &err), AP_ERR_FORMAT);
  }
  { /* a string longer than the buffer; a key with no terminator */
    blob x = {.n = 0};
    put(&x, 200, 1);
    size_t s = put_key(&x, "ab");
    put_root(&x, s, AP_FLEX_STRING, 1, 1);
    uint8_t *b = exact(x.b, x.n);
    const char *str;
    CHECK_EQ(ap_flex_root(b, x.n, &r, &err), AP_OK);
    CHECK_EQ(ap_flex_as_string(&r, &str, &len, &err), AP_ERR_FORMAT);
    free(b);
    const uint8_t k[] = {'a', 'b', 2, packed(AP_FLEX_KEY, 1), 1};
    b = exact(k, sizeof k);
    CHECK_EQ(ap_flex_root(b, sizeof k, &r, &err), AP_OK);
    /* 'ab' then the offset byte 2, type byte, width: no zero byte until the end */
    CHECK_EQ(ap_flex_as_string(&r, &str, &len, &err), AP_ERR_FORMAT);
    CHECK_CONTAINS(err.msg, "not terminated");
    free(b);
  }
  { /* an indirect int whose data runs past the end */
    const uint8_t b[] = {1, 0, packed(AP_FLEX_INDIRECT_INT, 8), 1};
    uint8_t *c = exact(b, sizeof b);
    CHECK_EQ(ap_flex_root(c, sizeof b, &r, &err), AP_OK);
    CHECK_EQ(ap_flex_as_int(&r, &iv, &err), AP_ERR_FORMAT);
    free(c);
  }
  { /* maps: keys width 3; keys count different from values count; keys offset outside */
    for (int bad = 0; bad < 3; bad++) {
      blob x;
      entry en[] = {{"a", AP_FLEX_INT, 1, false, 5, 0}};
      /* put_map wrote: "a\0" [1] [off] [keysoff] [keyw] [len] [val] [type] */
      size_t vals = 7;
      x.n = 0;
      put_map(&x, en, 1, 1);
      if (bad == 0) x.b[vals - 2] = 3;
      if (bad == 1) x.b[2] = 2;
      if (bad == 2) x.b[vals - 3] = 100;
      put_root(&x, vals, AP_FLEX_MAP, 1, 1);
      uint8_t *b = exact(x.b, x.n);
      CHECK_EQ(ap_flex_root(b, x.n, &r, &err), AP_OK);
      CHECK_EQ(ap_flex_map_find(&r, "a", &e), false);
      const char *str;
      CHECK_EQ(ap_flex_map_key(&r, 0, &str, &len, &err), AP_ERR_FORMAT);
      free(b);
      /* And the same map intact finds "a". */
      x.n = 0;
      put_map(&x, en, 1, 1);
      put_root(&x, vals, AP_FLEX_MAP, 1, 1);
      CHECK_EQ(ap_flex_root(x.b, x.n, &r, &err), AP_OK);
      CHECK_EQ(get_int(&r, "a"), 5);
    }
  }
  { /* NULL arguments */
    const uint8_t b[] = {1, packed(AP_FLEX_INT, 1), 1};
    CHECK_EQ(ap_flex_root(b, sizeof b, &r, &err), AP_OK);
    CHECK_EQ(ap_flex_as_int(&r, NULL, &err), AP_ERR_ARG);
    CHECK_EQ(ap_flex_as_int(NULL, &iv, &err), AP_ERR_ARG);
    CHECK_EQ(ap_flex_length(NULL, &len, NULL), AP_ERR_ARG);
    CHECK_EQ(ap_flex_at(&r, 0, NULL, NULL), AP_ERR_ARG);
    CHECK_EQ(ap_flex_map_find(NULL, "a", &e), false);
    CHECK_EQ(ap_flex_map_find(&r, NULL, &e), false);
  }
}

/* Every single-byte corruption of the width-2 map: reads stay inside the buffer. */
static void test_corruptions(void) {
  blob x;
  size_t n = build_map(&x, 2);
  for (size_t i = 0; i < n; i++) {
    for (unsigned v = 0; v < 256; v += 17) {
      uint8_t *b = exact(x.b, n);
      b[i] = (uint8_t)v;
      ap_flex r, e;
      if (ap_flex_root(b, n, &r, NULL) == AP_OK) {
        const char *keys[] = {"bool", "f", "i", "ind", "m", "neg", "s", "u", "vec"};
        for (size_t k = 0; k < 9; k++) {
          if (!ap_flex_map_find(&r, keys[k], &e)) continue;
          int64_t iv;
          double d;
          size_t len;
          const char *s;
          (void)ap_flex_as_int(&e, &iv, NULL);
          (void)ap_flex_as_float(&e, &d, NULL);
          (void)ap_flex_as_string(&e, &s, &len, NULL);
          if (ap_flex_length(&e, &len, NULL) == AP_OK && len)
            (void)ap_flex_at(&e, len - 1, &e, NULL);
        }
      }
      free(b);
    }
  }
  CHECK(1);
}

int main(void) {
  test_map(1);
  test_map(2);
  test_map(4);
  test_map(8);
  test_scalars();
  test_vectors();
  test_hostile();
  test_corruptions();
  return ap_test_done();
}
