/*
 * Scans of one problem taking turns on one core (--alternate N): by default the scan order as given and its mirror,
 * which starts from another corner of the solution; with --scans, any list of up to ALT_MAX scans, each a pinned
 * corner piece (--corner) and a direction (mirrored or not). No tree is smaller in general (on Brendan's boards
 * either of two needs 1.2-20x the placements of the other to the first board, BENCHMARKS.md "Frontier 2"), so
 * running k of them, N placements at a time each, reaches the first board within about k times the smallest one's
 * placements.
 *
 * Each scan is search_run on its own state in its own thread, but only the thread holding the turn runs: the others
 * wait on a condition variable (no CPU), so the process uses one core. A scan hands the turn to the next one still
 * running at its first check point (search_check) after N placements. Every scan is a complete search, so the first
 * one that finds a board or exhausts its tree decides, and the others stop. The node limit is split among them.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "engine.h"
#include "search.h"

struct alt {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int turn;           /* the scan that may run */
  int k;              /* scans */
  bool done[ALT_MAX];
  bool decided;       /* a scan found a board or exhausted its tree: the other stops */
  uint64_t slice;
  uint64_t nodes[ALT_MAX];  /* each scan's placements at its last hand-over */
  double covered[ALT_MAX];  /* each scan's covered fraction at its last progress line */
  int depth[ALT_MAX];       /* and its deepest position */
  struct timespec t0;
};

typedef struct {
  const puzzle_t *p;
  options_t o;
  result_t r;
  struct alt *alt;
  int me;
} scan_t;

/* The next scan after `me` still running (me itself when it is the last). Called with the mutex held. */
static int next_turn(const struct alt *a, int me) {
  for (int j = 1; j <= a->k; j++) {
    int t = (me + j) % a->k;
    if (!a->done[t]) return t;
  }
  return me;
}

/* Waits for the turn (or the end); true when this scan is to stop. Called with the mutex held. */
static bool wait_turn(struct alt *a, int me) {
  while (a->turn != me && !a->decided && !engine_stop_requested) pthread_cond_wait(&a->cv, &a->mu);
  return a->decided;
}

bool alt_begin(struct alt *a, int me, struct timespec *t0, uint64_t *slice) {
  pthread_mutex_lock(&a->mu);
  bool stop = wait_turn(a, me);
  *t0 = a->t0;
  *slice = a->slice;
  pthread_mutex_unlock(&a->mu);
  return stop;
}

int alt_check(ctx_t *x, uint64_t nodes) {
  struct alt *a = x->alt;
  if (nodes < x->alt_until) return -1;
  pthread_mutex_lock(&a->mu);
  a->nodes[x->alt_me] = nodes;
  int next = next_turn(a, x->alt_me);
  if (next != x->alt_me) {
    a->turn = next;
    pthread_cond_broadcast(&a->cv);
  }
  bool stop = wait_turn(a, x->alt_me);
  pthread_mutex_unlock(&a->mu);
  x->alt_until = nodes + a->slice;
  return stop ? END_STOPPED : -1;
}

/* For a progress line: every scan's placements, and the largest covered fraction and depth among them (each scan
 * searches the whole space, so any one's share is searched). Only the scan holding the turn calls it. */
uint64_t alt_progress(ctx_t *x, uint64_t nodes, double *covered, int *depth) {
  struct alt *a = x->alt;
  int me = x->alt_me;
  a->covered[me] = *covered;
  a->depth[me] = *depth;
  uint64_t all = nodes;
  for (int t = 0; t < a->k; t++) {
    if (t == me) continue;
    if (a->covered[t] > *covered) *covered = a->covered[t];
    if (a->depth[t] > *depth) *depth = a->depth[t];
    all += a->nodes[t];
  }
  return all;
}

static void *run_scan(void *arg) {
  scan_t *s = arg;
  struct alt *a = s->alt;
  search_run(s->p, &s->o, &s->r, a, s->me);
  pthread_mutex_lock(&a->mu);
  a->done[s->me] = true;
  a->nodes[s->me] = s->r.nodes;
  if (s->r.solutions > 0 || s->r.end == END_EXHAUSTED) a->decided = true;
  a->turn = next_turn(a, s->me);
  pthread_cond_broadcast(&a->cv);
  pthread_mutex_unlock(&a->mu);
  return NULL;
}

/* The scan whose result stands: the first that decided, else the first that stopped on its own (a limit), else 0. */
static int winner(const scan_t *s, int n) {
  for (int k = 0; k < n; k++) if (s[k].r.solutions > 0 || s[k].r.end == END_EXHAUSTED) return k;
  for (int k = 0; k < n; k++) if (s[k].r.end != END_STOPPED) return k;
  return 0;
}

/* The scans to run: the list given (each once: two that pin the same piece in the same direction are one tree), or
 * the scan and its mirror. */
static int scan_list(const puzzle_t *p, const options_t *o, int corner[ALT_MAX], bool mirror[ALT_MAX]) {
  if (!o->nscans) {
    corner[0] = corner[1] = o->corner;
    mirror[0] = o->mirror;
    mirror[1] = !o->mirror;
    return 2;
  }
  int n = 0;
  for (int k = 0; k < o->nscans; k++) {
    options_t one = *o;
    one.corner = o->scan_corner[k];
    int c = symmetry_corner(p, &one);
    bool seen = false;
    for (int j = 0; j < n; j++) seen = seen || (corner[j] == c && mirror[j] == o->scan_mirror[k]);
    if (seen) continue;
    corner[n] = c;
    mirror[n++] = o->scan_mirror[k];
  }
  return n;
}

void engine_alternate(const puzzle_t *p, const options_t *o, result_t *r) {
  int corner[ALT_MAX];
  bool mirror[ALT_MAX];
  int n = scan_list(p, o, corner, mirror);
  struct alt a = { .turn = 0, .k = n, .slice = o->alternate };
  pthread_mutex_init(&a.mu, NULL);
  pthread_cond_init(&a.cv, NULL);
  clock_gettime(CLOCK_MONOTONIC, &a.t0);
  scan_t s[ALT_MAX];
  pthread_t th[ALT_MAX];
  for (int k = 0; k < n; k++) {
    s[k] = (scan_t){ .p = p, .o = *o, .alt = &a, .me = k };
    s[k].o.alternate = 0;
    s[k].o.nscans = 0;
    s[k].o.corner = corner[k];
    s[k].o.mirror = mirror[k];
    if (o->node_limit) s[k].o.node_limit = o->node_limit / (uint64_t)n + (k < (int)(o->node_limit % (uint64_t)n));
    if (s[k].o.node_limit == 0 && o->node_limit) s[k].o.node_limit = 1;
    s[k].r.board_piece_buf = malloc(sizeof(int) * (size_t)p->cells);
    s[k].r.board_rot_buf = malloc(sizeof(int) * (size_t)p->cells);
    pthread_create(&th[k], NULL, run_scan, &s[k]);
  }
  for (int k = 0; k < n; k++) pthread_join(th[k], NULL);
  int w = winner(s, n);
  *r = (result_t){ .end = s[w].r.end, .solutions = s[w].r.solutions, .positions = s[w].r.positions, .part_depth = -1,
                   .board_piece_buf = r->board_piece_buf, .board_rot_buf = r->board_rot_buf };
  if (s[w].r.solutions > 0) {
    memcpy(r->board_piece_buf, s[w].r.board_piece_buf, sizeof(int) * (size_t)p->cells);
    memcpy(r->board_rot_buf, s[w].r.board_rot_buf, sizeof(int) * (size_t)p->cells);
  }
  for (int k = 0; k < n; k++) {
    r->nodes += s[k].r.nodes;
    if (s[k].r.max_depth > r->max_depth) r->max_depth = s[k].r.max_depth;
    free(s[k].r.board_piece_buf);
    free(s[k].r.board_rot_buf);
  }
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  r->seconds = (double)(t.tv_sec - a.t0.tv_sec) + (double)(t.tv_nsec - a.t0.tv_nsec) * 1e-9;
  pthread_cond_destroy(&a.cv);
  pthread_mutex_destroy(&a.mu);
}
