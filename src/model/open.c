/* Loading: a file through the port layer (mmap on a host) or the caller's bytes, verified once. A
 * failed load still returns a handle that keeps the message (like sqlite3_open). */
#include "model/model_internal.h"

#include <string.h>

static ap_model *new_model(const ap_model_options *opt, const char *name) {
  const ap_allocator *a = ap_alloc_or_default(opt ? opt->allocator : NULL);
  size_t len = strlen(name), total;
  /* One allocation: the handle, then its name. */
  if (!ap_add_size(sizeof(ap_model), len + 1, &total)) return NULL;
  ap_model *m = ap_alloc(a, total);
  if (!m) return NULL;
  memset(m, 0, sizeof *m);
  m->alloc = a;
  m->name = (char *)(m + 1);
  memcpy(m->name, name, len + 1);
  return m;
}

static ap_status finish(ap_model *m, ap_model **out) {
  ap_status s = ap_model_verify(m);
  m->ok = s == AP_OK;
  *out = m;
  return s;
}

ap_status ap_model_open(const char *path, const ap_model_options *opt, ap_model **out) {
  if (!out) return AP_ERR_ARG;
  *out = new_model(opt, path ? path : "(null)");
  ap_model *m = *out;
  if (!m) return AP_ERR_NOMEM;
  if (!path || !*path)
    return ap_fail(&m->err, AP_ERR_ARG, "ap_model_open: %s path", path ? "empty" : "NULL");
  ap_status s = ap_port_file_map(path, m->alloc, &m->file, &m->err);
  if (s) return s;
  m->bytes = m->file.data;
  m->size = m->file.size;
  return finish(m, out);
}

ap_status ap_model_from_buffer(const void *data, size_t size, const char *name,
                               const ap_model_options *opt, ap_model **out) {
  if (!out) return AP_ERR_ARG;
  if (!name) name = "(buffer)";
  *out = new_model(opt, name);
  ap_model *m = *out;
  if (!m) return AP_ERR_NOMEM;
  if (!data && size) return ap_fail(&m->err, AP_ERR_ARG, "%s: NULL data with size %zu", name, size);
  /* Accessors hand out int32/int64 pointers into the bytes. */
  if ((uintptr_t)data % 8)
    return ap_fail(&m->err, AP_ERR_ARG,
                   "%s: buffer address %p is not 8-byte aligned (the model is read in place)", name,
                   data);
  m->bytes = data;
  m->size = size;
  return finish(m, out);
}

void ap_model_destroy(ap_model *m) {
  if (!m) return;
  ap_port_file_unmap(m->alloc, &m->file);
  ap_free(m->alloc, m);
}

const char *ap_model_error(const ap_model *m) {
  return m ? m->err.msg : "no model handle (out of memory, or NULL passed)";
}

const char *ap_model_path(const ap_model *m) {
  return m ? m->name : NULL;
}

const uint8_t *ap_model_bytes(const ap_model *m, size_t *size) {
  bool ok = m && m->ok;
  if (size) *size = ok ? m->size : 0;
  return ok ? m->bytes : NULL;
}
