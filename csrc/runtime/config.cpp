// Runtime configuration from the environment, read once. Bad values fall
// back to the default with a message on stderr rather than failing: the
// runtime is loaded at `import torch_tpu`, where an exception helps nobody.
#include <cctype>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <thread>

#include "runtime_internal.h"

namespace torch_tpu::runtime::detail {

namespace {

void warn(const char* var, const char* value, const std::string& fallback) {
  std::fprintf(stderr, "torch_tpu: ignoring invalid %s='%s'; using %s\n", var, value,
               fallback.c_str());
}

bool parse_int64(std::string_view text, int64_t* out) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  if (text.empty()) return false;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && end == text.data() + text.size();
}

bool parse_bool(std::string_view text, bool* out) {
  std::string t;
  for (char c : text) t += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (t == "1" || t == "true" || t == "on" || t == "yes") return *out = true, true;
  if (t == "0" || t == "false" || t == "off" || t == "no" || t.empty()) return *out = false, true;
  return false;
}

}  // namespace

bool parse_memory_size(std::string_view text, size_t* out) {
  auto trim = [](std::string_view& t) {
    while (!t.empty() && std::isspace(static_cast<unsigned char>(t.front()))) t.remove_prefix(1);
    while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.remove_suffix(1);
  };
  trim(text);
  // Number: digits with an optional fraction ("1.5GiB").
  size_t i = 0;
  uint64_t whole = 0;
  bool any_digit = false;
  for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i) {
    if (whole > (UINT64_MAX - 9) / 10) return false;
    whole = whole * 10 + static_cast<uint64_t>(text[i] - '0');
    any_digit = true;
  }
  long double fraction = 0, scale = 0.1L;
  if (i < text.size() && text[i] == '.') {
    for (++i; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i) {
      fraction += scale * (text[i] - '0');
      scale /= 10;
      any_digit = true;
    }
  }
  if (!any_digit) return false;
  std::string_view unit_text = text.substr(i);
  trim(unit_text);
  std::string unit;
  for (char c : unit_text) unit += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  // Binary for K/M/G/T and KiB/MiB/...; decimal (SI) for KB/MB/GB/TB.
  long double mult;
  if (unit.empty() || unit == "b") mult = 1;
  else if (unit == "k" || unit == "kib") mult = 1024.0L;
  else if (unit == "m" || unit == "mib") mult = 1024.0L * 1024;
  else if (unit == "g" || unit == "gib") mult = 1024.0L * 1024 * 1024;
  else if (unit == "t" || unit == "tib") mult = 1024.0L * 1024 * 1024 * 1024;
  else if (unit == "kb") mult = 1e3L;
  else if (unit == "mb") mult = 1e6L;
  else if (unit == "gb") mult = 1e9L;
  else if (unit == "tb") mult = 1e12L;
  else return false;
  long double bytes = (static_cast<long double>(whole) + fraction) * mult;
  // Positive and small enough to reserve as address space (< 2^47).
  if (bytes < 1 || bytes >= static_cast<long double>(uint64_t{1} << 47)) return false;
  *out = static_cast<size_t>(bytes);
  return true;
}

namespace {

Config load_config() {
  Config c;
  unsigned hw = std::thread::hardware_concurrency();
  c.cores = hw == 0 ? 1 : static_cast<int>(hw);

  if (const char* v = std::getenv("TORCH_TPU_DEVICE_COUNT")) {
    int64_t n;
    if (parse_int64(v, &n) && n >= 0 && n <= 1024) c.device_count = static_cast<int>(n);
    else warn("TORCH_TPU_DEVICE_COUNT", v, std::to_string(c.device_count) + " devices");
  }
  if (const char* v = std::getenv("TORCH_TPU_DEVICE_MEMORY")) {
    size_t bytes;
    if (parse_memory_size(v, &bytes)) c.device_memory = bytes;
    else warn("TORCH_TPU_DEVICE_MEMORY", v, "16GiB (accepted: e.g. 16GiB, 512MiB, 64KiB, 1GB, 4096)");
  }
  if (const char* v = std::getenv("TORCH_TPU_CORES")) {
    int64_t n;
    if (parse_int64(v, &n) && n >= 1 && n <= 4096) c.cores = static_cast<int>(n);
    else warn("TORCH_TPU_CORES", v, std::to_string(c.cores) + " cores");
  }
  if (const char* v = std::getenv("TORCH_TPU_STRICT")) {
    if (!parse_bool(v, &c.strict)) warn("TORCH_TPU_STRICT", v, "strict mode off");
  }
  if (const char* v = std::getenv("TORCH_TPU_SLOW_DEVICE_US")) {
    int64_t n;
    if (parse_int64(v, &n) && n >= 0) c.slow_device_us = n;
    else warn("TORCH_TPU_SLOW_DEVICE_US", v, "0");
  }
  if (const char* v = std::getenv("TORCH_TPU_LAUNCH_BLOCKING")) {
    if (!parse_bool(v, &c.launch_blocking)) warn("TORCH_TPU_LAUNCH_BLOCKING", v, "launch blocking off");
  }
  return c;
}

}  // namespace

const Config& config() {
  static const Config* c = new Config(load_config());  // leaky on purpose
  return *c;
}

}  // namespace torch_tpu::runtime::detail
