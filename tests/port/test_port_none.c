/* The freestanding port (src/port/port_none.c, what a microcontroller build links), compiled
 * here on the host: no files, one thread that runs every index in order, no clock, no CPU
 * features, no environment. */
#define AP_PORT_NONE 1
/* Under other names: the library linked with this test has the host's port (and may get other
 * port files), whose symbols these must not collide with. */
#define ap_port_file_map none_file_map
#define ap_port_file_unmap none_file_unmap
#define ap_port_file_write none_file_write
#define ap_port_now_ns none_now_ns
#define ap_port_cpu_features none_cpu_features
#define ap_port_getenv none_getenv
#define ap_port_workers_create none_workers_create
#define ap_port_workers_count none_workers_count
#define ap_port_workers_run none_workers_run
#define ap_port_workers_destroy none_workers_destroy
#define ap_port_workers_wake none_workers_wake
#define ap_port_workers_run_slots none_workers_run_slots
#include "port/port_none.c"
#include "test.h"

static void count(void *arg, int i) {
  int *seen = arg;
  seen[i] += i + 1;
}

int main(void) {
  ap_errbuf e = {{0}};
  ap_port_file f = {.data = "x", .size = 1};
  CHECK_EQ(ap_port_file_map("model.tflite", NULL, &f, &e), AP_ERR_UNSUPPORTED);
  CHECK_CONTAINS(e.msg, "model.tflite: this build has no files");
  CHECK(f.data == NULL && f.size == 0);
  CHECK_EQ(ap_port_file_map(NULL, NULL, NULL, NULL), AP_ERR_UNSUPPORTED);
  ap_port_file_unmap(NULL, &f);
  ap_port_file_unmap(NULL, NULL);
  CHECK_EQ(ap_port_file_write("out.bin", "x", 1, &e), AP_ERR_UNSUPPORTED);
  CHECK_EQ(ap_port_now_ns(), 0);
  CHECK_EQ(ap_port_cpu_features(), 0);
  CHECK(ap_port_getenv("HOME") == NULL);
  ap_port_workers *w = NULL;
  CHECK_EQ(ap_port_workers_create(NULL, 8, &w, &e), AP_OK);
  CHECK_EQ(ap_port_workers_count(w), 1);
  int seen[5] = {0};
  ap_port_workers_run(w, count, seen, 5);
  for (int i = 0; i < 5; i++)
    CHECK_EQ(seen[i], i + 1);
  ap_port_workers_run(w, NULL, seen, 5); /* no function: nothing runs */
  ap_port_workers_run(w, count, seen, 0);
  CHECK_EQ(seen[4], 5);
  ap_port_workers_wake(w); /* nothing to wake */
  ap_port_workers_wake(NULL);
  ap_port_workers_destroy(w);
  CHECK_EQ(ap_port_workers_create(NULL, 1, NULL, &e), AP_ERR_ARG);
  return ap_test_done();
}
