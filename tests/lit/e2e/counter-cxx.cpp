// C++ of the shapes that crashed the counter pass (issue 15, item 4: snappy,
// gapbs): exceptions thrown through frames with and without landing pads,
// std::vector/std::string/std::unordered_map code, a switch in a loop with
// early continues, loops whose only way in is a critical edge (std::sort's
// insertion sort). At -O1, -O2 and -O3 both passes compile it, the program
// prints what a plain clang++ build prints, and counter mode's instruction
// mix, accesses and external calls equal deep mode's.
// RUN: %clang --driver-mode=g++ -O2 -o %t.plain %s
// RUN: %t.plain > %t.expected
// RUN: %pisa-cxx -O1 -o %t.deep1 %s
// RUN: %pisa-cxx -O1 --mode=counter -o %t.counter1 %s
// RUN: env PISA_INLINED=0 %pisa-char -q --force -o %t.deep1.json %t.deep1 > %t.out
// RUN: diff %t.expected %t.out
// RUN: %pisa-char -q --force --mode counter -o %t.counter1.json %t.counter1 > %t.out
// RUN: diff %t.expected %t.out
// RUN: %python %inputs/counter-compare.py %t.counter1.json %t.deep1.json
// RUN: %pisa-cxx -O2 -o %t.deep2 %s
// RUN: %pisa-cxx -O2 --mode=counter -o %t.counter2 %s
// RUN: env PISA_INLINED=0 %pisa-char -q --force -o %t.deep2.json %t.deep2 > %t.out
// RUN: diff %t.expected %t.out
// RUN: %pisa-char -q --force --mode counter -o %t.counter2.json %t.counter2 > %t.out
// RUN: diff %t.expected %t.out
// RUN: %python %inputs/counter-compare.py %t.counter2.json %t.deep2.json
// RUN: %pisa-cxx -O3 -o %t.deep3 %s
// RUN: %pisa-cxx -O3 --mode=counter -o %t.counter3 %s
// RUN: env PISA_INLINED=0 %pisa-char -q --force -o %t.deep3.json %t.deep3 > %t.out
// RUN: diff %t.expected %t.out
// RUN: %pisa-char -q --force --mode counter -o %t.counter3.json %t.counter3 > %t.out
// RUN: diff %t.expected %t.out
// RUN: %python %inputs/counter-compare.py %t.counter3.json %t.deep3.json
// The counts below follow from the program by hand (see main); the sorted
// text starts with its largest byte, and i % 13 has 13 values.
// RUN: FileCheck %s < %t.expected
// CHECK: coded 82 errors 121 keys 13 sorted 0 1 2 last 299 first z
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

// Breadth-first search as gapbs writes it: a frontier swapped per level.
struct Graph {
  std::vector<std::vector<int>> adj;
  explicit Graph(int n) : adj(n) {}
  void edge(int a, int b) {
    adj.at(a).push_back(b);
    adj.at(b).push_back(a);
  }
};

__attribute__((noinline)) std::vector<int> bfs(const Graph &g, int src) {
  std::vector<int> depth(g.adj.size(), -1);
  std::vector<int> frontier{src}, next;
  depth[src] = 0;
  for (int d = 1; !frontier.empty(); d++) {
    next.clear();
    for (int u : frontier)
      for (int v : g.adj[u])
        if (depth[v] < 0) {
          depth[v] = d;
          next.push_back(v);
        }
    std::swap(frontier, next);
  }
  return depth;
}

// A dictionary coder in snappy's shape: a switch on the input byte inside a
// loop with early continues; a '!' is bad input and throws.
__attribute__((noinline)) size_t encode(const std::string &in,
                                        std::string &out) {
  std::unordered_map<std::string, int> dict;
  out.clear();
  for (size_t i = 0; i < in.size();) {
    size_t len = std::min<size_t>(4, in.size() - i);
    std::string key = in.substr(i, len);
    auto it = dict.find(key);
    if (it != dict.end()) {
      out += char(0x80 | (it->second & 0x7f));
      i += len;
      continue;
    }
    dict.emplace(key, int(dict.size()));
    switch (in[i]) {
    case 'a':
      out += '1';
      break;
    case 'b':
      out += '2';
      break;
    case 'c':
    case 'd':
      out += '3';
      break;
    case '\n':
      out += "\\n";
      break;
    case '!':
      throw std::invalid_argument("bang");
    default:
      out += in[i];
    }
    i++;
  }
  return out.size();
}

// The exception leaves branchy() from inside a block with successors, in a
// frame without a landing pad.
__attribute__((noinline)) int checked(int v) {
  if (v % 7 == 3)
    throw std::out_of_range("seven");
  return v * 2;
}
__attribute__((noinline)) int branchy(int v) {
  int r = checked(v);
  if (r > 10)
    r = r * 3 + checked(v + 2);
  else
    r -= 1;
  return r;
}

// A frame with a landing pad (for the string) whose first call throws
// before there is anything to destroy: the blocks after the call must not
// share the count of the block before it.
__attribute__((noinline)) void sink(const std::string &s) {
  asm volatile("" ::"r"(s.data()));
}
__attribute__((noinline)) int labelled(int v) {
  int r = checked(v);
  std::string s(40 + r % 5, 'x');
  sink(s);
  return r + int(s.size());
}

struct Shape {
  virtual ~Shape() = default;
  virtual double area() const = 0;
};
struct Square : Shape {
  double s;
  explicit Square(double s) : s(s) {}
  double area() const override { return s * s; }
};
struct Circle : Shape {
  double r;
  explicit Circle(double r) : r(r) {}
  double area() const override {
    if (r < 0)
      throw std::domain_error("negative radius");
    return 3 * r * r;
  }
};

__attribute__((noinline)) void sort_ints(std::vector<int> &v) {
  std::sort(v.begin(), v.end());
}

int main() {
  const int n = 300;
  Graph g(n);
  for (int i = 0; i + 1 < n; i++)
    g.edge(i, (i * 7 + 1) % n);
  long depth_sum = 0;
  for (int d : bfs(g, 0))
    depth_sum += d;
  // "abcdxyz\n" repeated: the keys at i = 0..7 are new, one byte each but
  // two for '\n' (9); then "abcd" and "xyz\n" are found at i = 8, 12, ...,
  // 296, one byte each (73): 82.
  std::string text, out;
  for (int i = 0; i < n; i++)
    text += "abcdxyz\n"[i % 8];
  size_t coded = encode(text, out);
  int errors = 0;
  try {
    encode("ab!", out);
  } catch (const std::invalid_argument &) {
    errors++; // 1
  }
  // Circles at multiples of 15 have a negative radius: 20 of them.
  std::vector<std::unique_ptr<Shape>> shapes;
  for (int i = 0; i < n; i++)
    if (i % 3)
      shapes.push_back(std::make_unique<Square>(i));
    else
      shapes.push_back(std::make_unique<Circle>(i % 5 ? i : -1));
  double area = 0;
  for (auto &s : shapes) {
    try {
      area += s->area();
    } catch (const std::domain_error &) {
      errors++;
    }
  }
  // checked(i) throws for i % 7 == 3 (3, 10, ..., 297: 43); otherwise
  // checked(i + 2) runs for i > 5 and throws for i % 7 == 1 (8, ..., 295:
  // 42): 85.
  long sum = 0;
  for (int i = 0; i < n; i++) {
    try {
      sum += branchy(i);
    } catch (const std::out_of_range &) {
      errors++;
    }
  }
  // labelled(i) throws for i % 7 == 3 (3, 10, ..., 94: 14).
  for (int i = 0; i < 100; i++) {
    try {
      sum += labelled(i);
    } catch (const std::out_of_range &) {
      errors++;
    }
  }
  std::map<std::string, int> counts;
  for (int i = 0; i < n; i++)
    counts[std::to_string(i % 13)]++;
  // i * 37 % 300 is a permutation of 0..299 (37 is prime to 300).
  std::vector<int> ints;
  for (int i = 0; i < n; i++)
    ints.push_back((i * 37) % n);
  sort_ints(ints);
  std::sort(text.begin(), text.end(), [](char a, char b) { return a > b; });
  try {
    g.edge(n, 0);
  } catch (const std::out_of_range &) {
    errors++; // 1 + 20 + 85 + 14 + 1 = 121
  }
  std::printf("depth %ld area %.0f sum %ld\n", depth_sum, area, sum);
  std::printf("coded %zu errors %d keys %zu sorted %d %d %d last %d first %c\n",
              coded, errors, counts.size(), ints[0], ints[1], ints[2],
              ints[n - 1], text[0]);
  return 0;
}
