// The account's commitments from EC2 (karp/aws/commitments.h): DescribeReservedInstances and
// DescribeCapacityReservations as karp::Commitments.

#include "karp/aws/commitments.h"

#include <memory>
#include <utility>

#include "absl/time/time.h"
#include "aws/ec2_client.h"
#include "internal/status_macros.h"
#include "internal/strings.h"
#include "karp/json/commitments.h"

namespace karp::aws {
namespace {

using internal::StrCat;

absl::StatusOr<std::optional<absl::Time>> OptionalTime(pugi::xml_node item, const char* path,
                                                       const std::string& w) {
  const std::string text = XmlText(item, path);
  if (text.empty()) return std::optional<absl::Time>();
  absl::Time t;
  std::string err;
  if (!absl::ParseTime(absl::RFC3339_full, text, &t, &err)) {
    return absl::InternalError(StrCat(w, "/", path, ": not RFC 3339: \"", text, "\""));
  }
  return std::optional<absl::Time>(t);
}

double OrZero(const std::optional<double>& v) { return v.value_or(0); }

// One reservedInstancesSet item. Errors: Internal naming `w` and the field.
absl::StatusOr<ReservedInstance> ParseRi(pugi::xml_node item, const std::string& w,
                                         const std::string& region) {
  ReservedInstance ri;
  KARP_ASSIGN_OR_RETURN(ri.id, XmlRequiredText(item, "reservedInstancesId", w));
  KARP_ASSIGN_OR_RETURN(ri.instance_type, XmlRequiredText(item, "instanceType", w));
  KARP_ASSIGN_OR_RETURN(ri.count, XmlRequiredInt(item, "instanceCount", w));
  if (XmlText(item, "scope") == "Region") {
    ri.region = region;
    ri.size_flexible = XmlText(item, "productDescription").rfind("Linux/UNIX", 0) == 0 &&
                       XmlText(item, "instanceTenancy") != "dedicated";
  } else {
    KARP_ASSIGN_OR_RETURN(ri.zone, XmlRequiredText(item, "availabilityZone", w));
  }
  KARP_ASSIGN_OR_RETURN(std::optional<int64_t> duration, XmlOptionalInt(item, "duration", w));
  KARP_ASSIGN_OR_RETURN(std::optional<double> fixed, XmlOptionalDouble(item, "fixedPrice", w));
  KARP_ASSIGN_OR_RETURN(std::optional<double> usage, XmlOptionalDouble(item, "usagePrice", w));
  ri.hourly_price = OrZero(usage);
  if (duration && *duration > 0) {
    ri.hourly_price += OrZero(fixed) / (static_cast<double>(*duration) / 3600.0);
  }
  for (pugi::xml_node charge : XmlItems(item, "recurringCharges")) {
    if (XmlText(charge, "frequency") != "Hourly") continue;
    KARP_ASSIGN_OR_RETURN(std::optional<double> amount, XmlOptionalDouble(charge, "amount", w));
    ri.hourly_price += OrZero(amount);
  }
  KARP_ASSIGN_OR_RETURN(ri.end, OptionalTime(item, "end", w));
  return ri;
}

// One capacityReservationSet item.
absl::StatusOr<CapacityReservation> ParseCr(pugi::xml_node item, const std::string& w) {
  CapacityReservation cr;
  KARP_ASSIGN_OR_RETURN(cr.id, XmlRequiredText(item, "capacityReservationId", w));
  KARP_ASSIGN_OR_RETURN(cr.instance_type, XmlRequiredText(item, "instanceType", w));
  KARP_ASSIGN_OR_RETURN(cr.zone, XmlRequiredText(item, "availabilityZone", w));
  KARP_ASSIGN_OR_RETURN(cr.count, XmlRequiredInt(item, "totalInstanceCount", w));
  KARP_ASSIGN_OR_RETURN(cr.available, XmlRequiredInt(item, "availableInstanceCount", w));
  cr.targeted = XmlText(item, "instanceMatchCriteria") == "targeted";
  KARP_ASSIGN_OR_RETURN(cr.end, OptionalTime(item, "endDate", w));
  return cr;
}

// Every item of `set` of every page of `action` filtered to state `state`, through `parse`.
template <typename T, typename Parse>
absl::StatusOr<std::vector<T>> DescribeAll(const AwsClientOptions& options,
                                           const std::string& action, const char* filter,
                                           const char* set, Parse parse) {
  KARP_ASSIGN_OR_RETURN(std::unique_ptr<Ec2Client> client, Ec2Client::Create(options));
  QueryParams params;
  AddFilter(&params, 1, filter, {"active"});
  std::vector<T> out;
  int page = 0;
  KARP_RETURN_IF_ERROR(
      client->CallPaginated(action, params, [&](const XmlResponse& r) -> absl::Status {
        ++page;
        std::vector<pugi::xml_node> items = XmlItems(r.root(), set);
        for (size_t i = 0; i < items.size(); ++i) {
          const std::string w =
              StrCat("EC2 ", action, ": page ", page, " ", set, "/item[", i + 1, "]");
          KARP_ASSIGN_OR_RETURN(T item, parse(items[i], w));
          out.push_back(std::move(item));
        }
        return absl::OkStatus();
      }));
  return out;
}

}  // namespace

absl::StatusOr<std::vector<ReservedInstance>> DescribeReservedInstances(
    const AwsClientOptions& client) {
  // DescribeReservedInstances is not paginated: one call answers everything.
  KARP_ASSIGN_OR_RETURN(std::unique_ptr<Ec2Client> c, Ec2Client::Create(client));
  QueryParams params;
  AddFilter(&params, 1, "state", {"active"});
  KARP_ASSIGN_OR_RETURN(XmlResponse r, c->Call("DescribeReservedInstances", params));
  std::vector<ReservedInstance> out;
  std::vector<pugi::xml_node> items = XmlItems(r.root(), "reservedInstancesSet");
  for (size_t i = 0; i < items.size(); ++i) {
    const std::string w =
        StrCat("EC2 DescribeReservedInstances: reservedInstancesSet/item[", i + 1, "]");
    KARP_ASSIGN_OR_RETURN(ReservedInstance ri, ParseRi(items[i], w, client.region));
    out.push_back(std::move(ri));
  }
  return out;
}

absl::StatusOr<std::vector<CapacityReservation>> DescribeCapacityReservations(
    const AwsClientOptions& client) {
  return DescribeAll<CapacityReservation>(client, "DescribeCapacityReservations", "state",
                                          "capacityReservationSet", ParseCr);
}

absl::StatusOr<Commitments> ReadAwsCommitments(const AwsClientOptions& client,
                                               const std::string& savings_plans_file) {
  Commitments c;
  if (!savings_plans_file.empty()) {
    KARP_ASSIGN_OR_RETURN(c, json::ReadCommitmentsFile(savings_plans_file));
  }
  KARP_ASSIGN_OR_RETURN(std::vector<ReservedInstance> ris, DescribeReservedInstances(client));
  c.reserved_instances.insert(c.reserved_instances.end(), ris.begin(), ris.end());
  KARP_ASSIGN_OR_RETURN(std::vector<CapacityReservation> crs, DescribeCapacityReservations(client));
  c.capacity_reservations.insert(c.capacity_reservations.end(), crs.begin(), crs.end());
  if (absl::Status s = c.Validate(); !s.ok()) {
    return absl::InvalidArgumentError(StrCat("EC2 commitments: ", s.message()));
  }
  return c;
}

}  // namespace karp::aws
