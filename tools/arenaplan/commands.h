/* The subcommands, one file each (cmd_NAME.c defines cmd_NAME). */
#ifndef AP_COMMANDS_H
#define AP_COMMANDS_H

#include "cli.h"

extern const ap_command *const ap_commands[];
extern const ap_command cmd_solve;

#endif
