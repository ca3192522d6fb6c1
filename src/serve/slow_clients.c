/* Slow clients (issue 26: one byte a second). libmicrohttpd's connection timeout counts
 * inactivity only, so a client trickling a byte a second would keep its connection, and its
 * share of a worker, forever. Here a connection must deliver a whole request within
 * connection_timeout of being accepted or of its last answer; the run loop's sweep shuts down
 * the socket of one past that (libmicrohttpd then closes it as it would a client's hang-up).
 * A request being handled (an inference waits for room up to request_timeout) is exempt.
 *
 * Only time the connection's worker could have read it counts. A libmicrohttpd worker serves
 * its connections one at a time, and a handler blocks it for a whole inference: a client
 * whose request sits in its socket behind other connections' seconds-long inferences is
 * queued by us, not slow (CI's ASan run cut 6 of 158 keep-alive requests that way, with 64
 * connections on 4 workers). So each worker keeps the time it has spent handling requests,
 * and a connection is charged its wall time less its worker's busy time over the same span. A
 * connection whose worker is never idle is never cut; it costs a connection slot
 * (max_connections), not a worker's time. libmicrohttpd's own inactivity timeout is off
 * (server.c): it would count the same queueing against the client. */
#include "slow_clients.h"

#include <stdlib.h>
#include <sys/socket.h>

typedef struct serve_conn {
  int fd;
  serve_worker *worker; /* the thread that accepted it and runs its handlers; NULL: unknown */
  uint64_t since_us;    /* accepted, or its last answer queued */
  uint64_t busy_mark;   /* its worker's busy time at since_us */
  bool handling;        /* a complete request is being answered */
  bool cut;             /* shut down by the sweep (once) */
  struct serve_conn *prev, *next;
} serve_conn;

void serve_conns_init(serve_conns *c) {
  pthread_mutex_init(&c->mu, NULL);
  c->head = NULL;
  c->dropped = 0;
  c->worker_count = 0;
}

/* The calling thread's record (under mu), made on its first call; NULL when the table is full
 * (its connections are then charged their whole wall time, as before). */
static serve_worker *this_worker(serve_conns *c) {
  pthread_t me = pthread_self();
  for (size_t i = 0; i < c->worker_count; i++)
    if (pthread_equal(c->workers[i].thread, me)) return &c->workers[i];
  if (c->worker_count == SERVE_MAX_WORKERS) return NULL;
  serve_worker *w = &c->workers[c->worker_count++];
  *w = (serve_worker){.thread = me};
  return w;
}

/* The worker's time spent handling requests up to now_us. */
static uint64_t busy_at(const serve_worker *w, uint64_t now_us) {
  if (!w) return 0;
  return w->busy_us + (w->depth && now_us > w->busy_since_us ? now_us - w->busy_since_us : 0);
}

/* The time the connection has been charged since since_us: its worker's idle time. */
static uint64_t charged(const serve_conn *r, uint64_t now_us) {
  uint64_t wall = now_us > r->since_us ? now_us - r->since_us : 0;
  uint64_t busy = busy_at(r->worker, now_us) - r->busy_mark;
  return wall > busy ? wall - busy : 0;
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
    if (!r) {
      /* Untracked, nothing would ever time it out (libmicrohttpd's own timeout is off):
       * refused, as a connection over max_connections would be. */
      if (info) shutdown(info->connect_fd, SHUT_RDWR);
      return;
    }
    r->fd = info->connect_fd;
    pthread_mutex_lock(&c->mu);
    r->worker = this_worker(c);
    r->since_us = serve_now_us();
    r->busy_mark = busy_at(r->worker, r->since_us);
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
  pthread_mutex_lock(&s->conns.mu);
  uint64_t now = serve_now_us();
  /* The handler blocks this thread, whichever connection it answers. */
  serve_worker *w = this_worker(&s->conns);
  if (w && handling && w->depth++ == 0) w->busy_since_us = now;
  if (w && !handling && w->depth && --w->depth == 0)
    w->busy_us += now > w->busy_since_us ? now - w->busy_since_us : 0;
  if (r) {
    r->handling = handling;
    r->since_us = now; /* done: the next request (or the answer's sending) starts now */
    r->busy_mark = busy_at(r->worker, now);
  }
  pthread_mutex_unlock(&s->conns.mu);
}

size_t serve_conns_sweep(ap_server *s, uint64_t now_us, uint64_t timeout_us) {
  size_t cut = 0;
  pthread_mutex_lock(&s->conns.mu);
  for (serve_conn *r = s->conns.head; r; r = r->next)
    if (!r->handling && !r->cut && charged(r, now_us) > timeout_us) {
      shutdown(r->fd, SHUT_RDWR);
      r->cut = true;
      cut++;
    }
  s->conns.dropped += cut;
  pthread_mutex_unlock(&s->conns.mu);
  return cut;
}
