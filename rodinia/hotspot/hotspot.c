/* hotspot.c: Rodinia hotspot, written for pisa-char. Transient thermal
 * simulation of a chip (the HotSpot compact model): a SIZE x SIZE grid of
 * cells, each exchanging heat with its four neighbours and the ambient
 * through the package, heated by its own power dissipation, advanced
 * ITERATIONS explicit time steps. The rows of a step in parallel (OpenMP). */
#include "rd_support.h"

/* Silicon and package properties of the HotSpot model (SI units). */
#define CHIP_HEIGHT 0.016
#define CHIP_WIDTH 0.016
#define CHIP_THICKNESS 0.0005
#define SI_CONDUCTIVITY 100.0
#define SI_SPECIFIC_HEAT 1.75e6
#define HEAT_FACTOR 0.5 /* share of the chip's heat capacity per cell */
#define MAX_POWER_DENSITY 3.0e6
#define PRECISION 0.001
#define AMBIENT 318.15 /* K, 45 degrees C */
#define UNIT_TILES 8   /* functional units per side of the floorplan */

/* The thermal conductances of one cell (1/R) to its east-west and
 * north-south neighbours and to the ambient, and the time step over the
 * cell's heat capacity. */
struct model {
  double step_per_cap, gx, gy, gz;
};

static struct model make_model(long size) {
  double w = CHIP_WIDTH / (double)size, h = CHIP_HEIGHT / (double)size;
  double cap = HEAT_FACTOR * SI_SPECIFIC_HEAT * CHIP_THICKNESS * w * h;
  double rx = w / (2.0 * SI_CONDUCTIVITY * CHIP_THICKNESS * h);
  double ry = h / (2.0 * SI_CONDUCTIVITY * CHIP_THICKNESS * w);
  double rz = CHIP_THICKNESS / (SI_CONDUCTIVITY * h * w);
  double max_slope =
      MAX_POWER_DENSITY / (HEAT_FACTOR * CHIP_THICKNESS * SI_SPECIFIC_HEAT);
  struct model m = {PRECISION / max_slope / cap, 1.0 / rx, 1.0 / ry, 1.0 / rz};
  /* An explicit step is stable while a cell keeps a positive weight on its
   * own temperature: on grids finer than about 1500 x 1500 the model's
   * step is too long, so it is cut to keep half that weight. */
  double own = m.step_per_cap * (2.0 * m.gx + 2.0 * m.gy + m.gz);
  if (own > 0.5)
    m.step_per_cap *= 0.5 / own;
  return m;
}

/* A floorplan of UNIT_TILES x UNIT_TILES functional units, each with its
 * own power density (a few hot ones), plus a little per-cell noise; and an
 * initial temperature a few kelvin around 323 K. */
static void make_chip(long size, double *power, double *temp) {
  struct rd_rng rng = rd_rng_make(11);
  double unit_density[UNIT_TILES * UNIT_TILES];
  for (int u = 0; u < UNIT_TILES * UNIT_TILES; u++) {
    double d = rd_rng_uniform(&rng);
    unit_density[u] = MAX_POWER_DENSITY * (d > 0.85 ? 0.5 * d : 0.05 * d);
  }
  double cell_area = (CHIP_WIDTH / size) * (CHIP_HEIGHT / size);
  for (long i = 0; i < size; i++)
    for (long j = 0; j < size; j++) {
      long unit = (i * UNIT_TILES / size) * UNIT_TILES + j * UNIT_TILES / size;
      double noise = 0.9 + 0.2 * rd_rng_uniform(&rng);
      power[i * size + j] = unit_density[unit] * cell_area * noise;
      temp[i * size + j] = 318.0 + 10.0 * rd_rng_uniform(&rng);
    }
}

/* One time step of row i: each cell moves by its power, the flows from its
 * neighbours (an edge cell is its own missing neighbour) and the flow to
 * the ambient. */
static inline void step_row(struct model m, long size, long i,
                            const double *power, const double *t,
                            double *next) {
  const double *row = t + i * size;
  const double *north = t + (i > 0 ? i - 1 : i) * size;
  const double *south = t + (i + 1 < size ? i + 1 : i) * size;
  for (long j = 0; j < size; j++) {
    double west = row[j > 0 ? j - 1 : j], east = row[j + 1 < size ? j + 1 : j];
    double flow =
        power[i * size + j] + (north[j] + south[j] - 2.0 * row[j]) * m.gy +
        (east + west - 2.0 * row[j]) * m.gx + (AMBIENT - row[j]) * m.gz;
    next[i * size + j] = row[j] + m.step_per_cap * flow;
  }
}

/* ITERATIONS steps between temp and scratch; returns the array holding the
 * final temperatures. */
RD_KERNEL double *hotspot(long size, long iterations, const double *power,
                          double *temp, double *scratch) {
  struct model m = make_model(size);
  double *t = temp, *next = scratch;
  for (long it = 0; it < iterations; it++) {
#pragma omp parallel for schedule(static)
    for (long i = 0; i < size; i++)
      step_row(m, size, i, power, t, next);
    double *swap = t;
    t = next;
    next = swap;
  }
  return t;
}

int main(int argc, char **argv) {
  long param[2] = {256, 20}; /* SIZE ITERATIONS */
  rd_parse_args(argc, argv, "SIZE ITERATIONS", 2, param, 1L << 16);
  long size = param[0], iterations = param[1];
  rd_print_params("hotspot", "SIZE ITERATIONS", 2, param);

  double *power = rd_alloc((size_t)(size * size), sizeof(double));
  double *temp = rd_alloc((size_t)(size * size), sizeof(double));
  double *scratch = rd_alloc((size_t)(size * size), sizeof(double));
  make_chip(size, power, temp);
  RD_ROI_BEGIN();
  double *t = hotspot(size, iterations, power, temp, scratch);
  RD_ROI_END();
  double hottest = t[0];
  for (long i = 1; i < size * size; i++)
    hottest = t[i] > hottest ? t[i] : hottest;
  printf("hotspot: hottest cell %.3f K\n", hottest);
  rd_print_checksum(rd_fold_double(0.0, t, (size_t)(size * size)));
  free(power);
  free(temp);
  free(scratch);
  return 0;
}
