// SmallVector: a vector whose first N elements live inline. Launch
// descriptors (shapes, strides, operands, buffer lists) are built on the host
// for every kernel; with std::vector each was a malloc on the host and a free
// later, ~8 per small op and a fifth of its host time. Past N it moves to the
// heap like std::vector. Part of the runtime's public headers because the
// launch API takes one (BufferList); no torch headers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <iterator>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace torch_tpu {

template <typename T, size_t N>
class SmallVector {
  static_assert(N > 0, "SmallVector needs an inline capacity");

 public:
  using value_type = T;
  using iterator = T*;
  using const_iterator = const T*;

  SmallVector() = default;
  SmallVector(std::initializer_list<T> il) { assign(il.begin(), il.end()); }
  explicit SmallVector(size_t n, const T& v = T()) { resize(n, v); }
  // Implicit, so code that builds a std::vector keeps working.
  SmallVector(const std::vector<T>& v) { assign(v.begin(), v.end()); }  // NOLINT
  template <typename It, typename = decltype(*std::declval<It>())>
  SmallVector(It first, It last) {
    assign(first, last);
  }
  SmallVector(const SmallVector& o) { assign(o.begin(), o.end()); }
  SmallVector(SmallVector&& o) noexcept { steal(o); }
  SmallVector& operator=(const SmallVector& o) {
    if (this != &o) assign(o.begin(), o.end());
    return *this;
  }
  SmallVector& operator=(SmallVector&& o) noexcept {
    if (this != &o) {
      clear();
      free_heap();
      steal(o);
    }
    return *this;
  }
  SmallVector& operator=(std::initializer_list<T> il) {
    assign(il.begin(), il.end());
    return *this;
  }
  ~SmallVector() {
    clear();
    free_heap();
  }

  template <typename It>
  void assign(It first, It last) {
    clear();
    if constexpr (std::is_base_of_v<std::forward_iterator_tag,
                                    typename std::iterator_traits<It>::iterator_category>) {
      reserve(static_cast<size_t>(std::distance(first, last)));
    }
    for (; first != last; ++first) emplace_back(*first);
  }

  T* data() { return ptr(); }
  const T* data() const { return ptr(); }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  size_t capacity() const { return cap_; }
  T& operator[](size_t i) { return ptr()[i]; }
  const T& operator[](size_t i) const { return ptr()[i]; }
  T& back() { return ptr()[size_ - 1]; }
  const T& back() const { return ptr()[size_ - 1]; }
  T& front() { return ptr()[0]; }
  const T& front() const { return ptr()[0]; }
  iterator begin() { return ptr(); }
  iterator end() { return ptr() + size_; }
  const_iterator begin() const { return ptr(); }
  const_iterator end() const { return ptr() + size_; }

  // std::vector of the same elements, for APIs that take one.
  std::vector<T> vec() const { return std::vector<T>(begin(), end()); }

  void reserve(size_t n) {
    if (n <= cap_) return;
    T* fresh = static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t(alignof(T))));
    T* old = ptr();
    for (size_t i = 0; i < size_; ++i) {
      new (fresh + i) T(std::move(old[i]));
      old[i].~T();
    }
    free_heap();
    heap_ = fresh;
    cap_ = n;
  }
  template <typename... Args>
  T& emplace_back(Args&&... args) {
    if (size_ == cap_) reserve(cap_ * 2);
    T* slot = new (ptr() + size_) T(std::forward<Args>(args)...);
    ++size_;
    return *slot;
  }
  void push_back(const T& v) { emplace_back(v); }
  void push_back(T&& v) { emplace_back(std::move(v)); }
  // Inserts v before pos (by moving the tail up one place).
  iterator insert(const_iterator pos, T v) {
    const size_t at = static_cast<size_t>(pos - begin());
    emplace_back(std::move(v));
    T* p = ptr();
    for (size_t i = size_ - 1; i > at; --i) std::swap(p[i], p[i - 1]);
    return p + at;
  }
  void pop_back() { ptr()[--size_].~T(); }
  void resize(size_t n, const T& v = T()) {
    while (size_ > n) pop_back();
    reserve(n);
    while (size_ < n) emplace_back(v);
  }
  void clear() {
    T* p = ptr();
    for (size_t i = 0; i < size_; ++i) p[i].~T();
    size_ = 0;
  }

 private:
  T* ptr() { return heap_ ? heap_ : reinterpret_cast<T*>(inline_); }
  const T* ptr() const { return heap_ ? heap_ : reinterpret_cast<const T*>(inline_); }
  void free_heap() {
    if (heap_) ::operator delete(heap_, std::align_val_t(alignof(T)));
    heap_ = nullptr;
    cap_ = N;
  }
  // Takes o's elements (its heap buffer, or moves the inline ones); o is
  // left empty with its inline capacity. *this is empty on entry.
  void steal(SmallVector& o) {
    if (o.heap_) {
      heap_ = o.heap_;
      cap_ = o.cap_;
      size_ = o.size_;
      o.heap_ = nullptr;
      o.cap_ = N;
      o.size_ = 0;
      return;
    }
    T* src = o.ptr();
    for (size_t i = 0; i < o.size_; ++i) {
      new (ptr() + i) T(std::move(src[i]));
      src[i].~T();
    }
    size_ = o.size_;
    o.size_ = 0;
  }

  T* heap_ = nullptr;
  uint32_t size_ = 0;
  uint32_t cap_ = N;
  alignas(T) unsigned char inline_[N * sizeof(T)];
};

template <typename T, size_t N>
bool operator==(const SmallVector<T, N>& a, const SmallVector<T, N>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!(a[i] == b[i])) return false;
  }
  return true;
}

}  // namespace torch_tpu
