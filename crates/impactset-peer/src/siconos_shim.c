/* The peer's side of the benchmark: one LCP matrix, many right-hand sides,
 * each solved by Siconos' lcp_lexicolemke with its default options. */
#include <stdlib.h>
#include <string.h>

#include "LCP_Solvers.h"
#include "LinearComplementarityProblem.h"
#include "NumericsMatrix.h"
#include "SolverOptions.h"
#include "lcp_cst.h"

typedef struct {
  LinearComplementarityProblem problem;
  SolverOptions *options;
} peer_lcp;

/* A = row-major n x n (Siconos stores dense matrices column-major). */
peer_lcp *peer_new(int n, const double *a) {
  peer_lcp *p = calloc(1, sizeof(peer_lcp));
  p->problem.size = n;
  p->problem.M = NM_create(NM_DENSE, n, n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) p->problem.M->matrix0[j * n + i] = a[i * n + j];
  p->problem.q = calloc((size_t)n, sizeof(double));
  p->options = solver_options_create(SICONOS_LCP_LEMKE);
  return p;
}

/* The default pivot cap of Siconos' Lemke. */
int peer_max_iterations(const peer_lcp *p) { return p->options->iparam[SICONOS_IPARAM_MAX_ITER]; }

/* Solves with q; returns Siconos' info (0: solved), pivots in *iterations. */
int peer_solve(peer_lcp *p, const double *q, double *z, double *w, int *iterations) {
  int info = 0;
  memcpy(p->problem.q, q, (size_t)p->problem.size * sizeof(double));
  lcp_lexicolemke(&p->problem, z, w, &info, p->options);
  *iterations = p->options->iparam[SICONOS_IPARAM_ITER_DONE];
  return info;
}

void peer_free(peer_lcp *p) {
  NM_free(p->problem.M);
  free(p->problem.q);
  solver_options_delete(p->options);
  free(p);
}
