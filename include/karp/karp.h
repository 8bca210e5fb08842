// File: karp/karp.h
//
// Umbrella header: includes the stable public API of the core library (karp::karp).
// The codec (karp/json/codec.h, target karp::json) is included separately.

#ifndef KARP_KARP_H_
#define KARP_KARP_H_

#include "karp/aws_catalog.h"
#include "karp/catalog.h"
#include "karp/cloud_provider.h"
#include "karp/cluster.h"
#include "karp/consolidator.h"
#include "karp/instance_type.h"
#include "karp/labels.h"
#include "karp/objects.h"
#include "karp/requirements.h"
#include "karp/resources.h"
#include "karp/scheduler.h"
#include "karp/storage.h"
#include "karp/taints.h"
#include "karp/version.h"
#include "karp/volumes.h"

#endif  // KARP_KARP_H_
