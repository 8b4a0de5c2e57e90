// Reads a transformer's shape from YAML: used for catalog model entries and for models given inline
// in a scenario, so that both accept exactly the same keys.
#pragma once

#include "models/base/yaml_reader.hpp"
#include "models/workload/transformer.hpp"

namespace dpusim::workload {

/// Reads layers, hidden, heads and vocab (required) and kv_heads, ffn, activation, tied_embeddings,
/// position_embeddings and biases (optional, GPT-style defaults) from `map`; checks consistency.
TransformerShape read_transformer_shape(yaml::Map& map, std::string name);

} // namespace dpusim::workload
