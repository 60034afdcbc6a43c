/* backprop.c: Rodinia backprop, written for pisa-char. Training of a
 * two-layer perceptron (INPUTS inputs, 16 hidden units, one output, a bias
 * unit in each layer) by error back-propagation with momentum, for EPOCHS
 * passes over one random input pattern. The hidden units' sums and the
 * rows of the input-to-hidden weight update run in parallel (OpenMP). */
#include "rd_support.h"

#include <math.h>

#define HIDDEN 16
#define OUTPUTS 1
#define LEARNING_RATE 0.3f
#define MOMENTUM 0.3f
#define TARGET 0.1f

/* Unit 0 of each layer is the bias, fixed at 1. A weight matrix from a
 * layer of n units (plus bias) to one of m has (n + 1) x (m + 1) entries,
 * row k holding unit k's outgoing weights; column 0 is unused. */
struct net {
  long inputs;
  float *in, *hidden, *out;
  float *w_in, *dw_in;   /* inputs -> hidden, and the last changes */
  float *w_out, *dw_out; /* hidden -> output */
  float *delta_hidden, *delta_out;
};

static float *random_floats(struct rd_rng *rng, long n, float lo, float hi) {
  float *a = rd_alloc((size_t)n, sizeof(float));
  for (long i = 0; i < n; i++)
    a[i] = lo + (hi - lo) * (float)rd_rng_uniform(rng);
  return a;
}

/* Random inputs in [0, 1), input weights in [-2, 2) / sqrt(inputs), output
 * weights in [-0.5, 0.5), no changes yet. */
static struct net make_net(long inputs) {
  struct rd_rng rng = rd_rng_make(23);
  struct net n = {.inputs = inputs};
  /* Hidden sums of order 1, so that the units do not saturate. */
  float bound = 2.0f / sqrtf((float)inputs);
  n.in = random_floats(&rng, inputs + 1, 0.0f, 1.0f);
  n.w_in = random_floats(&rng, (inputs + 1) * (HIDDEN + 1), -bound, bound);
  n.w_out = random_floats(&rng, (HIDDEN + 1) * (OUTPUTS + 1), -0.5f, 0.5f);
  n.dw_in = rd_alloc((size_t)((inputs + 1) * (HIDDEN + 1)), sizeof(float));
  n.dw_out = rd_alloc((HIDDEN + 1) * (OUTPUTS + 1), sizeof(float));
  n.hidden = rd_alloc(HIDDEN + 1, sizeof(float));
  n.out = rd_alloc(OUTPUTS + 1, sizeof(float));
  n.delta_hidden = rd_alloc(HIDDEN + 1, sizeof(float));
  n.delta_out = rd_alloc(OUTPUTS + 1, sizeof(float));
  return n;
}

static void free_net(struct net *n) {
  float *parts[] = {n->in,    n->hidden, n->out,          n->w_in,     n->dw_in,
                    n->w_out, n->dw_out, n->delta_hidden, n->delta_out};
  for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
    free(parts[i]);
}

static inline float squash(float x) { return 1.0f / (1.0f + expf(-x)); }

/* to[j] = squash(sum over k of w[k][j] * from[k]), j = 1..m. */
static void layer_forward(const float *from, float *to, const float *w, long n,
                          long m) {
  to[0] = 1.0f;
#pragma omp parallel for schedule(static)
  for (long j = 1; j <= m; j++) {
    float sum = 0.0f;
    for (long k = 0; k <= n; k++)
      sum += w[k * (m + 1) + j] * from[k];
    to[j] = squash(sum);
  }
}

/* w[k][j] += rate * delta[j] * from[k] + momentum * (its last change). */
static void adjust_weights(const float *delta, long m, const float *from,
                           long n, float *w, float *dw) {
#pragma omp parallel for schedule(static)
  for (long k = 0; k <= n; k++)
    for (long j = 1; j <= m; j++) {
      long at = k * (m + 1) + j;
      float change = LEARNING_RATE * delta[j] * from[k] + MOMENTUM * dw[at];
      w[at] += change;
      dw[at] = change;
    }
}

/* The output units' error terms against TARGET; returns their sum of
 * absolute errors. */
static float output_error(struct net *n) {
  float err = 0.0f;
  for (long j = 1; j <= OUTPUTS; j++) {
    float o = n->out[j];
    n->delta_out[j] = o * (1.0f - o) * (TARGET - o);
    err += fabsf(n->delta_out[j]);
  }
  return err;
}

/* The hidden units' error terms, back-propagated through w_out. */
static void hidden_error(struct net *n) {
  for (long j = 1; j <= HIDDEN; j++) {
    float h = n->hidden[j], sum = 0.0f;
    for (long k = 1; k <= OUTPUTS; k++)
      sum += n->delta_out[k] * n->w_out[j * (OUTPUTS + 1) + k];
    n->delta_hidden[j] = h * (1.0f - h) * sum;
  }
}

/* Returns the output error of the last epoch. */
RD_KERNEL float backprop_train(struct net *n, long epochs) {
  float err = 0.0f;
  n->in[0] = 1.0f;
  for (long e = 0; e < epochs; e++) {
    layer_forward(n->in, n->hidden, n->w_in, n->inputs, HIDDEN);
    layer_forward(n->hidden, n->out, n->w_out, HIDDEN, OUTPUTS);
    err = output_error(n);
    hidden_error(n);
    adjust_weights(n->delta_out, OUTPUTS, n->hidden, HIDDEN, n->w_out,
                   n->dw_out);
    adjust_weights(n->delta_hidden, HIDDEN, n->in, n->inputs, n->w_in,
                   n->dw_in);
  }
  return err;
}

int main(int argc, char **argv) {
  long param[2] = {65536, 2}; /* INPUTS EPOCHS */
  rd_parse_args(argc, argv, "INPUTS EPOCHS", 2, param, 1L << 26);
  long inputs = param[0], epochs = param[1];
  rd_print_params("backprop", "INPUTS EPOCHS", 2, param);

  struct net n = make_net(inputs);
  RD_ROI_BEGIN();
  float err = backprop_train(&n, epochs);
  RD_ROI_END();
  printf("backprop: output %.6f, error term %.6g\n", (double)n.out[1],
         (double)err);
  size_t w_in = (size_t)((inputs + 1) * (HIDDEN + 1));
  double sum =
      rd_fold_float((double)n.out[1], n.w_out, (HIDDEN + 1) * (OUTPUTS + 1));
  rd_print_checksum(rd_fold_float(sum, n.w_in, w_in));
  free_net(&n);
  return 0;
}
