// Virtual calls (single and multiple inheritance, dynamic_cast), lambdas
// (captures, mutable, generic, std::function), templates (variadic folds,
// CRTP, if constexpr, recursion), variant/optional, shared and weak
// pointers.
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

struct Named {
  virtual ~Named() = default;
  virtual std::string name() const = 0;
};
struct Sized {
  virtual ~Sized() = default;
  virtual int size() const { return 1; }
};
struct Box : Named, Sized {
  int w, h;
  Box(int w, int h) : w(w), h(h) {}
  std::string name() const override { return "box"; }
  int size() const override { return w * h; }
};
struct Cube : Box {
  int d;
  Cube(int s) : Box(s, s), d(s) {}
  std::string name() const override { return "cube"; }
  int size() const override { return Box::size() * d; }
};
struct Tag : Named {
  std::string name() const override { return "tag"; }
};

template <typename Derived> struct Counter {
  int calls = 0;
  int step(int x) {
    calls++;
    return static_cast<Derived *>(this)->apply(x);
  }
};
struct Doubler : Counter<Doubler> {
  int apply(int x) { return 2 * x; }
};

template <typename... Ts> auto sum(Ts... xs) { return (xs + ... + 0); }

template <int N> struct Fib {
  static constexpr long value = Fib<N - 1>::value + Fib<N - 2>::value;
};
template <> struct Fib<1> {
  static constexpr long value = 1;
};
template <> struct Fib<0> {
  static constexpr long value = 0;
};

template <typename T> std::string describe(const T &v) {
  if constexpr (std::is_integral_v<T>)
    return "int:" + std::to_string(v);
  else if constexpr (std::is_floating_point_v<T>)
    return "real";
  else
    return "text:" + std::string(v);
}

static std::optional<int> halve(int x) {
  if (x % 2)
    return std::nullopt;
  return x / 2;
}

int main() {
  std::vector<std::unique_ptr<Named>> things;
  for (int i = 1; i <= 6; i++)
    if (i % 3 == 0)
      things.push_back(std::make_unique<Tag>());
    else if (i % 2)
      things.push_back(std::make_unique<Box>(i, i + 1));
    else
      things.push_back(std::make_unique<Cube>(i));
  int sizes = 0;
  std::string names;
  for (auto &t : things) {
    names += t->name()[0];
    if (auto *s = dynamic_cast<Sized *>(t.get()))
      sizes += s->size();
  }
  int base = 10;
  auto add = [base](int x) { return x + base; };
  int total = 0;
  auto accumulate = [&total](int x) { total += x; };
  auto counter = [n = 0]() mutable { return ++n; };
  auto twice = [](auto f, auto x) { return f(f(x)); };
  std::function<int(int)> fact = [&fact](int n) {
    return n <= 1 ? 1 : n * fact(n - 1);
  };
  for (int i = 0; i < 5; i++)
    accumulate(add(i));
  counter();
  counter();
  Doubler d;
  int doubled = d.step(d.step(3));
  std::vector<std::variant<int, double, std::string>> vals = {
      1, 2.5, std::string("x"), 4};
  int ints = 0;
  for (auto &v : vals)
    std::visit(
        [&ints](auto &&x) {
          if constexpr (std::is_same_v<std::decay_t<decltype(x)>, int>)
            ints += x;
        },
        v);
  int halves = 0;
  for (int x : {8, 3, 6, 5})
    halves += halve(x).value_or(-1);
  std::weak_ptr<int> weak;
  long uses;
  {
    auto shared = std::make_shared<int>(7);
    weak = shared;
    auto copy = shared;
    uses = shared.use_count();
  }
  std::printf("names %s sizes %d total %d counter %d twice %d fact %d\n",
              names.c_str(), sizes, total, counter(), twice(add, 1), fact(6));
  std::printf("doubled %d calls %d sum %d fib %ld %s %s %s ints %d halves %d "
              "uses %ld expired %d\n",
              doubled, d.calls, sum(1, 2, 3, 4), Fib<20>::value,
              describe(42).c_str(), describe(1.5).c_str(),
              describe("hi").c_str(), ints, halves, uses, int(weak.expired()));
  return 0;
}
