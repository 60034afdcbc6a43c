// Standard containers and algorithms: sorting (std::sort's insertion sort
// is the loop shape that crashed the counter pass), searching, heaps, hash
// and ordered maps, deques and lists.
#include <algorithm>
#include <cstdio>
#include <deque>
#include <list>
#include <map>
#include <numeric>
#include <queue>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

int main() {
  std::vector<int> v;
  for (int i = 0; i < 500; i++)
    v.push_back((i * 7919) % 503);
  std::vector<int> sorted = v;
  std::sort(sorted.begin(), sorted.end());
  std::stable_sort(v.begin(), v.end(),
                   [](int a, int b) { return a % 10 < b % 10; });
  auto mid = std::partition(v.begin(), v.end(), [](int x) { return x & 1; });
  std::nth_element(v.begin(), v.begin() + 250, v.end());
  auto lo = std::lower_bound(sorted.begin(), sorted.end(), 250);
  std::vector<int> dedup = sorted;
  dedup.erase(std::unique(dedup.begin(), dedup.end()), dedup.end());
  long sum = std::accumulate(sorted.begin(), sorted.end(), 0L);
  std::vector<int> squares(10);
  std::iota(squares.begin(), squares.end(), 1);
  std::transform(squares.begin(), squares.end(), squares.begin(),
                 [](int x) { return x * x; });
  std::rotate(squares.begin(), squares.begin() + 3, squares.end());
  std::string perm = "abcd";
  int perms = 1;
  while (std::next_permutation(perm.begin(), perm.end()))
    perms++;

  std::priority_queue<int> heap(sorted.begin(), sorted.begin() + 50);
  int top3 = 0;
  for (int i = 0; i < 3; i++) {
    top3 += heap.top();
    heap.pop();
  }
  std::map<std::string, int> words;
  std::unordered_map<int, std::string> names;
  const char *text[] = {"pear", "fig", "apple", "fig", "kiwi", "pear", "fig"};
  for (const char *w : text)
    words[w]++;
  for (auto &[w, n] : words)
    names[n] += w;
  std::set<int> odd(v.begin(), mid);
  std::deque<int> dq;
  for (int i = 0; i < 20; i++)
    if (i % 2)
      dq.push_front(i);
    else
      dq.push_back(i);
  std::list<int> ls(dq.begin(), dq.end());
  ls.sort();
  ls.remove_if([](int x) { return x % 3 == 0; });

  std::printf("min %d max %d median %d at250 %ld sum %ld distinct %zu\n",
              sorted.front(), sorted.back(), v[250], long(lo - sorted.begin()),
              sum, dedup.size());
  std::printf("squares %d %d perms %d top3 %d odd %zu\n", squares.front(),
              squares.back(), perms, top3, odd.size());
  std::printf("fig %d names %s|%s|%s dq %d..%d list %zu front %d\n",
              words["fig"], names[1].c_str(), names[2].c_str(),
              names[3].c_str(), dq.front(), dq.back(), ls.size(), ls.front());
  return 0;
}
