/* Slow clients (issue 26: one byte a second). libmicrohttpd's connection timeout counts
 * inactivity only, so a client trickling a byte a second would keep its connection, and its
 * share of a worker, forever. Here a connection must deliver a whole request within
 * connection_timeout of being accepted or of its last answer; the run loop's sweep shuts down
 * the socket of one past that (libmicrohttpd then closes it as it would a client's hang-up).
 * A request being handled (an inference waits for room up to request_timeout) is exempt. */
#include "slow_clients.h"

#include <stdlib.h>
#include <sys/socket.h>

typedef struct serve_conn {
  int fd;
  uint64_t since_us; /* accepted, or its last answer queued */
  bool handling;     /* a complete request is being answered */
  bool cut;          /* shut down by the sweep (once) */
  struct serve_conn *prev, *next;
} serve_conn;

void serve_conns_init(serve_conns *c) {
  pthread_mutex_init(&c->mu, NULL);
  c->head = NULL;
  c->dropped = 0;
}

void serve_conns_destroy(serve_conns *c) {
  /* The daemon is stopped: every connection was reported closed and its record freed. */
  pthread_mutex_destroy(&c->mu);
}

/* MHD_OPTION_NOTIFY_CONNECTION. libmicrohttpd reports a connection closed before it closes
 * the socket, so while a record is listed (under mu) its fd is that connection's. */
void serve_conn_notify(void *cls, struct MHD_Connection *connection, void **socket_context,
                       enum MHD_ConnectionNotificationCode code) {
  serve_conns *c = &((ap_server *)cls)->conns;
  if (code == MHD_CONNECTION_NOTIFY_STARTED) {
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    serve_conn *r = info ? calloc(1, sizeof *r) : NULL;
    *socket_context = r;
    if (!r) return; /* not tracked: it still has libmicrohttpd's inactivity timeout */
    r->fd = info->connect_fd;
    r->since_us = serve_now_us();
    pthread_mutex_lock(&c->mu);
    r->next = c->head;
    if (c->head) c->head->prev = r;
    c->head = r;
    pthread_mutex_unlock(&c->mu);
  } else if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
    serve_conn *r = *socket_context;
    if (!r) return;
    pthread_mutex_lock(&c->mu);
    if (r->prev)
      r->prev->next = r->next;
    else
      c->head = r->next;
    if (r->next) r->next->prev = r->prev;
    pthread_mutex_unlock(&c->mu);
    free(r);
    *socket_context = NULL;
  }
}

static serve_conn *record_of(struct MHD_Connection *connection) {
  const union MHD_ConnectionInfo *info =
      MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
  return info ? info->socket_context : NULL;
}

void serve_conn_handling(ap_server *s, struct MHD_Connection *connection, bool handling) {
  serve_conn *r = record_of(connection);
  if (!r) return;
  pthread_mutex_lock(&s->conns.mu);
  r->handling = handling;
  r->since_us = serve_now_us(); /* done: the next request (or the answer's sending) starts now */
  pthread_mutex_unlock(&s->conns.mu);
}

size_t serve_conns_sweep(ap_server *s, uint64_t now_us, uint64_t timeout_us) {
  size_t cut = 0;
  pthread_mutex_lock(&s->conns.mu);
  for (serve_conn *r = s->conns.head; r; r = r->next)
    if (!r->handling && !r->cut && now_us > r->since_us && now_us - r->since_us > timeout_us) {
      shutdown(r->fd, SHUT_RDWR);
      r->cut = true;
      cut++;
    }
  s->conns.dropped += cut;
  pthread_mutex_unlock(&s->conns.mu);
  return cut;
}
