// The workload: section of a scenario (model, batch, parallelism, precision, overlaps, input pipeline,
// collectives, checkpoints).
#include "models/workload/transformer_reader.hpp"
#include "sim/input/section_readers.hpp"

#include <algorithm>
#include <cstdlib>
#include <fmt/format.h>
#include <limits>

namespace dpusim::input {

using namespace scenario;

namespace {

workload::TransformerShape read_model(const yaml::Node& node, const catalog::Catalog& cat,
                                      std::string& origin) {
  if (node.is_map()) {
    auto m = node.as_map();
    std::string name = "inline";
    if (auto n = m.optional("name"))
      name = n->as_string();
    auto shape = workload::read_transformer_shape(m, name);
    m.finish();
    origin = "inline";
    return shape;
  }
  origin = "catalog";
  return cat.model(catalog_name(node, cat.model_names(), "model", cat, "llm"))->shape;
}

workload::ExpertRouting read_routing(const yaml::Node& node) {
  auto rm = node.as_map();
  rm.declare(keys_of("workload.routing"));
  workload::ExpertRouting r;
  if (auto l = rm.optional("load")) {
    const auto s = l->as_choice({"balanced", "zipf", "measured"});
    r.load = s == "balanced" ? workload::ExpertRouting::Load::balanced
             : s == "zipf"   ? workload::ExpertRouting::Load::zipf
                             : workload::ExpertRouting::Load::measured;
  }
  const auto only_with = [&](std::string_view key, workload::ExpertRouting::Load needs,
                             std::string_view what) {
    auto n = rm.optional(key);
    if (n && r.load != needs)
      n->fail(fmt::format("{} is read only with load: {}", key, what));
    return n;
  };
  if (auto z = only_with("zipf_exponent", workload::ExpertRouting::Load::zipf, "zipf"))
    r.zipf_exponent = z->as_number(0, 16);
  else if (r.load == workload::ExpertRouting::Load::zipf)
    (void)rm.required("zipf_exponent",
                      "the Zipf law's exponent s (an expert of popularity rank i gets 1/i^s)");
  if (auto s = only_with("seed", workload::ExpertRouting::Load::zipf, "zipf"))
    r.seed = static_cast<std::uint64_t>(s->as_int(0, std::numeric_limits<std::int64_t>::max()));
  if (auto e = only_with("expert_load", workload::ExpertRouting::Load::measured, "measured")) {
    double sum = 0;
    for (const auto& item : e->as_sequence().items()) {
      r.expert_load.push_back(item.as_number(0, 1e18));
      sum += r.expert_load.back();
    }
    if (!(sum > 0))
      e->fail("no expert receives any token: give each expert's tokens or share, at least one above 0");
  } else if (r.load == workload::ExpertRouting::Load::measured) {
    (void)rm.required("expert_load", "a list of each expert's tokens or share, in expert order");
  }
  if (auto n = rm.optional("node_limit"))
    r.node_limit = static_cast<int>(n->as_int(1, 1 << 20));
  if (auto c = rm.optional("capacity_factor")) {
    const double f = c->as_number(-1e9, 1e9);
    if (!(f > 0))
      c->fail(
          fmt::format("must be above 0 (a multiple of a balanced expert's tokens, e.g. 1.25), found {}", f));
    r.capacity_factor = f;
  }
  rm.finish();
  return r;
}

} // namespace

WorkloadConfig read_workload(yaml::Map m, const catalog::Catalog& cat) {
  m.declare(keys_of("workload"));
  WorkloadConfig w;
  const auto model_node = m.required("model", "a model name from the catalog or an inline model");
  w.model = read_model(model_node, cat, w.model_origin);
  w.seq_len = static_cast<int>(m.required("seq_len", "the sequence length in tokens").as_int(1, 1 << 24));
  const auto gb = m.required("global_batch", "sequences per iteration");
  w.global_batch = static_cast<int>(gb.as_int(1, 1 << 30));
  const auto mb = m.required("micro_batch", "sequences per micro-batch");
  w.micro_batch = static_cast<int>(mb.as_int(1, 1 << 20));
  const auto par_node = m.required("parallelism", "{tp: ..., pp: ..., dp: ...}");
  {
    auto p = par_node.as_map();
    p.declare(keys_of("workload.parallelism"));
    w.parallelism.tp = static_cast<int>(p.required("tp", "the tensor-parallel degree").as_int(1, 1 << 16));
    if (auto pp = p.optional("pp"))
      w.parallelism.pp = static_cast<int>(pp->as_int(1, 1 << 16));
    w.parallelism.dp = static_cast<int>(p.required("dp", "the data-parallel degree").as_int(1, 1 << 20));
    if (auto cp = p.optional("cp"))
      w.parallelism.cp = static_cast<int>(cp->as_int(1, 1 << 16));
    if (auto ep = p.optional("ep"))
      w.parallelism.ep = static_cast<int>(ep->as_int(1, 1 << 16));
    if (auto v = p.optional("virtual_stages"))
      w.virtual_stages = static_cast<int>(v->as_int(1, 1 << 10));
    auto& par = w.parallelism;
    if (auto sch = p.optional("schedule"))
      par.v_shape = sch->as_choice({"1f1b", "dualpipev"}) == "dualpipev";
    // Uneven pipeline stages: the first and/or last stage hold a given number of layers.
    for (const auto* key : {"first_stage_layers", "last_stage_layers"})
      if (auto n = p.optional(key))
        (std::string_view(key) == "first_stage_layers" ? par.first_stage_layers : par.last_stage_layers) =
            static_cast<int>(n->as_int(1, 1 << 20));
    p.finish();
  }
  w.precision = workload::Precision::bf16;
  if (auto p = m.optional("precision")) {
    const auto s = p->as_choice({"bf16", "fp16", "fp8", "fp8-cs", "mxfp8", "nvfp4"});
    for (const auto q : workload::kPrecisions)
      if (workload::precision_name(q) == s)
        w.precision = q;
  }
  if (auto r = m.optional("recompute")) {
    const auto s = r->as_choice({"none", "selective", "full"});
    w.recompute = s == "none"        ? workload::Recompute::none
                  : s == "selective" ? workload::Recompute::selective
                                     : workload::Recompute::full;
  }
  if (auto s = m.optional("sequence_parallel"))
    w.sequence_parallel = s->as_bool();
  if (auto a = m.optional("attention"))
    w.attention = a->as_choice({"flash", "unfused"}) == "flash" ? workload::AttentionKernel::flash
                                                                : workload::AttentionKernel::unfused;
  if (auto o = m.optional("overlap_grad_reduce"))
    w.overlap_grad_reduce = o->as_bool();
  if (auto o = m.optional("overlap_param_gather"))
    w.overlap_param_gather = o->as_bool();
  if (auto o = m.optional("tp_comm_overlap"))
    w.tp_comm_overlap = o->as_bool();
  if (auto o = m.optional("overlap_ep_comm"))
    w.overlap_ep_comm = o->as_bool();
  if (auto o = m.optional("align_param_gather"))
    w.align_param_gather = o->as_bool();
  if (auto o = m.optional("overlap_p2p"))
    w.overlap_p2p = o->as_bool();
  if (auto o = m.optional("fp8_param_gather"))
    w.fp8_param_gather = o->as_bool();
  if (auto g = m.optional("grad_reduce_dtype"))
    w.grad_bytes_per_param = g->as_choice({"fp32", "bf16", "fp16"}) == "fp32" ? 4.0 : 2.0;
  // Megatron-LM's default bucket: max(40M, 1M x dp) parameters.
  w.grad_bucket = units::bytes(std::max(40e6, 1e6 * w.parallelism.dp) * w.grad_bytes_per_param);
  if (auto b = m.optional("grad_bucket"))
    w.grad_bucket = b->as_quantity<units::Bytes>();
  if (auto z = m.optional("zero"))
    w.zero_stage = static_cast<int>(z->as_int(0, 3));
  if (auto b = m.optional("zero_buffers"))
    w.zero_per_peer_buffers = b->as_choice({"flat", "per_peer"}) == "per_peer";
  if (auto c = m.optional("communication")) {
    auto cm = c->as_map();
    cm.declare(keys_of("workload.communication"));
    if (auto a = cm.optional("algorithm"))
      w.collective_algorithm = a->as_choice({"ring", "tree", "hierarchical", "nvls", "auto"});
    if (auto t = cm.optional("socket_threads"))
      w.socket_threads = static_cast<int>(t->as_int(1, 64));
    if (auto q = cm.optional("qps_per_connection"))
      w.qps_per_connection = static_cast<int>(q->as_int(1, 128));
    if (auto p = cm.optional("pxn"))
      w.pxn = p->as_bool();
    if (auto e = cm.optional("ep_dispatch"))
      w.ep_dispatch_per_node = e->as_choice({"all_to_all", "deepep"}) == "deepep";
    if (auto f = cm.optional("ep_dispatch_fp8"))
      w.ep_dispatch_fp8 = f->as_bool();
    if (auto n = cm.optional("alltoall_parts"))
      w.alltoall_parts = static_cast<int>(n->as_int(1, 1024));
    if (auto n = cm.optional("ep_comm_sms"))
      w.ep_comm_sms = static_cast<int>(n->as_int(1, 1024));
    cm.finish();
  }
  if (auto d = m.optional("data")) {
    auto dm = d->as_map();
    dm.declare(keys_of("workload.data"));
    DataConfig dc;
    dc.sample = dm.required("sample", "bytes read from storage per sample, e.g. 110KiB")
                    .as_quantity<units::Bytes>(true);
    dc.decode = dm.required("decode", "host core time to decode one sample, e.g. 4ms")
                    .as_quantity<units::Seconds>(true);
    dc.workers = static_cast<int>(
        dm.required("workers", "loader processes per data-parallel replica").as_int(1, 1024));
    if (auto pf = dm.optional("prefetch"))
      dc.prefetch = static_cast<int>(pf->as_int(1, 1 << 16));
    dm.finish();
    w.data = dc;
  }
  if (auto ck = m.optional("checkpoint")) {
    auto cm = ck->as_map();
    cm.declare(keys_of("workload.checkpoint"));
    CheckpointConfig c;
    // Iterations (500) or a time (30min): a time becomes iterations per variant, at its step.
    const auto every = cm.required("every", "iterations between checkpoints (500) or a time (30min)");
    const auto text = every.as_string();
    char* end = nullptr;
    const bool number = !text.empty() && (std::strtod(text.c_str(), &end), end == text.c_str() + text.size());
    if (!text.empty() &&
        std::all_of(text.begin(), text.end(), [](unsigned char ch) { return std::isdigit(ch) != 0; }))
      c.every = static_cast<int>(every.as_int(1, 1 << 30));
    else if (number) // a sign, a fraction or an exponent, and no unit
      every.fail(fmt::format("expected a whole number of iterations (500) or a time with its unit (30min), "
                             "found \"{}\"",
                             text));
    else
      c.every_time = every.as_quantity<units::Seconds>();
    if (auto mode = cm.optional("mode"))
      c.async = mode->as_choice({"sync", "async"}) == "async";
    if (auto size = cm.optional("size"))
      c.size = size->as_quantity<units::Bytes>();
    cm.finish();
    w.checkpoint = c;
  }
  if (auto r = m.optional("routing"))
    w.routing = read_routing(*r);
  m.finish();
  return w;
}

} // namespace dpusim::input
