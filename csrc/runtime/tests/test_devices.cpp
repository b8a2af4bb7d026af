// Devices, configuration parsing, current device.
#include <cstdio>
#include <thread>

#include "runtime/runtime_internal.h"
#include "test_util.h"

using namespace tpu_test;
using rt::Status;

TEST(memory_size_parsing) {
  using torch_tpu::runtime::detail::parse_memory_size;
  size_t v = 0;
  CHECK(parse_memory_size("16GiB", &v));
  CHECK_EQ(v, size_t{16} << 30);
  CHECK(parse_memory_size("512MiB", &v));
  CHECK_EQ(v, size_t{512} << 20);
  CHECK(parse_memory_size("64KiB", &v));
  CHECK_EQ(v, size_t{64} << 10);
  CHECK(parse_memory_size("1GB", &v));
  CHECK_EQ(v, size_t{1000000000});
  CHECK(parse_memory_size("4096", &v));
  CHECK_EQ(v, size_t{4096});
  CHECK(parse_memory_size(" 2 gib ", &v));
  CHECK_EQ(v, size_t{2} << 30);
  CHECK(parse_memory_size("1.5G", &v));
  CHECK_EQ(v, size_t{3} << 29);
  CHECK(!parse_memory_size("", &v));
  CHECK(!parse_memory_size("abc", &v));
  CHECK(!parse_memory_size("12XB", &v));
  CHECK(!parse_memory_size("0", &v));
  CHECK(!parse_memory_size("-5GiB", &v));
  CHECK(!parse_memory_size("99999999999999999999999", &v));
}

TEST(devices_and_properties) {
  const int n = rt::device_count();
  CHECK(n >= 1);
  rt::DeviceProperties props;
  for (int d = 0; d < n; ++d) {
    CHECK_OK(rt::get_device_properties(d, &props));
    CHECK_EQ(props.name, std::string("torch_tpu simulated TPU"));
    CHECK_EQ(props.index, d);
    CHECK(props.total_memory > 0);
    CHECK(props.core_count >= 1);
  }
  CHECK_STATUS(rt::get_device_properties(n, &props), Status::kInvalidDevice);
  CHECK_STATUS(rt::get_device_properties(-1, &props), Status::kInvalidDevice);
  CHECK_STATUS(rt::device_synchronize(n), Status::kInvalidDevice);
  CHECK_CONTAINS(rt::last_error_message(), "invalid device");
  CHECK_EQ(rt::current_core_count(), 1);  // outside a launched body
}

TEST(current_device_is_per_thread) {
  CHECK_EQ(rt::current_device(), 0);
  CHECK_STATUS(rt::set_device(rt::device_count()), Status::kInvalidDevice);
  CHECK_EQ(rt::current_device(), 0);
  if (rt::device_count() < 2) return;
  CHECK_OK(rt::set_device(1));
  CHECK_EQ(rt::current_device(), 1);
  int other = -1;
  std::thread([&] { other = rt::current_device(); }).join();
  CHECK_EQ(other, 0);  // a new host thread starts on device 0
  CHECK_OK(rt::set_device(0));
}

TEST(status_names) {
  CHECK_EQ(std::string(rt::status_name(Status::kSuccess)), std::string("kSuccess"));
  CHECK_EQ(std::string(rt::status_name(Status::kForkedProcess)), std::string("kForkedProcess"));
  CHECK_EQ(std::string(rt::status_name(Status::kKernelFailure)), std::string("kKernelFailure"));
}

// ---- configuration from the environment, checked in child processes ----

CHILD_MAIN(print_config) {
  rt::DeviceProperties props;
  const int n = rt::device_count();
  if (n > 0) rt::get_device_properties(0, &props);
  std::fprintf(stderr, "devices=%d memory=%zu cores=%d strict=%d slow=%lld\n", n, props.total_memory,
               props.core_count, rt::strict_mode() ? 1 : 0, static_cast<long long>(rt::slow_device_us()));
  if (n == 0) {
    // No device: device work fails cleanly, host queries still work.
    void* p = nullptr;
    if (rt::malloc(0, 16, &p) != Status::kInvalidDevice) return 2;
    if (rt::launch(nullptr, "k", {}, [] {}) != Status::kInvalidDevice) return 3;
    if (rt::default_stream(0) != nullptr) return 4;
    if (rt::current_device() != 0) return 5;
    return 0;
  }
  // A small budget really limits allocations.
  size_t free_bytes = 0, total = 0;
  rt::mem_get_info(0, &free_bytes, &total);
  void* p = nullptr;
  if (rt::malloc(0, total + 1, &p) != Status::kOutOfMemory) return 6;
  return 0;
}

TEST(environment_configuration) {
  ChildResult r = run_child("print_config", {"TORCH_TPU_DEVICE_COUNT=3", "TORCH_TPU_DEVICE_MEMORY=64KiB",
                                             "TORCH_TPU_CORES=3", "TORCH_TPU_STRICT=1",
                                             "TORCH_TPU_SLOW_DEVICE_US=7"});
  CHECK(r.exited);
  CHECK_EQ(r.exit_code, 0);
  CHECK_CONTAINS(r.stderr_text, "devices=3 memory=65536 cores=3 strict=1 slow=7");

  r = run_child("print_config", {"TORCH_TPU_DEVICE_MEMORY=1GB", "TORCH_TPU_STRICT=0"});
  CHECK_EQ(r.exit_code, 0);
  CHECK_CONTAINS(r.stderr_text, "memory=1000000000 ");
  CHECK_CONTAINS(r.stderr_text, "strict=0");

  // Invalid values fall back to the defaults, with a message.
  r = run_child("print_config", {"TORCH_TPU_DEVICE_MEMORY=lots", "TORCH_TPU_DEVICE_COUNT=two",
                                 "TORCH_TPU_CORES=0"});
  CHECK_EQ(r.exit_code, 0);
  CHECK_CONTAINS(r.stderr_text, "ignoring invalid TORCH_TPU_DEVICE_MEMORY='lots'");
  CHECK_CONTAINS(r.stderr_text, "ignoring invalid TORCH_TPU_DEVICE_COUNT='two'");
  CHECK_CONTAINS(r.stderr_text, "ignoring invalid TORCH_TPU_CORES='0'");
  CHECK_CONTAINS(r.stderr_text, "devices=2 memory=17179869184 ");

  r = run_child("print_config", {"TORCH_TPU_DEVICE_COUNT=0"});
  CHECK_EQ(r.exit_code, 0);
  CHECK_CONTAINS(r.stderr_text, "devices=0 ");
}
