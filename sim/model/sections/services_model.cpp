// What every node runs besides training that an offload placement can move: encryption in transit and
// a tenant overlay's virtual switch (agents have a model of their own), with the CPU rates of software
// AES-GCM on host and Arm cores.
#include "models/base/unit_parse.hpp"
#include "sim/datapath/data_path.hpp"
#include "sim/model/model.hpp"
#include "sim/report/variant_result.hpp"

#include <fmt/format.h>
#include <memory>

namespace dpusim::model {
namespace {

class ServicesModel final : public Model {
public:
  [[nodiscard]] std::string_view name() const override { return "services"; }
  [[nodiscard]] std::string_view summary() const override {
    return "encryption in transit (IPsec, TLS) and a VXLAN overlay's virtual switch, on host, NIC or Arm "
           "cores";
  }
  [[nodiscard]] std::vector<Key> keys() const override {
    return {
        {"cluster.services", "section", "none", "what every node runs besides training"},
        {"cluster.services.encryption", "choice", "none",
         "none | ipsec | tls: encryption in transit of inter-node traffic"},
        {"cluster.services.overlay", "choice", "none",
         "none | vxlan: tenant overlay through a virtual switch"},
    };
  }
  [[nodiscard]] std::vector<CalibrationBinding> calibration() const override {
    return {
        {"host_cpu.aes_gcm_rate_per_core", "cpu.aes_gcm_rate_per_core",
         [](scenario::Hardware& hw, double v, const catalog::Citation& c) {
           hw.cpu.aes_gcm_rate_per_core = {units::DataRate::from_si(v), c};
           return true;
         }},
        {"dpu_arm.aes_gcm_rate_per_core", "nic.arm.aes_gcm_rate_per_core",
         [](scenario::Hardware& hw, double v, const catalog::Citation& c) {
           if (!hw.nic.arm)
             return false;
           hw.nic.arm->aes_gcm_rate_per_core = {units::DataRate::from_si(v), c};
           return true;
         }},
    };
  }
  void report(const RunView& run, report::VariantResult& r) const override {
    const auto& hw = run.hardware;
    if (const auto engine = run.path.crypto_engine(); engine && *engine < hw.nic.line_rate.value)
      r.notes.push_back(
          fmt::format("the inline {} engine of the {} runs at {} per direction, below its {} port: "
                      "encrypted traffic cannot go faster",
                      offload::encryption_name(run.scenario.cluster.services.encryption), hw.nic.name,
                      units::format(*engine), units::format(hw.nic.line_rate.value)));
    if (run.path.through_arm())
      r.notes.push_back(
          "kernel TCP traffic detours through the DPU's Arm cores, crossing its internal PCIe twice "
          "on each end");
  }
};

} // namespace

std::unique_ptr<Model> make_services_model() {
  return std::make_unique<ServicesModel>();
}

} // namespace dpusim::model
