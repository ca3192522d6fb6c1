/* A minimal JSON reader for tests that check flatc's --json output by structure: parse once,
 * then look values up by path ("subgraphs[0].tensors[2].name"). Strict JSON only; strings
 * keep \" \\ \/ \n \t \r \b \f escapes decoded and \uXXXX below 0x80. Test code: malloc. */
#ifndef AP_TEST_JSON_H
#define AP_TEST_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum ap_json_type {
  AP_JSON_NULL,
  AP_JSON_BOOL,
  AP_JSON_NUMBER,
  AP_JSON_STRING,
  AP_JSON_ARRAY,
  AP_JSON_OBJECT
} ap_json_type;

typedef struct ap_json {
  ap_json_type type;
  bool b;
  char *s;    /* STRING: the decoded text; NUMBER: the literal as written */
  double num; /* NUMBER */
  size_t n;   /* ARRAY, OBJECT: element count */
  struct ap_json *items;
  char **keys; /* OBJECT */
} ap_json;

/* NULL on a syntax error or out of memory. */
ap_json *ap_json_parse(const char *text);
void ap_json_free(ap_json *j);

/* The value at `path` (keys separated by '.', array indices as [i]); NULL if absent. */
const ap_json *ap_json_at(const ap_json *j, const char *path);
/* Typed lookups: NULL / false when absent or of another type. */
const char *ap_json_str(const ap_json *j, const char *path);
bool ap_json_i64(const ap_json *j, const char *path, int64_t *out); /* exact integers only */
bool ap_json_f64(const ap_json *j, const char *path, double *out);
bool ap_json_bool(const ap_json *j, const char *path, bool *out);
/* Element count of an array or object at path; -1 if absent or not one. */
long ap_json_len(const ap_json *j, const char *path);

#endif
