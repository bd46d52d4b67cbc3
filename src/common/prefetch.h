// A software prefetch the optimizer cannot delete.
//
// GCC treats __builtin_prefetch as free of side effects. A function that only loads and
// prefetches (HashTable::PrefetchChain: read a bucket slot, prefetch the entry it names) is
// then inferred pure by its interprocedural analysis, and a call to it whose result is unused
// is removed as dead code: g++ 12 -O2 dropped every entry prefetch of the keyspace that way.
// The empty volatile asm that consumes the address is an effect the optimizer must keep; it
// costs no instruction.
#pragma once

namespace vireo {

inline void PrefetchRead(const void* p) {
  __builtin_prefetch(p);
  asm volatile("" : : "r"(p));
}

}  // namespace vireo
