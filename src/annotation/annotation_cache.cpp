#include "annotation/annotation_cache.hpp"

#include "annotation/parser.hpp"
#include "core/hash_mix.hpp"

namespace lightning::annotation {
namespace {

// Hashes every field a binding depends on, without building anything: this runs on every
// launch. Equality (`matches`) checks the same fields.
size_t bind_hash(std::string_view text, const KernelSignature& sig, int launch_rank,
                 LaunchKind kind) {
  size_t h = std::hash<std::string_view>{}(text);
  h = hash_mix(h, static_cast<size_t>(launch_rank));
  h = hash_mix(h, static_cast<size_t>(kind));
  h = hash_mix(h, sig.arrays_shared);
  for (const KernelParam& p : sig.params) {
    h = hash_mix(h, std::hash<std::string_view>{}(p.name));
    h = hash_mix(h, static_cast<size_t>(p.is_array) | static_cast<size_t>(p.axes_reversed) << 1 |
                        static_cast<size_t>(p.rank) << 2);
    h = hash_mix(h, static_cast<size_t>(p.type));
  }
  for (const NamedConstant& c : sig.constants) {
    h = hash_mix(h, std::hash<std::string_view>{}(c.name));
    h = hash_mix(h, static_cast<size_t>(c.value));
  }
  return h;
}

bool matches(const BoundAnnotation& b, std::string_view text, const KernelSignature& sig,
             int launch_rank, LaunchKind kind) {
  return b.launch_rank() == launch_rank && b.launch_kind() == kind && b.text() == text &&
         b.signature() == sig;
}

}  // namespace

const Annotation& AnnotationCache::parse(std::string_view text) {
  auto it = parsed_.find(std::string(text));
  if (it != parsed_.end()) return *it->second;
  auto parsed = std::make_unique<Annotation>(parse_annotation(text));
  return *parsed_.emplace(std::string(text), std::move(parsed)).first->second;
}

const BoundAnnotation& AnnotationCache::bind(std::string_view text,
                                             const KernelSignature& signature, int launch_rank,
                                             LaunchKind kind) {
  const size_t hash = colliding_hashes_ ? 0 : bind_hash(text, signature, launch_rank, kind);
  auto it = bound_.find(hash);
  if (it != bound_.end())
    for (const std::unique_ptr<BoundAnnotation>& b : it->second)
      if (matches(*b, text, signature, launch_rank, kind)) return *b;
  auto bound = std::make_unique<BoundAnnotation>(
      BoundAnnotation::bind(parse(text), signature, launch_rank, kind));
  std::vector<std::unique_ptr<BoundAnnotation>>& same_hash = bound_[hash];
  same_hash.push_back(std::move(bound));
  ++bound_count_;
  return *same_hash.back();
}

AnnotationCache AnnotationCache::with_colliding_hashes_for_testing() {
  AnnotationCache cache;
  cache.colliding_hashes_ = true;
  return cache;
}

}  // namespace lightning::annotation
