// Parse once, bind once: a cache of annotations owned by its caller (one per driver, say).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

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
  /// text, signature, rank and kind. Finding an existing binding allocates nothing: it runs
  /// on every launch.
  const BoundAnnotation& bind(std::string_view text, const KernelSignature& signature,
                              int launch_rank, LaunchKind kind = LaunchKind::kThreads);

  /// Number of distinct texts parsed and of distinct bindings made.
  size_t parsed_count() const { return parsed_.size(); }
  size_t bound_count() const { return bound_count_; }

  /// A cache whose bindings all hash alike, so that only the comparison of their fields
  /// tells them apart (tests of that comparison).
  static AnnotationCache with_colliding_hashes_for_testing();

 private:
  // Node-based maps and owned bindings: addresses survive rehashing, which the references
  // rely on. A binding's key is the binding's own text, signature, rank and kind, so a hit
  // is confirmed field by field and a hash collision cannot return a wrong binding.
  std::unordered_map<std::string, std::unique_ptr<Annotation>> parsed_;
  std::unordered_map<size_t, std::vector<std::unique_ptr<BoundAnnotation>>> bound_;
  size_t bound_count_ = 0;
  bool colliding_hashes_ = false;
};

}  // namespace lightning::annotation
