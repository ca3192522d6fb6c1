/* mps2-an386 (Cortex-M4): CMSDK APB timer 0 at 0x40000000, counting down at 25 MHz. */
#include "firmware.h"

#define TIMER0 ((volatile uint32_t *)0x40000000u) /* CTRL, VALUE, RELOAD, INTSTATUS */

void fw_timer_start(void) {
  TIMER0[0] = 0;
  TIMER0[2] = 0xFFFFFFFFu;
  TIMER0[1] = 0xFFFFFFFFu;
  TIMER0[0] = 1; /* enable, no interrupt */
}

uint32_t fw_timer_ticks(void) {
  return 0xFFFFFFFFu - TIMER0[1];
}

uint32_t fw_timer_hz(void) {
  return 25000000u;
}
