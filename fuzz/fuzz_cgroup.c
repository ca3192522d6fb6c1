/* fuzz_cgroup: /proc/self/cgroup text as a container may present it, read for the server's
 * default budget (ap_pool_machine_memory): any bytes, any lengths, paths of ".." and ':'. The
 * tree looked up is a path that does not exist, so only the parsing and the walk run. */
#include "port/port.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  /* A copy of exactly `size` bytes: the parser must not read past len (no terminator). */
  char *text = malloc(size ? size : 1);
  if (!text) return 0;
  if (size) memcpy(text, data, size);
  uint64_t v = ap_port_cgroup_memory_limit_text(text, size, "/nonexistent/ap_fuzz_cgroup");
  free(text);
  if (v != 0) abort(); /* nothing exists there: no limit can have been read */
  return 0;
}
