// app.cpp: the executable of the C++ CMake test project.
#include "words.h"

#include <iostream>
#include <stdexcept>

int main() {
  for (const auto &[word, n] : count_words("to be or not to be"))
    std::cout << word << " " << n << "\n";
  try {
    count_words("");
  } catch (const std::invalid_argument &e) {
    std::cout << "caught: " << e.what() << "\n";
  }
  return 0;
}
