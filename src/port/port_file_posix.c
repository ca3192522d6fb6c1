/* The host's files section of the port layer: a read-only mmap of a regular file, or the file
 * read into an allocator block where mmap refuses it. */
#ifndef AP_PORT_NONE
#include "port/port.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* mmap failed (a file system without mmap): read the bytes instead. */
static ap_status read_whole(int fd, const char *path, size_t size, const ap_allocator *a,
                            ap_port_file *out, ap_errbuf *err) {
  uint8_t *p = ap_alloc(a, size);
  if (!p) return ap_fail(err, AP_ERR_NOMEM, "%s: cannot allocate %zu bytes to read it", path, size);
  size_t got = 0;
  while (got < size) {
    ssize_t n = read(fd, p + got, size - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ap_free(a, p);
      return ap_fail(err, AP_ERR_IO, "%s: cannot read: %s", path,
                     n < 0 ? strerror(errno) : "file shrank while reading");
    }
    got += (size_t)n;
  }
  out->data = p;
  out->size = size;
  out->handle = p;
  out->handle_size = size;
  out->mapped = false;
  return AP_OK;
}

ap_status ap_port_file_map(const char *path, const ap_allocator *a, ap_port_file *out,
                           ap_errbuf *err) {
  if (!out) return ap_fail(err, AP_ERR_ARG, "ap_port_file_map: NULL output");
  memset(out, 0, sizeof *out);
  if (!path || !*path) return ap_fail(err, AP_ERR_ARG, "%s path", path ? "empty" : "NULL");
  a = ap_alloc_or_default(a);
  /* O_NONBLOCK: opening a FIFO with no writer would otherwise wait forever; only regular
   * files are mapped (checked below), and for them the flag changes nothing. */
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return ap_fail(err, AP_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
  struct stat st;
  ap_status s = AP_OK;
  if (fstat(fd, &st) != 0)
    s = ap_fail(err, AP_ERR_IO, "%s: cannot stat: %s", path, strerror(errno));
  else if (S_ISDIR(st.st_mode))
    s = ap_fail(err, AP_ERR_IO, "%s: is a directory, not a model file", path);
  else if (!S_ISREG(st.st_mode))
    s = ap_fail(err, AP_ERR_IO, "%s: not a regular file", path);
  else if (st.st_size == 0)
    s = ap_fail(err, AP_ERR_FORMAT, "%s: empty file (0 bytes)", path);
  else if ((uint64_t)st.st_size > SIZE_MAX)
    s = ap_fail(err, AP_ERR_OVERFLOW, "%s: file of %lld bytes does not fit in memory", path,
                (long long)st.st_size);
  if (s) {
    close(fd);
    return s;
  }
  size_t size = (size_t)st.st_size;
  void *map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
  if (map == MAP_FAILED) {
    int map_errno = errno;
    /* ENODEV: the file system cannot map; anything else (ENOMEM, EACCES) would fail a read
     * too, so report it as it is. */
    if (map_errno == ENODEV)
      s = read_whole(fd, path, size, a, out, err);
    else
      s = ap_fail(err, AP_ERR_IO, "%s: cannot map %zu bytes: %s", path, size, strerror(map_errno));
    close(fd);
    return s;
  }
  close(fd);
  out->data = map;
  out->size = size;
  out->handle = map;
  out->handle_size = size;
  out->mapped = true;
  return AP_OK;
}

void ap_port_file_unmap(const ap_allocator *a, ap_port_file *f) {
  if (!f || !f->handle) return;
  if (f->mapped)
    munmap(f->handle, f->handle_size);
  else
    ap_free(ap_alloc_or_default(a), f->handle);
  memset(f, 0, sizeof *f);
}

ap_status ap_port_file_write(const char *path, const void *bytes, size_t size, ap_errbuf *err) {
  if (!path) return ap_fail(err, AP_ERR_ARG, "the path is NULL");
  if (!bytes && size) return ap_fail(err, AP_ERR_ARG, "%s: NULL bytes with size %zu", path, size);
  FILE *f = fopen(path, "wb");
  if (!f) return ap_fail(err, AP_ERR_IO, "%s: cannot create: %s", path, strerror(errno));
  size_t put = size ? fwrite(bytes, 1, size, f) : 0;
  int e = put == size ? 0 : errno;
  if (fclose(f) != 0 && !e) e = errno;
  if (put != size || e)
    return ap_fail(err, AP_ERR_IO, "%s: cannot write %zu bytes: %s", path, size,
                   strerror(e ? e : EIO));
  return AP_OK;
}
#endif
