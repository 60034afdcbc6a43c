// Exceptions: a hierarchy caught by base, thrown through frames with and
// without destructors to run, rethrown, nested, from constructors, from the
// library (stoi, at), carried by exception_ptr, inside noexcept code.
#include <cstdio>
#include <exception>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

static int live = 0, destroyed = 0;

struct Guard {
  Guard() { live++; }
  ~Guard() {
    live--;
    destroyed++;
  }
};

struct ParseError : std::runtime_error {
  int at;
  ParseError(const std::string &what, int at)
      : std::runtime_error(what), at(at) {}
};

__attribute__((noinline)) int digit(char c, int at) {
  if (c < '0' || c > '9')
    throw ParseError(std::string("not a digit: ") + c, at);
  return c - '0';
}

// No destructor to run here: the exception passes through.
__attribute__((noinline)) int number(const std::string &s) {
  int v = 0;
  for (size_t i = 0; i < s.size(); i++)
    v = v * 10 + digit(s[i], int(i));
  return v;
}

// A Guard on the way: its destructor runs during unwinding.
__attribute__((noinline)) int guarded(const std::string &s) {
  Guard g;
  std::vector<int> scratch(s.size(), 1);
  return number(s) + int(scratch.size());
}

struct Widget {
  Guard a;
  std::unique_ptr<int> b;
  Guard c;
  explicit Widget(int v) : b(new int(v)) {
    if (v < 0)
      throw std::invalid_argument("negative widget");
  }
};

__attribute__((noinline)) int rethrows(int v) {
  try {
    return guarded(std::to_string(v) + (v % 4 ? "" : "x"));
  } catch (const ParseError &) {
    throw;
  }
}

static int quiet(int v) noexcept {
  try {
    return rethrows(v);
  } catch (...) {
    return -1;
  }
}

int main() {
  int sum = 0, parse_errors = 0, positions = 0, others = 0;
  const char *inputs[] = {"12", "7a", "300", "x", "", "42"};
  for (const char *in : inputs) {
    try {
      sum += guarded(in);
    } catch (const ParseError &e) {
      parse_errors++;
      positions += e.at;
    }
  }
  for (int v = -3; v < 4; v++) {
    try {
      Widget w(v);
      sum += *w.b;
    } catch (const std::invalid_argument &) {
      others++;
    }
  }
  int quiet_fails = 0;
  for (int v = 0; v < 10; v++)
    if (quiet(v) < 0)
      quiet_fails++;
  std::exception_ptr saved;
  try {
    std::vector<int>(3).at(5);
  } catch (...) {
    saved = std::current_exception();
  }
  try {
    std::rethrow_exception(saved);
  } catch (const std::out_of_range &) {
    others++;
  }
  try {
    try {
      sum += std::stoi("zz");
    } catch (const std::invalid_argument &) {
      std::throw_with_nested(std::runtime_error("outer"));
    }
  } catch (const std::runtime_error &e) {
    try {
      std::rethrow_if_nested(e);
    } catch (const std::invalid_argument &) {
      others++;
    }
  }
  std::printf("sum %d parse_errors %d positions %d others %d quiet_fails %d "
              "live %d destroyed %d\n",
              sum, parse_errors, positions, others, quiet_fails, live,
              destroyed);
  return 0;
}
