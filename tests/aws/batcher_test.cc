// The generic request batcher of karp::aws (src/aws/batcher.h): keys, the idle and max windows,
// max_items, and each caller getting its own result.

#include "aws/batcher.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace karp::aws {
namespace {

// A batcher whose exec answers 10 * request and records the batch sizes.
struct Recorder {
  std::mutex mu;
  std::vector<size_t> sizes;
  Batcher<int, int> batcher;

  explicit Recorder(AwsBatchWindow window)
      : batcher(window, [this](const std::vector<int>& requests) {
          std::lock_guard<std::mutex> lock(mu);
          sizes.push_back(requests.size());
          std::vector<int> out;
          for (int r : requests) out.push_back(10 * r);
          return out;
        }) {}
};

// Calls Add(key(i), i) from n threads, thread i starting i * stagger after the first; checks
// every caller got 10 * i.
template <typename Key>
void Run(Recorder* r, int n, absl::Duration stagger, Key key) {
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int i = 0; i < n; ++i) {
    threads.emplace_back([&, i] {
      absl::SleepFor(stagger * i);
      if (r->batcher.Add(key(i), i) != 10 * i) ++wrong;
    });
  }
  for (std::thread& t : threads) t.join();
  CHECK(wrong == 0);
}

TEST_CASE("Batcher merges requests of one key within the idle window", "[aws][batcher][threads]") {
  Recorder r({absl::Milliseconds(500), absl::Seconds(10), 100});
  Run(&r, 6, absl::Milliseconds(5), [](int) { return std::string("k"); });
  CHECK(r.sizes == std::vector<size_t>{6});
}

TEST_CASE("Batcher keeps keys apart", "[aws][batcher][threads]") {
  Recorder r({absl::Milliseconds(500), absl::Seconds(10), 100});
  Run(&r, 6, absl::ZeroDuration(), [](int i) { return std::string(i % 2 ? "odd" : "even"); });
  std::sort(r.sizes.begin(), r.sizes.end());
  CHECK(r.sizes == std::vector<size_t>{3, 3});
}

TEST_CASE("Batcher runs a full batch at once and max_items 1 runs each alone",
          "[aws][batcher][threads]") {
  Recorder full({absl::Seconds(10), absl::Seconds(10), 4});
  const absl::Time start = absl::Now();
  Run(&full, 8, absl::ZeroDuration(), [](int) { return std::string("k"); });
  CHECK(full.sizes == std::vector<size_t>{4, 4});
  CHECK(absl::Now() - start < absl::Seconds(5));  // never waited for the 10 s windows

  Recorder alone({absl::Seconds(10), absl::Seconds(10), 1});
  Run(&alone, 3, absl::ZeroDuration(), [](int) { return std::string("k"); });
  CHECK(alone.sizes == std::vector<size_t>{1, 1, 1});
}

TEST_CASE("Batcher closes a batch at the max window although requests keep coming",
          "[aws][batcher][threads]") {
  // A request every 40 ms never leaves 300 ms idle; the 400 ms max window cuts the stream.
  Recorder r({absl::Milliseconds(300), absl::Milliseconds(400), 1000});
  Run(&r, 25, absl::Milliseconds(40), [](int) { return std::string("k"); });
  CHECK(r.sizes.size() >= 2);
  size_t total = 0;
  for (size_t s : r.sizes) total += s;
  CHECK(total == 25);
}

}  // namespace
}  // namespace karp::aws
