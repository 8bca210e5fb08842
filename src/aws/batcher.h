// Internal to karp::aws: merges concurrent requests into one AWS call, as the reference's
// pkg/batcher does for CreateFleet, DescribeInstances and TerminateInstances (docs/aws.md
// §3.10).
//
// Add(key, request) joins the open batch of `key` (or opens one) and blocks until that batch
// has run, returning this request's result. A batch runs when no request joined it for
// `window.idle`, when `window.max` has passed since it opened, or when it holds
// `window.max_items` requests -- whichever comes first. The caller that opened the batch waits
// for it and runs `exec` (on its own thread; no background thread exists), which gets the
// requests in arrival order and must return one result per request, in the same order.
// With max_items 1 every request runs at once, alone.
//
// Thread-safety: thread-safe. `exec` runs without the lock, so batches of different keys (and
// the next batch of the same key) proceed while one runs.

#ifndef KARP_SRC_AWS_BATCHER_H_
#define KARP_SRC_AWS_BATCHER_H_

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "karp/aws/aws_cloud_provider.h"

namespace karp::aws {

template <typename Request, typename Result>
class Batcher {
 public:
  using Exec = std::function<std::vector<Result>(const std::vector<Request>&)>;

  Batcher(AwsBatchWindow window, Exec exec) : window_(window), exec_(std::move(exec)) {}

  Result Add(const std::string& key, Request request) {
    std::shared_ptr<Bucket> bucket;
    size_t index = 0;
    bool leader = false;
    absl::MutexLock lock(&mu_);
    auto it = open_.find(key);
    if (it == open_.end()) {
      bucket = std::make_shared<Bucket>();
      bucket->opened = absl::Now();
      open_[key] = bucket;
      leader = true;
    } else {
      bucket = it->second;
    }
    index = bucket->requests.size();
    bucket->requests.push_back(std::move(request));
    bucket->last = absl::Now();
    if (static_cast<int>(bucket->requests.size()) >= window_.max_items) Close(key, bucket.get());
    if (!leader) {
      mu_.Await(absl::Condition(&bucket->done));
      return std::move(bucket->results[index]);
    }
    while (!bucket->closed) {
      const absl::Time deadline =
          std::min(bucket->last + window_.idle, bucket->opened + window_.max);
      if (absl::Now() >= deadline) {
        Close(key, bucket.get());
        break;
      }
      mu_.AwaitWithDeadline(absl::Condition(&bucket->closed), deadline);
    }
    const std::vector<Request> requests = std::move(bucket->requests);
    mu_.Unlock();
    std::vector<Result> results = exec_(requests);
    results.resize(requests.size());  // an exec that returned too few leaves Unknown errors
    mu_.Lock();
    bucket->results = std::move(results);
    bucket->done = true;
    return std::move(bucket->results[0]);
  }

 private:
  struct Bucket {
    std::vector<Request> requests;
    std::vector<Result> results;
    absl::Time opened;
    absl::Time last;
    bool closed = false;
    bool done = false;
  };

  // No request joins `bucket` any more.
  void Close(const std::string& key, Bucket* bucket) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    bucket->closed = true;
    auto it = open_.find(key);
    if (it != open_.end() && it->second.get() == bucket) open_.erase(it);
  }

  const AwsBatchWindow window_;
  const Exec exec_;
  absl::Mutex mu_;
  std::map<std::string, std::shared_ptr<Bucket>> open_ ABSL_GUARDED_BY(mu_);
};

}  // namespace karp::aws

#endif  // KARP_SRC_AWS_BATCHER_H_
