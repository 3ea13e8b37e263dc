#include "annotation/annotation_cache.hpp"

#include "annotation/parser.hpp"

namespace lightning::annotation {
namespace {

// A key that identifies (text, signature, rank) exactly: every variable-length part is
// length-prefixed, so no two different triples produce the same string.
std::string bind_key(std::string_view text, const KernelSignature& sig, int launch_rank,
                     LaunchKind kind) {
  std::string key;
  auto put = [&key](std::string_view s) {
    key += std::to_string(s.size());
    key += ':';
    key += s;
  };
  put(text);
  key += std::to_string(launch_rank);
  key += kind == LaunchKind::kTeams ? 't' : ';';
  for (const KernelParam& p : sig.params) {
    put(p.name);
    key += p.is_array ? 'a' : 's';
    key += std::to_string(static_cast<int>(p.type));
    key += ',';
    key += std::to_string(p.rank);
    key += p.axes_reversed ? 'r' : ';';
  }
  key += '|';
  for (const NamedConstant& c : sig.constants) {
    put(c.name);
    key += std::to_string(c.value);
    key += ';';
  }
  return key;
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
  std::string key = bind_key(text, signature, launch_rank, kind);
  auto it = bound_.find(key);
  if (it != bound_.end()) return *it->second;
  auto bound = std::make_unique<BoundAnnotation>(
      BoundAnnotation::bind(parse(text), signature, launch_rank, kind));
  return *bound_.emplace(std::move(key), std::move(bound)).first->second;
}

}  // namespace lightning::annotation
