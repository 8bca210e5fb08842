// File: karp/testing/fake_cloud_provider.h
//
// FakeCloudProvider (target karp::testing): the in-memory CloudProvider of
// karp/in_memory_cloud_provider.h under the name tests and examples have always used. See
// that header for the contract (scripted capacity errors, transient failures, bookkeeping).
//
// Example:
//   karp::testing::FakeCloudProvider cloud(catalog);
//   cloud.FailCapacity("spot", "m5.large", "us-east-1a");
//
// Thread-safety: thread-safe.

#ifndef KARP_TESTING_FAKE_CLOUD_PROVIDER_H_
#define KARP_TESTING_FAKE_CLOUD_PROVIDER_H_

#include "karp/in_memory_cloud_provider.h"

namespace karp::testing {

using FakeCloudProvider = ::karp::InMemoryCloudProvider;

}  // namespace karp::testing

#endif  // KARP_TESTING_FAKE_CLOUD_PROVIDER_H_
