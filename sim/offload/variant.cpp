#include "sim/offload/variant.hpp"

#include "models/base/text_distance.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <stdexcept>

namespace dpusim::offload {

std::string_view function_name(Function f) {
  switch (f) {
  case Function::transport:
    return "transport";
  case Function::storage:
    return "storage";
  case Function::encryption:
    return "encryption";
  case Function::vswitch:
    return "vswitch";
  case Function::agents:
    return "agents";
  }
  return "?";
}

std::string_view site_name(Site s) {
  switch (s) {
  case Site::host:
    return "host";
  case Site::nic:
    return "nic";
  case Site::dpu_arm:
    return "dpu_arm";
  }
  return "?";
}

std::optional<Function> parse_function(std::string_view name) {
  for (auto f : kFunctions)
    if (function_name(f) == name)
      return f;
  return std::nullopt;
}

std::optional<Site> parse_site(std::string_view name) {
  for (auto s : {Site::host, Site::nic, Site::dpu_arm})
    if (site_name(s) == name)
      return s;
  return std::nullopt;
}

std::string_view transport_name(Transport t) {
  return t == Transport::host_tcp ? "host-tcp" : "rdma";
}

std::string_view encryption_name(Encryption e) {
  switch (e) {
  case Encryption::none:
    return "none";
  case Encryption::ipsec:
    return "ipsec";
  case Encryption::tls:
    return "tls";
  }
  return "none";
}

std::string placement_text(const Placement& p) {
  std::string out;
  for (auto f : kFunctions) {
    if (!out.empty())
      out += ';';
    out += fmt::format("{}={}", function_name(f), site_name(p[f]));
  }
  return out;
}

const std::vector<Variant>& presets() {
  static const std::vector<Variant> kPresets = [] {
    Variant host{
        "host-tcp",
        "everything on the host: NCCL over kernel TCP (every byte costs send- and receive-side host CPU "
        "time), storage client, encryption, virtual switch and agents on host cores",
        {},
        false,
        {}};
    Variant nic{
        "rdma-nic",
        "ConnectX in hardware: RoCE with GPUDirect RDMA, GPUDirect Storage, inline encryption, eSwitch "
        "(ASAP2) virtual switching; agents stay on the host",
        {},
        false,
        {}};
    for (auto f : {Function::transport, Function::storage, Function::encryption, Function::vswitch})
      nic.placement.set(f, Site::nic);
    Variant dpu{
        "dpu",
        "BlueField: what rdma-nic does on its ConnectX core, plus infrastructure agents on its Arm cores",
        nic.placement,
        true,
        {}};
    dpu.placement.set(Function::agents, Site::dpu_arm);
    return std::vector<Variant>{host, nic, dpu};
  }();
  return kPresets;
}

std::vector<std::string> preset_names() {
  std::vector<std::string> out;
  for (const auto& v : presets())
    out.push_back(v.name);
  return out;
}

Variant parse_variant(std::string_view spec, const std::vector<Function>& frontend) {
  const std::string text(spec);
  const auto plus = text.find('+');
  const std::string base = text.substr(0, plus);
  const Variant* preset = nullptr;
  for (const auto& v : presets())
    if (v.name == base)
      preset = &v;
  if (preset == nullptr) {
    const auto hint = did_you_mean(base, preset_names());
    throw std::invalid_argument(
        fmt::format("\"{}\" is not a variant{}; valid: {} (optionally followed by "
                    "+function=site, e.g. rdma-nic+storage=dpu_arm)",
                    base, hint.empty() ? std::string() : fmt::format(" (did you mean \"{}\"?)", hint),
                    join(preset_names())));
  }
  Variant v = *preset;
  v.name = text;
  std::size_t pos = plus;
  std::vector<std::string> moved;
  while (pos != std::string::npos) {
    const auto next = text.find('+', pos + 1);
    const std::string item =
        text.substr(pos + 1, next == std::string::npos ? std::string::npos : next - pos - 1);
    const auto eq = item.find('=');
    const auto f = parse_function(item.substr(0, eq));
    const auto s = eq == std::string::npos ? std::nullopt : parse_site(item.substr(eq + 1));
    if (!f || !s)
      throw std::invalid_argument(
          fmt::format("\"{}\" in \"{}\" is not function=site; functions: transport, "
                      "storage, encryption, vswitch, agents; sites: host, nic, dpu_arm",
                      item, text));
    if (std::find(v.moved.begin(), v.moved.end(), *f) != v.moved.end())
      throw std::invalid_argument(
          fmt::format("\"{}\" places {} twice; give each function one site", text, function_name(*f)));
    v.placement.set(*f, *s);
    v.moved.push_back(*f);
    moved.push_back(item);
    pos = next;
  }
  if (!moved.empty()) {
    v.summary = fmt::format("{} with {}", preset->name, join(moved));
    for (auto f : kFunctions)
      if (v.placement[f] == Site::dpu_arm && std::find(frontend.begin(), frontend.end(), f) == frontend.end())
        v.on_dpu = true;
  }
  return v;
}

bool Requirements::on_frontend(Function f) const {
  return std::find(frontend.begin(), frontend.end(), f) != frontend.end();
}

bool matters(Function f, const Requirements& req) {
  switch (f) {
  case Function::transport:
    return true;
  case Function::storage:
    return req.storage;
  case Function::encryption:
    return req.encryption != Encryption::none;
  case Function::vswitch:
    return req.overlay;
  case Function::agents:
    return req.agents;
  }
  return false;
}

std::string moves_unused(const Variant& v, const Requirements& req) {
  for (auto f : v.moved) {
    switch (f) {
    case Function::transport:
      break;
    case Function::storage:
      if (!req.storage)
        return "it moves storage, but the scenario reads no data and writes no checkpoints (workload.data, "
               "workload.checkpoint)";
      break;
    case Function::encryption:
      if (req.encryption == Encryption::none)
        return "it moves encryption, but the scenario encrypts nothing (cluster.services.encryption: none)";
      break;
    case Function::vswitch:
      if (!req.overlay)
        return "it moves vswitch, but the scenario has no overlay (cluster.services.overlay: none)";
      break;
    case Function::agents:
      if (!req.agents)
        return "it moves agents, but the scenario runs none (cluster.services.agents: 0)";
      break;
    }
  }
  return {};
}

std::string unsupported(const Variant& v, const catalog::NicSpec& device, const Requirements& req) {
  const auto& p = v.placement;
  for (auto f : kFunctions) {
    if (!matters(f, req))
      continue;
    const auto site = p[f];
    const auto name = function_name(f);
    if (site == Site::nic && !device.offloads.on_nic(name))
      return fmt::format("{} cannot run {} in hardware (nic); it offloads: {}", device.name, name,
                         device.offloads.nic.empty() ? std::string("nothing") : join(device.offloads.nic));
    if (site == Site::dpu_arm && !req.on_frontend(f) && !device.offloads.on_arm(name))
      return device.offloads.dpu_arm.empty()
                 ? fmt::format("{} has no Arm cores to run {} on (dpu_arm needs a BlueField DPU)",
                               device.name, name)
                 : fmt::format("{}'s Arm cores cannot run {}; they run: {}", device.name, name,
                               join(device.offloads.dpu_arm));
  }
  if (req.storage && req.separate_storage_fabric && p[Function::storage] == Site::dpu_arm &&
      !req.on_frontend(Function::storage))
    return "the storage client cannot run on the training DPUs' Arm cores (SNAP) when storage has a fabric "
           "of its own: they carry the training traffic, not the storage traffic; place storage on host or "
           "nic, or give each tray's storage port a DPU (cluster.storage.node_nic: bluefield-3)";
  if (p[Function::transport] == Site::dpu_arm)
    return "transport runs on the host (kernel TCP) or in the NIC (RDMA), not on the DPU's Arm cores";
  if (matters(Function::agents, req) && p[Function::agents] == Site::nic)
    return "infrastructure agents are software: they run on the host or on the DPU's Arm cores, not in the "
           "NIC";
  // RDMA bypasses the host's network stack: what would process its packets in software cannot.
  if (p[Function::transport] == Site::nic) {
    if (req.encryption == Encryption::tls)
      return "TLS protects TCP streams: with RDMA transport use IPsec (services.encryption: ipsec) or run "
             "the "
             "transport on the host";
    if (matters(Function::encryption, req) && p[Function::encryption] != Site::nic)
      return "with RDMA transport, encryption must be inline in the NIC (encryption=nic): host or Arm "
             "software "
             "never sees RDMA packets";
    if (matters(Function::vswitch, req) && p[Function::vswitch] != Site::nic)
      return "with RDMA transport, the overlay must be switched in the NIC's eSwitch (vswitch=nic)";
  }
  return {};
}

} // namespace dpusim::offload
