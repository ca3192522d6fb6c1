/* mps3-an547 (Cortex-M55): SysTick on the processor clock, 24 bits, with its wraps counted
 * by the interrupt. QEMU's AN547 clocks the CPU at 32 MHz. */
#include "firmware.h"

#define SYST ((volatile uint32_t *)0xE000E010u) /* CSR, RVR, CVR, CALIB */

static volatile uint32_t wraps;

void SysTick_Handler(void) {
  wraps++;
}

void fw_timer_start(void) {
  SYST[0] = 0;
  SYST[1] = 0xFFFFFFu;
  SYST[2] = 0;
  wraps = 0;
  SYST[0] = 7; /* processor clock, interrupt, enable */
}

uint32_t fw_timer_ticks(void) {
  uint32_t w, v;
  do {
    w = wraps;
    v = SYST[2];
  } while (w != wraps);
  return w * 0x1000000u + (0xFFFFFFu - v);
}

uint32_t fw_timer_hz(void) {
  return 32000000u;
}
