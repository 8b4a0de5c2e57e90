// Offload variants: where each host-side function runs. A variant is a named placement of five
// functions on three sites; the presets below are at once the list `dpusim variants` prints, the names
// scenarios use, and the descriptions reports give. Other placements are written from a preset:
// "rdma-nic+storage=dpu_arm" is rdma-nic with the storage client moved to the DPU's Arm cores.
#pragma once

#include "models/catalog/nic_spec.hpp"

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dpusim::offload {

enum class Function { transport, storage, encryption, vswitch, agents };
inline constexpr std::array kFunctions{Function::transport, Function::storage, Function::encryption,
                                       Function::vswitch, Function::agents};
enum class Site { host, nic, dpu_arm };

std::string_view function_name(Function f);
std::string_view site_name(Site s);
std::optional<Function> parse_function(std::string_view name);
std::optional<Site> parse_site(std::string_view name);

/// How inter-node collective and pipeline traffic is carried, from the transport's site.
enum class Transport {
  host_tcp, // kernel TCP on the host CPU (NCCL socket transport): CPU time per byte on both ends
  rdma,     // RoCE in NIC hardware with GPUDirect RDMA: no host CPU per byte
};
std::string_view transport_name(Transport t);

struct Placement {
  std::array<Site, kFunctions.size()> sites{}; // all on the host
  [[nodiscard]] Site operator[](Function f) const { return sites[static_cast<std::size_t>(f)]; }
  void set(Function f, Site s) { sites[static_cast<std::size_t>(f)] = s; }
  friend bool operator==(const Placement&, const Placement&) = default;
};

struct Variant {
  std::string name;
  std::string summary;
  Placement placement;
  bool on_dpu = false; // the node's network device is the scenario's DPU (BlueField) rather than its NIC
  std::vector<Function> moved; // functions the spec moved from its preset ("+function=site")
  [[nodiscard]] Transport transport() const {
    return placement[Function::transport] == Site::host ? Transport::host_tcp : Transport::rdma;
  }
};

/// "transport=nic;storage=nic;..." for every function.
std::string placement_text(const Placement& p);

/// The named placements: host-tcp (everything on the host), rdma-nic (everything a ConnectX does in
/// hardware), dpu (that, plus what a BlueField's Arm cores take over).
const std::vector<Variant>& presets();
std::vector<std::string> preset_names();
/// "NAME" or "NAME+function=site+..." (NAME a preset); throws std::invalid_argument saying what is valid.
/// `frontend`: the functions a front-end DPU (each tray's storage port, beside the training NICs) runs on
/// its Arm cores: placing only those on dpu_arm leaves the variant's training device the preset's.
Variant parse_variant(std::string_view spec, const std::vector<Function>& frontend = {});

enum class Encryption { none, ipsec, tls };
std::string_view encryption_name(Encryption e);

/// What the scenario requires of the functions (an unrequired function's site does not matter).
struct Requirements {
  Encryption encryption = Encryption::none;
  bool overlay = false;
  bool storage = false;
  bool agents = false;
  bool separate_storage_fabric = false; // storage reached through its own NIC port, not the training NICs
  // The functions that the storage port's DPU (a front-end DPU beside the training NICs) runs when they
  // are placed on dpu_arm (empty: the storage port is no DPU, or there is none).
  std::vector<Function> frontend;
  [[nodiscard]] bool on_frontend(Function f) const;
};

/// Whether the scenario's requirements make `f`'s site matter (transport always; the others when the
/// scenario reads or writes storage, encrypts, has an overlay or runs agents).
bool matters(Function f, const Requirements& req);

/// Why the variant moves a function the scenario does not use (its site would change nothing), or an
/// empty string.
std::string moves_unused(const Variant& v, const Requirements& req);

/// Why the variant cannot run on `device` with these requirements, or an empty string.
std::string unsupported(const Variant& v, const catalog::NicSpec& device, const Requirements& req);

} // namespace dpusim::offload
