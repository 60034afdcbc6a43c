// words.h: the static library of the C++ CMake test project.
#ifndef WORDS_H
#define WORDS_H

#include <map>
#include <string>

// Counts the whitespace-separated words of text.
std::map<std::string, int> count_words(const std::string &text);

#endif
