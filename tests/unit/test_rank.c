/* test_rank.c: the NMC offload model (cli/lib/rank.h) and the miss ratio
 * estimated from a reuse histogram (cli/lib/docmetrics.h), against values
 * worked out by hand from the formulas of docs/ranking.md. */
#include "check.h"
#include "docmetrics.h"
#include "numbers.h"
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

/* A machine with round numbers, so the times can be worked out by hand:
 * host 1 core at 1 GHz, 2-wide, no SIMD, a 2-line cache, 1 GB/s, 10 ns,
 * 2 misses in flight; near memory 1-wide, a 1-line cache, 4 GB/s, 5 ns,
 * 1 miss in flight. */
static void hand_model(struct rank_model *model) {
  /* cores, GHz, width, SIMD, cache bytes, GB/s, ns, in flight */
  const struct machine_side host = {1, 1, 2, 1, 128, 1, 10, 2};
  const struct machine_side nmc = {1, 1, 1, 1, 64, 4, 5, 1};
  model->machine = (struct machine){.name = "hand", .host = host, .nmc = nmc};
}

static void test_default_machine(void) {
  struct rank_model model;
  rank_model_init(&model);
  /* machines/default.json */
  EXPECT(model.machine.host.cores == 16 && model.machine.nmc.cores == 32);
  EXPECT(model.machine.host.llc_bytes == 32 << 20);
  EXPECT(model.machine.nmc.bandwidth_gbs == 320);
}

static void test_stream(void) {
  struct rank_model model;
  hand_model(&model);
  json_object *m = parse(Stream);
  struct rank_result r;
  rank_evaluate(&model, m, 0, &r);
  EXPECT(r.valid && r.t.has_reuse && NEAR(r.t.refs, 250));
  EXPECT(!r.t.has_ilp && !r.t.has_dlp);
  /* Host, 2 lines: the 50 cold miss, distance 1 hits; traffic 3200 B.
   * No ILP: full width 2, 2 in flight. compute 1000 / 2 = 500 ns,
   * bandwidth 3200 / 1 = 3200 ns, latency 50 x 10 / 2 = 250 ns. */
  EXPECT(NEAR(r.host.misses, 50) && NEAR(r.host.traffic, 3200));
  EXPECT(NEAR(r.host.compute, 500) && NEAR(r.host.bandwidth, 3200) &&
         NEAR(r.host.latency, 250) && NEAR(r.host.time, 3200));
  EXPECT(strcmp(rank_bound(&r.host), "bandwidth") == 0);
  /* Near memory, 1 line: 50 cold + 50 at distance 1 miss; 6400 B.
   * compute 1000, bandwidth 6400 / 4 = 1600, latency 100 x 5 = 500. */
  EXPECT(NEAR(r.nmc.misses, 100) && NEAR(r.nmc.compute, 1000) &&
         NEAR(r.nmc.bandwidth, 1600) && NEAR(r.nmc.latency, 500));
  EXPECT(NEAR(r.speedup, 2) && NEAR(r.score, 1));
  EXPECT(NEAR(r.intensity, 1000.0 / 3200));
  json_object_put(m);
}

static void test_bounded_window(void) {
  struct rank_model model;
  hand_model(&model);
  /* The unlimited window (0) is passed over for the largest finite one:
   * ILP 1.5, memory ILP 1; DLP2 3. 1000 instructions, no memory. */
  json_object *m = parse("{\"instructions\": 1000,"
                         " \"ilp\": [{\"window\": 0, \"ilp\": 50, "
                         "\"categories\": {\"memory\": 40}},"
                         "         {\"window\": 16, \"ilp\": 1.2, "
                         "\"categories\": {\"memory\": 1}},"
                         "         {\"window\": 64, \"ilp\": 1.5, "
                         "\"categories\": {\"memory\": 1}}],"
                         " \"dlp\": {\"dlp1\": 3, \"dlp2\": 3}}");
  struct rank_result r;
  rank_evaluate(&model, m, 0, &r);
  EXPECT(r.t.has_ilp && r.t.window == 64 && NEAR(r.t.ilp, 1.5) &&
         NEAR(r.t.mlp, 1) && NEAR(r.t.dlp2, 3));
  /* Host: issue min(2, 1.5), lanes min(1, 3), 1 in flight; compute
   * 1000 / 1.5. Near memory: issue min(1, 1.5) = 1: compute 1000. No
   * traffic (no histogram, no bytes): both compute-bound. */
  EXPECT(NEAR(r.host.issue, 1.5) && NEAR(r.host.lanes, 1) &&
         NEAR(r.host.inflight, 1));
  EXPECT(NEAR(r.host.time, 1000 / 1.5) && NEAR(r.nmc.time, 1000));
  EXPECT(strcmp(rank_bound(&r.nmc), "compute") == 0);
  EXPECT(NEAR(r.speedup, 1.0 / 1.5) && r.intensity < 0);
  json_object_put(m);
}

static void test_counter(void) {
  struct rank_model model;
  hand_model(&model);
  json_object *m = parse(Stream);
  struct rank_result r;
  /* Counter mode: no cache: 2000 bytes = 31.25 lines. Host compute 500,
   * bandwidth 2000, latency 31.25 x 10 / 2; near memory compute 1000,
   * bandwidth 500, latency 31.25 x 5. */
  rank_evaluate(&model, m, 1, &r);
  EXPECT(!r.t.has_reuse && NEAR(r.host.traffic, 2000));
  EXPECT(NEAR(r.host.time, 2000) && NEAR(r.host.latency, 156.25));
  EXPECT(NEAR(r.nmc.time, 1000) && NEAR(r.speedup, 2));
  json_object_put(m);
}

static void test_fits(void) {
  struct rank_model model;
  hand_model(&model);
  /* 100 bytes fit the host's 128; 1000 do not. */
  json_object *small = parse("{\"instructions\": 10, \"footprint\": "
                             "{\"bytes\": 100}, \"reuse_distance\": "
                             "[{\"line_bytes\": 64, \"cold\": 2}]}");
  json_object *large = parse("{\"instructions\": 10, \"footprint\": "
                             "{\"bytes\": 1000}, \"reuse_distance\": "
                             "[{\"line_bytes\": 64, \"cold\": 16}]}");
  struct rank_result r;
  struct strbuf b = {0};
  rank_evaluate(&model, small, 0, &r);
  EXPECT(r.fits);
  rank_explain(&b, &model, &r, "");
  EXPECT(strstr(b.data, "fits the host's 128 B cache") != NULL);
  rank_evaluate(&model, large, 0, &r);
  EXPECT(!r.fits);
  sb_free(&b);
  json_object_put(small);
  json_object_put(large);
}

static void test_nothing_present(void) {
  struct rank_model model;
  rank_model_init(&model);
  json_object *m = parse("{\"instructions\": 0}");
  struct rank_result r;
  rank_evaluate(&model, m, 0, &r);
  EXPECT(!r.valid);
  json_object_put(m);
}

/* parse_size (numbers.h), which --llc-bytes and run's --memory-limit
 * share: values worked out by hand. */
static void test_sizes(void) {
  uint64_t v = 0;
  EXPECT(parse_size("64", 64, 1e18, &v) == 0 && v == 64);
  EXPECT(parse_size("1K", 0, 1e18, &v) == 0 && v == 1024);
  EXPECT(parse_size("1.5m", 0, 1e18, &v) == 0 && v == 1536 * 1024);
  EXPECT(parse_size("2G", 0, 1e18, &v) == 0 && v == 2ull << 30);
  EXPECT(parse_size("3T", 0, 1e18, &v) == 0 && v == 3ull << 40);
  EXPECT(parse_size("63", 64, 1e18, &v) == -1);
  EXPECT(parse_size("1M", 0, 1e6, &v) == -1); /* 1048576 > max */
  EXPECT(parse_size("12Q", 0, 1e18, &v) == -1);
  EXPECT(parse_size("1KB", 0, 1e18, &v) == -1);
  EXPECT(parse_size("-1", 0, 1e18, &v) == -1);
  EXPECT(parse_size(" 1", 0, 1e18, &v) == -1);
  EXPECT(parse_size("", 0, 1e18, &v) == -1);
  EXPECT(parse_size("1e400", 0, 1e18, &v) == -1);
}

int main(void) {
  RUN(test_sizes);
  RUN(test_miss_power_of_two);
  RUN(test_miss_interpolated);
  RUN(test_default_machine);
  RUN(test_stream);
  RUN(test_bounded_window);
  RUN(test_counter);
  RUN(test_fits);
  RUN(test_nothing_present);
  return check_summary();
}
