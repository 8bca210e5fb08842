#include "aws/discovery.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "absl/strings/numbers.h"
#include "internal/status_macros.h"
#include "internal/strings.h"

namespace karp::aws {
namespace {

using internal::StrCat;
using nlohmann::json;

const AwsInstanceTypeInfo* EmbeddedInfo(const std::string& name) {
  static const std::map<std::string, const AwsInstanceTypeInfo*>* index = [] {
    auto* m = new std::map<std::string, const AwsInstanceTypeInfo*>();
    for (const AwsInstanceTypeInfo& i : EmbeddedAwsInstanceTypeInfos()) (*m)[i.name] = &i;
    return m;
  }();
  auto it = index->find(name);
  return it == index->end() ? nullptr : it->second;
}

int ToInt(int64_t v) { return static_cast<int>(std::clamp<int64_t>(v, 0, 1 << 30)); }

// Calls `action` through every page and `on_item` for each item of the page's `set`, with the
// item's place for messages ("EC2 <action>: page <n> <set>/item[<i>]"). Returns the number of
// pages. Errors: the call's and the first of `on_item`.
absl::StatusOr<int> ForEachItem(
    const Ec2Client& client, const std::string& action, const QueryParams& params, const char* set,
    const std::function<absl::Status(pugi::xml_node item, const std::string& where)>& on_item) {
  int page_count = 0;
  KARP_RETURN_IF_ERROR(
      client.CallPaginated(action, params, [&](const XmlResponse& page) -> absl::Status {
        ++page_count;
        std::vector<pugi::xml_node> items = XmlItems(page.root(), set);
        for (size_t i = 0; i < items.size(); ++i) {
          absl::Status s = on_item(items[i], StrCat("EC2 ", action, ": page ", page_count, " ", set,
                                                    "/item[", i + 1, "]"));
          if (!s.ok()) return s;
        }
        return absl::OkStatus();
      }));
  return page_count;
}

// One spotPriceHistorySet item.
struct SpotPriceItem {
  std::string type;
  std::string zone;
  double price = 0;
  absl::Time at = absl::InfinitePast();  // when the price took effect (InfinitePast: unknown)
};

// Errors: Internal for a missing type, zone or price, a negative price or a bad timestamp.
absl::StatusOr<SpotPriceItem> ParseSpotPriceItem(pugi::xml_node item, const std::string& w) {
  SpotPriceItem out;
  KARP_ASSIGN_OR_RETURN(out.type, XmlRequiredText(item, "instanceType", w));
  KARP_ASSIGN_OR_RETURN(out.zone, XmlRequiredText(item, "availabilityZone", w));
  KARP_ASSIGN_OR_RETURN(std::optional<double> price, XmlOptionalDouble(item, "spotPrice", w));
  if (!price.has_value() || *price < 0) {
    return absl::InternalError(StrCat(w, "/spotPrice: missing or negative"));
  }
  out.price = *price;
  std::string err;
  const std::string ts = XmlText(item, "timestamp");
  if (!ts.empty() && !absl::ParseTime(absl::RFC3339_full, ts, &out.at, &err)) {
    return absl::InternalError(StrCat(w, "/timestamp: not RFC 3339: \"", ts, "\""));
  }
  return out;
}

}  // namespace

absl::StatusOr<AwsInstanceTypeInfo> ParseInstanceTypeItem(pugi::xml_node item,
                                                          std::string_view where) {
  AwsInstanceTypeInfo info;
  KARP_ASSIGN_OR_RETURN(info.name, XmlRequiredText(item, "instanceType", where));
  const std::string w = StrCat(where, " (", info.name, ")");
  KARP_ASSIGN_OR_RETURN(int64_t vcpus, XmlRequiredInt(item, "vCpuInfo/defaultVCpus", w));
  info.vcpus = ToInt(vcpus);
  KARP_ASSIGN_OR_RETURN(info.memory_mib, XmlRequiredInt(item, "memoryInfo/sizeInMiB", w));
  for (pugi::xml_node a : XmlItems(item, "processorInfo/supportedArchitectures")) {
    info.architectures.emplace_back(a.text().get());
  }
  info.cpu_manufacturer = XmlText(item, "processorInfo/manufacturer");
  KARP_ASSIGN_OR_RETURN(std::optional<double> ghz,
                        XmlOptionalDouble(item, "processorInfo/sustainedClockSpeedInGhz", w));
  if (ghz.has_value()) info.sustained_clock_speed_mhz = static_cast<int>(std::lround(*ghz * 1000));
  info.hypervisor = XmlText(item, "hypervisor");
  KARP_ASSIGN_OR_RETURN(std::optional<bool> eit,
                        XmlOptionalBool(item, "networkInfo/encryptionInTransitSupported", w));
  info.encryption_in_transit_supported = eit.value_or(false);
  if (XmlText(item, "ebsInfo/ebsOptimizedSupport") == "default") {
    KARP_ASSIGN_OR_RETURN(
        info.ebs_bandwidth_mbps,
        XmlOptionalInt(item, "ebsInfo/ebsOptimizedInfo/maximumBandwidthInMbps", w));
  }
  const std::string nvme = XmlText(item, "instanceStorageInfo/nvmeSupport");
  if (nvme == "required" || nvme == "supported") {
    KARP_ASSIGN_OR_RETURN(info.local_nvme_gb,
                          XmlOptionalInt(item, "instanceStorageInfo/totalSizeInGB", w));
  }
  std::vector<pugi::xml_node> gpus = XmlItems(item, "gpuInfo/gpus");
  for (size_t i = 0; i < gpus.size(); ++i) {
    const std::string gw = StrCat(w, "/gpuInfo/gpus/item[", i + 1, "]");
    AwsGpuInfo g;
    g.name = XmlText(gpus[i], "name");
    g.manufacturer = XmlText(gpus[i], "manufacturer");
    KARP_ASSIGN_OR_RETURN(int64_t count, XmlRequiredInt(gpus[i], "count", gw));
    g.count = ToInt(count);
    KARP_ASSIGN_OR_RETURN(std::optional<int64_t> mem,
                          XmlOptionalInt(gpus[i], "memoryInfo/sizeInMiB", gw));
    g.memory_mib = mem.value_or(0);
    info.gpus.push_back(std::move(g));
  }
  std::vector<pugi::xml_node> accs = XmlItems(item, "inferenceAcceleratorInfo/accelerators");
  for (size_t i = 0; i < accs.size(); ++i) {
    const std::string aw = StrCat(w, "/inferenceAcceleratorInfo/accelerators/item[", i + 1, "]");
    AwsAcceleratorInfo a;
    a.name = XmlText(accs[i], "name");
    a.manufacturer = XmlText(accs[i], "manufacturer");
    KARP_ASSIGN_OR_RETURN(int64_t count, XmlRequiredInt(accs[i], "count", aw));
    a.count = ToInt(count);
    info.inference_accelerators.push_back(std::move(a));
  }
  std::vector<pugi::xml_node> neurons = XmlItems(item, "neuronInfo/neuronDevices");
  for (size_t i = 0; i < neurons.size(); ++i) {
    const std::string nw = StrCat(w, "/neuronInfo/neuronDevices/item[", i + 1, "]");
    AwsNeuronDeviceInfo n;
    n.name = XmlText(neurons[i], "name");
    KARP_ASSIGN_OR_RETURN(int64_t count, XmlRequiredInt(neurons[i], "count", nw));
    n.count = ToInt(count);
    KARP_ASSIGN_OR_RETURN(std::optional<int64_t> cores,
                          XmlOptionalInt(neurons[i], "coreInfo/count", nw));
    n.core_count = ToInt(cores.value_or(0));
    info.neuron_devices.push_back(std::move(n));
  }
  // ENIs of the default network card (MaximumNetworkInterfaces of the whole type otherwise).
  KARP_ASSIGN_OR_RETURN(std::optional<int64_t> max_enis,
                        XmlOptionalInt(item, "networkInfo/maximumNetworkInterfaces", w));
  KARP_ASSIGN_OR_RETURN(std::optional<int64_t> default_card,
                        XmlOptionalInt(item, "networkInfo/defaultNetworkCardIndex", w));
  int64_t enis = max_enis.value_or(0);
  for (pugi::xml_node card : XmlItems(item, "networkInfo/networkCards")) {
    KARP_ASSIGN_OR_RETURN(std::optional<int64_t> index,
                          XmlOptionalInt(card, "networkCardIndex", w));
    if (index.value_or(0) != default_card.value_or(0)) continue;
    KARP_ASSIGN_OR_RETURN(std::optional<int64_t> card_enis,
                          XmlOptionalInt(card, "maximumNetworkInterfaces", w));
    if (card_enis.has_value()) enis = *card_enis;
  }
  info.max_network_interfaces = ToInt(enis);
  KARP_ASSIGN_OR_RETURN(std::optional<int64_t> ips,
                        XmlOptionalInt(item, "networkInfo/ipv4AddressesPerInterface", w));
  info.ipv4_addresses_per_interface = ToInt(ips.value_or(0));
  KARP_ASSIGN_OR_RETURN(std::optional<int64_t> efa,
                        XmlOptionalInt(item, "networkInfo/efaInfo/maximumEfaInterfaces", w));
  info.efa_max_interfaces = ToInt(efa.value_or(0));
  std::vector<pugi::xml_node> classes = XmlItems(item, "supportedUsageClasses");
  if (!classes.empty()) {
    info.usage_classes.clear();
    for (pugi::xml_node c : classes) info.usage_classes.emplace_back(c.text().get());
  }
  if (const AwsInstanceTypeInfo* e = EmbeddedInfo(info.name); e != nullptr) {
    info.trunking_compatible = e->trunking_compatible;
    info.branch_interfaces = e->branch_interfaces;
    info.network_bandwidth_mbps = e->network_bandwidth_mbps;
  }
  return info;
}

absl::StatusOr<std::vector<AwsInstanceTypeInfo>> DescribeInstanceTypes(const Ec2Client& client,
                                                                       int* pages) {
  QueryParams params;
  AddFilter(&params, 1, "supported-virtualization-type", {"hvm"});
  AddFilter(&params, 2, "processor-info.supported-architecture", {"x86_64", "arm64"});
  params.emplace_back("MaxResults", "100");
  std::vector<AwsInstanceTypeInfo> out;
  KARP_ASSIGN_OR_RETURN(
      const int page_count,
      ForEachItem(client, "DescribeInstanceTypes", params, "instanceTypeSet",
                  [&](pugi::xml_node item, const std::string& where) -> absl::Status {
                    KARP_ASSIGN_OR_RETURN(AwsInstanceTypeInfo info,
                                          ParseInstanceTypeItem(item, where));
                    out.push_back(std::move(info));
                    return absl::OkStatus();
                  }));
  if (pages != nullptr) *pages = page_count;
  return out;
}

absl::StatusOr<std::map<std::string, std::vector<std::string>>> DescribeInstanceTypeOfferings(
    const Ec2Client& client) {
  QueryParams params = {{"LocationType", "availability-zone"}, {"MaxResults", "1000"}};
  std::map<std::string, std::set<std::string>> zones;
  KARP_RETURN_IF_ERROR(
      ForEachItem(client, "DescribeInstanceTypeOfferings", params, "instanceTypeOfferingSet",
                  [&](pugi::xml_node item, const std::string& w) -> absl::Status {
                    KARP_ASSIGN_OR_RETURN(std::string type,
                                          XmlRequiredText(item, "instanceType", w));
                    KARP_ASSIGN_OR_RETURN(std::string zone, XmlRequiredText(item, "location", w));
                    zones[type].insert(zone);
                    return absl::OkStatus();
                  })
          .status());
  std::map<std::string, std::vector<std::string>> out;
  for (auto& [type, z] : zones) out[type] = std::vector<std::string>(z.begin(), z.end());
  return out;
}

absl::StatusOr<SpotPrices> DescribeSpotPrices(const Ec2Client& client, absl::Time now) {
  QueryParams params = {
      {"ProductDescription.1", "Linux/UNIX"},
      {"ProductDescription.2", "Linux/UNIX (Amazon VPC)"},
      {"StartTime", absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", now, absl::UTCTimeZone())},
      {"MaxResults", "2000"},
  };
  SpotPrices out;
  std::map<std::pair<std::string, std::string>, absl::Time> stamp;
  KARP_RETURN_IF_ERROR(
      ForEachItem(client, "DescribeSpotPriceHistory", params, "spotPriceHistorySet",
                  [&](pugi::xml_node item, const std::string& where) -> absl::Status {
                    KARP_ASSIGN_OR_RETURN(SpotPriceItem p, ParseSpotPriceItem(item, where));
                    auto key = std::make_pair(p.type, p.zone);
                    auto it = stamp.find(key);
                    if (it != stamp.end() && it->second > p.at) return absl::OkStatus();  // older
                    stamp[key] = p.at;
                    out[p.type][p.zone] = p.price;
                    return absl::OkStatus();
                  })
          .status());
  return out;
}

absl::StatusOr<std::map<std::string, double>> GetOnDemandPrices(const Ec2Client& client,
                                                                const std::string& region) {
  const bool china = region.rfind("cn-", 0) == 0;
  const char* currency = china ? "CNY" : "USD";
  std::map<std::string, double> out;
  const std::vector<std::pair<std::string, std::string>> queries = {
      {"Shared", "Compute Instance"}, {"Dedicated", "Compute Instance (bare metal)"}};
  for (const auto& [tenancy, family] : queries) {
    int found = 0;
    std::string token;
    std::set<std::string> seen_tokens;
    for (int page = 1;; ++page) {
      if (page > 1000) {
        return absl::InternalError("Pricing GetProducts: more than 1000 pages; giving up");
      }
      json filters = json::array();
      auto add = [&](const char* field, const std::string& value) {
        filters.push_back({{"Type", "TERM_MATCH"}, {"Field", field}, {"Value", value}});
      };
      add("regionCode", region);
      add("serviceCode", "AmazonEC2");
      add("preInstalledSw", "NA");
      add("operatingSystem", "Linux");
      add("capacitystatus", "Used");
      add("marketoption", "OnDemand");
      add("tenancy", tenancy);
      add("productFamily", family);
      json body = {{"ServiceCode", "AmazonEC2"}, {"Filters", filters}, {"MaxResults", 100}};
      if (!token.empty()) body["NextToken"] = token;
      JsonCall call;
      call.operation = "GetProducts";
      KARP_ASSIGN_OR_RETURN(std::string text, client.CallJson(call, body.dump()));
      json resp = json::parse(text, nullptr, /*allow_exceptions=*/false);
      if (resp.is_discarded() || !resp.is_object()) {
        return absl::InternalError("Pricing GetProducts: response is not a JSON object");
      }
      auto list = resp.find("PriceList");
      if (list != resp.end() && !list->is_array()) {
        return absl::InternalError("Pricing GetProducts: PriceList is not an array");
      }
      if (list != resp.end()) {
        for (size_t i = 0; i < list->size(); ++i) {
          const std::string where = StrCat("Pricing GetProducts: PriceList[", i, "]");
          const json& entry = (*list)[i];
          json doc =
              entry.is_string() ? json::parse(entry.get<std::string>(), nullptr, false) : entry;
          if (doc.is_discarded() || !doc.is_object()) {
            return absl::InternalError(StrCat(where, ": not a JSON document"));
          }
          const json* type = nullptr;
          if (auto p = doc.find("product"); p != doc.end() && p->is_object()) {
            if (auto a = p->find("attributes"); a != p->end() && a->is_object()) {
              if (auto t = a->find("instanceType"); t != a->end() && t->is_string()) type = &*t;
            }
          }
          if (type == nullptr) {
            return absl::InternalError(
                StrCat(where, ": product.attributes.instanceType is missing"));
          }
          auto terms = doc.find("terms");
          if (terms == doc.end() || !terms->is_object()) continue;
          auto od = terms->find("OnDemand");
          if (od == terms->end() || !od->is_object()) continue;
          for (const auto& term : od->items()) {
            if (!term.value().is_object()) continue;
            auto dims = term.value().find("priceDimensions");
            if (dims == term.value().end() || !dims->is_object()) continue;
            for (const auto& dim : dims->items()) {
              if (!dim.value().is_object()) continue;
              auto ppu = dim.value().find("pricePerUnit");
              if (ppu == dim.value().end() || !ppu->is_object()) continue;
              auto usd = ppu->find(currency);
              if (usd == ppu->end() || !usd->is_string()) continue;
              double v = 0;
              if (!absl::SimpleAtod(usd->get<std::string>(), &v) || !std::isfinite(v) || v <= 0) {
                continue;  // zero or unparseable: ignored, as the reference
              }
              out[type->get<std::string>()] = v;
              ++found;
            }
          }
        }
      }
      auto next = resp.find("NextToken");
      token = (next != resp.end() && next->is_string()) ? next->get<std::string>() : "";
      if (token.empty()) break;
      if (!seen_tokens.insert(token).second) {
        return absl::InternalError("Pricing GetProducts: NextToken repeated");
      }
    }
    if (found == 0) {
      return absl::NotFoundError(StrCat("Pricing GetProducts: no on-demand pricing found for ",
                                        region, " (tenancy ", tenancy, ")"));
    }
  }
  return out;
}

}  // namespace karp::aws
