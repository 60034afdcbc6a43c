#!/usr/bin/env python3
"""The footprint of footprint-build.c (tests/lit/e2e) by brute force from the definition
(docs/metrics.md, "Memory footprint"): the set of bytes each function,
thread and the whole run touched, then the blocks of 8 to 512 bytes with a
byte in that set.  Every object of the program starts a page (4096 bytes,
or 2^27 for the straddle region), so its bytes' offsets decide its blocks:
each object gets a base here, far from the others.  Compares with the
document given and prints one line per scope; exit 1 on a difference."""
import json
import sys

N, S, P, M, T, W = 10000, 3000, 2000, 4096, 512, 8
bases = {}


def base(name):
    if name not in bases:
        bases[name] = (len(bases) + 1) << 32
    return bases[name]


def span(obj, offset, size):
    b = base(obj) + offset
    return set(range(b, b + size))


def straddle(offset, size):  # the region starts at a 2^27 boundary
    b = (1 << 27) * 4096 + offset
    return set(range(b, b + size))


perm = [(i * 7) % P for i in range(P)]
fn = {
    'sum_contiguous': set().union(*(span('a', 8 * i, 8) for i in range(N))),
    'strided': set().union(*(span('b', 12 * i, 4) for i in range(S))),
    'packed_indirect': set().union(
        *(span('perm', 4 * i, 4) | span('r', 3 * perm[i] + 1, 2)
          for i in range(P))),
    'find': set().union(*(span('c', 8 * i, 8) for i in range(301))),
    'odd_flags': set().union(
        *(span('c', 8 * i, 8) | (span('flags', i, 1) if i & 1 else set())
          for i in range(1000))),
    'copy': span('dst', 0, 1500) | span('src', 0, 1000),
    'straddle': straddle(-4, 8) | straddle(-16, 8),
    'main': span('perm', 0, 4 * P) | span('c', 0, 8000) |
    span('tids', 0, 8 * W) | span('hits', 0, 8) | span('shared_table', 0, 8),
}
workers = []
for t in range(W):
    w = (span('own%d' % t, 0, M) | span('shared_table', 0, 8) |
         span('table', 0, 8 * T) | span('hits', 0, 8))
    workers.append(w)
fn['worker'] = set().union(*workers)
main_thread = set().union(*(v for k, v in fn.items() if k != 'worker'))
threads = [main_thread] + workers
total = set().union(*threads)
shared = set()
for i, a in enumerate(threads):
    for b in threads[i + 1:]:
        shared |= a & b


def count(bytes_):
    return {'bytes': len(bytes_),
            'blocks': {str(b): len({x // b for x in bytes_})
                       for b in (8, 16, 32, 64, 128, 256, 512)}}


def strip(fp):
    return {'bytes': fp['bytes'], 'blocks': fp['blocks']}


doc = json.load(open(sys.argv[1]))
bad = 0
checks = [('totals', count(total), strip(doc['totals']['footprint'])),
          ('shared', count(shared),
           {'bytes': doc['totals']['footprint']['shared_bytes'],
            'blocks': doc['totals']['footprint']['shared_blocks']})]
got = {f['name']: f.get('footprint') for f in doc['functions']}
for name, want in fn.items():
    checks.append(('function ' + name, count(want), got.get(name)))
for t in doc['threads']:
    want = threads[t['thread']]
    checks.append(('thread %d' % t['thread'], count(want), t.get('footprint')))
for what, want, have in checks:
    ok = want == have
    bad += not ok
    print('%s %s: %s' % ('ok' if ok else 'DIFFERS', what,
                         want if ok else '%s, document %s' % (want, have)))
sys.exit(1 if bad else 0)
