/* compress.c: benchmark kernel, a byte-oriented LZ77 compressor (hash chains
 * over a 64 KiB window, LZ4-style sequences) and its decompressor over SIZE
 * bytes of generated text in independent 1 MiB blocks; the round trip must
 * give the input back.  Usage: compress [SIZE [DEPTH]]; prints a checksum. */
#include "kernel.h"
#include <string.h>

#define DEFAULT_SIZE (24L << 20)
#define DEFAULT_DEPTH 32 /* chain candidates tried per position */
#define BLOCK (1L << 20)
#define WINDOW (1L << 16) /* offsets fit in two bytes */
#define HASH_BITS 16
#define MIN_MATCH 4
#define MAX_MATCH 1024 /* a longer match is cut; the search stops there */
#define VOCABULARY 8192

/* ---- Input: words of a skewed vocabulary, like prose --------------------- */

static double uniform(uint64_t *state) {
  return (double)(splitmix64(state) >> 11) * 0x1.0p-53;
}

/* Words of 1 to 11 letters, frequent letters more often. */
static char *make_vocabulary(uint64_t *state, size_t *starts) {
  static const char Letters[] = "etaoinshrdlcumwfgypbvkjxqz";
  char *words = kernel_alloc("compress", VOCABULARY, 12);
  size_t at = 0;
  for (int w = 0; w < VOCABULARY; w++) {
    starts[w] = at;
    int length =
        1 + (int)(splitmix64(state) % 6) + (int)(splitmix64(state) % 6);
    for (int i = 0; i < length; i++) {
      double u = uniform(state);
      words[at++] = Letters[(int)(26 * u * u)];
    }
  }
  starts[VOCABULARY] = at;
  return words;
}

/* A piece of text: a word or a number and what follows it. */
struct piece {
  char bytes[48];
  size_t length;
};

static void append(struct piece *p, const char *bytes, size_t n) {
  for (size_t i = 0; i < n; i++)
    p->bytes[p->length++] = bytes[i];
}

static void append_number(struct piece *p, uint64_t value) {
  char digits[24];
  size_t n = 0;
  do
    digits[sizeof digits - ++n] = (char)('0' + value % 10);
  while (value /= 10);
  append(p, digits + sizeof digits - n, n);
}

/* Text of n bytes: a few words are most of it (a cubed uniform index gives
 * a heavy head), with punctuation, numbers and 72-column lines. */
static void make_text(uint8_t *text, size_t n) {
  uint64_t state = 13;
  size_t starts[VOCABULARY + 1], at = 0, column = 0;
  char *words = make_vocabulary(&state, starts);
  while (at < n) {
    double u = uniform(&state);
    size_t w = (size_t)(VOCABULARY * u * u * u);
    uint64_t r = splitmix64(&state);
    struct piece p = {.length = 0};
    if (r % 29 == 0)
      append_number(&p, r >> 40);
    else
      append(&p, words + starts[w], starts[w + 1] - starts[w]);
    const char *after = r % 13 == 0 ? ", " : r % 17 == 0 ? ". " : " ";
    append(&p, after, strlen(after));
    if (column + p.length > 72) {
      p.bytes[p.length - 1] = '\n';
      column = 0;
    }
    for (size_t i = 0; i < p.length && at < n; i++)
      text[at++] = (uint8_t)p.bytes[i];
    column += p.length;
  }
  free(words);
}

/* ---- Compression --------------------------------------------------------- */

struct chains {
  int32_t head[1 << HASH_BITS]; /* latest position of each hash, or -1 */
  int32_t prev[WINDOW];         /* the one before, by position mod WINDOW */
};

struct match {
  size_t length, distance;
};

static uint32_t hash4(const uint8_t *p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return (v * UINT32_C(2654435761)) >> (32 - HASH_BITS);
}

static void insert(struct chains *c, const uint8_t *src, size_t at) {
  uint32_t h = hash4(src + at);
  c->prev[at & (WINDOW - 1)] = c->head[h];
  c->head[h] = (int32_t)at;
}

static size_t common_length(const uint8_t *src, size_t from, size_t at,
                            size_t n) {
  size_t most = n - at < MAX_MATCH ? n - at : MAX_MATCH, length = 0;
  while (length < most && src[from + length] == src[at + length])
    length++;
  return length;
}

/* The longest match among the first depth candidates of the chain. */
static struct match longest_match(const struct chains *c, const uint8_t *src,
                                  size_t at, size_t n, long depth) {
  struct match best = {0, 0};
  int32_t from = c->head[hash4(src + at)];
  for (long d = 0; d < depth && from >= 0 && at - (size_t)from < WINDOW; d++) {
    size_t length = common_length(src, (size_t)from, at, n);
    if (length > best.length)
      best = (struct match){length, at - (size_t)from};
    if (length == MAX_MATCH)
      break;
    from = c->prev[from & (WINDOW - 1)];
  }
  return best;
}

/* A length over 15 continues in bytes of 255 and a last byte below it. */
static uint8_t *put_length(uint8_t *out, size_t extra) {
  for (; extra >= 255; extra -= 255)
    *out++ = 255;
  *out++ = (uint8_t)extra;
  return out;
}

/* One sequence: token (literal count, match length - MIN_MATCH, a nibble
 * each), literals, two-byte distance; the last one has no match. */
static uint8_t *put_sequence(uint8_t *out, const uint8_t *literals,
                             size_t count, struct match m) {
  size_t extra = m.length ? m.length - MIN_MATCH : 0;
  *out++ =
      (uint8_t)((count < 15 ? count : 15) << 4 | (extra < 15 ? extra : 15));
  if (count >= 15)
    out = put_length(out, count - 15);
  for (size_t i = 0; i < count; i++)
    *out++ = literals[i];
  if (!m.length)
    return out;
  *out++ = (uint8_t)(m.distance & 255);
  *out++ = (uint8_t)(m.distance >> 8);
  return extra >= 15 ? put_length(out, extra - 15) : out;
}

static size_t compress_block(struct chains *c, const uint8_t *src, size_t n,
                             uint8_t *dst, long depth) {
  uint8_t *out = dst;
  size_t at = 0, literals = 0;
  memset(c->head, 0xff, sizeof c->head);
  while (at + MIN_MATCH <= n) {
    struct match m = longest_match(c, src, at, n, depth);
    insert(c, src, at);
    if (m.length < MIN_MATCH) {
      at++;
      continue;
    }
    out = put_sequence(out, src + literals, at - literals, m);
    for (size_t i = at + 1; i < at + m.length && i + MIN_MATCH <= n; i++)
      insert(c, src, i);
    at += m.length;
    literals = at;
  }
  out = put_sequence(out, src + literals, n - literals, (struct match){0, 0});
  return (size_t)(out - dst);
}

/* ---- Decompression ------------------------------------------------------- */

static size_t get_length(const uint8_t **in, size_t nibble) {
  size_t length = nibble;
  if (nibble == 15)
    for (uint8_t byte = 255; byte == 255; length += byte)
      byte = *(*in)++;
  return length;
}

static size_t decompress_block(const uint8_t *src, size_t n, uint8_t *dst) {
  const uint8_t *in = src, *end = src + n;
  uint8_t *out = dst;
  for (;;) {
    unsigned token = *in++;
    size_t count = get_length(&in, token >> 4);
    for (size_t i = 0; i < count; i++)
      *out++ = *in++;
    if (in >= end)
      return (size_t)(out - dst);
    size_t distance = (size_t)in[0] | (size_t)in[1] << 8;
    in += 2;
    size_t length = get_length(&in, token & 15) + MIN_MATCH;
    for (size_t i = 0; i < length; i++, out++)
      *out = *(out - distance); /* may overlap: byte by byte */
  }
}

/* ---- The run ------------------------------------------------------------- */

static size_t block_length(size_t size, size_t b) {
  return size - b * BLOCK < BLOCK ? size - b * BLOCK : BLOCK;
}

static uint64_t fnv1a(uint64_t hash, const uint8_t *p, size_t n) {
  for (size_t i = 0; i < n; i++)
    hash = (hash ^ p[i]) * UINT64_C(0x100000001b3);
  return hash;
}

int main(int argc, char **argv) {
  size_t size = (size_t)kernel_arg("compress", argc, argv, 1, DEFAULT_SIZE);
  long depth = kernel_arg("compress", argc, argv, 2, DEFAULT_DEPTH);
  size_t blocks = (size_t)((size + BLOCK - 1) / BLOCK);
  uint8_t *text = kernel_alloc("compress", size, 1);
  uint8_t *packed =
      kernel_alloc("compress", size + size / 255 + 16 * blocks, 1);
  uint8_t *unpacked = kernel_alloc("compress", BLOCK, 1);
  size_t *packed_size = kernel_alloc("compress", blocks, sizeof(size_t));
  struct chains *chains = kernel_alloc("compress", 1, sizeof(struct chains));
  make_text(text, size);
  uint8_t *out = packed;
  for (size_t b = 0; b < blocks; b++) {
    PISA_ROI_BEGIN("compress");
    packed_size[b] = compress_block(chains, text + b * BLOCK,
                                    block_length(size, b), out, depth);
    PISA_ROI_END("compress");
    out += packed_size[b];
  }
  uint64_t hash =
      fnv1a(UINT64_C(0xcbf29ce484222325), packed, (size_t)(out - packed));
  const uint8_t *in = packed;
  for (size_t b = 0; b < blocks; b++) {
    size_t n = block_length(size, b);
    PISA_ROI_BEGIN("decompress");
    size_t got = decompress_block(in, packed_size[b], unpacked);
    PISA_ROI_END("decompress");
    if (got != n || memcmp(unpacked, text + b * BLOCK, n)) {
      fprintf(stderr, "compress: block %zu does not round-trip\n", b);
      return 1;
    }
    in += packed_size[b];
  }
  printf("compress size=%zu depth=%ld packed=%zu (%.1f%%)\nchecksum %llu\n",
         size, depth, (size_t)(out - packed),
         100.0 * (double)(out - packed) / (double)size,
         (unsigned long long)hash);
  free(text), free(packed), free(unpacked), free(packed_size), free(chains);
  return 0;
}
