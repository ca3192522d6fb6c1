/* The host's clock section of the port layer. */
#ifndef AP_PORT_NONE
#include "port/port.h"

#include <time.h>

uint64_t ap_port_now_ns(void) {
  struct timespec ts;
  if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0) return 0;
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
#endif
