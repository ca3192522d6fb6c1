/* Slow clients (slow_clients.c): a connection must deliver a whole request within
 * connection_timeout of being accepted or of its last answer, else the run loop's sweep cuts
 * it. */
#ifndef AP_SERVE_SLOW_CLIENTS_H
#define AP_SERVE_SLOW_CLIENTS_H

#include "serve_internal.h"

#include <microhttpd.h>

void serve_conns_init(serve_conns *c);
void serve_conns_destroy(serve_conns *c);
/* MHD_OPTION_NOTIFY_CONNECTION's callback (cls: the ap_server). */
void serve_conn_notify(void *cls, struct MHD_Connection *connection, void **socket_context,
                       enum MHD_ConnectionNotificationCode code);
/* A complete request starts being handled (true), or its answer is queued (false). */
void serve_conn_handling(ap_server *s, struct MHD_Connection *connection, bool handling);
/* Shuts down the connections past their time; returns how many. */
size_t serve_conns_sweep(ap_server *s, uint64_t now_us, uint64_t timeout_us);

#endif
