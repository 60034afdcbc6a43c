/* hashtable.c: benchmark kernel, an open-addressing hash table of 64-bit keys
 * and values (linear probing, deletion by backward shift, doubling when 3/4
 * full): KEYS inserts, then OPS operations mixing lookups that hit, lookups
 * that miss, inserts and deletes.  Usage: hashtable [KEYS [OPS]]. */
#include "kernel.h"
#include <string.h>

#define DEFAULT_KEYS (1L << 22)
#define DEFAULT_OPS (1L << 22)
#define CHUNK 65536 /* operations per region of interest */
/* Keys never inserted, for lookups that miss: key_of(i) for i below this
 * are the inserted ones. */
#define MISSING_BASE (UINT64_C(1) << 62)

struct slot {
  uint64_t key; /* 0: empty */
  uint64_t value;
};

struct table {
  struct slot *slots;
  uint64_t mask; /* capacity - 1, a power of two */
  uint64_t live;
  int bits;
};

/* The key of the i-th insert (i >= 1): splitmix64's finaliser, a bijection
 * that maps only 0 to 0, so keys are distinct and never the empty mark. */
static uint64_t key_of(uint64_t i) {
  i = (i ^ (i >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
  i = (i ^ (i >> 27)) * UINT64_C(0x94d049bb133111eb);
  return i ^ (i >> 31);
}

static uint64_t home(const struct table *t, uint64_t key) {
  return (key * UINT64_C(0x9e3779b97f4a7c15)) >> (64 - t->bits);
}

static void table_init(struct table *t, int bits) {
  t->bits = bits;
  t->mask = (UINT64_C(1) << bits) - 1;
  t->live = 0;
  t->slots = kernel_alloc("hashtable", t->mask + 1, sizeof(struct slot));
  memset(t->slots, 0, (t->mask + 1) * sizeof(struct slot));
}

/* The slot holding key, or the empty slot that ends its probe sequence. */
static uint64_t probe(const struct table *t, uint64_t key) {
  uint64_t i = home(t, key);
  while (t->slots[i].key && t->slots[i].key != key)
    i = (i + 1) & t->mask;
  return i;
}

static void place(struct table *t, uint64_t key, uint64_t value) {
  uint64_t i = probe(t, key);
  t->live += t->slots[i].key == 0;
  t->slots[i] = (struct slot){key, value};
}

static void grow(struct table *t) {
  struct table bigger;
  table_init(&bigger, t->bits + 1);
  for (uint64_t i = 0; i <= t->mask; i++)
    if (t->slots[i].key)
      place(&bigger, t->slots[i].key, t->slots[i].value);
  free(t->slots);
  *t = bigger;
}

static void insert(struct table *t, uint64_t key, uint64_t value) {
  if (4 * (t->live + 1) > 3 * (t->mask + 1))
    grow(t);
  place(t, key, value);
}

static const struct slot *lookup(const struct table *t, uint64_t key) {
  const struct slot *s = &t->slots[probe(t, key)];
  return s->key ? s : NULL;
}

/* Whether slot j's entry, whose probe starts at k, may move back to slot i:
 * when k is not cyclically in (i, j]. */
static int may_move(uint64_t i, uint64_t j, uint64_t k) {
  return i <= j ? k <= i || k > j : k <= i && k > j;
}

/* Removes key, moving later entries of the cluster back so that no probe
 * sequence has a hole (Knuth's algorithm R): no tombstones. */
static int erase(struct table *t, uint64_t key) {
  uint64_t i = probe(t, key);
  if (!t->slots[i].key)
    return 0;
  for (uint64_t j = (i + 1) & t->mask; t->slots[j].key; j = (j + 1) & t->mask)
    if (may_move(i, j, home(t, t->slots[j].key))) {
      t->slots[i] = t->slots[j];
      i = j;
    }
  t->slots[i].key = 0;
  t->live--;
  return 1;
}

/* The operations' random state and what they saw (the checksum). */
struct workload {
  uint64_t state, inserted; /* keys key_of(1 .. inserted) were inserted */
  uint64_t hits, misses, erased, sum;
};

static void find(const struct table *t, uint64_t key, struct workload *w) {
  const struct slot *s = lookup(t, key);
  if (s) {
    w->hits++;
    w->sum = w->sum * 31 + s->value;
  } else {
    w->misses++;
  }
}

/* count operations: 3/8 lookups of keys inserted so far (some since
 * erased), 1/8 lookups of keys never inserted, 2/8 inserts, 2/8 erases of
 * keys inserted so far; the table settles at about half its keys live. */
static void mixed_operations(struct table *t, long count, struct workload *w) {
  for (long op = 0; op < count; op++) {
    uint64_t r = splitmix64(&w->state), pick = 1 + (r >> 8) % w->inserted;
    switch (r % 8) {
    case 0:
    case 1:
    case 2:
      find(t, key_of(pick), w);
      break;
    case 3:
      find(t, key_of(MISSING_BASE + (r >> 8)), w);
      break;
    case 4:
    case 5:
      w->inserted++;
      insert(t, key_of(w->inserted), w->inserted);
      break;
    default:
      w->erased += (uint64_t)erase(t, key_of(pick));
    }
  }
}

int main(int argc, char **argv) {
  long keys = kernel_arg("hashtable", argc, argv, 1, DEFAULT_KEYS);
  long ops = kernel_arg("hashtable", argc, argv, 2, DEFAULT_OPS);
  struct table t;
  struct workload w = {.state = 7, .inserted = (uint64_t)keys};
  int bits = 4;
  while ((UINT64_C(1) << bits) < 2 * (uint64_t)keys)
    bits++;
  table_init(&t, bits);
  for (long done = 0; done < keys; done += CHUNK) {
    PISA_ROI_BEGIN("insert");
    for (long i = done + 1; i <= done + CHUNK && i <= keys; i++)
      insert(&t, key_of((uint64_t)i), (uint64_t)i);
    PISA_ROI_END("insert");
  }
  for (long done = 0; done < ops; done += CHUNK) {
    PISA_ROI_BEGIN("mixed");
    mixed_operations(&t, ops - done < CHUNK ? ops - done : CHUNK, &w);
    PISA_ROI_END("mixed");
  }
  printf("hashtable keys=%ld ops=%ld slots=%llu live=%llu hits=%llu "
         "misses=%llu erased=%llu\nchecksum %llu\n",
         keys, ops, (unsigned long long)t.mask + 1, (unsigned long long)t.live,
         (unsigned long long)w.hits, (unsigned long long)w.misses,
         (unsigned long long)w.erased, (unsigned long long)(w.sum ^ t.live));
  free(t.slots);
  return 0;
}
