// words.cpp: the static library of the C++ CMake test project (standard
// containers, exceptions and streams pass through the instrumented build).
#include "words.h"

#include <sstream>
#include <stdexcept>

std::map<std::string, int> count_words(const std::string &text) {
  if (text.empty())
    throw std::invalid_argument("empty text");
  std::map<std::string, int> counts;
  std::istringstream in(text);
  for (std::string word; in >> word;)
    counts[word]++;
  return counts;
}
