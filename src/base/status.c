#include "base.h"

#include <stdio.h>
#include <string.h>

const char *ap_status_name(ap_status s) {
  switch (s) {
  case AP_OK: return "AP_OK";
  case AP_ERR_ARG: return "AP_ERR_ARG";
  case AP_ERR_NOMEM: return "AP_ERR_NOMEM";
  case AP_ERR_IO: return "AP_ERR_IO";
  case AP_ERR_FORMAT: return "AP_ERR_FORMAT";
  case AP_ERR_UNSUPPORTED: return "AP_ERR_UNSUPPORTED";
  case AP_ERR_OVERFLOW: return "AP_ERR_OVERFLOW";
  case AP_ERR_RANGE: return "AP_ERR_RANGE";
  case AP_ERR_ARENA_TOO_SMALL: return "AP_ERR_ARENA_TOO_SMALL";
  case AP_ERR_NOT_ALLOCATED: return "AP_ERR_NOT_ALLOCATED";
  case AP_ERR_BUSY: return "AP_ERR_BUSY";
  case AP_ERR_BUDGET: return "AP_ERR_BUDGET";
  case AP_ERR_INVALID_PLAN: return "AP_ERR_INVALID_PLAN";
  case AP_ERR_TIMEOUT: return "AP_ERR_TIMEOUT";
  case AP_ERR_KERNEL: return "AP_ERR_KERNEL";
  }
  return "AP_ERR_UNKNOWN";
}

const char *ap_version(void) { return "0.1.0"; }

ap_status ap_vfail(ap_errbuf *e, ap_status s, const char *fmt, va_list ap) {
  if (!e) return s;
  /* Formatted apart first: callers may pass the old message as an argument ("...: %s",
   * e->msg), and vsnprintf from a buffer into itself is undefined. */
  char tmp[sizeof e->msg];
  vsnprintf(tmp, sizeof tmp, fmt, ap);
  memcpy(e->msg, tmp, sizeof tmp);
  return s;
}

/* Parenthesised: the formatting one, defined whatever AP_NO_MESSAGES says. */
ap_status(ap_fail)(ap_errbuf *e, ap_status s, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  ap_vfail(e, s, fmt, ap);
  va_end(ap);
  return s;
}

void ap_fail_code(char *msg, size_t size, ap_status s) {
  /* A loop, not strlen: newlib's costs a firmware 0.2 KB for this one caller. */
  const char *name = ap_status_name(s);
  size_t n = 0;
  if (!msg || !size) return;
  for (; name[n] && n + 1 < size; n++)
    msg[n] = name[n];
  msg[n] = '\0';
}

void ap_err_clear(ap_errbuf *e) {
  if (e) e->msg[0] = '\0';
}
