/* What startup.c gives the example's main: semihosting output and exit, and the painted
 * stack's peak. */
#ifndef AP_FIRMWARE_H
#define AP_FIRMWARE_H

#include <stdint.h>

void fw_puts(const char *s);
void fw_exit(int code) __attribute__((noreturn));
void fw_stack_paint(void);
uint32_t fw_stack_peak(void); /* bytes of stack touched since the last paint */
uint32_t fw_stack_size(void);
uint32_t fw_heap_peak(void); /* bytes of the static heap malloc has taken */
uint32_t fw_heap_size(void);

/* The board's counter for instructions per invoke (QEMU -icount shift=0: one instruction
 * per nanosecond of virtual time). */
void fw_timer_start(void);
uint32_t fw_timer_ticks(void);
uint32_t fw_timer_hz(void); /* the counter's frequency (QEMU's virtual clock) */

#endif
