#include "worker/memory_manager.hpp"

#include <algorithm>
#include <memory>
#include <unordered_set>

#include "core/error.hpp"
#include "core/log.hpp"
#include "core/size_text.hpp"

namespace lightning::worker {

namespace {

std::string token_text(uint64_t token) {
  return "token " + std::to_string(token);
}

}  // namespace

MemoryManager::MemoryManager(MemoryLimits limits, MemoryBackend& backend)
    : backend_(backend), spill_(limits.spill_dir) {
  try {
    for (const auto& [device, bytes] : limits.devices) {
      if (!device.valid())
        throw Error(ErrorKind::kInvalidArgument, "memory manager: invalid device id");
      if (!device_index_.emplace(device, memories_.size()).second)
        throw Error(ErrorKind::kInvalidArgument,
                    "memory manager: device " + device.to_string() + " is listed twice");
      Memory mem;
      mem.space = MemorySpace::of_device(device);
      const uint64_t size = bytes / MemoryPool::kAlignment * MemoryPool::kAlignment;
      mem.pool.emplace(0);  // nothing backed yet: grow_pool
      mem.capacity = mem.cap = size;
      memories_.push_back(std::move(mem));
      memories_.back().base = backend_.allocate_device_pool(device, size);
    }
    Memory host;
    host.space = MemorySpace::host();
    host.capacity = limits.host_bytes;
    memories_.push_back(std::move(host));
  } catch (...) {
    for (Memory& m : memories_)
      if (m.base != nullptr) backend_.free_device_pool(m.space.device, m.base);
    throw;
  }
}

MemoryManager::~MemoryManager() {
  for (auto& [id, c] : chunks_) {
    for (auto& [m, copy] : c.copies) {
      try {
        if (is_device(m)) continue;  // pool memory goes with the pool
        backend_.free_host(copy.ptr);
      } catch (...) {  // a destructor must not throw; the process is likely ending anyway
      }
    }
  }
  for (Memory& m : memories_) {
    try {
      if (m.base != nullptr) backend_.free_device_pool(m.space.device, m.base);
    } catch (...) {
    }
  }
}

// ---- lookups ----------------------------------------------------------------------------

size_t MemoryManager::memory_index(MemorySpace where, const char* what) const {
  switch (where.kind) {
    case MemorySpace::Kind::kHost:
      return host_index();
    case MemorySpace::Kind::kDevice: {
      auto it = device_index_.find(where.device);
      if (it != device_index_.end()) return it->second;
      std::string known;
      for (const Memory& m : memories_)
        if (m.space.is_device()) known += (known.empty() ? "" : ", ") + m.space.device.to_string();
      throw Error(ErrorKind::kInvalidArgument,
                  std::string(what) + ": unknown device " + where.device.to_string() +
                      " (this memory manager has " + (known.empty() ? "none" : known) + ")");
    }
    case MemorySpace::Kind::kDisk:
      break;
  }
  throw Error(ErrorKind::kInvalidArgument,
              std::string(what) + ": the disk is not a memory tasks can use (device or host)");
}

MemoryManager::Chunk& MemoryManager::chunk_ref(ChunkId chunk, const char* what) {
  return const_cast<Chunk&>(static_cast<const MemoryManager*>(this)->chunk_ref(chunk, what));
}

const MemoryManager::Chunk& MemoryManager::chunk_ref(ChunkId chunk, const char* what) const {
  auto it = chunks_.find(chunk);
  if (it == chunks_.end())
    throw Error(ErrorKind::kInvalidArgument,
                std::string(what) + ": unknown chunk " + chunk.to_string());
  return it->second;
}

uint64_t MemoryManager::footprint(size_t m, const Chunk& c) const {
  return is_device(m) ? MemoryPool::rounded(c.pool_bytes()) : c.bytes;
}

uint64_t MemoryManager::memory_used(size_t m) const {
  return is_device(m) ? memories_[m].pool->used() : memories_[m].host_used;
}

uint64_t MemoryManager::chunk_bytes(ChunkId chunk) const {
  return chunk_ref(chunk, "chunk_bytes").bytes;
}

std::vector<DeviceId> MemoryManager::devices() const {
  std::vector<DeviceId> out;
  for (const Memory& m : memories_)
    if (m.space.is_device()) out.push_back(m.space.device);
  return out;
}

// ---- chunks -----------------------------------------------------------------------------

void MemoryManager::create_chunk(ChunkId chunk, uint64_t bytes, uint64_t phase) {
  if (!chunk.valid()) throw Error(ErrorKind::kInvalidArgument, "create_chunk: invalid chunk id");
  Chunk c;
  c.bytes = bytes;
  c.phase = phase % MemoryPool::kAlignment;
  if (auto early = early_next_use_.find(chunk); early != early_next_use_.end()) {
    c.next_use = early->second;
    early_next_use_.erase(early);
  }
  if (!chunks_.emplace(chunk, std::move(c)).second)
    throw Error(ErrorKind::kInvalidArgument,
                "create_chunk: chunk " + chunk.to_string() + " already exists");
}

void MemoryManager::plan_next_use(ChunkId chunk, uint64_t task) {
  auto it = chunks_.find(chunk);
  if (it == chunks_.end()) {
    if (task == kNoPlannedUse)
      early_next_use_.erase(chunk);
    else
      early_next_use_[chunk] = task;
    return;
  }
  Chunk& c = it->second;
  if (c.next_use == task) return;
  for (const auto& [m, cp] : c.copies)
    if (cp.locks == 0) memories_[m].evictable.erase(eviction_key(chunk, c, cp));
  c.next_use = task;
  for (const auto& [m, cp] : c.copies)
    if (cp.locks == 0) memories_[m].evictable.insert(eviction_key(chunk, c, cp));
}

void MemoryManager::delete_chunk(ChunkId chunk) {
  Chunk& c = chunk_ref(chunk, "delete_chunk");
  if (writing_back(chunk))
    throw Error(ErrorKind::kInvalidArgument, "delete_chunk: chunk " + chunk.to_string() +
                                                 " is being written back; finish that first");
  if (c.locks > 0)
    throw Error(ErrorKind::kInvalidArgument,
                "delete_chunk: chunk " + chunk.to_string() + " is staged by a task (" +
                    std::to_string(c.locks) + " lock(s)); unstage it first");
  while (!c.copies.empty()) free_copy(chunk, c, c.copies.begin()->first);
  if (c.on_disk) {
    spill_.remove(chunk);
    disk_bytes_ -= c.bytes;
  }
  chunks_.erase(chunk);
}

// ---- copies -----------------------------------------------------------------------------

MemoryManager::EvictionKey MemoryManager::eviction_key(ChunkId id, const Chunk& c, const Copy& cp) {
  if (c.next_use == kNoPlannedUse) return {0, cp.last_use, id};
  return {1, kNoPlannedUse - c.next_use, id};
}

void MemoryManager::lock_copy(ChunkId id, Chunk& c, size_t m) {
  Copy& cp = c.copies.at(m);
  if (cp.locks == 0) memories_[m].evictable.erase(eviction_key(id, c, cp));
  ++cp.locks;
  ++c.locks;
  cp.last_use = ++clock_;
}

void MemoryManager::unlock_copy(ChunkId id, Chunk& c, size_t m) {
  Copy& cp = c.copies.at(m);
  --cp.locks;
  --c.locks;
  cp.last_use = ++clock_;
  if (cp.locks == 0) memories_[m].evictable.insert(eviction_key(id, c, cp));
}

bool MemoryManager::try_allocate(ChunkId id, Chunk& c, size_t m) {
  Memory& mem = memories_[m];
  Copy cp;
  if (is_device(m)) {
    auto offset = mem.pool->allocate(c.pool_bytes());
    if (!offset && grow_pool(m, MemoryPool::rounded(c.pool_bytes())))
      offset = mem.pool->allocate(c.pool_bytes());
    if (!offset) return false;
    cp.offset = *offset;
    cp.ptr = static_cast<unsigned char*>(mem.base) + *offset + c.phase;
  } else {
    if (mem.capacity && mem.host_used + c.bytes > *mem.capacity) return false;
    cp.ptr = backend_.allocate_host(c.bytes);
    mem.host_used += c.bytes;
  }
  c.copies.emplace(m, cp);
  return true;
}

void MemoryManager::free_copy(ChunkId id, Chunk& c, size_t m) {
  auto it = c.copies.find(m);
  Memory& mem = memories_[m];
  if (it->second.locks == 0) mem.evictable.erase(eviction_key(id, c, it->second));
  if (is_device(m)) {
    mem.pool->free(it->second.offset);
  } else {
    mem.host_used -= c.bytes;
    backend_.free_host(it->second.ptr);
  }
  c.copies.erase(it);
}

bool MemoryManager::has_other_valid(const Chunk& c, size_t m) const {
  if (c.on_disk) return true;
  for (const auto& [other, cp] : c.copies)
    if (other != m && cp.valid) return true;
  return false;
}

void MemoryManager::write_to_disk(ChunkId id, Chunk& c, size_t from) {
  const Copy& cp = c.copies.at(from);
  if (is_device(from)) {
    std::unique_ptr<unsigned char[]> bounce(new unsigned char[std::max<uint64_t>(c.bytes, 1)]);
    backend_.copy(bounce.get(), MemorySpace::host(), cp.ptr, memories_[from].space, c.bytes);
    counters_.bytes_copied += c.bytes;
    spill_.write(id, bounce.get(), c.bytes);
  } else {
    spill_.write(id, cp.ptr, c.bytes);
  }
  c.on_disk = true;
  disk_bytes_ += c.bytes;
  ++counters_.disk_writes;
  counters_.bytes_written_to_disk += c.bytes;
}

bool MemoryManager::make_host_room(uint64_t bytes) {
  Memory& host = memories_[host_index()];
  if (!host.capacity) return true;
  if (bytes > *host.capacity) return false;
  while (host.host_used + bytes > *host.capacity) {
    if (host.evictable.empty()) return false;
    evict(host.evictable.begin()->chunk, host_index());
  }
  return true;
}

void MemoryManager::evict(ChunkId id, size_t m) {
  Chunk& c = chunks_.at(id);
  Copy& cp = c.copies.at(m);
  if (cp.locks != 0 || !cp.valid)
    throw Error(ErrorKind::kInternal, "memory manager: evicting locked or invalid copy of " +
                                          id.to_string() + " from " +
                                          memories_[m].space.to_string());
  if (is_device(m))
    ++counters_.device_evictions;
  else
    ++counters_.host_evictions;
  if (!has_other_valid(c, m)) {
    const size_t h = host_index();
    if (is_device(m) && c.copies.count(h) == 0 && make_host_room(c.bytes) &&
        try_allocate(id, c, h)) {
      Copy& hc = c.copies.at(h);
      const Copy& dc = c.copies.at(m);
      backend_.copy(hc.ptr, MemorySpace::host(), dc.ptr, memories_[m].space, c.bytes);
      counters_.bytes_copied += c.bytes;
      ++counters_.write_backs_to_host;
      hc.valid = true;
      hc.last_use = dc.last_use;  // keeps its age: old data is the first to go to disk
      memories_[h].evictable.insert(eviction_key(id, c, hc));
    } else {
      write_to_disk(id, c, m);
    }
  }
  free_copy(id, c, m);
}

void MemoryManager::fill(ChunkId id, Chunk& c, size_t m, ByteRange skipped) {
  Copy& dst = c.copies.at(m);
  const MemorySpace dst_space = memories_[m].space;
  // The bytes to fill: the whole chunk, or those before and after what the task overwrites.
  skipped = skipped.intersection({0, c.bytes});
  const ByteRange parts[2] = {{0, skipped.empty() ? c.bytes : skipped.begin},
                              {skipped.empty() ? c.bytes : skipped.end, c.bytes}};
  const auto at = [](void* p, uint64_t offset) { return static_cast<unsigned char*>(p) + offset; };
  // Source preference: another device (peer copy), then the host, then the disk.
  std::optional<size_t> src;
  for (const auto& [other, cp] : c.copies) {
    if (other == m || !cp.valid) continue;
    if (!src || (is_device(other) && !is_device(*src))) src = other;
  }
  if (src) {
    if (!skipped.empty()) ++counters_.partial_fills;
    for (const ByteRange& part : parts) {
      if (part.empty()) continue;
      backend_.copy(at(dst.ptr, part.begin), dst_space, at(c.copies.at(*src).ptr, part.begin),
                    memories_[*src].space, part.size());
      counters_.bytes_copied += part.size();
    }
  } else if (c.on_disk) {  // whole: spill files are read in one piece
    if (is_device(m)) {
      std::unique_ptr<unsigned char[]> bounce(new unsigned char[std::max<uint64_t>(c.bytes, 1)]);
      spill_.read(id, bounce.get(), c.bytes);
      backend_.copy(dst.ptr, dst_space, bounce.get(), MemorySpace::host(), c.bytes);
      counters_.bytes_copied += c.bytes;
    } else {
      spill_.read(id, dst.ptr, c.bytes);
    }
    ++counters_.disk_reads;
    counters_.bytes_read_from_disk += c.bytes;
  } else if (!c.has_data) {
    if (!skipped.empty()) ++counters_.partial_fills;
    for (const ByteRange& part : parts)
      if (!part.empty()) backend_.fill_zero(at(dst.ptr, part.begin), dst_space, part.size());
    ++counters_.zero_fills;
    c.has_data = true;
  } else {
    throw Error(ErrorKind::kInternal,
                "memory manager: chunk " + id.to_string() + " has data but no valid copy");
  }
  dst.valid = true;
}

void MemoryManager::fill_unless_valid(const Merged& x) {
  Chunk& c = chunks_.at(x.chunk);
  Copy& copy = c.copies.at(x.memory);
  if (copy.valid) return;
  if (!x.overwritten.empty() && x.overwritten.begin == 0 && x.overwritten.end >= c.bytes) {
    copy.valid = true;
    ++counters_.fills_skipped;
    return;
  }
  fill(x.chunk, c, x.memory, x.overwritten);
}

// ---- staging ----------------------------------------------------------------------------

void MemoryManager::throw_too_big(size_t m, const std::vector<ChunkId>& chunks, uint64_t raw,
                                  uint64_t rounded) const {
  std::string msg = "task needs " + format_size(raw);
  if (rounded != raw)
    msg += " (" + format_size(rounded) + " in " + std::to_string(MemoryPool::kAlignment) +
           "-byte units)";
  msg += " on " + memories_[m].space.to_string() + " (chunk" + (chunks.size() > 1 ? "s " : " ");
  constexpr size_t kShown = 8;
  for (size_t i = 0; i < chunks.size() && i < kShown; ++i)
    msg += (i ? ", " : "") + chunks[i].to_string() + " " + format_size(chunks_.at(chunks[i]).bytes);
  if (chunks.size() > kShown) msg += " and " + std::to_string(chunks.size() - kShown) + " more";
  msg += "), which holds " + format_size(*memories_[m].capacity);
  if (stopped_growing(memories_[m]))
    msg += " of its cap of " + format_size(memories_[m].cap) +
           ": its pool could not grow further, the device had no memory left (other processes "
           "or pools hold it)";
  throw Error(ErrorKind::kOutOfMemory, msg);
}

bool MemoryManager::grow_pool(size_t m, uint64_t more) {
  Memory& mem = memories_[m];
  MemoryPool& pool = *mem.pool;
  const uint64_t cap = *mem.capacity;
  if (pool.capacity() >= cap || more == 0) return false;
  const uint64_t need = std::min(cap, pool.capacity() + std::min(more, cap));
  const uint64_t step = (need + kPoolGrowthStep - 1) / kPoolGrowthStep * kPoolGrowthStep;
  // A whole step first; when the device cannot give that, what is needed.
  const auto grow_to = [&](uint64_t target) {
    if (!backend_.grow_device_pool(mem.space.device, mem.base, target)) return false;
    pool.grow(target);
    ++counters_.pool_growths;
    return true;
  };
  const uint64_t whole = std::min(cap, step);
  if (grow_to(whole) || (need < whole && grow_to(need))) return true;
  // The device's memory is taken (other processes, or other pools on the same GPU): the pool
  // keeps what it has, and tasks that need more than that fail (check_wanted_fits) instead
  // of waiting for room that will not come.
  mem.capacity = pool.capacity();
  log().warn(
      "the memory pool of {} stopped growing at {} of its cap of {}: the device has no memory "
      "left for it (other processes or pools hold it); its chunks are evicted within that",
      mem.space.device.to_string(), format_size(pool.capacity()), format_size(cap));
  return false;
}

void MemoryManager::check_wanted_fits() const {
  for (size_t m = 0; m < wanted_.size(); ++m) {
    const std::vector<ChunkId>& list = wanted_[m];
    if (list.empty() || !memories_[m].capacity) continue;
    uint64_t raw = 0, rounded = 0;
    for (ChunkId id : list) {
      raw += chunks_.at(id).bytes;
      rounded += footprint(m, chunks_.at(id));
    }
    if (rounded > *memories_[m].capacity) {
      std::vector<ChunkId> by_id = list;
      std::sort(by_id.begin(), by_id.end());
      throw_too_big(m, by_id, raw, rounded);
    }
  }
}

bool MemoryManager::try_allocate_all(size_t m, const std::vector<ChunkId>& missing,
                                     std::vector<uint64_t>* offsets) {
  MemoryPool& pool = *memories_[m].pool;
  offsets->clear();
  for (ChunkId id : missing) {
    auto o = pool.allocate(chunks_.at(id).pool_bytes());
    if (!o) {
      for (uint64_t done : *offsets) pool.free(done);
      offsets->clear();
      return false;
    }
    offsets->push_back(*o);
  }
  return true;
}

void MemoryManager::merge_requests(const std::vector<StageRequest>& requests, const char* what) {
  merged_.clear();
  for (const StageRequest& r : requests) {
    chunk_ref(r.chunk, what);
    merged_.push_back({r.chunk, memory_index(r.where, what), r.will_write, r.overwritten});
  }
  const auto key = [](const Merged& x) { return std::make_pair(x.chunk, x.memory); };
  std::sort(merged_.begin(), merged_.end(),
            [&](const Merged& x, const Merged& y) { return key(x) < key(y); });
  size_t kept = 0;
  for (const Merged& x : merged_) {
    if (kept > 0 && key(merged_[kept - 1]) == key(x)) {
      merged_[kept - 1].write = merged_[kept - 1].write || x.write;
      merged_[kept - 1].overwritten = merged_[kept - 1].overwritten.intersection(x.overwritten);
    } else {
      merged_[kept++] = x;
    }
  }
  merged_.resize(kept);
}

const MemoryManager::Merged& MemoryManager::merged(ChunkId chunk, size_t m) const {
  auto it = std::lower_bound(merged_.begin(), merged_.end(), std::make_pair(chunk, m),
                             [](const Merged& x, const std::pair<ChunkId, size_t>& k) {
                               return std::make_pair(x.chunk, x.memory) < k;
                             });
  if (it == merged_.end() || it->chunk != chunk || it->memory != m)
    throw Error(ErrorKind::kInternal, "memory manager: chunk " + chunk.to_string() +
                                          " was not requested on " +
                                          memories_[m].space.to_string());
  return *it;
}

StageResult MemoryManager::stage(uint64_t token, const std::vector<StageRequest>& requests) {
  if (tokens_.count(token) != 0)
    throw Error(ErrorKind::kInvalidArgument, "stage: " + token_text(token) + " is already staged");
  merge_requests(requests, "stage");
  for (const StageRequest& r : requests)
    if (!r.overwritten.empty() && !r.will_write)
      throw Error(ErrorKind::kInvalidArgument,
                  "stage: chunk " + r.chunk.to_string() + " is overwritten but not written");
  // A written chunk is wanted in one memory only (merged_ is sorted by chunk).
  for (size_t i = 0; i < merged_.size(); ++i) {
    const Merged& x = merged_[i];
    const bool elsewhere_too = (i > 0 && merged_[i - 1].chunk == x.chunk) ||
                               (i + 1 < merged_.size() && merged_[i + 1].chunk == x.chunk);
    if (x.write && elsewhere_too)
      throw Error(ErrorKind::kInvalidArgument,
                  "stage: chunk " + x.chunk.to_string() + " is written on " +
                      memories_[x.memory].space.to_string() +
                      " and requested in another memory by the same task");
  }

  // Chunks wanted per memory, biggest first (the order allocations are tried in).
  wanted_.resize(memories_.size());
  for (auto& list : wanted_) list.clear();
  for (const Merged& x : merged_) wanted_[x.memory].push_back(x.chunk);
  for (std::vector<ChunkId>& list : wanted_)
    std::stable_sort(list.begin(), list.end(), [&](ChunkId a, ChunkId b) {
      return chunks_.at(a).bytes > chunks_.at(b).bytes;
    });
  check_wanted_fits();

  // Another token writes a chunk we want, or holds one we would write; or it is being written
  // back.
  for (const Merged& x : merged_) {
    const Chunk& c = chunks_.at(x.chunk);
    if (c.writers > 0 || (x.write && c.locks > 0) || writing_back(x.chunk))
      return StageResult::kRetryLater;
  }
  if (!feasible()) {
    check_wanted_fits();  // a pool that stopped growing in feasible() may be too small now
    return StageResult::kRetryLater;
  }

  // From here on the request succeeds (barring I/O errors and corrupt spill files).
  std::vector<Held>& held = reused_tokens_.find_or_insert(tokens_, token)->second;
  held.clear();  // a reused node's vector, as its last token left it
  held.reserve(merged_.size());
  std::vector<ChunkId> written;  // chunks whose writers count this token
  try {
    // Pin the copies already in place, except unlocked ones on a memory too fragmented to
    // keep them where they are: those are evicted and staged again.
    std::vector<std::pair<ChunkId, size_t>> unpinned;  // rare: no storage kept for it
    for (const Merged& x : merged_) {
      Chunk& c = chunks_.at(x.chunk);
      auto cp = c.copies.find(x.memory);
      if (cp == c.copies.end()) continue;
      if (relocate_[x.memory] && cp->second.locks == 0) {
        unpinned.emplace_back(x.chunk, x.memory);
        continue;
      }
      lock_copy(x.chunk, c, x.memory);
      held.push_back({x.chunk, x.memory, x.write});
    }
    for (const auto& [id, m] : unpinned) evict(id, m);
    // Devices: evict copies in eviction order until every missing chunk fits.
    for (size_t m = 0; m < wanted_.size(); ++m) {
      if (!is_device(m)) continue;
      std::vector<ChunkId>& missing = missing_;
      missing.clear();
      for (ChunkId id : wanted_[m])
        if (chunks_.at(id).copies.count(m) == 0) missing.push_back(id);
      if (missing.empty()) continue;
      Memory& mem = memories_[m];
      std::vector<uint64_t>& offsets = offsets_;
      while (!try_allocate_all(m, missing, &offsets)) {
        if (mem.evictable.empty())
          throw Error(ErrorKind::kInternal,
                      "memory manager: no room on " + mem.space.to_string() + " after feasibility");
        evict(mem.evictable.begin()->chunk, m);
      }
      for (size_t i = 0; i < missing.size(); ++i) {
        Chunk& c = chunks_.at(missing[i]);
        Copy cp;
        cp.offset = offsets[i];
        cp.ptr = static_cast<unsigned char*>(mem.base) + offsets[i] + c.phase;
        c.copies.emplace(m, cp);
        lock_copy(missing[i], c, m);
        held.push_back({missing[i], m, merged(missing[i], m).write});
      }
    }
    // The host, last: device evictions above may have written requested chunks back to it.
    if (const size_t h = host_index(); !wanted_[h].empty()) {
      std::vector<ChunkId>& missing = missing_;
      missing.clear();
      uint64_t need = 0;
      for (ChunkId id : wanted_[h]) {
        Chunk& c = chunks_.at(id);
        if (c.copies.count(h) == 0) {
          missing.push_back(id);
          need += c.bytes;
        } else if (std::none_of(held.begin(), held.end(),
                                [&](const Held& x) { return x.chunk == id && x.memory == h; })) {
          lock_copy(id, c, h);
          held.push_back({id, h, merged(id, h).write});
        }
      }
      if (!make_host_room(need))
        throw Error(ErrorKind::kInternal, "memory manager: no room on the host after feasibility");
      for (ChunkId id : missing) {
        Chunk& c = chunks_.at(id);
        if (!try_allocate(id, c, h))
          throw Error(ErrorKind::kInternal, "memory manager: host allocation failed");
        lock_copy(id, c, h);
        held.push_back({id, h, merged(id, h).write});
      }
    }
    // Fill new copies (in request order, so a chunk wanted twice copies from the first),
    // except the bytes the task overwrites: their old contents would never be read.
    for (const Merged& x : merged_) fill_unless_valid(x);
    // Writers: the staged copy becomes the only one.
    for (const Merged& x : merged_) {
      if (!x.write) continue;
      Chunk& c = chunks_.at(x.chunk);
      ++c.writers;
      written.push_back(x.chunk);
      c.has_data = true;
      for (auto it = c.copies.begin(); it != c.copies.end();) {
        const size_t m = (it++)->first;  // free_copy erases the current element
        if (m == x.memory) continue;
        free_copy(x.chunk, c, m);
        ++counters_.invalidations;
      }
      if (c.on_disk) {
        spill_.remove(x.chunk);
        c.on_disk = false;
        disk_bytes_ -= c.bytes;
        ++counters_.invalidations;
      }
    }
  } catch (...) {
    for (const Held& x : held) {
      Chunk& c = chunks_.at(x.chunk);
      unlock_copy(x.chunk, c, x.memory);
      if (!c.copies.at(x.memory).valid) free_copy(x.chunk, c, x.memory);
    }
    for (ChunkId id : written) --chunks_.at(id).writers;
    reused_tokens_.erase(tokens_, tokens_.find(token));
    throw;
  }
  ++counters_.stagings;
  return StageResult::kStaged;
}

bool MemoryManager::feasible() {
  relocate_.assign(memories_.size(), 0);
  for (size_t m = 0; m < wanted_.size(); ++m) {
    const std::vector<ChunkId>& list = wanted_[m];
    if (list.empty()) continue;
    const Memory& mem = memories_[m];
    // Lists hold a task's few chunks: a scan costs less than a set.
    auto requested = [&](ChunkId id) {
      return std::find(list.begin(), list.end(), id) != list.end();
    };
    if (is_device(m)) {
      std::vector<ChunkId>& missing = missing_;
      missing.clear();
      uint64_t more = 0;
      for (ChunkId id : list)
        if (chunks_.at(id).copies.count(m) == 0) {
          missing.push_back(id);
          more += MemoryPool::rounded(chunks_.at(id).pool_bytes());
        }
      if (missing.empty()) continue;
      // Device memory is backed before anything is evicted to make room: growing by everything
      // missing makes it fit (the new bytes join the free block at the end), up to the cap.
      if (try_allocate_all(m, missing, &offsets_) ||
          (grow_pool(m, more) && try_allocate_all(m, missing, &offsets_))) {  // fits: undo
        for (uint64_t o : offsets_) memories_[m].pool->free(o);
        continue;
      }
      // Would it fit with every unlocked copy of other chunks evicted?
      MemoryPool sim = *mem.pool;
      for (const EvictionKey& k : mem.evictable)
        if (!requested(k.chunk)) sim.free(chunks_.at(k.chunk).copies.at(m).offset);
      if (std::all_of(missing.begin(), missing.end(), [&](ChunkId id) {
            return sim.allocate(chunks_.at(id).pool_bytes()).has_value();
          }))
        continue;
      // Requested copies already here may split the free space: would it fit with them
      // evicted too, and staged again? (With nothing locked, this always fits.)
      sim = *mem.pool;
      for (const EvictionKey& k : mem.evictable) sim.free(chunks_.at(k.chunk).copies.at(m).offset);
      for (ChunkId id : list) {
        auto cp = chunks_.at(id).copies.find(m);
        if (cp != chunks_.at(id).copies.end() && cp->second.locks > 0) continue;
        if (!sim.allocate(chunks_.at(id).pool_bytes())) return false;
      }
      relocate_[m] = 1;
    } else if (mem.capacity) {
      uint64_t need = 0, evictable = 0;
      for (ChunkId id : list)
        if (chunks_.at(id).copies.count(m) == 0) need += chunks_.at(id).bytes;
      if (mem.host_used + need <= *mem.capacity) continue;
      for (const EvictionKey& k : mem.evictable)
        if (!requested(k.chunk)) evictable += chunks_.at(k.chunk).bytes;
      if (mem.host_used - evictable + need > *mem.capacity) return false;
    }
  }
  return true;
}

std::optional<WriteBack> MemoryManager::start_write_back() {
  const size_t h = host_index();
  for (size_t m = 0; m < h; ++m) {
    Memory& mem = memories_[m];
    // Of the capacity, not of what is backed so far: the pool may still grow into the rest.
    const uint64_t target = *mem.capacity / kCleanShareOfMemory;
    uint64_t room = *mem.capacity - mem.pool->used();
    for (const auto& [id, from] : write_backs_)  // clean once written back
      if (from == m) room += footprint(m, chunks_.at(id));
    // The copies evicted next, up to the target, should cost nothing to evict: the first of
    // them that is its chunk's only copy is written back. Except where no task will use the
    // chunk: an output or a temporary is often overwritten or deleted before it is read, so
    // its eviction writes it back, if it comes to that.
    std::optional<ChunkId> first_dirty;
    for (const EvictionKey& k : mem.evictable) {
      if (room >= target) break;
      const Chunk& c = chunks_.at(k.chunk);
      if (c.next_use != kNoPlannedUse && !has_other_valid(c, m)) {
        first_dirty = k.chunk;
        break;
      }
      room += footprint(m, c);
    }
    if (!first_dirty) continue;
    const ChunkId id = *first_dirty;
    Chunk& c = chunks_.at(id);
    if (c.copies.count(h) != 0 || !make_host_room(c.bytes) || !try_allocate(id, c, h))
      return std::nullopt;  // the host is full: eviction writes to disk, on the staging path
    // Locked without a token and without a new last use: the copy keeps its place.
    Copy& dc = c.copies.at(m);
    mem.evictable.erase(eviction_key(id, c, dc));
    ++dc.locks;
    Copy& hc = c.copies.at(h);  // invalid until finish_write_back
    ++hc.locks;
    c.locks += 2;
    write_backs_.emplace(id, m);
    return WriteBack{id, mem.space, dc.ptr, hc.ptr, c.bytes};
  }
  return std::nullopt;
}

bool MemoryManager::wants_next_uses() const {
  for (size_t m = 0; m < host_index(); ++m) {
    if (memories_[m].pool->used() > *memories_[m].capacity / kPlansFromShareOfMemory) return true;
  }
  return false;
}

void MemoryManager::finish_write_back(ChunkId chunk, bool ok) {
  auto it = write_backs_.find(chunk);
  if (it == write_backs_.end())
    throw Error(ErrorKind::kInternal,
                "finish_write_back: no write-back of " + chunk.to_string() + " under way");
  const size_t m = it->second;
  const size_t h = host_index();
  write_backs_.erase(it);
  Chunk& c = chunks_.at(chunk);
  Copy& dc = c.copies.at(m);
  Copy& hc = c.copies.at(h);
  c.locks -= 2;
  if (--dc.locks == 0) memories_[m].evictable.insert(eviction_key(chunk, c, dc));
  --hc.locks;
  if (!ok) {
    free_copy(chunk, c, h);
    return;
  }
  hc.valid = true;
  hc.last_use = dc.last_use;  // as an evicted copy's: old data is the first to go to disk
  if (hc.locks == 0) memories_[h].evictable.insert(eviction_key(chunk, c, hc));
  counters_.bytes_copied += c.bytes;
  ++counters_.written_back_early;
}

void MemoryManager::unstage(uint64_t token) {
  auto it = tokens_.find(token);
  if (it == tokens_.end())
    throw Error(ErrorKind::kInvalidArgument, "unstage: " + token_text(token) + " is not staged");
  for (const Held& x : it->second) {
    Chunk& c = chunks_.at(x.chunk);
    unlock_copy(x.chunk, c, x.memory);
    if (x.write) --c.writers;
  }
  reused_tokens_.erase(tokens_, it);
}

bool MemoryManager::stage_in_place(uint64_t token, const std::vector<StageRequest>& requests,
                                   const std::vector<uint64_t>& behind) {
  if (tokens_.count(token) != 0)
    throw Error(ErrorKind::kInvalidArgument,
                "stage_in_place: " + token_text(token) + " is already staged");
  for (uint64_t b : behind)
    if (tokens_.count(b) == 0) return false;
  merge_requests(requests, "stage_in_place");
  if (!write_backs_.empty())
    for (const Merged& x : merged_)
      if (writing_back(x.chunk)) return false;
  // A new chunk (no bytes anywhere yet: a reduction's or a scan's value made for this launch)
  // gets its first copy here when the memory has room for it as it is: nothing is evicted.
  const auto is_new = [](const Chunk& c) { return c.copies.empty() && !c.on_disk && !c.has_data; };
  for (const Merged& x : merged_) {
    const Chunk& c = chunks_.at(x.chunk);
    if (c.copies.count(x.memory) == 0 && !is_new(c)) return false;
    // A written copy must be the only one: dropping others could take one a holder reads.
    if (x.write && (c.copies.size() > 1 || c.on_disk)) return false;
  }
  std::vector<ChunkId>& allocated = missing_;
  allocated.clear();
  for (const Merged& x : merged_) {
    Chunk& c = chunks_.at(x.chunk);
    if (c.copies.count(x.memory) != 0) continue;
    // A new chunk, wanted in this memory only: its first copy, if there is room as it is.
    if (!c.copies.empty() || !try_allocate(x.chunk, c, x.memory)) {
      for (ChunkId id : allocated)
        free_copy(id, chunks_.at(id), chunks_.at(id).copies.begin()->first);
      return false;
    }
    allocated.push_back(x.chunk);
  }
  std::vector<Held>& held = reused_tokens_.find_or_insert(tokens_, token)->second;
  held.clear();
  for (const Merged& x : merged_) {
    Chunk& c = chunks_.at(x.chunk);
    fill_unless_valid(x);
    lock_copy(x.chunk, c, x.memory);
    held.push_back({x.chunk, x.memory, x.write});
    if (x.write) {
      ++c.writers;
      c.has_data = true;
    }
  }
  ++counters_.stagings;
  return true;
}

// ---- introspection ----------------------------------------------------------------------

void* MemoryManager::data(ChunkId chunk, MemorySpace where) const {
  const Chunk& c = chunk_ref(chunk, "data");
  const size_t m = memory_index(where, "data");
  auto it = c.copies.find(m);
  if (it == c.copies.end())
    throw Error(ErrorKind::kInvalidArgument,
                "data: chunk " + chunk.to_string() + " has no copy on " + where.to_string());
  return it->second.ptr;
}

uint64_t MemoryManager::bytes_used(MemorySpace where) const {
  if (where.kind == MemorySpace::Kind::kDisk) return disk_bytes_;
  return memory_used(memory_index(where, "bytes_used"));
}

std::optional<uint64_t> MemoryManager::capacity(MemorySpace where) const {
  if (where.kind == MemorySpace::Kind::kDisk) return std::nullopt;
  return memories_[memory_index(where, "capacity")].capacity;
}

uint64_t MemoryManager::bytes_backed(MemorySpace where) const {
  const size_t m = memory_index(where, "bytes_backed");
  if (!is_device(m))
    throw Error(ErrorKind::kInvalidArgument,
                "bytes_backed: " + where.to_string() + " is not a device");
  return memories_[m].pool->capacity();
}

bool MemoryManager::has_copy(ChunkId chunk, MemorySpace where) const {
  const Chunk& c = chunk_ref(chunk, "has_copy");
  if (where.kind == MemorySpace::Kind::kDisk) return c.on_disk;
  return c.copies.count(memory_index(where, "has_copy")) != 0;
}

bool MemoryManager::is_locked(ChunkId chunk, MemorySpace where) const {
  const Chunk& c = chunk_ref(chunk, "is_locked");
  if (where.kind == MemorySpace::Kind::kDisk) return false;
  auto it = c.copies.find(memory_index(where, "is_locked"));
  return it != c.copies.end() && it->second.locks > 0;
}

void MemoryManager::check_invariants() const {
  auto fail = [](const std::string& what) {
    throw Error(ErrorKind::kInternal, "memory manager invariant: " + what);
  };
  std::vector<uint64_t> used(memories_.size(), 0);
  std::vector<size_t> unlocked(memories_.size(), 0);
  std::map<std::pair<ChunkId, size_t>, uint32_t> token_locks;
  std::map<ChunkId, uint32_t> token_writes;
  for (const auto& [token, held] : tokens_)
    for (const Held& x : held) {
      ++token_locks[{x.chunk, x.memory}];
      if (x.write) ++token_writes[x.chunk];
    }
  for (const auto& [id, m] : write_backs_) {  // each holds its device and host copies
    ++token_locks[{id, m}];
    ++token_locks[{id, host_index()}];
  }
  uint64_t disk = 0;
  for (const auto& [id, c] : chunks_) {
    uint32_t locks = 0;
    for (const auto& [m, cp] : c.copies) {
      const std::string where = id.to_string() + " on " + memories_[m].space.to_string();
      const bool arriving = m == host_index() && writing_back(id);  // valid once finished
      if (!cp.valid && !arriving) fail("invalid copy of " + where);
      used[m] += footprint(m, c);
      locks += cp.locks;
      auto tl = token_locks.find({id, m});
      if ((tl == token_locks.end() ? 0 : tl->second) != cp.locks)
        fail("lock count of " + where + " differs from the tokens'");
      if (cp.locks == 0) {
        ++unlocked[m];
        if (memories_[m].evictable.count(eviction_key(id, c, cp)) == 0)
          fail(where + " missing from the eviction order");
      }
      if (is_device(m)) {
        auto size = memories_[m].pool->block_size(cp.offset);
        if (!size || *size != MemoryPool::rounded(c.pool_bytes())) fail("pool block of " + where);
        if (cp.ptr != static_cast<unsigned char*>(memories_[m].base) + cp.offset + c.phase)
          fail("address of " + where);
      }
    }
    if (locks != c.locks) fail("chunk lock count of " + id.to_string());
    if (c.on_disk != spill_.contains(id)) fail("spill file state of " + id.to_string());
    if (c.on_disk) disk += c.bytes;
    if (c.has_data && c.copies.empty() && !c.on_disk) fail(id.to_string() + " lost its data");
    if (!c.has_data && (!c.copies.empty() || c.on_disk))
      fail(id.to_string() + " has copies but no data");
    if (c.writers > 0 && (c.copies.size() != 1 || c.on_disk))
      fail(id.to_string() + " written but not unique");
    if (c.writers != token_writes[id]) fail("writer count of " + id.to_string());
  }
  for (const auto& [key, n] : token_locks)
    if (chunks_.count(key.first) == 0) fail("a token holds deleted chunk " + key.first.to_string());
  if (disk != disk_bytes_) fail("disk bytes");
  const size_t on_disk = static_cast<size_t>(std::count_if(
      chunks_.begin(), chunks_.end(), [](const auto& kv) { return kv.second.on_disk; }));
  if (spill_.file_count() != on_disk) fail("spill files without chunks");
  for (size_t m = 0; m < memories_.size(); ++m) {
    const Memory& mem = memories_[m];
    if (used[m] != memory_used(m)) fail("bytes used on " + mem.space.to_string());
    if (mem.capacity && used[m] > *mem.capacity) fail(mem.space.to_string() + " over capacity");
    if (is_device(m) && mem.pool->capacity() > *mem.capacity)
      fail(mem.space.to_string() + " backed beyond its capacity");
    if (mem.evictable.size() != unlocked[m])
      fail("eviction order size on " + mem.space.to_string());
  }
}

}  // namespace lightning::worker
