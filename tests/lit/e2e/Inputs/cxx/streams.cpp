// iostreams: parsing from a string stream, formatted output with
// manipulators, getline over lines, and strings built with ostringstream.
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

struct Record {
  std::string name;
  int count;
  double weight;
};

static std::vector<Record> parse(const std::string &csv) {
  std::vector<Record> out;
  std::istringstream lines(csv);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] == '#')
      continue;
    std::istringstream fields(line);
    Record r;
    char comma;
    if (std::getline(fields, r.name, ',') && fields >> r.count >> comma >>
                                                 r.weight)
      out.push_back(r);
  }
  return out;
}

int main() {
  std::string csv = "# name,count,weight\n"
                    "bolt,120,0.25\n"
                    "nut,300,0.125\n"
                    "\n"
                    "washer,75,0.0625\n"
                    "broken line\n"
                    "gear,8,12.5\n";
  std::vector<Record> records = parse(csv);
  double total = 0;
  for (const Record &r : records) {
    total += r.count * r.weight;
    std::cout << std::left << std::setw(8) << r.name << std::right
              << std::setw(5) << r.count << std::setw(10) << std::fixed
              << std::setprecision(4) << r.weight << '\n';
  }
  std::ostringstream summary;
  summary << records.size() << " records, total " << std::setprecision(2)
          << total << ", hex " << std::hex << std::showbase << 48879
          << std::dec << ", sci " << std::scientific << std::setprecision(3)
          << 123456.789;
  std::cout << summary.str() << std::endl;
  std::string words = "the quick brown fox jumps over the lazy dog";
  std::istringstream in(words);
  std::string w, longest;
  int n = 0;
  while (in >> w) {
    n++;
    if (w.size() > longest.size())
      longest = w;
  }
  std::cout << n << " words, longest " << longest << '\n';
  return 0;
}
