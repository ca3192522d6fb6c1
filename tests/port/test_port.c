/* The host port's files and clock sections (src/port/port_file_posix.c, port_clock_posix.c):
 * a mapped file is the file's bytes, hostile paths and arguments give a status and a message,
 * writing round-trips, and the clock moves forward. */
#include "port/port.h"
#include "test.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static void map_real_file(void) {
  char path[] = "/tmp/ap_port_XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  static const char text[] = "arenaplan port layer";
  CHECK_EQ(write(fd, text, sizeof text), (long long)sizeof text);
  close(fd);
  ap_errbuf e = {{0}};
  ap_port_file f;
  CHECK_EQ(ap_port_file_map(path, NULL, &f, &e), AP_OK);
  CHECK_EQ(f.size, sizeof text);
  CHECK(f.mapped);
  CHECK(f.data && memcmp(f.data, text, sizeof text) == 0);
  ap_port_file_unmap(NULL, &f);
  CHECK(f.data == NULL && f.handle == NULL);
  ap_port_file_unmap(NULL, &f); /* twice: harmless */
  ap_port_file_unmap(NULL, NULL);
  unlink(path);
}

static void map_refusals(void) {
  ap_errbuf e = {{0}};
  ap_port_file f;
  CHECK_EQ(ap_port_file_map(NULL, NULL, &f, &e), AP_ERR_ARG);
  CHECK_STR(e.msg, "NULL path");
  CHECK_EQ(ap_port_file_map("", NULL, &f, &e), AP_ERR_ARG);
  CHECK_STR(e.msg, "empty path");
  CHECK_EQ(ap_port_file_map("/tmp", NULL, NULL, &e), AP_ERR_ARG);
  CHECK_EQ(ap_port_file_map("/nonexistent/x.tflite", NULL, &f, &e), AP_ERR_IO);
  CHECK_STR(e.msg, "/nonexistent/x.tflite: cannot open: No such file or directory");
  CHECK_EQ(ap_port_file_map("/tmp", NULL, &f, &e), AP_ERR_IO);
  CHECK_STR(e.msg, "/tmp: is a directory, not a model file");
  CHECK(f.data == NULL && f.size == 0);
  char fifo[] = "/tmp/ap_port_fifo_XXXXXX";
  int fd = mkstemp(fifo);
  CHECK(fd >= 0);
  close(fd);
  unlink(fifo);
  if (mkfifo(fifo, 0600) == 0) {
    CHECK_EQ(ap_port_file_map(fifo, NULL, &f, &e), AP_ERR_IO);
    CHECK_CONTAINS(e.msg, "not a regular file");
    unlink(fifo);
  }
  /* A NULL errbuf is allowed: the status alone. */
  CHECK_EQ(ap_port_file_map("/tmp", NULL, &f, NULL), AP_ERR_IO);
}

static void write_round_trip(void) {
  char path[] = "/tmp/ap_port_w_XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  close(fd);
  ap_errbuf e = {{0}};
  static const uint8_t bytes[] = {0, 1, 2, 250, 255};
  CHECK_EQ(ap_port_file_write(path, bytes, sizeof bytes, &e), AP_OK);
  ap_port_file f;
  CHECK_EQ(ap_port_file_map(path, NULL, &f, &e), AP_OK);
  CHECK(f.size == sizeof bytes && memcmp(f.data, bytes, sizeof bytes) == 0);
  ap_port_file_unmap(NULL, &f);
  /* Zero bytes: an empty file, which map then refuses as a model. */
  CHECK_EQ(ap_port_file_write(path, NULL, 0, &e), AP_OK);
  CHECK_EQ(ap_port_file_map(path, NULL, &f, &e), AP_ERR_FORMAT);
  CHECK_CONTAINS(e.msg, "empty file (0 bytes)");
  unlink(path);
  CHECK_EQ(ap_port_file_write(NULL, bytes, 1, &e), AP_ERR_ARG);
  CHECK_EQ(ap_port_file_write(path, NULL, 3, &e), AP_ERR_ARG);
  CHECK_EQ(ap_port_file_write("/nonexistent/dir/out.bin", bytes, 1, &e), AP_ERR_IO);
  CHECK_STR(e.msg, "/nonexistent/dir/out.bin: cannot create: No such file or directory");
}

static void clock_moves(void) {
  uint64_t a = ap_port_now_ns();
  usleep(2000);
  uint64_t b = ap_port_now_ns();
  CHECK(a > 0);
  CHECK_MSG(b >= a + 1000000u, "%llu then %llu", (unsigned long long)a, (unsigned long long)b);
}

int main(void) {
  map_real_file();
  map_refusals();
  write_round_trip();
  clock_moves();
  return ap_test_done();
}
