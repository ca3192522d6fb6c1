/* The freestanding port (AP_PORT_NONE: a microcontroller): no files, no clock, one thread,
 * no optional CPU features, no environment. Models come from ap_model_from_buffer. */
#ifdef AP_PORT_NONE
#include "port/port.h"

#include <string.h>

ap_status ap_port_file_map(const char *path, const ap_allocator *a, ap_port_file *out,
                           ap_errbuf *err) {
  (void)a;
  if (out) memset(out, 0, sizeof *out);
  return ap_fail(err, AP_ERR_UNSUPPORTED,
                 "%s: this build has no files (AP_PORT_NONE); use ap_model_from_buffer",
                 path ? path : "(null)");
}

void ap_port_file_unmap(const ap_allocator *a, ap_port_file *f) {
  (void)a;
  if (f) memset(f, 0, sizeof *f);
}

ap_status ap_port_file_write(const char *path, const void *bytes, size_t size, ap_errbuf *err) {
  (void)bytes;
  (void)size;
  return ap_fail(err, AP_ERR_UNSUPPORTED, "%s: this build has no files (AP_PORT_NONE)",
                 path ? path : "(null)");
}

uint64_t ap_port_now_ns(void) {
  return 0;
}

uint64_t ap_port_physical_memory(void) {
  return 0;
}

uint64_t ap_port_cgroup_memory_limit(const char *cgroup_file, const char *root) {
  (void)cgroup_file;
  (void)root;
  return 0;
}

uint64_t ap_port_cgroup_memory_limit_text(const char *text, size_t len, const char *root) {
  (void)text;
  (void)len;
  (void)root;
  return 0;
}

uint32_t ap_port_cpu_features(void) {
  return 0;
}

const char *ap_port_getenv(const char *name) {
  (void)name;
  return NULL;
}

/* One thread: the caller runs every index itself. */
struct ap_port_workers {
  int threads;
};
static ap_port_workers one_thread = {1};

ap_status ap_port_workers_create(const ap_allocator *a, int threads, ap_port_workers **out,
                                 ap_errbuf *err) {
  (void)a;
  (void)threads;
  if (!out) return ap_fail(err, AP_ERR_ARG, "ap_port_workers_create: NULL output");
  *out = &one_thread;
  return AP_OK;
}

int ap_port_workers_count(const ap_port_workers *w) {
  (void)w;
  return 1;
}

void ap_port_workers_run(ap_port_workers *w, ap_port_task fn, void *arg, int n) {
  (void)w;
  if (!fn) return;
  for (int i = 0; i < n; i++)
    fn(arg, i);
}

void ap_port_workers_run_slots(ap_port_workers *w, ap_port_slot_task fn, void *arg, int n) {
  (void)w;
  if (!fn) return;
  for (int i = 0; i < n; i++)
    fn(arg, i, 0);
}

void ap_port_workers_wake(ap_port_workers *w) {
  (void)w;
}

void ap_port_workers_destroy(ap_port_workers *w) {
  (void)w;
}
#endif
