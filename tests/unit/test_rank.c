/* test_rank.c: the NMC ranking model (cli/lib/rank.h) and the miss ratio
 * estimated from a reuse histogram (cli/lib/docmetrics.h), against values
 * worked out by hand from the formulas of docs/ranking.md. */
#include "check.h"
#include "docmetrics.h"
#include "rank.h"

#include <json-c/json.h>
#include <math.h>
#include <string.h>

#define NEAR(a, b) (fabs((a) - (b)) < 1e-9)

static json_object *parse(const char *text) { return json_tokener_parse(text); }

/* 1000 instructions, 250 accesses, 2000 bytes, H_6 = 18, strict SLQ 0.5,
 * 64-byte histogram: 50 cold, 150 at distance 0, 50 in [1, 2). */
static const char Stream[] =
    "{\"instructions\": 1000,"
    " \"instruction_mix\": {\"bytes_loaded\": 1600, \"bytes_stored\": 400},"
    " \"memory_accesses\": {\"loads\": 200, \"stores\": 50},"
    " \"memory_entropy\": [20, 20, 20, 20, 20, 19, 18],"
    " \"spatial_locality\": {\"score\": 0.7, \"score_strict\": 0.5},"
    " \"reuse_distance\": [{\"line_bytes\": 64, \"cold\": 50,"
    "                       \"bins\": [150, 50]}]}";

static void test_miss_power_of_two(void) {
  json_object *m = parse(Stream);
  double ratio;
  int interpolated = 0;
  /* 1 line: every access with distance >= 1 misses: 50 + 50 cold. */
  EXPECT(metrics_miss_estimate(m, 64, 64, &ratio, &interpolated));
  EXPECT(NEAR(ratio, 100.0 / 250));
  /* 2 lines: only the cold ones. */
  EXPECT(metrics_miss_estimate(m, 128, 64, &ratio, &interpolated));
  EXPECT(NEAR(ratio, 50.0 / 250));
  EXPECT(!interpolated);
  /* No histogram of 32-byte lines. */
  EXPECT(!metrics_miss_estimate(m, 128, 32, &ratio, &interpolated));
  json_object_put(m);
}

static void test_miss_interpolated(void) {
  /* 100 accesses in bin 3 = distances [4, 8), 20 cold. A 6-line cache:
   * distances 6 and 7 miss, half of the bin: (20 + 50) / 120. */
  json_object *m = parse("{\"reuse_distance\": [{\"line_bytes\": 64,"
                         " \"cold\": 20, \"bins\": [0, 0, 0, 100]}]}");
  double ratio;
  int interpolated = 0;
  EXPECT(metrics_miss_estimate(m, 6 * 64, 64, &ratio, &interpolated));
  EXPECT(NEAR(ratio, 70.0 / 120));
  EXPECT(interpolated);
  /* 5 lines: 5, 6, 7 miss: three quarters. */
  EXPECT(metrics_miss_estimate(m, 5 * 64, 64, &ratio, &interpolated));
  EXPECT(NEAR(ratio, (20 + 75.0) / 120));
  json_object_put(m);
}

static void test_default_model(void) {
  struct rank_model model;
  rank_model_init(&model);
  EXPECT_EQ(model.llc_bytes, 32u << 20);
  json_object *m = parse(Stream);
  struct rank_result r;
  rank_evaluate(&model, m, &r);
  /* access 0.25/0.5, bytes 2/4, entropy 18/24, spatial 1 - 0.5, miss at
   * 32 MiB = cold only = 0.2 with weight 2; weights present 6. */
  EXPECT(NEAR(r.normalised[RANK_INTENSITY], 0.5));
  EXPECT(NEAR(r.normalised[RANK_BYTES], 0.5));
  EXPECT(NEAR(r.normalised[RANK_ENTROPY], 0.75));
  EXPECT(NEAR(r.normalised[RANK_SPATIAL], 0.5));
  EXPECT(NEAR(r.normalised[RANK_MISS], 0.2));
  EXPECT(NEAR(r.contribution[RANK_MISS], 0.4 / 6));
  EXPECT(NEAR(r.score, (0.5 + 0.5 + 0.75 + 0.5 + 0.4) / 6));
  EXPECT(!r.present[RANK_DLP] && !r.present[RANK_BBLP] &&
         !r.present[RANK_PBBLP]);
  EXPECT(r.contribution[RANK_DLP] == 0);
  json_object_put(m);
}

static void test_parallelism(void) {
  struct rank_model model;
  rank_model_init(&model);
  /* dlp2 8 -> log2(8)/6, bblp_smart 4 -> 2/6, pbblp 128 -> capped at 1,
   * access 1.0 -> capped at 1; weights present: access, bytes, 3 x 1. */
  json_object *m = parse("{\"instructions\": 100,"
                         " \"instruction_mix\": {\"bytes_loaded\": 100},"
                         " \"memory_accesses\": {\"loads\": 100},"
                         " \"dlp\": {\"dlp1\": 16, \"dlp2\": 8},"
                         " \"bblp\": {\"bblp\": 1, \"bblp_smart\": 4,"
                         "          \"pbblp\": 128}}");
  struct rank_result r;
  rank_evaluate(&model, m, &r);
  EXPECT(NEAR(r.normalised[RANK_INTENSITY], 1));
  EXPECT(NEAR(r.normalised[RANK_BYTES], 0.25));
  EXPECT(NEAR(r.normalised[RANK_DLP], 0.5));
  EXPECT(NEAR(r.normalised[RANK_BBLP], 2.0 / 6));
  EXPECT(NEAR(r.normalised[RANK_PBBLP], 1));
  EXPECT(NEAR(r.score, (1 + 0.25 + 0.5 + 2.0 / 6 + 1) / 5));
  json_object_put(m);
}

static void test_weights(void) {
  struct rank_model model;
  char err[256];
  rank_model_init(&model);
  EXPECT(rank_parse_weights(&model, "miss=0,entropy=2.5", err, sizeof err) ==
         0);
  EXPECT(model.weights[RANK_MISS] == 0 && model.weights[RANK_ENTROPY] == 2.5);
  json_object *m = parse(Stream);
  struct rank_result r;
  rank_evaluate(&model, m, &r);
  /* Weight 0 keeps the metric present but out of the score. */
  EXPECT(NEAR(r.score, (0.5 + 0.5 + 2.5 * 0.75 + 0.5) / 5.5));
  EXPECT(rank_parse_weights(&model, "speed=1", err, sizeof err) == -1);
  EXPECT(strstr(err, "speed=1") != NULL);
  EXPECT(rank_parse_weights(&model, "miss=-1", err, sizeof err) == -1);
  EXPECT(rank_parse_weights(&model, "miss=", err, sizeof err) == -1);
  EXPECT(rank_parse_weights(&model, "miss=1x", err, sizeof err) == -1);
  json_object_put(m);
}

static void test_nothing_present(void) {
  struct rank_model model;
  rank_model_init(&model);
  json_object *m = parse("{\"instructions\": 0}");
  struct rank_result r;
  rank_evaluate(&model, m, &r);
  EXPECT(r.score < 0);
  json_object_put(m);
}

int main(void) {
  RUN(test_miss_power_of_two);
  RUN(test_miss_interpolated);
  RUN(test_default_model);
  RUN(test_parallelism);
  RUN(test_weights);
  RUN(test_nothing_present);
  return check_summary();
}
