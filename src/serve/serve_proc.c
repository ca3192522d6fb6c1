/* What the server reads from the operating system about itself and the machine: files,
 * /proc/self/status, the clock. (The server is the one layer that
 * is a process by nature; the library's OS calls stay in src/port.) */
#include "serve_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

ap_status serve_read_file(const char *path, size_t max, char **text, size_t *len, char *err,
                          size_t err_size) {
  *text = NULL;
  *len = 0;
  /* Non-blocking: a FIFO without a writer must not hang the open. */
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  struct stat st;
  const char *why = NULL;
  if (fd < 0)
    why = strerror(errno);
  else if (fstat(fd, &st) != 0)
    why = strerror(errno);
  else if (S_ISDIR(st.st_mode))
    why = "is a directory, not a configuration";
  else if (!S_ISREG(st.st_mode))
    why = "not a regular file";
  else if ((uint64_t)st.st_size > max)
    why = "larger than 1 MiB";
  if (why) {
    if (err) snprintf(err, err_size, "%s: %s%s", path, fd < 0 ? "cannot open: " : "", why);
    if (fd >= 0) close(fd);
    return AP_ERR_IO;
  }
  /* Up to EOF, not st_size: /proc files say 0. */
  char *buf = malloc(max + 1);
  size_t n = 0;
  ssize_t k = 1;
  while (buf && n <= max && k > 0) {
    k = read(fd, buf + n, max + 1 - n);
    if (k < 0 && errno == EINTR)
      k = 1;
    else if (k > 0)
      n += (size_t)k;
  }
  close(fd);
  if (!buf || k < 0 || n > max) {
    free(buf);
    if (err)
      snprintf(err, err_size, "%s: %s", path,
               !buf    ? "out of memory"
               : k < 0 ? "cannot read"
                       : "larger than 1 MiB");
    return buf ? AP_ERR_IO : AP_ERR_NOMEM;
  }
  buf[n] = '\0';
  *text = buf;
  *len = n;
  return AP_OK;
}

static uint64_t status_kib(const char *text, const char *key) {
  const char *p = strstr(text, key);
  if (!p) return 0;
  return strtoull(p + strlen(key), NULL, 10) * 1024u;
}

void serve_process_memory(uint64_t *rss, uint64_t *hwm) {
  char *text = NULL;
  size_t len = 0;
  *rss = *hwm = 0;
  if (serve_read_file("/proc/self/status", 1u << 16, &text, &len, NULL, 0) != AP_OK) return;
  *rss = status_kib(text, "\nVmRSS:");
  *hwm = status_kib(text, "\nVmHWM:");
  free(text);
}

uint64_t serve_now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000u + (uint64_t)t.tv_nsec / 1000u;
}
