// Parse once, bind once: a cache of annotations owned by its caller (one per driver, say).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include "annotation/ast.hpp"
#include "annotation/bound_annotation.hpp"
#include "annotation/kernel_signature.hpp"

namespace lightning::annotation {

/// Parsed and bound annotations by text (and signature and launch rank). Not thread-safe:
/// the owner serialises access (the module has no threads and no globals). Returned
/// references stay valid for the cache's lifetime. Failures are not cached: a bad
/// annotation throws on every call, with the same message.
class AnnotationCache {
 public:
  /// parse_annotation(text), once per distinct text.
  const Annotation& parse(std::string_view text);
  /// BoundAnnotation::bind(parse(text), signature, launch_rank, kind), once per distinct
  /// text, signature, rank and kind.
  const BoundAnnotation& bind(std::string_view text, const KernelSignature& signature,
                              int launch_rank, LaunchKind kind = LaunchKind::kThreads);

  /// Number of distinct texts parsed and of distinct bindings made.
  size_t parsed_count() const { return parsed_.size(); }
  size_t bound_count() const { return bound_.size(); }

 private:
  // Node-based maps: element addresses survive rehashing, which the references rely on.
  std::unordered_map<std::string, std::unique_ptr<Annotation>> parsed_;
  std::unordered_map<std::string, std::unique_ptr<BoundAnnotation>> bound_;
};

}  // namespace lightning::annotation
