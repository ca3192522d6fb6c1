/* Problems and the MiniMalloc CSV parser: validation and exact error messages. */
#include "arenaplan/plan.h"
#include "test.h"

#include <stdlib.h>

static ap_problem *fresh(void) {
  ap_problem *p = NULL;
  CHECK(ap_problem_create(NULL, &p) == AP_OK && p);
  return p;
}

/* Parses text into a fresh problem; returns the status and leaves the message in msg. */
static ap_status parse(const char *text, char *msg, size_t *count) {
  ap_problem *p = fresh();
  ap_status st = ap_problem_parse_csv(p, text, strlen(text));
  snprintf(msg, 512, "%s", st == AP_OK ? "" : ap_problem_error(p));
  if (count) *count = ap_problem_count(p);
  ap_problem_destroy(p);
  return st;
}

static void test_add(void) {
  ap_problem *p = fresh();
  CHECK_EQ(ap_problem_alignment(p), 1);
  CHECK_EQ(ap_problem_add(p, &(ap_request){.id = 3, .size = 0, .first = 0, .last = 1}), AP_ERR_ARG);
  CHECK_STR(ap_problem_error(p), "request id 3: size 0 (must be > 0)");
  CHECK_EQ(ap_problem_add(p, &(ap_request){.id = 4, .size = 8, .first = 5, .last = 4}), AP_ERR_ARG);
  CHECK_STR(ap_problem_error(p), "request id 4: last step 4 < first step 5");
  CHECK_EQ(ap_problem_add(p, NULL), AP_ERR_ARG);
  CHECK_EQ(ap_problem_set_alignment(p, 0), AP_ERR_ARG);
  CHECK_STR(ap_problem_error(p), "alignment 0: must be at least 1");
  CHECK_EQ(ap_problem_set_alignment(p, 48), AP_OK); /* any alignment, not only powers of 2 */
  CHECK_EQ(ap_problem_alignment(p), 48);
  CHECK_EQ(ap_problem_add(p, &(ap_request){.id = 1, .size = 10, .first = 0, .last = 0}), AP_OK);
  /* Ids need not be unique through the API (only the CSV rejects duplicates). */
  CHECK_EQ(ap_problem_add(p, &(ap_request){.id = 1, .size = 10, .first = -1, .last = 0}), AP_OK);
  CHECK_EQ(ap_problem_count(p), 2);
  CHECK_EQ(ap_problem_requests(p)[1].first, -1);
  /* The aligned sizes must sum within 64 bits, so that no plan's offset can overflow. */
  CHECK_EQ(ap_problem_add(p, &(ap_request){.id = 9, .size = UINT64_MAX - 2, .first = 0, .last = 0}),
           AP_ERR_OVERFLOW);
  CHECK_STR(ap_problem_error(p), "request id 9: size 18446744073709551613 aligned to 48 "
                                 "overflows 64 bits");
  CHECK_EQ(
      ap_problem_add(p, &(ap_request){.id = 7, .size = UINT64_MAX - 100, .first = 0, .last = 0}),
      AP_ERR_OVERFLOW);
  CHECK_STR(ap_problem_error(p), "request id 7: the sizes of the requests sum past 2^64");
  CHECK_EQ(ap_problem_count(p), 2);
  ap_problem_destroy(p);
  ap_problem_destroy(NULL);
  CHECK_EQ(ap_problem_create(NULL, NULL), AP_ERR_ARG);
  CHECK_EQ(ap_problem_count(NULL), 0);
  CHECK_EQ(ap_problem_add(NULL, &(ap_request){.size = 1}), AP_ERR_ARG);
}

static void test_csv_ok(void) {
  ap_problem *p = fresh();
  const char *text = "id,lower,upper,size\r\n"
                     "7,0,3,100\r\n"
                     "  8 , 2 , 5 , 64 \r\n"
                     "\r\n"
                     "9,-1,0,16"; /* no final newline; TFLite Micro's step -1 */
  CHECK_EQ(ap_problem_parse_csv(p, text, strlen(text)), AP_OK);
  CHECK_EQ(ap_problem_count(p), 3);
  const ap_request *r = ap_problem_requests(p);
  CHECK(r[0].id == 7 && r[0].size == 100 && r[0].first == 0 && r[0].last == 2);
  CHECK(r[1].id == 8 && r[1].size == 64 && r[1].first == 2 && r[1].last == 4);
  CHECK(r[2].id == 9 && r[2].size == 16 && r[2].first == -1 && r[2].last == -1);
  ap_problem_destroy(p);

  char msg[512];
  size_t n;
  CHECK_EQ(parse("0,0,1,5\n1,0,1,5\n", msg, &n), AP_OK); /* the header is optional */
  CHECK_EQ(n, 2);
  CHECK_EQ(parse("", msg, &n), AP_OK);
  CHECK_EQ(n, 0);
  CHECK_EQ(parse("id,lower,upper,size\n", msg, &n), AP_OK);
  CHECK_EQ(n, 0);
  CHECK_EQ(parse("0,0,2147483648,5\n", msg, &n), AP_OK); /* last = INT32_MAX */
}

static void test_csv_errors(void) {
  char msg[512];
  CHECK_EQ(parse("id,lower,upper,size\n0,0,2,10\n1,5,5,3\n", msg, NULL), AP_ERR_FORMAT);
  CHECK_STR(msg, "line 3: lower 5 >= upper 5");
  CHECK_EQ(parse("id,lower,upper,size\n1,0,1,1\n2,0,1,1\n3,0,1,1\n4,0,1,1\n5,0,1,1\n"
                 "6,0,2,-5\n",
                 msg, NULL),
           AP_ERR_FORMAT);
  CHECK_STR(msg, "line 7: size \"-5\" is not a positive integer");
  CHECK_EQ(parse("0,0,1,0\n", msg, NULL), AP_ERR_FORMAT);
  CHECK_STR(msg, "line 1: size \"0\" is not a positive integer");
  CHECK_EQ(parse("id,lower,upper,size\n4,0,1,8\n5,0,1,8\n6,0,1,8\n7,0,1,8\n3,0,1,8\n"
                 "2,0,1,8\n1,0,1,8\n4,0,1,8\n3,0,1,8\n",
                 msg, NULL),
           AP_ERR_FORMAT);
  CHECK_STR(msg, "line 9: duplicate id 4 (first on line 2)");
  CHECK_EQ(parse("0,x,1,8\n", msg, NULL), AP_ERR_FORMAT);
  CHECK_STR(msg, "line 1: lower \"x\" is not an integer");
  CHECK_EQ(parse("0,0,1,8\n1,0,1,8kB\n", msg, NULL), AP_ERR_FORMAT);
  CHECK_STR(msg, "line 2: size \"8kB\" is not a positive integer");
  CHECK_EQ(parse("a\"1,0,1,8\n", msg, NULL), AP_ERR_FORMAT);
  CHECK_STR(msg, "line 1: id \"a\"1\" is neither a non-negative integer nor a name (1 to 255 "
                 "printable ASCII characters, no '\"')");
  CHECK_EQ(parse("a 1,0,1,8\n", msg, NULL), AP_ERR_FORMAT);
  CHECK_EQ(parse("b1,0,1,8\nb2,0,2,8\nb1,1,2,8\n", msg, NULL), AP_ERR_FORMAT);
  CHECK_STR(msg, "line 3: duplicate id b1 (first on line 1)");
  CHECK_EQ(parse("99999999999999999999,0,1,8\n", msg, NULL), AP_ERR_FORMAT);
  CHECK_CONTAINS(msg, "line 1: id \"99999999999999999999\" is out of range");
  CHECK_EQ(parse("id,lower,upper,size\n0,0,1\n", msg, NULL), AP_ERR_FORMAT);
  CHECK_STR(msg, "line 2: 3 fields, expected 4 (id,lower,upper,size)");
  CHECK_EQ(parse("0,0,1,8,9\n", msg, NULL), AP_ERR_FORMAT);
  CHECK_STR(msg, "line 1: more than 4 fields (expected id,lower,upper,size)");
  CHECK_EQ(parse("0,0,1,\n", msg, NULL), AP_ERR_FORMAT);
  CHECK_STR(msg, "line 1: size \"\" is not a positive integer");
  CHECK_EQ(parse("0,0,1,99999999999999999999\n", msg, NULL), AP_ERR_FORMAT);
  CHECK_STR(msg, "line 1: size \"99999999999999999999\" is out of range (at most "
                 "18446744073709551615)");
  CHECK_EQ(parse("0,0,3000000000,8\n", msg, NULL), AP_ERR_FORMAT);
  CHECK_STR(msg, "line 1: upper \"3000000000\" is out of range (-2147483647 to 2147483648)");
  /* Sizes each valid but summing past 2^64. */
  CHECK_EQ(parse("0,0,1,9223372036854775808\n1,5,6,9223372036854775808\n", msg, NULL),
           AP_ERR_OVERFLOW);
  CHECK_STR(msg, "line 2: request id 1: the sizes of the requests sum past 2^64");

  /* All or nothing: a failed parse leaves the problem as it was. */
  ap_problem *p = fresh();
  CHECK_EQ(ap_problem_add(p, &(ap_request){.id = 1, .size = 1, .first = 0, .last = 0}), AP_OK);
  const char *bad = "2,0,1,8\n3,0,1,8\n4,1,0,8\n";
  CHECK_EQ(ap_problem_parse_csv(p, bad, strlen(bad)), AP_ERR_FORMAT);
  CHECK_STR(ap_problem_error(p), "line 3: lower 1 >= upper 0");
  CHECK_EQ(ap_problem_count(p), 1);
  CHECK_EQ(ap_problem_parse_csv(p, NULL, 4), AP_ERR_ARG);
  ap_problem_destroy(p);
}

static void test_csv_million(void) {
  /* A million lines: parses, and the duplicate check still names the right lines. */
  size_t n = 1000000, cap = n * 32, len = 0;
  char *text = malloc(cap);
  CHECK(text != NULL);
  if (!text) return;
  len += (size_t)snprintf(text, cap, "id,lower,upper,size\n");
  for (size_t i = 0; i < n; i++)
    len += (size_t)snprintf(text + len, cap - len, "%zu,%zu,%zu,%zu\n", i, i / 3, i / 3 + 4,
                            1 + i % 977);
  ap_problem *p = fresh();
  CHECK_EQ(ap_problem_parse_csv(p, text, len), AP_OK);
  CHECK_EQ(ap_problem_count(p), n);
  CHECK_EQ(ap_problem_requests(p)[n - 1].last, (int32_t)((n - 1) / 3 + 3));
  ap_problem_destroy(p);
  len += (size_t)snprintf(text + len, cap - len, "500000,0,1,1\n");
  p = fresh();
  CHECK_EQ(ap_problem_parse_csv(p, text, len), AP_ERR_FORMAT);
  CHECK_STR(ap_problem_error(p), "line 1000002: duplicate id 500000 (first on line 500002)");
  ap_problem_destroy(p);
  free(text);
}

/* MiniMalloc's own examples name their buffers (examples/input.12.csv: b1, b2, ...): a named
 * request's id is its index, its name comes back, and numbers and names may mix. */
static void test_csv_names(void) {
  ap_problem *p = fresh();
  const char *text = "id,lower,upper,size\nb1,0,3,4\n7,1,2,8\nx-y_z.9,2,4,2\n";
  CHECK_EQ(ap_problem_parse_csv(p, text, strlen(text)), AP_OK);
  CHECK_EQ(ap_problem_count(p), 3);
  CHECK_STR(ap_problem_request_name(p, 0), "b1");
  CHECK(ap_problem_request_name(p, 1) == NULL);
  CHECK_EQ(ap_problem_requests(p)[1].id, 7);
  CHECK_STR(ap_problem_request_name(p, 2), "x-y_z.9");
  CHECK_EQ(ap_problem_requests(p)[0].id, 0);
  CHECK_EQ(ap_problem_requests(p)[2].id, 2);
  CHECK_EQ(ap_problem_requests(p)[2].last, 3);
  CHECK(ap_problem_request_name(p, 3) == NULL);
  CHECK(ap_problem_request_name(NULL, 0) == NULL);
  /* A failing text leaves the problem (and its names) as they were. */
  const char *bad = "c1,0,1,4\nc2,0,1,x\n";
  CHECK_EQ(ap_problem_parse_csv(p, bad, strlen(bad)), AP_ERR_FORMAT);
  CHECK_EQ(ap_problem_count(p), 3);
  CHECK(ap_problem_request_name(p, 3) == NULL);
  /* Many names: the name table grows with the requests. */
  char big[200 * 24];
  size_t len = 0;
  for (int i = 0; i < 200; i++)
    len += (size_t)snprintf(big + len, sizeof big - len, "buf%d,%d,%d,%d\n", i, i, i + 2, 16);
  CHECK_EQ(ap_problem_parse_csv(p, big, len), AP_OK);
  CHECK_EQ(ap_problem_count(p), 203);
  CHECK_STR(ap_problem_request_name(p, 202), "buf199");
  CHECK_STR(ap_problem_request_name(p, 0), "b1");
  ap_plan *plan = NULL;
  CHECK_EQ(ap_plan_create(p, &(ap_plan_options){.strategy = "best"}, &plan), AP_OK);
  CHECK_EQ(ap_plan_check(p, ap_plan_offsets(plan), ap_plan_arena(plan), NULL, 0), AP_OK);
  ap_plan_destroy(plan);
  ap_problem_destroy(p);
}

int main(void) {
  test_add();
  test_csv_ok();
  test_csv_errors();
  test_csv_names();
  test_csv_million();
  return ap_test_done();
}
