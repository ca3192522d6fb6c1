/* The port's memory section: physical RAM, and the cgroup limit read from a made-up
 * /proc/self/cgroup and /sys/fs/cgroup tree (v2, hybrid v2 under unified/, v1; ancestors'
 * limits; "max" and v1's near-2^63 "unlimited"; malformed lines). */
#include "port/port.h"
#include "test.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[256];

static void put(const char *rel, const char *text) {
  char path[512], dir[512];
  snprintf(path, sizeof path, "%s/%s", root, rel);
  /* mkdir -p of the file's folder */
  snprintf(dir, sizeof dir, "%s", path);
  for (char *s = dir + strlen(root) + 1; (s = strchr(s, '/')) != NULL; s++) {
    *s = 0;
    mkdir(dir, 0755);
    *s = '/';
  }
  FILE *f = fopen(path, "w");
  CHECK(f != NULL);
  if (!f) return;
  fputs(text, f);
  fclose(f);
}

static uint64_t limit_with(const char *cgroup_lines) {
  put("proc_cgroup", cgroup_lines);
  char file[512], sys[512];
  snprintf(file, sizeof file, "%s/proc_cgroup", root);
  snprintf(sys, sizeof sys, "%s/sys", root);
  return ap_port_cgroup_memory_limit(file, sys);
}

int main(void) {
  snprintf(root, sizeof root, "/tmp/ap_port_memory_XXXXXX");
  CHECK(mkdtemp(root) != NULL);

  uint64_t phys = ap_port_physical_memory();
  CHECK_EQ(phys, (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE));
  CHECK(phys > 0);

  /* No file, no controller line, nothing under the root: no limit. */
  CHECK_EQ(ap_port_cgroup_memory_limit("/nonexistent/cgroup", "/nonexistent"), 0);
  CHECK_EQ(limit_with("0::/a/b\n"), 0);

  /* v2: the cgroup says "max", its parent 3 GiB, the root has none. */
  put("sys/a/b/memory.max", "max\n");
  put("sys/a/memory.max", "3221225472\n");
  CHECK_EQ(limit_with("0::/a/b\n"), 3221225472u);
  /* The smaller of the cgroup's own and an ancestor's. */
  put("sys/a/b/memory.max", "1000000\n");
  CHECK_EQ(limit_with("0::/a/b\n"), 1000000);
  CHECK_EQ(limit_with("0::/a/b/\n"), 1000000); /* a trailing slash */
  /* The root cgroup of a namespace ("/"): sys/memory.max. */
  put("sys/memory.max", "2000000\n");
  CHECK_EQ(limit_with("0::/\n"), 2000000);
  CHECK_EQ(limit_with("0::/a/b\n"), 1000000);

  /* Hybrid: v2 under unified/. */
  put("sys/unified/c/memory.max", "5000000\n");
  CHECK_EQ(limit_with("0::/c\n"), 2000000); /* sys/memory.max is still an ancestor */
  put("sys/memory.max", "max\n");
  CHECK_EQ(limit_with("0::/c\n"), 5000000);

  /* v1: memory/<path>/memory.limit_in_bytes; LONG_MAX rounded to a page is "unlimited". */
  put("sys/memory/docker/x/memory.limit_in_bytes", "9223372036854771712\n");
  CHECK_EQ(limit_with("4:memory:/docker/x\n"), 0);
  put("sys/memory/docker/memory.limit_in_bytes", "536870912\n");
  CHECK_EQ(limit_with("4:memory:/docker/x\n"), 536870912u);
  CHECK_EQ(limit_with("7:cpu,memory,pids:/docker/x\n"), 536870912u); /* co-mounted */
  CHECK_EQ(limit_with("7:memoryx:/docker/x\n"), 0);                  /* not "memory" */
  /* Both kinds: the smaller. */
  CHECK_EQ(limit_with("4:memory:/docker/x\n0::/c\n"), 5000000);

  /* Malformed lines are skipped, the good ones read. */
  CHECK_EQ(limit_with("garbage\n::\n4:memory\n0::relative\n4:memory:/docker/x\n"), 536870912u);
  put("sys/memory/bad/memory.limit_in_bytes", "12abc\n");
  CHECK_EQ(limit_with("4:memory:/bad\n"), 0);
  put("sys/memory/neg/memory.limit_in_bytes", "-1\n");
  CHECK_EQ(limit_with("4:memory:/neg\n"), 0);
  /* A path longer than the line buffer is skipped, not truncated into another cgroup. */
  char longline[6000];
  memset(longline, 'a', sizeof longline);
  memcpy(longline, "0::/", 4);
  /* ...whose tail, past the buffer, would read as a line of its own. */
  memcpy(longline + 4095, "0::/a/b", 7); /* fgets reads 4095 bytes at a time */
  longline[sizeof longline - 2] = '\n';
  longline[sizeof longline - 1] = 0;
  CHECK_EQ(limit_with(longline), 0);

  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
  CHECK_EQ(system(cmd), 0);
  return ap_test_done();
}
